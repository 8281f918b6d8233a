/* The cache model's state: the arrays (allocated once per device, empty from the start as
 * zero pages, the sets a kernel filled emptied at the next), the kernel's shape (L1
 * capacity from the carveout, resident CTAs) and the figures at its end. The replay is
 * cache.c; the rules and their sources are there. */
#include "cache/cache_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Places for the sets of a level of `sets` sets under `index` (struct level's slots:
 * classes x ceil(sets / classes)): the length of its arrays by set. */
static size_t level_slots(enum cc_cache_index index, uint32_t sets)
{
  uint32_t k = cc_cache_level_classes(index, sets ? sets : 1);
  return (size_t)k * (((sets ? sets : 1) + k - 1) / k);
}

void cc_cache_level_shape(struct level *lv, uint32_t sets, uint32_t ways,
                          enum cc_cache_index index)
{
  lv->sets = sets ? sets : 1;
  lv->ways = ways;
  lv->index = index;
  lv->shift = 1;
  while (lv->shift < 32 && (1ull << lv->shift) < lv->sets)
    lv->shift++;
  lv->mod_magic = UINT64_MAX / lv->sets + 1;
  lv->way_magic = UINT64_MAX / lv->ways + 1;
  lv->classes = cc_cache_level_classes(index, lv->sets);
  lv->class_bits = (uint32_t)__builtin_ctz(lv->classes);
  for (uint32_t c = 0; c < CC_CACHE_CLASSES; c++) {
    uint32_t n = c < lv->classes ? (lv->sets - c + lv->classes - 1) / lv->classes : 1;
    lv->class_sets[c] = n ? n : 1;
    lv->class_magic[c] = UINT64_MAX / lv->class_sets[c] + 1;
  }
  lv->slots = (uint32_t)level_slots(index, lv->sets);
  cc_cache_level_layout(lv, 1);
  lv->n_parts = 1; /* all its sets (renumber walks them: an L1's were a step of 0, a loop
                      without end once an SM's clock reached 2^32); the parallel replay's
                      L2 parts: par.c */
  lv->part_id = 0;
}

void cc_cache_level_layout(struct level *lv, uint32_t k)
{
  uint32_t K = lv->classes, sampled, others;
  assert(k >= 1 && k <= K && (k & (k - 1)) == 0);
  sampled = K / k;
  others = K - sampled;
  lv->region = sampled * lv->class_sets[0];
  for (uint32_t c = 0; c < K; c++) {
    if (c % k == 0) {
      lv->class_base[c] = c / k;
      lv->class_step[c] = sampled;
    } else { /* the (c - c / k - 1)-th class that is not a multiple of k */
      lv->class_base[c] = lv->region + c - c / k - 1;
      lv->class_step[c] = others;
    }
  }
}

/* The first set from `from` on (below sets) whose mark in touched is set, or sets; eight
 * marks a load where they are all 0 (a kernel touching few sets leaves most of them 0). */
static uint32_t next_touched(const uint8_t *touched, uint32_t from, uint32_t sets)
{
  for (; from < sets; from++) {
    uint64_t eight;
    if (from % 8 == 0 && from + 8 <= sets) {
      memcpy(&eight, touched + from, sizeof eight);
      if (!eight) {
        from += 7;
        continue;
      }
    }
    if (touched[from])
      return from;
  }
  return sets;
}

/* Empties lv: the sets marked touched (cache.c fill), by lv's shape when they were
 * filled (call it before a new shape); every other set is all-zero bytes already (an
 * empty way is: EMPTY_TAG 0, stamp 0, no sector; its written bytes and the set's masks
 * 0). Why not every set: a kernel that touches a few sets (a small launch, one of an
 * application's many) would pay for the whole of L2 (20 MB on the H100) at each
 * launch. The way predictor is left as it is: an entry is a guess checked against the
 * way's tag, and every way is empty or of this kernel once the marked sets are emptied
 * (an L1's entries stay within its SM's share whatever the shape). */
static void level_reset(struct level *lv)
{
  for (uint32_t s = next_touched(lv->touched, 0, lv->slots); s < lv->slots;
       s = next_touched(lv->touched, s + 1, lv->slots)) {
    size_t first = (size_t)s * lv->ways;
    lv->touched[s] = 0;
    memset(&lv->w[first], 0, lv->ways * sizeof *lv->w);
    if (lv->part)
      memset(&lv->part[first], 0, lv->ways * sizeof *lv->part);
    if (lv->set_dirty) {
      lv->set_dirty[s] = 0;
      lv->set_partial[s] = 0;
    }
  }
  lv->clock = 0;
  lv->hot = 0;
}

/* The most places an SM's L1 has (level_slots of the most sets its allocated lines
 * give in the device's ways): the length of its touched marks. A kernel's L1 has no
 * more sets, and no more places: a class count of fewer sets divides the larger one's,
 * so a multiple of it at least as large holds them. */
static size_t l1_max_slots(const struct cc_cache *c)
{
  size_t sets = c->l1_cap_lines / (c->dev.l1_ways ? c->dev.l1_ways : 1);
  return level_slots(c->dev.index, (uint32_t)(sets ? sets : 1));
}

/* The ways of an SM's share of the L1 array: its allocated lines, or its most places'
 * ways when more. */
static size_t l1_share(const struct cc_cache *c)
{
  size_t places = l1_max_slots(c) * (c->dev.l1_ways ? c->dev.l1_ways : 1);
  return places > c->l1_cap_lines ? places : c->l1_cap_lines;
}

/* Faults the pages of [p, p + bytes), zero already (calloc), in now: cc_cache_new runs
 * before the emulator's threads start, the replay on the merger while they run, where a
 * first touch of the model's 24 MB (huge pages compacted and zeroed, other cores
 * interrupted) doubled the run of the naive 1024^2 transpose at --jobs 2 (0.037 ->
 * 0.072 s here). Later kernels reuse the pages (level_reset). */
static void fault_in(void *p, size_t bytes)
{
  memset(p, 0, bytes);
}

/* Predictor bits for a level of `lines` ways: enough for one entry a way, at most max. */
static uint32_t pred_bits_for(size_t lines, uint32_t max)
{
  uint32_t bits = 1;
  while (bits < max && ((size_t)1 << bits) < lines)
    bits++;
  return bits;
}

/* unit[m]: the sectors of a line the DRAM reads for missed sectors m bring into L2, in
 * aligned units of `bytes` (32, 64 or 128: one sector, a pair, the line). */
static void dram_units(uint32_t bytes, uint8_t unit[16])
{
  uint32_t per = bytes / CC_CACHE_SECTOR_BYTES;
  uint8_t group = (uint8_t)((1u << (per ? per : 1)) - 1u);
  for (uint32_t m = 0; m < 16; m++) {
    unit[m] = 0;
    for (uint32_t s = 0; s < 4; s++)
      if (m & (1u << s))
        unit[m] |= (uint8_t)((group << (s / per * per)) & 0xfu);
  }
}

struct cc_cache *cc_cache_new(const struct cc_cache_device *d)
{
  struct cc_cache *c = cc_xcalloc(1, sizeof *c);
  uint32_t max_l1 = d->l1_bytes_override ? d->l1_bytes_override : d->l1_unified_bytes;
  size_t l2_lines = (size_t)(d->l2_bytes / CC_CACHE_LINE_BYTES);
  c->dev = *d;
  c->l1_cap_lines = max_l1 / CC_CACHE_LINE_BYTES ? max_l1 / CC_CACHE_LINE_BYTES : 1;
  c->l1 = cc_xcalloc(d->sms, sizeof *c->l1);
  /* every array zeroed (calloc: pages the kernel zeroes when first touched): all ways
   * empty, no set touched (level_reset) */
  c->l1_ways = cc_xcalloc((size_t)d->sms * l1_share(c), sizeof *c->l1_ways);
  /* huge pages for the arrays of every line (mem.h): each record's lookups land in
   * sets a page or more apart */
  cc_mem_huge(c->l1_ways, (size_t)d->sms * l1_share(c) * sizeof *c->l1_ways);
  fault_in(c->l1_ways, (size_t)d->sms * l1_share(c) * sizeof *c->l1_ways);
  c->l1_touched = cc_xcalloc((size_t)d->sms * l1_max_slots(c), 1);
  c->l1_pred_bits = pred_bits_for(c->l1_cap_lines, L1_PRED_BITS);
  c->l1_pred = cc_xcalloc((size_t)d->sms << c->l1_pred_bits, sizeof *c->l1_pred);
  for (uint32_t s = 0; s < d->sms; s++) {
    c->l1[s].w = c->l1_ways + (size_t)s * l1_share(c);
    c->l1[s].touched = c->l1_touched + (size_t)s * l1_max_slots(c);
    c->l1[s].pred = c->l1_pred + ((size_t)s << c->l1_pred_bits);
    c->l1[s].pred_bits = c->l1_pred_bits;
    c->l1[s].pred_shift = 64 - c->l1_pred_bits;
  }
  cc_cache_level_shape(&c->l2, (uint32_t)(l2_lines / d->l2_ways), d->l2_ways, d->index);
  l2_lines = (size_t)c->l2.slots * c->l2.ways;
  c->l2.w = cc_xcalloc(l2_lines, sizeof *c->l2.w);
  c->l2.part = cc_xcalloc(l2_lines, sizeof *c->l2.part);
  cc_mem_huge(c->l2.w, l2_lines * sizeof *c->l2.w);
  cc_mem_huge(c->l2.part, l2_lines * sizeof *c->l2.part);
  fault_in(c->l2.w, l2_lines * sizeof *c->l2.w);
  fault_in(c->l2.part, l2_lines * sizeof *c->l2.part);
  c->l2.touched = cc_xcalloc(c->l2.slots, 1);
  c->l2.set_dirty = cc_xcalloc(c->l2.slots, sizeof *c->l2.set_dirty);
  c->l2.set_partial = cc_xcalloc(c->l2.slots, sizeof *c->l2.set_partial);
  c->l2.pred_bits = pred_bits_for(l2_lines, L2_PRED_BITS);
  c->l2.pred_shift = 64 - c->l2.pred_bits;
  c->l2.pred = cc_xcalloc((size_t)1 << c->l2.pred_bits, sizeof *c->l2.pred);
  c->memo = cc_xcalloc(L1_MEMOS * (size_t)d->sms, sizeof *c->memo);
  c->ml = cc_xcalloc(d->sms, sizeof *c->ml);
  for (uint32_t s = 0; s < d->sms; s++)
    for (uint32_t k = 0; k < L1_MEMOS; k++)
      c->ml[s].e[k].m = c->ml[s].stamped[k] = &c->memo[L1_MEMOS * (size_t)s + k];
  c->smemo = cc_xcalloc(d->sms, sizeof *c->smemo);
  c->sm_wavefronts = cc_xcalloc(d->sms, sizeof *c->sm_wavefronts);
  c->sm_waits = cc_xcalloc(3 * (size_t)d->sms, sizeof *c->sm_waits);
  c->sm_req = cc_xcalloc(d->sms, sizeof *c->sm_req);
  c->jobs = c->jobs_next = 1;
  dram_units(d->dram_access_bytes, c->dram_unit);
  return c;
}

void cc_cache_free(struct cc_cache *c)
{
  if (!c)
    return;
  cc_cache_par_free(c); /* first: a batch in flight reads the arrays below */
  free(c->l1);
  free(c->l1_ways);
  free(c->l1_pred);
  free(c->l1_touched);
  free(c->memo);
  free(c->ml);
  free(c->smemo);
  free(c->l2.w);
  free(c->l2.pred);
  free(c->l2.part);
  free(c->l2.touched);
  free(c->l2.set_dirty);
  free(c->l2.set_partial);
  free(c->insn);
  free(c->sm_wavefronts);
  free(c->sm_waits);
  free(c->sm_req);
  free(c->samp);
  free(c->req_after);
  free(c);
}

size_t cc_cache_bytes(const struct cc_cache *c)
{
  size_t l2_lines = (size_t)c->l2.slots * c->l2.ways;
  return sizeof *c + c->dev.sms * (sizeof *c->l1 + L1_MEMOS * sizeof *c->memo + sizeof *c->ml +
                                   sizeof *c->smemo +
                                   sizeof *c->sm_wavefronts +
                                   3 * sizeof *c->sm_waits + sizeof *c->sm_req) +
         (size_t)c->dev.sms * l1_share(c) * sizeof *c->l1_ways +
         ((size_t)c->dev.sms << c->l1_pred_bits) * sizeof *c->l1_pred +
         (size_t)c->dev.sms * l1_max_slots(c) +
         l2_lines * (sizeof *c->l2.w + sizeof *c->l2.part) +
         c->l2.slots * (sizeof *c->l2.set_dirty + sizeof *c->l2.set_partial + 1) +
         ((size_t)1 << c->l2.pred_bits) * sizeof *c->l2.pred +
         (c->insn ? (c->n_insns ? c->n_insns : 1) * sizeof *c->insn : 0) +
         (c->samp ? (c->n_insns ? c->n_insns : 1) * (sizeof *c->samp + sizeof *c->req_after)
                  : 0) +
         cc_cache_par_bytes(c);
}

const struct cc_cache_device *cc_cache_device_of(const struct cc_cache *c)
{
  return &c->dev;
}

uint32_t cc_cache_resident_ctas(const struct cc_cache_device *d, uint32_t threads_per_cta)
{
  uint32_t warp_threads = (threads_per_cta + CC_WARP_SIZE - 1) / CC_WARP_SIZE * CC_WARP_SIZE;
  uint32_t r = warp_threads ? d->max_threads_per_sm / warp_threads : d->max_ctas_per_sm;
  if (r > d->max_ctas_per_sm)
    r = d->max_ctas_per_sm;
  return r ? r : 1;
}

uint32_t cc_cache_l1_bytes(const struct cc_cache_device *d, uint32_t threads_per_cta)
{
  uint64_t bytes = d->l1_unified_bytes;
  uint32_t lines;
  if (d->l1_bytes_override) {
    bytes = d->l1_bytes_override;
  } else if (d->n_carveouts) {
    uint32_t kb = d->carveouts_kb[d->n_carveouts - 1];
    if (d->carveout_kb != UINT32_MAX) {
      kb = d->carveout_kb;
    } else {
      uint64_t need = (uint64_t)cc_cache_resident_ctas(d, threads_per_cta) *
                      (d->smem_per_cta_bytes + d->smem_reserved_bytes);
      for (uint32_t i = 0; i < d->n_carveouts; i++)
        if ((uint64_t)d->carveouts_kb[i] * 1024 >= need) {
          kb = d->carveouts_kb[i];
          break;
        }
    }
    bytes = (uint64_t)kb * 1024 < bytes ? bytes - (uint64_t)kb * 1024 : 0;
  }
  lines = (uint32_t)(bytes / CC_CACHE_LINE_BYTES / d->l1_ways * d->l1_ways);
  if (lines == 0)
    lines = d->l1_ways;
  return lines * CC_CACHE_LINE_BYTES;
}

void cc_cache_begin_kernel(struct cc_cache *c, const uint32_t grid[3], const uint32_t block[3],
                           uint32_t n_insns)
{
  uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
  uint32_t lines;
  cc_cache_par_abandon(c); /* the last kernel's, if it did not end: before the arrays */
  memcpy(c->grid, grid, sizeof c->grid);
  c->ctas = (uint64_t)grid[0] * grid[1] * grid[2];
  c->per_sm_blocked = (c->ctas + c->dev.sms - 1) / c->dev.sms;
  if (c->per_sm_blocked == 0)
    c->per_sm_blocked = 1;
  c->warps_per_cta = (uint32_t)((threads + CC_WARP_SIZE - 1) / CC_WARP_SIZE);
  c->resident = cc_cache_resident_ctas(&c->dev, (uint32_t)threads);
  c->l1_bytes = cc_cache_l1_bytes(&c->dev, (uint32_t)threads);
  lines = c->l1_bytes / CC_CACHE_LINE_BYTES;
  if (lines > c->l1_cap_lines) { /* cannot happen: the arrays hold the largest L1 */
    lines = c->l1_cap_lines / c->dev.l1_ways * c->dev.l1_ways;
    c->l1_bytes = lines * CC_CACHE_LINE_BYTES;
  }
  for (uint32_t s = 0; s < c->dev.sms; s++) {
    level_reset(&c->l1[s]); /* by the last kernel's shape (the first's: nothing touched) */
    cc_cache_level_shape(&c->l1[s], lines / c->dev.l1_ways, c->dev.l1_ways, c->dev.index);
    memo_reset(c, s);
    c->smemo[s].key.form = FORM_GENERAL;
  }
  c->have_last = 0;
  level_reset(&c->l2);
  free(c->insn);
  c->n_insns = n_insns;
  c->insn = cc_xcalloc(n_insns ? n_insns : 1, sizeof *c->insn);
  memset(c->sm_wavefronts, 0, c->dev.sms * sizeof *c->sm_wavefronts);
  memset(c->sm_waits, 0, 3 * (size_t)c->dev.sms * sizeof *c->sm_waits);
  c->l2.insn = c->insn;
  c->l2.n_insns = n_insns;
  c->l2.evictions = 0;
  c->l2.dram_unit = c->dram_unit;
  c->l2.partial_ways = c->dev.l2_partial_ways;
  c->l2.dirty_ways = c->dev.l2_dirty_ways;
  c->l2.n_parts = 1;
  c->l2.part_id = 0;
  cc_cache_sample_begin(c);
  for (uint32_t s = 0; s < c->dev.sms; s++) /* every level empty: places may move */
    cc_cache_level_layout(&c->l1[s], c->sample_k);
  cc_cache_level_layout(&c->l2, c->sample_k);
  cc_cache_par_begin(c);
}

/* The time the requests counted in waits[3] (on L1, L2, DRAM) wait, ns: a product per
 * level, so that the figure does not depend on the order the requests were counted in
 * (the parallel replay counts them in batches; the latencies are integers in the device
 * table, so the sum is the one a running sum in the serial order gives). */
static double wait_ns(const struct cc_cache_device *d, uint64_t l1, uint64_t l2, uint64_t dram)
{
  return (double)l1 * d->lat_l1_ns + (double)l2 * d->lat_l2_ns + (double)dram * d->lat_dram_ns;
}

/* Counts the dirty sectors still in L2 set `set` (as the kernel's end leaves them) and
 * cleans them; while sampling, the sampled sets' only (the others stopped at the switch),
 * scaled by cc_cache_sample_end. */
static void count_dirty_at_end(struct cc_cache *c, uint32_t set)
{
  struct cc_cache_counts *to = c->sampling ? c->samp : c->insn;
  for (size_t i = (size_t)set * c->l2.ways; i < (size_t)(set + 1) * c->l2.ways; i++) {
    struct way *w = &c->l2.w[i];
    if (!w->dirty)
      continue;
    for (uint32_t s = 0; (!c->sampling || sampled_line(c, line_of(w->tag))) && s < 4; s++) {
      uint32_t slot = c->l2.part[i].writer[s];
      if ((w->dirty & (1u << s)) && slot < c->n_insns)
        to[slot].l2_dirty_bytes_at_end += CC_CACHE_SECTOR_BYTES;
    }
    w->dirty = 0;
  }
  c->l2.set_dirty[set] = 0;
  c->l2.set_partial[set] = 0;
}

void cc_cache_end_kernel(struct cc_cache *c)
{
  cc_cache_par_end(c);
  for (uint32_t set = next_touched(c->l2.touched, 0, c->l2.slots); set < c->l2.slots;
       set = next_touched(c->l2.touched, set + 1, c->l2.slots)) /* the others hold no line */
    count_dirty_at_end(c, set);
  cc_cache_sample_end(c);
  for (uint32_t i = 0; i < c->n_insns; i++) {
    struct cc_cache_counts *ic = &c->insn[i];
    ic->latency_ns = wait_ns(&c->dev, ic->waits_l1, ic->waits_l2, ic->waits_dram);
  }
}

const struct cc_cache_counts *cc_cache_insn(const struct cc_cache *c, uint32_t slot)
{
  return slot < c->n_insns ? &c->insn[slot] : &c->zero;
}

void cc_cache_counts_add(struct cc_cache_counts *a, const struct cc_cache_counts *b)
{
  a->l1_hit_sectors += b->l1_hit_sectors;
  a->l2_sectors_read += b->l2_sectors_read;
  a->l2_sectors_write += b->l2_sectors_write;
  a->l2_sectors_atomic += b->l2_sectors_atomic;
  a->l2_hit_sectors += b->l2_hit_sectors;
  a->dram_bytes_read += b->dram_bytes_read;
  a->dram_bytes_written += b->dram_bytes_written;
  a->l2_dirty_bytes_at_end += b->l2_dirty_bytes_at_end;
  a->l1_wavefronts += b->l1_wavefronts;
  a->waits_l1 += b->waits_l1;
  a->waits_l2 += b->waits_l2;
  a->waits_dram += b->waits_dram;
  a->latency_ns += b->latency_ns;
}

uint64_t cc_cache_l2_sectors(const struct cc_cache_counts *c)
{
  return c->l2_sectors_read + c->l2_sectors_write + c->l2_sectors_atomic;
}

/* CTAs the dispatch rule gives SM sm. */
static uint64_t ctas_on_sm(const struct cc_cache *c, uint32_t sm)
{
  if (c->dev.dispatch == CC_CACHE_DISPATCH_BLOCKED) {
    uint64_t first = (uint64_t)sm * c->per_sm_blocked;
    if (first >= c->ctas)
      return 0;
    return c->ctas - first < c->per_sm_blocked ? c->ctas - first : c->per_sm_blocked;
  }
  return c->ctas / c->dev.sms + (sm < c->ctas % c->dev.sms);
}

void cc_cache_kernel_figures(const struct cc_cache *c, struct cc_cache_kernel *out)
{
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < c->n_insns; i++)
    cc_cache_counts_add(&out->total, &c->insn[i]);
  out->l2_evictions = c->l2.evictions;
  out->l1_bytes = c->l1_bytes;
  out->sample = c->sampling ? c->sample_k : 1;
  out->sampled_from = c->sampling ? c->switch_at : UINT64_MAX;
  out->records = c->records;
  out->resident_ctas = c->resident;
  for (uint32_t s = 0; s < c->dev.sms; s++) {
    uint64_t n = ctas_on_sm(c, s), at_once = n < c->resident ? n : c->resident;
    double warps = (double)(at_once * c->warps_per_cta);
    const uint64_t *w = &c->sm_waits[3 * (size_t)s];
    double latency = wait_ns(&c->dev, w[0], w[1], w[2]);
    if (n == 0)
      continue;
    out->sms_used++;
    if (c->sm_wavefronts[s] > out->l1_wavefronts_max_sm)
      out->l1_wavefronts_max_sm = c->sm_wavefronts[s];
    if (warps > 0 && latency / warps > out->latency_ns_max_sm)
      out->latency_ns_max_sm = latency / warps;
  }
}
