/* The cache model's cost behind the emulator's workers (--jobs N): what the one merger
 * thread spends per record it receives, with the records the workers cut to their
 * sampled lanes (src/cache/drop.c) sent on one by one ("cut", session 10's stream) or
 * with the repeated stores folded ("fold": a cut global store held back and the
 * identical ones after it counted in its cut field, today's stream). Reads a trace
 * (`coalcheck record`), decides each record as a worker does (cc_cache_drop, the model
 * in step), keeps what the merger would receive in a buffer and times cc_cache_access
 * over it alone (this thread's CPU time); prints one line per kernel. Built and run by
 * bench/cut_merger.sh.
 *
 * usage: cut_merger TRACE DEVICE-SPEC cut|fold
 * Shared records are decided with 0 wavefronts, local ones skipped (the kernels
 * measured have none). The trace is one worker's run of consecutive CTAs: the held
 * store is released at the kernel's end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "access/trace.h"
#include "cache/cache.h"

#define BUF 4096

struct run {
  struct cc_cache *c;
  struct cc_cache_drops *d;
  int fold;                      /* today's stream: repeated stores folded */
  struct cc_warp_access *in;     /* [BUF]: records read, not decided yet */
  struct cc_warp_access *buf;    /* [CC_CACHE_DROP_OUT BUF]: what the merger receives */
  size_t n_in, n;
  uint64_t records, sent, cut, cut_lanes, folded, local;
  double merger_s, worker_s;
  const char *name;
};

static double cpu_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The merger's work: the buffered records through the model. */
static void flush(struct run *r)
{
  double t0 = cpu_now();
  for (size_t i = 0; i < r->n; i++)
    cc_cache_access(r->c, &r->buf[i], 0);
  r->merger_s += cpu_now() - t0;
  r->n = 0;
}

static int begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct run *r = ctx;
  (void)err;
  cc_cache_begin_kernel(r->c, k->grid, k->block, k->n_insns);
  r->d = cc_cache_drops_new(r->c);
  r->records = r->sent = r->cut = r->cut_lanes = r->folded = r->local = 0;
  r->merger_s = r->worker_s = 0;
  r->name = k->name;
  return 0;
}

/* Record a goes to the merger's buffer. */
static void take(struct run *r, const struct cc_warp_access *a)
{
  r->cut += a->cut != 0;
  r->cut_lanes += a->cut ? (uint64_t)__builtin_popcount(a->active) : 0;
  r->folded += a->cut > 1 ? a->cut - 1 : 0;
  r->buf[r->n++] = *a;
}

/* The workers' decisions over the batch of records read (timed together: a clock read
 * costs more than a decision), then the merger's work over what they send on; at the
 * kernel's end (last), the held store too. */
static void decide(struct run *r, int last)
{
  const struct cc_warp_access *out[CC_CACHE_DROP_OUT];
  uint32_t n;
  double t0 = cpu_now();
  for (size_t i = 0; i < r->n_in; i++) {
    n = cc_cache_drop(r->c, &r->in[i], 0, r->d, out);
    for (uint32_t k = 0; k < n; k++)
      take(r, out[k]);
    if (!r->fold) /* session 10's stream: the store at once */
      for (uint32_t k = 0, held = cc_cache_drops_release(r->d, out); k < held; k++)
        take(r, out[k]);
  }
  n = last ? cc_cache_drops_release(r->d, out) : 0;
  for (uint32_t k = 0; k < n; k++)
    take(r, out[k]);
  r->worker_s += cpu_now() - t0;
  r->sent += r->n;
  r->n_in = 0;
  flush(r);
}

static int access_one(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct run *r = ctx;
  (void)err;
  r->records++;
  if (a->space == CC_SPACE_LOCAL) {
    r->local++;
    return 0;
  }
  r->in[r->n_in++] = *a;
  if (r->n_in == BUF)
    decide(r, 0);
  return 0;
}

static int end(void *ctx, struct cc_err *err)
{
  struct run *r = ctx;
  struct cc_cache_kernel k;
  (void)err;
  decide(r, 1);
  cc_cache_drops_add(r->c, r->d);
  cc_cache_drops_free(r->d);
  cc_cache_end_kernel(r->c);
  cc_cache_kernel_figures(r->c, &k);
  printf("| %s | %s | %llu | %llu | %llu | %llu | %.2f | %.3f | %.1f | %.1f | %.1f |\n",
         r->name, r->fold ? "fold" : "cut", (unsigned long long)r->records,
         (unsigned long long)r->sent, (unsigned long long)r->cut,
         (unsigned long long)r->folded,
         r->cut ? (double)r->cut_lanes / (double)r->cut : 0.0, r->merger_s,
         r->sent ? 1e9 * r->merger_s / (double)r->sent : 0.0,
         1e9 * r->merger_s / (double)r->records, 1e9 * r->worker_s / (double)r->records);
  return 0;
}

int main(int argc, char **argv)
{
  struct cc_cache_device d;
  struct cc_err err = {0};
  struct run r;
  int on = 0;
  if (argc != 4 || (strcmp(argv[3], "fold") != 0 && strcmp(argv[3], "cut") != 0)) {
    fprintf(stderr, "usage: cut_merger TRACE DEVICE-SPEC cut|fold\n");
    return 2;
  }
  if (cc_cache_device_get("sm_90", argv[2], NULL, &d, &on, &err) != CC_OK || !on) {
    fprintf(stderr, "cut_merger: %s\n", err.msg[0] ? err.msg : "no cache model");
    return 2;
  }
  memset(&r, 0, sizeof r);
  r.c = cc_cache_new(&d);
  r.fold = strcmp(argv[3], "fold") == 0;
  r.buf = malloc((size_t)CC_CACHE_DROP_OUT * BUF * sizeof *r.buf);
  r.in = malloc(BUF * sizeof *r.in);
  struct cc_access_sink sink = {&r, begin, access_one, end};
  if (!r.buf || !r.in || cc_trace_replay(argv[1], &sink, NULL, &err) != CC_OK) {
    fprintf(stderr, "cut_merger: %s\n", err.msg);
    return 1;
  }
  free(r.buf);
  free(r.in);
  cc_cache_free(r.c);
  return 0;
}
