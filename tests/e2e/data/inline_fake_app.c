/* tests/e2e/gpu_inline_app.sh: an application that does what static cudart does: dlopen
 * the driver, dlsym cuGetProcAddress_v2, load a fatbin as a library (FATBIN NAME LAUNCHES
 * GRID), get the kernel, launch it LAUNCHES times, unload. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef int (*gpa_t)(const char *, void **, int, unsigned long long, int *);
typedef int (*lib_load_t)(void **, const void *, void *, void **, unsigned, void *, void **, unsigned);
typedef int (*get_kernel_t)(void **, void *, const char *);
typedef int (*kernel_fn_t)(void **, void *);
typedef int (*launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
typedef int (*unload_t)(void *);
int main(int argc, char **argv)
{
  if (argc < 5) return 2;
  FILE *f = fopen(argv[1], "rb"); static char img[1 << 20]; size_t n = fread(img, 1, sizeof img, f); fclose(f); (void)n;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  gpa_t gpa = (gpa_t)dlsym(lib, "cuGetProcAddress_v2");
  lib_load_t load; get_kernel_t gk; kernel_fn_t kf; launch_t launch; unload_t unload;
  gpa("cuLibraryLoadData", (void **)&load, 12000, 0, NULL);
  gpa("cuLibraryGetKernel", (void **)&gk, 12000, 0, NULL);
  gpa("cuKernelGetFunction", (void **)&kf, 12000, 0, NULL);
  gpa("cuLaunchKernel", (void **)&launch, 12000, 0, NULL);
  gpa("cuLibraryUnload", (void **)&unload, 12000, 0, NULL);
  void *l, *k, *fn; float *a = 0; int nn = 0; void *params[2] = {&a, &nn};
  if (load(&l, img, 0, 0, 0, 0, 0, 0) || gk(&k, l, argv[2]) || kf(&fn, k)) return 3;
  for (int i = 0; i < atoi(argv[3]); i++)
    launch(fn, (unsigned)atoi(argv[4]), 1, 1, 32, 1, 1, 0, 0, params, 0);
  unload(l);
  return 0;
}
