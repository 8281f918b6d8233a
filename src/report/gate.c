/* --fail-on gates and `// coalcheck: ignore` suppressions: see ci.h. */
#include "report/ci.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/source.h"
#include "util/mem.h"

static const char *const metric_names[CC_GATE_NMETRICS] = {
  "efficiency", "excess-sectors", "sectors-per-request", "bank-conflicts",
  "wavefronts-per-request", "kernel.efficiency", "kernel.excess-sectors",
  "kernel.bank-conflicts",
};

/* Longest spellings first, so that "<=" is not read as "<". */
static const struct { const char *text; enum cc_gate_op op; } ops[] = {
  {"<=", CC_GATE_LE}, {">=", CC_GATE_GE}, {"==", CC_GATE_EQ}, {"!=", CC_GATE_NE},
  {"<", CC_GATE_LT}, {">", CC_GATE_GT},
};

const char *cc_report_gate_metric_name(enum cc_gate_metric m)
{
  return m < CC_GATE_NMETRICS ? metric_names[m] : "?";
}

static size_t skip_blanks(const char *s, size_t i)
{
  while (s[i] == ' ' || s[i] == '\t')
    i++;
  return i;
}

/* "efficiency, excess-sectors, ..." for the unknown-metric message. */
static void known_metrics(char *buf, size_t cap)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int m = 0; m < CC_GATE_NMETRICS && n < cap; m++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", m ? ", " : "", metric_names[m]);
}

static int bad(struct cc_err *err, const char *expr, size_t col, const char *what)
{
  return cc_err_set(err, CC_ERR_USAGE, "bad --fail-on '%s': column %zu: %s", expr, col + 1,
                    what);
}

int cc_report_gate_parse(const char *expr, struct cc_gate *out, struct cc_err *err)
{
  size_t i = skip_blanks(expr, 0), start = i, len;
  int metric = -1, op = -1;
  char known[256], *end, *text;
  double v;
  while (isalnum((unsigned char)expr[i]) || expr[i] == '-' || expr[i] == '.' || expr[i] == '_')
    i++;
  len = i - start;
  if (len == 0)
    return bad(err, expr, start, "expected a metric name (e.g. efficiency<0.5)");
  for (int m = 0; m < CC_GATE_NMETRICS; m++)
    if (strlen(metric_names[m]) == len && strncmp(expr + start, metric_names[m], len) == 0)
      metric = m;
  if (metric < 0) {
    known_metrics(known, sizeof known);
    return cc_err_set(err, CC_ERR_USAGE, "bad --fail-on '%s': column %zu: unknown metric "
                      "'%.*s'; known metrics: %s", expr, start + 1, (int)len, expr + start,
                      known);
  }
  i = skip_blanks(expr, i);
  for (size_t k = 0; k < sizeof ops / sizeof ops[0] && op < 0; k++)
    if (strncmp(expr + i, ops[k].text, strlen(ops[k].text)) == 0) {
      op = (int)ops[k].op;
      i += strlen(ops[k].text);
    }
  if (op < 0)
    return bad(err, expr, i, "expected a comparison: < <= > >= == !=");
  i = skip_blanks(expr, i);
  if (!(isdigit((unsigned char)expr[i]) || expr[i] == '.' || expr[i] == '-' || expr[i] == '+'))
    return bad(err, expr, i, "expected a number");
  v = strtod(expr + i, &end);
  if (end == expr + i || !isfinite(v))
    return bad(err, expr, i, "expected a finite number");
  i = skip_blanks(expr, (size_t)(end - expr));
  if (expr[i])
    return bad(err, expr, i, "unexpected text after the number");
  text = cc_xmalloc(strlen(expr) + 1);
  for (size_t k = 0, n = 0;; k++) {
    if (expr[k] != ' ' && expr[k] != '\t')
      text[n++] = expr[k];
    if (!expr[k])
      break;
  }
  *out = (struct cc_gate){text, (enum cc_gate_metric)metric, (enum cc_gate_op)op, v};
  return CC_OK;
}

void cc_report_gate_release(struct cc_gate *g)
{
  if (!g)
    return;
  free(g->text);
  memset(g, 0, sizeof *g);
}

int cc_report_gate_trips(const struct cc_gate *g, double v)
{
  if (isnan(v))
    return 0;
  switch (g->op) {
  case CC_GATE_LT: return v < g->value;
  case CC_GATE_LE: return v <= g->value;
  case CC_GATE_GT: return v > g->value;
  case CC_GATE_GE: return v >= g->value;
  case CC_GATE_EQ: return v == g->value;
  case CC_GATE_NE: return v != g->value;
  }
  return 0;
}

static int is_shared(const struct cc_insn_stats *s)
{
  return s->wavefronts > 0 || s->info.space == CC_SPACE_SHARED;
}

/* The value of an instruction metric for s, NaN where it does not apply (a shared metric
 * on a global instruction, a ratio without requests). */
static double insn_value(enum cc_gate_metric m, const struct cc_insn_stats *s)
{
  int shared = is_shared(s);
  switch (m) {
  case CC_GATE_EFFICIENCY: return cc_analysis_efficiency(s);
  case CC_GATE_EXCESS_SECTORS: return shared ? NAN : (double)s->excess_sectors;
  case CC_GATE_SECTORS_PER_REQUEST:
    return shared || !s->requests ? NAN : (double)s->sectors / (double)s->requests;
  case CC_GATE_BANK_CONFLICTS:
    return shared ? (double)(s->wavefronts - s->ideal_wavefronts) : NAN;
  case CC_GATE_WAVEFRONTS_PER_REQUEST:
    return shared && s->requests ? (double)s->wavefronts / (double)s->requests : NAN;
  default: return NAN;
  }
}

static int is_kernel_metric(enum cc_gate_metric m)
{
  return m >= CC_GATE_KERNEL_EFFICIENCY;
}

static void trip_line(FILE *fp, const struct cc_gate *g, const struct cc_kernel_stats *k,
                      const char *arch, const struct cc_insn_stats *s, double v)
{
  char ptx[256], place[600];
  fprintf(fp, "coalcheck: gate '%s' tripped: kernel %s%s%s", g->text, k->name,
          arch ? " under " : "", arch ? arch : "");
  if (s)
    fprintf(fp, ", %s %s", cc_report_place(s->source.file, s->source.line, place, sizeof place),
            cc_report_squeeze(s->info.text ? s->info.text : "?", ptx, sizeof ptx));
  fprintf(fp, "%s%s %.6g\n", s ? " " : ": ", cc_report_gate_metric_name(g->metric), v);
}

/* The kernel metric of g over k: totals, or sums over the unsuppressed instructions. */
static double kernel_value(enum cc_gate_metric m, const struct cc_kernel_stats *k,
                           const unsigned char *suppressed)
{
  double sum = 0;
  if (m == CC_GATE_KERNEL_EFFICIENCY)
    return cc_analysis_totals_efficiency(&k->totals);
  for (size_t i = 0; i < k->n_insns; i++) {
    double v = insn_value(m == CC_GATE_KERNEL_EXCESS_SECTORS ? CC_GATE_EXCESS_SECTORS
                                                              : CC_GATE_BANK_CONFLICTS,
                          &k->insns[i]);
    if (!suppressed[i] && !isnan(v))
      sum += v;
  }
  return sum;
}

size_t cc_report_gate_check(FILE *fp, const struct cc_gate *gates, size_t n,
                            const struct cc_analysis *an, const char *arch)
{
  struct cc_source_cache *cache = cc_report_source_new();
  size_t trips = 0;
  char reason[8];
  for (size_t ki = 0; ki < an->n_kernels; ki++) {
    const struct cc_kernel_stats *k = &an->kernels[ki];
    unsigned char *sup = cc_xcalloc(k->n_insns + 1, 1);
    for (size_t i = 0; i < k->n_insns; i++)
      sup[i] = (unsigned char)cc_report_suppression(cache, &k->insns[i], reason, sizeof reason);
    for (size_t gi = 0; gi < n; gi++) {
      const struct cc_gate *g = &gates[gi];
      if (is_kernel_metric(g->metric)) {
        double v = kernel_value(g->metric, k, sup);
        if (cc_report_gate_trips(g, v)) {
          trip_line(fp, g, k, arch, NULL, v);
          trips++;
        }
        continue;
      }
      for (size_t i = 0; i < k->n_insns; i++) {
        double v = insn_value(g->metric, &k->insns[i]);
        if (sup[i] || k->insns[i].executions == 0 || !cc_report_gate_trips(g, v))
          continue;
        trip_line(fp, g, k, arch, &k->insns[i], v);
        trips++;
      }
    }
    free(sup);
  }
  cc_report_source_free(cache);
  return trips;
}

/* The text after "coalcheck:" in a // comment of line[0..len), or NULL. */
static const char *find_marker(const char *line, size_t len, size_t *rest)
{
  static const char marker[] = "coalcheck:";
  for (size_t i = 0; i + 2 <= len; i++) {
    size_t j;
    if (line[i] != '/' || line[i + 1] != '/')
      continue;
    j = i + 2;
    while (j < len && (line[j] == ' ' || line[j] == '\t'))
      j++;
    if (len - j >= sizeof marker - 1 && strncmp(line + j, marker, sizeof marker - 1) == 0) {
      *rest = len - j - (sizeof marker - 1);
      return line + j + sizeof marker - 1;
    }
  }
  return NULL;
}

/* Whether p[0..n) starts with word w followed by a blank or the end; advances past it. */
static int take_word(const char **p, size_t *n, const char *w)
{
  size_t wl = strlen(w), i = 0;
  while (i < *n && ((*p)[i] == ' ' || (*p)[i] == '\t'))
    i++;
  if (*n - i < wl || strncmp(*p + i, w, wl) != 0 ||
      (*n - i > wl && (*p)[i + wl] != ' ' && (*p)[i + wl] != '\t'))
    return 0;
  *p += i + wl;
  *n -= i + wl;
  return 1;
}

int cc_report_suppression(struct cc_source_cache *cache, const struct cc_insn_stats *s,
                          char *reason, size_t cap)
{
  size_t len, n;
  const char *line = cc_report_source_line(cache, s->source.file, s->source.line, &len), *p;
  int shared = is_shared(s);
  if (!line || !(p = find_marker(line, len, &n)) || !take_word(&p, &n, "ignore"))
    return 0;
  if (take_word(&p, &n, "uncoalesced")) {
    if (shared)
      return 0;
  } else if (take_word(&p, &n, "bank-conflicts")) {
    if (!shared)
      return 0;
  }
  while (n && (*p == ' ' || *p == '\t'))
    p++, n--;
  if (n >= 2 && p[0] == '-' && p[1] == '-')
    p += 2, n -= 2;
  else
    n = 0; /* anything else after the category is not a reason */
  while (n && (*p == ' ' || *p == '\t'))
    p++, n--;
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
    n--;
  if (cap) {
    if (n >= cap)
      n = cap - 1;
    memcpy(reason, p, n);
    reason[n] = '\0';
  }
  return 1;
}
