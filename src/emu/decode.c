/* Decoding: PTX IR -> the emulator's compact form (struct dinsn), once per run.
 *
 * Every source operand becomes a register index: real registers first, then SR_COUNT
 * pseudo-registers for the special registers, then one pseudo-register per distinct
 * constant (immediates converted to the operand's type, symbol addresses). Handlers
 * therefore read R[s][lane] only. An instruction the interpreter cannot run is reported
 * here, before anything executes. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu_internal.h"

/* base opcode names, indexed by enum ptx_opcode (whatever rows ptx_ops.def holds) */
static const char *const op_names[PTX_OP_COUNT + 1] = {
#define PTX_OP(id, name, shape, semantics) name,
#include "ptx/ptx_ops.def"
#undef PTX_OP
    NULL};

static const struct {
  const char *name;
  enum family fam;
} fam_names[] = {
    {"add", F_ADD},       {"sub", F_SUB},         {"mul", F_MUL},
    {"mad", F_MAD},       {"fma", F_FMA},         {"div", F_DIV},
    {"rem", F_REM},       {"abs", F_ABS},         {"neg", F_NEG},
    {"min", F_MIN},       {"max", F_MAX},         {"mov", F_MOV},
    {"ld", F_LD},         {"st", F_ST},           {"cvt", F_CVT},
    {"cvta", F_CVTA},     {"setp", F_SETP},       {"selp", F_SELP},
    {"bra", F_BRA},       {"ret", F_RET},         {"exit", F_EXIT},
    {"bar", F_BAR},       {"barrier", F_BARRIER}, {"and", F_AND},
    {"or", F_OR},         {"xor", F_XOR},         {"not", F_NOT},
    {"shl", F_SHL},       {"shr", F_SHR},         {"call", F_CALL},
    {"atom", F_ATOM},     {"red", F_RED},         {"shfl", F_SHFL},
    {"vote", F_VOTE},     {"match", F_MATCH},     {"activemask", F_ACTIVEMASK},
    {"sqrt", F_SQRT},     {"rsqrt", F_RSQRT},     {"rcp", F_RCP},
    {"ex2", F_EX2},       {"lg2", F_LG2},         {"sin", F_SIN},
    {"cos", F_COS},       {"popc", F_POPC},       {"clz", F_CLZ},
    {"brev", F_BREV},     {"bfe", F_BFE},         {"bfi", F_BFI},
    {"prmt", F_PRMT},     {"slct", F_SLCT},       {"copysign", F_COPYSIGN},
    {"membar", F_MEMBAR}, {"fence", F_FENCE},     {"trap", F_TRAP},
    {"nanosleep", F_NANOSLEEP}, {"testp", F_TESTP}, {"cnot", F_CNOT},
    {"mul24", F_MUL24},   {"mad24", F_MAD24},     {"sad", F_SAD},
    {"bfind", F_BFIND},   {"ldu", F_LDU},         {"pmevent", F_PMEVENT},
    {"brkpt", F_BRKPT},   {"addc", F_ADDC},       {"subc", F_SUBC},
    {"madc", F_MADC},     {"lop3", F_LOP3},       {"shf", F_SHF},
    {"isspacep", F_ISSPACEP}, {"redux", F_REDUX},  {"prefetch", F_PREFETCH},
    {"prefetchu", F_PREFETCH}, {"cp", F_CP},  {"tanh", F_TANH},    {"set", F_SET},
    {"bmsk", F_BMSK},     {"szext", F_SZEXT},     {"elect", F_ELECT},
    {"griddepcontrol", F_HINT}, {"discard", F_HINT}, {"applypriority", F_HINT},
    {"setmaxnreg", F_HINT}, {"createpolicy", F_CREATEPOLICY},
};

/* the family of a table opcode, by its name (F_NONE when the emulator has none) */
static enum family family_of(unsigned op)
{
  if (op >= PTX_OP_COUNT) return F_NONE;
  for (size_t j = 0; j < sizeof fam_names / sizeof fam_names[0]; j++)
    if (strcmp(fam_names[j].name, op_names[op]) == 0) return fam_names[j].fam;
  return F_NONE;
}

void emu_type_class(enum ptx_type t, uint8_t *w, uint8_t *k)
{
  switch (t) {
  case PTX_TYPE_PRED: *w = 1; *k = K_P; return;
  case PTX_TYPE_B8: case PTX_TYPE_U8: *w = 8; *k = K_U; return;
  case PTX_TYPE_B16: case PTX_TYPE_U16: *w = 16; *k = K_U; return;
  case PTX_TYPE_B32: case PTX_TYPE_U32: case PTX_TYPE_F16X2: case PTX_TYPE_BF16X2:
    *w = 32; *k = K_U; return;
  case PTX_TYPE_B64: case PTX_TYPE_U64: *w = 64; *k = K_U; return;
  case PTX_TYPE_S8: *w = 8; *k = K_S; return;
  case PTX_TYPE_S16: *w = 16; *k = K_S; return;
  case PTX_TYPE_S32: *w = 32; *k = K_S; return;
  case PTX_TYPE_S64: *w = 64; *k = K_S; return;
  case PTX_TYPE_F16: case PTX_TYPE_BF16: *w = 16; *k = K_F; return;
  case PTX_TYPE_F32: *w = 32; *k = K_F; return;
  case PTX_TYPE_F64: *w = 64; *k = K_F; return;
  default: *w = 0; *k = K_U; return;
  }
}

/* ---- decoding state ------------------------------------------------------------ */

struct dec {
  struct cc_emu *emu;
  struct code *c;
  const struct ptx_function *kernel;
  struct dfunc *df;
  const struct ptx_function *f;
  const struct ptx_insn *pi;
  uint32_t index;
  char *msgs;          /* accumulated "unsupported" lines */
  size_t msgs_len;
  unsigned nbad;
};

/* Returns the constant pseudo-register holding value (with the local flag). */
static int32_t const_reg(struct dfunc *df, uint64_t value, int local)
{
  for (uint32_t j = 0; j < df->nconst; j++)
    if (df->consts[j].value == value && df->consts[j].local == local)
      return (int32_t)(df->nregs + SR_COUNT + j);
  if (df->nconst == df->cconst) {
    df->cconst = df->cconst ? df->cconst * 2 : 16;
    df->consts = cc_xrealloc(df->consts, df->cconst * sizeof *df->consts);
  }
  df->consts[df->nconst].value = value;
  df->consts[df->nconst].local = (uint8_t)local;
  return (int32_t)(df->nregs + SR_COUNT + df->nconst++);
}

/* the pseudo-register slot of a special-register operand, or -1 */
static int sreg_slot(const struct ptx_operand *o)
{
  unsigned c = o->comp < 3 ? o->comp : 0;
  switch (o->sreg) {
  case PTX_SREG_TID: return SR_TID + (int)c;
  case PTX_SREG_NTID: return SR_NTID + (int)c;
  case PTX_SREG_CTAID: return SR_CTAID + (int)c;
  case PTX_SREG_NCTAID: return SR_NCTAID + (int)c;
  case PTX_SREG_LANEID: return SR_LANEID;
  case PTX_SREG_WARPID: return SR_WARPID;
  case PTX_SREG_NWARPID: return SR_NWARPID;
  case PTX_SREG_SMID: return SR_SMID;
  case PTX_SREG_NSMID: return SR_NSMID;
  case PTX_SREG_GRIDID: return SR_GRIDID;
  case PTX_SREG_CLOCK: return SR_CLOCK;
  case PTX_SREG_CLOCK64: return SR_CLOCK64;
  case PTX_SREG_GLOBALTIMER: return SR_GTIMER;
  case PTX_SREG_LANEMASK_EQ: return SR_LANEMASK_EQ;
  case PTX_SREG_LANEMASK_LT: return SR_LANEMASK_LT;
  case PTX_SREG_LANEMASK_LE: return SR_LANEMASK_LE;
  case PTX_SREG_LANEMASK_GT: return SR_LANEMASK_GT;
  case PTX_SREG_LANEMASK_GE: return SR_LANEMASK_GE;
  case PTX_SREG_DYNAMIC_SMEM_SIZE: return SR_DSMEM;
  case PTX_SREG_TOTAL_SMEM_SIZE: return SR_TSMEM;
  default: return -1;
  }
}

/* Address of variable var (scope from the operand) as the instruction space sees it:
 * *local set when the frame's local base must be added. Generic instructions get
 * window addresses. Returns 0 and sets *ok = 0 when the variable cannot be placed. */
static uint64_t var_address(struct dec *d, const struct ptx_operand *o, enum ptx_space isp,
                            int *local, int *ok)
{
  const struct ptx_var *v;
  uint64_t a;
  *local = 0;
  if (o->var_scope == PTX_SCOPE_MODULE) {
    if (o->var < 0 || (uint32_t)o->var >= d->emu->m->nvars) { *ok = 0; return 0; }
    v = &d->emu->m->vars[o->var];
    a = d->c->mvar[o->var];
    if (d->emu->mvar_bad[o->var]) *ok = 0; /* its initializer could not be evaluated */
  } else {
    if (o->var < 0 || (uint32_t)o->var >= d->f->nvars) { *ok = 0; return 0; }
    v = &d->f->vars[o->var];
    a = d->df->var_off[o->var];
    if (v->space == PTX_SPACE_LOCAL) *local = 1;
  }
  if (isp == PTX_SPACE_GENERIC) {
    switch (v->space) {
    case PTX_SPACE_SHARED: a += WIN_SHARED; break;
    case PTX_SPACE_LOCAL: a += WIN_LOCAL; break;
    case PTX_SPACE_CONST: a += WIN_CONST; break;
    case PTX_SPACE_GLOBAL: break;
    default: *ok = 0; break;
    }
  }
  if (v->space == PTX_SPACE_TEX) *ok = 0;
  return a;
}

/* float immediates are written as f32 bits (0f) or f64 (0d, decimal); convert to type */
static uint64_t imm_value(const struct ptx_operand *o, uint8_t w, uint8_t k)
{
  uint64_t v = (uint64_t)o->imm;
  if (k == K_F && o->is_float) {
    if (w == 32 && o->is_f64) {
      double x; float f; uint32_t b;
      memcpy(&x, &v, 8); f = (float)x; memcpy(&b, &f, 4);
      return b;
    }
    if (w == 64 && !o->is_f64) {
      uint32_t b = (uint32_t)v; float f; double x;
      memcpy(&f, &b, 4); x = f; memcpy(&v, &x, 8);
      return v;
    }
    if (w == 16) {
      double x; float f;
      if (o->is_f64) { memcpy(&x, &v, 8); f = (float)x; }
      else { uint32_t b = (uint32_t)v; memcpy(&f, &b, 4); }
      return emu_f32_to_f16(f);
    }
  }
  return v;
}

/* operand j of the instruction being decoded */
static const struct ptx_operand *opnd(struct dec *d, unsigned j)
{
  assert(j < d->pi->nopnds);
  return &d->f->opnds[d->pi->opnd + j];
}

/* Source operand j of type class (w,k) -> register index, or -2 when unusable. */
static int32_t src(struct dec *d, struct dinsn *i, unsigned j, uint8_t w, uint8_t k)
{
  const struct ptx_operand *o = opnd(d, j);
  int local = 0, ok = 1;
  uint64_t a;
  if (o->neg) i->sneg |= (uint8_t)(1u << (j < 8 ? j : 7));
  switch (o->kind) {
  case PTX_OPND_REG:
    if (o->reg < 0 || (uint32_t)o->reg >= d->f->nregs) return -2;
    return o->reg;
  case PTX_OPND_IMM: return const_reg(d->df, imm_value(o, w, k), 0);
  case PTX_OPND_SREG: {
    int s = sreg_slot(o);
    if (s < 0) return -2;
    if (s == SR_CLOCK || s == SR_CLOCK64 || s == SR_GTIMER) i->reads_clock = 1;
    return (int32_t)d->df->nregs + s;
  }
  case PTX_OPND_SYM:
    if (o->is_func) return const_reg(d->df, (uint64_t)o->var, 0);
    a = var_address(d, o, PTX_SPACE_COUNT, &local, &ok);
    if (!ok) return -2;
    return const_reg(d->df, a, local);
  case PTX_OPND_SINK: return -1;
  default: return -2;
  }
}

/* destination operand j as a register index, -1 for "_", -2 when unusable */
static int32_t dst(struct dec *d, unsigned j)
{
  const struct ptx_operand *o = opnd(d, j);
  if (o->kind == PTX_OPND_SINK) return -1;
  if (o->kind != PTX_OPND_REG || o->reg < 0 || (uint32_t)o->reg >= d->f->nregs) return -2;
  return o->reg;
}

/* A vector operand's registers into out[]; returns the count or -1. */
static int vec_regs(struct dec *d, struct dinsn *i, unsigned j, int32_t *out, int is_dst,
                    uint8_t w, uint8_t k)
{
  const struct ptx_operand *o = opnd(d, j);
  if (o->kind != PTX_OPND_VEC || o->count < 1 || o->count > 4) return -1;
  for (int32_t e = 0; e < o->count; e++) {
    const struct ptx_operand *x = &d->f->opnds[o->first + e];
    if (x->kind == PTX_OPND_SINK) { out[e] = -1; continue; }
    if (x->kind == PTX_OPND_REG && x->reg >= 0 && (uint32_t)x->reg < d->f->nregs) {
      out[e] = x->reg;
      continue;
    }
    if (!is_dst && x->kind == PTX_OPND_IMM) {
      out[e] = const_reg(d->df, imm_value(x, w, k), 0);
      continue;
    }
    return -1;
  }
  (void)i;
  return o->count;
}

/* ---- per-family decoding --------------------------------------------------------- */

static int is_simple_f(const struct dinsn *i)
{
  return (i->flags & (PTX_F_FTZ | PTX_F_SAT)) == 0 &&
         (i->rnd == PTX_RND_NONE || i->rnd == PTX_RND_RN);
}

/* arithmetic: nd destinations, ns sources of the instruction type */
static int dec_alu(struct dec *d, struct dinsn *i, unsigned ns)
{
  const struct ptx_insn *pi = d->pi;
  if (pi->nopnds != ns + 1) return 0;
  i->nd = 1;
  i->ns = (uint8_t)ns;
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  for (unsigned j = 0; j < ns; j++) {
    uint8_t w = i->w, k = i->k;
    /* shift amounts and bit positions are u32; wide sources are of t */
    if ((i->fam == F_SHL || i->fam == F_SHR) && j == 1) { w = 32; k = K_U; }
    if ((i->fam == F_BFE || i->fam == F_BFI) && j >= 1 + (i->fam == F_BFI)) { w = 32; k = K_U; }
    if (i->fam == F_SLCT && j == 2) { w = i->w2; k = i->k2; }
    if ((i->s[j] = src(d, i, j + 1, w, k)) == -2) return 0;
  }
  return 1;
}

/* an integer instruction with ns sources of its type, to the generic handler */
static int dec_int(struct dec *d, struct dinsn *i, unsigned ns)
{
  if (!dec_alu(d, i, ns)) return 0;
  if (i->k == K_F) return 0;
  i->h = H_IOP;
  return 1;
}

/* a float instruction with ns sources of its type (f32, f64, basic f16) */
static int dec_float(struct dec *d, struct dinsn *i, unsigned ns)
{
  if (!dec_alu(d, i, ns)) return 0;
  if (i->k != K_F) return 0;
  if (i->w == 16) { /* scalar .f16: the basic arithmetic only (no bf16, no f16x2) */
    if (i->t != PTX_TYPE_F16) return 0;
    switch (i->fam) {
    case F_ADD: case F_SUB: case F_MUL: case F_FMA: case F_NEG: case F_ABS: case F_MIN:
    case F_MAX: break;
    default: return 0;
    }
  } else if (i->w != 32 && i->w != 64) {
    return 0;
  }
  i->h = H_FOP;
  return 1;
}

/* add/sub/mul/mad/fma: a fixed-type handler when one applies, else generic */
static int dec_arith(struct dec *d, struct dinsn *i, unsigned ns)
{
  int fl = i->k == K_F;
  if (fl) {
    if (!dec_float(d, i, ns)) return 0;
    if (!is_simple_f(i) || i->w == 16) return 1;
    if (i->w == 32) {
      if (i->fam == F_ADD) i->h = H_ADD_F32;
      if (i->fam == F_SUB) i->h = H_SUB_F32;
      if (i->fam == F_MUL) i->h = H_MUL_F32;
      if (i->fam == F_FMA || (i->fam == F_MAD && i->rnd == PTX_RND_RN)) i->h = H_FMA_F32;
    } else {
      if (i->fam == F_ADD) i->h = H_ADD_F64;
      if (i->fam == F_SUB) i->h = H_SUB_F64;
      if (i->fam == F_MUL) i->h = H_MUL_F64;
      if (i->fam == F_FMA || (i->fam == F_MAD && i->rnd == PTX_RND_RN)) i->h = H_FMA_F64;
    }
    return 1;
  }
  if (i->fam == F_FMA) return 0;
  if (i->k == K_P) return 0;
  if (!dec_int(d, i, ns)) return 0;
  if (i->flags & PTX_F_CC) { /* carry chain: 32 and 64 bits */
    if (i->w != 32 && i->w != 64) return 0;
    if (i->fam == F_MAD && i->mode != PTX_MODE_LO && i->mode != PTX_MODE_HI) return 0;
    i->h = H_CARRY;
    return 1;
  }
  if (i->flags & PTX_F_SAT) return i->w == 32;
  if (i->fam == F_ADD) i->h = i->w == 32 ? H_ADD_32 : i->w == 64 ? H_ADD_64 : H_IOP;
  if (i->fam == F_SUB) i->h = i->w == 32 ? H_SUB_32 : i->w == 64 ? H_SUB_64 : H_IOP;
  if (i->fam == F_MUL && i->mode == PTX_MODE_LO)
    i->h = i->w == 32 ? H_MUL_LO_32 : i->w == 64 ? H_MUL_LO_64 : H_IOP;
  if (i->fam == F_MUL && i->mode == PTX_MODE_WIDE && i->w == 32)
    i->h = i->k == K_S ? H_MUL_WIDE_S32 : H_MUL_WIDE_U32;
  if (i->fam == F_MAD && i->mode == PTX_MODE_LO && i->w == 32) i->h = H_MAD_LO_32;
  if ((i->fam == F_MUL || i->fam == F_MAD) && i->mode == PTX_MODE_NONE) return 0;
  return 1;
}

/* and/or/xor/not/shl/shr, on predicates or integers */
static int dec_logic(struct dec *d, struct dinsn *i, unsigned ns)
{
  if (!dec_alu(d, i, ns)) return 0;
  if (i->k == K_F) return 0;
  i->h = H_IOP;
  if (i->k == K_P) {
    i->h = i->fam == F_AND ? H_AND_P : i->fam == F_OR ? H_OR_P : i->fam == F_XOR ? H_XOR_P
                                                                              : H_NOT_P;
    return 1;
  }
  if (i->w == 32 && i->fam == F_AND) i->h = H_AND_32;
  if (i->w == 32 && i->fam == F_OR) i->h = H_OR_32;
  if (i->w == 32 && i->fam == F_XOR) i->h = H_XOR_32;
  if (i->w == 64 && i->fam == F_AND) i->h = H_AND_64;
  if (i->fam == F_SHL) i->h = i->w == 32 ? H_SHL_32 : i->w == 64 ? H_SHL_64 : H_IOP;
  if (i->fam == F_SHR && i->w == 32) i->h = i->k == K_S ? H_SHR_S32 : H_SHR_U32;
  return 1;
}

/* setp.cmp[.bool].type p[|q], a, b[, c] */
static int dec_setp(struct dec *d, struct dinsn *i)
{
  unsigned n = d->pi->nopnds, hasc = i->boolop != PTX_BOOL_NONE, hasq;
  if (n == 3 + hasc) hasq = 0;
  else if (n == 4 + hasc) hasq = 1;
  else return 0;
  if (i->cmp == PTX_CMP_NONE || i->k == K_P) return 0;
  i->nd = (uint8_t)(1 + hasq);
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if (hasq && (i->d[1] = dst(d, 1)) == -2) return 0;
  i->sneg = 0;
  if ((i->s[0] = src(d, i, 1 + hasq, i->w, i->k)) == -2) return 0;
  if ((i->s[1] = src(d, i, 2 + hasq, i->w, i->k)) == -2) return 0;
  i->sneg = 0;
  if (hasc) {
    if ((i->s[2] = src(d, i, 3 + hasq, 1, K_P)) == -2) return 0;
    i->sneg = opnd(d, 3 + hasq)->neg ? 4 : 0;
  }
  i->ns = (uint8_t)(2 + hasc);
  i->h = H_SETP;
  if (!hasq && !hasc && i->k != K_F && i->w == 32 && (i->flags & PTX_F_FTZ) == 0)
    i->h = i->k == K_S ? H_SETP_S32 : H_SETP_U32;
  if (i->k == K_F && i->w != 32 && i->w != 64 && i->t != PTX_TYPE_F16) return 0;
  return 1;
}

/* mov: plain, vector pack {a, b} -> d, or unpack d -> {a, b} */
static int dec_mov(struct dec *d, struct dinsn *i)
{
  const struct ptx_operand *o0, *o1;
  if (d->pi->nopnds != 2) return 0;
  o0 = opnd(d, 0);
  o1 = opnd(d, 1);
  if (o0->kind == PTX_OPND_VEC) { /* unpack: mov.b64 {lo, hi}, a */
    int n = vec_regs(d, i, 0, i->d, 1, 0, K_U);
    if (n < 2 || (unsigned)n * 8 > i->w || i->w % (unsigned)n) return 0;
    i->nd = (uint8_t)n;
    if ((i->s[0] = src(d, i, 1, i->w, i->k)) == -2) return 0;
    i->ns = 1;
    i->h = H_MOV_UNPACK;
    return 1;
  }
  i->nd = 1;
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if (o1->kind == PTX_OPND_VEC) {
    int n = vec_regs(d, i, 1, i->s, 0, (uint8_t)(i->w / 2), K_U);
    if (n < 2 || i->w % (unsigned)n) return 0;
    i->ns = (uint8_t)n;
    i->h = H_MOV_PACK;
    return 1;
  }
  if ((i->s[0] = src(d, i, 1, i->w, i->k)) == -2) return 0;
  i->ns = 1;
  i->h = H_MOV;
  return 1;
}

/* memory operand [reg+imm] / [var+imm] / [imm] */
static int dec_addr(struct dec *d, struct dinsn *i, unsigned j, enum ptx_space sp)
{
  const struct ptx_operand *o = opnd(d, j);
  int local = 0, ok = 1;
  if (o->kind != PTX_OPND_ADDR) return 0;
  i->areg = -1;
  i->addr32 = 0;
  i->disp = o->imm;
  if (o->reg >= 0) {
    if ((uint32_t)o->reg >= d->f->nregs) return 0;
    i->areg = o->reg;
    i->addr32 = ptx_type_size(d->f->regs[o->reg].type) == 4;
  }
  if (o->var >= 0) {
    uint64_t a = var_address(d, o, sp, &local, &ok);
    if (!ok) return 0;
    i->disp += (int64_t)a;
    i->disp_local = (uint8_t)local;
  }
  return 1;
}

/* whether ld/st may name space sp */
static int mem_space_ok(enum ptx_space sp, int param_ok)
{
  return sp == PTX_SPACE_GLOBAL || sp == PTX_SPACE_SHARED || sp == PTX_SPACE_LOCAL ||
         sp == PTX_SPACE_GENERIC || sp == PTX_SPACE_CONST ||
         (param_ok && sp == PTX_SPACE_PARAM);
}

/* ld/st/ldu: scalar or vector, any space but tex */
static int dec_ldst(struct dec *d, struct dinsn *i)
{
  int is_ld = i->fam == F_LD || i->fam == F_LDU;
  unsigned dj = is_ld ? 0 : 1, mj = is_ld ? 1 : 0;
  const struct ptx_operand *v;
  if (d->pi->nopnds != 2 || i->w < 8 || i->w > 64) return 0;
  if (!mem_space_ok((enum ptx_space)i->space, 1)) return 0;
  if (!is_ld && i->space == PTX_SPACE_CONST) return 0;
  if (!dec_addr(d, i, mj, (enum ptx_space)i->space)) return 0;
  v = opnd(d, dj);
  if (v->kind == PTX_OPND_VEC) {
    int n = vec_regs(d, i, dj, is_ld ? i->d : i->s, is_ld, i->w, i->k);
    if (n < 1 || (unsigned)n != i->vec) return 0;
    if (is_ld) i->nd = (uint8_t)n; else i->ns = (uint8_t)n;
  } else {
    if (i->vec != 1) return 0;
    if (is_ld) {
      if ((i->d[0] = dst(d, dj)) == -2) return 0;
      i->nd = 1;
    } else {
      if ((i->s[0] = src(d, i, dj, i->w, i->k)) == -2) return 0;
      i->ns = 1;
    }
  }
  i->size = (uint32_t)(i->w / 8) * i->vec;
  i->h = is_ld ? H_LD : H_ST;
  return 1;
}

/* atom/red on global, shared or generic memory, 32 or 64 bits */
static int dec_atom(struct dec *d, struct dinsn *i)
{
  int is_red = i->fam == F_RED;
  unsigned base = is_red ? 0 : 1, nsrc = i->mode == PTX_MODE_CAS ? 2 : 1;
  if (d->pi->nopnds != base + 1 + nsrc) return 0;
  if (i->space != PTX_SPACE_GLOBAL && i->space != PTX_SPACE_SHARED &&
      i->space != PTX_SPACE_GENERIC)
    return 0;
  if (i->vec != 1 || (i->w != 32 && i->w != 64)) return 0;
  switch (i->mode) {
  case PTX_MODE_ADD: break;
  case PTX_MODE_MIN: case PTX_MODE_MAX: if (i->k == K_F) return 0; break;
  case PTX_MODE_INC: case PTX_MODE_DEC: if (i->w != 32 || i->k == K_F) return 0; break;
  case PTX_MODE_CAS: case PTX_MODE_EXCH: case PTX_MODE_AND: case PTX_MODE_OR:
  case PTX_MODE_XOR: if (i->k == K_F && i->mode != PTX_MODE_EXCH) return 0; break;
  default: return 0;
  }
  if (is_red) i->d[0] = -1;
  else if ((i->d[0] = dst(d, 0)) == -2) return 0;
  i->nd = 1;
  if (!dec_addr(d, i, base, (enum ptx_space)i->space)) return 0;
  for (unsigned j = 0; j < nsrc; j++)
    if ((i->s[j] = src(d, i, base + 1 + j, i->w, i->k)) == -2) return 0;
  i->ns = (uint8_t)nsrc;
  i->size = i->w / 8;
  i->h = H_ATOM;
  return 1;
}

/* cvt between integer and float types (no packed or bf16 forms) */
static int dec_cvt(struct dec *d, struct dinsn *i)
{
  if (d->pi->nopnds != 2 || i->t2 == PTX_TYPE_NONE) return 0;
  if (i->k == K_P || i->k2 == K_P) return 0;
  if (i->t == PTX_TYPE_BF16 || i->t2 == PTX_TYPE_BF16 || i->w == 0 || i->w2 == 0) return 0;
  if (i->t == PTX_TYPE_F16X2 || i->t2 == PTX_TYPE_F16X2 || i->t == PTX_TYPE_BF16X2 ||
      i->t2 == PTX_TYPE_BF16X2)
    return 0;
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if ((i->s[0] = src(d, i, 1, i->w2, i->k2)) == -2) return 0;
  i->nd = i->ns = 1;
  i->h = H_CVT;
  return 1;
}

/* cvta[.to].{global,shared,local,const} */
static int dec_cvta(struct dec *d, struct dinsn *i)
{
  enum ptx_space s = (enum ptx_space)i->cvta_space;
  if (d->pi->nopnds != 2) return 0;
  if (s != PTX_SPACE_GLOBAL && s != PTX_SPACE_SHARED && s != PTX_SPACE_LOCAL &&
      s != PTX_SPACE_CONST)
    return 0;
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if ((i->s[0] = src(d, i, 1, i->w, i->k)) == -2) return 0;
  i->nd = i->ns = 1;
  i->h = H_CVTA;
  return 1;
}

/* call[.uni] (rets), f, (args): a direct call's operands are the return parameters then
 * the arguments, each a .param variable of the caller's call sequence (the function is
 * ptx_insn.callee). An indirect call has the target register between them (its value a
 * function's address, taken with mov). */
static int dec_call(struct dec *d, struct dinsn *i)
{
  const struct ptx_insn *pi = d->pi;
  unsigned nret = pi->call_nret, j, indirect = pi->callee < 0;
  if (!indirect && ((uint32_t)pi->callee >= d->emu->m->nfuncs ||
                    !d->emu->m->funcs[pi->callee].has_body))
    return 0;
  if (nret + indirect > pi->nopnds) return 0;
  for (j = 0; j < pi->nopnds; j++) {
    const struct ptx_operand *o = opnd(d, j);
    if (indirect && j == nret) {
      if ((i->s[0] = src(d, i, j, 64, K_U)) < 0) return 0;
      continue;
    }
    if ((o->kind != PTX_OPND_SYM && o->kind != PTX_OPND_ADDR) || o->var < 0 ||
        o->var_scope != PTX_SCOPE_FUNCTION || (uint32_t)o->var >= d->f->nvars ||
        d->f->vars[o->var].space != PTX_SPACE_PARAM)
      return 0;
  }
  i->callee = pi->callee; /* module index (mapped to the run's table later), or -1 */
  i->call_first = pi->opnd;
  i->call_nret = nret;
  i->call_args_at = nret + indirect;
  i->call_nargs = pi->nopnds - nret - indirect;
  i->h = H_CALL;
  return 1;
}

static int dec_bar(struct dec *d, struct dinsn *i)
{
  unsigned n = d->pi->nopnds;
  const char *t = d->pi->opcode_text ? d->pi->opcode_text : "";
  /* bar.warp.sync (__syncwarp): the warp's lanes already run in lock step here */
  if (strstr(t, ".warp")) {
    if (n > 1 || (n == 1 && src(d, i, 0, 32, K_U) == -2)) return 0;
    i->h = H_NOP;
    return 1;
  }
  if (strstr(t, ".cluster")) return 0; /* cluster barriers are not implemented */
  /* bar.red.popc.u32 d, a{, b}, {!}c and bar.red.{and,or}.pred p, a{, b}, {!}c */
  if (i->mode == PTX_MODE_RED || i->mode == PTX_MODE_POPC) {
    if (n != 3 && n != 4) return 0;
    if (i->mode == PTX_MODE_POPC) i->setout = 1;
    else if (i->boolop == PTX_BOOL_AND) i->setout = 2;
    else if (i->boolop == PTX_BOOL_OR) i->setout = 3;
    else return 0;
    if ((i->d[0] = dst(d, 0)) < 0) return 0;
    i->nd = 1;
    if ((i->s[0] = src(d, i, 1, 32, K_U)) == -2) return 0;
    if (n == 4 && (i->s[1] = src(d, i, 2, 32, K_U)) == -2) return 0;
    i->sneg = 0;
    if ((i->s[2] = src(d, i, n - 1, 1, K_P)) == -2) return 0;
    i->sneg = opnd(d, n - 1)->neg ? 4 : 0;
    i->ns = 3;
    i->cmp = 0;
    i->h = H_BAR;
    return 1;
  }
  if (n > 2) return 0;
  i->s[0] = i->s[1] = -1;
  for (unsigned j = 0; j < n; j++)
    if ((i->s[j] = src(d, i, j, 32, K_U)) == -2) return 0;
  i->ns = (uint8_t)n;
  i->cmp = i->mode == PTX_MODE_ARRIVE; /* arrive: count, do not wait */
  i->h = H_BAR;
  return 1;
}

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask */
static int dec_shfl(struct dec *d, struct dinsn *i)
{
  unsigned n = d->pi->nopnds, hasp;
  if (n == 5) hasp = 0;
  else if (n == 6) hasp = 1;
  else return 0;
  if (i->w != 32) return 0;
  if (i->mode != PTX_MODE_UP && i->mode != PTX_MODE_DOWN && i->mode != PTX_MODE_BFLY &&
      i->mode != PTX_MODE_IDX)
    return 0;
  i->nd = (uint8_t)(1 + hasp);
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if (hasp && (i->d[1] = dst(d, 1)) == -2) return 0;
  for (unsigned j = 0; j < 4; j++)
    if ((i->s[j] = src(d, i, 1 + hasp + j, 32, K_U)) == -2) return 0;
  i->ns = 4;
  i->h = H_SHFL;
  return 1;
}

/* vote.sync.mode.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask */
static int dec_vote(struct dec *d, struct dinsn *i)
{
  unsigned n = d->pi->nopnds;
  if (n != 2 && n != 3) return 0;
  if (i->mode != PTX_MODE_ALL && i->mode != PTX_MODE_ANY && i->mode != PTX_MODE_UNI &&
      i->mode != PTX_MODE_BALLOT)
    return 0;
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  i->sneg = 0;
  if ((i->s[0] = src(d, i, 1, 1, K_P)) == -2) return 0;
  i->sneg = opnd(d, 1)->neg ? 1 : 0;
  i->s[1] = -1;
  if (n == 3 && (i->s[1] = src(d, i, 2, 32, K_U)) == -2) return 0;
  i->nd = 1;
  i->ns = (uint8_t)(n - 1);
  i->h = H_VOTE;
  return 1;
}

/* match.sync.any.b32 d, a, mask; match.sync.all.b32 d[|p], a, mask */
static int dec_match(struct dec *d, struct dinsn *i)
{
  unsigned n = d->pi->nopnds, hasp;
  if (i->mode != PTX_MODE_ANY && i->mode != PTX_MODE_ALL) return 0;
  if (i->w != 32 && i->w != 64) return 0;
  if (n == 3) hasp = 0;
  else if (n == 4 && i->mode == PTX_MODE_ALL) hasp = 1;
  else return 0;
  i->nd = (uint8_t)(1 + hasp);
  if ((i->d[0] = dst(d, 0)) == -2) return 0;
  if (hasp && (i->d[1] = dst(d, 1)) == -2) return 0;
  if ((i->s[0] = src(d, i, 1 + hasp, i->w, i->k)) == -2) return 0;
  if ((i->s[1] = src(d, i, 2 + hasp, 32, K_U)) == -2) return 0;
  i->ns = 2;
  i->h = H_MATCH;
  return 1;
}

/* cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size}: done at once (a
 * synchronous copy is one of the orders the asynchronous one may take), so the group
 * commits and waits are no-ops. Bulk and mbarrier forms are not implemented. */
static int dec_cp(struct dec *d, struct dinsn *i)
{
  const char *t = d->pi->opcode_text ? d->pi->opcode_text : "";
  unsigned n = d->pi->nopnds;
  const struct ptx_operand *o;
  if (strncmp(t, "cp.async", 8) != 0 || strstr(t, ".bulk") || strstr(t, "mbarrier")) return 0;
  if (strstr(t, "commit_group") || strstr(t, "wait_group") || strstr(t, "wait_all")) {
    i->h = H_NOP;
    return 1;
  }
  if ((n != 3 && n != 4) || i->space != PTX_SPACE_SHARED || i->cvta_space != PTX_SPACE_GLOBAL)
    return 0;
  o = opnd(d, 2);
  if (o->kind != PTX_OPND_IMM || (o->imm != 4 && o->imm != 8 && o->imm != 16)) return 0;
  if (!dec_addr(d, i, 1, PTX_SPACE_GLOBAL)) return 0;
  i->areg2 = i->areg;
  i->disp2 = i->disp;
  i->disp2_local = i->disp_local;
  i->disp_local = 0;
  if (!dec_addr(d, i, 0, PTX_SPACE_SHARED)) return 0;
  i->size = (uint32_t)o->imm;
  i->w = 8;
  i->s[0] = -1;
  if (n == 4 && (i->s[0] = src(d, i, 3, 32, K_U)) == -2) return 0;
  i->ns = (uint8_t)(n == 4);
  i->h = H_CPASYNC;
  return 1;
}

/* Modifiers that change results and that no handler implements (the parser keeps
 * them only in opcode_text): an instruction carrying one is unsupported rather than
 * silently run without it. */
static int has_unknown_semantics(const char *text)
{
  static const char *const words[] = {".relu", ".NaN", ".xorsign", ".oob", ".satfinite",
                                      ".abs.", ".f16x2", ".bf16", ".e4m3", ".e5m2", ".tf32",
                                      ".b128", ".v8", ".multicast", ".mmio"};
  if (!text) return 0;
  for (size_t j = 0; j < sizeof words / sizeof words[0]; j++) {
    const char *p = strstr(text, words[j]);
    size_t n = strlen(words[j]);
    /* whole modifier: followed by '.' or the end (".abs." is written with its dot) */
    if (p && (words[j][n - 1] == '.' || p[n] == '.' || p[n] == 0)) return 1;
  }
  return 0;
}

/* Whether family f computes on its instruction type's width (i->w): such an instruction
 * without a type, or with a type word the IR has no enum for, is not run (the parser
 * requires a type wherever the ISA does; this keeps every shift and extension by the
 * width defined whatever the IR holds). */
static int needs_width(enum family f)
{
  switch (f) {
  case F_NONE: case F_BRA: case F_RET: case F_EXIT: case F_BAR: case F_BARRIER: case F_CALL:
  case F_MEMBAR: case F_FENCE: case F_TRAP: case F_BRKPT: case F_NANOSLEEP: case F_PMEVENT:
  case F_PREFETCH: case F_HINT: case F_CREATEPOLICY: case F_ISSPACEP: case F_CP: case F_ELECT:
  case F_ACTIVEMASK:
    return 0;
  default: return 1;
  }
}

/* Decodes d->pi into *i; returns 0 when unsupported. */
static int dec_insn(struct dec *d, struct dinsn *i)
{
  const struct ptx_insn *pi = d->pi;
  memset(i, 0, sizeof *i);
  for (int j = 0; j < 4; j++) i->d[j] = -1;
  for (int j = 0; j < 5; j++) i->s[j] = -1;
  i->areg = i->areg2 = -1;
  i->callee = -1;
  i->slot = i->slot2 = UINT32_MAX;
  i->index = d->index;
  i->fam = (uint8_t)family_of(pi->op);
  i->t = pi->type[0];
  i->t2 = pi->type[1];
  emu_type_class((enum ptx_type)i->t, &i->w, &i->k);
  emu_type_class((enum ptx_type)i->t2, &i->w2, &i->k2);
  i->rnd = pi->rnd;
  i->cmp = pi->cmp;
  i->boolop = pi->boolop;
  i->mode = pi->mode;
  i->space = pi->space;
  i->vec = pi->vec ? pi->vec : 1;
  i->flags = pi->flags;
  i->cvta_space = pi->cvta_space;
  i->guard = pi->guard;
  i->guard_neg = pi->guard_neg;
  if (pi->guard >= 0 && (uint32_t)pi->guard >= d->f->nregs) return 0;
  if (has_unknown_semantics(pi->opcode_text)) return 0;
  if (needs_width((enum family)i->fam) && (i->w == 0 || (pi->flags & PTX_F_XTYPE))) return 0;
  if (i->fam == F_LDU) i->fam = F_LD;

  switch ((enum family)i->fam) {
  case F_ADD: case F_SUB: case F_MUL: return dec_arith(d, i, 2);
  case F_MAD: case F_FMA: return dec_arith(d, i, 3);
  case F_DIV: return i->k == K_F ? dec_float(d, i, 2) : dec_int(d, i, 2);
  case F_REM: case F_POPC: case F_CLZ: case F_BREV: case F_BFIND: case F_CNOT:
    return dec_int(d, i, i->fam == F_REM ? 2 : 1);
  case F_MUL24: return dec_int(d, i, 2);
  case F_ADDC: case F_SUBC: case F_MADC:
    if (!dec_int(d, i, i->fam == F_MADC ? 3 : 2)) return 0;
    if (i->w != 32 && i->w != 64) return 0;
    if (i->fam == F_MADC && i->mode != PTX_MODE_LO && i->mode != PTX_MODE_HI) return 0;
    i->h = H_CARRY;
    return 1;
  case F_LOP3: return pi->nopnds == 5 && i->w == 32 && dec_int(d, i, 4);
  case F_SHF: return i->w == 32 && (i->mode == PTX_MODE_SHF_L || i->mode == PTX_MODE_SHF_R) &&
                     dec_int(d, i, 3);
  case F_ISSPACEP:
    i->w = 64;
    i->k = K_U;
    return dec_int(d, i, 1);
  case F_REDUX:
    if (pi->nopnds != 3 || i->w != 32 || i->k == K_F) return 0;
    if (i->mode != PTX_MODE_ADD && i->mode != PTX_MODE_MIN && i->mode != PTX_MODE_MAX &&
        i->mode != PTX_MODE_AND && i->mode != PTX_MODE_OR && i->mode != PTX_MODE_XOR)
      return 0;
    if (!dec_alu(d, i, 2)) return 0;
    i->h = H_REDUX;
    return 1;
  case F_PREFETCH: i->h = H_NOP; return 1;
  case F_HINT: /* scheduling, cache and register-allocation hints: no effect here */
    i->h = H_NOP;
    return 1;
  case F_CREATEPOLICY: /* an opaque cache policy: 0 (no policy) */
    if (pi->nopnds < 1 || (i->d[0] = dst(d, 0)) == -2) return 0;
    i->nd = i->ns = 1;
    i->w = 64;
    i->s[0] = const_reg(d->df, 0, 0);
    i->h = H_MOV;
    return 1;
  case F_BMSK: case F_SZEXT:
    if (i->w != 32 || !(i->flags & (PTX_F_CLAMP | PTX_F_WRAP))) return 0;
    return dec_int(d, i, 2);
  case F_ELECT: /* elect.sync d|p, membermask */
    if (pi->nopnds != 3) return 0;
    if ((i->d[0] = dst(d, 0)) == -2 || (i->d[1] = dst(d, 1)) == -2) return 0;
    if ((i->s[0] = src(d, i, 2, 32, K_U)) == -2) return 0;
    i->nd = 2;
    i->ns = 1;
    i->h = H_ELECT;
    return 1;
  case F_CP: return dec_cp(d, i);
  case F_MAD24: case F_SAD: case F_BFE: return dec_int(d, i, 3);
  case F_PRMT: /* only the default (byte-select) mode */
    if (pi->opcode_text && strcmp(pi->opcode_text, "prmt.b32") != 0) return 0;
    return dec_int(d, i, 3);
  case F_BFI: return dec_int(d, i, 4);
  case F_SLCT: return dec_alu(d, i, 3) && i->k != K_P ? (i->h = H_IOP, 1) : 0;
  case F_ABS: case F_NEG:
    return i->k == K_F ? dec_float(d, i, 1) : dec_int(d, i, 1);
  case F_MIN: case F_MAX:
    return i->k == K_F ? dec_float(d, i, 2) : dec_int(d, i, 2);
  case F_SQRT: case F_RSQRT: case F_RCP: case F_EX2: case F_LG2: case F_SIN: case F_COS:
  case F_TANH:
    return dec_float(d, i, 1);
  case F_COPYSIGN: return dec_float(d, i, 2);
  case F_TESTP: {
    static const char *const tp[] = {"", ".finite", ".infinite", ".number", ".notanumber",
                                     ".normal", ".subnormal"};
    const char *t = pi->opcode_text ? pi->opcode_text : "";
    for (unsigned j = 1; j < 7; j++)
      if (strstr(t, tp[j]) && !(j == 3 && strstr(t, ".notanumber"))) i->cmp = (uint8_t)j;
    if (!i->cmp) return 0;
    return dec_float(d, i, 1);
  }
  case F_AND: case F_OR: case F_XOR: case F_SHL: case F_SHR: return dec_logic(d, i, 2);
  case F_NOT: return dec_logic(d, i, 1);
  case F_MOV: return dec_mov(d, i);
  case F_LD: case F_ST: return dec_ldst(d, i);
  case F_ATOM: case F_RED: return dec_atom(d, i);
  case F_CVT: return dec_cvt(d, i);
  case F_CVTA: return dec_cvta(d, i);
  case F_SETP: return dec_setp(d, i);
  case F_SET: { /* set.cmp[.bool].dtype.stype: compare as stype, write dtype */
    uint8_t dt = i->t;
    if (dt != PTX_TYPE_U32 && dt != PTX_TYPE_S32 && dt != PTX_TYPE_F32 && dt != PTX_TYPE_B32)
      return 0;
    i->t = i->t2;
    emu_type_class((enum ptx_type)i->t, &i->w, &i->k);
    if (i->w == 0 || !dec_setp(d, i) || i->nd != 1) return 0;
    i->h = H_SETP;
    i->setout = dt == PTX_TYPE_F32 ? 2 : 1;
    return 1;
  }
  case F_SELP:
    if (pi->nopnds != 4) return 0;
    if ((i->d[0] = dst(d, 0)) == -2) return 0;
    if ((i->s[0] = src(d, i, 1, i->w, i->k)) == -2) return 0;
    if ((i->s[1] = src(d, i, 2, i->w, i->k)) == -2) return 0;
    i->sneg = 0;
    if ((i->s[2] = src(d, i, 3, 1, K_P)) == -2) return 0;
    i->sneg = opnd(d, 3)->neg ? 4 : 0;
    i->nd = 1;
    i->ns = 3;
    i->h = H_SELP;
    return 1;
  case F_BRA: {
    const struct ptx_operand *o;
    if (pi->nopnds != 1) return 0;
    o = opnd(d, 0);
    if (o->kind != PTX_OPND_LABEL || o->target < 0 || (uint32_t)o->target > d->f->ninsns)
      return 0;
    i->target = (uint32_t)o->target;
    i->h = H_BRA;
    return 1;
  }
  case F_RET: i->h = H_RET; return pi->nopnds == 0;
  case F_EXIT: i->h = H_EXIT; return pi->nopnds == 0;
  case F_BAR: case F_BARRIER: return dec_bar(d, i);
  case F_CALL: return dec_call(d, i);
  case F_SHFL: return dec_shfl(d, i);
  case F_VOTE: return dec_vote(d, i);
  case F_MATCH: return dec_match(d, i);
  case F_ACTIVEMASK:
    if (pi->nopnds != 1 || (i->d[0] = dst(d, 0)) == -2) return 0;
    i->nd = 1;
    i->h = H_ACTIVEMASK;
    return 1;
  case F_MEMBAR: case F_FENCE: case F_NANOSLEEP: case F_PMEVENT: case F_BRKPT:
    i->h = H_NOP; /* one CTA at a time, warps cooperatively: already ordered */
    return 1;
  case F_TRAP: i->h = H_TRAP; return 1;
  default: return 0;
  }
}

/* ---- layout of variables ---------------------------------------------------------- */

static uint64_t align_up(uint64_t x, uint64_t a)
{
  return a > 1 ? (x + a - 1) / a * a : x;
}

/* the alignment of a variable: declared, else natural */
static uint64_t var_align(const struct ptx_var *v)
{
  uint64_t a = v->align ? v->align : ptx_type_size(v->type) * (v->vec ? v->vec : 1);
  return a ? a : 1;
}

/* appends "PATH:LINE: unsupported instruction 'TEXT' in kernel K" to the report */
static void bad(struct dec *d, const struct ptx_function *f, const struct ptx_insn *pi)
{
  char line[400];
  int n = snprintf(line, sizeof line, "%s%s:%u: unsupported instruction '%s' in kernel %s",
                   d->nbad ? "\n" : "", d->emu->m->path ? d->emu->m->path : "<ptx>",
                   pi->line,
                   pi->opcode_text ? pi->opcode_text : op_names[pi->op < PTX_OP_COUNT ? pi->op : 0],
                   d->kernel->name);
  (void)f;
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = sizeof line - 1;
  d->msgs = cc_xrealloc(d->msgs, d->msgs_len + (size_t)n + 1);
  memcpy(d->msgs + d->msgs_len, line, (size_t)n + 1);
  d->msgs_len += (size_t)n;
  d->nbad++;
}

/* Lays out function f's variables: .local and frame .param per lane, .shared after the
 * static shared end. Kernel parameters are packed in declaration order, each at its
 * alignment (the kernel-parameter ABI). */
static void layout_vars(struct dec *d, struct dfunc *df, int is_kernel)
{
  const struct ptx_function *f = df->f;
  df->var_off = cc_xcalloc(f->nvars ? f->nvars : 1, sizeof *df->var_off);
  if (is_kernel) {
    uint64_t off = 0;
    for (uint32_t j = 0; j < f->nparams; j++) {
      const struct ptx_var *v = &f->vars[f->param_vars[j]];
      off = align_up(off, var_align(v));
      df->var_off[f->param_vars[j]] = off;
      off += v->size_bytes;
    }
    d->c->kparam_size = off;
  }
  for (uint32_t j = 0; j < f->nvars; j++) {
    const struct ptx_var *v = &f->vars[j];
    int kparam = 0;
    if (is_kernel)
      for (uint32_t p = 0; p < f->nparams; p++)
        if (f->param_vars[p] == j) kparam = 1;
    if (kparam) continue;
    switch (v->space) {
    case PTX_SPACE_LOCAL:
      df->local_size = align_up(df->local_size, var_align(v));
      df->var_off[j] = df->local_size;
      df->local_size += v->size_bytes;
      break;
    case PTX_SPACE_PARAM:
      df->param_size = align_up(df->param_size, var_align(v));
      df->var_off[j] = FRAME_PARAM + df->param_size;
      df->param_size += v->size_bytes;
      break;
    case PTX_SPACE_SHARED:
      if (v->is_extern && v->size_bytes == 0) break; /* dynamic: fixed up later */
      d->c->shared_static = align_up(d->c->shared_static, var_align(v));
      df->var_off[j] = d->c->shared_static;
      d->c->shared_static += v->size_bytes;
      break;
    default: break;
    }
  }
  df->local_size = align_up(df->local_size, 16);
  df->param_size = align_up(df->param_size, 16);
}

/* the index of function findex in the run's table, added when new */
static int32_t add_func(struct dec *d, uint32_t findex)
{
  struct code *c = d->c;
  if (c->func_map[findex] >= 0) return c->func_map[findex];
  c->funcs = cc_xrealloc(c->funcs, (c->nfuncs + 1) * sizeof *c->funcs);
  memset(&c->funcs[c->nfuncs], 0, sizeof c->funcs[c->nfuncs]);
  c->funcs[c->nfuncs].f = &d->emu->m->funcs[findex];
  c->funcs[c->nfuncs].findex = findex;
  c->func_map[findex] = (int32_t)c->nfuncs;
  return (int32_t)c->nfuncs++;
}

/* whether an instruction produces access records */
static int is_access(const struct dinsn *i)
{
  if (i->h == H_ATOM || i->h == H_CPASYNC) return 1;
  if (i->h != H_LD && i->h != H_ST) return 0;
  return i->space == PTX_SPACE_GLOBAL || i->space == PTX_SPACE_SHARED ||
         i->space == PTX_SPACE_LOCAL || i->space == PTX_SPACE_GENERIC;
}

/* adds the static table entry (entries) of a memory instruction */
static void add_slot(struct dec *d, struct dinsn *i)
{
  struct cc_insn_info info;
  const struct ptx_loc *loc = ptx_insn_loc(d->f, i->index);
  char buf[512];
  memset(&info, 0, sizeof info);
  info.id = i->index;
  info.kind = i->fam == F_LD ? CC_ACCESS_LOAD
              : i->fam == F_ST || i->fam == F_CP ? CC_ACCESS_STORE
              : i->fam == F_RED ? CC_ACCESS_REDUCTION : CC_ACCESS_ATOMIC;
  info.space = i->space == PTX_SPACE_SHARED ? CC_SPACE_SHARED
               : i->space == PTX_SPACE_LOCAL ? CC_SPACE_LOCAL : CC_SPACE_GLOBAL;
  info.size_bytes = i->size;
  ptx_print_insn(d->emu->m, d->f, i->index, buf, sizeof buf);
  info.text = cc_xstrdup(buf);
  if (loc) {
    info.file = ptx_file_path(d->emu->m, loc->file);
    info.line = loc->line;
    info.column = loc->column;
    if (loc->inl_file) {
      info.inlined_file = ptx_file_path(d->emu->m, loc->inl_file);
      info.inlined_line = loc->inl_line;
    }
  }
  i->slot = (uint32_t)d->c->insns.len;
  CC_VEC_PUSH(&d->c->insns, info);
  if (i->h == H_CPASYNC) { /* and its global read */
    info.text = cc_xstrdup(buf);
    info.kind = CC_ACCESS_LOAD;
    info.space = CC_SPACE_GLOBAL;
    i->slot2 = (uint32_t)d->c->insns.len;
    CC_VEC_PUSH(&d->c->insns, info);
  }
}

/* decodes every instruction of funcs[fi]; the unsupported ones are reported */
static void decode_func(struct dec *d, uint32_t fi)
{
  struct dfunc *df = &d->c->funcs[fi];
  const struct ptx_function *f = df->f;
  d->df = df;
  d->f = f;
  df->nregs = f->nregs;
  df->code = cc_xcalloc(f->ninsns + 1, sizeof *df->code);
  for (uint32_t j = 0; j < f->ninsns; j++) {
    struct dinsn *i = &df->code[j];
    d->pi = &f->insns[j];
    d->index = j;
    if (!dec_insn(d, i)) {
      bad(d, f, d->pi);
      i->h = H_TRAP;
      continue;
    }
    if (i->h == H_CALL && i->callee >= 0) i->callee = d->c->func_map[i->callee];
    if (is_access(i)) add_slot(d, i);
  }
  /* falling off the end of the body returns */
  df->code[f->ninsns].h = H_RET;
  df->code[f->ninsns].guard = -1;
  df->code[f->ninsns].index = f->ninsns;
  df->code[f->ninsns].slot = UINT32_MAX;
  df->ncode = f->ninsns + 1;
  df->ntotal = df->nregs + SR_COUNT + df->nconst;
}

/* Module variables: global and const are fixed per emulator; shared per run. */
static void layout_module(struct dec *d)
{
  const struct ptx_module *m = d->emu->m;
  d->c->mvar = cc_xcalloc(m->nvars ? m->nvars : 1, sizeof *d->c->mvar);
  for (uint32_t j = 0; j < m->nvars; j++) {
    const struct ptx_var *v = &m->vars[j];
    d->c->mvar[j] = d->emu->mvar_addr[j];
    if (v->space == PTX_SPACE_SHARED && !(v->is_extern && v->size_bytes == 0)) {
      d->c->shared_static = align_up(d->c->shared_static, var_align(v));
      d->c->mvar[j] = d->c->shared_static;
      d->c->shared_static += v->size_bytes;
    }
  }
}

/* extern .shared arrays (dynamic shared memory) all start after the static ones,
 * 16-byte aligned */
static void layout_dynamic_shared(struct dec *d)
{
  struct code *c = d->c;
  const struct ptx_module *m = d->emu->m;
  c->shared_dyn_base = align_up(c->shared_static, 16);
  for (uint32_t j = 0; j < m->nvars; j++)
    if (m->vars[j].space == PTX_SPACE_SHARED && m->vars[j].is_extern &&
        m->vars[j].size_bytes == 0)
      c->mvar[j] = c->shared_dyn_base;
  for (uint32_t fi = 0; fi < c->nfuncs; fi++) {
    const struct ptx_function *f = c->funcs[fi].f;
    for (uint32_t j = 0; j < f->nvars; j++)
      if (f->vars[j].space == PTX_SPACE_SHARED && f->vars[j].is_extern &&
          f->vars[j].size_bytes == 0)
        c->funcs[fi].var_off[j] = c->shared_dyn_base;
  }
}

static void add_shared_var(struct code *c, const struct ptx_var *v, uint64_t offset)
{
  struct cc_shared_var sv = { v->name, offset, v->size_bytes };
  CC_VEC_PUSH(&c->shared_vars, sv);
}

/* c->shared_vars: every .shared variable of the module and of the run's functions, where
 * it lies (after layout_dynamic_shared); extern unsized ones have size 0. */
static void list_shared(struct dec *d)
{
  struct code *c = d->c;
  const struct ptx_module *m = d->emu->m;
  for (uint32_t j = 0; j < m->nvars; j++)
    if (m->vars[j].space == PTX_SPACE_SHARED)
      add_shared_var(c, &m->vars[j], c->mvar[j]);
  for (uint32_t fi = 0; fi < c->nfuncs; fi++) {
    const struct ptx_function *f = c->funcs[fi].f;
    for (uint32_t j = 0; j < f->nvars; j++)
      if (f->vars[j].space == PTX_SPACE_SHARED)
        add_shared_var(c, &f->vars[j], c->funcs[fi].var_off[j]);
  }
}

/* The kernel and every function it calls, transitively (funcs[0] = kernel). */
static void find_callees(struct dec *d)
{
  const struct ptx_module *m = d->emu->m;
  for (uint32_t fi = 0; fi < d->c->nfuncs; fi++) {
    const struct ptx_function *f = d->c->funcs[fi].f;
    for (uint32_t j = 0; j < f->ninsns; j++) {
      const struct ptx_insn *pi = &f->insns[j];
      if (family_of(pi->op) == F_CALL && pi->callee >= 0 && (uint32_t)pi->callee < m->nfuncs &&
          m->funcs[pi->callee].has_body)
        add_func(d, (uint32_t)pi->callee);
      /* functions whose address is taken may be called indirectly */
      for (uint32_t k = 0; k < pi->nopnds; k++) {
        const struct ptx_operand *o = &f->opnds[pi->opnd + k];
        if (o->kind == PTX_OPND_SYM && o->is_func && o->var >= 0 &&
            (uint32_t)o->var < m->nfuncs && m->funcs[o->var].has_body &&
            !m->funcs[o->var].is_entry)
          add_func(d, (uint32_t)o->var);
      }
    }
  }
}

int emu_decode(struct cc_emu *emu, const struct ptx_function *k, struct code *c,
               struct cc_err *err)
{
  struct dec d;
  const struct ptx_module *m = emu->m;
  memset(c, 0, sizeof *c);
  memset(&d, 0, sizeof d);
  d.emu = emu;
  d.c = c;
  d.kernel = k;
  if (k < m->funcs || k >= m->funcs + m->nfuncs)
    return cc_err_set(err, CC_ERR_INTERNAL, "kernel %s is not a function of module %s",
                      k->name, m->path);
  if (!k->is_entry || !k->has_body)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s: function %s is not a kernel (.entry with a body); pick an .entry",
                      m->path, k->name);
  c->func_map = cc_xmalloc((m->nfuncs ? m->nfuncs : 1) * sizeof *c->func_map);
  for (uint32_t j = 0; j < m->nfuncs; j++) c->func_map[j] = -1;
  layout_module(&d);
  add_func(&d, (uint32_t)(k - m->funcs));
  find_callees(&d);
  for (uint32_t fi = 0; fi < c->nfuncs; fi++) {
    layout_vars(&d, &c->funcs[fi], fi == 0);
    if (c->funcs[fi].local_size > LOCAL_MAX) {
      char line[300];
      snprintf(line, sizeof line, "%s%s:%u: function %s uses %llu bytes of local memory per "
               "thread; the emulator (like the GPU) allows at most %u",
               d.nbad ? "\n" : "", m->path ? m->path : "<ptx>", c->funcs[fi].f->line,
               c->funcs[fi].f->name, (unsigned long long)c->funcs[fi].local_size, LOCAL_MAX);
      d.msgs = cc_xrealloc(d.msgs, d.msgs_len + strlen(line) + 1);
      memcpy(d.msgs + d.msgs_len, line, strlen(line) + 1);
      d.msgs_len += strlen(line);
      d.nbad++;
    }
  }
  layout_dynamic_shared(&d);
  list_shared(&d);
  for (uint32_t fi = 0; fi < c->nfuncs; fi++) decode_func(&d, fi);
  if (d.nbad) {
    cc_err_set(err, CC_ERR_UNSUPPORTED, "%s", d.msgs);
    free(d.msgs);
    emu_code_release(c);
    return CC_ERR_UNSUPPORTED;
  }
  free(d.msgs);
  return CC_OK;
}

/* frees what emu_decode allocated */
void emu_code_release(struct code *c)
{
  for (uint32_t j = 0; j < c->nfuncs; j++) {
    free(c->funcs[j].code);
    free(c->funcs[j].consts);
    free(c->funcs[j].var_off);
  }
  for (size_t j = 0; j < c->insns.len; j++) free((char *)c->insns.data[j].text);
  CC_VEC_FREE(&c->insns);
  CC_VEC_FREE(&c->shared_vars);
  free(c->funcs);
  free(c->func_map);
  free(c->mvar);
  memset(c, 0, sizeof *c);
}
