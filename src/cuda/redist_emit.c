/* coalcheck CUDA front end: the text of a reduction spread over a warp (redist.h), as
 * byte edits of the input: the prologue that turns the real builtins into the virtual
 * thread a warp plays, the rewritten loops with their warp sums (two forms), and the
 * stores outside the loops limited to lane 0. Every other byte stays. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

/* A growing string. */
struct text {
  char *s;
  size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  t->s = cc_xgrow(t->s, &t->cap, t->len + (size_t)n + 1, 1);
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* Adds the edit [b, e) -> t's text, each line break and the indentation after it made
 * one space, and frees t. Inserted code adds no line, so every original line keeps its
 * number: the report's per-line figures of the fix compare with the original's, and
 * the added code sits on the line of the construct it serves (a loop's warp sum on the
 * loop's last line). */
static void flush(cc_cuda_edits *ed, unsigned b, unsigned e, struct text *t)
{
  char *w = t->s;
  for (const char *r = t->s; r && *r; r++) {
    if (*r != '\n') {
      *w++ = *r;
      continue;
    }
    while (r[1] == ' ' || r[1] == '\t')
      r++;
    if (w == t->s || w[-1] != ' ')
      *w++ = ' ';
  }
  if (w)
    *w = '\0';
  cc_cuda_edits_add(ed, b, e, t->s ? t->s : "");
  free(t->s);
  memset(t, 0, sizeof *t);
}

/* One coordinate of the virtual thread: (v / div) % extent, as unsigned; "0u" when the
 * extent is 1. */
static void coordinate(struct text *t, unsigned long long div, uint32_t extent)
{
  if (extent == 1)
    put(t, "0u");
  else if (div == 1)
    put(t, "(unsigned)(__cc_v %% %uull)", extent);
  else
    put(t, "(unsigned)(__cc_v / %lluull %% %uull)", div, extent);
}

/* The prologue: replaces the body's `{`. The virtual linear id v = blockIdx.x * W +
 * threadIdx.y orders the original threads as CUDA numbers them (x fastest, then y, z,
 * then the CTAs likewise), one per warp; a warp past the last thread leaves at once
 * (all its lanes: v is uniform over the warp). */
static void prologue(struct text *t, const struct cc_cuda_redist_in *in,
                     const struct cc_cuda_rloop *loops, size_t nloops,
                     enum cc_cuda_redist_form f)
{
  unsigned long long threads = (unsigned long long)in->block[0] * in->block[1] * in->block[2];
  unsigned long long total = threads * in->grid[0] * in->grid[1] * in->grid[2];
  put(t, "{ /* coalcheck redistribute: warp v plays thread v of grid (%u, %u, %u) x block "
      "(%u, %u, %u), its lanes split the loop */\n", in->grid[0], in->grid[1], in->grid[2],
      in->block[0], in->block[1], in->block[2]);
  put(t, "  const int __cc_lane = (int)threadIdx.x, __cc_warp = (int)threadIdx.y;\n");
  put(t, "  const unsigned long long __cc_v = (unsigned long long)blockIdx.x * %uull + "
      "(unsigned long long)__cc_warp;\n", in->warps);
  for (size_t i = 0; f == CC_CUDA_REDIST_SHARED && i < nloops; i++)
    for (size_t k = 0; loops[i].selected && k < loops[i].targets.len; k++)
      put(t, "  __shared__ %s __cc_s%u[%u][32];\n", loops[i].targets.data[k].type,
          loops[i].targets.data[k].id, in->warps);
  put(t, "  if (__cc_v >= %lluull)\n    return;\n", total);
  put(t, "  const uint3 __cc_tid = make_uint3(");
  coordinate(t, 1, in->block[0]);
  put(t, ", ");
  coordinate(t, in->block[0], in->block[1]);
  put(t, ", ");
  coordinate(t, (unsigned long long)in->block[0] * in->block[1], in->block[2]);
  put(t, ");\n  const uint3 __cc_ctaid = make_uint3(");
  coordinate(t, threads, in->grid[0]);
  put(t, ", ");
  coordinate(t, threads * in->grid[0], in->grid[1]);
  put(t, ", ");
  coordinate(t, threads * in->grid[0] * in->grid[1], in->grid[2]);
  put(t, ");\n  {\n  const uint3 threadIdx = __cc_tid, blockIdx = __cc_ctaid;\n");
  put(t, "  const dim3 blockDim(%uu, %uu, %uu), gridDim(%uu, %uu, %uu);\n", in->block[0],
      in->block[1], in->block[2], in->grid[0], in->grid[1], in->grid[2]);
  put(t, "  (void)threadIdx; (void)blockIdx; (void)blockDim; (void)gridDim;");
}

/* The white space before the first non-blank byte of the line holding off. */
static void indent_of(const char *text, unsigned off, char *buf, size_t n)
{
  unsigned b = off, i = 0;
  while (b > 0 && text[b - 1] != '\n')
    b--;
  while (b + i < off && (text[b + i] == ' ' || text[b + i] == '\t') && i + 1 < n) {
    buf[i] = text[b + i];
    i++;
  }
  buf[i] = '\0';
}

/* The warp's sum of each partial, left in every lane. */
static void warp_sum(struct text *t, const struct cc_cuda_rloop *l, enum cc_cuda_redist_form f,
                     const char *ind)
{
  if (f == CC_CUDA_REDIST_SHUFFLE) {
    /* butterfly: after offsets 16, 8, 4, 2, 1 every lane holds the sum of all 32, the
     * same bits in each (a + b == b + a) */
    put(t, "%sfor (int __cc_o = 16; __cc_o > 0; __cc_o /= 2) {", ind);
    for (size_t k = 0; k < l->targets.len; k++)
      put(t, " __cc_p%u += __shfl_xor_sync(0xffffffffu, __cc_p%u, __cc_o);",
          l->targets.data[k].id, l->targets.data[k].id);
    put(t, " }\n");
    return;
  }
  /* the warp's row of the shared array; a tree of halving strides, lane l < o adding
   * l + o: 32 consecutive words, one per bank, no conflict */
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, "%s__cc_s%u[__cc_warp][__cc_lane] = __cc_p%u;\n", ind, l->targets.data[k].id,
        l->targets.data[k].id);
  put(t, "%s__syncwarp();\n%sfor (int __cc_o = 16; __cc_o > 0; __cc_o /= 2) {\n%s  if "
      "(__cc_lane < __cc_o) {", ind, ind, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, " __cc_s%u[__cc_warp][__cc_lane] += __cc_s%u[__cc_warp][__cc_lane + __cc_o];",
        l->targets.data[k].id, l->targets.data[k].id);
  put(t, " }\n%s  __syncwarp();\n%s}\n", ind, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, "%s__cc_p%u = __cc_s%u[__cc_warp][0];\n", ind, l->targets.data[k].id,
        l->targets.data[k].id);
  put(t, "%s__syncwarp();\n", ind);
}

/* The sums folded into the targets: a local in every lane (each holds the same sum), a
 * memory target by lane 0 between two __syncwarp() (so that it is added once, and the
 * other lanes see it before they read it). */
static void fold(struct text *t, const struct cc_cuda_rloop *l, const char *ind)
{
  int memory = 0;
  for (size_t k = 0; k < l->targets.len; k++)
    if (!l->targets.data[k].memory)
      put(t, "%s%s += __cc_p%u;\n", ind, l->targets.data[k].text, l->targets.data[k].id);
    else
      memory = 1;
  if (!memory)
    return;
  put(t, "%s__syncwarp();\n%sif (__cc_lane == 0) {", ind, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    if (l->targets.data[k].memory)
      put(t, " %s += __cc_p%u;", l->targets.data[k].text, l->targets.data[k].id);
  put(t, " }\n%s__syncwarp();\n", ind);
}

static void loop_edits(const struct cc_cuda_model *m, const struct cc_cuda_rloop *l,
                       enum cc_cuda_redist_form f, cc_cuda_edits *ed)
{
  struct text t = {0};
  char ind[128];
  const char *text = m->tu.text;
  indent_of(text, l->b, ind, sizeof ind);
  put(&t, "{");
  for (size_t k = 0; k < l->targets.len; k++)
    put(&t, " %s __cc_p%u = 0;", l->targets.data[k].type, l->targets.data[k].id);
  put(&t, "\n%s", ind);
  flush(ed, l->b, l->b, &t);
  put(&t, "(%.*s) + __cc_lane", (int)(l->init_e - l->init_b), text + l->init_b);
  flush(ed, l->init_b, l->init_e, &t);
  put(&t, "%s += 32", l->info.var);
  flush(ed, l->step_b, l->step_e, &t);
  for (size_t i = 0; i < l->renames.len; i++) {
    put(&t, "__cc_p%u", l->targets.data[l->renames.data[i].target].id);
    flush(ed, l->renames.data[i].b, l->renames.data[i].e, &t);
  }
  put(&t, "\n");
  warp_sum(&t, l, f, ind);
  fold(&t, l, ind);
  put(&t, "%s}", ind);
  flush(ed, l->e, l->e, &t);
}

void cc_cuda_redist_edits(const struct cc_cuda_model *m, const struct cc_cuda_redist_in *in,
                          unsigned body_b, unsigned body_e, struct cc_cuda_rloop *loops,
                          size_t nloops, const struct cc_cuda_rstore *stores, size_t nstores,
                          enum cc_cuda_redist_form f, cc_cuda_edits *ed, uint32_t *shared_bytes)
{
  struct text t = {0};
  *shared_bytes = 0;
  prologue(&t, in, loops, nloops, f);
  flush(ed, body_b, body_b + 1, &t);
  put(&t, "}\n}");
  flush(ed, body_e - 1, body_e, &t);
  for (size_t i = 0; i < nloops; i++) {
    if (!loops[i].selected)
      continue;
    loop_edits(m, &loops[i], f, ed);
    for (size_t k = 0; f == CC_CUDA_REDIST_SHARED && k < loops[i].targets.len; k++)
      *shared_bytes += in->warps * 32u * loops[i].targets.data[k].size;
  }
  for (size_t i = 0; i < nstores; i++) {
    cc_cuda_edits_add(ed, stores[i].b, stores[i].b, "{ if (__cc_lane == 0) { ");
    cc_cuda_edits_add(ed, stores[i].e, stores[i].e, " } __syncwarp(); }");
  }
}
