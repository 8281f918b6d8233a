/* coalcheck fix: loop lifting's polyhedral side with isl (poly.h). The SCoP comes in
 * isl's notation from src/cuda (cc_cuda_scop_isl_*), so isl parses what the tests can
 * read; the AST isl generates is printed back as CUDA C here. */
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "fix/poly.h"

struct cc_fix_poly {
  const struct cc_cuda_scop *s;
  isl_ctx *ctx;
  isl_set **dom;              /* numeric domains, one per statement */
  char **arrays; uint32_t narrays; /* distinct array names */
};

/* "S<i>[a0, a1, ...]" for statement i, dims named by position. */
static void put_tuple(struct cc_strbuf *f, const struct cc_cuda_scop *s, uint32_t i)
{
  cc_strbuf_printf(f, "S%u[", i);
  for (int k = 0; k < s->ngeo + s->stmts[i].nloops; k++)
    cc_strbuf_printf(f, "%sa%d", k ? ", " : "", k);
  cc_strbuf_printf(f, "]");
}

/* Position of var in statement i's tuple (the geometry variables first, at their own
 * index), or -1. */
static int var_pos(const struct cc_cuda_scop *s, uint32_t i, int var)
{
  if (var >= 0 && var < s->ngeo)
    return var;
  for (int k = 0; k < s->stmts[i].nloops; k++)
    if (s->stmts[i].loops[k] == var)
      return s->ngeo + k;
  return -1;
}

/* "a0, a1, ..." for the geometry variables, into f. */
static void put_geo(struct cc_strbuf *f, const struct cc_cuda_scop *s)
{
  for (int d = 0; d < s->ngeo; d++)
    cc_strbuf_printf(f, "%sa%d", d ? ", " : "", d);
}

/* ---- statements replicated in every thread of a lifted loop ---- */

/* 1 when private scalar name is written by no statement inside the loop var (a loop):
 * each thread of the lifted kernel may then hold its own copy, since every write the
 * loop's iterations see comes from outside the loop, which each thread replays. */
static int private_outside(const struct cc_cuda_scop *s, const char *name, int var)
{
  int priv = 0;
  for (uint32_t i = 0; i < s->nstmts; i++)
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++) {
      const struct cc_cuda_scop_access *a = &s->stmts[i].acc[k];
      if (!strcmp(a->array, name)) {
        if (!a->priv)
          return 0;
        priv = 1;
        if (a->write && var_pos(s, i, var) >= 0)
          return 0;
      }
    }
  return priv;
}

/* 1 when statement i, outside the loop var, writes only private scalars that the loop
 * does not write (`float c = 0.25f;`, `float xi = x[i];` before the loop): every thread of
 * the lifted kernel runs it, so the loop's iterations, now threads, each see the value
 * their original thread saw; its reads count as made at every value of var (a write to
 * them inside the loop is then a dependence between threads, refused). Running it in
 * more threads writes no memory. */
static int replicated(const struct cc_cuda_scop *s, uint32_t i, int var)
{
  const struct cc_cuda_scop_stmt *st = &s->stmts[i];
  int writes = 0;
  if (var < s->ngeo || var_pos(s, i, var) >= 0)
    return 0;
  for (uint32_t k = 0; k < st->nacc; k++)
    if (st->acc[k].write) {
      if (!st->acc[k].priv || !private_outside(s, st->acc[k].array, var))
        return 0;
      writes = 1;
    }
  return writes;
}

/* ---- building ---- */

static int add_array(struct cc_fix_poly *p, const char *name)
{
  for (uint32_t i = 0; i < p->narrays; i++)
    if (!strcmp(p->arrays[i], name))
      return 0;
  p->arrays = cc_xrealloc(p->arrays, (p->narrays + 1) * sizeof *p->arrays);
  p->arrays[p->narrays++] = cc_xstrdup(name);
  return 1;
}

int cc_fix_poly_build(const struct cc_cuda_scop *s, struct cc_fix_poly **out,
                      struct cc_err *err)
{
  struct cc_fix_poly *p = cc_xcalloc(1, sizeof *p);
  p->s = s;
  p->ctx = isl_ctx_alloc();
  isl_options_set_on_error(p->ctx, ISL_ON_ERROR_CONTINUE);
  p->dom = cc_xcalloc(s->nstmts ? s->nstmts : 1, sizeof *p->dom);
  for (uint32_t i = 0; i < s->nstmts; i++) {
    char *t = cc_cuda_scop_isl_domain(s, i, 1);
    p->dom[i] = isl_set_read_from_str(p->ctx, t);
    if (!p->dom[i]) {
      int rc = cc_err_set(err, CC_ERR_INTERNAL, "isl rejected the domain %s", t);
      free(t);
      cc_fix_poly_free(p);
      return rc;
    }
    free(t);
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++)
      add_array(p, s->stmts[i].acc[k].array);
  }
  *out = p;
  return CC_OK;
}

void cc_fix_poly_free(struct cc_fix_poly *p)
{
  if (!p)
    return;
  for (uint32_t i = 0; i < p->s->nstmts; i++)
    isl_set_free(p->dom[i]);
  for (uint32_t i = 0; i < p->narrays; i++)
    free(p->arrays[i]);
  free(p->arrays);
  free(p->dom);
  isl_ctx_free(p->ctx);
  free(p);
}

/* The accesses (write or read) of every statement to array, restricted to the domains. */
static isl_union_map *accesses(const struct cc_fix_poly *p, const char *array, int write)
{
  const struct cc_cuda_scop *s = p->s;
  isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(p->ctx, 0));
  for (uint32_t i = 0; i < s->nstmts; i++)
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++) {
      const struct cc_cuda_scop_access *a = &s->stmts[i].acc[k];
      char *buf;
      isl_map *m;
      if (a->write != write || strcmp(a->array, array))
        continue;
      buf = cc_cuda_scop_isl_access_one(s, i, k);
      m = isl_map_read_from_str(p->ctx, buf);
      free(buf);
      m = isl_map_intersect_domain(m, isl_set_copy(p->dom[i]));
      u = isl_union_map_add_map(u, m);
    }
  return u;
}

/* Pairs of instances that touch the same element of array, at least one writing. */
static isl_union_map *dependences(const struct cc_fix_poly *p, const char *array)
{
  isl_union_map *w = accesses(p, array, 1), *r = accesses(p, array, 0);
  isl_union_map *ww = isl_union_map_apply_range(isl_union_map_copy(w),
                                                isl_union_map_reverse(isl_union_map_copy(w)));
  isl_union_map *wr = isl_union_map_apply_range(isl_union_map_copy(w),
                                                isl_union_map_reverse(isl_union_map_copy(r)));
  isl_union_map *rw = isl_union_map_apply_range(r, isl_union_map_reverse(w));
  return isl_union_map_union(isl_union_map_union(ww, wr), rw);
}

/* { S<i>[...] -> [g..., var] } for every statement (var < 0 or a geometry variable:
 * [g...]); a statement outside the loop var runs on the thread var = pin. */
static isl_union_map *threads(const struct cc_fix_poly *p, int var, int64_t pin)
{
  const struct cc_cuda_scop *s = p->s;
  isl_union_map *u = isl_union_map_empty(isl_space_params_alloc(p->ctx, 0));
  for (uint32_t i = 0; i < s->nstmts; i++) {
    struct cc_strbuf sb = {0}, *f = &sb;
    int pos = var < s->ngeo ? -1 : var_pos(s, i, var);
    isl_map *m;
    cc_strbuf_printf(f, "{ ");
    put_tuple(f, s, i);
    cc_strbuf_printf(f, " -> [");
    put_geo(f, s);
    if (var < s->ngeo)
      cc_strbuf_printf(f, "] }");
    else if (pos < 0 && replicated(s, i, var))
      cc_strbuf_printf(f, ", r] }");
    else if (pos < 0)
      cc_strbuf_printf(f, ", %lld] }", (long long)pin);
    else
      cc_strbuf_printf(f, ", a%d] }", pos);
    m = isl_map_read_from_str(p->ctx, sb.s);
    free(sb.s);
    u = isl_union_map_add_map(u, m);
  }
  return u;
}

/* "3" (one geometry variable) or "(3, 0)": the thread distance of point pt into buf. */
static void thread_distance(const struct cc_cuda_scop *s, isl_point *pt, char *buf, size_t size)
{
  size_t at = 0;
  for (int d = 0; d < s->ngeo; d++) {
    isl_val *v = isl_point_get_coordinate_val(pt, isl_dim_set, d);
    at += (size_t)snprintf(buf + at, at < size ? size - at : 0, "%s%lld",
                           d ? ", " : s->ngeo > 1 ? "(" : "",
                           v ? (long long)isl_val_get_num_si(v) : 0LL);
    isl_val_free(v);
  }
  if (s->ngeo > 1 && at < size)
    snprintf(buf + at, size - at, ")");
}

int cc_fix_poly_parallel(const struct cc_fix_poly *p, int var, int64_t pin, char *why,
                         size_t size)
{
  isl_union_map *t = threads(p, var, pin);
  int ok = 1, ng = p->s->ngeo, width = ng + (var >= ng);
  char zs[64] = "{ [0";
  for (int k = 1; k < width; k++)
    strcat(zs, ", 0");
  strcat(zs, "] }");
  for (uint32_t a = 0; a < p->narrays && ok; a++) {
    isl_union_map *d;
    isl_union_set *delta, *zero;
    if (var >= ng && private_outside(p->s, p->arrays[a], var))
      continue; /* a copy per thread: its writers are replicated */
    d = dependences(p, p->arrays[a]);
    d = isl_union_map_apply_domain(d, isl_union_map_copy(t));
    d = isl_union_map_apply_range(d, isl_union_map_copy(t));
    delta = isl_union_map_deltas(d);
    zero = isl_union_set_read_from_str(p->ctx, zs);
    if (isl_union_set_is_subset(delta, zero) != isl_bool_true) {
      isl_union_set *bad = isl_union_set_subtract(isl_union_set_copy(delta),
                                                  isl_union_set_copy(zero));
      isl_point *pt = isl_union_set_sample_point(bad);
      isl_val *dv = var < ng ? NULL : isl_point_get_coordinate_val(pt, isl_dim_set, ng);
      char dg[96];
      thread_distance(p->s, pt, dg, sizeof dg);
      ok = 0;
      snprintf(why, size, "%s: two instances %s threads and %lld iterations apart touch "
               "the same element, one writing", p->arrays[a], dg,
               dv ? (long long)isl_val_get_num_si(dv) : 0LL);
      isl_val_free(dv);
      isl_point_free(pt);
    }
    isl_union_set_free(delta);
    isl_union_set_free(zero);
  }
  isl_union_map_free(t);
  return ok;
}

/* ---- the loads-first plays ---- */

/* 1 when name is a private scalar of the thread (a register), not an array. */
static int is_private(const struct cc_cuda_scop *s, const char *name)
{
  for (uint32_t i = 0; i < s->nstmts; i++)
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++)
      if (!strcmp(s->stmts[i].acc[k].array, name))
        return s->stmts[i].acc[k].priv;
  return 0;
}

struct raw_scan {
  const struct cc_cuda_scop *s;
  int found;                 /* a read after a write of the same element */
  uint32_t w, r;             /* its statements */
};

/* For one map { S<w>[g] -> S<r>[g'] } of instances touching the same element (the
 * writer first): found when S<r> lies after S<w> in the body and the map is not empty. */
static isl_stat raw_one(isl_map *m, void *user)
{
  struct raw_scan *x = user;
  const char *a = isl_map_get_tuple_name(m, isl_dim_in), *b = isl_map_get_tuple_name(m, isl_dim_out);
  uint32_t w = a ? (uint32_t)strtoul(a + 1, NULL, 10) : 0, r = b ? (uint32_t)strtoul(b + 1, NULL, 10) : 0;
  if (!x->found && a && b && w < x->s->nstmts && r < x->s->nstmts &&
      x->s->stmts[r].b > x->s->stmts[w].b && isl_map_is_empty(m) == isl_bool_false) {
    x->found = 1;
    x->w = w;
    x->r = r;
  }
  isl_map_free(m);
  return isl_stat_ok;
}

int cc_fix_poly_loads_first(const struct cc_fix_poly *p, char *why, size_t size)
{
  const struct cc_cuda_scop *s = p->s;
  struct raw_scan x = {s, 0, 0, 0};
  char what[400];
  if (!cc_fix_poly_parallel(p, -1, 0, what, sizeof what)) {
    snprintf(why, size, "threads of the original share an element (%s): a play could "
             "read another play's store", what);
    return 0;
  }
  for (uint32_t i = 0; i < s->nstmts; i++)
    if (s->stmts[i].nloops > 0) {
      snprintf(why, size, "line %u: a statement inside a loop (the loads-first plays are "
               "for straight-line bodies)", s->stmts[i].line);
      return 0;
    }
  for (uint32_t a = 0; a < p->narrays && !x.found; a++) {
    isl_union_map *w, *r, *same;
    if (is_private(s, p->arrays[a]))
      continue; /* a register of the thread: phase A and B each compute it */
    w = accesses(p, p->arrays[a], 1);
    r = accesses(p, p->arrays[a], 0);
    same = isl_union_map_apply_range(w, isl_union_map_reverse(r));
    isl_union_map_foreach_map(same, raw_one, &x);
    isl_union_map_free(same);
    if (x.found)
      snprintf(why, size, "line %u reads an element of %s that line %u of the same thread "
               "wrote before: the value kept in phase A would be stale",
               s->stmts[x.r].line, p->arrays[a], s->stmts[x.w].line);
  }
  return !x.found;
}

/* The value of the one dimension of a single-point set s (taken), or NULL. */
static isl_val *fixed_val(isl_set *s)
{
  isl_val *v = isl_set_plain_get_val_if_fixed(s, isl_dim_set, 0);
  isl_set_free(s);
  return v;
}

int cc_fix_poly_range(const struct cc_fix_poly *p, int var, int64_t *lo, int64_t *hi)
{
  int found = 0;
  for (uint32_t i = 0; i < p->s->nstmts; i++) {
    int pos = var_pos(p->s, i, var);
    isl_set *d;
    isl_val *mn, *mx;
    if (pos < 0 || isl_set_is_empty(p->dom[i]) == isl_bool_true)
      continue;
    d = isl_set_copy(p->dom[i]);
    d = isl_set_project_out(d, isl_dim_set, (unsigned)pos + 1,
                            (unsigned)isl_set_dim(d, isl_dim_set) - (unsigned)pos - 1);
    d = isl_set_project_out(d, isl_dim_set, 0, (unsigned)pos);
    mn = fixed_val(isl_set_lexmin(isl_set_copy(d)));
    mx = fixed_val(isl_set_lexmax(d));
    if (mn && mx && isl_val_is_int(mn) && isl_val_is_int(mx)) {
      int64_t a = isl_val_get_num_si(mn), b = isl_val_get_num_si(mx);
      if (!found || a < *lo)
        *lo = a;
      if (!found || b > *hi)
        *hi = b;
      found = 1;
    }
    isl_val_free(mn);
    isl_val_free(mx);
  }
  return found;
}

/* ---- code generation ---- */

/* 1 when geometry variable d runs as a loop in the lifted kernel (strided, or over its
 * whole range). */
static int geo_loop(const struct cc_fix_poly_lift *l, int d)
{
  return d != l->var && (!l->geo[d].name || l->geo[d].stride);
}

/* Statement i's domain with symbolic parameters, var = vname (a statement outside the
 * loop: vname = pin) and each geometry variable fixed to its thread index, or to that
 * index plus a multiple of its stride, or free (a loop over its range). */
static isl_set *codegen_domain(const struct cc_fix_poly *p, uint32_t i,
                               const struct cc_fix_poly_lift *l)
{
  int pos = var_pos(p->s, i, l->var), nk = 0;
  char *t = cc_cuda_scop_isl_domain(p->s, i, 0);
  struct cc_strbuf sb = {0}, *f = &sb;
  isl_set *d = isl_set_read_from_str(p->ctx, t), *fix;
  free(t);
  /* the geometry's names first, then vname: the order of isl's parameters, which orders
     the guards it prints */
  cc_strbuf_printf(f, "[");
  for (int g = 0; g < p->s->ngeo; g++)
    if (g != l->var && l->geo[g].name)
      cc_strbuf_printf(f, "%s, ", l->geo[g].name);
  cc_strbuf_printf(f, "%s] -> { ", l->vname);
  put_tuple(f, p->s, i);
  cc_strbuf_printf(f, " : ");
  for (int g = 0; g < p->s->ngeo; g++) {
    if (g == l->var || !l->geo[g].name)
      continue;
    if (l->geo[g].stride)
      cc_strbuf_printf(f, "exists (k%d : k%d >= 0 and a%d = %s + %lld k%d) and ", nk, nk, g,
                       l->geo[g].name, (long long)l->geo[g].stride, nk), nk++;
    else
      cc_strbuf_printf(f, "a%d = %s and ", g, l->geo[g].name);
  }
  if (pos < 0 && replicated(p->s, i, l->var))
    cc_strbuf_printf(f, "%s = %s }", l->vname, l->vname); /* every thread runs it */
  else if (pos < 0)
    cc_strbuf_printf(f, "%s = %lld }", l->vname, (long long)l->pin);
  else
    cc_strbuf_printf(f, "a%d = %s }", pos, l->vname);
  fix = isl_set_read_from_str(p->ctx, sb.s);
  free(sb.s);
  return isl_set_intersect(d, fix);
}

/* The original textual order without var: [beta0, l0, beta1, ..., beta_d] padded to
 * width entries with zeros, after the geometry variables that are loops, outermost. */
static isl_map *codegen_schedule(const struct cc_fix_poly *p, uint32_t i,
                                 const struct cc_fix_poly_lift *l, int width)
{
  const struct cc_cuda_scop_stmt *st = &p->s->stmts[i];
  struct cc_strbuf sb = {0}, *f = &sb;
  int n = 0, ng = p->s->ngeo;
  isl_map *m;
  cc_strbuf_printf(f, "{ ");
  put_tuple(f, p->s, i);
  cc_strbuf_printf(f, " -> [");
  for (int g = 0; g < ng; g++)
    if (geo_loop(l, g))
      cc_strbuf_printf(f, "%sa%d", n++ ? ", " : "", g);
  for (int k = 0; k <= st->nloops; k++) {
    cc_strbuf_printf(f, "%s%u", n++ ? ", " : "", st->beta[k]);
    if (k < st->nloops && st->loops[k] != l->var) /* a loop counting down runs so */
      cc_strbuf_printf(f, ", %sa%d", p->s->vars[st->loops[k]].step < 0 ? "-" : "", ng + k), n++;
  }
  for (; n < width; n++)
    cc_strbuf_printf(f, ", 0");
  cc_strbuf_printf(f, "] }");
  m = isl_map_read_from_str(p->ctx, sb.s);
  free(sb.s);
  return m;
}

struct printer {
  struct cc_strbuf *f;
  cc_fix_poly_stmt_fn fn;
  void *ctx;
  int bad;
};

static void print_expr(struct printer *pr, isl_ast_expr *e);

static void print_arg(struct printer *pr, isl_ast_expr *e, int i)
{
  isl_ast_expr *a = isl_ast_expr_op_get_arg(e, i);
  print_expr(pr, a);
  isl_ast_expr_free(a);
}

static void print_fold(struct printer *pr, isl_ast_expr *e, int from, int n, const char *cmp)
{
  if (from == n - 1) {
    print_arg(pr, e, from);
    return;
  }
  /* ((a) cmp (rest) ? (a) : (rest)); the operands are side-effect free */
  cc_strbuf_printf(pr->f, "((");
  print_arg(pr, e, from);
  cc_strbuf_printf(pr->f, ") %s (", cmp);
  print_fold(pr, e, from + 1, n, cmp);
  cc_strbuf_printf(pr->f, ") ? (");
  print_arg(pr, e, from);
  cc_strbuf_printf(pr->f, ") : (");
  print_fold(pr, e, from + 1, n, cmp);
  cc_strbuf_printf(pr->f, "))");
}

/* Prints template t with each "#k" replaced by argument k of e. */
static void print_tmpl(struct printer *pr, isl_ast_expr *e, const char *t)
{
  for (; *t; t++)
    if (t[0] == '#' && t[1] >= '0' && t[1] <= '9')
      print_arg(pr, e, *++t - '0');
    else
      cc_strbuf_printf(pr->f, "%c", *t);
}

static void print_op(struct printer *pr, isl_ast_expr *e)
{
  static const struct { enum isl_ast_expr_op_type t; int n; const char *tmpl; } ops[] = {
    {isl_ast_expr_op_and, 2, "(#0 && #1)"}, {isl_ast_expr_op_and_then, 2, "(#0 && #1)"},
    {isl_ast_expr_op_or, 2, "(#0 || #1)"}, {isl_ast_expr_op_or_else, 2, "(#0 || #1)"},
    {isl_ast_expr_op_add, 2, "(#0 + #1)"}, {isl_ast_expr_op_sub, 2, "(#0 - #1)"},
    {isl_ast_expr_op_mul, 2, "(#0 * #1)"}, {isl_ast_expr_op_div, 2, "(#0 / #1)"},
    {isl_ast_expr_op_pdiv_q, 2, "(#0 / #1)"}, {isl_ast_expr_op_pdiv_r, 2, "(#0 % #1)"},
    {isl_ast_expr_op_zdiv_r, 2, "(#0 % #1)"}, {isl_ast_expr_op_eq, 2, "(#0 == #1)"},
    {isl_ast_expr_op_le, 2, "(#0 <= #1)"}, {isl_ast_expr_op_lt, 2, "(#0 < #1)"},
    {isl_ast_expr_op_ge, 2, "(#0 >= #1)"}, {isl_ast_expr_op_gt, 2, "(#0 > #1)"},
    {isl_ast_expr_op_minus, 1, "(-#0)"},
    {isl_ast_expr_op_cond, 3, "(#0 ? #1 : #2)"}, {isl_ast_expr_op_select, 3, "(#0 ? #1 : #2)"},
    /* floor division by a positive constant d: n < 0 ? -((-n + d - 1) / d) : n / d */
    {isl_ast_expr_op_fdiv_q, 2, "((#0) < 0 ? -((-(#0) + (#1) - 1) / (#1)) : (#0) / (#1))"},
  };
  enum isl_ast_expr_op_type t = isl_ast_expr_op_get_type(e);
  int n = (int)isl_ast_expr_op_get_n_arg(e);
  if (t == isl_ast_expr_op_min || t == isl_ast_expr_op_max) {
    print_fold(pr, e, 0, n, t == isl_ast_expr_op_min ? "<" : ">");
    return;
  }
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ops[i].t == t && ops[i].n == n) {
      print_tmpl(pr, e, ops[i].tmpl);
      return;
    }
  pr->bad = 1;
  cc_strbuf_printf(pr->f, "/* isl operation %d */", (int)t);
}

static void print_expr(struct printer *pr, isl_ast_expr *e)
{
  switch (isl_ast_expr_get_type(e)) {
  case isl_ast_expr_id: {
    isl_id *id = isl_ast_expr_id_get_id(e);
    cc_strbuf_printf(pr->f, "%s", isl_id_get_name(id));
    isl_id_free(id);
    return;
  }
  case isl_ast_expr_int: {
    isl_val *v = isl_ast_expr_int_get_val(e);
    cc_strbuf_printf(pr->f, "%ld", isl_val_get_num_si(v));
    isl_val_free(v);
    return;
  }
  case isl_ast_expr_op:
    print_op(pr, e);
    return;
  default:
    pr->bad = 1;
  }
}

/* The expression as an owned string. */
static char *expr_str(struct printer *pr, isl_ast_expr *e)
{
  struct printer sub = *pr;
  struct cc_strbuf sb = {0};
  sub.f = &sb;
  print_expr(&sub, e);
  pr->bad |= sub.bad;
  return sb.s ? sb.s : cc_xstrdup("");
}

static void print_node(struct printer *pr, isl_ast_node *n, int ind);

static void print_user(struct printer *pr, isl_ast_node *n, int ind)
{
  isl_ast_expr *call = isl_ast_node_user_get_expr(n);
  isl_ast_expr *name = isl_ast_expr_op_get_arg(call, 0);
  isl_id *id = isl_ast_expr_id_get_id(name);
  int nargs = (int)isl_ast_expr_op_get_n_arg(call) - 1;
  char **args = cc_xcalloc((size_t)nargs + 1, sizeof *args);
  for (int i = 0; i < nargs; i++) {
    isl_ast_expr *a = isl_ast_expr_op_get_arg(call, i + 1);
    args[i] = expr_str(pr, a);
    isl_ast_expr_free(a);
  }
  pr->fn(pr->ctx, pr->f, (uint32_t)atoi(isl_id_get_name(id) + 1), (const char *const *)args,
         nargs, ind);
  for (int i = 0; i < nargs; i++)
    free(args[i]);
  free(args);
  isl_id_free(id);
  isl_ast_expr_free(name);
  isl_ast_expr_free(call);
}

static void print_for(struct printer *pr, isl_ast_node *n, int ind)
{
  isl_ast_expr *it = isl_ast_node_for_get_iterator(n), *init = isl_ast_node_for_get_init(n);
  isl_ast_node *body = isl_ast_node_for_get_body(n);
  char *si = expr_str(pr, it), *sinit = expr_str(pr, init);
  if (isl_ast_node_for_is_degenerate(n) == isl_bool_true) {
    cc_strbuf_printf(pr->f, "%*s{\n%*sconst int %s = %s;\n", ind, "", ind + 2, "", si, sinit);
  } else {
    isl_ast_expr *cond = isl_ast_node_for_get_cond(n), *inc = isl_ast_node_for_get_inc(n);
    char *sc = expr_str(pr, cond), *sinc = expr_str(pr, inc);
    cc_strbuf_printf(pr->f, "%*sfor (int %s = %s; %s; %s += %s) {\n", ind, "", si, sinit, sc, si, sinc);
    free(sc);
    free(sinc);
    isl_ast_expr_free(cond);
    isl_ast_expr_free(inc);
  }
  print_node(pr, body, ind + 2);
  cc_strbuf_printf(pr->f, "%*s}\n", ind, "");
  free(si);
  free(sinit);
  isl_ast_expr_free(it);
  isl_ast_expr_free(init);
  isl_ast_node_free(body);
}

static void print_if(struct printer *pr, isl_ast_node *n, int ind)
{
  isl_ast_expr *cond = isl_ast_node_if_get_cond(n);
  isl_ast_node *then = isl_ast_node_if_get_then_node(n);
  char *sc = expr_str(pr, cond); /* an operation prints wholly parenthesised (print_op) */
  cc_strbuf_printf(pr->f, "%*sif %s%s%s {\n", ind, "", sc[0] == '(' ? "" : "(", sc, sc[0] == '(' ? "" : ")");
  print_node(pr, then, ind + 2);
  if (isl_ast_node_if_has_else_node(n) == isl_bool_true) {
    isl_ast_node *els = isl_ast_node_if_get_else_node(n);
    cc_strbuf_printf(pr->f, "%*s} else {\n", ind, "");
    print_node(pr, els, ind + 2);
    isl_ast_node_free(els);
  }
  cc_strbuf_printf(pr->f, "%*s}\n", ind, "");
  free(sc);
  isl_ast_expr_free(cond);
  isl_ast_node_free(then);
}

static void print_node(struct printer *pr, isl_ast_node *n, int ind)
{
  switch (isl_ast_node_get_type(n)) {
  case isl_ast_node_for:
    print_for(pr, n, ind);
    return;
  case isl_ast_node_if:
    print_if(pr, n, ind);
    return;
  case isl_ast_node_block: {
    isl_ast_node_list *l = isl_ast_node_block_get_children(n);
    int k = (int)isl_ast_node_list_n_ast_node(l);
    for (int i = 0; i < k; i++) {
      isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
      print_node(pr, c, ind);
      isl_ast_node_free(c);
    }
    isl_ast_node_list_free(l);
    return;
  }
  case isl_ast_node_user:
    print_user(pr, n, ind);
    return;
  case isl_ast_node_mark: {
    isl_ast_node *c = isl_ast_node_mark_get_node(n);
    print_node(pr, c, ind);
    isl_ast_node_free(c);
    return;
  }
  default:
    pr->bad = 1;
  }
}

/* What the generated code may assume: for a strided geometry variable, 0 <= its thread
 * index < its stride (the thread's first value), so that its loop starts there; for a
 * stepped loop made x, that x is pin + a multiple of the step. */
static isl_set *codegen_context(const struct cc_fix_poly *p, const struct cc_fix_poly_lift *l)
{
  struct cc_strbuf sb = {0}, *f = &sb;
  int n = 0;
  isl_set *c;
  for (int g = 0; g < p->s->ngeo; g++)
    if (g != l->var && l->geo[g].name && l->geo[g].stride)
      cc_strbuf_printf(f, "%s%s", n++ ? ", " : "[", l->geo[g].name);
  if (l->step > 1)
    cc_strbuf_printf(f, "%s%s", n++ ? ", " : "[", l->vname);
  if (!n)
    return isl_set_universe(isl_space_params_alloc(p->ctx, 0));
  cc_strbuf_printf(f, "] -> { : ");
  n = 0;
  for (int g = 0; g < p->s->ngeo; g++)
    if (g != l->var && l->geo[g].name && l->geo[g].stride)
      cc_strbuf_printf(f, "%s0 <= %s < %lld", n++ ? " and " : "", l->geo[g].name,
                       (long long)l->geo[g].stride);
  /* a stepped loop's thread index takes its values only (lift.c defines it so) */
  if (l->step > 1)
    cc_strbuf_printf(f, "%sexists (__cc_k : %s = %lld + %lld __cc_k)", n++ ? " and " : "",
                     l->vname, (long long)l->pin, (long long)l->step);
  cc_strbuf_printf(f, " }");
  c = isl_set_read_from_str(p->ctx, sb.s);
  free(sb.s);
  return c;
}

char *cc_fix_poly_codegen(const struct cc_fix_poly *p, const struct cc_fix_poly_lift *l,
                          cc_fix_poly_stmt_fn fn, void *ctx, int indent, struct cc_err *err)
{
  const struct cc_cuda_scop *s = p->s;
  isl_union_set *dom = NULL;
  isl_union_map *sched = NULL;
  isl_ast_build *b;
  isl_ast_node *tree;
  isl_id_list *its;
  struct printer pr;
  struct cc_strbuf sb = {0};
  int width = 1, gloops = 0;
  for (int g = 0; g < s->ngeo; g++)
    gloops += geo_loop(l, g);
  for (uint32_t i = 0; i < s->nstmts; i++)
    if (2 * s->stmts[i].nloops + 1 + gloops > width)
      width = 2 * s->stmts[i].nloops + 1 + gloops;
  for (uint32_t i = 0; i < s->nstmts; i++) {
    isl_set *d = codegen_domain(p, i, l);
    isl_map *m = codegen_schedule(p, i, l, width);
    dom = dom ? isl_union_set_add_set(dom, d) : isl_union_set_from_set(d);
    sched = sched ? isl_union_map_add_map(sched, m) : isl_union_map_from_map(m);
  }
  sched = isl_union_map_intersect_domain(sched, dom);
  b = isl_ast_build_from_context(codegen_context(p, l));
  its = isl_id_list_alloc(p->ctx, width);
  for (int k = 0; k < width; k++) {
    char name[32];
    snprintf(name, sizeof name, "__cc_c%d", k);
    its = isl_id_list_add(its, isl_id_alloc(p->ctx, name, NULL));
  }
  b = isl_ast_build_set_iterators(b, its);
  tree = isl_ast_build_node_from_schedule_map(b, sched);
  isl_ast_build_free(b);
  if (!tree) {
    cc_err_set(err, CC_ERR_INTERNAL, "isl's AST generator failed on the lifted schedule");
    return NULL;
  }
  pr.f = &sb;
  pr.fn = fn;
  pr.ctx = ctx;
  pr.bad = 0;
  print_node(&pr, tree, indent);
  isl_ast_node_free(tree);
  if (pr.bad) {
    free(sb.s);
    cc_err_set(err, CC_ERR_INTERNAL, "isl's AST has a construct the printer does not know");
    return NULL;
  }
  return sb.s ? sb.s : cc_xstrdup("");
}

/* ---- the vector plays ---- */

int cc_fix_poly_group_closed(const struct cc_fix_poly *p, uint32_t i, int d, uint32_t v)
{
  const struct cc_cuda_scop *s = p->s;
  struct cc_strbuf sb = {0}, *f = &sb;
  isl_set *img;
  isl_map *g;
  int ok;
  if (d < 0 || d >= s->ngeo || i >= s->nstmts)
    return 0;
  /* { S[a] -> S[b] : b and a in the same aligned group of v along d, equal elsewhere } */
  cc_strbuf_printf(f, "{ ");
  put_tuple(f, s, i);
  cc_strbuf_printf(f, " -> S%u[", i);
  for (int k = 0; k < s->ngeo + s->stmts[i].nloops; k++)
    cc_strbuf_printf(f, "%s%s%d", k ? ", " : "", k == d ? "b" : "a", k);
  cc_strbuf_printf(f, "] : exists (k : %u k <= a%d < %u k + %u and %u k <= b%d < %u k + %u) }",
                   v, d, v, v, v, d, v, v);
  g = isl_map_read_from_str(p->ctx, sb.s);
  free(sb.s);
  img = isl_set_apply(isl_set_copy(p->dom[i]), g);
  ok = isl_set_is_subset(img, p->dom[i]) == isl_bool_true;
  isl_set_free(img);
  return ok;
}

/* For one map { S<w>[g] -> S<w'>[g'] } of instances writing the same element: found when
 * w != w' and the map is not empty. */
static isl_stat waw_one(isl_map *m, void *user)
{
  struct raw_scan *x = user;
  const char *a = isl_map_get_tuple_name(m, isl_dim_in), *b = isl_map_get_tuple_name(m, isl_dim_out);
  if (!x->found && a && b && strcmp(a, b) && isl_map_is_empty(m) == isl_bool_false) {
    x->found = 1;
    x->w = (uint32_t)strtoul(a + 1, NULL, 10);
    x->r = (uint32_t)strtoul(b + 1, NULL, 10);
  }
  isl_map_free(m);
  return isl_stat_ok;
}

int cc_fix_poly_writes_once(const struct cc_fix_poly *p, char *why, size_t size)
{
  const struct cc_cuda_scop *s = p->s;
  struct raw_scan x = {s, 0, 0, 0};
  for (uint32_t a = 0; a < p->narrays && !x.found; a++) {
    isl_union_map *w, *same, *rev;
    if (is_private(s, p->arrays[a]))
      continue;
    w = accesses(p, p->arrays[a], 1);
    rev = isl_union_map_reverse(isl_union_map_copy(w));
    same = isl_union_map_apply_range(w, rev);
    isl_union_map_foreach_map(same, waw_one, &x);
    isl_union_map_free(same);
    if (x.found && x.w < s->nstmts && x.r < s->nstmts)
      snprintf(why, size, "lines %u and %u write the same element of %s: a store delayed "
               "to the vector store would land after the other", s->stmts[x.w].line,
               s->stmts[x.r].line, p->arrays[a]);
  }
  return !x.found;
}
