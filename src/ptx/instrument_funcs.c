/* coalcheck PTX front end: the inline pass's plan for .func bodies (instrument_funcs.h). */
#include "ptx/instrument_funcs.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Whether c can be part of a PTX identifier. */
static int ident_char(char c)
{
  return c == '_' || c == '$' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

/* Whether text names the symbol `name` (a whole word). */
static int names_symbol(const char *text, const char *name)
{
  size_t n = strlen(name);
  for (const char *p = text; n && (p = strstr(p, name)); p += n)
    if ((p == text || !ident_char(p[-1])) && !ident_char(p[n])) return 1;
  return 0;
}

/* taken[f] = 1: function f's address is used as a value somewhere in m */
static uint8_t *taken_functions(const struct ptx_module *m)
{
  uint8_t *taken = cc_xcalloc(m->nfuncs + 1, 1);
  for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
    const struct ptx_function *f = &m->funcs[fi];
    for (uint32_t i = 0; f->has_body && i < f->ninsns; i++)
      for (uint32_t k = 0; k < f->insns[i].nopnds; k++) {
        const struct ptx_operand *o = &f->opnds[f->insns[i].opnd + k];
        if (o->kind == PTX_OPND_SYM && o->is_func && o->var >= 0 && (uint32_t)o->var < m->nfuncs)
          taken[o->var] = 1;
      }
  }
  for (uint32_t v = 0; v < m->nvars; v++)
    for (uint32_t fi = 0; m->vars[v].init_text && fi < m->nfuncs; fi++)
      taken[fi] |= (uint8_t)names_symbol(m->vars[v].init_text, m->funcs[fi].name);
  return taken;
}

/* Whether f calls a function that counted[] marks. */
static int calls_counted(const struct ptx_function *f, const uint8_t *counted)
{
  for (uint32_t i = 0; f->has_body && i < f->ninsns; i++)
    if (f->insns[i].op == PTX_OP_CALL && f->insns[i].callee >= 0 && counted[f->insns[i].callee])
      return 1;
  return 0;
}

void ptx_inst_funcs_plan(const struct ptx_module *m, const uint8_t *has_sites,
                         struct ptx_inst_funcs *p)
{
  uint8_t *taken = taken_functions(m);
  p->counted = cc_xcalloc(m->nfuncs + 1, 1);
  p->why = cc_xcalloc(m->nfuncs + 1, sizeof *p->why);
  p->rank = cc_xmalloc((m->nfuncs + 1) * sizeof *p->rank);
  p->nregions = 0;
  /* the least fixed point: a .func counts when it has a site or calls one that counts */
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
      const struct ptx_function *f = &m->funcs[fi];
      if (p->counted[fi] || f->is_entry || !f->has_body || taken[fi]) continue;
      if (has_sites[fi] || calls_counted(f, p->counted)) changed = p->counted[fi] = 1;
    }
  }
  for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
    const struct ptx_function *f = &m->funcs[fi];
    p->rank[fi] = f->is_entry && calls_counted(f, p->counted) ? p->nregions++ : UINT32_MAX;
    if (!f->is_entry && f->has_body && !p->counted[fi])
      p->why[fi] = taken[fi] ? "in a .func whose address is taken (a call through a function "
                               "pointer would not pass the counters)"
                             : "in a .func no kernel calls";
  }
  free(taken);
}

void ptx_inst_funcs_none(const struct ptx_module *m, struct ptx_inst_funcs *p,
                         const char *why_all)
{
  for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
    if (p->counted[fi]) p->why[fi] = why_all;
    p->counted[fi] = 0;
    p->rank[fi] = UINT32_MAX;
  }
  p->nregions = 0;
}

void ptx_inst_funcs_release(struct ptx_inst_funcs *p)
{
  free(p->counted);
  free(p->why);
  free(p->rank);
  memset(p, 0, sizeof *p);
}
