/* tests/launch: a buffer's LAYOUT, soa(BYTES,OFFSET,...[,block=B]) (launch.h): its
 * spelling, its checks, the blocked addresses, the fill and the dump that undoes it. Every
 * expected byte is derived by hand in the comment above its assertion. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/launch.h"
#include "launch/launch_impl.h"

static struct cc_launch_arg parse_ok(const char *spec)
{
  struct cc_launch_arg a;
  struct cc_err err = {0};
  if (cc_launch_arg_parse(spec, NULL, &a, &err) != CC_OK)
    fail_msg("parsing '%s' failed: %s", spec, err.msg);
  return a;
}

static void expect_parse_error(const char *spec, const char *needle)
{
  struct cc_launch_arg a;
  struct cc_err err = {0};
  int rc = cc_launch_arg_parse(spec, NULL, &a, &err);
  if (rc != CC_ERR_USAGE)
    fail_msg("'%s': expected a usage error, got %d (%s)", spec, rc, err.msg);
  if (!strstr(err.msg, needle))
    fail_msg("'%s': message '%s' lacks '%s'", spec, err.msg, needle);
  assert_null(a.name);
  assert_null(a.layout.offsets); /* released on failure */
}

static void test_parse(void **state)
{
  struct cc_launch_arg a;
  char text[64];
  (void)state;
  /* struct body {double t; float v, a; int steps;} + 4 bytes of padding: runs at 0, 8, 12,
     16, 20 of 24 bytes; the INIT after it is the ordinary one */
  a = parse_ok("b=f32[6*n]:soa(24,0,8,12,16,20):random:11");
  assert_int_equal(a.layout.struct_bytes, 24);
  assert_int_equal(a.layout.block, 32);
  assert_int_equal(a.layout.npieces, 5);
  assert_int_equal(a.layout.offsets[4], 20);
  assert_int_equal(a.init, CC_INIT_RANDOM);
  assert_int_equal(a.seed, 11);
  assert_string_equal(a.size_expr, "6*n");
  /* the canonical spelling gives the text back; block=32 is the default, left out */
  assert_int_equal(cc_launch_layout_format(&a.layout, text, sizeof text), 20);
  assert_string_equal(text, "soa(24,0,8,12,16,20)");
  /* too small a buffer for the text: -1 */
  assert_int_equal(cc_launch_layout_format(&a.layout, text, 10), -1);
  cc_launch_arg_release(&a);
  a = parse_ok("p=u8[8]:soa(2,0,1,block=4):iota");
  assert_int_equal(a.layout.block, 4);
  assert_int_equal(cc_launch_layout_format(&a.layout, text, sizeof text), 18);
  assert_string_equal(text, "soa(2,0,1,block=4)");
  cc_launch_arg_release(&a);
  /* without a layout nothing changes */
  a = parse_ok("c=f32[4]:const:1");
  assert_int_equal(a.layout.struct_bytes, 0);
  cc_launch_arg_release(&a);
}

static void test_parse_errors(void **state)
{
  (void)state;
  expect_parse_error("b=f32[8]:soa(8,0,4", "missing ')'");
  expect_parse_error("b=f32[8]:soa(8,0,4):", "unknown initialiser");
  expect_parse_error("b=f32[8]:soa(8,0,4)", "missing ':INIT' after the layout");
  expect_parse_error("b=f32[8]:soa(0,0):zero", "BYTES, the structure's size");
  expect_parse_error("b=f32[8]:soa(8,4):zero", "must start at 0 and ascend");
  expect_parse_error("b=f32[8]:soa(8,0,4,4):zero", "must start at 0 and ascend");
  expect_parse_error("b=f32[8]:soa(8,0,8):zero", "offset 8 is not inside the 8-byte");
  expect_parse_error("b=f32[8]:soa(8):zero", "give the offsets");
  expect_parse_error("b=f32[8]:soa(8,0,x):zero", "expected a byte offset or block=B");
  expect_parse_error("b=f32[8]:soa(8,0,block=0):zero", "block=B needs B");
  expect_parse_error("b=f32[8]:soa(8,0,block=4,4):zero", "unexpected ','");
  expect_parse_error("b=f32[8]:soa(99999999999,0):zero", "BYTES, the structure's size");
}

/* soa(24,0,8,12,16,20), block 32: element e's run k at (e / 32) * 768 + 32 * o + (e % 32) *
 * z. Element 33's v (o 8, z 4): 768 + 256 + 4 = 1028; element 31's t (o 0, z 8): 248;
 * element 0's padding (o 20, z 4): 640. */
static void test_address(void **state)
{
  struct cc_launch_arg a = parse_ok("b=f32[6*n]:soa(24,0,8,12,16,20):zero");
  (void)state;
  assert_int_equal(cc_launch_layout_address(&a.layout, 33, 1), 1028);
  assert_int_equal(cc_launch_layout_address(&a.layout, 31, 0), 248);
  assert_int_equal(cc_launch_layout_address(&a.layout, 0, 4), 640);
  cc_launch_arg_release(&a);
}

/* u8[8]:soa(2,0,1,block=4):iota: the elements (0,1) (2,3) (4,5) (6,7) of 2 bytes; in a
 * block of 4 the first bytes come first: 0 2 4 6, then the second: 1 3 5 7. Undone it is
 * iota again. 16 bytes are two blocks: 0 2 4 6 1 3 5 7 8 10 12 14 9 11 13 15. */
static void test_fill_and_undo(void **state)
{
  struct cc_launch_arg a = parse_ok("p=u8[n]:soa(2,0,1,block=4):iota");
  static const uint8_t one[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  static const uint8_t two[16] = {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15};
  uint8_t buf[16];
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_launch_fill(&a, 8, buf, &err), CC_OK);
  assert_memory_equal(buf, one, 8);
  assert_int_equal(cc_launch_fill(&a, 16, buf, &err), CC_OK);
  assert_memory_equal(buf, two, 16);
  cc_launch_layout_apply(&a.layout, buf, 16, 1);
  for (int i = 0; i < 16; i++)
    assert_int_equal(buf[i], i);
  /* 6 bytes are 3 structures, not a whole block of 4: the error says to pad to 4 */
  assert_int_equal(cc_launch_fill(&a, 6, buf, &err), CC_ERR_INPUT);
  if (!strstr(err.msg, "pad the buffer to 4 structures"))
    fail_msg("message '%s'", err.msg);
  /* 7 bytes are not whole 2-byte structures */
  assert_int_equal(cc_launch_layout_check(&a.layout, "p", 7, &err), CC_ERR_INPUT);
  if (!strstr(err.msg, "not a whole number of 2-byte structures"))
    fail_msg("message '%s'", err.msg);
  cc_launch_arg_release(&a);
}

/* A round trip restores every byte of a layout with runs of mixed sizes (8, 4, 4, 4, 4). */
static void test_round_trip(void **state)
{
  struct cc_launch_arg a = parse_ok("b=u8[n]:soa(24,0,8,12,16,20):random:3");
  uint8_t *buf = malloc(24 * 64), *orig = malloc(24 * 64);
  struct cc_launch_arg plain = parse_ok("b=u8[n]:random:3");
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_launch_fill(&a, 24 * 64, buf, &err), CC_OK);
  assert_int_equal(cc_launch_fill(&plain, 24 * 64, orig, &err), CC_OK);
  /* the layout moved bytes: element 1's first byte (AoS byte 24) is at 8 */
  assert_int_equal(buf[8], orig[24]);
  assert_memory_not_equal(buf, orig, 24 * 64);
  cc_launch_layout_apply(&a.layout, buf, 24 * 64, 1);
  assert_memory_equal(buf, orig, 24 * 64);
  free(buf);
  free(orig);
  cc_launch_arg_release(&a);
  cc_launch_arg_release(&plain);
}

/* A dump of a laid-out buffer is in the array-of-structures order; the buffer itself is
 * left as the kernel sees it. */
static void test_dump(void **state)
{
  struct cc_launch_arg a = parse_ok("p=u8[8]:soa(2,0,1,block=4):iota");
  uint8_t host[8] = {0, 2, 4, 6, 1, 3, 5, 7}, back[8];
  struct cc_launch_buffer buf = {"p", PTX_TYPE_U8, 8, 8, 0x10000, host, &a.layout};
  char dir[] = "/tmp/cc-test-layout-XXXXXX", path[256];
  struct cc_err err = {0};
  FILE *fp;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/p.bin", dir);
  assert_int_equal(cc_launch_dump(&buf, path, &err), CC_OK);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fread(back, 1, 8, fp), 8);
  fclose(fp);
  for (int i = 0; i < 8; i++)
    assert_int_equal(back[i], i);
  assert_int_equal(host[1], 2); /* unchanged */
  unlink(path);
  rmdir(dir);
  cc_launch_arg_release(&a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse),
    cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_address),
    cmocka_unit_test(test_fill_and_undo),
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_dump),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
