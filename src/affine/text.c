/* Forms as text in CUDA terms: "in + 4*tid.x + 4*n*tid.y + 4*n*ntid.y*ctaid.y + ...".
 * Order: base addresses (a parameter or variable with coefficient 1) first, then the
 * terms of tid.x, tid.y, tid.z, ctaid.x/y/z, the loop counters, the other terms, the
 * constant; in a term, the coefficient, the parameters, launch shape, variables and
 * opaque values, and the index atom last. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affine/affine_impl.h"
#include "util/mem.h"

#define MAX_TEXT 4000 /* bytes of one form's text; longer ones end with "..." */

struct buf {
  char *s;
  size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
  va_list ap;
  int n;
  if (b->len >= MAX_TEXT)
    return;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  b->s = cc_xgrow(b->s, &b->cap, b->len + (size_t)n + 1, 1);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

struct names {
  const struct aff_syms *syms;
  const char *const *params;
  uint32_t nparams;
};

static void form_text(struct buf *b, const struct cc_affine_form *f, const struct names *nm);

/* "tile" for a function-local static "_ZZ15transpose_tiledPfPKfiE4tile" (the Itanium
 * ABI's local name: _ZZ <function> E <length><name>); other names as they are. */
static void var_name(struct buf *b, const char *name)
{
  const char *e = strrchr(name, 'E');
  if (strncmp(name, "_ZZ", 3) == 0 && e && e[1] >= '1' && e[1] <= '9') {
    char *end;
    unsigned long n = strtoul(e + 1, &end, 10);
    if (strlen(end) == n) {
      put(b, "%s", end);
      return;
    }
  }
  put(b, "%s", name);
}

static void param_name(struct buf *b, const struct names *nm, uint32_t i)
{
  if (i < nm->nparams && nm->params && nm->params[i])
    put(b, "%s", nm->params[i]);
  else if (nm->syms && i < nm->syms->nparams)
    put(b, "%s", nm->syms->param_names[i]);
  else
    put(b, "param_%" PRIu32, i);
}

static const char *op_symbol(const struct aff_sym *s, int *infix)
{
  *infix = 1;
  switch (s->op) {
  case PTX_OP_AND: return "&";
  case PTX_OP_OR: return "|";
  case PTX_OP_XOR: return "^";
  case PTX_OP_SHR: return ">>";
  case PTX_OP_SHL: return "<<";
  case PTX_OP_DIV: return "/";
  case PTX_OP_REM: return "%";
  default: break;
  }
  *infix = 0;
  if ((s->op == PTX_OP_MUL || s->op == PTX_OP_MUL24) && s->mode == PTX_MODE_HI)
    return "mulhi";
  if (s->op == PTX_OP_NOT)
    return "~";
  return ptx_op_info((enum ptx_opcode)s->op) ? ptx_op_info((enum ptx_opcode)s->op)->name : "?";
}

static void sym_text(struct buf *b, const struct names *nm, uint32_t k)
{
  const struct aff_sym *s;
  int infix;
  const char *op;
  if (!nm->syms || k >= nm->syms->n) {
    put(b, "?");
    return;
  }
  s = &nm->syms->v[k];
  switch (s->kind) {
  case AFF_SYM_PARAM:
    param_name(b, nm, s->param);
    put(b, "[+%" PRIu32 "]", s->offset);
    return;
  case AFF_SYM_LAST:
    put(b, "L%" PRIu32 ".last", s->loop);
    return;
  case AFF_SYM_REG:
  case AFF_SYM_JOIN:
    put(b, "%s", s->name ? s->name : "?");
    return;
  default:
    break;
  }
  op = op_symbol(s, &infix);
  if (infix && s->b) {
    put(b, "(");
    form_text(b, s->a, nm);
    put(b, " %s ", op);
    form_text(b, s->b, nm);
    put(b, ")");
  } else if (strcmp(op, "~") == 0) {
    put(b, "~(");
    form_text(b, s->a, nm);
    put(b, ")");
  } else {
    put(b, "%s(", op);
    form_text(b, s->a, nm);
    if (s->b) {
      put(b, ", ");
      form_text(b, s->b, nm);
    }
    put(b, ")");
  }
}

static void atom_text(struct buf *b, const struct names *nm, aff_atom a)
{
  static const char comp[] = "xyz";
  uint32_t i = aff_atom_index(a);
  char c = i < 3 ? comp[i] : '?';
  switch (aff_atom_kind(a)) {
  case CC_AFFINE_TID: put(b, "tid.%c", c); return;
  case CC_AFFINE_NTID: put(b, "ntid.%c", c); return;
  case CC_AFFINE_CTAID: put(b, "ctaid.%c", c); return;
  case CC_AFFINE_NCTAID: put(b, "nctaid.%c", c); return;
  case CC_AFFINE_PARAM: param_name(b, nm, i); return;
  case CC_AFFINE_LOOP: put(b, "L%" PRIu32, i); return;
  case CC_AFFINE_SYM: sym_text(b, nm, i); return;
  case CC_AFFINE_VAR:
    if (nm->syms)
      for (uint32_t k = 0; k < nm->syms->nvars; k++)
        if (nm->syms->var_atoms[k] == a) {
          var_name(b, nm->syms->var_names[k]);
          return;
        }
    put(b, "var%" PRIu32, i);
    return;
  default:
    put(b, "?");
  }
}

/* Where a term goes in the text (see the top of the file), and within its group. */
static uint32_t group(const struct aff_term *t, uint32_t *sub)
{
  *sub = 0;
  if (t->deg == 0)
    return 5;
  for (uint32_t k = 0; k < t->deg; k++) {
    aff_atom a = t->atoms[k];
    *sub = aff_atom_index(a);
    switch (aff_atom_kind(a)) {
    case CC_AFFINE_TID: return 1;
    case CC_AFFINE_CTAID: return 2;
    case CC_AFFINE_LOOP: return 3;
    default: break;
    }
  }
  *sub = 0;
  if (t->coeff == 1 && t->deg == 1 && (aff_atom_kind(t->atoms[0]) == CC_AFFINE_PARAM ||
                                       aff_atom_kind(t->atoms[0]) == CC_AFFINE_VAR))
    return 0;
  return 4;
}

/* Order of the atoms inside a term: parameters, launch shape, variables, opaque values,
 * then the index atom. */
static uint32_t atom_rank(aff_atom a)
{
  switch (aff_atom_kind(a)) {
  case CC_AFFINE_PARAM: return 0;
  case CC_AFFINE_NTID: return 1;
  case CC_AFFINE_NCTAID: return 2;
  case CC_AFFINE_VAR: return 3;
  case CC_AFFINE_SYM: return 4;
  default: return 9;
  }
}

static void term_text(struct buf *b, const struct aff_term *t, const struct names *nm,
                      int first)
{
  uint64_t mag = t->coeff < 0 ? (uint64_t)0 - (uint64_t)t->coeff : (uint64_t)t->coeff;
  int need_star = 0;
  if (!first)
    put(b, t->coeff < 0 ? " - " : " + ");
  else if (t->coeff < 0)
    put(b, "-");
  if (mag != 1 || t->deg == 0) {
    put(b, "%" PRIu64, mag);
    need_star = 1;
  }
  for (uint32_t rank = 0; rank <= 9; rank++)
    for (uint32_t k = 0; k < t->deg; k++)
      if (atom_rank(t->atoms[k]) == rank) {
        if (need_star)
          put(b, "*");
        atom_text(b, nm, t->atoms[k]);
        need_star = 1;
      }
}

static void form_text(struct buf *b, const struct cc_affine_form *f, const struct names *nm)
{
  uint32_t order[AFF_MAX_TERMS], n = 0;
  if (f->n == 0) {
    put(b, "0");
    return;
  }
  for (uint32_t g = 0; g <= 5; g++)
    for (uint32_t s = 0; s < 3 || g == 3; s++) { /* loops: any index */
      int more = 0;
      for (uint32_t i = 0; i < f->n && n < AFF_MAX_TERMS; i++) {
        uint32_t sub, gi = group(&f->t[i], &sub);
        if (gi != g)
          continue;
        if (g == 1 || g == 2 || g == 3) {
          if (sub == s)
            order[n++] = i;
          else if (sub > s)
            more = 1;
        } else if (s == 0) {
          order[n++] = i;
        }
      }
      if (g == 3 && !more)
        break;
    }
  for (uint32_t i = 0; i < n; i++)
    term_text(b, &f->t[order[i]], nm, i == 0);
}

char *aff_form_text(const struct cc_affine_form *a, const char *const *param_names,
                    uint32_t nnames)
{
  struct buf b = {0};
  struct names nm = {a->syms, param_names, nnames};
  form_text(&b, a, &nm);
  if (b.len >= MAX_TEXT) {
    b.s[MAX_TEXT - 3] = '.';
    b.s[MAX_TEXT - 2] = '.';
    b.s[MAX_TEXT - 1] = '.';
    b.s[MAX_TEXT] = '\0';
  }
  if (!b.s)
    return cc_xstrdup("0");
  return b.s;
}
