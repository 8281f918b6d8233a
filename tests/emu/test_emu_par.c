/* Emulator: CTAs on worker threads (opts.jobs, src/emu/README.md "Parallel CTAs").
 * - the sink receives the serial run's records in the serial run's order for 3 and 4
 *   threads, also when the buffer budget is tiny (the oldest CTA then delivers its records
 *   itself and the others wait): uneven CTAs, hand-counted records;
 * - a buffered record's addresses come back as they were (reversed, not affine, partial
 *   masks, 2 lanes, one address);
 * - order-free partials reduced in the workers' tree (combine) for 2, 4, 5, 7 and 16
 *   threads: jobs - 1 combines, one close, the serial counts;
 * - the producer's word to the ordered consumer (access.h, counted and ahead): every
 *   count it gives is the number of records of the CTAs before the one it names;
 * - records of buffered chunks taken again before delivery (access.h, recut): each
 *   serial record reaches the sink whole or as the re-cut gives it, in order;
 * - a sink that fails at record N stops the run with its status after the same N records;
 * - global atomics from many CTAs are exact (host atomics);
 * - a fence at GPU scope or a %clock read makes the run serial, saying why.
 * Every expected count is derived by hand in the comment above its check. */
#include "emu/harness.h"

/* out[ctaid * 64 + tid] = k for k = 0 .. ctaid % 5 - 1: CTA c runs c % 5 stores per warp */
static const char *k_uneven = PTX_HEADER
    ".visible .entry uneven(.param .u64 p_out)\n"
    "{\n"
    ".reg .pred %p<2>; .reg .b32 %r<10>; .reg .b64 %rd<6>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %ctaid.x;\n"
    "mov.u32 %r2, %tid.x;\n"
    "mad.lo.u32 %r3, %r1, 64, %r2;\n"
    "mul.wide.u32 %rd2, %r3, 4;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "rem.u32 %r4, %r1, 5;\n"
    "mov.u32 %r5, 0;\n"
    "$L_loop:\n"
    "setp.ge.u32 %p1, %r5, %r4;\n"
    "@%p1 bra $L_end;\n"
    "st.global.u32 [%rd3], %r5;\n"
    "add.u32 %r5, %r5, 1;\n"
    "bra $L_loop;\n"
    "$L_end:\n"
    "ret;\n}\n";

/* the records of a run of uneven with jobs threads and buffer budget bytes (0: default) */
static void run_uneven(uint32_t jobs, uint64_t budget, struct rec_sink *rs,
                       struct cc_emu_stats *st, uint32_t *out_copy)
{
  struct ptx_module *m = parse_ok(k_uneven);
  struct cc_emu_opts o = {.jobs = jobs, .buffer_bytes = budget};
  struct cc_emu *emu = cc_emu_new(m, &o);
  uint64_t d;
  uint32_t *out = alloc_ok(emu, 23 * 64 * 4, "out", &d);
  struct launch l = L1(23, 64);
  arg64(&l, d);
  rec_init(rs);
  launch_ok(emu, m, "uneven", &l, &rs->sink, st);
  memcpy(out_copy, out, 23 * 64 * 4);
  cc_emu_free(emu);
  ptx_module_free(m);
}

static void test_order_and_window(void **state)
{
  static uint32_t out1[23 * 64], outj[23 * 64];
  struct rec_sink serial, par;
  struct cc_emu_stats s1, sj;
  const uint64_t budgets[] = {0, 1}; /* the default, and 1 byte: every CTA but the oldest waits */
  (void)state;
  run_uneven(1, 0, &serial, &s1, out1);
  /* CTA c stores c % 5 times per warp, 2 warps: sum over c < 23 of c % 5 is 4 cycles of
   * 0+1+2+3+4 = 40, plus c = 20, 21, 22: 0+1+2 = 3; 43 x 2 = 86 records */
  assert_int_equal(serial.n, 86);
  assert_int_equal(s1.warp_accesses, 86);
  assert_int_equal(s1.jobs, 1);
  for (uint32_t jobs = 3; jobs <= 4; jobs++)
    for (size_t b = 0; b < 2; b++) {
      run_uneven(jobs, budgets[b], &par, &sj, outj);
      assert_int_equal(sj.jobs, jobs);
      assert_null(sj.serial_reason);
      assert_int_equal(par.n, serial.n);
      for (size_t j = 0; j < serial.n; j++) {
        /* the whole record, addresses and dynamic instance included */
        if (memcmp(&par.recs[j], &serial.recs[j], sizeof par.recs[j]) != 0) {
          print_error("jobs %u budget %u: record %zu differs (block %u vs %u)\n", jobs,
                      (unsigned)budgets[b], j, par.recs[j].cta[0], serial.recs[j].cta[0]);
          fail();
        }
      }
      assert_int_equal(sj.warp_insns, s1.warp_insns);
      assert_int_equal(sj.thread_insns, s1.thread_insns);
      assert_int_equal(sj.ctas_done, 23);
      assert_memory_equal(outj, out1, sizeof out1);
      rec_release(&par);
    }
  /* the last value CTA 22 (22 % 5 = 2 stores) leaves in out[22 * 64] is 1 */
  assert_int_equal(out1[22 * 64], 1);
  rec_release(&serial);
}

/* ---- entries: a buffered record's addresses (par.c, pack and unpack) ---- */

/* Stores of 64-thread CTAs into their own 64 words of out (base = out + 256 ctaid) in
 * shapes of addresses and masks: reversed (lane l at base + 4 (63 - tid): a step down),
 * squares (base + 4 ((tid x tid) % 64): not affine), odd lanes only (a partial mask),
 * lanes 0 and 1 of each warp, one address for all lanes. (Session 16 tried storing
 * affine lanes as a first address and a step: bench/results/scale-2026-11-29-s16.md.) */
static const char *k_shapes = PTX_HEADER
    ".visible .entry shapes(.param .u64 p_out)\n"
    "{\n"
    ".reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<12>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %ctaid.x;\n"
    "mov.u32 %r2, %tid.x;\n"
    "mul.wide.u32 %rd2, %r1, 256;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"          /* base */
    "mov.u32 %r3, 63;\n"
    "sub.u32 %r4, %r3, %r2;\n"
    "mul.wide.u32 %rd4, %r4, 4;\n"
    "add.s64 %rd5, %rd3, %rd4;\n"
    "st.global.u32 [%rd5], %r2;\n"         /* reversed */
    "mul.lo.u32 %r5, %r2, %r2;\n"
    "rem.u32 %r6, %r5, 64;\n"
    "mul.wide.u32 %rd6, %r6, 4;\n"
    "add.s64 %rd7, %rd3, %rd6;\n"
    "st.global.u32 [%rd7], %r2;\n"         /* squares */
    "mul.wide.u32 %rd8, %r2, 4;\n"
    "add.s64 %rd9, %rd3, %rd8;\n"
    "and.b32 %r7, %r2, 1;\n"
    "setp.eq.u32 %p1, %r7, 1;\n"
    "@%p1 st.global.u32 [%rd9], %r2;\n"    /* odd lanes */
    "and.b32 %r8, %r2, 31;\n"
    "setp.lt.u32 %p2, %r8, 2;\n"
    "@%p2 st.global.u32 [%rd9], %r2;\n"    /* lanes 0 and 1 */
    "st.global.u32 [%rd3], %r2;\n"         /* one address */
    "ret;\n}\n";

/* shapes (23 CTAs of 64 threads: 2 warps, 5 stores each, 230 records) on 3 and 4
 * threads and the default budget gives the sink the serial run's records byte for byte
 * (inactive lanes' addresses 0, the cut field 0): each shape's entry read back as the
 * record it was written from. */
static void test_entry_shapes(void **state)
{
  struct rec_sink serial, par;
  struct ptx_module *m = parse_ok(k_shapes);
  (void)state;
  for (uint32_t jobs = 1; jobs <= 4; jobs += jobs == 1 ? 2 : 1) {
    struct cc_emu_opts o = {.jobs = jobs};
    struct cc_emu *emu = cc_emu_new(m, &o);
    struct cc_emu_stats st;
    struct rec_sink *rs = jobs == 1 ? &serial : &par;
    uint64_t d;
    struct launch l = L1(23, 64);
    alloc_ok(emu, 23 * 256, "out", &d);
    arg64(&l, d);
    rec_init(rs);
    launch_ok(emu, m, "shapes", &l, &rs->sink, &st);
    assert_int_equal(st.jobs, jobs);
    cc_emu_free(emu);
    assert_int_equal(rs->n, 230);
    if (jobs == 1)
      continue;
    for (size_t j = 0; j < serial.n; j++)
      if (memcmp(&par.recs[j], &serial.recs[j], sizeof par.recs[j]) != 0) {
        print_error("jobs %u: record %zu (block %u warp %u slot %u) differs\n", jobs, j,
                    serial.recs[j].cta[0], serial.recs[j].warp, serial.recs[j].insn_slot);
        fail();
      }
    rec_release(&par);
  }
  /* the odd lanes' store: every other lane; lanes 0 and 1's: two */
  assert_int_equal(serial.recs[2].active, 0xaaaaaaaau);
  assert_int_equal(serial.recs[3].active, 0x3u);
  rec_release(&serial);
  ptx_module_free(m);
}

/* ---- the partials reduced in a tree (par.c, reduce) ---- */

/* Order-free counts of one worker: records and the sum of their dynamic instances. */
struct count_part {
  uint64_t n, dyn_sum;
};

/* The consumer: the merged counts, and how often each callback ran (combines run on the
 * workers: atomics). */
struct counts {
  uint64_t n, dyn_sum;
  uint32_t opens, closes, merged, combines;
};

static void *count_open(void *ctx)
{
  struct counts *c = ctx;
  c->opens++; /* on the calling thread */
  struct count_part *p = calloc(1, sizeof *p);
  assert_non_null(p);
  return p;
}

static int count_access(void *part, const struct cc_warp_access *a, struct cc_err *err)
{
  struct count_part *p = part;
  (void)err;
  p->n++;
  p->dyn_sum += a->dyn;
  return CC_OK;
}

static int count_close(void *ctx, void *part, int merge, struct cc_err *err)
{
  struct counts *c = ctx;
  struct count_part *p = part;
  (void)err;
  c->closes++;
  if (p && merge) {
    c->merged++;
    c->n += p->n;
    c->dyn_sum += p->dyn_sum;
  }
  free(p);
  return CC_OK;
}

static void count_combine(void *ctx, void *into, void *from)
{
  struct counts *c = ctx;
  struct count_part *d = into, *f = from;
  __atomic_fetch_add(&c->combines, 1, __ATOMIC_RELAXED);
  d->n += f->n;
  d->dyn_sum += f->dyn_sum;
  free(f);
}

/* uneven (23 CTAs) on jobs workers, buffer budget bytes (0: default), with partials pa
 * and the ordered sink (none: access NULL); checks that it ran on jobs threads. */
static void split_uneven(uint32_t jobs, uint64_t budget, struct cc_access_sink *sink,
                         struct cc_access_partials *pa)
{
  struct ptx_module *m = parse_ok(k_uneven);
  struct cc_emu_opts o = {.jobs = jobs, .buffer_bytes = budget};
  struct cc_emu *emu = cc_emu_new(m, &o);
  struct cc_emu_stats st;
  struct cc_err err = {0};
  uint64_t d;
  const void *pp[1] = {&d};
  uint32_t sizes[1] = {8};
  struct cc_emu_launch cl = {.grid = {23, 1, 1}, .block = {64, 1, 1}, .nparams = 1,
                             .params = pp, .param_bytes = sizes};
  alloc_ok(emu, 23 * 64 * 4, "out", &d);
  assert_int_equal(cc_emu_run_split(emu, ptx_module_find(m, "uneven"), &cl, sink, pa, &st,
                                    &err), CC_OK);
  assert_int_equal(st.jobs, jobs);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* uneven (23 CTAs) on jobs workers with counting partials, combine on or off. */
static void run_counts(uint32_t jobs, int combine, struct counts *c)
{
  struct cc_access_partials pa = {c,    count_open, count_access, count_close, NULL,
                                  combine ? count_combine : NULL, NULL, NULL, NULL, NULL};
  struct cc_access_sink none = {0};
  memset(c, 0, sizeof *c);
  split_uneven(jobs, 0, &none, &pa);
}

/* With combine, every worker's partial but worker 0's is combined into another exactly
 * once (jobs - 1 combines, whatever jobs: 5 and 7 leave workers without a partner at
 * some round) and the calling thread closes one partial holding all; without it, each is
 * closed. Records: 86 (test_order_and_window). Their dynamic instances: CTA c's 2 warps
 * store k = c % 5 times, dyn 0 .. k-1, 2 x k(k-1)/2 = k(k-1): per 5 CTAs 0+0+2+6+12 =
 * 20, 4 cycles 80, plus CTAs 20..22 (k = 0, 1, 2): 2; 82 in all. */
static void test_partials_tree(void **state)
{
  const uint32_t jobs[] = {2, 4, 5, 7, 16};
  struct counts c;
  (void)state;
  for (size_t i = 0; i < sizeof jobs / sizeof *jobs; i++) {
    for (int combine = 0; combine <= 1; combine++) {
      run_counts(jobs[i], combine, &c);
      assert_int_equal(c.n, 86);
      assert_int_equal(c.dyn_sum, 82);
      assert_int_equal(c.opens, jobs[i]);
      assert_int_equal(c.combines, combine ? jobs[i] - 1 : 0);
      /* the others are NULL after the tree: closed as nothing, merged never */
      assert_int_equal(c.merged, combine ? 1 : jobs[i]);
    }
  }
}

/* ---- the producer's word on what comes before a CTA (par.c, foresee) ---- */

/* A consumer whose ordered side takes every record whole and counts each one (access.h,
 * counted), and which keeps the producer's words (ahead: called under the producer's
 * lock, one at a time). */
struct ahead_log {
  struct counts c;
  uint64_t cta[64], before[64];
  uint32_t n;
};

static uint32_t whole_to_ordered(void *part, const struct cc_warp_access *a,
                                 const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  (void)part;
  out[0] = a;
  return 1;
}

/* count_part's records not yet counted: n minus what counted gave so far (dyn_sum, which
 * this test does not check, holds the records given) */
static uint64_t whole_counted(void *part)
{
  struct count_part *p = part;
  uint64_t n = p->n - p->dyn_sum;
  p->dyn_sum = p->n;
  return n;
}

static void log_ahead(void *ctx, uint64_t cta, uint64_t before)
{
  struct ahead_log *l = ctx;
  assert_true(l->n < 64);
  l->cta[l->n] = cta;
  l->before[l->n++] = before;
}

static int log_open_access(void *part, const struct cc_warp_access *a, struct cc_err *err)
{
  struct count_part *p = part;
  (void)a;
  (void)err;
  p->n++;
  return CC_OK;
}

static int none_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  (void)ctx;
  (void)a;
  (void)err;
  return CC_OK;
}

/* Records of uneven's CTAs before CTA cta: CTA c's 2 warps store c % 5 times each. */
static uint64_t uneven_before(uint64_t cta)
{
  uint64_t n = 0;
  for (uint64_t c = 0; c < cta; c++)
    n += 2 * (c % 5);
  return n;
}

/* uneven on 3, 4 and 7 threads (chunks of 1 CTA first, then more: par.c chunk_size), the
 * default budget and 1 byte: each word names a CTA past the last one and counts the
 * records before it (uneven_before, by hand: CTA c's 2 warps store c % 5 times), the
 * CTAs increase, and the last word names the end (23 CTAs, 86 records: every chunk done). */
static void test_ahead_counts(void **state)
{
  const uint64_t budgets[] = {0, 1};
  (void)state;
  for (uint32_t jobs = 3; jobs <= 7; jobs += jobs == 4 ? 3 : 1)
    for (size_t b = 0; b < 2; b++) {
      static struct ahead_log log;
      struct cc_access_partials pa = {&log.c,       count_open,    log_open_access, count_close,
                                      whole_to_ordered, count_combine, NULL,
                                      whole_counted, log_ahead, NULL};
      struct cc_access_sink sink = {NULL, NULL, none_access, NULL};
      memset(&log, 0, sizeof log); /* (ctx &log.c, its first field: log_ahead's too) */
      split_uneven(jobs, budgets[b], &sink, &pa);
      assert_true(log.n >= 1);
      for (uint32_t i = 0; i < log.n; i++) {
        assert_true(log.cta[i] >= 1 && log.cta[i] <= 23);
        assert_true(i == 0 || log.cta[i] > log.cta[i - 1]);
        assert_int_equal(log.before[i], uneven_before(log.cta[i]));
      }
      assert_int_equal(log.cta[log.n - 1], 23);
      assert_int_equal(log.before[log.n - 1], 86);
      assert_int_equal(log.c.n, 86);
    }
}

/* ---- records taken again before their delivery (par.c, recut) ---- */

/* A consumer whose ordered side gets every record whole at first (to_ordered) and, asked
 * again (recut), a record of CTA 1 or later cut to its lanes 0-15 (cut = 1), warp 1's
 * first store dropped, and warp 0's first store held back until the next record's or the
 * release: the shapes of the cache model's drops (a cut, a record counted away, a chain
 * held), each giving out no more records than it took. CTA 0 stays whole. */
struct recut_part {
  struct cc_warp_access held, cut;
  int holding;
};

static void *recut_open(void *ctx)
{
  (void)ctx;
  struct recut_part *p = calloc(1, sizeof *p);
  assert_non_null(p);
  return p;
}

static int recut_close(void *ctx, void *part, int merge, struct cc_err *err)
{
  (void)ctx;
  (void)merge;
  (void)err;
  free(part);
  return CC_OK;
}

static uint32_t recut_release(void *part, const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct recut_part *p = part;
  if (!p->holding)
    return 0;
  p->holding = 0;
  out[0] = &p->held;
  return 1;
}

static uint32_t recut_again(void *part, const struct cc_warp_access *a,
                            const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct recut_part *p = part;
  uint32_t n;
  if (!a) /* whether any may change: yes */
    return 0;
  if (a->cta[0] == 0) {
    assert_false(p->holding); /* (CTA 0 comes first in its chunk) */
    return CC_ACCESS_RECUT_SAME;
  }
  if (a->warp == 1 && a->dyn == 0)
    return 0;
  p->cut = *a;
  p->cut.active &= 0xffffu;
  p->cut.cut = 1;
  if (a->warp == 0 && a->dyn == 0 && !p->holding) {
    p->held = p->cut;
    p->holding = 1;
    return 0;
  }
  n = recut_release(part, out);
  out[n++] = &p->cut;
  return n;
}

/* to_ordered: whole, but a third store (dyn 2) of CTA 1 or later cut at once (lanes
 * 0-15), nothing held: a buffer then holds whole records, then cut ones, then whole ones
 * (the re-cut takes the first run alone and moves the rest down). */
static uint32_t recut_first(void *part, const struct cc_warp_access *a,
                            const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct recut_part *p = part;
  out[0] = a;
  if (a->dyn == 2 && a->cta[0]) {
    p->cut = *a;
    p->cut.active &= 0xffffu;
    p->cut.cut = 2; /* (the re-cut's are 1: the test counts those) */
    out[0] = &p->cut;
  }
  return 1;
}

/* Whether delivered record r is serial record s as the re-cut gives it (*cut 1: lanes
 * 0-15 of it, cut = 1), as recut_first gives it (cut = 2), or whole. */
static int recut_form(const struct cc_warp_access *r, const struct cc_warp_access *s, int *cut)
{
  if (r->cta[0] != s->cta[0] || r->warp != s->warp || r->dyn != s->dyn ||
      r->insn_slot != s->insn_slot)
    return 0;
  *cut = r->cut == 1;
  if (!r->cut)
    return memcmp(r, s, sizeof *r) == 0;
  if (r->cut > 2 || r->active != (s->active & 0xffffu))
    return 0;
  for (uint32_t l = 0; l < 16; l++)
    if (r->addr[l] != s->addr[l])
      return 0;
  return 1;
}

/* uneven on 3, 4 and 7 threads, the default budget: the ordered sink gets each record of
 * the serial run (test_order_and_window: 86), in its order, whole (its chunk was
 * delivered as it ran: the oldest) or as the re-cut gives it (a buffered chunk); the
 * stores left out are warp 1's first ones (dyn 0) of CTAs 1 and later, which the re-cut
 * drops, and only in chunks that were buffered. Runs repeat (at most 50) until one has
 * re-cut records: the chunks a run buffers depend on the threads' timing. */
static void test_recut(void **state)
{
  struct rec_sink serial, par;
  struct cc_emu_stats st;
  static uint32_t out[23 * 64];
  uint32_t cuts = 0;
  (void)state;
  run_uneven(1, 0, &serial, &st, out);
  assert_int_equal(serial.n, 86);
  for (uint32_t rep = 0; rep < 50 && !cuts; rep++)
    for (uint32_t jobs = 3; jobs <= 7; jobs += jobs == 4 ? 3 : 1) {
      struct cc_access_partials pa = {NULL,          recut_open,    none_access,
                                      recut_close,   recut_first,   NULL,
                                      recut_release, NULL,          NULL,
                                      recut_again};
      size_t i = 0;
      rec_init(&par);
      split_uneven(jobs, 0, &par.sink, &pa);
      for (size_t j = 0; j < par.n; j++, i++) {
        int cut = 0;
        /* records the re-cut drops: warp 1's first store, CTA 1 on */
        while (i < serial.n && !recut_form(&par.recs[j], &serial.recs[i], &cut) &&
               serial.recs[i].warp == 1 && serial.recs[i].dyn == 0 && serial.recs[i].cta[0])
          i++;
        if (i == serial.n || !recut_form(&par.recs[j], &serial.recs[i], &cut)) {
          print_error("jobs %u: delivered record %zu (block %u warp %u dyn %u) is no form "
                      "of the serial run's next\n", jobs, j, par.recs[j].cta[0],
                      par.recs[j].warp, (unsigned)par.recs[j].dyn);
          fail();
        }
        cuts += (uint32_t)cut;
      }
      for (; i < serial.n; i++) /* the rest: dropped ones only */
        assert_true(serial.recs[i].warp == 1 && serial.recs[i].dyn == 0 &&
                    serial.recs[i].cta[0]);
      rec_release(&par);
    }
  assert_true(cuts > 0);
  rec_release(&serial);
}

/* A sink that fails at its limit-th record. */
struct failing {
  struct cc_access_sink sink;
  size_t n, limit;
};

static int failing_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct failing *f = ctx;
  (void)a;
  if (++f->n == f->limit) return cc_err_set(err, CC_ERR_LIMIT, "sink full at %zu", f->n);
  return CC_OK;
}

static void test_sink_error_stops(void **state)
{
  struct ptx_module *m = parse_ok(k_uneven);
  (void)state;
  for (uint32_t jobs = 1; jobs <= 4; jobs += 3) {
    struct cc_emu_opts o = {.jobs = jobs};
    struct cc_emu *emu = cc_emu_new(m, &o);
    struct failing f = {{0}, 0, 30};
    struct cc_err err;
    uint64_t d;
    struct launch l = L1(23, 64);
    alloc_ok(emu, 23 * 64 * 4, "out", &d);
    arg64(&l, d);
    f.sink = (struct cc_access_sink){&f, NULL, failing_access, NULL};
    /* record 30 fails: the sink saw exactly 30 records, and says so */
    assert_int_equal(launch_run(emu, m, "uneven", &l, &f.sink, NULL, &err), CC_ERR_LIMIT);
    assert_int_equal(f.n, 30);
    assert_true(contains(err.msg, "sink full at 30"));
    cc_emu_free(emu);
  }
  ptx_module_free(m);
}

/* every thread adds 1 to bins[0] and its ctaid to bins[1] (64-bit), with atom and red */
static const char *k_atomics = PTX_HEADER
    ".visible .entry atomics(.param .u64 p_bins)\n"
    "{\n"
    ".reg .b32 %r<4>; .reg .b64 %rd<6>;\n"
    "ld.param.u64 %rd1, [p_bins];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "mov.u32 %r1, %ctaid.x;\n"
    "cvt.u64.u32 %rd2, %r1;\n"
    "atom.global.add.u32 %r2, [%rd1], 1;\n"
    "red.global.add.u64 [%rd1+8], %rd2;\n"
    "ret;\n}\n";

static void test_atomics_exact(void **state)
{
  struct ptx_module *m = parse_ok(k_atomics);
  struct cc_emu_opts o = {.jobs = 4};
  struct cc_emu *emu = cc_emu_new(m, &o);
  struct cc_emu_stats st;
  uint64_t d;
  uint64_t *bins = alloc_ok(emu, 16, "bins", &d);
  struct launch l = L1(500, 256);
  (void)state;
  arg64(&l, d);
  launch_ok(emu, m, "atomics", &l, NULL, &st);
  assert_int_equal(st.jobs, 4);
  /* 500 x 256 = 128,000 adds of 1 in the low word; sum of ctaid over the threads:
   * 256 x (0 + ... + 499) = 256 x 124,750 = 31,936,000 */
  assert_int_equal((uint32_t)bins[0], 128000);
  assert_int_equal(bins[1], 31936000);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* a kernel with one extra instruction: out[tid] = ... ; EXTRA */
#define WITH(name, extra)                                                               \
  PTX_HEADER ".visible .entry " name "(.param .u64 p_out)\n{\n"                         \
  ".reg .b32 %r<4>; .reg .b64 %rd<6>; .shared .align 4 .b8 s[64];\n"                   \
  "ld.param.u64 %rd1, [p_out];\n" extra "ret;\n}\n"

static void test_serial_rules(void **state)
{
  static const struct {
    const char *ptx, *kernel, *why;
  } cases[] = {
      {WITH("fence", "membar.gl;\n"), "fence", "fence at GPU or system scope"},
      {WITH("fence_sys", "fence.sc.sys;\n"), "fence_sys", "fence at GPU or system scope"},
      {WITH("clk", "mov.u32 %r1, %clock;\n"), "clk", "reads %clock"},
      {WITH("flag", "ld.volatile.global.u32 %r1, [%rd1];\n"), "flag", ".volatile"},
      {WITH("acq", "ld.acquire.gpu.global.u32 %r1, [%rd1];\n"), "acq", ".acquire"},
      /* a fence inside the block and shared-memory volatile loads stay parallel */
      {WITH("cta", "membar.cta;\n"), "cta", NULL},
      {WITH("vsh", "mov.u64 %rd2, s;\nld.volatile.shared.u32 %r1, [%rd2];\n"), "vsh", NULL},
  };
  (void)state;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    struct ptx_module *m = parse_ok(cases[c].ptx);
    struct cc_emu_opts o = {.jobs = 4};
    struct cc_emu *emu = cc_emu_new(m, &o);
    struct cc_emu_stats st;
    uint64_t d;
    struct launch l = L1(8, 32);
    alloc_ok(emu, 64, "out", &d);
    arg64(&l, d);
    launch_ok(emu, m, cases[c].kernel, &l, NULL, &st);
    if (cases[c].why) {
      assert_int_equal(st.jobs, 1);
      assert_non_null(st.serial_reason);
      assert_true(contains(st.serial_reason, cases[c].why));
    } else {
      assert_int_equal(st.jobs, 4);
      assert_null(st.serial_reason);
    }
    cc_emu_free(emu);
    ptx_module_free(m);
  }
}

/* a launch-wide budget is spent in CTA order: serial; one CTA: nothing to share */
static void test_serial_budget_and_one_cta(void **state)
{
  struct ptx_module *m = parse_ok(k_uneven);
  struct cc_emu_opts o = {.max_warp_insns = UINT64_C(1) << 30, .jobs = 4};
  struct cc_emu *emu = cc_emu_new(m, &o);
  struct cc_emu_stats st;
  uint64_t d;
  struct launch l = L1(23, 64), one = L1(1, 64);
  (void)state;
  alloc_ok(emu, 23 * 64 * 4, "out", &d);
  arg64(&l, d);
  arg64(&one, d);
  launch_ok(emu, m, "uneven", &l, NULL, &st);
  assert_int_equal(st.jobs, 1);
  assert_true(contains(st.serial_reason, "--max-insns"));
  cc_emu_free(emu);
  o.max_warp_insns = 0;
  emu = cc_emu_new(m, &o);
  alloc_ok(emu, 23 * 64 * 4, "out", &d);
  launch_ok(emu, m, "uneven", &one, NULL, &st);
  assert_int_equal(st.jobs, 1);
  assert_null(st.serial_reason); /* nothing was given up */
  cc_emu_free(emu);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_order_and_window),
      cmocka_unit_test(test_entry_shapes),
      cmocka_unit_test(test_partials_tree),
      cmocka_unit_test(test_ahead_counts),
      cmocka_unit_test(test_recut),
      cmocka_unit_test(test_sink_error_stops),
      cmocka_unit_test(test_atomics_exact),
      cmocka_unit_test(test_serial_rules),
      cmocka_unit_test(test_serial_budget_and_one_cta),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
