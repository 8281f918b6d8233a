/* The loads-first plays' legality (src/fix/lift.c cc_fix_loads_first_legal, poly.c
 * cc_fix_poly_loads_first) on inline CUDA kernels, each decision derived by hand: every
 * load may run before every store when no thread touches an element another thread
 * writes and no statement reads what an earlier statement of its thread wrote. Launch:
 * grid (2, 1, 1) x block (32, 1, 1), so g = 0..63; n = 64 where a kernel has it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cuda.h"
#include "fix/fix_impl.h"

/* cc_fix_loads_first_legal on kernel k of text (parameter 2, n, = 64 where present). */
static int legal(const char *text, char *why, size_t size)
{
  static const uint32_t grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
  int64_t vals[3] = {0, 0, 64};
  uint8_t known[3] = {0, 0, 1};
  struct cc_fix_opts o;
  struct cc_fix_measure before;
  memset(&o, 0, sizeof o);
  memset(&before, 0, sizeof before);
  o.input = "k.cu";
  o.input_text = text;
  o.input_len = strlen(text);
  o.input_is_cuda = 1;
  o.kernel_name = "k";
  memcpy(o.grid, grid, sizeof o.grid);
  memcpy(o.block, block, sizeof o.block);
  before.param_values = vals;
  before.param_known = known;
  before.nparams = 3;
  why[0] = '\0';
  return cc_fix_loads_first_legal(&o, &before, why, size);
}

#define HEAD "__global__ void k(float *a, float *b, int n) {\n" \
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"

/* Legal: thread i reads a[i], b[i] and writes a[i], its own (line 3: the reads of one
 * statement precede its write); a later statement writing b[i] after reading a[i] is a
 * read before a write (WAR), which loads first keeps. */
static void test_legal(void **state)
{
  char why[512];
  (void)state;
  assert_int_equal(legal(HEAD "  a[i] -= 0.5f * b[i];\n}\n", why, sizeof why), 1);
  assert_int_equal(legal(HEAD "  if (i < n) {\n    b[i] = a[i] * 2.0f;\n    a[i] = 1.0f;\n"
                                "  }\n}\n", why, sizeof why), 1);
}

/* Line 3 writes b[i], line 4 reads b[i] in the same thread: a kept value would be the
 * one before line 3's store. */
static void test_read_after_write(void **state)
{
  char why[512];
  (void)state;
  assert_int_equal(legal(HEAD "  b[i] = a[i] * 2.0f;\n  a[i] = b[i] + 1.0f;\n}\n", why,
                         sizeof why), 0);
  if (!strstr(why, "line 4 reads an element of b that line 3 of the same thread wrote"))
    fail_msg("why: \"%s\"", why);
}

/* Thread i reads a[i + 1], which thread i + 1 writes (i < 63): shared between threads,
 * so between plays of one thread (i and i + 1 may be two plays). */
static void test_shared_between_threads(void **state)
{
  char why[512];
  (void)state;
  assert_int_equal(legal(HEAD "  if (i < 63)\n    a[i] = a[i + 1];\n}\n", why, sizeof why), 0);
  if (!strstr(why, "threads of the original share an element (a: "))
    fail_msg("why: \"%s\"", why);
}

/* A loop (line 3): outside the straight-line class; an indirect subscript: outside the
 * affine subset, refused with its place. */
static void test_outside(void **state)
{
  char why[512];
  (void)state;
  assert_int_equal(legal(HEAD "  for (int j = 0; j < 4; j++)\n    a[i * 4 + j] = b[i];\n}\n",
                         why, sizeof why), 0);
  if (!strstr(why, "line 4: a statement inside a loop"))
    fail_msg("why: \"%s\"", why);
  assert_int_equal(legal("__global__ void k(float *a, int *idx, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  a[idx[i]] = 1.0f;\n}\n", why, sizeof why), 0);
  if (strncmp(why, "k.cu:3:", 7) != 0)
    fail_msg("why: \"%s\"", why);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_legal),
    cmocka_unit_test(test_read_after_write),
    cmocka_unit_test(test_shared_between_threads),
    cmocka_unit_test(test_outside),
  };
  if (!cc_cuda_available()) {
    fprintf(stderr, "skipped: coalcheck was built without libclang\n");
    return 77;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
