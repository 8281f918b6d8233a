/* Emulator: barrier semantics with exited threads and split warps (PTX ISA 9.0, "bar,
 * barrier" and "exit"; src/emu/README.md, section Barriers):
 * - a barrier without a thread count waits for the warps that still have a non-exited
 *   thread; a warp whose last thread exits releases a barrier it alone held up;
 * - a barrier "causes executing thread to wait for all non-exited threads from its warp":
 *   lanes that reach it while others of their warp are elsewhere wait (are parked) until
 *   the others exit or arrive at the same instruction; then the warp counts as arrived;
 * - a barrier with a thread count b waits for b/32 warp arrivals whatever exited;
 * - lanes of one warp at two barriers, lanes that cannot reach their warp's barrier, and
 *   warps that can never all arrive are CC_ERR_KERNEL errors, never a hang.
 * Every expected value is derived by hand in the comment above its check. */
#include "emu/harness.h"

/* Common prologue (13 lines with the 3 of PTX_HEADER, so the body starts at line 14):
 * %rd3 = &out[tid.x], %r9 = tid.x, %r20 = p_n, %r21 = p_x, %r13 = address of s[0] */
#define PRO(name)                                                                       \
  PTX_HEADER                                                                            \
  ".visible .entry " name "(.param .u64 p_out, .param .u64 p_in, .param .u32 p_n, "     \
  ".param .u32 p_x)\n"                                                      /* 4 */     \
  "{\n"                                                                     /* 5 */     \
  ".reg .pred %p<8>; .reg .b32 %r<40>; .reg .b64 %rd<16>;\n"                /* 6 */     \
  ".shared .align 4 .b8 s[512];\n"                                          /* 7 */     \
  "ld.param.u64 %rd1, [p_out];\n"                                           /* 8 */     \
  "cvta.to.global.u64 %rd1, %rd1;\n"                                        /* 9 */     \
  "mov.u32 %r9, %tid.x;\n"                                                  /* 10 */    \
  "mul.wide.u32 %rd2, %r9, 4;\n"                                            /* 11 */    \
  "add.s64 %rd3, %rd1, %rd2;\n"                                             /* 12 */    \
  "ld.param.u32 %r20, [p_n]; ld.param.u32 %r21, [p_x]; mov.u32 %r13, s;\n" /* 13 */

/* launch of one block of bx threads with out, in, n, x */
static struct launch L4(uint32_t bx, uint64_t out, uint64_t in, uint32_t n, uint32_t x)
{
  struct launch l = L1(1, bx);
  arg64(&l, out);
  arg64(&l, in);
  arg32(&l, n);
  arg32(&l, x);
  return l;
}

/* ---- a warp that exits early releases the barrier ---------------------------------- */

/* The warp p_n returns at once; every other thread t writes s[t] = t*t, waits at
 * bar.sync 0, then reads its partner's word: out[t] = s[t ^ p_x]. */
static const char *k_exitwarp = PRO("exitwarp")
    "shr.u32 %r10, %r9, 5;\n"
    "setp.eq.u32 %p1, %r10, %r20;\n"
    "@%p1 bra $L_end;\n"
    "mul.lo.u32 %r11, %r9, %r9;\n"
    "shl.b32 %r12, %r9, 2;\n"
    "add.s32 %r14, %r13, %r12;\n"
    "st.shared.u32 [%r14], %r11;\n"
    "bar.sync 0;\n"
    "xor.b32 %r15, %r9, %r21;\n"
    "shl.b32 %r16, %r15, 2;\n"
    "add.s32 %r17, %r13, %r16;\n"
    "ld.shared.u32 %r18, [%r17];\n"
    "st.global.u32 [%rd3], %r18;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_exit_releases_barrier(void **state)
{
  struct ptx_module *m = parse_ok(k_exitwarp);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 96 * 4, "out", &d);
  struct launch l;
  (void)state;
  /* 96 threads = warps 0, 1, 2. Warp 1 exits: warp 0 arrives (1 of the 3 live warps),
   * warp 1's exit leaves 2 live warps (1 arrived: still closed), warp 2 arrives (2 of
   * 2: open). Partners t ^ 64 pair warp 0 with warp 2: out[t] = (t ^ 64)^2; warp 1's
   * words keep the 7 written here. */
  for (uint32_t t = 0; t < 96; t++) out[t] = 7;
  l = L4(96, d, 0, 1, 64);
  launch_ok(emu, m, "exitwarp", &l, NULL, NULL);
  for (uint32_t t = 0; t < 96; t++)
    assert_int_equal(out[t], t / 32 == 1 ? 7 : (t ^ 64) * (t ^ 64));
  /* Warp 2 exits: warps 0 and 1 arrive (2 of 3 live), then warp 2's exit leaves 2 live
   * warps, both arrived: the exit opens the barrier. Partners t ^ 32 pair warps 0 and 1;
   * out[64..95] keep 7. */
  for (uint32_t t = 0; t < 96; t++) out[t] = 7;
  l = L4(96, d, 0, 2, 32);
  launch_ok(emu, m, "exitwarp", &l, NULL, NULL);
  for (uint32_t t = 0; t < 96; t++)
    assert_int_equal(out[t], t / 32 == 2 ? 7 : (t ^ 32) * (t ^ 32));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* ---- `if (i >= n) return; ...; __syncthreads();` with n not a multiple of 32 -------- */

/* nvcc's shape: threads t >= n branch forward to ret; the others store s[t] = 10 in[t],
 * bar.sync 0, then out[t] = s[(t + 1) % n] (a neighbour of the other warp for t = 31). */
static const char *k_partial = PRO("partial")
    "setp.ge.u32 %p1, %r9, %r20;\n"
    "@%p1 bra $L_end;\n"
    "ld.param.u64 %rd5, [p_in];\n"
    "cvta.to.global.u64 %rd5, %rd5;\n"
    "add.s64 %rd6, %rd5, %rd2;\n"
    "ld.global.u32 %r10, [%rd6];\n"
    "mul.lo.u32 %r11, %r10, 10;\n"
    "shl.b32 %r12, %r9, 2;\n"
    "add.s32 %r14, %r13, %r12;\n"
    "st.shared.u32 [%r14], %r11;\n"
    "bar.sync 0;\n"
    "add.u32 %r15, %r9, 1;\n"
    "rem.u32 %r15, %r15, %r20;\n"
    "shl.b32 %r16, %r15, 2;\n"
    "add.s32 %r17, %r13, %r16;\n"
    "ld.shared.u32 %r18, [%r17];\n"
    "st.global.u32 [%rd3], %r18;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_partial_warp_return(void **state)
{
  struct ptx_module *m = parse_ok(k_partial);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct rec_sink rs;
  uint64_t dout, din;
  uint32_t *out = alloc_ok(emu, 48 * 4, "out", &dout);
  uint32_t *in = alloc_ok(emu, 48 * 4, "in", &din);
  struct launch l = L4(48, dout, din, 40, 0);
  /* records in emission order: (warp, space, kind, active mask) */
  static const struct {
    uint32_t warp;
    enum cc_space space;
    enum cc_access_kind kind;
    uint32_t active;
  } want[] = {
      /* Block of 48: warp 0 = t 0..31 (all < 40), warp 1 = t 32..47 (present 0xffff),
       * of which t 32..39 = lanes 0..7 (0x00ff) stay and lanes 8..15 return.
       * Warp 0 runs first (round-robin) up to bar.sync and waits (1 of 2 warps). */
      {0, CC_SPACE_GLOBAL, CC_ACCESS_LOAD, 0xffffffffu},
      {0, CC_SPACE_SHARED, CC_ACCESS_STORE, 0xffffffffu},
      /* Warp 1: lanes 0..7 fall through (lower PC than the branch target), load, store,
       * and park at bar.sync; lanes 8..15 then run ret and exit; the warp's non-exited
       * lanes are all parked: it arrives (2 of 2) and the barrier opens. */
      {1, CC_SPACE_GLOBAL, CC_ACCESS_LOAD, 0x000000ffu},
      {1, CC_SPACE_SHARED, CC_ACCESS_STORE, 0x000000ffu},
      /* next round: warp 0 from the barrier to ret, whole warp; then warp 1 with the
       * parked lanes only (0x00ff), back together after the barrier */
      {0, CC_SPACE_SHARED, CC_ACCESS_LOAD, 0xffffffffu},
      {0, CC_SPACE_GLOBAL, CC_ACCESS_STORE, 0xffffffffu},
      {1, CC_SPACE_SHARED, CC_ACCESS_LOAD, 0x000000ffu},
      {1, CC_SPACE_GLOBAL, CC_ACCESS_STORE, 0x000000ffu},
  };
  (void)state;
  for (uint32_t t = 0; t < 48; t++) {
    in[t] = 3 * t + 1;
    out[t] = 99;
  }
  rec_init(&rs);
  launch_ok(emu, m, "partial", &l, &rs.sink, NULL);
  /* out[t] = s[(t + 1) % 40] = 10 in[(t + 1) % 40] = 10 (3 ((t + 1) % 40) + 1) for t < 40
   * (t = 31 reads s[32], written by warp 1 before the barrier opened; t = 39 reads s[0]);
   * out[40..47] keep 99 */
  for (uint32_t t = 0; t < 48; t++)
    assert_int_equal(out[t], t < 40 ? 10 * (3 * ((t + 1) % 40) + 1) : 99);
  assert_int_equal(rs.n, sizeof want / sizeof want[0]);
  for (size_t j = 0; j < rs.n; j++) {
    const struct cc_warp_access *a = &rs.recs[j];
    assert_int_equal(a->warp, want[j].warp);
    assert_int_equal(a->space, want[j].space);
    assert_int_equal(rs.insns[a->insn_slot].kind, want[j].kind);
    assert_int_equal(a->active, want[j].active);
  }
  rec_release(&rs);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* ---- bar.red over the lanes that arrived -------------------------------------------- */

/* threads t >= p_n return; the others: popc(t % 3 == 0) at barrier 0, and(t < n) and
 * and(t < 39) at barrier 1, or(t >= 39) at barrier 2;
 * out[t] = popc + 100 and1 + 1000 and2 + 10000 or */
static const char *k_redexit = PRO("redexit")
    "setp.ge.u32 %p7, %r9, %r20;\n"
    "@%p7 bra $L_end;\n"
    "rem.u32 %r4, %r9, 3;\n"
    "setp.eq.u32 %p1, %r4, 0;\n"
    "bar.red.popc.u32 %r5, 0, %p1;\n"
    "setp.lt.u32 %p2, %r9, %r20;\n"
    "bar.red.and.pred %p3, 1, %p2;\n"
    "setp.lt.u32 %p4, %r9, 39;\n"
    "bar.red.and.pred %p5, 1, %p4;\n"
    "bar.red.or.pred %p6, 2, !%p4;\n"
    "selp.u32 %r6, 100, 0, %p3;\n"
    "selp.u32 %r7, 1000, 0, %p5;\n"
    "selp.u32 %r8, 10000, 0, %p6;\n"
    "add.s32 %r5, %r5, %r6;\n"
    "add.s32 %r5, %r5, %r7;\n"
    "add.s32 %r5, %r5, %r8;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_bar_red_exited_lanes(void **state)
{
  struct ptx_module *m = parse_ok(k_redexit);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d);
  struct launch l;
  (void)state;
  /* n = 40 in a block of 64: warp 1 keeps lanes 0..7 (t 32..39). Over t = 0..39:
   * popc(t % 3 == 0) = |{0, 3, ..., 39}| = 14; and(t < 40) = 1 (+100; the exited t >= 40
   * do not count as false); and(t < 39) = 0 (t = 39); or(t >= 39) = 1 (+10000) */
  for (uint32_t t = 0; t < 64; t++) out[t] = 5;
  l = L4(64, d, 0, 40, 0);
  launch_ok(emu, m, "redexit", &l, NULL, NULL);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], t < 40 ? 14 + 100 + 10000 : 5);
  /* n = 20: warp 1 exits whole (its exit opens each barrier), warp 0 keeps lanes 0..19.
   * Over t = 0..19: popc = |{0, 3, ..., 18}| = 7; and(t < 20) = 1 (+100); and(t < 39) = 1
   * (+1000); or(t >= 39) = 0 */
  for (uint32_t t = 0; t < 64; t++) out[t] = 5;
  l = L4(64, d, 0, 20, 0);
  launch_ok(emu, m, "redexit", &l, NULL, NULL);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], t < 20 ? 7 + 100 + 1000 : 5);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* ---- lanes that reach the barrier late, by a backward branch ------------------------- */

/* odd lanes branch forward to $L_later, set r11 = 1000 and branch back to the barrier;
 * the even lanes (lower PC) reach it first and are parked; after it every lane stores
 * popc(activemask) + r11 */
static const char *k_join = PRO("join")
    "and.b32 %r10, %r9, 1;\n"
    "setp.eq.u32 %p1, %r10, 1;\n"
    "mov.u32 %r11, 0;\n"
    "@%p1 bra $L_later;\n"
    "$L_bar:\n"
    "bar.sync 0;\n"
    "activemask.b32 %r12;\n"
    "popc.b32 %r14, %r12;\n"
    "add.s32 %r14, %r14, %r11;\n"
    "st.global.u32 [%rd3], %r14;\n"
    "bra.uni $L_end;\n"
    "$L_later:\n"
    "mov.u32 %r11, 1000;\n"
    "bra.uni $L_bar;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_late_lanes_join(void **state)
{
  struct ptx_module *m = parse_ok(k_join);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct rec_sink rs;
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d);
  struct launch l = L4(64, d, 0, 0, 0);
  (void)state;
  rec_init(&rs);
  launch_ok(emu, m, "join", &l, &rs.sink, NULL);
  /* the odd lanes join the parked even lanes at the same bar.sync: the whole warp goes
   * on together, activemask = 0xffffffff (popc 32): out[t] = 32 (+1000 for odd t) */
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], 32 + (t & 1 ? 1000 : 0));
  /* one store per warp, after the barrier, by all 32 lanes */
  assert_int_equal(rs.n, 2);
  assert_int_equal(rs.recs[0].active, 0xffffffffu);
  assert_int_equal(rs.recs[1].active, 0xffffffffu);
  rec_release(&rs);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* ---- a guarded barrier; bar.arrive by part of a warp -------------------------------- */

/* @%p1 bar.sync 0 with p1 = (t < 8): lanes 8..31 do not execute it and go on to exit;
 * every lane stores its activemask after the barrier */
static const char *k_guarded = PRO("guarded")
    "setp.lt.u32 %p1, %r9, 8;\n"
    "@%p1 bar.sync 0;\n"
    "activemask.b32 %r10;\n"
    "st.global.u32 [%rd3], %r10;\n"
    "ret;\n}\n";

/* warp 0 consumes: bar.sync 1, 64, then out[t] = s[t] for t < 20; warp 1 produces:
 * its lanes 20..31 (t >= 52) return, lanes 0..19 store s[t - 32] = t + 500 and
 * bar.arrive 1, 64 (no wait), then return */
static const char *k_arrive = PRO("arrive")
    "setp.lt.u32 %p1, %r9, 32;\n"
    "@%p1 bra $L_cons;\n"
    "setp.ge.u32 %p2, %r9, 52;\n"
    "@%p2 bra $L_end;\n"
    "sub.u32 %r10, %r9, 32;\n"
    "shl.b32 %r12, %r10, 2;\n"
    "add.s32 %r14, %r13, %r12;\n"
    "add.u32 %r11, %r9, 500;\n"
    "st.shared.u32 [%r14], %r11;\n"
    "bar.arrive 1, 64;\n"
    "bra.uni $L_end;\n"
    "$L_cons:\n"
    "bar.sync 1, 64;\n"
    "setp.ge.u32 %p3, %r9, 20;\n"
    "@%p3 bra $L_end;\n"
    "shl.b32 %r12, %r9, 2;\n"
    "add.s32 %r14, %r13, %r12;\n"
    "ld.shared.u32 %r18, [%r14];\n"
    "st.global.u32 [%rd3], %r18;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_guard_and_arrive(void **state)
{
  struct ptx_module *m = parse_ok(k_guarded), *m2 = parse_ok(k_arrive);
  struct cc_emu *emu = cc_emu_new(m, NULL), *emu2 = cc_emu_new(m2, NULL);
  struct rec_sink rs;
  uint64_t d, d2;
  uint32_t *out = alloc_ok(emu, 32 * 4, "out", &d);
  uint32_t *out2 = alloc_ok(emu2, 64 * 4, "out", &d2);
  struct launch l = L4(32, d, 0, 0, 0), l2 = L4(64, d2, 0, 0, 0);
  (void)state;
  rec_init(&rs);
  launch_ok(emu, m, "guarded", &l, &rs.sink, NULL);
  /* lanes 0..7 are parked; lanes 8..31 store with activemask 0xffffff00 and exit; the
   * warp's non-exited lanes are then all parked: it arrives (1 of 1 warp), yields, and
   * lanes 0..7 store with activemask 0x000000ff */
  for (uint32_t t = 0; t < 32; t++) assert_int_equal(out[t], t < 8 ? 0xffu : 0xffffff00u);
  assert_int_equal(rs.n, 2);
  assert_int_equal(rs.recs[0].active, 0xffffff00u);
  assert_int_equal(rs.recs[1].active, 0x000000ffu);
  rec_release(&rs);
  /* warp 0 waits at barrier 1 (1 of 64/32 = 2 arrivals); warp 1's lanes 0..19 park at
   * bar.arrive, its lanes 20..31 exit, the warp arrives (2 of 2: warp 0 released) and
   * goes on without waiting; warp 0 then reads warp 1's words: out[t] = t + 32 + 500 for
   * t < 20, 9 elsewhere */
  for (uint32_t t = 0; t < 64; t++) out2[t] = 9;
  launch_ok(emu2, m2, "arrive", &l2, NULL, NULL);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out2[t], t < 20 ? t + 532 : 9);
  cc_emu_free(emu);
  cc_emu_free(emu2);
  ptx_module_free(m);
  ptx_module_free(m2);
}

/* ---- a barrier with a thread count ------------------------------------------------- */

/* threads t >= p_n return; the others: bar.sync 1, 64 (line 16), out[t] = t + 1 */
static const char *k_counted = PRO("counted")
    "setp.ge.u32 %p1, %r9, %r20;\n"   /* 14 */
    "@%p1 bra $L_end;\n"              /* 15 */
    "bar.sync 1, 64;\n"               /* 16 */
    "add.u32 %r10, %r9, 1;\n"
    "st.global.u32 [%rd3], %r10;\n"
    "$L_end:\n"
    "ret;\n}\n";

static void test_counted_barrier(void **state)
{
  struct ptx_module *m = parse_ok(k_counted);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 64 * 4, "out", &d);
  struct launch l = L4(64, d, 0, 40, 0);
  (void)state;
  /* n = 40: warp 0 arrives (1 of 64/32 = 2); warp 1's lanes 0..7 arrive, lanes 8..31
   * exit: warp 1 counts as one arrival (2 of 2), the barrier opens: out[t] = t + 1 for
   * t < 40, 0 (alloc's zero fill) above */
  launch_ok(emu, m, "counted", &l, NULL, NULL);
  for (uint32_t t = 0; t < 64; t++) assert_int_equal(out[t], t < 40 ? t + 1 : 0);
  /* n = 32: warp 1 exits whole; a counted barrier is not released by exits (the ISA's
   * exit rule names barriers for all threads only): warp 0 waits for 2 arrivals forever */
  l = L4(64, d, 0, 32, 0);
  assert_int_equal(launch_run(emu, m, "counted", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "barrier deadlock in kernel counted, block (0,0,0): 1 warps "
                                "wait at barrier 1 (PTX line 16), which expects 2 warps "
                                "(a thread count); 1 warps exited"));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* ---- errors: two barriers, one warp or two ----------------------------------------- */

/* threads t < p_n: bar.sync 0 (line 16); the others: bar.sync 1 (line 19) */
static const char *k_halves = PRO("halves")
    "setp.ge.u32 %p1, %r9, %r20;\n"   /* 14 */
    "@%p1 bra $L_b;\n"                /* 15 */
    "bar.sync 0;\n"                   /* 16 */
    "bra.uni $L_end;\n"               /* 17 */
    "$L_b:\n"                         /* 18 */
    "bar.sync 1;\n"                   /* 19 */
    "$L_end:\n"
    "ret;\n}\n";

static void test_deadlock_halves(void **state)
{
  struct ptx_module *m = parse_ok(k_halves);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  struct launch l = L4(64, 0, 0, 32, 0);
  (void)state;
  /* block of 64, n = 32: warp 0 waits at barrier 0 and warp 1 at barrier 1, each for
   * both live warps; neither can fill and no warp exited */
  assert_int_equal(launch_run(emu, m, "halves", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "barrier deadlock in kernel halves, block (0,0,0): 1 warps "
                                "wait at barrier 0 (PTX line 16), which expects 2 warps; 1 "
                                "warps wait at barrier 1 (PTX line 19), which expects 2 "
                                "warps; 0 warps exited"));
  /* block of 32, n = 16: lanes 0..15 (lower PC) are parked at line 16, then lanes 16..31
   * reach line 19: one warp at two barriers */
  l = L4(32, 0, 0, 16, 0);
  assert_int_equal(launch_run(emu, m, "halves", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "threads of one warp wait at different barriers: lanes "
                                "0x0000ffff at PTX line 16 (barrier 0), lanes 0xffff0000 here"));
  assert_true(contains(err.msg, "in warp 0 of block (0,0,0): kernel halves, PTX line 19 "
                                "'bar.sync"));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* lanes t < 16 call g, which waits at bar.sync 0 (line 6); lanes 16..31 wait in the
 * kernel after the call: they cannot reach g's barrier while g's frame is open */
static const char *k_callee = PTX_HEADER
    ".func g()\n"                                                    /* 4 */
    "{\n"                                                            /* 5 */
    "bar.sync 0;\n"                                                  /* 6 */
    "ret;\n"
    "}\n"
    ".visible .entry callee()\n"
    "{\n"
    ".reg .pred %p<2>; .reg .b32 %r<4>;\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.lt.u32 %p1, %r1, 16;\n"
    "@%p1 call g;\n"
    "ret;\n"
    "}\n";

static void test_barrier_in_divergent_call(void **state)
{
  struct ptx_module *m = parse_ok(k_callee);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  struct launch l = L1(1, 32);
  (void)state;
  assert_int_equal(launch_run(emu, m, "callee", &l, NULL, NULL, &err), CC_ERR_KERNEL);
  assert_true(contains(err.msg, "lanes 0x0000ffff of a warp wait at a barrier in g while its "
                                "other non-exited lanes 0xffff0000 are outside that call and "
                                "cannot reach it"));
  assert_true(contains(err.msg, "in warp 0 of block (0,0,0): kernel callee, PTX line 6 "
                                "'bar.sync"));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* lanes t < 16 reach bar.sync 0 (line 16) and are parked; lanes 16..31 spin at line 19
 * for ever: the instruction budget stops the run (no hang) */
static const char *k_spin = PRO("spin")
    "setp.ge.u32 %p1, %r9, 16;\n"    /* 14 */
    "@%p1 bra $L_spin;\n"            /* 15 */
    "bar.sync 0;\n"                  /* 16 */
    "bra.uni $L_end;\n"              /* 17 */
    "$L_spin:\n"                     /* 18 */
    "bra.uni $L_spin;\n"             /* 19 */
    "$L_end:\n"
    "ret;\n}\n";

static void test_parked_lanes_budget(void **state)
{
  struct ptx_module *m = parse_ok(k_spin);
  struct cc_emu_opts o = {.max_warp_insns = 1000};
  struct cc_emu *emu = cc_emu_new(m, &o);
  struct cc_err err;
  struct launch l = L4(32, 0, 0, 0, 0);
  (void)state;
  /* 1000 warp instructions run (8 of the prologue, setp, bra, bar.sync, then the spin);
   * the 1001st, a bra.uni of the spinning lanes, hits the budget */
  assert_int_equal(launch_run(emu, m, "spin", &l, NULL, NULL, &err), CC_ERR_LIMIT);
  assert_true(contains(err.msg, "instruction budget exhausted after 1000 warp instructions in "
                                "warp 0 of block (0,0,0) at kernel spin, PTX line 19 "
                                "'bra.uni"));
  cc_emu_free(emu);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exit_releases_barrier),
      cmocka_unit_test(test_partial_warp_return),
      cmocka_unit_test(test_bar_red_exited_lanes),
      cmocka_unit_test(test_late_lanes_join),
      cmocka_unit_test(test_guard_and_arrive),
      cmocka_unit_test(test_counted_barrier),
      cmocka_unit_test(test_deadlock_halves),
      cmocka_unit_test(test_barrier_in_divergent_call),
      cmocka_unit_test(test_parked_lanes_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
