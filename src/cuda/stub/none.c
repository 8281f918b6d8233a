/* coalcheck CUDA front end, built without libclang (CMake found no clang-c/Index.h or
 * libclang): every entry point says so. CMakeLists.txt compiles this file and
 * ../result.c instead of the module's other sources. */
#include <string.h>

#include "cuda/cuda.h"

static int missing(const char *path, struct cc_err *err)
{
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", path);
}

int cc_cuda_permute(const char *path, const char *text, size_t len, const char *kernel,
                    const int sigma[3], const char *const *extra_args, size_t nextra,
                    struct cc_cuda_rewrite *out, struct cc_err *err)
{
  memset(out, 0, sizeof *out);
  return missing(path, err);
}

int cc_cuda_scan_kernel(const char *path, const char *text, size_t len, const char *kernel,
                        const char *const *extra_args, size_t nextra,
                        struct cc_cuda_scan *out, struct cc_err *err)
{
  memset(out, 0, sizeof *out);
  return missing(path, err);
}

int cc_cuda_available(void)
{
  return 0;
}
