/* coalcheck fix --transform lift: an intra-thread loop lifted into a thread dimension
 * (CGO 2015, seeds/004, Sec. 4.3, Algorithm 2).
 *
 * A kernel whose threads each walk a row (`for (i...) A[tx*N + i] = v;`) touches N
 * elements apart in one warp; making i the thread index x (and the old index y) makes
 * consecutive lanes touch consecutive elements. Steps, as in Algorithm 2:
 * 1. the polyhedral representation: cc_cuda_scop_extract (src/cuda) reads the affine
 *    subset of the kernel, each global index g_d = blockIdx.d*blockDim.d+threadIdx.d of
 *    the launch's dimensions (x, and y, z where their extent is more than 1) playing the
 *    paper's t_d loop 0..tdim_d (refusing what is not affine, with its place);
 * 2. legality and parallelism (poly.c, isl): a loop may become a thread dimension only
 *    when no dependence relates instances with different (g..., loop) values, a statement
 *    outside the loop counting as run by the thread of the loop's first value (which
 *    runs it in the generated code: correlation's diagonal store);
 * 3. the permutation ILP: which of (g_x, g_y, g_z, loops) becomes the new t_x, minimising
 *    the dynamic count of references whose stride along t_x is neither 0 nor 1 element.
 *    The other rows of the permutation do not enter the objective (only t_x's stride
 *    does), and the candidates are the few geometry variables and loops, so enumerating
 *    them and counting exactly solves that ILP exactly. A geometry variable other than
 *    g_x is always legal (the original's threads are independent): the geometry permuted;
 * 4. code: isl's AST generator with the thread dimensions fixed to the new thread indices
 *    (parameters, as PPCG does), each statement printed as its original text in a block
 *    that declares the thread's virtual builtins (a local `threadIdx` shadows the real
 *    one), the locals it reads and its loop counters;
 * 5. mapping back: the chosen variable on x, tiled over blocks (blockDim.x * gridDim.x
 *    covers its extent, blocks of at most 256 threads in multiples of 32), the old global
 *    indices other than it, in order, on y and z with the rest of the block (z at most 64
 *    threads), each a loop in the kernel strided by its threads when its extent needs more
 *    than CUDA's 65535 blocks in y or z; a fourth dimension (a 3-D kernel with a loop
 *    lifted) is a loop in the kernel over its whole range.
 * Outputs compare bitwise: every instance runs once, with the same operands, and only
 * instances without dependences between them change their order. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/scop.h"
#include "fix/fix_impl.h"
#include "fix/poly.h"

#define TX "__cc_tx"  /* the new thread index x: the lifted loop's value */
#define TY "__cc_ty"  /* the new thread index y: the old global index x (or y) */
#define TZ "__cc_tz"  /* the new thread index z: the old global index y (or z) */
#define MAX_GRID_YZ 65535u
#define MAX_BLOCK_Z 64u
#define BLOCK_THREADS 256u

/* What lift chose, for printing. */
struct lift {
  const struct cc_fix_opts *o;
  const struct cc_cuda_scop *s;
  int var;                 /* the lifted loop's variable */
};

static int64_t iabs64(int64_t v)
{
  return v < 0 ? -v : v;
}

/* Requests of the global accesses on source line `line` in the original run: the dynamic
 * weight of the paper's cost (Sec. 4.3: "weighted by their execution counts"). */
static double line_weight(const struct cc_fix_measure *before, unsigned line)
{
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(before);
  double w = 0;
  for (size_t i = 0; k && i < k->n_insns; i++)
    if (k->insns[i].info.line == line && k->insns[i].info.space == CC_SPACE_GLOBAL)
      w += (double)k->insns[i].requests;
  return w;
}

/* The step of variable var between neighbouring threads when it becomes t_x: a loop's
 * own step (`j += 2` takes every other value), 1 for a geometry variable. */
static int64_t var_step(const struct cc_cuda_scop *s, int var)
{
  int64_t st = s->vars[var].step < 0 ? -s->vars[var].step : s->vars[var].step;
  return s->vars[var].kind == CC_CUDA_SV_LOOP && st > 1 ? st : 1;
}

/* The excess of a warp request whose lanes are stride elements of e bytes apart, from 0
 * (stride 0 or 1: the ideal sectors) to 1 (a 32-byte sector a lane): (min(32, stride e)
 * - e) / (32 - e), the sectors a warp of 32 lanes touches beyond the ideal e, over the
 * worst excess (sm_90's 32-byte sectors; MODELS.md). */
static double stride_excess(int64_t stride, uint32_t e)
{
  double span;
  if (stride <= 1)
    return 0;
  if (e == 0 || e >= 32)
    return 1;
  span = (double)stride * e < 32 ? (double)stride * e : 32;
  return (span - e) / (32.0 - e);
}

/* The paper's objective for variable var as the new t_x: the references whose subscript
 * moves by neither 0 nor 1 element between neighbouring threads, weighted by their
 * requests, each by its excess (stride_excess: 1 for a sector a lane, as the paper's 0/1
 * count, less for a small stride such as a stepped loop's 2, which still halves what a
 * warp reads). */
static double cost(const struct cc_cuda_scop *s, const double *w, int var)
{
  double c = 0;
  for (uint32_t i = 0; i < s->nstmts; i++) {
    uint32_t nmem = 0;
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++)
      nmem += !s->stmts[i].acc[k].priv;
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++) {
      const struct cc_cuda_scop_access *a = &s->stmts[i].acc[k];
      int64_t stride = iabs64(a->sub.coef[var]) * var_step(s, var);
      if (!a->priv) /* a scalar is a register */
        c += w[i] / nmem * stride_excess(stride, a->elem_bytes);
    }
  }
  return c;
}

/* 1 when every start of stepped loop var leaves the same remainder modulo its step (the
 * start's coefficients are multiples of the step), so that threads lo, lo + step, ...
 * meet every value the loop takes. */
static int step_aligned(const struct cc_cuda_scop *s, int var)
{
  const struct cc_cuda_scop_var *v = &s->vars[var];
  if (var_step(s, var) == 1)
    return 1;
  for (int k = 0; k < CC_CUDA_SCOP_MAXV; k++)
    if (v->lo->coef[k] % var_step(s, var) != 0)
      return 0;
  return 1;
}

/* Where thread x = 0 of the lifted kernel starts, so that warps start on a 32-byte
 * sector: thread x is var = lo - shift + (blockIdx.x * bx + threadIdx.x), shift = (r +
 * lo + sum a[k] * (new thread index k)) mod per (k = 1, 2: y and z, uniform in a warp
 * since bx is a multiple of 32), in [0, per). A loop of step C > 1 (thread x is var =
 * lo - C d + C t) takes the constant d in [0, per) with r + lo - C d = 0 modulo per, when
 * one exists (its warps span 32 C elements, whole sectors when the first is aligned).
 * per = 0: no shift. */
struct warp_align {
  int64_t per;             /* elements of a sector (32 / element bytes), or 0 */
  int64_t r, a[3];         /* residues modulo per; a[0] unused */
  int64_t step;            /* the lifted loop's step C (1: a unit step) */
};

static int64_t mod64(int64_t v, int64_t m)
{
  return (v % m + m) % m;
}

/* The alignment that reference a asks for when var becomes thread x (geometry variables
 * in thread dimensions m->var[1..2], each not strided): its stride along var is +1
 * element and every loop's or other geometry variable's coefficient is a multiple of a
 * sector's elements, so that the sector offset of a warp's first lane depends only on
 * the thread's y and z; the launch's parameter values (from the launch) are constants.
 * Assumes the array starts on a sector (cudaMalloc aligns to 256 bytes). 0: none. */
static int ref_align(const struct cc_cuda_scop *s, const struct cc_cuda_scop_access *a,
                     int var, const int dimvar[3], struct warp_align *al)
{
  int64_t per = a->elem_bytes ? 32 / a->elem_bytes : 0, c = a->sub.c;
  memset(al, 0, sizeof *al);
  if (a->priv || per < 2 || 32 % a->elem_bytes || a->sub.coef[var] != 1)
    return 0;
  for (int k = 0; k < s->nvars; k++) {
    int dim = 0;
    if (k == var)
      continue;
    if (s->vars[k].kind == CC_CUDA_SV_PARAM) {
      c += a->sub.coef[k] * s->vars[k].value;
      continue;
    }
    for (int j = 1; j < 3; j++)
      if (dimvar[j] == k)
        dim = j;
    if (dim)
      al->a[dim] = mod64(a->sub.coef[k], per);
    else if (a->sub.coef[k] % per)
      return 0;
  }
  al->per = per;
  al->r = mod64(c, per);
  return 1;
}

/* The alignment of the lifted loop var (range from lo): the one asked for by the most
 * weight (w: requests a statement) of the unit-stride references; none when that one is
 * met already (r + lo = 0 modulo per, no y or z term), var steps (its warps span 32
 * steps), or no reference asks. dimvar: the geometry variables on y and z (-1: none or
 * strided). Covariance's symmat[j1*(m+1) + j2] with m = 384 asks for a shift by j1's row
 * (385 j1 mod 8); a loop from 1 over rows of 64 floats for lo - 1. */
static void warp_align_choose(const struct cc_cuda_scop *s, const double *w, int var,
                              int64_t lo, const int dimvar[3], struct warp_align *best)
{
  double bw = 0;
  int64_t step = var_step(s, var);
  memset(best, 0, sizeof *best);
  for (uint32_t i = 0; i < s->nstmts; i++)
    for (uint32_t k = 0; k < s->stmts[i].nacc; k++) {
      struct warp_align al, o;
      double sum = 0;
      if (!ref_align(s, &s->stmts[i].acc[k], var, dimvar, &al) ||
          (step > 1 && (al.a[1] || al.a[2]))) /* a stepped loop: constant shifts only */
        continue;
      for (uint32_t i2 = 0; i2 < s->nstmts; i2++) /* the weight of the same request */
        for (uint32_t k2 = 0; k2 < s->stmts[i2].nacc; k2++)
          if (ref_align(s, &s->stmts[i2].acc[k2], var, dimvar, &o) &&
              !memcmp(&o, &al, sizeof o))
            sum += w[i2];
      if (sum > bw + 1e-9) {
        bw = sum;
        *best = al;
      }
    }
  best->step = step;
  if (best->per && !best->a[1] && !best->a[2] && mod64(best->r + lo, best->per) == 0)
    best->per = 0;
  if (best->per && step > 1) { /* some d with r + lo - C d = 0 (mod per), or none */
    int64_t d = 0;
    while (d < best->per && mod64(best->r + lo - step * d, best->per) != 0)
      d++;
    if (d == best->per)
      best->per = 0;
  }
}

/* The threads x needs beyond var's values: the largest shift, in threads (a stepped
 * loop's d; a unit loop's shift in elements is its threads). */
static int64_t warp_align_extra(const struct warp_align *al, int64_t lo)
{
  int64_t d = 0;
  if (!al->per)
    return 0;
  if (al->step > 1) {
    while (d < al->per && mod64(al->r + lo - al->step * d, al->per) != 0)
      d++;
    return d < al->per ? d : 0;
  }
  if (!al->a[1] && !al->a[2])
    return mod64(al->r + lo, al->per);
  return al->per - 1;
}

static void place(const struct cc_cuda_scop *s, int var, char *buf, size_t n)
{
  snprintf(buf, n, "%s:%u:%u", s->path, s->vars[var].line, s->vars[var].column);
}

/* ---- printing a statement instance ---- */

static int is_ident(char c)
{
  return c == '_' || isalnum((unsigned char)c);
}

/* 1 when the bytes [b, e) of the input contain word w. */
static int has_word(const char *text, unsigned b, unsigned e, const char *w)
{
  size_t n = strlen(w);
  for (unsigned i = b; i + n <= e; i++)
    if (memcmp(text + i, w, n) == 0 && (i == b || !is_ident(text[i - 1])) &&
        (i + n == e || !is_ident(text[i + n])))
      return 1;
  return 0;
}

/* 1 when statement st or a declaration it sees names w. */
static int names(const struct lift *l, const struct cc_cuda_scop_stmt *st, const char *w)
{
  const char *text = l->o->input_text;
  if (has_word(text, st->b, st->e, w))
    return 1;
  for (uint32_t d = 0; d < st->ndecls; d++)
    if (has_word(text, l->s->decls[st->decls[d]].b, l->s->decls[st->decls[d]].e, w))
      return 1;
  return 0;
}

/* `const uint3 NAME = make_uint3(...);`: threadIdx (op '%') or blockIdx (op '/') of the
 * original thread whose global indices are args[0..ngeo), each component g_d op the
 * original blockDim.d; 0 in the dimensions past the geometry's. */
static void put_builtin(struct cc_strbuf *f, const struct cc_cuda_scop *s, const char *name,
                        char op, const char *const *args, int ind)
{
  cc_strbuf_printf(f, "%*sconst uint3 %s = make_uint3(", ind, "", name);
  for (int d = 0; d < 3; d++) {
    if (d < s->ngeo)
      cc_strbuf_printf(f, "%s(unsigned)(%s) %c %uu", d ? ", " : "", args[d], op, s->block[d]);
    else
      cc_strbuf_printf(f, ", 0u");
  }
  cc_strbuf_printf(f, ");\n");
}

/* Prints statement st's text in a block: the virtual builtins of the original thread
 * (args[0..ngeo), its global indices), then the declarations it can see and its loop counters (args[1..]) in source
 * order (the loop counters' values args[ngeo..]), then the statement. */
static void print_stmt(void *ctx, struct cc_strbuf *f, uint32_t stmt, const char *const *args,
                       int nargs, int ind)
{
  const struct lift *l = ctx;
  const struct cc_cuda_scop *s = l->s;
  const struct cc_cuda_scop_stmt *st = &s->stmts[stmt];
  const char *text = l->o->input_text;
  uint32_t d = 0;
  int k = 0;
  (void)nargs;
  cc_strbuf_printf(f, "%*s{\n", ind, "");
  /* the builtins of thread g, each only where the statement or a declaration it sees
   * names it (an unused one would draw nvcc's warning 177) */
  if (names(l, st, "threadIdx"))
    put_builtin(f, s, "threadIdx", '%', args, ind + 2);
  if (names(l, st, "blockIdx"))
    put_builtin(f, s, "blockIdx", '/', args, ind + 2);
  if (names(l, st, "blockDim"))
    cc_strbuf_printf(f, "%*sconst dim3 blockDim(%uu, %uu, %uu);\n", ind + 2, "", l->o->block[0],
            l->o->block[1], l->o->block[2]);
  if (names(l, st, "gridDim"))
    cc_strbuf_printf(f, "%*sconst dim3 gridDim(%uu, %uu, %uu);\n", ind + 2, "", l->o->grid[0],
            l->o->grid[1], l->o->grid[2]);
  /* merge the visible declarations and the loops by their offsets */
  while (d < st->ndecls || k < st->nloops) {
    const struct cc_cuda_scop_decl *dc = d < st->ndecls ? &s->decls[st->decls[d]] : NULL;
    if (dc && (k == st->nloops || dc->b < st->beta[k])) {
      cc_strbuf_printf(f, "%*s%.*s\n", ind + 2, "", (int)(dc->e - dc->b), text + dc->b);
      d++;
    } else {
      const struct cc_cuda_scop_var *v = &s->vars[st->loops[k]];
      const char *val = args[s->ngeo + k];
      if (v->type)
        cc_strbuf_printf(f, "%*s%s %s = %s;\n", ind + 2, "", v->type, v->name, val);
      else
        cc_strbuf_printf(f, "%*s%s = %s;\n", ind + 2, "", v->name, val);
      k++;
    }
  }
  cc_strbuf_printf(f, "%*s%s;\n", ind + 2, "", st->text);
  cc_strbuf_printf(f, "%*s}\n", ind, "");
}

/* ---- the choice ---- */

struct choice {
  int var;                 /* chosen loop, or -1 */
  double cost_g, cost;     /* objective with g as t_x (the original), with var */
  char refusal[1024];      /* var < 0: why */
};

static void choose(const struct cc_cuda_scop *s, const struct cc_fix_poly *p,
                   const double *w, struct choice *c)
{
  char illegal[768] = "", why[256];
  int nloops = 0;
  c->var = -1;
  c->cost_g = cost(s, w, 0);
  for (int v = 1; v < s->nvars; v++) {
    double cv;
    char at[300];
    int64_t lo, hi;
    if (s->vars[v].kind == CC_CUDA_SV_GEO) {
      /* another geometry dimension as x: the permutation's candidate, always legal (the
         original's threads are independent) */
      if ((cv = cost(s, w, v)) < c->cost_g && (c->var < 0 || cv < c->cost)) {
        c->var = v;
        c->cost = cv;
      }
      continue;
    }
    if (s->vars[v].kind != CC_CUDA_SV_LOOP || !cc_fix_poly_range(p, v, &lo, &hi))
      continue;
    nloops++;
    cv = cost(s, w, v);
    place(s, v, at, sizeof at);
    if (!step_aligned(s, v)) {
      if (!illegal[0])
        snprintf(illegal, sizeof illegal, "%s: the loop over %s starts at a value whose "
                 "remainder modulo its step %lld changes with the thread or an outer loop, so "
                 "threads %lld values apart from one start would miss iterations", at, s->vars[v].name,
                 (long long)var_step(s, v), (long long)var_step(s, v));
      continue;
    }
    if (!cc_fix_poly_parallel(p, v, lo, why, sizeof why)) {
      if (!illegal[0])
        snprintf(illegal, sizeof illegal, "%s: the loop over %s carries a dependence (%s); "
                 "lifting it would race", at, s->vars[v].name, why);
      continue;
    }
    if (cv < c->cost_g && (c->var < 0 || cv < c->cost)) {
      c->var = v;
      c->cost = cv;
    }
  }
  if (c->var >= 0)
    return;
  if (nloops == 0)
    snprintf(c->refusal, sizeof c->refusal, "%s:%u:%u: the kernel has no loop that runs in "
             "this launch, so none can become a thread dimension", s->path, s->line, s->column);
  else if (c->cost_g == 0)
    snprintf(c->refusal, sizeof c->refusal, "%s:%u:%u: already coalesced: every access has "
             "stride 0 or 1 along the thread index", s->path, s->line, s->column);
  else if (illegal[0])
    snprintf(c->refusal, sizeof c->refusal, "%s", illegal);
  else
    snprintf(c->refusal, sizeof c->refusal, "%s:%u:%u: no loop has fewer non-unit-stride "
             "references than the thread index", s->path, s->line, s->column);
}

/* ---- the launch ---- */

static uint32_t ceil_div(uint64_t a, uint64_t b)
{
  return (uint32_t)((a + b - 1) / b);
}

/* The lifted kernel's thread dimensions: the chosen variable on x, then the geometry
 * variables other than it, in order, on y and z; a fourth (a 3-D kernel with a loop
 * lifted) is a loop in the kernel over its whole range. */
struct dims {
  int var[4], n;           /* the variables, x first */
  uint64_t ext[4];         /* their extents: x from lo, the others from 0 */
  int64_t stride[3];       /* y, z: 0, or the stride of the loop each thread runs over it */
};

static const char *const dim_names[3] = {TX, TY, TZ};

/* The new launch: x covers ext[0] in blocks of at most 256 threads (a multiple of 32), y
 * and z their extents with the rest of the block (z at most 64, CUDA's limit). When one
 * needs more than CUDA's 65535 blocks in y or z (Programming Guide, technical
 * specifications), its blocks are spread evenly and each thread loops over it with stride
 * the threads in that dimension. Returns 0 with why (size bytes) when x alone needs more
 * than 2^31 - 1 blocks. */
static int geometry(struct dims *m, uint32_t grid[3], uint32_t block[3], char *why, size_t size)
{
  uint64_t bx = (m->ext[0] + 31) / 32 * 32, left;
  if (bx > BLOCK_THREADS)
    bx = BLOCK_THREADS;
  if (m->ext[0] / bx >= (1ull << 31)) {
    snprintf(why, size, "the lifted loop needs more than 2^31 - 1 blocks in x");
    return 0;
  }
  block[0] = (uint32_t)bx;
  grid[0] = ceil_div(m->ext[0], bx);
  left = BLOCK_THREADS / bx;
  for (int k = 1; k < 3; k++) {
    uint64_t ext = k < m->n ? m->ext[k] : 1, rows;
    block[k] = (uint32_t)(left < ext ? left : ext);
    if (k == 2 && block[k] > MAX_BLOCK_Z)
      block[k] = MAX_BLOCK_Z;
    left /= block[k];
    rows = ceil_div(ext, block[k]);
    m->stride[k] = 0;
    if (rows > MAX_GRID_YZ) {
      uint64_t trips = ceil_div(rows, MAX_GRID_YZ); /* each thread's iterations */
      rows = ceil_div(rows, trips);
      m->stride[k] = (int64_t)(rows * block[k]);
    }
    grid[k] = (uint32_t)rows;
  }
  return 1;
}

/* The launch as geometry() makes it, with x widened by the warp alignment's largest
 * shift (warp_align_choose); an alignment by a y or z that turns out strided (CUDA's grid
 * limit: a loop, not uniform per thread) is dropped. Returns geometry()'s result. */
static int aligned_geometry(const struct cc_cuda_scop *s, const double *w, struct dims *m,
                            int64_t lo, struct warp_align *al, uint32_t grid[3],
                            uint32_t block[3], char *why, size_t size)
{
  int dimvar[3] = {-1, -1, -1};
  uint64_t ext0 = m->ext[0];
  for (int k = 1; k < m->n && k < 3; k++)
    dimvar[k] = m->var[k];
  warp_align_choose(s, w, m->var[0], lo, dimvar, al);
  m->ext[0] = ext0 + (uint64_t)warp_align_extra(al, lo);
  if (!geometry(m, grid, block, why, size))
    return 0;
  if ((al->a[1] && m->stride[1]) || (al->a[2] && m->stride[2])) {
    memset(al, 0, sizeof *al);
    m->ext[0] = ext0;
    return geometry(m, grid, block, why, size);
  }
  return 1;
}

/* ---- the rewrite ---- */

/* Where the old global indices went: *old "x" or "x and y", *to "y" or "y and z" (a
 * strided one with " and a loop", a fourth "a loop"), each of size bytes. */
static void moved(const struct dims *m, char *old, char *to, size_t size)
{
  size_t a = 0, b = 0;
  old[0] = to[0] = '\0';
  for (int k = 1; k < m->n; k++) {
    const char *sep = k == 1 ? "" : k + 1 == m->n ? " and " : ", ";
    a += (size_t)snprintf(old + a, a < size ? size - a : 0, "%s%c", sep, "xyz"[m->var[k]]);
    b += (size_t)snprintf(to + b, b < size ? size - b : 0, "%s%s%s", sep,
                          k == 1 ? "y" : k == 2 ? "z" : "a loop",
                          k < 3 && m->stride[k] ? " and a loop" : "");
  }
}

/* Appends the declaration of __cc_tx: var's value for this thread, lo plus the thread's x
 * index (times var's step), less al's shift. */
static void print_tx(struct cc_strbuf *f, const struct cc_cuda_scop *s, int var, int64_t lo,
                     const struct warp_align *al, uint32_t bx)
{
  if (var_step(s, var) > 1) { /* consecutive threads take consecutive iterations */
    cc_strbuf_printf(f, "  const int %s = (int)(blockIdx.x * %uu + threadIdx.x) * %lld + (%lld);\n",
                     TX, bx, (long long)var_step(s, var),
                     (long long)(lo - var_step(s, var) * warp_align_extra(al, lo)));
    return;
  }
  if (!al->per || (!al->a[1] && !al->a[2])) {
    cc_strbuf_printf(f, "  const int %s = (int)(blockIdx.x * %uu + threadIdx.x) + (%lld);\n", TX,
                     bx, (long long)(lo - warp_align_extra(al, lo)));
    return;
  }
  /* the shift that puts var = lo - shift on a sector for this thread's y and z */
  cc_strbuf_printf(f, "  const int %s = (int)(blockIdx.x * %uu + threadIdx.x) + (%lld) - "
                   "(int)((%lluu", TX, bx, (long long)lo,
                   (unsigned long long)mod64(al->r + lo, al->per));
  for (int k = 1; k < 3; k++)
    if (al->a[k])
      cc_strbuf_printf(f, " + %lluu * (unsigned)%s", (unsigned long long)al->a[k], dim_names[k]);
  cc_strbuf_printf(f, ") %% %lluu);\n", (unsigned long long)al->per);
}

static int rewrite(const struct lift *l, const struct cc_fix_poly *p, int64_t lo,
                   const struct warp_align *al, const struct dims *m, const uint32_t block[3], char **text, size_t *len,
                   struct cc_err *err)
{
  const struct cc_cuda_scop *s = l->s;
  struct cc_fix_poly_lift pl;
  char *body, old[64], to[64];
  struct cc_strbuf sb = {0}, *f = &sb;
  int tx_late;
  memset(&pl, 0, sizeof pl);
  pl.var = l->var;
  pl.pin = lo;
  pl.vname = TX;
  pl.step = var_step(s, l->var);
  for (int k = 1; k < m->n; k++)
    pl.geo[m->var[k]] = (struct cc_fix_poly_dim){k < 3 ? dim_names[k] : NULL,
                                                 k < 3 ? m->stride[k] : 0};
  body = cc_fix_poly_codegen(p, &pl, print_stmt, (void *)l, 2, err);
  if (!body)
    return err->status;
  moved(m, old, to, sizeof old);
  cc_strbuf_printf(f, "%.*s", (int)s->body_b, l->o->input_text);
  if (s->vars[l->var].kind == CC_CUDA_SV_GEO)
    cc_strbuf_printf(f, "{\n  /* coalcheck fix --transform lift (CGO 2015 Sec. 4.3): the old "
                     "global index %c is thread index x, the old global %s %s %s %s */\n",
                     "xyz"[l->var], m->n > 2 ? "indices" : "index", old, m->n > 2 ? "are" : "is", to);
  else
    cc_strbuf_printf(f, "{\n  /* coalcheck fix --transform lift (CGO 2015 Sec. 4.3): the loop "
                     "over %s is thread index x, the old global %s %s %s %s */\n",
                     s->vars[l->var].name, m->n > 2 ? "indices" : "index", old, m->n > 2 ? "are" : "is",
                     to);
  tx_late = al->per && (al->a[1] || al->a[2]); /* its shift reads y and z */
  if (!tx_late)
    print_tx(f, s, l->var, lo, al, block[0]);
  for (int k = 1; k < m->n && k < 3; k++)
    cc_strbuf_printf(f, "  const int %s = (int)(blockIdx.%c * %uu + threadIdx.%c);\n",
                     dim_names[k], "xyz"[k], block[k], "xyz"[k]);
  if (tx_late)
    print_tx(f, s, l->var, lo, al, block[0]);
  /* the kernel's local scalars, private to a thread (scalar expansion: one per thread) */
  for (uint32_t i = 0; i < s->nprivs; i++)
    cc_strbuf_printf(f, "  %s %s;\n", s->privs[i].type, s->privs[i].name);
  cc_strbuf_printf(f, "%s}%.*s", body, (int)(l->o->input_len - s->body_e),
                   l->o->input_text + s->body_e);
  free(body);
  *text = sb.s;
  *len = sb.len;
  return CC_OK;
}

/* The thread dimensions of the lifted kernel for chosen variable var (range lo..hi):
 * var on x, the geometry variables g_d (each over 0..its largest value in a domain) after
 * it. Returns 0 with why when a geometry variable has no bounded range. */
static int thread_dims(const struct cc_cuda_scop *s, const struct cc_fix_poly *p, int var,
                       int64_t lo, int64_t hi, struct dims *m, char *why, size_t size)
{
  memset(m, 0, sizeof *m);
  m->var[0] = var;
  m->ext[0] = (uint64_t)((hi - lo) / var_step(s, var) + 1);
  m->n = 1;
  for (int d = 0; d < s->ngeo; d++) {
    int64_t glo, ghi;
    if (d == var)
      continue;
    if (!cc_fix_poly_range(p, d, &glo, &ghi) || glo < 0) {
      snprintf(why, size, "the global index %c has no range in this launch", "xyz"[d]);
      return 0;
    }
    m->var[m->n] = d;
    m->ext[m->n++] = (uint64_t)ghi + 1;
  }
  return 1;
}

/* The candidate's one line: "the loop over i at k.cu:4:5 lifted into thread index x
 * (0..63), the old index x moved to y" (1-D), "... the old indices x and y moved to y and
 * z" (2-D), or for a geometry variable "the global index y of kernel K (k.cu:3:17) made
 * thread index x ...". */
static void describe(const struct cc_cuda_scop *s, const struct dims *m, int var,
                     const char *kernel, const char *at, int64_t lo, int64_t hi,
                     const struct warp_align *al, char *buf, size_t size)
{
  char old[64], to[64], from[64] = "";
  const char *which = m->n > 2 ? "indices" : "index";
  char text[640]; /* holds the longest: the precisions below bound every field */
  size_t len;
  moved(m, old, to, sizeof old);
  if (al->per && !al->a[1] && !al->a[2])
    snprintf(from, sizeof from, ", thread x 0 at %lld so that warps start on a sector",
             (long long)(lo - al->step * warp_align_extra(al, lo)));
  else if (al->per)
    snprintf(from, sizeof from, ", shifted by its row's offset so that warps start on a "
             "sector");
  if (s->vars[var].kind == CC_CUDA_SV_GEO)
    snprintf(text, sizeof text, "the global index %c of kernel %.40s (%.120s) made thread "
             "index x (%lld..%lld%s), the old %s %s moved to %s", "xyz"[var], kernel, at,
             (long long)lo, (long long)hi, from, which, old, to);
  else {
    char step[40] = "";
    if (var_step(s, var) > 1)
      snprintf(step, sizeof step, ", step %lld", (long long)var_step(s, var));
    snprintf(text, sizeof text, "the loop over %.40s at %.120s lifted into thread index x "
             "(%lld..%lld%s%s), the old %s %s moved to %s", s->vars[var].name, at,
             (long long)lo, (long long)hi, step, from, which, old, to);
  }
  /* a description longer than buf is cut there: it is read, not parsed */
  len = strlen(text);
  if (len >= size)
    len = size - 1;
  memcpy(buf, text, len);
  buf[len] = '\0';
}

static int lift_scop(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                     const struct cc_cuda_scop *s, cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_fix_poly *p = NULL;
  struct choice ch;
  struct cc_fix_xcand c;
  struct lift l = {o, s, -1};
  double *w;
  int64_t lo = 0, hi = -1;
  struct warp_align al;
  struct dims m;
  char why[512] = "", at[300];
  int rc;
  if ((rc = cc_fix_poly_build(s, &p, err)) != CC_OK)
    return rc;
  if (!cc_fix_poly_parallel(p, -1, 0, why, sizeof why)) {
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: threads of kernel %s share an element "
                    "(%s): the original's threads are not independent", s->path, s->line,
                    s->column, o->kernel_name, why);
    cc_fix_poly_free(p);
    return rc;
  }
  w = cc_xcalloc(s->nstmts ? s->nstmts : 1, sizeof *w);
  for (uint32_t i = 0; i < s->nstmts; i++)
    w[i] = line_weight(before, s->stmts[i].line) + 1; /* +1: a reference never run counts */
  choose(s, p, w, &ch);
  if (ch.var < 0) {
    free(w);
    cc_fix_poly_free(p);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s", ch.refusal);
  }
  l.var = ch.var;
  if (s->vars[ch.var].kind == CC_CUDA_SV_GEO)
    snprintf(at, sizeof at, "%s:%u:%u", s->path, s->line, s->column);
  else
    place(s, ch.var, at, sizeof at);
  if (!cc_fix_poly_range(p, ch.var, &lo, &hi) ||
      !thread_dims(s, p, ch.var, lo, hi, &m, why, sizeof why)) {
    free(w);
    cc_fix_poly_free(p);
    if (!why[0])
      snprintf(why, sizeof why, "the loop over %s never runs in this launch (its domain is "
               "empty or unbounded)", s->vars[ch.var].name);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s", at, why);
  }
  memset(&c, 0, sizeof c);
  rc = aligned_geometry(s, w, &m, lo, &al, c.grid, c.block, why, sizeof why);
  free(w);
  if (!rc) {
    cc_fix_poly_free(p);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s", at, why);
  }
  rc = rewrite(&l, p, lo, &al, &m, c.block, &c.text, &c.len, err);
  cc_fix_poly_free(p);
  if (rc != CC_OK)
    return rc;
  c.transform = "lift";
  describe(s, &m, ch.var, o->kernel_name, at, lo, hi, &al, c.what, sizeof c.what);
  snprintf(c.why, sizeof c.why, "references with a non-unit stride along x, weighted by "
           "their requests and their excess sectors: %.0f before, %.0f after (CGO 2015 Sec. "
           "4.3)", ch.cost_g, ch.cost);
  c.compare = CC_FIX_COMPARE_BITWISE;
  {
    char note[256];
    snprintf(note, sizeof note, "launch %s with grid (%u, %u, %u) and block (%u, %u, %u)",
             o->kernel_name, c.grid[0], c.grid[1], c.grid[2], c.block[0], c.block[1],
             c.block[2]);
    c.launch_note = cc_xstrdup(note);
  }
  CC_VEC_PUSH(out, c);
  return CC_OK;
}

int cc_fix_threads_race(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        char *why, size_t size)
{
  struct cc_cuda_scop s;
  struct cc_fix_poly *p = NULL;
  struct cc_err err = {CC_OK, ""};
  char what[512] = "";
  int race = 0;
  if (!o->input_is_cuda ||
      cc_cuda_scop_extract(o->input, o->input_text, o->input_len, o->kernel_name, o->grid,
                           o->block, before->param_values, before->param_known,
                           before->nparams, o->clang_args, o->nclang_args, &s, &err) != CC_OK)
    return 0;
  if (cc_fix_poly_build(&s, &p, &err) == CC_OK && !cc_fix_poly_parallel(p, -1, 0, what, sizeof what)) {
    snprintf(why, size, "%s:%u:%u: threads of kernel %s share an element (%s)", s.path, s.line,
             s.column, o->kernel_name, what);
    race = 1;
  }
  cc_fix_poly_free(p);
  cc_cuda_scop_release(&s);
  return race;
}

int cc_fix_loads_first_legal(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                             char *why, size_t size)
{
  struct cc_cuda_scop s;
  struct cc_fix_poly *p = NULL;
  struct cc_err err = {CC_OK, ""};
  int ok = 0;
  if (cc_cuda_scop_extract(o->input, o->input_text, o->input_len, o->kernel_name, o->grid,
                           o->block, before->param_values, before->param_known,
                           before->nparams, o->clang_args, o->nclang_args, &s, &err) != CC_OK) {
    snprintf(why, size, "%.600s", err.msg);
    return 0;
  }
  if (cc_fix_poly_build(&s, &p, &err) != CC_OK)
    snprintf(why, size, "%.600s", err.msg);
  else
    ok = cc_fix_poly_loads_first(p, why, size);
  cc_fix_poly_free(p);
  cc_cuda_scop_release(&s);
  return ok;
}

int cc_fix_lift(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_cuda_scop s;
  int rc;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: loop lifting (CGO 2015 Sec. 4.3) needs the "
                      "kernel's CUDA C source; give the .cu file", o->input);
  rc = cc_cuda_scop_extract(o->input, o->input_text, o->input_len, o->kernel_name, o->grid,
                            o->block, before->param_values, before->param_known,
                            before->nparams, o->clang_args, o->nclang_args, &s, err);
  if (rc != CC_OK)
    return rc;
  rc = lift_scop(o, before, &s, out, err);
  cc_cuda_scop_release(&s);
  return rc;
}
