/* What the man page and completion generators read from the option table
 * (cc_cli_option_taken_by, options.c), and the generators' refusals. The expected
 * commands of each option are written out by hand from docs/usage.md's option tables and
 * src/cli/cli.h (record takes the launch options, report the report options, fix both
 * kinds and its own), not read from the table under test. The generated files themselves
 * are checked by tests/e2e/man_completion.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"

/* The index of option --name in the table; fails when there is none. */
static size_t option_index(const char *name)
{
  for (size_t i = 0; i < cc_cli_option_count(); i++) {
    struct cc_cli_option_doc d;
    cc_cli_option_doc(i, &d);
    if (strcmp(d.name, name) == 0)
      return i;
  }
  fail_msg("no option --%s in the table", name);
  return 0;
}

/* want: one character per command run, record, report, fix, import, help, then the
 * executable mode: 'y' when the option is taken there, '.' when not. */
static void check_taken(const char *name, const char *want)
{
  static const char *const cmds[] = {"run", "record", "report", "fix", "import", "help", NULL};
  size_t i = option_index(name);
  for (size_t c = 0; c < 7; c++) {
    int got = cc_cli_option_taken_by(i, cmds[c]);
    if (got != (want[c] == 'y'))
      fail_msg("--%s taken by %s: %d, expected %c", name, cmds[c] ? cmds[c] : "./app", got,
               want[c]);
  }
}

static void test_taken_by(void **state)
{
  (void)state;
  /*                          run rec rep fix imp help app */
  check_taken("grid",        "yy.y...");  /* a launch option */
  check_taken("arch",        "y.y....");  /* a report option */
  check_taken("json",        "y.yyy.y");  /* report, fix, and the GPU backend's JSON */
  check_taken("transform",   "...y...");  /* fix only */
  check_taken("output",      ".y.y...");  /* record's trace, fix's folder */
  check_taken("trace",       "y...y.y");  /* run, and the executable mode's trace */
  check_taken("kernel-name", "yy..y.y");  /* ncu's launch selection: run, record, ./app */
  check_taken("gpu-json",    "....y.y");  /* the executable mode only */
  check_taken("sample-ctas", "y...y.y");  /* run (--gpu-mode inline) and the executable mode */
  check_taken("quiet",       "yyyyy.y");
  assert_int_equal(cc_cli_option_taken_by(option_index("quiet"), "no-such-command"), 0);
}

static void test_completion_refuses_other_shells(void **state)
{
  struct cc_err err = {CC_OK, ""};
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  (void)state;
  assert_int_equal(cc_cli_write_completion(fp, "fish", &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "--help-completion takes bash or zsh, not 'fish'"));
  assert_int_equal(cc_cli_write_completion(fp, NULL, &err), CC_ERR_USAGE);
  fclose(fp);
  assert_int_equal(len, 0); /* nothing written for a refused shell */
  free(buf);
}

/* --version: five lines, the first "coalcheck VERSION" with VERSION the project's */
static void test_version_lines(void **state)
{
  char *buf = NULL;
  size_t len = 0, lines = 0;
  FILE *fp = open_memstream(&buf, &len);
  (void)state;
  cc_cli_print_version(fp);
  fclose(fp);
  assert_int_equal(strncmp(buf, "coalcheck " CC_PROJECT_VERSION "\n", 11 + strlen(CC_PROJECT_VERSION)), 0);
  for (size_t i = 0; i < len; i++)
    lines += buf[i] == '\n';
  assert_int_equal(lines, 5);
  assert_non_null(strstr(buf, "\ngit revision: "));
  assert_non_null(strstr(buf, "\nGPU backend: "));
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_taken_by),
      cmocka_unit_test(test_completion_refuses_other_shells),
      cmocka_unit_test(test_version_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
