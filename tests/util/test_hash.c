/* cc_fnv1a64 and cc_fnv1a64_zeros (util/hash.h) against FNV-1a 64 test vectors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/hash.h"

/* Published FNV-1a 64 vectors (the test vectors of the FNV reference code, Noll's
 * www.isthe.com/chongo/tech/comp/fnv): "" is the offset basis itself; "a" and "foobar". */
static void test_published_vectors(void **state)
{
  (void)state;
  assert_int_equal(cc_fnv1a64(NULL, 0), 0xcbf29ce484222325ull);
  assert_int_equal(cc_fnv1a64("", 0), 0xcbf29ce484222325ull);
  assert_int_equal(cc_fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  assert_int_equal(cc_fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

/* Zero bytes, from the definition: XOR with a zero byte is a no-op, so n zero bytes hash
 * to basis * prime^n mod 2^64: n = 1, 0xcbf29ce484222325 * 0x100000001b3 mod 2^64 =
 * 0xaf63bd4c8601b7df; n = 4, 0x4d25767f9dce13f5 (both multiplied out with
 * arbitrary-precision integers, Python, not with this code).
 * cc_fnv1a64_zeros must give what cc_fnv1a64 gives on a zero-filled buffer. */
static void test_zero_bytes(void **state)
{
  static const uint8_t zero[4096];
  (void)state;
  assert_int_equal(cc_fnv1a64(zero, 1), 0xaf63bd4c8601b7dfull);
  assert_int_equal(cc_fnv1a64_zeros(1), 0xaf63bd4c8601b7dfull);
  assert_int_equal(cc_fnv1a64(zero, 4), 0x4d25767f9dce13f5ull);
  assert_int_equal(cc_fnv1a64_zeros(4), 0x4d25767f9dce13f5ull);
  assert_int_equal(cc_fnv1a64_zeros(0), 0xcbf29ce484222325ull);
  for (uint64_t n = 0; n <= sizeof zero; n += 511)
    assert_int_equal(cc_fnv1a64_zeros(n), cc_fnv1a64(zero, n));
}

/* Order matters (XOR before the multiply): "ab" and "ba" differ, and a byte's change
 * anywhere changes the hash (the launcher's check depends on it). */
static void test_order_and_change(void **state)
{
  uint8_t buf[64];
  (void)state;
  assert_int_not_equal(cc_fnv1a64("ab", 2), cc_fnv1a64("ba", 2));
  memset(buf, 0, sizeof buf);
  uint64_t h0 = cc_fnv1a64(buf, sizeof buf);
  for (size_t i = 0; i < sizeof buf; i++) {
    buf[i] = 1;
    assert_int_not_equal(cc_fnv1a64(buf, sizeof buf), h0);
    buf[i] = 0;
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_published_vectors),
    cmocka_unit_test(test_zero_bytes),
    cmocka_unit_test(test_order_and_change),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
