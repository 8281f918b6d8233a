/* The sampled records' paths (README.md, "Speed"): after the switch to set sampling, the
 * serial replay's global records take the quick path (cc_cache_access jumps through
 * c->quick: quick_avx2 or quick_portable), others and the quick path's leftovers the
 * general way (cc_cache_sample_slow: the form, the memos, sample_fast). Both give what
 * the model gives every record (sample.c: whole-record counts of every record, the
 * sampled lines replayed by cc_cache_sample_replay, cache.c); tests/cache/
 * test_quick_sample.c checks the quick path's branches against the full replays and the
 * parallel replay, which has no quick path. A cut record (a->cut: drop.c, its
 * whole-record figures and its request counted by a worker) never takes the quick path
 * (cc_cache_access tests it first); one of 32 lanes takes cc_cache_sample_cut here, the
 * general way without the whole-record counts (tests/cache/test_cut.c).
 *
 * Written for few instructions a record (bench/results/cache-speed-2026-11-27-s9.md):
 * tail calls only from cc_cache_access to the end of a record that touches no sampled
 * line, the AVX2 test inline in its own small function (a larger AVX2 function would
 * align its stack frame), and the common record (a range within one line) in a leaf,
 * quick_rest, which jumps to the others. */
#include "cache/cache_impl.h"

/* The quick path's unseen wait: count_wait's REACH_UNSEEN while sampling (a load or
 * atomic none of whose lines is sampled). */
static inline __attribute__((always_inline)) void quick_unseen(struct cc_cache *c,
                                                               uint32_t slot, uint32_t sm)
{
  c->req_after[slot]++;
  c->sm_req[sm]++;
}

/* A sampled load equal to its SM's L1 memo m: the memo's sectors hit, the wait on L1
 * (count_wait's REACH_L1 while sampling, less the request: a cut record's is counted). */
static inline __attribute__((always_inline)) void memo_hit_sampled(struct cc_cache *c,
                                                                   uint32_t slot,
                                                                   const struct l1_memo *m)
{
  c->samp[slot].l1_hit_sectors += m->sectors;
  c->samp[slot].waits_l1++;
}

/* The quick path's load equal to its SM's L1 memo m, after its whole-record counts: the
 * rest of what memo_first counts. */
static inline __attribute__((always_inline)) void quick_memo_hit(struct cc_cache *c,
                                                                 uint32_t slot, uint32_t sm,
                                                                 const struct l1_memo *m)
{
  memo_hit_sampled(c, slot, m);
  quick_unseen(c, slot, sm);
}

/* While sampling: if load record a (form key, fast; L1 caches it) reads its SM's L1
 * memo's lines one sector over (memo_advances: a row-per-thread loop's next sector of
 * each row), its counts, those replay_keyed gives it (cc_cache_memo_advance, before the
 * sampled lanes' test, which the memo makes needless: its lines are the sampled ones),
 * and 1; else 0 (nothing done). cut: as memo_first's. */
static __attribute__((noinline)) int memo_next(struct cc_cache *c,
                                               const struct cc_warp_access *a, uint32_t sm,
                                               struct form_key key, int cut)
{
  struct side s = {c->samp, NULL, 1, 0, c->insn, c->sm_wavefronts};
  if (!memo_advancing(c, sm, key)) /* (made cur) */
    return 0;
  if (!cut)
    sample_whole(c, &c->insn[a->insn_slot], a, sm, CC_WARP_SIZE);
  cc_cache_count_wait(c, a->insn_slot, sm,
                      cc_cache_memo_advance(c, &s, a->insn_slot, sm, key), cut);
  return 1;
}

/* While sampling: if load record a (form key, fast) is in the form of its SM's L1 memo,
 * its counts, those replay_keyed and replay give it (the memo holds the record's sampled
 * lines, which exist: a memo is set only by a record that touched one, and cleared at the
 * switch), without the sampled lanes' test or a gathering; returns 1 then, else 0 (the
 * row-per-thread loops: a warp re-reads its 32 lines 8 times). cut (a constant at each
 * call): a is a cut record (drop.c), whose whole-record counts and request a worker
 * counted: its sampled counts only. */
static inline __attribute__((always_inline)) int memo_first(struct cc_cache *c,
                                                            const struct cc_warp_access *a,
                                                            uint32_t sm, struct form_key key,
                                                            int cut)
{
  const struct l1_memo *m;
  uint32_t slot = a->insn_slot;
  if (key.form == FORM_GENERAL || a->kind != CC_ACCESS_LOAD ||
      !(a->space == CC_SPACE_LOCAL || c->dev.l1_global_loads) || c->dev.l1_whole_lines)
    return 0;
  if (!(m = memo_find(c, sm, key))) /* (made cur) */
    return memo_next(c, a, sm, key, cut);
  if (cut) {
    memo_hit_sampled(c, slot, m);
    return 1;
  }
  sample_whole(c, &c->insn[slot], a, sm,
               key.form == FORM_RANGE ? (uint32_t)(key.b - key.a + 1) : CC_WARP_SIZE);
  quick_memo_hit(c, slot, sm, m); /* the memo's sectors hit, the wait on L1 */
  return 1;
}

/* While sampling: if global store a (form key) is in the form of its SM's store memo,
 * whose ways still hold its lines, the store done through the memo (the sampled lanes'
 * lines: the same key, the same lanes) and its whole-record counts; returns 1 then, else 0
 * (nothing done). Before the sampled lanes' test, which the memo makes needless (the
 * naive transpose: the 8 warps of a CTA store into the same column of lines). cut: as
 * memo_first's (no whole-record counts). */
static inline __attribute__((always_inline)) int store_first(struct cc_cache *c,
                                                             const struct cc_warp_access *a,
                                                             uint32_t sm, struct form_key key,
                                                             int cut)
{
  const struct store_memo *m = &c->smemo[sm];
  if (key.form != FORM_LANES || a->kind != CC_ACCESS_STORE || a->space != CC_SPACE_GLOBAL ||
      m->key.form != FORM_LANES || m->key.a != key.a || m->key.b != key.b ||
      !cc_cache_store_memo_replay(c, m, a, sm, &c->samp[a->insn_slot]))
    return 0;
  if (!cut)
    sample_whole(c, &c->insn[a->insn_slot], a, sm, CC_WARP_SIZE);
  return 1;
}

/* The serial replay of global or local record a (form key) while sampling, the general
 * way: the memos, sample_fast, and the replay of its sampled lines (a strided column
 * store's through the store memo's ways where they hold its lines:
 * cc_cache_store_lanes_replay). cut (a constant at
 * each call): a is a cut record (drop.c), whose whole-record counts and request a worker
 * counted: only whether its fast form touches a sampled line (sample_touches, not
 * sample_fast) and its sampled lines' replay (the general form's: replay_keyed, which
 * leaves a cut record's whole-record counts out). */
static inline __attribute__((always_inline)) void sample_keyed(struct cc_cache *c,
                                                               const struct cc_warp_access *a,
                                                               uint32_t sm, uint64_t base,
                                                               struct form_key key, int cut)
{
  uint32_t lanes = 0, sectors;
  if (memo_first(c, a, sm, key, cut) || store_first(c, a, sm, key, cut))
    return;
  if (cut) {
    if (key.form != FORM_GENERAL && !sample_touches(c, &c->lanes_memo, key, &sectors, &lanes))
      return;
  } else if (!sample_fast(c, &c->insn[a->insn_slot], a, base, sm, key, &lanes)) {
    if (a->kind != CC_ACCESS_STORE)
      quick_unseen(c, a->insn_slot, sm);
    return;
  } else if (key.form == FORM_STRIDED && a->kind == CC_ACCESS_STORE &&
             a->space == CC_SPACE_GLOBAL &&
             cc_cache_store_lanes_replay(c, &c->smemo[sm], a, lanes, &(uint32_t){0})) {
    return; /* a strided column a few bytes past the last one: the memo's ways */
  }
  cc_cache_sample_replay(c, a, sm, base, key, lanes);
}

/* sample_keyed of a record whose form is yet to be found (local records, some lanes
 * active, and those the quick path does not take). */
void cc_cache_sample_slow(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                          uint64_t base)
{
  sample_keyed(c, a, sm, base, cc_cache_form_of(a, base), 0);
}

/* sample_keyed of a cut record of 32 lanes (cache.c cut_record; never the quick path,
 * which counts whole records). */
void cc_cache_sample_cut(struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm,
                         uint64_t base)
{
  sample_keyed(c, a, sm, base, cc_cache_form_of(a, base), 1);
}

/* sample_keyed of global record a (base 0, not cut) in the general form, its steps that
 * apply to that form only: no memo holds a general form (memo_first, store_first: 0),
 * and sample_fast's are cc_cache_sample_general's test and the whole-record counts. The
 * quick path's records of some lanes active (cc_cache_access: their form is the general
 * one, cc_cache_form_of) and of 32 lanes not affine (quick_avx2, quick_portable: the
 * test is not run again). */
void cc_cache_sample_general_global(struct cc_cache *c, const struct cc_warp_access *a,
                                    uint32_t sm)
{
  uint32_t sectors;
  if (cc_cache_sample_general(c, a, 0, &sectors) != 0) { /* a sampled line, or gathered */
    cc_cache_sample_replay(c, a, sm, 0, (struct form_key){FORM_GENERAL, 0, 0}, 0);
    return;
  }
  sample_whole(c, &c->insn[a->insn_slot], a, sm, sectors);
  if (a->kind != CC_ACCESS_STORE)
    quick_unseen(c, a->insn_slot, sm);
}

/* Whether one of the lines of sectors first..last (a RANGE form's) is sampled: one class
 * for a range of 4-byte lanes within a line, two across a line's end. */
static inline __attribute__((always_inline)) int range_sampled(const struct cc_cache *c,
                                                               uint64_t first, uint64_t last)
{
  int any = sampled_line(c, first / 4);
  for (uint64_t line = first / 4 + 1; line <= last / 4; line++)
    any |= sampled_line(c, line);
  return any;
}

/* The quick path's global load equal to its SM's L1 memo m (memo_loads: L1 caches global
 * loads, so whole_counts counts only its wavefronts), of `sectors` sectors: what
 * memo_first counts, without whole_counts' tests. */
static inline __attribute__((always_inline)) void quick_memo_load(
    struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm, const struct l1_memo *m,
    uint32_t sectors)
{
  uint32_t wavefronts = (sectors + 3) / 4;
  c->insn[a->insn_slot].l1_wavefronts += wavefronts;
  c->sm_wavefronts[sm] += wavefronts;
  quick_memo_hit(c, a->insn_slot, sm, m);
}

/* The quick path's range (lanes affine, d = size or 0) touching a sampled line, its
 * whole-record counts done: its sampled lines replayed (the key recomputed: the quick
 * path jumps here, keeping no registers). */
static __attribute__((noinline)) void quick_range_replay(struct cc_cache *c,
                                                         const struct cc_warp_access *a,
                                                         uint32_t sm)
{
  uint64_t lo = a->addr[0];
  struct form_key k = {FORM_RANGE, lo / CC_CACHE_SECTOR_BYTES,
                       (lo + range_span(a) - 1) / CC_CACHE_SECTOR_BYTES};
  cc_cache_sample_replay(c, a, sm, 0, k, 0);
}

/* The quick path's column (the line-per-lane form, lanes affine): the memos
 * (memo_first, store_first), the sampled lanes (sample_lanes), the
 * whole-record counts, and the sampled lanes' replay or the unseen wait. */
static __attribute__((noinline)) void quick_column(struct cc_cache *c,
                                                   const struct cc_warp_access *a, uint32_t sm)
{
  struct form_key k = {FORM_LANES, a->addr[0] / CC_CACHE_SECTOR_BYTES,
                       a->addr[1] - a->addr[0]};
  uint32_t lanes;
  if (memo_first(c, a, sm, k, 0) || store_first(c, a, sm, k, 0))
    return;
  lanes = sample_lanes(c, &c->lanes_memo, k);
  sample_whole(c, &c->insn[a->insn_slot], a, sm, CC_WARP_SIZE);
  if (lanes)
    cc_cache_sample_replay(c, a, sm, 0, k, lanes);
  else if (a->kind != CC_ACCESS_STORE)
    quick_unseen(c, a->insn_slot, sm);
}

_Static_assert(CC_ACCESS_MAX_BYTES <= CC_CACHE_SECTOR_BYTES,
               "quick_rest: a record of cc_cache_access has lanes of at most a sector");

/* The quick path's range (FORM_RANGE, sectors first..last) after the memo's test: its
 * whole-record counts, and its sampled lines replayed or its unseen wait. touches:
 * whether one of its lines is sampled. */
static inline __attribute__((always_inline)) void quick_range_end(
    struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm, uint32_t sectors,
    int touches)
{
  sample_whole(c, &c->insn[a->insn_slot], a, sm, sectors);
  if (touches)
    quick_range_replay(c, a, sm);
  else if (a->kind != CC_ACCESS_STORE)
    quick_unseen(c, a->insn_slot, sm);
}

/* Whether load a of FORM_RANGE first..last is its SM's L1 memo's (memo_first's test). */
static inline __attribute__((always_inline)) const struct l1_memo *quick_range_memo(
    const struct cc_cache *c, const struct cc_warp_access *a, uint32_t sm, uint64_t first,
    uint64_t last)
{
  const struct l1_memo *m = memo_of(c, sm);
  if (a->kind != CC_ACCESS_LOAD || !c->memo_loads || m->key.form != FORM_RANGE ||
      m->key.a != first || m->key.b != last)
    return NULL;
  return m;
}

/* The quick path's range of 2 lines or more (lanes of 8 bytes or more, or not aligned,
 * or a broadcast across a line's end): quick_rest's steps, with the classes of every
 * line. */
static __attribute__((noinline)) void quick_range_wide(struct cc_cache *c,
                                                       const struct cc_warp_access *a,
                                                       uint32_t sm)
{
  uint64_t lo = a->addr[0], first = lo / CC_CACHE_SECTOR_BYTES;
  uint64_t last = (lo + range_span(a) - 1) / CC_CACHE_SECTOR_BYTES;
  const struct l1_memo *m = quick_range_memo(c, a, sm, first, last);
  if (m)
    quick_memo_load(c, a, sm, m, (uint32_t)(last - first + 1));
  else
    quick_range_end(c, a, sm, (uint32_t)(last - first + 1), range_sampled(c, first, last));
}

/* The quick path's range (lanes affine, d = size or 0) not within one line: past 2^64 - 1
 * (no fast form) to sample_slow, the others to quick_range_wide. */
static __attribute__((noinline)) void quick_range_other(struct cc_cache *c,
                                                        const struct cc_warp_access *a,
                                                        uint32_t sm)
{
  uint64_t lo = a->addr[0];
  if (lo + range_span(a) <= lo)
    cc_cache_sample_slow(c, a, sm, 0);
  else
    quick_range_wide(c, a, sm);
}

/* The quick path's lanes a line or more apart (d = addr[1] - addr[0] is not the size):
 * a load equal to its SM's L1 memo of a column (FORM_LANES, key: first sector, stride)
 * counted here (a leaf), the column form (as cc_cache_form_of decides it) to quick_column,
 * the others to sample_slow. The memo's test comes first: a key of the column form with
 * this first sector and stride d holds the form's tests on d (at least a line, whole
 * sectors, below 2^62) and the range's end below 2^64 (the key's record had it, from a
 * sector's start at most 31 bytes before lo + 32 d, which is that sector's offset plus
 * 32 d), so that only the lane's bytes in one sector are left to test; a d of 2^59 or
 * more, which the second test sends to sample_slow, would get the same counts there
 * (memo_first). */
static __attribute__((noinline)) void quick_lanes(struct cc_cache *c,
                                                  const struct cc_warp_access *a, uint32_t sm)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t lo = a->addr[0], d = a->addr[1] - lo;
  const struct l1_memo *m = memo_of(c, sm);
  if (a->kind == CC_ACCESS_LOAD && c->memo_loads &&
      c->ml[sm].e[0].key_a == lo / CC_CACHE_SECTOR_BYTES && m->key.form == FORM_LANES &&
      m->key.a == lo / CC_CACHE_SECTOR_BYTES && m->key.b == d &&
      lo % CC_CACHE_SECTOR_BYTES + size <= CC_CACHE_SECTOR_BYTES)
    quick_memo_load(c, a, sm, m, CC_WARP_SIZE);
  else if (!(d >= CC_CACHE_LINE_BYTES && d < (1ull << 59) && /* d x 32 below 2^64 */
             lo % CC_CACHE_SECTOR_BYTES + size <= CC_CACHE_SECTOR_BYTES &&
             d % CC_CACHE_SECTOR_BYTES == 0 && lo + d * CC_WARP_SIZE > lo))
    cc_cache_sample_slow(c, a, sm, 0);
  else
    quick_column(c, a, sm);
}

/* Whether the line of byte address lo is sampled (sampled_line of lo / 128, with the
 * class hash's multiplier kept by the switch). */
static inline __attribute__((always_inline)) int quick_sampled(const struct cc_cache *c,
                                                               uint64_t lo)
{
  uint64_t line = lo / CC_CACHE_LINE_BYTES;
  return !(((line & 15) ^ (((line >> 4) * c->class_mul) >> 60)) & c->sample_mask);
}

/* The quick path's range within one sampled line (quick_line_load, quick_line_other):
 * cc_cache_sample_line, lo and the range's bytes read again from record a (its first
 * lane, range_span: quick_rest's), so that the leaves keep only c, a and sm for this jump
 * (fewer registers, none saved). */
static __attribute__((noinline)) void quick_line_sampled(struct cc_cache *c,
                                                         const struct cc_warp_access *a,
                                                         uint32_t sm)
{
  cc_cache_sample_line(c, a, sm, a->addr[0], range_span(a));
}

/* The quick path's global load of `bytes` bytes from lo (range_span: 32 lanes one after
 * the other, or a broadcast), a range within one line (FORM_RANGE, one wavefront): its
 * whole-record counts (whole_counts), then its SM's L1 memo (memo_first), or its line's
 * class: its replay or its unseen wait. A leaf. */
static __attribute__((noinline)) void quick_line_load(struct cc_cache *c,
                                                      const struct cc_warp_access *a,
                                                      uint32_t sm, uint64_t lo, uint64_t bytes)
{
  uint32_t slot = a->insn_slot;
  const struct l1_memo *m = memo_of(c, sm);
  c->insn[slot].l1_wavefronts++;
  c->sm_wavefronts[sm]++;
  if (!c->dev.l1_global_loads) /* L1 does not cache them: every sector to L2 */
    c->insn[slot].l2_sectors_read +=
        (lo % CC_CACHE_SECTOR_BYTES + bytes - 1) / CC_CACHE_SECTOR_BYTES + 1;
  /* the memo's range: its first and last sectors (computed only when the first matches;
   * the first from the list, struct memo_list key_a: the memo itself read on a match) */
  if (c->memo_loads && c->ml[sm].e[0].key_a == lo / CC_CACHE_SECTOR_BYTES &&
      m->key.form == FORM_RANGE && m->key.a == lo / CC_CACHE_SECTOR_BYTES &&
      m->key.b == (lo + bytes - 1) / CC_CACHE_SECTOR_BYTES)
    quick_memo_hit(c, slot, sm, m);
  else if (quick_sampled(c, lo))
    quick_line_sampled(c, a, sm);
  else
    quick_unseen(c, slot, sm);
}

/* quick_line_load's store or atomic: its whole-record counts, its line's replay or (an
 * atomic) its unseen wait. A leaf. */
static __attribute__((noinline)) void quick_line_other(struct cc_cache *c,
                                                       const struct cc_warp_access *a,
                                                       uint32_t sm, uint64_t lo, uint64_t bytes)
{
  uint32_t sectors = (uint32_t)((lo % CC_CACHE_SECTOR_BYTES + bytes - 1) /
                                CC_CACHE_SECTOR_BYTES + 1);
  struct cc_cache_counts *ex = &c->insn[a->insn_slot];
  ex->l1_wavefronts++;
  c->sm_wavefronts[sm]++;
  if (a->kind == CC_ACCESS_STORE) {
    ex->l2_sectors_write += sectors;
    if (quick_sampled(c, lo))
      quick_line_sampled(c, a, sm);
    return;
  }
  ex->l2_sectors_atomic += sectors;
  if (quick_sampled(c, lo))
    quick_line_sampled(c, a, sm);
  else
    quick_unseen(c, a->insn_slot, sm);
}

/* The quick path of a global record of 32 active lanes while sampling (base 0) whose
 * lanes are affine (the caller tests it: quick_avx2 with AVX2), lo = addr[0], d =
 * addr[1] - lo: its form (as cc_cache_form_of, from the same tests) and the jump on: a
 * range within one line (4-byte lanes from an aligned address: most records; or a
 * broadcast, d = 0) to quick_line_load or quick_line_other, a wider range to
 * quick_range_wide, one past 2^64 - 1 to sample_slow, lanes apart to quick_lanes. The
 * caller has checked the record (slot, size at most CC_ACCESS_MAX_BYTES). Inline in the
 * caller, which keeps no registers: tail calls only. */
static inline __attribute__((always_inline)) void quick_rest(struct cc_cache *c,
                                                             const struct cc_warp_access *a,
                                                             uint32_t sm, uint64_t lo,
                                                             uint64_t d)
{
  uint64_t bytes; /* FORM_RANGE's (range_span) */
  if (d == 0) /* a broadcast (size 0 read as 1) */
    bytes = a->size_bytes ? a->size_bytes : 1;
  else if (d == a->size_bytes)
    bytes = CC_WARP_SIZE * d;
  else {
    quick_lanes(c, a, sm);
    return;
  }
  /* FORM_RANGE within one line: lo's offset in its line plus the range's bytes fit the
   * line (which also keeps the range below 2^64) */
  if (lo % CC_CACHE_LINE_BYTES + bytes > CC_CACHE_LINE_BYTES)
    quick_range_other(c, a, sm);
  else if (a->kind == CC_ACCESS_LOAD)
    quick_line_load(c, a, sm, lo, bytes);
  else
    quick_line_other(c, a, sm, lo, bytes);
}

#ifdef CC_CACHE_AVX2
/* Whether every lane l of a is at a->addr[0] + l x d, d = addr[1] - addr[0] (modulo
 * 2^64), with AVX2: lanes 1..4 less lanes 0..3 all d (so lanes 0..4 are the
 * progression), then lanes 4k..4k+3 (k = 1..7) equal to lanes 0..3 plus 4 k d (an
 * addition, an xor and an or a step; d from the first difference, broadcast in the
 * vector unit). Exact: both hold iff the lanes are the progression. */
static inline __attribute__((always_inline, target("avx2"))) int quick_affine_avx2(
    const struct cc_warp_access *a)
{
  __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)&a->addr[0]);
  __m256i neg = _mm256_sub_epi64(v0, _mm256_loadu_si256((const __m256i *)(const void *)&a->addr[1]));
  __m256i step = _mm256_permute4x64_epi64(neg, 0); /* -d in each lane */
  __m256i bad = _mm256_xor_si256(neg, step), want = v0;
  __m256i four = _mm256_slli_epi64(step, 2);       /* -4 d */
#pragma GCC unroll 8
  for (uint32_t l = 4; l < CC_WARP_SIZE; l += 4) {
    want = _mm256_sub_epi64(want, four);
    bad = _mm256_or_si256(
        bad, _mm256_xor_si256(want, _mm256_loadu_si256((const __m256i *)(const void *)&a->addr[l])));
  }
  return _mm256_testz_si256(bad, bad);
}

/* The quick path with AVX2 (where the host has it: cc_cache_access asks): the lanes'
 * test inline, the rest a jump (lanes not affine: cc_cache_sample_general_global). */
static __attribute__((target("avx2"), noinline)) void quick_avx2(struct cc_cache *c,
                                                                  const struct cc_warp_access *a,
                                                                  uint32_t sm)
{
  if (quick_affine_avx2(a))
    quick_rest(c, a, sm, a->addr[0], a->addr[1] - a->addr[0]);
  else
    cc_cache_sample_general_global(c, a, sm);
}
#endif

/* The quick path, portable (the lanes' test: cc_access_lanes_affine). */
static __attribute__((noinline)) void quick_portable(struct cc_cache *c,
                                                     const struct cc_warp_access *a,
                                                     uint32_t sm)
{
  uint64_t lo = a->addr[0], d = a->addr[1] - lo;
  if (cc_access_lanes_affine(a, d))
    quick_rest(c, a, sm, lo, d);
  else
    cc_cache_sample_general_global(c, a, sm);
}

cc_cache_quick_fn *cc_cache_quick_for_host(void)
{
#ifdef CC_CACHE_AVX2
  if (__builtin_cpu_supports("avx2"))
    return quick_avx2;
#endif
  return quick_portable;
}
