/* coalcheck gpu: launch sampling of the fast mode and its estimator (sample.c; the
 * estimator and its bound are stated in sample.c's comment and docs/json-schema.md). */
#ifndef CC_GPU_SAMPLE_H
#define CC_GPU_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu.h"

/* Defaults of the fast mode: the first CC_GPU_SAMPLE_FIRST launches of each geometry,
 * then 1 in CC_GPU_SAMPLE_PERIOD (COALCHECK_GPU_LAUNCH_PERIOD overrides the period). */
#define CC_GPU_SAMPLE_FIRST 4u
#define CC_GPU_SAMPLE_PERIOD 64u
/* geometries kept apart per function; the last one takes every further geometry and
 * samples all of its launches */
#define CC_GPU_MAX_STRATA 16u

/* 1 if the launch with this index (from 0) in its stratum is sampled: index < first, or
 * index % period == 0 (period 0 or 1: every launch). */
int cc_gpu_sample_pick(uint32_t first, uint32_t period, uint64_t index);

/* Running sums of one figure over the sampled launches of a stratum. */
struct cc_gpu_est {
  uint64_t n;             /* sampled launches */
  double sum, sumsq;      /* of the figure per launch */
};

/* Adds one sampled launch's figure y (requests or sectors of that launch) to e. */
void cc_gpu_est_add(struct cc_gpu_est *e, double y);

/* Expansion estimate of the total over `launches` launches: launches * mean; 0 when
 * nothing was sampled. */
double cc_gpu_est_total(const struct cc_gpu_est *e, uint64_t launches);

/* Fewest sampled launches of a stratum that are not all of its launches for which the
 * central limit theorem's bound is given (fewer: unknown). Measured: 2 equal samples of
 * 4 launches gave variance 0 and a 33% error (bench/results/gpu-overhead-*.md). */
#define CC_GPU_SAMPLE_MIN_CLT 5u

/* The inline modes' 95% quantile for an estimate from m sampled units (launches, or
 * non-empty CTA shards): the normal 1.96 from CC_GPU_SAMPLE_NORMAL_MIN units on, below
 * that Chebyshev's sqrt(1 / 0.05) = 4.4721, which holds for any distribution with the
 * variance estimated. Measured on the H100 (bench/results/gpu-overhead-2026-11-27c.md):
 * gramschmidt's gs_update, 12 sampled launches of skewed work, erred by 59-72% against
 * a normal-theory bound of 42%; gemv_rows, 12 counted CTAs, 1.3% against 1.0%. */
#define CC_GPU_SAMPLE_NORMAL_MIN 30u
static inline double cc_gpu_quantile95(double m)
{
  return m >= (double)CC_GPU_SAMPLE_NORMAL_MIN ? 1.96 : 4.47213595499958;
}

/* Estimated variance of that total, N^2 (1 - n/N) s^2 / n: 0 when n >= N (all
 * measured), NAN when n < CC_GPU_SAMPLE_MIN_CLT < N (too few for the bound). */
double cc_gpu_est_var(const struct cc_gpu_est *e, uint64_t launches);

/* Relative 95% bound 1.96 sqrt(var) / total: 0 for var 0, NAN for var NAN or total 0
 * with var > 0. */
double cc_gpu_bound95(double total, double var);

/* acc += x: counts summed, min/max/ways/flags combined. */
void cc_gpu_stats_merge(struct cc_gpu_pc_stats *acc, cc_keep const struct cc_gpu_pc_stats *x);

/* Multiplies the counts of *s (executions, lanes, sectors, ideal, strides' sum) by w,
 * rounded to the nearest integer, and rederives requests (executions x 32-bit words for
 * wide local accesses), bytes (lanes x size) and the strides' count (lanes - executions);
 * then keeps what any run satisfies, which coalcheck's importer checks: 1..32 lanes per
 * execution, ideal <= sectors, at least one sector (wavefront) per request, the ideal
 * sectors holding the bytes used. min, max, ways and flags stay. */
void cc_gpu_stats_scale(struct cc_gpu_pc_stats *s, double w);

/* The measured launches of one part of a stratum (sample.c: the head, always measured,
 * or the tail, sampled). */
struct cc_gpu_part {
  struct cc_gpu_pc_stats *stats; /* n_slots + 1: sums over the measured launches */
  struct cc_gpu_est *req, *sec;  /* n_slots + 1: per-launch requests, sectors */
  struct cc_gpu_est tot_req, tot_sec; /* the kernel's per-launch totals */
};

/* One geometry of one function: its launches and what its sampled launches measured.
 * The first `first` launches (the head) are all measured and counted as they are; the
 * estimator extrapolates only the tail's sample to the tail. */
struct cc_gpu_stratum {
  uint32_t grid[3], block[3];
  uint64_t launches;      /* N: every launch of this geometry (sampled or not) */
  uint64_t head;          /* of those, the head's (launch index < first) */
  int all;                /* the overflow stratum: every launch sampled */
  struct cc_gpu_part part[2]; /* [0] head, [1] tail */
};

struct cc_gpu_strata {
  size_t n, cap;
  struct cc_gpu_stratum *k;
};

/* Counts one more launch of stratum k; returns 1 if it is to be measured (the head's,
 * the sample's of the tail, every launch of the overflow stratum) and sets *head to
 * whether it belongs to the head. */
int cc_gpu_stratum_next(struct cc_gpu_stratum *k, uint32_t first, uint32_t period, int *head);

/* The stratum of this geometry, made (with n_slots + 1 empty slots) at its first sight;
 * past CC_GPU_MAX_STRATA the last one. Never NULL. */
struct cc_gpu_stratum *cc_gpu_strata_get(struct cc_gpu_strata *set, uint32_t n_slots,
                                         const uint32_t grid[3], const uint32_t block[3]);

/* Adds one measured launch's per-slot figures (n_slots + 1 entries, what this launch
 * alone measured) to its stratum's head (head 1) or tail (head 0). */
void cc_gpu_stratum_add_launch(struct cc_gpu_stratum *k,
                               cc_keep const struct cc_gpu_pc_stats *launch, uint32_t n_slots,
                               int head);

struct cc_gpu_sample_summary {
  uint64_t launches, sampled;
  double bound_req, bound_sec; /* relative 95% bounds of the kernel's totals (NAN: unknown) */
};

/* The estimates: out[i] (n_slots + 1) the extrapolated statistics of slot i (counts
 * scaled by N_k / n_k per stratum and summed), bound_req[i] / bound_sec[i] their
 * relative 95% bounds (0: exact; NAN: unknown), *sum the kernel's totals. */
void cc_gpu_strata_estimate(cc_keep const struct cc_gpu_strata *set, uint32_t n_slots,
                            struct cc_gpu_pc_stats *out, double *bound_req,
                            double *bound_sec, struct cc_gpu_sample_summary *sum);

/* Frees the strata's storage and zeroes *set (the struct itself stays the caller's). */
void cc_gpu_strata_release(struct cc_gpu_strata *set);

#endif
