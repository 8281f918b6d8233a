/* coalcheck PTX front end: the operand-shape check of one instruction (the shape column
 * of ptx_ops.def), separate from the parser: it reads the parsed operands and says what is
 * wrong, at which token, in words; the parser turns that into its error.
 * Source of the shapes: PTX ISA 9.0, chapter 9. */
#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptx/ptx.h"
#include "ptx/ptx_check.h"
#include "ptx/ptx_lex.h"

/* One operand as the shape sees it: a top-level operand, or a bracketed group "[h, ...]"
 * counted once. */
struct unit {
  uint32_t top;   /* index of its (first) operand in top */
  uint8_t group;  /* a bracketed group of several operands */
  uint8_t pipe;   /* joined to the previous operand with '|' */
};

/* A token of a shape grammar: a slot, '[', ']' or "...". */
enum stok_kind { ST_SLOT, ST_OPEN, ST_CLOSE, ST_REST };
struct stok {
  uint8_t kind, pipe;
  const char *s; /* slot name */
  uint32_t len;
  const char *ann; /* the slot's type rule after ':' ("u32" in "b:u32"), annlen bytes */
  uint32_t annlen;
};

#define MAX_STOKS 48
#define MAX_UNITS 256

/* Whether the instruction's opcode text carries the dotted modifier word w (len n). */
static int has_word(const char *text, const char *w, size_t n) {
  for (const char *s = strchr(text, '.'); s; s = strchr(s, '.')) {
    s++;
    const char *e = strchr(s, '.');
    size_t k = e ? (size_t)(e - s) : strlen(s);
    if (k == n && memcmp(s, w, n) == 0) return 1;
  }
  return 0;
}

/* The end of a form's modifier list: the ':' not part of a "::"; NULL when none. */
static const char *cond_end(const char *s, const char *end) {
  for (const char *c = s; c < end; c++) {
    if (*c != ':') continue;
    if (c + 1 < end && c[1] == ':') { c++; continue; }
    return c;
  }
  return NULL;
}

/* Whether every ".word" of the modifier list [s, e) is in text. */
static int cond_holds(const char *text, const char *s, const char *e) {
  while (s < e) {
    s++; /* the '.' */
    const char *w = s;
    while (s < e && *s != '.') s++;
    if (!has_word(text, w, (size_t)(s - w))) return 0;
  }
  return 1;
}

/* The grammar [*g, *gend) of the form of shape that applies to opcode text. */
static void select_form(const char *shape, const char *text, const char **g, const char **gend) {
  const char *s = shape;
  for (;;) {
    while (*s == ' ') s++;
    const char *e = strchr(s, ';');
    const char *fend = e ? e : s + strlen(s);
    const char *c = *s == '.' ? cond_end(s, fend) : NULL;
    if (!c || !e || cond_holds(text, s, c)) {
      *g = c ? c + 1 : s;
      *gend = fend;
      while (*g < *gend && **g == ' ') (*g)++;
      return;
    }
    s = e + 1;
  }
}

/* Splits a grammar into tokens; returns their count. The table is static, so a grammar
 * that does not fit is a programmer error. */
static size_t shape_tokens(const char *g, const char *gend, struct stok *t) {
  size_t n = 0;
  int pipe = 0;
  while (g < gend) {
    char c = *g;
    if (c == ' ' || c == ',') { g++; continue; }
    assert(n < MAX_STOKS);
    struct stok k = {ST_SLOT, 0, g, 1, NULL, 0};
    if (c == '[') { k.kind = ST_OPEN; g++; }
    else if (c == ']') { k.kind = ST_CLOSE; g++; }
    else if (c == '|') { pipe = 1; g++; continue; }
    else if (c == '.') { k.kind = ST_REST; g += 3; }
    else {
      const char *w = g;
      while (g < gend && (isalnum((unsigned char)*g) || *g == '_')) g++;
      assert(g > w);
      k.len = (uint32_t)(g - w);
      k.pipe = (uint8_t)pipe;
      pipe = 0;
      if (g < gend && *g == ':') { /* a type rule: "b:u32" */
        k.ann = ++g;
        while (g < gend && isalnum((unsigned char)*g)) g++;
        k.annlen = (uint32_t)(g - k.ann);
      }
    }
    t[n++] = k;
  }
  return n;
}

/* The token after the ']' closing the '[' at i. */
static size_t skip_group(const struct stok *t, size_t n, size_t i) {
  int depth = 0;
  for (; i < n; i++) {
    if (t[i].kind == ST_OPEN) depth++;
    else if (t[i].kind == ST_CLOSE && --depth == 0) return i + 1;
  }
  return n;
}

/* Lays units u[ui..nu) out on tokens t[ti..nt) (optional groups taken or skipped, by
 * backtracking: grammars are a few tokens long); slot[] receives the token of each unit
 * (nt for units taken by "..."). ignore_pipe: piped units and slots are left out (they
 * have slot nt). Returns 1 when the layout exists. */
static int layout(const struct stok *t, size_t nt, size_t ti, const struct unit *u, size_t nu,
                  size_t ui, int ignore_pipe, uint32_t *slot) {
  while (ignore_pipe && ui < nu && u[ui].pipe) slot[ui++] = (uint32_t)nt;
  if (ti == nt) return ui == nu;
  switch (t[ti].kind) {
  case ST_OPEN:
    return layout(t, nt, ti + 1, u, nu, ui, ignore_pipe, slot) ||
           layout(t, nt, skip_group(t, nt, ti), u, nu, ui, ignore_pipe, slot);
  case ST_CLOSE:
    return layout(t, nt, ti + 1, u, nu, ui, ignore_pipe, slot);
  case ST_REST:
    for (; ui < nu; ui++) slot[ui] = (uint32_t)nt;
    return 1;
  default:
    if (t[ti].pipe && ignore_pipe) return layout(t, nt, ti + 1, u, nu, ui, ignore_pipe, slot);
    if (ui == nu || u[ui].pipe != t[ti].pipe) return 0;
    slot[ui] = (uint32_t)ti;
    return layout(t, nt, ti + 1, u, nu, ui + 1, ignore_pipe, slot);
  }
}

/* Operands a grammar takes, leaving '|' operands out: [*lo, *hi]; *hi = -1: any number. */
static void shape_counts(const struct stok *t, size_t nt, int *lo, int *hi) {
  int depth = 0;
  *lo = *hi = 0;
  for (size_t i = 0; i < nt; i++) {
    if (t[i].kind == ST_OPEN) depth++;
    else if (t[i].kind == ST_CLOSE) depth--;
    else if (t[i].kind == ST_REST) *hi = -1;
    else if (!t[i].pipe) {
      if (depth == 0) (*lo)++;
      if (*hi >= 0) (*hi)++;
    }
  }
}

/* How an operand reads in a message; dest: it stands in a destination slot (where a
 * vector is allowed when all its elements are registers). */
static const char *opnd_desc(const struct ptx_operand *o, int group, int dest) {
  if (group) return "a bracketed group '[..]'";
  switch (o->kind) {
  case PTX_OPND_VEC:
    return dest ? "a vector '{..}' with an element that is not a register" : "a vector '{..}'";
  case PTX_OPND_REG: return o->neg ? "a negated predicate" : "a register";
  case PTX_OPND_SREG: return "a special register";
  case PTX_OPND_IMM: return "an immediate";
  case PTX_OPND_SYM: return "a symbol";
  case PTX_OPND_ADDR: return "an address '[..]'";
  case PTX_OPND_LABEL: return "a label";
  default: return "'_'";
  }
}

/* Whether slot s is a destination: d, p or q. */
static int is_dest_slot(const struct stok *s) {
  return s->len == 1 && (s->s[0] == 'd' || s->s[0] == 'p' || s->s[0] == 'q');
}

/* Whether an operand fits slot name s (see ptx_ops.def); *want says what would. */
static int slot_accepts(const struct ptx_operand *top, const struct ptx_operand *elems,
                        const struct stok *s, const struct unit *u, const char **want) {
  const struct ptx_operand *o = &top[u->top];
  char c = s->len == 1 ? s->s[0] : 0;
  if (c == 'm') {
    *want = "an address '[..]'";
    return !u->group && o->kind == PTX_OPND_ADDR;
  }
  if (c == 'g') {
    *want = "a bracketed operand '[..]'";
    return u->group || o->kind == PTX_OPND_ADDR;
  }
  if (c == 'l') {
    *want = "a label";
    return !u->group && o->kind == PTX_OPND_LABEL;
  }
  if (u->group) {
    *want = c == 'd' || c == 'p' || c == 'q' ? "a register" : "a register or value";
    return 0;
  }
  if (c == 'd' || c == 'p' || c == 'q') {
    *want = "a register";
    if (o->kind == PTX_OPND_VEC) {
      for (int32_t i = 0; i < o->count; i++) {
        const struct ptx_operand *e = &elems[o->first + i];
        if ((e->kind != PTX_OPND_REG || e->neg) && e->kind != PTX_OPND_SINK) return 0;
      }
      return 1;
    }
    return (o->kind == PTX_OPND_REG && !o->neg) || o->kind == PTX_OPND_SINK;
  }
  *want = "a register or value";
  return o->kind != PTX_OPND_ADDR && o->kind != PTX_OPND_LABEL && o->kind != PTX_OPND_SINK;
}

/* The grammar [g, gend) as messages show it: without the slots' type rules (":u32"). */
static void grammar_text(const char *g, const char *gend, char *buf, size_t size) {
  size_t k = 0;
  while (g < gend && k + 1 < size) {
    if (*g == ':') {
      for (g++; g < gend && isalnum((unsigned char)*g); g++) {}
      continue;
    }
    buf[k++] = *g++;
  }
  buf[k] = 0;
}

/* "takes 3 operands", "takes 3 or 4 operands", "takes at least 4 operands", ... */
static void count_phrase(int lo, int hi, char *buf, size_t size) {
  if (hi < 0) snprintf(buf, size, "takes at least %d operand%s", lo, lo == 1 ? "" : "s");
  else if (hi == 0) snprintf(buf, size, "takes no operands");
  else if (lo == hi) snprintf(buf, size, "takes %d operand%s", lo, lo == 1 ? "" : "s");
  else if (hi == lo + 1) snprintf(buf, size, "takes %d or %d operands", lo, hi);
  else snprintf(buf, size, "takes %d to %d operands", lo, hi);
}

/* Fills *f and returns -1 (the failure of ptx_check_shape). */
static int shape_fail(struct ptx_shape_fail *f, uint32_t line, uint32_t col, const char *fmt,
                      ...) __attribute__((format(printf, 4, 5)));
static int shape_fail(struct ptx_shape_fail *f, uint32_t line, uint32_t col, const char *fmt,
                      ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->msg, sizeof f->msg, fmt, ap);
  va_end(ap);
  f->line = line;
  f->col = col;
  return -1;
}

/* Declared in ptx_check.h. */
int ptx_check_shape(const struct ptx_insn *in, const struct ptx_tok *op,
                    const struct ptx_operand *top, size_t n_top, const struct ptx_tok *topt,
                    const struct ptx_operand *elems, const struct ptx_reg *regs,
                    unsigned address_bits, struct ptx_shape_fail *f) {
  /* call: parse_call enforces its grammar; above 255 operands commit_operands fails */
  if (in->op == PTX_OP_CALL || n_top > 255) return 0;
  const char *g, *gend;
  select_form(ptx_op_info((enum ptx_opcode)in->op)->shape, in->opcode_text, &g, &gend);
  struct stok t[MAX_STOKS];
  size_t nt = shape_tokens(g, gend, t);
  struct unit u[MAX_UNITS];
  uint32_t slot[MAX_UNITS];
  size_t nu = 0;
  int found = 0;
  for (size_t i = 0; i < n_top && nu < MAX_UNITS; i++) {
    const struct ptx_operand *o = &top[i];
    if (o->brk && !(o->brk & 1)) continue; /* inside a group: counted with its first */
    u[nu].top = (uint32_t)i;
    u[nu].group = (uint8_t)((o->brk & 1) != 0);
    u[nu].pipe = o->pipe;
    found += !o->pipe;
    nu++;
  }
  char gram[256];
  grammar_text(g, gend, gram, sizeof gram);
  if (!layout(t, nt, 0, u, nu, 0, 0, slot)) {
    if (layout(t, nt, 0, u, nu, 0, 1, slot)) {
      /* the count fits: a '|' operand stands where the grammar has none */
      size_t k = 0;
      for (size_t i = 1; i < nu; i++) {
        if (!u[i].pipe) continue;
        uint32_t s = slot[i - 1];
        k = i;
        if (s >= nt || s + 2 >= nt || t[s + 1].kind != ST_OPEN || !t[s + 2].pipe) break;
      }
      const struct ptx_tok *at = &topt[u[k].top];
      return shape_fail(f, at->line, at->col, "'%s' takes no '|' operand here (%s)",
                        in->opcode_text, gram);
    }
    int lo, hi;
    char phrase[64];
    shape_counts(t, nt, &lo, &hi);
    count_phrase(lo, hi, phrase, sizeof phrase);
    if (hi == 0)
      return shape_fail(f, op->line, op->col, "'%s' %s, found %d", in->opcode_text, phrase,
                        found);
    return shape_fail(f, op->line, op->col, "'%s' %s (%s), found %d", in->opcode_text,
                      phrase, gram, found);
  }
  int num = 0;
  for (size_t i = 0; i < nu; i++) {
    num += !u[i].pipe;
    if (slot[i] >= nt) continue;
    const char *want;
    if (slot_accepts(top, elems, &t[slot[i]], &u[i], &want)) continue;
    const struct ptx_tok *at = &topt[u[i].top];
    return shape_fail(f, at->line, at->col, "operand %d of '%s' (%.*s) must be %s, found %s",
                      num, in->opcode_text, (int)t[slot[i]].len, t[slot[i]].s, want,
                      opnd_desc(&top[u[i].top], u[i].group, is_dest_slot(&t[slot[i]])));
  }
  if (!ptx_check_wants_operands(in)) return 0;
  num = 0;
  for (size_t i = 0; i < nu; i++) {
    num += !u[i].pipe;
    if (slot[i] >= nt || u[i].group) continue;
    const struct stok *k = &t[slot[i]];
    char why[600];
    if (ptx_check_operand(in, k->s, k->len, k->ann, k->annlen, &top[u[i].top],
                          elems, regs, address_bits, why, sizeof why))
      continue;
    const struct ptx_tok *at = &topt[u[i].top];
    return shape_fail(f, at->line, at->col, "operand %d of '%s' (%.*s) %s", num,
                      in->opcode_text, (int)k->len, k->s, why);
  }
  return 0;
}
