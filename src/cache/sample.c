/* Set sampling: the replay of 1 set in k after the first records of a kernel, and the
 * estimates made from it (cache.h, "Set sampling"; README.md).
 *
 * Why it is exact for the sets it keeps. Every set of L1 (each SM's) and of L2 holds
 * lines of one class residue mod K (cache.c set_of; cc_cache_level_classes), and a line
 * is replayed iff its class is a multiple of k (k <= K at both levels). A sampled line's
 * L1 set and L2 set therefore hold sampled lines only, and a set's state (LRU order,
 * valid, dirty and written bytes, the write policy's limits, which count within a set)
 * depends only on the lookups of its own lines, in order: the replay of the sampled
 * lines alone, in the stream's order, is the full replay of those sets
 * (tests/cache/test_set_sample.c checks it against a replay of the stream cut to the sampled
 * lanes). The memos (cache.c) hold lines of every class: they are cleared at the switch,
 * and the store memo then holds a column's sampled lines only. L2 never tells L1
 * anything but the level a load waited on.
 *
 * The figures (integers, no rounding but the waits'):
 *   - exact for every record: what does not depend on cache state, counted from the whole
 *     record (sample_whole, cache_impl.h): L1 wavefronts (per instruction and per SM), the
 *     sectors stores and atomics send to L2, the sectors of loads L1 does not cache;
 *     requests; shared records;
 *   - before + k x after: L1 hit sectors, L2 read sectors of loads L1 caches, L2 hit
 *     sectors, DRAM bytes read and written, L2 evictions: the counts of the first
 *     sample_after records (every set), plus k times the sampled lines' counts after;
 *   - dirty bytes at the end: k x the sampled sets' (state, not a flow: the unsampled sets
 *     stop at the switch);
 *   - waits (the deepest level a request reached; the latency is computed from them): a
 *     request after the switch that touched a sampled line waited at least as deep as its
 *     sampled lines did (what the replay knows); the instruction's requests after the
 *     switch, an exact count, are spread over L1, L2 and DRAM in the proportions of its
 *     sampled requests' waits (falling back to the kernel's sampled requests, then to the
 *     instruction's waits before the switch, then to L1); each SM's requests after the
 *     switch by the distribution of all the instructions' estimates. Biased towards
 *     shallower levels for requests of many lines (a column: the sampled one or two of 32
 *     lines decide), exact in proportion for requests of one line.
 * Deterministic: the classes are a hash of the line number, the switch a record count;
 * the parallel replay (par.c) switches at the same record, after running its batch. */
#include "cache/cache_impl.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

uint32_t cc_cache_level_classes(enum cc_cache_index index, uint32_t sets)
{
  uint32_t k = CC_CACHE_CLASSES;
  if (index == CC_CACHE_INDEX_FOLD)
    return 1;
  if (index == CC_CACHE_INDEX_MOD) {
    while (k > 1 && sets % k != 0)
      k /= 2;
    return k;
  }
  while (k > 1 && k > sets)
    k /= 2;
  return k;
}

void cc_cache_sample_begin(struct cc_cache *c)
{
  uint32_t k = c->dev.sample ? c->dev.sample : CC_CACHE_SAMPLE_DEFAULT;
  size_t n = c->n_insns ? c->n_insns : 1;
  if (k > c->l1[0].classes) /* every SM's L1 has one shape */
    k = c->l1[0].classes;
  if (k > c->l2.classes)
    k = c->l2.classes;
  c->sample_k = k;
  c->sample_mask = k - 1;
  c->sample_nibbles = 0;
  for (uint32_t j = 0; j < 16; j += k)
    c->sample_nibbles |= 0xfull << (4 * j);
  c->class_mul = c->dev.index == CC_CACHE_INDEX_MOD ? 0 : CC_CACHE_CLASS_MUL;
  c->memo_loads = c->dev.l1_global_loads && !c->dev.l1_whole_lines;
  c->records = 0;
  c->sampling = 0;
  c->quick = NULL; /* set at the switch (cache.c) */
  c->switch_at = k > 1 ? c->dev.sample_after : UINT64_MAX;
  __atomic_store_n(&c->drop_from, UINT64_MAX, __ATOMIC_RELEASE);
  c->evict_before = 0;
  c->scaled = 0;
  free(c->samp);
  free(c->req_after);
  c->samp = cc_xcalloc(n, sizeof *c->samp);
  c->req_after = cc_xcalloc(n, sizeof *c->req_after);
  memset(c->sm_req, 0, c->dev.sms * sizeof *c->sm_req);
}

void cc_cache_sample_start(struct cc_cache *c)
{
  if (c->par)
    c->evict_before += cc_cache_par_sample(c);
  c->evict_before += c->l2.evictions;
  c->l2.evictions = 0;
  c->l2.insn = c->samp;
  for (uint32_t s = 0; s < c->dev.sms; s++) {
    cc_cache_memo_drop(c, s); /* (its L1 goes on) */
    c->smemo[s].key.form = FORM_GENERAL;
  }
  c->sampling = 1;
  /* the records of later CTAs all come after the switch (the producer gives the CTAs in
   * linear order): from now on workers may count theirs that touch no sampled line (a
   * producer's word, cc_cache_foresee, may have published a later CTA already; this one
   * is the first possible, never later) */
  __atomic_store_n(&c->drop_from, c->last_linear + 1, __ATOMIC_RELEASE);
}

uint32_t cc_cache_switch_records(const struct cc_cache *c, enum cc_space space,
                                 uint32_t active, uint32_t slot, uint32_t size_bytes)
{
  /* access_slow's (cache.c) checks, and its shared records that return before the count */
  return space != CC_SPACE_SHARED && active != 0 && slot < c->n_insns &&
         size_bytes <= CC_ACCESS_MAX_BYTES;
}

void cc_cache_foresee(struct cc_cache *c, uint64_t cta, uint64_t before)
{
  uint64_t now = __atomic_load_n(&c->drop_from, __ATOMIC_ACQUIRE);
  /* the record at index switch_at (from 0) switches: it is among the first `before`
   * iff before > switch_at (UINT64_MAX, no sampling: never) */
  if (before <= c->switch_at)
    return;
  while (cta < now && !__atomic_compare_exchange_n(&c->drop_from, &now, cta, 1,
                                                   __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
    ; /* now: the value another thread stored; lower only */
}

/* Whether line is sampled: its class a multiple of k. */
static inline int keep(const struct cc_cache *c, uint64_t line)
{
  return sampled_line(c, line);
}

/* Sectors set in a 4-bit mask. */
static uint32_t popc4(uint8_t m)
{
  return cc_popcount32(m & 15u);
}

void cc_cache_sample_filter(const struct cc_cache *c, struct gather *g)
{
  uint32_t n = 0, sectors = 0;
  for (uint32_t i = 0; i < g->n; i++) {
    if (!keep(c, g->e[i].line))
      continue;
    if (n != i)
      g->e[n] = g->e[i];
    sectors += popc4(g->e[n++].mask);
  }
  g->n = n;
  g->sectors = sectors;
  g->max_line = n ? g->e[n - 1].line : 0;
}

/* Adds n requests to out[3] (L1, L2, DRAM) in the proportions of w[3] (their sum > 0),
 * rounded cumulatively: the three add up to n, each within 1 of its share. */
static void spread(uint64_t n, const uint64_t w[3], uint64_t *out1, uint64_t *out2,
                   uint64_t *out3)
{
  unsigned __int128 sum = (unsigned __int128)w[0] + w[1] + w[2];
  uint64_t a = (uint64_t)(((unsigned __int128)n * w[0] * 2 + sum) / (2 * sum));
  uint64_t b = (uint64_t)(((unsigned __int128)n * (w[0] + w[1]) * 2 + sum) / (2 * sum));
  *out1 += a;
  *out2 += b - a;
  *out3 += n - b;
}

/* The first of the candidate distributions (3 counts each) with a nonzero sum; L1 when
 * none has. */
static const uint64_t *first_nonzero(const uint64_t *a, const uint64_t *b, const uint64_t *c)
{
  static const uint64_t l1[3] = {1, 0, 0};
  if (a[0] + a[1] + a[2])
    return a;
  if (b[0] + b[1] + b[2])
    return b;
  return c[0] + c[1] + c[2] ? c : l1;
}

/* The waits after the switch, estimated (the file's comment says how): an instruction's
 * requests spread by its sampled requests' distribution (else the kernel's sampled
 * requests', else its own before the switch); each SM's requests by the distribution of
 * all those estimates together (the kernel's requests after the switch, weighted by
 * instruction), not by the SM's own sampled requests: an SM sees a few hundred of those,
 * and the busiest SM's latency, a maximum over SMs, would take the noisiest. */
static void estimate_waits(struct cc_cache *c)
{
  uint64_t all[3] = {0, 0, 0}, spread_all[3] = {0, 0, 0};
  for (uint32_t i = 0; i < c->n_insns; i++) {
    all[0] += c->samp[i].waits_l1;
    all[1] += c->samp[i].waits_l2;
    all[2] += c->samp[i].waits_dram;
  }
  for (uint32_t i = 0; i < c->n_insns; i++) {
    struct cc_cache_counts *ic = &c->insn[i];
    uint64_t mine[3] = {c->samp[i].waits_l1, c->samp[i].waits_l2, c->samp[i].waits_dram};
    uint64_t was[3] = {ic->waits_l1, ic->waits_l2, ic->waits_dram};
    const uint64_t *dist = first_nonzero(mine, all, was);
    spread(c->req_after[i], dist, &ic->waits_l1, &ic->waits_l2, &ic->waits_dram);
    spread(c->req_after[i], dist, &spread_all[0], &spread_all[1], &spread_all[2]);
  }
  for (uint32_t s = 0; s < c->dev.sms; s++) {
    uint64_t *w = &c->sm_waits[3 * (size_t)s];
    if (c->sm_req[s])
      spread(c->sm_req[s], spread_all, &w[0], &w[1], &w[2]);
  }
}

void cc_cache_sample_end(struct cc_cache *c)
{
  uint64_t k = c->sample_k;
  if (!c->sampling || c->scaled)
    return;
  c->scaled = 1;
  for (uint32_t i = 0; i < c->n_insns; i++) {
    struct cc_cache_counts *ic = &c->insn[i];
    const struct cc_cache_counts *sc = &c->samp[i];
    ic->l1_hit_sectors += k * sc->l1_hit_sectors;
    ic->l2_sectors_read += k * sc->l2_sectors_read;
    ic->l2_hit_sectors += k * sc->l2_hit_sectors;
    ic->dram_bytes_read += k * sc->dram_bytes_read;
    ic->dram_bytes_written += k * sc->dram_bytes_written;
    ic->l2_dirty_bytes_at_end += k * sc->l2_dirty_bytes_at_end;
  }
  estimate_waits(c);
  c->l2.evictions = c->evict_before + k * c->l2.evictions;
}

const struct cc_cache_counts *cc_cache_insn_sampled(const struct cc_cache *c, uint32_t slot)
{
  return slot < c->n_insns && c->samp ? &c->samp[slot] : &c->zero;
}
