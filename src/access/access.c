/* Names of the access record's enumerations: see access.h. */
#include "access/access.h"

#include <string.h>

const char *cc_space_name(enum cc_space space)
{
  switch (space) {
  case CC_SPACE_GLOBAL: return "global";
  case CC_SPACE_SHARED: return "shared";
  case CC_SPACE_LOCAL: return "local";
  case CC_SPACE_COUNT: break;
  }
  return "?";
}

const char *cc_access_kind_name(enum cc_access_kind kind)
{
  switch (kind) {
  case CC_ACCESS_LOAD: return "load";
  case CC_ACCESS_STORE: return "store";
  case CC_ACCESS_ATOMIC: return "atomic";
  case CC_ACCESS_REDUCTION: return "reduction";
  }
  return "?";
}

/* The lanes against the progression itself (lane l: a0 + l x d), xor and or, no
 * branch on the data: vectors of four lanes with AVX2 where the host has it, else two
 * lanes a vector of the compiler's (SSE2 on x86-64, NEON, or scalars), two vectors a
 * step (vectors wider than the registers went through the stack). Not inlined into the
 * caller: the vectors would make it align its stack frame on every call. */
typedef uint64_t lane_pair __attribute__((vector_size(16)));

static __attribute__((noinline)) int lanes_affine(const uint64_t *addr, uint64_t a0,
                                                  uint64_t d)
{
  lane_pair lo = {a0, a0 + d}, hi = {a0 + 2 * d, a0 + 3 * d}, four = {4 * d, 4 * d};
  lane_pair bad = {0, 0};
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    lane_pair v, w;
    memcpy(&v, &addr[l], sizeof v);
    memcpy(&w, &addr[l + 2], sizeof w);
    bad |= (v ^ lo) | (w ^ hi);
    lo += four;
    hi += four;
  }
  return (bad[0] | bad[1]) == 0;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CC_CACHE_NO_AVX2)
#define HAVE_AVX2_AFFINE 1
typedef uint64_t lane_quad __attribute__((vector_size(32)));

__attribute__((target("avx2"))) static int lanes_affine_avx2(const uint64_t *addr, uint64_t a0,
                                                              uint64_t d)
{
  lane_quad want = {a0, a0 + d, a0 + 2 * d, a0 + 3 * d}, four = {4 * d, 4 * d, 4 * d, 4 * d};
  lane_quad bad = {0, 0, 0, 0};
#pragma GCC unroll 8
  for (uint32_t l = 0; l < CC_WARP_SIZE; l += 4) {
    lane_quad v;
    memcpy(&v, &addr[l], sizeof v);
    bad |= v ^ want;
    want += four;
  }
  return (bad[0] | bad[1] | bad[2] | bad[3]) == 0;
}
#endif

int cc_access_lanes_affine(const struct cc_warp_access *a, uint64_t step)
{
#ifdef HAVE_AVX2_AFFINE
  if (__builtin_cpu_supports("avx2"))
    return lanes_affine_avx2(a->addr, a->addr[0], step);
#endif
  return lanes_affine(a->addr, a->addr[0], step);
}

int cc_access_progression(const struct cc_warp_access *a, uint64_t *step)
{
  uint64_t a0 = a->addr[0], d = a->addr[1] - a0, room = UINT64_MAX - a0;
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  if (a->active != 0xffffffffu || room < size - 1u || d > (room - (size - 1u)) / 31u ||
      !cc_access_lanes_affine(a, d))
    return 0;
  *step = d;
  return 1;
}
