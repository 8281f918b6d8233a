/* coalcheck: reading inputs whole and writing outputs whole-or-not-at-all. */
#ifndef CC_UTIL_FILEIO_H
#define CC_UTIL_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* Reads the regular file at path into a NUL-terminated buffer (*out, *len bytes without
 * the NUL). The caller frees *out. Errors: CC_ERR_INPUT with "cannot read PATH: reason"
 * (see cc_file_open_regular). */
int cc_file_read(const char *path, cc_give char **out, size_t *len, struct cc_err *err);

/* cc_file_read of a file of at most max_bytes bytes (counted as read, not as stat says);
 * what names such files in the error: CC_ERR_INPUT "cannot read PATH: it is larger than
 * MAX bytes, the most WHAT may hold" (no more than max_bytes + 1 bytes are read). */
int cc_file_read_max(const char *path, size_t max_bytes, const char *what,
                     cc_give char **out, size_t *len, struct cc_err *err);

/* Opens path for reading when it is a regular file (a device, FIFO, socket or folder is
 * refused without blocking: /dev/zero or a FIFO would be read forever or wait forever);
 * *size receives its size in bytes as fstat says. The caller fcloses *fp. Errors:
 * CC_ERR_INPUT "cannot read PATH: reason" or "cannot read PATH: it is a character
 * device, not a regular file; give a regular file". */
int cc_file_open_regular(const char *path, cc_give FILE **fp, uint64_t *size,
                         struct cc_err *err);

/* Makes a new private folder "coalcheck-XXXXXX" under $TMPDIR (or /tmp when unset or
 * empty) and returns its path (the caller removes the folder and frees the string), or
 * NULL with CC_ERR_IO "cannot create a temporary folder in BASE: reason; set TMPDIR to a
 * writable folder". */
cc_give char *cc_tmpdir_make(struct cc_err *err);

/* An output file that appears whole or not at all: data goes to PATH.tmp.PID, and
 * cc_outfile_commit() flushes, fsyncs, closes and renames it over PATH. */
struct cc_outfile {
  FILE *fp;       /* write here */
  char *path;     /* final path (owned) */
  char *tmp_path; /* temporary path (owned) */
};

/* Opens a temporary file beside path. "-" means stdout (commit only flushes). Errors:
 * CC_ERR_IO with the path and the reason. */
int cc_outfile_open(struct cc_outfile *f, const char *path, struct cc_err *err);

/* Flushes, closes and renames into place; on any failure removes the temporary file and
 * returns CC_ERR_IO (a full disk is caught here, not silently). Frees f's strings. */
int cc_outfile_commit(struct cc_outfile *f, struct cc_err *err);

/* Closes and removes the temporary file (an error path); frees f's strings. */
void cc_outfile_abort(struct cc_outfile *f);

#endif
