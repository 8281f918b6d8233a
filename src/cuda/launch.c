/* coalcheck CUDA front end: the kernel's launch sites.
 *
 * A launch `K<<<grid, block, ...>>>(...)` gets grid'[sigma[e]] = grid[e] and
 * block'[sigma[e]] = block[e] (missing components are 1). Each of grid and block is,
 * once clang's implicit layers (conversion to dim3, copies) are peeled off:
 * - an integer expression n (1D): n stays when x stays, else becomes dim3(1, n) etc.;
 * - an inline dim3(a, b) or dim3{a, b}: its arguments move;
 * - a local dim3 variable: its declaration's arguments move and each NAME.e becomes
 *   NAME.sigma[e], provided every use of it is a launch of K rewritten here or such a
 *   component (a variable shared by several launches is rewritten once for all);
 * - anything else (a parameter, a call, a member): not rewritten, and the site's note
 *   says what to pass.
 * A launch is rewritten whole or not at all. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

enum geo_kind {
  G_INT,   /* an integer expression */
  G_TEMP,  /* dim3(a, b) written inline */
  G_VAR,   /* a local dim3 variable */
  G_DIM3,  /* another dim3 expression (parameter, call, member) */
  G_OTHER  /* something else (a dependent expression in a template) */
};

/* The arguments a dim3 is constructed from, as bytes of the input. */
struct ctor {
  unsigned n;
  unsigned b[3], e[3];
  int is_int;    /* constructed by conversion from one integer: b[0], e[0] (no parentheses) */
};

/* One of grid and block. */
struct geo {
  enum geo_kind kind;
  int have_text;
  unsigned b, e;        /* the argument's bytes (have_text) */
  CXCursor var;         /* G_VAR: its declaration */
  struct ctor args;     /* G_TEMP, G_VAR: where the components are written */
  int args_ok;          /* args could be read */
  char *why;            /* owned: why it cannot be rewritten (set when checked) */
};

struct site {
  CXCursor call;
  struct geo g[2];      /* grid, block */
  int ok;
  char *why;            /* owned: why it is not rewritten */
};

static const char *const geo_name[2] = {"grid", "block"};

/* Appends printf-style text to *s (owned, grown). */
static void catf(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void catf(char **s, const char *fmt, ...)
{
  va_list ap;
  size_t old = *s ? strlen(*s) : 0;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *s = cc_xrealloc(*s, old + (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(*s + old, (size_t)n + 1, fmt, ap);
  va_end(ap);
}

/* 1 for the characters of a name or a member chain (`cfg.grid`). */
static int ident_or_dot(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.';
}

static int is_integer(CXType t)
{
  enum CXTypeKind k = clang_getCanonicalType(t).kind;
  return (k >= CXType_Bool && k <= CXType_Int128) || k == CXType_Enum;
}

/* c with the implicit layers clang puts around a written expression peeled off: casts,
 * conversions to dim3, copies (each has exactly one child with the same bytes). */
static CXCursor written(const struct cc_cuda_model *m, CXCursor c)
{
  for (int i = 0; i < 32; i++) {
    enum CXCursorKind k = clang_getCursorKind(c);
    CXCursor kids[8], only = clang_getNullCursor();
    unsigned n, b, e, kb, ke, with_bytes = 0;
    if ((k != CXCursor_UnexposedExpr && k != CXCursor_CallExpr) ||
        !cc_cuda_tu_extent(&m->tu, c, &b, &e))
      break;
    if (k == CXCursor_CallExpr) {
      CXCursor t = cc_cuda_fn_target(c);
      if (!clang_Cursor_isNull(t) && clang_getCursorKind(t) != CXCursor_Constructor)
        break;
    }
    n = cc_cuda_children(c, kids, 8);
    for (unsigned j = 0; j < n && j < 8; j++)
      if (cc_cuda_tu_extent(&m->tu, kids[j], &kb, &ke)) {
        with_bytes++;
        only = kids[j];
      }
    if (with_bytes != 1 || n > 8 || !cc_cuda_tu_extent(&m->tu, only, &kb, &ke) || kb != b ||
        ke != e)
      break;
    c = only;
  }
  return c;
}

/* The constructor call inside a written dim3 (a functional cast wraps one). */
static CXCursor ctor_call(CXCursor c)
{
  if (clang_getCursorKind(c) == CXCursor_CXXFunctionalCastExpr) {
    CXCursor kids[2];
    unsigned n = cc_cuda_children(c, kids, 2);
    for (unsigned i = 0; i < n && i < 2; i++)
      if (clang_getCursorKind(kids[i]) == CXCursor_CallExpr)
        return kids[i];
    return clang_getNullCursor();
  }
  return c;
}

/* Reads the written arguments of constructor call c into a (default arguments have no
 * bytes and end the list). 0 when they cannot be moved as text. */
static int read_ctor(const struct cc_cuda_model *m, CXCursor c, struct ctor *a)
{
  int n = clang_Cursor_getNumArguments(c);
  memset(a, 0, sizeof *a);
  if (n < 0)
    return 0;
  for (int i = 0; i < n; i++) {
    unsigned b, e;
    CXCursor arg = clang_Cursor_getArgument(c, (unsigned)i);
    if (!cc_cuda_tu_extent(&m->tu, arg, &b, &e))
      break;
    if (a->n == 3 || (a->n > 0 && b < a->e[a->n - 1]) || !cc_cuda_model_whole(m, b, e))
      return 0;
    a->b[a->n] = b;
    a->e[a->n] = e;
    a->n++;
  }
  for (int i = (int)a->n; i < n; i++) { /* a written argument after a default one: no */
    unsigned b, e;
    if (cc_cuda_tu_extent(&m->tu, clang_Cursor_getArgument(c, (unsigned)i), &b, &e))
      return 0;
  }
  /* a single argument of type dim3 is a copy, not components */
  if (a->n == 1 && cc_cuda_model_is_dim3(m, clang_getCursorType(clang_Cursor_getArgument(c, 0))))
    return 0;
  return 1;
}

/* Reads how dim3 expression c (written form w) gives its components. */
static void read_dim3(const struct cc_cuda_model *m, CXCursor w, struct ctor *a, int *ok)
{
  CXCursor call = ctor_call(w);
  unsigned b, e;
  if (is_integer(clang_getCursorType(w)) && cc_cuda_tu_extent(&m->tu, w, &b, &e) &&
      cc_cuda_model_whole(m, b, e)) {
    memset(a, 0, sizeof *a);
    a->n = 1;
    a->b[0] = b;
    a->e[0] = e;
    a->is_int = 1;
    *ok = 1;
    return;
  }
  *ok = !clang_Cursor_isNull(call) && clang_getCursorKind(call) == CXCursor_CallExpr &&
        clang_getCursorKind(cc_cuda_fn_target(call)) == CXCursor_Constructor &&
        read_ctor(m, call, a);
}

static CXCursor last_expr_child(CXCursor c)
{
  CXCursor kids[8], last = clang_getNullCursor();
  unsigned n = cc_cuda_children(c, kids, 8);
  for (unsigned i = 0; i < n && i < 8; i++)
    if (clang_isExpression(clang_getCursorKind(kids[i])))
      last = kids[i];
  return last;
}

static void classify(const struct cc_cuda_model *m, CXCursor arg, struct geo *g)
{
  CXCursor w = written(m, arg);
  enum CXCursorKind k = clang_getCursorKind(w);
  CXType t = clang_getCursorType(w);
  memset(g, 0, sizeof *g);
  g->have_text = cc_cuda_tu_extent(&m->tu, w, &g->b, &g->e);
  g->kind = G_OTHER;
  if (k == CXCursor_DeclRefExpr && cc_cuda_model_is_dim3(m, t)) {
    CXCursor v = clang_getCursorReferenced(w);
    CXCursor p = clang_getCursorSemanticParent(v);
    enum CXCursorKind pk = clang_getCursorKind(p);
    g->kind = G_DIM3;
    if (clang_getCursorKind(v) == CXCursor_VarDecl &&
        (pk == CXCursor_FunctionDecl || pk == CXCursor_CXXMethod ||
         pk == CXCursor_FunctionTemplate || pk == CXCursor_Constructor)) {
      CXCursor init = last_expr_child(v);
      g->kind = G_VAR;
      g->var = v;
      if (!clang_Cursor_isNull(init))
        read_dim3(m, written(m, init), &g->args, &g->args_ok);
    }
  } else if (is_integer(t)) {
    g->kind = G_INT;
    read_dim3(m, w, &g->args, &g->args_ok);
  } else if (cc_cuda_model_is_dim3(m, t)) {
    g->kind = G_DIM3;
    if (k == CXCursor_CXXFunctionalCastExpr || k == CXCursor_CallExpr) {
      read_dim3(m, w, &g->args, &g->args_ok);
      if (g->args_ok)
        g->kind = G_TEMP;
    }
  }
}

/* The text of the input's bytes [b, e) (owned). */
static char *slice(const struct cc_cuda_model *m, unsigned b, unsigned e)
{
  return cc_xstrndup(m->tu.text + b, e - b);
}

static void place_of(const struct cc_cuda_model *m, CXCursor c, char *buf, size_t n)
{
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(c), buf, n);
}

/* 1 when the local variable of g can be rewritten given the launches still ok; else 0
 * and g->why. */
static int var_ok(const struct cc_cuda_model *m, const struct cc_cuda_vref *vrefs,
                  const struct site *sites, struct geo *g)
{
  char *name = cc_cuda_spelling(g->var), place[512];
  unsigned b, e;
  int ok = 1;
  if (!cc_cuda_tu_extent(&m->tu, g->var, &b, &e) || !cc_cuda_model_whole(m, b, e) || !g->args_ok) {
    place_of(m, g->var, place, sizeof place);
    catf(&g->why, "variable `%s` (declared at %s) is not given as its components in the "
         "file", name, place);
    ok = 0;
  }
  for (size_t i = 0; i < m->vrefs.len && ok; i++) {
    const struct cc_cuda_vref *v = &vrefs[i];
    if (!clang_equalCursors(v->var, g->var))
      continue;
    if ((v->role == CC_CUDA_V_MEMBER && v->direct) ||
        (v->role == CC_CUDA_V_LAUNCH && sites[v->launch].ok))
      continue;
    place_of(m, v->ref, place, sizeof place);
    catf(&g->why, "variable `%s` is also used at %s, which the rewrite does not follow",
         name, place);
    ok = 0;
  }
  free(name);
  return ok;
}

/* 1 when g can be rewritten; else 0 and g->why. */
static int geo_ok(const struct cc_cuda_model *m, const struct cc_cuda_vref *vrefs,
                  const struct site *sites, struct geo *g, int which)
{
  char *text = g->have_text ? slice(m, g->b, g->e) : cc_xstrdup(geo_name[which]);
  int ok = 0;
  switch (g->kind) {
  case G_INT:
  case G_TEMP:
    ok = g->args_ok;
    if (!ok)
      catf(&g->why, "%s `%s` is partly written by a macro", geo_name[which], text);
    break;
  case G_VAR:
    ok = var_ok(m, vrefs, sites, g);
    break;
  case G_DIM3:
    catf(&g->why, "%s `%s` is not a local dim3 variable, an inline dim3(...) or an integer",
         geo_name[which], text);
    break;
  case G_OTHER:
    catf(&g->why, "%s `%s` has a type coalcheck cannot read (a template parameter?)",
         geo_name[which], text);
    break;
  }
  free(text);
  return ok;
}

/* "(c0, c1, c2)": the new components of g, written from its old text. */
static char *describe(const struct cc_cuda_model *m, const struct geo *g, int which,
                      const int inv[3])
{
  char *out = NULL, *parts[3] = {NULL, NULL, NULL};
  char *text = g->have_text ? slice(m, g->b, g->e) : cc_xstrdup(geo_name[which]);
  int simple = 1;
  for (const char *p = text; *p; p++)
    simple = simple && (ident_or_dot(*p));
  for (int d = 0; d < 3; d++) {
    int e = inv[d];
    if (g->kind == G_INT)
      parts[d] = cc_xstrdup(e == 0 ? text : "1");
    else if (g->kind == G_TEMP)
      parts[d] = e < (int)g->args.n ? slice(m, g->args.b[e], g->args.e[e]) : cc_xstrdup("1");
    else {
      parts[d] = NULL;
      catf(&parts[d], simple ? "%s.%c" : "(%s).%c", text, "xyz"[e]);
    }
  }
  catf(&out, "(%s, %s, %s)", parts[0], parts[1], parts[2]);
  for (int d = 0; d < 3; d++)
    free(parts[d]);
  free(text);
  return out;
}

/* Moves the written components a by sigma: slot d gets old component inv[d] (or 1);
 * slots past the written ones are appended. Inner edits move with their text. */
static void move_args(const struct cc_cuda_model *m, cc_cuda_edits *ed, const struct ctor *a,
                      const int sigma[3], const int inv[3])
{
  char *r[3] = {NULL, NULL, NULL}, *tail = NULL;
  unsigned n = a->n, wanted = n;
  if (a->is_int) { /* n -> dim3(1, n): the x component goes to slot sigma[0] */
    char *out = NULL;
    if (sigma[0] == 0)
      return;
    r[0] = cc_cuda_edits_render(ed, m->tu.text, a->b[0], a->e[0], 1);
    catf(&out, "dim3(");
    for (int d = 0; d <= sigma[0]; d++)
      catf(&out, "%s%s", d ? ", " : "", d == sigma[0] ? r[0] : "1");
    catf(&out, ")");
    cc_cuda_edits_add(ed, a->b[0], a->e[0], out);
    free(out);
    free(r[0]);
    return;
  }
  for (unsigned i = 0; i < n; i++)
    r[i] = cc_cuda_edits_render(ed, m->tu.text, a->b[i], a->e[i], 1);
  for (int d = 0; d < 3; d++)
    if (inv[d] < (int)n && (unsigned)d + 1 > wanted)
      wanted = (unsigned)d + 1;
  for (unsigned d = 0; d < n; d++) {
    const char *to = inv[d] < (int)n ? r[inv[d]] : "1";
    size_t old = a->e[d] - a->b[d];
    if (strlen(to) != old || memcmp(to, m->tu.text + a->b[d], old) != 0)
      cc_cuda_edits_add(ed, a->b[d], a->e[d], to);
  }
  for (unsigned d = n; d < wanted; d++)
    catf(&tail, ", %s", inv[d] < (int)n ? r[inv[d]] : "1");
  if (tail)
    cc_cuda_edits_add(ed, a->e[n - 1], a->e[n - 1], tail);
  free(tail);
  for (unsigned i = 0; i < n; i++)
    free(r[i]);
}

/* The bytes a note shows for g: its variable's declaration, else the argument. */
static int note_range(const struct cc_cuda_model *m, const struct geo *g, unsigned *b, unsigned *e)
{
  if (g->kind == G_VAR)
    return cc_cuda_tu_extent(&m->tu, g->var, b, e);
  *b = g->b;
  *e = g->e;
  return g->have_text;
}

static void note_rewritten(const struct cc_cuda_model *m, cc_cuda_edits *ed, struct site *s,
                           char **note)
{
  for (int w = 0; w < 2; w++) {
    unsigned b, e;
    char *before, *after;
    if (!note_range(m, &s->g[w], &b, &e))
      continue;
    before = slice(m, b, e);
    after = cc_cuda_edits_render(ed, m->tu.text, b, e, 0);
    if (strcmp(before, after) == 0)
      catf(note, "%s%s: `%s` unchanged", w ? "; " : "", geo_name[w], before);
    else
      catf(note, "%s%s: `%s` -> `%s`", w ? "; " : "", geo_name[w], before, after);
    free(before);
    free(after);
  }
}

static void add_site(struct cc_cuda_rewrite *out, CXSourceLocation loc, int rewritten, char *note)
{
  struct cc_cuda_launch_site s;
  unsigned line, col;
  cc_cuda_tu_linecol(loc, &line, &col);
  s.line = line;
  s.column = col;
  s.rewritten = rewritten;
  s.note = note;
  out->sites = cc_xrealloc(out->sites, (out->nsites + 1) * sizeof *out->sites);
  out->sites[out->nsites++] = s;
}

static int site_cmp(const void *a, const void *b)
{
  const struct cc_cuda_launch_site *x = a, *y = b;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return (x->column > y->column) - (x->column < y->column);
}

/* "grid (g.y, g.x, g.z) and block (b.y, b.x, b.z)" for an unknown grid g and block b. */
static char *generic_geometry(const int inv[3])
{
  char *s = NULL;
  catf(&s, "grid (g.%c, g.%c, g.%c) and block (b.%c, b.%c, b.%c)", "xyz"[inv[0]],
       "xyz"[inv[1]], "xyz"[inv[2]], "xyz"[inv[0]], "xyz"[inv[1]], "xyz"[inv[2]]);
  return s;
}

/* Places that name the kernel but are no <<<...>>> of it: references (cudaLaunchKernel)
 * and code the preprocessor skipped. */
static void other_sites(const struct cc_cuda_model *m, const int inv[3],
                        struct cc_cuda_rewrite *out)
{
  char *geo = generic_geometry(inv);
  CXSourceRangeList *skipped;
  for (size_t i = 0; i < m->krefs.len; i++) {
    char *note = NULL;
    if (cc_cuda_tu_where(&m->tu, clang_getCursorLocation(m->krefs.data[i].at)) != CC_CUDA_MAIN)
      continue;
    catf(&note, "%s is named here but not launched with <<<...>>>: if this launches it "
         "(cudaLaunchKernel, ...), give it %s, where g and b are the grid and block it had",
         m->kernel_name, geo);
    add_site(out, clang_getCursorLocation(m->krefs.data[i].at), 0, note);
  }
  skipped = clang_getSkippedRanges(m->tu.tu, m->tu.main);
  for (unsigned i = 0; skipped && i < skipped->count; i++) {
    struct cc_cuda_tokens tk;
    cc_cuda_tokens_get(&m->tu, skipped->ranges[i], &tk);
    for (unsigned j = 0; j < tk.n; j++)
      if (cc_cuda_token_is(&tk, j, m->kernel_name)) {
        char *note = NULL;
        catf(&note, "%s is named in code the preprocessor skipped (#if), which coalcheck "
             "did not parse: if it launches %s there, give it %s, where g and b are the grid "
             "and block it had", m->kernel_name, m->kernel_name, geo);
        add_site(out, clang_getTokenLocation(tk.tu, tk.tok[j]), 0, note);
        break;
      }
    cc_cuda_tokens_release(&tk);
  }
  if (skipped)
    clang_disposeSourceRangeList(skipped);
  free(geo);
}

/* Decides which launches can be rewritten: a launch fails when grid or block cannot be,
 * and a variable is rewritable only when every launch using it is rewritten. */
static void decide(const struct cc_cuda_model *m, struct cc_cuda_vref *vrefs, struct site *sites,
                   size_t n)
{
  for (size_t l = 0; l < n; l++) {
    CXCursor arg[2];
    sites[l].call = m->launches.data[l].call;
    sites[l].ok = 1;
    if (clang_Cursor_getNumArguments(m->launches.data[l].config) < 2 ||
        cc_cuda_tu_where(&m->tu, clang_getCursorLocation(sites[l].call)) != CC_CUDA_MAIN) {
      sites[l].ok = 0;
      catf(&sites[l].why, "its configuration cannot be read");
      continue;
    }
    for (int w = 0; w < 2; w++) {
      arg[w] = clang_Cursor_getArgument(m->launches.data[l].config, (unsigned)w);
      classify(m, arg[w], &sites[l].g[w]);
      if (sites[l].g[w].kind == G_VAR) { /* this reference is a use by launch l */
        CXCursor ref = written(m, arg[w]);
        for (size_t i = 0; i < m->vrefs.len; i++)
          if (clang_equalCursors(vrefs[i].ref, ref)) {
            vrefs[i].role = CC_CUDA_V_LAUNCH;
            vrefs[i].launch = (int)l;
          }
      }
    }
    {
      unsigned off;
      if (!cc_cuda_tu_off(&m->tu, clang_getCursorLocation(sites[l].call), &off) ||
          cc_cuda_model_expansion_at(m, off)) {
        sites[l].ok = 0;
        catf(&sites[l].why, "the launch is written by a macro");
      }
    }
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t l = 0; l < n; l++)
      for (int w = 0; w < 2 && sites[l].ok; w++)
        if (!geo_ok(m, vrefs, sites, &sites[l].g[w], w)) {
          sites[l].ok = 0;
          catf(&sites[l].why, "%s", sites[l].g[w].why);
          changed = 1;
        }
  }
}

void cc_cuda_launch_rewrite(const struct cc_cuda_model *m, const int sigma[3],
                            cc_cuda_edits *ed, struct cc_cuda_rewrite *out)
{
  size_t n = m->launches.len;
  struct site *sites = cc_xcalloc(n ? n : 1, sizeof *sites);
  struct cc_cuda_vref *vrefs = cc_xcalloc(m->vrefs.len ? m->vrefs.len : 1, sizeof *vrefs);
  CC_VEC(CXCursor) done = {0};
  int inv[3];
  for (int e = 0; e < 3; e++)
    inv[sigma[e]] = e;
  if (m->vrefs.len)
    memcpy(vrefs, m->vrefs.data, m->vrefs.len * sizeof *vrefs);
  decide(m, vrefs, sites, n);
  /* first the letters of NAME.e (they may lie in text that moves), then the moves */
  for (size_t i = 0; i < m->vrefs.len; i++) {
    const struct cc_cuda_vref *v = &vrefs[i];
    int used = 0;
    for (size_t l = 0; l < n && !used; l++)
      for (int w = 0; w < 2; w++)
        used = used || (sites[l].ok && sites[l].g[w].kind == G_VAR &&
                        clang_equalCursors(sites[l].g[w].var, v->var));
    if (used && v->role == CC_CUDA_V_MEMBER && sigma[v->e] != v->e) {
      char text[2] = {"xyz"[sigma[v->e]], '\0'};
      cc_cuda_edits_add(ed, v->off, v->off + 1, text);
    }
  }
  for (size_t l = 0; l < n; l++)
    for (int w = 0; w < 2 && sites[l].ok; w++) {
      struct geo *g = &sites[l].g[w];
      int seen = 0;
      if (g->kind == G_VAR) {
        for (size_t i = 0; i < done.len && !seen; i++)
          seen = clang_equalCursors(done.data[i], g->var);
        if (seen)
          continue;
        CC_VEC_PUSH(&done, g->var);
      }
      move_args(m, ed, &g->args, sigma, inv);
    }
  for (size_t l = 0; l < n; l++) {
    char *note = NULL;
    if (cc_cuda_tu_where(&m->tu, clang_getCursorLocation(sites[l].call)) != CC_CUDA_MAIN)
      continue;
    if (sites[l].ok) {
      note_rewritten(m, ed, &sites[l], &note);
    } else {
      char *g = describe(m, &sites[l].g[0], 0, inv), *b = describe(m, &sites[l].g[1], 1, inv);
      catf(&note, "not rewritten: %s; launch %s here with grid %s and block %s", sites[l].why,
           m->kernel_name, g, b);
      free(g);
      free(b);
    }
    add_site(out, clang_getCursorLocation(sites[l].call), sites[l].ok, note);
  }
  if (out->nsites == 0) {
    char *geo = generic_geometry(inv);
    out->caller_note = NULL;
    catf(&out->caller_note, "no <<<...>>> launch of %s in %s: launch %s with %s, where g and "
         "b are the grid and block it had", m->kernel_name, m->tu.path, m->kernel_name, geo);
    free(geo);
  }
  other_sites(m, inv, out);
  if (out->nsites > 1)
    qsort(out->sites, out->nsites, sizeof *out->sites, site_cmp);
  CC_VEC_FREE(&done);
  for (size_t l = 0; l < n; l++) {
    free(sites[l].why);
    free(sites[l].g[0].why);
    free(sites[l].g[1].why);
  }
  free(vrefs);
  free(sites);
}
