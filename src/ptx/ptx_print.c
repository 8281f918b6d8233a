/* coalcheck PTX front end: the printer (module IR -> PTX text that ptxas accepts).
 *
 * Registers of nested { } blocks are declared once at function scope, renamed apart as
 * NAME$k (k = ptx_reg.instance); the blocks stay, declaring their own variables (the
 * .param of call sequences: ptxas lays out -O0 code differently when they move).
 * Everything else is written as nvcc writes it, because ptxas's output depends on it:
 * opcode_text verbatim, every .loc, .pragma and label where it stood (ptxas requires an
 * inlined_at location to appear in an earlier .loc; "nounroll" changes the code), "+0"
 * offsets, module items in file order, .file and .section at the end. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"
#include "util/mem.h"

/* A growing string. */
struct sbuf {
  char *s;
  size_t len, cap;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 256;
    while (c < b->len + n + 1) c *= 2;
    b->s = cc_xrealloc(b->s, c);
    b->cap = c;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

static void sb_puts(struct sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    sb_putn(b, tmp, (size_t)n);
    return;
  }
  char *big = cc_xmalloc((size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb_putn(b, big, (size_t)n);
  free(big);
}

/* NAME or NAME$k for the k-th redeclaration of a name in nested scopes. */
static void put_scoped_name(struct sbuf *b, const char *name, uint32_t instance) {
  sb_puts(b, name);
  if (instance) sb_printf(b, "$%" PRIu32, instance);
}

static const struct ptx_var *operand_var(const struct ptx_module *m,
                                         const struct ptx_function *f,
                                         const struct ptx_operand *o) {
  if (o->var < 0 || o->is_func) return NULL;
  if (o->var_scope == PTX_SCOPE_FUNCTION)
    return (uint32_t)o->var < f->nvars ? &f->vars[o->var] : NULL;
  return (uint32_t)o->var < m->nvars ? &m->vars[o->var] : NULL;
}

static void put_symbol(struct sbuf *b, const struct ptx_module *m,
                       const struct ptx_function *f, const struct ptx_operand *o) {
  if (o->is_func) {
    sb_puts(b, (uint32_t)o->var < m->nfuncs ? m->funcs[o->var].name : "?");
    return;
  }
  const struct ptx_var *v = operand_var(m, f, o);
  if (!v) {
    sb_puts(b, "?");
    return;
  }
  put_scoped_name(b, v->name, o->var_scope == PTX_SCOPE_FUNCTION ? v->instance : 0);
}

static void put_operand(struct sbuf *b, const struct ptx_module *m,
                        const struct ptx_function *f, const struct ptx_operand *o) {
  switch (o->kind) {
  case PTX_OPND_REG:
    if (o->neg) sb_puts(b, "!");
    if (o->reg >= 0 && (uint32_t)o->reg < f->nregs)
      put_scoped_name(b, f->regs[o->reg].name, f->regs[o->reg].instance);
    else
      sb_puts(b, "?");
    if (o->regcomp >= 1 && o->regcomp <= 4) sb_printf(b, ".%c", "xyzw"[o->regcomp - 1]);
    break;
  case PTX_OPND_SREG:
    sb_puts(b, ptx_sreg_name((enum ptx_special_reg)o->sreg));
    if (ptx_sreg_has_comp((enum ptx_special_reg)o->sreg)) sb_printf(b, ".%c", "xyz"[o->comp % 3]);
    break;
  case PTX_OPND_IMM:
    if (o->is_float && o->is_f64)
      sb_printf(b, "0d%016" PRIX64, (uint64_t)o->imm);
    else if (o->is_float)
      sb_printf(b, "0f%08" PRIX32, (uint32_t)o->imm);
    else
      sb_printf(b, "%" PRId64, o->imm);
    break;
  case PTX_OPND_SYM:
    put_symbol(b, m, f, o);
    break;
  case PTX_OPND_ADDR:
    sb_puts(b, "[");
    if (o->reg >= 0 && (uint32_t)o->reg < f->nregs) {
      put_scoped_name(b, f->regs[o->reg].name, f->regs[o->reg].instance);
      if (o->imm || o->has_offset) sb_printf(b, "+%" PRId64, o->imm);
    } else if (o->var >= 0) {
      put_symbol(b, m, f, o);
      if (o->imm || o->has_offset) sb_printf(b, "+%" PRId64, o->imm);
    } else {
      sb_printf(b, "%" PRId64, o->imm);
    }
    sb_puts(b, "]");
    break;
  case PTX_OPND_VEC:
    sb_puts(b, "{");
    for (int32_t i = 0; i < o->count; i++) {
      if (i) sb_puts(b, ", ");
      if (o->first >= 0 && (uint32_t)(o->first + i) < f->nopnds)
        put_operand(b, m, f, &f->opnds[o->first + i]);
    }
    sb_puts(b, "}");
    break;
  case PTX_OPND_LABEL:
    if (o->var >= 0 && (uint32_t)o->var < f->nlabels) sb_puts(b, f->labels[o->var].name);
    else sb_puts(b, "?");
    break;
  case PTX_OPND_SINK:
    sb_puts(b, "_");
    break;
  }
}

/* Operands first..first+n-1 of the instruction, comma separated, with "|" joins and
 * texture bracket groups. */
static void put_operand_list(struct sbuf *b, const struct ptx_module *m,
                             const struct ptx_function *f, const struct ptx_insn *in,
                             uint32_t first, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    const struct ptx_operand *o = &f->opnds[in->opnd + first + i];
    if (i) sb_puts(b, o->pipe ? "|" : ", ");
    if (o->brk & 1) sb_puts(b, "[");
    put_operand(b, m, f, o);
    if (o->brk & 2) sb_puts(b, "]");
  }
}

/* extra: one more argument written last (a hook's), or NULL */
static void put_call(struct sbuf *b, const struct ptx_module *m, const struct ptx_function *f,
                     const struct ptx_insn *in, const char *extra) {
  uint32_t k = in->call_nret;
  if (k) {
    sb_puts(b, "(");
    put_operand_list(b, m, f, in, 0, k);
    sb_puts(b, "), ");
  }
  if (in->callee >= 0 && (uint32_t)in->callee < m->nfuncs) {
    sb_puts(b, m->funcs[in->callee].name);
  } else if (k < in->nopnds) {
    put_operand(b, m, f, &f->opnds[in->opnd + k]);
    k++;
  }
  if (k < in->nopnds || in->call_proto || extra) {
    sb_puts(b, ", (");
    put_operand_list(b, m, f, in, k, in->nopnds - k);
    if (extra) sb_printf(b, "%s%s", k < in->nopnds ? ", " : "", extra);
    sb_puts(b, ")");
  }
  if (in->call_proto) sb_printf(b, ", %s", in->call_proto);
}

/* extra_arg: a call's extra argument (put_call), or NULL */
static void put_insn(struct sbuf *b, const struct ptx_module *m, const struct ptx_function *f,
                     const struct ptx_insn *in, const char *extra_arg) {
  if (in->guard >= 0 && (uint32_t)in->guard < f->nregs) {
    sb_puts(b, in->guard_neg ? "@!" : "@");
    put_scoped_name(b, f->regs[in->guard].name, f->regs[in->guard].instance);
    sb_puts(b, " ");
  }
  sb_puts(b, in->opcode_text);
  /* one space, not nvcc's tab: this text also goes into messages and reports */
  if (in->op == PTX_OP_CALL) {
    sb_puts(b, " ");
    put_call(b, m, f, in, extra_arg);
  } else if (in->nopnds) {
    sb_puts(b, " ");
    put_operand_list(b, m, f, in, 0, in->nopnds);
  }
  sb_puts(b, ";");
}

size_t ptx_print_insn(const struct ptx_module *m, const struct ptx_function *f, uint32_t index,
                      char *buf, size_t size) {
  struct sbuf b = {0};
  if (index < f->ninsns) put_insn(&b, m, f, &f->insns[index], NULL);
  else sb_puts(&b, "");
  size_t n = b.len;
  if (size) {
    size_t c = n < size - 1 ? n : size - 1;
    memcpy(buf, b.s, c);
    buf[c] = 0;
  }
  free(b.s);
  return n;
}

/* ---- declarations ------------------------------------------------------------------- */

/* Writes the bytes of an initializer back as values of the variable's type. */
static void put_init(struct sbuf *b, const struct ptx_var *v) {
  if (v->init_is_symbolic && v->init_text) {
    sb_printf(b, " = %s", v->init_text);
    return;
  }
  if (!v->init) return;
  unsigned sz = ptx_type_size(v->type);
  if (!sz) return;
  uint64_t n = v->size_bytes / sz;
  int list = v->count != 1 || v->vec != 1;
  sb_puts(b, list ? " = {" : " = ");
  for (uint64_t i = 0; i < n; i++) {
    uint64_t bits = 0;
    for (unsigned k = 0; k < sz; k++) bits |= (uint64_t)v->init[i * sz + k] << (8 * k);
    if (i) sb_puts(b, ", ");
    if (v->type == PTX_TYPE_F32) {
      sb_printf(b, "0f%08" PRIX32, (uint32_t)bits);
    } else if (v->type == PTX_TYPE_F64) {
      sb_printf(b, "0d%016" PRIX64, bits);
    } else if (ptx_type_is_signed(v->type)) {
      int64_t sv = (int64_t)(bits << (64 - 8 * sz)) >> (64 - 8 * sz);
      sb_printf(b, "%" PRId64, sv);
    } else {
      sb_printf(b, "%" PRIu64, bits);
    }
  }
  if (list) sb_puts(b, "}");
}

/* ".space [.align N] [.vK] .type NAME[count]" without the terminator. */
static void put_var_decl(struct sbuf *b, const struct ptx_var *v, uint32_t instance) {
  if (v->is_extern) sb_puts(b, ".extern ");
  if (v->is_visible) sb_puts(b, ".visible ");
  if (v->is_weak) sb_puts(b, ".weak ");
  sb_printf(b, ".%s ", ptx_space_name(v->space));
  if (v->align) sb_printf(b, ".align %" PRIu32 " ", v->align);
  if (v->vec > 1) sb_printf(b, ".v%" PRIu32 " ", v->vec);
  sb_printf(b, ".%s ", ptx_type_name(v->type));
  put_scoped_name(b, v->name, instance);
  if (v->count == 0) sb_puts(b, "[]");
  else if (v->count != 1 || (v->init_is_symbolic && v->init_text && v->init_text[0] == '{'))
    sb_printf(b, "[%" PRIu64 "]", v->count); /* a braced initializer needs an array */
}

/* extra: one more parameter declaration written last (a hook's), or NULL */
static void put_param_list(struct sbuf *b, const struct ptx_function *f, const uint32_t *idx,
                           uint32_t n, int multiline, const char *extra) {
  sb_puts(b, "(");
  for (uint32_t i = 0; i < n; i++) {
    if (i) sb_puts(b, ",");
    if (multiline) sb_puts(b, "\n\t");
    put_var_decl(b, &f->vars[idx[i]], f->vars[idx[i]].instance);
  }
  if (extra) {
    if (n) sb_puts(b, ",");
    sb_puts(b, multiline ? "\n\t" : "");
    sb_puts(b, extra);
  }
  if (multiline && (n || extra)) sb_puts(b, "\n");
  sb_puts(b, ")");
}

/* the text a hook returns for f, or NULL without hook */
static const char *hook_text(const struct ptx_print_hooks *h,
                             const char *(*fn)(void *, const struct ptx_function *),
                             const struct ptx_function *f) {
  return h && fn ? fn(h->ctx, f) : NULL;
}

static void put_function_head(struct sbuf *b, const struct ptx_function *f,
                              const struct ptx_print_hooks *h) {
  if (f->is_extern) sb_puts(b, ".extern ");
  if (f->is_visible) sb_puts(b, ".visible ");
  if (f->is_weak) sb_puts(b, ".weak ");
  sb_puts(b, f->is_entry ? ".entry " : ".func ");
  if (!f->is_entry && f->nret) {
    put_param_list(b, f, f->ret_vars, f->nret, 0, NULL);
    sb_puts(b, " ");
  }
  sb_puts(b, f->name);
  put_param_list(b, f, f->param_vars, f->nparams, 1,
                 hook_text(h, h ? h->extra_param : NULL, f));
  sb_puts(b, "\n");
  if (f->directives) sb_printf(b, "%s", f->directives);
}

/* Length of the run of registers i.. named P0, P1, ... of one type that one range
 * declaration ".reg .T P<n>" can write; 0 when regs[i] does not start one. */
static uint32_t reg_run(const struct ptx_function *f, uint32_t i) {
  const struct ptx_reg *r = &f->regs[i];
  size_t len = strlen(r->name);
  if (len < 2 || r->name[len - 1] != '0' || r->instance || r->vec != 1) return 0;
  size_t plen = len - 1;
  if (r->name[plen - 1] >= '0' && r->name[plen - 1] <= '9') return 0;
  uint32_t n = 0;
  char want[320];
  while (i + n < f->nregs) {
    const struct ptx_reg *q = &f->regs[i + n];
    if (plen > 256 || q->type != r->type || q->instance || q->vec != 1) break;
    snprintf(want, sizeof want, "%.*s%" PRIu32, (int)plen, r->name, n);
    if (strcmp(want, q->name) != 0) break;
    n++;
  }
  return n;
}

static int var_is_param(const struct ptx_function *f, uint32_t v) {
  for (uint32_t i = 0; i < f->nret; i++)
    if (f->ret_vars[i] == v) return 1;
  for (uint32_t i = 0; i < f->nparams; i++)
    if (f->param_vars[i] == v) return 1;
  return 0;
}

static void put_loc(struct sbuf *b, const struct ptx_loc *l) {
  sb_printf(b, "\t.loc\t%" PRIu32 " %" PRIu32 " %" PRIu32, l->file, l->line, l->column);
  if (l->function_name) sb_printf(b, ", function_name %s", l->function_name);
  if (l->inl_file)
    sb_printf(b, ", inlined_at %" PRIu32 " %" PRIu32 " %" PRIu32, l->inl_file, l->inl_line,
              l->inl_column);
  sb_puts(b, "\n");
}

static void put_local_var(struct sbuf *b, const struct ptx_var *v) {
  sb_puts(b, "\t");
  put_var_decl(b, v, v->instance);
  put_init(b, v);
  sb_puts(b, ";\n");
}

/* A label, .loc, .pragma or brace of a nested block (whose variables, e.g. the .param
 * of a call sequence, are declared inside it as in the input; its registers are
 * declared at function scope). */
static void put_mark(struct sbuf *b, const struct ptx_function *f, const struct ptx_mark *mk) {
  switch (mk->kind) {
  case PTX_MARK_LABEL:
    if (mk->index < f->nlabels) sb_printf(b, "%s:\n", f->labels[mk->index].name);
    break;
  case PTX_MARK_LOC:
    if (mk->index < f->nlocs) put_loc(b, &f->locs[mk->index]);
    break;
  case PTX_MARK_PRAGMA:
    if (mk->index < f->npragmas) sb_printf(b, "\t.pragma %s;\n", f->pragmas[mk->index].text);
    break;
  case PTX_MARK_OPEN:
    sb_puts(b, "\t{\n");
    for (uint32_t v = 0; v < f->nvars; v++)
      if (f->vars[v].scope == (int32_t)mk->index) put_local_var(b, &f->vars[v]);
    break;
  case PTX_MARK_CLOSE:
    sb_puts(b, "\t}\n");
    break;
  }
}

static void put_function_body(struct sbuf *b, const struct ptx_module *m,
                              const struct ptx_function *f, const struct ptx_print_hooks *h) {
  const char *t;
  sb_puts(b, "{\n");
  for (uint32_t i = 0; i < f->nregs;) {
    const struct ptx_reg *r = &f->regs[i];
    uint32_t run = reg_run(f, i);
    sb_puts(b, "\t.reg ");
    if (r->vec > 1) sb_printf(b, ".v%" PRIu32 " ", r->vec);
    sb_printf(b, ".%s \t", ptx_type_name(r->type));
    if (run > 1) {
      sb_printf(b, "%.*s<%" PRIu32 ">;\n", (int)(strlen(r->name) - 1), r->name, run);
      i += run;
    } else {
      put_scoped_name(b, r->name, r->instance);
      sb_puts(b, ";\n");
      i++;
    }
  }
  for (uint32_t i = 0; i < f->nvars; i++) {
    if (var_is_param(f, i) || f->vars[i].scope >= 0) continue; /* blocks declare their own */
    put_local_var(b, &f->vars[i]);
  }
  if (f->protos) sb_printf(b, "\t%s", f->protos);
  if ((t = hook_text(h, h ? h->body_start : NULL, f))) sb_puts(b, t);
  uint32_t k = 0;
  for (uint32_t i = 0; i <= f->ninsns; i++) {
    for (; k < f->nmarks && f->marks[k].insn <= i; k++) put_mark(b, f, &f->marks[k]);
    if (i == f->ninsns) break;
    if (h && h->before_insn && (t = h->before_insn(h->ctx, f, i))) sb_puts(b, t);
    sb_puts(b, "\t");
    const char *arg = h && h->call_arg && f->insns[i].op == PTX_OP_CALL
                          ? h->call_arg(h->ctx, f, i) : NULL;
    put_insn(b, m, f, &f->insns[i], arg);
    sb_puts(b, "\n");
  }
  sb_puts(b, "}\n");
}

int ptx_print_module(const struct ptx_module *m, FILE *out) {
  return ptx_print_module_hooked(m, NULL, out);
}

int ptx_print_module_hooked(const struct ptx_module *m, const struct ptx_print_hooks *h,
                            FILE *out) {
  struct sbuf b = {0};
  sb_printf(&b, "//\n// printed by coalcheck from %s\n//\n\n", m->path ? m->path : "?");
  sb_printf(&b, ".version %s\n.target %s\n.address_size %" PRIu32 "\n\n",
            m->version ? m->version : "9.0", m->target ? m->target : "sm_90", m->address_size);
  for (uint32_t i = 0; i < m->nitems; i++) {
    const struct ptx_item *it = &m->items[i];
    if (it->kind == PTX_ITEM_PRAGMA) {
      sb_printf(&b, ".pragma %s;\n", m->pragmas[it->index]);
      continue;
    }
    if (it->kind == PTX_ITEM_VAR) {
      put_var_decl(&b, &m->vars[it->index], 0);
      put_init(&b, &m->vars[it->index]);
      sb_puts(&b, ";\n");
      continue;
    }
    const struct ptx_function *f = &m->funcs[it->index];
    sb_puts(&b, "\n");
    put_function_head(&b, f, h); /* a declaration too: its parameters match */
    if (it->kind == PTX_ITEM_FUNC_DEF) put_function_body(&b, m, f, h);
    else sb_puts(&b, ";\n");
  }
  sb_puts(&b, "\n");
  for (uint32_t i = 0; i < m->nfiles; i++) {
    sb_printf(&b, "\t.file\t%" PRIu32 " \"%s\"", m->files[i].id, m->files[i].path);
    if (m->files[i].rest) sb_printf(&b, ", %s", m->files[i].rest);
    sb_puts(&b, "\n");
  }
  if (m->sections) sb_printf(&b, "\t%s\n", m->sections);
  size_t w = b.len ? fwrite(b.s, 1, b.len, out) : 0;
  int ok = w == b.len && fflush(out) == 0 && !ferror(out);
  free(b.s);
  return ok ? 0 : -1;
}
