/* The cache model: L1 per SM, L2 and DRAM over a warp access stream. See cache.h.
 *
 * Rules, and where each comes from:
 *   - Lines of 128 bytes, sectors of 32: the unit of tag and of transfer between L1 and
 *     L2 on Volta and later (Nsight Compute Kernel Profiling Guide, "Memory Tables": "a
 *     cache line is four sectors"; NVIDIA forum, Greg Smith: "the L1 and L2 cache line
 *     size is 128 bytes composed of 4 x 32B sectors"). An L1 miss fetches only the missing
 *     sectors (sectored fill); cc2.x fetches whole 128-byte lines (CUDA C Programming
 *     Guide, compute capability 2.x, "Global Memory": cached loads are 128-byte
 *     transactions), as `l1_whole_lines`.
 *   - Loads allocate in L1 where the architecture caches global loads there: sm_70 and
 *     later, and cc2.x unless -dlcm=cg (`l1_global_loads`); on cc3.x..sm_6x global loads
 *     are cached in L2 only by default (Programming Guide, 3.x and 5.x "Global Memory":
 *     L1 caching of global loads is opt-in), local memory in L1 everywhere.
 *   - Global stores write through to L2 and do not allocate in L1; a line already in L1
 *     keeps its sectors (updated in place; its LRU age is not refreshed). Sources: Programming Guide, compute capability 2.x:
 *     global stores go to L2 (the L1 line is invalidated); for sm_70 and later Jia et al.,
 *     "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking" (2018), the L1
 *     data cache is write-through for global memory; the check against Nsight Compute's
 *     lts__t_sectors_srcunit_tex_op_write (scripts/gpu-cache-check.sh) tests it: every
 *     store sector must appear there. Local stores also write through, and allocate
 *     (spilled registers are read back soon; assumption).
 *   - Atomics and reductions are performed in L2 (Programming Guide, "Atomic Functions";
 *     Nsight Compute counts them as lts ..._op_atom/_op_red); L1 is not involved.
 *   - L2: write-back, write-allocate without a DRAM read: a store records which bytes of a
 *     sector it wrote; a sector wholly written becomes valid; a read of a sector not valid
 *     reads it from DRAM (merging what was written). Dirty sectors go to DRAM, 32 bytes
 *     each, when their line is evicted; those dirty at the kernel's end stay in L2 and
 *     are counted apart (l2_dirty_bytes_at_end), not as DRAM writes: on the H100 Nsight
 *     Compute measures 0 DRAM bytes written for kernels whose footprint fits L2
 *     (bench/results/cache-h100-2026-11-25.md, the "w/o end" column).
 *   - DRAM reads come in units of dram_access_bytes (device.c): a miss of one sector
 *     reads its aligned unit (the H100: 64 bytes, a sector pair; measured: a read of one
 *     float per 128-byte line costs 64 DRAM bytes, strided_copy_stride32: 4.20 MB for
 *     65536 sectors), and every sector of the unit becomes valid in L2, so a later read
 *     of the neighbour hits. Evidence for the fill: the row-per-thread kernels (gemv_rows,
 *     row_sums_thread_per_row, row_sums_thread_4096, gesummv_rows) read sector s of a
 *     row and, 8 steps later, sector s + 1 in a separate request; their DRAM reads
 *     equal the footprint (4.20 MB for 4 MiB of A, 268.47 MB for 256 MiB), where an
 *     unfilled neighbour would double them. Write-backs are 32 bytes a dirty sector, with
 *     no read for a whole one (the H100: bench/cache_probe's st_w8_1m writes 29.6 MB of
 *     single dirty sectors and reads nothing); partly written ones, and what leaves L2
 *     before an eviction: the write policy (below, "write policy").
 *   - Replacement: LRU per set (NVIDIA does not publish its policies). Set index: the
 *     line number folded with its higher bits (set_of; GPUs hash set indices: with a plain
 *     modulo a warp reading 32 rows 16 KiB apart would fall into a few sets and thrash,
 *     which the H200's row-per-thread kernels do not: issue 12), or the plain modulo for
 *     tests. A record's lines are replayed in increasing order.
 *   - L2 as one array of the device's size: the H100/H200's L2 is two partitions whose
 *     far half an SM reaches through the partition crossbar; lts__t_sectors_srcunit_tex
 *     counts each L1 miss once whichever partition serves it, so the sector counts do not
 *     depend on the split. Not modelled: a line read by SMs of both halves may be held in
 *     both (less capacity for shared data than 50 MB), so footprints between 25 and 50 MB
 *     may reach DRAM more than predicted.
 *   - CTA placement: cache.h's enum cc_cache_dispatch; the records of a CTA go to its
 *     SM's L1. The emulator runs CTAs one after another: on the GPU about SMs x resident
 *     CTAs run at once, so L2 sees other interleavings; reuse within a CTA and footprints
 *     that fit in L2 are not affected by the order, reuse across CTAs at distances near
 *     the L2's size may be.
 *   - Local memory: each warp's local area lies at its own address, one per SM and
 *     residency slot (the slot is reused by the SM's later CTAs, as local memory is
 *     allocated per resident thread, not per CTA). */
#include "cache/cache_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* A record gathered into lines, ready to be replayed. */
struct pending {
  struct gather g;
  int memo_hit;                /* the SM's L1 memo holds g (g itself left ungathered) */
  uint32_t way[MAX_ENTS];      /* stores: the L2 way each line of g went to; fast loads:
                                  the L1 way (for the L1 memo: memo_advance) */
  uint32_t slot, sm;
  enum cc_access_kind kind;
  enum cc_space space;
};

/* ---- placement ------------------------------------------------------------------------ */

static uint64_t cta_linear(const struct cc_cache *c, const uint32_t cta[3])
{
  return cta[0] + (uint64_t)c->grid[0] * (cta[1] + (uint64_t)c->grid[1] * cta[2]);
}

static uint32_t sm_of(const struct cc_cache *c, uint64_t cta)
{
  if (c->dev.dispatch == CC_CACHE_DISPATCH_BLOCKED)
    return (uint32_t)(cta / c->per_sm_blocked % c->dev.sms);
  return (uint32_t)(cta % c->dev.sms);
}

/* The k-th CTA an SM receives (0, 1, ...): the order its CTAs arrive in. */
static uint64_t nth_on_sm(const struct cc_cache *c, uint64_t cta)
{
  return c->dev.dispatch == CC_CACHE_DISPATCH_BLOCKED ? cta % c->per_sm_blocked
                                                      : cta / c->dev.sms;
}

/* The address of a warp's local area: one per SM and residency slot. */
static uint64_t local_base(const struct cc_cache *c, uint64_t cta, uint32_t sm, uint32_t warp)
{
  uint64_t slot = nth_on_sm(c, cta) % c->resident * c->warps_per_cta + warp;
  uint64_t region = (uint64_t)sm * MAX_WARPS_PER_SM * 32 + slot;
  return LOCAL_BASE + (region << LOCAL_REGION_SHIFT);
}

/* ---- the arrays ------------------------------------------------------------------------- */

/* Ranks set `base` (its first way's index) of lv: its stamps become 1..ways in LRU
 * order (empty ways stay 0). */
static void rank_set(struct level *lv, size_t base)
{
  struct way *set = &lv->w[base];
  uint32_t rank[64];
  for (uint32_t i = 0; i < lv->ways; i++) {
    rank[i] = set[i].stamp ? 1 : 0;
    for (uint32_t j = 0; j < lv->ways && rank[i]; j++)
      rank[i] += set[j].stamp && set[j].stamp < set[i].stamp;
  }
  for (uint32_t i = 0; i < lv->ways; i++)
    set[i].stamp = rank[i];
}

/* Before lv's clock wraps: each of its part's sets (both regions of the layout: the
 * sets of one clock) has its stamps ranked, which keeps every set's LRU order; the
 * clock restarts above them. */
static void renumber(struct level *lv)
{
  for (int r = 0; r < 2; r++) {
    size_t end = (size_t)part_first(lv, lv->n_parts, lv->part_id + 1, r) * lv->ways;
    for (size_t base = (size_t)part_first(lv, lv->n_parts, lv->part_id, r) * lv->ways;
         base < end; base += lv->ways)
      rank_set(lv, base);
  }
  lv->clock = lv->ways;
}

/* Marks way w of lv used now. */
static inline void touch(struct level *lv, struct way *w)
{
  if (lv->clock == UINT32_MAX)
    renumber(lv);
  w->stamp = ++lv->clock;
}

/* The least recently used way of a set of `ways` (an empty one first: stamp 0). Apart
 * from lookup: misses only. */
static __attribute__((noinline)) struct way *victim_of(struct way *set, uint32_t ways)
{
  struct way *victim = set;
  for (uint32_t i = 1; i < ways; i++)
    if (set[i].stamp < victim->stamp)
      victim = &set[i];
  return victim;
}

/* The way of lv holding line, or the victim to replace (the least recently used, an empty
 * way first) with *hit 0, by scanning line's set: the 4 ways of an L1 set compared
 * without a loop; a larger set's scan stops at its first empty way, which is the victim:
 * within a kernel ways fill in order and never empty again (no invalidation), so no
 * later way holds a line. */
static inline __attribute__((always_inline)) struct way *scan(const struct level *lv,
                                                              uint64_t line, int *hit)
{
  struct way *set = &lv->w[(size_t)set_of(lv, line) * lv->ways];
  uint64_t tag = tag_of(line);
  if (lv->ways == 4) {
    int i = set[0].tag == tag ? 0 : set[1].tag == tag ? 1 : set[2].tag == tag ? 2
            : set[3].tag == tag ? 3 : -1;
    if (i >= 0) {
      *hit = 1;
      return &set[i];
    }
  } else {
    for (uint32_t i = 0; i < lv->ways; i++) {
      if (set[i].tag == tag) {
        *hit = 1;
        return &set[i];
      }
      if (set[i].tag == EMPTY_TAG) {
        *hit = 0;
        return &set[i];
      }
    }
  }
  *hit = 0;
  return victim_of(set, lv->ways);
}

/* As scan, first trying the way the predictor remembers for line's hash (the way this
 * hash last found): a line lives in one way of its set at most, so a way whose tag is
 * line is the way scan would find, and the result is the same. The hot path of the
 * replay (every line of every record): a record re-reading the lines of the warp's
 * previous record, or of the other warps of its CTA, hits without hashing the set index
 * or scanning. The predictor is used only while lookups find their lines (lv->hot): a
 * stream of new lines (a copy) would only add a host memory access to each miss. */
static inline __attribute__((always_inline)) struct way *lookup(struct level *lv,
                                                                 uint64_t line, int *hit)
{
  uint32_t *p = &lv->pred[(line * PRED_MUL) >> lv->pred_shift];
  struct way *w;
  if (lv->hot) {
    w = &lv->w[*p];
    if (w->tag == tag_of(line)) {
      *hit = 1;
      return w;
    }
  }
  w = scan(lv, line, hit);
  lv->hot = *hit;
  if (*hit)
    *p = (uint32_t)(w - lv->w);
  return w;
}

/* Sectors set in a 4-bit mask (a table: no library call without a popcount instruction). */
static inline uint32_t popc4(uint8_t m)
{
  static const uint8_t n[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
  return n[m & 15];
}

/* ---- L2's policy: fill, write, write-back ------------------------------------------------
 * The functions from here to cc_cache_l2_apply are the whole of what L2 does with a line
 * (the rules at the top of this file); lv is the L2 level (or a thread's part of it,
 * par.c), its counts lv->insn. Each works within one set (the parallel replay needs it).
 *
 * Write policy (the H100's L2: device.c's l2_partial_ways, l2_dirty_ways, in lv as
 * partial_ways, dirty_ways). Measured with the probes of bench/cache_probe
 * (bench/results/cache-h100-2026-11-27-probes-run.md; the figures in device.c):
 *   - a partly written sector (dirty, not valid: some of its bytes neither written nor
 *     read) that reaches DRAM is read-modify-written, 32 bytes read and 32 written; a
 *     whole dirty sector is written alone (32 bytes, no read);
 *   - at most l2_partial_ways lines of a set hold partly written sectors: a line that gets
 *     its first one beyond that sends the partly written sectors of the set's least
 *     recently used other such line to DRAM (read-modify-write; they leave L2);
 *   - at most l2_dirty_ways lines of a set are dirty: a line that becomes dirty beyond
 *     that writes the set's least recently used other dirty line back (it stays, clean).
 * 0 turns a limit off (every device but sm_90's, not measured); l2_partial_ways 0 also
 * turns the read-modify-write off (partial sectors written alone, as before). */

/* Sectors of L2 way w that are written partly. */
static inline uint8_t partial_of(const struct way *w)
{
  return w->dirty & (uint8_t)~w->valid;
}

/* The set of way index i of level lv (i / ways by one multiplication: Lemire's fastdiv,
 * exact for 32-bit i; way indices are 32-bit throughout, as the way predictor's entries). */
static inline uint32_t set_of_way(const struct level *lv, size_t i)
{
  return (uint32_t)(((unsigned __int128)lv->way_magic * (uint32_t)i) >> 64);
}

/* Puts line into way w of lv (a miss's victim), marking w's set touched when w was empty:
 * a set's first fill is of an empty way (ways fill in order), so every set holding a
 * line is marked, and begin_kernel empties the marked sets alone (state.c level_reset).
 * Misses only: at most `ways` marks a set a kernel. */
static inline void fill(struct level *lv, struct way *w, uint64_t line)
{
  if (w->tag == EMPTY_TAG)
    lv->touched[set_of_way(lv, (size_t)(w - lv->w))] = 1;
  w->tag = tag_of(line);
}

/* Brings way w's bits in its set's masks of dirty and partly written ways up to date
 * (after any change of its dirty or valid sectors). */
static inline void mark(struct level *lv, const struct way *w)
{
  size_t i = (size_t)(w - lv->w);
  uint32_t set = set_of_way(lv, i);
  uint64_t bit = 1ull << (i - (size_t)set * lv->ways);
  lv->set_dirty[set] = w->dirty ? lv->set_dirty[set] | bit : lv->set_dirty[set] & ~bit;
  lv->set_partial[set] = partial_of(w) ? lv->set_partial[set] | bit
                                       : lv->set_partial[set] & ~bit;
}

/* Writes L2 way w's dirty sectors `sectors` to DRAM, 32 bytes each, charged to their
 * writers; a partly written one (with the write policy) is read first, 32 bytes, and its
 * bytes leave L2. */
static void write_sectors(struct level *lv, struct way *w, uint8_t sectors)
{
  size_t i = (size_t)(w - lv->w);
  uint8_t rmw = lv->partial_ways ? sectors & partial_of(w) : 0;
  for (uint32_t s = 0; s < 4; s++) {
    uint32_t slot = lv->part[i].writer[s];
    if (!(sectors & w->dirty & (1u << s)))
      continue;
    if (slot < lv->n_insns) {
      lv->insn[slot].dram_bytes_written += CC_CACHE_SECTOR_BYTES;
      lv->insn[slot].dram_bytes_read += rmw & (1u << s) ? CC_CACHE_SECTOR_BYTES : 0;
    }
    if (rmw & (1u << s))
      lv->part[i].bytes[s] = 0;
  }
  w->dirty &= (uint8_t)~sectors;
  mark(lv, w);
}

/* Writes L2 way w's dirty sectors to DRAM (write_sectors). */
static void write_back(struct level *lv, struct way *w)
{
  write_sectors(lv, w, w->dirty);
}

/* Within way w's set, the least recently used other way holding a line that is dirty
 * (partial 0) or has partly written sectors (partial 1), if at least `limit` such ways
 * exist besides w; NULL otherwise. */
static struct way *over_limit(struct level *lv, struct way *w, uint32_t limit, int partial)
{
  size_t i = (size_t)(w - lv->w);
  uint32_t set = set_of_way(lv, i);
  size_t base = (size_t)set * lv->ways;
  uint64_t m = (partial ? lv->set_partial : lv->set_dirty)[set] & ~(1ull << (i - base));
  struct way *lru = NULL;
  uint32_t n = 0;
  for (uint64_t t = m; t && n < limit; t &= t - 1) /* no library call for a popcount */
    n++;
  if (n < limit)
    return NULL;
  for (; m; m &= m - 1) { /* stamps differ: the one least recently used */
    struct way *o = &lv->w[base + (uint32_t)__builtin_ctzll(m)];
    if (!lru || o->stamp < lru->stamp)
      lru = o;
  }
  return lru;
}

/* The write policy after a store into way w, which held dirty sectors `was_dirty` and
 * partly written ones `was_partial` before it. */
static void write_policy(struct level *lv, struct way *w, uint8_t was_dirty,
                         uint8_t was_partial)
{
  struct way *o;
  if (lv->partial_ways && !was_partial && partial_of(w) &&
      (o = over_limit(lv, w, lv->partial_ways, 1)))
    write_sectors(lv, o, partial_of(o));
  if (lv->dirty_ways && !was_dirty && w->dirty &&
      (o = over_limit(lv, w, lv->dirty_ways, 0)))
    write_back(lv, o);
}

/* The L2 way holding line, allocated (the victim written back) when absent. */
static inline __attribute__((always_inline)) struct way *l2_line(struct level *lv,
                                                                  uint64_t line)
{
  int hit;
  struct way *w = lookup(lv, line, &hit);
  if (!hit) {
    if (w->dirty)
      write_back(lv, w);
    lv->evictions += w->tag != EMPTY_TAG;
    fill(lv, w, line);
    w->valid = 0; /* dirty is 0 (written back): the set's masks hold no bit of w */
    if (w->bytes_kept)
      memset(lv->part[w - lv->w].bytes, 0, sizeof lv->part[0].bytes);
    w->bytes_kept = 0;
  }
  touch(lv, w);
  return w;
}

/* Reads sectors `mask` of line into L2 for instruction slot: the DRAM units of the ones
 * not valid are read whole (dram_unit), and every sector of them becomes valid (bytes
 * already written merged; a sector valid before is read again: the unit is the access);
 * returns 1 if DRAM was read. */
static int l2_read(struct level *lv, uint64_t line, uint8_t mask, uint32_t slot)
{
  struct way *w = l2_line(lv, line);
  struct cc_cache_counts *ic = &lv->insn[slot];
  uint8_t missing = mask & (uint8_t)~w->valid, fetched, partly;
  ic->l2_hit_sectors += popc4(mask & w->valid);
  if (!missing)
    return 0;
  fetched = lv->dram_unit[missing];
  ic->dram_bytes_read += (uint64_t)popc4(fetched) * CC_CACHE_SECTOR_BYTES;
  if (w->bytes_kept) /* a valid sector's bytes are 0: only the fetched ones to clear */
    for (uint32_t s = 0; s < 4; s++)
      if (fetched & (1u << s))
        lv->part[w - lv->w].bytes[s] = 0;
  partly = partial_of(w);
  w->valid |= fetched;
  if (partly & fetched) /* partly written sectors made whole: the set's masks change */
    mark(lv, w);
  return 1;
}

/* After a store into L2 way w, which held dirty sectors `was_dirty` and partly written
 * ones `was_partial` before it: the set's masks and the write policy, which change only
 * when the line becomes dirty or its partly written sectors appear or go (a line's later
 * stores into the same sectors: nothing to do). */
static inline void after_write(struct level *lv, struct way *w, uint8_t was_dirty,
                               uint8_t was_partial)
{
  if (!was_dirty || !was_partial != !partial_of(w)) {
    mark(lv, w);
    if (lv->partial_ways | lv->dirty_ways)
      write_policy(lv, w, was_dirty, was_partial);
  }
}

/* Stores bytes `bits` of sector s of L2 way w's line (w holds it: write-allocate, no
 * fetch) for instruction slot: a sector not valid keeps the bytes written so far and
 * becomes valid when they are all written. */
static inline void write_sector(struct level *lv, struct way *w, uint32_t s, uint32_t bits,
                                uint32_t slot)
{
  struct written *pw = &lv->part[w - lv->w];
  pw->writer[s] = slot;
  if (!(w->valid & (1u << s))) {
    uint32_t b = pw->bytes[s] | bits;
    if (b == FULL_SECTOR) {
      w->valid |= (uint8_t)(1u << s);
      b = 0;
    }
    pw->bytes[s] = b;
    w->bytes_kept |= b != 0;
  }
}

/* Stores bytes (per sector, of the sectors in mask) into L2 way w, which holds their line
 * (write-allocate, no fetch), for instruction slot; returns the sectors that were valid
 * before (hits). */
static inline uint32_t l2_write_way(struct level *lv, struct way *w, uint8_t mask,
                                    const uint32_t bytes[4], uint32_t slot)
{
  uint8_t was_dirty = w->dirty, was_partial = partial_of(w);
  uint32_t hits = popc4(mask & w->valid);
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t s = (uint32_t)__builtin_ctz(m);
    write_sector(lv, w, s, bytes[s], slot);
  }
  w->dirty = was_dirty | mask;
  after_write(lv, w, was_dirty, was_partial);
  return hits;
}

/* A store of bytes `bits` into sector s of L2 way w, which a store memo found holding
 * the store's line: what l2_line's hit (the way made the most recent) and l2_write_way
 * with that one sector do. Returns 1 if the sector was valid before (a hit). The store
 * memos' replays (cc_cache_store_memo_replay, cc_cache_store_lanes_replay). */
static __attribute__((noinline)) uint32_t store_sector_slow(struct level *lv, struct way *w,
                                                           uint32_t s, uint32_t bits,
                                                           uint32_t slot)
{
  uint8_t was_dirty = w->dirty, was_partial = partial_of(w);
  uint32_t hit = (w->valid >> s) & 1u;
  touch(lv, w);
  write_sector(lv, w, s, bits, slot);
  w->dirty = was_dirty | (uint8_t)(1u << s);
  after_write(lv, w, was_dirty, was_partial);
  return hit;
}

/* Inline, the common case apart: sector s already dirty, and valid already or still
 * partly written after the store (the naive transpose: the 2nd to 7th of the 8 warps
 * that fill a sector 4 bytes each). Then the line's dirty and valid masks do not change,
 * so neither do its partial sectors: after_write has nothing to do (the line was dirty),
 * and what is left is touch and write_sector's bytes (the clock's last value, which
 * touch renumbers at, goes to store_sector_slow). */
static inline uint32_t store_held_sector(struct level *lv, struct way *w, uint32_t s,
                                         uint32_t bits, uint32_t slot)
{
  struct written *pw = &lv->part[w - lv->w];
  uint32_t b = pw->bytes[s] | bits;
  if (!((w->dirty >> s) & 1u) || lv->clock == UINT32_MAX ||
      (!((w->valid >> s) & 1u) && b == FULL_SECTOR))
    return store_sector_slow(lv, w, s, bits, slot);
  w->stamp = ++lv->clock;
  pw->writer[s] = slot;
  if ((w->valid >> s) & 1u)
    return 1;
  pw->bytes[s] = b;
  w->bytes_kept |= b != 0;
  return 0;
}

/* What L2 does for one line of a record (op; bytes for writes, NULL for reads): returns
 * 1 if DRAM was read. */
static inline __attribute__((always_inline)) int l2_do(struct level *lv, enum l2_op op,
                                                       uint64_t line, uint8_t mask,
                                                       const uint32_t *bytes, uint32_t slot)
{
  int dram = 0;
  uint32_t hits;
  if (op != OP_WRITE)
    dram = l2_read(lv, line, mask, slot);
  if (op == OP_READ)
    return dram;
  hits = l2_write_way(lv, l2_line(lv, line), mask, bytes, slot);
  if (op == OP_WRITE) /* an atomic's hits are its read's */
    lv->insn[slot].l2_hit_sectors += hits;
  return dram;
}

int cc_cache_l2_apply(struct level *lv, const struct l2_req *q)
{
  return l2_do(lv, (enum l2_op)q->op, q->line, q->mask, q->bytes, q->slot);
}

/* ---- the L1 side ---------------------------------------------------------------------- */

/* Sends line's sectors `mask` to L2 (op; bytes for writes), for a record of slot `slot`:
 * done at once in c's L2 (the serial replay; returns 1 if DRAM was read) or queued for
 * the thread owning the line's set (returns 0: the L2 side tells). */
static inline int to_l2(struct cc_cache *c, const struct side *s, enum l2_op op,
                        uint64_t line, uint8_t mask, const uint32_t *bytes, uint32_t slot)
{
  struct req_buf *b;
  struct l2_req *q;
  if (!s->out)
    return l2_do(&c->l2, op, line, mask, bytes, slot);
  b = &s->out[part_of(&c->l2, s->parts, set_of(&c->l2, line))];
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 1024;
    b->r = cc_xrealloc(b->r, b->cap * sizeof *b->r);
  }
  q = &b->r[b->n++];
  q->line = line;
  q->rec = s->rec;
  q->slot = slot;
  q->mask = mask;
  q->op = (uint8_t)op;
  if (bytes)
    memcpy(q->bytes, bytes, sizeof q->bytes);
  return 0;
}

/* Looks line up in L1 lv for sectors `mask`: returns the sectors to fetch from L2 (none
 * when all hit), counting hits in *hits; allocates the line when alloc, else only
 * reports (a store's L1 lookup: hits are updated in place). whole: fetch every sector of
 * the line on a miss. *replaced: the line an allocation replaced (NO_LINE: none). */
static inline __attribute__((always_inline)) uint8_t l1_lookup(struct level *lv, uint64_t line,
                                                                uint8_t mask, int alloc,
                                                                int whole, uint32_t *hits,
                                                                uint64_t *replaced,
                                                                uint32_t *way)
{
  int hit;
  struct way *w = lookup(lv, line, &hit);
  if (way) /* (a constant at each call) */
    *way = (uint32_t)(w - lv->w);
  uint8_t have = hit ? w->valid : 0, fetch;
  *hits = popc4(mask & have);
  if (!hit && !alloc)
    return mask;
  fetch = mask & (uint8_t)~have;
  if (fetch && whole)
    fetch = (uint8_t)(0xfu & ~have);
  *replaced = hit ? NO_LINE : line_of(w->tag);
  if (!hit) {
    fill(lv, w, line);
    w->valid = 0;
  }
  if (alloc)
    w->valid |= fetch;
  touch(lv, w);
  return alloc ? fetch : mask;
}

/* Whether line is among the first n lines of g (increasing: a binary search). */
static int has_line(const struct gather *g, uint32_t n, uint64_t line)
{
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (g->e[mid].line < line)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && g->e[lo].line == line;
}

/* The lines of load record p that L1 lv (allocating, sectored) lacks go to L2: the hot
 * loop of loads (replay's, with the counts summed in locals); p->way: each line's way.
 * Returns the deepest level reached; *kept: whether every line of p is still in L1
 * afterwards (no line of p replaced one p had touched before it: more lines of p in one
 * set than it has ways); *evicted gains bit w % 64 for each way w whose line p replaced. */
static enum level_reached replay_loads(struct cc_cache *c, const struct side *s,
                                       struct level *lv, struct pending *p,
                                       struct cc_cache_counts *ic, int *kept,
                                       uint64_t *evicted)
{
  const struct gather *g = &p->g;
  enum level_reached reach = REACH_L1;
  uint64_t hits = 0, asked = 0;
  *kept = 1;
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t h;
    uint64_t old;
    uint8_t fetch = l1_lookup(lv, g->e[i].line, g->e[i].mask, 1, 0, &h, &old, &p->way[i]);
    hits += h;
    if (old != NO_LINE) {
      *evicted |= 1ull << (p->way[i] % 64);
      if (old >= g->e[0].line && old < g->e[i].line && has_line(g, i, old))
        *kept = 0;
    }
    if (!fetch)
      continue;
    asked += popc4(fetch);
    reach = reach < REACH_L2 ? REACH_L2 : reach;
    if (to_l2(c, s, OP_READ, g->e[i].line, fetch, NULL, p->slot))
      reach = REACH_DRAM;
  }
  ic->l1_hit_sectors += hits;
  ic->l2_sectors_read += asked;
  return reach;
}

/* Whether load record g asks memo's lines, in its order, for sectors it holds. */
static int memo_covers(const struct l1_memo *m, const struct gather *g)
{
  uint64_t differ = 0;
  if (m->n != g->n)
    return 0;
  for (uint32_t i = 0; i < g->n; i++)
    differ |= (g->e[i].line ^ m->line[i]) | (uint8_t)(g->e[i].mask & ~m->mask[i]);
  return differ == 0;
}

/* Remembers p's lines, sectors and L1 ways as the last load record its SM's L1
 * replayed. */
static void memo_set(struct l1_memo *m, const struct pending *p)
{
  const struct gather *g = &p->g;
  for (uint32_t i = 0; i < g->n; i++) {
    m->line[i] = g->e[i].line;
    m->mask[i] = g->e[i].mask;
    m->way[i] = p->way[i];
  }
  m->n = g->n;
  m->sectors = g->sectors;
  m->key = g->key;
}

/* Touches the lines of SM sm's L1 memos in their order, from the oldest memo to the most
 * recent, where hits on older memos left the stamps of LRU behind that order (struct
 * memo_list): before any other touch or choice of a victim in that L1. */
static inline void memo_flush(struct cc_cache *c, uint32_t sm)
{
  struct memo_list *ml = &c->ml[sm];
  struct level *l1 = &c->l1[sm];
  uint32_t lag = 0;
  for (uint32_t k = 0; k < L1_MEMOS; k++)
    lag |= ml->e[k].m != ml->stamped[k];
  if (!lag)
    return;
  for (uint32_t k = L1_MEMOS; k-- > 0;)
    for (uint32_t i = 0; i < ml->e[k].m->n; i++)
      touch(l1, &l1->w[ml->e[k].m->way[i]]);
  memo_stamped(ml);
}

void cc_cache_memo_drop(struct cc_cache *c, uint32_t sm)
{
  memo_flush(c, sm);
  memo_reset(c, sm);
}

/* Whether memo m's lines are all still in their ways of L1 lv. */
static int memo_intact(const struct level *lv, const struct l1_memo *m)
{
  for (uint32_t i = 0; i < m->n; i++)
    if (lv->w[m->way[i]].tag != tag_of(m->line[i]))
      return 0;
  return 1;
}

/* After load record p's lines were replayed through its SM's L1 lv (memo_flush first):
 * p becomes the SM's most recent memo if every line of it is still in L1 (kept), in the
 * oldest memo's place, and each other memo stays if none of its lines went (evicted: bit
 * w % 64 for each way w whose line p replaced; a memo none of whose ways has such a bit
 * is not read); the memos forgotten otherwise (struct memo_list). Memos may share lines: a line of several was
 * last touched by the most recent of their records, and a flush touches it last too. A
 * shared line p evicted and brought back (its valid sectors p's alone, not the older
 * memo's) is not in its old way (that way's new line evicted it) or p did not keep its
 * lines. */
static void memo_push(struct cc_cache *c, const struct level *lv, const struct pending *p,
                      int kept, uint64_t evicted)
{
  struct memo_list *ml = &c->ml[p->sm];
  uint64_t ways = 0;
  if (!kept) {
    memo_reset(c, p->sm);
    return;
  }
  memo_set(memo_front(ml, L1_MEMOS - 1), p);
  for (uint32_t i = 0; i < p->g.n; i++)
    ways |= 1ull << (p->way[i] % 64);
  ml->e[0].key_a = p->g.key.a;
  ml->e[0].ways = ways;
  for (uint32_t k = 1; k < L1_MEMOS; k++) /* a memo none of whose ways p evicted is intact */
    if (ml->e[k].m->n && (ml->e[k].ways & evicted) && !memo_intact(lv, ml->e[k].m))
      memo_clear(ml->e[k].m);
  memo_stamped(ml);
}

enum level_reached cc_cache_memo_advance(struct cc_cache *c, const struct side *s,
                                         uint32_t slot, uint32_t sm, struct form_key key)
{
  /* The memo's lines are still in its ways (any other change to the SM's L1 clears the
   * memo), and they are the L1's most recently touched lines, in the memo's order:
   * touching them again in that order would leave every set's LRU order as it is (the
   * memo hit's argument), so they are not touched; only the sector each lacks is fetched
   * (replay_loads' counts, without a lookup or a gathering). */
  struct l1_memo *m = memo_of(c, sm);
  struct level *l1 = &c->l1[sm];
  struct cc_cache_counts *ic = &s->insn[slot];
  uint8_t bit = (uint8_t)(1u << (key.a % (CC_CACHE_LINE_BYTES / CC_CACHE_SECTOR_BYTES)));
  uint32_t hits = 0, asked = 0;
  enum level_reached reach = REACH_L1;
  assert(memo_advances(m, key) && m->sectors == m->n);
  if (!s->exact) { /* not sampling: the whole record's wavefronts here (replay's) */
    ic->l1_wavefronts += (m->sectors + 3) / 4;
    s->sm_wavefronts[sm] += (m->sectors + 3) / 4;
  }
  for (uint32_t i = 0; i < m->n; i++) {
    struct way *w = &l1->w[m->way[i]];
    assert(w->tag == tag_of(m->line[i]));
    m->mask[i] |= bit;
    if (w->valid & bit) {
      hits++;
      continue;
    }
    w->valid |= bit;
    asked++;
    reach = reach < REACH_L2 ? REACH_L2 : reach;
    if (to_l2(c, s, OP_READ, m->line[i], bit, NULL, slot))
      reach = REACH_DRAM;
  }
  ic->l1_hit_sectors += hits;
  ic->l2_sectors_read += asked;
  m->key = key;
  c->ml[sm].e[0].key_a = key.a; /* (m is the front memo: memo_advancing) */
  return reach;
}

/* Replays one gathered record p: its lines through L1, and through L2 and DRAM as s says
 * (to_l2), its counts into s->insn (for stores done at once, p->way: where each line
 * went in L2); returns the level its wait reached (REACH_NONE for stores). */
static enum level_reached replay(struct cc_cache *c, const struct side *s, struct pending *p)
{
  const struct gather *g = &p->g;
  struct cc_cache_counts *ic = &s->insn[p->slot];
  struct level *l1 = &c->l1[p->sm];
  enum level_reached reach = REACH_L1;
  int load = p->kind == CC_ACCESS_LOAD, store = p->kind == CC_ACCESS_STORE;
  int local = p->space == CC_SPACE_LOCAL;
  int l1_alloc = local || c->dev.l1_global_loads;
  uint32_t wavefronts = (g->sectors + 3) / 4;
  int whole = !s->exact; /* sampling: the whole record's counts are counted apart */
  if (whole) {
    ic->l1_wavefronts += wavefronts;
    s->sm_wavefronts[p->sm] += wavefronts;
  }
  int fast = load && l1_alloc && !c->dev.l1_whole_lines;
  if (fast && (p->memo_hit || memo_covers(memo_of(c, p->sm), g))) {
    ic->l1_hit_sectors += g->sectors;
  } else if (fast) {
    int kept;
    uint64_t evicted = 0;
    memo_flush(c, p->sm);
    reach = replay_loads(c, s, l1, p, ic, &kept, &evicted);
    memo_push(c, l1, p, kept, evicted);
  } else if (load ? l1_alloc : store && local) {
    cc_cache_memo_drop(c, p->sm); /* this record changes the SM's L1 */
  }
  for (uint32_t i = 0; !fast && i < g->n; i++) {
    const struct ent *e = &g->e[i];
    uint32_t hits = 0;
    if (load) {
      uint64_t old;
      uint8_t fetch = l1_alloc ? l1_lookup(l1, e->line, e->mask, 1, c->dev.l1_whole_lines,
                                           &hits, &old, NULL)
                               : e->mask;
      ic->l1_hit_sectors += hits;
      if (!fetch)
        continue;
      if (whole || l1_alloc)
        ic->l2_sectors_read += popc4(fetch);
      reach = reach < REACH_L2 ? REACH_L2 : reach;
      if (to_l2(c, s, OP_READ, e->line, fetch, NULL, p->slot))
        reach = REACH_DRAM;
    } else if (store) {
      /* write-through: a line L1 has is updated in place (no count changes, and its LRU
       * age is left: only loads touch it); local stores also allocate */
      if (local)
        l1_lookup(l1, e->line, e->mask, 1, 0, &hits, &(uint64_t){0}, NULL);
      if (whole)
        ic->l2_sectors_write += popc4(e->mask);
      if (s->out) {
        to_l2(c, s, OP_WRITE, e->line, e->mask, e->bytes, p->slot);
        continue;
      }
      struct way *w = l2_line(&c->l2, e->line);
      p->way[i] = (uint32_t)(w - c->l2.w); /* for the store memo */
      ic->l2_hit_sectors += l2_write_way(&c->l2, w, e->mask, e->bytes, p->slot);
    } else { /* atomic, reduction: read-modify-write in L2 */
      if (whole)
        ic->l2_sectors_atomic += popc4(e->mask);
      reach = reach < REACH_L2 ? REACH_L2 : reach;
      if (to_l2(c, s, OP_ATOMIC, e->line, e->mask, e->bytes, p->slot))
        reach = REACH_DRAM;
    }
  }
  return store ? REACH_NONE : reach;
}

/* cc_cache_count_wait, inlined in the serial replay. While sampling, a request counts
 * in its slot's and its SM's requests after the switch (unless a worker counted them:
 * `counted`, a cut record's), and where it touched a sampled line in the slot's sampled
 * waits (the estimate: sample.c). */
static inline void count_wait(struct cc_cache *c, uint32_t slot, uint32_t sm,
                              enum level_reached r, int counted)
{
  struct cc_cache_counts *ic = c->sampling ? &c->samp[slot] : &c->insn[slot];
  if (c->sampling) {
    c->req_after[slot] += !counted;
    c->sm_req[sm] += !counted;
    if (r == REACH_UNSEEN)
      return;
  } else {
    c->sm_waits[3 * (size_t)sm + r]++;
  }
  ic->waits_l1 += r == REACH_L1;
  ic->waits_l2 += r == REACH_L2;
  ic->waits_dram += r == REACH_DRAM;
}

void cc_cache_count_wait(struct cc_cache *c, uint32_t slot, uint32_t sm, enum level_reached r,
                         int counted)
{
  count_wait(c, slot, sm, r, counted);
}

/* Replays global store a (line-per-lane form, bytes from its first lane's offset in the
 * sector) through store memo m of its SM sm, if every way of m still holds its line;
 * returns 0 (nothing done) otherwise. The counts are replay's for such a store into ic
 * (while sampling, its slot's sampled counts: the whole record's are sample_whole's). */
int cc_cache_store_memo_replay(struct cc_cache *c, const struct store_memo *m,
                               const struct cc_warp_access *a, uint32_t sm,
                               struct cc_cache_counts *ic)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, hits = 0, bits;
  uint64_t differ = 0;
  for (uint32_t i = 0; i < m->n; i++)
    differ |= line_of(c->l2.w[m->way[i]].tag) ^ m->line[i];
  if (differ)
    return 0;
  bits = byte_bits((uint32_t)(a->addr[0] % CC_CACHE_SECTOR_BYTES), size);
  for (uint32_t i = 0; i < m->n; i++) /* one sector a line */
    hits += store_held_sector(&c->l2, &c->l2.w[m->way[i]],
                              (uint32_t)__builtin_ctz(m->mask[i]), bits, a->insn_slot);
  if (!c->sampling) {
    ic->l1_wavefronts += CC_WARP_SIZE / 4;
    c->sm_wavefronts[sm] += CC_WARP_SIZE / 4;
    ic->l2_sectors_write += CC_WARP_SIZE;
  }
  ic->l2_hit_sectors += hits;
  return 1;
}

/* Remembers the global store p (line-per-lane form key) as its SM's store memo m. */
static void store_memo_set(struct store_memo *m, const struct pending *p, struct form_key key)
{
  for (uint32_t i = 0; i < p->g.n; i++) {
    m->way[i] = p->way[i];
    m->line[i] = p->g.e[i].line;
    m->mask[i] = p->g.e[i].mask;
  }
  m->n = p->g.n;
  m->key = key;
}

/* A record of a CTA other than the last one's: its placement computed and kept. */
static __attribute__((noinline)) void place_new(struct cc_cache *c, const uint32_t cta[3])
{
  memcpy(c->last_cta, cta, sizeof c->last_cta);
  c->last_linear = cta_linear(c, cta);
  c->last_sm = sm_of(c, c->last_linear);
  c->have_last = 1;
}

/* The CTA a record belongs to: its SM (*sm) and the base its local addresses get
 * (*base, 0 for other spaces). The records of a CTA come together: the CTA compared
 * without a memcmp call (same_cta3), the division of sm_of once per CTA. */
static inline void place(struct cc_cache *c, const struct cc_warp_access *a, uint32_t *sm,
                         uint64_t *base)
{
  if (!same_cta3(a->cta, c->last_cta) || !c->have_last)
    place_new(c, a->cta);
  *sm = c->last_sm;
  *base = a->space == CC_SPACE_LOCAL ? local_base(c, c->last_linear, *sm, a->warp) : 0;
}

/* cc_cache_replay_record for a record of form key; while sampling (s->exact), a fast
 * form's whole-record counts are done (sample_fast; a cut record's: none) and `lanes` are
 * its sampled lanes. */
static enum level_reached replay_keyed(struct cc_cache *c, struct side *s,
                                       const struct cc_warp_access *a, uint32_t sm,
                                       uint64_t base, struct form_key key, uint32_t lanes)
{
  struct pending p;
  enum level_reached reach;
  int column_store, gathered = 0, l1_fast;
  p.slot = a->insn_slot;
  p.sm = sm;
  p.kind = a->kind;
  p.space = a->space;
  p.g.key = key;
  if (s->exact && key.form == FORM_GENERAL) { /* gathered to count its sectors */
    uint32_t sectors = cc_cache_gather_general_sampled(c, a, base, &p.g);
    if (!a->cut) /* (a cut record's were counted whole: drop.c) */
      side_whole(c, &s->exact[a->insn_slot], s->sm_wavefronts, a, sm, sectors);
    if (p.g.n == 0)
      return a->kind == CC_ACCESS_STORE ? REACH_NONE : REACH_UNSEEN;
    gathered = 1;
  }
  /* a load in a fast form equal to the last one its SM's L1 replayed: no gathering */
  /* (replay's fast path only: a global load where L1 does not cache them must not take
   * the memo of a local load at the same addresses, which a hostile trace can give) */
  l1_fast = a->kind == CC_ACCESS_LOAD &&
            (a->space == CC_SPACE_LOCAL || c->dev.l1_global_loads) && !c->dev.l1_whole_lines;
  p.memo_hit = l1_fast && memo_find(c, sm, key) != NULL; /* (made cur) */
  /* the store memo holds L2 ways: the serial replay's alone (the parallel one's L2 is
   * another thread's); while sampling, of the sampled lanes. A strided column's (its key
   * a byte, not a sector) is matched by its lanes' lines (quick.c, cut records), not by
   * key */
  column_store = !s->out && a->kind == CC_ACCESS_STORE && a->space == CC_SPACE_GLOBAL &&
                 (key.form == FORM_LANES || key.form == FORM_STRIDED);
  if (column_store && !s->exact && key.form == FORM_LANES &&
      c->smemo[sm].key.form == FORM_LANES && c->smemo[sm].key.a == key.a &&
      c->smemo[sm].key.b == key.b &&
      cc_cache_store_memo_replay(c, &c->smemo[sm], a, sm, &s->insn[a->insn_slot]))
    return REACH_NONE; /* (sampling: quick.c store_first tried it) */
  if (l1_fast && !p.memo_hit && memo_advancing(c, sm, key))
    return cc_cache_memo_advance(c, s, a->insn_slot, sm, key); /* not gathered either */
  if (p.memo_hit) {
    p.g.n = 0; /* not gathered: replay takes the memo's lines */
    p.g.sectors = memo_of(c, sm)->sectors;
  } else if (s->exact && (key.form == FORM_LANES || key.form == FORM_STRIDED)) {
    cc_cache_gather_lanes(a, base, key, lanes, &p.g);
  } else if (s->exact && key.form == FORM_RANGE) {
    cc_cache_gather_range_sampled(c, a, base, key, &p.g);
  } else if (!gathered) {
    cc_cache_gather(a, base, key, &p.g);
    if (s->exact)
      cc_cache_sample_filter(c, &p.g);
  }
  reach = replay(c, s, &p); /* one call of each: inlined */
  if (column_store)
    store_memo_set(&c->smemo[sm], &p, key);
  return reach;
}

/* A cut record's sampled lines (a->cut: drop.c) into p: at once where its lanes are a
 * range within one sampled line (a row's), in one pass where its lanes lie in sampled
 * lines in address order (a column's), else gathered and filtered to
 * the sampled lines (lanes that cross into an unsampled line bring that line too).
 * Returns 0 when it touches none (not from drop.c, which keeps the lanes of sampled
 * lines). */
static int cut_gather(const struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                      uint64_t base, struct pending *p)
{
  p->slot = a->insn_slot;
  p->sm = sm;
  p->kind = a->kind;
  p->space = a->space;
  p->memo_hit = 0;
  if (!cc_cache_gather_cut_range(c, a, base, &p->g) && !cc_cache_gather_sampled(c, a, base, &p->g))
    cc_cache_gather_general_sampled(c, a, base, &p->g);
  return p->g.n != 0;
}

void cc_cache_locate(const struct cc_cache *c, const struct cc_warp_access *a, uint32_t *sm,
                     uint64_t *base, uint64_t *linear)
{
  *linear = cta_linear(c, a->cta);
  *sm = sm_of(c, *linear);
  *base = a->space == CC_SPACE_LOCAL ? local_base(c, *linear, *sm, a->warp) : 0;
}

enum level_reached cc_cache_replay_record(struct cc_cache *c, struct side *s,
                                          const struct cc_warp_access *a, uint32_t sm,
                                          uint64_t base)
{
  struct form_key key;
  uint32_t lanes = 0;
  if (a->cut) { /* (the parallel replay's: the serial one's go to cut_record) */
    struct pending p;
    assert(s->exact && s->out); /* cut after the switch only; no store memo here */
    if (!cut_gather(c, a, sm, base, &p))
      return a->kind == CC_ACCESS_STORE ? REACH_NONE : REACH_UNSEEN;
    for (uint32_t r = 1; r < a->cut; r++) /* a store's repeats (drop.c): replayed */
      replay(c, s, &p);
    return replay(c, s, &p);
  }
  key = cc_cache_form_of(a, base);
  if (s->exact &&
      !side_fast(c, NULL, &s->exact[a->insn_slot], s->sm_wavefronts, a, base, sm, key, &lanes))
    return a->kind == CC_ACCESS_STORE ? REACH_NONE : REACH_UNSEEN;
  return replay_keyed(c, s, a, sm, base, key, lanes);
}

void cc_cache_sample_replay(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                            uint64_t base, struct form_key key, uint32_t lanes)
{
  struct side s = {c->samp, NULL, 1, 0, c->insn, c->sm_wavefronts};
  enum level_reached reach = replay_keyed(c, &s, a, sm, base, key, lanes);
  if (reach != REACH_NONE)
    count_wait(c, a->insn_slot, sm, reach, a->cut);
}

void cc_cache_sample_line(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                          uint64_t lo, uint64_t bytes)
{
  struct side s = {c->samp, NULL, 1, 0, c->insn, c->sm_wavefronts};
  struct pending p;
  uint64_t hi = lo + bytes;
  uint64_t first = lo / CC_CACHE_SECTOR_BYTES, last = (hi - 1) / CC_CACHE_SECTOR_BYTES;
  const struct l1_memo *m;
  enum level_reached reach;
  p.slot = a->insn_slot;
  p.sm = sm;
  p.kind = a->kind;
  p.space = CC_SPACE_GLOBAL;
  /* replay_keyed's memo test, and cc_cache_gather_range_sampled's one line */
  p.g.key = (struct form_key){FORM_RANGE, first, last};
  m = a->kind == CC_ACCESS_LOAD && c->memo_loads ? memo_find(c, sm, p.g.key) : NULL;
  p.memo_hit = m != NULL;
  p.g.want_bytes = a->kind != CC_ACCESS_LOAD;
  if (p.memo_hit) {
    p.g.n = 0; /* not gathered: replay takes the memo's lines */
    p.g.sectors = m->sectors;
    p.g.max_line = lo / CC_CACHE_LINE_BYTES;
  } else {
    gather_line_range(&p.g, lo, hi);
  }
  reach = replay(c, &s, &p);
  if (reach != REACH_NONE)
    count_wait(c, p.slot, sm, reach, 0);
}

/* (cache_impl.h says what it does and for whom.) Two passes over the lanes: the test
 * first, so that nothing is written unless every lane's line is the memo's. */
int cc_cache_store_lanes_replay(struct cc_cache *c, const struct store_memo *m,
                                const struct cc_warp_access *a, uint32_t lanes,
                                uint32_t *again)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, i = 0, hits = 0, l = lanes;
  uint64_t differ = 0, prev = 0;
  for (; l && i < m->n; l &= l - 1, i++) { /* (no popcount: a library call here) */
    uint64_t addr = a->addr[__builtin_ctz(l)], line = addr / CC_CACHE_LINE_BYTES;
    differ |= (line ^ line_of(c->l2.w[m->way[i]].tag)) |
              (addr % CC_CACHE_SECTOR_BYTES + size > CC_CACHE_SECTOR_BYTES) |
              (i && line <= prev);
    prev = line;
  }
  if (differ || l || i != m->n) /* as many lanes as the memo has lines */
    return 0;
  i = 0;
  for (l = lanes; l; l &= l - 1, i++) { /* a lane's sector of its line */
    uint64_t addr = a->addr[__builtin_ctz(l)];
    hits += store_held_sector(&c->l2, &c->l2.w[m->way[i]],
                              (uint32_t)(addr / CC_CACHE_SECTOR_BYTES % 4),
                              byte_bits((uint32_t)(addr % CC_CACHE_SECTOR_BYTES), size),
                              a->insn_slot);
  }
  c->samp[a->insn_slot].l2_hit_sectors += hits;
  i = 0;
  for (l = a->cut > 1 ? lanes : 0; l; l &= l - 1, i++) /* what a repeat would hit */
    *again += (c->l2.w[m->way[i]].valid >> (a->addr[__builtin_ctz(l)] /
                                            CC_CACHE_SECTOR_BYTES % 4)) & 1u;
  return 1;
}

/* A cut record (a->cut: drop.c; its whole-record counts and its request done by a
 * worker): its sampled lines' replay, their raw counts and its sampled wait. Fewer than
 * 32 lanes: cut_gather's lines; the L1 memo serves it by its lines (replay's
 * memo_covers), the store memo by its ways (cc_cache_store_lanes_replay), which a global store's
 * replay sets, keyless (a whole record's store_first matches keys: never one). 32 lanes:
 * cc_cache_sample_cut (quick.c), with its form and the memos' keys. The parallel replay's
 * L1 side takes cut records in cc_cache_replay_record. Returns what a repeat of a (a
 * folded store's, drop.c) would hit: REPEAT_GATHERED, the lines p->g holds (none, if a
 * touches none); REPEAT_KNOWN, *again sectors (the store memo's way); REPEAT_UNKNOWN. */
enum repeat { REPEAT_UNKNOWN, REPEAT_GATHERED, REPEAT_KNOWN };
static enum repeat cut_once(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                            uint64_t base, struct pending *p, uint32_t *again)
{
  struct side s = {c->samp, NULL, 1, 0, c->insn, c->sm_wavefronts};
  enum level_reached reach;
  int global_store = a->kind == CC_ACCESS_STORE && a->space == CC_SPACE_GLOBAL;
  if (a->active == UINT32_MAX) {
    cc_cache_sample_cut(c, a, sm, base);
    return REPEAT_UNKNOWN;
  }
  if (global_store && cc_cache_store_lanes_replay(c, &c->smemo[sm], a, a->active, again))
    return REPEAT_KNOWN;
  if (!cut_gather(c, a, sm, base, p))
    return REPEAT_GATHERED; /* no sampled line: p->g is empty */
  global_store &= p->g.n <= CC_WARP_SIZE; /* what the store memo holds */
  reach = replay(c, &s, p);
  if (global_store)
    store_memo_set(&c->smemo[sm], p, p->g.key);
  if (reach != REACH_NONE)
    count_wait(c, p->slot, sm, reach, 1);
  return REPEAT_GATHERED;
}

/* The sectors a repeat of cut global store a (drop.c folds them: a->cut - 1 of them)
 * hits, after a's replay: each finds a's sampled lines as a left them (resident, dirty
 * with its bytes, the most recent of their sets, which nothing touched since: drop.c),
 * changes nothing, and hits their valid sectors (l2_write_way's hits). g: a's lines as
 * cut_once gathered them, or NULL (gathered here). */
static uint64_t repeat_hits(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                            const struct gather *g)
{
  struct pending p;
  uint64_t hits = 0;
  if (!g) {
    cut_gather(c, a, sm, 0, &p);
    g = &p.g;
  }
  for (uint32_t i = 0; i < g->n; i++) {
    int hit;
    const struct way *w = scan(&c->l2, g->e[i].line, &hit);
    assert(hit); /* (drop.c holds a store only with its lines in distinct sets) */
    hits += popc4(g->e[i].mask & w->valid);
  }
  return hits;
}

/* A cut record (cut_once), and a store's repeats, counted at once. */
static void cut_record(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                       uint64_t base)
{
  struct pending p;
  uint32_t again = 0;
  enum repeat r = cut_once(c, a, sm, base, &p, &again);
  if (a->cut <= 1)
    return;
  c->samp[a->insn_slot].l2_hit_sectors +=
      (a->cut - 1) * (r == REPEAT_KNOWN ? again
                                        : repeat_hits(c, a, sm, r == REPEAT_GATHERED ? &p.g : NULL));
}

/* The serial replay of global or local record a while sampling: global records of 32
 * active lanes take the quick path (quick.c; most end there), those of some lanes
 * active cc_cache_sample_general_global, the others cc_cache_sample_slow. Tail calls
 * only: cc_cache_access keeps no registers for them. */
static inline void sample_record(struct cc_cache *c, const struct cc_warp_access *a,
                                 uint32_t sm, uint64_t base)
{
  if (a->space != CC_SPACE_GLOBAL)
    cc_cache_sample_slow(c, a, sm, base);
  else if (a->active != 0xffffffffu) /* some lanes: the general form */
    cc_cache_sample_general_global(c, a, sm);
  else
    c->quick(c, a, sm);
}

/* The serial replay of record a before sampling (or with sample=1): every line. */
static inline void full_record(struct cc_cache *c, const struct cc_warp_access *a,
                               uint32_t sm, uint64_t base)
{
  struct side s = {c->insn, NULL, 1, 0, NULL, c->sm_wavefronts};
  enum level_reached reach = cc_cache_replay_record(c, &s, a, sm, base);
  if (reach != REACH_NONE)
    count_wait(c, a->insn_slot, sm, reach, 0);
}

/* cc_cache_access of every record the quick way (below) does not take. */
static __attribute__((noinline)) void access_slow(struct cc_cache *c,
                                                  const struct cc_warp_access *a,
                                                  uint32_t shared_wavefronts)
{
  uint64_t base;
  uint32_t sm;
  if (a->insn_slot >= c->n_insns || a->active == 0 || a->size_bytes > CC_ACCESS_MAX_BYTES)
    return;
  place(c, a, &sm, &base);
  if (a->space == CC_SPACE_SHARED) { /* no cache state: counted at once, exactly */
    c->insn[a->insn_slot].l1_wavefronts += shared_wavefronts;
    c->sm_wavefronts[sm] += shared_wavefronts;
    if (a->kind == CC_ACCESS_LOAD) {
      c->insn[a->insn_slot].waits_l1++;
      c->sm_waits[3 * (size_t)sm + REACH_L1]++;
    }
    return;
  }
  if (a->cut) { /* a worker counted it as a record, and its whole-record figures */
    assert(c->sampling); /* (drop.c cuts only after the switch) */
    if (c->par)
      cc_cache_par_access(c, a, sm, base);
    else
      cut_record(c, a, sm, base);
    return;
  }
  if (c->records++ == c->switch_at) {
    cc_cache_sample_start(c);
    c->quick = c->par ? NULL : cc_cache_quick_for_host(); /* the serial replay's quick way in */
  }
  if (c->par) {
    cc_cache_par_access(c, a, sm, base);
  } else if (c->sampling) {
    sample_record(c, a, sm, base);
  } else {
    full_record(c, a, sm, base);
  }
}

/* The quick path of global record a of SM sm while sampling: records of 32 active lanes
 * to c->quick, the others (some lanes active: the general form, cc_cache_form_of) to
 * cc_cache_sample_general_global. */
static inline void quick_any(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm)
{
  if (a->active == 0xffffffffu)
    c->quick(c, a, sm);
  else
    cc_cache_sample_general_global(c, a, sm);
}

/* The quick way in for a record of a CTA other than the last one's: its placement
 * (place), then the quick path. */
static __attribute__((noinline)) void quick_new_cta(struct cc_cache *c,
                                                    const struct cc_warp_access *a)
{
  uint32_t sm;
  uint64_t base;
  place(c, a, &sm, &base); /* base: 0, a global record */
  c->records++;
  quick_any(c, a, sm);
}

/* Whether record a is one the quick way takes while the serial replay samples (c->quick
 * set): global (CC_SPACE_GLOBAL is 0: space and cut tested in one), not cut, a valid
 * slot and size; its active lanes are tested by the callers. */
static inline int quick_takes(const struct cc_cache *c, const struct cc_warp_access *a)
{
  _Static_assert(CC_SPACE_GLOBAL == 0, "quick_takes: space and cut tested in one");
  return c->quick && ((uint32_t)a->space | a->cut) == 0 && a->insn_slot < c->n_insns &&
         a->size_bytes <= CC_ACCESS_MAX_BYTES;
}

/* Whether record a is of the CTA whose placement is kept (c->last_cta), compared as an
 * 8-byte and a 4-byte word. */
static inline int same_cta(const struct cc_cache *c, const struct cc_warp_access *a)
{
  return same_cta3(a->cta, c->last_cta);
}

/* cc_cache_access_serial of a record not of 32 active lanes: the quick way for a global
 * one of some lanes active (its general form), access_slow for the others. */
static __attribute__((noinline)) void access_some(struct cc_cache *c,
                                                  const struct cc_warp_access *a,
                                                  uint32_t shared_wavefronts)
{
  if (a->active == 0 || !quick_takes(c, a)) {
    access_slow(c, a, shared_wavefronts);
  } else if (!same_cta(c, a)) {
    quick_new_cta(c, a);
  } else {
    c->records++;
    cc_cache_sample_general_global(c, a, c->last_sm);
  }
}

/* The quick way in: while the serial replay samples (c->quick set), a global record of 32
 * active lanes (most records) goes to the quick path with the kept placement of its CTA,
 * or quick_new_cta's (access_slow's checks and steps, with what sampling makes known:
 * the switch is past); one of some lanes active to access_some. Never a cut record
 * (a->cut: its whole-record figures and its request are counted already, which the quick
 * path would count again): access_slow's cut_record takes it. Tail calls: no registers
 * kept here. */
static inline __attribute__((always_inline)) void access_serial(
    struct cc_cache *c, const struct cc_warp_access *a, uint32_t shared_wavefronts)
{
  if (a->active != 0xffffffffu) {
    access_some(c, a, shared_wavefronts);
  } else if (!quick_takes(c, a)) {
    access_slow(c, a, shared_wavefronts);
  } else if (!same_cta(c, a)) {
    quick_new_cta(c, a);
  } else {
    c->records++;
    c->quick(c, a, c->last_sm);
  }
}

/* access_serial, for the parallel replay's helper (par.c) and cc_cache_access. */
void cc_cache_access_serial(struct cc_cache *c, const struct cc_warp_access *a,
                            uint32_t shared_wavefronts)
{
  access_serial(c, a, shared_wavefronts);
}

/* The model's one way in: queued for its helper thread when it has one (jobs 2: par.c),
 * else cc_cache_access_serial on this thread (inline: no jump between). */
void cc_cache_access(struct cc_cache *c, const struct cc_warp_access *a,
                     uint32_t shared_wavefronts)
{
  if (c->async) {
    cc_cache_async_queue(c, a, shared_wavefronts);
    return;
  }
  access_serial(c, a, shared_wavefronts);
}
