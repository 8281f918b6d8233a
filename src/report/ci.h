/* coalcheck report for CI: gates (--fail-on), source suppressions, SARIF 2.1.0 and CSV
 * (issue 16, docs/ci.md, docs/usage.md "Gates"). Every function reads a finished struct
 * cc_analysis (analysis/analysis.h), like the text and JSON writers of report.h. */
#ifndef CC_REPORT_CI_H
#define CC_REPORT_CI_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "util/err.h"

/* What a gate measures (docs/usage.md, "Gates"): per instruction unless KERNEL_ is in the
 * name (the kernel's totals). */
enum cc_gate_metric {
  CC_GATE_EFFICIENCY,             /* 0..1: the JSON report's "efficiency" */
  CC_GATE_EXCESS_SECTORS,         /* global/local: sectors - ideal_sectors (32 B each) */
  CC_GATE_SECTORS_PER_REQUEST,    /* global/local: sectors / requests */
  CC_GATE_BANK_CONFLICTS,         /* shared: excess wavefronts, wavefronts - ideal */
  CC_GATE_WAVEFRONTS_PER_REQUEST, /* shared: wavefronts / requests */
  CC_GATE_KERNEL_EFFICIENCY,      /* the kernel's totals: efficiency */
  CC_GATE_KERNEL_EXCESS_SECTORS,  /* sum over its unsuppressed instructions */
  CC_GATE_KERNEL_BANK_CONFLICTS,  /* sum over its unsuppressed instructions */
  CC_GATE_NMETRICS
};

enum cc_gate_op { CC_GATE_LT, CC_GATE_LE, CC_GATE_GT, CC_GATE_GE, CC_GATE_EQ, CC_GATE_NE };

/* One --fail-on EXPR: "METRIC OP NUMBER"; it trips where the comparison holds. */
struct cc_gate {
  char *text;                 /* owned: EXPR with its blanks removed ("efficiency<0.5") */
  enum cc_gate_metric metric;
  enum cc_gate_op op;
  double value;
};

/* Parses expr into *out (METRIC OP NUMBER, blanks allowed between; OP one of < <= > >=
 * == !=; NUMBER a finite decimal as strtod reads it). Errors: CC_ERR_USAGE "bad --fail-on
 * 'EXPR': column C: expected ..." naming the 1-based column of the first wrong character;
 * an unknown metric lists the known ones. *out is untouched on error. */
int cc_report_gate_parse(const char *expr, struct cc_gate *out, struct cc_err *err);

/* Frees what g owns and zeroes it; NULL or zeroed allowed. */
void cc_report_gate_release(struct cc_gate *g);

/* The name of a metric as --fail-on spells it ("excess-sectors", "kernel.efficiency"). */
const char *cc_report_gate_metric_name(enum cc_gate_metric m);

/* Whether a gate with value v of its metric trips (v NaN: never). */
int cc_report_gate_trips(const struct cc_gate *g, double v);

/* Evaluates gates[0..n) on every executed instruction and every kernel of an, skipping
 * instructions suppressed in their source (cc_report_suppression), and writes one line
 * per trip to fp: "coalcheck: gate 'efficiency<0.5' tripped: kernel K, FILE:LINE PTX:
 * efficiency 0.125" (arch, when given, after the kernel's name). Returns the trips. */
size_t cc_report_gate_check(FILE *fp, const struct cc_gate *gates, size_t n,
                            cc_keep const struct cc_analysis *an, const char *arch);

/* ---- suppressions ---------------------------------------------------------------------- */

struct cc_source_cache; /* report/source.h */

/* A `// coalcheck: ignore [uncoalesced|bank-conflicts] [-- REASON]` comment on s's CUDA
 * source line (s->source, read through cache): 1 when it exempts s (no category, or
 * "uncoalesced" on a global/local instruction, "bank-conflicts" on a shared one), with
 * the reason (blanks trimmed; empty when none) in reason[0..cap). 0 otherwise, also when
 * the line cannot be read. */
int cc_report_suppression(struct cc_source_cache *cache, const struct cc_insn_stats *s,
                          char *reason, size_t cap);

/* ---- SARIF and CSV ---------------------------------------------------------------------- */

/* The SARIF 2.1.0 log (OASIS SARIF v2.1.0, sections 3.13-3.27) of an, indented; the
 * caller frees it. One result per executed uncoalesced global or local instruction
 * (ruleId coalcheck/uncoalesced-global, coalcheck/uncoalesced-local) and per shared
 * access with bank conflicts (coalcheck/shared-bank-conflict), level "warning", located
 * at the CUDA source line (uri relative to the current folder with uriBaseId %SRCROOT%
 * when the file is below it, else a file:// URI); suppressed ones carry an inSource
 * suppression with the reason. */
cc_give char *cc_report_sarif_string(cc_keep const struct cc_analysis *an,
                                     const char *tool_version);

/* The CSV (RFC 4180: CRLF line ends, fields with a comma, quote, CR or LF quoted, quotes
 * doubled) of the analyses ans[0..n): a header row with units, then one row per executed
 * instruction per kernel per analysis, worst first as in the text report. The caller
 * frees it. */
cc_give char *cc_report_csv_string(cc_keep const struct cc_analysis *const *ans, size_t n);

#endif
