/* coalcheck CUDA front end: thread coarsening of a kernel whose threads are independent,
 * the source side of `coalcheck fix`'s reshaped permutation with plays (src/fix/README.md).
 *
 * The class: a kernel whose every thread's work depends on its global index
 * blockIdx * blockDim + threadIdx alone (src/fix's reshape legality, checked on the PTX:
 * no shared memory, barriers, %nctaid, warp-level operations), and no called function
 * reads the thread geometry (checked here on the call tree). Each thread of the new
 * launch plays K threads of the old one, those of the K blocks blockIdx.d * K + q
 * (q = 0..K-1) along dimension d, one after the other:
 *
 *   { for (unsigned __cc_q = 0; __cc_q < K; __cc_q++) {
 *       const uint3 __cc_ctaid = make_uint3(blockIdx.x, blockIdx.y * K + __cc_q, blockIdx.z);
 *       [=]() mutable { const uint3 blockIdx = __cc_ctaid; const dim3 gridDim(OLD GRID);
 *   #line FIRST LINE OF THE BODY
 *       ORIGINAL BODY }(); } }
 *
 * The body runs as written inside a lambda (its `return` ends one play), its blockIdx and
 * gridDim shadowed by the played thread's (only those it reads: a local never read draws
 * a warning); #line keeps every line's number, so the per-line figures of the fix
 * compare with the original's. The new launch's grid is the old one with d divided by K
 * (the caller's: K must divide it).
 *
 * Why: on an H100 a kernel of one element a thread over 64 MiB reaches about 72% of the
 * copy bandwidth, its CTAs living too short for the SM to stay full (achieved occupancy
 * 74% of 100% theoretical); four plays a thread, 77% (bench/table3/shape_probe.cu).
 * Sequential plays are one legal order of threads that the original runs concurrently,
 * with no synchronisation between them; a kernel whose threads wait on each other
 * (atomics, volatile flags) is the caller's to refuse. */
#ifndef CC_CUDA_PLAYS_H
#define CC_CUDA_PLAYS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Rewrites KERNEL of the CUDA C text (len bytes, named path) so that each thread plays
 * `plays` (2..64) threads along dimension dim (0..2) of the launch whose grid is grid
 * (the launch the text was written for; the new grid divides grid[dim] by plays).
 * extra_args: libclang's (include paths). *out: the whole new file (owned, NUL-ended),
 * *out_len its bytes. Errors: CC_ERR_NO_FIX with FILE:LINE:COL when a called function
 * reads the thread geometry or the body is partly inside a macro; CC_ERR_INPUT,
 * CC_ERR_TOOL from the parse (and CC_ERR_TOOL in a build without libclang). */
int cc_cuda_plays(const char *path, const char *text, size_t len, const char *kernel,
                  uint32_t plays, int dim, const uint32_t grid[3],
                  const char *const *extra_args, size_t nextra, cc_give char **out,
                  size_t *out_len, struct cc_err *err);

/* The loads-first form of the same plays (src/fix/README.md, "Loads-first plays"): the
 * body runs twice a play, in two loops over the plays. Phase A runs every play's body
 * with each store `P[i] = E` dropped (E still evaluated, `P[i] op= E` still reading
 * P[i]) and each loaded element kept in a register, `__cc_v<k>[q]`; phase B runs every
 * play's body again with each load replaced by its kept value, and stores. So a thread
 * has the loads of all its plays in flight at once, where the sequential plays wait for
 * each play's store before the next play's load (nvcc may not reorder them without
 * knowing that they touch different elements).
 *
 * Legal only when no play stores an element that the same or a later play reads after
 * the store (the value kept in phase A would be stale): the CALLER proves it (src/fix:
 * cc_fix_poly_loads_first, from the affine accesses and guards with isl). Phase A and B
 * then take the same branches (every value equal) and phase A has no effect but the
 * kept values. The class (else CC_ERR_NO_FIX with FILE:LINE:COL and the construct):
 * global accesses only as subscripts `P[i]` of the kernel's pointer parameters of a
 * number type (no pointer arithmetic, `*p`, `&P[i]`, indirect `P[Q[i]]`), stores as
 * statements `P[i] = E;` or `P[i] op= E;` (no `++`), no call or lambda, parameters not
 * assigned, at least one load, and loads a play x plays <= max_kept (the values live
 * from phase A to phase B: registers; the caller's cost rule). Same parameters, outputs
 * and errors as cc_cuda_plays. */
int cc_cuda_plays_loads_first(const char *path, const char *text, size_t len,
                              const char *kernel, uint32_t plays, int dim,
                              const uint32_t grid[3], uint32_t max_kept,
                              const char *const *extra_args, size_t nextra,
                              cc_give char **out, size_t *out_len, struct cc_err *err);

/* ---- vector plays (src/fix/README.md, "Vector plays") ---- */

/* How the accesses to one array on some lines of the body run in the vector plays. */
enum cc_cuda_vkind {
  CC_CUDA_V_SCALAR,    /* as written, in every play (phase B) */
  CC_CUDA_V_VECTOR,    /* unit stride along x: one V-wide load in play 0 (phase A), or V
                          stores gathered into one V-wide store after the plays */
  CC_CUDA_V_BROADCAST  /* stride 0 along x, a load: read once in play 0, reused */
};

struct cc_cuda_vclass {
  unsigned first_line, last_line; /* the statement's lines in the file */
  char array[64];                 /* the pointer parameter's name */
  enum cc_cuda_vkind kind;
};

/* The vector form of the plays: each thread of the new launch, block (block[0] / v,
 * block[1], block[2]) and the same grid, plays the v consecutive threads along x
 * g0 .. g0 + v - 1 (g0 = (blockIdx.x * blockDim.x + threadIdx.x) * v) of the launch
 * grid x block that the text was written for (its threadIdx, blockIdx, blockDim and
 * gridDim shadowed by theirs, only those the body reads). v is 2 or 4 (v x the element's
 * bytes <= 16: CUDA's float4, int4, double2, ...).
 *
 * Each subscript `P[i]` of the body takes the kind of the entry of cls whose lines hold
 * it and whose array is P (CC_CUDA_V_SCALAR when none). When the base address of every
 * array with a vector access is a multiple of the vector's bytes (checked at run time, the
 * same for every thread), phase A runs play 0's body with its stores dropped, loading each
 * vector access as one vector (`float4 __cc_w<k> = *(const float4 *)&P[i]`) and each
 * broadcast once; phase B runs the v plays, a vector load read as its component q, a
 * broadcast as its value, a vector store `P[i] = E` / `P[i] op= E` writing component q of
 * `__cc_o<k>` (its address kept), scalar accesses as written; after the plays, each vector
 * store is one V-wide store. Otherwise the v plays run one after the other as written.
 *
 * Legal only when (the CALLER proves it: src/fix/vector.c with isl): the loads-first
 * plays are (every load may run before every store), no two statements write the same
 * element, every statement with a vector or broadcast access runs in all v plays or in
 * none (its domain is closed under the groups of v along x), and the vector accesses'
 * elements are at v-aligned indices with unit stride along x. The class is that of
 * cc_cuda_plays_loads_first (else CC_ERR_NO_FIX with FILE:LINE:COL), plus at least one
 * vector access. Same outputs and other errors as cc_cuda_plays. */
int cc_cuda_plays_vector(const char *path, const char *text, size_t len, const char *kernel,
                         uint32_t v, const uint32_t block[3], const uint32_t grid[3],
                         const struct cc_cuda_vclass *cls, size_t ncls,
                         const char *const *extra_args, size_t nextra, cc_give char **out,
                         size_t *out_len, struct cc_err *err);

#endif
