/* coalcheck fix: source-to-source transformations that remove uncoalesced global-memory
 * accesses, each verified by running the original and the transformed kernel on the same
 * launch before anything is written.
 *
 * This file is the frame (FIX-DESIGN.md): one record for a plan, one entry point. The
 * first transformation is the thread-geometry permutation of CGO 2015 (seeds/004,
 * Sec. 4.2): the roles of the thread dimensions x, y, z are exchanged in the kernel (every
 * threadIdx/blockIdx/blockDim/gridDim component, or %tid/%ctaid/%ntid/%nctaid in PTX) and
 * in the launch geometry, so that the dimension along which an access has unit stride
 * becomes x, the dimension consecutive lanes of a warp follow.
 *
 * Flow (cc_fix_run): measure the original in the emulator (requests, sectors per
 * instruction, the dynamic weights of the cost model) -> analyse the addresses statically
 * (src/affine) -> refuse what a permutation could make observable (warp-level operations)
 * -> choose sigma, by the model (exhaustive search of the 3! permutation matrices, which
 * is the whole feasible set of the paper's ILP) or empirically (every candidate emulated)
 * -> rewrite the input (PTX text; CUDA C through libclang, src/cuda) -> verify (emulate
 * the rewritten kernel with the same arguments: every buffer bitwise equal, fewer excess
 * sectors) -> emit DIR whole or not at all. */
#ifndef CC_FIX_FIX_H
#define CC_FIX_FIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "launch/launch.h"
#include "ptx/ptx.h"
#include "util/err.h"

/* Which transformation `coalcheck fix --transform` applies (issue 10; CGO 2015 Sec. 4). */
enum cc_fix_transform {
  CC_FIX_T_AUTO,          /* every applicable one; the fewest measured sectors wins (default) */
  CC_FIX_T_PERMUTE,       /* thread-geometry permutation (Sec. 4.2) */
  CC_FIX_T_LIFT,          /* intra-thread loop lifted into a thread dimension (Sec. 4.3, Alg. 2) */
  CC_FIX_T_REDISTRIBUTE,  /* per-thread reduction spread over a warp (Sec. 4.4, Alg. 3) */
  CC_FIX_T_TILE,          /* transposition staged through a padded shared-memory tile */
  CC_FIX_T_SOA,           /* array of structures made a structure of arrays */
  CC_FIX_T_PAD            /* rows of __shared__ arrays padded against bank conflicts */
};

/* "auto", "permute", "lift", "redistribute", "tile", "soa", "pad" (static storage). */
const char *cc_fix_transform_name(enum cc_fix_transform t);

enum cc_fix_strategy {
  CC_FIX_STRATEGY_MODEL,     /* static cost model over the affine forms (default) */
  CC_FIX_STRATEGY_EMPIRICAL  /* emulate every legal candidate; fewest excess sectors wins */
};

/* Compiles a CUDA source text (the rewritten input) to PTX: the caller's nvcc driver
 * (cli/nvcc.c), so that src/fix needs no knowledge of the toolkit. path is where the text
 * would live (for messages and #include "..." lookups it is written beside the input by
 * the callee if needed). Returns an enum cc_status; *ptx (owned by the caller, NUL
 * terminated, *len bytes) on success. */
struct cc_fix_compiler {
  void *ctx;
  int (*compile)(void *ctx, const char *path, const char *text, size_t len,
                 cc_give char **ptx, size_t *len_out, struct cc_err *err);
};

/* Times a kernel on a GPU (the caller's backend), or NULL when there is none: runs the
 * kernel `mangled` of the PTX text with the given geometry and arguments, uninstrumented,
 * warm-up excluded, and returns the median of several runs in *ms. */
struct cc_fix_timer {
  void *ctx;
  int (*time)(void *ctx, const char *ptx, size_t len, const char *mangled,
              const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes,
              const struct cc_launch_arg *args, size_t nargs, double *ms, int *runs,
              struct cc_err *err);
};

/* What `coalcheck fix` is asked to do. Everything is borrowed. */
struct cc_fix_opts {
  const char *input;             /* the input path, as given (.cu or .ptx) */
  const char *input_text;        /* its bytes (len input_len) */
  size_t input_len;
  int input_is_cuda;             /* 1: CUDA C (rewritten through libclang); 0: PTX */
  const struct ptx_module *module; /* the input's PTX (the .cu compiled) */
  const struct ptx_function *kernel; /* the .entry to fix */
  const char *kernel_name;       /* its source name, e.g. "fan2" */
  uint32_t grid[3], block[3];    /* the launch (all components >= 1) */
  uint32_t shared_bytes;         /* dynamic shared memory per CTA */
  const struct cc_launch_arg *args; size_t nargs; /* the launch's --arg list */
  const char *nvcc_flags;        /* kept in K.launch, or NULL */
  uint64_t max_insns;            /* emulator budget per run; 0: the default */
  uint64_t max_memory;           /* bytes all buffers of one run may take (--max-memory) */
  enum cc_fix_strategy strategy;
  enum cc_fix_transform transform; /* --transform (CC_FIX_T_AUTO when not given) */
  const char *out_dir;           /* -o DIR */
  int force;                     /* --force: replace a non-empty DIR */
  const char *json_path;         /* --json FILE, "-" for stdout, or NULL */
  int quiet;                     /* no progress on stderr */
  struct cc_fix_compiler compiler; /* needed when input_is_cuda */
  const struct cc_fix_timer *timer; /* --backend gpu: time original and fix; or NULL */
  const char *const *clang_args; size_t nclang_args; /* extra libclang arguments */
};

/* Runs the whole fix (see the file comment) and writes the text summary to out. Writes
 * DIR (the rewritten input under the input's file name, KERNEL.launch, fix.diff) and the
 * --json report, each whole or not at all, only for a verified improvement. Returns
 * CC_OK for a verified improvement; CC_ERR_NO_FIX (exit 11) when no legal permutation
 * improves the kernel (the message gives the one-line reason: warp-level operation at
 * FILE:LINE, "already coalesced", "no permutation lowers the excess sectors", ...; with
 * --json the report is still written, with verified false and the reason);
 * CC_ERR_INTERNAL when a transformation fails its verification (a bug: the message says
 * which buffer differs where); CC_ERR_USAGE for a non-empty DIR without force; the
 * errors of the emulator, the compiler, libclang and the output files. */
int cc_fix_run(const struct cc_fix_opts *o, FILE *out, struct cc_err *err);

#endif
