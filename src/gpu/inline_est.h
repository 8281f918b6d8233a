/* coalcheck GPU backend: the launch-sampling estimator of application mode's inline
 * counters (issue 14; inline_app.c). Pure arithmetic, unit-tested without a GPU.
 *
 * A kernel's launches are split into the head (its first launches, all measured) and the
 * tail (1 in P measured). Each measured launch i has the figures y_i of its sites summed
 * over the counted CTAs, and c_i CTAs of which s_i were counted (CTA sampling; s_i = c_i
 * when every CTA counted); its estimate is Y_i = y_i c_i / s_i. The total:
 *
 *   Y = sum_head Y_i + R X,   R = sum_tail Y_i / sum_tail c_i   (measured tail launches)
 *
 * with X the CTAs of every tail launch: the ratio estimator with the CTAs as auxiliary
 * variable (Cochran, Sampling Techniques, 3rd ed., sec. 6.2), so that launches of other
 * grid sizes weigh by their size. Its variance (Cochran eq. 6.9, N tail launches, n
 * measured, f = n / N): V = N^2 (1 - f) / n * sum (Y_i - R c_i)^2 / (n - 1); the bound
 * is q sqrt(V) / Y, relative (q: cc_gpu_quantile95, 1.96 from 30 launches, else
 * Chebyshev's 4.47). The Y_i already carry the CTA sampling's noise, so
 * with small f this one-stage formula covers both stages (Cochran sec. 11.8, the
 * ultimate-cluster approximation); the head's own CTA sampling noise is left out.
 * Stated approximations: the tail is measured systematically (every P-th launch), not at
 * random; the bound is unknown (NAN) with fewer than CC_GPU_SAMPLE_MIN_CLT measured tail
 * launches, and 0 when no launch went unmeasured. */
#ifndef CC_GPU_INLINE_EST_H
#define CC_GPU_INLINE_EST_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/instrument.h"

/* Figures of a site kept per launch: enum ptx_inst_field (src/ptx/instrument.h); only
 * the additive ones (requests, units, lanes, ideal, span) are estimated, the maxima
 * (ways, strides) are left 0 for the caller. */
#define CC_INL_NADD 8

/* One measured launch of a kernel. */
struct cc_inl_fig {
  uint64_t ctas, sampled; /* c_i, s_i (s_i >= 1) */
  int head;               /* 1: in the head */
  double *v;              /* y_i: nsites x CC_INL_NADD, site-major */
};

/* est[nsites x CC_INL_NADD] = Y per site and field over the n measured launches figs,
 * the tail having `tail_launches` launches of `tail_ctas` CTAs in all;
 * bound_req / bound_units [nsites + 1]: the relative 95% bounds of requests and units
 * per site, and at index nsites of the kernel's totals (all sites). */
void cc_inl_estimate(const struct cc_inl_fig *figs, size_t n, uint32_t nsites,
                     uint64_t tail_launches, uint64_t tail_ctas, double *est,
                     double *bound_req, double *bound_units);

#endif
