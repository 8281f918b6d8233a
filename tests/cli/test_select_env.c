/* tests/cli: what the executable mode hands the injection library (select.c,
 * cc_cli_selection_spec / cc_cli_selection_setenv): the options become the library's
 * variables (COALCHECK_KERNEL_NAME, _KERNEL_NAME_BASE, _KERNEL_ID, _LAUNCH_SKIP,
 * _LAUNCH_COUNT) and replace any set before, COALCHECK_KERNEL_REGEX included; without
 * options the environment reaches the child as it is, and kernel mode reads the same
 * variables. The library's matching itself is tests/gpu/test_select.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "gpu/gpu.h"

static const char *const vars[] = {"COALCHECK_KERNEL_NAME", "COALCHECK_KERNEL_NAME_BASE",
                                   "COALCHECK_KERNEL_ID", "COALCHECK_LAUNCH_SKIP",
                                   "COALCHECK_LAUNCH_COUNT", "COALCHECK_KERNEL_REGEX"};

static int clear(void **state)
{
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    unsetenv(vars[i]);
  return 0;
}

static void options_become_variables(void **state)
{
  struct cc_cli_selection sel = {"regex:^t", "demangled", "::t:2", "1", "3"};
  setenv("COALCHECK_KERNEL_REGEX", "old", 1);
  setenv("COALCHECK_LAUNCH_SKIP", "9", 1);
  cc_cli_selection_setenv(&sel);
  assert_string_equal(getenv("COALCHECK_KERNEL_NAME"), "regex:^t");
  assert_string_equal(getenv("COALCHECK_KERNEL_NAME_BASE"), "demangled");
  assert_string_equal(getenv("COALCHECK_KERNEL_ID"), "::t:2");
  assert_string_equal(getenv("COALCHECK_LAUNCH_SKIP"), "1");
  assert_string_equal(getenv("COALCHECK_LAUNCH_COUNT"), "3");
  assert_null(getenv("COALCHECK_KERNEL_REGEX")); /* the options alone apply */
}

static void some_options_unset_the_rest(void **state)
{
  struct cc_cli_selection sel = {NULL, NULL, NULL, NULL, "2"};
  setenv("COALCHECK_KERNEL_NAME", "k", 1);
  setenv("COALCHECK_KERNEL_REGEX", "x", 1);
  cc_cli_selection_setenv(&sel);
  assert_null(getenv("COALCHECK_KERNEL_NAME"));
  assert_null(getenv("COALCHECK_KERNEL_REGEX"));
  assert_string_equal(getenv("COALCHECK_LAUNCH_COUNT"), "2");
}

static void no_options_keep_the_environment(void **state)
{
  struct cc_cli_selection none = {NULL, NULL, NULL, NULL, NULL};
  struct cc_gpu_filter_spec spec;
  assert_int_equal(cc_cli_selection_spec(&none, &spec), 0); /* nothing at all */
  setenv("COALCHECK_KERNEL_REGEX", "^t", 1);
  setenv("COALCHECK_LAUNCH_SKIP", "4", 1);
  cc_cli_selection_setenv(&none);
  assert_string_equal(getenv("COALCHECK_KERNEL_REGEX"), "^t");
  assert_string_equal(getenv("COALCHECK_LAUNCH_SKIP"), "4");
  /* kernel mode reads the same variables, and says they came from there */
  assert_int_equal(cc_cli_selection_spec(&none, &spec), 1);
  assert_int_equal(spec.from_env, 1);
  assert_string_equal(spec.regex, "^t");
  assert_string_equal(spec.skip, "4");
}

/* the parser keeps the options for run and record, as given */
static void parser_keeps_options(void **state)
{
  char *argv[] = {"coalcheck", "k.ptx", "--kernel-name", "regex:^s", "--kernel-name-base",
                  "mangled", "--kernel-id", ":::1", "--launch-skip", "1", "--launch-count=2"};
  struct cc_run_opts o;
  struct cc_err err = {0};
  assert_int_equal(cc_cli_parse_cmd(CC_CLI_CMD_RECORD, 11, argv, &o, &err), CC_OK);
  assert_string_equal(o.sel_kernel_name, "regex:^s");
  assert_string_equal(o.sel_name_base, "mangled");
  assert_string_equal(o.sel_kernel_id, ":::1");
  assert_string_equal(o.sel_launch_skip, "1");
  assert_string_equal(o.sel_launch_count, "2");
  cc_cli_opts_release(&o);
  /* not an option of report (a trace holds the launches it holds) */
  assert_int_equal(cc_cli_parse_cmd(CC_CLI_CMD_REPORT, 4, argv, &o, &err), CC_ERR_USAGE);
  cc_cli_opts_release(&o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup(options_become_variables, clear),
    cmocka_unit_test_setup(some_options_unset_the_rest, clear),
    cmocka_unit_test_setup(no_options_keep_the_environment, clear),
    cmocka_unit_test_setup(parser_keeps_options, clear),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
