/* coalcheck CUDA front end: cc_cuda_scop_extract, the affine subset of a kernel read from
 * the clang AST (the polyhedral representation of CGO 2015 Sec. 4.3, Algorithm 2; our own
 * small stand-in for pet, which Debian does not package). What it accepts and refuses is
 * written in scop.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"
#include "cuda/scop.h"

#define MAX_CONS 256
#define MAX_DEPTH (CC_CUDA_SCOP_MAXV - 2)

/* An affine value during extraction: the thread index is still split into threadIdx.x
 * (tid) and blockIdx.x (ctaid); finish() joins them into g. */
struct xaff {
  struct cc_cuda_aff a;
  int64_t tid, ctaid;
};

enum local_kind {
  L_AFFINE,   /* an integer declared once with an affine initialiser: substituted */
  L_COUNTER,  /* an integer declared without initialiser: usable as a loop counter */
  L_OPAQUE    /* any other scalar with a pure initialiser: printed again, never analysed */
};

struct local {
  CXCursor decl;
  enum local_kind kind;
  struct xaff val;  /* L_AFFINE */
  int var;          /* L_COUNTER inside its loop: the loop variable, else -1 */
};

struct ex {
  const struct cc_cuda_model *m;
  struct cc_cuda_scop *s;
  const uint32_t *grid, *block;
  const int64_t *values; const uint8_t *known; uint32_t nparams;
  CXCursor kernel;
  CC_VEC(struct local) locals;
  struct cc_cuda_aff cons[MAX_CONS]; uint32_t ncons;
  int loops[MAX_DEPTH]; unsigned loop_off[MAX_DEPTH]; int nloops;
  CC_VEC(uint32_t) visible;  /* decls in scope */
  CC_VEC(struct cc_cuda_scop_stmt) stmts;
  CC_VEC(struct cc_cuda_scop_decl) decls;
  CXCursor bad;              /* the expression that was not affine */
  char note[160];            /* why, when a builtin made it so (or "") */
  struct cc_err *err;
};

/* ---- refusals ---- */

/* Forgets the culprit of the last evaluation (before a new one). */
static void fresh(struct ex *x)
{
  x->bad = clang_getNullCursor();
  x->note[0] = 0;
}

/* The bytes of c in the input as a short string for messages ("rowptr[i + 1]"). */
static void snippet(const struct ex *x, CXCursor c, char *buf, size_t n)
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

static int refuse(struct ex *x, CXCursor at, const char *fmt, const char *arg)
{
  char place[512], what[512];
  cc_cuda_tu_place(&x->m->tu, clang_getRangeStart(clang_getCursorExtent(at)), place,
                   sizeof place);
  snprintf(what, sizeof what, fmt, arg);
  return cc_err_set(x->err, CC_ERR_NO_FIX, "%s: %s; loop lifting handles affine loops, "
                    "guards and array statements only (CGO 2015 Sec. 4.3)", place, what);
}

/* Refuses expression `bad` (or at if none was recorded) as "the ROLE `TEXT` is not affine". */
static int refuse_affine(struct ex *x, CXCursor at, const char *role)
{
  char snip[160], what[256];
  CXCursor c = clang_Cursor_isNull(x->bad) ? at : x->bad;
  snippet(x, c, snip, sizeof snip);
  if (x->note[0]) /* a builtin: name it, then the place it is in */
    snprintf(what, sizeof what, "`%%s` in the %s is not affine: %s", role, x->note);
  else
    snprintf(what, sizeof what, "the %s `%%s` is not affine", role);
  return refuse(x, c, what, snip);
}

/* ---- small clang helpers ---- */

static CXCursor strip(CXCursor c)
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
static int binop(const struct ex *x, CXCursor c, char *op, size_t n)
{
  CXCursor kids[2];
  struct cc_cuda_tokens tk;
  unsigned lb, le;
  int ok = 0;
  if (cc_cuda_children(c, kids, 2) != 2 || !cc_cuda_tu_extent(&x->m->tu, kids[0], &lb, &le))
    return 0;
  cc_cuda_tokens_get(&x->m->tu, clang_getCursorExtent(c), &tk);
  for (unsigned i = 0; i < tk.n && !ok; i++)
    if (cc_cuda_token_off(&tk, i) >= le) {
      char *s = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
      snprintf(op, n, "%s", s);
      free(s);
      ok = 1;
    }
  cc_cuda_tokens_release(&tk);
  return ok;
}

/* The operator of a unary operator: its first token when that is punctuation, else its
 * last (a postfix ++). */
static void unop(const struct ex *x, CXCursor c, char *op, size_t n)
{
  struct cc_cuda_tokens tk;
  op[0] = 0;
  cc_cuda_tokens_get(&x->m->tu, clang_getCursorExtent(c), &tk);
  if (tk.n) {
    unsigned i = clang_getTokenKind(tk.tok[0]) == CXToken_Punctuation ? 0 : tk.n - 1;
    char *s = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
    snprintf(op, n, "%s", s);
    free(s);
  }
  cc_cuda_tokens_release(&tk);
}

static int is_int_type(CXType t)
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
static int param_index(const struct ex *x, CXCursor d)
{
  int n = clang_Cursor_getNumArguments(x->kernel);
  for (int i = 0; i < n; i++)
    if (clang_equalCursors(clang_Cursor_getArgument(x->kernel, i), d))
      return i;
  return -1;
}

static struct local *find_local(struct ex *x, CXCursor d)
{
  for (size_t i = x->locals.len; i-- > 0;)
    if (clang_equalCursors(x->locals.data[i].decl, d))
      return &x->locals.data[i];
  return NULL;
}

/* ---- affine values ---- */

static int is_const(const struct xaff *v)
{
  if (v->tid || v->ctaid)
    return 0;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    if (v->a.coef[i])
      return 0;
  return 1;
}

static void scale(struct xaff *v, int64_t k)
{
  v->a.c *= k;
  v->tid *= k;
  v->ctaid *= k;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    v->a.coef[i] *= k;
}

static void add_to(struct xaff *v, const struct xaff *w, int64_t k)
{
  v->a.c += k * w->a.c;
  v->tid += k * w->tid;
  v->ctaid += k * w->ctaid;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    v->a.coef[i] += k * w->a.coef[i];
}

/* Replaces every parameter of v by its value from the launch (quasi-affine -> affine). */
static void by_value(const struct ex *x, struct xaff *v)
{
  for (int i = 0; i < x->s->nvars; i++)
    if (x->s->vars[i].kind == CC_CUDA_SV_PARAM && v->a.coef[i]) {
      v->a.c += v->a.coef[i] * x->s->vars[i].value;
      v->a.coef[i] = 0;
    }
}

static int new_var(struct ex *x, enum cc_cuda_scop_vkind kind, const char *name)
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

static int param_var(struct ex *x, int p, CXCursor d)
{
  char *name;
  int v;
  for (int i = 0; i < x->s->nvars; i++)
    if (x->s->vars[i].kind == CC_CUDA_SV_PARAM && x->s->vars[i].param == p)
      return i;
  name = cc_cuda_spelling(d);
  v = new_var(x, CC_CUDA_SV_PARAM, name);
  free(name);
  if (v >= 0) {
    x->s->vars[v].param = p;
    x->s->vars[v].value = x->values[p];
  }
  return v;
}

static int eval(struct ex *x, CXCursor c, struct xaff *out);

static int eval_builtin(struct ex *x, CXCursor c, struct xaff *out)
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
    if (d != 0) {
      snprintf(x->note, sizeof x->note, "the launch has %u threads in %c; lifting handles "
               "kernels indexed in x only", x->grid[d] * x->block[d], "xyz"[d]);
      return 0;
    }
    if (b == CC_CUDA_B_TID)
      out->tid = 1;
    else
      out->ctaid = 1;
    return 1;
  default:
    return 0;
  }
}

static int eval_ref(struct ex *x, CXCursor c, struct xaff *out)
{
  CXCursor d = clang_getCursorReferenced(c);
  struct local *l;
  int p = param_index(x, d);
  if (p >= 0) {
    int v;
    if (!is_int_type(clang_getCursorType(d)) || (uint32_t)p >= x->nparams || !x->known[p])
      return 0;
    if ((v = param_var(x, p, d)) < 0)
      return 0;
    out->a.coef[v] = 1;
    return 1;
  }
  if (!(l = find_local(x, d)))
    return 0;
  if (l->kind == L_AFFINE) {
    *out = l->val;
    return 1;
  }
  if (l->kind == L_COUNTER && l->var >= 0) {
    out->a.coef[l->var] = 1;
    return 1;
  }
  return 0;
}

static int eval_binary(struct ex *x, CXCursor c, struct xaff *out)
{
  CXCursor kids[2];
  struct xaff l = {0}, r = {0};
  char op[8];
  if (!binop(x, c, op, sizeof op) || cc_cuda_children(c, kids, 2) != 2)
    return 0;
  if (strcmp(op, "+") && strcmp(op, "-") && strcmp(op, "*"))
    return 0;
  if (!eval(x, kids[0], &l) || !eval(x, kids[1], &r))
    return 0;
  if (op[0] != '*') {
    *out = l;
    add_to(out, &r, op[0] == '+' ? 1 : -1);
    return 1;
  }
  /* a product is affine when one side is a constant, or becomes one with the launch's
   * parameter values (N * i with N known) */
  if (!is_const(&l) && !is_const(&r)) {
    struct xaff lv = l, rv = r;
    by_value(x, &lv);
    by_value(x, &rv);
    if (is_const(&lv))
      l = lv;
    else if (is_const(&rv))
      r = rv;
    else
      return 0;
  }
  if (is_const(&l)) {
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
static int eval(struct ex *x, CXCursor c, struct xaff *out)
{
  enum CXCursorKind k;
  int ok = 0;
  memset(out, 0, sizeof *out);
  c = strip(c);
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
    ok = n >= 1 && n <= 4 && is_int_type(clang_getCursorType(c)) &&
         eval(x, kids[n - 1], out);
  } else if (k == CXCursor_DeclRefExpr) {
    ok = eval_ref(x, c, out);
  } else if (k == CXCursor_MemberRefExpr) {
    ok = eval_builtin(x, c, out);
  } else if (k == CXCursor_BinaryOperator) {
    ok = eval_binary(x, c, out);
  } else if (k == CXCursor_UnaryOperator) {
    char op[8];
    unop(x, c, op, sizeof op);
    if ((!strcmp(op, "-") || !strcmp(op, "+")) && eval(x, cc_cuda_first_child(c), out)) {
      if (op[0] == '-')
        scale(out, -1);
      ok = 1;
    }
  }
  if (!ok && clang_Cursor_isNull(x->bad))
    x->bad = c;
  return ok;
}

/* Joins threadIdx.x and blockIdx.x into g = blockIdx.x * blockDim.x + threadIdx.x. */
static int finish(struct ex *x, const struct xaff *v, struct cc_cuda_aff *out)
{
  int64_t g;
  if (v->ctaid == 0)
    g = v->tid;
  else if (v->ctaid == v->tid * (int64_t)x->block[0])
    g = v->tid;
  else
    return 0;
  if (x->grid[0] > 1 && v->tid && v->ctaid == 0)
    return 0; /* threadIdx.x alone is g mod blockDim.x: not affine in g */
  *out = v->a;
  out->coef[0] += g;
  return 1;
}

static int eval_final(struct ex *x, CXCursor c, struct cc_cuda_aff *out)
{
  struct xaff v;
  if (!eval(x, c, &v))
    return 0;
  if (!finish(x, &v, out)) {
    if (clang_Cursor_isNull(x->bad))
      x->bad = c;
    snprintf(x->note, sizeof x->note, "threadIdx.x and blockIdx.x are used apart from "
             "blockIdx.x * blockDim.x + threadIdx.x");
    return 0;
  }
  return 1;
}

/* ---- conditions ---- */

static int push_con(struct ex *x, const struct cc_cuda_aff *a)
{
  if (x->ncons == MAX_CONS)
    return 0;
  x->cons[x->ncons++] = *a;
  return 1;
}

/* Pushes the constraints of comparison or conjunction c (negated: of !c). */
static int cond(struct ex *x, CXCursor c, int negate)
{
  CXCursor kids[2];
  struct cc_cuda_aff l, r, d;
  char op[8];
  c = strip(c);
  if (clang_getCursorKind(c) != CXCursor_BinaryOperator || !binop(x, c, op, sizeof op) ||
      cc_cuda_children(c, kids, 2) != 2) {
    if (clang_Cursor_isNull(x->bad))
      x->bad = c;
    return 0;
  }
  if ((!negate && !strcmp(op, "&&")) || (negate && !strcmp(op, "||")))
    return cond(x, kids[0], negate) && cond(x, kids[1], negate);
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
  if (!eval_final(x, kids[0], &l) || !eval_final(x, kids[1], &r))
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
    if (!push_con(x, &e))
      return 0;
  }
  if (!strcmp(op, ">") || !strcmp(op, ">=") || !strcmp(op, "==")) {
    struct cc_cuda_aff e = d;
    e.c = -e.c;
    for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
      e.coef[i] = -e.coef[i];
    if (op[1] == 0)
      e.c -= 1;
    if (!push_con(x, &e))
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

/* ---- statements ---- */

static int walk(struct ex *x, CXCursor c, int top);

/* A reference in a statement's expression: records accesses, refuses what writes or
 * calls. Recursive over the expression tree. */
struct stmt_walk {
  struct ex *x;
  struct cc_cuda_scop_stmt *st;
  int rc;
};

static int add_access(struct ex *x, struct cc_cuda_scop_stmt *st, CXCursor sub, int write)
{
  CXCursor kids[2], base;
  struct cc_cuda_scop_access a;
  CXType t;
  int p;
  if (cc_cuda_children(sub, kids, 2) != 2)
    return refuse(x, sub, "the subscript %s cannot be read", "");
  base = strip(kids[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr ||
      (p = param_index(x, clang_getCursorReferenced(base))) < 0 ||
      (t = clang_getCursorType(clang_getCursorReferenced(base))).kind != CXType_Pointer) {
    char snip[160];
    snippet(x, kids[0], snip, sizeof snip);
    return refuse(x, sub, "the array `%s` is not a pointer parameter of the kernel", snip);
  }
  memset(&a, 0, sizeof a);
  fresh(x);
  if (!eval_final(x, kids[1], &a.sub))
    return refuse_affine(x, kids[1], "subscript");
  a.array = cc_cuda_spelling(base);
  a.write = write;
  a.elem_bytes = (uint32_t)clang_Type_getSizeOf(clang_getPointeeType(t));
  st->acc = cc_xrealloc(st->acc, (st->nacc + 1) * sizeof *st->acc);
  st->acc[st->nacc++] = a;
  return CC_OK;
}

static enum CXChildVisitResult stmt_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct stmt_walk *w = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  char op[8];
  (void)parent;
  if (k == CXCursor_CallExpr) {
    char *name = cc_cuda_spelling(c);
    w->rc = refuse(w->x, c, "a call to %s", name);
    free(name);
    return CXChildVisit_Break;
  }
  if (k == CXCursor_ArraySubscriptExpr) {
    CXCursor kids[2];
    if ((w->rc = add_access(w->x, w->st, c, 0)) != CC_OK)
      return CXChildVisit_Break;
    if (cc_cuda_children(c, kids, 2) == 2) /* the index's own subscripts were refused */
      return CXChildVisit_Continue;
  }
  if (k == CXCursor_CompoundAssignOperator ||
      (k == CXCursor_BinaryOperator && binop(w->x, c, op, sizeof op) && !strcmp(op, "="))) {
    w->rc = refuse(w->x, c, "an assignment inside an expression%s", "");
    return CXChildVisit_Break;
  }
  if (k == CXCursor_UnaryOperator) {
    unop(w->x, c, op, sizeof op);
    if (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "*") || !strcmp(op, "&")) {
      w->rc = refuse(w->x, c, "the operator %s", op);
      return CXChildVisit_Break;
    }
  }
  if (k == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    struct local *l = find_local(w->x, d);
    if (l && l->kind == L_COUNTER && l->var < 0) {
      char *name = cc_cuda_spelling(d);
      w->rc = refuse(w->x, c, "%s is read outside the loop it counts", name);
      free(name);
      return CXChildVisit_Break;
    }
  }
  return CXChildVisit_Recurse;
}

/* An expression statement `A[e] = ...;` or `A[e] op= ...;`. */
static int statement(struct ex *x, CXCursor c)
{
  CXCursor kids[2];
  struct cc_cuda_scop_stmt st;
  struct stmt_walk w;
  enum CXCursorKind k = clang_getCursorKind(c);
  char op[8] = "";
  unsigned line, col;
  int compound = k == CXCursor_CompoundAssignOperator;
  if (!(compound || (k == CXCursor_BinaryOperator && binop(x, c, op, sizeof op) &&
                     !strcmp(op, "="))) ||
      cc_cuda_children(c, kids, 2) != 2 ||
      clang_getCursorKind(strip(kids[0])) != CXCursor_ArraySubscriptExpr) {
    char snip[160];
    if (k == CXCursor_CallExpr) {
      char *name = cc_cuda_spelling(c);
      int rc = refuse(x, c, "a call to %s", name);
      free(name);
      return rc;
    }
    snippet(x, c, snip, sizeof snip);
    return refuse(x, c, "the statement `%s` does not assign an array element", snip);
  }
  memset(&st, 0, sizeof st);
  if (!cc_cuda_tu_extent(&x->m->tu, c, &st.b, &st.e) || !cc_cuda_model_whole(x->m, st.b, st.e))
    return refuse(x, c, "the statement is partly written by a macro%s", "");
  cc_cuda_tu_linecol(clang_getCursorLocation(c), &line, &col);
  st.line = line;
  st.column = col;
  st.nloops = x->nloops;
  memcpy(st.loops, x->loops, sizeof st.loops[0] * (size_t)x->nloops);
  memcpy(st.beta, x->loop_off, sizeof st.beta[0] * (size_t)x->nloops);
  st.beta[x->nloops] = st.b;
  w.x = x;
  w.st = &st;
  w.rc = CC_OK;
  if ((w.rc = add_access(x, &st, strip(kids[0]), 1)) == CC_OK && compound)
    w.rc = add_access(x, &st, strip(kids[0]), 0);
  if (w.rc == CC_OK) {
    CXCursor sub[2];
    /* the written element's subscript, then the right-hand side */
    cc_cuda_children(strip(kids[0]), sub, 2);
    clang_visitChildren(sub[1], stmt_visit, &w);
    if (w.rc == CC_OK)
      clang_visitChildren(kids[1], stmt_visit, &w);
  }
  if (w.rc != CC_OK) {
    for (uint32_t i = 0; i < st.nacc; i++)
      free(st.acc[i].array);
    free(st.acc);
    return w.rc;
  }
  st.ncons = x->ncons;
  st.cons = cc_xmalloc((x->ncons ? x->ncons : 1) * sizeof *st.cons);
  memcpy(st.cons, x->cons, x->ncons * sizeof *st.cons);
  st.ndecls = (uint32_t)x->visible.len;
  st.decls = cc_xmalloc((st.ndecls ? st.ndecls : 1) * sizeof *st.decls);
  memcpy(st.decls, x->visible.data, st.ndecls * sizeof *st.decls);
  CC_VEC_PUSH(&x->stmts, st);
  return CC_OK;
}

/* 1 when expression c reads no memory and calls nothing (it may be evaluated again). */
static enum CXChildVisitResult pure_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  enum CXCursorKind k = clang_getCursorKind(c);
  (void)parent;
  if (k == CXCursor_ArraySubscriptExpr || k == CXCursor_CallExpr ||
      k == CXCursor_UnaryOperator || k == CXCursor_CompoundAssignOperator) {
    *(int *)data = 0;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Recurse;
}

static int declaration(struct ex *x, CXCursor c)
{
  CXCursor kids[16];
  unsigned n = cc_cuda_children(c, kids, 16);
  struct cc_cuda_scop_decl d;
  if (n > 16)
    return refuse(x, c, "a declaration of more than 16 variables%s", "");
  for (unsigned i = 0; i < n; i++) {
    struct local l;
    CXCursor init[4];
    unsigned ni;
    CXType t = clang_getCursorType(kids[i]);
    char *name = cc_cuda_spelling(kids[i]);
    int rc = CC_OK;
    memset(&l, 0, sizeof l);
    l.decl = kids[i];
    l.var = -1;
    if (clang_getCursorKind(kids[i]) != CXCursor_VarDecl || t.kind == CXType_ConstantArray ||
        clang_getCursorKind(clang_getCursorSemanticParent(kids[i])) != CXCursor_FunctionDecl ||
        clang_Cursor_hasAttrs(kids[i]))
      rc = refuse(x, kids[i], "the declaration of %s (only scalar local variables)", name);
    ni = cc_cuda_children(kids[i], init, 4);
    if (rc == CC_OK && ni == 0) {
      l.kind = L_COUNTER;
      if (!is_int_type(t))
        rc = refuse(x, kids[i], "%s is declared without a value and is not an integer", name);
    } else if (rc == CC_OK) {
      CXCursor e = init[ni - 1];
      fresh(x);
      if (is_int_type(t) && eval(x, e, &l.val)) {
        l.kind = L_AFFINE;
      } else {
        int pure = 1;
        clang_visitChildren(kids[i], pure_visit, &pure);
        if (is_int_type(t)) {
          char role[200];
          snprintf(role, sizeof role, "initialiser of %s", name);
          rc = refuse_affine(x, e, role);
        } else if (!pure) {
          rc = refuse(x, kids[i], "the local variable %s is initialised from memory or a call "
                      "(it would be read again where each statement runs)", name);
        }
        l.kind = L_OPAQUE;
      }
    }
    free(name);
    if (rc != CC_OK)
      return rc;
    CC_VEC_PUSH(&x->locals, l);
  }
  if (!cc_cuda_tu_extent(&x->m->tu, c, &d.b, &d.e) || !cc_cuda_model_whole(x->m, d.b, d.e))
    return refuse(x, c, "the declaration is partly written by a macro%s", "");
  CC_VEC_PUSH(&x->decls, d);
  CC_VEC_PUSH(&x->visible, (uint32_t)(x->decls.len - 1));
  return CC_OK;
}

/* The counter of a for's init: `int i = lo` or `i = lo`; *l the local, *lo the bound. */
static int for_init(struct ex *x, CXCursor init, struct local **l, struct cc_cuda_aff *lo,
                    char **type)
{
  CXCursor kids[2];
  enum CXCursorKind k = clang_getCursorKind(init);
  char op[8];
  *type = NULL;
  if (k == CXCursor_DeclStmt) {
    CXCursor v[2], e[4];
    unsigned ne;
    if (cc_cuda_children(init, v, 2) != 1 || !is_int_type(clang_getCursorType(v[0])) ||
        (ne = cc_cuda_children(v[0], e, 4)) == 0)
      return 0;
    if (!eval_final(x, e[ne - 1], lo))
      return 0;
    {
      struct local nl;
      memset(&nl, 0, sizeof nl);
      nl.decl = v[0];
      nl.kind = L_COUNTER;
      nl.var = -1;
      CC_VEC_PUSH(&x->locals, nl);
      *l = &x->locals.data[x->locals.len - 1];
    }
    *type = cc_cuda_str(clang_getTypeSpelling(clang_getCursorType(v[0])));
    return 1;
  }
  if (k != CXCursor_BinaryOperator || !binop(x, init, op, sizeof op) || strcmp(op, "=") ||
      cc_cuda_children(init, kids, 2) != 2 ||
      clang_getCursorKind(strip(kids[0])) != CXCursor_DeclRefExpr)
    return 0;
  *l = find_local(x, clang_getCursorReferenced(strip(kids[0])));
  if (!*l || (*l)->kind != L_COUNTER || (*l)->var >= 0)
    return 0;
  return eval_final(x, kids[1], lo);
}

/* 1 when c refers to the local l. */
static int refers(CXCursor c, const struct local *l)
{
  c = strip(c);
  return clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(c), l->decl);
}

/* The increment: i++, ++i, i += 1. */
static int for_inc(struct ex *x, CXCursor inc, const struct local *l)
{
  enum CXCursorKind k = clang_getCursorKind(inc);
  char op[8];
  if (k == CXCursor_UnaryOperator) {
    unop(x, inc, op, sizeof op);
    return !strcmp(op, "++") && refers(cc_cuda_first_child(inc), l);
  }
  if (k == CXCursor_CompoundAssignOperator && binop(x, inc, op, sizeof op) && !strcmp(op, "+=")) {
    CXCursor kids[2];
    struct xaff one;
    return cc_cuda_children(inc, kids, 2) == 2 && refers(kids[0], l) && eval(x, kids[1], &one) &&
           is_const(&one) && one.a.c == 1;
  }
  return 0;
}

static int loop(struct ex *x, CXCursor c)
{
  CXCursor kids[4];
  struct local *l = NULL;
  struct cc_cuda_aff lo, cmp;
  char *type = NULL, *name;
  unsigned line, col, off;
  uint32_t ncons = x->ncons;
  size_t nlocals = x->locals.len, nvisible = x->visible.len;
  int v, rc;
  if (cc_cuda_children(c, kids, 4) != 4)
    return refuse(x, c, "a for loop without all of its init, condition and increment%s", "");
  if (x->nloops == MAX_DEPTH)
    return refuse(x, c, "a loop nest deeper than %s", "22");
  fresh(x);
  if (!for_init(x, kids[0], &l, &lo, &type))
    return refuse_affine(x, kids[0], "loop start");
  name = cc_cuda_spelling(l->decl);
  v = new_var(x, CC_CUDA_SV_LOOP, name);
  free(name);
  if (v < 0) {
    free(type);
    return refuse(x, c, "more than %s loops and parameters", "24");
  }
  cc_cuda_tu_linecol(clang_getCursorLocation(c), &line, &col);
  x->s->vars[v].type = type;
  x->s->vars[v].line = line;
  x->s->vars[v].column = col;
  l->var = v;
  /* lo <= i */
  cmp = lo;
  for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
    cmp.coef[i] = -cmp.coef[i];
  cmp.c = -cmp.c;
  cmp.coef[v] += 1;
  if (!push_con(x, &cmp))
    return refuse(x, c, "more than %s constraints", "256");
  fresh(x);
  {
    CXCursor cc[2], cs = strip(kids[1]);
    char op[8];
    if (clang_getCursorKind(cs) != CXCursor_BinaryOperator || !binop(x, cs, op, sizeof op) ||
        cc_cuda_children(cs, cc, 2) != 2 || !(refers(cc[0], l) || refers(cc[1], l)) ||
        !strcmp(op, "==") || !strcmp(op, "&&"))
      return refuse_affine(x, kids[1], "loop condition");
    if (!cond(x, cs, 0))
      return refuse_affine(x, kids[1], "loop bound");
  }
  if (!for_inc(x, kids[2], l))
    return refuse(x, kids[2], "the loop step is not +1 (only unit steps are lifted)%s", "");
  off = 0;
  cc_cuda_tu_off(&x->m->tu, clang_getCursorLocation(c), &off);
  x->loops[x->nloops] = v;
  x->loop_off[x->nloops++] = off;
  rc = walk(x, kids[3], 0);
  x->nloops--;
  x->ncons = ncons;
  l = NULL;
  /* a counter declared before the loop counts nothing after it */
  for (size_t i = 0; i < x->locals.len; i++)
    if (x->locals.data[i].var == v)
      x->locals.data[i].var = -1;
  x->locals.len = nlocals > x->locals.len ? x->locals.len : nlocals;
  x->visible.len = nvisible;
  return rc;
}

static int branch(struct ex *x, CXCursor c, int top)
{
  CXCursor kids[3];
  uint32_t ncons = x->ncons;
  unsigned n = cc_cuda_children(c, kids, 3);
  int rc;
  if (n < 2 || n > 3 || clang_getCursorKind(kids[0]) == CXCursor_DeclStmt)
    return refuse(x, c, "an if with an init or a declared condition%s", "");
  fresh(x);
  if (n == 2 && clang_getCursorKind(kids[1]) == CXCursor_ReturnStmt) {
    /* `if (c) return;` at the top level: !c bounds the rest of the kernel */
    if (!top)
      return refuse(x, kids[1], "a return inside a loop or a branch%s", "");
    if (!cond(x, kids[0], 1))
      return refuse_affine(x, kids[0], "condition");
    return CC_OK;
  }
  if (!cond(x, kids[0], 0))
    return refuse_affine(x, kids[0], "condition");
  rc = walk(x, kids[1], 0);
  x->ncons = ncons;
  if (rc == CC_OK && n == 3) {
    /* else: the negated comparison (a conjunction's negation is not convex) */
    fresh(x);
    if (!cond(x, kids[0], 1))
      return refuse_affine(x, kids[0], "condition (negated, for the else branch)");
    rc = walk(x, kids[2], 0);
    x->ncons = ncons;
  }
  return rc;
}

static int walk(struct ex *x, CXCursor c, int top)
{
  enum CXCursorKind k = clang_getCursorKind(c);
  switch (k) {
  case CXCursor_CompoundStmt: {
    CXCursor kids[512];
    unsigned n = cc_cuda_children(c, kids, 512);
    size_t nvisible = x->visible.len, nlocals = x->locals.len;
    int rc = CC_OK;
    if (n > 512)
      return refuse(x, c, "a block of more than %s statements", "512");
    for (unsigned i = 0; i < n && rc == CC_OK; i++)
      rc = walk(x, kids[i], top);
    if (!top) {
      x->visible.len = nvisible;
      x->locals.len = nlocals;
    }
    return rc;
  }
  case CXCursor_DeclStmt:
    return declaration(x, c);
  case CXCursor_IfStmt:
    return branch(x, c, top);
  case CXCursor_ForStmt:
    return loop(x, c);
  case CXCursor_NullStmt:
    return CC_OK;
  case CXCursor_BinaryOperator: case CXCursor_CompoundAssignOperator: case CXCursor_CallExpr:
  case CXCursor_UnexposedExpr:
    return statement(x, c);
  default: {
    char *kind = cc_cuda_str(clang_getCursorKindSpelling(k));
    int rc = refuse(x, c, "a %s", kind);
    free(kind);
    return rc;
  }
  }
}

/* ---- entry ---- */

static void release_ex(struct ex *x)
{
  CC_VEC_FREE(&x->locals);
  CC_VEC_FREE(&x->visible);
  for (size_t i = 0; i < x->stmts.len; i++) {
    struct cc_cuda_scop_stmt *st = &x->stmts.data[i];
    for (uint32_t j = 0; j < st->nacc; j++)
      free(st->acc[j].array);
    free(st->acc);
    free(st->cons);
    free(st->decls);
  }
  CC_VEC_FREE(&x->stmts);
  CC_VEC_FREE(&x->decls);
}

static int extract(struct ex *x, struct cc_cuda_scop *out)
{
  CXCursor kids[64], body = clang_getNullCursor();
  unsigned n = cc_cuda_children(x->kernel, kids, 64);
  struct cc_cuda_aff lo0, hi0;
  int rc;
  for (unsigned i = 0; i < n && i < 64; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_CompoundStmt)
      body = kids[i];
  if (clang_Cursor_isNull(body) || !cc_cuda_tu_extent(&x->m->tu, body, &out->body_b, &out->body_e))
    return refuse(x, x->kernel, "kernel %s has no body in the file", x->m->kernel_name);
  if (clang_getCursorKind(x->kernel) != CXCursor_FunctionDecl)
    return refuse(x, x->kernel, "kernel %s is a template", x->m->kernel_name);
  if (x->grid[2] > 1 || x->block[2] > 1 || x->grid[1] > 1 || x->block[1] > 1) {
    /* y and z builtins with extent > 1 are refused where read; the launch itself is fine */
  }
  new_var(x, CC_CUDA_SV_GEO, "__cc_g");
  out->extent = (uint64_t)x->grid[0] * x->block[0];
  /* 0 <= g <= extent - 1 */
  memset(&lo0, 0, sizeof lo0);
  lo0.coef[0] = 1;
  memset(&hi0, 0, sizeof hi0);
  hi0.coef[0] = -1;
  hi0.c = (int64_t)out->extent - 1;
  push_con(x, &lo0);
  push_con(x, &hi0);
  rc = walk(x, body, 1);
  if (rc == CC_OK && x->stmts.len == 0)
    rc = refuse(x, x->kernel, "kernel %s writes no array%s", "");
  return rc;
}

int cc_cuda_scop_extract(const char *path, const char *text, size_t len, const char *kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const int64_t *values, const uint8_t *known, uint32_t nparams,
                         const char *const *extra_args, size_t nextra,
                         struct cc_cuda_scop *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  struct ex x;
  unsigned line, col;
  int rc;
  memset(out, 0, sizeof *out);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  memset(&x, 0, sizeof x);
  x.m = &m;
  x.s = out;
  x.grid = grid;
  x.block = block;
  x.values = values;
  x.known = known;
  x.nparams = nparams;
  x.kernel = m.fns.data[m.kernel].def;
  x.err = err;
  fresh(&x);
  out->path = cc_xstrdup(path);
  out->block_x = block[0];
  out->grid_x = grid[0];
  cc_cuda_tu_linecol(clang_getCursorLocation(x.kernel), &line, &col);
  out->line = line;
  out->column = col;
  rc = extract(&x, out);
  if (rc == CC_OK) {
    out->nstmts = (uint32_t)x.stmts.len;
    out->stmts = x.stmts.data;
    x.stmts.data = NULL;
    x.stmts.len = 0;
    out->ndecls = (uint32_t)x.decls.len;
    out->decls = x.decls.data;
    x.decls.data = NULL;
    x.decls.len = 0;
  }
  release_ex(&x);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_scop_release(out);
  return rc;
}
