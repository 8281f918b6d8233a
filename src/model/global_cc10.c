/* Global and local memory on compute capability 1.0 and 1.1: strict half-warp coalescing.
 *
 * Rule (MODELS.md "cc1.0 / cc1.1"; CUDA C Programming Guide 2.3-3.2, section 5.1.2.1 and
 * appendix G.3.2.1 "Devices of Compute Capability 1.0 and 1.1"): a warp's access is served
 * per half-warp (lanes 0-15, 16-31); each half-warp with an active lane is one request.
 * The half-warp coalesces when
 *   - the word size is 4, 8 or 16 bytes;
 *   - the words lie in one segment aligned to its size: 64 bytes for 4-byte words, 128 for
 *     8-byte words, 256 (two consecutive 128-byte segments) for 16-byte words;
 *   - "the k-th thread in the half-warp accesses the k-th word": lane 16h + k reads the
 *     address segment + k x size. k is the lane's position in the half-warp, counted over
 *     all 16 lanes: inactive lanes do not break coalescing (the guide's figure of a
 *     divergent half-warp, still one transaction), so "the k-th active lane" of MODELS.md
 *     is read as the lane of number k when every lane is counted.
 * A coalesced half-warp costs one 64-byte (4-byte words), one 128-byte (8-byte words) or
 * two 128-byte (16-byte words) transactions. Otherwise every active lane gets its own
 * 32-byte transaction (a lane whose bytes straddle 32-byte boundaries, which aligned
 * accesses never do, one per 32-byte segment touched). A permutation of the words, all
 * lanes on one address, 1- and 2-byte words: all one transaction per lane. Atomics and
 * reductions are costed like loads and stores (the guide gives them no rule of their own).
 *   requests          = half-warps with an active lane (1 when no lane is active, as on
 *                       every model: the instruction was issued)
 *   transactions      = sum over half-warps of the above
 *   transaction_bytes = sum of the transaction sizes
 *   sectors, lines, ideal_sectors: the access's byte geometry (geometry.c) */
#include "model/model_impl.h"

#define HALF_WARP 16u
#define SMALL_TRANSACTION 32u

/* Size of the aligned segment a coalesced half-warp of `size`-byte words must fill, or 0
 * when that word size never coalesces. */
static uint64_t coalesced_segment(uint32_t size)
{
  switch (size) {
  case 4: return 64;
  case 8: return 128;
  case 16: return 256;
  default: return 0;
  }
}

/* 1 if the active lanes of half-warp mask satisfy the three conditions above. */
static int half_warp_coalesces(const struct cc_warp_access *a, uint32_t first, uint32_t mask)
{
  uint64_t seg = coalesced_segment(a->size_bytes), base = 0;
  int have = 0;
  if (seg == 0)
    return 0;
  for (uint32_t k = 0; k < HALF_WARP; k++) {
    uint32_t lane = first + k;
    uint64_t off = (uint64_t)k * a->size_bytes;
    if (!(mask & a->active & (1u << lane)))
      continue;
    if (a->addr[lane] < off)
      return 0; /* the k-th word would start below address 0: not in sequence */
    if (!have) {
      base = a->addr[lane] - off;
      have = 1;
    } else if (a->addr[lane] - off != base) {
      return 0; /* out of sequence */
    }
  }
  return have && base % seg == 0;
}

/* The two 128-byte halves (16-byte words) or the one segment of a coalesced half-warp,
 * listed with the lanes each serves. */
static void list_coalesced(const struct cc_warp_access *a, uint32_t mask, uint32_t request,
                           struct cc_model_txns *list)
{
  uint64_t seg = coalesced_segment(a->size_bytes), part = seg > 128 ? 128 : seg;
  uint32_t act = a->active & mask;
  /* the first active lane's word lies in the segment (half_warp_coalesces) */
  uint64_t base = a->addr[__builtin_ctz(act)] & ~(seg - 1);
  for (uint64_t off = 0; off < seg; off += part) {
    uint32_t lanes = 0;
    for (uint32_t m = act; m; m &= m - 1) {
      int l = __builtin_ctz(m);
      if (a->addr[l] >= base + off && a->addr[l] < base + off + part)
        lanes |= 1u << l;
    }
    cc_model_txn_add(list, base + off, (uint32_t)part, lanes, request);
  }
}

static void cc10_global(const struct cc_model *m, const struct cc_warp_access *a,
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
    if (half_warp_coalesces(a, first, mask)) {
      uint32_t n = a->size_bytes == 16 ? 2u : 1u;
      out->transactions += n;
      out->transaction_bytes += (uint32_t)coalesced_segment(a->size_bytes);
      if (list)
        list_coalesced(a, mask, out->requests - 1, list);
      continue;
    }
    for (uint32_t lane = first; lane < first + HALF_WARP; lane++) {
      if (!(a->active & (1u << lane)))
        continue;
      uint32_t n = cc_model_units(a, 1u << lane, SMALL_TRANSACTION);
      out->transactions += n;
      out->transaction_bytes += SMALL_TRANSACTION * n;
      if (list)
        cc_model_list_units(a, 1u << lane, SMALL_TRANSACTION, out->requests - 1, list);
    }
  }
  if (out->requests == 0)
    out->requests = 1;
}

const struct cc_model_rules cc_model_rules_cc10 = {
  .family = "half-warps, strict coalescing (cc1.0, cc1.1)",
  .group_lanes = 16, /* CGO 2015 Algorithm 1: W = 16 below cc2.0 */
  .global = cc10_global,
  .shared = NULL,
};
