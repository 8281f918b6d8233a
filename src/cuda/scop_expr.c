/* coalcheck CUDA front end: the SCoP extractor's expressions (scop_impl.h): affine
 * values of integer expressions over the clang AST, the thread index joined from
 * threadIdx.x and blockIdx.x, conditions as constraints, and the refusals that name the
 * culprit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scop_impl.h"

/* ---- refusals ---- */

/* Forgets the culprit of the last evaluation (before a new one). */
void cc_cuda_scop_fresh(struct cc_cuda_ex *x)
{
  x->bad = clang_getNullCursor();
  x->note[0] = 0;
}

/* The bytes of c in the input as a short string for messages ("rowptr[i + 1]"). */
void cc_cuda_scop_snippet(const struct cc_cuda_ex *x, CXCursor c, char *buf, size_t n)
{
  unsigned b, e;
  if (cc_cuda_tu_extent(&x->m->tu, c, &b, &e)) {
    size_t k = e - b < n - 1 ? e - b : n - 1;
    memcpy(buf, x->m->tu.text + b, k);
    buf[k] = 0;
    for (size_t i = 0; i < k; i++)
      if (buf[i] == '\n' || buf[i] == '\t')
        buf[i] = ' ';
  } else {
    snprintf(buf, n, "%s", "(expression)");
  }
}

int cc_cuda_scop_refuse(struct cc_cuda_ex *x, CXCursor at, const char *fmt, const char *arg)
{
  char place[512], what[512];
  cc_cuda_tu_place(&x->m->tu, clang_getRangeStart(clang_getCursorExtent(at)), place,
                   sizeof place);
  snprintf(what, sizeof what, fmt, arg);
  return cc_err_set(x->err, CC_ERR_NO_FIX, "%s: %s; loop lifting handles affine loops, "
                    "guards and array statements only (CGO 2015 Sec. 4.3)", place, what);
}

/* Refuses expression `bad` (or at if none was recorded) as "the ROLE `TEXT` is not affine". */
int cc_cuda_scop_refuse_affine(struct cc_cuda_ex *x, CXCursor at, const char *role)
{
  char snip[160], what[256];
  CXCursor c = clang_Cursor_isNull(x->bad) ? at : x->bad;
  cc_cuda_scop_snippet(x, c, snip, sizeof snip);
  if (x->note[0]) /* a builtin: name it, then the place it is in */
    snprintf(what, sizeof what, "`%%s` in the %s is not affine: %s", role, x->note);
  else
    snprintf(what, sizeof what, "the %s `%%s` is not affine", role);
  return cc_cuda_scop_refuse(x, c, what, snip);
}

/* ---- small clang helpers ---- */

CXCursor cc_cuda_scop_strip(CXCursor c)
{
  for (int i = 0; i < 64; i++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor kids[2];
    if (k != CXCursor_ParenExpr && k != CXCursor_UnexposedExpr)
      break;
    if (cc_cuda_children(c, kids, 2) != 1)
      break;
    c = kids[0];
  }
  return c;
}

/* The operator of a binary (compound assignment) operator: the first token at or after
 * the end of its left operand. 0 when it cannot be read (a macro). */
int cc_cuda_scop_binop(const struct cc_cuda_ex *x, CXCursor c, char *op, size_t n)
{
  CXCursor kids[2];
  char *s;
  if (cc_cuda_children(c, kids, 2) != 2 || !(s = cc_cuda_operator(&x->m->tu, c, kids[0])))
    return 0;
  snprintf(op, n, "%s", s);
  free(s);
  return 1;
}

/* The operator of a unary operator (cc_cuda_operator): its first token when that is
 * punctuation, else its last (a postfix ++); "" when there is none. */
void cc_cuda_scop_unop(const struct cc_cuda_ex *x, CXCursor c, char *op, size_t n)
{
  char *s = cc_cuda_operator(&x->m->tu, c, clang_getNullCursor());
  snprintf(op, n, "%s", s ? s : "");
  free(s);
}

int cc_cuda_scop_is_int(CXType t)
{
  t = clang_getCanonicalType(t);
  switch (t.kind) {
  case CXType_Int: case CXType_UInt: case CXType_Long: case CXType_ULong:
  case CXType_LongLong: case CXType_ULongLong: case CXType_Short: case CXType_UShort:
    return 1;
  default:
    return 0;
  }
}

/* The kernel parameter d is, or -1. */
int cc_cuda_scop_param(const struct cc_cuda_ex *x, CXCursor d)
{
  int n = clang_Cursor_getNumArguments(x->kernel);
  for (int i = 0; i < n; i++)
    if (clang_equalCursors(clang_Cursor_getArgument(x->kernel, i), d))
      return i;
  return -1;
}

struct cc_cuda_local *cc_cuda_scop_local(struct cc_cuda_ex *x, CXCursor d)
{
  for (size_t i = x->locals.len; i-- > 0;)
    if (clang_equalCursors(x->locals.data[i].decl, d))
      return &x->locals.data[i];
  return NULL;
}

/* ---- affine values ---- */

int cc_cuda_scop_is_const(const struct cc_cuda_xaff *v)
{
  for (int d = 0; d < 3; d++)
    if (v->tid[d] || v->ctaid[d])
      return 0;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    if (v->a.coef[i])
      return 0;
  return 1;
}

static void scale(struct cc_cuda_xaff *v, int64_t k)
{
  v->a.c *= k;
  for (int d = 0; d < 3; d++) {
    v->tid[d] *= k;
    v->ctaid[d] *= k;
  }
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    v->a.coef[i] *= k;
}

static void add_to(struct cc_cuda_xaff *v, const struct cc_cuda_xaff *w, int64_t k)
{
  v->a.c += k * w->a.c;
  for (int d = 0; d < 3; d++) {
    v->tid[d] += k * w->tid[d];
    v->ctaid[d] += k * w->ctaid[d];
  }
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    v->a.coef[i] += k * w->a.coef[i];
}

/* Replaces every parameter of v by its value from the launch (quasi-affine -> affine). */
static void by_value(const struct cc_cuda_ex *x, struct cc_cuda_xaff *v)
{
  for (int i = 0; i < x->s->nvars; i++)
    if (x->s->vars[i].kind == CC_CUDA_SV_PARAM && v->a.coef[i]) {
      v->a.c += v->a.coef[i] * x->s->vars[i].value;
      v->a.coef[i] = 0;
    }
}

int cc_cuda_scop_new_var(struct cc_cuda_ex *x, enum cc_cuda_scop_vkind kind, const char *name)
{
  struct cc_cuda_scop_var *v;
  if (x->s->nvars == CC_CUDA_SCOP_MAXV)
    return -1;
  v = &x->s->vars[x->s->nvars];
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->name = cc_xstrdup(name);
  return x->s->nvars++;
}

static int param_var(struct cc_cuda_ex *x, int p, CXCursor d)
{
  char *name;
  int v;
  for (int i = 0; i < x->s->nvars; i++)
    if (x->s->vars[i].kind == CC_CUDA_SV_PARAM && x->s->vars[i].param == p)
      return i;
  name = cc_cuda_spelling(d);
  v = cc_cuda_scop_new_var(x, CC_CUDA_SV_PARAM, name);
  free(name);
  if (v >= 0) {
    x->s->vars[v].param = p;
    x->s->vars[v].value = x->values[p];
  }
  return v;
}

int cc_cuda_scop_eval(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out);

static int eval_builtin(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out)
{
  CXCursor base = cc_cuda_first_child(c);
  enum cc_cuda_builtin b;
  char *m;
  int d;
  if (clang_Cursor_isNull(base) || clang_getCursorKind(base) != CXCursor_DeclRefExpr ||
      (b = cc_cuda_model_builtin(x->m, base)) == CC_CUDA_B_NONE || b == CC_CUDA_B_WARPSIZE)
    return 0;
  m = cc_cuda_spelling(c);
  d = m[0] == 'x' ? 0 : m[0] == 'y' ? 1 : m[0] == 'z' ? 2 : -1;
  free(m);
  if (d < 0)
    return 0;
  switch (b) {
  case CC_CUDA_B_NTID: out->a.c = x->block[d]; return 1;
  case CC_CUDA_B_NCTAID: out->a.c = x->grid[d]; return 1;
  case CC_CUDA_B_TID: case CC_CUDA_B_CTAID:
    if ((b == CC_CUDA_B_TID ? x->block[d] : x->grid[d]) == 1)
      return 1; /* the only index of an extent of 1 */
    if (b == CC_CUDA_B_TID)
      out->tid[d] = 1;
    else
      out->ctaid[d] = 1;
    return 1;
  default:
    return 0;
  }
}

static int eval_ref(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out)
{
  CXCursor d = clang_getCursorReferenced(c);
  struct cc_cuda_local *l;
  int p = cc_cuda_scop_param(x, d);
  if (p >= 0) {
    int v;
    if (!cc_cuda_scop_is_int(clang_getCursorType(d)) || (uint32_t)p >= x->nparams || !x->known[p])
      return 0;
    if ((v = param_var(x, p, d)) < 0)
      return 0;
    out->a.coef[v] = 1;
    return 1;
  }
  if (!(l = cc_cuda_scop_local(x, d)))
    return 0;
  if (l->kind == CC_CUDA_L_AFFINE) {
    *out = l->val;
    return 1;
  }
  if (l->kind == CC_CUDA_L_COUNTER && l->var >= 0) {
    out->a.coef[l->var] = 1;
    return 1;
  }
  return 0;
}

static int eval_binary(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out)
{
  CXCursor kids[2];
  struct cc_cuda_xaff l = {0}, r = {0};
  char op[8];
  if (!cc_cuda_scop_binop(x, c, op, sizeof op) || cc_cuda_children(c, kids, 2) != 2) {
    /* the operator's token is not in the file: it is written in a macro's body */
    snprintf(x->note, sizeof x->note, "its operator is written in a macro's body, which "
             "libclang 14 cannot read; write the expression out");
    return 0;
  }
  if (strcmp(op, "+") && strcmp(op, "-") && strcmp(op, "*"))
    return 0;
  if (!cc_cuda_scop_eval(x, kids[0], &l) || !cc_cuda_scop_eval(x, kids[1], &r))
    return 0;
  if (op[0] != '*') {
    *out = l;
    add_to(out, &r, op[0] == '+' ? 1 : -1);
    return 1;
  }
  /* a product is affine when one side is a constant, or becomes one with the launch's
   * parameter values (N * i with N known) */
  if (!cc_cuda_scop_is_const(&l) && !cc_cuda_scop_is_const(&r)) {
    struct cc_cuda_xaff lv = l, rv = r;
    by_value(x, &lv);
    by_value(x, &rv);
    if (cc_cuda_scop_is_const(&lv))
      l = lv;
    else if (cc_cuda_scop_is_const(&rv))
      r = rv;
    else
      return 0;
  }
  if (cc_cuda_scop_is_const(&l)) {
    *out = r;
    scale(out, l.a.c);
  } else {
    *out = l;
    scale(out, r.a.c);
  }
  return 1;
}

/* Evaluates integer expression c as an affine value; 0 (x->bad = the culprit, when
 * not yet set) when it is not one. */
int cc_cuda_scop_eval(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out)
{
  enum CXCursorKind k;
  int ok = 0;
  memset(out, 0, sizeof *out);
  c = cc_cuda_scop_strip(c);
  k = clang_getCursorKind(c);
  if (k == CXCursor_IntegerLiteral) {
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (r && clang_EvalResult_getKind(r) == CXEval_Int) {
      out->a.c = clang_EvalResult_getAsLongLong(r);
      ok = 1;
    }
    if (r)
      clang_EvalResult_dispose(r);
  } else if (k == CXCursor_CStyleCastExpr || k == CXCursor_CXXFunctionalCastExpr ||
             k == CXCursor_CXXStaticCastExpr) {
    CXCursor kids[4];
    unsigned n = cc_cuda_children(c, kids, 4);
    ok = n >= 1 && n <= 4 && cc_cuda_scop_is_int(clang_getCursorType(c)) &&
         cc_cuda_scop_eval(x, kids[n - 1], out);
  } else if (k == CXCursor_DeclRefExpr) {
    ok = eval_ref(x, c, out);
  } else if (k == CXCursor_MemberRefExpr) {
    ok = eval_builtin(x, c, out);
  } else if (k == CXCursor_BinaryOperator) {
    ok = eval_binary(x, c, out);
  } else if (k == CXCursor_UnaryOperator) {
    char op[8];
    cc_cuda_scop_unop(x, c, op, sizeof op);
    if ((!strcmp(op, "-") || !strcmp(op, "+")) && cc_cuda_scop_eval(x, cc_cuda_first_child(c), out)) {
      if (op[0] == '-')
        scale(out, -1);
      ok = 1;
    }
  }
  if (!ok && clang_Cursor_isNull(x->bad))
    x->bad = c;
  return ok;
}

/* Joins each dimension's threadIdx and blockIdx into g_d = blockIdx * blockDim +
 * threadIdx (variable d of the SCoP); 0 (and the dimension in *bad) when one is used
 * apart from that sum. */
static int finish(struct cc_cuda_ex *x, const struct cc_cuda_xaff *v, struct cc_cuda_aff *out,
                  int *bad)
{
  *out = v->a;
  for (int d = 0; d < 3; d++) {
    int64_t g;
    if (x->block[d] == 1)
      g = v->ctaid[d]; /* threadIdx is 0: g_d = blockIdx */
    else if (x->grid[d] == 1)
      g = v->tid[d];   /* blockIdx is 0: g_d = threadIdx */
    else if (v->ctaid[d] == v->tid[d] * (int64_t)x->block[d])
      g = v->tid[d];
    else { /* e.g. threadIdx alone: g_d mod blockDim, not affine in g_d */
      *bad = d;
      return 0;
    }
    if (g && d >= x->s->ngeo)
      CC_BUG("dimension %d has no geometry variable", d);
    if (g)
      out->coef[d] += g;
  }
  return 1;
}

int cc_cuda_scop_eval_final(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_aff *out)
{
  struct cc_cuda_xaff v;
  if (!cc_cuda_scop_eval(x, c, &v))
    return 0;
  int d = 0;
  if (!finish(x, &v, out, &d)) {
    char n = "xyz"[d];
    if (clang_Cursor_isNull(x->bad))
      x->bad = c;
    snprintf(x->note, sizeof x->note, "threadIdx.%c and blockIdx.%c are used apart from "
             "blockIdx.%c * blockDim.%c + threadIdx.%c", n, n, n, n, n);
    return 0;
  }
  return 1;
}

/* ---- conditions ---- */

int cc_cuda_scop_push_con(struct cc_cuda_ex *x, const struct cc_cuda_aff *a)
{
  if (x->ncons == CC_CUDA_SCOP_MAXCONS)
    return 0;
  x->cons[x->ncons++] = *a;
  return 1;
}

/* Pushes the constraints of comparison or conjunction c (negated: of !c). */
int cc_cuda_scop_cond(struct cc_cuda_ex *x, CXCursor c, int negate)
{
  CXCursor kids[2];
  struct cc_cuda_aff l, r, d;
  char op[8];
  c = cc_cuda_scop_strip(c);
  if (clang_getCursorKind(c) != CXCursor_BinaryOperator || !cc_cuda_scop_binop(x, c, op, sizeof op) ||
      cc_cuda_children(c, kids, 2) != 2) {
    if (clang_Cursor_isNull(x->bad))
      x->bad = c;
    return 0;
  }
  if ((!negate && !strcmp(op, "&&")) || (negate && !strcmp(op, "||")))
    return cc_cuda_scop_cond(x, kids[0], negate) && cc_cuda_scop_cond(x, kids[1], negate);
  if (negate) {
    static const char *const from[] = {"<", "<=", ">", ">="}, *const to[] = {">=", ">", "<=", "<"};
    int i;
    for (i = 0; i < 4 && strcmp(op, from[i]); i++)
      ;
    if (i == 4) {
      if (clang_Cursor_isNull(x->bad))
        x->bad = c;
      return 0;
    }
    snprintf(op, sizeof op, "%s", to[i]);
  }
  if (!cc_cuda_scop_eval_final(x, kids[0], &l) || !cc_cuda_scop_eval_final(x, kids[1], &r))
    return 0;
  /* d = r - l */
  d = r;
  d.c -= l.c;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    d.coef[i] -= l.coef[i];
  if (!strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, "==")) {
    struct cc_cuda_aff e = d;
    if (op[1] == 0)
      e.c -= 1;
    if (!cc_cuda_scop_push_con(x, &e))
      return 0;
  }
  if (!strcmp(op, ">") || !strcmp(op, ">=") || !strcmp(op, "==")) {
    struct cc_cuda_aff e = d;
    e.c = -e.c;
    for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
      e.coef[i] = -e.coef[i];
    if (op[1] == 0)
      e.c -= 1;
    if (!cc_cuda_scop_push_con(x, &e))
      return 0;
  }
  if (strcmp(op, "<") && strcmp(op, "<=") && strcmp(op, ">") && strcmp(op, ">=") &&
      strcmp(op, "==")) {
    if (clang_Cursor_isNull(x->bad))
      x->bad = c;
    return 0;
  }
  return 1;
}
