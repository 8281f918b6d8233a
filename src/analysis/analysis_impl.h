/* coalcheck analysis, inside the folder only: what analysis.c, finalize.c and merge.c
 * share. */
#ifndef CC_ANALYSIS_ANALYSIS_IMPL_H
#define CC_ANALYSIS_ANALYSIS_IMPL_H

#include "analysis/analysis.h"

struct cc_fp_writer; /* fpshare.h */

/* Frees the open kernel's shared footprints (an->fps, fpshare.h) and forgets them: at
 * the last partial's close (partial.c), or by cc_analysis_free when partials were never
 * closed. */
void cc_analysis_free_shared(struct cc_analysis *an);

/* Computes allStr, verdicts, suggestions and totals of k, sorts its instructions worst
 * first and rebuilds by_slot. Idempotent: frees earlier suggestions first. */
void cc_analysis_finalize_kernel(struct cc_kernel_stats *k);

/* Combines two lane strides (analysis.h): NONE is neutral, equal ones stay, others MIXED. */
uint64_t cc_analysis_lane_stride_combine(uint64_t a, uint64_t b);

/* Adds one warp record a to the figures of its instruction s (counts, Algorithm 1 with
 * groups of w lanes, lane stride, footprint, model m's costs): what the sink does per
 * record once the record is checked (slot in range, size > 0). The fast form sorts
 * without a library call, skips sorting lanes already in order, finds the lane stride
 * with one division and sets runs of footprint bits a word at a time. */
void cc_analysis_accumulate(struct cc_insn_stats *s, const struct cc_model *m, uint32_t w,
                            const struct cc_warp_access *a);
/* cc_analysis_accumulate with the footprint's addresses added to a shared footprint
 * through fw (the calling thread's writer of it) instead, those it does not take to s's
 * own footprint (fpshare.h): the parallel runs' partials (partial.c). */
void cc_analysis_accumulate_shared(struct cc_insn_stats *s, const struct cc_model *m,
                                   uint32_t w, const struct cc_warp_access *a,
                                   struct cc_fp_writer *fw);
/* The reference (general) form of cc_analysis_accumulate: the same figures, computed
 * lane by lane; for the tests that compare the two (tests/analysis/test_analysis_fast.c). */
void cc_analysis_accumulate_ref(struct cc_insn_stats *s, const struct cc_model *m, uint32_t w,
                                const struct cc_warp_access *a);
/* Initialises s for instruction info at slot (strings copied, empty footprint); free its
 * strings and footprint as cc_analysis_kernel_release does. For the tests. */
void cc_analysis_insn_init(struct cc_insn_stats *s, const struct cc_insn_info *info,
                           uint32_t slot);

/* Adds the record figures of s to d (same instruction): the rule of each field is
 * written in merge.c; associative and commutative, so shards and the partials of
 * partial.c merge in any order to the serial figures (stride_sum: while it stays below
 * 2^53 bytes, where doubles add integers exactly). Final results are not touched. */
void cc_analysis_insn_merge(struct cc_insn_stats *d, const struct cc_insn_stats *s);

/* The records the cache model gets for record a (feed_cache, analysis.c): one, or for a
 * local access wider than 4 bytes one a 32-bit word (cc_access_words: the interleaved
 * layout puts a lane's next word 128 bytes further), each of *size bytes (4, or a's own
 * size when one). The workers count the same records towards the model's switch
 * (partial.c). */
static inline uint32_t cc_analysis_cache_records(const struct cc_warp_access *a,
                                                 uint32_t *size)
{
  uint32_t words = cc_access_words(a->space, a->size_bytes);
  *size = words > 1 ? 4 : a->size_bytes;
  return words;
}

/* Adds the record figures of by_slot[0..n_insns) (the open kernel's instructions, by
 * slot) to an's open kernel, as a partial's close does (cc_analysis_insn_merge; the
 * smaller footprint of each pair is unioned into the larger, and the two may trade
 * places: by_slot keeps the other, for the caller to free), counting the footprints'
 * growth in mem_used: CC_ERR_LIMIT past the limit (the figures are merged all the same). */
int cc_analysis_merge_open(struct cc_analysis *an, struct cc_insn_stats *by_slot,
                           struct cc_err *err);

/* The shared wavefronts of record a under m (0 for global and local): what the cache
 * model is given with a shared record when the figures come from partials. */
uint32_t cc_analysis_record_wavefronts(const struct cc_model *m, const struct cc_warp_access *a);

/* Checks record a against kernel k (slot in range, size 1..CC_ACCESS_MAX_BYTES):
 * CC_ERR_INPUT as the sink's access documents. */
int cc_analysis_check_record(const struct cc_kernel_stats *k, const struct cc_warp_access *a,
                             struct cc_err *err);

/* CC_ERR_LIMIT (the sink's message) when an's open kernel's results, after adding
 * grown bytes to mem_used, pass the limit; CC_OK otherwise. */
int cc_analysis_add_mem(struct cc_analysis *an, size_t grown, struct cc_err *err);

/* Frees the strings of a (owned copies) and zeroes it: CC_ADDR_NONE. */
void cc_analysis_addr_release(struct cc_addr_form *a);

/* Frees what k owns (not k itself). */
void cc_analysis_kernel_release(struct cc_kernel_stats *k);

#endif
