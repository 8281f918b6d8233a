/* Kernels measured elsewhere (the GPU backend): per-instruction sums handed in whole,
 * then finished exactly as a streamed kernel is (finalize.c). See analysis.h. */
#include "analysis/analysis.h"

#include <inttypes.h>

#include "analysis/analysis_impl.h"

/* Global/local: the distinct bytes used, where the sums fix them (returns 1, *out set;
 * else 0). Local memory is per thread, so lanes never share a byte; one lane per request
 * (no stride) or neighbouring lanes at least size bytes apart (stride_min) share none
 * either; all lanes of every request on one address (stride_max 0) use size bytes per
 * request. */
static int unique_bytes_of(const struct cc_insn_info *in, const struct cc_insn_counts *c,
                           uint64_t *out)
{
  if (in->space == CC_SPACE_LOCAL || c->stride_count == 0 || c->stride_min >= in->size_bytes)
    *out = c->bytes_requested;
  else if (c->stride_max == 0)
    *out = (uint64_t)in->size_bytes * c->executions;
  else
    return 0;
  return 1;
}

/* Checks that the figures of instruction i can be true of some run; the message names
 * the instruction by its text and source line. */
static int check_counts(const struct cc_insn_info *in, const struct cc_insn_counts *c,
                        struct cc_err *err)
{
  const char *what = NULL;
  uint64_t unique;
  int global = in->space != CC_SPACE_SHARED && c->wavefronts == 0;
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
  else if (global && unique_bytes_of(in, c, &unique) && unique > 32 * c->ideal_sectors)
    what = "more bytes used than the ideal sectors hold";
  if (!what)
    return CC_OK;
  return cc_err_set(err, CC_ERR_INPUT, "%s:%" PRIu32 ": instruction %" PRIu32 " '%s': %s; "
                    "the measured figures are inconsistent, measure again",
                    in->file ? in->file : "?", in->line, in->id, in->text ? in->text : "?",
                    what);
}

/* Global/local: the histogram of sectors per execution, where the sums fix it. Each
 * execution moves at least one sector per 32-bit word request (`words`, cc_access_words)
 * and at most 32 per word request (an aligned access of up to 16 bytes lies in one
 * sector, and a request has at most 32 lanes); so the sums fix every execution's count
 * when there is one execution, or when all are at the least or all at the most. */
static void derive_sector_hist(struct cc_insn_stats *s, const struct cc_insn_counts *c)
{
  uint64_t words = cc_access_words(s->info.space, s->info.size_bytes), last;
  last = CC_ANALYSIS_HIST_BUCKETS - 1;
  if (c->executions == 0)
    return;
  if (c->executions == 1)
    s->sector_hist[c->sectors < last ? c->sectors : last] = 1;
  else if (c->sectors == words * c->executions)
    s->sector_hist[words < last ? words : last] = c->executions;
  else if (c->sectors == 32 * words * c->executions)
    s->sector_hist[last] = c->executions;
  else
    s->unknown |= CC_UNKNOWN_SECTOR_HIST;
}

/* Algorithm 1's uncoalesced requests and thread accesses (CGO Table 2), where the sums
 * fix them (W = 32 on sm_90: a group is a warp): none when no request had two lanes or
 * no stride exceeds the bound; one execution: it is uncoalesced iff its max stride is;
 * all of them when every stride exceeds the bound and every request was a full warp. */
static void derive_uncoalesced(struct cc_insn_stats *s, const struct cc_insn_counts *c)
{
  uint32_t bound = cc_access_coalesced_stride(s->info.space, s->info.size_bytes);
  int full = c->thread_accesses == (uint64_t)CC_WARP_SIZE * c->executions;
  if (c->stride_count == 0 || c->stride_max <= bound)
    return;
  if (c->executions == 1 || (full && c->stride_min > bound)) {
    s->uncoalesced_requests = c->executions;
    s->uncoalesced_thread_accesses = c->thread_accesses;
  } else {
    s->unknown |= CC_UNKNOWN_UNCOALESCED;
  }
}

/* Shared: the requests with a bank conflict, where the sums fix them: none without one;
 * the one request of a single execution; all when every phase of every request had the
 * worst ways (wavefronts = ways x ideal wavefronts). */
static void derive_conflicts(struct cc_insn_stats *s, const struct cc_insn_counts *c)
{
  if (s->ways_max <= 1)
    return;
  if (c->executions == 1 || c->wavefronts == (uint64_t)s->ways_max * c->ideal_wavefronts)
    s->conflict_requests = c->executions;
  else
    s->unknown |= CC_UNKNOWN_CONFLICTS;
}

static void fill(struct cc_insn_stats *s, const struct cc_insn_counts *c)
{
  int shared = s->info.space == CC_SPACE_SHARED || c->wavefronts > 0;
  s->executions = c->executions;
  s->bound_requests = c->bound_requests;
  s->bound_sectors = c->bound_sectors;
  s->thread_accesses = c->thread_accesses;
  s->bytes_requested = c->bytes_requested;
  /* one request per warp-level instruction (sm_50 on), per 32-bit word for wide local */
  s->requests = c->executions * cc_access_words(s->info.space, s->info.size_bytes);
  if (!shared) {
    s->transactions = c->sectors;
    s->bytes_transferred = 32 * c->sectors;
    s->sectors = c->sectors;
    s->ideal_sectors = c->ideal_sectors;
    if (!unique_bytes_of(&s->info, c, &s->unique_bytes))
      s->unknown |= CC_UNKNOWN_UNIQUE_BYTES;
    derive_sector_hist(s, c);
  } else {
    s->wavefronts = c->wavefronts;
    s->ideal_wavefronts = c->ideal_wavefronts;
    s->ways_max = c->ways_max ? c->ways_max : 1;
    derive_conflicts(s, c);
  }
  s->stride_count = c->stride_count;
  s->stride_min = c->stride_count ? c->stride_min : UINT64_MAX; /* finalize makes it 0 */
  s->stride_max = c->stride_count ? c->stride_max : 0;
  s->stride_sum = c->stride_count ? c->stride_sum : 0.0;
  derive_uncoalesced(s, c);
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
