/* coalcheck fix --transform redistribute: a thread's loop of consecutive loads reduced
 * into one value, spread over the 32 lanes of a warp (CGO 2015 Sec. 4.4, Algorithm 3).
 *
 * The rewrite itself is src/cuda's (cuda/redist.h: the loop's shape, the refusals, the
 * text). This file decides which loops are worth it from the measurement of the original
 * (a loop holding a global load with more sectors than the ideal), bounds the terms one
 * output sums (for the reassociation tolerance), says what the cost model predicts, and
 * proposes the two forms as candidates: the warp shuffle and the paper's shared memory.
 * xform.c compiles, emulates, compares and chooses. */
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

/* The cost model's prediction for the loops' global loads: measured before; after, one
 * request per 32 iterations of a virtual thread (thread accesses / 32) whose lanes read
 * consecutive elements: size_bytes sectors (32 lanes x size bytes / 32-byte sectors,
 * aligned) for an access with unit stride in the loop variable. */
static void predict(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                    const struct cc_cuda_redist *r, char *why, size_t size)
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
    sec_after += (s->thread_accesses + 31) / 32 * (s->info.size_bytes ? s->info.size_bytes : 1);
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
                     enum cc_cuda_redist_form f, char *what, size_t size)
{
  size_t n = 0;
  n += (size_t)snprintf(what, size, "the loop%s over", r->nloops > 1 ? "s" : "");
  for (uint32_t l = 0; l < r->nloops && n < size; l++)
    n += (size_t)snprintf(what + n, size - n, "%s %s at %s:%u", l ? "," : "", r->loops[l].var,
                          base_name(o->input), r->loops[l].line);
  if (n < size)
    snprintf(what + n, size - n, " spread over the 32 lanes of a warp (%s)",
             f == CC_CUDA_REDIST_SHUFFLE ? "warp shuffle" : "shared memory");
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

int cc_fix_redistribute(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        cc_fix_xcands *out, struct cc_err *err)
{
  const struct cc_kernel_stats *k;
  struct lines_ctx lc;
  struct cc_cuda_redist_in in;
  struct cc_cuda_redist r;
  int rc, integer = 1;
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
  in.param_values = before->param_values;
  in.param_known = before->param_known;
  in.nparams = before->nparams;
  in.uncoalesced = uncoalesced;
  in.ctx = &lc;
  if ((rc = cc_cuda_redistribute(&in, &r, err)) != CC_OK)
    return rc;
  for (uint32_t l = 0; l < r.nloops; l++)
    integer &= r.loops[l].integer;
  for (int f = 0; f < CC_CUDA_REDIST_NFORMS; f++) {
    struct cc_fix_xcand c;
    char note[256];
    memset(&c, 0, sizeof c);
    c.transform = "redistribute";
    describe(o, &r, (enum cc_cuda_redist_form)f, c.what, sizeof c.what);
    predict(o, k, &r, c.why, sizeof c.why);
    c.text = r.text[f];
    c.len = r.len[f];
    r.text[f] = NULL;
    memcpy(c.grid, r.grid, sizeof c.grid);
    memcpy(c.block, r.block, sizeof c.block);
    c.shared_bytes = 0; /* the shared form's array is static (r.shared_bytes[f]) */
    /* integer sums are exact in any order (modular arithmetic); floats are not */
    c.compare = integer ? CC_FIX_COMPARE_BITWISE : CC_FIX_COMPARE_REASSOCIATED;
    c.terms = terms_bound(o, k, &r);
    snprintf(note, sizeof note, "launch %s with grid (%u, 1, 1) and block (32, %u, 1): one "
             "warp per thread of the original launch", o->kernel_name, r.grid[0], r.block[1]);
    c.launch_note = cc_xstrdup(note);
    CC_VEC_PUSH(out, c);
  }
  cc_cuda_redist_release(&r);
  return CC_OK;
}
