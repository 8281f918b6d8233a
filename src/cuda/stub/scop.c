/* coalcheck CUDA front end without libclang: the SCoP extractor says so (scop.h). */
#include <string.h>

#include "cuda/scop.h"

int cc_cuda_scop_extract(const char *path, const char *text, size_t len, const char *kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const int64_t *values, const uint8_t *known, uint32_t nparams,
                         const char *const *extra_args, size_t nextra,
                         struct cc_cuda_scop *out, struct cc_err *err)
{
  (void)text; (void)len; (void)kernel; (void)grid; (void)block; (void)values; (void)known;
  (void)nparams; (void)extra_args; (void)nextra;
  memset(out, 0, sizeof *out);
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", path);
}
