/* The cache model on small caches and known access sequences. Every expected figure is
 * derived by hand in the comment above its check. Conventions: lines of 128 bytes (line
 * n holds bytes [128n, 128n + 128)), sectors of 32 (sector s of a line holds bytes
 * [32s, 32s + 32) of it); "index=mod" puts line n in set n mod sets, so that the sets are
 * known; LRU evicts the way used longest ago. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache/cache.h"
#include "cache/cache_impl.h" /* test_store_memo_clock sets L2's clock */

/* 1 SM; L1 512 bytes = 4 lines, 2 ways -> 2 sets; L2 1 KiB = 8 lines, 2 ways -> 4 sets */
#define SMALL "h100,sms=1,l1=512,l1-ways=2,l2=1K,l2-ways=2,index=mod"

static struct cc_cache_device device(const char *arch, const char *spec)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  if (cc_cache_device_get(arch, spec, NULL, &d, &on, &err) != CC_OK)
    fail_msg("cc_cache_device_get(%s, %s): %s", arch, spec, err.msg);
  assert_int_equal(on, 1);
  return d;
}

/* A record of slot `slot`, kind, in CTA cta (x), lanes of mask at base + 4 i, 4 bytes. */
static struct cc_warp_access rec(uint32_t slot, enum cc_access_kind kind, uint32_t cta,
                                 uint64_t base, uint32_t mask)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot;
  a.kind = kind;
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = mask;
  a.cta[0] = cta;
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = base + 4u * (uint32_t)i;
  return a;
}

static struct cc_cache *start(const struct cc_cache_device *d, uint32_t ctas, uint32_t n_insns)
{
  static const uint32_t block[3] = {32, 1, 1};
  uint32_t grid[3] = {ctas, 1, 1};
  struct cc_cache *c = cc_cache_new(d);
  cc_cache_begin_kernel(c, grid, block, n_insns);
  return c;
}

static void load_line(struct cc_cache *c, uint32_t cta, uint64_t line)
{
  struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, cta, line * 128, 0xffffffffu);
  cc_cache_access(c, &a, 0);
}

/* Loads through L1 and L2, with evictions in both (L1 set 0 holds lines 0, 2, 4, 8...;
 * L2 set 0 holds lines 0, 4, 8). */
static void test_loads_lru(void **state)
{
  struct cc_cache_device d = device("sm_90", SMALL);
  struct cc_cache *c = start(&d, 1, 1);
  const struct cc_cache_counts *n;
  (void)state;
  /* A: line 0, 4 sectors: L1 miss, L2 miss: DRAM 128 bytes */
  load_line(c, 0, 0);
  /* B: line 0 again: 4 L1 hits */
  load_line(c, 0, 0);
  /* C: line 2 (L1 set 0, second way; L2 set 2): misses, DRAM 128 */
  load_line(c, 0, 2);
  /* D: line 4 (L1 set 0 full: evicts line 0, used at B, before line 2 at C; L2 set 0
   * second way): DRAM 128 */
  load_line(c, 0, 4);
  /* E: line 0: L1 miss (evicted at D; now evicts line 2), L2 hit: 4 L2 hit sectors */
  load_line(c, 0, 0);
  /* F: line 8: L2 set 0 holds 0 (used at E) and 4 (at D): evicts 4; DRAM 128 */
  load_line(c, 0, 8);
  /* G: line 4 again: L1 miss, L2 miss (evicted at F): DRAM 128 */
  load_line(c, 0, 4);
  cc_cache_end_kernel(c);
  n = cc_cache_insn(c, 0);
  assert_int_equal(n->l1_hit_sectors, 4);            /* B */
  assert_int_equal(n->l2_sectors_read, 6 * 4);       /* A C D E F G */
  assert_int_equal(n->l2_hit_sectors, 4);            /* E */
  assert_int_equal(n->dram_bytes_read, 5 * 128);     /* A C D F G */
  assert_int_equal(n->dram_bytes_written, 0);
  assert_int_equal(n->l1_wavefronts, 7);             /* 4 sectors a request: 1 each */
  assert_int_equal(n->waits_l1, 1);
  assert_int_equal(n->waits_l2, 1);
  assert_int_equal(n->waits_dram, 5);
  /* latencies: 1 x L1 + 1 x L2 + 5 x DRAM of the device */
  assert_true(fabs(n->latency_ns - (d.lat_l1_ns + d.lat_l2_ns + 5 * d.lat_dram_ns)) < 1e-9);
  cc_cache_free(c);
}

/* Partial and whole sector stores: write-allocate in L2 without a read, a read of a
 * partly written sector fetches it (with its neighbour: the H100's 64-byte DRAM unit),
 * write-backs at eviction; what is dirty at the end stays in L2 and is counted apart. */
static void test_stores_write_back(void **state)
{
  struct cc_cache_device d = device("sm_90", SMALL);
  struct cc_cache *c = start(&d, 1, 2);
  struct cc_warp_access a;
  struct cc_cache_kernel k;
  const struct cc_cache_counts *ld, *st;
  (void)state;
  /* slot 1 stores 4 bytes at 0 (lane 0): line 0 in L2, sector 0 dirty, 4 of 32 bytes
   * written; no DRAM read; 1 L2 write sector */
  a = rec(1, CC_ACCESS_STORE, 0, 0, 0x1u);
  cc_cache_access(c, &a, 0);
  /* slot 0 loads 4 bytes at 4 (lane 0, sector 0): not in L1 (stores do not allocate),
   * L2 has the sector only partly: DRAM reads its 64-byte unit, sectors 0 and 1 (64
   * bytes; 32 before the DRAM unit was modelled), both now valid in L2 */
  a = rec(0, CC_ACCESS_LOAD, 0, 4, 0x1u);
  cc_cache_access(c, &a, 0);
  /* slot 1 stores 8 lanes x 4 bytes at 32..63: sector 1 wholly written; L2 holds it
   * valid (the neighbour of the load's sector): an L2 hit; dirty, no DRAM read */
  a = rec(1, CC_ACCESS_STORE, 0, 32, 0xffu);
  cc_cache_access(c, &a, 0);
  /* slot 0 loads 32..63: L1 has line 0 (from the load) but not sector 1: L2 hit */
  a = rec(0, CC_ACCESS_LOAD, 0, 32, 0xffu);
  cc_cache_access(c, &a, 0);
  /* loads of lines 4 and 8 fill L2 set 0: line 8 evicts line 0 (LRU): its 2 dirty
   * sectors go to DRAM, 64 bytes, charged to the store (slot 1); one eviction */
  load_line(c, 0, 4);
  load_line(c, 0, 8);
  /* slot 1 stores 4 bytes into line 13 (L2 set 1): dirty at the end: 32 bytes stay in
   * L2 (before the change, flushed to DRAM and counted as written: 96 in all) */
  a = rec(1, CC_ACCESS_STORE, 0, 13 * 128, 0x1u);
  cc_cache_access(c, &a, 0);
  cc_cache_end_kernel(c);
  ld = cc_cache_insn(c, 0);
  st = cc_cache_insn(c, 1);
  assert_int_equal(st->l2_sectors_write, 1 + 1 + 1);
  assert_int_equal(st->l2_hit_sectors, 1);
  assert_int_equal(st->dram_bytes_read, 0);
  assert_int_equal(st->dram_bytes_written, 64);
  assert_int_equal(st->l2_dirty_bytes_at_end, 32);
  assert_int_equal(st->waits_l1 + st->waits_l2 + st->waits_dram, 0); /* stores do not wait */
  /* loads: 1 + 1 sectors, then lines 4 and 8 (4 each): 10 L2 sectors; DRAM 64 (the
   * unit of sector 0) + 2 x 128 */
  assert_int_equal(ld->l2_sectors_read, 10);
  assert_int_equal(ld->l2_hit_sectors, 1);
  assert_int_equal(ld->dram_bytes_read, 64 + 256);
  assert_int_equal(ld->l2_dirty_bytes_at_end, 0);
  cc_cache_kernel_figures(c, &k);
  assert_int_equal(k.total.l2_dirty_bytes_at_end, 32);
  assert_int_equal(k.total.dram_bytes_written, 64);
  assert_int_equal(k.l2_evictions, 1);
  assert_int_equal(cc_cache_l2_sectors(&k.total), 13);
  /* the estimate's DRAM bytes: L2 overflowed (an eviction), so the 32 dirty bytes count:
   * 320 read + 64 written + 32 */
  assert_int_equal(cc_cache_dram_bytes(&k), 320 + 64 + 32);
  cc_cache_free(c);
}

/* Atomics go to L2: the sector is read from DRAM (its 64-byte unit: 64 bytes, 32 before
 * the unit was modelled) and stays dirty in L2 at the end (32 bytes, not written to DRAM:
 * before, the end's flush counted them as written). */
static void test_atomics(void **state)
{
  struct cc_cache_device d = device("sm_90", SMALL);
  struct cc_cache *c = start(&d, 1, 1);
  struct cc_warp_access a = rec(0, CC_ACCESS_ATOMIC, 0, 64, 0x3u); /* bytes 64..71 */
  const struct cc_cache_counts *n;
  (void)state;
  cc_cache_access(c, &a, 0);
  cc_cache_access(c, &a, 0); /* again: an L2 hit */
  cc_cache_end_kernel(c);
  n = cc_cache_insn(c, 0);
  assert_int_equal(n->l2_sectors_atomic, 2);
  assert_int_equal(n->l1_hit_sectors, 0);
  assert_int_equal(n->dram_bytes_read, 64);
  assert_int_equal(n->dram_bytes_written, 0);
  assert_int_equal(n->l2_dirty_bytes_at_end, 32);
  assert_int_equal(n->waits_dram, 1);
  assert_int_equal(n->waits_l2, 1);
  cc_cache_free(c);
}

/* CTA c reads line c / 2 on 2 SMs. Round-robin: SM 0 runs CTAs 0, 2 (lines 0, 1), SM 1
 * runs 1, 3 (lines 0, 1): no L1 hit; L2: lines 0 and 1 miss once each. Blocked (2 per
 * SM): SM 0 runs 0, 1 (line 0 twice), SM 1 runs 2, 3 (line 1 twice): one L1 hit of 4
 * sectors on each. */
/* Runs 4 CTAs, CTA c reading line c / 2, on device d; returns the kernel's figures. */
static struct cc_cache_kernel four_ctas(const struct cc_cache_device *d)
{
  struct cc_cache_kernel k;
  struct cc_cache *c = start(d, 4, 1);
  for (uint32_t cta = 0; cta < 4; cta++)
    load_line(c, cta, cta / 2);
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, &k);
  cc_cache_free(c);
  return k;
}

static void test_dispatch(void **state)
{
  struct cc_cache_device rr = device("sm_90", SMALL ",sms=2");
  struct cc_cache_device bl = device("sm_90", SMALL ",sms=2,dispatch=blocked");
  struct cc_cache_kernel k;
  (void)state;
  k = four_ctas(&rr);
  assert_int_equal(k.total.l1_hit_sectors, 0);
  assert_int_equal(k.total.l2_sectors_read, 16);
  assert_int_equal(k.total.l2_hit_sectors, 8);
  assert_int_equal(k.total.dram_bytes_read, 256);
  assert_int_equal(k.sms_used, 2);
  assert_int_equal(k.l1_wavefronts_max_sm, 2);
  k = four_ctas(&bl);
  assert_int_equal(k.total.l1_hit_sectors, 8);
  assert_int_equal(k.total.l2_sectors_read, 8);
  assert_int_equal(k.total.dram_bytes_read, 256);
}

/* cc2.x fetches whole lines into L1; sm_60 does not cache global loads in L1 (but local
 * ones). */
static void test_arch_policies(void **state)
{
  struct cc_cache_device fermi = device("cc2.0", "c2050,index=mod");
  struct cc_cache_device pascal = device("sm_60", "p100,index=mod");
  struct cc_warp_access a;
  struct cc_cache *c;
  const struct cc_cache_counts *n;
  (void)state;
  /* one lane reads sector 1 of line 0: Fermi's L1 fetches the 4 sectors of the line;
   * then a read of sector 3 hits */
  c = start(&fermi, 1, 1);
  a = rec(0, CC_ACCESS_LOAD, 0, 32, 0x1u);
  cc_cache_access(c, &a, 0);
  a = rec(0, CC_ACCESS_LOAD, 0, 96, 0x1u);
  cc_cache_access(c, &a, 0);
  n = cc_cache_insn(c, 0);
  assert_int_equal(n->l2_sectors_read, 4);
  assert_int_equal(n->l1_hit_sectors, 1);
  assert_int_equal(n->dram_bytes_read, 128);
  cc_cache_free(c);
  /* Pascal: the same global line read twice goes to L2 twice (4 + 4 sectors, the second
   * time L2 hits); a local access read twice hits L1 the second time */
  c = start(&pascal, 1, 1);
  load_line(c, 0, 0);
  load_line(c, 0, 0);
  n = cc_cache_insn(c, 0);
  assert_int_equal(n->l1_hit_sectors, 0);
  assert_int_equal(n->l2_sectors_read, 8);
  assert_int_equal(n->l2_hit_sectors, 4);
  a = rec(0, CC_ACCESS_LOAD, 0, 0, 0xffffffffu);
  a.space = CC_SPACE_LOCAL;
  cc_cache_access(c, &a, 0);
  cc_cache_access(c, &a, 0);
  assert_int_equal(n->l1_hit_sectors, 4);
  cc_cache_free(c);
}

/* Lanes 16 KiB apart (a row-per-thread walk, 4-byte elements): 32 lines of 1 sector each,
 * 8 wavefronts (ceil(32 / 4)) a request; the 32 lines fit the H100's L1 (224 KiB for
 * 32-thread CTAs, test_l1_capacity; hashed index), so the next 7 column steps, in the
 * same sectors, hit: in 8 requests 32 sectors come from L2 (and DRAM) and 7 x 32 hit.
 * Each of those 32 misses reads its 64-byte DRAM unit (the H100's): 32 x 64 bytes (32 x
 * 32 before the unit was modelled), which brings sector 1 of each line into L2 too: the
 * next 8 steps (columns 8..15, sector 1) miss L1 once, hit L2 (32 sectors, no DRAM),
 * then hit L1 7 times. 16 requests: 64 L2 sectors, 32 of them L2 hits, 14 x 32 L1 hits;
 * waits: DRAM 1, L2 1, L1 14. */
static void test_row_walk(void **state)
{
  struct cc_cache_device d = device("sm_90", "h100");
  struct cc_cache *c = start(&d, 1, 1);
  const struct cc_cache_counts *n;
  (void)state;
  for (uint32_t j = 0; j < 16; j++) {
    struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, 0, 4u * j, 0xffffffffu);
    for (int i = 0; i < CC_WARP_SIZE; i++)
      a.addr[i] = 16384u * (uint32_t)i + 4u * j;
    cc_cache_access(c, &a, 0);
  }
  cc_cache_end_kernel(c);
  n = cc_cache_insn(c, 0);
  assert_int_equal(n->l1_wavefronts, 16 * 8);
  assert_int_equal(n->l2_sectors_read, 64);
  assert_int_equal(n->l2_hit_sectors, 32);
  assert_int_equal(n->l1_hit_sectors, 14 * 32);
  assert_int_equal(n->dram_bytes_read, 32 * 64);
  assert_int_equal(n->waits_dram, 1);
  assert_int_equal(n->waits_l2, 1);
  assert_int_equal(n->waits_l1, 14);
  cc_cache_free(c);
}

/* DRAM access units. One warp, 4 bytes a lane, on the H100 (its L1 and L2 far larger
 * than the few lines used, hashed index: consecutive lines in distinct sets):
 *  A (slot 0): lanes 64 bytes apart from 0: 2048 bytes, 16 lines, sectors 0 and 2 of
 *     each: 32 sectors, each read once, each in its own 64-byte pair: 32 DRAM reads of
 *     64 bytes = 2048 bytes (with 32-byte units: 1024; with 128: one per line, 2048).
 *  B (slot 1): the same from byte 32: sectors 1 and 3, the neighbours: not in L1 (it
 *     filled only the sectors asked for), 32 L2 sectors; with 64-byte units all hit L2
 *     (the pairs came with A): 0 DRAM bytes; with 32: 32 misses, 1024 bytes; with 128: 0.
 *  C (slot 2): lanes 128 bytes apart from 8192 (strided_copy's stride 32): 32 lines, one
 *     sector each: 32 x 64 = 2048 bytes (32: 1024; 128: 4096). */
static void check_units(const char *spec, uint64_t a_bytes, uint64_t b_bytes, uint64_t c_bytes)
{
  struct cc_cache_device d = device("sm_90", spec);
  struct cc_cache *c = start(&d, 1, 3);
  struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, 0, 0, 0xffffffffu);
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = 64u * (uint32_t)i;
  cc_cache_access(c, &a, 0);
  a.insn_slot = 1;
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = 32u + 64u * (uint32_t)i;
  cc_cache_access(c, &a, 0);
  a.insn_slot = 2;
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = 8192u + 128u * (uint32_t)i;
  cc_cache_access(c, &a, 0);
  cc_cache_end_kernel(c);
  if (cc_cache_insn(c, 0)->dram_bytes_read != a_bytes ||
      cc_cache_insn(c, 1)->dram_bytes_read != b_bytes ||
      cc_cache_insn(c, 2)->dram_bytes_read != c_bytes)
    fail_msg("--cache %s: DRAM bytes read %llu, %llu, %llu; expected %llu, %llu, %llu", spec,
             (unsigned long long)cc_cache_insn(c, 0)->dram_bytes_read,
             (unsigned long long)cc_cache_insn(c, 1)->dram_bytes_read,
             (unsigned long long)cc_cache_insn(c, 2)->dram_bytes_read,
             (unsigned long long)a_bytes, (unsigned long long)b_bytes,
             (unsigned long long)c_bytes);
  assert_int_equal(cc_cache_insn(c, 0)->l2_sectors_read, 32);
  assert_int_equal(cc_cache_insn(c, 1)->l2_sectors_read, 32);
  assert_int_equal(cc_cache_insn(c, 1)->l1_hit_sectors, 0);
  cc_cache_free(c);
}

static void test_dram_units(void **state)
{
  (void)state;
  assert_int_equal(device("sm_90", "h100").dram_access_bytes, 64);
  assert_int_equal(device("sm_80", "a100").dram_access_bytes, 32);
  check_units("h100", 2048, 0, 2048);
  check_units("h100,dram-bytes=32", 1024, 1024, 1024);
  check_units("h100,dram-bytes=128", 2048, 0, 4096);
}

/* Dirty bytes at the kernel's end. One CTA stores 1 MiB: 8192 records of 32 lanes x 4
 * consecutive bytes, record r on line r (lines 0..8191): 32768 L2 write sectors, each
 * sector wholly written (no DRAM read).
 *  - H100, 50 MiB L2 (409600 lines, 25600 sets of 16; hashed index: line n < 2^15 folds
 *    to itself, set n): no line is evicted: 0 DRAM bytes written during the kernel, 1 MiB
 *    dirty at the end; the estimate counts none of it (the footprint fits L2).
 *  - 2 MiB (lines 0..16383) through an L2 of 1 MiB (8192 lines, 512 sets of 16, index=mod:
 *    line n in set n mod 512, 32 lines a set, written in order): each set's first 16
 *    lines are evicted by its last 16: 8192 evictions, 1 MiB written during the kernel,
 *    1 MiB dirty at the end; L2 overflowed, so the estimate counts 2 MiB. This is with
 *    the write policy's dirty limit off (dirty-ways=0).
 *  - The same with the h100's dirty limit (5 dirty lines a set; cache.c, "write policy";
 *    changed the figures above, which are kept with dirty-ways=0): each set keeps its
 *    last 5 lines dirty, its other 27 are written back (by the limit or, evicted, as
 *    before): 27 x 512 x 128 = 1769472 bytes written during the kernel, 5 x 512 x 128 =
 *    327680 dirty at the end; still 8192 evictions (of clean lines now), and the estimate
 *    the same 2 MiB (written + dirty at the end).
 *  A second cc_cache_end_kernel counts nothing more. */
static void check_store_run(const char *spec, uint32_t lines, uint64_t written,
                            uint64_t dirty, uint64_t evictions, uint64_t estimate_bytes)
{
  struct cc_cache_device d = device("sm_90", spec);
  struct cc_cache *c = start(&d, 1, 1);
  struct cc_cache_kernel k;
  for (uint32_t r = 0; r < lines; r++) {
    struct cc_warp_access a = rec(0, CC_ACCESS_STORE, 0, (uint64_t)r * 128, 0xffffffffu);
    cc_cache_access(c, &a, 0);
  }
  cc_cache_end_kernel(c);
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, &k);
  cc_cache_free(c);
  assert_int_equal(k.total.l2_sectors_write, 4ull * lines);
  assert_int_equal(k.total.dram_bytes_read, 0);
  assert_int_equal(k.total.dram_bytes_written, written);
  assert_int_equal(k.total.l2_dirty_bytes_at_end, dirty);
  assert_int_equal(k.l2_evictions, evictions);
  assert_int_equal(cc_cache_dram_bytes(&k), estimate_bytes);
}

static void test_dirty_at_end(void **state)
{
  (void)state;
  check_store_run("h100", 8192, 0, 1048576, 0, 0);
  check_store_run("h100,l2=1M,index=mod,dirty-ways=0", 16384, 1048576, 1048576, 8192, 2097152);
  check_store_run("h100,l2=1M,index=mod", 16384, 1769472, 327680, 8192, 2097152);
}

/* The fast forms of grouping lanes into lines (32 lanes on consecutive elements; 32
 * lanes a line or more apart, at one place in their sectors or not) against the general
 * one: the same records with their lanes' addresses permuted (not affine any more, so
 * grouped lane by lane) must give the same figures. Random strides, offsets, sizes and
 * kinds on the device spec (a small cache; or a larger one sampling sets: the sampled
 * lanes of a fast form, sample_lanes, against the general form's filter). */
static void fast_paths(const char *spec, int records)
{
  /* in elements: ranges, lines of whole sectors (LANES), rows of n + 1 elements (129,
   * 1025: STRIDED, each lane at another place in its sector), and broadcasts (0: every
   * lane at one address, a RANGE of one element) */
  static const uint64_t strides[] = {1,   2,    4,    8,     16,  32,   64, 128,
                                     160, 256,  4096, 16384, 129, 1025, 0};
  struct cc_cache_device d = device("sm_90", spec);
  struct cc_cache *fast = start(&d, 4, 3), *ref = start(&d, 4, 3);
  uint32_t x = 12345;
  for (int r = 0; r < records; r++) {
    struct cc_warp_access a, b;
    uint32_t size;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    size = 1u << (x % 4);                        /* 1, 2, 4, 8 bytes */
    a = rec(x % 3, (enum cc_access_kind)(x % 3), (x >> 4) % 4, 0, 0xffffffffu);
    a.size_bytes = size;
    for (int l = 0; l < CC_WARP_SIZE; l++)
      a.addr[l] = (uint64_t)((x >> 8) % 64) * size + (uint64_t)l * strides[(x >> 16) % 15] * size;
    b = a;
    for (int l = 0; l < CC_WARP_SIZE; l++) { /* reverse the lanes: same addresses */
      b.addr[l] = a.addr[CC_WARP_SIZE - 1 - l];
    }
    if (a.addr[1] == a.addr[0]) /* a broadcast stays one reversed: 31 lanes of it, general */
      b.active = 0x7fffffffu;
    cc_cache_access(fast, &a, 0);
    cc_cache_access(ref, &b, 0);
  }
  cc_cache_end_kernel(fast);
  cc_cache_end_kernel(ref);
  for (uint32_t slot = 0; slot < 3; slot++) {
    const struct cc_cache_counts *f = cc_cache_insn(fast, slot), *g = cc_cache_insn(ref, slot);
    const struct cc_cache_counts *fs = cc_cache_insn_sampled(fast, slot);
    const struct cc_cache_counts *gs = cc_cache_insn_sampled(ref, slot);
    assert_int_equal(f->l1_hit_sectors, g->l1_hit_sectors);
    assert_int_equal(cc_cache_l2_sectors(f), cc_cache_l2_sectors(g));
    assert_int_equal(f->l2_hit_sectors, g->l2_hit_sectors);
    assert_int_equal(f->dram_bytes_read, g->dram_bytes_read);
    assert_int_equal(f->dram_bytes_written, g->dram_bytes_written);
    assert_int_equal(f->l1_wavefronts, g->l1_wavefronts);
    assert_int_equal(f->waits_dram, g->waits_dram);
    assert_memory_equal(fs, gs, sizeof *fs);
  }
  cc_cache_free(fast);
  cc_cache_free(ref);
}

static void test_fast_paths(void **state)
{
  (void)state;
  fast_paths(SMALL ",sms=2", 20000);
  fast_paths("h100,sms=2,l1=4K,l2=64K,sample=4,sample-after=2000", 40000);
}

/* One kernel of `records` random records (test_fast_paths' mix: loads, stores, atomics
 * of 1-8 bytes at strides from 1 element to 16 KiB, 3 slots, 4 CTAs of `threads`
 * threads: the L1's carveout follows the CTA size) on model c, from generator state x;
 * its figures in *k and per slot in n[3] (counts) and ns[3] (sampled counts). */
static void one_kernel(struct cc_cache *c, uint32_t threads, uint32_t x, int records,
                       struct cc_cache_kernel *k, struct cc_cache_counts n[3],
                       struct cc_cache_counts ns[3])
{
  static const uint64_t strides[] = {1, 2, 4, 32, 129, 256, 1025, 4096};
  const uint32_t grid[3] = {4, 1, 1}, block[3] = {threads, 1, 1};
  cc_cache_begin_kernel(c, grid, block, 3);
  for (int r = 0; r < records; r++) {
    struct cc_warp_access a;
    uint32_t size;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    size = 1u << (x % 4);
    a = rec(x % 3, (enum cc_access_kind)(x % 3), (x >> 4) % 4, 0, 0xffffffffu);
    a.size_bytes = size;
    for (int l = 0; l < CC_WARP_SIZE; l++)
      a.addr[l] = (uint64_t)((x >> 8) % 4096) * 128 + (uint64_t)l * strides[(x >> 16) % 8] * size;
    cc_cache_access(c, &a, 0);
  }
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, k);
  for (uint32_t slot = 0; slot < 3; slot++) {
    n[slot] = *cc_cache_insn(c, slot);
    ns[slot] = *cc_cache_insn_sampled(c, slot);
  }
}

/* Fails unless two runs of one kernel gave the same figures, every one. */
static void same_kernel(const struct cc_cache_kernel *a, const struct cc_cache_counts *an,
                        const struct cc_cache_counts *as, const struct cc_cache_kernel *b,
                        const struct cc_cache_counts *bn, const struct cc_cache_counts *bs)
{
  assert_memory_equal(&a->total, &b->total, sizeof a->total);
  assert_int_equal(a->l2_evictions, b->l2_evictions);
  assert_int_equal(a->l1_wavefronts_max_sm, b->l1_wavefronts_max_sm);
  assert_true(a->latency_ns_max_sm == b->latency_ns_max_sm);
  assert_int_equal(a->l1_bytes, b->l1_bytes);
  assert_int_equal(a->sampled_from, b->sampled_from);
  assert_memory_equal(an, bn, 3 * sizeof *an);
  assert_memory_equal(as, bs, 3 * sizeof *as);
}

/* Both levels are empty at each kernel (README "Cold start"), also where a model is used
 * again: begin_kernel empties only the sets the last kernel filled (state.c level_reset),
 * and L1 by the last kernel's shape before it takes the new one. A kernel on a model
 * that ran others (dirty and partly written L2 lines, another L1 size: 32-thread CTAs
 * leave 224 KB of L1 on the H100, 256-thread ones 248 KB, test_l1_capacity) must give
 * every figure of the same kernel on a new model (the serial replay); on a small model,
 * and on one sampling sets after its first 3000 records; replayed serially and on 3
 * threads (par.c: each part marks the sets it owns). And by hand: line 0 loaded again by the next
 * kernel misses in both levels (64-byte DRAM units: 128 bytes read). */
static void test_kernels_in_turn(void **state)
{
  /* the third: 32-thread CTAs (32 resident, 7 KB each) take the 228 KB carveout, an L1
   * of 28 KB in 64 ways: 3 sets, 2 classes, so set sampling replays 1 set in 2 there;
   * 256-thread ones (8 resident) the 64 KB carveout, 192 KB: 24 sets, 1 in 16. The
   * layout of both levels (state.c cc_cache_level_layout) changes from kernel to kernel.
   * The fourth: 32-thread CTAs' L1 of 28 KB in 4 ways, 56 sets (classes 0-7 of 4 sets,
   * 8-15 of 3), replayed 1 in 8: sampled class 8 is one set short, and the other classes'
   * last sets are placed at 56 and beyond (places the kernel after must find empty) */
  static const char *const specs[] = {"h100,sms=2,l1=4K,l2=64K",
                                      "h100,sms=2,l2=1M,sample=4,sample-after=3000",
                                      "h100,sms=2,l1-ways=64,smem=6K,l2=1M,sample-after=3000",
                                      "h100,sms=2,smem=6K,l2=1M,sample=8,sample-after=3000"};
  static const uint32_t sample_32[] = {1, 4, 2, 8}, sample_256[] = {1, 4, 16, 8};
  struct cc_cache_kernel k1, k2;
  struct cc_cache_counts n1[3], s1[3], n2[3], s2[3];
  (void)state;
  for (size_t i = 0; i < 2 * sizeof specs / sizeof *specs; i++) {
    struct cc_cache_device d = device("sm_90", specs[i / 2]);
    struct cc_cache *used = cc_cache_new(&d), *fresh;
    cc_cache_set_jobs(used, i % 2 ? 3 : 1); /* the parallel replay's parts mark sets too */
    one_kernel(used, 32, 777, 20000, &k1, n1, s1);
    assert_int_equal(k1.sample, sample_32[i / 2]);
    one_kernel(used, 256, 4242, 20000, &k1, n1, s1);
    assert_int_equal(k1.sample, sample_256[i / 2]);
    fresh = cc_cache_new(&d);
    one_kernel(fresh, 256, 4242, 20000, &k2, n2, s2);
    same_kernel(&k1, n1, s1, &k2, n2, s2);
    one_kernel(used, 32, 777, 20000, &k1, n1, s1); /* a smaller L1 again */
    cc_cache_free(fresh);
    fresh = cc_cache_new(&d);
    one_kernel(fresh, 32, 777, 20000, &k2, n2, s2);
    same_kernel(&k1, n1, s1, &k2, n2, s2);
    cc_cache_free(fresh);
    {
      const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
      cc_cache_begin_kernel(used, grid, block, 1);
      load_line(used, 0, 0);
      cc_cache_end_kernel(used);
      assert_int_equal(cc_cache_insn(used, 0)->l1_hit_sectors, 0);
      assert_int_equal(cc_cache_insn(used, 0)->l2_hit_sectors, 0);
      assert_int_equal(cc_cache_insn(used, 0)->dram_bytes_read, 128);
    }
    cc_cache_free(used);
  }
}

/* A reference LRU, independent of the model's arrays: per set, its lines most recently
 * used first (at most `ways`). Returns whether line was there; either way it is in front
 * afterwards (the last one dropped when the set was full). */
static int ref_touch(uint64_t *set, uint32_t ways, uint64_t line)
{
  uint32_t i = 0;
  while (i < ways && set[i] != line && set[i] != UINT64_MAX)
    i++;
  int hit = i < ways && set[i] == line;
  if (i == ways)
    i = ways - 1; /* full, absent: the least recently used goes */
  memmove(&set[1], &set[0], i * sizeof *set);
  set[0] = line;
  return hit;
}

/* Whole-line loads from random CTAs (2 SMs, round-robin) of random lines against the
 * reference LRU of both levels (index=mod: line n in set n mod sets): every load of a
 * line L1 holds hits its 4 sectors; an L1 miss asks L2 for 4 sectors, which hits them
 * or reads the line from DRAM (128 bytes, two 64-byte units). The model's way predictors
 * collide constantly here (a few entries for 64 or 256 lines), and the second shape
 * (L1: one set of 8 ways; L2: 4 sets of 16) takes the scan that stops at an empty way. */
static void check_against_reference(const char *spec, uint32_t l1_sets, uint32_t l1_ways,
                                    uint32_t l2_sets, uint32_t l2_ways, uint32_t n_lines,
                                    int repeat)
{
  uint64_t last[2] = {UINT64_MAX, UINT64_MAX};
  struct cc_cache_device d = device("sm_90", spec);
  struct cc_cache *c = start(&d, 4, 1);
  uint64_t l1[2][8][8], l2[8][16];
  uint64_t hits = 0, to_l2 = 0, l2_hits = 0, dram = 0;
  uint32_t x = 2463534242u;
  memset(l1, 0xff, sizeof l1);
  memset(l2, 0xff, sizeof l2);
  for (int r = 0; r < 20000; r++) {
    uint32_t cta, sm;
    uint64_t line;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    cta = x % 4;
    sm = cta % 2;
    line = (x >> 8) % n_lines;
    if (repeat && (x >> 30) % 2 && last[sm] != UINT64_MAX)
      line = last[sm]; /* the SM's last line again: its L1 memo's case */
    last[sm] = line;
    load_line(c, cta, line);
    if (ref_touch(l1[sm][line % l1_sets], l1_ways, line)) {
      hits += 4;
      continue;
    }
    to_l2 += 4;
    if (ref_touch(l2[line % l2_sets], l2_ways, line))
      l2_hits += 4;
    else
      dram += 128;
  }
  cc_cache_end_kernel(c);
  const struct cc_cache_counts *n = cc_cache_insn(c, 0);
  assert_int_equal(n->l1_hit_sectors, hits);
  assert_int_equal(n->l2_sectors_read, to_l2);
  assert_int_equal(n->l2_hit_sectors, l2_hits);
  assert_int_equal(n->dram_bytes_read, dram);
  assert_true(hits > 0 && l2_hits > 0 && dram > 0); /* every path taken */
  cc_cache_free(c);
}

static void test_reference_lru(void **state)
{
  (void)state;
  check_against_reference(SMALL ",sms=2", 2, 2, 4, 2, 64, 0);
  check_against_reference("h100,sms=2,l1=1K,l1-ways=8,l2=8K,l2-ways=16,index=mod", 1, 8, 4,
                          16, 256, 0);
  /* half the loads repeat their SM's last line (an L1 memo hit when nothing came between
   * on that SM) */
  check_against_reference(SMALL ",sms=2", 2, 2, 4, 2, 64, 1);
  check_against_reference("h100,sms=2,l1=1K,l1-ways=8,l2=8K,l2-ways=16,index=mod", 1, 8, 4,
                          16, 256, 1);
}

/* A 32-lane load, lane l at base + l x stride, 4 bytes each, slot 0, CTA 0. */
static void load_strided(struct cc_cache *c, uint64_t base, uint64_t stride)
{
  struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, 0, 0, 0xffffffffu);
  for (int l = 0; l < CC_WARP_SIZE; l++)
    a.addr[l] = base + (uint64_t)l * stride;
  cc_cache_access(c, &a, 0);
}

/* The L1 memo (a load asking for the lines and sectors its SM's last load record had)
 * must give the figures of the full replay. SMALL: 1 SM, L1 2 sets x 2 ways (line n in set
 * n mod 2), L2 4 sets x 2 ways, DRAM unit 64 bytes (2 sectors).
 *  A: sector 0 of line 0 (lanes 0-7): 1 L1 miss. Line 0 whole (32 lanes): sectors 1-3 are
 *     new although the line is the memo's: 1 hit, 3 to L2. Sector 0 alone again: 1 hit.
 *     L1 hits 2, L2 sectors 4 (sector 0; 1-3), DRAM: unit {0,1} for the first miss
 *     (64 bytes), then sectors 1-3 ask units {0,1} (sector 1 valid since the first read:
 *     hit) and {2,3} (64 bytes): 128 bytes; L2 hits 1 (sector 1).
 *  B: 32 lanes 256 bytes apart, sector 0 of lines 2, 4, ..., 64 (all in L1 set 0, of 2
 *     ways), twice. The first pass misses all 32; the set keeps the last two (62, 64), so
 *     the second pass misses all 32 again (line 2 replaces 62, line 4 replaces 64, ...):
 *     a memo that trusted the record's own lines would give 32 hits. L1 hits 0, L2
 *     sectors 64; in L2 the lines fall in sets 2, 0, 2, 0, ... (16 lines each, 2 ways):
 *     every read misses, 64 DRAM bytes each: 4096 bytes.
 *  C: line 8 whole, twice, then a global store to line 8 (writes through, leaves L1 as it
 *     is), then line 8 again: 4 misses, then 4 + 4 hits. */
static void test_l1_memo(void **state)
{
  struct cc_cache_device d = device("sm_90", SMALL);
  struct cc_cache *c = start(&d, 1, 2);
  struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, 0, 0, 0x000000ffu);
  struct cc_warp_access st = rec(1, CC_ACCESS_STORE, 0, 8 * 128, 0xffffffffu);
  const struct cc_cache_counts *n = cc_cache_insn(c, 0);
  (void)state;
  cc_cache_access(c, &a, 0); /* A */
  load_line(c, 0, 0);
  cc_cache_access(c, &a, 0);
  assert_int_equal(n->l1_hit_sectors, 2);
  assert_int_equal(n->l2_sectors_read, 4);
  assert_int_equal(n->l2_hit_sectors, 1);
  assert_int_equal(n->dram_bytes_read, 128);
  cc_cache_free(c);

  c = start(&d, 1, 2); /* B */
  n = cc_cache_insn(c, 0);
  load_strided(c, 2 * 128, 256);
  load_strided(c, 2 * 128, 256);
  assert_int_equal(n->l1_hit_sectors, 0);
  assert_int_equal(n->l2_sectors_read, 64);
  assert_int_equal(n->dram_bytes_read, 4096);
  cc_cache_free(c);

  c = start(&d, 1, 2); /* C */
  n = cc_cache_insn(c, 0);
  load_line(c, 0, 8);
  load_line(c, 0, 8);
  cc_cache_access(c, &st, 0);
  load_line(c, 0, 8);
  assert_int_equal(n->l1_hit_sectors, 8);
  assert_int_equal(n->l2_sectors_read, 4);
  cc_cache_free(c);
}

/* An instruction's loads' sectors asked of L2 and sectors hit in L1. */
static void assert_reads(const struct cc_cache_counts *n, uint64_t l2, uint64_t hits)
{
  assert_int_equal(n->l2_sectors_read, l2);
  assert_int_equal(n->l1_hit_sectors, hits);
}

/* A load of slot `slot` (SM 0): lane l reads 4 bytes at byte + l x stride. */
static void load_lanes(struct cc_cache *c, uint32_t slot, uint64_t byte, uint64_t stride)
{
  struct cc_warp_access a = rec(slot, CC_ACCESS_LOAD, 0, 0, 0xffffffffu);
  for (int l = 0; l < CC_WARP_SIZE; l++)
    a.addr[l] = byte + stride * (uint32_t)l;
  cc_cache_access(c, &a, 0);
}

/* A column load of slot 1: lane l reads 4 bytes at byte + 128 l. */
static void load_column(struct cc_cache *c, uint64_t byte)
{
  load_lanes(c, 1, byte, 128);
}

/* The L1 memo's advance (cache.c memo_advance: a column of the memo's lines, another
 * sector of each) must give the full replay's figures. L1 8 KiB, 2 ways, index=mod: 32
 * sets, line n in set n mod 32. Column loads (slot 1) of lines 0..31, sector s = byte /
 * 32, and line loads (slot 0, load_line: 4 sectors) of set 0's lines 32 and 64:
 *   1 col s0: 32 L2 sectors   2 col s1 (advance): 32 L2   3 line 32: 4 L2 (memo cleared)
 *   4 col s2: 32 L2 (lines held, sector new; memo set)    5 col s0 (advance): 32 hits
 *   6 line 64: 4 L2, evicts line 32 (set 0: line 0 touched at 4, after 32 at 3)
 *   7 col s1: 32 hits (sector 1 valid since 2: the advance marks what it fetches)
 *   8 col s3 (advance): 32 L2   9 col s1 (advance): 32 hits   10 col s3 (advance): 32 hits
 *   11 line 32: 4 L2, evicts 64 (line 0 touched at 7, 64 at 6; the advances do not touch
 *      the memo's lines: they are the most recent already)   12 line 0: 4 hits.
 * Columns: 128 L2 sectors, 128 hits, 4 waits on L1 (5, 7, 9, 10), 8 x 8 wavefronts. */
static void test_l1_memo_advance(void **state)
{
  static const int64_t steps[] = {0, 32, -32, 64, 0, -64, 32, 96, 32, 96, -32, -1};
  struct cc_cache_device d = device("sm_90", "h100,sms=1,l1=8K,l1-ways=2,index=mod");
  struct cc_cache *c = start(&d, 1, 2);
  const struct cc_cache_counts *col = cc_cache_insn(c, 1), *ln = cc_cache_insn(c, 0);
  (void)state;
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) /* a column's byte; -line, -1: 0 */
    if (steps[i] >= 0)
      load_column(c, (uint64_t)steps[i]);
    else
      load_line(c, 0, steps[i] == -1 ? 0 : (uint64_t)-steps[i]);
  cc_cache_end_kernel(c);
  assert_reads(col, 128, 128);
  assert_int_equal(col->waits_l1, 4);
  assert_int_equal(col->l1_wavefronts, 64);
  assert_reads(ln, 12, 4);
  cc_cache_free(c);
}

/* A broadcast load of slot 2: every lane reads the 4 bytes at byte. */
static void load_broadcast(struct cc_cache *c, uint64_t byte)
{
  load_lanes(c, 2, byte, 0);
}

/* Two L1 memos taking turns (cache_impl.h struct memo_list: a column and a broadcast,
 * gemv_rows' loop) must give the full replay's figures, LRU order included. L1 as in
 * test_l1_memo_advance (2 ways, line n in set n mod 32). C: the column of lines 0..31
 * (slot 1), B: a broadcast of line 32's first word (set 0, slot 2), line loads slot 0:
 *   1 C s0: 32 L2   2 B: 1 L2 (memos: B, then C)   3 C s1 (the older memo advanced): 32 L2
 *   4 B (the older memo): 1 hit   5 C s1 (the older memo): 32 hits; the stamps now lag:
 *     set 0's line 0 was last touched after line 32
 *   6 line 64: 4 L2, evicts line 32 (the memos' stamps brought up to date first; with the
 *     lagging ones it would evict line 0)   7 B: 1 L2 (32 was evicted), evicts line 0
 *   8 C s0: line 0 again, 1 L2, and 31 hits.
 * C: 65 L2 sectors, 63 hits; B: 2 L2 sectors, 1 hit; lines: 4 L2 sectors. */
static void test_l1_memo_pair(void **state)
{
  struct cc_cache_device d = device("sm_90", "h100,sms=1,l1=8K,l1-ways=2,index=mod");
  struct cc_cache *c = start(&d, 1, 3);
  const struct cc_cache_counts *col = cc_cache_insn(c, 1), *bc = cc_cache_insn(c, 2);
  const struct cc_cache_counts *ln = cc_cache_insn(c, 0);
  (void)state;
  load_column(c, 0);
  load_broadcast(c, 32 * 128);
  load_column(c, 32);
  load_broadcast(c, 32 * 128);
  load_column(c, 32);
  load_line(c, 0, 64);
  load_broadcast(c, 32 * 128);
  load_column(c, 0);
  cc_cache_end_kernel(c);
  assert_reads(col, 65, 63);
  assert_reads(bc, 2, 1);
  assert_reads(ln, 4, 0);
  cc_cache_free(c);
}

/* Three L1 memos taking turns (gesummv's loop: the columns of A and B, then x[j]) must give
 * the full replay's figures, LRU order included. L1 16 KiB, 4 ways, index=mod: 32 sets,
 * line n in set n mod 32. A: the column of lines 0..31 (slot 1), B: of lines 32..63 (slot
 * 2), x: a broadcast of line 64's first word (slot 3), all of set 0's lines but B's and
 * A's first in the column; line loads slot 0 (4 sectors):
 *   1 A s0: 32 L2   2 B s0: 32 L2   3 x: 1 L2 (memos x, B, A)   4 A s0: 32 hits
 *   5 B s0: 32 hits   6 x: 1 hit (memos x, B, A again)   7 A s1 (advanced): 32 L2
 *   8 B s1 (advanced): 32 L2   9 x: 1 hit   10 A s1: 32 hits (memos A, x, B: set 0's
 *     stamps say 0, 32, 64 from the oldest, the last touches 32, 64, 0)
 *   11 line 96: 4 L2 (the stamps brought up to date first)   12 line 128: 4 L2, evicts
 *     line 32 (with the lagging stamps: line 0)   13 B s0: line 32 again, 1 L2, and 31
 *     hits; evicts line 64 (the oldest of 0, 64, 96, 128 after 11)   14 x: 1 L2.
 * A: 64 L2 sectors, 64 hits; B: 65 and 63; x: 2 and 2; lines: 8 L2 sectors. */
static void test_l1_memo_list(void **state)
{
  struct cc_cache_device d = device("sm_90", "h100,sms=1,l1=16K,l1-ways=4,index=mod");
  struct cc_cache *c = start(&d, 1, 4);
  const struct cc_cache_counts *ca = cc_cache_insn(c, 1), *cb = cc_cache_insn(c, 2);
  const struct cc_cache_counts *cx = cc_cache_insn(c, 3), *ln = cc_cache_insn(c, 0);
  (void)state;
  for (uint64_t s = 0; s < 2; s++) /* 1-6, 7-9 */
    for (int k = 0; k < 2 - (int)s; k++) {
      load_lanes(c, 1, 32 * s, 128);
      load_lanes(c, 2, 32 * 128 + 32 * s, 128);
      load_lanes(c, 3, 64 * 128, 0);
    }
  load_lanes(c, 1, 32, 128);
  load_line(c, 0, 96);
  load_line(c, 0, 128);
  load_lanes(c, 2, 32 * 128, 128);
  load_lanes(c, 3, 64 * 128, 0);
  cc_cache_end_kernel(c);
  assert_reads(ca, 64, 64);
  assert_reads(cb, 65, 63);
  assert_reads(cx, 2, 2);
  assert_reads(ln, 8, 0);
  cc_cache_free(c);
}

/* The store memo tests' cache: 1 SM, L1 512 bytes, L2 8 KiB of 2 ways (32 sets, line l in
 * set l % 32); slot 0 loads, slot 1 stores. */
#define STORE_MEMO_SPEC "h100,sms=1,l1=512,l1-ways=2,l2=8K,l2-ways=2,index=mod"

/* Store a (slot 1, 32 lanes of 4 bytes) to the column of lines 0..31, 4 x col bytes into
 * each line's sector 0. */
static void store_column(struct cc_cache *c, struct cc_warp_access *a, uint32_t col)
{
  for (int l = 0; l < CC_WARP_SIZE; l++)
    a->addr[l] = 128u * (uint32_t)l + 4 * col;
  cc_cache_access(c, a, 0);
}

/* The store memo (a column store whose lines went to known L2 ways) must give the full
 * replay's figures. L2 8 KiB, 2 ways, index=mod: 32 sets, line n in set n mod 32. Store
 * record w (slot 1): lane l writes 4 bytes at 128 l + 4 w, sector 0 of lines 0..31 (one
 * per set). Records w = 0..7, each followed by a load of line 32 + w (slot 0, the other
 * way of set w): the 8 stores fill sector 0 of every line (valid after the 8th: no hit
 * before); a 9th store (w = 0) hits all 32. Loads of lines 64 and 96 (set 0) evict line
 * 32 (loaded once, early), then line 0 (touched by the 9th store before 64): its dirty
 * sector goes to DRAM, 32 bytes. A 10th store (w = 1) finds line 0's way holding 96: the
 * full replay allocates line 0 again (4 bytes of sector 0: not valid, no hit) and hits
 * the other 31. Stores: 320 L2 write sectors, 0 + 32 + 31 = 63 hits, 32 DRAM bytes
 * written, 32 sectors dirty at the end (lines 1..31 and line 0's new partial one): 1024
 * bytes. Each store is 32 sectors: 8 L1 wavefronts, 80 in all. */
static void test_store_memo(void **state)
{
  struct cc_cache_device d = device("sm_90", STORE_MEMO_SPEC);
  struct cc_cache *c = start(&d, 1, 2);
  const struct cc_cache_counts *st = cc_cache_insn(c, 1), *ld = cc_cache_insn(c, 0);
  struct cc_warp_access a = rec(1, CC_ACCESS_STORE, 0, 0, 0xffffffffu);
  (void)state;
  for (uint32_t w = 0; w < 10; w++) {
    store_column(c, &a, w == 9 ? 1 : w % 8);
    if (w < 8)
      load_line(c, 0, 32 + w);
    if (w == 8) {
      load_line(c, 0, 64);
      load_line(c, 0, 96);
    }
  }
  cc_cache_end_kernel(c);
  assert_int_equal(st->l2_sectors_write, 320);
  assert_int_equal(st->l2_hit_sectors, 63);
  assert_int_equal(st->dram_bytes_written, 32);
  assert_int_equal(st->l2_dirty_bytes_at_end, 1024);
  assert_int_equal(st->l1_wavefronts, 80);
  assert_int_equal(ld->l2_sectors_read, 40);
  assert_int_equal(ld->dram_bytes_read, 1280);
  cc_cache_free(c);
}

/* The store memo's stores when L2's LRU clock is about to wrap (cache.c touch renumbers
 * the stamps at UINT32_MAX; store_held_sector's inline path must leave that step to
 * it). STORE_MEMO_SPEC's cache. Slot 0 loads line 32 (set 0)
 * and line 33 (set 1); slot 1 stores a column (lanes on lines 0..31, 4 bytes of sector
 * 0 each), then the same column 4 bytes further, through the store memo; then slot 0
 * loads line 65 (set 1: lines 33 and 1 there, 33 the older one). By hand: line 65
 * evicts clean line 33, nothing is written back during the kernel; L2 reads lines 32, 33
 * and 65 from DRAM (384 bytes); the 32 partly written sectors stay dirty (32 x 32 =
 * 1024 bytes). With the clock set to UINT32_MAX - 1 before the second store, line 0
 * takes the last stamp and line 1's touch renumbers: the same figures. A stamp that
 * wrapped to 0 would make line 1 the older one (the victim, written back). */
static void store_memo_near_wrap(int near_wrap)
{
  struct cc_cache_device d = device("sm_90", STORE_MEMO_SPEC);
  struct cc_cache *c = start(&d, 1, 2);
  const struct cc_cache_counts *st = cc_cache_insn(c, 1), *ld = cc_cache_insn(c, 0);
  struct cc_warp_access a = rec(1, CC_ACCESS_STORE, 0, 0, 0xffffffffu);
  load_line(c, 0, 32);
  load_line(c, 0, 33);
  store_column(c, &a, 0);
  if (near_wrap)
    c->l2.clock = UINT32_MAX - 1;
  store_column(c, &a, 1);
  load_line(c, 0, 65);
  cc_cache_end_kernel(c);
  assert_int_equal(st->l2_sectors_write, 64);
  assert_int_equal(st->l2_hit_sectors, 0);
  assert_int_equal(st->dram_bytes_written, 0);
  assert_int_equal(st->dram_bytes_read, 0);
  assert_int_equal(st->l2_dirty_bytes_at_end, 1024);
  assert_int_equal(ld->l2_sectors_read, 12);
  assert_int_equal(ld->dram_bytes_read, 384);
  cc_cache_free(c);
}

static void test_store_memo_clock(void **state)
{
  (void)state;
  store_memo_near_wrap(0);
  store_memo_near_wrap(1);
}

/* A trace may hold a global load at the address of a local one (0xc000000000000000 is
 * where the model puts the local area of CTA 0's warp 0 on SM 0). On the P100 global
 * loads bypass L1 (L2 only) and local ones allocate there: the global load after the
 * local one must go to L2 (4 sectors: the line L2 holds since the local load, 4 L2 hits),
 * not take the local load's L1 memo. Slot 0 local, slot 1 global; between them a global
 * column store (slot 2, 32 lines: it leaves the L1 memo as it is) gives the replay other
 * lines to find if the global load skipped gathering its own. */
static void test_memo_spaces(void **state)
{
  struct cc_cache_device d = device("sm_60", "p100,index=mod");
  struct cc_cache *c = start(&d, 1, 3);
  struct cc_warp_access loc = rec(0, CC_ACCESS_LOAD, 0, 0, 0xffffffffu);
  struct cc_warp_access glob = rec(1, CC_ACCESS_LOAD, 0, 0xc000000000000000ull, 0xffffffffu);
  struct cc_warp_access st = rec(2, CC_ACCESS_STORE, 0, 0, 0xffffffffu);
  const struct cc_cache_counts *g = cc_cache_insn(c, 1);
  (void)state;
  loc.space = CC_SPACE_LOCAL;
  for (int l = 0; l < CC_WARP_SIZE; l++)
    st.addr[l] = 0x100000u + 128u * (uint32_t)l;
  cc_cache_access(c, &loc, 0);
  cc_cache_access(c, &st, 0);
  cc_cache_access(c, &glob, 0);
  assert_int_equal(g->l1_hit_sectors, 0);
  assert_int_equal(g->l2_sectors_read, 4);
  assert_int_equal(g->l2_hit_sectors, 4);
  cc_cache_free(c);
}

/* Addresses at the top of the 64-bit space (a hostile trace can hold any; fuzz_trace found
 * the first): a lane's bytes past 2^64 - 1 wrap to address 0, as its address does, and
 * every record touches a few sectors, never a range running from 0 to 2^64.
 *  A: one lane, 4 bytes at 2^64 - 25: bytes 2^64 - 25 .. 2^64 - 22, the top sector: 1 L2
 *     read sector, 64 DRAM bytes (the H100's unit: the top sector pair; 32 before the
 *     unit was modelled; it read the whole 2^64 before, from 0 up).
 *  B: one lane, 4 bytes at 2^64 - 2: the top sector and sector 0 (bytes 0, 1): 2 sectors.
 *  C: 32 lanes of 4 bytes from 2^64 - 64 (the contiguous fast form): 64 bytes at the top
 *     (2 sectors of the top line) and 64 from address 0 (2 sectors of line 0): 4 sectors
 *     (none were counted before: the range's end wrapped below its start).
 * Each record has its own slot. L1 keeps what earlier records read (the top line in set
 * 1, line 0 in set 0: no eviction): B hits A's top sector (1 hit, 1 L2 read); C hits
 * sector 3 of the top line and sector 0 of line 0 (2 hits) and reads sectors 2 and 1
 * (2 L2 reads). */
static void test_address_wrap(void **state)
{
  struct cc_cache_device d = device("sm_90", SMALL);
  struct cc_cache *c = start(&d, 1, 3);
  struct cc_warp_access a = rec(0, CC_ACCESS_LOAD, 0, 0, 1u);
  (void)state;
  a.addr[0] = UINT64_MAX - 24;
  cc_cache_access(c, &a, 0);
  a = rec(1, CC_ACCESS_LOAD, 0, 0, 1u);
  a.addr[0] = UINT64_MAX - 1;
  cc_cache_access(c, &a, 0);
  a = rec(2, CC_ACCESS_LOAD, 0, UINT64_MAX - 63, 0xffffffffu);
  cc_cache_access(c, &a, 0);
  cc_cache_end_kernel(c);
  assert_int_equal(cc_cache_insn(c, 0)->l2_sectors_read, 1);
  assert_int_equal(cc_cache_insn(c, 0)->dram_bytes_read, 64);
  assert_int_equal(cc_cache_insn(c, 1)->l1_hit_sectors, 1); /* A's top sector */
  assert_int_equal(cc_cache_insn(c, 1)->l2_sectors_read, 1); /* sector 0 */
  assert_int_equal(cc_cache_insn(c, 2)->l1_hit_sectors, 2);
  assert_int_equal(cc_cache_insn(c, 2)->l2_sectors_read, 2);
  cc_cache_free(c);
}

/* L1 capacity from the carveout (CUDA C Programming Guide, 9.0: 256 KB unified, shared
 * memory 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KB; 1 KB reserved per CTA). */
static void test_l1_capacity(void **state)
{
  struct cc_cache_device h100 = device("sm_90", "h100");
  struct cc_cache_device big = device("sm_90", "h100,smem=48K");
  struct cc_cache_device fixed = device("sm_90", "h100,carveout=100");
  struct cc_cache_device a100 = device("sm_80", "a100");
  (void)state;
  /* 256 threads: 2048 / 256 = 8 CTAs per SM (< 32): 8 x 1 KB -> carveout 8: 248 KB */
  assert_int_equal(cc_cache_resident_ctas(&h100, 256), 8);
  assert_int_equal(cc_cache_l1_bytes(&h100, 256), 248 * 1024);
  /* 32 threads: 64 by threads, 32 by the CTA limit: 32 KB -> carveout 32: 224 KB */
  assert_int_equal(cc_cache_resident_ctas(&h100, 32), 32);
  assert_int_equal(cc_cache_l1_bytes(&h100, 32), 224 * 1024);
  /* 48 KB of shared memory per CTA, 8 CTAs: 392 KB, more than any: the largest, 228:
   * 28 KB of L1 */
  assert_int_equal(cc_cache_l1_bytes(&big, 256), 28 * 1024);
  /* carveout=100: 156 KB */
  assert_int_equal(cc_cache_l1_bytes(&fixed, 256), 156 * 1024);
  /* A100: 192 KB unified, 8 KB carveout for 8 CTAs: 184 KB */
  assert_int_equal(cc_cache_l1_bytes(&a100, 256), 184 * 1024);
}

/* Bad --cache specs: each a usage error naming what is wrong. */
static void check_bad(const char *arch, const char *spec, const char *want)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 1;
  int rc = cc_cache_device_get(arch, spec, NULL, &d, &on, &err);
  if (rc != CC_ERR_USAGE || !strstr(err.msg, want))
    fail_msg("--cache %s on %s: status %d, message '%s' (want usage error with '%s')", spec,
             arch, rc, err.msg, want);
}

static void test_bad_specs(void **state)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 1;
  (void)state;
  check_bad("sm_90", "b200", "unknown device 'b200'");
  check_bad("sm_90", "b200", "h100 (sm_90), h200 (sm_90)");        /* lists the known ones */
  check_bad("sm_80", "h100", "h100 is a sm_90 device but the model is sm_80");
  check_bad("sm_90", "h100,l1=100K", "power of two");
  check_bad("sm_90", "h100,l2=1K,l2-ways=3", "3 ways do not divide its 8 lines");
  check_bad("sm_90", "h100,l1=512,l1-ways=3", "3 ways do not divide its 4 lines");
  check_bad("sm_90", "h100,l2-ways=0", "1..64");
  check_bad("sm_90", "h100,carveout=50", "use one of: 0, 8, 16, 32, 64, 100, 132, 164, 196, 228");
  check_bad("sm_90", "h100,colour=red", "unknown key");
  check_bad("sm_90", "h100,sms", "KEY=VALUE");
  check_bad("sm_90", "h100,dispatch=random", "rr");
  check_bad("sm_90", "h100,,sms=2", "empty");
  check_bad("sm_90", "h100,dram-bytes=48", "32, 64 or 128");
  check_bad("sm_90", "h100,dram-bytes=256", "32, 64 or 128");
  /* no cache model, no error: off, and cc1.x (no data cache) */
  assert_int_equal(cc_cache_device_get("sm_90", "off", NULL, &d, &on, &err), CC_OK);
  assert_int_equal(on, 0);
  assert_int_equal(cc_cache_device_get("cc1.3", NULL, NULL, &d, &on, &err), CC_OK);
  assert_int_equal(on, 0);
  /* either spelling of an architecture */
  assert_int_equal(cc_cache_device_get("cc9.0", "h200", NULL, &d, &on, &err), CC_OK);
  assert_int_equal(on, 1);
  assert_string_equal(d.name, "h200");
  assert_int_equal(cc_cache_device_get("sm_35", NULL, NULL, &d, &on, &err), CC_OK);
  assert_string_equal(d.name, "k40");
}

/* The calibration file replaces the speeds; a bad one is an input error. */
static void test_calibration(void **state)
{
  char dir[] = "/tmp/cc-calib-XXXXXX", good[64], bad_path[64];
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  FILE *fp;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(good, sizeof good, "%s/good.json", dir);
  snprintf(bad_path, sizeof bad_path, "%s/bad.json", dir);
  fp = fopen(good, "w");
  fputs("{\"device\": \"NVIDIA H200\", \"dram_gbs\": 4000.5, \"l2_gbs\": 9000, "
        "\"lat_dram_ns\": 600}\n", fp);
  fclose(fp);
  fp = fopen(bad_path, "w");
  fputs("{\"dram_gbs\": -1, \"l2_gbs\": 9000}\n", fp);
  fclose(fp);
  assert_int_equal(cc_cache_device_get("sm_90", "h200", good, &d, &on, &err), CC_OK);
  assert_true(d.calibrated);
  assert_true(d.dram_gbs == 4000.5 && d.l2_gbs == 9000 && d.lat_dram_ns == 600);
  assert_true(d.lat_l1_ns == 20); /* not in the file: the table's */
  assert_int_equal(cc_cache_device_get("sm_90", "h200", bad_path, &d, &on, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "'dram_gbs' is not a positive number"));
  assert_int_equal(cc_cache_device_get("sm_90", NULL, "/nonexistent/c.json", &d, &on, &err),
                   CC_ERR_INPUT);
  unlink(good);
  unlink(bad_path);
  rmdir(dir);
}

/* Times from hand-made figures on the H100's defaults (3350 GB/s DRAM, 5500 GB/s L2,
 * 128 bytes a clock at 1.98 GHz = 253.44 GB/s per SM's L1; L1 20 ns, DRAM 500 ns). */
static void test_estimate_and_gain(void **state)
{
  struct cc_cache_device d = device("sm_90", "h100");
  struct cc_cache_kernel k;
  struct cc_cache_counts row;
  struct cc_cache_time t;
  double gain;
  (void)state;
  /* a row-per-thread load, one warp: 8 requests of 32 sectors (ideal 4 each: 32), 8
   * wavefronts each; L1 absorbs 7 of 8: 32 sectors from L2 and DRAM (1024 bytes); the
   * warp waits on DRAM once and on L1 7 times: 500 + 7 x 20 = 640 ns */
  memset(&row, 0, sizeof row);
  row.l1_wavefronts = 64;
  row.l2_sectors_read = 32;
  row.dram_bytes_read = 1024;
  row.waits_dram = 1;
  row.waits_l1 = 7;
  row.latency_ns = 640;
  memset(&k, 0, sizeof k);
  k.total = row;
  k.l1_wavefronts_max_sm = 64;
  k.latency_ns_max_sm = 640;
  cc_cache_estimate(&d, &k, &t);
  /* DRAM 1024 / 3350e3 = 0.000306 us; L2 1024 / 5500e3; L1 8192 / 253.44e3 = 0.03232 us;
   * latency 0.64 us: the estimate */
  assert_true(fabs(t.dram_us - 1024 / 3350e3) < 1e-12);
  assert_true(fabs(t.l1_us - 8192 / 253.44e3) < 1e-9);
  assert_int_equal(t.bound_by, CC_CACHE_BOUND_L1);
  assert_true(fabs(t.estimate_us - 0.64) < 1e-9);
  /* coalesced, the same 1024 DRAM bytes come 128 a request: all 8 requests wait on DRAM,
   * 4000 ns: slower, no gain */
  gain = cc_cache_fix_gain_us(&d, &k, &row, 8, 32, &t);
  assert_true(gain == 0.0);
  assert_true(fabs(t.latency_us - 4.0) < 1e-9);
  /* a transpose-like store: 8 requests x 32 sectors to L2 (ideal 4 each), 64 wavefronts;
   * L1 bound 0.03232 us now, after: 8 wavefronts = 0.00404 us, L2 32 sectors, DRAM the
   * same 1024 bytes (0.000306 us): gain 0.02828 us */
  memset(&row, 0, sizeof row);
  row.l1_wavefronts = 64;
  row.l2_sectors_write = 256;
  row.dram_bytes_written = 1024;
  memset(&k, 0, sizeof k);
  k.total = row;
  k.l1_wavefronts_max_sm = 64;
  gain = cc_cache_fix_gain_us(&d, &k, &row, 8, 32, &t);
  assert_true(fabs(gain - (8192 - 1024) / 253.44e3) < 1e-9);
  assert_int_equal(t.bound_by, CC_CACHE_BOUND_L1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loads_lru),     cmocka_unit_test(test_stores_write_back),
      cmocka_unit_test(test_atomics),       cmocka_unit_test(test_dispatch),
      cmocka_unit_test(test_arch_policies), cmocka_unit_test(test_row_walk),
      cmocka_unit_test(test_l1_capacity),   cmocka_unit_test(test_bad_specs),
      cmocka_unit_test(test_fast_paths),    cmocka_unit_test(test_address_wrap),
      cmocka_unit_test(test_calibration),   cmocka_unit_test(test_estimate_and_gain),
      cmocka_unit_test(test_dram_units),    cmocka_unit_test(test_dirty_at_end),
      cmocka_unit_test(test_reference_lru), cmocka_unit_test(test_l1_memo),
      cmocka_unit_test(test_l1_memo_advance), cmocka_unit_test(test_l1_memo_pair),
      cmocka_unit_test(test_l1_memo_list),
      cmocka_unit_test(test_store_memo),
      cmocka_unit_test(test_store_memo_clock),
      cmocka_unit_test(test_memo_spaces),
      cmocka_unit_test(test_kernels_in_turn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
