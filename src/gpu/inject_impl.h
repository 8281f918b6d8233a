/* coalcheck gpu: the injection library's private state, shared by its three files:
 * inject.c (the Sanitizer callbacks), inject_env.c (the state made from the environment
 * at load) and inject_exit.c (the report at exit). Not installed, not used elsewhere:
 * every function here has hidden visibility, so the preloaded library exports nothing
 * but its constructor's effects. */
#ifndef CC_GPU_INJECT_IMPL_H
#define CC_GPU_INJECT_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include <sanitizer.h>

#include "gpu/gpu.h"
#include "gpu/sample.h"
#include "util/err.h"

#define CC_GPU_INJ_API __attribute__((visibility("hidden")))

struct mod_rec {
  CUmodule mod;
  CUcontext ctx;
  char *cubin;            /* copy of the module's cubin, owned */
  size_t cubin_size;
  struct cc_gpu_sassmap sass;
  int sass_done;
  int patched;            /* instrumented now (the fast mode unpatches between samples) */
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
  /* fast mode: launch strata and the sampled launch in progress (sample.h) */
  struct cc_gpu_strata strata;
  struct cc_gpu_stratum *cur;
  int cur_head;           /* the launch in progress is in its stratum's head */
  struct cc_gpu_pc_stats *scratch; /* n_slots + 1: what one sampled launch measured */
  /* exact mode, one host thread: launches read back together (defer.c's rule) */
  uint64_t pending;       /* launches since the last flush, all on pending_st */
  Sanitizer_StreamHandle pending_st;
  uint64_t defer_max;     /* flush once this many are pending (carry guard, layout.h) */
  double *bound_req, *bound_sec; /* fast mode, at exit: relative 95% bounds per slot */
  struct cc_gpu_sample_summary sum;
};

/* COALCHECK_GPU_PROFILE=1: where the time goes (seconds of CLOCK_MONOTONIC, summed). */
struct prof {
  double load, sw, begin, wait, read, merge, finish;
  uint64_t launches, patched, switches, flushes, deferred, empty;
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
  int exact;              /* COALCHECK_GPU_EXACT=1: every launch patched and counted */
  uint32_t period;        /* fast mode: 1 launch in `period` sampled per geometry */
  int no_unpatch;         /* sanitizerUnpatchModule failed: unsampled launches run patched
                             with callbacks that return at once */
  int no_switch;          /* a second host thread or stream has launched: modules keep the
                             state they have (measured on the H100: patching while other
                             threads or streams launch hung tests/gpu/apps/threads.cu and
                             multistream.cu) */
  Sanitizer_StreamHandle first_stream;
  int profile;            /* COALCHECK_GPU_PROFILE */
  int nodefer;            /* COALCHECK_GPU_DIAG=nodefer: exact mode reads every launch back
                             at its end (as before the deferred read-back) */
  struct prof prof;
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

/* strdup that treats NULL as "" and stops on out of memory (CC_BUG); the caller owns the
 * copy. */
CC_GPU_INJ_API char *cc_gpu_inj_strdup(const char *s);

/* Records the first Sanitizer failure in s->err (later ones are its consequences), with
 * `what` naming the call; returns 0 on success, -1 on failure. */
CC_GPU_INJ_API int cc_gpu_inj_check(struct state *s, SanitizerResult r, const char *what);

/* Seconds of CLOCK_MONOTONIC (COALCHECK_GPU_PROFILE's breakdown). */
CC_GPU_INJ_API double cc_gpu_inj_now(void);

/* Reads f's counter table back on stream st and adds what changed since the last read to
 * dst (n_slots + 1 entries); errors go to s->err. inject.c. */
CC_GPU_INJ_API void cc_gpu_inj_flush(struct state *s, struct func_rec *f,
                                     Sanitizer_StreamHandle st, struct cc_gpu_pc_stats *dst);

/* Exact mode: reads back every function's deferred launches (all of them when st and ctx
 * are NULL, else those on st or in ctx). inject.c. */
CC_GPU_INJ_API void cc_gpu_inj_flush_pending_all(struct state *s, Sanitizer_StreamHandle st,
                                                 CUcontext ctx);

/* The state of a new process from the environment (COALCHECK_GPU_*, COALCHECK_KERNEL_*,
 * COALCHECK_LAUNCH_*; inject.c's head comment lists them): returned owned, NULL when out
 * of memory. A malformed variable is a usage error: the message names it and the process
 * exits with CC_ERR_USAGE before the application starts. inject_env.c. */
CC_GPU_INJ_API struct state *cc_gpu_inj_state_new(void);

/* At exit: the deferred read-backs, the fast mode's estimates, the SASS map (nvdisasm),
 * the trace (COALCHECK_GPU_TRACE), the text table on stderr and the JSON report
 * (COALCHECK_GPU_JSON), written whole or not at all. Holds s->lock throughout.
 * inject_exit.c. */
CC_GPU_INJ_API void cc_gpu_inj_finish(struct state *s);

#endif
