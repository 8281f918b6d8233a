/* src/fix's permutation parts on inline PTX: the text rewrite (byte-exact expected
 * output, written by hand), the legality scan, the permuted and reshaped launches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fix/fix_impl.h"
#include "ptx/ptx.h"

static const char head[] =
  ".version 9.0\n"
  ".target sm_90\n"
  ".address_size 64\n";

/* A kernel reading all four geometry registers, a comment and a string that must stay,
 * and .reqntid 32, 8, 1. */
static const char k_text[] =
  ".visible .entry k(\n"
  "\t.param .u64 k_param_0\n"
  ")\n"
  ".reqntid 32, 8, 1\n"
  "{\n"
  "\t.reg .b32 %r<6>;\n"
  "\t// %tid.x in a comment stays\n"
  "\tmov.u32 %r1, %tid.x;\n"
  "\tmov.u32 %r2, %ntid.y;\n"
  "\tmov.u32 %r3, %ctaid.z;\n"
  "\tmov.u32 %r4, %nctaid.x;\n"
  "\tret;\n"
  "}\n";

static struct ptx_module *parse(const char *text)
{
  struct ptx_module *m = NULL;
  struct cc_err err = {CC_OK, ""};
  int rc = ptx_parse(text, strlen(text), "t.ptx", &m, &err);
  if (rc != CC_OK)
    fail_msg("parse: %s", err.msg);
  return m;
}

static char *cat(const char *a, const char *b)
{
  char *s = malloc(strlen(a) + strlen(b) + 1);
  strcpy(s, a);
  strcat(s, b);
  return s;
}

static void test_rewrite_xy(void **state)
{
  char *text = cat(head, k_text), *out = NULL;
  struct ptx_module *m = parse(text);
  struct cc_err err = {CC_OK, ""};
  size_t len;
  /* x<->y: sigma = {1, 0, 2}; .reqntid 32,8,1 -> 8,32,1 */
  static const char expect[] =
    ".visible .entry k(\n"
    "\t.param .u64 k_param_0\n"
    ")\n"
    ".reqntid 8, 32, 1\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\t// %tid.x in a comment stays\n"
    "\tmov.u32 %r1, %tid.y;\n"
    "\tmov.u32 %r2, %ntid.x;\n"
    "\tmov.u32 %r3, %ctaid.z;\n"
    "\tmov.u32 %r4, %nctaid.y;\n"
    "\tret;\n"
    "}\n";
  char *want = cat(head, expect);
  (void)state;
  assert_int_equal(cc_fix_permute_ptx(text, strlen(text), m, &m->funcs[0], &cc_fix_perms[1], &out,
                                      &len, &err), CC_OK);
  assert_string_equal(out, want);
  assert_int_equal(len, strlen(want));
  free(out);
  free(want);
  ptx_module_free(m);
  free(text);
}

static void test_rewrite_cycle(void **state)
{
  char *text = cat(head, k_text), *out = NULL;
  struct ptx_module *m = parse(text);
  struct cc_err err = {CC_OK, ""};
  size_t len;
  /* x->y->z->x: sigma = {1, 2, 0}: tid.x -> tid.y, ntid.y -> ntid.z, ctaid.z -> ctaid.x,
   * nctaid.x -> nctaid.y; block (32, 8, 1) -> (1, 32, 8) */
  (void)state;
  assert_string_equal(cc_fix_perm_name(&cc_fix_perms[4]), "x->y->z->x");
  assert_int_equal(cc_fix_permute_ptx(text, strlen(text), m, &m->funcs[0], &cc_fix_perms[4], &out,
                                      &len, &err), CC_OK);
  assert_non_null(strstr(out, ".reqntid 1, 32, 8\n"));
  assert_non_null(strstr(out, "mov.u32 %r1, %tid.y;"));
  assert_non_null(strstr(out, "mov.u32 %r2, %ntid.z;"));
  assert_non_null(strstr(out, "mov.u32 %r3, %ctaid.x;"));
  assert_non_null(strstr(out, "mov.u32 %r4, %nctaid.y;"));
  free(out);
  ptx_module_free(m);
  free(text);
}

/* A .func reading %tid.x called by two kernels: the rewrite for one would change the
 * other: CC_ERR_NO_FIX naming the function. */
static void test_shared_callee_refused(void **state)
{
  static const char body[] =
    ".func (.param .b32 r) f()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tst.param.b32 [r], %r1;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry a()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\t{\n"
    "\t.param .b32 rv;\n"
    "\tcall.uni (rv), f, ();\n"
    "\tld.param.b32 %r1, [rv];\n"
    "\t}\n"
    "\tret;\n"
    "}\n"
    ".visible .entry b()\n"
    "{\n"
    "\t.reg .b32 %r<2>;\n"
    "\t{\n"
    "\t.param .b32 rv;\n"
    "\tcall.uni (rv), f, ();\n"
    "\tld.param.b32 %r1, [rv];\n"
    "\t}\n"
    "\tret;\n"
    "}\n";
  char *text = cat(head, body), *out = NULL;
  struct ptx_module *m = parse(text);
  struct cc_err err = {CC_OK, ""};
  size_t len;
  (void)state;
  assert_int_equal(cc_fix_permute_ptx(text, strlen(text), m, ptx_module_find(m, "a"),
                                      &cc_fix_perms[1], &out, &len, &err), CC_ERR_NO_FIX);
  assert_non_null(strstr(err.msg, "function f"));
  assert_null(out);
  ptx_module_free(m);
  free(text);
}

static void test_warp_dependent(void **state)
{
  static const char body[] =
    ".visible .entry s()\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tshfl.sync.down.b32 %r2, %r1, 1, 31, -1;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry l()\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\tmov.u32 %r1, %laneid;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry ok()\n"
    "{\n"
    "\t.reg .b32 %r<4>;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tret;\n"
    "}\n";
  char *text = cat(head, body);
  struct ptx_module *m = parse(text);
  const struct ptx_function *f;
  uint32_t insn;
  char what[96];
  (void)state;
  assert_int_equal(cc_fix_warp_dependent(m, ptx_module_find(m, "s"), &f, &insn, what,
                                         sizeof what), 1);
  assert_int_equal(insn, 1);
  assert_non_null(strstr(what, "shfl"));
  assert_int_equal(cc_fix_warp_dependent(m, ptx_module_find(m, "l"), &f, &insn, what,
                                         sizeof what), 1);
  assert_string_equal(what, "%laneid");
  assert_int_equal(cc_fix_warp_dependent(m, ptx_module_find(m, "ok"), &f, &insn, what,
                                         sizeof what), 0);
  ptx_module_free(m);
  free(text);
}

/* grid'[sigma[e]] = grid[e]; the block limits of CUDA (1024, 1024, 64). */
static void test_geometry(void **state)
{
  uint32_t g[3], b[3];
  char why[160];
  static const uint32_t grid[3] = {2, 16, 32}, block[3] = {32, 4, 2};
  (void)state;
  assert_int_equal(cc_fix_perm_geometry(&cc_fix_perms[2], grid, block, g, b, why, sizeof why), 1);
  assert_int_equal(b[0], 2);
  assert_int_equal(b[1], 4);
  assert_int_equal(b[2], 32);
  assert_int_equal(g[0], 32);
  assert_int_equal(g[2], 2);
  /* block (128, 2, 1) with x<->z: 128 threads in z, above 64 */
  {
    static const uint32_t g2[3] = {1, 1, 1}, b2[3] = {128, 2, 1};
    assert_int_equal(cc_fix_perm_geometry(&cc_fix_perms[2], g2, b2, g, b, why, sizeof why), 0);
    assert_non_null(strstr(why, "above CUDA's limit of 64"));
  }
}

/* Extents (2*2, 16*4, 32*32) = (4, 64, 1024) after a permutation of cell3d's launch:
 * 256 threads: x = largest power of two dividing 4 and 256 = 4, y = dividing 64 and 64 =
 * 64, z = 1: block (4, 64, 1), grid (1, 1, 1024). */
static void test_reshape(void **state)
{
  uint32_t g[3], b[3];
  static const uint32_t grid[3] = {2, 16, 32}, block[3] = {2, 4, 32};
  static const uint32_t grid2[3] = {32, 16, 2}, block2[3] = {2, 4, 32};
  (void)state;
  assert_int_equal(cc_fix_reshape(grid, block, g, b), 1);
  assert_int_equal(b[0], 4); assert_int_equal(b[1], 64); assert_int_equal(b[2], 1);
  assert_int_equal(g[0], 1); assert_int_equal(g[1], 1); assert_int_equal(g[2], 1024);
  /* cell3d zfast after x<->z: extents (64, 64, 64): block (64, 4, 1), grid (1, 16, 64) */
  assert_int_equal(cc_fix_reshape(grid2, block2, g, b), 1);
  assert_int_equal(b[0], 64); assert_int_equal(b[1], 4); assert_int_equal(b[2], 1);
  assert_int_equal(g[0], 1); assert_int_equal(g[1], 16); assert_int_equal(g[2], 64);
}

/* The global-index test of reshaping: a kernel that uses %tid.x alone may not be
 * reshaped; one that forms ctaid.x*ntid.x+tid.x may. */
static void test_reshape_legal(void **state)
{
  static const char body[] =
    ".visible .entry g(.param .u64 p)\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\tmov.u32 %r1, %ctaid.x;\n"
    "\tmov.u32 %r2, %ntid.x;\n"
    "\tmov.u32 %r3, %tid.x;\n"
    "\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry t(.param .u64 p)\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\tmov.u32 %r3, %tid.x;\n"
    "\tadd.s32 %r4, %r3, 1;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry mixed(.param .u64 p)\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\tmov.u32 %r1, %ctaid.x;\n"
    "\tmov.u32 %r2, %ntid.x;\n"
    "\tmov.u32 %r3, %tid.y;\n"
    "\tmad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "\tret;\n"
    "}\n";
  char *text = cat(head, body), why[256];
  struct ptx_module *m = parse(text);
  (void)state;
  assert_int_equal(cc_fix_reshape_legal(m, ptx_module_find(m, "g"), why, sizeof why), 1);
  assert_int_equal(cc_fix_reshape_legal(m, ptx_module_find(m, "t"), why, sizeof why), 0);
  assert_non_null(strstr(why, "%tid.x"));
  assert_int_equal(cc_fix_reshape_legal(m, ptx_module_find(m, "mixed"), why, sizeof why), 0);
  ptx_module_free(m);
  free(text);
}

/* The plays rule (cc_fix_plays): straight-line code gets 4 plays when y of the reshaped
 * grid divides by 4 and at least 4096 CTAs remain; a loop (a backward branch), an atomic
 * or a volatile load gets none, and so does a grid with too few CTAs or y not divisible. */
static void test_plays_rule(void **state)
{
  static const char body[] =
    ".visible .entry line(.param .u64 p)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<6>;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tsetp.gt.u32 %p1, %r1, 7;\n"
    "\t@%p1 bra $L_end;\n"
    "\tadd.s32 %r2, %r1, 1;\n"
    "$L_end:\n"
    "\tret;\n"
    "}\n"
    ".visible .entry loop(.param .u64 p)\n"
    "{\n"
    "\t.reg .pred %p<2>;\n"
    "\t.reg .b32 %r<6>;\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "$L_top:\n"
    "\tadd.s32 %r1, %r1, 1;\n"
    "\tsetp.lt.u32 %p1, %r1, 7;\n"
    "\t@%p1 bra $L_top;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry atomic(.param .u64 p)\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\tatom.global.add.u32 %r1, [%rd1], 1;\n"
    "\tret;\n"
    "}\n"
    ".visible .entry flag(.param .u64 p)\n"
    "{\n"
    "\t.reg .b32 %r<6>;\n"
    "\t.reg .b64 %rd<3>;\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\tld.volatile.global.u32 %r1, [%rd1];\n"
    "\tret;\n"
    "}\n";
  /* fan2 at 4096 reshaped: 16 x 4096 = 65,536 CTAs, 16,384 after 4 plays; 16 x 1024 =
   * 16,384 CTAs leaves 4,096 (the least allowed); 16 x 1020 leaves 4,080; 16 x 4098:
   * y not divisible by 4 */
  const uint32_t big[3] = {16, 4096, 1}, edge[3] = {16, 1024, 1}, few[3] = {16, 1020, 1},
                 odd[3] = {16, 4098, 1};
  char *text = cat(head, body);
  struct ptx_module *m = parse(text);
  const struct ptx_function *line = ptx_module_find(m, "line");
  (void)state;
  assert_int_equal(cc_fix_plays(line, big), 4);
  assert_int_equal(cc_fix_plays(line, edge), 4);
  assert_int_equal(cc_fix_plays(line, few), 1);
  assert_int_equal(cc_fix_plays(line, odd), 1);
  assert_int_equal(cc_fix_plays(ptx_module_find(m, "loop"), big), 1);
  assert_int_equal(cc_fix_plays(ptx_module_find(m, "atomic"), big), 1);
  assert_int_equal(cc_fix_plays(ptx_module_find(m, "flag"), big), 1);
  ptx_module_free(m);
  free(text);
}

static void test_buffers_equal(void **state)
{
  uint8_t a0[8] = {0}, b0[8] = {0};
  struct cc_fix_buffer ba = {"out", PTX_TYPE_F32, 8, a0}, bb = {"out", PTX_TYPE_F32, 8, b0};
  struct cc_fix_measure ma, mb;
  char why[256];
  float one = 1.0f;
  (void)state;
  memset(&ma, 0, sizeof ma);
  memset(&mb, 0, sizeof mb);
  ma.bufs = &ba; ma.nbufs = 1;
  mb.bufs = &bb; mb.nbufs = 1;
  assert_int_equal(cc_fix_buffers_equal(&ma, &mb, why, sizeof why), 1);
  memcpy(b0 + 4, &one, 4);
  assert_int_equal(cc_fix_buffers_equal(&ma, &mb, why, sizeof why), 0);
  assert_string_equal(why, "buffer 'out' differs at element 1: 0 (0x00000000) before, 1 "
                           "(0x3f800000) after");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rewrite_xy),
    cmocka_unit_test(test_plays_rule),
    cmocka_unit_test(test_rewrite_cycle),
    cmocka_unit_test(test_shared_callee_refused),
    cmocka_unit_test(test_warp_dependent),
    cmocka_unit_test(test_geometry),
    cmocka_unit_test(test_reshape),
    cmocka_unit_test(test_reshape_legal),
    cmocka_unit_test(test_buffers_equal),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
