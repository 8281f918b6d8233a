/* coalcheck CUDA C front end on libclang: finds a kernel and its launch sites in a .cu
 * file and rewrites them by source ranges (cursor extents), every other byte unchanged.
 *
 * Parsing: libclang (the stable C API of clang-c/Index.h) with `-x cuda
 * --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -std=c++17` and
 * __CUDA_ARCH__ redefined to 900, plus a prelude of our own (prelude.c) that declares the
 * builtin variables (threadIdx, blockIdx, blockDim, gridDim, warpSize), dim3, the vector
 * types and the intrinsics kernels commonly call, and stands in for the CUDA headers
 * (cuda_runtime.h, cooperative_groups.h, cuda_fp16.h, ...), since Debian's libclang 14
 * predates the CUDA 13 headers (../shared/FIX-DESIGN.md). sm_80, not sm_90: clang 14
 * rejects sm_90 ("unsupported CUDA gpu architecture"); __CUDA_ARCH__ 900 keeps the
 * Hopper branches of `#if __CUDA_ARCH__ >= 900` in the parse. Device side only: code in
 * `#ifndef __CUDA_ARCH__` is skipped, and builtins read in any skipped region of the
 * kernel's call tree are refused (CC_ERR_NO_FIX). Diagnostics outside the kernel, the
 * functions it calls and its launch sites are tolerated; an error inside them is
 * CC_ERR_INPUT with file:line:column.
 *
 * The thread-geometry permutation sigma (CGO 2015, seeds/004, Sec. 4.2): sigma[e] is the
 * new dimension (0 = x, 1 = y, 2 = z) that takes the role of the old dimension e. The
 * kernel (and every __device__ function it calls that reads the builtins) has each
 * `threadIdx.<e>`, `blockIdx.<e>`, `blockDim.<e>`, `gridDim.<e>` replaced by the same
 * builtin's component sigma[e]; the launch's block and grid become
 * block'[sigma[e]] = block[e], grid'[sigma[e]] = grid[e]. Every thread then computes
 * what its counterpart computed before. That is a legal transformation only when the
 * kernel does not observe warp membership: cc_cuda_scan_kernel reports what in the source
 * does (the PTX side is checked from the PTX). */
#ifndef CC_CUDA_CUDA_H
#define CC_CUDA_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* A launch site of the kernel in the file (a `K<<<grid, block, ...>>>(...)` call), or
 * another place that names K and may launch it (`cudaLaunchKernel((void *)K, ...)`,
 * code the preprocessor skipped): those have rewritten 0 and a note. */
struct cc_cuda_launch_site {
  uint32_t line, column;   /* of the call, 1-based */
  int rewritten;           /* 1: its grid and block were rewritten in text */
  char *note;              /* owned: rewritten: what changed ("grid: `dim3 grid(n/32, n/8)`
                              -> `dim3 grid(n/8, n/32)`; block: ..."); else why not and
                              what the caller must change by hand ("... launch K here with
                              grid (grid.y, grid.x, grid.z) and block (1, 256, 1)") */
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

/* Rewrites the kernel called kernel (its unqualified source name; a qualified or
 * demangled name, "ns::k" or "void ns::k<float>(float *)", is reduced to it, "k"; a
 * template is rewritten in its one definition) in the CUDA file path (its text: text,
 * len bytes; the path need not exist on disk, it names the file in messages and anchors
 * its #include "...") by the permutation sigma (a permutation of {0,1,2}; anything else
 * is a programmer error, CC_BUG), and its launch sites in the same file. extra_args
 * (nextra, may be 0) are added to the clang command line (include folders, -D).
 * Legality (warp membership) is not checked here: see cc_cuda_scan_kernel.
 *
 * What is rewritten, by byte ranges, every other byte unchanged:
 * - each `B.e` (B a builtin variable, e its component) in the kernel and the functions
 *   it calls, transitively, written directly, as a macro argument (`IDX(threadIdx.y,
 *   threadIdx.x)`), or in the body of a macro defined in the file whose every expansion
 *   is in the call tree;
 * - at each `K<<<grid, block, ...>>>` in the file: a grid or block that is an integer
 *   expression (`n` -> `dim3(1, n)` when x moves), an inline `dim3(a, b)` / `dim3{a, b}`
 *   (its arguments move), or a local `dim3 NAME(a, b)` / `= dim3(a, b)` / `= {a, b}` /
 *   `dim3 NAME;` whose every use is a launch of K or a component `NAME.e` (the
 *   declaration's arguments move, each `NAME.e` becomes `NAME.sigma[e]`). A launch is
 *   rewritten whole or not at all; otherwise its site's note says what to change.
 * kernel_edits counts the component references whose letter changed (a macro body's
 * reference once).
 *
 * Errors: CC_ERR_INPUT (no such kernel, several, a kernel defined in a header, a parse
 * error inside the call tree or a launch site: "FILE:LINE:COL: ..."), CC_ERR_NO_FIX (the
 * rewrite cannot be made consistent; the message names file:line:column and why: a
 * function that reads the builtins is also referenced outside the kernel's call tree, or
 * defined outside the file, or only declared; a builtin used whole (`uint3 t =
 * threadIdx`) or its component's address taken; a component read through a macro
 * defined outside the file, a file macro also expanded outside the call tree, a macro
 * argument's letter that the macro also uses otherwise or pastes (##); a builtin in code
 * the preprocessor skipped; input over 64 MiB is CC_ERR_INPUT), CC_ERR_TOOL (built
 * without libclang, or libclang failed or crashed). On error *out is zeroed. */
int cc_cuda_permute(const char *path, const char *text, size_t len, const char *kernel,
                    const int sigma[3], const char *const *extra_args, size_t nextra,
                    struct cc_cuda_rewrite *out, struct cc_err *err);

/* Frees what r owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_rewrite_release(struct cc_cuda_rewrite *r);

/* What in a kernel's source observes warp membership, which a thread-geometry
 * permutation changes (FIX-DESIGN.md, "Legality of a geometry permutation"; CGO 2015
 * Sec. 4.2 assumes none). The permutation keeps every thread's own values (a rewritten
 * `threadIdx.y % 32` computes what `threadIdx.x % 32` did); what changes is which threads
 * share a warp. So the first kinds below act on warp membership directly, while
 * CC_CUDA_WARP_SIZE and CC_CUDA_LANE_ID are signs of warp-synchronous code, harmful only
 * together with warp-level operations or memory exchanged within a warp without a barrier. */
enum cc_cuda_hazard {
  CC_CUDA_WARP_INTRINSIC,     /* __shfl*_sync, __ballot_sync, __all/__any/__uni_sync,
                                 __activemask, __match_*_sync, __reduce_*_sync, __syncwarp
                                 and the pre-CUDA-9 __shfl*, __ballot, __all, __any */
  CC_CUDA_COOPERATIVE_GROUPS, /* any name of namespace cooperative_groups (cg::) */
  CC_CUDA_ASM_LANE,           /* inline asm naming %laneid, %warpid or %lanemask_* */
  CC_CUDA_ASM_WARP,           /* inline asm with a warp-level instruction (shfl, vote,
                                 match, redux, activemask, bar.warp) */
  CC_CUDA_VOLATILE,           /* a volatile-qualified declaration, cast or variable read
                                 (warp-synchronous shared memory without __syncwarp) */
  CC_CUDA_WARP_SIZE,          /* warpSize read */
  CC_CUDA_LANE_ID             /* a threadIdx-derived value (a component, or a local
                                 variable assigned from one by arithmetic, not through
                                 memory: a[threadIdx.x] is data) % or / by 8, 16 or 32, &
                                 with 7, 15, 31 or -8, -16, -32, >> by 3, 4 or 5, or combined
                                 with warpSize by those operators: a lane or (sub)warp id */
};

/* One place in the kernel's call tree that observes warp membership. */
struct cc_cuda_hazard_site {
  enum cc_cuda_hazard kind;
  char *file;              /* owned: path as given for the input file, else the header */
  uint32_t line, column;   /* 1-based; column in bytes */
  char *what;              /* owned: the name or the construct, e.g. "__shfl_down_sync",
                              "cooperative_groups::thread_block", "threadIdx-derived % 32",
                              "%laneid", "volatile float *sdata" */
};

/* The result of a scan; cc_cuda_scan_release frees it. Sites are in walk order (each
 * function's body in source order), at most one per kind and line, at most 256. */
struct cc_cuda_scan {
  struct cc_cuda_hazard_site *sites; uint32_t nsites;
  int truncated;           /* 1: more than 256 sites; the first 256 are listed */
};

/* Scans the kernel called kernel in path (text, len bytes; found as cc_cuda_permute finds
 * it) and every function it calls, transitively, for the source constructs that observe
 * warp membership (enum cc_cuda_hazard). nsites == 0 means none found in the source (the
 * PTX may still show some: %laneid, shfl). Limits, stated so the caller can weigh them:
 * a lane id computed in a helper from a parameter (`lane(threadIdx.x)`) is not traced
 * through the call; a volatile pointer is reported wherever it points. Errors as
 * cc_cuda_permute (CC_ERR_INPUT, CC_ERR_TOOL); on error *out is zeroed. */
int cc_cuda_scan_kernel(const char *path, const char *text, size_t len, const char *kernel,
                        const char *const *extra_args, size_t nextra,
                        struct cc_cuda_scan *out, struct cc_err *err);

/* Frees what s owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_scan_release(struct cc_cuda_scan *s);

/* A short name of the hazard for messages, e.g. "warp intrinsic", "cooperative groups". */
const char *cc_cuda_hazard_name(enum cc_cuda_hazard kind);

/* 1 when this build has the libclang front end, 0 when it was built without libclang
 * (then every function above returns CC_ERR_TOOL). */
int cc_cuda_available(void);

#endif
