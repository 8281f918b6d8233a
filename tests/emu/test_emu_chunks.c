/* Emulator: the parallel run's chunks (src/emu/par.c; src/emu/README.md "Parallel CTAs"):
 * workers claim runs of consecutive CTAs, one lock and one wake-up per run.
 * - thousands of tiny CTAs at 3 and 4 threads: the serial run's records in its order,
 *   with the default buffer budget and with a 1-byte one (the oldest chunk delivers its
 *   records itself), the serial counters, and far fewer claims than CTAs;
 * - a CTA failing in the middle of a chunk: the serial run's error, records and counters
 *   (nothing of a later CTA reaches the sink), also when a later CTA fails too;
 * - a CTA that runs out of its default budget in the middle of a chunk: the error counts
 *   the warp instructions of every CTA before it, those of its own chunk included
 *   (hook_insns_before), as the serial run does.
 * Every expected count is derived by hand in the comment above its check. */
#include "emu/harness.h"

/* CTA c (one warp) stores c to out[32 c + tid], and c % 3 to the same word when
 * c % 3 != 0; CTAs bad and bad2 store 2^20 words further (past out's end); CTA spin
 * loops forever. The path of an ordinary CTA executes 22 warp instructions: 4 ld.param,
 * cvta, 2 mov, setp, the untaken @bra, mad, 2 setp, or, selp, add, mul.wide, add, rem,
 * st, setp, the second st (issued when predicated off too) and ret. */
static const char *k_tiny = PTX_HEADER
    ".visible .entry tiny(.param .u64 p_out, .param .u32 p_bad, .param .u32 p_bad2,\n"
    "                     .param .u32 p_spin)\n"
    "{\n"
    ".reg .pred %p<5>; .reg .b32 %r<12>; .reg .b64 %rd<6>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "ld.param.u32 %r6, [p_bad];\n"
    "ld.param.u32 %r7, [p_spin];\n"
    "ld.param.u32 %r9, [p_bad2];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %ctaid.x;\n"
    "mov.u32 %r2, %tid.x;\n"
    "setp.eq.u32 %p2, %r1, %r7;\n"
    "@%p2 bra $L_spin;\n"
    "mad.lo.u32 %r3, %r1, 32, %r2;\n"
    "setp.eq.u32 %p3, %r1, %r6;\n"
    "setp.eq.u32 %p4, %r1, %r9;\n"
    "or.pred %p3, %p3, %p4;\n"
    "selp.u32 %r8, 1048576, 0, %p3;\n"
    "add.u32 %r3, %r3, %r8;\n"
    "mul.wide.u32 %rd2, %r3, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "rem.u32 %r4, %r1, 3;\n"
    "st.global.u32 [%rd3], %r1;\n"
    "setp.ne.u32 %p1, %r4, 0;\n"
    "@%p1 st.global.u32 [%rd3], %r4;\n"
    "ret;\n"
    "$L_spin:\n"
    "bra $L_spin;\n"
    "}\n";

#define NONE UINT32_MAX /* no CTA has that number */

/* One run of tiny over nctas CTAs of 32 threads with jobs threads and buffer budget bytes
 * (0: the default); bad, bad2 and spin as in the kernel. Returns the run's status; the
 * records in rs (NULL: no sink), the counters in st, the error in err, the output buffer
 * in out_copy (nctas x 32 words; NULL: not kept). */
static int run_tiny(uint32_t nctas, uint32_t jobs, uint64_t budget, uint32_t bad,
                    uint32_t bad2, uint32_t spin, struct rec_sink *rs, struct cc_emu_stats *st,
                    struct cc_err *err, uint32_t *out_copy)
{
  struct ptx_module *m = parse_ok(k_tiny);
  struct cc_emu_opts o = {.jobs = jobs, .buffer_bytes = budget};
  struct cc_emu *emu = cc_emu_new(m, &o);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, (uint64_t)nctas * 32 * 4, "out", &d);
  struct launch l = L1(nctas, 32);
  int s;
  arg64(&l, d);
  arg32(&l, bad);
  arg32(&l, bad2);
  arg32(&l, spin);
  if (rs) rec_init(rs);
  s = launch_run(emu, m, "tiny", &l, rs ? &rs->sink : NULL, st, err);
  if (out_copy) memcpy(out_copy, out, (size_t)nctas * 32 * 4);
  cc_emu_free(emu);
  ptx_module_free(m);
  return s;
}

/* Fails unless a and b hold the same records, byte for byte, in the same order. */
static void same_records(const struct rec_sink *a, const struct rec_sink *b, uint32_t jobs)
{
  assert_int_equal(a->n, b->n);
  for (size_t j = 0; j < a->n; j++)
    if (memcmp(&a->recs[j], &b->recs[j], sizeof a->recs[j]) != 0) {
      print_error("jobs %u: record %zu differs (block %u vs %u)\n", jobs, j, a->recs[j].cta[0],
                  b->recs[j].cta[0]);
      fail();
    }
}

/* Fails unless a parallel run that failed (records par, NULL: no sink; counters sj, error
 * ej) ended as the serial one (serial, s1, e1): the same error, records and counters. */
static void same_failure(const struct rec_sink *serial, const struct cc_emu_stats *s1,
                         const struct cc_err *e1, const struct rec_sink *par,
                         const struct cc_emu_stats *sj, const struct cc_err *ej, uint32_t jobs)
{
  assert_string_equal(ej->msg, e1->msg);
  if (par) {
    same_records(serial, par, jobs);
    assert_int_equal(sj->warp_accesses, s1->warp_accesses);
  }
  assert_int_equal(sj->ctas_done, s1->ctas_done);
  assert_int_equal(sj->warp_insns, s1->warp_insns);
}

static void test_many_tiny_ctas(void **state)
{
  enum { N = 4000 };
  static uint32_t out1[N * 32], outj[N * 32];
  /* the default; 1 byte: all but the oldest chunk wait; 256 KiB: chunks of several CTAs
   * whose buffers outgrow it (below) */
  const uint64_t budgets[] = {0, 1, UINT64_C(256) << 10};
  struct rec_sink serial, par;
  struct cc_emu_stats s1, sj;
  struct cc_err err;
  (void)state;
  assert_int_equal(run_tiny(N, 1, 0, NONE, NONE, NONE, &serial, &s1, &err, out1), CC_OK);
  /* one record per CTA, a second one where c % 3 != 0: c = 0, 3, ..., 3999 are 1334 CTAs
   * with one, so 4000 + (4000 - 1334) = 6666 records; 22 warp instructions per CTA */
  assert_int_equal(serial.n, 6666);
  assert_int_equal(s1.warp_insns, 22 * N);
  assert_int_equal(s1.ctas_done, N);
  for (uint32_t jobs = 3; jobs <= 4; jobs++)
    for (size_t b = 0; b < 3; b++) {
      assert_int_equal(run_tiny(N, jobs, budgets[b], NONE, NONE, NONE, &par, &sj, &err, outj), CC_OK);
      assert_int_equal(sj.jobs, jobs);
      same_records(&serial, &par, jobs);
      assert_int_equal(sj.warp_insns, s1.warp_insns);
      assert_int_equal(sj.thread_insns, s1.thread_insns);
      assert_int_equal(sj.warp_accesses, s1.warp_accesses);
      assert_int_equal(sj.ctas_done, N);
      assert_memory_equal(outj, out1, sizeof out1);
      /* claims: at most jobs (4) single CTAs before a first chunk ends; then
       * left / (4 jobs) (guided) while that exceeds 2048 / 22 = 93 CTAs (left >= 1488 at
       * 4 threads): 4000 -> 1488 at 15/16 a claim, ln(4000 / 1488) / ln(16/15) < 16
       * chunks; then 93 CTAs a chunk while the rest allows (left / (2 jobs) >= 93, down to
       * 744 CTAs left): (1488 - 744) / 93 = 8 chunks; then each chunk takes about 1/8 of
       * what is left, 744 -> 8 in about ln(93) / ln(8/7) < 35 chunks, and at most 7 single
       * ones: about 4 + 16 + 8 + 35 + 7 = 70 (100 allowed), where one CTA a claim would
       * make 4000. With the 1-byte budget no record may wait in a chunk's
       * buffer: one CTA a claim (chunk_size) */
      if (budgets[b] == 1 && sj.chunks != N) {
        print_error("jobs %u budget 1: %u claims for %u CTAs\n", jobs, (unsigned)sj.chunks, N);
        fail();
      }
      /* 256 KiB over the window's 4 x jobs slots: 16,384 bytes a slot at 4 threads. A
       * record of 32 lanes is a 304-byte entry (48 of fields, 8 a lane), a CTA 6666 x 304
       * / 4000 = 507 bytes (rounded up), so 16,384 / 507 = 32 CTAs a chunk (21,845 bytes,
       * 43 CTAs at 3 threads); each slot's first buffer is 64 full entries, 19,456 bytes,
       * then doubles: 16 x 19,456 > 256 KiB, so chunks wait for room and the oldest
       * delivers straight to the sink. Claims: about 4000 / 32 = 125, and the shrinking
       * tail: under 400 */
      if (budgets[b] > 1 && sj.chunks >= 400) {
        print_error("jobs %u budget 256 KiB: %u claims\n", jobs, (unsigned)sj.chunks);
        fail();
      }
      if (!budgets[b] && sj.chunks >= 100) {
        print_error("jobs %u budget %u: %u claims for %u CTAs\n", jobs, (unsigned)budgets[b],
                    (unsigned)sj.chunks, N);
        fail();
      }
      rec_release(&par);
    }
  /* CTA 3998 (3998 % 3 = 2) leaves 2 in out[32 x 3998]; CTA 3999 (% 3 = 0) leaves 3999 */
  assert_int_equal(out1[32 * 3998], 2);
  assert_int_equal(out1[32 * 3999], 3999);
  rec_release(&serial);
}

static void test_failing_cta_in_chunk(void **state)
{
  enum { N = 4000, BAD = 2501 };
  struct rec_sink serial, par;
  struct cc_emu_stats s1, sj;
  struct cc_err e1, ej;
  (void)state;
  assert_int_equal(run_tiny(N, 1, 0, BAD, NONE, NONE, &serial, &s1, &e1, NULL), CC_ERR_MEMCHECK);
  /* CTA 2501's first store faults before any record: CTAs 0 .. 2500 deliver theirs,
   * 2501 + (2501 - 834) = 4168 records (c = 0, 3, ..., 2499: 834 CTAs with one); they
   * ran 22 x 2501 warp instructions, and CTA 2501 19, its faulting st included */
  assert_int_equal(serial.n, 4168);
  assert_true(contains(e1.msg, "in block (2501,0,0)"));
  assert_int_equal(s1.ctas_done, BAD);
  assert_int_equal(s1.warp_insns, 22 * 2501 + 19);
  /* a second failing CTA, in the same chunk or a later one, may fail first in time: the
   * run still stops at CTA 2501 with its error */
  for (size_t k = 0; k < 3; k++) {
    const uint32_t bad2[] = {NONE, BAD + 1, 3100};
    for (uint32_t jobs = 3; jobs <= 4; jobs++)
      for (uint64_t budget = 0; budget <= 1; budget++) {
        assert_int_equal(run_tiny(N, jobs, budget, BAD, bad2[k], NONE, &par, &sj, &ej, NULL),
                         CC_ERR_MEMCHECK);
        same_failure(&serial, &s1, &e1, &par, &sj, &ej, jobs);
        rec_release(&par);
      }
  }
  rec_release(&serial);
}

/* The budget's message counts the warp instructions before the CTA that ran out: the
 * worker learns those of the chunks before its own from the merger, and adds those of
 * the CTAs of its chunk it ran before this one. */
static void test_budget_in_chunk(void **state)
{
  enum { N = 3000, SPIN = 1700 };
  struct rec_sink serial, par;
  struct cc_emu_stats s1, sj;
  struct cc_err e1, ej;
  char want[160];
  (void)state;
  assert_int_equal(run_tiny(N, 1, 0, NONE, NONE, SPIN, &serial, &s1, &e1, NULL), CC_ERR_LIMIT);
  /* CTAs 0 .. 1699 ran 22 warp instructions each, 37,400; CTA 1700 (32 threads) runs its
   * default budget of 2^26 warp instructions, 67,108,864: 67,146,264 in all */
  snprintf(want, sizeof want, "budget exhausted after %llu warp instructions in warp 0 of "
           "block (1700,0,0)", 22ULL * 1700 + (1ULL << 26));
  assert_true(contains(e1.msg, want));
  assert_int_equal(run_tiny(N, 3, 0, NONE, NONE, SPIN, &par, &sj, &ej, NULL), CC_ERR_LIMIT);
  same_failure(&serial, &s1, &e1, &par, &sj, &ej, 3);
  rec_release(&par);
  /* no sink: nothing ordered, the merger waits for batches of chunks, and the worker
   * waiting to be the oldest cuts them short */
  assert_int_equal(run_tiny(N, 3, 0, NONE, NONE, SPIN, NULL, &sj, &ej, NULL), CC_ERR_LIMIT);
  same_failure(&serial, &s1, &e1, NULL, &sj, &ej, 3);
  rec_release(&serial);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_many_tiny_ctas),
      cmocka_unit_test(test_failing_cta_in_chunk),
      cmocka_unit_test(test_budget_in_chunk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
