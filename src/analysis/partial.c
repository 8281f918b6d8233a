/* The order-free side of the analysis: per-thread partial figures merged before
 * end_kernel (analysis.h, cc_analysis_partials; docs/scaling.md). */
#include <assert.h>
#include <stdlib.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"
#include "analysis/fpshare.h"
#include "util/mem.h"

/* One thread's figures of the open kernel. */
struct partial {
  const struct cc_kernel_stats *k; /* the open kernel (names, instruction count) */
  const struct cc_model *model;
  uint32_t group_lanes;
  struct cc_insn_stats *insns;     /* by slot; info shallow (borrowed from k), footprints owned */
  const struct cc_cache *cache;    /* the analysis's cache model, or NULL */
  struct cc_cache_drops *drops;    /* what this thread counted for it (cache.h) */
  uint32_t wavefronts;             /* the last record's (a shared one's, else 0) */
  uint64_t counted;                /* records passed on whole that the model counts towards
                                      its switch, since partial_counted last ran */
  struct cc_fp_shared *const *fps; /* the analysis's shared footprints, by slot (borrowed) */
  struct cc_fp_writer **fw;        /* by slot: this thread's writer of each (NULL until the
                                      slot's first record) */
  uint32_t absorbed;               /* partials combined into this one */
};

/* The footprints the open kernel's partials share, one per slot (fpshare.h), made at the
 * first open. Their leaves may take half of what the memory limit leaves: past it, the
 * lanes go to the partials' own footprints, which the limit checks at the close. */
static void open_shared(struct cc_analysis *an, const struct cc_kernel_stats *k)
{
  size_t limit = an->mem_limit ? an->mem_limit : CC_ANALYSIS_MEM_DEFAULT;
  an->fps_budget = an->mem_used < limit ? (int64_t)((limit - an->mem_used) / 2) : 0;
  an->fps = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *an->fps);
  an->fps_n = k->n_insns;
  for (size_t slot = 0; slot < k->n_insns; slot++)
    an->fps[slot] = cc_analysis_fps_new(k->insns[k->by_slot[slot]].info.size_bytes,
                                        &an->fps_budget);
  an->parts_opened = an->parts_closed = 0;
  an->parts_dropped = 0;
}

static void *partial_open(void *ctx)
{
  struct cc_analysis *an = ctx;
  struct partial *p;
  const struct cc_kernel_stats *k;
  if (!an->open)
    return NULL;
  k = &an->kernels[an->n_kernels - 1];
  if (!an->fps)
    open_shared(an, k);
  an->parts_opened++;
  p = cc_xcalloc(1, sizeof *p);
  p->fps = an->fps;
  p->fw = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *p->fw);
  p->k = k;
  p->model = an->model;
  p->group_lanes = an->group_lanes;
  p->insns = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *p->insns);
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    struct cc_insn_stats *s = &p->insns[slot];
    s->info = k->insns[k->by_slot[slot]].info; /* the fields merge does not touch */
    s->slot = (uint32_t)slot;
    s->stride_min = UINT64_MAX; /* as init_insn: no stride seen */
    s->footprint = cc_analysis_fp_new();
  }
  if (an->cache) {
    p->cache = an->cache;
    p->drops = cc_cache_drops_new(an->cache);
  }
  return p;
}

static int partial_access(void *part, const struct cc_warp_access *a, struct cc_err *err)
{
  struct partial *p = part;
  struct cc_insn_stats *s;
  uint64_t wavefronts;
  int rc = cc_analysis_check_record(p->k, a, err);
  if (rc != CC_OK)
    return rc;
  s = &p->insns[a->insn_slot];
  wavefronts = s->wavefronts;
  if (!p->fw[a->insn_slot])
    p->fw[a->insn_slot] = cc_analysis_fpw_new(p->fps[a->insn_slot]);
  cc_analysis_accumulate_shared(s, p->model, p->group_lanes, a, p->fw[a->insn_slot]);
  /* the shared model's wavefronts of the record: what the ordered sink would give the
   * cache (access_cb) */
  p->wavefronts = (uint32_t)(s->wavefronts - wavefronts);
  return CC_OK;
}

/* The records the cache model counts towards its switch for record a passed on whole
 * (feed_cache gives it a local record word by word). */
static uint64_t switch_count(const struct partial *p, const struct cc_warp_access *a)
{
  uint32_t size, words;
  if (a->space != CC_SPACE_LOCAL)
    return cc_cache_switch_records(p->cache, a->space, a->active, a->insn_slot,
                                   a->size_bytes);
  words = cc_analysis_cache_records(a, &size);
  return words * cc_cache_switch_records(p->cache, a->space, a->active, a->insn_slot, size);
}

/* What the ordered sink (the cache model) needs of a, the record partial_access was just
 * given, into out (access.h, to_ordered): counted here only when the producer passes on
 * what this returns (a run that also writes a trace or views takes every record whole,
 * and the partials count none of it). Local records reach the cache word by word in the
 * interleaved layout (feed_cache): always sent on whole, after the store the model's
 * drops hold back, if any. */
static uint32_t partial_to_ordered(void *part, const struct cc_warp_access *a,
                                   const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct partial *p = part;
  uint32_t n;
  if (!p->drops) {
    out[0] = a;
    return 1;
  }
  if (a->space != CC_SPACE_LOCAL) {
    n = cc_cache_drop(p->cache, a, p->wavefronts, p->drops, out);
    if (n && out[n - 1] == a) /* whole (it comes last: cache.h) */
      p->counted += switch_count(p, a);
    return n;
  }
  n = cc_cache_drops_release(p->drops, out);
  out[n++] = a;
  p->counted += switch_count(p, a);
  return n;
}

/* Record a, passed on whole by partial_to_ordered and still held by the producer, taken
 * again (access.h, recut): the same unless the model's drops could now cut or count it
 * (cache.h cc_cache_drop_may_cut), else partial_to_ordered's word on it, less the count
 * it had as a whole record; a NULL: whether any could change. (p->wavefronts is a
 * shared record's alone, which the drops never pass on whole with a slot of the kernel:
 * not needed again.) */
static uint32_t partial_recut(void *part, const struct cc_warp_access *a,
                              const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct partial *p = part;
  if (!p->drops || !cc_cache_drop_may_cut(p->cache, a, p->drops))
    return CC_ACCESS_RECUT_SAME;
  if (!a) /* (the question whether any could change) */
    return 0;
  assert(p->counted >= switch_count(p, a)); /* counted when passed on whole */
  p->counted -= switch_count(p, a);
  return partial_to_ordered(part, a, out);
}

/* The records partial_to_ordered passed on whole that the cache model counts towards its
 * switch, since the last call (access.h, counted). */
static uint64_t partial_counted(void *part)
{
  struct partial *p = part;
  uint64_t n = p->counted;
  p->counted = 0;
  return n;
}

/* The producer's word on the records before a CTA (access.h, ahead), for the cache
 * model: it may publish its switch to the workers before it replays up to it. */
static void partial_ahead(void *ctx, uint64_t cta, uint64_t before)
{
  struct cc_analysis *an = ctx;
  if (an->cache)
    cc_cache_foresee(an->cache, cta, before);
}

/* The stores the model's drops hold back, if any (access.h, release). */
static uint32_t partial_release(void *part, const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX])
{
  struct partial *p = part;
  return p->drops ? cc_cache_drops_release(p->drops, out) : 0;
}

_Static_assert(CC_CACHE_DROP_OUT <= CC_ACCESS_ORDERED_MAX,
               "partial_to_ordered passes cc_cache_drop's records on");

/* Adds the record figures of s to d (one instruction), leaving s the smaller footprint
 * of the two to free. Why swap: a union adds address by address, so the smaller set is
 * unioned into the larger; the set, hence allStr, is the same either way, and the first
 * partial merged into an empty kernel costs nothing. */
static void merge_insn(struct cc_insn_stats *d, struct cc_insn_stats *s)
{
  if (cc_analysis_fp_count(s->footprint) > cc_analysis_fp_count(d->footprint)) {
    struct cc_footprint *t = d->footprint;
    d->footprint = s->footprint;
    s->footprint = t;
  }
  cc_analysis_insn_merge(d, s);
}

int cc_analysis_merge_open(struct cc_analysis *an, struct cc_insn_stats *by_slot,
                           struct cc_err *err)
{
  struct cc_kernel_stats *k = &an->kernels[an->n_kernels - 1];
  size_t before = 0, after = 0;
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    struct cc_insn_stats *d = &k->insns[k->by_slot[slot]];
    before += cc_analysis_fp_bytes(d->footprint);
    merge_insn(d, &by_slot[slot]);
    after += cc_analysis_fp_bytes(d->footprint);
  }
  return cc_analysis_add_mem(an, after - before, err); /* mod 2^n: may shrink */
}

/* Adds the shared footprints to the open kernel's (the set is then the serial run's),
 * on as many threads as there were partials, counting their growth against the memory
 * limit; frees them. */
static int merge_shared(struct cc_analysis *an, struct cc_err *err)
{
  struct cc_kernel_stats *k = &an->kernels[an->n_kernels - 1];
  struct cc_footprint **fp = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *fp);
  size_t before = 0, after = 0;
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    fp[slot] = k->insns[k->by_slot[slot]].footprint;
    before += cc_analysis_fp_bytes(fp[slot]);
  }
  cc_analysis_fps_finish_all(an->fps, fp, k->n_insns, an->parts_opened);
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    an->fps[slot] = NULL;
    after += cc_analysis_fp_bytes(fp[slot]);
  }
  free(fp);
  return cc_analysis_add_mem(an, after - before, err); /* mod 2^n: may shrink */
}

/* ORs p's pending bits into the shared footprints: before p is freed, and before the last
 * close reads them. */
static void flush_writers(struct partial *p)
{
  for (size_t slot = 0; slot < p->k->n_insns; slot++)
    cc_analysis_fpw_flush(p->fw[slot]);
}

/* Frees p: its drops, its footprints, its writers, its table. */
static void partial_free(struct partial *p)
{
  cc_cache_drops_free(p->drops);
  for (size_t slot = 0; slot < p->k->n_insns; slot++) {
    cc_analysis_fp_free(p->insns[slot].footprint);
    cc_analysis_fpw_free(p->fw[slot]);
  }
  free(p->fw);
  free(p->insns);
  free(p);
}

/* Merges p into the open kernel of an (merge 1), counting the footprints' growth against
 * the memory limit; frees p. A p that other partials were combined into counts their
 * footprints here too: the kernel's growth is that of the union, as when each is
 * closed in turn (the sum of each close's growth telescopes to the same difference),
 * checked against the limit once, at the end. */
static int partial_close(void *ctx, void *part, int merge, struct cc_err *err)
{
  struct cc_analysis *an = ctx;
  struct partial *p = part;
  int rc = CC_OK;
  if (!p)
    return CC_OK;
  flush_writers(p);
  if (merge && an->open) {
    rc = cc_analysis_merge_open(an, p->insns, err);
    if (p->drops && an->cache == p->cache)
      cc_cache_drops_add(an->cache, p->drops);
  } else {
    an->parts_dropped = 1;
  }
  an->parts_closed += p->absorbed + 1;
  assert(an->parts_closed <= an->parts_opened);
  if (an->parts_closed == an->parts_opened) { /* the last: every writer is flushed */
    if (!an->parts_dropped && rc == CC_OK)
      rc = merge_shared(an, err);
    cc_analysis_free_shared(an);
  }
  partial_free(p);
  return rc;
}

/* Merges partial from into partial into, slot by slot with the rules of close
 * (cc_analysis_insn_merge: sums, minima, maxima, unions, so the tree's shape does not
 * show in the figures), and the cache model's dropped counts (integer sums); frees
 * from. Touches the two partials only (the kernel's table is read, never written): any
 * thread. The last record's wavefronts (to_ordered's) are of no use once the records are
 * done. */
static void partial_combine(void *ctx, void *into, void *from)
{
  struct partial *d = into, *s = from;
  (void)ctx;
  if (!s)
    return;
  assert(d && d->k == s->k && d->cache == s->cache); /* the same kernel's partials */
  flush_writers(s); /* s's thread is done with it (access.h, combine) */
  d->absorbed += s->absorbed + 1;
  for (size_t slot = 0; slot < d->k->n_insns; slot++)
    merge_insn(&d->insns[slot], &s->insns[slot]);
  if (d->drops)
    cc_cache_drops_merge(d->drops, s->drops);
  partial_free(s);
}

struct cc_access_partials cc_analysis_partials(struct cc_analysis *an)
{
  an->split = 1;
  return (struct cc_access_partials){an, partial_open, partial_access, partial_close,
                                     partial_to_ordered, partial_combine, partial_release,
                                     partial_counted,    partial_ahead,  partial_recut};
}
