/* Internals shared by the files of src/fix (not part of the module's interface). */
#ifndef CC_FIX_FIX_IMPL_H
#define CC_FIX_FIX_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "affine/affine.h"
#include "analysis/analysis.h"
#include "fix/fix.h"
#include "model/model.h"
#include "util/mem.h"

/* ---- measuring one launch in the emulator (measure.c) -------------------------------- */

/* One buffer argument after the run: a copy of its bytes. */
struct cc_fix_buffer {
  char *name;              /* owned */
  enum ptx_type type;
  uint64_t bytes;
  uint8_t *data;           /* owned: bytes */
};

/* A launch emulated with the sm_90 sector model as the sink. */
struct cc_fix_measure {
  struct cc_model *model;        /* owned */
  struct cc_analysis *an;        /* owned; one finished kernel */
  struct cc_fix_buffer *bufs; uint32_t nbufs; /* every buffer argument, in argument order */
  int64_t *param_values;         /* owned: the kernel parameters' values as the kernel loads
                                    them (sign- or zero-extended by their PTX type) */
  uint8_t *param_known;          /* owned: 1 where param_values holds an integer scalar */
  uint32_t nparams;
  uint64_t warp_insns;           /* emulator counters */
  double seconds;                /* wall time of the emulation */
};

/* The launch of a measurement: borrowed parts of cc_fix_opts with a geometry. */
struct cc_fix_launch {
  uint32_t grid[3], block[3];
  uint32_t shared_bytes;
  const struct cc_launch_arg *args; size_t nargs;
  uint64_t max_insns;
  uint64_t max_memory;           /* bytes all buffers may take; 0 = no limit */
  const struct cc_fix_relayout *relayouts; uint32_t nrelayouts; /* borrowed; may be 0 */
};

/* The launch of kernel o->kernel's arguments (o->args, budget, memory cap) with the given
 * geometry and dynamic shared bytes, without relayouts. */
struct cc_fix_launch cc_fix_launch_make(const struct cc_fix_opts *o, const uint32_t grid[3],
                                       const uint32_t block[3], uint32_t shared_bytes);

/* A change of one buffer's layout made by a fix (AoS -> SoA), or a preparation of its
 * contents for a measurement (the absolute values of cc_fix_reassociation_ok): to_fix
 * rewrites the buffer's bytes as the launch bound them (the original's layout) into the
 * fix's, in place and at the same size, before the kernel runs; from_fix, when not NULL,
 * turns the run's final bytes back into the original's layout before they are copied for
 * the comparison. ctx belongs to whoever made the relayout (free_ctx, may be NULL). */
struct cc_fix_relayout {
  char *buffer;                  /* owned: the buffer argument's name (its --arg NAME=...) */
  void *ctx;
  void (*to_fix)(const void *ctx, uint8_t *data, uint64_t bytes);
  void (*from_fix)(const void *ctx, uint8_t *data, uint64_t bytes);
  void (*free_ctx)(void *ctx);
  char *launch_layout;           /* owned or NULL: the same change as a launch file's LAYOUT
                                    ("soa(24,0,8,12,16,20)", launch.h), written into
                                    DIR/KERNEL.launch so that its launch reproduces the fix */
};

/* Emulates kernel k of m (an .entry) with launch l, its arguments bound and filled as the
 * main job does (same initialisers and seeds, so two runs start from identical buffers),
 * into *out (zeroed first; release with cc_fix_measure_release even on failure). Errors:
 * those of cc_launch_bind and cc_emu_run. */
int cc_fix_measure(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *k,
                   const struct cc_fix_launch *l, struct cc_fix_measure *out,
                   struct cc_err *err);
void cc_fix_measure_release(struct cc_fix_measure *r);

/* The kernel's results of a measurement (its one kernel). */
const struct cc_kernel_stats *cc_fix_measure_kernel(const struct cc_fix_measure *r);

/* Compares every buffer of a and b byte for byte. Returns 1 when all are equal; else 0
 * and a one-line description of the first difference in why (size bytes): the buffer,
 * the element index and both values. */
int cc_fix_buffers_equal(const struct cc_fix_measure *a, const struct cc_fix_measure *b,
                         char *why, size_t size);

/* Compares every buffer of fix with orig, where orig's f32 and f64 buffers may differ from
 * the fix's by the error of a reassociated sum (a reduction redistributed over a warp):
 * element i passes when it is bitwise equal, both are NaN, or
 *   |orig_i - fix_i| <= 2 * gamma(n) * abs_i,  gamma(n) = n u / (1 - n u)
 * with u the unit roundoff (2^-24 for f32, 2^-53 for f64), n = terms + 2 (the sum's terms
 * plus the operations around it) and abs_i element i of absrun: the original kernel run
 * on the absolute values of its float inputs, which for a sum of products of inputs is
 * sum |x_j y_j|, the quantity of the classical bound (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., Sec. 4.2: |s^ - s| <= gamma(n-1) sum |x_i|; two orders
 * each within it of the exact sum). Other buffers and types compare bitwise. Returns 1
 * when all pass, with *max_rel the largest |orig_i - fix_i| / bound_i seen; else 0 and a
 * one-line description of the first failing element in why (size bytes). */
int cc_fix_reassociation_ok(const struct cc_fix_measure *orig, const struct cc_fix_measure *fix,
                            const struct cc_fix_measure *absrun, uint64_t terms,
                            double *max_rel, char *why, size_t size);

/* ---- the thread-geometry permutation (permute.c) ------------------------------------- */

/* sigma[e] = the new dimension taking the role of old dimension e (cuda/cuda.h). */
struct cc_fix_perm {
  int sigma[3];
};

/* The 6 permutations of {0,1,2}, identity first. */
extern const struct cc_fix_perm cc_fix_perms[6];

/* "identity", "x<->y", "x<->z", "y<->z", "x->y->z->x", "x->z->y->x" (static storage). */
const char *cc_fix_perm_name(const struct cc_fix_perm *p);

/* The permuted launch: grid'[sigma[e]] = grid[e], likewise block. Returns 0 and sets a
 * reason in why (size bytes) when the permuted block breaks CUDA's per-dimension limits
 * (1024, 1024, 64; CUDA C Programming Guide, technical specifications) or the grid's
 * (2^31-1, 65535, 65535); else 1. */
int cc_fix_perm_geometry(const struct cc_fix_perm *p, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t grid_out[3], uint32_t block_out[3],
                         char *why, size_t size);

/* Rewrites the PTX text (len bytes) of module m, whose kernel is k: every %tid, %ntid,
 * %ctaid, %nctaid component in k and in the .func it calls (transitively) becomes its
 * sigma image, and k's .reqntid/.maxntid triple is permuted; every other byte unchanged.
 * *out is owned by the caller (NUL terminated, *out_len bytes). Errors: CC_ERR_NO_FIX when
 * a called .func is also called from another kernel (the rewrite cannot be consistent;
 * the message names it). */
int cc_fix_permute_ptx(const char *text, size_t len, cc_keep const struct ptx_module *m,
                       cc_keep const struct ptx_function *k, const struct cc_fix_perm *p,
                       cc_give char **out, size_t *out_len, struct cc_err *err);

/* The first instruction in k or its callees that makes a permutation observable (CGO
 * 2015 keeps each thread's arithmetic, so only warp membership can change a result):
 * shfl, vote, match, redux, activemask, bar.warp.sync, %laneid, %warpid, %lanemask_*,
 * volatile shared-memory accesses (warp-synchronous code). Returns 1 and fills *f_out,
 * *insn_out; 0 when there is none. */
int cc_fix_warp_dependent(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *k,
                          const struct ptx_function **f_out, uint32_t *insn_out,
                          char *what, size_t size);

/* Whether k or a function it calls has an atomic or reduction (atom, red): their order
 * across threads changes with the geometry, so results may differ bitwise (floating-point
 * sums) without a bug. */
int cc_fix_uses_atomics(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *k);

/* Whether the block of k may be reshaped (threads regrouped into blocks of another shape,
 * the grid adjusted so that the same global indices exist): only when each thread's work
 * depends on nothing but its global index blockIdx.d * blockDim.d + threadIdx.d, i.e.
 * every %ctaid.d, %ntid.d and %tid.d is read once, into a register used only by the
 * mad.lo forming that index, no %nctaid is read, no callee reads the geometry, and no
 * shared memory or barrier ties threads to their CTA. Returns 1, or 0 with the reason in
 * why (size bytes). */
int cc_fix_reshape_legal(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *k,
                         char *why, size_t size);

/* A block of the same thread count whose x extent is the largest power of two dividing
 * the x extent of the launch (grid x block), then y likewise, z the rest (at most 64),
 * and the grid that covers the same extents exactly. Returns 1 when such a shape exists
 * and differs from block; else 0. */
int cc_fix_reshape(const uint32_t grid[3], const uint32_t block[3], uint32_t grid_out[3],
                   uint32_t block_out[3]);

/* Thread coarsening of a reshaped launch (src/cuda/plays.h): each thread plays
 * CC_FIX_PLAYS threads along y. The rule: k (whose reshape is legal: its threads' work
 * depends on their global index alone) is straight-line code with nothing that waits on
 * another thread (no loop, call, atomic, volatile access, fence), y of the reshaped grid
 * is divisible by CC_FIX_PLAYS, and at least CC_FIX_PLAYS_MIN_CTAS CTAs remain (an H100
 * holds 132 x 8 CTAs of 256 threads: about 4 waves). Why: such a kernel moves a few
 * bytes a thread, and its CTAs live too short for the SMs to stay full; on an H100, 64 MiB
 * of one float a thread: 2153 GB/s, with 4 plays a thread 2325
 * (bench/results/table3-h100.md, 2026-11-27 05:40). Returns CC_FIX_PLAYS, or 1 (none). */
#define CC_FIX_PLAYS 4u
#define CC_FIX_PLAYS_MIN_CTAS 4096u
uint32_t cc_fix_plays(cc_keep const struct ptx_function *k, const uint32_t grid[3]);

/* The loads-first plays' cost rule (src/cuda/plays.h): at most this many values kept a
 * thread from phase A to phase B (loads a play x plays). Measured on an H100
 * (bench/table3/plays_probe.cu, 2026-11-27, two calls; % of the 1 GiB copy): cell3d, 1
 * load a play, 2/4/8 plays (2, 4, 8 kept) 81-83/86-88/87%, against 75% one after the
 * other; fan2, 5-6 loads a play, 2 plays (10-12 kept) 71% as one after the other, 4
 * plays (20-24) 62-67% against 71-73%, 8 plays 46%. Past about 8 the live values cost
 * more occupancy than the overlapped loads gain. */
#define CC_FIX_LOADS_FIRST_MAX_KEPT 8u

/* ---- the cost model (cost.c) ---------------------------------------------------------- */

/* Predicted sectors of the kernel's global accesses (plus wavefronts of its shared ones)
 * when old thread dimension e becomes new dimension p->sigma[e] and the block is nb (the
 * original block is block): for each affine access, the distinct 32-byte sectors of
 * every warp of one CTA of nb (addresses base + sum_e coeff_e * tid_e, base
 * sector-aligned), averaged over the CTA's warps and weighted by the instruction's
 * measured requests; a non-affine access keeps its measured sectors. *unknown counts the
 * requests whose access had no usable form. The paper's ILP (Sec. 4.2.2) minimises a
 * linear surrogate of this over permutation matrices; the 6 matrices are enumerated, so
 * the minimum is exact. */
double cc_fix_model_sectors(cc_keep const struct cc_affine_kernel *ak,
                            const struct cc_affine_env *env,
                            cc_keep const struct cc_kernel_stats *before,
                            const struct cc_fix_perm *p, const uint32_t block[3],
                            const uint32_t nb[3], uint64_t *unknown);

/* ---- source transformations (lift.c, redistribute.c, tile.c, soa.c), run by xform.c --- */

/* Relayouts that replace every f32 and f64 buffer argument of the launch by its absolute
 * values before the run (the |x| run of cc_fix_reassociation_ok), into *out (owned;
 * release each with cc_fix_relayouts_free). Returns how many. */
uint32_t cc_fix_abs_relayouts(const struct cc_launch_arg *args, size_t nargs,
                              cc_give struct cc_fix_relayout **out);

/* The magnitude kernel of the |x| run: module m with every float subtraction made an
 * addition (sub.f32/.f64 -> add), every negation an absolute value (neg -> abs) and every
 * float immediate's sign dropped, so that the run on the absolute values of the inputs
 * gives, for any kernel made of sums and products, sum |terms| of each output through
 * the arithmetic after the reduction too: lbm's `f + omega * (rho / 19 - f)` cancels in
 * the plain |x| run, whose figure then bounds nothing (running error analysis' bound,
 * Higham Sec. 3.3, to first order). *out owned (ptx_module_free); errors: a failure to
 * print or re-parse (CC_ERR_INTERNAL, CC_ERR_IO). */
int cc_fix_magnitude_module(cc_keep const struct ptx_module *m,
                            cc_give struct ptx_module **out, struct cc_err *err);

/* Frees n relayouts (their names and contexts) and the array. */
void cc_fix_relayouts_free(struct cc_fix_relayout *r, uint32_t n);

/* How a candidate's outputs must compare with the original's. */
enum cc_fix_compare {
  CC_FIX_COMPARE_BITWISE,        /* every buffer byte for byte */
  CC_FIX_COMPARE_REASSOCIATED    /* floats within cc_fix_reassociation_ok's bound */
};

/* One rewritten kernel proposed by a source transformation. The transformation fills the
 * first part; xform.c compiles, emulates, compares and fills the rest. */
struct cc_fix_xcand {
  const char *transform;         /* "lift", "redistribute", "tile", "soa" (static) */
  char what[256];                /* one line: what was done, where: "the loop over k at
                                    gemv.cu:14 spread over the 32 lanes of a warp (warp
                                    shuffle)" */
  char why[1024];                /* why it should help (shown by --transform auto), or "" */
  char *text; size_t len;        /* owned: the whole rewritten input (CUDA C) */
  int alternate;                 /* 1: proposed for measurement, but the transformation's
                                    own rule (in why) prefers another of its candidates:
                                    without a GPU it is chosen only when none of those is
                                    verified; with --backend gpu it competes by time
                                    (redistribute's other lanes per thread) */
  uint32_t grid[3], block[3];    /* the fixed kernel's launch */
  uint32_t shared_bytes;         /* its dynamic shared memory per CTA */
  enum cc_fix_compare compare;
  uint64_t terms;                /* REASSOCIATED: the most terms one output value sums */
  struct cc_fix_relayout *relayouts; uint32_t nrelayouts; /* owned: buffers whose layout
                                    the fix changes (soa), applied when it is verified */
  char *extra_name, *extra_text; /* owned or NULL: one more file for DIR and its name (the
                                    host-side conversion routines of soa) */
  char *launch_note;             /* owned or NULL: what the caller's launch must change */
  /* filled by xform.c */
  struct cc_fix_measure run;     /* owned: the fix emulated (kept for the chosen one) */
  int measured, verified;
  uint64_t sectors, excess_sectors, wavefronts;
  double max_rel;                /* REASSOCIATED: largest error / bound seen */
  double gpu_ms;                 /* median GPU time, or 0 */
  char failure[512];             /* why it was not verified, or "" */
};

typedef CC_VEC(struct cc_fix_xcand) cc_fix_xcands;

/* Frees what c owns (text, relayouts and their contexts, extra file, note); zeroes it. */
void cc_fix_xcand_release(struct cc_fix_xcand *c);

/* A source transformation: appends to out one or more candidates for kernel
 * o->kernel_name of the CUDA input o->input_text, whose original run is before (its
 * parameter values, per-instruction requests and sectors); or returns CC_ERR_NO_FIX with
 * the reason as the message, naming the construct and FILE:LINE:COL ("gemv.cu:12:5: the
 * loop over k has a non-affine bound"). Other errors (CC_ERR_TOOL: libclang) pass. */
typedef int (*cc_fix_xform_fn)(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                               cc_fix_xcands *out, struct cc_err *err);

/* 1 when the loads-first plays (src/cuda/plays.h) are legal for kernel o->kernel_name
 * (CUDA C input, the launch and parameter values of before), proved on its affine subset
 * with isl (cc_fix_poly_loads_first: no element shared between threads, none read after
 * the same thread wrote it); else 0 with the reason, "FILE:LINE:COL: ..." where the
 * kernel leaves the affine subset (nothing is proved: refused), in why (size bytes). */
int cc_fix_loads_first_legal(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                             char *why, size_t size);

struct cc_cuda_vclass;

/* The vector plays (src/cuda/plays.h, cc_cuda_plays_vector; src/fix/README.md, "Vector
 * plays") for kernel o->kernel_name (CUDA C, the launch and parameter values of before)
 * after a permutation whose new x is the original's dimension d, the reshaped block bx
 * threads wide in x: 1 with *v (4 for 4-byte elements, 2 for 8-byte ones: 16-byte
 * accesses) and the kind of every statement's accesses to each array (*cls, owned, *ncls
 * entries), proved with isl on the affine subset (src/fix/poly.c): the loads-first plays
 * legal, no element written by two statements, a vector access only in a statement whose
 * domain holds whole aligned groups of *v threads along d, with stride 1 along d and its
 * index a multiple of *v at g_d = *v k, a broadcast a load of stride 0 there. Else 0 with
 * the reason in why (size bytes), *cls NULL. */
int cc_fix_vector_plan(const struct cc_fix_opts *o, const struct cc_fix_measure *before, int d,
                       uint32_t bx, uint32_t *v, cc_give struct cc_cuda_vclass **cls,
                       size_t *ncls, char *why, size_t size);

/* 1 when the threads of kernel o->kernel_name (CUDA C input, launch and parameter values
 * of before) touch a common element, one writing (a race, decided on the affine subset
 * with isl, src/fix/poly.c), with "FILE:LINE:COL: threads of kernel K share an element
 * (ARRAY: ...)" in why (size bytes); 0 when they do not or the kernel is outside the
 * affine subset (then nothing is known). Used when a fix's outputs differ: a racy
 * kernel's result depends on the order of its threads, which every fix changes. */
int cc_fix_threads_race(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        char *why, size_t size);

int cc_fix_lift(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                cc_fix_xcands *out, struct cc_err *err);         /* lift.c */
int cc_fix_redistribute(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        cc_fix_xcands *out, struct cc_err *err); /* redistribute.c */
int cc_fix_tile(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                cc_fix_xcands *out, struct cc_err *err);         /* tile.c */
int cc_fix_soa(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
               cc_fix_xcands *out, struct cc_err *err);          /* soa.c */
int cc_fix_pad(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
               cc_fix_xcands *out, struct cc_err *err);          /* pad.c */

/* ---- the plan: one record from choice to output (fix.c, emit.c) ----------------------- */

/* One candidate permutation. */
struct cc_fix_candidate {
  struct cc_fix_perm perm;
  int reshaped;                  /* the block was also reshaped (cc_fix_reshape) */
  uint32_t plays;                /* reshaped, CUDA C: threads each thread plays along y
                                    (cc_fix_plays; grid[1] already divided), else 1 */
  uint32_t vec;                  /* vector plays instead: threads each thread plays along x
                                    (2 or 4; block[0] already divided), else 1 */
  uint32_t yplays;               /* vec > 1: the plays along y it replaced */
  char vec_why[200];             /* plays, not vector: why (cc_fix_vector_plan) */
  int legal;                     /* the permuted launch fits CUDA's limits */
  char why[160];                 /* !legal: why not */
  uint32_t grid[3], block[3];    /* the permuted launch */
  double model_cost;             /* predicted global sectors + shared wavefronts */
  int measured;                  /* emulated (empirical strategy, or the chosen one) */
  uint64_t sectors, excess_sectors, wavefronts; /* measured */
  double gpu_ms;                 /* median kernel time on the GPU, or 0 */
};

/* One refusal line's reason at most (bytes), and p->refusals: the six transformations of
 * `--transform auto` (permute, lift, redistribute, tile, soa, pad) with room to spare. */
#define CC_FIX_REFUSAL_MAX 800
#define CC_FIX_REFUSALS_MAX (6 * (CC_FIX_REFUSAL_MAX + 24) + 256)

struct cc_fix_plan {
  struct cc_fix_candidate cands[12]; /* cc_fix_perms order, then the same 6 with the block
                                    reshaped; [0] is the original */
  int ncands;                    /* 6, or 12 when the block may be reshaped */
  char no_reshape[256];          /* why the block may not be reshaped */
  int chosen;                    /* index into cands, or -1 */
  double model_seconds, empirical_seconds; /* time each strategy took to decide */
  uint64_t unknown_requests;     /* requests of accesses without a usable affine form */
  int unit_dims;                 /* thread dimensions some global access is unit-stride along */
  char worst_note[640];          /* what the static form of the worst access says that its
                                    dynamic advice cannot (worst_note's), else "" */
  char *text; size_t len;        /* owned: the rewritten input */
  char *launch_note;             /* owned or NULL: what the caller's launch must change */
  char plays_form[640];          /* plays: "vector ...", "loads first", or "one after the
                                    other: WHY" */
  char remaining[1024];          /* verified fix: what stays uncoalesced and why, or "" */
  char warp_note[512];           /* a lane id or warpSize in the source (cuda.h), or "" */
  struct cc_fix_measure before, after; /* the original and the chosen fix, emulated */
  int verified;                  /* buffers bitwise equal and fewer excess sectors */
  char reason[CC_FIX_REFUSALS_MAX + 256]; /* no fix: why (the refusals, one a line) */
  double gpu_ms_before, gpu_ms_after; int gpu_runs; /* --backend gpu */
  /* the chosen fix, whichever transformation made it: what emit.c, json.c and the
     summary print (the permutation fills these too) */
  const char *transform;         /* "permute", "lift", ...; NULL: none chosen */
  char what[256];                /* one line: what was done (cc_fix_xcand.what) */
  char why[1280];                /* auto: why it was chosen */
  uint32_t grid[3], block[3], shared_bytes; /* the fixed launch */
  enum cc_fix_compare compare; uint64_t terms; double max_rel;
  cc_fix_xcands x;               /* owned: the source transformations' candidates */
  int xchosen;                   /* index into x, or -1 (the permutation or nothing) */
  char refusals[CC_FIX_REFUSALS_MAX]; /* each transformation that did not apply, and why,
                                    one "NAME: reason" a line */
  struct cc_fix_measure absrun;  /* the original on |inputs| (cc_fix_reassociation_ok) */
  int have_absrun;
};

/* ---- why no permutation helps (explain.c) ---- */

/* Fills p->worst_note and p->unit_dims from the static forms ak of o's kernel under env
 * (the launch) and the original's measured figures before (CGO 2015 Sec. 4.2.2's stride
 * classes): whether the worst access's address is data-dependent or a unit stride in a
 * block narrower than a warp, and along how many thread dimensions some global access
 * has a unit stride (2 or more: a transposition). */
void cc_fix_static_notes(const struct cc_fix_opts *o, cc_keep const struct cc_affine_kernel *ak,
                         const struct cc_affine_env *env,
                         cc_keep const struct cc_kernel_stats *before, struct cc_fix_plan *p);

/* p->reason when no permutation lowers the excess: no legal launch, a transposition,
 * shared-memory excess only, the static note, the measured advice, or strides that do not
 * come from the thread dimensions; one line. */
void cc_fix_explain_no_gain(const struct cc_fix_opts *o, struct cc_fix_plan *p);

/* Runs the source transformations o->transform selects (every one for CC_FIX_T_AUTO) on
 * the kernel measured in p->before: each one's candidates are appended to p->x, compiled
 * by o->compiler, emulated with their own launch and relayouts (cc_xcand.run) and judged:
 * outputs bitwise equal (or within cc_fix_reassociation_ok's bound for reassociated
 * sums), no more global sectors and less excess than the original; a transformation that
 * does not apply, and a candidate that does not improve, add a line to p->refusals.
 * Errors: CC_ERR_INTERNAL when a candidate does not compile, fails in the emulator or
 * changes the outputs (a bug: nothing may be written), except for kernels with atomics,
 * whose reordering makes that a refusal; the transformations' own errors (CC_ERR_TOOL). */
int cc_fix_xform_run(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err);

/* printf into the fixed field dst (size bytes), cut to fit: a cut reason is still a
 * reason, and vsnprintf keeps gcc's truncation warnings for the true snprintf calls. */
void cc_fix_setf(char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Appends the line "name: reason" to p->refusals: the reason's runs of white space (a
 * quoted statement's line breaks and indentation) become one space, and a reason longer
 * than CC_FIX_REFUSAL_MAX bytes is cut there with "...", so that every transformation's
 * line fits, the last one (pad) too. */
void cc_fix_refusal_add(struct cc_fix_plan *p, const char *name, const char *reason);

void cc_fix_plan_release(struct cc_fix_plan *p);

/* Writes o->out_dir whole or not at all: the rewritten input under the input's file
 * name, KERNEL.launch (runnable as `coalcheck --launch DIR/KERNEL.launch`, with the
 * original's --arg list, initialisers and seeds) and fix.diff (`diff -u`). A non-empty
 * existing DIR is replaced only with o->force. Errors: CC_ERR_USAGE (DIR not empty),
 * CC_ERR_IO (what failed and where). */
int cc_fix_emit_dir(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                    struct cc_err *err);

/* Checks, before any work, that o->out_dir can be written: absent, an empty folder, or
 * (o->force) a folder. Errors: CC_ERR_USAGE. */
int cc_fix_check_dir(const struct cc_fix_opts *o, struct cc_err *err);

/* Writes the --json report of plan p (before, after, every candidate with its cost under
 * each strategy, the choice, verified, the reason), whole or not at all. Errors:
 * CC_ERR_IO. */
int cc_fix_write_json(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                      struct cc_err *err);

/* ---- after a verified fix (remaining.c) ------------------------------------------------ */

/* The memory instructions of one source line, access kind and space, summed before ([0])
 * and after ([1]) a fix: a rewrite may unroll or split them differently, so instructions
 * do not pair one to one; lines do. units: sectors (shared: wavefronts). */
struct cc_fix_line_row {
  uint32_t line;
  enum cc_access_kind kind;
  enum cc_space space;
  uint64_t req[2], units[2], excess[2], ideal[2]; /* requests; units; excess and ideal
                                                     sectors */
};
typedef CC_VEC(struct cc_fix_line_row) cc_fix_line_rows;

/* Adds k's instructions into rows at side `after` (0 before, 1 after), a row per source
 * line, kind and space in the order first seen; the caller frees rows (CC_VEC_FREE). */
void cc_fix_line_rows_add(cc_fix_line_rows *rows, cc_keep const struct cc_kernel_stats *k,
                          int after);

/* Writes into p->remaining (1 KiB, truncated) what p->after leaves uncoalesced: per
 * source line and access kind, summed over its PTX instructions, its sectors per request
 * and the ideal, for the lines with at least 1% of the kernel's sectors in excess; "" when
 * none. With permuted (the fix is Sec. 4.2's permutation) and a line that was coalesced
 * before, it adds that the permutation moved the excess between accesses contiguous along
 * different thread dimensions (a transposition), which shared-memory tiling fixes. */
void cc_fix_explain_remaining(struct cc_fix_plan *p, int permuted);

#endif

