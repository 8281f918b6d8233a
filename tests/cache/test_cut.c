/* Cut records (src/cache/drop.c, cache.h cc_cache_drop): behind the emulator's workers,
 * a global record after the sampling switch is counted whole by a worker and goes on to
 * the model cut to its lanes that touch a sampled line (or not at all when it touches
 * none). The model given the decided stream, plus the workers' counts, must give every
 * figure of the model given every record whole (the serial run): the expected figures
 * are the serial replay's, never the cut path's own. The streams cover the forms a cut
 * meets: column stores and loads (a line per lane: bench/patterns.h's transpose and
 * loop), ranges, gathers and partial masks (gather, divergent), and a mixed stream of
 * loads, stores, atomics, 1- to 16-byte lanes (some across two lines), local and shared
 * records (tests/cache/oracle_mix.h); on the H100, on a small L1 and L2 that evict, and
 * on a modulo index where a column's lanes are all sampled or none (a cut of 32 lanes,
 * which keeps its form and its memos). A worker may decide a record before the model has
 * published the switch (it runs ahead): the harness decides `lag` records ahead of the
 * model, which sends those on whole. The model given the decided stream replays it on one
 * thread, on two (cc_cache_set_jobs: the serial replay on a helper thread, the records
 * queued) and on three (the parallel replay's L1 sides take the cut records, par.c),
 * against the same serial run of every record whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache.h"
#include "oracle_mix.h"

#define RECORDS 40000
#define LAG_MAX 4096

static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};

/* What the workers decided for a stream. */
struct fates {
  uint64_t whole, dropped, cut, cut_all; /* cut_all: cuts that kept every active lane */
};

static struct cc_cache *model(const char *spec)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  if (cc_cache_device_get("sm_90", spec, NULL, &d, &on, &err) != CC_OK || !on)
    fail_msg("%s: %s", spec, err.msg);
  return cc_cache_new(&d);
}

static void record(int s, uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  oracle_gen(s, i, x, a);
}

static uint32_t shared_wavefronts(const struct cc_warp_access *a, uint64_t i)
{
  return a->space == CC_SPACE_SHARED ? 1 + (uint32_t)(i % 3) : 0;
}

/* The serial replay of stream s: every record whole. */
static struct cc_cache *serial(const char *spec, int s, uint64_t n)
{
  struct cc_cache *c = model(spec);
  uint64_t x = 88172645463325252ull;
  struct cc_warp_access a;
  cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
  for (uint64_t i = 0; i < n; i++) {
    record(s, i, &x, &a);
    cc_cache_access(c, &a, shared_wavefronts(&a, i));
  }
  cc_cache_end_kernel(c);
  return c;
}

/* Stream s as behind one worker that decides each record `lag` records before the model
 * takes it (cc_cache_drop), keeping what it sends on in a buffer as the emulator's
 * slots do; its counts added before the kernel ends. */
static struct cc_cache *split(const char *spec, int s, uint64_t n, uint32_t lag,
                              uint32_t jobs, struct fates *f)
{
  static struct cc_warp_access buf[LAG_MAX + 1];
  static uint32_t wf[LAG_MAX + 1];
  static int sent[LAG_MAX + 1];
  struct cc_cache *c = model(spec);
  uint64_t x = 88172645463325252ull;
  struct cc_cache_drops *d;
  memset(f, 0, sizeof *f);
  cc_cache_set_jobs(c, jobs);
  cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
  d = cc_cache_drops_new(c);
  for (uint64_t i = 0; i < n + lag; i++) {
    if (i < n) { /* the worker decides record i */
      struct cc_warp_access a;
      const struct cc_warp_access *r;
      uint32_t at = (uint32_t)(i % (lag + 1));
      record(s, i, &x, &a);
      wf[at] = shared_wavefronts(&a, i);
      r = cc_cache_drop(c, &a, wf[at], d);
      sent[at] = r != NULL;
      if (r)
        buf[at] = *r;
      f->whole += r == &a;
      f->dropped += r == NULL;
      f->cut += r && r != &a;
      f->cut_all += r && r != &a && r->active == a.active;
      assert_true(r == NULL || r == &a || r->cut);
    }
    if (i >= lag && sent[(i - lag) % (lag + 1)]) /* the model takes record i - lag */
      cc_cache_access(c, &buf[(i - lag) % (lag + 1)], wf[(i - lag) % (lag + 1)]);
  }
  cc_cache_drops_add(c, d);
  cc_cache_drops_free(d);
  cc_cache_end_kernel(c);
  return c;
}

#define SAME(what, got, want)                                                              \
  do {                                                                                     \
    if ((uint64_t)(got) != (uint64_t)(want))                                               \
      fail_msg("%s, stream %d, lag %u, jobs %u, %s: %llu, the serial run %llu", spec, s,   \
               lag, jobs, what, (unsigned long long)(got), (unsigned long long)(want));   \
  } while (0)

static void same_counts(const char *spec, int s, uint32_t lag, uint32_t jobs,
                        const char *which, uint32_t slot, const struct cc_cache_counts *g,
                        const struct cc_cache_counts *w)
{
  char what[64];
#define FIELD(f)                                                                           \
  snprintf(what, sizeof what, "%s slot %u %s", which, slot, #f);                           \
  SAME(what, g->f, w->f)
  FIELD(l1_hit_sectors);
  FIELD(l2_sectors_read);
  FIELD(l2_sectors_write);
  FIELD(l2_sectors_atomic);
  FIELD(l2_hit_sectors);
  FIELD(dram_bytes_read);
  FIELD(dram_bytes_written);
  FIELD(l2_dirty_bytes_at_end);
  FIELD(l1_wavefronts);
  FIELD(waits_l1);
  FIELD(waits_l2);
  FIELD(waits_dram);
#undef FIELD
  if (g->latency_ns != w->latency_ns) /* sums of the same integer waits */
    fail_msg("%s, stream %d, lag %u, jobs %u, %s slot %u latency_ns: %.17g, the serial run "
             "%.17g", spec, s, lag, jobs, which, slot, g->latency_ns, w->latency_ns);
}

/* Stream s on spec with the workers `lag` records ahead, the model on `jobs` threads:
 * every figure the serial run's; returns what the workers decided. */
static struct fates check(const char *spec, int s, uint64_t n, uint32_t lag, uint32_t jobs)
{
  struct cc_cache *want = serial(spec, s, n);
  struct fates f;
  struct cc_cache *got = split(spec, s, n, lag, jobs, &f);
  struct cc_cache_kernel kg, kw;
  cc_cache_kernel_figures(got, &kg);
  cc_cache_kernel_figures(want, &kw);
  assert_true(kw.sampled_from != UINT64_MAX); /* it sampled: the point of the test */
  for (uint32_t i = 0; i < ORACLE_SLOTS; i++) {
    same_counts(spec, s, lag, jobs, "figures", i, cc_cache_insn(got, i), cc_cache_insn(want, i));
    same_counts(spec, s, lag, jobs, "raw sampled", i, cc_cache_insn_sampled(got, i),
                cc_cache_insn_sampled(want, i));
  }
  same_counts(spec, s, lag, jobs, "total", 0, &kg.total, &kw.total);
  SAME("l2_evictions", kg.l2_evictions, kw.l2_evictions);
  SAME("l1_wavefronts_max_sm", kg.l1_wavefronts_max_sm, kw.l1_wavefronts_max_sm);
  SAME("records", kg.records, kw.records);
  SAME("sampled_from", kg.sampled_from, kw.sampled_from);
  SAME("sms_used", kg.sms_used, kw.sms_used);
  if (kg.latency_ns_max_sm != kw.latency_ns_max_sm)
    fail_msg("%s, stream %d, jobs %u: latency_ns_max_sm %.17g, the serial run %.17g", spec,
             s, jobs, kg.latency_ns_max_sm, kw.latency_ns_max_sm);
  cc_cache_free(got);
  cc_cache_free(want);
  return f;
}

static const char *const configs[] = {
  "h100,sample-after=2000",
  "h100,l2=2M,l1=16K,dispatch=blocked,sample=4,sample-after=3000",
  "h100,sms=8,l2=512K,l2-ways=4,index=mod,sample-after=2000",
};

/* Every stream, every config, the model in step with the worker and behind it, on one,
 * two and three threads. */
static void test_cut_same_figures(void **state)
{
  struct fates all[ORACLE_STREAMS];
  (void)state;
  memset(all, 0, sizeof all);
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    for (int s = 0; s < ORACLE_STREAMS; s++)
      for (uint32_t k = 0; k < 6; k++) { /* lag 0 or LAG_MAX; jobs 1, 2 or 3 */
        uint32_t lag = k & 1 ? LAG_MAX : 0, jobs = 1 + k / 2;
        uint64_t n = oracle_records(&(struct oracle_config){"sm_90", configs[c], RECORDS}, s);
        struct fates f = check(configs[c], s, n, lag, jobs);
        all[s].whole += f.whole;
        all[s].dropped += f.dropped;
        all[s].cut += f.cut;
        all[s].cut_all += f.cut_all;
      }
  /* the streams met what the test is about: column stores and loads, gathers and the
   * mixed stream cut, records with no sampled line dropped, a cut of all 32 lanes
   * (index=mod), and records sent on whole after the switch (the lag) */
  for (int s = 0; s < ORACLE_STREAMS; s++) {
    if (s == COPY || s == DIVERGENT) /* a line or two a record: rarely cut */
      continue;
    if (!all[s].cut || !all[s].dropped)
      fail_msg("stream %d: %llu cut, %llu dropped", s, (unsigned long long)all[s].cut,
               (unsigned long long)all[s].dropped);
  }
  assert_true(all[TRANSPOSE].cut_all > 0);
  assert_true(all[ORACLE_MIX].whole > 3 * 2000);
}

/* The naive transpose, 2 x 20000 records after a switch at record 2000 on the H100 (hand
 * counts, not the model's): each store (slot 1) is 32 lanes of 4 bytes, a line each:
 * 32 sectors to L2, 8 wavefronts; each load (slot 0) is 32 consecutive floats of one
 * aligned line: 4 sectors, 1 wavefront, one request. These counts are exact whatever the
 * sampling, and a cut record whose whole-record figures the model counted again (or a
 * request counted by the worker and by the model) would exceed them. Most stores are cut
 * (1 - (15/16)^32 = 87% of 32 random lines have a sampled one; this stride's classes
 * give nearly every column one). */
static void test_cut_counted_once(void **state)
{
  struct fates f;
  struct cc_cache_kernel k;
  const struct cc_cache_counts *ld, *st;
  struct cc_cache *c;
  (void)state;
  c = split("h100,sample-after=2000", TRANSPOSE, 40000, 0, 1, &f);
  cc_cache_kernel_figures(c, &k);
  ld = cc_cache_insn(c, 0);
  st = cc_cache_insn(c, 1);
  assert_int_equal(k.sampled_from, 2000);
  assert_true(f.cut > 15000); /* of the ~19000 stores after the switch, most */
  assert_int_equal(k.records, 40000);
  assert_int_equal(st->l2_sectors_write, 20000 * 32);
  assert_int_equal(st->l1_wavefronts, 20000 * 8);
  assert_int_equal(ld->l1_wavefronts, 20000 * 1);
  assert_int_equal(ld->waits_l1 + ld->waits_l2 + ld->waits_dram, 20000);
  assert_int_equal(k.total.l1_wavefronts, 20000 * 9);
  cc_cache_free(c);
}

/* A kernel that never ends (a failed run) with a batch of the threaded replay queued and
 * one in flight (20000 records: two full batches of 8192, and a part of one), then the
 * next kernel: its figures must be those of a model that only saw the next kernel (the
 * serial run of it), whatever the first one left; and a model freed in the middle of a
 * kernel must not touch its arrays afterwards (AddressSanitizer's builds would say). */
static void test_cut_abandoned_kernel(void **state)
{
  const char *spec = "h100,sample-after=2000";
  (void)state;
  for (uint32_t jobs = 2; jobs <= 3; jobs++) {
    struct cc_cache *c = model(spec), *want = serial(spec, ORACLE_MIX, RECORDS);
    struct cc_cache_kernel kg, kw;
    uint64_t x = 88172645463325252ull;
    struct cc_warp_access a;
    int s = ORACLE_MIX;
    uint32_t lag = 0;
    cc_cache_set_jobs(c, jobs);
    cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
    for (uint64_t i = 0; i < 20000; i++) {
      record(TRANSPOSE, i, &x, &a);
      cc_cache_access(c, &a, 0);
    }
    x = 88172645463325252ull; /* the next kernel: serial()'s stream */
    cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
    for (uint64_t i = 0; i < RECORDS; i++) {
      record(s, i, &x, &a);
      cc_cache_access(c, &a, shared_wavefronts(&a, i));
    }
    cc_cache_end_kernel(c);
    cc_cache_kernel_figures(c, &kg);
    cc_cache_kernel_figures(want, &kw);
    for (uint32_t i = 0; i < ORACLE_SLOTS; i++)
      same_counts(spec, s, lag, jobs, "figures", i, cc_cache_insn(c, i), cc_cache_insn(want, i));
    same_counts(spec, s, lag, jobs, "total", 0, &kg.total, &kw.total);
    SAME("records", kg.records, kw.records);
    SAME("l2_evictions", kg.l2_evictions, kw.l2_evictions);
    cc_cache_free(want);
    /* freed mid-kernel, a batch in flight */
    cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
    x = 1;
    for (uint64_t i = 0; i < 20000; i++) {
      record(TRANSPOSE, i, &x, &a);
      cc_cache_access(c, &a, 0);
    }
    cc_cache_free(c);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cut_same_figures),
    cmocka_unit_test(test_cut_counted_once),
    cmocka_unit_test(test_cut_abandoned_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
