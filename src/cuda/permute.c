/* coalcheck CUDA front end: cc_cuda_permute, the thread-geometry permutation of a kernel
 * written in CUDA C (CGO 2015 Sec. 4.2, applied to the source), and what it refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *what, const char *why)
{
  char place[512];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s; %s", place, what, why);
}

/* Builtins used in ways a renaming of components cannot follow. */
static int check_uses(const struct cc_cuda_model *m, struct cc_err *err)
{
  for (size_t i = 0; i < m->uses.len; i++) {
    const struct cc_cuda_use *u = &m->uses.data[i];
    char what[128];
    if (!cc_cuda_model_in_tree(m, u->fn))
      continue;
    snprintf(what, sizeof what, u->addr ? "the address of a component of %s is taken"
                                        : "%s is used whole (copied, passed or converted)",
             cc_cuda_builtin_names[u->b]);
    return refuse(m, u->at, err, what, u->addr
                  ? "the rewrite renames components and cannot follow a pointer: read the "
                    "component directly"
                  : "the rewrite renames components only: write its .x, .y, .z where it is "
                    "used");
  }
  return CC_OK;
}

/* Functions of the tree that the rewrite cannot see or change. */
static int check_functions(const struct cc_cuda_model *m, struct cc_err *err)
{
  for (size_t i = 0; i < m->fns.len; i++) {
    const struct cc_cuda_fn *f = &m->fns.data[i];
    enum CXCursorKind k = clang_getCursorKind(f->decl);
    char what[600];
    if (!f->in_tree)
      continue;
    if (f->visited && f->reads && f->where != CC_CUDA_MAIN) {
      snprintf(what, sizeof what, "%s, called by kernel %s, reads the thread geometry but is "
               "defined outside %s", f->name, m->kernel_name, m->tu.path);
      return refuse(m, f->def, err, what, "the rewrite changes only that file: move the "
                    "function into it or rewrite the other file too");
    }
    /* implicit members (constructors, operator=) have no definition in the text; a free
     * function without one is defined in another file (-rdc) and may read the geometry */
    if (!f->visited && (k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate) &&
        (f->where == CC_CUDA_MAIN || f->where == CC_CUDA_HEADER)) {
      snprintf(what, sizeof what, "kernel %s calls %s, which is declared here but not "
               "defined in %s or its headers", m->kernel_name, f->name, m->tu.path);
      return refuse(m, f->decl, err, what, "it may read the thread geometry: define it in "
                    "the file");
    }
  }
  return CC_OK;
}

/* A function of the tree that reads the geometry must not be used outside the tree. */
static int check_outside(const struct cc_cuda_model *m, struct cc_err *err)
{
  for (size_t i = 0; i < m->edges.len; i++) {
    const struct cc_cuda_edge *e = &m->edges.data[i];
    const struct cc_cuda_fn *to = &m->fns.data[e->to];
    char what[600];
    if (cc_cuda_model_in_tree(m, e->from) || !to->in_tree || !to->reads_tree ||
        e->to == m->kernel)
      continue;
    snprintf(what, sizeof what, "%s reads the thread geometry (kernel %s calls it) and is "
             "also used here, %s%s", to->name, m->kernel_name,
             e->from >= 0 ? "in " : "at file scope",
             e->from >= 0 ? m->fns.data[e->from].name : "");
    return refuse(m, e->at, err, what, "rewriting it would change that use too: give the "
                  "kernel its own copy");
  }
  return CC_OK;
}

/* A builtin written in a region the preprocessor skipped inside the tree. */
static int check_skipped(const struct cc_cuda_model *m, struct cc_err *err)
{
  CXSourceRangeList *sk = clang_getSkippedRanges(m->tu.tu, m->tu.main);
  int rc = CC_OK;
  for (unsigned i = 0; sk && i < sk->count && rc == CC_OK; i++) {
    unsigned b, e;
    struct cc_cuda_tokens tk;
    int inside = 0;
    if (!cc_cuda_tu_off(&m->tu, clang_getRangeStart(sk->ranges[i]), &b) ||
        !cc_cuda_tu_off(&m->tu, clang_getRangeEnd(sk->ranges[i]), &e))
      continue;
    for (size_t f = 0; f < m->fns.len && !inside; f++) {
      unsigned fb, fe;
      const struct cc_cuda_fn *fn = &m->fns.data[f];
      inside = fn->in_tree && fn->visited && fn->where == CC_CUDA_MAIN &&
               cc_cuda_tu_extent(&m->tu, fn->def, &fb, &fe) && b < fe && e > fb;
    }
    if (!inside)
      continue;
    cc_cuda_tokens_get(&m->tu, sk->ranges[i], &tk);
    for (unsigned j = 0; j < tk.n && rc == CC_OK; j++)
      for (int bi = 0; bi < CC_CUDA_B_WARPSIZE && rc == CC_OK; bi++)
        if (cc_cuda_token_is(&tk, j, cc_cuda_builtin_names[bi])) {
          char place[512];
          cc_cuda_tu_place(&m->tu, clang_getTokenLocation(tk.tu, tk.tok[j]), place, sizeof place);
          rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: %s in code the preprocessor skipped (an "
                          "#if branch of kernel %s or a function it calls); coalcheck parses "
                          "device code with __CUDA_ARCH__ 900 and cannot rewrite what it does "
                          "not parse: rewrite that branch by hand or remove the #if", place,
                          cc_cuda_builtin_names[bi], m->kernel_name);
        }
    cc_cuda_tokens_release(&tk);
  }
  if (sk)
    clang_disposeSourceRangeList(sk);
  return rc;
}

/* 1 when every reference recorded at offset off is a builtin component of the tree. */
static int only_tree_components_at(const struct cc_cuda_model *m, unsigned off)
{
  size_t lo = 0, hi = m->marks.len;
  while (lo < hi) { /* first mark at or after off */
    size_t mid = (lo + hi) / 2;
    if (m->marks.data[mid].off < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (; lo < m->marks.len && m->marks.data[lo].off == off; lo++)
    if (!m->marks.data[lo].comp || !cc_cuda_model_in_tree(m, m->marks.data[lo].fn))
      return 0;
  return 1;
}

/* 1 when a macro whose expansion holds offset off pastes tokens (##): a pasted token
 * (`var_##c`) can carry an argument's letter where the AST shows no reference to it. */
static int pasted_around(const struct cc_cuda_model *m, unsigned off)
{
  int yes = 0;
  for (size_t i = 0; i < m->exps.len && m->exps.data[i].b <= off && !yes; i++) {
    struct cc_cuda_tokens tk;
    if (off >= m->exps.data[i].e)
      continue;
    cc_cuda_tokens_get(&m->tu, clang_getCursorExtent(m->exps.data[i].def), &tk);
    for (unsigned j = 1; j < tk.n && !yes; j++)
      yes = cc_cuda_token_is(&tk, j, "##");
    cc_cuda_tokens_release(&tk);
  }
  return yes;
}

/* Edits of the components written in the input itself (directly or as macro arguments). */
static int component_edits(const struct cc_cuda_model *m, const int sigma[3], cc_cuda_edits *ed,
                           unsigned *count, struct cc_err *err)
{
  for (size_t i = 0; i < m->comps.len; i++) {
    const struct cc_cuda_comp *c = &m->comps.data[i];
    char text[2] = {"xyz"[sigma[c->e]], '\0'};
    if (!cc_cuda_model_in_tree(m, c->fn) || c->spell == CC_CUDA_BODY)
      continue;
    if (c->spell == CC_CUDA_ELSEWHERE)
      return refuse(m, c->at, err, "a thread-geometry component is written outside the file",
                    "the rewrite changes only the file: move that code into it");
    if (c->spell == CC_CUDA_ARG &&
        (!only_tree_components_at(m, c->off) || pasted_around(m, c->off)))
      return refuse(m, c->at, err, "this macro argument's letter reaches code outside the "
                    "kernel's call tree, names something else in the macro's body or is "
                    "pasted (##)", "write the component outside the macro call");
    if (!cc_cuda_edits_touch(ed, c->off, c->off + 1)) {
      cc_cuda_edits_add(ed, c->off, c->off + 1, text);
      *count += sigma[c->e] != c->e;
    }
  }
  return CC_OK;
}

static void check_sigma(const int sigma[3])
{
  int seen = 0;
  for (int e = 0; e < 3; e++) {
    if (sigma[e] < 0 || sigma[e] > 2 || (seen & (1 << sigma[e])))
      CC_BUG("cc_cuda_permute: sigma (%d, %d, %d) is not a permutation of {0,1,2}",
             sigma[0], sigma[1], sigma[2]);
    seen |= 1 << sigma[e];
  }
}

int cc_cuda_permute(const char *path, const char *text, size_t len, const char *kernel,
                    const int sigma[3], const char *const *extra_args, size_t nextra,
                    struct cc_cuda_rewrite *out, struct cc_err *err)
{
  struct cc_cuda_model m;
  cc_cuda_edits ed = {0};
  unsigned count = 0;
  int rc;
  memset(out, 0, sizeof *out);
  check_sigma(sigma);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  if ((rc = check_uses(&m, err)) == CC_OK && (rc = check_functions(&m, err)) == CC_OK &&
      (rc = check_outside(&m, err)) == CC_OK && (rc = check_skipped(&m, err)) == CC_OK &&
      (rc = component_edits(&m, sigma, &ed, &count, err)) == CC_OK &&
      (rc = cc_cuda_macro_edits(&m, sigma, &ed, &count, err)) == CC_OK) {
    cc_cuda_launch_rewrite(&m, sigma, &ed, out);
    rc = cc_cuda_edits_apply(&ed, text, len, &out->text, &out->len, err);
  }
  out->kernel_edits = count;
  cc_cuda_edits_release(&ed);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_rewrite_release(out);
  return rc;
}

int cc_cuda_available(void)
{
  return 1;
}
