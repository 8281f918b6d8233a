/* coalcheck report, inside the folder only: CUDA source lines for the text report. */
#ifndef CC_REPORT_SOURCE_H
#define CC_REPORT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct cc_source_cache; /* files read so far (and those that could not be read) */

/* An empty cache; cc_report_source_free (NULL allowed) frees it and its files. */
cc_give struct cc_source_cache *cc_report_source_new(void);
void cc_report_source_free(cc_take struct cc_source_cache *c);

/* Line `line` (1-based) of file path, without its newline, as a pointer into the cache
 * and its length in *len; NULL when path is NULL, unreadable or shorter. */
const char *cc_report_source_line(struct cc_source_cache *c, const char *path, uint32_t line,
                                  size_t *len);

/* s with every run of blanks (spaces, tabs, newlines) made one space, and none at either
 * end, into buf (cap bytes, cap >= 1; cut to fit, always NUL-terminated); returns buf.
 * PTX text keeps nvcc's tabs ("st.global.f32 \t[%rd8], %f1;"): both text writers show it
 * squeezed, so that columns line up and widths count what is seen. */
const char *cc_report_squeeze(const char *s, char *buf, size_t cap);

#endif
