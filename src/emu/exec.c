/* The SIMT interpreter: CTAs one after another, warps of a CTA scheduled cooperatively,
 * per-lane PCs with "run the lanes at the minimum PC" reconvergence (README.md says
 * why), memories with bounds checks, the access sink. */
#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu/exec_impl.h"

/* Dispatch (Lua's lvm.c): computed goto where GCC/Clang offer it, else a switch. Both
 * share one body of vmcase blocks; vmbreak ends a straight-line handler. */
#if defined(__GNUC__) && !defined(CC_EMU_SWITCH)
#define vmdispatch(x) goto *disptab[x];
#define vmcase(l) L_##l:
#else
#define vmdispatch(x) switch (x)
#define vmcase(l) case H_##l:
#endif
#define vmbreak goto next
/* ---- frames ------------------------------------------------------------------------ */

/* Fills the special-register rows and the constant rows of a new frame's registers. */
static void fill_sregs(struct run *r, struct warp *w, struct frame *fr)
{
  const struct dfunc *df = fr->df;
  uint64_t *base = fr->R + (size_t)df->nregs * 32;
  uint32_t bx = r->L->block[0], by = r->L->block[1];
#define ROW(s) (base + (size_t)(s) * 32)
  for (unsigned l = 0; l < 32; l++) {
    uint32_t t = w->index * 32 + l;
    ROW(SR_TID)[l] = t % bx;
    ROW(SR_TID + 1)[l] = (t / bx) % by;
    ROW(SR_TID + 2)[l] = t / (bx * by);
    ROW(SR_LANEID)[l] = l;
    ROW(SR_LANEMASK_EQ)[l] = UINT32_C(1) << l;
    ROW(SR_LANEMASK_LT)[l] = (UINT32_C(1) << l) - 1;
    ROW(SR_LANEMASK_LE)[l] = (uint32_t)((UINT64_C(2) << l) - 1);
    ROW(SR_LANEMASK_GT)[l] = ~(uint32_t)((UINT64_C(2) << l) - 1);
    ROW(SR_LANEMASK_GE)[l] = ~((UINT32_C(1) << l) - 1);
  }
  {
    /* rows with one value for the whole warp */
    const struct { int row; uint64_t v; } u[] = {
        {SR_NTID, r->L->block[0]}, {SR_NTID + 1, r->L->block[1]}, {SR_NTID + 2, r->L->block[2]},
        {SR_CTAID, r->cta[0]},     {SR_CTAID + 1, r->cta[1]},     {SR_CTAID + 2, r->cta[2]},
        {SR_NCTAID, r->L->grid[0]}, {SR_NCTAID + 1, r->L->grid[1]},
        {SR_NCTAID + 2, r->L->grid[2]}, {SR_WARPID, w->index}, {SR_NWARPID, r->nwarps},
        {SR_SMID, 0}, {SR_NSMID, 1}, {SR_GRIDID, 1}, {SR_CLOCK, 0}, {SR_CLOCK64, 0},
        {SR_GTIMER, 0}, {SR_DSMEM, r->L->dynamic_shared_bytes}, {SR_TSMEM, r->shared_size},
        {SR_CARRY, 0}};
    for (size_t j = 0; j < sizeof u / sizeof u[0]; j++)
      for (unsigned l = 0; l < 32; l++) ROW(u[j].row)[l] = u[j].v;
  }
  for (uint32_t j = 0; j < df->nconst; j++) {
    uint64_t v = df->consts[j].value + (df->consts[j].local ? fr->local_base : 0);
    uint64_t *d = ROW(SR_COUNT + j);
    for (unsigned l = 0; l < 32; l++) d[l] = v;
  }
#undef ROW
}

/* The rows of fill_sregs that change from one CTA to the next of the same warp slot. */
static void refresh_sregs(struct run *r, struct frame *fr)
{
  uint64_t *base = fr->R + (size_t)fr->df->nregs * 32;
  for (int c = 0; c < 3; c++)
    for (unsigned l = 0; l < 32; l++) base[(size_t)(SR_CTAID + c) * 32 + l] = r->cta[c];
  for (unsigned l = 0; l < 32; l++) base[(size_t)SR_CARRY * 32 + l] = 0;
}

/* Grows every lane's local window to at least need bytes (contents kept). */
static void grow_local(struct warp *w, uint64_t need)
{
  uint64_t cap = w->lcap ? w->lcap : 256;
  uint8_t *n;
  if (need <= w->lcap) return;
  while (cap < need) cap *= 2;
  n = cc_xcalloc(32, cap);
  for (unsigned l = 0; l < 32 && w->lcap; l++)
    memcpy(n + l * cap, w->local + l * w->lcap, w->lcap);
  free(w->local);
  w->local = n;
  w->lcap = cap;
}

/* pushes a frame of df for the lanes of mask: registers, special registers, constants,
 * .param and .local */
static struct frame *push_frame(struct run *r, struct warp *w, const struct dfunc *df,
                                uint32_t mask)
{
  struct frame *fr;
  int same;
  if (w->depth == w->cap) {
    w->cap = w->cap ? w->cap * 2 : 4;
    w->fr = cc_xrealloc(w->fr, w->cap * sizeof *w->fr);
  }
  if (w->depth == w->nslots) { /* a new slot; slots keep their buffers for reuse */
    memset(&w->fr[w->nslots], 0, sizeof w->fr[w->nslots]);
    w->nslots++;
  }
  fr = &w->fr[w->depth++];
  {
    /* registers need no zeroing (PTX leaves them undefined): reuse the slot's buffers */
    uint64_t *R = fr->R;
    uint8_t *param = fr->param;
    size_t rcap = fr->rcap, pcap = fr->pcap;
    /* the slot last held df at the same local base: the rows that depend only on the
     * warp and the run are still in place (the next CTA's warps reuse them) */
    same = fr->df == df && fr->local_base == w->lused && fr->R;
    memset(fr, 0, sizeof *fr);
    if (rcap < (size_t)df->ntotal * 32) {
      same = 0;
      free(R);
      rcap = (size_t)df->ntotal * 32;
      R = cc_xcalloc(rcap, sizeof *R);
    }
    if (pcap < 32 * df->param_size) {
      free(param);
      pcap = 32 * df->param_size;
      param = cc_xcalloc(pcap, 1);
    } else if (df->param_size) {
      memset(param, 0, 32 * df->param_size);
    }
    fr->R = R;
    fr->param = param;
    fr->rcap = rcap;
    fr->pcap = pcap;
  }
  fr->df = df;
  fr->local_base = w->lused;
  w->lused += df->local_size;
  grow_local(w, w->lused);
  fr->active = fr->live = mask;
  fr->wait_min = UINT32_MAX;
  if (same) refresh_sregs(r, fr);
  else fill_sregs(r, w, fr);
  return fr;
}

/* pops the top frame (its buffers stay in the slot for reuse) */
static void pop_frame(struct warp *w)
{
  struct frame *fr = &w->fr[--w->depth];
  w->lused = fr->local_base;
}

/* Picks the lanes to run: the live lanes at the minimum PC (pcs[] valid for all). */
static void resched(struct frame *fr)
{
  uint32_t minpc = UINT32_MAX, next = UINT32_MAX, act = 0;
  for (uint32_t m = fr->live; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    if (fr->pcs[l] < minpc) minpc = fr->pcs[l];
  }
  for (uint32_t m = fr->live; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    if (fr->pcs[l] == minpc) act |= UINT32_C(1) << l;
    else if (fr->pcs[l] < next) next = fr->pcs[l];
  }
  fr->pc = minpc;
  fr->active = act;
  fr->wait_min = next;
}

/* records pc as the PC of the lanes of mask */
static void save_active(struct frame *fr, uint32_t mask, uint32_t pc)
{
  for (uint32_t m = mask; m; m &= m - 1) fr->pcs[__builtin_ctz(m)] = pc;
}

/* ---- errors ------------------------------------------------------------------------- */

/* Declared in exec_impl.h. */
void emu_exec_thread_of(const struct run *r, uint32_t warp, unsigned lane, uint32_t t[3])
{
  uint32_t id = warp * 32 + lane, bx = r->L->block[0], by = r->L->block[1];
  t[0] = id % bx;
  t[1] = (id / bx) % by;
  t[2] = id / (bx * by);
}

/* "kernel K, PTX line L 'text', source file:line" */
/* Declared in exec_impl.h. */
void emu_exec_where(const struct run *r, const struct frame *fr, const struct dinsn *i,
                    char *buf, size_t size)
{
  char text[256];
  const struct ptx_function *f = fr->df->f;
  const struct ptx_loc *loc = i->index < f->ninsns ? ptx_insn_loc(f, i->index) : NULL;
  const char *file = loc ? ptx_file_path(r->emu->m, loc->file) : NULL;
  uint32_t line = i->index < f->ninsns ? f->insns[i->index].line : f->line;
  if (i->index < f->ninsns) ptx_print_insn(r->emu->m, f, i->index, text, sizeof text);
  else snprintf(text, sizeof text, "(end of %s)", f->name);
  if (file)
    snprintf(buf, size, "kernel %s, PTX line %" PRIu32 " '%s'%s%s, source %s:%" PRIu32,
             r->k->name, line, text, f != r->k ? " in " : "", f != r->k ? f->name : "",
             file, loc->line);
  else
    snprintf(buf, size, "kernel %s, PTX line %" PRIu32 " '%s'%s%s", r->k->name, line, text,
             f != r->k ? " in " : "", f != r->k ? f->name : "");
}

/* an error of one thread: "WHAT by thread (x,y,z) in block (x,y,z): WHERE" */
/* Declared in exec_impl.h. */
int emu_exec_lane_error(struct run *r, struct warp *w, const struct frame *fr,
                        const struct dinsn *i, unsigned lane, enum cc_status st,
                        const char *what)
{
  char loc[700];
  uint32_t t[3];
  emu_exec_thread_of(r, w->index, lane, t);
  emu_exec_where(r, fr, i, loc, sizeof loc);
  return cc_err_set(r->err, st, "%s by thread (%u,%u,%u) in block (%u,%u,%u): %s", what,
                    t[0], t[1], t[2], r->cta[0], r->cta[1], r->cta[2], loc);
}

/* an error of a whole warp: "WHAT in warp W of block (x,y,z): WHERE" */
static int warp_error(struct run *r, struct warp *w, const struct frame *fr,
                      const struct dinsn *i, enum cc_status st, const char *what)
{
  char loc[700];
  emu_exec_where(r, fr, i, loc, sizeof loc);
  return cc_err_set(r->err, st, "%s in warp %u of block (%u,%u,%u): %s", what, w->index,
                    r->cta[0], r->cta[1], r->cta[2], loc);
}

/* add.cc / addc / sub.cc / subc / mad.cc / madc: the carry lives in a hidden per-frame
 * register (PTX's CC.CF); sub's carry is the borrow */
static void do_carry(struct frame *fr, const struct dinsn *i, uint32_t m)
{
  uint64_t *d = reg(fr, i->d[0]), *cf = reg(fr, (int32_t)fr->df->nregs + SR_CARRY);
  const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]);
  const uint64_t *c = i->ns > 2 ? reg(fr, i->s[2]) : a;
  int use_cin = i->fam == F_ADDC || i->fam == F_SUBC || i->fam == F_MADC;
  int set_cout = (i->flags & PTX_F_CC) != 0;
  unsigned w = i->w;
  uint64_t wm = w == 64 ? UINT64_MAX : 0xffffffffu;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    unsigned __int128 x = a[l] & wm, y = b[l] & wm, cin = use_cin ? (cf[l] & 1) : 0, t;
    uint64_t res, co;
    switch (i->fam) {
    case F_SUB: case F_SUBC:
      res = (uint64_t)(x - y - cin) & wm;
      co = x < y + cin;
      break;
    case F_MAD: case F_MADC: {
      unsigned __int128 p;
      if (i->k == K_S)
        p = (unsigned __int128)((__int128)(int64_t)emu_norm(a[l], w, K_S) *
                                (__int128)(int64_t)emu_norm(b[l], w, K_S));
      else
        p = x * y;
      p = i->mode == PTX_MODE_HI ? (p >> w) & wm : p & wm;
      t = p + (c[l] & wm) + cin;
      res = (uint64_t)t & wm;
      co = (uint64_t)(t >> w) & 1;
      break;
    }
    default:
      t = x + y + cin;
      res = (uint64_t)t & wm;
      co = (uint64_t)(t >> w) & 1;
      break;
    }
    d[l] = res;
    if (set_cout) cf[l] = co;
  }
}

/* redux.sync.op.{u32,s32,b32} d, a, membermask: the reduction over the executing lanes */
static void do_redux(struct frame *fr, const struct dinsn *i, uint32_t m)
{
  uint64_t *d = reg(fr, i->d[0]);
  const uint64_t *a = reg(fr, i->s[0]);
  uint32_t acc = 0;
  int first = 1;
  if (!m) return;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    uint32_t v = (uint32_t)a[__builtin_ctz(mm)];
    if (first) { acc = v; first = 0; continue; }
    switch (i->mode) {
    case PTX_MODE_ADD: acc += v; break;
    case PTX_MODE_MIN:
      acc = i->k == K_S ? ((int32_t)v < (int32_t)acc ? v : acc) : (v < acc ? v : acc);
      break;
    case PTX_MODE_MAX:
      acc = i->k == K_S ? ((int32_t)v > (int32_t)acc ? v : acc) : (v > acc ? v : acc);
      break;
    case PTX_MODE_AND: acc &= v; break;
    case PTX_MODE_OR: acc |= v; break;
    default: acc ^= v; break;
    }
  }
  LANES(m, d[l] = acc);
}

/* ---- warp-wide operations ------------------------------------------------------------ */

static void do_shfl(struct frame *fr, const struct dinsn *i, uint32_t m)
{
  uint64_t src[32], *d = reg(fr, i->d[0]), *p = i->d[1] >= 0 ? reg(fr, i->d[1]) : NULL;
  const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]), *c = reg(fr, i->s[2]);
  memcpy(src, a, sizeof src); /* d may be a */
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    int lane = __builtin_ctz(mm), j, pval;
    int bval = (int)(b[lane] & 31), cval = (int)(c[lane] & 31);
    int seg = (int)((c[lane] >> 8) & 31);
    int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
    switch (i->mode) {
    case PTX_MODE_UP: j = lane - bval; pval = j >= maxl; break;
    case PTX_MODE_DOWN: j = lane + bval; pval = j <= maxl; break;
    case PTX_MODE_BFLY: j = lane ^ bval; pval = j <= maxl; break;
    default: j = minl | (bval & ~seg); pval = j <= maxl; break;
    }
    if (!pval || j < 0 || j > 31) j = lane;
    d[lane] = (uint32_t)src[j];
    if (p) p[lane] = (uint64_t)pval;
  }
}

static void do_vote(struct frame *fr, const struct dinsn *i, uint32_t m)
{
  const uint64_t *a = reg(fr, i->s[0]);
  uint64_t *d = i->d[0] >= 0 ? reg(fr, i->d[0]) : NULL;
  uint32_t yes = 0, neg = i->sneg & 1;
  uint64_t v;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    if ((a[l] & 1) ^ neg) yes |= UINT32_C(1) << l;
  }
  switch (i->mode) {
  case PTX_MODE_ALL: v = yes == m; break;
  case PTX_MODE_ANY: v = yes != 0; break;
  case PTX_MODE_UNI: v = yes == 0 || yes == m; break;
  default: v = yes; break;
  }
  if (d) LANES(m, d[l] = v);
}

static void do_match(struct frame *fr, const struct dinsn *i, uint32_t m)
{
  const uint64_t *a = reg(fr, i->s[0]);
  uint64_t src[32], *d = i->d[0] >= 0 ? reg(fr, i->d[0]) : NULL;
  uint64_t *p = i->d[1] >= 0 ? reg(fr, i->d[1]) : NULL;
  uint64_t wm = i->w == 64 ? UINT64_MAX : 0xffffffffu;
  uint32_t same[32], all = 1;
  memcpy(src, a, sizeof src);
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    same[l] = 0;
    for (uint32_t nn = m; nn; nn &= nn - 1) {
      unsigned o = (unsigned)__builtin_ctz(nn);
      if ((src[o] & wm) == (src[l] & wm)) same[l] |= UINT32_C(1) << o;
    }
    if (same[l] != m) all = 0;
  }
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    if (d) d[l] = i->mode == PTX_MODE_ANY ? same[l] : (all ? m : 0);
    if (p) p[l] = all;
  }
}

/* ---- barriers and calls ------------------------------------------------------------ */

/* Barriers (PTX ISA 9.0, "bar, barrier" and "exit"). Arrivals are counted per warp: the
 * ISA's barrier "causes executing thread to wait for all non-exited threads from its warp
 * and marks warps' arrival at barrier", and a thread count b (a multiple of 32) means b/32
 * warp arrivals. The barrier completes when its expected number of warps has arrived:
 * - without b ("all threads in the CTA participate"): every warp of the CTA that still
 *   has a non-exited thread (r->live_warps). "As threads exit, barriers waiting on all
 *   threads are checked ... If the exiting threads are holding up the barrier, the
 *   barrier is released": warp_done re-checks these barriers when a warp's last thread
 *   exits, so a warp that returns early does not hold the others up;
 * - with b: b/32 arrivals, whatever exited. The exit rule names only barriers "for all
 *   threads in the CTA", and a warp that exited can never mark an arrival, so a counted
 *   barrier that too few warps can still reach stays closed (run_cta reports the
 *   deadlock). A warp some of whose threads exited arrives as one warp when its
 *   non-exited threads do, as for the all-threads barrier. */

/* Every waiting warp at barrier id may go on; bar.red's result goes to the lanes of each
 * that arrived. */
static void bar_release(struct run *r, uint32_t id)
{
  r->bar_arrived[id] = 0;
  for (uint32_t j = 0; j < r->nwarps; j++) {
    struct warp *o = &r->warps[j];
    if (o->state != W_WAIT || o->bar != id) continue;
    o->state = W_READY;
    if (o->bar_dst >= 0) { /* the top frame is the one that arrived (it waited since) */
      uint64_t *d = reg(&o->fr[o->depth - 1], o->bar_dst);
      LANES(o->bar_lanes, d[l] = r->bar_red[id]);
    }
  }
}

/* warp arrivals that complete barrier id now */
static uint32_t bar_expected(const struct run *r, uint32_t id)
{
  return r->bar_count[id] ? r->bar_count[id] / 32 : r->live_warps;
}

/* The arrival of warp w (all its non-exited lanes, w->bar_lanes) at the barrier in
 * w->bar...: bar.red's contribution, the count, the wait (bar.sync, bar.red), the
 * release when the warp is the last one expected. */
static void bar_arrive(struct run *r, struct warp *w)
{
  uint32_t id = w->bar;
  if (w->bar_op) {
    if (r->bar_arrived[id] == 0) r->bar_red[id] = w->bar_op == 2 ? 1 : 0;
    if (w->bar_op == 1) r->bar_red[id] += popcount32(w->bar_yes);
    else if (w->bar_op == 2) r->bar_red[id] &= w->bar_yes == w->bar_lanes;
    else r->bar_red[id] |= w->bar_yes != 0;
  }
  r->bar_count[id] = w->bar_cnt;
  r->bar_arrived[id]++;
  if (w->bar_sync) w->state = W_WAIT;
  if (r->bar_arrived[id] >= bar_expected(r, id)) bar_release(r, id);
}

/* The last thread of warp w exited: the barriers for all threads that only w held up
 * open (the exit rule above). */
static void warp_done(struct run *r, struct warp *w)
{
  w->state = W_DONE;
  assert(r->live_warps > 0);
  r->live_warps--;
  for (uint32_t id = 0; id < 16; id++)
    if (r->bar_arrived[id] && !r->bar_count[id] && r->bar_arrived[id] >= r->live_warps)
      bar_release(r, id);
}

/* Barrier id and thread count of a bar instruction executed by lanes m (the first lane's
 * values). Errors: CC_ERR_KERNEL for an id above 15 or a count that is not a multiple of
 * 32 up to the block's threads (ISA: "the value must be a multiple of the warp size"). */
static int bar_operands(struct run *r, struct warp *w, const struct frame *fr,
                        const struct dinsn *i, uint32_t m, uint32_t *id, uint32_t *count)
{
  unsigned l0 = (unsigned)__builtin_ctz(m);
  char what[200];
  *id = i->s[0] >= 0 ? (uint32_t)reg(fr, i->s[0])[l0] : 0;
  *count = i->s[1] >= 0 ? (uint32_t)reg(fr, i->s[1])[l0] : 0;
  if (*id >= 16) {
    snprintf(what, sizeof what, "barrier id %u out of range (0..15)", *id);
    return warp_error(r, w, fr, i, CC_ERR_KERNEL, what);
  }
  if (*count && (*count % 32 || *count / 32 > r->nwarps)) {
    snprintf(what, sizeof what, "barrier thread count %u is not a multiple of 32 up to the "
             "block's %u threads", *count, r->nthreads);
    return warp_error(r, w, fr, i, CC_ERR_KERNEL, what);
  }
  return CC_OK;
}

/* bar.sync / barrier.sync / bar.red / bar.arrive at instruction pc of the top frame fr,
 * executed by lanes m (non-zero). Either the warp arrives at once (m are all its
 * non-exited lanes, and none is parked: the fast path; *parked = 0; the caller moves the
 * lanes past it) or the lanes m are parked (*parked = 1: out of fr's live and active
 * masks, their PC past the barrier); the lanes of an arrival already under way join it,
 * and when that completes it the parked lanes are back in fr, all at pc + 1, rescheduled.
 * Errors (CC_ERR_KERNEL): bar_operands'; lanes of one warp at two different barrier
 * instructions (or at one in two different calls). */
static int do_bar(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                  uint32_t pc, uint32_t m, int *parked)
{
  uint32_t alive = w->present & ~w->exited, id, count, yes = 0;
  int s;
  *parked = 0;
  if ((s = bar_operands(r, w, fr, i, m, &id, &count))) return s;
  if (i->setout) {
    const uint64_t *c = reg(fr, i->s[2]);
    uint32_t neg = i->sneg >> 2 & 1;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      if ((c[l] & 1) ^ neg) yes |= UINT32_C(1) << l;
    }
  }
  if (w->parked) { /* an arrival under way: the same instruction in the same frame only */
    char what[300];
    if (w->park_depth == w->depth && w->park_pc == pc) {
      w->bar_lanes |= m;
      w->bar_yes |= yes;
      if (w->bar_lanes != alive) goto park;
      save_active(fr, m, pc + 1); /* the last lanes: the whole warp goes on at pc + 1 */
      fr->live |= w->parked;
      w->parked = 0;
      resched(fr);
      bar_arrive(r, w);
      return CC_OK;
    }
    snprintf(what, sizeof what, "threads of one warp wait at different barriers: lanes "
             "0x%08x at PTX line %u (barrier %u%s), lanes 0x%08x here; every non-exited "
             "thread of a warp must reach the same barrier",
             w->parked, w->bar_line, w->bar,
             w->park_depth != w->depth ? ", in another call frame" : "", m);
    return warp_error(r, w, fr, i, CC_ERR_KERNEL, what);
  }
  w->bar = id;
  w->bar_cnt = count;
  w->bar_line = fr->df->f->insns[i->index].line;
  w->bar_sync = !i->cmp;
  w->bar_op = i->setout;
  w->bar_dst = i->setout ? i->d[0] : -1;
  w->bar_lanes = m;
  w->bar_yes = yes;
  if (m == alive) { /* the fast path: the whole warp at once */
    bar_arrive(r, w);
    return CC_OK;
  }
  w->park_pc = pc;
  w->park_depth = w->depth;
park:
  w->parked |= m;
  save_active(fr, m, pc + 1);
  fr->live &= ~m;
  fr->active &= ~m;
  *parked = 1;
  return CC_OK;
}

/* The top frame of w has no runnable lane left but lanes parked at a barrier: when they
 * are all of the warp's non-exited lanes (the others exited), the warp arrives and the
 * parked lanes go on at the barrier's next instruction. Errors (CC_ERR_KERNEL): other
 * non-exited lanes of the warp are outside this frame (they wait in a calling function
 * or returned from this one) and so can never reach the barrier. */
static int finish_park(struct run *r, struct warp *w)
{
  struct frame *fr = &w->fr[w->depth - 1];
  uint32_t alive = w->present & ~w->exited;
  assert(w->park_depth == w->depth && fr->live == 0);
  if (w->parked != alive) {
    char what[300];
    snprintf(what, sizeof what, "lanes 0x%08x of a warp wait at a barrier in %s while its "
             "other non-exited lanes 0x%08x are outside that call and cannot reach it; "
             "every non-exited thread of a warp must reach the same barrier",
             w->parked, fr->df->f->name, alive & ~w->parked);
    return warp_error(r, w, fr, &fr->df->code[w->park_pc], CC_ERR_KERNEL, what);
  }
  fr->live = w->parked;
  w->parked = 0;
  resched(fr);
  bar_arrive(r, w);
  return CC_OK;
}

/* copies n bytes at src_off of a frame's param area into dst_off of another, per lane */
static void copy_params(const struct frame *from, uint64_t src_off, struct frame *to,
                        uint64_t dst_off, uint64_t n, uint32_t lanes)
{
  uint64_t fs = from->df->param_size, ts = to->df->param_size;
  if (src_off < FRAME_PARAM || dst_off < FRAME_PARAM) return;
  src_off -= FRAME_PARAM;
  dst_off -= FRAME_PARAM;
  if (src_off + n > fs || dst_off + n > ts) return;
  for (uint32_t m = lanes; m; m &= m - 1) {
    unsigned l = (unsigned)__builtin_ctz(m);
    memcpy(to->param + l * ts + dst_off, from->param + l * fs + src_off, n);
  }
}

static const struct ptx_operand *call_opnd(const struct frame *fr, const struct dinsn *i,
                                           uint32_t j)
{
  return &fr->df->f->opnds[i->call_first + j];
}

/* *out: the function (index in the run's table) that an indirect call of lanes m goes
 * to; one target per warp. Errors: CC_ERR_KERNEL. */
static int indirect_target(struct run *r, struct warp *w, const struct frame *caller,
                           const struct dinsn *i, uint32_t m, int32_t *out)
{
  const uint64_t *t = reg(caller, i->s[0]);
  uint64_t v = t[__builtin_ctz(m)];
  char what[200];
  for (uint32_t mm = m; mm; mm &= mm - 1)
    if (t[__builtin_ctz(mm)] != v)
      return warp_error(r, w, caller, i, CC_ERR_KERNEL,
                        "indirect call with different targets in one warp (not emulated)");
  if (v < r->emu->m->nfuncs && r->c->func_map[v] >= 0) {
    *out = r->c->func_map[v];
    return CC_OK;
  }
  snprintf(what, sizeof what, "indirect call to 0x%" PRIx64 ", which is no function's address",
           v);
  return warp_error(r, w, caller, i, CC_ERR_KERNEL, what);
}

static int do_call(struct run *r, struct warp *w, const struct dinsn *i, uint32_t m)
{
  struct frame *caller = &w->fr[w->depth - 1], *callee;
  int32_t ci = i->callee;
  const struct dfunc *cd;
  const struct ptx_function *cf;
  uint32_t rest = caller->active & ~m, nargs = i->call_nargs;
  int s;
  if (ci < 0 && (s = indirect_target(r, w, caller, i, m, &ci))) return s;
  cd = &r->c->funcs[ci];
  cf = cd->f;
  if (w->depth >= CALL_DEPTH_MAX) {
    char what[160];
    snprintf(what, sizeof what, "call depth exceeds %d (unbounded recursion?)", CALL_DEPTH_MAX);
    return warp_error(r, w, caller, i, CC_ERR_KERNEL, what);
  }
  if (w->lused + cd->local_size > LOCAL_STACK_MAX) {
    char what[200];
    snprintf(what, sizeof what, "local memory stack overflow: the call to %s needs %" PRIu64
             " more bytes per thread on top of %" PRIu64 " (at most %u)",
             cf->name, cd->local_size, w->lused, LOCAL_STACK_MAX);
    return warp_error(r, w, caller, i, CC_ERR_KERNEL, what);
  }
  save_active(caller, rest, caller->pc + 1);
  caller->live &= ~m;
  caller->active = 0;
  callee = push_frame(r, w, cd, m);
  caller = &w->fr[w->depth - 2];
  callee->call_pc = caller->pc;
  if (nargs > cf->nparams) nargs = cf->nparams;
  for (uint32_t j = 0; j < nargs; j++) {
    const struct ptx_operand *o = call_opnd(caller, i, i->call_args_at + j);
    const struct ptx_var *pv = &cf->vars[cf->param_vars[j]];
    uint64_t n = pv->size_bytes, n2 = caller->df->f->vars[o->var].size_bytes;
    copy_params(caller, caller->df->var_off[o->var], callee, cd->var_off[cf->param_vars[j]],
                n < n2 ? n : n2, m);
  }
  return CC_OK;
}

/* Pops finished frames (no live lane) and resumes the returned lanes in the caller. */
static void finish_frames(struct warp *w)
{
  /* a frame with parked lanes stays (finish_park decides once its others are gone) */
  while (w->depth > 1 && w->fr[w->depth - 1].live == 0 &&
         !(w->parked && w->park_depth == w->depth)) {
    struct frame *callee = &w->fr[w->depth - 1], *caller = &w->fr[w->depth - 2];
    const struct ptx_function *cf = callee->df->f;
    const struct dinsn *ci = &caller->df->code[callee->call_pc];
    uint32_t back = callee->returned & ~w->exited;
    uint32_t nret = ci->call_nret < cf->nret ? ci->call_nret : cf->nret;
    for (uint32_t j = 0; j < nret; j++) {
      const struct ptx_operand *o = call_opnd(caller, ci, j);
      const struct ptx_var *rv = &cf->vars[cf->ret_vars[j]];
      uint64_t n = rv->size_bytes, n2 = caller->df->f->vars[o->var].size_bytes;
      copy_params(callee, callee->df->var_off[cf->ret_vars[j]], caller,
                  caller->df->var_off[o->var], n < n2 ? n : n2, back);
    }
    save_active(caller, back, callee->call_pc + 1);
    caller->live |= back;
    pop_frame(w);
    if (caller->live) resched(caller);
  }
}

/* lanes of mask m leave the current frame (exit: for good; ret: back to the caller) */
static void leave(struct warp *w, struct frame *fr, uint32_t m, int is_exit)
{
  if (is_exit) w->exited |= m;
  else fr->returned |= m;
  fr->live &= ~m;
  fr->active &= ~m;
}

/* ---- the interpreter loop ---------------------------------------------------------- */

/* A warp looks at the clock (progress) every this many warp instructions: 10 to 100 times
 * a second at the emulator's speed. */
#define NOTE_EVERY (UINT64_C(1) << 20)

uint64_t cc_emu_cta_budget(uint32_t threads)
{
  uint64_t b = CC_EMU_CTA_BUDGET_PER_THREAD * threads;
  return b > CC_EMU_CTA_BUDGET_MIN ? b : CC_EMU_CTA_BUDGET_MIN;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* warp instructions the running warp may execute before it must stop and look: at the
 * budget's end or at the next progress note, whichever comes first */
static uint64_t quota(const struct run *r)
{
  uint64_t end = r->stop_at < r->next_note ? r->stop_at : r->next_note;
  return end > r->st->warp_insns ? end - r->st->warp_insns : 0;
}

static void note_progress(struct run *r)
{
  double used = r->cta_budget
                    ? (double)(r->st->warp_insns - r->cta_start) / (double)r->cta_budget
                    : -1.0;
  r->next_note = sat_add(r->st->warp_insns, NOTE_EVERY);
  if (r->hooks) r->hooks->note(r->hooks->ctx, r->st->warp_insns);
  else emu_progress_note(&r->prog, r->st->ctas_done, r->st->warp_insns, used);
}

static int limit_error(struct run *r, struct warp *w, const struct frame *fr,
                       const struct dinsn *i)
{
  char loc[700];
  uint64_t nctas = (uint64_t)r->L->grid[0] * r->L->grid[1] * r->L->grid[2];
  /* a worker counts its CTA only: the serial run's count adds the CTAs before it */
  uint64_t count = r->st->warp_insns + (r->hooks ? r->hooks->insns_before(r->hooks->ctx) : 0);
  emu_exec_where(r, fr, i, loc, sizeof loc);
  if (!r->cta_budget)
    return cc_err_set(r->err, CC_ERR_LIMIT,
                      "instruction budget exhausted after %" PRIu64 " warp instructions in "
                      "warp %u of block (%u,%u,%u) at %s; the kernel may not terminate, or "
                      "raise the limit with --max-insns N",
                      count, w->index, r->cta[0], r->cta[1], r->cta[2], loc);
  return cc_err_set(r->err, CC_ERR_LIMIT,
                    "instruction budget exhausted after %" PRIu64 " warp instructions in "
                    "warp %u of block (%u,%u,%u) at %s: the block ran its default budget of "
                    "%" PRIu64 " warp instructions (2^17 per thread, at least 2^26); the "
                    "kernel may not terminate; if it does, raise the limit with --max-insns N, "
                    "a budget for the whole launch (the default allows %" PRIu64 " for its %"
                    PRIu64 " block%s)",
                    count, w->index, r->cta[0], r->cta[1], r->cta[2], loc, r->cta_budget,
                    sat_mul(r->cta_budget, nctas), nctas, nctas == 1 ? "" : "s");
}

/* Runs warp w until it exits, waits at a barrier, or fails. */
static int run_warp(struct run *r, struct warp *w)
{
#if defined(__GNUC__) && !defined(CC_EMU_SWITCH)
  static const void *const disptab[H_COUNT] = {
#define H(x) &&L_##x,
#include "emu/handlers.def"
#undef H
  };
#endif
  struct frame *fr;
  const struct dinsn *code, *i;
  uint32_t pc, m;
  uint64_t executed = 0, lanes = 0, budget_left;
  int s = CC_OK;

reload:
  if (w->parked && w->depth && w->fr[w->depth - 1].live == 0) { /* others exited/left */
    /* a warp that arrives at bar.sync/bar.red yields, as on the fast path */
    if ((s = finish_park(r, w)) || w->bar_sync) goto out;
  }
  if (w->depth == 0 || w->fr[w->depth - 1].live == 0) {
    warp_done(r, w);
    goto out;
  }
  fr = &w->fr[w->depth - 1];
  code = fr->df->code;
  pc = fr->pc;
  budget_left = quota(r);

  for (;;) {
    i = &code[pc];
    if (executed >= budget_left) { /* the budget's end, or time to look at the clock */
      fr->pc = pc;
      r->st->warp_insns += executed;
      r->st->thread_insns += lanes;
      executed = lanes = 0;
      if (r->st->warp_insns >= r->stop_at) {
        s = limit_error(r, w, fr, i);
        goto out;
      }
      note_progress(r);
      budget_left = quota(r);
    }
    executed++;
    m = fr->active;
    if (i->guard >= 0) {
      const uint64_t *p = reg(fr, i->guard);
      uint32_t g = 0, neg = i->guard_neg;
      for (unsigned l = 0; l < 32; l++) g |= (uint32_t)((p[l] & 1) ^ neg) << l;
      m &= g;
    }
    lanes += m == FULL_MASK ? 32 : (uint64_t)popcount32(m);
    if (i->reads_clock) {
      uint64_t *c = reg(fr, (int32_t)fr->df->nregs + SR_CLOCK);
      uint64_t now = r->st->warp_insns + executed;
      for (unsigned l = 0; l < 96; l++) c[l] = now;
    }

    vmdispatch(i->h) {
      vmcase(NOP) vmbreak;
#define BIN(name, expr)                                                                 \
  vmcase(name) {                                                                        \
    uint64_t *d = reg(fr, i->d[0]);                                                     \
    const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]);                        \
    LANES_ELEMENTWISE(m, d[l] = (expr));                                                \
  }                                                                                     \
  vmbreak;
      BIN(ADD_32, (uint32_t)(a[l] + b[l]))
      BIN(ADD_64, a[l] + b[l])
      BIN(SUB_32, (uint32_t)(a[l] - b[l]))
      BIN(SUB_64, a[l] - b[l])
      BIN(MUL_LO_32, (uint32_t)((uint32_t)a[l] * (uint32_t)b[l]))
      BIN(MUL_LO_64, a[l] * b[l])
      BIN(MUL_WIDE_S32, (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)b[l]))
      BIN(MUL_WIDE_U32, (uint64_t)(uint32_t)a[l] * (uint32_t)b[l])
      BIN(SHL_32, (uint32_t)b[l] > 31 ? 0 : (uint32_t)((uint32_t)a[l] << (uint32_t)b[l]))
      BIN(SHL_64, (uint32_t)b[l] > 63 ? 0 : a[l] << (uint32_t)b[l])
      BIN(SHR_U32, (uint32_t)b[l] > 31 ? 0 : (uint32_t)a[l] >> (uint32_t)b[l])
      BIN(SHR_S32,
          (uint32_t)(int32_t)((int32_t)a[l] >> ((uint32_t)b[l] > 31 ? 31 : (uint32_t)b[l])))
      BIN(AND_32, (uint32_t)(a[l] & b[l]))
      BIN(OR_32, (uint32_t)(a[l] | b[l]))
      BIN(XOR_32, (uint32_t)(a[l] ^ b[l]))
      BIN(AND_64, a[l] & b[l])
      BIN(AND_P, ((a[l] ^ (i->sneg & 1)) & (b[l] ^ (i->sneg >> 1 & 1))) & 1)
      BIN(OR_P, ((a[l] ^ (i->sneg & 1)) | (b[l] ^ (i->sneg >> 1 & 1))) & 1)
      BIN(XOR_P, ((a[l] ^ (i->sneg & 1)) ^ (b[l] ^ (i->sneg >> 1 & 1))) & 1)
      BIN(ADD_F32, C32(F32(a[l]) + F32(b[l])))
      BIN(SUB_F32, C32(F32(a[l]) - F32(b[l])))
      BIN(MUL_F32, C32(F32(a[l]) * F32(b[l])))
      BIN(ADD_F64, B64(F64(a[l]) + F64(b[l])))
      BIN(SUB_F64, B64(F64(a[l]) - F64(b[l])))
      BIN(MUL_F64, B64(F64(a[l]) * F64(b[l])))
#undef BIN
      vmcase(NOT_P) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]);
        LANES(m, d[l] = ~(a[l] ^ (i->sneg & 1)) & 1);
      }
      vmbreak;
#define TER(name, expr)                                                                 \
  vmcase(name) {                                                                        \
    uint64_t *d = reg(fr, i->d[0]);                                                     \
    const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]), *c = reg(fr, i->s[2]); \
    LANES_ELEMENTWISE(m, d[l] = (expr));                                                \
  }                                                                                     \
  vmbreak;
      TER(MAD_LO_32, (uint32_t)((uint32_t)a[l] * (uint32_t)b[l] + (uint32_t)c[l]))
      TER(FMA_F32, C32(fmaf(F32(a[l]), F32(b[l]), F32(c[l]))))
      TER(FMA_F64, B64(fma(F64(a[l]), F64(b[l]), F64(c[l]))))
#undef TER
      vmcase(SETP_S32) vmcase(SETP_U32) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]);
        int sg = i->h == H_SETP_S32;
#define CMPS(op)                                                                        \
  LANES_ELEMENTWISE(m, d[l] = sg ? (int32_t)a[l] op (int32_t)b[l] : (uint32_t)a[l] op (uint32_t)b[l])
        switch (i->cmp) {
        case PTX_CMP_EQ: CMPS(==); break;
        case PTX_CMP_NE: CMPS(!=); break;
        case PTX_CMP_LT: case PTX_CMP_LO: CMPS(<); break;
        case PTX_CMP_LE: case PTX_CMP_LS: CMPS(<=); break;
        case PTX_CMP_GT: case PTX_CMP_HI: CMPS(>); break;
        case PTX_CMP_GE: case PTX_CMP_HS: CMPS(>=); break;
        default: LANES(m, d[l] = 0); break;
        }
#undef CMPS
      }
      vmbreak;
      vmcase(SETP) {
        uint64_t *d = reg(fr, i->d[0]), *q = i->nd > 1 && i->d[1] >= 0 ? reg(fr, i->d[1]) : NULL;
        const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]);
        const uint64_t *c = i->ns > 2 ? reg(fr, i->s[2]) : NULL;
        uint64_t cn = i->sneg >> 2 & 1;
        for (uint32_t mm = m; mm; mm &= mm - 1) {
          unsigned l = (unsigned)__builtin_ctz(mm);
          uint64_t t, u;
          if (i->k == K_F) t = (uint64_t)emu_setp_f(i, a[l], b[l]);
          else {
            uint64_t x = a[l], y = b[l];
            int64_t sx = (int64_t)emu_norm(x, i->w, K_S), sy = (int64_t)emu_norm(y, i->w, K_S);
            uint64_t ux = emu_norm(x, i->w, K_U), uy = emu_norm(y, i->w, K_U);
            int sg = i->k == K_S;
            switch (i->cmp) {
            case PTX_CMP_EQ: t = ux == uy; break;
            case PTX_CMP_NE: t = ux != uy; break;
            case PTX_CMP_LT: t = sg ? sx < sy : ux < uy; break;
            case PTX_CMP_LE: t = sg ? sx <= sy : ux <= uy; break;
            case PTX_CMP_GT: t = sg ? sx > sy : ux > uy; break;
            case PTX_CMP_GE: t = sg ? sx >= sy : ux >= uy; break;
            case PTX_CMP_LO: t = ux < uy; break;
            case PTX_CMP_LS: t = ux <= uy; break;
            case PTX_CMP_HI: t = ux > uy; break;
            case PTX_CMP_HS: t = ux >= uy; break;
            default: t = 0; break;
            }
          }
          u = !t;
          if (c) {
            uint64_t cv = (c[l] & 1) ^ cn;
            switch (i->boolop) {
            case PTX_BOOL_AND: t &= cv; u &= cv; break;
            case PTX_BOOL_OR: t |= cv; u |= cv; break;
            default: t ^= cv; u ^= cv; break;
            }
          }
          if (i->setout == 1) t = t ? 0xffffffffu : 0;
          else if (i->setout == 2) t = t ? 0x3f800000u : 0;
          d[l] = t;
          if (q) q[l] = u;
        }
      }
      vmbreak;
      vmcase(SELP) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]), *b = reg(fr, i->s[1]), *c = reg(fr, i->s[2]);
        uint64_t cn = i->sneg >> 2 & 1;
        LANES_ELEMENTWISE(m, d[l] = ((c[l] & 1) ^ cn) ? a[l] : b[l]);
      }
      vmbreak;
      vmcase(MOV) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]);
        if (i->w == 64 || i->k == K_P) LANES_ELEMENTWISE(m, d[l] = a[l]);
        else {
          uint64_t wm = (UINT64_C(1) << i->w) - 1;
          LANES_ELEMENTWISE(m, d[l] = a[l] & wm);
        }
      }
      vmbreak;
      vmcase(MOV_PACK) {
        uint64_t *d = reg(fr, i->d[0]), tmp[32];
        unsigned pw = i->w / i->ns;
        uint64_t pm = pw >= 64 ? UINT64_MAX : (UINT64_C(1) << pw) - 1;
        memset(tmp, 0, sizeof tmp);
        for (unsigned e = 0; e < i->ns; e++) {
          const uint64_t *a = reg(fr, i->s[e]);
          LANES(m, tmp[l] |= (a[l] & pm) << (e * pw));
        }
        LANES(m, d[l] = tmp[l]);
      }
      vmbreak;
      vmcase(MOV_UNPACK) {
        uint64_t src[32];
        unsigned pw = i->w / i->nd;
        uint64_t pm = pw >= 64 ? UINT64_MAX : (UINT64_C(1) << pw) - 1;
        memcpy(src, reg(fr, i->s[0]), sizeof src);
        for (unsigned e = 0; e < i->nd; e++) {
          uint64_t *d;
          if (i->d[e] < 0) continue;
          d = reg(fr, i->d[e]);
          LANES(m, d[l] = (src[l] >> (e * pw)) & pm);
        }
      }
      vmbreak;
      vmcase(IOP) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]);
        const uint64_t *b = i->ns > 1 ? reg(fr, i->s[1]) : a, *c = i->ns > 2 ? reg(fr, i->s[2]) : a;
        const uint64_t *e = i->ns > 3 ? reg(fr, i->s[3]) : a;
        LANES(m, d[l] = emu_iop(i, a[l], b[l], c[l], e[l]));
      }
      vmbreak;
      vmcase(FOP) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]);
        const uint64_t *b = i->ns > 1 ? reg(fr, i->s[1]) : a, *c = i->ns > 2 ? reg(fr, i->s[2]) : a;
        LANES(m, d[l] = emu_fop(i, a[l], b[l], c[l]));
      }
      vmbreak;
      vmcase(CVT) {
        uint64_t *d = reg(fr, i->d[0]);
        const uint64_t *a = reg(fr, i->s[0]);
        LANES(m, d[l] = emu_cvt(i, a[l]));
      }
      vmbreak;
      vmcase(CVTA) {
        uint64_t *d = reg(fr, i->d[0]), base = 0;
        const uint64_t *a = reg(fr, i->s[0]);
        uint64_t wm = i->w == 32 ? 0xffffffffu : UINT64_MAX;
        switch (i->cvta_space) {
        case PTX_SPACE_SHARED: base = WIN_SHARED; break;
        case PTX_SPACE_LOCAL: base = WIN_LOCAL; break;
        case PTX_SPACE_CONST: base = WIN_CONST; break;
        default: base = 0; break;
        }
        if (i->mode == PTX_MODE_TO) LANES_ELEMENTWISE(m, d[l] = (a[l] - base) & wm);
        else LANES_ELEMENTWISE(m, d[l] = (a[l] + base) & wm);
      }
      vmbreak;
      vmcase(LD) vmcase(ST) {
        if (m && (s = emu_exec_ldst(r, w, fr, i, m))) goto fail;
      }
      vmbreak;
      vmcase(ATOM) {
        if (m && (s = emu_exec_atom(r, w, fr, i, m))) goto fail;
      }
      vmbreak;
      vmcase(SHFL) do_shfl(fr, i, m); vmbreak;
      vmcase(CARRY) do_carry(fr, i, m); vmbreak;
      vmcase(REDUX) do_redux(fr, i, m); vmbreak;
      vmcase(ELECT) { /* the leader: the lowest executing lane in the member mask */
        uint32_t mem = m & (uint32_t)reg(fr, i->s[0])[m ? __builtin_ctz(m) : 0];
        uint32_t lead = mem ? (uint32_t)__builtin_ctz(mem) : 0;
        uint64_t *d = i->d[0] >= 0 ? reg(fr, i->d[0]) : NULL;
        uint64_t *p = i->d[1] >= 0 ? reg(fr, i->d[1]) : NULL;
        if (d) LANES(m, d[l] = lead);
        if (p) LANES(m, p[l] = mem && l == lead);
      }
      vmbreak;
      vmcase(CPASYNC) {
        if (m && (s = emu_exec_cpasync(r, w, fr, i, m))) goto fail;
      }
      vmbreak;
      vmcase(VOTE) do_vote(fr, i, m); vmbreak;
      vmcase(MATCH) do_match(fr, i, m); vmbreak;
      vmcase(ACTIVEMASK) {
        uint64_t *d = reg(fr, i->d[0]);
        LANES(m, d[l] = m);
      }
      vmbreak;
      vmcase(TRAP) {
        if (!m) vmbreak;
        s = warp_error(r, w, fr, i, CC_ERR_KERNEL, "trap instruction executed (the kernel "
                       "aborted, e.g. a failed device-side assert)");
        goto fail;
      }
      vmcase(BRA) {
        uint32_t act = fr->active;
        if (m == act) {
          pc = i->target;
          if (pc >= fr->wait_min) {
            save_active(fr, act, pc);
            resched(fr);
            pc = fr->pc;
          }
          continue;
        }
        if (m == 0) vmbreak;
        save_active(fr, m, i->target);
        save_active(fr, act & ~m, pc + 1);
        resched(fr);
        pc = fr->pc;
        continue;
      }
      vmcase(EXIT) vmcase(RET) {
        uint32_t act = fr->active;
        if (!m) vmbreak;
        leave(w, fr, m, i->h == H_EXIT || w->depth == 1);
        if (m != act) vmbreak; /* the others go on */
        if (fr->live) {
          resched(fr);
          pc = fr->pc;
          continue;
        }
        finish_frames(w);
        r->st->warp_insns += executed;
        r->st->thread_insns += lanes;
        executed = lanes = 0;
        goto reload;
      }
      vmcase(BAR) {
        int parked;
        if (!m) vmbreak;
        fr->pc = pc;
        if ((s = do_bar(r, w, fr, i, pc, m, &parked))) goto fail;
        if (parked) { /* the warp's other lanes run on until they exit or arrive too */
          if (fr->active) vmbreak; /* lanes whose guard was false go past the barrier */
          if (fr->live) {
            resched(fr);
            pc = fr->pc;
            continue;
          }
          r->st->warp_insns += executed; /* no lane of the frame left to run here */
          r->st->thread_insns += lanes;
          executed = lanes = 0;
          goto reload;
        }
        if (i->cmp) vmbreak; /* bar.arrive: the warp does not wait */
        fr->pc = pc + 1;
        if (fr->pc == fr->wait_min) { save_active(fr, fr->active, fr->pc); resched(fr); }
        goto out;
      }
      vmcase(CALL) {
        if (!m) vmbreak;
        fr->pc = pc;
        if ((s = do_call(r, w, i, m))) goto fail;
        r->st->warp_insns += executed;
        r->st->thread_insns += lanes;
        executed = lanes = 0;
        goto reload;
      }
    }
  next:
    pc++;
    if (pc >= fr->wait_min) {
      save_active(fr, fr->active, pc);
      resched(fr);
      pc = fr->pc;
    }
  }
fail:
  fr->pc = pc;
out:
  r->st->warp_insns += executed;
  r->st->thread_insns += lanes;
  return s;
}

/* ---- CTAs ----------------------------------------------------------------------------- */

static void init_warps(struct run *r)
{
  for (uint32_t j = 0; j < r->nwarps; j++) {
    struct warp *w = &r->warps[j];
    uint32_t first = j * 32, n = r->nthreads - first;
    while (w->depth) pop_frame(w);
    w->index = j;
    w->present = n >= 32 ? FULL_MASK : (UINT32_C(1) << n) - 1;
    w->exited = 0;
    w->parked = 0;
    w->state = W_READY;
    w->lused = 0;
    if (w->local) memset(w->local, 0, 32 * w->lcap);
    memset(w->dyn, 0, (r->c->insns.len ? r->c->insns.len : 1) * sizeof *w->dyn);
    push_frame(r, w, &r->c->funcs[0], w->present);
  }
}

/* After the CTA's scheduling loop: warps still waiting at a barrier can never go on.
 * Errors: CC_ERR_KERNEL naming each barrier waited at (id, PTX line of the first warp
 * there, warps waiting, warps it expects, the thread count if any) and the exited warps. */
static int deadlock_check(struct run *r)
{
  char msg[900];
  size_t n = 0;
  uint32_t done = 0, groups = 0, seen = 0; /* seen: bit id = barrier already listed */
  for (uint32_t j = 0; j < r->nwarps; j++) done += r->warps[j].state == W_DONE;
  for (uint32_t j = 0; j < r->nwarps; j++) {
    const struct warp *w = &r->warps[j];
    uint32_t waiting = 0, id = w->bar;
    if (w->state != W_WAIT || (seen >> id & 1)) continue;
    seen |= UINT32_C(1) << id;
    for (uint32_t k = j; k < r->nwarps; k++)
      waiting += r->warps[k].state == W_WAIT && r->warps[k].bar == id;
    if (n < sizeof msg)
      n += (size_t)snprintf(msg + n, sizeof msg - n,
                            "%s%u warps wait at barrier %u (PTX line %u), which expects %u "
                            "warps%s",
                            groups++ ? "; " : "", waiting, id, w->bar_line,
                            bar_expected(r, id), r->bar_count[id] ? " (a thread count)" : "");
  }
  if (!groups) return CC_OK;
  return cc_err_set(r->err, CC_ERR_KERNEL,
                    "barrier deadlock in kernel %s, block (%u,%u,%u): %s; %u warps exited; "
                    "every non-exited thread of the block must reach each barrier (exited "
                    "threads release only barriers without a thread count)",
                    r->k->name, r->cta[0], r->cta[1], r->cta[2], msg, done);
}

static int run_cta(struct run *r)
{
  int any_ready = 1;
  memset(r->shared, 0, r->shared_size);
  memset(r->bar_arrived, 0, sizeof r->bar_arrived);
  memset(r->bar_count, 0, sizeof r->bar_count);
  r->live_warps = r->nwarps;
  r->cta_start = r->st->warp_insns;
  if (r->cta_budget) r->stop_at = sat_add(r->cta_start, r->cta_budget);
  init_warps(r);
  while (any_ready) {
    any_ready = 0;
    for (uint32_t j = 0; j < r->nwarps; j++) {
      struct warp *w = &r->warps[j];
      int s;
      if (w->state != W_READY) continue;
      any_ready = 1;
      if ((s = run_warp(r, w))) return s;
    }
  }
  return deadlock_check(r);
}

/* Packs launch->params per the kernel's .param declarations. */
static int pack_params(struct run *r)
{
  const struct ptx_function *k = r->k;
  const struct dfunc *df = &r->c->funcs[0];
  if (r->L->nparams != k->nparams)
    return cc_err_set(r->err, CC_ERR_INPUT,
                      "kernel %s takes %u parameters but the launch gives %u; pass one "
                      "--arg per parameter",
                      k->name, k->nparams, r->L->nparams);
  r->kparam = cc_xcalloc(r->c->kparam_size ? r->c->kparam_size : 1, 1);
  for (uint32_t j = 0; j < k->nparams; j++) {
    const struct ptx_var *v = &k->vars[k->param_vars[j]];
    uint32_t n = r->L->param_bytes ? r->L->param_bytes[j] : 0;
    if (n != v->size_bytes)
      return cc_err_set(r->err, CC_ERR_INPUT,
                        "parameter %u (%s) of kernel %s is %" PRIu64 " bytes but the launch "
                        "gives %u bytes; check the argument's type",
                        j, v->name, k->name, v->size_bytes, n);
    if (n && (!r->L->params || !r->L->params[j]))
      return cc_err_set(r->err, CC_ERR_INTERNAL, "parameter %u of kernel %s has no value",
                        j, k->name);
    if (n) memcpy(r->kparam + df->var_off[k->param_vars[j]], r->L->params[j], n);
  }
  return CC_OK;
}

static int check_launch(struct run *r)
{
  const struct cc_emu_launch *L = r->L;
  uint64_t threads = (uint64_t)L->block[0] * L->block[1] * L->block[2];
  for (int c = 0; c < 3; c++)
    if (L->grid[c] == 0 || L->block[c] == 0)
      return cc_err_set(r->err, CC_ERR_INPUT,
                        "launch of kernel %s has a zero grid or block dimension "
                        "(grid %ux%ux%u, block %ux%ux%u); every dimension must be >= 1",
                        r->k->name, L->grid[0], L->grid[1], L->grid[2], L->block[0],
                        L->block[1], L->block[2]);
  if (threads > 1024)
    return cc_err_set(r->err, CC_ERR_INPUT,
                      "launch of kernel %s has %" PRIu64 " threads per block; at most 1024",
                      r->k->name, threads);
  r->nthreads = (uint32_t)threads;
  r->nwarps = (r->nthreads + 31) / 32;
  /* the kernel frames' register files: refuse what would exhaust the host */
  if ((uint64_t)r->c->funcs[0].ntotal * 32 * 8 * r->nwarps > (UINT64_C(1) << 31))
    return cc_err_set(r->err, CC_ERR_INPUT,
                      "kernel %s declares %u registers: %u warps of them need more than 2 GiB "
                      "of host memory; use fewer threads per block",
                      r->k->name, r->c->funcs[0].nregs, r->nwarps);
  return CC_OK;
}

static void release_run(struct run *r)
{
  if (r->warps)
    for (uint32_t j = 0; j < r->nwarps; j++) {
      for (uint32_t f = 0; f < r->warps[j].nslots; f++) {
        free(r->warps[j].fr[f].R);
        free(r->warps[j].fr[f].param);
      }
      free(r->warps[j].fr);
      free(r->warps[j].local);
      free(r->warps[j].dyn);
    }
  free(r->warps);
  free(r->shared);
  free(r->kparam);
}

/* ---- runs ----------------------------------------------------------------------------- */

/* see emu_internal.h */
int emu_run_new(struct cc_emu *emu, const struct ptx_function *k,
                const struct cc_emu_launch *launch, struct cc_access_sink *sink,
                struct cc_emu_stats *stats, struct cc_err *err, struct run **out)
{
  struct run *r = cc_xcalloc(1, sizeof *r);
  int s;
  *out = NULL;
  r->emu = emu;
  r->k = k;
  r->L = launch;
  r->sink = sink;
  r->st = stats;
  r->err = err;
  if ((s = emu_code_get(emu, k, &r->c, err))) goto fail;
  if ((s = check_launch(r)) || (s = pack_params(r))) goto fail;
  r->cta_budget = emu->opts.max_warp_insns ? 0 : cc_emu_cta_budget(r->nthreads);
  r->stop_at = emu->opts.max_warp_insns;
  r->next_note = NOTE_EVERY;
  r->shared_size = r->c->shared_dyn_base + launch->dynamic_shared_bytes;
  if (r->c->shared_static > r->shared_size) r->shared_size = r->c->shared_static;
  if (r->shared_size > SHARED_MAX) {
    s = cc_err_set(err, CC_ERR_INPUT,
                   "kernel %s needs %" PRIu64 " bytes of shared memory per block (%" PRIu64
                   " static, %u dynamic); at most %u on sm_90: lower the dynamic size",
                   k->name, r->shared_size, r->c->shared_static, launch->dynamic_shared_bytes,
                   SHARED_MAX);
    goto fail;
  }
  r->shared = cc_xcalloc(r->shared_size ? r->shared_size : 1, 1);
  r->warps = cc_xcalloc(r->nwarps, sizeof *r->warps);
  for (uint32_t j = 0; j < r->nwarps; j++)
    r->warps[j].dyn = cc_xcalloc(r->c->insns.len ? r->c->insns.len : 1, sizeof *r->warps[j].dyn);
  *out = r;
  return CC_OK;
fail:
  emu_run_free(r);
  return s;
}

void emu_run_free(struct run *r)
{
  if (!r) return;
  release_run(r);
  free(r);
}

void emu_run_set_hooks(struct run *r, const struct emu_hooks *hooks)
{
  r->hooks = hooks;
}

void emu_run_kernel_info(const struct run *r, struct cc_kernel_info *ki)
{
  memset(ki, 0, sizeof *ki);
  ki->name = ki->mangled = r->k->name;
  memcpy(ki->grid, r->L->grid, sizeof ki->grid);
  memcpy(ki->block, r->L->block, sizeof ki->block);
  ki->n_insns = (uint32_t)r->c->insns.len;
  ki->insns = r->c->insns.data;
  ki->n_shared_vars = (uint32_t)r->c->shared_vars.len;
  ki->shared_vars = r->c->shared_vars.data;
}

int emu_run_cta(struct run *r, uint64_t cta)
{
  uint64_t gx = r->L->grid[0], gy = r->L->grid[1];
  r->cta[0] = (uint32_t)(cta % gx);
  r->cta[1] = (uint32_t)(cta / gx % gy);
  r->cta[2] = (uint32_t)(cta / (gx * gy));
  /* a worker's counters start again at each CTA: so does its progress schedule */
  if (r->hooks) r->next_note = sat_add(r->st->warp_insns, NOTE_EVERY);
  return run_cta(r);
}

/* CTAs first .. end-1 in x, then y, then z order on this thread, with progress on stderr. */
static int run_serial(struct run *r, uint64_t first, uint64_t end)
{
  int s = CC_OK;
  emu_progress_start(&r->prog, r->emu, r->k->name, end - first);
  for (uint64_t c = first; c < end; c++) {
    if ((s = emu_run_cta(r, c))) break;
    r->st->ctas_done++;
    emu_progress_note(&r->prog, r->st->ctas_done, r->st->warp_insns, -1.0);
  }
  emu_progress_end(&r->prog, s == CC_OK, r->st->ctas_done, r->st->warp_insns);
  return s;
}

/* The serial run's sink with partials: each record to the partial, then to the ordered
 * sink if it has an access. */
struct split_sink {
  const struct cc_access_partials *partials;
  void *part;                        /* opened after begin_kernel */
  struct cc_access_sink *ordered;
};

static int split_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct split_sink *t = ctx;
  int s = t->partials->access(t->part, a, err);
  if (!s && t->ordered && t->ordered->access) s = t->ordered->access(t->ordered->ctx, a, err);
  return s;
}

int cc_emu_run(struct cc_emu *emu, const struct ptx_function *k,
               const struct cc_emu_launch *launch, struct cc_access_sink *sink,
               struct cc_emu_stats *stats, struct cc_err *err)
{
  return cc_emu_run_split(emu, k, launch, sink, NULL, stats, err);
}

int cc_emu_run_split(struct cc_emu *emu, const struct ptx_function *k,
                     const struct cc_emu_launch *launch, struct cc_access_sink *sink,
                     const struct cc_access_partials *partials, struct cc_emu_stats *stats,
                     struct cc_err *err)
{
  struct run *r;
  struct cc_kernel_info ki;
  struct cc_emu_stats dummy;
  struct split_sink split = {partials, NULL, sink};
  struct cc_access_sink serial = {&split, NULL, split_access, NULL};
  int s;
  uint64_t total, first, end;
  uint32_t jobs;
  if (!stats) stats = &dummy;
  memset(stats, 0, sizeof *stats);
  stats->jobs = 1;
  if ((s = emu_run_new(emu, k, launch, partials ? &serial : sink, stats, err, &r))) return s;
  emu_run_kernel_info(r, &ki);
  if (sink && sink->begin_kernel && (s = sink->begin_kernel(sink->ctx, &ki, err))) {
    emu_run_free(r);
    return s;
  }
  total = (uint64_t)launch->grid[0] * launch->grid[1] * launch->grid[2];
  first = emu->opts.cta_first < total ? emu->opts.cta_first : total;
  end = emu->opts.cta_count && emu->opts.cta_count < total - first
            ? first + emu->opts.cta_count : total;
  jobs = emu_par_jobs(emu, r->c, end - first, &stats->serial_reason);
  stats->jobs = jobs;
  if (jobs > 1) {
    s = emu_par_run(emu, k, launch, first, end, jobs, sink, partials, stats, err);
  } else {
    if (partials) split.part = partials->open(partials->ctx);
    s = run_serial(r, first, end);
    if (partials) {
      struct cc_err e2;
      int s2 = partials->close(partials->ctx, split.part, !s, s ? &e2 : err);
      if (!s) s = s2;
    }
  }
  if (sink && sink->end_kernel) {
    struct cc_err e2;
    int s2;
    memset(&e2, 0, sizeof e2);
    s2 = sink->end_kernel(sink->ctx, s ? &e2 : err);
    if (!s) s = s2;
  }
  emu_run_free(r);
  return s;
}
