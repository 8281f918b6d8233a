/* coalcheck gpu: the injection library (libcoalcheck_gpu.so).
 *
 * Loaded with LD_PRELOAD (not CUDA_INJECTION64_PATH): that path was verified on the H200
 * (GPU-NOTES.md), and it leaves CUDA_INJECTION64_PATH to Nsight Compute and
 * compute-sanitizer, which use it themselves. The constructor subscribes to the Compute
 * Sanitizer callbacks; then, per event:
 *   MODULE_LOADED   load the device patch (once per context), patch global, shared and
 *                   local memory instructions, keep a copy of the cubin for the SASS map;
 *   LAUNCH_BEGIN    apply the launch filter; give the launch its function's counter table
 *                   (allocated and zeroed at the function's first profiled launch);
 *   LAUNCH_END      copy the touched slots back (stream-ordered, so after the grid), sum
 *                   the SM shards into host statistics, zero them on the device;
 *   GRAPHS_*        cudaGraphLaunch: kernel nodes arrive as GRAPHS_NODE_LAUNCH_BEGIN (not
 *                   as LAUNCH_BEGIN, measured on the H200) and get their function's table
 *                   as per-function callback data; at GRAPHS_LAUNCH_END the library waits
 *                   for the graph and flushes the functions that ran as nodes;
 *   exit            disassemble the cubins with `nvdisasm -gi`, write the JSON report to
 *                   $COALCHECK_GPU_JSON and a short table to stderr.
 * No CUDA API call happens inside a callback: only the Sanitizer memory API.
 *
 * Environment: COALCHECK_GPU_JSON (report path; none: table only), COALCHECK_GPU_PATCH
 * (patch fatbin; default: coalcheck_gpu_patch.fatbin beside this library),
 * COALCHECK_GPU_SHARDS (counter copies, default 132), COALCHECK_KERNEL_REGEX,
 * COALCHECK_LAUNCH_SKIP, COALCHECK_LAUNCH_COUNT, COALCHECK_NVDISASM, COALCHECK_GPU_QUIET,
 * COALCHECK_GPU_DIAG=noatomics|nobits (overhead analysis: reduce and count nothing, or
 * count but skip the flag/touched bits; both break the report), and
 * COALCHECK_GPU_DIAG=graph-launch-data|graph-both|graph-api-stream (graph nodes, see
 * GRAPH_DATA_*), COALCHECK_GPU_TRACE (trace mode: every warp access through a ring in
 * pinned host memory, drained by a thread while the kernel runs, written at exit as a GPU
 * trace, trace.c), COALCHECK_GPU_TRACE_RING (ring records) and COALCHECK_GPU_SAMPLE_CTAS
 * (count and trace only CTAs whose linear id % N == 0). README.md, "Trace mode".
 * Fast mode (the default): only sampled launches run patched, the others unpatched
 * (sample.c, README.md "Fast mode"); COALCHECK_GPU_EXACT=1 measures every launch and
 * reads the counters back once per many launches (deferred read-back);
 * COALCHECK_GPU_LAUNCH_PERIOD, COALCHECK_GPU_PROFILE (breakdown line at exit),
 * COALCHECK_GPU_DIAG=nodefer.
 *
 * The one mutable global: the state pointer, because atexit handlers take no argument. */
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sanitizer.h>

#include "gpu/inject_impl.h"
#include "util/mem.h"

/* demangling through libstdc++ (linked), as the cli does */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static struct state *g_state;


char *cc_gpu_inj_strdup(const char *s)
{
  char *d = strdup(s ? s : "");
  if (d == NULL)
    CC_BUG("out of memory");
  return d;
}

/* Records the first failure (later ones are consequences); returns 0 on success. */
int cc_gpu_inj_check(struct state *s, SanitizerResult r, const char *what)
{
  if (r == SANITIZER_SUCCESS)
    return 0;
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: %s failed: %d\n", what, (int)r);
  if (s->err.status == CC_OK) {
    const char *why = "unknown error";
    sanitizerGetResultString(r, &why);
    cc_err_set(&s->err, CC_ERR_TOOL, "%s failed: %s (sanitizer result %d); the report "
               "may be incomplete", what, why, (int)r);
  }
  return -1;
}

/* The record of ctx, made at its first sight. */
static struct ctx_rec *ctx_find(struct state *s, CUcontext ctx)
{
  for (size_t i = 0; i < s->n_ctxs; i++)
    if (s->ctxs[i].ctx == ctx)
      return &s->ctxs[i];
  s->ctxs = cc_xgrow(s->ctxs, &s->cap_ctxs, s->n_ctxs + 1, sizeof *s->ctxs);
  struct ctx_rec *c = &s->ctxs[s->n_ctxs++];
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  return c;
}

/* The record of ctx with its disabled header, zeroed on stream st (a launch's). */
static struct ctx_rec *ctx_get(struct state *s, CUcontext ctx, Sanitizer_StreamHandle st)
{
  struct ctx_rec *c = ctx_find(s, ctx);
  if (c->disabled == NULL &&
      cc_gpu_inj_check(s, sanitizerAlloc(ctx, &c->disabled, sizeof(struct cc_gpu_launch_hdr)),
            "sanitizerAlloc (disabled header)") == 0 &&
      cc_gpu_inj_check(s, sanitizerMemset(c->disabled, 0, sizeof(struct cc_gpu_launch_hdr), st),
            "sanitizerMemset (disabled header)") != 0)
    c->disabled = NULL; /* launches then get no data: the callbacks return at once */
  return c;
}

double cc_gpu_inj_now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Marks the memory instructions of the spaces asked for (COALCHECK_GPU_SPACES: an
 * unpatched instruction costs nothing, which no faster callback can match) and
 * instruments the module. Marks are set again before every patch: the fast mode patches
 * a module again after sanitizerUnpatchModule. */
static int module_patch(struct state *s, CUmodule mod)
{
  static const struct {
    Sanitizer_InstructionId id;
    const char *callback, *what;
  } patches[CC_SPACE_COUNT] = {
      [CC_SPACE_GLOBAL] = {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "cc_gpu_cb_global",
                           "patching global"},
      [CC_SPACE_SHARED] = {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "cc_gpu_cb_shared",
                           "patching shared"},
      [CC_SPACE_LOCAL] = {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "cc_gpu_cb_local",
                          "patching local"},
  };
  for (int sp = 0; sp < CC_SPACE_COUNT; sp++)
    if ((s->spaces & (1u << sp)) &&
        cc_gpu_inj_check(s, sanitizerPatchInstructions(patches[sp].id, mod, patches[sp].callback),
              patches[sp].what) != 0)
      return -1;
  return cc_gpu_inj_check(s, sanitizerPatchModule(mod), "sanitizerPatchModule");
}

/* Fast mode: the launch's module instrumented (on) or not (off) before the launch is
 * submitted. Before patching, the launch's stream is waited for (unpatched launches
 * still running on it must not meet code being rewritten). An unpatch that fails (an
 * older driver) turns switching off for good: unsampled launches then run patched, with
 * callbacks that return at once. */
static void module_set(struct state *s, struct mod_rec *m, int on, Sanitizer_StreamHandle st)
{
  if (m == NULL || m->patched == on || (s->no_unpatch && !on) || s->no_switch)
    return;
  double t0 = cc_gpu_inj_now();
  if (on) {
    if (st != NULL)
      sanitizerStreamSynchronize(st);
    m->patched = module_patch(s, m->mod) == 0;
  } else if (sanitizerUnpatchModule(m->mod) == SANITIZER_SUCCESS) {
    m->patched = 0;
  } else {
    s->no_unpatch = 1;
    if (!s->quiet)
      fprintf(stderr, "coalcheck-gpu: warning: sanitizerUnpatchModule failed: launches that "
              "are not sampled run instrumented (slower, same figures)\n");
  }
  s->prof.sw += cc_gpu_inj_now() - t0;
  s->prof.switches++;
}

static void on_module_loaded(struct state *s, const Sanitizer_ResourceModuleData *d)
{
  struct ctx_rec *c = ctx_find(s, d->context);
  if (!c->patched) {
    if (cc_gpu_inj_check(s, sanitizerAddPatchesFromFile(s->patch_path, d->context),
              "loading the device patch (set COALCHECK_GPU_PATCH to "
              "coalcheck_gpu_patch.fatbin)") != 0)
      return;
    c->patched = 1;
  }
  double t0 = cc_gpu_inj_now();
  if (module_patch(s, d->module) != 0)
    return;
  s->mods = cc_xgrow(s->mods, &s->cap_mods, s->n_mods + 1, sizeof *s->mods);
  struct mod_rec *m = &s->mods[s->n_mods++];
  memset(m, 0, sizeof *m);
  m->mod = d->module;
  m->ctx = d->context;
  m->patched = 1;
  if (d->pCubin != NULL && d->cubinSize != 0) {
    m->cubin = malloc(d->cubinSize);
    if (m->cubin == NULL)
      CC_BUG("out of memory");
    memcpy(m->cubin, d->pCubin, d->cubinSize);
    m->cubin_size = d->cubinSize;
  }
  s->prof.load += cc_gpu_inj_now() - t0;
}

static struct func_rec *func_get(struct state *s, const Sanitizer_LaunchData *d)
{
  for (size_t i = 0; i < s->n_funcs; i++)
    if (s->funcs[i].fn == d->function)
      return &s->funcs[i];
  s->funcs = cc_xgrow(s->funcs, &s->cap_funcs, s->n_funcs + 1, sizeof *s->funcs);
  struct func_rec *f = &s->funcs[s->n_funcs++];
  memset(f, 0, sizeof *f);
  f->fn = d->function;
  f->mod = SIZE_MAX;
  for (size_t i = 0; i < s->n_mods; i++)
    if (s->mods[i].mod == d->module)
      f->mod = i;
  f->mangled = cc_gpu_inj_strdup(d->functionName);
  int st = -1;
  char *dm = __cxa_demangle(f->mangled, NULL, NULL, &st);
  f->name = st == 0 && dm ? dm : cc_gpu_inj_strdup(f->mangled);
  if (st != 0)
    free(dm);
  return f;
}

/* The drain thread: takes the queued device-buffer chunks and the complete ring records
 * together (under qlock, so a launch's records never come after the next launch's) and
 * appends them to the spool in that order, while kernels run (the device waits while the
 * ring is full, so the host must keep up without the state lock, which the LAUNCH_END
 * wait holds). Ends when asked and both are empty. */
static void *drain_main(void *arg)
{
  struct state *s = arg;
  enum { BATCH = 256 };
  struct cc_gpu_trace_rec *buf = malloc(BATCH * sizeof *buf);
  char *wrec = malloc(BATCH * sizeof *buf);
  if (buf == NULL || wrec == NULL)
    CC_BUG("out of memory");
  for (;;) {
    pthread_mutex_lock(&s->qlock);
    struct chunk *list = s->q_head;
    s->q_head = s->q_tail = NULL;
    s->queued = 0;
    size_t n = cc_gpu_ring_drain(s->ring, s->ring_cap, buf, BATCH);
    pthread_mutex_unlock(&s->qlock);
    while (list != NULL) {
      struct chunk *c = list;
      list = c->next;
      /* checked here, off the launch's critical path: whole records only (layout.h) */
      if (cc_gpu_wrec_scan(c->bytes, c->n_bytes, &c->n_recs) != 0) {
        __atomic_add_fetch(&s->bad_chunks, 1, __ATOMIC_RELAXED);
        c->n_bytes = 0, c->n_recs = 0;
      }
      if (fwrite(c->bytes, 1, c->n_bytes, s->spool) != c->n_bytes)
        __atomic_store_n(&s->spool_failed, 1, __ATOMIC_RELEASE);
      s->spool_recs += c->n_recs;
      s->spool_bytes += c->n_bytes;
      pthread_mutex_lock(&s->qlock);
      c->next = s->pool;
      s->pool = c;
      pthread_mutex_unlock(&s->qlock);
    }
    if (n > 0) {
      size_t bytes = 0;
      for (size_t i = 0; i < n; i++)
        bytes += cc_gpu_wrec_from_ring(&buf[i], wrec + bytes);
      if (fwrite(wrec, 1, bytes, s->spool) != bytes)
        __atomic_store_n(&s->spool_failed, 1, __ATOMIC_RELEASE);
      s->spool_recs += n;
      s->spool_bytes += bytes;
      __atomic_add_fetch(&s->drained, n, __ATOMIC_RELEASE);
      continue;
    }
    if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
      pthread_mutex_lock(&s->qlock);
      int empty = s->q_head == NULL;
      pthread_mutex_unlock(&s->qlock);
      if (empty)
        break;
      continue;
    }
    usleep(20);
  }
  free(wrec);
  free(buf);
  return NULL;
}

/* The device buffer: tbuf_mib MiB in tbuf_segs segments (halved down to 16 MiB when the
 * device has less free memory; none then: the ring carries every record). */
static void tbuf_setup(struct state *s, CUcontext ctx, Sanitizer_StreamHandle st)
{
  s->tbuf_segs = CC_GPU_TBUF_SEGS;
  for (uint64_t mib = s->tbuf_mib; mib >= 16; mib /= 2) {
    uint64_t seg = (mib << 20) / s->tbuf_segs & ~(uint64_t)7;
    if (sanitizerAlloc(ctx, &s->tbuf, seg * s->tbuf_segs) == SANITIZER_SUCCESS) {
      s->tbuf_seg_bytes = seg;
      break;
    }
    s->tbuf = NULL;
  }
  if (s->tbuf == NULL) {
    if (s->tbuf_mib > 0)
      fprintf(stderr, "coalcheck-gpu: warning: no device memory for the trace buffer (%llu "
              "MiB asked); every record goes through the slower host ring\n",
              (unsigned long long)s->tbuf_mib);
    s->tbuf_segs = 0;
    return;
  }
  s->tbuf_host = malloc(s->tbuf_segs * sizeof *s->tbuf_host);
  if (s->tbuf_host == NULL)
    CC_BUG("out of memory");
  for (uint32_t i = 0; i < s->tbuf_segs; i++)
    s->tbuf_host[i] = (struct cc_gpu_tbuf_seg){.head = 0, .end = s->tbuf_seg_bytes};
  size_t bytes = s->tbuf_segs * sizeof *s->tbuf_host;
  if (cc_gpu_inj_check(s, sanitizerAlloc(ctx, &s->tbuf_ctl, bytes), "sanitizerAlloc (trace buffer)") ||
      cc_gpu_inj_check(s, sanitizerMemcpyHostToDeviceAsync(s->tbuf_ctl, s->tbuf_host, bytes, st),
            "sanitizerMemcpyHostToDeviceAsync (trace buffer)")) {
    s->tbuf = NULL; /* the records then all take the ring */
    s->tbuf_segs = 0;
  }
}

/* Sets up the trace at the first traced launch in ctx: host ring, device control block
 * (head 0, limit cap), device buffer, spool, drain thread. One context only. */
static int ring_setup(struct state *s, CUcontext ctx, Sanitizer_StreamHandle st)
{
  if (s->ring != NULL)
    return s->ring_ctx == ctx ? 0 : -1;
  size_t bytes = sizeof(struct cc_gpu_ring_host) +
                 (size_t)s->ring_cap * sizeof(struct cc_gpu_trace_rec);
  void *host = NULL;
  if (cc_gpu_inj_check(s, sanitizerAllocHost(ctx, &host, bytes), "sanitizerAllocHost (trace ring)") != 0)
    return -1;
  memset(host, 0, bytes);
  struct cc_gpu_ring_ctl ctl = {.head = 0, .limit = s->ring_cap};
  if (cc_gpu_inj_check(s, sanitizerAlloc(ctx, &s->ring_ctl, sizeof ctl), "sanitizerAlloc (trace)") != 0 ||
      cc_gpu_inj_check(s, sanitizerMemcpyHostToDeviceAsync(s->ring_ctl, &ctl, sizeof ctl, st),
            "sanitizerMemcpyHostToDeviceAsync (trace)") != 0)
    return -1;
  s->spool = tmpfile();
  if (s->spool == NULL) {
    cc_err_set(&s->err, CC_ERR_IO, "cannot create the trace spool in /tmp: %s; no trace "
               "written", strerror(errno));
    return -1;
  }
  tbuf_setup(s, ctx, st);
  s->ring = host;
  s->ring_ctx = ctx;
  pthread_mutex_init(&s->qlock, NULL);
  if (pthread_create(&s->drainer, NULL, drain_main, s) != 0)
    CC_BUG("cannot start the trace drain thread");
  s->drainer_started = 1;
  return 0;
}

/* Allocates the function's counter table (layout.h) at its first profiled launch. */
static int func_alloc(struct state *s, struct func_rec *f, const Sanitizer_LaunchData *d)
{
  if (s->trace_path && ring_setup(s, d->context, d->hStream) != 0) {
    if (s->err.status == CC_OK)
      cc_err_set(&s->err, CC_ERR_TOOL, "trace mode: a second CUDA context; only the first "
                 "context's kernels are traced");
    return -1;
  }
  if (cc_gpu_inj_check(s, sanitizerGetFunctionPcAndSize(d->module, f->mangled, &f->base_pc, &f->size),
            "sanitizerGetFunctionPcAndSize") != 0)
    return -1;
  f->n_slots = (uint32_t)(f->size / CC_GPU_INSN_BYTES);
  f->n_shards = s->n_shards;
  size_t rec = (size_t)f->n_shards * CC_GPU_FIELDS * sizeof(uint64_t);
  f->counters_off = CC_GPU_HDR_BYTES;
  f->touched_off = f->counters_off + (f->n_slots + 1) * rec;
  f->touched_bytes = ((f->n_slots + 1 + 31) / 32) * sizeof(uint32_t);
  size_t total = f->touched_off + f->touched_bytes;
  if (cc_gpu_inj_check(s, sanitizerAlloc(d->context, &f->dev, total), "sanitizerAlloc (counters)") != 0)
    return -1;
  f->touched = calloc(f->touched_bytes, 1);
  f->raw = malloc((f->n_slots + 1) * rec);
  f->prev = calloc(f->n_slots + 1, rec);
  f->stats = malloc((f->n_slots + 1) * sizeof *f->stats);
  f->scratch = malloc((f->n_slots + 1) * sizeof *f->scratch);
  if (!f->touched || !f->raw || !f->prev || !f->stats || !f->scratch)
    CC_BUG("out of memory");
  for (uint32_t i = 0; i <= f->n_slots; i++)
    cc_gpu_stats_init(&f->stats[i]);
  /* the async copy has staged a pageable source before it returns (sanitizer_memory.h) */
  struct cc_gpu_launch_hdr hdr = {
      .base_pc = f->base_pc,
      .counters = (uint64_t)(uintptr_t)f->dev + f->counters_off,
      .touched = (uint64_t)(uintptr_t)f->dev + f->touched_off,
      .n_slots = f->n_slots,
      .n_shards = f->n_shards,
      .enabled = 1,
      .mode = s->mode,
      .ring = (uint64_t)(uintptr_t)s->ring,
      .ring_ctl = (uint64_t)(uintptr_t)s->ring_ctl,
      .ring_cap = s->ring_cap,
      .sample = s->sample,
      .tbuf_segs = s->tbuf_segs,
      .tbuf = (uint64_t)(uintptr_t)s->tbuf,
      .tbuf_ctl = (uint64_t)(uintptr_t)s->tbuf_ctl,
      .tbuf_seg_bytes = s->tbuf_seg_bytes,
  };
  if (cc_gpu_inj_check(s, sanitizerMemset(f->dev, 0, total, d->hStream), "sanitizerMemset") != 0 ||
      cc_gpu_inj_check(s, sanitizerMemcpyHostToDeviceAsync(f->dev, &hdr, sizeof hdr, d->hStream),
            "sanitizerMemcpyHostToDeviceAsync") != 0) {
    f->dev = NULL; /* never hand out a table whose header was not written */
    return -1;
  }
  return 0;
}

/* Inside a graph launch of this thread: node launches are deferred to its end. */
static int in_graph(const struct state *s)
{
  return s->graph_depth > 0 && pthread_equal(s->graph_thread, pthread_self());
}

/* A graph's kernel node may be announced twice (launch domain and graphs domain, the
 * documentation names both): the first announcement of a launch handle wins. */
static int graph_node_seen(struct state *s, const Sanitizer_LaunchData *d)
{
  for (size_t i = 0; i < s->n_seen; i++)
    if (s->seen[i].h == d->hLaunch)
      return 1;
  s->seen = cc_xgrow(s->seen, &s->cap_seen, s->n_seen + 1, sizeof *s->seen);
  s->seen[s->n_seen].h = d->hLaunch;
  s->seen[s->n_seen++].st = d->hStream;
  return 0;
}

/* A traced direct launch: a launch entry, and its number into the header (stream-ordered
 * before the grid; the copy stages the source before it returns). Graph nodes keep the
 * number of their function's last direct launch (not separated in the trace). */
static void trace_launch(struct state *s, struct func_rec *f, const Sanitizer_LaunchData *d)
{
  s->launches = cc_xgrow(s->launches, &s->cap_launches, s->n_launches + 1, sizeof *s->launches);
  struct cc_gpu_raw_launch *l = &s->launches[s->n_launches];
  l->func = (uint32_t)(f - s->funcs);
  memcpy(l->grid, f->grid, sizeof l->grid);
  memcpy(l->block, f->block, sizeof l->block);
  l->sample = s->sample;
  uint32_t id = (uint32_t)s->n_launches++;
  cc_gpu_inj_check(s, sanitizerMemcpyHostToDeviceAsync((char *)f->dev +
                                                offsetof(struct cc_gpu_launch_hdr, launch),
                                            &id, sizeof id, d->hStream),
        "sanitizerMemcpyHostToDeviceAsync (launch number)");
}

static void flush_pending(struct state *s, struct func_rec *f);

static void on_launch_begin(struct state *s, const Sanitizer_LaunchData *d)
{
  int graph = in_graph(s);
  if (graph && graph_node_seen(s, d))
    return;
  double t0 = cc_gpu_inj_now();
  s->prof.launches++;
  if (s->first_stream == NULL)
    s->first_stream = d->hStream;
  else if (s->first_stream != d->hStream || s->multi_thread)
    s->no_switch = 1;
  struct ctx_rec *c = ctx_get(s, d->context, d->hStream);
  struct func_rec *f = func_get(s, d);
  struct mod_rec *m = f->mod < s->n_mods ? &s->mods[f->mod] : NULL;
  void *ud = c->disabled;
  int on = 0;
  /* a graph upload sets up the nodes without running them: not a launch (the filter's
   * skip/count see only launches that run) */
  if (!(graph && s->graph_upload) && cc_gpu_filter_select(&s->filter, f->name, f->mangled) &&
      (f->dev != NULL || func_alloc(s, f, d) == 0)) {
    f->grid[0] = d->gridDim_x, f->grid[1] = d->gridDim_y, f->grid[2] = d->gridDim_z;
    f->block[0] = d->blockDim_x, f->block[1] = d->blockDim_y, f->block[2] = d->blockDim_z;
    f->launches++;
    on = 1;
    if (!s->exact && !graph) { /* fast mode: is this launch of its geometry sampled? */
      struct cc_gpu_stratum *k = cc_gpu_strata_get(&f->strata, f->n_slots, f->grid, f->block);
      on = cc_gpu_stratum_next(k, CC_GPU_SAMPLE_FIRST, s->period, &f->cur_head);
      /* no more switching: a patched module measures every launch, an unpatched one
       * none (its strata are extrapolated from the launches sampled before) */
      if (s->no_switch)
        on = m == NULL || m->patched;
      f->cur = k;
    }
  }
  if (on) {
    ud = f->dev;
    s->prof.patched++;
    if (graph) {
      f->graph = 1;
      f->graph_running = 1;
    } else {
      if (f->pending > 0 && f->pending_st != d->hStream)
        flush_pending(s, f); /* deferred launches stay on one stream */
      s->open = cc_xgrow(s->open, &s->cap_open, s->n_open + 1, sizeof *s->open);
      s->open[s->n_open++] = (struct open_launch){pthread_self(), (size_t)(f - s->funcs)};
    }
    if (s->ring != NULL && !graph)
      trace_launch(s, f, d);
  }
  /* fast mode: sampled launches run instrumented, the others not (graph nodes always) */
  if (!s->exact)
    module_set(s, m, on || graph, graph ? NULL : d->hStream);
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: launch %s %s%s launch %p stream %p\n", f->mangled,
            ud == c->disabled ? "off" : "on", graph ? " (graph node)" : "",
            (void *)d->hLaunch, (void *)d->hStream);
  if (!graph || (s->graph_data & GRAPH_DATA_LAUNCH))
    cc_gpu_inj_check(s, sanitizerSetLaunchCallbackData(d->hLaunch, d->function,
                                            graph && (s->graph_data & GRAPH_DATA_API_STREAM)
                                                ? d->hApiStream : d->hStream, ud),
          "sanitizerSetLaunchCallbackData");
  /* per-function data outlives the graph: a later direct launch of a function that ran
   * as a node sets it too, so both kinds of data agree whichever one the driver uses.
   * Within one graph launch the last node of a function sets its table for all of its
   * nodes: a launch filter that cuts through a graph's nodes of one function is coarse. */
  if ((graph || f->graph) && (s->graph_data & GRAPH_DATA_FUNCTION))
    cc_gpu_inj_check(s, sanitizerSetCallbackData(d->function, ud), "sanitizerSetCallbackData");
  s->prof.begin += cc_gpu_inj_now() - t0;
}

/* Adds one slot's shards, as read now (cur), minus what earlier flushes already added
 * (prev, then updated to cur): the sums are differences; min, max, ways and flags are
 * idempotent and go in as they are. */
static void add_slot(struct cc_gpu_pc_stats *st, const uint64_t *cur, uint64_t *prev,
                     uint32_t n_shards)
{
  static const int sums[] = {CC_GPU_F_REQ_LANES, CC_GPU_F_SECT_IDEAL, CC_GPU_F_STRSUM};
  uint64_t d[CC_GPU_FIELDS];
  for (uint32_t sh = 0; sh < n_shards; sh++) {
    const uint64_t *c = cur + (size_t)sh * CC_GPU_FIELDS;
    uint64_t *p = prev + (size_t)sh * CC_GPU_FIELDS;
    memcpy(d, c, sizeof d);
    for (size_t k = 0; k < sizeof sums / sizeof sums[0]; k++)
      d[sums[k]] = c[sums[k]] - p[sums[k]];
    cc_gpu_stats_add_shards(st, d, 1);
    memcpy(p, c, sizeof d);
  }
}

/* This thread's profiled direct launch between its begin and end (index into open), or
 * -1. */
static long open_find(const struct state *s)
{
  for (size_t k = s->n_open; k > 0; k--)
    if (pthread_equal(s->open[k - 1].thread, pthread_self()))
      return (long)(k - 1);
  return -1;
}

/* 1 if a profiled direct launch of function fi has begun and not yet been flushed. */
static int in_flight(const struct state *s, size_t fi)
{
  for (size_t k = 0; k < s->n_open; k++)
    if (s->open[k].func == fi)
      return 1;
  return 0;
}

/* Exact mode's deferred read-back (one host thread): the launches a table may take
 * before it is read, from the largest packed half (layout.h: a 32-bit half must not carry)
 * any (slot, shard) record reached over the `launches` launches just read: at most 2^30
 * per half is allowed, half of the room (kernels whose later launches do more than twice
 * the work of the ones measured could carry: the one assumption), and at most 4096. */
static uint64_t defer_limit(const uint64_t *raw, size_t records, uint64_t launches)
{
  uint64_t top = 1;
  for (size_t r = 0; r < records; r++)
    for (int fld = CC_GPU_F_REQ_LANES; fld <= CC_GPU_F_SECT_IDEAL; fld++) {
      uint64_t v = raw[r * CC_GPU_FIELDS + (size_t)fld];
      uint64_t hi = v >> 32, lo = v & 0xffffffffu;
      top = hi > top ? hi : top;
      top = lo > top ? lo : top;
    }
  uint64_t per = (top + launches - 1) / launches;
  uint64_t n = (1ull << 30) / per;
  return n < 1 ? 1 : n > 4096 ? 4096 : n;
}

/* Copies back the slots the launch touched and adds what is new in them (the caller has
 * waited for the grid: at LAUNCH_END it may still run; measured on the H200, copies
 * without the wait read counters mid-kernel). Zeroes them on
 * the device only when no other launch of the function is in flight: a launch of the
 * same function from another host thread may still be adding to the table (measured,
 * tests/gpu/apps/threads.cu: zeroing under it lost up to 7% of its counts); otherwise
 * the table keeps growing and the next flush takes the difference. */
void cc_gpu_inj_flush(struct state *s, struct func_rec *f, Sanitizer_StreamHandle st,
                  struct cc_gpu_pc_stats *dst)
{
  char *dev = f->dev;
  double t0 = cc_gpu_inj_now();
  s->prof.flushes++;
  if (cc_gpu_inj_check(s, sanitizerMemcpyDeviceToHost(f->touched, dev + f->touched_off,
                                           f->touched_bytes, st), "reading counters") != 0)
    return;
  /* one copy and one memset from the first to the last touched slot: a few large
   * transfers cost less than one per run of touched slots (measured: the flush, not the
   * device reduction, dominated short kernels) */
  uint32_t lo = UINT32_MAX, hi = 0;
  for (uint32_t slot = 0; slot <= f->n_slots; slot++)
    if (f->touched[slot / 32] & (1u << (slot % 32))) {
      lo = slot < lo ? slot : lo;
      hi = slot;
    }
  int zero = !in_flight(s, (size_t)(f - s->funcs)) && !f->graph_running;
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: flush %s slots %u..%u%s\n", f->mangled, lo, hi,
            zero ? "" : " (another launch in flight: not zeroed)");
  if (lo == UINT32_MAX) {
    s->prof.empty++; /* nothing counted: a diagnosis of patching (fast mode) */
    return;
  }
  size_t per = (size_t)f->n_shards * CC_GPU_FIELDS;
  size_t rec = per * sizeof(uint64_t);
  size_t off = f->counters_off + lo * rec, bytes = (size_t)(hi - lo + 1) * rec;
  if (cc_gpu_inj_check(s, sanitizerMemcpyDeviceToHost(f->raw, dev + off, bytes, st),
            "reading counters") != 0)
    return;
  double t1 = cc_gpu_inj_now();
  s->prof.read += t1 - t0;
  for (uint32_t i = lo; i <= hi; i++)
    if (f->touched[i / 32] & (1u << (i % 32)))
      add_slot(&dst[i], f->raw + (size_t)(i - lo) * per, f->prev + (size_t)i * per,
               f->n_shards);
  f->defer_max = defer_limit(f->raw, (size_t)(hi - lo + 1) * f->n_shards,
                             f->pending > 0 ? f->pending : 1);
  double t2 = cc_gpu_inj_now();
  s->prof.merge += t2 - t1;
  if (!zero)
    return;
  if (cc_gpu_inj_check(s, sanitizerMemset(dev + off, 0, bytes, st), "zeroing counters") == 0) {
    memset(f->prev + (size_t)lo * per, 0, bytes);
    cc_gpu_inj_check(s, sanitizerMemset(dev + f->touched_off, 0, f->touched_bytes, st),
          "zeroing counters");
  }
  s->prof.read += cc_gpu_inj_now() - t2;
}

/* A chunk of at least need bytes: a written one from the pool, or a new one (pinned
 * while the pool holds less than CHUNK_PINNED_MAX; measured on the H200: copies into new
 * malloc'ed memory made the trace 7x slower than the device side, see
 * bench/results/gpu-trace-*.md). */
static struct chunk *chunk_get(struct state *s, size_t need)
{
  pthread_mutex_lock(&s->qlock);
  struct chunk **pp = &s->pool;
  while (*pp != NULL && (*pp)->cap < need)
    pp = &(*pp)->next;
  struct chunk *k = *pp;
  if (k != NULL)
    *pp = k->next;
  pthread_mutex_unlock(&s->qlock);
  if (k != NULL) {
    k->next = NULL;
    return k;
  }
  size_t cap = 1u << 20;
  while (cap < need)
    cap *= 2;
  void *p = NULL;
  if (s->pinned + cap <= CHUNK_PINNED_MAX &&
      sanitizerAllocHost(s->ring_ctx, &p, cap) == SANITIZER_SUCCESS)
    s->pinned += cap;
  else
    p = NULL;
  k = calloc(1, sizeof *k);
  if (p == NULL)
    p = malloc(cap);
  if (k == NULL || p == NULL)
    CC_BUG("out of memory");
  k->bytes = p;
  k->cap = cap;
  return k;
}

/* Bytes of whole records in segment seg as last read (layout.h: the reservation that
 * straddled the end marks where they stop). */
static uint64_t seg_valid(const struct state *s, uint32_t seg)
{
  const struct cc_gpu_tbuf_seg *c = &s->tbuf_host[seg];
  uint64_t valid = c->head < c->end ? c->head : c->end;
  return valid < s->tbuf_seg_bytes ? valid : s->tbuf_seg_bytes;
}

/* One segment's records, copied and queued for the drain thread, which checks and counts
 * them. */
static void tbuf_take(struct state *s, uint32_t seg, Sanitizer_StreamHandle st)
{
  uint64_t valid = seg_valid(s, seg);
  if (valid == 0)
    return;
  struct chunk *k = chunk_get(s, valid);
  k->n_bytes = valid;
  if (cc_gpu_inj_check(s, sanitizerMemcpyDeviceToHost(k->bytes, (char *)s->tbuf + seg * s->tbuf_seg_bytes,
                                           valid, st), "reading the trace buffer") != 0)
    k->n_bytes = 0; /* queued empty: back to the pool once "written" */
  pthread_mutex_lock(&s->qlock);
  if (s->q_tail)
    s->q_tail->next = k;
  else
    s->q_head = k;
  s->q_tail = k;
  s->queued += valid;
  pthread_mutex_unlock(&s->qlock);
}

/* After the launch (stream synchronized): the device buffer's records into the queue,
 * the segments emptied. Waits while more than 1 GiB is queued (a slow disk). */
static void tbuf_collect(struct state *s, Sanitizer_StreamHandle st)
{
  if (s->tbuf == NULL)
    return;
  size_t bytes = s->tbuf_segs * sizeof *s->tbuf_host;
  if (cc_gpu_inj_check(s, sanitizerMemcpyDeviceToHost(s->tbuf_host, s->tbuf_ctl, bytes, st),
            "reading the trace buffer's heads") != 0)
    return;
  int full = 0;
  uint64_t copied = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (uint32_t i = 0; i < s->tbuf_segs; i++) {
    full |= s->tbuf_host[i].head > s->tbuf_seg_bytes;
    copied += seg_valid(s, i);
    if (!s->trace_nocopy)
      tbuf_take(s, i, st);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  s->overflowed += full;
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: trace buffer: %llu bytes copied in %.3f ms%s; %llu MiB "
            "pinned\n", (unsigned long long)copied,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
            full ? ", full: records went through the ring" : "",
            (unsigned long long)(s->pinned >> 20));
  for (uint32_t i = 0; i < s->tbuf_segs; i++)
    s->tbuf_host[i] = (struct cc_gpu_tbuf_seg){.head = 0, .end = s->tbuf_seg_bytes};
  cc_gpu_inj_check(s, sanitizerMemcpyHostToDeviceAsync(s->tbuf_ctl, s->tbuf_host, bytes, st),
        "resetting the trace buffer");
  for (;;) {
    pthread_mutex_lock(&s->qlock);
    uint64_t q = s->queued;
    pthread_mutex_unlock(&s->qlock);
    if (q <= (1ull << 30))
      break;
    usleep(100);
  }
}

/* After a traced launch (the stream is synchronized by flush): wait until the drain
 * thread has spooled every ring record reserved so far, then queue the device buffer's,
 * so launches stay apart in the spool. */
static void trace_wait(struct state *s, Sanitizer_StreamHandle st)
{
  if (s->ring == NULL)
    return;
  uint64_t head = 0;
  if (cc_gpu_inj_check(s, sanitizerMemcpyDeviceToHost(&head, s->ring_ctl, sizeof head, st),
            "reading the trace head") != 0)
    return;
  s->reserved = head;
  while (__atomic_load_n(&s->drained, __ATOMIC_ACQUIRE) < head)
    usleep(20);
  tbuf_collect(s, st);
}

/* Waits for the streams' work, without the state lock unless a trace is on. Measured
 * with tests/gpu/apps/threads.cu on the H200: a graph launch waiting for its stream
 * under the lock while other host threads launched kernels hung in 7 of 8 runs (their
 * launch callbacks, inside the driver, waited for the lock). Without it, other threads'
 * launches go on meanwhile; flush's differences keep their counts apart. The trace's
 * device buffer is shared by all launches, so trace mode keeps launches serialized. The
 * lock is held exactly once here (by callback), so one unlock releases it. */
static int streams_sync(struct state *s, const Sanitizer_StreamHandle *st, size_t n)
{
  int unlocked = s->trace_path == NULL;
  if (unlocked) {
    s->depth--;
    pthread_mutex_unlock(&s->lock);
  }
  SanitizerResult r = SANITIZER_SUCCESS;
  for (size_t i = 0; i < n && r == SANITIZER_SUCCESS; i++)
    r = sanitizerStreamSynchronize(st[i]);
  if (unlocked) {
    pthread_mutex_lock(&s->lock);
    s->depth++;
  }
  return cc_gpu_inj_check(s, r, "sanitizerStreamSynchronize");
}

static void on_launch_end(struct state *s, const Sanitizer_LaunchData *d)
{
  if (in_graph(s))
    return; /* flushed after the whole graph: on_graph_launch */
  if (open_find(s) < 0)
    return; /* this thread's launch was not profiled */
  /* exact mode, one host thread, no trace: no wait here, the table keeps adding up on the
   * device and is read once defer_max launches are pending (or at a stream's, module's or
   * context's end, another thread's first call, a graph launch, the exit) */
  long k = open_find(s);
  struct func_rec *f = &s->funcs[s->open[k].func];
  if (s->exact && !s->nodefer && !s->multi_thread && s->trace_path == NULL && !f->graph) {
    s->open[k] = s->open[--s->n_open];
    f->pending_st = d->hStream;
    s->prof.deferred++;
    if (++f->pending >= (f->defer_max ? f->defer_max : 1))
      flush_pending(s, f);
    return;
  }
  double t0 = cc_gpu_inj_now();
  int synced = streams_sync(s, &d->hStream, 1) == 0;
  s->prof.wait += cc_gpu_inj_now() - t0;
  /* the launch stays open until its grid is over, so that no other thread's flush zeroes
   * the table under it; s->open and s->funcs may have changed while the lock was free */
  k = open_find(s);
  size_t fi = s->open[k].func;
  s->open[k] = s->open[--s->n_open];
  if (!synced)
    return;
  f = &s->funcs[fi];
  if (s->exact || f->cur == NULL) {
    cc_gpu_inj_flush(s, f, d->hStream, f->stats);
  } else { /* fast mode: this sampled launch's own figures into its stratum */
    for (uint32_t i = 0; i <= f->n_slots; i++)
      cc_gpu_stats_init(&f->scratch[i]);
    cc_gpu_inj_flush(s, f, d->hStream, f->scratch);
    double t1 = cc_gpu_inj_now();
    cc_gpu_stratum_add_launch(f->cur, f->scratch, f->n_slots, f->cur_head);
    s->prof.merge += cc_gpu_inj_now() - t1;
  }
  for (size_t i = 0; i < s->n_funcs; i++)
    if (s->funcs[i].graph_dirty) {
      s->funcs[i].graph_dirty = 0;
      cc_gpu_inj_flush(s, &s->funcs[i], d->hStream, s->funcs[i].stats);
    }
  trace_wait(s, d->hStream);
}

/* Reads the launches of f still pending (exact mode): waits for their stream, then adds
 * the table. The stream is alive: a stream's end flushes what is pending on it first. */
static void flush_pending(struct state *s, struct func_rec *f)
{
  if (f->pending == 0)
    return;
  double t0 = cc_gpu_inj_now();
  SanitizerResult r = sanitizerStreamSynchronize(f->pending_st);
  s->prof.wait += cc_gpu_inj_now() - t0;
  if (cc_gpu_inj_check(s, r, "sanitizerStreamSynchronize (deferred launches)") == 0)
    cc_gpu_inj_flush(s, f, f->pending_st, f->stats);
  f->pending = 0;
}

/* Every function with pending launches (on stream st only, unless st is NULL). */
void cc_gpu_inj_flush_pending_all(struct state *s, Sanitizer_StreamHandle st, CUcontext ctx)
{
  for (size_t i = 0; i < s->n_funcs; i++) {
    struct func_rec *f = &s->funcs[i];
    if (f->pending == 0 || (st != NULL && f->pending_st != st))
      continue;
    if (ctx != NULL && f->mod < s->n_mods && s->mods[f->mod].ctx != ctx)
      continue;
    flush_pending(s, f);
  }
}

/* GRAPHS_LAUNCH_BEGIN / _END (cudaGraphLaunch, cudaGraphUpload). At the end of a launch
 * that runs (not an upload), wait for the graph's stream and flush every function that
 * has run as a kernel node: their counters hold the sums over the graph's nodes. */
static void on_graph_launch(struct state *s, const Sanitizer_GraphLaunchData *d, int begin)
{
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: graph launch %s%s depth %d stream %p\n",
            begin ? "begin" : "end", d->isGraphUpload ? " (upload)" : "", s->graph_depth,
            (void *)d->hStream);
  if (begin) {
    cc_gpu_inj_flush_pending_all(s, NULL, NULL);
    if (s->graph_depth++ == 0) {
      s->graph_thread = pthread_self();
      s->graph_upload = d->isGraphUpload != 0;
      s->n_seen = 0;
    }
    return;
  }
  if (s->graph_depth == 0 || --s->graph_depth > 0 || s->graph_upload)
    return;
  /* the graph's stream, then each node's (a branch may run on a stream of its own) */
  size_t n = s->n_seen + 1;
  Sanitizer_StreamHandle *st = malloc(n * sizeof *st);
  if (st == NULL)
    CC_BUG("out of memory");
  st[0] = d->hStream;
  for (size_t i = 0; i < s->n_seen; i++)
    st[i + 1] = s->seen[i].st;
  int rc = streams_sync(s, st, n);
  free(st);
  if (rc != 0)
    return;
  /* With several host threads the copies wait for the next launch end (or the exit):
   * measured (scripts/gpu-hang-stacks.sh on the H200), a copy made here under the lock
   * while other threads were inside cudaLaunchKernel, waiting for the lock in their
   * callbacks, blocked in the driver for good; the copies of a launch end do not. */
  s->last_graph_stream = d->hStream;
  for (size_t i = 0; i < s->n_funcs; i++) {
    struct func_rec *f = &s->funcs[i];
    if (!f->graph || f->dev == NULL)
      continue;
    f->graph_running = 0;
    if (s->multi_thread)
      f->graph_dirty = 1;
    else
      cc_gpu_inj_flush(s, f, d->hStream, f->stats);
  }
  trace_wait(s, d->hStream);
}

/* GRAPHS_NODE_LAUNCH_BEGIN of a kernel node: the same work as a launch (deduplicated by
 * launch handle against the launch domain's callback for the same node). */
static void on_graph_node(struct state *s, const Sanitizer_GraphNodeLaunchData *d)
{
  if (d->nodeType == CU_GRAPH_NODE_TYPE_KERNEL && in_graph(s))
    on_launch_begin(s, &d->launchData);
}

/* A stream, module or context about to go: deferred launches that ran there are read
 * first (their stream, memory and context are alive until the callback returns). */
static void on_resource_end(struct state *s, Sanitizer_CallbackId cbid, const void *cbdata)
{
  if (cbid == SANITIZER_CBID_RESOURCE_STREAM_DESTROY_STARTING) {
    const Sanitizer_ResourceStreamData *d = cbdata;
    cc_gpu_inj_flush_pending_all(s, d->hStream, NULL);
  } else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
    const Sanitizer_ResourceContextData *d = cbdata;
    cc_gpu_inj_flush_pending_all(s, NULL, d->context);
  } else if (cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
    const Sanitizer_ResourceModuleData *d = cbdata;
    for (size_t i = 0; i < s->n_funcs; i++)
      if (s->funcs[i].mod < s->n_mods && s->mods[s->funcs[i].mod].mod == d->module)
        flush_pending(s, &s->funcs[i]);
  }
}

static void SANITIZERAPI callback(void *userdata, Sanitizer_CallbackDomain domain,
                                  Sanitizer_CallbackId cbid, const void *cbdata)
{
  struct state *s = userdata;
  /* Sanitizer calls made inside a callback (sanitizerAlloc, sanitizerMemset, ...) may
   * raise callbacks of their own on this thread: a plain mutex would deadlock there, so
   * the lock is recursive and nested events (the tool's own work) are ignored. */
  pthread_mutex_lock(&s->lock);
  if (s->depth > 0) {
    pthread_mutex_unlock(&s->lock);
    return;
  }
  s->depth++;
  if (!s->have_first_thread) {
    s->first_thread = pthread_self();
    s->have_first_thread = 1;
  } else if (!s->multi_thread && !pthread_equal(s->first_thread, pthread_self())) {
    s->multi_thread = 1;
    cc_gpu_inj_flush_pending_all(s, NULL, NULL); /* deferred read-back is for one host thread */
  }
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: event domain %d cbid %d\n", (int)domain, (int)cbid);
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
    on_module_loaded(s, cbdata);
  else if (domain == SANITIZER_CB_DOMAIN_RESOURCE)
    on_resource_end(s, cbid, cbdata);
  else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN)
    on_launch_begin(s, cbdata);
  else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END)
    on_launch_end(s, cbdata);
  else if (domain == SANITIZER_CB_DOMAIN_GRAPHS &&
           (cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN || cbid == SANITIZER_CBID_GRAPHS_LAUNCH_END))
    on_graph_launch(s, cbdata, cbid == SANITIZER_CBID_GRAPHS_LAUNCH_BEGIN);
  else if (domain == SANITIZER_CB_DOMAIN_GRAPHS && cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN)
    on_graph_node(s, cbdata);
  s->depth--;
  pthread_mutex_unlock(&s->lock);
}

static void finish(void)
{
  if (g_state != NULL)
    cc_gpu_inj_finish(g_state);
}

/* COALCHECK_GPU_STACKS=1 (diagnostics): SIGUSR2 to a thread (tgkill) writes its call
 * stack to stderr, so that a hung application's threads can be seen without a debugger
 * (the GPU machine has none). Only write() and backtrace*_fd here; backtrace() is called
 * once at set-up so that it does not load libgcc inside the handler. */
static void stack_dump(int sig)
{
  (void)sig;
  void *frames[48];
  char head[64] = "coalcheck-gpu: stack of thread ", digits[24];
  size_t n = strlen(head), k = 0;
  for (long tid = (long)syscall(SYS_gettid); tid > 0 || k == 0; tid /= 10)
    digits[k++] = (char)('0' + tid % 10);
  while (k > 0 && n < sizeof head - 2)
    head[n++] = digits[--k];
  head[n++] = '\n';
  if (write(2, head, n) < 0)
    return;
  backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
}

static void stacks_setup(void)
{
  void *frames[2];
  backtrace(frames, 2);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = stack_dump;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR2, &sa, NULL);
}

__attribute__((constructor)) static void coalcheck_gpu_init(void)
{
  struct state *s = cc_gpu_inj_state_new();
  if (s == NULL)
    return;
  /* lazy loading hands out functions after MODULE_LOADED; eager keeps patching simple */
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  if (sanitizerSubscribe(&s->sub, callback, s) != SANITIZER_SUCCESS) {
    fprintf(stderr, "coalcheck-gpu: error: cannot subscribe to the compute sanitizer "
            "(another tool attached?); run the application without other CUDA tools\n");
    return;
  }
  sanitizerEnableDomain(1, s->sub, SANITIZER_CB_DOMAIN_RESOURCE);
  sanitizerEnableDomain(1, s->sub, SANITIZER_CB_DOMAIN_LAUNCH);
  sanitizerEnableDomain(1, s->sub, SANITIZER_CB_DOMAIN_GRAPHS);
  g_state = s;
  atexit(finish);
  const char *stk = getenv("COALCHECK_GPU_STACKS");
  if (stk && *stk && strcmp(stk, "0") != 0)
    stacks_setup();
}
