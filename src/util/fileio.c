/* Whole-file input and atomic output: see fileio.h. */
#include "util/fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mem.h"

int cc_file_read(const char *path, char **out, size_t *len, struct cc_err *err)
{
  FILE *fp = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0, cap = 0;
  if (!fp)
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
  for (;;) {
    size_t got;
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 65536;
      buf = cc_xrealloc(buf, cap + 1);
    }
    got = fread(buf + n, 1, cap - n, fp);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(fp)) {
    int e = errno;
    fclose(fp);
    free(buf);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(e));
  }
  fclose(fp);
  buf[n] = '\0';
  *out = buf;
  if (len)
    *len = n;
  return CC_OK;
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
