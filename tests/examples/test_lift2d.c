/* examples/lift/lift2d.cu: the 2-D and 3-D kernels `coalcheck fix --transform lift` lifts
 * (and one it refuses), run as given, checked against C references and against the
 * figures derived by hand in lift2d.cu's top comment. What the fix does with them is
 * checked in tests/e2e/fix_lift.sh. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

/* Runs lift/KERNEL.launch, whose kernel writes out[e] = scale * in[e] + add for the
 * count elements of buffers in and out, and checks out and the kernel's totals. */
static void run_elementwise(const char *kernel, const char *in, const char *out, size_t count,
                            float scale, float add, uint64_t requests, uint64_t sectors)
{
  struct ex_buffer b[] = {{in, 4, count, NULL, NULL, NULL}, {out, 4, count, NULL, NULL, NULL}};
  struct ex_run r;
  char launch[64];
  float *want = malloc(count * sizeof *want);
  const float *x;
  snprintf(launch, sizeof launch, "lift/%s.launch", kernel);
  ex_run(&r, launch, b, 2, NULL);
  x = b[0].data;
  for (size_t i = 0; i < count; i++)
    want[i] = scale * x[i] + add;
  ex_check_floats_exact(kernel, b[1].data, want, count);
  free(want);
  ex_check_totals(&r, kernel, requests, sectors);
  ex_release(&r, b, 2);
}

/* scale_rows2d, 8 batches x 64 rows x 32 floats: Y = 1.5 X (+ 0, exact); 16 warps x 32 k
 * x 2 requests of 32 sectors (lift2d.cu). */
static void test_scale_rows2d(void **state)
{
  (void)state;
  run_elementwise("scale_rows2d", "X", "Y", 8 * 64 * 32, 1.5f, 0.0f, 1024, 32768);
}

/* covar2d, m = 64, n = 16: symmat[j1][j2] = the sum over i of data[i][j1] * data[i][j2]
 * in i's order from 0 with fma (nvcc contracts s += a * b); 128 warps x (16 x 2 + 1)
 * requests, 128 x 112 sectors (lift2d.cu). */
static void test_covar2d(void **state)
{
  enum { M = 64, N = 16 };
  struct ex_buffer b[] = {{"data", 4, N * M, NULL, NULL, NULL},
                          {"symmat", 4, M * M, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(M * M * sizeof *want);
  const float *d;
  (void)state;
  ex_run(&r, "lift/covar2d.launch", b, 2, NULL);
  d = b[0].data;
  for (int j1 = 0; j1 < M; j1++)
    for (int j2 = 0; j2 < M; j2++) {
      float s = 0.0f;
      for (int i = 0; i < N; i++)
        s = fmaf(d[i * M + j1], d[i * M + j2], s);
      want[j1 * M + j2] = s;
    }
  ex_check_floats_exact("covar2d symmat", b[1].data, want, M * M);
  free(want);
  ex_check_totals(&r, "covar2d", 128 * 33, 128 * 112);
  ex_release(&r, b, 2);
}

/* add3d, 4 x 4 x 32 rows of 32 floats: out = 1 in + 1; 16 warps x 32 k x 2 requests of
 * 32 sectors (lift2d.cu). */
static void test_add3d(void **state)
{
  (void)state;
  run_elementwise("add3d", "in", "out", 4 * 4 * 32 * 32, 1.0f, 1.0f, 1024, 32768);
}

/* batched_gemv, 4 batches of 64 x 32: y[b][i] = the sum over k of A[b][i][k] * x[b][k]
 * with fma in k's order; 8 warps x 32 k x 2 requests (32 + 1 sectors) and 8 stores of 4
 * sectors: 520 requests, 8480 sectors (lift2d.cu). */
static void test_batched_gemv(void **state)
{
  enum { B = 4, N = 64, K = 32 };
  struct ex_buffer b[] = {{"A", 4, B * N * K, NULL, NULL, NULL}, {"x", 4, B * K, NULL, NULL, NULL},
                          {"y", 4, B * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(B * N * sizeof *want);
  const float *a, *x;
  (void)state;
  ex_run(&r, "lift/batched_gemv.launch", b, 3, NULL);
  a = b[0].data;
  x = b[1].data;
  for (int bb = 0; bb < B; bb++)
    for (int i = 0; i < N; i++) {
      float s = 0.0f;
      for (int k = 0; k < K; k++)
        s = fmaf(a[(bb * N + i) * K + k], x[bb * K + k], s);
      want[bb * N + i] = s;
    }
  ex_check_floats_exact("batched_gemv y", b[2].data, want, B * N);
  free(want);
  ex_check_totals(&r, "batched_gemv", 520, 8480);
  ex_release(&r, b, 3);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scale_rows2d),
    cmocka_unit_test(test_covar2d),
    cmocka_unit_test(test_add3d),
    cmocka_unit_test(test_batched_gemv),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
