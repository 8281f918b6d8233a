/* Internals of src/affine shared by its files (not part of the module's interface):
 * polynomials over atoms (poly.c), the control-flow graph and its natural loops (cfg.c),
 * the symbolic evaluation of registers (eval.c). */
#ifndef CC_AFFINE_AFFINE_IMPL_H
#define CC_AFFINE_AFFINE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "affine/affine.h"
#include "ptx/ptx.h"

/* ---- arena: everything a run of the analysis allocates, freed at once ---------------- */

struct aff_syms;
struct aff_arena {
  struct aff_chunk *head;
  const struct aff_syms *syms; /* given to every form made in the arena */
};
/* size bytes, zeroed, aligned for any type; never NULL (aborts when out of memory). */
void *aff_alloc(struct aff_arena *ar, size_t size);
char *aff_strdup(struct aff_arena *ar, const char *s);
char *aff_printf(struct aff_arena *ar, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void aff_arena_release(struct aff_arena *ar);

/* ---- atoms and polynomials (poly.c) ------------------------------------------------- */

/* Internal atom kind: the value of a register at the header of a loop, while its update
 * in one iteration is evaluated (eval.c); never in a finished form. */
#define AFF_PHI 100u

/* An atom packed into 64 bits: kind << 40 | scope << 32 | index; ordered as integers. */
typedef uint64_t aff_atom;
static inline aff_atom aff_atom_make(unsigned kind, unsigned scope, uint32_t index)
{
  return (uint64_t)kind << 40 | (uint64_t)(scope & 0xff) << 32 | index;
}
static inline unsigned aff_atom_kind(aff_atom a) { return (unsigned)(a >> 40); }
static inline unsigned aff_atom_scope(aff_atom a) { return (unsigned)(a >> 32) & 0xff; }
static inline uint32_t aff_atom_index(aff_atom a) { return (uint32_t)a; }
/* Index atoms vary between the threads of a launch or the iterations of a loop: %tid,
 * %ctaid, loop counters (and AFF_PHI). Their degree in a term is at most 1. */
static inline int aff_atom_is_index(aff_atom a)
{
  unsigned k = aff_atom_kind(a);
  return k == CC_AFFINE_TID || k == CC_AFFINE_CTAID || k == CC_AFFINE_LOOP || k == AFF_PHI;
}

#define AFF_MAX_DEG 6     /* atoms in one monomial */
#define AFF_MAX_TERMS 48  /* monomials in one form */

/* coeff * atoms[0] * ... * atoms[deg-1]; atoms sorted ascending; deg 0: the constant. */
struct aff_term {
  int64_t coeff;
  uint32_t deg;
  aff_atom atoms[AFF_MAX_DEG];
};

struct aff_syms;

/* A polynomial: terms sorted (by degree, then atoms), no zero coefficient, no two terms
 * with the same monomial: equal polynomials have equal term arrays. syms: the table its
 * CC_AFFINE_SYM atoms index (borrowed). */
struct cc_affine_form {
  const struct aff_syms *syms;
  uint32_t n;
  struct aff_term t[];
};

/* Why a polynomial operation failed. */
enum aff_fail { AFF_FAIL_NONE, AFF_FAIL_OVERFLOW, AFF_FAIL_SIZE, AFF_FAIL_DEGREE };

/* Results are allocated in ar; NULL with *fail set when the result would overflow int64,
 * have more than AFF_MAX_TERMS terms or AFF_MAX_DEG atoms in a term, or (mul) a term of
 * degree 2 in the index atoms. */
const struct cc_affine_form *aff_const(struct aff_arena *ar, int64_t c);
const struct cc_affine_form *aff_atom_poly(struct aff_arena *ar, aff_atom a);
const struct cc_affine_form *aff_add(struct aff_arena *ar, const struct cc_affine_form *a,
                                     const struct cc_affine_form *b, int64_t bscale,
                                     enum aff_fail *fail);
const struct cc_affine_form *aff_mul(struct aff_arena *ar, const struct cc_affine_form *a,
                                     const struct cc_affine_form *b, enum aff_fail *fail);
/* a with every occurrence of atom from replaced by atom to (same degree). */
const struct cc_affine_form *aff_rename(struct aff_arena *ar, const struct cc_affine_form *a,
                                        aff_atom from, aff_atom to, enum aff_fail *fail);
int aff_equal(const struct cc_affine_form *a, const struct cc_affine_form *b);
/* Whether a has an atom for which pred returns nonzero. */
int aff_has_atom(const struct cc_affine_form *a, int (*pred)(aff_atom, const void *),
                 const void *ctx);

/* ---- opaque thread-invariant values (CC_AFFINE_SYM atoms) ----------------------------- */

enum aff_sym_kind {
  AFF_SYM_OP,      /* op applied to operand forms a (and b): "(n & 3)", "min(a, b)" */
  AFF_SYM_PARAM,   /* bytes of kernel parameter `param` at byte offset `offset` */
  AFF_SYM_LAST,    /* the counter of loop `loop` when the loop was left at block `insn` */
  AFF_SYM_JOIN,    /* register `reg` where different thread-invariant values join
                      (at instruction insn) after uniform branches */
  AFF_SYM_REG      /* anything else: the register as written in PTX */
};

struct aff_sym {
  uint8_t kind;              /* enum aff_sym_kind */
  uint8_t type;              /* AFF_SYM_OP: the instruction's enum ptx_type */
  uint16_t op;               /* AFF_SYM_OP: enum ptx_opcode */
  uint8_t mode;              /* AFF_SYM_OP: enum ptx_mode (mul.hi) */
  const struct cc_affine_form *a, *b; /* AFF_SYM_OP operands (b NULL for one operand) */
  uint32_t param, offset;    /* AFF_SYM_PARAM */
  uint32_t loop;             /* AFF_SYM_LAST */
  uint32_t insn;             /* defining instruction (all kinds) */
  int32_t reg;               /* AFF_SYM_JOIN: the register */
  const char *name;          /* AFF_SYM_REG, AFF_SYM_JOIN: the register's PTX name */
};

/* The opaque values of one kernel and the names the text of its forms uses (all in the
 * kernel's arena, so that forms outlive the module). */
struct aff_syms {
  struct aff_sym *v;
  uint32_t n, cap;
  const char **param_names;  /* short PTX names ("param_2"), per parameter */
  uint32_t nparams;
  aff_atom *var_atoms;       /* CC_AFFINE_VAR atoms met, and their names */
  const char **var_names;
  uint32_t nvars, var_cap;
};

/* ---- control-flow graph (cfg.c) ------------------------------------------------------ */

struct aff_block {
  uint32_t first, end;       /* instructions [first, end) */
  uint32_t *preds, npreds;
  uint32_t succ[2], nsucc;
  int32_t loop;              /* innermost natural loop containing the block, or -1 */
  int32_t header_of;         /* the loop this block is the header of, or -1 */
  int32_t idom;              /* immediate dominator, -1 for the entry and unreachable */
  uint32_t rpo;              /* position in reverse post-order (UINT32_MAX: unreachable) */
};

struct aff_loop {
  uint32_t header;           /* block */
  uint32_t *latches, nlatches; /* blocks with a back edge to the header */
  int32_t parent;            /* enclosing loop, or -1 */
  uint8_t *body;             /* one byte per block: in the loop (nested loops included) */
  uint8_t *defines;          /* one bit per register: written somewhere in the body */
};

struct aff_cfg {
  struct aff_block *blocks;
  uint32_t nblocks;
  uint32_t *block_of;        /* per instruction */
  struct aff_loop *loops;    /* ordered by the header's position */
  uint32_t nloops;
};

/* Builds the CFG of f's body (basic blocks split at labels and after branches, ret and
 * exit; an unguarded bra has one successor), dominators, and the natural loops (a back
 * edge q -> h where h dominates q; loops with one header merged). All in ar. */
void aff_cfg_build(struct aff_arena *ar, const struct ptx_function *f, struct aff_cfg *g);
/* Whether block b lies in loop l (nested loops included). */
static inline int aff_in_loop(const struct aff_cfg *g, uint32_t b, uint32_t l)
{
  return g->loops[l].body[b] != 0;
}

/* Whether instruction i of f writes register r (destination operands, vector elements
 * and the second destination of "d|p" pairs). */
int aff_insn_writes(const struct ptx_function *f, uint32_t i, int32_t r);

/* ---- the symbolic evaluation (eval.c) ------------------------------------------------- */

/* The value of a register at a point, or why it has no form. */
struct aff_val {
  uint8_t status;            /* enum cc_affine_status, or AFF_UNDEF */
  uint32_t line;             /* PTX line of the instruction that broke it, or 0 */
  const char *why;           /* status != OK: one clause */
  const struct cc_affine_form *p; /* status OK */
};
/* Internal status: a register not written on any path (a program reads it only on
 * paths where it is written, so it joins any other value). */
#define AFF_UNDEF 200u

struct aff_eval;

/* An evaluator of f's registers; ar, g and syms outlive it. */
struct aff_eval *aff_eval_new(struct aff_arena *ar, const struct ptx_module *m,
                              const struct ptx_function *f, const struct aff_cfg *g,
                              struct aff_syms *syms);
void aff_eval_free(struct aff_eval *e);
/* The address of the memory operand opnd of instruction insn: register + variable +
 * offset. */
struct aff_val aff_eval_address(struct aff_eval *e, uint32_t insn, const struct ptx_operand *opnd);

/* ---- text (text.c) ------------------------------------------------------------------ */

/* The form a as text (see cc_affine_format), malloc'ed; param_names[i] (i < nnames,
 * non-NULL) replaces the PTX name of parameter i. */
char *aff_form_text(const struct cc_affine_form *a, const char *const *param_names,
                    uint32_t nnames);

#endif
