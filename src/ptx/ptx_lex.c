/* coalcheck PTX front end: the lexer. See ptx_lex.h. */
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx_lex.h"

void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len) {
  lx->text = text;
  lx->len = len;
  lx->pos = 0;
  lx->line = 1;
  lx->line_start = 0;
}

/* Byte at offset i, or -1 past the end (the text need not be NUL-terminated). */
static int at(const struct ptx_lexer *lx, size_t i) {
  return i < lx->len ? (unsigned char)lx->text[i] : -1;
}

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_word(int c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }
static int hex_val(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static void newline(struct ptx_lexer *lx, size_t next) {
  lx->line++;
  lx->line_start = next;
}

/* Skips white space and comments; returns 0, or -1 on an unterminated block comment
 * (lx->pos is left at the comment's start). */
static int skip_space(struct ptx_lexer *lx) {
  for (;;) {
    int c = at(lx, lx->pos);
    if (c == '\n') {
      newline(lx, ++lx->pos);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->pos++;
    } else if (c == '/' && at(lx, lx->pos + 1) == '/') {
      while (lx->pos < lx->len && lx->text[lx->pos] != '\n') lx->pos++;
    } else if (c == '/' && at(lx, lx->pos + 1) == '*') {
      size_t i = lx->pos + 2;
      uint32_t line = lx->line;
      size_t ls = lx->line_start;
      for (;;) {
        if (i >= lx->len) return -1;
        if (lx->text[i] == '*' && at(lx, i + 1) == '/') break;
        if (lx->text[i] == '\n') { line++; ls = i + 1; }
        i++;
      }
      lx->pos = i + 2;
      lx->line = line;
      lx->line_start = ls;
    } else {
      return 0;
    }
  }
}

static struct ptx_tok make(struct ptx_lexer *lx, enum ptx_tok_kind k, size_t start) {
  struct ptx_tok t = {0};
  t.kind = k;
  t.s = lx->text + start;
  t.len = (uint32_t)(lx->pos - start);
  t.line = lx->line;
  t.col = (uint32_t)(start - lx->line_start + 1);
  return t;
}

static struct ptx_tok error_tok(struct ptx_lexer *lx, size_t start, const char *msg) {
  struct ptx_tok t = make(lx, PTX_TOK_ERROR, start);
  if (t.len == 0 && start < lx->len) t.len = 1;
  t.msg = msg;
  return t;
}

/* A word with '.'-joined and '::'-joined continuations ("ld.global.f32", "%tid.x",
 * "L1::no_allocate"); dots only when dotted is set (directives are single words). */
static void scan_word(struct ptx_lexer *lx, int dotted) {
  for (;;) {
    while (is_word(at(lx, lx->pos))) lx->pos++;
    if (dotted && at(lx, lx->pos) == '.' && is_word(at(lx, lx->pos + 1))) {
      lx->pos++;
    } else if (at(lx, lx->pos) == ':' && at(lx, lx->pos + 1) == ':' &&
               is_word(at(lx, lx->pos + 2))) {
      lx->pos += 2;
    } else {
      return;
    }
  }
}

/* Exactly n hex digits at pos into *bits; 0 when they are not there. */
static int scan_hex_n(struct ptx_lexer *lx, size_t pos, int n, uint64_t *bits) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) {
    int h = hex_val(at(lx, pos + i));
    if (h < 0) return 0;
    v = v << 4 | (uint64_t)h;
  }
  if (is_word(at(lx, pos + n))) return 0;
  *bits = v;
  return 1;
}

static struct ptx_tok scan_number(struct ptx_lexer *lx) {
  size_t start = lx->pos;
  int c1 = at(lx, start + 1);
  uint64_t bits;
  if (at(lx, start) == '0' && (c1 == 'f' || c1 == 'F')) {
    if (!scan_hex_n(lx, start + 2, 8, &bits)) {
      scan_word(lx, 0);
      return error_tok(lx, start, "malformed float constant (0f takes 8 hex digits)");
    }
    lx->pos = start + 10;
    struct ptx_tok t = make(lx, PTX_TOK_F32, start);
    t.ival = bits;
    return t;
  }
  if (at(lx, start) == '0' && (c1 == 'd' || c1 == 'D')) {
    if (!scan_hex_n(lx, start + 2, 16, &bits)) {
      scan_word(lx, 0);
      return error_tok(lx, start, "malformed double constant (0d takes 16 hex digits)");
    }
    lx->pos = start + 18;
    struct ptx_tok t = make(lx, PTX_TOK_F64, start);
    t.ival = bits;
    return t;
  }
  /* decimal float: digits '.' digits [e[+-]digits], or digits e digits */
  size_t i = start;
  while (is_digit(at(lx, i))) i++;
  int c = at(lx, i);
  if (c == '.' || ((c == 'e' || c == 'E') &&
                   (is_digit(at(lx, i + 1)) ||
                    ((at(lx, i + 1) == '+' || at(lx, i + 1) == '-') && is_digit(at(lx, i + 2)))))) {
    if (c == '.') {
      i++;
      while (is_digit(at(lx, i))) i++;
    }
    if (at(lx, i) == 'e' || at(lx, i) == 'E') {
      i++;
      if (at(lx, i) == '+' || at(lx, i) == '-') i++;
      if (!is_digit(at(lx, i))) {
        lx->pos = i;
        return error_tok(lx, start, "malformed float constant");
      }
      while (is_digit(at(lx, i))) i++;
    }
    char buf[80];
    size_t n = i - start;
    lx->pos = i;
    if (n >= sizeof buf || is_word(at(lx, i)))
      return error_tok(lx, start, "malformed float constant");
    memcpy(buf, lx->text + start, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    struct ptx_tok t = make(lx, PTX_TOK_F64, start);
    memcpy(&t.ival, &d, sizeof d);
    return t;
  }
  /* integers */
  unsigned base = 10;
  i = start;
  if (at(lx, i) == '0' && (c1 == 'x' || c1 == 'X')) {
    base = 16;
    i += 2;
  } else if (at(lx, i) == '0' && (c1 == 'b' || c1 == 'B')) {
    base = 2;
    i += 2;
  } else if (at(lx, i) == '0' && is_digit(c1)) {
    base = 8;
    i += 1;
  }
  uint64_t v = 0;
  int ndig = 0, overflow = 0;
  for (;; i++) {
    int h = hex_val(at(lx, i));
    if (h < 0 || (unsigned)h >= base) break;
    if (v > (UINT64_MAX - (uint64_t)h) / base) overflow = 1;
    v = v * base + (uint64_t)h;
    ndig++;
  }
  if (at(lx, i) == 'U' || at(lx, i) == 'u') i++;
  lx->pos = i;
  if (ndig == 0 || is_word(at(lx, i))) {
    scan_word(lx, 0);
    return error_tok(lx, start, "malformed integer constant");
  }
  if (overflow) return error_tok(lx, start, "integer constant does not fit in 64 bits");
  struct ptx_tok t = make(lx, PTX_TOK_INT, start);
  t.ival = v;
  return t;
}

struct ptx_tok ptx_lex_next(struct ptx_lexer *lx) {
  if (skip_space(lx) < 0) {
    size_t start = lx->pos;
    lx->pos = lx->len;
    struct ptx_tok t = make(lx, PTX_TOK_ERROR, start);
    t.len = 2;
    t.msg = "unterminated comment";
    return t;
  }
  size_t start = lx->pos;
  int c = at(lx, start);
  if (c < 0) return make(lx, PTX_TOK_EOF, start);
  if (is_alpha(c) || c == '_' || c == '$' || c == '%') {
    lx->pos++;
    scan_word(lx, 1);
    return make(lx, PTX_TOK_IDENT, start);
  }
  if (c == '.' && (is_alpha(at(lx, start + 1)) || at(lx, start + 1) == '_')) {
    lx->pos++;
    scan_word(lx, 0);
    return make(lx, PTX_TOK_DIR, start);
  }
  if (is_digit(c)) return scan_number(lx);
  if (c == '"') {
    size_t i = start + 1;
    for (;;) {
      int d = at(lx, i);
      if (d < 0 || d == '\n') {
        lx->pos = i;
        return error_tok(lx, start, "unterminated string");
      }
      if (d == 0 || (d == '\\' && at(lx, i + 1) == 0)) {
        /* PTX is text: a NUL, escaped or not, would end the string wherever it is printed */
        lx->pos = i;
        return error_tok(lx, start, "NUL byte inside a string; PTX is text");
      }
      if (d == '\\' && at(lx, i + 1) >= 0 && at(lx, i + 1) != '\n') {
        i += 2;
        continue;
      }
      i++;
      if (d == '"') break;
    }
    lx->pos = i;
    return make(lx, PTX_TOK_STRING, start);
  }
  if (strchr(",;:{}[]()<>+-|!@=", c) && c != 0) {
    lx->pos++;
    return make(lx, PTX_TOK_PUNCT, start);
  }
  lx->pos++;
  return error_tok(lx, start, "unexpected character");
}

size_t ptx_lex_skip_block(struct ptx_lexer *lx) {
  int depth = 0;
  for (size_t i = lx->pos; i < lx->len; i++) {
    char c = lx->text[i];
    if (c == '\n') {
      newline(lx, i + 1);
    } else if (c == '{') {
      depth++;
    } else if (c == '}' && depth > 0 && --depth == 0) {
      lx->pos = i + 1;
      return i + 1;
    }
  }
  lx->pos = lx->len;
  return (size_t)-1;
}
