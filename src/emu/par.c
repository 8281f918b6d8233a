/* The CTAs of one launch on a pool of worker threads, their records delivered to the sink
 * in the serial run's order (README.md, Parallel CTAs).
 *
 * Workers claim chunks (runs of consecutive CTAs, in linear order: x fastest) and emulate
 * each CTA of a chunk in turn into the chunk's slot's record buffer; the calling thread,
 * the merger, takes the slots in chunk order and hands their records to the sink
 * (analyses, cache model, views, trace writer: some depend on the order). A chunk is the
 * unit of locking: one claim, one end, one delivery, whatever its CTAs; its size follows
 * the warp instructions per CTA measured so far (chunk_size). A window of 4 x jobs slots
 * bounds the chunks in flight (up to WINDOW_EXTRA more while the buffers hold little:
 * window_open), and a byte budget the records held: past it, a worker whose chunk is not
 * the oldest waits. The worker of the oldest chunk delivers its
 * records straight to the sink from the moment its chunk is the oldest (the merger waits
 * for that chunk, so the sink is never called by two threads at once; buffer_access says
 * why). Memory thus follows the window, not the grid.
 *
 * A buffered record is an entry: its fields (the record's bytes before addr, 48), then
 * the addresses of its active lanes only (8 bytes each). Why: a whole struct
 * cc_warp_access is 304 bytes, 5 host lines, whatever it holds; a full warp's entry is as
 * long, but a record of 1-4 lanes (one cut to the cache model's sampled lines) is 56-80
 * bytes, one or two lines, which the merger, the serial thread, reads and which hold that
 * much less of the budget (covariance at 16 jobs: peak RSS 1,046 -> 732 MiB; reading the
 * entries is not what bounds the merger: prefetching them and CLDEMOTE on the worker
 * gained nothing, bench/results/scale-2026-11-27-s9.md). deliver unpacks each such entry into one record of its caller's,
 * which stays in that core's L1 (a full warp's entry is the record's own layout: the sink
 * reads it where it lies). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#endif
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu_internal.h"
#include "util/bits.h"

#define WINDOW_PER_JOB 4
/* Slots beyond the window, claimed only while the buffers hold less than a sixteenth of
 * the budget: workers run on past a merger held up by costly records (chunk_size; claim
 * says why) */
#define WINDOW_EXTRA 1024
#define BUFFER_MIN (UINT64_C(256) << 20)
#define KEEP_BYTES (UINT64_C(1) << 20) /* a freed slot keeps a buffer up to this size */
#define PROGRESS_WAKE_NS 250000000L     /* the merger looks at the clock this often */
/* The work one chunk aims at, in warp instructions: 100-500 us of emulation at the 4-20 M
 * warp instructions/s one core runs (the transposes: 12 naive CTAs of 176 warp
 * instructions, 4 tiled ones of 448). Why not one CTA: each claim, end and delivery takes
 * the lock and may wake a thread, 5-7 us of serialized traffic per CTA at 16 workers,
 * which bound the naive transpose (26 us per CTA) to 3.85x (issue 15). */
#define CHUNK_WARP_INSNS 2048
/* Guided self-scheduling (Polychronopoulos and Kuck, IEEE TC 1987): while much of the
 * grid is left, a chunk takes 1/(GUIDED_SHARE x jobs) of it, more than CHUNK_WARP_INSNS
 * when CTAs are short. Why: fewer claims and deliveries, and a worker's CTAs contiguous
 * (its footprint bits and emulated lines in fewer host pages): the tiled 4096^2
 * transpose at --jobs 16 without the model 0.107-0.118 -> 0.095-0.100 s, its workers'
 * CPU 1.6-1.8 -> 1.4-1.5 s with chunks of 64x the instructions
 * (bench/results/scale-2026-11-28-s14.md, call 9). The budget's cap still bounds a
 * chunk's buffered bytes. */
#define GUIDED_SHARE 4

enum { SLOT_FREE, SLOT_RUNNING, SLOT_DONE };

/* An entry's head: the bytes of a record before its addresses, copied as they are, so that
 * every field (one added to struct cc_warp_access later too) travels; the addresses of
 * the active lanes follow, in lane order (entry_bytes). A multiple of 8 bytes, so that
 * every entry and its addresses stay 8-aligned in a slot's buffer. */
#define HEAD_BYTES offsetof(struct cc_warp_access, addr)
_Static_assert(HEAD_BYTES % 8 == 0, "an entry's addresses are 8-aligned");
_Static_assert(HEAD_BYTES + CC_WARP_SIZE * sizeof(uint64_t) == sizeof(struct cc_warp_access),
               "addr is the record's last field: the head holds every other");

/* The largest entry (a full warp's), and the first buffer of a slot: 64 of them. */
#define ENTRY_MAX sizeof(struct cc_warp_access)
#define FIRST_BYTES (64 * ENTRY_MAX)

/* One chunk in flight: CTAs c0 .. c1-1, their records in CTA order, their counters and
 * their end. */
struct slot {
  uint64_t seq;                /* the chunk's number: slots[seq % window] */
  uint64_t c0, c1;             /* its CTAs; on a failure c1 - 1 is the failing CTA */
  int state;                   /* SLOT_*, under par.mu */
  int direct;                  /* its records went to the sink at once (it was the oldest) */
  int status;                  /* the failing CTA's, as emu_run_cta returned it, or 0 */
  struct cc_err err;           /* its error when status != 0 */
  struct cc_emu_stats st;      /* the sums of its CTAs' counters (of those done so far
                                  while it runs) */
  unsigned char *buf;          /* buffered records as entries, used of cap bytes */
  size_t used, cap;
  uint64_t bytes;              /* the entries' bytes of its CTAs (buffered or direct) */
  uint64_t counted;            /* the records of its CTAs the ordered consumer counts
                                  (access.h, counted), once it is done */
  char pad[128];               /* two host lines (the adjacent-line prefetcher pairs them)
                                  before the next slot's: its worker reads seq and direct
                                  at every record, while this one's writes used and
                                  bytes at every record */
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
  uint32_t jobs;               /* workers */
  struct slot *slots;          /* n_slots of them; chunk seq in slots[seq % n_slots] */
  uint64_t window, n_slots;    /* chunks in flight (past head) always allowed; at most */
  uint64_t total;              /* the end of the CTA range */
  uint64_t next;               /* the next CTA to claim */
  uint64_t next_seq;           /* the number of the next chunk to claim */
  uint64_t head;               /* the number of the oldest chunk not yet delivered */
  uint64_t done_ctas, done_insns; /* CTAs of ended chunks and their warp instructions:
                                 the measure chunk_size sizes chunks by */
  uint64_t done_bytes;         /* their entries' bytes (what chunk_size fits the budget by) */
  uint64_t chunks;             /* chunks claimed (stats) */
  uint64_t buffered, budget;   /* bytes of record buffers held, their limit */
  uint64_t kept;               /* of buffered, the buffers free slots keep */
  uint64_t insns_before_head;  /* warp instructions of the CTAs before head's */
  uint64_t fore_seq;           /* the first chunk not done (every chunk before it is) */
  uint64_t fore_counted;       /* the ordered consumer's counted records of the chunks
                                  before fore_seq (access.h, ahead) */
  char pad_seen[128];          /* insns_seen on host lines of its own: every worker adds
                                  to it at each CTA's end, and reads stop, sink and
                                  partials beside it at every record */
  uint64_t insns_seen;         /* warp instructions executed so far (progress; atomic) */
  char pad_seen_end[128];
  uint64_t want;               /* the chunk the merger waits for (UINT64_MAX: none): only
                                 its end wakes the merger */
  uint32_t hook_waiters;       /* workers waiting to be the oldest (hook_insns_before): the
                                 merger must then not wait for a later chunk */
  int stop;                    /* an error was delivered: claim nothing more (atomic reads
                                 between the CTAs of a chunk) */
  struct cc_access_sink *sink; /* the ordered consumer (access NULL: none) */
  const struct cc_access_partials *partials; /* the order-free ones, or NULL */
};

/* The reduction of the workers' partials (reduce), when they can be combined. */
struct tree {
  pthread_mutex_t mu;
  pthread_cond_t cv;           /* a worker finished: broadcast, a handful of waits a run */
  struct worker *ws;           /* the n workers */
  uint32_t n;
  const struct cc_access_partials *pa;
};

struct worker {
  struct par *p;
  pthread_t thread;
  struct run *r;
  struct cc_access_sink sink;  /* into the current slot */
  struct emu_hooks hooks;
  struct cc_emu_stats st;      /* the running CTA's counters */
  struct cc_err err;
  struct slot *cur;            /* its chunk */
  struct cc_warp_access rec;   /* its chunk's entries unpacked, one at a time (direct path) */
  void *part;                  /* its partial of p->partials (fed here, unordered) */
  uint64_t noted;              /* warp instructions of the running CTA already in insns_seen */
  struct tree *tree;           /* where it reduces its partial, or NULL (close_partials
                                  closes every worker's) */
  uint32_t id;                 /* its index in tree->ws */
  int finished;                /* under tree->mu: done with part, which holds all it takes */
  char pad[128];               /* two host lines before the next worker's fields, which it
                                  reads (p, sink) and writes (st) at every record */
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

/* ---- entries: a record in a slot's buffer ------------------------------------------------ */

/* The bytes of the entry of a record whose active lanes are active: 48 + 8 per lane. */
static size_t entry_bytes(uint32_t active)
{
  return HEAD_BYTES + (size_t)cc_popcount32(active) * sizeof(uint64_t);
}

/* Writes record a at dst (8-aligned) as an entry of entry_bytes(a->active) bytes. */
static void pack(unsigned char *dst, const struct cc_warp_access *a)
{
  uint64_t *addr = (uint64_t *)(void *)(dst + HEAD_BYTES);
  memcpy(dst, a, HEAD_BYTES);
  if (a->active == FULL_MASK) {
    memcpy(addr, a->addr, sizeof a->addr);
    return;
  }
  for (uint32_t m = a->active; m; m &= m - 1) *addr++ = a->addr[__builtin_ctz(m)];
}

/* Reads the entry at src into *a, the record unpacked before it (or zeros), whose
 * inactive lanes' addresses thus become 0 as the emulator leaves them (exec_mem.c
 * deliver_slot): only those active before and not now are cleared. Returns the entry's
 * bytes. */
static size_t unpack(const unsigned char *src, struct cc_warp_access *a)
{
  const uint64_t *addr = (const uint64_t *)(const void *)(src + HEAD_BYTES);
  uint32_t before = a->active;
  memcpy(a, src, HEAD_BYTES);
  for (uint32_t m = before & ~a->active; m; m &= m - 1) a->addr[__builtin_ctz(m)] = 0;
  if (a->active == FULL_MASK) memcpy(a->addr, addr, sizeof a->addr);
  else for (uint32_t m = a->active; m; m &= m - 1) a->addr[__builtin_ctz(m)] = *addr++;
  return entry_bytes(a->active);
}

/* The record of the entry at src, for the sink, and in *bytes the entry's length. A full
 * warp's entry is laid out as the record itself and is read where it lies (a copy would
 * read the same lines and add its own cost); any other is unpacked into *rec. */
static const struct cc_warp_access *entry_record(const unsigned char *src,
                                                 struct cc_warp_access *rec, size_t *bytes)
{
  uint32_t active;
  memcpy(&active, src + offsetof(struct cc_warp_access, active), sizeof active);
  if (active == FULL_MASK) {
    *bytes = ENTRY_MAX;
    return (const struct cc_warp_access *)(const void *)src;
  }
  *bytes = unpack(src, rec);
  return rec;
}

/* Gives the buffered records of slot s to the sink in order, those of fewer than 32 lanes
 * unpacked into *rec (the caller's: the merger's, or the worker's on the direct path);
 * the first failing status. */
static int deliver(struct par *p, struct slot *s, struct cc_warp_access *rec, struct cc_err *err)
{
  for (size_t off = 0; off < s->used;) {
    size_t bytes;
    const struct cc_warp_access *a = entry_record(s->buf + off, rec, &bytes);
    int rc = p->sink->access(p->sink->ctx, a, err);
    if (rc) return rc;
    off += bytes;
  }
  return CC_OK;
}

enum room { ROOM_GROWN, ROOM_DIRECT, ROOM_STOP };

/* Room for one more entry (at most ENTRY_MAX bytes) in the worker's slot s: its buffer
 * doubled, or FIRST_BYTES (ROOM_GROWN). Past the budget the worker waits until its chunk
 * is the oldest (ROOM_DIRECT: deliver straight to the sink) or bytes are freed; ROOM_STOP
 * when the run stops meanwhile (an earlier CTA failed: this chunk's outcome no longer
 * matters). */
static enum room make_room(struct par *p, struct slot *s)
{
  size_t cap = s->cap ? 2 * s->cap : FIRST_BYTES;
  uint64_t add = cap - s->cap;
  lock(p);
  while (!p->stop && p->head != s->seq && p->buffered + add > p->budget) {
    p->room_waiters++;
    pthread_cond_wait(&p->cv, &p->mu);
    p->room_waiters--;
  }
  if (p->stop) {
    unlock(p);
    return ROOM_STOP;
  }
  if (p->buffered + add > p->budget) { /* and head == s->seq */
    unlock(p);
    return ROOM_DIRECT;
  }
  p->buffered += add;
  unlock(p);
  s->buf = cc_xrealloc(s->buf, cap);
  s->cap = cap;
  return ROOM_GROWN;
}

/* The worker's sink: into its slot's buffer, or straight on once the chunk is the oldest
 * (its earlier records, of earlier CTAs of the chunk too, go first). Why straight on as
 * soon as it is the oldest, not only when the buffers are full: the merger has nothing to
 * deliver before this chunk ends, so the sink would wait idle; the records reach it while
 * they are in this core's cache; and what the sink decides early serves the workers at
 * once (the cache model's sampling switch, which lets them cut their records: drop.c).
 * The covariance kernel's 64 CTAs of ~150,000 records each ran whole before the switch
 * was known, and the one thread replayed them all (issue 15). */
static int buffer_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct worker *w = ctx;
  struct slot *s = w->cur;
  size_t need = entry_bytes(a->active);
  int rc;
  s->bytes += need;
  /* head is stored with release after the previous chunk's delivery (free_chunk): the
   * sink's state is then ours to read and change until this chunk ends, unless that
   * chunk failed: free_chunk sets stop before head, so stop is seen here then, and the
   * serial run delivers nothing after a failing CTA */
  if (!s->direct && __atomic_load_n(&w->p->head, __ATOMIC_ACQUIRE) == s->seq) {
    if (__atomic_load_n(&w->p->stop, __ATOMIC_RELAXED))
      return cc_err_set(err, CC_ERR_INTERNAL, "stopped: an earlier block failed");
    if ((rc = deliver(w->p, s, &w->rec, err))) return rc;
    s->used = 0;
    s->direct = 1;
  }
  if (!s->direct && s->cap - s->used < need) {
    enum room room = make_room(w->p, s);
    if (room == ROOM_STOP)
      return cc_err_set(err, CC_ERR_INTERNAL, "stopped: an earlier block failed");
    if (room == ROOM_DIRECT) { /* the merger waits for this chunk: the sink is ours */
      if ((rc = deliver(w->p, s, &w->rec, err))) return rc;
      s->used = 0;
      s->direct = 1;
    }
  }
  if (s->direct) return w->p->sink->access(w->p->sink->ctx, a, err);
  pack(s->buf + s->used, a);
  s->used += need;
  return CC_OK;
}

/* The worker's sink with partials: the record to the worker's partial at once, then to
 * the slot for the ordered sink, when there is one. */
static int split_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct worker *w = ctx;
  const struct cc_access_partials *pa = w->p->partials;
  const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX];
  uint32_t n;
  int rc = pa->access(w->part, a, err);
  if (rc || !w->p->sink->access) return rc;
  if (!pa->to_ordered) return buffer_access(ctx, a, err);
  /* what the ordered consumer needs of it (access.h): nothing (the partial counted it:
   * the cache model's records that change no cache state), not buffered, not shipped to
   * the merger; a cut of it (the cache model's sampled lanes); a store held back before
   * it */
  n = pa->to_ordered(w->part, a, out);
  for (uint32_t i = 0; i < n && !rc; i++) rc = buffer_access(ctx, out[i], err);
  return rc;
}

/* At the end of worker w's chunk (whose CTAs are consecutive; its next chunk's are not
 * next to them in the serial order): the records its partial holds back (access.h,
 * release), after the chunk's others. */
static void release_held(struct worker *w, struct slot *s)
{
  const struct cc_access_partials *pa = w->p->partials;
  const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX];
  struct cc_err err;
  uint32_t n;
  if (!pa || !pa->release || !w->p->sink->access) return;
  n = pa->release(w->part, out);
  for (uint32_t i = 0; i < n && s->status == CC_OK; i++)
    if ((s->status = buffer_access(w, out[i], &err)) != CC_OK) s->err = err;
}

/* Packs the n records of out at s->buf + *at (the records before *at already read). */
static void pack_out(struct slot *s, size_t *at, const struct cc_warp_access *const *out,
                     uint32_t n)
{
  for (uint32_t i = 0; i < n; i++) {
    pack(s->buf + *at, out[i]);
    *at += entry_bytes(out[i]->active);
  }
}

/* Re-cut: the whole entries that begin worker w's slot s (its chunk just run, its held
 * records released, nothing delivered yet) taken again by the partials (access.h,
 * recut), in place. Why: a worker decides each record as it comes, and a record of a CTA
 * the cache model cannot yet place after its sampling switch goes on whole; the
 * covariance kernel's CTA 0, the longest, reaches the switch a third of the way in, and
 * the CTAs run beside it had sent their first third whole: 0.4-0.5 GB of entries the
 * merger replayed one by one, at m = 2048 (bench/results/scale-2026-11-29-s16.md). Once
 * the switch is known, most of them are cut to their sampled lanes or counted here.
 * In place: every record the partials give out stands for one taken before it (a
 * record, its cut, a held chain's stores by instruction), so what is written never
 * passes what is read; each entry is copied out of the buffer first. The pass ends at
 * the first entry that is not whole (the records decided after the switch was known,
 * which began with nothing held: their order stays). */
static void recut(struct worker *w, struct slot *s)
{
  const struct cc_access_partials *pa = w->p->partials;
  const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX];
  size_t rd = 0, wr = 0, end = s->used;
  uint32_t n;
  if (!pa || !pa->recut || !pa->to_ordered || !w->p->sink->access || s->direct ||
      s->status != CC_OK || pa->recut(w->part, NULL, out) == CC_ACCESS_RECUT_SAME)
    return; /* (the last: the consumer has learnt nothing yet, e.g. no sampling) */
  memset(&w->rec, 0, sizeof w->rec);
  while (rd < end) {
    uint32_t cut;
    memcpy(&cut, s->buf + rd + offsetof(struct cc_warp_access, cut), sizeof cut);
    if (cut)
      break;
    size_t bytes = unpack(s->buf + rd, &w->rec);
    rd += bytes;
    n = pa->recut(w->part, &w->rec, out);
    if (n == CC_ACCESS_RECUT_SAME) { /* (nothing held: recut says so only then) */
      if (wr + bytes != rd) /* moved down past what changed before it */
        pack(s->buf + wr, &w->rec);
      wr += bytes;
      continue;
    }
    pack_out(s, &wr, out, n);
    assert(wr <= rd); /* (the comment above) */
  }
  if (pa->release) {
    n = pa->release(w->part, out);
    pack_out(s, &wr, out, n);
  }
  assert(wr <= rd);
  if (wr == rd)
    return;
  memmove(s->buf + wr, s->buf + rd, end - rd);
  s->used = wr + (end - rd);
  s->bytes -= rd - wr;
}

/* The records of worker w's chunk, just run, that the ordered consumer counts (access.h,
 * counted): 0 when its partials pass nothing on (no ordered sink, or every record whole). */
static uint64_t counted(struct worker *w)
{
  const struct cc_access_partials *pa = w->p->partials;
  if (!pa || !pa->to_ordered || !pa->counted || !w->p->sink->access) return 0;
  return pa->counted(w->part);
}

/* What the workers' runs deliver to: partials and slots, slots only, or nothing. */
static int (*worker_access(const struct par *p))(void *, const struct cc_warp_access *,
                                                 struct cc_err *)
{
  if (p->partials) return split_access;
  return p->sink->access ? buffer_access : NULL;
}

/* Closes the workers' partials in worker order, merging them when the run succeeded
 * (the merge is commutative: the order does not show); the first failure. After the
 * tree (reduce) only worker 0's is left, holding every worker's figures; the others are
 * NULL, which close takes as nothing. On a failed run they are only freed. */
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

/* The warp instructions a serial run executes before the worker's running CTA: those of
 * the chunks before its chunk (known once the chunk is the oldest: waits for it) and of
 * the chunk's CTAs the worker ran before this one. */
static uint64_t hook_insns_before(void *ctx)
{
  struct worker *w = ctx;
  struct par *p = w->p;
  uint64_t n;
  lock(p);
  p->hook_waiters++;
  pthread_cond_broadcast(&p->cv); /* a merger waiting for a batch takes the chunks one by one */
  while (!p->stop && p->head != w->cur->seq) pthread_cond_wait(&p->cv, &p->mu);
  p->hook_waiters--;
  n = p->insns_before_head;
  unlock(p);
  return n + w->cur->st.warp_insns; /* the chunk's sums hold its earlier CTAs only */
}

static void hook_note(void *ctx, uint64_t cta_warp_insns)
{
  struct worker *w = ctx;
  __atomic_fetch_add(&w->p->insns_seen, cta_warp_insns - w->noted, __ATOMIC_RELAXED);
  w->noted = cta_warp_insns;
}

/* The CTAs of the next chunk, under p->mu: one until a chunk has ended (nothing measured
 * yet), then CHUNK_WARP_INSNS' worth at the warp instructions per CTA measured so far or
 * the remaining CTAs / (GUIDED_SHARE x jobs), whichever is more, at most the remaining
 * CTAs / (2 x jobs) (the last chunks shrink, so that the workers end together) and at
 * most what lets each slot of the window buffer its records within the budget and
 * KEEP_BYTES (when records are buffered). At least 1. */
static uint64_t chunk_size(const struct par *p)
{
  uint64_t left = p->total - p->next, guided = left / (GUIDED_SHARE * (uint64_t)p->jobs), n, cap;
  if (!p->done_ctas || !p->done_insns) return 1;
  n = CHUNK_WARP_INSNS * p->done_ctas / p->done_insns; /* 0 when one CTA is more */
  if (n < guided) n = guided;
  cap = left / (2 * (uint64_t)p->jobs);
  if (n > cap) n = cap;
  if (p->sink->access && p->done_bytes) {
    uint64_t bytes = p->budget / p->window < KEEP_BYTES ? p->budget / p->window : KEEP_BYTES;
    /* entries vary (40 + 8 per active lane): the bytes a CTA measured, rounded up */
    uint64_t per_cta = (p->done_bytes + p->done_ctas - 1) / p->done_ctas;
    uint64_t fit = bytes / per_cta;
    if (n > fit) n = fit;
  }
  return n ? n : 1;
}

/* Whether the next chunk may be claimed, under p->mu: within the window of chunks past
 * the oldest one not delivered, or beyond it, up to the slots there are, while the
 * buffers hold less than a sixteenth of the budget. Why beyond: the merger can be held up
 * while the workers' records are small or none (the cache model replays a kernel's first
 * records line by line, exactly, before it samples sets: 50 ms for the naive 4096^2
 * transpose on 16 cores; past its switch a worker sends on few records, cut: drop.c);
 * with the window alone the workers then waited for it. Why a sixteenth: whole records
 * (a trace, views, a model that does not sample) still wait within the window, and
 * the memory such a run holds stays near the window's. */
static int window_open(const struct par *p)
{
  uint64_t ahead = p->next_seq - p->head;
  return ahead < p->window ||
         (ahead < p->n_slots && p->buffered - p->kept < p->budget / 16);
}

/* Claims the next chunk (window_open), under p->mu; NULL when no CTA is left or the run
 * stops. */
static struct slot *claim(struct par *p)
{
  struct slot *s = NULL;
  while (!p->stop && p->next < p->total && !window_open(p)) {
    p->claim_waiters++;
    pthread_cond_wait(&p->claim_cv, &p->mu);
    p->claim_waiters--;
  }
  if (!p->stop && p->next < p->total) {
    uint64_t n = chunk_size(p);
    s = &p->slots[p->next_seq % p->n_slots];
    p->kept -= s->cap; /* its kept buffer (or none) in use again */
    s->seq = p->next_seq++;
    s->c0 = p->next;
    s->c1 = p->next += n;
    s->state = SLOT_RUNNING;
    p->chunks++;
  }
  return s;
}

/* Under p->mu, after a chunk ended: fore_seq moved past the chunks now done in a row,
 * and the ordered consumer told how many of its counted records come before the CTAs
 * after them (access.h, ahead: the cache model publishes its sampling switch to the
 * workers from it, while the merger may still be replaying the records before). A
 * failed chunk stops it (the run ends there). Why here: every chunk before fore_seq is
 * done, so the count is exact, whatever the merger has delivered. */
static void foresee(struct par *p)
{
  const struct cc_access_partials *pa = p->partials;
  uint64_t from = p->fore_seq, cta = 0;
  while (p->fore_seq < p->next_seq) {
    const struct slot *s = &p->slots[p->fore_seq % p->n_slots];
    if (s->state != SLOT_DONE || s->status != CC_OK) break;
    p->fore_counted += s->counted;
    cta = s->c1;
    p->fore_seq++;
  }
  if (p->fore_seq > from && pa && pa->ahead) pa->ahead(pa->ctx, cta, p->fore_counted);
}

/* Ends chunk s, under p->mu: its counters feed the measure of chunk_size, the count of
 * what comes before the next chunks (foresee), and the merger wakes when it waits for this
 * chunk (or may have to cut a batch short for a worker that waits to be the oldest). */
static void end_chunk(struct par *p, struct slot *s)
{
  s->state = SLOT_DONE;
  p->done_ctas += s->c1 - s->c0;
  p->done_insns += s->st.warp_insns;
  p->done_bytes += s->bytes;
  foresee(p);
  if (p->want == s->seq || p->hook_waiters) pthread_cond_broadcast(&p->cv);
}

/* Adds the counters of a CTA to the run's. */
static void add_stats(struct cc_emu_stats *to, const struct cc_emu_stats *st)
{
  to->warp_insns += st->warp_insns;
  to->thread_insns += st->thread_insns;
  to->warp_accesses += st->warp_accesses;
}

/* Runs the CTAs of chunk s in order, summing their counters in s->st; at the first
 * failing CTA the chunk ends there (c1 just past it, its status and error kept), as the
 * serial run stops; so it does when the run stops (an earlier chunk failed). */
static void run_chunk(struct worker *w, struct slot *s)
{
  memset(&s->st, 0, sizeof s->st);
  s->bytes = 0;
  s->status = CC_OK;
  for (uint64_t c = s->c0; c < s->c1; c++) {
    if (c > s->c0 && __atomic_load_n(&w->p->stop, __ATOMIC_RELAXED)) {
      s->c1 = c; /* never delivered: the merger stopped before this chunk */
      break;
    }
    memset(&w->st, 0, sizeof w->st);
    w->noted = 0;
    s->status = emu_run_cta(w->r, c);
    add_stats(&s->st, &w->st);
    hook_note(w, w->st.warp_insns);
    if (s->status) {
      s->err = w->err;
      s->c1 = c + 1;
      break;
    }
  }
}

/* Marks worker w finished (it will not touch its partial again) and wakes who waits. */
static void finish(struct tree *t, struct worker *w)
{
  pthread_mutex_lock(&t->mu);
  w->finished = 1;
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

/* Worker w's part in the tree reduction of the partials, once it has no chunk left: at
 * round r, worker j with j % 2^(r+1) == 0 waits for worker j + 2^r to finish and
 * combines that one's partial into its own (access.h, combine); then w finishes. Worker
 * 0 ends holding them all, and the calling thread closes that one alone. Why: closing
 * jobs partials one after another on the calling thread was a serial tail growing with
 * jobs (59 ms at 16 workers for the naive transpose at 4096^2, against 108 ms of
 * emulation); the tree is ceil(log2 jobs) combines on its longest path (their cost
 * grows with the round: docs/scaling.md), and the early ones overlap with the workers
 * still running. The figures are the serial run's
 * whatever the tree: footprints are set unions, the counts integer sums, minima and
 * maxima commute (cc_analysis_insn_merge). */
static void reduce(struct worker *w)
{
  struct tree *t = w->tree;
  for (uint32_t step = 1; !(w->id & step) && step < t->n - w->id; step <<= 1) {
    struct worker *o = &t->ws[w->id + step];
    pthread_mutex_lock(&t->mu);
    while (!o->finished) pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    if (w->part && o->part) {
      t->pa->combine(t->pa->ctx, w->part, o->part);
      o->part = NULL;
    }
  }
  finish(t, w);
}

static void *worker_main(void *arg)
{
  struct worker *w = arg;
  struct par *p = w->p;
  struct slot *s;
  lock(p);
  while ((s = claim(p))) { /* one lock a chunk: its claim with the previous one's end */
    unlock(p);
    w->cur = s;
    run_chunk(w, s);
    release_held(w, s);
    recut(w, s);
    s->counted = counted(w);
    lock(p);
    end_chunk(p, s);
  }
  unlock(p);
  if (w->tree) reduce(w);
  return NULL;
}

/* ---- the merger -------------------------------------------------------------------------- */

/* Waits, under p->mu, until chunk t is done (or, cut short, chunk seq while a worker waits
 * to be the oldest), showing progress meanwhile. */
static void wait_for(struct par *p, uint64_t seq, uint64_t t, struct emu_progress *prog,
                     const struct cc_emu_stats *stats)
{
  const struct slot *s = &p->slots[seq % p->n_slots], *last = &p->slots[t % p->n_slots];
  p->want = t;
  while (last->state != SLOT_DONE && !(p->hook_waiters && s->state == SLOT_DONE)) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += PROGRESS_WAKE_NS;
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    if (pthread_cond_timedwait(&p->cv, &p->mu, &ts) == ETIMEDOUT) {
      unlock(p);
      emu_progress_note(prog, stats->ctas_done,
                        __atomic_load_n(&p->insns_seen, __ATOMIC_RELAXED), -1.0);
      lock(p);
    }
  }
  p->want = UINT64_MAX;
}

/* Waits, under p->mu, for chunk seq to be done. With no ordered consumer the merger has
 * nothing to deliver: when seq is not done yet it first waits for the end of a batch of
 * jobs chunks (seq + jobs - 1, or the last one claimed if that is earlier), so that it
 * wakes once per batch, not once per chunk (a worker waiting to be the oldest cuts the
 * batch short: it may wait on chunk seq). */
static void wait_done(struct par *p, uint64_t seq, struct emu_progress *prog,
                      const struct cc_emu_stats *stats)
{
  if (!p->sink->access && p->slots[seq % p->n_slots].state != SLOT_DONE && p->jobs > 1 &&
      p->next_seq > seq + 1) {
    uint64_t t = seq + p->jobs - 1 < p->next_seq - 1 ? seq + p->jobs - 1 : p->next_seq - 1;
    wait_for(p, seq, t, prog, stats);
  }
  wait_for(p, seq, seq, prog, stats);
}

/* Frees the slot of delivered chunk seq, under p->mu, and wakes who waits for it: a
 * claimer, and (status != 0: the run stops) everyone. */
static void free_chunk(struct par *p, uint64_t seq, int status)
{
  struct slot *sl = &p->slots[seq % p->n_slots];
  p->insns_before_head += sl->st.warp_insns;
  sl->used = 0;
  sl->direct = 0;
  sl->state = SLOT_FREE;
  if (sl->cap > KEEP_BYTES) { /* keep small buffers for the next chunks */
    p->buffered -= sl->cap;
    free(sl->buf);
    sl->buf = NULL;
    sl->cap = 0;
  }
  p->kept += sl->cap;
  /* stop first: a worker that reads the new head (acquire) then sees it (buffer_access) */
  if (status) __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED); /* read by run_chunk unlocked */
  __atomic_store_n(&p->head, seq + 1, __ATOMIC_RELEASE); /* read unlocked: buffer_access */
  /* one slot freed: one claimer; the others wait on cv only for head or bytes */
  if (p->claim_waiters) pthread_cond_signal(&p->claim_cv);
  if (status || p->room_waiters || p->hook_waiters) pthread_cond_broadcast(&p->cv);
  if (status) pthread_cond_broadcast(&p->claim_cv);
}

/* Delivers the chunks in order, the first from CTA first, until the last CTA or the
 * first failure. One lock a chunk: the slot freed and the next chunk waited for. */
static int merge(struct par *p, uint64_t first, struct cc_emu_stats *stats,
                 struct emu_progress *prog, struct cc_err *err)
{
  int s = CC_OK;
  uint64_t end = first; /* of the chunks delivered */
  struct cc_warp_access rec; /* each entry unpacked here: the sink reads it from our L1 */
  memset(&rec, 0, sizeof rec);
  lock(p);
  for (uint64_t seq = p->head; end < p->total && !s; seq++) {
    struct slot *sl = &p->slots[seq % p->n_slots];
    wait_done(p, seq, prog, stats);
    unlock(p);
    if (!sl->direct) s = deliver(p, sl, &rec, err);
    add_stats(stats, &sl->st);
    if (!s && sl->status) {
      s = sl->status;
      *err = sl->err;
    }
    /* a failing chunk ends with its failing CTA, which is not done */
    stats->ctas_done += (uint32_t)(sl->c1 - sl->c0 - (sl->status != CC_OK));
    end = sl->c1;
    emu_progress_note(prog, stats->ctas_done, __atomic_load_n(&p->insns_seen, __ATOMIC_RELAXED),
                      -1.0);
    lock(p);
    free_chunk(p, seq, s);
  }
  unlock(p);
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
  struct tree tree = {.ws = ws, .n = jobs, .pa = partials};
  uint32_t started = 0;
  int s = CC_OK;
  memset(&p, 0, sizeof p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  pthread_cond_init(&p.claim_cv, NULL);
  pthread_mutex_init(&tree.mu, NULL);
  pthread_cond_init(&tree.cv, NULL);
  p.jobs = jobs;
  p.window = (uint64_t)WINDOW_PER_JOB * jobs;
  p.n_slots = p.window + WINDOW_EXTRA;
  p.total = end; /* CTAs first .. end-1: claims and the merger start at first */
  p.next = first;
  p.want = UINT64_MAX;
  p.sink = sink && sink->access ? sink : &none;
  p.partials = partials;
  p.slots = cc_xcalloc(p.n_slots, sizeof *p.slots);
  p.budget = emu->opts.buffer_bytes ? emu->opts.buffer_bytes
                                    : (uint64_t)jobs * CC_EMU_BUFFER_PER_JOB;
  if (!emu->opts.buffer_bytes && p.budget < BUFFER_MIN) p.budget = BUFFER_MIN;
  for (uint32_t j = 0; j < jobs && !s; j++) {
    struct worker *w = &ws[j];
    w->p = &p;
    w->tree = partials && partials->combine ? &tree : NULL;
    w->id = j;
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
  for (uint32_t j = started; j < jobs; j++) /* never started: nothing to wait for */
    finish(&tree, &ws[j]);
  if (!s) s = merge(&p, first, stats, &prog, err);
  lock(&p);
  __atomic_store_n(&p.stop, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&p.cv);
  pthread_cond_broadcast(&p.claim_cv);
  unlock(&p);
  for (uint32_t j = 0; j < started; j++) pthread_join(ws[j].thread, NULL);
  {
    int s2 = close_partials(&p, ws, jobs, s == CC_OK, err);
    if (!s) s = s2;
  }
  emu_progress_end(&prog, s == CC_OK, stats->ctas_done, stats->warp_insns);
  stats->chunks = p.chunks;
  for (uint32_t j = 0; j < jobs; j++) emu_run_free(ws[j].r);
  for (uint64_t j = 0; j < p.n_slots; j++) free(p.slots[j].buf);
  free(p.slots);
  free(ws);
  pthread_cond_destroy(&p.cv);
  pthread_cond_destroy(&p.claim_cv);
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&tree.cv);
  pthread_mutex_destroy(&tree.mu);
  return s;
}
