/* Shared helpers of the CUDA front-end tests: inline CUDA sources written to a private
 * temporary folder (so that #include "..." and the paths in messages are real), and the
 * skip when the build has no libclang. Header-only (each test program includes it once). */
#ifndef CC_TESTS_CUDA_HARNESS_H
#define CC_TESTS_CUDA_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda/cuda.h"
#include "util/fileio.h"

#define MAX_FILES 32

/* A test's folder and the files written into it. */
struct fixture {
  char *dir;
  char path[MAX_FILES][1024];
  int n;
};

static int fixture_setup(void **state)
{
  struct cc_err err = {0};
  struct fixture *f = calloc(1, sizeof *f);
  if (!f || !(f->dir = cc_tmpdir_make(&err))) {
    fprintf(stderr, "%s\n", err.msg);
    free(f);
    return -1;
  }
  *state = f;
  return 0;
}

static int fixture_teardown(void **state)
{
  struct fixture *f = *state;
  for (int i = 0; i < f->n; i++)
    unlink(f->path[i]);
  rmdir(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

/* Writes text into DIR/name; returns its path (owned by f). */
static const char *put(struct fixture *f, const char *name, const char *text)
{
  FILE *fp;
  assert_true(f->n < MAX_FILES);
  snprintf(f->path[f->n], sizeof f->path[f->n], "%s/%s", f->dir, name);
  fp = fopen(f->path[f->n], "w");
  assert_non_null(fp);
  assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
  assert_int_equal(fclose(fp), 0);
  return f->path[f->n++];
}

/* Exit status 77 (CTest's SKIP_RETURN_CODE) when the build has no libclang. */
#define SKIP_WITHOUT_LIBCLANG()                                                         \
  do {                                                                                  \
    if (!cc_cuda_available()) {                                                         \
      fprintf(stderr, "skipped: coalcheck was built without libclang\n");              \
      return 77;                                                                        \
    }                                                                                   \
  } while (0)

#endif
