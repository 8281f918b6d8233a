/* coalcheck analysis, inside the folder only: the footprint of an instruction, the set of
 * distinct byte addresses its lanes accessed over all its executions (Algorithm 1's
 * AllAddr, without the duplicates that make the paper's vector grow with run length).
 *
 * A sparse bitmap: chunks of 512 consecutive addresses (a 64-byte bitmap each), found
 * through an open-addressing hash table keyed by address / 512. Memory is proportional to
 * the chunks touched, i.e. to the footprint, and does not grow when the same addresses are
 * accessed again (a loop, the next CTA of a repeating pattern). Dense footprints cost one
 * bit per address; sparse ones up to ~80 bytes per isolated address. */
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
/* Adds every address of from to into. */
void cc_analysis_fp_union(cc_keep struct cc_footprint *into, cc_keep const struct cc_footprint *from);
/* Largest difference between neighbouring distinct addresses in increasing order, in
 * bytes; 0 for fewer than two addresses. (Algorithm 1, lines 29-31.) */
uint64_t cc_analysis_fp_max_gap(cc_keep const struct cc_footprint *fp);
/* Smallest address; returns 0 (and leaves *min) when the footprint is empty, else 1. */
int cc_analysis_fp_min(cc_keep const struct cc_footprint *fp, uint64_t *min);
/* Distinct addresses held. */
uint64_t cc_analysis_fp_count(cc_keep const struct cc_footprint *fp);
/* Heap bytes the structure holds (chunks + table), for memory checks. */
size_t cc_analysis_fp_bytes(cc_keep const struct cc_footprint *fp);

#endif
