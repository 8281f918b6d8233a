/* coalcheck CUDA front end: a SCoP's release and its isl notation (scop.h). Built with
 * and without libclang (CMakeLists.txt adds this file to the stub build), since it only
 * formats what cc_cuda_scop_extract found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scop.h"
#include "util/mem.h"

void cc_cuda_scop_release(struct cc_cuda_scop *s)
{
  for (int i = 0; i < s->nvars; i++) {
    free(s->vars[i].name);
    free(s->vars[i].type);
    free(s->vars[i].lo);
  }
  for (uint32_t i = 0; i < s->nstmts; i++) {
    struct cc_cuda_scop_stmt *st = &s->stmts[i];
    for (uint32_t j = 0; j < st->nacc; j++)
      free(st->acc[j].array);
    free(st->acc);
    free(st->cons);
    free(st->decls);
    free(st->text);
  }
  for (uint32_t i = 0; i < s->nprivs; i++) {
    free(s->privs[i].name);
    free(s->privs[i].type);
  }
  free(s->privs);
  free(s->stmts);
  free(s->decls);
  free(s->path);
  memset(s, 0, sizeof *s);
}

static void put_aff(const struct cc_cuda_scop *s, const struct cc_cuda_aff *a, int numeric,
                    struct cc_strbuf *b)
{
  int64_t c = a->c;
  int first = 1;
  for (int v = 0; v < s->nvars; v++) {
    int64_t k = a->coef[v];
    if (!k)
      continue;
    if (numeric && s->vars[v].kind == CC_CUDA_SV_PARAM) {
      c += k * s->vars[v].value;
      continue;
    }
    if (first)
      cc_strbuf_printf(b, k < 0 ? "-" : "");
    else
      cc_strbuf_printf(b, k < 0 ? " - " : " + ");
    if (k != 1 && k != -1)
      cc_strbuf_printf(b, "%lld * ", (long long)(k < 0 ? -k : k));
    cc_strbuf_printf(b, "%s", s->vars[v].name);
    first = 0;
  }
  if (first)
    cc_strbuf_printf(b, "%lld", (long long)c);
  else if (c)
    cc_strbuf_printf(b, " %s %lld", c < 0 ? "-" : "+", (long long)(c < 0 ? -c : c));
}

char *cc_cuda_scop_aff_str(const struct cc_cuda_scop *s, const struct cc_cuda_aff *a,
                           int numeric)
{
  struct cc_strbuf sb = {0}, *b = &sb;
  put_aff(s, a, numeric, b);
  return sb.s;
}

static void put_tuple(const struct cc_cuda_scop *s, uint32_t i, struct cc_strbuf *b)
{
  const struct cc_cuda_scop_stmt *st = &s->stmts[i];
  cc_strbuf_printf(b, "S%u[%s", i, s->vars[0].name);
  for (int d = 1; d < s->ngeo; d++)
    cc_strbuf_printf(b, ", %s", s->vars[d].name);
  for (int k = 0; k < st->nloops; k++)
    cc_strbuf_printf(b, ", %s", s->vars[st->loops[k]].name);
  cc_strbuf_printf(b, "]");
}

char *cc_cuda_scop_isl_domain(const struct cc_cuda_scop *s, uint32_t i, int numeric)
{
  const struct cc_cuda_scop_stmt *st = &s->stmts[i];
  struct cc_strbuf sb = {0}, *b = &sb;
  int np = 0;
  if (!numeric) {
    for (int v = 0; v < s->nvars; v++)
      if (s->vars[v].kind == CC_CUDA_SV_PARAM)
        cc_strbuf_printf(b, "%s%s", np++ ? ", " : "[", s->vars[v].name);
    if (np)
      cc_strbuf_printf(b, "] -> ");
  }
  cc_strbuf_printf(b, "{ ");
  put_tuple(s, i, b);
  for (uint32_t k = 0; k < st->ncons; k++) {
    cc_strbuf_printf(b, k ? " and " : " : ");
    put_aff(s, &st->cons[k], numeric, b);
    cc_strbuf_printf(b, " >= 0");
  }
  /* a loop of step C > 1 takes the values lo + C k only */
  for (int k = 0, any = st->ncons > 0; k < st->nloops; k++) {
    const struct cc_cuda_scop_var *v = &s->vars[st->loops[k]];
    if ((v->step <= 1 && v->step >= -1) || !v->lo)
      continue;
    cc_strbuf_printf(b, "%sexists (__cc_e%d : %s = ", any++ ? " and " : " : ", k, v->name);
    put_aff(s, v->lo, numeric, b);
    cc_strbuf_printf(b, " %c %lld __cc_e%d)", v->step < 0 ? '-' : '+',
                     (long long)(v->step < 0 ? -v->step : v->step), k);
  }
  cc_strbuf_printf(b, " }");
  return sb.s;
}

/* Access k of statement i as "S<i>[...] -> A[...]" into b. */
static void put_access(const struct cc_cuda_scop *s, uint32_t i, uint32_t k, struct cc_strbuf *b)
{
  const struct cc_cuda_scop_stmt *st = &s->stmts[i];
  put_tuple(s, i, b);
  cc_strbuf_printf(b, " -> %s[", st->acc[k].array);
  if (st->acc[k].priv) {
    /* a scalar: one copy per thread and iteration of the loops around it */
    cc_strbuf_printf(b, "%s", s->vars[0].name);
    for (int d = 1; d < s->ngeo; d++)
      cc_strbuf_printf(b, ", %s", s->vars[d].name);
    for (int d = 0; d < st->acc[k].pdims; d++)
      cc_strbuf_printf(b, ", %s", s->vars[st->loops[d]].name);
  } else {
    put_aff(s, &st->acc[k].sub, 1, b);
  }
  cc_strbuf_printf(b, "]");
}

char *cc_cuda_scop_isl_access_one(const struct cc_cuda_scop *s, uint32_t i, uint32_t k)
{
  struct cc_strbuf sb = {0}, *b = &sb;
  cc_strbuf_printf(b, "{ ");
  put_access(s, i, k, b);
  cc_strbuf_printf(b, " }");
  return sb.s;
}

char *cc_cuda_scop_isl_access(const struct cc_cuda_scop *s, uint32_t i, int write)
{
  const struct cc_cuda_scop_stmt *st = &s->stmts[i];
  struct cc_strbuf sb = {0}, *b = &sb;
  int n = 0;
  cc_strbuf_printf(b, "{ ");
  for (uint32_t k = 0; k < st->nacc; k++) {
    if (st->acc[k].write != write)
      continue;
    if (n++)
      cc_strbuf_printf(b, "; ");
    put_access(s, i, k, b);
  }
  cc_strbuf_printf(b, " }");
  return sb.s;
}
