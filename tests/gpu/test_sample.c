/* Tests of the fast mode's launch sampling and estimator (src/gpu/sample.c) and of the
 * bounds in the library's JSON and text report (src/gpu/report.c). Every expected figure
 * is derived by hand in the comment beside it (sample.c states the estimator). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "gpu/gpu.h"
#include "gpu/sample.h"

#define GLOBAL_F32 ((1u << (CC_GPU_FL_SPACE_SHIFT + CC_SPACE_GLOBAL)) | \
                    (1u << (CC_GPU_FL_SIZE_SHIFT + 2)) | CC_GPU_FL_READ)

static void picks_first_then_period(void **state)
{
  (void)state;
  /* first 4, then indices divisible by 64 */
  for (uint64_t i = 0; i < 4; i++)
    assert_true(cc_gpu_sample_pick(4, 64, i));
  assert_false(cc_gpu_sample_pick(4, 64, 4));
  assert_false(cc_gpu_sample_pick(4, 64, 63));
  assert_true(cc_gpu_sample_pick(4, 64, 64));
  assert_false(cc_gpu_sample_pick(4, 64, 65));
  assert_true(cc_gpu_sample_pick(4, 64, 128));
  /* period 1: every launch */
  assert_true(cc_gpu_sample_pick(0, 1, 12345));
}

static void expansion_estimate_and_bound(void **state)
{
  (void)state;
  struct cc_gpu_est e = {0};
  const double y[] = {10, 12, 14, 16, 18};
  for (int i = 0; i < 5; i++)
    cc_gpu_est_add(&e, y[i]);
  /* n = 5 of N = 50: mean 14, total 50 x 14 = 700; s^2 = (1020 - 5 x 196) / 4 = 10;
   * V = 50^2 (1 - 5/50) 10 / 5 = 4500; bound = 1.96 sqrt(4500) / 700 = 0.187826 */
  assert_float_equal(cc_gpu_est_total(&e, 50), 700.0, 1e-9);
  assert_float_equal(cc_gpu_est_var(&e, 50), 4500.0, 1e-6);
  assert_float_equal(cc_gpu_bound95(700.0, 4500.0), 0.187826, 1e-5);
  /* every launch measured: exact */
  assert_float_equal(cc_gpu_est_var(&e, 5), 0.0, 0.0);
  assert_float_equal(cc_gpu_bound95(70.0, 0.0), 0.0, 0.0);
  /* 4 sampled of 10: below CC_GPU_SAMPLE_MIN_CLT (5): unknown, never 0 */
  struct cc_gpu_est f = {0};
  for (int i = 0; i < 4; i++)
    cc_gpu_est_add(&f, 7.0);
  assert_true(isnan(cc_gpu_est_var(&f, 10)));
  assert_true(isnan(cc_gpu_bound95(70.0, NAN)));
}

static void scale_keeps_relations(void **state)
{
  (void)state;
  /* 10 full-warp coalesced float loads: 320 lanes, 40 sectors = 40 ideal, 1,280 bytes,
   * 310 strides of 4 B */
  struct cc_gpu_pc_stats s;
  cc_gpu_stats_init(&s);
  s.requests = 10, s.lanes = 320, s.sectors = 40, s.ideal = 40, s.bytes = 1280;
  s.stride_count = 310, s.stride_sum = 1240, s.stride_min = 4, s.stride_max = 4;
  s.flags = GLOBAL_F32;
  struct cc_gpu_pc_stats t = s;
  /* x 2.5: 25 requests, 800 lanes, 3,200 bytes, 775 strides summing 3,100, 100 sectors */
  cc_gpu_stats_scale(&t, 2.5);
  assert_int_equal(t.requests, 25);
  assert_int_equal(t.lanes, 800);
  assert_int_equal(t.bytes, 3200);
  assert_int_equal(t.stride_count, 775);
  assert_int_equal(t.stride_sum, 3100);
  assert_int_equal(t.sectors, 100);
  assert_int_equal(t.ideal, 100);
  assert_int_equal(t.stride_max, 4);
  /* x 0.26: executions round(2.6) = 3, lanes round(83.2) = 83, bytes 332; ideal
   * round(10.4) = 10 cannot hold 332 distinct bytes: raised to ceil(332 / 32) = 11, and
   * sectors (also 10) to 11; strides 83 - 3 = 80 */
  t = s;
  cc_gpu_stats_scale(&t, 0.26);
  assert_int_equal(t.requests, 3);
  assert_int_equal(t.lanes, 83);
  assert_int_equal(t.bytes, 332);
  assert_int_equal(t.ideal, 11);
  assert_int_equal(t.sectors, 11);
  assert_int_equal(t.stride_count, 80);
}

/* One launch's figures for slot 0: r full-warp coalesced float loads (4 sectors each);
 * slot 1 (outside the kernel) empty. */
static void one_launch(struct cc_gpu_pc_stats launch[2], uint64_t r)
{
  cc_gpu_stats_init(&launch[0]);
  cc_gpu_stats_init(&launch[1]);
  launch[0].requests = r, launch[0].lanes = 32 * r, launch[0].bytes = 128 * r;
  launch[0].sectors = 4 * r, launch[0].ideal = 4 * r;
  launch[0].stride_count = 31 * r, launch[0].stride_sum = 124 * r;
  launch[0].stride_min = 4, launch[0].stride_max = 4, launch[0].flags = GLOBAL_F32;
}

static void strata_estimate(void **state)
{
  (void)state;
  struct cc_gpu_strata set = {0};
  const uint32_t g1[3] = {4, 1, 1}, g2[3] = {8, 1, 1}, b[3] = {128, 1, 1};
  struct cc_gpu_stratum *k = cc_gpu_strata_get(&set, 1, g1, b);
  assert_ptr_equal(cc_gpu_strata_get(&set, 1, g1, b), k);
  assert_ptr_not_equal(cc_gpu_strata_get(&set, 1, g2, b), k);
  k = &set.k[0]; /* the array may have moved */
  struct cc_gpu_pc_stats launch[2];
  /* stratum 1, no head (first 0), 1 launch in 2: of 10 launches indices 0, 2, 4, 6, 8
   * are measured, with 10, 12, 14, 16, 18 requests */
  int head, measured = 0;
  for (uint64_t i = 0; i < 10; i++)
    if (cc_gpu_stratum_next(k, 0, 2, &head)) {
      assert_false(head);
      one_launch(launch, 10 + 2 * (uint64_t)measured++);
      cc_gpu_stratum_add_launch(k, launch, 1, head);
    }
  assert_int_equal(measured, 5);
  /* stratum 2: first 2 (head: 100 and 200 requests, counted as they are), then 1 in 4
   * of the other 8: indices 4 and 8, 10 and 30 requests: tail = 8 x 20 = 160 */
  struct cc_gpu_stratum *k2 = &set.k[1];
  const uint64_t r2[] = {100, 200, 10, 30};
  measured = 0;
  for (uint64_t i = 0; i < 10; i++)
    if (cc_gpu_stratum_next(k2, 2, 4, &head)) {
      assert_int_equal(head, i < 2);
      one_launch(launch, r2[measured++]);
      cc_gpu_stratum_add_launch(k2, launch, 1, head);
    }
  assert_int_equal(measured, 4);

  struct cc_gpu_pc_stats out[2];
  double br[2], bs[2];
  struct cc_gpu_sample_summary sum;
  cc_gpu_strata_estimate(&set, 1, out, br, bs, &sum);
  /* slot 0: stratum 1: 10 x 14 = 140; stratum 2: 300 + 160 = 460; 600 requests, 2,400
   * sectors. Stratum 2's tail has 2 measured launches (< 5): the bound is unknown */
  assert_int_equal(out[0].requests, 600);
  assert_int_equal(out[0].sectors, 2400);
  assert_true(isnan(br[0]));
  assert_int_equal(out[1].requests, 0);
  assert_int_equal(sum.launches, 20);
  assert_int_equal(sum.sampled, 9);
  assert_true(isnan(sum.bound_req));
  cc_gpu_strata_release(&set);

  /* stratum 1 alone: s^2 = 10, V = 10^2 (1 - 5/10) 10 / 5 = 100, bound 1.96 x 10 / 140;
   * sectors: s^2 = 160, V = 1,600, bound 1.96 x 40 / 560 (the same fraction) */
  k = cc_gpu_strata_get(&set, 1, g1, b);
  measured = 0;
  for (uint64_t i = 0; i < 10; i++)
    if (cc_gpu_stratum_next(k, 0, 2, &head)) {
      one_launch(launch, 10 + 2 * (uint64_t)measured++);
      cc_gpu_stratum_add_launch(k, launch, 1, head);
    }
  cc_gpu_strata_estimate(&set, 1, out, br, bs, &sum);
  assert_int_equal(out[0].requests, 140);
  assert_float_equal(br[0], 1.96 * 10.0 / 140.0, 1e-9);
  assert_float_equal(bs[0], 1.96 * 40.0 / 560.0, 1e-9);
  assert_float_equal(sum.bound_req, br[0], 1e-9);
  cc_gpu_strata_release(&set);
}

static void report_bounds(void **state)
{
  (void)state;
  struct cc_gpu_insn_report in = {.sass_offset = 0x40, .sass = "LDG.E R2, desc[UR4][R2.64]"};
  cc_gpu_stats_init(&in.st);
  in.st.requests = 240, in.st.lanes = 7680, in.st.bytes = 30720, in.st.sectors = 960;
  in.st.ideal = 960, in.st.flags = GLOBAL_F32;
  in.bound_requests = 0.0816, in.bound_sectors = NAN;
  struct cc_gpu_kernel_report k = {.name = "k", .mangled = "_Z1kv", .launches = 11,
                                   .sampled_launches = 6, .bound_requests = 0.0816,
                                   .bound_sectors = NAN, .n = 1, .insns = &in};
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_report_write_json(fp, NULL, &k, 1, &err), CC_OK);
  fclose(fp);
  cJSON *root = cJSON_Parse(buf);
  assert_non_null(root);
  cJSON *kj = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "kernels"), 0);
  assert_int_equal(cJSON_GetObjectItem(kj, "sampled_launches")->valuedouble, 6);
  cJSON *b = cJSON_GetObjectItem(kj, "bound95");
  assert_float_equal(cJSON_GetObjectItem(b, "requests")->valuedouble, 0.0816, 1e-9);
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(b, "sectors"))); /* unknown: null, not 0 */
  cJSON *ij = cJSON_GetArrayItem(cJSON_GetObjectItem(kj, "instructions"), 0);
  assert_true(cJSON_IsObject(cJSON_GetObjectItem(ij, "bound95")));
  cJSON_Delete(root);
  free(buf);
  /* the text table says the sample and the bounds: 8.2% and unknown */
  buf = NULL;
  fp = open_memstream(&buf, &len);
  cc_gpu_report_write_text(fp, &k, 1);
  fclose(fp);
  assert_non_null(strstr(buf, "6 sampled"));
  assert_non_null(strstr(buf, "\u00b18.2%"));
  assert_non_null(strstr(buf, "\u00b1?"));
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(picks_first_then_period), cmocka_unit_test(expansion_estimate_and_bound),
      cmocka_unit_test(scale_keeps_relations), cmocka_unit_test(strata_estimate),
      cmocka_unit_test(report_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
