/* coalcheck CUDA front end without libclang: cc_cuda_soa says so (see none.c). */
#include <stdlib.h>
#include <string.h>

#include "cuda/soa.h"

int cc_cuda_soa(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_soa *out,
                struct cc_err *err)
{
  (void)text, (void)len, (void)kernel, (void)extra_args, (void)nextra;
  memset(out, 0, sizeof *out);
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", path);
}

void cc_cuda_soa_release(struct cc_cuda_soa *s)
{
  memset(s, 0, sizeof *s);
}
