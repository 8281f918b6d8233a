/* Shared memory on compute capability 1.x: 16 banks, half-warps, one broadcast word.
 *
 * Rule (MODELS.md "Shared memory, cc1.x"; CUDA C Programming Guide 2.3-3.2, section
 * 5.1.2.5 and appendix G.3.3 "Compute Capability 1.x, Shared Memory"; Rosen, EuroVis 2013
 * (seeds/003), footnotes of sections 3 and 6.1):
 *   - successive 4-byte words go to successive banks of 16: bank = (address / 4) % 16;
 *   - a warp's request is split into one request per half-warp (lanes 0-15, 16-31);
 *     half-warps without an active lane issue nothing;
 *   - accesses wider than 32 bits are compiled into separate 32-bit requests: a 64-bit
 *     access into two (word 0, then word 1 of every lane: a stride of two words), a
 *     128-bit access into four (the guide, G.3.3, "Larger Than 32-Bit Access": shared
 *     double arrays have 2-way conflicts);
 *   - a request is served in steps, one conflict-free subset of its addresses per step.
 *     For a read, each step selects a broadcast word and serves every lane whose address
 *     lies within that word, plus one address for each other bank (with every lane on
 *     that address). The guide leaves the choices unspecified; we take the word of the
 *     lowest-numbered unserved lane as the broadcast word and, in every other bank, the
 *     address of its lowest-numbered unserved lane. Writes and atomics have no broadcast
 *     (the guide describes it for reads only): each step serves one address per bank.
 *     Lanes on different bytes of one word are different addresses: 8- and 16-bit
 *     accesses of neighbouring elements conflict, as the guide's char example says.
 *   ways             = the largest number of steps of one request (the conflict's degree:
 *                      16 lanes on 16 distinct words of one bank = 16)
 *   wavefronts       = steps summed over the requests
 *   ideal_wavefronts = requests (one step each without conflicts)
 *   requests         = active half-warps x 32-bit pieces (1 when no lane is active)
 * EuroVis 2013, the 16x16 float tile read by column: "each half-warp suffers from a
 * 16-way bank conflict for 32 serialized transactions" = ways 16, wavefronts 32. */
#include "model/model_impl.h"

#define BANKS 16u
#define HALF_WARP 16u
#define WORD 4u

/* Steps needed to serve the lanes in `lanes` whose addresses are addr[] (per lane), with
 * broadcast when `read`. */
static uint32_t steps(const uint64_t addr[CC_WARP_SIZE], uint32_t lanes, int read)
{
  uint32_t n = 0;
  while (lanes) {
    uint64_t bword = UINT64_MAX;
    n++;
    if (read) {
      bword = addr[__builtin_ctz(lanes)] / WORD;
      for (int lane = 0; lane < CC_WARP_SIZE; lane++)
        if ((lanes & (1u << lane)) && addr[lane] / WORD == bword)
          lanes &= ~(1u << lane);
    }
    uint32_t before = lanes; /* one address per bank, chosen among the lanes left now */
    for (uint32_t bank = 0; bank < BANKS; bank++) {
      if (read && bword % BANKS == bank)
        continue; /* the broadcast bank served its word this step */
      int pick = -1;
      for (int lane = 0; lane < CC_WARP_SIZE; lane++) {
        if (!(before & (1u << lane)) || (addr[lane] / WORD) % BANKS != bank)
          continue;
        if (pick < 0)
          pick = lane;
        if (addr[lane] == addr[pick])
          lanes &= ~(1u << lane);
      }
    }
  }
  return n;
}

static void banks16_shared(const struct cc_model *m, const struct cc_warp_access *a,
                           struct cc_shared_cost *out)
{
  uint32_t pieces = a->size_bytes > WORD ? (a->size_bytes + WORD - 1) / WORD : 1u;
  int read = a->kind == CC_ACCESS_LOAD;
  (void)m;
  *out = (struct cc_shared_cost){ 0 };
  for (uint32_t first = 0; first < CC_WARP_SIZE && a->size_bytes; first += HALF_WARP) {
    uint32_t lanes = a->active & cc_model_lane_mask(first, HALF_WARP);
    if (!lanes)
      continue;
    for (uint32_t p = 0; p < pieces; p++) {
      uint64_t addr[CC_WARP_SIZE] = { 0 };
      for (uint32_t lane = first; lane < first + HALF_WARP; lane++)
        addr[lane] = a->addr[lane] + (pieces > 1 ? (uint64_t)p * WORD : 0);
      uint32_t s = steps(addr, lanes, read);
      out->requests++;
      out->ideal_wavefronts++;
      out->wavefronts += s;
      if (s > out->ways)
        out->ways = s;
    }
  }
  if (out->requests == 0)
    out->requests = 1;
}

const struct cc_model_rules cc_model_rules_banks16 = {
  .family = "16 banks, half-warps, one broadcast word per step (cc1.x)",
  .group_lanes = 16,
  .global = NULL,
  .shared = banks16_shared,
};
