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
 * sent on, and the model counts it itself. The parallel replay (par.c) is served the
 * same way: its threads' counts are sums too, and its L1 sides replay what reaches them
 * (cut records included: cc_cache_replay_record) in each SM's order.
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
#include <stdlib.h>

#include "util/mem.h"

struct cc_cache_drops {
  uint32_t n_insns, sms;
  struct cc_cache_counts *insn; /* [n_insns]: whole-record counts, shared loads' waits */
  uint64_t *req_after;          /* [n_insns]: load and atomic requests after the switch */
  uint64_t *sm;                 /* [sms][3]: wavefronts, requests after the switch, shared
                                   loads (waits on L1) */
  uint64_t records;             /* global and local records counted here */
  struct cc_warp_access cut;    /* the last cut record (cc_cache_drop's result) */
};

struct cc_cache_drops *cc_cache_drops_new(const struct cc_cache *c)
{
  struct cc_cache_drops *d = cc_xcalloc(1, sizeof *d);
  d->n_insns = c->n_insns;
  d->sms = c->dev.sms;
  d->insn = cc_xcalloc(d->n_insns ? d->n_insns : 1, sizeof *d->insn);
  d->req_after = cc_xcalloc(d->n_insns ? d->n_insns : 1, sizeof *d->req_after);
  d->sm = cc_xcalloc((size_t)d->sms * 3, sizeof *d->sm);
  return d;
}

void cc_cache_drops_free(struct cc_cache_drops *d)
{
  if (!d)
    return;
  free(d->insn);
  free(d->req_after);
  free(d->sm);
  free(d);
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

/* While sampling, global or local record a (form key): its sectors (*sectors) and its
 * lanes that touch a sampled line (0: none). */
static uint32_t sampled_lanes(const struct cc_cache *c, const struct cc_warp_access *a,
                              uint64_t base, struct form_key key, uint32_t *sectors)
{
  uint32_t lanes = 0;
  int any;
  if (key.form == FORM_LANES) /* a line a lane */
    return sample_touches(c, key, sectors, &lanes) ? lanes : 0;
  if (key.form == FORM_RANGE) {
    any = sample_touches(c, key, sectors, &lanes);
  } else if ((any = cc_cache_sample_general(c, a, base, sectors)) < 0) {
    struct gather g; /* lanes out of address order: their sectors by gathering */
    cc_cache_gather(a, base, key, &g);
    *sectors = g.sectors;
    any = 1;
  }
  return any ? sampled_lanes_of(c, a, base) : 0;
}

const struct cc_warp_access *cc_cache_drop(const struct cc_cache *c,
                                           const struct cc_warp_access *a,
                                           uint32_t shared_wavefronts,
                                           struct cc_cache_drops *d)
{
  uint64_t base, linear;
  uint32_t sm, sectors, lanes;
  if (a->insn_slot >= d->n_insns || a->active == 0 ||
      a->size_bytes > CC_ACCESS_MAX_BYTES || a->cut)
    return a; /* cc_cache_access decides (it ignores the next three; a cut goes on) */
  cc_cache_locate(c, a, &sm, &base, &linear);
  if (a->space == CC_SPACE_SHARED)
    return drop_shared(a, sm, shared_wavefronts, d);
  if (linear < __atomic_load_n(&c->drop_from, __ATOMIC_ACQUIRE))
    return a;
  lanes = sampled_lanes(c, a, base, cc_cache_form_of(a, base), &sectors);
  /* the whole record's counts, as quick.c's paths' */
  d->sm[3 * (size_t)sm] += whole_counts(c, &d->insn[a->insn_slot], a, sectors);
  if (a->kind != CC_ACCESS_STORE) {
    d->req_after[a->insn_slot]++;
    d->sm[3 * (size_t)sm + 1]++;
  }
  d->records++;
  if (!lanes)
    return NULL;
  d->cut = *a; /* its sampled lanes' replay: for the model */
  d->cut.active = lanes;
  d->cut.cut = 1;
  return &d->cut;
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
