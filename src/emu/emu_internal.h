/* coalcheck emulator internals: the decoded instruction form, frames, warps, memory
 * windows. Private to src/emu (see README.md for the execution model). */
#ifndef CC_EMU_INTERNAL_H
#define CC_EMU_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include "emu/emu.h"
#include "util/mem.h"

#define FULL_MASK 0xffffffffu

/* Generic address windows (generic address = window base + offset in the space). Global
 * addresses are generic addresses unchanged. Each window is 4 GiB. */
#define WIN_LOCAL UINT64_C(0x00007c0000000000)
#define WIN_SHARED UINT64_C(0x00007d0000000000)
#define WIN_CONST UINT64_C(0x00007e0000000000)
#define WIN_SIZE (UINT64_C(1) << 32)
#define GLOBAL_BASE UINT64_C(0x00007f0000000000)
#define GLOBAL_GAP UINT64_C(4096) /* bytes of no-man's-land between allocations */
/* .param space: kernel parameters at [0, kparam_size); a frame's call-sequence and
 * .func parameters at FRAME_PARAM + offset (per lane). */
#define FRAME_PARAM UINT64_C(0x100000000)

#define CALL_DEPTH_MAX 64
#define LOCAL_MAX (512u * 1024u)  /* bytes of .local per thread and function (CUDA's limit) */
#define LOCAL_STACK_MAX (1024u * 1024u) /* bytes of .local per thread over all frames */
#define SHARED_MAX (227u * 1024u) /* bytes of shared memory per block (sm_90) */

/* pseudo-registers holding special registers, after the function's real registers */
enum {
  SR_TID = 0, SR_NTID = 3, SR_CTAID = 6, SR_NCTAID = 9, SR_LANEID = 12, SR_WARPID,
  SR_NWARPID, SR_SMID, SR_NSMID, SR_GRIDID, SR_CLOCK, SR_CLOCK64, SR_GTIMER,
  SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE, SR_LANEMASK_GT, SR_LANEMASK_GE,
  SR_DSMEM, SR_TSMEM,
  SR_CARRY, /* not a special register: the frame's carry flag (add.cc, addc) */
  SR_COUNT
};

/* handler index of a decoded instruction */
enum handler {
#define H(x) H_##x,
#include "emu/handlers.def"
#undef H
  H_COUNT
};

/* families: the base opcode, by name (the table ptx_ops.def grows independently) */
enum family {
  F_NONE, F_ADD, F_SUB, F_MUL, F_MAD, F_FMA, F_DIV, F_REM, F_ABS, F_NEG, F_MIN, F_MAX,
  F_MOV, F_LD, F_ST, F_CVT, F_CVTA, F_SETP, F_SELP, F_BRA, F_RET, F_EXIT, F_BAR,
  F_BARRIER, F_AND, F_OR, F_XOR, F_NOT, F_SHL, F_SHR, F_CALL, F_ATOM, F_RED, F_SHFL,
  F_VOTE, F_MATCH, F_ACTIVEMASK, F_SQRT, F_RSQRT, F_RCP, F_EX2, F_LG2, F_SIN, F_COS,
  F_POPC, F_CLZ, F_BREV, F_BFE, F_BFI, F_PRMT, F_SLCT, F_SET, F_COPYSIGN, F_MEMBAR,
  F_FENCE, F_TRAP, F_NANOSLEEP, F_TESTP, F_CNOT, F_MUL24, F_MAD24, F_SAD, F_BFIND,
  F_LDU, F_PMEVENT, F_BRKPT, F_ADDC, F_SUBC, F_MADC, F_LOP3, F_SHF, F_ISSPACEP, F_REDUX,
  F_PREFETCH, F_CP, F_TANH, F_BMSK, F_SZEXT, F_ELECT, F_HINT, F_CREATEPOLICY, F_COUNT
};

/* type classes */
enum { K_U, K_S, K_F, K_P }; /* unsigned/bits, signed, float, predicate */

/* operand roles: register index in the frame's register file (real registers, then
 * SR_COUNT special registers, then constants); -1 = none or "_" */
struct dinsn {
  uint16_t h;          /* enum handler */
  uint8_t fam;         /* enum family */
  uint8_t t, t2;       /* instruction type, second type (cvt source, wide sources) */
  uint8_t w, k;        /* width in bits and class of t */
  uint8_t w2, k2;      /* ... of t2 */
  uint8_t rnd, cmp, boolop, mode, space, vec, nd, ns;
  uint8_t guard_neg, cvta_space, reads_clock, sneg; /* sneg: bit j = source j negated (!%p) */
  uint8_t setout;      /* set: 1 = all ones / 0, 2 = 1.0f / 0; bar.red: 1 popc, 2 and, 3 or */
  uint32_t flags;
  int32_t guard;
  int32_t d[4];        /* destinations */
  int32_t s[5];        /* sources */
  /* memory operand: address = R[areg] + disp (+ frame local base when disp_local) */
  int32_t areg, areg2;  /* areg2/disp2: cp.async's source address */
  uint8_t disp_local, disp2_local;
  uint8_t addr32;      /* areg is a 32-bit register: R[areg] + disp wraps modulo 2^32, as
                          the hardware's 32-bit address arithmetic does (nvcc folds a
                          negative base into [%r+imm] of .shared) */
  int64_t disp, disp2;
  uint32_t size;       /* bytes per lane accessed (element size x vec) */
  uint32_t slot;       /* access slot in the kernel's insn table, or UINT32_MAX */
  uint32_t slot2;      /* cp.async: the slot of its global read */
  uint32_t target;     /* branch target */
  uint32_t index;      /* index of the PTX instruction */
  int32_t callee;      /* call: index of the dfunc in the run, -1 none */
  uint32_t call_first, call_nargs, call_nret; /* call: operands in ptx_function.opnds */
  uint32_t call_args_at; /* operand index of the first argument (after an indirect target) */
};

struct dconst {
  uint64_t value;
  uint8_t local;       /* add the frame's local base */
};

/* A function decoded for one run. */
struct dfunc {
  const struct ptx_function *f;
  uint32_t findex;     /* index in ptx_module.funcs */
  struct dinsn *code;
  uint32_t ncode;
  uint32_t nregs;      /* real registers */
  uint32_t ntotal;     /* nregs + SR_COUNT + nconst */
  struct dconst *consts;
  uint32_t nconst, cconst;
  uint64_t *var_off;   /* function var -> offset in its space (param: full address) */
  uint64_t local_size; /* bytes per lane of .local variables */
  uint64_t param_size; /* bytes per lane of frame .param variables */
};

struct region {
  uint64_t base, size;
  uint8_t *host;
  char *name;
};

struct cc_emu {
  const struct ptx_module *m;
  struct cc_emu_opts opts;
  double progress_after_s, progress_every_s; /* cc_emu_progress_timing; 0: the defaults */
  CC_VEC(struct region) regions; /* global allocations and module .global vars, by base */
  uint64_t next_global;
  uint64_t *mvar_addr;           /* module var -> address / offset in its space */
  uint8_t *mvar_bad;             /* module var with an initializer we cannot evaluate */
  uint8_t *constbank;
  uint64_t const_size;
  uint64_t mshared_size;         /* module-scope .shared variables (static) */
  struct code **codes;           /* decoded kernels (cache), ncodes of them */
  uint32_t ncodes;
};

/* The decoded code of one run: the kernel (funcs[0]) and the .func it reaches. */
struct code {
  struct dfunc *funcs;
  uint32_t nfuncs;
  int32_t *func_map;             /* module function index -> funcs index, or -1 */
  CC_VEC(struct cc_insn_info) insns; /* static memory instructions (the sink's table) */
  CC_VEC(struct cc_shared_var) shared_vars; /* .shared variables of the run (names borrowed
                                               from the module), for the sink */
  uint64_t *mvar;                /* module var -> address (global), offset (const,
                                    shared) for this run */
  uint64_t shared_static;        /* bytes of static .shared (module + functions) */
  uint64_t shared_dyn_base;      /* offset of extern (dynamic) .shared */
  uint64_t kparam_size;          /* bytes of packed kernel parameters */
};

/* Decodes kernel k and every .func it calls (decode.c). Errors: CC_ERR_UNSUPPORTED
 * listing each unsupported instruction. */
int emu_decode(struct cc_emu *emu, const struct ptx_function *k, struct code *c,
               struct cc_err *err);
void emu_code_release(struct code *c);
/* The decoded code of kernel k, decoded on first use and kept until cc_emu_free
 * (emu.c). Errors: as emu_decode (not cached). */
int emu_code_get(struct cc_emu *emu, const struct ptx_function *k, const struct code **out,
                 struct cc_err *err);

/* Global memory: the region holding [addr, addr+size), or NULL (emu.c). */
struct region *emu_find_region(struct cc_emu *emu, uint64_t addr, uint64_t size);
/* "N bytes after the end of buffer 'B' (0x..., S bytes)" or "not in any allocation" */
void emu_describe_global(struct cc_emu *emu, uint64_t addr, char *buf, size_t size);

/* float helpers (fpu.c) */
uint64_t emu_fop(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c);
uint64_t emu_cvt(const struct dinsn *i, uint64_t a);
int emu_setp_f(const struct dinsn *i, uint64_t a, uint64_t b);
uint32_t emu_f32_to_f16(float f);
float emu_f16_to_f32(uint32_t h);

/* integer helper (exec.c) */
uint64_t emu_iop(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c, uint64_t e);

/* Progress of one run on stderr (progress.c). */
struct emu_progress {
  int mode;                /* enum cc_emu_progress */
  double after, every;     /* seconds before the first output, between outputs */
  const char *kernel;
  uint64_t ctas_total;
  struct timespec t0, last;
  int shown;               /* something was written */
};
/* Starts timing a run of ctas_total CTAs of kernel (borrowed) with emu's progress
 * options. */
void emu_progress_start(struct emu_progress *p, const struct cc_emu *emu, const char *kernel,
                        uint64_t ctas_total);
/* Shows the state when due: ctas_done CTAs finished, warp_insns executed, the running CTA
 * at fraction cta_used of its budget (negative: no per-CTA budget). */
void emu_progress_note(struct emu_progress *p, uint64_t ctas_done, uint64_t warp_insns,
                       double cta_used);
/* Ends the output (a final "done" or "stopped" line) when anything was shown. */
void emu_progress_end(struct emu_progress *p, int ok, uint64_t ctas_done, uint64_t warp_insns);

/* ---- one launch's run, CTA by CTA (exec.c), for the parallel driver (par.c) ---------- */

struct run;

/* What a worker's run asks of the parallel driver. ctx is the driver's worker. */
struct emu_hooks {
  void *ctx;
  /* Blocks until the running CTA is the oldest one not yet delivered, and returns the warp
   * instructions the launch executed before it: the count a serial run shows at this CTA's
   * start (for the budget's error message). */
  uint64_t (*insns_before)(void *ctx);
  /* The running CTA has executed cta_warp_insns warp instructions so far (progress). */
  void (*note)(void *ctx, uint64_t cta_warp_insns);
};

/* Prepares a run of kernel k with launch (both borrowed, as sink, stats and err, which
 * receive the records, the counters and the error of every later call): decodes the
 * kernel (cached in emu), checks the launch, packs the parameters, allocates the CTA's
 * warps and shared memory. *out: the run, or NULL on error. Errors: as cc_emu_run's
 * before its first CTA (CC_ERR_UNSUPPORTED, CC_ERR_INPUT). */
int emu_run_new(struct cc_emu *emu, const struct ptx_function *k,
                const struct cc_emu_launch *launch, struct cc_access_sink *sink,
                struct cc_emu_stats *stats, struct cc_err *err, cc_give struct run **out);
void emu_run_free(cc_take struct run *r);
/* Makes r a worker of a parallel run: progress and the budget's count go through hooks
 * (borrowed), and global atomics become host atomics. */
void emu_run_set_hooks(struct run *r, cc_keep const struct emu_hooks *hooks);
/* The table the sink's begin_kernel receives (borrowed from r). */
void emu_run_kernel_info(const struct run *r, struct cc_kernel_info *ki);
/* Runs CTA number cta (linear: x fastest, then y, then z) to its end, adding to the stats.
 * Errors: as cc_emu_run's. */
int emu_run_cta(struct run *r, uint64_t cta);

/* ---- parallel CTAs (par.c) ------------------------------------------------------------ */

/* The threads to run total CTAs of code on: emu->opts.jobs (0: 1) at most total, or 1
 * when the kernel's CTAs may communicate in ways whose order matters; *why then names the
 * construct (a static string), else NULL (README.md, Parallel CTAs). */
uint32_t emu_par_jobs(const struct cc_emu *emu, const struct code *c, uint64_t total,
                      const char **why);
/* Runs CTAs first .. end-1 of kernel k's launch on jobs worker threads, each with its own run,
 * delivering every record to sink's access (begin_kernel and end_kernel are the caller's)
 * in the serial run's order (none when sink->access is NULL), and to the worker's own
 * partial of partials (NULL: none; opened here, closed with merge = success) and adding to stats what the serial run would. Errors: the
 * first failing CTA's (the lowest), as a serial run reports it; CC_ERR_LIMIT when a
 * thread cannot start. */
int emu_par_run(struct cc_emu *emu, const struct ptx_function *k,
                const struct cc_emu_launch *launch, uint64_t first, uint64_t end, uint32_t jobs,
                struct cc_access_sink *sink, const struct cc_access_partials *partials,
                struct cc_emu_stats *stats, struct cc_err *err);

/* Width and class of a PTX type. */
void emu_type_class(enum ptx_type t, uint8_t *w, uint8_t *k);

/* Sign- or zero-extends the low w bits of v. */
static inline uint64_t emu_norm(uint64_t v, unsigned w, unsigned k)
{
  if (w >= 64) return v;
  if (k == K_S) {
    unsigned s = 64 - w;
    return (uint64_t)((int64_t)(v << s) >> s);
  }
  return v & ((UINT64_C(1) << w) - 1);
}

#endif
