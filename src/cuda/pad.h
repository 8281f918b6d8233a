/* coalcheck CUDA front end: the source side of `coalcheck fix --transform pad`, padding
 * the rows of a kernel's __shared__ arrays against bank conflicts.
 *
 * Shared memory has 32 banks of 4-byte words (sm_90; ../shared/MODELS.md): lanes that
 * walk a column of a 2-D array whose rows are an even number of u-byte words long (u =
 * max(element size, 4)) meet in fewer banks than they are lanes; one more element per
 * row makes the row an odd number of words and the column conflict-free (CUDA C Best
 * Practices Guide, "Shared Memory in Matrix Multiplication"; the tiled transpose of the
 * EuroVis 2013 paper and the teaching texts). The analysis gives the same advice
 * (src/analysis, suggest_shared); this rewrite applies it.
 *
 * Legal when every use of the array is fully subscripted (`a[i][j]`, one subscript per
 * dimension): the padding then moves elements, never the values a thread reads, so the
 * outputs stay bitwise equal. A pointer into it, a flattened index or the array passed
 * whole would see the new row length: refused. */
#ifndef CC_CUDA_PAD_H
#define CC_CUDA_PAD_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* The rewrite; cc_cuda_pad_result_release frees it. */
struct cc_cuda_pad_result {
  char *text; size_t len;  /* the whole rewritten file, NUL-terminated */
  char what[512];          /* the arrays padded: "tile[32][32] -> tile[32][33] (line 31)" */
  uint32_t npadded;        /* how many arrays */
};

/* Pads by one element the last dimension of every __shared__ array of two or more
 * dimensions declared in kernel `kernel` (found as cc_cuda_permute finds it) of the CUDA
 * file path (text, len bytes) whose rows are an even number of max(element size, 4)-byte
 * words, and whose every use in the kernel is fully subscripted: the last dimension's
 * bracket `[E]` becomes `[E + 1]` (`[(E) + 1]` when E is more than one token); every
 * other byte unchanged. extra_args (nextra) go to clang.
 * Errors: CC_ERR_INPUT and CC_ERR_TOOL as cc_cuda_permute; CC_ERR_NO_FIX ("FILE:LINE:COL:
 * construct; why") when no array qualifies: none declared, rows already an odd number of
 * words, an array used other than fully subscripted (the first such use named), its
 * declaration written by a macro. */
int cc_cuda_pad(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_pad_result *out,
                struct cc_err *err);

/* cc_cuda_pad with the last dimension padded by `elements` (>= 1) elements, and, when
 * odd_rows, rows an odd number of words long padded too. Why other paddings: a warp that
 * spans two rows of a 16-word tile (a 16x16 block) meets itself in rows of 17 words (lane
 * (0, r) and lane (15, r + 1): 17 * 15 + 1 = 256 words apart, one bank), rows of 18
 * spread the column read over 32 banks; a warp walking an anti-diagonal of rows of 17
 * words (stride 16: Rodinia nw) needs rows of 18. The caller measures each and keeps the
 * fewest wavefronts. cc_cuda_pad is cc_cuda_pad_by(..., 1, 0, ...). Errors as cc_cuda_pad. */
int cc_cuda_pad_by(const char *path, const char *text, size_t len, const char *kernel,
                   const char *const *extra_args, size_t nextra, unsigned elements,
                   int odd_rows, struct cc_cuda_pad_result *out, struct cc_err *err);

/* Frees what r owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_pad_result_release(struct cc_cuda_pad_result *r);

#endif
