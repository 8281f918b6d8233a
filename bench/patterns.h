/* The warp access patterns the benchmarks generate (bench/trace_speed.c, bench/cache_speed.c):
 *   copy       out[i] = in[i], 256-thread CTAs: load + store, both unit stride
 *   transpose  naive 4096x4096 transpose, 32x8 CTAs: load unit stride, store stride 16 KiB
 *   divergent  copy where every other warp has a partial mask (lower half, odd lanes)
 *   loop       row sums, one thread per row: 1 load per trip, lanes 16 KiB apart, dyn
 *              counts trips (4096 trips per warp)
 *   gather     addresses from a xorshift generator: nothing to predict (worst case)
 *   padded     transpose into a matrix of rows of 4097 floats (a padded pitch): store
 *              stride 16388 bytes, which no progression of the class hash serves (each
 *              warp's column 4 bytes past the previous warp's: src/cache lanes_memo)
 *   gemv       PolyBench atax_kernel1's shape (examples/gemv gemv_rows), one thread per
 *              row: per trip the column A[row][t] (slot 0, lanes 16 KiB apart) and x[t]
 *              (slot 1: a broadcast, every lane one address), 4096 trips per warp
 *   gesummv    PolyBench gesummv (examples/gesummv gesummv_rows): per trip the columns
 *              A[row][t] and B[row][t] (slots 0 and 1) and x[t] (slot 2), 4096 trips
 * Records alternate between instruction slot 0 (a load) and slot 1 (a store), except
 * loop's (all loads, slot 0), gemv's (two loads) and gesummv's (three). CTA ids fit a grid of 4096 x 4096
 * CTAs. Included by one program each: everything is static. */
#ifndef CC_BENCH_PATTERNS_H
#define CC_BENCH_PATTERNS_H

#include <stdint.h>

#include "access/access.h"

enum pattern { COPY, TRANSPOSE, DIVERGENT, LOOP, GATHER, PADDED, GEMV, GESUMMV, N_PATTERNS };
static const char *const pattern_names[N_PATTERNS] = {
    "copy", "transpose", "divergent", "loop", "gather", "padded", "gemv", "gesummv"};

static void fill(struct cc_warp_access *a, uint64_t base, uint64_t stride)
{
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = base + l * stride;
}

/* Record i of pattern p; *x is the gather generator's state. */
static void gen(enum pattern p, uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  const uint64_t in = 0x7f0000000000ull, out = 0x7f1000000000ull;
  uint64_t pair = i / 2, warp_id = pair, cta = warp_id / 8;
  uint32_t slot = (uint32_t)(i & 1);
  a->insn_slot = slot;
  a->kind = slot ? CC_ACCESS_STORE : CC_ACCESS_LOAD; /* slot 0 loads, slot 1 stores */
  a->space = CC_SPACE_GLOBAL;
  a->size_bytes = 4;
  a->dyn = 0;
  a->active = 0xffffffffu;
  a->cta[0] = (uint32_t)(cta % 4096);
  a->cta[1] = (uint32_t)(cta / 4096);
  a->cta[2] = 0;
  a->warp = (uint32_t)(warp_id % 8);
  a->cut = 0; /* a whole record (access.h) */
  switch (p) {
  case COPY:
    fill(a, (slot ? out : in) + warp_id * 128, 4);
    break;
  case TRANSPOSE: /* CTA (bx, by) of 32x8 threads; warp w = thread row ty = w */
  case PADDED: {   /* the same, the output's rows 4097 floats apart */
    uint64_t bx = cta % 128, by = cta / 128 % 512, ty = warp_id % 8;
    uint64_t row = by * 8 + ty, col = bx * 32, pitch = p == PADDED ? 4097 : 4096;
    a->cta[0] = (uint32_t)bx;
    a->cta[1] = (uint32_t)by;
    if (slot)
      fill(a, out + (col * pitch + row) * 4, pitch * 4);
    else
      fill(a, in + (row * 4096 + col) * 4, 4);
    break;
  }
  case DIVERGENT:
    fill(a, (slot ? out : in) + warp_id * 128, 4);
    if (warp_id & 1)
      a->active = (warp_id & 2) ? 0x0000ffffu : 0xaaaaaaaau;
    break;
  case LOOP: { /* warp w of the grid handles rows 32w..32w+31; trip t reads column t */
    uint64_t w = i / 4096, t = i % 4096;
    a->insn_slot = 0;
    a->kind = CC_ACCESS_LOAD;
    a->cta[0] = (uint32_t)(w / 8);
    a->cta[1] = 0;
    a->warp = (uint32_t)(w % 8);
    a->dyn = t;
    fill(a, in + (w * 32 * 4096 + t) * 4, 4096 * 4);
    break;
  }
  case GEMV: { /* warp w of the grid handles rows 32w..32w+31; trip t: A[row][t], x[t] */
    uint64_t w = pair / 4096, t = pair % 4096;
    a->kind = CC_ACCESS_LOAD;
    a->cta[0] = (uint32_t)(w / 8);
    a->cta[1] = 0;
    a->warp = (uint32_t)(w % 8);
    a->dyn = t;
    if (slot)
      fill(a, out + t * 4, 0);
    else
      fill(a, in + (w * 32 * 4096 + t) * 4, 4096 * 4);
    break;
  }
  case GESUMMV: { /* as gemv, three records a trip: A's column, B's, x[t] */
    uint64_t w = i / 3 / 4096, t = i / 3 % 4096, part = i % 3;
    a->insn_slot = (uint32_t)part;
    a->kind = CC_ACCESS_LOAD;
    a->cta[0] = (uint32_t)(w / 8);
    a->cta[1] = 0;
    a->warp = (uint32_t)(w % 8);
    a->dyn = t;
    if (part == 2)
      fill(a, out + t * 4, 0);
    else
      fill(a, in + (part << 32) + (w * 32 * 4096 + t) * 4, 4096 * 4);
    break;
  }
  case GATHER:
    for (uint32_t l = 0; l < 32; l++) {
      *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
      a->addr[l] = in + (*x % (1u << 26)) * 4;
    }
    break;
  case N_PATTERNS:
    break;
  }
}

#endif
