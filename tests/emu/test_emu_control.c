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

/* a warp that returns early while the others wait at bar.sync: its exit releases the
 * barrier (PTX ISA 9.0, exit); the errors are in test_emu_barrier.c */
static const char *k_deadlock = PTX_HEADER PROLOGUE("deadlock", "")
    "setp.ge.u32 %p1, %r9, 32;\n"
    "@%p1 bra $L_end;\n"
    "bar.sync 0;\n"
    "$L_end:\n"
    "ret;\n}\n";

/* half a warp at bar.sync, the other half returns: the arriving lanes wait for the
 * warp's non-exited lanes only (PTX ISA 9.0, barrier) */
static const char *k_divbar = PTX_HEADER PROLOGUE("divbar", "")
    "setp.ge.u32 %p1, %r9, 16;\n"
    "@%p1 bra $L_end;\n"
    "bar.sync 0;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_barrier_early_exit(void **state)
{
  struct ptx_module *m = parse_ok(k_deadlock), *m2 = parse_ok(k_divbar);
  struct cc_emu *emu = cc_emu_new(m, NULL), *emu2 = cc_emu_new(m2, NULL);
  struct cc_emu_stats st;
  struct launch l = L1(1, 64);
  (void)state;
  arg64(&l, 0);
  launch_ok(emu, m, "deadlock", &l, NULL, &st);
  assert_int_equal(st.ctas_done, 1);
  launch_ok(emu2, m2, "divbar", &l, NULL, &st);
  assert_int_equal(st.ctas_done, 1);
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

/* histogram with atomics: 2 blocks x 96 threads (3 warps); bin = t % 8 in global memory
 * (atom.global.add returns the old value), plus a per-block shared histogram reduced
 * with red.global; and cas/exch/min/max/inc/dec/float add on single words */
static const char *k_atom = PTX_HEADER
    ".visible .entry hist(.param .u64 p_out, .param .u64 p_bins, .param .u64 p_misc)\n{\n"
    ".reg .pred %p<4>; .reg .b32 %r<30>; .reg .b64 %rd<16>; .reg .f32 %f<4>;\n"
    ".shared .align 4 .b8 sh[32];\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "ld.param.u64 %rd2, [p_bins];\n"
    "ld.param.u64 %rd3, [p_misc];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "cvta.to.global.u64 %rd3, %rd3;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %ctaid.x;\n"
    "mov.u32 %r3, %ntid.x;\n"
    "mad.lo.s32 %r4, %r2, %r3, %r1;\n"
    "and.b32 %r5, %r4, 7;\n"
    "mul.wide.u32 %rd4, %r5, 4;\n"
    "add.s64 %rd5, %rd2, %rd4;\n"
    "atom.global.add.u32 %r6, [%rd5], 1;\n"
    "mul.wide.u32 %rd6, %r4, 4;\n"
    "add.s64 %rd7, %rd1, %rd6;\n"
    "st.global.u32 [%rd7], %r6;\n"
    /* shared histogram of t % 4, then thread 0..3 red.global.add into bins[8..11] */
    "and.b32 %r7, %r1, 3;\n"
    "shl.b32 %r8, %r7, 2;\n"
    "mov.u32 %r9, sh;\n"
    "add.s32 %r10, %r9, %r8;\n"
    "atom.shared.add.u32 %r11, [%r10], 1;\n"
    "bar.sync 0;\n"
    "setp.ge.u32 %p1, %r1, 4;\n"
    "@%p1 bra $L_misc;\n"
    "shl.b32 %r12, %r1, 2;\n"
    "add.s32 %r13, %r9, %r12;\n"
    "ld.shared.u32 %r14, [%r13];\n"
    "red.global.add.u32 [%rd5+32], %r14;\n"
    "$L_misc:\n"
    /* misc[0]: max of t; misc[1]: min of 1000 - t; misc[2]: inc with limit 9;
     * misc[3]: cas 0 -> t+1 (only the first lane in order wins); misc[4]: exch t;
     * misc[5]: float add 0.5; misc[6]: dec with limit 5; misc[7]: or of 1 << (t%32) */
    "atom.global.max.s32 %r15, [%rd3], %r4;\n"
    "sub.s32 %r16, 1000, %r4;\n"
    "atom.global.min.u32 %r17, [%rd3+4], %r16;\n"
    "atom.global.inc.u32 %r18, [%rd3+8], 9;\n"
    "add.s32 %r19, %r4, 1;\n"
    "atom.global.cas.b32 %r20, [%rd3+12], 0, %r19;\n"
    "atom.global.exch.b32 %r21, [%rd3+16], %r4;\n"
    "mov.f32 %f1, 0f3F000000;\n"
    "atom.global.add.f32 %f2, [%rd3+20], %f1;\n"
    "atom.global.dec.u32 %r22, [%rd3+24], 5;\n"
    "and.b32 %r23, %r4, 31;\n"
    "shl.b32 %r24, 1, %r23;\n"
    "atom.global.or.b32 %r25, [%rd3+28], %r24;\n"
    "ret;\n}\n";

static void test_atomics(void **state)
{
  struct ptx_module *m = parse_ok(k_atom);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t dout, dbins, dmisc;
  uint32_t *out = alloc_ok(emu, 192 * 4, "out", &dout);
  uint32_t *bins = alloc_ok(emu, 16 * 4, "bins", &dbins);
  uint32_t *misc = alloc_ok(emu, 8 * 4, "misc", &dmisc);
  struct launch l = L1(2, 96);
  float fsum;
  (void)state;
  misc[1] = 0xffffffffu;
  arg64(&l, dout);
  arg64(&l, dbins);
  arg64(&l, dmisc);
  launch_ok(emu, m, "hist", &l, NULL, NULL);
  /* 192 threads, 8 bins: 24 each; lanes are serialised in order and warps run in order,
   * so thread g saw g / 8 earlier increments of its bin */
  for (int b = 0; b < 8; b++) assert_int_equal(bins[b], 24);
  for (uint32_t g = 0; g < 192; g++) assert_int_equal(out[g], g / 8);
  /* shared bins t % 4 over 96 threads: 24 each per block; two blocks: 48 */
  for (int b = 8; b < 12; b++) assert_int_equal(bins[b], 48);
  assert_int_equal(misc[0], 191);
  assert_int_equal(misc[1], 1000 - 191);
  /* inc: 0,1,...,9,0,... 192 increments: 192 % 10 = 2 */
  assert_int_equal(misc[2], 192 % 10);
  /* cas: thread 0 sees 0 and writes 1; later ones see 1 */
  assert_int_equal(misc[3], 1);
  /* exch: the last thread in execution order (block 1, lane 95) */
  assert_int_equal(misc[4], 191);
  fsum = 0.5f * 192;
  assert_true(memcmp(&misc[5], &fsum, 4) == 0);
  /* dec with limit 5 from 0: 0 -> 5 -> 4 ... -> 0 -> 5: period 6; 192 % 6 = 0 -> 0 */
  assert_int_equal(misc[6], 0);
  assert_int_equal(misc[7], 0xffffffffu);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* warp-wide: shfl.down reduction (lane 0 gets the sum), shfl.bfly (all get the sum),
 * shfl.up by 1 and shfl.idx from lane 5; vote.ballot of odd lanes, vote.all/any;
 * match.any on t % 3; in a block of 40 threads (second warp partial: 8 lanes) */
static const char *k_warp = PTX_HEADER PROLOGUE("warpops", "")
    "mov.u32 %r4, %r9;\n"
    "shfl.sync.down.b32 %r5, %r4, 16, 31, -1;\n" "add.s32 %r4, %r4, %r5;\n"
    "shfl.sync.down.b32 %r5, %r4, 8, 31, -1;\n" "add.s32 %r4, %r4, %r5;\n"
    "shfl.sync.down.b32 %r5, %r4, 4, 31, -1;\n" "add.s32 %r4, %r4, %r5;\n"
    "shfl.sync.down.b32 %r5, %r4, 2, 31, -1;\n" "add.s32 %r4, %r4, %r5;\n"
    "shfl.sync.down.b32 %r5, %r4, 1, 31, -1;\n" "add.s32 %r4, %r4, %r5;\n"
    "st.global.u32 [%rd3], %r4;\n"
    "mov.u32 %r6, %r9;\n"
    "shfl.sync.bfly.b32 %r7, %r6, 16, 31, -1;\n" "add.s32 %r6, %r6, %r7;\n"
    "shfl.sync.bfly.b32 %r7, %r6, 8, 31, -1;\n" "add.s32 %r6, %r6, %r7;\n"
    "shfl.sync.bfly.b32 %r7, %r6, 4, 31, -1;\n" "add.s32 %r6, %r6, %r7;\n"
    "shfl.sync.bfly.b32 %r7, %r6, 2, 31, -1;\n" "add.s32 %r6, %r6, %r7;\n"
    "shfl.sync.bfly.b32 %r7, %r6, 1, 31, -1;\n" "add.s32 %r6, %r6, %r7;\n"
    "st.global.u32 [%rd3+160], %r6;\n"
    "shfl.sync.up.b32 %r10|%p1, %r9, 1, 0, -1;\n"
    "selp.u32 %r11, 1, 0, %p1;\n"
    "shl.b32 %r11, %r11, 16;\n"
    "or.b32 %r10, %r10, %r11;\n"
    "st.global.u32 [%rd3+320], %r10;\n"
    "shfl.sync.idx.b32 %r12, %r9, 5, 31, -1;\n"
    "st.global.u32 [%rd3+480], %r12;\n"
    "and.b32 %r13, %r9, 1;\n"
    "setp.eq.u32 %p2, %r13, 1;\n"
    "vote.sync.ballot.b32 %r14, %p2, -1;\n"
    "st.global.u32 [%rd3+640], %r14;\n"
    "vote.sync.any.pred %p3, %p2, -1;\n"
    "vote.sync.all.pred %p4, !%p2, -1;\n"
    "selp.u32 %r15, 1, 0, %p3;\n"
    "selp.u32 %r16, 2, 0, %p4;\n"
    "or.b32 %r15, %r15, %r16;\n"
    "st.global.u32 [%rd3+800], %r15;\n"
    "rem.u32 %r17, %r9, 3;\n"
    "match.any.sync.b32 %r18, %r17, -1;\n"
    "st.global.u32 [%rd3+960], %r18;\n"
    "ret;\n}\n";

static void test_warp_ops(void **state)
{
  struct ptx_module *m = parse_ok(k_warp);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 7 * 160, "out", &d);
  struct launch l = L1(1, 40);
  (void)state;
  arg64(&l, d);
  launch_ok(emu, m, "warpops", &l, NULL, NULL);
  /* warp 0: sum 0..31 = 496 at lane 0 (down); all lanes (bfly) */
  assert_int_equal(out[0], 496);
  for (uint32_t t = 0; t < 32; t++) assert_int_equal(out[40 + t], 496);
  /* warp 1 has lanes 32..39 only; bfly partners of absent lanes read their (zero)
   * registers: the xor-16 step adds 0 for lanes 32..39, then the 8 lanes sum
   * 32+...+39 = 284 */
  for (uint32_t t = 32; t < 40; t++) assert_int_equal(out[40 + t], 284);
  for (uint32_t t = 0; t < 40; t++) {
    uint32_t lane = t % 32;
    /* up by 1, c = 0: lane 0 keeps its value with p = 0 */
    assert_int_equal(out[80 + t], lane == 0 ? t : (t - 1) | (1u << 16));
    assert_int_equal(out[120 + t], t - lane + 5);
    /* ballot of odd lanes: 0xaaaaaaaa in warp 0; 8 lanes in warp 1: 0xaa */
    assert_int_equal(out[160 + t], t < 32 ? 0xaaaaaaaau : 0xaau);
    /* any odd: yes; all even: no */
    assert_int_equal(out[200 + t], 1);
  }
  /* match.any on t % 3 within warp 0: lanes with equal residue */
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t want = 0;
    for (uint32_t u = 0; u < 32; u++) if (u % 3 == t % 3) want |= 1u << u;
    assert_int_equal(out[240 + t], want);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}
/* bar.red (__syncthreads_count/_and/_or) over a block of 64: every thread gets the
 * block-wide result */
static const char *k_barred = PTX_HEADER PROLOGUE("barred", "")
    "rem.u32 %r4, %r9, 3;\n"
    "setp.eq.u32 %p1, %r4, 0;\n"
    "bar.red.popc.u32 %r5, 0, %p1;\n"
    "setp.lt.u32 %p2, %r9, 64;\n"
    "bar.red.and.pred %p3, 1, %p2;\n"
    "setp.lt.u32 %p4, %r9, 63;\n"
    "bar.red.and.pred %p5, 1, %p4;\n"
    "bar.red.or.pred %p6, 2, !%p4;\n"
    "selp.u32 %r6, 100, 0, %p3;\n"
    "selp.u32 %r7, 1000, 0, %p5;\n"
    "selp.u32 %r8, 10000, 0, %p6;\n"
    "add.s32 %r5, %r5, %r6;\n"
    "add.s32 %r5, %r5, %r7;\n"
    "add.s32 %r5, %r5, %r8;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "ret;\n}\n";

static void test_bar_red(void **state)
{
  struct ptx_module *m = parse_ok(k_barred);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d);
  struct launch l = L1(1, 64);
  (void)state;
  arg64(&l, d);
  launch_ok(emu, m, "barred", &l, NULL, NULL);
  /* popc: t % 3 == 0 for t = 0, 3, ..., 63: 22 threads; and(t < 64) = 1 (+100);
   * and(t < 63) = 0; or(t >= 63) = 1 (+10000) */
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], 22 + 100 + 10000);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* 3-D block (4 x 3 x 4 = 48 threads): linear id x + 4y + 12z decides warp and lane;
 * %laneid, %warpid, %nwarpid, %lanemask_lt; %clock64 increases; exit by a subset of the
 * lanes while the others go on */
static const char *k_ids = PTX_HEADER
    ".visible .entry ids(.param .u64 p_out)\n{\n"
    ".reg .pred %p<4>; .reg .b32 %r<20>; .reg .b64 %rd<12>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %tid.y;\n"
    "mov.u32 %r3, %tid.z;\n"
    "mad.lo.s32 %r4, %r2, 4, %r1;\n"
    "mad.lo.s32 %r4, %r3, 12, %r4;\n"
    "mul.wide.u32 %rd2, %r4, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "mov.u32 %r5, %laneid;\n"
    "mov.u32 %r6, %warpid;\n"
    "mov.u32 %r7, %nwarpid;\n"
    "mov.u32 %r8, %lanemask_lt;\n"
    "shl.b32 %r6, %r6, 8;\n"
    "shl.b32 %r7, %r7, 16;\n"
    "or.b32 %r5, %r5, %r6;\n"
    "or.b32 %r5, %r5, %r7;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "st.global.u32 [%rd3+192], %r8;\n"
    "mov.u64 %rd4, %clock64;\n"
    "mov.u64 %rd5, %clock64;\n"
    "setp.gt.u64 %p1, %rd5, %rd4;\n"
    "selp.u32 %r9, 1, 0, %p1;\n"
    "st.global.u32 [%rd3+384], %r9;\n"
    /* elect among lanes with x != 0 (t % 4 != 0): the lowest such lane of each warp */
    "setp.ne.u32 %p3, %r1, 0;\n"
    "mov.u32 %r11, 0;\n"
    "@!%p3 bra $L_skip;\n"
    "elect.sync %r12|%p1, -1;\n"
    "selp.u32 %r13, 64, 0, %p1;\n"
    "or.b32 %r11, %r12, %r13;\n"
    "$L_skip:\n"
    "st.global.u32 [%rd3+768], %r11;\n"
    "setp.eq.u32 %p2, %r1, 0;\n"
    "@%p2 exit;\n"
    "activemask.b32 %r10;\n"
    "st.global.u32 [%rd3+576], %r10;\n"
    "ret;\n}\n";

static void test_ids_clock_exit(void **state)
{
  struct ptx_module *m = parse_ok(k_ids);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 4 * 240, "out", &d);
  struct launch l = L1(1, 4);
  (void)state;
  l.block[1] = 3;
  l.block[2] = 4;
  arg64(&l, d);
  launch_ok(emu, m, "ids", &l, NULL, NULL);
  for (uint32_t t = 0; t < 48; t++) {
    uint32_t lane = t % 32, warp = t / 32, exitmask = 0;
    assert_int_equal(out[t], lane | warp << 8 | 2u << 16);
    assert_int_equal(out[48 + t], (1u << lane) - 1);
    assert_int_equal(out[96 + t], 1);
    /* threads with x == 0 (t % 4 == 0) exited; the rest of the warp's present lanes
     * (32 in warp 0, 16 in warp 1) run on */
    for (uint32_t u = 32 * warp; u < 32 * warp + 32 && u < 48; u++)
      if (u % 4) exitmask |= 1u << (u % 32);
    assert_int_equal(out[144 + t], t % 4 ? exitmask : 0);
    /* elect: lanes with t % 4 != 0; the leader is lane 1 of each warp (t = 1, 33): every
     * electing lane gets 1, the leader is flagged with 64 */
    if (t % 4 == 0) assert_int_equal(out[192 + t], 0);
    else assert_int_equal(out[192 + t], 1 | (lane == 1 ? 64 : 0));
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* vector loads and stores (with an immediate element), mov pack/unpack, generic
 * atomics on shared memory, vote.uni, match.all with its predicate */
static const char *k_vec = PTX_HEADER
    ".visible .entry vec(.param .u64 p_in, .param .u64 p_out)\n{\n"
    ".reg .pred %p<6>; .reg .b32 %r<24>; .reg .b64 %rd<12>; .reg .b16 %h<4>; .reg .f32 %f<6>;\n"
    ".shared .align 4 .b8 cnt[4];\n"
    "ld.param.u64 %rd1, [p_in];\n"
    "ld.param.u64 %rd2, [p_out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mul.wide.u32 %rd3, %r1, 16;\n"
    "add.s64 %rd4, %rd1, %rd3;\n"
    "add.s64 %rd5, %rd2, %rd3;\n"
    "ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n"
    "add.s32 %r6, %r2, %r5;\n"
    "st.global.v4.u32 [%rd5], {%r6, %r4, 77, %r3};\n"
    /* pack r3 (low) and r4 (high) into a b64; unpack a b32 into two b16 */
    "mov.b64 %rd6, {%r3, %r4};\n"
    "st.global.u64 [%rd5+512], %rd6;\n"
    "mov.b32 {%h1, %h2}, %r2;\n"
    "cvt.u32.u16 %r7, %h2;\n"
    "st.global.u32 [%rd5+1024], %r7;\n"
    "ld.global.v2.f32 {%f1, %f2}, [%rd4+8];\n"
    "mov.b64 {%r8, _}, %rd6;\n"
    "st.global.u32 [%rd5+1028], %r8;\n"
    /* generic atomics on shared */
    "mov.u64 %rd7, cnt;\n"
    "cvta.shared.u64 %rd8, %rd7;\n"
    "atom.add.u32 %r9, [%rd8], 2;\n"
    "bar.sync 0;\n"
    "ld.shared.u32 %r10, [cnt];\n"
    "st.global.u32 [%rd5+1032], %r10;\n"
    "setp.lt.u32 %p1, %r1, 100;\n"
    "vote.sync.uni.pred %p2, %p1, -1;\n"
    "setp.lt.u32 %p3, %r1, 5;\n"
    "vote.sync.uni.pred %p4, %p3, -1;\n"
    "selp.u32 %r11, 1, 0, %p2;\n"
    "selp.u32 %r12, 2, 0, %p4;\n"
    "or.b32 %r11, %r11, %r12;\n"
    "match.all.sync.b32 %r13|%p5, %r11, -1;\n"
    "selp.u32 %r14, 4, 0, %p5;\n"
    "or.b32 %r11, %r11, %r14;\n"
    "st.global.u32 [%rd5+1036], %r11;\n"
    "st.global.u32 [%rd5+1540], %r13;\n"
    "ret;\n}\n";

static void test_vectors_pack_shared_atomics(void **state)
{
  struct ptx_module *m = parse_ok(k_vec);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t din, dout;
  uint32_t *in = alloc_ok(emu, 32 * 16, "in", &din);
  uint32_t *out = alloc_ok(emu, 32 * 16 * 4, "out", &dout);
  struct launch l = L1(1, 32);
  (void)state;
  for (uint32_t j = 0; j < 128; j++) in[j] = 0x10000 * j + j;
  arg64(&l, din);
  arg64(&l, dout);
  launch_ok(emu, m, "vec", &l, NULL, NULL);
  for (uint32_t t = 0; t < 32; t++) {
    const uint32_t *v = &in[4 * t];
    uint32_t *o = &out[4 * t];
    assert_int_equal(o[0], v[0] + v[3]);
    assert_int_equal(o[1], v[2]);
    assert_int_equal(o[2], 77);
    assert_int_equal(o[3], v[1]);
    /* {r3, r4}: r3 in the low word */
    assert_int_equal(o[128], v[1]);
    assert_int_equal(o[129], v[2]);
    /* high half of r2 */
    assert_int_equal(o[256], v[0] >> 16);
    assert_int_equal(o[257], v[1]);
    /* 32 lanes added 2 each */
    assert_int_equal(o[258], 64);
    /* uni(t < 100) = 1; uni(t < 5) = 0 (mixed); the value 1 is the same for all: +4 */
    assert_int_equal(o[259], 1 | 4);
    /* match.all: every lane's value equal: the mask of all lanes */
    assert_int_equal(o[385], 0xffffffffu);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* indirect calls through function addresses taken with mov (C++ virtual calls, function
 * pointers): p_sel = 0: block 0 calls inc1 (t + 1), block 1 dbl (2t); p_sel = 1: the
 * target differs within a warp (odd lanes), which is reported */
static const char *k_ind = PTX_HEADER
    ".func (.param .b32 r) inc1(.param .b32 x)\n"
    "{\n"
    ".reg .b32 %r<3>;\n"
    "ld.param.b32 %r1, [x];\n"
    "add.s32 %r2, %r1, 1;\n"
    "st.param.b32 [r], %r2;\n"
    "ret;\n"
    "}\n"
    ".func (.param .b32 r) dbl(.param .b32 x)\n"
    "{\n"
    ".reg .b32 %r<3>;\n"
    "ld.param.b32 %r1, [x];\n"
    "shl.b32 %r2, %r1, 1;\n"
    "st.param.b32 [r], %r2;\n"
    "ret;\n"
    "}\n"
    ".visible .entry ind(.param .u64 p_out, .param .u32 p_sel)\n"
    "{\n"
    ".reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %tid.x;\n"
    "mov.u32 %r2, %ctaid.x;\n"
    /* key = p_sel ? tid & 1 : ctaid; key == 0 calls inc1 */
    "ld.param.u32 %r7, [p_sel];\n"
    "and.b32 %r6, %r1, 1;\n"
    "setp.ne.u32 %p1, %r7, 0;\n"
    "selp.u32 %r6, %r6, %r2, %p1;\n"
    "setp.eq.u32 %p1, %r6, 0;\n"
    "mov.u64 %rd2, inc1;\n"
    "mov.u64 %rd3, dbl;\n"
    "selp.b64 %rd4, %rd2, %rd3, %p1;\n"
    "{\n"
    ".param .b32 a0;\n"
    "st.param.b32 [a0], %r1;\n"
    ".param .b32 rv;\n"
    "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "call (rv), %rd4, (a0), prototype_0;\n"
    "ld.param.b32 %r3, [rv];\n"
    "}\n"
    "mov.u32 %r4, %ntid.x;\n"
    "mad.lo.s32 %r5, %r2, %r4, %r1;\n"
    "mul.wide.u32 %rd5, %r5, 4;\n"
    "add.s64 %rd6, %rd1, %rd5;\n"
    "st.global.u32 [%rd6], %r3;\n"
    "ret;\n"
    "}\n"
    ;

static void test_indirect_call(void **state)
{
  struct ptx_module *m = parse_ok(k_ind);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d);
  struct launch l = L1(2, 32);
  (void)state;
  arg64(&l, d);
  arg32(&l, 0);
  launch_ok(emu, m, "ind", &l, NULL, NULL);
  for (uint32_t t = 0; t < 32; t++) {
    assert_int_equal(out[t], t + 1);
    assert_int_equal(out[32 + t], 2 * t);
  }
  l.vals[1] = 1;
  assert_int_equal(launch_run(emu, m, "ind", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "indirect call with different targets in one warp"));
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
      cmocka_unit_test(test_barrier_early_exit),
      cmocka_unit_test(test_calls),
      cmocka_unit_test(test_atomics),
      cmocka_unit_test(test_warp_ops),
      cmocka_unit_test(test_bar_red),
      cmocka_unit_test(test_ids_clock_exit),
      cmocka_unit_test(test_vectors_pack_shared_atomics),
      cmocka_unit_test(test_indirect_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
