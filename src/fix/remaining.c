/* coalcheck fix: the per-line sums of a fix's summary, and what a verified fix leaves
 * uncoalesced, and why (p->remaining).
 *
 * Both go by source line and access kind, summed over the line's PTX instructions: a
 * redistributed or unrolled loop turns one load of the source into several (the unrolled
 * steps and the remainder), and a user reads source lines, not PTX. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fix_impl.h"
#include "report/report.h"

void cc_fix_line_rows_add(cc_fix_line_rows *rows, const struct cc_kernel_stats *k, int after)
{
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    struct cc_fix_line_row *r = NULL;
    for (size_t j = 0; j < rows->len && !r; j++)
      if (rows->data[j].line == s->source.line && rows->data[j].kind == s->info.kind &&
          rows->data[j].space == s->info.space)
        r = &rows->data[j];
    if (!r) {
      struct cc_fix_line_row n = {.line = s->source.line, .kind = s->info.kind,
                                  .space = s->info.space};
      CC_VEC_PUSH(rows, n);
      r = &rows->data[rows->len - 1];
    }
    r->req[after] += s->requests;
    r->units[after] += s->info.space == CC_SPACE_SHARED ? s->wavefronts : s->sectors;
    r->excess[after] += s->excess_sectors;
    r->ideal[after] += s->ideal_sectors;
  }
}

void cc_fix_explain_remaining(struct cc_fix_plan *p, int permuted)
{
  const struct cc_kernel_stats *b = cc_fix_measure_kernel(&p->before),
                               *a = cc_fix_measure_kernel(&p->after);
  cc_fix_line_rows rows = {0};
  size_t len = 0, cap = sizeof p->remaining;
  int moved = 0, n = 0;
  char line[24];
  p->remaining[0] = '\0';
  cc_fix_line_rows_add(&rows, a, 1);
  cc_fix_line_rows_add(&rows, b, 0);
  for (size_t i = 0; i < rows.len; i++) {
    const struct cc_fix_line_row *r = &rows.data[i];
    /* what matters: at least 1% of the fixed kernel's sectors in excess */
    if (r->excess[1] == 0 || r->req[1] == 0 || len >= cap - 128 ||
        r->excess[1] * 100 < a->totals.sectors)
      continue;
    moved |= r->req[0] > 0 && r->excess[0] == 0;
    len += (size_t)snprintf(p->remaining + len, cap - len, "%s%s %s (%.1f sectors per "
                            "request, ideal %.1f)", n++ ? "; " : "",
                            cc_report_line_name(r->line, line, sizeof line),
                            cc_access_kind_name(r->kind),
                            (double)r->units[1] / (double)r->req[1],
                            (double)r->ideal[1] / (double)r->req[1]);
  }
  CC_VEC_FREE(&rows);
  /* Only a permutation moves excess between accesses by swapping thread dimensions;
   * after the other transformations an access that was coalesced and no longer is says
   * nothing about a transposition. */
  if (n && moved && permuted && len < cap)
    snprintf(p->remaining + len, cap - len, ": the permutation moved excess "
             "sectors from one access to another, whose accesses are contiguous along "
             "different thread dimensions (a transposition); stage the data through shared "
             "memory (tiling) to coalesce both");
}
