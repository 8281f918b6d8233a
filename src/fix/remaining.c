/* coalcheck fix: what a verified fix leaves uncoalesced, and why (p->remaining).
 *
 * One entry per source line and access kind, summed over its PTX instructions: a
 * redistributed or unrolled loop turns one load of the source into several (the unrolled
 * steps and the remainder), and a user reads source lines, not PTX. */
#include <stdio.h>
#include <string.h>

#include "fix/fix_impl.h"
#include "report/report.h"

/* The figures of one source line's accesses of one kind and space. */
struct line_sum {
  uint32_t line;
  int kind, space;
  uint64_t requests, sectors, ideal, excess;
};

static int same_key(const struct cc_insn_stats *s, const struct line_sum *l)
{
  return s->source.line == l->line && (int)s->info.kind == l->kind &&
         (int)s->info.space == l->space;
}

/* Sums k's instructions of l's key into l (l's key set, its figures zero). */
static void sum_line(const struct cc_kernel_stats *k, struct line_sum *l)
{
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (!same_key(s, l)) continue;
    l->requests += s->requests;
    l->sectors += s->sectors;
    l->ideal += s->ideal_sectors;
    l->excess += s->excess_sectors;
  }
}

/* Whether instruction i is the first of its key in k (so each key is listed once). */
static int first_of_key(const struct cc_kernel_stats *k, size_t i)
{
  struct line_sum l = {.line = k->insns[i].source.line, .kind = (int)k->insns[i].info.kind,
                       .space = (int)k->insns[i].info.space};
  for (size_t j = 0; j < i; j++)
    if (same_key(&k->insns[j], &l)) return 0;
  return 1;
}

void cc_fix_explain_remaining(struct cc_fix_plan *p, int permuted)
{
  const struct cc_kernel_stats *b = cc_fix_measure_kernel(&p->before),
                               *a = cc_fix_measure_kernel(&p->after);
  size_t len = 0, cap = sizeof p->remaining;
  int moved = 0, n = 0;
  char line[24];
  p->remaining[0] = '\0';
  for (size_t i = 0; i < a->n_insns; i++) {
    struct line_sum now = {.line = a->insns[i].source.line,
                           .kind = (int)a->insns[i].info.kind,
                           .space = (int)a->insns[i].info.space}, was = now;
    if (!first_of_key(a, i)) continue;
    sum_line(a, &now);
    /* what matters: at least 1% of the fixed kernel's sectors in excess */
    if (now.excess == 0 || now.requests == 0 || len >= cap - 128 ||
        now.excess * 100 < a->totals.sectors)
      continue;
    sum_line(b, &was);
    moved |= was.requests > 0 && was.excess == 0;
    len += (size_t)snprintf(p->remaining + len, cap - len, "%s%s %s (%.1f sectors per "
                            "request, ideal %.1f)", n++ ? "; " : "",
                            cc_report_line_name(now.line, line, sizeof line),
                            cc_access_kind_name(a->insns[i].info.kind),
                            (double)now.sectors / (double)now.requests,
                            (double)now.ideal / (double)now.requests);
  }
  /* Only a permutation moves excess between accesses by swapping thread dimensions;
   * after the other transformations an access that was coalesced and no longer is says
   * nothing about a transposition. */
  if (n && moved && permuted && len < cap)
    snprintf(p->remaining + len, cap - len, ": the permutation moved excess "
             "sectors from one access to another, whose accesses are contiguous along "
             "different thread dimensions (a transposition); stage the data through shared "
             "memory (tiling) to coalesce both");
}
