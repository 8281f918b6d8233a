/* Unit tests of cc_access_progression (src/access/access.c): which records are one
 * whole-warp progression going up, each case derived by hand from the definition in
 * access.h (32 active lanes, lane l at addr[0] + l x step, addr[0] + 31 step + size - 1
 * at most 2^64 - 1). The analysis's and the sector model's fast paths trust it: a record
 * it accepts wrongly would get a row's figures (tests/analysis/test_analysis_fast.c and
 * tests/model/test_model_fastpath.c compare those paths with the references). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "access/access.h"

/* 32 active lanes of size bytes at a0 + l x step (mod 2^64). */
static struct cc_warp_access warp(uint64_t a0, uint64_t step, uint32_t size)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_LOAD;
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = size;
  a.active = 0xffffffffu;
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    a.addr[l] = a0 + l * step;
  return a;
}

/* cc_access_progression of a: whether it says yes, and with which step. */
static void expect(const struct cc_warp_access *a, int yes, uint64_t want)
{
  uint64_t step = 12345;
  assert_int_equal(cc_access_progression(a, &step), yes);
  assert_int_equal(step, yes ? want : 12345); /* left alone on a no */
}

static void test_rows_columns_broadcasts(void **state)
{
  struct cc_warp_access a;
  (void)state;
  a = warp(0x1000, 4, 4); /* a row of floats */
  expect(&a, 1, 4);
  a = warp(0x1000, 16384, 4); /* a column of a 4096-float matrix */
  expect(&a, 1, 16384);
  a = warp(0x1004, 0, 4); /* x[j]: every lane one address */
  expect(&a, 1, 0);
  a = warp(0x1000, 2, 4); /* overlapping lanes are a progression too */
  expect(&a, 1, 2);
  a = warp(0x1000, 12, 4); /* an array of 12-byte structs */
  expect(&a, 1, 12);
}

static void test_not_progressions(void **state)
{
  struct cc_warp_access a;
  (void)state;
  a = warp(0x10000, (uint64_t)-4, 4); /* going down */
  expect(&a, 0, 0);
  a = warp(0x1000, 4, 4);
  a.addr[31] += 4; /* the last lane off */
  expect(&a, 0, 0);
  a = warp(0x1000, 4, 4);
  a.addr[17] -= 1; /* a middle lane off by a byte */
  expect(&a, 0, 0);
  a = warp(0x1000, 4, 4);
  a.addr[2] = a.addr[3]; /* lanes 2 and 3 swapped in part */
  expect(&a, 0, 0);
  a = warp(0x1000, 4, 4);
  a.active = 0x7fffffffu; /* lane 31 inactive: not a whole warp */
  expect(&a, 0, 0);
  a.active = 0;
  expect(&a, 0, 0);
}

/* The top of memory: 32 lanes of 4 bytes, step 4, whose last byte is 2^64 - 1 start at
 * 2^64 - 128; one byte higher, the last lane's last byte would be address 0. */
static void test_top_of_memory(void **state)
{
  struct cc_warp_access a;
  (void)state;
  a = warp(UINT64_MAX - 127, 4, 4);
  expect(&a, 1, 4);
  a = warp(UINT64_MAX - 126, 4, 4);
  expect(&a, 0, 0);
  /* a broadcast of 8 bytes ending at 2^64 - 1, and one a byte higher */
  a = warp(UINT64_MAX - 7, 0, 8);
  expect(&a, 1, 0);
  a = warp(UINT64_MAX - 6, 0, 8);
  expect(&a, 0, 0);
  /* size 0 is read as 1: step 1 from 2^64 - 32 ends at 2^64 - 1 */
  a = warp(UINT64_MAX - 31, 1, 0);
  expect(&a, 1, 1);
  /* step 2^60: 31 steps are 31 x 2^60 > 2^64, though the lanes are affine mod 2^64;
   * step 2^59: 31 x 2^59 + 3 < 2^64, a progression */
  a = warp(0, 1ull << 60, 4);
  expect(&a, 0, 0);
  a = warp(0, 1ull << 59, 4);
  expect(&a, 1, 1ull << 59);
  /* the largest step from 0 with 4-byte lanes: 31 x step + 3 <= 2^64 - 1, step =
   * (2^64 - 4) / 31 rounded down */
  a = warp(0, (UINT64_MAX - 3) / 31, 4);
  expect(&a, 1, (UINT64_MAX - 3) / 31);
  a = warp(0, (UINT64_MAX - 3) / 31 + 1, 4);
  expect(&a, 0, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rows_columns_broadcasts),
    cmocka_unit_test(test_not_progressions),
    cmocka_unit_test(test_top_of_memory),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
