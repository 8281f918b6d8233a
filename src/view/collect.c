/* The collector behind the views: a sink teed beside the analyses (only with --html) that
 * keeps, for the first kernel of the stream, per-CTA aggregates binned to at most
 * CC_VIEW_MAX_CELLS cells, each warp's operation sequence for dWarp (dwarp.c) while its
 * CTA runs, and the full records of a bounded sample of warps (view.h). */
#include "view/view_impl.h"

#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/mem.h"

/* Bins so that cells (nx x ny) <= CC_VIEW_MAX_CELLS: the grid's x by its linear x, y and
 * z folded into rows (row = y + z * grid_y), each bin bx x by CTAs, growing the larger
 * side first. */
static void choose_bins(struct cc_view *v)
{
  uint64_t cols = v->grid[0], rows = (uint64_t)v->grid[1] * v->grid[2];
  v->bin[0] = v->bin[1] = 1;
  while (((cols + v->bin[0] - 1) / v->bin[0]) * ((rows + v->bin[1] - 1) / v->bin[1]) >
         CC_VIEW_MAX_CELLS) {
    if ((cols + v->bin[0] - 1) / v->bin[0] >= (rows + v->bin[1] - 1) / v->bin[1])
      v->bin[0] *= 2;
    else
      v->bin[1] *= 2;
  }
  v->nx = (uint32_t)((cols + v->bin[0] - 1) / v->bin[0]);
  v->ny = (uint32_t)((rows + v->bin[1] - 1) / v->bin[1]);
}

static int begin_kernel(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct cc_view *v = ctx;
  (void)err;
  if (v->has_kernel) {
    v->later_kernels++;
    return CC_OK;
  }
  v->has_kernel = v->in_kernel = 1;
  v->name = cc_xstrdup(k->name ? k->name : "?");
  memcpy(v->grid, k->grid, sizeof v->grid);
  memcpy(v->block, k->block, sizeof v->block);
  v->warps_per_cta = (k->block[0] * k->block[1] * k->block[2] + CC_WARP_SIZE - 1) / CC_WARP_SIZE;
  v->n_insns = k->n_insns;
  v->insns = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *v->insns);
  for (uint32_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_info *in = &k->insns[i];
    v->insns[i] = (struct cc_view_insn){in->id, in->kind, in->space, in->size_bytes,
                                        cc_xstrdup(in->text ? in->text : ""),
                                        in->file ? cc_xstrdup(in->file) : NULL, in->line};
  }
  choose_bins(v);
  v->cells = cc_xcalloc((size_t)v->nx * v->ny, sizeof *v->cells);
  v->cur = cc_xcalloc(v->warps_per_cta ? v->warps_per_cta : 1, sizeof *v->cur);
  return CC_OK;
}

static void push_op(struct cc_view_cur *w, const struct cc_view_op *op)
{
  if (w->n_ops == CC_VIEW_MAX_SIG_OPS) {
    w->sig_truncated = 1;
    return;
  }
  if (w->n_ops == w->cap_ops) {
    w->cap_ops = w->cap_ops ? 2 * w->cap_ops : 16;
    w->ops = cc_xrealloc(w->ops, w->cap_ops * sizeof *w->ops);
  }
  w->ops[w->n_ops++] = *op;
}

/* Keeps the record itself while fewer than CC_VIEW_MAX_OPS are kept (a stored warp's
 * detail). */
static void push_rec(struct cc_view_cur *w, const struct cc_warp_access *a)
{
  if (w->n_recs == CC_VIEW_MAX_OPS) {
    w->recs_truncated++;
    return;
  }
  if (!w->recs)
    w->recs = cc_xmalloc(CC_VIEW_MAX_OPS * sizeof *w->recs);
  w->recs[w->n_recs++] = *a;
}

static struct cc_view_cell *cell_of(struct cc_view *v, const uint32_t cta[3])
{
  uint64_t row = cta[1] + (uint64_t)cta[2] * v->grid[1];
  return &v->cells[(size_t)(row / v->bin[1]) * v->nx + cta[0] / v->bin[0]];
}

static int access_rec(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_view *v = ctx;
  struct cc_view_op op;
  struct cc_view_cell *c;
  (void)err;
  if (!v->in_kernel || a->warp >= v->warps_per_cta || a->insn_slot >= v->n_insns)
    return CC_OK;
  if (!v->cta_open || memcmp(v->cur_cta, a->cta, sizeof v->cur_cta) != 0) {
    cc_view_finish_cta(v);
    memcpy(v->cur_cta, a->cta, sizeof v->cur_cta);
    v->cta_open = 1;
    cell_of(v, a->cta)->ctas++;
  }
  c = cell_of(v, a->cta);
  op = (struct cc_view_op){a->insn_slot, a->active, 0, 0};
  if (a->space == CC_SPACE_SHARED) {
    struct cc_shared_cost sh;
    cc_model_shared(v->model, a, &sh);
    op.conflicts = sh.wavefronts - sh.ideal_wavefronts;
    c->shared_requests++;
    c->excess_wavefronts += op.conflicts;
  } else {
    struct cc_global_cost g;
    cc_model_global(v->model, a, &g);
    op.sectors = g.sectors;
    c->global_requests += g.requests;
    c->sectors += g.sectors;
    c->excess_sectors += g.sectors - g.ideal_sectors;
  }
  push_op(&v->cur[a->warp], &op);
  push_rec(&v->cur[a->warp], a);
  return CC_OK;
}

static int end_kernel(void *ctx, struct cc_err *err)
{
  struct cc_view *v = ctx;
  (void)err;
  if (v->in_kernel)
    cc_view_finish_cta(v);
  v->in_kernel = 0;
  return CC_OK;
}

struct cc_access_sink cc_view_sink(struct cc_view *v)
{
  return (struct cc_access_sink){v, begin_kernel, access_rec, end_kernel};
}

int cc_view_new(struct cc_view **out, struct cc_err *err)
{
  struct cc_view *v = cc_xcalloc(1, sizeof *v);
  struct cc_model_opts mopts = {0, 0};
  int rc = cc_model_get("sm_90", &mopts, &v->model, err);
  if (rc != CC_OK) {
    free(v);
    return rc;
  }
  *out = v;
  return CC_OK;
}

void cc_view_free(struct cc_view *v)
{
  if (!v)
    return;
  for (uint32_t i = 0; i < v->n_insns; i++) {
    free(v->insns[i].text);
    free(v->insns[i].file);
  }
  for (uint32_t i = 0; i < v->warps_per_cta; i++) {
    free(v->cur[i].ops);
    free(v->cur[i].recs);
  }
  for (size_t i = 0; i < v->n_stored; i++)
    free(v->stored[i].recs);
  free(v->rep_ops);
  free(v->stored);
  free(v->cur);
  free(v->cells);
  free(v->insns);
  free(v->name);
  cc_model_free(v->model);
  free(v);
}
