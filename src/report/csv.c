/* The CSV report (`--csv FILE`), one row per executed instruction like `ncu --csv --page
 * raw`, with the text report's columns and their units in the header: see ci.h. */
#include "report/ci.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/json_impl.h"
#include "report/source.h"
#include "util/mem.h"

static const char *const header[] = {
  "arch", "kernel", "rank", "file", "line", "op", "space", "size [B]", "executions",
  "requests", "sectors [32 B]", "ideal sectors [32 B]", "excess sectors [32 B]",
  "sectors/request", "ideal sectors/request", "wavefronts", "ideal wavefronts",
  "bank conflict ways", "efficiency [%]", "verdict", "ptx", "advice", "suppressed",
};
#define NCOLS (sizeof header / sizeof header[0])

/* One RFC 4180 field (json_impl.h). */
void cc_report_csv_field(FILE *fp, const char *s, int last)
{
  if (strpbrk(s, ",\"\r\n")) {
    fputc('"', fp);
    for (; *s; s++) {
      if (*s == '"')
        fputc('"', fp);
      fputc(*s, fp);
    }
    fputc('"', fp);
  } else {
    fputs(s, fp);
  }
  fputs(last ? "\r\n" : ",", fp);
}

static void num_field(FILE *fp, double v, const char *fmt)
{
  char b[64];
  if (isnan(v))
    b[0] = '\0';
  else
    snprintf(b, sizeof b, fmt, v);
  cc_report_csv_field(fp, b, 0);
}

/* The advice of s, "kind: text" joined by newlines (one field, quoted). Owned. */
static char *advice(const struct cc_insn_stats *s)
{
  size_t cap = 1;
  char *out, *o;
  for (size_t j = 0; j < s->n_suggestions; j++)
    cap += strlen(s->suggestions[j].text) + 64;
  out = o = cc_xmalloc(cap);
  *o = '\0';
  for (size_t j = 0; j < s->n_suggestions; j++)
    o += sprintf(o, "%s%s: %s", j ? "\n" : "", cc_suggestion_kind_name(s->suggestions[j].kind),
                 s->suggestions[j].text);
  return out;
}

static void row(FILE *fp, const struct cc_analysis *an, const struct cc_kernel_stats *k,
                size_t rank, const struct cc_insn_stats *s, struct cc_source_cache *cache)
{
  int shared = s->wavefronts > 0 || s->info.space == CC_SPACE_SHARED;
  double req = (double)s->requests;
  char reason[512], *adv = advice(s);
  cc_report_csv_field(fp, cc_model_name(an->model), 0);
  cc_report_csv_field(fp, k->name, 0);
  num_field(fp, (double)rank, "%.0f");
  cc_report_csv_field(fp, s->source.file ? s->source.file : "", 0);
  num_field(fp, s->source.line ? (double)s->source.line : NAN, "%.0f");
  cc_report_csv_field(fp, cc_report_json_op(s->info.kind), 0);
  cc_report_csv_field(fp, cc_space_name(s->info.space), 0);
  num_field(fp, s->info.size_bytes, "%.0f");
  num_field(fp, (double)s->executions, "%.0f");
  num_field(fp, (double)s->requests, "%.0f");
  num_field(fp, shared ? NAN : (double)s->sectors, "%.0f");
  num_field(fp, shared ? NAN : (double)s->ideal_sectors, "%.0f");
  num_field(fp, shared ? NAN : (double)s->excess_sectors, "%.0f");
  num_field(fp, shared || !s->requests ? NAN : (double)s->sectors / req, "%.4f");
  num_field(fp, shared || !s->requests ? NAN : (double)s->ideal_sectors / req, "%.4f");
  num_field(fp, shared ? (double)s->wavefronts : NAN, "%.0f");
  num_field(fp, shared ? (double)s->ideal_wavefronts : NAN, "%.0f");
  num_field(fp, shared ? (double)s->ways_max : NAN, "%.0f");
  num_field(fp, 100.0 * cc_analysis_efficiency(s), "%.4f");
  cc_report_csv_field(fp, shared ? (s->ways_max > 1 ? "conflict" : "no conflict") : cc_verdict_name(s->verdict),
        0);
  cc_report_csv_field(fp, s->info.text ? s->info.text : "", 0);
  cc_report_csv_field(fp, adv, 0);
  if (cc_report_suppression(cache, s, reason, sizeof reason))
    cc_report_csv_field(fp, reason[0] ? reason : "yes", 1);
  else
    cc_report_csv_field(fp, "", 1);
  free(adv);
}

char *cc_report_csv_string(const struct cc_analysis *const *ans, size_t n)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  struct cc_source_cache *cache = cc_report_source_new();
  if (!fp)
    CC_BUG("open_memstream failed (out of memory)");
  for (size_t c = 0; c < NCOLS; c++)
    cc_report_csv_field(fp, header[c], c + 1 == NCOLS);
  for (size_t a = 0; a < n; a++)
    for (size_t ki = 0; ki < ans[a]->n_kernels; ki++) {
      const struct cc_kernel_stats *k = &ans[a]->kernels[ki];
      size_t rank = 0;
      for (size_t i = 0; i < k->n_insns; i++)
        if (k->insns[i].executions)
          row(fp, ans[a], k, ++rank, &k->insns[i], cache);
    }
  if (fclose(fp) != 0)
    CC_BUG("open_memstream write failed (out of memory)");
  cc_report_source_free(cache);
  return buf;
}
