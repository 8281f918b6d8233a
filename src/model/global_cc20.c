/* Global and local memory on compute capability 2.0 and 2.1 (Fermi): L1 lines, L2
 * segments.
 *
 * Rule (MODELS.md "cc2.x"; CUDA C Programming Guide 4.0-6.5, appendix F.4.2 "Compute
 * Capability 2.x, Global Memory"):
 *   - a warp's request for words of more than 4 bytes is first split into requests of 128
 *     bytes issued independently: two (one per half-warp) for 8-byte words, four (one per
 *     quarter-warp) for 16-byte words; words of 1, 2 or 4 bytes make one request;
 *   - each request becomes one transaction per distinct 128-byte line when it is cached
 *     in L1 (the default, -Xptxas -dlcm=ca), or per distinct 32-byte segment when it is
 *     cached in L2 only (-Xptxas -dlcm=cg; cc_model_opts.l1_cache = CC_MODEL_L1_OFF).
 *     "Memory accesses that are cached in both L1 and L2 are serviced with 128-byte
 *     memory transactions whereas memory accesses that are cached in L2 only are serviced
 *     with 32-byte memory transactions" (the guide, F.4.2; also NVIDIA Nsight Visual
 *     Studio Edition, "Memory Statistics - Global");
 *   - the L1 caches loads only. Global stores invalidate the L1 line and are written to L2
 *     (P. Micikevicius, "Fundamental Optimizations", NVIDIA GTC 2010 / SC 2011, slide
 *     "Load/Store Operations": "Stores: invalidate L1, write-back for L2"), so they cost
 *     one 32-byte transaction per distinct 32-byte segment whatever the L1 option.
 *     Atomics and reductions are performed in L2: likewise 32-byte segments;
 *   - local memory is always cached in L1 (the guide, 5.3.2 "Device Memory Accesses,
 *     Local Memory": on 2.x "local memory accesses are always cached in L1 and L2 in the
 *     same way as global memory accesses"; -dlcm does not apply): loads and stores of
 *     local memory cost one 128-byte transaction per line.
 * Requests count the 128-byte requests that hold an active lane (1 when no lane is
 * active: the instruction was issued). Lanes may read any words in any order, the same
 * words included: only the distinct lines (segments) count.
 *   transactions      = sum over requests of distinct lines (or 32-byte segments)
 *   transaction_bytes = 128 x lines or 32 x segments
 *   sectors, lines, ideal_sectors: the access's byte geometry (geometry.c) */
#include "model/model_impl.h"

#define L1_LINE 128u
#define L2_SEGMENT 32u
#define REQUEST_BYTES 128u

/* Lanes per request: 32 for words up to 4 bytes, else 128 / size (16 for 8-byte words,
 * 8 for 16-byte words), at least 1. */
static uint32_t lanes_per_request(uint32_t size)
{
  if (size <= 4)
    return CC_WARP_SIZE;
  return size >= REQUEST_BYTES ? 1u : REQUEST_BYTES / size;
}

/* Transaction size of access a under the options of m (see the rule above). */
static uint32_t transaction_unit(const struct cc_model *m, const struct cc_warp_access *a)
{
  if (a->space == CC_SPACE_LOCAL)
    return L1_LINE;
  if (a->kind == CC_ACCESS_LOAD && m->opts.l1_cache != CC_MODEL_L1_OFF)
    return L1_LINE;
  return L2_SEGMENT;
}

static void cc20_global(const struct cc_model *m, const struct cc_warp_access *a,
                        struct cc_global_cost *out, struct cc_model_txns *list)
{
  uint32_t per = lanes_per_request(a->size_bytes), unit = transaction_unit(m, a);
  *out = (struct cc_global_cost){ 0 };
  cc_model_geometry(a, out);
  for (uint32_t first = 0; first < CC_WARP_SIZE && a->size_bytes; first += per) {
    uint32_t mask = cc_model_lane_mask(first, per < CC_WARP_SIZE - first ? per
                                                                        : CC_WARP_SIZE - first);
    if (!(a->active & mask))
      continue;
    uint32_t n = cc_model_units(a, mask, unit);
    out->requests++;
    out->transactions += n;
    out->transaction_bytes += unit * n;
    if (list)
      cc_model_list_units(a, mask, unit, out->requests - 1, list);
  }
  if (out->requests == 0)
    out->requests = 1;
}

const struct cc_model_rules cc_model_rules_cc20 = {
  .family = "128-byte requests, L1 lines or L2 segments (cc2.0, cc2.1)",
  .group_lanes = 32,
  .global = cc20_global,
  .shared = NULL,
};
