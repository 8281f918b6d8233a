/* A record's lines and sectors: its form (the fast ones follow from a few numbers), the
 * gathering of its lanes into lines in increasing order with their sectors and, for
 * stores and atomics, the bytes written; and while set sampling, the sampled lanes of a
 * column and a general record's sectors and classes in one pass. The replay is cache.c;
 * the rules: its top comment. */
#include "cache/cache_impl.h"

#include <string.h>


/* The lines of the contiguous bytes [lo, hi) (hi - lo <= 4 lines) appended to g, a
 * range_ent each. */
static void gather_range(uint64_t lo, uint64_t hi, struct gather *g)
{
  uint64_t last = (hi - 1) / CC_CACHE_LINE_BYTES;
  for (uint64_t line = lo / CC_CACHE_LINE_BYTES; line <= last; line++) {
    uint64_t from = line * CC_CACHE_LINE_BYTES, to = from + CC_CACHE_LINE_BYTES;
    g->sectors += range_ent(&g->e[g->n++], from > lo ? from : lo, to < hi ? to : hi,
                            g->want_bytes);
  }
  g->max_line = last;
}

/* Four lanes' addresses at once (a vector of the compiler: one AVX2 register, or two
 * SSE2 or NEON registers, or scalars where the target has none). */
typedef uint64_t lane_quad __attribute__((vector_size(32)));

/* Whether lanes first .. first + n - 1 of a (first + n <= 32) are at addr[first] + l x size
 * (l = 0 .. n - 1) once base is added: four lanes a step (the compiler's vectors: an
 * addition, an xor and an or a step, no branch on the data), the last n mod 4 one by one. The cut records of a row straddling two
 * lines are runs of 16 to 31 lanes. Inline in run_affine's two forms. */
static inline __attribute__((always_inline)) int run_affine_body(
    const struct cc_warp_access *a, uint32_t first, uint32_t n, uint64_t base, uint64_t size)
{
  uint64_t lo = a->addr[first] + base;
  lane_quad want = {lo, lo + size, lo + 2 * size, lo + 3 * size}, bad = {0, 0, 0, 0};
  lane_quad four = {4 * size, 4 * size, 4 * size, 4 * size};
  lane_quad add = {base, base, base, base};
  uint32_t l = 0;
  for (; l + 4 <= n; l += 4) {
    lane_quad v;
    memcpy(&v, &a->addr[first + l], sizeof v);
    bad |= (v + add) ^ want;
    want += four;
  }
  for (; l < n; l++)
    bad[0] |= (a->addr[first + l] + base) ^ (lo + l * size);
  return (bad[0] | bad[1] | bad[2] | bad[3]) == 0;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CC_CACHE_NO_AVX2)
#define HAVE_AVX2_AFFINE 1
#endif

/* A piece of a lane's bytes within one sector: the sector, and its bytes as a bit mask. */
struct piece {
  uint64_t sector;
  uint32_t bytes;
};

/* Adds piece p to g, whose last line is at most p's (the entries stay in line order). */
static inline void group_piece(struct gather *g, struct piece p)
{
  uint64_t line = p.sector / 4;
  uint32_t s = (uint32_t)(p.sector % 4);
  struct ent *e = g->n ? &g->e[g->n - 1] : NULL;
  if (!e || e->line != line) {
    e = &g->e[g->n++];
    e->line = line;
    e->mask = 0;
    if (g->want_bytes)
      memset(e->bytes, 0, sizeof e->bytes);
  }
  g->sectors += !(e->mask & (1u << s));
  e->mask |= (uint8_t)(1u << s);
  if (g->want_bytes)
    e->bytes[s] |= p.bytes;
}

/* g emptied for record a's entries in the general form (stores and atomics keep their
 * bytes per sector). */
static void empty_general(struct gather *g, const struct cc_warp_access *a)
{
  g->n = 0;
  g->sectors = 0;
  g->max_line = 0;
  g->want_bytes = a->kind != CC_ACCESS_LOAD;
  g->key = (struct form_key){FORM_GENERAL, 0, 0};
}

/* The pieces of a's active lanes (addresses + base) into pc, in lane order: each lane's
 * bytes cut at sector boundaries (at most 2 a lane: size <= 32; bytes past 2^64 - 1 wrap
 * to address 0, as addresses do); returns their number. */
static uint32_t cut(const struct cc_warp_access *a, uint64_t base, struct piece *pc)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, n = 0, cross = 0;
  for (uint32_t m = a->active; m; m &= m - 1, n++) { /* a piece a lane, without a branch */
    uint64_t addr = a->addr[__builtin_ctz(m)] + base;
    uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
    cross |= off + size > CC_CACHE_SECTOR_BYTES;
    pc[n].sector = addr / CC_CACHE_SECTOR_BYTES;
    pc[n].bytes = byte_bits(off, size);
  }
  if (!cross) /* every lane within one sector: most records */
    return n;
  n = 0;
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t addr = a->addr[__builtin_ctz(m)] + base;
    uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
    if (off + size <= CC_CACHE_SECTOR_BYTES) {
      pc[n].sector = addr / CC_CACHE_SECTOR_BYTES;
      pc[n++].bytes = byte_bits(off, size);
      continue;
    }
    for (uint32_t left = size; left > 0;) {
      uint32_t len = CC_CACHE_SECTOR_BYTES - off < left ? CC_CACHE_SECTOR_BYTES - off : left;
      pc[n].sector = addr / CC_CACHE_SECTOR_BYTES;
      pc[n++].bytes = byte_bits(off, len);
      addr += len;
      left -= len;
      off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
    }
  }
  return n;
}

/* Sorts the n pieces of pc (n <= 64) by sector: an insertion sort, stable. A merge sort
 * of 64 random pieces measured slower here (bench gather, session 13). */
static void sort_pieces(struct piece *pc, uint32_t n)
{
  for (uint32_t i = 1; i < n; i++) {
    struct piece t = pc[i];
    uint32_t j = i;
    for (; j > 0 && pc[j - 1].sector > t.sector; j--)
      pc[j] = pc[j - 1];
    pc[j] = t;
  }
}

/* g (emptied) = the n pieces of pc, in sector order, grouped into lines. */
static void group_pieces(struct gather *g, const struct piece *pc, uint32_t n)
{
  g->n = 0;
  g->sectors = 0;
  for (uint32_t i = 0; i < n; i++)
    group_piece(g, pc[i]);
  g->max_line = g->n ? g->e[g->n - 1].line : 0;
}

/* The general form's gathering: the lanes' pieces (cut) grouped into lines as they come,
 * while they come in sector order (lanes in address order: one pass, nothing stored); at
 * the first piece out of order, all the pieces are cut again, sorted by sector
 * (sort_pieces) and grouped from the start. The lines end in increasing order, each
 * with its mask and per sector the bytes (stores, atomics). */
static void gather_general(const struct cc_warp_access *a, uint64_t base, struct gather *g)
{
  struct piece pc[2 * CC_WARP_SIZE];
  uint32_t size = a->size_bytes ? a->size_bytes : 1, n;
  uint64_t last = 0;
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t addr = a->addr[__builtin_ctz(m)] + base;
    for (uint32_t left = size; left > 0;) {
      uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
      uint32_t len = CC_CACHE_SECTOR_BYTES - off < left ? CC_CACHE_SECTOR_BYTES - off : left;
      struct piece p = {addr / CC_CACHE_SECTOR_BYTES, byte_bits(off, len)};
      if (p.sector < last)
        goto unsorted;
      last = p.sector;
      group_piece(g, p);
      addr += len;
      left -= len;
    }
  }
  g->max_line = g->n ? g->e[g->n - 1].line : 0;
  return;
unsorted:
  n = cut(a, base, pc);
  sort_pieces(pc, n);
  group_pieces(g, pc, n);
}

#define SEEN_WORDS 16u /* distinct_sectors' filter: 1024 bits for up to 64 sectors */

/* The distinct sectors among the n of sector[] (n <= 64, in any order), each tested in a
 * filter of 1024 bits (a bit a sector, by a multiplicative hash): a sector whose bit is
 * clear is new, one whose bit is set is compared with those before it, the nearest first
 * (a repeat is mostly a recent lane's). Why not an open-addressed table of the sectors
 * (before 2026-11-29): its 1 KiB to clear and its probes cost 800 host instructions a
 * gather of 32 distinct sectors; the filter (128 bytes) and the few compares after a
 * false hit (about one a gather at 32 in 1024) two thirds of that. */
static uint32_t distinct_sectors(const uint64_t *sector, uint32_t n)
{
  uint64_t seen[SEEN_WORDS] = {0};
  uint32_t count = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t s = sector[i];
    uint32_t h = (uint32_t)((s * 0x9e3779b97f4a7c15ull) >> 54); /* 10 bits */
    uint64_t bit = 1ull << (h % 64);
    uint32_t k = i;
    if (!(seen[h / 64] & bit)) {
      seen[h / 64] |= bit;
      count++;
      continue;
    }
    while (k > 0 && sector[k - 1] != s)
      k--;
    count += k == 0; /* none before it is s */
  }
  return count;
}

/* The lanes of a (32 active) whose line is sampled. */
static uint32_t sampled_lanes32(const struct cc_cache *c, const struct cc_warp_access *a,
                                uint64_t base)
{
  uint32_t out = 0;
#ifdef CC_CACHE_AVX2
  if (c->dev.index == CC_CACHE_INDEX_HASH && __builtin_cpu_supports("avx2"))
    return addrs_sampled_avx2(a->addr, base, c->sample_mask);
#endif
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    out |= (uint32_t)sampled_line(c, (a->addr[l] + base) / CC_CACHE_LINE_BYTES) << l;
  return out;
}

/* Whether the active lanes of a (at least one) lie in one line, each lane's bytes within
 * one sector: the line as g's one entry (kept only if sampled), its sectors returned in
 * *sectors. Why: a record of some lanes active on one line (a divergent branch's half
 * warp) went through cut, the sector table and the sort, ~1,500 host instructions for
 * one line (bench/results/cache-speed-2026-11-29-s16.md). a has a lane active; leaves
 * at the first lane of another line. */
static int gather_one_line(const struct cc_cache *c, const struct cc_warp_access *a,
                           uint64_t base, struct gather *g, uint32_t *sectors)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, cross = 0, bytes[4] = {0};
  uint64_t line = (a->addr[__builtin_ctz(a->active)] + base) / CC_CACHE_LINE_BYTES;
  uint8_t mask = 0;
  if ((a->addr[31 - __builtin_clz(a->active)] + base) / CC_CACHE_LINE_BYTES != line)
    return 0; /* the first and last lanes first: a gather's differ */
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t addr = a->addr[__builtin_ctz(m)] + base;
    uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
    uint32_t s = (uint32_t)(addr / CC_CACHE_SECTOR_BYTES % 4);
    if (addr / CC_CACHE_LINE_BYTES != line)
      return 0;
    cross |= off + size > CC_CACHE_SECTOR_BYTES;
    mask |= (uint8_t)(1u << s);
    bytes[s] |= byte_bits(off, size);
  }
  if (cross)
    return 0;
  *sectors = cc_popcount32(mask);
  if (!g)
    return 1;
  empty_general(g, a);
  if (sampled_line(c, line)) {
    struct ent *e = &g->e[g->n++];
    e->line = line;
    e->mask = mask;
    memcpy(e->bytes, bytes, sizeof e->bytes);
    g->sectors = *sectors;
    g->max_line = line;
  }
  return 1;
}

uint32_t cc_cache_gather_general_sampled(const struct cc_cache *c,
                                         const struct cc_warp_access *a, uint64_t base,
                                         struct gather *g)
{
  struct piece pc[2 * CC_WARP_SIZE];
  uint32_t n, k = 0, sectors = 0;
  uint64_t last = 0;
  int sorted = 1;
  if (a->active && gather_one_line(c, a, base, g, &sectors))
    return sectors;
  if (a->active == UINT32_MAX) {
    /* 32 lanes, each (when none crosses a sector) a piece of one sector (a gather): the
     * sectors counted (distinct_sectors), the pieces of sampled lines alone made, picked
     * by their lanes' classes four at a time; sorting the kept pieces (stable) gives the
     * general way's order whether the lanes were in order or not */
    uint32_t size = a->size_bytes ? a->size_bytes : 1, cross = 0;
    uint64_t sector[CC_WARP_SIZE];
    for (uint32_t l = 0; l < CC_WARP_SIZE; l++) {
      uint64_t addr = a->addr[l] + base;
      sector[l] = addr / CC_CACHE_SECTOR_BYTES;
      cross |= (uint32_t)(addr % CC_CACHE_SECTOR_BYTES) + size > CC_CACHE_SECTOR_BYTES;
    }
    if (!cross) {
      sectors = distinct_sectors(sector, CC_WARP_SIZE);
      if (!g)
        return sectors;
      for (uint32_t m = sampled_lanes32(c, a, base); m; m &= m - 1) {
        uint32_t l = (uint32_t)__builtin_ctz(m);
        pc[k].sector = sector[l];
        pc[k++].bytes =
            byte_bits((uint32_t)((a->addr[l] + base) % CC_CACHE_SECTOR_BYTES), size);
      }
      sort_pieces(pc, k);
      empty_general(g, a);
      group_pieces(g, pc, k);
      return sectors;
    }
  }
  n = cut(a, base, pc);
  for (uint32_t i = 0; i < n; i++) { /* in sector order: count the changes */
    sorted &= i == 0 || pc[i].sector >= last;
    sectors += i == 0 || pc[i].sector != last;
    last = pc[i].sector;
  }
  if (!sorted) {
    uint64_t sector[2 * CC_WARP_SIZE];
    for (uint32_t i = 0; i < n; i++)
      sector[i] = pc[i].sector;
    sectors = distinct_sectors(sector, n);
  }
  if (!g)
    return sectors;
  for (uint32_t i = 0; i < n; i++) /* the pieces of sampled lines, then in sector order */
    if (sampled_line(c, pc[i].sector / 4))
      pc[k++] = pc[i];
  if (!sorted)
    sort_pieces(pc, k);
  empty_general(g, a);
  group_pieces(g, pc, k);
  return sectors;
}

#ifdef HAVE_AVX2_AFFINE
/* run_affine_body with AVX2 (one register a step) where the host has it. */
__attribute__((target("avx2"))) static int run_affine_avx2(const struct cc_warp_access *a,
                                                            uint32_t first, uint32_t n,
                                                            uint64_t base, uint64_t size)
{
  return run_affine_body(a, first, n, base, size);
}
#endif

/* run_affine_body, with AVX2 where the host has it. */
static int run_affine(const struct cc_warp_access *a, uint32_t first, uint32_t n,
                      uint64_t base, uint64_t size)
{
#ifdef HAVE_AVX2_AFFINE
  if (__builtin_cpu_supports("avx2"))
    return run_affine_avx2(a, first, n, base, size);
#endif
  return run_affine_body(a, first, n, base, size);
}

int cc_cache_gather_cut_range(const struct cc_cache *c, const struct cc_warp_access *a,
                              uint64_t base, struct gather *g)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, first = (uint32_t)__builtin_ctz(a->active);
  uint64_t run = (uint64_t)(a->active >> first) + 1; /* a power of two iff the lanes are a run */
  uint32_t n = (uint32_t)__builtin_ctzll(run); /* the run's lanes */
  uint64_t lo = a->addr[first] + base, hi = lo + (uint64_t)n * size, line = lo / CC_CACHE_LINE_BYTES;
  if ((run & (run - 1)) || hi <= lo || (hi - 1) / CC_CACHE_LINE_BYTES != line ||
      !sampled_line(c, line) || !run_affine(a, first, n, base, size))
    return 0;
  empty_general(g, a);
  gather_line_range(g, lo, hi);
  return 1;
}

int cc_cache_gather_sampled(const struct cc_cache *c, const struct cc_warp_access *a,
                            uint64_t base, struct gather *g)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t last = 0;
  empty_general(g, a);
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t addr = a->addr[__builtin_ctz(m)] + base;
    uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
    struct piece p = {addr / CC_CACHE_SECTOR_BYTES, byte_bits(off, size)};
    if (off + size > CC_CACHE_SECTOR_BYTES || p.sector < last)
      return 0;
    if ((!g->n || g->e[g->n - 1].line != p.sector / 4) && !sampled_line(c, p.sector / 4))
      return 0;
    last = p.sector;
    group_piece(g, p);
  }
  g->max_line = g->n ? g->e[g->n - 1].line : 0;
  return 1;
}

/* The lines and sectors of a's active lanes (addresses + base) in form k (form_of); for
 * stores the bytes. */
void cc_cache_gather(const struct cc_warp_access *a, uint64_t base, struct form_key k,
                     struct gather *g)
{
  g->n = 0;
  g->sectors = 0;
  g->want_bytes = a->kind != CC_ACCESS_LOAD;
  g->key = k;
  if (k.form == FORM_RANGE) {
    uint64_t lo = a->addr[0] + base;
    gather_range(lo, lo + range_span(a), g);
    return;
  }
  if (k.form == FORM_LANES || k.form == FORM_STRIDED) {
    cc_cache_gather_lanes(a, base, k, UINT32_MAX, g);
    return;
  }
  gather_general(a, base, g);
}

/* The sampled lines of a's range form k (FORM_RANGE: sectors k.a..k.b) into g: gather's
 * entries for those lines only (cc_cache_gather and cc_cache_sample_filter in one pass,
 * without building the others). */
void cc_cache_gather_range_sampled(const struct cc_cache *c, const struct cc_warp_access *a,
                                   uint64_t base, struct form_key k, struct gather *g)
{
  uint64_t lo = a->addr[0] + base, hi = lo + range_span(a);
  g->n = 0;
  g->sectors = 0;
  g->want_bytes = a->kind != CC_ACCESS_LOAD;
  g->key = k;
  for (uint64_t line = k.a / 4; line <= k.b / 4; line++) {
    uint64_t from = line * CC_CACHE_LINE_BYTES, to = from + CC_CACHE_LINE_BYTES;
    if (sampled_line(c, line))
      g->sectors += range_ent(&g->e[g->n++], from > lo ? from : lo, to < hi ? to : hi,
                              g->want_bytes);
  }
  g->max_line = g->n ? g->e[g->n - 1].line : 0;
}

/* The lanes `lanes` of a's line-per-lane form k (LANES or STRIDED; lanes: all 32, or
 * sample_lanes's mask) into g: a line and a sector each, their lines increasing with the
 * lane; for stores each lane's bytes (the same place in every sector for LANES). */
void cc_cache_gather_lanes(const struct cc_warp_access *a, uint64_t base, struct form_key k,
                           uint32_t lanes, struct gather *g)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, n = 0;
  uint64_t lo = a->addr[0] + base;
  g->want_bytes = a->kind != CC_ACCESS_LOAD;
  g->key = k;
  g->sectors = 0;
  for (uint32_t m = lanes; m; m &= m - 1, n++) {
    uint64_t addr = lo + (uint64_t)__builtin_ctz(m) * k.b;
    struct ent *e = &g->e[n];
    e->line = addr / CC_CACHE_LINE_BYTES;
    e->mask = (uint8_t)(1u << (addr / CC_CACHE_SECTOR_BYTES % 4));
    if (g->want_bytes) {
      memset(e->bytes, 0, sizeof e->bytes);
      e->bytes[__builtin_ctz(e->mask)] =
          byte_bits((uint32_t)(addr % CC_CACHE_SECTOR_BYTES), size);
    }
  }
  g->n = g->sectors = n;
  g->max_line = n ? g->e[n - 1].line : 0;
}

#define GROUP_SPAN (16 * CC_CACHE_LINE_BYTES) /* bytes of an aligned group of 16 lines */

/* The sectors of a's active lanes whose bytes lie in [0, GROUP_SPAN) once `add` is added
 * to their addresses (bit s: sector s of the window) into *bits, their number into
 * *sectors; 0 if a lane's do not. */
static int group_bits(const struct cc_warp_access *a, uint64_t add, uint32_t size,
                      uint64_t *bits, uint32_t *sectors)
{
  uint64_t out = 0;
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t off = a->addr[__builtin_ctz(m)] + add; /* below the window: huge */
    uint64_t s0 = off / CC_CACHE_SECTOR_BYTES, s1 = (off + size - 1) / CC_CACHE_SECTOR_BYTES;
    if (off > GROUP_SPAN - size)
      return 0;
    out |= (2ull << s1) - (1ull << s0); /* sectors s0..s1 (s1 = 63: 2 << 63 wraps to 0) */
  }
  *bits = out;
  *sectors = cc_popcount64(out);
  return 1;
}

/* sample_group's window: where the active lanes of a (addresses + base) could lie in
 * one aligned group of 16 lines, its first byte (*from, from the first active lane) and
 * 1; 0 where the last active lane's bytes do not (most records of scattered lanes). */
static inline __attribute__((always_inline)) int group_window(const struct cc_warp_access *a,
                                                              uint64_t base, uint32_t size,
                                                              uint64_t *from)
{
  uint32_t last = 31 - (uint32_t)__builtin_clz(a->active);
  *from = (a->addr[__builtin_ctz(a->active)] + base) / GROUP_SPAN * GROUP_SPAN;
  return a->addr[last] + base - *from <= GROUP_SPAN - size;
}

/* sample_group's answer from the sectors `bits` of the group at byte `from`: whether one
 * of its lines with a sector in bits is sampled (a line's class is j xor the group's). */
static inline __attribute__((always_inline)) int group_sampled(const struct cc_cache *c,
                                                               uint64_t from, uint64_t bits)
{
  uint32_t shift = 4 * (cc_cache_line_class(c->dev.index, from / CC_CACHE_LINE_BYTES) &
                        c->sample_mask);
  return (bits & (c->sample_nibbles << shift)) != 0;
}

#ifdef CC_CACHE_AVX2
/* sample_group with AVX2 (the group at byte `from`, group_window's), group_bits' loop
 * four lanes a step over all 32: an inactive lane takes the first active lane's address
 * (a blend: its sectors are that lane's, already counted), so that no lane needs a mask
 * after. The blend's mask is the sign bit of each 64-bit lane (vblendvpd): the active
 * bits broadcast, lane j's shifted left by 31 - j once, so that lanes l..l+3's bits are
 * at bit l + 31 of their lanes, and a shift by 32 - l a step brings them to the sign. A
 * lane's bytes lie in the window iff its first and last sectors (s0, s1) are below 64
 * (bytes below the window, or wrapping past 2^64, give an s0 of 2^59 or more), tested
 * once for all lanes at the end; its sectors are s0 and s1 (lanes of at most a sector:
 * s1 is s0 or the next; a shift by 64 or more gives 0, and that lane fails the test).
 * The popcnt instruction (every AVX2 host has it) for the count. One function, no call:
 * the divergent warps' records (some lanes active) all come here. */
__attribute__((target("avx2,popcnt"))) static int sample_group_avx2(
    const struct cc_cache *c, const struct cc_warp_access *a, uint64_t base, uint64_t from,
    uint32_t *sectors)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t bits;
  const __m256i plus = _mm256_set1_epi64x((long long)(base - from));
  const __m256i tail = _mm256_set1_epi64x((long long)(size - 1));
  const __m256i one = _mm256_set1_epi64x(1);
  const __m256d fill = _mm256_castsi256_pd(
      _mm256_set1_epi64x((long long)a->addr[__builtin_ctz(a->active)]));
  const __m256i on = _mm256_sllv_epi64(_mm256_set1_epi64x((long long)a->active),
                                       _mm256_set_epi64x(28, 29, 30, 31));
  __m256i acc = _mm256_setzero_si256(), far = _mm256_setzero_si256();
  __m128i half;
#pragma GCC unroll 8
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    __m256d sign = _mm256_castsi256_pd(_mm256_slli_epi64(on, (int)(32 - l)));
    __m256i off = _mm256_add_epi64(
        _mm256_castpd_si256(_mm256_blendv_pd(
            fill, _mm256_loadu_pd((const double *)(const void *)&a->addr[l]), sign)),
        plus);
    __m256i s0 = _mm256_srli_epi64(off, 5);
    __m256i s1 = _mm256_srli_epi64(_mm256_add_epi64(off, tail), 5);
    far = _mm256_or_si256(far, _mm256_or_si256(s0, s1));
    acc = _mm256_or_si256(acc, _mm256_or_si256(_mm256_sllv_epi64(one, s1),
                                               _mm256_sllv_epi64(one, s0)));
  }
  if (!_mm256_testz_si256(far, _mm256_set1_epi64x(~63ll)))
    return -1;
  half = _mm_or_si128(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  bits = (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half)));
  *sectors = (uint32_t)__builtin_popcountll(bits);
  return group_sampled(c, from, bits);
}

_Static_assert(CC_ACCESS_MAX_BYTES <= CC_CACHE_SECTOR_BYTES,
               "sample_group_avx2: a lane's bytes touch at most two sectors");
#endif

/* Group-window form of cc_cache_sample_general: where every active lane's bytes lie in
 * one aligned group of 16 lines (2 KiB: a divergent warp's lanes, a few lines), their
 * sectors are the bits of one 64-bit mask (bit 4j + s: sector s of the group's line j),
 * ORed in lane order or not; the record's sectors are its bits, its lines its nonzero
 * nibbles, and a line's class is j xor the group's (cc_cache_line_class), so the sampled
 * lines of the group are the nibbles of c->sample_nibbles shifted by the group's class
 * (group_sampled). The group at byte `from` (group_window's, which the caller tested);
 * returns -1 where a lane leaves it (or its bytes wrap past 2^64). The portable form
 * (sample_group_avx2 where the host has AVX2); not inline, nor is sample_ordered:
 * cc_cache_sample_general then saves no registers. */
static __attribute__((noinline)) int sample_group(const struct cc_cache *c,
                                                  const struct cc_warp_access *a,
                                                  uint64_t base, uint64_t from,
                                                  uint32_t *sectors)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t bits = 0;
  if (!group_bits(a, base - from, size, &bits, sectors))
    return -1;
  return group_sampled(c, from, bits);
}

/* The ordered pass of cc_cache_sample_general (its lanes not in one group of 16 lines):
 * the active lanes one by one while their bytes come in address order (no byte masks,
 * no gathering); -1 at the first lane out of order or wrapping past 2^64. Not inline:
 * cc_cache_sample_general, whose group test comes first, saves no registers for it. */
static __attribute__((noinline)) int sample_ordered(const struct cc_cache *c,
                                                    const struct cc_warp_access *a,
                                                    uint64_t base, uint32_t *sectors)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, n = 0;
  uint64_t last = 0, seen = UINT64_MAX; /* the last sector counted, the last line tested */
  int any = 0, first = 1;
  for (uint32_t m = a->active; m; m &= m - 1, first = 0) {
    uint64_t lo = a->addr[__builtin_ctz(m)] + base, hi = lo + size - 1;
    uint64_t s0 = lo / CC_CACHE_SECTOR_BYTES, s1 = hi / CC_CACHE_SECTOR_BYTES;
    if (hi < lo || (!first && s0 < last))
      return -1;
    n += (uint32_t)(s1 - s0) + (first || s0 != last);
    for (uint64_t line = s0 / 4; line <= s1 / 4; line++)
      if (line != seen) {
        any |= sampled_line(c, line);
        seen = line;
      }
    last = s1;
  }
  *sectors = n;
  return any;
}

/* While sampling, a record in the general form: its sectors (*sectors) and whether one of
 * its lines is sampled, without gathering: sample_group where its lanes lie in 2 KiB, else
 * sample_ordered's pass over the active lanes in address order; -1 where neither applies
 * (the caller gathers). */
int cc_cache_sample_general(const struct cc_cache *c, const struct cc_warp_access *a,
                            uint64_t base, uint32_t *sectors)
{
  uint64_t from;
  int any = -1;
  if (group_window(a, base, a->size_bytes ? a->size_bytes : 1, &from)) {
#ifdef CC_CACHE_AVX2
    if (__builtin_cpu_supports("avx2"))
      any = sample_group_avx2(c, a, base, from, sectors);
    else
#endif
      any = sample_group(c, a, base, from, sectors);
  }
  return any >= 0 ? any : sample_ordered(c, a, base, sectors);
}
