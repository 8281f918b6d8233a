/* Tests of the host side of the GPU counters (src/gpu/counters.c) and of the JSON and
 * text report (src/gpu/report.c). Raw shard records are written by hand in the layout of
 * src/gpu/layout.h; every expected figure is derived in the comment beside it. */
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

#define SPACE_BIT(sp) (1u << (CC_GPU_FL_SPACE_SHIFT + (sp)))
#define SIZE_BIT(log2) (1u << (CC_GPU_FL_SIZE_SHIFT + (log2)))
#define PACK(hi, lo) (((uint64_t)(hi) << 32) | (uint64_t)(lo))

static void sums_two_shards(void **state)
{
  uint64_t raw[2 * CC_GPU_FIELDS] = {0};
  uint64_t *a = raw, *b = raw + CC_GPU_FIELDS;
  /* SM shard a: 3 full-warp requests of a coalesced float load: 96 lanes, 4 sectors each,
   * neighbour strides 4 B: sum per request = 31 x 4 = 124 */
  a[CC_GPU_F_REQ_LANES] = PACK(3, 96);
  a[CC_GPU_F_SECT_IDEAL] = PACK(12, 12);
  a[CC_GPU_F_STRSUM] = 3 * 124;
  a[CC_GPU_F_STRMIN_INV] = UINT64_MAX - 4;
  a[CC_GPU_F_STRMAX] = 4;
  a[CC_GPU_F_FLAGS] = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_GLOBAL) | SIZE_BIT(2);
  /* shard b: 1 half-warp request: 16 lanes, 2 sectors, 15 strides of 4 B = 60 */
  b[CC_GPU_F_REQ_LANES] = PACK(1, 16);
  b[CC_GPU_F_SECT_IDEAL] = PACK(2, 2);
  b[CC_GPU_F_STRSUM] = 60;
  b[CC_GPU_F_STRMIN_INV] = UINT64_MAX - 4;
  b[CC_GPU_F_STRMAX] = 4;
  b[CC_GPU_F_FLAGS] = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_GLOBAL) | SIZE_BIT(2);

  struct cc_gpu_pc_stats s;
  cc_gpu_stats_init(&s);
  cc_gpu_stats_add_shards(&s, raw, 2);
  assert_int_equal(s.requests, 4);
  assert_int_equal(s.lanes, 112);          /* 96 + 16 */
  assert_int_equal(s.sectors, 14);         /* 12 + 2 */
  assert_int_equal(s.ideal, 14);
  assert_int_equal(s.bytes, 448);          /* 112 lanes x 4 B */
  assert_int_equal(s.stride_count, 108);   /* 3 x 31 + 15 = lanes - requests */
  assert_int_equal(s.stride_sum, 432);     /* 372 + 60 */
  assert_int_equal(s.stride_min, 4);
  assert_int_equal(s.stride_max, 4);
  assert_int_equal(s.ways, 1);
  assert_int_equal(cc_gpu_stats_size(&s), 4);
  assert_int_equal(cc_gpu_stats_space(&s), CC_SPACE_GLOBAL);
  assert_int_equal(cc_gpu_stats_kind(&s, NULL), CC_ACCESS_LOAD);

  /* a second flush of the same slot accumulates: min of 2 is kept, max of 64 too */
  memset(raw, 0, sizeof raw);
  a[CC_GPU_F_REQ_LANES] = PACK(1, 32);
  a[CC_GPU_F_STRMIN_INV] = UINT64_MAX - 2;
  a[CC_GPU_F_STRMAX] = 64;
  a[CC_GPU_F_WAYS] = 8;
  cc_gpu_stats_add_shards(&s, raw, 2);
  assert_int_equal(s.requests, 5);
  assert_int_equal(s.stride_min, 2);
  assert_int_equal(s.stride_max, 64);
  assert_int_equal(s.ways, 8);
}

static void local_wide_requests(void **state)
{
  uint64_t raw[CC_GPU_FIELDS] = {0};
  /* 3 executions of a full-warp 8-byte local load at one offset: 2 requests each (one per
   * 32-bit word, patch.cu), 4 sectors per request -> 6 requests, 96 lanes, 24 sectors;
   * strides on the first word's layout: 31 x 4 B per execution */
  raw[CC_GPU_F_REQ_LANES] = PACK(6, 96);
  raw[CC_GPU_F_SECT_IDEAL] = PACK(24, 24);
  raw[CC_GPU_F_STRSUM] = 3 * 124;
  raw[CC_GPU_F_STRMIN_INV] = UINT64_MAX - 4;
  raw[CC_GPU_F_STRMAX] = 4;
  raw[CC_GPU_F_FLAGS] = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_LOCAL) | SIZE_BIT(3);
  struct cc_gpu_pc_stats s;
  cc_gpu_stats_init(&s);
  cc_gpu_stats_add_shards(&s, raw, 1);
  assert_int_equal(s.requests, 6);
  assert_int_equal(s.bytes, 768);        /* 96 lanes x 8 B, not x 2 words */
  assert_int_equal(s.stride_count, 93);  /* 96 lanes - 3 executions (6 requests / 2) */
  assert_int_equal(cc_gpu_stats_space(&s), CC_SPACE_LOCAL);
  /* the same figures as a global 8-byte load: 6 executions, 90 strides */
  raw[CC_GPU_F_FLAGS] = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_GLOBAL) | SIZE_BIT(3);
  cc_gpu_stats_init(&s);
  cc_gpu_stats_add_shards(&s, raw, 1);
  assert_int_equal(s.stride_count, 90);
}

static void halves_do_not_carry(void **state)
{
  /* two shards whose lane halves are both 0xffffffff: summed per shard after unpacking,
   * lanes = 2 x 0xffffffff = 0x1fffffffe and requests stay 2 x 7 */
  uint64_t raw[2 * CC_GPU_FIELDS] = {0};
  raw[CC_GPU_F_REQ_LANES] = PACK(7, 0xffffffffu);
  raw[CC_GPU_FIELDS + CC_GPU_F_REQ_LANES] = PACK(7, 0xffffffffu);
  struct cc_gpu_pc_stats s;
  cc_gpu_stats_init(&s);
  cc_gpu_stats_add_shards(&s, raw, 2);
  assert_int_equal(s.requests, 14);
  assert_int_equal(s.lanes, 0x1fffffffeull);
  /* zeroed min field means "no stride seen": stays UINT64_MAX */
  assert_true(s.stride_min == UINT64_MAX);
}

static void kinds_and_spaces(void **state)
{
  struct cc_gpu_pc_stats s;
  cc_gpu_stats_init(&s);
  s.flags = CC_GPU_FL_WRITE | SPACE_BIT(CC_SPACE_SHARED) | SIZE_BIT(4);
  assert_int_equal(cc_gpu_stats_kind(&s, "STS.128 [R0], R4"), CC_ACCESS_STORE);
  assert_int_equal(cc_gpu_stats_space(&s), CC_SPACE_SHARED);
  assert_int_equal(cc_gpu_stats_size(&s), 16);
  s.flags = CC_GPU_FL_READ | CC_GPU_FL_WRITE | CC_GPU_FL_ATOMIC | SPACE_BIT(CC_SPACE_GLOBAL);
  /* mnemonics from tests/gpu/data/gpuapps.nvdisasm lines 705 and 759 */
  assert_int_equal(cc_gpu_stats_kind(&s, "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7"),
                   CC_ACCESS_REDUCTION);
  assert_int_equal(cc_gpu_stats_kind(&s, "@P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7"),
                   CC_ACCESS_REDUCTION);
  assert_int_equal(cc_gpu_stats_kind(&s, "ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R9"),
                   CC_ACCESS_ATOMIC);
  assert_int_equal(cc_gpu_stats_kind(&s, NULL), CC_ACCESS_ATOMIC); /* no SASS: atomic */
  s.flags = 0;
  assert_int_equal(cc_gpu_stats_space(&s), CC_SPACE_GLOBAL);
  assert_int_equal(cc_gpu_stats_size(&s), 0);
}

/* Two instructions of the naive transpose, one launch of 4096 x 4096 floats, 32 x 8
 * blocks (GPU-NOTES.md, measured: ld 524,288 requests / 2,097,152 sectors, st 524,288 /
 * 16,777,216), plus one shared load with 2-way conflicts. */
static struct cc_gpu_kernel_report make_kernel(struct cc_gpu_insn_report *ins)
{
  memset(ins, 0, 3 * sizeof *ins);
  for (int i = 0; i < 3; i++)
    cc_gpu_stats_init(&ins[i].st);
  ins[0].sass_offset = 0xd0;
  ins[0].sass = "LDG.E R11, desc[UR4][R2.64]";
  ins[0].file = "/src/t.cu";
  ins[0].line = 40;
  ins[0].st.requests = 524288;
  ins[0].st.lanes = 524288ull * 32;
  ins[0].st.sectors = 2097152;
  ins[0].st.ideal = 2097152;
  ins[0].st.bytes = 524288ull * 32 * 4;
  ins[0].st.stride_count = 524288ull * 31;
  ins[0].st.stride_sum = 524288ull * 31 * 4;
  ins[0].st.stride_min = 4;
  ins[0].st.stride_max = 4;
  ins[0].st.flags = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_GLOBAL) | SIZE_BIT(2);
  ins[1] = ins[0];
  ins[1].sass_offset = 0x120;
  ins[1].sass = "STG.E desc[UR4][R4.64], R11";
  ins[1].st.sectors = 16777216;
  ins[1].st.ideal = 2097152;
  ins[1].st.stride_sum = 524288ull * 31 * 16384; /* rows of 4096 floats = 16384 B */
  ins[1].st.stride_min = 16384;
  ins[1].st.stride_max = 16384;
  ins[1].st.flags = CC_GPU_FL_WRITE | SPACE_BIT(CC_SPACE_GLOBAL) | SIZE_BIT(2);
  /* shared load, 10 requests, 2 wavefronts each (stride-2 words), no source line */
  ins[2].sass_offset = 0x200;
  ins[2].sass = NULL;
  ins[2].st.requests = 10;
  ins[2].st.lanes = 320;
  ins[2].st.sectors = 20;
  ins[2].st.ideal = 10;
  ins[2].st.bytes = 1280;
  ins[2].st.stride_count = 310;
  ins[2].st.stride_sum = 310 * 8;
  ins[2].st.stride_min = 8;
  ins[2].st.stride_max = 8;
  ins[2].st.ways = 2;
  ins[2].st.flags = CC_GPU_FL_READ | SPACE_BIT(CC_SPACE_SHARED) | SIZE_BIT(2);
  struct cc_gpu_kernel_report k = {
      .name = "transpose(float*, float const*, int)",
      .mangled = "_Z9transposePfPKfi",
      .grid = {128, 128, 1},
      .block = {32, 8, 1},
      .launches = 1,
      .n = 3,
      .insns = ins,
  };
  return k;
}

static cJSON *item(const cJSON *o, const char *key)
{
  cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (v == NULL)
    fail_msg("missing key '%s'", key);
  return v;
}

static double num(const cJSON *o, const char *key) { return item(o, key)->valuedouble; }

static void json_report(void **state)
{
  struct cc_gpu_insn_report ins[3];
  struct cc_gpu_kernel_report k = make_kernel(ins);
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_report_write_json(fp, "NVIDIA H200", &k, 1, &err), CC_OK);
  fclose(fp);
  cJSON *root = cJSON_Parse(buf);
  assert_non_null(root);
  assert_string_equal(item(root, "backend")->valuestring, "gpu");
  assert_string_equal(item(root, "device")->valuestring, "NVIDIA H200");
  cJSON *kj = cJSON_GetArrayItem(item(root, "kernels"), 0);
  assert_string_equal(item(kj, "mangled")->valuestring, "_Z9transposePfPKfi");
  assert_int_equal(cJSON_GetArraySize(item(kj, "block")), 3);
  cJSON *insns = item(kj, "instructions");
  assert_int_equal(cJSON_GetArraySize(insns), 3);

  cJSON *ld = cJSON_GetArrayItem(insns, 0);
  assert_int_equal((int)num(ld, "sass_offset"), 0xd0);
  assert_string_equal(item(ld, "sass")->valuestring, "LDG.E R11, desc[UR4][R2.64]");
  assert_string_equal(item(ld, "kind")->valuestring, "load");
  assert_string_equal(item(ld, "space")->valuestring, "global");
  assert_int_equal((int)num(ld, "size_bytes"), 4);
  assert_int_equal((int)num(item(ld, "source"), "line"), 40);
  assert_true(num(ld, "requests") == 524288.0);
  assert_true(num(ld, "sectors") == 2097152.0);
  /* efficiency = bytes / (32 x sectors) = 67,108,864 / 67,108,864 = 1 */
  assert_true(num(ld, "efficiency") == 1.0);
  assert_true(num(item(ld, "stride"), "avg") == 4.0);
  assert_string_equal(item(ld, "verdict")->valuestring, "coalesced"); /* max 4 <= size 4 */

  cJSON *st = cJSON_GetArrayItem(insns, 1);
  assert_string_equal(item(st, "kind")->valuestring, "store");
  /* 67,108,864 B requested / (32 x 16,777,216) = 0.125 */
  assert_true(num(st, "efficiency") == 0.125);
  assert_true(num(item(st, "stride"), "max") == 16384.0);
  assert_string_equal(item(st, "verdict")->valuestring, "uncoalesced");

  cJSON *sh = cJSON_GetArrayItem(insns, 2);
  assert_string_equal(item(sh, "space")->valuestring, "shared");
  assert_true(cJSON_IsNull(item(sh, "sass")));
  assert_true(cJSON_IsNull(item(sh, "source")));
  assert_int_equal((int)num(sh, "wavefronts"), 20);
  assert_int_equal((int)num(sh, "bank_conflicts"), 10); /* 20 - 10 ideal */
  assert_int_equal((int)num(sh, "ways"), 2);

  /* totals: what Nsight Compute reports per kernel */
  cJSON *tg = item(item(kj, "totals"), "global");
  assert_true(num(item(tg, "load"), "sectors") == 2097152.0);
  assert_true(num(item(tg, "store"), "sectors") == 16777216.0);
  assert_true(num(item(tg, "store"), "requests") == 524288.0);
  assert_true(num(item(tg, "atomic"), "requests") == 0.0);
  cJSON *ts = item(item(kj, "totals"), "shared");
  assert_int_equal((int)num(item(ts, "load"), "wavefronts"), 20);
  assert_int_equal((int)num(item(ts, "load"), "bank_conflicts"), 10);
  cJSON_Delete(root);
  free(buf);
}

static void json_write_error(void **state)
{
  FILE *fp = fopen("/dev/full", "w");
  if (fp == NULL)
    skip();
  struct cc_gpu_insn_report ins[3];
  struct cc_gpu_kernel_report k = make_kernel(ins);
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_report_write_json(fp, NULL, &k, 1, &err), CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot write the gpu json report"));
  fclose(fp);
}

static void json_strings(void **state)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  cc_gpu_json_string(fp, "a\"b\\c\nd\x01");
  fputc(' ', fp);
  cc_gpu_json_string(fp, NULL);
  fclose(fp);
  assert_string_equal(buf, "\"a\\\"b\\\\c\\nd\\u0001\" null");
  free(buf);
}

static void text_table(void **state)
{
  struct cc_gpu_insn_report ins[3];
  struct cc_gpu_kernel_report k = make_kernel(ins);
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  cc_gpu_report_write_text(fp, &k, 1);
  fclose(fp);
  assert_non_null(strstr(buf, "transpose(float*, float const*, int)"));
  assert_non_null(strstr(buf, "t.cu:40  LDG.E R11"));
  assert_non_null(strstr(buf, "16777216")); /* the store's sectors */
  free(buf);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sums_two_shards),
      cmocka_unit_test(local_wide_requests),  cmocka_unit_test(halves_do_not_carry),
      cmocka_unit_test(kinds_and_spaces), cmocka_unit_test(json_report),
      cmocka_unit_test(json_write_error), cmocka_unit_test(json_strings),
      cmocka_unit_test(text_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
