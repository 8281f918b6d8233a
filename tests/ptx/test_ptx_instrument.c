/* Unit tests of the inline counting pass (src/ptx/instrument.c) without a GPU or nvcc:
 * which instructions become sites and which are skipped, the counter parameter, the
 * layout's size, the options' errors, and that the output parses again. What the
 * counters count is checked against the emulator in tests/e2e/ptx_instrument.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ptx/instrument.h"
#include "ptx/ptx_test_util.h"

/* One kernel with every case, by instruction index (labels and .reg are no instructions):
 *   0 ld.param.u64            param space: neither a site nor skipped
 *   1 cvta.to.global.u64      no memory access
 *   2 ld.global.f32           site 0: global load, 4 bytes
 *   3 @%p1 st.shared.v2.f32   site 1: shared store, 2 x 4 = 8 bytes, guarded
 *   4 ld.f32 (generic)        sites 2, 3, 4: its global, shared and local lanes
 *   5 ld.local.f32            site 5: local load, 4 bytes (1 request per execution)
 *   6 atom.global.add.u32     site 6: global atomic, 4 bytes
 *   7 red.shared.add.u64      site 7: shared reduction, 8 bytes, [var+8]
 *   8 ld.global.v4.f32        site 8: global load, 16 bytes
 *   9 st.local.v4.f32         site 9: local store, 16 bytes (4 requests per execution)
 *  10 st.param.b64            param space: nothing
 *  11 call.uni helper         passes the counters to helper (one more argument)
 *  12 mov.u64 %rd3, taken     takes taken's address
 *  13 ret
 * and two .funcs (funcs[0] and [1]; k is funcs[2]) with one load each: helper's
 * ld.global.f32 is site 10 (k's copy of helper's sites: the only region, rank 0, at
 * 10 x 256 = 2560 bytes); taken's ld.f32 is skipped (its address is taken).
 * Sites 11, skipped 1. */
static const char *const kernel_text =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .shared .align 8 .b8 sm[64];\n"
    ".func helper(.param .b64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd0, [p];\n\tld.global.f32 %f0, [%rd0];\n\tret;\n}\n"
    ".func taken(.param .b64 p)\n{\n\t.reg .b64 %rd<2>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd0, [p];\n\tld.f32 %f0, [%rd0];\n\tret;\n}\n"
    ".visible .entry k(.param .u64 a)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd0, [a];\n"
    "\tcvta.to.global.u64 %rd1, %rd0;\n"
    "\tld.global.f32 %f0, [%rd1+4];\n"
    "\t@%p1 st.shared.v2.f32 [%r1], {%f0, %f1};\n"
    "\tld.f32 %f2, [%rd0];\n"
    "\tld.local.f32 %f3, [%rd2];\n"
    "\tatom.global.add.u32 %r2, [%rd1], 1;\n"
    "\tred.shared.add.u64 [sm+8], %rd3;\n"
    "\tld.global.v4.f32 {%f4, %f5, %f6, %f7}, [%rd1];\n"
    "\tst.local.v4.f32 [%rd2+16], {%f4, %f5, %f6, %f7};\n"
    "\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n"
    "\tcall.uni helper, (param0);\n\t}\n"
    "\tmov.u64 %rd3, taken;\n"
    "\tret;\n}\n";

/* The instrumented text of m (malloc'ed), or NULL with *rc the status. */
static char *instrument(const struct ptx_module *m, uint32_t shards, uint32_t sample,
                        struct ptx_inst_map *map, int *rc)
{
  struct ptx_inst_opts o = {.shards = shards, .sample = sample};
  struct cc_err err = {0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  *rc = ptx_instrument(m, &o, f, map, &err);
  fclose(f);
  if (*rc != CC_OK) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void test_sites(void **state)
{
  (void)state;
  struct ptx_module *m = parse_ok(kernel_text);
  struct ptx_inst_map map = {0};
  int rc;
  assert_non_null(m);
  char *text = instrument(m, 4, 1, &map, &rc);
  assert_int_equal(rc, CC_OK);
  assert_int_equal(map.nsites, 11);
  assert_int_equal(map.skipped, 1);
  assert_int_equal(map.shards, 4);
  assert_int_equal(map.sample, 1);
  static const struct { uint32_t insn, space, kind, size, generic; } want[] = {
      {2, PTX_SPACE_GLOBAL, PTX_INST_LOAD, 4, 0},   {3, PTX_SPACE_SHARED, PTX_INST_STORE, 8, 0},
      {4, PTX_SPACE_GLOBAL, PTX_INST_LOAD, 4, 1},   {4, PTX_SPACE_SHARED, PTX_INST_LOAD, 4, 1},
      {4, PTX_SPACE_LOCAL, PTX_INST_LOAD, 4, 1},    {5, PTX_SPACE_LOCAL, PTX_INST_LOAD, 4, 0},
      {6, PTX_SPACE_GLOBAL, PTX_INST_ATOMIC, 4, 0}, {7, PTX_SPACE_SHARED, PTX_INST_REDUCTION, 8, 0},
      {8, PTX_SPACE_GLOBAL, PTX_INST_LOAD, 16, 0},  {9, PTX_SPACE_LOCAL, PTX_INST_STORE, 16, 0}};
  for (uint32_t k = 0; k < 10; k++) {
    assert_int_equal(map.sites[k].func, 2); /* helper is funcs[0], taken [1], k [2] */
    assert_int_equal(map.sites[k].body, 2);
    assert_int_equal(map.sites[k].insn, want[k].insn);
    assert_int_equal(map.sites[k].space, want[k].space);
    assert_int_equal(map.sites[k].kind, want[k].kind);
    assert_int_equal(map.sites[k].size_bytes, want[k].size);
    assert_int_equal(map.sites[k].generic, want[k].generic);
  }
  /* helper's load, counted for k */
  assert_int_equal(map.sites[10].func, 2);
  assert_int_equal(map.sites[10].body, 0);
  assert_int_equal(map.sites[10].insn, 1);
  assert_int_equal(map.sites[10].space, PTX_SPACE_GLOBAL);
  /* 11 sites x 4 shards x 8 fields x 8 bytes; one site's counters are 4 x 64 = 256 bytes */
  assert_int_equal(ptx_inst_counter_bytes(&map), 2816);
  /* k computes its region's base (rank 0: + 0) and passes it to helper as one more
   * argument; helper takes it as one more parameter, counts only when it is not 0, and
   * adds at its site's offset (10 x 256) from it */
  assert_non_null(strstr(text, "add.s64 %cci_fb, %cci_base, 0;"));
  assert_non_null(strstr(text, ".param .b64 __cci_arg11;\n\tst.param.b64 [__cci_arg11], %cci_fb;"));
  assert_non_null(strstr(text, "call.uni helper, (param0, __cci_arg11);"));
  assert_non_null(strstr(text, ".func helper(\n\t.param .b64 p,\n\t.param .u64 __cc_cbase\n)"));
  assert_non_null(strstr(text, "ld.param.u64 %cci_fb, [__cc_cbase];"));
  assert_non_null(strstr(text, "setp.ne.u64 %cci_on, %cci_base, 0;"));
  assert_non_null(strstr(text, "@!%cci_on bra $cci_skip10;"));
  assert_non_null(strstr(text, "red.global.add.u64 [%cci_base+2560], 1;"));
  /* the guard of site 1 decides which lanes count */
  assert_non_null(strstr(text, "vote.sync.ballot.b32 %cci_m1, %p1, %cci_m0;"));
  /* site 7's address is the variable's plus 8; its counters start at 7 x 256 = 1792
   * bytes, the ways field (the fourth) 24 bytes further */
  assert_non_null(strstr(text, "mov.u64 %cci_a0, sm;\n\tadd.s64 %cci_a0, %cci_a0, 8;"));
  assert_non_null(strstr(text, "red.global.max.u64 [%cci_base+1816]"));
  /* the generic load: each space's lanes by isspacep, a space without lanes jumped over,
   * shared and local addresses converted to their windows */
  const char *g = strstr(text, "// coalcheck site 2: generic, 4 bytes");
  assert_non_null(g);
  const char *order[] = {"isspacep.global %cci_gp, %cci_g;", "bra.uni $cci_none2;",
                         "mov.b64 %cci_a0, %cci_g;", "$cci_none2:",
                         "isspacep.shared %cci_gp, %cci_g;", "cvta.to.shared.u64 %cci_a0, %cci_g;",
                         "$cci_none3:", "isspacep.local %cci_gp, %cci_g;",
                         "cvta.to.local.u64 %cci_a0, %cci_g;", "shl.b64 %cci_a0, %cci_a0, 7;",
                         "$cci_none4:", "// coalcheck site 5: local, 4 bytes"};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
    const char *at = strstr(g, order[i]);
    assert_non_null(at);
    g = at;
  }
  /* the generic load's lanes of each space: its ballot and the accessing lanes */
  assert_non_null(strstr(text, "vote.sync.ballot.b32 %cci_m1, %cci_gp, %cci_m0;\n"
                               "\tand.b32 %cci_m1, %cci_m1, %cci_gm;"));
  /* local: word w of lane l at w x 128 + l x 4; a 4-byte access is 1 request (site 5, at
   * 5 x 256 = 1280 bytes), a 16-byte one 4 requests with 4 x word 0's sectors and ideal
   * (site 9, at 9 x 256 = 2304) */
  assert_non_null(strstr(text, "red.global.add.u64 [%cci_base+1280], 1;"));
  assert_non_null(strstr(text, "red.global.add.u64 [%cci_base+2304], 4;"));
  assert_non_null(strstr(text, "mul.lo.u32 %cci_u, %cci_u, 4;\n\tmul.lo.u32 %cci_i, %cci_i, 4;"));
  /* the generic load's local site (4) does no multiplication: 4 bytes */
  assert_non_null(strstr(text, "red.global.add.u64 [%cci_base+1024], 1;"));
  /* the skipped .func load, said with its place (line 18 of the text) and reason */
  char note[512];
  ptx_inst_skip_text(m, &map, 0, note, sizeof note);
  assert_string_equal(note, "'ld.f32 %f0, [%rd0];' in taken (PTX line 18): not counted: in a "
                            ".func whose address is taken (a call through a function pointer "
                            "would not pass the counters)");
  /* 4 shards: %smid & 3, 64 bytes per shard */
  assert_non_null(strstr(text, "and.b32 %cci_t0, %cci_t0, 3;"));
  assert_null(strstr(text, "rem.u32")); /* no sampling */

  /* the output parses; k and helper gained a parameter, taken did not */
  struct ptx_module *m2 = parse_ok(text);
  assert_non_null(m2);
  const struct ptx_function *k2 = ptx_module_find(m2, "k");
  assert_non_null(k2);
  assert_int_equal(k2->nparams, 2);
  assert_string_equal(k2->vars[k2->param_vars[1]].name, PTX_INST_PARAM);
  assert_int_equal(ptx_module_find(m2, "helper")->nparams, 2);
  assert_int_equal(ptx_module_find(m2, "taken")->nparams, 1);

  /* instrumenting it again is refused */
  struct ptx_inst_map map2 = {0};
  assert_null(instrument(m2, 1, 1, &map2, &rc));
  assert_int_equal(rc, CC_ERR_INPUT);
  ptx_inst_map_release(&map2);
  ptx_module_free(m2);
  free(text);
  ptx_inst_map_release(&map);
  ptx_module_free(m);
}

static void test_sampling_and_errors(void **state)
{
  (void)state;
  struct ptx_module *m = parse_ok(kernel_text);
  struct ptx_inst_map map = {0};
  int rc;
  char *text = instrument(m, 0, 8, &map, &rc);
  assert_int_equal(rc, CC_OK);
  assert_int_equal(map.shards, 1); /* 0 means 1 */
  assert_int_equal(map.sample, 8);
  /* the run (linear id / 8) is the shard, not the SM: interleaved sub-samples for the
   * estimate's bound (src/cli/gpu_inline.c); the CTA counts where its position (id % 8)
   * is the run's pick */
  assert_non_null(strstr(text, "div.u32 %cci_t0, %cci_t2, 8;"));
  assert_non_null(strstr(text, "rem.u32 %cci_t3, %cci_t2, 8;"));
  assert_non_null(strstr(text, "setp.eq.u32 %cci_on, %cci_t3, %cci_t1;"));
  assert_null(strstr(text, "%smid"));
  /* the picks, by hand from murmur3's finaliser: run 1: 0x9e3779b1, ^ >> 16 = 0x9e37e786,
   * x 0x85ebca6b, ^ >> 13, mod 4 = 2; run 0: 0; runs 0..11 mod 4: 0 2 0 3 1 1 3 0 2 0 2 2 */
  static const uint32_t picks4[] = {0, 2, 0, 3, 1, 1, 3, 0, 2, 0, 2, 2};
  for (uint32_t r = 0; r < 12; r++)
    assert_int_equal(ptx_inst_pick(r, 4), picks4[r]);
  assert_int_equal(ptx_inst_pick(1, 8), 6);
  assert_int_equal(ptx_inst_pick(5, 1), 0); /* no sampling: position 0 */
  /* every site is jumped over by the CTAs that do not count */
  assert_non_null(strstr(text, "@!%cci_on bra $cci_skip0;"));
  assert_non_null(strstr(text, "$cci_skip9:"));
  /* k's base for helper is 0 in the CTAs that do not count */
  assert_non_null(strstr(text, "selp.b64 %cci_fb, %cci_fb, 0, %cci_on;"));
  /* a generic instruction's three sites are one block: one skip label, its first site's */
  assert_non_null(strstr(text, "$cci_skip2:"));
  assert_null(strstr(text, "$cci_skip3:"));
  struct ptx_module *m2 = parse_ok(text);
  assert_non_null(m2);
  ptx_module_free(m2);
  free(text);
  ptx_inst_map_release(&map);
  /* 3 and 2048 shards: not a power of two, too many */
  assert_null(instrument(m, 3, 1, &map, &rc));
  assert_int_equal(rc, CC_ERR_USAGE);
  assert_null(instrument(m, 2048, 1, &map, &rc));
  assert_int_equal(rc, CC_ERR_USAGE);
  ptx_inst_map_release(&map);
  ptx_module_free(m);
  /* sm_70 (no redux.sync) and 32-bit addresses are refused */
  static const char *const old[] = {
      ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n",
      ".version 9.0\n.target sm_90\n.address_size 32\n.visible .entry k()\n{\n\tret;\n}\n"};
  for (int i = 0; i < 2; i++) {
    m = parse_ok(old[i]);
    assert_non_null(m);
    assert_null(instrument(m, 1, 1, &map, &rc));
    assert_int_equal(rc, CC_ERR_INPUT);
    ptx_inst_map_release(&map);
    ptx_module_free(m);
  }
}

/* The instrumented module assembles (when ptxas is installed). */
static void test_ptxas(void **state)
{
  (void)state;
  const char *ptxas = find_tool("ptxas");
  if (!ptxas) skip();
  struct ptx_module *m = parse_ok(kernel_text);
  struct ptx_inst_map map = {0};
  int rc;
  char *text = instrument(m, 128, 3, &map, &rc);
  assert_non_null(text);
  assert_int_equal(ptxas_text(ptxas, text, "k.ptx"), 0);
  free(text);
  ptx_inst_map_release(&map);
  ptx_module_free(m);
}

/* A loop (label L, branch back at 4) with one load inside (index 2) and a store after it
 * (index 5): under execution sampling only the load is looped; two planes of counters;
 * the fold is plane 0 + E x plane 1 for sums and the larger for maxima. The salted, gated
 * prologue reads the salt from the pointer and the output parses again. */
static const char *const loop_text =
    ".version 9.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 a)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd0, [a];\n"            /* 0 */
    "\tmov.u32 %r0, 0;\n"                    /* 1 */
    "$L:\n\tld.global.f32 %f0, [%rd0];\n"    /* 2 */
    "\tadd.s32 %r0, %r0, 1;\n"               /* 3 */
    "\tsetp.lt.s32 %p0, %r0, 8;\n"           /* 4 */
    "\t@%p0 bra $L;\n"                       /* 5 */
    "\tst.global.f32 [%rd0], %f0;\n"         /* 6 */
    "\tret;\n}\n";

static void test_execution_sampling(void **state)
{
  (void)state;
  struct ptx_module *m = parse_ok(loop_text);
  struct ptx_inst_opts o = {.shards = 2, .sample = 4, .exec = 16, .salted = 1, .gate = 1};
  struct ptx_inst_map map = {0};
  struct cc_err err = {0};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(ptx_instrument(m, &o, f, &map, &err), CC_OK);
  fclose(f);
  assert_int_equal(map.nsites, 2);
  assert_int_equal(map.sites[0].insn, 2);
  assert_int_equal(map.sites[0].looped, 1);
  assert_int_equal(map.sites[1].insn, 6);
  assert_int_equal(map.sites[1].looped, 0);
  /* 2 sites x 2 shards x 8 fields x 8 bytes = 256 per plane, two planes */
  assert_int_equal(ptx_inst_plane_bytes(&map), 256);
  assert_int_equal(ptx_inst_counter_bytes(&map), 512);
  assert_non_null(strstr(buf, "and.b64 %cci_base, %cci_base, -4096;"));
  assert_non_null(strstr(buf, "$cci_count0:")); /* the loop site samples */
  assert_null(strstr(buf, "$cci_count1:"));     /* the store does not */
  /* site 1 (not looped) at 1 x 2 shards x 8 fields x 8 bytes = 128, always plane 0;
   * site 0 through the plane pointer */
  assert_non_null(strstr(buf, "[%cci_base+128], 1;"));
  assert_non_null(strstr(buf, "[%cci_pb+0], 1;"));
  struct ptx_module *again = parse_ok(buf);
  assert_non_null(again);
  /* fold: requests 3 + 16 x 2 = 35; ways (a maximum) max(5, 7) = 7 */
  uint64_t c[64] = {0};
  c[PTX_INST_F_REQUESTS] = 3;
  c[32 + PTX_INST_F_REQUESTS] = 2;
  c[PTX_INST_F_WAYS] = 5;
  c[32 + PTX_INST_F_WAYS] = 7;
  uint64_t *fo = ptx_inst_fold(&map, c);
  assert_int_equal(fo[PTX_INST_F_REQUESTS], 35);
  assert_int_equal(fo[PTX_INST_F_WAYS], 7);
  /* the salted pick: salt 0 is the unsalted one, another salt moves it */
  assert_int_equal(ptx_inst_pick_salted(5, 8, 0), ptx_inst_pick(5, 8));
  free(fo);
  ptx_module_free(again);
  ptx_inst_map_release(&map);
  free(buf);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sites),
      cmocka_unit_test(test_sampling_and_errors),
      cmocka_unit_test(test_ptxas),
      cmocka_unit_test(test_execution_sampling),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
