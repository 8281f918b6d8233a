/* coalcheck analysis, inside the folder only: the footprint of an instruction, the set of
 * distinct byte addresses its lanes accessed over all its executions (Algorithm 1's
 * AllAddr, without the duplicates that make the paper's vector grow with run length).
 *
 * Representation: every address is origin + u x g, where origin is the first address
 * added and g (the granularity) is the greatest common divisor of all differences
 * addr - origin seen so far; a sparse bitmap holds the units u (signed), in chunks of 512
 * consecutive units (a 64-byte bitmap each) found through an open-addressing hash table
 * keyed by u / 512. When a new address makes g smaller, the set is rebuilt at the finer
 * granularity (g only shrinks, by a factor >= 2 each time: at most 64 rebuilds). The set
 * is exact: the addresses, gaps and counts are those of the addresses added.
 *
 * Memory bound: for a footprint spanning B bytes (largest - smallest address) with
 * granularity g, at most (B / g / 512 + 1) chunks of 72 bytes, doubled by the growth of
 * the arrays, plus 16 bytes of table per chunk: about 2 x 88 / 512 = 0.35 bytes per unit
 * of g bytes, and never more than 2 x 88 bytes per distinct address. A float array
 * read with a stride of 16 bytes (a loop unrolled 4 times) spanning 256 MiB costs 16 Mi
 * units -> at most ~5.5 MiB (it cost 1 bit per byte, ~36-72 MiB, at byte granularity).
 * Repeated addresses (a loop, the next CTA of a repeating pattern) cost nothing more.
 * Fixed part: the struct itself, about 0.7 KiB (a chunk index cached per lane, so that a
 * column access, 32 chunks per warp, finds its chunks again without hashing). */
#ifndef CC_ANALYSIS_FOOTPRINT_H
#define CC_ANALYSIS_FOOTPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct cc_footprint;

/* An empty footprint; cc_analysis_fp_free (NULL allowed) frees it. */
cc_give struct cc_footprint *cc_analysis_fp_new(void);
void cc_analysis_fp_free(cc_take struct cc_footprint *fp);
/* Adds one address (idempotent). */
void cc_analysis_fp_add(cc_keep struct cc_footprint *fp, uint64_t addr);
/* Adds addr[l] for every lane l whose bit is set in mask (addr has 32 entries; the
 * others are not read); the same set as cc_analysis_fp_add of each in lane order, but a
 * run of lanes on consecutive units of the granularity (a unit-stride warp access) sets
 * its bits a word at a time, and the chunk of the previous lane is reused. */
void cc_analysis_fp_add_lanes(cc_keep struct cc_footprint *fp, const uint64_t *addr,
                              uint32_t mask);
/* cc_analysis_fp_add_lanes of all 32 lanes when the caller knows them a progression going
 * up (access.h cc_access_progression: addr[l] = addr[0] + l x step, no lane past the top
 * of memory): the same set, without the lanes' test; step 0 adds one address. */
void cc_analysis_fp_add_progression(cc_keep struct cc_footprint *fp, const uint64_t *addr,
                                    uint64_t step);
/* A piece of a set of units in increasing order (the leaves of a shared footprint,
 * fpshare.c): bit b of words[i] is unit unit0 + 64 i + b. */
struct cc_fp_bits {
  uint64_t unit0;
  const uint64_t *words;
  size_t n;
};

/* The gcd of g and of u - u0 for every unit u set in pieces[0..n) (u0 at most every such
 * u); g = 0 to start. A word whose units all lie on the grid of a power-of-two gcd found
 * so far is checked whole. */
uint64_t cc_analysis_fp_bits_gcd(const struct cc_fp_bits *pieces, size_t n, uint64_t u0,
                                 uint64_t g);
/* A footprint of the addresses u << shift of the units set in pieces[0..n), on the grid
 * of origin u0 << shift and granularity g << shift (g >= 1): u0 the least unit and g the
 * gcd of the whole set these pieces are part of (cc_analysis_fp_bits_gcd), so that the
 * parts of one set, built on several threads, join by cc_analysis_fp_concat. Its chunks
 * are appended in key order, no table. */
cc_give struct cc_footprint *cc_analysis_fp_grid_part(const struct cc_fp_bits *pieces, size_t n,
                                                      unsigned shift, uint64_t u0, uint64_t g);
/* Adds to into the parts[0..n) (taken and freed; NULL entries skipped) that
 * cc_analysis_fp_grid_part made of one set from disjoint pieces (so their counts add
 * up), in the set's unit order: their chunk lists
 * joined (a part's first chunk may be the previous one's last), then moved into an
 * empty into or unioned with a non-empty one. */
void cc_analysis_fp_concat(cc_keep struct cc_footprint *into,
                           cc_take struct cc_footprint **parts, size_t n);
/* Adds every address of from to into. */
void cc_analysis_fp_union(cc_keep struct cc_footprint *into, cc_keep const struct cc_footprint *from);
/* Largest difference between neighbouring distinct addresses in increasing order, in
 * bytes; 0 for fewer than two addresses. (Algorithm 1, lines 29-31.) */
uint64_t cc_analysis_fp_max_gap(cc_keep const struct cc_footprint *fp);
/* The same over the union of the n footprints fps[0..n) (duplicates across them count
 * once), without building the union: a merge of the sorted sets. n = 0: 0. Used for the
 * footprint of a source-level reference whose instructions are unrolled copies. */
uint64_t cc_analysis_fp_max_gap_union(cc_keep const struct cc_footprint *const *fps, size_t n);
/* The same, dropping every address into the sweep's window one bit at a time (the
 * general path); cc_analysis_fp_max_gap_union moves members of the union's granularity
 * a 64-bit word at a time. For the tests that compare the two. */
uint64_t cc_analysis_fp_max_gap_union_ref(cc_keep const struct cc_footprint *const *fps,
                                          size_t n);
/* Smallest address; returns 0 (and leaves *min) when the footprint is empty, else 1. */
int cc_analysis_fp_min(cc_keep const struct cc_footprint *fp, uint64_t *min);
/* Largest address; as cc_analysis_fp_min. */
int cc_analysis_fp_max(cc_keep const struct cc_footprint *fp, uint64_t *max);
/* Distinct addresses held. */
uint64_t cc_analysis_fp_count(cc_keep const struct cc_footprint *fp);
/* The granularity g in bytes (0 while fewer than two distinct addresses). */
uint64_t cc_analysis_fp_granularity(cc_keep const struct cc_footprint *fp);
/* Heap bytes the structure holds (itself, chunks, table), for memory checks. */
size_t cc_analysis_fp_bytes(cc_keep const struct cc_footprint *fp);
/* cc_analysis_fp_bytes of a new, empty footprint (without making one). */
size_t cc_analysis_fp_empty_bytes(void);

/* Bytes of fp as cc_analysis_fp_pack writes them: 32 (origin, granularity, count, chunks,
 * 8 bytes each, host byte order) + 72 per chunk of 512 units (its key and bitmap), so
 * about 0.14 bytes per unit of the footprint's span, never more than 72 per address. */
size_t cc_analysis_fp_packed_bytes(cc_keep const struct cc_footprint *fp);
/* Writes fp's cc_analysis_fp_packed_bytes(fp) bytes to out. */
void cc_analysis_fp_pack(cc_keep const struct cc_footprint *fp, uint8_t *out);
/* Reads a footprint that cc_analysis_fp_pack wrote at the start of in (avail bytes): *out
 * the same set (origin, granularity and chunks as written), *used the bytes it took.
 * Returns 0, or -1 (*out NULL, nothing allocated) when in is truncated or inconsistent:
 * a count that is not the bits', a repeated chunk, a granularity that does not fit the
 * count, the first address missing. */
int cc_analysis_fp_unpack(const uint8_t *in, size_t avail, size_t *used,
                          cc_give struct cc_footprint **out);

#endif
