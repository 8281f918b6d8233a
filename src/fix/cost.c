/* The static cost model of a thread-geometry permutation: from each access's affine form
 * (src/affine), the sectors (global) or wavefronts (shared) a warp of the permuted block
 * would need, weighted by how often the instruction ran. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* floor(a / b) for b > 0 */
static int64_t floor_div(int64_t a, int64_t b)
{
  int64_t q = a / b;
  return (a % b != 0 && (a < 0)) ? q - 1 : q;
}

static int cmp_i64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Distinct values among v[0..n) (sorts v). */
static uint32_t distinct(int64_t *v, uint32_t n)
{
  uint32_t d = 0;
  qsort(v, n, sizeof *v, cmp_i64);
  for (uint32_t i = 0; i < n; i++)
    d += i == 0 || v[i] != v[i - 1];
  return d;
}

/* Byte offsets (relative to the form's base) of the lanes of warp w of a CTA of the
 * permuted block nb, old dimension e's coefficient coeff[e]; returns the lane count. */
static uint32_t warp_offsets(const int64_t coeff[3], const int sigma[3], const uint32_t nb[3],
                             uint64_t w, int64_t off[32])
{
  uint64_t threads = (uint64_t)nb[0] * nb[1] * nb[2];
  uint32_t n = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint64_t t = w * 32 + l;
    uint64_t nt[3];
    int64_t o = 0;
    if (t >= threads)
      break;
    nt[0] = t % nb[0];
    nt[1] = (t / nb[0]) % nb[1];
    nt[2] = t / ((uint64_t)nb[0] * nb[1]);
    for (int e = 0; e < 3; e++) /* old coordinate e is new coordinate sigma[e] */
      o += coeff[e] * (int64_t)nt[sigma[e]];
    off[n++] = o;
  }
  return n;
}

/* Sectors (global) of one warp: the distinct 32-byte sectors its lanes' bytes touch. */
static uint32_t warp_sectors(const int64_t *off, uint32_t n, uint32_t size)
{
  int64_t s[64];
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    int64_t first = floor_div(off[i], 32), last = floor_div(off[i] + (int64_t)size - 1, 32);
    s[k++] = first;
    if (last != first && k < 64)
      s[k++] = last; /* an access of <= 16 bytes crosses at most one boundary */
  }
  return distinct(s, k);
}

/* Wavefronts (shared, 32 banks of 4 bytes) of one warp of accesses of at most 4 bytes:
 * the most distinct 4-byte words any bank holds (CUDA C Programming Guide, "Shared
 * Memory", compute capability 5.x and later; multicast of one word is free). */
static uint32_t warp_wavefronts(const int64_t *off, uint32_t n)
{
  int64_t words[32];
  uint32_t worst = 1;
  for (uint32_t i = 0; i < n; i++)
    words[i] = floor_div(off[i], 4);
  for (uint32_t bank = 0; bank < 32; bank++) {
    int64_t in_bank[32];
    uint32_t k = 0, d;
    for (uint32_t i = 0; i < n; i++)
      if (((words[i] % 32) + 32) % 32 == bank)
        in_bank[k++] = words[i];
    d = k ? distinct(in_bank, k) : 0;
    worst = d > worst ? d : worst;
  }
  return worst;
}

/* Mean cost per request of an access under sigma over the warps of one permuted CTA.
 * Global: the base address's place in its sector is not known statically (a stencil's
 * in[c-1] is 4 bytes off the sector boundary), so the sectors are averaged over every
 * size-aligned offset of the base within a 32-byte sector; that sees the straddling
 * that makes narrow warps cost more. Shared: bank conflicts do not change when every
 * lane's address moves by the same amount. */
static double mean_cost(const int64_t coeff[3], const int sigma[3], const uint32_t nb[3],
                        uint32_t size, int shared)
{
  uint64_t threads = (uint64_t)nb[0] * nb[1] * nb[2], warps = (threads + 31) / 32, sum = 0;
  uint32_t step = size >= 32 ? 32 : (size ? size : 1), bases = 32 / step;
  int64_t off[32];
  for (uint64_t w = 0; w < warps; w++) {
    uint32_t n = warp_offsets(coeff, sigma, nb, w, off);
    if (shared) {
      sum += (size <= 4 ? warp_wavefronts(off, n) : (size + 3) / 4) * bases;
      continue;
    }
    for (uint32_t b = 0; b < bases; b++) {
      int64_t moved[32];
      for (uint32_t l = 0; l < n; l++)
        moved[l] = off[l] + (int64_t)(b * step);
      sum += warp_sectors(moved, n, size);
    }
  }
  return warps ? (double)sum / (double)(warps * bases) : 0.0;
}

double cc_fix_model_sectors(const struct cc_affine_kernel *ak, const struct cc_affine_env *env,
                            const struct cc_kernel_stats *before, const struct cc_fix_perm *p,
                            const uint32_t block[3], const uint32_t nb[3], uint64_t *unknown)
{
  double total = 0;
  *unknown = 0;
  for (size_t i = 0; i < before->n_insns; i++) {
    const struct cc_insn_stats *s = &before->insns[i];
    const struct cc_affine_access *a = cc_affine_find(ak, s->info.id);
    int shared = s->info.space == CC_SPACE_SHARED;
    double measured = shared ? (double)s->wavefronts : (double)s->sectors;
    int64_t coeff[3];
    int ok = a && a->status == CC_AFFINE_OK && s->info.space != CC_SPACE_LOCAL;
    for (int e = 0; e < 3 && ok; e++) {
      if (block[e] == 1)
        coeff[e] = 0; /* one thread in that dimension: its stride never shows */
      else
        ok = cc_affine_coeff(a, env, CC_AFFINE_TID, (uint32_t)e, &coeff[e]);
    }
    if (!ok) {
      total += measured;
      *unknown += s->executions;
      continue;
    }
    total += (double)s->executions * mean_cost(coeff, p->sigma, nb, s->info.size_bytes, shared);
  }
  return total;
}
