/* tests/cli: the record and report commands (cmd_record.c, cmd_report.c, outputs.c) and
 * the options they add (options.c): which command takes which option, --arch lists,
 * --l1-cache, --smem-bank-width, --trace / -o; a record + report round trip on the
 * `scale` kernel of tests/e2e/data/kernels.ptx (no nvcc needed), and every error path of
 * cc_cli_record and cc_cli_report.
 *
 * The kernel: scale(out, in, n, a) { i = blockIdx.x*blockDim.x + threadIdx.x; if (i < n)
 * out[i] = a*in[i]; } run with n = 32, grid 1, block 32: one warp, all 32 lanes active,
 * one load of in[0..31] and one store to out[0..31]: 2 warp records. Both buffers are
 * 256-byte aligned (launch.h), so each access is 128 contiguous bytes at a multiple of 128:
 *   sm_90: 1 request, 128/32 = 4 sectors each: totals 2 requests, 8 sectors, 256 bytes.
 *   cc1.0: 2 half-warp requests, each 16 consecutive aligned words = one 64-byte
 *          transaction: totals 4 requests, 4 transactions, 4*64 = 256 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "access/trace.h"
#include "model/model.h"
#include "util/fileio.h"

#define KERNELS CC_SOURCE_DIR "/tests/e2e/data/kernels.ptx"

static void expect_msg(const struct cc_err *err, const char *needle)
{
  if (!strstr(err->msg, needle))
    fail_msg("message '%s' lacks '%s'", err->msg, needle);
}

static int parse(enum cc_cli_cmd cmd, struct cc_run_opts *o, struct cc_err *err, int argc,
                 const char **argv)
{
  return cc_cli_parse_cmd(cmd, argc, argv ? (char **)argv : NULL, o, err);
}

#define PARSE(cmd, o, err, ...)                                                          \
  parse(cmd, o, err, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), \
        (const char *[]){__VA_ARGS__})

static void expect_usage(struct cc_run_opts *o, struct cc_err *err, int rc, const char *needle)
{
  if (rc != CC_ERR_USAGE)
    fail_msg("expected a usage error, got %d (%s)", rc, err->msg);
  expect_msg(err, needle);
  cc_cli_opts_release(o);
}

static int exists(const char *path)
{
  struct stat sb;
  return stat(path, &sb) == 0;
}

/* A private folder for the files of one test; removed (with its files) by cleanup. */
static char tmpdir[64];

static int setup_tmp(void **state)
{
  snprintf(tmpdir, sizeof tmpdir, "/tmp/cc-test-record-XXXXXX");
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

static char *tmp_path(const char *name)
{
  static char buf[4][128];
  static int next;
  char *p = buf[next++ % 4];
  snprintf(p, sizeof buf[0], "%s/%s", tmpdir, name);
  return p;
}

/* ---- options ------------------------------------------------------------------------- */

static void test_options_per_command(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  int rc;
  /* record: launch options and -o */
  rc = PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "k.ptx", "--grid", "1", "--block", "32",
             "-o", "t.cctrace", "-q");
  assert_int_equal(rc, CC_OK);
  assert_string_equal(o.input, "k.ptx");
  assert_string_equal(o.trace_path, "t.cctrace");
  assert_int_equal(o.quiet, 1);
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "k.ptx", "--json", "r.json"),
               "option '--json' is not an option of 'coalcheck record'");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "--top=3", "k.ptx"),
               "option '--top' is not an option of 'coalcheck record'");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "--trace", "t", "k.ptx"),
               "option '--trace' is not an option of 'coalcheck record'");
  /* the main job: --trace, not -o */
  rc = PARSE(CC_CLI_CMD_RUN, &o, &err, "coalcheck", "k.ptx", "--trace=t.cctrace");
  assert_int_equal(rc, CC_OK);
  assert_string_equal(o.trace_path, "t.cctrace");
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RUN, &o, &err, "coalcheck", "k.ptx", "-o", "t"),
               "option '-o' is not an option of 'coalcheck run'");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RUN, &o, &err, "coalcheck", "k.ptx", "--trace", "-"),
               "--trace -: standard output holds the report");
  rc = PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "k.ptx", "--output=-");
  assert_int_equal(rc, CC_OK);
  assert_string_equal(o.trace_path, "-");
  cc_cli_opts_release(&o);
  /* report: the report options only, no launch file */
  rc = PARSE(CC_CLI_CMD_REPORT, &o, &err, "report", "t.cctrace", "--arch", "cc1.0", "--json",
             "-", "--top", "2", "--l1-cache", "off", "--smem-bank-width", "8");
  assert_int_equal(rc, CC_OK);
  assert_string_equal(o.input, "t.cctrace");
  assert_string_equal(o.arch, "cc1.0");
  assert_string_equal(o.json_path, "-");
  assert_int_equal(o.top, 2);
  assert_int_equal(o.l1_cache, CC_MODEL_L1_OFF);
  assert_int_equal(o.smem_bank_width, 8);
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "report", "t", "--grid", "1"),
               "option '--grid' is not an option of 'coalcheck report'");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "report", "--launch", "f"),
               "option '--launch' is not an option of 'coalcheck report'");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "report", "t", "-o", "x"),
               "option '-o' is not an option of 'coalcheck report'");
}

static void test_model_options(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  assert_int_equal(PARSE(CC_CLI_CMD_RUN, &o, &err, "c", "--l1-cache", "on"), CC_OK);
  assert_int_equal(o.l1_cache, CC_MODEL_L1_ON);
  assert_int_equal(o.smem_bank_width, 0); /* not given: the model's default */
  cc_cli_opts_release(&o);
  assert_int_equal(PARSE(CC_CLI_CMD_RUN, &o, &err, "c", "--smem-bank-width=4"), CC_OK);
  assert_int_equal(o.smem_bank_width, 4);
  assert_int_equal(o.l1_cache, 0);
  cc_cli_opts_release(&o);
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_RUN, &o, &err, "c", "--l1-cache", "yes"),
               "bad value 'yes' for --l1-cache: expected on or off");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "c", "--smem-bank-width", "16"),
               "bad value '16' for --smem-bank-width: expected 4 or 8");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "c", "--smem-bank-width", "48"),
               "bad value '48' for --smem-bank-width");
  expect_usage(&o, &err, PARSE(CC_CLI_CMD_REPORT, &o, &err, "c", "--smem-bank-width"),
               "option '--smem-bank-width' needs a value");
}

static void write_file(const char *path, const char *text)
{
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  fclose(fp);
}

static void test_arch_lists(void **state)
{
  struct cc_run_opts o;
  struct cc_err err = {0};
  const char *lf = tmp_path("a.launch");
  /* repeated --arch adds to the list; a comma list is kept as given */
  assert_int_equal(PARSE(CC_CLI_CMD_REPORT, &o, &err, "r", "--arch", "cc1.0", "--arch=cc1.2,sm_90"),
                   CC_OK);
  assert_string_equal(o.arch, "cc1.0,cc1.2,sm_90");
  cc_cli_opts_release(&o);
  /* a launch file's list stays when the command line has none ... */
  write_file(lf, "k.ptx --arch cc1.0\n--arch sm_90 --json r.json\n");
  assert_int_equal(PARSE(CC_CLI_CMD_RUN, &o, &err, "c", "--launch", lf), CC_OK);
  assert_string_equal(o.arch, "cc1.0,sm_90");
  cc_cli_opts_release(&o);
  /* ... and the command line's replaces it (then adds up on its own) */
  assert_int_equal(PARSE(CC_CLI_CMD_RUN, &o, &err, "c", "--launch", lf, "--arch", "cc2.0",
                         "--arch", "sm_80"), CC_OK);
  assert_string_equal(o.arch, "cc2.0,sm_80");
  cc_cli_opts_release(&o);
  /* record ignores the launch file's report options (--arch, --json) */
  assert_int_equal(PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", "--launch", lf), CC_OK);
  assert_null(o.arch);
  assert_null(o.json_path);
  assert_non_null(strstr(o.input, "k.ptx"));
  cc_cli_opts_release(&o);
}

static char *help_of(enum cc_cli_cmd cmd)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  cc_cli_print_options_cmd(fp, cmd);
  fclose(fp);
  return buf;
}

static void test_help_per_command(void **state)
{
  char *run = help_of(CC_CLI_CMD_RUN), *rec = help_of(CC_CLI_CMD_RECORD);
  char *rep = help_of(CC_CLI_CMD_REPORT), *main_help = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&main_help, &len);
  cc_cli_print_help(fp);
  fclose(fp);
  /* the main job: the new report options, and the commands in the command list */
  assert_non_null(strstr(run, "--trace FILE"));
  assert_non_null(strstr(run, "--l1-cache on|off"));
  assert_non_null(strstr(run, "--smem-bank-width 4|8"));
  assert_null(strstr(run, "--output"));
  assert_non_null(strstr(main_help, "  record "));
  assert_non_null(strstr(main_help, "  report "));
  /* record: launch options and -o, no report options */
  assert_non_null(strstr(rec, "-o, --output FILE"));
  assert_non_null(strstr(rec, "--grid X[,Y[,Z]]"));
  assert_null(strstr(rec, "--json"));
  assert_null(strstr(rec, "--arch"));
  /* report: report options, no launch options */
  assert_non_null(strstr(rep, "--arch ARCH"));
  assert_non_null(strstr(rep, "--top N"));
  assert_null(strstr(rep, "--grid"));
  assert_null(strstr(rep, "--launch"));
  free(run);
  free(rec);
  free(rep);
  free(main_help);
}

/* ---- record + report ------------------------------------------------------------------- */

/* Parses and records scale (n = 32, grid 1, block 32) into trace; returns the status. */
static int record_scale(const char *kernel, const char *trace, char **summary, struct cc_err *err)
{
  struct cc_run_opts o;
  size_t len = 0;
  FILE *out = open_memstream(summary, &len);
  int rc = PARSE(CC_CLI_CMD_RECORD, &o, err, "record", KERNELS, "--kernel", kernel, "--grid",
                 "1", "--block", "32", "--arg", "out=f32[n]:zero", "--arg", "in=f32[n]:iota",
                 "--arg", "n=32", "--arg", "a=2", "-q", "-o", trace);
  assert_int_equal(rc, CC_OK);
  rc = cc_cli_record(&o, out, err);
  fclose(out);
  cc_cli_opts_release(&o);
  return rc;
}

/* Reports trace with the options given after the trace name; *text gets the output. */
static int report(char **text, struct cc_err *err, int argc, const char **argv)
{
  struct cc_run_opts o;
  size_t len = 0;
  FILE *out = open_memstream(text, &len);
  int rc = cc_cli_parse_cmd(CC_CLI_CMD_REPORT, argc, (char **)argv, &o, err);
  assert_int_equal(rc, CC_OK);
  rc = cc_cli_report(&o, out, err);
  fclose(out);
  cc_cli_opts_release(&o);
  return rc;
}

#define REPORT(text, err, ...)                                                           \
  report(text, err, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), \
         (const char *[]){__VA_ARGS__})

static cJSON *read_json(const char *path)
{
  char *text;
  struct cc_err err = {0};
  cJSON *j;
  assert_int_equal(cc_file_read(path, &text, NULL, &err), CC_OK);
  j = cJSON_Parse(text);
  free(text);
  assert_non_null(j);
  return j;
}

static double num(const cJSON *obj, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
  if (!cJSON_IsNumber(v))
    fail_msg("no number '%s'", name);
  return v->valuedouble;
}

static void test_record_report_round_trip(void **state)
{
  struct cc_err err = {0};
  char *summary = NULL, *text = NULL, want[256];
  const char *trace = tmp_path("scale.cctrace"), *json = tmp_path("r.json");
  struct stat sb;
  cJSON *doc, *k, *t;
  if (record_scale("scale", trace, &summary, &err) != CC_OK)
    fail_msg("%s", err.msg);
  /* 2 records; bytes = the file's size, bytes/record = size / 2 */
  assert_int_equal(stat(trace, &sb), 0);
  snprintf(want, sizeof want, "recorded %s: 2 records, %lld bytes, %.2f bytes/record\n", trace,
           (long long)sb.st_size, (double)sb.st_size / 2);
  assert_string_equal(summary, want);
  free(summary);

  /* one model: the usual report */
  if (REPORT(&text, &err, "report", trace, "--json", json) != CC_OK)
    fail_msg("%s", err.msg);
  assert_non_null(strstr(text, "kernel scale"));
  assert_non_null(strstr(text, "arch sm_90"));
  free(text);
  doc = read_json(json);
  k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
  assert_non_null(k);
  t = cJSON_GetObjectItemCaseSensitive(k, "totals");
  assert_true(num(t, "requests") == 2);
  assert_true(num(t, "sectors") == 8);
  assert_true(num(t, "bytes_transferred") == 256);
  assert_null(cJSON_GetObjectItemCaseSensitive(k, "emulator")); /* a replay: no counters */
  cJSON_Delete(doc);

  /* two models: the comparison, text and JSON */
  if (REPORT(&text, &err, "report", trace, "--arch", "cc1.0,sm_90", "--json", json) != CC_OK)
    fail_msg("%s", err.msg);
  assert_non_null(strstr(text, "models cc1.0, sm_90"));
  free(text);
  doc = read_json(json);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "document")->valuestring,
                      "coalcheck-compare");
  k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
  t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "totals"), "cc1.0");
  assert_true(num(t, "requests") == 4);
  assert_true(num(t, "transactions") == 4);
  assert_true(num(t, "bytes_transferred") == 256);
  t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(k, "totals"), "sm_90");
  assert_true(num(t, "requests") == 2);
  assert_true(num(t, "transactions") == 8);
  cJSON_Delete(doc);
}

static void test_report_errors(void **state)
{
  struct cc_err err = {0};
  char *text = NULL, *summary = NULL;
  const char *trace = tmp_path("s.cctrace"), *bad = tmp_path("bad.cctrace");
  const char *json = tmp_path("never.json");
  struct cc_run_opts o;
  char *data;
  size_t len;
  FILE *fp;
  memset(&o, 0, sizeof o);
  assert_int_equal(cc_cli_report(&o, stdout, &err), CC_ERR_USAGE);
  expect_msg(&err, "no trace given");
  assert_int_equal(REPORT(&text, &err, "report", tmp_path("missing.cctrace")), CC_ERR_INPUT);
  expect_msg(&err, "missing.cctrace");
  assert_int_equal(strlen(text), 0);
  free(text);
  assert_int_equal(record_scale("scale", trace, &summary, &err), CC_OK);
  free(summary);
  assert_int_equal(REPORT(&text, &err, "report", trace, "--arch", "cc1.0,nope"), CC_ERR_USAGE);
  assert_int_equal(strlen(text), 0);
  free(text);
  assert_int_equal(REPORT(&text, &err, "report", trace, "--arch", "sm_90",
                          "--smem-bank-width", "8"), CC_ERR_USAGE);
  free(text);
  assert_int_equal(REPORT(&text, &err, "report", trace, "--json", "/nonexistent/d/r.json"),
                   CC_ERR_IO);
  expect_msg(&err, "/nonexistent/d/r.json");
  assert_int_equal(strlen(text), 0);
  free(text);

  /* the whole trace but its last byte (inside the end marker): every record replays, the
   * trace is still refused, and nothing is written */
  assert_int_equal(cc_file_read(trace, &data, &len, &err), CC_OK);
  fp = fopen(bad, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, len - 1, fp), len - 1);
  fclose(fp);
  assert_int_equal(REPORT(&text, &err, "report", bad, "--json", json, "--arch", "cc1.0,sm_90"),
                   CC_ERR_INPUT);
  expect_msg(&err, "bad.cctrace");
  assert_int_equal(strlen(text), 0);
  assert_false(exists(json));
  free(text);
  /* a flipped byte in the magic: not a trace */
  data[1] ^= 0x20;
  fp = fopen(bad, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(data, 1, len, fp), len);
  fclose(fp);
  free(data);
  assert_int_equal(REPORT(&text, &err, "report", bad, "--json", json), CC_ERR_INPUT);
  assert_int_equal(strlen(text), 0);
  assert_false(exists(json));
  free(text);
}

static void test_record_errors(void **state)
{
  struct cc_err err = {0};
  char *summary = NULL;
  const char *trace = tmp_path("oob.cctrace");
  struct cc_run_opts o;
  /* oob writes out[threadIdx.x + 1]: lane 31 writes out[32], past a 32-float buffer: a
   * memcheck error after the kernel began streaming, and no trace is left */
  assert_int_equal(PARSE(CC_CLI_CMD_RECORD, &o, &err, "record", KERNELS, "--kernel", "oob",
                         "--grid", "1", "--block", "32", "--arg", "o=f32[32]:zero", "-q", "-o",
                         trace), CC_OK);
  assert_int_equal(cc_cli_record(&o, stdout, &err), CC_ERR_MEMCHECK);
  cc_cli_opts_release(&o);
  assert_false(exists(trace));
  /* an unwritable trace: nothing is run, nothing printed */
  assert_int_equal(record_scale("scale", "/nonexistent/d/t.cctrace", &summary, &err), CC_ERR_IO);
  expect_msg(&err, "/nonexistent/d/t.cctrace");
  assert_int_equal(strlen(summary), 0);
  free(summary);
  /* the usual run checks come first */
  memset(&o, 0, sizeof o);
  assert_int_equal(cc_cli_record(&o, stdout, &err), CC_ERR_USAGE);
  expect_msg(&err, "no input given");
}

static int null_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  return CC_OK;
}

static int null_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  return CC_OK;
}

static int null_end(void *ctx, struct cc_err *err)
{
  return CC_OK;
}

/* `coalcheck record ...` stores its command line in the trace header, words that a shell
 * would split or expand in single quotes (a quote itself as '\'') */
static void test_record_command_line(void **state)
{
  struct cc_err err = {0};
  struct cc_trace_info info;
  struct cc_access_sink sink = {NULL, null_begin, null_access, null_end};
  const char *trace = tmp_path("cmd.cctrace");
  const char *argv[] = {"record", KERNELS, "--kernel", "scale", "--grid", "1", "--block",
                        "32", "--arg", "out=f32[n]:zero", "--arg", "in=f32[n]:iota", "--arg",
                        "n=32", "--arg", "a=2", "--nvcc-flags", "-O3 it's", "-q", "-o", trace};
  char want[1024];
  if (cc_cli_cmd_record((int)(sizeof argv / sizeof argv[0]), (char **)argv, &err) != CC_OK)
    fail_msg("%s", err.msg);
  if (cc_trace_replay(trace, &sink, &info, &err) != CC_OK)
    fail_msg("%s", err.msg);
  snprintf(want, sizeof want, "coalcheck record %s --kernel scale --grid 1 --block 32 --arg "
           "'out=f32[n]:zero' --arg 'in=f32[n]:iota' --arg n=32 --arg a=2 --nvcc-flags "
           "'-O3 it'\\''s' -q -o %s", KERNELS, trace);
  assert_string_equal(info.command_line, want);
  assert_string_equal(info.tool_version, "coalcheck 0.1.0");
  assert_int_equal(info.stats.records, 2);
  cc_trace_info_release(&info);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_options_per_command),
    cmocka_unit_test(test_model_options),
    cmocka_unit_test(test_help_per_command),
    cmocka_unit_test_setup_teardown(test_arch_lists, setup_tmp, teardown_tmp),
    cmocka_unit_test_setup_teardown(test_record_report_round_trip, setup_tmp, teardown_tmp),
    cmocka_unit_test_setup_teardown(test_report_errors, setup_tmp, teardown_tmp),
    cmocka_unit_test_setup_teardown(test_record_errors, setup_tmp, teardown_tmp),
    cmocka_unit_test_setup_teardown(test_record_command_line, setup_tmp, teardown_tmp),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
