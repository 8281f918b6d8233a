/* Tests of the launch filter (src/gpu/filter.c): COALCHECK_KERNEL_REGEX,
 * COALCHECK_LAUNCH_SKIP, COALCHECK_LAUNCH_COUNT with Nsight Compute's meaning (skip and
 * count apply to the launches whose name matches). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/gpu.h"

static void no_constraint(void **state)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init(&f, NULL, "", NULL, &err), CC_OK);
  for (int i = 0; i < 5; i++)
    assert_int_equal(cc_gpu_filter_select(&f, "k(int)", "_Z1ki"), 1);
  cc_gpu_filter_release(&f);
}

static void regex_skip_count(void **state)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init(&f, "^transpose", "1", "2", &err), CC_OK);
  /* launches: t b t t t -> matching t#0 skipped, t#1 and t#2 profiled, t#3 past count */
  assert_int_equal(cc_gpu_filter_select(&f, "transpose(float*)", "_Z9transposePf"), 0);
  assert_int_equal(cc_gpu_filter_select(&f, "copy(float*)", "_Z4copyPf"), 0);
  assert_int_equal(cc_gpu_filter_select(&f, "transpose(float*)", "_Z9transposePf"), 1);
  assert_int_equal(cc_gpu_filter_select(&f, "transpose(float*)", "_Z9transposePf"), 1);
  assert_int_equal(cc_gpu_filter_select(&f, "transpose(float*)", "_Z9transposePf"), 0);
  assert_int_equal(f.matched, 4);
  cc_gpu_filter_release(&f);
}

static void regex_matches_mangled(void **state)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init(&f, "^_Z6copy_tIfE", NULL, NULL, &err), CC_OK);
  assert_int_equal(cc_gpu_filter_select(&f, "void copy_t<float>(float*, float const*, int)",
                                        "_Z6copy_tIfEvPT_PKS0_i"), 1);
  assert_int_equal(cc_gpu_filter_select(&f, "void copy_t<double>(double*, double const*, int)",
                                        "_Z6copy_tIdEvPT_PKS0_i"), 0);
  assert_int_equal(cc_gpu_filter_select(&f, NULL, NULL), 0);
  cc_gpu_filter_release(&f);
}

/* a count of 0 selects nothing: an error, as ncu's --launch-count 0 (issue 16) */
static void count_zero(void **state)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init(&f, NULL, NULL, "0", &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "COALCHECK_LAUNCH_COUNT 0 selects no launch"));
  cc_gpu_filter_release(&f);
}

static void expect_usage(const char *re, const char *skip, const char *count,
                         const char *needle)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init(&f, re, skip, count, &err), CC_ERR_USAGE);
  if (strstr(err.msg, needle) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, needle);
  cc_gpu_filter_release(&f);
}

static void errors(void **state)
{
  expect_usage("(", NULL, NULL, "COALCHECK_KERNEL_REGEX '(' does not compile at position 1: unmatched '('");
  expect_usage(NULL, "abc", NULL, "COALCHECK_LAUNCH_SKIP is not a non-negative integer: 'abc'");
  expect_usage(NULL, "3x", NULL, "COALCHECK_LAUNCH_SKIP is not a non-negative integer");
  expect_usage(NULL, NULL, "-1", "COALCHECK_LAUNCH_COUNT is not a non-negative integer: '-1'");
  expect_usage(NULL, NULL, "99999999999999999999999", "COALCHECK_LAUNCH_COUNT");
}

static void spaces(void **state)
{
  uint32_t m = 0;
  struct cc_err err = {0};
  (void)state;
  /* bits 1 << enum cc_space: global 1, shared 2, local 4; none given: all = 7 */
  assert_int_equal(cc_gpu_spaces_parse(NULL, &m, &err), CC_OK);
  assert_int_equal(m, 7);
  assert_int_equal(cc_gpu_spaces_parse("", &m, &err), CC_OK);
  assert_int_equal(m, 7);
  assert_int_equal(cc_gpu_spaces_parse("global", &m, &err), CC_OK);
  assert_int_equal(m, 1);
  assert_int_equal(cc_gpu_spaces_parse("local,shared", &m, &err), CC_OK);
  assert_int_equal(m, 6);
  assert_int_equal(cc_gpu_spaces_parse("global,global", &m, &err), CC_OK);
  assert_int_equal(m, 1);
  assert_int_equal(cc_gpu_spaces_parse("global,gpu", &m, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "'gpu' is not a memory space"));
  assert_int_equal(cc_gpu_spaces_parse("global,", &m, &err), CC_ERR_USAGE); /* empty word */
  assert_non_null(strstr(err.msg, "'' is not a memory space"));
  assert_int_equal(cc_gpu_spaces_parse("globals", &m, &err), CC_ERR_USAGE); /* no prefix */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(no_constraint),         cmocka_unit_test(regex_skip_count),
      cmocka_unit_test(regex_matches_mangled), cmocka_unit_test(count_zero),
      cmocka_unit_test(errors),                cmocka_unit_test(spaces),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
