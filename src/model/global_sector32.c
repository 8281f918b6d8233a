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
#include "model/model_impl.h"

#define SECTOR_BYTES 32u

static void sector32_global(const struct cc_model *m, const struct cc_warp_access *a,
                            struct cc_global_cost *out, struct cc_model_txns *list)
{
  (void)m;
  *out = (struct cc_global_cost){ .requests = 1 };
  cc_model_geometry(a, out); /* sectors, lines, ideal sectors, bytes (geometry.c) */
  out->transactions = out->sectors;
  out->transaction_bytes = SECTOR_BYTES * out->sectors;
  if (list) /* the views only: the analyses' path pays one test */
    cc_model_list_units(a, UINT32_MAX, SECTOR_BYTES, 0, list);
}

const struct cc_model_rules cc_model_rules_sector32 = {
  .family = "32-byte sectors, one request per warp instruction",
  .group_lanes = 32,
  .global = sector32_global,
  .shared = NULL,
};
