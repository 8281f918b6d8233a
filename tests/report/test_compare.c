/* The side-by-side comparison (report/compare.h) of one hand-built stream fed, in one
 * pass through a small tee sink of this test, to three analyses: cc1.0, cc1.2, sm_90.
 *
 * Kernel cmp, grid 1x1x1, block 32x1x1 (one warp, lane i = thread i), B = 0x1000:
 *  slot 0, ptx 5, ld.global.f32, one record, lane i reads B + 4 (i ^ 1) (pairs swapped,
 *    the EuroVis 2013 6.2.2 case: coalesced on 1.2, not on 1.0):
 *    cc1.0: lanes out of sequence -> per half-warp 16 x 32 bytes: 2 requests, 32
 *      transactions, 1024 bytes; 128 requested -> 12.5%, 16.00 per request.
 *    cc1.2: per half-warp segment B (128), half-warp 0 uses B..B+63 -> 64, half-warp 1
 *      B+64..B+127 -> 64: 2 requests, 2 transactions, 128 bytes -> 100%, 1.00.
 *    sm_90: 128 contiguous bytes = 4 sectors, 1 request -> 100%, 4.00.
 *    Algorithm 1 sorts each group: strides 4 <= 4 -> coalesced with W = 16 and 32.
 *  slot 1, ptx 9, st.global.f32, two records, lane i at 0x2000 + 128 i, then 0x3000 + 128 i:
 *    cc1.0 and cc1.2: every lane its own 32-byte transaction (1.2: 128 -> 64 -> 32):
 *      per record 2 requests, 32 transactions, 1024 bytes; total 4, 64, 2048; requested
 *      2 x 128 = 256 -> 12.5%, 16.00 per request.
 *    sm_90: 32 sectors per record: 2 requests, 64 transactions, 2048 bytes, 32.00.
 *    strides 128 > 4: uncoalesced.
 *  slot 2, ptx 12, ld.shared.f32, float tile[16][16] read by column by a 16x16 block's
 *    warp 0: lane i (tx = i % 16, ty = i / 16) reads word 16 tx + ty.
 *    cc1.x: each half-warp's 16 words lie in one bank (bank ty) -> 16 steps: 2 requests,
 *      16 ways, 32 wavefronts, ideal 2 -> 2 / 32 = 6.25%, printed "6.2%" (%.1f rounds
 *      the exact binary 6.25 to even in glibc) (EuroVis: "16-way ... 32 serialized").
 *    sm_90: banks ty and 16 + ty, 8 words each -> 8 ways, 8 wavefronts, ideal 1 -> 12.5%.
 *  slot 3, ptx 14, ld.shared.f32, padded tile[16][17]: word 17 tx + ty.
 *    cc1.x: bank (tx + ty) % 16 distinct per half-warp -> 2 requests, 1 way, 2
 *      wavefronts -> 100%. sm_90: only bank 0 holds two words (0 and 256) -> 2 ways, 2
 *      wavefronts, ideal 1 -> 50%.
 *  slot 4, ptx 20, red.global.add.f32: never executed.
 * Kernel totals (global = slots 0, 1; shared = slots 2, 3), bytes requested 128 + 256 =
 * 384:
 *    cc1.0: requests 2 + 4 = 6, transactions 32 + 64 = 96, bytes 1024 + 2048 = 3072 ->
 *      12.5%; wavefronts 32 + 2 = 34, ideal 2 + 2 = 4.
 *    cc1.2: 6, 2 + 64 = 66, 128 + 2048 = 2176 -> 384 / 2176 = 17.6%; 34, 4.
 *    sm_90: 1 + 2 = 3, 4 + 64 = 68, 2176 -> 17.6%; 8 + 2 = 10, 1 + 1 = 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/compare.h"
#include "util/fileio.h"

#define NM 3
#define B 0x1000u

static const char *const archs[NM] = { "cc1.0", "cc1.2", "sm_90" };

/* The text the comparison must print (layout: compare.c's header comment). */
static const char *const golden =
    "kernel cmp  (_Z3cmpPf)\n"
    "  grid 1 x 1 x 1, block 32 x 1 x 1; models cc1.0, cc1.2, sm_90\n"
    "  arch      global requests  transactions     bytes moved     eff  shared wavefronts       ideal\n"
    "  cc1.0                   6            96            3072   12.5%                 34           4\n"
    "  cc1.2                   6            66            2176   17.6%                 34           4\n"
    "  sm_90                   3            68            2176   17.6%                 10           2\n"
    "\n"
    "  ptx 5  ld.global.f32 %f1, [%rd1];\n"
    "          k.cu:7, load global, 4 bytes, 1 execution, 32 thread accesses\n"
    "  arch          requests   trans/req     bytes moved     eff  verdict (Algorithm 1)\n"
    "  cc1.0                2       16.00            1024   12.5%  coalesced (W = 16)\n"
    "  cc1.2                2        1.00             128  100.0%  coalesced (W = 16)\n"
    "  sm_90                1        4.00             128  100.0%  coalesced (W = 32)\n"
    "\n"
    "  ptx 9  st.global.f32 [%rd2], %f1;\n"
    "          k.cu:8, store global, 4 bytes, 2 executions, 64 thread accesses\n"
    "  arch          requests   trans/req     bytes moved     eff  verdict (Algorithm 1)\n"
    "  cc1.0                4       16.00            2048   12.5%  uncoalesced (W = 16)\n"
    "  cc1.2                4       16.00            2048   12.5%  uncoalesced (W = 16)\n"
    "  sm_90                2       32.00            2048   12.5%  uncoalesced (W = 32)\n"
    "\n"
    "  ptx 12  ld.shared.f32 %f2, [%r4];\n"
    "          k.cu:11, load shared, 4 bytes, 1 execution, 32 thread accesses\n"
    "  arch          requests        ways      wavefronts       ideal     eff\n"
    "  cc1.0                2          16              32           2    6.2%\n"
    "  cc1.2                2          16              32           2    6.2%\n"
    "  sm_90                1           8               8           1   12.5%\n"
    "\n"
    "  ptx 14  ld.shared.f32 %f3, [%r6];\n"
    "          k.cu:12, load shared, 4 bytes, 1 execution, 32 thread accesses\n"
    "  arch          requests        ways      wavefronts       ideal     eff\n"
    "  cc1.0                2           1               2           2  100.0%\n"
    "  cc1.2                2           1               2           2  100.0%\n"
    "  sm_90                1           2               2           1   50.0%\n"
    "\n"
    "  1 memory instruction never executed\n"
    "\n"
    "trans/req: transactions per request (32-byte sectors from cc3.0 on); eff: bytes requested / moved\n";

/* ---- a tee of this test: one stream to n sinks ---- */
struct tee {
  struct cc_access_sink *sinks;
  size_t n;
};

static int tee_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].begin_kernel(t->sinks[i].ctx, k, err);
    if (rc)
      return rc;
  }
  return 0;
}

static int tee_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].access(t->sinks[i].ctx, a, err);
    if (rc)
      return rc;
  }
  return 0;
}

static int tee_end(void *ctx, struct cc_err *err)
{
  struct tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].end_kernel(t->sinks[i].ctx, err);
    if (rc)
      return rc;
  }
  return 0;
}

/* ---- the stream ---- */

struct fixture {
  struct cc_model *models[NM];
  struct cc_analysis *ans[NM];
};

static const struct cc_insn_info insns[5] = {
  { .id = 5, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    /* nvcc's tab, which the text shows as one space (golden above) */
    .text = "ld.global.f32 \t%f1, [%rd1];", .file = "/src/k.cu", .line = 7, .column = 3 },
  { .id = 9, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "st.global.f32 [%rd2], %f1;", .file = "/src/k.cu", .line = 8, .column = 3 },
  { .id = 12, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4,
    .text = "ld.shared.f32 %f2, [%r4];", .file = "/src/k.cu", .line = 11, .column = 3 },
  { .id = 14, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4,
    .text = "ld.shared.f32 %f3, [%r6];", .file = "/src/k.cu", .line = 12, .column = 3 },
  { .id = 20, .kind = CC_ACCESS_REDUCTION, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "red.global.add.f32 [%rd3], %f4;" },
};

static struct cc_warp_access record(uint32_t slot, uint64_t dyn)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot;
  a.dyn = dyn;
  a.kind = insns[slot].kind;
  a.space = insns[slot].space;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  for (uint64_t i = 0; i < CC_WARP_SIZE; i++) {
    uint64_t tx = i % 16, ty = i / 16;
    switch (slot) {
    case 0: a.addr[i] = B + 4 * (i ^ 1u); break;
    case 1: a.addr[i] = (dyn ? 0x3000u : 0x2000u) + 128 * i; break;
    case 2: a.addr[i] = 4 * (16 * tx + ty); break;
    default: a.addr[i] = 4 * (17 * tx + ty); break;
    }
  }
  return a;
}

/* Streams kernel `mangled` (the records above; extra = 1 adds one more record of slot
 * 0) into sink. */
static void stream(const struct cc_access_sink *s, const char *mangled, int extra,
                   uint32_t n_insns)
{
  struct cc_err err = { 0 };
  struct cc_kernel_info k = { .name = "cmp", .mangled = mangled, .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = n_insns, .insns = insns };
  struct { uint32_t slot; uint64_t dyn; } order[] = { { 0, 0 }, { 1, 0 }, { 2, 0 },
                                                      { 3, 0 }, { 1, 1 }, { 0, 1 } };
  assert_int_equal(s->begin_kernel(s->ctx, &k, &err), CC_OK);
  for (size_t i = 0; i < 5 + (size_t)(extra != 0); i++) {
    struct cc_warp_access a = record(order[i].slot, order[i].dyn);
    assert_int_equal(s->access(s->ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s->end_kernel(s->ctx, &err), CC_OK);
}

static int setup(void **state)
{
  struct fixture *f = calloc(1, sizeof *f);
  struct cc_access_sink sinks[NM];
  struct cc_err err = { 0 };
  for (size_t m = 0; m < NM; m++) {
    assert_int_equal(cc_model_get(archs[m], NULL, &f->models[m], &err), CC_OK);
    f->ans[m] = cc_analysis_new(f->models[m]);
    sinks[m] = cc_analysis_sink(f->ans[m]);
  }
  struct tee t = { sinks, NM };
  struct cc_access_sink tee = { &t, tee_begin, tee_access, tee_end };
  stream(&tee, "_Z3cmpPf", 0, 5);
  *state = f;
  return 0;
}

static int teardown(void **state)
{
  struct fixture *f = *state;
  for (size_t m = 0; m < NM; m++) {
    cc_analysis_free(f->ans[m]);
    cc_model_free(f->models[m]);
  }
  free(f);
  return 0;
}

static const struct cc_analysis *const *cans(struct fixture *f)
{
  return (const struct cc_analysis *const *)f->ans;
}

/* Prints the comparison into a string the caller frees. */
static char *text_of(struct fixture *f, size_t n)
{
  char *buf = NULL;
  size_t len = 0;
  struct cc_err err = { 0 };
  FILE *fp = open_memstream(&buf, &len);
  assert_non_null(fp);
  assert_int_equal(cc_report_compare_text(fp, cans(f), n, &err), CC_OK);
  fclose(fp);
  return buf;
}

static void test_text_golden(void **state)
{
  struct fixture *f = *state;
  char *text = text_of(f, NM);
  if (strcmp(text, golden) != 0)
    print_error("got:\n%s\n", text);
  assert_string_equal(text, golden);
  free(text);
}

/* the text file is written whole and equals the stream output */
static void test_text_write(void **state)
{
  struct fixture *f = *state;
  char path[] = "/tmp/cc_compare_XXXXXX";
  struct cc_err err = { 0 };
  char *content = NULL;
  size_t len = 0;
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(cc_report_compare_text_write(path, cans(f), NM, &err), CC_OK);
  assert_int_equal(cc_file_read(path, &content, &len, &err), CC_OK);
  assert_string_equal(content, golden);
  free(content);
  unlink(path);
  assert_int_equal(cc_report_compare_text_write("/nonexistent/dir/c.txt", cans(f), NM, &err),
                   CC_ERR_IO);
  assert_non_null(strstr(err.msg, "/nonexistent/dir/c.txt"));
}

/* a write error on the stream (a full device) is CC_ERR_IO, not silence */
static void test_text_full_disk(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  FILE *fp = fopen("/dev/full", "w");
  if (!fp)
    skip();
  assert_int_equal(cc_report_compare_text(fp, cans(f), NM, &err), CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot write the comparison"));
  fclose(fp);
}

static double getnum(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  assert_non_null(v);
  assert_true(cJSON_IsNumber(v));
  return v->valuedouble;
}

static const cJSON *model_of(const cJSON *insn, const char *arch)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(insn, "models"), arch);
  assert_non_null(v);
  return v;
}

static void test_json(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  char *text = NULL;
  assert_int_equal(cc_report_compare_json_string(cans(f), NM, "0.1.0", &text, &err), CC_OK);
  cJSON *root = cJSON_Parse(text);
  assert_non_null(root);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "document")->valuestring,
                      "coalcheck-compare");
  assert_int_equal((int)getnum(root, "schema_version"), 5);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "tool_version")->valuestring,
                      "0.1.0");
  const cJSON *arch = cJSON_GetObjectItemCaseSensitive(root, "arch");
  assert_int_equal(cJSON_GetArraySize(arch), NM);
  for (int m = 0; m < NM; m++)
    assert_string_equal(cJSON_GetArrayItem(arch, m)->valuestring, archs[m]);
  const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "kernels"), 0);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(k, "mangled_name")->valuestring,
                      "_Z3cmpPf");
  /* thread accesses of global instructions: 32 + 64 */
  assert_int_equal((int)getnum(k, "thread_accesses"), 96);
  const cJSON *totals = cJSON_GetObjectItemCaseSensitive(k, "totals");
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(totals, "cc1.2");
  assert_int_equal((int)getnum(t, "requests"), 6);
  assert_int_equal((int)getnum(t, "transactions"), 66);
  assert_int_equal((int)getnum(t, "bytes_transferred"), 2176);
  assert_int_equal((int)getnum(t, "bytes_requested"), 384);
  assert_int_equal((int)getnum(t, "wavefronts"), 34);
  t = cJSON_GetObjectItemCaseSensitive(totals, "sm_90");
  assert_int_equal((int)getnum(t, "wavefronts"), 10);
  assert_int_equal((int)getnum(t, "ideal_wavefronts"), 2);

  /* every instruction, in program order, never-executed ones included */
  const cJSON *is = cJSON_GetObjectItemCaseSensitive(k, "instructions");
  int ids[] = { 5, 9, 12, 14, 20 };
  assert_int_equal(cJSON_GetArraySize(is), 5);
  for (int i = 0; i < 5; i++)
    assert_int_equal((int)getnum(cJSON_GetArrayItem(is, i), "ptx_index"), ids[i]);

  const cJSON *i0 = cJSON_GetArrayItem(is, 0), *m;
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(i0, "space")->valuestring, "global");
  assert_int_equal((int)getnum(i0, "executions"), 1);
  assert_int_equal((int)getnum(i0, "bytes_requested"), 128);
  m = model_of(i0, "cc1.0");
  assert_int_equal((int)getnum(m, "requests"), 2);
  assert_int_equal((int)getnum(m, "transactions"), 32);
  assert_int_equal((int)getnum(m, "bytes_transferred"), 1024);
  assert_float_equal(getnum(m, "efficiency"), 0.125, 1e-12);
  assert_float_equal(getnum(m, "transactions_per_request"), 16.0, 1e-12);
  assert_int_equal((int)getnum(m, "group_lanes"), 16);
  assert_int_equal((int)getnum(m, "sectors"), 4); /* the geometry is every model's */
  m = model_of(i0, "cc1.2");
  assert_int_equal((int)getnum(m, "transactions"), 2);
  assert_float_equal(getnum(m, "efficiency"), 1.0, 1e-12);
  m = model_of(i0, "sm_90");
  assert_int_equal((int)getnum(m, "requests"), 1);
  assert_int_equal((int)getnum(m, "transactions"), 4);
  assert_int_equal((int)getnum(m, "group_lanes"), 32);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "verdict")->valuestring, "coalesced");

  m = model_of(cJSON_GetArrayItem(is, 1), "sm_90");
  assert_float_equal(getnum(m, "transactions_per_request"), 32.0, 1e-12);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "verdict")->valuestring,
                      "uncoalesced");

  const cJSON *i2 = cJSON_GetArrayItem(is, 2);
  m = model_of(i2, "cc1.0");
  assert_int_equal((int)getnum(m, "bank_conflict_ways"), 16);
  assert_int_equal((int)getnum(m, "wavefronts"), 32);
  assert_int_equal((int)getnum(m, "ideal_wavefronts"), 2);
  assert_float_equal(getnum(m, "wavefronts_per_request"), 16.0, 1e-12);
  assert_null(cJSON_GetObjectItemCaseSensitive(m, "transactions")); /* shared: none */
  m = model_of(i2, "sm_90");
  assert_int_equal((int)getnum(m, "bank_conflict_ways"), 8);
  assert_int_equal((int)getnum(m, "conflict_requests"), 1);
  m = model_of(cJSON_GetArrayItem(is, 3), "sm_90");
  assert_int_equal((int)getnum(m, "bank_conflict_ways"), 2);
  m = model_of(cJSON_GetArrayItem(is, 3), "cc1.2");
  assert_int_equal((int)getnum(m, "bank_conflict_ways"), 1);

  const cJSON *i4 = cJSON_GetArrayItem(is, 4);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(i4, "reduction")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(i4, "source"), "file")));
  assert_int_equal((int)getnum(model_of(i4, "cc1.0"), "requests"), 0);
  cJSON_Delete(root);
  free(text);
}

static void test_json_write(void **state)
{
  struct fixture *f = *state;
  char path[] = "/tmp/cc_compare_XXXXXX";
  struct cc_err err = { 0 };
  char *content = NULL, *text = NULL;
  size_t len = 0;
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(cc_report_compare_json_write(path, cans(f), NM, NULL, &err), CC_OK);
  assert_int_equal(cc_file_read(path, &content, &len, &err), CC_OK);
  assert_int_equal(cc_report_compare_json_string(cans(f), NM, NULL, &text, &err), CC_OK);
  assert_int_equal(len, strlen(text) + 1); /* the document and a newline */
  assert_memory_equal(content, text, strlen(text));
  assert_non_null(strstr(text, "\"tool_version\":\t\"unknown\""));
  free(content);
  free(text);
  unlink(path);
  assert_int_equal(cc_report_compare_json_write("/nonexistent/dir/c.json", cans(f), NM,
                                                "0.1.0", &err), CC_ERR_IO);
}

/* one model alone is a valid comparison: a header and one row per instruction */
static void test_single(void **state)
{
  struct fixture *f = *state;
  char *text = text_of(f, 1);
  assert_non_null(strstr(text, "models cc1.0\n"));
  assert_null(strstr(text, "sm_90"));
  free(text);
}

/* ---- errors: analyses that do not belong to one run ---- */

/* A fresh analysis under arch fed stream(mangled, extra, n_insns). */
static struct cc_analysis *other(struct cc_model **m, const char *arch, const char *mangled,
                                 int extra, uint32_t n_insns)
{
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get(arch, NULL, m, &err), CC_OK);
  struct cc_analysis *an = cc_analysis_new(*m);
  struct cc_access_sink s = cc_analysis_sink(an);
  stream(&s, mangled, extra, n_insns);
  return an;
}

static void expect_error(const struct cc_analysis *a, const struct cc_analysis *b, int status,
                         const char *msg)
{
  const struct cc_analysis *pair[2] = { a, b };
  struct cc_err err = { 0 };
  char *text = (char *)1;
  FILE *fp = fopen("/dev/null", "w");
  assert_int_equal(cc_report_compare_check(pair, 2, &err), status);
  if (!strstr(err.msg, msg))
    print_error("message '%s' lacks '%s'\n", err.msg, msg);
  assert_non_null(strstr(err.msg, msg));
  assert_int_equal(cc_report_compare_text(fp, pair, 2, &err), status);
  fclose(fp);
  assert_int_equal(cc_report_compare_json_string(pair, 2, "x", &text, &err), status);
  assert_null(text);
  assert_int_equal(cc_report_compare_text_write("/tmp/cc_compare_never", pair, 2, &err), status);
  assert_int_equal(cc_report_compare_json_write("/tmp/cc_compare_never", pair, 2, "x", &err),
                   status);
  assert_int_equal(access("/tmp/cc_compare_never", F_OK), -1); /* nothing written */
}

static void test_errors(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  struct cc_model *m;
  struct cc_analysis *an;

  assert_int_equal(cc_report_compare_check(cans(f), 0, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "nothing to compare"));

  an = other(&m, "sm_90", "_Z3cmpPf", 0, 5); /* sm_90 twice */
  expect_error(f->ans[2], an, CC_ERR_USAGE, "sm_90 is compared twice");
  cc_analysis_free(an);
  cc_model_free(m);

  an = other(&m, "cc2.0", "_Z5otherPf", 0, 5); /* another kernel */
  expect_error(f->ans[0], an, CC_ERR_INPUT, "kernel _Z5otherPf where the first has _Z3cmpPf");
  cc_analysis_free(an);
  cc_model_free(m);

  an = other(&m, "cc2.0", "_Z3cmpPf", 0, 4); /* one instruction fewer */
  expect_error(f->ans[0], an, CC_ERR_INPUT, "5 under the first model");
  cc_analysis_free(an);
  cc_model_free(m);

  an = other(&m, "cc2.0", "_Z3cmpPf", 1, 5); /* one more record of ptx 5 */
  expect_error(f->ans[0], an, CC_ERR_INPUT, "ptx_index 5: 2 executions under cc2.0");
  cc_analysis_free(an);
  cc_model_free(m);

  /* two kernels against one */
  an = other(&m, "cc2.0", "_Z3cmpPf", 0, 5);
  struct cc_access_sink s = cc_analysis_sink(an);
  stream(&s, "_Z3cmpPf", 0, 5);
  expect_error(f->ans[0], an, CC_ERR_INPUT, "has 2 kernels but the first (cc1.0) has 1");
  cc_analysis_free(an);
  cc_model_free(m);

  /* a different ptx_index in one slot */
  assert_int_equal(cc_model_get("cc2.0", NULL, &m, &err), CC_OK);
  an = cc_analysis_new(m);
  s = cc_analysis_sink(an);
  struct cc_insn_info changed[5];
  memcpy(changed, insns, sizeof changed);
  changed[3].id = 15;
  struct cc_kernel_info k = { .name = "cmp", .mangled = "_Z3cmpPf", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 5, .insns = changed };
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  expect_error(f->ans[0], an, CC_ERR_INPUT,
               "slot 3: ptx_index 15 under cc2.0 but 14 under the first model");
  cc_analysis_free(an);
  cc_model_free(m);

  /* a kernel still open */
  assert_int_equal(cc_model_get("cc2.0", NULL, &m, &err), CC_OK);
  an = cc_analysis_new(m);
  s = cc_analysis_sink(an);
  k.insns = insns;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  expect_error(f->ans[0], an, CC_ERR_INTERNAL, "still open");
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* no kernel at all: a valid, empty comparison */
static void test_empty(void **state)
{
  (void)state;
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  char *buf = NULL, *json = NULL;
  size_t len = 0;
  assert_int_equal(cc_model_get("cc1.3", NULL, &m, &err), CC_OK);
  const struct cc_analysis *an[1] = { cc_analysis_new(m) };
  FILE *fp = open_memstream(&buf, &len);
  assert_int_equal(cc_report_compare_text(fp, an, 1, &err), CC_OK);
  fclose(fp);
  assert_non_null(strstr(buf, "(no kernel was run)\n"));
  assert_int_equal(cc_report_compare_json_string(an, 1, "0.1.0", &json, &err), CC_OK);
  assert_non_null(strstr(json, "\"kernels\":\t[]"));
  free(buf);
  free(json);
  cc_analysis_free((struct cc_analysis *)an[0]);
  cc_model_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_text_golden, setup, teardown),
    cmocka_unit_test_setup_teardown(test_text_write, setup, teardown),
    cmocka_unit_test_setup_teardown(test_text_full_disk, setup, teardown),
    cmocka_unit_test_setup_teardown(test_json, setup, teardown),
    cmocka_unit_test_setup_teardown(test_json_write, setup, teardown),
    cmocka_unit_test_setup_teardown(test_single, setup, teardown),
    cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
    cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
