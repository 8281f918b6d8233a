/* coalcheck analysis, inside the folder only: what analysis.c, finalize.c and merge.c
 * share. */
#ifndef CC_ANALYSIS_ANALYSIS_IMPL_H
#define CC_ANALYSIS_ANALYSIS_IMPL_H

#include "analysis/analysis.h"

/* Computes allStr, verdicts, suggestions and totals of k, sorts its instructions worst
 * first and rebuilds by_slot. Idempotent: frees earlier suggestions first. */
void cc_analysis_finalize_kernel(struct cc_kernel_stats *k);

/* Combines two lane strides (analysis.h): NONE is neutral, equal ones stay, others MIXED. */
uint64_t cc_analysis_lane_stride_combine(uint64_t a, uint64_t b);

/* Frees what k owns (not k itself). */
void cc_analysis_kernel_release(struct cc_kernel_stats *k);

#endif
