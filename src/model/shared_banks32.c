/* Shared memory on sm_50 .. sm_90 (and cc3.x): 32 banks, multicast.
 *
 * Rule (MODELS.md "Shared memory", cc5.0 ... cc9.0; CUDA C Programming Guide, appendix
 * "Compute Capabilities", shared memory of 5.x): successive bank-width words (4 bytes;
 * cc3.x may be set to 8 with cc_model_opts.smem_bank_width) go to successive banks of 32.
 * A warp access is served in phases: one phase carries at most 32 x bank-width bytes, so
 * 4-byte words take 1 phase, 8-byte accesses 2 (half-warps: lanes 0-15, 16-31) and
 * 16-byte accesses 4 (quarter-warps). Within a phase, lanes reading the same word are
 * served together (multicast); lanes touching k distinct words of one bank need k
 * wavefronts.
 *   ways             = max over phases and banks of the distinct words touched
 *   wavefronts       = sum over phases with an active lane of max(1, ways in that phase)
 *   ideal_wavefronts = number of phases with an active lane
 * To be validated on the GPU against l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_*
 * and l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*. */
#include <stdlib.h>

#include "model/model_impl.h"

#define BANKS 32u
#define MAX_WORDS_PER_LANE 16u /* a 64-byte lane access on 4-byte banks */

static int cmp_u64(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* Ways of one phase: lanes [lo, hi) of a. words must hold (hi - lo) * MAX_WORDS_PER_LANE. */
static uint32_t phase_ways(const struct cc_warp_access *a, uint32_t width, int lo, int hi,
                           uint64_t *words, int *any)
{
  size_t n = 0;
  uint32_t per_bank[BANKS] = { 0 }, ways = 0;
  *any = 0;
  for (int lane = lo; lane < hi; lane++) {
    if (!(a->active & (1u << lane)))
      continue;
    uint64_t w0 = a->addr[lane] / width, w1 = (a->addr[lane] + a->size_bytes - 1) / width;
    *any = 1;
    for (uint64_t w = w0; w <= w1 && w - w0 < MAX_WORDS_PER_LANE; w++)
      words[n++] = w;
  }
  qsort(words, n, sizeof words[0], cmp_u64);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && words[i] == words[i - 1])
      continue; /* multicast: the same word costs nothing more */
    uint32_t c = ++per_bank[words[i] % BANKS];
    if (c > ways)
      ways = c;
  }
  return ways;
}

static void banks32_shared(const struct cc_model *m, const struct cc_warp_access *a,
                           struct cc_shared_cost *out)
{
  uint32_t width = m->opts.smem_bank_width == 8 ? 8u : 4u;
  uint32_t phases = a->size_bytes * CC_WARP_SIZE / (BANKS * width);
  uint64_t words[CC_WARP_SIZE * MAX_WORDS_PER_LANE];
  *out = (struct cc_shared_cost){ .requests = 1 };
  if (a->size_bytes == 0)
    return;
  if (phases < 1)
    phases = 1;
  if (phases > CC_WARP_SIZE)
    phases = CC_WARP_SIZE;
  while (CC_WARP_SIZE % phases != 0) /* odd sizes: round up to whole lane groups */
    phases++;
  int lanes_per_phase = CC_WARP_SIZE / (int)phases;
  for (int p = 0; p < (int)phases; p++) {
    int any;
    uint32_t ways = phase_ways(a, width, p * lanes_per_phase, (p + 1) * lanes_per_phase,
                               words, &any);
    if (!any)
      continue;
    out->ideal_wavefronts++;
    out->wavefronts += ways > 1 ? ways : 1;
    if (ways > out->ways)
      out->ways = ways;
  }
}

const struct cc_model_rules cc_model_rules_banks32 = {
  .family = "32 banks, multicast, 8-byte accesses per half-warp, 16-byte per quarter-warp",
  .group_lanes = 32,
  .global = NULL,
  .shared = banks32_shared,
};
