/* dWarp (EuroVis 2013 Eq. 1-5, src/view/dwarp.c) and the <script> escape of the page,
 * against figures derived by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "view/view.h"

#define ALL 0xFFFFFFFFu

/* identical sequences, all lanes active: every term 0 */
static void test_same(void **state)
{
  struct cc_view_op a[2] = {{0, ALL, 4, 0}, {1, ALL, 32, 0}};
  (void)state;
  assert_true(cc_view_dwarp(a, 2, a, 2) == 0.0);
  assert_true(cc_view_dwarp(NULL, 0, NULL, 0) == 0.0);
}

/* one op, each term alone:
 * - other instruction: d_ins 1 -> 1
 * - half the lanes (0x0000FFFF vs all): d_thrd 32 - 16 = 16, x 1/32 -> 0.5
 * - 4 vs 32 sectors: d_glob 28 x 32 B = 896, x 1/1024 -> 0.875
 * - conflicts 0 vs 4: d_conf 4, x 1/8 -> 0.5 */
static void test_terms(void **state)
{
  struct cc_view_op base = {0, ALL, 4, 0};
  struct cc_view_op ins = {1, ALL, 4, 0}, thrd = {0, 0x0000FFFFu, 4, 0};
  struct cc_view_op glob = {0, ALL, 32, 0}, conf = {0, ALL, 4, 4};
  (void)state;
  assert_true(cc_view_dwarp(&base, 1, &ins, 1) == 1.0);
  assert_true(cc_view_dwarp(&base, 1, &thrd, 1) == 0.5);
  assert_true(cc_view_dwarp(&base, 1, &glob, 1) == 0.875);
  assert_true(cc_view_dwarp(&base, 1, &conf, 1) == 0.5);
  /* Eq. 2 as the paper writes it: a warp with 8 active lanes differs from itself by
   * (32 - 8) / 32 = 0.75 */
  thrd.active = 0xFFu;
  assert_true(cc_view_dwarp(&thrd, 1, &thrd, 1) == 0.75);
}

/* the mean over positions, a missing op compared with no operation: A = [ld 4 sectors],
 * B = [ld 4 sectors, st 32 sectors]: position 0: 0; position 1: d_ins 1 + d_thrd 32/32
 * + d_glob 32 x 32 / 1024 = 3; mean (0 + 3) / 2 = 1.5, symmetric */
static void test_mean(void **state)
{
  struct cc_view_op a[1] = {{0, ALL, 4, 0}};
  struct cc_view_op b[2] = {{0, ALL, 4, 0}, {1, ALL, 32, 0}};
  (void)state;
  assert_true(cc_view_dwarp(a, 1, b, 2) == 1.5);
  assert_true(cc_view_dwarp(b, 2, a, 1) == 1.5);
}

/* <, >, & and U+2028/2029 (E2 80 A8 / E2 80 A9) become \uXXXX; other bytes stay */
static void test_escape(void **state)
{
  char *s = cc_view_script_escape("\"</script><img src=x onerror=alert(1)>&\xE2\x80\xA8"
                                  "\xE2\x80\xA9\xC3\xA9\"");
  (void)state;
  assert_string_equal(s, "\"\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e"
                         "\\u0026\\u2028\\u2029\xC3\xA9\"");
  free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same),
      cmocka_unit_test(test_terms),
      cmocka_unit_test(test_mean),
      cmocka_unit_test(test_escape),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
