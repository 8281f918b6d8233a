/* `coalcheck fix`, the thread-geometry permutation: measure, check legality, choose,
 * rewrite, verify, emit. See fix.h for the flow and fix_impl.h for the parts. */
#include "fix/fix.h"
#include "fix/fix_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/cache.h"
#include "cuda/cuda.h"
#include "cuda/plays.h"
#include "report/report.h"
#include "util/mem.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void progress(const struct cc_fix_opts *o, const char *fmt, ...)
{
  va_list ap;
  if (o->quiet)
    return;
  va_start(ap, fmt);
  fputs("coalcheck fix: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cc_fix_plan_release(struct cc_fix_plan *p)
{
  free(p->text);
  free(p->launch_note);
  cc_fix_measure_release(&p->before);
  cc_fix_measure_release(&p->after);
  cc_fix_measure_release(&p->absrun);
  for (size_t i = 0; i < p->x.len; i++)
    cc_fix_xcand_release(&p->x.data[i]);
  CC_VEC_FREE(&p->x);
  memset(p, 0, sizeof *p);
}


/* The file id of k's own source: that of its first .loc without inlined_at, or 0. */
static uint32_t own_file(const struct ptx_function *k)
{
  for (uint32_t i = 0; i < k->nlocs; i++)
    if (k->locs[i].inl_file == 0)
      return k->locs[i].file;
  return 0;
}

/* "FILE:LINE" of instruction i of f into buf: the user's line for code inlined from a
 * header (__shfl_down_sync of sm_30_intrinsics.hpp is placed where the kernel calls it),
 * following the inlined_at chain through the earlier .loc lines that name each call
 * site (PTX ISA, ".loc"); else the .loc's own line; else the PTX line. */
static void insn_place(const struct ptx_module *m, const struct ptx_function *f,
                       const struct ptx_function *k, uint32_t i, char *buf, size_t size)
{
  const struct ptx_loc *loc = ptx_insn_loc(f, i);
  uint32_t want = own_file(k), file = loc ? loc->file : 0, line = loc ? loc->line : 0;
  for (int hop = 0; loc && file != want && loc->inl_file && hop < 16; hop++) {
    const struct ptx_loc *next = NULL;
    file = loc->inl_file;
    line = loc->inl_line;
    for (uint32_t j = 0; j < f->nlocs && !next; j++) /* the .loc that names that call site */
      if (f->locs[j].file == file && f->locs[j].line == line && f->locs[j].inl_file)
        next = &f->locs[j];
    loc = next;
  }
  if (file && line && ptx_file_path(m, file))
    snprintf(buf, size, "%s:%u", ptx_file_path(m, file), line);
  else
    snprintf(buf, size, "%s:%u", m->path, f->insns[i].line);
}

/* The source side of legality (CUDA input): warpSize, lane and warp ids computed from
 * threadIdx, cooperative groups, volatile shared memory (cuda.h's cc_cuda_scan_kernel),
 * which the PTX does not show as such. */
static int check_legal_source(const struct cc_fix_opts *o, struct cc_fix_plan *p,
                              struct cc_err *err)
{
  struct cc_cuda_scan scan;
  int rc;
  if (!o->input_is_cuda)
    return CC_OK;
  if ((rc = cc_cuda_scan_kernel(o->input, o->input_text, o->input_len, o->kernel_name,
                                o->clang_args, o->nclang_args, &scan, err)) != CC_OK)
    return rc;
  /* A lane or warp id computed from threadIdx, or warpSize, keeps its value in every
   * thread (each thread computes what its counterpart did): a note, and the
   * verification judges. Warp-level operations, cooperative groups, inline asm on lanes
   * and volatile (warp-synchronous) memory observe which threads share a warp: refused. */
  for (uint32_t i = 0; i < scan.nsites && rc == CC_OK; i++) {
    const struct cc_cuda_hazard_site *h = &scan.sites[i];
    if (h->kind == CC_CUDA_LANE_ID || h->kind == CC_CUDA_WARP_SIZE) {
      if (!p->warp_note[0])
        snprintf(p->warp_note, sizeof p->warp_note, "%s:%u:%u: %s computes %s; each thread "
                 "keeps its value, but those threads no longer share a warp", h->file,
                 h->line, h->column, o->kernel_name, h->what);
      continue;
    }
    snprintf(p->reason, sizeof p->reason, "%s:%u:%u: %s uses %s, which depends on which "
             "threads share a warp; a thread-geometry permutation would change its result",
             h->file, h->line, h->column, o->kernel_name, h->what);
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  cc_cuda_scan_release(&scan);
  return rc;
}

/* Refuses kernels whose results could depend on warp membership (fix_impl.h), from the
 * source first (its places are the user's), then from the PTX. */
static int check_legal(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  const struct ptx_function *f;
  uint32_t insn;
  char what[96], where[256];
  int rc;
  if ((rc = check_legal_source(o, p, err)) != CC_OK)
    return rc;
  if (!cc_fix_warp_dependent(o->module, o->kernel, &f, &insn, what, sizeof what))
    return CC_OK;
  insn_place(o->module, f, o->kernel, insn, where, sizeof where);
  snprintf(p->reason, sizeof p->reason, "%s: %s uses %s, which depends on which threads share "
           "a warp; a thread-geometry permutation would change its result", where,
           o->kernel_name, what);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
}

/* Whether the CUDA input launches the kernel itself: its launch sites are rewritten by the
 * permutation alone, so a reshaped block could not be written back there. */
static int launches_itself(const struct cc_fix_opts *o, struct cc_fix_plan *p)
{
  static const int identity[3] = {0, 1, 2};
  struct cc_cuda_rewrite rw;
  struct cc_err ignored;
  int sites;
  if (!o->input_is_cuda)
    return 0;
  if (cc_cuda_permute(o->input, o->input_text, o->input_len, o->kernel_name, identity,
                      o->clang_args, o->nclang_args, &rw, &ignored) != CC_OK)
    return 0; /* the permutation's own rewrite reports the problem */
  sites = rw.nsites > 0;
  if (sites)
    snprintf(p->no_reshape, sizeof p->no_reshape, "%s launches %s itself (line %u): only a "
             "permutation of its launch is rewritten", o->input, o->kernel_name,
             rw.sites[0].line);
  cc_cuda_rewrite_release(&rw);
  return sites;
}

/* The original's dimension that becomes x under permutation c. */
static int new_x_dim(const struct cc_fix_candidate *c)
{
  int d = 0;
  while (d < 2 && c->perm.sigma[d] != 0)
    d++;
  return d;
}

/* Candidate c (reshaped, with plays along y) takes the vector plays instead where
 * cc_fix_vector_plan proves them legal: c->vec threads along x a thread, its block
 * narrowed by c->vec, the grid of the reshape (src/fix/README.md, "Vector plays"). */
static void vector_form(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                        struct cc_fix_candidate *c)
{
  struct cc_cuda_vclass *cls = NULL;
  size_t n = 0;
  uint32_t v;
  if (!cc_fix_vector_plan(o, &p->before, new_x_dim(c), c->block[0], &v, &cls, &n, c->vec_why,
                          sizeof c->vec_why))
    return;
  free(cls);
  c->vec = v;
  c->yplays = c->plays;
  c->grid[1] *= c->plays;
  c->plays = 1;
  c->block[0] /= v;
}

/* Undoes vector_form: c back to its plays along y (the rewrite refused the body). */
static void vector_undo(struct cc_fix_candidate *c)
{
  c->block[0] *= c->vec;
  c->plays = c->yplays;
  c->grid[1] /= c->plays;
  c->vec = 1;
}

/* The vector plays of candidate c over the permuted text into p->text; CC_ERR_NO_FIX with
 * the reason when the body is outside their class (the caller falls back). */
static int vector_text(const struct cc_fix_opts *o, const struct cc_fix_candidate *c,
                       const char *text, size_t len, struct cc_fix_plan *p, struct cc_err *err)
{
  const uint32_t b[3] = {c->block[0] * c->vec, c->block[1], c->block[2]};
  struct cc_cuda_vclass *cls = NULL;
  size_t n = 0;
  uint32_t v;
  char why[200];
  int rc, nvec = 0, nbc = 0;
  if (!cc_fix_vector_plan(o, &p->before, new_x_dim(c), b[0], &v, &cls, &n, why, sizeof why) ||
      v != c->vec)
    CC_BUG("the vector plays' plan changed between two calls: %s", why);
  rc = cc_cuda_plays_vector(o->input, text, len, o->kernel_name, v, b, c->grid, cls, n,
                            o->clang_args, o->nclang_args, &p->text, &p->len, err);
  for (size_t i = 0; i < n; i++) {
    nvec += cls[i].kind == CC_CUDA_V_VECTOR;
    nbc += cls[i].kind == CC_CUDA_V_BROADCAST;
  }
  free(cls);
  if (rc == CC_OK)
    snprintf(p->plays_form, sizeof p->plays_form, "vector: each thread plays %u consecutive "
             "threads along x with %u-byte loads and stores (%d statement-array pairs as "
             "vectors, %d broadcast) where the arrays' base addresses are aligned, else one "
             "after the other; the same sectors in %u times fewer requests", v,
             v * (unsigned)(16 / v), nvec, nbc, v);
  return rc;
}

/* Fills every candidate's permuted launch and model cost. */
static int model_costs(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  struct cc_affine_kernel *ak = NULL;
  struct cc_affine_env env;
  const struct cc_kernel_stats *before = cc_fix_measure_kernel(&p->before);
  double t0 = now();
  int rc;
  if ((rc = cc_affine_analyze(o->module, o->kernel, &ak, err)) != CC_OK)
    return rc;
  env.params = p->before.param_values;
  env.known = p->before.param_known;
  env.nparams = p->before.nparams;
  memcpy(env.ntid, o->block, sizeof env.ntid);
  memcpy(env.nctaid, o->grid, sizeof env.nctaid);
  p->ncands = cc_fix_reshape_legal(o->module, o->kernel, p->no_reshape, sizeof p->no_reshape) &&
              !launches_itself(o, p) ? 12 : 6;
  for (int i = 0; i < p->ncands; i++) {
    struct cc_fix_candidate *c = &p->cands[i];
    uint64_t unknown;
    c->perm = cc_fix_perms[i % 6];
    c->plays = 1;
    c->vec = 1;
    c->legal = cc_fix_perm_geometry(&c->perm, o->grid, o->block, c->grid, c->block, c->why,
                                    sizeof c->why);
    if (i >= 6) { /* the permuted launch regrouped into a block wide in x */
      uint32_t g[3], b[3];
      c->reshaped = 1;
      if (c->legal && cc_fix_reshape(c->grid, c->block, g, b)) {
        memcpy(c->grid, g, sizeof g);
        memcpy(c->block, b, sizeof b);
        /* the plays wrap CUDA C (src/cuda/plays.h); a PTX input keeps one a thread */
        c->plays = o->input_is_cuda ? cc_fix_plays(o->kernel, c->grid) : 1;
        c->grid[1] /= c->plays;
        if (c->plays > 1)
          vector_form(o, p, c);
      } else if (c->legal) {
        c->legal = 0;
        snprintf(c->why, sizeof c->why, "no other block shape covers the same indices");
      }
    }
    c->model_cost = cc_fix_model_sectors(ak, &env, before, &c->perm, o->block, c->block,
                                         &unknown);
    if (i == 0)
      p->unknown_requests = unknown;
  }
  cc_fix_static_notes(o, ak, &env, before, p);
  p->cands[0].measured = 1; /* the original, measured already */
  p->cands[0].sectors = before->totals.sectors;
  p->cands[0].excess_sectors = before->totals.excess_sectors;
  p->cands[0].wavefronts = before->totals.wavefronts;
  cc_affine_kernel_free(ak);
  p->model_seconds = now() - t0;
  return CC_OK;
}

/* The plays of candidate c over the permuted text into p->text: loads first where
 * cc_fix_loads_first_legal proves it legal, the body is of its class and keeps at most
 * CC_FIX_LOADS_FIRST_MAX_KEPT values a thread, else one after the other; p->plays_form
 * says which and why. */
static int plays_text(const struct cc_fix_opts *o, const struct cc_fix_candidate *c,
                      const char *text, size_t len, struct cc_fix_plan *p, struct cc_err *err)
{
  const uint32_t g[3] = {c->grid[0], c->grid[1] * c->plays, c->grid[2]};
  char why[sizeof p->plays_form - sizeof c->vec_why - 48] = "";
  int rc;
  if (cc_fix_loads_first_legal(o, &p->before, why, sizeof why)) {
    rc = cc_cuda_plays_loads_first(o->input, text, len, o->kernel_name, c->plays, 1, g,
                                   CC_FIX_LOADS_FIRST_MAX_KEPT, o->clang_args,
                                   o->nclang_args, &p->text, &p->len, err);
    if (rc == CC_OK) {
      snprintf(p->plays_form, sizeof p->plays_form, "loads first%s%s",
               c->vec_why[0] ? "; not vector: " : "", c->vec_why);
      return CC_OK;
    }
    if (rc != CC_ERR_NO_FIX)
      return rc;
    snprintf(why, sizeof why, "%.380s", err->msg);
    err->status = CC_OK, err->msg[0] = '\0';
  }
  snprintf(p->plays_form, sizeof p->plays_form, "one after the other: %s%s%s", why,
           c->vec_why[0] ? "; not vector: " : "", c->vec_why);
  return cc_cuda_plays(o->input, text, len, o->kernel_name, c->plays, 1, g, o->clang_args,
                       o->nclang_args, &p->text, &p->len, err);
}

/* The rewritten input for candidate c into p->text (and the launch note for CUDA). */
static int rewrite_input(const struct cc_fix_opts *o, struct cc_fix_candidate *c,
                         struct cc_fix_plan *p, struct cc_err *err)
{
  struct cc_cuda_rewrite rw;
  int rc;
  free(p->text);
  free(p->launch_note);
  p->text = NULL;
  p->launch_note = NULL;
  if (!o->input_is_cuda)
    return cc_fix_permute_ptx(o->input_text, o->input_len, o->module, o->kernel, &c->perm,
                              &p->text, &p->len, err);
  if ((rc = cc_cuda_permute(o->input, o->input_text, o->input_len, o->kernel_name,
                            c->perm.sigma, o->clang_args, o->nclang_args, &rw, err)) != CC_OK)
    return rc;
  if (c->vec > 1) { /* vector plays along x, or back to the plays along y */
    rc = vector_text(o, c, rw.text, rw.len, p, err);
    if (rc == CC_ERR_NO_FIX) {
      snprintf(c->vec_why, sizeof c->vec_why, "%.190s", err->msg);
      err->status = CC_OK, err->msg[0] = '\0';
      vector_undo(c);
    } else if (rc != CC_OK) {
      cc_cuda_rewrite_release(&rw);
      return rc;
    }
  }
  if (c->vec > 1) {
    /* written above */
  } else if (c->plays > 1) { /* each thread plays threads of the reshaped launch */
    rc = plays_text(o, c, rw.text, rw.len, p, err);
    if (rc != CC_OK) {
      cc_cuda_rewrite_release(&rw);
      return rc;
    }
  } else {
    p->text = rw.text;
    p->len = rw.len;
    rw.text = NULL;
  }
  if (c->reshaped) { /* launch sites were ruled out (launches_itself): say it exactly */
    char note[320];
    snprintf(note, sizeof note, "launch %s with grid (%u, %u, %u) and block (%u, %u, %u): "
             "the block is reshaped, not only permuted%s", o->kernel_name, c->grid[0],
             c->grid[1], c->grid[2], c->block[0], c->block[1], c->block[2],
             c->vec > 1 ? ", and each thread plays consecutive threads along x (vector plays)"
             : c->plays > 1 ? ", and each thread plays threads of blocks along y" : "");
    p->launch_note = cc_xstrdup(note);
  } else if (rw.caller_note) {
    p->launch_note = cc_xstrdup(rw.caller_note);
  } else {
    for (uint32_t i = 0; i < rw.nsites && !p->launch_note; i++)
      if (!rw.sites[i].rewritten && rw.sites[i].note)
        p->launch_note = cc_xstrdup(rw.sites[i].note);
  }
  cc_cuda_rewrite_release(&rw);
  return CC_OK;
}

/* Emulates p->text (the rewritten input) with candidate c's launch into *out. */
static int measure_rewritten(const struct cc_fix_opts *o, const struct cc_fix_candidate *c,
                             const struct cc_fix_plan *p, struct cc_fix_measure *out,
                             struct cc_err *err)
{
  struct ptx_module *m = NULL;
  const struct ptx_function *k;
  struct cc_fix_launch l = cc_fix_launch_make(o, c->grid, c->block, o->shared_bytes);
  char *ptx = NULL, *name;
  size_t len = 0;
  int rc;
  memset(out, 0, sizeof *out);
  if (o->input_is_cuda) {
    if ((rc = o->compiler.compile(o->compiler.ctx, o->input, p->text, p->len, &ptx, &len,
                                  err)) != CC_OK)
      return cc_err_prefix(err, "the rewritten kernel does not compile (a bug in coalcheck fix)");
  }
  name = cc_xmalloc(strlen(o->input) + 16);
  sprintf(name, "%s (fixed)", o->input);
  rc = ptx_parse(o->input_is_cuda ? ptx : p->text, o->input_is_cuda ? len : p->len, name, &m,
                 err);
  free(name);
  free(ptx);
  if (rc != CC_OK)
    return rc;
  if (!(k = ptx_module_find(m, o->kernel->name)))
    rc = cc_err_set(err, CC_ERR_INTERNAL, "the rewritten module has no kernel %s",
                    o->kernel->name);
  else
    rc = cc_fix_measure(m, k, &l, out, err);
  ptx_module_free(m);
  return rc;
}

/* Global excess sectors plus shared excess wavefronts: what a permutation must lower. */
static uint64_t excess(const struct cc_kernel_stats *k)
{
  return k->totals.excess_sectors + (k->totals.wavefronts - k->totals.ideal_wavefronts);
}

static int time_candidate(const struct cc_fix_opts *o, struct cc_fix_candidate *c,
                          const struct cc_fix_plan *p, struct cc_err *err);

/* Empirical strategy (Sec. 4.2.1): every legal candidate rewritten and emulated, and with
 * --backend gpu timed on the GPU too (time breaks ties of the sectors). */
static int measure_all(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  double t0 = now();
  for (int i = 1; i < p->ncands; i++) {
    struct cc_fix_candidate *c = &p->cands[i];
    struct cc_fix_measure m;
    int rc;
    if (!c->legal)
      continue;
    progress(o, "emulating candidate %s", cc_fix_perm_name(&c->perm));
    if ((rc = rewrite_input(o, c, p, err)) != CC_OK ||
        (rc = measure_rewritten(o, c, p, &m, err)) != CC_OK) {
      cc_fix_measure_release(&m);
      return rc;
    }
    c->measured = 1;
    c->sectors = cc_fix_measure_kernel(&m)->totals.sectors;
    c->excess_sectors = cc_fix_measure_kernel(&m)->totals.excess_sectors;
    c->wavefronts = cc_fix_measure_kernel(&m)->totals.wavefronts;
    cc_fix_measure_release(&m);
    if (o->timer && (rc = time_candidate(o, c, p, err)) != CC_OK)
      return rc;
  }
  p->empirical_seconds = now() - t0;
  return CC_OK;
}

/* The best candidate: by measured sectors + wavefronts, then GPU time (empirical; the
 * paper's Sec. 4.2.1 keeps the fastest), or by model cost; the identity wins ties, so a
 * choice is always a strict improvement of its criterion. */
static int choose(const struct cc_fix_opts *o, const struct cc_fix_plan *p)
{
  int best = 0;
  for (int i = 1; i < p->ncands; i++) {
    const struct cc_fix_candidate *c = &p->cands[i], *b = &p->cands[best];
    if (!c->legal)
      continue;
    uint64_t cc = c->sectors + c->wavefronts, bc = b->sectors + b->wavefronts;
    if (o->strategy == CC_FIX_STRATEGY_EMPIRICAL
            ? c->sectors <= p->cands[0].sectors &&
                  (cc < bc || (cc == bc && best > 0 && c->gpu_ms > 0 && c->gpu_ms < b->gpu_ms))
            : c->model_cost < b->model_cost * (1 - 1e-9))
      best = i;
  }
  return best;
}


/* The PTX of text (the input or its rewrite): as is, or compiled when it is CUDA C. */
static int ptx_of(const struct cc_fix_opts *o, const char *text, size_t len, char **ptx,
                  size_t *plen, struct cc_err *err)
{
  if (o->input_is_cuda)
    return o->compiler.compile(o->compiler.ctx, o->input, text, len, ptx, plen, err);
  *ptx = cc_xmalloc(len + 1);
  memcpy(*ptx, text, len);
  (*ptx)[len] = '\0';
  *plen = len;
  return CC_OK;
}

/* Times candidate c (p->text is its rewrite) on the GPU into c->gpu_ms. */
static int time_candidate(const struct cc_fix_opts *o, struct cc_fix_candidate *c,
                          const struct cc_fix_plan *p, struct cc_err *err)
{
  char *ptx = NULL;
  size_t len = 0;
  int runs, rc = ptx_of(o, p->text, p->len, &ptx, &len, err);
  if (rc == CC_OK)
    rc = o->timer->time(o->timer->ctx, ptx, len, o->kernel->name, c->grid, c->block,
                        o->shared_bytes, o->args, o->nargs, &c->gpu_ms, &runs, err);
  free(ptx);
  return rc;
}

/* Verifies the chosen fix: bitwise equal buffers, fewer excess sectors. */
static int verify(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  struct cc_fix_candidate *c = &p->cands[p->chosen];
  char why[256], race[768];
  int rc, same;
  progress(o, "verifying %s in the emulator", cc_fix_perm_name(&c->perm));
  if ((rc = measure_rewritten(o, c, p, &p->after, err)) != CC_OK)
    return rc;
  c->measured = 1;
  c->sectors = cc_fix_measure_kernel(&p->after)->totals.sectors;
  c->excess_sectors = cc_fix_measure_kernel(&p->after)->totals.excess_sectors;
  c->wavefronts = cc_fix_measure_kernel(&p->after)->totals.wavefronts;
  same = cc_fix_buffers_equal(&p->before, &p->after, why, sizeof why);
  if (!same && cc_fix_uses_atomics(o->module, o->kernel)) {
    snprintf(p->reason, sizeof p->reason, "the permutation %s changes the results of %s (%s): "
             "its atomics run in another order, so the outputs are not bitwise reproducible "
             "and the fix cannot be verified", cc_fix_perm_name(&c->perm), o->kernel_name, why);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if (!same && cc_fix_threads_race(o, &p->before, race, sizeof race)) {
    snprintf(p->reason, sizeof p->reason, "the permutation %s changes the results of %s (%s): "
             "%s, a race whose outcome depends on the order of the threads, which a "
             "permutation changes; make the threads independent first",
             cc_fix_perm_name(&c->perm), o->kernel_name, why, race);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if (!same)
    return cc_err_set(err, CC_ERR_INTERNAL, "the permutation %s of %s failed its verification "
                      "(a bug in coalcheck fix; nothing was written): %s",
                      cc_fix_perm_name(&c->perm), o->kernel_name, why);
  if (cc_fix_measure_kernel(&p->after)->totals.sectors >
      cc_fix_measure_kernel(&p->before)->totals.sectors) {
    /* fewer bank conflicts do not pay for more global traffic (the units differ) */
    snprintf(p->reason, sizeof p->reason, "the best permutation by the %s, %s, raises the "
             "global sectors of %s from %llu to %llu (its shared-memory wavefronts go from "
             "%llu to %llu): no permutation improves it",
             o->strategy == CC_FIX_STRATEGY_EMPIRICAL ? "measurement" : "model",
             cc_fix_perm_name(&c->perm), o->kernel_name,
             (unsigned long long)cc_fix_measure_kernel(&p->before)->totals.sectors,
             (unsigned long long)cc_fix_measure_kernel(&p->after)->totals.sectors,
             (unsigned long long)cc_fix_measure_kernel(&p->before)->totals.wavefronts,
             (unsigned long long)cc_fix_measure_kernel(&p->after)->totals.wavefronts);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if (excess(cc_fix_measure_kernel(&p->after)) >= excess(cc_fix_measure_kernel(&p->before))) {
    snprintf(p->reason, sizeof p->reason, "the best permutation by the model, %s, does not "
             "lower the measured excess sectors (%llu before, %llu after)",
             cc_fix_perm_name(&c->perm),
             (unsigned long long)excess(cc_fix_measure_kernel(&p->before)),
             (unsigned long long)excess(cc_fix_measure_kernel(&p->after)));
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  p->verified = 1;
  cc_fix_explain_remaining(p, 1);
  return CC_OK;
}

/* The thread-geometry permutation (Sec. 4.2) on a kernel measured in p->before: legality,
 * the choice of sigma, the rewrite and its verification; p->after is the permuted run. */
static int plan_permute(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  int rc;
  if ((rc = check_legal(o, p, err)) != CC_OK)
    return rc;
  if (o->strategy == CC_FIX_STRATEGY_EMPIRICAL && (rc = measure_all(o, p, err)) != CC_OK)
    return rc;
  p->chosen = choose(o, p);
  if (p->chosen == 0) {
    p->chosen = -1;
    cc_fix_explain_no_gain(o, p);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if ((rc = rewrite_input(o, &p->cands[p->chosen], p, err)) != CC_OK)
    return rc;
  return verify(o, p, err);
}

/* Times candidate c of the source transformations on the GPU into c->gpu_ms. */
static int time_xcand(const struct cc_fix_opts *o, struct cc_fix_xcand *c, struct cc_err *err)
{
  char *ptx = NULL;
  size_t len = 0;
  int runs, rc = ptx_of(o, c->text, c->len, &ptx, &len, err);
  if (rc == CC_OK)
    rc = o->timer->time(o->timer->ctx, ptx, len, o->kernel->name, c->grid, c->block,
                        c->shared_bytes, o->args, o->nargs, &c->gpu_ms, &runs, err);
  free(ptx);
  return rc;
}

/* What a candidate costs when no GPU judges: global sectors plus shared wavefronts (each
 * a 32-byte transfer or a shared-memory cycle). */
static uint64_t cost_of(const struct cc_fix_measure *m)
{
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(m);
  return k->totals.sectors + k->totals.wavefronts;
}

/* 1 when source candidate i may win: verified, and (without a GPU) not an alternate
 * unless no other candidate of its transformation is verified and preferred. */
static int eligible(const struct cc_fix_plan *p, size_t i, int timed)
{
  const struct cc_fix_xcand *c = &p->x.data[i];
  if (!c->verified || timed || !c->alternate)
    return c->verified;
  for (size_t j = 0; j < p->x.len; j++)
    if (p->x.data[j].verified && !p->x.data[j].alternate &&
        strcmp(p->x.data[j].transform, c->transform) == 0)
      return 0;
  return 1;
}

/* The winner among the verified permutation (-1) and the eligible source candidates
 * (index into p->x): the fastest on the GPU when a timer measured them, else the lowest
 * cost_of; -2 when none is verified. */
static int pick(const struct cc_fix_plan *p, int timed)
{
  int best = p->verified ? -1 : -2;
  double best_ms = p->verified ? p->gpu_ms_after : 0;
  uint64_t best_cost = p->verified ? cost_of(&p->after) : 0;
  for (size_t i = 0; i < p->x.len; i++) {
    const struct cc_fix_xcand *c = &p->x.data[i];
    if (!eligible(p, i, timed))
      continue;
    if (best == -2 || (timed ? c->gpu_ms < best_ms : cost_of(&c->run) < best_cost)) {
      best = (int)i;
      best_ms = c->gpu_ms;
      best_cost = cost_of(&c->run);
    }
  }
  return best;
}

/* Times the original and every verified candidate on the GPU (--backend gpu):
 * uninstrumented, warm-up excluded, the median of the timer's runs, the same arguments. */
static int time_finalists(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  char *ptx = NULL;
  size_t len = 0;
  int rc;
  progress(o, "timing the original and each verified fix on the GPU");
  if ((rc = ptx_of(o, o->input_text, o->input_len, &ptx, &len, err)) == CC_OK)
    rc = o->timer->time(o->timer->ctx, ptx, len, o->kernel->name, o->grid, o->block,
                        o->shared_bytes, o->args, o->nargs, &p->gpu_ms_before, &p->gpu_runs,
                        err);
  free(ptx);
  if (rc == CC_OK && p->verified) {
    struct cc_fix_candidate *c = &p->cands[p->chosen];
    /* the empirical strategy timed the chosen permutation already: not again */
    if (c->gpu_ms <= 0)
      rc = time_candidate(o, c, p, err);
    p->gpu_ms_after = c->gpu_ms;
    p->cands[0].gpu_ms = p->gpu_ms_before;
  }
  for (size_t i = 0; i < p->x.len && rc == CC_OK; i++)
    if (p->x.data[i].verified)
      rc = time_xcand(o, &p->x.data[i], err);
  return rc;
}

/* The permutation's record of the chosen fix (transform, what, launch). */
static void describe_permutation(const struct cc_fix_opts *o, struct cc_fix_plan *p)
{
  const struct cc_fix_candidate *c = &p->cands[p->chosen];
  p->transform = "permute";
  char plays[64] = "";
  if (c->vec > 1)
    snprintf(plays, sizeof plays, ", each thread playing %u threads along x, vectors", c->vec);
  else if (c->plays > 1)
    snprintf(plays, sizeof plays, ", each thread playing %u threads along y%s", c->plays,
             strncmp(p->plays_form, "loads first", 11) ? "" : ", loads first");
  snprintf(p->what, sizeof p->what, "thread geometry permuted (%s)%s%s",
           cc_fix_perm_name(&c->perm), c->reshaped ? " and the block reshaped" : "", plays);
  memcpy(p->grid, c->grid, sizeof p->grid);
  memcpy(p->block, c->block, sizeof p->block);
  p->shared_bytes = o->shared_bytes;
  p->compare = CC_FIX_COMPARE_BITWISE;
}

/* Makes source candidate i the plan's fix: its text, run and launch replace the
 * permutation's. */
static void adopt_xcand(struct cc_fix_plan *p, size_t i)
{
  struct cc_fix_xcand *c = &p->x.data[i];
  free(p->text);
  free(p->launch_note);
  cc_fix_measure_release(&p->after);
  p->text = c->text;
  p->len = c->len;
  p->launch_note = c->launch_note;
  p->after = c->run;
  c->text = NULL;
  c->launch_note = NULL;
  memset(&c->run, 0, sizeof c->run);
  p->xchosen = (int)i;
  p->verified = 1;
  p->transform = c->transform;
  snprintf(p->what, sizeof p->what, "%s", c->what);
  memcpy(p->grid, c->grid, sizeof p->grid);
  memcpy(p->block, c->block, sizeof p->block);
  p->shared_bytes = c->shared_bytes;
  p->compare = c->compare;
  p->terms = c->terms;
  p->max_rel = c->max_rel;
  cc_fix_explain_remaining(p, c->transform && strcmp(c->transform, "permute") == 0);
}

/* Why the chosen fix won (--transform auto), into p->why; finalists counts every
 * verified candidate, of which `alternates` did not compete without a GPU. */
static void explain_choice(const struct cc_fix_opts *o, struct cc_fix_plan *p, int timed,
                           int finalists, int alternates)
{
  const char *own = p->xchosen >= 0 ? p->x.data[p->xchosen].why : "";
  char others[128] = "";
  if (alternates)
    cc_fix_setf(others, sizeof others, " (%d more verified, left by the transformation's "
                "rule; --backend gpu times them)", alternates);
  if (finalists <= 1)
    cc_fix_setf(p->why, sizeof p->why, "%s%sthe only verified candidate", own, *own ? "; " : "");
  else if (timed)
    cc_fix_setf(p->why, sizeof p->why, "%s%sthe fastest of %d verified candidates on the GPU "
             "(%.4f ms)", own, *own ? "; " : "", finalists, p->gpu_ms_after);
  else if (finalists - alternates <= 1)
    cc_fix_setf(p->why, sizeof p->why, "%s%sthe only verified candidate the rule leaves%s",
                own, *own ? "; " : "", others);
  else
    cc_fix_setf(p->why, sizeof p->why, "%s%sthe fewest global sectors plus shared wavefronts "
             "of %d verified candidates (%llu)%s", own, *own ? "; " : "",
             finalists - alternates, (unsigned long long)cost_of(&p->after), others);
  (void)o;
}

/* Chooses among the verified fixes (the permutation's and the source transformations'),
 * timing them first with --backend gpu; or explains why there is none (CC_ERR_NO_FIX). */
static int choose_final(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  int finalists = p->verified, alternates = 0, best, rc;
  for (size_t i = 0; i < p->x.len; i++) {
    finalists += p->x.data[i].verified;
    alternates += p->x.data[i].verified && !eligible(p, i, o->timer != NULL);
  }
  if (!finalists) {
    if (o->transform == CC_FIX_T_PERMUTE)
      return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
    cc_fix_setf(p->reason, sizeof p->reason, "no transformation improves %s:\n%s",
             o->kernel_name, p->refusals);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if (o->timer && (rc = time_finalists(o, p, err)) != CC_OK)
    return rc;
  if (p->verified)
    describe_permutation(o, p);
  best = pick(p, o->timer != NULL);
  if (best >= 0)
    adopt_xcand(p, (size_t)best);
  if (o->timer)
    p->gpu_ms_after = best >= 0 ? p->x.data[best].gpu_ms : p->cands[p->chosen].gpu_ms;
  explain_choice(o, p, o->timer != NULL, finalists, alternates);
  return CC_OK;
}

/* The reason a kernel with excess sectors is coalesced all the same, in reason (n bytes):
 * every global or local instruction with excess sectors has the verdict "coalesced"
 * (CGO 2015 Algorithm 1: neighbouring lanes at most the access size apart) and no shared
 * access has excess wavefronts, so the excess comes from warps whose bytes start off a
 * 32-byte sector boundary (a stencil's A[i*n + j - 1]): a property of the data's
 * alignment that no transformation of the threads or loops removes. Returns 0 (reason
 * untouched) when some excess has another cause. */
static int misaligned_only(const struct cc_kernel_stats *k, const char *kernel, char *reason,
                           size_t n)
{
  const struct cc_insn_stats *worst = NULL;
  char place[600], col[16] = "";
  if (k->totals.wavefronts != k->totals.ideal_wavefronts)
    return 0;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (s->info.space == CC_SPACE_SHARED || s->excess_sectors == 0)
      continue;
    if (s->verdict != CC_VERDICT_COALESCED)
      return 0;
    if (!worst || s->excess_sectors > worst->excess_sectors)
      worst = s;
  }
  if (!worst)
    return 0;
  if (worst->source.line) /* FILE:LINE:COL, or "FILE, line unknown" (report.h) */
    snprintf(col, sizeof col, ":%u", worst->source.column);
  cc_fix_setf(reason, n, "%s is already coalesced: every access has neighbouring lanes at most "
              "its size apart (CGO 2015 Algorithm 1); its %llu excess sectors (%llu, ideal %llu) "
              "come from warps whose bytes start off a 32-byte sector boundary, the most at "
              "the %s at %s%s (%.2f sectors per request, ideal %.2f): an offset of the "
              "data (a stencil's neighbour, j - 1) that no transformation of threads or loops "
              "removes; align the rows, or stage the neighbours through shared memory",
              kernel, (unsigned long long)k->totals.excess_sectors,
              (unsigned long long)k->totals.sectors, (unsigned long long)k->totals.ideal_sectors,
              cc_access_kind_name(worst->info.kind),
              cc_report_place(worst->source.file, worst->source.line, place, sizeof place),
              col, (double)worst->sectors / (double)worst->requests,
              (double)worst->ideal_sectors / (double)worst->requests);
  return 1;
}

/* From the original's measurement to a verified plan (or a reason in p->reason): the
 * permutation and the source transformations o->transform selects, then the choice. */
static int plan(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  struct cc_fix_launch l = cc_fix_launch_make(o, o->grid, o->block, o->shared_bytes);
  int permute = o->transform == CC_FIX_T_AUTO || o->transform == CC_FIX_T_PERMUTE;
  const struct cc_kernel_stats *b;
  int rc;
  p->chosen = -1;
  p->xchosen = -1;
  progress(o, "emulating %s as given", o->kernel_name);
  if ((rc = cc_fix_measure(o->module, o->kernel, &l, &p->before, err)) != CC_OK)
    return rc;
  b = cc_fix_measure_kernel(&p->before);
  if (permute && (rc = model_costs(o, p, err)) != CC_OK)
    return rc;
  if (excess(b) == 0) {
    snprintf(p->reason, sizeof p->reason, "%s is already coalesced: %llu requests, no excess "
             "sectors or wavefronts", o->kernel_name, (unsigned long long)b->totals.requests);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  }
  if (misaligned_only(b, o->kernel_name, p->reason, sizeof p->reason))
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", p->reason);
  if (permute) {
    rc = plan_permute(o, p, err);
    if (rc == CC_ERR_NO_FIX && o->transform == CC_FIX_T_AUTO) {
      cc_fix_refusal_add(p, "permute", p->reason);
      p->chosen = -1;
      rc = CC_OK;
    }
    if (rc != CC_OK)
      return rc;
  }
  if (o->transform != CC_FIX_T_PERMUTE && (rc = cc_fix_xform_run(o, p, err)) != CC_OK)
    return rc;
  return choose_final(o, p, err);
}

/* ---- the text summary ------------------------------------------------------------------ */

static void print_line_rows(FILE *out, const struct cc_kernel_stats *b,
                            const struct cc_kernel_stats *a)
{
  cc_fix_line_rows rows = {0};
  cc_fix_line_rows_add(&rows, b, 0);
  cc_fix_line_rows_add(&rows, a, 1);
  fprintf(out, "  %-10s %-7s %-6s %-24s %-24s %s\n", "source", "kind", "space",
          "requests before -> after", "sectors before -> after", "per request");
  for (size_t i = 0; i < rows.len; i++) {
    const struct cc_fix_line_row *r = &rows.data[i];
    char line[24];
    fprintf(out, "  %-10s %-7s %-6s %10llu -> %-10llu %10llu -> %-10llu %5.1f -> %.1f%s\n",
            cc_report_line_name(r->line, line, sizeof line), cc_access_kind_name(r->kind),
            cc_space_name(r->space),
            (unsigned long long)r->req[0], (unsigned long long)r->req[1],
            (unsigned long long)r->units[0], (unsigned long long)r->units[1],
            r->req[0] ? (double)r->units[0] / (double)r->req[0] : 0.0,
            r->req[1] ? (double)r->units[1] / (double)r->req[1] : 0.0,
            r->space == CC_SPACE_SHARED ? " (wavefronts)" : "");
  }
  CC_VEC_FREE(&rows);
}

/* Beyond L1 (the cache model of the measurements, src/cache): DRAM bytes, L2 sectors and
 * the estimated time before and after, and what bounds each. */
static void print_traffic(FILE *out, const struct cc_kernel_stats *b, const struct cc_kernel_stats *a)
{
  if (!b->cached || !a->cached)
    return;
  fprintf(out, "  beyond L1 (%s model): DRAM %.2f -> %.2f MB, L2 sectors %llu -> %llu, "
          "estimated %.1f -> %.1f us (%s-bound -> %s-bound)\n", b->device->name,
          (double)cc_cache_dram_bytes(&b->cache) / 1e6,
          (double)cc_cache_dram_bytes(&a->cache) / 1e6,
          (unsigned long long)(b->cache.total.l2_sectors_read + b->cache.total.l2_sectors_write),
          (unsigned long long)(a->cache.total.l2_sectors_read + a->cache.total.l2_sectors_write),
          b->time.estimate_us, a->time.estimate_us, cc_cache_bound_name(b->time.bound_by),
          cc_cache_bound_name(a->time.bound_by));
}

/* The comparison line of the summary: bitwise, or within the reassociation bound. */
static void print_outputs(const struct cc_fix_plan *p, FILE *out)
{
  if (p->compare == CC_FIX_COMPARE_BITWISE)
    fprintf(out, "  outputs: %u buffers bitwise equal to the original's\n", p->before.nbufs);
  else
    fprintf(out, "  outputs: not bitwise equal: reassociated; %u buffers within the bound "
            "|orig - fix| <= 2 gamma(n) sum|terms|, n = %llu terms + 2 (largest error %.3g "
            "of the bound)\n", p->before.nbufs, (unsigned long long)p->terms, p->max_rel);
}

static void print_summary(const struct cc_fix_opts *o, const struct cc_fix_plan *p, FILE *out)
{
  const struct cc_kernel_stats *b = cc_fix_measure_kernel(&p->before),
                               *a = cc_fix_measure_kernel(&p->after);
  fprintf(out, "coalcheck fix: %s in %s: %s: %s, verified\n", o->kernel_name, o->input,
          p->transform, p->what);
  if (p->xchosen < 0)
    fprintf(out, "  chosen by the %s (%.3f s); predicted cost %.0f -> %.0f\n",
            o->strategy == CC_FIX_STRATEGY_EMPIRICAL ? "emulated candidates" : "cost model",
            o->strategy == CC_FIX_STRATEGY_EMPIRICAL ? p->empirical_seconds : p->model_seconds,
            p->cands[0].model_cost, p->cands[p->chosen].model_cost);
  if (p->why[0])
    fprintf(out, "  why: %s\n", p->why);
  fprintf(out, "  launch: grid %u,%u,%u block %u,%u,%u -> grid %u,%u,%u block %u,%u,%u",
          o->grid[0], o->grid[1], o->grid[2], o->block[0], o->block[1], o->block[2],
          p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1], p->block[2]);
  if (p->shared_bytes != o->shared_bytes)
    fprintf(out, ", dynamic shared %u -> %u bytes", o->shared_bytes, p->shared_bytes);
  fputc('\n', out);
  print_outputs(p, out);
  print_line_rows(out, b, a);
  fprintf(out, "  kernel: %llu -> %llu sectors (%llu -> %llu excess), %.2fx fewer\n",
          (unsigned long long)b->totals.sectors, (unsigned long long)a->totals.sectors,
          (unsigned long long)b->totals.excess_sectors,
          (unsigned long long)a->totals.excess_sectors,
          a->totals.sectors ? (double)b->totals.sectors / (double)a->totals.sectors : 0.0);
  print_traffic(out, b, a);
  if (b->totals.wavefronts || a->totals.wavefronts)
    fprintf(out, "  shared: %llu -> %llu wavefronts (ideal %llu)\n",
            (unsigned long long)b->totals.wavefronts, (unsigned long long)a->totals.wavefronts,
            (unsigned long long)a->totals.ideal_wavefronts);
  if (p->gpu_runs)
    fprintf(out, "  GPU: %.4f ms -> %.4f ms (median of %d runs), %.2fx\n", p->gpu_ms_before,
            p->gpu_ms_after, p->gpu_runs, p->gpu_ms_before / p->gpu_ms_after);
  if (p->remaining[0])
    fprintf(out, "  still uncoalesced: %s\n", p->remaining);
  if (p->warp_note[0] && p->xchosen < 0)
    fprintf(out, "  note: %s\n", p->warp_note);
  if (p->launch_note)
    fprintf(out, "  launch: %s\n", p->launch_note);
  if (p->refusals[0] && o->transform == CC_FIX_T_AUTO) {
    const char *s = p->refusals;
    fputs("  not chosen or not applicable:\n", out);
    while (*s) {
      size_t n = strcspn(s, "\n");
      fprintf(out, "    %.*s\n", (int)n, s);
      s += n + (s[n] == '\n');
    }
  }
  fprintf(out, "  wrote %s/\n", o->out_dir);
}

int cc_fix_run(const struct cc_fix_opts *o, FILE *out, struct cc_err *err)
{
  struct cc_fix_plan p;
  int rc, jrc = CC_OK;
  struct cc_err jerr = {0};
  memset(&p, 0, sizeof p);
  p.chosen = -1;
  if ((rc = cc_fix_check_dir(o, err)) != CC_OK)
    return rc;
  rc = plan(o, &p, err);
  if (rc == CC_OK)
    rc = cc_fix_emit_dir(o, &p, err);
  /* the JSON report is written for a fix and for a refusal (verified false, the reason) */
  if (o->json_path && (rc == CC_OK || rc == CC_ERR_NO_FIX) && cc_fix_measure_kernel(&p.before))
    jrc = cc_fix_write_json(o, &p, rc == CC_OK ? err : &jerr);
  if (rc == CC_OK && jrc != CC_OK)
    rc = jrc;
  if (rc == CC_OK)
    print_summary(o, &p, out);
  cc_fix_plan_release(&p);
  return rc;
}
