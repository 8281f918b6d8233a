/* Local memory in the analysis: Algorithm 1's strides, the lane stride and the footprint
 * (allStr) are computed on the addresses of the hardware's interleaved layout, not on the
 * per-thread offsets the records carry (src/model/model.h cc_model_local_layout). Local
 * memory is interleaved in 32-bit words whatever the access size (CUDA C Programming
 * Guide, "Local Memory"; measured on the H200 with Nsight Compute, local_uniform<double>
 * and local_probe8 of tests/gpu/apps/gpuapps.cu):
 *
 *   physical(off, lane) = (off / 4) * 128 + lane * 4 + off % 4,
 *
 * the address of the access's first byte (its first word). The analysis strides and
 * footprints use these first-word addresses with the record's size (an 8-byte access is
 * coalesced when its strides are <= 8). The model (cc_model_global) costs an access wider
 * than 4 bytes as one 4-byte access per word, word j 128 j bytes after word 0 in every
 * lane, and sums requests, sectors and ideal sectors over the words: an 8-byte LDL/STL
 * is 2 requests.
 *
 * Every expected figure is derived by hand in the comment above its check (sm_90 model,
 * W = 32, sectors of 32 bytes, ideal sectors = ceil(unique bytes / 32) per word). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"

static struct cc_model *model(void)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  return m;
}

/* Runs one kernel of one local instruction `insn` whose records are made by fill(rec, a)
 * for rec = 0 .. n_records - 1 (all 32 lanes active, warp 0 of CTA 0). */
static struct cc_analysis *run_local(const struct cc_model *m, const struct cc_insn_info *insn,
                                     uint32_t n_records,
                                     void (*fill)(uint32_t rec, struct cc_warp_access *a))
{
  struct cc_kernel_info k = { .name = "loc", .mangled = "loc", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1, .insns = insn };
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t r = 0; r < n_records; r++) {
    memset(&a, 0, sizeof a);
    a.size_bytes = insn->size_bytes, a.active = 0xffffffffu, a.space = CC_SPACE_LOCAL;
    a.kind = insn->kind;
    fill(r, &a);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  return an;
}

static int has_kind(const struct cc_insn_stats *s, enum cc_suggestion_kind kind)
{
  for (size_t i = 0; i < s->n_suggestions; i++)
    if (s->suggestions[i].kind == kind)
      return 1;
  return 0;
}

static void fill_uniform4(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 28;
}

/* A warp-uniform 4-byte local store: all 32 lanes at offset 28 (word 7). Physical:
 * 28 / 4 * 128 + 4 l + 0 = 896 + 4 l, l = 0..31: bytes 896..1023, 128-byte aligned
 * (896 = 7 x 128) -> 4 sectors, ideal 128 / 32 = 4. Sorted neighbours 4 bytes apart: 31
 * strides, all 4 = size -> min = max = avg = 4, coalesced; no group uncoalesced. Lane
 * stride 4. Footprint 896, 900, ..., 1020: allStr 4 <= 4. Coalesced: no advice (on the
 * raw offsets the strides would be 0 and allStr 0). */
static void test_uniform4(void **state)
{
  static const struct cc_insn_info insn = { .id = 3, .kind = CC_ACCESS_STORE,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 4,
                                            .text = "st.local.f32 [%rd1+28], %f1;" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_uniform4);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->sectors, 4);
  assert_int_equal(s->ideal_sectors, 4);
  assert_int_equal(s->stride_min, 4);
  assert_int_equal(s->stride_max, 4);
  assert_int_equal(s->stride_count, 31);
  assert_true(cc_analysis_stride_avg(s) == 4.0);
  assert_int_equal(s->lane_stride, 4);
  assert_int_equal(s->all_stride, 4);
  assert_true(s->all_coalescable);
  assert_int_equal(s->line_all_stride, 4);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(s->uncoalesced_requests, 0);
  assert_int_equal(s->uncoalesced_thread_accesses, 0);
  assert_int_equal(s->n_suggestions, 0);
  assert_int_equal(an->kernels[0].totals.uncoalesced_thread_accesses, 0);
  assert_int_equal(an->kernels[0].totals.thread_accesses, 32);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void fill_uniform1(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 5;
}

/* A warp-uniform 1-byte local store (a char variable) at offset 5: word 1, byte 1 of every
 * lane -> 128 + 4 l + 1, l = 0..31: one byte in each of 32 words, bytes 129..253 -> 4
 * sectors (128..255), ideal ceil(32 / 32) = 1. Strides all 4 > size 1, but local strides
 * are between interleaved words: the bound is max(size, 4) = 4 (access.h,
 * cc_access_coalesced_stride), so coalesced, no advice — a warp-uniform index is the best
 * local memory can do (the old bound, size, called it uncoalesced and advised a
 * warp-uniform index: the index it already had). */
static void test_uniform1(void **state)
{
  static const struct cc_insn_info insn = { .id = 5, .kind = CC_ACCESS_STORE,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 1,
                                            .text = "st.local.u8 [%rd1+5], %rs1;" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_uniform1);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->requests, 1);
  assert_int_equal(s->sectors, 4);
  assert_int_equal(s->ideal_sectors, 1);
  assert_int_equal(s->stride_min, 4);
  assert_int_equal(s->stride_max, 4);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(s->uncoalesced_thread_accesses, 0);
  assert_true(s->all_coalescable);
  assert_int_equal(s->n_suggestions, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void fill_uniform8(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 8;
}

/* A warp-uniform 8-byte local load at offset 8 (element 1 = words 2 and 3 of every lane).
 * First words: 8 / 4 = 2 -> 2 x 128 + 4 l = 256 + 4 l, l = 0..31 (bytes 256..383); second
 * words 128 further: 384 + 4 l (bytes 384..511).
 * Model, word by word: word 0 = 128 aligned bytes (256 = 2 x 128) -> 1 request, 4
 * sectors, ideal 128 / 32 = 4; word 1 the same at 384 = 3 x 128. Sums: 2 requests, 8
 * sectors, ideal 8, histogram bucket 8 (one record of 8 sectors). Bytes requested
 * 32 x 8 = 256, transferred 8 x 32 = 256.
 * Algorithm 1 on the first words 256 + 4 l: sorted neighbours 4 apart, 31 strides, min =
 * max = 4 <= size 8: coalesced, no uncoalesced group. Lane stride 4. Footprint 256, 260,
 * ..., 380: allStr 4 <= 8, coalescable. Coalesced: no advice. (The 8-byte interleave of
 * the old model gave strides 8, allStr 8 and 1 request of 8 sectors.) */
static void test_uniform8(void **state)
{
  static const struct cc_insn_info insn = { .id = 4, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 8,
                                            .text = "ld.local.f64 %fd1, [%rd1+8];" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_uniform8);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->sectors, 8);
  assert_int_equal(s->ideal_sectors, 8);
  assert_int_equal(s->sector_hist[8], 1);
  assert_int_equal(s->bytes_requested, 256);
  assert_int_equal(s->bytes_transferred, 256);
  assert_int_equal(s->stride_min, 4);
  assert_int_equal(s->stride_max, 4);
  assert_int_equal(s->stride_count, 31);
  assert_true(s->stride_sum == 124.0);
  assert_int_equal(s->lane_stride, 4);
  assert_int_equal(s->all_stride, 4);
  assert_true(s->all_coalescable);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(s->uncoalesced_requests, 0);
  assert_int_equal(s->uncoalesced_thread_accesses, 0);
  assert_int_equal(s->n_suggestions, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void fill_probe8(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 8u * (7u + ((l >> 2) & 1u));
}

/* The interleave probe (tests/gpu/apps/gpuapps.cu local_probe8, load at k = 1, s = 7):
 * lane l reads double a[7 + ((l >> 2) & 1)]: lanes 0-3, 8-11, 16-19, 24-27 (set A)
 * element 7 = offset 56 = words 14, 15; lanes 4-7, 12-15, 20-23, 28-31 (set B) element 8
 * = offset 64 = words 16, 17. Only the 4-byte-word rule passes this test.
 * First words: A at 14 x 128 + 4 l = 1792 + 4 l, B at 16 x 128 + 4 l = 2048 + 4 l.
 * Model, word 0: sector of A lane l = (1792 + 4 l) / 32 = 56 + l / 8 -> lanes 0-3: 56,
 * 8-11: 57, 16-19: 58, 24-27: 59; B: 2048 / 32 = 64 + l / 8 -> 64, 65, 66, 67: 8
 * sectors, 1 request, 128 distinct bytes -> ideal 4. Word 1 (+128 bytes = +4 sectors):
 * 60..63 and 68..71: 8 more, 1 request, ideal 4. Sums: 2 requests, 16 sectors, ideal 8,
 * histogram bucket 16; bytes requested 32 x 8 = 256, transferred 16 x 32 = 512.
 * (8-byte interleave, the old model: A at 7 x 256 + 8 l = 1792 + 8 l, sector 56 + l / 4
 * = 56, 58, 60, 62; B at 2048 + 8 l -> 65, 67, 69, 71: 8 sectors, 1 request.)
 * Algorithm 1 on the first words, one group of 32: A = 1792 + {0..12, 32..44, 64..76,
 * 96..108} step 4, B = 2048 + {16..28, 48..60, 80..92, 112..124} step 4; all of A below
 * all of B (1900 < 2064). Sorted neighbours: inside a run of 4 lanes 4 (3 x 8 runs =
 * 24); run to run inside A or B 32 - 12 = 20 (3 + 3 = 6); A's last 1900 -> B's first
 * 2064: 164 (1). 31 strides, min 4, max 164, sum 24 x 4 + 6 x 20 + 164 = 380 (= the span
 * 2172 - 1792). 164 > 8: uncoalesced, 32 lanes in an uncoalesced group, 1 uncoalesced
 * request. Lane stride: 0 -> 1 is +4, 3 -> 4 is 2064 - 1804 = 260: mixed. Footprint = the
 * 32 addresses: allStr 164 > 8. Advice: local-array only, "read", "up to 164 bytes". */
static void test_probe8(void **state)
{
  static const struct cc_insn_info insn = { .id = 7, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 8,
                                            .text = "ld.local.f64 %fd2, [%rd5];" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_probe8);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->sectors, 16);
  assert_int_equal(s->ideal_sectors, 8);
  assert_int_equal(s->sector_hist[16], 1);
  assert_int_equal(s->bytes_requested, 256);
  assert_int_equal(s->bytes_transferred, 512);
  assert_int_equal(s->stride_min, 4);
  assert_int_equal(s->stride_max, 164);
  assert_int_equal(s->stride_count, 31);
  assert_true(s->stride_sum == 380.0);
  assert_int_equal(s->lane_stride, CC_LANE_STRIDE_MIXED);
  assert_int_equal(s->all_stride, 164);
  assert_false(s->all_coalescable);
  assert_int_equal(s->verdict, CC_VERDICT_UNCOALESCED);
  assert_int_equal(s->uncoalesced_requests, 1);
  assert_int_equal(s->uncoalesced_thread_accesses, 32);
  assert_int_equal(s->n_suggestions, 1);
  assert_int_equal(s->suggestions[0].kind, CC_SUGGEST_LOCAL_ARRAY);
  assert_non_null(strstr(s->suggestions[0].text, "read a per-thread (local) array"));
  assert_non_null(strstr(s->suggestions[0].text, "up to 164 bytes apart"));
  cc_analysis_free(an);
  cc_model_free(m);
}

static void fill_divergent(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 4u * ((5u * l) & 63u);
}

/* A lane-divergent 4-byte local store a[(5 l) & 63] (examples/local_array
 * local_divergent at k = 0): lane l uses word w_l = 5 l mod 64, physical 128 w_l + 4 l.
 * l = 0..12 -> w = 0, 5, ..., 60; l = 13..25 -> 1, 6, ..., 61; l = 26..31 -> 2, 7, ...,
 * 27: 32 distinct words = 32 rows -> 32 sectors, ideal 4. Sorted by word (4 l < 128):
 * triples (5j, 5j+1, 5j+2) of lanes (j, 13+j, 26+j) for j = 0..5, then pairs (5j, 5j+1)
 * of lanes (j, 13+j) for j = 6..12. Neighbour strides (128 dw + 4 dl):
 *   inside a triple or pair: dw 1, dl 13 -> 180 (6 x 2 + 7 = 19 of them);
 *   triple end 5j+2 (lane 26+j) -> 5j+5 (lane j+1), j = 0..5: dw 3, dl -25 -> 284 (6);
 *   pair end 5j+1 (lane 13+j) -> 5j+5 (lane j+1), j = 6..11: dw 4, dl -12 -> 464 (6).
 * 31 strides: min 180, max 464, sum 19 x 180 + 6 x 284 + 6 x 464 = 7908 (= the span
 * 128 x 61 + 4 x 25 - 0). Max 464 > 4: uncoalesced, all 32 lanes in an uncoalesced
 * group. Footprint = the 32 addresses: allStr 464. Lane stride: lane 0 -> 1 is
 * 644 - 0 = +644, lane 12 -> 13 is (128 + 52) - (7680 + 48) < 0: mixed. Advice: the
 * local one only (no thread-geometry, no shared-memory staging, no "none"), naming the
 * 464 bytes. */
static void test_divergent(void **state)
{
  static const struct cc_insn_info insn = { .id = 5, .kind = CC_ACCESS_STORE,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 4,
                                            .text = "st.local.f32 [%rd3], %f2;" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_divergent);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->sectors, 32);
  assert_int_equal(s->ideal_sectors, 4);
  assert_int_equal(s->stride_min, 180);
  assert_int_equal(s->stride_max, 464);
  assert_int_equal(s->stride_count, 31);
  assert_true(s->stride_sum == 7908.0);
  assert_int_equal(s->lane_stride, CC_LANE_STRIDE_MIXED);
  assert_int_equal(s->all_stride, 464);
  assert_false(s->all_coalescable);
  assert_int_equal(s->verdict, CC_VERDICT_UNCOALESCED);
  assert_int_equal(s->uncoalesced_requests, 1);
  assert_int_equal(s->uncoalesced_thread_accesses, 32);
  assert_int_equal(s->n_suggestions, 1);
  assert_int_equal(s->suggestions[0].kind, CC_SUGGEST_LOCAL_ARRAY);
  assert_non_null(strstr(s->suggestions[0].text, "write a per-thread (local) array"));
  assert_non_null(strstr(s->suggestions[0].text, "up to 464 bytes apart"));
  assert_non_null(strstr(s->suggestions[0].text, "only a warp-uniform index is coalesced"));
  assert_false(has_kind(s, CC_SUGGEST_THREAD_GEOMETRY));
  assert_false(has_kind(s, CC_SUGGEST_NONE));
  assert_int_equal(an->kernels[0].totals.uncoalesced_thread_accesses, 32);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void fill_lane_times_4(uint32_t rec, struct cc_warp_access *a)
{
  (void)rec;
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = 4u * l;
}

/* Lane l reads word l of its own array (a[lane]): physical 128 l + 4 l = 132 l, a
 * uniform lane stride of 132 bytes, the pattern that on global memory reads as a field
 * of 132-byte structures or a thread-geometry case. Local: 32 rows -> 32 sectors, strides
 * all 132 > 4: uncoalesced, allStr 132; advice: local only (no layout, no thread-geometry,
 * no shared-memory staging although it is a load). Read: "read a per-thread". */
static void test_lane_indexed_load(void **state)
{
  static const struct cc_insn_info insn = { .id = 6, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 4,
                                            .text = "ld.local.u32 %r1, [%rd3];" };
  struct cc_model *m = model();
  struct cc_analysis *an = run_local(m, &insn, 1, fill_lane_times_4);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  (void)state;
  assert_int_equal(s->sectors, 32);
  assert_int_equal(s->stride_min, 132);
  assert_int_equal(s->stride_max, 132);
  assert_int_equal(s->lane_stride, 132);
  assert_int_equal(s->all_stride, 132);
  assert_int_equal(s->verdict, CC_VERDICT_UNCOALESCED);
  assert_int_equal(s->n_suggestions, 1);
  assert_int_equal(s->suggestions[0].kind, CC_SUGGEST_LOCAL_ARRAY);
  assert_non_null(strstr(s->suggestions[0].text, "read a per-thread (local) array"));
  assert_non_null(strstr(s->suggestions[0].text, "up to 132 bytes apart"));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Two shards of the uniform store (offset 28, one record each) merged: the footprints of
 * physical addresses are the same 896 + 4 l, so allStr stays 4 and the merged verdict is
 * coalesced with no advice; executions 2, strides 62. */
static void test_merge_keeps_physical(void **state)
{
  static const struct cc_insn_info insn = { .id = 3, .kind = CC_ACCESS_STORE,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 4,
                                            .text = "st.local.f32 [%rd1+28], %f1;" };
  struct cc_model *m = model();
  struct cc_analysis *a = run_local(m, &insn, 1, fill_uniform4);
  struct cc_analysis *b = run_local(m, &insn, 1, fill_uniform4);
  struct cc_err err = { 0 };
  const struct cc_insn_stats *s;
  (void)state;
  assert_int_equal(cc_analysis_merge(a, b, &err), CC_OK);
  s = &a->kernels[0].insns[0];
  assert_int_equal(s->executions, 2);
  assert_int_equal(s->stride_count, 62);
  assert_int_equal(s->stride_max, 4);
  assert_int_equal(s->all_stride, 4);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(s->n_suggestions, 0);
  cc_analysis_free(a);
  cc_analysis_free(b);
  cc_model_free(m);
}

/* Figures measured by the GPU backend for a local load (strides already of the
 * interleaved layout, src/gpu/patch.cu record()): the divergent store's 32 executions x
 * 31 strides, min 180, max 464 > 4 -> uncoalesced; advice local-array only (the imported
 * kernel has no footprint, so the global rule would have said thread-geometry); its
 * requests are full warps whose every stride exceeds 4, so all 32 requests and 1024
 * thread accesses are uncoalesced. A uniform one (strides all 4) -> coalesced, no advice. */
static void test_imported(void **state)
{
  static const struct cc_insn_info insns[] = {
    { .id = 1, .kind = CC_ACCESS_STORE, .space = CC_SPACE_LOCAL, .size_bytes = 4,
      .text = "STL [R1], R2", .file = "l.cu", .line = 9 },
    { .id = 2, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_LOCAL, .size_bytes = 4,
      .text = "LDL R3, [R1+0x1c]", .file = "l.cu", .line = 12 },
  };
  const struct cc_kernel_info k = { .name = "g", .mangled = "g", .grid = { 1, 1, 1 },
                                    .block = { 32, 1, 1 }, .n_insns = 2, .insns = insns };
  const struct cc_insn_counts c[] = {
    { .executions = 32, .thread_accesses = 1024, .bytes_requested = 4096, .sectors = 1024,
      .ideal_sectors = 128, .stride_count = 992, .stride_min = 180, .stride_max = 464,
      .stride_sum = 32 * 7908.0 },
    { .executions = 1, .thread_accesses = 32, .bytes_requested = 128, .sectors = 4,
      .ideal_sectors = 4, .stride_count = 31, .stride_min = 4, .stride_max = 4,
      .stride_sum = 124.0 },
  };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_err err = { 0 };
  const struct cc_kernel_stats *ks;
  const struct cc_insn_stats *st, *ld;
  (void)state;
  assert_int_equal(cc_analysis_import_kernel(an, &k, c, &err), CC_OK);
  ks = &an->kernels[0];
  st = &ks->insns[ks->by_slot[0]];
  ld = &ks->insns[ks->by_slot[1]];
  assert_int_equal(st->verdict, CC_VERDICT_UNCOALESCED);
  /* derived: full warps (1024 = 32 x 32 lanes), every stride (>= 180) above 4 */
  assert_int_equal(st->uncoalesced_thread_accesses, 1024);
  assert_int_equal(st->uncoalesced_requests, 32);
  assert_int_equal(st->unknown, 0);
  assert_int_equal(st->unique_bytes, 4096); /* local: lanes never share a byte */
  assert_int_equal(st->sector_hist[32], 32); /* 1024 sectors = 32 x 32: all at the most */
  assert_int_equal(st->n_suggestions, 1);
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_LOCAL_ARRAY);
  assert_false(has_kind(st, CC_SUGGEST_THREAD_GEOMETRY));
  assert_int_equal(ld->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(ld->n_suggestions, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void test_name(void **state)
{
  (void)state;
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_LOCAL_ARRAY), "local-array");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_uniform4),          cmocka_unit_test(test_uniform8),
    cmocka_unit_test(test_probe8),            cmocka_unit_test(test_uniform1),
    cmocka_unit_test(test_divergent),         cmocka_unit_test(test_lane_indexed_load),
    cmocka_unit_test(test_merge_keeps_physical), cmocka_unit_test(test_imported),
    cmocka_unit_test(test_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
