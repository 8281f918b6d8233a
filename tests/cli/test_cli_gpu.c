/* tests/cli: the GPU backend's side of the command line (src/cli/gpu.h): importing the
 * injection library's JSON into an analysis, the report printed from it, the executable
 * mode's detection and its no-GPU answers, the file search.
 *
 * The GPU JSON below is hand-made in the library's format (src/gpu/report.c, README):
 * kernel transpose (_Z9transposePfPKfi), grid 1x1x1, block 32x4x1 (4 warps), 3 SASS
 * instructions, each figure derived by hand:
 *   0x0080 LDG.E  t.cu:5   4 warps x 32 lanes read consecutive floats: requests 4,
 *          lanes 128, bytes 512, sectors 4 x 4 = 16 = ideal, strides 4 bytes (coalesced)
 *   0x0100 STG.E  t.cu:6   4 warps write a column, lanes 4096 bytes apart: requests 4,
 *          lanes 128, bytes 512, sectors 4 x 32 = 128, ideal 16, excess 112, stride 4096
 *          (uncoalesced); efficiency 512 / (128 x 32) = 12.5%
 *   0x0180 LDS    t.cu:7   2 requests of 32 lanes, 2-way conflicts: wavefronts 4,
 *          ideal 2, ways 2, strides 8 bytes; wavefronts = ways x ideal: both requests
 *          had the conflict in their one phase, so 2 conflicting requests
 * Worst first (excess: sectors - ideal, plus wavefronts - ideal): STG (112), LDS (2),
 * LDG (0). Totals: global requests 8, sectors 144, ideal 32, excess 112, bytes
 * requested 1024, transferred 144 x 32 = 4608, thread accesses 256; shared wavefronts 4,
 * ideal 2. The stride count of LDG is lanes - requests = 124, its sum 124 x 4 = 496.
 * CGO Table 2: STG's every stride (4096) exceeds its size and its requests are full
 * warps (128 = 32 x 4 lanes), so all 128 thread accesses are uncoalesced; LDG's none
 * (stride 4 = size); the kernel's (global) total is 128. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/gpu.h"
#include "report/report.h"

#define INSN_LDG                                                                           \
  "{\"sass_offset\":128,\"sass\":\"LDG.E R2, desc[UR4][R2.64]\",\"space\":\"global\","     \
  "\"kind\":\"load\",\"size_bytes\":4,\"source\":{\"file\":\"t.cu\",\"line\":5},"          \
  "\"requests\":4,\"lanes\":128,\"bytes_requested\":512,\"sectors\":16,"                   \
  "\"ideal_sectors\":16,\"efficiency\":1.0,\"stride\":{\"min\":4,\"max\":4,\"avg\":4.000},"  \
  "\"verdict\":\"coalesced\"}"
#define INSN_STG                                                                           \
  "{\"sass_offset\":256,\"sass\":\"STG.E desc[UR4][R4.64], R2\",\"space\":\"global\","     \
  "\"kind\":\"store\",\"size_bytes\":4,\"source\":{\"file\":\"t.cu\",\"line\":6},"         \
  "\"requests\":4,\"lanes\":128,\"bytes_requested\":512,\"sectors\":128,"                  \
  "\"ideal_sectors\":16,\"efficiency\":0.125,\"stride\":{\"min\":4096,\"max\":4096,"        \
  "\"avg\":4096.000},\"verdict\":\"uncoalesced\"}"
#define INSN_LDS                                                                           \
  "{\"sass_offset\":384,\"sass\":\"LDS R5, [R6]\",\"space\":\"shared\",\"kind\":\"load\","  \
  "\"size_bytes\":4,\"source\":{\"file\":\"t.cu\",\"line\":7},\"requests\":2,\"lanes\":64,"  \
  "\"bytes_requested\":256,\"wavefronts\":4,\"ideal_wavefronts\":2,\"bank_conflicts\":2,"   \
  "\"ways\":2,\"stride\":{\"min\":8,\"max\":8,\"avg\":8.000},\"verdict\":\"uncoalesced\"}"

#define DOC(insns)                                                                         \
  "{\"tool\":\"coalcheck\",\"backend\":\"gpu\",\"device\":\"NVIDIA H200\",\"model\":"       \
  "\"sm_90\",\"kernels\":[{\"name\":\"transpose(float*, float const*, int)\",\"mangled\":"  \
  "\"_Z9transposePfPKfi\",\"grid\":[1,1,1],\"block\":[32,4,1],\"launches\":1,"             \
  "\"outside_requests\":0,\"instructions\":[" insns "],\"totals\":{}}]}"

static struct cc_model *sm90(void)
{
  struct cc_model *m = NULL;
  struct cc_err err = {CC_OK, ""};
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  return m;
}

static const struct cc_insn_stats *by_id(const struct cc_kernel_stats *k, uint32_t id)
{
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.id == id)
      return &k->insns[i];
  fail_msg("no instruction %u", id);
  return NULL;
}

static void test_import_figures(void **state)
{
  struct cc_model *m = sm90();
  struct cc_analysis *an = NULL;
  struct cc_err err = {CC_OK, ""};
  (void)state;
  assert_int_equal(cc_cli_gpu_import(DOC(INSN_LDG "," INSN_STG "," INSN_LDS), "g.json", m,
                                     &an, &err), CC_OK);
  assert_int_equal(an->n_kernels, 1);
  const struct cc_kernel_stats *k = &an->kernels[0];
  assert_string_equal(k->name, "transpose"); /* the source name, as the emulator's */
  assert_string_equal(k->mangled, "_Z9transposePfPKfi");
  assert_int_equal(k->block[0], 32);
  assert_int_equal(k->block[1], 4);
  assert_int_equal(k->n_insns, 3);
  /* worst first: STG (excess 112), LDS (2), LDG (0); ids are sass_offset / 16 */
  assert_int_equal(k->insns[0].info.id, 16);
  assert_int_equal(k->insns[1].info.id, 24);
  assert_int_equal(k->insns[2].info.id, 8);
  const struct cc_insn_stats *st = by_id(k, 16), *ld = by_id(k, 8), *sh = by_id(k, 24);
  assert_string_equal(st->info.text, "STG.E desc[UR4][R4.64], R2");
  assert_int_equal(st->info.kind, CC_ACCESS_STORE);
  assert_int_equal(st->executions, 4);
  assert_int_equal(st->requests, 4);
  assert_int_equal(st->sectors, 128);
  assert_int_equal(st->excess_sectors, 112);
  assert_int_equal(st->bytes_transferred, 4096);
  assert_int_equal(st->verdict, CC_VERDICT_UNCOALESCED);
  assert_int_equal(st->stride_max, 4096);
  assert_true(st->n_suggestions >= 1); /* thread-geometry (allStr unknown: 0) */
  assert_int_equal(st->suggestions[0].kind, CC_SUGGEST_THREAD_GEOMETRY);
  assert_int_equal(st->source.line, 6);
  assert_int_equal(ld->verdict, CC_VERDICT_COALESCED);
  assert_int_equal(ld->stride_count, 124);
  assert_true(cc_analysis_stride_avg(ld) == 4.0);
  assert_int_equal(sh->wavefronts, 4);
  assert_int_equal(sh->ideal_wavefronts, 2);
  assert_int_equal(sh->ways_max, 2);
  assert_int_equal(sh->sectors, 0);
  assert_int_equal(sh->conflict_requests, 2);
  assert_int_equal(k->totals.conflict_requests, 2);
  /* totals */
  assert_int_equal(k->totals.requests, 8);
  assert_int_equal(k->totals.sectors, 144);
  assert_int_equal(k->totals.ideal_sectors, 32);
  assert_int_equal(k->totals.excess_sectors, 112);
  assert_int_equal(k->totals.bytes_requested, 1024);
  assert_int_equal(k->totals.bytes_transferred, 4608);
  assert_int_equal(k->totals.thread_accesses, 256);
  assert_int_equal(st->uncoalesced_thread_accesses, 128);
  assert_int_equal(ld->uncoalesced_thread_accesses, 0);
  assert_int_equal(k->totals.uncoalesced_thread_accesses, 128);
  assert_int_equal(k->totals.wavefronts, 4);
  assert_int_equal(k->totals.ideal_wavefronts, 2);
  /* per line: 5, 6, 7 of t.cu */
  assert_int_equal(k->n_lines, 3);
  assert_int_equal(k->lines[1].line, 6);
  assert_int_equal(k->lines[1].sectors, 128);
  assert_int_equal(k->lines[1].ideal_sectors, 16);
  assert_int_equal(k->lines[2].wavefronts, 4);
  cc_analysis_free(an);
  cc_model_free(m);
}

/* No nvdisasm and no -lineinfo where the app ran: "sass" and "source" null. */
static void test_import_without_sass(void **state)
{
  struct cc_model *m = sm90();
  struct cc_analysis *an = NULL;
  struct cc_err err = {CC_OK, ""};
  (void)state;
  assert_int_equal(cc_cli_gpu_import(DOC("{\"sass_offset\":64,\"sass\":null,\"space\":"
                   "\"global\",\"kind\":\"store\",\"size_bytes\":8,\"source\":null,"
                   "\"requests\":1,\"lanes\":1,\"bytes_requested\":8,\"sectors\":1,"
                   "\"ideal_sectors\":1,\"stride\":null}"), "g.json", m, &an, &err), CC_OK);
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  assert_string_equal(s->info.text, "SASS +0x40");
  assert_int_equal(s->info.id, 4);
  assert_null(s->source.file);
  assert_int_equal(s->stride_count, 0);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED);
  cc_analysis_free(an);
  /* 3 requests, 5 wavefronts for 3 ideal, worst 2-way: 5 != 2 x 3, so which requests
   * conflicted is not fixed by the sums: 0 (unknown) */
  assert_int_equal(cc_cli_gpu_import(DOC("{\"sass_offset\":0,\"sass\":\"LDS R1, [R2]\","
                   "\"space\":\"shared\",\"kind\":\"load\",\"size_bytes\":4,\"source\":null,"
                   "\"requests\":3,\"lanes\":96,\"bytes_requested\":384,\"wavefronts\":5,"
                   "\"ideal_wavefronts\":3,\"ways\":2,\"stride\":null}"), "g.json", m, &an,
                   &err), CC_OK);
  assert_int_equal(an->kernels[0].insns[0].conflict_requests, 0);
  assert_int_equal(an->kernels[0].insns[0].ways_max, 2);
  cc_analysis_free(an);
  /* local memory is counted in sectors, as the emulator counts it (interleaved layout):
   * one full-warp STL of 4 bytes at one offset = 128 contiguous bytes = 4 sectors */
  assert_int_equal(cc_cli_gpu_import(DOC("{\"sass_offset\":32,\"sass\":\"STL [R1], R2\","
                   "\"space\":\"local\",\"kind\":\"store\",\"size_bytes\":4,\"source\":null,"
                   "\"requests\":1,\"lanes\":32,\"bytes_requested\":128,\"sectors\":4,"
                   "\"ideal_sectors\":4,\"stride\":{\"min\":0,\"max\":0,\"avg\":0.0}}"),
                   "g.json", m, &an, &err), CC_OK);
  s = &an->kernels[0].insns[0];
  assert_int_equal(s->info.space, CC_SPACE_LOCAL);
  assert_int_equal(s->sectors, 4);
  assert_int_equal(s->ideal_sectors, 4);
  assert_int_equal(s->wavefronts, 0);
  cc_analysis_free(an);
  /* an 8-byte local load is 2 requests per execution (one per 32-bit word, as ncu counts
   * them): 6 requests of 96 lanes = 3 executions, 93 strides, 3 x 2 requests */
  assert_int_equal(cc_cli_gpu_import(DOC("{\"sass_offset\":32,\"sass\":\"LDL.64 R2, [R1]\","
                   "\"space\":\"local\",\"kind\":\"load\",\"size_bytes\":8,\"source\":null,"
                   "\"requests\":6,\"lanes\":96,\"bytes_requested\":768,\"sectors\":24,"
                   "\"ideal_sectors\":24,\"stride\":{\"min\":4,\"max\":4,\"avg\":4.0}}"),
                   "g.json", m, &an, &err), CC_OK);
  s = &an->kernels[0].insns[0];
  assert_int_equal(s->executions, 3);
  assert_int_equal(s->requests, 6);
  assert_int_equal(s->stride_count, 93);
  assert_int_equal(s->verdict, CC_VERDICT_COALESCED); /* stride 4 <= 8 */
  cc_analysis_free(an);
  /* 5 requests cannot be whole 8-byte local executions */
  assert_int_equal(cc_cli_gpu_import(DOC("{\"sass_offset\":32,\"sass\":\"LDL.64 R2, [R1]\","
                   "\"space\":\"local\",\"kind\":\"load\",\"size_bytes\":8,\"source\":null,"
                   "\"requests\":5,\"lanes\":96,\"bytes_requested\":768,\"sectors\":24,"
                   "\"ideal_sectors\":24,\"stride\":null}"), "g.json", m, &an, &err),
                   CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "not a multiple of the access's 32-bit words"));
  cc_model_free(m);
}

/* nvdisasm -gi's call site: the atomic inlined from the CUDA header is placed on the
 * user's line h.cu:15 that called it, the header's line kept as inlined_from (the
 * analysis' rule, as for the emulator's .loc inlined_at); the kernel's own file is h.cu,
 * that of its instruction that is not inlined (h.cu:14). */
static void test_import_inlined(void **state)
{
  struct cc_model *m = sm90();
  struct cc_analysis *an = NULL;
  struct cc_err err = {CC_OK, ""};
  (void)state;
  assert_int_equal(cc_cli_gpu_import(DOC(
      "{\"sass_offset\":16,\"sass\":\"LDG.E.U8 R2, desc[UR4][R2.64]\",\"space\":\"global\","
      "\"kind\":\"load\",\"size_bytes\":1,\"source\":{\"file\":\"h.cu\",\"line\":14},"
      "\"requests\":1,\"lanes\":1,\"bytes_requested\":1,\"sectors\":1,"
      "\"ideal_sectors\":1,\"stride\":null},"
      "{\"sass_offset\":32,\"sass\":\"REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5\","
      "\"space\":\"global\",\"kind\":\"reduction\",\"size_bytes\":4,\"source\":{\"file\":"
      "\"/cuda/device_atomic_functions.hpp\",\"line\":112},\"inlined_at\":{\"file\":"
      "\"h.cu\",\"line\":15},\"requests\":1,\"lanes\":1,\"bytes_requested\":4,"
      "\"sectors\":1,\"ideal_sectors\":1,\"stride\":null}"), "g.json", m, &an, &err), CC_OK);
  const struct cc_kernel_stats *k = &an->kernels[0];
  const struct cc_insn_stats *red = by_id(k, 2);
  assert_string_equal(red->source.file, "h.cu");
  assert_int_equal(red->source.line, 15);
  assert_string_equal(red->inlined_from.file, "/cuda/device_atomic_functions.hpp");
  assert_int_equal(red->inlined_from.line, 112);
  assert_int_equal(k->n_lines, 2); /* h.cu:14 and h.cu:15 */
  assert_int_equal(k->lines[1].line, 15);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void expect_import_error(const char *doc, const char *needle)
{
  struct cc_model *m = sm90();
  struct cc_analysis *an = (struct cc_analysis *)1;
  struct cc_err err = {CC_OK, ""};
  assert_int_equal(cc_cli_gpu_import(doc, "g.json", m, &an, &err), CC_ERR_INPUT);
  assert_null(an);
  if (!strstr(err.msg, needle))
    fail_msg("message '%s' lacks '%s'", err.msg, needle);
  assert_non_null(strstr(err.msg, "g.json"));
  cc_model_free(m);
}

static void test_import_errors(void **state)
{
  (void)state;
  expect_import_error("{\"backend\":", "not JSON");
  expect_import_error("{\"backend\":\"emu\",\"kernels\":[]}", "'backend'");
  expect_import_error("{\"backend\":\"gpu\"}", "'kernels'");
  expect_import_error("{\"backend\":\"gpu\",\"kernels\":[1]}", "not an object");
  expect_import_error("{\"backend\":\"gpu\",\"kernels\":[{\"name\":\"k\",\"mangled\":\"k\","
                      "\"grid\":[1,1],\"block\":[1,1,1],\"instructions\":[]}]}", "'grid'");
  expect_import_error("{\"backend\":\"gpu\",\"kernels\":[{\"name\":\"k\",\"mangled\":\"k\","
                      "\"grid\":[1,1,1],\"block\":[1,1,1]}]}", "'instructions'");
  /* requests missing: named with kernel and instruction */
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"lanes\":1,\"bytes_requested\":4}"),
                      "'requests' in kernel 0, instruction 0");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"texture\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4}"), "'space'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"peek\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4}"), "'kind'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":0,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4}"), "'size_bytes'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":2,\"lanes\":1,"
                      "\"bytes_requested\":4}"), "'lanes'");
  expect_import_error(DOC("{\"sass_offset\":-16,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4}"), "'sass_offset'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"source\":7,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"sectors\":1,\"ideal_sectors\":1}"), "'source'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"shared\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"wavefronts\":1}"), "'ideal_wavefronts'");
  /* a stride with no request of two lanes (lanes == requests) cannot be */
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"sectors\":1,\"ideal_sectors\":1,\"stride\":"
                      "{\"min\":4,\"max\":4,\"avg\":4}}"), "'stride'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":2,"
                      "\"bytes_requested\":8,\"sectors\":1,\"ideal_sectors\":1,\"stride\":"
                      "{\"min\":4,\"max\":4}}"), "'avg'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":2,"
                      "\"bytes_requested\":8,\"sectors\":1,\"ideal_sectors\":1,\"stride\":"
                      "3}"), "'stride'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"inlined_at\":[]}"), "'inlined_at'");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"inlined_at\":{\"file\":\"a.cu\"}}"), "'line'");
  /* figures the analysis refuses (cc_analysis_import_kernel) */
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"sectors\":1,\"ideal_sectors\":2}"),
                      "more ideal sectors than sectors");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"shared\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":1,"
                      "\"bytes_requested\":4,\"wavefronts\":1,\"ideal_wavefronts\":2,"
                      "\"ways\":1}"), "more ideal wavefronts than wavefronts");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":33,"
                      "\"bytes_requested\":4,\"sectors\":1,\"ideal_sectors\":1}"),
                      "more than 32 active lanes");
  expect_import_error(DOC("{\"sass_offset\":0,\"sass\":\"X\",\"space\":\"global\",\"kind\":"
                      "\"load\",\"size_bytes\":4,\"requests\":1,\"lanes\":2,"
                      "\"bytes_requested\":8,\"sectors\":1,\"ideal_sectors\":1,\"stride\":"
                      "{\"min\":8,\"max\":4,\"avg\":4}}"), "stride min above stride max");
}

/* The text report of the import: the figures of the header above. */
static void test_report_text(void **state)
{
  char path[] = "/tmp/cc-gpu-test-XXXXXX";
  int fd = mkstemp(path);
  const char *doc = DOC(INSN_LDG "," INSN_STG "," INSN_LDS);
  char *buf = NULL;
  size_t len = 0;
  struct cc_err err = {CC_OK, ""};
  (void)state;
  assert_true(fd >= 0);
  assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
  close(fd);
  FILE *out = open_memstream(&buf, &len);
  assert_int_equal(cc_cli_gpu_report(path, NULL, 2, out, &err), CC_OK);
  fclose(out);
  assert_non_null(strstr(buf, "kernel transpose  (_Z9transposePfPKfi)"));
  assert_non_null(strstr(buf, "global: 8 requests, 144 sectors, ideal 32, excess 112"));
  assert_non_null(strstr(buf, "1,024 bytes requested, 1,024 distinct, 4,608 transferred: "
                              "efficiency 22.2%"));
  assert_non_null(strstr(buf, "STG.E desc[UR4][R4.64], R2"));
  assert_non_null(strstr(buf, "LDS R5, [R6]"));
  assert_null(strstr(buf, "LDG.E")); /* --top 2: the coalesced load is third */
  free(buf);
  /* the import command: options before and after its one file */
  {
    char json_out[64];
    snprintf(json_out, sizeof json_out, "%s.out.json", path);
    char *ok[] = {"import", "--top", "1", path, "--json", json_out, NULL};
    char *none[] = {"import", "-q", NULL};
    char *two[] = {"import", path, path, NULL};
    char *filter[] = {"import", "--launch-count", "1", path, NULL};
    assert_int_equal(cc_cli_cmd_import(6, ok, &err), CC_OK);
    assert_int_equal(access(json_out, R_OK), 0);
    unlink(json_out);
    assert_int_equal(cc_cli_cmd_import(2, none, &err), CC_ERR_USAGE);
    assert_int_equal(cc_cli_cmd_import(3, two, &err), CC_ERR_USAGE);
    assert_non_null(strstr(err.msg, "is a second one"));
    assert_int_equal(cc_cli_cmd_import(4, filter, &err), CC_ERR_USAGE);
    assert_non_null(strstr(err.msg, "import takes only"));
  }
  /* unreadable file: CC_ERR_INPUT naming it */
  out = open_memstream(&buf, &len);
  assert_int_equal(cc_cli_gpu_report("/nonexistent/g.json", NULL, 0, out, &err), CC_ERR_INPUT);
  fclose(out);
  assert_non_null(strstr(err.msg, "/nonexistent/g.json"));
  free(buf);
  unlink(path);
}

/* What the GPU does not count is null in the JSON, "-" / "unknown" in the text, never 0
 * (issue 13). STG (above): 128 sectors in 4 full-warp requests = 32 each, the most: the
 * histogram is known (element 32: 4); every stride 4096 > 4 in full warps: 4 uncoalesced
 * requests, 128 thread accesses. INSN_PART: 2 requests of 40 lanes (partial warps), 10
 * sectors, strides 0..128: lanes share some bytes but not all (unique bytes unknown, so
 * its efficiency and the kernel's), 10 sectors is neither 2 x 1 nor 2 x 32 (histogram
 * unknown), max 128 > 4 with min 0 over 2 requests (uncoalesced unknown, so the kernel's
 * Table 2 pair and its line's). */
#define INSN_PART                                                                          \
  "{\"sass_offset\":512,\"sass\":\"LDG.E R7, desc[UR4][R8.64]\",\"space\":\"global\","     \
  "\"kind\":\"load\",\"size_bytes\":4,\"source\":{\"file\":\"t.cu\",\"line\":8},"          \
  "\"requests\":2,\"lanes\":40,\"bytes_requested\":160,\"sectors\":10,"                    \
  "\"ideal_sectors\":4,\"stride\":{\"min\":0,\"max\":128,\"avg\":26.3}}"

static const cJSON *insn_by_index(const cJSON *insns, double index)
{
  const cJSON *o;
  cJSON_ArrayForEach(o, insns)
    if (cJSON_GetObjectItemCaseSensitive(o, "ptx_index")->valuedouble == index)
      return o;
  fail_msg("no instruction %g", index);
  return NULL;
}

static int is_null(const cJSON *o, const char *key)
{
  return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

static void test_import_unknown_figures(void **state)
{
  struct cc_model *m = sm90();
  struct cc_analysis *an = NULL;
  struct cc_err err = {CC_OK, ""};
  char *json, *buf = NULL;
  size_t len = 0;
  (void)state;
  assert_int_equal(cc_cli_gpu_import(DOC(INSN_STG "," INSN_PART), "g.json", m, &an, &err),
                   CC_OK);
  json = cc_report_json_string(an, "test");
  cJSON *root = cJSON_Parse(json);
  const cJSON *k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "kernels"), 0);
  const cJSON *insns = cJSON_GetObjectItemCaseSensitive(k, "instructions");
  const cJSON *st = insn_by_index(insns, 16), *part = insn_by_index(insns, 32);
  const cJSON *hist = cJSON_GetObjectItemCaseSensitive(st, "sector_histogram");
  assert_int_equal(cJSON_GetArraySize(hist), 33);
  assert_true(cJSON_GetArrayItem(hist, 32)->valuedouble == 4);
  assert_true(cJSON_GetArrayItem(hist, 0)->valuedouble == 0);
  assert_true(cJSON_GetObjectItemCaseSensitive(st, "uncoalesced_requests")->valuedouble == 4);
  assert_true(cJSON_GetObjectItemCaseSensitive(st, "unique_bytes")->valuedouble == 512);
  assert_true(cJSON_GetObjectItemCaseSensitive(st, "efficiency")->valuedouble == 0.125);
  assert_true(is_null(part, "sector_histogram"));
  assert_true(is_null(part, "uncoalesced_requests"));
  assert_true(is_null(part, "uncoalesced_thread_accesses"));
  assert_true(is_null(part, "unique_bytes"));
  assert_true(is_null(part, "efficiency"));
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(k, "totals");
  assert_true(is_null(t, "efficiency"));
  assert_true(is_null(t, "unique_bytes"));
  assert_true(is_null(t, "uncoalesced_thread_accesses"));
  assert_true(cJSON_GetObjectItemCaseSensitive(t, "sectors")->valuedouble == 138);
  const cJSON *lines = cJSON_GetObjectItemCaseSensitive(k, "lines");
  assert_false(is_null(cJSON_GetArrayItem(lines, 0), "uncoalesced_thread_accesses")); /* 6 */
  assert_true(is_null(cJSON_GetArrayItem(lines, 1), "uncoalesced_thread_accesses"));  /* 8 */
  cJSON_Delete(root);
  free(json);
  FILE *out = open_memstream(&buf, &len);
  assert_int_equal(cc_report_text(out, an, &err), CC_OK);
  fclose(out);
  assert_non_null(strstr(buf, "672 bytes requested, 4,416 transferred; distinct bytes and "
                              "efficiency unknown"));
  assert_non_null(strstr(buf, "in uncoalesced requests unknown"));
  assert_non_null(strstr(buf, "      -  uncoalesced\n")); /* the eff column of INSN_PART */
  free(buf);
  cc_analysis_free(an);
  cc_model_free(m);
}

static void test_probe_forced_none(void **state)
{
  struct cc_err err = {CC_OK, ""};
  (void)state;
  setenv("COALCHECK_GPU_PROBE", "none", 1);
  assert_int_equal(cc_cli_gpu_probe(&err), CC_CLI_EXIT_NO_GPU);
  assert_non_null(strstr(err.msg, "no usable CUDA GPU"));
  unsetenv("COALCHECK_GPU_PROBE");
}

static void test_is_elf_and_find(void **state)
{
  struct cc_err err = {CC_OK, ""};
  char *p;
  (void)state;
  assert_true(cc_cli_is_elf("/proc/self/exe"));
  assert_false(cc_cli_is_elf(CC_SOURCE_DIR "/CMakeLists.txt"));
  assert_false(cc_cli_is_elf("/nonexistent"));
  setenv("CC_TEST_GPU_FILE", CC_SOURCE_DIR "/CMakeLists.txt", 1);
  p = cc_cli_gpu_find_file("CC_TEST_GPU_FILE", "x", &err);
  assert_string_equal(p, CC_SOURCE_DIR "/CMakeLists.txt");
  free(p);
  setenv("CC_TEST_GPU_FILE", "/nonexistent/lib.so", 1);
  assert_null(cc_cli_gpu_find_file("CC_TEST_GPU_FILE", "lib.so", &err));
  assert_int_equal(err.status, CC_ERR_TOOL);
  assert_non_null(strstr(err.msg, "CC_TEST_GPU_FILE"));
  unsetenv("CC_TEST_GPU_FILE");
  assert_null(cc_cli_gpu_find_file("CC_TEST_GPU_FILE", "no-such-file.so", &err));
  assert_non_null(strstr(err.msg, "src/gpu/no-such-file.so"));
}

/* The executable mode is chosen for an ELF INPUT after options it knows, only. */
static void test_app_wanted(void **state)
{
  char *a1[] = {"coalcheck", "/proc/self/exe", "--grid", "1", NULL};
  char *a2[] = {"coalcheck", "--kernel-name", "k", "--top=3", "/proc/self/exe", NULL};
  char *a3[] = {"coalcheck", CC_SOURCE_DIR "/examples/transpose/transpose.cu", NULL};
  char *a4[] = {"coalcheck", "--grid", "1", "/proc/self/exe", NULL};
  char *a5[] = {"coalcheck", "--", "/proc/self/exe", NULL};
  (void)state;
  assert_true(cc_cli_app_wanted(4, a1));
  assert_true(cc_cli_app_wanted(5, a2));
  assert_false(cc_cli_app_wanted(2, a3));
  assert_false(cc_cli_app_wanted(4, a4)); /* --grid is the emulator's */
  assert_true(cc_cli_app_wanted(3, a5));
}

static void test_app_errors(void **state)
{
  struct cc_err err = {CC_OK, ""};
  char *emu[] = {"coalcheck", "--backend", "emu", "/proc/self/exe", NULL};
  char *bad_backend[] = {"coalcheck", "--backend=cpu", "/proc/self/exe", NULL};
  char *bad_skip[] = {"coalcheck", "--launch-skip", "-1", "/proc/self/exe", NULL};
  char *bad_count[] = {"coalcheck", "--launch-count", "x", "/proc/self/exe", NULL};
  char *bad_re[] = {"coalcheck", "--kernel-name", "regex:(", "/proc/self/exe", NULL};
  char *count0[] = {"coalcheck", "--launch-count", "0", "/proc/self/exe", NULL};
  char *bad_id[] = {"coalcheck", "--kernel-id", "1::k:1", "/proc/self/exe", NULL};
  char *no_value[] = {"coalcheck", "--json", NULL};
  char *bad_top[] = {"coalcheck", "--top", "many", "/proc/self/exe", NULL};
  char *nogpu[] = {"coalcheck", "/proc/self/exe", "--foo", NULL};
  (void)state;
  assert_int_equal(cc_cli_cmd_app(4, emu, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "emulator cannot run executables yet"));
  assert_int_equal(cc_cli_cmd_app(3, bad_backend, &err), CC_ERR_USAGE);
  assert_int_equal(cc_cli_cmd_app(4, bad_skip, &err), CC_ERR_USAGE);
  assert_int_equal(cc_cli_cmd_app(4, bad_count, &err), CC_ERR_USAGE);
  assert_int_equal(cc_cli_cmd_app(4, bad_re, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "--kernel-name '(' does not compile at position 1"));
  assert_int_equal(cc_cli_cmd_app(4, count0, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "--launch-count 0 selects no launch"));
  assert_int_equal(cc_cli_cmd_app(4, bad_id, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "contexts and streams"));
  assert_int_equal(cc_cli_cmd_app(2, no_value, &err), CC_ERR_USAGE);
  assert_int_equal(cc_cli_cmd_app(4, bad_top, &err), CC_ERR_USAGE);
  setenv("COALCHECK_GPU_PROBE", "none", 1);
  assert_int_equal(cc_cli_cmd_app(3, nogpu, &err), CC_CLI_EXIT_NO_GPU);
  assert_non_null(strstr(err.msg, "no usable CUDA GPU"));
  assert_non_null(strstr(err.msg, "emulator cannot run executables yet"));
  unsetenv("COALCHECK_GPU_PROBE");
}


/* FNV-1a 64 from its definition (Fowler, Noll, Vo; offset basis 0xcbf29ce484222325,
 * prime 0x100000001b3), independent of the code under test. */
static uint64_t ref_fnv(const uint8_t *p, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* The launch plan of `--backend gpu` (COALCHECK_GPU_PLAN: written, not run) for
 * tests/e2e/data/kernels.ptx's scale(out, in, n, a) with out=f32[4]:zero,
 * in=f32[4]:iota, n=4, a=2: scalars little-endian (4 = 04000000, 2.0f = 0x40000000 =
 * 00000040); buffers with literal counts and the hash of their first bytes: 16 zero
 * bytes, and iota 0.0f 1.0f 2.0f 3.0f = 00000000 0000803f 00000040 00004040. */
static void test_plan_written(void **state)
{
  char dir[] = "/tmp/cc-gpu-plan-XXXXXX", path[64], want[1024], *text = NULL;
  static const uint8_t zero[16] = {0};
  static const uint8_t iota[16] = {0, 0, 0, 0, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40};
  char *argv[] = {"coalcheck", CC_SOURCE_DIR "/tests/e2e/data/kernels.ptx", "--kernel",
                  "scale", "--grid", "1", "--block", "32", "--arg", "out=f32[4]:zero",
                  "--arg", "in=f32[n]:iota", "--arg", "n=4", "--arg", "a=2", NULL};
  struct cc_run_opts o;
  struct cc_err err = {CC_OK, ""};
  FILE *fp;
  size_t len = 0;
  (void)state;
  assert_non_null(mkdtemp(dir));
  assert_int_equal(cc_cli_parse_run(16, argv, &o, &err), CC_OK);
  setenv("COALCHECK_GPU_PLAN", dir, 1);
  o.quiet = 1;
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_OK);
  unsetenv("COALCHECK_GPU_PLAN");
  snprintf(want, sizeof want,
           "coalcheck-gpu-plan 1\nmodule kernel.ptx\nkernel scale\ngrid 1 1 1\nblock 32 1 1\n"
           "shared 0\nparam 0 buffer %016llx out=f32[4]:zero\n"
           "param 1 buffer %016llx in=f32[4]:iota\nparam 2 scalar 04000000\n"
           "param 3 scalar 00000040\n",
           (unsigned long long)ref_fnv(zero, 16), (unsigned long long)ref_fnv(iota, 16));
  snprintf(path, sizeof path, "%s/plan", dir);
  fp = fopen(path, "r");
  assert_non_null(fp);
  assert_int_equal(getdelim(&text, &len, '\0', fp) > 0, 1);
  fclose(fp);
  assert_string_equal(text, want);
  free(text);
  unlink(path);
  snprintf(path, sizeof path, "%s/kernel.ptx", dir);
  assert_int_equal(access(path, R_OK), 0);
  unlink(path);
  rmdir(dir);
  cc_cli_opts_release(&o);
}

/* Without COALCHECK_GPU_PLAN the run needs a GPU: none (forced) is exit 10; the checks
 * before it are usage errors. */
static void test_run_gpu_errors(void **state)
{
  char *argv[] = {"coalcheck", CC_SOURCE_DIR "/tests/e2e/data/kernels.ptx", "--kernel",
                  "scale", "--grid", "1", "--block", "32", "--arg", "out=f32[4]:zero",
                  "--arg", "in=f32[n]:iota", "--arg", "n=4", "--arg", "a=2", NULL};
  struct cc_run_opts o;
  struct cc_err err = {CC_OK, ""};
  (void)state;
  assert_int_equal(cc_cli_parse_run(16, argv, &o, &err), CC_OK);
  setenv("COALCHECK_GPU_PROBE", "none", 1);
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_CLI_EXIT_NO_GPU);
  assert_non_null(strstr(err.msg, "no usable CUDA GPU"));
  unsetenv("COALCHECK_GPU_PROBE");
  free(o.arch);
  o.arch = strdup("cc1.0");
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "--arch cc1.0"));
  free(o.arch);
  o.arch = NULL;
  o.grid[0] = 0;
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_ERR_USAGE);
  o.grid[0] = 1;
  /* with a plan folder to write, no GPU is needed: the errors of the binding show */
  char dir[] = "/tmp/cc-gpu-plan-XXXXXX";
  assert_non_null(mkdtemp(dir));
  setenv("COALCHECK_GPU_PLAN", dir, 1);
  o.nargs = 3; /* one argument short: the kernel has 4 parameters */
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_ERR_INPUT);
  o.nargs = 4;
  free(o.input);
  o.input = strdup("kernel.txt"); /* not there: said before the missing kind */
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "cannot read kernel.txt: No such file or directory"));
  free(o.input);
  o.input = strdup(CC_SOURCE_DIR "/README.md");
  assert_int_equal(cc_cli_run_gpu(&o, stdout, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "cannot tell what"));
  unsetenv("COALCHECK_GPU_PLAN");
  assert_int_equal(rmdir(dir), 0); /* nothing was written */
  cc_cli_opts_release(&o);
}

/* ---- libsanitizer-public.so from the CUDA installation (a fake toolkit tree) ---------- */

/* Creates root/rel (folders included) as an empty file with mode. */
static void make_file(const char *root, const char *rel, mode_t mode)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
    *p = '\0';
    mkdir(path, 0755);
    *p = '/';
  }
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fclose(fp);
  assert_int_equal(chmod(path, mode), 0);
}

/* Expects the search to pick want_dir (root-relative) from want_origin. */
static void expect_found(const struct cc_cli_cuda_places *p, const char *root,
                         const char *want_dir, const char *want_origin)
{
  struct cc_err err = {CC_OK, ""};
  char *dir = NULL, *origin = NULL, want[512];
  if (cc_cli_gpu_find_sanitizer(p, &dir, &origin, &err) != CC_OK)
    fail_msg("not found: %s", err.msg);
  snprintf(want, sizeof want, "%s/%s", root, want_dir);
  assert_string_equal(dir, want);
  assert_string_equal(origin, want_origin);
  free(dir);
  free(origin);
}

/* Order: $CUDA_HOME, the toolkit of the nvcc on PATH (as found, then with links
 * resolved), the default root, LD_LIBRARY_PATH; none: every folder tried is named. */
static void test_find_sanitizer(void **state)
{
  char root[] = "/tmp/cc-test-cuda-XXXXXX", a[512], b[512], c[512], d[512];
  struct cc_cli_cuda_places p = {NULL, NULL, NULL, NULL};
  struct cc_err err = {CC_OK, ""};
  char *dir = (char *)"x", *origin = (char *)"x";
  (void)state;
  assert_non_null(mkdtemp(root));
  make_file(root, "home/compute-sanitizer/libsanitizer-public.so", 0644);
  make_file(root, "tk/bin/nvcc", 0755);
  make_file(root, "tk/compute-sanitizer/libsanitizer-public.so", 0644);
  make_file(root, "real/bin/nvcc", 0755);
  make_file(root, "real/compute-sanitizer/libsanitizer-public.so", 0644);
  make_file(root, "dflt/compute-sanitizer/libsanitizer-public.so", 0644);
  make_file(root, "ld/libsanitizer-public.so", 0644);
  make_file(root, "bare/bin/nvcc", 0755); /* a toolkit without compute-sanitizer/ */
  snprintf(a, sizeof a, "%s/links", root); /* links/bin/nvcc -> real/bin/nvcc */
  assert_int_equal(mkdir(a, 0755), 0);
  strcat(a, "/bin");
  assert_int_equal(mkdir(a, 0755), 0);
  strcat(a, "/nvcc");
  snprintf(b, sizeof b, "%s/real/bin/nvcc", root);
  assert_int_equal(symlink(b, a), 0);

  snprintf(a, sizeof a, "%s/home", root);
  snprintf(b, sizeof b, "%s/none:%s/tk/bin", root, root);
  snprintf(c, sizeof c, "%s/dflt", root);
  snprintf(d, sizeof d, "%s/none:%s/ld", root, root);
  p = (struct cc_cli_cuda_places){a, b, c, d};
  expect_found(&p, root, "home/compute-sanitizer", "$CUDA_HOME");
  p.cuda_home = NULL;
  expect_found(&p, root, "tk/compute-sanitizer", "the nvcc on PATH");
  snprintf(b, sizeof b, "%s/links/bin", root);
  expect_found(&p, root, "real/compute-sanitizer", "the nvcc on PATH, links resolved");
  snprintf(b, sizeof b, "%s/bare/bin", root);
  expect_found(&p, root, "dflt/compute-sanitizer", "the default");
  p.default_root = NULL;
  expect_found(&p, root, "ld", "LD_LIBRARY_PATH");

  /* none: each folder named with where it came from, and what to do */
  snprintf(a, sizeof a, "%s/empty", root);
  snprintf(c, sizeof c, "%s/none", root);
  snprintf(d, sizeof d, "%s/lib1::%s/lib2", root, root);
  p = (struct cc_cli_cuda_places){a, b, c, d};
  assert_int_equal(cc_cli_gpu_find_sanitizer(&p, &dir, &origin, &err), CC_ERR_TOOL);
  assert_null(dir);
  assert_null(origin);
  {
    static const char *const tried[] = {
      "/empty/compute-sanitizer ($CUDA_HOME)", "/bare/compute-sanitizer (the nvcc on PATH)",
      "/none/compute-sanitizer (the default)", "/lib1 (LD_LIBRARY_PATH)",
      "/lib2 (LD_LIBRARY_PATH)", "set CUDA_HOME", "cannot find libsanitizer-public.so"};
    for (size_t i = 0; i < sizeof tried / sizeof tried[0]; i++)
      if (!strstr(err.msg, tried[i]))
        fail_msg("message '%s' lacks '%s'", err.msg, tried[i]);
  }
  /* the same folder twice (CUDA_HOME = the default root) is tried once */
  p = (struct cc_cli_cuda_places){c, NULL, c, NULL};
  assert_int_equal(cc_cli_gpu_find_sanitizer(&p, &dir, &origin, &err), CC_ERR_TOOL);
  assert_null(strstr(err.msg, "(the default)"));
  assert_non_null(strstr(err.msg, "no nvcc on PATH"));
  p.cuda_home = NULL;
  assert_int_equal(cc_cli_gpu_find_sanitizer(&p, &dir, &origin, &err), CC_ERR_TOOL);
  assert_non_null(strstr(err.msg, "CUDA_HOME is not set"));
  snprintf(a, sizeof a, "rm -rf '%s'", root);
  assert_int_equal(system(a), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_import_figures),     cmocka_unit_test(test_import_without_sass),
    cmocka_unit_test(test_import_errors),      cmocka_unit_test(test_report_text),
    cmocka_unit_test(test_import_inlined),     cmocka_unit_test(test_import_unknown_figures),
    cmocka_unit_test(test_probe_forced_none),  cmocka_unit_test(test_is_elf_and_find),
    cmocka_unit_test(test_app_wanted),         cmocka_unit_test(test_app_errors),
    cmocka_unit_test(test_plan_written),       cmocka_unit_test(test_run_gpu_errors),
    cmocka_unit_test(test_find_sanitizer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
