/* coalcheck fix --transform tile: a transposition-shaped kernel (a global load coalesced
 * along one thread dimension, a global store along the other) rewritten to stage its
 * load through a padded shared-memory tile, so that both global accesses are coalesced
 * and the tile's row and column accesses are free of bank conflicts (the transpose of
 * NVIDIA's "Optimizing Matrix Transpose in CUDA", seeds/001-003; EuroVis, seeds/003).
 *
 * This side finds the pair in the PTX (src/affine: each global access's thread strides
 * and base parameter), checks what the PTX shows (barriers, shared memory, atomics, warp
 * operations, non-affine addresses), confirms with the measured sectors that one of the
 * two is uncoalesced, and asks src/cuda/tile.c for one rewrite per tile shape. xform.c
 * verifies each (bitwise outputs, fewer sectors). */
#include "fix/fix_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/tile.h"

#define TILE 32u /* a warp's lanes: one tile row per warp request */

/* One global access of the kernel, from its affine form. */
struct gacc {
  const struct cc_affine_access *a;
  int store;
  int64_t stride[2];      /* bytes between threads one apart in x, in y */
  int base;               /* the pointer parameter it indexes, or -1 */
  int unit;               /* the dimension along which it has unit stride and the other a
                             large one (a row of a transposition), or -1 */
};

/* "FILE:LINE:COL" of instruction i of the kernel (its .loc; the kernel lives in the
 * input file; code inlined from a header, atomicAdd's, is placed at its call site, the
 * .loc's inlined_at), or the PTX line. */
static void place(const struct cc_fix_opts *o, uint32_t i, char *buf, size_t size)
{
  const struct ptx_loc *loc = ptx_insn_loc(o->kernel, i);
  if (loc && loc->inl_file && loc->inl_line)
    snprintf(buf, size, "%s:%u:%u", o->input, loc->inl_line, loc->inl_column);
  else if (loc && loc->line)
    snprintf(buf, size, "%s:%u:%u", o->input, loc->line, loc->column);
  else
    snprintf(buf, size, "%s: PTX line %u", o->input, o->kernel->insns[i].line);
}

static int refuse_at(const struct cc_fix_opts *o, uint32_t insn, struct cc_err *err,
                     const char *what, const char *why)
{
  char where[512];
  place(o, insn, where, sizeof where);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s; %s", where, what, why);
}

/* What in the PTX rules a tile out: a barrier, shared memory, an atomic, warp-level
 * operations (the tile adds a barrier of its own and regroups the threads of a warp). */
static int check_ptx(const struct cc_fix_opts *o, struct cc_err *err)
{
  const struct ptx_function *k = o->kernel, *f = NULL;
  uint32_t insn = 0;
  char what[256];
  for (uint32_t i = 0; i < k->ninsns; i++) {
    const struct ptx_insn *in = &k->insns[i];
    if (in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER || in->op == PTX_OP_MBARRIER)
      return refuse_at(o, i, err, "the kernel already has a barrier", "the tile adds one of "
                       "its own between its two phases; tile such a kernel by hand");
    if ((in->op == PTX_OP_LD || in->op == PTX_OP_ST || in->op == PTX_OP_ATOM ||
         in->op == PTX_OP_RED) && in->space == PTX_SPACE_SHARED)
      return refuse_at(o, i, err, "the kernel already uses shared memory", "the tile would "
                       "share it; tile such a kernel by hand");
    if (in->op == PTX_OP_ATOM || in->op == PTX_OP_RED)
      return refuse_at(o, i, err, "an atomic operation", "the tile runs each thread's code "
                       "twice (once to load, once to store) and would repeat it");
  }
  if (o->shared_bytes)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s is launched with %u bytes of dynamic "
                      "shared memory; the tile would share it", o->input, o->kernel_name,
                      o->shared_bytes);
  if (cc_fix_warp_dependent(o->module, k, &f, &insn, what, sizeof what) && f == k)
    return refuse_at(o, insn, err, what, "the tile changes which threads share a warp");
  if (f)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s calls a function that uses %s; the "
                      "tile changes which threads share a warp", o->input, o->kernel_name, what);
  return CC_OK;
}

/* g's strides, base and unit dimension under env; 0 when a stride is not known. */
static int classify(const struct cc_affine_access *a, const struct cc_affine_env *env,
                    const struct cc_fix_measure *before, struct gacc *g)
{
  int64_t one;
  memset(g, 0, sizeof *g);
  g->a = a;
  g->base = g->unit = -1;
  for (int d = 0; d < 2; d++)
    if (!cc_affine_coeff(a, env, CC_AFFINE_TID, (uint32_t)d, &g->stride[d]))
      return 0;
  for (uint32_t p = 0; p < before->nparams && g->base < 0; p++)
    if (!before->param_known[p] && cc_affine_coeff(a, env, CC_AFFINE_PARAM, p, &one) && one == 1)
      g->base = (int)p;
  for (int d = 0; d < 2; d++) {
    int64_t u = g->stride[d] < 0 ? -g->stride[d] : g->stride[d];
    int64_t v = g->stride[1 - d] < 0 ? -g->stride[1 - d] : g->stride[1 - d];
    if (u == (int64_t)a->size_bytes && v > (int64_t)a->size_bytes)
      g->unit = d;
  }
  return 1;
}

/* The kernel's global accesses (generic ones too: nvcc's parameters are global) into
 * *out, refusing a non-affine one. */
static int global_accesses(const struct cc_fix_opts *o, const struct cc_affine_kernel *ak,
                           const struct cc_affine_env *env, const struct cc_fix_measure *before,
                           struct gacc **out, uint32_t *n, struct cc_err *err)
{
  *out = cc_xcalloc(ak->naccesses ? ak->naccesses : 1, sizeof **out);
  *n = 0;
  for (uint32_t i = 0; i < ak->naccesses; i++) {
    const struct cc_affine_access *a = &ak->accesses[i];
    char what[600];
    if (a->space != PTX_SPACE_GLOBAL && a->space != PTX_SPACE_GENERIC)
      continue;
    if (a->status == CC_AFFINE_OK && a->loops)
      return refuse_at(o, a->insn, err, "this global access is inside a loop (its address "
                       "depends on the loop's counter)", "the tile stages one element per "
                       "thread; a per-thread loop over rows is not handled: write one "
                       "element per thread");
    if (a->status != CC_AFFINE_OK) {
      snprintf(what, sizeof what, "the address of this global access is not affine (%s)",
               a->why ? a->why : cc_affine_status_name(a->status));
      return refuse_at(o, a->insn, err, what, "the tile needs addresses linear in the thread "
                       "indices to pair the load with the store");
    }
    if (!classify(a, env, before, &(*out)[*n]))
      return refuse_at(o, a->insn, err, "the thread strides of this global access are not "
                       "known for the launch", "the tile needs them to pair the load with "
                       "the store");
    (*out)[*n].store = o->kernel->insns[a->insn].op == PTX_OP_ST;
    (*n)++;
  }
  return CC_OK;
}

/* 1 when instructions a and b of the kernel come from the same source line. */
static int same_line(const struct cc_fix_opts *o, uint32_t a, uint32_t b)
{
  const struct ptx_loc *la = ptx_insn_loc(o->kernel, a), *lb = ptx_insn_loc(o->kernel, b);
  return la && lb && la->line && la->file == lb->file && la->line == lb->line;
}

/* The pair: the one store, a row of a transposition, and the one load of another array
 * with unit stride along the other dimension. */
static int find_pair(const struct cc_fix_opts *o, const struct gacc *g, uint32_t n,
                     const struct gacc **ld, const struct gacc **st, struct cc_err *err)
{
  char what[400];
  *ld = *st = NULL;
  for (uint32_t i = 0; i < n; i++)
    if (g[i].store) {
      if (*st && same_line(o, (*st)->a->insn, g[i].a->insn))
        return refuse_at(o, g[i].a->insn, err, "this store runs several times per thread (a "
                         "loop, unrolled by nvcc)", "the tile stages one element per thread; a "
                         "per-thread loop over rows is not handled: write one element per "
                         "thread");
      if (*st)
        return refuse_at(o, g[i].a->insn, err, "a second global store",
                         "the tile stages one transposition (one load, one store) per thread");
      *st = &g[i];
    }
  if (!*st)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s stores nothing to global memory: "
                      "nothing to transpose", o->input, o->kernel_name);
  if ((*st)->unit < 0 || (*st)->base < 0) {
    snprintf(what, sizeof what, "the store is not a row of a transposition (thread strides "
             "x %lld, y %lld bytes for %u-byte elements)", (long long)(*st)->stride[0],
             (long long)(*st)->stride[1], (*st)->a->size_bytes);
    return refuse_at(o, (*st)->a->insn, err, what, "the tile needs a store with unit stride "
                     "along one thread dimension and a larger one along the other");
  }
  for (uint32_t i = 0; i < n; i++) {
    if (g[i].store)
      continue;
    if (g[i].base == (*st)->base)
      return refuse_at(o, g[i].a->insn, err, "the kernel reads the array it stores to",
                       "the tile reorders the stores across threads");
    if (g[i].unit != 1 - (*st)->unit || g[i].base < 0)
      continue;
    if (*ld)
      return refuse_at(o, g[i].a->insn, err, "a second load transposed with respect to the "
                       "store (more than one transposition-shaped pair)",
                       "the tile stages one pair");
    *ld = &g[i];
  }
  if (!*ld)
    return refuse_at(o, (*st)->a->insn, err, "no global load has unit stride along the other "
                     "thread dimension than this store (not a transposition)",
                     "the tile transformation does not apply");
  if ((*ld)->a->size_bytes != 4 && (*ld)->a->size_bytes != 8)
    return refuse_at(o, (*ld)->a->insn, err, "the load's elements are neither 4 nor 8 bytes",
                     "the tile's padding is derived for 4- and 8-byte elements");
  return CC_OK;
}

/* The measured excess sectors of the kernel's instruction insn (its global requests). */
static uint64_t excess_of(const struct cc_kernel_stats *b, uint32_t insn)
{
  uint64_t x = 0;
  for (size_t i = 0; b && i < b->n_insns; i++)
    if (b->insns[i].info.id == insn && b->insns[i].info.space == CC_SPACE_GLOBAL &&
        !b->insns[i].inlined_from.line)
      x += b->insns[i].excess_sectors;
  return x;
}

/* Elements of padding per tile row so that a warp's column access (32 lanes, rows 0..31,
 * one column) meets no bank conflict: with E-byte elements and rows of TILE + P elements,
 * lane r's element starts at word (r (TILE + P) + c) E / 4 of 32 banks (CUDA C
 * Programming Guide, "Shared Memory", compute capability 5.x and later). E = 4: bank
 * (r P + c) mod 32, distinct for the 32 lanes iff P is odd. E = 8: the request is served
 * per half-warp (two wavefronts of 128 bytes at best); lane r takes banks 2 (r P + c) mod
 * 32 and the next, distinct for the 16 lanes of a half iff P is odd. So P = 1 for both. */
static uint32_t tile_padding(uint32_t elt_bytes)
{
  return elt_bytes == 4 || elt_bytes == 8 ? 1u : 0u;
}

/* One candidate: the rewrite with a block of (TILE, rows). */
static int candidate(const struct cc_fix_opts *o, const struct gacc *ld, const struct gacc *st,
                     uint32_t rows, cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_cuda_tile_spec spec;
  struct cc_cuda_tile_result r;
  struct cc_fix_xcand c;
  int rc;
  memset(&spec, 0, sizeof spec);
  spec.load_param = (uint32_t)ld->base;
  spec.store_param = (uint32_t)st->base;
  spec.load_dim = ld->unit;
  spec.tile = TILE;
  spec.rows = rows;
  spec.pad = tile_padding(ld->a->size_bytes);
  for (int d = 0; d < 2; d++) {
    spec.grid[d] = o->grid[d];
    spec.block[d] = o->block[d];
  }
  if ((rc = cc_cuda_tile(o->input, o->input_text, o->input_len, o->kernel_name, &spec,
                         o->clang_args, o->nclang_args, &r, err)) != CC_OK)
    return rc;
  memset(&c, 0, sizeof c);
  c.transform = "tile";
  c.text = r.text;
  c.len = r.len;
  r.text = NULL;
  for (int d = 0; d < 2; d++)
    c.grid[d] = (uint32_t)(((uint64_t)o->grid[d] * o->block[d] + TILE - 1) / TILE);
  c.grid[2] = 1;
  c.block[0] = TILE;
  c.block[1] = rows;
  c.block[2] = 1;
  c.compare = CC_FIX_COMPARE_BITWISE;
  snprintf(c.what, sizeof c.what, "the transposition of %s:%u:%u (load, coalesced along %c) "
           "and %s:%u:%u (store, along %c) staged through a %ux%u %s tile in shared memory, "
           "block %ux%u", o->input, r.load_line, r.load_column, "xy"[ld->unit], o->input,
           r.store_line, r.store_column, "xy"[st->unit], TILE, TILE + spec.pad, r.elt, TILE,
           rows);
  snprintf(c.why, sizeof c.why, "the load is coalesced along %c and the store along %c, so no "
           "thread order serves both; through the tile each warp loads a row and stores a "
           "row, and the padding of %u element makes the tile's column accesses free of bank "
           "conflicts", "xy"[ld->unit], "xy"[st->unit], spec.pad);
  c.launch_note = cc_xmalloc(256);
  snprintf(c.launch_note, 256, "launch %s with grid (%u, %u, 1) and block (%u, %u, 1)",
           o->kernel_name, c.grid[0], c.grid[1], c.block[0], c.block[1]);
  cc_cuda_tile_result_release(&r);
  CC_VEC_PUSH(out, c);
  return CC_OK;
}

int cc_fix_tile(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_affine_kernel *ak = NULL;
  struct cc_affine_env env;
  struct gacc *g = NULL;
  const struct gacc *ld, *st;
  uint32_t n = 0;
  int rc;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: staging a transposition through a shared-memory "
                      "tile needs the kernel's CUDA C source (the input is PTX)", o->input);
  if (o->grid[2] != 1 || o->block[2] != 1)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s is launched with a 3-D geometry (grid "
                      "z %u, block z %u); the tile handles 2-D launches", o->input,
                      o->kernel_name, o->grid[2], o->block[2]);
  if ((uint64_t)o->grid[0] * o->block[0] > UINT32_MAX ||
      ((uint64_t)o->grid[1] * o->block[1] + TILE - 1) / TILE > 65535)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s's launch spans %llu x %llu threads; "
                      "the tile's grid of 32x32 tiles would break CUDA's limits (x extent "
                      "below 2^32 in the rewrite's unsigned indices, grid y at most 65535)",
                      o->input, o->kernel_name, (unsigned long long)o->grid[0] * o->block[0],
                      (unsigned long long)o->grid[1] * o->block[1]);
  if ((rc = check_ptx(o, err)) != CC_OK)
    return rc;
  if ((rc = cc_affine_analyze(o->module, o->kernel, &ak, err)) != CC_OK)
    return rc;
  memset(&env, 0, sizeof env);
  env.params = before->param_values;
  env.known = before->param_known;
  env.nparams = before->nparams;
  memcpy(env.ntid, o->block, sizeof env.ntid);
  memcpy(env.nctaid, o->grid, sizeof env.nctaid);
  if ((rc = global_accesses(o, ak, &env, before, &g, &n, err)) != CC_OK ||
      (rc = find_pair(o, g, n, &ld, &st, err)) != CC_OK)
    goto done;
  if (!excess_of(cc_fix_measure_kernel(before), ld->a->insn) &&
      !excess_of(cc_fix_measure_kernel(before), st->a->insn)) {
    rc = refuse_at(o, st->a->insn, err, "the transposition's load and store are both "
                   "coalesced in this launch", "nothing to gain from a tile");
    goto done;
  }
  /* 32x8 threads, 4 tile rows each (NVIDIA's transposeCoalesced shape), and 32x32 */
  static const uint32_t rows[] = {8, TILE};
  for (size_t i = 0; i < sizeof rows / sizeof rows[0] && rc == CC_OK; i++)
    rc = candidate(o, ld, st, rows[i], out, err);
done:
  free(g);
  cc_affine_kernel_free(ak);
  return rc;
}
