/* The vector plays' plan (src/fix/vector.c cc_fix_vector_plan, poly.c
 * cc_fix_poly_group_closed and cc_fix_poly_writes_once) on inline CUDA kernels, each
 * kind derived by hand. Launch: grid (2, 1, 1) x block (32, 1, 1), so g = 0..63 along x
 * (the new x is the original's x here: d = 0); the reshaped block is 128 wide unless
 * said; n = 64 where a kernel has it. A vector access: unit stride along x, its index a
 * multiple of v at g = v k, in a statement every aligned group of v threads runs whole;
 * a broadcast: a load of stride 0 there; else scalar. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/cuda.h"
#include "cuda/plays.h"
#include "fix/fix_impl.h"

struct plan {
  int ok;
  uint32_t v;
  struct cc_cuda_vclass *cls;
  size_t n;
  char why[512];
};

/* cc_fix_vector_plan on kernel k of text, reshaped block bx wide (parameter 2, n, = 64). */
static void plan(const char *text, uint32_t bx, struct plan *p)
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
  p->why[0] = '\0';
  p->ok = cc_fix_vector_plan(&o, &before, 0, bx, &p->v, &p->cls, &p->n, p->why, sizeof p->why);
}

/* The kind of array on line, or -1 when the plan has no entry for it. */
static int kind(const struct plan *p, unsigned line, const char *array)
{
  for (size_t i = 0; i < p->n; i++)
    if (p->cls[i].first_line <= line && line <= p->cls[i].last_line &&
        !strcmp(p->cls[i].array, array))
      return (int)p->cls[i].kind;
  return -1;
}

#define HEAD "__global__ void k(float *a, float *b, int n) {\n" \
             "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"

/* Line 3: a[i] (read and written) and b[i], unit stride, index 4 k at i = 4 k, no guard:
 * both vectors of 4 floats (16 bytes). */
static void test_unit_stride(void **state)
{
  struct plan p;
  (void)state;
  plan(HEAD "  a[i] -= 0.5f * b[i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 1);
  assert_int_equal(p.v, 4);
  assert_int_equal(kind(&p, 3, "a"), CC_CUDA_V_VECTOR);
  assert_int_equal(kind(&p, 3, "b"), CC_CUDA_V_VECTOR);
  free(p.cls);
}

/* b[0] and b[n + 1] (= b[65]) are the same element for every thread: broadcasts. b[2 i]
 * has stride 2, b[i + 1] unit stride from 4 k + 1: neither a vector, and both move along
 * x: refused. (The plan does not see the buffers' sizes.) */
static void test_broadcast_and_scalar(void **state)
{
  struct plan p;
  (void)state;
  plan(HEAD "  a[i] += b[0] * b[n + 1];\n}\n", 128, &p);
  assert_int_equal(p.ok, 1);
  assert_int_equal(kind(&p, 3, "a"), CC_CUDA_V_VECTOR);
  assert_int_equal(kind(&p, 3, "b"), CC_CUDA_V_BROADCAST);
  free(p.cls);
  /* a scalar access that moves along x in a statement every play runs: in the vector
     plays its lanes would be 4 elements apart (4 times the sectors): refused */
  plan(HEAD "  a[i] = b[2 * i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 0);
  if (!strstr(p.why, "k.cu:3:3: b's access has stride 2 along x but is no aligned vector of 4"))
    fail_msg("why: \"%s\"", p.why);
  plan(HEAD "  a[i] = b[i + 1];\n}\n", 128, &p);
  assert_int_equal(p.ok, 0);
  if (!strstr(p.why, "k.cu:3:3: b's access has stride 1 along x but is no aligned vector of 4"))
    fail_msg("why: \"%s\"", p.why);
}

/* Guards: i < 60 keeps whole groups {0..3} ... {56..59}: vectors; i < 63 cuts the group
 * {60..63}; i == 0 keeps one thread of a group: scalar, so nothing to vectorize. */
static void test_groups(void **state)
{
  struct plan p;
  (void)state;
  plan(HEAD "  if (i < 60)\n    a[i] = b[i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 1);
  assert_int_equal(kind(&p, 4, "a"), CC_CUDA_V_VECTOR);
  free(p.cls);
  plan(HEAD "  if (i < 63)\n    a[i] = b[i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 0);
  if (!strstr(p.why, "no access with unit stride along x at 4-aligned indices"))
    fail_msg("why: \"%s\"", p.why);
  /* line 3 reads b[0] before line 5 writes it in the same thread (a read before a
     write: every load may still run first); line 3 runs whole groups, line 5 does not */
  plan(HEAD "  a[i] = b[i];\n  if (i == 0)\n    b[i] = 2.0f;\n}\n", 128, &p);
  assert_int_equal(p.ok, 1);
  assert_int_equal(kind(&p, 3, "b"), CC_CUDA_V_VECTOR);
  assert_int_equal(kind(&p, 5, "b"), CC_CUDA_V_SCALAR);
  free(p.cls);
}

/* Two statements writing a[i]: the vector store, gathered after the plays, would land
 * after line 4's. Eight-byte elements: v = 2. A block 64 wide leaves 16 threads at v = 4. */
static void test_refusals_and_width(void **state)
{
  struct plan p;
  (void)state;
  plan(HEAD "  a[i] = 1.0f;\n  a[i] = b[i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 0);
  if (!strstr(p.why, "lines 3 and 4 write the same element of a") &&
      !strstr(p.why, "lines 4 and 3 write the same element of a"))
    fail_msg("why: \"%s\"", p.why);
  plan("__global__ void k(double *a, double *b, int n) {\n"
       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  a[i] = 2.0 * b[i];\n}\n", 128, &p);
  assert_int_equal(p.ok, 1);
  assert_int_equal(p.v, 2);
  assert_int_equal(kind(&p, 3, "b"), CC_CUDA_V_VECTOR);
  free(p.cls);
  plan(HEAD "  a[i] = b[i];\n}\n", 64, &p);
  assert_int_equal(p.ok, 0);
  if (!strstr(p.why, "a block of 64 threads in x"))
    fail_msg("why: \"%s\"", p.why);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unit_stride),
    cmocka_unit_test(test_broadcast_and_scalar),
    cmocka_unit_test(test_groups),
    cmocka_unit_test(test_refusals_and_width),
  };
  if (!cc_cuda_available()) {
    fprintf(stderr, "skipped: coalcheck was built without libclang\n");
    return 77;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
