/* The L2 write policy measured on the H100 (src/cache/cache.c, "write policy"; figures
 * in bench/results/cache-h100-2026-11-27-probes-run.md): partly written sectors reaching
 * DRAM are read-modify-written (32 bytes read, 32 written), at most partial-ways lines of
 * a set hold partly written sectors, at most dirty-ways lines of a set are dirty. Every
 * expected figure is derived by hand in the comment above its check. Conventions as in
 * test_cache.c: lines of 128 bytes, sectors of 32, "index=mod" puts line n in set
 * n mod sets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache.h"

/* 1 SM; L2 2 KiB = 16 lines, 4 ways -> 4 sets: lines 0, 4, 8, 12 share set 0 */
#define FOUR_WAYS "h100,sms=1,l1=512,l1-ways=2,l2=2K,l2-ways=4,index=mod"
/* L2 1 KiB = 8 lines, 2 ways -> 4 sets: lines 0, 4, 8 share set 0 */
#define TWO_WAYS "h100,sms=1,l1=512,l1-ways=2,l2=1K,l2-ways=2,index=mod"

static struct cc_cache_device device(const char *spec)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  if (cc_cache_device_get("sm_90", spec, NULL, &d, &on, &err) != CC_OK)
    fail_msg("cc_cache_device_get(sm_90, %s): %s", spec, err.msg);
  assert_int_equal(on, 1);
  return d;
}

/* A global store by instruction 0 of CTA 0: lane i (of mask) writes 4 bytes at line *
 * 128 + 4 i. Mask 0x1: 4 bytes of sector 0 (partly written); 0xff: all of sector 0. */
static void store(struct cc_cache *c, uint64_t line, uint32_t mask)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_STORE;
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = mask;
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = line * 128 + 4u * (uint32_t)i;
  cc_cache_access(c, &a, 0);
}

/* Runs stores of `mask` into each line of lines[0..n) on device spec; the kernel's
 * figures in *k. */
static void run_stores(const char *spec, const uint64_t *lines, int n, uint32_t mask,
                       struct cc_cache_kernel *k)
{
  static const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  struct cc_cache_device d = device(spec);
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_begin_kernel(c, grid, block, 1);
  for (int i = 0; i < n; i++)
    store(c, lines[i], mask);
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, k);
  cc_cache_free(c);
}

static const uint64_t set0[4] = {0, 4, 8, 12};

/* The kernel's DRAM bytes read, written during it, and left dirty at its end. */
static void expect_dram(const struct cc_cache_kernel *k, uint64_t read, uint64_t written,
                        uint64_t dirty_at_end)
{
  assert_int_equal(k->total.dram_bytes_read, read);
  assert_int_equal(k->total.dram_bytes_written, written);
  assert_int_equal(k->total.l2_dirty_bytes_at_end, dirty_at_end);
}

/* The sm_90 devices carry the measured limits (2 and 5 of 16 ways); the others none. */
static void test_defaults(void **state)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  (void)state;
  d = device("h100");
  assert_int_equal(d.l2_partial_ways, 2);
  assert_int_equal(d.l2_dirty_ways, 5);
  d = device("h200,partial-ways=0,dirty-ways=7");
  assert_int_equal(d.l2_partial_ways, 0);
  assert_int_equal(d.l2_dirty_ways, 7);
  assert_int_equal(cc_cache_device_get("sm_80", "a100", NULL, &d, &on, &err), CC_OK);
  assert_int_equal(d.l2_partial_ways, 0);
  assert_int_equal(d.l2_dirty_ways, 0);
  assert_int_not_equal(
      cc_cache_device_get("sm_90", "h100,partial-ways=x", NULL, &d, &on, &err), CC_OK);
  assert_non_null(strstr(err.msg, "0..64"));
  assert_int_not_equal(cc_cache_device_get("sm_90", "h100,dirty-ways=65", NULL, &d, &on, &err),
                       CC_OK);
}

/* One 4-byte store into each of K = 4 lines of one set (4 ways: nothing is evicted),
 * partial-ways=2, dirty-ways off. Line 0, then 4: one and two partial lines in the set.
 * Line 8: the set already holds 2 other partial lines (0, 4): the least recently used,
 * line 0, sends its partly written sector to DRAM: 32 bytes read, 32 written. Line 12:
 * the others are 4 and 8: line 4 goes the same way. So DRAM = (K - 2) x 32 bytes read
 * and as many written: 64 and 64; the last 2 lines' sectors stay dirty: 64 bytes at the
 * end. Without the limit (partial-ways=0): nothing reaches DRAM, 4 x 32 dirty at the
 * end. */
static void test_partial_limit(void **state)
{
  struct cc_cache_kernel k;
  (void)state;
  run_stores(FOUR_WAYS ",partial-ways=2,dirty-ways=0", set0, 4, 0x1u, &k);
  assert_int_equal(k.total.l2_sectors_write, 4);
  expect_dram(&k, 64, 64, 64);
  assert_int_equal(k.l2_evictions, 0);
  run_stores(FOUR_WAYS ",partial-ways=0,dirty-ways=0", set0, 4, 0x1u, &k);
  expect_dram(&k, 0, 0, 128);
}

/* Whole-sector stores (8 lanes: 32 bytes of sector 0) are not partial: partial-ways=1
 * does nothing to them, no DRAM byte (4 x 32 dirty at the end). */
static void test_partial_limit_whole_sectors(void **state)
{
  struct cc_cache_kernel k;
  (void)state;
  run_stores(FOUR_WAYS ",partial-ways=1,dirty-ways=0", set0, 4, 0xffu, &k);
  expect_dram(&k, 0, 0, 128);
}

/* dirty-ways=3, whole-sector stores into lines 0, 4, 8, 12 of set 0, then line 0 again.
 * Lines 0, 4, 8 become dirty (2 others at most: within the limit). Line 12: 3 others are
 * dirty: the least recently used, line 0, is written back: 32 bytes, no read (a whole
 * sector), and stays in L2 clean. Line 0 again: an L2 hit (valid), dirty again; the
 * others 4, 8, 12 are dirty: line 4 is written back, 32 more. Written 64, read 0; dirty
 * at the end: lines 8, 12, 0, 96 bytes; the second store to line 0 hits its sector. */
static void test_dirty_limit(void **state)
{
  static const uint64_t lines[5] = {0, 4, 8, 12, 0};
  struct cc_cache_kernel k;
  (void)state;
  run_stores(FOUR_WAYS ",partial-ways=0,dirty-ways=3", lines, 5, 0xffu, &k);
  expect_dram(&k, 0, 64, 96);
  assert_int_equal(k.total.l2_hit_sectors, 1);
  assert_int_equal(k.l2_evictions, 0);
}

/* Eviction of a partly written sector (2 ways, so neither limit binds: a set holds at
 * most 1 line besides the new one). 4-byte stores into lines 0, 4, 8 of set 0: line 8
 * evicts line 0 (LRU) with its partly written sector: with the policy (the h100's
 * default) a read-modify-write, 32 read + 32 written; without it (partial-ways=0) 32
 * written alone. Whole-sector stores: 32 written, no read, either way. Dirty at the end:
 * lines 4 and 8, 64 bytes. */
static void test_partial_eviction(void **state)
{
  struct cc_cache_kernel k;
  (void)state;
  run_stores(TWO_WAYS, set0, 3, 0x1u, &k);
  assert_int_equal(k.l2_evictions, 1);
  expect_dram(&k, 32, 32, 64);
  run_stores(TWO_WAYS ",partial-ways=0", set0, 3, 0x1u, &k);
  expect_dram(&k, 0, 32, 64);
  run_stores(TWO_WAYS, set0, 3, 0xffu, &k);
  expect_dram(&k, 0, 32, 64);
}

/* A partly written sector sent to DRAM leaves L2: a later load of it reads DRAM again.
 * FOUR_WAYS, partial-ways=2: 4-byte stores into lines 0, 4, 8 (line 0's sector goes to
 * DRAM, 32 + 32), then a load of 4 bytes of line 0's sector 0 by instruction 0 (the same
 * slot): not valid in L2, its 64-byte unit is read: 64 more. Read 96, written 32; lines
 * 4 and 8 keep their partial sectors dirty: 64 at the end. */
static void test_partial_flushed_leaves(void **state)
{
  static const uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  struct cc_cache_device d = device(FOUR_WAYS ",partial-ways=2,dirty-ways=0");
  struct cc_cache *c = cc_cache_new(&d);
  struct cc_warp_access a;
  struct cc_cache_kernel k;
  (void)state;
  cc_cache_begin_kernel(c, grid, block, 1);
  for (int i = 0; i < 3; i++)
    store(c, set0[i], 0x1u);
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_LOAD;
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = 0x1u;
  cc_cache_access(c, &a, 0);
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, &k);
  expect_dram(&k, 96, 32, 64);
  cc_cache_free(c);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_partial_limit),
      cmocka_unit_test(test_partial_limit_whole_sectors),
      cmocka_unit_test(test_dirty_limit),
      cmocka_unit_test(test_partial_eviction),
      cmocka_unit_test(test_partial_flushed_leaves),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
