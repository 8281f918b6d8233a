/* coalcheck emulator, private to the interpreter's files (exec.c, exec_mem.c): the run
 * state of one CTA (its warps and their call frames) and the helpers both use. */
#ifndef CC_EMU_EXEC_IMPL_H
#define CC_EMU_EXEC_IMPL_H

#include <stdint.h>
#include <string.h>

#include "emu/emu_internal.h"

/* body over the lanes of mask m; the full-mask loop has no test so that it vectorises
 * (`before`: what precedes that loop, a loop pragma or nothing) */
#define LANES_LOOP(before, m, stmt)                                                     \
  do {                                                                                  \
    if ((m) == FULL_MASK) {                                                             \
      before for (unsigned l = 0; l < 32; l++) { stmt; }                                \
    } else {                                                                            \
      for (uint32_t mm_ = (m); mm_; mm_ &= mm_ - 1) {                                   \
        unsigned l = (unsigned)__builtin_ctz(mm_);                                      \
        stmt;                                                                           \
      }                                                                                 \
    }                                                                                   \
  } while (0)
#define LANES(m, stmt) LANES_LOOP(, m, stmt)

/* LANES for a statement that writes lane l of one register from lane l of others
 * (d[l] = f(a[l], b[l], ...): an ALU instruction). Registers are whole arrays of 32 lanes
 * (fr->R + r x 32), so a destination is either another array than a source or the same
 * one, never a shifted copy, and each lane reads only its own elements before it writes:
 * no lane depends on another, which ivdep tells the compiler (it would otherwise test the
 * arrays' overlap at run time, a test -O2's vectoriser does not make). Not for stores
 * through lane pointers (two lanes may write one address: the last one wins). Clang's
 * spelling of the promise is its own (an unknown pragma is a warning, an error here). */
#if defined(__clang__)
#define LANES_INDEPENDENT _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define LANES_INDEPENDENT _Pragma("GCC ivdep")
#else
#define LANES_INDEPENDENT
#endif
#define LANES_ELEMENTWISE(m, stmt) LANES_LOOP(LANES_INDEPENDENT, m, stmt)

/* bit conversions between register values and host floats */
static inline float F32(uint64_t v)
{
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint64_t B32(float f)
{
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
/* f32 results: NaN becomes the GPU's canonical NaN 0x7fffffff */
static inline uint64_t C32(float f)
{
  return f != f ? UINT64_C(0x7fffffff) : B32(f);
}
static inline double F64(uint64_t v)
{
  double f;
  memcpy(&f, &v, 8);
  return f;
}
static inline uint64_t B64(double f)
{
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}

/* population count without relying on the host's popcnt instruction (SWAR) */
static inline unsigned popcount32(uint32_t x)
{
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
}

/* ---- run state ---------------------------------------------------------------------- */

struct frame {
  const struct dfunc *df;
  uint64_t *R;            /* registers, [ntotal][32] */
  uint8_t *param;         /* frame .param, [32][param_size] */
  uint64_t local_base;    /* offset of this frame's .local in each lane's window */
  uint32_t pc, active, live, returned, wait_min;
  uint32_t call_pc;       /* in the caller: index of the call */
  uint32_t pcs[32];       /* PCs of live lanes that wait (valid when not active) */
  size_t rcap, pcap;      /* allocated elements of R, bytes of param (slot reuse) */
};

enum { W_READY, W_WAIT, W_DONE };

/* A warp's barrier arrival. The ISA's barrier waits "for all non-exited threads from its
 * warp" before it "marks warps' arrival", so the lanes that reach a barrier while others
 * of the warp are elsewhere are parked (taken out of their frame's live mask, their PC
 * set past the barrier) until the rest either exit or arrive at the same instruction;
 * only then does the warp count as arrived (see do_bar, finish_park). */
struct warp {
  uint32_t index, present, exited;
  int state;
  uint32_t bar, bar_line;  /* barrier id and PTX line of the arrival under way / waited at */
  uint32_t bar_cnt;        /* its thread count b, 0 = all threads of the CTA */
  uint32_t bar_lanes;      /* lanes that arrived (parked, or the whole warp at once) */
  uint32_t bar_yes;        /* bar.red: lanes of bar_lanes whose predicate is true */
  uint32_t parked;         /* lanes parked at the barrier (0: none) */
  uint32_t park_pc, park_depth; /* where they are parked: instruction index, frame depth */
  uint8_t bar_sync, bar_op; /* waits (bar.sync/red, not arrive); bar.red op (setout) */
  int32_t bar_dst;        /* bar.red: destination register in the top frame, or -1 */
  struct frame *fr;
  uint32_t depth, cap, nslots; /* frames in use, allocated, initialised slots */
  uint8_t *local;         /* [32][lcap] */
  uint64_t lcap, lused;
  uint64_t *dyn;          /* per access slot */
};

struct run {
  struct cc_emu *emu;
  const struct ptx_function *k;
  const struct cc_emu_launch *L;
  const struct code *c;   /* decoded once per kernel, cached in the emulator */
  struct cc_access_sink *sink;
  struct cc_emu_stats *st;
  struct cc_err *err;
  uint8_t *kparam;
  uint8_t *shared;
  uint64_t shared_size;
  uint32_t cta[3];
  uint32_t nthreads, nwarps;
  struct warp *warps;
  uint32_t bar_arrived[16];   /* warps arrived at each barrier since its last release */
  uint32_t bar_count[16];     /* thread count b of the last arrival, 0 = all threads */
  uint64_t bar_red[16];       /* bar.red: popc sum, or and/or flag */
  uint32_t live_warps;        /* warps of the CTA not yet done (some lane not exited) */
  uint64_t stop_at;           /* warp_insns at which the run stops: the launch's budget, or
                                 the end of the running CTA's default budget */
  uint64_t cta_budget;        /* each CTA's default budget; 0: one launch budget */
  uint64_t cta_start;         /* warp_insns when the running CTA began */
  uint64_t next_note;         /* warp_insns at which run_warp next looks at the clock */
  struct cc_warp_access rec;
  struct emu_progress prog;
  const struct emu_hooks *hooks; /* a worker of a parallel run (par.c), or NULL: serial */
};

/* the 32 lanes of register r of a frame */
static inline uint64_t *reg(const struct frame *fr, int32_t r)
{
  return fr->R + (size_t)r * 32;
}

/* The thread index (x, y, z) in its CTA of lane `lane` of warp `warp`. exec.c. */
void emu_exec_thread_of(const struct run *r, uint32_t warp, unsigned lane, uint32_t t[3]);

/* Where instruction i of frame fr is, for messages: "kernel K, PTX line L 'text', source
 * file:line" into buf (size bytes, always terminated). exec.c. */
void emu_exec_where(const struct run *r, const struct frame *fr, const struct dinsn *i,
                    char *buf, size_t size);

/* Sets r->err to status st, "WHAT by thread (x,y,z) in block (x,y,z): WHERE", and returns
 * st. exec.c. */
int emu_exec_lane_error(struct run *r, struct warp *w, const struct frame *fr,
                        const struct dinsn *i, unsigned lane, enum cc_status st,
                        const char *what);

/* ld / st of lanes m of warp w: every lane's address resolved first (a fault stops the
 * run before any effect: the error names the thread), the warp record delivered to the
 * sink, then the data moved. Returns CC_OK or the error's status. exec_mem.c. */
int emu_exec_ldst(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                  uint32_t m);

/* atom / red of lanes m: serialised in lane order (one of the orders the GPU may pick);
 * global atomics are host compare-and-swap, so parallel CTAs (par.c) stay exact.
 * exec_mem.c. */
int emu_exec_atom(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                  uint32_t m);

/* cp.async of lanes m: the global read and the shared write at once, zero-filling past
 * src-size. exec_mem.c. */
int emu_exec_cpasync(struct run *r, struct warp *w, struct frame *fr, const struct dinsn *i,
                     uint32_t m);

#endif
