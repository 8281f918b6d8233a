/* coalcheck-gpu-launch: runs one kernel launch described by a launch plan on the GPU,
 * through the CUDA driver API, so that `coalcheck --backend gpu KERNEL.cu ...` can run a
 * kernel (not a whole application) under the injection library libcoalcheck_gpu.so.
 *
 *   coalcheck-gpu-launch PLAN        (coalcheck writes PLAN; see src/cli/gpu_kernel.c)
 *
 * The plan (text, one directive a line, paths relative to the plan's folder):
 *   coalcheck-gpu-plan 1
 *   module FILE              PTX (JIT-compiled with line info) or a cubin
 *   kernel MANGLED           the .entry name
 *   grid X Y Z / block X Y Z / shared BYTES (dynamic shared memory per CTA)
 *   param I scalar HEX       parameter I: these bytes (little-endian, 2 hex digits each)
 *   param I buffer FNV SPEC  parameter I: a device buffer filled per SPEC, an --arg
 *                            buffer spec NAME=TYPE[COUNT]:INIT with COUNT a literal
 *                            (src/launch parses and fills it, as for the emulator;
 *                            an offset(BYTES) puts the pointer BYTES into the allocation);
 *                            FNV: FNV-1a 64 of the bytes the emulator's run starts from
 *                            (hex), checked here, so both backends read the same input
 *   dump NAME PATH           after the launch, buffer NAME's bytes to PATH
 *   time RUNS PATH           after the launch (and the dumps): 3 warm-up launches, then
 *                            RUNS launches each timed with CUDA events (no instrumentation
 *                            unless the plan runs under the library); writes one line
 *                            "MEDIAN_MS MIN_MS MAX_MS RUNS" to PATH (`coalcheck fix
 *                            --backend gpu` times the original and the fix this way)
 * Plain C and the CUDA driver opened with dlopen (no cuda.h, no libcuda at link time),
 * so that it builds with gcc alone wherever the injection library is built.
 *
 * Exit status: 0 done; 2 usage; 3 bad plan or buffer mismatch; 8 a CUDA call failed;
 * 10 no CUDA driver or device. Messages: "coalcheck-gpu-launch: error: ...". */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/launch.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/mem.h"

#define MAX_PARAMS 64
#define EXIT_CUDA 8
#define EXIT_NO_GPU 10
#define JIT_GENERATE_LINE_INFO 13 /* CUjit_option CU_JIT_GENERATE_LINE_INFO (cuda.h) */

typedef unsigned long long devptr;
/* the driver entry points used (cuda.h; CUresult is an int-sized enum, 0 = success) */
struct driver {
  void *lib;
  int (*init)(unsigned);
  int (*device_get)(int *, int);
  int (*primary_retain)(void **, int);
  int (*ctx_set)(void *);
  int (*load)(void **, const void *, unsigned, int *, void **);
  int (*get_function)(void **, void *, const char *);
  int (*alloc)(devptr *, size_t);
  int (*htod)(devptr, const void *, size_t);
  int (*dtoh)(void *, devptr, size_t);
  int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                void *, void **, void **);
  int (*sync)(void);
  int (*error_name)(int, const char **);
  int (*event_create)(void **, unsigned);
  int (*event_record)(void *, void *);
  int (*event_sync)(void *);
  int (*event_elapsed)(float *, void *, void *);
};

struct param {
  int is_buffer;
  uint8_t bytes[8];       /* scalar value (at most 8 bytes: .u64/.f64) */
  size_t nbytes;
  struct cc_launch_arg arg;   /* buffer: parsed spec */
  uint64_t count, size, fnv;
  devptr dev;
  uint8_t *host;
};

struct plan {
  char *module, *kernel;
  unsigned grid[3], block[3], shared;
  struct param params[MAX_PARAMS];
  unsigned nparams;
  char *dump_name[MAX_PARAMS], *dump_path[MAX_PARAMS];
  unsigned ndumps;
  unsigned time_runs;     /* 0: no timing */
  char *time_path;
};

static int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("coalcheck-gpu-launch: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

static char *path_in(const char *dir, const char *rel)
{
  char *p;
  if (rel[0] == '/' || !dir)
    return cc_xstrdup(rel);
  p = cc_xmalloc(strlen(dir) + strlen(rel) + 2);
  sprintf(p, "%s/%s", dir, rel);
  return p;
}

static int hex_bytes(const char *s, uint8_t *out, size_t cap, size_t *n)
{
  size_t len = strlen(s);
  if (len == 0 || len % 2 || len / 2 > cap)
    return -1;
  for (size_t i = 0; i < len / 2; i++) {
    unsigned v;
    if (sscanf(s + 2 * i, "%2x", &v) != 1)
      return -1;
    out[i] = (uint8_t)v;
  }
  *n = len / 2;
  return 0;
}

/* One "param" line (after the keyword). */
static int parse_param(struct plan *p, char *rest, const char *where)
{
  unsigned idx;
  int used = 0;
  char kind[16];
  struct cc_err err = {CC_OK, ""};
  if (sscanf(rest, "%u %15s %n", &idx, kind, &used) != 2 || idx >= MAX_PARAMS ||
      idx != p->nparams)
    return fail(3, "%s: bad param line: parameters are numbered 0, 1, ... in order", where);
  struct param *q = &p->params[p->nparams++];
  rest += used;
  if (strcmp(kind, "scalar") == 0) {
    if (hex_bytes(rest, q->bytes, sizeof q->bytes, &q->nbytes) != 0)
      return fail(3, "%s: bad scalar bytes '%s'", where, rest);
    return 0;
  }
  if (strcmp(kind, "buffer") != 0)
    return fail(3, "%s: param kind '%s' is neither scalar nor buffer", where, kind);
  q->is_buffer = 1;
  if (sscanf(rest, "%" SCNx64 " %n", &q->fnv, &used) != 1)
    return fail(3, "%s: buffer without its FNV-1a hash", where);
  rest += used;
  if (cc_launch_arg_parse(rest, NULL, &q->arg, &err) != CC_OK || !q->arg.is_buffer)
    return fail(3, "%s: %s", where, err.msg[0] ? err.msg : "not a buffer spec");
  if (cc_launch_eval_size(q->arg.size_expr, NULL, 0, &q->count, &err) != CC_OK)
    return fail(3, "%s: %s", where, err.msg);
  q->size = q->count * cc_launch_type_size(q->arg.type);
  return 0;
}

static int read_plan(const char *path, struct plan *p)
{
  char *text, *save = NULL, *dir = cc_xstrdup(path), *slash = strrchr(dir, '/');
  struct cc_err err = {CC_OK, ""};
  unsigned lineno = 0;
  int rc = 0, version = 0;
  if (slash)
    *slash = '\0';
  else
    strcpy(dir, ".");
  if (cc_file_read(path, &text, NULL, &err) != CC_OK) {
    free(dir);
    return fail(3, "%s", err.msg);
  }
  for (char *line = strtok_r(text, "\n", &save); line && rc == 0;
       line = strtok_r(NULL, "\n", &save)) {
    char where[512], word[32], arg1[4096];
    int used = 0;
    lineno++;
    snprintf(where, sizeof where, "%s:%u", path, lineno);
    if (sscanf(line, "%31s %n", word, &used) != 1 || word[0] == '#')
      continue;
    char *rest = line + used;
    if (strcmp(word, "coalcheck-gpu-plan") == 0)
      version = atoi(rest);
    else if (strcmp(word, "module") == 0)
      p->module = path_in(dir, rest);
    else if (strcmp(word, "kernel") == 0)
      p->kernel = cc_xstrdup(rest);
    else if (strcmp(word, "grid") == 0)
      rc = sscanf(rest, "%u %u %u", &p->grid[0], &p->grid[1], &p->grid[2]) == 3
               ? 0 : fail(3, "%s: grid needs X Y Z", where);
    else if (strcmp(word, "block") == 0)
      rc = sscanf(rest, "%u %u %u", &p->block[0], &p->block[1], &p->block[2]) == 3
               ? 0 : fail(3, "%s: block needs X Y Z", where);
    else if (strcmp(word, "shared") == 0)
      rc = sscanf(rest, "%u", &p->shared) == 1 ? 0 : fail(3, "%s: shared needs BYTES", where);
    else if (strcmp(word, "param") == 0)
      rc = parse_param(p, rest, where);
    else if (strcmp(word, "time") == 0 && sscanf(rest, "%u %4095s", &p->time_runs, arg1) == 2 &&
             p->time_runs >= 1 && p->time_runs <= 10000)
      p->time_path = path_in(dir, arg1);
    else if (strcmp(word, "dump") == 0 && p->ndumps < MAX_PARAMS &&
             sscanf(rest, "%31s %4095s", word, arg1) == 2) {
      p->dump_name[p->ndumps] = cc_xstrdup(word);
      p->dump_path[p->ndumps++] = path_in(dir, arg1);
    } else
      rc = fail(3, "%s: unknown directive '%s'", where, word);
  }
  free(text);
  free(dir);
  if (rc == 0 && version != 1)
    rc = fail(3, "%s: not a coalcheck-gpu-plan 1 file", path);
  if (rc == 0 && (!p->module || !p->kernel || !p->grid[0] || !p->block[0]))
    rc = fail(3, "%s: module, kernel, grid and block are required", path);
  return rc;
}

static int load_driver(struct driver *d)
{
  d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!d->lib)
    return fail(EXIT_NO_GPU, "no usable CUDA GPU: libcuda.so.1 cannot be loaded (%s)",
                dlerror());
#define SYM(field, name)                                                                   \
  if (!(*(void **)&d->field = dlsym(d->lib, name)))                                        \
    return fail(EXIT_NO_GPU, "no usable CUDA GPU: the driver lacks %s", name);
  SYM(init, "cuInit") SYM(device_get, "cuDeviceGet")
  SYM(primary_retain, "cuDevicePrimaryCtxRetain") SYM(ctx_set, "cuCtxSetCurrent")
  SYM(load, "cuModuleLoadDataEx") SYM(get_function, "cuModuleGetFunction")
  SYM(alloc, "cuMemAlloc_v2") SYM(htod, "cuMemcpyHtoD_v2") SYM(dtoh, "cuMemcpyDtoH_v2")
  SYM(launch, "cuLaunchKernel") SYM(sync, "cuCtxSynchronize") SYM(error_name, "cuGetErrorName")
  SYM(event_create, "cuEventCreate") SYM(event_record, "cuEventRecord")
  SYM(event_sync, "cuEventSynchronize") SYM(event_elapsed, "cuEventElapsedTime")
#undef SYM
  return 0;
}

static int cuda_fail(const struct driver *d, int r, const char *what)
{
  const char *name = "?";
  d->error_name(r, &name);
  return fail(EXIT_CUDA, "%s failed: %s (%d)", what, name ? name : "?", r);
}

#define CU(call, what)                                                                     \
  do {                                                                                     \
    int r_ = (call);                                                                       \
    if (r_ != 0)                                                                           \
      return cuda_fail(d, r_, what);                                                       \
  } while (0)

/* Fills every buffer on the host (src/launch) and checks it against the plan's hash:
 * before any CUDA call, so that a mismatch shows on machines without a GPU too. */
static int fill_buffers(struct plan *p)
{
  for (unsigned i = 0; i < p->nparams; i++) {
    struct param *q = &p->params[i];
    struct cc_err err = {CC_OK, ""};
    if (!q->is_buffer)
      continue;
    q->host = calloc(q->size ? q->size : 1, 1);
    if (!q->host)
      return fail(3, "out of memory for buffer '%s' (%llu bytes)", q->arg.name,
                  (unsigned long long)q->size);
    if (cc_launch_fill(&q->arg, q->count, q->host, &err) != CC_OK)
      return fail(3, "buffer '%s': %s", q->arg.name, err.msg);
    if (cc_fnv1a64(q->host, q->size) != q->fnv)
      return fail(3, "buffer '%s': its bytes differ from the emulator's (FNV-1a %016llx, "
                  "plan %016llx); rebuild coalcheck-gpu-launch from the same sources",
                  q->arg.name, (unsigned long long)cc_fnv1a64(q->host, q->size),
                  (unsigned long long)q->fnv);
  }
  return 0;
}

/* Copies every buffer to the device; the parameter becomes its device address. */
static int make_buffers(const struct driver *d, struct plan *p)
{
  for (unsigned i = 0; i < p->nparams; i++) {
    struct param *q = &p->params[i];
    if (!q->is_buffer)
      continue;
    /* offset(BYTES): BYTES more, the kernel's pointer BYTES past cuMemAlloc's start */
    CU(d->alloc(&q->dev, q->size + q->arg.offset ? q->size + q->arg.offset : 1), "cuMemAlloc");
    q->dev += q->arg.offset;
    CU(d->htod(q->dev, q->host, q->size), "cuMemcpyHtoD");
    q->nbytes = sizeof q->dev;
    memcpy(q->bytes, &q->dev, sizeof q->dev);
  }
  return 0;
}

static int dump_buffers(const struct driver *d, struct plan *p)
{
  for (unsigned k = 0; k < p->ndumps; k++) {
    struct param *q = NULL;
    struct cc_err err = {CC_OK, ""};
    struct cc_launch_buffer b;
    for (unsigned i = 0; i < p->nparams; i++)
      if (p->params[i].is_buffer && strcmp(p->params[i].arg.name, p->dump_name[k]) == 0)
        q = &p->params[i];
    if (!q)
      return fail(3, "dump %s: no buffer parameter has that name", p->dump_name[k]);
    CU(d->dtoh(q->host, q->dev, q->size), "cuMemcpyDtoH");
    memset(&b, 0, sizeof b);
    b.name = q->arg.name;
    b.type = q->arg.type;
    b.count = q->count;
    b.bytes = q->size;
    b.host = q->host;
    b.layout = &q->arg.layout;
    if (cc_launch_dump(&b, p->dump_path[k], &err) != CC_OK)
      return fail(7, "%s", err.msg);
  }
  return 0;
}

static int cmp_float(const void *a, const void *b)
{
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The `time` directive: 3 warm-up launches, then p->time_runs timed ones (one event pair
 * each, on the default stream); the median, minimum and maximum to p->time_path. */
static int time_kernel(const struct driver *d, struct plan *p, void *fn, void **args)
{
  void *start, *stop;
  float *ms = calloc(p->time_runs, sizeof *ms);
  FILE *fp;
  if (!ms)
    return fail(3, "out of memory");
  CU(d->event_create(&start, 0), "cuEventCreate");
  CU(d->event_create(&stop, 0), "cuEventCreate");
  for (unsigned r = 0; r < 3 + p->time_runs; r++) {
    CU(d->event_record(start, NULL), "cuEventRecord");
    CU(d->launch(fn, p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1], p->block[2],
                 p->shared, NULL, args, NULL), "cuLaunchKernel");
    CU(d->event_record(stop, NULL), "cuEventRecord");
    CU(d->event_sync(stop), "the kernel (cuEventSynchronize)");
    if (r >= 3)
      CU(d->event_elapsed(&ms[r - 3], start, stop), "cuEventElapsedTime");
  }
  qsort(ms, p->time_runs, sizeof *ms, cmp_float);
  fp = fopen(p->time_path, "w");
  if (!fp || fprintf(fp, "%.6f %.6f %.6f %u\n", (double)ms[p->time_runs / 2], (double)ms[0],
                     (double)ms[p->time_runs - 1], p->time_runs) < 0 || fclose(fp) != 0) {
    free(ms);
    return fail(7, "cannot write %s", p->time_path);
  }
  free(ms);
  return 0;
}

static int run(const struct driver *d, struct plan *p)
{
  void *ctx = NULL, *mod = NULL, *fn = NULL, *args[MAX_PARAMS];
  char *image;
  size_t len;
  struct cc_err err = {CC_OK, ""};
  int opt = JIT_GENERATE_LINE_INFO;
  void *optval = (void *)(uintptr_t)1;
  int r = d->init(0);
  if (r != 0) {
    const char *name = "?";
    d->error_name(r, &name);
    return fail(EXIT_NO_GPU, "no usable CUDA GPU: cuInit failed: %s (%d)", name, r);
  }
  int dev;
  CU(d->device_get(&dev, 0), "cuDeviceGet");
  CU(d->primary_retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  CU(d->ctx_set(ctx), "cuCtxSetCurrent");
  if (cc_file_read(p->module, &image, &len, &err) != CC_OK)
    return fail(3, "%s", err.msg);
  /* the line-info option applies to PTX (JIT); a cubin carries its own */
  r = d->load(&mod, image, 1, &opt, &optval);
  free(image);
  if (r != 0)
    return cuda_fail(d, r, "cuModuleLoadDataEx");
  CU(d->get_function(&fn, mod, p->kernel), "cuModuleGetFunction");
  if ((r = make_buffers(d, p)) != 0)
    return r;
  for (unsigned i = 0; i < p->nparams; i++)
    args[i] = p->params[i].bytes;
  CU(d->launch(fn, p->grid[0], p->grid[1], p->grid[2], p->block[0], p->block[1], p->block[2],
               p->shared, NULL, args, NULL), "cuLaunchKernel");
  CU(d->sync(), "the kernel (cuCtxSynchronize)");
  if ((r = dump_buffers(d, p)) != 0 || !p->time_runs)
    return r;
  return time_kernel(d, p, fn, args);
}

/* Frees what the plan holds on the host (device memory goes with the process). */
static void plan_release(struct plan *p)
{
  for (unsigned i = 0; i < p->nparams; i++) {
    cc_launch_arg_release(&p->params[i].arg);
    free(p->params[i].host);
  }
  for (unsigned k = 0; k < p->ndumps; k++) {
    free(p->dump_name[k]);
    free(p->dump_path[k]);
  }
  free(p->module);
  free(p->kernel);
  free(p->time_path);
}

int main(int argc, char **argv)
{
  struct plan p;
  struct driver d;
  int rc;
  if (argc != 2 || argv[1][0] == '-')
    return fail(2, "usage: coalcheck-gpu-launch PLAN (written by coalcheck --backend gpu)");
  memset(&p, 0, sizeof p);
  memset(&d, 0, sizeof d);
  if ((rc = read_plan(argv[1], &p)) == 0 && (rc = fill_buffers(&p)) == 0 &&
      (rc = load_driver(&d)) == 0)
    rc = run(&d, &p);
  /* the driver tears the context down at exit, and the injection library's exit
   * handler writes the report after this; the driver library stays loaded for it */
  plan_release(&p);
  return rc;
}
