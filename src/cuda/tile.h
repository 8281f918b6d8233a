/* coalcheck CUDA front end: the source side of `coalcheck fix --transform tile`, the
 * shared-memory tiling of a transposition-shaped kernel (issue 10 item 3).
 *
 * The class of kernels: a 2-D launch whose kernel computes one output element per thread,
 * reading one element of array IN (a kernel parameter, subscripted) with unit stride along
 * one thread dimension and writing one element of OUT (another parameter, subscripted,
 * plain `=`) with unit stride along the other, e.g. `out[x*n + y] = alpha * in[y*n + x]`,
 * possibly under a guard. The fix side (src/fix/tile.c) finds the pair in the PTX (affine
 * forms, measured sectors); this side checks it in the AST and rewrites the kernel body:
 *
 *   __shared__ ELT __cc_tile[T][T + PAD];         // PAD 1: the column access is conflict
 *   for phase 0, 1: (barrier before phase 1)      //   free (MODELS.md, bank conflicts)
 *     for each of the T/ROWS tile rows of the thread:
 *       the thread plays one thread of the original launch, its builtins shadowed by
 *       locals (threadIdx, blockIdx, blockDim, gridDim), inside a lambda so that the
 *       body's `return` ends only that play; the original body runs unchanged but for
 *         the load  IN[...]        -> phase 0: __cc_tile[j][i] = IN[...]; phase 1: __cc_tile[j][i]
 *         the store OUT[...] = E   -> phase 0: E evaluated, nothing stored; phase 1: as written
 *       where (i, j) is the played thread's place in the tile, i along the load's unit
 *       stride. In phase 0 the lanes of a warp play threads consecutive along the load's
 *       unit-stride dimension (the load is coalesced, the tile written by rows), in phase
 *       1 along the store's (the store is coalesced, the tile read by columns).
 *
 * Every thread of the original launch is played once in each phase, so outputs are
 * bitwise those of the original: the load's value goes through the tile unchanged, and
 * phase 0 writes no global memory. The new launch is block (T, ROWS), grid
 * (ceil(X / T), ceil(Y / T)) over the original extents X = grid.x * block.x, Y likewise;
 * played threads beyond X or Y return at once (ragged edges). */
#ifndef CC_CUDA_TILE_H
#define CC_CUDA_TILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* What to rewrite: the pair (found by the caller in the PTX) and the tile's shape. */
struct cc_cuda_tile_spec {
  uint32_t load_param;   /* position of IN among the kernel's parameters (0-based) */
  uint32_t store_param;  /* position of OUT */
  int load_dim;          /* 0: the load has unit stride along x and the store along y;
                            1: the reverse */
  uint32_t tile;         /* T, the tile's edge in elements (32: one warp's lanes) */
  uint32_t rows;         /* the new block's y extent; divides T (T / rows rows per thread) */
  uint32_t pad;          /* elements of padding per tile row (1; 0 shows the conflicts) */
  uint32_t grid[2], block[2]; /* the original launch's x and y extents (z is 1) */
};

/* The rewrite; cc_cuda_tile_result_release frees it. */
struct cc_cuda_tile_result {
  char *text; size_t len;      /* the whole rewritten file, NUL-terminated */
  char *elt;                   /* the tile's element type as written in it, e.g. "float" */
  uint32_t load_line, load_column, store_line, store_column; /* of IN[...] and OUT[...] = */
};

/* Rewrites kernel `kernel` (found as cc_cuda_permute finds it) of the CUDA file path
 * (text, len bytes) as described above, every byte outside the kernel's body unchanged
 * (the kernel keeps its name and parameters; its launch sites are not touched: the
 * caller states the new launch). extra_args (nextra) go to clang.
 *
 * Errors: CC_ERR_INPUT and CC_ERR_TOOL as cc_cuda_permute; CC_ERR_NO_FIX, the message
 * "FILE:LINE:COL: construct; why", when the kernel is outside the class: IN read at more
 * than one place, or OUT read at all (`+=` reads it), OUT written at more than one place
 * or other than by `OUT[...] = E` as a statement, another parameter's array written, IN
 * or OUT used other than subscripted (pointer arithmetic, passed on), the load or the
 * store inside a loop (one tile element per thread), a __shared__ variable, a barrier or
 * a warp operation in the kernel, a function it calls that reads the thread geometry (the
 * shadowing does not reach it), the load or the store written partly inside a macro. */
int cc_cuda_tile(const char *path, const char *text, size_t len, const char *kernel,
                 const struct cc_cuda_tile_spec *spec, const char *const *extra_args,
                 size_t nextra, struct cc_cuda_tile_result *out, struct cc_err *err);

/* Frees what r owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_tile_result_release(struct cc_cuda_tile_result *r);

#endif
