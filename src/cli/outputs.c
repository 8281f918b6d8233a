/* What a run's access stream feeds, and what is written from it: the analyses (one per
 * --arch model, analysis/multi.h), the trace file (--trace, `record -o`; access/trace.h)
 * and the reports (one model: report.h's text and JSON; several: report/compare.h side
 * by side). Shared by the main job (run.c), `record` and `report`. See cli_impl.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "access/trace.h"
#include "analysis/multi.h"
#include "model/model.h"
#include "report/ci.h"
#include "report/compare.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/mem.h"
#include "view/view.h"

#include <cjson/cJSON.h>

struct cc_cli_outputs {
  const struct cc_run_opts *o;       /* borrowed */
  struct cc_analysis_multi *multi;   /* NULL for record */
  struct cc_outfile json;            /* --json, opened by cc_cli_outputs_open */
  int json_open;
  struct cc_view *view;              /* --html: the views' collector, or NULL */
  struct cc_outfile html;            /* --html, opened by cc_cli_outputs_open */
  int html_open;
  struct cc_outfile sarif, csv;      /* --sarif, --csv, opened by cc_cli_outputs_open */
  int sarif_open, csv_open;
  struct cc_trace_writer *trace;     /* NULL until cc_cli_outputs_sink, or without a trace */
  char *trace_path;                  /* the trace's path (owned) */
  struct cc_access_sink sinks[3];    /* analyses, views, trace */
  struct cc_access_tee tee;
  struct cc_access_sink sink;        /* what cc_cli_outputs_sink gave, once made */
  int sink_made;                     /* several kernels of one run share it */
  const char **inputs;               /* what o reads: no output replaces it */
  size_t n_inputs;
};

const char **cc_cli_input_paths(const struct cc_run_opts *o, size_t *n)
{
  const char **p = cc_xcalloc(o->nargs + 2, sizeof *p);
  *n = 0;
  if (o->input)
    p[(*n)++] = o->input;
  if (o->launch_file)
    p[(*n)++] = o->launch_file;
  for (size_t i = 0; i < o->nargs; i++)
    if (o->args[i].is_buffer && o->args[i].init == CC_INIT_FILE && o->args[i].init_text)
      p[(*n)++] = o->args[i].init_text;
  return p;
}

/* Declared in cli_impl.h. */
void cc_cli_outputs_replay_jobs(struct cc_cli_outputs *s, uint32_t jobs)
{
  if (s->multi)
    cc_analysis_multi_cache_jobs(s->multi, jobs);
}

/* A new outputs object of o with its analyses (one per --arch model, with their cache
 * models and memory limit; none for record), no file opened yet. */
static int open_analyses(const struct cc_run_opts *o, struct cc_cli_outputs **out,
                         struct cc_err *err)
{
  struct cc_cli_outputs *s = cc_xcalloc(1, sizeof *s);
  struct cc_model_opts mopts = {o->l1_cache, (int)o->smem_bank_width};
  int rc = CC_OK;
  s->o = o;
  s->inputs = cc_cli_input_paths(o, &s->n_inputs);
  *out = s;
  if (!o->record_only &&
      ((rc = cc_analysis_multi_new(o->arch ? o->arch : "sm_90", &mopts, &s->multi, err)) !=
           CC_OK ||
       (rc = cc_analysis_multi_set_cache(s->multi, o->cache_spec, o->calibration, o->l1_cache,
                                         err)) != CC_OK))
    return rc;
  if (s->multi)
    cc_analysis_multi_set_mem_limit(s->multi, (size_t)o->max_memory_mib << 20);
  return CC_OK;
}

int cc_cli_outputs_open_analyses(const struct cc_run_opts *o, struct cc_cli_outputs **out,
                                 struct cc_err *err)
{
  return open_analyses(o, out, err);
}

int cc_cli_outputs_reducible(const struct cc_cli_outputs *s)
{
  return s->multi && !cc_analysis_multi_cached(s->multi) && !s->o->html_path &&
         !s->o->trace_path && !s->o->record_only;
}

void cc_cli_outputs_pack(const struct cc_cli_outputs *s, uint8_t **buf, size_t *len)
{
  cc_analysis_multi_pack(s->multi, buf, len);
}

int cc_cli_outputs_merge_packed(struct cc_cli_outputs *s, const uint8_t *msg, size_t len,
                                struct cc_err *err)
{
  return cc_analysis_multi_unpack_merge(s->multi, msg, len, err);
}

int cc_cli_outputs_open(const struct cc_run_opts *o, struct cc_cli_outputs **out,
                        struct cc_err *err)
{
  struct cc_cli_outputs *s;
  struct cc_model_opts mopts = {o->l1_cache, (int)o->smem_bank_width};
  int rc = open_analyses(o, out, err);
  s = *out;
  if (rc != CC_OK)
    return rc;
  if (!o->record_only && o->json_path) {
    if ((rc = cc_outfile_open_except(&s->json, o->json_path, s->inputs, s->n_inputs, err)) !=
        CC_OK)
      return rc;
    s->json_open = 1;
  }
  if (!o->record_only && o->sarif_path) {
    if ((rc = cc_outfile_open_except(&s->sarif, o->sarif_path, s->inputs, s->n_inputs, err)) !=
        CC_OK)
      return rc;
    s->sarif_open = 1;
  }
  if (!o->record_only && o->csv_path) {
    if ((rc = cc_outfile_open_except(&s->csv, o->csv_path, s->inputs, s->n_inputs, err)) !=
        CC_OK)
      return rc;
    s->csv_open = 1;
  }
  if (!o->record_only && o->html_path) {
    if ((rc = cc_view_new(o->arch, &mopts, &s->view, err)) != CC_OK ||
        (rc = cc_outfile_open_except(&s->html, o->html_path, s->inputs, s->n_inputs, err)) !=
            CC_OK)
      return rc;
    s->html_open = 1;
  }
  return CC_OK;
}

void cc_cli_outputs_free(struct cc_cli_outputs *s)
{
  if (!s)
    return;
  if (s->json_open)
    cc_outfile_abort(&s->json);
  if (s->html_open)
    cc_outfile_abort(&s->html);
  if (s->sarif_open)
    cc_outfile_abort(&s->sarif);
  if (s->csv_open)
    cc_outfile_abort(&s->csv);
  cc_view_free(s->view);
  cc_trace_writer_abort(s->trace);
  cc_analysis_multi_free(s->multi);
  free(s->trace_path);
  free(s->inputs);
  free(s);
}

void cc_cli_outputs_set_run_stats(struct cc_cli_outputs *s, const struct cc_kernel_run_stats *run)
{
  const struct cc_analysis *const *ans;
  if (!s->multi)
    return;
  ans = cc_analysis_multi_results(s->multi);
  /* the analyses are mu's own, mutable objects; multi.h only hands them out read-only */
  for (size_t i = 0; i < cc_analysis_multi_count(s->multi); i++)
    cc_analysis_set_run_stats((struct cc_analysis *)ans[i], run);
}

int cc_cli_outputs_set_forms(struct cc_cli_outputs *s, const struct cc_kernel_forms *kf,
                             struct cc_err *err)
{
  const struct cc_analysis *const *ans;
  if (!s->multi)
    return CC_OK;
  ans = cc_analysis_multi_results(s->multi);
  for (size_t i = 0; i < cc_analysis_multi_count(s->multi); i++) {
    int rc = cc_analysis_set_forms((struct cc_analysis *)ans[i], kf, err);
    if (rc != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* "<kernel>.cctrace", the kernel's source name made a safe file name: every character
 * other than [A-Za-z0-9_.-] becomes '_' ("ns::tiled<32>" -> "ns__tiled_32_.cctrace"). */
static char *default_trace_path(const char *kernel)
{
  size_t n = strlen(kernel);
  char *p = cc_xmalloc(n + sizeof ".cctrace");
  for (size_t i = 0; i < n; i++) {
    char c = kernel[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-';
    p[i] = ok ? c : '_';
  }
  memcpy(p + n, ".cctrace", sizeof ".cctrace");
  return p;
}

int cc_cli_outputs_sink(struct cc_cli_outputs *s, const char *kernel,
                        struct cc_access_sink *sink, struct cc_err *err)
{
  size_t n = 0;
  int rc;
  if (s->sink_made) { /* a later kernel of the run (a launch selection): the same stream */
    *sink = s->sink;
    return CC_OK;
  }
  if (s->multi)
    s->sinks[n++] = cc_analysis_multi_sink(s->multi);
  if (s->view) /* only with --html: the runs without it pay nothing */
    s->sinks[n++] = cc_view_sink(s->view);
  if (s->o->trace_path || s->o->record_only) {
    struct cc_trace_writer_opts topts = {"coalcheck " CC_CLI_VERSION, s->o->command_line,
                                         NULL, 0, 0, s->inputs, s->n_inputs};
    s->trace_path = s->o->trace_path ? cc_xstrdup(s->o->trace_path) : default_trace_path(kernel);
    if ((rc = cc_trace_writer_open(s->trace_path, &topts, &s->trace, &s->sinks[n], err)) !=
        CC_OK)
      return rc;
    n++;
  }
  assert(n > 0);
  s->tee = (struct cc_access_tee){s->sinks, n};
  *sink = n == 1 ? s->sinks[0] : cc_access_tee(&s->tee);
  s->sink = *sink;
  s->sink_made = 1;
  return CC_OK;
}

int cc_cli_outputs_partials(struct cc_cli_outputs *s, struct cc_access_partials *out,
                            int *ordered)
{
  if (!s->multi)
    return 0;
  *ordered = cc_analysis_multi_partials(s->multi, out) || s->view || s->trace;
  if (s->view || s->trace) /* they take every record in order */
    out->to_ordered = NULL;
  return 1;
}

/* Whether path is the file that out writes to (a trace sent to /dev/stdout). */
static int is_stream_of(const char *path, FILE *out)
{
  struct stat a, b;
  return strcmp(path, "-") == 0 || (stat(path, &a) == 0 && fstat(fileno(out), &b) == 0 &&
                                    a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* Closes the trace (whole or not at all) and, for record, writes the summary line:
 * records, bytes of the file, bytes per record (to stderr when the trace itself went to
 * out). The trace's totals are taken before the close (which frees the writer); its size
 * after it, from the file (a trace written to a pipe or standard output has no size to
 * show). */
static int close_trace(struct cc_cli_outputs *s, FILE *out, struct cc_err *err)
{
  struct cc_trace_stats st;
  struct stat sb;
  int rc;
  FILE *summary = is_stream_of(s->trace_path, out) ? stderr : out;
  cc_trace_writer_stats(s->trace, &st);
  rc = cc_trace_writer_close(s->trace, err);
  s->trace = NULL;
  if (rc != CC_OK || !s->o->record_only)
    return rc;
  if (stat(s->trace_path, &sb) == 0 && S_ISREG(sb.st_mode))
    fprintf(summary, "recorded %s: %llu records, %llu bytes, %.2f bytes/record\n",
            s->trace_path, (unsigned long long)st.records, (unsigned long long)sb.st_size,
            st.records ? (double)sb.st_size / (double)st.records : 0.0);
  else
    fprintf(summary, "recorded %s: %llu records\n", s->trace_path,
            (unsigned long long)st.records);
  return CC_OK;
}

/* The text report of an with the top worst instructions per kernel (0: all). The analysis
 * orders them worst first; a shallow copy with shorter instruction lists is what the
 * report writer sees. */
static int text_report(FILE *out, const struct cc_analysis *an, uint32_t top,
                       struct cc_err *err)
{
  struct cc_analysis view = *an;
  int rc;
  if (top == 0)
    return cc_report_text(out, an, err);
  view.kernels = cc_xcalloc(an->n_kernels ? an->n_kernels : 1, sizeof *view.kernels);
  for (size_t i = 0; i < an->n_kernels; i++) {
    view.kernels[i] = an->kernels[i];
    if (view.kernels[i].n_insns > top)
      view.kernels[i].n_insns = top;
  }
  rc = cc_report_text(out, &view, err);
  free(view.kernels);
  return rc;
}

/* The JSON document (one model: the report; several: the comparison) into *out; with the
 * views, the first kernel gets their "dwarp" object (docs/json-schema.md). */
static int json_string(struct cc_cli_outputs *s, const struct cc_analysis *const *ans, size_t n,
                       char **out, struct cc_err *err)
{
  cJSON *doc, *k, *dw;
  int rc;
  if (n == 1)
    *out = cc_report_json_string(ans[0], CC_CLI_VERSION);
  else if ((rc = cc_report_compare_json_string(ans, n, CC_CLI_VERSION, out, err)) != CC_OK)
    return rc;
  if (!s->view || !(dw = cc_view_dwarp_json(s->view)))
    return CC_OK;
  doc = cJSON_Parse(*out);
  k = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
  if (k) {
    cJSON_AddItemToObject(k, "dwarp", dw);
    free(*out);
    *out = cJSON_Print(doc);
  } else {
    cJSON_Delete(dw);
  }
  cJSON_Delete(doc);
  return CC_OK;
}

/* Writes text and a newline into the output file f opened by cc_cli_outputs_open (path
 * for the message), and commits it. */
static int write_out(struct cc_outfile *f, int *open, const char *path, const char *text,
                     struct cc_err *err)
{
  int ok = fputs(text, f->fp) >= 0 && fputc('\n', f->fp) != EOF;
  if (!ok)
    return cc_err_set(err, CC_ERR_IO, "cannot write %s: write error (disk full?)", path);
  *open = 0;
  return cc_outfile_commit(f, err);
}

/* Writes the views page into the --html file and commits it. */
static int write_html(struct cc_cli_outputs *s, const char *json, struct cc_err *err)
{
  int rc = cc_view_html_write(s->html.fp, s->view, json, s->o->input, err);
  if (rc != CC_OK)
    return rc;
  s->html_open = 0;
  return cc_outfile_commit(&s->html, err);
}

/* Whether path is standard output ("-"). */
static int is_stdout(const char *path)
{
  return path && strcmp(path, "-") == 0;
}

/* The SARIF log (of the first --arch model: one tool run) and the CSV (every model) into
 * their files, each whole or not at all. */
static int write_ci(struct cc_cli_outputs *s, const struct cc_analysis *const *ans, size_t n,
                    struct cc_err *err)
{
  int rc = CC_OK;
  char *text;
  if (s->sarif_open) {
    text = cc_report_sarif_string(ans[0], CC_CLI_VERSION);
    rc = write_out(&s->sarif, &s->sarif_open, s->o->sarif_path, text, err);
    free(text);
  }
  if (rc == CC_OK && s->csv_open) {
    text = cc_report_csv_string(ans, n);
    /* the CSV ends its records with CRLF itself (RFC 4180): no newline after it */
    if (fputs(text, s->csv.fp) < 0)
      rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: write error (disk full?)",
                      s->o->csv_path);
    else
      s->csv_open = 0, rc = cc_outfile_commit(&s->csv, err);
    free(text);
  }
  return rc;
}

int cc_cli_outputs_gates(struct cc_cli_outputs *s, FILE *fp, struct cc_err *err)
{
  const struct cc_analysis *const *ans;
  size_t n, trips = 0;
  if (!s->multi || s->o->ngates == 0)
    return CC_OK;
  ans = cc_analysis_multi_results(s->multi);
  n = cc_analysis_multi_count(s->multi);
  for (size_t i = 0; i < n; i++)
    trips += cc_report_gate_check(fp, s->o->gates, s->o->ngates, ans[i],
                                  n > 1 ? cc_model_name(ans[i]->model) : NULL);
  if (trips == 0)
    return CC_OK;
  return cc_err_set(err, CC_ERR_GATE, "%zu gate trip%s (see above); the outputs are written; "
                    "fix the accesses or mark them '// coalcheck: ignore -- REASON'", trips,
                    trips == 1 ? "" : "s");
}

int cc_cli_outputs_finish(struct cc_cli_outputs *s, FILE *out, struct cc_err *err)
{
  const struct cc_analysis *const *ans;
  size_t n;
  int rc;
  int text = !is_stdout(s->o->json_path) && !is_stdout(s->o->sarif_path) &&
             !is_stdout(s->o->csv_path);
  if (s->trace && (rc = close_trace(s, out, err)) != CC_OK)
    return rc;
  if (!s->multi)
    return CC_OK;
  ans = cc_analysis_multi_results(s->multi);
  n = cc_analysis_multi_count(s->multi);
  /* the JSON and the page first: when they cannot be written, there is no report at all */
  if (s->json_open || s->html_open) {
    char *json = NULL;
    if ((rc = json_string(s, ans, n, &json, err)) == CC_OK && s->json_open)
      rc = write_out(&s->json, &s->json_open, s->o->json_path, json, err);
    if (rc == CC_OK && s->html_open)
      rc = write_html(s, json, err);
    free(json);
    if (rc != CC_OK)
      return rc;
  }
  if ((rc = write_ci(s, ans, n, err)) != CC_OK)
    return rc;
  if (!text)
    return CC_OK;
  if (n == 1)
    return text_report(out, ans[0], s->o->top, err);
  return cc_report_compare_text(out, ans, n, err); /* --top: single-model reports only */
}
