/* Shell-like words for launch files and --nvcc-flags. See cli.h. */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

struct lexer {
  const char *p;
  uint32_t line, col;
};

static void advance(struct lexer *lx)
{
  if (*lx->p == '\n') {
    lx->line++;
    lx->col = 1;
  } else {
    lx->col++;
  }
  lx->p++;
}

static int is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Reads one word starting at lx->p (not a blank, not '#') into a new string. */
static int read_word(struct lexer *lx, const char *path, char **out, struct cc_err *err)
{
  CC_VEC(char) w = {0};
  while (*lx->p && !is_blank(*lx->p)) {
    char c = *lx->p;
    if (c == '\'' || c == '"') {
      uint32_t line = lx->line, col = lx->col;
      advance(lx);
      while (*lx->p && *lx->p != c) {
        /* inside double quotes a backslash escapes only " \ $ ` (POSIX) */
        if (c == '"' && *lx->p == '\\' && lx->p[1] && strchr("\"\\$`", lx->p[1]))
          advance(lx);
        CC_VEC_PUSH(&w, *lx->p);
        advance(lx);
      }
      if (!*lx->p) {
        free(w.data);
        return cc_err_set(err, CC_ERR_INPUT,
                          "%s:%u:%u: unterminated %s quote; close it with %c", path, line, col,
                          c == '"' ? "double" : "single", c);
      }
      advance(lx);
    } else if (c == '\\') {
      advance(lx);
      if (*lx->p == '\n') { /* line continuation */
        advance(lx);
      } else if (*lx->p) {
        CC_VEC_PUSH(&w, *lx->p);
        advance(lx);
      } else { /* a backslash ending the text escapes nothing: kept, as sh keeps it */
        CC_VEC_PUSH(&w, '\\');
      }
    } else {
      CC_VEC_PUSH(&w, c);
      advance(lx);
    }
  }
  CC_VEC_PUSH(&w, '\0');
  *out = w.data;
  return CC_OK;
}

int cc_cli_tokenize(const char *text, const char *path, char ***words, size_t *nwords,
                    uint32_t **lines, struct cc_err *err)
{
  struct lexer lx = {text, 1, 1};
  CC_VEC(char *) v = {0};
  CC_VEC(uint32_t) ln = {0};
  for (;;) {
    char *w = NULL;
    int rc;
    while (is_blank(*lx.p))
      advance(&lx);
    if (!*lx.p)
      break;
    if (*lx.p == '#') {
      while (*lx.p && *lx.p != '\n')
        advance(&lx);
      continue;
    }
    if (lx.p[0] == '\\' && lx.p[1] == '\n') { /* a continuation between words */
      advance(&lx);
      advance(&lx);
      continue;
    }
    CC_VEC_PUSH(&ln, lx.line);
    if ((rc = read_word(&lx, path, &w, err)) != CC_OK) {
      for (size_t i = 0; i < v.len; i++)
        free(v.data[i]);
      free(v.data);
      free(ln.data);
      return rc;
    }
    CC_VEC_PUSH(&v, w);
  }
  *words = v.data;
  *nwords = v.len;
  if (lines)
    *lines = ln.data;
  else
    free(ln.data);
  return CC_OK;
}
