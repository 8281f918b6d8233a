/* coalcheck PTX front end, internal: the lexer (not part of the public interface).
 *
 * Tokens are slices of the input text; positions are 1-based lines and byte columns.
 * Opcodes with their modifiers ("ld.global.nc.f32"), special registers ("%tid.x") and
 * modifiers with "::" ("shared::cta") are single IDENT tokens; directives (".reg") are
 * DIR tokens. Source of the lexical grammar: PTX ISA 9.0, section 4 "Syntax". */
#ifndef CC_PTX_PTX_LEX_H
#define CC_PTX_PTX_LEX_H

#include <stddef.h>
#include <stdint.h>

enum ptx_tok_kind {
  PTX_TOK_EOF,
  PTX_TOK_IDENT,  /* name, %reg, $label, opcode.with.modifiers */
  PTX_TOK_DIR,    /* .directive */
  PTX_TOK_INT,    /* ival: the value (decimal, 0x hex, 0b binary, 0 octal; U suffix) */
  PTX_TOK_F32,    /* ival: IEEE single bits (0fXXXXXXXX) */
  PTX_TOK_F64,    /* ival: IEEE double bits (0dXXXXXXXXXXXXXXXX or a decimal float) */
  PTX_TOK_STRING, /* "..." (s includes the quotes) */
  PTX_TOK_PUNCT,  /* one character: , ; : { } [ ] ( ) < > + - | ! @ = */
  PTX_TOK_ERROR   /* a lexical error: s/len is the offending text, msg says what */
};

struct ptx_tok {
  enum ptx_tok_kind kind;
  const char *s;        /* start of the token in the text */
  uint32_t len;         /* bytes */
  uint32_t line, col;   /* 1-based */
  uint64_t ival;
  const char *msg;      /* PTX_TOK_ERROR: static description */
};

struct ptx_lexer {
  const char *text;
  size_t len, pos;
  uint32_t line;
  size_t line_start;    /* offset of the first byte of the current line */
};

/* Starts lexing text (len bytes, need not be NUL-terminated). */
void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len);

/* The next token; PTX_TOK_EOF at the end (and forever after). Never fails: malformed
 * input gives a PTX_TOK_ERROR token. Comments and white space are skipped. */
struct ptx_tok ptx_lex_next(struct ptx_lexer *lx);

/* From the current position (just after a token), skips to the '}' that closes the first
 * '{' met, and returns the offset just after it, or (size_t)-1 when the text ends first.
 * Advances the lexer there (line count included). Used for .section bodies, kept
 * verbatim. */
size_t ptx_lex_skip_block(struct ptx_lexer *lx);

#endif
