/* Unit tests of src/util: error messages, whole-file reads, whole-or-nothing outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/err.h"
#include "util/fileio.h"
#include "util/mem.h"

static void test_err_set_and_prefix(void **state)
{
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_err_set(&err, CC_ERR_INPUT, "expected %s, found '%s'", "';'", "}"),
                   CC_ERR_INPUT);
  assert_string_equal(err.msg, "expected ';', found '}'");
  assert_int_equal(cc_err_prefix(&err, "k.ptx:%d:%d", 12, 7), CC_ERR_INPUT);
  assert_string_equal(err.msg, "k.ptx:12:7: expected ';', found '}'");
  /* NULL err is allowed: the status still comes back */
  assert_int_equal(cc_err_set(NULL, CC_ERR_IO, "x"), CC_ERR_IO);
  assert_string_equal(cc_status_name(CC_ERR_MEMCHECK), "memcheck");
  assert_string_equal(cc_status_name((enum cc_status)10), "no-gpu"); /* docs/exit-codes.md */
}

static void test_err_truncates(void **state)
{
  struct cc_err err = {0};
  char big[3 * CC_ERR_MSG_MAX];
  (void)state;
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  cc_err_set(&err, CC_ERR_INPUT, "%s", big);
  assert_int_equal(strlen(err.msg), CC_ERR_MSG_MAX - 1);
  cc_err_prefix(&err, "%s", big); /* must not overflow */
  assert_int_equal(strlen(err.msg), CC_ERR_MSG_MAX - 1);
  /* a short prefix: the long old text is cut to fill the rest */
  cc_err_set(&err, CC_ERR_INPUT, "%s", big);
  cc_err_prefix(&err, "p");
  assert_int_equal(strlen(err.msg), CC_ERR_MSG_MAX - 1);
  assert_memory_equal(err.msg, "p: aaa", 6);
  assert_int_equal(err.msg[CC_ERR_MSG_MAX - 2], 'a');
}

static void test_vec(void **state)
{
  CC_VEC(int) v = {0};
  (void)state;
  for (int i = 0; i < 1000; i++)
    CC_VEC_PUSH(&v, i * 3);
  assert_int_equal(v.len, 1000);
  assert_int_equal(v.data[999], 2997);
  CC_VEC_FREE(&v);
  assert_null(v.data);
}

static void test_file_read_missing(void **state)
{
  struct cc_err err = {0};
  char *buf = NULL;
  size_t len = 0;
  (void)state;
  assert_int_equal(cc_file_read("/nonexistent/x.ptx", &buf, &len, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "cannot read /nonexistent/x.ptx"));
  assert_non_null(strstr(err.msg, "No such file"));
  assert_null(buf);
}

static void test_outfile_commit_and_read(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", path[256];
  struct cc_outfile f;
  struct cc_err err = {0};
  char *buf;
  size_t len;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.json", dir);
  assert_int_equal(cc_outfile_open(&f, path, &err), CC_OK);
  fputs("{\"a\": 1}\n", f.fp);
  /* before the commit the final path does not exist */
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
  assert_int_equal(cc_file_read(path, &buf, &len, &err), CC_OK);
  assert_int_equal(len, 9);
  assert_string_equal(buf, "{\"a\": 1}\n");
  free(buf);
  remove(path);
  rmdir(dir);
}

static void test_outfile_abort_leaves_nothing(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", path[256];
  struct cc_outfile f;
  struct cc_err err = {0};
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.json", dir);
  assert_int_equal(cc_outfile_open(&f, path, &err), CC_OK);
  fputs("partial", f.fp);
  cc_outfile_abort(&f);
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_equal(rmdir(dir), 0); /* empty: no temporary file left either */
}

static void test_outfile_unwritable(void **state)
{
  struct cc_outfile f;
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_outfile_open(&f, "/nonexistent/dir/out.json", &err), CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot write /nonexistent/dir/out.json"));
}

/* Only regular files are read: a folder, /dev/zero (endless) and a FIFO without a
 * writer (open would wait forever) are refused at once, naming what they are. */
static void test_file_read_not_regular(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", fifo[64];
  struct cc_err err = {0};
  char *buf = NULL;
  (void)state;
  assert_non_null(mkdtemp(dir));
  assert_int_equal(cc_file_read(dir, &buf, NULL, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "cannot read"));
  assert_non_null(strstr(err.msg, "it is a folder, not a regular file"));
  assert_null(buf);
  assert_int_equal(cc_file_read("/dev/zero", &buf, NULL, &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "cannot read /dev/zero: it is a character device, not a "
                               "regular file; give a regular file");
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_int_equal(cc_file_read(fifo, &buf, NULL, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "it is a FIFO, not a regular file"));
  assert_null(buf);
  unlink(fifo);
  rmdir(dir);
}

/* cc_file_read_max: a file of exactly max_bytes is read; one byte more is refused. */
static void test_file_read_max(void **state)
{
  char path[] = "/tmp/cc_util_XXXXXX";
  struct cc_err err = {0};
  char *buf = NULL;
  size_t len = 0;
  int fd = mkstemp(path);
  (void)state;
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "0123456789", 10), 10);
  close(fd);
  assert_int_equal(cc_file_read_max(path, 10, "a test file", &buf, &len, &err), CC_OK);
  assert_int_equal(len, 10);
  assert_string_equal(buf, "0123456789");
  free(buf);
  buf = NULL;
  assert_int_equal(cc_file_read_max(path, 9, "a test file", &buf, &len, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "is larger than 9 bytes, the most a test file may hold"));
  assert_null(buf);
  unlink(path);
}

/* The commit's last step fails: rename(2) of a file over a non-empty directory is
 * refused (EISDIR/ENOTEMPTY, even for root), so the commit must return CC_ERR_IO, name
 * the path, and leave no temporary file beside it. */
static void test_outfile_commit_rename_fails(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", path[256], inner[300];
  struct cc_outfile f;
  struct cc_err err = {0};
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.json", dir);
  snprintf(inner, sizeof inner, "%s/keep", path);
  assert_int_equal(mkdir(path, 0700), 0);
  assert_int_equal(mkdir(inner, 0700), 0);
  assert_int_equal(cc_outfile_open(&f, path, &err), CC_OK);
  fputs("{}\n", f.fp);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot write"));
  assert_non_null(strstr(err.msg, path));
  assert_null(f.path);
  assert_null(f.tmp_path);
  assert_int_equal(rmdir(inner), 0);
  assert_int_equal(rmdir(path), 0);
  assert_int_equal(rmdir(dir), 0); /* empty: the temporary file was removed */
}

/* "-" is standard output: no file, commit only flushes. */
static void test_outfile_stdout(void **state)
{
  struct cc_outfile f;
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_outfile_open(&f, "-", &err), CC_OK);
  assert_ptr_equal(f.fp, stdout);
  assert_null(f.path);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
}

/* The files of folder dir other than "." and "..". */
static int entries(const char *dir)
{
  char cmd[400]; /* the callers' folders: under 300 bytes */
  FILE *p;
  int n = -1;
  snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
  p = popen(cmd, "r");
  assert_non_null(p);
  assert_int_equal(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

static void write_text(const char *path, const char *text)
{
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(text, fp);
  assert_int_equal(fclose(fp), 0);
}

static void assert_file_text(const char *path, const char *want)
{
  struct cc_err err = {0};
  char *buf;
  assert_int_equal(cc_file_read(path, &buf, NULL, &err), CC_OK);
  assert_string_equal(buf, want);
  free(buf);
}

/* A FIFO is written in place: renaming a temporary file over it would replace it with a
 * regular file (as it did /dev/null, run as root). The test holds the FIFO open for
 * reading and writing itself, so that the writer's open does not wait for a reader. */
static void test_outfile_fifo_in_place(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", path[256], got[16] = {0};
  struct cc_outfile f;
  struct cc_err err = {0};
  struct stat sb;
  int keep;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/pipe", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  keep = open(path, O_RDWR | O_NONBLOCK);
  assert_true(keep >= 0);
  assert_int_equal(cc_outfile_open(&f, path, &err), CC_OK);
  fputs("hello", f.fp);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
  assert_int_equal(read(keep, got, sizeof got - 1), 5);
  assert_string_equal(got, "hello");
  assert_int_equal(lstat(path, &sb), 0);
  assert_true(S_ISFIFO(sb.st_mode)); /* still the FIFO */
  assert_int_equal(entries(dir), 1); /* and no temporary file beside it */
  close(keep);
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

/* Through a symbolic link the link's target is replaced (temporary file beside the
 * target, in its own folder), and the link stays a link; a dangling link's target is
 * created. The replaced file keeps its permission bits. */
static void test_outfile_symlink_target(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", real_dir[300], real[320], link[300], dangling[300],
       made[320];
  struct cc_outfile f;
  struct cc_err err = {0};
  struct stat sb;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(real_dir, sizeof real_dir, "%s/data", dir);
  assert_int_equal(mkdir(real_dir, 0700), 0);
  snprintf(real, sizeof real, "%s/r.json", real_dir);
  write_text(real, "old\n");
  assert_int_equal(chmod(real, 0640), 0);
  snprintf(link, sizeof link, "%s/out.json", dir);
  assert_int_equal(symlink("data/r.json", link), 0); /* relative to the link's folder */
  assert_int_equal(cc_outfile_open(&f, link, &err), CC_OK);
  fputs("new\n", f.fp);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
  assert_int_equal(lstat(link, &sb), 0);
  assert_true(S_ISLNK(sb.st_mode));
  assert_file_text(real, "new\n");
  assert_int_equal(stat(real, &sb), 0);
  assert_int_equal(sb.st_mode & 07777, 0640);
  assert_int_equal(entries(real_dir), 1);
  /* a link to a file that does not exist yet */
  snprintf(dangling, sizeof dangling, "%s/later.json", dir);
  snprintf(made, sizeof made, "%s/made.json", real_dir);
  assert_int_equal(symlink(made, dangling), 0);
  assert_int_equal(cc_outfile_open(&f, dangling, &err), CC_OK);
  fputs("{}\n", f.fp);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
  assert_int_equal(lstat(dangling, &sb), 0);
  assert_true(S_ISLNK(sb.st_mode));
  assert_file_text(made, "{}\n");
  unlink(made);
  unlink(real);
  unlink(link);
  unlink(dangling);
  assert_int_equal(rmdir(real_dir), 0);
  assert_int_equal(rmdir(dir), 0);
}

/* /dev/stdout is a link into /proc (/proc/self/fd/1); standard output redirected to a
 * file must be written through, not replaced by a new file of that name (the shell's
 * open file would then be an orphan). /proc/self/fd/N of a file opened for appending
 * stands for it here. */
static void test_outfile_proc_fd_in_place(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", path[256], via[64];
  struct cc_outfile f;
  struct cc_err err = {0};
  struct stat before, after;
  int fd;
  (void)state;
  if (stat("/proc/self/fd", &before) != 0)
    skip();
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/stdout.txt", dir);
  write_text(path, "report\n");
  fd = open(path, O_WRONLY | O_APPEND);
  assert_true(fd >= 0);
  assert_int_equal(fstat(fd, &before), 0);
  snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
  assert_int_equal(cc_outfile_open(&f, via, &err), CC_OK);
  fputs("json\n", f.fp);
  assert_int_equal(cc_outfile_commit(&f, &err), CC_OK);
  assert_int_equal(stat(path, &after), 0);
  assert_int_equal(after.st_ino, before.st_ino); /* the same file, appended to */
  assert_file_text(path, "report\njson\n");
  close(fd);
  unlink(path);
  assert_int_equal(rmdir(dir), 0);
}

/* An output that is an input, by any spelling (the path itself, a symbolic link, a hard
 * link, ./), is refused before anything is written; another path is not. */
static void test_outfile_refuses_input(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", in[256], soft[256], hard[256], dotted[300],
       other[256];
  const char *inputs[] = {NULL, in};
  struct cc_outfile f;
  struct cc_err err = {0};
  char want[700];
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(in, sizeof in, "%s/k.cctrace", dir);
  write_text(in, "trace");
  snprintf(soft, sizeof soft, "%s/soft", dir);
  snprintf(hard, sizeof hard, "%s/hard", dir);
  snprintf(dotted, sizeof dotted, "%s/./k.cctrace", dir);
  snprintf(other, sizeof other, "%s/r.json", dir);
  assert_int_equal(symlink(in, soft), 0);
  assert_int_equal(link(in, hard), 0);
  const char *outs[] = {in, soft, hard, dotted};
  for (size_t i = 0; i < 4; i++) {
    assert_int_equal(cc_outfile_open_except(&f, outs[i], inputs, 2, &err), CC_ERR_USAGE);
    snprintf(want, sizeof want, "refusing to write %s: it is the input %s (the same file); "
             "choose another output path", outs[i], in);
    assert_string_equal(err.msg, want);
    assert_null(f.fp);
  }
  assert_file_text(in, "trace");
  assert_int_equal(entries(dir), 3);
  assert_int_equal(cc_outfile_open_except(&f, other, inputs, 2, &err), CC_OK);
  cc_outfile_abort(&f);
  /* standard output and devices are never refused: /dev/stdin and /dev/stdout may be
   * one terminal */
  inputs[0] = "/dev/null";
  assert_int_equal(cc_outfile_check_inputs("/dev/null", inputs, 2, &err), CC_OK);
  assert_int_equal(cc_outfile_check_inputs("-", inputs, 2, &err), CC_OK);
  unlink(soft);
  unlink(hard);
  unlink(in);
  assert_int_equal(rmdir(dir), 0);
}

/* SIGTERM or SIGINT while an output is open: the handler removes the temporary file and
 * the process dies of the signal (so its parent sees the signal, not an exit code). */
static void test_tmp_cleanup_on_signal(void **state)
{
  static const int sigs[] = {SIGTERM, SIGINT};
  (void)state;
  for (size_t i = 0; i < 2; i++) {
    char dir[] = "/tmp/cc_util_XXXXXX", path[256];
    int status;
    pid_t pid;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.cctrace", dir);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
      struct cc_outfile f, g;
      struct cc_err err = {0};
      char second[300];
      signal(sigs[i], SIG_DFL); /* whatever the test runner set */
      cc_tmp_cleanup_install();
      snprintf(second, sizeof second, "%s.json", path);
      if (cc_outfile_open(&f, path, &err) != CC_OK || cc_outfile_open(&g, second, &err) != CC_OK)
        _exit(1);
      fputs("partial", f.fp);
      fflush(f.fp);
      raise(sigs[i]);
      _exit(2); /* not reached */
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sigs[i]);
    assert_int_equal(entries(dir), 0);
    assert_int_equal(rmdir(dir), 0);
  }
}

/* A stale output is removed only when it is a regular file, through a link (which
 * stays); a FIFO (a device, as root) is left alone. */
static void test_outfile_remove_stale(void **state)
{
  char dir[] = "/tmp/cc_util_XXXXXX", file[256], link[256], fifo[256];
  struct stat sb;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(file, sizeof file, "%s/old.json", dir);
  snprintf(link, sizeof link, "%s/link.json", dir);
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  write_text(file, "old");
  assert_int_equal(symlink("old.json", link), 0);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  cc_outfile_remove_stale(link);
  assert_int_equal(lstat(link, &sb), 0); /* the link stays */
  assert_int_not_equal(access(file, F_OK), 0); /* its file is gone */
  cc_outfile_remove_stale(fifo);
  assert_int_equal(lstat(fifo, &sb), 0);
  assert_true(S_ISFIFO(sb.st_mode));
  cc_outfile_remove_stale(file); /* gone already: nothing */
  write_text(file, "old");
  cc_outfile_remove_stale(file);
  assert_int_not_equal(access(file, F_OK), 0);
  unlink(link);
  unlink(fifo);
  assert_int_equal(rmdir(dir), 0);
}

/* The registry has CC_TMP_SLOTS slots; a full one says so (-1), a freed slot is reused. */
static void test_tmp_registry_slots(void **state)
{
  int slots[CC_TMP_SLOTS];
  (void)state;
  for (int i = 0; i < CC_TMP_SLOTS; i++) {
    slots[i] = cc_tmp_register("/nonexistent/x");
    assert_int_equal(slots[i], i);
  }
  assert_int_equal(cc_tmp_register("/nonexistent/y"), -1);
  cc_tmp_unregister(slots[5]);
  assert_int_equal(cc_tmp_register("/nonexistent/y"), 5);
  for (int i = 0; i < CC_TMP_SLOTS; i++)
    cc_tmp_unregister(slots[i]);
  cc_tmp_unregister(-1); /* nothing */
}

/* Names of the documented codes (docs/exit-codes.md's "name" column), and the fallback. */
static void test_status_names(void **state)
{
  (void)state;
  assert_string_equal(cc_status_name(CC_ERR_USAGE), "usage");
  assert_string_equal(cc_status_name(CC_ERR_MEMCHECK), "memcheck");
  assert_string_equal(cc_status_name(CC_ERR_INTERNAL), "internal");
  assert_string_equal(cc_status_name((enum cc_status)42), "unknown");
}

static void test_tmpdir(void **state)
{
  struct cc_err err = {0};
  char *dir;
  (void)state;
  setenv("TMPDIR", "/nonexistent/tmp", 1);
  assert_null(cc_tmpdir_make(&err));
  assert_int_equal(err.status, CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot create a temporary folder in /nonexistent/tmp"));
  assert_non_null(strstr(err.msg, "set TMPDIR to a writable folder"));
  setenv("TMPDIR", "", 1); /* empty: /tmp */
  dir = cc_tmpdir_make(&err);
  assert_non_null(dir);
  assert_int_equal(strncmp(dir, "/tmp/coalcheck-", 15), 0);
  assert_int_equal(strlen(dir), strlen("/tmp/coalcheck-XXXXXX"));
  assert_int_equal(rmdir(dir), 0); /* it existed, and was an empty folder */
  free(dir);
  unsetenv("TMPDIR");
}

static void test_xgrow(void **state)
{
  size_t cap = 0;
  int *a = NULL;
  (void)state;
  a = cc_xgrow(a, &cap, 1, sizeof *a);
  assert_int_equal(cap, 8);        /* first size 8 */
  a = cc_xgrow(a, &cap, 8, sizeof *a);
  assert_int_equal(cap, 8);        /* enough already: unchanged */
  a = cc_xgrow(a, &cap, 9, sizeof *a);
  assert_int_equal(cap, 16);       /* doubled */
  a = cc_xgrow(a, &cap, 100, sizeof *a);
  assert_int_equal(cap, 128);      /* 16 -> 32 -> 64 -> 128 >= 100 */
  a[99] = 7;
  assert_int_equal(a[99], 7);
  free(a);
}

/* Whether every mapping of this process that overlaps [lo, hi) has VmFlags `flag`
 * (/proc/self/smaps); -1 when none overlaps or smaps cannot be read. */
static int maps_have_flag(uintptr_t lo, uintptr_t hi, const char *flag)
{
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  int in = 0, seen = 0, all = 1;
  if (!f)
    return -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      in = a < hi && b > lo;
      seen |= in;
    } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
      char want[8];
      snprintf(want, sizeof want, " %s", flag);
      all &= strstr(line, want) != NULL;
    }
  }
  fclose(f);
  return seen ? all : -1;
}

/* cc_mem_huge marks the 2 MiB-aligned part of an allocation of at least CC_MEM_HUGE_MIN
 * bytes for transparent huge pages (VmFlags "hg" in /proc/self/smaps: madvise
 * MADV_HUGEPAGE), leaves smaller ones alone, takes NULL, and the memory stays the
 * caller's: written and read back whole, freed with free(). Skipped where the kernel has
 * no transparent huge pages (no /sys/kernel/mm/transparent_hugepage). */
static void test_mem_huge(void **state)
{
  const size_t big = 9u << 20, small = 1u << 20, huge = 2u << 20;
  unsigned char *p, *q;
  uintptr_t lo, hi;
  (void)state;
  cc_mem_huge(NULL, big); /* nothing */
  if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) != 0) {
    print_message("no transparent huge pages here: skipped\n");
    return;
  }
  p = cc_xmalloc(big);
  q = cc_xmalloc(small);
  cc_mem_huge(p, big);
  cc_mem_huge(q, small);
  lo = ((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1);
  hi = ((uintptr_t)p + big) & ~(uintptr_t)(huge - 1);
  assert_true(hi - lo >= 3 * huge); /* 9 MiB hold three aligned 2 MiB ranges at least */
  assert_int_equal(maps_have_flag(lo, hi, "hg"), 1);
  assert_int_equal(maps_have_flag((uintptr_t)q, (uintptr_t)q + small, "hg"), 0);
  for (size_t i = 0; i < big; i++)
    p[i] = (unsigned char)(i * 7u);
  for (size_t i = 0; i < big; i += 4093)
    assert_int_equal(p[i], (unsigned char)(i * 7u));
  free(p);
  free(q);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_err_set_and_prefix),
    cmocka_unit_test(test_err_truncates),
    cmocka_unit_test(test_vec),
    cmocka_unit_test(test_file_read_missing),
    cmocka_unit_test(test_outfile_commit_and_read),
    cmocka_unit_test(test_outfile_abort_leaves_nothing),
    cmocka_unit_test(test_outfile_unwritable),
    cmocka_unit_test(test_tmpdir),
    cmocka_unit_test(test_xgrow),
    cmocka_unit_test(test_file_read_not_regular),
    cmocka_unit_test(test_file_read_max),
    cmocka_unit_test(test_outfile_commit_rename_fails),
    cmocka_unit_test(test_outfile_stdout),
    cmocka_unit_test(test_status_names),
    cmocka_unit_test(test_outfile_fifo_in_place),
    cmocka_unit_test(test_outfile_symlink_target),
    cmocka_unit_test(test_outfile_proc_fd_in_place),
    cmocka_unit_test(test_outfile_refuses_input),
    cmocka_unit_test(test_tmp_cleanup_on_signal),
    cmocka_unit_test(test_tmp_registry_slots),
    cmocka_unit_test(test_outfile_remove_stale),
    cmocka_unit_test(test_mem_huge),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
