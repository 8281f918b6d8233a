/* cc_popcount32 and cc_popcount64 (util/bits.h) against a count bit by bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/bits.h"

/* The bits set in x, one test a bit: the definition, not the SWAR sums under test. */
static uint32_t by_bit(uint64_t x)
{
  uint32_t n = 0;
  for (uint32_t b = 0; b < 64; b++)
    n += (uint32_t)((x >> b) & 1u);
  return n;
}

/* Hand counts: none, all (32 and 64), one lane, alternate lanes (16 of 32), a full
 * byte in every other byte (32 of 64). */
static void test_hand_counts(void **state)
{
  (void)state;
  assert_int_equal(cc_popcount32(0), 0);
  assert_int_equal(cc_popcount32(0xffffffffu), 32);
  assert_int_equal(cc_popcount32(0x80000000u), 1);
  assert_int_equal(cc_popcount32(0xaaaaaaaau), 16);
  assert_int_equal(cc_popcount64(0), 0);
  assert_int_equal(cc_popcount64(UINT64_MAX), 64);
  assert_int_equal(cc_popcount64(1ull << 63), 1);
  assert_int_equal(cc_popcount64(0xff00ff00ff00ff00ull), 32);
}

/* Every single bit, every run of low bits, and 100,000 values of a xorshift generator:
 * both widths agree with the bit-by-bit count (the 32-bit one on the low half). */
static void test_against_bit_by_bit(void **state)
{
  uint64_t x = 0x9e3779b97f4a7c15ull;
  (void)state;
  for (uint32_t b = 0; b < 64; b++) {
    assert_int_equal(cc_popcount64(1ull << b), 1);
    assert_int_equal(cc_popcount64((2ull << b) - 1), b + 1); /* (b = 63: wraps to all) */
  }
  for (uint32_t i = 0; i < 100000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    assert_int_equal(cc_popcount64(x), by_bit(x));
    assert_int_equal(cc_popcount32((uint32_t)x), by_bit((uint32_t)x));
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hand_counts),
    cmocka_unit_test(test_against_bit_by_bit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
