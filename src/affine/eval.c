/* Symbolic evaluation of a function's registers over their def-use chains.
 *
 * The value of register r before instruction i is found by walking back from i: the last
 * write of r in i's block, else the values r has at the ends of the block's predecessors,
 * joined (equal forms join; different ones are CC_AFFINE_CONTROL). The walk stops at loop
 * headers: there r's value is its "phi", computed once per loop and register:
 *   init = the value r has on the edges entering the loop;
 *   back = the value r has on the back edges, evaluated with r at the header bound to a
 *          fresh symbol P (atom AFF_PHI);
 *   back == P        : r is invariant in the loop: phi = init;
 *   back == P + step : with step free of P and of the loop's own counters, r is an
 *                      induction variable: phi = init + step * L (L: the loop's counter,
 *                      0 in the first iteration);
 *   anything else    : CC_AFFINE_CONTROL.
 * A value leaving a loop (an edge from inside to outside) has the loop's counter replaced
 * by an opaque symbol, the counter when the loop was left, which is thread-invariant when
 * the branch that leaves compares thread-invariant values; otherwise the value is
 * CC_AFFINE_CONTROL. Values are memoised per (block, register), (loop, register) and
 * (instruction, register), each under the binding in force (a context id).
 *
 * Bad input never recurses without bound: the depth of the walk and the total work are
 * limited (CC_AFFINE_OPAQUE beyond them). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "affine/affine_impl.h"
#include "util/mem.h"

#define MAX_DEPTH 2000        /* nested evaluations (each a few hundred bytes of stack) */
#define MAX_WORK 4000000u     /* evaluation steps for one function */

enum memo_kind { M_ENTRY = 1, M_PHI, M_DEF };
enum memo_state { M_EMPTY, M_BUSY, M_DONE };

struct memo {
  uint64_t key1, key2;        /* kind | a, b | ctx */
  uint8_t state;
  struct aff_val v;
};

struct binding {
  uint32_t loop;
  int32_t reg;
  uint32_t id;                /* the context id, and AFF_PHI's index */
};

struct aff_eval {
  struct aff_arena *ar;
  const struct ptx_module *m;
  const struct ptx_function *f;
  const struct aff_cfg *g;
  struct aff_syms *syms;
  struct memo *memo;
  size_t memo_cap, memo_used;
  struct binding *bind;
  uint32_t nbind, bind_cap;
  uint32_t next_id;
  uint32_t depth;
  uint64_t work;
  int truncated;              /* a walk hit the depth limit: the memo holds its failures */
};

/* ---- values ------------------------------------------------------------------------- */

static struct aff_val ok(const struct cc_affine_form *p)
{
  struct aff_val v = {CC_AFFINE_OK, 0, NULL, p};
  return v;
}

static struct aff_val fail(uint8_t status, uint32_t line, const char *why)
{
  struct aff_val v = {status, line, why, NULL};
  return v;
}

static struct aff_val undef(void)
{
  struct aff_val v = {AFF_UNDEF, 0, NULL, NULL};
  return v;
}

static const char *reg_name(const struct aff_eval *e, int32_t r)
{
  return r >= 0 && (uint32_t)r < e->f->nregs ? e->f->regs[r].name : "?";
}

static uint32_t insn_line(const struct aff_eval *e, uint32_t i)
{
  return i < e->f->ninsns ? e->f->insns[i].line : 0;
}

static const char *opcode(const struct aff_eval *e, uint32_t i)
{
  return e->f->insns[i].opcode_text ? e->f->insns[i].opcode_text : "?";
}

/* A failed polynomial operation of instruction i as a value. */
static struct aff_val poly_failed(struct aff_eval *e, uint32_t i, enum aff_fail why)
{
  uint32_t line = insn_line(e, i);
  switch (why) {
  case AFF_FAIL_DEGREE:
    return fail(CC_AFFINE_NONLINEAR, line,
                aff_printf(e->ar, "%s at PTX line %" PRIu32 " multiplies two thread or loop "
                           "indices", opcode(e, i), line));
  case AFF_FAIL_OVERFLOW:
    return fail(CC_AFFINE_OPAQUE, line,
                aff_printf(e->ar, "a coefficient overflows 64 bits at PTX line %" PRIu32, line));
  default:
    return fail(CC_AFFINE_OPAQUE, line,
                aff_printf(e->ar, "the address expression at PTX line %" PRIu32 " has more "
                           "than %d terms", line, AFF_MAX_TERMS));
  }
}

static struct aff_val checked(struct aff_eval *e, uint32_t i, const struct cc_affine_form *p,
                              enum aff_fail why)
{
  return p ? ok(p) : poly_failed(e, i, why);
}

/* ---- memo --------------------------------------------------------------------------- */

static uint32_t ctx(const struct aff_eval *e)
{
  return e->nbind ? e->bind[e->nbind - 1].id : 0;
}

static uint64_t hash2(uint64_t a, uint64_t b)
{
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

static void memo_grow(struct aff_eval *e)
{
  size_t old = e->memo_cap;
  struct memo *m = e->memo;
  e->memo_cap = old ? old * 2 : 1024;
  e->memo = cc_xcalloc(e->memo_cap, sizeof *e->memo);
  e->memo_used = 0;
  for (size_t i = 0; i < old; i++)
    if (m[i].state != M_EMPTY) {
      size_t j = hash2(m[i].key1, m[i].key2) & (e->memo_cap - 1);
      while (e->memo[j].state != M_EMPTY)
        j = (j + 1) & (e->memo_cap - 1);
      e->memo[j] = m[i];
      e->memo_used++;
    }
  free(m);
}

/* The slot of (kind, a, b) under the current context; a new slot is M_EMPTY. The pointer
 * is valid until the next memo_slot call. */
static struct memo *memo_slot(struct aff_eval *e, unsigned kind, uint32_t a, uint32_t b)
{
  uint64_t k1 = (uint64_t)kind << 32 | a, k2 = (uint64_t)b << 32 | ctx(e);
  size_t j;
  if ((e->memo_used + 1) * 2 > e->memo_cap)
    memo_grow(e);
  j = hash2(k1, k2) & (e->memo_cap - 1);
  while (e->memo[j].state != M_EMPTY) {
    if (e->memo[j].key1 == k1 && e->memo[j].key2 == k2)
      return &e->memo[j];
    j = (j + 1) & (e->memo_cap - 1);
  }
  e->memo[j].key1 = k1;
  e->memo[j].key2 = k2;
  e->memo_used++;
  return &e->memo[j];
}

static void memo_store(struct aff_eval *e, unsigned kind, uint32_t a, uint32_t b,
                       struct aff_val v)
{
  struct memo *s = memo_slot(e, kind, a, b);
  s->state = M_DONE;
  s->v = v;
}

/* Counts one step; 0 when the depth or the work budget is spent. */
static int enter(struct aff_eval *e)
{
  if (e->depth >= MAX_DEPTH || e->work >= MAX_WORK)
    return 0;
  e->depth++;
  e->work++;
  return 1;
}

static struct aff_val too_deep(struct aff_eval *e, uint32_t i)
{
  uint32_t line = insn_line(e, i);
  e->truncated = 1;
  return fail(CC_AFFINE_OPAQUE, line,
              aff_printf(e->ar, "the address computation reaching PTX line %" PRIu32 " is "
                         "deeper than the analysis follows (%d steps, %u in all)", line,
                         MAX_DEPTH, MAX_WORK));
}

/* A value that depends on itself without passing a loop header: a cycle of the CFG that
 * is no natural loop. */
static struct aff_val irreducible(struct aff_eval *e, int32_t r, uint32_t i)
{
  uint32_t line = insn_line(e, i);
  return fail(CC_AFFINE_CONTROL, line,
              aff_printf(e->ar, "%s depends on itself around PTX line %" PRIu32
                         " (irreducible control flow)", reg_name(e, r), line));
}

/* ---- opaque thread-invariant values ---------------------------------------------------- */

static uint32_t sym_add(struct aff_eval *e, const struct aff_sym *s)
{
  struct aff_syms *t = e->syms;
  for (uint32_t k = 0; k < t->n; k++) {
    const struct aff_sym *o = &t->v[k];
    if (o->kind == s->kind && o->insn == s->insn && o->loop == s->loop && o->reg == s->reg)
      return k;
  }
  if (t->n == t->cap) {
    struct aff_sym *v = aff_alloc(e->ar, (t->cap ? t->cap * 2 : 16) * sizeof *v);
    if (t->n)
      memcpy(v, t->v, t->n * sizeof *v);
    t->v = v;
    t->cap = t->cap ? t->cap * 2 : 16;
  }
  t->v[t->n] = *s;
  return t->n++;
}

static struct aff_val sym_val(struct aff_eval *e, const struct aff_sym *s)
{
  return ok(aff_atom_poly(e->ar, aff_atom_make(CC_AFFINE_SYM, 0, sym_add(e, s))));
}

static int is_index_atom(aff_atom a, const void *ctx_unused)
{
  (void)ctx_unused;
  return aff_atom_is_index(a);
}

/* ---- operands and instructions --------------------------------------------------------- */

static struct aff_val value_before(struct aff_eval *e, int32_t r, uint32_t i);
static struct aff_val edge_value(struct aff_eval *e, int32_t r, uint32_t q, uint32_t b);

static int64_t sign_extend(int64_t v, unsigned bits)
{
  if (bits == 0 || bits >= 64)
    return v;
  uint64_t m = 1ull << (bits - 1);
  uint64_t x = (uint64_t)v & ((1ull << bits) - 1);
  return (int64_t)((x ^ m) - m);
}

static int is_int_type(unsigned t)
{
  return (t >= PTX_TYPE_B8 && t <= PTX_TYPE_B64) || (t >= PTX_TYPE_U8 && t <= PTX_TYPE_S64);
}

/* The kernel parameter that variable var (function scope) is, or -1. */
static int32_t param_index(const struct ptx_function *f, int32_t var)
{
  for (uint32_t k = 0; k < f->nparams; k++)
    if ((int32_t)f->param_vars[k] == var)
      return (int32_t)k;
  return -1;
}

static struct aff_val var_atom(struct aff_eval *e, unsigned scope, int32_t var)
{
  aff_atom a = aff_atom_make(CC_AFFINE_VAR, scope, (uint32_t)var);
  struct aff_syms *t = e->syms;
  uint32_t k;
  for (k = 0; k < t->nvars && t->var_atoms[k] != a; k++)
    ;
  if (k == t->nvars) { /* remember its name for the text */
    const struct ptx_var *v = scope == PTX_SCOPE_MODULE ? &e->m->vars[var] : &e->f->vars[var];
    if (t->nvars == t->var_cap) {
      uint32_t cap = t->var_cap ? t->var_cap * 2 : 8;
      aff_atom *atoms = aff_alloc(e->ar, cap * sizeof *atoms);
      const char **names = aff_alloc(e->ar, cap * sizeof *names);
      if (t->nvars) {
        memcpy(atoms, t->var_atoms, t->nvars * sizeof *atoms);
        memcpy(names, t->var_names, t->nvars * sizeof *names);
      }
      t->var_atoms = atoms;
      t->var_names = names;
      t->var_cap = cap;
    }
    t->var_atoms[t->nvars] = a;
    t->var_names[t->nvars++] = aff_strdup(e->ar, v->name ? v->name : "?");
  }
  return ok(aff_atom_poly(e->ar, a));
}

static struct aff_val sreg_value(struct aff_eval *e, const struct ptx_operand *o, uint32_t i)
{
  static const unsigned kind[] = {
    [PTX_SREG_TID] = CC_AFFINE_TID, [PTX_SREG_NTID] = CC_AFFINE_NTID,
    [PTX_SREG_CTAID] = CC_AFFINE_CTAID, [PTX_SREG_NCTAID] = CC_AFFINE_NCTAID,
  };
  uint32_t line = insn_line(e, i);
  if (o->sreg <= PTX_SREG_NCTAID && o->comp < 3)
    return ok(aff_atom_poly(e->ar, aff_atom_make(kind[o->sreg], 0, o->comp)));
  if (o->sreg == PTX_SREG_LANEID || o->sreg == PTX_SREG_WARPID ||
      (o->sreg >= PTX_SREG_LANEMASK_EQ && o->sreg <= PTX_SREG_LANEMASK_GE))
    return fail(CC_AFFINE_NONLINEAR, line,
                aff_printf(e->ar, "the address uses %s (a function of the thread index) at PTX "
                           "line %" PRIu32, ptx_sreg_name((enum ptx_special_reg)o->sreg), line));
  return fail(CC_AFFINE_OPAQUE, line,
              aff_printf(e->ar, "the address uses %s at PTX line %" PRIu32,
                         ptx_sreg_name((enum ptx_special_reg)o->sreg), line));
}

/* The value of source operand o of instruction i. */
static struct aff_val operand_value(struct aff_eval *e, const struct ptx_operand *o, uint32_t i)
{
  const struct ptx_insn *in = &e->f->insns[i];
  uint32_t line = in->line;
  switch (o->kind) {
  case PTX_OPND_REG:
    if (o->regcomp)
      break;
    return value_before(e, o->reg, i);
  case PTX_OPND_IMM:
    if (o->is_float)
      break;
    return ok(aff_const(e->ar, sign_extend(o->imm, 8 * ptx_type_size((enum ptx_type)in->type[0]))));
  case PTX_OPND_SREG:
    return sreg_value(e, o, i);
  case PTX_OPND_SYM:
    if (o->is_func || o->var < 0)
      break;
    return var_atom(e, o->var_scope, o->var);
  default:
    break;
  }
  return fail(CC_AFFINE_OPAQUE, line,
              aff_printf(e->ar, "the address uses an operand of %s at PTX line %" PRIu32
                         " that the analysis does not model", opcode(e, i), line));
}

/* Source operand k (0-based, after the destination) of instruction i. */
static const struct ptx_operand *src(const struct aff_eval *e, uint32_t i, uint32_t k)
{
  const struct ptx_insn *in = &e->f->insns[i];
  const struct ptx_operand *o = &e->f->opnds[in->opnd];
  uint32_t first = 1 + (in->nopnds > 1 && o[1].pipe);
  return first + k < in->nopnds ? &o[first + k] : NULL;
}

static struct aff_val src_value(struct aff_eval *e, uint32_t i, uint32_t k)
{
  const struct ptx_operand *o = src(e, i, k);
  if (!o)
    return fail(CC_AFFINE_OPAQUE, insn_line(e, i), "an operand is missing");
  return operand_value(e, o, i);
}

/* ld.param: a kernel parameter's value (atom CC_AFFINE_PARAM), part of one (an opaque
 * value), or a call's result. */
static struct aff_val param_load(struct aff_eval *e, uint32_t i)
{
  const struct ptx_insn *in = &e->f->insns[i];
  const struct ptx_operand *a = src(e, i, 0);
  int32_t p = -1;
  uint32_t line = in->line;
  if (a && a->kind == PTX_OPND_ADDR && a->reg < 0 && a->var >= 0 &&
      a->var_scope == PTX_SCOPE_FUNCTION)
    p = param_index(e->f, a->var);
  if (p < 0)
    return fail(CC_AFFINE_OPAQUE, line,
                aff_printf(e->ar, "the address depends on the result of a call (ld.param at "
                           "PTX line %" PRIu32 ")", line));
  if (a->imm == 0 && in->vec <= 1 &&
      ptx_type_size((enum ptx_type)in->type[0]) == e->f->vars[a->var].size_bytes)
    return ok(aff_atom_poly(e->ar, aff_atom_make(CC_AFFINE_PARAM, 0, (uint32_t)p)));
  struct aff_sym s = {.kind = AFF_SYM_PARAM, .type = in->type[0], .param = (uint32_t)p,
                      .offset = (uint32_t)a->imm, .insn = i, .loop = UINT32_MAX};
  return sym_val(e, &s);
}

/* An operation the forms do not model (and, shr, div, min, ...): an opaque value when
 * its operands are thread- and loop-invariant, else CC_AFFINE_NONLINEAR. */
static struct aff_val opaque_op(struct aff_eval *e, uint32_t i, uint32_t nsrc)
{
  const struct ptx_insn *in = &e->f->insns[i];
  struct aff_val v[2];
  uint32_t line = in->line;
  for (uint32_t k = 0; k < nsrc; k++) {
    const struct ptx_operand *o = src(e, i, k);
    if (!o)
      return fail(CC_AFFINE_OPAQUE, line, "an operand is missing");
    if (o->kind == PTX_OPND_REG && e->f->regs[o->reg].type == PTX_TYPE_PRED)
      return fail(CC_AFFINE_CONTROL, line,
                  aff_printf(e->ar, "the address is chosen by a predicate (%s at PTX line %"
                             PRIu32 ")", opcode(e, i), line));
    v[k < 2 ? k : 1] = operand_value(e, o, i);
    if (v[k < 2 ? k : 1].status != CC_AFFINE_OK)
      return v[k < 2 ? k : 1];
    if (aff_has_atom(v[k < 2 ? k : 1].p, is_index_atom, NULL))
      return fail(CC_AFFINE_NONLINEAR, line,
                  aff_printf(e->ar, "the address takes %s of a thread or loop index at PTX "
                             "line %" PRIu32, opcode(e, i), line));
  }
  if (nsrc <= 2 && is_int_type(in->type[0])) {
    struct aff_sym s = {.kind = AFF_SYM_OP, .type = in->type[0], .op = in->op,
                        .mode = in->mode, .a = v[0].p, .b = nsrc == 2 ? v[1].p : NULL,
                        .insn = i, .loop = UINT32_MAX};
    return sym_val(e, &s);
  }
  {
    const struct ptx_operand *d = &e->f->opnds[in->opnd];
    struct aff_sym s = {.kind = AFF_SYM_REG, .insn = i, .loop = UINT32_MAX,
                        .name = d->kind == PTX_OPND_REG ? reg_name(e, d->reg) : "?"};
    return sym_val(e, &s);
  }
}

/* a * b (+ c) of instruction i. */
static struct aff_val mul_add(struct aff_eval *e, uint32_t i, int with_c)
{
  struct aff_val a = src_value(e, i, 0), b, c;
  enum aff_fail why = AFF_FAIL_NONE;
  const struct cc_affine_form *p;
  if (a.status != CC_AFFINE_OK)
    return a;
  b = src_value(e, i, 1);
  if (b.status != CC_AFFINE_OK)
    return b;
  p = aff_mul(e->ar, a.p, b.p, &why);
  if (!p || !with_c)
    return checked(e, i, p, why);
  c = src_value(e, i, 2);
  if (c.status != CC_AFFINE_OK)
    return c;
  return checked(e, i, aff_add(e->ar, p, c.p, 1, &why), why);
}

/* a + scale * b of instruction i. */
static struct aff_val add_sub(struct aff_eval *e, uint32_t i, int64_t scale)
{
  struct aff_val a = src_value(e, i, 0), b;
  enum aff_fail why = AFF_FAIL_NONE;
  if (a.status != CC_AFFINE_OK)
    return a;
  b = src_value(e, i, 1);
  if (b.status != CC_AFFINE_OK)
    return b;
  return checked(e, i, aff_add(e->ar, a.p, b.p, scale, &why), why);
}

static struct aff_val shift_left(struct aff_eval *e, uint32_t i)
{
  const struct ptx_operand *k = src(e, i, 1);
  struct aff_val a;
  enum aff_fail why = AFF_FAIL_NONE;
  if (!k || k->kind != PTX_OPND_IMM || k->imm < 0 || k->imm > 62)
    return opaque_op(e, i, 2);
  a = src_value(e, i, 0);
  if (a.status != CC_AFFINE_OK)
    return a;
  return checked(e, i, aff_mul(e->ar, a.p, aff_const(e->ar, (int64_t)1 << k->imm), &why), why);
}

static struct aff_val not_modelled(struct aff_eval *e, uint32_t i, const char *what)
{
  uint32_t line = insn_line(e, i);
  return fail(CC_AFFINE_OPAQUE, line,
              aff_printf(e->ar, "the address depends on %s (%s at PTX line %" PRIu32 ")", what,
                         opcode(e, i), line));
}

/* The value instruction i writes (into its destination register). */
static struct aff_val def_value(struct aff_eval *e, uint32_t i)
{
  const struct ptx_insn *in = &e->f->insns[i];
  uint32_t line = in->line;
  int integer = is_int_type(in->type[0]);
  if (in->flags & PTX_F_CC)
    return not_modelled(e, i, "carry arithmetic");
  switch (in->op) {
  case PTX_OP_MOV:
    if (src(e, i, 0) && src(e, i, 0)->kind == PTX_OPND_VEC)
      return not_modelled(e, i, "a vector pack");
    return src_value(e, i, 0);
  case PTX_OP_CVTA:
    return src_value(e, i, 0); /* generic <-> state-space window: the same strides */
  case PTX_OP_CVT:
    if (!integer || !is_int_type(in->type[1]))
      return not_modelled(e, i, "a floating-point value");
    return src_value(e, i, 0); /* value-preserving: no overflow assumed (affine.h) */
  case PTX_OP_ADD:
    return integer ? add_sub(e, i, 1) : not_modelled(e, i, "a floating-point value");
  case PTX_OP_SUB:
    return integer ? add_sub(e, i, -1) : not_modelled(e, i, "a floating-point value");
  case PTX_OP_NEG:
    if (!integer)
      return not_modelled(e, i, "a floating-point value");
    {
      struct aff_val a = src_value(e, i, 0);
      enum aff_fail why = AFF_FAIL_NONE;
      if (a.status != CC_AFFINE_OK)
        return a;
      return checked(e, i, aff_add(e->ar, aff_const(e->ar, 0), a.p, -1, &why), why);
    }
  case PTX_OP_MUL: case PTX_OP_MUL24:
    if (!integer)
      return not_modelled(e, i, "a floating-point value");
    return in->mode == PTX_MODE_HI ? opaque_op(e, i, 2) : mul_add(e, i, 0);
  case PTX_OP_MAD: case PTX_OP_MAD24:
    if (!integer)
      return not_modelled(e, i, "a floating-point value");
    return in->mode == PTX_MODE_HI ? opaque_op(e, i, 3) : mul_add(e, i, 1);
  case PTX_OP_SHL:
    return shift_left(e, i);
  case PTX_OP_SHR: case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_DIV:
  case PTX_OP_REM: case PTX_OP_MIN: case PTX_OP_MAX:
    return integer ? opaque_op(e, i, 2) : not_modelled(e, i, "a floating-point value");
  case PTX_OP_NOT: case PTX_OP_ABS: case PTX_OP_POPC: case PTX_OP_CLZ: case PTX_OP_BREV:
  case PTX_OP_BFIND: case PTX_OP_CNOT:
    return integer ? opaque_op(e, i, 1) : not_modelled(e, i, "a floating-point value");
  case PTX_OP_BFE: case PTX_OP_PRMT: case PTX_OP_SAD: case PTX_OP_SHF: case PTX_OP_SLCT:
    return opaque_op(e, i, 3);
  case PTX_OP_BFI: case PTX_OP_LOP3:
    return opaque_op(e, i, 4);
  case PTX_OP_SELP: {
    struct aff_val a = src_value(e, i, 0), b;
    if (a.status != CC_AFFINE_OK)
      return a;
    b = src_value(e, i, 1);
    if (b.status != CC_AFFINE_OK)
      return b;
    if (aff_equal(a.p, b.p))
      return a;
    return fail(CC_AFFINE_CONTROL, line,
                aff_printf(e->ar, "the address is chosen by a predicate (selp at PTX line %"
                           PRIu32 ")", line));
  }
  case PTX_OP_LD:
    if (in->space == PTX_SPACE_PARAM)
      return param_load(e, i);
    /* fall through */
  case PTX_OP_LDU: case PTX_OP_ATOM:
    return fail(CC_AFFINE_INDIRECT, line,
                aff_printf(e->ar, "the address depends on a value loaded at PTX line %" PRIu32
                           " (%s)", line, opcode(e, i)));
  default:
    return not_modelled(e, i, "a value the analysis does not model");
  }
}

static struct aff_val eval_def(struct aff_eval *e, uint32_t i, int32_t r)
{
  struct memo *s = memo_slot(e, M_DEF, i, (uint32_t)r);
  struct aff_val v;
  if (s->state == M_DONE)
    return s->v;
  if (s->state == M_BUSY)
    return irreducible(e, r, i);
  if (!enter(e))
    return too_deep(e, i);
  s->state = M_BUSY;
  v = def_value(e, i);
  e->depth--;
  memo_store(e, M_DEF, i, (uint32_t)r, v);
  return v;
}

/* ---- uniform branches and joins --------------------------------------------------------- */

/* Whether predicate p, as last written before instruction end of block q, is a setp
 * comparing values that are the same for every thread of a warp and in every iteration:
 * forms without %tid, %ctaid or loop counters, except the counters of the loops that the
 * edge q -> b leaves (b: a block, or UINT32_MAX for none). */
static int pred_uniform(struct aff_eval *e, int32_t p, uint32_t q, uint32_t end, uint32_t b)
{
  const struct aff_block *qb = &e->g->blocks[q];
  for (uint32_t i = end; i-- > qb->first;) {
    if (!aff_insn_writes(e->f, i, p))
      continue;
    const struct ptx_insn *in = &e->f->insns[i];
    if (in->op != PTX_OP_SETP || in->guard >= 0 || src(e, i, 2))
      return 0; /* a predicate combined with another one: not followed */
    for (uint32_t k = 0; k < 2; k++) {
      struct aff_val v = src_value(e, i, k);
      if (v.status != CC_AFFINE_OK)
        return 0;
      for (uint32_t t = 0; t < v.p->n; t++)
        for (uint32_t a = 0; a < v.p->t[t].deg; a++) {
          aff_atom at = v.p->t[t].atoms[a];
          unsigned kind = aff_atom_kind(at);
          if (kind == CC_AFFINE_TID || kind == CC_AFFINE_CTAID || kind == AFF_PHI)
            return 0;
          if (kind == CC_AFFINE_LOOP &&
              (b == UINT32_MAX || !aff_in_loop(e->g, q, aff_atom_index(at)) ||
               aff_in_loop(e->g, b, aff_atom_index(at))))
            return 0;
        }
    }
    return 1;
  }
  return 0;
}

/* Whether the branch ending block q goes where it goes for every thread of a warp alike,
 * in every iteration of the loops it does not leave towards b (see pred_uniform). */
static int branch_uniform(struct aff_eval *e, uint32_t q, uint32_t b)
{
  const struct aff_block *qb = &e->g->blocks[q];
  const struct ptx_insn *last = &e->f->insns[qb->end - 1];
  if (qb->nsucc < 2)
    return 1;
  if (last->op != PTX_OP_BRA || last->guard < 0)
    return 0;
  return pred_uniform(e, last->guard, q, qb->end - 1, b);
}

/* Whether every thread of a warp that reaches block b from the blocks from[0..n) came the
 * same way from b's immediate dominator: every branch on those paths is uniform. */
static int paths_uniform(struct aff_eval *e, uint32_t b, const uint32_t *from, uint32_t n)
{
  int32_t d = e->g->blocks[b].idom;
  uint8_t *seen;
  uint32_t *work, nw = 0;
  int uniform = 1;
  if (d < 0)
    return 0;
  seen = cc_xcalloc(e->g->nblocks, 1);
  work = cc_xcalloc(e->g->nblocks, sizeof *work);
  seen[b] = 1;
  for (uint32_t k = 0; k < n; k++)
    if (!seen[from[k]]) {
      seen[from[k]] = 1;
      work[nw++] = from[k];
    }
  while (nw && uniform) {
    uint32_t x = work[--nw];
    if (!branch_uniform(e, x, b)) /* a loop left before b may branch on its counter */
      uniform = 0;
    if (x == (uint32_t)d)
      continue;
    for (uint32_t p = 0; p < e->g->blocks[x].npreds; p++) {
      uint32_t q = e->g->blocks[x].preds[p];
      if (!seen[q]) {
        seen[q] = 1;
        work[nw++] = q;
      }
    }
  }
  free(work);
  free(seen);
  return uniform;
}

/* Where values join: at the start of block `block` coming from blocks from[0..n), or at
 * the predicated write `guard_insn` (block -1). */
struct join_at {
  int32_t block;
  const uint32_t *from;
  uint32_t n;
  uint32_t guard_insn;
};

/* The join of n values of register r. Equal forms join to themselves; different
 * thread-invariant ones (no index atom) to an opaque value when the way there is the
 * same for every thread (uniform branches, paths_uniform); anything else is
 * CC_AFFINE_CONTROL. */
static struct aff_val join(struct aff_eval *e, const struct aff_val *v, uint32_t n, int32_t r,
                           const struct join_at *at)
{
  const struct aff_val *first = NULL;
  uint32_t at_insn = at->block >= 0 ? e->g->blocks[at->block].first : at->guard_insn;
  int invariant = 1, equal = 1;
  for (uint32_t k = 0; k < n; k++) {
    if (v[k].status == AFF_UNDEF)
      continue;
    if (v[k].status != CC_AFFINE_OK)
      return v[k];
    if (!first)
      first = &v[k];
    else if (!aff_equal(v[k].p, first->p))
      equal = 0;
    if (aff_has_atom(v[k].p, is_index_atom, NULL))
      invariant = 0;
  }
  if (!first)
    return undef();
  if (equal)
    return *first;
  if (invariant) {
    int uniform;
    if (at->block >= 0) {
      uniform = paths_uniform(e, (uint32_t)at->block, at->from, at->n);
    } else {
      const struct ptx_insn *in = &e->f->insns[at->guard_insn];
      uniform = pred_uniform(e, in->guard, e->g->block_of[at->guard_insn], at->guard_insn,
                             UINT32_MAX);
    }
    if (uniform) {
      struct aff_sym s = {.kind = AFF_SYM_JOIN, .insn = at_insn, .reg = r,
                          .loop = UINT32_MAX, .name = reg_name(e, r)};
      return sym_val(e, &s);
    }
  }
  {
    uint32_t line = insn_line(e, at_insn);
    return fail(CC_AFFINE_CONTROL, line,
                aff_printf(e->ar, "%s has different values on the paths that join at PTX "
                           "line %" PRIu32, reg_name(e, r), line));
  }
}

/* ---- loops ---------------------------------------------------------------------------- */

static int defined_in(const struct aff_loop *l, int32_t r)
{
  return (l->defines[r / 8] >> (r % 8)) & 1;
}

struct atom_set {
  const struct aff_cfg *g;
  uint32_t loop;       /* counters of this loop and the loops inside it */
  uint32_t phi;        /* AFF_PHI index, or UINT32_MAX */
};

/* Whether a is the counter of loop s->loop or of a loop nested in it, or phi s->phi. */
static int in_loop_atom(aff_atom a, const void *ctx_)
{
  const struct atom_set *s = ctx_;
  if (aff_atom_kind(a) == AFF_PHI)
    return aff_atom_index(a) == s->phi;
  if (aff_atom_kind(a) != CC_AFFINE_LOOP)
    return 0;
  return aff_in_loop(s->g, s->g->loops[aff_atom_index(a)].header, s->loop);
}

static uint32_t loop_line(const struct aff_eval *e, uint32_t l)
{
  return insn_line(e, e->g->blocks[e->g->loops[l].header].first);
}

/* phi = init + step * L (see the top of the file); r's update around loop l, back, is
 * known in terms of P = AFF_PHI id. */
static struct aff_val induction(struct aff_eval *e, uint32_t l, int32_t r, struct aff_val init,
                                struct aff_val back, uint32_t id)
{
  struct atom_set own = {e->g, l, id};
  const struct cc_affine_form *step;
  enum aff_fail why = AFF_FAIL_NONE;
  uint32_t line = loop_line(e, l);
  if (back.status == AFF_UNDEF)
    return init;
  if (back.status != CC_AFFINE_OK)
    return back;
  step = aff_add(e->ar, back.p, aff_atom_poly(e->ar, aff_atom_make(AFF_PHI, 0, id)), -1, &why);
  if (!step)
    return poly_failed(e, e->g->blocks[e->g->loops[l].header].first, why);
  if (step->n == 0)
    return init;
  if (aff_has_atom(step, in_loop_atom, &own))
    return fail(CC_AFFINE_CONTROL, line,
                aff_printf(e->ar, "%s changes in the loop at PTX line %" PRIu32 " by other "
                           "than a constant step", reg_name(e, r), line));
  {
    const struct cc_affine_form *p =
        aff_mul(e->ar, step, aff_atom_poly(e->ar, aff_atom_make(CC_AFFINE_LOOP, 0, l)), &why);
    if (p)
      p = aff_add(e->ar, init.p, p, 1, &why);
    return checked(e, e->g->blocks[e->g->loops[l].header].first, p, why);
  }
}

/* The value of r at the header of loop l (see the top of the file). */
static struct aff_val phi_value(struct aff_eval *e, uint32_t l, int32_t r)
{
  const struct aff_loop *lp = &e->g->loops[l];
  const struct aff_block *h = &e->g->blocks[lp->header];
  struct aff_val *vals, init, back, v;
  struct join_at at;
  uint32_t *from;
  struct memo *s;
  uint32_t n = 0, id;
  for (uint32_t k = e->nbind; k-- > 0;)
    if (e->bind[k].loop == l && e->bind[k].reg == r) {
      return ok(aff_atom_poly(e->ar, aff_atom_make(AFF_PHI, 0, e->bind[k].id)));
    }
  s = memo_slot(e, M_PHI, l, (uint32_t)r);
  if (s->state == M_DONE)
    return s->v;
  if (s->state == M_BUSY)
    return irreducible(e, r, h->first);
  if (!enter(e))
    return too_deep(e, h->first);
  s->state = M_BUSY;
  vals = aff_alloc(e->ar, (h->npreds + 1) * sizeof *vals);
  from = aff_alloc(e->ar, (h->npreds + 1) * sizeof *from);
  for (uint32_t p = 0; p < h->npreds; p++)
    if (!aff_in_loop(e->g, h->preds[p], l)) {
      from[n] = h->preds[p];
      vals[n++] = edge_value(e, r, h->preds[p], lp->header);
    }
  at = (struct join_at){(int32_t)lp->header, from, n, 0};
  init = join(e, vals, n, r, &at);
  if (init.status != CC_AFFINE_OK || !defined_in(lp, r)) {
    v = init;
  } else {
    if (e->nbind == e->bind_cap) {
      e->bind_cap = e->bind_cap ? e->bind_cap * 2 : 8;
      e->bind = cc_xrealloc(e->bind, e->bind_cap * sizeof *e->bind);
    }
    id = ++e->next_id;
    e->bind[e->nbind++] = (struct binding){l, r, id};
    n = 0;
    for (uint32_t p = 0; p < h->npreds; p++)
      if (aff_in_loop(e->g, h->preds[p], l)) {
        from[n] = h->preds[p];
        vals[n++] = edge_value(e, r, h->preds[p], lp->header);
      }
    at = (struct join_at){(int32_t)lp->header, from, n, 0};
    back = join(e, vals, n, r, &at);
    e->nbind--;
    v = induction(e, l, r, init, back, id);
  }
  e->depth--;
  memo_store(e, M_PHI, l, (uint32_t)r, v);
  return v;
}

/* v on the edge q -> b: the counters of the loops left replaced by their last values. */
static struct aff_val leave_loops(struct aff_eval *e, struct aff_val v, int32_t r, uint32_t q,
                                  uint32_t b)
{
  int32_t l = e->g->blocks[q].loop;
  int uniform = -1;
  for (; l >= 0 && !aff_in_loop(e->g, b, (uint32_t)l); l = e->g->loops[l].parent) {
    aff_atom counter = aff_atom_make(CC_AFFINE_LOOP, 0, (uint32_t)l);
    struct aff_sym s = {.kind = AFF_SYM_LAST, .loop = (uint32_t)l, .insn = q};
    enum aff_fail why = AFF_FAIL_NONE;
    const struct cc_affine_form *p;
    int found = 0;
    if (v.status != CC_AFFINE_OK)
      return v;
    for (uint32_t t = 0; t < v.p->n && !found; t++)
      for (uint32_t a = 0; a < v.p->t[t].deg; a++)
        found |= v.p->t[t].atoms[a] == counter;
    if (!found)
      continue;
    if (uniform < 0)
      uniform = branch_uniform(e, q, b);
    if (!uniform) {
      uint32_t line = loop_line(e, (uint32_t)l);
      return fail(CC_AFFINE_CONTROL, line,
                  aff_printf(e->ar, "the value of %s after the loop at PTX line %" PRIu32
                             " depends on how many iterations each thread ran",
                             reg_name(e, r), line));
    }
    p = aff_rename(e->ar, v.p, counter,
                   aff_atom_make(CC_AFFINE_SYM, 0, sym_add(e, &s)), &why);
    v = checked(e, e->g->blocks[q].end - 1, p, why);
  }
  return v;
}

/* ---- the walk ------------------------------------------------------------------------- */

/* The value of r at the start of block b. */
static struct aff_val entry_value(struct aff_eval *e, int32_t r, uint32_t b)
{
  const struct aff_block *bl = &e->g->blocks[b];
  struct aff_val *vals, v;
  struct memo *s;
  if (bl->header_of >= 0)
    return phi_value(e, (uint32_t)bl->header_of, r);
  if (bl->npreds == 0)
    return undef();
  if (bl->npreds == 1 && !enter(e))
    return too_deep(e, bl->first);
  if (bl->npreds == 1) { /* no join, no memo */
    v = edge_value(e, r, bl->preds[0], b);
    e->depth--;
    return v;
  }
  s = memo_slot(e, M_ENTRY, b, (uint32_t)r);
  if (s->state == M_DONE)
    return s->v;
  if (s->state == M_BUSY)
    return irreducible(e, r, bl->first);
  if (!enter(e))
    return too_deep(e, bl->first);
  s->state = M_BUSY;
  vals = aff_alloc(e->ar, bl->npreds * sizeof *vals);
  for (uint32_t p = 0; p < bl->npreds; p++)
    vals[p] = edge_value(e, r, bl->preds[p], b);
  {
    struct join_at at = {(int32_t)b, bl->preds, bl->npreds, 0};
    v = join(e, vals, bl->npreds, r, &at);
  }
  e->depth--;
  memo_store(e, M_ENTRY, b, (uint32_t)r, v);
  return v;
}

/* The value of r just before instruction i. */
static struct aff_val value_before(struct aff_eval *e, int32_t r, uint32_t i)
{
  uint32_t b = e->g->block_of[i];
  const struct aff_block *bl = &e->g->blocks[b];
  if (r < 0 || (uint32_t)r >= e->f->nregs)
    return fail(CC_AFFINE_OPAQUE, insn_line(e, i), "a register out of range");
  for (uint32_t j = i; j-- > bl->first;) {
    if (!aff_insn_writes(e->f, j, r))
      continue;
    struct aff_val v = eval_def(e, j, r), w[2];
    if (e->f->insns[j].guard < 0)
      return v;
    w[0] = v; /* a predicated write joins the value before it */
    w[1] = value_before(e, r, j);
    return join(e, w, 2, r, &(struct join_at){-1, NULL, 0, j});
  }
  return entry_value(e, r, b);
}

static struct aff_val block_end_value(struct aff_eval *e, int32_t r, uint32_t b)
{
  const struct aff_block *bl = &e->g->blocks[b];
  /* the last instruction's own writes count; value_before(end) would look one further */
  for (uint32_t j = bl->end; j-- > bl->first;)
    if (aff_insn_writes(e->f, j, r)) {
      struct aff_val v = eval_def(e, j, r), w[2];
      if (e->f->insns[j].guard < 0)
        return v;
      w[0] = v;
      w[1] = value_before(e, r, j);
      return join(e, w, 2, r, &(struct join_at){-1, NULL, 0, j});
    }
  return entry_value(e, r, b);
}

/* The value of r on the edge from block q to block b. */
static struct aff_val edge_value(struct aff_eval *e, int32_t r, uint32_t q, uint32_t b)
{
  return leave_loops(e, block_end_value(e, r, q), r, q, b);
}

/* ---- interface ------------------------------------------------------------------------ */

struct aff_eval *aff_eval_new(struct aff_arena *ar, const struct ptx_module *m,
                              const struct ptx_function *f, const struct aff_cfg *g,
                              struct aff_syms *syms)
{
  struct aff_eval *e = cc_xcalloc(1, sizeof *e);
  e->ar = ar;
  e->m = m;
  e->f = f;
  e->g = g;
  e->syms = syms;
  return e;
}

void aff_eval_free(struct aff_eval *e)
{
  if (!e)
    return;
  free(e->memo);
  free(e->bind);
  free(e);
}

static struct aff_val address_value(struct aff_eval *e, uint32_t insn,
                                    const struct ptx_operand *opnd)
{
  struct aff_val v = ok(aff_const(e->ar, opnd->imm));
  enum aff_fail why = AFF_FAIL_NONE;
  e->depth = 0;
  if (opnd->reg >= 0) {
    struct aff_val r = value_before(e, opnd->reg, insn);
    if (r.status == AFF_UNDEF) {
      uint32_t line = insn_line(e, insn);
      return fail(CC_AFFINE_OPAQUE, line,
                  aff_printf(e->ar, "%s is read before it is written (PTX line %" PRIu32 ")",
                             reg_name(e, opnd->reg), line));
    }
    if (r.status != CC_AFFINE_OK)
      return r;
    v = checked(e, insn, aff_add(e->ar, v.p, r.p, 1, &why), why);
  }
  if (opnd->var >= 0 && v.status == CC_AFFINE_OK) {
    struct aff_val a = var_atom(e, opnd->var_scope, opnd->var);
    v = checked(e, insn, aff_add(e->ar, v.p, a.p, 1, &why), why);
  }
  return v;
}

struct aff_val aff_eval_address(struct aff_eval *e, uint32_t insn, const struct ptx_operand *opnd)
{
  struct aff_val v = address_value(e, insn, opnd);
  if (e->truncated) { /* values cut by the depth limit may be whole from another start */
    memset(e->memo, 0, e->memo_cap * sizeof *e->memo);
    e->memo_used = 0;
    e->truncated = 0;
  }
  return v;
}
