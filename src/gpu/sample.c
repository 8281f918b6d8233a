/* coalcheck gpu: launch sampling of the fast mode and its estimator (plain C, no CUDA).
 *
 * The fast mode (the default; COALCHECK_GPU_EXACT=1 / coalcheck --exact turns it off)
 * patches only sampled launches: the other launches of a kernel run unpatched, at native
 * speed (sanitizerUnpatchModule, inject.c). Launches are grouped into strata by their
 * geometry (function, grid, block): the i-th launch (from 0) of a stratum is sampled when
 * i < first or i % period == 0 (systematic sampling; deterministic, so two runs sample
 * the same launches).
 *
 * Estimator (per stratum k, per figure y = requests or sectors of one instruction, or
 * of the whole kernel; y_i of a measured launch i is read back right after it). The
 * first launches (the head) are all measured and enter as they are (a certainty
 * stratum: measured on the H100, counting them in the systematic sample's mean
 * overweighted the big early steps of a shrinking loop, Gram-Schmidt and LU, by about
 * 35%, outside the bound). The rest (the tail: N_k launches, n_k measured) is estimated
 * by the expansion estimator
 *     T_k = N_k * mean(y_i),
 * its variance under simple random sampling without replacement (a stated approximation
 * for the systematic sample)
 *     V_k = N_k^2 * (1 - n_k / N_k) * s_k^2 / n_k,   s_k^2 the sample variance,
 * T = head + sum_k T_k, V = sum_k V_k, and the 95% bound 1.96 * sqrt(V) (central limit theorem),
 * given relative to T. A stratum whose launches were all sampled contributes no
 * variance (exact); a tail with fewer than CC_GPU_SAMPLE_MIN_CLT measured launches of
 * more has no usable variance estimate, and a tail with none is extrapolated from the
 * head's mean: the bound is then unknown (NAN), never 0. Cochran, Sampling Techniques
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

int cc_gpu_stratum_next(struct cc_gpu_stratum *k, uint32_t first, uint32_t period, int *head)
{
  uint64_t index = k->launches++;
  *head = index < first;
  k->head += (uint64_t)*head;
  return k->all || cc_gpu_sample_pick(first, period, index);
}

static void part_init(struct cc_gpu_part *p, uint32_t n_slots)
{
  p->stats = cc_xmalloc((n_slots + 1) * sizeof *p->stats);
  p->req = cc_xcalloc(n_slots + 1, sizeof *p->req);
  p->sec = cc_xcalloc(n_slots + 1, sizeof *p->sec);
  for (uint32_t i = 0; i <= n_slots; i++)
    cc_gpu_stats_init(&p->stats[i]);
}

static void part_release(struct cc_gpu_part *p)
{
  free(p->stats);
  free(p->req);
  free(p->sec);
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
  part_init(&k->part[0], n_slots);
  part_init(&k->part[1], n_slots);
  return k;
}

void cc_gpu_stratum_add_launch(struct cc_gpu_stratum *k, const struct cc_gpu_pc_stats *launch,
                               uint32_t n_slots, int head)
{
  struct cc_gpu_part *p = &k->part[head ? 0 : 1];
  double req = 0, sec = 0;
  for (uint32_t i = 0; i <= n_slots; i++) {
    const struct cc_gpu_pc_stats *x = &launch[i];
    /* every measured launch adds a term to every slot's estimator, zero where it did not
     * execute the instruction: the sample mean runs over launches */
    cc_gpu_est_add(&p->req[i], (double)x->requests);
    cc_gpu_est_add(&p->sec[i], (double)x->sectors);
    if (x->requests == 0)
      continue;
    cc_gpu_stats_merge(&p->stats[i], x);
    req += (double)x->requests;
    sec += (double)x->sectors;
  }
  cc_gpu_est_add(&p->tot_req, req);
  cc_gpu_est_add(&p->tot_sec, sec);
}

/* A stratum's estimate of one figure's total and its variance: the head by expansion
 * over the head (exact when all its launches were measured), the tail by expansion of its
 * sample over the tail, or of the head's mean when no tail launch was measured (then no
 * variance estimate: NAN). h, t: the figure's sums in the head and in the tail. */
static void stratum_fig(const struct cc_gpu_stratum *k, const struct cc_gpu_est *h,
                        const struct cc_gpu_est *t, double *total, double *var)
{
  uint64_t tail = k->launches - k->head;
  *total = cc_gpu_est_total(h, k->head);
  *var = cc_gpu_est_var(h, k->head);
  if (tail == 0)
    return;
  if (t->n > 0) {
    *total += cc_gpu_est_total(t, tail);
    *var += cc_gpu_est_var(t, tail);
  } else {
    *total += cc_gpu_est_total(h, tail);
    *var = NAN;
  }
}

/* out += x (sums over n measured launches) scaled to `launches` launches. */
static void add_scaled(struct cc_gpu_pc_stats *out, const struct cc_gpu_pc_stats *x,
                       uint64_t n, uint64_t launches)
{
  if (n == 0 || launches == 0 || x->requests == 0)
    return;
  struct cc_gpu_pc_stats y = *x;
  if (launches != n)
    cc_gpu_stats_scale(&y, (double)launches / (double)n);
  cc_gpu_stats_merge(out, &y);
}

void cc_gpu_strata_estimate(const struct cc_gpu_strata *set, uint32_t n_slots,
                            struct cc_gpu_pc_stats *out, double *bound_req,
                            double *bound_sec, struct cc_gpu_sample_summary *sum)
{
  memset(sum, 0, sizeof *sum);
  double vr = 0, vs = 0, tr = 0, ts = 0, t, v;
  for (uint32_t i = 0; i <= n_slots; i++) {
    cc_gpu_stats_init(&out[i]);
    double vreq = 0, vsec = 0, treq = 0, tsec = 0;
    for (size_t j = 0; j < set->n; j++) {
      const struct cc_gpu_stratum *k = &set->k[j];
      const struct cc_gpu_part *h = &k->part[0], *tl = &k->part[1];
      uint64_t tail = k->launches - k->head;
      add_scaled(&out[i], &h->stats[i], h->req[i].n, k->head);
      if (tl->req[i].n > 0)
        add_scaled(&out[i], &tl->stats[i], tl->req[i].n, tail);
      else
        add_scaled(&out[i], &h->stats[i], h->req[i].n, tail);
      stratum_fig(k, &h->req[i], &tl->req[i], &t, &v);
      treq += t, vreq += v;
      stratum_fig(k, &h->sec[i], &tl->sec[i], &t, &v);
      tsec += t, vsec += v;
    }
    bound_req[i] = out[i].requests == 0 ? 0.0 : cc_gpu_bound95(treq, vreq);
    bound_sec[i] = out[i].requests == 0 ? 0.0 : cc_gpu_bound95(tsec, vsec);
  }
  for (size_t j = 0; j < set->n; j++) {
    const struct cc_gpu_stratum *k = &set->k[j];
    sum->launches += k->launches;
    sum->sampled += k->part[0].tot_req.n + k->part[1].tot_req.n;
    stratum_fig(k, &k->part[0].tot_req, &k->part[1].tot_req, &t, &v);
    tr += t, vr += v;
    stratum_fig(k, &k->part[0].tot_sec, &k->part[1].tot_sec, &t, &v);
    ts += t, vs += v;
  }
  sum->bound_req = cc_gpu_bound95(tr, vr);
  sum->bound_sec = cc_gpu_bound95(ts, vs);
}

void cc_gpu_strata_release(struct cc_gpu_strata *set)
{
  for (size_t i = 0; i < set->n; i++) {
    part_release(&set->k[i].part[0]);
    part_release(&set->k[i].part[1]);
  }
  free(set->k);
  memset(set, 0, sizeof *set);
}
