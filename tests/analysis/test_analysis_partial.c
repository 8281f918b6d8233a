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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_merge_a_then_b),
    cmocka_unit_test(test_merge_b_then_a),
    cmocka_unit_test(test_empty_discarded_and_bad),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
