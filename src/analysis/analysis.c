/* The analysis as a stream consumer: lifecycle and per-record accumulation. See
 * analysis.h; the end-of-kernel work is in finalize.c, the merge in merge.c. */
#include "analysis/analysis.h"

#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"
#include "analysis/fpshare.h"
#include "util/mem.h"

struct cc_analysis *cc_analysis_new(const struct cc_model *m)
{
  struct cc_analysis *an = cc_xcalloc(1, sizeof *an);
  an->model = m;
  an->group_lanes = cc_model_group_lanes(m);
  return an;
}

static char *dup_or_null(const char *s)
{
  return s ? cc_xstrdup(s) : NULL;
}

void cc_analysis_kernel_release(struct cc_kernel_stats *k)
{
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    free((char *)s->info.text);
    free((char *)s->info.file);
    free((char *)s->info.inlined_file);
    for (size_t j = 0; j < s->n_suggestions; j++)
      free(s->suggestions[j].text);
    cc_analysis_fp_free(s->footprint);
    cc_analysis_addr_release(&s->addr);
  }
  for (size_t i = 0; i < k->n_shared_vars; i++)
    free((char *)k->shared_vars[i].name);
  free(k->shared_vars);
  free(k->insns);
  free(k->warp_dependent_what);
  free(k->fix_command);
  free(k->by_slot);
  free(k->lines);
  free(k->name);
  free(k->mangled);
}

void cc_analysis_free_shared(struct cc_analysis *an)
{
  for (size_t slot = 0; an->fps && slot < an->fps_n; slot++)
    cc_analysis_fps_free(an->fps[slot]);
  free(an->fps);
  an->fps = NULL;
  an->fps_n = 0;
}

void cc_analysis_free(struct cc_analysis *an)
{
  if (!an)
    return;
  for (size_t i = 0; i < an->n_kernels; i++)
    cc_analysis_kernel_release(&an->kernels[i]);
  free(an->kernels);
  cc_analysis_free_shared(an); /* partials never closed */
  cc_cache_free(an->cache);
  free(an);
}

void cc_analysis_set_cache(struct cc_analysis *an, struct cc_cache *c)
{
  if (an->cache)
    an->mem_used -= cc_cache_bytes(an->cache);
  cc_cache_free(an->cache);
  an->cache = c;
  if (c)
    an->mem_used += cc_cache_bytes(c); /* checked at the next kernel */
}

static void init_insn(struct cc_insn_stats *s, const struct cc_insn_info *info, uint32_t slot)
{
  memset(s, 0, sizeof *s);
  s->info = *info;
  s->info.text = dup_or_null(info->text);
  s->info.file = dup_or_null(info->file);
  s->info.inlined_file = dup_or_null(info->inlined_file);
  s->slot = slot;
  s->stride_min = UINT64_MAX;
  s->footprint = cc_analysis_fp_new();
}

static size_t str_bytes(const char *s)
{
  return s ? strlen(s) + 1 : 0;
}

/* Bytes the results of kernel ki take before its first record: its entry, and per
 * instruction the statistics, slot index, line entry, empty footprint and strings. */
static size_t kernel_bytes(const struct cc_kernel_info *ki)
{
  size_t n = sizeof(struct cc_kernel_stats) + str_bytes(ki->name) + str_bytes(ki->mangled);
  for (uint32_t i = 0; i < ki->n_insns; i++)
    n += sizeof(struct cc_insn_stats) + sizeof(size_t) + sizeof(struct cc_line_stats) +
         cc_analysis_fp_empty_bytes() + str_bytes(ki->insns[i].text) +
         str_bytes(ki->insns[i].file) + str_bytes(ki->insns[i].inlined_file);
  return n;
}

static size_t mem_limit(const struct cc_analysis *an)
{
  return an->mem_limit ? an->mem_limit : CC_ANALYSIS_MEM_DEFAULT;
}

/* CC_ERR_LIMIT naming the kernel being analysed, what it holds (the cache model's arrays
 * too, when there is one), and the option. */
static int limit_error(const struct cc_analysis *an, const char *kernel, size_t n_insns,
                       const struct cc_insn_stats *insns, struct cc_err *err)
{
  uint64_t addrs = 0;
  char cache[96] = "";
  for (size_t i = 0; insns && i < n_insns; i++)
    addrs += cc_analysis_fp_count(insns[i].footprint);
  if (an->cache)
    snprintf(cache, sizeof cache, ", a cache model of %.1f MiB, which --cache off drops",
             (double)cc_cache_bytes(an->cache) / (1 << 20));
  return cc_err_set(err, CC_ERR_LIMIT, "analysis memory limit of %zu MiB reached in kernel %s "
                    "(kernel %zu of the stream, %zu memory instructions, %" PRIu64 " distinct "
                    "addresses in their footprints%s): raise it with --max-analysis-memory MIB",
                    mem_limit(an) >> 20, kernel, an->n_kernels + !insns, n_insns, addrs, cache);
}

static int begin_kernel(void *ctx, const struct cc_kernel_info *ki, struct cc_err *err)
{
  struct cc_analysis *an = ctx;
  struct cc_kernel_stats *k;
  size_t need;
  if (an->open)
    return cc_err_set(err, CC_ERR_INTERNAL,
                      "access stream began kernel %s inside another kernel: report this bug",
                      ki->name ? ki->name : "?");
  need = kernel_bytes(ki);
  if (an->cache) /* at most: the previous kernel's counters are freed */
    need += (size_t)ki->n_insns * sizeof(struct cc_cache_counts);
  if (an->mem_used > mem_limit(an) || need > mem_limit(an) - an->mem_used)
    return limit_error(an, ki->name ? ki->name : "?", ki->n_insns, NULL, err);
  an->mem_used += kernel_bytes(ki);
  an->kernels = cc_xgrow(an->kernels, &an->kernels_cap, an->n_kernels + 1, sizeof *an->kernels);
  k = &an->kernels[an->n_kernels++];
  memset(k, 0, sizeof *k);
  k->name = cc_xstrdup(ki->name ? ki->name : (ki->mangled ? ki->mangled : "?"));
  k->mangled = cc_xstrdup(ki->mangled ? ki->mangled : k->name);
  memcpy(k->grid, ki->grid, sizeof k->grid);
  memcpy(k->block, ki->block, sizeof k->block);
  k->arch = cc_model_name(an->model);
  k->n_insns = ki->n_insns;
  k->insns = cc_xcalloc(ki->n_insns ? ki->n_insns : 1, sizeof *k->insns);
  k->by_slot = cc_xcalloc(ki->n_insns ? ki->n_insns : 1, sizeof *k->by_slot);
  for (uint32_t i = 0; i < ki->n_insns; i++) {
    init_insn(&k->insns[i], &ki->insns[i], i);
    k->by_slot[i] = i;
  }
  if (ki->n_shared_vars && ki->shared_vars) {
    k->n_shared_vars = ki->n_shared_vars;
    k->shared_vars = cc_xcalloc(ki->n_shared_vars, sizeof *k->shared_vars);
    for (uint32_t i = 0; i < ki->n_shared_vars; i++) {
      k->shared_vars[i] = ki->shared_vars[i];
      k->shared_vars[i].name = cc_xstrdup(ki->shared_vars[i].name ? ki->shared_vars[i].name
                                                                   : "?");
    }
  }
  if (an->cache) {
    size_t before = cc_cache_bytes(an->cache);
    cc_cache_begin_kernel(an->cache, ki->grid, ki->block, ki->n_insns);
    an->mem_used += cc_cache_bytes(an->cache) - before; /* mod 2^n: may shrink */
    k->cached = 1;
    k->device = cc_cache_device_of(an->cache);
  }
  an->open = 1;
  return CC_OK;
}

/* Sorts the n <= 32 values of v increasingly (insertion sort: n is tiny). */
static void sort_small(uint64_t *v, uint32_t n)
{
  for (uint32_t i = 1; i < n; i++) {
    uint64_t x = v[i];
    uint32_t j = i;
    for (; j > 0 && v[j - 1] > x; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

/* sort_small, with one pass for the common orders: lane order already increasing
 * (unit-stride and strided accesses) or decreasing (negative strides). Sorting numbers
 * has one result, so both give the same v. */
static void sort_small_fast(uint64_t *v, uint32_t n)
{
  uint32_t up = 1, down = 1;
  for (uint32_t i = 1; i < n; i++) {
    up += v[i - 1] <= v[i];
    down += v[i - 1] >= v[i];
  }
  if (up >= n)
    return;
  if (down == n) {
    for (uint32_t i = 0, j = n - 1; i < j; i++, j--) {
      uint64_t t = v[i];
      v[i] = v[j];
      v[j] = t;
    }
    return;
  }
  sort_small(v, n);
}

/* Adds the strides of one group (n >= 2 sorted addresses, lo the smallest, hi the
 * largest, gmin / gmax its smallest / largest neighbour difference) to s; returns 1 if
 * the group is uncoalesced (gmax > size). */
static int add_group(struct cc_insn_stats *s, uint32_t n, uint64_t lo, uint64_t hi,
                     uint64_t gmin, uint64_t gmax, uint32_t size)
{
  if (gmin < s->stride_min)
    s->stride_min = gmin;
  if (gmax > s->stride_max)
    s->stride_max = gmax;
  s->stride_sum += (double)(hi - lo);
  s->stride_count += n - 1;
  if (gmax > size) {
    s->uncoalesced_thread_accesses += n;
    return 1;
  }
  return 0;
}

/* algorithm1 of a whole-warp progression going up (cc_access_progression: lane l at
 * addr[0] + l x step, in address order): each group of W lanes is sorted as it comes,
 * every neighbour difference is step, and the group spans (n - 1) x step from its first
 * lane. The fast path's sorted pass gives exactly these figures, without the lanes. */
static int algorithm1_progression(struct cc_insn_stats *s, const struct cc_warp_access *a,
                                  uint32_t w, uint64_t step)
{
  int uncoalesced = 0;
  uint32_t bound = cc_access_coalesced_stride(a->space, a->size_bytes);
  for (uint32_t g = 0; g < CC_WARP_SIZE; g += w) {
    uint32_t n = CC_WARP_SIZE - g < w ? CC_WARP_SIZE - g : w;
    uint64_t lo = a->addr[0] + (uint64_t)g * step;
    if (n >= 2)
      uncoalesced |= add_group(s, n, lo, lo + (uint64_t)(n - 1) * step, step, step, bound);
  }
  return uncoalesced;
}

/* Algorithm 1, lines 10-26, for one record: lanes in linear thread order (lane i of warp w
 * is linear thread 32w + i), cut into groups of W lanes; each group's active addresses
 * sorted; neighbour differences feed min / max / count, and the sum of a group's
 * differences (= its largest minus its smallest address, exact in 64 bits) is added to
 * stride_sum once per group. Unlike the paper's V, which packs only the threads that
 * executed, a group is a fixed range of lanes (the hardware's view: inactive lanes do
 * not shift their neighbours into another group); the paper's line 20 also reads one
 * element past the group, which we do not. Returns 1 if some group was uncoalesced (its
 * max stride > size). fast: sort_small_fast instead of the reference sort_small. */
static int algorithm1(struct cc_insn_stats *s, const struct cc_warp_access *a, uint32_t w,
                      int fast)
{
  int uncoalesced = 0;
  uint32_t bound = cc_access_coalesced_stride(a->space, a->size_bytes);
  for (uint32_t g = 0; g < CC_WARP_SIZE; g += w) {
    uint64_t v[CC_WARP_SIZE];
    uint32_t n = 0;
    uint64_t gmax = 0, gmin = UINT64_MAX;
    uint32_t gmask = a->active & (w >= CC_WARP_SIZE ? 0xffffffffu : ((1u << w) - 1u) << g);
    if (fast) {
      /* one pass while the lanes come in address order (their own sorted order); the
       * first lane below its predecessor sends the group to the sort below */
      uint64_t lo = 0, prev = 0;
      int sorted = 1;
      for (uint32_t m = gmask; m; m &= m - 1, n++) {
        uint64_t x = a->addr[__builtin_ctz(m)];
        if (n == 0) {
          lo = x;
        } else if (x < prev) {
          sorted = 0;
          break;
        } else {
          gmin = x - prev < gmin ? x - prev : gmin;
          gmax = x - prev > gmax ? x - prev : gmax;
        }
        prev = x;
      }
      if (sorted) {
        if (n >= 2)
          uncoalesced |= add_group(s, n, lo, prev, gmin, gmax, bound);
        continue;
      }
      n = 0;
      gmax = 0;
      gmin = UINT64_MAX;
    }
    for (uint32_t m = gmask; m; m &= m - 1)
      v[n++] = a->addr[__builtin_ctz(m)];
    if (n < 2)
      continue;
    if (fast)
      sort_small_fast(v, n);
    else
      sort_small(v, n);
    for (uint32_t j = 0; j + 1 < n; j++) {
      uint64_t stride = v[j + 1] - v[j];
      gmin = stride < gmin ? stride : gmin;
      gmax = stride > gmax ? stride : gmax;
    }
    uncoalesced |= add_group(s, n, v[0], v[n - 1], gmin, gmax, bound);
  }
  return uncoalesced;
}

static void add_global(struct cc_insn_stats *s, const struct cc_global_cost *c)
{
  s->requests += c->requests;
  s->transactions += c->transactions;
  s->bytes_transferred += c->transaction_bytes;
  s->sectors += c->sectors;
  s->ideal_sectors += c->ideal_sectors;
  s->lines += c->lines;
  s->unique_bytes += c->unique_bytes;
  s->sector_hist[c->sectors < CC_ANALYSIS_HIST_BUCKETS - 1 ? c->sectors
                                                           : CC_ANALYSIS_HIST_BUCKETS - 1]++;
}

static void add_shared(struct cc_insn_stats *s, const struct cc_shared_cost *c)
{
  s->requests += c->requests;
  s->wavefronts += c->wavefronts;
  s->ideal_wavefronts += c->ideal_wavefronts;
  if (c->ways > s->ways_max)
    s->ways_max = c->ways;
  if (c->ways > 1)
    s->conflict_requests++;
}

/* The lane stride of one record (see analysis.h): the stride per lane index between
 * neighbouring active lanes, if one positive value; NONE with fewer than two active
 * lanes; MIXED otherwise. Reference form: a division per pair of lanes. */
static uint64_t record_lane_stride(const struct cc_warp_access *a)
{
  uint64_t stride = CC_LANE_STRIDE_NONE;
  int prev = -1;
  for (int lane = 0; lane < CC_WARP_SIZE; lane++) {
    if (!(a->active & (1u << lane)))
      continue;
    if (prev >= 0) {
      uint64_t d = a->addr[lane] - a->addr[prev], dl = (uint64_t)(lane - prev);
      if (a->addr[lane] <= a->addr[prev] || d % dl != 0)
        return CC_LANE_STRIDE_MIXED;
      if (stride != CC_LANE_STRIDE_NONE && stride != d / dl)
        return CC_LANE_STRIDE_MIXED;
      stride = d / dl;
    }
    prev = lane;
  }
  return stride;
}

/* record_lane_stride with one division: the first pair of active lanes gives the
 * candidate stride s = d / dl; every later pair must be increasing with difference
 * exactly s x dl (the product checked for overflow, so that it is the true product, as
 * the reference's d % dl == 0 and d / dl == s say). */
static uint64_t record_lane_stride_fast(const struct cc_warp_access *a)
{
  uint32_t m = a->active;
  uint64_t stride;
  unsigned prev, lane;
  if (!m || !(m & (m - 1)))
    return CC_LANE_STRIDE_NONE;
  prev = (unsigned)__builtin_ctz(m);
  m &= m - 1;
  lane = (unsigned)__builtin_ctz(m);
  {
    uint64_t d = a->addr[lane] - a->addr[prev], dl = lane - prev;
    if (a->addr[lane] <= a->addr[prev] || (dl > 1 && d % dl != 0))
      return CC_LANE_STRIDE_MIXED;
    stride = dl > 1 ? d / dl : d;
  }
  for (prev = lane, m &= m - 1; m; prev = lane, m &= m - 1) {
    uint64_t want;
    lane = (unsigned)__builtin_ctz(m);
    if (a->addr[lane] <= a->addr[prev] ||
        __builtin_mul_overflow(stride, (uint64_t)(lane - prev), &want) ||
        a->addr[lane] - a->addr[prev] != want)
      return CC_LANE_STRIDE_MIXED;
  }
  return stride;
}

uint64_t cc_analysis_lane_stride_combine(uint64_t a, uint64_t b)
{
  if (a == CC_LANE_STRIDE_NONE)
    return b;
  if (b == CC_LANE_STRIDE_NONE || a == b)
    return a;
  return CC_LANE_STRIDE_MIXED;
}

/* The per-record work of the sink, see analysis_impl.h; fast 0: the reference path.
 * Local accesses carry per-thread offsets (access.h); everything stride-related
 * (Algorithm 1, the lane stride, the footprint and so allStr) is computed on the
 * addresses of the hardware's interleaved layout (cc_model_local_layout), the ones the
 * model counts sectors on: a warp-uniform offset is then 32 neighbouring 32-bit words
 * (stride 4, coalesced: cc_access_coalesced_stride) and a lane-divergent one a gather
 * across rows. The GPU
 * backend does the same on the device (src/gpu/patch.cu, record()). The model is given
 * the offsets: cc_model_global lays them out itself. */
static void accumulate(struct cc_insn_stats *s, const struct cc_model *m, uint32_t w,
                       const struct cc_warp_access *a, int fast, struct cc_fp_writer *fw)
{
  uint32_t lanes = cc_access_lanes(a);
  struct cc_warp_access phys;
  const struct cc_warp_access *cost = a; /* what the model is given */
  uint64_t step = 0;
  int run;
  if (a->space == CC_SPACE_LOCAL) {
    cc_model_local_layout(a, &phys);
    a = &phys;
  }
  /* a whole warp in address order, step bytes apart (most records: rows, columns,
   * broadcasts): the fast paths below take it without a pass over the lanes each */
  run = fast && cc_access_progression(a, &step);
  s->executions++;
  if (a->dyn + 1 > s->max_dyn)
    s->max_dyn = a->dyn + 1;
  s->thread_accesses += lanes;
  s->bytes_requested += (uint64_t)lanes * a->size_bytes;
  if (run ? algorithm1_progression(s, a, w, step) : algorithm1(s, a, w, fast))
    s->uncoalesced_requests++;
  s->lanes_seen |= a->active;
  if (s->lane_stride != CC_LANE_STRIDE_MIXED) /* (a progression's: its step, if not 0) */
    s->lane_stride = cc_analysis_lane_stride_combine(
        s->lane_stride, run ? (step ? step : CC_LANE_STRIDE_MIXED)
                        : fast ? record_lane_stride_fast(a) : record_lane_stride(a));
  if (fw) {
    uint32_t left = run ? cc_analysis_fps_add_progression(fw, a->addr, step)
                        : cc_analysis_fps_add_lanes(fw, a->addr, a->active);
    if (left)
      cc_analysis_fp_add_lanes(s->footprint, a->addr, left);
  } else if (run) {
    cc_analysis_fp_add_progression(s->footprint, a->addr, step);
  } else if (fast) {
    cc_analysis_fp_add_lanes(s->footprint, a->addr, a->active);
  } else {
    for (int lane = 0; lane < CC_WARP_SIZE; lane++)
      if (a->active & (1u << lane))
        cc_analysis_fp_add(s->footprint, a->addr[lane]);
  }
  if (a->space == CC_SPACE_SHARED) {
    struct cc_shared_cost c;
    cc_model_shared(m, cost, &c);
    add_shared(s, &c);
  } else {
    struct cc_global_cost c;
    cc_model_global(m, cost, &c);
    add_global(s, &c);
  }
}

void cc_analysis_accumulate(struct cc_insn_stats *s, const struct cc_model *m, uint32_t w,
                            const struct cc_warp_access *a)
{
  accumulate(s, m, w, a, 1, NULL);
}

void cc_analysis_accumulate_shared(struct cc_insn_stats *s, const struct cc_model *m,
                                   uint32_t w, const struct cc_warp_access *a,
                                   struct cc_fp_writer *fw)
{
  accumulate(s, m, w, a, 1, fw);
}

void cc_analysis_accumulate_ref(struct cc_insn_stats *s, const struct cc_model *m, uint32_t w,
                                const struct cc_warp_access *a)
{
  accumulate(s, m, w, a, 0, NULL);
}

void cc_analysis_insn_init(struct cc_insn_stats *s, const struct cc_insn_info *info,
                           uint32_t slot)
{
  init_insn(s, info, slot);
}

/* Hands record a to the cache model: shared records with the wavefronts the shared
 * model gave them; local ones in the hardware's interleaved layout, one 4-byte piece per
 * 32-bit word (as cc_model_global costs them: word j 128 x j bytes further). */
static void feed_cache(struct cc_cache *c, const struct cc_warp_access *a, uint32_t wavefronts)
{
  struct cc_warp_access phys;
  uint32_t words, size;
  if (a->space != CC_SPACE_LOCAL) {
    cc_cache_access(c, a, wavefronts);
    return;
  }
  cc_model_local_layout(a, &phys);
  words = cc_analysis_cache_records(a, &size);
  phys.size_bytes = size;
  for (uint32_t j = 0; j < words; j++) {
    cc_cache_access(c, &phys, 0);
    for (int l = 0; l < CC_WARP_SIZE; l++)
      phys.addr[l] += 4 * CC_WARP_SIZE;
  }
}

int cc_analysis_add_mem(struct cc_analysis *an, size_t grown, struct cc_err *err)
{
  struct cc_kernel_stats *k = &an->kernels[an->n_kernels - 1];
  an->mem_used += grown;
  if (an->mem_used > mem_limit(an))
    return limit_error(an, k->name, k->n_insns, k->insns, err);
  return CC_OK;
}

int cc_analysis_check_record(const struct cc_kernel_stats *k, const struct cc_warp_access *a,
                             struct cc_err *err)
{
  if (a->insn_slot >= k->n_insns)
    return cc_err_set(err, CC_ERR_INPUT,
                      "access record names instruction slot %u but kernel %s has %zu "
                      "memory instructions: regenerate the trace",
                      a->insn_slot, k->name, k->n_insns);
  /* a local access costs one model call per 32-bit word: a size from a hostile trace
   * (4 GiB) would run for minutes */
  if (a->size_bytes == 0 || a->size_bytes > CC_ACCESS_MAX_BYTES)
    return cc_err_set(err, CC_ERR_INPUT,
                      "access record of kernel %s, instruction slot %u, has size %u (not 1 "
                      "to %u bytes): regenerate the trace", k->name, a->insn_slot,
                      a->size_bytes, CC_ACCESS_MAX_BYTES);
  return CC_OK;
}

uint32_t cc_analysis_record_wavefronts(const struct cc_model *m, const struct cc_warp_access *a)
{
  struct cc_shared_cost c;
  if (a->space != CC_SPACE_SHARED)
    return 0;
  cc_model_shared(m, a, &c);
  return (uint32_t)c.wavefronts;
}

static int access_cb(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_analysis *an = ctx;
  struct cc_kernel_stats *k;
  struct cc_insn_stats *s;
  size_t before;
  uint64_t wavefronts;
  int rc;
  if (!an->open)
    return cc_err_set(err, CC_ERR_INTERNAL,
                      "access record outside a kernel (no begin_kernel): report this bug");
  k = &an->kernels[an->n_kernels - 1];
  if ((rc = cc_analysis_check_record(k, a, err)) != CC_OK)
    return rc;
  if (an->split) { /* the figures come from partials (partial.c): only the ordered part */
    if (an->cache)
      feed_cache(an->cache, a, cc_analysis_record_wavefronts(an->model, a));
    return CC_OK;
  }
  s = &k->insns[k->by_slot[a->insn_slot]];
  before = cc_analysis_fp_bytes(s->footprint);
  wavefronts = s->wavefronts;
  cc_analysis_accumulate(s, an->model, an->group_lanes, a);
  if (an->cache)
    feed_cache(an->cache, a, (uint32_t)(s->wavefronts - wavefronts));
  an->mem_used += cc_analysis_fp_bytes(s->footprint) - before; /* mod 2^n: may shrink */
  if (an->mem_used > mem_limit(an))
    return limit_error(an, k->name, k->n_insns, k->insns, err);
  return CC_OK;
}

static int end_kernel(void *ctx, struct cc_err *err)
{
  struct cc_analysis *an = ctx;
  struct cc_kernel_stats *k;
  if (!an->open)
    return cc_err_set(err, CC_ERR_INTERNAL,
                      "access stream ended a kernel that was not begun: report this bug");
  k = &an->kernels[an->n_kernels - 1];
  if (an->cache) {
    cc_cache_end_kernel(an->cache);
    cc_cache_kernel_figures(an->cache, &k->cache);
    for (size_t i = 0; i < k->n_insns; i++) /* slot order: nothing is sorted yet */
      k->insns[i].cache = *cc_cache_insn(an->cache, k->insns[i].slot);
  }
  cc_analysis_finalize_kernel(k);
  an->open = 0;
  for (size_t i = 0; i < k->n_insns; i++) /* the advice texts */
    for (size_t j = 0; j < k->insns[i].n_suggestions; j++)
      an->mem_used += str_bytes(k->insns[i].suggestions[j].text);
  if (an->mem_used > mem_limit(an))
    return limit_error(an, k->name, k->n_insns, k->insns, err);
  return CC_OK;
}

struct cc_access_sink cc_analysis_sink(struct cc_analysis *an)
{
  return (struct cc_access_sink){
    .ctx = an, .begin_kernel = begin_kernel, .access = access_cb, .end_kernel = end_kernel
  };
}

void cc_analysis_set_run_stats(struct cc_analysis *an, const struct cc_kernel_run_stats *run)
{
  if (an->n_kernels == 0)
    return;
  an->kernels[an->n_kernels - 1].run = *run;
  an->kernels[an->n_kernels - 1].run.present = 1;
}

double cc_analysis_stride_avg(const struct cc_insn_stats *s)
{
  return s->stride_count ? s->stride_sum / (double)s->stride_count : 0.0;
}

/* Bytes used over bytes moved; NAN when the bytes used are unknown. */
static double used_share(uint64_t unique, uint64_t transferred, unsigned unknown)
{
  if (unknown & CC_UNKNOWN_UNIQUE_BYTES)
    return NAN;
  return transferred ? (double)unique / (double)transferred : 1.0;
}

double cc_analysis_efficiency(const struct cc_insn_stats *s)
{
  if (s->wavefronts) /* shared memory: conflict-free share of the wavefronts */
    return (double)s->ideal_wavefronts / (double)s->wavefronts;
  return used_share(s->unique_bytes, s->bytes_transferred, s->unknown);
}

double cc_analysis_totals_efficiency(const struct cc_kernel_totals *t)
{
  return used_share(t->unique_bytes, t->bytes_transferred, t->unknown);
}

size_t cc_analysis_footprint_bytes(const struct cc_insn_stats *s)
{
  return cc_analysis_fp_bytes(s->footprint);
}

const char *cc_suggestion_kind_name(enum cc_suggestion_kind kind)
{
  switch (kind) {
  case CC_SUGGEST_NONE: return "none";
  case CC_SUGGEST_THREAD_GEOMETRY: return "thread-geometry";
  case CC_SUGGEST_SHARED_MEMORY: return "shared-memory";
  case CC_SUGGEST_LAYOUT: return "layout";
  case CC_SUGGEST_LOCAL_ARRAY: return "local-array";
  case CC_SUGGEST_LOOP: return "loop";
  }
  return "?";
}

const char *cc_verdict_name(enum cc_verdict v)
{
  return v == CC_VERDICT_COALESCED ? "coalesced" : "uncoalesced";
}
