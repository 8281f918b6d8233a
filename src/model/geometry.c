/* Byte geometry of a warp access, shared by every global-memory rule: which 32-byte
 * sectors, 128-byte lines (or any aligned unit) the active lanes' bytes touch, and how
 * many distinct bytes they request. The rules (global_*.c) decide requests and
 * transactions; the figures here are the same for every architecture, so that the report
 * can compare models on the sectors and lines they have in common. */
#include <assert.h>
#include <stdlib.h>

#include "model/model_impl.h"

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

/* Fills r with the byte ranges of the lanes in (mask & a->active), sorted and merged where
 * they overlap or touch; returns how many there are (0..32). *lanes = lanes counted. */
static size_t merged_ranges(const struct cc_warp_access *a, uint32_t mask,
                            struct range r[CC_WARP_SIZE], uint32_t *lanes)
{
  size_t n = 0, merged = 0;
  *lanes = 0;
  if (a->size_bytes == 0)
    return 0;
  for (int lane = 0; lane < CC_WARP_SIZE; lane++) {
    if (mask & a->active & (1u << lane)) {
      r[n].first = a->addr[lane];
      r[n].last = a->addr[lane] + (a->size_bytes - 1);
      n++;
    }
  }
  *lanes = (uint32_t)n;
  if (n == 0)
    return 0;
  qsort(r, n, sizeof r[0], cmp_range);
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

/* Counts the distinct units of `unit` bytes covering the sorted, merged ranges r[0..n). */
static uint32_t count_units(const struct range *r, size_t n, uint64_t unit)
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

uint32_t cc_model_units(const struct cc_warp_access *a, uint32_t mask, uint64_t unit)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  size_t n = merged_ranges(a, mask, r, &lanes);
  return count_units(r, n, unit);
}

void cc_model_geometry(const struct cc_warp_access *a, struct cc_global_cost *out)
{
  struct range r[CC_WARP_SIZE];
  uint32_t lanes;
  uint64_t unique = 0;
  size_t n = merged_ranges(a, 0xffffffffu, r, &lanes);
  for (size_t i = 0; i < n; i++)
    unique += r[i].last - r[i].first + 1;
  out->sectors = count_units(r, n, SECTOR_BYTES);
  out->lines = count_units(r, n, LINE_BYTES);
  out->bytes_requested = lanes * a->size_bytes;
  out->unique_bytes = (uint32_t)unique;
  out->ideal_sectors = (uint32_t)((unique + SECTOR_BYTES - 1) / SECTOR_BYTES);
}

uint32_t cc_model_lane_mask(uint32_t first, uint32_t count)
{
  assert(first < CC_WARP_SIZE && count >= 1 && first + count <= CC_WARP_SIZE);
  return count == CC_WARP_SIZE ? 0xffffffffu : ((1u << count) - 1u) << first;
}

void cc_model_local_layout(const struct cc_warp_access *a, struct cc_warp_access *out)
{
  uint64_t size = a->size_bytes ? a->size_bytes : 1;
  *out = *a;
  for (uint64_t lane = 0; lane < CC_WARP_SIZE; lane++) {
    uint64_t off = a->addr[lane];
    out->addr[lane] = (off / size) * (size * CC_WARP_SIZE) + lane * size + off % size;
  }
}
