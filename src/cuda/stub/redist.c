/* coalcheck CUDA front end, built without libclang: the reduction redistribution
 * (redist.h) says so. */
#include <string.h>

#include "cuda/redist.h"

int cc_cuda_redistribute(const struct cc_cuda_redist_in *in, struct cc_cuda_redist *out,
                         struct cc_err *err)
{
  memset(out, 0, sizeof *out);
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", in->path);
}
