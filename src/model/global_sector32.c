/* Global and local memory on sector-based GPUs: cc3.x and sm_50 .. sm_90.
 *
 * Rule (MODELS.md, "cc3.x and cc5.0 ... cc9.0"; CUDA C Programming Guide, appendix
 * "Compute Capabilities", global memory of 5.x..9.0): a warp-level instruction issues ONE
 * request; the request moves the distinct 32-byte aligned sectors that hold the bytes
 * [addr, addr + size) of its active lanes (a misaligned access may straddle two sectors).
 *   sectors       = |{ floor(b / 32) : b in some active lane's byte range }|
 *   ideal_sectors = ceil(unique bytes requested / 32)
 *   lines         = distinct 128-byte lines touched
 *   transactions  = sectors, transaction_bytes = 32 x sectors
 * One request per instruction also for 8- and 16-byte accesses: measured on an H200 with
 * Nsight Compute (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum): LDG.E.128 by 32 lanes
 * = 1 request, 16 sectors (l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum).
 * Whole-kernel check (DESIGN.md): naive 4096x4096 float transpose, 32x8 blocks, H200:
 * 524,288 load requests / 2,097,152 sectors, 524,288 store requests / 16,777,216 sectors. */
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

static void sector32_global(const struct cc_model *m, const struct cc_warp_access *a,
                            struct cc_global_cost *out)
{
  struct range r[CC_WARP_SIZE];
  size_t n = 0, merged = 0;
  uint64_t unique = 0;
  (void)m;
  *out = (struct cc_global_cost){ .requests = 1 };
  if (a->size_bytes == 0)
    return;
  for (int lane = 0; lane < CC_WARP_SIZE; lane++) {
    if (a->active & (1u << lane)) {
      r[n].first = a->addr[lane];
      r[n].last = a->addr[lane] + (a->size_bytes - 1);
      n++;
    }
  }
  if (n == 0)
    return;
  qsort(r, n, sizeof r[0], cmp_range);
  /* merge overlapping or touching ranges, so unique bytes are counted once */
  for (size_t i = 1; i < n; i++) {
    if (r[i].first <= r[merged].last + 1) {
      if (r[i].last > r[merged].last)
        r[merged].last = r[i].last;
    } else {
      r[++merged] = r[i];
    }
  }
  merged++;
  for (size_t i = 0; i < merged; i++)
    unique += r[i].last - r[i].first + 1;
  out->sectors = count_units(r, merged, SECTOR_BYTES);
  out->lines = count_units(r, merged, LINE_BYTES);
  out->transactions = out->sectors;
  out->transaction_bytes = SECTOR_BYTES * out->sectors;
  out->bytes_requested = (uint32_t)n * a->size_bytes;
  out->unique_bytes = (uint32_t)unique;
  out->ideal_sectors = (uint32_t)((unique + SECTOR_BYTES - 1) / SECTOR_BYTES);
}

const struct cc_model_rules cc_model_rules_sector32 = {
  .family = "32-byte sectors, one request per warp instruction",
  .group_lanes = 32,
  .global = sector32_global,
  .shared = NULL,
};
