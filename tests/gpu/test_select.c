/* Tests of the Nsight-Compute-style launch selection (src/gpu/filter.c,
 * cc_gpu_filter_init_spec / _select), shared by the executable mode's injection library
 * and kernel mode: --kernel-name NAME (exact) and regex:RE (search), --kernel-name-base
 * function|demangled|mangled, --kernel-id ::NAME:N and :::N, --launch-skip,
 * --launch-count, and the errors (positions in a bad regex, count 0, context ids).
 *
 * The launch sequence used below (demangled, mangled), written out by hand:
 *   0 "void ns::tiled<32>(float*)"  "_ZN2ns5tiledILi32EEEvPf"   function "tiled"
 *   1 "copy(float*)"                "_Z4copyPf"                 function "copy"
 *   2 "void ns::tiled<32>(float*)"  (again)                     tiled, invocation 2
 *   3 "copy(float*)"                                            copy, invocation 2
 *   4 "void ns::tiled<32>(float*)"                              tiled, invocation 3 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/gpu.h"

static const char *const dem[5] = {"void ns::tiled<32>(float*)", "copy(float*)",
                                   "void ns::tiled<32>(float*)", "copy(float*)",
                                   "void ns::tiled<32>(float*)"};
static const char *const mang[5] = {"_ZN2ns5tiledILi32EEEvPf", "_Z4copyPf",
                                    "_ZN2ns5tiledILi32EEEvPf", "_Z4copyPf",
                                    "_ZN2ns5tiledILi32EEEvPf"};

/* Runs the five launches through spec; want: '1' selected, '0' not, per launch. */
static void expect_selection(const struct cc_gpu_filter_spec *spec, const char *want)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  char got[6] = {0};
  if (cc_gpu_filter_init_spec(&f, spec, &err) != CC_OK)
    fail_msg("init failed: %s", err.msg);
  for (int i = 0; i < 5; i++)
    got[i] = cc_gpu_filter_select(&f, dem[i], mang[i]) ? '1' : '0';
  cc_gpu_filter_release(&f);
  assert_string_equal(got, want);
}

static void expect_error(const struct cc_gpu_filter_spec *spec, const char *n1,
                         const char *n2)
{
  struct cc_gpu_filter f;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_filter_init_spec(&f, spec, &err), CC_ERR_USAGE);
  if (!strstr(err.msg, n1) || (n2 && !strstr(err.msg, n2)))
    fail_msg("message '%s' lacks '%s' or '%s'", err.msg, n1, n2 ? n2 : "");
  cc_gpu_filter_release(&f);
}

static void function_names(void **state)
{
  char b[64];
  assert_string_equal(cc_gpu_function_name("void ns::tiled<32>(float*)", b, sizeof b), "tiled");
  assert_string_equal(cc_gpu_function_name("copy(float*)", b, sizeof b), "copy");
  assert_string_equal(cc_gpu_function_name("plain", b, sizeof b), "plain");
  assert_string_equal(cc_gpu_function_name("void a::b<c::d<1> >(e::f*)", b, sizeof b), "b");
}

static void exact_name_bases(void **state)
{
  /* default base function: "tiled" is exact; "ns::tiled" and "tile" are not names */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "tiled"}, "10101");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "tile"}, "00000");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "ns::tiled"}, "00000");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "copy(float*)",
                                                .name_base = "demangled"}, "01010");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "copy",
                                                .name_base = "demangled"}, "00000");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "_Z4copyPf",
                                                .name_base = "mangled"}, "01010");
}

static void regex_name(void **state)
{
  /* a search, not a whole match: "il" is in "tiled" */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "regex:il"}, "10101");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "regex:^(copy|tiled)$"},
                   "11111");
  /* demangled base: "ns::" is only in the demangled name */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "regex:ns::",
                                                .name_base = "demangled"}, "10101");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "regex:ns::"}, "00000");
}

static void skip_count(void **state)
{
  /* matching tiled launches 0, 2, 4: skip 1 -> 2, 4; count 1 -> 2 only */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_name = "tiled", .skip = "1",
                                                .count = "1"}, "00100");
  /* no name: every launch matches; skip 3 -> 3, 4 */
  expect_selection(&(struct cc_gpu_filter_spec){.skip = "3"}, "00011");
  expect_selection(&(struct cc_gpu_filter_spec){.count = "2"}, "11000");
}

static void kernel_id(void **state)
{
  /* ::NAME:N: the N-th launch of NAME (1-based) */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::tiled:2"}, "00100");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::copy:2"}, "00010");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::copy:3"}, "00000");
  /* :::N: the N-th launch of every kernel */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = ":::1"}, "11000");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = ":::2"}, "00110");
  /* ::NAME: every launch of NAME; a regex name; with skip on the matches */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::tiled:"}, "10101");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::regex:^c:"}, "01010");
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = ":::2", .skip = "1"}, "00010");
  /* mangled base: the invocation counts the mangled name */
  expect_selection(&(struct cc_gpu_filter_spec){.kernel_id = "::_Z4copyPf:1",
                                                .name_base = "mangled"}, "01000");
}

static void old_variable_with_options(void **state)
{
  /* COALCHECK_KERNEL_REGEX still searches both names; it and the name must both match */
  expect_selection(&(struct cc_gpu_filter_spec){.regex = "^_ZN2ns"}, "10101");
  expect_selection(&(struct cc_gpu_filter_spec){.regex = "^_ZN2ns", .kernel_name = "copy"},
                   "00000");
}

static void errors(void **state)
{
  /* positions are 1-based within the expression (after "regex:") */
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:a(b"},
               "--kernel-name 'a(b' does not compile at position 2", "unmatched '('");
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:ab[cd"},
               "at position 3: unmatched '['", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:x|*y"},
               "at position 3: a repetition operator repeats nothing", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:a{2,1}"},
               "at position 2: bad interval: its minimum is above", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:ab\\\\\\"},
               "at position 5: a trailing backslash", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_name = "regex:"}, "has no expression",
               NULL);
  expect_error(&(struct cc_gpu_filter_spec){.count = "0"}, "--launch-count 0 selects no launch",
               NULL);
  expect_error(&(struct cc_gpu_filter_spec){.skip = "x"}, "--launch-skip is not", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.name_base = "short"}, "--kernel-name-base 'short'",
               "function, demangled or mangled");
  expect_error(&(struct cc_gpu_filter_spec){.kernel_id = "1:7:k:1"}, "contexts and streams",
               NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_id = "k:1"}, "CONTEXT:STREAM:NAME", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_id = "::k:0"}, "not a positive", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.kernel_id = "::regex:(:1"},
               "--kernel-id '(' does not compile at position 1", NULL);
  expect_error(&(struct cc_gpu_filter_spec){.count = "0", .from_env = 1},
               "COALCHECK_LAUNCH_COUNT 0", NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(function_names),
    cmocka_unit_test(exact_name_bases),
    cmocka_unit_test(regex_name),
    cmocka_unit_test(skip_count),
    cmocka_unit_test(kernel_id),
    cmocka_unit_test(old_variable_with_options),
    cmocka_unit_test(errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
