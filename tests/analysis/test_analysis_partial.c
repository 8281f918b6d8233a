/* The order-free side of the analysis (analysis.h, cc_analysis_partials): partial figures
 * of two threads merged into the open kernel. Every expected figure is derived in the
 * comment above its check (sm_90: 32-byte sectors, Algorithm 1 with W = 32, 32 banks of
 * 4 bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/footprint.h"
#include "cache/cache.h"

#define BASE 0x1000ull

static const struct cc_insn_info insns[] = {
  { .id = 7, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "ld.global.f32 %f1, [%rd4];", .file = "k.cu", .line = 3 },
  { .id = 9, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4,
    .text = "ld.shared.f32 %f2, [%r5];", .file = "k.cu", .line = 4 },
};

static const struct cc_kernel_info kernel = { .name = "k", .mangled = "_Z1kv",
                                              .grid = { 2, 1, 1 }, .block = { 32, 1, 1 },
                                              .n_insns = 2, .insns = insns };

/* A record of all 32 lanes of instruction slot at base + stride x lane, dynamic
 * instance dyn. */
static struct cc_warp_access record(uint32_t slot, uint64_t base, uint64_t stride, uint64_t dyn)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot;
  a.kind = CC_ACCESS_LOAD;
  a.space = insns[slot].space;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  a.dyn = dyn;
  for (uint32_t l = 0; l < 32; l++)
    a.addr[l] = base + stride * l;
  return a;
}

static const struct cc_insn_stats *by_id(const struct cc_kernel_stats *k, uint32_t id)
{
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.id == id)
      return &k->insns[i];
  fail_msg("no instruction %u", id);
  return NULL;
}

/* ---- combine: partials reduced pairwise, as the workers' tree does (src/emu/par.c) ---- */

/* A fresh analysis of kernel ki, with sm_90's model, a small cache model when cached (2
 * SMs, 16 KiB of L1, 64 KiB of L2: nothing is evicted here) and the kernel open. */
static struct cc_analysis *open_kernel(struct cc_model **m, int cached,
                                       const struct cc_kernel_info *ki)
{
  struct cc_err err = { 0 };
  struct cc_analysis *an;
  struct cc_access_sink sink;
  assert_int_equal(cc_model_get("sm_90", NULL, m, &err), CC_OK);
  an = cc_analysis_new(*m);
  if (cached) {
    struct cc_cache_device d;
    int on = 0;
    assert_int_equal(cc_cache_device_get("sm_90", "h100,sms=2,l1=16K,l2=64K", NULL, &d, &on,
                                         &err), CC_OK);
    assert_int_equal(on, 1);
    cc_analysis_set_cache(an, cc_cache_new(&d));
  }
  sink = cc_analysis_sink(an);
  assert_int_equal(sink.begin_kernel(sink.ctx, ki, &err), CC_OK);
  return an;
}

/* open_kernel of kernel. */
static struct cc_analysis *open_analysis(struct cc_model **m, int cached)
{
  return open_kernel(m, cached, &kernel);
}

/* Gives a to partial part, and to the analysis's ordered sink what the partial says it
 * needs of a (to_ordered: nothing, a, a cut of it, a store held back before them), as a
 * worker does (par.c, split_access); then what the partial still holds back (release:
 * the next record may be another partial's, as at the end of a worker's chunk). */
static void feed(struct cc_analysis *an, const struct cc_access_partials *parts, void *part,
                 const struct cc_warp_access *a)
{
  struct cc_err err = { 0 };
  struct cc_access_sink sink = cc_analysis_sink(an);
  const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX];
  uint32_t n;
  assert_int_equal(parts->access(part, a, &err), CC_OK);
  n = parts->to_ordered(part, a, out);
  assert_true(n <= CC_ACCESS_ORDERED_MAX);
  for (uint32_t i = 0; i < n; i++)
    assert_int_equal(sink.access(sink.ctx, out[i], &err), CC_OK);
  n = parts->release(part, out);
  for (uint32_t i = 0; i < n; i++)
    assert_int_equal(sink.access(sink.ctx, out[i], &err), CC_OK);
}

/* Every figure of instruction id that a report shows, equal in x and y. */
static void same_insn(const struct cc_analysis *x, const struct cc_analysis *y, uint32_t id)
{
  const struct cc_insn_stats *a = by_id(&x->kernels[0], id), *b = by_id(&y->kernels[0], id);
  assert_int_equal(a->executions, b->executions);
  assert_int_equal(a->max_dyn, b->max_dyn);
  assert_int_equal(a->thread_accesses, b->thread_accesses);
  assert_int_equal(a->bytes_requested, b->bytes_requested);
  assert_int_equal(a->requests, b->requests);
  assert_int_equal(a->sectors, b->sectors);
  assert_int_equal(a->ideal_sectors, b->ideal_sectors);
  assert_int_equal(a->unique_bytes, b->unique_bytes);
  assert_memory_equal(a->sector_hist, b->sector_hist, sizeof a->sector_hist);
  assert_int_equal(a->ways_max, b->ways_max);
  assert_int_equal(a->wavefronts, b->wavefronts);
  assert_int_equal(a->ideal_wavefronts, b->ideal_wavefronts);
  assert_int_equal(a->conflict_requests, b->conflict_requests);
  assert_int_equal(a->stride_min, b->stride_min);
  assert_int_equal(a->stride_max, b->stride_max);
  assert_int_equal(a->stride_count, b->stride_count);
  assert_true(a->stride_sum == b->stride_sum);
  assert_int_equal(a->uncoalesced_requests, b->uncoalesced_requests);
  assert_int_equal(a->uncoalesced_thread_accesses, b->uncoalesced_thread_accesses);
  assert_int_equal(a->lane_stride, b->lane_stride);
  assert_int_equal(a->lanes_seen, b->lanes_seen);
  assert_int_equal(cc_analysis_fp_count(a->footprint), cc_analysis_fp_count(b->footprint));
  assert_int_equal(a->all_stride, b->all_stride);
  assert_int_equal(a->verdict, b->verdict);
  assert_int_equal(a->cache.l1_wavefronts, b->cache.l1_wavefronts);
  assert_int_equal(a->cache.waits_l1, b->cache.waits_l1);
  assert_int_equal(a->cache.waits_l2 + a->cache.waits_dram, b->cache.waits_l2 + b->cache.waits_dram);
  assert_int_equal(a->cache.l2_sectors_read, b->cache.l2_sectors_read);
  assert_int_equal(a->cache.l1_hit_sectors, b->cache.l1_hit_sectors);
}

/* Five records: global ones A (unit stride from BASE, warp 0 dyn 0), B (128-byte stride
 * from BASE, dyn 2), C (8-byte stride from BASE + 0x10000, dyn 1); shared ones S4 (4-byte
 * stride) and S128 (128-byte stride). Four partials get {A, S4}, {B}, {C}, {S128}; the
 * tree of four workers combines 0 <- 1 and 2 <- 3, then 0 <- 2, and closes 0 only. Its
 * figures must be those of one analysis given the five records on its sink alone (the
 * serial run, --jobs 1), with and without the cache model (the shared records are then
 * counted by the partials' drops, combined too), and the hand-derived ones below. */
static void run_tree(int cached)
{
  struct cc_model *m1 = NULL, *m2 = NULL;
  struct cc_err err = { 0 };
  struct cc_analysis *serial = open_analysis(&m1, cached), *an = open_analysis(&m2, cached);
  struct cc_access_sink ss = cc_analysis_sink(serial), sink = cc_analysis_sink(an);
  struct cc_access_partials parts = cc_analysis_partials(an);
  struct cc_warp_access recs[5] = { record(0, BASE, 4, 0), record(1, 0, 4, 0),
                                    record(0, BASE, 128, 2), record(0, BASE + 0x10000, 8, 1),
                                    record(1, 0, 128, 0) };
  const int owner[5] = { 0, 0, 1, 2, 3 }; /* the partial of each record */
  void *p[4];
  assert_non_null(parts.combine);
  for (int i = 0; i < 4; i++)
    assert_non_null(p[i] = parts.open(parts.ctx));
  for (int i = 0; i < 5; i++) {
    assert_int_equal(ss.access(ss.ctx, &recs[i], &err), CC_OK);
    feed(an, &parts, p[owner[i]], &recs[i]);
  }
  parts.combine(parts.ctx, p[0], p[1]);
  parts.combine(parts.ctx, p[2], p[3]);
  parts.combine(parts.ctx, p[0], p[2]);
  assert_int_equal(parts.close(parts.ctx, p[0], 1, &err), CC_OK);
  assert_int_equal(sink.end_kernel(sink.ctx, &err), CC_OK);
  assert_int_equal(ss.end_kernel(ss.ctx, &err), CC_OK);
  same_insn(serial, an, 7);
  same_insn(serial, an, 9);

  const struct cc_insn_stats *g = by_id(&an->kernels[0], 7), *s = by_id(&an->kernels[0], 9);
  /* global: A 4 sectors (128 bytes from BASE), B 32 (lanes 128 bytes apart), C 8 (lanes
   * 8 bytes apart: 0x11000..0x110fb, 256 bytes); ideal 4 each: 44 and 12; 3 requests of
   * 32 lanes x 4 bytes: 96 accesses, 384 bytes; histogram 4, 32, 8 */
  assert_int_equal(g->executions, 3);
  assert_int_equal(g->thread_accesses, 96);
  assert_int_equal(g->bytes_requested, 384);
  assert_int_equal(g->sectors, 44);
  assert_int_equal(g->ideal_sectors, 12);
  assert_int_equal(g->sector_hist[4], 1);
  assert_int_equal(g->sector_hist[8], 1);
  assert_int_equal(g->sector_hist[32], 1);
  /* warp 0 ran it at dyn 0, 1, 2: max_dyn 2 + 1 */
  assert_int_equal(g->max_dyn, 3);
  /* 31 strides each: 4 (sum 124), 128 (3968), 8 (248): min 4, max 128, 93, sum 4340 */
  assert_int_equal(g->stride_min, 4);
  assert_int_equal(g->stride_max, 128);
  assert_int_equal(g->stride_count, 93);
  assert_true(g->stride_sum == 4340.0);
  /* B and C have strides above the 4-byte size: 2 uncoalesced requests, 64 lanes */
  assert_int_equal(g->uncoalesced_requests, 2);
  assert_int_equal(g->uncoalesced_thread_accesses, 64);
  /* footprint: A's 32 and B's 32 share 0x1000 (63), C's 32 from 0x11000 are apart (the
   * highest of B is 0x1000 + 31 x 128 = 0x1f80): 95 distinct; the largest gap is
   * 0x11000 - 0x1f80 = 61568 bytes */
  assert_int_equal(cc_analysis_fp_count(g->footprint), 95);
  assert_int_equal(g->all_stride, 61568);
  assert_true(g->lane_stride == CC_LANE_STRIDE_MIXED);
  /* shared: S4 1 wavefront, S128 32 (32-way, bank 0): 33, ideal 2, one conflict */
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->wavefronts, 33);
  assert_int_equal(s->ideal_wavefronts, 2);
  assert_int_equal(s->ways_max, 32);
  assert_int_equal(s->conflict_requests, 1);
  if (cached) {
    /* the cache model takes a shared load's wavefronts as L1 cycles and one wait on L1
     * each: 33 and 2, counted by the partials (drop.c) and summed by combine */
    assert_int_equal(s->cache.l1_wavefronts, 33);
    assert_int_equal(s->cache.waits_l1, 2);
  }
  cc_analysis_free(serial);
  cc_analysis_free(an);
  cc_model_free(m1);
  cc_model_free(m2);
}

static void test_combine_tree(void **state)
{
  (void)state;
  run_tree(0);
}

static void test_combine_tree_cached(void **state)
{
  (void)state;
  run_tree(1);
}

/* Partial A (thread 1) gets the unit-stride records, partial B (thread 2) the 128-byte
 * stride ones; the analysis's own sink sees all four records too, as the ordered stream
 * does, and must not count them again. swap 1 closes B before A. */
static void run_split(int swap)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_analysis *an;
  struct cc_access_sink sink;
  struct cc_access_partials parts;
  struct cc_warp_access ga = record(0, BASE, 4, 0), gb = record(0, BASE, 128, 2);
  struct cc_warp_access sa = record(1, 0, 4, 0), sb = record(1, 0, 128, 0);
  void *pa, *pb;
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  an = cc_analysis_new(m);
  sink = cc_analysis_sink(an);
  parts = cc_analysis_partials(an);
  assert_int_equal(sink.begin_kernel(sink.ctx, &kernel, &err), CC_OK);
  pa = parts.open(parts.ctx);
  pb = parts.open(parts.ctx);
  assert_non_null(pa);
  assert_non_null(pb);
  assert_int_equal(parts.access(pa, &ga, &err), CC_OK);
  assert_int_equal(parts.access(pa, &sa, &err), CC_OK);
  assert_int_equal(parts.access(pb, &gb, &err), CC_OK);
  assert_int_equal(parts.access(pb, &sb, &err), CC_OK);
  assert_int_equal(sink.access(sink.ctx, &ga, &err), CC_OK);
  assert_int_equal(sink.access(sink.ctx, &sa, &err), CC_OK);
  assert_int_equal(sink.access(sink.ctx, &gb, &err), CC_OK);
  assert_int_equal(sink.access(sink.ctx, &sb, &err), CC_OK);
  assert_int_equal(parts.close(parts.ctx, swap ? pb : pa, 1, &err), CC_OK);
  assert_int_equal(parts.close(parts.ctx, swap ? pa : pb, 1, &err), CC_OK);
  assert_int_equal(sink.end_kernel(sink.ctx, &err), CC_OK);

  const struct cc_insn_stats *g = by_id(&an->kernels[0], 7), *s = by_id(&an->kernels[0], 9);
  /* global. A: 32 lanes x 4 bytes from 0x1000: 128 bytes, 4 sectors, 1 request; 31
   * strides of 4 (sum 124 = last - first). B: lanes 128 bytes apart: 32 sectors, 31
   * strides of 128 (sum 3968), uncoalesced (128 > 4) with its 32 lanes. Merged: 2
   * executions, 64 lanes, 256 bytes requested, 36 sectors, ideal 4 + 4 = 8 */
  assert_int_equal(g->executions, 2);
  assert_int_equal(g->thread_accesses, 64);
  assert_int_equal(g->bytes_requested, 256);
  assert_int_equal(g->requests, 2);
  assert_int_equal(g->sectors, 36);
  assert_int_equal(g->ideal_sectors, 8);
  /* every lane uses its 4 bytes: 128 unique bytes per record */
  assert_int_equal(g->unique_bytes, 256);
  /* histogram of sectors per request: one request of 4, one of 32 */
  assert_int_equal(g->sector_hist[4], 1);
  assert_int_equal(g->sector_hist[32], 1);
  /* dyn 0 and 2: the most executions of one warp is 2 + 1 */
  assert_int_equal(g->max_dyn, 3);
  /* strides: min 4 (A), max 128 (B), 62 of them, sum 124 + 3968 = 4092 */
  assert_int_equal(g->stride_min, 4);
  assert_int_equal(g->stride_max, 128);
  assert_int_equal(g->stride_count, 62);
  assert_true(g->stride_sum == 4092.0);
  assert_int_equal(g->uncoalesced_requests, 1);
  assert_int_equal(g->uncoalesced_thread_accesses, 32);
  assert_int_equal(g->verdict, CC_VERDICT_UNCOALESCED);
  /* lane strides 4 and 128: mixed; every lane seen */
  assert_true(g->lane_stride == CC_LANE_STRIDE_MIXED);
  assert_int_equal(g->lanes_seen, 0xffffffffu);
  /* footprint: A's 32 addresses 0x1000..0x107c and B's 32 from 0x1000 by 128; only
   * 0x1000 is in both: 63 distinct. allStr: B's addresses above 0x107c are 128 apart
   * (0x1080 - 0x107c = 4 is the gap below 0x1080): the largest gap is 128 */
  assert_int_equal(cc_analysis_fp_count(g->footprint), 63);
  assert_int_equal(g->all_stride, 128);
  /* shared. A: words 0..31 in banks 0..31: 1 wavefront, no conflict. B: 128 bytes apart,
   * all in bank 0, 32 distinct words: 32-way, 32 wavefronts (ideal 1). Merged: 2
   * requests, 33 wavefronts, ideal 2, worst 32 ways, 1 conflicting request */
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->wavefronts, 33);
  assert_int_equal(s->ideal_wavefronts, 2);
  assert_int_equal(s->ways_max, 32);
  assert_int_equal(s->conflict_requests, 1);
  assert_int_equal(s->sectors, 0);
  /* kernel totals: global 36 sectors, ideal 8, excess 28; shared 33 wavefronts */
  assert_int_equal(an->kernels[0].totals.sectors, 36);
  assert_int_equal(an->kernels[0].totals.excess_sectors, 28);
  assert_int_equal(an->kernels[0].totals.wavefronts, 33);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void test_merge_a_then_b(void **state)
{
  (void)state;
  run_split(0);
}

static void test_merge_b_then_a(void **state)
{
  (void)state;
  run_split(1);
}

/* A partial that saw no records leaves the figures as they are; merge 0 (a failed run)
 * adds nothing; a record of a slot the kernel lacks is refused (CC_ERR_INPUT). */
static void test_empty_discarded_and_bad(void **state)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_analysis *an;
  struct cc_access_sink sink;
  struct cc_access_partials parts;
  struct cc_warp_access ga = record(0, BASE, 4, 0), bad = record(0, BASE, 4, 0);
  void *p1, *p2, *p3;
  (void)state;
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  an = cc_analysis_new(m);
  sink = cc_analysis_sink(an);
  parts = cc_analysis_partials(an);
  assert_null(parts.open(parts.ctx)); /* no kernel open */
  assert_int_equal(sink.begin_kernel(sink.ctx, &kernel, &err), CC_OK);
  p1 = parts.open(parts.ctx);
  p2 = parts.open(parts.ctx);
  p3 = parts.open(parts.ctx);
  assert_int_equal(parts.access(p1, &ga, &err), CC_OK);
  assert_int_equal(parts.access(p2, &ga, &err), CC_OK);
  bad.insn_slot = 2;
  assert_int_equal(parts.access(p2, &bad, &err), CC_ERR_INPUT);
  assert_int_equal(parts.close(parts.ctx, p1, 1, &err), CC_OK);
  assert_int_equal(parts.close(parts.ctx, p2, 0, &err), CC_OK);
  assert_int_equal(parts.close(parts.ctx, p3, 1, &err), CC_OK);
  assert_int_equal(sink.end_kernel(sink.ctx, &err), CC_OK);
  /* only p1's record: 1 execution, 4 sectors, 31 strides of 4 */
  const struct cc_insn_stats *g = by_id(&an->kernels[0], 7), *s = by_id(&an->kernels[0], 9);
  assert_int_equal(g->executions, 1);
  assert_int_equal(g->sectors, 4);
  assert_int_equal(g->stride_min, 4);
  assert_int_equal(g->stride_count, 31);
  assert_int_equal(s->executions, 0);
  assert_int_equal(s->stride_count, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* ---- counted: the records the cache model counts towards its switch (access.h) ---- */

static const struct cc_insn_info count_insns[] = {
  { .id = 1, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "ld.global.f32 %f1, [%rd4];", .file = "k.cu", .line = 3 },
  { .id = 2, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4,
    .text = "ld.shared.f32 %f2, [%r5];", .file = "k.cu", .line = 4 },
  { .id = 3, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_LOCAL, .size_bytes = 4,
    .text = "ld.local.u32 %r1, [%rd1];", .file = "k.cu", .line = 5 },
  { .id = 4, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_LOCAL, .size_bytes = 8,
    .text = "ld.local.v2.u32 {%r1, %r2}, [%rd1];", .file = "k.cu", .line = 6 },
  { .id = 5, .kind = CC_ACCESS_STORE, .space = CC_SPACE_LOCAL, .size_bytes = 16,
    .text = "st.local.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};", .file = "k.cu", .line = 7 },
};

static const struct cc_kernel_info count_kernel = {
  .name = "k", .mangled = "_Z1kv", .grid = { 2, 1, 1 }, .block = { 32, 1, 1 },
  .n_insns = 5, .insns = count_insns };

/* A record of instruction slot of kernel count_kernel: its space, kind and size, 32 lanes
 * at base + size x lane. */
static struct cc_warp_access count_record(uint32_t slot, uint64_t base)
{
  struct cc_warp_access a = record(0, base, count_insns[slot].size_bytes, 0);
  a.insn_slot = slot;
  a.kind = count_insns[slot].kind;
  a.space = count_insns[slot].space;
  a.size_bytes = count_insns[slot].size_bytes;
  return a;
}

/* What a worker's partial counts for the model (counted, before any switch: every record
 * goes on whole) against the model's own count of the records it got (its kernel's
 * records), and against the hand count: 3 global loads, 1 each; 2 shared loads, none
 * (the model counts shared records apart); a local load of 4 bytes, 1; 2 of 8 bytes, 2
 * each (a 32-bit word each, in the interleaved layout); a local store of 16 bytes, 4:
 * 3 + 1 + 4 + 4 = 12. counted restarts after each call. */
static void test_counted_records(void **state)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_analysis *an = open_kernel(&m, 1, &count_kernel);
  struct cc_access_sink sink = cc_analysis_sink(an);
  struct cc_access_partials parts = cc_analysis_partials(an);
  const uint32_t slots[] = { 0, 0, 0, 1, 1, 2, 3, 3, 4 };
  void *p;
  (void)state;
  assert_non_null(p = parts.open(parts.ctx));
  for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
    struct cc_warp_access a = count_record(slots[i], BASE + 0x1000 * i);
    feed(an, &parts, p, &a);
  }
  assert_int_equal(parts.counted(p), 12);
  assert_int_equal(parts.counted(p), 0);
  assert_int_equal(parts.close(parts.ctx, p, 1, &err), CC_OK);
  assert_int_equal(sink.end_kernel(sink.ctx, &err), CC_OK);
  assert_int_equal(an->kernels[0].cache.records, 12);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* recut (access.h): records a worker passed on whole before the model's switch was known
 * (CTA 1's: 4 columns of 32 lines, 4104 bytes apart, and 8 rows of one line, 4 KiB apart,
 * global loads; a local load), taken again once the producer's word placed CTA 1 after
 * the switch, give what a partial that knew it gives (to_ordered): the same records, cut
 * or counted away, the local one whole; a CTA 0 record stays the same
 * (CC_ACCESS_RECUT_SAME), as does the question (a NULL record) before the producer's word,
 * answered 0 after it; counted then holds only the records still whole (the local
 * load, 1). The model samples 1 set class in 4 after 8 records: the columns touch
 * sampled lines (cut), the rows mostly not (counted away); both kinds must occur. */
static void test_recut_after_switch(void **state)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_cache_device d;
  int on = 0;
  struct cc_analysis *an;
  struct cc_access_sink sink;
  struct cc_access_partials parts;
  struct cc_warp_access recs[13], early = count_record(0, BASE);
  const struct cc_warp_access *out_p[CC_ACCESS_ORDERED_MAX], *out_q[CC_ACCESS_ORDERED_MAX];
  void *p, *q;
  uint32_t n = 0, cuts = 0, dropped = 0;
  (void)state;
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  an = cc_analysis_new(m);
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sms=2,l1=16K,l2=64K,sample=4,sample-after=8",
                                       NULL, &d, &on, &err), CC_OK);
  cc_analysis_set_cache(an, cc_cache_new(&d));
  sink = cc_analysis_sink(an);
  assert_int_equal(sink.begin_kernel(sink.ctx, &count_kernel, &err), CC_OK);
  parts = cc_analysis_partials(an);
  assert_non_null(parts.recut);
  assert_non_null(p = parts.open(parts.ctx));
  assert_non_null(q = parts.open(parts.ctx));
  for (uint32_t i = 0; i < 4; i++)
    recs[n++] = record(0, BASE + 0x100000 * i, 4104, 0);
  for (uint32_t i = 0; i < 8; i++)
    recs[n++] = count_record(0, BASE + 0x200000 + 4096 * i);
  recs[n++] = count_record(2, 0x1000);
  for (uint32_t i = 0; i < n; i++)
    recs[i].cta[0] = 1;
  /* before the switch is known: every record whole, each counted (12 global + 1 local) */
  for (uint32_t i = 0; i < n; i++) {
    assert_int_equal(parts.access(p, &recs[i], &err), CC_OK);
    assert_int_equal(parts.to_ordered(p, &recs[i], out_p), 1);
    assert_ptr_equal(out_p[0], &recs[i]);
  }
  /* CTA 0's record: whole, and still so once CTA 1 is placed after the switch */
  assert_int_equal(parts.access(p, &early, &err), CC_OK);
  assert_int_equal(parts.to_ordered(p, &early, out_p), 1);
  assert_int_equal(parts.recut(p, NULL, out_p), CC_ACCESS_RECUT_SAME); /* nothing known */
  parts.ahead(parts.ctx, 1, 100); /* 100 records before CTA 1: past the switch (8) */
  assert_int_equal(parts.recut(p, NULL, out_p), 0);
  assert_int_equal(parts.recut(p, &early, out_p), CC_ACCESS_RECUT_SAME);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t np, nq, k;
    assert_int_equal(parts.access(q, &recs[i], &err), CC_OK);
    nq = parts.to_ordered(q, &recs[i], out_q);
    np = parts.recut(p, &recs[i], out_p);
    if (recs[i].space == CC_SPACE_LOCAL) { /* local: whole either way */
      assert_int_equal(np, CC_ACCESS_RECUT_SAME);
      assert_int_equal(nq, 1);
      continue;
    }
    assert_int_equal(np, nq);
    for (k = 0; k < np; k++)
      assert_memory_equal(out_p[k], out_q[k], sizeof *out_p[k]);
    for (k = 0; k < nq; k++)
      assert_ptr_not_equal(out_q[k], &recs[i]); /* never whole here */
    cuts += nq > 0;
    dropped += nq == 0;
  }
  assert_int_equal(parts.release(p, out_p), parts.release(q, out_q));
  assert_true(cuts > 0 && dropped > 0);
  /* counted: 14 whole at first (13 + CTA 0's), less the 12 global ones taken again */
  assert_int_equal(parts.counted(p), 2);
  assert_int_equal(parts.counted(q), 1);
  assert_int_equal(parts.close(parts.ctx, p, 0, &err), CC_OK);
  assert_int_equal(parts.close(parts.ctx, q, 0, &err), CC_OK);
  cc_analysis_free(an);
  cc_model_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_merge_a_then_b),
    cmocka_unit_test(test_merge_b_then_a),
    cmocka_unit_test(test_empty_discarded_and_bad),
    cmocka_unit_test(test_combine_tree),
    cmocka_unit_test(test_combine_tree_cached),
    cmocka_unit_test(test_counted_records),
    cmocka_unit_test(test_recut_after_switch),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
