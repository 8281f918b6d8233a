/* Helpers shared by the report's two JSON writers (json.c: the report, compare_json.c:
 * the comparison document), so that a field means and looks the same in both. Not
 * exported beyond src/report. */
#ifndef CC_REPORT_JSON_IMPL_H
#define CC_REPORT_JSON_IMPL_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "analysis/analysis.h"

/* Adds key: v to o. Counts are JSON numbers (doubles): exact up to 2^53. */
void cc_report_json_num(cJSON *o, const char *key, double v);
/* A new [x, y, z] array (grid or block dimensions). */
cJSON *cc_report_json_dim3(const uint32_t d[3]);
/* The report's "op": "load", "store", or "atomic" for atom.* and red.* (red.* is
 * flagged by "reduction": true beside it). */
const char *cc_report_json_op(enum cc_access_kind kind);
/* The instruction's "source" object: the user's line (analysis.h's source), with
 * "inlined_from" (the header location) and "inlined_at" (the .loc's call site) when
 * they apply. The caller owns the new object. */
cJSON *cc_report_json_source(const struct cc_insn_stats *s);

/* Writes one RFC 4180 field to fp: quoted (quotes doubled) when it holds a comma, a
 * quote, CR or LF; then the separator (',' or, when last, the CRLF that ends the record).
 * The CSV writers' (csv.c, merge.c) one quoting rule. */
void cc_report_csv_field(FILE *fp, const char *s, int last);

#endif
