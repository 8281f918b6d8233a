/* Sparse address bitmap: see footprint.h. */
#include "analysis/footprint.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define CHUNK_SHIFT 9u /* 512 addresses per chunk */
#define CHUNK_WORDS ((1u << CHUNK_SHIFT) / 64u)
#define EMPTY SIZE_MAX

struct chunk {
  uint64_t key; /* address >> CHUNK_SHIFT */
  uint64_t bits[CHUNK_WORDS];
};

struct cc_footprint {
  struct chunk *chunks;
  size_t n, cap;
  size_t *table;  /* chunk index or EMPTY; size table_cap, a power of two */
  size_t table_cap;
  size_t last;    /* chunk of the previous add: loops touch the same chunk again */
  uint64_t count; /* distinct addresses */
};

static uint64_t mix(uint64_t x) /* splitmix64 finaliser */
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct cc_footprint *cc_analysis_fp_new(void)
{
  struct cc_footprint *fp = cc_xcalloc(1, sizeof *fp);
  fp->last = EMPTY;
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
  fp->table_cap = cap;
  for (size_t i = 0; i < cap; i++)
    fp->table[i] = EMPTY;
  for (size_t c = 0; c < fp->n; c++) {
    size_t h = mix(fp->chunks[c].key) & (cap - 1);
    while (fp->table[h] != EMPTY)
      h = (h + 1) & (cap - 1);
    fp->table[h] = c;
  }
}

/* Index of the chunk for key; a new zeroed one if absent and create is set, else EMPTY. */
static size_t find_chunk(struct cc_footprint *fp, uint64_t key, int create)
{
  if (fp->last != EMPTY && fp->chunks[fp->last].key == key)
    return fp->last;
  if (fp->table_cap) {
    size_t h = mix(key) & (fp->table_cap - 1);
    while (fp->table[h] != EMPTY) {
      if (fp->chunks[fp->table[h]].key == key)
        return fp->last = fp->table[h];
      h = (h + 1) & (fp->table_cap - 1);
    }
  }
  if (!create)
    return EMPTY;
  if (fp->n == fp->cap) {
    fp->cap = fp->cap ? fp->cap * 2 : 4;
    fp->chunks = cc_xrealloc(fp->chunks, fp->cap * sizeof *fp->chunks);
  }
  memset(&fp->chunks[fp->n], 0, sizeof fp->chunks[0]);
  fp->chunks[fp->n].key = key;
  fp->n++;
  if (2 * fp->n > fp->table_cap) /* load factor <= 1/2 */
    rehash(fp, fp->table_cap ? fp->table_cap * 2 : 16);
  else {
    size_t h = mix(key) & (fp->table_cap - 1);
    while (fp->table[h] != EMPTY)
      h = (h + 1) & (fp->table_cap - 1);
    fp->table[h] = fp->n - 1;
  }
  return fp->last = fp->n - 1;
}

void cc_analysis_fp_add(struct cc_footprint *fp, uint64_t addr)
{
  size_t c = find_chunk(fp, addr >> CHUNK_SHIFT, 1);
  uint32_t bit = (uint32_t)(addr & ((1u << CHUNK_SHIFT) - 1));
  uint64_t mask = 1ull << (bit % 64);
  uint64_t *w = &fp->chunks[c].bits[bit / 64];
  if (!(*w & mask)) {
    *w |= mask;
    fp->count++;
  }
}

void cc_analysis_fp_union(struct cc_footprint *into, const struct cc_footprint *from)
{
  for (size_t c = 0; c < from->n; c++) {
    size_t d = find_chunk(into, from->chunks[c].key, 1);
    for (unsigned w = 0; w < CHUNK_WORDS; w++) {
      uint64_t add = from->chunks[c].bits[w] & ~into->chunks[d].bits[w];
      into->chunks[d].bits[w] |= add;
      into->count += (uint64_t)__builtin_popcountll(add);
    }
  }
}

static int cmp_key(const void *pa, const void *pb)
{
  uint64_t a = ((const struct chunk *)pa)->key, b = ((const struct chunk *)pb)->key;
  return (a > b) - (a < b);
}

uint64_t cc_analysis_fp_max_gap(const struct cc_footprint *fp)
{
  uint64_t gap = 0, prev = 0;
  int have = 0;
  struct chunk *sorted;
  if (fp->count < 2)
    return 0;
  /* a sorted copy: the table indexes the original order */
  sorted = cc_xmalloc(fp->n * sizeof *sorted);
  memcpy(sorted, fp->chunks, fp->n * sizeof *sorted);
  qsort(sorted, fp->n, sizeof *sorted, cmp_key);
  for (size_t c = 0; c < fp->n; c++) {
    for (unsigned w = 0; w < CHUNK_WORDS; w++) {
      uint64_t bits = sorted[c].bits[w];
      while (bits) {
        unsigned b = (unsigned)__builtin_ctzll(bits);
        uint64_t addr = (sorted[c].key << CHUNK_SHIFT) + w * 64u + b;
        if (have && addr - prev > gap)
          gap = addr - prev;
        prev = addr;
        have = 1;
        bits &= bits - 1;
      }
    }
  }
  free(sorted);
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
      *min = (best->key << CHUNK_SHIFT) + w * 64u + (unsigned)__builtin_ctzll(best->bits[w]);
      return 1;
    }
  }
  return 0;
}

uint64_t cc_analysis_fp_count(const struct cc_footprint *fp)
{
  return fp->count;
}

size_t cc_analysis_fp_bytes(const struct cc_footprint *fp)
{
  return sizeof *fp + fp->cap * sizeof *fp->chunks + fp->table_cap * sizeof *fp->table;
}
