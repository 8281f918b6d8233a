/* coalcheck gpu: launch sampling of the fast mode and its estimator (plain C, no CUDA).
 *
 * The fast mode (the default; COALCHECK_GPU_EXACT=1 / coalcheck --exact turns it off)
 * patches only sampled launches: the other launches of a kernel run unpatched, at native
 * speed (sanitizerUnpatchModule, inject.c). Launches are grouped into strata by their
 * geometry (function, grid, block): the i-th launch (from 0) of a stratum is sampled when
 * i < first or i % period == 0 (systematic sampling; deterministic, so two runs sample
 * the same launches).
 *
 * Estimator (per stratum k with N_k launches of which n_k sampled, per figure y =
 * requests or sectors of one instruction, or of the whole kernel; y_i of a sampled
 * launch i is read back right after it): the expansion estimator of the total
 *     T_k = N_k * mean(y_i),
 * its variance under simple random sampling without replacement (a stated approximation
 * for the systematic sample)
 *     V_k = N_k^2 * (1 - n_k / N_k) * s_k^2 / n_k,   s_k^2 the sample variance,
 * T = sum_k T_k, V = sum_k V_k, and the 95% bound 1.96 * sqrt(V) (central limit theorem),
 * given relative to T. A stratum whose launches were all sampled contributes no
 * variance (exact); one with fewer than CC_GPU_SAMPLE_MIN_CLT sampled launches of more
 * has no usable variance estimate: the bound is then unknown (NAN), never 0. Cochran, Sampling Techniques
 * (3rd ed.), eq. 2.8 and 5.6 (stratified). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/sample.h"
#include "util/mem.h"

int cc_gpu_sample_pick(uint32_t first, uint32_t period, uint64_t index)
{
  if (index < first)
    return 1;
  return period <= 1 || index % period == 0;
}

void cc_gpu_est_add(struct cc_gpu_est *e, double y)
{
  e->n++;
  e->sum += y;
  e->sumsq += y * y;
}

double cc_gpu_est_total(const struct cc_gpu_est *e, uint64_t launches)
{
  return e->n == 0 ? 0.0 : (double)launches * e->sum / (double)e->n;
}

double cc_gpu_est_var(const struct cc_gpu_est *e, uint64_t launches)
{
  if (e->n >= launches)
    return 0.0; /* every launch measured */
  if (e->n < CC_GPU_SAMPLE_MIN_CLT)
    return NAN;
  double n = (double)e->n, N = (double)launches, mean = e->sum / n;
  double s2 = (e->sumsq - n * mean * mean) / (n - 1.0);
  if (s2 < 0.0)
    s2 = 0.0; /* rounding of equal values */
  return N * N * (1.0 - n / N) * s2 / n;
}

double cc_gpu_bound95(double total, double var)
{
  if (isnan(var))
    return NAN;
  if (var == 0.0)
    return 0.0;
  return total > 0.0 ? 1.96 * sqrt(var) / total : NAN;
}

void cc_gpu_stats_merge(struct cc_gpu_pc_stats *acc, const struct cc_gpu_pc_stats *x)
{
  acc->requests += x->requests;
  acc->lanes += x->lanes;
  acc->sectors += x->sectors;
  acc->ideal += x->ideal;
  acc->bytes += x->bytes;
  acc->stride_count += x->stride_count;
  acc->stride_sum += x->stride_sum;
  acc->stride_min = x->stride_min < acc->stride_min ? x->stride_min : acc->stride_min;
  acc->stride_max = x->stride_max > acc->stride_max ? x->stride_max : acc->stride_max;
  acc->ways = x->ways > acc->ways ? x->ways : acc->ways;
  acc->flags |= x->flags;
}

static uint64_t scaled(uint64_t v, double w)
{
  return (uint64_t)llround((double)v * w);
}

static uint64_t at_least(uint64_t v, uint64_t lo)
{
  return v < lo ? lo : v;
}

void cc_gpu_stats_scale(struct cc_gpu_pc_stats *s, double w)
{
  enum cc_space sp = cc_gpu_stats_space(s);
  uint32_t size = cc_gpu_stats_size(s);
  uint64_t words = cc_access_words(sp, size);
  uint64_t execs = scaled(s->requests / words, w);
  if (s->requests > 0 && execs == 0)
    execs = 1;
  /* each count scaled on its own, then the relations the importer checks kept true
   * (src/analysis/import.c): 1 .. 32 lanes per execution, bytes = lanes x size, strides
   * lanes - executions, ideal <= sectors, the ideal sectors holding the bytes used */
  uint64_t lanes = at_least(scaled(s->lanes, w), execs);
  if (lanes > 32 * execs)
    lanes = 32 * execs;
  s->requests = execs * words;
  s->lanes = lanes;
  s->bytes = lanes * size;
  s->stride_count = lanes - execs;
  s->stride_sum = scaled(s->stride_sum, w);
  uint64_t ideal = at_least(scaled(s->ideal, w), s->requests);
  if (sp != CC_SPACE_SHARED) {
    uint64_t used = 0;
    if (sp == CC_SPACE_LOCAL || s->stride_count == 0 || s->stride_min >= size)
      used = s->bytes;
    else if (s->stride_max == 0)
      used = (uint64_t)size * execs;
    ideal = at_least(ideal, (used + 31) / 32);
  }
  s->ideal = ideal;
  s->sectors = at_least(scaled(s->sectors, w), ideal);
}

struct cc_gpu_stratum *cc_gpu_strata_get(struct cc_gpu_strata *set, uint32_t n_slots,
                                         const uint32_t grid[3], const uint32_t block[3])
{
  for (size_t i = 0; i < set->n; i++) {
    struct cc_gpu_stratum *k = &set->k[i];
    if (memcmp(k->grid, grid, sizeof k->grid) == 0 &&
        memcmp(k->block, block, sizeof k->block) == 0)
      return k;
  }
  /* past the cap, every new geometry shares the last stratum, which then samples every
   * launch (exact: no memory per geometry for kernels whose grid changes each launch) */
  if (set->n >= CC_GPU_MAX_STRATA)
    return &set->k[set->n - 1];
  set->k = cc_xgrow(set->k, &set->cap, set->n + 1, sizeof *set->k);
  struct cc_gpu_stratum *k = &set->k[set->n++];
  memset(k, 0, sizeof *k);
  memcpy(k->grid, grid, sizeof k->grid);
  memcpy(k->block, block, sizeof k->block);
  k->all = set->n == CC_GPU_MAX_STRATA;
  k->stats = cc_xmalloc((n_slots + 1) * sizeof *k->stats);
  k->req = cc_xcalloc(n_slots + 1, sizeof *k->req);
  k->sec = cc_xcalloc(n_slots + 1, sizeof *k->sec);
  for (uint32_t i = 0; i <= n_slots; i++)
    cc_gpu_stats_init(&k->stats[i]);
  return k;
}

void cc_gpu_stratum_add_launch(struct cc_gpu_stratum *k, const struct cc_gpu_pc_stats *launch,
                               uint32_t n_slots)
{
  double req = 0, sec = 0;
  for (uint32_t i = 0; i <= n_slots; i++) {
    const struct cc_gpu_pc_stats *x = &launch[i];
    /* every sampled launch adds a term to every slot's estimator, zero where it did not
     * execute the instruction: the sample mean runs over launches */
    cc_gpu_est_add(&k->req[i], (double)x->requests);
    cc_gpu_est_add(&k->sec[i], (double)x->sectors);
    if (x->requests == 0)
      continue;
    cc_gpu_stats_merge(&k->stats[i], x);
    req += (double)x->requests;
    sec += (double)x->sectors;
  }
  cc_gpu_est_add(&k->tot_req, req);
  cc_gpu_est_add(&k->tot_sec, sec);
}

void cc_gpu_strata_estimate(const struct cc_gpu_strata *set, uint32_t n_slots,
                            struct cc_gpu_pc_stats *out, double *bound_req,
                            double *bound_sec, struct cc_gpu_sample_summary *sum)
{
  memset(sum, 0, sizeof *sum);
  double vr = 0, vs = 0, tr = 0, ts = 0;
  for (uint32_t i = 0; i <= n_slots; i++) {
    cc_gpu_stats_init(&out[i]);
    double vreq = 0, vsec = 0, treq = 0, tsec = 0;
    for (size_t j = 0; j < set->n; j++) {
      const struct cc_gpu_stratum *k = &set->k[j];
      if (k->req[i].n == 0 || k->stats[i].requests == 0)
        continue;
      struct cc_gpu_pc_stats x = k->stats[i];
      cc_gpu_stats_scale(&x, (double)k->launches / (double)k->req[i].n);
      cc_gpu_stats_merge(&out[i], &x);
      treq += cc_gpu_est_total(&k->req[i], k->launches);
      tsec += cc_gpu_est_total(&k->sec[i], k->launches);
      vreq += cc_gpu_est_var(&k->req[i], k->launches);
      vsec += cc_gpu_est_var(&k->sec[i], k->launches);
    }
    bound_req[i] = cc_gpu_bound95(treq, vreq);
    bound_sec[i] = cc_gpu_bound95(tsec, vsec);
  }
  for (size_t j = 0; j < set->n; j++) {
    const struct cc_gpu_stratum *k = &set->k[j];
    sum->launches += k->launches;
    sum->sampled += k->tot_req.n;
    tr += cc_gpu_est_total(&k->tot_req, k->launches);
    ts += cc_gpu_est_total(&k->tot_sec, k->launches);
    vr += cc_gpu_est_var(&k->tot_req, k->launches);
    vs += cc_gpu_est_var(&k->tot_sec, k->launches);
  }
  sum->bound_req = cc_gpu_bound95(tr, vr);
  sum->bound_sec = cc_gpu_bound95(ts, vs);
}

void cc_gpu_strata_release(struct cc_gpu_strata *set)
{
  for (size_t i = 0; i < set->n; i++) {
    free(set->k[i].stats);
    free(set->k[i].req);
    free(set->k[i].sec);
  }
  free(set->k);
  memset(set, 0, sizeof *set);
}
