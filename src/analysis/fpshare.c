/* A footprint the worker threads of a launch add to at once: see fpshare.h. */
#include "analysis/fpshare.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/mem.h"

#define LEAF_BITS 12u                         /* units a leaf: 4096 */
#define LEAF_WORDS ((1u << LEAF_BITS) / 64u)  /* 64 words, 512 bytes */
#define NODE_BITS 12u                         /* leaves a node: 4096 pointers, 32 KiB */
#define NODE_SHIFT (LEAF_BITS + NODE_BITS)    /* a node's key: u >> 24 */
#define TOP_CAP 128u                          /* nodes a footprint: 2 Gi units */
#define SHIFT_MAX 4u                          /* units of at most 16 bytes */
/* The conversion's threads (cc_analysis_fps_finish_all): at most this many, each part of at
 * least PART_PIECES_MIN leaves (32 KiB of bitmap), else fewer. */
#define PART_THREADS_MAX 64u
#define PART_PIECES_MIN 64u
/* node[i] of a key claimed when the budget could not pay for its node: a dead end */
#define NO_NODE ((struct node *)(uintptr_t)1)

struct leaf {
  uint64_t w[LEAF_WORDS];
};

struct node {
  struct leaf *leaf[1u << NODE_BITS]; /* NULL until touched; set by compare-and-swap */
};

struct cc_fp_shared {
  unsigned shift;          /* units of 1 << shift bytes */
  int64_t *budget;         /* bytes left for leaves and nodes (shared, atomic) */
  size_t bytes;            /* held: this struct, nodes, leaves (atomic) */
  /* the nodes, by open addressing on their key u >> NODE_SHIFT: key[i] is that key + 1
   * (0: free), claimed by compare-and-swap; node[i] is published after it (a reader that
   * finds the key before the node waits for it) */
  uint64_t key[TOP_CAP];
  struct node *node[TOP_CAP];
};

struct cc_fp_writer {
  struct cc_fp_shared *fs;
  /* lane l's pending word (l < 32; 32: the second word of a coalesced run): the word of
   * units 64 (key[l] - 1) .. +63 (key 0: none), and the bits this thread has yet to OR
   * into it. Why per lane: the next warp of a CTA, or the next iteration of a loop, finds
   * its lane's word again (a column access sets 8 bits a word from the 8 warps of a
   * transpose's CTA; a reduction stores to one address 48 times) at the cost of a compare */
  uint64_t key[33];
  uint64_t *word[33];
  uint64_t bits[33];
  uint64_t nkey;     /* the node found last (NULL: none yet), of key nkey */
  struct node *node;
  int have_node;
};

struct cc_fp_shared *cc_analysis_fps_new(uint32_t size_bytes, int64_t *budget)
{
  struct cc_fp_shared *fs = cc_xcalloc(1, sizeof *fs);
  unsigned shift = size_bytes ? (unsigned)__builtin_ctz(size_bytes) : 0;
  fs->shift = shift < SHIFT_MAX ? shift : SHIFT_MAX;
  fs->budget = budget;
  fs->bytes = sizeof *fs;
  return fs;
}

void cc_analysis_fps_free(struct cc_fp_shared *fs)
{
  if (!fs)
    return;
  for (unsigned i = 0; i < TOP_CAP; i++) {
    struct node *n = fs->node[i];
    if (!n || n == NO_NODE)
      continue;
    for (unsigned j = 0; j < (1u << NODE_BITS); j++)
      free(n->leaf[j]);
    free(n);
  }
  free(fs);
}

size_t cc_analysis_fps_bytes(const struct cc_fp_shared *fs)
{
  return fs ? __atomic_load_n(&fs->bytes, __ATOMIC_RELAXED) : 0;
}

/* Takes bytes from the budget; 0 (nothing taken) when it holds fewer. */
static int take_budget(struct cc_fp_shared *fs, size_t bytes)
{
  int64_t left = __atomic_load_n(fs->budget, __ATOMIC_RELAXED);
  do {
    if (left < (int64_t)bytes)
      return 0;
  } while (!__atomic_compare_exchange_n(fs->budget, &left, left - (int64_t)bytes, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  __atomic_add_fetch(&fs->bytes, bytes, __ATOMIC_RELAXED);
  return 1;
}

/* The node of key nkey (u >> NODE_SHIFT), made if absent; NULL when the table is full or
 * the budget spent. */
static struct node *find_node(struct cc_fp_shared *fs, uint64_t nkey)
{
  uint64_t want = nkey + 1; /* never 0: nkey < 2^40 */
  unsigned h = (unsigned)cc_mix64(nkey) & (TOP_CAP - 1);
  for (unsigned probe = 0; probe < TOP_CAP; probe++, h = (h + 1) & (TOP_CAP - 1)) {
    uint64_t k = __atomic_load_n(&fs->key[h], __ATOMIC_ACQUIRE);
    if (k == 0) {
      if (!__atomic_compare_exchange_n(&fs->key[h], &k, want, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE)) {
        if (k != want)
          continue; /* another key took the slot: probe on */
      } else {
        /* ours: made now, and published; a slot claimed without a node (budget spent)
         * stays a dead end for this key, whose lanes go to the callers' footprints */
        struct node *n = take_budget(fs, sizeof *n) ? cc_xcalloc(1, sizeof *n) : NULL;
        __atomic_store_n(&fs->node[h], n ? n : NO_NODE, __ATOMIC_RELEASE);
        return n;
      }
    }
    if (k == want) {
      struct node *n;
      while (!(n = __atomic_load_n(&fs->node[h], __ATOMIC_ACQUIRE)))
        ; /* its maker is between the claim and the publication: a calloc */
      return n == NO_NODE ? NULL : n;
    }
  }
  return NULL;
}

/* The word holding unit u, its leaf made if absent; NULL: no room. */
static uint64_t *word_of(struct cc_fp_shared *fs, struct cc_fp_writer *w, uint64_t u)
{
  uint64_t nkey = u >> NODE_SHIFT;
  struct node *n;
  struct leaf **slot, *l;
  if (w->have_node && w->nkey == nkey) {
    n = w->node;
  } else {
    n = find_node(fs, nkey);
    w->have_node = 1;
    w->nkey = nkey;
    w->node = n;
  }
  if (!n)
    return NULL;
  slot = &n->leaf[(u >> LEAF_BITS) & ((1u << NODE_BITS) - 1)];
  l = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!l) {
    struct leaf *fresh;
    if (!take_budget(fs, sizeof *fresh))
      return NULL;
    fresh = cc_xcalloc(1, sizeof *fresh);
    if (__atomic_compare_exchange_n(slot, &l, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      l = fresh;
    } else { /* another thread made it first: l is theirs */
      free(fresh);
      __atomic_add_fetch(fs->budget, (int64_t)sizeof *fresh, __ATOMIC_RELAXED);
      __atomic_sub_fetch(&fs->bytes, sizeof *fresh, __ATOMIC_RELAXED);
    }
  }
  return &l->w[(u >> 6) & (LEAF_WORDS - 1)];
}

/* ORs bits into *word unless it holds them already (a read costs no ownership of the
 * host line; repeated accesses, a loop's, find their bits set). */
static void or_word(uint64_t *word, uint64_t bits)
{
  if ((__atomic_load_n(word, __ATOMIC_RELAXED) & bits) != bits)
    __atomic_fetch_or(word, bits, __ATOMIC_RELAXED);
}

/* Adds bits to the units of key (units 64 key .. 64 key + 63) pending in w's entry e,
 * ORing out the word the entry held; 0 when the word finds no room (nothing changed). */
static int pend(struct cc_fp_writer *w, unsigned e, uint64_t key, uint64_t bits)
{
  uint64_t *word;
  if (w->key[e] == key + 1) {
    w->bits[e] |= bits;
    return 1;
  }
  if (!(word = word_of(w->fs, w, key << 6)))
    return 0;
  if (w->key[e])
    or_word(w->word[e], w->bits[e]);
  w->key[e] = key + 1;
  w->word[e] = word;
  w->bits[e] = bits;
  return 1;
}

struct cc_fp_writer *cc_analysis_fpw_new(struct cc_fp_shared *fs)
{
  struct cc_fp_writer *w = cc_xcalloc(1, sizeof *w);
  w->fs = fs;
  return w;
}

void cc_analysis_fpw_flush(struct cc_fp_writer *w)
{
  if (!w)
    return;
  for (unsigned e = 0; e < 33; e++)
    if (w->key[e]) {
      or_word(w->word[e], w->bits[e]);
      w->key[e] = 0;
    }
}

void cc_analysis_fpw_free(struct cc_fp_writer *w)
{
  free(w);
}

/* The bits of a run whose lanes are tested (add_run, cc_analysis_fps_add_progression):
 * the lanes of mask (first..last) on consecutive units from the aligned a0, pending in at
 * most two words. Returns 0 when a word finds no room. */
static int pend_run(struct cc_fp_writer *w, uint64_t a0, uint32_t mask, unsigned first,
                    unsigned last)
{
  uint64_t u0 = a0 >> w->fs->shift, pat = (uint64_t)(mask >> first); /* bit i: unit u0 + i */
  if ((u0 & 63) + (last - first) >= 64) { /* two words: the second in entry 32 */
    if (!pend(w, 32, (u0 >> 6) + 1, pat >> (64 - (u0 & 63))))
      return 0;
  }
  if (!pend(w, first, u0 >> 6, pat << (u0 & 63)))
    return 0; /* the second word's bits stay pending: they are the access's own */
  return 1;
}

/* The lanes of mask on consecutive units from an aligned first lane's (a coalesced
 * access: lane l at addr[first] + (l - first) << shift): their bits ORed into at most two
 * words at once, no lookup per lane. Returns 0, having changed nothing, for other
 * lanes, and when a word finds no room. */
static int add_run(struct cc_fp_writer *w, const uint64_t *addr, uint32_t mask)
{
  unsigned shift = w->fs->shift;
  unsigned first = (unsigned)__builtin_ctz(mask), last = 31u - (unsigned)__builtin_clz(mask);
  uint64_t a0 = addr[first];
  if (a0 & ((1ull << shift) - 1) || a0 > UINT64_MAX - ((uint64_t)(last - first) << shift))
    return 0;
  for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    if (addr[l] != a0 + ((uint64_t)(l - first) << shift))
      return 0;
  }
  return pend_run(w, a0, mask, first, last);
}

uint32_t cc_analysis_fps_add_progression(struct cc_fp_writer *w, const uint64_t *addr,
                                         uint64_t step)
{
  uint64_t a0 = addr[0];
  /* add_run's tests but the lanes' (a progression going up: no lane past 2^64 - 1) */
  if (step == 1ull << w->fs->shift && (a0 & (step - 1)) == 0 &&
      pend_run(w, a0, 0xffffffffu, 0, 31))
    return 0;
  return cc_analysis_fps_add_lanes(w, addr, 0xffffffffu);
}

uint32_t cc_analysis_fps_add_lanes(struct cc_fp_writer *w, const uint64_t *addr, uint32_t mask)
{
  unsigned shift = w->fs->shift;
  uint64_t align = (1ull << shift) - 1;
  uint32_t left = 0;
  if ((mask & (mask - 1)) && add_run(w, addr, mask))
    return 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    uint64_t u = addr[l] >> shift;
    if ((addr[l] & align) || !pend(w, l, u >> 6, 1ull << (u & 63)))
      left |= 1u << l;
  }
  return left;
}

/* The nodes' table slots in increasing key order (so that the leaves come in address
 * order); returns how many. */
static unsigned sorted_nodes(const struct cc_fp_shared *fs, unsigned *out)
{
  unsigned n = 0;
  for (unsigned i = 0; i < TOP_CAP; i++) {
    unsigned j;
    if (fs->key[i] == 0 || !fs->node[i] || fs->node[i] == NO_NODE)
      continue;
    for (j = n; j > 0 && fs->key[out[j - 1]] > fs->key[i]; j--) /* insertion: <= 128 */
      out[j] = out[j - 1];
    out[j] = i;
    n++;
  }
  return n;
}

/* The leaves of fs in address order, as pieces of its set (*n of them; the caller frees
 * the array). */
static struct cc_fp_bits *pieces_of(const struct cc_fp_shared *fs, size_t *n)
{
  unsigned order[TOP_CAP], nodes = sorted_nodes(fs, order);
  size_t cap = 64, k = 0;
  struct cc_fp_bits *pc = cc_xmalloc(cap * sizeof *pc);
  for (unsigned i = 0; i < nodes; i++) {
    const struct node *nd = fs->node[order[i]];
    uint64_t base = (fs->key[order[i]] - 1) << NODE_SHIFT;
    for (unsigned j = 0; j < (1u << NODE_BITS); j++) {
      if (!nd->leaf[j])
        continue;
      if (k == cap)
        pc = cc_xrealloc(pc, (cap *= 2) * sizeof *pc);
      pc[k++] = (struct cc_fp_bits){base + ((uint64_t)j << LEAF_BITS), nd->leaf[j]->w, LEAF_WORDS};
    }
  }
  *n = k;
  return pc;
}

/* One footprint's conversion (cc_analysis_fps_finish_all): its leaves as pieces, its
 * set's least unit and gcd, and the parts its share of the threads build. */
struct finish {
  struct cc_fp_shared *fs;
  struct cc_footprint *fp;
  struct cc_fp_bits *pc;
  size_t n, first;          /* pieces; the one holding the least unit */
  uint64_t u0, g;           /* g 0: no part to build (nothing set, or one address) */
  unsigned parts;
  struct cc_footprint **out; /* parts of them, by part */
};

/* The conversions' parts, for the threads to take in turn. */
struct finish_pool {
  struct finish *f;
  size_t nf;
  size_t *job_f;             /* job j: finish job_f[j], part job_p[j] */
  unsigned *job_p;
  size_t jobs, next;         /* next: the first job not taken (atomic) */
};

/* Frees fs's nodes and fs, its leaves freed already (run_job). */
static void free_nodes(struct cc_fp_shared *fs)
{
  for (unsigned i = 0; i < TOP_CAP; i++)
    if (fs->node[i] && fs->node[i] != NO_NODE)
      free(fs->node[i]);
  free(fs);
}

/* Builds part p of f, then frees its pieces' leaves (a piece's words are its leaf's:
 * struct leaf holds nothing else), on the thread that read them last. Part 0 also takes
 * the empty leaves before the least unit. */
static void run_job(struct finish *f, unsigned p)
{
  size_t a = p ? f->first + (f->n - f->first) * p / f->parts : 0;
  size_t b = f->first + (f->n - f->first) * (p + 1) / f->parts;
  f->out[p] = cc_analysis_fp_grid_part(f->pc + a, b - a, f->fs->shift, f->u0, f->g);
  for (size_t i = a; i < b; i++)
    free((void *)f->pc[i].words);
}

static void *pool_main(void *arg)
{
  struct finish_pool *pool = arg;
  size_t j;
  while ((j = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->jobs)
    run_job(&pool->f[pool->job_f[j]], pool->job_p[j]);
  return NULL;
}

/* Sets up f for fs and fp: pieces, least unit, gcd, parts (at most `threads`, each of at
 * least PART_PIECES_MIN pieces). A set that is empty or of one address is done here
 * (parts 0). */
static void prepare(struct finish *f, struct cc_fp_shared *fs, struct cc_footprint *fp,
                    unsigned threads)
{
  int found = 0;
  memset(f, 0, sizeof *f);
  f->fs = fs;
  f->fp = fp;
  f->pc = pieces_of(fs, &f->n);
  for (; f->first < f->n && !found; f->first += !found) /* the least unit: the first bit */
    for (size_t i = 0; i < f->pc[f->first].n && !found; i++)
      if (f->pc[f->first].words[i]) {
        f->u0 = f->pc[f->first].unit0 + 64u * i +
                (unsigned)__builtin_ctzll(f->pc[f->first].words[i]);
        found = 1;
      }
  if (found)
    f->g = cc_analysis_fp_bits_gcd(f->pc + f->first, f->n - f->first, f->u0, 0);
  if (f->g == 0) {
    if (found) /* one address */
      cc_analysis_fp_add(fp, f->u0 << fs->shift);
    return;
  }
  f->parts = (unsigned)((f->n - f->first) / PART_PIECES_MIN);
  if (f->parts > threads)
    f->parts = threads;
  if (f->parts < 1)
    f->parts = 1;
  f->out = cc_xcalloc(f->parts, sizeof *f->out);
}

void cc_analysis_fps_finish_all(struct cc_fp_shared *const *fs, struct cc_footprint *const *fp,
                                size_t n, unsigned threads)
{
  struct finish_pool pool = {cc_xcalloc(n ? n : 1, sizeof *pool.f), n, NULL, NULL, 0, 0};
  pthread_t th[PART_THREADS_MAX];
  unsigned t = threads ? threads : 1, started = 0;
  size_t j = 0;
  if (t > PART_THREADS_MAX)
    t = PART_THREADS_MAX;
  for (size_t i = 0; i < n; i++) {
    if (fs[i])
      prepare(&pool.f[i], fs[i], fp[i], t);
    pool.jobs += pool.f[i].parts;
  }
  pool.job_f = cc_xmalloc((pool.jobs ? pool.jobs : 1) * sizeof *pool.job_f);
  pool.job_p = cc_xmalloc((pool.jobs ? pool.jobs : 1) * sizeof *pool.job_p);
  for (size_t i = 0; i < n; i++) /* in slot order: a thread takes the next job left */
    for (unsigned p = 0; p < pool.f[i].parts; p++, j++) {
      pool.job_f[j] = i;
      pool.job_p[j] = p;
    }
  /* the calling thread works too; a thread that cannot start leaves its jobs to the others */
  while (started + 1 < t && started + 1 < pool.jobs &&
         pthread_create(&th[started], NULL, pool_main, &pool) == 0)
    started++;
  pool_main(&pool);
  for (unsigned i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  for (size_t i = 0; i < n; i++) {
    struct finish *f = &pool.f[i];
    if (!f->fs)
      continue;
    if (f->parts)
      cc_analysis_fp_concat(f->fp, f->out, f->parts);
    else /* nothing built: the leaves are still here */
      for (size_t k = 0; k < f->n; k++)
        free((void *)f->pc[k].words);
    free(f->out);
    free(f->pc);
    free_nodes(f->fs);
  }
  free(pool.job_f);
  free(pool.job_p);
  free(pool.f);
}
