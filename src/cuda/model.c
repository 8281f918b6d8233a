/* coalcheck CUDA front end: the model of a kernel's call tree.
 *
 * One walk over every function body outside system headers and the prelude records the
 * references between functions, every builtin component `B.e`, the builtins used whole
 * or by address, the launches of the kernel, the references to local dim3 variables and
 * the macro expansions written in the input. The call tree is then the closure of the
 * kernel's references (kernels excluded: they are launched, not called). Implicit
 * template instantiations are not visited by libclang: a reference to one resolves to
 * the template it came from, whose definition is what the file holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

/* The deepest cursor nesting walked; deeper input is refused (no stack overflow). */
#define MAX_DEPTH 2000

const char *const cc_cuda_builtin_names[CC_CUDA_B_NONE] = {
  "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
};

static int is_fn_kind(enum CXCursorKind k)
{
  return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
         k == CXCursor_Destructor || k == CXCursor_ConversionFunction ||
         k == CXCursor_FunctionTemplate;
}

CXCursor cc_cuda_fn_target(CXCursor c)
{
  CXCursor r = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(r) || !is_fn_kind(clang_getCursorKind(r)))
    return clang_getNullCursor();
  return r;
}

struct kids {
  CXCursor *out;
  unsigned max, n;
};

static enum CXChildVisitResult collect_kid(CXCursor c, CXCursor parent, CXClientData data)
{
  struct kids *k = data;
  (void)parent;
  if (k->n < k->max)
    k->out[k->n] = c;
  k->n++;
  return CXChildVisit_Continue;
}

unsigned cc_cuda_children(CXCursor c, CXCursor *out, unsigned max)
{
  struct kids k = {out, max, 0};
  clang_visitChildren(c, collect_kid, &k);
  return k.n;
}

CXCursor cc_cuda_first_child(CXCursor c)
{
  CXCursor k;
  while (cc_cuda_children(c, &k, 1) > 0) {
    if (clang_getCursorKind(k) != CXCursor_ParenExpr)
      return k;
    c = k;
  }
  return clang_getNullCursor();
}

/* ---- functions by USR ---- */

static uint64_t hash_str(const char *s)
{
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void hash_put(struct cc_cuda_model *m, int idx)
{
  size_t mask = m->hash_cap - 1, i = hash_str(m->fns.data[idx].usr) & mask;
  while (m->hash[i] >= 0)
    i = (i + 1) & mask;
  m->hash[i] = idx;
}

static int hash_find(const struct cc_cuda_model *m, const char *usr)
{
  size_t mask = m->hash_cap - 1, i = hash_str(usr) & mask;
  if (m->hash_cap == 0)
    return -1;
  for (; m->hash[i] >= 0; i = (i + 1) & mask)
    if (strcmp(m->fns.data[m->hash[i]].usr, usr) == 0)
      return m->hash[i];
  return -1;
}

static void hash_grow(struct cc_cuda_model *m)
{
  if ((m->fns.len + 1) * 2 <= m->hash_cap)
    return;
  free(m->hash);
  m->hash_cap = m->hash_cap ? m->hash_cap * 2 : 256;
  m->hash = cc_xmalloc(m->hash_cap * sizeof *m->hash);
  for (size_t i = 0; i < m->hash_cap; i++)
    m->hash[i] = -1;
  for (size_t i = 0; i < m->fns.len; i++)
    hash_put(m, (int)i);
}

static enum CXChildVisitResult find_global_attr(CXCursor c, CXCursor parent, CXClientData data)
{
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_CUDAGlobalAttr) {
    *(int *)data = 1;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/* 1 when the tokens from the start of a function template to its name say __global__
 * (libclang gives a FunctionTemplate no attribute children): the word itself, the
 * attribute `global`, or a macro written there whose definition says one of them. */
static int template_is_global(const struct cc_cuda_model *m, CXCursor c)
{
  const struct cc_cuda_tu *t = &m->tu;
  CXSourceRange ext = clang_getCursorExtent(c);
  CXSourceRange head = clang_getRange(clang_getRangeStart(ext), clang_getCursorLocation(c));
  struct cc_cuda_tokens tk;
  int yes = 0;
  cc_cuda_tokens_get(t, head, &tk);
  for (unsigned i = 0; i < tk.n && !yes; i++) {
    const struct cc_cuda_expansion *x;
    if (cc_cuda_token_is(&tk, i, "__global__") || cc_cuda_token_is(&tk, i, "global")) {
      yes = 1;
    } else if ((x = cc_cuda_model_expansion_at(m, cc_cuda_token_off(&tk, i))) != NULL) {
      struct cc_cuda_tokens def;
      cc_cuda_tokens_get(t, clang_getCursorExtent(x->def), &def);
      for (unsigned j = 1; j < def.n && !yes; j++)
        yes = cc_cuda_token_is(&def, j, "__global__") || cc_cuda_token_is(&def, j, "global");
      cc_cuda_tokens_release(&def);
    }
  }
  cc_cuda_tokens_release(&tk);
  return yes;
}

static int is_global(const struct cc_cuda_model *m, CXCursor c)
{
  int yes = 0;
  if (clang_getCursorKind(c) == CXCursor_FunctionTemplate)
    return template_is_global(m, c);
  clang_visitChildren(c, find_global_attr, &yes);
  return yes;
}

/* The index of function d (created on first sight). */
static int fn_index(struct cc_cuda_model *m, CXCursor d)
{
  char *usr = cc_cuda_str(clang_getCursorUSR(d));
  int idx;
  struct cc_cuda_fn f;
  CXCursor tmpl = d, t;
  if (!*usr) { /* no USR (should not happen for functions): key it by its place */
    char place[512];
    cc_cuda_tu_place(&m->tu, clang_getCursorLocation(d), place, sizeof place);
    free(usr);
    usr = cc_xstrdup(place);
  }
  idx = hash_find(m, usr);
  if (idx >= 0) {
    free(usr);
    return idx;
  }
  memset(&f, 0, sizeof f);
  f.usr = usr;
  f.name = cc_cuda_spelling(d);
  f.decl = d;
  f.def = clang_getCursorDefinition(d);
  f.where = cc_cuda_tu_where(&m->tu,
                             clang_getCursorLocation(clang_Cursor_isNull(f.def) ? d : f.def));
  f.is_global = is_global(m, clang_Cursor_isNull(f.def) ? d : f.def);
  f.tmpl = -1;
  hash_grow(m);
  CC_VEC_PUSH(&m->fns, f);
  idx = (int)m->fns.len - 1;
  hash_put(m, idx);
  /* an instantiation (or a member of one) resolves to its template when not defined itself */
  for (int i = 0; i < 8 && !clang_Cursor_isNull(t = clang_getSpecializedCursorTemplate(tmpl)); i++)
    tmpl = t;
  if (!clang_equalCursors(tmpl, d)) {
    int ti = fn_index(m, tmpl);
    m->fns.data[idx].tmpl = ti;
  }
  return idx;
}

/* The function a reference to fn means: itself when its definition was walked, else the
 * template it was instantiated from. */
static int fn_resolve(const struct cc_cuda_model *m, int fn)
{
  for (int i = 0; i < 8 && fn >= 0 && !m->fns.data[fn].visited && m->fns.data[fn].tmpl >= 0; i++)
    fn = m->fns.data[fn].tmpl;
  return fn;
}

/* ---- expansions ---- */

static int exp_cmp(const void *a, const void *b)
{
  const struct cc_cuda_expansion *x = a, *y = b;
  return x->b < y->b ? -1 : x->b > y->b ? 1 : (x->e > y->e) - (x->e < y->e);
}

static enum CXChildVisitResult collect_expansion(CXCursor c, CXCursor parent, CXClientData data)
{
  struct cc_cuda_model *m = data;
  struct cc_cuda_expansion x;
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_MacroExpansion)
    return CXChildVisit_Continue;
  if (!cc_cuda_tu_extent(&m->tu, c, &x.b, &x.e))
    return CXChildVisit_Continue;
  x.at = c;
  x.def = clang_getCursorReferenced(c);
  CC_VEC_PUSH(&m->exps, x);
  return CXChildVisit_Continue;
}

const struct cc_cuda_expansion *cc_cuda_model_expansion_at(const struct cc_cuda_model *m,
                                                           unsigned off)
{
  size_t lo = 0, hi = m->exps.len;
  while (lo < hi) { /* the first expansion starting after off */
    size_t mid = (lo + hi) / 2;
    if (m->exps.data[mid].b <= off)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* expansions nest or are disjoint: going back from there, the first that holds off is
   * the innermost (it starts last) */
  while (lo-- > 0)
    if (off < m->exps.data[lo].e)
      return &m->exps.data[lo];
  return NULL;
}

int cc_cuda_model_whole(const struct cc_cuda_model *m, unsigned b, unsigned e)
{
  for (size_t i = 0; i < m->exps.len && m->exps.data[i].b < e; i++) {
    const struct cc_cuda_expansion *x = &m->exps.data[i];
    if (x->e > b && !(x->b >= b && x->e <= e))
      return 0;
  }
  return 1;
}

unsigned cc_cuda_model_builtins_read(const struct cc_cuda_model *m)
{
  unsigned used = 0;
  for (size_t i = 0; i < m->comps.len; i++)
    if (m->comps.data[i].fn == m->kernel)
      used |= 1u << m->comps.data[i].b;
  for (size_t i = 0; i < m->uses.len; i++)
    if (m->uses.data[i].fn == m->kernel)
      used |= 1u << m->uses.data[i].b;
  return used;
}

const struct cc_cuda_edge *cc_cuda_model_geometry_callee(const struct cc_cuda_model *m)
{
  for (size_t i = 0; i < m->edges.len; i++) {
    const struct cc_cuda_edge *e = &m->edges.data[i];
    if (e->from == m->kernel && e->to != m->kernel && m->fns.data[e->to].reads_tree)
      return e;
  }
  return NULL;
}

/* ---- the walk ---- */

struct walker {
  struct cc_cuda_model *m;
  int kernel;     /* index of the kernel */
  int cur;        /* function whose body is being walked, -1 at file scope */
  unsigned depth;
  int status;
  struct cc_err *err;
};

enum cc_cuda_builtin cc_cuda_model_builtin(const struct cc_cuda_model *m, CXCursor c)
{
  CXCursor v = clang_getCursorReferenced(c);
  if (clang_Cursor_isNull(v) || clang_getCursorKind(v) != CXCursor_VarDecl ||
      cc_cuda_tu_where(&m->tu, clang_getCursorLocation(v)) != CC_CUDA_PRELUDE)
    return CC_CUDA_B_NONE;
  for (int b = 0; b < CC_CUDA_B_NONE; b++)
    if (cc_cuda_spelled(v, cc_cuda_builtin_names[b]))
      return (enum cc_cuda_builtin)b;
  return CC_CUDA_B_NONE;
}

int cc_cuda_model_is_dim3(const struct cc_cuda_model *m, CXType t)
{
  CXCursor d = clang_getTypeDeclaration(clang_getCanonicalType(t));
  return !clang_Cursor_isNull(d) && cc_cuda_spelled(d, "dim3") &&
         cc_cuda_tu_where(&m->tu, clang_getCursorLocation(d)) == CC_CUDA_PRELUDE;
}

/* 1 when v (a declaration) is a variable of type dim3 declared inside a function. */
static int is_local_dim3(const struct cc_cuda_model *m, CXCursor v)
{
  CXCursor p;
  if (clang_getCursorKind(v) != CXCursor_VarDecl ||
      !cc_cuda_model_is_dim3(m, clang_getCursorType(v)))
    return 0;
  p = clang_getCursorSemanticParent(v);
  return is_fn_kind(clang_getCursorKind(p));
}

static int ident_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* 1 when the input holds the one-letter identifier "xyz"[e] at off. */
static int letter_at(const struct cc_cuda_tu *t, unsigned off, int e)
{
  return off < t->len && t->text[off] == "xyz"[e] &&
         (off + 1 >= t->len || !ident_char(t->text[off + 1])) &&
         (off == 0 || !ident_char(t->text[off - 1]));
}

static int component_of(CXCursor member)
{
  if (cc_cuda_spelled(member, "x")) return 0;
  if (cc_cuda_spelled(member, "y")) return 1;
  if (cc_cuda_spelled(member, "z")) return 2;
  return -1;
}

/* How the letter of member reference c (component e) is written; *off its offset. */
static enum cc_cuda_spell spell_of(const struct cc_cuda_model *m, CXCursor c, int e, unsigned *off)
{
  const struct cc_cuda_expansion *x;
  if (!cc_cuda_tu_off(&m->tu, clang_getCursorLocation(c), off))
    return CC_CUDA_ELSEWHERE;
  if (!letter_at(&m->tu, *off, e))
    return CC_CUDA_BODY;
  x = cc_cuda_model_expansion_at(m, *off);
  if (!x)
    return CC_CUDA_DIRECT;
  return x->b == *off ? CC_CUDA_BODY : CC_CUDA_ARG;
}

static int consume(struct walker *w, CXCursor c)
{
  for (size_t i = 0; i < w->m->consumed.len; i++)
    if (clang_equalCursors(w->m->consumed.data[i], c)) {
      w->m->consumed.data[i] = w->m->consumed.data[--w->m->consumed.len];
      return 1;
    }
  return 0;
}

static void add_edge(struct walker *w, CXCursor target, CXCursor at)
{
  struct cc_cuda_edge e = {w->cur, fn_index(w->m, target), at};
  CC_VEC_PUSH(&w->m->edges, e);
}

/* Records offset off of c (a reference) when the input has a component letter there: an
 * edit of that letter would change c too. */
static void mark(struct walker *w, CXCursor c, int comp)
{
  unsigned off;
  const struct cc_cuda_tu *t = &w->m->tu;
  if (!cc_cuda_tu_off(t, clang_getCursorLocation(c), &off) || off >= t->len)
    return;
  for (int e = 0; e < 3; e++)
    if (letter_at(t, off, e)) {
      struct cc_cuda_mark k = {off, w->cur, comp};
      CC_VEC_PUSH(&w->m->marks, k);
    }
}

/* 1 when fn (a raw index) is the kernel or an instantiation of it. */
static int is_kernel(const struct walker *w, int fn)
{
  return fn == w->kernel || w->m->fns.data[fn].tmpl == w->kernel;
}

static void on_member(struct walker *w, CXCursor c)
{
  struct cc_cuda_model *m = w->m;
  CXCursor ref = clang_getCursorReferenced(c), base;
  int e;
  if (clang_Cursor_isNull(ref)) { /* a dependent member: `obj.name` in a template */
    struct cc_cuda_tokens tk;
    cc_cuda_tokens_get(&m->tu, clang_getCursorExtent(c), &tk);
    if (tk.n > 0 && clang_getTokenKind(tk.tok[tk.n - 1]) == CXToken_Identifier) {
      struct cc_cuda_unresolved u = {w->cur, NULL};
      u.name = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[tk.n - 1]));
      CC_VEC_PUSH(&m->unresolved, u);
    }
    cc_cuda_tokens_release(&tk);
    return;
  }
  if (is_fn_kind(clang_getCursorKind(ref))) {
    add_edge(w, ref, c);
    return;
  }
  if (clang_getCursorKind(ref) != CXCursor_FieldDecl || (e = component_of(c)) < 0) {
    mark(w, c, 0);
    return;
  }
  base = cc_cuda_first_child(c);
  if (!clang_Cursor_isNull(base) && clang_getCursorKind(base) == CXCursor_DeclRefExpr) {
    enum cc_cuda_builtin b = cc_cuda_model_builtin(m, base);
    CXCursor var = clang_getCursorReferenced(base);
    if (b < CC_CUDA_B_WARPSIZE) {
      struct cc_cuda_comp k = {w->cur, b, e, CC_CUDA_DIRECT, 0, c};
      k.spell = spell_of(m, c, e, &k.off);
      CC_VEC_PUSH(&m->comps, k);
      CC_VEC_PUSH(&m->consumed, base);
      mark(w, c, 1);
      return;
    }
    if (is_local_dim3(m, var)) {
      struct cc_cuda_vref v = {var, base, CC_CUDA_V_MEMBER, e, 0, 0, -1};
      v.direct = spell_of(m, c, e, &v.off) == CC_CUDA_DIRECT;
      CC_VEC_PUSH(&m->vrefs, v);
      CC_VEC_PUSH(&m->consumed, base);
    }
  }
  mark(w, c, 0);
}

static void on_declref(struct walker *w, CXCursor c)
{
  struct cc_cuda_model *m = w->m;
  CXCursor ref = clang_getCursorReferenced(c);
  enum cc_cuda_builtin b;
  mark(w, c, 0);
  if (consume(w, c) || clang_Cursor_isNull(ref))
    return;
  if (is_fn_kind(clang_getCursorKind(ref))) {
    int fi = fn_index(m, ref);
    if (is_kernel(w, fi)) {
      struct cc_cuda_kref k = {w->cur, c};
      CC_VEC_PUSH(&m->krefs, k);
    } else {
      add_edge(w, ref, c);
    }
    return;
  }
  b = cc_cuda_model_builtin(m, c);
  if (b < CC_CUDA_B_WARPSIZE) {
    struct cc_cuda_use u = {w->cur, 0, b, c};
    CC_VEC_PUSH(&m->uses, u);
  } else if (b == CC_CUDA_B_NONE && is_local_dim3(m, ref)) {
    struct cc_cuda_vref v = {ref, c, CC_CUDA_V_OTHER, 0, 0, 0, -1};
    CC_VEC_PUSH(&m->vrefs, v);
  }
}

static void on_overloaded(struct walker *w, CXCursor c)
{
  int kernel = 0;
  mark(w, c, 0);
  if (consume(w, c))
    return;
  for (unsigned i = 0, n = clang_getNumOverloadedDecls(c); i < n; i++) {
    CXCursor d = clang_getOverloadedDecl(c, i);
    if (!is_fn_kind(clang_getCursorKind(d)))
      continue;
    if (is_kernel(w, fn_index(w->m, d)))
      kernel = 1;
    else
      add_edge(w, d, c);
  }
  if (kernel) {
    struct cc_cuda_kref k = {w->cur, c};
    CC_VEC_PUSH(&w->m->krefs, k);
  }
}

/* The DeclRefExpr or OverloadedDeclRef naming the callee under c, or a null cursor. */
static CXCursor callee_ref(CXCursor c)
{
  for (int i = 0; i < 16 && !clang_Cursor_isNull(c); i++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k == CXCursor_OverloadedDeclRef)
      return c;
    if (k == CXCursor_DeclRefExpr && !clang_Cursor_isNull(cc_cuda_fn_target(c)))
      return c;
    c = cc_cuda_first_child(c);
  }
  return clang_getNullCursor();
}

/* 1 when callee reference r names the kernel (or an instantiation of it). */
static int names_kernel(struct walker *w, CXCursor r)
{
  if (clang_getCursorKind(r) == CXCursor_OverloadedDeclRef) {
    for (unsigned i = 0, n = clang_getNumOverloadedDecls(r); i < n; i++) {
      CXCursor d = clang_getOverloadedDecl(r, i);
      if (is_fn_kind(clang_getCursorKind(d)) && is_kernel(w, fn_index(w->m, d)))
        return 1;
    }
    return 0;
  }
  return is_kernel(w, fn_index(w->m, cc_cuda_fn_target(r)));
}

static void on_call(struct walker *w, CXCursor c)
{
  struct cc_cuda_model *m = w->m;
  CXCursor kid[2], target = cc_cuda_fn_target(c);
  if (cc_cuda_children(c, kid, 2) >= 2 && clang_getCursorKind(kid[1]) == CXCursor_CallExpr) {
    CXCursor cfg = cc_cuda_fn_target(kid[1]);
    if (!clang_Cursor_isNull(cfg) &&
        cc_cuda_tu_where(&m->tu, clang_getCursorLocation(cfg)) == CC_CUDA_PRELUDE &&
        (cc_cuda_spelled(cfg, "cudaConfigureCall") ||
         cc_cuda_spelled(cfg, "__cudaPushCallConfiguration"))) {
      /* a <<<...>>> launch: the callee is launched, not called */
      CXCursor r = callee_ref(kid[0]);
      if (!clang_Cursor_isNull(r)) {
        if (names_kernel(w, r)) {
          struct cc_cuda_launch l = {w->cur, c, kid[1]};
          CC_VEC_PUSH(&m->launches, l);
        }
        CC_VEC_PUSH(&m->consumed, r);
      }
      return;
    }
  }
  if (!clang_Cursor_isNull(target) && !is_kernel(w, fn_index(m, target)))
    add_edge(w, target, c); /* constructors have no DeclRefExpr of their own */
}

/* `&B.e`: a unary operator of pointer type over a builtin component. */
static void on_unary(struct walker *w, CXCursor c)
{
  CXCursor op = cc_cuda_first_child(c), base;
  if (clang_getCursorType(c).kind != CXType_Pointer || clang_Cursor_isNull(op) ||
      clang_getCursorKind(op) != CXCursor_MemberRefExpr)
    return;
  base = cc_cuda_first_child(op);
  if (!clang_Cursor_isNull(base) && clang_getCursorKind(base) == CXCursor_DeclRefExpr) {
    enum cc_cuda_builtin b = cc_cuda_model_builtin(w->m, base);
    if (b < CC_CUDA_B_WARPSIZE) {
      struct cc_cuda_use u = {w->cur, 1, b, c};
      CC_VEC_PUSH(&w->m->uses, u);
    }
  }
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct walker *w = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  int saved = w->cur;
  (void)parent;
  if (w->depth == 0) {
    enum cc_cuda_where where;
    if (clang_isPreprocessing(k))
      return CXChildVisit_Continue;
    where = cc_cuda_tu_where(&w->m->tu, clang_getCursorLocation(c));
    if (where != CC_CUDA_MAIN && where != CC_CUDA_HEADER)
      return CXChildVisit_Continue;
  }
  if (is_fn_kind(k)) {
    struct cc_cuda_fn *f;
    if (!clang_isCursorDefinition(c))
      return CXChildVisit_Continue; /* a declaration: its parameters hold nothing to walk */
    w->cur = fn_index(w->m, c);
    f = &w->m->fns.data[w->cur];
    f->visited = 1;
    f->def = c;
    f->where = cc_cuda_tu_where(&w->m->tu, clang_getCursorLocation(c));
  } else {
    switch (k) {
    case CXCursor_MemberRefExpr: on_member(w, c); break;
    case CXCursor_DeclRefExpr: on_declref(w, c); break;
    case CXCursor_OverloadedDeclRef: on_overloaded(w, c); break;
    case CXCursor_CallExpr: on_call(w, c); break;
    case CXCursor_UnaryOperator: on_unary(w, c); break;
    case CXCursor_TypeRef: case CXCursor_TemplateRef: case CXCursor_NamespaceRef:
    case CXCursor_MemberRef: case CXCursor_LabelRef: case CXCursor_VariableRef:
      mark(w, c, 0);
      break;
    default: break;
    }
  }
  if (w->depth >= MAX_DEPTH) {
    char place[512];
    cc_cuda_tu_place(&w->m->tu, clang_getCursorLocation(c), place, sizeof place);
    w->status = cc_err_set(w->err, CC_ERR_INPUT, "%s: expressions nested deeper than %d "
                           "levels; simplify the code there", place, MAX_DEPTH);
    return CXChildVisit_Break;
  }
  w->depth++;
  clang_visitChildren(c, visit, w);
  w->depth--;
  w->cur = saved;
  return w->status ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* ---- finding the kernel ---- */

struct finder {
  struct cc_cuda_model *m;
  CC_VEC(CXCursor) found;
};

static enum CXChildVisitResult find_kernel(CXCursor c, CXCursor parent, CXClientData data)
{
  struct finder *f = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  (void)parent;
  if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl) {
    enum cc_cuda_where where = cc_cuda_tu_where(&f->m->tu, clang_getCursorLocation(c));
    if (where == CC_CUDA_MAIN || where == CC_CUDA_HEADER)
      clang_visitChildren(c, find_kernel, f);
    return CXChildVisit_Continue;
  }
  if ((k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) &&
      clang_isCursorDefinition(c) && cc_cuda_spelled(c, f->m->kernel_name)) {
    enum cc_cuda_where where = cc_cuda_tu_where(&f->m->tu, clang_getCursorLocation(c));
    if ((where == CC_CUDA_MAIN || where == CC_CUDA_HEADER) && is_global(f->m, c))
      CC_VEC_PUSH(&f->found, c);
  }
  return CXChildVisit_Continue;
}

static int locate_kernel(struct cc_cuda_model *m, CXCursor *kernel, struct cc_err *err)
{
  struct finder f = {m, {0}};
  size_t in_main = 0;
  int rc = CC_OK;
  char a[512], b[512];
  clang_visitChildren(clang_getTranslationUnitCursor(m->tu.tu), find_kernel, &f);
  for (size_t i = 0; i < f.found.len; i++)
    if (cc_cuda_tu_where(&m->tu, clang_getCursorLocation(f.found.data[i])) == CC_CUDA_MAIN) {
      if (in_main++ == 0)
        *kernel = f.found.data[i];
      else
        cc_cuda_tu_place(&m->tu, clang_getCursorLocation(f.found.data[i]), b, sizeof b);
    }
  if (in_main > 1) {
    cc_cuda_tu_place(&m->tu, clang_getCursorLocation(*kernel), a, sizeof a);
    rc = cc_err_set(err, CC_ERR_INPUT, "several kernels named %s in %s (%s and %s); a "
                    "template must have one definition and no explicit specialisation; "
                    "rename one", m->kernel_name, m->tu.path, a, b);
  } else if (in_main == 0 && f.found.len > 0) {
    cc_cuda_tu_place(&m->tu, clang_getCursorLocation(f.found.data[0]), a, sizeof a);
    rc = cc_err_set(err, CC_ERR_INPUT, "kernel %s is defined in %s, not in %s; rewrite the "
                    "file that defines it", m->kernel_name, a, m->tu.path);
  } else if (in_main == 0) {
    rc = cc_err_set(err, CC_ERR_INPUT, "no kernel (__global__ function definition) named "
                    "%s in %s; give its unqualified source name", m->kernel_name, m->tu.path);
  }
  CC_VEC_FREE(&f.found);
  return rc;
}

/* ---- the call tree ---- */

int cc_cuda_model_in_tree(const struct cc_cuda_model *m, int fn)
{
  return fn >= 0 && m->fns.data[fn].in_tree;
}

/* Edges of unresolved member calls: to every walked function of that name. */
static void resolve_unresolved(struct cc_cuda_model *m)
{
  for (size_t u = 0; u < m->unresolved.len; u++)
    for (size_t i = 0; i < m->fns.len; i++) {
      const struct cc_cuda_fn *f = &m->fns.data[i];
      if (f->visited && !f->is_global && strcmp(f->name, m->unresolved.data[u].name) == 0) {
        struct cc_cuda_edge e = {m->unresolved.data[u].fn, (int)i, f->def};
        CC_VEC_PUSH(&m->edges, e);
      }
    }
}

static void compute_tree(struct cc_cuda_model *m)
{
  int changed = 1;
  for (size_t i = 0; i < m->edges.len; i++)
    m->edges.data[i].to = fn_resolve(m, m->edges.data[i].to);
  resolve_unresolved(m);
  m->fns.data[m->kernel].in_tree = 1;
  while (changed) {
    changed = 0;
    for (size_t i = 0; i < m->edges.len; i++) {
      const struct cc_cuda_edge *e = &m->edges.data[i];
      struct cc_cuda_fn *to = &m->fns.data[e->to];
      if (cc_cuda_model_in_tree(m, e->from) && !to->in_tree && !to->is_global)
        to->in_tree = changed = 1;
    }
  }
  for (size_t i = 0; i < m->comps.len; i++)
    if (m->comps.data[i].fn >= 0)
      m->fns.data[m->comps.data[i].fn].reads = 1;
  for (size_t i = 0; i < m->uses.len; i++)
    if (m->uses.data[i].fn >= 0)
      m->fns.data[m->uses.data[i].fn].reads = 1;
  for (size_t i = 0; i < m->fns.len; i++)
    m->fns.data[i].reads_tree = m->fns.data[i].reads;
  for (changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < m->edges.len; i++) {
      const struct cc_cuda_edge *e = &m->edges.data[i];
      if (e->from >= 0 && !m->fns.data[e->from].reads_tree && m->fns.data[e->to].reads_tree &&
          !m->fns.data[e->to].is_global)
        m->fns.data[e->from].reads_tree = changed = 1;
    }
  }
}

/* 1 when loc lies in c's extent (same file, offsets within). */
static int cursor_holds(CXCursor c, CXSourceLocation loc)
{
  CXSourceRange r = clang_getCursorExtent(c);
  CXFile f1 = NULL, f2 = NULL, f3 = NULL;
  unsigned b, e, o;
  clang_getSpellingLocation(clang_getRangeStart(r), &f1, NULL, NULL, &b);
  clang_getSpellingLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
  clang_getSpellingLocation(loc, &f3, NULL, NULL, &o);
  return cc_cuda_same_file(f1, f3) && cc_cuda_same_file(f2, f3) &&
         b <= o && o < e;
}

/* An error diagnostic inside the call tree or a launch site is the input's fault. */
static int check_diagnostics(const struct cc_cuda_model *m, struct cc_err *err)
{
  CXTranslationUnit tu = m->tu.tu;
  for (unsigned i = 0, n = clang_getNumDiagnostics(tu); i < n; i++) {
    CXDiagnostic d = clang_getDiagnostic(tu, i);
    CXSourceLocation loc = clang_getDiagnosticLocation(d);
    int inside = 0;
    if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
      for (size_t f = 0; f < m->fns.len && !inside; f++)
        inside = m->fns.data[f].in_tree && m->fns.data[f].visited &&
                 cursor_holds(m->fns.data[f].def, loc);
      for (size_t l = 0; l < m->launches.len && !inside; l++)
        inside = cursor_holds(m->launches.data[l].call, loc);
    }
    if (inside) {
      char place[512], *msg = cc_cuda_str(clang_getDiagnosticSpelling(d));
      int rc;
      cc_cuda_tu_place(&m->tu, loc, place, sizeof place);
      rc = cc_err_set(err, CC_ERR_INPUT, "%s: %s (in kernel %s, a function it calls or a "
                      "launch of it; coalcheck parses CUDA with a prelude of its own: give "
                      "what is missing with -I or -D)", place, msg, m->kernel_name);
      free(msg);
      clang_disposeDiagnostic(d);
      return rc;
    }
    clang_disposeDiagnostic(d);
  }
  return CC_OK;
}

static int mark_cmp(const void *a, const void *b)
{
  const struct cc_cuda_mark *x = a, *y = b;
  return (x->off > y->off) - (x->off < y->off);
}

/* The unqualified name in a qualified or demangled one: "void ns::k<float>(float *)" and
 * "ns::k" give "k" (into out, n bytes). */
static void unqualified(const char *name, char *out, size_t n)
{
  const char *end = name + strcspn(name, "(<"), *start = end;
  while (start > name && ident_char(start[-1]))
    start--;
  snprintf(out, n, "%.*s", (int)(end - start), start);
}

int cc_cuda_model_build(struct cc_cuda_model *m, const char *path, const char *text,
                        size_t len, const char *kernel, const char *const *extra,
                        size_t nextra, struct cc_err *err)
{
  CXCursor kc;
  struct walker w;
  int rc;
  memset(m, 0, sizeof *m);
  unqualified(kernel, m->kernel_name, sizeof m->kernel_name);
  if ((rc = cc_cuda_tu_parse(&m->tu, path, text, len, extra, nextra, err)) != CC_OK)
    return rc;
  clang_visitChildren(clang_getTranslationUnitCursor(m->tu.tu), collect_expansion, m);
  if (m->exps.len)
    qsort(m->exps.data, m->exps.len, sizeof *m->exps.data, exp_cmp);
  if ((rc = locate_kernel(m, &kc, err)) != CC_OK)
    goto error;
  m->kernel = fn_index(m, kc);
  m->fns.data[m->kernel].visited = 1;
  memset(&w, 0, sizeof w);
  w.m = m;
  w.kernel = m->kernel;
  w.cur = -1;
  w.err = err;
  clang_visitChildren(clang_getTranslationUnitCursor(m->tu.tu), visit, &w);
  if ((rc = w.status) != CC_OK)
    goto error;
  compute_tree(m);
  if (m->marks.len)
    qsort(m->marks.data, m->marks.len, sizeof *m->marks.data, mark_cmp);
  if ((rc = check_diagnostics(m, err)) != CC_OK)
    goto error;
  return CC_OK;
error:
  cc_cuda_model_release(m);
  return rc;
}

void cc_cuda_model_release(struct cc_cuda_model *m)
{
  for (size_t i = 0; i < m->fns.len; i++) {
    free(m->fns.data[i].usr);
    free(m->fns.data[i].name);
  }
  for (size_t i = 0; i < m->unresolved.len; i++)
    free(m->unresolved.data[i].name);
  CC_VEC_FREE(&m->fns);
  CC_VEC_FREE(&m->edges);
  CC_VEC_FREE(&m->comps);
  CC_VEC_FREE(&m->marks);
  CC_VEC_FREE(&m->uses);
  CC_VEC_FREE(&m->launches);
  CC_VEC_FREE(&m->krefs);
  CC_VEC_FREE(&m->vrefs);
  CC_VEC_FREE(&m->exps);
  CC_VEC_FREE(&m->unresolved);
  CC_VEC_FREE(&m->consumed);
  free(m->hash);
  m->hash = NULL;
  m->hash_cap = 0;
  cc_cuda_tu_release(&m->tu);
}
