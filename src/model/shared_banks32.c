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

/* Sorts words[0..n) increasingly without a library call: in-order (the common
 * unit-stride phase) and reverse-order input cost one pass, anything else an insertion
 * sort. Sorting numbers gives one result whatever the method, the one qsort gives in the
 * reference path (cc_model_shared_banks32_ref). */
static void sort_words(uint64_t *w, size_t n)
{
  size_t up = 1, down = 1;
  for (size_t i = 1; i < n; i++) {
    up += w[i - 1] <= w[i];
    down += w[i - 1] >= w[i];
  }
  if (up >= n)
    return;
  if (down == n) {
    for (size_t i = 0, j = n - 1; i < j; i++, j--) {
      uint64_t t = w[i];
      w[i] = w[j];
      w[j] = t;
    }
    return;
  }
  for (size_t i = 1; i < n; i++) {
    uint64_t x = w[i];
    size_t j = i;
    for (; j > 0 && w[j - 1] > x; j--)
      w[j] = w[j - 1];
    w[j] = x;
  }
}

/* Ways of one phase: lanes [lo, hi) of a. words must hold (hi - lo) * MAX_WORDS_PER_LANE.
 * by_qsort: the reference sort (qsort) instead of sort_words. */
static uint32_t phase_ways(const struct cc_warp_access *a, uint32_t width, int lo, int hi,
                           uint64_t *words, int *any, int by_qsort)
{
  size_t n = 0;
  uint32_t per_bank[BANKS] = { 0 }, ways = 0;
  *any = 0;
  if (!by_qsort) {
    /* One pass, no sort: if no bank receives two distinct words, ways is 1 (0 without
     * words); if the words come strictly increasing or strictly decreasing (a row or a
     * column of a tile), they are distinct and ways is the largest count of words in one
     * bank. Anything else goes to the general count below. */
    uint64_t bank_word[BANKS], prev = 0;
    uint16_t count[BANKS] = { 0 };
    uint32_t seen = 0, most = 0;
    unsigned sh = width == 8 ? 3u : 2u; /* width is 4 or 8 */
    int conflict = 0, up = 1, down = 1, have = 0;
    for (uint32_t m = a->active & (uint32_t)(((1ull << hi) - 1) & ~((1ull << lo) - 1)); m;
         m &= m - 1) {
      uint64_t addr = a->addr[__builtin_ctz(m)];
      uint64_t w0 = addr >> sh, w1 = (addr + a->size_bytes - 1) >> sh;
      *any = 1;
      for (uint64_t w = w0; w <= w1 && w - w0 < MAX_WORDS_PER_LANE; w++) {
        uint32_t b = (uint32_t)(w % BANKS), c = ++count[b];
        up &= !have || w > prev;
        down &= !have || w < prev;
        prev = w;
        have = 1;
        most = c > most ? c : most;
        if (!(seen & (1u << b))) {
          seen |= 1u << b;
          bank_word[b] = w;
        } else if (bank_word[b] != w) {
          conflict = 1;
        }
      }
    }
    if (!conflict)
      return seen ? 1u : 0u;
    if (up || down)
      return most;
    *any = 0;
  }
  for (int lane = lo; lane < hi; lane++) {
    if (!(a->active & (1u << lane)))
      continue;
    uint64_t w0, w1;
    if (by_qsort) {
      w0 = a->addr[lane] / width;
      w1 = (a->addr[lane] + a->size_bytes - 1) / width;
    } else { /* width is 4 or 8: shifts, not divisions */
      unsigned sh = width == 8 ? 3u : 2u;
      w0 = a->addr[lane] >> sh;
      w1 = (a->addr[lane] + a->size_bytes - 1) >> sh;
    }
    *any = 1;
    for (uint64_t w = w0; w <= w1 && w - w0 < MAX_WORDS_PER_LANE; w++)
      words[n++] = w;
  }
  if (by_qsort)
    qsort(words, n, sizeof words[0], cmp_u64);
  else
    sort_words(words, n);
  for (size_t i = 0; i < n; i++) {
    if (i > 0 && words[i] == words[i - 1])
      continue; /* multicast: the same word costs nothing more */
    uint32_t c = ++per_bank[words[i] % BANKS];
    if (c > ways)
      ways = c;
  }
  return ways;
}

/* The rule above; by_qsort selects the reference sort. */
static void banks32(const struct cc_model *m, const struct cc_warp_access *a,
                    struct cc_shared_cost *out, int by_qsort)
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
                               words, &any, by_qsort);
    if (!any)
      continue;
    out->ideal_wavefronts++;
    out->wavefronts += ways > 1 ? ways : 1;
    if (ways > out->ways)
      out->ways = ways;
  }
}

static void banks32_shared(const struct cc_model *m, const struct cc_warp_access *a,
                           struct cc_shared_cost *out)
{
  banks32(m, a, out, 0);
}

void cc_model_shared_banks32_ref(const struct cc_model *m, const struct cc_warp_access *a,
                                 struct cc_shared_cost *out)
{
  banks32(m, a, out, 1);
}

const struct cc_model_rules cc_model_rules_banks32 = {
  .family = "32 banks, multicast, 8-byte accesses per half-warp, 16-byte per quarter-warp",
  .group_lanes = 32,
  .global = NULL,
  .shared = banks32_shared,
};
