/* coalcheck CUDA front end, built without libclang: the pad rewrite says so. */
#include <string.h>

#include "cuda/pad.h"

int cc_cuda_pad(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_pad_result *out,
                struct cc_err *err)
{
  memset(out, 0, sizeof *out);
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", path);
}

int cc_cuda_pad_by(const char *path, const char *text, size_t len, const char *kernel,
                   const char *const *extra_args, size_t nextra, unsigned elements,
                   int odd_rows, struct cc_cuda_pad_result *out, struct cc_err *err)
{
  (void)elements;
  (void)odd_rows;
  return cc_cuda_pad(path, text, len, kernel, extra_args, nextra, out, err);
}
