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

/* What the text of a form names for the group of lanes playing one virtual thread: the
 * shuffle's and __syncwarp's mask and the width of the segmented shuffle. V = 32 keeps
 * the whole-warp text (full mask, no width). */
struct group {
  uint32_t lanes;            /* V */
  char mask[16];             /* "0xffffffffu" or "__cc_mask" */
  char sync[32];             /* "__syncwarp()" or "__syncwarp(__cc_mask)" */
  char width[16];            /* "" or ", 8" */
};

static void group_of(const struct cc_cuda_redist_in *in, struct group *g)
{
  g->lanes = cc_cuda_redist_lanes(in);
  if (g->lanes == 32) {
    snprintf(g->mask, sizeof g->mask, "0xffffffffu");
    snprintf(g->sync, sizeof g->sync, "__syncwarp()");
    g->width[0] = '\0';
  } else {
    snprintf(g->mask, sizeof g->mask, "__cc_mask");
    snprintf(g->sync, sizeof g->sync, "__syncwarp(__cc_mask)");
    snprintf(g->width, sizeof g->width, ", %u", g->lanes);
  }
}

/* The first lines of the prologue. V = 32: the virtual linear id v = blockIdx.x * W +
 * threadIdx.y, one per warp. V < 32: v = (blockIdx.x * W + threadIdx.y) * (32 / V) +
 * threadIdx.x / V, one per group of V lanes; __cc_lane is the lane in the group,
 * __cc_g the group's first lane and __cc_mask its lanes. Either way the original threads
 * keep CUDA's order (x fastest, then y, z, then the CTAs likewise) along v. */
static void virtual_id(struct text *t, const struct cc_cuda_redist_in *in, uint32_t lanes)
{
  if (lanes == 32) {
    put(t, "  const int __cc_lane = (int)threadIdx.x, __cc_warp = (int)threadIdx.y;\n");
    put(t, "  const unsigned long long __cc_v = (unsigned long long)blockIdx.x * %uull + "
        "(unsigned long long)__cc_warp;\n", in->warps);
    return;
  }
  put(t, "  const int __cc_lane = (int)(threadIdx.x %% %uu), __cc_warp = (int)threadIdx.y;\n",
      lanes);
  put(t, "  const int __cc_g = (int)threadIdx.x - __cc_lane;\n");
  put(t, "  const unsigned __cc_mask = 0x%xu << __cc_g;\n", (1u << lanes) - 1u);
  put(t, "  const unsigned long long __cc_v = ((unsigned long long)blockIdx.x * %uull + "
      "(unsigned long long)__cc_warp) * %uull + (unsigned long long)(threadIdx.x / %uu);\n",
      in->warps, 32u / lanes, lanes);
}

/* The prologue: replaces the body's `{`. A warp (group) past the last thread leaves at
 * once (all its lanes: v is uniform over the group). */
static void prologue(struct text *t, const struct cc_cuda_redist_in *in,
                     const struct cc_cuda_rloop *loops, size_t nloops,
                     enum cc_cuda_redist_form f)
{
  unsigned long long threads = (unsigned long long)in->block[0] * in->block[1] * in->block[2];
  unsigned long long total = threads * in->grid[0] * in->grid[1] * in->grid[2];
  uint32_t lanes = cc_cuda_redist_lanes(in);
  if (lanes == 32)
    put(t, "{ /* coalcheck redistribute: warp v plays thread v of grid (%u, %u, %u) x block "
        "(%u, %u, %u), its lanes split the loop */\n", in->grid[0], in->grid[1], in->grid[2],
        in->block[0], in->block[1], in->block[2]);
  else
    put(t, "{ /* coalcheck redistribute: group v of %u lanes plays thread v of grid (%u, %u, "
        "%u) x block (%u, %u, %u), its lanes split the loop */\n", lanes, in->grid[0],
        in->grid[1], in->grid[2], in->block[0], in->block[1], in->block[2]);
  virtual_id(t, in, lanes);
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

/* The group's sum of each partial, left in every lane of the group. */
static void warp_sum(struct text *t, const struct cc_cuda_rloop *l, enum cc_cuda_redist_form f,
                     const struct group *g, const char *ind)
{
  /* the group's slot of the warp's row of the shared array: lane __cc_lane of the group
   * whose first lane is __cc_g (V = 32: the group is the warp) */
  const char *slot = g->lanes == 32 ? "__cc_lane" : "__cc_g + __cc_lane";
  const char *first = g->lanes == 32 ? "0" : "__cc_g";
  if (f == CC_CUDA_REDIST_SHUFFLE) {
    /* butterfly: after offsets V/2, ..., 2, 1 every lane of the group holds the sum of
     * its V lanes, the same bits in each (a + b == b + a); a width of V keeps each
     * exchange inside the group (shfl.sync's segment mask) */
    put(t, "%sfor (int __cc_o = %u; __cc_o > 0; __cc_o /= 2) {", ind, g->lanes / 2);
    for (size_t k = 0; k < l->targets.len; k++)
      put(t, " __cc_p%u += __shfl_xor_sync(%s, __cc_p%u, __cc_o%s);", l->targets.data[k].id,
          g->mask, l->targets.data[k].id, g->width);
    put(t, " }\n");
    return;
  }
  /* the group's V words of the warp's row of the shared array; a tree of halving
   * strides, lane l < o adding l + o: consecutive words, one per bank, no conflict */
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, "%s__cc_s%u[__cc_warp][%s] = __cc_p%u;\n", ind, l->targets.data[k].id, slot,
        l->targets.data[k].id);
  put(t, "%s%s;\n%sfor (int __cc_o = %u; __cc_o > 0; __cc_o /= 2) {\n%s  if "
      "(__cc_lane < __cc_o) {", ind, g->sync, ind, g->lanes / 2, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, " __cc_s%u[__cc_warp][%s] += __cc_s%u[__cc_warp][%s + __cc_o];",
        l->targets.data[k].id, slot, l->targets.data[k].id, slot);
  put(t, " }\n%s  %s;\n%s}\n", ind, g->sync, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    put(t, "%s__cc_p%u = __cc_s%u[__cc_warp][%s];\n", ind, l->targets.data[k].id,
        l->targets.data[k].id, first);
  put(t, "%s%s;\n", ind, g->sync);
}

/* The sums folded into the targets: a local in every lane (each holds the same sum), a
 * memory target by the group's lane 0 between two __syncwarp() over the group (so that
 * it is added once, and the other lanes see it before they read it). */
static void fold(struct text *t, const struct cc_cuda_rloop *l, const struct group *g,
                 const char *ind)
{
  int memory = 0;
  for (size_t k = 0; k < l->targets.len; k++)
    if (!l->targets.data[k].memory)
      put(t, "%s%s += __cc_p%u;\n", ind, l->targets.data[k].text, l->targets.data[k].id);
    else
      memory = 1;
  if (!memory)
    return;
  put(t, "%s%s;\n%sif (__cc_lane == 0) {", ind, g->sync, ind);
  for (size_t k = 0; k < l->targets.len; k++)
    if (l->targets.data[k].memory)
      put(t, " %s += __cc_p%u;", l->targets.data[k].text, l->targets.data[k].id);
  put(t, " }\n%s%s;\n", ind, g->sync);
}

static void loop_edits(const struct cc_cuda_model *m, const struct cc_cuda_rloop *l,
                       enum cc_cuda_redist_form f, const struct group *g, cc_cuda_edits *ed)
{
  struct text t = {0};
  char ind[128];
  const char *text = m->tu.text;
  indent_of(text, l->b, ind, sizeof ind);
  put(&t, "{");
  for (size_t k = 0; k < l->targets.len; k++)
    put(&t, " %s __cc_p%u = 0;", l->targets.data[k].type, l->targets.data[k].id);
  /* A whole warp on a long loop (V = 32: 2+ iterations a lane) is bound by the loads it
   * keeps in flight (Little's law): nvcc unrolls by 4 of itself; 8 doubles the bytes in
   * flight. On an H100 (bench/results/table3-h100.md, 2026-11-27 05:40): gesummv at
   * n = 4096, 31 warps an SM, 2 rows a step: unroll 4 2281 GB/s, 8 2453, 16 2411. The
   * _Pragma form adds no line. Sub-warp groups have about 4 iterations a lane: no
   * pragma. */
  if (g->lanes == 32)
    put(&t, " _Pragma(\"unroll %u\")", CC_CUDA_REDIST_UNROLL);
  put(&t, "\n%s", ind);
  flush(ed, l->b, l->b, &t);
  put(&t, "(%.*s) + __cc_lane", (int)(l->init_e - l->init_b), text + l->init_b);
  flush(ed, l->init_b, l->init_e, &t);
  put(&t, "%s += %u", l->info.var, g->lanes);
  flush(ed, l->step_b, l->step_e, &t);
  for (size_t i = 0; i < l->renames.len; i++) {
    put(&t, "__cc_p%u", l->targets.data[l->renames.data[i].target].id);
    flush(ed, l->renames.data[i].b, l->renames.data[i].e, &t);
  }
  put(&t, "\n");
  warp_sum(&t, l, f, g, ind);
  fold(&t, l, g, ind);
  put(&t, "%s}", ind);
  flush(ed, l->e, l->e, &t);
}

void cc_cuda_redist_edits(const struct cc_cuda_model *m, const struct cc_cuda_redist_in *in,
                          unsigned body_b, unsigned body_e, struct cc_cuda_rloop *loops,
                          size_t nloops, const struct cc_cuda_rstore *stores, size_t nstores,
                          enum cc_cuda_redist_form f, cc_cuda_edits *ed, uint32_t *shared_bytes)
{
  struct text t = {0};
  struct group g;
  char close[64];
  group_of(in, &g);
  *shared_bytes = 0;
  prologue(&t, in, loops, nloops, f);
  flush(ed, body_b, body_b + 1, &t);
  put(&t, "}\n}");
  flush(ed, body_e - 1, body_e, &t);
  for (size_t i = 0; i < nloops; i++) {
    if (!loops[i].selected)
      continue;
    loop_edits(m, &loops[i], f, &g, ed);
    for (size_t k = 0; f == CC_CUDA_REDIST_SHARED && k < loops[i].targets.len; k++)
      *shared_bytes += in->warps * 32u * loops[i].targets.data[k].size;
  }
  snprintf(close, sizeof close, " } %s; }", g.sync);
  for (size_t i = 0; i < nstores; i++) {
    cc_cuda_edits_add(ed, stores[i].b, stores[i].b, "{ if (__cc_lane == 0) { ");
    cc_cuda_edits_add(ed, stores[i].e, stores[i].e, close);
  }
}
