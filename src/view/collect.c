/* The collector behind the views: a sink teed beside the analyses (only with --html) that
 * keeps, for the first kernel of the stream, per-CTA aggregates binned to at most
 * CC_VIEW_MAX_CELLS cells under every model of the report (and per source line, for the
 * grid filtered by a line, within CC_VIEW_MAX_LINE_CELLS), each warp's operation
 * sequence for dWarp (dwarp.c) while its CTA runs, and the full records of a bounded
 * sample of warps (view.h). */
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

/* The distinct source lines of the instructions (slot_line, lines) and how many of them
 * get a per-line grid: as many as CC_VIEW_MAX_LINE_CELLS entries hold, in order of their
 * first instruction. */
static void index_lines(struct cc_view *v)
{
  size_t cells = (size_t)v->nx * v->ny;
  v->slot_line = cc_xcalloc(v->n_insns ? v->n_insns : 1, sizeof *v->slot_line);
  v->lines = cc_xcalloc(v->n_insns ? v->n_insns : 1, sizeof *v->lines);
  for (uint32_t i = 0; i < v->n_insns; i++) {
    const struct cc_view_insn *in = &v->insns[i];
    uint32_t l = 0;
    v->slot_line[i] = UINT32_MAX;
    if (!in->file)
      continue;
    while (l < v->n_lines && !(v->lines[l]->line == in->line &&
                               strcmp(v->lines[l]->file, in->file) == 0))
      l++;
    if (l == v->n_lines)
      v->lines[v->n_lines++] = &v->insns[i];
    v->slot_line[i] = l;
  }
  v->n_lines_kept = (uint32_t)(CC_VIEW_MAX_LINE_CELLS / (cells * v->n_models));
  if (v->n_lines_kept > v->n_lines)
    v->n_lines_kept = v->n_lines;
  v->line_costs = cc_xcalloc(v->n_lines_kept ? (size_t)v->n_lines_kept * v->n_models * cells : 1,
                             sizeof *v->line_costs);
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
  v->costs = cc_xcalloc((size_t)v->nx * v->ny * v->n_models, sizeof *v->costs);
  index_lines(v);
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

/* The index of the cell holding CTA cta. */
static size_t cell_index(const struct cc_view *v, const uint32_t cta[3])
{
  uint64_t row = cta[1] + (uint64_t)cta[2] * v->grid[1];
  return (size_t)(row / v->bin[1]) * v->nx + cta[0] / v->bin[0];
}

/* Adds record a's cost under model m to cell cost c and, when its line has a per-line
 * grid, to that line's entry lc; fills the dWarp figures of op when m is dWarp's. */
static void add_cost(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_view_cost *c, struct cc_view_line_cost *lc,
                     struct cc_view_op *op)
{
  uint64_t excess;
  if (a->space == CC_SPACE_SHARED) {
    struct cc_shared_cost sh;
    cc_model_shared(m, a, &sh);
    excess = sh.wavefronts - sh.ideal_wavefronts;
    c->shared_execs++;
    c->wavefronts += sh.wavefronts;
    c->excess_wavefronts += excess;
    if (op)
      op->conflicts = (uint32_t)excess;
  } else {
    struct cc_global_cost g;
    cc_model_global(m, a, &g);
    /* the transactions cover the unique bytes in aligned blocks of 32 bytes or more, so
     * they move at least the ideal sectors' bytes */
    excess = (uint64_t)g.transaction_bytes - 32u * (uint64_t)g.ideal_sectors;
    c->global_execs++;
    c->requests += g.requests;
    c->transactions += g.transactions;
    c->bytes += g.transaction_bytes;
    c->excess_bytes += excess;
    excess /= 32;
    if (op)
      op->sectors = g.sectors;
  }
  if (lc) {
    lc->execs++;
    lc->excess += excess;
  }
}

static int access_rec(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_view *v = ctx;
  struct cc_view_op op;
  size_t ci, cells;
  uint32_t line;
  (void)err;
  if (!v->in_kernel || a->warp >= v->warps_per_cta || a->insn_slot >= v->n_insns)
    return CC_OK;
  if (!v->cta_open || memcmp(v->cur_cta, a->cta, sizeof v->cur_cta) != 0) {
    cc_view_finish_cta(v);
    memcpy(v->cur_cta, a->cta, sizeof v->cur_cta);
    v->cta_open = 1;
    v->cells[cell_index(v, a->cta)].ctas++;
  }
  ci = cell_index(v, a->cta);
  cells = (size_t)v->nx * v->ny;
  line = v->slot_line[a->insn_slot];
  op = (struct cc_view_op){a->insn_slot, a->active, 0, 0};
  for (size_t k = 0; k < v->n_models; k++)
    add_cost(v->models[k], a, &v->costs[ci * v->n_models + k],
             line < v->n_lines_kept ? &v->line_costs[(line * v->n_models + k) * cells + ci]
                                    : NULL,
             k == v->dwarp_model ? &op : NULL);
  if (v->dwarp_model == v->n_models) { /* sm_90 not among the report's models */
    struct cc_view_cost scratch = {0};
    add_cost(v->model, a, &scratch, NULL, &op);
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

int cc_view_new(const char *archs, const struct cc_model_opts *opts, struct cc_view **out,
                struct cc_err *err)
{
  struct cc_view *v = cc_xcalloc(1, sizeof *v);
  int rc = cc_model_get_list(archs ? archs : "sm_90", opts, &v->models, &v->n_models, err);
  if (rc == CC_OK)
    rc = cc_model_get("sm_90", NULL, &v->model, err);
  if (rc != CC_OK) {
    cc_view_free(v);
    return rc;
  }
  v->smem_bank_width = opts ? opts->smem_bank_width : 0;
  for (v->dwarp_model = 0; v->dwarp_model < v->n_models; v->dwarp_model++)
    if (strcmp(cc_model_name(v->models[v->dwarp_model]), "sm_90") == 0)
      break;
  *out = v;
  return CC_OK;
}

void cc_view_set_unavailable(struct cc_view *v, const char *why)
{
  free(v->unavailable);
  v->unavailable = cc_xstrdup(why);
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
  free(v->costs);
  free(v->slot_line);
  free(v->lines);
  free(v->line_costs);
  free(v->unavailable);
  cc_model_free_list(v->models, v->n_models);
  free(v->insns);
  free(v->name);
  cc_model_free(v->model);
  free(v);
}
