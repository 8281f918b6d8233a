/* coalcheck CUDA front end: parsing a file with libclang, locations and tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

/* The clang command line before the caller's extra arguments. sm_80 because clang 14
 * knows no sm_90; __CUDA_ARCH__ is then set to Hopper's 900 so the parse sees what the
 * target compiles. The stand-in folder comes first so the toolkit's headers are never
 * read (clang 14 cannot parse CUDA 13's). */
static const char *const base_args[] = {
  "-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib",
  "-std=c++17", "-U__CUDA_ARCH__", "-D__CUDA_ARCH__=900", "-ferror-limit=0",
  "-Wno-unknown-cuda-version", "-I" CC_CUDA_VDIR "/include", "-include", CC_CUDA_PRELUDE_PATH,
};
#define NBASE (sizeof base_args / sizeof base_args[0])

/* The largest input parsed: clang's offsets are 32-bit, and a kernel file of more than
 * this is not a source anyone edits by hand. */
#define MAX_INPUT_BYTES (64u << 20)

int cc_cuda_tu_parse(struct cc_cuda_tu *t, const char *path, const char *text, size_t len,
                     const char *const *extra, size_t nextra, struct cc_err *err)
{
  size_t nv;
  const struct cc_cuda_vfile *vf = cc_cuda_vfiles(&nv);
  struct CXUnsavedFile *un;
  const char **args;
  enum CXErrorCode rc;

  memset(t, 0, sizeof *t);
  if (len > MAX_INPUT_BYTES)
    return cc_err_set(err, CC_ERR_INPUT, "%s is %zu bytes; coalcheck parses CUDA files of at "
                      "most %u MiB", path, len, MAX_INPUT_BYTES >> 20);
  un = cc_xcalloc(nv + 1, sizeof *un);
  args = cc_xcalloc(NBASE + nextra, sizeof *args);
  t->path = path;
  t->text = text;
  t->len = len;
  for (size_t i = 0; i < nv; i++)
    un[i] = (struct CXUnsavedFile){vf[i].path, vf[i].text, (unsigned long)strlen(vf[i].text)};
  un[nv] = (struct CXUnsavedFile){path, text, (unsigned long)len};
  memcpy(args, base_args, sizeof base_args);
  for (size_t i = 0; i < nextra; i++)
    args[NBASE + i] = extra[i];
  t->index = clang_createIndex(0, 0);
  rc = clang_parseTranslationUnit2(t->index, path, args, (int)(NBASE + nextra), un,
                                   (unsigned)nv + 1,
                                   CXTranslationUnit_DetailedPreprocessingRecord |
                                       CXTranslationUnit_KeepGoing,
                                   &t->tu);
  free(args);
  free(un);
  if (rc != CXError_Success || !t->tu) {
    cc_cuda_tu_release(t);
    return cc_err_set(err, CC_ERR_TOOL, "libclang could not parse %s (%s); check the clang "
                      "arguments and that libclang works (clang_parseTranslationUnit2 "
                      "returned %d)", path, rc == CXError_Crashed ? "it crashed" : "it failed",
                      (int)rc);
  }
  t->main = clang_getFile(t->tu, path);
  if (!t->main) {
    cc_cuda_tu_release(t);
    return cc_err_set(err, CC_ERR_TOOL, "libclang parsed %s but does not know it as a file",
                      path);
  }
  return CC_OK;
}

void cc_cuda_tu_release(struct cc_cuda_tu *t)
{
  if (t->tu)
    clang_disposeTranslationUnit(t->tu);
  if (t->index)
    clang_disposeIndex(t->index);
  t->tu = NULL;
  t->index = NULL;
}

int cc_cuda_same_file(CXFile a, CXFile b)
{
  char *x, *y;
  int same;
  if (!a || !b)
    return 0;
  if (a == b)
    return 1;
  if (!clang_File_isEqual(a, b))
    return 0;
  x = cc_cuda_str(clang_getFileName(a));
  y = cc_cuda_str(clang_getFileName(b));
  same = strcmp(x, y) == 0;
  free(x);
  free(y);
  return same;
}

enum cc_cuda_where cc_cuda_tu_where(const struct cc_cuda_tu *t, CXSourceLocation loc)
{
  CXFile f = NULL;
  clang_getSpellingLocation(loc, &f, NULL, NULL, NULL);
  if (!f)
    return CC_CUDA_NOWHERE;
  if (cc_cuda_same_file(f, t->main))
    return CC_CUDA_MAIN;
  {
    char *name = cc_cuda_str(clang_getFileName(f));
    int pre = strncmp(name, CC_CUDA_VDIR "/", strlen(CC_CUDA_VDIR "/")) == 0;
    free(name);
    if (pre)
      return CC_CUDA_PRELUDE;
  }
  return clang_Location_isInSystemHeader(loc) ? CC_CUDA_SYSTEM : CC_CUDA_HEADER;
}

int cc_cuda_tu_off(const struct cc_cuda_tu *t, CXSourceLocation loc, unsigned *off)
{
  CXFile f = NULL;
  clang_getSpellingLocation(loc, &f, NULL, NULL, off);
  return cc_cuda_same_file(f, t->main) && *off <= t->len;
}

int cc_cuda_tu_extent(const struct cc_cuda_tu *t, CXCursor c, unsigned *b, unsigned *e)
{
  CXSourceRange r = clang_getCursorExtent(c);
  return cc_cuda_tu_off(t, clang_getRangeStart(r), b) &&
         cc_cuda_tu_off(t, clang_getRangeEnd(r), e) && *b < *e;
}

void cc_cuda_tu_linecol(CXSourceLocation loc, unsigned *line, unsigned *col)
{
  clang_getSpellingLocation(loc, NULL, line, col, NULL);
}

void cc_cuda_tu_place(const struct cc_cuda_tu *t, CXSourceLocation loc, char *buf, size_t n)
{
  CXFile f = NULL;
  unsigned line = 0, col = 0;
  clang_getSpellingLocation(loc, &f, &line, &col, NULL);
  if (f && !cc_cuda_same_file(f, t->main)) {
    char *name = cc_cuda_str(clang_getFileName(f));
    snprintf(buf, n, "%s:%u:%u", name, line, col);
    free(name);
  } else {
    snprintf(buf, n, "%s:%u:%u", t->path, line, col);
  }
}

char *cc_cuda_str(CXString s)
{
  const char *c = clang_getCString(s);
  char *r = cc_xstrdup(c ? c : "");
  clang_disposeString(s);
  return r;
}

char *cc_cuda_spelling(CXCursor c)
{
  return cc_cuda_str(clang_getCursorSpelling(c));
}

int cc_cuda_spelled(CXCursor c, const char *s)
{
  CXString cs = clang_getCursorSpelling(c);
  const char *p = clang_getCString(cs);
  int eq = p && strcmp(p, s) == 0;
  clang_disposeString(cs);
  return eq;
}

void cc_cuda_tokens_get(const struct cc_cuda_tu *t, CXSourceRange r, struct cc_cuda_tokens *out)
{
  out->tu = t->tu;
  out->tok = NULL;
  out->n = 0;
  clang_tokenize(t->tu, r, &out->tok, &out->n);
}

void cc_cuda_tokens_release(struct cc_cuda_tokens *tk)
{
  if (tk->tok)
    clang_disposeTokens(tk->tu, tk->tok, tk->n);
  tk->tok = NULL;
  tk->n = 0;
}

int cc_cuda_token_is(const struct cc_cuda_tokens *tk, unsigned i, const char *s)
{
  CXString cs;
  const char *p;
  int eq;
  if (i >= tk->n)
    return 0;
  cs = clang_getTokenSpelling(tk->tu, tk->tok[i]);
  p = clang_getCString(cs);
  eq = p && strcmp(p, s) == 0;
  clang_disposeString(cs);
  return eq;
}

unsigned cc_cuda_token_off(const struct cc_cuda_tokens *tk, unsigned i)
{
  unsigned off = 0;
  clang_getSpellingLocation(clang_getTokenLocation(tk->tu, tk->tok[i]), NULL, NULL, NULL, &off);
  return off;
}

/* libclang 14's C API gives no operator kind: the operator is read from the tokens. */
char *cc_cuda_operator(const struct cc_cuda_tu *t, CXCursor c, CXCursor lhs)
{
  struct cc_cuda_tokens tk;
  unsigned lb, lend = 0;
  char *op = NULL;
  if (!clang_Cursor_isNull(lhs) && !cc_cuda_tu_extent(t, lhs, &lb, &lend))
    return NULL;
  cc_cuda_tokens_get(t, clang_getCursorExtent(c), &tk);
  if (clang_Cursor_isNull(lhs) && tk.n) {
    unsigned i = clang_getTokenKind(tk.tok[0]) == CXToken_Punctuation ? 0 : tk.n - 1;
    op = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
  }
  for (unsigned i = 0; !clang_Cursor_isNull(lhs) && i < tk.n && !op; i++)
    if (cc_cuda_token_off(&tk, i) >= lend)
      op = cc_cuda_str(clang_getTokenSpelling(tk.tu, tk.tok[i]));
  cc_cuda_tokens_release(&tk);
  return op;
}

unsigned cc_cuda_tu_line_at(const struct cc_cuda_tu *t, unsigned off)
{
  unsigned line = 1;
  for (unsigned i = 0; i < off && i < t->len; i++)
    line += t->text[i] == '\n';
  return line;
}
