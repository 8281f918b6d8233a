/* Merging shards of one run (DESIGN.md "Scaling past one machine"): the per-instruction
 * statistics are sums, minima, maxima and footprint unions, so the merge is exact. */
#include <string.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"

/* The rule of each record figure of struct cc_insn_stats (info, slot: the same on both
 * sides; the final results, all_stride .. gain_us, and addr are made afterwards by
 * cc_analysis_finalize_kernel and cc_analysis_set_forms, never merged). No figure depends
 * on the order of the records: none is "first seen". */
void cc_analysis_insn_merge(struct cc_insn_stats *d, const struct cc_insn_stats *s)
{
  d->executions += s->executions;                  /* sum */
  d->max_dyn = s->max_dyn > d->max_dyn ? s->max_dyn : d->max_dyn; /* max */
  d->thread_accesses += s->thread_accesses;        /* sum */
  d->bytes_requested += s->bytes_requested;        /* sum */
  d->requests += s->requests;                      /* sums: the model's figures */
  d->transactions += s->transactions;
  d->bytes_transferred += s->bytes_transferred;
  d->sectors += s->sectors;
  d->ideal_sectors += s->ideal_sectors;
  d->lines += s->lines;
  d->unique_bytes += s->unique_bytes;              /* sum: per record, not distinct overall */
  d->unknown |= s->unknown;                        /* or */
  for (int b = 0; b < CC_ANALYSIS_HIST_BUCKETS; b++)
    d->sector_hist[b] += s->sector_hist[b];        /* sum per bucket */
  if (s->ways_max > d->ways_max)                   /* max */
    d->ways_max = s->ways_max;
  d->wavefronts += s->wavefronts;                  /* sums */
  d->ideal_wavefronts += s->ideal_wavefronts;
  d->conflict_requests += s->conflict_requests;
  if (s->stride_count > 0) { /* min / max; a side without strides has no meaningful minimum */
    if (d->stride_count == 0 || s->stride_min < d->stride_min)
      d->stride_min = s->stride_min;
    if (s->stride_max > d->stride_max)
      d->stride_max = s->stride_max;
  }
  d->stride_sum += s->stride_sum;                  /* sum of integers: exact below 2^53 */
  d->stride_count += s->stride_count;              /* sum */
  d->uncoalesced_requests += s->uncoalesced_requests; /* sums */
  d->uncoalesced_thread_accesses += s->uncoalesced_thread_accesses;
  cc_analysis_fp_union(d->footprint, s->footprint); /* set union */
  d->lane_stride = cc_analysis_lane_stride_combine(d->lane_stride, s->lane_stride); /* NONE
                                                     neutral, equal stays, else MIXED */
  d->lanes_seen |= s->lanes_seen;                  /* or */
  cc_cache_counts_add(&d->cache, &s->cache);       /* sums (0 in partials: the cache model
                                                     fills them at end_kernel) */
}

/* Cache figures of two shards: sums add; the busiest SM's wavefronts and the serial
 * latency of the shards' own busiest SMs add too (each shard ran other CTAs on the same
 * SMs: an upper estimate, as the caches of two shards are not one cache). */
static void merge_cache(struct cc_kernel_stats *d, const struct cc_kernel_stats *s)
{
  if (!d->cached || !s->cached) {
    d->cached = 0;
    return;
  }
  d->cache.l2_evictions += s->cache.l2_evictions;
  d->cache.l1_wavefronts_max_sm += s->cache.l1_wavefronts_max_sm;
  d->cache.latency_ns_max_sm += s->cache.latency_ns_max_sm;
  if (s->cache.sms_used > d->cache.sms_used)
    d->cache.sms_used = s->cache.sms_used;
}

/* Run counters of shards add up (seconds too: the work of all shards). */
static void merge_run(struct cc_kernel_run_stats *d, const struct cc_kernel_run_stats *s)
{
  if (!s->present)
    return;
  d->present = 1;
  d->warp_insns += s->warp_insns;
  d->thread_insns += s->thread_insns;
  d->warp_accesses += s->warp_accesses;
  d->seconds += s->seconds;
}

static int check_kernel(const struct cc_kernel_stats *d, const struct cc_kernel_stats *s,
                        size_t index, struct cc_err *err)
{
  if (strcmp(d->mangled, s->mangled) != 0 || d->n_insns != s->n_insns)
    return cc_err_set(err, CC_ERR_INPUT,
                      "cannot merge shards: kernel %zu is %s (%zu memory instructions) in "
                      "one and %s (%zu) in the other: merge results of the same run only",
                      index + 1, d->mangled, d->n_insns, s->mangled, s->n_insns);
  for (size_t slot = 0; slot < s->n_insns; slot++) {
    uint32_t a = d->insns[d->by_slot[slot]].info.id, b = s->insns[s->by_slot[slot]].info.id;
    if (a != b)
      return cc_err_set(err, CC_ERR_INPUT,
                        "cannot merge shards: kernel %s has instruction %u in one and %u in "
                        "the other at slot %zu: merge results of the same PTX only",
                        d->mangled, a, b, slot);
  }
  return CC_OK;
}

int cc_analysis_merge(struct cc_analysis *into, const struct cc_analysis *from,
                      struct cc_err *err)
{
  if (into->open || from->open)
    return cc_err_set(err, CC_ERR_INTERNAL,
                      "cannot merge an analysis with an open kernel: report this bug");
  if (strcmp(cc_model_name(into->model), cc_model_name(from->model)) != 0)
    return cc_err_set(err, CC_ERR_INPUT,
                      "cannot merge shards analysed for %s and %s: use one --arch for all "
                      "shards", cc_model_name(into->model), cc_model_name(from->model));
  if (into->n_kernels != from->n_kernels)
    return cc_err_set(err, CC_ERR_INPUT,
                      "cannot merge shards with %zu and %zu kernel launches: merge results "
                      "of the same run only", into->n_kernels, from->n_kernels);
  /* check everything first, so that a failed merge leaves `into` unchanged */
  for (size_t k = 0; k < into->n_kernels; k++) {
    int rc = check_kernel(&into->kernels[k], &from->kernels[k], k, err);
    if (rc != CC_OK)
      return rc;
  }
  for (size_t k = 0; k < into->n_kernels; k++) {
    struct cc_kernel_stats *d = &into->kernels[k];
    const struct cc_kernel_stats *s = &from->kernels[k];
    for (size_t slot = 0; slot < s->n_insns; slot++)
      cc_analysis_insn_merge(&d->insns[d->by_slot[slot]], &s->insns[s->by_slot[slot]]);
    merge_run(&d->run, &s->run);
    merge_cache(d, s);
    cc_analysis_finalize_kernel(d);
  }
  return CC_OK;
}
