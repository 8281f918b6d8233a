/* The cache model: L1 per SM, L2 and DRAM over a warp access stream. See cache.h.
 *
 * Rules, and where each comes from:
 *   - Lines of 128 bytes, sectors of 32: the unit of tag and of transfer between L1 and
 *     L2 on Volta and later (Nsight Compute Kernel Profiling Guide, "Memory Tables": "a
 *     cache line is four sectors"; NVIDIA forum, Greg Smith: "the L1 and L2 cache line
 *     size is 128 bytes composed of 4 x 32B sectors"). An L1 miss fetches only the missing
 *     sectors (sectored fill); cc2.x fetches whole 128-byte lines (CUDA C Programming
 *     Guide, compute capability 2.x, "Global Memory": cached loads are 128-byte
 *     transactions), as `l1_whole_lines`.
 *   - Loads allocate in L1 where the architecture caches global loads there: sm_70 and
 *     later, and cc2.x unless -dlcm=cg (`l1_global_loads`); on cc3.x..sm_6x global loads
 *     are cached in L2 only by default (Programming Guide, 3.x and 5.x "Global Memory":
 *     L1 caching of global loads is opt-in), local memory in L1 everywhere.
 *   - Global stores write through to L2 and do not allocate in L1; a line already in L1
 *     keeps its sectors (updated). Sources: Programming Guide, compute capability 2.x:
 *     global stores go to L2 (the L1 line is invalidated); for sm_70 and later Jia et al.,
 *     "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking" (2018), the L1
 *     data cache is write-through for global memory; the check against Nsight Compute's
 *     lts__t_sectors_srcunit_tex_op_write (scripts/gpu-cache-check.sh) tests it: every
 *     store sector must appear there. Local stores also write through, and allocate
 *     (spilled registers are read back soon; assumption).
 *   - Atomics and reductions are performed in L2 (Programming Guide, "Atomic Functions";
 *     Nsight Compute counts them as lts ..._op_atom/_op_red); L1 is not involved.
 *   - L2: write-back, write-allocate without a DRAM read: a store records which bytes of a
 *     sector it wrote; a sector wholly written becomes valid; a read of a sector not valid
 *     reads its 32 bytes from DRAM (merging what was written). Dirty sectors go to DRAM,
 *     32 bytes each, when their line is evicted and at the kernel's end. DRAM is
 *     accessed per 32-byte sector (Nsight Compute's dram__sectors).
 *   - Replacement: LRU per set (NVIDIA does not publish its policies). Set index: a
 *     multiplicative hash of the line number (GPUs hash set indices; with a plain modulo a
 *     warp reading 32 rows 16 KiB apart would fall into a few sets and thrash, which the
 *     H200's row-per-thread kernels do not: issue 12), or the plain modulo for tests.
 *   - L2 as one array of the device's size: the H100/H200's L2 is two partitions whose
 *     far half an SM reaches through the partition crossbar; lts__t_sectors_srcunit_tex
 *     counts each L1 miss once whichever partition serves it, so the sector counts do not
 *     depend on the split. Not modelled: a line read by SMs of both halves may be held in
 *     both (less capacity for shared data than 50 MB), so footprints between 25 and 50 MB
 *     may reach DRAM more than predicted.
 *   - CTA placement: cache.h's enum cc_cache_dispatch; the records of a CTA go to its
 *     SM's L1. The emulator runs CTAs one after another: on the GPU about SMs x resident
 *     CTAs run at once, so L2 sees other interleavings; reuse within a CTA and footprints
 *     that fit in L2 are not affected by the order, reuse across CTAs at distances near
 *     the L2's size may be.
 *   - Local memory: each warp's local area lies at its own address, one per SM and
 *     residency slot (the slot is reused by the SM's later CTAs, as local memory is
 *     allocated per resident thread, not per CTA). */
#include "cache/cache.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

#define EMPTY_TAG UINT64_MAX
#define FULL_SECTOR 0xffffffffu
#define MAX_ENTS 64            /* lines one record can touch: 32 lanes x 2 lines */
#define LOCAL_BASE 0xc000000000000000ull
#define LOCAL_REGION_SHIFT 32  /* bytes per warp local area: 4 GiB apart */
#define MAX_WARPS_PER_SM 64

/* One cache level's arrays (for L1: one SM's share of the common arrays). */
struct level {
  uint32_t sets, ways;
  enum cc_cache_index index;
  uint64_t *tag;               /* [sets * ways]: line number, EMPTY_TAG */
  uint64_t *stamp;             /* last use (LRU); 0 for empty ways */
  uint8_t *valid;              /* sectors holding data, bit s = sector s of the line */
  uint8_t *dirty;              /* L2 only: sectors written and not yet in DRAM */
  uint32_t (*bytes)[4];        /* L2 only: bytes written of sectors not valid (bit b) */
  uint32_t (*writer)[4];       /* L2 only: slot of the instruction that last wrote it */
  uint64_t clock;
};

struct cc_cache {
  struct cc_cache_device dev;
  uint32_t l1_cap_lines;       /* per SM, allocated */
  struct level *l1;            /* [dev.sms] */
  uint64_t *l1_tag, *l1_stamp;
  uint8_t *l1_valid;
  struct level l2;
  /* the kernel */
  uint32_t grid[3];
  uint64_t ctas, per_sm_blocked;
  uint32_t warps_per_cta, resident, l1_bytes;
  uint32_t n_insns;
  struct cc_cache_counts *insn;
  struct cc_cache_counts zero;
  uint64_t *sm_wavefronts;
  double *sm_latency;
  uint64_t flushed;
};

/* A line a record touches: the sectors, and for stores the bytes written per sector. */
struct ent {
  uint64_t line;
  uint32_t bytes[4];
  uint8_t mask;
};

struct gather {
  struct ent e[MAX_ENTS];
  uint32_t n;
  uint64_t max_line;
  uint32_t sectors;
};

static void level_alloc(struct level *lv, size_t lines, int l2)
{
  lv->tag = cc_xmalloc(lines * sizeof *lv->tag);
  lv->stamp = cc_xmalloc(lines * sizeof *lv->stamp);
  lv->valid = cc_xmalloc(lines);
  if (l2) {
    lv->dirty = cc_xmalloc(lines);
    lv->bytes = cc_xmalloc(lines * sizeof *lv->bytes);
    lv->writer = cc_xmalloc(lines * sizeof *lv->writer);
  }
}

/* Empties the first `lines` ways of lv. */
static void level_clear(struct level *lv, size_t lines)
{
  memset(lv->tag, 0xff, lines * sizeof *lv->tag);
  memset(lv->stamp, 0, lines * sizeof *lv->stamp);
  memset(lv->valid, 0, lines);
  if (lv->dirty) {
    memset(lv->dirty, 0, lines);
    memset(lv->bytes, 0, lines * sizeof *lv->bytes);
  }
  lv->clock = 0;
}

struct cc_cache *cc_cache_new(const struct cc_cache_device *d)
{
  struct cc_cache *c = cc_xcalloc(1, sizeof *c);
  uint32_t max_l1 = d->l1_bytes_override ? d->l1_bytes_override : d->l1_unified_bytes;
  size_t l2_lines;
  c->dev = *d;
  c->l1_cap_lines = max_l1 / CC_CACHE_LINE_BYTES ? max_l1 / CC_CACHE_LINE_BYTES : 1;
  c->l1 = cc_xcalloc(d->sms, sizeof *c->l1);
  c->l1_tag = cc_xmalloc((size_t)d->sms * c->l1_cap_lines * sizeof *c->l1_tag);
  c->l1_stamp = cc_xmalloc((size_t)d->sms * c->l1_cap_lines * sizeof *c->l1_stamp);
  c->l1_valid = cc_xmalloc((size_t)d->sms * c->l1_cap_lines);
  for (uint32_t s = 0; s < d->sms; s++) {
    c->l1[s].tag = c->l1_tag + (size_t)s * c->l1_cap_lines;
    c->l1[s].stamp = c->l1_stamp + (size_t)s * c->l1_cap_lines;
    c->l1[s].valid = c->l1_valid + (size_t)s * c->l1_cap_lines;
    c->l1[s].index = d->index;
  }
  l2_lines = (size_t)(d->l2_bytes / CC_CACHE_LINE_BYTES);
  c->l2.ways = d->l2_ways;
  c->l2.sets = (uint32_t)(l2_lines / d->l2_ways);
  c->l2.index = d->index;
  level_alloc(&c->l2, (size_t)c->l2.sets * c->l2.ways, 1);
  c->sm_wavefronts = cc_xcalloc(d->sms, sizeof *c->sm_wavefronts);
  c->sm_latency = cc_xcalloc(d->sms, sizeof *c->sm_latency);
  return c;
}

void cc_cache_free(struct cc_cache *c)
{
  if (!c)
    return;
  free(c->l1);
  free(c->l1_tag);
  free(c->l1_stamp);
  free(c->l1_valid);
  free(c->l2.tag);
  free(c->l2.stamp);
  free(c->l2.valid);
  free(c->l2.dirty);
  free(c->l2.bytes);
  free(c->l2.writer);
  free(c->insn);
  free(c->sm_wavefronts);
  free(c->sm_latency);
  free(c);
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
    c->l1[s].ways = c->dev.l1_ways;
    c->l1[s].sets = lines / c->dev.l1_ways;
  }
  memset(c->l1_tag, 0xff, (size_t)c->dev.sms * c->l1_cap_lines * sizeof *c->l1_tag);
  memset(c->l1_stamp, 0, (size_t)c->dev.sms * c->l1_cap_lines * sizeof *c->l1_stamp);
  memset(c->l1_valid, 0, (size_t)c->dev.sms * c->l1_cap_lines);
  for (uint32_t s = 0; s < c->dev.sms; s++)
    c->l1[s].clock = 0;
  level_clear(&c->l2, (size_t)c->l2.sets * c->l2.ways);
  free(c->insn);
  c->n_insns = n_insns;
  c->insn = cc_xcalloc(n_insns ? n_insns : 1, sizeof *c->insn);
  memset(c->sm_wavefronts, 0, c->dev.sms * sizeof *c->sm_wavefronts);
  memset(c->sm_latency, 0, c->dev.sms * sizeof *c->sm_latency);
  c->flushed = 0;
}

/* ---- placement ------------------------------------------------------------------------ */

static uint64_t cta_linear(const struct cc_cache *c, const uint32_t cta[3])
{
  return cta[0] + (uint64_t)c->grid[0] * (cta[1] + (uint64_t)c->grid[1] * cta[2]);
}

static uint32_t sm_of(const struct cc_cache *c, uint64_t cta)
{
  if (c->dev.dispatch == CC_CACHE_DISPATCH_BLOCKED)
    return (uint32_t)(cta / c->per_sm_blocked % c->dev.sms);
  return (uint32_t)(cta % c->dev.sms);
}

/* The k-th CTA an SM receives (0, 1, ...): the order its CTAs arrive in. */
static uint64_t nth_on_sm(const struct cc_cache *c, uint64_t cta)
{
  return c->dev.dispatch == CC_CACHE_DISPATCH_BLOCKED ? cta % c->per_sm_blocked
                                                      : cta / c->dev.sms;
}

/* The address of a warp's local area: one per SM and residency slot. */
static uint64_t local_base(const struct cc_cache *c, uint64_t cta, uint32_t sm, uint32_t warp)
{
  uint64_t slot = nth_on_sm(c, cta) % c->resident * c->warps_per_cta + warp;
  uint64_t region = (uint64_t)sm * MAX_WARPS_PER_SM * 32 + slot;
  return LOCAL_BASE + (region << LOCAL_REGION_SHIFT);
}

/* ---- the arrays ------------------------------------------------------------------------- */

static uint32_t set_of(const struct level *lv, uint64_t line)
{
  if (lv->index == CC_CACHE_INDEX_MOD)
    return (uint32_t)(line % lv->sets);
  /* Fibonacci hashing: the top 32 bits of line x 2^64/phi, scaled to [0, sets) */
  return (uint32_t)(((line * 0x9e3779b97f4a7c15ull) >> 32) * lv->sets >> 32);
}

/* The way of lv holding line (an index into its arrays), or the victim to replace (the
 * least recently used, an empty way first) with *hit 0. */
static size_t lookup(const struct level *lv, uint64_t line, int *hit)
{
  size_t base = (size_t)set_of(lv, line) * lv->ways, victim = base;
  for (size_t w = base; w < base + lv->ways; w++) {
    if (lv->tag[w] == line) {
      *hit = 1;
      return w;
    }
    if (lv->stamp[w] < lv->stamp[victim])
      victim = w;
  }
  *hit = 0;
  return victim;
}

/* ---- one record ------------------------------------------------------------------------ */

static void add_sector(struct gather *g, uint64_t sector, uint32_t bytes)
{
  uint64_t line = sector / 4;
  uint32_t s = (uint32_t)(sector % 4);
  struct ent *e = NULL;
  if (g->n && g->e[g->n - 1].line == line) {
    e = &g->e[g->n - 1];
  } else if (g->n == 0 || line > g->max_line) {
    g->max_line = line;
  } else {
    for (uint32_t i = g->n; i-- > 0;)
      if (g->e[i].line == line) {
        e = &g->e[i];
        break;
      }
  }
  if (!e) {
    e = &g->e[g->n++];
    memset(e, 0, sizeof *e);
    e->line = line;
  }
  if (!(e->mask & (1u << s)))
    g->sectors++;
  e->mask |= (uint8_t)(1u << s);
  e->bytes[s] |= bytes;
}

/* The lines and sectors of a's active lanes (addresses + base); for stores the bytes. */
static void gather(const struct cc_warp_access *a, uint64_t base, struct gather *g)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  g->n = 0;
  g->sectors = 0;
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint64_t addr = a->addr[__builtin_ctz(m)] + base, end = addr + size;
    while (addr < end) { /* one piece per sector the lane's bytes reach */
      uint64_t sector = addr / CC_CACHE_SECTOR_BYTES;
      uint64_t stop = (sector + 1) * CC_CACHE_SECTOR_BYTES;
      uint32_t off = (uint32_t)(addr % CC_CACHE_SECTOR_BYTES);
      uint32_t len = (uint32_t)((end < stop ? end : stop) - addr);
      uint32_t bytes = len >= 32 ? FULL_SECTOR : ((1u << len) - 1u) << off;
      add_sector(g, sector, bytes);
      addr += len;
    }
  }
}

static uint32_t popc4(uint8_t m)
{
  return (uint32_t)__builtin_popcount(m);
}

/* Writes way w's dirty sectors of c's L2 to DRAM (charged to their writers); returns the
 * bytes written. */
static uint64_t write_back(struct cc_cache *c, size_t w)
{
  struct level *l2 = &c->l2;
  uint64_t bytes = 0;
  for (uint32_t s = 0; s < 4; s++) {
    if (!(l2->dirty[w] & (1u << s)))
      continue;
    uint32_t slot = l2->writer[w][s];
    if (slot < c->n_insns)
      c->insn[slot].dram_bytes_written += CC_CACHE_SECTOR_BYTES;
    bytes += CC_CACHE_SECTOR_BYTES;
  }
  l2->dirty[w] = 0;
  return bytes;
}

/* The L2 way holding line, allocated (the victim written back) when absent. */
static size_t l2_line(struct cc_cache *c, uint64_t line)
{
  struct level *l2 = &c->l2;
  int hit;
  size_t w = lookup(l2, line, &hit);
  if (!hit) {
    write_back(c, w);
    l2->tag[w] = line;
    l2->valid[w] = 0;
    memset(l2->bytes[w], 0, sizeof l2->bytes[w]);
  }
  l2->stamp[w] = ++l2->clock;
  return w;
}

/* Reads sectors `mask` of line into L2 for instruction ic (fetching from DRAM the ones
 * not valid); returns 1 if DRAM was read. */
static int l2_read(struct cc_cache *c, uint64_t line, uint8_t mask, struct cc_cache_counts *ic)
{
  size_t w = l2_line(c, line);
  uint8_t missing = mask & (uint8_t)~c->l2.valid[w];
  ic->l2_hit_sectors += popc4(mask & c->l2.valid[w]);
  ic->dram_bytes_read += (uint64_t)popc4(missing) * CC_CACHE_SECTOR_BYTES;
  c->l2.valid[w] |= missing;
  for (uint32_t s = 0; s < 4; s++)
    if (missing & (1u << s))
      c->l2.bytes[w][s] = 0;
  return missing != 0;
}

/* Stores the bytes of e into L2 (write-allocate, no fetch) for instruction slot; returns
 * the sectors that were valid before (hits). */
static uint32_t l2_write(struct cc_cache *c, const struct ent *e, uint32_t slot)
{
  size_t w = l2_line(c, e->line);
  struct level *l2 = &c->l2;
  uint32_t hits = popc4(e->mask & l2->valid[w]);
  for (uint32_t s = 0; s < 4; s++) {
    if (!(e->mask & (1u << s)))
      continue;
    l2->dirty[w] |= (uint8_t)(1u << s);
    l2->writer[w][s] = slot;
    if (!(l2->valid[w] & (1u << s))) {
      l2->bytes[w][s] |= e->bytes[s];
      if (l2->bytes[w][s] == FULL_SECTOR) {
        l2->valid[w] |= (uint8_t)(1u << s);
        l2->bytes[w][s] = 0;
      }
    }
  }
  return hits;
}

/* Looks line up in L1 lv for sectors `mask`: returns the sectors to fetch from L2 (none
 * when all hit), counting hits in *hits; allocates the line when alloc, else only
 * reports (a store's L1 lookup: hits are updated in place). whole: fetch every sector of
 * the line on a miss. */
static uint8_t l1_lookup(struct level *lv, uint64_t line, uint8_t mask, int alloc, int whole,
                         uint32_t *hits)
{
  int hit;
  size_t w = lookup(lv, line, &hit);
  uint8_t have = hit ? lv->valid[w] : 0, fetch;
  *hits = popc4(mask & have);
  if (!hit && !alloc)
    return mask;
  fetch = mask & (uint8_t)~have;
  if (fetch && whole)
    fetch = (uint8_t)(0xfu & ~have);
  if (!hit) {
    lv->tag[w] = line;
    lv->valid[w] = 0;
  }
  if (alloc)
    lv->valid[w] |= fetch;
  lv->stamp[w] = ++lv->clock;
  return alloc ? fetch : mask;
}

enum level_reached { REACH_L1, REACH_L2, REACH_DRAM };

void cc_cache_access(struct cc_cache *c, const struct cc_warp_access *a,
                     uint32_t shared_wavefronts)
{
  struct gather g;
  struct cc_cache_counts *ic;
  uint64_t cta;
  uint32_t sm, wavefronts;
  enum level_reached reach = REACH_L1;
  int load, store, l1_alloc, waits;
  if (a->insn_slot >= c->n_insns || a->active == 0)
    return;
  ic = &c->insn[a->insn_slot];
  cta = cta_linear(c, a->cta);
  sm = sm_of(c, cta);
  if (a->space == CC_SPACE_SHARED) {
    ic->l1_wavefronts += shared_wavefronts;
    c->sm_wavefronts[sm] += shared_wavefronts;
    if (a->kind == CC_ACCESS_LOAD) {
      ic->waits_l1++;
      ic->latency_ns += c->dev.lat_l1_ns;
      c->sm_latency[sm] += c->dev.lat_l1_ns;
    }
    return;
  }
  gather(a, a->space == CC_SPACE_LOCAL ? local_base(c, cta, sm, a->warp) : 0, &g);
  wavefronts = (g.sectors + 3) / 4;
  ic->l1_wavefronts += wavefronts;
  c->sm_wavefronts[sm] += wavefronts;
  load = a->kind == CC_ACCESS_LOAD;
  store = a->kind == CC_ACCESS_STORE;
  waits = !store;
  l1_alloc = a->space == CC_SPACE_LOCAL || c->dev.l1_global_loads;
  for (uint32_t i = 0; i < g.n; i++) {
    const struct ent *e = &g.e[i];
    uint32_t hits = 0;
    if (load) {
      uint8_t fetch = l1_alloc ? l1_lookup(&c->l1[sm], e->line, e->mask, 1,
                                           c->dev.l1_whole_lines, &hits)
                               : e->mask;
      ic->l1_hit_sectors += hits;
      if (!fetch)
        continue;
      ic->l2_sectors_read += popc4(fetch);
      reach = reach < REACH_L2 ? REACH_L2 : reach;
      if (l2_read(c, e->line, fetch, ic))
        reach = REACH_DRAM;
    } else if (store) {
      /* write-through: L1 keeps (updates) a line it has, or allocates for local memory */
      l1_lookup(&c->l1[sm], e->line, e->mask, a->space == CC_SPACE_LOCAL, 0, &hits);
      ic->l2_sectors_write += popc4(e->mask);
      ic->l2_hit_sectors += l2_write(c, e, a->insn_slot);
    } else { /* atomic, reduction: read-modify-write in L2 */
      ic->l2_sectors_atomic += popc4(e->mask);
      reach = reach < REACH_L2 ? REACH_L2 : reach;
      if (l2_read(c, e->line, e->mask, ic))
        reach = REACH_DRAM;
      l2_write(c, e, a->insn_slot);
    }
  }
  if (waits) {
    double lat = reach == REACH_DRAM ? c->dev.lat_dram_ns
                 : reach == REACH_L2 ? c->dev.lat_l2_ns : c->dev.lat_l1_ns;
    ic->waits_l1 += reach == REACH_L1;
    ic->waits_l2 += reach == REACH_L2;
    ic->waits_dram += reach == REACH_DRAM;
    ic->latency_ns += lat;
    c->sm_latency[sm] += lat;
  }
}

void cc_cache_end_kernel(struct cc_cache *c)
{
  size_t lines = (size_t)c->l2.sets * c->l2.ways;
  for (size_t w = 0; w < lines; w++)
    if (c->l2.dirty[w])
      c->flushed += write_back(c, w);
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
  out->dram_bytes_flushed = c->flushed;
  out->l1_bytes = c->l1_bytes;
  out->resident_ctas = c->resident;
  for (uint32_t s = 0; s < c->dev.sms; s++) {
    uint64_t n = ctas_on_sm(c, s), at_once = n < c->resident ? n : c->resident;
    double warps = (double)(at_once * c->warps_per_cta);
    if (n == 0)
      continue;
    out->sms_used++;
    if (c->sm_wavefronts[s] > out->l1_wavefronts_max_sm)
      out->l1_wavefronts_max_sm = c->sm_wavefronts[s];
    if (warps > 0 && c->sm_latency[s] / warps > out->latency_ns_max_sm)
      out->latency_ns_max_sm = c->sm_latency[s] / warps;
  }
}
