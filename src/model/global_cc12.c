/* Global and local memory on compute capability 1.2 and 1.3: the segment protocol.
 *
 * Rule (MODELS.md "cc1.2 / cc1.3"; CUDA C Programming Guide 2.3-3.2, section 5.1.2.1 and
 * appendix G.3.2.2 "Devices of Compute Capability 1.2 and 1.3"): a warp's access is served
 * per half-warp (lanes 0-15, 16-31); each half-warp with an active lane is one request,
 * served by repeating until every active lane of the half-warp is served:
 *   1. take the segment holding the address of the lowest-numbered unserved active lane:
 *      32 bytes for 1-byte words, 64 for 2-byte words, 128 for 4-, 8- and 16-byte words
 *      (aligned to its size);
 *   2. serve every unserved active lane whose address lies in that segment;
 *   3. shrink the transaction: a 128-byte one whose served bytes lie all in its lower or
 *      all in its upper half becomes 64 bytes; a 64-byte one (original or shrunk) whose
 *      served bytes lie in one half becomes 32 bytes;
 *   4. issue it: one transaction of the final size.
 * Any permutation of the words within a segment, and any number of lanes on one word,
 * therefore costs what the contiguous access costs. Served bytes are [addr, addr + size)
 * of the served lanes, clipped to the segment (aligned accesses never cross it; the
 * emulator rejects misaligned ones). Atomics and reductions are costed like loads and
 * stores (the guide gives them no rule of their own).
 *   requests          = half-warps with an active lane (1 when no lane is active)
 *   transactions      = transactions issued, summed over half-warps
 *   transaction_bytes = sum of their final sizes
 *   sectors, lines, ideal_sectors: the access's byte geometry (geometry.c) */
#include "model/model_impl.h"

#define HALF_WARP 16u

/* Segment size of step 1 for `size`-byte words. */
static uint64_t segment_bytes(uint32_t size)
{
  if (size == 1)
    return 32;
  if (size == 2)
    return 64;
  return 128;
}

/* Step 3: the size of a transaction on the aligned segment [base, base + seg) whose
 * served bytes are [lo, hi] (inclusive, inside the segment). */
static uint32_t shrink(uint64_t base, uint64_t seg, uint64_t lo, uint64_t hi)
{
  if (seg == 128) {
    if (hi < base + 64) {
      seg = 64; /* lower half */
    } else if (lo >= base + 64) {
      seg = 64; /* upper half */
      base += 64;
    }
  }
  if (seg == 64 && (hi < base + 32 || lo >= base + 32))
    seg = 32;
  return (uint32_t)seg;
}

/* Serves the active lanes of half-warp mask; adds its transactions and bytes to out. */
static void serve_half_warp(const struct cc_warp_access *a, uint32_t mask,
                            struct cc_global_cost *out, struct cc_model_txns *list)
{
  uint64_t seg = segment_bytes(a->size_bytes);
  uint32_t unserved = a->active & mask;
  while (unserved) {
    int low = __builtin_ctz(unserved);
    uint64_t base = a->addr[low] & ~(seg - 1), end = base + seg - 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    uint32_t served = unserved;
    for (int lane = low; lane < CC_WARP_SIZE; lane++) {
      if (!(unserved & (1u << lane)) || a->addr[lane] < base || a->addr[lane] > end)
        continue;
      uint64_t last = a->addr[lane] + (a->size_bytes - 1);
      if (last > end || last < a->addr[lane])
        last = end; /* clipped to the segment (and no wrap at the top of memory) */
      if (a->addr[lane] < lo)
        lo = a->addr[lane];
      if (last > hi)
        hi = last;
      unserved &= ~(1u << lane);
    }
    out->transactions++;
    uint32_t bytes = shrink(base, seg, lo, hi);
    out->transaction_bytes += bytes;
    if (list) /* the shrunk block: the half (or quarter) of the segment holding lo */
      cc_model_txn_add(list, lo & ~(uint64_t)(bytes - 1), bytes, served & ~unserved,
                       out->requests - 1);
  }
}

static void cc12_global(const struct cc_model *m, const struct cc_warp_access *a,
                        struct cc_global_cost *out, struct cc_model_txns *list)
{
  (void)m;
  *out = (struct cc_global_cost){ 0 };
  cc_model_geometry(a, out);
  for (uint32_t first = 0; first < CC_WARP_SIZE && a->size_bytes; first += HALF_WARP) {
    uint32_t mask = cc_model_lane_mask(first, HALF_WARP);
    if (!(a->active & mask))
      continue;
    out->requests++;
    serve_half_warp(a, mask, out, list);
  }
  if (out->requests == 0)
    out->requests = 1;
}

const struct cc_model_rules cc_model_rules_cc12 = {
  .family = "half-warps, segment protocol with shrinking (cc1.2, cc1.3)",
  .group_lanes = 16, /* CGO 2015 Algorithm 1: W = 16 below cc2.0 */
  .global = cc12_global,
  .shared = NULL,
};
