/* coalcheck CUDA front end: builtin components written in macro bodies.
 *
 * libclang's C API gives a token that came from a macro body only the place where the
 * macro was expanded (clang_getSpellingLocation is clang's file location), never the
 * place in the #define. So the body is read as tokens: each `B . e` (B a builtin variable
 * that is not a parameter of the macro) is a component to rewrite, and the input's macros
 * used in the body are read the same way. What the AST saw at an expansion must be what
 * the tokens say (the same builtins and letters, k times when the caller repeats an
 * argument), and every expansion of such a macro, or of a macro that uses it, must lie in
 * the kernel's call tree: an edit of a #define changes every expansion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

#define MAX_NEST 16   /* macros used inside macros, deepest followed */
#define MAX_PARAMS 64 /* parameters of one macro that are looked at */

/* A builtin component written in a macro body: its letter's offset. */
struct pattern {
  unsigned off;
  enum cc_cuda_builtin b;
  int e;
};

typedef CC_VEC(CXCursor) cursor_vec;
typedef CC_VEC(char *) name_vec;

/* What reading one expansion's macro found. */
struct reader {
  const struct cc_cuda_model *m;
  const cursor_vec *defs;       /* the input's macro definitions */
  CC_VEC(struct pattern) pats;
  name_vec used;                /* names of the macros read */
  char bad[512];                /* why the body cannot be read, or "" */
};

struct defs_walk {
  const struct cc_cuda_model *m;
  cursor_vec defs;
};

static enum CXChildVisitResult collect_def(CXCursor c, CXCursor parent, CXClientData data)
{
  struct defs_walk *d = data;
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_MacroDefinition &&
      cc_cuda_tu_where(&d->m->tu, clang_getCursorLocation(c)) == CC_CUDA_MAIN)
    CC_VEC_PUSH(&d->defs, c);
  return CXChildVisit_Continue;
}

/* The input's definition of macro name: its index, -1 when none, -2 when several
 * (#undef and #define again). */
static int def_find(const struct reader *r, const char *name)
{
  int found = -1;
  for (size_t i = 0; i < r->defs->len; i++)
    if (cc_cuda_spelled(r->defs->data[i], name))
      found = found == -1 ? (int)i : -2;
  return found;
}

static enum cc_cuda_builtin builtin_named(const char *s)
{
  for (int b = 0; b < CC_CUDA_B_WARPSIZE; b++)
    if (strcmp(s, cc_cuda_builtin_names[b]) == 0)
      return (enum cc_cuda_builtin)b;
  return CC_CUDA_B_NONE;
}

static int letter(const char *s)
{
  return s[0] >= 'x' && s[0] <= 'z' && !s[1] ? s[0] - 'x' : -1;
}

static int in_list(char *const *list, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], s) == 0)
      return 1;
  return 0;
}

static char *token(const struct cc_cuda_tokens *tk, unsigned i)
{
  return cc_cuda_str(clang_getTokenSpelling(tk->tu, tk->tok[i]));
}

static void read_def(struct reader *r, CXCursor def, int depth);

/* Reads tokens tk[from..] of a body whose parameters are params[0..np). */
static void read_body(struct reader *r, const struct cc_cuda_tokens *tk, unsigned from,
                      char *const *params, unsigned np, int depth)
{
  for (unsigned i = from; i < tk->n && !r->bad[0]; i++) {
    char *s = token(tk, i), *e = i + 1 < tk->n ? token(tk, i + 1) : cc_xstrdup("");
    char *f = i + 2 < tk->n ? token(tk, i + 2) : cc_xstrdup("");
    enum cc_cuda_builtin b = builtin_named(s);
    if (b != CC_CUDA_B_NONE && !in_list(params, np, s) && strcmp(e, ".") == 0 &&
        letter(f) >= 0) {
      struct pattern p = {cc_cuda_token_off(tk, i + 2), b, letter(f)};
      CC_VEC_PUSH(&r->pats, p);
      i += 2;
    } else if ((strcmp(s, ".") == 0 || strcmp(s, "->") == 0) && letter(e) >= 0) {
      snprintf(r->bad, sizeof r->bad, "its body reads a member `%s%s` of something other "
               "than a builtin variable named there", s, e);
    } else if (clang_getTokenKind(tk->tok[i]) == CXToken_Identifier && !in_list(params, np, s) &&
               !in_list(r->used.data, r->used.len, s)) {
      int d = def_find(r, s);
      if (d == -2)
        snprintf(r->bad, sizeof r->bad, "it uses macro %s, which the file defines more "
                 "than once", s);
      else if (d >= 0)
        read_def(r, r->defs->data[d], depth + 1);
    }
    free(s);
    free(e);
    free(f);
  }
}

/* Reads macro definition def: its patterns and those of the input's macros it uses (a
 * macro already being read is not read again: the preprocessor does not re-expand it). */
static void read_def(struct reader *r, CXCursor def, int depth)
{
  struct cc_cuda_tokens tk;
  char *params[MAX_PARAMS];
  unsigned np = 0, from = 1;
  char *name = cc_cuda_spelling(def);
  if (depth > MAX_NEST) {
    snprintf(r->bad, sizeof r->bad, "its macros nest deeper than %d", MAX_NEST);
    free(name);
    return;
  }
  CC_VEC_PUSH(&r->used, name);
  cc_cuda_tokens_get(&r->m->tu, clang_getCursorExtent(def), &tk);
  /* function-like: '(' right after the name, no space between */
  if (tk.n > 1 && cc_cuda_token_is(&tk, 1, "(") &&
      cc_cuda_token_off(&tk, 1) == cc_cuda_token_off(&tk, 0) + strlen(name)) {
    for (from = 2; from < tk.n && !cc_cuda_token_is(&tk, from, ")"); from++)
      if (clang_getTokenKind(tk.tok[from]) == CXToken_Identifier && np < MAX_PARAMS)
        params[np++] = token(&tk, from);
    from++;
  }
  read_body(r, &tk, from, params, np, depth);
  for (unsigned i = 0; i < np; i++)
    free(params[i]);
  cc_cuda_tokens_release(&tk);
}

/* 1 when [b, e) lies inside the definition of a function of the call tree in the input. */
static int in_tree_text(const struct cc_cuda_model *m, unsigned b, unsigned e)
{
  for (size_t i = 0; i < m->fns.len; i++) {
    const struct cc_cuda_fn *f = &m->fns.data[i];
    unsigned fb, fe;
    if (f->in_tree && f->visited && f->where == CC_CUDA_MAIN &&
        cc_cuda_tu_extent(&m->tu, f->def, &fb, &fe) && fb <= b && e <= fe)
      return 1;
  }
  return 0;
}

/* 1 when def's body names one of names[0..n). */
static int uses_any(const struct cc_cuda_model *m, CXCursor def, char *const *names, size_t n)
{
  struct cc_cuda_tokens tk;
  int yes = 0;
  cc_cuda_tokens_get(&m->tu, clang_getCursorExtent(def), &tk);
  for (unsigned i = 1; i < tk.n && !yes; i++) {
    char *s = token(&tk, i);
    yes = in_list(names, n, s);
    free(s);
  }
  cc_cuda_tokens_release(&tk);
  return yes;
}

/* Every expansion of the macros in *names, grown with the input's macros that use them,
 * lies in the call tree; else CC_ERR_NO_FIX naming the first that does not. */
static int check_expansions(const struct cc_cuda_model *m, const struct defs_walk *dw,
                            name_vec *names, struct cc_err *err)
{
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < dw->defs.len; i++) {
      char *name = cc_cuda_spelling(dw->defs.data[i]);
      if (!in_list(names->data, names->len, name) &&
          uses_any(m, dw->defs.data[i], names->data, names->len)) {
        CC_VEC_PUSH(names, name);
        changed = 1;
      } else {
        free(name);
      }
    }
  }
  for (size_t i = 0; i < m->exps.len; i++) {
    const struct cc_cuda_expansion *x = &m->exps.data[i];
    char *name = cc_cuda_spelling(x->def);
    if (in_list(names->data, names->len, name) && !in_tree_text(m, x->b, x->e)) {
      char place[512], def[512];
      int rc;
      cc_cuda_tu_place(&m->tu, clang_getCursorLocation(x->at), place, sizeof place);
      cc_cuda_tu_place(&m->tu, clang_getCursorLocation(x->def), def, sizeof def);
      rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: macro %s (defined at %s) reads the thread "
                      "geometry and is also expanded here, outside kernel %s and the "
                      "functions it calls; rewriting its definition would change both: "
                      "expand it by hand in the kernel", place, name, def, m->kernel_name);
      free(name);
      return rc;
    }
    free(name);
  }
  return CC_OK;
}

/* Checks the AST's components at expansion x (comps[i] for i in idx[0..n)) against what
 * reading its macro found; adds the macro's edits. */
static int read_expansion(struct reader *r, const struct cc_cuda_expansion *x, const int *idx,
                          size_t n, const int sigma[3], cc_cuda_edits *ed, unsigned *count,
                          struct cc_err *err)
{
  const struct cc_cuda_model *m = r->m;
  unsigned ast[CC_CUDA_B_WARPSIZE][3] = {{0}}, lex[CC_CUDA_B_WARPSIZE][3] = {{0}}, k = 0;
  char place[512], def[512], *name = cc_cuda_spelling(x->def);
  int ok = 1, rc = CC_OK;
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(x->at), place, sizeof place);
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(x->def), def, sizeof def);
  if (cc_cuda_tu_where(&m->tu, clang_getCursorLocation(x->def)) != CC_CUDA_MAIN) {
    const struct cc_cuda_comp *c = &m->comps.data[idx[0]];
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: %s.%c is read through macro %s, defined at "
                    "%s outside %s, which the rewrite cannot change; expand the macro by "
                    "hand there", place, cc_cuda_builtin_names[c->b], "xyz"[c->e], name, def,
                    m->tu.path);
    free(name);
    return rc;
  }
  read_def(r, x->def, 0);
  for (size_t i = 0; i < n; i++)
    ast[m->comps.data[idx[i]].b][m->comps.data[idx[i]].e]++;
  for (size_t i = 0; i < r->pats.len; i++)
    lex[r->pats.data[i].b][r->pats.data[i].e]++;
  /* the AST may see the body's components k times (an argument used k times) */
  if (r->pats.len)
    k = (unsigned)(n / r->pats.len);
  for (int b = 0; b < CC_CUDA_B_WARPSIZE; b++)
    for (int e = 0; e < 3; e++)
      ok = ok && ast[b][e] == k * lex[b][e];
  if (r->bad[0] || !ok || k == 0) {
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: cannot match the thread-geometry components "
                    "of macro %s (defined at %s) with its definition%s%s; expand it by hand "
                    "in the kernel", place, name, def, r->bad[0] ? ": " : "", r->bad);
  } else {
    for (size_t i = 0; i < r->pats.len; i++) {
      const struct pattern *p = &r->pats.data[i];
      char text[2] = {"xyz"[sigma[p->e]], '\0'};
      if (!cc_cuda_edits_touch(ed, p->off, p->off + 1)) {
        cc_cuda_edits_add(ed, p->off, p->off + 1, text);
        *count += sigma[p->e] != p->e;
      }
    }
  }
  free(name);
  return rc;
}

/* A component of the tree written in a macro body, and the expansion it came through. */
struct body_comp {
  size_t exp;
  int comp;
};

static int body_cmp(const void *a, const void *b)
{
  const struct body_comp *x = a, *y = b;
  return x->exp != y->exp ? (x->exp < y->exp ? -1 : 1) : (x->comp > y->comp) - (x->comp < y->comp);
}

int cc_cuda_macro_edits(const struct cc_cuda_model *m, const int sigma[3], cc_cuda_edits *ed,
                        unsigned *count, struct cc_err *err)
{
  struct defs_walk dw = {m, {0}};
  name_vec names = {0};
  CC_VEC(struct body_comp) bc = {0};
  CC_VEC(int) idx = {0};
  int rc = CC_OK;
  for (size_t i = 0; i < m->comps.len; i++) {
    const struct cc_cuda_comp *c = &m->comps.data[i];
    const struct cc_cuda_expansion *x;
    if (c->spell != CC_CUDA_BODY || !cc_cuda_model_in_tree(m, c->fn))
      continue;
    if ((x = cc_cuda_model_expansion_at(m, c->off)) == NULL) {
      char place[512];
      cc_cuda_tu_place(&m->tu, clang_getCursorLocation(c->at), place, sizeof place);
      CC_VEC_FREE(&bc);
      return cc_err_set(err, CC_ERR_NO_FIX, "%s: cannot find where the letter of this %s "
                        "component is written (not in a macro coalcheck saw expanded); write "
                        "it plainly", place, cc_cuda_builtin_names[c->b]);
    }
    {
      struct body_comp b = {(size_t)(x - m->exps.data), (int)i};
      CC_VEC_PUSH(&bc, b);
    }
  }
  if (bc.len == 0)
    return CC_OK;
  qsort(bc.data, bc.len, sizeof *bc.data, body_cmp);
  clang_visitChildren(clang_getTranslationUnitCursor(m->tu.tu), collect_def, &dw);
  for (size_t g = 0; g < bc.len && rc == CC_OK;) {
    struct reader r;
    size_t xi = bc.data[g].exp;
    idx.len = 0;
    for (; g < bc.len && bc.data[g].exp == xi; g++)
      CC_VEC_PUSH(&idx, bc.data[g].comp);
    memset(&r, 0, sizeof r);
    r.m = m;
    r.defs = &dw.defs;
    rc = read_expansion(&r, &m->exps.data[xi], idx.data, idx.len, sigma, ed, count, err);
    for (size_t i = 0; i < r.used.len; i++)
      if (in_list(names.data, names.len, r.used.data[i]))
        free(r.used.data[i]);
      else
        CC_VEC_PUSH(&names, r.used.data[i]);
    CC_VEC_FREE(&r.used);
    CC_VEC_FREE(&r.pats);
  }
  if (rc == CC_OK && names.len)
    rc = check_expansions(m, &dw, &names, err);
  for (size_t i = 0; i < names.len; i++)
    free(names.data[i]);
  CC_VEC_FREE(&names);
  CC_VEC_FREE(&idx);
  CC_VEC_FREE(&bc);
  CC_VEC_FREE(&dw.defs);
  return rc;
}
