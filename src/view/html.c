/* The page: the collected views and the report as one JSON document inside
 * <script type="application/json">, after the fixed page (page.c: style, markup,
 * script). Nothing is fetched; the page's own Content-Security-Policy forbids it. */
#include "view/view_impl.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "util/fileio.h"
#include "util/mem.h"

/* The largest source file the page embeds; a larger one is left out (named so). */
#define MAX_SOURCE_BYTES (4u << 20)

/* page.html, embedded by CMakeLists.txt (view_page.c in the build folder); the data goes
 * where it says <!--CC-DATA--> */
extern const char cc_view_page[];
#define DATA_MARK "<!--CC-DATA-->"

/* Whether s starts with U+2028 or U+2029 in UTF-8 (E2 80 A8 / E2 80 A9). */
static int is_line_sep(const unsigned char *s)
{
  return s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9);
}

cc_give char *cc_view_script_escape(const char *s)
{
  size_t n = 0;
  char *out, *p;
  for (const unsigned char *q = (const unsigned char *)s; *q; q++)
    n += (*q == '<' || *q == '>' || *q == '&') ? 6 : is_line_sep(q) ? 4 : 1;
  out = p = cc_xmalloc(n + 1);
  for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
    if (*q == '<' || *q == '>' || *q == '&') {
      p += sprintf(p, "\\u%04x", (unsigned)*q);
    } else if (is_line_sep(q)) {
      p += sprintf(p, "\\u%04x", q[2] == 0xA8 ? 0x2028u : 0x2029u);
      q += 2;
    } else {
      *p++ = (char)*q;
    }
  }
  *p = '\0';
  return out;
}

static cJSON *nums(const double *v, size_t n)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
  return a;
}

static cJSON *dims(const uint32_t d[3])
{
  double v[3] = {d[0], d[1], d[2]};
  return nums(v, 3);
}

/* cells: [ctas, warps, mean dWarp, max dWarp] per cell, rows of nx */
static cJSON *cells_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < (size_t)v->nx * v->ny; i++) {
    const struct cc_view_cell *c = &v->cells[i];
    double f[4] = {(double)c->ctas, (double)c->warps,
                   c->warps ? c->dwarp_sum / (double)c->warps : 0, c->dwarp_max};
    cJSON_AddItemToArray(a, nums(f, 4));
  }
  return a;
}

/* costs: model name -> per cell [global executions, requests, transactions, bytes moved,
 * excess bytes, shared executions, wavefronts, excess wavefronts] (cc_view_cost) */
static cJSON *costs_json(const struct cc_view *v)
{
  cJSON *o = cJSON_CreateObject();
  for (size_t k = 0; k < v->n_models; k++) {
    cJSON *a = cJSON_AddArrayToObject(o, cc_model_name(v->models[k]));
    for (size_t i = 0; i < (size_t)v->nx * v->ny; i++) {
      const struct cc_view_cost *c = &v->costs[i * v->n_models + k];
      double f[8] = {(double)c->global_execs, (double)c->requests, (double)c->transactions,
                     (double)c->bytes, (double)c->excess_bytes, (double)c->shared_execs,
                     (double)c->wavefronts, (double)c->excess_wavefronts};
      cJSON_AddItemToArray(a, nums(f, 8));
    }
  }
  return o;
}

/* lines: [{file, line}] the distinct source lines (an instruction's "li" indexes them);
 * line_cells: model name -> per line with a per-line grid (the first lines_kept) a flat
 * array [executions, excess] per cell (cc_view_line_cost) */
static cJSON *lines_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  for (uint32_t l = 0; l < v->n_lines; l++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", v->lines[l]->file);
    cJSON_AddNumberToObject(o, "line", v->lines[l]->line);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *line_cells_json(const struct cc_view *v)
{
  size_t cells = (size_t)v->nx * v->ny;
  cJSON *o = cJSON_CreateObject();
  for (size_t k = 0; k < v->n_models; k++) {
    cJSON *per = cJSON_AddArrayToObject(o, cc_model_name(v->models[k]));
    for (uint32_t l = 0; l < v->n_lines_kept; l++) {
      const struct cc_view_line_cost *lc = &v->line_costs[(l * v->n_models + k) * cells];
      cJSON *a = cJSON_CreateArray();
      for (size_t c = 0; c < cells; c++) {
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)lc[c].execs));
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)lc[c].excess));
      }
      cJSON_AddItemToArray(per, a);
    }
  }
  return o;
}

static cJSON *insns_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  for (uint32_t i = 0; i < v->n_insns; i++) {
    const struct cc_view_insn *in = &v->insns[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "ptx_index", in->id);
    cJSON_AddStringToObject(o, "ptx", in->text);
    cJSON_AddStringToObject(o, "space", cc_space_name(in->space));
    cJSON_AddStringToObject(o, "op", cc_access_kind_name(in->kind));
    cJSON_AddNumberToObject(o, "size_bytes", in->size_bytes);
    if (in->file)
      cJSON_AddStringToObject(o, "file", in->file);
    else
      cJSON_AddNullToObject(o, "file");
    cJSON_AddNumberToObject(o, "line", in->line);
    if (v->slot_line[i] != UINT32_MAX)
      cJSON_AddNumberToObject(o, "li", v->slot_line[i]);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* One dynamic instruction under model m: global [requests, transactions, bytes moved,
 * sectors, ideal sectors, excess bytes, [the transactions: lanes, bytes, request, address
 * - the lowest active lane's address, ...]] (the list empty when *budget is spent);
 * shared [requests, ways, wavefronts, ideal wavefronts]. */
static cJSON *op_cost_json(const struct cc_model *m, const struct cc_warp_access *a,
                           size_t *budget)
{
  if (a->space == CC_SPACE_SHARED) {
    struct cc_shared_cost s;
    double f[4];
    cc_model_shared(m, a, &s);
    f[0] = s.requests, f[1] = s.ways, f[2] = s.wavefronts, f[3] = s.ideal_wavefronts;
    return nums(f, 4);
  }
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  struct cc_global_cost g;
  uint32_t n = cc_model_global_list(m, a, &g, t, CC_MODEL_MAX_TRANSACTIONS);
  uint64_t low = UINT64_MAX;
  double f[6] = {g.requests, g.transactions, g.transaction_bytes, g.sectors, g.ideal_sectors,
                 (double)g.transaction_bytes - 32.0 * g.ideal_sectors};
  cJSON *o = nums(f, 6), *list = cJSON_CreateArray();
  for (int l = 0; l < CC_WARP_SIZE; l++)
    if ((a->active >> l & 1) && a->addr[l] < low)
      low = a->addr[l];
  if (n > *budget)
    n = 0; /* the page says the list was left out */
  *budget -= n;
  for (uint32_t i = 0; i < n; i++) {
    /* local accesses list the interleaved layout's addresses: relative to 0 */
    double d[4] = {t[i].lanes, t[i].bytes, t[i].request,
                   a->space == CC_SPACE_LOCAL ? (double)t[i].addr
                                              : (double)t[i].addr - (double)low};
    for (int j = 0; j < 4; j++)
      cJSON_AddItemToArray(list, cJSON_CreateNumber(d[j]));
  }
  cJSON_AddItemToArray(o, list);
  return o;
}

/* One dynamic instruction: [slot, dyn, active, [32 addresses, 0 where inactive], {model
 * name: op_cost_json}]. */
static cJSON *op_json(const struct cc_view *v, const struct cc_warp_access *a, size_t *budget)
{
  double f[3] = {a->insn_slot, (double)a->dyn, a->active};
  double addr[CC_WARP_SIZE];
  cJSON *o, *per = cJSON_CreateObject();
  for (int l = 0; l < CC_WARP_SIZE; l++)
    addr[l] = (a->active >> l & 1) ? (double)a->addr[l] : 0;
  o = nums(f, 3);
  cJSON_AddItemToArray(o, nums(addr, CC_WARP_SIZE));
  for (size_t k = 0; k < v->n_models; k++)
    cJSON_AddItemToObject(per, cc_model_name(v->models[k]),
                          op_cost_json(v->models[k], a, budget));
  cJSON_AddItemToArray(o, per);
  return o;
}

static cJSON *warps_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  size_t budget = CC_VIEW_MAX_TRANSACTIONS;
  for (size_t i = 0; i < v->n_stored; i++) {
    const struct cc_view_warp *w = &v->stored[i];
    cJSON *o = cJSON_CreateObject(), *ops = cJSON_CreateArray();
    cJSON_AddItemToObject(o, "cta", dims(w->cta));
    cJSON_AddNumberToObject(o, "warp", w->warp);
    cJSON_AddStringToObject(o, "role", cc_view_role_name(w->role));
    cJSON_AddNumberToObject(o, "dwarp", w->dwarp);
    cJSON_AddNumberToObject(o, "ops_left_out", (double)w->recs_truncated);
    for (size_t r = 0; r < w->n_recs; r++)
      cJSON_AddItemToArray(ops, op_json(v, &w->recs[r], &budget));
    cJSON_AddItemToObject(o, "ops", ops);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* Adds file f's text to sources (once), or null when it cannot be read or is over
 * MAX_SOURCE_BYTES. */
static void add_source(cJSON *sources, const char *f)
{
  char *text = NULL;
  struct cc_err e;
  if (!f || cJSON_GetObjectItemCaseSensitive(sources, f))
    return;
  if (cc_file_read_max(f, MAX_SOURCE_BYTES, "source", &text, NULL, &e) == CC_OK)
    cJSON_AddStringToObject(sources, f, text);
  else
    cJSON_AddNullToObject(sources, f);
  free(text);
}

/* sources: file -> its text, each file of the instructions' lines once: those of the
 * records' instructions and those of the report's (report, parsed; may be NULL). */
static cJSON *sources_json(const struct cc_view *v, const cJSON *report)
{
  cJSON *o = cJSON_CreateObject();
  const cJSON *k, *in;
  for (uint32_t i = 0; i < v->n_insns; i++)
    add_source(o, v->insns[i].file);
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(report, "kernels"))
    cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(k, "instructions")) {
      const cJSON *f = cJSON_GetObjectItemCaseSensitive(
          cJSON_GetObjectItemCaseSensitive(in, "source"), "file");
      if (cJSON_IsString(f))
        add_source(o, f->valuestring);
    }
  return o;
}

static cJSON *limits_json(void)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "max_cells", CC_VIEW_MAX_CELLS);
  cJSON_AddNumberToObject(o, "max_outliers", CC_VIEW_MAX_OUTLIERS);
  cJSON_AddNumberToObject(o, "max_first_warps", CC_VIEW_MAX_FIRST_WARPS);
  cJSON_AddNumberToObject(o, "max_ops", CC_VIEW_MAX_OPS);
  cJSON_AddNumberToObject(o, "max_line_cells", CC_VIEW_MAX_LINE_CELLS);
  cJSON_AddNumberToObject(o, "max_transactions", CC_VIEW_MAX_TRANSACTIONS);
  return o;
}

/* model name -> {banks, bank_bytes}: the shared-memory banks the operation view draws.
 * cc1.x (Algorithm 1's 16-lane groups) has 16 banks, the later models 32 (MODELS.md;
 * shared_banks16.c, shared_banks32.c); the bank width is 4 bytes but on cc3.x with
 * --smem-bank-width 8. */
static cJSON *banks_json(const struct cc_view *v, int bank_bytes)
{
  bank_bytes = bank_bytes ? bank_bytes : 4;
  cJSON *o = cJSON_CreateObject();
  for (size_t k = 0; k < v->n_models; k++) {
    const struct cc_model *m = v->models[k];
    cJSON *b = cJSON_AddObjectToObject(o, cc_model_name(m));
    cJSON_AddNumberToObject(b, "banks", cc_model_group_lanes(m) == 16 ? 16 : 32);
    cJSON_AddNumberToObject(b, "bank_bytes",
                            strncmp(cc_model_name(m), "cc3.", 4) == 0 ? bank_bytes : 4);
  }
  return o;
}

/* The page's data document (its fields are read by page.html's script only). */
static cJSON *data_json(const struct cc_view *v, const char *title, const cJSON *report)
{
  cJSON *d = cJSON_CreateObject(), *dw = cc_view_dwarp_json(v), *archs;
  double bin[2] = {(double)v->bin[0], (double)v->bin[1]};
  cJSON_AddStringToObject(d, "title", title ? title : "");
  cJSON_AddStringToObject(d, "kernel", v->name ? v->name : "");
  cJSON_AddNumberToObject(d, "later_kernels", (double)v->later_kernels);
  archs = cJSON_AddArrayToObject(d, "archs");
  for (size_t k = 0; k < v->n_models; k++)
    cJSON_AddItemToArray(archs, cJSON_CreateString(cc_model_name(v->models[k])));
  if (v->unavailable)
    cJSON_AddStringToObject(d, "unavailable", v->unavailable);
  cJSON_AddItemToObject(d, "sources", sources_json(v, report));
  cJSON_AddItemToObject(d, "limits", limits_json());
  if (!v->has_kernel) {
    cJSON_Delete(dw);
    return d;
  }
  cJSON_AddItemToObject(d, "grid", dims(v->grid));
  cJSON_AddItemToObject(d, "block", dims(v->block));
  cJSON_AddNumberToObject(d, "warps_per_cta", v->warps_per_cta);
  cJSON_AddItemToObject(d, "bin", nums(bin, 2));
  cJSON_AddNumberToObject(d, "nx", v->nx);
  cJSON_AddNumberToObject(d, "ny", v->ny);
  cJSON_AddItemToObject(d, "cells", cells_json(v));
  cJSON_AddItemToObject(d, "costs", costs_json(v));
  cJSON_AddItemToObject(d, "banks", banks_json(v, v->smem_bank_width));
  cJSON_AddItemToObject(d, "lines", lines_json(v));
  cJSON_AddItemToObject(d, "line_cells", line_cells_json(v));
  cJSON_AddItemToObject(d, "insns", insns_json(v));
  cJSON_AddItemToObject(d, "warps", warps_json(v));
  cJSON_AddBoolToObject(d, "dwarp_truncated", v->sig_truncated);
  if (dw)
    cJSON_AddItemToObject(d, "dwarp", dw);
  return d;
}

int cc_view_html_write(FILE *fp, const struct cc_view *v, const char *report_json,
                       const char *title, struct cc_err *err)
{
  cJSON *parsed = report_json ? cJSON_Parse(report_json) : NULL;
  cJSON *d = data_json(v, title, parsed);
  char *text = cJSON_PrintUnformatted(d), *data = cc_view_script_escape(text);
  char *report = cc_view_script_escape(report_json ? report_json : "null");
  const char *mark = strstr(cc_view_page, DATA_MARK);
  size_t head;
  int ok;
  assert(mark);
  head = (size_t)(mark - cc_view_page);
  cJSON_Delete(d);
  cJSON_Delete(parsed);
  free(text);
  ok = fwrite(cc_view_page, 1, head, fp) == head &&
       fputs("<script type=\"application/json\" id=\"cc-data\">", fp) >= 0 &&
       fputs(data, fp) >= 0 &&
       fputs("</script>\n<script type=\"application/json\" id=\"cc-report\">", fp) >= 0 &&
       fputs(report, fp) >= 0 && fputs("</script>\n", fp) >= 0 &&
       fputs(mark + strlen(DATA_MARK), fp) >= 0;
  free(data);
  free(report);
  return ok ? CC_OK : cc_err_set(err, CC_ERR_IO, "cannot write the HTML page: write error "
                                 "(disk full?)");
}
