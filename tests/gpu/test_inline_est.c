/* Tests for src/gpu/inline_est.c, the launch-sampling estimator of application mode's
 * inline counters. Expected figures by hand from the formulas in inline_est.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/inline_est.h"

/* One site. Head: 2 launches of 10 CTAs, all counted, 100 and 80 requests. Tail: 10
 * launches of 4 CTAs (40 CTAs), 5 measured with 2 of 4 CTAs counted and 10, 12, 8, 10,
 * 10 requests, so Y_i = 2 y_i = 20, 24, 16, 20, 20 (sum 100) over c = 20 CTAs: R = 5,
 * tail = 5 x 40 = 200, total 180 + 200 = 380. Residuals Y_i - 5 x 4: 0, 4, -4, 0, 0,
 * sum of squares 32; V = 10^2 (1 - 5/10) / 5 x 32 / 4 = 80; 5 measured launches, under
 * 30, so the quantile is Chebyshev's sqrt(20) (sample.h): bound = sqrt(20) sqrt(80) / 380
 * = 40 / 380 = 0.105263 (with the normal 1.96 it would be 0.046134). Units: 3 per
 * request in every launch, so the tail's residuals are 3x and the relative bound the
 * same. */
static void test_head_and_tail(void **state)
{
  (void)state;
  double y[] = {100, 80, 10, 12, 8, 10, 10};
  struct cc_inl_fig figs[7];
  double v[7][CC_INL_NADD];
  memset(v, 0, sizeof v);
  for (int i = 0; i < 7; i++) {
    v[i][PTX_INST_F_REQUESTS] = y[i];
    v[i][PTX_INST_F_UNITS] = 3 * y[i];
    v[i][PTX_INST_F_LANES] = 32 * y[i];
    v[i][PTX_INST_F_WAYS] = 7; /* a maximum: not estimated */
    figs[i] = (struct cc_inl_fig){i < 2 ? 10 : 4, i < 2 ? 10 : 2, i < 2, v[i]};
  }
  double est[CC_INL_NADD], breq[2], bun[2];
  cc_inl_estimate(figs, 7, 1, 10, 40, est, breq, bun);
  assert_true(fabs(est[PTX_INST_F_REQUESTS] - 380.0) < 1e-9);
  assert_true(fabs(est[PTX_INST_F_UNITS] - 1140.0) < 1e-9);
  assert_true(fabs(est[PTX_INST_F_LANES] - 32 * 380.0) < 1e-9);
  assert_true(est[PTX_INST_F_WAYS] == 0.0);
  assert_true(fabs(breq[0] - 40.0 / 380.0) < 1e-9);
  assert_true(fabs(bun[0] - 40.0 / 380.0) < 1e-9);
  /* the kernel's totals: the one site's */
  assert_true(fabs(breq[1] - breq[0]) < 1e-12);
}

/* Too few measured tail launches (4 < 5): unknown; every tail launch measured: 0. */
static void test_bound_edges(void **state)
{
  (void)state;
  double v[5][CC_INL_NADD];
  struct cc_inl_fig figs[5];
  memset(v, 0, sizeof v);
  for (int i = 0; i < 5; i++) {
    v[i][PTX_INST_F_REQUESTS] = 10 + i;
    figs[i] = (struct cc_inl_fig){4, 4, 0, v[i]};
  }
  double est[CC_INL_NADD], breq[2], bun[2];
  cc_inl_estimate(figs, 4, 1, 100, 400, est, breq, bun);
  assert_true(isnan(breq[0]));
  /* 4 launches 10..13 = 46 over 16 CTAs, x 400 CTAs = 1150 */
  assert_true(fabs(est[PTX_INST_F_REQUESTS] - 1150.0) < 1e-9);
  cc_inl_estimate(figs, 5, 1, 5, 20, est, breq, bun);
  assert_true(breq[0] == 0.0);
  assert_true(fabs(est[PTX_INST_F_REQUESTS] - 60.0) < 1e-9); /* 10+11+12+13+14 */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_head_and_tail),
      cmocka_unit_test(test_bound_edges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
