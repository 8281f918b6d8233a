/* The analysis on hand-built access streams. Every expected figure is derived in the
 * comment above its check (sector = 32 bytes; Algorithm 1 with W = 32 on sm_90). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* ---- the naive transpose: out[x * N + y] = in[y * N + x], blocks of 32 x 8 ---- */

#define IN_BASE 0x100000ull
#define OUT_BASE 0x900000ull

static const struct cc_insn_info transpose_insns[] = {
  { .id = 12, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "ld.global.f32 %f1, [%rd7];", .file = "transpose.cu", .line = 5, .column = 20 },
  { .id = 14, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "st.global.f32 [%rd9], %f1;", .file = "transpose.cu", .line = 5, .column = 18 },
};

static struct cc_kernel_info transpose_kernel(uint32_t n)
{
  return (struct cc_kernel_info){ .name = "transpose", .mangled = "_Z9transposePfPKfi",
                                  .grid = { n / 32, n / 8, 1 }, .block = { 32, 8, 1 },
                                  .n_insns = 2, .insns = transpose_insns };
}

/* Feeds the records of the CTAs with (bx + by) % parts == part (parts = 1: all). Warp w of
 * CTA (bx, by) holds threadIdx.y = w, threadIdx.x = lane: x = 32 bx + lane, y = 8 by + w. */
static void feed_transpose(struct cc_access_sink *sink, uint32_t n, uint32_t part,
                           uint32_t parts)
{
  struct cc_err err = { 0 };
  struct cc_kernel_info k = transpose_kernel(n);
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  assert_int_equal(sink->begin_kernel(sink->ctx, &k, &err), CC_OK);
  for (uint32_t by = 0; by < n / 8; by++)
    for (uint32_t bx = 0; bx < n / 32; bx++) {
      if ((bx + by) % parts != part)
        continue;
      for (uint32_t w = 0; w < 8; w++) {
        a.cta[0] = bx, a.cta[1] = by, a.warp = w;
        a.size_bytes = 4, a.active = 0xffffffffu, a.space = CC_SPACE_GLOBAL;
        a.insn_slot = 0, a.kind = CC_ACCESS_LOAD;
        for (uint32_t l = 0; l < 32; l++)
          a.addr[l] = IN_BASE + 4ull * ((uint64_t)(8 * by + w) * n + 32 * bx + l);
        assert_int_equal(sink->access(sink->ctx, &a, &err), CC_OK);
        a.insn_slot = 1, a.kind = CC_ACCESS_STORE;
        for (uint32_t l = 0; l < 32; l++)
          a.addr[l] = OUT_BASE + 4ull * ((uint64_t)(32 * bx + l) * n + 8 * by + w);
        assert_int_equal(sink->access(sink->ctx, &a, &err), CC_OK);
      }
    }
  assert_int_equal(sink->end_kernel(sink->ctx, &err), CC_OK);
}

static const struct cc_insn_stats *by_id(const struct cc_kernel_stats *k, uint32_t id)
{
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.id == id)
      return &k->insns[i];
  fail_msg("no instruction %u", id);
  return NULL;
}

/* N = 64, grid 2 x 8 of 32 x 8 threads: 16 CTAs x 8 warps = 128 records per instruction.
 * Load: 32 lanes on consecutive floats of one row, 128-byte aligned (row = 256 bytes,
 * bx * 128) -> 4 sectors, ideal 4, per record: 512 / 512. Strides all 4 (31 per record,
 * 3968 in all), max 4 <= 4: coalesced. Footprint: all 64 x 64 floats, gaps 4 = allStr.
 * Store: lanes 4N = 256 bytes apart -> 32 sectors, ideal ceil(128/32) = 4 per record:
 * 4096 / 512, excess 3584; stride 256 > 4: uncoalesced, every thread access of it (4096)
 * in an uncoalesced request. Footprint: all of out, allStr 4 <= 4: all coalescable ->
 * thread-geometry advice, no shared-memory advice (a store). Efficiency of the store:
 * 128 x 128 bytes / (4096 x 32) = 0.125. Worst first: the store (excess 3584). Totals:
 * requests 256, sectors 4608, ideal 1024, bytes 32768 / 147456, Table 2: 8192 / 4096. */
static void check_transpose64(const struct cc_kernel_stats *k)
{
  assert_string_equal(k->name, "transpose");
  assert_string_equal(k->arch, "sm_90");
  assert_int_equal(k->n_insns, 2);
  assert_int_equal(k->insns[0].info.id, 14); /* worst first */
  const struct cc_insn_stats *ld = by_id(k, 12), *st = by_id(k, 14);
  assert_int_equal(ld->executions, 128);
  assert_int_equal(ld->thread_accesses, 4096);
  assert_int_equal(ld->bytes_requested, 16384);
  assert_int_equal(ld->requests, 128);
  assert_int_equal(ld->sectors, 512);
  assert_int_equal(ld->ideal_sectors, 512);
  assert_int_equal(ld->excess_sectors, 0);
  assert_int_equal(ld->sector_hist[4], 128);
  assert_int_equal(ld->stride_min, 4);
  assert_int_equal(ld->stride_max, 4);
  assert_int_equal(ld->stride_count, 3968);
  assert_true(cc_analysis_stride_avg(ld) == 4.0);
  assert_int_equal(ld->all_stride, 4);
  assert_int_equal(ld->verdict, CC_VERDICT_COALESCED);
  assert_true(ld->all_coalescable);
  assert_int_equal(ld->n_suggestions, 0);
  assert_int_equal(ld->uncoalesced_thread_accesses, 0);
  assert_true(cc_analysis_efficiency(ld) == 1.0);

  assert_int_equal(st->executions, 128);
  assert_int_equal(st->sectors, 4096);
  assert_int_equal(st->ideal_sectors, 512);
  assert_int_equal(st->excess_sectors, 3584);
  assert_int_equal(st->transactions, 4096);
  assert_int_equal(st->bytes_transferred, 131072);
  assert_int_equal(st->lines, 4096);
  assert_int_equal(st->sector_hist[32], 128);
  assert_int_equal(st->stride_min, 256);
  assert_int_equal(st->stride_max, 256);
  assert_true(cc_analysis_stride_avg(st) == 256.0);
  assert_int_equal(st->all_stride, 4);
  assert_int_equal(st->verdict, CC_VERDICT_UNCOALESCED);
  assert_true(st->all_coalescable);
  assert_int_equal(st->uncoalesced_requests, 128);
  assert_int_equal(st->uncoalesced_thread_accesses, 4096);
  assert_true(cc_analysis_efficiency(st) == 0.125);
  assert_int_equal(st->n_suggestions, 1);
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_THREAD_GEOMETRY);
  assert_string_equal(st->suggestions[0].text,
                      "lanes of a warp are 256 bytes (64 floats) apart: consecutive "
                      "threadIdx.x should write consecutive elements; swap the roles of "
                      "threadIdx.x and threadIdx.y (thread-geometry transformation)");

  assert_int_equal(k->totals.requests, 256);
  assert_int_equal(k->totals.sectors, 4608);
  assert_int_equal(k->totals.ideal_sectors, 1024);
  assert_int_equal(k->totals.excess_sectors, 3584);
  assert_int_equal(k->totals.bytes_requested, 32768);
  assert_int_equal(k->totals.bytes_transferred, 147456);
  assert_int_equal(k->totals.thread_accesses, 8192);
  assert_int_equal(k->totals.uncoalesced_thread_accesses, 4096);
}

static void test_transpose(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink sink = cc_analysis_sink(an);
  feed_transpose(&sink, 64, 0, 1);
  assert_int_equal(an->n_kernels, 1);
  check_transpose64(&an->kernels[0]);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* DESIGN.md, measured on an H200 with Nsight Compute: naive 4096 x 4096 float transpose,
 * 32 x 8 blocks: 524,288 load requests with 2,097,152 sectors; 524,288 store requests
 * with 16,777,216 sectors. (128 x 512 CTAs x 8 warps = 524,288 records each.) */
static void test_transpose4096_matches_h200(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink sink = cc_analysis_sink(an);
  feed_transpose(&sink, 4096, 0, 1);
  const struct cc_kernel_stats *k = &an->kernels[0];
  assert_int_equal(by_id(k, 12)->requests, 524288);
  assert_int_equal(by_id(k, 12)->sectors, 2097152);
  assert_int_equal(by_id(k, 14)->requests, 524288);
  assert_int_equal(by_id(k, 14)->sectors, 16777216);
  /* stride of the store: 4 x 4096 = 16384 bytes = 4096 floats */
  assert_int_equal(by_id(k, 14)->stride_max, 16384);
  assert_non_null(strstr(by_id(k, 14)->suggestions[0].text, "16384 bytes (4096 floats)"));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Sharding by CTA parity and merging must give the whole run's figures exactly. */
static void test_merge(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *a = cc_analysis_new(m), *b = cc_analysis_new(m);
  struct cc_access_sink sa = cc_analysis_sink(a), sb = cc_analysis_sink(b);
  struct cc_err err = { 0 };
  feed_transpose(&sa, 64, 0, 2);
  feed_transpose(&sb, 64, 1, 2);
  /* half the CTAs: 64 records each, so not yet the whole run */
  assert_int_equal(by_id(&a->kernels[0], 12)->executions, 64);
  assert_int_equal(cc_analysis_merge(a, b, &err), CC_OK);
  check_transpose64(&a->kernels[0]);
  /* b unchanged */
  assert_int_equal(by_id(&b->kernels[0], 12)->executions, 64);
  cc_analysis_free(a);
  cc_analysis_free(b);
  cc_model_free(m);
}

/* One record: lanes 0..3 at 0, 4, 12, 28 -> strides 4, 8, 16; lanes 8, 9 at 100, 104 ->
 * stride 4 (one group of W = 32: sorted 0,4,12,28,100,104 -> 4,8,16,72,4). min 4,
 * max 72, avg = (4+8+16+72+4)/5 = 20.8 (the paper's line 25 would give 104/32 = 3.25).
 * Max 72 > 4: uncoalesced, 6 thread accesses in uncoalesced requests. Footprint gaps:
 * the same, allStr 72 > 4: cannot be all coalesced, kind "none". */
static void test_strides_and_allstr(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 3, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_GLOBAL, .size_bytes = 4,
                                            .text = "ld.global.u32 %r1, [%rd1];" };
  struct cc_kernel_info k = { .name = "k", .mangled = "_Z1kv", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1, .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.space = CC_SPACE_GLOBAL;
  a.active = 0x30fu;
  a.addr[0] = 0, a.addr[1] = 4, a.addr[2] = 12, a.addr[3] = 28, a.addr[8] = 100, a.addr[9] = 104;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  const struct cc_insn_stats *st = &an->kernels[0].insns[0];
  assert_int_equal(st->stride_min, 4);
  assert_int_equal(st->stride_max, 72);
  assert_int_equal(st->stride_count, 5);
  assert_true(cc_analysis_stride_avg(st) == 20.8);
  assert_int_equal(st->all_stride, 72);
  assert_int_equal(st->verdict, CC_VERDICT_UNCOALESCED);
  assert_false(st->all_coalescable);
  assert_int_equal(st->uncoalesced_thread_accesses, 6);
  assert_int_equal(an->kernels[0].totals.thread_accesses, 6);
  assert_int_equal(st->n_suggestions, 1);
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_NONE);
  assert_non_null(strstr(st->suggestions[0].text, "cannot be all coalesced"));
  assert_non_null(strstr(st->suggestions[0].text, "72 bytes (18 unsigned ints)"));
  /* sectors: bytes 0..31 (sector 0), 100..107 (sector 3) -> 2; unique 24 bytes -> ideal 1 */
  assert_int_equal(st->sectors, 2);
  assert_int_equal(st->ideal_sectors, 1);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* A lone active lane makes no stride: min = max = avg = 0, coalesced; one footprint
 * address: allStr 0. */
static void test_single_lane(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 1, .kind = CC_ACCESS_STORE,
                                            .space = CC_SPACE_GLOBAL, .size_bytes = 8,
                                            .text = "st.global.f64 [%rd1], %fd1;" };
  struct cc_kernel_info k = { .name = "k", .mangled = "k", .n_insns = 1, .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 8, a.active = 1u << 7, a.addr[7] = 4096;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  const struct cc_insn_stats *st = &an->kernels[0].insns[0];
  assert_int_equal(st->stride_count, 0);
  assert_int_equal(st->stride_min, 0);
  assert_int_equal(st->stride_max, 0);
  assert_true(cc_analysis_stride_avg(st) == 0.0);
  assert_int_equal(st->all_stride, 0);
  assert_int_equal(st->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(st->sectors, 1);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Array of structures { float x, y, z; } p[32], one warp, three loads p[i].x, p[i].y,
 * p[i].z at 12i, 12i + 4, 12i + 8 (base 0x2000): each has uniform stride 12 > 4 and a
 * footprint with gaps of 12: cannot be all coalesced. Their lowest addresses 0x2000,
 * 0x2004, 0x2008 lie within 12 bytes of each other: each has 2 neighbouring fields ->
 * "layout" advice first, then "none". Sectors of one: 12 x 31 + 4 = 376 bytes span
 * 0x2000..0x2177 -> sectors 256..267 = 12; ideal 4; the three are equal so the order is by
 * ptx_index. */
static void test_layout_aos(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = {
    { .id = 20, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .text = "ld.global.f32 %f1, [%rd1];" },
    { .id = 21, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .text = "ld.global.f32 %f2, [%rd1+4];" },
    { .id = 22, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .text = "ld.global.f32 %f3, [%rd1+8];" },
  };
  struct cc_kernel_info k = { .name = "aos", .mangled = "aos", .n_insns = 3, .insns = insns };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t f = 0; f < 3; f++) {
    a.insn_slot = f;
    for (int l = 0; l < 32; l++)
      a.addr[l] = 0x2000 + 12u * (uint32_t)l + 4 * f;
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  for (uint32_t f = 0; f < 3; f++) {
    const struct cc_insn_stats *st = &an->kernels[0].insns[f];
    assert_int_equal(st->info.id, 20 + f);
    assert_int_equal(st->sectors, 12);
    assert_int_equal(st->ideal_sectors, 4);
    assert_int_equal(st->all_stride, 12);
    assert_int_equal(st->n_suggestions, 2);
    assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_LAYOUT);
    assert_non_null(strstr(st->suggestions[0].text, "12 bytes (3 floats)"));
    assert_non_null(strstr(st->suggestions[0].text, "2 other instructions"));
    assert_non_null(strstr(st->suggestions[0].text, "AoS -> SoA"));
    assert_int_equal(st->suggestions[1].kind, CC_SUGGEST_NONE);
  }
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Shared: float tile[32][32] read by column (lane i at word 32i): 32 ways, 32 wavefronts,
 * ideal 1 per record; two records -> wavefronts 64, ideal 2, 2 conflicted requests; the
 * kernel totals hold them, not the global ones. A "layout" advice names 32 ways and the
 * stride 128 bytes (32 floats). */
static void test_shared(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 9, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_SHARED, .size_bytes = 4,
                                            .text = "ld.shared.f32 %f1, [%r5];" };
  struct cc_kernel_info k = { .name = "t", .mangled = "t", .n_insns = 1, .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu, a.space = CC_SPACE_SHARED;
  for (int l = 0; l < 32; l++)
    a.addr[l] = 128u * (uint32_t)l;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  const struct cc_kernel_stats *ks = &an->kernels[0];
  const struct cc_insn_stats *st = &ks->insns[0];
  assert_int_equal(st->ways_max, 32);
  assert_int_equal(st->wavefronts, 64);
  assert_int_equal(st->ideal_wavefronts, 2);
  assert_int_equal(st->conflict_requests, 2);
  assert_int_equal(st->sectors, 0);
  assert_true(cc_analysis_efficiency(st) == 2.0 / 64.0);
  assert_int_equal(ks->totals.wavefronts, 64);
  assert_int_equal(ks->totals.ideal_wavefronts, 2);
  assert_int_equal(ks->totals.requests, 0);
  assert_int_equal(ks->totals.thread_accesses, 0);
  assert_int_equal(st->n_suggestions, 1);
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_LAYOUT);
  assert_non_null(strstr(st->suggestions[0].text, "32-way bank conflict"));
  assert_non_null(strstr(st->suggestions[0].text, "128 bytes (32 floats)"));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Two kernels in one stream keep separate results, in stream order. */
static void test_multi_kernel(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink sink = cc_analysis_sink(an);
  feed_transpose(&sink, 64, 0, 1);
  feed_transpose(&sink, 32, 0, 1);
  assert_int_equal(an->n_kernels, 2);
  check_transpose64(&an->kernels[0]);
  /* N = 32: grid 1 x 4, 4 CTAs x 8 warps = 32 records; load 4 sectors each = 128 */
  assert_int_equal(an->kernels[1].grid[1], 4);
  assert_int_equal(by_id(&an->kernels[1], 12)->executions, 32);
  assert_int_equal(by_id(&an->kernels[1], 12)->sectors, 128);
  /* store stride 4 x 32 = 128 bytes */
  assert_int_equal(by_id(&an->kernels[1], 14)->stride_max, 128);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* 10^6 records cycling through 8 warps' worth of addresses of one 32 x 8 tile: the
 * footprint (256 distinct floats, 1 KiB of addresses = 2 chunks of 512) is all there is
 * after the first 8 records; its structure must not grow after that. */
static void test_memory_flat(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 0, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_GLOBAL, .size_bytes = 4,
                                            .text = "ld.global.f32 %f1, [%rd1];" };
  struct cc_kernel_info k = { .name = "loop", .mangled = "loop", .n_insns = 1, .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  size_t after_first = 0;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t r = 0; r < 1000000; r++) {
    for (int l = 0; l < 32; l++)
      a.addr[l] = 0x40000 + 4u * (32u * (r % 8) + (uint32_t)l);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
    if (r == 7)
      after_first = cc_analysis_footprint_bytes(&an->kernels[0].insns[0]);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  const struct cc_insn_stats *st = &an->kernels[0].insns[0];
  assert_int_equal(cc_analysis_footprint_bytes(st), after_first);
  assert_true(after_first < 4096);
  assert_int_equal(st->executions, 1000000);
  assert_int_equal(st->sectors, 4000000);
  assert_int_equal(st->all_stride, 4);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* A column-wise load from local memory: record c has lane i at offset 4 (32 i + c),
 * c = 0..31. Local strides and footprints are of the interleaved layout (model.h
 * cc_model_local_layout): word 32 i + c of lane i lies at 128 (32 i + c) + 4 i =
 * 4100 i + 128 c. Strides 4100 > 4: uncoalesced; the 32 records together: for each i
 * the 32 addresses 4100 i + 128 c (gaps 128), and from i to i + 1 a gap of
 * 4100 - 31 x 128 = 132: allStr 132, not coalescable. Advice: the local one only (no
 * thread-geometry, shared-memory or "none": threads cannot be remapped onto a per-thread
 * array). Each record: 32 sectors (32 rows), ideal 4 -> 1024 / 128. Local memory counts
 * in the kernel's global totals and the Table 2 pair: 1024 / 1024. */
static void test_column_load_local(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 5, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_LOCAL, .size_bytes = 4,
                                            .text = "ld.local.f32 %f1, [%rd2];" };
  struct cc_kernel_info k = { .name = "col", .mangled = "col", .n_insns = 1, .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu, a.space = CC_SPACE_LOCAL;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t c = 0; c < 32; c++) {
    for (uint32_t l = 0; l < 32; l++)
      a.addr[l] = 4u * (32u * l + c);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  const struct cc_kernel_stats *ks = &an->kernels[0];
  const struct cc_insn_stats *st = &ks->insns[0];
  assert_int_equal(st->sectors, 1024);
  assert_int_equal(st->ideal_sectors, 128);
  assert_int_equal(st->stride_min, 4100);
  assert_int_equal(st->stride_max, 4100);
  assert_int_equal(st->all_stride, 132);
  assert_int_equal(st->verdict, CC_VERDICT_UNCOALESCED);
  assert_false(st->all_coalescable);
  assert_int_equal(st->n_suggestions, 1);
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_LOCAL_ARRAY);
  assert_non_null(strstr(st->suggestions[0].text, "read a per-thread (local) array"));
  assert_non_null(strstr(st->suggestions[0].text, "up to 4100 bytes apart"));
  assert_int_equal(ks->totals.sectors, 1024);
  assert_int_equal(ks->totals.thread_accesses, 1024);
  assert_int_equal(ks->totals.uncoalesced_thread_accesses, 1024);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Groups are fixed lane ranges: lanes 0 and 31 active at 0 and 4 are neighbours in the one
 * group of 32 (stride 4, coalesced); the 16 bytes at 0 and 4 use 1 sector. A 16-byte vector
 * load named by its size: lanes at 64 i -> stride 64 = 4 16-byte vectors. */
static void test_groups_and_vectors(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = {
    { .id = 1, .kind = CC_ACCESS_ATOMIC, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .text = "atom.global.add.u32 %r1, [%rd1], 1;" },
    { .id = 2, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 16,
      .text = "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];" },
  };
  struct cc_kernel_info k = { .name = "g", .mangled = "g", .n_insns = 2, .insns = insns };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  a.insn_slot = 0, a.size_bytes = 4, a.active = 0x80000001u, a.addr[0] = 0, a.addr[31] = 4;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  a.insn_slot = 1, a.size_bytes = 16, a.active = 0xffffffffu;
  for (uint32_t l = 0; l < 32; l++)
    a.addr[l] = 0x1000 + 64u * l;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  /* the vector load: 32 sectors (each lane's 16 bytes in its own sector), ideal 16,
   * excess 16 -> first; the atomic: excess 0 */
  const struct cc_insn_stats *v = &an->kernels[0].insns[0], *at = &an->kernels[0].insns[1];
  assert_int_equal(v->info.id, 2);
  assert_int_equal(v->sectors, 32);
  assert_int_equal(v->ideal_sectors, 16);
  assert_non_null(strstr(v->suggestions[0].text, "64 bytes (4 16-byte vectors)"));
  assert_int_equal(at->stride_min, 4);
  assert_int_equal(at->stride_max, 4);
  assert_int_equal(at->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(at->sectors, 1);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* ---- the memory limit (issue 13: a 246-byte trace asked for 3.5 GB) ---- */

/* Records whose 32 lanes are 4099 bytes apart and whose bases advance by 1048583 bytes
 * (coprime: the footprint's granularity stays 1 byte, every lane lands in a chunk of its
 * own): each record adds 32 chunks of 72 bytes plus their table, ~2.3 KiB at least. With
 * a limit of 1 MiB the sink must stop within 1 MiB / 2.3 KiB = ~450 records, at the
 * latest once the chunk array's next doubling passes the limit, and say so; what it holds
 * stays within the limit plus one doubling of that array (< 2 MiB). */
static void test_memory_limit(void **state)
{
  (void)state;
  static const struct cc_insn_info insn = { .id = 3, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_GLOBAL, .size_bytes = 4 };
  struct cc_kernel_info k = { .name = "scatter", .mangled = "scatter", .n_insns = 1,
                              .insns = &insn };
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  uint32_t r;
  int rc = CC_OK;
  an->mem_limit = (size_t)1 << 20;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (r = 0; r < 100000 && rc == CC_OK; r++) {
    for (int l = 0; l < 32; l++)
      a.addr[l] = 1048583ull * (r + 1) + 4099ull * (uint64_t)l;
    rc = s.access(s.ctx, &a, &err);
  }
  assert_int_equal(rc, CC_ERR_LIMIT);
  assert_true(r <= 450);
  assert_true(an->mem_used > an->mem_limit);
  assert_true(an->mem_used < 2 * an->mem_limit);
  char want[300];
  snprintf(want, sizeof want, "analysis memory limit of 1 MiB reached in kernel scatter "
           "(kernel 1 of the stream, 1 memory instructions, %u distinct addresses in their "
           "footprints): raise it with --max-analysis-memory MIB", 32 * r);
  assert_string_equal(err.msg, want);
  cc_analysis_free(an);

  /* a kernel table alone over the limit: refused before anything is allocated */
  an = cc_analysis_new(m);
  s = cc_analysis_sink(an);
  an->mem_limit = 100; /* less than one instruction's statistics */
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_ERR_LIMIT);
  assert_string_equal(err.msg, "analysis memory limit of 0 MiB reached in kernel scatter "
                      "(kernel 1 of the stream, 1 memory instructions, 0 distinct addresses "
                      "in their footprints): raise it with --max-analysis-memory MIB");
  assert_int_equal(an->n_kernels, 0);
  assert_int_equal(an->mem_used, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* The cache model the analysis owns counts in its memory (analysis.h, mem_used). A model
 * of 2 SMs with 16 KiB of L1 each (128 lines of 16 bytes per SM: 4096 bytes) and a 64 KiB
 * L2 (512 lines of 16 + 32 bytes: 24576 bytes) holds 28672 bytes of arrays, plus a header
 * (with the L2's counts, the write policy's limits and the lanes memo: about 1.4 KiB), a
 * level per SM (about 0.5 KiB) with its wavefronts and three wait counters (par.c), and the
 * SMs' memos (2 x (4 x 864 + 128 + 448) = 8064 bytes, cache.c): under 14 KiB.
 * A kernel of 1000 instructions then adds what it adds
 * without a cache and 1000 of the model's per-instruction counters, twice (the counts,
 * and set sampling's counts of its sampled lines) with an 8-byte request count each (set
 * sampling's requests after the switch: cache.h cc_cache_bytes). A limit below the
 * arrays refuses the first kernel and says that the cache model holds them. */
static void test_memory_limit_cache(void **state)
{
  (void)state;
  struct cc_insn_info insns[1000];
  struct cc_kernel_info k = { .name = "k", .mangled = "k", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1000, .insns = insns };
  struct cc_model *m = model();
  struct cc_analysis *plain = cc_analysis_new(m), *an = cc_analysis_new(m);
  struct cc_access_sink ps = cc_analysis_sink(plain), s = cc_analysis_sink(an);
  struct cc_cache_device d;
  struct cc_err err = { 0 };
  size_t arrays;
  int on = 0;
  for (uint32_t i = 0; i < 1000; i++)
    insns[i] = (struct cc_insn_info){ .id = i, .kind = CC_ACCESS_LOAD,
                                      .space = CC_SPACE_GLOBAL, .size_bytes = 4 };
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sms=2,l1=16K,l2=64K", NULL, &d, &on,
                                       &err), CC_OK);
  assert_int_equal(on, 1);
  cc_analysis_set_cache(an, cc_cache_new(&d));
  arrays = an->mem_used;
  assert_in_range(arrays, 28672, 28672 + 14336);
  assert_int_equal(ps.begin_kernel(ps.ctx, &k, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(an->mem_used - arrays,
                   plain->mem_used + 1000 * (2 * sizeof(struct cc_cache_counts) + 8));
  /* a model handed in later replaces the first one's bytes by its own */
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  cc_analysis_set_cache(an, NULL);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(ps.end_kernel(ps.ctx, &err), CC_OK);
  assert_int_equal(an->mem_used, 2 * plain->mem_used);
  cc_analysis_free(plain);
  cc_analysis_free(an);

  an = cc_analysis_new(m);
  s = cc_analysis_sink(an);
  cc_analysis_set_cache(an, cc_cache_new(&d));
  an->mem_limit = 20000;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_ERR_LIMIT);
  assert_string_equal(err.msg, "analysis memory limit of 0 MiB reached in kernel k (kernel 1 "
                      "of the stream, 1000 memory instructions, 0 distinct addresses in their "
                      "footprints, a cache model of 0.0 MiB, which --cache off drops): raise "
                      "it with --max-analysis-memory MIB");
  assert_int_equal(an->n_kernels, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* ---- error paths ---- */

static void test_errors(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_err err = { 0 };
  struct cc_kernel_info k = transpose_kernel(64);
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 1;
  /* outside a kernel */
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INTERNAL);
  assert_non_null(strstr(err.msg, "outside a kernel"));
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_ERR_INTERNAL);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_ERR_INTERNAL);
  assert_non_null(strstr(err.msg, "inside another kernel"));
  /* slot out of range: the kernel has 2 instructions */
  a.insn_slot = 2;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "slot 2 but kernel transpose has 2"));
  a.insn_slot = 0, a.size_bytes = 0;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "size 0"));
  /* above 32 bytes (.v4.b64): refused; a local one used to cost one model call per
   * 32-bit word, a billion for 4 GiB (found by fuzz_trace) */
  a.size_bytes = 33;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "size 33 (not 1 to 32 bytes)"));
  a.size_bytes = UINT32_MAX, a.space = CC_SPACE_LOCAL;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INPUT);
  a.size_bytes = 32;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  /* merging while a kernel is open */
  assert_int_equal(cc_analysis_merge(an, an, &err), CC_ERR_INTERNAL);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void test_merge_mismatch(void **state)
{
  (void)state;
  struct cc_model *m = model();
  struct cc_analysis *a = cc_analysis_new(m), *b = cc_analysis_new(m), *c = cc_analysis_new(m);
  struct cc_access_sink sa = cc_analysis_sink(a), sb = cc_analysis_sink(b);
  struct cc_access_sink sc = cc_analysis_sink(c);
  struct cc_err err = { 0 };
  static const struct cc_insn_info other_insns[] = {
    { .id = 12, .size_bytes = 4 }, { .id = 15, .size_bytes = 4 },
  };
  struct cc_kernel_info other = transpose_kernel(64);
  feed_transpose(&sa, 64, 0, 1);
  /* b: two kernels -> count differs */
  feed_transpose(&sb, 64, 0, 1);
  feed_transpose(&sb, 64, 0, 1);
  assert_int_equal(cc_analysis_merge(a, b, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "1 and 2 kernel launches"));
  /* c: same name, different instruction ids */
  other.insns = other_insns;
  assert_int_equal(sc.begin_kernel(sc.ctx, &other, &err), CC_OK);
  assert_int_equal(sc.end_kernel(sc.ctx, &err), CC_OK);
  assert_int_equal(cc_analysis_merge(a, c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "instruction 14 in one and 15"));
  /* a failed merge leaves a unchanged */
  check_transpose64(&a->kernels[0]);
  /* different kernel names */
  other.mangled = "_Z4copyPfPKfi";
  cc_analysis_free(c);
  c = cc_analysis_new(m);
  sc = cc_analysis_sink(c);
  assert_int_equal(sc.begin_kernel(sc.ctx, &other, &err), CC_OK);
  assert_int_equal(sc.end_kernel(sc.ctx, &err), CC_OK);
  assert_int_equal(cc_analysis_merge(a, c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "_Z4copyPfPKfi"));
  /* different models */
  struct cc_model *m80 = NULL;
  assert_int_equal(cc_model_get("sm_80", NULL, &m80, &err), CC_OK);
  struct cc_analysis *d = cc_analysis_new(m80);
  struct cc_access_sink sd = cc_analysis_sink(d);
  feed_transpose(&sd, 64, 0, 1);
  assert_int_equal(cc_analysis_merge(a, d, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "sm_90 and sm_80"));
  cc_analysis_free(d);
  cc_model_free(m80);
  cc_analysis_free(a);
  cc_analysis_free(b);
  cc_analysis_free(c);
  cc_model_free(m);
}

static void test_names(void **state)
{
  (void)state;
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_THREAD_GEOMETRY), "thread-geometry");
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_SHARED_MEMORY), "shared-memory");
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_LAYOUT), "layout");
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_NONE), "none");
  assert_string_equal(cc_suggestion_kind_name(CC_SUGGEST_LOCAL_ARRAY), "local-array");
  assert_string_equal(cc_verdict_name(CC_VERDICT_COALESCED), "coalesced");
  assert_string_equal(cc_verdict_name(CC_VERDICT_UNCOALESCED), "uncoalesced");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transpose),        cmocka_unit_test(test_transpose4096_matches_h200),
    cmocka_unit_test(test_merge),            cmocka_unit_test(test_strides_and_allstr),
    cmocka_unit_test(test_single_lane),      cmocka_unit_test(test_layout_aos),
    cmocka_unit_test(test_shared),           cmocka_unit_test(test_multi_kernel),
    cmocka_unit_test(test_memory_flat),      cmocka_unit_test(test_errors),
    cmocka_unit_test(test_memory_limit),
    cmocka_unit_test(test_memory_limit_cache),
    cmocka_unit_test(test_merge_mismatch),   cmocka_unit_test(test_names),
    cmocka_unit_test(test_column_load_local), cmocka_unit_test(test_groups_and_vectors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
