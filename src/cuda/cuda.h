/* coalcheck CUDA C front end on libclang: finds a kernel and its launch sites in a .cu
 * file and rewrites them by source ranges (cursor extents), every other byte unchanged.
 *
 * Parsing: libclang (the stable C API of clang-c/Index.h) with `-x cuda
 * --cuda-gpu-arch=sm_90 -nocudainc -nocudalib` and a prelude of our own that declares
 * the builtin variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), dim3 and the
 * intrinsics kernels commonly call, since Debian's libclang predates the CUDA 13 headers
 * (../shared/FIX-DESIGN.md). Diagnostics outside the kernel and its launch sites are
 * tolerated; an error inside them is CC_ERR_INPUT with file:line:column.
 *
 * The thread-geometry permutation sigma (CGO 2015, seeds/004, Sec. 4.2): sigma[e] is the
 * new dimension (0 = x, 1 = y, 2 = z) that takes the role of the old dimension e. The
 * kernel (and every __device__ function it calls that reads the builtins) has each
 * `threadIdx.<e>`, `blockIdx.<e>`, `blockDim.<e>`, `gridDim.<e>` replaced by the same
 * builtin's component sigma[e]; the launch's block and grid become
 * block'[sigma[e]] = block[e], grid'[sigma[e]] = grid[e]. Every thread then computes
 * what its counterpart computed before. */
#ifndef CC_CUDA_CUDA_H
#define CC_CUDA_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* A launch site of the kernel in the file (a `K<<<grid, block, ...>>>(...)` call). */
struct cc_cuda_launch_site {
  uint32_t line, column;   /* of the call, 1-based */
  int rewritten;           /* 1: its grid and block were rewritten in text */
  char *note;              /* owned: rewritten: what changed ("dim3 grid(n/32, n/8) ->
                              dim3 grid(n/8, n/32)"); else why not and what the caller must
                              change by hand */
};

/* The result of a rewrite. All owned; cc_cuda_rewrite_release frees them. */
struct cc_cuda_rewrite {
  char *text;              /* the whole rewritten file, NUL-terminated */
  size_t len;              /* bytes of text */
  uint32_t kernel_edits;   /* builtin component references rewritten (kernel + callees) */
  struct cc_cuda_launch_site *sites; uint32_t nsites;
  char *caller_note;       /* owned or NULL: when no launch site of the kernel is in the
                              file, the sentence telling the caller what to change, e.g.
                              "launch K with grid (g.y, g.x, g.z) and block (b.y, b.x, b.z)" */
};

/* Rewrites the kernel called kernel (its unqualified source name; a template is
 * rewritten in its one definition) in the CUDA file path (its text: text, len bytes) by
 * the permutation sigma (a permutation of {0,1,2}), and its launch sites in the same
 * file. extra_args (nextra, may be 0) are added to the clang command line (include
 * folders, -D). Errors: CC_ERR_INPUT (no such kernel, several, a parse error inside it:
 * "FILE:LINE:COL: ..."), CC_ERR_NO_FIX (the rewrite cannot be made consistent, e.g. a
 * __device__ function that reads threadIdx is called both from the kernel and from code
 * that keeps the old geometry, a builtin's address taken, a component read through a
 * macro defined outside the file: the message names file:line:column and why),
 * CC_ERR_TOOL (libclang could not be loaded or crashed). On error *out is zeroed. */
int cc_cuda_permute(const char *path, const char *text, size_t len, const char *kernel,
                    const int sigma[3], const char *const *extra_args, size_t nextra,
                    struct cc_cuda_rewrite *out, struct cc_err *err);

/* Frees what r owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_rewrite_release(struct cc_cuda_rewrite *r);

#endif
