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

/* cells: [ctas, warps, global requests, sectors, excess sectors, shared requests,
 * excess wavefronts, mean dWarp, max dWarp] per cell, rows of nx */
static cJSON *cells_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < (size_t)v->nx * v->ny; i++) {
    const struct cc_view_cell *c = &v->cells[i];
    double f[9] = {(double)c->ctas, (double)c->warps, (double)c->global_requests,
                   (double)c->sectors, (double)c->excess_sectors, (double)c->shared_requests,
                   (double)c->excess_wavefronts, c->warps ? c->dwarp_sum / (double)c->warps : 0,
                   c->dwarp_max};
    cJSON_AddItemToArray(a, nums(f, 9));
  }
  return a;
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
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* One dynamic instruction: [slot, dyn, active, sectors, ideal sectors, wavefronts, ideal
 * wavefronts, [32 addresses, 0 where inactive]] under the sm_90 model. */
static cJSON *op_json(const struct cc_view *v, const struct cc_warp_access *a)
{
  double f[7] = {a->insn_slot, (double)a->dyn, a->active, 0, 0, 0, 0};
  double addr[CC_WARP_SIZE];
  cJSON *o;
  if (a->space == CC_SPACE_SHARED) {
    struct cc_shared_cost s;
    cc_model_shared(v->model, a, &s);
    f[5] = s.wavefronts;
    f[6] = s.ideal_wavefronts;
  } else {
    struct cc_global_cost g;
    cc_model_global(v->model, a, &g);
    f[3] = g.sectors;
    f[4] = g.ideal_sectors;
  }
  for (int l = 0; l < CC_WARP_SIZE; l++)
    addr[l] = (a->active >> l & 1) ? (double)a->addr[l] : 0;
  o = nums(f, 7);
  cJSON_AddItemToArray(o, nums(addr, CC_WARP_SIZE));
  return o;
}

static cJSON *warps_json(const struct cc_view *v)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < v->n_stored; i++) {
    const struct cc_view_warp *w = &v->stored[i];
    cJSON *o = cJSON_CreateObject(), *ops = cJSON_CreateArray();
    cJSON_AddItemToObject(o, "cta", dims(w->cta));
    cJSON_AddNumberToObject(o, "warp", w->warp);
    cJSON_AddStringToObject(o, "role", cc_view_role_name(w->role));
    cJSON_AddNumberToObject(o, "dwarp", w->dwarp);
    cJSON_AddNumberToObject(o, "ops_left_out", (double)w->recs_truncated);
    for (size_t r = 0; r < w->n_recs; r++)
      cJSON_AddItemToArray(ops, op_json(v, &w->recs[r]));
    cJSON_AddItemToObject(o, "ops", ops);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* sources: file -> its text (each file of the instructions' lines once), or null when it
 * cannot be read or is over MAX_SOURCE_BYTES. */
static cJSON *sources_json(const struct cc_view *v)
{
  cJSON *o = cJSON_CreateObject();
  for (uint32_t i = 0; i < v->n_insns; i++) {
    const char *f = v->insns[i].file;
    char *text = NULL;
    struct cc_err e;
    if (!f || cJSON_GetObjectItemCaseSensitive(o, f))
      continue;
    if (cc_file_read_max(f, MAX_SOURCE_BYTES, "source", &text, NULL, &e) == CC_OK)
      cJSON_AddStringToObject(o, f, text);
    else
      cJSON_AddNullToObject(o, f);
    free(text);
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
  return o;
}

/* The page's data document (its fields are read by page.c's script only). */
static cJSON *data_json(const struct cc_view *v, const char *title)
{
  cJSON *d = cJSON_CreateObject(), *dw = cc_view_dwarp_json(v);
  double bin[2] = {(double)v->bin[0], (double)v->bin[1]};
  cJSON_AddStringToObject(d, "title", title ? title : "");
  cJSON_AddStringToObject(d, "kernel", v->name ? v->name : "");
  cJSON_AddNumberToObject(d, "later_kernels", (double)v->later_kernels);
  if (!v->has_kernel)
    return d;
  cJSON_AddItemToObject(d, "grid", dims(v->grid));
  cJSON_AddItemToObject(d, "block", dims(v->block));
  cJSON_AddNumberToObject(d, "warps_per_cta", v->warps_per_cta);
  cJSON_AddItemToObject(d, "bin", nums(bin, 2));
  cJSON_AddNumberToObject(d, "nx", v->nx);
  cJSON_AddNumberToObject(d, "ny", v->ny);
  cJSON_AddItemToObject(d, "cells", cells_json(v));
  cJSON_AddItemToObject(d, "insns", insns_json(v));
  cJSON_AddItemToObject(d, "warps", warps_json(v));
  cJSON_AddItemToObject(d, "sources", sources_json(v));
  cJSON_AddItemToObject(d, "limits", limits_json());
  cJSON_AddBoolToObject(d, "dwarp_truncated", v->sig_truncated);
  if (dw)
    cJSON_AddItemToObject(d, "dwarp", dw);
  return d;
}

int cc_view_html_write(FILE *fp, const struct cc_view *v, const char *report_json,
                       const char *title, struct cc_err *err)
{
  cJSON *d = data_json(v, title);
  char *text = cJSON_PrintUnformatted(d), *data = cc_view_script_escape(text);
  char *report = cc_view_script_escape(report_json ? report_json : "null");
  const char *mark = strstr(cc_view_page, DATA_MARK);
  size_t head;
  int ok;
  assert(mark);
  head = (size_t)(mark - cc_view_page);
  cJSON_Delete(d);
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
