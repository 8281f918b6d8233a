/* coalcheck: bits set in a word, without a library call.
 *
 * Why: the build targets x86-64 without POPCNT (no -march), where __builtin_popcount
 * and __builtin_popcountll call libgcc's __popcountdi2: 18.6 M host instructions of the
 * naive 2048^2 transpose at --jobs 2, in the paths every record takes (a record's lanes,
 * an entry's length, the analysis's geometry); and a third of a footprint union's
 * (src/analysis/footprint.c). Functions that are compiled for AVX2 (target attribute)
 * may keep the builtin, which is then the instruction.
 *
 * Header-only (static inline), like hash.h: callable from any module and from the GPU
 * launcher's sources. */
#ifndef CC_UTIL_BITS_H
#define CC_UTIL_BITS_H

#include <stdint.h>

/* Bits set in x (0..64): the SWAR sum of bit pairs, nibbles and bytes (Hacker's Delight,
 * 2nd ed., section 5-1). */
static inline uint32_t cc_popcount64(uint64_t x)
{
  x -= (x >> 1) & 0x5555555555555555ull;
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (uint32_t)((x * 0x0101010101010101ull) >> 56);
}

/* Bits set in x (0..32): a warp's active lanes. */
static inline uint32_t cc_popcount32(uint32_t x)
{
  x -= (x >> 1) & 0x55555555u;
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

#endif
