/* coalcheck fix --transform pad: the rows of a kernel's __shared__ arrays padded by one
 * element against bank conflicts (the advice of src/analysis's suggest_shared, applied;
 * src/cuda/pad.h gives the rule and its legality). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/pad.h"
#include "fix/fix_impl.h"

/* The candidate of r (moved into out), padded by `elements` (odd_rows: rows of an odd
 * number of words too), unless an earlier candidate has the same text. */
static void propose(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                    struct cc_cuda_pad_result *r, unsigned elements, int odd_rows,
                    cc_fix_xcands *out)
{
  struct cc_fix_xcand c;
  for (size_t i = 0; i < out->len; i++)
    if (out->data[i].len == r->len && memcmp(out->data[i].text, r->text, r->len) == 0)
      return;
  memset(&c, 0, sizeof c);
  c.transform = "pad";
  char by[32];
  snprintf(by, sizeof by, elements == 1 ? "one element" : elements == 2 ? "two elements"
           : "%u elements", elements);
  cc_fix_setf(c.what, sizeof c.what, "the rows of the __shared__ array(s) padded by %s%s: "
              "%s", by, odd_rows && elements <= 2 ? " (rows of an odd number of words too)" : "",
              r->what);
  cc_fix_setf(c.why, sizeof c.why, "%llu shared wavefronts for %llu ideal: %s",
              (unsigned long long)k->totals.wavefronts,
              (unsigned long long)k->totals.ideal_wavefronts,
              elements == 1 && !odd_rows
                  ? "lanes walk a column of rows an even number of words long, so they meet "
                    "in a few banks; rows an odd number of words long spread a column over "
                    "all 32 banks"
                  : elements > 2
                  ? "a warp of a block narrower than 32 threads spans 32 / blockDim.x rows; "
                    "rows a multiple of 32 words long put them in the same banks, rows "
                    "blockDim.x words longer put each in banks of its own"
                  : "a warp over two rows of a half-warp-wide tile, or down an anti-diagonal, "
                    "meets itself in the banks of rows padded by one to an odd length; this "
                    "row length spreads it (the measured wavefronts decide)");
  c.text = r->text;
  c.len = r->len;
  r->text = NULL;
  memcpy(c.grid, o->grid, sizeof c.grid);
  memcpy(c.block, o->block, sizeof c.block);
  c.shared_bytes = o->shared_bytes;
  c.compare = CC_FIX_COMPARE_BITWISE;
  CC_VEC_PUSH(out, c);
}

int cc_fix_pad(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
               cc_fix_xcands *out, struct cc_err *err)
{
  /* padding by one the rows of an even number of words (the textbook rule) first, then by
   * two, then by one and by two whatever the parity (nw: rows of 17 words walked down an
   * anti-diagonal); a refusal of the first is the refusal */
  /* and, for a block narrower than a warp (16 x 4: two rows a warp), by blockDim.x, so
   * that rows of a multiple of 32 words (convolutionSeparable's 160) become 16 mod 32 and
   * the warp's two rows fall in different banks */
  struct { unsigned elements; int odd_rows; } ways[] = {
      {1, 0}, {2, 0}, {1, 1}, {2, 1}, {0, 1}};
  size_t nways = 4;
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(before);
  size_t first = out->len;
  int rc = CC_OK;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: padding needs the kernel's CUDA C source",
                      o->kernel_name);
  if (k->totals.wavefronts <= k->totals.ideal_wavefronts)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s has no shared-memory bank conflict to pad away "
                      "(%llu wavefronts, all ideal)", o->kernel_name,
                      (unsigned long long)k->totals.wavefronts);
  if (o->block[0] > 2 && o->block[0] < 32 && 32 % o->block[0] == 0 && o->block[1] > 1)
    ways[nways++].elements = o->block[0];
  for (size_t i = 0; i < nways; i++) {
    struct cc_cuda_pad_result r;
    struct cc_err e2 = {0};
    struct cc_err *e = i == 0 ? err : &e2;
    int ri = cc_cuda_pad_by(o->input, o->input_text, o->input_len, o->kernel_name,
                            o->clang_args, o->nclang_args, ways[i].elements, ways[i].odd_rows,
                            &r, e);
    if (ri == CC_OK) {
      propose(o, k, &r, ways[i].elements, ways[i].odd_rows, out);
      cc_cuda_pad_result_release(&r);
      rc = CC_OK;
    } else if (ri != CC_ERR_NO_FIX) {
      return ri; /* the parser failed: the same for every way */
    } else if (out->len == first) {
      rc = ri; /* keep the first refusal (err) unless a later way applies */
    }
  }
  if (out->len > first)
    memset(err, 0, sizeof *err);
  return out->len > first ? CC_OK : rc;
}
