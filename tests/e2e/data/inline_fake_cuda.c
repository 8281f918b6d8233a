/* tests/e2e/gpu_inline_app.sh: a stand-in libcuda.so.1 for application mode's inline
 * counters. Host memory stands in for device memory; a launch whose counter parameter
 * (kernelParams[FAKE_NPARAMS]) is not NULL adds, as the instrumented kernel would for a
 * grid of gx CTAs of one warp reading 32 consecutive floats, to site 0 shard 0:
 * requests gx, sectors 4 gx, lanes 32 gx, ideal 4 gx, span 124 gx, strides 4. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
static int instrumented; /* the last image loaded was instrumented PTX */
CUresult cuInit(unsigned f) { (void)f; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(uintptr_t)malloc(n); return 0; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return 0; }
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) { memset((void *)(uintptr_t)p, v, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuCtxGetDevice(int *d) { *d = 0; return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 75 ? 9 : 0; return 0; }
CUresult cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v)
{ (void)n; (void)o; (void)v; *m = malloc(1);
  const char *t = img; int inl = strstr(t, "__cc_counters") != NULL;
  fprintf(stderr, "fake: load %s\n", inl ? "instrumented PTX" : "image"); instrumented = inl; return 0; }
CUresult cuModuleLoadData(void **m, const void *img) { return cuModuleLoadDataEx(m, img, 0, 0, 0); }
CUresult cuLibraryLoadData(void **l, const void *img, int *o, void **v, unsigned n, int *lo, void **lv, unsigned ln)
{ (void)lo; (void)lv; (void)ln; return cuModuleLoadDataEx(l, img, n, o, v); }
CUresult cuLibraryGetKernel(void **k, void *l, const char *name) { (void)l; *k = strdup(name); return 0; }
CUresult cuModuleGetFunction(void **k, void *m, const char *name) { (void)m; *k = strdup(name); return 0; }
CUresult cuKernelGetFunction(void **f, void *k) { *f = (char *)k + 1; return 0; }
CUresult cuLibraryUnload(void *l) { (void)l; fprintf(stderr, "fake: unload\n"); return 0; }
CUresult cuModuleUnload(void *l) { (void)l; return 0; }
/* nparams: argv of the app says; the counter pointer is kernelParams[NP] */
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, void *st, void **params, void **extra)
{
  (void)f; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)st; (void)extra;
  int np = atoi(getenv("FAKE_NPARAMS"));
  CUdeviceptr b = instrumented ? *(CUdeviceptr *)params[np] : 0;
  if (b) { /* a warp per CTA, lanes 4 bytes apart: 4 sectors, ideal 4, strides 4 */
    uint64_t *c = (uint64_t *)(uintptr_t)(b & ~(CUdeviceptr)4095); /* the salt: low bits */
    c[0] += gx; c[1] += 4 * gx; c[2] += 32 * gx; c[4] += 4 * gx; c[5] += 124 * gx;
    c[6] = UINT64_MAX - 4; c[7] = 4;
  }
  fprintf(stderr, "fake: launch grid %u buffer %s\n", gx, !instrumented ? "none" : b ? "set" : "null");
  return 0;
}
struct fn { const char *name; void *p; };
CUresult cuGetProcAddress_v2(const char *s, void **pfn, int ver, unsigned long long fl, int *st);
static const struct fn fns[] = {
  {"cuModuleLoadData", (void *)cuModuleLoadData}, {"cuModuleLoadDataEx", (void *)cuModuleLoadDataEx},
  {"cuLibraryLoadData", (void *)cuLibraryLoadData}, {"cuLibraryGetKernel", (void *)cuLibraryGetKernel},
  {"cuKernelGetFunction", (void *)cuKernelGetFunction}, {"cuModuleGetFunction", (void *)cuModuleGetFunction},
  {"cuLaunchKernel", (void *)cuLaunchKernel}, {"cuLibraryUnload", (void *)cuLibraryUnload},
  {"cuGetProcAddress", (void *)cuGetProcAddress_v2}};
CUresult cuGetProcAddress_v2(const char *s, void **pfn, int ver, unsigned long long fl, int *st)
{ (void)ver; (void)fl; if (st) *st = 0;
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
    if (!strcmp(fns[i].name, s)) { *pfn = fns[i].p; return 0; }
  *pfn = NULL; return 500; }
