/* coalcheck CUDA front end: cc_cuda_pad, the rows of a kernel's __shared__ arrays padded
 * against bank conflicts (pad.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"
#include "cuda/pad.h"

#define MAX_ARRAYS 16
#define MAX_FULL 4096 /* fully subscripted uses recorded per kernel */

/* One __shared__ array of the kernel. */
struct parray {
  CXCursor decl;
  unsigned dims;            /* 2 or more */
  long long row_bytes;      /* bytes of one row: the last dimension times the element */
  long long elt_bytes;
  CXCursor bad;             /* its first use that is not fully subscripted, or null */
};

struct pwalk {
  const struct cc_cuda_model *m;
  struct parray arrays[MAX_ARRAYS];
  unsigned narrays;
  unsigned full[MAX_FULL];  /* offsets of the DeclRefExprs that are fully subscripted */
  unsigned nfull;
};

/* The array dimensions of t and the size of its innermost element. */
static unsigned array_dims(CXType t, long long *last, long long *elt)
{
  unsigned n = 0;
  t = clang_getCanonicalType(t);
  while (t.kind == CXType_ConstantArray) {
    *last = clang_getArraySize(t);
    t = clang_getCanonicalType(clang_getArrayElementType(t));
    n++;
  }
  *elt = clang_Type_getSizeOf(t);
  return n;
}

/* The DeclRefExpr under c after parentheses and implicit conversions, or null. */
static CXCursor strip(CXCursor c)
{
  while (clang_getCursorKind(c) == CXCursor_UnexposedExpr ||
         clang_getCursorKind(c) == CXCursor_ParenExpr) {
    CXCursor k[2];
    if (cc_cuda_children(c, k, 2) != 1)
      return clang_getNullCursor();
    c = k[0];
  }
  return c;
}

static struct parray *array_of(struct pwalk *w, CXCursor ref)
{
  CXCursor d = clang_getCursorReferenced(ref);
  for (unsigned i = 0; i < w->narrays; i++)
    if (clang_equalCursors(w->arrays[i].decl, d))
      return &w->arrays[i];
  return NULL;
}

/* An ArraySubscriptExpr: when its chain of bases ends in one of the arrays after exactly
 * as many subscripts as the array has dimensions, that reference is a full use. */
static void subscript(struct pwalk *w, CXCursor c)
{
  unsigned depth = 0, off;
  CXCursor k[2];
  struct parray *a;
  while (clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr &&
         cc_cuda_children(c, k, 2) == 2) {
    depth++;
    c = strip(k[0]);
  }
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr || !(a = array_of(w, c)) ||
      depth != a->dims || w->nfull == MAX_FULL ||
      !cc_cuda_tu_off(&w->m->tu, clang_getCursorLocation(c), &off))
    return;
  w->full[w->nfull++] = off;
}

/* `&a[i][j]` (or `&a[i]`): a pointer into the array, which would see the new row length:
 * the array is marked as used other than fully subscripted. */
static void address_of(struct pwalk *w, CXCursor c)
{
  CXCursor k[2];
  char *op;
  struct parray *a;
  if (cc_cuda_children(c, k, 2) != 1 || !(op = cc_cuda_operator(&w->m->tu, c, clang_getNullCursor())))
    return;
  if (strcmp(op, "&") == 0) {
    c = strip(k[0]);
    while (clang_getCursorKind(c) == CXCursor_ArraySubscriptExpr &&
           cc_cuda_children(c, k, 2) == 2)
      c = strip(k[0]);
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr && (a = array_of(w, c)) &&
        clang_Cursor_isNull(a->bad))
      a->bad = c;
  }
  free(op);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct pwalk *w = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  (void)parent;
  if (k == CXCursor_VarDecl && w->narrays < MAX_ARRAYS) {
    struct parray *a = &w->arrays[w->narrays];
    CXCursor kids[4];
    unsigned n = cc_cuda_children(c, kids, 4), shared = 0;
    for (unsigned i = 0; i < n; i++)
      shared |= clang_getCursorKind(kids[i]) == CXCursor_CUDASharedAttr;
    a->dims = array_dims(clang_getCursorType(c), &a->row_bytes, &a->elt_bytes);
    if (shared && a->dims >= 2 && a->elt_bytes > 0) {
      a->row_bytes *= a->elt_bytes;
      a->decl = c;
      a->bad = clang_getNullCursor();
      w->narrays++;
    }
  } else if (k == CXCursor_ArraySubscriptExpr) {
    subscript(w, c);
  } else if (k == CXCursor_UnaryOperator) {
    address_of(w, c);
  }
  return CXChildVisit_Recurse;
}

/* Second pass: every reference to an array that is not a recorded full use. */
static enum CXChildVisitResult check_refs(CXCursor c, CXCursor parent, CXClientData data)
{
  struct pwalk *w = data;
  struct parray *a;
  unsigned off, i;
  (void)parent;
  if (clang_getCursorKind(c) != CXCursor_DeclRefExpr || !(a = array_of(w, c)) ||
      !clang_Cursor_isNull(a->bad))
    return CXChildVisit_Recurse;
  if (!cc_cuda_tu_off(&w->m->tu, clang_getCursorLocation(c), &off)) {
    a->bad = c;
    return CXChildVisit_Recurse;
  }
  for (i = 0; i < w->nfull && w->full[i] != off; i++)
    ;
  if (i == w->nfull)
    a->bad = c;
  return CXChildVisit_Recurse;
}

/* The bytes [b, e) inside the last bracket pair of declaration d's tokens before any
 * initialiser: its last dimension. 0 when not found. */
static int last_dim(const struct cc_cuda_model *m, CXCursor d, unsigned *b, unsigned *e)
{
  struct cc_cuda_tokens tk;
  int open = -1, close = -1;
  /* from the name on: the extent's start may lie in the prelude (`__shared__` is a macro) */
  cc_cuda_tokens_get(&m->tu, clang_getRange(clang_getCursorLocation(d),
                                            clang_getRangeEnd(clang_getCursorExtent(d))), &tk);
  for (unsigned i = 0; i < tk.n && !cc_cuda_token_is(&tk, i, "="); i++) {
    if (cc_cuda_token_is(&tk, i, "["))
      open = (int)i;
    else if (cc_cuda_token_is(&tk, i, "]"))
      close = (int)i;
  }
  if (open >= 0 && close > open + 1) {
    CXSourceRange r = clang_getTokenExtent(tk.tu, tk.tok[close - 1]);
    *b = cc_cuda_token_off(&tk, (unsigned)open + 1);
    cc_cuda_tu_off(&m->tu, clang_getRangeEnd(r), e);
  }
  cc_cuda_tokens_release(&tk);
  return open >= 0 && close > open + 1 && *e > *b;
}

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *what)
{
  char place[512];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s", place, what);
}

/* Pads array a into the edits, and says so in out->what; or the reason it may not be. */
static int pad_one(const struct cc_cuda_model *m, const char *text, struct parray *a,
                   unsigned elements, int odd_rows, cc_cuda_edits *ed,
                   struct cc_cuda_pad_result *out, char *why, size_t size)
{
  long long u = a->elt_bytes > 4 ? a->elt_bytes : 4;
  unsigned b, e, line, col;
  char *name = cc_cuda_spelling(a->decl), repl[320];
  size_t len = strlen(out->what);
  int ok = 0;
  if (a->row_bytes % u != 0 || (!odd_rows && (a->row_bytes / u) % 2 != 0))
    snprintf(why, size, "the rows of %s are %lld bytes, not an even number of %lld-byte "
             "words: no column conflict to pad away", name, a->row_bytes, u);
  else if (!clang_Cursor_isNull(a->bad))
    snprintf(why, size, "%s is used other than fully subscripted (a pointer into it, a "
             "flattened index or the array passed whole would see the new row length)", name);
  else if (!last_dim(m, a->decl, &b, &e) || cc_cuda_model_expansion_at(m, b - 1) ||
           e - b > 200) /* b - 1: the bracket itself (its dimension may be a macro, TILE_DIM) */
    snprintf(why, size, "the last dimension of %s is not written in the file itself", name);
  else
    ok = 1;
  if (ok) {
    int one = 1; /* a name or a number: `E + 1` needs no parentheses (`a<<1` would) */
    for (unsigned i = b; i < e; i++)
      one &= isalnum((unsigned char)text[i]) || text[i] == '_';
    snprintf(repl, sizeof repl, one ? "%.*s + %u" : "(%.*s) + %u", (int)(e - b), text + b,
             elements);
    cc_cuda_edits_add(ed, b, e, repl);
    cc_cuda_tu_linecol(clang_getCursorLocation(a->decl), &line, &col);
    snprintf(out->what + len, sizeof out->what - len, "%s%s: rows of %lld -> %lld bytes "
             "(line %u)", len ? "; " : "", name, a->row_bytes,
             a->row_bytes + (long long)elements * a->elt_bytes, line);
    out->npadded++;
  }
  free(name);
  return ok;
}

int cc_cuda_pad(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_pad_result *out,
                struct cc_err *err)
{
  return cc_cuda_pad_by(path, text, len, kernel, extra_args, nextra, 1, 0, out, err);
}

int cc_cuda_pad_by(const char *path, const char *text, size_t len, const char *kernel,
                   const char *const *extra_args, size_t nextra, unsigned elements,
                   int odd_rows, struct cc_cuda_pad_result *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  struct pwalk *w;
  cc_cuda_edits ed = {0};
  char why[512] = "";
  CXCursor first = clang_getNullCursor();
  int rc;
  memset(out, 0, sizeof *out);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  w = cc_xcalloc(1, sizeof *w);
  w->m = &m;
  clang_visitChildren(m.fns.data[m.kernel].def, visit, w);
  clang_visitChildren(m.fns.data[m.kernel].def, check_refs, w);
  for (unsigned i = 0; i < w->narrays; i++)
    if (!pad_one(&m, text, &w->arrays[i], elements, odd_rows, &ed, out, why, sizeof why) &&
        clang_Cursor_isNull(first))
      first = clang_Cursor_isNull(w->arrays[i].bad) ? w->arrays[i].decl : w->arrays[i].bad;
  if (out->npadded == 0)
    rc = w->narrays == 0
             ? refuse(&m, m.fns.data[m.kernel].def, err, "the kernel declares no __shared__ "
                      "array of two or more dimensions: nothing to pad")
             : refuse(&m, first, err, why);
  else
    rc = cc_cuda_edits_apply(&ed, text, len, &out->text, &out->len, err);
  cc_cuda_edits_release(&ed);
  free(w);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_pad_result_release(out);
  return rc;
}
