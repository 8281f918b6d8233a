/* Time from traffic: the lower bound of a kernel at a device's bandwidths, its serial
 * latency, and what coalescing one instruction would save. See cache.h.
 *
 * The lower bound is a roofline over the memory system: a kernel that moves these bytes
 * cannot be faster than the slowest of DRAM (bytes / DRAM bandwidth), L2 (sectors x 32 /
 * L2 bandwidth) and the busiest SM's L1 data stage (one 128-byte wavefront a clock:
 * Volta and later, NVIDIA forum, "the L1TEX tag stage can resolve 4 sets x 4 sectors per
 * cycle", the data stage 128 bytes a cycle). It says nothing of latency: a kernel with
 * few warps in flight waits on memory far longer. The serial latency is the other end:
 * each warp waits for each of its loads in turn (no overlap within a warp, its warps
 * overlapping each other), the busiest SM's warps dividing the sum of its loads'
 * latencies. A kernel whose every load misses L1 can be slower than one with more
 * sectors per request whose re-reads hit L1 (issue 12: PolyBench atax_kernel1 at 0.72
 * ms vs atax_kernel2 at 1.55 ms on the H200), which this estimate shows and the roofline
 * alone does not. */
#include "cache/cache.h"

#include <string.h>

const char *cc_cache_bound_name(enum cc_cache_bound b)
{
  switch (b) {
  case CC_CACHE_BOUND_DRAM: return "DRAM";
  case CC_CACHE_BOUND_L2: return "L2";
  case CC_CACHE_BOUND_L1: return "L1";
  }
  return "?";
}

/* bytes at gbs GB/s, in microseconds */
static double us(double bytes, double gbs)
{
  return gbs > 0 ? bytes / (gbs * 1e3) : 0.0;
}

/* The times of the given figures (the kernel's, or what they would be after a fix). */
static void times(const struct cc_cache_device *d, double dram_bytes, double l2_sectors,
                  double wavefronts_max_sm, double latency_ns, struct cc_cache_time *t)
{
  double l1_gbs = d->l1_bytes_per_clk * d->clock_ghz; /* bytes per ns = GB/s */
  memset(t, 0, sizeof *t);
  t->dram_bytes = dram_bytes;
  t->dram_us = us(dram_bytes, d->dram_gbs);
  t->l2_us = us(l2_sectors * CC_CACHE_SECTOR_BYTES, d->l2_gbs);
  t->l1_us = us(wavefronts_max_sm * CC_CACHE_LINE_BYTES, l1_gbs);
  t->bound_us = t->dram_us;
  t->bound_by = CC_CACHE_BOUND_DRAM;
  if (t->l2_us > t->bound_us) {
    t->bound_us = t->l2_us;
    t->bound_by = CC_CACHE_BOUND_L2;
  }
  if (t->l1_us > t->bound_us) {
    t->bound_us = t->l1_us;
    t->bound_by = CC_CACHE_BOUND_L1;
  }
  t->latency_us = latency_ns / 1e3;
  t->estimate_us = t->bound_us > t->latency_us ? t->bound_us : t->latency_us;
}

uint64_t cc_cache_dram_bytes(const struct cc_cache_kernel *k)
{
  const struct cc_cache_counts *c = &k->total;
  return c->dram_bytes_read + c->dram_bytes_written +
         (k->l2_evictions ? c->l2_dirty_bytes_at_end : 0);
}

void cc_cache_estimate(const struct cc_cache_device *d, const struct cc_cache_kernel *k,
                       struct cc_cache_time *t)
{
  const struct cc_cache_counts *c = &k->total;
  times(d, (double)cc_cache_dram_bytes(k),
        (double)cc_cache_l2_sectors(c), (double)k->l1_wavefronts_max_sm, k->latency_ns_max_sm, t);
}

static double min_d(double a, double b)
{
  return a < b ? a : b;
}

/* share of total that part would become: (total - part + after) / total (1 when total 0) */
static double scale(double total, double part, double after)
{
  return total > 0 ? (total - part + after) / total : 1.0;
}

double cc_cache_fix_gain_us(const struct cc_cache_device *d, const struct cc_cache_kernel *k,
                            const struct cc_cache_counts *insn, uint64_t requests,
                            uint64_t ideal_sectors, struct cc_cache_time *after)
{
  const struct cc_cache_counts *c = &k->total;
  struct cc_cache_time now, fixed;
  double ideal = (double)ideal_sectors, req = (double)requests;
  double ideal_per_req = req > 0 ? ideal / req : 0;
  double wf_after = req > ideal / 4 ? req : ideal / 4;
  double l2_after = min_d((double)insn->l2_sectors_read, ideal) +
                    min_d((double)insn->l2_sectors_write, ideal) +
                    min_d((double)insn->l2_sectors_atomic, ideal);
  double waits = (double)(insn->waits_l1 + insn->waits_l2 + insn->waits_dram);
  double dram_sectors = (double)insn->dram_bytes_read / CC_CACHE_SECTOR_BYTES;
  double dram_waits = ideal_per_req > 0 ? min_d(waits, dram_sectors / ideal_per_req) : 0;
  double lat_after = dram_waits * d->lat_dram_ns + (waits - dram_waits) * d->lat_l1_ns;
  double wf_total = (double)c->l1_wavefronts, lat_total = c->latency_ns;
  cc_cache_estimate(d, k, &now);
  if (dram_waits < (double)insn->waits_dram) /* never fewer DRAM waits than now */
    lat_after = insn->latency_ns;
  times(d, (double)cc_cache_dram_bytes(k),
        (double)cc_cache_l2_sectors(c) - (double)cc_cache_l2_sectors(insn) + l2_after,
        (double)k->l1_wavefronts_max_sm *
            scale(wf_total, (double)insn->l1_wavefronts, min_d(wf_after,
                                                              (double)insn->l1_wavefronts)),
        k->latency_ns_max_sm * scale(lat_total, insn->latency_ns, lat_after), &fixed);
  if (after)
    *after = fixed;
  return now.estimate_us > fixed.estimate_us ? now.estimate_us - fixed.estimate_us : 0.0;
}
