/* Tests for src/gpu/inline_json.c: the inline counters of generic, local and .func sites
 * as the library's JSON (one object per space of a generic instruction, local requests
 * per 32-bit word, a .func's instruction by its own text), and the skip notes. The
 * counters are set by hand; the expected JSON figures follow from them as written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "gpu/inline_json.h"
#include "ptx/instrument.h"

/* k (funcs[2]): 1 ld.f32 generic (sites 0 global, 1 shared, 2 local), 2 st.local.v4.f32
 * (site 3, 16 bytes: 4 requests per execution), 4 call helper; helper (funcs[0]): 1
 * ld.global.f32 (site 4, k's copy); taken (funcs[1]): 1 ld.f32, its address taken by k
 * at 5: skipped. */
static const char *const text =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".func helper(.param .b64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd0, [p];\n\tld.global.f32 %f0, [%rd0];\n\tret;\n}\n"
    ".func taken(.param .b64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd0, [p];\n\tld.f32 %f0, [%rd0];\n\tret;\n}\n"
    ".visible .entry k(.param .u64 a)\n{\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<8>;\n"
    "\tld.param.u64 %rd0, [a];\n"
    "\tld.f32 %f0, [%rd0];\n"
    "\tst.local.v4.f32 [%rd1], {%f0, %f1, %f2, %f3};\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd0;\n"
    "\tcall.uni helper, (param0);\n\t}\n"
    "\tmov.u64 %rd3, taken;\n"
    "\tret;\n}\n";

static struct ptx_module *parse(void)
{
  struct ptx_module *m = NULL;
  struct cc_err err = {0};
  assert_int_equal(ptx_parse(text, strlen(text), "t.ptx", &m, &err), CC_OK);
  return m;
}

static void instrument(const struct ptx_module *m, struct ptx_inst_map *map)
{
  struct ptx_inst_opts o = {.shards = 1};
  struct cc_err err = {0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(ptx_instrument(m, &o, f, map, &err), CC_OK);
  fclose(f);
  free(buf);
}

static void set(uint64_t *c, uint32_t site, uint64_t req, uint64_t units, uint64_t lanes,
                uint64_t ways, uint64_t ideal, uint64_t span, uint64_t smin, uint64_t smax)
{
  uint64_t *r = c + (size_t)site * PTX_INST_FIELDS;
  r[PTX_INST_F_REQUESTS] = req;
  r[PTX_INST_F_UNITS] = units;
  r[PTX_INST_F_LANES] = lanes;
  r[PTX_INST_F_WAYS] = ways;
  r[PTX_INST_F_IDEAL] = ideal;
  r[PTX_INST_F_SPAN] = span;
  r[PTX_INST_F_STRMIN_INV] = UINT64_MAX - smin;
  r[PTX_INST_F_STRMAX] = smax;
}

static double num(const cJSON *o, const char *k)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  assert_non_null(v);
  return v->valuedouble;
}

static const char *str(const cJSON *o, const char *k)
{
  const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
  assert_non_null(s);
  return s;
}

static void add_note(void *ctx, const char *t)
{
  cJSON_AddItemToArray(ctx, cJSON_CreateString(t));
}

static void test_generic_local_func(void **state)
{
  (void)state;
  struct ptx_module *m = parse();
  struct ptx_inst_map map;
  instrument(m, &map);
  assert_int_equal(map.nsites, 5);
  assert_int_equal(map.sites[4].body, 0);
  uint64_t c[5 * PTX_INST_FIELDS] = {0};
  /* generic, global lanes: 2 executions of 20 lanes, strides 4..8 */
  set(c, 0, 2, 8, 40, 0, 6, 200, 4, 8);
  /* generic, shared lanes: 2 executions of 12 lanes */
  set(c, 1, 2, 2, 24, 1, 2, 88, 4, 4);
  /* site 2 (generic, local lanes) never executed */
  /* local 16 bytes: 2 executions of 32 lanes = 8 requests; word 0 of lane l at 4 l: span
   * 124 per execution, 31 strides of 4 */
  set(c, 3, 8, 32, 64, 0, 32, 248, 4, 4);
  /* helper's load, one full warp */
  set(c, 4, 1, 4, 32, 0, 4, 124, 4, 4);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  struct cc_gpu_cta_sample d = {1, 1, 1, NULL, 1};
  cJSON *k = cc_gpu_inline_kernel_json(m, 2, &map, c, &d, grid, block, 1);
  const cJSON *in = cJSON_GetObjectItemCaseSensitive(k, "instructions");
  assert_int_equal(cJSON_GetArraySize(in), 4);
  /* the generic load: two objects, one per space, the same PTX index (1 x 16) and text */
  const cJSON *g0 = cJSON_GetArrayItem(in, 0), *g1 = cJSON_GetArrayItem(in, 1);
  assert_string_equal(str(g0, "space"), "global");
  assert_string_equal(str(g1, "space"), "shared");
  assert_int_equal((int)num(g0, "sass_offset"), 16);
  assert_int_equal((int)num(g1, "sass_offset"), 16);
  assert_string_equal(str(g0, "sass"), "ld.f32 %f0, [%rd0];");
  assert_int_equal((int)num(g0, "sectors"), 8);
  assert_int_equal((int)num(g1, "wavefronts"), 2);
  /* global strides: 40 - 2 = 38, avg 200 / 38 */
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(g0, "stride");
  assert_true(num(st, "avg") > 5.263 && num(st, "avg") < 5.264);
  /* local: 8 requests, strides 64 lanes - 2 executions = 62, avg 248 / 62 = 4 */
  const cJSON *l = cJSON_GetArrayItem(in, 2);
  assert_string_equal(str(l, "space"), "local");
  assert_int_equal((int)num(l, "requests"), 8);
  assert_int_equal((int)num(l, "sectors"), 32);
  assert_int_equal((int)num(l, "bytes_requested"), 64 * 16);
  assert_true(num(cJSON_GetObjectItemCaseSensitive(l, "stride"), "avg") == 4.0);
  /* helper's load under k, with helper's text and index */
  const cJSON *h = cJSON_GetArrayItem(in, 3);
  assert_string_equal(str(h, "sass"), "ld.global.f32 %f0, [%rd0];");
  assert_int_equal((int)num(h, "sass_offset"), 16);
  cJSON_Delete(k);

  /* 1 CTA of 2 counted: the local site's requests stay whole executions of 4 */
  struct cc_gpu_cta_sample half = {2, 1, 1, NULL, 1};
  c[3 * PTX_INST_FIELDS + PTX_INST_F_REQUESTS] = 4; /* one execution */
  c[3 * PTX_INST_FIELDS + PTX_INST_F_LANES] = 32;
  k = cc_gpu_inline_kernel_json(m, 2, &map, c, &half, grid, block, 1);
  l = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(k, "instructions"), 2);
  assert_int_equal((int)num(l, "requests"), 8);
  assert_int_equal((int)num(l, "lanes"), 64);
  cJSON_Delete(k);

  /* the skip note: taken's load, its line (17: .func taken opens line 12) and reason; k ran, taken is no kernel */
  cJSON *notes = cJSON_CreateArray();
  uint8_t launched[3] = {0, 0, 1};
  cc_gpu_inline_skip_notes(m, &map, launched, add_note, notes);
  assert_int_equal(cJSON_GetArraySize(notes), 1);
  assert_string_equal(cJSON_GetArrayItem(notes, 0)->valuestring,
                      "'ld.f32 %f0, [%rd0];' in taken (PTX line 17): not counted: in a .func "
                      "whose address is taken (a call through a function pointer would not "
                      "pass the counters)");
  cJSON_Delete(notes);
  ptx_inst_map_release(&map);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_generic_local_func)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
