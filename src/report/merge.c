/* `coalcheck merge`: the reports of MPI ranks combined per kernel, one column per rank,
 * and the ranks whose figures differ flagged. See merge.h. */
#include "report/merge.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/json_impl.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/mem.h"

/* A report of a million-CTA run is a few MB; past this it is not one of ours. */
#define MAX_REPORT_BYTES ((size_t)1 << 30)

/* The field names of enum cc_merge_metric in a report's totals and instructions. */
static const char *const metric_field[CC_MERGE_NMETRICS] = {"requests", "sectors",
                                                            "excess_sectors", "wavefronts"};
static const char *const metric_label[CC_MERGE_NMETRICS] = {"requests", "sectors",
                                                            "excess sectors", "wavefronts"};

/* Where a field being read lives, for messages: file, kernel index (or -1). */
struct where {
  const char *file;
  int kernel;
};

static int bad(const struct where *w, const char *what, struct cc_err *err)
{
  if (w->kernel >= 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s: kernels[%d]: %s; merge takes the JSON reports "
                      "of `coalcheck --json` (docs/json-schema.md)", w->file, w->kernel, what);
  return cc_err_set(err, CC_ERR_INPUT, "%s: %s; merge takes the JSON reports of `coalcheck "
                    "--json` (docs/json-schema.md)", w->file, what);
}

/* Field name of o as a count into *out; missing or null is 0 when optional. */
static int get_count(const cJSON *o, const char *name, int optional, const struct where *w,
                     uint64_t *out, struct cc_err *err)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  char what[128];
  if (optional && (!v || cJSON_IsNull(v))) {
    *out = 0;
    return CC_OK;
  }
  if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
      v->valuedouble != floor(v->valuedouble)) {
    snprintf(what, sizeof what, "field '%s' is not a count", name);
    return bad(w, what, err);
  }
  *out = (uint64_t)v->valuedouble;
  return CC_OK;
}

/* The string field name of o, or NULL when absent or not a string. */
static const char *get_str(const cJSON *o, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* [x, y, z] of non-negative integers into d; 0 when absent or malformed. */
static int get_dim3(const cJSON *o, const char *name, uint32_t d[3])
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
    return 0;
  for (int i = 0; i < 3; i++) {
    const cJSON *x = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 4294967295.0)
      return 0;
    d[i] = (uint32_t)x->valuedouble;
  }
  return 1;
}

static void row_init(struct cc_merge_row *row, size_t nranks)
{
  memset(row, 0, sizeof *row);
  row->ptx_index = -1;
  row->v = cc_xcalloc(nranks * CC_MERGE_NMETRICS, sizeof *row->v);
  row->present = cc_xcalloc(nranks, 1);
}

static void row_release(struct cc_merge_row *row)
{
  free(row->file);
  free(row->op);
  free(row->space);
  free(row->v);
  free(row->present);
}

/* The four metrics of o (a totals or instruction object) into row for rank r. */
static int read_metrics(const cJSON *o, struct cc_merge_row *row, size_t r, int insn,
                        const struct where *w, struct cc_err *err)
{
  for (int k = 0; k < CC_MERGE_NMETRICS; k++) {
    /* an instruction has wavefronts only when shared, sectors only when not */
    int optional = insn && (k == CC_MERGE_WAVEFRONTS || k == CC_MERGE_SECTORS ||
                            k == CC_MERGE_EXCESS);
    int rc = get_count(o, metric_field[k], optional, w, &row->v[r * CC_MERGE_NMETRICS + k],
                       err);
    if (rc != CC_OK)
      return rc;
  }
  row->present[r] = 1;
  return CC_OK;
}

/* The kernel of m that the occurrence-th launch named key with geometry (g, b) of a rank
 * is, made when new. */
static struct cc_merge_kernel *find_kernel(struct cc_merge *m, const char *name,
                                           const char *mangled, int geo, const uint32_t g[3],
                                           const uint32_t b[3], unsigned occurrence)
{
  const char *key = mangled ? mangled : name;
  struct cc_merge_kernel *k;
  for (size_t i = 0; i < m->n_kernels; i++) {
    k = &m->kernels[i];
    if (strcmp(k->mangled ? k->mangled : k->name, key) == 0 && k->has_geometry == geo &&
        (!geo || (memcmp(k->grid, g, sizeof k->grid) == 0 &&
                  memcmp(k->block, b, sizeof k->block) == 0)) &&
        k->occurrence == occurrence)
      return k;
  }
  m->kernels = cc_xrealloc(m->kernels, (m->n_kernels + 1) * sizeof *m->kernels);
  k = &m->kernels[m->n_kernels++];
  memset(k, 0, sizeof *k);
  k->name = cc_xstrdup(name);
  k->mangled = mangled ? cc_xstrdup(mangled) : NULL;
  k->has_geometry = geo;
  if (geo) {
    memcpy(k->grid, g, sizeof k->grid);
    memcpy(k->block, b, sizeof k->block);
  }
  k->occurrence = occurrence;
  k->present = cc_xcalloc(m->nranks, 1);
  row_init(&k->totals, m->nranks);
  return k;
}

/* How many kernels before index i of rank's kernels array have the key of kernel i. */
static unsigned occurrence_of(const cJSON *kernels, int i)
{
  const cJSON *ki = cJSON_GetArrayItem(kernels, i);
  const char *key = get_str(ki, "mangled_name") ? get_str(ki, "mangled_name")
                                                 : get_str(ki, "name");
  uint32_t g[3] = {0}, b[3] = {0}, g2[3] = {0}, b2[3] = {0};
  int geo = get_dim3(ki, "grid", g) && get_dim3(ki, "block", b);
  unsigned n = 1;
  for (int j = 0; j < i; j++) {
    const cJSON *kj = cJSON_GetArrayItem(kernels, j);
    const char *kk = get_str(kj, "mangled_name") ? get_str(kj, "mangled_name")
                                                  : get_str(kj, "name");
    int geo2 = get_dim3(kj, "grid", g2) && get_dim3(kj, "block", b2);
    n += kk && strcmp(kk, key) == 0 && geo == geo2 &&
         (!geo || (memcmp(g, g2, sizeof g) == 0 && memcmp(b, b2, sizeof b) == 0));
  }
  return n;
}

/* The row of k for instruction ptx_index, made (labelled from j) when new. */
static struct cc_merge_row *find_insn(struct cc_merge_kernel *k, size_t nranks, long ptx_index,
                                      const cJSON *j)
{
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(j, "source");
  const cJSON *line = cJSON_GetObjectItemCaseSensitive(src, "line");
  struct cc_merge_row *row;
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].ptx_index == ptx_index)
      return &k->insns[i];
  k->insns = cc_xrealloc(k->insns, (k->n_insns + 1) * sizeof *k->insns);
  row = &k->insns[k->n_insns++];
  row_init(row, nranks);
  row->ptx_index = ptx_index;
  row->file = get_str(src, "file") ? cc_xstrdup(get_str(src, "file")) : NULL;
  row->line = cJSON_IsNumber(line) ? (long)line->valuedouble : 0;
  row->op = cc_xstrdup(get_str(j, "op") ? get_str(j, "op") : "?");
  row->space = cc_xstrdup(get_str(j, "space") ? get_str(j, "space") : "?");
  return row;
}

/* Kernel ki (JSON kj) of rank r into m. */
static int merge_kernel(struct cc_merge *m, size_t r, const cJSON *kernels, int ki,
                        struct cc_err *err)
{
  const cJSON *kj = cJSON_GetArrayItem(kernels, ki), *insns, *j;
  struct where w = {m->files[r], ki};
  const char *name = get_str(kj, "name"), *mangled = get_str(kj, "mangled_name");
  uint32_t g[3], b[3];
  int geo, rc;
  struct cc_merge_kernel *k;
  if (!cJSON_IsObject(kj) || !name)
    return bad(&w, "not a kernel object with a 'name'", err);
  geo = get_dim3(kj, "grid", g) && get_dim3(kj, "block", b);
  k = find_kernel(m, name, mangled, geo, g, b, occurrence_of(kernels, ki));
  k->present[r] = 1;
  if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(kj, "totals")))
    return bad(&w, "no 'totals' object", err);
  rc = read_metrics(cJSON_GetObjectItemCaseSensitive(kj, "totals"), &k->totals, r, 0, &w, err);
  if (rc != CC_OK)
    return rc;
  insns = cJSON_GetObjectItemCaseSensitive(kj, "instructions");
  if (!cJSON_IsArray(insns))
    return bad(&w, "no 'instructions' array", err);
  cJSON_ArrayForEach(j, insns) {
    uint64_t idx = 0; /* get_count sets it; 0 quiets -Wmaybe-uninitialized (Release) */
    if (!cJSON_IsObject(j) || (rc = get_count(j, "ptx_index", 0, &w, &idx, err)) != CC_OK)
      return cJSON_IsObject(j) ? rc : bad(&w, "an instruction is not an object", err);
    if ((rc = read_metrics(j, find_insn(k, m->nranks, (long)idx, j), r, 1, &w, err)) != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* Checks that root is a report like the first one (same schema_version and arch). */
static int check_header(struct cc_merge *m, size_t r, const cJSON *root, struct cc_err *err)
{
  struct where w = {m->files[r], -1};
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "schema_version");
  const char *doc = get_str(root, "document"), *arch = get_str(root, "arch");
  char what[256];
  if (!cJSON_IsObject(root))
    return bad(&w, "not a JSON object", err);
  if (doc) {
    snprintf(what, sizeof what, "a '%s' document, not a report (merge the reports of the "
             "runs, one model each)", doc);
    return bad(&w, what, err);
  }
  if (!cJSON_IsNumber(v) || !get_str(root, "tool_version") ||
      !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "kernels")))
    return bad(&w, "not a coalcheck report (no schema_version, tool_version and kernels)", err);
  if (r == 0) {
    m->schema_version = (int)v->valuedouble;
    m->arch = cc_xstrdup(arch ? arch : "?");
    m->tool_version = cc_xstrdup(get_str(root, "tool_version"));
    return CC_OK;
  }
  if ((int)v->valuedouble != m->schema_version)
    return cc_err_set(err, CC_ERR_INPUT, "%s has schema_version %d but %s has %d: reports of "
                      "different coalcheck versions do not merge; make them again with one "
                      "coalcheck", m->files[r], (int)v->valuedouble, m->files[0],
                      m->schema_version);
  if (strcmp(arch ? arch : "?", m->arch) != 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s was made under --arch %s but %s under %s: the "
                      "figures of different models do not compare; use one --arch",
                      m->files[r], arch ? arch : "?", m->files[0], m->arch);
  return CC_OK;
}

/* Reads rank r's report into m. */
static int merge_file(struct cc_merge *m, size_t r, struct cc_err *err)
{
  char *text;
  size_t len;
  cJSON *root, *kernels;
  struct where w = {m->files[r], -1};
  int rc = cc_file_read_max(m->files[r], MAX_REPORT_BYTES, "a coalcheck JSON report", &text,
                            &len, err);
  if (rc != CC_OK)
    return rc;
  root = cJSON_ParseWithLength(text, len);
  free(text);
  if (!root)
    return bad(&w, "not JSON", err);
  rc = check_header(m, r, root, err);
  kernels = cJSON_GetObjectItemCaseSensitive(root, "kernels");
  for (int i = 0; rc == CC_OK && i < cJSON_GetArraySize(kernels); i++)
    rc = merge_kernel(m, r, kernels, i, err);
  cJSON_Delete(root);
  return rc;
}

int cc_report_merge_load(const char *const *files, size_t n, double threshold_pct,
                         struct cc_merge *m, struct cc_err *err)
{
  memset(m, 0, sizeof *m);
  m->nranks = n;
  m->threshold_pct = threshold_pct;
  m->files = cc_xcalloc(n ? n : 1, sizeof *m->files);
  for (size_t r = 0; r < n; r++)
    m->files[r] = cc_xstrdup(files[r]);
  for (size_t r = 0; r < n; r++) {
    int rc = merge_file(m, r, err);
    if (rc != CC_OK)
      return rc;
  }
  return CC_OK;
}

int cc_report_merge_flagged(const struct cc_merge *m, const struct cc_merge_row *row,
                            enum cc_merge_metric metric, size_t r, size_t *min_rank)
{
  size_t best = SIZE_MAX;
  uint64_t lo, v;
  for (size_t i = 0; i < m->nranks; i++)
    if (row->present[i] && (best == SIZE_MAX ||
                            row->v[i * CC_MERGE_NMETRICS + metric] <
                                row->v[best * CC_MERGE_NMETRICS + metric]))
      best = i;
  *min_rank = best;
  if (best == SIZE_MAX || !row->present[r] || r == best)
    return 0;
  lo = row->v[best * CC_MERGE_NMETRICS + metric];
  v = row->v[r * CC_MERGE_NMETRICS + metric];
  /* more than threshold percent of the fewest; any excess over a fewest of 0 */
  return v > lo && (double)(v - lo) > m->threshold_pct / 100.0 * (double)lo;
}

/* ---- text ------------------------------------------------------------------------------ */

static void text_row(FILE *fp, const struct cc_merge *m, const struct cc_merge_row *row,
                     const char *head)
{
  fprintf(fp, "  %s\n", head);
  for (int k = 0; k < CC_MERGE_NMETRICS; k++) {
    fprintf(fp, "    %-16s", metric_label[k]);
    for (size_t r = 0; r < m->nranks; r++) {
      if (row->present[r])
        fprintf(fp, " %12llu", (unsigned long long)row->v[r * CC_MERGE_NMETRICS + k]);
      else
        fprintf(fp, " %12s", "-");
    }
    fputc('\n', fp);
  }
}

/* The flag lines of one kernel's totals; returns how many. */
static size_t text_flags(FILE *fp, const struct cc_merge *m, const struct cc_merge_kernel *k)
{
  size_t n = 0;
  for (int metric = 0; metric < CC_MERGE_NMETRICS; metric++)
    for (size_t r = 0; r < m->nranks; r++) {
      size_t lo_r;
      uint64_t v, lo;
      if (!cc_report_merge_flagged(m, &k->totals, (enum cc_merge_metric)metric, r, &lo_r))
        continue;
      v = k->totals.v[r * CC_MERGE_NMETRICS + metric];
      lo = k->totals.v[lo_r * CC_MERGE_NMETRICS + metric];
      fprintf(fp, "  %s: rank %zu (%s): %s %llu is %llu more", metric == CC_MERGE_REQUESTS
              ? "load imbalance" : "figures differ", r, m->files[r], metric_label[metric],
              (unsigned long long)v, (unsigned long long)(v - lo));
      if (lo)
        fprintf(fp, " (+%.1f%%)", 100.0 * (double)(v - lo) / (double)lo);
      fprintf(fp, " than rank %zu's %llu, the fewest\n", lo_r, (unsigned long long)lo);
      n++;
    }
  return n;
}

size_t cc_report_merge_text(FILE *fp, const struct cc_merge *m)
{
  size_t flags = 0;
  fprintf(fp, "coalcheck merge: %zu ranks, schema %d, arch %s, threshold %g%%\n", m->nranks,
          m->schema_version, m->arch ? m->arch : "?", m->threshold_pct);
  for (size_t r = 0; r < m->nranks; r++)
    fprintf(fp, "  rank %zu: %s\n", r, m->files[r]);
  for (size_t i = 0; i < m->n_kernels; i++) {
    const struct cc_merge_kernel *k = &m->kernels[i];
    char head[160];
    fprintf(fp, "\nkernel %s", k->name);
    if (k->has_geometry)
      fprintf(fp, "  grid %u,%u,%u  block %u,%u,%u", k->grid[0], k->grid[1], k->grid[2],
              k->block[0], k->block[1], k->block[2]);
    if (k->occurrence > 1)
      fprintf(fp, "  (launch %u of it)", k->occurrence);
    fprintf(fp, "\n  %-18s", "");
    for (size_t r = 0; r < m->nranks; r++) {
      char col[32];
      snprintf(col, sizeof col, "rank %zu", r);
      fprintf(fp, " %12s", col);
    }
    fputc('\n', fp);
    text_row(fp, m, &k->totals, "totals");
    for (size_t j = 0; j < k->n_insns; j++) {
      const struct cc_merge_row *row = &k->insns[j];
      if (row->file)
        snprintf(head, sizeof head, "ptx %ld  %s:%ld  %s %s", row->ptx_index, row->file,
                 row->line, row->op, row->space);
      else
        snprintf(head, sizeof head, "ptx %ld  (no line)  %s %s", row->ptx_index, row->op,
                 row->space);
      text_row(fp, m, row, head);
    }
    flags += text_flags(fp, m, k);
    for (size_t r = 0; r < m->nranks; r++)
      if (!k->present[r])
        fprintf(fp, "  missing: rank %zu (%s) has no such launch of %s\n", r, m->files[r],
                k->name);
  }
  return flags;
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* The four metrics of row as {"requests": [r0, r1, ...], ...}, null where absent. */
static void json_metrics(cJSON *o, const struct cc_merge *m, const struct cc_merge_row *row)
{
  for (int k = 0; k < CC_MERGE_NMETRICS; k++) {
    cJSON *a = cJSON_CreateArray();
    for (size_t r = 0; r < m->nranks; r++)
      cJSON_AddItemToArray(a, row->present[r]
                                  ? cJSON_CreateNumber((double)row->v[r * CC_MERGE_NMETRICS + k])
                                  : cJSON_CreateNull());
    cJSON_AddItemToObject(o, metric_field[k], a);
  }
}

static cJSON *json_flags(const struct cc_merge *m, const struct cc_merge_kernel *k)
{
  cJSON *a = cJSON_CreateArray();
  for (int metric = 0; metric < CC_MERGE_NMETRICS; metric++)
    for (size_t r = 0; r < m->nranks; r++) {
      size_t lo_r;
      uint64_t v, lo;
      cJSON *f;
      if (!cc_report_merge_flagged(m, &k->totals, (enum cc_merge_metric)metric, r, &lo_r))
        continue;
      v = k->totals.v[r * CC_MERGE_NMETRICS + metric];
      lo = k->totals.v[lo_r * CC_MERGE_NMETRICS + metric];
      f = cJSON_CreateObject();
      cJSON_AddStringToObject(f, "metric", metric_field[metric]);
      cc_report_json_num(f, "rank", (double)r);
      cc_report_json_num(f, "value", (double)v);
      cc_report_json_num(f, "fewest_rank", (double)lo_r);
      cc_report_json_num(f, "fewest", (double)lo);
      cc_report_json_num(f, "difference", (double)(v - lo));
      if (lo)
        cc_report_json_num(f, "percent", 100.0 * (double)(v - lo) / (double)lo);
      else
        cJSON_AddNullToObject(f, "percent");
      cJSON_AddItemToArray(a, f);
    }
  return a;
}

static cJSON *json_kernel(const struct cc_merge *m, const struct cc_merge_kernel *k)
{
  cJSON *o = cJSON_CreateObject(), *t = cJSON_CreateObject(), *insns = cJSON_CreateArray();
  cJSON *missing = cJSON_CreateArray();
  cJSON_AddStringToObject(o, "name", k->name);
  if (k->mangled)
    cJSON_AddStringToObject(o, "mangled_name", k->mangled);
  if (k->has_geometry) {
    cJSON_AddItemToObject(o, "grid", cc_report_json_dim3(k->grid));
    cJSON_AddItemToObject(o, "block", cc_report_json_dim3(k->block));
  }
  cc_report_json_num(o, "occurrence", k->occurrence);
  for (size_t r = 0; r < m->nranks; r++)
    if (!k->present[r])
      cJSON_AddItemToArray(missing, cJSON_CreateNumber((double)r));
  cJSON_AddItemToObject(o, "missing_ranks", missing);
  json_metrics(t, m, &k->totals);
  cJSON_AddItemToObject(o, "totals", t);
  for (size_t j = 0; j < k->n_insns; j++) {
    const struct cc_merge_row *row = &k->insns[j];
    cJSON *i = cJSON_CreateObject(), *src = cJSON_CreateObject();
    cc_report_json_num(i, "ptx_index", (double)row->ptx_index);
    if (row->file)
      cJSON_AddStringToObject(src, "file", row->file);
    else
      cJSON_AddNullToObject(src, "file");
    cc_report_json_num(src, "line", (double)row->line);
    cJSON_AddItemToObject(i, "source", src);
    cJSON_AddStringToObject(i, "op", row->op);
    cJSON_AddStringToObject(i, "space", row->space);
    json_metrics(i, m, row);
    cJSON_AddItemToArray(insns, i);
  }
  cJSON_AddItemToObject(o, "instructions", insns);
  cJSON_AddItemToObject(o, "flags", json_flags(m, k));
  return o;
}

char *cc_report_merge_json_string(const struct cc_merge *m)
{
  cJSON *root = cJSON_CreateObject(), *ranks = cJSON_CreateArray(), *kernels = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "document", CC_REPORT_MERGE_DOCUMENT);
  cc_report_json_num(root, "schema_version", m->schema_version);
  cJSON_AddStringToObject(root, "tool_version", m->tool_version ? m->tool_version : "unknown");
  cJSON_AddStringToObject(root, "arch", m->arch ? m->arch : "?");
  cc_report_json_num(root, "threshold_percent", m->threshold_pct);
  for (size_t r = 0; r < m->nranks; r++) {
    cJSON *o = cJSON_CreateObject();
    cc_report_json_num(o, "rank", (double)r);
    cJSON_AddStringToObject(o, "file", m->files[r]);
    cJSON_AddItemToArray(ranks, o);
  }
  cJSON_AddItemToObject(root, "ranks", ranks);
  for (size_t i = 0; i < m->n_kernels; i++)
    cJSON_AddItemToArray(kernels, json_kernel(m, &m->kernels[i]));
  cJSON_AddItemToObject(root, "kernels", kernels);
  return cc_report_json_finish(root);
}

/* ---- CSV ------------------------------------------------------------------------------- */

static void csv_row(FILE *fp, const struct cc_merge *m, const struct cc_merge_kernel *k,
                    const struct cc_merge_row *row)
{
  char b[64];
  cc_report_csv_field(fp, k->name, 0);
  if (k->has_geometry)
    snprintf(b, sizeof b, "%u,%u,%u", k->grid[0], k->grid[1], k->grid[2]);
  cc_report_csv_field(fp, k->has_geometry ? b : "", 0);
  if (k->has_geometry)
    snprintf(b, sizeof b, "%u,%u,%u", k->block[0], k->block[1], k->block[2]);
  cc_report_csv_field(fp, k->has_geometry ? b : "", 0);
  snprintf(b, sizeof b, "%u", k->occurrence);
  cc_report_csv_field(fp, b, 0);
  snprintf(b, sizeof b, "%ld", row->ptx_index);
  cc_report_csv_field(fp, row->ptx_index < 0 ? "totals" : b, 0);
  cc_report_csv_field(fp, row->file ? row->file : "", 0);
  snprintf(b, sizeof b, "%ld", row->line);
  cc_report_csv_field(fp, row->ptx_index < 0 ? "" : b, 0);
  cc_report_csv_field(fp, row->op ? row->op : "", 0);
  cc_report_csv_field(fp, row->space ? row->space : "", 0);
  for (int metric = 0; metric < CC_MERGE_NMETRICS; metric++)
    for (size_t r = 0; r < m->nranks; r++) {
      snprintf(b, sizeof b, "%llu", (unsigned long long)row->v[r * CC_MERGE_NMETRICS + metric]);
      cc_report_csv_field(fp, row->present[r] ? b : "",
                metric == CC_MERGE_NMETRICS - 1 && r + 1 == m->nranks);
    }
}

char *cc_report_merge_csv_string(const struct cc_merge *m)
{
  static const char *const units[CC_MERGE_NMETRICS] = {"", " [32 B]", " [32 B]", ""};
  static const char *const head[] = {"kernel", "grid", "block", "occurrence", "ptx index",
                                     "file", "line", "op", "space"};
  char *text = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&text, &len);
  char b[96];
  if (!fp)
    CC_BUG("open_memstream failed (out of memory)");
  for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
    cc_report_csv_field(fp, head[i], 0);
  for (int metric = 0; metric < CC_MERGE_NMETRICS; metric++)
    for (size_t r = 0; r < m->nranks; r++) {
      snprintf(b, sizeof b, "%s%s rank %zu", metric_label[metric], units[metric], r);
      cc_report_csv_field(fp, b, metric == CC_MERGE_NMETRICS - 1 && r + 1 == m->nranks);
    }
  for (size_t i = 0; i < m->n_kernels; i++) {
    csv_row(fp, m, &m->kernels[i], &m->kernels[i].totals);
    for (size_t j = 0; j < m->kernels[i].n_insns; j++)
      csv_row(fp, m, &m->kernels[i], &m->kernels[i].insns[j]);
  }
  if (fclose(fp) != 0)
    CC_BUG("open_memstream failed (out of memory)");
  return text;
}

void cc_report_merge_release(struct cc_merge *m)
{
  for (size_t r = 0; m->files && r < m->nranks; r++)
    free(m->files[r]);
  free(m->files);
  for (size_t i = 0; i < m->n_kernels; i++) {
    struct cc_merge_kernel *k = &m->kernels[i];
    free(k->name);
    free(k->mangled);
    free(k->present);
    row_release(&k->totals);
    for (size_t j = 0; j < k->n_insns; j++)
      row_release(&k->insns[j]);
    free(k->insns);
  }
  free(m->kernels);
  free(m->arch);
  free(m->tool_version);
  memset(m, 0, sizeof *m);
}
