/* Several analyses of one stream: see multi.h. */
#include "analysis/multi.h"

#include <stdlib.h>

#include "access/trace.h"
#include "util/mem.h"

struct cc_analysis_multi {
  size_t n;
  struct cc_model **models;      /* owned, n */
  struct cc_analysis **ans;      /* owned, n; analysis i uses models[i] */
  struct cc_access_sink *sinks;  /* n: the analyses' sinks */
  struct cc_access_tee tee;      /* fan-out over sinks */
  struct cc_access_partials *parts; /* n, once cc_analysis_multi_partials was called */
};

int cc_analysis_multi_new(const char *arch_list, const struct cc_model_opts *opts,
                          struct cc_analysis_multi **out, struct cc_err *err)
{
  struct cc_model **models;
  size_t n;
  int rc;
  *out = NULL;
  if ((rc = cc_model_get_list(arch_list, opts, &models, &n, err)) != CC_OK)
    return rc;
  struct cc_analysis_multi *mu = cc_xcalloc(1, sizeof *mu);
  mu->n = n;
  mu->models = models;
  mu->ans = cc_xcalloc(n, sizeof *mu->ans);
  mu->sinks = cc_xcalloc(n, sizeof *mu->sinks);
  for (size_t i = 0; i < n; i++) {
    mu->ans[i] = cc_analysis_new(models[i]);
    mu->sinks[i] = cc_analysis_sink(mu->ans[i]);
  }
  mu->tee = (struct cc_access_tee){ .sinks = mu->sinks, .n = n };
  *out = mu;
  return CC_OK;
}

int cc_analysis_multi_set_cache(struct cc_analysis_multi *mu, const char *spec,
                                const char *calibration, int l1_cache, struct cc_err *err)
{
  struct cc_cache_device *devs = cc_xcalloc(mu->n, sizeof *devs);
  int *on = cc_xcalloc(mu->n, sizeof *on);
  struct cc_err first = {0};
  size_t matched = 0;
  int rc = CC_OK;
  for (size_t i = 0; i < mu->n && rc == CC_OK; i++) {
    const char *arch = cc_model_name(mu->models[i]);
    struct cc_err e = {0};
    if (cc_cache_device_get(arch, spec, calibration, &devs[i], &on[i], &e) == CC_OK) {
      matched++;
      continue;
    }
    if (mu->n == 1 || e.status != CC_ERR_USAGE || !spec) { /* not an arch mismatch */
      rc = cc_err_set(err, e.status, "%s", e.msg);
      break;
    }
    if (!first.status)
      first = e;
    rc = cc_cache_device_get(arch, NULL, calibration, &devs[i], &on[i], err);
  }
  if (rc == CC_OK && matched == 0 && first.status)
    rc = cc_err_set(err, first.status, "%s", first.msg);
  for (size_t i = 0; i < mu->n && rc == CC_OK; i++) {
    if (!on[i])
      continue;
    if (l1_cache == CC_MODEL_L1_OFF)
      devs[i].l1_global_loads = 0;
    else if (l1_cache == CC_MODEL_L1_ON)
      devs[i].l1_global_loads = 1;
    cc_analysis_set_cache(mu->ans[i], cc_cache_new(&devs[i]));
  }
  free(devs);
  free(on);
  return rc;
}

void cc_analysis_multi_cache_jobs(struct cc_analysis_multi *mu, uint32_t jobs)
{
  for (size_t i = 0; i < mu->n; i++)
    if (mu->ans[i]->cache)
      cc_cache_set_jobs(mu->ans[i]->cache, jobs);
}

void cc_analysis_multi_free(struct cc_analysis_multi *mu)
{
  if (!mu)
    return;
  for (size_t i = 0; i < mu->n; i++)
    cc_analysis_free(mu->ans[i]); /* before the models they borrow */
  free(mu->ans);
  free(mu->sinks);
  free(mu->parts);
  cc_model_free_list(mu->models, mu->n);
  free(mu);
}

struct cc_access_sink cc_analysis_multi_sink(struct cc_analysis_multi *mu)
{
  return cc_access_tee(&mu->tee);
}

/* One thread's partials of every analysis, in list order. */
struct multi_part {
  const struct cc_analysis_multi *mu;
  void **parts; /* mu->n */
};

static void *multi_open(void *ctx)
{
  struct cc_analysis_multi *mu = ctx;
  struct multi_part *mp = cc_xcalloc(1, sizeof *mp);
  mp->mu = mu;
  mp->parts = cc_xcalloc(mu->n, sizeof *mp->parts);
  for (size_t i = 0; i < mu->n; i++)
    mp->parts[i] = mu->parts[i].open(mu->parts[i].ctx);
  return mp;
}

static int multi_access(void *part, const struct cc_warp_access *a, struct cc_err *err)
{
  struct multi_part *mp = part;
  for (size_t i = 0; i < mp->mu->n; i++) {
    int rc = mp->mu->parts[i].access(mp->parts[i], a, err);
    if (rc != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* The analysis whose partial decides what the ordered sides need of a record (mu->n:
 * none, every record goes on whole): the one with a cache model (the others' ordered
 * sides take nothing of a record, cache.h cc_cache_drop); with several, each would cut
 * the record to its own sampled lines: every one gets it whole, and no partial counts
 * it. */
static size_t multi_with(const struct cc_analysis_multi *mu)
{
  size_t with = mu->n;
  for (size_t i = 0; i < mu->n; i++) {
    if (!mu->ans[i]->cache)
      continue;
    if (with < mu->n)
      return mu->n;
    with = i;
  }
  return with < mu->n && mu->parts[with].to_ordered ? with : mu->n;
}

/* What the analyses' ordered sides need of the record their partials were just given
 * (access.h, to_ordered): multi_with's decision. */
static uint32_t multi_to_ordered(void *part, const struct cc_warp_access *a,
                                 const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct multi_part *mp = part;
  size_t with = multi_with(mp->mu);
  if (with == mp->mu->n) {
    out[0] = a;
    return 1;
  }
  return mp->mu->parts[with].to_ordered(mp->parts[with], a, out);
}

/* What the analysis that decides (multi_to_ordered's) holds back. */
static uint32_t multi_release(void *part, const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct multi_part *mp = part;
  size_t with = multi_with(mp->mu);
  return with < mp->mu->n && mp->mu->parts[with].release
             ? mp->mu->parts[with].release(mp->parts[with], out)
             : 0;
}

/* What the analysis that decides (multi_to_ordered's) counted (access.h, counted). */
static uint64_t multi_counted(void *part)
{
  struct multi_part *mp = part;
  size_t with = multi_with(mp->mu);
  return with < mp->mu->n && mp->mu->parts[with].counted
             ? mp->mu->parts[with].counted(mp->parts[with])
             : 0;
}

/* The producer's word on the records before a CTA, to the analysis that decides (access.h,
 * ahead): the others' ordered sides take every record whole. */
static void multi_ahead(void *ctx, uint64_t cta, uint64_t before)
{
  struct cc_analysis_multi *mu = ctx;
  size_t with = multi_with(mu);
  if (with < mu->n && mu->parts[with].ahead)
    mu->parts[with].ahead(mu->parts[with].ctx, cta, before);
}

/* A record the producer still holds (or NULL), taken again by the analysis that decides
 * (access.h, recut): the same where no analysis decides (every record goes on whole). */
static uint32_t multi_recut(void *part, const struct cc_warp_access *a,
                            const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct multi_part *mp = part;
  size_t with = multi_with(mp->mu);
  return with < mp->mu->n && mp->mu->parts[with].recut
             ? mp->mu->parts[with].recut(mp->parts[with], a, out)
             : CC_ACCESS_RECUT_SAME;
}

/* Closes every analysis's partial (all of them, even after a failure: they are freed);
 * the first failure is returned. */
static int multi_close(void *ctx, void *part, int merge, struct cc_err *err)
{
  struct cc_analysis_multi *mu = ctx;
  struct multi_part *mp = part;
  int rc = CC_OK;
  if (!mp)
    return CC_OK;
  for (size_t i = 0; i < mu->n; i++) {
    int r = mu->parts[i].close(mu->parts[i].ctx, mp->parts[i], merge && rc == CC_OK, err);
    if (rc == CC_OK)
      rc = r;
  }
  free(mp->parts);
  free(mp);
  return rc;
}

/* Combines every analysis's partial of from into into's (access.h, combine); frees
 * from. */
static void multi_combine(void *ctx, void *into, void *from)
{
  struct cc_analysis_multi *mu = ctx;
  struct multi_part *d = into, *s = from;
  if (!s)
    return;
  for (size_t i = 0; i < mu->n; i++)
    mu->parts[i].combine(mu->parts[i].ctx, d->parts[i], s->parts[i]);
  free(s->parts);
  free(s);
}

int cc_analysis_multi_partials(struct cc_analysis_multi *mu, struct cc_access_partials *out)
{
  int ordered = 0;
  if (!mu->parts)
    mu->parts = cc_xcalloc(mu->n, sizeof *mu->parts);
  for (size_t i = 0; i < mu->n; i++) {
    mu->parts[i] = cc_analysis_partials(mu->ans[i]);
    ordered |= mu->ans[i]->cache != NULL;
  }
  *out = (struct cc_access_partials){mu, multi_open, multi_access, multi_close,
                                     multi_to_ordered, multi_combine, multi_release,
                                     multi_counted,    multi_ahead,  multi_recut};
  return ordered;
}

void cc_analysis_multi_set_mem_limit(struct cc_analysis_multi *mu, size_t bytes)
{
  size_t each = (bytes ? bytes : CC_ANALYSIS_MEM_DEFAULT) / mu->n;
  for (size_t i = 0; i < mu->n; i++)
    mu->ans[i]->mem_limit = each > ((size_t)1 << 20) ? each : (size_t)1 << 20;
}

size_t cc_analysis_multi_count(const struct cc_analysis_multi *mu)
{
  return mu->n;
}

const struct cc_analysis *const *cc_analysis_multi_results(const struct cc_analysis_multi *mu)
{
  return (const struct cc_analysis *const *)mu->ans;
}

void cc_analysis_multi_pack(const struct cc_analysis_multi *mu, uint8_t **buf, size_t *len)
{
  cc_analysis_pack((const struct cc_analysis *const *)mu->ans, mu->n, buf, len);
}

int cc_analysis_multi_unpack_merge(struct cc_analysis_multi *mu, const uint8_t *msg,
                                   size_t len, struct cc_err *err)
{
  return cc_analysis_unpack_merge(mu->ans, mu->n, msg, len, err);
}

int cc_analysis_multi_cached(const struct cc_analysis_multi *mu)
{
  for (size_t i = 0; i < mu->n; i++)
    if (mu->ans[i]->cache)
      return 1;
  return 0;
}
