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

#include "gpu/gpu.h"
#include "util/mem.h"
#include "util/fileio.h"

/* demangling through libstdc++ (linked), as the cli does */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct mod_rec {
  CUmodule mod;
  CUcontext ctx;
  char *cubin;            /* copy of the module's cubin, owned */
  size_t cubin_size;
  struct cc_gpu_sassmap sass;
  int sass_done;
};

struct func_rec {
  CUfunction fn;
  size_t mod;             /* index into modules */
  char *mangled, *name;   /* owned */
  uint64_t base_pc, size;
  uint32_t n_slots, n_shards;
  void *dev;              /* hdr + counters + touched (device) */
  size_t counters_off, touched_off, touched_bytes;
  uint32_t *touched;      /* host copy */
  uint64_t *raw;          /* host scratch: (n_slots + 1) x n_shards x fields */
  uint64_t *prev;         /* the device table as last read and not zeroed since (same
                             shape; the sums of a flush are the differences) */
  struct cc_gpu_pc_stats *stats; /* n_slots + 1 */
  uint64_t launches;
  int graph;              /* has run as a graph kernel node: flushed at graph launch end */
  int graph_running;      /* a node of it is in the graph launch in progress */
  int graph_dirty;        /* ran in a graph launch whose flush was deferred */
  uint32_t grid[3], block[3];
};

struct ctx_rec {
  CUcontext ctx;
  int patched;            /* the device patch is loaded into this context */
  void *disabled;         /* a zeroed header: callbacks return at once (allocated at the
                             context's first launch, zeroed on that launch's stream:
                             measured, a memset on the NULL stream fails in a context
                             that is not current, tests/gpu/apps/contexts.cu) */
};

struct state {
  pthread_mutex_t lock;   /* recursive: see callback() */
  int depth;              /* callbacks of this thread in progress (under lock) */
  int debug;              /* COALCHECK_GPU_DEBUG: trace events to stderr */
  Sanitizer_SubscriberHandle sub;
  char *patch_path, *json_path;
  struct cc_gpu_filter filter;
  uint32_t n_shards;
  uint32_t spaces;        /* COALCHECK_GPU_SPACES: bit 1 << enum cc_space: patched */
  uint32_t mode;          /* CC_GPU_MODE_* from COALCHECK_GPU_DIAG */
  int quiet;
  struct cc_err err;      /* first error met inside a callback, reported at exit */
  struct mod_rec *mods;
  size_t n_mods, cap_mods;
  struct func_rec *funcs;
  size_t n_funcs, cap_funcs;
  struct ctx_rec *ctxs;
  size_t n_ctxs, cap_ctxs;
  /* profiled direct launches between their LAUNCH_BEGIN and LAUNCH_END: both callbacks
   * come from the one API call on one thread, so the thread pairs them (an end whose
   * launch was filtered out must not flush another thread's profiled launch) */
  struct open_launch *open;
  size_t n_open, cap_open;
  /* graph launch in progress (between GRAPHS_LAUNCH_BEGIN and _END on graph_thread): its
   * kernel nodes are not flushed one by one (no stream wait in the middle of the graph's
   * submission) but all at once after the graph, at GRAPHS_LAUNCH_END */
  int graph_depth, graph_upload;
  pthread_t graph_thread;
  struct graph_node *seen; /* node launches already handled in this graph launch */
  size_t n_seen, cap_seen;
  int graph_data;         /* GRAPH_DATA_* bits: how kernel nodes get their table */
  /* the host threads that called: with more than one, graph launches are flushed later
   * (on_graph_launch) */
  pthread_t first_thread;
  int have_first_thread, multi_thread;
  Sanitizer_StreamHandle last_graph_stream; /* for the flush at exit of deferred graphs */
  /* CTA sampling (COALCHECK_GPU_SAMPLE_CTAS): 1 CTA in `sample` counted and traced */
  uint32_t sample;
  /* trace mode (COALCHECK_GPU_TRACE): the ring, its drain thread, the record spool */
  char *trace_path;
  uint32_t ring_cap;      /* records (power of two; COALCHECK_GPU_TRACE_RING) */
  struct cc_gpu_ring_host *ring; /* pinned host memory, device-visible (one context) */
  void *ring_ctl;         /* device: struct cc_gpu_ring_ctl */
  CUcontext ring_ctx;
  pthread_t drainer;
  int drainer_started;
  FILE *spool;            /* warp records so far (the drain thread writes it) */
  uint64_t drained;       /* ring records spooled (atomic: drain thread writes, others read) */
  uint64_t reserved;      /* ctl.head at the last traced launch's end */
  uint64_t spool_recs, spool_bytes; /* warp records and bytes in the spool (drain thread) */
  /* the device buffer (layout.h, the fast path): copied after each traced launch into
   * chunks that the drain thread appends to the spool, in launch order with the ring's
   * records (both are taken under qlock) */
  void *tbuf, *tbuf_ctl;  /* device */
  uint32_t tbuf_segs;
  uint64_t tbuf_seg_bytes;
  uint64_t tbuf_mib;      /* COALCHECK_GPU_TRACE_BUFFER: MiB in all (0: the ring only) */
  struct cc_gpu_tbuf_seg *tbuf_host; /* scratch: tbuf_segs entries */
  pthread_mutex_t qlock;
  struct chunk *q_head, *q_tail;
  uint64_t queued;        /* bytes in the queue (under qlock) */
  struct chunk *pool;     /* written chunks, for reuse (under qlock): pinned memory makes
                             the copies fast, reuse spares the page faults of new memory */
  uint64_t pinned;        /* pinned bytes in chunks (the callback thread only) */
  uint64_t bad_chunks;    /* atomic: copied segments that were not whole records (lost) */
  int trace_nocopy;       /* COALCHECK_GPU_DIAG=trace-nocopy: records are written on the
                             device but never copied (timing of the device side only) */
  uint64_t overflowed;    /* launches whose records did not all fit the device buffer */
  int stop;               /* atomic: the drain thread ends once the ring is empty */
  int spool_failed;       /* atomic: a spool write failed (records lost: reported) */
  struct cc_gpu_raw_launch *launches; /* traced launches; .func indexes funcs */
  size_t n_launches, cap_launches;
};

struct open_launch {
  pthread_t thread;
  size_t func;            /* index into funcs */
};

/* Bytes of warp records copied from one segment of the device buffer, waiting for the
 * drain thread to write them into the spool. */
struct chunk {
  struct chunk *next;
  char *bytes;            /* owned: pinned (sanitizerAllocHost) or malloc */
  size_t cap, n_bytes;
  uint64_t n_recs;
};

/* Pinned host memory the chunk pool may hold; beyond it chunks are malloc'ed. */
#define CHUNK_PINNED_MAX (1ull << 30)

/* A kernel node of the graph launch in progress: its launch handle (a node announced by
 * both the launch and the graphs domain is handled once) and its stream (synchronized at
 * the graph's end, with the graph's own stream). */
struct graph_node {
  Sanitizer_LaunchHandle h;
  Sanitizer_StreamHandle st;
};

/* How a graph's kernel nodes get their table. Measured on the H200 (driver 580, 2026-11-22,
 * bench/results/gpu-workloads-2026-11-22.md): per function (sanitizerSetCallbackData) at
 * GRAPHS_NODE_LAUNCH_BEGIN gives every node its counts (equal to ncu); per launch
 * (sanitizerSetLaunchCallbackData with the node's launch handle and stream) returns
 * success but the nodes of the forked branches count nothing, with or without the
 * per-function data, and with the graph launch's stream (graph-api-stream) only the
 * direct launches count. Default: per function only; COALCHECK_GPU_DIAG=
 * graph-launch-data | graph-both | graph-api-stream reproduce the others (diagnostics). */
enum { GRAPH_DATA_LAUNCH = 1, GRAPH_DATA_FUNCTION = 2, GRAPH_DATA_API_STREAM = 4 };

static struct state *g_state;


static char *xstrdup(const char *s)
{
  char *d = strdup(s ? s : "");
  if (d == NULL)
    CC_BUG("out of memory");
  return d;
}

/* Records the first failure (later ones are consequences); returns 0 on success. */
static int check(struct state *s, SanitizerResult r, const char *what)
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
      check(s, sanitizerAlloc(ctx, &c->disabled, sizeof(struct cc_gpu_launch_hdr)),
            "sanitizerAlloc (disabled header)") == 0 &&
      check(s, sanitizerMemset(c->disabled, 0, sizeof(struct cc_gpu_launch_hdr), st),
            "sanitizerMemset (disabled header)") != 0)
    c->disabled = NULL; /* launches then get no data: the callbacks return at once */
  return c;
}

static void on_module_loaded(struct state *s, const Sanitizer_ResourceModuleData *d)
{
  struct ctx_rec *c = ctx_find(s, d->context);
  if (!c->patched) {
    if (check(s, sanitizerAddPatchesFromFile(s->patch_path, d->context),
              "loading the device patch (set COALCHECK_GPU_PATCH to "
              "coalcheck_gpu_patch.fatbin)") != 0)
      return;
    c->patched = 1;
  }
  /* only the spaces asked for (COALCHECK_GPU_SPACES): an unpatched instruction costs
   * nothing, which no faster callback can match */
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
        check(s, sanitizerPatchInstructions(patches[sp].id, d->module, patches[sp].callback),
              patches[sp].what) != 0)
      return;
  if (check(s, sanitizerPatchModule(d->module), "sanitizerPatchModule"))
    return;
  s->mods = cc_xgrow(s->mods, &s->cap_mods, s->n_mods + 1, sizeof *s->mods);
  struct mod_rec *m = &s->mods[s->n_mods++];
  memset(m, 0, sizeof *m);
  m->mod = d->module;
  m->ctx = d->context;
  if (d->pCubin != NULL && d->cubinSize != 0) {
    m->cubin = malloc(d->cubinSize);
    if (m->cubin == NULL)
      CC_BUG("out of memory");
    memcpy(m->cubin, d->pCubin, d->cubinSize);
    m->cubin_size = d->cubinSize;
  }
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
  f->mangled = xstrdup(d->functionName);
  int st = -1;
  char *dm = __cxa_demangle(f->mangled, NULL, NULL, &st);
  f->name = st == 0 && dm ? dm : xstrdup(f->mangled);
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
  if (check(s, sanitizerAlloc(ctx, &s->tbuf_ctl, bytes), "sanitizerAlloc (trace buffer)") ||
      check(s, sanitizerMemcpyHostToDeviceAsync(s->tbuf_ctl, s->tbuf_host, bytes, st),
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
  if (check(s, sanitizerAllocHost(ctx, &host, bytes), "sanitizerAllocHost (trace ring)") != 0)
    return -1;
  memset(host, 0, bytes);
  struct cc_gpu_ring_ctl ctl = {.head = 0, .limit = s->ring_cap};
  if (check(s, sanitizerAlloc(ctx, &s->ring_ctl, sizeof ctl), "sanitizerAlloc (trace)") != 0 ||
      check(s, sanitizerMemcpyHostToDeviceAsync(s->ring_ctl, &ctl, sizeof ctl, st),
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
  if (check(s, sanitizerGetFunctionPcAndSize(d->module, f->mangled, &f->base_pc, &f->size),
            "sanitizerGetFunctionPcAndSize") != 0)
    return -1;
  f->n_slots = (uint32_t)(f->size / CC_GPU_INSN_BYTES);
  f->n_shards = s->n_shards;
  size_t rec = (size_t)f->n_shards * CC_GPU_FIELDS * sizeof(uint64_t);
  f->counters_off = CC_GPU_HDR_BYTES;
  f->touched_off = f->counters_off + (f->n_slots + 1) * rec;
  f->touched_bytes = ((f->n_slots + 1 + 31) / 32) * sizeof(uint32_t);
  size_t total = f->touched_off + f->touched_bytes;
  if (check(s, sanitizerAlloc(d->context, &f->dev, total), "sanitizerAlloc (counters)") != 0)
    return -1;
  f->touched = calloc(f->touched_bytes, 1);
  f->raw = malloc((f->n_slots + 1) * rec);
  f->prev = calloc(f->n_slots + 1, rec);
  f->stats = malloc((f->n_slots + 1) * sizeof *f->stats);
  if (!f->touched || !f->raw || !f->prev || !f->stats)
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
  if (check(s, sanitizerMemset(f->dev, 0, total, d->hStream), "sanitizerMemset") != 0 ||
      check(s, sanitizerMemcpyHostToDeviceAsync(f->dev, &hdr, sizeof hdr, d->hStream),
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
  check(s, sanitizerMemcpyHostToDeviceAsync((char *)f->dev +
                                                offsetof(struct cc_gpu_launch_hdr, launch),
                                            &id, sizeof id, d->hStream),
        "sanitizerMemcpyHostToDeviceAsync (launch number)");
}

static void on_launch_begin(struct state *s, const Sanitizer_LaunchData *d)
{
  int graph = in_graph(s);
  if (graph && graph_node_seen(s, d))
    return;
  struct ctx_rec *c = ctx_get(s, d->context, d->hStream);
  struct func_rec *f = func_get(s, d);
  void *ud = c->disabled;
  /* a graph upload sets up the nodes without running them: not a launch (the filter's
   * skip/count see only launches that run) */
  if (!(graph && s->graph_upload) && cc_gpu_filter_select(&s->filter, f->name, f->mangled) &&
      (f->dev != NULL || func_alloc(s, f, d) == 0)) {
    ud = f->dev;
    f->launches++;
    if (graph) {
      f->graph = 1;
      f->graph_running = 1;
    } else {
      s->open = cc_xgrow(s->open, &s->cap_open, s->n_open + 1, sizeof *s->open);
      s->open[s->n_open++] = (struct open_launch){pthread_self(), (size_t)(f - s->funcs)};
    }
    f->grid[0] = d->gridDim_x, f->grid[1] = d->gridDim_y, f->grid[2] = d->gridDim_z;
    f->block[0] = d->blockDim_x, f->block[1] = d->blockDim_y, f->block[2] = d->blockDim_z;
    if (s->ring != NULL && !graph)
      trace_launch(s, f, d);
  }
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: launch %s %s%s launch %p stream %p\n", f->mangled,
            ud == c->disabled ? "off" : "on", graph ? " (graph node)" : "",
            (void *)d->hLaunch, (void *)d->hStream);
  if (!graph || (s->graph_data & GRAPH_DATA_LAUNCH))
    check(s, sanitizerSetLaunchCallbackData(d->hLaunch, d->function,
                                            graph && (s->graph_data & GRAPH_DATA_API_STREAM)
                                                ? d->hApiStream : d->hStream, ud),
          "sanitizerSetLaunchCallbackData");
  /* per-function data outlives the graph: a later direct launch of a function that ran
   * as a node sets it too, so both kinds of data agree whichever one the driver uses.
   * Within one graph launch the last node of a function sets its table for all of its
   * nodes: a launch filter that cuts through a graph's nodes of one function is coarse. */
  if ((graph || f->graph) && (s->graph_data & GRAPH_DATA_FUNCTION))
    check(s, sanitizerSetCallbackData(d->function, ud), "sanitizerSetCallbackData");
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

/* Copies back the slots the launch touched and adds what is new in them (the caller has
 * waited for the grid: at LAUNCH_END it may still run; measured on the H200, copies
 * without the wait read counters mid-kernel). Zeroes them on
 * the device only when no other launch of the function is in flight: a launch of the
 * same function from another host thread may still be adding to the table (measured,
 * tests/gpu/apps/threads.cu: zeroing under it lost up to 7% of its counts); otherwise
 * the table keeps growing and the next flush takes the difference. */
static void flush(struct state *s, struct func_rec *f, Sanitizer_StreamHandle st)
{
  char *dev = f->dev;
  if (check(s, sanitizerMemcpyDeviceToHost(f->touched, dev + f->touched_off,
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
  if (lo == UINT32_MAX)
    return;
  size_t per = (size_t)f->n_shards * CC_GPU_FIELDS;
  size_t rec = per * sizeof(uint64_t);
  size_t off = f->counters_off + lo * rec, bytes = (size_t)(hi - lo + 1) * rec;
  if (check(s, sanitizerMemcpyDeviceToHost(f->raw, dev + off, bytes, st),
            "reading counters") != 0)
    return;
  for (uint32_t i = lo; i <= hi; i++)
    if (f->touched[i / 32] & (1u << (i % 32)))
      add_slot(&f->stats[i], f->raw + (size_t)(i - lo) * per, f->prev + (size_t)i * per,
               f->n_shards);
  if (!zero)
    return;
  if (check(s, sanitizerMemset(dev + off, 0, bytes, st), "zeroing counters") != 0)
    return;
  memset(f->prev + (size_t)lo * per, 0, bytes);
  check(s, sanitizerMemset(dev + f->touched_off, 0, f->touched_bytes, st), "zeroing counters");
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
  if (check(s, sanitizerMemcpyDeviceToHost(k->bytes, (char *)s->tbuf + seg * s->tbuf_seg_bytes,
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
  if (check(s, sanitizerMemcpyDeviceToHost(s->tbuf_host, s->tbuf_ctl, bytes, st),
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
  check(s, sanitizerMemcpyHostToDeviceAsync(s->tbuf_ctl, s->tbuf_host, bytes, st),
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
  if (check(s, sanitizerMemcpyDeviceToHost(&head, s->ring_ctl, sizeof head, st),
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
  return check(s, r, "sanitizerStreamSynchronize");
}

static void on_launch_end(struct state *s, const Sanitizer_LaunchData *d)
{
  if (in_graph(s))
    return; /* flushed after the whole graph: on_graph_launch */
  if (open_find(s) < 0)
    return; /* this thread's launch was not profiled */
  int synced = streams_sync(s, &d->hStream, 1) == 0;
  /* the launch stays open until its grid is over, so that no other thread's flush zeroes
   * the table under it; s->open and s->funcs may have changed while the lock was free */
  long k = open_find(s);
  size_t fi = s->open[k].func;
  s->open[k] = s->open[--s->n_open];
  if (!synced)
    return;
  struct func_rec *f = &s->funcs[fi];
  flush(s, f, d->hStream);
  for (size_t i = 0; i < s->n_funcs; i++)
    if (s->funcs[i].graph_dirty) {
      s->funcs[i].graph_dirty = 0;
      flush(s, &s->funcs[i], d->hStream);
    }
  trace_wait(s, d->hStream);
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
      flush(s, f, d->hStream);
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
  } else if (!pthread_equal(s->first_thread, pthread_self())) {
    s->multi_thread = 1;
  }
  if (s->debug)
    fprintf(stderr, "coalcheck-gpu: event domain %d cbid %d\n", (int)domain, (int)cbid);
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
    on_module_loaded(s, cbdata);
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

/* ---- at exit: SASS map and report ---- */

static const char *nvdisasm_path(void)
{
  const char *p = getenv("COALCHECK_NVDISASM");
  if (p && *p)
    return p;
  static char buf[4096];
  const char *home = getenv("CUDA_HOME");
  snprintf(buf, sizeof buf, "%s/bin/nvdisasm", home && *home ? home : "/usr/local/cuda");
  if (access(buf, X_OK) == 0)
    return buf;
  return "nvdisasm";
}

/* Runs nvdisasm -gi on the module's cubin and parses it; on failure m->sass stays empty. */
static void disassemble(struct state *s, struct mod_rec *m)
{
  m->sass_done = 1;
  if (m->cubin == NULL)
    return;
  char tmp[] = "/tmp/coalcheck-cubin-XXXXXX";
  int fd = mkstemp(tmp);
  if (fd < 0)
    return;
  int ok = write(fd, m->cubin, m->cubin_size) == (ssize_t)m->cubin_size;
  close(fd);
  char cmd[8192];
  /* -gi: line information with the call sites of inlined code (an atomicAdd of a CUDA
   * header is reported on the user's line that called it, as the emulator does) */
  snprintf(cmd, sizeof cmd, "'%s' -gi -c '%s' 2>/dev/null", nvdisasm_path(), tmp);
  FILE *p = ok ? popen(cmd, "r") : NULL;
  if (p != NULL) {
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0) {
      len += got;
      if (cap - len < 4096) {
        char *t = realloc(text, cap * 2);
        if (t == NULL)
          CC_BUG("out of memory");
        text = t;
        cap *= 2;
      }
    }
    pclose(p);
    if (text) {
      text[len] = '\0';
      struct cc_err e = {0};
      if (cc_gpu_sassmap_parse(&m->sass, text, "nvdisasm output", &e) != CC_OK &&
          s->err.status == CC_OK)
        s->err = e;
      free(text);
    }
  }
  unlink(tmp);
}

/* The instruction table of one function for the trace: every slot the in-situ counters
 * saw (the same table as the JSON report), with its SASS text and line. */
static void trace_func(const struct func_rec *f, const struct mod_rec *m,
                       struct cc_gpu_raw_func *rf)
{
  struct cc_gpu_raw_insn *ins = calloc(f->n_slots + 1, sizeof *ins);
  if (ins == NULL)
    CC_BUG("out of memory");
  size_t n = 0;
  for (uint32_t slot = 0; slot <= f->n_slots; slot++) {
    const struct cc_gpu_pc_stats *st = &f->stats[slot];
    if (st->requests == 0)
      continue;
    const struct cc_gpu_sass_insn *si =
        m && slot < f->n_slots ? cc_gpu_sassmap_find(&m->sass, f->mangled,
                                                     slot * CC_GPU_INSN_BYTES) : NULL;
    struct cc_gpu_raw_insn *in = &ins[n++];
    in->slot = slot;
    in->sass = si ? si->text : slot == f->n_slots ? "(outside the kernel)" : NULL;
    in->kind = cc_gpu_stats_kind(st, in->sass);
    in->space = cc_gpu_stats_space(st);
    in->size = cc_gpu_stats_size(st);
    if (si) {
      in->file = si->file, in->line = si->line;
      in->inl_file = si->inl_file, in->inl_line = si->inl_line;
    }
  }
  *rf = (struct cc_gpu_raw_func){.name = f->name, .mangled = f->mangled,
                                 .n_slots = f->n_slots, .n = n, .insns = ins};
}

/* Ends the drain thread (once every reserved record is spooled) and writes the GPU trace
 * (trace.c) to $COALCHECK_GPU_TRACE, whole or not at all. Disassembly is done. */
static void trace_finish(struct state *s)
{
  if (s->drainer_started) {
    while (__atomic_load_n(&s->drained, __ATOMIC_ACQUIRE) < s->reserved)
      usleep(20);
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_join(s->drainer, NULL);
    s->drainer_started = 0;
  }
  if (s->trace_path == NULL || s->n_mods == 0)
    return;
  struct cc_gpu_raw_func *rf = calloc(s->n_funcs + 1, sizeof *rf);
  uint32_t *map = calloc(s->n_funcs + 1, sizeof *map);
  if (rf == NULL || map == NULL)
    CC_BUG("out of memory");
  size_t nf = 0;
  for (size_t i = 0; i < s->n_funcs; i++) {
    const struct func_rec *f = &s->funcs[i];
    if (f->launches == 0 || f->stats == NULL)
      continue;
    map[i] = (uint32_t)nf;
    trace_func(f, f->mod < s->n_mods ? &s->mods[f->mod] : NULL, &rf[nf++]);
  }
  for (size_t i = 0; i < s->n_launches; i++)
    s->launches[i].func = map[s->launches[i].func];
  struct cc_outfile out;
  struct cc_err e = {0};
  uint64_t n = s->spool_recs; /* the drain thread has ended */
  if (s->bad_chunks > 0) /* s->err has been printed by now: say it here */
    fprintf(stderr, "coalcheck-gpu: error: trace: %llu copies of the device buffer were not "
            "whole warp records and are missing from the trace (a bug: please report it)\n",
            (unsigned long long)s->bad_chunks);
  if (s->spool)
    fflush(s->spool);
  if (__atomic_load_n(&s->spool_failed, __ATOMIC_ACQUIRE))
    cc_err_set(&e, CC_ERR_IO, "the trace spool in /tmp could not be written (disk full?); "
               "no trace written");
  else if (cc_outfile_open(&out, s->trace_path, &e) == CC_OK) {
    if (cc_gpu_raw_write(out.fp, rf, nf, s->launches, s->n_launches, s->spool, n,
                         s->spool_bytes, s->trace_path, &e) != CC_OK)
      cc_outfile_abort(&out);
    else
      cc_outfile_commit(&out, &e);
  }
  if (e.status != CC_OK)
    fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
  else if (!s->quiet)
    fprintf(stderr, "coalcheck-gpu: trace: %llu warp records (%llu bytes) of %zu launches "
            "in %s%s\n", (unsigned long long)n, (unsigned long long)s->spool_bytes,
            s->n_launches, s->trace_path,
            s->overflowed ? "; the device buffer filled up (COALCHECK_GPU_TRACE_BUFFER)" : "");
  for (size_t i = 0; i < nf; i++)
    free((void *)rf[i].insns);
  free(rf);
  free(map);
}

static void finish(void)
{
  struct state *s = g_state;
  if (s == NULL)
    return;
  pthread_mutex_lock(&s->lock);
  s->depth++; /* callbacks raised from here on (teardown) are ignored */
  /* graph launches whose flush was deferred (several host threads) and that no later
   * launch end flushed: read now, on the last graph's stream (the application may have
   * destroyed it: then the error says these counts are missing) */
  for (size_t i = 0; i < s->n_funcs; i++)
    if (s->funcs[i].graph_dirty) {
      s->funcs[i].graph_dirty = 0;
      if (check(s, sanitizerStreamSynchronize(s->last_graph_stream),
                "sanitizerStreamSynchronize (graph launches at exit)") == 0)
        flush(s, &s->funcs[i], s->last_graph_stream);
    }
  unsetenv("LD_PRELOAD"); /* nvdisasm must not load this library again */
  size_t nk = 0;
  struct cc_gpu_kernel_report *ks = calloc(s->n_funcs + 1, sizeof *ks);
  int no_lines = 0, no_sass = 0;
  for (size_t i = 0; ks && i < s->n_funcs; i++) {
    struct func_rec *f = &s->funcs[i];
    if (f->launches == 0 || f->stats == NULL)
      continue;
    struct mod_rec *m = f->mod < s->n_mods ? &s->mods[f->mod] : NULL;
    if (m && !m->sass_done)
      disassemble(s, m);
    struct cc_gpu_kernel_report *k = &ks[nk++];
    k->name = f->name;
    k->mangled = f->mangled;
    memcpy(k->grid, f->grid, sizeof k->grid);
    memcpy(k->block, f->block, sizeof k->block);
    k->launches = f->launches;
    k->outside_requests = f->stats[f->n_slots].requests;
    k->insns = calloc(f->n_slots + 1, sizeof *k->insns);
    for (uint32_t slot = 0; k->insns && slot < f->n_slots; slot++) {
      if (f->stats[slot].requests == 0)
        continue;
      struct cc_gpu_insn_report *in = &k->insns[k->n++];
      in->sass_offset = slot * CC_GPU_INSN_BYTES;
      in->st = f->stats[slot];
      const struct cc_gpu_sass_insn *si =
          m ? cc_gpu_sassmap_find(&m->sass, f->mangled, in->sass_offset) : NULL;
      if (si) {
        in->sass = si->text;
        in->file = si->file;
        in->line = si->line;
        in->inl_file = si->inl_file;
        in->inl_line = si->inl_line;
      }
      no_sass |= si == NULL;
      no_lines |= m && m->sass.n > 0 && !m->sass.has_lines;
    }
  }
  if (no_sass)
    fprintf(stderr, "coalcheck-gpu: warning: no SASS text for some instructions: nvdisasm "
            "(%s) missing or failed; set COALCHECK_NVDISASM; reporting sass offsets\n",
            nvdisasm_path());
  if (no_lines)
    fprintf(stderr, "coalcheck-gpu: warning: no line information: build the application "
            "with -lineinfo; reporting sass offsets\n");
  if (s->err.status != CC_OK)
    fprintf(stderr, "coalcheck-gpu: error: %s\n", s->err.msg);
  trace_finish(s);
  if (s->sample > 1 && !s->quiet)
    fprintf(stderr, "coalcheck-gpu: CTA sampling: only CTAs whose linear id %% %u == 0 "
            "were counted%s; figures cover that sample\n", s->sample,
            s->trace_path ? " and traced" : "");
  if (s->n_mods == 0) { /* no CUDA module in this process (a helper child): no report */
    free(ks);
    pthread_mutex_unlock(&s->lock);
    return;
  }
  if (!s->quiet && ks)
    cc_gpu_report_write_text(stderr, ks, nk);
  if (s->json_path && ks) {
    struct cc_outfile out;
    struct cc_err e = {0};
    if (cc_outfile_open(&out, s->json_path, &e) == CC_OK) {
      if (cc_gpu_report_write_json(out.fp, getenv("COALCHECK_GPU_DEVICE"), ks, nk, &e) != CC_OK)
        cc_outfile_abort(&out);
      else
        cc_outfile_commit(&out, &e);
    }
    if (e.status != CC_OK)
      fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
  }
  for (size_t i = 0; ks && i < nk; i++)
    free(ks[i].insns);
  free(ks);
  pthread_mutex_unlock(&s->lock);
}

/* Directory of this library + "/coalcheck_gpu_patch.fatbin". */
static char *default_patch_path(void)
{
  Dl_info info;
  char buf[4096] = "coalcheck_gpu_patch.fatbin";
  if (dladdr((void *)default_patch_path, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    if (slash)
      snprintf(buf, sizeof buf, "%.*s/coalcheck_gpu_patch.fatbin",
               (int)(slash - info.dli_fname), info.dli_fname);
  }
  return xstrdup(buf);
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
  struct state *s = calloc(1, sizeof *s);
  if (s == NULL)
    return;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&s->lock, &attr);
  pthread_mutexattr_destroy(&attr);
  s->debug = getenv("COALCHECK_GPU_DEBUG") != NULL;
  const char *patch = getenv("COALCHECK_GPU_PATCH");
  s->patch_path = patch && *patch ? xstrdup(patch) : default_patch_path();
  const char *json = getenv("COALCHECK_GPU_JSON");
  s->json_path = json && *json ? xstrdup(json) : NULL;
  s->quiet = getenv("COALCHECK_GPU_QUIET") != NULL;
  const char *diag = getenv("COALCHECK_GPU_DIAG");
  s->mode = diag && strcmp(diag, "noatomics") == 0 ? CC_GPU_MODE_NO_ATOMICS
           : diag && strcmp(diag, "nobits") == 0  ? CC_GPU_MODE_NO_BITS
                                                  : 0;
  s->trace_nocopy = diag && strcmp(diag, "trace-nocopy") == 0;
  s->graph_data = GRAPH_DATA_FUNCTION;
  if (diag && strcmp(diag, "graph-launch-data") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH;
  else if (diag && strcmp(diag, "graph-both") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH | GRAPH_DATA_FUNCTION;
  else if (diag && strcmp(diag, "graph-api-stream") == 0)
    s->graph_data = GRAPH_DATA_LAUNCH | GRAPH_DATA_API_STREAM;
  const char *tr = getenv("COALCHECK_GPU_TRACE");
  s->trace_path = tr && *tr ? xstrdup(tr) : NULL;
  const char *ring = getenv("COALCHECK_GPU_TRACE_RING");
  s->ring_cap = 1u << 16; /* 65536 records x 320 B = 20 MiB pinned */
  if (ring && *ring) {
    long v = atol(ring);
    if (v < 2 || v > (1l << 24) || (v & (v - 1)) != 0) {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_TRACE_RING=%s: not a power of two "
              "in 2..16777216; give the ring's size in records, e.g. 65536\n", ring);
      exit(CC_ERR_USAGE);
    }
    s->ring_cap = (uint32_t)v;
  }
  const char *tb = getenv("COALCHECK_GPU_TRACE_BUFFER");
  s->tbuf_mib = 512; /* MiB of device memory: 16M lane-affine warp accesses */
  if (tb && *tb) {
    char *end;
    unsigned long long v = strtoull(tb, &end, 10);
    if (*end != '\0' || tb[0] == '-' || v > (1ull << 20)) {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_TRACE_BUFFER=%s: not a size in "
              "MiB; give e.g. 512 (0: no device buffer, every record through the ring)\n", tb);
      exit(CC_ERR_USAGE);
    }
    s->tbuf_mib = v;
  }
  const char *smp = getenv("COALCHECK_GPU_SAMPLE_CTAS");
  s->sample = 1;
  if (smp && *smp) {
    char *end;
    unsigned long v = strtoul(smp, &end, 10);
    if (*end != '\0' || v == 0 || v > UINT32_MAX || smp[0] == '-') {
      fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_SAMPLE_CTAS=%s: not a positive "
              "integer; give N to keep 1 CTA in N\n", smp);
      exit(CC_ERR_USAGE);
    }
    s->sample = (uint32_t)v;
  }
  const char *sh = getenv("COALCHECK_GPU_SHARDS");
  s->n_shards = sh && atoi(sh) > 0 ? (uint32_t)atoi(sh) : CC_GPU_DEFAULT_SHARDS;
  struct cc_err e = {0};
  if (cc_gpu_spaces_parse(getenv("COALCHECK_GPU_SPACES"), &s->spaces, &e) != CC_OK) {
    fprintf(stderr, "coalcheck-gpu: error: COALCHECK_GPU_SPACES: %s\n", e.msg);
    exit(CC_ERR_USAGE);
  }
  struct cc_gpu_filter_spec sel = {
    .regex = getenv("COALCHECK_KERNEL_REGEX"), .kernel_name = getenv("COALCHECK_KERNEL_NAME"),
    .name_base = getenv("COALCHECK_KERNEL_NAME_BASE"),
    .kernel_id = getenv("COALCHECK_KERNEL_ID"), .skip = getenv("COALCHECK_LAUNCH_SKIP"),
    .count = getenv("COALCHECK_LAUNCH_COUNT"), .from_env = 1};
  if (cc_gpu_filter_init_spec(&s->filter, &sel, &e) != CC_OK) {
    fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
    exit(CC_ERR_USAGE);
  }
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
