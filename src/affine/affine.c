/* cc_affine_analyze and the queries on its result (affine.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "affine/affine_impl.h"
#include "util/mem.h"

struct cc_affine_priv {
  struct aff_arena ar;        /* forms, opaque values, names, the CFG */
  struct aff_syms syms;
};

/* ---- which instructions ------------------------------------------------------------ */

/* ld, ldu, st, atom and red of the global, shared, local and generic spaces. */
static int is_access(const struct ptx_insn *in)
{
  if (in->op != PTX_OP_LD && in->op != PTX_OP_LDU && in->op != PTX_OP_ST &&
      in->op != PTX_OP_ATOM && in->op != PTX_OP_RED)
    return 0;
  return in->space == PTX_SPACE_GLOBAL || in->space == PTX_SPACE_SHARED ||
         in->space == PTX_SPACE_LOCAL || in->space == PTX_SPACE_GENERIC;
}

static const struct ptx_operand *address_operand(const struct ptx_function *f,
                                                 const struct ptx_insn *in)
{
  for (uint32_t k = 0; k < in->nopnds; k++)
    if (f->opnds[in->opnd + k].kind == PTX_OPND_ADDR)
      return &f->opnds[in->opnd + k];
  return NULL;
}

/* Whether instruction in makes a thread-geometry permutation observable (affine.h). */
static int warp_dependent(const struct ptx_function *f, const struct ptx_insn *in)
{
  switch (in->op) {
  case PTX_OP_SHFL: case PTX_OP_VOTE: case PTX_OP_MATCH: case PTX_OP_REDUX:
  case PTX_OP_ACTIVEMASK: case PTX_OP_ELECT: case PTX_OP_MMA: case PTX_OP_WMMA:
  case PTX_OP_WGMMA: case PTX_OP_LDMATRIX: case PTX_OP_STMATRIX: case PTX_OP_MOVMATRIX:
    return 1;
  case PTX_OP_BAR:
    if (in->opcode_text && strncmp(in->opcode_text, "bar.warp", 8) == 0)
      return 1;
    break;
  case PTX_OP_LD: case PTX_OP_ST:
    if ((in->flags & PTX_F_VOLATILE) && in->space == PTX_SPACE_SHARED)
      return 1;
    break;
  default:
    break;
  }
  for (uint32_t k = 0; k < in->nopnds; k++) {
    const struct ptx_operand *o = &f->opnds[in->opnd + k];
    if (o->kind == PTX_OPND_SREG &&
        (o->sreg == PTX_SREG_LANEID || o->sreg == PTX_SREG_WARPID ||
         o->sreg == PTX_SREG_NWARPID ||
         (o->sreg >= PTX_SREG_LANEMASK_EQ && o->sreg <= PTX_SREG_LANEMASK_GE)))
      return 1;
  }
  return 0;
}

/* ---- building ------------------------------------------------------------------------ */

/* "param_2" from "_Z9transposePfPKfii_param_2" (PTX has no source names). */
static const char *short_param_name(struct aff_arena *ar, const char *name)
{
  const char *p = name ? strstr(name, "_param_") : NULL;
  const char *last = NULL;
  while (p) {
    last = p;
    p = strstr(p + 1, "_param_");
  }
  return aff_strdup(ar, last ? last + 1 : name ? name : "?");
}

static void add_loops(struct cc_affine_kernel *k, const struct aff_cfg *g)
{
  const struct ptx_function *f = k->func;
  k->nloops = g->nloops;
  k->loops = cc_xcalloc(g->nloops ? g->nloops : 1, sizeof *k->loops);
  for (uint32_t l = 0; l < g->nloops; l++) {
    const struct aff_loop *lp = &g->loops[l];
    const struct ptx_loc *loc;
    k->loops[l].head_insn = g->blocks[lp->header].first;
    for (uint32_t q = 0; q < lp->nlatches; q++) {
      uint32_t back = g->blocks[lp->latches[q]].end - 1;
      if (back > k->loops[l].latch_insn)
        k->loops[l].latch_insn = back;
    }
    loc = ptx_insn_loc(f, k->loops[l].head_insn);
    k->loops[l].line = loc ? loc->line : 0;
  }
}

static uint32_t loop_bits(const struct cc_affine_form *p)
{
  uint32_t bits = 0;
  for (uint32_t t = 0; t < p->n; t++)
    for (uint32_t a = 0; a < p->t[t].deg; a++)
      if (aff_atom_kind(p->t[t].atoms[a]) == CC_AFFINE_LOOP && aff_atom_index(p->t[t].atoms[a]) < 32)
        bits |= 1u << aff_atom_index(p->t[t].atoms[a]);
  return bits;
}

static void add_access(struct cc_affine_kernel *k, struct aff_eval *e, uint32_t i,
                       size_t *cap)
{
  const struct ptx_function *f = k->func;
  const struct ptx_insn *in = &f->insns[i];
  const struct ptx_operand *addr = address_operand(f, in);
  struct cc_affine_access *a;
  struct aff_val v;
  k->accesses = cc_xgrow(k->accesses, cap, k->naccesses + 1, sizeof *k->accesses);
  a = &k->accesses[k->naccesses++];
  memset(a, 0, sizeof *a);
  a->insn = i;
  a->space = (enum ptx_space)in->space;
  a->size_bytes = (in->vec ? in->vec : 1) * ptx_type_size((enum ptx_type)in->type[0]);
  if (!addr) {
    a->status = CC_AFFINE_OPAQUE;
    a->why = cc_xstrdup("the instruction has no address operand");
    a->why_line = in->line;
    return;
  }
  v = aff_eval_address(e, i, addr);
  if (v.status == CC_AFFINE_OK) {
    a->status = CC_AFFINE_OK;
    a->form = v.p;
    a->text = aff_form_text(v.p, NULL, 0);
    a->loops = loop_bits(v.p);
  } else {
    a->status = (enum cc_affine_status)v.status;
    a->why = cc_xstrdup(v.why ? v.why : "not affine");
    a->why_line = v.line;
  }
}

int cc_affine_analyze(const struct ptx_module *m, const struct ptx_function *f,
                      struct cc_affine_kernel **out, struct cc_err *err)
{
  struct cc_affine_kernel *k;
  struct cc_affine_priv *pv;
  struct aff_cfg g;
  struct aff_eval *e;
  size_t cap = 0;
  *out = NULL;
  if (!f->has_body)
    return cc_err_set(err, CC_ERR_INPUT, "function '%s' has no body to analyse; pass a "
                      "function that the module defines", f->name ? f->name : "?");
  k = cc_xcalloc(1, sizeof *k);
  pv = cc_xcalloc(1, sizeof *pv);
  k->func = f;
  k->priv = pv;
  k->warp_dependent_insn = -1;
  pv->ar.syms = &pv->syms;
  pv->syms.nparams = f->nparams;
  pv->syms.param_names = aff_alloc(&pv->ar, (f->nparams + 1) * sizeof(char *));
  for (uint32_t p = 0; p < f->nparams; p++)
    pv->syms.param_names[p] = short_param_name(&pv->ar, f->vars[f->param_vars[p]].name);
  aff_cfg_build(&pv->ar, f, &g);
  add_loops(k, &g);
  e = aff_eval_new(&pv->ar, m, f, &g, &pv->syms);
  for (uint32_t i = 0; i < f->ninsns; i++) {
    const struct ptx_insn *in = &f->insns[i];
    if (k->warp_dependent_insn < 0 && warp_dependent(f, in))
      k->warp_dependent_insn = (int32_t)i;
    if (is_access(in))
      add_access(k, e, i, &cap);
  }
  aff_eval_free(e);
  *out = k;
  return CC_OK;
}

void cc_affine_kernel_free(struct cc_affine_kernel *k)
{
  if (!k)
    return;
  for (uint32_t i = 0; i < k->naccesses; i++) {
    free(k->accesses[i].why);
    free(k->accesses[i].text);
  }
  free(k->accesses);
  free(k->loops);
  if (k->priv)
    aff_arena_release(&k->priv->ar);
  free(k->priv);
  free(k);
}

const struct cc_affine_access *cc_affine_find(const struct cc_affine_kernel *k, uint32_t insn)
{
  uint32_t lo = 0, hi = k->naccesses;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (k->accesses[mid].insn < insn)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < k->naccesses && k->accesses[lo].insn == insn ? &k->accesses[lo] : NULL;
}

/* ---- evaluation under a launch --------------------------------------------------------- */

static int form_value(const struct cc_affine_form *p, const struct cc_affine_env *env,
                      int64_t *out, int depth);

/* x as a value of type t (truncated to its width; sign- or zero-extended). */
static int64_t as_type(int64_t x, enum ptx_type t)
{
  unsigned bits = 8 * ptx_type_size(t);
  if (bits == 0 || bits >= 64)
    return x;
  uint64_t u = (uint64_t)x & ((1ull << bits) - 1);
  if (ptx_type_is_signed(t) && (u >> (bits - 1)))
    u |= ~((1ull << bits) - 1);
  return (int64_t)u;
}

/* The value of an opaque atom's operation on known operands (PTX ISA semantics of the
 * integer instructions, at the instruction's type); 0 when it cannot be computed. */
static int op_value(const struct aff_sym *s, int64_t a, int64_t b, int64_t *out)
{
  enum ptx_type t = (enum ptx_type)s->type;
  unsigned bits = 8 * ptx_type_size(t);
  int sgn = ptx_type_is_signed(t);
  uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
  uint64_t ua = (uint64_t)a & mask, ub = (uint64_t)b & mask;
  a = as_type(a, t);
  b = as_type(b, t);
  switch (s->op) {
  case PTX_OP_AND: *out = (int64_t)(ua & ub); break;
  case PTX_OP_OR: *out = (int64_t)(ua | ub); break;
  case PTX_OP_XOR: *out = (int64_t)(ua ^ ub); break;
  case PTX_OP_NOT: *out = (int64_t)(~ua & mask); break;
  case PTX_OP_SHR:
    if (ub >= bits)
      *out = sgn && a < 0 ? -1 : 0;
    else
      *out = sgn ? a >> ub : (int64_t)(ua >> ub);
    break;
  case PTX_OP_SHL: *out = ub >= bits ? 0 : (int64_t)((ua << ub) & mask); break;
  case PTX_OP_DIV:
  case PTX_OP_REM:
    if (ub == 0 || (sgn && b == -1))
      return 0;
    if (sgn)
      *out = s->op == PTX_OP_DIV ? a / b : a % b;
    else
      *out = (int64_t)(s->op == PTX_OP_DIV ? ua / ub : ua % ub);
    break;
  case PTX_OP_MIN: *out = sgn ? (a < b ? a : b) : (int64_t)(ua < ub ? ua : ub); break;
  case PTX_OP_MAX: *out = sgn ? (a > b ? a : b) : (int64_t)(ua > ub ? ua : ub); break;
  default:
    return 0;
  }
  *out = as_type(*out, t);
  return 1;
}

static int sym_value(const struct aff_syms *syms, uint32_t k, const struct cc_affine_env *env,
                     int64_t *out, int depth)
{
  const struct aff_sym *s;
  int64_t a = 0, b = 0;
  if (!syms || k >= syms->n || depth > 64)
    return 0;
  s = &syms->v[k];
  if (s->kind == AFF_SYM_PARAM) {
    unsigned bits = 8 * ptx_type_size((enum ptx_type)s->type);
    if (s->param >= env->nparams || !env->known || !env->known[s->param] || s->offset >= 8 ||
        bits == 0)
      return 0;
    *out = as_type((int64_t)((uint64_t)env->params[s->param] >> (8 * s->offset)),
                   (enum ptx_type)s->type);
    return 1;
  }
  if (s->kind != AFF_SYM_OP || !s->a || !form_value(s->a, env, &a, depth + 1) ||
      (s->b && !form_value(s->b, env, &b, depth + 1)))
    return 0;
  return op_value(s, a, b, out);
}

/* The value of atom x under env: launch shape, known parameters, computable opaque
 * values. */
static int atom_value(const struct aff_syms *syms, aff_atom x, const struct cc_affine_env *env,
                      int64_t *out, int depth)
{
  uint32_t i = aff_atom_index(x);
  switch (aff_atom_kind(x)) {
  case CC_AFFINE_NTID: if (i > 2) return 0; *out = env->ntid[i]; return 1;
  case CC_AFFINE_NCTAID: if (i > 2) return 0; *out = env->nctaid[i]; return 1;
  case CC_AFFINE_PARAM:
    if (i >= env->nparams || !env->known || !env->known[i])
      return 0;
    *out = env->params[i];
    return 1;
  case CC_AFFINE_SYM:
    return sym_value(syms, i, env, out, depth);
  default:
    return 0;
  }
}

/* The product of term t's coefficient and atoms, skipping the atom at position skip (or
 * none: skip >= deg). */
static int term_value(const struct aff_syms *syms, const struct aff_term *t, uint32_t skip,
                      const struct cc_affine_env *env, int64_t *out, int depth)
{
  int64_t v = t->coeff;
  for (uint32_t k = 0; k < t->deg; k++) {
    int64_t x;
    if (k == skip)
      continue;
    if (!atom_value(syms, t->atoms[k], env, &x, depth) || __builtin_mul_overflow(v, x, &v))
      return 0;
  }
  *out = v;
  return 1;
}

static int form_value(const struct cc_affine_form *p, const struct cc_affine_env *env,
                      int64_t *out, int depth)
{
  int64_t sum = 0;
  for (uint32_t t = 0; t < p->n; t++) {
    int64_t v;
    if (!term_value(p->syms, &p->t[t], UINT32_MAX, env, &v, depth) ||
        __builtin_add_overflow(sum, v, &sum))
      return 0;
  }
  *out = sum;
  return 1;
}

int cc_affine_coeff(const struct cc_affine_access *a, const struct cc_affine_env *env,
                    enum cc_affine_atom_kind kind, uint32_t index, int64_t *bytes)
{
  const struct cc_affine_form *p;
  aff_atom want = aff_atom_make(kind, 0, index);
  int64_t sum = 0;
  if (!a || a->status != CC_AFFINE_OK || !a->form || kind == CC_AFFINE_VAR)
    return 0;
  p = a->form;
  for (uint32_t t = 0; t < p->n; t++) {
    uint32_t at = UINT32_MAX, hits = 0;
    int64_t v;
    for (uint32_t k = 0; k < p->t[t].deg; k++)
      if (p->t[t].atoms[k] == want) {
        at = k;
        hits++;
      }
    if (hits == 0)
      continue;
    if (hits > 1 || !term_value(p->syms, &p->t[t], at, env, &v, 0) ||
        __builtin_add_overflow(sum, v, &sum))
      return 0;
  }
  *bytes = sum;
  return 1;
}

void cc_affine_classify(const struct cc_affine_access *a, const struct cc_affine_env *env,
                        enum cc_affine_class cls[3])
{
  /* the coalescing bound of access.h (cc_access_coalesced_stride): the access size,
   * 4 bytes at least for local memory's 32-bit interleave */
  uint64_t bound = a && a->space == PTX_SPACE_LOCAL && a->size_bytes < 4 ? 4 : a ? a->size_bytes : 0;
  for (uint32_t d = 0; d < 3; d++) {
    int64_t c;
    uint64_t mag;
    if (!cc_affine_coeff(a, env, CC_AFFINE_TID, d, &c)) {
      cls[d] = CC_AFFINE_CLASS_UNKNOWN;
      continue;
    }
    mag = c < 0 ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
    cls[d] = c == 0 ? CC_AFFINE_CLASS_ZERO
             : mag <= bound ? CC_AFFINE_CLASS_UNIT : CC_AFFINE_CLASS_LARGE;
  }
}

char *cc_affine_format(const struct cc_affine_access *a, const char *const *param_names,
                       uint32_t nnames)
{
  if (!a || a->status != CC_AFFINE_OK || !a->form)
    return NULL;
  return aff_form_text(a->form, param_names, nnames);
}

const char *cc_affine_status_name(enum cc_affine_status s)
{
  switch (s) {
  case CC_AFFINE_OK: return "affine";
  case CC_AFFINE_INDIRECT: return "indirect";
  case CC_AFFINE_NONLINEAR: return "nonlinear";
  case CC_AFFINE_CONTROL: return "control";
  case CC_AFFINE_OPAQUE: return "opaque";
  }
  return "?";
}

const char *cc_affine_class_name(enum cc_affine_class c)
{
  switch (c) {
  case CC_AFFINE_CLASS_ZERO: return "zero";
  case CC_AFFINE_CLASS_UNIT: return "unit";
  case CC_AFFINE_CLASS_LARGE: return "large";
  case CC_AFFINE_CLASS_UNKNOWN: return "unknown";
  }
  return "?";
}
