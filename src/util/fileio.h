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

/* An output file. What PATH is decides how it is written:
 *   - a regular file, or nothing yet: whole or not at all: data goes to TARGET.tmp.PID
 *     beside it, and cc_outfile_commit() flushes, fsyncs, closes and renames it over
 *     TARGET (the file's permission bits are kept);
 *   - a symbolic link: the same, with TARGET the file the link leads to (followed to its
 *     end, a dangling link's target created): the link stays a link;
 *   - a character or block device, a FIFO: written in place, since renaming over
 *     /dev/null would replace the device (whole-or-nothing cannot hold there);
 *   - a descriptor of this process reached through /proc (/dev/stdout, /dev/fd/N,
 *     /proc/self/fd/N): written through a dup of descriptor N, sharing its offset (the
 *     JSON, then the text report, both to a redirected standard output);
 *   - "-": standard output (commit only flushes).
 * While a temporary file exists its path is in the registry that cc_tmp_cleanup_install
 * empties on SIGINT / SIGTERM / SIGHUP. */
struct cc_outfile {
  FILE *fp;       /* write here */
  char *path;     /* PATH as given, for messages (owned); NULL: standard output */
  char *target;   /* the file renamed over (owned); NULL when written in place */
  char *tmp_path; /* temporary path beside target (owned); NULL when written in place */
  int slot;       /* registry slot of tmp_path, or -1 */
};

/* Opens path for writing as described above. "-" means stdout. Errors: CC_ERR_IO with
 * the path and the reason. */
int cc_outfile_open(struct cc_outfile *f, const char *path, struct cc_err *err);

/* cc_outfile_open that first refuses (cc_outfile_check_inputs) a path that is one of
 * the n_inputs files the command reads (NULL entries are skipped). */
int cc_outfile_open_except(struct cc_outfile *f, const char *path,
                           const char *const *inputs, size_t n_inputs, struct cc_err *err);

/* CC_ERR_USAGE "refusing to write PATH: it is the input INPUT (the same file); choose
 * another output path" when path names the same file (device and inode, whatever the
 * spelling: links, ./, hard links) as one of inputs[0..n_inputs) (NULL entries and
 * inputs that do not exist are skipped); CC_OK otherwise, also when path does not exist
 * yet. */
int cc_outfile_check_inputs(const char *path, const char *const *inputs, size_t n_inputs,
                            struct cc_err *err);

/* Removes a stale output before a run that writes path again (so that an old file
 * cannot pass for the new one): the regular file path names, through symbolic links
 * (the links stay); never a device, a FIFO or a folder (`--gpu-json /dev/null` run as
 * root removed /dev/null). Nothing happens when path does not exist. */
void cc_outfile_remove_stale(const char *path);

/* Flushes and closes; a temporary file is fsynced and renamed into place. On any
 * failure removes the temporary file and returns CC_ERR_IO (a full disk is caught here,
 * not silently). Frees f's strings. */
int cc_outfile_commit(struct cc_outfile *f, struct cc_err *err);

/* Closes and removes the temporary file (an error path; a file written in place keeps
 * what was written); frees f's strings. */
void cc_outfile_abort(struct cc_outfile *f);

/* Signal cleanup of temporary files: installs a handler for SIGINT, SIGTERM and SIGHUP
 * (not for a signal the process inherited as ignored) that removes every registered
 * temporary file (those of open cc_outfiles), then re-raises the signal with its default
 * action, so that the exit status is the signal's. Call once, early in main. */
void cc_tmp_cleanup_install(void);

/* The registry itself, for other writers of temporary files: cc_tmp_register records
 * path (borrowed: it must stay valid and unchanged until cc_tmp_unregister) and returns
 * its slot, or -1 when the registry is full (CC_TMP_SLOTS files at once; the file is
 * then not removed on a signal). cc_tmp_unregister(-1) does nothing. */
#define CC_TMP_SLOTS 32
int cc_tmp_register(cc_keep const char *path);
void cc_tmp_unregister(int slot);

#endif
