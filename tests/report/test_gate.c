/* The --fail-on expression parser and the comparison of a gate (report/ci.h). Columns
 * are counted by hand, 1-based, over the expression as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "report/ci.h"

static void parses(const char *expr, enum cc_gate_metric m, enum cc_gate_op op, double v,
                   const char *text)
{
  struct cc_gate g;
  struct cc_err err = {0};
  assert_int_equal(cc_report_gate_parse(expr, &g, &err), CC_OK);
  assert_int_equal(g.metric, m);
  assert_int_equal(g.op, op);
  assert_true(g.value == v);
  assert_string_equal(g.text, text);
  cc_report_gate_release(&g);
}

static void test_parse_ok(void **state)
{
  (void)state;
  parses("efficiency<0.5", CC_GATE_EFFICIENCY, CC_GATE_LT, 0.5, "efficiency<0.5");
  parses("  excess-sectors >  0 ", CC_GATE_EXCESS_SECTORS, CC_GATE_GT, 0, "excess-sectors>0");
  parses("sectors-per-request>=4", CC_GATE_SECTORS_PER_REQUEST, CC_GATE_GE, 4,
         "sectors-per-request>=4");
  parses("bank-conflicts<=1e3", CC_GATE_BANK_CONFLICTS, CC_GATE_LE, 1000, "bank-conflicts<=1e3");
  parses("wavefronts-per-request==1", CC_GATE_WAVEFRONTS_PER_REQUEST, CC_GATE_EQ, 1,
         "wavefronts-per-request==1");
  parses("kernel.efficiency!=-.25", CC_GATE_KERNEL_EFFICIENCY, CC_GATE_NE, -0.25,
         "kernel.efficiency!=-.25");
  parses("kernel.excess-sectors>7", CC_GATE_KERNEL_EXCESS_SECTORS, CC_GATE_GT, 7,
         "kernel.excess-sectors>7");
  parses("kernel.bank-conflicts>0", CC_GATE_KERNEL_BANK_CONFLICTS, CC_GATE_GT, 0,
         "kernel.bank-conflicts>0");
}

/* The message of a refused expression must contain want. */
static void refused(const char *expr, const char *want)
{
  struct cc_gate g = {0};
  struct cc_err err = {0};
  assert_int_equal(cc_report_gate_parse(expr, &g, &err), CC_ERR_USAGE);
  if (!strstr(err.msg, want))
    fail_msg("'%s': message '%s' lacks '%s'", expr, err.msg, want);
  assert_null(g.text); /* untouched */
}

static void test_parse_errors(void **state)
{
  (void)state;
  refused("", "column 1: expected a metric name");
  refused("  <1", "column 3: expected a metric name");
  /* "efficiency" is columns 1-10, the blank 11, "0.5" starts at 12 */
  refused("efficiency 0.5", "column 12: expected a comparison");
  refused("efficiency<<0.5", "column 12: expected a number");
  refused("efficiency<", "column 12: expected a number");
  refused("efficiency=0.5", "column 11: expected a comparison");
  refused("efficiency<0.5 x", "column 16: unexpected text after the number");
  refused("efficiency<1e999", "column 12: expected a finite number");
  refused("  effcy<1", "column 3: unknown metric 'effcy'; known metrics: efficiency, "
          "excess-sectors, sectors-per-request, bank-conflicts, wavefronts-per-request, "
          "kernel.efficiency, kernel.excess-sectors, kernel.bank-conflicts");
}

static void test_trips(void **state)
{
  struct cc_gate g = {NULL, CC_GATE_EFFICIENCY, CC_GATE_LT, 0.5};
  (void)state;
  assert_true(cc_report_gate_trips(&g, 0.125));
  assert_false(cc_report_gate_trips(&g, 0.5));
  assert_false(cc_report_gate_trips(&g, NAN)); /* not measured: never trips */
  g.op = CC_GATE_LE;
  assert_true(cc_report_gate_trips(&g, 0.5));
  g.op = CC_GATE_GT;
  assert_false(cc_report_gate_trips(&g, 0.5));
  assert_true(cc_report_gate_trips(&g, 0.75));
  g.op = CC_GATE_GE;
  assert_true(cc_report_gate_trips(&g, 0.5));
  g.op = CC_GATE_EQ;
  assert_true(cc_report_gate_trips(&g, 0.5));
  assert_false(cc_report_gate_trips(&g, 0.25));
  g.op = CC_GATE_NE;
  assert_true(cc_report_gate_trips(&g, 0.25));
  assert_false(cc_report_gate_trips(&g, NAN));
  assert_string_equal(cc_report_gate_metric_name(CC_GATE_KERNEL_BANK_CONFLICTS),
                      "kernel.bank-conflicts");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_ok),
    cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_trips),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
