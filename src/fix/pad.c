/* coalcheck fix --transform pad: the rows of a kernel's __shared__ arrays padded by one
 * element against bank conflicts (the advice of src/analysis's suggest_shared, applied;
 * src/cuda/pad.h gives the rule and its legality). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/pad.h"
#include "fix/fix_impl.h"

int cc_fix_pad(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
               cc_fix_xcands *out, struct cc_err *err)
{
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(before);
  struct cc_cuda_pad_result r;
  struct cc_fix_xcand c;
  int rc;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: padding needs the kernel's CUDA C source",
                      o->kernel_name);
  if (k->totals.wavefronts <= k->totals.ideal_wavefronts)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s has no shared-memory bank conflict to pad away "
                      "(%llu wavefronts, all ideal)", o->kernel_name,
                      (unsigned long long)k->totals.wavefronts);
  if ((rc = cc_cuda_pad(o->input, o->input_text, o->input_len, o->kernel_name, o->clang_args,
                        o->nclang_args, &r, err)) != CC_OK)
    return rc;
  memset(&c, 0, sizeof c);
  c.transform = "pad";
  cc_fix_setf(c.what, sizeof c.what, "the rows of the __shared__ array(s) padded by one "
              "element: %s", r.what);
  cc_fix_setf(c.why, sizeof c.why, "%llu shared wavefronts for %llu ideal: lanes walk a "
              "column of rows an even number of words long, so they meet in a few banks; "
              "rows an odd number of words long spread a column over all 32 banks",
              (unsigned long long)k->totals.wavefronts,
              (unsigned long long)k->totals.ideal_wavefronts);
  c.text = r.text;
  c.len = r.len;
  r.text = NULL;
  memcpy(c.grid, o->grid, sizeof c.grid);
  memcpy(c.block, o->block, sizeof c.block);
  c.shared_bytes = o->shared_bytes;
  c.compare = CC_FIX_COMPARE_BITWISE;
  CC_VEC_PUSH(out, c);
  cc_cuda_pad_result_release(&r);
  return CC_OK;
}
