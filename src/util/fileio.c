/* Whole-file input and atomic output: see fileio.h. */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/mem.h"

/* What a file of mode m is, for "not a regular file" messages. */
static const char *file_kind(mode_t m)
{
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

int cc_file_open_regular(const char *path, FILE **fp, uint64_t *size, struct cc_err *err)
{
  struct stat st;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer before fstat can refuse it */
  int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), e;
  if (fd < 0)
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0) {
    e = errno;
    close(fd);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: it is %s, not a regular file; "
                      "give a regular file", path, file_kind(st.st_mode));
  }
  *fp = fdopen(fd, "rb");
  if (!*fp) {
    e = errno;
    close(fd);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(e));
  }
  *size = (uint64_t)st.st_size;
  return CC_OK;
}

int cc_file_read_max(const char *path, size_t max_bytes, const char *what, char **out,
                     size_t *len, struct cc_err *err)
{
  FILE *fp;
  uint64_t size;
  char *buf = NULL;
  size_t n = 0, cap = 0;
  int rc = cc_file_open_regular(path, &fp, &size, err);
  if (rc != CC_OK)
    return rc;
  /* read until EOF, not st_size bytes: a file may grow, and /proc reports size 0 */
  for (;;) {
    size_t got, want;
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 65536;
      buf = cc_xrealloc(buf, cap + 1);
    }
    want = cap - n < max_bytes - n + 1 ? cap - n : max_bytes - n + 1;
    got = fread(buf + n, 1, want, fp);
    n += got;
    if (got == 0 || n > max_bytes)
      break;
  }
  if (ferror(fp)) {
    int e = errno;
    fclose(fp);
    free(buf);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(e));
  }
  fclose(fp);
  if (n > max_bytes) {
    free(buf);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: it is larger than %zu bytes, the "
                      "most %s may hold", path, max_bytes, what);
  }
  buf[n] = '\0';
  *out = buf;
  if (len)
    *len = n;
  return CC_OK;
}

int cc_file_read(const char *path, char **out, size_t *len, struct cc_err *err)
{
  return cc_file_read_max(path, SIZE_MAX - 65536, "a file", out, len, err);
}

char *cc_tmpdir_make(struct cc_err *err)
{
  const char *base = getenv("TMPDIR");
  char *dir;
  if (!base || !*base)
    base = "/tmp";
  dir = cc_xmalloc(strlen(base) + sizeof "/coalcheck-XXXXXX");
  sprintf(dir, "%s/coalcheck-XXXXXX", base);
  if (!mkdtemp(dir)) {
    int e = errno;
    cc_err_set(err, CC_ERR_IO, "cannot create a temporary folder in %s: %s; set TMPDIR to "
               "a writable folder", base, strerror(e));
    free(dir);
    return NULL;
  }
  return dir;
}

int cc_outfile_open(struct cc_outfile *f, const char *path, struct cc_err *err)
{
  memset(f, 0, sizeof *f);
  if (strcmp(path, "-") == 0) {
    f->fp = stdout;
    return CC_OK;
  }
  f->path = cc_xstrdup(path);
  f->tmp_path = cc_xmalloc(strlen(path) + 32);
  sprintf(f->tmp_path, "%s.tmp.%ld", path, (long)getpid());
  f->fp = fopen(f->tmp_path, "wb");
  if (!f->fp) {
    int e = errno;
    free(f->path);
    free(f->tmp_path);
    f->path = f->tmp_path = NULL;
    return cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", path, strerror(e));
  }
  return CC_OK;
}

int cc_outfile_commit(struct cc_outfile *f, struct cc_err *err)
{
  int rc = CC_OK;
  if (!f->path) { /* stdout */
    errno = 0; /* as below: an earlier failed fwrite leaves errno unrelated */
    if (fflush(stdout) != 0 || ferror(stdout))
      rc = cc_err_set(err, CC_ERR_IO, "cannot write to standard output: %s",
                      errno ? strerror(errno) : "write error (disk full?)");
    return rc;
  }
  /* an error flag set by an earlier fwrite leaves errno unrelated (or 0, "Success"):
   * name the failure without it then */
  errno = 0;
  if (fflush(f->fp) != 0 || ferror(f->fp) || fsync(fileno(f->fp)) != 0)
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path,
                    errno ? strerror(errno) : "write error (disk full?)");
  if (fclose(f->fp) != 0 && rc == CC_OK)
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path, strerror(errno));
  if (rc == CC_OK && rename(f->tmp_path, f->path) != 0)
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path, strerror(errno));
  if (rc != CC_OK)
    remove(f->tmp_path);
  free(f->path);
  free(f->tmp_path);
  f->fp = NULL;
  f->path = f->tmp_path = NULL;
  return rc;
}

void cc_outfile_abort(struct cc_outfile *f)
{
  if (f->path) {
    fclose(f->fp);
    remove(f->tmp_path);
  }
  free(f->path);
  free(f->tmp_path);
  f->fp = NULL;
  f->path = f->tmp_path = NULL;
}
