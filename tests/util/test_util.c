/* Unit tests of src/util: error messages, whole-file reads, whole-or-nothing outputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
