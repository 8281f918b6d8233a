/* coalcheck report: the results of an analysis as text (for people) and JSON (for tools).
 *
 * Both read a finished struct cc_analysis (analysis/analysis.h: every kernel ended) and
 * write kernels in stream order, instructions worst first. The JSON schema is
 * docs/json-schema.md (schema_version 5). */
#ifndef CC_REPORT_REPORT_H
#define CC_REPORT_REPORT_H

#include <stdio.h>

#include "analysis/analysis.h"
#include "util/err.h"

#define CC_REPORT_SCHEMA_VERSION 5
#define CC_REPORT_WIDTH 100 /* text columns */

/* Writes the text report to fp: per kernel a header (name, grid, block, arch, the
 * emulator's counters when known: "emulated N thread-instructions in S s (R M warp
 * records/s)", totals, the CGO 2015 Table 2 pair) and a table, worst first, each row
 * followed by the PTX text (blanks made single spaces), strides (with the source line's
 * allStr for unrolled copies), advice and the CUDA source line of the instruction's
 * `source` (analysis.h: the user's line for code inlined from a header, then "via
 * HEADER:LINE"; read from the file; "(source not available)" when it cannot be read).
 * Counts carry thousands separators (1,179,648). The verdict column holds Algorithm 1's verdict for
 * global and local rows, "N-way" or "no conflict" for shared ones. Lines fit in CC_REPORT_WIDTH columns, except PTX
 * and source text, which are cut with "...". Errors: CC_ERR_IO when fp reports a write
 * error (checked with fflush and ferror; fp stays open). */
int cc_report_text(FILE *fp, cc_keep const struct cc_analysis *an, struct cc_err *err);

/* Writes the text report to path ("-": stdout), whole or not at all (util/fileio.h).
 * Errors: CC_ERR_IO with the path and the reason; no partial file is left. */
int cc_report_text_write(const char *path, cc_keep const struct cc_analysis *an,
                         struct cc_err *err);

/* The JSON document of docs/json-schema.md as a string (indented); the caller frees it
 * with free(). tool_version is written as given (e.g. "0.1.0"). Per kernel: "emulator"
 * (when the run's counters are known), "totals", "instructions", "lines". */
cc_give char *cc_report_json_string(cc_keep const struct cc_analysis *an,
                                    const char *tool_version);

/* Writes the JSON document to path ("-": stdout), whole or not at all. Errors: CC_ERR_IO
 * with the path and the reason; no partial file is left. */
int cc_report_json_write(const char *path, cc_keep const struct cc_analysis *an,
                         const char *tool_version, struct cc_err *err);

struct cJSON;
/* The JSON text of root (indented), which is freed (taken); the caller frees the text with
 * free(), whatever cJSON's allocator is. Aborts (CC_BUG) when cJSON runs out of memory. */
cc_give char *cc_report_json_finish(cc_take struct cJSON *root);

/* Writes text (taken, freed on every path) and a newline to path ("-": standard output)
 * whole or not at all (util/fileio.h). Errors: CC_ERR_IO "cannot write PATH: ...". */
int cc_report_json_write_text(const char *path, cc_take char *text, struct cc_err *err);

/* Naming a source line in a report. nvcc gives line 0 to code merged from several lines
 * (a load serving two subscripts); the PTX parser gives such instructions the nearest
 * preceding .loc with a real line (ptx_parse.c), and line 0 is left only where none
 * precedes it, or in a trace recorded before. A report never names line 0:
 * cc_report_line_name writes "line N" or "line unknown"; cc_report_place "FILE:LINE",
 * "FILE, line unknown", or "?" for path NULL (no line information at all). Both write
 * at most cap bytes into buf (cap >= 1) and return buf. */
const char *cc_report_line_name(uint32_t line, char *buf, size_t cap);
const char *cc_report_place(const char *path, uint32_t line, char *buf, size_t cap);

#endif
