/* Random and adversarial warp records for the tests that compare a fast path with its
 * reference (tests/model/test_model_fastpath.c, tests/analysis/test_analysis_fast.c).
 * Header-only; the generator state is the caller's (no globals). The records are not
 * expected figures: both paths get the same record and must agree on every field. */
#ifndef CC_TESTS_FASTPATH_GEN_H
#define CC_TESTS_FASTPATH_GEN_H

#include <stdint.h>
#include <string.h>

#include "access/access.h"

/* splitmix64: a fixed sequence per seed, so that a failure can be replayed */
static inline uint64_t gen_next(uint64_t *state)
{
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline uint64_t gen_pick(uint64_t *state, const uint64_t *v, size_t n)
{
  return v[gen_next(state) % n];
}

/* An active mask: full, empty, one lane, a half, alternating lanes, a run, or random. */
static inline uint32_t gen_mask(uint64_t *st)
{
  static const uint32_t fixed[] = { 0xffffffffu, 0u,          0x1u,       0x80000000u,
                                    0x0000ffffu, 0xffff0000u, 0xaaaaaaaau, 0x55555555u,
                                    0x000ff000u, 0x80000001u, 0x11111111u, 0xfffffffeu };
  uint64_t r = gen_next(st);
  if (r % 3 == 0)
    return (uint32_t)gen_next(st);
  return fixed[(r / 3) % (sizeof fixed / sizeof fixed[0])];
}

/* A record of space sp: affine (base + lane x stride, strides positive, negative, zero,
 * odd, straddling sectors, huge), affine with one lane disturbed, lanes shuffled in a
 * small window (duplicates and overlaps), or bases near 0 and near the top of memory
 * (wrap-around). Sizes 1, 2, 4, 8, 16; inactive lanes hold junk, which must be ignored. */
static inline struct cc_warp_access gen_record(uint64_t *st, enum cc_space sp)
{
  static const uint64_t sizes[] = { 1, 2, 4, 4, 4, 8, 16 };
  static const uint64_t strides[] = { 0,      1,      2,      4,       8,      12,
                                      16,     32,     36,     64,      128,    4096,
                                      16384,  3,      (uint64_t)-4, (uint64_t)-8,
                                      (uint64_t)-1, (uint64_t)-16384, 1ull << 40,
                                      (uint64_t)-(1ll << 40), 1ull << 62 };
  static const uint64_t bases[] = { 0, 4, 28, 30, 2044, 2048, 4096 - 64, 0x7f0000001000ull,
                                    UINT64_MAX - 63, UINT64_MAX - 3, UINT64_MAX - 200,
                                    0x100000000ull + 17 };
  struct cc_warp_access a;
  uint64_t kind = gen_next(st) % 8, base, stride;
  memset(&a, 0, sizeof a);
  a.kind = (enum cc_access_kind)(gen_next(st) % 4);
  a.space = sp;
  a.size_bytes = (uint32_t)gen_pick(st, sizes, sizeof sizes / sizeof sizes[0]);
  a.active = gen_mask(st);
  base = gen_next(st) % 2 ? gen_pick(st, bases, sizeof bases / sizeof bases[0])
                          : gen_next(st) % 65536;
  if (sp != CC_SPACE_GLOBAL && base > 65536)
    base %= 65536; /* shared and local offsets stay small, as in a real window */
  stride = gen_pick(st, strides, sizeof strides / sizeof strides[0]);
  if (kind == 7)
    stride = gen_next(st) % 256;
  for (int l = 0; l < CC_WARP_SIZE; l++)
    a.addr[l] = base + (uint64_t)l * stride;
  if (kind == 5) { /* one lane off the line */
    a.addr[gen_next(st) % 32] += gen_next(st) % 64;
  } else if (kind == 6) { /* a small window, lanes in any order */
    uint64_t win = 1 + gen_next(st) % 512;
    for (int l = 0; l < CC_WARP_SIZE; l++)
      a.addr[l] = base + gen_next(st) % win;
  }
  for (int l = 0; l < CC_WARP_SIZE; l++)
    if (!(a.active & (1u << l)))
      a.addr[l] = gen_next(st); /* junk in inactive lanes */
  return a;
}

#endif
