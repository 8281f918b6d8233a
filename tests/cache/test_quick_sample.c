/* The quick path of sampled records (src/cache/quick.c, entered from cache.c
 * cc_cache_access: quick_rest, quick_lanes, quick_column, quick_range_wide, quick_new_cta) gives
 * the figures of set sampling exactly, on a stream made to reach each of its branches.
 *
 * The check is test_set_sample.c's (no figure from the code under test is expected): the
 * sampled replay (sample=k from record 0) must give, as raw counts of the sampled lines,
 * what the model with sample=1 gives for the stream cut to the lanes whose line is
 * sampled, and, in every count that does not depend on cache state (wavefronts, the
 * sectors stores and atomics send to L2, those of loads L1 does not cache, requests,
 * records), what sample=1 gives for the whole stream. Every lane's bytes lie in one line
 * (lanes aligned to their size), so cutting by lanes is cutting by lines.
 *
 * The stream (mix): records of a CTA together, a new CTA every 5 records (quick_new_cta),
 * kinds load, store, atomic, reduction, of these forms:
 *   - ranges of 4-byte lanes in one line (quick_rest's leaf), some loaded twice in a row
 *     by one warp (its SM's L1 memo), of 1 and 2 bytes, and of 0 bytes (1 byte a lane);
 *   - ranges over 2 to 8 lines (quick_range_wide): lanes of 8, 16 and 32 bytes, and
 *     4-byte lanes from the middle of a line, also loaded twice;
 *   - columns (quick_lanes, quick_column): 16 KiB apart (the class progression of
 *     sample_lanes), 4160 bytes apart (130 sectors: the class of each lane), loaded twice,
 *     and stored by the 8 warps of a CTA at 4-byte offsets (the store memo), loaded
 *     again with twice the stride (the same first sector: the memo must not take it),
 *     and again with 8-byte lanes from byte 28 of the first sector (the memo's key, in
 *     no fast form: the memo must not take it); runs of stores into a column of rows of
 *     4097 floats, 4 bytes up or down a record (the lanes memo, the store memo's ways);
 *   - lanes affine in no fast form (8 and 96 bytes apart for 4-byte lanes, 132 bytes
 *     apart: not whole sectors), lanes past 2^64 (a range and a column that wrap), lanes
 *     in no order, some lanes active (in one line; over several lines, in a group of
 *     16 or beyond, in address order or not: cc_cache_sample_general_global), no lane
 *     active (ignored);
 *   - ranges from inside a sector (1 and 2 bytes a lane: partly written first and last
 *     sectors), lanes whose first four are no progression but whose later ones repeat
 *     them 16 bytes on a step (the affine test's two parts), 0-byte lanes at one address
 *     (lanes 0 apart), a column of 8-byte lanes across two sectors each;
 *   - shared records (access_slow).
 * CTAs follow each other in z first (a new CTA with the last one's x and y).
 * On the H100, a small L1 and L2 that evict, a modulo-indexed L2 (class_mul 0), the P100
 * (L1 does not cache global loads: no L1 memo, loads' L2 sectors whole-record counts) and
 * the C2050 (whole-line fills: no L1 memo). The AVX2 and portable builds both run it
 * (tests/cache is built with -DCC_CACHE_NO_AVX2 too: see the report of the change). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache.h"

#define SLOTS 8 /* global and local: load, store, atomic, reduction; shared: 4 + those */
#define GLOBAL_SLOTS 4
#define SAMPLE_RUN_SLOTS SLOTS
#include "cache/sample_run.h"
#define RECORDS 40000

struct config {
  const char *arch, *spec;
  enum cc_cache_index index;
  int l1_loads; /* L1 caches global loads (their L2 sectors depend on cache state) */
};

static const struct config configs[] = {
  {"sm_90", "h100", CC_CACHE_INDEX_HASH, 1},
  {"sm_90", "h100,l2=2M,l1=16K,dispatch=blocked", CC_CACHE_INDEX_HASH, 1},
  {"sm_90", "h100,sms=8,l2=512K,l2-ways=4,index=mod", CC_CACHE_INDEX_MOD, 1},
  {"sm_60", "p100", CC_CACHE_INDEX_HASH, 0},
  {"cc2.0", "c2050", CC_CACHE_INDEX_HASH, 1},
};

static uint64_t next(uint64_t *x)
{
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Lanes l of a at base + l x stride, all active. */
static void lanes(struct cc_warp_access *a, uint64_t base, uint64_t stride)
{
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    a->addr[l] = base + l * stride;
  a->active = 0xffffffffu;
}

/* Record r of the mix (the file's comment); *x: the generator, *prev: the previous
 * record (repeats). A pool of 4096 lines from 1 MiB up (rows reused across records). */
static void mix(uint64_t r, uint64_t *x, struct cc_warp_access *prev, struct cc_warp_access *a)
{
  const uint64_t pool = 1ull << 20, col = 64ull << 20;
  uint64_t cta = r / 5, line = pool / 128 + next(x) % 4096, shape = next(x) % 27;
  if (r % 200 < 8) /* runs of case 27 */
    shape = 27;
  memset(a, 0, sizeof *a);
  a->cta[2] = (uint32_t)(cta % 4); /* the next CTA differs in z alone, mostly */
  a->cta[0] = (uint32_t)(cta / 4 % 16);
  a->cta[1] = (uint32_t)(cta / 64 % 16);
  a->warp = (uint32_t)(r % 8);
  a->space = CC_SPACE_GLOBAL;
  a->kind = (enum cc_access_kind)(next(x) % 4);
  a->size_bytes = 4;
  switch (shape) {
  case 0: case 1: case 2: case 3: /* a line of 4-byte lanes */
    lanes(a, line * 128, 4);
    break;
  case 4: /* the previous record again, a load (its SM's memo, when it was one) */
    if (prev->space == CC_SPACE_GLOBAL && prev->active) {
      memcpy(a->addr, prev->addr, sizeof a->addr);
      a->active = prev->active;
      a->size_bytes = prev->size_bytes;
    } else {
      lanes(a, line * 128, 4);
    }
    a->kind = CC_ACCESS_LOAD;
    break;
  case 5: /* 1, 2 and 0 (1) bytes a lane */
    a->size_bytes = (uint32_t)(next(x) % 3);
    lanes(a, line * 128 + 32 * (next(x) % 2), a->size_bytes ? a->size_bytes : 1);
    break;
  case 6: case 7: /* 8, 16, 32 bytes a lane: 2, 4, 8 lines */
    a->size_bytes = 8u << (next(x) % 3);
    lanes(a, line * 128, a->size_bytes);
    break;
  case 8: /* 4-byte lanes from the middle of a line: 2 lines */
    lanes(a, line * 128 + 64, 4);
    break;
  case 9: case 10: /* columns 16 KiB apart, from a sector of a row */
    lanes(a, col + (next(x) % 256) * 16384 * 32 + 4 * (next(x) % 64), 16384);
    break;
  case 11: /* the CTA's warps store into one column, 4 bytes apart (the store memo) */
    lanes(a, col + (cta % 16) * 16384 * 32 + 4 * a->warp, 16384);
    a->kind = CC_ACCESS_STORE;
    break;
  case 12: /* columns 4160 bytes (130 sectors) apart */
    lanes(a, col + (next(x) % 512) * 4160 * 32 + 4 * (next(x) % 8), 4160);
    break;
  case 13: /* affine in no fast form: 8, 96 bytes apart; 132 (not whole sectors) */
    lanes(a, line * 128, (uint64_t[]){8, 96, 132}[next(x) % 3]);
    break;
  case 14: /* a range and a column past 2^64 (they wrap) */
    if (next(x) % 2)
      lanes(a, 0 - 64ull, 4); /* lanes 16..31 at bytes 0..63 */
    else
      lanes(a, 0 - 7 * 16384ull, 16384); /* lanes 7..31 from byte 0 */
    break;
  case 15: /* lanes in no order, over a few lines */
    for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
      a->addr[l] = (line + next(x) % 8) * 128 + 4 * (next(x) % 32);
    a->active = 0xffffffffu;
    break;
  case 16: case 17: /* some lanes active */
    lanes(a, line * 128, 4);
    a->active = (uint32_t)next(x) | 1u;
    break;
  case 18: /* no lane active */
    lanes(a, line * 128, 4);
    a->active = 0;
    break;
  case 20: /* the previous column's first sector with twice its stride, loaded (the
             * L1 memo's key differs in the stride alone) */
    if (prev->space == CC_SPACE_GLOBAL && prev->active == 0xffffffffu &&
        prev->addr[1] - prev->addr[0] == 16384) {
      lanes(a, prev->addr[0], 32768);
      a->kind = CC_ACCESS_LOAD;
    } else {
      lanes(a, col + (next(x) % 256) * 16384 * 32, 16384);
    }
    break;
  case 21: /* 1 and 2 bytes a lane from inside a sector: the range's first and last
             * sectors partly written by a store (1 byte: bytes 16..47 of the line, 2:
             * 8..71) */
    a->size_bytes = 1 + (uint32_t)(next(x) % 2);
    lanes(a, line * 128 + 16 / a->size_bytes, a->size_bytes);
    break;
  case 22: /* lanes 4 bytes apart but lanes 2 and 3 of each four 4 KiB further on:
             * lanes 4k + j are lanes j plus 16 k bytes, lanes 0..3 no progression (not
             * affine, in no fast form: 2 lines) */
    lanes(a, line * 128, 4);
    for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
      a->addr[l] += l % 4 >= 2 ? 4096 : 0;
    break;
  case 23: /* 0 bytes (1) a lane, every lane at one address (lanes 0 apart: in no fast
             * form), from a sector's start */
    a->size_bytes = 0;
    lanes(a, line * 128 + 32 * (next(x) % 4), 0);
    break;
  case 24: /* a column of 8-byte lanes across two sectors each (bytes 28..35 of a line:
             * in no fast form) */
    a->size_bytes = 8;
    lanes(a, col + (next(x) % 256) * 16384 * 32 + 28, 16384);
    break;
  case 25: /* some lanes active over several lines (cache.c access_some,
             * cc_cache_sample_general_global): 8-byte lanes (2 lines of a group of 16),
             * lanes 136 bytes apart (beyond a group: the pass in address order), lanes in
             * no order over a few lines (a group, or gathered across two) */
    if (next(x) % 3 == 0) {
      a->size_bytes = 8;
      lanes(a, line * 128, 8);
    } else if (next(x) % 2) {
      lanes(a, line * 128 + 4 * (next(x) % 32), 136);
    } else {
      for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
        a->addr[l] = (line + next(x) % 8) * 128 + 4 * (next(x) % 32);
    }
    a->active = ((uint32_t)next(x) | 1u) & 0x7fffffffu;
    break;
  case 26: /* the previous column's first sector and stride, loaded with 8-byte lanes
             * from byte 28 of that sector (across two, within its line: in no fast form;
             * the L1 memo's key is the column's, quick_lanes must not take it) */
    if (prev->space == CC_SPACE_GLOBAL && prev->active == 0xffffffffu &&
        prev->addr[1] - prev->addr[0] == 16384 && prev->addr[0] % 128 < 96) {
      a->size_bytes = 8;
      lanes(a, prev->addr[0] / 32 * 32 + 28, 16384);
      a->kind = CC_ACCESS_LOAD;
    } else {
      lanes(a, col + (next(x) % 256) * 16384 * 32 + 4 * (next(x) % 8), 16384);
      a->kind = CC_ACCESS_LOAD;
    }
    break;
  case 27: /* runs of 8 stores into one column of rows of 4097 floats (16388 bytes apart:
             * STRIDED, whose key no later column matches), 4 bytes a record up (or down, in
             * every other run): each moves one lane's byte into the next (previous) line,
             * the others keep theirs (src/cache lanes_memo_get), and the store memo's ways
             * take the column where they hold its sampled lines (quick.c sample_keyed) */
    lanes(a, col + (r / 400 % 4) * 16388 * 32 + 64 +
                 4 * (r / 200 % 2 ? 7 - r % 200 : r % 200), 16388);
    a->kind = CC_ACCESS_STORE;
    break;
  case 19: /* shared memory */
    lanes(a, 4 * (next(x) % 256), 4);
    a->space = CC_SPACE_SHARED;
    break;
  default: /* a line of 4-byte lanes, loaded */
    lanes(a, line * 128, 4);
    a->kind = CC_ACCESS_LOAD;
    break;
  }
  a->insn_slot = (uint32_t)a->kind + (a->space == CC_SPACE_SHARED ? GLOBAL_SLOTS : 0);
}

/* Whether a lane's line is sampled at k under index. */
static int lane_sampled(enum cc_cache_index index, uint64_t addr, uint32_t k)
{
  return !(cc_cache_line_class(index, addr / CC_CACHE_LINE_BYTES) & (k - 1));
}

/* Replays the mix on (arch, spec) on `jobs` threads; cut_k > 0: each global record cut
 * to the lanes whose line is sampled at cut_k. */
static void replay_on(const struct config *cf, const char *spec, uint32_t cut_k,
                      uint32_t jobs, struct run *out)
{
  static const uint32_t grid[3] = {16, 16, 4}, block[3] = {256, 1, 1};
  struct cc_cache_device d;
  struct cc_err err = {0};
  struct cc_warp_access a, prev;
  uint64_t x = 88172645463325252ull;
  int on = 0;
  if (cc_cache_device_get(cf->arch, spec, NULL, &d, &on, &err) != CC_OK || !on)
    fail_msg("%s: %s", spec, err.msg);
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_set_jobs(c, jobs);
  memset(&prev, 0, sizeof prev);
  cc_cache_begin_kernel(c, grid, block, SLOTS);
  for (uint64_t r = 0; r < RECORDS; r++) {
    mix(r, &x, &prev, &a);
    prev = a;
    for (uint32_t l = 0; cut_k && a.space == CC_SPACE_GLOBAL && l < CC_WARP_SIZE; l++)
      if (!lane_sampled(cf->index, a.addr[l], cut_k))
        a.active &= ~(1u << l);
    cc_cache_access(c, &a, 1);
  }
  run_finish(c, out);
}

static void replay(const struct config *cf, const char *spec, uint32_t cut_k, struct run *out)
{
  replay_on(cf, spec, cut_k, 1, out);
}

#define EQ(what, got, want)                                                                \
  do {                                                                                     \
    if ((uint64_t)(got) != (uint64_t)(want))                                               \
      fail_msg("%s, sample=%u, slot %u: %s %llu, expected %llu", spec, k, i, what,        \
               (unsigned long long)(got), (unsigned long long)(want));                    \
  } while (0)

/* The mix on config cf at sample k: the sampled replay against the full replays of the
 * whole and of the cut stream. */
static void check(const struct config *cf, uint32_t k)
{
  char spec[160], full[160];
  struct run all, sampled, cut;
  snprintf(spec, sizeof spec, "%s,sample=%u,sample-after=0", cf->spec, k);
  snprintf(full, sizeof full, "%s,sample=1", cf->spec);
  replay(cf, full, 0, &all);
  replay(cf, spec, 0, &sampled);
  replay(cf, full, k, &cut);
  assert_int_equal(sampled.k.sample, k);
  for (uint32_t i = GLOBAL_SLOTS; i < SLOTS; i++) /* shared: no cache state */
    assert_memory_equal(&sampled.slot[i], &all.slot[i], sizeof all.slot[i]);
  for (uint32_t i = 0; i < GLOBAL_SLOTS; i++) {
    const struct cc_cache_counts *r = &sampled.raw[i], *c = &cut.slot[i];
    const struct cc_cache_counts *s = &sampled.slot[i], *f = &all.slot[i];
    expect_raw_equal(spec, i, r, c, cf->l1_loads); /* the cut stream's */
    if (!cf->l1_loads) /* every load's L2 sectors (whole-record counts): the full replay's */
      EQ("l2_sectors_read", s->l2_sectors_read, f->l2_sectors_read);
    expect_whole_equal(spec, i, s, f);
  }
  {
    uint32_t i = SLOTS; /* the kernel's figures */
    EQ("l2_evictions", sampled.k.l2_evictions, k * cut.k.l2_evictions);
    EQ("l1_wavefronts_max_sm", sampled.k.l1_wavefronts_max_sm, all.k.l1_wavefronts_max_sm);
    EQ("records", sampled.k.records, all.k.records);
  }
}

static void test_quick_exact(void **state)
{
  (void)state;
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
    check(&configs[c], 16);
    check(&configs[c], 4);
  }
}

/* The parallel replay (par.c: no quick path, every record through
 * cc_cache_replay_record and sample_fast, no store memo) gives the serial replay's
 * figures, every one (the waits' estimates and the latency included), with the switch
 * after 1000 records (the quick path from there on) and from the first. */
static void test_quick_jobs_same(void **state)
{
  (void)state;
  for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++)
    for (uint32_t after = 0; after <= 1000; after += 1000) {
      char spec[160];
      struct run serial, par;
      snprintf(spec, sizeof spec, "%s,sample=16,sample-after=%u", configs[c].spec, after);
      replay_on(&configs[c], spec, 0, 1, &serial);
      replay_on(&configs[c], spec, 0, 2, &par);
      assert_int_equal(serial.k.sampled_from, after);
      assert_memory_equal(serial.slot, par.slot, sizeof serial.slot);
      assert_memory_equal(serial.raw, par.raw, sizeof serial.raw);
      assert_int_equal(serial.k.l2_evictions, par.k.l2_evictions);
      assert_int_equal(serial.k.l1_wavefronts_max_sm, par.k.l1_wavefronts_max_sm);
      assert_true(serial.k.latency_ns_max_sm == par.k.latency_ns_max_sm);
      assert_int_equal(serial.k.records, par.k.records);
    }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_quick_exact),
    cmocka_unit_test(test_quick_jobs_same),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
