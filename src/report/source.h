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

#endif
