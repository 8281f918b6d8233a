/* coalcheck PTX front end: the parser (text -> resolved module IR).
 *
 * One pass over the tokens builds the module directly; names are resolved as they are
 * met (registers and function-scope variables through scoped maps with an undo log per
 * { } block), except what PTX lets one use before its definition: labels (resolved when
 * the function ends) and functions/module symbols named before their declaration
 * (resolved when the module ends).
 *
 * Errors unwind with longjmp to ptx_parse (as Lua's luaD_throw does): every allocation
 * is reachable from the module under construction or from the parser state at all
 * times, so the one error exit frees everything and nothing leaks.
 * Source of the grammar: PTX ISA 9.0, sections 4-5 (syntax, state spaces, variables),
 * 9 (instructions), 11 (directives). */
#include <assert.h>
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"
#include "ptx/ptx_check.h"
#include "ptx/ptx_lex.h"
#include "util/fileio.h"
#include "util/mem.h"

/* Growth of an IR array whose capacity the parser keeps. */
#define GROW(arr, n, cap)                                                               \
  do {                                                                                  \
    if ((size_t)(n) >= (cap)) {                                                         \
      (cap) = (cap) ? (cap) * 2 : 16;                                                   \
      (arr) = cc_xrealloc((arr), (cap) * sizeof *(arr));                                \
    }                                                                                   \
  } while (0)

/* Largest register range "%r<N>" and array accepted: far above what nvcc writes, low
 * enough that a corrupt file cannot make the parser allocate gigabytes. */
#define MAX_RANGE (1u << 20)
#define MAX_ARRAY_BYTES (1ull << 32)
/* Registers of one function, and bytes of one initialized variable (its image is
 * allocated): bounds on memory use for any input. */
#define MAX_FUNC_REGS (1u << 22)
#define MAX_INIT_BYTES (64ull << 20)

/* ---- string-keyed map: name -> int32 (-1 = absent) ----------------------------------- */

struct map_ent {
  const char *key; /* points at a string owned by the module (stable) */
  uint32_t len, hash;
  int32_t val;
};
struct map {
  struct map_ent *e;
  size_t cap, n;
};

static uint32_t hash_str(const char *s, size_t len) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static struct map_ent *map_find(const struct map *m, const char *k, size_t len, uint32_t h) {
  if (!m->cap) return NULL;
  for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    struct map_ent *e = &m->e[i];
    if (!e->key) return e;
    if (e->hash == h && e->len == len && memcmp(e->key, k, len) == 0) return e;
  }
}

static int32_t map_get(const struct map *m, const char *k, size_t len) {
  struct map_ent *e = map_find(m, k, len, hash_str(k, len));
  return e && e->key ? e->val : -1;
}

/* The value slot of key k (stable string), inserted with -1 when absent. The pointer is
 * valid until the next insertion. */
static int32_t *map_slot(struct map *m, const char *k, size_t len) {
  if ((m->n + 1) * 2 > m->cap) {
    struct map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->e = cc_xcalloc(m->cap, sizeof *m->e);
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.e[i].key) {
        struct map_ent *e = map_find(m, old.e[i].key, old.e[i].len, old.e[i].hash);
        *e = old.e[i];
        m->n++;
      }
    free(old.e);
  }
  uint32_t h = hash_str(k, len);
  struct map_ent *e = map_find(m, k, len, h);
  if (!e->key) {
    e->key = k;
    e->len = (uint32_t)len;
    e->hash = h;
    e->val = -1;
    m->n++;
  }
  return &e->val;
}

static void map_clear(struct map *m) {
  free(m->e);
  m->e = NULL;
  m->cap = m->n = 0;
}

/* ---- parser state --------------------------------------------------------------------- */

struct undo {
  struct map *map;
  const char *key;
  uint32_t len;
  int32_t old;
};

/* A name used before it is defined; resolved later. */
struct fixup {
  uint32_t func, index; /* function; operand index (symbols) or instruction (callees) */
  const char *name;
  uint32_t len, line, col;
};

/* An operand of the instruction being parsed that names something resolved later. */
struct pending {
  int in_elems;         /* in the vector elements rather than the top-level operands */
  uint32_t idx;
  struct ptx_tok tok;
};

struct parser {
  struct ptx_lexer lx;
  struct ptx_tok tok;
  const char *path;
  struct cc_err *err;
  jmp_buf jb;
  struct ptx_module *m;
  size_t cap_files, cap_vars, cap_funcs, cap_items, cap_mpragmas;
  struct map mvars, mfuncs;
  struct map forms;              /* opcode texts whose modifiers passed ptx_check_modifiers ->
                                    the flags it set (a form is checked once per module) */
  CC_VEC(struct fixup) sym_fix;  /* module-wide: symbols not yet declared */
  CC_VEC(struct fixup) call_fix; /* module-wide: callees not yet declared */
  /* the function being parsed */
  uint32_t fi;
  size_t cap_fvars, cap_regs, cap_insns, cap_opnds, cap_labels, cap_locs, cap_pragmas;
  size_t cap_scopes, cap_marks;
  struct map regs, fvars, labels, reg_count, var_count;
  CC_VEC(struct undo) undo;
  CC_VEC(size_t) scopes;             /* undo-log marks of the open nested blocks */
  int32_t cur_scope;                 /* the innermost open block, -1: the body */
  CC_VEC(struct ptx_tok) label_refs; /* LABEL operands hold an index here until resolved */
  int32_t cur_loc;
  /* the instruction being parsed */
  CC_VEC(struct ptx_operand) top, elems;
  CC_VEC(struct ptx_tok) topt;       /* first token of each top-level operand (messages) */
  CC_VEC(struct pending) pend;
  /* the initializer being parsed */
  CC_VEC(struct ptx_tok) ivals;
  CC_VEC(uint8_t) inegs;
};

static struct ptx_function *cur_fn(struct parser *p) { return &p->m->funcs[p->fi]; }

/* ---- errors ------------------------------------------------------------------------- */

static _Noreturn void fail_at(struct parser *p, uint32_t line, uint32_t col, const char *fmt,
                              ...) __attribute__((format(printf, 4, 5)));
static _Noreturn void fail_at(struct parser *p, uint32_t line, uint32_t col, const char *fmt,
                              ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cc_err_set(p->err, CC_ERR_INPUT, "%s:%u:%u: %s", p->path, line, col, msg);
  longjmp(p->jb, 1);
}

/* How a token reads in a message: its text (at most 40 bytes) in quotes. */
static void tok_desc(const struct ptx_tok *t, char *buf, size_t size) {
  if (t->kind == PTX_TOK_EOF) {
    snprintf(buf, size, "end of input");
    return;
  }
  uint32_t n = t->len > 40 ? 40 : t->len;
  char text[48];
  size_t j = 0;
  for (uint32_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)t->s[i];
    text[j++] = (c >= 32 && c < 127) ? (char)c : '?'; /* no raw control bytes in messages */
  }
  text[j] = 0;
  snprintf(buf, size, "'%s%s'", text, t->len > 40 ? "..." : "");
}

static _Noreturn void expected(struct parser *p, const char *what) {
  char d[64];
  if (p->tok.kind == PTX_TOK_ERROR) {
    tok_desc(&p->tok, d, sizeof d);
    fail_at(p, p->tok.line, p->tok.col, "%s %s", p->tok.msg, d);
  }
  tok_desc(&p->tok, d, sizeof d);
  fail_at(p, p->tok.line, p->tok.col, "expected %s, found %s", what, d);
}

/* ---- token helpers ---------------------------------------------------------------------- */

static void next(struct parser *p) {
  p->tok = ptx_lex_next(&p->lx);
  if (p->tok.kind == PTX_TOK_ERROR) expected(p, "a token");
}

static int is_punct(const struct parser *p, char c) {
  return p->tok.kind == PTX_TOK_PUNCT && p->tok.s[0] == c;
}

static int is_dir(const struct parser *p, const char *name) {
  return p->tok.kind == PTX_TOK_DIR && p->tok.len == strlen(name) &&
         memcmp(p->tok.s, name, p->tok.len) == 0;
}

static int tok_is(const struct ptx_tok *t, const char *s) {
  return t->len == strlen(s) && memcmp(t->s, s, t->len) == 0;
}

static void expect_punct(struct parser *p, char c) {
  if (!is_punct(p, c)) {
    char what[8] = {'\'', c, '\'', 0};
    expected(p, what);
  }
  next(p);
}

static int accept_punct(struct parser *p, char c) {
  if (!is_punct(p, c)) return 0;
  next(p);
  return 1;
}

static struct ptx_tok expect_ident(struct parser *p, const char *what) {
  if (p->tok.kind != PTX_TOK_IDENT) expected(p, what);
  struct ptx_tok t = p->tok;
  next(p);
  return t;
}

static uint64_t expect_uint(struct parser *p, const char *what) {
  if (p->tok.kind != PTX_TOK_INT) expected(p, what);
  uint64_t v = p->tok.ival;
  next(p);
  return v;
}

static uint32_t expect_u32(struct parser *p, const char *what) {
  struct ptx_tok t = p->tok;
  uint64_t v = expect_uint(p, what);
  if (v > UINT32_MAX) fail_at(p, t.line, t.col, "%s out of range", what);
  return (uint32_t)v;
}

/* Peeks at the token after the current one. */
static struct ptx_tok peek(struct parser *p) {
  struct ptx_lexer save = p->lx;
  struct ptx_tok t = ptx_lex_next(&p->lx);
  p->lx = save;
  return t;
}

/* Appends text (len bytes) and a separator to a growing owned string. */
static void str_append(char **dst, const char *text, size_t len, const char *sep) {
  size_t old = *dst ? strlen(*dst) : 0, sl = strlen(sep);
  *dst = cc_xrealloc(*dst, old + len + sl + 1);
  memcpy(*dst + old, text, len);
  memcpy(*dst + old + len, sep, sl + 1);
}

/* ---- types, spaces (the words: ptx_decode.c) --------------------------------------- */

/* A directive token's space (".global" ...), or PTX_SPACE_COUNT. */
static enum ptx_space dir_space(const struct ptx_tok *t) {
  if (t->kind != PTX_TOK_DIR) return PTX_SPACE_COUNT;
  return ptx_space_from(t->s + 1, t->len - 1);
}

static enum ptx_type dir_type(const struct ptx_tok *t) {
  if (t->kind != PTX_TOK_DIR) return PTX_TYPE_NONE;
  return ptx_type_from(t->s + 1, t->len - 1);
}

/* ---- scopes and declarations ------------------------------------------------------- */

/* Records what stands before the next instruction, for the printer. */
static void add_mark(struct parser *p, enum ptx_mark_kind kind, uint32_t index) {
  struct ptx_function *f = cur_fn(p);
  GROW(f->marks, f->nmarks, p->cap_marks);
  f->marks[f->nmarks++] = (struct ptx_mark){(uint8_t)kind, f->ninsns, index};
}

/* Opens a nested { } block. */
static void scope_push(struct parser *p) {
  struct ptx_function *f = cur_fn(p);
  CC_VEC_PUSH(&p->scopes, p->undo.len);
  GROW(f->scopes, f->nscopes, p->cap_scopes);
  f->scopes[f->nscopes] = (struct ptx_scope){p->cur_scope, f->ninsns, f->ninsns};
  p->cur_scope = (int32_t)f->nscopes++;
  add_mark(p, PTX_MARK_OPEN, (uint32_t)p->cur_scope);
}

/* Closes the innermost block: its names are unbound again. */
static void scope_pop(struct parser *p) {
  struct ptx_function *f = cur_fn(p);
  f->scopes[p->cur_scope].close_insn = f->ninsns;
  add_mark(p, PTX_MARK_CLOSE, (uint32_t)p->cur_scope);
  p->cur_scope = f->scopes[p->cur_scope].parent;
  size_t mark = p->scopes.data[--p->scopes.len];
  while (p->undo.len > mark) {
    struct undo *u = &p->undo.data[--p->undo.len];
    *map_slot(u->map, u->key, u->len) = u->old;
  }
}

/* Binds key (a stable string) to val in a scoped map, remembering the old binding. */
static void scoped_bind(struct parser *p, struct map *map, const char *key, int32_t val) {
  size_t len = strlen(key);
  int32_t *slot = map_slot(map, key, len);
  struct undo u = {map, key, (uint32_t)len, *slot};
  *slot = val;
  CC_VEC_PUSH(&p->undo, u);
}

/* The next instance number of name in a per-function counting map. */
static uint32_t next_instance(struct map *count, const char *key) {
  int32_t *slot = map_slot(count, key, strlen(key));
  *slot = *slot < 0 ? 1 : *slot + 1;
  return (uint32_t)(*slot - 1);
}

static void declare_reg(struct parser *p, const struct ptx_tok *at, const char *name,
                        size_t len, enum ptx_type t, uint32_t vec) {
  struct ptx_function *f = cur_fn(p);
  if (f->nregs >= MAX_FUNC_REGS)
    fail_at(p, at->line, at->col, "too many registers in function '%s' (at most %u)",
            f->name ? f->name : "?", MAX_FUNC_REGS);
  GROW(f->regs, f->nregs, p->cap_regs);
  struct ptx_reg *r = &f->regs[f->nregs];
  memset(r, 0, sizeof *r);
  r->name = cc_xstrndup(name, len);
  r->type = t;
  r->vec = vec;
  r->scope = p->cur_scope;
  f->nregs++;
  r->instance = next_instance(&p->reg_count, r->name);
  scoped_bind(p, &p->regs, r->name, (int32_t)(f->nregs - 1));
}

/* .reg [.v2|.v4] .type name[<N>] {, name[<N>]} ; */
static void parse_reg_decl(struct parser *p) {
  next(p);
  uint32_t vec = 1;
  if (is_dir(p, ".v2") || is_dir(p, ".v4")) {
    vec = (uint32_t)(p->tok.s[2] - '0');
    next(p);
  }
  enum ptx_type t = dir_type(&p->tok);
  if (t == PTX_TYPE_NONE) expected(p, "a register type");
  next(p);
  do {
    struct ptx_tok name = expect_ident(p, "a register name");
    if (accept_punct(p, '<')) {
      struct ptx_tok nt = p->tok;
      uint64_t n = expect_uint(p, "a register count");
      if (n > MAX_RANGE)
        fail_at(p, nt.line, nt.col, "register range of %llu is too large (at most %u)",
                (unsigned long long)n, MAX_RANGE);
      expect_punct(p, '>');
      char buf[300];
      if (name.len > 256) fail_at(p, name.line, name.col, "register name too long");
      for (uint64_t i = 0; i < n; i++) {
        int k = snprintf(buf, sizeof buf, "%.*s%llu", (int)name.len, name.s,
                         (unsigned long long)i);
        declare_reg(p, &name, buf, (size_t)k, t, vec);
      }
    } else {
      declare_reg(p, &name, name.s, name.len, t, vec);
    }
  } while (accept_punct(p, ','));
  expect_punct(p, ';');
}

/* Encodes one initializer value into the var's bytes at element index idx. */
static void init_store(struct ptx_var *v, uint64_t idx, const struct ptx_tok *t, int neg) {
  unsigned sz = ptx_type_size(v->type);
  uint64_t bits = t->ival;
  if (v->type == PTX_TYPE_F32) {
    float f;
    if (t->kind == PTX_TOK_F32) {
      uint32_t b = (uint32_t)bits;
      memcpy(&f, &b, 4);
    } else if (t->kind == PTX_TOK_F64) {
      double d;
      memcpy(&d, &bits, 8);
      f = (float)d;
    } else {
      f = (float)(int64_t)bits;
    }
    if (neg) f = -f;
    uint32_t b;
    memcpy(&b, &f, 4);
    bits = b;
  } else if (v->type == PTX_TYPE_F64) {
    double d;
    if (t->kind == PTX_TOK_F64) {
      memcpy(&d, &bits, 8);
    } else if (t->kind == PTX_TOK_F32) {
      uint32_t b = (uint32_t)bits;
      float f;
      memcpy(&f, &b, 4);
      d = f;
    } else {
      d = (double)(int64_t)bits;
    }
    if (neg) d = -d;
    memcpy(&bits, &d, 8);
  } else if (neg) {
    bits = (uint64_t)0 - bits;
  }
  for (unsigned i = 0; i < sz; i++) v->init[idx * sz + i] = (uint8_t)(bits >> (8 * i));
}

/* = value | = { ... } (nested braces flattened). Numeric initializers become bytes;
 * one naming a symbol (generic(x), x+8) is kept verbatim in init_text. */
static void parse_init(struct parser *p, struct ptx_var *v, const struct ptx_tok *name) {
  const char *start = p->tok.s, *end = start;
  p->ivals.len = p->inegs.len = 0;
  int depth = 0, symbolic = 0, neg = 0;
  /* collect first (the var's size may come from the initializer: x[] = {...}) */
  for (;;) {
    const char *what = NULL;
    if (p->tok.kind == PTX_TOK_EOF) {
      what = "';'";
    } else if (depth == 0 && (is_punct(p, ';') || is_punct(p, ','))) {
      if (end != start) break;
      what = "an initializer value";
    } else if (neg && p->tok.kind != PTX_TOK_INT && p->tok.kind != PTX_TOK_F32 &&
               p->tok.kind != PTX_TOK_F64) {
      what = "a number";
    } else if (is_punct(p, '{')) {
      depth++;
    } else if (is_punct(p, '}')) {
      if (--depth < 0) what = "an initializer value";
    } else if (is_punct(p, '-')) {
      neg = 1;
    } else if (p->tok.kind == PTX_TOK_INT || p->tok.kind == PTX_TOK_F32 ||
               p->tok.kind == PTX_TOK_F64) {
      CC_VEC_PUSH(&p->ivals, p->tok);
      CC_VEC_PUSH(&p->inegs, (uint8_t)neg);
      neg = 0;
    } else if (p->tok.kind == PTX_TOK_IDENT) {
      symbolic = 1;
    } else if (!is_punct(p, '(') && !is_punct(p, ')') && !is_punct(p, '+') &&
               !is_punct(p, ',')) {
      what = "an initializer value";
    }
    if (what) expected(p, what);
    end = p->tok.s + p->tok.len;
    next(p);
  }
  uint64_t nelem = v->count * v->vec;
  size_t nvals = p->ivals.len;
  if (!symbolic && v->count == 0 && nvals > 0 && v->vec) {
    v->count = (nvals + v->vec - 1) / v->vec;
    nelem = v->count * v->vec;
    v->size_bytes = nelem * ptx_type_size(v->type);
  }
  if (symbolic) {
    v->init_is_symbolic = 1;
    v->init_text = cc_xstrndup(start, (size_t)(end - start));
  } else if (nvals > nelem) {
    struct ptx_tok t = p->ivals.data[nelem];
    fail_at(p, t.line, t.col, "too many initializers for '%s' (%llu elements)", v->name,
            (unsigned long long)nelem);
  } else if (v->size_bytes > MAX_INIT_BYTES) {
    fail_at(p, name->line, name->col,
            "initialized variable '%s' is too large (%llu bytes, at most %llu)", v->name,
            (unsigned long long)v->size_bytes, (unsigned long long)MAX_INIT_BYTES);
  } else if (v->size_bytes > 0) {
    v->init = cc_xcalloc(1, (size_t)v->size_bytes);
    for (size_t i = 0; i < nvals; i++) init_store(v, i, &p->ivals.data[i], p->inegs.data[i]);
  }
}

/* The variable attributes before the name: .align N, .v2/.v4, the type, .ptr hints. */
struct var_attrs {
  enum ptx_space space;
  enum ptx_type type;
  uint32_t align, vec;
};

static void parse_var_attrs(struct parser *p, struct var_attrs *a) {
  int saw_ptr = 0;
  for (;;) {
    if (is_dir(p, ".align")) {
      next(p);
      a->align = expect_u32(p, "an alignment");
    } else if (is_dir(p, ".v2") || is_dir(p, ".v4") || is_dir(p, ".v8")) {
      a->vec = (uint32_t)(p->tok.s[2] - '0');
      next(p);
    } else if (is_dir(p, ".ptr")) {
      saw_ptr = 1;
      next(p); /* kernel parameter attributes: a hint, dropped */
    } else if (a->type == PTX_TYPE_NONE && dir_type(&p->tok) != PTX_TYPE_NONE) {
      a->type = dir_type(&p->tok);
      next(p);
    } else if (saw_ptr && dir_space(&p->tok) != PTX_SPACE_COUNT) {
      next(p); /* .ptr .global: the pointed-to space, a hint */
    } else {
      break;
    }
  }
  if (a->type == PTX_TYPE_NONE) expected(p, "a type");
}

/* Name and dimensions of one variable: name{[N]} or name[]. Fills v (name owned). */
static void parse_var_name(struct parser *p, const struct var_attrs *a, struct ptx_var *v,
                           int *unsized) {
  struct ptx_tok name = expect_ident(p, "a variable name");
  v->name = cc_xstrndup(name.s, name.len);
  v->space = a->space;
  v->type = a->type;
  v->align = a->align;
  v->vec = a->vec ? a->vec : 1;
  v->count = 1;
  *unsized = 0;
  while (is_punct(p, '[')) {
    next(p);
    if (is_punct(p, ']')) {
      *unsized = 1;
      v->count = 0;
    } else {
      struct ptx_tok nt = p->tok;
      uint64_t n = expect_uint(p, "an array size");
      if (n != 0 && v->count > MAX_ARRAY_BYTES / n)
        fail_at(p, nt.line, nt.col, "array '%s' is too large", v->name);
      v->count *= n;
    }
    expect_punct(p, ']');
  }
  uint64_t unit = (uint64_t)ptx_type_size(v->type) * v->vec;
  if (v->count > MAX_ARRAY_BYTES / (unit ? unit : 1))
    fail_at(p, name.line, name.col, "array '%s' is too large", v->name);
  v->size_bytes = v->count * unit;
}

/* One variable declaration statement after its space directive (current token). In a
 * function (fn set) the variables are function-scope and scoped by { }. */
static void parse_var_decl(struct parser *p, int in_fn, int is_extern, int is_visible,
                           int is_weak) {
  struct var_attrs a = {dir_space(&p->tok), PTX_TYPE_NONE, 0, 0};
  next(p);
  parse_var_attrs(p, &a);
  do {
    struct ptx_var *v;
    if (in_fn) {
      struct ptx_function *f = cur_fn(p);
      GROW(f->vars, f->nvars, p->cap_fvars);
      v = &f->vars[f->nvars];
      memset(v, 0, sizeof *v);
      f->nvars++;
    } else {
      struct ptx_module *m = p->m;
      GROW(m->vars, m->nvars, p->cap_vars);
      v = &m->vars[m->nvars];
      memset(v, 0, sizeof *v);
      m->nvars++;
    }
    struct ptx_tok name_tok = p->tok;
    int unsized;
    parse_var_name(p, &a, v, &unsized);
    v->is_extern = is_extern;
    v->is_visible = is_visible;
    v->is_weak = is_weak;
    if (accept_punct(p, '=')) parse_init(p, v, &name_tok);
    v->scope = in_fn ? p->cur_scope : -1;
    if (in_fn) {
      struct ptx_function *f = cur_fn(p);
      v->instance = next_instance(&p->var_count, v->name);
      scoped_bind(p, &p->fvars, v->name, (int32_t)(f->nvars - 1));
    } else {
      int32_t *slot = map_slot(&p->mvars, v->name, strlen(v->name));
      if (*slot >= 0)
        fail_at(p, name_tok.line, name_tok.col, "variable '%s' declared twice", v->name);
      *slot = (int32_t)(p->m->nvars - 1);
      GROW(p->m->items, p->m->nitems, p->cap_items);
      p->m->items[p->m->nitems++] = (struct ptx_item){PTX_ITEM_VAR, p->m->nvars - 1};
    }
  } while (accept_punct(p, ','));
  expect_punct(p, ';');
}

/* ---- operands ---------------------------------------------------------------------- */

static int32_t lookup_reg(struct parser *p, const struct ptx_tok *t) {
  int32_t r = map_get(&p->regs, t->s, t->len);
  if (r < 0) {
    char d[64];
    tok_desc(t, d, sizeof d);
    fail_at(p, t->line, t->col, "undefined register %s", d);
  }
  return r;
}

/* An element "%v.y" of a vector register (.reg .v4 .f32 %v); 0 when t is not one. */
static int vector_elem(struct parser *p, const struct ptx_tok *t, struct ptx_operand *o) {
  if (t->len < 3 || t->s[t->len - 2] != '.' || map_get(&p->regs, t->s, t->len) >= 0) return 0;
  const char *c = strchr("xyzwrgba", t->s[t->len - 1]);
  if (!c || !t->s[t->len - 1]) return 0;
  int32_t r = map_get(&p->regs, t->s, t->len - 2);
  if (r < 0) return 0;
  unsigned k = (unsigned)(c - "xyzwrgba") % 4;
  if (k >= cur_fn(p)->regs[r].vec) {
    char d[64];
    tok_desc(t, d, sizeof d);
    fail_at(p, t->line, t->col, "register %s has no such element (a .v%u register)", d,
            cur_fn(p)->regs[r].vec);
  }
  o->reg = r;
  o->regcomp = (uint8_t)(k + 1);
  return 1;
}

/* Whether t names a register in scope: "%name", or a plain name that a .reg declared
 * (inline asm writes "{ .reg .pred p; setp.ne.b32 p, %r1, 0; ... }"). */
static int is_reg_name(const struct parser *p, const struct ptx_tok *t) {
  return t->kind == PTX_TOK_IDENT && (t->s[0] == '%' || map_get(&p->regs, t->s, t->len) >= 0);
}

/* A special register ("%tid.x", "%laneid"); 0 when t is not one. */
static int special_reg(const struct ptx_tok *t, struct ptx_operand *o) {
  size_t base = t->len;
  int comp = -1;
  if (t->len > 2 && t->s[t->len - 2] == '.') {
    char c = t->s[t->len - 1];
    comp = c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
    if (comp < 0) return 0;
    base = t->len - 2;
  }
  for (int r = 0; r < PTX_SREG_COUNT; r++) {
    const char *n = ptx_sreg_name((enum ptx_special_reg)r);
    if (strlen(n) == base && memcmp(n, t->s, base) == 0) {
      if ((comp >= 0) != ptx_sreg_has_comp((enum ptx_special_reg)r)) return 0;
      o->kind = PTX_OPND_SREG;
      o->sreg = (uint8_t)r;
      o->comp = (uint8_t)(comp < 0 ? 0 : comp);
      return 1;
    }
  }
  return 0;
}

/* Resolves a symbol to a function variable, module variable or function; returns 0 when
 * none is declared yet. */
static int resolve_symbol(struct parser *p, const char *s, size_t len, struct ptx_operand *o) {
  int32_t i;
  if ((i = map_get(&p->fvars, s, len)) >= 0) {
    o->var = i;
    o->var_scope = PTX_SCOPE_FUNCTION;
  } else if ((i = map_get(&p->mvars, s, len)) >= 0) {
    o->var = i;
    o->var_scope = PTX_SCOPE_MODULE;
  } else if ((i = map_get(&p->mfuncs, s, len)) >= 0) {
    o->var = i;
    o->is_func = 1;
  } else {
    return 0;
  }
  return 1;
}

static struct ptx_operand new_opnd(enum ptx_operand_kind k) {
  struct ptx_operand o;
  memset(&o, 0, sizeof o);
  o.kind = (uint8_t)k;
  o.reg = -1;
  o.var = -1;
  o.target = -1;
  return o;
}

/* Appends o to the instruction's top-level operands or vector elements. */
static void push_opnd(struct parser *p, int in_elems, struct ptx_operand o) {
  if (in_elems) CC_VEC_PUSH(&p->elems, o);
  else CC_VEC_PUSH(&p->top, o);
}

static void push_pending(struct parser *p, int in_elems, const struct ptx_tok *t) {
  struct pending pd = {in_elems, (uint32_t)(in_elems ? p->elems.len : p->top.len), *t};
  CC_VEC_PUSH(&p->pend, pd);
}

/* A number (after an optional '-') as an immediate operand. */
static struct ptx_operand parse_imm(struct parser *p) {
  int neg = accept_punct(p, '-');
  struct ptx_operand o = new_opnd(PTX_OPND_IMM);
  if (p->tok.kind == PTX_TOK_INT) {
    o.imm = (int64_t)p->tok.ival;
    if (neg) o.imm = (int64_t)((uint64_t)0 - (uint64_t)o.imm);
  } else if (p->tok.kind == PTX_TOK_F32) {
    o.is_float = 1;
    o.imm = (int64_t)(p->tok.ival ^ (neg ? 0x80000000u : 0));
  } else if (p->tok.kind == PTX_TOK_F64) {
    o.is_float = 1;
    o.is_f64 = 1;
    o.imm = (int64_t)(p->tok.ival ^ (neg ? 0x8000000000000000ull : 0));
  } else {
    expected(p, "a number");
  }
  next(p);
  return o;
}

/* [reg], [reg+imm], [reg+-imm], [var], [var+imm], [imm] */
static struct ptx_operand parse_addr_body(struct parser *p, int in_elems) {
  struct ptx_operand o = new_opnd(PTX_OPND_ADDR);
  if (is_reg_name(p, &p->tok)) {
    o.reg = lookup_reg(p, &p->tok);
    next(p);
  } else if (p->tok.kind == PTX_TOK_IDENT) {
    if (!resolve_symbol(p, p->tok.s, p->tok.len, &o)) push_pending(p, in_elems, &p->tok);
    if (o.is_func) expected(p, "a register or variable");
    next(p);
  } else if (p->tok.kind == PTX_TOK_INT) {
    o.imm = (int64_t)p->tok.ival;
    next(p);
    return o;
  } else {
    expected(p, "an address");
  }
  if (is_punct(p, '+') || is_punct(p, '-')) {
    int neg = is_punct(p, '-');
    next(p);
    if (accept_punct(p, '-')) neg = !neg;
    struct ptx_tok t = p->tok;
    uint64_t v = expect_uint(p, "an offset");
    if (v > INT64_MAX) fail_at(p, t.line, t.col, "offset out of range");
    o.imm = neg ? -(int64_t)v : (int64_t)v;
    o.has_offset = 1;
  }
  return o;
}

static void parse_operand(struct parser *p, int in_elems, int is_branch);

/* { a, b, ... } as one VEC operand; elements go to the element list. */
static void parse_vec(struct parser *p, int in_elems) {
  if (in_elems) expected(p, "a scalar operand");
  next(p);
  struct ptx_operand o = new_opnd(PTX_OPND_VEC);
  o.first = (int32_t)p->elems.len;
  do {
    parse_operand(p, 1, 0);
    o.count++;
  } while (accept_punct(p, ','));
  expect_punct(p, '}');
  push_opnd(p, 0, o);
}

/* [ ... ]: an address, or a texture-style group "[h, {c}]" of several operands. */
static void parse_bracket(struct parser *p, int in_elems) {
  next(p);
  if (in_elems) expected(p, "a scalar operand");
  size_t first = p->top.len;
  struct ptx_operand o = parse_addr_body(p, 0);
  if (!is_punct(p, ',')) {
    expect_punct(p, ']');
    push_opnd(p, 0, o);
    return;
  }
  /* texture group: the handle (register or symbol), then further operands */
  if (o.imm != 0 || (o.reg < 0 && o.var < 0 && p->pend.len == 0)) expected(p, "']'");
  if (o.reg >= 0) {
    o.kind = PTX_OPND_REG;
  } else {
    o.kind = PTX_OPND_SYM;
  }
  push_opnd(p, 0, o);
  while (accept_punct(p, ',')) parse_operand(p, 0, 0);
  expect_punct(p, ']');
  p->top.data[first].brk |= 1;
  p->top.data[p->top.len - 1].brk |= 2;
}

/* One operand of any form, appended to the top-level list or the vector elements. */
static void parse_operand_one(struct parser *p, int in_elems, int is_branch) {
  struct ptx_tok t = p->tok;
  if (is_punct(p, '{')) {
    parse_vec(p, in_elems);
  } else if (is_punct(p, '[')) {
    parse_bracket(p, in_elems);
  } else if (is_punct(p, '!')) {
    next(p);
    if (!is_reg_name(p, &p->tok)) expected(p, "a predicate register");
    struct ptx_operand o = new_opnd(PTX_OPND_REG);
    o.reg = lookup_reg(p, &p->tok);
    o.neg = 1;
    next(p);
    push_opnd(p, in_elems, o);
  } else if (is_punct(p, '-') || t.kind == PTX_TOK_INT || t.kind == PTX_TOK_F32 ||
             t.kind == PTX_TOK_F64) {
    push_opnd(p, in_elems, parse_imm(p));
  } else if (t.kind == PTX_TOK_IDENT) {
    struct ptx_operand o = new_opnd(PTX_OPND_REG);
    if (t.len == 1 && t.s[0] == '_') {
      o.kind = PTX_OPND_SINK;
    } else if (t.s[0] == '%') {
      if (!special_reg(&t, &o) && !vector_elem(p, &t, &o)) o.reg = lookup_reg(p, &t);
    } else if (is_reg_name(p, &t)) {
      o.reg = lookup_reg(p, &t);
    } else if (is_branch) {
      o.kind = PTX_OPND_LABEL;
      o.target = (int32_t)p->label_refs.len;
      CC_VEC_PUSH(&p->label_refs, t);
    } else {
      o.kind = PTX_OPND_SYM;
      if (!resolve_symbol(p, t.s, t.len, &o)) push_pending(p, in_elems, &t);
    }
    next(p);
    push_opnd(p, in_elems, o);
  } else {
    expected(p, "an operand");
  }
}

/* Records at as the position of the top-level operands first.. (a bracketed group's
 * first operand gets the '['; the operands inside it were noted by the inner calls). */
static void note_positions(struct parser *p, int in_elems, size_t first,
                           const struct ptx_tok *at) {
  if (in_elems) return;
  while (p->topt.len < p->top.len) CC_VEC_PUSH(&p->topt, *at);
  for (size_t i = first; i < p->top.len; i++)
    if (i == first || !p->top.data[i].brk) p->topt.data[i] = *at;
}

/* An operand and the operands joined to it with '|' (setp p|q, shfl d|p): a loop, so
 * that no input can nest the parser deeply. */
static void parse_operand(struct parser *p, int in_elems, int is_branch) {
  size_t first = p->top.len;
  struct ptx_tok at = p->tok;
  parse_operand_one(p, in_elems, is_branch);
  note_positions(p, in_elems, first, &at);
  while (is_punct(p, '|')) {
    next(p);
    size_t before = in_elems ? p->elems.len : p->top.len;
    at = p->tok;
    parse_operand_one(p, in_elems, 0);
    note_positions(p, in_elems, before, &at);
    if (in_elems) p->elems.data[before].pipe = 1;
    else p->top.data[before].pipe = 1;
  }
}

/* call[.uni] [(rets),] target [, (args)] [, prototype] */
static void parse_call(struct parser *p, struct ptx_insn *in) {
  size_t nret = 0;
  if (accept_punct(p, '(')) {
    if (!is_punct(p, ')')) {
      do {
        parse_operand(p, 0, 0);
      } while (accept_punct(p, ','));
    }
    expect_punct(p, ')');
    nret = p->top.len;
    expect_punct(p, ',');
  }
  struct ptx_tok callee = expect_ident(p, "a function name");
  if (is_reg_name(p, &callee)) {
    struct ptx_operand o = new_opnd(PTX_OPND_REG);
    o.reg = lookup_reg(p, &callee);
    push_opnd(p, 0, o);
  } else {
    in->callee = map_get(&p->mfuncs, callee.s, callee.len);
    if (in->callee < 0) {
      struct fixup fx = {p->fi, cur_fn(p)->ninsns - 1, callee.s, callee.len, callee.line,
                         callee.col};
      CC_VEC_PUSH(&p->call_fix, fx);
    }
  }
  if (accept_punct(p, ',')) {
    if (accept_punct(p, '(')) {
      if (!is_punct(p, ')')) {
        do {
          parse_operand(p, 0, 0);
        } while (accept_punct(p, ','));
      }
      expect_punct(p, ')');
      if (accept_punct(p, ',')) {
        struct ptx_tok proto = expect_ident(p, "a prototype name");
        in->call_proto = cc_xstrndup(proto.s, proto.len);
      }
    } else {
      struct ptx_tok proto = expect_ident(p, "'(' or a prototype name");
      in->call_proto = cc_xstrndup(proto.s, proto.len);
    }
  }
  if (nret > 255) fail_at(p, callee.line, callee.col, "too many return parameters");
  in->call_nret = (uint8_t)nret;
}

/* Moves the parsed operands into the function (top-level first, then the vector
 * elements) and turns pending names into module fixups. */
static void commit_operands(struct parser *p, struct ptx_insn *in, const struct ptx_tok *op) {
  struct ptx_function *f = cur_fn(p);
  if (p->top.len > 255) fail_at(p, op->line, op->col, "too many operands");
  size_t base = f->nopnds, n = p->top.len + p->elems.len;
  while (f->nopnds + n > p->cap_opnds) {
    p->cap_opnds = p->cap_opnds ? p->cap_opnds * 2 : 64;
    f->opnds = cc_xrealloc(f->opnds, p->cap_opnds * sizeof *f->opnds);
  }
  for (size_t i = 0; i < p->top.len; i++) {
    struct ptx_operand o = p->top.data[i];
    if (o.kind == PTX_OPND_VEC) o.first += (int32_t)(base + p->top.len);
    f->opnds[base + i] = o;
  }
  for (size_t i = 0; i < p->elems.len; i++) f->opnds[base + p->top.len + i] = p->elems.data[i];
  f->nopnds += (uint32_t)n;
  in->opnd = (uint32_t)base;
  in->nopnds = (uint8_t)p->top.len;
  for (size_t i = 0; i < p->pend.len; i++) {
    struct pending *pd = &p->pend.data[i];
    uint32_t idx = (uint32_t)(base + pd->idx + (pd->in_elems ? p->top.len : 0));
    struct fixup fx = {p->fi, idx, pd->tok.s, pd->tok.len, pd->tok.line, pd->tok.col};
    CC_VEC_PUSH(&p->sym_fix, fx);
  }
}

/* Checks the parsed operands of in against its row's shape (ptx_shape.c); fails at the
 * token the check names. */
static void check_shape(struct parser *p, const struct ptx_insn *in, const struct ptx_tok *op) {
  struct ptx_shape_fail f;
  if (ptx_check_shape(in, op, p->top.data, p->top.len, p->topt.data, p->elems.data,
                      cur_fn(p)->regs, p->m->address_size, &f) != 0)
    fail_at(p, f.line, f.col, "%s", f.msg);
}

/* [@[!]%p] opcode[.mods] operands ; */
static void parse_insn(struct parser *p) {
  struct ptx_function *f = cur_fn(p);
  int32_t guard = -1;
  int guard_neg = 0;
  if (accept_punct(p, '@')) {
    guard_neg = accept_punct(p, '!');
    if (!is_reg_name(p, &p->tok)) expected(p, "a predicate register");
    guard = lookup_reg(p, &p->tok);
    char why[200];
    if (!ptx_check_guard(&f->regs[guard], why, sizeof why))
      fail_at(p, p->tok.line, p->tok.col, "%s", why);
    next(p);
  }
  struct ptx_tok op = p->tok;
  if (op.kind != PTX_TOK_IDENT) expected(p, "an instruction");
  const char *dot = memchr(op.s, '.', op.len);
  size_t blen = dot ? (size_t)(dot - op.s) : op.len;
  enum ptx_opcode code = ptx_op_lookup(op.s, blen);
  if (code == PTX_OP_COUNT) {
    char d[64];
    tok_desc(&op, d, sizeof d);
    fail_at(p, op.line, op.col, "unknown instruction %s", d);
  }
  GROW(f->insns, f->ninsns, p->cap_insns);
  struct ptx_insn *in = &f->insns[f->ninsns];
  memset(in, 0, sizeof *in);
  in->opcode_text = cc_xstrndup(op.s, op.len);
  f->ninsns++; /* counted now so that its strings are freed on error */
  in->op = (uint16_t)code;
  in->vec = 1;
  in->guard = guard;
  in->guard_neg = (uint8_t)guard_neg;
  in->loc = p->cur_loc;
  in->callee = -1;
  in->line = op.line;
  in->column = op.col;
  ptx_decode_modifiers(in, in->opcode_text);
  int32_t form = map_get(&p->forms, in->opcode_text, op.len);
  if (form >= 0) {
    in->flags |= (uint32_t)form;
  } else {
    char why[600];
    uint32_t off;
    if (!ptx_check_modifiers(in, why, sizeof why, &off))
      fail_at(p, op.line, op.col + off, "%s", why);
    *map_slot(&p->forms, in->opcode_text, op.len) = (int32_t)(in->flags & PTX_F_XTYPE);
  }
  next(p);
  p->top.len = p->elems.len = p->pend.len = p->topt.len = 0;
  if (code == PTX_OP_CALL) {
    parse_call(p, in);
  } else if (is_punct(p, '}') || p->tok.kind == PTX_TOK_EOF) {
    expected(p, "';'"); /* a missing terminator, more likely than missing operands */
  } else if (!is_punct(p, ';')) {
    do {
      parse_operand(p, 0, code == PTX_OP_BRA);
    } while (accept_punct(p, ','));
  }
  expect_punct(p, ';');
  check_shape(p, in, &op);
  commit_operands(p, in, &op);
}

/* .loc file line column [, function_name NAME, inlined_at file line column] */
static void parse_loc(struct parser *p) {
  next(p);
  struct ptx_loc l;
  memset(&l, 0, sizeof l);
  l.file = expect_u32(p, "a file number");
  l.line = expect_u32(p, "a line number");
  l.column = expect_u32(p, "a column number");
  struct ptx_tok fn = {0};
  while (accept_punct(p, ',')) {
    struct ptx_tok key = expect_ident(p, "a .loc attribute");
    if (tok_is(&key, "function_name")) {
      fn = expect_ident(p, "a function name label");
    } else if (tok_is(&key, "inlined_at")) {
      l.inl_file = expect_u32(p, "a file number");
      l.inl_line = expect_u32(p, "a line number");
      l.inl_column = expect_u32(p, "a column number");
    } else if (p->tok.kind == PTX_TOK_INT) {
      next(p); /* is_stmt 0, discriminator N: not kept */
    }
  }
  struct ptx_function *f = cur_fn(p);
  GROW(f->locs, f->nlocs, p->cap_locs);
  l.insn = f->ninsns;
  if (fn.len) l.function_name = cc_xstrndup(fn.s, fn.len);
  f->locs[f->nlocs++] = l;
  /* nvcc writes line 0 for code merged from several source lines (two loads combined
   * into one, a shared subexpression): no line of its own. Its instructions keep the
   * nearest preceding .loc of the function with a real line, so that reports never name
   * line 0; with none before it they get the line-0 .loc (reports: "line unknown"). The
   * directive itself stays in f->locs, and the printer writes it where it stood. */
  if (l.line != 0 || p->cur_loc < 0 || f->locs[p->cur_loc].line == 0)
    p->cur_loc = (int32_t)(f->nlocs - 1);
  add_mark(p, PTX_MARK_LOC, f->nlocs - 1);
}

/* NAME: .callprototype ... ;  kept verbatim */
static void parse_proto(struct parser *p, const struct ptx_tok *label) {
  while (!is_punct(p, ';')) {
    if (p->tok.kind == PTX_TOK_EOF) expected(p, "';'");
    next(p);
  }
  size_t n = (size_t)(p->tok.s + 1 - label->s);
  str_append(&cur_fn(p)->protos, label->s, n, "\n");
  next(p);
}

static void define_label(struct parser *p, const struct ptx_tok *t) {
  struct ptx_function *f = cur_fn(p);
  if (map_get(&p->labels, t->s, t->len) >= 0) {
    char d[64];
    tok_desc(t, d, sizeof d);
    fail_at(p, t->line, t->col, "label %s defined twice", d);
  }
  GROW(f->labels, f->nlabels, p->cap_labels);
  f->labels[f->nlabels].name = cc_xstrndup(t->s, t->len);
  f->labels[f->nlabels].insn = f->ninsns;
  f->nlabels++;
  add_mark(p, PTX_MARK_LABEL, f->nlabels - 1);
  *map_slot(&p->labels, f->labels[f->nlabels - 1].name, t->len) = (int32_t)(f->nlabels - 1);
}

/* Branch targets: LABEL operands hold an index into label_refs until the body ends. */
static void resolve_labels(struct parser *p) {
  struct ptx_function *f = cur_fn(p);
  /* a name of this function's labels used as a value: only branches take labels */
  for (size_t i = 0; i < p->sym_fix.len; i++) {
    const struct fixup *fx = &p->sym_fix.data[i];
    if (fx->func == p->fi && map_get(&p->labels, fx->name, fx->len) >= 0)
      fail_at(p, fx->line, fx->col,
              "label '%.*s' used as an operand value; only bra takes a label",
              (int)(fx->len > 200 ? 200 : fx->len), fx->name);
  }
  for (uint32_t i = 0; i < f->nopnds; i++) {
    struct ptx_operand *o = &f->opnds[i];
    if (o->kind != PTX_OPND_LABEL) continue;
    const struct ptx_tok *t = &p->label_refs.data[o->target];
    int32_t l = map_get(&p->labels, t->s, t->len);
    if (l < 0) {
      char d[64];
      tok_desc(t, d, sizeof d);
      fail_at(p, t->line, t->col, "undefined label %s", d);
    }
    o->var = l;
    o->target = (int32_t)f->labels[l].insn;
  }
}

/* .pragma "text"; inside a body, kept with its position. */
static void parse_body_pragma(struct parser *p) {
  next(p);
  if (p->tok.kind != PTX_TOK_STRING) expected(p, "a string");
  struct ptx_function *f = cur_fn(p);
  GROW(f->pragmas, f->npragmas, p->cap_pragmas);
  struct ptx_pragma *pr = &f->pragmas[f->npragmas++];
  pr->text = cc_xstrndup(p->tok.s, p->tok.len);
  pr->insn = f->ninsns;
  pr->labels_before = f->nlabels;
  add_mark(p, PTX_MARK_PRAGMA, f->npragmas - 1);
  next(p);
  expect_punct(p, ';');
}

/* { statements } of a function; the current token is '{'. */
static void parse_body(struct parser *p) {
  next(p);
  size_t depth = 1;
  p->cur_loc = -1;
  for (;;) {
    if (is_punct(p, '}')) {
      next(p);
      if (--depth == 0) break;
      scope_pop(p);
    } else if (is_punct(p, '{')) {
      next(p);
      depth++;
      scope_push(p);
    } else if (is_dir(p, ".reg")) {
      parse_reg_decl(p);
    } else if (dir_space(&p->tok) != PTX_SPACE_COUNT) {
      parse_var_decl(p, 1, 0, 0, 0);
    } else if (is_dir(p, ".loc")) {
      parse_loc(p);
    } else if (is_dir(p, ".pragma")) {
      parse_body_pragma(p);
    } else if (p->tok.kind == PTX_TOK_IDENT && peek(p).kind == PTX_TOK_PUNCT &&
               peek(p).s[0] == ':') {
      struct ptx_tok label = p->tok;
      next(p);
      next(p);
      if (is_dir(p, ".callprototype")) parse_proto(p, &label);
      else define_label(p, &label);
    } else if (p->tok.kind == PTX_TOK_IDENT || is_punct(p, '@')) {
      parse_insn(p);
    } else {
      expected(p, "an instruction, a declaration or '}'");
    }
  }
  resolve_labels(p);
}

/* .param [.align N] [.ptr ...] .type name[N] */
static uint32_t parse_param(struct parser *p) {
  if (!is_dir(p, ".param")) expected(p, "'.param'");
  struct var_attrs a = {PTX_SPACE_PARAM, PTX_TYPE_NONE, 0, 0};
  next(p);
  parse_var_attrs(p, &a);
  struct ptx_function *f = cur_fn(p);
  GROW(f->vars, f->nvars, p->cap_fvars);
  struct ptx_var *v = &f->vars[f->nvars];
  memset(v, 0, sizeof *v);
  f->nvars++;
  int unsized;
  parse_var_name(p, &a, v, &unsized);
  v->scope = -1;
  v->instance = next_instance(&p->var_count, v->name);
  scoped_bind(p, &p->fvars, v->name, (int32_t)(f->nvars - 1));
  return f->nvars - 1;
}

static void parse_param_list(struct parser *p, uint32_t **list, uint32_t *n) {
  expect_punct(p, '(');
  size_t cap = 0;
  if (!is_punct(p, ')')) {
    do {
      uint32_t v = parse_param(p);
      GROW(*list, *n, cap);
      (*list)[(*n)++] = v;
    } while (accept_punct(p, ','));
  }
  expect_punct(p, ')');
}

/* Resets the per-function parser state. */
static void function_state_reset(struct parser *p) {
  map_clear(&p->regs);
  map_clear(&p->fvars);
  map_clear(&p->labels);
  map_clear(&p->reg_count);
  map_clear(&p->var_count);
  p->undo.len = p->scopes.len = p->label_refs.len = 0;
  p->cap_fvars = p->cap_regs = p->cap_insns = p->cap_opnds = p->cap_labels = p->cap_locs = 0;
  p->cap_pragmas = p->cap_scopes = p->cap_marks = 0;
  p->cur_scope = -1;
  p->cur_loc = -1;
}

static int is_perf_directive(const struct parser *p) {
  static const char *const names[] = {
      ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".noreturn",
      ".explicitcluster", ".reqnctapercluster", ".maxclusterrank", ".blocksareclusters",
      ".pragma", NULL};
  for (int i = 0; names[i]; i++)
    if (is_dir(p, names[i])) return 1;
  return 0;
}

/* (.entry|.func) [(rets)] name [(params)] [directives] ( { body } | ; ) */
static void parse_function(struct parser *p, int is_extern, int is_visible, int is_weak) {
  int is_entry = is_dir(p, ".entry");
  next(p);
  /* the return parameters come before the name: parse them into a fresh function
   * first, then look the name up */
  struct ptx_module *m = p->m;
  GROW(m->funcs, m->nfuncs, p->cap_funcs);
  p->fi = m->nfuncs;
  struct ptx_function *f = &m->funcs[m->nfuncs];
  memset(f, 0, sizeof *f);
  m->nfuncs++;
  function_state_reset(p);
  f->is_entry = is_entry;
  f->is_extern = is_extern;
  f->is_visible = is_visible;
  f->is_weak = is_weak;
  f->line = p->tok.line;
  if (!is_entry && is_punct(p, '(')) parse_param_list(p, &f->ret_vars, &f->nret);
  struct ptx_tok name = expect_ident(p, "a function name");
  f->name = cc_xstrndup(name.s, name.len);
  if (is_punct(p, '(')) parse_param_list(p, &f->param_vars, &f->nparams);
  while (is_perf_directive(p)) {
    /* kept verbatim from the directive to the end of its last value */
    const char *start = p->tok.s, *end = p->tok.s + p->tok.len;
    int pragma = is_dir(p, ".pragma");
    next(p);
    if (pragma) {
      if (p->tok.kind != PTX_TOK_STRING) expected(p, "a string");
      next(p);
      if (!is_punct(p, ';')) expected(p, "';'");
      end = p->tok.s + 1;
      next(p);
    } else {
      while (p->tok.kind == PTX_TOK_INT) {
        end = p->tok.s + p->tok.len;
        next(p);
        if (!accept_punct(p, ',')) break;
      }
    }
    str_append(&f->directives, start, (size_t)(end - start), "\n");
  }
  int has_body = is_punct(p, '{');
  if (!has_body && !is_punct(p, ';')) expected(p, "'{' or ';'");
  int32_t old = map_get(&p->mfuncs, f->name, name.len);
  int drop_last = 0;
  if (old < 0) {
    *map_slot(&p->mfuncs, f->name, name.len) = (int32_t)p->fi;
  } else if (has_body && m->funcs[old].has_body) {
    char d[64];
    tok_desc(&name, d, sizeof d);
    fail_at(p, name.line, name.col, "function %s defined twice", d);
  } else if (has_body) {
    /* the definition of a function declared before: it takes the declaration's index
     * (callers resolved to it); the declaration's contents move last and are dropped.
     * The name string stays in place: the function map points at it. */
    struct ptx_function tmp = m->funcs[old];
    m->funcs[old] = *f;
    *f = tmp;
    char *keep = m->funcs[old].name;
    m->funcs[old].name = f->name;
    f->name = keep;
    p->fi = (uint32_t)old;
    drop_last = 1;
  } else {
    drop_last = 1; /* a repeated declaration */
  }
  uint32_t index = old < 0 ? p->fi : (uint32_t)old;
  GROW(m->items, m->nitems, p->cap_items);
  m->items[m->nitems++] =
      (struct ptx_item){(uint8_t)(has_body ? PTX_ITEM_FUNC_DEF : PTX_ITEM_FUNC_DECL), index};
  if (has_body) {
    m->funcs[p->fi].has_body = 1;
    parse_body(p);
  } else {
    next(p);
  }
  if (drop_last) {
    /* free the last entry through the public destructor, moved into a scratch module */
    struct ptx_module *scratch = cc_xcalloc(1, sizeof *scratch);
    scratch->funcs = cc_xmalloc(sizeof *scratch->funcs);
    scratch->funcs[0] = m->funcs[--m->nfuncs];
    scratch->nfuncs = 1;
    ptx_module_free(scratch);
  }
}

/* ---- module ---------------------------------------------------------------------- */

static void parse_file_directive(struct parser *p) {
  next(p);
  struct ptx_module *m = p->m;
  uint32_t id = expect_u32(p, "a file number");
  if (p->tok.kind != PTX_TOK_STRING) expected(p, "a file name string");
  struct ptx_tok path = p->tok;
  next(p);
  GROW(m->files, m->nfiles, p->cap_files);
  struct ptx_file_entry *fe = &m->files[m->nfiles];
  memset(fe, 0, sizeof *fe);
  fe->id = id;
  fe->path = cc_xstrndup(path.s + 1, path.len - 2);
  m->nfiles++;
  if (is_punct(p, ',')) {
    next(p);
    const char *start = p->tok.s;
    const char *end = start;
    do {
      if (p->tok.kind != PTX_TOK_INT) expected(p, "a number");
      end = p->tok.s + p->tok.len;
      next(p);
    } while (accept_punct(p, ','));
    fe->rest = cc_xstrndup(start, (size_t)(end - start));
  }
}

static void parse_section(struct parser *p) {
  const char *start = p->tok.s;
  struct ptx_tok at = p->tok;
  size_t end = ptx_lex_skip_block(&p->lx);
  if (end == (size_t)-1)
    fail_at(p, at.line, at.col, "unterminated .section block (no closing '}')");
  /* kept as a C string and printed back verbatim: a NUL byte would cut it short */
  if (memchr(start, '\0', (size_t)(p->lx.text + end - start)))
    fail_at(p, at.line, at.col, "NUL byte inside a .section block; PTX is text");
  str_append(&p->m->sections, start, (size_t)(p->lx.text + end - start), "\n");
  next(p);
}

/* Text of a header directive's value tokens up to the end of its line items. */
static char *header_value(struct parser *p, const char *what) {
  next(p);
  if (p->tok.kind != PTX_TOK_IDENT && p->tok.kind != PTX_TOK_F64 && p->tok.kind != PTX_TOK_INT)
    expected(p, what);
  const char *start = p->tok.s, *end = start;
  do {
    if (p->tok.kind != PTX_TOK_IDENT && p->tok.kind != PTX_TOK_F64 && p->tok.kind != PTX_TOK_INT)
      expected(p, what);
    end = p->tok.s + p->tok.len;
    next(p);
  } while (accept_punct(p, ','));
  return cc_xstrndup(start, (size_t)(end - start));
}

static void resolve_module(struct parser *p) {
  struct ptx_module *m = p->m;
  for (size_t i = 0; i < p->call_fix.len; i++) {
    struct fixup *fx = &p->call_fix.data[i];
    int32_t fn = map_get(&p->mfuncs, fx->name, fx->len);
    if (fn < 0)
      fail_at(p, fx->line, fx->col, "undefined function '%.*s'",
              (int)(fx->len > 200 ? 200 : fx->len), fx->name);
    m->funcs[fx->func].insns[fx->index].callee = fn;
  }
  for (size_t i = 0; i < p->sym_fix.len; i++) {
    struct fixup *fx = &p->sym_fix.data[i];
    struct ptx_operand *o = &m->funcs[fx->func].opnds[fx->index];
    int32_t k;
    if ((k = map_get(&p->mvars, fx->name, fx->len)) >= 0) {
      o->var = k;
      o->var_scope = PTX_SCOPE_MODULE;
    } else if ((k = map_get(&p->mfuncs, fx->name, fx->len)) >= 0 && o->kind != PTX_OPND_ADDR) {
      o->var = k;
      o->is_func = 1;
    } else {
      fail_at(p, fx->line, fx->col, "undefined symbol '%.*s'",
              (int)(fx->len > 200 ? 200 : fx->len), fx->name);
    }
  }
}

static void parse_module(struct parser *p) {
  next(p);
  while (p->tok.kind != PTX_TOK_EOF) {
    int is_extern = 0, is_visible = 0, is_weak = 0;
    for (;;) {
      if (is_dir(p, ".extern")) is_extern = 1;
      else if (is_dir(p, ".visible")) is_visible = 1;
      else if (is_dir(p, ".weak") || is_dir(p, ".common")) is_weak = 1;
      else break;
      next(p);
    }
    int linkage = is_extern || is_visible || is_weak;
    if (is_dir(p, ".entry") || is_dir(p, ".func")) {
      parse_function(p, is_extern, is_visible, is_weak);
    } else if (dir_space(&p->tok) != PTX_SPACE_COUNT && !is_dir(p, ".param")) {
      parse_var_decl(p, 0, is_extern, is_visible, is_weak);
    } else if (linkage) {
      expected(p, "'.entry', '.func' or a variable declaration");
    } else if (is_dir(p, ".version")) {
      free(p->m->version);
      p->m->version = NULL;
      p->m->version = header_value(p, "a version number");
    } else if (is_dir(p, ".target")) {
      free(p->m->target);
      p->m->target = NULL;
      p->m->target = header_value(p, "a target name");
    } else if (is_dir(p, ".address_size")) {
      next(p);
      struct ptx_tok t = p->tok;
      p->m->address_size = expect_u32(p, "an address size");
      if (p->m->address_size != 32 && p->m->address_size != 64)
        fail_at(p, t.line, t.col, "address size must be 32 or 64");
    } else if (is_dir(p, ".file")) {
      parse_file_directive(p);
    } else if (is_dir(p, ".section")) {
      parse_section(p);
    } else if (is_dir(p, ".pragma")) {
      next(p);
      if (p->tok.kind != PTX_TOK_STRING) expected(p, "a string");
      struct ptx_module *m = p->m;
      GROW(m->pragmas, m->npragmas, p->cap_mpragmas);
      m->pragmas[m->npragmas++] = cc_xstrndup(p->tok.s, p->tok.len);
      GROW(m->items, m->nitems, p->cap_items);
      m->items[m->nitems++] = (struct ptx_item){PTX_ITEM_PRAGMA, m->npragmas - 1};
      next(p);
      expect_punct(p, ';');
    } else {
      expected(p, "a directive");
    }
  }
  if (!p->m->version) fail_at(p, 1, 1, "missing .version directive");
  if (!p->m->target) fail_at(p, 1, 1, "missing .target directive");
  resolve_module(p);
}

static void parser_release(struct parser *p) {
  map_clear(&p->mvars);
  map_clear(&p->mfuncs);
  map_clear(&p->forms);
  function_state_reset(p);
  CC_VEC_FREE(&p->sym_fix);
  CC_VEC_FREE(&p->call_fix);
  CC_VEC_FREE(&p->undo);
  CC_VEC_FREE(&p->scopes);
  CC_VEC_FREE(&p->label_refs);
  CC_VEC_FREE(&p->top);
  CC_VEC_FREE(&p->topt);
  CC_VEC_FREE(&p->elems);
  CC_VEC_FREE(&p->pend);
  CC_VEC_FREE(&p->ivals);
  CC_VEC_FREE(&p->inegs);
}

int ptx_parse(const char *text, size_t len, const char *path, struct ptx_module **out,
              struct cc_err *err) {
  *out = NULL;
  struct parser *p = cc_xcalloc(1, sizeof *p);
  p->path = path ? path : "<input>";
  p->err = err;
  ptx_lex_init(&p->lx, text, len);
  p->m = cc_xcalloc(1, sizeof *p->m);
  p->m->path = cc_xstrdup(p->path);
  p->m->address_size = 64;
  if (setjmp(p->jb)) {
    ptx_module_free(p->m);
    parser_release(p);
    free(p);
    return CC_ERR_INPUT;
  }
  parse_module(p);
  *out = p->m;
  parser_release(p);
  free(p);
  return CC_OK;
}

int ptx_parse_file(const char *path, struct ptx_module **out, struct cc_err *err) {
  char *text;
  size_t len;
  *out = NULL;
  int rc = cc_file_read(path, &text, &len, err);
  if (rc) return rc;
  rc = ptx_parse(text, len, path, out, err);
  free(text);
  return rc;
}
