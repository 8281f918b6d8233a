/* The views' collector (src/view/collect.c, dwarp.c, html.c) fed by hand: binning, the
 * cell figures, the dWarp sample and the JSON object, against figures derived in the
 * comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "view/view.h"

/* one warp record of slot 0 (global 4-byte load), all lanes, lane l at base + l * stride */
static struct cc_warp_access rec(uint32_t ctax, uint32_t warp, uint64_t base, uint64_t stride)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.cta[0] = ctax;
  a.warp = warp;
  a.kind = CC_ACCESS_LOAD;
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = 0xFFFFFFFFu;
  for (int l = 0; l < 32; l++)
    a.addr[l] = base + (uint64_t)l * stride;
  return a;
}

/* Grid 200 x 100 = 20,000 CTAs > 16,384 cells: x binned by 2 (200 / 2 x 100 = 10,000),
 * so CTAs (0,0) and (1,0) share cell 0. Block 64 threads = 2 warps.
 * CTA (0,0): warps 0 and 1 read 128 contiguous aligned bytes: 4 sectors, ideal 4.
 * CTA (1,0): warp 0 reads lanes 128 bytes apart: 32 sectors, ideal 4 (excess 28); warp 1
 * as before. Cell 0: 2 CTAs, 4 warps, 4 requests, 4 + 4 + 32 + 4 = 44 sectors, 28 excess.
 * dWarp from warp 0 of CTA (0,0): 0 for the three alike; CTA (1,0) warp 0: d_glob = 28
 * sectors x 32 B = 896 B, x 1/1024 = 0.875, one op: 0.875. Mean over 4 warps 0.21875.
 * The views under cc1.0 and sm_90 (the line t.cu:3 of the one instruction):
 * - sm_90, cell 0: 4 executions, 4 requests, 44 transactions (sectors), 1,408 bytes,
 *   excess 44 x 32 - 32 x 16 ideal = 896 bytes.
 * - cc1.0, cell 0: a contiguous warp is two half-warps each filling a 64-byte segment
 *   (base 0, 128, 256 are 64-aligned): 2 requests, 2 x 64 bytes, no excess; the strided
 *   warp: 2 requests, one 32-byte transaction per lane (32, 1,024 bytes), excess 1,024 -
 *   128 = 896. Sum: 4 executions, 8 requests, 38 transactions, 1,408 bytes, 896 excess.
 * - per line, both models: 4 executions, 896 / 32 = 28 excess.
 * - the representative's op under cc1.0: [2 requests, 2 transactions, 128 bytes, 4
 *   sectors, 4 ideal, 0 excess, [lanes 0xffff = 65535, 64 bytes, request 0, offset 0,
 *   lanes 0xffff0000 = 4294901760, 64, request 1, offset 64]].
 * Sample: the representative, warp 1 of the first CTA, and the outlier (1,0,0) warp 0. */
static void test_bins_cells_sample(void **state)
{
  struct cc_insn_info insn = {0, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.global.f32 %f1, [%rd1];",
                              "t.cu", 3, 0, NULL, 0};
  struct cc_kernel_info k = {"k", "_Z1kv", {200, 100, 1}, {64, 1, 1}, 1, &insn, 0, NULL};
  struct cc_warp_access r[4] = {rec(0, 0, 0, 4), rec(0, 1, 128, 4), rec(1, 0, 4096, 128),
                                rec(1, 1, 256, 4)};
  struct cc_view *v;
  struct cc_access_sink s;
  struct cc_err err;
  cJSON *dw, *sampled;
  char *page = NULL;
  size_t len = 0;
  FILE *fp;
  (void)state;
  assert_int_equal(cc_view_new("cc1.0,sm_90", NULL, &v, &err), CC_OK);
  s = cc_view_sink(v);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (int i = 0; i < 4; i++)
    assert_int_equal(s.access(s.ctx, &r[i], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);

  dw = cc_view_dwarp_json(v);
  assert_non_null(dw);
  assert_true(cJSON_GetObjectItem(dw, "warps")->valuedouble == 4);
  assert_true(cJSON_GetObjectItem(dw, "mean")->valuedouble == 0.21875);
  assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(dw, "max"), "dwarp")->valuedouble == 0.875);
  sampled = cJSON_GetObjectItem(dw, "sampled");
  assert_int_equal(cJSON_GetArraySize(sampled), 3);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(sampled, 0), "role")->valuestring,
                      "representative");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(sampled, 1), "role")->valuestring,
                      "first-cta");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(sampled, 2), "role")->valuestring,
                      "outlier");
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(sampled, 2), "cta"), 0)
                  ->valuedouble == 1);
  cJSON_Delete(dw);

  fp = open_memstream(&page, &len);
  assert_int_equal(cc_view_html_write(fp, v, NULL, "t.cu", &err), CC_OK);
  fclose(fp);
  assert_non_null(strstr(page, "\"bin\":[2,1],\"nx\":100,\"ny\":100"));
  assert_non_null(strstr(page, "\"cells\":[[2,4,0.21875,0.875],[0,"));
  assert_non_null(strstr(page, "\"costs\":{\"cc1.0\":[[4,8,38,1408,896,0,0,0],[0,"));
  assert_non_null(strstr(page, "\"sm_90\":[[4,4,44,1408,896,0,0,0],[0,"));
  assert_non_null(strstr(page, "\"lines\":[{\"file\":\"t.cu\",\"line\":3}]"));
  assert_non_null(strstr(page, "\"line_cells\":{\"cc1.0\":[[4,28,0,0,"));
  assert_non_null(strstr(page, "\"sm_90\":[[4,28,0,0,"));
  assert_non_null(strstr(page, "\"cc1.0\":[2,2,128,4,4,0,[65535,64,0,0,4294901760,64,1,64]]"));
  free(page);
  cc_view_free(v);
}

/* The page's data document (the JSON between id="cc-data"> and </script>), parsed. */
static cJSON *page_data(const struct cc_view *v)
{
  char *page = NULL, *start, *end;
  size_t len = 0;
  struct cc_err err;
  cJSON *d;
  FILE *fp = open_memstream(&page, &len);
  assert_int_equal(cc_view_html_write(fp, v, NULL, "t.cu", &err), CC_OK);
  fclose(fp);
  start = strstr(page, "id=\"cc-data\">");
  assert_non_null(start);
  start += strlen("id=\"cc-data\">");
  end = strstr(start, "</script>");
  assert_non_null(end);
  *end = '\0';
  d = cJSON_Parse(start);
  assert_non_null(d);
  free(page);
  return d;
}

/* The per-line grid's bound: grid 128 x 128 = 16,384 CTAs (no binning), 4 models, 9
 * instructions on 9 lines: 2^19 entries / (16,384 cells x 4 models) = 8 lines get a
 * per-line grid, the 9th does not (the page says so). One record of the 9th line's
 * instruction in CTA (0,0): its line is known (lines has 9 entries, li 8), and the first
 * line's grid under sm_90 is all zero. */
static void test_line_bound(void **state)
{
  struct cc_insn_info insns[9];
  struct cc_kernel_info k = {"k", "_Z1kv", {128, 128, 1}, {32, 1, 1}, 9, insns, 0, NULL};
  struct cc_warp_access r = rec(0, 0, 0, 4);
  struct cc_view *v;
  struct cc_access_sink s;
  struct cc_err err;
  cJSON *d, *lc;
  (void)state;
  for (uint32_t i = 0; i < 9; i++)
    insns[i] = (struct cc_insn_info){i, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld", "t.cu", i + 1,
                                     0, NULL, 0};
  r.insn_slot = 8;
  assert_int_equal(cc_view_new("cc1.0,cc1.2,cc2.0,sm_90", NULL, &v, &err), CC_OK);
  s = cc_view_sink(v);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &r, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  d = page_data(v);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "lines")), 9);
  lc = cJSON_GetObjectItem(d, "line_cells");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(lc, "cc1.0")), 8);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(lc, "sm_90")), 8);
  /* 16,384 cells x [executions, excess] */
  assert_int_equal(cJSON_GetArraySize(cJSON_GetArrayItem(cJSON_GetObjectItem(lc, "sm_90"), 0)),
                   2 * 16384);
  assert_true(cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(lc, "sm_90"), 0), 0)
                  ->valuedouble == 0);
  assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "insns"), 8), "li")
                  ->valuedouble == 8);
  cJSON_Delete(d);
  cc_view_free(v);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bins_cells_sample),
      cmocka_unit_test(test_line_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
