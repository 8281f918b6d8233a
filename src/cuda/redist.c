/* coalcheck CUDA front end: cc_cuda_redistribute, a per-thread reduction loop spread over
 * the 32 lanes of a warp (CGO 2015 Sec. 4.4, Algorithm 3): which loops qualify, what is
 * refused, and where the stores outside the loops are. The text is made by
 * redist_emit.c, the cursor questions redist_ast.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

/* The deepest nesting walked (the model's walk refuses deeper input already). */
#define MAX_DEPTH 2000
/* CUDA's largest grid.x (CUDA C Programming Guide, technical specifications). */
#define GRID_X_MAX 2147483647ull

struct redist {
  const struct cc_cuda_model *m;
  const struct cc_cuda_redist_in *in;
  CXCursor kernel, body;
  CC_VEC(struct cc_cuda_rloop) loops;
  CC_VEC(struct cc_cuda_rstore) stores;
  int status;                 /* the first refusal wins */
  struct cc_err *err;
};

/* ---- small helpers ---- */

static int fail(struct redist *r, CXCursor at, const char *fmt, ...)
{
  char place[512], msg[1536];
  va_list ap;
  if (r->status != CC_OK)
    return r->status;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cc_cuda_tu_place(&r->m->tu, clang_getCursorLocation(at), place, sizeof place);
  return r->status = cc_err_set(r->err, CC_ERR_NO_FIX, "%s: %s", place, msg);
}

/* A loop's refusal, kept in the loop (the kernel may still have another loop). */
static int loop_fail(struct redist *r, struct cc_cuda_rloop *l, CXCursor at, const char *fmt, ...)
{
  char msg[sizeof l->why];
  size_t n;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cc_cuda_tu_place(&r->m->tu, clang_getCursorLocation(at), l->why, sizeof l->why);
  n = strlen(l->why);
  snprintf(l->why + n, sizeof l->why - n, ": %.*s", (int)(sizeof l->why - n), msg);
  return 0;
}

static enum CXCursorKind kind(CXCursor c)
{
  return clang_getCursorKind(c);
}

/* ---- the kernel's parameters and the trip count ---- */

/* The value of integer expression c: a constant, a kernel parameter whose value is known,
 * or + - * / of those. 1 and *v, or 0. */
static int eval(const struct redist *r, CXCursor c, int64_t *v, int depth)
{
  CXEvalResult ev;
  CXCursor kids[2];
  unsigned n;
  if (depth > 32)
    return 0;
  c = cc_cuda_rd_strip(c);
  if (kind(c) == CXCursor_IntegerLiteral || kind(c) == CXCursor_BinaryOperator ||
      kind(c) == CXCursor_DeclRefExpr) {
    if ((ev = clang_Cursor_Evaluate(c))) {
      int ok = clang_EvalResult_getKind(ev) == CXEval_Int;
      if (ok)
        *v = clang_EvalResult_getAsLongLong(ev);
      clang_EvalResult_dispose(ev);
      if (ok)
        return 1;
    }
  }
  n = cc_cuda_children(c, kids, 2);
  if (kind(c) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    int np = clang_Cursor_getNumArguments(r->kernel);
    for (int i = 0; i < np && (uint32_t)i < r->in->nparams; i++)
      if (clang_equalCursors(clang_Cursor_getArgument(r->kernel, (unsigned)i), d) &&
          r->in->param_known && r->in->param_known[i]) {
        *v = r->in->param_values[i];
        return 1;
      }
    return 0;
  }
  if (kind(c) == CXCursor_CStyleCastExpr && n >= 1)
    return cc_cuda_rd_any_integer(cc_cuda_rd_type_kind(c)) && eval(r, kids[n - 1], v, depth + 1);
  if (kind(c) == CXCursor_BinaryOperator && n == 2) {
    int64_t a, b;
    char *op = cc_cuda_rd_operator(r->m, c, kids[0]);
    int ok = op && eval(r, kids[0], &a, depth + 1) && eval(r, kids[1], &b, depth + 1);
    if (ok && strcmp(op, "+") == 0)
      *v = a + b;
    else if (ok && strcmp(op, "-") == 0)
      *v = a - b;
    else if (ok && strcmp(op, "*") == 0)
      *v = a * b;
    else if (ok && strcmp(op, "/") == 0 && b != 0)
      *v = a / b;
    else
      ok = 0;
    free(op);
    return ok;
  }
  return 0;
}

/* ---- walking a subtree ---- */

struct sub {
  struct redist *r;
  void (*fn)(struct sub *s, CXCursor c, CXCursor parent, unsigned index);
  void *ctx;
  unsigned depth, index;
  CXCursor parent;
};

static enum CXChildVisitResult sub_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct sub *s = data;
  struct sub kid = *s;
  (void)parent;
  if (s->depth > MAX_DEPTH)
    return CXChildVisit_Break;
  s->fn(s, c, s->parent, s->index++);
  kid.depth = s->depth + 1;
  kid.index = 0;
  kid.parent = c;
  clang_visitChildren(c, sub_visit, &kid);
  return CXChildVisit_Continue;
}

/* Calls fn on every cursor below root (pre-order), with its parent and its index among
 * the parent's children. */
static void walk(struct redist *r, CXCursor root,
                 void (*fn)(struct sub *, CXCursor, CXCursor, unsigned),
                 void *ctx)
{
  struct sub s = {r, fn, ctx, 0, 0, root};
  clang_visitChildren(root, sub_visit, &s);
}

static int inside(unsigned off, unsigned b, unsigned e)
{
  return off >= b && off < e;
}

/* ---- the whole kernel: what no loop may have ---- */

static void kernel_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct redist *r = s->r;
  char *name;
  (void)parent;
  (void)index;
  if (kind(c) == CXCursor_VarDecl && cc_cuda_rd_has_attr(c, CXCursor_CUDASharedAttr)) {
    fail(r, c, "__shared__ variable in kernel %s; its threads are regrouped into other "
         "CTAs, so shared memory would not be shared as before: redistribute by hand",
         r->m->kernel_name);
  } else if (kind(c) == CXCursor_AsmStmt) {
    fail(r, c, "inline asm in kernel %s; coalcheck cannot tell what it reads or stores "
         "when 32 lanes run it", r->m->kernel_name);
  } else if (kind(c) == CXCursor_CallExpr && (name = cc_cuda_rd_callee(c))) {
    int fn = cc_cuda_rd_model_fn(r->m, c);
    if (cc_cuda_rd_barrier(name))
      fail(r, c, "barrier %s in kernel %s; its threads are regrouped into other CTAs, so a "
           "CTA-wide barrier would not order the same threads", name, r->m->kernel_name);
    else if (cc_cuda_rd_warp_op(name))
      fail(r, c, "warp intrinsic %s in kernel %s; a warp now plays one thread of the "
           "original, so warp-level operations would see other lanes", name,
           r->m->kernel_name);
    else if (fn >= 0 && fn != r->m->kernel && r->m->fns.data[fn].reads_tree)
      fail(r, c, "%s reads the thread geometry (threadIdx, blockIdx, blockDim or gridDim); "
           "the fixed kernel plays the original threads through local copies of those "
           "that a called function does not see: inline it into %s", name,
           r->m->kernel_name);
    free(name);
  }
}

/* ---- a loop ---- */

struct loop_scan {
  struct cc_cuda_rloop *l;
  CXCursor var;
  unsigned body_b;          /* writes of var before it are the loop's init and step */
  int bad;
};

static int target_index(const struct cc_cuda_rloop *l, const char *key)
{
  for (size_t i = 0; i < l->targets.len; i++)
    if (strcmp(l->targets.data[i].key, key) == 0)
      return (int)i;
  return -1;
}

static int renamed(const struct cc_cuda_rloop *l, unsigned off)
{
  for (size_t i = 0; i < l->renames.len; i++)
    if (inside(off, l->renames.data[i].b, l->renames.data[i].e))
      return 1;
  return 0;
}

/* Everything inside the loop other than its shape: no escape, no other write, no target
 * read, no synchronisation or warp operation, no atomic. */
static void loop_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct loop_scan *ls = s->ctx;
  struct cc_cuda_rloop *l = ls->l;
  struct redist *r = s->r;
  enum CXCursorKind k = kind(c);
  unsigned off = cc_cuda_rd_off(r->m, c);
  CXCursor t;
  char *name;
  (void)parent;
  (void)index;
  if (ls->bad)
    return;
  if (k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt || k == CXCursor_ReturnStmt ||
      k == CXCursor_GotoStmt || k == CXCursor_IndirectGotoStmt) {
    static const char *const names[] = {"break", "continue", "return", "goto"};
    int w = k == CXCursor_BreakStmt ? 0 : k == CXCursor_ContinueStmt ? 1 :
            k == CXCursor_ReturnStmt ? 2 : 3;
    ls->bad = !loop_fail(r, l, c, "`%s` in the loop over %s; the lanes split its "
                         "iterations, so every iteration must run: rewrite the loop without "
                         "leaving it early", names[w], l->info.var);
  } else if (k == CXCursor_CallExpr && (name = cc_cuda_rd_callee(c))) {
    if (cc_cuda_rd_atomic(name))
      ls->bad = !loop_fail(r, l, c, "atomic %s in the loop over %s; only accumulations "
                           "into a local or a memory location are redistributed", name,
                           l->info.var);
    free(name);
  } else if (cc_cuda_rd_is_assignment(k) && !renamed(l, off) && cc_cuda_rd_writes(r->m, c, &t) &&
             !(off < ls->body_b && kind(cc_cuda_rd_strip(t)) == CXCursor_DeclRefExpr &&
               clang_equalCursors(clang_getCursorReferenced(cc_cuda_rd_strip(t)), ls->var))) {
    char *what = cc_cuda_spelling(cc_cuda_rd_strip(t));
    ls->bad = !loop_fail(r, l, c, "the loop over %s writes %s here, which is not one of "
                         "its accumulations (`T += E;` statements); only accumulations are "
                         "split over the lanes", l->info.var, what[0] ? what : "memory");
    free(what);
  } else if (k == CXCursor_DeclRefExpr && !renamed(l, off)) {
    CXCursor d = clang_getCursorReferenced(c);
    for (size_t i = 0; i < l->targets.len && !ls->bad; i++)
      if (!clang_Cursor_isNull(l->targets.data[i].decl) &&
          clang_equalCursors(l->targets.data[i].decl, d))
        ls->bad = !loop_fail(r, l, c, "the loop over %s reads the variable of its "
                             "accumulation target %s; the lanes' partial sums are added only "
                             "after the loop, so the target may not be read inside it",
                             l->info.var, l->targets.data[i].text);
  }
}

/* What the lvalue of a memory target may contain: no call, no write, not the loop
 * variable nor the body's own variables. */
struct lvalue_scan {
  struct cc_cuda_rloop *l;
  CXCursor var;
  unsigned body_b, body_e;
  int bad;
  CXCursor base;            /* the first variable of pointer or array type */
};

static void lvalue_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct lvalue_scan *ls = s->ctx;
  struct redist *r = s->r;
  CXCursor t;
  (void)parent;
  (void)index;
  if (ls->bad)
    return;
  if (kind(c) == CXCursor_CallExpr ||
      (cc_cuda_rd_is_assignment(kind(c)) && cc_cuda_rd_writes(r->m, c, &t))) {
    ls->bad = !loop_fail(r, ls->l, c, "the target of an accumulation in the loop over %s "
                         "has a side effect; it is evaluated once after the loop", ls->l->info.var);
  } else if (kind(c) == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    enum CXTypeKind tk = clang_getCanonicalType(clang_getCursorType(d)).kind;
    if (clang_equalCursors(d, ls->var) || inside(cc_cuda_rd_off(r->m, d), ls->body_b, ls->body_e))
      ls->bad = !loop_fail(r, ls->l, c, "the target of an accumulation depends on the loop "
                           "over %s (it names a variable of the loop); only a reduction "
                           "into one location per run of the loop is redistributed",
                           ls->l->info.var);
    else if (clang_Cursor_isNull(ls->base) &&
             (tk == CXType_Pointer || tk == CXType_ConstantArray || tk == CXType_IncompleteArray))
      ls->base = d;
  }
}

/* Registers accumulation target lhs (the left-hand side of `T += E`); its index, or -1
 * with the loop's refusal set. */
static int add_target(struct redist *r, struct cc_cuda_rloop *l, CXCursor lhs, CXCursor var,
                      unsigned body_b, unsigned body_e)
{
  struct cc_cuda_rtarget t;
  unsigned b, e;
  enum CXTypeKind tk = cc_cuda_rd_type_kind(lhs);
  char *key;
  int idx;
  lhs = cc_cuda_rd_strip(lhs);
  if (!cc_cuda_rd_bytes(r->m, lhs, &b, &e))
    return loop_fail(r, l, lhs, "an accumulation target of the loop over %s is written "
                     "through a macro; write it in the file", l->info.var) - 1;
  key = cc_cuda_rd_squeeze(r->m->tu.text, b, e);
  if ((idx = target_index(l, key)) >= 0) {
    free(key);
    return idx;
  }
  memset(&t, 0, sizeof t);
  t.decl = clang_getNullCursor();
  if (!cc_cuda_rd_integer(tk) && !cc_cuda_rd_float(tk)) {
    char *ty = cc_cuda_str(clang_getTypeSpelling(clang_getCursorType(lhs)));
    loop_fail(r, l, lhs, "the loop over %s accumulates into a value of type %s; the warp's "
              "sum is formed for int, unsigned, long, long long, float and double only",
              l->info.var, ty);
    free(ty);
    free(key);
    return -1;
  }
  if (kind(lhs) == CXCursor_DeclRefExpr && cc_cuda_rd_private(clang_getCursorReferenced(lhs))) {
    CXCursor d = clang_getCursorReferenced(lhs);
    if (clang_equalCursors(d, var) || inside(cc_cuda_rd_off(r->m, d), body_b, body_e)) {
      loop_fail(r, l, lhs, "the loop over %s accumulates into %s, a variable of the loop "
                "itself; only a variable declared before the loop is a reduction target",
                l->info.var, key);
      free(key);
      return -1;
    }
    t.decl = d;
  } else {
    struct lvalue_scan ls = {l, var, body_b, body_e, 0, clang_getNullCursor()};
    struct sub s = {r, lvalue_visit, &ls, 0, 0, lhs};
    sub_visit(lhs, clang_getNullCursor(), &s);
    if (ls.bad) {
      free(key);
      return -1;
    }
    t.decl = ls.base;
    t.memory = cc_cuda_rd_shared_lvalue(lhs);
  }
  t.key = key;
  t.text = cc_xstrndup(r->m->tu.text + b, e - b);
  t.type = cc_cuda_str(clang_getTypeSpelling(clang_getCanonicalType(clang_getCursorType(lhs))));
  t.integer = cc_cuda_rd_integer(tk);
  t.size = (uint32_t)clang_Type_getSizeOf(clang_getCanonicalType(clang_getCursorType(lhs)));
  CC_VEC_PUSH(&l->targets, t);
  return (int)l->targets.len - 1;
}

static void add_rename(struct redist *r, struct cc_cuda_rloop *l, CXCursor at, int target)
{
  struct cc_cuda_rrename rn = {0, 0, (uint32_t)target};
  cc_cuda_rd_bytes(r->m, cc_cuda_rd_strip(at), &rn.b, &rn.e);
  CC_VEC_PUSH(&l->renames, rn);
}

/* The leftmost operand of a chain of + and - (`T + a - b`), and whether every operator of
 * the chain is + or -. */
static CXCursor chain_head(const struct redist *r, CXCursor c)
{
  for (int i = 0; i < 256; i++) {
    CXCursor kids[2];
    char *op;
    int ok;
    c = cc_cuda_rd_strip(c);
    if (kind(c) != CXCursor_BinaryOperator || cc_cuda_children(c, kids, 2) != 2)
      return c;
    op = cc_cuda_rd_operator(r->m, c, kids[0]);
    ok = op && (strcmp(op, "+") == 0 || strcmp(op, "-") == 0);
    free(op);
    if (!ok)
      return clang_getNullCursor();
    c = kids[0];
  }
  return clang_getNullCursor();
}

/* 1 when the right-hand side's type mixes floating-point terms into an integer target
 * (each step would truncate: not a reassociable sum). */
static int truncating(CXCursor target, CXCursor rhs)
{
  return cc_cuda_rd_integer(cc_cuda_rd_type_kind(target)) &&
         !cc_cuda_rd_any_integer(cc_cuda_rd_type_kind(cc_cuda_rd_strip(rhs)));
}

/* One statement of the loop's body: a declaration, an empty statement or an
 * accumulation. 1 when it is one of those (targets and renames recorded). */
static int body_statement(struct redist *r, struct cc_cuda_rloop *l, CXCursor st, CXCursor var,
                          unsigned body_b, unsigned body_e)
{
  CXCursor kids[2], head;
  enum CXCursorKind k = kind(st);
  int t;
  if (k == CXCursor_DeclStmt || k == CXCursor_NullStmt)
    return 1;
  if (k == CXCursor_CompoundAssignOperator && cc_cuda_children(st, kids, 2) == 2 &&
      (cc_cuda_rd_op_is(r->m, st, kids[0], "+=") || cc_cuda_rd_op_is(r->m, st, kids[0], "-="))) {
    if (truncating(kids[0], kids[1]))
      return loop_fail(r, l, st, "the accumulation into an integer adds a floating-point "
                       "value, rounded at every step; such a sum cannot be reassociated");
    if ((t = add_target(r, l, kids[0], var, body_b, body_e)) < 0)
      return 0;
    add_rename(r, l, kids[0], t);
    return 1;
  }
  if (k == CXCursor_BinaryOperator && cc_cuda_children(st, kids, 2) == 2 &&
      cc_cuda_rd_op_is(r->m, st, kids[0], "=") &&
      !clang_Cursor_isNull(head = chain_head(r, kids[1]))) {
    unsigned lb, le, hb, he;
    int same = cc_cuda_rd_bytes(r->m, cc_cuda_rd_strip(kids[0]), &lb, &le) &&
               cc_cuda_rd_bytes(r->m, head, &hb, &he);
    char *a = same ? cc_cuda_rd_squeeze(r->m->tu.text, lb, le) : NULL;
    char *b = same ? cc_cuda_rd_squeeze(r->m->tu.text, hb, he) : NULL;
    same = same && strcmp(a, b) == 0 && !clang_equalCursors(cc_cuda_rd_strip(kids[1]), head);
    free(a);
    free(b);
    if (same) {
      if (truncating(kids[0], kids[1]))
        return loop_fail(r, l, st, "the accumulation into an integer adds a floating-point "
                         "value, rounded at every step; such a sum cannot be reassociated");
      if ((t = add_target(r, l, kids[0], var, body_b, body_e)) < 0)
        return 0;
      add_rename(r, l, kids[0], t);
      add_rename(r, l, head, t);
      return 1;
    }
  }
  if (k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt || k == CXCursor_ReturnStmt ||
      k == CXCursor_GotoStmt)
    return 1; /* loop_visit names it */
  if (k == CXCursor_CallExpr) {
    char *name = cc_cuda_rd_callee(st);
    int atomic = name && cc_cuda_rd_atomic(name);
    if (atomic)
      loop_fail(r, l, st, "atomic %s in the loop over %s; only accumulations into a local or "
                "a memory location (`T += E;`) are redistributed", name, l->info.var);
    free(name);
    if (atomic)
      return 0;
  }
  return loop_fail(r, l, st, "the loop over %s has a statement that is neither a local "
                   "declaration nor an accumulation (`T += E;`, `T = T + E;`); Algorithm 3 "
                   "splits a loop that only reduces", l->info.var);
}

/* The loop variable and its initial value from the for's init statement. */
static int loop_init(struct redist *r, struct cc_cuda_rloop *l, CXCursor init, CXCursor *var,
                     CXCursor *value)
{
  CXCursor kids[8];
  unsigned n;
  if (kind(init) == CXCursor_DeclStmt && cc_cuda_children(init, kids, 2) == 1 &&
      kind(kids[0]) == CXCursor_VarDecl) {
    *var = kids[0];
    n = cc_cuda_children(*var, kids, 8);
    if (n == 0 || n > 8 || !clang_isExpression(kind(kids[n - 1])))
      return loop_fail(r, l, init, "the loop variable has no initial value");
    *value = kids[n - 1];
  } else if (kind(init) == CXCursor_BinaryOperator && cc_cuda_children(init, kids, 2) == 2 &&
             cc_cuda_rd_op_is(r->m, init, kids[0], "=") &&
             kind(cc_cuda_rd_strip(kids[0])) == CXCursor_DeclRefExpr) {
    *var = clang_getCursorReferenced(cc_cuda_rd_strip(kids[0]));
    *value = kids[1];
  } else {
    return loop_fail(r, l, init, "the loop's init is not `int j = A` or `j = A`");
  }
  {
    char *name = cc_cuda_spelling(*var);
    snprintf(l->info.var, sizeof l->info.var, "%s", name);
    free(name);
  }
  if (!cc_cuda_rd_integer(cc_cuda_rd_type_kind(*var)) || !cc_cuda_rd_private(*var))
    return loop_fail(r, l, init, "the loop variable %s is not a local integer", l->info.var);
  if (!cc_cuda_rd_bytes(r->m, *value, &l->init_b, &l->init_e))
    return loop_fail(r, l, *value, "the initial value of %s is written through a macro; "
                     "write the loop header in the file", l->info.var);
  return 1;
}

/* The bound B of `j < B` (or `<=`, `B > j`, `B >= j`); *incl = 1 for <= and >=. */
static int loop_cond(struct redist *r, struct cc_cuda_rloop *l, CXCursor cond, CXCursor var,
                     CXCursor *bound, int *incl)
{
  static const char *const ops[] = {"<", "<=", ">", ">="};
  CXCursor kids[2];
  char *op;
  int which = -1;
  cond = cc_cuda_rd_strip(cond);
  if (kind(cond) != CXCursor_BinaryOperator || cc_cuda_children(cond, kids, 2) != 2 ||
      !(op = cc_cuda_rd_operator(r->m, cond, kids[0])))
    return loop_fail(r, l, cond, "the condition of the loop over %s is not `%s < B`",
                     l->info.var, l->info.var);
  for (int i = 0; i < 4; i++)
    if (strcmp(op, ops[i]) == 0)
      which = i;
  free(op);
  if (which >= 0) {
    CXCursor side = cc_cuda_rd_strip(kids[which < 2 ? 0 : 1]);
    if (kind(side) == CXCursor_DeclRefExpr &&
        clang_equalCursors(clang_getCursorReferenced(side), var)) {
      *bound = kids[which < 2 ? 1 : 0];
      *incl = which == 1 || which == 3;
      return 1;
    }
  }
  return loop_fail(r, l, cond, "the condition of the loop over %s is not `%s < B` or "
                   "`%s <= B`; the lanes step by 32 and need an upper bound", l->info.var,
                   l->info.var, l->info.var);
}

/* The increment: j++, ++j or j += 1. */
static int loop_step(struct redist *r, struct cc_cuda_rloop *l, CXCursor inc, CXCursor var)
{
  CXCursor kids[2], t;
  int64_t one = 0;
  int ok = 0;
  inc = cc_cuda_rd_strip(inc);
  if (kind(inc) == CXCursor_UnaryOperator && cc_cuda_rd_writes(r->m, inc, &t))
    ok = cc_cuda_rd_op_is(r->m, inc, clang_getNullCursor(), "++");
  else if (kind(inc) == CXCursor_CompoundAssignOperator && cc_cuda_children(inc, kids, 2) == 2 &&
           cc_cuda_rd_op_is(r->m, inc, kids[0], "+=") && eval(r, kids[1], &one, 0) && one == 1)
    ok = 1, t = kids[0];
  if (!ok || kind(cc_cuda_rd_strip(t)) != CXCursor_DeclRefExpr ||
      !clang_equalCursors(clang_getCursorReferenced(cc_cuda_rd_strip(t)), var))
    return loop_fail(r, l, inc, "the step of the loop over %s is not +1 (`%s++`, `++%s`, "
                     "`%s += 1`); the lanes take consecutive iterations of a unit step",
                     l->info.var, l->info.var, l->info.var, l->info.var);
  if (!cc_cuda_rd_bytes(r->m, inc, &l->step_b, &l->step_e))
    return loop_fail(r, l, inc, "the step of the loop over %s is written through a macro",
                     l->info.var);
  return 1;
}

/* Where variable var is named outside [b, e) in the kernel, if anywhere. */
struct var_use {
  CXCursor var;
  unsigned b, e;
  int found;
  CXCursor at;
};

static void var_use_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct var_use *u = s->ctx;
  (void)parent;
  (void)index;
  if (!u->found && kind(c) == CXCursor_DeclRefExpr &&
      clang_equalCursors(clang_getCursorReferenced(c), u->var) &&
      !inside(cc_cuda_rd_off(s->r->m, c), u->b, u->e)) {
    u->found = 1;
    u->at = c;
  }
}

/* Counts the memory reads of a loop's body (redist.h, cc_cuda_redist_loop.reads): each
 * subscript, `*p` or `p->m` naming memory the lanes share, outside the targets, unless
 * it is only the array or structure a larger lvalue selects from (the `a` of `a[i][j]`
 * with a an array, the `s` of `s.m`) or its address is taken. */
struct read_count {
  struct cc_cuda_rloop *l;
  uint32_t n;
};

static int memory_lvalue(const struct redist *r, CXCursor c)
{
  switch (kind(c)) {
  case CXCursor_ArraySubscriptExpr: case CXCursor_MemberRefExpr:
    return 1;
  case CXCursor_UnaryOperator:
    return cc_cuda_rd_op_is(r->m, c, clang_getNullCursor(), "*");
  default:
    return 0;
  }
}

static void read_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct read_count *rc = s->ctx;
  enum CXCursorKind pk = kind(parent);
  if (!memory_lvalue(s->r, c) || renamed(rc->l, cc_cuda_rd_off(s->r->m, c)) ||
      !cc_cuda_rd_shared_lvalue(c))
    return;
  if (index == 0 && (pk == CXCursor_ArraySubscriptExpr || pk == CXCursor_MemberRefExpr) &&
      clang_getCanonicalType(clang_getCursorType(c)).kind != CXType_Pointer)
    return; /* selected from, not read whole */
  if (pk == CXCursor_UnaryOperator && cc_cuda_rd_op_is(s->r->m, parent, clang_getNullCursor(), "&"))
    return;
  rc->n++;
}

static void analyse_loop(struct redist *r, struct cc_cuda_rloop *l, int nested)
{
  CXCursor kids[5], var, value, bound, body = clang_getNullCursor();
  CXCursor stmts[1];
  unsigned n = cc_cuda_children(l->stmt, kids, 5), body_b = 0, body_e = 0, line, col;
  int incl = 0;
  int64_t lo, hi;
  l->info.nested = nested;
  l->info.trips = -1;
  cc_cuda_tu_linecol(clang_getCursorLocation(l->stmt), &line, &col);
  l->info.line = line;
  l->info.column = col;
  cc_cuda_tu_linecol(clang_getRangeEnd(clang_getCursorExtent(l->stmt)), &line, &col);
  l->info.first_line = l->info.line;
  l->info.last_line = line;
  if (!cc_cuda_rd_bytes(r->m, l->stmt, &l->b, &l->e)) {
    loop_fail(r, l, l->stmt, "the loop is written through a macro; write it in the file");
    return;
  }
  l->e = cc_cuda_rd_statement_end(r->m, l->stmt, l->e);
  if (n != 4) {
    loop_fail(r, l, l->stmt, "the loop has no init, condition or step, or declares a "
              "variable in its condition; the form `for (int j = A; j < B; j++)` is needed");
    return;
  }
  body = kids[3];
  if (!loop_init(r, l, kids[0], &var, &value) || !loop_cond(r, l, kids[1], var, &bound, &incl) ||
      !loop_step(r, l, kids[2], var))
    return;
  cc_cuda_rd_bytes(r->m, body, &body_b, &body_e);
  if (kind(body) == CXCursor_CompoundStmt) {
    CXCursor st[256];
    unsigned ns = cc_cuda_children(body, st, 256);
    if (ns > 256) {
      loop_fail(r, l, body, "the body of the loop over %s has more than 256 statements",
                l->info.var);
      return;
    }
    for (unsigned i = 0; i < ns; i++)
      if (!body_statement(r, l, st[i], var, body_b, body_e))
        return;
  } else {
    stmts[0] = body;
    if (!body_statement(r, l, stmts[0], var, body_b, body_e))
      return;
  }
  if (l->targets.len == 0) {
    loop_fail(r, l, l->stmt, "the loop over %s accumulates nothing", l->info.var);
    return;
  }
  {
    struct loop_scan ls = {l, var, body_b, 0};
    walk(r, l->stmt, loop_visit, &ls);
    if (ls.bad)
      return;
  }
  if (kind(kids[0]) != CXCursor_DeclStmt) { /* j declared before the loop */
    struct var_use u = {var, l->b, l->e, 0, clang_getNullCursor()};
    walk(r, r->body, var_use_visit, &u);
    if (u.found) {
      loop_fail(r, l, u.at, "%s, the variable of the loop at line %u, is used outside the "
                "loop; after the rewrite each lane ends the loop with another value of it: "
                "declare it in the loop's header", l->info.var, l->info.line);
      return;
    }
  }
  {
    struct read_count rc = {l, 0};
    walk(r, body, read_visit, &rc);
    l->info.reads = rc.n ? rc.n : 1;
  }
  l->ok = 1;
  l->info.ntargets = (uint32_t)l->targets.len;
  l->info.integer = 1;
  for (size_t i = 0; i < l->targets.len; i++) {
    l->targets.data[i].id = 0;
    l->info.integer &= l->targets.data[i].integer;
  }
  if (eval(r, value, &lo, 0) && eval(r, bound, &hi, 0))
    l->info.trips = hi + incl > lo ? hi + incl - lo : 0;
}

/* ---- the walk over the kernel's body ---- */

static int statement_position(CXCursor parent, unsigned index)
{
  CXCursor kids[6];
  unsigned n;
  switch (kind(parent)) {
  case CXCursor_CompoundStmt:
    return 1;
  case CXCursor_IfStmt:
    return index >= 1;
  case CXCursor_WhileStmt:
    return cc_cuda_children(parent, kids, 6) == 2 && index == 1;
  case CXCursor_DoStmt:
    return index == 0;
  case CXCursor_ForStmt:
    return cc_cuda_children(parent, kids, 6) == 4 && index == 3;
  case CXCursor_LabelStmt: case CXCursor_CaseStmt: case CXCursor_DefaultStmt:
    n = cc_cuda_children(parent, kids, 6);
    return n > 0 && index == n - 1;
  default:
    return 0;
  }
}

static int is_loop(enum CXCursorKind k)
{
  return k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_DoStmt ||
         k == CXCursor_CXXForRangeStmt;
}

/* Every for statement of the body, with whether it lies inside another loop and how
 * many times a thread enters it (runs: the product of the enclosing loops' trip counts,
 * -1 when one is not known). */
struct loop_collect {
  struct redist *r;
  unsigned depth;
  int loops;
  int64_t runs;
};

/* The trip count of for statement c from its header alone (the form of redist.h, bounds
 * constants or known parameters), or -1. The loop need not qualify for the rewrite: an
 * enclosing loop (kmeans' loop over clusters) only counts the runs of the inner one. */
static int64_t header_trips(struct redist *r, CXCursor c)
{
  struct cc_cuda_rloop scratch; /* loop_fail's message lands here and is dropped */
  CXCursor kids[5], var, value, bound;
  int64_t lo, hi;
  int incl = 0;
  memset(&scratch, 0, sizeof scratch);
  if (cc_cuda_children(c, kids, 5) != 4 || !loop_init(r, &scratch, kids[0], &var, &value) ||
      !loop_cond(r, &scratch, kids[1], var, &bound, &incl) ||
      !loop_step(r, &scratch, kids[2], var) || !eval(r, value, &lo, 0) ||
      !eval(r, bound, &hi, 0))
    return -1;
  return hi + incl > lo ? hi + incl - lo : 0;
}

/* runs x the trip count t of a loop inside which the walk goes down, -1 when either is not
 * known or the product overflows. */
static int64_t times_trips(int64_t runs, int64_t t)
{
  if (runs < 0 || t < 0 || (t > 0 && runs > INT64_MAX / t))
    return -1;
  return runs * t;
}

static enum CXChildVisitResult collect_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct loop_collect *lc = data, kid = *lc;
  (void)parent;
  if (lc->depth > MAX_DEPTH)
    return CXChildVisit_Break;
  if (kind(c) == CXCursor_ForStmt) {
    struct cc_cuda_rloop l;
    memset(&l, 0, sizeof l);
    l.stmt = c;
    l.info.nested = lc->loops > 0;
    l.info.runs = lc->runs;
    CC_VEC_PUSH(&lc->r->loops, l);
  }
  kid.depth = lc->depth + 1;
  kid.loops = lc->loops + is_loop(kind(c));
  if (kind(c) == CXCursor_ForStmt)
    kid.runs = times_trips(lc->runs, header_trips(lc->r, c));
  else if (is_loop(kind(c)))
    kid.runs = -1; /* while, do: their trip counts are not read from a header */
  clang_visitChildren(c, collect_visit, &kid);
  return CXChildVisit_Continue;
}

static int in_selected(const struct redist *r, unsigned off)
{
  for (size_t i = 0; i < r->loops.len; i++)
    if (r->loops.data[i].selected && inside(off, r->loops.data[i].b, r->loops.data[i].e))
      return 1;
  return 0;
}

/* 1 when function fn of the model, or one it calls, stores to memory or calls an atomic. */
static int fn_stores(struct redist *r, int fn, int depth);

struct fn_store_scan {
  int found, depth;
};

static void fn_store_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct fn_store_scan *f = s->ctx;
  CXCursor t;
  char *name;
  (void)parent;
  (void)index;
  if (f->found)
    return;
  if (cc_cuda_rd_is_assignment(kind(c)) && cc_cuda_rd_writes(s->r->m, c, &t) &&
      cc_cuda_rd_shared_lvalue(t))
    f->found = 1;
  else if (kind(c) == CXCursor_CallExpr && (name = cc_cuda_rd_callee(c))) {
    int fn = cc_cuda_rd_model_fn(s->r->m, c);
    f->found = cc_cuda_rd_atomic(name) || (fn >= 0 && fn_stores(s->r, fn, f->depth + 1));
    free(name);
  }
}

static int fn_stores(struct redist *r, int fn, int depth)
{
  const struct cc_cuda_fn *f = &r->m->fns.data[fn];
  struct fn_store_scan s = {0, depth};
  if (depth > 16 || !f->visited || f->where != CC_CUDA_MAIN)
    return 0; /* intrinsics and the library (the prelude) do not store through pointers */
  walk(r, f->def, fn_store_visit, &s);
  return s.found;
}

static void store_visit(struct sub *s, CXCursor c, CXCursor parent, unsigned index)
{
  struct redist *r = s->r;
  unsigned off = cc_cuda_rd_off(r->m, c), b, e;
  CXCursor t;
  char *name = NULL;
  int store = 0;
  if (r->status != CC_OK || in_selected(r, off))
    return;
  if (cc_cuda_rd_is_assignment(kind(c)) && cc_cuda_rd_writes(r->m, c, &t))
    store = cc_cuda_rd_shared_lvalue(t);
  else if (kind(c) == CXCursor_CallExpr && (name = cc_cuda_rd_callee(c))) {
    int fn = cc_cuda_rd_model_fn(r->m, c);
    if (cc_cuda_rd_atomic(name))
      store = 1;
    else if (fn >= 0 && fn != r->m->kernel && fn_stores(r, fn, 0))
      fail(r, c, "%s stores to memory and is called outside the redistributed loop, where "
           "32 lanes run each statement; coalcheck limits a store to lane 0 only when it is "
           "a statement of the kernel: inline %s", name, name);
    free(name);
  }
  if (!store || r->status != CC_OK)
    return;
  if (!statement_position(parent, index) || !cc_cuda_rd_bytes(r->m, c, &b, &e)) {
    fail(r, c, "a store to memory inside an expression (or written through a macro) "
         "outside the redistributed loop; the 32 lanes would all make it: write it as a "
         "statement of its own");
    return;
  }
  {
    struct cc_cuda_rstore st = {b, cc_cuda_rd_statement_end(r->m, c, e)};
    CC_VEC_PUSH(&r->stores, st);
  }
}

/* ---- the entry point ---- */

static CXCursor kernel_body(CXCursor def)
{
  CXCursor kids[64];
  unsigned n = cc_cuda_children(def, kids, 64);
  for (unsigned i = n > 64 ? 64 : n; i-- > 0;)
    if (kind(kids[i]) == CXCursor_CompoundStmt)
      return kids[i];
  return clang_getNullCursor();
}

/* The new launch: block (32, W, 1), grid (ceil(total / (W * 32 / V)), 1, 1): each CTA
 * plays W * 32 / V consecutive threads of the original. */
static int new_launch(struct redist *r, struct cc_cuda_redist *out)
{
  const struct cc_cuda_redist_in *in = r->in;
  unsigned long long total = 1,
                     per_cta = (unsigned long long)in->warps * (32u / cc_cuda_redist_lanes(in));
  for (int d = 0; d < 3; d++)
    total *= (unsigned long long)in->grid[d] * in->block[d];
  if ((total + per_cta - 1) / per_cta > GRID_X_MAX)
    return cc_err_set(r->err, CC_ERR_NO_FIX, "%s: the launch has %llu threads; %llu a CTA "
                      "needs a grid of %llu CTAs, over CUDA's limit of 2^31-1 in x",
                      r->m->tu.path, total, per_cta, (total + per_cta - 1) / per_cta);
  out->grid[0] = (uint32_t)((total + per_cta - 1) / per_cta);
  out->grid[1] = out->grid[2] = 1;
  out->block[0] = 32;
  out->block[1] = in->warps;
  out->block[2] = 1;
  return CC_OK;
}

/* No loop was rewritten: the reason. */
static int nothing(struct redist *r)
{
  for (size_t i = 0; i < r->loops.len; i++) {
    const struct cc_cuda_rloop *l = &r->loops.data[i];
    if (!l->ok && r->in->uncoalesced(r->in->ctx, l->info.first_line, l->info.last_line))
      return cc_err_set(r->err, CC_ERR_NO_FIX, "%s", l->why);
  }
  for (size_t i = 0; i < r->loops.len; i++) {
    const struct cc_cuda_rloop *l = &r->loops.data[i];
    if (l->ok)
      return cc_err_set(r->err, CC_ERR_NO_FIX, "%s:%u: the loop over %s is already "
                        "coalesced (no global load on lines %u-%u reads more sectors than "
                        "the ideal)", r->m->tu.path, l->info.line, l->info.var,
                        l->info.first_line, l->info.last_line);
  }
  if (r->loops.len)
    return cc_err_set(r->err, CC_ERR_NO_FIX, "%s", r->loops.data[0].why);
  return cc_err_set(r->err, CC_ERR_NO_FIX, "%s: kernel %s has no for loop to spread over a "
                    "warp", r->m->tu.path, r->m->kernel_name);
}

static void loop_release(struct cc_cuda_rloop *l)
{
  for (size_t i = 0; i < l->targets.len; i++) {
    free(l->targets.data[i].key);
    free(l->targets.data[i].text);
    free(l->targets.data[i].type);
  }
  CC_VEC_FREE(&l->targets);
  CC_VEC_FREE(&l->renames);
}

/* Analyses the loops, selects, finds the stores; CC_OK when at least one loop is
 * selected. */
static int analyse(struct redist *r)
{
  struct loop_collect lc = {r, 0, 0, 1};
  uint32_t id = 0;
  int any = 0;
  walk(r, r->body, kernel_visit, NULL);
  for (size_t i = 0; i < r->m->fns.len && r->status == CC_OK; i++) { /* and its callees */
    const struct cc_cuda_fn *f = &r->m->fns.data[i];
    if (f->in_tree && f->visited && (int)i != r->m->kernel && f->where != CC_CUDA_PRELUDE &&
        f->where != CC_CUDA_SYSTEM)
      walk(r, f->def, kernel_visit, NULL);
  }
  if (r->status != CC_OK)
    return r->status;
  clang_visitChildren(r->body, collect_visit, &lc);
  for (size_t i = 0; i < r->loops.len; i++) {
    struct cc_cuda_rloop *l = &r->loops.data[i];
    analyse_loop(r, l, l->info.nested);
    l->selected = l->ok && r->in->uncoalesced(r->in->ctx, l->info.first_line, l->info.last_line);
    for (size_t t = 0; l->selected && t < l->targets.len; t++)
      l->targets.data[t].id = id++;
    any |= l->selected;
  }
  if (!any)
    return nothing(r);
  walk(r, r->body, store_visit, NULL);
  return r->status;
}

uint32_t cc_cuda_redist_lanes(const struct cc_cuda_redist_in *in)
{
  return in->lanes ? in->lanes : 32;
}

int cc_cuda_redistribute(const struct cc_cuda_redist_in *in, struct cc_cuda_redist *out,
                         struct cc_err *err)
{
  struct cc_cuda_model m;
  struct redist r;
  unsigned body_b, body_e;
  int rc;
  memset(out, 0, sizeof *out);
  if (in->warps < 1 || in->warps > 32)
    CC_BUG("cc_cuda_redistribute: %u warps per CTA (1..32)", in->warps);
  if (in->lanes != 0 && (in->lanes < 2 || in->lanes > 32 || (in->lanes & (in->lanes - 1))))
    CC_BUG("cc_cuda_redistribute: %u lanes per thread (a power of two, 2..32)", in->lanes);
  if ((rc = cc_cuda_model_build(&m, in->path, in->text, in->len, in->kernel, in->extra_args,
                                in->nextra, err)) != CC_OK)
    return rc;
  memset(&r, 0, sizeof r);
  r.m = &m;
  r.in = in;
  r.err = err;
  r.kernel = m.fns.data[m.kernel].def;
  r.body = kernel_body(r.kernel);
  if (clang_Cursor_isNull(r.body) || !cc_cuda_rd_bytes(&m, r.body, &body_b, &body_e))
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: the body of kernel %s is not written in the file",
                    in->path, m.kernel_name);
  else if ((rc = new_launch(&r, out)) == CC_OK && (rc = analyse(&r)) == CC_OK) {
    for (int f = 0; f < CC_CUDA_REDIST_NFORMS && rc == CC_OK; f++) {
      cc_cuda_edits ed = {0};
      cc_cuda_redist_edits(&m, in, body_b, body_e, r.loops.data, r.loops.len, r.stores.data,
                           r.stores.len, (enum cc_cuda_redist_form)f, &ed, &out->shared_bytes[f]);
      rc = cc_cuda_edits_apply(&ed, in->text, in->len, &out->text[f], &out->len[f], err);
      cc_cuda_edits_release(&ed);
    }
    for (size_t i = 0; i < r.loops.len && rc == CC_OK; i++)
      if (r.loops.data[i].selected) {
        out->loops = cc_xrealloc(out->loops, (out->nloops + 1) * sizeof *out->loops);
        out->loops[out->nloops++] = r.loops.data[i].info;
      }
  }
  for (size_t i = 0; i < r.loops.len; i++)
    loop_release(&r.loops.data[i]);
  CC_VEC_FREE(&r.loops);
  CC_VEC_FREE(&r.stores);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_redist_release(out);
  return rc;
}
