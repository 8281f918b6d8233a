/* coalcheck GPU backend, application mode with inline counters: the driver entry points
 * the application gets (issue 14; README.md, "Inline counters for applications").
 *
 * cudart (static, nvcc's default) opens libcuda.so.1 with dlopen and takes every driver
 * entry point from cuGetProcAddress, which it finds with dlsym. This library is
 * preloaded (LD_PRELOAD) and defines dlsym: lookups of cuGetProcAddress[_v2] (and of
 * the wrapped names themselves, for applications that dlsym them) return the wrappers
 * below; the getter's answers for the module loaders, kernel handle getters, launches and
 * unloads are swapped for wrappers too. Everything else passes through untouched. The
 * real dlsym is glibc's (dlvsym "GLIBC_2.34", older glibc "GLIBC_2.2.5"), as HAMi-core
 * and similar hooks do. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/inline_app.h"

typedef void *(*dlsym_fn)(void *, const char *);

/* The wrapped entry points; _PTSZ: the per-thread default stream variants, asked for with
 * CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM or by their _ptsz names. */
enum hook_id {
  H_LOAD_DATA, H_LOAD_DATA_EX, H_LOAD_FATBIN, H_LIB_LOAD, H_GET_FUNCTION, H_LIB_GET_KERNEL,
  H_KERNEL_GET_FUNCTION, H_LIB_GET_MODULE, H_LAUNCH, H_LAUNCH_PTSZ, H_LAUNCH_EX,
  H_LAUNCH_EX_PTSZ, H_COOP, H_COOP_PTSZ, H_MOD_UNLOAD, H_LIB_UNLOAD, H_GPA, H_GPA_V2, H_N
};

/* The real entry points behind the wrappers, as the driver handed them out. */
static _Atomic(void *) real[H_N];
static _Atomic(dlsym_fn) real_dlsym_fn;

static dlsym_fn real_dlsym(void)
{
  dlsym_fn f = atomic_load(&real_dlsym_fn);
  if (!f) {
    if (!(*(void **)&f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34")))
      *(void **)&f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    atomic_store(&real_dlsym_fn, f);
  }
  return f;
}

#define REAL(id, type) ((type)atomic_load(&real[id]))

/* A symbol of libcuda.so.1 by the real dlsym (the library's own calls), or NULL. */
static void *dlsym_driver(const char *name)
{
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!lib && !(lib = dlopen("libcuda.so.1", RTLD_NOW)))
    return NULL;
  return real_dlsym()(lib, name);
}

const struct cc_inl_driver *cc_inl_driver(void)
{
  static struct cc_inl_driver d;
  static _Atomic int state; /* 0 not yet, 1 filled, 2 failed */
  int s = atomic_load(&state);
  if (s == 0) {
    *(void **)&d.mem_alloc = dlsym_driver("cuMemAlloc_v2");
    *(void **)&d.mem_free = dlsym_driver("cuMemFree_v2");
    *(void **)&d.memset_d8 = dlsym_driver("cuMemsetD8_v2");
    *(void **)&d.memcpy_dtoh = dlsym_driver("cuMemcpyDtoH_v2");
    *(void **)&d.ctx_synchronize = dlsym_driver("cuCtxSynchronize");
    *(void **)&d.ctx_get_device = dlsym_driver("cuCtxGetDevice");
    *(void **)&d.device_get_attribute = dlsym_driver("cuDeviceGetAttribute");
    s = d.mem_alloc && d.mem_free && d.memset_d8 && d.memcpy_dtoh && d.ctx_synchronize &&
        d.ctx_get_device && d.device_get_attribute ? 1 : 2;
    atomic_store(&state, s);
  }
  return s == 1 ? &d : NULL;
}

/* ---- module loading ---- */

typedef CUresult (*load_ex_fn)(CUmodule *, const void *, unsigned, CUjit_option *, void **);
typedef CUresult (*lib_load_fn)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
                                CUlibraryOption *, void **, unsigned);

/* JIT options for an instrumented load: the application's, less its log buffers, plus
 * line information (the report's lines when the application was built with -lineinfo)
 * and an error log of our own (the note when the JIT refuses the instrumented PTX). */
struct jit_opts {
  CUjit_option o[32];
  void *v[32];
  unsigned n;
  char log[4096];
};

static void jit_opts_init(struct jit_opts *j, unsigned n, const CUjit_option *o, void **v)
{
  j->n = 0;
  j->log[0] = '\0';
  for (unsigned i = 0; i < n && j->n < 29; i++) {
    if (o[i] == CU_JIT_ERROR_LOG_BUFFER || o[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES ||
        o[i] == CU_JIT_INFO_LOG_BUFFER || o[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES ||
        o[i] == CU_JIT_GENERATE_LINE_INFO)
      continue;
    j->o[j->n] = o[i];
    j->v[j->n++] = v ? v[i] : NULL;
  }
  j->o[j->n] = CU_JIT_GENERATE_LINE_INFO;
  j->v[j->n++] = (void *)(uintptr_t)1;
  j->o[j->n] = CU_JIT_ERROR_LOG_BUFFER;
  j->v[j->n++] = j->log;
  j->o[j->n] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
  j->v[j->n++] = (void *)(uintptr_t)sizeof j->log;
}

/* Loads image as a module: instrumented when inline_app.c can, else unchanged through
 * the wrapper's own real entry point (id). */
static CUresult load_module(enum hook_id id, CUmodule *m, const void *image, unsigned n,
                            CUjit_option *o, void **v)
{
  struct cc_inl_load L = {0};
  load_ex_fn ex = (load_ex_fn)dlsym_driver("cuModuleLoadDataEx");
  cc_inl_prepare(image, &L);
  if (L.ptx && ex) {
    struct jit_opts j;
    jit_opts_init(&j, n, o, v);
    CUresult r = ex(m, L.ptx, j.n, j.o, j.v);
    cc_inl_loaded(&L, r == CUDA_SUCCESS ? *m : NULL, r, j.log);
    if (r == CUDA_SUCCESS)
      return r;
  } else if (L.ptx) {
    cc_inl_loaded(&L, NULL, CUDA_ERROR_NOT_FOUND, "cuModuleLoadDataEx not found");
  }
  switch (id) {
  case H_LOAD_DATA:
    return REAL(id, CUresult (*)(CUmodule *, const void *))(m, image);
  case H_LOAD_FATBIN:
    return REAL(id, CUresult (*)(CUmodule *, const void *))(m, image);
  default:
    return REAL(id, load_ex_fn)(m, image, n, o, v);
  }
}

static CUresult w_load_data(CUmodule *m, const void *image)
{
  return load_module(H_LOAD_DATA, m, image, 0, NULL, NULL);
}

static CUresult w_load_data_ex(CUmodule *m, const void *image, unsigned n, CUjit_option *o,
                               void **v)
{
  return load_module(H_LOAD_DATA_EX, m, image, n, o, v);
}

static CUresult w_load_fatbin(CUmodule *m, const void *image)
{
  return load_module(H_LOAD_FATBIN, m, image, 0, NULL, NULL);
}

static CUresult w_lib_load(CUlibrary *l, const void *code, CUjit_option *o, void **v,
                           unsigned n, CUlibraryOption *lo, void **lv, unsigned ln)
{
  struct cc_inl_load L = {0};
  cc_inl_prepare(code, &L);
  if (L.ptx) {
    struct jit_opts j;
    jit_opts_init(&j, n, o, v);
    CUresult r = REAL(H_LIB_LOAD, lib_load_fn)(l, L.ptx, j.o, j.v, j.n, lo, lv, ln);
    cc_inl_loaded(&L, r == CUDA_SUCCESS ? *l : NULL, r, j.log);
    if (r == CUDA_SUCCESS)
      return r;
  }
  return REAL(H_LIB_LOAD, lib_load_fn)(l, code, o, v, n, lo, lv, ln);
}

static CUresult w_mod_unload(CUmodule m)
{
  cc_inl_unload(m);
  return REAL(H_MOD_UNLOAD, CUresult (*)(CUmodule))(m);
}

static CUresult w_lib_unload(CUlibrary l)
{
  cc_inl_unload(l);
  return REAL(H_LIB_UNLOAD, CUresult (*)(CUlibrary))(l);
}

/* ---- kernel handles ---- */

static CUresult w_get_function(CUfunction *f, CUmodule m, const char *name)
{
  CUresult r = REAL(H_GET_FUNCTION, CUresult (*)(CUfunction *, CUmodule, const char *))(f, m,
                                                                                       name);
  if (r == CUDA_SUCCESS)
    cc_inl_handle(m, name, *f);
  return r;
}

static CUresult w_lib_get_kernel(CUkernel *k, CUlibrary l, const char *name)
{
  CUresult r = REAL(H_LIB_GET_KERNEL, CUresult (*)(CUkernel *, CUlibrary, const char *))(k, l,
                                                                                         name);
  if (r == CUDA_SUCCESS)
    cc_inl_handle(l, name, *k);
  return r;
}

static CUresult w_kernel_get_function(CUfunction *f, CUkernel k)
{
  CUresult r = REAL(H_KERNEL_GET_FUNCTION, CUresult (*)(CUfunction *, CUkernel))(f, k);
  if (r == CUDA_SUCCESS)
    cc_inl_alias(k, *f);
  return r;
}

static CUresult w_lib_get_module(CUmodule *m, CUlibrary l)
{
  CUresult r = REAL(H_LIB_GET_MODULE, CUresult (*)(CUmodule *, CUlibrary))(m, l);
  if (r == CUDA_SUCCESS)
    cc_inl_alias(l, *m);
  return r;
}

/* ---- launches ---- */

/* The parameters of an instrumented launch: the application's nparams pointers, then
 * the counter buffer's address (the kernel's last, added parameter). */
struct launch_params {
  void *stack[64];
  void **p;
  CUdeviceptr buf;
  /* the `extra` form: the application's buffer with the 8-byte pointer appended */
  void *extra[5];
  unsigned char *bytes;
  size_t size;
};

/* Fills lp for params or extra; 0 when neither form can be extended (a note says so). */
static int launch_params_init(struct launch_params *lp, uint32_t n, void **params,
                              void **extra)
{
  lp->p = NULL;
  lp->bytes = NULL;
  if (params) {
    lp->p = n + 1 <= 64 ? lp->stack : malloc((n + 1) * sizeof *lp->p);
    if (!lp->p)
      return 0;
    memcpy(lp->p, params, n * sizeof *lp->p);
    lp->p[n] = &lp->buf;
    return 1;
  }
  const void *src = NULL;
  size_t size = 0;
  for (int i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) src = extra[i + 1];
    else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) size = *(size_t *)extra[i + 1];
    else return 0;
  }
  if (!src && size)
    return 0;
  size_t at = (size + 7) & ~(size_t)7; /* the .u64 parameter's natural alignment */
  if (!(lp->bytes = calloc(1, at + 8)))
    return 0;
  if (size)
    memcpy(lp->bytes, src, size);
  memcpy(lp->bytes + at, &lp->buf, 8);
  lp->size = at + 8;
  lp->extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
  lp->extra[1] = lp->bytes;
  lp->extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
  lp->extra[3] = &lp->size;
  lp->extra[4] = CU_LAUNCH_PARAM_END;
  return 1;
}

static void launch_params_release(struct launch_params *lp)
{
  if (lp->p && lp->p != lp->stack)
    free(lp->p);
  free(lp->bytes);
}

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*coop_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, CUstream, void **);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);

/* One launch of f through the real entry point id (cuLaunchKernel, cuLaunchCooperativeKernel
 * or cuLaunchKernelEx, maybe _ptsz): with the counter buffer appended when f is an
 * instrumented kernel. */
static CUresult launch(enum hook_id id, const CUlaunchConfig *cfg, CUfunction f,
                       const unsigned g[3], const unsigned b[3], unsigned shmem, CUstream st,
                       void **params, void **extra)
{
  struct launch_params lp;
  uint32_t n = 0;
  int inl = cc_inl_launch(f, g, b, &n, &lp.buf);
  if (inl && !launch_params_init(&lp, n, params, extra)) {
    cc_inl_note("a launch passed its parameters in a form the library cannot extend (extra "
                "other than a buffer pointer and size): the launch fails");
    return CUDA_ERROR_INVALID_VALUE;
  }
  void **p = inl ? lp.p : params, **x = inl ? (lp.p ? extra : lp.extra) : extra;
  CUresult r;
  if (id == H_LAUNCH_EX || id == H_LAUNCH_EX_PTSZ)
    r = REAL(id, launch_ex_fn)(cfg, f, p, x);
  else if (id == H_COOP || id == H_COOP_PTSZ)
    r = REAL(id, coop_fn)(f, g[0], g[1], g[2], b[0], b[1], b[2], shmem, st, p);
  else
    r = REAL(id, launch_fn)(f, g[0], g[1], g[2], b[0], b[1], b[2], shmem, st, p, x);
  if (inl)
    launch_params_release(&lp);
  return r;
}

#define LAUNCH_WRAPPER(name, id)                                                           \
  static CUresult name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,   \
                       unsigned by, unsigned bz, unsigned shmem, CUstream st, void **params, \
                       void **extra)                                                       \
  {                                                                                        \
    const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};                               \
    return launch(id, NULL, f, g, b, shmem, st, params, extra);                            \
  }
#define COOP_WRAPPER(name, id)                                                             \
  static CUresult name(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,   \
                       unsigned by, unsigned bz, unsigned shmem, CUstream st, void **params) \
  {                                                                                        \
    const unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};                               \
    return launch(id, NULL, f, g, b, shmem, st, params, NULL);                             \
  }
#define LAUNCH_EX_WRAPPER(name, id)                                                        \
  static CUresult name(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) \
  {                                                                                        \
    const unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};                         \
    const unsigned b[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};                      \
    return launch(id, c, f, g, b, c->sharedMemBytes, c->hStream, params, extra);           \
  }
LAUNCH_WRAPPER(w_launch, H_LAUNCH)
LAUNCH_WRAPPER(w_launch_ptsz, H_LAUNCH_PTSZ)
COOP_WRAPPER(w_coop, H_COOP)
COOP_WRAPPER(w_coop_ptsz, H_COOP_PTSZ)
LAUNCH_EX_WRAPPER(w_launch_ex, H_LAUNCH_EX)
LAUNCH_EX_WRAPPER(w_launch_ex_ptsz, H_LAUNCH_EX_PTSZ)

/* ---- the entry-point getters ---- */

static void *swap(const char *symbol, void *p, int ptsz);

static CUresult w_gpa(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
  CUresult r = REAL(H_GPA, CUresult (*)(const char *, void **, int, cuuint64_t))(
      symbol, pfn, version, flags);
  if (r == CUDA_SUCCESS && pfn && *pfn)
    *pfn = swap(symbol, *pfn, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
  return r;
}

static CUresult w_gpa_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                         CUdriverProcAddressQueryResult *status)
{
  CUresult r = REAL(H_GPA_V2, CUresult (*)(const char *, void **, int, cuuint64_t,
                                           CUdriverProcAddressQueryResult *))(
      symbol, pfn, version, flags, status);
  if (r == CUDA_SUCCESS && pfn && *pfn)
    *pfn = swap(symbol, *pfn, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
  return r;
}

/* name: as cuGetProcAddress is asked for it; exported: as dlsym is (NULL: the same) */
static const struct hook {
  const char *name, *exported;
  int ptsz;
  void *wrapper;
} hooks[H_N] = {
    [H_LOAD_DATA] = {"cuModuleLoadData", NULL, 0, (void *)w_load_data},
    [H_LOAD_DATA_EX] = {"cuModuleLoadDataEx", NULL, 0, (void *)w_load_data_ex},
    [H_LOAD_FATBIN] = {"cuModuleLoadFatBinary", NULL, 0, (void *)w_load_fatbin},
    [H_LIB_LOAD] = {"cuLibraryLoadData", NULL, 0, (void *)w_lib_load},
    [H_GET_FUNCTION] = {"cuModuleGetFunction", NULL, 0, (void *)w_get_function},
    [H_LIB_GET_KERNEL] = {"cuLibraryGetKernel", NULL, 0, (void *)w_lib_get_kernel},
    [H_KERNEL_GET_FUNCTION] = {"cuKernelGetFunction", NULL, 0, (void *)w_kernel_get_function},
    [H_LIB_GET_MODULE] = {"cuLibraryGetModule", NULL, 0, (void *)w_lib_get_module},
    [H_LAUNCH] = {"cuLaunchKernel", NULL, 0, (void *)w_launch},
    [H_LAUNCH_PTSZ] = {"cuLaunchKernel", "cuLaunchKernel_ptsz", 1, (void *)w_launch_ptsz},
    [H_LAUNCH_EX] = {"cuLaunchKernelEx", NULL, 0, (void *)w_launch_ex},
    [H_LAUNCH_EX_PTSZ] = {"cuLaunchKernelEx", "cuLaunchKernelEx_ptsz", 1,
                          (void *)w_launch_ex_ptsz},
    [H_COOP] = {"cuLaunchCooperativeKernel", NULL, 0, (void *)w_coop},
    [H_COOP_PTSZ] = {"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", 1,
                     (void *)w_coop_ptsz},
    [H_MOD_UNLOAD] = {"cuModuleUnload", NULL, 0, (void *)w_mod_unload},
    [H_LIB_UNLOAD] = {"cuLibraryUnload", NULL, 0, (void *)w_lib_unload},
    [H_GPA] = {"cuGetProcAddress", NULL, 0, (void *)w_gpa},
    [H_GPA_V2] = {"cuGetProcAddress_v2", NULL, 0, (void *)w_gpa_v2},
};

/* The wrapper to hand out for the driver's p, or p itself. cuGetProcAddress asked for
 * "cuGetProcAddress" answers v1 or v2 by the caller's version: told apart by address. */
static void *swap(const char *symbol, void *p, int ptsz)
{
  if (strcmp(symbol, "cuGetProcAddress") == 0 && p == dlsym_driver("cuGetProcAddress_v2"))
    symbol = "cuGetProcAddress_v2";
  for (int i = 0; i < H_N; i++) {
    const struct hook *h = &hooks[i];
    if (h->ptsz == ptsz && strcmp(h->name, symbol) == 0) {
      if (p == h->wrapper)
        return p;
      atomic_store(&real[i], p);
      cc_inl_debug("hook %s%s", symbol, ptsz ? " (per-thread stream)" : "");
      return h->wrapper;
    }
  }
  return p;
}

/* The symbol as looked up by dlsym: _ptsz names are their own entry points. */
static void *swap_exported(const char *symbol, void *p)
{
  for (int i = 0; i < H_N; i++)
    if (hooks[i].exported && strcmp(hooks[i].exported, symbol) == 0) {
      atomic_store(&real[i], p);
      cc_inl_debug("hook %s (dlsym)", symbol);
      return hooks[i].wrapper;
    }
  return swap(symbol, p, 0);
}

__attribute__((visibility("default"))) void *dlsym(void *handle, const char *symbol)
{
  dlsym_fn f = real_dlsym();
  void *p = f ? f(handle, symbol) : NULL;
  if (p && symbol[0] == 'c' && symbol[1] == 'u')
    p = swap_exported(symbol, p);
  return p;
}
