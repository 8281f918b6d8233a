/* Text and JSON reports of a small hand-built stream. The figures below are derived by
 * hand in the comment of build(); the text golden is written out in full. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "report/ci.h"
#include "report/report.h"
#include "util/fileio.h"

struct fixture {
  char dir[64];
  char src[128];   /* dir/transpose.cu */
  struct cc_insn_info insns[4];
  struct cc_model *model;
  struct cc_analysis *an;
};

static const char *const source_text =
    "__global__ void transpose(float *out, const float *in, int n) {\n"
    "  int x = blockIdx.x * 32 + threadIdx.x;\n"
    "  int y = blockIdx.y * 8 + threadIdx.y;\n"
    "\tout[x * n + y] = in[y * n + x];\n"
    "}\n";

/* N = 32 transpose, blocks 32 x 8, grid 1 x 4: 4 CTAs x 8 warps = 32 records per global
 * instruction; warp w of CTA (0, by): y = 8 by + w, lane l: x = l.
 *  slot 0, ld.global.f32 (id 12), in + 4 (32 y + l): 128 contiguous aligned bytes ->
 *    4 sectors, ideal 4: 128 / 128 over 32 records, efficiency 100%, stride 4, coalesced;
 *    128 distinct bytes per record: 4096 unique bytes.
 *  slot 1, st.global.f32 (id 14), out + 4 (32 l + y): lanes 128 bytes apart -> 32 sectors,
 *    ideal 4: 1024 / 128, excess 896, 4096 unique bytes, efficiency 4096 / 32768 = 12.5%;
 *    stride 128 = 32 floats; footprint = all of out: allStr 4, "contiguous": thread-
 *    geometry advice.
 *  slot 2, ld.shared.f32 (id 20), one record, lane i at 128 i: every lane in bank 0,
 *    32 distinct words -> 32 ways, 32 wavefronts, ideal 1, efficiency 1/32 = 3.1%;
 *    stride 128 > 4; footprint gaps 128 (shared: no coalescing judgement); source file
 *    does not exist. It reads tile (offset 0, 4096 bytes) down a column: lane stride 128
 *    bytes = 32 floats = 32 words, even: pad by 1 float, tile[4096 / 128 = 32][33].
 *  slot 3, red.global.add.f32 (id 30): never executed.
 * Worst first: store (excess 896), shared (excess 31 wavefronts), load (0), red (0,
 * higher id). Totals: requests 64, sectors 1152, ideal 256, excess 896, bytes 8192 of
 * 36864, 8192 unique: 8192 / 36864 = 22.2%; shared 32 wavefronts, ideal 1, 1 conflicted request; Table 2: 2048
 * thread accesses (32 x 32 x 2), 1024 in uncoalesced requests (50.0%). */
static int build_with(void **state, const char *cache_spec)
{
  struct fixture *f = calloc(1, sizeof *f);
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  FILE *fp;
  strcpy(f->dir, "/tmp/cc_report_XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->src, sizeof f->src, "%s/transpose.cu", f->dir);
  fp = fopen(f->src, "w");
  assert_non_null(fp);
  fputs(source_text, fp);
  fclose(fp);
  f->insns[0] = (struct cc_insn_info){ .id = 12, .kind = CC_ACCESS_LOAD,
    .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "ld.global.f32 %f1, [%rd7];",
    .file = f->src, .line = 4, .column = 20 };
  f->insns[1] = (struct cc_insn_info){ .id = 14, .kind = CC_ACCESS_STORE,
    .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "st.global.f32 \t[%rd9], %f1;",
    .file = "/usr/include/hdr.hpp", .line = 112, .column = 3, .inlined_file = f->src,
    .inlined_line = 4 };
  f->insns[2] = (struct cc_insn_info){ .id = 20, .kind = CC_ACCESS_LOAD,
    .space = CC_SPACE_SHARED, .size_bytes = 4, .text = "ld.shared.f32 %f2, [%r5];",
    .file = "/nonexistent/dir/k.cu", .line = 9, .column = 3 };
  f->insns[3] = (struct cc_insn_info){ .id = 30, .kind = CC_ACCESS_REDUCTION,
    .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "red.global.add.f32 [%rd3], %f4;" };
  /* the static __shared__ float tile[32][32] the shared load reads, as the emulator
   * names and places it */
  static const struct cc_shared_var tile = { "_ZZ9transposePfPKfiE4tile", 0, 4096 };
  struct cc_kernel_info k = { .name = "transpose", .mangled = "_Z9transposePfPKfi",
                              .grid = { 1, 4, 1 }, .block = { 32, 8, 1 }, .n_insns = 4,
                              .insns = f->insns, .n_shared_vars = 1, .shared_vars = &tile };
  assert_int_equal(cc_model_get("sm_90", NULL, &f->model, &err), CC_OK);
  f->an = cc_analysis_new(f->model);
  if (cache_spec) {
    struct cc_cache_device d;
    int on = 0;
    assert_int_equal(cc_cache_device_get("sm_90", cache_spec, NULL, &d, &on, &err), CC_OK);
    cc_analysis_set_cache(f->an, cc_cache_new(&d));
  }
  struct cc_access_sink s = cc_analysis_sink(f->an);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  memset(&a, 0, sizeof a);
  a.size_bytes = 4, a.active = 0xffffffffu;
  for (uint32_t by = 0; by < 4; by++)
    for (uint32_t w = 0; w < 8; w++) {
      a.cta[1] = by, a.warp = w, a.space = CC_SPACE_GLOBAL;
      a.insn_slot = 0, a.kind = CC_ACCESS_LOAD;
      for (uint32_t l = 0; l < 32; l++)
        a.addr[l] = 0x10000 + 4u * (32u * (8 * by + w) + l);
      assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
      a.insn_slot = 1, a.kind = CC_ACCESS_STORE;
      for (uint32_t l = 0; l < 32; l++)
        a.addr[l] = 0x20000 + 4u * (32u * l + 8 * by + w);
      assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
    }
  a.insn_slot = 2, a.kind = CC_ACCESS_LOAD, a.space = CC_SPACE_SHARED;
  for (uint32_t l = 0; l < 32; l++)
    a.addr[l] = 128u * l;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  /* the emulator's counters as run.c hands them over */
  struct cc_kernel_run_stats run = { .warp_insns = 40000, .thread_insns = 1234567,
                                     .warp_accesses = 2900000, .seconds = 0.5 };
  cc_analysis_set_run_stats(f->an, &run);
  *state = f;
  return 0;
}

static int build(void **state)
{
  return build_with(state, NULL);
}

/* The same stream through the H100's cache model on one SM with a 1 MiB L2 (nothing is
 * evicted; the 4 CTAs of 256 threads share SM 0: 8 resident, 8 KB carveout, 248 KB L1):
 *  load (slot 0): 32 records, each one whole line of `in`, all new: 0 L1 hits, 128 L2
 *    sectors, DRAM 4096 bytes read, 32 requests waiting on DRAM, 1 wavefront each;
 *  store (slot 1): 32 records x 32 sectors = 1024 L2 write sectors, 8 wavefronts each
 *    (256); `out`'s 32 lines x 4 sectors, each wholly written by 8 warps, are dirty at the
 *    end: 0 bytes written to DRAM during the kernel, 4096 left dirty in L2 (schema 3; the
 *    model flushed them as written before, which the H100 does not);
 *  shared load: 32 wavefronts (the bank model's), one L1 wait.
 * Kernel: L2 1152 sectors; wavefronts on SM 0: 32 + 256 + 32 = 320; latency 32 x 500 +
 * 20 = 16020 ns over 4 CTAs x 8 warps = 500.625 ns. Times (H100 table: 3350 and 5500
 * GB/s, 128 bytes a clock at 1.98 GHz): DRAM 4096 / 3350e3 = 0.0012 us (L2 did not
 * overflow: the dirty bytes do not count, cc_cache_dram_bytes), L2 36864 /
 * 5500e3 = 0.0067 us, L1 320 x 128 / 253.44e3 = 0.1616 us: L1 bound; estimate = the
 * latency, 0.5006 us. The store's fix (32 wavefronts, 128 L2 sectors) leaves the
 * latency: gain 0. */
static int build_cached(void **state)
{
  return build_with(state, "h100,sms=1,l2=1M");
}

static int teardown(void **state)
{
  struct fixture *f = *state;
  cc_analysis_free(f->an);
  cc_model_free(f->model);
  unlink(f->src);
  rmdir(f->dir);
  free(f);
  return 0;
}

static const char *const golden =
"kernel transpose  (_Z9transposePfPKfi)\n"
"  grid 1 x 4 x 1, block 32 x 8 x 1, arch sm_90\n"
"  emulated 1,234,567 thread-instructions in 0.50 s (5.8 M warp records/s)\n"
"  global: 64 requests, 1,152 sectors, ideal 256, excess 896\n"
"          8,192 bytes requested, 8,192 distinct, 36,864 transferred: efficiency 22.2%\n"
"  shared: 32 wavefronts, ideal 1, bank conflicts in 1 request\n"
"  thread accesses 2,048, in uncoalesced requests 1,024 (50.0%)  [CGO 2015 Table 2]\n"
"\n"
"    #  location            op    space   size    requests cost/req  ideal    eff   DRAM  verdict\n"
"    1  transpose.cu:4      st    global     4          32    32.00   4.00  12.5%      -  uncoalesced\n"
"     ptx     st.global.f32 [%rd9], %f1;\n"
"     stride  min 128, max 128, avg 128.0 bytes; footprint stride 4 bytes: contiguous, a remapping of\n"
"             threads can coalesce it\n"
"     advice  thread-geometry: lanes of a warp are 128 bytes (32 floats) apart: consecutive\n"
"             threadIdx.x should write consecutive elements; swap the roles of threadIdx.x and\n"
"             threadIdx.y (thread-geometry transformation)\n"
"     source  4 | out[x * n + y] = in[y * n + x];\n"
"     via     hdr.hpp:112 (inlined)\n"
"    2  k.cu:9              ld    shared     4           1    32.00   1.00   3.1%      -  32-way\n"
"     ptx     ld.shared.f32 %f2, [%r5];\n"
"     stride  min 128, max 128, avg 128.0 bytes; footprint stride 128 bytes\n"
"     banks   32-way at worst; conflicts in 1 of 1 requests\n"
"     advice  layout: 32-way bank conflict: lanes of a warp are 128 bytes (32 floats) apart, down a\n"
"             column of 'tile' whose rows are 32 floats long, an even number of 4-byte words; pad\n"
"             each row by 1 float (4 bytes) so that rows are an odd number of words long: declare\n"
"             tile[32][33] instead of tile[32][32]\n"
"     source  (source not available)\n"
"    3  transpose.cu:4      ld    global     4          32     4.00   4.00 100.0%      -  coalesced\n"
"     ptx     ld.global.f32 %f1, [%rd7];\n"
"     stride  min 4, max 4, avg 4.0 bytes; footprint stride 4 bytes\n"
"     source  4 | out[x * n + y] = in[y * n + x];\n"
"  1 memory instruction never executed\n"
"  footprint stride: allStr (CGO 2015), the largest gap between distinct addresses of all executions\n"
"  cost/req: 32-byte sectors (global, local) or wavefronts (shared) per request\n";

/* The text report of an is want, every line within 100 columns. */
static void assert_text_report(const struct cc_analysis *an, const char *want)
{
  struct cc_err err = { 0 };
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  assert_int_equal(cc_report_text(fp, an, &err), CC_OK);
  fclose(fp);
  if (strcmp(buf, want) != 0)
    fprintf(stderr, "--- got:\n%s--- expected:\n%s", buf, want);
  assert_string_equal(buf, want);
  for (char *line = buf; *line;) {
    char *nl = strchr(line, '\n');
    assert_non_null(nl);
    assert_true(nl - line <= CC_REPORT_WIDTH);
    line = nl + 1;
  }
  free(buf);
}

static void test_text_golden(void **state)
{
  struct fixture *f = *state;
  assert_text_report(f->an, golden);
}

static double get_num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v))
    fail_msg("field %s is not a number", key);
  return v->valuedouble;
}

static const char *get_str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsString(v))
    fail_msg("field %s is not a string", key);
  return v->valuestring;
}

static void test_json(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  char path[160], *text = NULL;
  snprintf(path, sizeof path, "%s/out.json", f->dir);
  assert_int_equal(cc_report_json_write(path, f->an, "0.1.0", &err), CC_OK);
  assert_int_equal(cc_file_read(path, &text, NULL, &err), CC_OK);
  cJSON *root = cJSON_Parse(text);
  assert_non_null(root);
  assert_true(get_num(root, "schema_version") == 5);
  assert_string_equal(get_str(root, "tool_version"), "0.1.0");
  assert_string_equal(get_str(root, "arch"), "sm_90");
  const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
  assert_int_equal(cJSON_GetArraySize(kernels), 1);
  const cJSON *k = cJSON_GetArrayItem(kernels, 0);
  assert_string_equal(get_str(k, "name"), "transpose");
  assert_string_equal(get_str(k, "mangled_name"), "_Z9transposePfPKfi");
  const cJSON *grid = cJSON_GetObjectItemCaseSensitive(k, "grid");
  assert_int_equal(cJSON_GetArraySize(grid), 3);
  assert_true(cJSON_GetArrayItem(grid, 1)->valuedouble == 4);
  assert_true(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "block"), 1)->valuedouble == 8);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(k, "totals");
  assert_true(get_num(t, "requests") == 64);
  assert_true(get_num(t, "sectors") == 1152);
  assert_true(get_num(t, "ideal_sectors") == 256);
  assert_true(get_num(t, "thread_accesses") == 2048);
  assert_true(get_num(t, "uncoalesced_thread_accesses") == 1024);
  assert_true(get_num(t, "unique_bytes") == 8192);
  assert_true(get_num(t, "efficiency") == 8192.0 / 36864.0);
  assert_true(get_num(t, "wavefronts") == 32);
  /* no cache model attached: the traffic figures are null, not 0 */
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(t, "dram_bytes_read")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(k, "cache")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(k, "time")));
  const cJSON *insns = cJSON_GetObjectItemCaseSensitive(k, "instructions");
  assert_int_equal(cJSON_GetArraySize(insns), 4); /* all, the never executed one too */
  /* worst first: the store */
  const cJSON *st = cJSON_GetArrayItem(insns, 0);
  assert_true(get_num(st, "ptx_index") == 14);
  assert_string_equal(get_str(st, "op"), "store");
  assert_string_equal(get_str(st, "space"), "global");
  assert_string_equal(get_str(st, "ptx"), "st.global.f32 \t[%rd9], %f1;"); /* as in the PTX */
  assert_true(get_num(st, "size_bytes") == 4);
  assert_true(get_num(st, "requests") == 32);
  assert_true(get_num(st, "thread_accesses") == 1024);
  assert_true(get_num(st, "bytes_requested") == 4096);
  assert_true(get_num(st, "sectors") == 1024);
  assert_true(get_num(st, "ideal_sectors") == 128);
  assert_true(get_num(st, "excess_sectors") == 896);
  assert_true(get_num(st, "transactions") == 1024);
  assert_true(get_num(st, "bytes_transferred") == 32768);
  assert_true(get_num(st, "sectors_per_request") == 32);
  assert_true(get_num(st, "unique_bytes") == 4096);
  assert_true(get_num(st, "efficiency") == 0.125);
  assert_true(get_num(st, "bandwidth_factor") == 8); /* 1024 / 128 */
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(st, "l2_sectors")));
  assert_true(get_num(st, "all_stride") == 4);
  assert_string_equal(get_str(st, "verdict"), "uncoalesced");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "all_coalescable")));
  const cJSON *stride = cJSON_GetObjectItemCaseSensitive(st, "stride");
  assert_true(get_num(stride, "min") == 128 && get_num(stride, "max") == 128);
  assert_true(get_num(stride, "avg") == 128);
  /* the store's .loc is hdr.hpp:112:3 inlined at the kernel's file, line 4 (the kernel's
   * file: that of the load, whose .loc is not inlined): source = the user's line 4
   * (column unknown: 0), inlined_from = the header location, inlined_at as in the PTX */
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(st, "source");
  assert_string_equal(get_str(src, "file"), f->src);
  assert_true(get_num(src, "line") == 4 && get_num(src, "column") == 0);
  const cJSON *from = cJSON_GetObjectItemCaseSensitive(src, "inlined_from");
  assert_string_equal(get_str(from, "file"), "/usr/include/hdr.hpp");
  assert_true(get_num(from, "line") == 112 && get_num(from, "column") == 3);
  const cJSON *at = cJSON_GetObjectItemCaseSensitive(src, "inlined_at");
  assert_string_equal(get_str(at, "file"), f->src);
  assert_true(get_num(at, "line") == 4);
  /* the load is in the kernel's file: no inlined_from */
  assert_null(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(insns, 2), "source"), "inlined_from"));
  /* line-level allStr: the store is its line's only store, so it is its own allStr 4 */
  assert_true(get_num(st, "line_all_stride") == 4);
  assert_true(get_num(st, "line_instructions") == 1);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "line_all_coalescable")));
  /* the emulator's counters, as handed over */
  const cJSON *emu = cJSON_GetObjectItemCaseSensitive(k, "emulator");
  assert_true(get_num(emu, "warp_insns") == 40000);
  assert_true(get_num(emu, "thread_insns") == 1234567);
  assert_true(get_num(emu, "warp_accesses") == 2900000);
  assert_true(get_num(emu, "seconds") == 0.5);
  /* per source line, by file name ("/nonexistent/..." < "/tmp/..."), no file last:
   * k.cu:9: the shared load, 1 request, 32 wavefronts, ideal 1;
   * transpose.cu:4: load (32 requests x 4 sectors) + store (32 x 32): 64 requests, 1152
   * sectors, ideal 128 + 128 = 256, excess 896, 2048 thread accesses, 1024 of them
   * uncoalesced (the store's); no file: the reduction, never executed */
  const cJSON *lines = cJSON_GetObjectItemCaseSensitive(k, "lines");
  assert_int_equal(cJSON_GetArraySize(lines), 3);
  const cJSON *l0 = cJSON_GetArrayItem(lines, 0), *l1 = cJSON_GetArrayItem(lines, 1);
  const cJSON *l2 = cJSON_GetArrayItem(lines, 2);
  assert_string_equal(get_str(l0, "file"), "/nonexistent/dir/k.cu");
  assert_true(get_num(l0, "line") == 9 && get_num(l0, "requests") == 1);
  assert_true(get_num(l0, "wavefronts") == 32 && get_num(l0, "ideal_wavefronts") == 1);
  assert_string_equal(get_str(l1, "file"), f->src);
  assert_true(get_num(l1, "line") == 4 && get_num(l1, "instructions") == 2);
  assert_true(get_num(l1, "requests") == 64 && get_num(l1, "sectors") == 1152);
  assert_true(get_num(l1, "ideal_sectors") == 256 && get_num(l1, "excess_sectors") == 896);
  assert_true(get_num(l1, "thread_accesses") == 2048);
  assert_true(get_num(l1, "uncoalesced_thread_accesses") == 1024);
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(l2, "file")));
  assert_true(get_num(l2, "instructions") == 1 && get_num(l2, "requests") == 0);
  const cJSON *sugg = cJSON_GetObjectItemCaseSensitive(st, "suggestions");
  assert_int_equal(cJSON_GetArraySize(sugg), 1);
  assert_string_equal(get_str(cJSON_GetArrayItem(sugg, 0), "kind"), "thread-geometry");
  assert_non_null(strstr(get_str(cJSON_GetArrayItem(sugg, 0), "text"), "128 bytes (32 floats)"));
  assert_null(cJSON_GetObjectItemCaseSensitive(st, "wavefronts")); /* global: no shared fields */
  assert_null(cJSON_GetObjectItemCaseSensitive(st, "reduction"));
  /* the shared load */
  const cJSON *sh = cJSON_GetArrayItem(insns, 1);
  assert_string_equal(get_str(sh, "space"), "shared");
  assert_true(get_num(sh, "bank_conflict_ways") == 32);
  assert_true(get_num(sh, "wavefronts") == 32);
  assert_true(get_num(sh, "ideal_wavefronts") == 1);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sh, "all_coalescable")));
  assert_null(cJSON_GetObjectItemCaseSensitive(sh, "unique_bytes")); /* global/local only */
  assert_true(get_num(sh, "efficiency") == 1.0 / 32);
  assert_true(get_num(sh, "conflict_requests") == 1);
  const cJSON *shs = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sh, "suggestions"), 0);
  assert_string_equal(get_str(shs, "kind"), "layout");
  assert_non_null(strstr(get_str(shs, "text"), "declare tile[32][33] instead of tile[32][32]"));
  /* the reduction: "atomic" with reduction true, never executed, no line info */
  const cJSON *red = cJSON_GetArrayItem(insns, 3);
  assert_string_equal(get_str(red, "op"), "atomic");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(red, "reduction")));
  assert_true(get_num(red, "requests") == 0);
  assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(
      cJSON_GetObjectItemCaseSensitive(red, "source"), "file")));
  cJSON_Delete(root);
  free(text);
  unlink(path);
}

/* Writes that cannot succeed: CC_ERR_IO, and no file (not even a temporary) is left. */
static void test_write_failures(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  char path[200];
  struct stat st;
  /* a directory that does not exist */
  snprintf(path, sizeof path, "%s/missing/out.json", f->dir);
  assert_int_equal(cc_report_json_write(path, f->an, "0.1.0", &err), CC_ERR_IO);
  assert_non_null(strstr(err.msg, path));
  assert_int_equal(cc_report_text_write(path, f->an, &err), CC_ERR_IO);
  assert_int_not_equal(stat(path, &st), 0);
  /* a path under a regular file (root may write anywhere, but not there) */
  snprintf(path, sizeof path, "%s/out.json", f->src);
  assert_int_equal(cc_report_json_write(path, f->an, "0.1.0", &err), CC_ERR_IO);
  /* a full device: the text writer checks fflush/ferror */
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    assert_int_equal(cc_report_text(full, f->an, &err), CC_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot write the text report"));
    fclose(full);
  }
  /* the temporary directory holds only the source file */
  snprintf(path, sizeof path, "%s/missing", f->dir);
  assert_int_not_equal(stat(path, &st), 0);
}

/* The text report written to a file appears whole. */
static void test_text_write(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  char path[160], *text = NULL;
  snprintf(path, sizeof path, "%s/report.txt", f->dir);
  assert_int_equal(cc_report_text_write(path, f->an, &err), CC_OK);
  assert_int_equal(cc_file_read(path, &text, NULL, &err), CC_OK);
  assert_string_equal(text, golden);
  free(text);
  unlink(path);
}

static void test_cached(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  char *buf = NULL, *json;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  static const char *const want[] = {
    "  traffic: L1 hits 0 of 128 load sectors (0.0%); L2 1,152 sectors; DRAM 4.1 KB read, 0 B written\n"
    "           (4.1 KB left dirty in L2 at the end)\n",
    "  time:    at least 0.2 us (L1 bound, busiest SM), serial latency 0.5 us: estimate 0.5 us; NVIDIA\n"
    "           H100 SXM5 (sm_90), L1 248 KiB on 1 of 1 SMs, L2 1 MiB; speeds: table defaults (not\n",
    "    1  transpose.cu:4      st    global     4          32    32.00   4.00  12.5%      0  uncoalesced\n",
    "     cache   L2 1,024 sectors written; DRAM 0 B read, 0 B written (4.1 KB left dirty in L2)\n"
    "     gain    none estimated: the kernel's time is set by latency (0.5 us), which coalescing this\n",
    "    2  k.cu:9              ld    shared     4           1    32.00   1.00   3.1%      0  32-way\n",
    "     cache   L1 hits 0 of 128 sectors (0.0%); L2 128 sectors; DRAM 4.1 KB read, 0 B written; waits\n"
    "             on DRAM in 32 of 32 requests\n",
    "  DRAM: bytes read + written (cache model of the h100); ideal: ideal/req\n",
  };
  assert_int_equal(cc_report_text(fp, f->an, &err), CC_OK);
  fclose(fp);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(buf, want[i]))
      fail_msg("text report lacks:\n%s--- report:\n%s", want[i], buf);
  for (char *line = buf; *line;) { /* every line fits in 100 columns */
    char *nl = strchr(line, '\n');
    assert_true(nl - line <= CC_REPORT_WIDTH);
    line = nl + 1;
  }
  free(buf);
  json = cc_report_json_string(f->an, "0.1.0");
  cJSON *root = cJSON_Parse(json);
  const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "kernels"), 0);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(k, "totals");
  const cJSON *time = cJSON_GetObjectItemCaseSensitive(k, "time");
  const cJSON *cache = cJSON_GetObjectItemCaseSensitive(k, "cache");
  const cJSON *st = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "instructions"), 0);
  assert_true(get_num(t, "l1_hit_sectors") == 0);
  assert_true(get_num(t, "l2_sectors") == 1152);
  assert_true(get_num(t, "dram_bytes_read") == 4096);
  assert_true(get_num(t, "dram_bytes_written") == 0);
  assert_true(get_num(t, "l2_dirty_bytes_at_end") == 4096);
  assert_true(get_num(t, "l1_wavefronts") == 320);
  assert_true(get_num(st, "l2_sectors") == 1024);
  assert_true(get_num(st, "l2_sectors_write") == 1024);
  assert_true(get_num(st, "dram_bytes_written") == 0);
  assert_true(get_num(st, "l2_dirty_bytes_at_end") == 4096);
  assert_true(get_num(st, "estimated_gain_us") == 0);
  assert_string_equal(get_str(cache, "device"), "h100");
  assert_true(get_num(cache, "l1_bytes") == 248 * 1024);
  assert_true(get_num(cache, "l2_evictions") == 0);
  assert_true(get_num(cache, "dram_access_bytes") == 64);
  /* the H100's write policy, measured by bench/cache_probe (cache.c "write policy"):
   * 2 lines a set with partly written sectors, 5 dirty lines a set */
  assert_true(get_num(cache, "l2_partial_ways") == 2);
  assert_true(get_num(cache, "l2_dirty_ways") == 5);
  assert_string_equal(get_str(cache, "l2_index"), "hash");
  assert_true(get_num(time, "dram_bytes") == 4096);
  assert_string_equal(get_str(time, "bound_by"), "L1");
  assert_true(fabs(get_num(time, "l1_us") - 320 * 128 / 253.44e3) < 1e-9);
  assert_true(fabs(get_num(time, "latency_us") - 0.500625) < 1e-9);
  assert_true(fabs(get_num(time, "estimate_us") - 0.500625) < 1e-9);
  cJSON_Delete(root);
  free(json);
}

/* The merged layout of the text report, in full: the cached fixture above (build_cached:
 * traffic, time, the DRAM column, cache and gain lines) with the static address forms a
 * run hands in (cc_analysis_set_forms: an address line under stride) for the global load
 * (in + 4 (32 y + x), y = 8 ctaid.y + tid.y: strides x 4 = the access size: unit, y 128:
 * large, z 0: zero) and the shared load (not affine); the store has none, so its advice
 * stays the dynamic thread-geometry one of `golden`. Rows and their figures as in
 * `golden` and test_cached; DRAM column: store 0 (its 4,096 bytes stay dirty in L2), load 4,096 read
 * ("4.1K"), shared 0. No note: the store, the only uncoalesced access, gains nothing but
 * its re-reads are not absorbed (no L1 hit). Lines wrap at 100 columns (13 for the
 * details, 11 for traffic and time). */
static const char *const golden_cached_forms =
"kernel transpose  (_Z9transposePfPKfi)\n"
"  grid 1 x 4 x 1, block 32 x 8 x 1, arch sm_90\n"
"  emulated 1,234,567 thread-instructions in 0.50 s (5.8 M warp records/s)\n"
"  global: 64 requests, 1,152 sectors, ideal 256, excess 896\n"
"          8,192 bytes requested, 8,192 distinct, 36,864 transferred: efficiency 22.2%\n"
"  shared: 32 wavefronts, ideal 1, bank conflicts in 1 request\n"
"  thread accesses 2,048, in uncoalesced requests 1,024 (50.0%)  [CGO 2015 Table 2]\n"
"  traffic: L1 hits 0 of 128 load sectors (0.0%); L2 1,152 sectors; DRAM 4.1 KB read, 0 B written\n"
"           (4.1 KB left dirty in L2 at the end)\n"
"  time:    at least 0.2 us (L1 bound, busiest SM), serial latency 0.5 us: estimate 0.5 us; NVIDIA\n"
"           H100 SXM5 (sm_90), L1 248 KiB on 1 of 1 SMs, L2 1 MiB; speeds: table defaults (not\n"
"           calibrated)\n"
"\n"
"    #  location            op    space   size    requests cost/req  ideal    eff   DRAM  verdict\n"
"    1  transpose.cu:4      st    global     4          32    32.00   4.00  12.5%      0  uncoalesced\n"
"     ptx     st.global.f32 [%rd9], %f1;\n"
"     stride  min 128, max 128, avg 128.0 bytes; footprint stride 4 bytes: contiguous, a remapping of\n"
"             threads can coalesce it\n"
"     cache   L2 1,024 sectors written; DRAM 0 B read, 0 B written (4.1 KB left dirty in L2)\n"
"     gain    none estimated: the kernel's time is set by latency (0.5 us), which coalescing this\n"
"             line leaves about as it is\n"
"     advice  thread-geometry: lanes of a warp are 128 bytes (32 floats) apart: consecutive\n"
"             threadIdx.x should write consecutive elements; swap the roles of threadIdx.x and\n"
"             threadIdx.y (thread-geometry transformation)\n"
"     source  4 | out[x * n + y] = in[y * n + x];\n"
"     via     hdr.hpp:112 (inlined)\n"
"    2  k.cu:9              ld    shared     4           1    32.00   1.00   3.1%      0  32-way\n"
"     ptx     ld.shared.f32 %f2, [%r5];\n"
"     stride  min 128, max 128, avg 128.0 bytes; footprint stride 128 bytes\n"
"     address not affine (opaque): the address is the result of a call at PTX line 40 (call.uni),\n"
"             which the analysis does not follow\n"
"     banks   32-way at worst; conflicts in 1 of 1 requests\n"
"     advice  layout: 32-way bank conflict: lanes of a warp are 128 bytes (32 floats) apart, down a\n"
"             column of 'tile' whose rows are 32 floats long, an even number of 4-byte words; pad\n"
"             each row by 1 float (4 bytes) so that rows are an odd number of words long: declare\n"
"             tile[32][33] instead of tile[32][32]\n"
"     source  (source not available)\n"
"    3  transpose.cu:4      ld    global     4          32     4.00   4.00 100.0%   4.1K  coalesced\n"
"     ptx     ld.global.f32 %f1, [%rd7];\n"
"     stride  min 4, max 4, avg 4.0 bytes; footprint stride 4 bytes\n"
"     address in + 4*tid.x + 128*tid.y + 1024*ctaid.y; thread strides x 4, y 128, z 0 bytes (unit,\n"
"             large, zero)\n"
"     cache   L1 hits 0 of 128 sectors (0.0%); L2 128 sectors; DRAM 4.1 KB read, 0 B written; waits\n"
"             on DRAM in 32 of 32 requests\n"
"     source  4 | out[x * n + y] = in[y * n + x];\n"
"  1 memory instruction never executed\n"
"  footprint stride: allStr (CGO 2015), the largest gap between distinct addresses of all executions\n"
"  cost/req: 32-byte sectors (global, local) or wavefronts (shared) per request\n"
"  DRAM: bytes read + written (cache model of the h100); ideal: ideal/req\n";

static void test_cached_forms_golden(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  const struct cc_addr_form forms[] = {
    { .id = 12, .status = CC_ADDR_AFFINE, .kind = "affine",
      .text = "in + 4*tid.x + 128*tid.y + 1024*ctaid.y",
      .tid = { { 1, 4 }, { 1, 128 }, { 1, 0 } } },
    { .id = 20, .status = CC_ADDR_NOT_AFFINE, .kind = "opaque",
      .text = "the address is the result of a call at PTX line 40 (call.uni), which the "
              "analysis does not follow", .why_line = 40 },
  };
  const struct cc_kernel_forms kf = { .forms = forms, .n = 2 };
  assert_int_equal(cc_analysis_set_forms(f->an, &kf, &err), CC_OK);
  assert_text_report(f->an, golden_cached_forms);
}

/* Two kernels with cache figures: the text report ends with the kernels by estimated
 * time (transpose, 0.5 us of latency, before a kernel of one coalesced store, which waits
 * on nothing: 1 wavefront, 0.0005 us) and the advice by estimated gain (the transpose's
 * store: thread-geometry, no gain). */
static void test_ranking(void **state)
{
  struct fixture *f = *state;
  struct cc_err err = { 0 };
  struct cc_insn_info st = { .id = 3, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL,
                             .size_bytes = 4, .text = "st.global.f32 [%rd1], %f1;" };
  struct cc_kernel_info k = { .name = "fill", .mangled = "_Z4fillPf", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1, .insns = &st };
  struct cc_access_sink s = cc_analysis_sink(f->an);
  struct cc_warp_access a;
  char *buf = NULL;
  size_t len = 0;
  FILE *fp;
  const char *kernels, *advice;
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_STORE, a.space = CC_SPACE_GLOBAL, a.size_bytes = 4, a.active = 0xffffffffu;
  for (uint32_t l = 0; l < 32; l++)
    a.addr[l] = 0x40000 + 4u * l;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  fp = open_memstream(&buf, &len);
  assert_int_equal(cc_report_text(fp, f->an, &err), CC_OK);
  fclose(fp);
  kernels = strstr(buf, "\nkernels by estimated time, slowest first\n");
  advice = strstr(buf, "\nadvice by estimated gain\n");
  if (!kernels || !advice || advice < kernels)
    fail_msg("no ranking at the end:\n%s", buf);
  assert_non_null(strstr(kernels, "    1  transpose "));
  assert_non_null(strstr(kernels, "    2  fill "));
  assert_non_null(strstr(advice, "    1  transpose                transpose.cu:4  thread-geometry  gain none of 0.5 us"));
  free(buf);
}

/* Two kernels without memory instructions: no requests, 0 of 0 in Table 2, a blank line
 * between the kernels. JSON: empty instruction lists, totals all 0, efficiency 1. */
static void test_empty_kernels(void **state)
{
  (void)state;
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  char *buf = NULL, *json;
  size_t len = 0;
  struct cc_kernel_info k = { .name = "empty", .mangled = "_Z5emptyv", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 } };
  assert_int_equal(cc_model_get("sm_80", NULL, &m, &err), CC_OK);
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
    assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  }
  static const char *const one =
      "kernel empty  (_Z5emptyv)\n"
      "  grid 1 x 1 x 1, block 32 x 1 x 1, arch sm_80\n"
      "  global: no requests\n"
      "  thread accesses 0, in uncoalesced requests 0 (0.0%)  [CGO 2015 Table 2]\n"
      "\n"
      "    #  location            op    space   size    requests cost/req  ideal    eff   DRAM  verdict\n"
      "  (no memory instruction was executed)\n"
      "  cost/req: 32-byte sectors (global, local) or wavefronts (shared) per request\n";
  char expected[2048];
  snprintf(expected, sizeof expected, "%s\n%s", one, one);
  FILE *fp = open_memstream(&buf, &len);
  assert_int_equal(cc_report_text(fp, an, &err), CC_OK);
  fclose(fp);
  assert_string_equal(buf, expected);
  free(buf);
  json = cc_report_json_string(an, "0.1.0");
  cJSON *root = cJSON_Parse(json);
  assert_non_null(root);
  assert_string_equal(get_str(root, "arch"), "sm_80");
  const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
  assert_int_equal(cJSON_GetArraySize(kernels), 2);
  const cJSON *k0 = cJSON_GetArrayItem(kernels, 0);
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(k0, "instructions")), 0);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(k0, "totals");
  assert_true(get_num(t, "requests") == 0);
  assert_true(get_num(t, "efficiency") == 1);
  cJSON_Delete(root);
  free(json);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* The CSV of the fixture (figures of build()'s comment): the header, then the three
 * executed rows worst first (store, shared load, load; the reduction never ran), each
 * record ending in CRLF (RFC 4180); the store's PTX holds a comma, so it is quoted. */
static void test_csv(void **state)
{
  struct fixture *f = *state;
  const struct cc_analysis *ans[1] = {f->an};
  char *csv = cc_report_csv_string(ans, 1), *p;
  size_t records = 0;
  for (p = csv; (p = strstr(p, "\r\n")); p += 2)
    records++;
  assert_int_equal(records, 4);
  assert_true(strncmp(csv, "arch,kernel,rank,file,line,op,space,size [B],executions,requests,"
                      "sectors [32 B],ideal sectors [32 B],excess sectors [32 B],", 100) == 0);
  /* store: 32 requests, 1024 sectors, ideal 128, excess 896, 32 and 4 per request,
   * efficiency 4096 / 32768 = 12.5% */
  assert_non_null(strstr(csv, "\r\nsm_90,transpose,1,"));
  assert_non_null(strstr(csv, ",4,store,global,4,32,32,1024,128,896,32.0000,4.0000,,,,12.5000,"
                              "uncoalesced,\"st.global.f32 \t[%rd9], %f1;\","));
  /* shared load: one request, 32 wavefronts, ideal 1, 32 ways, efficiency 1/32 */
  assert_non_null(strstr(csv, ",9,load,shared,4,1,1,,,,,,32,1,32,3.1250,conflict,"));
  assert_null(strstr(csv, "red.global"));
  free(csv);
}

/* The SARIF log of the fixture: the store (uncoalesced global) and the shared load
 * (32-way conflict) are results; the coalesced load and the idle reduction are not. */
static void test_sarif(void **state)
{
  struct fixture *f = *state;
  char *text = cc_report_sarif_string(f->an, "0.1.0");
  cJSON *log = cJSON_Parse(text), *run, *res, *r, *loc;
  assert_non_null(log);
  assert_string_equal(cJSON_GetObjectItem(log, "version")->valuestring, "2.1.0");
  run = cJSON_GetArrayItem(cJSON_GetObjectItem(log, "runs"), 0);
  res = cJSON_GetObjectItem(run, "results");
  assert_int_equal(cJSON_GetArraySize(res), 2);
  r = cJSON_GetArrayItem(res, 0);
  assert_string_equal(cJSON_GetObjectItem(r, "ruleId")->valuestring,
                      "coalcheck/uncoalesced-global");
  assert_string_equal(cJSON_GetObjectItem(r, "level")->valuestring, "warning");
  loc = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "locations"), 0),
                            "physicalLocation");
  /* the user's line of code inlined from hdr.hpp: transpose.cu:4 */
  assert_non_null(strstr(cJSON_GetObjectItem(cJSON_GetObjectItem(loc, "artifactLocation"),
                                             "uri")->valuestring, "transpose.cu"));
  assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(loc, "region"), "startLine")->valueint,
                   4);
  assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "properties"),
                                       "excess_sectors")->valueint, 896);
  r = cJSON_GetArrayItem(res, 1);
  assert_string_equal(cJSON_GetObjectItem(r, "ruleId")->valuestring,
                      "coalcheck/shared-bank-conflict");
  assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "properties"),
                                       "wavefronts")->valueint, 32);
  cJSON_Delete(log);
  free(text);
}

/* Naming a line (report.h): line 0, nvcc's merged code, is never written as ":0". */
static void test_line_names(void **state)
{
  char buf[64];
  (void)state;
  assert_string_equal(cc_report_line_name(39, buf, sizeof buf), "line 39");
  assert_string_equal(cc_report_line_name(0, buf, sizeof buf), "line unknown");
  assert_string_equal(cc_report_place("srad.cu", 148, buf, sizeof buf), "srad.cu:148");
  assert_string_equal(cc_report_place("srad.cu", 0, buf, sizeof buf), "srad.cu, line unknown");
  assert_string_equal(cc_report_place(NULL, 0, buf, sizeof buf), "?");
  assert_string_equal(cc_report_place("srad.cu", 0, buf, 8), "srad.cu"); /* cut, terminated */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_line_names),
    cmocka_unit_test_setup_teardown(test_text_golden, build, teardown),
    cmocka_unit_test_setup_teardown(test_json, build, teardown),
    cmocka_unit_test_setup_teardown(test_csv, build, teardown),
    cmocka_unit_test_setup_teardown(test_sarif, build, teardown),
    cmocka_unit_test_setup_teardown(test_write_failures, build, teardown),
    cmocka_unit_test_setup_teardown(test_text_write, build, teardown),
    cmocka_unit_test(test_empty_kernels),
    cmocka_unit_test_setup_teardown(test_cached, build_cached, teardown),
    cmocka_unit_test_setup_teardown(test_ranking, build_cached, teardown),
    cmocka_unit_test_setup_teardown(test_cached_forms_golden, build_cached, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
