/* The cache model's replay on several threads, with the serial replay's figures
 * (README.md, "Parallel replay"; cache.h cc_cache_set_jobs).
 *
 * Why it is exact. The serial replay takes the records one after another; a record's
 * lines go through its SM's L1 and, where L1 lacks sectors (and for stores and atomics),
 * through L2. What L1 does depends on the L1's own past alone (its SM's records, in
 * order); what L2 does with a line depends on the past of that line's set alone (its
 * lookups, in order: LRU, fills, write-backs never leave the set); L2 never answers back
 * to L1 but with the level a load waited on. So the records are cut into batches; in each:
 *   1. L1 side: thread t replays the records of the SMs s with s % jobs == t, in batch
 *      order (all of one SM's records are one thread's, in their order), and queues each
 *      line that reaches L2 (record, slot, line, sectors, bytes, read/write/atomic) for the
 *      thread owning the line's set (set % jobs);
 *   2. L2 side: thread q takes its queues in record order (each queue is in its thread's
 *      record order; a record's requests all come from one thread, in line order), which
 *      is the serial replay's order within every set it owns; it keeps its own LRU clock
 *      (stamps are compared within a set only), way predictor (a guess, checked against
 *      the tag) and counts (sums: integers, in any order); the records whose lines read
 *      DRAM are listed;
 *   3. the calling thread counts each record's wait (the deepest level reached: L1 side's
 *      L2, or DRAM from step 2) into the instruction's and the SM's counts.
 * The latencies are computed from those counts at the kernel's end (state.c wait_ns), so
 * their sums do not depend on the order either. At the kernel's end every thread's
 * counts are added into the model's. The memos that read L2 state (the store memo) are
 * the serial replay's only; the L1 memos stay (an SM's L1 is one thread's). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache_impl.h"
#include "util/mem.h"

#define BATCH 8192 /* records per batch: 2.5 MB of them, and up to 40 bytes of L2 request
                      * per line they reach L2 with (a column store: 10 MB); fewer batches,
                      * fewer barriers (3 a batch, each waking every thread) */

/* One thread's state: its L1 side's and L2 part's counts, its queues, its part of L2. */
struct thread_state {
  struct cache_par *p;
  uint32_t t;
  pthread_t thread;
  struct cc_cache_counts *insn; /* [n_insns]: both sides' counts (they run apart) */
  struct cc_cache_counts *samp; /* [n_insns]: while sampling, the sampled lines' raw counts
                                   (sample.c; insn then holds the whole records' counts) */
  struct req_buf *out;          /* [jobs]: L2 requests for each part */
  struct level l2;              /* a copy of the L2 level owning sets s % jobs == t */
  uint32_t *pred;               /* its way predictor */
  uint32_t *dram;               /* records of the batch whose lines read DRAM here */
  size_t n_dram, cap_dram;
  size_t *cursor;               /* [jobs]: step 2's place in each thread's queue */
};

struct cache_par {
  struct cc_cache *c;
  uint32_t jobs;                /* threads, the caller's included */
  uint32_t alloc;               /* thread states allocated (jobs asked for) */
  uint32_t started;             /* helper threads running */
  uint32_t n_insns;             /* counts allocated per thread */
  struct thread_state *ts;      /* [jobs] */
  /* the batch */
  struct cc_warp_access *recs;  /* [BATCH] */
  uint32_t *sm;                 /* [BATCH] */
  uint64_t *base;               /* [BATCH] */
  uint8_t *reach;               /* [BATCH] enum level_reached */
  uint32_t n;
  /* a barrier for jobs threads (a mutex and a condition: the count may drop while
   * helpers start, cache_par_new) */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t arrived;
  uint64_t generation;
  int quit;
};

static void barrier(struct cache_par *p)
{
  pthread_mutex_lock(&p->mu);
  uint64_t gen = p->generation;
  if (++p->arrived == p->jobs) {
    p->arrived = 0;
    p->generation++;
    pthread_cond_broadcast(&p->cv);
  } else {
    while (gen == p->generation)
      pthread_cond_wait(&p->cv, &p->mu);
  }
  pthread_mutex_unlock(&p->mu);
}

/* Step 1 for thread ts: the L1 side of its SMs' records. */
static void l1_side(struct cache_par *p, struct thread_state *ts)
{
  int sampling = p->c->sampling;
  struct side s = {sampling ? ts->samp : ts->insn, ts->out, p->jobs, 0,
                   sampling ? ts->insn : NULL};
  for (uint32_t r = 0; r < p->n; r++) {
    if (p->sm[r] % p->jobs != ts->t)
      continue;
    s.rec = r;
    p->reach[r] = (uint8_t)cc_cache_replay_record(p->c, &s, &p->recs[r], p->sm[r], p->base[r]);
  }
}

/* Step 2 for thread ts: its L2 part's requests in record order. */
static void l2_side(struct cache_par *p, struct thread_state *ts)
{
  memset(ts->cursor, 0, p->jobs * sizeof *ts->cursor);
  for (uint32_t r = 0; r < p->n; r++) {
    uint32_t from = p->sm[r] % p->jobs;
    const struct req_buf *b = &p->ts[from].out[ts->t];
    size_t *i = &ts->cursor[from];
    int dram = 0;
    for (; *i < b->n && b->r[*i].rec == r; ++*i)
      dram |= cc_cache_l2_apply(&ts->l2, &b->r[*i]);
    if (!dram)
      continue;
    if (ts->n_dram == ts->cap_dram) {
      ts->cap_dram = ts->cap_dram ? 2 * ts->cap_dram : 256;
      ts->dram = cc_xrealloc(ts->dram, ts->cap_dram * sizeof *ts->dram);
    }
    ts->dram[ts->n_dram++] = r;
  }
}

/* Steps 1 and 2 of the batch on thread ts, with the barriers between and after them. */
static void run_batch(struct cache_par *p, struct thread_state *ts)
{
  l1_side(p, ts);
  barrier(p);
  l2_side(p, ts);
  barrier(p);
}

static void *helper_main(void *arg)
{
  struct thread_state *ts = arg;
  struct cache_par *p = ts->p;
  for (;;) {
    barrier(p); /* a batch is ready, or quit */
    if (p->quit)
      return NULL;
    run_batch(p, ts);
  }
}

/* Runs the queued records on every thread, then step 3 on the caller. */
static void flush(struct cache_par *p)
{
  struct cc_cache *c = p->c;
  if (p->n == 0)
    return;
  barrier(p);
  run_batch(p, &p->ts[0]);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    for (size_t i = 0; i < ts->n_dram; i++)
      p->reach[ts->dram[i]] = REACH_DRAM;
    ts->n_dram = 0;
    for (uint32_t q = 0; q < p->jobs; q++)
      ts->out[q].n = 0;
  }
  for (uint32_t r = 0; r < p->n; r++)
    if (p->reach[r] != REACH_NONE)
      cc_cache_count_wait(c, p->recs[r].insn_slot, p->sm[r], (enum level_reached)p->reach[r]);
  p->n = 0;
}

/* The state for c->jobs threads, its helpers started; fewer threads when the system
 * gives fewer (the figures do not depend on their number). */
static struct cache_par *cache_par_new(struct cc_cache *c)
{
  struct cache_par *p = cc_xcalloc(1, sizeof *p);
  p->c = c;
  p->jobs = p->alloc = c->jobs;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->ts = cc_xcalloc(p->jobs, sizeof *p->ts);
  p->recs = cc_xmalloc(BATCH * sizeof *p->recs);
  p->sm = cc_xmalloc(BATCH * sizeof *p->sm);
  p->base = cc_xmalloc(BATCH * sizeof *p->base);
  p->reach = cc_xmalloc(BATCH * sizeof *p->reach);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    ts->p = p;
    ts->t = t;
    ts->out = cc_xcalloc(p->jobs, sizeof *ts->out);
    ts->cursor = cc_xcalloc(p->jobs, sizeof *ts->cursor);
    ts->pred = cc_xmalloc(((size_t)1 << c->l2.pred_bits) * sizeof *ts->pred);
  }
  for (uint32_t t = 1; t < p->jobs; t++) {
    if (pthread_create(&p->ts[t].thread, NULL, helper_main, &p->ts[t]) != 0) {
      pthread_mutex_lock(&p->mu);
      p->jobs = t; /* the helpers started wait at the first barrier: none has passed it */
      pthread_mutex_unlock(&p->mu);
      break;
    }
    p->started++;
  }
  return p;
}

void cc_cache_par_free(struct cc_cache *c)
{
  struct cache_par *p = c->par;
  if (!p)
    return;
  p->quit = 1;
  barrier(p);
  for (uint32_t t = 1; t <= p->started; t++)
    pthread_join(p->ts[t].thread, NULL);
  for (uint32_t t = 0; t < p->alloc; t++) {
    struct thread_state *ts = &p->ts[t];
    for (uint32_t q = 0; q < p->alloc; q++)
      free(ts->out[q].r);
    free(ts->out);
    free(ts->cursor);
    free(ts->pred);
    free(ts->dram);
    free(ts->insn);
    free(ts->samp);
  }
  free(p->ts);
  free(p->recs);
  free(p->sm);
  free(p->base);
  free(p->reach);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p);
  c->par = NULL;
}

/* Points every entry of a part's way predictor (n of them) at way `first` of a set it
 * owns. Why: a guess is read before it is checked, and a guess into another thread's set
 * would read a tag that thread may be writing (harmless for the result, a line of one
 * set never being in another, but a data race); the entries it writes later are ways of
 * its own sets. */
static void pred_own(uint32_t *pred, size_t n, uint32_t first)
{
  for (size_t i = 0; i < n; i++)
    pred[i] = first;
}

void cc_cache_par_begin(struct cc_cache *c)
{
  struct cache_par *p;
  if (c->jobs_next != c->jobs) { /* cc_cache_set_jobs since the last kernel */
    cc_cache_par_free(c);
    c->jobs = c->jobs_next;
  }
  if (c->jobs <= 1)
    return;
  if (!c->par)
    c->par = cache_par_new(c);
  p = c->par;
  p->n = 0;
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    if (p->n_insns < c->n_insns || !ts->insn) {
      free(ts->insn);
      free(ts->samp);
      ts->insn = cc_xcalloc(c->n_insns ? c->n_insns : 1, sizeof *ts->insn);
      ts->samp = cc_xcalloc(c->n_insns ? c->n_insns : 1, sizeof *ts->samp);
    } else {
      memset(ts->insn, 0, (c->n_insns ? c->n_insns : 1) * sizeof *ts->insn);
      memset(ts->samp, 0, (c->n_insns ? c->n_insns : 1) * sizeof *ts->samp);
    }
    ts->l2 = c->l2; /* the shape, the arrays (emptied), clock 0 */
    ts->l2.pred = ts->pred;
    pred_own(ts->pred, (size_t)1 << c->l2.pred_bits, t < c->l2.sets ? t * c->l2.ways : 0);
    ts->l2.insn = ts->insn;
    ts->l2.n_parts = p->jobs;
    ts->l2.part_id = t;
    ts->n_dram = 0;
  }
  if (p->n_insns < c->n_insns)
    p->n_insns = c->n_insns;
}

void cc_cache_par_access(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                         uint64_t base)
{
  struct cache_par *p = c->par;
  p->recs[p->n] = *a;
  p->sm[p->n] = sm;
  p->base[p->n] = base;
  if (++p->n == BATCH)
    flush(p);
}

void cc_cache_par_end(struct cc_cache *c)
{
  struct cache_par *p = c->par;
  if (!p)
    return;
  flush(p);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    for (uint32_t i = 0; i < c->n_insns; i++) {
      cc_cache_counts_add(&c->insn[i], &ts->insn[i]);
      cc_cache_counts_add(&c->samp[i], &ts->samp[i]);
      memset(&ts->insn[i], 0, sizeof ts->insn[i]);
      memset(&ts->samp[i], 0, sizeof ts->samp[i]);
    }
    c->l2.evictions += ts->l2.evictions;
    ts->l2.evictions = 0;
  }
}

uint64_t cc_cache_par_sample(struct cc_cache *c)
{
  struct cache_par *p = c->par;
  uint64_t evictions = 0;
  flush(p);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    evictions += ts->l2.evictions;
    ts->l2.evictions = 0;
    ts->l2.insn = ts->samp;
  }
  return evictions;
}

size_t cc_cache_par_bytes(const struct cc_cache *c)
{
  const struct cache_par *p = c->par;
  size_t n;
  if (!p)
    return 0;
  n = sizeof *p + BATCH * (sizeof *p->recs + sizeof *p->sm + sizeof *p->base + sizeof *p->reach);
  for (uint32_t t = 0; t < p->jobs; t++) {
    const struct thread_state *ts = &p->ts[t];
    n += sizeof *ts + p->n_insns * (sizeof *ts->insn + sizeof *ts->samp) +
         ts->cap_dram * sizeof *ts->dram +
         ((size_t)1 << c->l2.pred_bits) * sizeof *ts->pred +
         p->jobs * (sizeof *ts->out + sizeof *ts->cursor);
    for (uint32_t q = 0; q < p->jobs; q++)
      n += ts->out[q].cap * sizeof *ts->out[q].r;
  }
  return n;
}

void cc_cache_set_jobs(struct cc_cache *c, uint32_t jobs)
{
  c->jobs_next = jobs ? jobs : 1; /* a kernel under way keeps its threads */
}
