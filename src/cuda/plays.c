/* coalcheck CUDA front end: each thread of a coarsened launch plays K threads of the old
 * one (plays.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"
#include "cuda/plays.h"

#define MAX_KIDS 300 /* the kernel's parameters and body, at most */

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *what, const char *why)
{
  char place[512];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s; %s", place, what, why);
}

/* The kernel's parameters' names (into names, at most max; *n of them) and its body
 * with its bytes [*b, *e), or a refusal. */
static int kernel_parts(const struct cc_cuda_model *m, CXCursor *body, unsigned *b,
                        unsigned *e, struct cc_err *err)
{
  CXCursor def = m->fns.data[m->kernel].def, kids[MAX_KIDS];
  unsigned n = cc_cuda_children(def, kids, MAX_KIDS);
  for (unsigned i = 0; i < n && i < MAX_KIDS; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_CompoundStmt) {
      *body = kids[i];
      if (cc_cuda_tu_extent(&m->tu, kids[i], b, e) && cc_cuda_model_whole(m, *b, *e))
        return CC_OK;
      return refuse(m, kids[i], err, "the kernel's body is written partly inside a macro",
                    "the plays wrap the body as written");
    }
  return refuse(m, def, err, "the kernel's body was not found", "define the kernel in the file");
}

/* CC_OK, or the refusal of a kernel that calls a function reading the thread geometry
 * (the plays shadow the kernel's builtins only). */
static int geometry_callee(const struct cc_cuda_model *m, struct cc_err *err)
{
  const struct cc_cuda_edge *callee = cc_cuda_model_geometry_callee(m);
  char what[600];
  if (!callee)
    return CC_OK;
  snprintf(what, sizeof what, "%s, called by kernel %s, reads the thread geometry",
           m->fns.data[callee->to].name, m->kernel_name);
  return refuse(m, callee->at, err, what, "each thread would play other threads through a "
                "local copy of blockIdx, which a called function does not see");
}

/* The walk for the body's return statements: each becomes `goto __cc_played` (the end of
 * one play). A lambda's returns are its own. */
struct rwalk {
  const struct cc_cuda_model *m;
  cc_cuda_edits *ed;
  CXCursor bad; /* a return written partly inside a macro */
  const char *label; /* where a return goes: the end of one play */
};

static enum CXChildVisitResult find_returns(CXCursor c, CXCursor parent, CXClientData d)
{
  struct rwalk *w = d;
  unsigned b, e;
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_LambdaExpr)
    return CXChildVisit_Continue;
  if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
    return CXChildVisit_Recurse;
  if (!cc_cuda_tu_extent(&w->m->tu, c, &b, &e) || !cc_cuda_model_whole(w->m, b, e)) {
    if (clang_Cursor_isNull(w->bad))
      w->bad = c;
    return CXChildVisit_Continue;
  }
  cc_cuda_edits_add(w->ed, b, e, w->label);
  return CXChildVisit_Continue;
}

/* The kernel's parameters as text: copy 0, their aliases __cc_a<k>, taken once before
 * the plays; copy 1, inside one play, a fresh copy of each from its alias under the
 * parameter's own name (each play copies them afresh: a body may assign its
 * parameters). */
static void params_text(struct cc_strbuf *o, const struct cc_cuda_model *m, int copy)
{
  CXCursor def = m->fns.data[m->kernel].def, kids[MAX_KIDS];
  unsigned n = cc_cuda_children(def, kids, MAX_KIDS);
  for (unsigned i = 0, k = 0; i < n && i < MAX_KIDS; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_ParmDecl) {
      char *name = cc_cuda_str(clang_getCursorSpelling(kids[i]));
      if (*name && copy)
        cc_strbuf_printf(o, "    decltype(%s) %s = __cc_a%u; (void)%s;\n", name, name, k, name);
      else if (*name)
        cc_strbuf_printf(o, "  const auto &__cc_a%u = %s;\n", k, name);
      k += *name != '\0';
      free(name);
    }
}

/* One loop over the plays up to the body's own `{`: the played block index, fresh copies
 * of the parameters, the shadowed builtins, #line of the body's first line (b). */
static void play_head(struct cc_strbuf *o, const struct cc_cuda_model *m, unsigned b,
                      uint32_t plays, int dim, const uint32_t grid[3])
{
  unsigned used = cc_cuda_model_builtins_read(m);
  const char *c[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  char played[3][64];
  for (int d = 0; d < 3; d++) {
    if (d == dim)
      snprintf(played[d], sizeof played[d], "%s * %uu + __cc_q", c[d], plays);
    else
      snprintf(played[d], sizeof played[d], "%s", c[d]);
  }
  cc_strbuf_printf(o, "  for (unsigned __cc_q = 0; __cc_q < %uu; __cc_q++) {\n", plays);
  params_text(o, m, 1);
  cc_strbuf_printf(o, "    const uint3 __cc_ctaid = make_uint3(%s, %s, %s);\n", played[0],
                   played[1], played[2]);
  if (used & (1u << CC_CUDA_B_CTAID))
    cc_strbuf_printf(o, "    const uint3 blockIdx = __cc_ctaid;\n");
  else
    cc_strbuf_printf(o, "    (void)__cc_ctaid;\n");
  if (used & (1u << CC_CUDA_B_NCTAID))
    cc_strbuf_printf(o, "    const dim3 gridDim(%uu, %uu, %uu);\n", grid[0], grid[1], grid[2]);
  /* #line: the body keeps its line numbers (the PTX's .loc, so the fix's per-line figures
   * compare with the original's) */
  cc_strbuf_printf(o, "#line %u\n{", cc_cuda_tu_line_at(&m->tu, b));
}

/* The text before the body's own (replacing its `{`): the comment, the aliases, the loop. */
static void opening(struct cc_strbuf *o, const struct cc_cuda_model *m, unsigned b,
                    uint32_t plays, int dim, const uint32_t grid[3])
{
  cc_strbuf_printf(o, "{\n  /* coalcheck fix: each thread plays %u threads of the launch of "
                   "grid (%u, %u, %u), those of blocks blockIdx.%c * %u + q (q = 0..%u), one "
                   "after the other; the original body runs as written, a return ending one "
                   "play */\n", plays, grid[0], grid[1], grid[2], "xyz"[dim], plays, plays - 1);
  params_text(o, m, 0);
  play_head(o, m, b, plays, dim, grid);
}

int cc_cuda_plays(const char *path, const char *text, size_t len, const char *kernel,
                  uint32_t plays, int dim, const uint32_t grid[3],
                  const char *const *extra_args, size_t nextra, char **out, size_t *out_len,
                  struct cc_err *err)
{
  struct cc_cuda_model m;
  CXCursor body;
  unsigned b = 0, e = 0;
  int rc;
  *out = NULL;
  *out_len = 0;
  if (plays < 2 || plays > 64 || dim < 0 || dim > 2 || grid[dim] % plays != 0)
    CC_BUG("cc_cuda_plays: %u plays along %d", plays, dim);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  if ((rc = geometry_callee(&m, err)) == CC_OK &&
      (rc = kernel_parts(&m, &body, &b, &e, err)) == CC_OK) {
    struct cc_strbuf o = {0};
    cc_cuda_edits ed = {0};
    struct rwalk w = {&m, &ed, clang_getNullCursor(), "goto __cc_played"};
    clang_visitChildren(body, find_returns, &w);
    if (!clang_Cursor_isNull(w.bad)) {
      rc = refuse(&m, w.bad, err, "a return written partly inside a macro", "the plays make "
                  "each return end one play (goto), which needs the return as written");
    } else {
      opening(&o, &m, b, plays, dim, grid);
      cc_cuda_edits_add(&ed, b, b + 1, o.s);
      char close[96];
      snprintf(close, sizeof close, "}\n    __cc_played:;\n  }\n}\n#line %u\n",
               cc_cuda_tu_line_at(&m.tu, e - 1));
      cc_cuda_edits_add(&ed, e - 1, e, close);
      rc = cc_cuda_edits_apply(&ed, m.tu.text, m.tu.len, out, out_len, err);
    }
    free(o.s);
    cc_cuda_edits_release(&ed);
  }
  cc_cuda_model_release(&m);
  return rc;
}

/* ---- the loads-first plays (plays.h, cc_cuda_plays_loads_first) ---- */

#define MAX_SITES 64
#define MAX_LOCALS 128
#define MAX_REFS 1024

/* A global access of the body: a subscript of a pointer parameter. */
struct site {
  CXCursor at;
  unsigned b, e;         /* the subscript's bytes */
  unsigned ib, ie;       /* its index's bytes */
  int store;             /* 0: a load; 1: the target of `=`; 2: of `op=` (also a load) */
  unsigned rb, ae;       /* a store: its right operand's first byte, the assignment's end */
  char op[4];            /* 2: the operator without its `=` */
  const char *type;      /* the element's type */
  int slot;              /* the kept value: __cc_v<slot>[__cc_q] */
};

/* A local variable of the body (an assignment to it is the thread's own business; one
 * to a parameter is refused). */
struct local {
  CXCursor decl;
};

struct dref {
  unsigned off;
  CXCursor decl;
  int ptr_param;         /* a pointer parameter of the kernel */
};

struct lwalk {
  const struct cc_cuda_model *m;
  struct site sites[MAX_SITES];
  unsigned nsites;
  struct local locals[MAX_LOCALS];
  unsigned nlocals;
  struct dref refs[MAX_REFS];
  unsigned nrefs;
  unsigned based[MAX_SITES]; /* offsets of the DeclRefExprs that are a subscript's base */
  unsigned nbased;
  CXCursor bad;          /* the first construct outside the class */
  const char *why;
};

static void out_of_class(struct lwalk *w, CXCursor c, const char *why)
{
  if (clang_Cursor_isNull(w->bad)) {
    w->bad = c;
    w->why = why;
  }
}

/* The C spelling of an arithmetic element type, or NULL (kept values are registers of
 * that type: a promoted type would change nothing in an expression, but a structure or
 * a pointer is not a value the plays keep). */
static const char *elem_type(CXType t)
{
  switch (clang_getCanonicalType(t).kind) {
  case CXType_Float: return "float";
  case CXType_Double: return "double";
  case CXType_Int: return "int";
  case CXType_UInt: return "unsigned int";
  case CXType_Long: return "long";
  case CXType_ULong: return "unsigned long";
  case CXType_LongLong: return "long long";
  case CXType_ULongLong: return "unsigned long long";
  default: return NULL;
  }
}

/* The kernel's pointer parameter that subscript c reads through (its base, a DeclRefExpr,
 * into *ref), or a null cursor. */
static CXCursor subscript_param(CXCursor c, CXCursor *ref)
{
  CXCursor kids[2], base, d;
  if (cc_cuda_children(c, kids, 2) != 2)
    return clang_getNullCursor();
  base = cc_cuda_rd_strip(kids[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr)
    return clang_getNullCursor();
  d = clang_getCursorReferenced(base);
  if (clang_getCursorKind(d) != CXCursor_ParmDecl ||
      clang_getCanonicalType(clang_getCursorType(d)).kind != CXType_Pointer)
    return clang_getNullCursor();
  *ref = base;
  return d;
}

static struct site *site_at(struct lwalk *w, unsigned b)
{
  for (unsigned i = 0; i < w->nsites; i++)
    if (w->sites[i].b == b)
      return &w->sites[i];
  return NULL;
}

/* A subscript: a load, or the target of a store met before it (pre-order). */
static void visit_subscript(struct lwalk *w, CXCursor c)
{
  CXCursor ref, kids[2];
  CXCursor p = subscript_param(c, &ref);
  unsigned b, e, ib, ie;
  struct site *s;
  if (clang_Cursor_isNull(p)) {
    out_of_class(w, c, "a subscript of something other than a pointer parameter of the kernel");
    return;
  }
  cc_cuda_children(c, kids, 2);
  if (!cc_cuda_rd_bytes(w->m, c, &b, &e) || !cc_cuda_rd_bytes(w->m, kids[1], &ib, &ie)) {
    out_of_class(w, c, "a subscript written partly inside a macro");
    return;
  }
  if (w->nbased < MAX_SITES)
    w->based[w->nbased++] = cc_cuda_rd_off(w->m, ref);
  if (!(s = site_at(w, b))) {
    if (w->nsites == MAX_SITES) {
      out_of_class(w, c, "more global accesses than the plays keep");
      return;
    }
    s = &w->sites[w->nsites++];
    memset(s, 0, sizeof *s);
    s->b = b, s->e = e;
  }
  s->at = c;
  s->ib = ib, s->ie = ie;
  if (!(s->type = elem_type(clang_getPointeeType(clang_getCursorType(p)))))
    out_of_class(w, c, "an element that is not a number (float, double or an integer)");
}

static struct local *local_of(struct lwalk *w, CXCursor decl)
{
  for (unsigned i = 0; i < w->nlocals; i++)
    if (clang_equalCursors(w->locals[i].decl, decl))
      return &w->locals[i];
  return NULL;
}

/* An operator that writes (=, op=, ++, --): a store statement, a local assigned, or out of
 * the class. */
static void visit_write(struct lwalk *w, CXCursor c, CXCursor parent, CXCursor target)
{
  CXCursor t = cc_cuda_rd_strip(target), kids[2], d;
  enum CXCursorKind pk = clang_getCursorKind(parent);
  if (clang_getCursorKind(t) == CXCursor_DeclRefExpr) {
    struct local *l;
    d = clang_getCursorReferenced(t);
    if (!(l = local_of(w, d)))
      out_of_class(w, c, "an assignment to a parameter of the kernel");
    return;
  }
  if (clang_getCursorKind(t) != CXCursor_ArraySubscriptExpr ||
      clang_getCursorKind(c) == CXCursor_UnaryOperator) {
    out_of_class(w, c, "a store other than `P[i] = E` or `P[i] op= E`");
    return;
  }
  if (pk != CXCursor_CompoundStmt && pk != CXCursor_IfStmt) {
    out_of_class(w, c, "a store inside an expression");
    return;
  }
  struct site *s = &w->sites[w->nsites];
  unsigned ab, ae, rb, re;
  char *op = cc_cuda_rd_operator(w->m, c, target);
  if (w->nsites == MAX_SITES || cc_cuda_children(c, kids, 2) != 2 || !op ||
      !cc_cuda_rd_bytes(w->m, c, &ab, &ae) || !cc_cuda_rd_bytes(w->m, kids[1], &rb, &re) ||
      !cc_cuda_rd_bytes(w->m, target, &s->b, &s->e)) {
    out_of_class(w, c, "a store written partly inside a macro");
    free(op);
    return;
  }
  w->nsites++;
  s->store = strcmp(op, "=") == 0 ? 1 : 2;
  s->rb = rb, s->ae = ae;
  snprintf(s->op, sizeof s->op, "%.*s", (int)strlen(op) - 1, op);
  free(op);
}

static enum CXChildVisitResult lvisit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct lwalk *w = data;
  CXCursor target;
  switch (clang_getCursorKind(c)) {
  case CXCursor_CallExpr:
    out_of_class(w, c, "a call (its loads and stores are not seen)");
    return CXChildVisit_Continue;
  case CXCursor_LambdaExpr:
    out_of_class(w, c, "a lambda");
    return CXChildVisit_Continue;
  case CXCursor_VarDecl:
    if (w->nlocals < MAX_LOCALS) {
      w->locals[w->nlocals++].decl = c;
    } else {
      out_of_class(w, c, "more local variables than the plays follow");
    }
    break;
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXCursorKind dk = clang_getCursorKind(d);
    if ((dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) && w->nrefs < MAX_REFS) {
      struct dref *r = &w->refs[w->nrefs++];
      r->off = cc_cuda_rd_off(w->m, c);
      r->decl = d;
      r->ptr_param = dk == CXCursor_ParmDecl &&
                     clang_getCanonicalType(clang_getCursorType(d)).kind == CXType_Pointer;
    } else if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) {
      out_of_class(w, c, "more variable references than the plays follow");
    }
    break;
  }
  case CXCursor_UnaryOperator:
    if (cc_cuda_rd_op_is(w->m, c, clang_getNullCursor(), "&") &&
        clang_getCursorKind(cc_cuda_rd_strip(cc_cuda_first_child(c))) ==
            CXCursor_ArraySubscriptExpr)
      out_of_class(w, c, "the address of an element");
    /* fall through */
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator:
    if (cc_cuda_rd_writes(w->m, c, &target))
      visit_write(w, c, parent, target);
    break;
  case CXCursor_ArraySubscriptExpr:
    visit_subscript(w, c);
    break;
  default:
    break;
  }
  return CXChildVisit_Recurse;
}

/* After the walk: the class's remaining checks (pointer parameters only as subscript
 * bases, no subscript inside another), the slots, and the registers they take: plays x
 * slots values live from phase A to phase B, at most max_kept. Returns the refusal (why,
 * size bytes) or NULL. */
static const char *settle(struct lwalk *w, uint32_t plays, uint32_t max_kept, CXCursor *at,
                          char *why, size_t size)
{
  unsigned slots = 0;
  for (unsigned i = 0; i < w->nrefs; i++) {
    unsigned k = 0;
    while (k < w->nbased && w->based[k] != w->refs[i].off)
      k++;
    if (w->refs[i].ptr_param && k == w->nbased) {
      *at = w->refs[i].decl;
      return "a pointer parameter used other than as a subscript's base (`P[i]`)";
    }
  }
  for (unsigned i = 0; i < w->nsites; i++)
    for (unsigned j = 0; j < w->nsites; j++)
      if (i != j && w->sites[j].b >= w->sites[i].ib && w->sites[j].b < w->sites[i].ie) {
        *at = w->sites[j].at;
        return "a subscript inside a subscript (an indirect access)";
      }
  for (unsigned i = 0; i < w->nsites; i++)
    if (w->sites[i].store != 1)
      w->sites[i].slot = (int)slots++;
  *at = w->m->fns.data[w->m->kernel].def;
  if (slots == 0)
    return "no global load to move";
  if ((uint64_t)slots * plays > max_kept) {
    snprintf(why, size, "%u loads a play x %u plays = %u values kept a thread from phase A to "
             "phase B, over the %u that pay (registers taken from the SM's occupancy)", slots,
             plays, slots * plays, max_kept);
    return why;
  }
  return NULL;
}

/* The kept value of site s in the current play. */
static void kept(char *buf, size_t n, const struct site *s)
{
  snprintf(buf, n, "__cc_v%d[__cc_q]", s->slot);
}

/* The edits of phase A (every load keeps its value, every store is dropped, its right
 * operand still evaluated) into a, of phase B (every load reads its kept value, every
 * store made) into bb. */
static void phase_edits(const struct lwalk *w, const char *text, cc_cuda_edits *a,
                        cc_cuda_edits *bb)
{
  char k[64];
  struct cc_strbuf t = {0};
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    int len = (int)(s->e - s->b);
    kept(k, sizeof k, s);
    t.len = 0;
    if (s->store == 0) {
      cc_strbuf_printf(&t, "(%s = %.*s)", k, len, text + s->b);
      cc_cuda_edits_add(a, s->b, s->e, t.s);
      cc_cuda_edits_add(bb, s->b, s->e, k);
    } else if (s->store == 1) {
      cc_cuda_edits_add(a, s->b, s->rb, "(void)(");
      cc_cuda_edits_add(a, s->ae, s->ae, ")");
    } else {
      cc_strbuf_printf(&t, "(void)((%s = %.*s) %s (", k, len, text + s->b, s->op);
      cc_cuda_edits_add(a, s->b, s->rb, t.s);
      cc_cuda_edits_add(a, s->ae, s->ae, "))");
      t.len = 0;
      cc_strbuf_printf(&t, "%.*s = %s %s (", len, text + s->b, k, s->op);
      cc_cuda_edits_add(bb, s->b, s->rb, t.s);
      cc_cuda_edits_add(bb, s->ae, s->ae, ")");
    }
  }
  free(t.s);
}

/* The whole new body (replacing [b, e)): the kept values, phase A, phase B. */
static void loads_first_body(struct cc_strbuf *o, const struct cc_cuda_model *m,
                             const struct lwalk *w, const char *phase_a, const char *phase_b,
                             unsigned b, unsigned e, uint32_t plays, int dim,
                             const uint32_t grid[3])
{
  cc_strbuf_printf(o, "{\n  /* coalcheck fix: each thread plays %u threads of the launch of "
                   "grid (%u, %u, %u), those of blocks blockIdx.%c * %u + q (q = 0..%u), "
                   "loads first: phase A runs every play's body with its stores dropped, "
                   "keeping each loaded value, phase B runs them again on the kept values and "
                   "stores; legal because no play stores an element that a play reads after "
                   "it (proved by the caller) */\n",
                   plays, grid[0], grid[1], grid[2], "xyz"[dim], plays, plays - 1);
  params_text(o, m, 0);
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    if (s->store != 1)
      cc_strbuf_printf(o, "  %s __cc_v%d[%u];\n", s->type, s->slot, plays);
  }
  cc_strbuf_printf(o, "#pragma unroll\n");
  play_head(o, m, b, plays, dim, grid);
  cc_strbuf_printf(o, "%s}\n    __cc_loaded:;\n  }\n#pragma unroll\n", phase_a);
  play_head(o, m, b, plays, dim, grid);
  cc_strbuf_printf(o, "%s}\n    __cc_played:;\n  }\n}\n#line %u\n", phase_b,
                   cc_cuda_tu_line_at(&m->tu, e - 1));
}

/* The body's walk for the two-phase forms: w filled (its sites, locals, references), the
 * body and its bytes [*b, *e), or the refusal of a construct outside their class (form:
 * what the form keeps, for the message). */
static int walk_class(const struct cc_cuda_model *m, struct lwalk *w, CXCursor *body,
                      unsigned *b, unsigned *e, const char *form, struct cc_err *err)
{
  int rc;
  w->m = m;
  w->bad = clang_getNullCursor();
  if ((rc = kernel_parts(m, body, b, e, err)) != CC_OK)
    return rc;
  clang_visitChildren(*body, lvisit, w);
  if (!clang_Cursor_isNull(w->bad))
    return refuse(m, w->bad, err, w->why, form);
  return CC_OK;
}

/* The labels a return of each phase of the two-phase forms goes to (the end of one play):
 * phase A, phase B, the vector form's scalar plays. */
static const char *const phase_labels[] = {"goto __cc_loaded", "goto __cc_played",
                                           "goto __cc_scalar"};

/* The two-phase forms' common prologue: the body walked into w (its bytes [*b, *e)) and
 * settled for plays x slots kept values (at most max_kept), then the body's returns as
 * edits of each of the nphases phases (ed[i]: a return becomes phase_labels[i]'s goto).
 * Or a refusal: a construct outside the class (keeps: what the form keeps), settle's
 * reason (the budget of kept values: the plays run one after the other; else unsettled:
 * what the form needs), a return written partly inside a macro. */
static int two_phase_prologue(const struct cc_cuda_model *m, struct lwalk *w,
                              const char *keeps, const char *unsettled, uint32_t plays,
                              uint32_t max_kept, cc_cuda_edits *const *ed, unsigned nphases,
                              unsigned *b, unsigned *e, struct cc_err *err)
{
  CXCursor body, at;
  const char *why;
  char budget[256];
  int rc;
  assert(nphases <= sizeof phase_labels / sizeof phase_labels[0]);
  if ((rc = walk_class(m, w, &body, b, e, keeps, err)) != CC_OK)
    return rc;
  if ((why = settle(w, plays, max_kept, &at, budget, sizeof budget)))
    return refuse(m, at, err, why, why == budget ? "the plays run one after the other"
                                                 : unsettled);
  for (unsigned i = 0; i < nphases; i++) {
    struct rwalk r = {m, ed[i], clang_getNullCursor(), phase_labels[i]};
    clang_visitChildren(body, find_returns, &r);
    if (!clang_Cursor_isNull(r.bad))
      return refuse(m, r.bad, err, "a return written partly inside a macro", "the plays make "
                    "each return end one play (goto), which needs the return as written");
  }
  return CC_OK;
}

/* The loads-first rewrite of the model's kernel, or a refusal. */
static int loads_first(const struct cc_cuda_model *m, uint32_t plays, int dim,
                       const uint32_t grid[3], uint32_t max_kept, char **out, size_t *out_len,
                       struct cc_err *err)
{
  struct lwalk *w = cc_xcalloc(1, sizeof *w);
  cc_cuda_edits ea = {0}, eb = {0}, all = {0};
  cc_cuda_edits *const phases[] = {&ea, &eb};
  struct cc_strbuf o = {0};
  unsigned b = 0, e = 0;
  int rc;
  if ((rc = two_phase_prologue(m, w, "the loads-first plays keep the subscripts `P[i]` of "
                               "the kernel's pointer parameters, in statements without calls",
                               "the loads-first plays keep the subscripts `P[i]` of the "
                               "kernel's pointer parameters", plays, max_kept, phases, 2, &b,
                               &e, err)) != CC_OK)
    goto done;
  phase_edits(w, m->tu.text, &ea, &eb);
  char *pa = cc_cuda_edits_render(&ea, m->tu.text, b + 1, e - 1, 0);
  char *pb = cc_cuda_edits_render(&eb, m->tu.text, b + 1, e - 1, 0);
  loads_first_body(&o, m, w, pa, pb, b, e, plays, dim, grid);
  free(pa);
  free(pb);
  cc_cuda_edits_add(&all, b, e, o.s);
  rc = cc_cuda_edits_apply(&all, m->tu.text, m->tu.len, out, out_len, err);
done:
  free(o.s);
  cc_cuda_edits_release(&ea);
  cc_cuda_edits_release(&eb);
  cc_cuda_edits_release(&all);
  free(w);
  return rc;
}

int cc_cuda_plays_loads_first(const char *path, const char *text, size_t len,
                              const char *kernel, uint32_t plays, int dim,
                              const uint32_t grid[3], uint32_t max_kept,
                              const char *const *extra_args, size_t nextra, char **out,
                              size_t *out_len, struct cc_err *err)
{
  struct cc_cuda_model m;
  int rc;
  *out = NULL;
  *out_len = 0;
  if (plays < 2 || plays > 64 || dim < 0 || dim > 2 || grid[dim] % plays != 0)
    CC_BUG("cc_cuda_plays_loads_first: %u plays along %d", plays, dim);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  if ((rc = geometry_callee(&m, err)) == CC_OK)
    rc = loads_first(&m, plays, dim, grid, max_kept, out, out_len, err);
  cc_cuda_model_release(&m);
  return rc;
}

/* ---- the vector plays (plays.h, cc_cuda_plays_vector) ---- */

/* The CUDA vector type's stem of element type t ("float" -> float4), or NULL. */
static const char *vec_stem(const char *t)
{
  static const char *const map[][2] = {
    {"float", "float"}, {"double", "double"}, {"int", "int"}, {"unsigned int", "uint"},
    {"long", "long"}, {"unsigned long", "ulong"}, {"long long", "longlong"},
    {"unsigned long long", "ulonglong"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(t, map[i][0]))
      return map[i][1];
  return NULL;
}

/* The bytes of element type t (the types elem_type spells). */
static unsigned elem_bytes(const char *t)
{
  return !strcmp(t, "int") || !strcmp(t, "unsigned int") || !strcmp(t, "float") ? 4 : 8;
}

/* The kind of site s from cls (by its line and its base's name). */
static enum cc_cuda_vkind site_kind(const struct cc_cuda_model *m, const struct site *s,
                                    const struct cc_cuda_vclass *cls, size_t ncls)
{
  unsigned line = cc_cuda_tu_line_at(&m->tu, s->b), n = 0;
  const char *t = m->tu.text + s->b;
  while (t[n] == '_' || (t[n] >= 'a' && t[n] <= 'z') || (t[n] >= 'A' && t[n] <= 'Z') ||
         (n > 0 && t[n] >= '0' && t[n] <= '9'))
    n++;
  for (size_t i = 0; i < ncls; i++)
    if (line >= cls[i].first_line && line <= cls[i].last_line &&
        strlen(cls[i].array) == n && !strncmp(cls[i].array, t, n))
      return s->store == 1 && cls[i].kind == CC_CUDA_V_BROADCAST ? CC_CUDA_V_SCALAR
                                                                  : cls[i].kind;
  return CC_CUDA_V_SCALAR;
}

/* One play along x of the vector form up to the body's `{`: opener (the loop, or a block
 * with __cc_q = 0), fresh copies of the parameters, the played thread's builtins (g0 +
 * __cc_q of the launch grid x block), #line of the body's first line (b). */
static void vhead(struct cc_strbuf *o, const struct cc_cuda_model *m, unsigned b,
                  const char *opener, const uint32_t block[3], const uint32_t grid[3])
{
  unsigned used = cc_cuda_model_builtins_read(m);
  cc_strbuf_printf(o, "  %s\n", opener);
  params_text(o, m, 1);
  cc_strbuf_printf(o, "    const unsigned __cc_gx = __cc_g0 + __cc_q;\n"
                   "    const uint3 __cc_tid = make_uint3(__cc_gx %% %uu, threadIdx.y, "
                   "threadIdx.z);\n"
                   "    const uint3 __cc_ctaid = make_uint3(__cc_gx / %uu, blockIdx.y, "
                   "blockIdx.z);\n", block[0], block[0]);
  cc_strbuf_printf(o, used & (1u << CC_CUDA_B_TID) ? "    const uint3 threadIdx = __cc_tid;\n"
                                                   : "    (void)__cc_tid;\n");
  cc_strbuf_printf(o, used & (1u << CC_CUDA_B_CTAID) ? "    const uint3 blockIdx = __cc_ctaid;\n"
                                                     : "    (void)__cc_ctaid;\n");
  if (used & (1u << CC_CUDA_B_NTID))
    cc_strbuf_printf(o, "    const dim3 blockDim(%uu, %uu, %uu);\n", block[0], block[1],
                     block[2]);
  if (used & (1u << CC_CUDA_B_NCTAID))
    cc_strbuf_printf(o, "    const dim3 gridDim(%uu, %uu, %uu);\n", grid[0], grid[1], grid[2]);
  cc_strbuf_printf(o, "#line %u\n{", cc_cuda_tu_line_at(&m->tu, b));
}

/* What the vector form keeps of each site: its kind and its register's number (the
 * site's index). */
struct vsite {
  enum cc_cuda_vkind kind;
  const char *stem;  /* a vector site: its vector type's stem */
};

/* The edits of phase A (play 0: vector loads, broadcasts kept, stores dropped) into a and
 * of phase B (the plays on the kept values, vector stores gathered) into bb. */
static void vphase_edits(const struct lwalk *w, const struct vsite *vs, uint32_t v,
                         const char *text, cc_cuda_edits *a, cc_cuda_edits *bb)
{
  struct cc_strbuf t = {0};
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    int len = (int)(s->e - s->b);
    const char *x = text + s->b;
    t.len = 0;
    if (s->store == 0 && vs[i].kind == CC_CUDA_V_VECTOR) {
      cc_strbuf_printf(&t, "((__cc_w%u = *(const %s%u *)&%.*s).x)", i, vs[i].stem, v, len, x);
      cc_cuda_edits_add(a, s->b, s->e, t.s);
      t.len = 0;
      cc_strbuf_printf(&t, "((const %s *)&__cc_w%u)[__cc_q]", s->type, i);
      cc_cuda_edits_add(bb, s->b, s->e, t.s);
    } else if (s->store == 0 && vs[i].kind == CC_CUDA_V_BROADCAST) {
      cc_strbuf_printf(&t, "(__cc_w%u = %.*s)", i, len, x);
      cc_cuda_edits_add(a, s->b, s->e, t.s);
      t.len = 0;
      cc_strbuf_printf(&t, "__cc_w%u", i);
      cc_cuda_edits_add(bb, s->b, s->e, t.s);
    } else if (s->store != 0) {
      if (s->store == 2 && vs[i].kind == CC_CUDA_V_VECTOR)
        cc_strbuf_printf(&t, "(void)(((__cc_w%u = *(const %s%u *)&%.*s).x) %s (", i,
                         vs[i].stem, v, len, x, s->op);
      else
        cc_strbuf_printf(&t, "(void)((");
      cc_cuda_edits_add(a, s->b, s->rb, t.s);
      cc_cuda_edits_add(a, s->ae, s->ae, "))");
      if (vs[i].kind != CC_CUDA_V_VECTOR)
        continue; /* a scalar store runs as written in phase B */
      t.len = 0;
      cc_strbuf_printf(&t, "((%s *)&__cc_o%u)[__cc_q] = ", s->type, i);
      if (s->store == 2)
        cc_strbuf_printf(&t, "((const %s *)&__cc_w%u)[__cc_q] %s ", s->type, i, s->op);
      cc_strbuf_printf(&t, "(");
      cc_cuda_edits_add(bb, s->b, s->rb, t.s);
      t.len = 0;
      cc_strbuf_printf(&t, "), __cc_p%u = &%.*s - __cc_q", i, len, x);
      cc_cuda_edits_add(bb, s->ae, s->ae, t.s);
    }
  }
  free(t.s);
}

/* The whole new body (replacing [b, e)): the run-time alignment test, the vector plays,
 * the scalar plays. */
static void vector_body(struct cc_strbuf *o, const struct cc_cuda_model *m,
                        const struct lwalk *w, const struct vsite *vs, const char *pa,
                        const char *pb, const char *ps, unsigned b, unsigned e, uint32_t v,
                        const uint32_t block[3], const uint32_t grid[3])
{
  char loop[96];
  int first = 1;
  unsigned bytes = 0;
  cc_strbuf_printf(o, "{\n  /* coalcheck fix: each thread plays %u consecutive threads along "
                   "x of the launch of grid (%u, %u, %u) and block (%u, %u, %u); when the "
                   "arrays are aligned, vector plays: phase A loads each unit-stride access "
                   "once as a %u-wide vector and each access the same in every play once, "
                   "phase B runs the plays on them and gathers their stores into one vector "
                   "store each; else the plays run one after the other */\n", v, grid[0],
                   grid[1], grid[2], block[0], block[1], block[2], v);
  params_text(o, m, 0);
  cc_strbuf_printf(o, "  const unsigned __cc_g0 = (blockIdx.x * blockDim.x + threadIdx.x) * "
                   "%uu;\n  if ((", v);
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    if (vs[i].kind != CC_CUDA_V_VECTOR)
      continue;
    cc_strbuf_printf(o, "%s(unsigned long long)(const void *)&%.*s[0]", first ? "" : " | ",
                     (int)(s->ib - 1 - s->b), m->tu.text + s->b);
    first = 0;
    bytes = elem_bytes(s->type);
  }
  cc_strbuf_printf(o, ") %% %uu == 0) {\n", v * bytes);
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    if (vs[i].kind == CC_CUDA_V_VECTOR && s->store != 1)
      cc_strbuf_printf(o, "  %s%u __cc_w%u;\n", vs[i].stem, v, i);
    if (vs[i].kind == CC_CUDA_V_BROADCAST && s->store == 0)
      cc_strbuf_printf(o, "  %s __cc_w%u;\n", s->type, i);
    if (vs[i].kind == CC_CUDA_V_VECTOR && s->store != 0)
      cc_strbuf_printf(o, "  %s%u __cc_o%u; %s *__cc_p%u = nullptr;\n", vs[i].stem, v, i,
                       s->type, i);
  }
  vhead(o, m, b, "{ const unsigned __cc_q = 0;", block, grid);
  cc_strbuf_printf(o, "%s}\n    __cc_loaded:;\n  }\n#pragma unroll\n", pa);
  snprintf(loop, sizeof loop, "for (unsigned __cc_q = 0; __cc_q < %uu; __cc_q++) {", v);
  vhead(o, m, b, loop, block, grid);
  cc_strbuf_printf(o, "%s}\n    __cc_played:;\n  }\n", pb);
  for (unsigned i = 0; i < w->nsites; i++)
    if (vs[i].kind == CC_CUDA_V_VECTOR && w->sites[i].store != 0)
      cc_strbuf_printf(o, "#line %u\n  if (__cc_p%u) *(%s%u *)__cc_p%u = __cc_o%u;\n",
                       cc_cuda_tu_line_at(&m->tu, w->sites[i].b), i, vs[i].stem, v, i, i);
  cc_strbuf_printf(o, "  } else {\n");
  vhead(o, m, b, loop, block, grid);
  cc_strbuf_printf(o, "%s}\n    __cc_scalar:;\n  }\n  }\n}\n#line %u\n", ps,
                   cc_cuda_tu_line_at(&m->tu, e - 1));
}

/* The kinds of w's sites from cls, or a refusal (why, at): no vector access, or vector
 * accesses of different element sizes or too wide for v. */
static const char *vkinds(const struct cc_cuda_model *m, const struct lwalk *w, uint32_t v,
                          const struct cc_cuda_vclass *cls, size_t ncls, struct vsite *vs,
                          CXCursor *at)
{
  unsigned nvec = 0, bytes = 0;
  for (unsigned i = 0; i < w->nsites; i++) {
    const struct site *s = &w->sites[i];
    vs[i].kind = site_kind(m, s, cls, ncls);
    if (vs[i].kind != CC_CUDA_V_VECTOR)
      continue;
    *at = s->at;
    vs[i].stem = vec_stem(s->type);
    if (!vs[i].stem || elem_bytes(s->type) * v > 16)
      return "a vector access wider than 16 bytes (CUDA's widest load)";
    if (bytes && bytes != elem_bytes(s->type))
      return "vector accesses of elements of different sizes";
    bytes = elem_bytes(s->type);
    nvec++;
  }
  *at = m->fns.data[m->kernel].def;
  if (!nvec)
    return "no access with unit stride along x to make a vector";
  return NULL;
}

/* The vector rewrite of the model's kernel, or a refusal. */
static int vector_plays(const struct cc_cuda_model *m, uint32_t v, const uint32_t block[3],
                        const uint32_t grid[3], const struct cc_cuda_vclass *cls, size_t ncls,
                        char **out, size_t *out_len, struct cc_err *err)
{
  struct lwalk *w = cc_xcalloc(1, sizeof *w);
  struct vsite vs[MAX_SITES];
  cc_cuda_edits ea = {0}, eb = {0}, es = {0}, all = {0};
  cc_cuda_edits *const phases[] = {&ea, &eb, &es};
  struct cc_strbuf o = {0};
  CXCursor at;
  unsigned b = 0, e = 0;
  const char *why;
  int rc;
  /* one play's worth of kept values (the vector registers are not settle's slots): the
   * budget never refuses here */
  if ((rc = two_phase_prologue(m, w, "the vector plays keep the subscripts `P[i]` of the "
                               "kernel's pointer parameters, in statements without calls",
                               "the plays run one after the other", 1, MAX_SITES, phases, 3,
                               &b, &e, err)) != CC_OK)
    goto done;
  if ((why = vkinds(m, w, v, cls, ncls, vs, &at))) {
    rc = refuse(m, at, err, why, "the plays run one after the other");
    goto done;
  }
  vphase_edits(w, vs, v, m->tu.text, &ea, &eb);
  char *pa = cc_cuda_edits_render(&ea, m->tu.text, b + 1, e - 1, 0);
  char *pb = cc_cuda_edits_render(&eb, m->tu.text, b + 1, e - 1, 0);
  char *ps = cc_cuda_edits_render(&es, m->tu.text, b + 1, e - 1, 0);
  vector_body(&o, m, w, vs, pa, pb, ps, b, e, v, block, grid);
  free(pa);
  free(pb);
  free(ps);
  cc_cuda_edits_add(&all, b, e, o.s);
  rc = cc_cuda_edits_apply(&all, m->tu.text, m->tu.len, out, out_len, err);
done:
  free(o.s);
  cc_cuda_edits_release(&ea);
  cc_cuda_edits_release(&eb);
  cc_cuda_edits_release(&es);
  cc_cuda_edits_release(&all);
  free(w);
  return rc;
}

int cc_cuda_plays_vector(const char *path, const char *text, size_t len, const char *kernel,
                         uint32_t v, const uint32_t block[3], const uint32_t grid[3],
                         const struct cc_cuda_vclass *cls, size_t ncls,
                         const char *const *extra_args, size_t nextra, char **out,
                         size_t *out_len, struct cc_err *err)
{
  struct cc_cuda_model m;
  int rc;
  *out = NULL;
  *out_len = 0;
  if ((v != 2 && v != 4) || block[0] % v != 0)
    CC_BUG("cc_cuda_plays_vector: %u plays along x of a block of %u", v, block[0]);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  if ((rc = geometry_callee(&m, err)) == CC_OK)
    rc = vector_plays(&m, v, block, grid, cls, ncls, out, out_len, err);
  cc_cuda_model_release(&m);
  return rc;
}
