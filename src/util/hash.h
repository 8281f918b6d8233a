/* coalcheck: FNV-1a 64, the hash of the GPU launch plan's buffers; the splitmix64
 * finaliser, the hash of the analysis's open-addressing tables.
 *
 * `coalcheck --backend gpu` (src/cli/gpu_kernel.c) writes the hash of each buffer's
 * initial bytes into the launch plan; coalcheck-gpu-launch (src/gpu/launch.c) refills the
 * buffer and checks the hash, so both backends start from the same input. Both must use
 * this one definition.
 *
 * Header-only (static inline): coalcheck-gpu-launch is built from a list of util sources
 * (src/gpu/CMakeLists.txt), not by linking cc_util; a header needs no change to that list
 * or to the libraries beside it. */
#ifndef CC_UTIL_HASH_H
#define CC_UTIL_HASH_H

#include <stdint.h>

/* FNV-1a, 64 bits (Fowler, Noll, Vo; the 64-bit parameters of Noll's reference,
 * www.isthe.com/chongo/tech/comp/fnv): start from the offset basis, then for each byte
 * h = (h XOR byte) * prime, modulo 2^64. */
#define CC_FNV1A64_OFFSET_BASIS 0xcbf29ce484222325ull
#define CC_FNV1A64_PRIME 0x100000001b3ull

/* FNV-1a 64 of the bytes bytes at p (p may be NULL when bytes is 0); "" hashes to the
 * offset basis. */
static inline uint64_t cc_fnv1a64(const void *p, uint64_t bytes)
{
  const uint8_t *b = p;
  uint64_t h = CC_FNV1A64_OFFSET_BASIS;
  for (uint64_t i = 0; i < bytes; i++)
    h = (h ^ b[i]) * CC_FNV1A64_PRIME;
  return h;
}

/* FNV-1a 64 of bytes zero bytes, without the buffer: XOR with 0 leaves h, so each byte
 * only multiplies by the prime (the launch plan's zero-filled counter buffer). */
static inline uint64_t cc_fnv1a64_zeros(uint64_t bytes)
{
  uint64_t h = CC_FNV1A64_OFFSET_BASIS;
  for (uint64_t i = 0; i < bytes; i++)
    h *= CC_FNV1A64_PRIME;
  return h;
}

/* The splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's splitmix64.c): a bijection of 64-bit
 * words whose every output bit depends on every input bit, so that keys that differ in
 * their high bits only (chunk and node keys of nearby addresses) spread over a
 * power-of-two table. */
static inline uint64_t cc_mix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

#endif
