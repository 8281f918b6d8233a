/* coalcheck GPU backend, application mode with inline counters (issue 14): the modules
 * hook.c loads instrumented, their counter buffers, sampling and the report at exit.
 *
 * Each module image the application loads (a fatbin) is replaced by its best PTX for
 * the device, instrumented by src/ptx/instrument.h (256 shards; CTA sampling 1 in S in
 * the fast mode; gated: a NULL counter pointer counts nothing). The application gets the
 * instrumented module's handles, so __device__ variables, attributes and every other
 * call see one module. One counter buffer per module, allocated at its first measured
 * launch in the current context, accumulates across launches on the device and is read
 * back once: before the module is unloaded, or at exit (an atexit handler registered at
 * the first launch, so it runs before cudart's own teardown). The report is the JSON of
 * libcoalcheck_gpu.so (inline_json.h), to $COALCHECK_GPU_JSON.
 *
 * Environment: COALCHECK_GPU_JSON, COALCHECK_GPU_EXACT=1 (every CTA of every launch),
 * COALCHECK_GPU_SAMPLE_CTAS=S (fast mode; default CC_INL_SAMPLE_CTAS),
 * COALCHECK_GPU_SAMPLE_EXEC=E (fast mode, a power of two; default CC_INL_SAMPLE_EXEC),
 * COALCHECK_GPU_LAUNCH_PERIOD=P (fast mode: after the first CC_INL_HEAD launches of a
 * kernel, 1 in P measured; default CC_INL_PERIOD), COALCHECK_GPU_DEVICE, COALCHECK_GPU_DEBUG. Notes
 * (kernels not counted, and why) go to stderr at exit and into the JSON's "notes". */
#include "gpu/inline_app.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/fatbin.h"
#include "gpu/inline_est.h"
#include "gpu/inline_json.h"
#include "ptx/instrument.h"
#include "util/fileio.h"
#include "util/mem.h"

#define CC_INL_SHARDS 256u     /* as kernel mode (src/cli/gpu_inline.c) */
#define CC_INL_SAMPLE_CTAS 8u  /* the fast mode's default: 1 CTA in 8 */
#define CC_INL_SAMPLE_EXEC 16u /* execution sampling: loop sites, each thread's first 32
                                   executions, then about 1 in 16 (instrument.h);
                                   measured: bench/results/gpu-overhead-2026-11-27c.md */
#define CC_INL_HEAD 4u         /* launch sampling: the first launches always measured */
#define CC_INL_PERIOD 64u      /* then 1 in 64 (as the Sanitizer library's fast mode) */

/* Per kernel (an .entry of a module): launches and the CTA sample over them. */
struct kernel_stats {
  uint64_t launches, measured, ctas, sampled;
  uint64_t *shard_ctas; /* CC_INL_SHARDS elements, allocated at the first launch */
  uint32_t grid[3], block[3];
  /* launch sampling (COALCHECK_GPU_LAUNCH_PERIOD > 1): each measured launch's figures,
   * and the tail's launches and CTAs, measured or not (inline_est.h) */
  CC_VEC(struct cc_inl_fig) figs;
  uint64_t tail_launches, tail_ctas;
};

/* The measured launch whose figures are still only in the device buffer. */
struct pending {
  int32_t func; /* -1: none */
  uint64_t ctas, sampled;
  int head;
};

struct cc_inl_module {
  void *handle;               /* CUmodule or CUlibrary (NULL until loaded) */
  struct ptx_module *ptx;     /* the original PTX, parsed */
  struct ptx_inst_map map;
  struct kernel_stats *k;     /* per function of ptx */
  CUdeviceptr raw;            /* the allocation, 0 until measured */
  CUdeviceptr buf;            /* the counters in it, aligned to 2^PTX_INST_SALT_BITS */
  uint64_t *host;             /* their last read-back (ptx_inst_counter_bytes) */
  uint64_t *folded;           /* host as one plane (ptx_inst_fold: execution sampling) */
  uint64_t *prev;             /* launch sampling: host at the last launch's settling */
  struct pending pending;
  int unloaded;
};

/* A kernel handle (CUfunction, CUkernel) or a module handle (func -1). */
struct handle {
  void *h;
  struct cc_inl_module *mod;
  int32_t func;
};

static struct {
  pthread_mutex_t lock;
  CC_VEC(struct cc_inl_module *) mods;
  CC_VEC(struct handle) handles;
  CC_VEC(char *) notes;
  int read; /* options read from the environment */
  int exact, atexit_done, reported;
  int seen; /* a module image was loaded: without one no report (a process that runs no
               CUDA, e.g. `timeout` itself under LD_PRELOAD, must not overwrite it) */
  uint32_t sample, period, exec;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static uint32_t env_u32(const char *name, uint32_t dflt)
{
  const char *v = getenv(name);
  char *end;
  unsigned long n = v && *v ? strtoul(v, &end, 10) : 0;
  return v && *v && !*end && n > 0 && n < (1ul << 24) ? (uint32_t)n : dflt;
}

static void read_env(void)
{
  const char *e = getenv("COALCHECK_GPU_EXACT");
  if (S.read)
    return;
  S.read = 1;
  S.exact = e && *e && strcmp(e, "0") != 0;
  S.sample = S.exact ? 1 : env_u32("COALCHECK_GPU_SAMPLE_CTAS", CC_INL_SAMPLE_CTAS);
  S.period = S.exact ? 1 : env_u32("COALCHECK_GPU_LAUNCH_PERIOD", CC_INL_PERIOD);
  S.exec = S.exact ? 1 : env_u32("COALCHECK_GPU_SAMPLE_EXEC", CC_INL_SAMPLE_EXEC);
  if (S.exec & (S.exec - 1))
    S.exec = CC_INL_SAMPLE_EXEC;
}

void cc_inl_debug(const char *fmt, ...)
{
  va_list ap;
  if (!getenv("COALCHECK_GPU_DEBUG"))
    return;
  va_start(ap, fmt);
  fputs("coalcheck-inline: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* appends a note (caller holds the lock) */
static void note_locked(const char *fmt, va_list ap)
{
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  for (size_t i = 0; i < S.notes.len; i++)
    if (strcmp(S.notes.data[i], buf) == 0)
      return;
  CC_VEC_PUSH(&S.notes, cc_xstrdup(buf));
}

void cc_inl_note(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&S.lock);
  note_locked(fmt, ap);
  pthread_mutex_unlock(&S.lock);
  va_end(ap);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  note_locked(fmt, ap);
  va_end(ap);
}

/* note() for cc_gpu_inline_skip_notes (caller holds the lock) */
static void add_note(void *ctx, const char *text)
{
  (void)ctx;
  note("%s", text);
}

/* The current device's compute capability as 10 major + minor; 90 when unknown. */
static uint32_t device_arch(void)
{
  const struct cc_inl_driver *d = cc_inl_driver();
  CUdevice dev;
  int major = 0, minor = 0;
  if (!d || d->ctx_get_device(&dev) != CUDA_SUCCESS ||
      d->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) ||
      d->device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return 90;
  return (uint32_t)(major * 10 + minor);
}

/* The kernels of m, for notes: "k1, k2" */
static void entry_names(const struct ptx_module *m, char *out, size_t cap)
{
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t f = 0; f < m->nfuncs && n + 1 < cap; f++)
    if (m->funcs[f].is_entry)
      n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ", " : "", m->funcs[f].name);
}

/* text's .target raised to sm_<arch> when below sm_80 (the pass needs redux.sync): the
 * JIT compiles it for this device anyway, and PTX of a lower target is valid for a
 * higher one. */
static void raise_target(char *text, uint32_t arch)
{
  char *t = strstr(text, ".target sm_");
  if (!t || arch < 80 || arch > 999)
    return;
  char *num = t + strlen(".target sm_");
  if (strtoul(num, NULL, 10) >= 80)
    return;
  /* "sm_75" -> "sm_90": the same width for two digits */
  char digits[8];
  snprintf(digits, sizeof digits, "%" PRIu32, arch);
  if (strlen(digits) == 2 && num[0] >= '0' && num[0] <= '9' && num[1] >= '0' && num[1] <= '9')
    memcpy(num, digits, 2);
}

/* The PTX of image (a fatbin) for this device, or NULL with *why set. */
static char *image_ptx(const void *image, uint32_t arch, const char **why, struct cc_err *err)
{
  uint64_t bytes;
  const uint8_t *fb = cc_fatbin_find(image, &bytes);
  struct cc_fatbin_entry *e = NULL;
  size_t n = 0, len;
  char *text = NULL;
  *why = NULL;
  if (!fb) {
    *why = "not a fatbin (a cubin or PTX loaded directly)";
    return NULL;
  }
  if (cc_fatbin_entries(fb, bytes, &e, &n, err) != CC_OK) {
    *why = err->msg;
    return NULL;
  }
  const struct cc_fatbin_entry *p = cc_fatbin_best_ptx(e, n, arch);
  if (!p)
    *why = "no PTX in the fatbin for this device (build with -arch=sm_XX or "
           "-gencode ...,code=compute_XX)";
  else if (cc_fatbin_ptx_text(p, &text, &len, err) != CC_OK)
    *why = err->msg;
  free(e);
  return text;
}

void cc_inl_prepare(const void *image, struct cc_inl_load *L)
{
  struct cc_err err = {0};
  const char *why;
  uint32_t arch = device_arch();
  L->ptx = NULL;
  L->mod = NULL;
  pthread_mutex_lock(&S.lock);
  read_env();
  S.seen = 1;
  pthread_mutex_unlock(&S.lock);
  char *text = image_ptx(image, arch, &why, &err);
  if (!text) {
    cc_inl_debug("module not instrumented: %s", why);
    if (!strstr(why, "not a fatbin"))
      cc_inl_note("a module was loaded unchanged, its kernels not counted: %s", why);
    return;
  }
  raise_target(text, arch);
  struct ptx_module *m = NULL;
  if (ptx_parse(text, strlen(text), "fatbin.ptx", &m, &err) != CC_OK) {
    cc_inl_note("a module was loaded unchanged, its kernels not counted: its PTX does not "
                "parse (%s)", err.msg);
    free(text);
    return;
  }
  free(text);
  struct ptx_inst_opts opts = {.shards = CC_INL_SHARDS, .sample = S.sample, .exec = S.exec,
                               .salted = 1, .gate = 1};
  struct ptx_inst_map map;
  size_t len = 0;
  FILE *f = open_memstream(&L->ptx, &len);
  int rc = f ? ptx_instrument(m, &opts, f, &map, &err) : CC_ERR_IO;
  if (f && fclose(f) != 0 && rc == CC_OK)
    rc = CC_ERR_IO;
  if (rc != CC_OK) {
    char names[512];
    entry_names(m, names, sizeof names);
    cc_inl_note("kernels %s: loaded unchanged, not counted: the inline pass refused their "
                "PTX (%s)", names, f ? err.msg : "no memory stream");
    free(L->ptx);
    L->ptx = NULL;
    ptx_inst_map_release(&map);
    ptx_module_free(m);
    return;
  }
  L->mod = cc_xcalloc(1, sizeof *L->mod);
  L->mod->ptx = m;
  L->mod->map = map;
  L->mod->k = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, sizeof *L->mod->k);
  L->mod->pending.func = -1;
  cc_inl_debug("module instrumented: %" PRIu32 " sites, %" PRIu32 " skipped, sample %" PRIu32,
               map.nsites, map.skipped, map.sample);
}

static void module_free(struct cc_inl_module *mod)
{
  for (uint32_t f = 0; mod->ptx && f < mod->ptx->nfuncs; f++) {
    free(mod->k[f].shard_ctas);
    for (size_t i = 0; i < mod->k[f].figs.len; i++)
      free(mod->k[f].figs.data[i].v);
    free(mod->k[f].figs.data);
  }
  free(mod->k);
  free(mod->host);
  free(mod->folded);
  free(mod->prev);
  ptx_inst_map_release(&mod->map);
  ptx_module_free(mod->ptx);
  free(mod);
}

void cc_inl_loaded(struct cc_inl_load *L, void *handle, CUresult res, const char *log)
{
  free(L->ptx);
  L->ptx = NULL;
  if (!L->mod)
    return;
  pthread_mutex_lock(&S.lock);
  if (res != CUDA_SUCCESS) {
    char names[512];
    entry_names(L->mod->ptx, names, sizeof names);
    note("kernels %s: the driver refused the instrumented PTX (error %d: %.300s); loaded "
         "unchanged, not counted", names, (int)res, log && *log ? log : "no log");
    module_free(L->mod);
  } else {
    L->mod->handle = handle;
    CC_VEC_PUSH(&S.mods, L->mod);
    CC_VEC_PUSH(&S.handles, ((struct handle){handle, L->mod, -1}));
    cc_inl_debug("loaded instrumented module %p", handle);
  }
  L->mod = NULL;
  pthread_mutex_unlock(&S.lock);
}

/* The handle entry of h, or NULL (caller holds the lock). */
static struct handle *find_handle(void *h)
{
  for (size_t i = S.handles.len; i-- > 0;)
    if (S.handles.data[i].h == h)
      return &S.handles.data[i];
  return NULL;
}

void cc_inl_handle(void *parent, const char *name, void *h)
{
  pthread_mutex_lock(&S.lock);
  struct handle *p = find_handle(parent);
  if (p && p->func < 0 && name) {
    const struct ptx_module *m = p->mod->ptx;
    for (uint32_t f = 0; f < m->nfuncs; f++)
      if (m->funcs[f].is_entry && strcmp(m->funcs[f].name, name) == 0) {
        struct handle e = {h, p->mod, (int32_t)f};
        CC_VEC_PUSH(&S.handles, e);
        cc_inl_debug("kernel %s: handle %p", name, h);
        break;
      }
  }
  pthread_mutex_unlock(&S.lock);
}

void cc_inl_alias(void *h, void *h2)
{
  pthread_mutex_lock(&S.lock);
  struct handle *p = find_handle(h);
  if (p && !find_handle(h2)) {
    struct handle e = {h2, p->mod, p->func};
    CC_VEC_PUSH(&S.handles, e);
  }
  pthread_mutex_unlock(&S.lock);
}

static void report_at_exit(void);
static int module_read(struct cc_inl_module *mod);
static void settle(struct cc_inl_module *mod);

/* The counter buffer of mod, allocated and zeroed in the current context at its first
 * measured launch; 0 (with a note) when that fails. */
static CUdeviceptr module_buffer(struct cc_inl_module *mod)
{
  const struct cc_inl_driver *d = cc_inl_driver();
  size_t bytes = (size_t)ptx_inst_counter_bytes(&mod->map);
  CUdeviceptr align = (CUdeviceptr)1 << PTX_INST_SALT_BITS;
  if (mod->buf)
    return mod->buf;
  if (!d || d->mem_alloc(&mod->raw, bytes + align) != CUDA_SUCCESS) {
    mod->raw = 0;
    note("no device memory for the counters (%zu bytes): launches not measured", bytes);
    return 0;
  }
  mod->buf = (mod->raw + align - 1) & ~(align - 1); /* the salt goes in the low bits */
  if (d->memset_d8(mod->buf, 0, bytes) != CUDA_SUCCESS) {
    d->mem_free(mod->raw);
    mod->buf = mod->raw = 0;
    note("the counters could not be zeroed: launches not measured");
    return 0;
  }
  return mod->buf;
}

int cc_inl_launch(void *f, const unsigned grid[3], const unsigned block[3], uint32_t *nparams,
                  CUdeviceptr *buf)
{
  pthread_mutex_lock(&S.lock);
  struct handle *h = find_handle(f);
  if (!h || h->func < 0) {
    pthread_mutex_unlock(&S.lock);
    return 0;
  }
  if (!S.atexit_done) { /* after cudart's own: ours runs first, with the context alive */
    S.atexit_done = 1;
    atexit(report_at_exit);
  }
  struct cc_inl_module *mod = h->mod;
  struct kernel_stats *k = &mod->k[h->func];
  uint64_t ctas = (uint64_t)grid[0] * grid[1] * grid[2];
  int measure = k->launches < CC_INL_HEAD || S.period <= 1 ||
                (k->launches - CC_INL_HEAD) % S.period == 0;
  int head = k->launches < CC_INL_HEAD;
  *nparams = mod->ptx->funcs[h->func].nparams;
  if (measure && S.period > 1 && mod->pending.func >= 0)
    settle(mod); /* the last measured launch's own figures, before this one adds to them */
  *buf = measure ? module_buffer(mod) : 0;
  if (!k->shard_ctas)
    k->shard_ctas = cc_xcalloc(mod->map.shards, sizeof *k->shard_ctas);
  k->launches++;
  k->ctas += ctas;
  if (!head) {
    k->tail_launches++;
    k->tail_ctas += ctas;
  }
  if (*buf) { /* this launch's salt: its number among the kernel's launches */
    uint32_t salt = (uint32_t)((k->launches - 1) & ((1u << PTX_INST_SALT_BITS) - 1));
    uint64_t n = cc_gpu_cta_sampled(ctas, mod->map.sample, mod->map.salted);
    *buf |= salt;
    k->measured++;
    k->sampled += n;
    cc_gpu_cta_shards_add(k->shard_ctas, mod->map.shards, n);
    if (S.period > 1)
      mod->pending = (struct pending){(int32_t)h->func, ctas, n, head};
  }
  memcpy(k->grid, grid, sizeof k->grid);
  memcpy(k->block, block, sizeof k->block);
  pthread_mutex_unlock(&S.lock);
  return 1;
}

/* Reads mod's counters into mod->host (caller holds the lock); 0 on failure. */
static int module_read(struct cc_inl_module *mod)
{
  const struct cc_inl_driver *d = cc_inl_driver();
  size_t bytes = (size_t)ptx_inst_counter_bytes(&mod->map);
  if (!mod->buf)
    return 1;
  if (!mod->host)
    mod->host = cc_xcalloc(1, bytes);
  if (!d || d->ctx_synchronize() != CUDA_SUCCESS ||
      d->memcpy_dtoh(mod->host, mod->buf, bytes) != CUDA_SUCCESS) {
    note("the counters of a module could not be read back (its context was gone): its "
         "kernels are reported with the counts read before");
    return 0;
  }
  free(mod->folded);
  mod->folded = ptx_inst_fold(&mod->map, mod->host);
  return 1;
}

/* The pending launch's figures (its kernel's sites, summed over shards, less what the
 * buffer held at the last settling) become one cc_inl_fig of its kernel (caller holds
 * the lock). A failed read drops them (the kernel then falls back to the CTA ratio). */
static void settle(struct cc_inl_module *mod)
{
  struct pending p = mod->pending;
  size_t words = (size_t)ptx_inst_plane_bytes(&mod->map) / 8;
  mod->pending.func = -1;
  if (p.func < 0 || !module_read(mod) || !mod->folded)
    return;
  if (!mod->prev)
    mod->prev = cc_xcalloc(words ? words : 1, 8);
  uint32_t ns = 0;
  for (uint32_t s = 0; s < mod->map.nsites; s++)
    ns += mod->map.sites[s].func == (uint32_t)p.func;
  struct cc_inl_fig fig = {p.ctas, p.sampled, p.head, cc_xcalloc(ns ? ns : 1,
                                                                  CC_INL_NADD * sizeof(double))};
  for (uint32_t s = 0, j = 0; s < mod->map.nsites; s++) {
    if (mod->map.sites[s].func != (uint32_t)p.func)
      continue;
    for (uint32_t g = 0; g < mod->map.shards; g++) {
      size_t at = ((size_t)s * mod->map.shards + g) * PTX_INST_FIELDS;
      for (int f = 0; f < PTX_INST_FIELDS; f++)
        fig.v[(size_t)j * CC_INL_NADD + f] += (double)(mod->folded[at + f] - mod->prev[at + f]);
    }
    j++;
  }
  memcpy(mod->prev, mod->folded, words * 8);
  CC_VEC_PUSH(&mod->k[p.func].figs, fig);
}

void cc_inl_unload(void *handle)
{
  pthread_mutex_lock(&S.lock);
  struct handle *h = find_handle(handle);
  if (h && h->func < 0 && !h->mod->unloaded) {
    struct cc_inl_module *mod = h->mod;
    settle(mod);
    if (module_read(mod) && mod->raw)
      cc_inl_driver()->mem_free(mod->raw);
    mod->buf = mod->raw = 0;
    mod->unloaded = 1;
    /* the handle may be reused by a later load: forget it and the module's kernels */
    for (size_t i = S.handles.len; i-- > 0;)
      if (S.handles.data[i].mod == mod)
        S.handles.data[i] = S.handles.data[--S.handles.len];
  }
  pthread_mutex_unlock(&S.lock);
}

/* Kernel f of mod under launch sampling: the estimates of inline_est.h as a counter
 * array of one shard (maxima from the accumulated buffer), reported by the same JSON
 * code, then the sample's sizes and the bounds added. */
static cJSON *kernel_json_sampled(struct cc_inl_module *mod, uint32_t f)
{
  const struct kernel_stats *k = &mod->k[f];
  const struct ptx_inst_map *map = &mod->map;
  uint32_t ns = 0, *sites = cc_xcalloc(map->nsites + 1, sizeof *sites);
  for (uint32_t s = 0; s < map->nsites; s++)
    if (map->sites[s].func == f)
      sites[ns++] = s;
  double *est = cc_xcalloc((size_t)ns + 1, CC_INL_NADD * sizeof *est);
  double *breq = cc_xcalloc((size_t)ns + 1, sizeof *breq);
  double *bun = cc_xcalloc((size_t)ns + 1, sizeof *bun);
  cc_inl_estimate(k->figs.data, k->figs.len, ns, k->tail_launches, k->tail_ctas, est, breq, bun);
  uint64_t *syn = cc_xcalloc((size_t)map->nsites + 1, PTX_INST_FIELDS * sizeof *syn);
  for (uint32_t j = 0; j < ns; j++) {
    uint64_t *o = syn + (size_t)sites[j] * PTX_INST_FIELDS;
    uint32_t words = cc_gpu_inline_words(&map->sites[sites[j]]);
    for (int fl = 0; fl < PTX_INST_FIELDS; fl++) {
      if (fl == PTX_INST_F_WAYS || fl == PTX_INST_F_STRMIN_INV || fl == PTX_INST_F_STRMAX) {
        for (uint32_t g = 0; mod->folded && g < map->shards; g++) {
          uint64_t v = mod->folded[((size_t)sites[j] * map->shards + g) * PTX_INST_FIELDS + fl];
          o[fl] = v > o[fl] ? v : o[fl];
        }
      } else if (fl == PTX_INST_F_REQUESTS) { /* whole executions of `words` requests */
        o[fl] = (uint64_t)llround(est[(size_t)j * CC_INL_NADD + fl] / words) * words;
      } else {
        o[fl] = (uint64_t)llround(est[(size_t)j * CC_INL_NADD + fl]);
      }
    }
    /* what every run satisfies and the importer checks (rounding may cross them) */
    cc_gpu_inline_clamp(o, words);
  }
  struct ptx_inst_map one = *map;
  one.shards = 1;
  one.sample = 1;
  one.exec = 1;
  struct cc_gpu_cta_sample d = {1, 1, 1, NULL, 1};
  cJSON *kj = cc_gpu_inline_kernel_json(mod->ptx, f, &one, syn, &d, k->grid, k->block,
                                        k->launches);
  cJSON_AddNumberToObject(kj, "sampled_launches", (double)k->measured);
  cJSON_AddNumberToObject(kj, "ctas", (double)k->ctas);
  cJSON_AddNumberToObject(kj, "sampled_ctas", (double)k->sampled);
  cc_gpu_inline_add_bound(kj, breq[ns], bun[ns]);
  cJSON *ij;
  cJSON_ArrayForEach(ij, cJSON_GetObjectItemCaseSensitive(kj, "instructions")) {
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(ij, "sass_offset");
    const char *sp = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ij, "space"));
    const char *tx = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ij, "sass"));
    uint32_t insn = (uint32_t)(off->valuedouble / 16); /* the PTX index x 16 */
    char text[512];
    for (uint32_t j = 0; j < ns; j++) { /* a generic instruction: one object per space; a
                                           .func's index is of its own body: the text */
      const struct ptx_inst_site *st = &map->sites[sites[j]];
      if (st->insn != insn || !sp || strcmp(sp, cc_gpu_inline_space_name(st)) != 0)
        continue;
      ptx_print_insn(mod->ptx, &mod->ptx->funcs[st->body], st->insn, text, sizeof text);
      if (tx && strcmp(tx, text) == 0)
        cc_gpu_inline_add_bound(ij, breq[j], bun[j]);
    }
  }
  free(sites);
  free(est);
  free(breq);
  free(bun);
  free(syn);
  return kj;
}

/* The report document of every module's launched kernels (caller holds the lock). */
static cJSON *report_json(void)
{
  cJSON *doc = cJSON_CreateObject(), *ks;
  const char *dev = getenv("COALCHECK_GPU_DEVICE");
  cJSON_AddStringToObject(doc, "tool", "coalcheck");
  cJSON_AddStringToObject(doc, "backend", "gpu");
  cJSON_AddStringToObject(doc, "mode", "inline");
  cJSON_AddStringToObject(doc, "device", dev ? dev : "");
  cJSON_AddStringToObject(doc, "model", "sm_90");
  ks = cJSON_AddArrayToObject(doc, "kernels");
  for (size_t i = 0; i < S.mods.len; i++) {
    struct cc_inl_module *mod = S.mods.data[i];
    size_t words = (size_t)ptx_inst_plane_bytes(&mod->map) / 8;
    uint64_t *zero = mod->folded ? NULL : cc_xcalloc(words ? words : 1, 8);
    for (uint32_t f = 0; f < mod->ptx->nfuncs; f++) {
      struct kernel_stats *k = &mod->k[f];
      if (!k->launches)
        continue;
      struct cc_gpu_cta_sample d = {k->ctas, k->sampled, mod->map.shards, k->shard_ctas,
                                    mod->map.exec};
      if (!k->measured) {
        note("kernel %s: none of its %" PRIu64 " launches was measured; not reported",
             mod->ptx->funcs[f].name, k->launches);
        continue;
      }
      cJSON *kj;
      if (k->measured < k->launches && k->figs.len == k->measured) {
        kj = kernel_json_sampled(mod, f);
      } else {
        kj = cc_gpu_inline_kernel_json(mod->ptx, f, &mod->map, mod->folded ? mod->folded : zero,
                                       &d, k->grid, k->block, k->launches);
        if (k->measured < k->launches) /* figures lost: the CTA ratio over all launches */
          cJSON_AddNumberToObject(kj, "sampled_launches", (double)k->measured);
      }
      cJSON_AddItemToArray(ks, kj);
    }
    free(zero);
  }
  for (size_t i = 0; i < S.mods.len; i++) { /* what the pass left out, in kernels that ran */
    struct cc_inl_module *mod = S.mods.data[i];
    uint8_t *launched = cc_xcalloc(mod->ptx->nfuncs + 1, 1), any = 0;
    for (uint32_t f = 0; f < mod->ptx->nfuncs; f++)
      any |= launched[f] = mod->k[f].launches > 0;
    if (any)
      cc_gpu_inline_skip_notes(mod->ptx, &mod->map, launched, add_note, NULL);
    free(launched);
  }
  cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
  for (size_t i = 0; i < S.notes.len; i++)
    cJSON_AddItemToArray(notes, cJSON_CreateString(S.notes.data[i]));
  return doc;
}

/* Writes the report once: reads every live module's counters first. */
static void report_at_exit(void)
{
  struct cc_err err = {0};
  const char *path = getenv("COALCHECK_GPU_JSON");
  pthread_mutex_lock(&S.lock);
  if (S.reported || !S.seen) {
    pthread_mutex_unlock(&S.lock);
    return;
  }
  S.reported = 1;
  for (size_t i = 0; i < S.mods.len; i++)
    if (!S.mods.data[i]->unloaded) {
      settle(S.mods.data[i]);
      module_read(S.mods.data[i]);
    }
  cJSON *doc = report_json();
  for (size_t i = 0; i < S.notes.len; i++) /* never quiet: a kernel not counted is said */
    fprintf(stderr, "coalcheck: %s\n", S.notes.data[i]);
  char *text = cJSON_Print(doc);
  cJSON_Delete(doc);
  struct cc_outfile out;
  if (path && *path) {
    if (cc_outfile_open(&out, path, &err) != CC_OK)
      fprintf(stderr, "coalcheck: %s\n", err.msg);
    else if (fputs(text, out.fp) < 0 || fputc('\n', out.fp) < 0)
      cc_outfile_abort(&out), fprintf(stderr, "coalcheck: cannot write %s\n", path);
    else if (cc_outfile_commit(&out, &err) != CC_OK)
      fprintf(stderr, "coalcheck: %s\n", err.msg);
  }
  free(text);
  pthread_mutex_unlock(&S.lock);
}

/* Without a launch (no atexit handler) the report is still written, empty or from
 * unloaded modules, when the process loaded a module. */
__attribute__((destructor)) static void inline_app_fini(void)
{
  report_at_exit();
}
