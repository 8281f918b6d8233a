/* coalcheck CUDA front end: each thread of a coarsened launch plays K threads of the old
 * one (plays.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"
#include "cuda/plays.h"

#define MAX_KIDS 300 /* the kernel's parameters and body, at most */

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *what, const char *why)
{
  char place[512];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s; %s", place, what, why);
}

/* The kernel's parameters' names (into names, at most max; *n of them) and its body
 * with its bytes [*b, *e), or a refusal. */
static int kernel_parts(const struct cc_cuda_model *m, CXCursor *body, unsigned *b,
                        unsigned *e, struct cc_err *err)
{
  CXCursor def = m->fns.data[m->kernel].def, kids[MAX_KIDS];
  unsigned n = cc_cuda_children(def, kids, MAX_KIDS);
  for (unsigned i = 0; i < n && i < MAX_KIDS; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_CompoundStmt) {
      *body = kids[i];
      if (cc_cuda_tu_extent(&m->tu, kids[i], b, e) && cc_cuda_model_whole(m, *b, *e))
        return CC_OK;
      return refuse(m, kids[i], err, "the kernel's body is written partly inside a macro",
                    "the plays wrap the body as written");
    }
  return refuse(m, def, err, "the kernel's body was not found", "define the kernel in the file");
}

/* The walk for the body's return statements: each becomes `goto __cc_played` (the end of
 * one play). A lambda's returns are its own. */
struct rwalk {
  const struct cc_cuda_model *m;
  cc_cuda_edits *ed;
  CXCursor bad; /* a return written partly inside a macro */
};

static enum CXChildVisitResult find_returns(CXCursor c, CXCursor parent, CXClientData d)
{
  struct rwalk *w = d;
  unsigned b, e;
  (void)parent;
  if (clang_getCursorKind(c) == CXCursor_LambdaExpr)
    return CXChildVisit_Continue;
  if (clang_getCursorKind(c) != CXCursor_ReturnStmt)
    return CXChildVisit_Recurse;
  if (!cc_cuda_tu_extent(&w->m->tu, c, &b, &e) || !cc_cuda_model_whole(w->m, b, e)) {
    if (clang_Cursor_isNull(w->bad))
      w->bad = c;
    return CXChildVisit_Continue;
  }
  cc_cuda_edits_add(w->ed, b, e, "goto __cc_played");
  return CXChildVisit_Continue;
}

/* The text before the body's own (replacing its `{`): the loop over the plays, the
 * played block index, fresh copies of the parameters (a body may assign them). */
static void opening(struct cc_strbuf *o, const struct cc_cuda_model *m, unsigned b,
                    uint32_t plays, int dim, const uint32_t grid[3])
{
  CXCursor def = m->fns.data[m->kernel].def, kids[MAX_KIDS];
  unsigned n = cc_cuda_children(def, kids, MAX_KIDS), used = cc_cuda_model_builtins_read(m);
  const char *c[3] = {"blockIdx.x", "blockIdx.y", "blockIdx.z"};
  char played[3][64];
  for (int d = 0; d < 3; d++) {
    if (d == dim)
      snprintf(played[d], sizeof played[d], "%s * %uu + __cc_q", c[d], plays);
    else
      snprintf(played[d], sizeof played[d], "%s", c[d]);
  }
  cc_strbuf_printf(o, "{\n  /* coalcheck fix: each thread plays %u threads of the launch of "
                   "grid (%u, %u, %u), those of blocks blockIdx.%c * %u + q (q = 0..%u), one "
                   "after the other; the original body runs as written, a return ending one "
                   "play */\n", plays, grid[0], grid[1], grid[2], "xyz"[dim], plays, plays - 1);
  for (unsigned i = 0, k = 0; i < n && i < MAX_KIDS; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_ParmDecl) {
      char *name = cc_cuda_str(clang_getCursorSpelling(kids[i]));
      if (*name)
        cc_strbuf_printf(o, "  const auto &__cc_a%u = %s;\n", k++, name);
      free(name);
    }
  cc_strbuf_printf(o, "  for (unsigned __cc_q = 0; __cc_q < %uu; __cc_q++) {\n", plays);
  for (unsigned i = 0, k = 0; i < n && i < MAX_KIDS; i++)
    if (clang_getCursorKind(kids[i]) == CXCursor_ParmDecl) {
      char *name = cc_cuda_str(clang_getCursorSpelling(kids[i]));
      if (*name)
        cc_strbuf_printf(o, "    decltype(%s) %s = __cc_a%u; (void)%s;\n", name, name, k, name);
      k += *name != '\0';
      free(name);
    }
  cc_strbuf_printf(o, "    const uint3 __cc_ctaid = make_uint3(%s, %s, %s);\n", played[0],
                   played[1], played[2]);
  if (used & (1u << CC_CUDA_B_CTAID))
    cc_strbuf_printf(o, "    const uint3 blockIdx = __cc_ctaid;\n");
  else
    cc_strbuf_printf(o, "    (void)__cc_ctaid;\n");
  if (used & (1u << CC_CUDA_B_NCTAID))
    cc_strbuf_printf(o, "    const dim3 gridDim(%uu, %uu, %uu);\n", grid[0], grid[1], grid[2]);
  /* #line: the body keeps its line numbers (the PTX's .loc, so the fix's per-line figures
   * compare with the original's) */
  cc_strbuf_printf(o, "#line %u\n{", cc_cuda_tu_line_at(&m->tu, b));
}

int cc_cuda_plays(const char *path, const char *text, size_t len, const char *kernel,
                  uint32_t plays, int dim, const uint32_t grid[3],
                  const char *const *extra_args, size_t nextra, char **out, size_t *out_len,
                  struct cc_err *err)
{
  struct cc_cuda_model m;
  const struct cc_cuda_edge *callee;
  CXCursor body;
  unsigned b = 0, e = 0;
  int rc;
  *out = NULL;
  *out_len = 0;
  if (plays < 2 || plays > 64 || dim < 0 || dim > 2 || grid[dim] % plays != 0)
    CC_BUG("cc_cuda_plays: %u plays along %d", plays, dim);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  if ((callee = cc_cuda_model_geometry_callee(&m))) {
    char what[600];
    snprintf(what, sizeof what, "%s, called by kernel %s, reads the thread geometry",
             m.fns.data[callee->to].name, m.kernel_name);
    rc = refuse(&m, callee->at, err, what, "each thread would play other threads through a "
                "local copy of blockIdx, which a called function does not see");
  } else if ((rc = kernel_parts(&m, &body, &b, &e, err)) == CC_OK) {
    struct cc_strbuf o = {0};
    cc_cuda_edits ed = {0};
    struct rwalk w = {&m, &ed, clang_getNullCursor()};
    clang_visitChildren(body, find_returns, &w);
    if (!clang_Cursor_isNull(w.bad)) {
      rc = refuse(&m, w.bad, err, "a return written partly inside a macro", "the plays make "
                  "each return end one play (goto), which needs the return as written");
    } else {
      opening(&o, &m, b, plays, dim, grid);
      cc_cuda_edits_add(&ed, b, b + 1, o.s);
      char close[96];
      snprintf(close, sizeof close, "}\n    __cc_played:;\n  }\n}\n#line %u\n",
               cc_cuda_tu_line_at(&m.tu, e - 1));
      cc_cuda_edits_add(&ed, e - 1, e, close);
      rc = cc_cuda_edits_apply(&ed, m.tu.text, m.tu.len, out, out_len, err);
    }
    free(o.s);
    cc_cuda_edits_release(&ed);
  }
  cc_cuda_model_release(&m);
  return rc;
}
