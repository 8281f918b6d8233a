/* coalcheck GPU backend: the launch-sampling estimator (inline_est.h). */
#include "gpu/inline_est.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/sample.h"
#include "util/mem.h"

_Static_assert(CC_INL_NADD == PTX_INST_FIELDS, "a launch keeps every field of a site");

/* Y_i of field f at site s of launch fig (site nsites: the sum over all sites) */
static double launch_est(const struct cc_inl_fig *fig, uint32_t nsites, uint32_t s, int f)
{
  double y = 0.0;
  for (uint32_t k = s == nsites ? 0 : s; k < (s == nsites ? nsites : s + 1); k++)
    y += fig->v[(size_t)k * CC_INL_NADD + f];
  return y * (double)fig->ctas / (double)fig->sampled;
}

/* The relative 95% bound of field f at site s (see the header); head_and_tail: Y. */
static double bound(const struct cc_inl_fig *figs, size_t n, uint32_t nsites, uint32_t s,
                    int f, uint64_t tail_launches, double total)
{
  double sy = 0.0, sx = 0.0, ss = 0.0, m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (!figs[i].head) {
      sy += launch_est(&figs[i], nsites, s, f);
      sx += (double)figs[i].ctas;
      m += 1.0;
    }
  if (m >= (double)tail_launches)
    return 0.0; /* every tail launch measured */
  if (m < CC_GPU_SAMPLE_MIN_CLT)
    return NAN;
  double r = sy / sx, big_n = (double)tail_launches;
  for (size_t i = 0; i < n; i++)
    if (!figs[i].head) {
      double e = launch_est(&figs[i], nsites, s, f) - r * (double)figs[i].ctas;
      ss += e * e;
    }
  if (ss == 0.0)
    return 0.0;
  if (total == 0.0)
    return NAN;
  double v = big_n * big_n * (1.0 - m / big_n) / m * ss / (m - 1.0);
  return cc_gpu_quantile95(m) * sqrt(v) / total;
}

void cc_inl_estimate(const struct cc_inl_fig *figs, size_t n, uint32_t nsites,
                     uint64_t tail_launches, uint64_t tail_ctas, double *est,
                     double *bound_req, double *bound_units)
{
  double sx = 0.0;
  memset(est, 0, (size_t)nsites * CC_INL_NADD * sizeof *est);
  for (size_t i = 0; i < n; i++)
    sx += figs[i].head ? 0.0 : (double)figs[i].ctas;
  for (uint32_t s = 0; s < nsites; s++)
    for (int f = 0; f < CC_INL_NADD; f++) {
      if (f == PTX_INST_F_WAYS || f == PTX_INST_F_STRMIN_INV || f == PTX_INST_F_STRMAX)
        continue; /* maxima: the caller's */
      double head = 0.0, tail = 0.0;
      for (size_t i = 0; i < n; i++) {
        double y = launch_est(&figs[i], nsites, s, f);
        if (figs[i].head) head += y;
        else tail += y;
      }
      est[(size_t)s * CC_INL_NADD + f] = head + (sx > 0.0 ? tail * (double)tail_ctas / sx : 0.0);
    }
  for (uint32_t s = 0; s <= nsites; s++) {
    double treq = 0.0, tun = 0.0;
    for (uint32_t k = s == nsites ? 0 : s; k < (s == nsites ? nsites : s + 1); k++) {
      treq += est[(size_t)k * CC_INL_NADD + PTX_INST_F_REQUESTS];
      tun += est[(size_t)k * CC_INL_NADD + PTX_INST_F_UNITS];
    }
    bound_req[s] = bound(figs, n, nsites, s, PTX_INST_F_REQUESTS, tail_launches, treq);
    bound_units[s] = bound(figs, n, nsites, s, PTX_INST_F_UNITS, tail_launches, tun);
  }
}
