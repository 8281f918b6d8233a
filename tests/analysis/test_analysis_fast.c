/* The per-record fast path of the analysis (cc_analysis_accumulate: sorting without a
 * library call, the lane stride with one division, footprint runs set a word at a time,
 * a per-lane chunk cache) against the reference path (cc_analysis_accumulate_ref: lane
 * by lane), on random and adversarial record streams (tests/model/fastpath_gen.h:
 * affine with negative and zero strides, wrap-around at the top of memory, partial
 * masks, straddling sectors, 8- and 16-byte lanes, global, shared and local), under
 * models with W = 32 and W = 16: every field of the two instruction stats must be equal,
 * the footprints included (count, granularity, min, max, largest gap). Hand-derived
 * checks of the footprint's run path follow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"
#include "model/fastpath_gen.h"

static struct cc_model *get(const char *arch)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get(arch, NULL, &m, &err), CC_OK);
  return m;
}

static void same_fp(const struct cc_footprint *f, const struct cc_footprint *r)
{
  uint64_t a = 0, b = 0;
  assert_int_equal(cc_analysis_fp_count(f), cc_analysis_fp_count(r));
  assert_int_equal(cc_analysis_fp_granularity(f), cc_analysis_fp_granularity(r));
  assert_int_equal(cc_analysis_fp_min(f, &a), cc_analysis_fp_min(r, &b));
  assert_int_equal(a, b);
  assert_int_equal(cc_analysis_fp_max(f, &a), cc_analysis_fp_max(r, &b));
  assert_int_equal(a, b);
  assert_int_equal(cc_analysis_fp_max_gap(f), cc_analysis_fp_max_gap(r));
}

static void same_stats(const struct cc_insn_stats *f, const struct cc_insn_stats *r)
{
  assert_int_equal(f->executions, r->executions);
  assert_int_equal(f->thread_accesses, r->thread_accesses);
  assert_int_equal(f->bytes_requested, r->bytes_requested);
  assert_int_equal(f->requests, r->requests);
  assert_int_equal(f->transactions, r->transactions);
  assert_int_equal(f->bytes_transferred, r->bytes_transferred);
  assert_int_equal(f->sectors, r->sectors);
  assert_int_equal(f->ideal_sectors, r->ideal_sectors);
  assert_int_equal(f->lines, r->lines);
  assert_memory_equal(f->sector_hist, r->sector_hist, sizeof f->sector_hist);
  assert_int_equal(f->ways_max, r->ways_max);
  assert_int_equal(f->wavefronts, r->wavefronts);
  assert_int_equal(f->ideal_wavefronts, r->ideal_wavefronts);
  assert_int_equal(f->conflict_requests, r->conflict_requests);
  assert_int_equal(f->stride_min, r->stride_min);
  assert_int_equal(f->stride_max, r->stride_max);
  assert_true(f->stride_sum == r->stride_sum);
  assert_int_equal(f->stride_count, r->stride_count);
  assert_int_equal(f->uncoalesced_requests, r->uncoalesced_requests);
  assert_int_equal(f->uncoalesced_thread_accesses, r->uncoalesced_thread_accesses);
  assert_int_equal(f->lane_stride, r->lane_stride);
  assert_int_equal(f->lanes_seen, r->lanes_seen);
  same_fp(f->footprint, r->footprint);
}

/* Streams of `len` records of one instruction; each stream draws one space, and either
 * independent records or the affine walk of a loop (base advancing by a fixed step, so
 * that the footprint grows in runs across chunks and its granularity shrinks). */
static void run_streams(const char *arch, uint64_t seed, int streams)
{
  struct cc_model *m = get(arch);
  uint32_t w = cc_model_group_lanes(m);
  struct cc_insn_info info = { .id = 7, .size_bytes = 4, .text = "ld.global.f32" };
  uint64_t st = seed;
  for (int s = 0; s < streams; s++) {
    struct cc_insn_stats f, r;
    enum cc_space sp = (enum cc_space)(gen_next(&st) % 3);
    int len = 1 + (int)(gen_next(&st) % 64), walk = gen_next(&st) % 2;
    struct cc_warp_access a = gen_record(&st, sp);
    uint64_t step = gen_next(&st) % 3 ? 128 : gen_next(&st) % 5000;
    cc_analysis_insn_init(&f, &info, 0);
    cc_analysis_insn_init(&r, &info, 0);
    for (int i = 0; i < len; i++) {
      if (a.size_bytes == 0)
        a.size_bytes = 4; /* the sink refuses size 0 before accumulating */
      cc_analysis_accumulate(&f, m, w, &a);
      cc_analysis_accumulate_ref(&r, m, w, &a);
      same_stats(&f, &r);
      if (walk) {
        for (int l = 0; l < CC_WARP_SIZE; l++)
          a.addr[l] += step;
        if (gen_next(&st) % 4 == 0)
          a.active = gen_mask(&st);
      } else {
        a = gen_record(&st, sp);
      }
    }
    free((char *)f.info.text);
    free((char *)r.info.text);
    cc_analysis_fp_free(f.footprint);
    cc_analysis_fp_free(r.footprint);
  }
  cc_model_free(m);
}

static void test_random_sm90(void **state)
{
  (void)state;
  run_streams("sm_90", 11, 4000);
}

static void test_random_cc12(void **state) /* W = 16: two groups per record */
{
  (void)state;
  run_streams("cc1.2", 12, 2000);
}

static void test_random_cc20(void **state)
{
  (void)state;
  run_streams("cc2.0", 13, 2000);
}

/* Footprint runs, hand-derived. Origin 0x1000, then 0x1004: g = 4. A chunk holds 512
 * units = 2048 bytes. Lanes l = 0..31 at 0x1000 + 4 x (500 + l): units 500..531, which
 * cross from chunk 0 (units 0..511) into chunk 1 -> 32 new addresses, count 2 + 32 = 34
 * (units 0, 1 and 500..531); largest gap 4 x (500 - 1) = 1996 bytes. Adding the same
 * run again changes nothing. A run with lanes 3 and 4 only, at units 2 and 3
 * (0x1008, 0x100c) adds 2 -> 36; the largest gap is now from unit 3 to 500:
 * 4 x 497 = 1988 bytes. */
static void test_fp_run(void **state)
{
  (void)state;
  struct cc_footprint *fp = cc_analysis_fp_new();
  uint64_t addr[32];
  cc_analysis_fp_add(fp, 0x1000);
  cc_analysis_fp_add(fp, 0x1004);
  for (uint64_t l = 0; l < 32; l++)
    addr[l] = 0x1000 + 4 * (500 + l);
  cc_analysis_fp_add_lanes(fp, addr, 0xffffffffu);
  assert_int_equal(cc_analysis_fp_count(fp), 34);
  assert_int_equal(cc_analysis_fp_granularity(fp), 4);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 1996);
  cc_analysis_fp_add_lanes(fp, addr, 0xffffffffu);
  assert_int_equal(cc_analysis_fp_count(fp), 34);
  addr[3] = 0x1008;
  addr[4] = 0x100c;
  cc_analysis_fp_add_lanes(fp, addr, 0x18u);
  assert_int_equal(cc_analysis_fp_count(fp), 36);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 1988);
  cc_analysis_fp_free(fp);
}

/* A run whose addresses would pass the top of memory is not a run: origin
 * 2^64 - 8, then 2^64 - 4 (g = 4); lanes 0..31 at 2^64 - 8 + 4l wrap after lane 1 to
 * 0, 4, ..., 116: 32 distinct addresses, the two above already present -> count 32.
 * Sorted: 0..116 (30 addresses, gaps 4), then 2^64 - 8, 2^64 - 4: largest gap
 * 2^64 - 8 - 116. */
static void test_fp_run_wrap(void **state)
{
  (void)state;
  struct cc_footprint *fp = cc_analysis_fp_new();
  uint64_t addr[32], top = UINT64_MAX - 7;
  cc_analysis_fp_add(fp, top);
  cc_analysis_fp_add(fp, top + 4);
  for (uint64_t l = 0; l < 32; l++)
    addr[l] = top + 4 * l;
  cc_analysis_fp_add_lanes(fp, addr, 0xffffffffu);
  assert_int_equal(cc_analysis_fp_count(fp), 32);
  assert_int_equal(cc_analysis_fp_max_gap(fp), top - 116);
  cc_analysis_fp_free(fp);
}

/* A column (lanes 16384 bytes apart, the naive transpose's store) walked by 8 warps
 * (base + 4 per warp): each lane keeps its chunk (its cache), 8 x 32 = 256 distinct
 * addresses; units (g = 4): lane l, warp w -> 4096 l + w, so the largest gap is between
 * warp 7 of lane l and warp 0 of lane l + 1: 4 x (4096 - 7) = 16356 bytes. */
static void test_fp_column(void **state)
{
  (void)state;
  struct cc_footprint *fp = cc_analysis_fp_new();
  uint64_t addr[32];
  for (uint64_t w = 0; w < 8; w++) {
    for (uint64_t l = 0; l < 32; l++)
      addr[l] = 0x10000 + 16384 * l + 4 * w;
    cc_analysis_fp_add_lanes(fp, addr, 0xffffffffu);
  }
  assert_int_equal(cc_analysis_fp_count(fp), 256);
  assert_int_equal(cc_analysis_fp_granularity(fp), 4);
  assert_int_equal(cc_analysis_fp_max_gap(fp), 16356);
  cc_analysis_fp_free(fp);
}

/* Algorithm 1's sum per group (analysis.c: a group's differences sum to its largest
 * minus its smallest address, added once): lanes l at 8l, size 4, W = 32: 31 strides of
 * 8 -> sum 248, count 31, min = max = 8 > 4: uncoalesced, 32 thread accesses. The same
 * lanes in reverse (8 x (31 - l)) give the same figures. Under cc1.2 (W = 16): two
 * groups, 15 strides each -> count 30, sum 2 x 120 = 240. */
static void test_group_sum(void **state)
{
  (void)state;
  struct cc_model *m32 = get("sm_90"), *m16 = get("cc1.2");
  struct cc_insn_info info = { .id = 1, .size_bytes = 4 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  for (int pass = 0; pass < 3; pass++) {
    struct cc_insn_stats s;
    for (uint64_t l = 0; l < 32; l++)
      a.addr[l] = pass == 1 ? 8 * (31 - l) : 8 * l;
    cc_analysis_insn_init(&s, &info, 0);
    cc_analysis_accumulate(&s, pass == 2 ? m16 : m32, pass == 2 ? 16 : 32, &a);
    assert_int_equal(s.stride_count, pass == 2 ? 30 : 31);
    assert_true(s.stride_sum == (pass == 2 ? 240.0 : 248.0));
    assert_int_equal(s.stride_min, 8);
    assert_int_equal(s.stride_max, 8);
    assert_int_equal(s.uncoalesced_thread_accesses, 32);
    assert_int_equal(s.lane_stride, pass == 1 ? CC_LANE_STRIDE_MIXED : 8);
    cc_analysis_fp_free(s.footprint);
  }
  cc_model_free(m32);
  cc_model_free(m16);
}

/* Lane stride with an overflowing product: s = 2^63 + 1; lanes 0, 1, 3 at 0, s and
 * 3s mod 2^64 = 2^63 + 3. Lanes 0-1 give the candidate s; lanes 1-3 differ by 2 over 2
 * lanes, i.e. 1 per lane, not s (2 x s mod 2^64 = 2 only because the product wraps):
 * MIXED, in both paths. */
static void test_lane_stride_overflow(void **state)
{
  (void)state;
  struct cc_model *m = get("sm_90");
  struct cc_insn_info info = { .id = 1, .size_bytes = 4 };
  struct cc_insn_stats f, r;
  struct cc_warp_access a;
  uint64_t s = (1ull << 63) + 1;
  memset(&a, 0, sizeof a);
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = 0xbu; /* lanes 0, 1, 3 */
  a.addr[0] = 0;
  a.addr[1] = s;
  a.addr[3] = s + 2 * s;
  cc_analysis_insn_init(&f, &info, 0);
  cc_analysis_insn_init(&r, &info, 0);
  cc_analysis_accumulate(&f, m, 32, &a);
  cc_analysis_accumulate_ref(&r, m, 32, &a);
  assert_int_equal(r.lane_stride, CC_LANE_STRIDE_MIXED);
  assert_int_equal(f.lane_stride, CC_LANE_STRIDE_MIXED);
  cc_analysis_fp_free(f.footprint);
  cc_analysis_fp_free(r.footprint);
  cc_model_free(m);
}

/* allStr over a union (the source-level reference of unrolled copies): the word-level
 * sweep (cc_analysis_fp_max_gap_union) against the bit-level one (..._ref) and against
 * the footprint built by cc_analysis_fp_union followed by cc_analysis_fp_max_gap, on
 * random members: granularities G or 2G / 4G, origins apart by multiples of G, runs of
 * up to 300 units anywhere in 2^18 units (so that runs cross the sweep's 2^16-unit
 * windows at every bit offset), and scattered points. */
static void test_union_random(void **state)
{
  (void)state;
  uint64_t st = 21;
  for (int round = 0; round < 300; round++) {
    struct cc_footprint *m[5], *all = cc_analysis_fp_new();
    static const uint64_t gs[] = { 1, 4, 16 };
    uint64_t G = gs[gen_next(&st) % 3], base = 0x10000000ull + gen_next(&st) % 4096 * G;
    size_t n = 1 + gen_next(&st) % 5;
    for (size_t i = 0; i < n; i++) {
      uint64_t g = G << (gen_next(&st) % 4 == 0 ? 1 + gen_next(&st) % 2 : 0);
      uint64_t origin = base + G * (gen_next(&st) % 64);
      int runs = (int)(gen_next(&st) % 6);
      m[i] = cc_analysis_fp_new();
      cc_analysis_fp_add(m[i], origin);
      for (int r = 0; r < runs; r++) {
        uint64_t start = origin + g * (gen_next(&st) % (1u << 18)), len = 1 + gen_next(&st) % 300;
        for (uint64_t k = 0; k < len; k++)
          cc_analysis_fp_add(m[i], start + k * g);
      }
      for (int p = 0; p < 3; p++)
        if (gen_next(&st) % 2)
          cc_analysis_fp_add(m[i], origin + g * (gen_next(&st) % (1u << 20)));
      cc_analysis_fp_union(all, m[i]);
    }
    {
      const struct cc_footprint *const *fps = (const struct cc_footprint *const *)m;
      uint64_t want = cc_analysis_fp_max_gap(all);
      assert_int_equal(cc_analysis_fp_max_gap_union_ref(fps, n), want);
      assert_int_equal(cc_analysis_fp_max_gap_union(fps, n), want);
    }
    for (size_t i = 0; i < n; i++)
      cc_analysis_fp_free(m[i]);
    cc_analysis_fp_free(all);
  }
}

/* An unrolled loop's union (gemv_rows' four loads of a source line: load i reads
 * elements 4k + i, granularity 4G): member i holds base + (4k + i) G for k < K, K up to
 * 2^17, so that every member's units cross the sweep's 2^16-unit windows; members with a
 * granularity 4 times the union's take the sweep's unit-by-word path (drop_units). Hand
 * derivation: the union is every unit of [0, 4K) -> largest gap G; with member 2's unit
 * k0 left out, units 4 k0 + 1 and 4 k0 + 3 are neighbours -> 2G; with member 3 stopping
 * at k1 (its units from k1 on left out), units 4k + 2 and 4k + 4 are neighbours for
 * k1 <= k < K - 1 -> 2G as well if k1 < K - 1 (k1 = K - 1 drops the last unit only);
 * both, with k1 <= k0 < K - 1: units 4 k0 + 1 and 4 k0 + 4 are neighbours -> 3G. */
static void test_union_interleaved(void **state)
{
  (void)state;
  uint64_t st = 23;
  for (int round = 0; round < 40; round++) {
    struct cc_footprint *m[4];
    uint64_t G = gen_next(&st) % 2 ? 4 : 1, base = 0x30000000ull + 64 * G * (gen_next(&st) % 64);
    uint64_t K = 2 + gen_next(&st) % (1u << 17), k0 = 1 + gen_next(&st) % (K - 1);
    int hole = (int)(gen_next(&st) % 2), tail = (int)(gen_next(&st) % 2);
    uint64_t k1 = 1 + gen_next(&st) % (K - 1);
    for (uint64_t i = 0; i < 4; i++) {
      m[i] = cc_analysis_fp_new();
      for (uint64_t k = 0; k < K; k++) {
        if ((hole && i == 2 && k == k0) || (tail && i == 3 && k >= k1))
          continue;
        cc_analysis_fp_add(m[i], base + (4 * k + i) * G);
      }
    }
    {
      const struct cc_footprint *const *fps = (const struct cc_footprint *const *)m;
      int gap2 = hole || (tail && k1 < K - 1), gap3 = hole && tail && k1 <= k0 && k0 < K - 1;
      uint64_t want = gap3 ? 3 * G : gap2 ? 2 * G : G;
      assert_int_equal(cc_analysis_fp_max_gap_union(fps, 4), want);
      assert_int_equal(cc_analysis_fp_max_gap_union_ref(fps, 4), want);
    }
    for (size_t i = 0; i < 4; i++)
      cc_analysis_fp_free(m[i]);
  }
}

/* Dense unions, where every address counts: n members of granularity G whose runs of
 * units cover [0, L) together (neighbours overlap by up to 100 units; L up to 2^18, so
 * the runs cross the sweep's windows), their origins at their first unit. Hand
 * derivation: the union is every unit of [0, L) -> largest gap G; with a hole of h units
 * cut out of every member, the largest gap is (h + 1) G. One missing or extra address
 * anywhere changes it. */
static void test_union_dense(void **state)
{
  (void)state;
  uint64_t st = 22;
  for (int round = 0; round < 120; round++) {
    struct cc_footprint *m[4];
    static const uint64_t gs[] = { 1, 4, 16 };
    uint64_t G = gs[gen_next(&st) % 3], base = 0x20000000ull + 64 * G * (gen_next(&st) % 64);
    uint64_t L = 1000 + gen_next(&st) % (1u << 18), h0 = 0, h = 0, addr[32];
    size_t n = 1 + gen_next(&st) % 4;
    if (gen_next(&st) % 2) { /* a hole strictly inside */
      h = 1 + gen_next(&st) % 200;
      h0 = 1 + gen_next(&st) % (L - h - 1);
    }
    for (size_t i = 0; i < n; i++) {
      uint64_t lo = i * L / n, hi = (i + 1) * L / n, back = gen_next(&st) % 100;
      lo = lo > back ? lo - back : 0;
      m[i] = cc_analysis_fp_new();
      for (uint64_t u = lo; u < hi; u += 32) {
        uint32_t mask = 0;
        for (uint32_t l = 0; l < 32 && u + l < hi; l++) {
          addr[l] = base + (u + l) * G;
          if (u + l < h0 || u + l >= h0 + h)
            mask |= 1u << l;
        }
        if (u == lo && mask) /* the origin first: the member's first unit */
          cc_analysis_fp_add(m[i], addr[__builtin_ctz(mask)]);
        cc_analysis_fp_add_lanes(m[i], addr, mask);
      }
    }
    {
      const struct cc_footprint *const *fps = (const struct cc_footprint *const *)m;
      uint64_t want = h ? (h + 1) * G : G;
      assert_int_equal(cc_analysis_fp_max_gap_union_ref(fps, n), want);
      assert_int_equal(cc_analysis_fp_max_gap_union(fps, n), want);
    }
    for (size_t i = 0; i < n; i++)
      cc_analysis_fp_free(m[i]);
  }
}

/* The union of two footprints a word at a time (one granularity, origins a multiple of
 * it apart: every bit offset between them) and address by address (other granularities
 * or origins), against the footprint of all their addresses added one by one: the same
 * count, extremes and largest gap, and the union of the two results adds nothing. */
static void test_union_words(void **state)
{
  (void)state;
  uint64_t st = 23;
  for (int round = 0; round < 400; round++) {
    static const uint64_t gs[] = { 1, 4, 8 };
    uint64_t G = gs[gen_next(&st) % 3], oa = 0x40000000ull + G * (gen_next(&st) % 5000);
    uint64_t ob = gen_next(&st) % 4 ? oa + G * (gen_next(&st) % 3000) - G * 1500
                                    : oa + 1 + gen_next(&st) % 7; /* off the grid */
    uint64_t gb = gen_next(&st) % 4 ? G : 2 * G, lo, hi, lo2, hi2;
    struct cc_footprint *a = cc_analysis_fp_new(), *b = cc_analysis_fp_new();
    struct cc_footprint *ref = cc_analysis_fp_new(), *both = cc_analysis_fp_new();
    cc_analysis_fp_add(a, oa);
    cc_analysis_fp_add(b, ob);
    cc_analysis_fp_add(ref, oa);
    cc_analysis_fp_add(ref, ob);
    for (int k = 0; k < 200; k++) {
      uint64_t x = oa + G * (gen_next(&st) % 4000), y = ob + gb * (gen_next(&st) % 4000);
      if (gen_next(&st) % 3) {
        cc_analysis_fp_add(a, x);
        cc_analysis_fp_add(ref, x);
      }
      cc_analysis_fp_add(b, y);
      cc_analysis_fp_add(ref, y);
    }
    cc_analysis_fp_union(a, b);
    assert_int_equal(cc_analysis_fp_count(a), cc_analysis_fp_count(ref));
    assert_int_equal(cc_analysis_fp_granularity(a), cc_analysis_fp_granularity(ref));
    assert_int_equal(cc_analysis_fp_max_gap(a), cc_analysis_fp_max_gap(ref));
    assert_true(cc_analysis_fp_min(a, &lo) && cc_analysis_fp_min(ref, &lo2));
    assert_true(cc_analysis_fp_max(a, &hi) && cc_analysis_fp_max(ref, &hi2));
    assert_int_equal(lo, lo2);
    assert_int_equal(hi, hi2);
    cc_analysis_fp_union(both, ref);
    cc_analysis_fp_union(both, a);
    assert_int_equal(cc_analysis_fp_count(both), cc_analysis_fp_count(ref));
    cc_analysis_fp_free(a);
    cc_analysis_fp_free(b);
    cc_analysis_fp_free(ref);
    cc_analysis_fp_free(both);
  }
}

/* The addresses of a set in a plain array, for checks that do not use footprint.c: sorted
 * and without repeats by sorted_unique. */
struct addrs {
  uint64_t *a;
  size_t n, cap;
};

static void addrs_push(struct addrs *s, uint64_t addr)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->a = realloc(s->a, s->cap * sizeof *s->a);
    assert_non_null(s->a);
  }
  s->a[s->n++] = addr;
}

static void addrs_add(struct addrs *s, struct cc_footprint *fp, uint64_t addr)
{
  addrs_push(s, addr);
  cc_analysis_fp_add(fp, addr);
}

static int cmp_u64(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* fp holds exactly the distinct addresses of s: their count, least, greatest and largest
 * gap between neighbours, from the sorted array. */
static void holds_exactly(const struct cc_footprint *fp, struct addrs *s)
{
  size_t n = 0;
  uint64_t gap = 0, lo = 0, hi = 0;
  qsort(s->a, s->n, sizeof *s->a, cmp_u64);
  for (size_t i = 0; i < s->n; i++)
    if (i == 0 || s->a[i] != s->a[n - 1]) {
      if (n && s->a[i] - s->a[n - 1] > gap)
        gap = s->a[i] - s->a[n - 1];
      s->a[n++] = s->a[i];
    }
  s->n = n;
  assert_int_equal(cc_analysis_fp_count(fp), n);
  assert_int_equal(cc_analysis_fp_max_gap(fp), gap);
  assert_true(cc_analysis_fp_min(fp, &lo) && cc_analysis_fp_max(fp, &hi));
  assert_int_equal(lo, s->a[0]);
  assert_int_equal(hi, s->a[n - 1]);
}

/* Adds to fp (and s) a set of about `chunks` chunks of 512 units of granularity g from
 * origin: runs of 1 to 700 units and single units anywhere in 2^20 units either side. */
static void spread(struct cc_footprint *fp, struct addrs *s, uint64_t origin, uint64_t g,
                   int chunks, uint64_t *st)
{
  addrs_add(s, fp, origin);
  for (int i = 0; i < chunks; i++) {
    uint64_t at = origin - g * (1u << 20) + g * (gen_next(st) % (1u << 21));
    uint64_t len = gen_next(st) % 3 == 0 ? 1 + gen_next(st) % 700 : 1;
    for (uint64_t k = 0; k < len; k++)
      addrs_add(s, fp, at + k * g);
  }
}

/* Unions of sets of hundreds of chunks each, about the same size: the merge of the two
 * chunk lists in key order (footprint.c union_merge, from 256 chunks), where each chunk of
 * one set lands on two of the other unless the origins are 512 units apart (offsets of
 * every residue, either sign), the sets overlapping or not. Checked against the sorted
 * array of every address added (count, least, greatest, largest gap): after the union,
 * after more addresses are added to it (the table it dropped, built again), and after a
 * second union into the merged set (sorted) of a third (not). */
static void test_union_merge(void **state)
{
  (void)state;
  uint64_t st = 23;
  for (int round = 0; round < 60; round++) {
    static const uint64_t gs[] = {1, 4, 16};
    uint64_t g = gs[gen_next(&st) % 3], base = (1ull << 40) + g * (gen_next(&st) % 4096);
    uint64_t ob = base + (gen_next(&st) % 2 ? 1 : -1) * g * (gen_next(&st) % (1u << 21));
    struct cc_footprint *a = cc_analysis_fp_new(), *b = cc_analysis_fp_new(),
                        *c = cc_analysis_fp_new();
    struct addrs s = {0}, t = {0};
    int na = 300 + (int)(gen_next(&st) % 400), nb = na / 2 + (int)(gen_next(&st) % na);
    if (round % 4 == 0) /* 512-unit aligned origins: no straddle */
      ob = base + 512 * g * (gen_next(&st) % 64);
    spread(a, &s, base, g, na, &st);
    spread(b, &s, ob, g, nb, &st);
    cc_analysis_fp_union(a, b);
    holds_exactly(a, &s);
    for (int i = 0; i < 200; i++) /* new chunks and old ones, after the merge */
      addrs_add(&s, a, base + g * (gen_next(&st) % (1u << 22)));
    holds_exactly(a, &s);
    spread(c, &t, base + g * (gen_next(&st) % 100000), g, na, &st);
    for (size_t i = 0; i < t.n; i++)
      addrs_push(&s, t.a[i]);
    cc_analysis_fp_union(a, c);
    holds_exactly(a, &s);
    cc_analysis_fp_free(a);
    cc_analysis_fp_free(b);
    cc_analysis_fp_free(c);
    free(s.a);
    free(t.a);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_sm90),  cmocka_unit_test(test_random_cc12),
    cmocka_unit_test(test_random_cc20),  cmocka_unit_test(test_fp_run),
    cmocka_unit_test(test_fp_run_wrap),  cmocka_unit_test(test_fp_column),
    cmocka_unit_test(test_group_sum),    cmocka_unit_test(test_lane_stride_overflow),
    cmocka_unit_test(test_union_random), cmocka_unit_test(test_union_dense),
    cmocka_unit_test(test_union_interleaved),
    cmocka_unit_test(test_union_words),  cmocka_unit_test(test_union_merge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
