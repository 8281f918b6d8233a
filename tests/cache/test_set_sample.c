/* Set sampling (src/cache/sample.c): the sampled sets are replayed exactly, the scaling
 * is k times their counts, and the counts that do not depend on cache state stay exact.
 *
 * The exactness check (no figure from the code under test is taken as expected): every
 * set holds lines of one class, so replaying a stream S with sample=k must give, as raw
 * counts of the sampled lines, what the model with sample=1 gives for S cut to the lanes
 * whose line is sampled (the records keep only those lanes; a record left with none is
 * not replayed). The streams are bench/patterns.h's (4-byte lanes, aligned: no lane
 * straddles two lines, so cutting by lanes is cutting by lines), on the H100, on a small
 * L1 and L2 that evict in both levels, and on a modulo-indexed L2 of 8 SMs. And the
 * index is class-pure: the full replay of S equals, in every additive count, the replays
 * of S cut to the sampled lanes plus S cut to the others (a set holding lines of both
 * would let them evict each other, and the sums differ where the caches evict). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache.h"
#include "../../bench/patterns.h"

#define SLOTS 3 /* bench/patterns.h gesummv: 3 */
#define RECORDS 49152
#define SAMPLE_RUN_SLOTS SLOTS
#include "cache/sample_run.h"

static const char *const configs[] = {
  "h100",
  "h100,l2=2M,l1=16K,dispatch=blocked",
  "h100,sms=8,l2=512K,l2-ways=4,index=mod",
};

/* Whether a lane's line (4-byte lanes: one line) is sampled at k under the index of
 * spec (index=mod: class = line & 15). */
static int lane_sampled(const char *spec, uint64_t addr, uint32_t k)
{
  enum cc_cache_index index = strstr(spec, "index=mod") ? CC_CACHE_INDEX_MOD
                                                        : CC_CACHE_INDEX_HASH;
  return !(cc_cache_line_class(index, addr / CC_CACHE_LINE_BYTES) & (k - 1));
}

/* Replays pattern p on the model of spec; cut_k > 0: each record cut to the lanes whose
 * line is sampled at cut_k (other: to the other lanes). */
static void replay_cut(const char *spec, enum pattern p, uint32_t cut_k, int other,
                       struct run *out)
{
  static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};
  struct cc_cache_device d;
  struct cc_err err = {0};
  struct cc_warp_access a;
  uint64_t x = 88172645463325252ull, n = p == GATHER ? RECORDS / 8 : RECORDS;
  int on = 0;
  if (cc_cache_device_get("sm_90", spec, NULL, &d, &on, &err) != CC_OK)
    fail_msg("%s: %s", spec, err.msg);
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_begin_kernel(c, grid, block, SLOTS);
  for (uint64_t r = 0; r < n; r++) {
    gen(p, r, &x, &a);
    for (uint32_t l = 0; cut_k && l < CC_WARP_SIZE; l++)
      if (lane_sampled(spec, a.addr[l], cut_k) == other)
        a.active &= ~(1u << l);
    cc_cache_access(c, &a, 0);
  }
  run_finish(c, out);
}

static void replay(const char *spec, enum pattern p, uint32_t cut_k, struct run *out)
{
  replay_cut(spec, p, cut_k, 0, out);
}

#define EQ(what, got, want)                                                                \
  do {                                                                                     \
    if ((uint64_t)(got) != (uint64_t)(want))                                               \
      fail_msg("%s, %s, sample=%u, slot %u: %s %llu, expected %llu", spec,                \
               pattern_names[p], k, i, what, (unsigned long long)(got),                   \
               (unsigned long long)(want));                                                \
  } while (0)

/* The three replays of pattern p on config spec at sample k, compared. */
static void check(const char *base, enum pattern p, uint32_t k)
{
  char spec[160], full[160], where[200];
  struct run all, sampled, cut, rest;
  snprintf(spec, sizeof spec, "%s,sample=%u,sample-after=0", base, k);
  snprintf(full, sizeof full, "%s,sample=1", base);
  snprintf(where, sizeof where, "%s, %s", spec, pattern_names[p]);
  replay(full, p, 0, &all);
  replay(spec, p, 0, &sampled);
  replay(full, p, k, &cut);
  replay_cut(full, p, k, 1, &rest);
  assert_int_equal(sampled.k.sample, k);
  assert_int_equal(sampled.k.sampled_from, 0);
  assert_int_equal(all.k.sample, 1);
  for (uint32_t i = 0; i < SLOTS; i++) {
    const struct cc_cache_counts *r = &sampled.raw[i], *c = &cut.slot[i];
    const struct cc_cache_counts *s = &sampled.slot[i], *f = &all.slot[i];
    /* the sampled sets: raw counts = the cut stream's full replay */
    expect_raw_equal(where, i, r, c, 1);
    /* the index is class-pure: the sampled lines' sets hold no other line, so the full
     * replay is the sum of the replays of the two halves (additive counts) */
    EQ("split l1_hit_sectors", f->l1_hit_sectors, c->l1_hit_sectors + rest.slot[i].l1_hit_sectors);
    EQ("split l2_hit_sectors", f->l2_hit_sectors, c->l2_hit_sectors + rest.slot[i].l2_hit_sectors);
    EQ("split dram_bytes_read", f->dram_bytes_read, c->dram_bytes_read + rest.slot[i].dram_bytes_read);
    EQ("split dram_bytes_written", f->dram_bytes_written,
       c->dram_bytes_written + rest.slot[i].dram_bytes_written);
    EQ("split l2_dirty_bytes_at_end", f->l2_dirty_bytes_at_end,
       c->l2_dirty_bytes_at_end + rest.slot[i].l2_dirty_bytes_at_end);
    /* the estimates: k x the raw counts (sampling from record 0: nothing before) */
    EQ("l1_hit_sectors", s->l1_hit_sectors, k * r->l1_hit_sectors);
    EQ("l2_sectors_read", s->l2_sectors_read, k * r->l2_sectors_read);
    EQ("l2_hit_sectors", s->l2_hit_sectors, k * r->l2_hit_sectors);
    EQ("dram_bytes_read", s->dram_bytes_read, k * r->dram_bytes_read);
    EQ("dram_bytes_written", s->dram_bytes_written, k * r->dram_bytes_written);
    EQ("l2_dirty_bytes_at_end", s->l2_dirty_bytes_at_end, k * r->l2_dirty_bytes_at_end);
    /* what does not depend on cache state: the full replay's, exactly */
    expect_whole_equal(where, i, s, f);
  }
  {
    uint32_t i = SLOTS; /* the kernel's figures */
    EQ("l2_evictions", sampled.k.l2_evictions, k * cut.k.l2_evictions);
    EQ("split l2_evictions", all.k.l2_evictions, cut.k.l2_evictions + rest.k.l2_evictions);
    EQ("l1_wavefronts_max_sm", sampled.k.l1_wavefronts_max_sm, all.k.l1_wavefronts_max_sm);
    EQ("records", sampled.k.records, all.k.records);
  }
}

static void test_sampled_sets_exact(void **state)
{
  (void)state;
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    for (int p = 0; p < N_PATTERNS; p++) {
      check(configs[c], (enum pattern)p, 16);
      check(configs[c], (enum pattern)p, 4);
      check(configs[c], (enum pattern)p, 2);
    }
}

/* A kernel of at most sample_after records is not sampled: the default model's figures
 * are sample=1's, every one of them. */
static void test_small_kernel_exact(void **state)
{
  struct run dflt, full;
  (void)state;
  for (int p = 0; p < N_PATTERNS; p++) {
    replay("h100", (enum pattern)p, 0, &dflt);
    replay("h100,sample=1", (enum pattern)p, 0, &full);
    assert_int_equal(dflt.k.sample, 1);
    assert_true(dflt.k.sampled_from == UINT64_MAX);
    assert_memory_equal(dflt.slot, full.slot, sizeof dflt.slot);
    assert_int_equal(dflt.k.l2_evictions, full.k.l2_evictions);
  }
}

/* Sampling after R records: the switch is at record R, and the counts that do not depend
 * on cache state stay those of sample=1. */
static void test_switch_after(void **state)
{
  struct run s, full;
  (void)state;
  replay("h100,sample-after=1000", TRANSPOSE, 0, &s);
  replay("h100,sample=1", TRANSPOSE, 0, &full);
  assert_int_equal(s.k.sample, 16);
  assert_int_equal(s.k.sampled_from, 1000);
  for (uint32_t i = 0; i < SLOTS; i++) {
    assert_int_equal(s.slot[i].l1_wavefronts, full.slot[i].l1_wavefronts);
    assert_int_equal(s.slot[i].l2_sectors_write, full.slot[i].l2_sectors_write);
  }
}

/* Records in the general form while sampling (sample=16 from record 0; group 0 of 16
 * lines has class offset 0, so line j's class is j and line 0 alone is sampled):
 *   1. 4 lanes, addresses 1920, 1280, 1022, 136 (descending): lines 15, 10, 7 and 8
 *      (bytes 1022..1025: sectors 31 and 32), 1: 5 sectors, 2 wavefronts, no sampled line;
 *   2. 3 lanes, 4 bytes at 100, 64, 30 (descending; the last covers bytes 30..33, sectors
 *      0 and 1): line 0, sectors 0..3: 4 sectors, 1 wavefront, sampled; L1 and L2 empty,
 *      so 4 sectors read from L2 and 2 DRAM units of 64 bytes (128 bytes);
 *   3. 2 lanes at 2040 and 2048 (lines 15 and 16: two groups, the one-pass fallback):
 *      sectors 63 and 64, 1 wavefront; line 16's class is 0 xor the top 4 bits of the
 *      multiplier 0x9e37...: 9, not sampled.
 * Whole-record counts: 4 wavefronts; the sampled raw counts: 4 L2 sectors read, 128 DRAM
 * bytes; the estimates 16 x those (64, 2048). */
static void test_general_window(void **state)
{
  static const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  static const uint64_t addr[3][4] = {{1920, 1280, 1022, 136}, {100, 64, 30}, {2040, 2048}};
  static const uint32_t active[3] = {0xfu, 0x7u, 0x3u};
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  (void)state;
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample=16,sample-after=0", NULL, &d,
                                       &on, &err), CC_OK);
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_begin_kernel(c, grid, block, 1);
  for (uint32_t r = 0; r < 3; r++) {
    struct cc_warp_access a;
    memset(&a, 0, sizeof a);
    a.kind = CC_ACCESS_LOAD;
    a.space = CC_SPACE_GLOBAL;
    a.size_bytes = 4;
    a.active = active[r];
    memcpy(a.addr, addr[r], sizeof addr[r]);
    cc_cache_access(c, &a, 0);
  }
  cc_cache_end_kernel(c);
  assert_int_equal(cc_cache_insn(c, 0)->l1_wavefronts, 4);
  assert_int_equal(cc_cache_insn_sampled(c, 0)->l2_sectors_read, 4);
  assert_int_equal(cc_cache_insn_sampled(c, 0)->dram_bytes_read, 128);
  assert_int_equal(cc_cache_insn(c, 0)->l2_sectors_read, 64);
  assert_int_equal(cc_cache_insn(c, 0)->dram_bytes_read, 2048);
  cc_cache_free(c);
}

/* Every aligned group of 16 lines holds the 16 classes once (a permutation); group 0's
 * hash is 0 (0 x the multiplier), so its classes are the line numbers themselves. */
static void test_line_class(void **state)
{
  (void)state;
  for (uint64_t l = 0; l < 16; l++)
    assert_int_equal(cc_cache_line_class(CC_CACHE_INDEX_HASH, l), l);
  for (uint64_t g = 1; g < 100000; g += 977) {
    uint32_t seen = 0;
    for (uint64_t l = 0; l < 16; l++)
      seen |= 1u << cc_cache_line_class(CC_CACHE_INDEX_HASH, g * 16 + l);
    assert_int_equal(seen, 0xffffu);
  }
}

/* The classes per level (cc_cache_level_classes), and sample values the levels do not
 * allow: an error naming the largest allowed. */
static void test_sample_limits(void **state)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  (void)state;
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_HASH, 25600), 16);
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_HASH, 312), 16); /* 100 KB shared */
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_HASH, 2), 2);
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_MOD, 312), 8);  /* 312 = 8 x 39 */
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_MOD, 1024), 16);
  assert_int_equal(cc_cache_level_classes(CC_CACHE_INDEX_FOLD, 25600), 1);
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample=16", NULL, &d, &on, &err), CC_OK);
  assert_int_equal(d.sample, 16);
  assert_int_equal(cc_cache_device_get("sm_90", "h100,index=fold,sample=2", NULL, &d, &on,
                                       &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "at most sample=1"));
  /* l1=1K: 8 lines, 4 ways, 2 sets */
  assert_int_equal(cc_cache_device_get("sm_90", "h100,l1=1K,sample=16", NULL, &d, &on, &err),
                   CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "at most sample=2"));
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample=3", NULL, &d, &on, &err),
                   CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "1, 2, 4, 8 or 16"));
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample-after=x", NULL, &d, &on, &err),
                   CC_ERR_USAGE);
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample-after=0", NULL, &d, &on, &err),
                   CC_OK);
  assert_int_equal(d.sample_after, 0);
}

/* The parallel replay samples as the serial one: every figure equal on 3 threads. */
static void test_jobs_same(void **state)
{
  static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  struct cc_cache_counts serial[SLOTS];
  struct cc_cache_kernel ks, kp;
  (void)state;
  assert_int_equal(cc_cache_device_get("sm_90", "h100,sample-after=5000", NULL, &d, &on, &err),
                   CC_OK);
  struct cc_cache *c = cc_cache_new(&d);
  for (uint32_t jobs = 1; jobs <= 3; jobs += 2) {
    uint64_t x = 88172645463325252ull;
    struct cc_warp_access a;
    cc_cache_set_jobs(c, jobs);
    cc_cache_begin_kernel(c, grid, block, SLOTS);
    for (uint64_t r = 0; r < 30000; r++) {
      gen(TRANSPOSE, r, &x, &a);
      cc_cache_access(c, &a, 0);
    }
    cc_cache_end_kernel(c);
    cc_cache_kernel_figures(c, jobs == 1 ? &ks : &kp);
    for (uint32_t i = 0; i < SLOTS; i++) {
      if (jobs == 1)
        serial[i] = *cc_cache_insn(c, i);
      else
        assert_memory_equal(&serial[i], cc_cache_insn(c, i), sizeof serial[i]);
    }
  }
  cc_cache_free(c);
  assert_int_equal(ks.sample, 16);
  assert_int_equal(ks.l2_evictions, kp.l2_evictions);
  assert_int_equal(ks.l1_wavefronts_max_sm, kp.l1_wavefronts_max_sm);
  assert_true(ks.latency_ns_max_sm == kp.latency_ns_max_sm);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_line_class),
    cmocka_unit_test(test_general_window),
    cmocka_unit_test(test_sample_limits),
    cmocka_unit_test(test_sampled_sets_exact),
    cmocka_unit_test(test_small_kernel_exact),
    cmocka_unit_test(test_switch_after),
    cmocka_unit_test(test_jobs_same),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
