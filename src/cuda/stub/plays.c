/* coalcheck CUDA front end, built without libclang: the plays rewrite says so. */
#include "cuda/plays.h"

int cc_cuda_plays(const char *path, const char *text, size_t len, const char *kernel,
                  uint32_t plays, int dim, const uint32_t grid[3],
                  const char *const *extra_args, size_t nextra, char **out, size_t *out_len,
                  struct cc_err *err)
{
  (void)text, (void)len, (void)kernel, (void)plays, (void)dim, (void)grid, (void)extra_args,
      (void)nextra;
  *out = NULL;
  *out_len = 0;
  return cc_err_set(err, CC_ERR_TOOL, "cannot parse %s: coalcheck was built without "
                    "libclang; install libclang-dev (scripts/setup.sh) and rebuild", path);
}

int cc_cuda_plays_loads_first(const char *path, const char *text, size_t len,
                              const char *kernel, uint32_t plays, int dim,
                              const uint32_t grid[3], uint32_t max_kept,
                              const char *const *extra_args, size_t nextra, char **out,
                              size_t *out_len, struct cc_err *err)
{
  (void)max_kept;
  return cc_cuda_plays(path, text, len, kernel, plays, dim, grid, extra_args, nextra, out,
                       out_len, err);
}

int cc_cuda_plays_vector(const char *path, const char *text, size_t len, const char *kernel,
                         uint32_t v, const uint32_t block[3], const uint32_t grid[3],
                         const struct cc_cuda_vclass *cls, size_t ncls,
                         const char *const *extra_args, size_t nextra, char **out,
                         size_t *out_len, struct cc_err *err)
{
  (void)v, (void)block, (void)cls, (void)ncls;
  return cc_cuda_plays(path, text, len, kernel, 2, 0, grid, extra_args, nextra, out, out_len,
                       err);
}
