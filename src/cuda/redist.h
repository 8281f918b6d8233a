/* coalcheck CUDA front end: redistributing a per-thread reduction over the 32 lanes of a
 * warp (CGO 2015, seeds/004, Sec. 4.4, Algorithm 3), written into the CUDA C source.
 *
 * The kernel keeps its name and parameters. Each thread of the original launch (a
 * "virtual thread") is played by one warp of a new launch, block (32, W, 1), or, in the
 * sub-warp form, by one group of V lanes (V = 2..16, 32 / V virtual threads a warp); the
 * lanes split the chosen loops (lane l of the group runs iterations init+l, init+l+V,
 * ...), each accumulation goes into a private partial, and after the loop the V partials
 * are added (warp shuffle of width V, or a shared-memory tree) and folded into the
 * target. Code outside the loops runs in all V lanes with identical values; every store
 * to memory there is made by the group's lane 0 only, followed by __syncwarp(mask) over
 * the group's lanes. */
#ifndef CC_CUDA_REDIST_H
#define CC_CUDA_REDIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* The unroll factor the rewrite asks of a whole warp's lane loop (V = 32), written as
 * `_Pragma("unroll 8")` before it: twice nvcc's own 4, for the loads in flight a
 * memory-bound warp needs (redist_emit.c says the measurement). */
#define CC_CUDA_REDIST_UNROLL 8u

/* The two ways of adding a warp's 32 partial sums. */
enum cc_cuda_redist_form {
  CC_CUDA_REDIST_SHUFFLE, /* butterfly of __shfl_xor_sync (PTX shfl.sync.bfly), offsets 16..1 */
  CC_CUDA_REDIST_SHARED,  /* the paper's form: a __shared__ [W][32] array, a tree with
                             __syncwarp between the levels */
  CC_CUDA_REDIST_NFORMS
};

/* What to rewrite. Everything is borrowed. */
struct cc_cuda_redist_in {
  const char *path, *text; size_t len; /* the CUDA file (path names it in messages) */
  const char *kernel;                  /* its source name (as cc_cuda_permute) */
  const char *const *extra_args; size_t nextra; /* more clang arguments, may be 0 */
  uint32_t grid[3], block[3];          /* the original launch (components >= 1) */
  uint32_t warps;                      /* W: warps per CTA, 1..32 */
  /* V: lanes per virtual thread, a power of two 2..32 (0 means 32); a warp plays 32 / V
   * consecutive virtual threads, one per group of V lanes (the sub-warp form for short
   * loops: each group's lanes split the loop, its sum is a segmented shuffle of width V) */
  uint32_t lanes;
  /* the kernel parameters' values where known (integer scalars), for the trip counts;
   * index = the parameter's position; may be NULL (nparams 0) */
  const int64_t *param_values; const uint8_t *param_known; uint32_t nparams;
  /* 1 when source lines [first, last] of the input hold a global load that is not
   * coalesced (the caller's measurement): only such loops are rewritten */
  int (*uncoalesced)(void *ctx, uint32_t first, uint32_t last);
  void *ctx;
};

/* One rewritten loop. */
struct cc_cuda_redist_loop {
  uint32_t line, column;     /* of its `for`, 1-based */
  uint32_t first_line, last_line; /* the lines it spans */
  char var[64];              /* the loop variable */
  uint32_t ntargets;         /* accumulation targets (partials) */
  int integer;               /* 1: every target has an integer type (sums are exact) */
  int nested;                /* 1: inside another loop (its target may sum several runs) */
  int64_t trips;             /* most iterations one run of the loop makes, from its bounds
                                and the known parameter values; -1: not known */
  int64_t runs;              /* times one thread enters the loop: 1 when not nested, else
                                the product of the enclosing `for` loops' trip counts (their
                                bounds constants or known parameters, the form above);
                                -1: not known (a while or do loop encloses it, or a bound
                                is loaded or depends on another loop's variable) */
  uint32_t reads;            /* memory reads one iteration writes in the source (subscripts,
                                `*p`, `p->m` of memory the lanes share, the targets not
                                counted), at least 1: the loads a measured iteration makes,
                                nvcc's hoisting and merging aside */
};

/* The result. All owned; cc_cuda_redist_release frees it. */
struct cc_cuda_redist {
  char *text[CC_CUDA_REDIST_NFORMS]; size_t len[CC_CUDA_REDIST_NFORMS]; /* whole files */
  uint32_t shared_bytes[CC_CUDA_REDIST_NFORMS]; /* static shared memory the form adds per CTA */
  uint32_t grid[3], block[3];  /* the new launch: (ceil(total / (W * 32 / V)), 1, 1) and
                                  (32, W, 1) */
  struct cc_cuda_redist_loop *loops; uint32_t nloops;
};

/* Rewrites kernel in->kernel of in->text (see the file comment): every `for` loop of the
 * kernel's body that has the shape below and holds an uncoalesced load (in->uncoalesced
 * says which) is spread over a warp, in both forms. A loop qualifies when:
 *   - its header is `for (int j = A; j < B; j++)` (or `j = A` with j declared before the
 *     loop and used nowhere else; `<=`, `B > j`, `B >= j`; `++j`, `j += 1`), B not
 *     modified by the loop;
 *   - its body only declares local variables and accumulates, `T += E;`, `T -= E;` or
 *     `T = T + E...;`, into targets T that do not depend on j: a local scalar declared
 *     before the loop, or a memory lvalue without side effects (`y[row]`) whose variables
 *     the loop does not read otherwise; T of type int, unsigned, long, long long (and
 *     unsigned), float or double; E of no floating type when T is an integer.
 * Refused (CC_ERR_NO_FIX, "FILE:LINE:COL: what; why"): __syncthreads and __shared__
 * anywhere in the kernel (its threads move to other CTAs), break, continue, return,
 * goto, asm, atomics, warp intrinsics or another assignment inside the loop, a target
 * read or modified in the loop, a call to a function that reads the thread geometry
 * (it would not see the virtual builtins), a store to memory outside the loops that is
 * not a statement of its own (`a = y[i] = s`), a call outside the loops to a function
 * defined in the file that stores to memory, a launch over CUDA's limits (grid.x above
 * 2^31-1). When no loop holds an uncoalesced load: "the loop over j at FILE:LINE is
 * already coalesced". Other errors: those of cc_cuda_permute (CC_ERR_INPUT, CC_ERR_TOOL).
 * Assumed, not proved (the caller's verification on the launch is the judge): a memory
 * target does not alias what the loop reads through another pointer, and the loop
 * variable does not overflow when it steps by 32 past its bound.
 * A sub-warp group synchronises with the mask of its own lanes only (its shuffles, its
 * __syncwarp), since the other groups of its warp play other threads and may have left
 * (CUDA C Programming Guide, "Warp Shuffle Functions": every lane named in the mask must
 * execute the same intrinsic with that mask).
 * On error *out is zeroed. */
int cc_cuda_redistribute(const struct cc_cuda_redist_in *in, struct cc_cuda_redist *out,
                         struct cc_err *err);

/* V of in: in->lanes, or 32 when it is 0. */
uint32_t cc_cuda_redist_lanes(const struct cc_cuda_redist_in *in);

/* Frees what r owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_redist_release(struct cc_cuda_redist *r);

#endif
