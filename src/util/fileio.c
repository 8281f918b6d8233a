/* Whole-file input and atomic output: see fileio.h. */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
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

/* ---- the registry of temporary files, emptied on a signal ---------------------------- */

/* The one mutable global of coalcheck, because a signal handler can reach nothing else:
 * it receives only the signal number, so the paths it must remove have to be where it
 * can find them without arguments. Each slot holds a borrowed path or NULL; slots are
 * claimed with a compare-and-swap (the GPU library writes from several host threads) and
 * read with plain atomic loads, which are async-signal-safe when lock-free (they are on
 * every platform CUDA runs on). The paths themselves are never written while
 * registered, so the handler reads whole strings. */
static _Atomic(const char *) tmp_slots[CC_TMP_SLOTS];

int cc_tmp_register(const char *path)
{
  for (int i = 0; i < CC_TMP_SLOTS; i++) {
    const char *empty = NULL;
    if (atomic_compare_exchange_strong(&tmp_slots[i], &empty, path))
      return i;
  }
  return -1;
}

void cc_tmp_unregister(int slot)
{
  if (slot >= 0 && slot < CC_TMP_SLOTS)
    atomic_store(&tmp_slots[slot], NULL);
}

/* Removes every registered file (unlink is async-signal-safe), then dies of sig: the
 * default action runs once the handler returns (sig is blocked inside it). */
static void on_signal(int sig)
{
  for (int i = 0; i < CC_TMP_SLOTS; i++) {
    const char *p = atomic_load(&tmp_slots[i]);
    if (p)
      unlink(p);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void cc_tmp_cleanup_install(void)
{
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old, sa;
    /* a signal ignored by the parent (nohup, a background job) stays ignored */
    if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
      continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t j = 0; j < sizeof sigs / sizeof sigs[0]; j++)
      sigaddset(&sa.sa_mask, sigs[j]); /* one cleanup at a time */
    sigaction(sigs[i], &sa, NULL);
  }
}

/* ---- where an output goes --------------------------------------------------------------- */

static int in_proc(const char *p)
{
  return p && strncmp(p, "/proc/", 6) == 0;
}

/* The folder holding p, resolved (realpath), or NULL. */
static char *folder_of(const char *p)
{
  char *copy = cc_xstrdup(p);
  char *real = realpath(dirname(copy), NULL);
  free(copy);
  return real;
}

/* The link p's content, joined to its folder when relative; NULL with errno set. */
static char *follow(const char *p, const char *folder)
{
  char buf[PATH_MAX], *out;
  ssize_t n = readlink(p, buf, sizeof buf - 1);
  if (n < 0)
    return NULL;
  buf[n] = '\0';
  if (buf[0] == '/' || !folder)
    return cc_xstrdup(buf);
  out = cc_xmalloc(strlen(folder) + (size_t)n + 2);
  sprintf(out, "%s/%s", folder, buf);
  return out;
}

/* The descriptor number when folder (resolved) is this process's descriptor folder,
 * /proc/<our pid>/fd, and name one of its entries; else -1. */
static int own_fd(const char *folder, const char *link)
{
  char own[64];
  const char *base = strrchr(link, '/');
  char *end;
  long n;
  snprintf(own, sizeof own, "/proc/%ld/fd", (long)getpid());
  if (!folder || strcmp(folder, own) != 0 || !base)
    return -1;
  n = strtol(base + 1, &end, 10);
  return *end || end == base + 1 || n < 0 || n > INT_MAX ? -1 : (int)n;
}

/* How an output is written (fileio.h, struct cc_outfile). */
struct plan {
  char *target;   /* the file to rename over (owned), or NULL: in place */
  int fd;         /* in place through this process's descriptor fd (/dev/stdout), or -1 */
  mode_t mode;    /* target's permission bits when it exists, else 0666 (umask applies) */
};

/* Follows path's symbolic links to what it names and fills *p. */
static int plan_output(const char *path, struct plan *p, struct cc_err *err)
{
  char *cur = cc_xstrdup(path);
  p->target = NULL;
  p->fd = -1;
  p->mode = 0666;
  for (int hops = 0;; hops++) {
    struct stat sb;
    char *folder, *next;
    int e;
    if (lstat(cur, &sb) != 0) {
      if (errno == ENOENT) { /* a new file (or the missing end of a dangling link) */
        p->target = cur;
        return CC_OK;
      }
      e = errno;
      free(cur);
      return cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    if (!S_ISLNK(sb.st_mode)) {
      if (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) || S_ISFIFO(sb.st_mode) ||
          S_ISSOCK(sb.st_mode)) {
        free(cur); /* in place */
        return CC_OK;
      }
      p->target = cur;
      p->mode = sb.st_mode & 07777;
      return CC_OK;
    }
    if (hops == 40) {
      free(cur);
      return cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", path, strerror(ELOOP));
    }
    /* /dev/stdout -> /proc/self/fd/1 -> whatever standard output is (a pipe, a terminal,
     * the file a shell redirected it to): written through that descriptor, sharing its
     * file offset, never replaced; another process's descriptor, through the path */
    folder = folder_of(cur);
    p->fd = own_fd(folder, cur);
    if (p->fd >= 0 || in_proc(folder)) {
      free(folder);
      free(cur);
      return CC_OK;
    }
    next = follow(cur, folder);
    e = errno;
    free(folder);
    free(cur);
    if (!next)
      return cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", path, strerror(e));
    cur = next;
  }
}

int cc_outfile_check_inputs(const char *path, const char *const *inputs, size_t n_inputs,
                            struct cc_err *err)
{
  struct stat out, in;
  /* only a regular file can be replaced: /dev/stdin and /dev/stdout may be one tty */
  if (!path || strcmp(path, "-") == 0 || stat(path, &out) != 0 || !S_ISREG(out.st_mode))
    return CC_OK;
  for (size_t i = 0; i < n_inputs; i++)
    if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
        in.st_ino == out.st_ino)
      return cc_err_set(err, CC_ERR_USAGE, "refusing to write %s: it is the input %s (the "
                        "same file); choose another output path", path, inputs[i]);
  return CC_OK;
}

void cc_outfile_remove_stale(const char *path)
{
  struct stat sb;
  char *real;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || !(real = realpath(path, NULL)))
    return;
  unlink(real);
  free(real);
}

static void outfile_free(struct cc_outfile *f)
{
  cc_tmp_unregister(f->slot);
  free(f->path);
  free(f->target);
  free(f->tmp_path);
  f->fp = NULL;
  f->path = f->target = f->tmp_path = NULL;
  f->slot = -1;
}

/* Creates f->tmp_path (registered first, so that a signal right after the creation
 * finds it), with mode's permission bits; a stale one (a run killed by SIGKILL with
 * this process id) is replaced. */
static int open_tmp(struct cc_outfile *f, mode_t mode)
{
  int fd;
  f->slot = cc_tmp_register(f->tmp_path);
  fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST && unlink(f->tmp_path) == 0)
    fd = open(f->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return -1;
  if (mode != 0666)
    (void)fchmod(fd, mode); /* keep the replaced file's permissions; best effort */
  f->fp = fdopen(fd, "wb");
  if (!f->fp) {
    int e = errno;
    close(fd);
    unlink(f->tmp_path);
    errno = e;
    return -1;
  }
  return 0;
}

int cc_outfile_open(struct cc_outfile *f, const char *path, struct cc_err *err)
{
  return cc_outfile_open_except(f, path, NULL, 0, err);
}

int cc_outfile_open_except(struct cc_outfile *f, const char *path,
                           const char *const *inputs, size_t n_inputs, struct cc_err *err)
{
  struct plan p;
  int rc;
  memset(f, 0, sizeof *f);
  f->slot = -1;
  if (strcmp(path, "-") == 0) {
    f->fp = stdout;
    return CC_OK;
  }
  if ((rc = cc_outfile_check_inputs(path, inputs, n_inputs, err)) != CC_OK ||
      (rc = plan_output(path, &p, err)) != CC_OK)
    return rc;
  f->path = cc_xstrdup(path);
  f->target = p.target;
  if (p.fd >= 0) {
    /* what is already buffered for that descriptor goes first */
    int fd = (fflush(NULL), dup(p.fd));
    if (fd >= 0 && !(f->fp = fdopen(fd, "wb")))
      close(fd);
  } else if (!f->target) {
    f->fp = fopen(path, "wb");
  } else {
    f->tmp_path = cc_xmalloc(strlen(f->target) + 32);
    sprintf(f->tmp_path, "%s.tmp.%ld", f->target, (long)getpid());
    if (open_tmp(f, p.mode) != 0)
      f->fp = NULL;
  }
  if (!f->fp) {
    int e = errno;
    outfile_free(f);
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
   * name the failure without it then; a device or a pipe has nothing to fsync */
  errno = 0;
  if (fflush(f->fp) != 0 || ferror(f->fp) || (f->tmp_path && fsync(fileno(f->fp)) != 0))
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path,
                    errno ? strerror(errno) : "write error (disk full?)");
  if (fclose(f->fp) != 0 && rc == CC_OK)
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path, strerror(errno));
  if (rc == CC_OK && f->tmp_path && rename(f->tmp_path, f->target) != 0)
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", f->path, strerror(errno));
  if (rc != CC_OK && f->tmp_path)
    remove(f->tmp_path);
  outfile_free(f);
  return rc;
}

void cc_outfile_abort(struct cc_outfile *f)
{
  if (f->path) {
    fclose(f->fp);
    if (f->tmp_path)
      remove(f->tmp_path);
  }
  outfile_free(f);
}
