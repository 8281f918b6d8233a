/* coalcheck emulator: the memory instructions of the interpreter (exec.c): ld, st, atom,
 * red and cp.async over the state spaces, each warp access delivered to the access sink
 * as one warp record. Private to exec*.c (exec_impl.h).
 * Source: PTX ISA 9.0, sections 9.7.9 (data movement) and 9.7.13 (atomics); the state
 * spaces of chapter 5. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "emu/exec_impl.h"

/* ---- memory ------------------------------------------------------------------------- */

enum { MS_GLOBAL, MS_SHARED, MS_LOCAL, MS_CONST, MS_PARAM };

static const char *kind_word(int fam)
{
  return fam == F_LD ? "read" : fam == F_ST ? "write" : "atomic";
}

static const char *ms_name(int ms)
{
  static const char *const n[] = {"global", "shared", "local", "constant", "param"};
  return n[ms];
}

/* Resolves lane l's access of size bytes at addr (in space sp of the instruction) to
 * host memory. *ms and *off receive the resolved space and the address or offset
 * reported to the sink. Errors: CC_ERR_KERNEL (misaligned), CC_ERR_MEMCHECK. */
static int resolve_as(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                      unsigned l, uint64_t addr, int sp, int fam, uint32_t size,
                      uint8_t **host, int *ms, uint64_t *off)
{
  uint64_t lim = 0;
  char what[600], desc[300];
  *off = addr;
  switch (sp) {
  case PTX_SPACE_GLOBAL: *ms = MS_GLOBAL; break;
  case PTX_SPACE_SHARED: *ms = MS_SHARED; break;
  case PTX_SPACE_LOCAL: *ms = MS_LOCAL; break;
  case PTX_SPACE_CONST: *ms = MS_CONST; break;
  case PTX_SPACE_PARAM: *ms = MS_PARAM; break;
  default: /* generic: by window */
    if (addr - WIN_SHARED < WIN_SIZE) { *ms = MS_SHARED; *off = addr - WIN_SHARED; }
    else if (addr - WIN_LOCAL < WIN_SIZE) { *ms = MS_LOCAL; *off = addr - WIN_LOCAL; }
    else if (addr - WIN_CONST < WIN_SIZE) { *ms = MS_CONST; *off = addr - WIN_CONST; }
    else *ms = MS_GLOBAL;
  }
  if (addr & (size - 1)) { /* sizes are powers of two: 1..32 */
    snprintf(what, sizeof what, "misaligned address: %s %s of size %u at 0x%" PRIx64,
             ms_name(*ms), kind_word(fam), size, addr);
    return emu_exec_lane_error(r, w, fr, i, l, CC_ERR_KERNEL, what);
  }
  if (*ms == MS_CONST && fam != F_LD) {
    snprintf(what, sizeof what, "invalid %s to constant memory of size %u at 0x%" PRIx64,
             kind_word(fam), size, addr);
    return emu_exec_lane_error(r, w, fr, i, l, CC_ERR_MEMCHECK, what);
  }
  switch (*ms) {
  case MS_GLOBAL: {
    struct region *g = emu_find_region(r->emu, addr, size);
    if (g) { *host = g->host + (addr - g->base); return CC_OK; }
    emu_describe_global(r->emu, addr, desc, sizeof desc);
    snprintf(what, sizeof what, "invalid global %s of size %u at 0x%" PRIx64, kind_word(fam),
             size, addr);
    break;
  }
  case MS_SHARED:
    lim = r->shared_size;
    if (*off <= lim && size <= lim - *off) { *host = r->shared + *off; return CC_OK; }
    snprintf(desc, sizeof desc, "offset %" PRIu64 " is outside the block's %" PRIu64
             " bytes of shared memory", *off, lim);
    snprintf(what, sizeof what, "invalid shared %s of size %u at 0x%" PRIx64, kind_word(fam),
             size, addr);
    break;
  case MS_LOCAL:
    lim = w->lused;
    if (*off <= lim && size <= lim - *off) { *host = w->local + l * w->lcap + *off; return CC_OK; }
    snprintf(desc, sizeof desc, "offset %" PRIu64 " is outside the thread's %" PRIu64
             " bytes of local memory", *off, lim);
    snprintf(what, sizeof what, "invalid local %s of size %u at 0x%" PRIx64, kind_word(fam),
             size, addr);
    break;
  case MS_CONST:
    lim = r->emu->const_size;
    if (*off <= lim && size <= lim - *off) { *host = r->emu->constbank + *off; return CC_OK; }
    snprintf(desc, sizeof desc, "offset %" PRIu64 " is outside the module's %" PRIu64
             " bytes of constant memory", *off, lim);
    snprintf(what, sizeof what, "invalid constant read of size %u at 0x%" PRIx64, size, addr);
    break;
  default: /* param */
    if (addr >= FRAME_PARAM) {
      uint64_t o = addr - FRAME_PARAM, ps = fr->df->param_size;
      if (o <= ps && size <= ps - o) { *host = fr->param + l * ps + o; return CC_OK; }
    } else if (addr <= r->c->kparam_size && size <= r->c->kparam_size - addr) {
      if (fam == F_LD) { *host = r->kparam + addr; return CC_OK; }
    }
    snprintf(desc, sizeof desc, "outside the parameters");
    snprintf(what, sizeof what, "invalid param %s of size %u at 0x%" PRIx64, kind_word(fam),
             size, addr);
    break;
  }
  {
    char loc[700];
    uint32_t t[3];
    emu_exec_thread_of(r, w->index, l, t);
    emu_exec_where(r, fr, i, loc, sizeof loc);
    return cc_err_set(r->err, CC_ERR_MEMCHECK,
                      "%s by thread (%u,%u,%u) in block (%u,%u,%u): %s; address is %s", what,
                      t[0], t[1], t[2], r->cta[0], r->cta[1], r->cta[2], loc, desc);
  }
}

/* resolve_as with the instruction's own space, kind and size */
static int resolve(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                   unsigned l, uint64_t addr, uint8_t **host, int *ms, uint64_t *off)
{
  return resolve_as(r, w, fr, i, l, addr, i->space, i->fam, i->size, host, ms, off);
}

static uint64_t load_bytes(const uint8_t *p, unsigned n)
{
  uint64_t v = 0;
  memcpy(&v, p, n); /* little-endian host, as the GPU */
  return v;
}

static void store_bytes(uint8_t *p, uint64_t v, unsigned n)
{
  memcpy(p, &v, n);
}

/* Delivers the access records of one instruction (one per resolved space present). */
/* Delivers the records of one execution of slot by lanes mask: one per resolved space
 * present (generic accesses may touch several); counts them in the stats. */
static int deliver_slot(struct run *r, struct warp *w, uint32_t slot, uint32_t size,
                        uint32_t mask, const uint64_t *offs, const uint8_t *mss)
{
  static const enum cc_space map[] = {CC_SPACE_GLOBAL, CC_SPACE_SHARED, CC_SPACE_LOCAL};
  uint32_t sub[MS_LOCAL + 1] = {0}, seen = 0;
  uint64_t dyn;
  uint8_t ms0, diff = 0;
  if (slot == UINT32_MAX || mask == 0) return CC_OK;
  dyn = w->dyn[slot]++;
  /* the common case: every lane in one space (a .global or .shared instruction), found
   * without the per-lane updates of sub[] through memory */
  ms0 = mss[__builtin_ctz(mask)];
  LANES(mask, diff |= (uint8_t)(mss[l] ^ ms0));
  if (!diff) {
    if (ms0 <= MS_LOCAL) sub[ms0] = mask;
  } else {
    for (uint32_t m = mask; m; m &= m - 1) {
      unsigned l = (unsigned)__builtin_ctz(m);
      if (mss[l] <= MS_LOCAL) sub[mss[l]] |= UINT32_C(1) << l;
    }
  }
  for (int ms = MS_GLOBAL; ms <= MS_LOCAL; ms++) seen += sub[ms] != 0;
  r->st->warp_accesses += seen;
  if (!r->sink || !r->sink->access) return CC_OK;
  for (int ms = MS_GLOBAL; ms <= MS_LOCAL; ms++) {
    uint32_t act = sub[ms];
    int s;
    if (!act) continue;
    r->rec.insn_slot = slot;
    memcpy(r->rec.cta, r->cta, sizeof r->rec.cta);
    r->rec.warp = w->index;
    r->rec.dyn = dyn;
    r->rec.kind = r->c->insns.data[slot].kind;
    r->rec.space = map[ms];
    r->rec.size_bytes = size;
    r->rec.active = act;
    if (act == FULL_MASK) memcpy(r->rec.addr, offs, sizeof r->rec.addr);
    else for (unsigned l = 0; l < 32; l++) r->rec.addr[l] = (act >> l & 1) ? offs[l] : 0;
    if ((s = r->sink->access(r->sink->ctx, &r->rec, r->err))) return s;
  }
  return CC_OK;
}

static int deliver(struct run *r, struct warp *w, const struct dinsn *i, uint32_t mask,
                   const uint64_t *offs, const uint8_t *mss)
{
  return deliver_slot(r, w, i->slot, i->size, mask, offs, mss);
}

static uint64_t lane_addr(const struct frame *fr, const struct dinsn *i, unsigned l)
{
  uint64_t a = (uint64_t)i->disp;
  if (i->areg >= 0) a += reg(fr, i->areg)[l];
  if (i->addr32)
    a = (uint32_t)a; /* 32-bit address arithmetic (PTX ISA, "Addresses as Operands") */
  return a + (i->disp_local ? fr->local_base : 0);
}

/* fast_resolve's .global case for a whole warp, in loops without a test per lane (the
 * mask's walk, lane_addr's per-instruction branches) that the compiler can vectorise:
 * every lane's address, then one test of them all (aligned, inside the first lane's
 * allocation), then the host pointers. Returns 0, with offs written but nothing else
 * decided, when a lane is unaligned or outside that allocation: fast_resolve's lane by
 * lane walk (several allocations) or the general path (the error) decide then. */
static int global_warp(struct run *r, const struct frame *fr, const struct dinsn *i,
                       uint8_t **host, uint64_t *offs, uint8_t *mss)
{
  uint64_t size = i->size, bad = 0;
  const struct region *g;
  if (i->areg >= 0 && !i->addr32) {
    const uint64_t *R = reg(fr, i->areg);
    uint64_t add = (uint64_t)i->disp + (i->disp_local ? fr->local_base : 0);
    for (unsigned l = 0; l < 32; l++) offs[l] = R[l] + add;
  } else {
    for (unsigned l = 0; l < 32; l++) offs[l] = lane_addr(fr, i, l);
  }
  for (unsigned l = 0; l < 32; l++) bad |= offs[l] & (size - 1); /* sizes: powers of two */
  if (bad || !(g = emu_find_region(r->emu, offs[0], size))) return 0;
  for (unsigned l = 0; l < 32; l++) { /* (an offset past the end makes the second test 1) */
    uint64_t o = offs[l] - g->base;
    bad |= (uint64_t)(o >= g->size) | (uint64_t)(size > g->size - o);
  }
  if (bad) return 0;
  for (unsigned l = 0; l < 32; l++) host[l] = g->host + (offs[l] - g->base);
  memset(mss, MS_GLOBAL, 32);
  return 1;
}

/* The common case of resolve() for all lanes at once: .global (the lanes hit the
 * allocation of the first lane), a kernel parameter or .shared, aligned and in bounds.
 * Returns 0 when any lane needs the general path (which also reports the error), 2 for a
 * kernel parameter (every lane the same bytes: a load reads them once), else 1. */
static int fast_resolve(struct run *r, const struct frame *fr, const struct dinsn *i,
                        uint32_t m, uint8_t **host, uint64_t *offs, uint8_t *mss)
{
  uint64_t size = i->size;
  if (i->space == PTX_SPACE_GLOBAL && m == FULL_MASK && global_warp(r, fr, i, host, offs, mss))
    return 1;
  if (i->space == PTX_SPACE_GLOBAL) {
    const struct region *g = NULL;
    for (uint32_t mm = m; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      uint64_t a = lane_addr(fr, i, l);
      if (a & (size - 1)) return 0; /* sizes are powers of two */
      if (!g || a - g->base >= g->size || size > g->size - (a - g->base)) {
        g = emu_find_region(r->emu, a, size);
        if (!g) return 0;
      }
      host[l] = g->host + (a - g->base);
      offs[l] = a;
      mss[l] = MS_GLOBAL;
    }
    return 1;
  }
  if (i->space == PTX_SPACE_PARAM && i->areg < 0 && (uint64_t)i->disp < FRAME_PARAM &&
      i->fam == F_LD) { /* a kernel parameter: the same bytes for every lane */
    uint64_t a = (uint64_t)i->disp;
    if ((a & (size - 1)) || a > r->c->kparam_size || size > r->c->kparam_size - a) return 0;
    LANES(m, {
      host[l] = r->kparam + a;
      offs[l] = a;
      mss[l] = MS_PARAM;
    });
    return 2;
  }
  if (i->space == PTX_SPACE_SHARED) {
    for (uint32_t mm = m; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      uint64_t a = lane_addr(fr, i, l);
      if ((a & (size - 1)) || a > r->shared_size || size > r->shared_size - a) return 0;
      host[l] = r->shared + a;
      offs[l] = a;
      mss[l] = MS_SHARED;
    }
    return 1;
  }
  return 0;
}

/* ld / st: resolve every lane first (a fault stops the run before any effect), deliver
 * the record, then move the data. */
int emu_exec_ldst(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                  uint32_t m)
{
  uint8_t *host[32];
  uint64_t offs[32] = {0};
  uint8_t mss[32] = {0};
  unsigned es = i->w / 8, n = i->fam == F_LD ? i->nd : i->ns;
  int s, fast = fast_resolve(r, fr, i, m, host, offs, mss);
  if (!fast) {
    for (uint32_t mm = m; mm; mm &= mm - 1) {
      unsigned l = (unsigned)__builtin_ctz(mm);
      int ms;
      s = resolve(r, w, fr, i, l, lane_addr(fr, i, l), &host[l], &ms, &offs[l]);
      if (s) return s;
      mss[l] = (uint8_t)ms;
    }
  }
  if ((s = deliver(r, w, i, m, offs, mss))) return s;
  if (i->fam == F_LD) {
    for (unsigned e = 0; e < n; e++) {
      uint64_t *d;
      if (i->d[e] < 0) continue;
      d = reg(fr, i->d[e]);
      if (fast == 2) { /* a kernel parameter: one value for every lane */
        uint64_t v = emu_norm(load_bytes(host[__builtin_ctz(m)] + e * es, es), i->w, i->k);
        LANES(m, d[l] = v);
        continue;
      }
      if (es == 4 && i->k != K_S) { /* the common case, with a constant size */
        LANES(m, {
          uint32_t v;
          memcpy(&v, host[l] + e * 4, 4);
          d[l] = v;
        });
        continue;
      }
      for (uint32_t mm = m; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        d[l] = emu_norm(load_bytes(host[l] + e * es, es), i->w, i->k);
      }
    }
  } else {
    for (unsigned e = 0; e < n; e++) {
      const uint64_t *a;
      if (i->s[e] < 0) continue;
      a = reg(fr, i->s[e]);
      if (es == 4) {
        LANES(m, {
          uint32_t v = (uint32_t)a[l];
          memcpy(host[l] + e * 4, &v, 4);
        });
        continue;
      }
      for (uint32_t mm = m; mm; mm &= mm - 1) {
        unsigned l = (unsigned)__builtin_ctz(mm);
        store_bytes(host[l] + e * es, a[l], es);
      }
    }
  }
  return CC_OK;
}

static uint64_t atom_op(const struct dinsn *i, uint64_t old, uint64_t b, uint64_t c)
{
  uint64_t mask = i->w == 64 ? UINT64_MAX : UINT64_C(0xffffffff);
  old &= mask;
  switch (i->mode) {
  case PTX_MODE_ADD:
    if (i->k == K_F) return i->w == 32 ? B32(F32(old) + F32(b)) : B64(F64(old) + F64(b));
    return (old + b) & mask;
  case PTX_MODE_MIN:
  case PTX_MODE_MAX: {
    int lt;
    if (i->k == K_S)
      lt = i->w == 32 ? (int32_t)b < (int32_t)old : (int64_t)b < (int64_t)old;
    else
      lt = (b & mask) < old;
    if (i->mode == PTX_MODE_MIN) return lt ? b & mask : old;
    return (!lt && (b & mask) != old) ? b & mask : old;
  }
  case PTX_MODE_INC: return old >= (b & mask) ? 0 : old + 1;
  case PTX_MODE_DEC: return (old == 0 || old > (b & mask)) ? b & mask : old - 1;
  case PTX_MODE_CAS: return old == (b & mask) ? c & mask : old;
  case PTX_MODE_EXCH: return b & mask;
  case PTX_MODE_AND: return old & b;
  case PTX_MODE_OR: return (old | b) & mask;
  case PTX_MODE_XOR: return (old ^ b) & mask;
  default: return old;
  }
}

/* One lane's atomic read-modify-write of the es (4 or 8) bytes at p, made atomic on the
 * host (a compare-and-swap loop) because other workers' CTAs may update the same global
 * word at the same time (par.c). Returns the old value, zero-extended. */
static uint64_t host_atomic(const struct dinsn *i, uint8_t *p, unsigned es, uint64_t b,
                            uint64_t c)
{
  if (es == 4) {
    uint32_t *q = (uint32_t *)(void *)p; /* aligned: checked, regions are 256-aligned */
    uint32_t old = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &old, (uint32_t)atom_op(i, old, b, c), 0,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
  }
  {
    uint64_t *q = (uint64_t *)(void *)p;
    uint64_t old;
    assert(es == 8); /* the decoder refuses 16-bit and vector atomics */
    old = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &old, atom_op(i, old, b, c), 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED)) {
    }
    return old;
  }
}

/* atom / red: lanes serialised in lane order (one of the orders the GPU may pick) */
int emu_exec_atom(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                  uint32_t m)
{
  uint8_t *host[32];
  uint64_t offs[32] = {0};
  uint8_t mss[32] = {0};
  unsigned es = i->w / 8;
  const uint64_t *b = reg(fr, i->s[0]), *c = i->s[1] >= 0 ? reg(fr, i->s[1]) : NULL;
  uint64_t *d = i->d[0] >= 0 ? reg(fr, i->d[0]) : NULL;
  int s;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    int ms;
    s = resolve(r, w, fr, i, l, lane_addr(fr, i, l), &host[l], &ms, &offs[l]);
    if (s) return s;
    if (ms != MS_GLOBAL && ms != MS_SHARED) {
      char what[200];
      snprintf(what, sizeof what, "atomic on %s memory at 0x%" PRIx64 " (only global and shared)",
               ms_name(ms), lane_addr(fr, i, l));
      return emu_exec_lane_error(r, w, fr, i, l, CC_ERR_KERNEL, what);
    }
    mss[l] = (uint8_t)ms;
  }
  if ((s = deliver(r, w, i, m, offs, mss))) return s;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint64_t old;
    if (r->hooks && mss[l] == MS_GLOBAL) { /* other threads' CTAs may race on the word */
      old = host_atomic(i, host[l], es, b[l], c ? c[l] : 0);
    } else {
      old = load_bytes(host[l], es);
      store_bytes(host[l], atom_op(i, old, b[l], c ? c[l] : 0), es);
    }
    if (d) d[l] = old;
  }
  return CC_OK;
}

/* cp.async: the global read and the shared write at once, zero-filling past src-size */
int emu_exec_cpasync(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                     uint32_t m)
{
  uint8_t *src[32], *dst[32], mss[32] = {0}, msd[32] = {0};
  uint64_t offs[32] = {0}, offd[32] = {0};
  const uint64_t *ss = i->s[0] >= 0 ? reg(fr, i->s[0]) : NULL;
  int s;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint64_t a = (uint64_t)i->disp2 + (i->disp2_local ? fr->local_base : 0);
    int ms;
    if (i->areg2 >= 0) a += reg(fr, i->areg2)[l];
    s = resolve_as(r, w, fr, i, l, a, PTX_SPACE_GLOBAL, F_LD, i->size, &src[l], &ms, &offs[l]);
    if (s) return s;
    mss[l] = (uint8_t)ms;
    s = resolve_as(r, w, fr, i, l, lane_addr(fr, i, l), PTX_SPACE_SHARED, F_ST, i->size,
                   &dst[l], &ms, &offd[l]);
    if (s) return s;
    msd[l] = (uint8_t)ms;
  }
  if ((s = deliver_slot(r, w, i->slot2, i->size, m, offs, mss))) return s;
  if ((s = deliver_slot(r, w, i->slot, i->size, m, offd, msd))) return s;
  for (uint32_t mm = m; mm; mm &= mm - 1) {
    unsigned l = (unsigned)__builtin_ctz(mm);
    uint64_t n = ss ? (uint32_t)ss[l] : i->size;
    if (n > i->size) n = i->size;
    memmove(dst[l], src[l], n);
    memset(dst[l] + n, 0, i->size - n);
  }
  return CC_OK;
}
