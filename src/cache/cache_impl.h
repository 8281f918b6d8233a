/* Inside src/cache: the model's state, shared by cache.c (the replay) and state.c
 * (allocation, kernels, figures). The rules and their sources: cache.c. */
#ifndef CC_CACHE_CACHE_IMPL_H
#define CC_CACHE_CACHE_IMPL_H

#include <string.h>

#include "cache/cache.h"

/* A way's tag is the bitwise complement of its line number (tag_of), so that a way of
 * all-zero bytes is empty: EMPTY_TAG is the tag of no line (line numbers are below
 * 2^57), and the arrays start empty as calloc's untouched zero pages (state.c). */
#define EMPTY_TAG 0
#define NO_LINE UINT64_MAX /* line_of(EMPTY_TAG): no line */
#define FULL_SECTOR 0xffffffffu
#define MAX_ENTS 64            /* lines one record can touch: 32 lanes x 2 lines */
#define LOCAL_BASE 0xc000000000000000ull
#define LOCAL_REGION_SHIFT 32  /* bytes per warp local area: 4 GiB apart */
#define MAX_WARPS_PER_SM 64
#define L1_PRED_BITS 10        /* way predictor entries per SM's L1: 1024 (4 KiB) */
#define L2_PRED_BITS 16        /* and for L2: 65536 (256 KiB) */
#define PRED_MUL 0x9e3779b97f4a7c15ull /* Fibonacci hashing: 2^64 / golden ratio */

static inline uint64_t tag_of(uint64_t line)
{
  return ~line;
}

static inline uint64_t line_of(uint64_t tag)
{
  return ~tag;
}

/* One way of a set: the line it holds and its state. 16 bytes, so that a set of 4 ways
 * is one host cache line and the 16 ways of an L2 set four neighbouring ones. */
struct way {
  uint64_t tag;                /* tag_of(line number), EMPTY_TAG */
  uint32_t stamp;              /* last use (LRU); 0 for empty ways */
  uint8_t valid;               /* sectors holding data, bit s = sector s of the line */
  uint8_t dirty;               /* L2 only: sectors written and not yet in DRAM */
  uint8_t bytes_kept;          /* L2 only: 0: the way's written bytes (struct written)
                                  are all 0, so a fetch or a new line need not clear them
                                  (a load's line never touches them) */
  uint8_t pad;
};

/* What stores wrote into an L2 line: per sector, the bytes written of a sector not valid
 * (bit b: byte b) and the slot of the instruction that last wrote it (for the DRAM
 * write-back). Beside the ways, touched by stores and write-backs only. */
struct written {
  uint32_t bytes[4];
  uint32_t writer[4];
};

/* One cache level (for L1: one SM's share of the common array). Its sets are stored
 * in `slots` places (set_of's layout, cc_cache_level_layout): the arrays by set (w,
 * part, touched, set_dirty, set_partial) have slots entries, slots >= sets. */
struct level {
  uint32_t sets, ways;
  uint32_t slots;              /* classes x class_sets[0]: places for the sets (a class of
                                  fewer sets leaves its last place unused) */
  uint32_t region;             /* the first `region` places hold the sampled classes'
                                  sets (all of them when not sampling), the others the
                                  rest: cc_cache_level_layout */
  uint32_t shift;              /* ceil(log2(sets)): the index's fold */
  uint64_t mod_magic;          /* fast `% sets` (Lemire's fastmod) */
  enum cc_cache_index index;
  uint32_t classes;            /* K: every set holds lines of one class mod K (a power of
                                  two <= 16; 1: no classes, index=fold; level_shape) */
  uint32_t class_bits;         /* log2(classes) */
  uint32_t class_sets[CC_CACHE_CLASSES];  /* INDEX_HASH: sets of class c (those s with
                                  s mod K == c): (sets - c + K - 1) / K */
  uint64_t class_magic[CC_CACHE_CLASSES]; /* fast `% class_sets[c]` */
  uint32_t class_base[CC_CACHE_CLASSES];  /* the place of set w of class c: */
  uint32_t class_step[CC_CACHE_CLASSES];  /* class_base[c] + w x class_step[c] */
  struct way *w;               /* [slots * ways], place-major */
  struct written *part;        /* L2 only: per way, what stores wrote */
  uint64_t *set_dirty;         /* L2 only: per place, bit k: way k holds dirty sectors */
  uint64_t *set_partial;       /* L2 only: per set, bit k: way k holds partly written
                                  ones (the write policy's limits count these bits, so
                                  that a store does not scan its set's ways) */
  uint64_t way_magic;          /* fast `/ ways` (Lemire's fastdiv): a way's set */
  uint8_t *touched;            /* per set: 1 once one of its ways was filled since the
                                  level was last emptied (state.c level_reset empties
                                  those alone; every other set is all-zero bytes) */
  uint32_t clock;              /* LRU time; renumbered before it wraps (renumber) */
  uint32_t *pred;              /* way predictor: [1 << pred_bits] indices into w, by a
                                  hash of the line; a guess, checked against the tag */
  uint32_t pred_bits, pred_shift; /* pred_shift = 64 - pred_bits */
  int hot;                     /* the last lookup found its line: use the predictor */
  /* L2 only: where its figures go, and which sets it owns (the parallel replay gives
   * each thread a copy of the L2 level owning the sets s with part_of(s) == part_id, with
   * its own clock, predictor and counts: par.c) */
  struct cc_cache_counts *insn;/* [n_insns]: L2 hits, DRAM bytes of each slot */
  uint32_t n_insns;
  uint64_t evictions;          /* lines replaced */
  const uint8_t *dram_unit;    /* struct cc_cache's */
  uint32_t partial_ways, dirty_ways; /* the write policy's limits (cache.c; the device's
                                  l2_partial_ways, l2_dirty_ways) */
  uint32_t n_parts, part_id;
};

/* x mod n by one multiplication, magic = UINT64_MAX / n + 1 (Lemire, Kaser, Kurz,
 * "Faster remainder by direct computation", 2019; exact for 32-bit x). */
static inline uint32_t fastmod(uint32_t x, uint32_t n, uint64_t magic)
{
  return (uint32_t)(((unsigned __int128)(magic * x) * n) >> 64);
}

/* The set of line in level lv (cache.c's replay; drop.c's workers, on their copy of
 * the L2's shape): the place where it is stored (struct level: the arrays' index). The
 * fold: h = line ^ (line >> s) ^ (line >> 2s) with s = ceil(log2(sets)), so that lines a
 * power of two apart (rows of a matrix) spread over the sets instead of sharing a few.
 * INDEX_HASH: the line's class c = cc_cache_line_class mod K (lv->classes) and w = (h >>
 * log2 K) mod (sets of class c) name the set (c, w); every set then holds lines of one
 * class (set sampling, sample.c), and the 16 lines of an aligned group, whose classes
 * are a permutation, fall in distinct sets. INDEX_MOD: line mod sets = c + K w names
 * it. Set (c, w) is stored at class_base[c] + w x class_step[c]
 * (cc_cache_level_layout): the sampled classes' sets first, the others after, each part
 * in the order c + K w would give (neighbouring lines in neighbouring places: host
 * memory accesses stay local). INDEX_FOLD: h mod sets (the model before set sampling;
 * one class). */
static inline uint32_t set_of(const struct level *lv, uint64_t line)
{
  uint64_t h = line ^ (line >> lv->shift) ^ (line >> (2 * lv->shift));
  uint32_t h32 = (uint32_t)(h ^ (h >> 32)), c, w;
  if (__builtin_expect(lv->index == CC_CACHE_INDEX_HASH, 1)) {
    c = cc_cache_line_class(CC_CACHE_INDEX_HASH, line) & (lv->classes - 1);
    w = fastmod(h32 >> lv->class_bits, lv->class_sets[c], lv->class_magic[c]);
  } else if (lv->index == CC_CACHE_INDEX_MOD) {
    uint32_t s = (uint32_t)(line % lv->sets);
    c = s & (lv->classes - 1);
    w = s >> lv->class_bits;
  } else {
    return fastmod(h32, lv->sets, lv->mod_magic);
  }
  return lv->class_base[c] + w * lv->class_step[c];
}

/* The part of `parts` owning set (place) `set` of lv (the parallel replay's L2): each of
 * the layout's two regions (the sampled classes' places, the others) in contiguous
 * blocks, so that a sampled replay, which looks up the first region's sets only, spreads
 * over every part; neighbouring sets share the host lines of set_dirty and set_partial,
 * which threads writing every other set would pass between their cores at each store. */
static inline uint32_t part_of(const struct level *lv, uint32_t parts, uint32_t set)
{
  if (set < lv->region)
    return (uint32_t)((uint64_t)set * parts / lv->region);
  return (uint32_t)((uint64_t)(set - lv->region) * parts / (lv->slots - lv->region));
}

/* The first set of part p (part_of's blocks) in region r of lv (0: places [0, region),
 * 1: [region, slots)); the region's end when p == parts. */
static inline uint32_t part_first(const struct level *lv, uint32_t parts, uint32_t p, int r)
{
  uint32_t lo = r ? lv->region : 0, n = r ? lv->slots - lv->region : lv->region;
  return lo + (uint32_t)(((uint64_t)p * n + parts - 1) / parts);
}

/* What one line of a record asks of L2 (the L1 side decided it): read the sectors
 * `mask` (a load's fetch), write them (a store: bytes per sector), or both (an atomic). */
enum l2_op { OP_READ, OP_WRITE, OP_ATOMIC };

/* An L2 request of the parallel replay, queued by the L1 side for the thread owning its
 * set; rec: the record's index in its batch (requests of one record are queued in the
 * record's line order, which is the serial replay's). */
struct l2_req {
  uint64_t line;
  uint32_t rec, slot;
  uint32_t bytes[4];
  uint8_t mask, op;
};

struct req_buf {
  struct l2_req *r;
  size_t n, cap;
};

/* A record in a fast form (gather): its lines and sectors follow from these alone.
 * LANES: 32 lanes a line or more apart, each at the same place in its sector (a stride
 * of whole sectors: the column of a matrix whose rows are whole sectors). STRIDED: the
 * same with a stride of any multiple of the lanes' size (the column of a matrix of
 * (n + 1) floats a row, PolyBench's): each lane's bytes at its own place in its sector,
 * the key the first lane's byte address; no store memo (its byte masks differ by lane). */
enum form { FORM_GENERAL, FORM_RANGE, FORM_LANES, FORM_STRIDED };
struct form_key {
  enum form form;
  uint64_t a, b;               /* RANGE: first and last sector; LANES: first sector, stride;
                                  STRIDED: first byte, stride */
};

/* Where the L1 side of a record puts what it finds: its counts, and for the L2 side
 * either the L2 itself (out NULL: the serial replay, each line done at once) or queues
 * of requests, one per L2 part (par.c). */
struct side {
  struct cc_cache_counts *insn; /* [n_insns]; while sampling: the sampled lines' raw counts */
  struct req_buf *out;          /* [parts], or NULL */
  uint32_t parts;
  uint32_t rec;                 /* the record's index in the batch */
  struct cc_cache_counts *exact;/* NULL: not sampling (every count into insn); else where
                                   the counts that do not depend on cache state go, for
                                   the whole record (wavefronts, L2 sectors of stores and
                                   atomics, of loads L1 does not cache) */
  uint64_t *sm_wavefronts;      /* [sms]: the L1 wavefronts per SM (the serial replay's:
                                   c->sm_wavefronts; a parallel thread's its own, since
                                   SMs of other threads share its host cache lines) */
};

/* A line a record touches: the sectors, and for stores and atomics the bytes written
 * per sector (left unset for loads, which never read them). */
struct ent {
  uint64_t line;
  uint32_t bytes[4];
  uint8_t mask;
};

/* A record's lines, in increasing line order (the order they are replayed in, whichever
 * lanes hold them). */
struct gather {
  struct ent e[MAX_ENTS];
  uint32_t n;
  uint64_t max_line;
  uint32_t sectors;           /* sectors of e[0..n) */
  struct form_key key;
  int want_bytes;             /* fill ent.bytes (stores, atomics) */
};

/* The deepest level one of a record's sectors reached (waits, latency). REACH_UNSEEN:
 * a load or atomic while sampling none of whose lines is sampled (its wait is estimated
 * from the sampled ones', sample.c). */
enum level_reached { REACH_L1, REACH_L2, REACH_DRAM, REACH_NONE /* a store: no wait */,
                     REACH_UNSEEN };

/* The lines and sectors of a load record an SM's L1 replayed, while nothing else touched
 * that L1 since but the other memos' records (struct memo_list; n == 0: none). A record
 * with the same lines, in the same order, each asking for sectors the memo holds, hits
 * every sector, and re-touching the lines most recently touched, in the order they were
 * touched, leaves each set's LRU order as it is: the record costs no lookup (the
 * row-per-thread loops: a warp re-reads its 32 lines for 8 iterations of 4-byte
 * elements). */
struct l1_memo {
  struct form_key key;         /* the record's fast form (FORM_GENERAL: none, compare lines) */
  uint32_t sectors;            /* of the lines below (while sampling: the sampled ones) */
  uint32_t n;
  uint8_t mask[MAX_ENTS];      /* sectors each line holds for the memo (asked by its
                                  records, valid in L1) */
  uint64_t line[MAX_ENTS];
  uint32_t way[MAX_ENTS];      /* the L1 way holding each line (index into l1[sm].w) */
};

/* An SM's L1 memos: its last L1_MEMOS load records replayed, most recent first (m[0]:
 * memo_of); together they are the L1's most recently touched lines, in the memos' order
 * from m[L1_MEMOS - 1] to m[0], each memo's in its order (a line of several: where the
 * most recent of them has it). Why several: a loop of a few loads a trip (gemv_rows'
 * column A[i][j] and broadcast x[j]; gesummv's two columns and x[j]) takes turns, each
 * leaving the others' lines in L1; one memo was replaced at every record. A record equal
 * to memo m[i] (memo_find), or advancing it, hits it as it would m[0], and m[i] moves to
 * the front: its lines are then the most recent. The memos' hits touch no line, so the
 * stamps of LRU may lag: `stamped` is the memos' order when the stamps last followed it,
 * and where m differs, cache.c memo_flush touches every memo's lines from the oldest memo
 * to m[0], each in its order, before anything else touches that L1 or picks a victim
 * there: the LRU order of every set is then what the full replay would have made (the
 * lines outside the memos are older than all of theirs either way). */
#define L1_MEMOS 4
struct memo_entry {
  struct l1_memo *m;                 /* n == 0: none */
  /* kept in the list (each memo's 864 bytes lie apart: a record that missed every memo
   * read four of them, copy and the transposes 3-6% slower) */
  uint64_t key_a;                    /* m->key.a while m holds lines: a first test */
  uint64_t ways;                     /* bit w % 64 for each L1 way w of m's lines */
};
struct memo_list {
  struct memo_entry e[L1_MEMOS];     /* e[i].m: the text's m[i] */
  struct l1_memo *stamped[L1_MEMOS];
};

/* Whether a load of line-per-lane form key, on the SM of L1 memo m, reads the memo's
 * lines in the memo's order, one sector each, another sector than the memo's key (a
 * row-per-thread loop's next sector of each row: cache.c memo_advance): m holds a column
 * of the same stride, a multiple of a line (so every lane stays in its line when lane 0
 * does), and lane 0's sector is another of the same line. */
static inline int memo_advances(const struct l1_memo *m, struct form_key key)
{
  const uint64_t per_line = CC_CACHE_LINE_BYTES / CC_CACHE_SECTOR_BYTES;
  return key.form == FORM_LANES && m->key.form == FORM_LANES && m->key.b == key.b &&
         key.b % CC_CACHE_LINE_BYTES == 0 && key.a / per_line == m->key.a / per_line &&
         key.a != m->key.a;
}

/* The last global store an SM replayed in the line-per-lane form (a column of a matrix:
 * the naive transpose's stores) and the L2 ways its lines went to. The SM's next such
 * store with the same first sector and stride writes the same sectors of the same lines
 * (other bytes of them: the CTA's other warps): where every way still holds its line (a
 * line lives in one way at most), the store updates those ways without looking its lines
 * up, and touches them in the same order, as the full replay would. While sampling it
 * holds the sampled lanes' lines only (the same key: the same lanes sampled). */
struct store_memo {
  struct form_key key;         /* FORM_GENERAL: none */
  uint32_t n;                  /* lines: 32, or while sampling the sampled lanes' */
  uint32_t way[CC_WARP_SIZE];  /* index into l2.w */
  uint64_t line[CC_WARP_SIZE];
  uint8_t mask[CC_WARP_SIZE];
};

struct cc_cache;
/* The quick path of a record while sampling (cache.c): the record of SM sm. */
typedef void cc_cache_quick_fn(struct cc_cache *c, const struct cc_warp_access *a,
                               uint32_t sm);

/* The sampled lanes of the last line-per-lane record whose stride no progression of the
 * class hash serves (sample_lanes: a column of a matrix whose rows are not a multiple of
 * 2 KiB, such as n + 1 or n + 2 floats, or n = 1000), kept by whoever reads them: the
 * serial replay (c->lanes_memo), a worker (drop.c). Why: the same column one element
 * further (a loop along a row of columns: PolyBench's covariance, 4 bytes a step) moves
 * every lane's byte within its line, and only the lanes whose byte crosses into the next
 * line (or the previous one) change lines: about one lane a step instead of 32 classes.
 * The lanes are a function of the lanes' lines and the sampling (mask, index) alone: the
 * memo holds no cache state and needs no reset (lanes_memo_get). */
struct lanes_memo {
  uint64_t x;                  /* lane 0's byte */
  uint64_t stride;             /* bytes from lane to lane (a line or more); 0: empty */
  uint64_t cfg;                /* lanes_memo_cfg it was found under */
  uint8_t off[CC_WARP_SIZE];   /* lane l's byte within its line (0..127) */
  uint32_t lanes;              /* bit l: lane l's line is sampled */
};

struct cc_cache {
  /* What the producer's workers read while c's thread replays (drop.c: the device, the
   * kernel's shape, the sampling filter, drop_from), written at the kernel's begin and
   * the sampling switch only; then padding, then the replay's own state. Why apart: c's
   * thread writes its own fields at every record (records, the placement, L2's clock);
   * sharing a host line with these, each such write took the line from every worker's
   * cache and each worker's next read took it back (issue 15: the model's thread ran a
   * record 2-3x slower with 16 workers than alone). */
  struct cc_cache_device dev;
  /* the kernel */
  uint32_t grid[3];
  uint64_t ctas, per_sm_blocked;
  uint32_t warps_per_cta, resident, l1_bytes;
  uint32_t n_insns;
  /* set sampling (sample.c) */
  uint32_t sample_k;           /* this kernel's: 1 set in sample_k once sampling (1: never) */
  uint32_t sample_mask;        /* sample_k - 1: a line is sampled iff !(class & mask) */
  uint64_t sample_nibbles;     /* bit 4j..4j+3 set iff j mod sample_k == 0 (j < 16): the
                                  sampled lines of a group of 16 whose class offset is 0
                                  (gather.c sample_group) */
  uint64_t class_mul;          /* cc_cache_line_class's multiplier (0 for INDEX_MOD: the
                                  class is line & 15), for the quick path (cache.c) */
  uint64_t drop_from;          /* the first CTA (linear index) whose records all come after
                                  the sampling switch: workers may count their unsampled
                                  records (drop.c); UINT64_MAX until the switch. Written
                                  by c's thread, read by the workers: atomic */
  char pad_workers[128];       /* two host lines (the adjacent-line prefetcher pairs them) */
  uint32_t l1_cap_lines;       /* per SM, allocated */
  struct level *l1;            /* [dev.sms] */
  struct way *l1_ways;         /* the SMs' L1 ways, l1_cap_lines each */
  uint32_t *l1_pred;           /* the SMs' L1 way predictors, 1 << l1_pred_bits each */
  uint8_t *l1_touched;         /* the SMs' L1 touched sets, l1_cap_lines / l1 ways each */
  uint32_t l1_pred_bits;
  struct l1_memo *memo;        /* [L1_MEMOS x dev.sms]: the memos' storage (ml points into it) */
  struct memo_list *ml;        /* [dev.sms] */
  struct store_memo *smemo;    /* [dev.sms] */
  struct level l2;
  struct cc_cache_counts *insn;
  struct cc_cache_counts zero;
  uint64_t *sm_wavefronts;
  uint64_t *sm_waits;          /* [dev.sms][3]: the SM's requests waiting on L1, L2, DRAM
                                  (the latency is computed from them: exact in any order) */
  uint32_t jobs;               /* threads of the replay of this kernel */
  uint32_t jobs_next;          /* from the next kernel on (cc_cache_set_jobs) */
  struct cache_par *par;       /* the parallel replay's state (par.c), NULL: serial */
  struct cache_par *async;     /* the serial replay on one helper thread (par.c; jobs 2):
                                  cc_cache_access queues every record for it */
  uint8_t dram_unit[16];       /* sectors of a line one DRAM read brings in, by the mask
                                  of sectors missed (dram_units) */
  uint32_t last_cta[3];        /* the CTA of the last record and its placement: the */
  uint64_t last_linear;        /* records of a CTA come together, so the division of */
  uint32_t last_sm;            /* sm_of runs once per CTA, not once per record */
  int have_last;
  struct lanes_memo lanes_memo; /* the serial replay's (sample_lanes) */
  /* set sampling, the replay's side (sample.c) */
  cc_cache_quick_fn *quick;    /* the serial replay after the switch: cc_cache_access's
                                  quick path (AVX2 or portable); NULL otherwise */
  int memo_loads;              /* global loads use the L1 memo: L1 caches them, sectored */
  uint64_t records;            /* global and local records of the kernel so far */
  uint64_t switch_at;          /* the record where sampling starts (UINT64_MAX: never) */
  int sampling;                /* started: state-dependent counts of sampled lines go to samp */
  struct cc_cache_counts *samp;/* [n_insns]: the sampled lines' raw counts after the switch */
  uint64_t *req_after;         /* [n_insns]: load and atomic requests after the switch */
  uint64_t *sm_req;            /* [dev.sms]: the SM's requests after the switch (its
                                  waits: sample.c) */
  uint64_t evict_before;       /* L2 evictions before the switch */
  int scaled;                  /* cc_cache_sample_end ran (a second end of the kernel
                                  changes nothing) */
};

/* ---- between cache.c (the replay), state.c and par.c (the parallel replay) ---------------- */

/* The L1 side of one global or local record a (on SM sm, local base `base`): its lines
 * through sm's L1, its L1 counts into s->insn, the lines that reach L2 done at once
 * (s->out NULL) or queued (memos that read L2 state are then not used); returns the level
 * its wait reaches as far as known (REACH_NONE for stores; queued lines count REACH_L2:
 * the L2 side tells DRAM). A cut record (a->cut, while sampling, queued only): its
 * sampled lines alone, no whole-record counts (a worker did them). cache.c. */
enum level_reached cc_cache_replay_record(struct cc_cache *c, struct side *s,
                                          const struct cc_warp_access *a, uint32_t sm,
                                          uint64_t base);

/* Whether CTA indices x and y are the same, compared as an 8-byte and a 4-byte word (the
 * replay and the workers keep the placement of the last record's CTA). */
static inline int same_cta3(const uint32_t x[3], const uint32_t y[3])
{
  uint64_t x01, y01;
  memcpy(&x01, x, sizeof x01);
  memcpy(&y01, y, sizeof y01);
  return x01 == y01 && x[2] == y[2];
}

/* Gives lv `sets` sets of `ways` ways under index function `index`: its classes
 * (cc_cache_level_classes), its places (slots: classes x ceil(sets / classes)) and the
 * layout of no sampling (cc_cache_level_layout(lv, 1)). state.c. */
void cc_cache_level_shape(struct level *lv, uint32_t sets, uint32_t ways,
                          enum cc_cache_index index);

/* Places lv's sets for a replay of 1 set in k (k a power of two, at most lv->classes;
 * 1: not sampling): set w of class c at class_base[c] + w x class_step[c], where the K /
 * k sampled classes (c mod k = 0) take the first region = (K / k) x class_sets[0]
 * places, set w of the j-th of them at w x (K / k) + j, and the others the rest, set w
 * of the j-th of them at region + w x (K - K / k) + j. k = 1 is the order c + K w
 * (every class a sampled one). Why: a sampled replay looks up the sampled sets alone;
 * every 16th set of an array spread its lookups over all of the array's host memory (a
 * set of L2 is 256 bytes of ways and 512 of written bytes: every 4 KiB page touched,
 * and the hardware's prefetch of the neighbouring lines wasted), while in a region of
 * their own they are a sixteenth of it. Call it on an empty level (the places of the
 * lines it holds would move): cc_cache_begin_kernel, after level_reset. state.c. */
void cc_cache_level_layout(struct level *lv, uint32_t k);

/* Does request q in L2 level lv (owning q's set); returns 1 if it read DRAM. cache.c. */
int cc_cache_l2_apply(struct level *lv, const struct l2_req *q);

/* Counts a request of slot `slot` on SM sm that waited on level r (not REACH_NONE);
 * `counted`: a cut record's (a worker counted it among the requests after the switch,
 * drop.c), so only its wait is counted. */
void cc_cache_count_wait(struct cc_cache *c, uint32_t slot, uint32_t sm, enum level_reached r,
                         int counted);

/* The parallel replay (par.c): the state for c->jobs threads (made at the kernel's
 * begin, with its counts zeroed), one record queued (run in a batch when full), the
 * queued records run and every thread's counts added into c (at the kernel's end), the
 * threads stopped, and the bytes the parallel state holds (counted in the model's memory,
 * cc_cache_bytes). */
void cc_cache_par_begin(struct cc_cache *c);
void cc_cache_par_access(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                         uint64_t base);
void cc_cache_par_end(struct cc_cache *c);
/* The parallel replay's part of the switch to sampling: the batch queued so far run
 * (before c->sampling is set: its waits are exact), the threads' state-dependent counts
 * sent to their sampled arrays from here on; returns the L2 evictions the threads
 * counted so far (zeroed in them). */
uint64_t cc_cache_par_sample(struct cc_cache *c);
void cc_cache_par_free(struct cc_cache *c);
/* The threads' batch in flight waited for, the queued records dropped (a kernel begun
 * before the last one ended: its records no longer count). */
void cc_cache_par_abandon(struct cc_cache *c);
/* The serial replay on one helper (c->async): record a and its shared wavefronts queued
 * (the helper calls cc_cache_access_serial on each, in order); every queued record
 * replayed (before the caller reads or changes the model's counts: the workers' counts
 * added, the kernel's end). */
void cc_cache_async_queue(struct cc_cache *c, const struct cc_warp_access *a,
                          uint32_t shared_wavefronts);
void cc_cache_async_drain(struct cc_cache *c);
/* cc_cache_access on the calling thread (the serial replay, or the parallel one's
 * batches). cache.c. */
void cc_cache_access_serial(struct cc_cache *c, const struct cc_warp_access *a,
                            uint32_t shared_wavefronts);
size_t cc_cache_par_bytes(const struct cc_cache *c);

/* ---- a record's lines (gather.c) ---------------------------------------------------------- */

/* Bytes [off, off + len) of a sector as a bit mask (len <= 32). */
static inline uint32_t byte_bits(uint32_t off, uint32_t len)
{
  return len >= 32 ? FULL_SECTOR : ((1u << len) - 1u) << off;
}

/* e as the entry of the bytes [lo, hi), which lie in one line (lo < hi): its line, its
 * sectors and, when want_bytes, the bytes of each (inner sectors whole, the first and
 * last as [lo, hi) covers them); returns its sectors. Every gathering of a range is made
 * of these, a line at a time (gather.c). */
static inline uint32_t range_ent(struct ent *e, uint64_t lo, uint64_t hi, int want_bytes)
{
  uint64_t first = lo / CC_CACHE_SECTOR_BYTES, last = (hi - 1) / CC_CACHE_SECTOR_BYTES;
  uint32_t s0 = (uint32_t)(first % 4), s1 = (uint32_t)(last % 4);
  e->line = lo / CC_CACHE_LINE_BYTES;
  e->mask = (uint8_t)(((2u << s1) - 1u) & ~((1u << s0) - 1u));
  if (want_bytes) {
    for (uint32_t s = 0; s < 4; s++)
      e->bytes[s] = (e->mask & (1u << s)) ? FULL_SECTOR : 0;
    e->bytes[s0] = byte_bits((uint32_t)(lo % CC_CACHE_SECTOR_BYTES),
                             (uint32_t)((s0 == s1 ? hi : (first + 1) * CC_CACHE_SECTOR_BYTES) -
                                        lo));
    if (s1 != s0)
      e->bytes[s1] = byte_bits(0, (uint32_t)(hi - last * CC_CACHE_SECTOR_BYTES));
  }
  return s1 - s0 + 1;
}

/* g as the one entry of the bytes [lo, hi), which lie in one line (range_ent); the other
 * fields of g (want_bytes, key) are the caller's. */
static inline void gather_line_range(struct gather *g, uint64_t lo, uint64_t hi)
{
  g->n = 1;
  g->sectors = range_ent(&g->e[0], lo, hi, g->want_bytes);
  g->max_line = g->e[0].line;
}

/* The bytes a record of the range form (FORM_RANGE) covers from its first lane's: 32
 * lanes of `size` bytes one after the other (32 x size), or all at one address (a
 * broadcast: a uniform load such as x[j] in a loop, size). */
static inline uint64_t range_span(const struct cc_warp_access *a)
{
  uint64_t size = a->size_bytes ? a->size_bytes : 1;
  return a->addr[1] == a->addr[0] ? size : CC_WARP_SIZE * size;
}

/* The form of a's active lanes (addresses + base): RANGE (32 lanes on consecutive
 * elements: first and last sector), LANES (32 lanes a line or more apart in address
 * order, each in one sector, a stride of whole sectors: first sector, stride), STRIDED
 * (the same, lanes of a power-of-two size at multiples of it: first byte, stride) or
 * GENERAL. Either fast form
 * determines the record's lines and sectors, which gather builds without grouping; the
 * general form sorts the lanes' sectors and groups them (gather.c gather_general), and
 * gives the same entries (tests/cache/test_cache.c test_fast_paths). Inline: the first
 * cost of every record of the replay (the lanes' test aside). */
static inline struct form_key cc_cache_form_of(const struct cc_warp_access *a, uint64_t base)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t d = a->addr[1] - a->addr[0], top, lo = a->addr[0] + base;
  /* the fast forms need the lanes' bytes below 2^64 (no wrap to address 0) */
  if (a->active == 0xffffffffu && size <= CC_CACHE_SECTOR_BYTES &&
      cc_access_lanes_affine(a, d) && !__builtin_mul_overflow(d, (uint64_t)CC_WARP_SIZE, &top) &&
      !__builtin_add_overflow(lo, top ? top : size, &top)) { /* (a broadcast: lo + size) */
    if (d == size || d == 0)
      return (struct form_key){FORM_RANGE, lo / CC_CACHE_SECTOR_BYTES,
                               (lo + range_span(a) - 1) / CC_CACHE_SECTOR_BYTES};
    if (d >= CC_CACHE_LINE_BYTES && d < (1ull << 62) &&
        lo % CC_CACHE_SECTOR_BYTES + size <= CC_CACHE_SECTOR_BYTES &&
        d % CC_CACHE_SECTOR_BYTES == 0)
      return (struct form_key){FORM_LANES, lo / CC_CACHE_SECTOR_BYTES, d};
    /* lanes of a power-of-two size at multiples of it: none crosses a sector */
    if (d >= CC_CACHE_LINE_BYTES && d < (1ull << 62) && (size & (size - 1)) == 0 &&
        lo % size == 0 && d % size == 0)
      return (struct form_key){FORM_STRIDED, lo, d};
  }
  return (struct form_key){FORM_GENERAL, 0, 0};
}
/* The lines and sectors of a's active lanes in form k into g, in increasing line order
 * (stores and atomics: the bytes written per sector). */
void cc_cache_gather(const struct cc_warp_access *a, uint64_t base, struct form_key k,
                     struct gather *g);
/* As cc_cache_gather for a LANES or STRIDED form, of the lanes in `lanes` only (set
 * sampling; UINT32_MAX: cc_cache_gather's). */
void cc_cache_gather_lanes(const struct cc_warp_access *a, uint64_t base, struct form_key k,
                           uint32_t lanes, struct gather *g);
/* As cc_cache_gather for a RANGE form, of its sampled lines only (set sampling: the
 * gathering and cc_cache_sample_filter in one). */
void cc_cache_gather_range_sampled(const struct cc_cache *c, const struct cc_warp_access *a,
                                   uint64_t base, struct form_key k, struct gather *g);
/* A cut record's sampled lines (drop.c) where its active lanes are consecutive lanes on
 * consecutive elements (a run of the mask, lane l at the first's address + (l - first) x
 * size) within one sampled line: a range's lanes of that line (a row's load whose 128
 * bytes straddle two lines, one of them sampled). cc_cache_gather_sampled's entry (the
 * same line, sectors and bytes: a range's bytes are its lanes' union) without a step a
 * lane; returns 1 then, else 0 (g undefined). */
int cc_cache_gather_cut_range(const struct cc_cache *c, const struct cc_warp_access *a,
                              uint64_t base, struct gather *g);
/* A cut record's sampled lines (drop.c): cc_cache_gather's entries of a's active lanes,
 * which cc_cache_sample_filter would all keep, in one pass while each lane's bytes lie in
 * one sector of a sampled line and the lanes come in address order (a column's sampled
 * lanes); returns 1 then, else 0 (g undefined: the caller gathers and filters). */
int cc_cache_gather_sampled(const struct cc_cache *c, const struct cc_warp_access *a,
                            uint64_t base, struct gather *g);
/* While sampling, a GENERAL record (lanes in any order): returns its sectors, the
 * distinct ones its active lanes' bytes touch (cc_cache_gather's g->sectors), and puts in
 * g (unless NULL) the entries of its sampled lines only, what cc_cache_gather then
 * cc_cache_sample_filter leave. Why apart from them: lanes at random lines (a gather
 * through an index array) made cc_cache_gather sort all 32 to 64 pieces, to keep about
 * one line in 16; here the sectors are counted through a small filter (gather.c
 * distinct_sectors) and only the sampled pieces sorted. */
uint32_t cc_cache_gather_general_sampled(const struct cc_cache *c,
                                         const struct cc_warp_access *a, uint64_t base,
                                         struct gather *g);
/* While sampling, a GENERAL record: its sectors (*sectors) and whether a line of it is
 * sampled (1, 0), in one pass while its lanes' bytes come in address order; -1 otherwise
 * (the caller gathers). */
int cc_cache_sample_general(const struct cc_cache *c, const struct cc_warp_access *a,
                            uint64_t base, uint32_t *sectors);

/* ---- the sampled records' paths (quick.c; cache.c) -------------------------------------- */

/* The serial replay of global or local record a (SM sm, local base `base`) while
 * sampling, the general way: its form, the memos, sample_fast, its sampled lines
 * replayed. quick.c. */
void cc_cache_sample_slow(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                          uint64_t base);
/* cc_cache_sample_slow of global record a (base 0, not cut) whose form is the general
 * one (some lanes active, or 32 lanes not affine), without finding its form again or
 * testing memos that never hold it. quick.c. */
void cc_cache_sample_general_global(struct cc_cache *c, const struct cc_warp_access *a,
                                    uint32_t sm);
/* The serial replay of cut record a of 32 active lanes (a->cut, drop.c: its whole-record
 * counts and its request done by a worker) while sampling: cc_cache_sample_slow's
 * memos and sampled lines' replay, without the whole-record counts. quick.c. */
void cc_cache_sample_cut(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                         uint64_t base);
/* The quick path of a global record of 32 active lanes while the serial replay samples,
 * for this host (AVX2 or portable): cc_cache_access's c->quick. quick.c. */
cc_cache_quick_fn *cc_cache_quick_for_host(void);
/* While sampling, a record of form key touching a sampled line (whole-record counts
 * done; lanes: a column's sampled lanes): its sampled lines replayed and its wait
 * counted (a cut record's without its request: a worker counted it). cache.c. */
void cc_cache_sample_replay(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                            uint64_t base, struct form_key key, uint32_t lanes);
/* While sampling, global record a (SM sm, 32 active lanes, whole-record counts done)
 * whose lanes are the range of `bytes` bytes from lo within one sampled line (range_span:
 * 32 lanes one after the other, or a broadcast): what
 * cc_cache_sample_replay does for its RANGE form (replay_keyed's memo test and replay,
 * the one line gathered here, its wait counted), without the gathering's general way
 * (the quick path's sampled line). cache.c. */
void cc_cache_sample_line(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                          uint64_t lo, uint64_t bytes);
/* A load record of instruction slot `slot` on SM sm whose form key advances its SM's L1
 * memo (memo_advances: the caller tests it, and that L1 caches the record: memo_first's
 * tests): its lines replayed through the memo's ways, its counts into s->insn (and its
 * wavefronts when not sampling, s->exact NULL), the memo given key; returns the level
 * its wait reached. cache.c. */
enum level_reached cc_cache_memo_advance(struct cc_cache *c, const struct side *s,
                                         uint32_t slot, uint32_t sm, struct form_key key);
/* Forgets SM sm's L1 memos, their lines' LRU stamps brought up to date first (struct
 * memo_list: a record that touches the L1 otherwise, the sampling switch). cache.c. */
void cc_cache_memo_drop(struct cc_cache *c, uint32_t sm);
/* Global store a (line-per-lane form, SM sm) done through store memo m, if every way of m
 * still holds its line (counts into ic); returns 0 (nothing done) otherwise. cache.c. */
int cc_cache_store_memo_replay(struct cc_cache *c, const struct store_memo *m,
                               const struct cc_warp_access *a, uint32_t sm,
                               struct cc_cache_counts *ic);
/* While sampling: the lanes `lanes` of global store a written through store memo m's
 * ways, if each of them writes one sector of its own line, the lines increasing with the
 * lane (the order replay takes them in), and the memo's i-th way still holds the i-th
 * lane's line (a line lives in one way at most: the way a lookup would find; writes change
 * no tag): what gathering those lanes and replay do, without either. Serves a cut store
 * (drop.c; lanes: its active ones), whose CTA's other warps store into the same column of
 * lines, and a strided column's sampled lanes (quick.c: the same column a few bytes
 * further, which no memo key matches). The L2 hit sectors into a's slot's raw counts
 * (c->samp); when a has repeats (a->cut > 1), *again (0 on the call) the sectors each
 * would hit then, as repeat_hits counts them. Returns 0 (nothing done) otherwise.
 * cache.c. */
int cc_cache_store_lanes_replay(struct cc_cache *c, const struct store_memo *m,
                                const struct cc_warp_access *a, uint32_t lanes,
                                uint32_t *again);

/* ---- set sampling (sample.c) ------------------------------------------------------------ */

/* The kernel's sampling: sample_k from the device's request capped by the levels'
 * classes, the switch point, the arrays zeroed (from cc_cache_begin_kernel). */
void cc_cache_sample_begin(struct cc_cache *c);
/* Starts sampling (the record c->switch_at arrived): the parallel replay's batch run, the
 * evictions so far kept, the memos (which hold lines of every class) cleared, the
 * state-dependent counts sent to c->samp from here on, and (serial replay) the next CTA
 * published in c->drop_from for the workers (drop.c). */
void cc_cache_sample_start(struct cc_cache *c);
/* Keeps the entries of g whose line is sampled (g->sectors: theirs). */
void cc_cache_sample_filter(const struct cc_cache *c, struct gather *g);
/* At the kernel's end, after the dirty bytes at the end are counted: the figures that
 * depend on cache state = before the switch + sample_k x the sampled lines' after it;
 * waits estimated (sample.c says how). */
void cc_cache_sample_end(struct cc_cache *c);
/* Whether the line of L2 way tag `line` is in a sampled set (always, when not sampling). */
static inline int sampled_line(const struct cc_cache *c, uint64_t line)
{
  return !(cc_cache_line_class(c->dev.index, line) & c->sample_mask);
}

/* AVX2 copies of the hot loops, chosen at run time (__builtin_cpu_supports); every one
 * has a portable form, which -DCC_CACHE_NO_AVX2 selects on x86-64 too (to test it). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(CC_CACHE_NO_AVX2)
#define CC_CACHE_AVX2 1
#include <immintrin.h>
/* Bit l (l < 32) set iff x + l x inc < lim (unsigned, modulo 2^64), four lanes a step
 * (sample_lanes, where the host has AVX2: the comparison is signed, so both sides are
 * moved by 2^63). */
__attribute__((target("avx2"))) static inline uint32_t lanes_below_avx2(uint64_t x,
                                                                        uint64_t inc,
                                                                        uint64_t lim)
{
  typedef uint64_t quad __attribute__((vector_size(32)));
  typedef long long squad __attribute__((vector_size(32)));
  const uint64_t sign = 1ull << 63;
  quad v = {x ^ sign, (x + inc) ^ sign, (x + 2 * inc) ^ sign, (x + 3 * inc) ^ sign};
  quad step = {4 * inc, 4 * inc, 4 * inc, 4 * inc};
  squad top = {(long long)(lim ^ sign), (long long)(lim ^ sign), (long long)(lim ^ sign),
               (long long)(lim ^ sign)};
  uint32_t out = 0;
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    squad below = (squad)v < top; /* adding to x ^ 2^63 is adding to x: the sign moves */
    out |= (uint32_t)_mm256_movemask_pd((__m256d)below) << l;
    v += step;
  }
  return out;
}

/* Bits 0-3 set iff the 4 lines of `line` are sampled: their classes (cc_cache_line_class,
 * the hashed index) with no bit of the sample mask m (in each 64-bit lane) set. AVX2 has
 * no 64-bit multiplication: the class hash's low 64 bits are x_lo M_lo + ((x_hi M_lo +
 * x_lo M_hi) << 32), modulo 2^64. Inline: the callers' loops keep the constants. */
__attribute__((target("avx2"), always_inline)) static inline uint32_t lines4_sampled_avx2(
    __m256i line, __m256i m)
{
  const __m256i mlo = _mm256_set1_epi64x((long long)(CC_CACHE_CLASS_MUL & 0xffffffffu));
  const __m256i mhi = _mm256_set1_epi64x((long long)(CC_CACHE_CLASS_MUL >> 32));
  __m256i g = _mm256_srli_epi64(line, 4);
  __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(g, 32), mlo),
                                   _mm256_mul_epu32(g, mhi));
  __m256i prod = _mm256_add_epi64(_mm256_mul_epu32(g, mlo), _mm256_slli_epi64(cross, 32));
  __m256i cls = _mm256_xor_si256(_mm256_and_si256(line, _mm256_set1_epi64x(15)),
                                 _mm256_srli_epi64(prod, 60));
  __m256i hit = _mm256_cmpeq_epi64(_mm256_and_si256(cls, m), _mm256_setzero_si256());
  return (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(hit));
}

/* Bit l (l < 32) set iff the line of x + l x dx (x in units of 2^shift bytes over 128:
 * shift 7 for bytes, 2 for sectors) is sampled under the hashed index
 * (cc_cache_line_class, sampled iff !(class & mask)), four lanes a step: sample_lanes for
 * the lanes no progression of the hash serves (a row of n + 1 floats, a stride of whole
 * sectors but not of 16 lines). */
__attribute__((target("avx2"))) static inline uint32_t lines_sampled_avx2(uint64_t x, uint64_t dx,
                                                                          int shift,
                                                                          uint32_t mask)
{
  __m256i v = _mm256_set_epi64x((long long)(x + 3 * dx), (long long)(x + 2 * dx),
                                (long long)(x + dx), (long long)x);
  const __m256i step = _mm256_set1_epi64x((long long)(4 * dx)), m = _mm256_set1_epi64x(mask);
  uint32_t out = 0;
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    out |= lines4_sampled_avx2(_mm256_srli_epi64(v, shift), m) << l;
    v = _mm256_add_epi64(v, step);
  }
  return out;
}

/* Bit l set iff the line of byte addr[l] + base is sampled (the hashed index, as
 * lines_sampled_avx2), for the 32 lanes' addresses as they are: a gather's. */
__attribute__((target("avx2"))) static inline uint32_t addrs_sampled_avx2(const uint64_t *addr,
                                                                          uint64_t base,
                                                                          uint32_t mask)
{
  const __m256i b = _mm256_set1_epi64x((long long)base), m = _mm256_set1_epi64x(mask);
  uint32_t out = 0;
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    __m256i v = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(const void *)&addr[l]), b);
    out |= lines4_sampled_avx2(_mm256_srli_epi64(v, 7), m) << l;
  }
  return out;
}
#endif

/* Bit l set iff the line of byte x + l x stride is sampled (x + 31 stride below 2^64),
 * a class a lane: the lanes no progression of the class hash serves. */
static inline uint32_t lines_sampled(const struct cc_cache *c, uint64_t x, uint64_t stride)
{
  uint32_t out = 0;
#ifdef CC_CACHE_AVX2
  if (c->dev.index == CC_CACHE_INDEX_HASH && __builtin_cpu_supports("avx2"))
    return lines_sampled_avx2(x, stride, 7, c->sample_mask);
#endif
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    out |= (uint32_t)sampled_line(c, (x + l * stride) / CC_CACHE_LINE_BYTES) << l;
  return out;
}

/* The sampling a lanes memo's answer holds for: the sample mask and the index. */
static inline uint64_t lanes_memo_cfg(const struct cc_cache *c)
{
  return c->sample_mask | (uint64_t)c->dev.index << 32;
}

/* m filled for the lanes of byte x + l x stride, whose sampled lanes are `lanes`. */
static inline void lanes_memo_fill(struct lanes_memo *m, const struct cc_cache *c, uint64_t x,
                                   uint64_t stride, uint32_t lanes)
{
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    m->off[l] = (uint8_t)((x + l * stride) % CC_CACHE_LINE_BYTES);
  m->x = x;
  m->stride = stride;
  m->cfg = lanes_memo_cfg(c);
  m->lanes = lanes;
}

/* Adds `add` (1..255) to every offset of off (0..127), keeps the sums modulo 128, and
 * returns the lanes whose sum reached 128 (bit l: lane l), one byte a lane: with AVX2
 * where the host has it (an addition, a byte mask, an and), eight lanes a 64-bit word
 * otherwise (no byte's sum passes 255: no carry between bytes; the top bits gathered by
 * one multiplication, bit 8j + 7 to bit 56 + j, no two terms at one bit). */
#ifdef CC_CACHE_AVX2
__attribute__((target("avx2"))) static inline uint32_t offsets_add_avx2(uint8_t *off,
                                                                        uint32_t add)
{
  __m256i v = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)(const void *)off),
                              _mm256_set1_epi8((char)add));
  _mm256_storeu_si256((__m256i *)(void *)off, _mm256_and_si256(v, _mm256_set1_epi8(0x7f)));
  return (uint32_t)_mm256_movemask_epi8(v);
}
#endif
static inline uint32_t offsets_add(uint8_t *off, uint32_t add)
{
  const uint64_t ones = 0x0101010101010101ull;
  uint32_t out = 0;
#ifdef CC_CACHE_AVX2
  if (__builtin_cpu_supports("avx2"))
    return offsets_add_avx2(off, add);
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ /* byte l of a word is not its bits 8l.. */
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++) {
    uint32_t sum = off[l] + add;
    out |= (sum >> 7) << l;
    off[l] = (uint8_t)(sum % CC_CACHE_LINE_BYTES);
  }
  return out;
#endif
  for (uint32_t i = 0; i < CC_WARP_SIZE / 8; i++) {
    uint64_t w;
    memcpy(&w, off + 8 * i, sizeof w);
    w += add * ones;
    out |= (uint32_t)((((w & 0x80 * ones) >> 7) * 0x0102040810204080ull) >> 56) << (8 * i);
    w &= 0x7f * ones;
    memcpy(off + 8 * i, &w, sizeof w);
  }
  return out;
}

/* The sampled lanes of bytes x + l x stride (x + 31 stride below 2^64) through memo m:
 * where m holds the same stride under the same sampling and x is less than a line from
 * m's, each lane's offset within its line moves by the difference, and the lanes whose
 * offset leaves 0..127 take the next line (or the previous one), whose class is found;
 * the others keep theirs. Otherwise every lane's class (lines_sampled), m refilled. */
static inline uint32_t lanes_memo_get(const struct cc_cache *c, struct lanes_memo *m,
                                      uint64_t x, uint64_t stride)
{
  uint64_t d = x - m->x;
  uint32_t cross;
  if (m->stride != stride || m->cfg != lanes_memo_cfg(c) ||
      (d >= CC_CACHE_LINE_BYTES && -d >= CC_CACHE_LINE_BYTES)) {
    lanes_memo_fill(m, c, x, stride, lines_sampled(c, x, stride));
    return m->lanes;
  }
  if (d == 0)
    return m->lanes;
  /* up by d: crossed iff offset + d > 127; down by -d: offset + 128 - (-d) is the new
   * offset + 128 unless it crossed, i.e. it crossed iff that sum is below 128 */
  if (d < CC_CACHE_LINE_BYTES)
    cross = offsets_add(m->off, (uint32_t)d);
  else
    cross = ~offsets_add(m->off, (uint32_t)(CC_CACHE_LINE_BYTES + d));
  for (; cross; cross &= cross - 1) {
    uint32_t l = (uint32_t)__builtin_ctz(cross);
    uint32_t in = (uint32_t)sampled_line(c, (x + l * stride) / CC_CACHE_LINE_BYTES);
    m->lanes = (m->lanes & ~(1u << l)) | in << l;
  }
  m->x = x;
  return m->lanes;
}

/* The lanes (bit l: lane l) whose line is sampled, of a record in the line-per-lane form
 * k (LANES: lane l's sector k.a + l x k.b / 32; STRIDED: its byte k.a + l x k.b). Where
 * the stride is whole groups of 16 lines (2 KiB: the column of a matrix of a power-of-two width), every lane's line has the same
 * place j in its group and the groups advance by a constant, so the class's hash does
 * too: an addition a lane, no multiplication. Other strides: a class a lane, or through
 * memo m (lanes_memo_get) where the caller keeps one (NULL: none). */
static inline uint32_t sample_lanes(const struct cc_cache *c, struct lanes_memo *m,
                                    struct form_key k)
{
  uint64_t step = k.b / CC_CACHE_SECTOR_BYTES, line0 = k.a / 4;
  uint64_t x = k.form == FORM_STRIDED ? k.a : k.a * CC_CACHE_SECTOR_BYTES;
  uint32_t mask = c->sample_mask, out = 0;
  if (mask == 0) /* not sampling: every lane */
    return UINT32_MAX;
  if (k.form == FORM_LANES && step % 64 == 0) {
    /* lane l is sampled iff bits 60 .. 60 + log2(k) - 1 of its hash h_l = h_0 + l x inc
     * are the low log2(k) bits of j: shifted left by 4 - log2(k) they are the top bits of
     * H_l = h_l << (4 - log2 k), itself a progression, and the test is that x_l = H_l - (j
     * << 64 - log2 k) is below 2^64 / k: a subtraction, a comparison and an add-with-carry
     * a lane (from lane 31 down, out = 2 out + (x < lim)) */
    uint32_t bits = (uint32_t)__builtin_ctz(mask + 1), up = 4 - bits;
    uint64_t j = line0 & 15, inc = (step / 64 * CC_CACHE_CLASS_MUL) << up;
    uint64_t lim = UINT64_MAX / (mask + 1) + 1, h;
    if (c->dev.index == CC_CACHE_INDEX_MOD) /* class = j, every lane's */
      return j & mask ? 0 : UINT32_MAX;
    h = (((line0 >> 4) * CC_CACHE_CLASS_MUL) << up) - (j << (64 - bits));
#ifdef CC_CACHE_AVX2
    if (__builtin_cpu_supports("avx2"))
      return lanes_below_avx2(h, inc, lim);
#endif
    h += 31 * inc;
    for (uint32_t l = 0; l < CC_WARP_SIZE; l++, h -= inc)
      out = 2 * out + (h < lim);
    return out;
  }
  return m ? lanes_memo_get(c, m, x, k.b) : lines_sampled(c, x, k.b);
}

/* Whether a record in fast form k (RANGE, LANES or STRIDED) touches a sampled line;
 * *sectors: the record's sectors, *lanes: a line-per-lane form's sampled lanes (through
 * memo m where the caller keeps one: sample_lanes). */
static inline int sample_touches(const struct cc_cache *c, struct lanes_memo *m,
                                 struct form_key k, uint32_t *sectors, uint32_t *lanes)
{
  int any = 0;
  if (k.form == FORM_RANGE) { /* sectors a..b: a few lines */
    *sectors = (uint32_t)(k.b - k.a + 1);
    for (uint64_t line = k.a / 4; line <= k.b / 4; line++)
      any |= sampled_line(c, line);
    return any;
  }
  *sectors = CC_WARP_SIZE;
  *lanes = sample_lanes(c, m, k);
  return *lanes != 0;
}

/* Counts what a record of `sectors` sectors costs whatever the caches hold into ex (its
 * slot's) and SM sm's wavefronts: the whole record's counts while sampling (replay
 * counts them where it does not sample). */
static inline uint32_t whole_counts(const struct cc_cache *c, struct cc_cache_counts *ex,
                                    const struct cc_warp_access *a, uint32_t sectors)
{
  uint32_t wavefronts = (sectors + 3) / 4;
  ex->l1_wavefronts += wavefronts;
  if (a->kind == CC_ACCESS_STORE)
    ex->l2_sectors_write += sectors;
  else if (a->kind != CC_ACCESS_LOAD)
    ex->l2_sectors_atomic += sectors;
  else if (a->space != CC_SPACE_LOCAL && !c->dev.l1_global_loads)
    ex->l2_sectors_read += sectors; /* L1 does not cache them: every sector goes to L2 */
  return wavefronts;
}

/* whole_counts, and the record's wavefronts on its SM sm (into sm_wavefronts[sm]: a
 * side's, struct side). */
static inline void side_whole(const struct cc_cache *c, struct cc_cache_counts *ex,
                              uint64_t *sm_wavefronts, const struct cc_warp_access *a,
                              uint32_t sm, uint32_t sectors)
{
  sm_wavefronts[sm] += whole_counts(c, ex, a, sectors);
}

/* side_whole into the model's own wavefronts (the serial replay). */
static inline void sample_whole(struct cc_cache *c, struct cc_cache_counts *ex,
                                const struct cc_warp_access *a, uint32_t sm,
                                uint32_t sectors)
{
  side_whole(c, ex, c->sm_wavefronts, a, sm, sectors);
}

/* While sampling: whether record a (form key) touches a sampled line, and if it does not,
 * its whole-record counts (into ex, and its wavefronts into sm_wavefronts[sm]): the path
 * of most records while sampling (form_of, a class or 32, a few counts). *lanes: a
 * line-per-lane form's sampled lanes (through memo m, if not NULL: sample_lanes). A
 * record that touches one has its whole-record counts done here too (fast forms) or by
 * replay_keyed (the general form, from its gathering). */
static inline int side_fast(struct cc_cache *c, struct lanes_memo *m,
                            struct cc_cache_counts *ex, uint64_t *sm_wavefronts,
                            const struct cc_warp_access *a, uint64_t base, uint32_t sm,
                            struct form_key key, uint32_t *lanes)
{
  uint32_t sectors;
  int touches;
  if (key.form == FORM_GENERAL) {
    if (cc_cache_sample_general(c, a, base, &sectors) != 0)
      return 1;
    touches = 0;
  } else {
    touches = sample_touches(c, m, key, &sectors, lanes);
  }
  side_whole(c, ex, sm_wavefronts, a, sm, sectors);
  return touches;
}

/* side_fast into the model's own wavefronts, through its lanes memo (the serial replay). */
static inline int sample_fast(struct cc_cache *c, struct cc_cache_counts *ex,
                              const struct cc_warp_access *a, uint64_t base, uint32_t sm,
                              struct form_key key, uint32_t *lanes)
{
  return side_fast(c, &c->lanes_memo, ex, c->sm_wavefronts, a, base, sm, key, lanes);
}

/* The SM of record a's CTA and, for local records, its warp's local area (*base; 0 for
 * other spaces), computed without the placement memo (any thread). cache.c. */
void cc_cache_locate(const struct cc_cache *c, const struct cc_warp_access *a, uint32_t *sm,
                     uint64_t *base, uint64_t *linear);

/* Forgets memo (a record changed its SM's L1). */
static inline void memo_clear(struct l1_memo *m)
{
  m->n = 0;
  m->key.form = FORM_GENERAL;
}

/* Records ml's order as the one its memos' lines' LRU stamps follow (struct memo_list). */
static inline void memo_stamped(struct memo_list *ml)
{
  for (uint32_t k = 0; k < L1_MEMOS; k++)
    ml->stamped[k] = ml->e[k].m;
}

/* Forgets SM sm's L1 memos, whose stamps need no flush (a new kernel: its L1 is emptied;
 * else cache.c cc_cache_memo_drop). */
static inline void memo_reset(struct cc_cache *c, uint32_t sm)
{
  struct memo_list *ml = &c->ml[sm];
  for (uint32_t i = 0; i < L1_MEMOS; i++)
    memo_clear(ml->e[i].m);
  memo_stamped(ml);
}

/* SM sm's L1 memo of the last load record replayed (struct memo_list). */
static inline struct l1_memo *memo_of(const struct cc_cache *c, uint32_t sm)
{
  return c->ml[sm].e[0].m;
}

/* Moves ml's memo i to the front (a record read its lines, which are now the most
 * recent); returns it. */
static inline struct l1_memo *memo_front(struct memo_list *ml, uint32_t i)
{
  struct memo_entry moved = ml->e[0];
  ml->e[0] = ml->e[i];
  for (uint32_t k = 1; k <= i; k++) { /* swaps, not a shift: GCC made that a memmove call */
    struct memo_entry t = ml->e[k];
    ml->e[k] = moved;
    moved = t;
  }
  return ml->e[0].m;
}

static inline int same_key(struct form_key x, struct form_key y)
{
  return x.form == y.form && x.a == y.a && x.b == y.b;
}

/* SM sm's L1 memo whose fast form is key (a load L1 caches, in that form, hits every
 * sector of it), moved to the front; NULL when none is (or key is FORM_GENERAL). */
static inline struct l1_memo *memo_find(struct cc_cache *c, uint32_t sm, struct form_key key)
{
  struct memo_list *ml = &c->ml[sm];
  if (key.form == FORM_GENERAL)
    return NULL;
  for (uint32_t i = 0; i < L1_MEMOS; i++)
    if (ml->e[i].key_a == key.a && same_key(ml->e[i].m->key, key))
      return memo_front(ml, i);
  return NULL;
}

/* SM sm's L1 memo that a load of form key advances (memo_advances), moved to the front;
 * NULL when none does. */
static inline struct l1_memo *memo_advancing(struct cc_cache *c, uint32_t sm,
                                             struct form_key key)
{
  struct memo_list *ml = &c->ml[sm];
  const uint64_t per_line = CC_CACHE_LINE_BYTES / CC_CACHE_SECTOR_BYTES;
  for (uint32_t i = 0; i < L1_MEMOS; i++) /* (memo_advances: the same line as key's) */
    if (ml->e[i].key_a / per_line == key.a / per_line && memo_advances(ml->e[i].m, key))
      return memo_front(ml, i);
  return NULL;
}

#endif
