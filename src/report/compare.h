/* coalcheck compare: one run under several memory models, side by side.
 *
 * Rosen, EuroVis 2013 (seeds/003, section 6.2.2 "Architecture Comparisons"): the access
 * trace is recorded once and only the memory transactions are simulated again per
 * architecture, so that the same instruction can be read under CUDA 1.0, 1.2, 2.x, ...
 * Here: N analyses (analysis/analysis.h), one per model, fed the SAME access stream (a
 * trace replayed into a fan-out sink, or the emulator streaming into one), are written as
 * one table per kernel: per instruction (in program order) and per architecture, the
 * requests, transactions per request, bytes transferred, efficiency and Algorithm 1's
 * verdict, or for shared memory the conflict ways and wavefronts; and as a JSON document
 * of type "coalcheck-compare" (docs/json-schema.md, section "Comparison document").
 *
 * The analyses are passed as an array ans[0..n) in the order of the columns (the order of
 * --arch); every function borrows them. */
#ifndef CC_REPORT_COMPARE_H
#define CC_REPORT_COMPARE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "util/err.h"

/* The "document" value of the comparison JSON. */
#define CC_REPORT_COMPARE_DOCUMENT "coalcheck-compare"

/* Checks that ans[0..n) can be compared: n >= 1; every analysis finished (no kernel
 * open); models of distinct names; the same kernels (count, then mangled name of each, in
 * order); per kernel the same static instructions (count, and ptx_index per slot) and
 * the same executions per instruction. Errors: CC_ERR_USAGE for n == 0 or an architecture
 * given twice; CC_ERR_INPUT when the analyses are not of the same run (the message names
 * the kernel and instruction that differ); CC_ERR_INTERNAL for an analysis with a kernel
 * still open. The writers below call it first. */
int cc_report_compare_check(cc_keep const struct cc_analysis *const *ans, size_t n,
                            struct cc_err *err);

/* Writes the comparison as text to fp (CC_REPORT_WIDTH columns, PTX cut with "..."): per
 * kernel a header, the kernel totals per architecture, then per executed instruction in
 * program order its PTX, source location and one row per architecture. Errors: those of
 * cc_report_compare_check (nothing written), and CC_ERR_IO when fp reports a write error
 * (fflush/ferror; fp stays open). */
int cc_report_compare_text(FILE *fp, cc_keep const struct cc_analysis *const *ans, size_t n,
                           struct cc_err *err);

/* Writes the text comparison to path ("-": stdout), whole or not at all (util/fileio.h).
 * Errors: as cc_report_compare_text; CC_ERR_IO with the path and the reason. */
int cc_report_compare_text_write(const char *path, cc_keep const struct cc_analysis *const *ans,
                                 size_t n, struct cc_err *err);

/* Makes the comparison JSON document (docs/json-schema.md, "Comparison document"),
 * indented, into *out (the caller frees it with free()); tool_version is written as given
 * (NULL: "unknown"). Errors: those of cc_report_compare_check; *out is NULL then. */
int cc_report_compare_json_string(cc_keep const struct cc_analysis *const *ans, size_t n,
                                  const char *tool_version, cc_give char **out,
                                  struct cc_err *err);

/* Writes the comparison JSON document to path ("-": stdout), whole or not at all.
 * Errors: those of cc_report_compare_check (nothing written); CC_ERR_IO with the path. */
int cc_report_compare_json_write(const char *path, cc_keep const struct cc_analysis *const *ans,
                                 size_t n, const char *tool_version, struct cc_err *err);

#endif
