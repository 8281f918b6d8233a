/* tests/cli: the Nsight tools' patterns in output file names (outname.c,
 * cc_cli_expand_path) and their use by the option parser (options.c: --json, --csv,
 * --sarif, --html, --trace, --dump). Expected names are written out by hand from the
 * patterns: %q{VAR} the variable's value, %p getpid() in decimal, %h gethostname, %% '%'. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "cli/gpu.h"

static void expect_msg(const struct cc_err *err, const char *needle)
{
  if (!strstr(err->msg, needle))
    fail_msg("message '%s' lacks '%s'", err->msg, needle);
}

/* expand(value) must give want */
static void expect_name(const char *value, const char *want)
{
  struct cc_err err = {0};
  char *out = NULL;
  int rc = cc_cli_expand_path("--json", value, &out, &err);
  if (rc != CC_OK)
    fail_msg("'%s' failed: %s", value, err.msg);
  assert_string_equal(out, want);
  free(out);
}

/* expand(value) must fail with CC_ERR_USAGE and a message holding each needle */
static void expect_error(const char *value, const char *n1, const char *n2)
{
  struct cc_err err = {0};
  char *out = (char *)"untouched";
  assert_int_equal(cc_cli_expand_path("--json", value, &out, &err), CC_ERR_USAGE);
  assert_null(out);
  expect_msg(&err, n1);
  if (n2)
    expect_msg(&err, n2);
}

static void plain_names_unchanged(void **state)
{
  expect_name("r.json", "r.json");
  expect_name("", "");
  expect_name("-", "-");
  expect_name("dir/a b.json", "dir/a b.json");
}

static void env_variable(void **state)
{
  setenv("CC_TEST_RANK", "3", 1);
  setenv("CC_TEST_EMPTY", "", 1);
  expect_name("r%q{CC_TEST_RANK}.json", "r3.json");
  expect_name("%q{CC_TEST_RANK}%q{CC_TEST_RANK}", "33");
  expect_name("a%q{CC_TEST_EMPTY}b", "ab"); /* set but empty: the empty string */
}

static void pid_host_percent(void **state)
{
  char want[300], host[256];
  snprintf(want, sizeof want, "p%ld.json", (long)getpid());
  expect_name("p%p.json", want);
  assert_int_equal(gethostname(host, sizeof host), 0);
  host[sizeof host - 1] = '\0';
  snprintf(want, sizeof want, "%s-x", host);
  expect_name("%h-x", want);
  expect_name("100%%.json", "100%.json");
  expect_name("%%p", "%p"); /* %% first: the p is literal */
  expect_name("%%%%", "%%");
}

static void errors_name_position(void **state)
{
  unsetenv("CC_TEST_UNSET");
  /* positions are 1-based columns of the '%' */
  expect_error("r%q{CC_TEST_UNSET}.json", "CC_TEST_UNSET", "position 2");
  expect_error("ab%x", "'%x' at position 3", NULL);
  expect_error("r%i.json", "'%i' at position 2", NULL);
  expect_error("abc%", "lone '%' at position 4", NULL);
  expect_error("%q", "position 1", "braces");
  expect_error("x%qRANK", "position 2", "braces");
  expect_error("xy%q{RANK", "position 3", "no closing");
  expect_error("%q{}", "position 1", "names no");
  expect_error("%%%y", "'%y' at position 3", NULL); /* after %%: the third character */
}

/* the parser expands each output option's value, once */
static void options_expand(void **state)
{
  char *argv[] = {"coalcheck", "k.ptx", "--json", "r%q{CC_TEST_RANK}.json",
                  "--csv", "c%q{CC_TEST_RANK}.csv", "--sarif", "s%%.sarif",
                  "--html", "v%q{CC_TEST_RANK}.html", "--trace", "t%q{CC_TEST_RANK}.cctrace",
                  "--dump", "out=o%q{CC_TEST_RANK}.bin"};
  struct cc_run_opts o;
  struct cc_err err = {0};
  setenv("CC_TEST_RANK", "7", 1);
  assert_int_equal(cc_cli_parse_run(14, argv, &o, &err), CC_OK);
  assert_string_equal(o.json_path, "r7.json");
  assert_string_equal(o.csv_path, "c7.csv");
  assert_string_equal(o.sarif_path, "s%.sarif");
  assert_string_equal(o.html_path, "v7.html");
  assert_string_equal(o.trace_path, "t7.cctrace");
  assert_int_equal(o.ndumps, 1);
  assert_string_equal(o.dumps[0].path, "o7.bin");
  cc_cli_opts_release(&o);
}

static void options_refuse_bad_pattern(void **state)
{
  char *argv[] = {"coalcheck", "k.ptx", "--csv", "c%z.csv"};
  char *argv2[] = {"coalcheck", "k.ptx", "--dump", "out=%q{CC_TEST_UNSET}"};
  struct cc_run_opts o;
  struct cc_err err = {0};
  unsetenv("CC_TEST_UNSET");
  assert_int_equal(cc_cli_parse_run(4, argv, &o, &err), CC_ERR_USAGE);
  expect_msg(&err, "--csv");
  expect_msg(&err, "'%z' at position 2");
  cc_cli_opts_release(&o);
  assert_int_equal(cc_cli_parse_run(4, argv2, &o, &err), CC_ERR_USAGE);
  expect_msg(&err, "CC_TEST_UNSET");
  assert_int_equal(o.ndumps, 0);
  cc_cli_opts_release(&o);
}

/* the executable mode expands its own output options (app.c) before anything runs */
static void app_mode_expands(void **state)
{
  char *gpu_json[] = {"coalcheck", "--gpu-json", "g%y.json", "/proc/self/exe", NULL};
  char *json[] = {"coalcheck", "--json", "r%q{CC_TEST_UNSET}.json", "/proc/self/exe", NULL};
  char *trace[] = {"coalcheck", "--trace", "t%", "/proc/self/exe", NULL};
  struct cc_err err = {0};
  unsetenv("CC_TEST_UNSET");
  assert_int_equal(cc_cli_cmd_app(4, gpu_json, &err), CC_ERR_USAGE);
  expect_msg(&err, "bad --gpu-json 'g%y.json': unknown pattern '%y' at position 2");
  assert_int_equal(cc_cli_cmd_app(4, json, &err), CC_ERR_USAGE);
  expect_msg(&err, "environment variable CC_TEST_UNSET");
  assert_int_equal(cc_cli_cmd_app(4, trace, &err), CC_ERR_USAGE);
  expect_msg(&err, "lone '%' at position 2");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(plain_names_unchanged),
    cmocka_unit_test(env_variable),
    cmocka_unit_test(pid_host_percent),
    cmocka_unit_test(errors_name_position),
    cmocka_unit_test(options_expand),
    cmocka_unit_test(options_refuse_bad_pattern),
    cmocka_unit_test(app_mode_expands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
