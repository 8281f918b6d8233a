/* The --arg spec: parsing, size expressions, initialisers. See launch.h. */
#include "launch/launch.h"
#include "launch/launch_impl.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/mem.h"

static const struct {
  const char *name;
  enum ptx_type type;
} buffer_types[] = {
  {"u8", PTX_TYPE_U8},   {"u16", PTX_TYPE_U16}, {"u32", PTX_TYPE_U32}, {"u64", PTX_TYPE_U64},
  {"s8", PTX_TYPE_S8},   {"s16", PTX_TYPE_S16}, {"s32", PTX_TYPE_S32}, {"s64", PTX_TYPE_S64},
  {"f16", PTX_TYPE_F16}, {"f32", PTX_TYPE_F32}, {"f64", PTX_TYPE_F64},
};

enum ptx_type cc_launch_type_parse(const char *name, size_t len)
{
  for (size_t i = 0; i < sizeof buffer_types / sizeof buffer_types[0]; i++)
    if (strlen(buffer_types[i].name) == len && memcmp(buffer_types[i].name, name, len) == 0)
      return buffer_types[i].type;
  return PTX_TYPE_NONE;
}

unsigned cc_launch_type_size(enum ptx_type t)
{
  for (size_t i = 0; i < sizeof buffer_types / sizeof buffer_types[0]; i++)
    if (buffer_types[i].type == t)
      return cc_launch_scalar_size(t);
  return 0;
}

/* Name of a buffer type for messages. */
static const char *type_name(enum ptx_type t)
{
  for (size_t i = 0; i < sizeof buffer_types / sizeof buffer_types[0]; i++)
    if (buffer_types[i].type == t)
      return buffer_types[i].name;
  return "?";
}

static size_t ident_len(const char *s)
{
  size_t n = 0;
  if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
    return 0;
  while (isalnum((unsigned char)s[n]) || s[n] == '_')
    n++;
  return n;
}

/* ---- size expressions ---------------------------------------------------------------- */

/* Recursive descent over: expr = term {(+|-) term}; term = unary {(*|/|%) unary};
 * unary = - unary | ( expr ) | literal | name. With check_only, names are not looked up
 * and no arithmetic is done: only the syntax is checked. The recursion goes one level
 * down per '(' and per unary '-', at most CC_LAUNCH_MAX_NESTING levels: the stack, not
 * the input, bounds it. */
struct expr {
  const char *text, *p;
  const struct cc_launch_arg *args;
  size_t nargs;
  int check_only;
  struct cc_err *err;
  enum cc_status fail; /* status for errors */
  unsigned depth;      /* '(' and unary '-' open around the current position */
};

/* Text quoted in a message, shortened to its first 60 characters and "..." when longer,
 * so that the reason after it is not cut off (a message holds CC_ERR_MSG_MAX bytes). */
struct shown {
  char s[64];
};

static struct shown shorten(const char *text)
{
  struct shown out;
  size_t n = strlen(text);
  if (n < sizeof out.s)
    memcpy(out.s, text, n + 1);
  else
    snprintf(out.s, sizeof out.s, "%.60s...", text);
  return out;
}

static int expr_sum(struct expr *e, int64_t *out);

static void skip_blanks(struct expr *e)
{
  while (*e->p == ' ' || *e->p == '\t')
    e->p++;
}

static int expr_error(struct expr *e, const char *what)
{
  return cc_err_set(e->err, e->fail, "bad size expression '%s' at column %d: %s",
                    shorten(e->text).s, (int)(e->p - e->text) + 1, what);
}

/* Enters one level of '(' or unary '-' (expr_unary leaves it). */
static int expr_enter(struct expr *e)
{
  char what[96];
  if (++e->depth <= CC_LAUNCH_MAX_NESTING)
    return CC_OK;
  snprintf(what, sizeof what, "nested deeper than %d levels of '(' and unary '-'; simplify "
           "the expression", CC_LAUNCH_MAX_NESTING);
  return expr_error(e, what);
}

static int lookup_name(struct expr *e, const char *name, size_t len, int64_t *out)
{
  for (size_t i = 0; i < e->nargs; i++) {
    const struct cc_launch_arg *a = &e->args[i];
    if (!a->name || strlen(a->name) != len || memcmp(a->name, name, len) != 0)
      continue;
    if (a->is_buffer)
      return cc_err_set(e->err, CC_ERR_INPUT,
                        "bad size expression '%s': '%.*s' is a buffer, not a scalar",
                        shorten(e->text).s, (int)len, name);
    if (cc_launch_parse_i64(a->value, out) != 0)
      return cc_err_set(e->err, CC_ERR_INPUT,
                        "bad size expression '%s': scalar '%.*s' = '%s' is not a 64-bit "
                        "integer", shorten(e->text).s, (int)len, name, a->value);
    return CC_OK;
  }
  return cc_err_set(e->err, CC_ERR_INPUT,
                    "bad size expression '%s': unknown name '%.*s'; size expressions may "
                    "use the names of scalar arguments (NAME=VALUE)", shorten(e->text).s,
                    (int)len, name);
}

static int expr_unary(struct expr *e, int64_t *out)
{
  skip_blanks(e);
  if (*e->p == '-') {
    int64_t v;
    int rc;
    e->p++;
    if ((rc = expr_enter(e)) != CC_OK || (rc = expr_unary(e, &v)) != CC_OK)
      return rc;
    e->depth--;
    if (!e->check_only && __builtin_sub_overflow((int64_t)0, v, out))
      return expr_error(e, "64-bit overflow");
    return CC_OK;
  }
  if (*e->p == '(') {
    int rc;
    e->p++;
    if ((rc = expr_enter(e)) != CC_OK || (rc = expr_sum(e, out)) != CC_OK)
      return rc;
    e->depth--;
    skip_blanks(e);
    if (*e->p != ')')
      return expr_error(e, "expected ')'");
    e->p++;
    return CC_OK;
  }
  if (isdigit((unsigned char)*e->p)) {
    char lit[64];
    size_t n = 0;
    while (isalnum((unsigned char)e->p[n]))
      n++;
    if (n >= sizeof lit)
      return expr_error(e, "number too long");
    memcpy(lit, e->p, n);
    lit[n] = '\0';
    if (cc_launch_parse_i64(lit, out) != 0)
      return expr_error(e, "bad number (decimal or 0x hex, below 2^63)");
    e->p += n;
    return CC_OK;
  }
  {
    size_t n = ident_len(e->p);
    int rc;
    if (n == 0)
      return expr_error(e, *e->p ? "expected a number, a name or '('" : "unexpected end");
    *out = 0;
    if (!e->check_only && (rc = lookup_name(e, e->p, n, out)) != CC_OK)
      return rc;
    e->p += n;
    return CC_OK;
  }
}

static int expr_product(struct expr *e, int64_t *out)
{
  int rc = expr_unary(e, out);
  while (rc == CC_OK) {
    char op;
    int64_t r;
    const char *at;
    skip_blanks(e);
    op = *e->p;
    if (op != '*' && op != '/' && op != '%')
      break;
    at = e->p++;
    if ((rc = expr_unary(e, &r)) != CC_OK)
      break;
    if (e->check_only)
      continue;
    if (op == '*') {
      if (__builtin_mul_overflow(*out, r, out))
        return e->p = at, expr_error(e, "64-bit overflow");
    } else if (r == 0) {
      return e->p = at, expr_error(e, "division by zero");
    } else if (*out == INT64_MIN && r == -1) {
      return e->p = at, expr_error(e, "64-bit overflow");
    } else {
      *out = op == '/' ? *out / r : *out % r;
    }
  }
  return rc;
}

static int expr_sum(struct expr *e, int64_t *out)
{
  int rc = expr_product(e, out);
  while (rc == CC_OK) {
    char op;
    int64_t r;
    const char *at;
    skip_blanks(e);
    op = *e->p;
    if (op != '+' && op != '-')
      break;
    at = e->p++;
    if ((rc = expr_product(e, &r)) != CC_OK)
      break;
    if (!e->check_only && (op == '+' ? __builtin_add_overflow(*out, r, out)
                                     : __builtin_sub_overflow(*out, r, out)))
      return e->p = at, expr_error(e, "64-bit overflow");
  }
  return rc;
}

/* Parses (and unless check_only evaluates) the whole of text. */
static int expr_run(struct expr *e, int64_t *out)
{
  int rc;
  e->p = e->text;
  e->depth = 0;
  if ((rc = expr_sum(e, out)) != CC_OK)
    return rc;
  skip_blanks(e);
  if (*e->p != '\0')
    return expr_error(e, "unexpected character");
  return CC_OK;
}

int cc_launch_eval_size(const char *expr, const struct cc_launch_arg *args, size_t nargs,
                        uint64_t *out, struct cc_err *err)
{
  struct expr e = {expr, expr, args, nargs, 0, err, CC_ERR_INPUT, 0};
  int64_t v = 0;
  int rc = expr_run(&e, &v);
  if (rc != CC_OK)
    return rc;
  if (v < 0)
    return cc_err_set(err, CC_ERR_INPUT, "size expression '%s' is negative (%lld)",
                      shorten(expr).s, (long long)v);
  *out = (uint64_t)v;
  return CC_OK;
}

/* ---- the spec ------------------------------------------------------------------------ */

void cc_launch_arg_release(struct cc_launch_arg *a)
{
  free(a->name);
  free(a->text);
  free(a->value);
  free(a->size_expr);
  free(a->init_text);
  free(a->origin);
  cc_launch_layout_release(&a->layout);
  memset(a, 0, sizeof *a);
}

static int bad_arg(struct cc_launch_arg *a, struct cc_err *err, const char *spec,
                   const char *what)
{
  cc_launch_arg_release(a);
  return cc_err_set(err, CC_ERR_USAGE, "bad --arg '%s': %s", shorten(spec).s, what);
}

/* INIT of a buffer spec (the text after "TYPE[SIZE]:"). */
static int parse_init(struct cc_launch_arg *a, const char *init, const char *base_dir,
                      const char *spec, struct cc_err *err)
{
  if (strcmp(init, "zero") == 0) {
    a->init = CC_INIT_ZERO;
  } else if (strcmp(init, "iota") == 0) {
    a->init = CC_INIT_IOTA;
  } else if (strcmp(init, "random") == 0 || strncmp(init, "random:", 7) == 0) {
    uint64_t mag = 0;
    int neg = 0;
    a->init = CC_INIT_RANDOM;
    if (init[6] == ':' && (cc_launch_parse_int(init + 7, &mag, &neg) != 0 || neg))
      return bad_arg(a, err, spec, "the seed of random:SEED must be an integer in 0..2^64-1");
    a->seed = mag;
  } else if (strncmp(init, "file:", 5) == 0) {
    const char *path = init + 5;
    if (*path == '\0')
      return bad_arg(a, err, spec, "file: needs a path");
    a->init = CC_INIT_FILE;
    if (path[0] != '/' && base_dir && *base_dir) {
      a->init_text = cc_xmalloc(strlen(base_dir) + strlen(path) + 2);
      sprintf(a->init_text, "%s/%s", base_dir, path);
    } else {
      a->init_text = cc_xstrdup(path);
    }
  } else if (strncmp(init, "const:", 6) == 0) {
    uint8_t bytes[8];
    char why[160];
    a->init = CC_INIT_CONST;
    if (cc_launch_convert(a->type, init + 6, bytes, why, sizeof why) != 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "const: value %s for %s", why, type_name(a->type));
      return bad_arg(a, err, spec, msg);
    }
    a->init_text = cc_xstrdup(init + 6);
  } else {
    return bad_arg(a, err, spec,
                   "unknown initialiser; use zero, iota, random[:SEED], file:PATH or const:VALUE");
  }
  return CC_OK;
}

/* "offset(BYTES):" at rest, if there (no LAYOUT or INIT starts so), into a->offset;
 * *rest moved past it. */
static int parse_offset(struct cc_launch_arg *a, const char **rest, const char *spec,
                        struct cc_err *err)
{
  unsigned esize = cc_launch_type_size(a->type);
  uint64_t bytes = 0;
  int neg = 0;
  const char *close;
  char digits[32], why[200];
  if (strncmp(*rest, "offset(", 7) != 0)
    return CC_OK;
  if (!(close = strchr(*rest, ')')) || close[1] != ':')
    return bad_arg(a, err, spec, "offset(BYTES) needs its ')' and ':' after it; e.g. "
                   "'offset(4):random'");
  snprintf(digits, sizeof digits, "%.*s", (int)(close - *rest - 7), *rest + 7);
  if ((size_t)(close - *rest - 7) >= sizeof digits || !digits[0] ||
      cc_launch_parse_int(digits, &bytes, &neg) != 0 || neg || bytes > CC_LAUNCH_OFFSET_MAX ||
      bytes % esize != 0) {
    snprintf(why, sizeof why, "offset(BYTES) takes a multiple of the element size (%u bytes) "
             "in 0..%u: the pointer's offset from a 256-byte boundary", esize,
             CC_LAUNCH_OFFSET_MAX);
    return bad_arg(a, err, spec, why);
  }
  a->offset = (uint32_t)bytes;
  *rest = close + 2;
  return CC_OK;
}

/* "[offset(BYTES):][LAYOUT:]INIT" of a buffer spec: a LAYOUT starts with "soa(" (no INIT
 * does) and ends at its ')'. */
static int parse_layout_init(struct cc_launch_arg *a, const char *rest, const char *base_dir,
                             const char *spec, struct cc_err *err)
{
  const char *close;
  char why[160];
  int rc;
  if ((rc = parse_offset(a, &rest, spec, err)) != CC_OK)
    return rc;
  a->init_at = (size_t)(rest - spec);
  if (strncmp(rest, "soa(", 4) != 0)
    return parse_init(a, rest, base_dir, spec, err);
  if (!(close = strchr(rest, ')')))
    return bad_arg(a, err, spec, "missing ')' after the layout soa(...");
  if (cc_launch_layout_parse(rest, (size_t)(close - rest + 1), &a->layout, why, sizeof why) != 0)
    return bad_arg(a, err, spec, why);
  if (close[1] != ':')
    return bad_arg(a, err, spec, "missing ':INIT' after the layout; e.g. 'soa(8,0,4):random'");
  a->init_at = (size_t)(close + 2 - spec);
  return parse_init(a, close + 2, base_dir, spec, err);
}

/* The buffer part "TYPE[SIZE]:[offset(BYTES):][LAYOUT:]INIT" of spec (value points at TYPE). */
static int parse_buffer(struct cc_launch_arg *a, const char *value, const char *base_dir,
                        const char *spec, struct cc_err *err)
{
  const char *lb = strchr(value, '['), *rb;
  int depth = 0;
  struct expr e = {NULL, NULL, NULL, 0, 1, err, CC_ERR_USAGE, 0};
  int64_t dummy;
  a->is_buffer = 1;
  a->type = cc_launch_type_parse(value, (size_t)(lb - value));
  if (a->type == PTX_TYPE_NONE)
    return bad_arg(a, err, spec,
                   "unknown element type; use u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64");
  for (rb = lb; *rb; rb++) { /* the ']' that closes lb */
    depth += *rb == '[';
    depth -= *rb == ']';
    if (depth == 0)
      break;
  }
  if (*rb != ']')
    return bad_arg(a, err, spec, "missing ']' after the size");
  a->size_expr = cc_xstrndup(lb + 1, (size_t)(rb - lb - 1));
  e.text = a->size_expr;
  if (expr_run(&e, &dummy) != CC_OK) {
    char msg[CC_ERR_MSG_MAX];
    if (!err)
      return bad_arg(a, err, spec, "bad size expression");
    memcpy(msg, err->msg, sizeof msg);
    return bad_arg(a, err, spec, msg);
  }
  if (rb[1] != ':')
    return bad_arg(a, err, spec,
                   "missing ':INIT' after the size; e.g. ':zero', ':random' or ':iota'");
  return parse_layout_init(a, rb + 2, base_dir, spec, err);
}

int cc_launch_arg_parse(const char *spec, const char *base_dir, struct cc_launch_arg *out,
                        struct cc_err *err)
{
  size_t n = ident_len(spec);
  const char *value = spec;
  memset(out, 0, sizeof *out);
  out->text = cc_xstrdup(spec);
  if (n > 0 && spec[n] == '=') {
    out->name = cc_xstrndup(spec, n);
    value = spec + n + 1;
  } else if (strchr(spec, '=')) {
    return bad_arg(out, err, spec, "the name before '=' must be an identifier");
  }
  {
    size_t tn = ident_len(value);
    if (tn > 0 && value[tn] == '[') {
      if (!out->name)
        return bad_arg(out, err, spec, "a buffer needs a name: NAME=TYPE[SIZE]:INIT");
      return parse_buffer(out, value, base_dir, spec, err);
    }
  }
  if (*value == '\0')
    return bad_arg(out, err, spec, "missing value");
  out->value = cc_xstrdup(value);
  return CC_OK;
}

/* ---- initialisers -------------------------------------------------------------------- */

/* "buffer 'A': PATH has HAS bytes but the buffer holds ..." (has: "3", "more than 12"). */
static int wrong_file_size(const struct cc_launch_arg *a, uint64_t count, const char *has,
                           struct cc_err *err)
{
  uint64_t bytes = count * cc_launch_type_size(a->type);
  return cc_err_set(err, CC_ERR_INPUT,
                    "buffer '%s': %s has %s bytes but the buffer holds %llu %s elements "
                    "(%llu bytes); the file must hold exactly the buffer, raw little-endian",
                    a->name, a->init_text, has, (unsigned long long)count, type_name(a->type),
                    (unsigned long long)bytes);
}

/* The file: initialiser: the regular file a->init_text must hold exactly count elements.
 * Its size is checked before anything is read (a wrong file costs no time), and it is
 * read straight into dst. */
static int fill_from_file(const struct cc_launch_arg *a, uint64_t count, void *dst,
                          struct cc_err *err)
{
  uint64_t bytes = count * cc_launch_type_size(a->type), size;
  FILE *fp;
  size_t got;
  char has[48], extra;
  int rc = cc_file_open_regular(a->init_text, &fp, &size, err), e;
  if (rc != CC_OK)
    return cc_err_prefix(err, "buffer '%s'", a->name);
  /* a size of 0 may be a file whose size stat does not know (/proc): read it to see */
  if (size != bytes && size != 0) {
    fclose(fp);
    snprintf(has, sizeof has, "%llu", (unsigned long long)size);
    return wrong_file_size(a, count, has, err);
  }
  got = bytes ? fread(dst, 1, (size_t)bytes, fp) : 0;
  if (got == bytes && fread(&extra, 1, 1, fp) == 1) {
    fclose(fp);
    snprintf(has, sizeof has, "more than %llu", (unsigned long long)bytes);
    return wrong_file_size(a, count, has, err);
  }
  e = errno;
  if (ferror(fp)) {
    fclose(fp);
    return cc_err_set(err, CC_ERR_INPUT, "buffer '%s': cannot read %s: %s", a->name,
                      a->init_text, strerror(e));
  }
  fclose(fp);
  if (got == bytes)
    return CC_OK;
  snprintf(has, sizeof has, "%zu", got);
  return wrong_file_size(a, count, has, err);
}

/* Fills count elements at dst per a's initialiser, in the array-of-structures order. */
static int fill_elements(const struct cc_launch_arg *a, uint64_t count, void *dst,
                         uint32_t threads, struct cc_err *err)
{
  unsigned size = cc_launch_type_size(a->type);
  uint8_t *p = dst;
  if (size == 0)
    CC_BUG("cc_launch_fill on a non-buffer argument");
  switch (a->init) {
  case CC_INIT_ZERO:
    memset(dst, 0, (size_t)(count * size));
    return CC_OK;
  case CC_INIT_IOTA:
    for (uint64_t i = 0; i < count; i++)
      cc_launch_iota_element(a->type, i, p + i * size);
    return CC_OK;
  case CC_INIT_RANDOM:
    cc_launch_random_fill_threads(a->type, a->seed, p, count, threads);
    return CC_OK;
  case CC_INIT_CONST: {
    uint8_t v[8];
    char why[160];
    if (cc_launch_convert(a->type, a->init_text, v, why, sizeof why) != 0)
      return cc_err_set(err, CC_ERR_INPUT, "buffer '%s': const: %s", a->name, why);
    for (uint64_t i = 0; i < count; i++)
      memcpy(p + i * size, v, size);
    return CC_OK;
  }
  case CC_INIT_FILE:
    return fill_from_file(a, count, dst, err);
  }
  CC_BUG("unknown initialiser %d", (int)a->init);
}

int cc_launch_fill_threads(const struct cc_launch_arg *a, uint64_t count, void *dst,
                           uint32_t threads, struct cc_err *err)
{
  uint64_t bytes = count * cc_launch_type_size(a->type);
  int rc;
  if ((rc = cc_launch_layout_check(&a->layout, a->name, bytes, err)) != CC_OK ||
      (rc = fill_elements(a, count, dst, threads, err)) != CC_OK)
    return rc;
  cc_launch_layout_apply(&a->layout, dst, bytes, 0);
  return CC_OK;
}

int cc_launch_fill(const struct cc_launch_arg *a, uint64_t count, void *dst,
                   struct cc_err *err)
{
  return cc_launch_fill_threads(a, count, dst, 1, err);
}
