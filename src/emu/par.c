/* The CTAs of one launch on a pool of worker threads, their records delivered to the sink
 * in the serial run's order (README.md, Parallel CTAs).
 *
 * Workers claim CTAs in linear order (x fastest) and emulate each into its slot's record
 * buffer; the calling thread, the merger, takes the slots in CTA order and hands their
 * records to the sink (analyses, cache model, views, trace writer: some depend on the
 * order). A window of 4 x jobs slots bounds the CTAs in flight, and a byte budget the
 * records held: past it, a worker whose CTA is not the oldest waits, and the worker of the
 * oldest CTA delivers its records straight to the sink (the merger waits for that CTA, so
 * the sink is never called by two threads at once). Memory thus follows the window, not
 * the grid. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu_internal.h"

#define WINDOW_PER_JOB 4
#define BUFFER_MIN (UINT64_C(256) << 20)
#define REC_BYTES sizeof(struct cc_warp_access)
#define KEEP_BYTES (UINT64_C(1) << 20) /* a freed slot keeps a buffer up to this size */
#define PROGRESS_WAKE_NS 250000000L     /* the merger looks at the clock this often */

enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE };

/* One CTA in flight: its records, its counters and its end. */
struct slot {
  uint64_t cta;
  int state;                   /* SLOT_*, under par.mu */
  int direct;                  /* its records went to the sink at once (it was the oldest) */
  int status;                  /* the CTA's, as emu_run_cta returned it */
  struct cc_err err;           /* its error when status != 0 */
  struct cc_emu_stats st;      /* the CTA's counters */
  struct cc_warp_access *recs; /* buffered records, n of cap */
  size_t n, cap;
};

struct par {
  pthread_mutex_t mu;
  pthread_cond_t cv;           /* the merger, make_room and hook waiters: a change of head,
                                 stop, a slot's state, buffered */
  pthread_cond_t claim_cv;     /* workers waiting for a free slot of the window: signalled
                                 once per slot freed. Why apart from cv: with small CTAs
                                 (the transposes: 16 records each) a broadcast per CTA woke
                                 every worker, and 16 workers ran slower than 4 */
  uint32_t claim_waiters;      /* workers waiting on claim_cv */
  uint32_t room_waiters;       /* workers waiting in make_room for buffer bytes */
  struct slot *slots;          /* window of them; CTA c in slots[c % window] */
  uint64_t window, total;      /* slots; the end of the CTA range */
  uint64_t next;               /* the next CTA to claim */
  uint64_t head;               /* the oldest CTA not yet delivered */
  uint64_t buffered, budget;   /* bytes of record buffers held, their limit */
  uint64_t insns_before_head;  /* warp instructions of the CTAs before head */
  uint64_t insns_seen;         /* warp instructions executed so far (progress; atomic) */
  uint64_t want;               /* the CTA the merger waits for (UINT64_MAX: none): only
                                 its end wakes the merger */
  uint32_t hook_waiters;       /* workers waiting to be the oldest (hook_insns_before): the
                                 merger must then not wait for a later CTA */
  int stop;                    /* an error was delivered: claim nothing more */
  struct cc_access_sink *sink; /* the ordered consumer (access NULL: none) */
  const struct cc_access_partials *partials; /* the order-free ones, or NULL */
};

struct worker {
  struct par *p;
  pthread_t thread;
  struct run *r;
  struct cc_access_sink sink;  /* into the current slot */
  struct emu_hooks hooks;
  struct cc_emu_stats st;      /* the running CTA's counters */
  struct cc_err err;
  struct slot *cur;
  void *part;                  /* its partial of p->partials (fed here, unordered) */
  uint64_t noted;              /* warp instructions of the running CTA already in insns_seen */
};

uint32_t cc_emu_cores(void)
{
  cpu_set_t set;
  long n;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return (uint32_t)CPU_COUNT(&set);
  n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (uint32_t)n : 1;
}

/* ---- which kernels may run in parallel --------------------------------------------------- */

/* Why instruction i (of function f) may make CTAs depend on one another's timing, or NULL.
 * The rule: CTAs that share global memory only through plain accesses to disjoint data
 * and through atomics (atom, red) give the serial run's figures; a kernel that waits on
 * another CTA (a flag read with ld.volatile/.relaxed/.acquire, an acquiring atomic, a
 * fence at GPU or system scope: the grid-wide barrier of cooperative groups and the
 * "last block" pattern use these) or reads the clock (the run's instruction counter)
 * depends on the order, and runs serially. */
static const char *insn_needs_serial(const struct dinsn *d, const struct ptx_insn *pi)
{
  const char *t = pi->opcode_text ? pi->opcode_text : "";
  int shared_or_local = d->space == PTX_SPACE_SHARED || d->space == PTX_SPACE_LOCAL ||
                        d->space == PTX_SPACE_PARAM || d->space == PTX_SPACE_CONST;
  if (d->reads_clock)
    return "it reads %clock, %clock64 or %globaltimer, which count the run's instructions";
  if ((d->fam == F_LD || d->fam == F_LDU) && !shared_or_local &&
      (d->flags & (PTX_F_VOLATILE | PTX_F_RELAXED | PTX_F_ACQUIRE)))
    return "it loads global memory with .volatile, .relaxed or .acquire (a wait on another "
           "block: a flag or a grid-wide barrier)";
  if ((d->fam == F_ATOM || d->fam == F_RED) && (d->flags & PTX_F_ACQUIRE))
    return "it has an acquiring atomic (a lock or a wait on another block)";
  if ((d->fam == F_MEMBAR || d->fam == F_FENCE) && !strstr(t, ".cta"))
    return "it has a fence at GPU or system scope (__threadfence: blocks that order their "
           "writes for another block, such as a last-block reduction)";
  return NULL;
}

uint32_t emu_par_jobs(const struct cc_emu *emu, const struct code *c, uint64_t total,
                      const char **why)
{
  uint32_t jobs = emu->opts.jobs ? emu->opts.jobs : 1;
  *why = NULL;
  if (jobs > total) jobs = (uint32_t)total;
  if (jobs <= 1) return 1;
  if (emu->opts.max_warp_insns) {
    *why = "--max-insns is one budget for the whole launch, spent in CTA order";
    return 1;
  }
  for (uint32_t f = 0; f < c->nfuncs; f++) {
    const struct dfunc *df = &c->funcs[f];
    for (uint32_t j = 0; j < df->ncode; j++) {
      const struct dinsn *d = &df->code[j];
      if (d->index >= df->f->ninsns) continue;
      if ((*why = insn_needs_serial(d, &df->f->insns[d->index]))) return 1;
    }
  }
  return jobs;
}

/* ---- the workers ----------------------------------------------------------------------- */

static void lock(struct par *p)
{
  pthread_mutex_lock(&p->mu);
}

static void unlock(struct par *p)
{
  pthread_mutex_unlock(&p->mu);
}

/* Gives the buffered records of slot s to the sink in order; the first failing status. */
static int deliver(struct par *p, struct slot *s, struct cc_err *err)
{
  for (size_t j = 0; j < s->n; j++) {
    int rc = p->sink->access(p->sink->ctx, &s->recs[j], err);
    if (rc) return rc;
  }
  return CC_OK;
}

enum room { ROOM_GROWN, ROOM_DIRECT, ROOM_STOP };

/* Room for one more record in the worker's slot s: its buffer grown (ROOM_GROWN). Past
 * the budget the worker waits until its CTA is the oldest (ROOM_DIRECT: deliver straight
 * to the sink) or bytes are freed; ROOM_STOP when the run stops meanwhile (an earlier
 * CTA failed: this CTA's outcome no longer matters). */
static enum room make_room(struct par *p, struct slot *s)
{
  size_t cap = s->cap ? 2 * s->cap : 64;
  uint64_t add = (cap - s->cap) * REC_BYTES;
  lock(p);
  while (!p->stop && p->head != s->cta && p->buffered + add > p->budget) {
    p->room_waiters++;
    pthread_cond_wait(&p->cv, &p->mu);
    p->room_waiters--;
  }
  if (p->stop) {
    unlock(p);
    return ROOM_STOP;
  }
  if (p->buffered + add > p->budget) { /* and head == s->cta */
    unlock(p);
    return ROOM_DIRECT;
  }
  p->buffered += add;
  unlock(p);
  s->recs = cc_xrealloc(s->recs, cap * REC_BYTES);
  s->cap = cap;
  return ROOM_GROWN;
}

/* The worker's sink: into its slot's buffer, or straight on once the CTA is the oldest
 * and the buffers are full. */
static int buffer_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct worker *w = ctx;
  struct slot *s = w->cur;
  int rc;
  if (!s->direct && s->n == s->cap) {
    enum room room = make_room(w->p, s);
    if (room == ROOM_STOP)
      return cc_err_set(err, CC_ERR_INTERNAL, "stopped: an earlier block failed");
    if (room == ROOM_DIRECT) { /* the merger waits for this CTA: the sink is ours */
      if ((rc = deliver(w->p, s, err))) return rc;
      s->n = 0;
      s->direct = 1;
    }
  }
  if (s->direct) return w->p->sink->access(w->p->sink->ctx, a, err);
  s->recs[s->n++] = *a;
  return CC_OK;
}

/* The worker's sink with partials: the record to the worker's partial at once, then to
 * the slot for the ordered sink, when there is one. */
static int split_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct worker *w = ctx;
  int rc = w->p->partials->access(w->part, a, err);
  if (rc || !w->p->sink->access) return rc;
  return buffer_access(ctx, a, err);
}

/* What the workers' runs deliver to: partials and slots, slots only, or nothing. */
static int (*worker_access(const struct par *p))(void *, const struct cc_warp_access *,
                                                 struct cc_err *)
{
  if (p->partials) return split_access;
  return p->sink->access ? buffer_access : NULL;
}

/* Closes the workers' partials in worker order, merging them when the run succeeded
 * (the merge is commutative: the order does not show); the first failure. */
static int close_partials(struct par *p, struct worker *ws, uint32_t jobs, int ok,
                          struct cc_err *err)
{
  int s = CC_OK;
  if (!p->partials) return CC_OK;
  for (uint32_t j = 0; j < jobs; j++) {
    struct cc_err e2;
    int rc = p->partials->close(p->partials->ctx, ws[j].part, ok && !s, s ? &e2 : err);
    if (!s) s = rc;
  }
  return s;
}

static uint64_t hook_insns_before(void *ctx)
{
  struct worker *w = ctx;
  struct par *p = w->p;
  uint64_t n;
  lock(p);
  p->hook_waiters++;
  pthread_cond_broadcast(&p->cv); /* a merger waiting for a batch takes the CTAs one by one */
  while (!p->stop && p->head != w->cur->cta) pthread_cond_wait(&p->cv, &p->mu);
  p->hook_waiters--;
  n = p->insns_before_head;
  unlock(p);
  return n;
}

static void hook_note(void *ctx, uint64_t cta_warp_insns)
{
  struct worker *w = ctx;
  __atomic_fetch_add(&w->p->insns_seen, cta_warp_insns - w->noted, __ATOMIC_RELAXED);
  w->noted = cta_warp_insns;
}

/* Claims the next CTA within the window; NULL when none is left or the run stops. */
static struct slot *claim(struct par *p)
{
  struct slot *s = NULL;
  lock(p);
  while (!p->stop && p->next < p->total && p->next >= p->head + p->window) {
    p->claim_waiters++;
    pthread_cond_wait(&p->claim_cv, &p->mu);
    p->claim_waiters--;
  }
  if (!p->stop && p->next < p->total) {
    s = &p->slots[p->next % p->window];
    s->cta = p->next++;
    s->state = SLOT_RUNNING;
  }
  unlock(p);
  return s;
}

static void *worker_main(void *arg)
{
  struct worker *w = arg;
  struct par *p = w->p;
  struct slot *s;
  while ((s = claim(p))) {
    memset(&w->st, 0, sizeof w->st);
    w->cur = s;
    w->noted = 0;
    s->status = emu_run_cta(w->r, s->cta);
    if (s->status) s->err = w->err;
    s->st = w->st;
    hook_note(w, w->st.warp_insns);
    lock(p);
    s->state = SLOT_DONE;
    /* only the merger waits for a CTA's end: wake it when it waits for this one (or may
     * have to stop a batch for a worker that waits to be the oldest) */
    if (p->want == s->cta || p->hook_waiters) pthread_cond_broadcast(&p->cv);
    unlock(p);
  }
  return NULL;
}

/* ---- the merger -------------------------------------------------------------------------- */

/* Waits for CTA c (in slot s) to be done, showing progress meanwhile. With no ordered
 * consumer the merger has nothing to deliver: when c is not done yet it waits for the end
 * of a batch of jobs CTAs instead (c + batch - 1, within the window), so that it wakes
 * once per batch, not once per CTA. */
static void wait_done(struct par *p, uint64_t c, uint64_t batch, struct emu_progress *prog,
                      const struct cc_emu_stats *stats)
{
  struct slot *s = &p->slots[c % p->window], *last = s;
  lock(p);
  if (!p->sink->access && s->state != SLOT_DONE && batch > 1) {
    uint64_t t = c + batch - 1 < p->total ? c + batch - 1 : p->total - 1;
    last = &p->slots[t % p->window];
    c = t;
  }
  p->want = c;
  /* a worker waiting to be the oldest cuts the batch short: CTA c may wait on it */
  while (last->state != SLOT_DONE && !(p->hook_waiters && s->state == SLOT_DONE)) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += PROGRESS_WAKE_NS;
    if (t.tv_nsec >= 1000000000L) { t.tv_sec++; t.tv_nsec -= 1000000000L; }
    if (pthread_cond_timedwait(&p->cv, &p->mu, &t) == ETIMEDOUT) {
      unlock(p);
      emu_progress_note(prog, stats->ctas_done,
                        __atomic_load_n(&p->insns_seen, __ATOMIC_RELAXED), -1.0);
      lock(p);
    }
  }
  p->want = UINT64_MAX;
  unlock(p);
}

/* Adds the counters of a CTA to the run's. */
static void add_stats(struct cc_emu_stats *to, const struct cc_emu_stats *st)
{
  to->warp_insns += st->warp_insns;
  to->thread_insns += st->thread_insns;
  to->warp_accesses += st->warp_accesses;
}

/* Delivers the CTAs in order until the last or the first failure. */
static int merge(struct par *p, struct cc_emu_stats *stats, struct emu_progress *prog,
                 struct cc_err *err)
{
  int s = CC_OK;
  for (uint64_t c = p->head; c < p->total && !s; c++) {
    struct slot *sl = &p->slots[c % p->window];
    wait_done(p, c, p->window / WINDOW_PER_JOB, prog, stats);
    wait_done(p, c, 1, prog, stats); /* after a batch: at once */
    if (!sl->direct) s = deliver(p, sl, err);
    add_stats(stats, &sl->st);
    if (!s && sl->status) {
      s = sl->status;
      *err = sl->err;
    }
    if (!s) stats->ctas_done++;
    lock(p);
    p->insns_before_head += sl->st.warp_insns;
    sl->n = 0;
    sl->direct = 0;
    sl->state = SLOT_FREE;
    if (sl->cap * REC_BYTES > KEEP_BYTES) { /* keep small buffers for the next CTAs */
      p->buffered -= sl->cap * REC_BYTES;
      free(sl->recs);
      sl->recs = NULL;
      sl->cap = 0;
    }
    p->head = c + 1;
    if (s) p->stop = 1;
    /* one slot freed: one claimer; the others wait on cv only for head or bytes */
    if (p->claim_waiters) pthread_cond_signal(&p->claim_cv);
    if (s || p->room_waiters || p->hook_waiters) pthread_cond_broadcast(&p->cv);
    if (s) pthread_cond_broadcast(&p->claim_cv);
    unlock(p);
    emu_progress_note(prog, stats->ctas_done, __atomic_load_n(&p->insns_seen, __ATOMIC_RELAXED),
                      -1.0);
  }
  return s;
}

int emu_par_run(struct cc_emu *emu, const struct ptx_function *k,
                const struct cc_emu_launch *launch, uint64_t first, uint64_t end, uint32_t jobs,
                struct cc_access_sink *sink, const struct cc_access_partials *partials,
                struct cc_emu_stats *stats, struct cc_err *err)
{
  struct cc_access_sink none = {0};
  struct par p;
  struct worker *ws = cc_xcalloc(jobs, sizeof *ws);
  struct emu_progress prog;
  uint32_t started = 0;
  int s = CC_OK;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  pthread_cond_init(&p.claim_cv, NULL);
  p.window = (uint64_t)WINDOW_PER_JOB * jobs;
  p.total = end; /* CTAs first .. end-1: claims and the merger start at first */
  p.next = p.head = first;
  p.want = UINT64_MAX;
  p.sink = sink && sink->access ? sink : &none;
  p.partials = partials;
  p.slots = cc_xcalloc(p.window, sizeof *p.slots);
  p.budget = emu->opts.buffer_bytes ? emu->opts.buffer_bytes
                                    : (uint64_t)jobs * CC_EMU_BUFFER_PER_JOB;
  if (!emu->opts.buffer_bytes && p.budget < BUFFER_MIN) p.budget = BUFFER_MIN;
  for (uint32_t j = 0; j < jobs && !s; j++) {
    struct worker *w = &ws[j];
    w->p = &p;
    w->sink = (struct cc_access_sink){w, NULL, worker_access(&p), NULL};
    if (partials) w->part = partials->open(partials->ctx);
    w->hooks = (struct emu_hooks){w, hook_insns_before, hook_note};
    s = emu_run_new(emu, k, launch, &w->sink, &w->st, &w->err, &w->r);
    if (s) *err = w->err;
    else emu_run_set_hooks(w->r, &w->hooks);
  }
  emu_progress_start(&prog, emu, k->name, end - first);
  for (uint32_t j = 0; j < jobs && !s; j++) {
    if (pthread_create(&ws[j].thread, NULL, worker_main, &ws[j]) != 0) {
      s = cc_err_set(err, CC_ERR_LIMIT, "cannot start worker thread %u of %u for kernel %s; "
                     "use a smaller --jobs", j + 1, jobs, k->name);
      break;
    }
    started++;
  }
  if (!s) s = merge(&p, stats, &prog, err);
  lock(&p);
  p.stop = 1;
  pthread_cond_broadcast(&p.cv);
  pthread_cond_broadcast(&p.claim_cv);
  unlock(&p);
  for (uint32_t j = 0; j < started; j++) pthread_join(ws[j].thread, NULL);
  {
    int s2 = close_partials(&p, ws, jobs, s == CC_OK, err);
    if (!s) s = s2;
  }
  emu_progress_end(&prog, s == CC_OK, stats->ctas_done, stats->warp_insns);
  for (uint32_t j = 0; j < jobs; j++) emu_run_free(ws[j].r);
  for (uint64_t j = 0; j < p.window; j++) free(p.slots[j].recs);
  free(p.slots);
  free(ws);
  pthread_cond_destroy(&p.cv);
  pthread_cond_destroy(&p.claim_cv);
  pthread_mutex_destroy(&p.mu);
  return s;
}
