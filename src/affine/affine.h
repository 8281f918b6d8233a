/* coalcheck affine address analysis: for every global, shared and local memory
 * instruction of a PTX kernel, its address as an affine form over the thread and launch
 * coordinates, static (no run needed).
 *
 * The form of an address is  base + sum_k coeff_k * m_k , where each monomial m_k is a
 * product of atoms (enum cc_affine_atom_kind): thread and block indices (%tid, %ctaid),
 * the launch shape (%ntid, %nctaid), kernel parameters (their values as loaded with
 * ld.param), the address of a variable (a .shared array, a .global variable) and loop
 * counters (one per natural loop whose induction variable the address depends on), and
 * coeff_k is a byte count. A form is affine when every monomial has degree <= 1 in the
 * index atoms (%tid, %ctaid, loop counters); launch-shape and parameter atoms may
 * multiply them (n * %tid.y is affine in %tid.y with the symbolic coefficient n). So
 * `in[(blockIdx.y*blockDim.y + threadIdx.y) * n + x]` is
 *   in + 4*n*%ctaid.y*%ntid.y + 4*n*%tid.y + 4*%ctaid.x*%ntid.x + 4*%tid.x.
 *
 * Where an address is not affine (loaded from memory, data-dependent, a product of two
 * indices, a value merged from two control-flow paths that is not an induction variable)
 * the access says so and why, naming the PTX line of the instruction that broke it; the
 * analysis then falls back to the strides measured dynamically (analysis.h).
 *
 * The strides of a form: the coefficient of %tid.d under one launch (parameter values
 * and geometry known) is the byte distance between the addresses of two threads that
 * differ by one in dimension d. From them, the vectors of CGO 2015 (seeds/004, Sec.
 * 4.2.2): c[d] (stride-1: |coeff| equal to the access size, or at most the coalescing
 * bound of access.h), z[d] (stride 0: coeff == 0), u[d] (large stride: anything else).
 *
 * Assumptions (what "affine" means here):
 *   - integer arithmetic does not overflow: add, sub, mul.lo, mad.lo, shl by a constant
 *     and cvt between integer widths (sign or zero extension, truncation) keep the value,
 *     as they do for the index arithmetic of real kernels; a kernel whose 32-bit index
 *     wraps gets a form that is wrong for the threads past the wrap;
 *   - cvta (generic <-> state-space) keeps strides: the form of a generic address is the
 *     form of the address it was converted from;
 *   - a loop counter L_k counts the iterations of loop k from 0; a register updated by a
 *     constant (or loop-invariant) step s in every iteration is init + s*L_k (induction
 *     variable; strength-reduced pointers are such registers with a byte step);
 *   - a value computed from parameters and the launch shape by an operation the forms do
 *     not model (n & 3, n >> 2, min(n, m), a parameter's bytes at an offset) is an opaque
 *     thread-invariant atom CC_AFFINE_SYM; so is a loop counter's value after its loop
 *     when the branch that leaves the loop compares thread-invariant values (the
 *     remainder loops of unrolled code start there); on index atoms such operations are
 *     CC_AFFINE_NONLINEAR instead, and a value after a loop whose trip count may differ
 *     between threads is CC_AFFINE_CONTROL.
 *
 * Algorithm (src/affine/README.md): basic blocks and dominators of the body, natural
 * loops from back edges, then a demand-driven symbolic evaluation of each address over
 * the reaching definitions of its registers, with the loop-header values ("phis") solved
 * as induction variables.
 *
 * Ownership: a cc_affine_kernel is the caller's (cc_affine_kernel_free) and owns its
 * accesses, forms, texts and loops; forms stay valid after the module is freed. The
 * module and function are borrowed only during cc_affine_analyze, except `func`, which
 * the caller may use while the module lives. */
#ifndef CC_AFFINE_AFFINE_H
#define CC_AFFINE_AFFINE_H

#include <stdint.h>

#include "ptx/ptx.h"
#include "util/err.h"

enum cc_affine_atom_kind {
  CC_AFFINE_TID,    /* %tid.{x,y,z}: index 0..2 */
  CC_AFFINE_NTID,   /* %ntid.{x,y,z} */
  CC_AFFINE_CTAID,  /* %ctaid.{x,y,z} */
  CC_AFFINE_NCTAID, /* %nctaid.{x,y,z} */
  CC_AFFINE_PARAM,  /* kernel parameter: index = position in ptx_function.param_vars */
  CC_AFFINE_VAR,    /* address of a variable: index into the module's (or, with
                       function scope, the function's) vars; see cc_affine_atom.scope */
  CC_AFFINE_LOOP,   /* iteration counter of loop `index` (0, 1, ...) of cc_affine_kernel */
  CC_AFFINE_SYM     /* an opaque thread-invariant value (see the assumptions above):
                       index into the kernel's private table; shown in the text as the
                       operation it stands for, e.g. "(n & 3)", or "L0.last" */
};

struct cc_affine_atom {
  uint8_t kind;     /* enum cc_affine_atom_kind */
  uint8_t scope;    /* CC_AFFINE_VAR: enum ptx_var_scope */
  uint32_t index;
};

/* Why an access has no affine form. */
enum cc_affine_status {
  CC_AFFINE_OK,          /* affine: form and strides below are valid */
  CC_AFFINE_INDIRECT,    /* depends on a value loaded from memory (a[b[i]]) */
  CC_AFFINE_NONLINEAR,   /* product of two index atoms, division, remainder, shift by a
                            non-constant, bitwise operation on an index */
  CC_AFFINE_CONTROL,     /* a register with several reaching definitions that is not an
                            induction variable of one loop */
  CC_AFFINE_OPAQUE       /* anything else the analysis does not model (a call's result,
                            a special register other than the four, a conversion that may
                            wrap); the reason says which */
};

/* Launch values for evaluating forms: parameter values as 64-bit integers (the bytes of
 * each .param as the kernel loads them, sign-extended by its PTX type), known[i] != 0
 * when parameter i has an integer value (buffers: their device address is not needed
 * for strides and may be unknown), and the geometry. Borrowed. */
struct cc_affine_env {
  const int64_t *params;
  const uint8_t *known;
  uint32_t nparams;
  uint32_t ntid[3], nctaid[3];
};

/* One memory instruction (ld, st, atom, red of the global, shared or local space, also
 * generic ones; their vector forms) of the kernel. */
struct cc_affine_access {
  uint32_t insn;                 /* index in the function's body */
  enum ptx_space space;          /* as written (generic: PTX_SPACE_GENERIC) */
  uint32_t size_bytes;           /* bytes per lane (vector width x type size) */
  enum cc_affine_status status;
  char *why;                     /* status != OK: owned, one clause, e.g. "the address
                                    depends on a value loaded at PTX line 48"; else NULL */
  uint32_t why_line;             /* PTX line of the instruction that broke the form, or 0 */
  char *text;                    /* status == OK: owned, the form as text in CUDA terms,
                                    e.g. "in + 4*tid.x + 4*n*tid.y + 4*n*ntid.y*ctaid.y +
                                    4*ntid.x*ctaid.x" (threadIdx spelled tid, blockIdx ctaid,
                                    blockDim ntid, gridDim nctaid, loops as L0, L1, ...).
                                    PTX carries no source names of parameters: here they
                                    are "param_0", "param_1", ... (cc_affine_format puts
                                    the launch's names in); else NULL */
  uint32_t loops;                /* bit k set: the form depends on loop counter k (k < 32) */
  const struct cc_affine_form *form; /* opaque, owned by the kernel; status == OK, else NULL */
};

/* A natural loop of the kernel (back edge found on the CFG). */
struct cc_affine_loop {
  uint32_t head_insn, latch_insn; /* first instruction of its header, the back-branch */
  uint32_t line;                  /* CUDA source line of the header (its .loc), or 0 */
};

struct cc_affine_priv;

struct cc_affine_kernel {
  const struct ptx_function *func;  /* borrowed: the function analysed */
  struct cc_affine_access *accesses; uint32_t naccesses; /* in program order */
  struct cc_affine_loop *loops; uint32_t nloops;
  /* Uses of the warp or lane identity and other things that make a thread-geometry
   * permutation observable: the first such instruction (shfl, vote, match, redux,
   * activemask, bar.warp.sync, %laneid, %warpid, %lanemask_*, volatile shared memory)
   * or -1 when none. */
  int32_t warp_dependent_insn;
  struct cc_affine_priv *priv;      /* the module's: arena of forms, names, CFG */
};

/* Analyses every memory instruction of f (a function of m with a body; kernels and
 * .func alike; calls are opaque) into *out (owned by the caller). Errors: CC_ERR_INPUT
 * only for IR the parser would not produce; an unanalysable address is not an error
 * (its access has a status). */
int cc_affine_analyze(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *f,
                      cc_give struct cc_affine_kernel **out, struct cc_err *err);

/* Frees k and everything it owns; NULL is allowed. */
void cc_affine_kernel_free(cc_take struct cc_affine_kernel *k);

/* The access of instruction insn, or NULL when insn is no memory instruction. */
const struct cc_affine_access *cc_affine_find(cc_keep const struct cc_affine_kernel *k,
                                              uint32_t insn);

/* The coefficient, in bytes, of atom (kind, index) in a's form under env: the change of
 * the address when that atom grows by one, all others fixed. Returns 1 and sets *bytes
 * when a is affine in that atom and every symbol multiplying it is known in env
 * (parameters, launch shape, CC_AFFINE_SYM atoms computable from them); 0 otherwise
 * (also on overflow). For kind CC_AFFINE_TID this is the thread stride of dimension
 * index; for CC_AFFINE_LOOP the bytes one iteration of loop index moves the address. No
 * index atom (tid, ctaid, loop) hides inside a CC_AFFINE_SYM atom, so their coefficients
 * are exact; those of the launch-shape and parameter atoms count only where the atom
 * appears in the form itself. */
int cc_affine_coeff(cc_keep const struct cc_affine_access *a, const struct cc_affine_env *env,
                    enum cc_affine_atom_kind kind, uint32_t index, int64_t *bytes);

/* Stride classes of CGO 2015 Sec. 4.2.2 (vectors c, u, z), one per thread dimension. */
enum cc_affine_class {
  CC_AFFINE_CLASS_ZERO,      /* z: coefficient 0 (all lanes of that dimension on one address) */
  CC_AFFINE_CLASS_UNIT,      /* c: |coefficient| <= the coalescing bound (access size; local:
                                max(size, 4), access.h) */
  CC_AFFINE_CLASS_LARGE,     /* u: any other coefficient */
  CC_AFFINE_CLASS_UNKNOWN    /* not affine, or a symbol of the coefficient unknown */
};

/* Classifies the tid coefficient of each dimension d (0..2) of a under env into cls[d]. */
void cc_affine_classify(cc_keep const struct cc_affine_access *a, const struct cc_affine_env *env,
                        enum cc_affine_class cls[3]);

/* The form of a as text, like a->text but with param_names[i] (i < nnames, non-NULL) for
 * kernel parameter i (e.g. the names of a launch's --arg list); malloc'ed (the caller
 * frees it), NULL when a is not affine. */
cc_give char *cc_affine_format(cc_keep const struct cc_affine_access *a,
                               const char *const *param_names, uint32_t nnames);

/* "affine", "indirect", "nonlinear", "control", "opaque" */
const char *cc_affine_status_name(enum cc_affine_status s);
/* "zero", "unit", "large", "unknown" */
const char *cc_affine_class_name(enum cc_affine_class c);

#endif
