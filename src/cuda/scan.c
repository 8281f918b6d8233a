/* coalcheck CUDA front end: the source side of a permutation's legality.
 *
 * A thread-geometry permutation keeps each thread's arithmetic and changes only which
 * threads share a warp (FIX-DESIGN.md): the kernel's outputs stay bitwise equal unless
 * it observes warp membership. This scan lists what in the kernel's call tree does:
 * warp intrinsics, cooperative groups, warpSize, lane/warp ids computed from threadIdx,
 * inline asm on %laneid/%warpid or warp instructions, and volatile (warp-synchronous)
 * memory. The caller decides; the PTX is checked separately. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

#define MAX_SITES 256

typedef CC_VEC(char *) name_vec;

struct scanner {
  const struct cc_cuda_model *m;
  struct cc_cuda_scan *out;
  name_vec tainted; /* USRs of local variables holding a threadIdx-derived value */
};

static void add(struct scanner *s, enum cc_cuda_hazard kind, CXSourceLocation loc, const char *what)
{
  struct cc_cuda_scan *out = s->out;
  struct cc_cuda_hazard_site h;
  CXFile f = NULL;
  unsigned line = 0, col = 0;
  char *file;
  clang_getSpellingLocation(loc, &f, &line, &col, NULL);
  file = !f || cc_cuda_same_file(f, s->m->tu.main) ? cc_xstrdup(s->m->tu.path)
                                                    : cc_cuda_str(clang_getFileName(f));
  for (uint32_t i = 0; i < out->nsites; i++)
    if (out->sites[i].kind == kind && out->sites[i].line == line &&
        strcmp(out->sites[i].file, file) == 0) {
      free(file);
      return;
    }
  if (out->nsites == MAX_SITES) {
    out->truncated = 1;
    free(file);
    return;
  }
  h.kind = kind;
  h.file = file;
  h.line = line;
  h.column = col;
  h.what = cc_xstrdup(what);
  out->sites = cc_xrealloc(out->sites, (out->nsites + 1) * sizeof *out->sites);
  out->sites[out->nsites++] = h;
}

/* ---- names ---- */

static int ends_with(const char *s, const char *tail)
{
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* CUDA's warp-level primitives (CUDA C++ Programming Guide, "Warp Vote Functions",
 * "Warp Match Functions", "Warp Reduce Functions", "Warp Shuffle Functions", __syncwarp). */
static int is_warp_intrinsic(const char *s)
{
  static const char *const exact[] = {
    "__ballot_sync", "__ballot", "__all_sync", "__any_sync", "__uni_sync", "__all", "__any",
    "__activemask", "__syncwarp",
  };
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (strcmp(s, exact[i]) == 0)
      return 1;
  return strncmp(s, "__shfl", 6) == 0 ||
         ((strncmp(s, "__match_", 8) == 0 || strncmp(s, "__reduce_", 9) == 0) &&
          ends_with(s, "_sync"));
}

/* 1 when d lies in namespace cooperative_groups (or is it). */
static int in_cooperative_groups(CXCursor d)
{
  for (int i = 0; i < 64 && !clang_Cursor_isNull(d) &&
                  clang_getCursorKind(d) != CXCursor_TranslationUnit; i++) {
    if (clang_getCursorKind(d) == CXCursor_Namespace && cc_cuda_spelled(d, "cooperative_groups"))
      return 1;
    d = clang_getCursorSemanticParent(d);
  }
  return 0;
}

static void check_reference(struct scanner *s, CXCursor c, CXCursor d)
{
  char *name;
  if (clang_Cursor_isNull(d))
    return;
  name = cc_cuda_spelling(d);
  if (in_cooperative_groups(d)) {
    char *what = cc_xmalloc(strlen(name) + 32);
    sprintf(what, "cooperative_groups::%s", name);
    add(s, CC_CUDA_COOPERATIVE_GROUPS, clang_getCursorLocation(c), what);
    free(what);
  } else if (is_warp_intrinsic(name) && clang_getCursorKind(d) != CXCursor_VarDecl) {
    add(s, CC_CUDA_WARP_INTRINSIC, clang_getCursorLocation(c), name);
  }
  free(name);
}

/* ---- threadIdx-derived values ---- */

struct taint_walk {
  struct scanner *s;
  int found;
  int warp_size; /* also: found warpSize */
};

static int is_tainted_var(const struct scanner *s, CXCursor v)
{
  char *usr;
  int yes = 0;
  if (clang_Cursor_isNull(v) || clang_getCursorKind(v) != CXCursor_VarDecl)
    return 0;
  usr = cc_cuda_str(clang_getCursorUSR(v));
  for (size_t i = 0; i < s->tainted.len && !yes; i++)
    yes = strcmp(s->tainted.data[i], usr) == 0;
  free(usr);
  return yes;
}

static enum CXChildVisitResult taint_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct taint_walk *t = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  (void)parent;
  if (k == CXCursor_ArraySubscriptExpr)
    return CXChildVisit_Continue; /* a[threadIdx.x] is data, not a thread id */
  if (k == CXCursor_MemberRefExpr) {
    CXCursor base = cc_cuda_first_child(c);
    if (!clang_Cursor_isNull(base) && clang_getCursorKind(base) == CXCursor_DeclRefExpr &&
        cc_cuda_model_builtin(t->s->m, base) == CC_CUDA_B_TID)
      t->found = 1;
  } else if (k == CXCursor_DeclRefExpr) {
    if (is_tainted_var(t->s, clang_getCursorReferenced(c)))
      t->found = 1;
    if (cc_cuda_model_builtin(t->s->m, c) == CC_CUDA_B_WARPSIZE)
      t->warp_size = 1;
  }
  return CXChildVisit_Recurse;
}

/* What expression c holds: a threadIdx-derived value (*warp_size: warpSize). */
static int derived(struct scanner *s, CXCursor c, int *warp_size)
{
  struct taint_walk t = {s, 0, 0};
  taint_visit(c, clang_getNullCursor(), &t);
  clang_visitChildren(c, taint_visit, &t);
  if (warp_size)
    *warp_size = t.warp_size;
  return t.found;
}

/* The two operands of a binary operator. */
static int operands(CXCursor c, CXCursor *lhs, CXCursor *rhs)
{
  CXCursor kids[2];
  if (cc_cuda_children(c, kids, 2) != 2)
    return 0;
  *lhs = kids[0];
  *rhs = kids[1];
  return 1;
}

/* The operator of binary operator c (owned), read from the first token after its left
 * operand; inside a macro, the first lane-like operator of the macro's body; or NULL. */
static char *operator_of(const struct cc_cuda_model *m, CXCursor c, CXCursor lhs)
{
  static const char *const lane_ops[] = {"%", "/", "&", ">>", "%=", "/=", "&=", ">>="};
  CXSourceRange ext = clang_getCursorExtent(c), le = clang_getCursorExtent(lhs);
  CXFile f1 = NULL, f2 = NULL;
  unsigned b, e, lend;
  struct cc_cuda_tokens tk;
  char *op = NULL;
  const struct cc_cuda_expansion *x;
  clang_getSpellingLocation(clang_getRangeStart(ext), &f1, NULL, NULL, &b);
  clang_getSpellingLocation(clang_getRangeEnd(ext), NULL, NULL, NULL, &e);
  clang_getSpellingLocation(clang_getRangeEnd(le), &f2, NULL, NULL, &lend);
  x = cc_cuda_same_file(f1, m->tu.main) ? cc_cuda_model_expansion_at(m, b) : NULL;
  if (x && !cc_cuda_model_whole(m, b, e)) {
    cc_cuda_tokens_get(&m->tu, clang_getCursorExtent(x->def), &tk);
    for (unsigned i = 1; i < tk.n && !op; i++)
      for (size_t j = 0; j < sizeof lane_ops / sizeof lane_ops[0] && !op; j++)
        if (cc_cuda_token_is(&tk, i, lane_ops[j]))
          op = cc_xstrdup(lane_ops[j]);
    cc_cuda_tokens_release(&tk);
    return op;
  }
  if (!cc_cuda_same_file(f1, f2))
    return NULL;
  cc_cuda_tokens_get(&m->tu, ext, &tk);
  for (unsigned i = 0; i < tk.n && !op; i++)
    if (cc_cuda_token_off(&tk, i) >= lend)
      op = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
  cc_cuda_tokens_release(&tk);
  return op;
}

/* 1 when x is 2^k - 1 with 2^k a (sub)warp width: 8, 16 or 32. */
static int lane_mask(uint64_t x)
{
  return x == 7 || x == 15 || x == 31;
}

/* 1 when v, the constant beside a threadIdx-derived value under op, cuts out a lane or a
 * warp of 8, 16 or 32 threads: % or / by 8, 16 or 32; & with 2^k - 1 or -2^k (as a 32- or
 * 64-bit mask: clang gives -32 converted to unsigned as 4294967264); >> by 3, 4 or 5.
 * Multiples of 32 (tid & 63) are left out: they tile blocks more often than warps. */
static int warp_like(const char *op, long long v)
{
  uint64_t u = (uint64_t)v;
  uint32_t w = (uint32_t)u;
  if (op[0] == '%' || op[0] == '/')
    return v == 8 || v == 16 || v == 32;
  if (op[0] == '>')
    return v >= 3 && v <= 5;
  return lane_mask(u) || lane_mask(~u) ||
         (u >> 32 == 0 && (lane_mask(w) || lane_mask((uint32_t)~w)));
}

/* The integer constant c evaluates to; an unsigned 32-bit value above INT32_MAX is read
 * back as the negative number it was written as (-32, not 4294967264). */
static int constant(CXCursor c, long long *v)
{
  CXEvalResult r = clang_Cursor_Evaluate(c);
  int ok = 0;
  if (r) {
    if (clang_EvalResult_getKind(r) == CXEval_Int) {
      *v = clang_EvalResult_getAsLongLong(r);
      if (*v > INT32_MAX && *v <= (long long)UINT32_MAX)
        *v = (int32_t)(uint32_t)*v;
      ok = 1;
    }
    clang_EvalResult_dispose(r);
  }
  return ok;
}

static void check_binary(struct scanner *s, CXCursor c)
{
  CXCursor lhs, rhs;
  char *op;
  int ws_l = 0, ws_r = 0, dl, dr;
  long long v;
  if (!operands(c, &lhs, &rhs) || !(op = operator_of(s->m, c, lhs)))
    return;
  if (strcmp(op, "%") && strcmp(op, "/") && strcmp(op, "&") && strcmp(op, ">>") &&
      strcmp(op, "%=") && strcmp(op, "/=") && strcmp(op, "&=") && strcmp(op, ">>=")) {
    free(op);
    return;
  }
  dl = derived(s, lhs, &ws_l);
  dr = derived(s, rhs, &ws_r);
  /* the value on the left; & commutes */
  if ((dl && (ws_r || (constant(rhs, &v) && warp_like(op, v)))) ||
      (op[0] == '&' && dr && (ws_l || (constant(lhs, &v) && warp_like(op, v))))) {
    char what[128];
    if (ws_l || ws_r)
      snprintf(what, sizeof what, "threadIdx-derived %s warpSize", op);
    else
      snprintf(what, sizeof what, "threadIdx-derived %s %lld", op, v);
    add(s, CC_CUDA_LANE_ID, clang_getCursorLocation(c), what);
  }
  free(op);
}

/* Marks local variables assigned a threadIdx-derived value (to a fixed point). */
struct taint_pass {
  struct scanner *s;
  int changed;
};

static void taint_var(struct taint_pass *p, CXCursor v)
{
  if (!clang_Cursor_isNull(v) && clang_getCursorKind(v) == CXCursor_VarDecl &&
      !is_tainted_var(p->s, v)) {
    CC_VEC_PUSH(&p->s->tainted, cc_cuda_str(clang_getCursorUSR(v)));
    p->changed = 1;
  }
}

static enum CXChildVisitResult taint_pass_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct taint_pass *p = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  CXCursor lhs, rhs;
  (void)parent;
  if (k == CXCursor_VarDecl) {
    if (derived(p->s, c, NULL))
      taint_var(p, c);
  } else if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
             operands(c, &lhs, &rhs) && clang_getCursorKind(lhs) == CXCursor_DeclRefExpr) {
    char *op = operator_of(p->s->m, c, lhs);
    if (op && strchr(op, '=') && strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "<=") &&
        strcmp(op, ">=") && derived(p->s, rhs, NULL))
      taint_var(p, clang_getCursorReferenced(lhs));
    free(op);
  }
  return CXChildVisit_Recurse;
}

/* ---- the rest ---- */

static int has_volatile(CXType t)
{
  for (int i = 0; i < 16 && t.kind != CXType_Invalid; i++) {
    if (clang_isVolatileQualifiedType(t))
      return 1;
    switch (t.kind) {
    case CXType_Pointer: case CXType_LValueReference: case CXType_RValueReference:
      t = clang_getPointeeType(t);
      break;
    case CXType_ConstantArray: case CXType_IncompleteArray: case CXType_VariableArray:
    case CXType_DependentSizedArray:
      t = clang_getElementType(t);
      break;
    default:
      return 0;
    }
  }
  return 0;
}

/* 1 when variable d is local to a function (its declaration is scanned where it is). */
static int declared_in_function(CXCursor d)
{
  enum CXCursorKind k = clang_getCursorKind(clang_getCursorSemanticParent(d));
  return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_FunctionTemplate ||
         k == CXCursor_Constructor || k == CXCursor_Destructor ||
         k == CXCursor_ConversionFunction || k == CXCursor_LambdaExpr;
}

static void check_volatile(struct scanner *s, CXCursor c, CXCursor decl)
{
  CXType t = clang_getCursorType(decl);
  char *ty, *name, *what;
  if (!has_volatile(t))
    return;
  ty = cc_cuda_str(clang_getTypeSpelling(t));
  name = cc_cuda_spelling(decl);
  what = cc_xmalloc(strlen(ty) + strlen(name) + 2);
  sprintf(what, "%s%s%s", ty, *name && ty[0] && ty[strlen(ty) - 1] != '*' ? " " : "", name);
  add(s, CC_CUDA_VOLATILE, clang_getCursorLocation(c), what);
  free(ty);
  free(name);
  free(what);
}

static void check_asm(struct scanner *s, CXCursor c)
{
  static const char *const lane[] = {"%laneid", "%warpid", "%lanemask"};
  static const char *const warp[] = {"shfl.", "vote.", "match.", "redux.", "activemask",
                                     "bar.warp"};
  struct cc_cuda_tokens tk;
  cc_cuda_tokens_get(&s->m->tu, clang_getCursorExtent(c), &tk);
  for (unsigned i = 0; i < tk.n; i++) {
    char *str;
    if (clang_getTokenKind(tk.tok[i]) != CXToken_Literal)
      continue;
    str = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
    for (size_t j = 0; j < sizeof lane / sizeof lane[0]; j++)
      if (strstr(str, lane[j]))
        add(s, CC_CUDA_ASM_LANE, clang_getCursorLocation(c), lane[j]);
    for (size_t j = 0; j < sizeof warp / sizeof warp[0]; j++)
      if (strstr(str, warp[j]))
        add(s, CC_CUDA_ASM_WARP, clang_getCursorLocation(c), warp[j]);
    free(str);
  }
  cc_cuda_tokens_release(&tk);
}

static int is_cast(enum CXCursorKind k)
{
  return k == CXCursor_CStyleCastExpr || k == CXCursor_CXXStaticCastExpr ||
         k == CXCursor_CXXReinterpretCastExpr || k == CXCursor_CXXConstCastExpr ||
         k == CXCursor_CXXFunctionalCastExpr;
}

static enum CXChildVisitResult scan_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct scanner *s = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  (void)parent;
  switch (k) {
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXCursorKind dk = clang_Cursor_isNull(d) ? CXCursor_NoDeclFound : clang_getCursorKind(d);
    if (cc_cuda_model_builtin(s->m, c) == CC_CUDA_B_WARPSIZE)
      add(s, CC_CUDA_WARP_SIZE, clang_getCursorLocation(c), "warpSize");
    else if (dk == CXCursor_VarDecl && !declared_in_function(d))
      check_volatile(s, c, d); /* a variable of the file: global, __shared__, __constant__ */
    check_reference(s, c, d);
    break;
  }
  case CXCursor_OverloadedDeclRef:
    for (unsigned i = 0, n = clang_getNumOverloadedDecls(c); i < n; i++)
      check_reference(s, c, clang_getOverloadedDecl(c, i));
    break;
  case CXCursor_MemberRefExpr: case CXCursor_TypeRef: case CXCursor_TemplateRef:
  case CXCursor_NamespaceRef:
    check_reference(s, c, clang_getCursorReferenced(c));
    break;
  case CXCursor_VarDecl: case CXCursor_ParmDecl:
    check_volatile(s, c, c);
    break;
  case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator:
    check_binary(s, c);
    break;
  case CXCursor_AsmStmt:
    check_asm(s, c);
    break;
  default:
    if (is_cast(k) && has_volatile(clang_getCursorType(c))) {
      char *ty = cc_cuda_str(clang_getTypeSpelling(clang_getCursorType(c)));
      char *what = cc_xmalloc(strlen(ty) + 16);
      sprintf(what, "cast to %s", ty);
      add(s, CC_CUDA_VOLATILE, clang_getCursorLocation(c), what);
      free(ty);
      free(what);
    }
    break;
  }
  return CXChildVisit_Recurse;
}

int cc_cuda_scan_kernel(const char *path, const char *text, size_t len, const char *kernel,
                        const char *const *extra_args, size_t nextra,
                        struct cc_cuda_scan *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  struct scanner s;
  int rc;
  memset(out, 0, sizeof *out);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  memset(&s, 0, sizeof s);
  s.m = &m;
  s.out = out;
  for (struct taint_pass p = {&s, 1}; p.changed;) {
    p.changed = 0;
    for (size_t i = 0; i < m.fns.len; i++)
      if (m.fns.data[i].in_tree && m.fns.data[i].visited)
        clang_visitChildren(m.fns.data[i].def, taint_pass_visit, &p);
  }
  for (size_t i = 0; i < m.fns.len; i++)
    if (m.fns.data[i].in_tree && m.fns.data[i].visited)
      clang_visitChildren(m.fns.data[i].def, scan_visit, &s);
  for (size_t i = 0; i < s.tainted.len; i++)
    free(s.tainted.data[i]);
  CC_VEC_FREE(&s.tainted);
  cc_cuda_model_release(&m);
  return CC_OK;
}
