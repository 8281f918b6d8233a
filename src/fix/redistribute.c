/* coalcheck fix --transform redistribute: a thread's loop of consecutive loads reduced
 * into one value, spread over the 32 lanes of a warp (CGO 2015 Sec. 4.4, Algorithm 3),
 * or over groups of V < 32 lanes for short loops (the sub-warp form).
 *
 * The rewrite itself is src/cuda's (cuda/redist.h: the loop's shape, the refusals, the
 * text). This file decides which loops are worth it from the measurement of the original
 * (a loop holding a global load with more sectors than the ideal), bounds the terms one
 * output sums (for the reassociation tolerance), says what the cost model predicts, picks
 * the lanes per thread V from the loop's measured trip count (the rule below), and
 * proposes the candidates: the warp shuffle and the paper's shared memory at V = 32 and
 * at the rule's V, the shuffle at the other V of 4, 8, 16 for short loops (alternates:
 * timed with --backend gpu). xform.c compiles, emulates, compares and chooses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "cuda/redist.h"
#include "fix/fix_impl.h"

/* Warps (virtual threads) per CTA of the fixed launch: 8 x 32 = 256 threads, the block
 * the examples use; any W in 1..32 is correct, 8 keeps CTAs small enough for every SM
 * to hold several. */
#define WARPS 8

/* The lanes-per-thread rule. A loop is short when it runs fewer than SHORT_TRIPS times
 * each time a thread enters it, on average (fewer than 2 iterations a lane of a whole
 * warp; a nested loop's runs are not summed, see loop_trips): rows of a few tens
 * of CSR nonzeros leave most of a warp idle after its first step, and the warp's prologue
 * and 5 shuffle steps serve one row. Then V is the power of two (2..16) nearest, by
 * ratio, to the average over LANE_TRIPS: about 4 iterations a lane, so that a lane has
 * loads to keep in flight (nvcc unrolls a loop of unknown trip count by 4), the group's
 * log2(V) shuffle steps and the prologue are shared by 32 / V threads, and a row shorter
 * than the average still fills most of its group. The emulator's sectors cannot make
 * this choice: they count 32-byte transfers, not idle lanes or latency, and a narrower
 * group reads the same bytes in more, smaller pieces. (Bell and Garland's CSR-vector
 * and LightSpMV choose the lanes per row from the mean row length in the same way.) */
#define SHORT_TRIPS 64.0
#define LANE_TRIPS 4.0

static const char *base_name(const char *path)
{
  const char *s = path ? strrchr(path, '/') : NULL;
  return s ? s + 1 : path ? path : "";
}

/* 1 when instruction s belongs to source lines [first, last] of the input (directly, or
 * inlined from a call written there). */
static int on_lines(const struct cc_fix_opts *o, const struct cc_insn_stats *s, uint32_t first,
                    uint32_t last)
{
  const char *in = base_name(o->input);
  if (s->info.file && strcmp(base_name(s->info.file), in) == 0 && s->info.line >= first &&
      s->info.line <= last)
    return 1;
  return s->info.inlined_file && strcmp(base_name(s->info.inlined_file), in) == 0 &&
         s->info.inlined_line >= first && s->info.inlined_line <= last;
}

static int global_load(const struct cc_insn_stats *s)
{
  return s->info.kind == CC_ACCESS_LOAD && s->info.space == CC_SPACE_GLOBAL;
}

struct lines_ctx {
  const struct cc_fix_opts *o;
  const struct cc_kernel_stats *k;
};

/* cc_cuda_redist_in.uncoalesced: a global load on the lines with sectors per request
 * above the ideal (excess sectors). */
static int uncoalesced(void *ctx, uint32_t first, uint32_t last)
{
  const struct lines_ctx *c = ctx;
  for (size_t i = 0; i < c->k->n_insns; i++) {
    const struct cc_insn_stats *s = &c->k->insns[i];
    if (global_load(s) && s->excess_sectors > 0 && on_lines(c->o, s, first, last))
      return 1;
  }
  return 0;
}

/* An upper bound on the terms of any one output the rewritten loops feed: 1 (the
 * target's value before the loop) plus, per loop, its trip count when its bounds are
 * constants or known parameters and it runs once per thread; otherwise the sum, over the
 * global loads on the loop's lines, of the most times one warp executed each (max_dyn of
 * the original run). That holds because each iteration makes at least one of those loads
 * (the loop holds the uncoalesced load that selected it, in straight-line code: the body
 * only declares and accumulates; nvcc's unrolled copies are summed), and a thread runs an
 * instruction at most as often as its warp; it is valid for bounds loaded from memory
 * (CSR's rowptr[i]..rowptr[i+1]: the longest row in a warp) and for loops nested in
 * others (every run of the loop counted). */
static uint64_t terms_bound(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                            const struct cc_cuda_redist *r)
{
  uint64_t terms = 1;
  for (uint32_t l = 0; l < r->nloops; l++) {
    const struct cc_cuda_redist_loop *lp = &r->loops[l];
    uint64_t execs = 0;
    if (lp->trips >= 0 && !lp->nested) {
      terms += (uint64_t)lp->trips;
      continue;
    }
    for (size_t i = 0; i < k->n_insns; i++)
      if (global_load(&k->insns[i]) && on_lines(o, &k->insns[i], lp->first_line, lp->last_line))
        execs += k->insns[i].max_dyn;
    terms += execs;
  }
  return terms;
}

/* The loops' average trip count per run of the original: for each loop, the thread
 * executions (active lanes summed) of the global loads on its lines, over its reads per
 * iteration (cc_cuda_redist_loop.reads; nvcc's unrolled copies of a load are separate
 * instructions on the same line, so they are summed), the launch's threads and the times
 * a thread enters the loop (cc_cuda_redist_loop.runs: 1, or the enclosing loops' trip
 * counts); the largest over the loops. V serves one run of the loop being spread, so a
 * loop of 34 iterations inside a loop of 5 is short (34), not 170 long. A nested loop
 * whose runs are not known takes its own trip count from its bounds when they are known,
 * else the average over all its runs (an overestimate, said in the rule's sentence). */
struct trips {
  double avg;                /* iterations a run of the loop */
  uint64_t execs, threads;   /* the loads' thread executions, the launch's threads */
  int64_t runs;              /* runs a thread; -1: not known */
  uint32_t reads, line;      /* the loop's reads per iteration and its line */
  int by_bounds;             /* 1: avg is the loop's trip count from its bounds */
};

/* The average trip count of loop lp per run (see struct trips), into *t. */
static void loop_trips(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                       const struct cc_cuda_redist_loop *lp, uint64_t threads, struct trips *t)
{
  uint64_t sum = 0;
  memset(t, 0, sizeof *t);
  for (size_t i = 0; i < k->n_insns; i++)
    if (global_load(&k->insns[i]) && on_lines(o, &k->insns[i], lp->first_line, lp->last_line))
      sum += k->insns[i].thread_accesses;
  t->execs = sum;
  t->threads = threads;
  t->reads = lp->reads ? lp->reads : 1;
  t->line = lp->line;
  t->runs = lp->nested ? lp->runs : 1;
  t->avg = (double)sum / (double)t->reads / (double)threads;
  if (t->runs > 0)
    t->avg /= (double)t->runs;
  else if (t->runs == 0 || lp->trips >= 0) {
    t->avg = (double)(lp->trips > 0 ? lp->trips : 0);
    t->by_bounds = 1;
  }
}

static void average_trips(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                          const struct cc_cuda_redist *r, struct trips *t)
{
  uint64_t threads = 1;
  memset(t, 0, sizeof *t);
  for (int d = 0; d < 3; d++)
    threads *= (uint64_t)o->grid[d] * o->block[d];
  for (uint32_t l = 0; l < r->nloops; l++) {
    struct trips lt;
    loop_trips(o, k, &r->loops[l], threads, &lt);
    if (l == 0 || lt.avg > t->avg)
      *t = lt;
  }
}

/* V by the rule above (32 when the loop is not short). */
static uint32_t rule_lanes(double avg)
{
  uint32_t v = 2;
  if (avg >= SHORT_TRIPS)
    return 32;
  /* nearest by ratio: move up while 2v is nearer to avg / LANE_TRIPS than v is */
  while (v < 16 && (double)v * (double)v * 2.0 < (avg / LANE_TRIPS) * (avg / LANE_TRIPS))
    v *= 2;
  return v;
}

/* The rule's sentence for why: the statistic, the threshold, the V chosen. */
static void rule_text(const struct cc_fix_opts *o, const struct trips *t, uint32_t v,
                      char *dst, size_t size)
{
  char stat[300], per[80] = "";
  if (t->runs > 1)
    cc_fix_setf(per, sizeof per, " / %lld runs a thread", (long long)t->runs);
  else if (t->runs < 0 && !t->by_bounds)
    cc_fix_setf(per, sizeof per, ", all its runs together: the enclosing loops' trip "
                "counts are not known");
  if (t->by_bounds)
    cc_fix_setf(stat, sizeof stat, "the loop at %s:%u runs %.1f times each time it is "
                "entered (its bounds)", base_name(o->input), t->line, t->avg);
  else
    cc_fix_setf(stat, sizeof stat, "the loop at %s:%u runs %.1f times %s on average "
                "(%llu thread executions of its global loads / %u a step / %llu threads%s)",
                base_name(o->input), t->line, t->avg, t->runs > 1 ? "each time a thread enters it" : "a thread",
                (unsigned long long)t->execs, t->reads, (unsigned long long)t->threads, per);
  if (v == 32)
    cc_fix_setf(dst, size, "V = 32 lanes a thread: %s, at least %.0f, so every lane of a "
                "warp has 2 or more iterations", stat, SHORT_TRIPS);
  else
    cc_fix_setf(dst, size, "V = %u lanes a thread by the rule: %s, under %.0f, so a warp "
                "of 32 lanes would idle; V = the power of two, 2..16, nearest to %.1f / %.0f "
                "(about %.0f iterations a lane)", v, stat, SHORT_TRIPS, t->avg, LANE_TRIPS,
                LANE_TRIPS);
}

/* The cost model's prediction for the loops' global loads: measured before; after, one
 * request per 32 thread accesses (32 / V groups of V lanes), each group reading V
 * consecutive elements: ceil(V x size bytes / 32) sectors (aligned) a group, for an
 * access with unit stride in the loop variable; V = 32: size_bytes sectors a request. */
static void predict(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                    const struct cc_cuda_redist *r, uint32_t lanes, char *why, size_t size)
{
  uint64_t req = 0, sec = 0, req_after = 0, sec_after = 0;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    int on = 0;
    for (uint32_t l = 0; l < r->nloops && !on; l++)
      on = on_lines(o, s, r->loops[l].first_line, r->loops[l].last_line);
    if (!on || !global_load(s))
      continue;
    req += s->requests;
    sec += s->sectors;
    req_after += (s->thread_accesses + 31) / 32;
    sec_after += (s->thread_accesses + lanes - 1) / lanes *
                 ((lanes * (s->info.size_bytes ? s->info.size_bytes : 1) + 31) / 32);
  }
  cc_fix_setf(why, size, "the loop's global loads: %.2f sectors per request measured (%llu "
              "sectors in %llu requests); with consecutive lanes on consecutive iterations "
              "the cost model predicts %.2f (about %llu sectors in %llu requests) for loads "
              "with unit stride in the loop variable",
              req ? (double)sec / (double)req : 0.0, (unsigned long long)sec,
              (unsigned long long)req, req_after ? (double)sec_after / (double)req_after : 0.0,
              (unsigned long long)sec_after, (unsigned long long)req_after);
}

/* "the loop over j at gemv.cu:22" or "the loops over j at gemv.cu:22, k at gemv.cu:30". */
static void describe(const struct cc_fix_opts *o, const struct cc_cuda_redist *r,
                     uint32_t lanes, enum cc_cuda_redist_form f, char *what, size_t size)
{
  size_t n = 0;
  n += (size_t)snprintf(what, size, "the loop%s over", r->nloops > 1 ? "s" : "");
  for (uint32_t l = 0; l < r->nloops && n < size; l++)
    n += (size_t)snprintf(what + n, size - n, "%s %s at %s:%u", l ? "," : "", r->loops[l].var,
                          base_name(o->input), r->loops[l].line);
  if (n < size && lanes == 32)
    snprintf(what + n, size - n, " spread over the 32 lanes of a warp (%s)",
             f == CC_CUDA_REDIST_SHUFFLE ? "warp shuffle" : "shared memory");
  else if (n < size)
    snprintf(what + n, size - n, " spread over %u lanes, %u threads a warp (%s)", lanes,
             32 / lanes, f == CC_CUDA_REDIST_SHUFFLE ? "warp shuffle" : "shared memory");
}

/* Refuses what observes warp membership in the kernel or a function it calls (the scan
 * of cuda.h): the fixed kernel's warps hold other threads. */
static int check_warp_level(const struct cc_fix_opts *o, struct cc_err *err)
{
  struct cc_cuda_scan scan;
  int rc = cc_cuda_scan_kernel(o->input, o->input_text, o->input_len, o->kernel_name,
                               o->clang_args, o->nclang_args, &scan, err);
  if (rc != CC_OK)
    return rc;
  for (uint32_t i = 0; i < scan.nsites && rc == CC_OK; i++) {
    const struct cc_cuda_hazard_site *s = &scan.sites[i];
    if (s->kind == CC_CUDA_WARP_INTRINSIC || s->kind == CC_CUDA_COOPERATIVE_GROUPS ||
        s->kind == CC_CUDA_ASM_LANE || s->kind == CC_CUDA_ASM_WARP)
      rc = cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: %s (%s) in kernel %s; a warp of the "
                      "fixed kernel plays one thread of the original, so warp-level "
                      "operations would see other lanes", s->file, s->line, s->column,
                      s->what, cc_cuda_hazard_name(s->kind), o->kernel_name);
  }
  cc_cuda_scan_release(&scan);
  return rc;
}

/* What every candidate of one rewrite shares. */
struct cands_ctx {
  const struct cc_fix_opts *o;
  const struct cc_kernel_stats *k;
  const char *rule;          /* the rule's sentence */
  uint64_t terms;
  int integer;
};

/* Appends r's forms (both, or the shuffle only) for V = lanes as candidates. */
static void push_forms(const struct cands_ctx *x, struct cc_cuda_redist *r, uint32_t lanes,
                       int both, int alternate, cc_fix_xcands *out)
{
  const struct cc_fix_opts *o = x->o;
  for (int f = 0; f < (both ? CC_CUDA_REDIST_NFORMS : 1); f++) {
    struct cc_fix_xcand c;
    char note[320];
    size_t n;
    memset(&c, 0, sizeof c);
    c.transform = "redistribute";
    c.alternate = alternate;
    describe(o, r, lanes, (enum cc_cuda_redist_form)f, c.what, sizeof c.what);
    predict(o, x->k, r, lanes, c.why, sizeof c.why);
    n = strlen(c.why);
    cc_fix_setf(c.why + n, sizeof c.why - n, "; %s", x->rule);
    c.text = r->text[f];
    c.len = r->len[f];
    r->text[f] = NULL;
    memcpy(c.grid, r->grid, sizeof c.grid);
    memcpy(c.block, r->block, sizeof c.block);
    c.shared_bytes = 0; /* the shared form's array is static (r->shared_bytes[f]) */
    /* integer sums are exact in any order (modular arithmetic); floats are not */
    c.compare = x->integer ? CC_FIX_COMPARE_BITWISE : CC_FIX_COMPARE_REASSOCIATED;
    c.terms = x->terms;
    if (lanes == 32)
      snprintf(note, sizeof note, "launch %s with grid (%u, 1, 1) and block (32, %u, 1): one "
               "warp per thread of the original launch", o->kernel_name, r->grid[0],
               r->block[1]);
    else
      snprintf(note, sizeof note, "launch %s with grid (%u, 1, 1) and block (32, %u, 1): %u "
               "lanes per thread of the original launch, %u threads a warp", o->kernel_name,
               r->grid[0], r->block[1], lanes, 32 / lanes);
    c.launch_note = cc_xstrdup(note);
    CC_VEC_PUSH(out, c);
  }
}

int cc_fix_redistribute(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        cc_fix_xcands *out, struct cc_err *err)
{
  static const uint32_t others[] = {16, 8, 4};
  const struct cc_kernel_stats *k;
  struct lines_ctx lc;
  struct cc_cuda_redist_in in;
  struct cc_cuda_redist r;
  struct cands_ctx x;
  struct trips t;
  char rule[600];
  size_t first = out->len;
  uint32_t v;
  int rc;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: redistributing a reduction over a warp "
                      "rewrites loops and needs the kernel's CUDA C source, not PTX",
                      o->input);
  if ((rc = check_warp_level(o, err)) != CC_OK)
    return rc;
  if (!(k = cc_fix_measure_kernel(before)))
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s was not measured: no global load "
                      "to coalesce", o->input, o->kernel_name);
  lc.o = o;
  lc.k = k;
  memset(&in, 0, sizeof in);
  in.path = o->input;
  in.text = o->input_text;
  in.len = o->input_len;
  in.kernel = o->kernel_name;
  in.extra_args = o->clang_args;
  in.nextra = o->nclang_args;
  memcpy(in.grid, o->grid, sizeof in.grid);
  memcpy(in.block, o->block, sizeof in.block);
  in.warps = WARPS;
  in.lanes = 32;
  in.param_values = before->param_values;
  in.param_known = before->param_known;
  in.nparams = before->nparams;
  in.uncoalesced = uncoalesced;
  in.ctx = &lc;
  if ((rc = cc_cuda_redistribute(&in, &r, err)) != CC_OK)
    return rc;
  x.o = o;
  x.k = k;
  x.rule = rule;
  x.integer = 1;
  for (uint32_t l = 0; l < r.nloops; l++)
    x.integer &= r.loops[l].integer;
  x.terms = terms_bound(o, k, &r);
  average_trips(o, k, &r, &t);
  v = rule_lanes(t.avg);
  rule_text(o, &t, v, rule, sizeof rule);
  push_forms(&x, &r, 32, 1, v != 32, out);
  cc_cuda_redist_release(&r);
  /* a short loop: the rule's V (both forms), then the shuffle at the other V */
  for (int i = -1; v != 32 && i < (int)(sizeof others / sizeof others[0]); i++) {
    in.lanes = i < 0 ? v : others[i];
    if (i >= 0 && in.lanes == v)
      continue;
    if ((rc = cc_cuda_redistribute(&in, &r, err)) != CC_OK) {
      while (out->len > first) /* all of this kernel's candidates, or none */
        cc_fix_xcand_release(&out->data[--out->len]);
      return rc;
    }
    push_forms(&x, &r, in.lanes, i < 0, i >= 0, out);
    cc_cuda_redist_release(&r);
  }
  return CC_OK;
}
