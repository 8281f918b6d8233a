/* coalcheck CUDA front end: cc_cuda_tile, the kernel body of a transposition rewritten to
 * stage its load through a padded shared-memory tile (tile.h), and what it refuses. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"
#include "cuda/tile.h"

#define MAX_DEPTH 2000
#define MAX_PARAMS 256

/* One subscript of a kernel parameter: `P[...]`. */
struct psub {
  CXCursor at;              /* the ArraySubscriptExpr */
  uint32_t param;
  int write;                /* the left side of a plain `=` */
  int read;                 /* its value is read (`+=`, `++` and `&` count as reads) */
  int in_loop;
  int stmt;                 /* write: the assignment is a statement of its own */
  CXCursor assign, rhs;     /* write: the assignment and its right side */
};

/* What the walk of the kernel's body found. */
struct twalk {
  const struct cc_cuda_model *m;
  CXCursor params[MAX_PARAMS]; uint32_t nparams;
  CC_VEC(struct psub) subs;
  CXCursor other_use[MAX_PARAMS]; /* the first reference to a parameter outside a subscript's base */
  int has_other[MAX_PARAMS];
  CXCursor bad;             /* the first construct refused (a null cursor when none) */
  char bad_what[256];
  int depth;
};

/* The walk's place: the cursor whose children are visited, inside a loop or not. */
struct frame {
  struct twalk *w;
  int loop;
  enum CXCursorKind parent;
  unsigned idx;
};

/* Records what the tile must know of cursor c (child idx of a parent of kind parent) and
 * below: subscripts of the kernel's parameters, other uses of them, refused constructs. */
static void walk(struct twalk *w, CXCursor c, int loop, enum CXCursorKind parent, unsigned idx);

static enum CXChildVisitResult visit_kid(CXCursor c, CXCursor parent, CXClientData data)
{
  struct frame *f = data;
  (void)parent;
  walk(f->w, c, f->loop, f->parent, f->idx++);
  return CXChildVisit_Continue;
}

static void set_bad(struct twalk *w, CXCursor at, const char *what)
{
  if (clang_Cursor_isNull(w->bad)) {
    w->bad = at;
    snprintf(w->bad_what, sizeof w->bad_what, "%s", what);
  }
}

static void walk_kids(struct twalk *w, CXCursor c, int loop)
{
  struct frame f = {w, loop, clang_getCursorKind(c), 0};
  if (w->depth >= MAX_DEPTH) {
    set_bad(w, c, "expressions nested too deeply");
    return;
  }
  w->depth++;
  clang_visitChildren(c, visit_kid, &f);
  w->depth--;
}

/* c without parentheses and implicit conversions (UnexposedExpr in libclang 14). */
static CXCursor strip(CXCursor c)
{
  for (int i = 0; i < 64; i++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor kid;
    if ((k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr) ||
        cc_cuda_children(c, &kid, 1) != 1)
      break;
    c = kid;
  }
  return c;
}

/* The position of the kernel parameter that c (a DeclRefExpr) names, or -1. */
static int param_of(const struct twalk *w, CXCursor c)
{
  CXCursor r;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr)
    return -1;
  r = clang_getCursorReferenced(c);
  for (uint32_t i = 0; i < w->nparams; i++)
    if (clang_equalCursors(r, w->params[i]))
      return (int)i;
  return -1;
}

/* The parameter a subscript c indexes (`P[...]`, P a kernel parameter), or -1. */
static int subscript_param(const struct twalk *w, CXCursor c)
{
  CXCursor kids[2];
  if (clang_getCursorKind(c) != CXCursor_ArraySubscriptExpr || cc_cuda_children(c, kids, 2) != 2)
    return -1;
  return param_of(w, strip(kids[0]));
}

/* Records subscript c of parameter p and walks its index (not its base); returns its
 * position in w->subs (the walk may add more). */
static size_t record(struct twalk *w, CXCursor c, int p, int loop)
{
  size_t at = w->subs.len;
  CXCursor kids[2];
  struct psub s;
  memset(&s, 0, sizeof s);
  s.at = c;
  s.param = (uint32_t)p;
  s.in_loop = loop;
  s.assign = s.rhs = clang_getNullCursor();
  CC_VEC_PUSH(&w->subs, s);
  cc_cuda_children(c, kids, 2);
  walk(w, kids[1], loop, CXCursor_ArraySubscriptExpr, 1);
  return at;
}

/* 1 when the input's bytes after offset e (blanks skipped) are a plain `=`. */
static int plain_assign_after(const struct cc_cuda_tu *t, unsigned e)
{
  while (e < t->len && (t->text[e] == ' ' || t->text[e] == '\t' || t->text[e] == '\n' ||
                        t->text[e] == '\r'))
    e++;
  return e + 1 < t->len && t->text[e] == '=' && t->text[e + 1] != '=';
}

/* `OUT[...] = E`: the left side a parameter's subscript, the operator a plain `=`. */
static int on_assign(struct twalk *w, CXCursor c, int loop, enum CXCursorKind parent,
                     unsigned idx)
{
  CXCursor kids[2], lhs;
  unsigned b, e;
  int p;
  if (cc_cuda_children(c, kids, 2) != 2)
    return 0;
  lhs = strip(kids[0]);
  if ((p = subscript_param(w, lhs)) < 0)
    return 0;
  if (clang_getCursorKind(c) == CXCursor_BinaryOperator &&
      (!cc_cuda_tu_extent(&w->m->tu, lhs, &b, &e) || !plain_assign_after(&w->m->tu, e)))
    return 0; /* a comparison or arithmetic: a read, walked as such */
  size_t at = record(w, lhs, p, loop); /* before w->subs.data: record may move it */
  struct psub *s = &w->subs.data[at];
  s->write = 1;
  s->read = clang_getCursorKind(c) == CXCursor_CompoundAssignOperator;
  s->stmt = parent == CXCursor_CompoundStmt || (parent == CXCursor_IfStmt && idx > 0);
  s->assign = c;
  s->rhs = kids[1];
  walk(w, kids[1], loop, clang_getCursorKind(c), 1);
  return 1;
}

/* Barriers and warp-level operations: a tile adds a barrier of its own and changes which
 * threads share a warp. */
static int is_sync_call(const char *name)
{
  static const char *const prefixes[] = {
    "__syncthreads", "__syncwarp", "__shfl", "__ballot", "__all", "__any", "__uni",
    "__activemask", "__match", "__reduce", "__barrier", "__threadfence_block",
  };
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  return 0;
}

static enum CXChildVisitResult find_shared(CXCursor c, CXCursor parent, CXClientData data)
{
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_CUDASharedAttr) {
    *(int *)data = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

static void walk(struct twalk *w, CXCursor c, int loop, enum CXCursorKind parent, unsigned idx)
{
  enum CXCursorKind k = clang_getCursorKind(c);
  int p;
  switch (k) {
  case CXCursor_ForStmt: case CXCursor_WhileStmt: case CXCursor_DoStmt:
  case CXCursor_CXXForRangeStmt:
    walk_kids(w, c, 1);
    return;
  case CXCursor_VarDecl: {
    int shared = 0;
    clang_visitChildren(c, find_shared, &shared);
    if (shared)
      set_bad(w, c, "a __shared__ variable is declared in the kernel (the tile would "
                    "compete with it for shared memory and barriers)");
    break;
  }
  case CXCursor_CallExpr: {
    char *name = cc_cuda_spelling(c);
    if (name && is_sync_call(name)) {
      char what[256];
      snprintf(what, sizeof what, "%s, a barrier or warp-level operation (the tile adds a "
               "barrier of its own and regroups the threads of each warp)", name);
      set_bad(w, c, what);
    }
    free(name);
    break;
  }
  case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator:
    if (on_assign(w, c, loop, parent, idx))
      return;
    break;
  case CXCursor_UnaryOperator: { /* ++, --, &: the operand is read and written or escapes */
    CXCursor kid = cc_cuda_first_child(c);
    if (!clang_Cursor_isNull(kid) && (p = subscript_param(w, strip(kid))) >= 0) {
      size_t at = record(w, strip(kid), p, loop);
      w->subs.data[at].read = w->subs.data[at].write = 1;
      return;
    }
    break;
  }
  case CXCursor_ArraySubscriptExpr:
    if ((p = subscript_param(w, c)) >= 0) {
      size_t at = record(w, c, p, loop);
      w->subs.data[at].read = 1;
      return;
    }
    break;
  case CXCursor_DeclRefExpr:
    if ((p = param_of(w, c)) >= 0 && !w->has_other[p]) {
      w->has_other[p] = 1;
      w->other_use[p] = c;
    }
    break;
  default:
    break;
  }
  walk_kids(w, c, loop);
}

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *what, const char *why)
{
  char place[512];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s; %s", place, what, why);
}

/* The kernel's parameters in order and its body. */
static int kernel_parts(struct twalk *w, CXCursor def, CXCursor *body, struct cc_err *err)
{
  CXCursor kids[MAX_PARAMS + 8];
  unsigned n = cc_cuda_children(def, kids, MAX_PARAMS + 8);
  *body = clang_getNullCursor();
  if (n > MAX_PARAMS + 8)
    return refuse(w->m, def, err, "the kernel has too many parameters", "at most 256 are read");
  for (unsigned i = 0; i < n; i++) {
    enum CXCursorKind k = clang_getCursorKind(kids[i]);
    if (k == CXCursor_ParmDecl && w->nparams == MAX_PARAMS)
      return refuse(w->m, def, err, "the kernel has too many parameters", "at most 256 are read");
    if (k == CXCursor_ParmDecl)
      w->params[w->nparams++] = kids[i];
    else if (k == CXCursor_CompoundStmt)
      *body = kids[i];
  }
  if (clang_Cursor_isNull(*body))
    return refuse(w->m, def, err, "the kernel's body was not found", "define the kernel in the file");
  return CC_OK;
}

/* A function the kernel calls that reads the builtins would see the real ones. */
static int check_callees(const struct cc_cuda_model *m, struct cc_err *err)
{
  const struct cc_cuda_edge *e = cc_cuda_model_geometry_callee(m);
  char what[600];
  if (!e)
    return CC_OK;
  snprintf(what, sizeof what, "%s, called by kernel %s, reads the thread geometry",
           m->fns.data[e->to].name, m->kernel_name);
  return refuse(m, e->at, err, what, "the tile makes each thread play other threads of the "
                "launch through local copies of threadIdx and blockIdx, which a called "
                "function does not see: pass the indices as arguments");
}

/* The one subscript of parameter p with the given role (write or read), or a refusal. */
static int the_one(struct twalk *w, uint32_t p, int write, const struct psub **out,
                   struct cc_err *err)
{
  const struct psub *first = NULL;
  char name[128], what[400];
  char *sp = cc_cuda_spelling(w->params[p]);
  snprintf(name, sizeof name, "%s", sp ? sp : "?");
  free(sp);
  for (size_t i = 0; i < w->subs.len; i++) {
    const struct psub *s = &w->subs.data[i];
    if (s->param != p || !(write ? s->write : s->read))
      continue;
    if (first) {
      snprintf(what, sizeof what, "%s is %s here a second time", name, write ? "written" : "read");
      return refuse(w->m, s->at, err, what, "the tile stages one element of the transposition "
                    "per thread (one load, one store)");
    }
    first = s;
  }
  if (!first) {
    snprintf(what, sizeof what, "%s is never %s by a subscript %s[...] in the kernel", name,
             write ? "written" : "read", name);
    return refuse(w->m, w->params[p], err, what, "the tile needs the transposition's load and "
                  "store written as subscripts of the kernel's parameters");
  }
  if (first->in_loop) {
    snprintf(what, sizeof what, "%s[...] is inside a loop", name);
    return refuse(w->m, first->at, err, what, "the tile stages one element per thread; a "
                  "per-thread loop over rows (one element each iteration) is not handled: "
                  "write one element per thread, or tile the loop by hand");
  }
  *out = first;
  return CC_OK;
}

/* The pair's checks: one read of IN, one plain write of OUT as a statement, OUT never
 * read, no other parameter written, IN and OUT used only through subscripts. */
static int check_pair(struct twalk *w, const struct cc_cuda_tile_spec *spec,
                      const struct psub **ld, const struct psub **st, struct cc_err *err)
{
  int rc;
  if (!clang_Cursor_isNull(w->bad))
    return refuse(w->m, w->bad, err, w->bad_what, "the tile transformation does not apply");
  if (spec->load_param >= w->nparams || spec->store_param >= w->nparams ||
      spec->load_param == spec->store_param)
    return refuse(w->m, w->params[0], err, "the transposition's arrays are not two distinct "
                  "parameters of the kernel", "the tile transformation does not apply");
  for (uint32_t p = 0; p < w->nparams; p++)
    if (w->has_other[p] && (p == spec->load_param || p == spec->store_param))
      return refuse(w->m, w->other_use[p], err, "an array of the transposition is used here "
                    "other than by a subscript (pointer arithmetic, a copy, a call)",
                    "the tile follows only subscripts of the parameter itself");
  for (size_t i = 0; i < w->subs.len; i++) {
    const struct psub *s = &w->subs.data[i];
    if (s->write && s->param != spec->store_param)
      return refuse(w->m, s->at, err, "another array is written here", "the tile's first "
                    "phase would write it too; only the transposition's store is allowed");
    if (s->read && s->param == spec->store_param)
      return refuse(w->m, s->at, err, "the output array of the transposition is read here",
                    "the tile reorders the stores across threads, so the kernel may not read "
                    "what it writes");
  }
  if ((rc = the_one(w, spec->load_param, 0, ld, err)) != CC_OK ||
      (rc = the_one(w, spec->store_param, 1, st, err)) != CC_OK)
    return rc;
  if (!(*st)->stmt)
    return refuse(w->m, (*st)->assign, err, "the store's assignment is part of a larger "
                  "expression", "write it as a statement of its own");
  return CC_OK;
}

/* [*b, *e): input bytes of c, which must lie wholly outside macros or be whole macro
 * expansions. */
static int movable(const struct cc_cuda_model *m, CXCursor c, unsigned *b, unsigned *e,
                   const char *what, struct cc_err *err)
{
  char msg[200];
  if (cc_cuda_tu_extent(&m->tu, c, b, e) && cc_cuda_model_whole(m, *b, *e))
    return CC_OK;
  snprintf(msg, sizeof msg, "the transposition's %s is written partly inside a macro", what);
  return refuse(m, c, err, msg, "write the subscript outside the macro (the index may be a "
                "macro)");
}

/* The tile's element type: the load's type, canonical, without qualifiers (owned); in a
 * template, whose canonical types are "type-parameter-0-0", as written ("T"). */
static char *element_type(CXCursor load)
{
  CXType t = clang_getCursorType(load);
  char *s = cc_cuda_str(clang_getTypeSpelling(clang_getCanonicalType(t)));
  if (strstr(s, "type-parameter")) {
    free(s);
    s = cc_cuda_str(clang_getTypeSpelling(t));
  }
  for (;;) {
    size_t n = strncmp(s, "const ", 6) == 0 ? 6 : strncmp(s, "volatile ", 9) == 0 ? 9 : 0;
    if (!n)
      return s;
    memmove(s, s + n, strlen(s + n) + 1);
  }
}

/* Appends printf-style text to the growing string *s. */
static void add(char **s, size_t *len, size_t *cap, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));
static void add(char **s, size_t *len, size_t *cap, const char *fmt, ...)
{
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *s = cc_xgrow(*s, cap, *len + (size_t)n + 1, 1);
  va_start(ap, fmt);
  vsnprintf(*s + *len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
}

/* The new kernel body around the original one (body, already edited); used: the
 * builtins to shadow (cc_cuda_model_builtins_read); lines: the input's lines of the body's
 * braces. */
static char *wrap_body(const struct cc_cuda_tile_spec *s, const char *elt, const char *body,
                       unsigned used, const unsigned lines[2])
{
  char *o = NULL;
  size_t len = 0, cap = 0;
  uint32_t T = s->tile;
  const char *gi = s->load_dim == 0 ? "__cc_i" : "__cc_j", *gj = s->load_dim == 0 ? "__cc_j" : "__cc_i";
  add(&o, &len, &cap,
      "{\n"
      "  /* coalcheck fix --transform tile: a %ux%u tile of the transposition staged through\n"
      "     shared memory (+%u padding: conflict-free columns). Each thread plays threads of\n"
      "     the original launch (grid %u x %u, block %u x %u): in phase 0 those whose load is\n"
      "     coalesced, in phase 1 those whose store is; the original body runs as written,\n"
      "     its load going through the tile. */\n"
      "  __shared__ %s __cc_tile[%u][%u];\n"
      "  for (int __cc_phase = 0; __cc_phase < 2; __cc_phase++) {\n"
      "    if (__cc_phase == 1)\n"
      "      __syncthreads();\n"
      "    for (unsigned __cc_r = 0; __cc_r < %uu; __cc_r += %uu) {\n"
      "      const unsigned __cc_i = __cc_phase == 0 ? threadIdx.x : threadIdx.y + __cc_r;\n"
      "      const unsigned __cc_j = __cc_phase == 0 ? threadIdx.y + __cc_r : threadIdx.x;\n"
      "      const unsigned __cc_gx = blockIdx.x * %uu + %s, __cc_gy = blockIdx.y * %uu + %s;\n"
      "      [=]() mutable {\n"
      "        if (__cc_gx >= %uu || __cc_gy >= %uu)\n"
      "          return;\n",
      T, T, s->pad, s->grid[0], s->grid[1], s->block[0], s->block[1], elt, T, T + s->pad,
      T, s->rows, T, gi, T, gj, s->grid[0] * s->block[0], s->grid[1] * s->block[1]);
  if (used & (1u << CC_CUDA_B_TID))
    add(&o, &len, &cap, "        const uint3 threadIdx = make_uint3(__cc_gx %% %uu, __cc_gy %% "
        "%uu, 0u);\n", s->block[0], s->block[1]);
  if (used & (1u << CC_CUDA_B_CTAID))
    add(&o, &len, &cap, "        const uint3 blockIdx = make_uint3(__cc_gx / %uu, __cc_gy / "
        "%uu, 0u);\n", s->block[0], s->block[1]);
  if (used & (1u << CC_CUDA_B_NTID))
    add(&o, &len, &cap, "        const dim3 blockDim(%uu, %uu, 1u);\n", s->block[0], s->block[1]);
  if (used & (1u << CC_CUDA_B_NCTAID))
    add(&o, &len, &cap, "        const dim3 gridDim(%uu, %uu, 1u);\n", s->grid[0], s->grid[1]);
  /* #line: the body keeps its line numbers (the PTX's .loc, so reports compare the
     original and the fix line by line), and so does the rest of the file */
  add(&o, &len, &cap, "#line %u\n%s\n      }();\n    }\n  }\n}\n#line %u\n", lines[0], body,
      lines[1]);
  return o;
}

/* The input's bytes [b, e) with [lb, le) (inside them) replaced by sub (owned). */
static char *splice(const char *text, unsigned b, unsigned e, unsigned lb, unsigned le,
                    const char *sub)
{
  char *o = NULL;
  size_t len = 0, cap = 0;
  add(&o, &len, &cap, "%.*s%s%.*s", (int)(lb - b), text + b, sub, (int)(e - le), text + le);
  return o;
}

/* The store statement's new text: phase 0 stores nothing (it evaluates the stored value
 * only when the load lies in it, writing the loaded element into the tile); phase 1
 * stores as written, the load read back from the tile. Owned, or NULL when the load lies
 * in the store's address. */
static char *store_text(const char *text, unsigned lb, unsigned le, unsigned ab, unsigned ae,
                        unsigned rb, unsigned re)
{
  char *o = NULL, *phase0, *phase1, *load;
  size_t len = 0, cap = 0;
  if (!(lb >= rb && le <= re)) {
    if (lb < ae && le > ab)
      return NULL;
    add(&o, &len, &cap, "(__cc_phase == 0 ? (void)0 : (void)(%.*s))", (int)(ae - ab), text + ab);
    return o;
  }
  load = splice(text, lb, le, lb, lb, "");
  add(&o, &len, &cap, lb == rb && le == re ? "__cc_tile[__cc_j][__cc_i] = %s"
                                           : "(__cc_tile[__cc_j][__cc_i] = %s)", load);
  phase0 = splice(text, rb, re, lb, le, o);
  phase1 = splice(text, ab, ae, lb, le, "__cc_tile[__cc_j][__cc_i]");
  len = 0;
  add(&o, &len, &cap, "(__cc_phase == 0 ? (void)(%s) : (void)(%s))", phase0, phase1);
  free(load);
  free(phase0);
  free(phase1);
  return o;
}

/* The edits: the load through the tile, the store only in phase 1, the body wrapped. */
static int rewrite(struct twalk *w, const struct cc_cuda_tile_spec *spec, CXCursor body,
                   const struct psub *ld, const struct psub *st, struct cc_cuda_tile_result *out,
                   struct cc_err *err)
{
  const struct cc_cuda_model *m = w->m;
  cc_cuda_edits ed = {0};
  unsigned lb, le, ab, ae, rb, re, bb, be, lines[2];
  char *text, *inner, *wrapped;
  int rc;
  if ((rc = movable(m, ld->at, &lb, &le, "load", err)) != CC_OK ||
      (rc = movable(m, st->assign, &ab, &ae, "store", err)) != CC_OK ||
      (rc = movable(m, st->rhs, &rb, &re, "stored value", err)) != CC_OK ||
      (rc = movable(m, body, &bb, &be, "kernel body", err)) != CC_OK)
    return rc;
  if (!(text = store_text(m->tu.text, lb, le, ab, ae, rb, re)))
    return refuse(m, ld->at, err, "the load lies in the store's address", "the tile needs "
                  "the store's address independent of the loaded value");
  cc_cuda_edits_add(&ed, ab, ae, text);
  free(text);
  if (!(lb >= ab && le <= ae)) { /* elsewhere: evaluated in both phases */
    char *load = splice(m->tu.text, lb, le, lb, lb, "");
    size_t len = 0, cap = 0;
    text = NULL;
    add(&text, &len, &cap, "(__cc_phase == 0 ? (__cc_tile[__cc_j][__cc_i] = %s) : "
        "__cc_tile[__cc_j][__cc_i])", load);
    cc_cuda_edits_add(&ed, lb, le, text);
    free(load);
    free(text);
  }
  inner = cc_cuda_edits_render(&ed, m->tu.text, bb, be, 1);
  out->elt = element_type(ld->at);
  lines[0] = cc_cuda_tu_line_at(&m->tu, bb);
  lines[1] = cc_cuda_tu_line_at(&m->tu, be - 1);
  wrapped = wrap_body(spec, out->elt, inner, cc_cuda_model_builtins_read(m), lines);
  cc_cuda_edits_add(&ed, bb, be, wrapped);
  free(inner);
  free(wrapped);
  rc = cc_cuda_edits_apply(&ed, m->tu.text, m->tu.len, &out->text, &out->len, err);
  cc_cuda_edits_release(&ed);
  return rc;
}

static void place_of(CXCursor c, uint32_t *line, uint32_t *col)
{
  unsigned l = 0, k = 0;
  cc_cuda_tu_linecol(clang_getCursorLocation(c), &l, &k);
  *line = l;
  *col = k;
}

int cc_cuda_tile(const char *path, const char *text, size_t len, const char *kernel,
                 const struct cc_cuda_tile_spec *spec, const char *const *extra_args,
                 size_t nextra, struct cc_cuda_tile_result *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  struct twalk *w;
  const struct psub *ld = NULL, *st = NULL;
  CXCursor body;
  int rc;
  memset(out, 0, sizeof *out);
  if (spec->tile == 0 || spec->rows == 0 || spec->tile % spec->rows != 0 || spec->load_dim < 0 ||
      spec->load_dim > 1)
    CC_BUG("cc_cuda_tile: tile %u, rows %u, load_dim %d", spec->tile, spec->rows, spec->load_dim);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  w = cc_xcalloc(1, sizeof *w);
  w->m = &m;
  w->bad = clang_getNullCursor();
  if ((rc = kernel_parts(w, m.fns.data[m.kernel].def, &body, err)) == CC_OK &&
      (rc = check_callees(&m, err)) == CC_OK) {
    walk_kids(w, body, 0);
    if ((rc = check_pair(w, spec, &ld, &st, err)) == CC_OK &&
        (rc = rewrite(w, spec, body, ld, st, out, err)) == CC_OK) {
      place_of(ld->at, &out->load_line, &out->load_column);
      place_of(st->at, &out->store_line, &out->store_column);
    }
  }
  CC_VEC_FREE(&w->subs);
  free(w);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_tile_result_release(out);
  return rc;
}
