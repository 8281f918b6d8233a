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

/* ---- libsanitizer-public.so: the CUDA installation's, found at run time ---------------- */

#define SAN_LIB "libsanitizer-public.so"

void cc_cli_cuda_places_from_env(struct cc_cli_cuda_places *p)
{
  p->cuda_home = getenv("CUDA_HOME");
  p->path = getenv("PATH");
  p->default_root = "/usr/local/cuda";
  p->ld_library_path = getenv("LD_LIBRARY_PATH");
}

/* The folders tried so far, and the hit. */
struct san_search {
  CC_VEC(char *) dirs;  /* tried, owned */
  char *tried;          /* "DIR (WHY), ..." for the message, owned */
  char *dir, *origin;   /* the hit, owned, or NULL */
};

/* Tries folder dir (why: where it came from); 1 once a folder held the library. */
static int try_dir(struct san_search *s, const char *dir, const char *why)
{
  char *file, *entry;
  size_t old;
  if (s->dir)
    return 1;
  for (size_t i = 0; i < s->dirs.len; i++) /* CUDA_HOME=/usr/local/cuda: tried once */
    if (strcmp(s->dirs.data[i], dir) == 0)
      return 0;
  CC_VEC_PUSH(&s->dirs, cc_xstrdup(dir));
  file = join(dir, "", SAN_LIB);
  if (access(file, R_OK) == 0) {
    s->dir = cc_xstrdup(dir);
    s->origin = cc_xstrdup(why);
    free(file);
    return 1;
  }
  free(file);
  old = s->tried ? strlen(s->tried) : 0;
  entry = cc_xmalloc(strlen(dir) + strlen(why) + 8);
  sprintf(entry, "%s%s (%s)", old ? ", " : "", dir, why);
  s->tried = cc_xrealloc(s->tried, old + strlen(entry) + 1);
  strcpy(s->tried + old, entry);
  free(entry);
  return 0;
}

/* Tries ROOT/compute-sanitizer. */
static int try_root(struct san_search *s, const char *root, const char *why)
{
  char *dir = join(root, "", "compute-sanitizer");
  int hit = try_dir(s, dir, why);
  free(dir);
  return hit;
}

/* Tries the toolkit of nvcc_path (ROOT/bin/nvcc). */
static int try_nvcc(struct san_search *s, const char *nvcc_path, const char *why)
{
  char *root = cc_xstrdup(nvcc_path), *slash;
  int hit = 0;
  if ((slash = strrchr(root, '/')) != NULL) {
    *slash = '\0'; /* ROOT/bin */
    slash = strrchr(root, '/');
    if (slash && strcmp(slash, "/bin") == 0) {
      *slash = '\0';
      hit = try_root(s, *root ? root : "/", why);
    } else {
      char *up = join(root, "", "..");
      hit = try_root(s, up, why);
      free(up);
    }
  }
  free(root);
  return hit;
}

int cc_cli_gpu_find_sanitizer(const struct cc_cli_cuda_places *p, char **dir, char **origin,
                              struct cc_err *err)
{
  struct san_search s;
  char *nvcc = p->path ? cc_cli_find_program("nvcc", p->path, NULL) : NULL;
  int rc = CC_OK;
  memset(&s, 0, sizeof s);
  if (p->cuda_home && *p->cuda_home)
    try_root(&s, p->cuda_home, "$CUDA_HOME");
  if (nvcc) {
    char real[PATH_MAX];
    try_nvcc(&s, nvcc, "the nvcc on PATH");
    if (realpath(nvcc, real)) /* /usr/bin/nvcc -> the toolkit's bin/nvcc */
      try_nvcc(&s, real, "the nvcc on PATH, links resolved");
  }
  if (p->default_root)
    try_root(&s, p->default_root, "the default");
  for (const char *l = p->ld_library_path; l && *l && !s.dir;) {
    size_t n = strcspn(l, ":");
    char *d = cc_xstrndup(l, n);
    if (n)
      try_dir(&s, d, "LD_LIBRARY_PATH");
    free(d);
    l += n + (l[n] == ':');
  }
  if (s.dir) {
    *dir = s.dir;
    *origin = s.origin;
  } else {
    *dir = *origin = NULL;
    rc = cc_err_set(err, CC_ERR_TOOL, "cannot find %s, the CUDA toolkit's Compute Sanitizer "
                    "library that libcoalcheck_gpu.so needs; tried %s%s%s; set CUDA_HOME to "
                    "the toolkit's folder (the one holding compute-sanitizer/), or put the "
                    "folder of %s on LD_LIBRARY_PATH", SAN_LIB, s.tried ? s.tried : "nothing",
                    p->cuda_home && *p->cuda_home ? "" : "; CUDA_HOME is not set",
                    nvcc ? "" : "; no nvcc on PATH", SAN_LIB);
  }
  for (size_t i = 0; i < s.dirs.len; i++)
    free(s.dirs.data[i]);
  CC_VEC_FREE(&s.dirs);
  free(s.tried);
  free(nvcc);
  return rc;
}

int cc_cli_gpu_files_find(struct cc_cli_gpu_files *f, int quiet, struct cc_err *err)
{
  struct cc_cli_cuda_places where;
  int rc;
  memset(f, 0, sizeof *f);
  if (!(f->lib = cc_cli_gpu_find_file("COALCHECK_GPU_LIB", "libcoalcheck_gpu.so", err)))
    return err->status;
  cc_cli_cuda_places_from_env(&where);
  if ((rc = cc_cli_gpu_find_sanitizer(&where, &f->san_dir, &f->san_origin, err)) != CC_OK) {
    cc_cli_gpu_files_release(f);
    return rc;
  }
  if (!quiet)
    fprintf(stderr, "coalcheck: GPU library %s, with %s/" SAN_LIB " (from %s)\n", f->lib,
            f->san_dir, f->san_origin);
  return CC_OK;
}

void cc_cli_gpu_files_release(struct cc_cli_gpu_files *f)
{
  free(f->lib);
  free(f->san_dir);
  free(f->san_origin);
  memset(f, 0, sizeof *f);
}
