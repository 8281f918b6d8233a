/* The record figures as bytes (analysis.h, cc_analysis_pack / cc_analysis_unpack_merge):
 * what an MPI rank sends rank 0. "Rank 1" analyses the 128-byte stride records, "rank 0"
 * the unit-stride ones and merges rank 1's message; every expected figure is derived in
 * the comment above its check (sm_90: 32-byte sectors, Algorithm 1 with W = 32, 32 banks
 * of 4 bytes), and a message cut short or corrupt is refused with CC_ERR_INPUT, nothing
 * merged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
static const struct cc_kernel_info other = { .name = "j", .mangled = "_Z1jv",
                                             .grid = { 2, 1, 1 }, .block = { 32, 1, 1 },
                                             .n_insns = 2, .insns = insns };

/* A record of all 32 lanes of instruction slot at base + stride x lane, instance dyn. */
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

struct rank {
  struct cc_model *m;
  struct cc_analysis *an;
  struct cc_access_sink sink;
};

/* An analysis with kernel ki open, fed records recs[0..n). */
static void rank_open(struct rank *r, const struct cc_kernel_info *ki,
                      const struct cc_warp_access *recs, size_t n)
{
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get("sm_90", NULL, &r->m, &err), CC_OK);
  r->an = cc_analysis_new(r->m);
  r->sink = cc_analysis_sink(r->an);
  assert_int_equal(r->sink.begin_kernel(r->sink.ctx, ki, &err), CC_OK);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(r->sink.access(r->sink.ctx, &recs[i], &err), CC_OK);
}

static void rank_free(struct rank *r)
{
  cc_analysis_free(r->an);
  cc_model_free(r->m);
}

/* Rank 1's message: the 128-byte stride records of both instructions (dyn 2 for the
 * global one). */
static void rank1_message(const struct cc_kernel_info *ki, uint8_t **buf, size_t *len)
{
  struct rank r1;
  struct cc_warp_access recs[] = { record(0, BASE, 128, 2), record(1, 0, 128, 0) };
  const struct cc_analysis *ans[1];
  rank_open(&r1, ki, recs, 2);
  ans[0] = r1.an;
  cc_analysis_pack(ans, 1, buf, len);
  rank_free(&r1);
}

static void rank0_open(struct rank *r0)
{
  struct cc_warp_access recs[] = { record(0, BASE, 4, 0), record(1, 0, 4, 0) };
  rank_open(r0, &kernel, recs, 2);
}

static void test_round_trip(void **state)
{
  struct rank r0;
  struct cc_err err = { 0 };
  uint8_t *msg;
  size_t len;
  (void)state;
  rank1_message(&kernel, &msg, &len);
  /* the fixed part of each instruction plus its footprint: 32 addresses 128 bytes apart
   * are 32 units of granularity 128, one chunk of 512 units: 32 + 72 bytes; the header
   * 12 + "sm_90" (4 + 5) + "_Z1kv" (4 + 5) + 8 */
  assert_int_equal(len, 12 + 9 + 9 + 8 + 2 * (cc_analysis_packed_insn_bytes() + 32 + 72));
  rank0_open(&r0);
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, msg, len, &err), CC_OK);
  assert_int_equal(r0.sink.end_kernel(r0.sink.ctx, &err), CC_OK);
  const struct cc_insn_stats *g = by_id(&r0.an->kernels[0], 7);
  const struct cc_insn_stats *s = by_id(&r0.an->kernels[0], 9);
  /* global. rank 0: 32 lanes x 4 bytes from 0x1000: 4 sectors, 31 strides of 4 (sum
   * 124). rank 1: lanes 128 bytes apart: 32 sectors, 31 strides of 128 (sum 3968),
   * uncoalesced with its 32 lanes. Merged: 2 executions, 64 lanes, 256 bytes, 36
   * sectors, ideal 4 + 4 = 8, histogram one request of 4 and one of 32 */
  assert_int_equal(g->executions, 2);
  assert_int_equal(g->thread_accesses, 64);
  assert_int_equal(g->bytes_requested, 256);
  assert_int_equal(g->requests, 2);
  assert_int_equal(g->sectors, 36);
  assert_int_equal(g->ideal_sectors, 8);
  assert_int_equal(g->unique_bytes, 256);
  assert_int_equal(g->sector_hist[4], 1);
  assert_int_equal(g->sector_hist[32], 1);
  /* dyn 0 and 2: the most executions of one warp is 2 + 1 */
  assert_int_equal(g->max_dyn, 3);
  assert_int_equal(g->stride_min, 4);
  assert_int_equal(g->stride_max, 128);
  assert_int_equal(g->stride_count, 62);
  assert_true(g->stride_sum == 4092.0);
  assert_int_equal(g->uncoalesced_requests, 1);
  assert_int_equal(g->uncoalesced_thread_accesses, 32);
  assert_int_equal(g->verdict, CC_VERDICT_UNCOALESCED);
  assert_true(g->lane_stride == CC_LANE_STRIDE_MIXED);
  assert_int_equal(g->lanes_seen, 0xffffffffu);
  /* footprint: 0x1000..0x107c by 4 and 0x1000.. by 128: 0x1000 in both, 63 distinct;
   * above 0x107c the addresses are 128 apart: allStr 128 */
  assert_int_equal(cc_analysis_fp_count(g->footprint), 63);
  assert_int_equal(g->all_stride, 128);
  /* shared: rank 0 one wavefront, rank 1 32-way (32 wavefronts, ideal 1) */
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->wavefronts, 33);
  assert_int_equal(s->ideal_wavefronts, 2);
  assert_int_equal(s->ways_max, 32);
  assert_int_equal(s->conflict_requests, 1);
  assert_int_equal(r0.an->kernels[0].totals.sectors, 36);
  free(msg);
  rank_free(&r0);
}

/* Rank 0's figures after a refused merge: its own record only (1 execution, 4 sectors,
 * 32 distinct addresses). */
static void assert_unchanged(struct rank *r0)
{
  const struct cc_kernel_stats *k = &r0->an->kernels[0];
  const struct cc_insn_stats *g = &k->insns[k->by_slot[0]];
  assert_int_equal(g->executions, 1);
  assert_int_equal(g->sectors, 4);
  assert_int_equal(cc_analysis_fp_count(g->footprint), 32);
}

/* Every cut of the message (0 .. len - 1 bytes) and one trailing byte: CC_ERR_INPUT. */
static void test_truncated(void **state)
{
  struct rank r0;
  struct cc_err err = { 0 };
  uint8_t *msg;
  size_t len;
  (void)state;
  rank1_message(&kernel, &msg, &len);
  rank0_open(&r0);
  for (size_t cut = 0; cut < len; cut++) {
    uint8_t *part = malloc(cut ? cut : 1); /* its own block: ASan sees a read past it */
    memcpy(part, msg, cut);
    assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, part, cut, &err), CC_ERR_INPUT);
    free(part);
  }
  msg = realloc(msg, len + 1);
  msg[len] = 0;
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, msg, len + 1, &err), CC_ERR_INPUT);
  assert_unchanged(&r0);
  free(msg);
  rank_free(&r0);
}

/* Offset of the first instruction's footprint in the message (after the header above). */
#define FP_AT (12 + 9 + 9 + 8 + cc_analysis_packed_insn_bytes())

/* Corrupt messages: another magic, another kernel, a footprint count that is not its
 * bits', a granularity of 0 with 32 addresses, a footprint without its first address,
 * the message of another kernel: CC_ERR_INPUT, nothing merged. Then every byte flipped in
 * turn: never a crash (CC_OK or CC_ERR_INPUT; a flipped count is a figure, not caught). */
static void test_corrupt(void **state)
{
  struct rank r0;
  struct cc_err err = { 0 };
  uint8_t *msg, *bad;
  size_t len, olen;
  uint64_t v;
  (void)state;
  rank1_message(&kernel, &msg, &len);
  bad = malloc(len);
  rank0_open(&r0);
  memcpy(bad, msg, len);
  bad[0] ^= 1; /* magic */
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, bad, len, &err), CC_ERR_INPUT);
  memcpy(bad, msg, len); /* footprint count + 1 (origin, granularity, count, chunks) */
  memcpy(&v, bad + FP_AT + 16, 8);
  v++;
  memcpy(bad + FP_AT + 16, &v, 8);
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, bad, len, &err), CC_ERR_INPUT);
  memcpy(bad, msg, len); /* granularity 0 */
  memset(bad + FP_AT + 8, 0, 8);
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, bad, len, &err), CC_ERR_INPUT);
  memcpy(bad, msg, len); /* unit 0 (the origin) cleared and unit 511 set instead: the
                            count stays right, the first address is missing */
  bad[FP_AT + 32 + 8] &= (uint8_t)~1u;
  bad[FP_AT + 32 + 8 + 63] |= 0x80u;
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, bad, len, &err), CC_ERR_INPUT);
  assert_unchanged(&r0);
  free(msg);
  rank1_message(&other, &msg, &olen); /* kernel _Z1jv's figures into _Z1kv */
  assert_int_equal(cc_analysis_unpack_merge(&r0.an, 1, msg, olen, &err), CC_ERR_INPUT);
  assert_unchanged(&r0);
  free(msg);
  rank1_message(&kernel, &msg, &len);
  for (size_t i = 0; i < len; i++) {
    int rc;
    memcpy(bad, msg, len);
    bad[i] ^= 0xffu;
    rc = cc_analysis_unpack_merge(&r0.an, 1, bad, len, &err);
    assert_true(rc == CC_OK || rc == CC_ERR_INPUT);
  }
  free(bad);
  free(msg);
  rank_free(&r0);
}

/* A footprint of two chunks (addresses 0x1000, 0x1004 and 0x1000 + 600 x 4: granularity
 * 4, the gcd of the differences; units 0, 1 and 600, in chunks of 512 units 0 and 1)
 * comes back whole (3 addresses, largest gap 599 x 4); with the second
 * chunk's key made the first's (the bits still add up to the count) it is refused. */
static void test_repeated_chunk(void **state)
{
  struct cc_footprint *fp = cc_analysis_fp_new(), *back = NULL;
  uint8_t *buf;
  size_t n, used = 0;
  (void)state;
  cc_analysis_fp_add(fp, BASE);
  cc_analysis_fp_add(fp, BASE + 4);
  cc_analysis_fp_add(fp, BASE + 600 * 4);
  n = cc_analysis_fp_packed_bytes(fp);
  assert_int_equal(n, 32 + 2 * 72);
  buf = malloc(n);
  cc_analysis_fp_pack(fp, buf);
  assert_int_equal(cc_analysis_fp_unpack(buf, n, &used, &back), 0);
  assert_int_equal(used, n);
  assert_int_equal(cc_analysis_fp_count(back), 3);
  assert_int_equal(cc_analysis_fp_max_gap(back), 599 * 4);
  cc_analysis_fp_free(back);
  memcpy(buf + 32 + 72, buf + 32, 8); /* chunk 1's key := chunk 0's */
  assert_int_equal(cc_analysis_fp_unpack(buf, n, &used, &back), -1);
  assert_null(back);
  free(buf);
  cc_analysis_fp_free(fp);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_truncated),
    cmocka_unit_test(test_corrupt),
    cmocka_unit_test(test_repeated_chunk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
