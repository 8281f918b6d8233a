/* tests/report: the merge of rank reports (merge.c) on small hand-written reports:
 * matching by name, geometry and occurrence; a kernel missing in a rank; the threshold
 * rule (flagged when value - fewest > threshold% of fewest; any excess over a fewest of
 * 0); bad inputs. The figures are the ones written into the reports below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/merge.h"

static char dir[64];

/* A kernel object: name, grid x (0: no geometry), totals requests/sectors/excess/wavefronts,
 * and one global instruction 7 with the same requests. */
static void kernel(FILE *fp, const char *name, unsigned gx, unsigned req, unsigned sec,
                   unsigned exc, unsigned wav, int last)
{
  fprintf(fp, "{\"name\": \"%s\", ", name);
  if (gx)
    fprintf(fp, "\"grid\": [%u, 1, 1], \"block\": [32, 1, 1], ", gx);
  fprintf(fp, "\"totals\": {\"requests\": %u, \"sectors\": %u, \"excess_sectors\": %u, "
          "\"wavefronts\": %u}, \"instructions\": [{\"ptx_index\": 7, \"op\": \"load\", "
          "\"space\": \"global\", \"source\": {\"file\": \"k.cu\", \"line\": 3}, "
          "\"requests\": %u, \"sectors\": %u, \"excess_sectors\": %u}]}%s",
          req, sec, exc, wav, req, sec, exc, last ? "" : ",");
}

static char *path(const char *name)
{
  static char p[8][128];
  static int i;
  char *out = p[i++ % 8];
  snprintf(out, 128, "%s/%s", dir, name);
  return out;
}

static int setup(void **state)
{
  FILE *fp;
  snprintf(dir, sizeof dir, "/tmp/cc-merge-XXXXXX");
  if (!mkdtemp(dir))
    return -1;
  /* rank 0: k (grid 1) twice, then m without geometry; rank 1: k once, m */
  fp = fopen(path("a.json"), "w");
  fprintf(fp, "{\"schema_version\": 3, \"tool_version\": \"t\", \"arch\": \"sm_90\", \"kernels\": [");
  kernel(fp, "k", 1, 10, 40, 0, 0, 0);
  kernel(fp, "k", 1, 20, 80, 0, 0, 0);
  kernel(fp, "m", 0, 5, 5, 0, 0, 1);
  fprintf(fp, "]}\n");
  fclose(fp);
  fp = fopen(path("b.json"), "w");
  fprintf(fp, "{\"schema_version\": 3, \"tool_version\": \"t\", \"arch\": \"sm_90\", \"kernels\": [");
  kernel(fp, "k", 1, 12, 40, 0, 3, 0);
  kernel(fp, "m", 0, 5, 5, 0, 0, 1);
  fprintf(fp, "]}\n");
  fclose(fp);
  fp = fopen(path("sm80.json"), "w");
  fprintf(fp, "{\"schema_version\": 3, \"tool_version\": \"t\", \"arch\": \"sm_80\", \"kernels\": []}\n");
  fclose(fp);
  fp = fopen(path("noreq.json"), "w");
  fprintf(fp, "{\"schema_version\": 3, \"tool_version\": \"t\", \"kernels\": [{\"name\": \"k\", "
          "\"totals\": {\"sectors\": 1}, \"instructions\": []}]}\n");
  fclose(fp);
  return 0;
}

static int teardown(void **state)
{
  const char *names[] = {"a.json", "b.json", "sm80.json", "noreq.json"};
  for (int i = 0; i < 4; i++)
    unlink(path(names[i]));
  rmdir(dir);
  return 0;
}

static void matching(void **state)
{
  const char *files[2] = {path("a.json"), path("b.json")};
  struct cc_merge m;
  struct cc_err err = {0};
  assert_int_equal(cc_report_merge_load(files, 2, 0, &m, &err), CC_OK);
  /* k#1 (both ranks), k#2 (rank 0 only), m (both, no geometry) */
  assert_int_equal(m.n_kernels, 3);
  assert_string_equal(m.kernels[0].name, "k");
  assert_int_equal(m.kernels[0].occurrence, 1);
  assert_int_equal(m.kernels[0].present[0] && m.kernels[0].present[1], 1);
  assert_int_equal(m.kernels[1].occurrence, 2);
  assert_int_equal(m.kernels[1].present[0], 1);
  assert_int_equal(m.kernels[1].present[1], 0);
  assert_int_equal(m.kernels[2].has_geometry, 0);
  assert_int_equal(m.kernels[0].totals.v[1 * CC_MERGE_NMETRICS + CC_MERGE_REQUESTS], 12);
  assert_int_equal(m.kernels[0].n_insns, 1);
  assert_int_equal(m.kernels[0].insns[0].ptx_index, 7);
  assert_int_equal(m.kernels[0].insns[0].v[0 * CC_MERGE_NMETRICS + CC_MERGE_REQUESTS], 10);
  cc_report_merge_release(&m);
}

static void threshold(void **state)
{
  const char *files[2] = {path("a.json"), path("b.json")};
  struct cc_merge m;
  struct cc_err err = {0};
  size_t lo;
  /* k#1 requests 10 vs 12: +2 = 20% of 10 */
  assert_int_equal(cc_report_merge_load(files, 2, 19.9, &m, &err), CC_OK);
  assert_true(cc_report_merge_flagged(&m, &m.kernels[0].totals, CC_MERGE_REQUESTS, 1, &lo));
  assert_int_equal(lo, 0);
  assert_false(cc_report_merge_flagged(&m, &m.kernels[0].totals, CC_MERGE_REQUESTS, 0, &lo));
  assert_false(cc_report_merge_flagged(&m, &m.kernels[0].totals, CC_MERGE_SECTORS, 1, &lo));
  m.threshold_pct = 20; /* 2 is not more than 20% of 10 */
  assert_false(cc_report_merge_flagged(&m, &m.kernels[0].totals, CC_MERGE_REQUESTS, 1, &lo));
  /* wavefronts 0 vs 3: any excess over 0, whatever the threshold */
  m.threshold_pct = 1e6;
  assert_true(cc_report_merge_flagged(&m, &m.kernels[0].totals, CC_MERGE_WAVEFRONTS, 1, &lo));
  /* a kernel in one rank only: nothing to compare */
  assert_false(cc_report_merge_flagged(&m, &m.kernels[1].totals, CC_MERGE_REQUESTS, 0, &lo));
  cc_report_merge_release(&m);
}

static void bad_inputs(void **state)
{
  const char *arch[2] = {path("a.json"), path("sm80.json")};
  const char *noreq[1] = {path("noreq.json")};
  const char *missing[1] = {path("none.json")};
  struct cc_merge m;
  struct cc_err err = {0};
  assert_int_equal(cc_report_merge_load(arch, 2, 0, &m, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "under --arch sm_80"));
  cc_report_merge_release(&m);
  assert_int_equal(cc_report_merge_load(noreq, 1, 0, &m, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "kernels[0]: field 'requests' is not a count"));
  cc_report_merge_release(&m);
  assert_int_equal(cc_report_merge_load(missing, 1, 0, &m, &err), CC_ERR_INPUT);
  cc_report_merge_release(&m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(matching),
    cmocka_unit_test(threshold),
    cmocka_unit_test(bad_inputs),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
