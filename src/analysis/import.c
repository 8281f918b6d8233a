/* Kernels measured elsewhere (the GPU backend): per-instruction sums handed in whole,
 * then finished exactly as a streamed kernel is (finalize.c). See analysis.h. */
#include "analysis/analysis.h"

#include <inttypes.h>

#include "analysis/analysis_impl.h"

/* Checks that the figures of instruction i can be true of some run; the message names
 * the instruction by its text and source line. */
static int check_counts(const struct cc_insn_info *in, const struct cc_insn_counts *c,
                        struct cc_err *err)
{
  const char *what = NULL;
  if (in->size_bytes == 0)
    what = "access size 0";
  else if (c->ideal_sectors > c->sectors)
    what = "more ideal sectors than sectors";
  else if (c->ideal_wavefronts > c->wavefronts)
    what = "more ideal wavefronts than wavefronts";
  else if (c->thread_accesses > (uint64_t)CC_WARP_SIZE * c->executions)
    what = "more than 32 active lanes per execution";
  else if (c->stride_count > 0 && c->stride_min > c->stride_max)
    what = "stride min above stride max";
  else if (c->conflict_requests > c->executions)
    what = "more conflicting requests than executions";
  if (!what)
    return CC_OK;
  return cc_err_set(err, CC_ERR_INPUT, "%s:%" PRIu32 ": instruction %" PRIu32 " '%s': %s; "
                    "the measured figures are inconsistent, measure again",
                    in->file ? in->file : "?", in->line, in->id, in->text ? in->text : "?",
                    what);
}

static void fill(struct cc_insn_stats *s, const struct cc_insn_counts *c)
{
  int shared = s->info.space == CC_SPACE_SHARED || c->wavefronts > 0;
  s->executions = c->executions;
  s->thread_accesses = c->thread_accesses;
  s->bytes_requested = c->bytes_requested;
  /* one request per warp-level instruction (sm_50 on), per 32-bit word for wide local */
  s->requests = c->executions * cc_access_words(s->info.space, s->info.size_bytes);
  if (!shared) {
    s->transactions = c->sectors;
    s->bytes_transferred = 32 * c->sectors;
    s->sectors = c->sectors;
    s->ideal_sectors = c->ideal_sectors;
  } else {
    s->wavefronts = c->wavefronts;
    s->ideal_wavefronts = c->ideal_wavefronts;
    s->ways_max = c->ways_max ? c->ways_max : 1;
    s->conflict_requests = c->conflict_requests;
  }
  s->stride_count = c->stride_count;
  s->stride_min = c->stride_count ? c->stride_min : UINT64_MAX; /* finalize makes it 0 */
  s->stride_max = c->stride_count ? c->stride_max : 0;
  s->stride_sum = c->stride_count ? c->stride_sum : 0.0;
  s->uncoalesced_thread_accesses = c->uncoalesced_thread_accesses;
}

int cc_analysis_import_kernel(struct cc_analysis *an, const struct cc_kernel_info *ki,
                              const struct cc_insn_counts *counts, struct cc_err *err)
{
  struct cc_access_sink sink = cc_analysis_sink(an);
  struct cc_kernel_stats *k;
  int rc;
  for (uint32_t i = 0; i < ki->n_insns; i++)
    if ((rc = check_counts(&ki->insns[i], &counts[i], err)) != CC_OK)
      return rc;
  if ((rc = sink.begin_kernel(sink.ctx, ki, err)) != CC_OK)
    return rc;
  k = &an->kernels[an->n_kernels - 1];
  k->imported = 1;
  /* before end_kernel the instructions are in slot order (insns[i].slot == i) */
  for (uint32_t i = 0; i < ki->n_insns; i++)
    fill(&k->insns[i], &counts[i]);
  return sink.end_kernel(sink.ctx, err);
}
