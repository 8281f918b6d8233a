/* Is there a CUDA GPU, where are the GPU backend's files, is INPUT an executable. The
 * driver is opened with dlopen so that coalcheck itself never links libcuda (it runs on
 * machines without one). See gpu.h. */
#include "cli/gpu.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mem.h"

/* CUresult cuInit(unsigned int); CUresult cuDeviceGetCount(int *) (cuda.h: CUresult is an
 * enum, 0 = CUDA_SUCCESS; 100 = CUDA_ERROR_NO_DEVICE). */
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_count_fn)(int *);

int cc_cli_gpu_probe(struct cc_err *err)
{
  const char *force = getenv("COALCHECK_GPU_PROBE");
  void *lib;
  cu_init_fn init;
  cu_count_fn count;
  int rc = CC_OK, n = 0, r;
  if (force && strcmp(force, "none") == 0)
    return cc_err_set(err, (enum cc_status)CC_CLI_EXIT_NO_GPU, "no usable CUDA GPU: "
                      "COALCHECK_GPU_PROBE=none says so; unset it on a machine with a GPU");
  lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return cc_err_set(err, (enum cc_status)CC_CLI_EXIT_NO_GPU, "no usable CUDA GPU: the CUDA "
                      "driver library libcuda.so.1 cannot be loaded (%s); run on a machine "
                      "with an NVIDIA GPU and its driver, or use the emulator (--backend emu "
                      "with a .cu or .ptx INPUT)", dlerror());
  init = (cu_init_fn)dlsym(lib, "cuInit");
  count = (cu_count_fn)dlsym(lib, "cuDeviceGetCount");
  if (!init || !count)
    rc = cc_err_set(err, (enum cc_status)CC_CLI_EXIT_NO_GPU, "no usable CUDA GPU: "
                    "libcuda.so.1 lacks cuInit or cuDeviceGetCount; reinstall the driver");
  else if ((r = init(0)) != 0)
    rc = cc_err_set(err, (enum cc_status)CC_CLI_EXIT_NO_GPU, "no usable CUDA GPU: cuInit "
                    "failed with CUresult %d (100: no device, 999: unknown); check "
                    "nvidia-smi, or use the emulator (--backend emu)", r);
  else if ((r = count(&n)) != 0 || n < 1)
    rc = cc_err_set(err, (enum cc_status)CC_CLI_EXIT_NO_GPU, "no usable CUDA GPU: the driver "
                    "sees %d devices (CUresult %d); check CUDA_VISIBLE_DEVICES", n, r);
  dlclose(lib);
  return rc;
}

int cc_cli_is_elf(const char *path)
{
  unsigned char magic[4];
  FILE *fp = fopen(path, "rb");
  int yes;
  if (!fp)
    return 0;
  yes = fread(magic, 1, 4, fp) == 4 && magic[0] == 0x7f && magic[1] == 'E' &&
        magic[2] == 'L' && magic[3] == 'F';
  fclose(fp);
  return yes;
}

static char *join(const char *dir, const char *rel, const char *name)
{
  size_t n = strlen(dir) + strlen(rel) + strlen(name) + 3;
  char *p = cc_xmalloc(n);
  snprintf(p, n, "%s/%s%s", dir, rel, name);
  return p;
}

char *cc_cli_gpu_find_file(const char *env, const char *name, struct cc_err *err)
{
  static const char *const rel[] = {"src/gpu/", "", "../lib/coalcheck/"};
  const char *set = getenv(env);
  char exe[PATH_MAX], tried[3 * PATH_MAX + 64] = "";
  ssize_t len;
  if (set && *set) {
    if (access(set, R_OK) == 0)
      return cc_xstrdup(set);
    cc_err_set(err, CC_ERR_TOOL, "%s=%s: no such readable file; point it at %s", env, set,
               name);
    return NULL;
  }
  len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    char *slash;
    exe[len] = '\0';
    slash = strrchr(exe, '/');
    if (slash)
      *slash = '\0';
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
      char *p = join(exe, rel[i], name);
      if (access(p, R_OK) == 0)
        return p;
      snprintf(tried + strlen(tried), sizeof tried - strlen(tried), "%s%s", i ? ", " : "", p);
      free(p);
    }
  }
  cc_err_set(err, CC_ERR_TOOL, "cannot find %s (tried %s); build it (cmake target in "
             "src/gpu, needs the Compute Sanitizer headers) or set %s", name,
             tried[0] ? tried : "nothing: /proc/self/exe unreadable", env);
  return NULL;
}
