/* coalcheck analysis, inside the folder only: what analysis.c, finalize.c and merge.c
 * share. */
#ifndef CC_ANALYSIS_ANALYSIS_IMPL_H
#define CC_ANALYSIS_ANALYSIS_IMPL_H

#include "analysis/analysis.h"

/* Computes allStr, verdicts, suggestions and totals of k, sorts its instructions worst
 * first and rebuilds by_slot. Idempotent: frees earlier suggestions first. */
void cc_analysis_finalize_kernel(struct cc_kernel_stats *k);

/* Frees what k owns (not k itself). */
void cc_analysis_kernel_release(struct cc_kernel_stats *k);

#endif
