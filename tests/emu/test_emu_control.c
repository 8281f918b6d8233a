/* Emulator: control flow, divergence and reconvergence, barriers, calls, warp-wide
 * operations, atomics. Every expected value is derived by hand in the comment above the
 * check (or computed by plain C loops written here from the kernel's meaning). */
#include "emu/harness.h"

/* out[i] = in[i] * 2 + i for a 1-D grid; a smoke test of params, sregs, ld/st, cvta */
static const char *k_axpy = PTX_HEADER
    ".visible .entry axpy(.param .u64 p_out, .param .u64 p_in, .param .u32 p_n)\n"
    "{\n"
    ".reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "ld.param.u64 %rd2, [p_in];\n"
    "ld.param.u32 %r1, [p_n];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r2, %ctaid.x;\n"
    "mov.u32 %r3, %ntid.x;\n"
    "mov.u32 %r4, %tid.x;\n"
    "mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "setp.ge.s32 %p1, %r5, %r1;\n"
    "@%p1 bra $L_end;\n"
    "mul.wide.s32 %rd3, %r5, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\n"
    "ld.global.u32 %r6, [%rd4];\n"
    "shl.b32 %r6, %r6, 1;\n"
    "add.s32 %r6, %r6, %r5;\n"
    "add.s64 %rd5, %rd1, %rd3;\n"
    "st.global.u32 [%rd5], %r6;\n"
    "$L_end:\n"
    "ret;\n"
    "}\n";

static void test_axpy(void **state)
{
  struct ptx_module *m = parse_ok(k_axpy);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t dout, din;
  uint32_t *out = alloc_ok(emu, 100 * 4, "out", &dout);
  uint32_t *in = alloc_ok(emu, 100 * 4, "in", &din);
  struct launch l = L1(4, 32);
  struct cc_emu_stats st;
  (void)state;
  for (int j = 0; j < 100; j++) in[j] = (uint32_t)(1000 + j);
  arg64(&l, dout);
  arg64(&l, din);
  arg32(&l, 100);
  launch_ok(emu, m, "axpy", &l, NULL, &st);
  for (int j = 0; j < 100; j++) assert_int_equal(out[j], 2 * (1000 + j) + j);
  /* 4 CTAs of one warp: 128 threads, 100 in range */
  assert_int_equal(st.ctas_done, 4);
  cc_emu_free(emu);
  ptx_module_free(m);
}


/* Common prologue: %rd1 = out (global), %r1 = linear thread id in the grid, %r9 = tid.x */
#define PROLOGUE(name, extra_params)                                                    \
  ".visible .entry " name "(.param .u64 p_out" extra_params ")\n{\n"                    \
  ".reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<16>; .reg .f32 %f<8>;\n"           \
  "ld.param.u64 %rd1, [p_out];\n"                                                       \
  "cvta.to.global.u64 %rd1, %rd1;\n"                                                    \
  "mov.u32 %r9, %tid.x;\n"                                                              \
  "mov.u32 %r2, %ctaid.x;\n"                                                            \
  "mov.u32 %r3, %ntid.x;\n"                                                             \
  "mad.lo.s32 %r1, %r2, %r3, %r9;\n"                                                    \
  "mul.wide.u32 %rd2, %r1, 4;\n"                                                        \
  "add.s64 %rd3, %rd1, %rd2;\n"

/* if/else: even lanes out = t + 100 and record activemask inside the branch; odd lanes
 * out = 3t; after the join every lane adds activemask there (full warp) into out2 */
static const char *k_ifelse = PTX_HEADER PROLOGUE("ifelse", ", .param .u64 p_out2")
    "ld.param.u64 %rd4, [p_out2];\n"
    "cvta.to.global.u64 %rd4, %rd4;\n"
    "add.s64 %rd5, %rd4, %rd2;\n"
    "and.b32 %r4, %r9, 1;\n"
    "setp.eq.s32 %p1, %r4, 1;\n"
    "@%p1 bra $L_odd;\n"
    "add.s32 %r5, %r1, 100;\n"
    "activemask.b32 %r6;\n"
    "bra.uni $L_join;\n"
    "$L_odd:\n"
    "mul.lo.s32 %r5, %r1, 3;\n"
    "activemask.b32 %r6;\n"
    "$L_join:\n"
    "st.global.u32 [%rd3], %r5;\n"
    "activemask.b32 %r7;\n"
    "st.global.u32 [%rd5], %r7;\n"
    "st.global.u32 [%rd3+128], %r6;\n"
    "ret;\n}\n";

static void test_if_else(void **state)
{
  struct ptx_module *m = parse_ok(k_ifelse);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d1, d2;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d1);
  uint32_t *out2 = alloc_ok(emu, 32 * 4, "out2", &d2);
  struct launch l = L1(1, 32);
  (void)state;
  arg64(&l, d1);
  arg64(&l, d2);
  launch_ok(emu, m, "ifelse", &l, NULL, NULL);
  for (uint32_t t = 0; t < 32; t++) {
    assert_int_equal(out[t], t % 2 ? 3 * t : t + 100);
    /* inside the branches: even lanes 0x55555555, odd lanes 0xaaaaaaaa */
    assert_int_equal(out[32 + t], t % 2 ? 0xaaaaaaaau : 0x55555555u);
    /* reconverged at the join */
    assert_int_equal(out2[t], 0xffffffffu);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* loop with a per-lane trip count: s = sum_{j<t} j = t(t-1)/2; inside the loop the
 * active mask at iteration j is the lanes with t > j; after the loop it is full. Nested:
 * lanes 0..15 then split on bit 0 again. */
static const char *k_loop = PTX_HEADER PROLOGUE("loop", "")
    "mov.u32 %r4, 0;\n"
    "mov.u32 %r5, 0;\n"
    "mov.u32 %r8, 0;\n"
    "setp.eq.s32 %p1, %r9, 0;\n"
    "@%p1 bra $L_done;\n"
    "$L_top:\n"
    "add.s32 %r5, %r5, %r4;\n"
    "activemask.b32 %r6;\n"
    "popc.b32 %r7, %r6;\n"
    "add.s32 %r8, %r8, %r7;\n"
    "add.s32 %r4, %r4, 1;\n"
    "setp.lt.u32 %p2, %r4, %r9;\n"
    "@%p2 bra $L_top;\n"
    "$L_done:\n"
    "activemask.b32 %r10;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "st.global.u32 [%rd3+128], %r8;\n"
    "st.global.u32 [%rd3+256], %r10;\n"
    /* nested: t < 16 ? (t odd ? 1 : 2) : 3, and the mask in the innermost branch */
    "mov.u32 %r11, 3;\n"
    "mov.u32 %r12, 0;\n"
    "setp.ge.u32 %p3, %r9, 16;\n"
    "@%p3 bra $L_n_join;\n"
    "and.b32 %r13, %r9, 1;\n"
    "setp.eq.u32 %p4, %r13, 0;\n"
    "@%p4 bra $L_n_even;\n"
    "mov.u32 %r11, 1;\n"
    "activemask.b32 %r12;\n"
    "bra.uni $L_n_inner_join;\n"
    "$L_n_even:\n"
    "mov.u32 %r11, 2;\n"
    "activemask.b32 %r12;\n"
    "$L_n_inner_join:\n"
    "activemask.b32 %r14;\n"
    "st.global.u32 [%rd3+512], %r14;\n"
    "$L_n_join:\n"
    "st.global.u32 [%rd3+384], %r11;\n"
    "ret;\n}\n";

static void test_loops_nested(void **state)
{
  struct ptx_module *m = parse_ok(k_loop);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 5 * 128, "out", &d);
  struct launch l = L1(1, 32);
  (void)state;
  arg64(&l, d);
  launch_ok(emu, m, "loop", &l, NULL, NULL);
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t pops = 0;
    assert_int_equal(out[t], t * (t - 1) / 2 * (t > 0));
    /* lane t runs iterations j = 0..t-1; at iteration j the lanes with u > j are active,
     * 31 - j of them (lanes j+1..31) */
    for (uint32_t j = 0; j < t; j++) pops += 31 - j;
    assert_int_equal(out[32 + t], pops);
    assert_int_equal(out[64 + t], 0xffffffffu);
    assert_int_equal(out[96 + t], t >= 16 ? 3 : (t % 2 ? 1 : 2));
    /* inner join of lanes 0..15: 0x0000ffff; lanes >= 16 never store there */
    assert_int_equal(out[128 + t], t < 16 ? 0x0000ffffu : 0);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* shared-memory tree reduction over 128 threads (4 warps) with bar.sync: the block's
 * sum of in[] goes to out[ctaid] */
static const char *k_reduce = PTX_HEADER
    ".visible .entry reduce(.param .u64 p_out, .param .u64 p_in)\n{\n"
    ".reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<16>;\n"
    ".shared .align 4 .b8 sdata[512];\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "ld.param.u64 %rd2, [p_in];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %ctaid.x;\n"
    "mov.u32 %r3, %ntid.x;\n"
    "mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "mul.wide.u32 %rd3, %r4, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\n"
    "ld.global.u32 %r5, [%rd4];\n"
    "mov.u32 %r6, sdata;\n"
    "shl.b32 %r7, %r1, 2;\n"
    "add.s32 %r8, %r6, %r7;\n"
    "st.shared.u32 [%r8], %r5;\n"
    "bar.sync 0;\n"
    "shr.u32 %r9, %r3, 1;\n"
    "$L_top:\n"
    "setp.ge.u32 %p1, %r1, %r9;\n"
    "@%p1 bra $L_skip;\n"
    "shl.b32 %r10, %r9, 2;\n"
    "add.s32 %r11, %r8, %r10;\n"
    "ld.shared.u32 %r12, [%r11];\n"
    "ld.shared.u32 %r13, [%r8];\n"
    "add.s32 %r13, %r13, %r12;\n"
    "st.shared.u32 [%r8], %r13;\n"
    "$L_skip:\n"
    "bar.sync 0;\n"
    "shr.u32 %r9, %r9, 1;\n"
    "setp.ne.s32 %p2, %r9, 0;\n"
    "@%p2 bra $L_top;\n"
    "setp.ne.s32 %p3, %r1, 0;\n"
    "@%p3 bra $L_end;\n"
    "ld.shared.u32 %r14, [sdata];\n"
    "mul.wide.u32 %rd5, %r2, 4;\n"
    "add.s64 %rd6, %rd1, %rd5;\n"
    "st.global.u32 [%rd6], %r14;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_barrier_reduction(void **state)
{
  struct ptx_module *m = parse_ok(k_reduce);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t dout, din;
  uint32_t *out = alloc_ok(emu, 2 * 4, "out", &dout);
  uint32_t *in = alloc_ok(emu, 256 * 4, "in", &din);
  struct launch l = L1(2, 128);
  (void)state;
  for (uint32_t j = 0; j < 256; j++) in[j] = j + 1;
  arg64(&l, dout);
  arg64(&l, din);
  launch_ok(emu, m, "reduce", &l, NULL, NULL);
  /* block 0: 1+...+128 = 128*129/2 = 8256; block 1: 129+...+256 = 32896 - 8256 = 24640 */
  assert_int_equal(out[0], 8256);
  assert_int_equal(out[1], 24640);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* a warp that returns early while the others wait at bar.sync: deadlock, reported */
static const char *k_deadlock = PTX_HEADER PROLOGUE("deadlock", "")
    "setp.ge.u32 %p1, %r9, 32;\n"
    "@%p1 bra $L_end;\n"
    "bar.sync 0;\n"
    "$L_end:\n"
    "ret;\n}\n";

/* half a warp at bar.sync: barrier divergence */
static const char *k_divbar = PTX_HEADER PROLOGUE("divbar", "")
    "setp.ge.u32 %p1, %r9, 16;\n"
    "@%p1 bra $L_end;\n"
    "bar.sync 0;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_barrier_errors(void **state)
{
  struct ptx_module *m = parse_ok(k_deadlock), *m2 = parse_ok(k_divbar);
  struct cc_emu *emu = cc_emu_new(m, NULL), *emu2 = cc_emu_new(m2, NULL);
  struct cc_err err;
  struct launch l = L1(1, 64);
  (void)state;
  arg64(&l, 0);
  assert_int_equal(launch_run(emu, m, "deadlock", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "barrier deadlock in kernel deadlock, block (0,0,0)"));
  assert_true(contains(err.msg, "1 warps wait at barrier 0"));
  assert_true(contains(err.msg, "expects 2 warps, but 1 warps exited"));
  assert_int_equal(launch_run(emu2, m2, "divbar", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "barrier reached by a divergent warp"));
  assert_true(contains(err.msg, "in warp 0 of block (0,0,0)"));
  assert_true(contains(err.msg, "PTX line 17 'bar.sync"));
  cc_emu_free(emu);
  cc_emu_free(emu2);
  ptx_module_free(m);
  ptx_module_free(m2);
}

/* calls: sq1(x) = x*x + 1 called by every lane; fact(n) recursive, called by odd lanes
 * only (divergent call) with n = t % p_n + p_add */
static const char *k_calls = PTX_HEADER
    ".func (.param .b32 r) sq1(.param .b32 x)\n{\n"
    ".reg .b32 %r<4>;\n"
    "ld.param.b32 %r1, [x];\n"
    "mul.lo.s32 %r2, %r1, %r1;\n"
    "add.s32 %r2, %r2, 1;\n"
    "st.param.b32 [r], %r2;\n"
    "ret;\n}\n"
    ".func (.param .b32 fr) fact(.param .b32 n)\n{\n"
    ".reg .pred %p<2>; .reg .b32 %r<6>;\n"
    "ld.param.b32 %r1, [n];\n"
    "setp.gt.s32 %p1, %r1, 1;\n"
    "@%p1 bra $L_rec;\n"
    "st.param.b32 [fr], 1;\n"
    "ret;\n"
    "$L_rec:\n"
    "add.s32 %r2, %r1, -1;\n"
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r2;\n"
    ".param .b32 rv;\n"
    "call.uni (rv), fact, (a0);\n"
    "ld.param.b32 %r3, [rv];\n"
    "}\n"
    "mul.lo.s32 %r4, %r3, %r1;\n"
    "st.param.b32 [fr], %r4;\n"
    "ret;\n}\n"
    PROLOGUE("calls", ", .param .u32 p_n, .param .u32 p_add")
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r9;\n"
    ".param .b32 rv;\n"
    "call.uni (rv), sq1, (a0);\n"
    "ld.param.b32 %r4, [rv];\n"
    "}\n"
    "st.global.u32 [%rd3], %r4;\n"
    "mov.u32 %r5, 0;\n"
    "and.b32 %r6, %r9, 1;\n"
    "setp.eq.u32 %p1, %r6, 0;\n"
    "@%p1 bra $L_join;\n"
    "ld.param.u32 %r7, [p_n];\n"
    "rem.u32 %r8, %r9, %r7;\n"
    "ld.param.u32 %r15, [p_add];\n"
    "add.s32 %r8, %r8, %r15;\n"
    "{\n"
    ".param .b32 a1;\n"
    "st.param.b32 [a1], %r8;\n"
    ".param .b32 rv1;\n"
    "call (rv1), fact, (a1);\n"
    "ld.param.b32 %r5, [rv1];\n"
    "}\n"
    "$L_join:\n"
    "activemask.b32 %r10;\n"
    "st.global.u32 [%rd3+128], %r5;\n"
    "st.global.u32 [%rd3+256], %r10;\n"
    "ret;\n}\n";

static void test_calls(void **state)
{
  struct ptx_module *m = parse_ok(k_calls);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 3 * 128, "out", &d);
  struct launch l = L1(1, 32);
  static const uint32_t fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
  (void)state;
  arg64(&l, d);
  arg32(&l, 8);
  arg32(&l, 0);
  launch_ok(emu, m, "calls", &l, NULL, NULL);
  for (uint32_t t = 0; t < 32; t++) {
    assert_int_equal(out[t], t * t + 1);
    assert_int_equal(out[32 + t], t % 2 ? fact[t % 8] : 0);
    assert_int_equal(out[64 + t], 0xffffffffu);
  }
  /* add 100: fact(101) needs 101 nested frames (plus the kernel's): over the limit */
  l.vals[2] = 100;
  assert_int_equal(launch_run(emu, m, "calls", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "call depth exceeds 64"));
  cc_emu_free(emu);
  ptx_module_free(m);
}
int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_axpy),
      cmocka_unit_test(test_if_else),
      cmocka_unit_test(test_loops_nested),
      cmocka_unit_test(test_barrier_reduction),
      cmocka_unit_test(test_barrier_errors),
      cmocka_unit_test(test_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
