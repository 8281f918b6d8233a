/* Records the producer's workers count themselves (cache.h, cc_cache_drops), and the
 * records they cut to their sampled lanes.
 *
 * Why it gives the serial figures. cc_cache_access changes no cache state for two kinds
 * of record: shared ones (their wavefronts and their L1 wait are counted at once), and,
 * once set sampling has started (sample.c), global and local ones that touch no sampled
 * line: the sampled records' paths (quick.c: the quick path, cc_cache_sample_slow) then
 * only count the record's whole-record figures (sample_whole: wavefronts, the sectors
 * stores, atomics and uncached loads send to L2) and, for loads and atomics, one request
 * after the switch (quick_unseen: count_wait's REACH_UNSEEN). Neither memo
 * can take such a record first: a memo is set only by a record that touched a sampled
 * line and holds that record's lines, and a record with the same key has the same lines.
 * So a worker that counts these records into its own arrays, which are added to the
 * model's before the kernel ends, leaves every figure as the serial replay makes it (the
 * counts are integer sums), and the model's one thread sees only the records that change
 * its state. Which records of a CTA come after the switch is known only in the serial
 * order: the model publishes the CTA after the one it switched in (sample.c), and a
 * worker counts a record only when its CTA is at or past it; one it reads too early is
 * sent on, and the model counts it itself, unless the worker, still holding it when the
 * switch is published, decides it again (cc_cache_drop_may_cut; src/emu/par.c recut:
 * the decision it would have made knowing the switch). The parallel replay (par.c) is
 * served the same way: its threads' counts are sums too, and its L1 sides replay what
 * reaches them (cut records included: cc_cache_replay_record) in each SM's order.
 *
 * Cut records. A global record of such a CTA that touches a sampled line splits in two
 * parts for the serial replay: its whole-record counts and its request after the switch,
 * which depend on the record alone (a worker counts them as above), and its sampled
 * lines' replay. The worker sends on a copy of the record with only the lanes whose
 * bytes touch a sampled line active, marked cut; cc_cache_access replays it without
 * counting anything whole-record again (cache.c cut_record, tested before the quick
 * path's way in: the quick path counts whole records only). Its sampled lines are the
 * record's: every lane touching a sampled line stays, so each sampled line gets the same
 * sectors and bytes; the lines of the other lanes it keeps (a lane across two lines) are
 * filtered out as before. The replay of the sampled lines alone, in the stream's order,
 * is the replay of those sets (sample.c; tests/cache/test_set_sample.c checks the sampled
 * replay against a sample=1 replay of the stream cut to the sampled lanes), so the sets'
 * state, their raw counts and the level the request reached (its sampled wait) are the
 * whole record's. The memos are exact shortcuts keyed by a record's fast form, which a
 * cut record of fewer than 32 lanes has not (cc_cache_form_of: the general form): it
 * takes the exact path, and the L1 memo still serves it where its lines equal the memo's
 * (replay's memo_covers); the L1 memo it sets has no key, the store memo it is not kept
 * in, so a later whole record of the same form takes the exact path too (the memos'
 * results equal it: tests/cache/test_cache.c test_l1_memo, test_store_memo). A cut of
 * all 32 lanes keeps the record's form and its memos (quick.c cc_cache_sample_cut: the
 * general way's memos and replay, without the whole-record counts). tests/cache/test_cut.c checks cut
 * records against the whole ones, tests/e2e/cache_drop.sh the reports. */
#include "cache/cache_impl.h"

#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Repeated stores. A kernel that sums into global memory in a loop (PolyBench's
 * covariance, atax, gemv by rows: nvcc stores the sum at every step, not knowing that no
 * other pointer reads it) sends the model the same cut store again and again, with loads
 * between them, often from several instructions in turn (the loop unrolled). A store
 * held back (d->held) stands for the chain of identical cut stores (the same lanes,
 * addresses and CTA, from up to FOLD_SLOTS instructions) that follow it while no record
 * sent on in between touches one of its lines' L2 sets; the chain goes on as one record
 * per instruction, each counting its stores in its cut field, the chain's first store
 * first and its last one's instruction last (emit_chain). Why that gives the serial
 * figures:
 *   - a global store changes only L2 (cache.c: write-through, no L1 allocation, no
 *     request, no wait), within its lines' sets; a record that touches none of those
 *     sets commutes with it (LRU, the write policy and the DRAM counts are per set; the
 *     stamps' order within each set is the same either way), so the chain may go on
 *     after such records, at the latest at the end of the worker's run of consecutive
 *     CTAs (cc_cache_drops_release), since the next CTAs' records come from elsewhere;
 *   - with its lines in distinct sets (held only then: a line of its own evicted or
 *     written back by the write policy within its replay would make a repeat change
 *     state), the first store leaves each line resident, dirty with its sectors and
 *     bytes, the most recently used of its set; an identical store finds them so while
 *     nothing touched those sets, and changes nothing but the sectors' writer (its
 *     instruction, charged for their DRAM write-back: the chain's last one) and its own
 *     L2 hit sectors, the same for every repeat, which the model adds (cache.c
 *     repeat_hits). So a chain's stores may be replayed grouped by instruction, the
 *     first store first and the last store's instruction last.
 * Records sent on whole (before the switch, local ones) release the chain first: they
 * are not checked.
 * Holding is an economy, not a rule (a store sent on at once gives the same figures), and
 * it has a cost: a held store's sets are found and every cut record after it is checked
 * against them (the naive transpose's column stores, which never repeat: a third of the
 * worker's decisions). So an instruction whose last HOLD_GIVE_UP chains ended with no
 * repeat has only one store in HOLD_RETRY held, until a chain of it repeats again
 * (should_hold). */
#define HELD_SETS (2 * CC_WARP_SIZE) /* a lane's bytes touch two lines at most */
#define HELD_MAX (1u << 30)          /* stores in a chain (cut's range) */
#define HOLD_GIVE_UP 64u           /* chains of one store in a row: an instruction's holds
                                      become rare (should_hold) */
#define HOLD_RETRY 64u             /* then one of its stores in HOLD_RETRY is held */
#define FOLD_SLOTS (CC_CACHE_DROP_OUT - 2) /* instructions in a chain: its records, plus
                                      the first slot's again, plus the record decided */

struct cc_cache_drops {
  uint32_t n_insns, sms;
  struct cc_cache_counts *insn; /* [n_insns]: whole-record counts, shared loads' waits */
  uint64_t *req_after;          /* [n_insns]: load and atomic requests after the switch */
  uint64_t *sm;                 /* [sms][3]: wavefronts, requests after the switch, shared
                                   loads (waits on L1) */
  uint64_t records;             /* global and local records counted here */
  struct level l2;              /* the model's L2 shape (set_of only: a copy, so that
                                   the workers read no line the model writes) */
  struct cc_warp_access cut;    /* the last cut record (cc_cache_drop's result) */
  /* the chain held back, while holding: its first store, its stores by instruction
   * (slot[0] the first's), the last one's, their total */
  struct cc_warp_access held;
  uint32_t holding, n_slots, last, total;
  uint32_t slot[FOLD_SLOTS], count[FOLD_SLOTS];
  uint32_t n_sets;              /* the held store's sampled lines and their L2 sets */
  uint64_t lines[HELD_SETS];
  uint32_t sets[HELD_SETS];
  uint64_t set_bits;            /* bit set % 64 of each: most records miss it */
  uint32_t *unrepeated;         /* [n_insns]: its chains in a row that ended with one store
                                   (at most HOLD_GIVE_UP), then its stores not held since */
  uint32_t last_cta[3];         /* the last global or shared record's CTA, where it runs: a */
  uint64_t last_linear;         /* worker's records come a CTA at a time, so that */
  uint32_t last_sm;             /* cc_cache_locate runs once a CTA (locate) */
  int have_last;
  struct lanes_memo lanes_memo; /* the last column's sampled lanes (sample_lanes) */
  struct cc_warp_access emit[FOLD_SLOTS + 1]; /* the chain released last, by instruction */
};

struct cc_cache_drops *cc_cache_drops_new(const struct cc_cache *c)
{
  struct cc_cache_drops *d = cc_xcalloc(1, sizeof *d);
  d->n_insns = c->n_insns;
  d->sms = c->dev.sms;
  d->insn = cc_xcalloc(d->n_insns ? d->n_insns : 1, sizeof *d->insn);
  d->req_after = cc_xcalloc(d->n_insns ? d->n_insns : 1, sizeof *d->req_after);
  d->sm = cc_xcalloc((size_t)d->sms * 3, sizeof *d->sm);
  d->unrepeated = cc_xcalloc(d->n_insns ? d->n_insns : 1, sizeof *d->unrepeated);
  d->l2 = c->l2;
  return d;
}

void cc_cache_drops_free(struct cc_cache_drops *d)
{
  if (!d)
    return;
  free(d->insn);
  free(d->req_after);
  free(d->sm);
  free(d->unrepeated);
  free(d);
}

/* *dst = *src as a cut record's consumers read it: every field but the addresses, and the
 * addresses of lanes `lanes` (src's active ones, or the cut's). The others are never
 * read: the model takes a cut record's active lanes only (cache.c cut_record), the
 * emulator's entries too (src/emu/par.c). Why not the struct: 304 bytes, three times a
 * cut store (held, emitted), where its 1-4 lanes are 8 bytes each. */
static inline __attribute__((always_inline)) void copy_lanes(struct cc_warp_access *dst,
                                                           const struct cc_warp_access *src,
                                                           uint32_t lanes)
{
  if (lanes == UINT32_MAX) {
    *dst = *src;
    return;
  }
  memcpy(dst, src, offsetof(struct cc_warp_access, addr));
  if (lanes) {
    uint32_t first = (uint32_t)__builtin_ctz(lanes);
    uint64_t run = ((uint64_t)lanes >> first) + 1; /* a power of two iff one run of lanes */
    if (!(run & (run - 1))) { /* a range's cut: its lanes at once */
      memcpy(&dst->addr[first], &src->addr[first],
             (size_t)__builtin_ctzll(run) * sizeof dst->addr[0]);
      return;
    }
  }
  for (uint32_t m = lanes; m; m &= m - 1)
    dst->addr[__builtin_ctz(m)] = src->addr[__builtin_ctz(m)];
}

/* A shared record: what cc_cache_access counts for it (nothing is left for it). */
static const struct cc_warp_access *drop_shared(const struct cc_warp_access *a, uint32_t sm,
                                                uint32_t wavefronts, struct cc_cache_drops *d)
{
  d->insn[a->insn_slot].l1_wavefronts += wavefronts;
  d->sm[3 * (size_t)sm] += wavefronts;
  if (a->kind == CC_ACCESS_LOAD) {
    d->insn[a->insn_slot].waits_l1++;
    d->sm[3 * (size_t)sm + 2]++;
  }
  return NULL;
}

/* The active lanes of global or local record a (local base `base`) whose bytes touch a
 * sampled line (two lines at most: a lane's bytes are fewer than a line's). */
static uint32_t sampled_lanes_of(const struct cc_cache *c, const struct cc_warp_access *a,
                                 uint64_t base)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, out = 0;
  for (uint32_t m = a->active; m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctz(m);
    uint64_t lo = a->addr[l] + base, hi = lo + size - 1; /* past 2^64: at 0, as gather */
    uint64_t first = lo / CC_CACHE_LINE_BYTES, last = hi / CC_CACHE_LINE_BYTES;
    if (sampled_line(c, first) || (last != first && sampled_line(c, last)))
      out |= 1u << l;
  }
  return out;
}

/* sampled_lanes_of for range record a (form k: all 32 lanes, lane l's bytes at lo + l x
 * size, or all at lo, no wrap; cc_cache_form_of) touching a sampled line: per sampled
 * line of the range, the run of lanes whose bytes meet it, not a class a lane (the
 * range's lines: 1 to 5). */
static uint32_t range_sampled_lanes(const struct cc_cache *c, const struct cc_warp_access *a,
                                    uint64_t base, struct form_key k)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1, out = 0;
  uint64_t lo = a->addr[0] + base, last = lo + CC_WARP_SIZE * (uint64_t)size - 1;
  if (a->addr[1] == a->addr[0]) /* a broadcast: its sampled line is every lane's */
    return UINT32_MAX;
  for (uint64_t line = k.a / 4; line <= k.b / 4; line++) {
    uint64_t from = line * CC_CACHE_LINE_BYTES, to = from + CC_CACHE_LINE_BYTES - 1;
    uint32_t l0, l1;
    if (!sampled_line(c, line))
      continue;
    l0 = (uint32_t)(((from > lo ? from : lo) - lo) / size);
    l1 = (uint32_t)(((to < last ? to : last) - lo) / size);
    out |= (l1 >= 31 ? UINT32_MAX : (2u << l1) - 1u) & ~((1u << l0) - 1u);
  }
  return out;
}

/* While sampling, global or local record a (form key): its sectors (*sectors) and its
 * lanes that touch a sampled line (0: none); m: the worker's lanes memo (sample_lanes). */
static uint32_t sampled_lanes(const struct cc_cache *c, struct lanes_memo *m,
                              const struct cc_warp_access *a, uint64_t base,
                              struct form_key key, uint32_t *sectors)
{
  uint32_t lanes = 0;
  int any;
  if (key.form == FORM_LANES || key.form == FORM_STRIDED) /* a line a lane */
    return sample_touches(c, m, key, sectors, &lanes) ? lanes : 0;
  if (key.form == FORM_RANGE)
    return sample_touches(c, m, key, sectors, &lanes) ? range_sampled_lanes(c, a, base, key) : 0;
  if ((any = cc_cache_sample_general(c, a, base, sectors)) < 0) {
    /* lanes out of address order: their sectors counted apart */
    *sectors = cc_cache_gather_general_sampled(c, a, base, NULL);
    any = 1;
  }
  return any ? sampled_lanes_of(c, a, base) : 0;
}

/* Calls f(line, arg) for each sampled line that global or local record a's active lanes
 * touch (base: its local base), in lane order (a line may come twice, not for two lanes
 * in a row: a range's 32 lanes in one line are one call, not 32, and f's answer for a
 * line does not change between calls); stops at the first nonzero result and returns it. */
static int each_sampled_line(const struct cc_cache *c, const struct cc_warp_access *a,
                             uint64_t base, int (*f)(uint64_t line, void *arg), void *arg)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t seen = UINT64_MAX; /* the line of the previous lane's last byte */
  int rc = 0;
  for (uint32_t m = a->active; m && !rc; m &= m - 1) {
    uint64_t lo = a->addr[__builtin_ctz(m)] + base, hi = lo + size - 1;
    uint64_t first = lo / CC_CACHE_LINE_BYTES, last = hi / CC_CACHE_LINE_BYTES;
    if (first != seen && sampled_line(c, first))
      rc = f(first, arg);
    if (!rc && last != first && sampled_line(c, last))
      rc = f(last, arg);
    seen = last;
  }
  return rc;
}

/* each_sampled_line of a cut of a range record (cut_on's run: its active lanes are lanes of
 * one run of bytes, each a lane's size after the one before, and every lane of the run
 * that touches a sampled line is active): the sampled lines from its first active lane's
 * to its last one's, each once, in order: the lines between them that no active lane
 * touches are not sampled. A few lines, not a lane at a time (a cut row's 16-31 lanes). */
static int each_sampled_line_of_run(const struct cc_cache *c, const struct cc_warp_access *a,
                                    uint64_t base, int (*f)(uint64_t line, void *arg),
                                    void *arg)
{
  uint32_t size = a->size_bytes ? a->size_bytes : 1;
  uint64_t lo = a->addr[__builtin_ctz(a->active)] + base;
  uint64_t hi = a->addr[31 - __builtin_clz(a->active)] + base + size - 1;
  int rc = 0;
  for (uint64_t line = lo / CC_CACHE_LINE_BYTES; line <= hi / CC_CACHE_LINE_BYTES && !rc; line++)
    if (sampled_line(c, line))
      rc = f(line, arg);
  return rc;
}

/* each_sampled_line's f: adds line and its set to d's held ones unless the line is
 * there; 1 (stop) when another line of the store has its set (not a store to hold: the
 * comment above). */
static int add_held_set(uint64_t line, void *arg)
{
  struct cc_cache_drops *d = arg;
  uint32_t set = set_of(&d->l2, line);
  for (uint32_t i = 0; i < d->n_sets; i++)
    if (d->sets[i] == set)
      return d->lines[i] != line;
  assert(d->n_sets < HELD_SETS);
  d->lines[d->n_sets] = line;
  d->sets[d->n_sets++] = set;
  d->set_bits |= 1ull << (set % 64);
  return 0;
}

/* each_sampled_line's f: 1 when line's set is one of the held store's. */
static int hits_held_set(uint64_t line, void *arg)
{
  const struct cc_cache_drops *d = arg;
  uint32_t set = set_of(&d->l2, line);
  if (!(d->set_bits & (1ull << (set % 64))))
    return 0;
  for (uint32_t i = 0; i < d->n_sets; i++)
    if (d->sets[i] == set)
      return 1;
  return 0;
}

/* Whether cut global stores a and b store the same bytes (the same lanes, addresses and
 * CTA; their instructions may differ). */
static int same_store(const struct cc_warp_access *a, const struct cc_warp_access *b)
{
  uint64_t differ = 0;
  if (a->active != b->active || a->size_bytes != b->size_bytes ||
      memcmp(a->cta, b->cta, sizeof a->cta) != 0)
    return 0;
  for (uint32_t m = a->active; m; m &= m - 1)
    differ |= a->addr[__builtin_ctz(m)] ^ b->addr[__builtin_ctz(m)];
  return differ == 0;
}

/* Holds cut global store d->held, a chain of one, if its sampled lines lie in distinct
 * sets; returns whether it does. */
static int hold(const struct cc_cache *c, struct cc_cache_drops *d)
{
  d->n_sets = 0;
  d->set_bits = 0;
  d->holding = each_sampled_line(c, &d->held, 0, add_held_set, d) == 0;
  d->n_slots = 1;
  d->slot[0] = d->last = d->held.insn_slot;
  d->count[0] = d->total = 1;
  return d->holding;
}

/* Whether to hold a cut store of instruction slot (its chains' record in d->unrepeated:
 * every store while its chains repeat, one in HOLD_RETRY after HOLD_GIVE_UP chains in a
 * row of one store). */
static int should_hold(struct cc_cache_drops *d, uint32_t slot)
{
  uint32_t *u = &d->unrepeated[slot];
  if (*u < HOLD_GIVE_UP)
    return 1;
  if (++*u < HOLD_GIVE_UP + HOLD_RETRY)
    return 0;
  *u = HOLD_GIVE_UP - 1; /* held now: a chain of one store gives up again */
  return 1;
}

/* Adds store a to the held chain if it is one of it (the same bytes, an instruction of
 * the chain's or room for one more); returns whether it did. */
static int fold(struct cc_cache_drops *d, const struct cc_warp_access *a)
{
  uint32_t i = 0;
  if (!d->holding || d->total >= HELD_MAX || !same_store(&d->held, a))
    return 0;
  while (i < d->n_slots && d->slot[i] != a->insn_slot)
    i++;
  if (i == FOLD_SLOTS)
    return 0;
  if (i == d->n_slots) {
    d->slot[d->n_slots] = a->insn_slot;
    d->count[d->n_slots++] = 0;
  }
  d->count[i]++;
  d->last = a->insn_slot;
  d->total++;
  return 1;
}

/* d->emit[n]: the held store as instruction slot's, standing for `stores` of them. */
static const struct cc_warp_access *emit(struct cc_cache_drops *d, uint32_t n, uint32_t slot,
                                         uint32_t stores)
{
  struct cc_warp_access *e = &d->emit[n];
  copy_lanes(e, &d->held, d->held.active);
  e->insn_slot = slot;
  e->cut = stores;
  return e;
}

/* The held chain into out, one record per instruction: the first store's first, then the
 * others', the last store's instruction last (the first's again, with its other stores,
 * when the last is the first's); returns their number (FOLD_SLOTS + 1 at most); d holds
 * nothing after. */
static __attribute__((noinline)) uint32_t emit_chain(struct cc_cache_drops *d,
                                                     const struct cc_warp_access **out)
{
  uint32_t n = 0, first = d->slot[0], rest = d->count[0] - 1;
  if (!d->holding)
    return 0;
  d->holding = 0;
  if (d->total > 1)
    d->unrepeated[first] = 0;
  else if (d->unrepeated[first] < HOLD_GIVE_UP)
    d->unrepeated[first]++;
  /* the first store, with its instruction's others unless that one stores last */
  out[n] = emit(d, n, first, first == d->last ? 1 : 1 + rest);
  n++;
  for (uint32_t i = 1; i < d->n_slots; i++)
    if (d->slot[i] != d->last) {
      out[n] = emit(d, n, d->slot[i], d->count[i]);
      n++;
    }
  if (first == d->last && rest > 0) {
    out[n] = emit(d, n, first, rest);
    n++;
  } else if (first != d->last) {
    for (uint32_t i = 1; i < d->n_slots; i++)
      if (d->slot[i] == d->last) {
        out[n] = emit(d, n, d->last, d->count[i]);
        n++;
      }
  }
  return n;
}

/* emit_chain where d holds a chain (the test inline: most decisions hold none). */
static inline uint32_t release_chain(struct cc_cache_drops *d,
                                     const struct cc_warp_access **out)
{
  return d->holding ? emit_chain(d, out) : 0;
}

uint32_t cc_cache_drops_release(struct cc_cache_drops *d,
                                const struct cc_warp_access *out[CC_CACHE_DROP_OUT])
{
  return emit_chain(d, out);
}

/* Puts what the model needs before record a, sent on whole, into out: the held chain
 * first, if any. */
static uint32_t whole(struct cc_cache_drops *d, const struct cc_warp_access *a,
                      const struct cc_warp_access *out[CC_CACHE_DROP_OUT])
{
  uint32_t n = release_chain(d, out);
  out[n++] = a;
  return n;
}

/* Cut record d->cut (local base `base`) goes on: into out after the held chain where it
 * must go first; a global store (store) folded into the chain, or held as a new one
 * (the comment above). run: d->cut is the cut of a range record (each_sampled_line_of_run
 * finds its lines). */
static uint32_t cut_on(const struct cc_cache *c, struct cc_cache_drops *d, int store, int run,
                       uint64_t base, const struct cc_warp_access *out[CC_CACHE_DROP_OUT])
{
  uint32_t n = 0;
  if (store) {
    if (fold(d, &d->cut))
      return 0;
    n = release_chain(d, out);
    if (!should_hold(d, d->cut.insn_slot)) {
      out[n++] = &d->cut;
      return n;
    }
    copy_lanes(&d->held, &d->cut, d->cut.active);
    if (!hold(c, d))
      out[n++] = &d->cut;
    return n;
  }
  if (d->holding && (run ? each_sampled_line_of_run(c, &d->cut, base, hits_held_set, d)
                         : each_sampled_line(c, &d->cut, base, hits_held_set, d)))
    n = emit_chain(d, out);
  out[n++] = &d->cut;
  return n;
}

/* cc_cache_locate of record a, the CTA's placement kept in d from its last global or
 * shared record (a worker's records come a CTA at a time; neither space has a base: the
 * tiled transpose's shared records, half its records, each placed anew cost its workers
 * 9% of their decisions). */
static void locate(const struct cc_cache *c, const struct cc_warp_access *a,
                   struct cc_cache_drops *d, uint32_t *sm, uint64_t *base, uint64_t *linear)
{
  if (a->space == CC_SPACE_LOCAL) { /* a local base depends on the warp too */
    cc_cache_locate(c, a, sm, base, linear);
    return;
  }
  if (!d->have_last || !same_cta3(a->cta, d->last_cta)) {
    cc_cache_locate(c, a, &d->last_sm, base, &d->last_linear);
    memcpy(d->last_cta, a->cta, sizeof d->last_cta);
    d->have_last = 1;
  }
  *sm = d->last_sm;
  *base = 0;
  *linear = d->last_linear;
}

uint32_t cc_cache_drop(const struct cc_cache *c, const struct cc_warp_access *a,
                       uint32_t shared_wavefronts, struct cc_cache_drops *d,
                       const struct cc_warp_access *out[CC_CACHE_DROP_OUT])
{
  uint64_t base, linear;
  uint32_t sm, sectors, lanes;
  struct form_key key;
  if (a->insn_slot >= d->n_insns || a->active == 0 ||
      a->size_bytes > CC_ACCESS_MAX_BYTES || a->cut)
    return whole(d, a, out); /* cc_cache_access decides (it ignores the next three; a cut
                                goes on) */
  locate(c, a, d, &sm, &base, &linear);
  if (a->space == CC_SPACE_SHARED) {
    drop_shared(a, sm, shared_wavefronts, d);
    return 0;
  }
  if (linear < __atomic_load_n(&c->drop_from, __ATOMIC_ACQUIRE))
    return whole(d, a, out);
  key = cc_cache_form_of(a, base);
  lanes = sampled_lanes(c, &d->lanes_memo, a, base, key, &sectors);
  /* the whole record's counts, as quick.c's paths' */
  d->sm[3 * (size_t)sm] += whole_counts(c, &d->insn[a->insn_slot], a, sectors);
  if (a->kind != CC_ACCESS_STORE) {
    d->req_after[a->insn_slot]++;
    d->sm[3 * (size_t)sm + 1]++;
  }
  d->records++;
  if (!lanes)
    return 0;
  copy_lanes(&d->cut, a, lanes); /* its sampled lanes' replay: for the model */
  d->cut.active = lanes;
  d->cut.cut = 1;
  return cut_on(c, d, a->kind == CC_ACCESS_STORE && a->space == CC_SPACE_GLOBAL,
                key.form == FORM_RANGE, base, out);
}

int cc_cache_drop_may_cut(const struct cc_cache *c, const struct cc_warp_access *a,
                          const struct cc_cache_drops *d)
{
  uint64_t base, linear;
  uint32_t sm;
  /* cc_cache_drop's tests before its decision by lanes, but the space's: local
   * records are always whole, shared ones never buffered (counted here at once) */
  if (!a) /* (drop_from is UINT64_MAX until the switch) */
    return __atomic_load_n(&c->drop_from, __ATOMIC_ACQUIRE) != UINT64_MAX;
  if (d->holding)
    return 1; /* its chain goes first: cc_cache_drop decides */
  if (a->insn_slot >= d->n_insns || a->active == 0 || a->size_bytes > CC_ACCESS_MAX_BYTES ||
      a->cut || a->space != CC_SPACE_GLOBAL)
    return 0;
  cc_cache_locate(c, a, &sm, &base, &linear);
  return linear >= __atomic_load_n(&c->drop_from, __ATOMIC_ACQUIRE);
}

void cc_cache_drops_add(struct cc_cache *c, const struct cc_cache_drops *d)
{
  assert(d->n_insns == c->n_insns && d->sms == c->dev.sms); /* the same kernel */
  cc_cache_async_drain(c); /* the counts below are its helper's until it is done */
  for (uint32_t i = 0; i < d->n_insns; i++) {
    cc_cache_counts_add(&c->insn[i], &d->insn[i]); /* the exact (whole-record) counts */
    c->req_after[i] += d->req_after[i];
  }
  for (uint32_t s = 0; s < d->sms; s++) {
    c->sm_wavefronts[s] += d->sm[3 * (size_t)s];
    c->sm_req[s] += d->sm[3 * (size_t)s + 1];
    c->sm_waits[3 * (size_t)s + REACH_L1] += d->sm[3 * (size_t)s + 2];
  }
  c->records += d->records;
}

void cc_cache_drops_merge(struct cc_cache_drops *into, const struct cc_cache_drops *from)
{
  assert(into->n_insns == from->n_insns && into->sms == from->sms); /* the same kernel */
  for (uint32_t i = 0; i < into->n_insns; i++) {
    cc_cache_counts_add(&into->insn[i], &from->insn[i]);
    into->req_after[i] += from->req_after[i];
  }
  for (size_t j = 0; j < 3 * (size_t)into->sms; j++)
    into->sm[j] += from->sm[j];
  into->records += from->records;
}
