/* Byte geometry of a warp access, shared by every global-memory rule: which 32-byte
 * sectors, 128-byte lines (or any aligned unit) the active lanes' bytes touch, and how
 * many distinct bytes they request. The rules (global_*.c) decide requests and
 * transactions; the figures here are the same for every architecture, so that the report
 * can compare models on the sectors and lines they have in common. */
#include <assert.h>
#include <stdlib.h>

#include "model/model_impl.h"
#include "util/bits.h"

#define SECTOR_BYTES 32u
#define LINE_BYTES 128u

/* A lane's byte range [first, last], inclusive so that the top of memory does not wrap. */
struct range {
  uint64_t first, last;
};

static int cmp_range(const void *pa, const void *pb)
{
  const struct range *a = pa, *b = pb;
  if (a->first != b->first)
    return a->first < b->first ? -1 : 1;
  return (a->last > b->last) - (a->last < b->last);
}

/* Sorts the n <= 32 ranges of r by (first, last) without a library sort: the common
 * records arrive already in order (lane order = address order: unit-stride and strided
 * accesses) or in reverse order (negative strides), which cost one pass; anything else
 * takes an insertion sort. The order by (first, last) is total on the values, so the
 * result is the one qsort gives (cc_model_geometry_ref, the reference the tests compare
 * with). */
static void sort_ranges(struct range *r, size_t n)
{
  size_t up = 1, down = 1;
  for (size_t i = 1; i < n; i++) {
    int c = cmp_range(&r[i - 1], &r[i]);
    up += c <= 0;
    down += c >= 0;
  }
  if (up == n)
    return;
  if (down == n) {
    for (size_t i = 0, j = n - 1; i < j; i++, j--) {
      struct range t = r[i];
      r[i] = r[j];
      r[j] = t;
    }
    return;
  }
  for (size_t i = 1; i < n; i++) {
    struct range x = r[i];
    size_t j = i;
    for (; j > 0 && cmp_range(&r[j - 1], &x) > 0; j--)
      r[j] = r[j - 1];
    r[j] = x;
  }
}

/* Fills r with the byte ranges of the lanes in (mask & a->active), sorted and merged where
 * they overlap or touch; returns how many there are (0..32). *lanes = lanes counted.
 * by_qsort selects the reference sort (qsort) instead of sort_ranges. */
static size_t merged_ranges(const struct cc_warp_access *a, uint32_t mask,
                            struct range r[CC_WARP_SIZE], uint32_t *lanes, int by_qsort)
{
  size_t n = 0, merged = 0;
  *lanes = 0;
  if (a->size_bytes == 0)
    return 0;
  if (!by_qsort) {
    /* One pass for lanes already in address order (the common case): merge as they
     * come, as the loop below does after its sort (a sorted input is its own sort); the
     * first lane out of order (pf, pl: the previous lane's range) sends the record to
     * the general path. */
    uint32_t act = mask & a->active;
    uint64_t pf = 0, pl = 0;
    int sorted = 1;
    for (uint32_t m = act; m; m &= m - 1) {
      uint64_t first = a->addr[__builtin_ctz(m)], last = first + (a->size_bytes - 1);
      if (n > 0 && (first < pf || (first == pf && last < pl))) {
        sorted = 0;
        break;
      }
      pf = first;
      pl = last;
      if (n > 0 && first <= r[n - 1].last + 1) {
        if (last > r[n - 1].last)
          r[n - 1].last = last;
      } else {
        r[n++] = (struct range){ first, last };
      }
    }
    if (sorted) {
      *lanes = cc_popcount32(act);
      return n;
    }
    n = 0;
  }
  for (uint32_t m = mask & a->active; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    r[n].first = a->addr[lane];
    r[n].last = a->addr[lane] + (a->size_bytes - 1);
    n++;
  }
  *lanes = (uint32_t)n;
  if (n == 0)
    return 0;
  if (by_qsort)
    qsort(r, n, sizeof r[0], cmp_range);
  else
    sort_ranges(r, n);
  for (size_t i = 1; i < n; i++) {
    if (r[i].first <= r[merged].last + 1) {
      if (r[i].last > r[merged].last)
        r[merged].last = r[i].last;
    } else {
      r[++merged] = r[i];
    }
  }
  return merged + 1;
}

/* Counts the distinct units of `unit` bytes covering the sorted, merged ranges r[0..n).
 * Reference form: a division per range end. */
static uint32_t count_units_div(const struct range *r, size_t n, uint64_t unit)
{
  uint32_t count = 0;
  uint64_t last_unit = 0;
  int have = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t u0 = r[i].first / unit, u1 = r[i].last / unit;
    if (have && u0 <= last_unit)
      u0 = last_unit + 1; /* shared with the previous range */
    if (u0 <= u1 && (!have || u1 > last_unit)) {
      count += (uint32_t)(u1 - u0 + 1);
      last_unit = u1;
      have = 1;
    }
  }
  return count;
}

/* count_units_div for unit = 2^shift: shifts instead of divisions (a 64-bit division
 * costs tens of cycles, and a scattered warp has 32 ranges). */
static uint32_t count_units_shift(const struct range *r, size_t n, unsigned shift)
{
  uint32_t count = 0;
  uint64_t last_unit = 0;
  int have = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t u0 = r[i].first >> shift, u1 = r[i].last >> shift;
    if (have && u0 <= last_unit)
      u0 = last_unit + 1;
    if (u0 <= u1 && (!have || u1 > last_unit)) {
      count += (uint32_t)(u1 - u0 + 1);
      last_unit = u1;
      have = 1;
    }
  }
  return count;
}

static uint32_t count_units(const struct range *r, size_t n, uint64_t unit)
{
  if (unit && (unit & (unit - 1)) == 0)
    return count_units_shift(r, n, (unsigned)__builtin_ctzll(unit));
  return count_units_div(r, n, unit);
}

uint32_t cc_model_units(const struct cc_warp_access *a, uint32_t mask, uint64_t unit)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  size_t n = merged_ranges(a, mask, r, &lanes, 0);
  return count_units(r, n, unit);
}

uint32_t cc_model_units_ref(const struct cc_warp_access *a, uint32_t mask, uint64_t unit)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  size_t n = merged_ranges(a, mask, r, &lanes, 1);
  return count_units_div(r, n, unit);
}

/* Sectors and lines of the merged ranges r[0..n) in one branch-free pass, or 0 when the
 * ranges are not plain (a range ending at the top of memory or wrapping past it: the
 * merge in merged_ranges leaves those as they are, and count_units_shift treats them).
 * Plain merged ranges ascend and are disjoint, so a range's first unit is either the
 * previous range's last unit (shared: counted once) or above it; the count is then
 * sum (u1 - u0 + 1) less one per range starting in its predecessor's last unit, which is
 * what count_units_shift's steps add up to. */
static int count_sectors_lines(const struct range *r, size_t n, uint32_t *sectors,
                               uint32_t *lines)
{
  uint64_t s = 0, l = 0, odd = 0, prev_s = UINT64_MAX, prev_l = UINT64_MAX;
  for (size_t i = 0; i < n; i++) {
    uint64_t s0 = r[i].first >> 5, s1 = r[i].last >> 5;
    uint64_t l0 = r[i].first >> 7, l1 = r[i].last >> 7;
    odd |= (uint64_t)(r[i].last < r[i].first) | (uint64_t)(r[i].last == UINT64_MAX);
    s += s1 - s0 + 1 - (uint64_t)(s0 == prev_s);
    l += l1 - l0 + 1 - (uint64_t)(l0 == prev_l);
    prev_s = s1;
    prev_l = l1;
  }
  if (odd)
    return 0;
  *sectors = (uint32_t)s;
  *lines = (uint32_t)l;
  return 1;
}

/* Fills the geometry of out from the merged ranges r[0..n) of `lanes` lanes. */
static void geometry_of(const struct range *r, size_t n, uint32_t lanes, uint32_t size,
                        struct cc_global_cost *out, int reference)
{
  uint64_t unique = 0;
  for (size_t i = 0; i < n; i++)
    unique += r[i].last - r[i].first + 1;
  if (reference) {
    out->sectors = count_units_div(r, n, SECTOR_BYTES);
    out->lines = count_units_div(r, n, LINE_BYTES);
  } else if (!count_sectors_lines(r, n, &out->sectors, &out->lines)) {
    out->sectors = count_units_shift(r, n, 5);
    out->lines = count_units_shift(r, n, 7);
  }
  out->bytes_requested = lanes * size;
  out->unique_bytes = (uint32_t)unique;
  out->ideal_sectors = (uint32_t)((unique + SECTOR_BYTES - 1) / SECTOR_BYTES);
}

/* The sector and line counts of n lanes in the scattered form (geometry_scattered,
 * geometry_progression): lanes step bytes apart, step a multiple of 32 above the size,
 * the first lane's bytes inside one sector ((a0 mod 32) + size <= 32). Every lane's bytes
 * then lie in one sector of their own, at the same offset, and no two lanes' ranges touch
 * (step > size), so the merge keeps n ranges: sectors = n, unique = requested = n x
 * size; lines = n as well when step is a multiple of 128 and the bytes sit inside one
 * line. Returns 0, leaving out alone, when the lines would need the walk. */
static int scattered_counts(uint32_t n, uint32_t size, uint64_t a0, uint64_t step,
                            struct cc_global_cost *out)
{
  if ((step & 127u) != 0 || (a0 & 127u) + size > 128u)
    return 0; /* lines would need the walk: leave it to the general path */
  out->sectors = n;
  out->lines = n;
  out->bytes_requested = n * size;
  out->unique_bytes = n * size;
  out->ideal_sectors = (n * size + SECTOR_BYTES - 1) / SECTOR_BYTES;
  return 1;
}

/* The scattered affine case in O(1) after one check per lane: active lanes l at
 * addr[first] + (l - first) x step with step a multiple of 32 above the size, the first
 * lane's bytes inside one sector, no lane past the top of memory (a column of a matrix,
 * a row per thread), counted by scattered_counts. Returns 0, leaving out alone, for any
 * other record. */
static int geometry_scattered(const struct cc_warp_access *a, struct cc_global_cost *out)
{
  uint32_t m = a->active, n = cc_popcount32(m), size = a->size_bytes;
  unsigned first, second, last;
  uint64_t a0, step, span;
  if (n < 2 || size == 0)
    return 0;
  first = (unsigned)__builtin_ctz(m);
  second = (unsigned)__builtin_ctz(m & (m - 1));
  last = 31u - (unsigned)__builtin_clz(m);
  a0 = a->addr[first];
  if (a->addr[second] <= a0 || (a0 & 31u) + size > 32u)
    return 0;
  step = a->addr[second] - a0;
  if (second - first > 1) /* a division only when the first lanes are not neighbours */
    step /= second - first;
  if ((step & 31u) != 0 || step <= size || step * (second - first) != a->addr[second] - a0)
    return 0;
  if (__builtin_mul_overflow((uint64_t)(last - first), step, &span) ||
      span > UINT64_MAX - a0 - (size - 1))
    return 0;
  for (uint32_t mm = m & (m - 1); mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    if (a->addr[l] != a0 + (uint64_t)(l - first) * step)
      return 0;
  }
  return scattered_counts(n, size, a0, step, out);
}

/* A whole-warp progression going up (cc_access_progression: lane l at a0 + l x step, no
 * byte past the top of memory) in O(1). step <= size (a row, a broadcast, overlapping
 * lanes): each lane's range starts at most one byte past the previous one's end, so the
 * merge leaves one range, [a0, a0 + 31 step + size - 1]; its sectors, lines and bytes
 * are geometry_of's for one range (count_sectors_lines', which a range ending at the top
 * of memory skips: left to the general path here too). step above the size: the
 * scattered form (scattered_counts), if its tests hold. Returns 0, leaving out alone,
 * for the others. */
static int geometry_progression(const struct cc_warp_access *a, uint64_t step,
                                struct cc_global_cost *out)
{
  uint32_t size = a->size_bytes;
  uint64_t a0 = a->addr[0], hi, unique;
  if (size == 0)
    return 0;
  if (step > size) /* (scattered_counts takes steps of whole lines only: sectors too) */
    return (a0 & 31u) + size <= 32u && scattered_counts(CC_WARP_SIZE, size, a0, step, out);
  hi = a0 + 31u * step + (size - 1);
  if (hi == UINT64_MAX)
    return 0;
  unique = hi - a0 + 1;
  out->sectors = (uint32_t)((hi >> 5) - (a0 >> 5) + 1);
  out->lines = (uint32_t)((hi >> 7) - (a0 >> 7) + 1);
  out->bytes_requested = CC_WARP_SIZE * size;
  out->unique_bytes = (uint32_t)unique;
  out->ideal_sectors = (uint32_t)((unique + SECTOR_BYTES - 1) / SECTOR_BYTES);
  return 1;
}

void cc_model_geometry(const struct cc_warp_access *a, struct cc_global_cost *out)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  uint64_t step;
  if (cc_access_progression(a, &step) ? geometry_progression(a, step, out)
                                      : geometry_scattered(a, out))
    return;
  size_t n = merged_ranges(a, 0xffffffffu, r, &lanes, 0);
  geometry_of(r, n, lanes, a->size_bytes, out, 0);
}

void cc_model_geometry_ref(const struct cc_warp_access *a, struct cc_global_cost *out)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  size_t n = merged_ranges(a, 0xffffffffu, r, &lanes, 1);
  geometry_of(r, n, lanes, a->size_bytes, out, 1);
}

uint32_t cc_model_lane_mask(uint32_t first, uint32_t count)
{
  assert(first < CC_WARP_SIZE && count >= 1 && first + count <= CC_WARP_SIZE);
  return count == CC_WARP_SIZE ? 0xffffffffu : ((1u << count) - 1u) << first;
}

/* public (model.h): the interleaved local layout, used by model.c and the analysis */
void cc_model_local_layout(const struct cc_warp_access *a, struct cc_warp_access *out)
{
  *out = *a;
  for (uint64_t lane = 0; lane < CC_WARP_SIZE; lane++) {
    uint64_t off = a->addr[lane];
    out->addr[lane] = (off / 4) * (4 * CC_WARP_SIZE) + lane * 4 + off % 4;
  }
}

void cc_model_txn_add(struct cc_model_txns *list, uint64_t addr, uint32_t bytes,
                      uint32_t lanes, uint32_t request)
{
  if (!list || list->n == list->cap)
    return;
  list->t[list->n++] = (struct cc_model_transaction){addr, bytes, lanes,
                                                     list->request_base + request};
}

void cc_model_list_units(const struct cc_warp_access *a, uint32_t mask, uint64_t unit,
                         uint32_t request, struct cc_model_txns *list)
{
  uint64_t u[2 * CC_WARP_SIZE];
  uint32_t lanes[2 * CC_WARP_SIZE];
  size_t n = 0;
  if (!list || a->size_bytes == 0)
    return;
  /* each lane's first and last unit (an access of at most 16 bytes spans at most two of
   * 32 bytes or more), gathered once each */
  for (uint32_t m = mask & a->active; m; m &= m - 1) {
    int l = __builtin_ctz(m);
    uint64_t first = a->addr[l] / unit, last = (a->addr[l] + (a->size_bytes - 1)) / unit;
    for (uint64_t x = first; x <= last && x - first < 2; x++) {
      size_t i = 0;
      while (i < n && u[i] != x)
        i++;
      if (i == n) {
        u[n] = x;
        lanes[n++] = 0;
      }
      lanes[i] |= 1u << l;
    }
  }
  /* ascending (insertion sort: at most 64 units) */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && u[j - 1] > u[j]; j--) {
      uint64_t tu = u[j];
      uint32_t tl = lanes[j];
      u[j] = u[j - 1], lanes[j] = lanes[j - 1];
      u[j - 1] = tu, lanes[j - 1] = tl;
    }
  for (size_t i = 0; i < n; i++)
    cc_model_txn_add(list, u[i] * unit, (uint32_t)unit, lanes[i], request);
}
