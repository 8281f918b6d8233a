/* The second pass on the analysis: source-level references (unrolled copies), the sound
 * layout rule, the placement of inlined instructions, the per-line sums and the bounded
 * footprint. Every expected figure is derived in the comment above its check (sector =
 * 32 bytes; Algorithm 1 with W = 32 on sm_90). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/footprint.h"

struct run {
  struct cc_model *m;
  struct cc_analysis *an;
  struct cc_access_sink s;
};

static void start(struct run *r, const struct cc_insn_info *insns, uint32_t n)
{
  struct cc_err err = { 0 };
  struct cc_kernel_info k = { .name = "k", .mangled = "_Z1kv", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = n, .insns = insns };
  assert_int_equal(cc_model_get("sm_90", NULL, &r->m, &err), CC_OK);
  r->an = cc_analysis_new(r->m);
  r->s = cc_analysis_sink(r->an);
  assert_int_equal(r->s.begin_kernel(r->s.ctx, &k, &err), CC_OK);
}

static void feed(struct run *r, uint32_t slot, uint32_t active, const uint64_t *addr)
{
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot, a.size_bytes = 4, a.active = active;
  memcpy(a.addr, addr, sizeof a.addr);
  assert_int_equal(r->s.access(r->s.ctx, &a, &err), CC_OK);
}

static const struct cc_kernel_stats *finish(struct run *r)
{
  struct cc_err err = { 0 };
  assert_int_equal(r->s.end_kernel(r->s.ctx, &err), CC_OK);
  return &r->an->kernels[0];
}

static void stop(struct run *r)
{
  cc_analysis_free(r->an);
  cc_model_free(r->m);
}

static const struct cc_insn_stats *by_id(const struct cc_kernel_stats *k, uint32_t id)
{
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.id == id)
      return &k->insns[i];
  fail_msg("no instruction %u", id);
  return NULL;
}

static int has(const struct cc_insn_stats *s, enum cc_suggestion_kind kind)
{
  for (size_t i = 0; i < s->n_suggestions; i++)
    if (s->suggestions[i].kind == kind)
      return 1;
  return 0;
}

#define LOAD(ID, LINE) { .id = ID, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, \
    .size_bytes = 4, .text = "ld.global.f32 %f1, [%rd1];", .file = "rs.cu", .line = LINE }

/* Row sums, one thread per row, 32 rows of C = 16 floats (row r at 64 r bytes, base 0),
 * the loop unrolled 4 times: copy j (ids 10..13, all rs.cu:20) reads column 4 i + j at
 * iteration i = 0..3, lane r at 64 r + 4 (4 i + j). A fifth load (id 14, rs.cu:21) runs
 * copy 0's pattern alone.
 * One copy: lanes 64 bytes apart -> 32 sectors per request (ideal 4), 4 records: 128 / 16;
 * max stride 64 > 4: uncoalesced. Its footprint {64 r + 16 i + 4 j} has gaps of 16:
 * all_stride 16 > 4, not all coalescable on its own. The four copies together hold every
 * float of the 32 x 16 matrix: line_all_stride 4 <= 4 -> a remapping can coalesce it, not
 * "none"; the launch is 1-D (32 x 1 x 1), so no thread index can take x's place and the
 * advice is the loop's (lifting, redistribution), not thread-geometry (and, loads,
 * shared-memory). The lone load of line 21 keeps its gaps of 16:
 * line_all_stride 16, one instruction, "none" naming 16 bytes. No layout advice: the
 * lane stride is 64, but each footprint's granularity is 16 (64 does not divide it: the
 * addresses are not at one offset modulo 64). */
static void test_unrolled_copies(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = { LOAD(10, 20), LOAD(11, 20), LOAD(12, 20),
                                               LOAD(13, 20), LOAD(14, 21) };
  struct run r;
  uint64_t addr[32];
  start(&r, insns, 5);
  for (uint32_t i = 0; i < 4; i++)
    for (uint32_t j = 0; j < 5; j++) {
      for (uint32_t l = 0; l < 32; l++)
        addr[l] = 64u * l + 4u * (4 * i + (j == 4 ? 0 : j));
      feed(&r, j, 0xffffffffu, addr);
    }
  const struct cc_kernel_stats *k = finish(&r);
  for (uint32_t id = 10; id <= 13; id++) {
    const struct cc_insn_stats *s = by_id(k, id);
    assert_int_equal(s->sectors, 128);
    assert_int_equal(s->ideal_sectors, 16);
    assert_int_equal(s->stride_max, 64);
    assert_int_equal(s->verdict, CC_VERDICT_UNCOALESCED);
    assert_int_equal(s->all_stride, 16);
    assert_false(s->all_coalescable);
    assert_int_equal(s->line_all_stride, 4);
    assert_true(s->line_all_coalescable);
    assert_int_equal(s->line_insns, 4);
    assert_int_equal(s->lane_stride, 64);
    assert_true(has(s, CC_SUGGEST_LOOP));
    assert_false(has(s, CC_SUGGEST_THREAD_GEOMETRY));
    assert_true(has(s, CC_SUGGEST_SHARED_MEMORY));
    assert_false(has(s, CC_SUGGEST_NONE));
    assert_false(has(s, CC_SUGGEST_LAYOUT));
  }
  const struct cc_insn_stats *lone = by_id(k, 14);
  assert_int_equal(lone->all_stride, 16);
  assert_int_equal(lone->line_all_stride, 16);
  assert_int_equal(lone->line_insns, 1);
  assert_false(lone->line_all_coalescable);
  assert_int_equal(lone->n_suggestions, 1);
  assert_int_equal(lone->suggestions[0].kind, CC_SUGGEST_NONE);
  assert_non_null(strstr(lone->suggestions[0].text, "gaps of 16 bytes (4 floats)"));
  /* per line: rs.cu:20 = 4 instructions x 128 sectors = 512, 16 requests, ideal 64;
   * rs.cu:21 = 128 sectors, 4 requests */
  assert_int_equal(k->n_lines, 2);
  assert_string_equal(k->lines[0].file, "rs.cu");
  assert_int_equal(k->lines[0].line, 20);
  assert_int_equal(k->lines[0].n_insns, 4);
  assert_int_equal(k->lines[0].requests, 16);
  assert_int_equal(k->lines[0].sectors, 512);
  assert_int_equal(k->lines[0].ideal_sectors, 64);
  assert_int_equal(k->lines[0].excess_sectors, 448);
  assert_int_equal(k->lines[0].thread_accesses, 512);
  assert_int_equal(k->lines[1].line, 21);
  assert_int_equal(k->lines[1].sectors, 128);
  assert_int_equal(k->lines[1].requests, 4);
  stop(&r);
}

/* One source line reading two arrays, s += a[r][c] * b[r][c], unrolled twice: rows of
 * C = 8 floats (32 bytes), 32 rows (lane r), A at 0x10000, B at 0x20000 (1 KiB each);
 * copy j (A: ids 1, 2; B: ids 3, 4; all rs.cu:30) reads column 2 i + j at iteration
 * i = 0..3: addresses base + 32 r + 8 i + 4 j. One copy's footprint has gaps of 8:
 * all_stride 8. The four loads share line, kind, space and size, but A's and B's
 * address ranges [base, base + 1020] do not overlap: two references of 2 copies each,
 * each covering its whole array: line_all_stride 4, a remapping can coalesce it; the launch
 * is 1-D, so the advice is the loop's, not thread-geometry (no y to swap with). (One group
 * of four would leave the gap between the arrays, 0x20000 - 0x103fc = 64516 bytes.) */
static void test_two_arrays_one_line(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = { LOAD(1, 30), LOAD(2, 30), LOAD(3, 30),
                                               LOAD(4, 30) };
  struct run r;
  uint64_t addr[32];
  start(&r, insns, 4);
  for (uint32_t i = 0; i < 4; i++)
    for (uint32_t c = 0; c < 4; c++) {
      uint64_t base = c < 2 ? 0x10000 : 0x20000;
      for (uint32_t l = 0; l < 32; l++)
        addr[l] = base + 32u * l + 8u * i + 4u * (c % 2);
      feed(&r, c, 0xffffffffu, addr);
    }
  const struct cc_kernel_stats *k = finish(&r);
  for (uint32_t id = 1; id <= 4; id++) {
    const struct cc_insn_stats *s = by_id(k, id);
    assert_int_equal(s->all_stride, 8);
    assert_int_equal(s->line_insns, 2);
    assert_int_equal(s->line_all_stride, 4);
    assert_true(has(s, CC_SUGGEST_LOOP));
    assert_false(has(s, CC_SUGGEST_NONE));
  }
  /* one line in the per-line sums: 4 instructions x 4 records */
  assert_int_equal(k->n_lines, 1);
  assert_int_equal(k->lines[0].n_insns, 4);
  assert_int_equal(k->lines[0].requests, 16);
  stop(&r);
}

#define STORE(ID, LINE) { .id = ID, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, \
    .size_bytes = 4, .text = "st.global.f32 [%rd1], %f1;", .file = "d.cu", .line = LINE }

/* The divergent example: out[i] = ... on even lanes (id 5, d.cu:17) and on odd lanes
 * (id 6, d.cu:19), i = 32 w + lane, 8 warps, out at 0x8000. Sorted neighbours of one
 * branch are 8 bytes apart (uncoalesced, footprint gaps 8: "none"), but per lane index
 * the address grows by 4 = the access size: lane stride 4, no structure, so no layout
 * advice although the two footprints start 4 bytes apart with the same stride 8 (what
 * the old rule took for two fields of an 8-byte structure). */
static void test_divergent_no_layout(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = { STORE(5, 17), STORE(6, 19) };
  struct run r;
  uint64_t addr[32];
  start(&r, insns, 2);
  for (uint32_t w = 0; w < 8; w++) {
    for (uint32_t l = 0; l < 32; l++)
      addr[l] = 0x8000 + 4u * (32 * w + l);
    feed(&r, 0, 0x55555555u, addr);
    feed(&r, 1, 0xaaaaaaaau, addr);
  }
  const struct cc_kernel_stats *k = finish(&r);
  for (uint32_t id = 5; id <= 6; id++) {
    const struct cc_insn_stats *s = by_id(k, id);
    assert_int_equal(s->stride_max, 8);
    assert_int_equal(s->lane_stride, 4);
    assert_int_equal(s->all_stride, 8);
    assert_int_equal(s->line_all_stride, 8); /* different lines: no union */
    assert_false(has(s, CC_SUGGEST_LAYOUT));
    assert_true(has(s, CC_SUGGEST_NONE));
  }
  stop(&r);
}

/* Fields of an 8-byte structure split between lanes: id 7 reads p[l].x = base + 8 l on
 * even lanes, id 8 p[l].y = base + 8 l + 4 on odd lanes (one warp, base 0x4000). Both
 * have lane stride 8 > 4 and one offset modulo 8 each (0 and 4), their footprints
 * overlap, but no lane reads both fields (lanes_seen 0x55555555 & 0xaaaaaaaa = 0): not
 * the AoS pattern, no layout advice. The same two loads on all 32 lanes are two fields
 * read by the same threads: layout advice naming 8 bytes and 1 other instruction. */
static void test_layout_needs_same_lanes(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = { LOAD(7, 30), LOAD(8, 31) };
  for (int same = 0; same <= 1; same++) {
    struct run r;
    uint64_t addr[32];
    start(&r, insns, 2);
    for (uint32_t f = 0; f < 2; f++) {
      for (uint32_t l = 0; l < 32; l++)
        addr[l] = 0x4000 + 8u * l + 4u * f;
      feed(&r, f, same ? 0xffffffffu : (f ? 0xaaaaaaaau : 0x55555555u), addr);
    }
    const struct cc_kernel_stats *k = finish(&r);
    for (uint32_t id = 7; id <= 8; id++) {
      const struct cc_insn_stats *s = by_id(k, id);
      assert_int_equal(s->lane_stride, 8);
      assert_int_equal(has(s, CC_SUGGEST_LAYOUT), same);
      if (same) {
        assert_int_equal(s->suggestions[0].kind, CC_SUGGEST_LAYOUT);
        assert_non_null(strstr(s->suggestions[0].text, "8 bytes (2 floats)"));
        assert_non_null(strstr(s->suggestions[0].text, "1 other instruction accesses"));
      }
    }
    stop(&r);
  }
}

/* Placement of inlined instructions. The kernel's file is k.cu (id 1: a .loc without
 * inlined_at). id 2: a header's atomicAdd (hdr.hpp:112:3 inlined at k.cu:27) -> source
 * k.cu:27, inlined_from hdr.hpp:112:3. id 3: a __device__ helper of k.cu itself (k.cu:5
 * inlined at k.cu:30) -> the innermost location in k.cu, k.cu:5, nothing inlined_from.
 * id 4: a header inlined into another header (a.hpp:7 at b.hpp:9): none in k.cu -> the
 * outermost known, b.hpp:9, inlined_from a.hpp:7. Per line: k.cu:10 (id 1), k.cu:27
 * (id 2), k.cu:5 (id 3), b.hpp:9 (id 4), ordered by file then line: b.hpp:9, k.cu:5,
 * k.cu:10, k.cu:27. */
static void test_inlined_sources(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = {
    { .id = 1, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .file = "k.cu", .line = 10, .column = 2 },
    { .id = 2, .kind = CC_ACCESS_ATOMIC, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .file = "hdr.hpp", .line = 112, .column = 3, .inlined_file = "k.cu", .inlined_line = 27 },
    { .id = 3, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .file = "k.cu", .line = 5, .column = 9, .inlined_file = "k.cu", .inlined_line = 30 },
    { .id = 4, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
      .file = "a.hpp", .line = 7, .column = 1, .inlined_file = "b.hpp", .inlined_line = 9 },
  };
  struct run r;
  start(&r, insns, 4);
  const struct cc_kernel_stats *k = finish(&r);
  const struct cc_insn_stats *s1 = by_id(k, 1), *s2 = by_id(k, 2), *s3 = by_id(k, 3);
  const struct cc_insn_stats *s4 = by_id(k, 4);
  assert_string_equal(s1->source.file, "k.cu");
  assert_int_equal(s1->source.line, 10);
  assert_null(s1->inlined_from.file);
  assert_string_equal(s2->source.file, "k.cu");
  assert_int_equal(s2->source.line, 27);
  assert_string_equal(s2->inlined_from.file, "hdr.hpp");
  assert_int_equal(s2->inlined_from.line, 112);
  assert_int_equal(s2->inlined_from.column, 3);
  assert_string_equal(s3->source.file, "k.cu");
  assert_int_equal(s3->source.line, 5);
  assert_int_equal(s3->source.column, 9);
  assert_null(s3->inlined_from.file);
  assert_string_equal(s4->source.file, "b.hpp");
  assert_int_equal(s4->source.line, 9);
  assert_string_equal(s4->inlined_from.file, "a.hpp");
  assert_int_equal(k->n_lines, 4);
  assert_string_equal(k->lines[0].file, "b.hpp");
  assert_int_equal(k->lines[1].line, 5);
  assert_int_equal(k->lines[2].line, 10);
  assert_int_equal(k->lines[3].line, 27);
  stop(&r);
}

/* The footprint at the granularity of its differences. Addresses 1000, 1064, 1016, 996
 * (origin 1000; differences 64, 16, -4: g goes 64 -> 16 -> 4, two rebuilds): the set is
 * exact: min 996, count 4, sorted 996 1000 1016 1064: gaps 4 16 48 -> 48.
 * Memory: 2^20 floats read with a 16-byte stride (a loop unrolled 4 times) span 16 MiB;
 * g = 16 makes them 2^20 consecutive units = 2048 chunks (cap 2048 x 72 bytes = 144 KiB)
 * plus a table of 4096 x 8 bytes = 32 KiB: under 200 KiB (at one bit per byte, 16 MiB /
 * 512 = 32768 chunks, 2.3 MiB of chunks alone). allStr 16. The union with the copy
 * shifted by 4 bytes: gaps 4 and 12 -> 12; with all four copies (shifts 0, 4, 8, 12): 4. */
static void test_footprint_granularity(void **state)
{
  (void)state;
  struct cc_footprint *fp = cc_analysis_fp_new(), *cp[4];
  uint64_t min = 0, max = 0;
  cc_analysis_fp_add(fp, 1000);
  cc_analysis_fp_add(fp, 1064);
  cc_analysis_fp_add(fp, 1016);
  cc_analysis_fp_add(fp, 1064);
  cc_analysis_fp_add(fp, 996);
  assert_int_equal(cc_analysis_fp_count(fp), 4);
  assert_int_equal(cc_analysis_fp_granularity(fp), 4);
  assert_true(cc_analysis_fp_min(fp, &min) && min == 996);
  assert_true(cc_analysis_fp_max(fp, &max) && max == 1064);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 48);
  cc_analysis_fp_free(fp);
  /* a granularity that is not a power of two: 0, 12, 36 (g 12), then 6 (g 6): sorted 0 6
   * 12 36, gaps 6 6 24 -> 24; 12 is not new: count 4 */
  fp = cc_analysis_fp_new();
  cc_analysis_fp_add(fp, 0);
  cc_analysis_fp_add(fp, 12);
  cc_analysis_fp_add(fp, 36);
  assert_int_equal(cc_analysis_fp_granularity(fp), 12);
  cc_analysis_fp_add(fp, 6);
  cc_analysis_fp_add(fp, 12);
  assert_int_equal(cc_analysis_fp_granularity(fp), 6);
  assert_int_equal(cc_analysis_fp_count(fp), 4);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 24);
  cc_analysis_fp_free(fp);
  /* full bitmap words (the dense case, read a word at a time) between sparse ones:
   * 4 k for k = 0..127 (g 4: units 0..127, two full words), then 4 x 200, and 4 x -9:
   * sorted -36, 0 .. 508, 800: gaps 36, 4, 292 -> 292 */
  fp = cc_analysis_fp_new();
  for (uint64_t i = 0; i < 128; i++)
    cc_analysis_fp_add(fp, 0x1000 + 4 * i);
  cc_analysis_fp_add(fp, 0x1000 + 800);
  cc_analysis_fp_add(fp, 0x1000 - 36);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 292);
  assert_int_equal(cc_analysis_fp_max_gap_union((const struct cc_footprint *const *)&fp, 1), 292);
  cc_analysis_fp_free(fp);

  for (int c = 0; c < 4; c++) {
    cp[c] = cc_analysis_fp_new();
    for (uint64_t i = 0; i < (1u << 20); i++)
      cc_analysis_fp_add(cp[c], 0x10000000ull + 16 * i + 4u * (uint64_t)c);
  }
  assert_int_equal(cc_analysis_fp_granularity(cp[0]), 16);
  assert_true(cc_analysis_fp_bytes(cp[0]) < 200u * 1024u);
  assert_int_equal(cc_analysis_fp_max_gap(cp[0]), 16);
  assert_int_equal(cc_analysis_fp_max_gap_union((const struct cc_footprint *const *)cp, 2), 12);
  assert_int_equal(cc_analysis_fp_max_gap_union((const struct cc_footprint *const *)cp, 4), 4);
  /* the union by merge (shard merge) is the same set: 2^21 addresses, gaps 4 and 12 */
  cc_analysis_fp_union(cp[0], cp[1]);
  assert_int_equal(cc_analysis_fp_count(cp[0]), 1u << 21);
  assert_int_equal(cc_analysis_fp_granularity(cp[0]), 4);
  assert_int_equal(cc_analysis_fp_max_gap(cp[0]), 12);
  for (int c = 0; c < 4; c++)
    cc_analysis_fp_free(cp[c]);
}

/* Run counters: set on the last kernel; nothing (and no crash) without kernels. */
static void test_run_stats(void **state)
{
  (void)state;
  static const struct cc_insn_info insns[] = { LOAD(1, 1) };
  struct cc_kernel_run_stats run = { .warp_insns = 3, .thread_insns = 96,
                                     .warp_accesses = 1, .seconds = 0.25 };
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  struct cc_analysis *empty = cc_analysis_new(m);
  cc_analysis_set_run_stats(empty, &run);
  assert_int_equal(empty->n_kernels, 0);
  cc_analysis_free(empty);
  cc_model_free(m);
  struct run r;
  start(&r, insns, 1);
  const struct cc_kernel_stats *k = finish(&r);
  assert_false(k->run.present);
  cc_analysis_set_run_stats(r.an, &run);
  assert_true(k->run.present);
  assert_int_equal(k->run.thread_insns, 96);
  assert_true(k->run.seconds == 0.25);
  stop(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unrolled_copies),     cmocka_unit_test(test_divergent_no_layout),
    cmocka_unit_test(test_two_arrays_one_line),
    cmocka_unit_test(test_layout_needs_same_lanes), cmocka_unit_test(test_inlined_sources),
    cmocka_unit_test(test_footprint_granularity), cmocka_unit_test(test_run_stats),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
