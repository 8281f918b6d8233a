/* The cache model's replay on several threads, with the serial replay's figures
 * (README.md, "Parallel replay"; cache.h cc_cache_set_jobs).
 *
 * Why it is exact. The serial replay takes the records one after another; a record's
 * lines go through its SM's L1 and, where L1 lacks sectors (and for stores and atomics),
 * through L2. What L1 does depends on the L1's own past alone (its SM's records, in
 * order); what L2 does with a line depends on the past of that line's set alone (its
 * lookups, in order: LRU, fills, write-backs never leave the set); L2 never answers back
 * to L1 but with the level a load waited on. So the records are cut into batches, run by
 * `jobs` helper threads (cc_cache_set_jobs(c, N) gives N - 1: the calling thread is the
 * N-th, and fills the batches); in each:
 *   1. L1 side: thread t replays the records of the SMs s with s % jobs == t, in batch
 *      order (all of one SM's records are one thread's, in their order), and queues each
 *      line that reaches L2 (record, slot, line, sectors, bytes, read/write/atomic) for the
 *      thread owning the line's set (a contiguous block of each region of the layout's
 *      places: cache_impl.h part_of);
 *   2. L2 side: thread q takes its queues in record order (each queue is in its thread's
 *      record order; a record's requests all come from one thread, in line order), which
 *      is the serial replay's order within every set it owns; it keeps its own LRU clock
 *      (stamps are compared within a set only), way predictor (a guess, checked against
 *      the tag) and counts (sums: integers, in any order); a record whose lines read DRAM
 *      is marked so;
 *   3. the calling thread counts each record's wait (the deepest level reached: L1 side's
 *      L2, or DRAM from step 2) into the instruction's and the SM's counts.
 * The latencies are computed from those counts at the kernel's end (state.c wait_ns), so
 * their sums do not depend on the order either. At the kernel's end every thread's
 * counts are added into the model's. The memos that read L2 state (the store memo) are
 * the serial replay's only; the L1 memos stay (an SM's L1 is one thread's).
 *
 * Pipelined. The calling thread (the producer's: the
 * emulator's merger, or the trace reader) fills one batch while they run the other, and
 * hands a full batch over once they are done with the last one (then counts that one's
 * waits, step 3). So the producer waits only when the threads are slower than it. What
 * each side writes while the other runs is its own: the threads write their counts, their
 * SMs' L1s and memos, their L2 sets, and the batch they run; the calling thread writes the
 * model's own counts (c->insn, c->samp, the SM arrays: waits, requests, wavefronts of
 * shared records) and the batch it fills. Whatever reads or changes the rest (the switch
 * to sampling, the kernel's end) drains the pipeline first (cc_cache_par_sample,
 * cc_cache_par_end). A cut record (drop.c) is replayed by its L1 side like any other
 * (cc_cache_replay_record: its sampled lines, no whole-record counts); its wait is
 * counted as the serial replay's cut_record counts it.
 *
 * One helper (cc_cache_set_jobs 2, c->async): the same batches and hand-over, but the
 * helper runs the serial replay itself (cc_cache_access_serial on each record, shared
 * ones included): the model is the helper's from a batch's hand-over to its end, and the
 * caller drains the pipeline before it reads or adds to the counts (cc_cache_drops_add,
 * the kernel's end). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache_impl.h"
#include "util/mem.h"

#define BATCH 8192 /* records per batch: 2.5 MB of them (two batches), and up to 40 bytes
                      * of L2 request per line they reach L2 with (a column store: 10 MB);
                      * fewer batches, fewer hand-overs (each wakes every thread) */

/* A batch of records in the serial order, with what the model's placement gave each. */
struct batch {
  struct cc_warp_access *recs;  /* [BATCH] */
  uint32_t *sm;                 /* [BATCH] */
  uint64_t *base;               /* [BATCH] */
  uint8_t *reach;               /* [BATCH] enum level_reached: step 1's, DRAM from step 2 */
  uint32_t *wf;                 /* [BATCH] the shared wavefronts (serial: c->async) */
  uint32_t n;
};

/* One thread's state: its L1 side's and L2 part's counts, its queues, its part of L2. */
struct thread_state {
  struct cache_par *p;
  uint32_t t;
  pthread_t thread;
  struct cc_cache_counts *insn; /* [n_insns]: both sides' counts (they run apart) */
  struct cc_cache_counts *samp; /* [n_insns]: while sampling, the sampled lines' raw counts
                                   (sample.c; insn then holds the whole records' counts) */
  uint64_t *sm_wavefronts;      /* [sms]: its SMs' L1 wavefronts (struct side) */
  struct req_buf *out;          /* [jobs]: L2 requests for each part */
  struct level l2;              /* a copy of the L2 level owning the t-th blocks of sets
                                   (cache_impl.h part_of) */
  uint32_t *pred;               /* its way predictor */
  size_t *cursor;               /* [jobs]: step 2's place in each thread's queue */
};

struct cache_par {
  struct cc_cache *c;
  uint32_t jobs;                /* helper threads running a batch (the caller is not one) */
  int serial;                   /* one helper running the serial replay (c->async) */
  uint32_t alloc;               /* thread states allocated (jobs asked for) */
  uint32_t started;             /* helper threads started */
  uint32_t n_insns;             /* counts allocated per thread */
  struct thread_state *ts;      /* [alloc] */
  struct batch b[2];            /* b[fill]: the caller's; the other: the threads' if busy */
  uint32_t fill;
  int busy;                     /* the threads run b[fill ^ 1] */
  const struct batch *run;      /* the batch handed over (read under mu) */
  /* hand-over and the threads' barrier: a mutex and conditions (the count may drop while
   * helpers start, cache_par_new) */
  pthread_mutex_t mu;
  pthread_cond_t go;            /* a batch handed over (generation moved), or quit */
  pthread_cond_t done;          /* every thread finished the batch */
  pthread_cond_t cv;            /* the barrier between steps 1 and 2 */
  uint64_t generation;          /* batches handed over */
  uint32_t finished;            /* threads done with the batch handed over */
  uint32_t arrived;
  uint64_t barrier_gen;
  int quit;
};

static void barrier(struct cache_par *p)
{
  pthread_mutex_lock(&p->mu);
  uint64_t gen = p->barrier_gen;
  if (++p->arrived == p->jobs) {
    p->arrived = 0;
    p->barrier_gen++;
    pthread_cond_broadcast(&p->cv);
  } else {
    while (gen == p->barrier_gen)
      pthread_cond_wait(&p->cv, &p->mu);
  }
  pthread_mutex_unlock(&p->mu);
}

/* Step 1 for thread ts: the L1 side of its SMs' records of batch b. */
static void l1_side(struct cache_par *p, struct thread_state *ts, const struct batch *b)
{
  int sampling = p->c->sampling;
  struct side s = {sampling ? ts->samp : ts->insn, ts->out, p->jobs, 0,
                   sampling ? ts->insn : NULL, ts->sm_wavefronts};
  for (uint32_t r = 0; r < b->n; r++) {
    if (b->sm[r] % p->jobs != ts->t)
      continue;
    s.rec = r;
    b->reach[r] = (uint8_t)cc_cache_replay_record(p->c, &s, &b->recs[r], b->sm[r], b->base[r]);
  }
}

/* Step 2 for thread ts: its L2 part's requests of batch b in record order. A record whose
 * lines read DRAM is marked so (several parts may mark one: atomic stores of one value). */
static void l2_side(struct cache_par *p, struct thread_state *ts, const struct batch *b)
{
  memset(ts->cursor, 0, p->jobs * sizeof *ts->cursor);
  for (uint32_t r = 0; r < b->n; r++) {
    uint32_t from = b->sm[r] % p->jobs;
    const struct req_buf *q = &p->ts[from].out[ts->t];
    size_t *i = &ts->cursor[from];
    int dram = 0;
    for (; *i < q->n && q->r[*i].rec == r; ++*i)
      dram |= cc_cache_l2_apply(&ts->l2, &q->r[*i]);
    if (dram)
      __atomic_store_n(&b->reach[r], (uint8_t)REACH_DRAM, __ATOMIC_RELAXED);
  }
}

static void *helper_main(void *arg)
{
  struct thread_state *ts = arg;
  struct cache_par *p = ts->p;
  uint64_t seen = 0;
  for (;;) {
    const struct batch *b;
    pthread_mutex_lock(&p->mu);
    while (p->generation == seen && !p->quit)
      pthread_cond_wait(&p->go, &p->mu);
    if (p->generation == seen) { /* quit, and no batch left: a batch handed over is run
                                    whatever comes after (the others wait for this
                                    thread at the barrier) */
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    seen = p->generation;
    b = p->run;
    pthread_mutex_unlock(&p->mu);
    if (p->serial) { /* c->async: the model is this thread's until the batch is done */
      for (uint32_t r = 0; r < b->n; r++)
        cc_cache_access_serial(p->c, &b->recs[r], b->wf[r]);
    } else {
      l1_side(p, ts, b);
      barrier(p);
      l2_side(p, ts, b);
    }
    pthread_mutex_lock(&p->mu);
    if (++p->finished == p->jobs)
      pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
  }
}

/* Waits until the threads are done with the batch they run, if any; its L2 queues are
 * then spent (emptied). Returns that batch (its waits not yet counted), or NULL. */
static struct batch *wait_done(struct cache_par *p)
{
  struct batch *b = &p->b[p->fill ^ 1];
  if (!p->busy)
    return NULL;
  pthread_mutex_lock(&p->mu);
  while (p->finished < p->jobs)
    pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
  p->busy = 0;
  for (uint32_t t = 0; t < p->jobs && !p->serial; t++) /* (the serial helper queues none) */
    for (uint32_t q = 0; q < p->jobs; q++)
      p->ts[t].out[q].n = 0;
  return b;
}

/* Step 3 of batch b, run: each record's wait into the model's counts; b emptied. */
static void count_waits(struct cc_cache *c, struct batch *b)
{
  for (uint32_t r = 0; r < b->n; r++)
    if (b->reach[r] != REACH_NONE)
      cc_cache_count_wait(c, b->recs[r].insn_slot, b->sm[r], (enum level_reached)b->reach[r],
                          b->recs[r].cut);
  b->n = 0;
}

/* Ends batch b (NULL: none), which the threads finished: its waits counted (step 3;
 * the serial replay on a helper counted them itself) unless `drop`, and emptied. */
static void finish_batch(struct cache_par *p, struct batch *b, int drop)
{
  if (!b)
    return;
  if (drop || p->serial)
    b->n = 0;
  else
    count_waits(p->c, b);
}

/* Hands the batch being filled (if it holds records) to the threads, once they are done
 * with the last one, whose waits are then counted while they run. */
static void hand_over(struct cache_par *p)
{
  struct batch *full = &p->b[p->fill], *last = wait_done(p);
  if (full->n) {
    pthread_mutex_lock(&p->mu);
    p->run = full;
    p->finished = 0;
    p->generation++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    p->busy = 1;
    p->fill ^= 1;
  }
  finish_batch(p, last, 0);
}

/* Runs every queued record, its waits counted: nothing is left with the threads. */
static void drain(struct cache_par *p)
{
  hand_over(p);
  finish_batch(p, wait_done(p), 0);
}

/* Waits for the batch the threads run, if any, and drops the records queued: their
 * kernel ended without cc_cache_end_kernel (a failed run), and nothing of it counts. */
static void abandon(struct cache_par *p)
{
  if (!p)
    return;
  finish_batch(p, wait_done(p), 1);
  p->b[p->fill].n = 0;
}

void cc_cache_par_abandon(struct cc_cache *c)
{
  abandon(c->par);
  abandon(c->async);
}

static void batch_alloc(struct batch *b)
{
  b->recs = cc_xmalloc(BATCH * sizeof *b->recs);
  b->sm = cc_xmalloc(BATCH * sizeof *b->sm);
  b->base = cc_xmalloc(BATCH * sizeof *b->base);
  b->reach = cc_xmalloc(BATCH * sizeof *b->reach);
  b->wf = cc_xmalloc(BATCH * sizeof *b->wf);
  b->n = 0;
}

static void batch_free(struct batch *b)
{
  free(b->recs);
  free(b->sm);
  free(b->base);
  free(b->reach);
  free(b->wf);
}

/* The state for `helpers` threads, started (serial: one, running the serial replay);
 * fewer threads when the system gives fewer (the figures do not depend on their number;
 * none: the caller frees it and replays itself). */
static struct cache_par *cache_par_new(struct cc_cache *c, uint32_t helpers, int serial)
{
  struct cache_par *p = cc_xcalloc(1, sizeof *p);
  p->c = c;
  p->serial = serial;
  p->jobs = p->alloc = helpers;
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
  pthread_cond_init(&p->cv, NULL);
  p->ts = cc_xcalloc(p->jobs, sizeof *p->ts);
  batch_alloc(&p->b[0]);
  batch_alloc(&p->b[1]);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    ts->p = p;
    ts->t = t;
    if (serial) /* it runs the model's own replay: no queues, L2 part or counts */
      continue;
    ts->out = cc_xcalloc(p->jobs, sizeof *ts->out);
    ts->cursor = cc_xcalloc(p->jobs, sizeof *ts->cursor);
    ts->pred = cc_xmalloc(((size_t)1 << c->l2.pred_bits) * sizeof *ts->pred);
    ts->sm_wavefronts = cc_xcalloc(c->dev.sms, sizeof *ts->sm_wavefronts);
  }
  for (uint32_t t = 0; t < p->jobs; t++) {
    if (pthread_create(&p->ts[t].thread, NULL, helper_main, &p->ts[t]) != 0)
      break; /* none has been handed a batch yet: the count may drop */
    p->started++;
  }
  p->jobs = p->started;
  return p;
}

static void par_free_one(struct cache_par *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (uint32_t t = 0; t < p->started; t++)
    pthread_join(p->ts[t].thread, NULL);
  for (uint32_t t = 0; t < p->alloc; t++) {
    struct thread_state *ts = &p->ts[t];
    for (uint32_t q = 0; ts->out && q < p->alloc; q++)
      free(ts->out[q].r);
    free(ts->out);
    free(ts->cursor);
    free(ts->pred);
    free(ts->insn);
    free(ts->samp);
    free(ts->sm_wavefronts);
  }
  free(p->ts);
  batch_free(&p->b[0]);
  batch_free(&p->b[1]);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->mu);
  free(p);
}

void cc_cache_par_free(struct cc_cache *c)
{
  par_free_one(c->par);
  par_free_one(c->async);
  c->par = c->async = NULL;
}

void cc_cache_async_queue(struct cc_cache *c, const struct cc_warp_access *a,
                          uint32_t shared_wavefronts)
{
  struct cache_par *p = c->async;
  struct batch *b = &p->b[p->fill];
  b->recs[b->n] = *a;
  b->wf[b->n] = shared_wavefronts;
  if (++b->n == BATCH)
    hand_over(p);
}

void cc_cache_async_drain(struct cc_cache *c)
{
  if (c->async)
    drain(c->async);
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
  if (c->jobs == 2) { /* one helper: the serial replay on it, the caller queues */
    if (!c->async)
      c->async = cache_par_new(c, 1, 1);
    if (c->async->jobs == 0) {
      cc_cache_par_free(c);
      c->jobs = c->jobs_next = 1;
    }
    return;
  }
  if (!c->par)
    c->par = cache_par_new(c, c->jobs - 1, 0);
  p = c->par;
  if (p->jobs == 0) { /* the system gave no thread: the serial replay */
    cc_cache_par_free(c);
    c->jobs = c->jobs_next = 1;
    return;
  }
  assert(!p->busy && p->b[0].n == 0 && p->b[1].n == 0); /* drained or abandoned */
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    uint32_t first;
    if (p->n_insns < c->n_insns || !ts->insn) {
      free(ts->insn);
      free(ts->samp);
      ts->insn = cc_xcalloc(c->n_insns ? c->n_insns : 1, sizeof *ts->insn);
      ts->samp = cc_xcalloc(c->n_insns ? c->n_insns : 1, sizeof *ts->samp);
    } else {
      memset(ts->insn, 0, (c->n_insns ? c->n_insns : 1) * sizeof *ts->insn);
      memset(ts->samp, 0, (c->n_insns ? c->n_insns : 1) * sizeof *ts->samp);
    }
    memset(ts->sm_wavefronts, 0, c->dev.sms * sizeof *ts->sm_wavefronts);
    ts->l2 = c->l2; /* the shape, the arrays (emptied), clock 0 */
    ts->l2.pred = ts->pred;
    first = part_first(&c->l2, p->jobs, t, 0); /* its first set, in either region */
    if (first == part_first(&c->l2, p->jobs, t + 1, 0))
      first = part_first(&c->l2, p->jobs, t, 1);
    pred_own(ts->pred, (size_t)1 << c->l2.pred_bits,
             (uint32_t)(first < c->l2.slots ? first * c->l2.ways : 0));
    ts->l2.insn = ts->insn;
    ts->l2.n_parts = p->jobs;
    ts->l2.part_id = t;
  }
  if (p->n_insns < c->n_insns)
    p->n_insns = c->n_insns;
}

void cc_cache_par_access(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                         uint64_t base)
{
  struct cache_par *p = c->par;
  struct batch *b = &p->b[p->fill];
  b->recs[b->n] = *a;
  b->sm[b->n] = sm;
  b->base[b->n] = base;
  if (++b->n == BATCH)
    hand_over(p);
}

void cc_cache_par_end(struct cc_cache *c)
{
  struct cache_par *p = c->par;
  cc_cache_async_drain(c);
  if (!p)
    return;
  drain(p);
  for (uint32_t t = 0; t < p->jobs; t++) {
    struct thread_state *ts = &p->ts[t];
    for (uint32_t i = 0; i < c->n_insns; i++) {
      cc_cache_counts_add(&c->insn[i], &ts->insn[i]);
      cc_cache_counts_add(&c->samp[i], &ts->samp[i]);
      memset(&ts->insn[i], 0, sizeof ts->insn[i]);
      memset(&ts->samp[i], 0, sizeof ts->samp[i]);
    }
    for (uint32_t sm = 0; sm < c->dev.sms; sm++)
      c->sm_wavefronts[sm] += ts->sm_wavefronts[sm];
    memset(ts->sm_wavefronts, 0, c->dev.sms * sizeof *ts->sm_wavefronts);
    c->l2.evictions += ts->l2.evictions;
    ts->l2.evictions = 0;
  }
}

uint64_t cc_cache_par_sample(struct cc_cache *c)
{
  struct cache_par *p = c->par;
  uint64_t evictions = 0;
  drain(p);
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
  const size_t batch = 2 * BATCH * (sizeof *p->b[0].recs + sizeof *p->b[0].sm +
                                    sizeof *p->b[0].base + sizeof *p->b[0].reach +
                                    sizeof *p->b[0].wf);
  if (c->async)
    return sizeof *c->async + batch;
  if (!p)
    return 0;
  n = sizeof *p + batch;
  for (uint32_t t = 0; t < p->jobs; t++) {
    const struct thread_state *ts = &p->ts[t];
    n += sizeof *ts + p->n_insns * (sizeof *ts->insn + sizeof *ts->samp) +
         c->dev.sms * sizeof *ts->sm_wavefronts +
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
