/* coalcheck GPU backend, application mode with inline counters (issue 14): the state
 * shared by hook.c (the driver entry points the application gets) and inline_app.c (the
 * instrumented modules, their counters and the report). Private to
 * libcoalcheck_inline.so; see README.md, "Inline counters for applications". */
#ifndef CC_GPU_INLINE_APP_H
#define CC_GPU_INLINE_APP_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#define CC_INL_HIDDEN __attribute__((visibility("hidden")))

/* The driver's own entry points that the library calls itself (never the wrappers). */
struct cc_inl_driver {
  CUresult (*mem_alloc)(CUdeviceptr *, size_t);
  CUresult (*mem_free)(CUdeviceptr);
  CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
  CUresult (*ctx_synchronize)(void);
  CUresult (*ctx_get_device)(CUdevice *);
  CUresult (*device_get_attribute)(int *, CUdevice_attribute, CUdevice);
};

/* One module the library loaded instrumented (inline_app.c). */
struct cc_inl_module;

/* A module image prepared for loading: the instrumented PTX, or nothing (load the
 * application's image unchanged). */
struct cc_inl_load {
  char *ptx;                  /* instrumented PTX text (NUL-terminated), or NULL */
  struct cc_inl_module *mod;  /* its record, registered by cc_inl_loaded */
};

/* The driver table, filled once (hook.c: dlopen of libcuda.so.1). NULL when the driver
 * cannot be opened. */
CC_INL_HIDDEN const struct cc_inl_driver *cc_inl_driver(void);

/* Prepares image (a fatbin, its wrapper, a cubin or PTX text) for loading: L->ptx is the
 * instrumented PTX of the fatbin's best PTX entry for the current device, or NULL (with
 * a note at exit naming why: no PTX, parse or pass refused it, not a fatbin). */
CC_INL_HIDDEN void cc_inl_prepare(const void *image, struct cc_inl_load *L);

/* The driver loaded L->ptx as handle (a CUmodule or CUlibrary), or refused it (res != 0,
 * log: the JIT's error log): records the module or the note, frees L->ptx. */
CC_INL_HIDDEN void cc_inl_loaded(struct cc_inl_load *L, void *handle, CUresult res,
                                 const char *log);

/* name's handle h (CUfunction or CUkernel) of module or library parent; ignored when
 * parent was not loaded instrumented. alias: h2 is another handle of the same kernel
 * (cuKernelGetFunction). */
CC_INL_HIDDEN void cc_inl_handle(void *parent, const char *name, void *h);
CC_INL_HIDDEN void cc_inl_alias(void *h, void *h2);

/* The launch of handle f: 0 when f is not an instrumented kernel (launch unchanged);
 * else 1, *nparams its original parameter count and *buf the counter buffer to pass
 * (0: this launch is not measured). */
CC_INL_HIDDEN int cc_inl_launch(void *f, const unsigned grid[3], const unsigned block[3],
                                uint32_t *nparams, CUdeviceptr *buf);

/* A note at exit (printf format), e.g. a launch form the library cannot extend. */
CC_INL_HIDDEN void cc_inl_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The module or library handle is about to be unloaded: read its counters first. */
CC_INL_HIDDEN void cc_inl_unload(void *handle);

/* COALCHECK_GPU_DEBUG: one line on stderr per event. */
CC_INL_HIDDEN void cc_inl_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
