/* coalcheck CUDA front end: cc_cuda_scop_extract, the affine subset of a kernel read from
 * the clang AST (the polyhedral representation of CGO 2015 Sec. 4.3, Algorithm 2; our own
 * small stand-in for pet, which Debian does not package). What it accepts and refuses is
 * written in scop.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scop_impl.h"

/* ---- statements ---- */

/* Walks statement c; top: 2 for the kernel's body, 1 for a block directly in it (where
 * `if (c) return;` is allowed), 0 inside a loop or a branch. */
static int walk(struct cc_cuda_ex *x, CXCursor c, int top);

/* A reference in a statement's expression: records accesses, refuses what writes or
 * calls. Recursive over the expression tree. */
struct stmt_walk {
  struct cc_cuda_ex *x;
  struct cc_cuda_scop_stmt *st;
  int rc;
};

static int add_access(struct cc_cuda_ex *x, struct cc_cuda_scop_stmt *st, CXCursor sub, int write)
{
  CXCursor kids[2], base;
  struct cc_cuda_scop_access a;
  CXType t;
  int p;
  if (cc_cuda_children(sub, kids, 2) != 2)
    return cc_cuda_scop_refuse(x, sub, "the subscript %s cannot be read", "");
  base = cc_cuda_scop_strip(kids[0]);
  if (clang_getCursorKind(base) != CXCursor_DeclRefExpr ||
      (p = cc_cuda_scop_param(x, clang_getCursorReferenced(base))) < 0 ||
      (t = clang_getCursorType(clang_getCursorReferenced(base))).kind != CXType_Pointer) {
    char snip[160];
    cc_cuda_scop_snippet(x, kids[0], snip, sizeof snip);
    return cc_cuda_scop_refuse(x, sub, "the array `%s` is not a pointer parameter of the kernel", snip);
  }
  memset(&a, 0, sizeof a);
  cc_cuda_scop_fresh(x);
  if (!cc_cuda_scop_eval_final(x, kids[1], &a.sub))
    return cc_cuda_scop_refuse_affine(x, kids[1], "subscript");
  a.array = cc_cuda_spelling(base);
  a.write = write;
  a.elem_bytes = (uint32_t)clang_Type_getSizeOf(clang_getPointeeType(t));
  st->acc = cc_xrealloc(st->acc, (st->nacc + 1) * sizeof *st->acc);
  st->acc[st->nacc++] = a;
  return CC_OK;
}

/* Records an access of statement st to the private scalar l. */
static void add_private(struct cc_cuda_scop_stmt *st, const struct cc_cuda_local *l, int write)
{
  struct cc_cuda_scop_access a;
  memset(&a, 0, sizeof a);
  a.array = cc_cuda_spelling(l->decl);
  a.write = write;
  a.priv = 1;
  a.pdims = l->pdepth;
  st->acc = cc_xrealloc(st->acc, (st->nacc + 1) * sizeof *st->acc);
  st->acc[st->nacc++] = a;
}

static enum CXChildVisitResult stmt_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct stmt_walk *w = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  char op[8];
  (void)parent;
  if (k == CXCursor_CallExpr) {
    char *name = cc_cuda_spelling(c);
    w->rc = cc_cuda_scop_refuse(w->x, c, "a call to %s", name);
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
      (k == CXCursor_BinaryOperator && cc_cuda_scop_binop(w->x, c, op, sizeof op) && !strcmp(op, "="))) {
    w->rc = cc_cuda_scop_refuse(w->x, c, "an assignment inside an expression%s", "");
    return CXChildVisit_Break;
  }
  if (k == CXCursor_UnaryOperator) {
    cc_cuda_scop_unop(w->x, c, op, sizeof op);
    if (!strcmp(op, "++") || !strcmp(op, "--") || !strcmp(op, "*") || !strcmp(op, "&")) {
      w->rc = cc_cuda_scop_refuse(w->x, c, "the operator %s", op);
      return CXChildVisit_Break;
    }
  }
  if (k == CXCursor_DeclRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    struct cc_cuda_local *l = cc_cuda_scop_local(w->x, d);
    if (l && l->kind == CC_CUDA_L_COUNTER && l->var < 0) {
      char *name = cc_cuda_spelling(d);
      w->rc = cc_cuda_scop_refuse(w->x, c, "%s is read outside the loop it counts", name);
      free(name);
      return CXChildVisit_Break;
    }
    if (l && l->kind == CC_CUDA_L_PRIVATE)
      add_private(w->st, l, 0);
  }
  return CXChildVisit_Recurse;
}

/* Fills st's place (from c), domain and visible declarations, and adds it. */
static void add_statement(struct cc_cuda_ex *x, struct cc_cuda_scop_stmt *st, CXCursor c)
{
  unsigned line, col;
  cc_cuda_tu_linecol(clang_getCursorLocation(c), &line, &col);
  st->line = line;
  st->column = col;
  st->nloops = x->nloops;
  memcpy(st->loops, x->loops, sizeof st->loops[0] * (size_t)x->nloops);
  memcpy(st->beta, x->loop_off, sizeof st->beta[0] * (size_t)x->nloops);
  st->beta[x->nloops] = st->b;
  st->ncons = x->ncons;
  st->cons = cc_xmalloc((x->ncons ? x->ncons : 1) * sizeof *st->cons);
  memcpy(st->cons, x->cons, x->ncons * sizeof *st->cons);
  st->ndecls = (uint32_t)x->visible.len;
  st->decls = cc_xmalloc((st->ndecls ? st->ndecls : 1) * sizeof *st->decls);
  if (st->ndecls) /* no declaration in scope: visible.data may be NULL */
    memcpy(st->decls, x->visible.data, st->ndecls * sizeof *st->decls);
  CC_VEC_PUSH(&x->stmts, *st);
}

static void drop_statement(struct cc_cuda_scop_stmt *st)
{
  for (uint32_t i = 0; i < st->nacc; i++)
    free(st->acc[i].array);
  free(st->acc);
  free(st->text);
}

/* The private scalar that c (an lvalue) names, or NULL. */
static struct cc_cuda_local *private_target(struct cc_cuda_ex *x, CXCursor c)
{
  struct cc_cuda_local *l;
  c = cc_cuda_scop_strip(c);
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr)
    return NULL;
  l = cc_cuda_scop_local(x, clang_getCursorReferenced(c));
  return l && l->kind == CC_CUDA_L_PRIVATE ? l : NULL;
}

/* An expression statement `A[e] = ...;`, `A[e] op= ...;`, `s = ...;` or `s op= ...;`. */
static int statement(struct cc_cuda_ex *x, CXCursor c)
{
  CXCursor kids[2], target;
  struct cc_cuda_scop_stmt st;
  struct stmt_walk w;
  struct cc_cuda_local *scalar = NULL;
  enum CXCursorKind k = clang_getCursorKind(c);
  char op[8] = "";
  int compound = k == CXCursor_CompoundAssignOperator;
  if (!(compound || (k == CXCursor_BinaryOperator && cc_cuda_scop_binop(x, c, op, sizeof op) &&
                     !strcmp(op, "="))) ||
      cc_cuda_children(c, kids, 2) != 2 ||
      (clang_getCursorKind(target = cc_cuda_scop_strip(kids[0])) != CXCursor_ArraySubscriptExpr &&
       !(scalar = private_target(x, kids[0])))) {
    char snip[160];
    if (k == CXCursor_CallExpr) {
      char *name = cc_cuda_spelling(c);
      int rc = cc_cuda_scop_refuse(x, c, "a call to %s", name);
      free(name);
      return rc;
    }
    cc_cuda_scop_snippet(x, c, snip, sizeof snip);
    if (cc_cuda_children(c, kids, 2) == 2 &&
        clang_getCursorKind(cc_cuda_scop_strip(kids[0])) == CXCursor_DeclRefExpr &&
        cc_cuda_scop_local(x, clang_getCursorReferenced(cc_cuda_scop_strip(kids[0]))))
      return cc_cuda_scop_refuse(x, c, "the statement `%s` assigns an integer that is an affine "
                                 "value or a loop counter", snip);
    return cc_cuda_scop_refuse(x, c, "the statement `%s` assigns neither an array element nor "
                               "a local scalar", snip);
  }
  memset(&st, 0, sizeof st);
  if (!cc_cuda_tu_extent(&x->m->tu, c, &st.b, &st.e) || !cc_cuda_model_whole(x->m, st.b, st.e))
    return cc_cuda_scop_refuse(x, c, "the statement is partly written by a macro%s", "");
  st.text = cc_xstrndup(x->m->tu.text + st.b, st.e - st.b);
  w.x = x;
  w.st = &st;
  w.rc = CC_OK;
  if (scalar) {
    add_private(&st, scalar, 1);
    if (compound)
      add_private(&st, scalar, 0);
  } else if ((w.rc = add_access(x, &st, target, 1)) == CC_OK && compound) {
    w.rc = add_access(x, &st, target, 0);
  }
  if (w.rc == CC_OK && !scalar) {
    CXCursor sub[2];
    /* the written element's subscript, then the right-hand side */
    cc_cuda_children(target, sub, 2);
    clang_visitChildren(sub[1], stmt_visit, &w);
  }
  if (w.rc == CC_OK)
    clang_visitChildren(kids[1], stmt_visit, &w);
  if (w.rc != CC_OK) {
    drop_statement(&st);
    return w.rc;
  }
  add_statement(x, &st, c);
  return CC_OK;
}

/* The declaration `T s = e;` of private scalar l (declared by d in DeclStmt c): its
 * value assigned where it stood, as the statement `s = e`. */
static int private_init(struct cc_cuda_ex *x, CXCursor c, CXCursor e,
                        const struct cc_cuda_local *l)
{
  struct cc_cuda_scop_stmt st;
  struct stmt_walk w = {x, &st, CC_OK};
  unsigned ib, ie;
  char *name = cc_cuda_spelling(l->decl);
  memset(&st, 0, sizeof st);
  if (!cc_cuda_tu_extent(&x->m->tu, c, &st.b, &st.e) || !cc_cuda_model_whole(x->m, st.b, st.e) ||
      !cc_cuda_tu_extent(&x->m->tu, e, &ib, &ie)) {
    free(name);
    return cc_cuda_scop_refuse(x, c, "the declaration is partly written by a macro%s", "");
  }
  st.text = cc_xmalloc(strlen(name) + 4 + (ie - ib) + 1);
  sprintf(st.text, "%s = %.*s", name, (int)(ie - ib), x->m->tu.text + ib);
  free(name);
  add_private(&st, l, 1);
  clang_visitChildren(l->decl, stmt_visit, &w);
  if (w.rc != CC_OK) {
    drop_statement(&st);
    return w.rc;
  }
  add_statement(x, &st, c);
  return CC_OK;
}

/* Declares private scalar name of type t once for the kernel (the same name twice must
 * have one type: both live in one scope of the lifted kernel). */
static int add_private_decl(struct cc_cuda_ex *x, CXCursor d, const char *name, CXType t)
{
  char *type = cc_cuda_str(clang_getTypeSpelling(t));
  struct cc_cuda_scop_priv p;
  for (size_t i = 0; i < x->privs.len; i++)
    if (!strcmp(x->privs.data[i].name, name)) {
      int same = !strcmp(x->privs.data[i].type, type);
      free(type);
      return same ? CC_OK : cc_cuda_scop_refuse(x, d, "two local variables called %s of "
                                                "different types", name);
    }
  if (clang_isConstQualifiedType(t)) {
    /* assigned where it was declared: the hoisted declaration drops const */
    char *bare = cc_cuda_str(clang_getTypeSpelling(clang_getCanonicalType(t)));
    char *q = strstr(bare, "const ");
    if (q)
      memmove(q, q + 6, strlen(q + 6) + 1);
    free(type);
    type = bare;
  }
  p.name = cc_xstrdup(name);
  p.type = type;
  CC_VEC_PUSH(&x->privs, p);
  return CC_OK;
}

/* 1 when a local in scope other than a private scalar is called name: the lifted
 * kernel declares private scalars once, at its top, and that local's declaration,
 * printed in a statement's block, would hide the private one there. */
static int name_taken(const struct cc_cuda_ex *x, const char *name)
{
  for (size_t i = 0; i < x->locals.len; i++)
    if (x->locals.data[i].kind != CC_CUDA_L_PRIVATE && cc_cuda_spelled(x->locals.data[i].decl, name))
      return 1;
  return 0;
}

static int declaration(struct cc_cuda_ex *x, CXCursor c)
{
  CXCursor kids[16];
  unsigned n = cc_cuda_children(c, kids, 16);
  struct cc_cuda_scop_decl d;
  unsigned privates = 0;
  if (n > 16)
    return cc_cuda_scop_refuse(x, c, "a declaration of more than 16 variables%s", "");
  for (unsigned i = 0; i < n; i++) {
    struct cc_cuda_local l;
    CXCursor init[4];
    unsigned ni;
    CXType t = clang_getCursorType(kids[i]);
    char *name = cc_cuda_spelling(kids[i]);
    int rc = CC_OK;
    memset(&l, 0, sizeof l);
    l.decl = kids[i];
    l.var = -1;
    l.pdepth = x->nloops;
    if (clang_getCursorKind(kids[i]) != CXCursor_VarDecl || t.kind == CXType_ConstantArray ||
        clang_getCursorKind(clang_getCursorSemanticParent(kids[i])) != CXCursor_FunctionDecl ||
        clang_Cursor_hasAttrs(kids[i]) || t.kind == CXType_LValueReference)
      rc = cc_cuda_scop_refuse(x, kids[i], "the declaration of %s (only scalar local variables)", name);
    ni = rc == CC_OK ? cc_cuda_children(kids[i], init, 4) : 0;
    cc_cuda_scop_fresh(x);
    if (rc != CC_OK) {
    } else if (ni == 0 && cc_cuda_scop_is_int(t)) {
      l.kind = CC_CUDA_L_COUNTER;
    } else if (ni > 0 && cc_cuda_scop_is_int(t) && cc_cuda_scop_eval(x, init[ni - 1], &l.val)) {
      l.kind = CC_CUDA_L_AFFINE;
    } else if (ni > 0 && x->note[0]) {
      /* an index in y or z, or threadIdx.x alone: say so here, where it is computed */
      char role[200];
      snprintf(role, sizeof role, "initialiser of %s", name);
      rc = cc_cuda_scop_refuse_affine(x, init[ni - 1], role);
    } else if (n > 1 && (ni > 0 || privates < i)) {
      rc = cc_cuda_scop_refuse(x, kids[i], ni > 0 ? "%s, not an affine integer, is declared "
                               "with other variables and a value; declare it alone"
                               : "%s, not an affine integer, is declared with variables of "
                               "another kind; declare it alone", name);
    } else if (n > 1) {
      /* `float c11, c12, c13;` (PolyBench's filters): private scalars without a value,
         each declared once at the lifted kernel's top; the declaration prints nowhere */
      l.kind = CC_CUDA_L_PRIVATE;
      rc = name_taken(x, name)
           ? cc_cuda_scop_refuse(x, kids[i], "%s hides another local variable of that name; "
                                 "rename one (the lifted kernel declares it at its top)", name)
           : add_private_decl(x, kids[i], name, t);
      privates++;
    } else {
      /* a private scalar of the thread: declared once, its value a statement */
      l.kind = CC_CUDA_L_PRIVATE;
      rc = name_taken(x, name)
           ? cc_cuda_scop_refuse(x, kids[i], "%s hides another local variable of that name; "
                                 "rename one (the lifted kernel declares it at its top)", name)
           : add_private_decl(x, kids[i], name, t);
      if (rc == CC_OK)
        CC_VEC_PUSH(&x->locals, l);
      free(name);
      return rc != CC_OK || ni == 0 ? rc : private_init(x, c, init[ni - 1], &l);
    }
    free(name);
    if (rc != CC_OK)
      return rc;
    CC_VEC_PUSH(&x->locals, l);
  }
  if (privates == n)
    return CC_OK;
  if (privates) /* `float s, t; int k;` cannot mix, but `T a, b` with b a counter can */
    return cc_cuda_scop_refuse(x, c, "a declaration of private scalars and integers%s; declare "
                               "them apart", "");
  if (!cc_cuda_tu_extent(&x->m->tu, c, &d.b, &d.e) || !cc_cuda_model_whole(x->m, d.b, d.e))
    return cc_cuda_scop_refuse(x, c, "the declaration is partly written by a macro%s", "");
  CC_VEC_PUSH(&x->decls, d);
  CC_VEC_PUSH(&x->visible, (uint32_t)(x->decls.len - 1));
  return CC_OK;
}

/* The counter of a for's init: `int i = lo` or `i = lo`; *l the local, *lo the bound. */
static int for_init(struct cc_cuda_ex *x, CXCursor init, struct cc_cuda_local **l, struct cc_cuda_aff *lo,
                    char **type)
{
  CXCursor kids[2];
  enum CXCursorKind k = clang_getCursorKind(init);
  char op[8];
  *type = NULL;
  if (k == CXCursor_DeclStmt) {
    CXCursor v[2], e[4];
    unsigned ne;
    if (cc_cuda_children(init, v, 2) != 1 || !cc_cuda_scop_is_int(clang_getCursorType(v[0])) ||
        (ne = cc_cuda_children(v[0], e, 4)) == 0)
      return 0;
    if (!cc_cuda_scop_eval_final(x, e[ne - 1], lo))
      return 0;
    {
      struct cc_cuda_local nl;
      memset(&nl, 0, sizeof nl);
      nl.decl = v[0];
      nl.kind = CC_CUDA_L_COUNTER;
      nl.var = -1;
      CC_VEC_PUSH(&x->locals, nl);
      *l = &x->locals.data[x->locals.len - 1];
    }
    *type = cc_cuda_str(clang_getTypeSpelling(clang_getCursorType(v[0])));
    return 1;
  }
  if (k != CXCursor_BinaryOperator || !cc_cuda_scop_binop(x, init, op, sizeof op) || strcmp(op, "=") ||
      cc_cuda_children(init, kids, 2) != 2 ||
      clang_getCursorKind(cc_cuda_scop_strip(kids[0])) != CXCursor_DeclRefExpr)
    return 0;
  *l = cc_cuda_scop_local(x, clang_getCursorReferenced(cc_cuda_scop_strip(kids[0])));
  if (!*l || (*l)->kind != CC_CUDA_L_COUNTER || (*l)->var >= 0)
    return 0;
  return cc_cuda_scop_eval_final(x, kids[1], lo);
}

/* 1 when c refers to the local l. */
static int refers(CXCursor c, const struct cc_cuda_local *l)
{
  c = cc_cuda_scop_strip(c);
  return clang_getCursorKind(c) == CXCursor_DeclRefExpr &&
         clang_equalCursors(clang_getCursorReferenced(c), l->decl);
}

/* The increment: i++, ++i, i += C (*step = C), or i--, --i, i -= C (*step = -C), C a
 * constant 1..1024. */
static int for_inc(struct cc_cuda_ex *x, CXCursor inc, const struct cc_cuda_local *l,
                   int64_t *step)
{
  enum CXCursorKind k = clang_getCursorKind(inc);
  char op[8];
  *step = 1;
  if (k == CXCursor_UnaryOperator) {
    cc_cuda_scop_unop(x, inc, op, sizeof op);
    *step = !strcmp(op, "--") ? -1 : 1;
    return (!strcmp(op, "++") || !strcmp(op, "--")) && refers(cc_cuda_first_child(inc), l);
  }
  if (k == CXCursor_CompoundAssignOperator && cc_cuda_scop_binop(x, inc, op, sizeof op) &&
      (!strcmp(op, "+=") || !strcmp(op, "-="))) {
    CXCursor kids[2];
    struct cc_cuda_xaff c;
    if (cc_cuda_children(inc, kids, 2) != 2 || !refers(kids[0], l) ||
        !cc_cuda_scop_eval(x, kids[1], &c) || !cc_cuda_scop_is_const(&c) || c.a.c < 1 ||
        c.a.c > 1024)
      return 0;
    *step = op[0] == '-' ? -c.a.c : c.a.c;
    return 1;
  }
  return 0;
}

static int loop(struct cc_cuda_ex *x, CXCursor c)
{
  CXCursor kids[4];
  struct cc_cuda_local *l = NULL;
  struct cc_cuda_aff lo, cmp;
  char *type = NULL, *name;
  unsigned line, col, off;
  uint32_t ncons = x->ncons;
  size_t nlocals = x->locals.len, nvisible = x->visible.len;
  int v, rc;
  if (cc_cuda_children(c, kids, 4) != 4)
    return cc_cuda_scop_refuse(x, c, "a for loop without all of its init, condition and increment%s", "");
  if (x->nloops == CC_CUDA_SCOP_MAXDEPTH)
    return cc_cuda_scop_refuse(x, c, "a loop nest deeper than %s", "22");
  cc_cuda_scop_fresh(x);
  if (!for_init(x, kids[0], &l, &lo, &type))
    return cc_cuda_scop_refuse_affine(x, kids[0], "loop start");
  name = cc_cuda_spelling(l->decl);
  v = cc_cuda_scop_new_var(x, CC_CUDA_SV_LOOP, name);
  free(name);
  if (v < 0) {
    free(type);
    return cc_cuda_scop_refuse(x, c, "more than %s loops and parameters", "24");
  }
  cc_cuda_tu_linecol(clang_getCursorLocation(c), &line, &col);
  x->s->vars[v].type = type;
  x->s->vars[v].line = line;
  x->s->vars[v].column = col;
  l->var = v;
  if (!for_inc(x, kids[2], l, &x->s->vars[v].step))
    return cc_cuda_scop_refuse(x, kids[2], "the loop step is not a constant of 1 to 1024 "
                               "(`i++`, `i += 2`, `i--`)%s", "");
  /* lo <= i counting up, i <= lo counting down */
  cmp = lo;
  if (x->s->vars[v].step > 0) {
    for (int i = 0; i < CC_CUDA_SCOP_MAXV; i++)
      cmp.coef[i] = -cmp.coef[i];
    cmp.c = -cmp.c;
    cmp.coef[v] += 1;
  } else {
    cmp.coef[v] -= 1;
  }
  if (!cc_cuda_scop_push_con(x, &cmp))
    return cc_cuda_scop_refuse(x, c, "more than %s constraints", "256");
  cc_cuda_scop_fresh(x);
  {
    CXCursor cc[2], cs = cc_cuda_scop_strip(kids[1]);
    char op[8];
    if (clang_getCursorKind(cs) != CXCursor_BinaryOperator || !cc_cuda_scop_binop(x, cs, op, sizeof op) ||
        cc_cuda_children(cs, cc, 2) != 2 || !(refers(cc[0], l) || refers(cc[1], l)) ||
        !strcmp(op, "==") || !strcmp(op, "&&"))
      return cc_cuda_scop_refuse_affine(x, kids[1], "loop condition");
    if (!cc_cuda_scop_cond(x, cs, 0))
      return cc_cuda_scop_refuse_affine(x, kids[1], "loop bound");
  }
  if (x->s->vars[v].step > 1 || x->s->vars[v].step < -1) {
    x->s->vars[v].lo = cc_xmalloc(sizeof *x->s->vars[v].lo);
    *x->s->vars[v].lo = lo;
  }
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

/* 1 when c is `#pragma unroll [N]` (or another pragma) before a for loop: libclang 14
 * shows the attributed statement as an UnexposedStmt whose one child is the loop. The
 * pragma is a hint to nvcc; the lifted code makes its own loops and drops it. */
static int pragma_loop(struct cc_cuda_ex *x, CXCursor c)
{
  CXCursor kids[2];
  unsigned b, e;
  const char *t;
  if (cc_cuda_children(c, kids, 2) != 1 || clang_getCursorKind(kids[0]) != CXCursor_ForStmt ||
      !cc_cuda_tu_extent(&x->m->tu, c, &b, &e))
    return 0;
  t = x->m->tu.text + b;
  return !strncmp(t, "#pragma", 7) || !strncmp(t, "_Pragma", 7);
}

static int branch(struct cc_cuda_ex *x, CXCursor c, int top)
{
  CXCursor kids[3];
  uint32_t ncons = x->ncons;
  unsigned n = cc_cuda_children(c, kids, 3);
  int rc;
  if (n < 2 || n > 3 || clang_getCursorKind(kids[0]) == CXCursor_DeclStmt)
    return cc_cuda_scop_refuse(x, c, "an if with an init or a declared condition%s", "");
  cc_cuda_scop_fresh(x);
  if (n == 2 && clang_getCursorKind(kids[1]) == CXCursor_ReturnStmt) {
    /* `if (c) return;` at the top level: !c bounds the rest of the kernel */
    if (!top)
      return cc_cuda_scop_refuse(x, kids[1], "a return inside a loop or a branch%s", "");
    if (!cc_cuda_scop_cond(x, kids[0], 1))
      return cc_cuda_scop_refuse_affine(x, kids[0], "condition");
    return CC_OK;
  }
  if (!cc_cuda_scop_cond(x, kids[0], 0))
    return cc_cuda_scop_refuse_affine(x, kids[0], "condition");
  rc = walk(x, kids[1], 0);
  x->ncons = ncons;
  if (rc == CC_OK && n == 3) {
    /* else: the negated comparison (a conjunction's negation is not convex) */
    cc_cuda_scop_fresh(x);
    if (!cc_cuda_scop_cond(x, kids[0], 1))
      return cc_cuda_scop_refuse_affine(x, kids[0], "condition (negated, for the else branch)");
    rc = walk(x, kids[2], 0);
    x->ncons = ncons;
  }
  return rc;
}

static int walk(struct cc_cuda_ex *x, CXCursor c, int top)
{
  enum CXCursorKind k = clang_getCursorKind(c);
  switch (k) {
  case CXCursor_CompoundStmt: {
    CXCursor kids[512];
    unsigned n = cc_cuda_children(c, kids, 512);
    size_t nvisible = x->visible.len, nlocals = x->locals.len;
    int rc = CC_OK;
    if (n > 512)
      return cc_cuda_scop_refuse(x, c, "a block of more than %s statements", "512");
    for (unsigned i = 0; i < n && rc == CC_OK; i++)
      /* the kernel's last statement `return;` (Rodinia's invert_mapping) ends nothing */
      if (!(top == 2 && i + 1 == n && clang_getCursorKind(kids[i]) == CXCursor_ReturnStmt &&
            cc_cuda_children(kids[i], NULL, 0) == 0))
        rc = walk(x, kids[i], top ? 1 : 0);
    if (top != 2) { /* the block's declarations end with it (not the kernel body's) */
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
  case CXCursor_UnexposedStmt:
    if (pragma_loop(x, c))
      return loop(x, cc_cuda_first_child(c));
    return cc_cuda_scop_refuse(x, c, "a statement libclang does not expose (an attribute or "
                               "a pragma other than one before a for loop)%s", "");
  default: {
    char *kind = cc_cuda_str(clang_getCursorKindSpelling(k));
    int rc = cc_cuda_scop_refuse(x, c, "a %s", kind);
    free(kind);
    return rc;
  }
  }
}

/* ---- entry ---- */

static void release_ex(struct cc_cuda_ex *x)
{
  CC_VEC_FREE(&x->locals);
  CC_VEC_FREE(&x->visible);
  for (size_t i = 0; i < x->stmts.len; i++) {
    drop_statement(&x->stmts.data[i]);
    free(x->stmts.data[i].cons);
    free(x->stmts.data[i].decls);
  }
  for (size_t i = 0; i < x->privs.len; i++) {
    free(x->privs.data[i].name);
    free(x->privs.data[i].type);
  }
  CC_VEC_FREE(&x->privs);
  CC_VEC_FREE(&x->stmts);
  CC_VEC_FREE(&x->decls);
}

/* The geometry variables g_d, 0 <= g_d < grid[d] * block[d], for the dimensions up to
 * the last whose extent is more than 1 (at least x). */
static void geometry(struct cc_cuda_ex *x, struct cc_cuda_scop *out)
{
  static const char *const names[3] = {"__cc_g", "__cc_gy", "__cc_gz"};
  out->ngeo = 1;
  for (int d = 1; d < 3; d++)
    if ((uint64_t)x->grid[d] * x->block[d] > 1)
      out->ngeo = d + 1;
  for (int d = 0; d < 3; d++) {
    struct cc_cuda_aff lo, hi;
    out->extent[d] = (uint64_t)x->grid[d] * x->block[d];
    out->block[d] = x->block[d];
    out->grid[d] = x->grid[d];
    if (d >= out->ngeo)
      continue;
    cc_cuda_scop_new_var(x, CC_CUDA_SV_GEO, names[d]);
    memset(&lo, 0, sizeof lo);
    lo.coef[d] = 1;
    memset(&hi, 0, sizeof hi);
    hi.coef[d] = -1;
    hi.c = (int64_t)out->extent[d] - 1;
    cc_cuda_scop_push_con(x, &lo);
    cc_cuda_scop_push_con(x, &hi);
  }
}

static int extract(struct cc_cuda_ex *x, struct cc_cuda_scop *out)
{
  CXCursor kids[64], body = clang_getNullCursor();
  unsigned n = cc_cuda_children(x->kernel, kids, 64);
  int rc;
  for (unsigned i = 0; i < n && i < 64; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_CompoundStmt)
      body = kids[i];
  if (clang_Cursor_isNull(body) || !cc_cuda_tu_extent(&x->m->tu, body, &out->body_b, &out->body_e))
    return cc_cuda_scop_refuse(x, x->kernel, "kernel %s has no body in the file", x->m->kernel_name);
  if (clang_getCursorKind(x->kernel) != CXCursor_FunctionDecl)
    return cc_cuda_scop_refuse(x, x->kernel, "kernel %s is a template", x->m->kernel_name);
  geometry(x, out);
  rc = walk(x, body, 2);
  if (rc == CC_OK && x->stmts.len == 0)
    rc = cc_cuda_scop_refuse(x, x->kernel, "kernel %s writes no array%s", "");
  return rc;
}

int cc_cuda_scop_extract(const char *path, const char *text, size_t len, const char *kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const int64_t *values, const uint8_t *known, uint32_t nparams,
                         const char *const *extra_args, size_t nextra,
                         struct cc_cuda_scop *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  struct cc_cuda_ex x;
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
  cc_cuda_scop_fresh(&x);
  out->path = cc_xstrdup(path);
  cc_cuda_tu_linecol(clang_getCursorLocation(x.kernel), &line, &col);
  out->line = line;
  out->column = col;
  rc = extract(&x, out);
  if (rc == CC_OK) {
    out->nstmts = (uint32_t)x.stmts.len;
    out->stmts = x.stmts.data;
    x.stmts.data = NULL;
    x.stmts.len = 0;
    out->nprivs = (uint32_t)x.privs.len;
    out->privs = x.privs.data;
    x.privs.data = NULL;
    x.privs.len = 0;
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
