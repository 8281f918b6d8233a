/* coalcheck fix: the legality and the access kinds of the vector plays (fix_impl.h,
 * cc_fix_vector_plan; src/fix/README.md, "Vector plays"), proved with isl on the affine
 * subset that loop lifting extracts (src/cuda/scop.h). */
#include <stdlib.h>
#include <string.h>

#include "cuda/plays.h"
#include "cuda/scop.h"
#include "fix/fix_impl.h"
#include "fix/poly.h"

/* The widest element of the arrays the kernel touches, in bytes (0: none). */
static uint32_t widest(const struct cc_cuda_scop *s)
{
  uint32_t w = 0;
  for (uint32_t i = 0; i < s->nstmts; i++)
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++)
      if (!s->stmts[i].acc[k].priv && s->stmts[i].acc[k].elem_bytes > w)
        w = s->stmts[i].acc[k].elem_bytes;
  return w;
}

static int64_t mod(int64_t a, int64_t m)
{
  return ((a % m) + m) % m;
}

/* The kind of access a of a statement that runs in all v plays or none (closed) along
 * geometry variable d: a vector when its stride along d is 1 element, its width the
 * vector's element and its index at g_d = v k a multiple of v (the constant and the
 * parameters' terms, and every other variable's coefficient, multiples of v: then the v
 * elements start at a v-aligned index); a broadcast when a load's stride is 0; else
 * scalar. */
static enum cc_cuda_vkind access_kind(const struct cc_cuda_scop *s,
                                      const struct cc_cuda_scop_access *a, int d, uint32_t v,
                                      uint32_t bytes, int closed)
{
  int64_t rest = a->sub.c;
  int aligned = 1;
  if (!closed)
    return CC_CUDA_V_SCALAR;
  for (int k = 0; k < s->nvars; k++) {
    if (k == d || !a->sub.coef[k])
      continue;
    if (s->vars[k].kind == CC_CUDA_SV_PARAM)
      rest += a->sub.coef[k] * s->vars[k].value;
    else
      aligned &= mod(a->sub.coef[k], v) == 0;
  }
  if (a->sub.coef[d] == 1 && aligned && mod(rest, v) == 0 && a->elem_bytes == bytes)
    return CC_CUDA_V_VECTOR;
  if (a->sub.coef[d] == 0 && !a->write)
    return CC_CUDA_V_BROADCAST;
  return CC_CUDA_V_SCALAR;
}

/* The last line of statement i (its first plus the line breaks in its bytes). */
static unsigned last_line(const struct cc_fix_opts *o, const struct cc_cuda_scop_stmt *st)
{
  unsigned line = st->line;
  for (unsigned b = st->b; b < st->e && b < o->input_len; b++)
    line += o->input_text[b] == '\n';
  return line;
}

/* Appends (or merges: a disagreement makes the pair scalar) statement st's kind k for
 * array into cls. */
static void add_kind(struct cc_cuda_vclass **cls, size_t *n, const struct cc_fix_opts *o,
                     const struct cc_cuda_scop_stmt *st, const char *array,
                     enum cc_cuda_vkind k)
{
  for (size_t i = 0; i < *n; i++)
    if ((*cls)[i].first_line == st->line && !strcmp((*cls)[i].array, array)) {
      if ((*cls)[i].kind != k)
        (*cls)[i].kind = CC_CUDA_V_SCALAR;
      return;
    }
  *cls = cc_xrealloc(*cls, (*n + 1) * sizeof **cls);
  (*cls)[*n].first_line = st->line;
  (*cls)[*n].last_line = last_line(o, st);
  snprintf((*cls)[*n].array, sizeof (*cls)[*n].array, "%s", array);
  (*cls)[*n].kind = k;
  (*n)++;
}

/* The kinds of every statement's accesses into cls; returns the vector ones' count, or -1
 * with the reason in why (size bytes) when a statement that every play runs has a scalar
 * access that moves along x: its lanes, v elements apart in the vector plays, would touch
 * up to v times the sectors of the scalar plays' (hz_step's ex[i * (ny + 1) + j + 1]). */
static long classify(const struct cc_fix_opts *o, const struct cc_fix_poly *p,
                     const struct cc_cuda_scop *s, int d, uint32_t v, uint32_t bytes,
                     struct cc_cuda_vclass **cls, size_t *n, char *why, size_t size)
{
  long nvec = 0;
  for (uint32_t i = 0; i < s->nstmts; i++) {
    int closed = cc_fix_poly_group_closed(p, i, d, v);
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++) {
      const struct cc_cuda_scop_access *a = &s->stmts[i].acc[k];
      enum cc_cuda_vkind kind;
      if (a->priv || strlen(a->array) >= sizeof (*cls)->array)
        continue;
      kind = access_kind(s, a, d, v, bytes, closed);
      if (closed && kind == CC_CUDA_V_SCALAR && a->sub.coef[d] != 0) {
        snprintf(why, size, "%s:%u:%u: %s's access has stride %lld along x but is no aligned "
                 "vector of %u: with %u threads a thread its lanes would be %u elements apart "
                 "(more sectors than the plays)", s->path, s->stmts[i].line,
                 s->stmts[i].column, a->array, (long long)a->sub.coef[d], v, v, v);
        return -1;
      }
      add_kind(cls, n, o, &s->stmts[i], a->array, kind);
    }
  }
  for (size_t i = 0; i < *n; i++)
    nvec += (*cls)[i].kind == CC_CUDA_V_VECTOR;
  return nvec;
}

/* The plan on an extracted SCoP (see cc_fix_vector_plan). */
static int plan(const struct cc_fix_opts *o, const struct cc_cuda_scop *s, int d, uint32_t bx,
                uint32_t *v, struct cc_cuda_vclass **cls, size_t *ncls, char *why,
                size_t size)
{
  struct cc_fix_poly *p = NULL;
  struct cc_err err = {CC_OK, ""};
  uint32_t bytes = widest(s);
  int ok = 0;
  if (d >= s->ngeo) {
    snprintf(why, size, "x of the new launch has extent 1 in the original");
    return 0;
  }
  if (bytes != 4 && bytes != 8) {
    snprintf(why, size, "elements of %u bytes (the vectors are of 4- or 8-byte elements)", bytes);
    return 0;
  }
  *v = 16 / bytes;
  if (bx % *v || bx / *v < 32) {
    snprintf(why, size, "a block of %u threads in x: %u a thread leaves less than a warp", bx, *v);
    return 0;
  }
  if (cc_fix_poly_build(s, &p, &err) != CC_OK)
    snprintf(why, size, "%.600s", err.msg);
  else if (cc_fix_poly_loads_first(p, why, size) && cc_fix_poly_writes_once(p, why, size)) {
    long nvec = classify(o, p, s, d, *v, bytes, cls, ncls, why, size);
    if (nvec > 0)
      ok = 1;
    else if (nvec == 0)
      snprintf(why, size, "no access with unit stride along x at %u-aligned indices in a "
               "statement that every group of %u threads along x runs whole", *v, *v);
  }
  cc_fix_poly_free(p);
  return ok;
}

int cc_fix_vector_plan(const struct cc_fix_opts *o, const struct cc_fix_measure *before, int d,
                       uint32_t bx, uint32_t *v, struct cc_cuda_vclass **cls, size_t *ncls,
                       char *why, size_t size)
{
  struct cc_cuda_scop s;
  struct cc_err err = {CC_OK, ""};
  int ok;
  *cls = NULL;
  *ncls = 0;
  *v = 1;
  if (cc_cuda_scop_extract(o->input, o->input_text, o->input_len, o->kernel_name, o->grid,
                           o->block, before->param_values, before->param_known,
                           before->nparams, o->clang_args, o->nclang_args, &s, &err) != CC_OK) {
    snprintf(why, size, "%.600s", err.msg);
    return 0;
  }
  ok = plan(o, &s, d, bx, v, cls, ncls, why, size);
  if (!ok) {
    free(*cls);
    *cls = NULL;
    *ncls = 0;
    *v = 1;
  }
  cc_cuda_scop_release(&s);
  return ok;
}
