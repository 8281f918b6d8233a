/* The record streams of tests/cache/test_cache_oracle.c and of the program that printed
 * its figures (tests/cache/oracle_print.c): the benchmark patterns (bench/patterns.h, the
 * five there were when the figures were printed) and a
 * mixed stream (loads, stores and atomics; global, local and shared; 1 to 16 bytes a lane;
 * partial masks; strided, contiguous and scattered lanes) from a fixed generator. Included
 * by one program each: everything is static. */
#ifndef CC_TESTS_CACHE_ORACLE_MIX_H
#define CC_TESTS_CACHE_ORACLE_MIX_H

#include <stdint.h>
#include <string.h>

#include "../../bench/patterns.h"

#define ORACLE_PATTERNS (GATHER + 1) /* copy .. gather: the patterns the figures hold */
#define ORACLE_MIX ORACLE_PATTERNS   /* the mixed stream, after those patterns */
#define ORACLE_STREAMS (ORACLE_PATTERNS + 1)
#define ORACLE_SLOTS 4

/* One configuration: the device (arch, --cache spec) and the records per stream. */
struct oracle_config {
  const char *arch, *spec;
  uint64_t records;
};

/* The hashed configurations name index=fold, the set index the figures were recorded
 * with (before set sampling's class-pure index, 2026-11-27; fold has no set classes, so
 * it replays every set): the replay itself must not have changed. */
static const struct oracle_config oracle_configs[] = {
  {"sm_90", "h100,index=fold", 49152},
  {"sm_90", "h100,l2=2M,l1=16K,dispatch=blocked,index=fold", 49152},
  {"sm_90", "h100,sms=8,l2=512K,l2-ways=4,index=mod", 49152},
  {"cc2.0", "c2050,index=fold", 32768},
  {"sm_61", "gtx1080,l2=256K,index=fold", 32768},
};
#define ORACLE_CONFIGS (sizeof oracle_configs / sizeof oracle_configs[0])

static uint64_t mix_next(uint64_t *x)
{
  *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
  return *x;
}

/* Record i of the mixed stream: CTAs of 8 warps, 8 records a warp, grid 4096 x 1. */
static void mix_gen(uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  static const uint32_t sizes[5] = {1, 2, 4, 8, 16};
  uint64_t r = mix_next(x), cta = i / 64;
  uint64_t base = 0x10000000ull + (cta % 97) * 4096 + (r >> 40) % 8 * 128;
  memset(a, 0, sizeof *a);
  a->insn_slot = (uint32_t)(r % ORACLE_SLOTS);
  a->cta[0] = (uint32_t)(cta % 4096);
  a->warp = (uint32_t)(i / 8 % 8);
  a->dyn = i % 8;
  a->kind = r % 10 < 6 ? CC_ACCESS_LOAD : r % 10 < 9 ? CC_ACCESS_STORE : CC_ACCESS_ATOMIC;
  a->space = (r >> 8) % 10 < 8 ? CC_SPACE_GLOBAL : (r >> 8) % 10 < 9 ? CC_SPACE_LOCAL
                                                                      : CC_SPACE_SHARED;
  a->size_bytes = sizes[(r >> 12) % 5];
  a->active = (r >> 16) % 2 ? 0xffffffffu : (uint32_t)(r >> 20) | 1u;
  if (a->space == CC_SPACE_LOCAL) { /* the interleaved layout, 4-byte pieces */
    a->size_bytes = 4;
    a->kind = a->kind == CC_ACCESS_ATOMIC ? CC_ACCESS_LOAD : a->kind;
    for (uint32_t l = 0; l < 32; l++)
      a->addr[l] = (r >> 24) % 16 * 128 + l * 4;
    return;
  }
  for (uint32_t l = 0; l < 32; l++) {
    switch ((r >> 28) % 4) {
    case 0: a->addr[l] = base + l * a->size_bytes; break;               /* contiguous */
    case 1: a->addr[l] = base + l * 16384; break;                       /* a line per lane */
    case 2: a->addr[l] = base + l * 4 * a->size_bytes + (r >> 32) % 3; break; /* strided */
    default: a->addr[l] = 0x10000000ull + mix_next(x) % (1u << 21); break; /* scattered */
    }
  }
}

/* Record i of stream s (a bench pattern or the mixed stream). */
static void oracle_gen(int s, uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  if (s == ORACLE_MIX)
    mix_gen(i, x, a);
  else
    gen((enum pattern)s, i, x, a);
}

/* Records of stream s in configuration cfg (gather: an eighth). */
static uint64_t oracle_records(const struct oracle_config *cfg, int s)
{
  return s == GATHER ? cfg->records / 8 : cfg->records;
}

#endif
