/* cc_strbuf_printf (util/mem.h): appends grow the string and keep it NUL-terminated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/mem.h"

static void test_appends(void **state)
{
  struct cc_strbuf b = {NULL, 0, 0};
  (void)state;
  cc_strbuf_printf(&b, "%s", "");
  assert_string_equal(b.s, "");
  assert_int_equal(b.len, 0);
  cc_strbuf_printf(&b, "x=%d", 42);
  cc_strbuf_printf(&b, ", %s", "done");
  assert_string_equal(b.s, "x=42, done");
  assert_int_equal(b.len, 10);
  /* 1000 appends of 3 bytes: 3000 bytes, every growth kept the earlier text */
  for (int i = 0; i < 1000; i++)
    cc_strbuf_printf(&b, "%03d", i % 1000);
  assert_int_equal(b.len, 3010);
  assert_memory_equal(b.s + 10, "000001002", 9);
  assert_string_equal(b.s + 3007, "999");
  free(b.s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_appends)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
