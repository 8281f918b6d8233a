/* Sparse address set at the granularity of the gcd of its differences: see footprint.h. */
#include "analysis/footprint.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/bits.h"
#include "util/hash.h"
#include "util/mem.h"

#define CHUNK_SHIFT 9u /* 512 units per chunk */
#define CHUNK_WORDS ((1u << CHUNK_SHIFT) / 64u)
#define EMPTY SIZE_MAX
#define BIAS (1ull << 63) /* unit u (signed) is stored as key u + BIAS: order kept */
/* Chunks of a set from which a union merges the two sets in key order (union_merge)
 * rather than looking each chunk up, when into has at most 4 times as many. */
#define MERGE_MIN 256u

struct chunk {
  uint64_t key; /* (u + BIAS) >> CHUNK_SHIFT */
  uint64_t bits[CHUNK_WORDS];
};

struct cc_footprint {
  struct chunk *chunks;
  size_t n, cap;
  size_t *table;   /* chunk index or EMPTY; size table_cap, a power of two */
  size_t table_cap;
  size_t last;     /* chunk of the previous add: loops touch the same chunk again */
  /* the chunk each lane of a warp access used last (cc_analysis_fp_add_lanes): a
   * scattered access (a column of a matrix) touches 32 chunks, and the next warp the
   * same ones again, lane for lane; a hit costs no hash and no probe of the table */
  uint64_t lane_key[32];
  size_t lane_index[32]; /* EMPTY: none */
  uint64_t count;  /* distinct addresses */
  uint64_t origin; /* first address added */
  uint64_t gran;   /* g: gcd of the differences to origin; 0 while there are none */
  uint64_t mask;   /* g - 1 when g is a power of two (the common case: no division), else 0 */
  unsigned shift;  /* log2 g when mask is set */
  int sorted;      /* the chunks lie in increasing key order (after a merge: union_merge) */
};

static uint64_t gcd(uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Forgets the cached chunk indices (the chunks are being rebuilt). */
static void forget_cached(struct cc_footprint *fp)
{
  for (unsigned i = 0; i < 32; i++)
    fp->lane_index[i] = EMPTY;
  fp->last = EMPTY;
}

struct cc_footprint *cc_analysis_fp_new(void)
{
  struct cc_footprint *fp = cc_xcalloc(1, sizeof *fp);
  forget_cached(fp);
  return fp;
}

void cc_analysis_fp_free(struct cc_footprint *fp)
{
  if (!fp)
    return;
  free(fp->chunks);
  free(fp->table);
  free(fp);
}

static void rehash(struct cc_footprint *fp, size_t cap)
{
  free(fp->table);
  fp->table = cc_xmalloc(cap * sizeof *fp->table);
  cc_mem_huge(fp->table, cap * sizeof *fp->table);
  fp->table_cap = cap;
  for (size_t i = 0; i < cap; i++)
    fp->table[i] = EMPTY;
  for (size_t c = 0; c < fp->n; c++) {
    size_t h = cc_mix64(fp->chunks[c].key) & (cap - 1);
    while (fp->table[h] != EMPTY)
      h = (h + 1) & (cap - 1);
    fp->table[h] = c;
  }
}

/* Index of the chunk for key; a new zeroed one if absent. */
static size_t find_chunk(struct cc_footprint *fp, uint64_t key)
{
  if (fp->last != EMPTY && fp->chunks[fp->last].key == key)
    return fp->last;
  if (!fp->table_cap && fp->n) { /* dropped by a merge (union_merge): built again */
    size_t cap = 16;
    while (cap < 2 * (fp->n + 1))
      cap *= 2;
    rehash(fp, cap);
  }
  if (fp->table_cap) {
    size_t h = cc_mix64(key) & (fp->table_cap - 1);
    while (fp->table[h] != EMPTY) {
      if (fp->chunks[fp->table[h]].key == key)
        return fp->last = fp->table[h];
      h = (h + 1) & (fp->table_cap - 1);
    }
  }
  if (fp->n == fp->cap) {
    fp->cap = fp->cap ? fp->cap * 2 : 4;
    fp->chunks = cc_xrealloc(fp->chunks, fp->cap * sizeof *fp->chunks);
    cc_mem_huge(fp->chunks, fp->cap * sizeof *fp->chunks); /* found by hash: mem.h */
  }
  memset(&fp->chunks[fp->n], 0, sizeof fp->chunks[0]);
  if (!fp->n)
    fp->sorted = 1; /* one chunk is in order; the next ones keep it while keys grow */
  else if (key < fp->chunks[fp->n - 1].key)
    fp->sorted = 0;
  fp->chunks[fp->n].key = key;
  fp->n++;
  if (2 * fp->n > fp->table_cap) /* load factor <= 1/2 */
    rehash(fp, fp->table_cap ? fp->table_cap * 2 : 16);
  else {
    size_t h = cc_mix64(key) & (fp->table_cap - 1);
    while (fp->table[h] != EMPTY)
      h = (h + 1) & (fp->table_cap - 1);
    fp->table[h] = fp->n - 1;
  }
  return fp->last = fp->n - 1;
}

/* Sets the bit of biased unit key ukey for lane `lane` (0..31: its cached chunk is tried
 * first; 32: no lane cache). */
static inline void set_unit_lane(struct cc_footprint *fp, uint64_t ukey, unsigned lane)
{
  uint64_t key = ukey >> CHUNK_SHIFT;
  size_t c;
  if (lane < 32 && fp->lane_index[lane] != EMPTY && fp->lane_key[lane] == key) {
    c = fp->lane_index[lane];
  } else {
    c = find_chunk(fp, key);
    if (lane < 32) {
      fp->lane_key[lane] = key;
      fp->lane_index[lane] = c;
    }
  }
  uint32_t bit = (uint32_t)(ukey & ((1u << CHUNK_SHIFT) - 1));
  uint64_t mask = 1ull << (bit % 64);
  uint64_t *w = &fp->chunks[c].bits[bit / 64];
  if (!(*w & mask)) {
    *w |= mask;
    fp->count++;
  }
}

/* Sets the bit of biased unit key ukey. */
static void set_unit(struct cc_footprint *fp, uint64_t ukey)
{
  size_t c = find_chunk(fp, ukey >> CHUNK_SHIFT);
  uint32_t bit = (uint32_t)(ukey & ((1u << CHUNK_SHIFT) - 1));
  uint64_t mask = 1ull << (bit % 64);
  uint64_t *w = &fp->chunks[c].bits[bit / 64];
  if (!(*w & mask)) {
    *w |= mask;
    fp->count++;
  }
}

/* Address of biased unit key ukey (arithmetic mod 2^64, exact for real addresses). */
static uint64_t unit_addr(const struct cc_footprint *fp, uint64_t ukey)
{
  return fp->origin + (ukey - BIAS) * fp->gran;
}

/* Rebuilds fp with every unit multiplied by factor (the granularity became g / factor). */
static void refine(struct cc_footprint *fp, uint64_t factor)
{
  struct chunk *old = fp->chunks;
  size_t n = fp->n;
  fp->chunks = NULL;
  fp->n = fp->cap = 0;
  fp->count = 0;
  fp->sorted = 0;
  forget_cached(fp);
  free(fp->table);
  fp->table = NULL;
  fp->table_cap = 0;
  for (size_t c = 0; c < n; c++)
    for (unsigned w = 0; w < CHUNK_WORDS; w++)
      for (uint64_t bits = old[c].bits[w]; bits; bits &= bits - 1) {
        uint64_t ukey = (old[c].key << CHUNK_SHIFT) + w * 64u + (unsigned)__builtin_ctzll(bits);
        set_unit(fp, (ukey - BIAS) * factor + BIAS);
      }
  free(old);
}

/* Makes g the granularity (rebuilding the set when there was a coarser one). */
static void set_granularity(struct cc_footprint *fp, uint64_t g)
{
  if (fp->gran)
    refine(fp, fp->gran / g);
  fp->gran = g;
  fp->mask = (g & (g - 1)) == 0 ? g - 1 : 0;
  fp->shift = (unsigned)__builtin_ctzll(g);
}

/* cc_analysis_fp_add of lane `lane`'s address (32: not a lane), inlined into the batch
 * form below. */
static inline void add_one(struct cc_footprint *fp, uint64_t addr, unsigned lane)
{
  uint64_t dist, units, g;
  if (fp->n == 0) {
    fp->origin = addr;
    set_unit(fp, BIAS);
    return;
  }
  dist = addr >= fp->origin ? addr - fp->origin : fp->origin - addr;
  if (dist == 0)
    return;
  if (fp->gran && fp->mask == fp->gran - 1 && (dist & fp->mask) == 0) {
    units = dist >> fp->shift; /* fast path: g a power of two that divides dist */
  } else {
    g = gcd(fp->gran, dist);
    if (g != fp->gran)
      set_granularity(fp, g);
    units = dist / g;
  }
  set_unit_lane(fp, addr >= fp->origin ? BIAS + units : BIAS - units, lane);
}

void cc_analysis_fp_add(struct cc_footprint *fp, uint64_t addr)
{
  add_one(fp, addr, 32);
}

/* add_steps of 32 lanes whose step k is a multiple of a chunk's units (a column of a
 * matrix whose rows are a multiple of 512 units long: rows of 4096 floats): every lane
 * sets the same bit of a chunk of its own (unit key p + l k, all equal mod 512), so the
 * loop keeps the word and the bit and takes each lane's chunk from its cache
 * (set_unit_lane's, lane_key and lane_index), the unit key kept by addition. */
static void add_column(struct cc_footprint *fp, uint64_t p, uint64_t k)
{
  unsigned off = (unsigned)(p & ((1u << CHUNK_SHIFT) - 1)), word = off / 64u;
  uint64_t bit = 1ull << (off % 64u), ukey = p, added = 0;
  struct chunk *ch = fp->chunks; /* (find_chunk may move them) */
  for (unsigned l = 0; l < 32u; l++, ukey += k) {
    uint64_t key = ukey >> CHUNK_SHIFT, *w;
    size_t c = fp->lane_index[l];
    if (c == EMPTY || fp->lane_key[l] != key) {
      c = find_chunk(fp, key);
      ch = fp->chunks;
      fp->lane_key[l] = key;
      fp->lane_index[l] = c;
    }
    w = &ch[c].bits[word];
    added += (*w & bit) == 0;
    *w |= bit;
  }
  fp->count += added;
}

/* The affine case's bits (add_affine, add_progression): the active lanes l of mask
 * (first: the lowest) at unit key p + (l - first) x k, k = step / g >= 1. With k = 1 (a
 * unit-stride warp access) the lane mask itself, shifted, is the bit pattern to OR in: at
 * most two 64-bit words, at most two chunks. */
static void add_steps(struct cc_footprint *fp, uint64_t p, uint64_t k, uint32_t mask,
                      unsigned first)
{
  if (k != 1 && mask == 0xffffffffu && (k & ((1u << CHUNK_SHIFT) - 1)) == 0) {
    add_column(fp, p, k);
    return;
  }
  if (k != 1) {
    for (uint32_t m = mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      set_unit_lane(fp, p + (uint64_t)(l - first) * k, l);
    }
    return;
  }
  for (uint64_t pat = (uint64_t)(mask >> first); pat;) {
    size_t c = find_chunk(fp, p >> CHUNK_SHIFT);
    unsigned off = (unsigned)(p & ((1u << CHUNK_SHIFT) - 1)), b = off % 64u, took = 64u - b;
    uint64_t part = pat << b, *w = &fp->chunks[c].bits[off / 64u];
    fp->count += cc_popcount64(part & ~*w);
    *w |= part;
    pat = took >= 64u ? 0 : pat >> took;
    p += took;
  }
}

/* The unit key of address a0 on the set's grid (a0 - origin a multiple of g = 2^shift). */
static uint64_t grid_key(const struct cc_footprint *fp, uint64_t a0)
{
  return a0 >= fp->origin ? BIAS + ((a0 - fp->origin) >> fp->shift)
                          : BIAS - ((fp->origin - a0) >> fp->shift);
}

/* The affine case of cc_analysis_fp_add_lanes: the granularity g is a power of two and
 * the active lanes l (first..last) hold addr[first] + (l - first) x step, step > 0 a
 * multiple of g, without passing the top of memory, and addr[first] lies on the grid
 * (origin + j x g). Then lane l's unit key is the first one's plus (l - first) x k,
 * k = step / g: no per-lane distance, sign or gcd (add_steps). Returns 0, having changed
 * nothing, for other lanes. Exact: add_one computes the key BIAS + (addr - origin) / g
 * (as a signed number), the same. */
static int add_affine(struct cc_footprint *fp, const uint64_t *addr, uint32_t mask)
{
  unsigned first = (unsigned)__builtin_ctz(mask), last = 31u - (unsigned)__builtin_clz(mask);
  unsigned second = (unsigned)__builtin_ctz(mask & (mask - 1));
  uint64_t a0 = addr[first], g = fp->gran, step, span;
  if (!g || fp->mask != g - 1 || ((a0 - fp->origin) & fp->mask) != 0)
    return 0;
  step = addr[second] - a0;
  if (addr[second] <= a0)
    return 0;
  if (second - first > 1) {
    if (step % (second - first) != 0)
      return 0;
    step /= second - first;
  }
  if ((step & fp->mask) != 0)
    return 0;
  if (__builtin_mul_overflow((uint64_t)(last - first), step, &span) || span > UINT64_MAX - a0)
    return 0; /* the lanes would pass the top of memory */
  for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    if (addr[l] != a0 + (uint64_t)(l - first) * step)
      return 0;
  }
  add_steps(fp, grid_key(fp, a0), step >> fp->shift, mask, first);
  return 1;
}

void cc_analysis_fp_add_progression(struct cc_footprint *fp, const uint64_t *addr,
                                    uint64_t step)
{
  uint64_t a0 = addr[0];
  if (step == 0) { /* 32 times one address */
    add_one(fp, a0, 0);
    return;
  }
  /* add_affine's tests on the grid; the lanes' own the caller has made */
  if (fp->n && fp->gran && fp->mask == fp->gran - 1 && ((a0 - fp->origin) & fp->mask) == 0 &&
      (step & fp->mask) == 0) {
    add_steps(fp, grid_key(fp, a0), step >> fp->shift, 0xffffffffu, 0);
    return;
  }
  for (unsigned lane = 0; lane < 32u; lane++)
    add_one(fp, addr[lane], lane);
}

void cc_analysis_fp_add_lanes(struct cc_footprint *fp, const uint64_t *addr, uint32_t mask)
{
  if (!mask)
    return;
  if (fp->n && (mask & (mask - 1)) && add_affine(fp, addr, mask))
    return;
  for (uint32_t m = mask; m; m &= m - 1) {
    unsigned lane = (unsigned)__builtin_ctz(m);
    add_one(fp, addr[lane], lane);
  }
}

/* out (2 CHUNK_WORDS words) = the chunk's CHUNK_WORDS words bits shifted up by r units
 * (r < 512): the low chunk's words, then the next one's. */
static void shift_chunk(const uint64_t *bits, unsigned r, uint64_t *out)
{
  unsigned q = r / 64u, b = r % 64u;
  memset(out, 0, 2 * CHUNK_WORDS * sizeof *out);
  for (unsigned w = 0; w < CHUNK_WORDS; w++) {
    out[w + q] |= bits[w] << b;
    if (b)
      out[w + q + 1] |= bits[w] >> (64u - b);
  }
}

/* ORs the CHUNK_WORDS words bits (bit i of word w: biased unit key unit + 64 w + i) into
 * fp: the chunk's 512 units shifted into the two chunks they straddle, one lookup each
 * (a word at a time would look a chunk up for each word: 8 to 16 lookups). */
/* The index of the chunk of key when fp's chunks lie in increasing key order and none
 * has a greater key: the last one, or a new zeroed one appended after it, the table
 * dropped (find_chunk builds it again when it is next needed). SIZE_MAX otherwise. Why:
 * a footprint built in address order (cc_analysis_fp_grid_part, from a shared one) then
 * costs no hash and no probe a chunk, as union_merge's output. */
static size_t append_chunk(struct cc_footprint *fp, uint64_t key)
{
  if (fp->n && (!fp->sorted || fp->chunks[fp->n - 1].key > key))
    return SIZE_MAX;
  if (fp->n && fp->chunks[fp->n - 1].key == key)
    return fp->n - 1;
  if (fp->table_cap) {
    free(fp->table);
    fp->table = NULL;
    fp->table_cap = 0;
    forget_cached(fp);
  }
  if (fp->n == fp->cap) {
    fp->cap = fp->cap ? fp->cap * 2 : 4;
    fp->chunks = cc_xrealloc(fp->chunks, fp->cap * sizeof *fp->chunks);
    cc_mem_huge(fp->chunks, fp->cap * sizeof *fp->chunks);
  }
  memset(&fp->chunks[fp->n], 0, sizeof fp->chunks[0]);
  fp->chunks[fp->n].key = key;
  fp->sorted = 1;
  return fp->n++;
}

/* ORs the CHUNK_WORDS words bits (bit i of word w: biased unit key unit + 64 w + i) into
 * fp: the chunk's 512 units shifted into the two chunks they straddle, one lookup each
 * (a word at a time would look a chunk up for each word: 8 to 16 lookups); append: the
 * chunks through append_chunk, and 0 returned, having changed nothing, when fp's chunks
 * do not allow it. Returns 1 otherwise. */
static int or_chunk_at(struct cc_footprint *fp, uint64_t unit, const uint64_t *bits, int append)
{
  unsigned r = (unsigned)(unit & ((1u << CHUNK_SHIFT) - 1));
  uint64_t at = unit - r, out[2 * CHUNK_WORDS];
  if (append && fp->n && (!fp->sorted || fp->chunks[fp->n - 1].key > at >> CHUNK_SHIFT))
    return 0;
  shift_chunk(bits, r, out);
  for (unsigned half = 0; half < 2; half++, at += 1u << CHUNK_SHIFT) {
    const uint64_t *src = &out[half * CHUNK_WORDS];
    uint64_t any = 0, *dst;
    size_t c;
    for (unsigned w = 0; w < CHUNK_WORDS; w++)
      any |= src[w];
    if (!any)
      continue;
    /* before fp->chunks is read: either may move them; keys at and at + 1 stay in order */
    c = append ? append_chunk(fp, at >> CHUNK_SHIFT) : find_chunk(fp, at >> CHUNK_SHIFT);
    dst = fp->chunks[c].bits;
    for (unsigned w = 0; w < CHUNK_WORDS; w++) {
      uint64_t add = src[w] & ~dst[w];
      if (!add) /* most words of a sparse chunk */
        continue;
      fp->count += cc_popcount64(add);
      dst[w] |= add;
    }
  }
  return 1;
}

static void or_chunk(struct cc_footprint *fp, uint64_t unit, const uint64_t *bits)
{
  or_chunk_at(fp, unit, bits, 0);
}

/* Bits at positions r, r + g, r + 2g, ... of a word (g a power of two, 1..64; r < g). */
static uint64_t grid_bits(uint64_t g, unsigned r)
{
  static const uint64_t every[7] = {~0ull,
                                    0x5555555555555555ull,
                                    0x1111111111111111ull,
                                    0x0101010101010101ull,
                                    0x0001000100010001ull,
                                    0x0000000100000001ull,
                                    1ull};
  return every[__builtin_ctzll(g)] << r;
}

uint64_t cc_analysis_fp_bits_gcd(const struct cc_fp_bits *pieces, size_t n, uint64_t u0,
                                 uint64_t g)
{
  for (size_t p = 0; p < n && g != 1; p++)
    for (size_t i = 0; i < pieces[p].n && g != 1; i++) {
      uint64_t w = pieces[p].words[i], base = pieces[p].unit0 + 64u * i;
      if (!w)
        continue;
      if (g && g <= 64 && (g & (g - 1)) == 0 &&
          !(w & ~grid_bits(g, (unsigned)((u0 - base) & (g - 1)))))
        continue; /* every unit of the word on the grid already */
      for (uint64_t b = w; b && g != 1; b &= b - 1)
        g = gcd(g, base + (unsigned)__builtin_ctzll(b) - u0);
    }
  return g;
}

struct cc_footprint *cc_analysis_fp_grid_part(const struct cc_fp_bits *pieces, size_t n,
                                              unsigned shift, uint64_t u0, uint64_t g)
{
  struct cc_footprint *fp = cc_analysis_fp_new();
  int pow2 = (g & (g - 1)) == 0;
  unsigned lg = (unsigned)__builtin_ctzll(g);
  assert(g >= 1);
  fp->origin = u0 << shift;
  fp->gran = g << shift;
  fp->mask = pow2 ? fp->gran - 1 : 0;
  fp->shift = (unsigned)__builtin_ctzll(fp->gran);
  fp->sorted = 1;
  if (n) { /* room for every chunk at once: no growth, no copy (pages untouched are free) */
    uint64_t windows = 0, span;
    for (size_t p = 0; p < n; p++)
      windows += (pieces[p].n + CHUNK_WORDS - 1) / CHUNK_WORDS;
    span = (pieces[n - 1].unit0 + 64u * pieces[n - 1].n - pieces[0].unit0) / g;
    fp->cap = (size_t)(span / (1u << CHUNK_SHIFT) + 2 < 2 * windows + 2
                           ? span / (1u << CHUNK_SHIFT) + 2 : 2 * windows + 2);
    fp->chunks = cc_xmalloc(fp->cap * sizeof *fp->chunks);
    cc_mem_huge(fp->chunks, fp->cap * sizeof *fp->chunks);
  }
  for (size_t p = 0; p < n; p++) {
    const struct cc_fp_bits *pc = &pieces[p];
    size_t i = 0;
    if (g == 1) /* the units are the footprint's: 512 bits at a time */
      for (; i + CHUNK_WORDS <= pc->n; i += CHUNK_WORDS)
        if (!or_chunk_at(fp, BIAS + (pc->unit0 + 64u * i - u0), &pc->words[i], 1))
          or_chunk(fp, BIAS + (pc->unit0 + 64u * i - u0), &pc->words[i]); /* (unordered) */
    for (; i < pc->n; i++)
      for (uint64_t b = pc->words[i]; b; b &= b - 1) {
        uint64_t d = pc->unit0 + 64u * i + (unsigned)__builtin_ctzll(b) - u0;
        uint64_t ukey = BIAS + (pow2 ? d >> lg : d / g);
        size_t at = append_chunk(fp, ukey >> CHUNK_SHIFT);
        struct chunk *c = &fp->chunks[at != SIZE_MAX ? at : find_chunk(fp, ukey >> CHUNK_SHIFT)];
        uint64_t bit = 1ull << (ukey % 64u), *w = &c->bits[(ukey >> 6) & (CHUNK_WORDS - 1)];
        fp->count += !(*w & bit);
        *w |= bit;
      }
  }
  return fp;
}

void cc_analysis_fp_concat(struct cc_footprint *into, struct cc_footprint **parts, size_t n)
{
  struct cc_footprint *all = NULL;
  size_t total = 0;
  for (size_t i = 0; i < n; i++)
    total += parts[i] ? parts[i]->n : 0;
  for (size_t i = 0; i < n; i++) {
    struct cc_footprint *pt = parts[i];
    size_t c = 0;
    if (!pt || !pt->n) {
      cc_analysis_fp_free(pt);
      continue;
    }
    if (!all) { /* the first part, its chunks moved to an array that holds them all */
      all = pt;
      if (all->cap < total) {
        struct chunk *ch = cc_xmalloc(total * sizeof *ch);
        cc_mem_huge(ch, total * sizeof *ch);
        memcpy(ch, all->chunks, all->n * sizeof *ch);
        free(all->chunks);
        all->chunks = ch;
        all->cap = total;
      }
      continue;
    }
    assert(pt->origin == all->origin && pt->gran == all->gran);
    /* the parts hold other units: the counts add up, a shared boundary chunk too */
    all->count += pt->count;
    if (pt->chunks[0].key == all->chunks[all->n - 1].key) { /* the boundary's chunk */
      for (unsigned w = 0; w < CHUNK_WORDS; w++)
        all->chunks[all->n - 1].bits[w] |= pt->chunks[0].bits[w];
      c = 1;
    }
    assert(c == pt->n || pt->chunks[c].key > all->chunks[all->n - 1].key);
    if (c < pt->n) { /* (room made above) */
      memcpy(&all->chunks[all->n], &pt->chunks[c], (pt->n - c) * sizeof *pt->chunks);
      all->n += pt->n - c;
    }
    cc_analysis_fp_free(pt);
  }
  if (!all)
    return;
  if (!into->n) { /* moved in: into's (empty) arrays given up */
    free(into->chunks);
    free(into->table);
    *into = *all;
    free(all);
    return;
  }
  cc_analysis_fp_union(into, all);
  cc_analysis_fp_free(all);
}

/* Prefetches, for a union, what find_chunk will read for the chunk of key: its table
 * slot (stage 0) or, that slot read, the chunk it names (stage 1; the first probe only:
 * at a load factor of 1/2 most keys sit there). A hint: nothing is kept. */
static inline void prefetch_key(const struct cc_footprint *fp, uint64_t key, int stage)
{
  const size_t *slot = &fp->table[cc_mix64(key) & (fp->table_cap - 1)];
  if (stage == 0)
    __builtin_prefetch(slot);
  else if (*slot != EMPTY)
    __builtin_prefetch(&fp->chunks[*slot]);
}

struct keyed {
  uint64_t key;
  size_t index;
};

static int cmp_keyed(const void *pa, const void *pb)
{
  uint64_t a = ((const struct keyed *)pa)->key, b = ((const struct keyed *)pb)->key;
  return (a > b) - (a < b);
}

#define RADIX_BITS 11u /* digits of a pass of sort_keyed: 2048 counters */

/* Sorts the n pairs of k by key (distinct keys). A radix sort of key - min, a pass per
 * RADIX_BITS bits of max - min: a set's chunks span a few buffers' worth of keys (the
 * naive transpose's 64 MiB output: 32,768 keys, 2 passes), where qsort's comparisons
 * cost more than the union they prepare. Sets whose keys span more than 4 passes (buffers
 * 2^44 units apart: far-apart allocations) use qsort. */
static void sort_keyed(struct keyed *k, size_t n)
{
  uint64_t lo = UINT64_MAX, hi = 0;
  unsigned passes = 0;
  struct keyed *tmp, *src = k, *dst;
  for (size_t i = 0; i < n; i++) {
    lo = k[i].key < lo ? k[i].key : lo;
    hi = k[i].key > hi ? k[i].key : hi;
  }
  for (uint64_t span = n ? hi - lo : 0; span; span >>= RADIX_BITS)
    passes++;
  if (passes > 4) {
    qsort(k, n, sizeof *k, cmp_keyed);
    return;
  }
  tmp = cc_xmalloc((n ? n : 1) * sizeof *tmp);
  dst = tmp;
  for (unsigned p = 0; p < passes; p++) {
    size_t count[1u << RADIX_BITS] = {0}, at = 0;
    unsigned sh = p * RADIX_BITS;
    for (size_t i = 0; i < n; i++)
      count[((src[i].key - lo) >> sh) & ((1u << RADIX_BITS) - 1)]++;
    for (unsigned d = 0; d < (1u << RADIX_BITS); d++) {
      size_t c = count[d];
      count[d] = at;
      at += c;
    }
    for (size_t i = 0; i < n; i++)
      dst[count[((src[i].key - lo) >> sh) & ((1u << RADIX_BITS) - 1)]++] = src[i];
    dst = src;
    src = src == k ? tmp : k;
  }
  if (src != k)
    memcpy(k, src, n * sizeof *k);
  free(tmp);
}

/* The indices of fp's chunks by increasing key (the caller frees them): the identity when
 * the chunks lie in that order already (fp->sorted, or inserted so). */
static size_t *sorted_order(const struct cc_footprint *fp)
{
  size_t *order = cc_xmalloc((fp->n ? fp->n : 1) * sizeof *order);
  int in_order = 1;
  for (size_t i = 1; !fp->sorted && in_order && i < fp->n; i++)
    in_order = fp->chunks[i - 1].key < fp->chunks[i].key;
  if (in_order) {
    for (size_t i = 0; i < fp->n; i++)
      order[i] = i;
    return order;
  }
  {
    struct keyed *k = cc_xmalloc(fp->n * sizeof *k);
    for (size_t i = 0; i < fp->n; i++)
      k[i] = (struct keyed){fp->chunks[i].key, i};
    sort_keyed(k, fp->n);
    for (size_t i = 0; i < fp->n; i++)
      order[i] = k[i].index;
    free(k);
  }
  return order;
}

/* A merge of two chunk lists by key into out (union_merge's state). */
struct merge {
  const struct cc_footprint *a; /* into: its chunks by a_order, next at a_pos */
  const size_t *a_order;
  size_t a_pos;
  struct chunk *out;
  size_t n;
  uint64_t added; /* units new to a */
};

static int chunk_empty(const uint64_t *bits)
{
  uint64_t any = 0;
  for (unsigned w = 0; w < CHUNK_WORDS; w++)
    any |= bits[w];
  return !any;
}

/* Puts a's chunks of keys below key into out, then chunk (key, bits) ORed into a's of
 * that key if there is one; keys come in increasing order. */
static void merge_put(struct merge *m, uint64_t key, const uint64_t *bits)
{
  const struct cc_footprint *a = m->a;
  struct chunk *o;
  while (m->a_pos < a->n && a->chunks[m->a_order[m->a_pos]].key < key)
    m->out[m->n++] = a->chunks[m->a_order[m->a_pos++]];
  if (m->a_pos < a->n && a->chunks[m->a_order[m->a_pos]].key == key) {
    o = &m->out[m->n++];
    *o = a->chunks[m->a_order[m->a_pos++]];
  } else {
    if (chunk_empty(bits))
      return;
    o = &m->out[m->n++];
    memset(o, 0, sizeof *o);
    o->key = key;
  }
  for (unsigned w = 0; w < CHUNK_WORDS; w++) {
    m->added += cc_popcount64(bits[w] & ~o->bits[w]);
    o->bits[w] |= bits[w];
  }
}

/* union_words by a merge of both sets' chunks in key order, for sets of about the same
 * size: unit u of from is unit u + off of into (mod 2^64: keys are biased; no set spans
 * 2^63 units, so the order of the keys is kept). Each chunk of from, shifted by off,
 * straddles two chunks of into (off % 512 = r units: its low 512 - r units go to the
 * first, the rest to the next, which the next chunk of from may share). into's chunks end
 * sorted, its table dropped (find_chunk builds it again if more is added). Why: in the
 * tree of src/emu/par.c both sets have about the same chunks (a column store's partials
 * each hold a few units of every chunk of the output), where a lookup of each chunk in
 * the table misses the host caches; the merge reads and writes the chunks in order, and
 * once sorted (every round after the first) neither set is sorted again, nor the root by
 * allStr's sweep (cursor_start). Measured on 16 cores (bench/results/scale-2026-11-28-s13.md):
 * the tree's tail did not shrink (25-32 ms at 16 workers), but the end of the kernel did
 * (8 ms to 2 ms on the naive transpose: no sort left); the runs at --jobs 16 took 0-6% less
 * than with huge pages alone (naive 0.154 to 0.145 s without the model). */
static void union_merge(struct cc_footprint *into, const struct cc_footprint *from, uint64_t off)
{
  size_t *fa = sorted_order(from), cap = into->n + 2 * from->n;
  struct merge m = {into, sorted_order(into), 0, cc_xmalloc(cap * sizeof(struct chunk)), 0, 0};
  unsigned r = (unsigned)(off & ((1u << CHUNK_SHIFT) - 1));
  uint64_t pend[CHUNK_WORDS] = {0}, pend_key = 0;
  int have = 0;
  cc_mem_huge(m.out, cap * sizeof(struct chunk));
  for (size_t j = 0; j < from->n; j++) {
    const struct chunk *f = &from->chunks[fa[j]];
    uint64_t half[2 * CHUNK_WORDS], key = ((f->key << CHUNK_SHIFT) + off - r) >> CHUNK_SHIFT;
    if (j + 8 < from->n)
      __builtin_prefetch(&from->chunks[fa[j + 8]]);
    shift_chunk(f->bits, r, half);
    if (have && pend_key == key) /* the previous chunk's high part lands here too */
      for (unsigned w = 0; w < CHUNK_WORDS; w++)
        half[w] |= pend[w];
    else if (have)
      merge_put(&m, pend_key, pend);
    merge_put(&m, key, half);
    memcpy(pend, &half[CHUNK_WORDS], sizeof pend);
    pend_key = key + 1;
    have = r != 0;
  }
  if (have)
    merge_put(&m, pend_key, pend);
  while (m.a_pos < into->n)
    m.out[m.n++] = into->chunks[m.a_order[m.a_pos++]];
  free(fa);
  free((void *)m.a_order);
  free(into->chunks);
  if (m.n < cap) { /* the room for chunks of from that were not new (most, if they overlap) */
    cap = m.n ? m.n : 1;
    m.out = cc_xrealloc(m.out, cap * sizeof *m.out);
  }
  into->chunks = m.out;
  into->cap = cap;
  into->n = m.n;
  into->count += m.added;
  free(into->table);
  into->table = NULL;
  into->table_cap = 0;
  forget_cached(into);
  into->sorted = 1;
}

/* cc_analysis_fp_union a chunk at a time, when both sets have one granularity g and
 * origins a multiple of g apart: every unit of from is then the unit of into shifted by
 * the origins' distance in units (what cc_analysis_fp_add computes address by address,
 * without a change of granularity). Returns 0, having changed nothing, otherwise. Why a
 * chunk at a time: the workers' partials of a column store (the naive transpose's) each
 * hold a few units in every chunk of the output, and their union in the tree of
 * src/emu/par.c looked a chunk up for every word: 8 to 16 lookups a chunk, each a miss. */
static int union_words(struct cc_footprint *into, const struct cc_footprint *from)
{
  uint64_t g = into->gran, off;
  if (!into->n || !g || from->gran != g)
    return 0;
  if (from->origin >= into->origin) {
    if ((from->origin - into->origin) % g)
      return 0;
    off = (from->origin - into->origin) / g;
  } else {
    if ((into->origin - from->origin) % g)
      return 0;
    off = 0 - (into->origin - from->origin) / g; /* mod 2^64: keys are biased */
  }
  if (from->n >= MERGE_MIN && 4 * from->n >= into->n) {
    union_merge(into, from, off);
    return 1;
  }
  for (size_t c = 0; c < from->n; c++) {
    /* the lookups miss the host caches (both sets larger than them, the keys in
     * insertion order): their table slots asked for 16 chunks ahead, their chunks 8
     * ahead, so that the misses overlap */
    for (int stage = 0; stage < 2 && into->table_cap; stage++) {
      size_t ahead = c + (stage ? 8u : 16u);
      if (ahead < from->n) {
        uint64_t unit = (from->chunks[ahead].key << CHUNK_SHIFT) + off;
        prefetch_key(into, unit >> CHUNK_SHIFT, stage);
        prefetch_key(into, (unit >> CHUNK_SHIFT) + 1, stage);
      }
    }
    or_chunk(into, (from->chunks[c].key << CHUNK_SHIFT) + off, from->chunks[c].bits);
  }
  return 1;
}

void cc_analysis_fp_union(struct cc_footprint *into, const struct cc_footprint *from)
{
  if (union_words(into, from))
    return;
  for (size_t c = 0; c < from->n; c++)
    for (unsigned w = 0; w < CHUNK_WORDS; w++)
      for (uint64_t bits = from->chunks[c].bits[w]; bits; bits &= bits - 1)
        cc_analysis_fp_add(into, unit_addr(from, (from->chunks[c].key << CHUNK_SHIFT) +
                                                     w * 64u +
                                                     (unsigned)__builtin_ctzll(bits)));
}

/* ---- increasing iteration ------------------------------------------------------------ */

struct cursor {
  const struct cc_footprint *fp;
  size_t *order;  /* chunk indices by increasing key */
  size_t pos;     /* into order */
  unsigned word;
  uint64_t bits;  /* what is left of the current word */
  uint64_t addr;  /* current address, valid while !done */
  int64_t unit;   /* its unit: addr = origin + unit x g */
  int done;
};

/* Moves c to its next address (the first one after cursor_start). */
static inline void cursor_next(struct cursor *c)
{
  for (;;) {
    if (c->bits) {
      const struct chunk *ch = &c->fp->chunks[c->order[c->pos]];
      uint64_t ukey = (ch->key << CHUNK_SHIFT) + c->word * 64u +
                      (unsigned)__builtin_ctzll(c->bits);
      c->bits &= c->bits - 1;
      c->addr = unit_addr(c->fp, ukey);
      c->unit = (int64_t)(ukey - BIAS);
      return;
    }
    if (++c->word >= CHUNK_WORDS) {
      c->word = 0;
      if (++c->pos >= c->fp->n) {
        c->done = 1;
        return;
      }
    }
    c->bits = c->fp->chunks[c->order[c->pos]].bits[c->word];
  }
}

static void cursor_start(struct cursor *c, const struct cc_footprint *fp)
{
  memset(c, 0, sizeof *c);
  c->fp = fp;
  if (fp->n == 0) {
    c->done = 1;
    return;
  }
  c->order = sorted_order(fp); /* the table indexes the chunks in insertion order */
  c->bits = fp->chunks[c->order[0]].bits[0];
  cursor_next(c);
}

#define WINDOW_SHIFT 16u /* units per window of the union sweep: 2^16 (an 8 KiB bitmap) */
#define WINDOW_WORDS ((1u << WINDOW_SHIFT) / 64u)

/* Largest gap, in units, of the set bits of one window (first unit wstart), continuing
 * from *prev (the last unit seen; *have: one was seen). Full words: one step. */
static uint64_t window_gap(const uint64_t *win, uint64_t wstart, uint64_t *prev, int *have)
{
  uint64_t gap = 0;
  for (unsigned w = 0; w < WINDOW_WORDS; w++) {
    uint64_t bits = win[w], base = wstart + w * 64u;
    if (bits == ~0ull) {
      if (*have && base - *prev > gap)
        gap = base - *prev;
      if (gap < 1)
        gap = 1;
      *prev = base + 63u;
      *have = 1;
      continue;
    }
    for (; bits; bits &= bits - 1) {
      uint64_t u = base + (unsigned)__builtin_ctzll(bits);
      if (*have && u - *prev > gap)
        gap = u - *prev;
      *prev = u;
      *have = 1;
    }
  }
  return gap;
}

/* The union is swept in windows of 2^16 units of the common granularity G (the gcd of
 * the members' granularities and of the differences of their origins), units counted
 * from the smallest address: every member's sorted units are dropped into the window's
 * bitmap (unit = offset of its origin + its own unit x its g / G: no division), then the
 * window is scanned. Windows without addresses are skipped; memory: one 8 KiB window and
 * the sorted chunk orders. */
/* Drops the units of member cursor c (ratio 1 to the union's granularity: its units map
 * to consecutive window bits) into the window win starting at window unit wstart, a
 * 64-bit word at a time: the rest of the cursor's current word, shifted to its window
 * position pos = off + unit - wstart, is ORed into one or two window words. Bits past the
 * window's end stay in the cursor for the next window. The same bits as the bit-by-bit
 * loop of union_gap sets. */
static void drop_words(struct cursor *c, uint64_t off, uint64_t wstart, uint64_t *win)
{
  while (!c->done) {
    uint64_t pos = off + (uint64_t)c->unit - wstart, limit, bits;
    unsigned at = (unsigned)((uint64_t)c->unit & 63u); /* bit of the unit in its word */
    if (pos >> WINDOW_SHIFT)
      return;
    bits = (c->bits | (1ull << at)) >> at; /* the unit and the rest of its word, from bit 0 */
    limit = (1u << WINDOW_SHIFT) - pos;    /* window bits left from pos */
    if (limit < 64u - at) {                /* the word runs past the window's end */
      uint64_t keep = bits & ~((1ull << limit) - 1);
      bits &= (1ull << limit) - 1;
      c->bits = keep << at;                /* back in word coordinates; next: lowest */
    } else {
      c->bits = 0;                         /* the whole rest of the word fits */
    }
    win[pos / 64] |= bits << (pos % 64);
    if (pos % 64 && pos / 64 + 1 < WINDOW_WORDS)
      win[pos / 64 + 1] |= bits >> (64 - pos % 64);
    cursor_next(c); /* the lowest bit kept, or the next word */
  }
}

/* Drops c's units (each at off + unit x ratio from wstart) into the window win until the
 * first one past it, as a loop of cursor_next would, but the units left in the current
 * word of the set come from its bits (unit: the word's first unit plus the bit; a word's
 * 64 units share all but their low 6 bits, and BIAS is a multiple of 64), so that
 * cursor_next runs once a word, not once a unit. The members of a coarser granularity
 * than the union's (ratio > 1: an unrolled loop's four loads, each every 4th element). */
static void drop_units(struct cursor *c, uint64_t off, uint64_t ratio, uint64_t wstart,
                       uint64_t *win)
{
  while (!c->done) {
    uint64_t u = off + (uint64_t)c->unit * ratio - wstart, w0;
    if (u >> WINDOW_SHIFT)
      return;
    win[u / 64] |= 1ull << (u % 64);
    w0 = off + (uint64_t)(c->unit & ~(int64_t)63) * ratio - wstart; /* bit 0's */
    while (c->bits) {
      u = w0 + (uint64_t)__builtin_ctzll(c->bits) * ratio;
      if (u >> WINDOW_SHIFT)
        break; /* cursor_next below takes this unit up: the next window's first */
      win[u / 64] |= 1ull << (u % 64);
      c->bits &= c->bits - 1;
    }
    cursor_next(c);
  }
}

/* cc_analysis_fp_max_gap_union; words: members with ratio 1 go through drop_words. */
static uint64_t union_gap(const struct cc_footprint *const *fps, size_t n, int words);

uint64_t cc_analysis_fp_max_gap_union(const struct cc_footprint *const *fps, size_t n)
{
  return union_gap(fps, n, 1);
}

uint64_t cc_analysis_fp_max_gap_union_ref(const struct cc_footprint *const *fps, size_t n)
{
  return union_gap(fps, n, 0);
}

/* The members not yet swept, as a binary min-heap of member indices ordered by their
 * next union unit (key[i]): a window touches only the members with units in it, so a
 * union of many members costs O(units x log n), not O(windows x n). */
struct member_heap {
  size_t *at, n;
  const uint64_t *key;
};

static void heap_push(struct member_heap *h, size_t i)
{
  size_t c = h->n++;
  while (c > 0 && h->key[h->at[(c - 1) / 2]] > h->key[i]) {
    h->at[c] = h->at[(c - 1) / 2];
    c = (c - 1) / 2;
  }
  h->at[c] = i;
}

static size_t heap_pop(struct member_heap *h)
{
  size_t top = h->at[0], last = h->at[--h->n], c = 0;
  for (;;) {
    size_t l = 2 * c + 1, m;
    if (l >= h->n)
      break;
    m = l + 1 < h->n && h->key[h->at[l + 1]] < h->key[h->at[l]] ? l + 1 : l;
    if (h->key[h->at[m]] >= h->key[last])
      break;
    h->at[c] = h->at[m];
    c = m;
  }
  if (h->n)
    h->at[c] = last;
  return top;
}

static uint64_t union_gap(const struct cc_footprint *const *fps, size_t n, int words)
{
  struct cursor *cur;
  struct member_heap heap;
  uint64_t *win, *off, *ratio, *next, G = 0, lo = 0, o0 = 0, gap = 0, prev = 0;
  int have = 0, any = 0;
  if (n == 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t m;
    if (!cc_analysis_fp_min(fps[i], &m))
      continue;
    if (!any)
      o0 = fps[i]->origin, lo = m;
    any = 1;
    lo = m < lo ? m : lo;
    G = gcd(G, fps[i]->gran);
    G = gcd(G, fps[i]->origin >= o0 ? fps[i]->origin - o0 : o0 - fps[i]->origin);
  }
  if (G == 0) /* nothing, or one address */
    return 0;
  cur = cc_xcalloc(n, sizeof *cur);
  off = cc_xcalloc(n, sizeof *off);
  ratio = cc_xcalloc(n, sizeof *ratio);
  next = cc_xcalloc(n, sizeof *next);
  heap = (struct member_heap){cc_xcalloc(n, sizeof *heap.at), 0, next};
  win = cc_xmalloc(WINDOW_WORDS * sizeof *win);
  for (size_t i = 0; i < n; i++) {
    cursor_start(&cur[i], fps[i]);
    off[i] = (fps[i]->origin - lo) / G;
    ratio[i] = fps[i]->gran / G;
    if (!cur[i].done) {
      next[i] = off[i] + (uint64_t)cur[i].unit * ratio[i];
      heap_push(&heap, i);
    }
  }
  while (heap.n) {
    uint64_t wstart = next[heap.at[0]] & ~(uint64_t)((1u << WINDOW_SHIFT) - 1);
    memset(win, 0, WINDOW_WORDS * sizeof *win);
    while (heap.n && (next[heap.at[0]] - wstart) >> WINDOW_SHIFT == 0) {
      size_t i = heap_pop(&heap);
      if (words && ratio[i] == 1) {
        drop_words(&cur[i], off[i], wstart, win);
      } else if (words) {
        drop_units(&cur[i], off[i], ratio[i], wstart, win);
      } else {
        for (; !cur[i].done; cursor_next(&cur[i])) {
          uint64_t u = off[i] + (uint64_t)cur[i].unit * ratio[i] - wstart;
          if (u >> WINDOW_SHIFT)
            break;
          win[u / 64] |= 1ull << (u % 64);
        }
      }
      if (!cur[i].done) { /* its next unit is in a later window */
        next[i] = off[i] + (uint64_t)cur[i].unit * ratio[i];
        heap_push(&heap, i);
      }
    }
    {
      uint64_t g = window_gap(win, wstart, &prev, &have);
      gap = g > gap ? g : gap;
    }
  }
  for (size_t i = 0; i < n; i++)
    free(cur[i].order);
  free(cur);
  free(off);
  free(ratio);
  free(next);
  free(heap.at);
  free(win);
  return gap * G;
}

uint64_t cc_analysis_fp_max_gap(const struct cc_footprint *fp)
{
  struct cursor c;
  uint64_t gap = 0, prev;
  if (fp->count < 2)
    return 0;
  /* word by word: a full word (64 neighbouring units, the dense case) has gaps of g
   * inside and costs one step */
  cursor_start(&c, fp);
  prev = c.addr;
  for (size_t pos = 0; pos < fp->n; pos++) {
    const struct chunk *ch = &fp->chunks[c.order[pos]];
    for (unsigned w = 0; w < CHUNK_WORDS; w++) {
      uint64_t bits = ch->bits[w], base = (ch->key << CHUNK_SHIFT) + w * 64u;
      if (bits == ~0ull) {
        uint64_t first = unit_addr(fp, base);
        if (first - prev > gap)
          gap = first - prev;
        if (fp->gran > gap)
          gap = fp->gran;
        prev = unit_addr(fp, base + 63u);
        continue;
      }
      for (; bits; bits &= bits - 1) {
        uint64_t addr = unit_addr(fp, base + (unsigned)__builtin_ctzll(bits));
        if (addr - prev > gap)
          gap = addr - prev;
        prev = addr;
      }
    }
  }
  free(c.order);
  return gap;
}

int cc_analysis_fp_min(const struct cc_footprint *fp, uint64_t *min)
{
  const struct chunk *best = NULL;
  for (size_t c = 0; c < fp->n; c++)
    if (!best || fp->chunks[c].key < best->key)
      best = &fp->chunks[c];
  if (!best)
    return 0;
  for (unsigned w = 0; w < CHUNK_WORDS; w++) {
    if (best->bits[w]) {
      *min = unit_addr(fp, (best->key << CHUNK_SHIFT) + w * 64u +
                               (unsigned)__builtin_ctzll(best->bits[w]));
      return 1;
    }
  }
  return 0;
}

int cc_analysis_fp_max(const struct cc_footprint *fp, uint64_t *max)
{
  const struct chunk *best = NULL;
  for (size_t c = 0; c < fp->n; c++)
    if (!best || fp->chunks[c].key > best->key)
      best = &fp->chunks[c];
  if (!best)
    return 0;
  for (unsigned w = CHUNK_WORDS; w-- > 0;) {
    if (best->bits[w]) {
      *max = unit_addr(fp, (best->key << CHUNK_SHIFT) + w * 64u + 63u -
                               (unsigned)__builtin_clzll(best->bits[w]));
      return 1;
    }
  }
  return 0;
}

uint64_t cc_analysis_fp_count(const struct cc_footprint *fp)
{
  return fp->count;
}

uint64_t cc_analysis_fp_granularity(const struct cc_footprint *fp)
{
  return fp->gran;
}

size_t cc_analysis_fp_bytes(const struct cc_footprint *fp)
{
  return sizeof *fp + fp->cap * sizeof *fp->chunks + fp->table_cap * sizeof *fp->table;
}

size_t cc_analysis_fp_empty_bytes(void)
{
  return sizeof(struct cc_footprint);
}

/* ---- as bytes (analysis/pack.c) ------------------------------------------------------ */

#define PACK_HEAD 32u /* origin, granularity, count, chunks: 4 x 8 bytes */

size_t cc_analysis_fp_packed_bytes(const struct cc_footprint *fp)
{
  return PACK_HEAD + fp->n * sizeof(struct chunk);
}

void cc_analysis_fp_pack(const struct cc_footprint *fp, uint8_t *out)
{
  uint64_t head[4] = {fp->origin, fp->gran, fp->count, fp->n};
  memcpy(out, head, sizeof head);
  if (fp->n)
    memcpy(out + PACK_HEAD, fp->chunks, fp->n * sizeof *fp->chunks);
}

/* Whether the units of the chunks of fp add up to its count, no key repeats (checked
 * after building the table: a repeated key lies on the probe run of its twin) and its
 * first address, unit 0, is held: what a footprint built by cc_analysis_fp_add always
 * satisfies. Builds the table. */
static int packed_consistent(struct cc_footprint *fp)
{
  uint64_t units = 0;
  size_t cap = 16;
  for (size_t c = 0; c < fp->n; c++)
    for (unsigned w = 0; w < CHUNK_WORDS; w++)
      units += cc_popcount64(fp->chunks[c].bits[w]);
  if (units != fp->count || (fp->gran == 0) != (fp->count < 2))
    return 0;
  if (fp->n == 0)
    return 1;
  while (cap < 2 * fp->n)
    cap *= 2;
  rehash(fp, cap);
  for (size_t c = 0; c < fp->n; c++) { /* a chunk with its key before it on its probe run */
    size_t h = cc_mix64(fp->chunks[c].key) & (cap - 1);
    for (; fp->table[h] != c; h = (h + 1) & (cap - 1))
      if (fp->chunks[fp->table[h]].key == fp->chunks[c].key)
        return 0;
  }
  for (size_t h = cc_mix64(BIAS >> CHUNK_SHIFT) & (cap - 1); fp->table[h] != EMPTY;
       h = (h + 1) & (cap - 1))
    if (fp->chunks[fp->table[h]].key == BIAS >> CHUNK_SHIFT)
      return (int)(fp->chunks[fp->table[h]].bits[0] & 1u);
  return 0;
}

int cc_analysis_fp_unpack(const uint8_t *in, size_t avail, size_t *used,
                          struct cc_footprint **out)
{
  uint64_t head[4];
  struct cc_footprint *fp;
  *out = NULL;
  if (avail < PACK_HEAD)
    return -1;
  memcpy(head, in, sizeof head);
  if (head[3] > (avail - PACK_HEAD) / sizeof(struct chunk))
    return -1; /* truncated: checked before allocating what the count claims */
  fp = cc_analysis_fp_new();
  fp->origin = head[0];
  fp->count = head[2];
  fp->n = fp->cap = (size_t)head[3];
  if (fp->n) {
    fp->chunks = cc_xmalloc(fp->n * sizeof *fp->chunks);
    memcpy(fp->chunks, in + PACK_HEAD, fp->n * sizeof *fp->chunks);
  }
  if (head[1]) /* as set_granularity, without a coarser set to refine */
    set_granularity(fp, head[1]);
  else
    fp->gran = 0;
  if (!packed_consistent(fp)) {
    cc_analysis_fp_free(fp);
    return -1;
  }
  *used = PACK_HEAD + fp->n * sizeof *fp->chunks;
  *out = fp;
  return 0;
}
