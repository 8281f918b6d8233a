/* Cut records (src/cache/drop.c, cache.h cc_cache_drop): behind the emulator's workers,
 * a global record after the sampling switch is counted whole by a worker and goes on to
 * the model cut to its lanes that touch a sampled line (or not at all when it touches
 * none). The model given the decided stream, plus the workers' counts, must give every
 * figure of the model given every record whole (the serial run): the expected figures
 * are the serial replay's, never the cut path's own. The streams cover the forms a cut
 * meets: column stores and loads (a line per lane: bench/patterns.h's transpose and
 * loop; its padded transpose's columns of rows of 4097 floats, 4 bytes further a warp:
 * the workers' lanes memo, cache_impl.h lanes_memo_get; its gemv's column with a
 * broadcast between, 256 trips a warp: the two L1 memos and their advance), ranges,
 * gathers and partial
 * masks (gather, divergent), and a mixed stream of loads, stores, atomics, 1- to 16-byte lanes (some across two lines), local and shared
 * records (tests/cache/oracle_mix.h); on the H100, on a small L1 and L2 that evict, and
 * on a modulo index where a column's lanes are all sampled or none (a cut of 32 lanes,
 * which keeps its form and its memos). A worker may decide a record before the model has
 * published the switch (it runs ahead): the harness decides `lag` records ahead of the
 * model, which sends those on whole. The model given the decided stream replays it on one
 * thread, on two (cc_cache_set_jobs: the serial replay on a helper thread, the records
 * queued) and on three (the parallel replay's L1 sides take the cut records, par.c),
 * against the same serial run of every record whole. A test stream of its own
 * (accumulate_gen) stores the same column again and again with loads between, as
 * nvcc's covariance does: the worker holds such a store back and folds its repeats into
 * it (drop.c), releasing it where a record sent on touches its sets, where another
 * store comes, and at the end of a run of consecutive CTAs. With `foresee`, the harness
 * also tells the model, at each new CTA, how many of the records it passed on whole count
 * towards the switch (cc_cache_foresee, as src/emu/par.c does at the end of its chunks):
 * the worker then cuts the records of the CTAs past the switch while the model, LAG_MAX
 * records behind, still replays those before it. */
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
  uint64_t whole, dropped, cut; /* records sent on whole, loads and atomics decided to
                                   send nothing, cut records sent on */
  uint64_t cut_all;             /* cut records of 32 lanes */
  uint64_t folded;              /* stores folded into a held one */
  uint64_t cut_slot1;           /* cut records of slot 1 sent on (accumulate: symmat) */
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

/* The accumulating stream (after the oracle's): PolyBench's covariance as nvcc builds
 * it, the sum stored at every step. CTAs of two warps, each run to its end before the
 * next (as the emulator runs a warp until it exits or waits at a barrier); warp w of CTA
 * c has columns j1 = 64c + 32w + lane; for each j2 (40 of them) and i (12 steps) it loads
 * data[i][j1] (slot 0: 32 floats, not aligned) and data[i][j2] (slot 2), then stores
 * symmat[j1][j2] (slot 1, every 3rd step slot 3, as copies of an unrolled loop: lanes
 * 4104 bytes apart, a line each, not a multiple of a sector) and y[j1] (slot 3: a load,
 * but for every 4th j2 a store
 * between the symmat ones, which then fold into none: a range, or at every 8th j2 lanes
 * 128 KiB apart, in one set of the index=mod config: a store not held). Every 5th
 * step's slot 2 load reads a line 128 KiB past the symmat column's (the same set under
 * index=mod: it releases the held store). 4 records a warp and step. */
#define ACCUMULATE ORACLE_STREAMS
#define PADDED_STREAM (ORACLE_STREAMS + 1) /* bench/patterns.h padded: strided columns */
#define GEMV_STREAM (ORACLE_STREAMS + 2) /* bench/patterns.h gemv: a column, a broadcast */
#define STREAMS (ORACLE_STREAMS + 3)

static void accumulate_gen(uint64_t k, struct cc_warp_access *a)
{
  const uint64_t data = 0x7e0000000000ull, symmat = 0x7e1000000000ull,
                 y = 0x7e2000000000ull;
  uint64_t per_warp = 40 * 12 * 4, c = k / (2 * per_warp), w = k / per_warp % 2;
  uint64_t step = k % per_warp / 4, part = k % 4, j2 = step / 12, i = step % 12;
  uint64_t j1 = 64 * c + 32 * w;
  memset(a, 0, sizeof *a);
  a->cta[0] = (uint32_t)(c % 4096);
  a->warp = (uint32_t)w;
  a->size_bytes = 4;
  a->active = 0xffffffffu;
  a->space = CC_SPACE_GLOBAL;
  a->kind = part < 2 || (part == 3 && j2 % 4 != 0) ? CC_ACCESS_LOAD : CC_ACCESS_STORE;
  a->insn_slot = (uint32_t)(part == 0 ? 0 : part == 1 ? 2 : part == 2 ? (i % 3 == 2 ? 3 : 1) : 3);
  for (uint32_t l = 0; l < 32; l++) {
    uint64_t col = j1 + l;
    switch (part) {
    case 0: a->addr[l] = data + (i * 1025 + col) * 4; break;
    case 1:
      a->addr[l] = i % 5 == 4 ? symmat + (col * 1026 + j2) * 4 + (1u << 17) * (1 + w)
                              : data + (i * 1025 + j2 + l) * 4;
      break;
    case 2: a->addr[l] = symmat + (col * 1026 + j2) * 4; break;
    default: a->addr[l] = j2 % 8 == 0 ? y + col * (1u << 17) : y + col * 4; break;
    }
  }
}

static void record(int s, uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  if (s == ACCUMULATE)
    accumulate_gen(i, a);
  else if (s == PADDED_STREAM)
    gen(PADDED, i, x, a);
  else if (s == GEMV_STREAM) /* 256 of each warp's trips: CTAs of 4096 records */
    gen(GEMV, (i / 2 / 256 * 4096 + i / 2 % 256) * 2 + i % 2, x, a);
  else
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

/* The records a worker sent on, in order, each with the index of the record whose
 * decision sent it (the model takes it `lag` records later). */
#define QUEUE (CC_CACHE_DROP_OUT * (LAG_MAX + 2))
struct queue {
  struct cc_warp_access r[QUEUE];
  uint64_t at[QUEUE];
  uint32_t wf[QUEUE];
  uint64_t head, tail;
};

static void push(struct queue *q, const struct cc_warp_access *a, uint64_t at, uint32_t wf)
{
  assert_true(q->tail - q->head < QUEUE);
  q->r[q->tail % QUEUE] = *a;
  q->at[q->tail % QUEUE] = at;
  q->wf[q->tail % QUEUE] = wf;
  q->tail++;
}

/* The model takes the records sent on by the decisions of records up to `upto`. */
static void take(struct cc_cache *c, struct queue *q, uint64_t upto)
{
  for (; q->head < q->tail && q->at[q->head % QUEUE] <= upto; q->head++)
    cc_cache_access(c, &q->r[q->head % QUEUE], q->wf[q->head % QUEUE]);
}

/* Counts cut record a sent on into f. */
static void sent_cut(struct fates *f, const struct cc_warp_access *a)
{
  f->cut++;
  f->cut_all += a->active == 0xffffffffu;
  f->folded += a->cut - 1;
  f->cut_slot1 += a->insn_slot == 1;
}

/* The stores d holds back, sent on after the decision of record `at`. */
static void release(struct cc_cache_drops *d, struct queue *q, uint64_t at, struct fates *f)
{
  const struct cc_warp_access *out[CC_CACHE_DROP_OUT];
  uint32_t n = cc_cache_drops_release(d, out);
  for (uint32_t j = 0; j < n; j++) {
    sent_cut(f, out[j]);
    push(q, out[j], at, 0);
  }
}

/* The linear index of a's CTA in the tests' grid. */
static uint64_t linear_of(const struct cc_warp_access *a)
{
  return a->cta[0] + (uint64_t)grid[0] * (a->cta[1] + (uint64_t)grid[1] * a->cta[2]);
}

/* Stream s as behind one worker that decides each record `lag` records before the model
 * takes what it sends on (cc_cache_drop), keeping that in a queue as the emulator's
 * slots do, and ends a run of consecutive CTAs (cc_cache_drops_release) every `chunk`
 * records (0: only at the end); its counts added before the kernel ends. foresee: at each
 * new CTA, the model told how many records that count towards its switch it was sent
 * whole before it (cc_cache_foresee). */
static struct cc_cache *split_ahead(const char *spec, int s, uint64_t n, uint32_t lag,
                                    uint32_t jobs, uint32_t chunk, int foresee,
                                    struct fates *f)
{
  static struct queue q;
  struct cc_cache *c = model(spec);
  uint64_t x = 88172645463325252ull, counted = 0, last = UINT64_MAX;
  struct cc_cache_drops *d;
  memset(f, 0, sizeof *f);
  q.head = q.tail = 0;
  cc_cache_set_jobs(c, jobs);
  cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
  d = cc_cache_drops_new(c);
  for (uint64_t i = 0; i < n; i++) {
    struct cc_warp_access a;
    const struct cc_warp_access *out[CC_CACHE_DROP_OUT];
    uint32_t wf, k;
    record(s, i, &x, &a);
    wf = shared_wavefronts(&a, i);
    if (foresee && linear_of(&a) != last) {
      assert_true(last == UINT64_MAX || linear_of(&a) > last); /* CTAs in linear order */
      last = linear_of(&a);
      cc_cache_foresee(c, last, counted);
    }
    k = cc_cache_drop(c, &a, wf, d, out);
    assert_true(k <= CC_CACHE_DROP_OUT);
    /* a store may be held back (sent on later): only other records count as dropped */
    f->dropped += k == 0 && a.kind != CC_ACCESS_STORE;
    for (uint32_t j = 0; j < k; j++) {
      assert_true(out[j] == &a || out[j]->cut);
      if (out[j] == &a) {
        f->whole++;
        counted += cc_cache_switch_records(c, a.space, a.active, a.insn_slot, a.size_bytes);
      } else
        sent_cut(f, out[j]);
      push(&q, out[j], i, wf);
    }
    if (chunk && (i + 1) % chunk == 0)
      release(d, &q, i, f);
    if (i >= lag)
      take(c, &q, i - lag);
  }
  release(d, &q, n, f);
  take(c, &q, UINT64_MAX);
  cc_cache_drops_add(c, d);
  cc_cache_drops_free(d);
  cc_cache_end_kernel(c);
  return c;
}

/* split_ahead without the producer's word. */
static struct cc_cache *split(const char *spec, int s, uint64_t n, uint32_t lag,
                              uint32_t jobs, uint32_t chunk, struct fates *f)
{
  return split_ahead(spec, s, n, lag, jobs, chunk, 0, f);
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

/* Stream s on spec with the workers `lag` records ahead (foresee: told where the switch
 * falls, split_ahead), the model on `jobs` threads: every figure the serial run's;
 * returns what the workers decided. */
static struct fates check(const char *spec, int s, uint64_t n, uint32_t lag, uint32_t jobs,
                          uint32_t chunk, int foresee)
{
  struct cc_cache *want = serial(spec, s, n);
  struct fates f;
  struct cc_cache *got = split_ahead(spec, s, n, lag, jobs, chunk, foresee, &f);
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
 * two and three threads; the worker's runs of consecutive CTAs end only at the kernel's
 * end (one thread) or every 997 records (the held store released there); and behind it
 * told where the switch falls (foresee), on one and three threads: then the worker sends
 * fewer records whole than without (the records of the CTAs past the switch that it
 * decides while the model, LAG_MAX records behind, has not switched yet). */
static void test_cut_same_figures(void **state)
{
  struct fates all[STREAMS];
  uint32_t fewer = 0; /* (config, stream) pairs that sent fewer records whole when told */
  (void)state;
  memset(all, 0, sizeof all);
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    for (int s = 0; s < STREAMS; s++) {
      uint64_t whole_lag = 0; /* lag LAG_MAX, jobs 1, no word */
      for (uint32_t k = 0; k < 8; k++) { /* lag 0 or LAG_MAX; jobs 1, 2 or 3; 6, 7: foresee */
        uint32_t lag = k & 1 || k >= 6 ? LAG_MAX : 0, jobs = k >= 6 ? 1 + 2 * (k & 1) : 1 + k / 2;
        uint64_t n = s == ACCUMULATE ? RECORDS
                     : oracle_records(&(struct oracle_config){"sm_90", configs[c], RECORDS}, s);
        struct fates f = check(configs[c], s, n, lag, jobs, k < 2 || k == 6 ? 0 : 997, k >= 6);
        if (k == 1)
          whole_lag = f.whole;
        if (k == 6 && f.whole > whole_lag)
          fail_msg("%s, stream %d: %llu records sent whole told where the switch falls, %llu "
                   "not told", configs[c], s, (unsigned long long)f.whole,
                   (unsigned long long)whole_lag);
        if (k == 6 && f.whole < whole_lag)
          fewer++;
        all[s].whole += f.whole;
        all[s].dropped += f.dropped;
        all[s].cut += f.cut;
        all[s].cut_all += f.cut_all;
        all[s].folded += f.folded;
        all[s].cut_slot1 += f.cut_slot1;
      }
    }
  /* the streams met what the test is about: column stores and loads, gathers and the
   * mixed stream cut, records with no sampled line dropped, a cut of all 32 lanes
   * (index=mod), and records sent on whole after the switch (the lag) */
  for (int s = 0; s < STREAMS; s++) {
    if (s == COPY || s == DIVERGENT) /* a line or two a record: rarely cut */
      continue;
    if (!all[s].cut || !all[s].dropped)
      fail_msg("stream %d: %llu cut, %llu dropped", s, (unsigned long long)all[s].cut,
               (unsigned long long)all[s].dropped);
  }
  assert_true(all[TRANSPOSE].cut_all > 0);
  /* told where the switch falls, fewer whole records on every stream but the loop's
   * (bench/patterns.h: its CTAs of 8 warps of 4096 records each last the whole stream,
   * the switch's CTA too) */
  if (fewer < (STREAMS - 1) * (sizeof configs / sizeof configs[0]))
    fail_msg("told where the switch falls, %u pairs sent fewer records whole, of %zu", fewer,
             (STREAMS - 1) * (sizeof configs / sizeof configs[0]));
  assert_true(all[ORACLE_MIX].whole > 3 * 2000);
  /* the symmat stores folded (by hand, per 4 columns of 12 steps: 3 columns whose 12
   * stores, from slots 1 1 3 1 1 3 ..., go on as 2 records, slot 1's 8 and slot 3's 4,
   * or under index=mod, where the 5th and 10th steps' loads share their sets, as 7 in 3
   * chains; the 4th column's 12 one by one, the y stores between them: 30 folded for 11
   * slot-1 records sent on, or 21 for 20; fewer where a chunk ends or a set is shared by
   * chance) */
  if (all[ACCUMULATE].folded <= all[ACCUMULATE].cut_slot1)
    fail_msg("accumulate: %llu stores folded, %llu symmat stores sent on",
             (unsigned long long)all[ACCUMULATE].folded,
             (unsigned long long)all[ACCUMULATE].cut_slot1);
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
  c = split("h100,sample-after=2000", TRANSPOSE, 40000, 0, 1, 0, &f);
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

/* A global store of one lane at byte `addr` by instruction 1 of CTA cta. */
static struct cc_warp_access one_store(uint64_t addr, uint32_t cta)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_STORE;
  a.space = CC_SPACE_GLOBAL;
  a.insn_slot = 1;
  a.size_bytes = 4;
  a.active = 1;
  a.addr[0] = addr;
  a.cta[0] = cta;
  return a;
}

/* Holding gives up where stores do not repeat (drop.c should_hold), and comes back where
 * they do. index=mod, 1 set in 16: line 16 k is sampled, so each store below is cut to
 * its one lane and may be held. 100 stores to distinct lines (chains of one store): the
 * first 64 are held (a held store is sent when the next one's decision releases it),
 * then, the chains of one having reached HOLD_GIVE_UP (64), the 65th to the 100th go on
 * in their own call (by hand: store k releases store k - 1's chain, the 64th release
 * gives up before store 65's decision; the next held one would be the 128th). Then 200
 * stores to one line: the 101st to the 127th go on at once, the 128th is held, the next
 * folds into it, and every later one folds (the instruction's chains repeat again):
 * 27 records sent on (the last one's chain of 173 stores at the release). The
 * figures of a model given what the drops send on are the serial run's (as
 * test_cut_same_figures checks on its streams). */
static void test_hold_gives_up(void **state)
{
  const char *spec = "h100,sms=1,index=mod,sample-after=0";
  struct cc_cache *c = model(spec), *want = model(spec);
  struct cc_cache_drops *d;
  struct cc_cache_kernel kg, kw;
  struct cc_warp_access first = one_store(0, 0);
  const struct cc_warp_access *out[CC_CACHE_DROP_OUT];
  uint32_t held = 0, sent = 0, n;
  (void)state;
  cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
  cc_cache_begin_kernel(want, grid, block, ORACLE_SLOTS);
  cc_cache_access(c, &first, 0); /* the switch: workers cut the next CTAs' records */
  cc_cache_access(want, &first, 0);
  d = cc_cache_drops_new(c);
  for (uint32_t i = 0; i < 300; i++) {
    struct cc_warp_access a = one_store((i < 100 ? 1 + i : 1000) * 16 * 128ull, 1);
    cc_cache_access(want, &a, 0);
    int now = 0; /* the store goes on in this call (not held) */
    n = cc_cache_drop(c, &a, 0, d, out);
    for (uint32_t j = 0; j < n; j++) {
      now |= out[j]->addr[0] == a.addr[0] && i < 100; /* phase 1: each its own line */
      cc_cache_access(c, out[j], 0);
    }
    if (i < 100)
      held += !now;
    else
      sent += n;
  }
  n = cc_cache_drops_release(d, out);
  for (uint32_t j = 0; j < n; j++)
    cc_cache_access(c, out[j], 0);
  assert_int_equal(held, 64);
  assert_int_equal(sent, 27);
  cc_cache_drops_add(c, d);
  cc_cache_drops_free(d);
  cc_cache_end_kernel(c);
  cc_cache_end_kernel(want);
  cc_cache_kernel_figures(c, &kg);
  cc_cache_kernel_figures(want, &kw);
  for (uint32_t i = 0; i < ORACLE_SLOTS; i++)
    same_counts(spec, 0, 0, 1, "figures", i, cc_cache_insn(c, i), cc_cache_insn(want, i));
  same_counts(spec, 0, 0, 1, "total", 0, &kg.total, &kw.total);
  cc_cache_free(c);
  cc_cache_free(want);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cut_same_figures),
    cmocka_unit_test(test_hold_gives_up),
    cmocka_unit_test(test_cut_counted_once),
    cmocka_unit_test(test_cut_abandoned_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
