/* coalcheck analysis: one access stream analysed under several memory models at once.
 *
 * For `--arch cc1.0,cc1.2,sm_90`: one struct cc_analysis per model, all fed the same
 * stream through one fan-out sink (access/trace.h's cc_access_tee), so that the run (or
 * the trace replay) happens once and report/compare.h can print the models side by side
 * (Rosen, EuroVis 2013, 6.2.2: one trace, transactions simulated per architecture). */
#ifndef CC_ANALYSIS_MULTI_H
#define CC_ANALYSIS_MULTI_H

#include <stddef.h>

#include "access/access.h"
#include "analysis/analysis.h"
#include "model/model.h"
#include "util/err.h"

struct cc_analysis_multi; /* opaque: the models, their analyses and the fan-out */

/* Makes one model (cc_model_get_list: comma-separated names, in order, all with opts,
 * which may be NULL) and one empty analysis per name. Errors: those of cc_model_get_list
 * (CC_ERR_USAGE: empty list or name, unknown or repeated architecture, bad option); *out
 * is NULL then. */
int cc_analysis_multi_new(const char *arch_list, const struct cc_model_opts *opts,
                          cc_give struct cc_analysis_multi **out, struct cc_err *err);

/* Attaches a cache model (cache/cache.h) to every analysis of mu: the device
 * cc_cache_device_get gives for its architecture and spec ("h200,l1=128K", "off", NULL:
 * the architecture's default device) with the calibration file (NULL: none); l1_cache
 * (model.h's enum cc_model_l1, the --l1-cache option) turns the L1 caching of global
 * loads off (-1) or on (1) on every architecture, as -dlcm=cg / -dlcm=ca do. With several
 * architectures, a spec naming a device applies to the analyses of that device's
 * architecture and the others get their default device; it is an error when none is of
 * that architecture. Architectures without a cache model (cc1.x) and "off" get none.
 * Errors: those of cc_cache_device_get (CC_ERR_USAGE, CC_ERR_INPUT); mu is unchanged
 * then. */
int cc_analysis_multi_set_cache(struct cc_analysis_multi *mu, const char *spec,
                                const char *calibration, int l1_cache, struct cc_err *err);

/* Makes the cache model of every analysis of mu replay on `jobs` threads from the next
 * kernel on (cache.h cc_cache_set_jobs: the figures are the same for every count; 0
 * means 1); analyses without a cache model are left as they are. */
void cc_analysis_multi_cache_jobs(struct cc_analysis_multi *mu, uint32_t jobs);

/* Frees mu, its analyses and models; NULL is allowed. */
void cc_analysis_multi_free(cc_take struct cc_analysis_multi *mu);

/* The sink feeding every analysis of mu, in list order (ctx points into mu: valid while mu
 * lives). A callback's first failure stops the fan-out and is returned (the analyses'
 * errors: analysis.h). */
struct cc_access_sink cc_analysis_multi_sink(cc_keep struct cc_analysis_multi *mu);

/* The order-free side of every analysis of mu (analysis.h, cc_analysis_partials): one
 * partial of each analysis per thread, in list order. From now on mu's sink only checks
 * records and feeds the cache models. Returns whether that sink still needs the records
 * in order: 1 when some analysis has a cache model, 0 when it needs none (then the
 * producer may skip the ordered stream for the analyses). ctx points into mu. */
int cc_analysis_multi_partials(cc_keep struct cc_analysis_multi *mu,
                               struct cc_access_partials *out);

/* Shares bytes of memory (0: CC_ANALYSIS_MEM_DEFAULT) evenly among mu's analyses: each
 * gets bytes / count as its mem_limit (analysis.h), at least 1 MiB. */
void cc_analysis_multi_set_mem_limit(cc_keep struct cc_analysis_multi *mu, size_t bytes);

/* cc_analysis_pack of the open kernel of every analysis of mu, in list order. */
void cc_analysis_multi_pack(cc_keep const struct cc_analysis_multi *mu, cc_give uint8_t **buf,
                            size_t *len);
/* cc_analysis_unpack_merge into every analysis of mu (a message of the same --arch list). */
int cc_analysis_multi_unpack_merge(cc_keep struct cc_analysis_multi *mu, const uint8_t *msg,
                                   size_t len, struct cc_err *err);
/* Whether some analysis of mu has a cache model (its figures need the records in order). */
int cc_analysis_multi_cached(cc_keep const struct cc_analysis_multi *mu);

/* Number of models (>= 1). */
size_t cc_analysis_multi_count(const struct cc_analysis_multi *mu);

/* The analyses, in list order, as report/compare.h takes them (borrowed from mu). */
const struct cc_analysis *const *cc_analysis_multi_results(const struct cc_analysis_multi *mu);

#endif
