/* examples/lift: the kernels `coalcheck fix --transform lift` lifts (and one it refuses),
 * run as given, checked against C references and against the figures derived by hand in
 * examples/lift/lift.cu's top comment (the triangular ones here). What the fix does with
 * them is checked in tests/e2e/fix_lift.sh and tests/fix/test_fix_lift.c. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

/* row_store, n = 64: a[t][i] = 0.5 + i; 128 store requests of 32 sectors (lift.cu). */
static void test_row_store(void **state)
{
  enum { N = 64 };
  struct ex_buffer b[] = {{"a", 4, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(N * N * sizeof *want);
  (void)state;
  ex_run(&r, "lift/row_store.launch", b, 1, NULL);
  for (int t = 0; t < N; t++)
    for (int i = 0; i < N; i++)
      want[t * N + i] = 0.5f + (float)i;
  ex_check_floats_exact("row_store a", b[0].data, want, N * N);
  free(want);
  ex_check_totals(&r, "row_store", 128, 4096);
  ex_release(&r, b, 1);
}

/* myocyte_rows, 64 x 32: y = fma(h, f, y) (nvcc contracts y + h * f into fma.rn.f32);
 * 3 instructions x 64 requests of 32 sectors. */
static void test_myocyte_rows(void **state)
{
  enum { R = 64, C = 32 };
  float *y0 = ex_random_floats(R * C, 31);
  struct ex_buffer b[] = {{"y", 4, R * C, "f32[rows*cols]", y0, NULL}, {"f", 4, R * C, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(R * C * sizeof *want);
  const float *f;
  (void)state;
  ex_run(&r, "lift/myocyte_rows.launch", b, 2, NULL);
  f = b[1].data;
  for (int i = 0; i < R * C; i++)
    want[i] = fmaf(0.125f, f[i], y0[i]);
  ex_check_floats_exact("myocyte_rows y", b[0].data, want, R * C);
  free(want);
  ex_check_totals(&r, "myocyte_rows", 3 * 64, 3 * 64 * 32);
  ex_release(&r, b, 2);
}

/* symmat[j1][j2] = symmat[j2][j1] = the sum over i of data[i][j1] * data[i][j2], in i's
 * order from 0 with fma (nvcc contracts the += of a product), for j2 >= j1 + from; the
 * diagonal of corr is 1 except [m-1][m-1], which no thread writes (j1 < m - 1). */
static void symmat_ref(float *want, const float *data, int m, int n, int from)
{
  memset(want, 0, (size_t)m * m * sizeof *want);
  for (int j1 = 0; j1 < m - from; j1++) {
    if (from)
      want[j1 * m + j1] = 1.0f;
    for (int j2 = j1 + from; j2 < m; j2++) {
      float s = 0.0f;
      for (int i = 0; i < n; i++)
        s = fmaf(data[i * m + j1], data[i * m + j2], s);
      want[j1 * m + j2] = want[j2 * m + j1] = s;
    }
  }
}

/* Runs lift/KERNEL.launch (m = 64, n = 16), checks symmat against symmat_ref(from) and
 * the kernel's totals. */
static void run_symmat(const char *kernel, int from, uint64_t requests, uint64_t sectors)
{
  enum { M = 64, N = 16 };
  struct ex_buffer b[] = {{"symmat", 4, M * M, NULL, NULL, NULL},
                          {"data", 4, N * M, NULL, NULL, NULL}};
  struct ex_run r;
  char launch[64], what[64];
  float *want = malloc(M * M * sizeof *want);
  snprintf(launch, sizeof launch, "lift/%s.launch", kernel);
  snprintf(what, sizeof what, "%s symmat", kernel);
  ex_run(&r, launch, b, 2, NULL);
  symmat_ref(want, b[1].data, M, N, from);
  ex_check_floats_exact(what, b[0].data, want, M * M);
  free(want);
  ex_check_totals(&r, kernel, requests, sectors);
  ex_release(&r, b, 2);
}

/* covar, m = 64, n = 16, threads j1 = 0..63, j2 = j1 + s for s = 0..63-j1 (2080
 * instances (j1, j2)). nvcc keeps the sum in a register between its stores (symmat is
 * never loaded): per step of j2 a warp issues the zero store, 16 x (two data loads and
 * the symmat store), the transposed store: 50 requests; warp 0 steps 64 times, warp 1 32
 * times: 96 x 50 = 4800 requests. Sectors:
 * - each symmat store has lanes 65 floats apart: one sector per active lane, 2080 per
 *   store: zero store 2080, the sum's store 16 x 2080 = 33280, transposed 2080;
 * - data[i*m + j1]: lanes j1 consecutive, k active lanes from a 128-byte boundary:
 *   ceil(k/8) sectors. Warp 0: k = 32 for s = 0..32 (33 x 4 = 132), k = 31..1 after
 *   (8x1 + 8x2 + 8x3 + 7x4 = 76): 208; warp 1: k = 32..1, 80. 16 x 288 = 4608;
 * - data[i*m + j2]: the run starts at float s (warp 0) or 32 + s (warp 1): warp 0 for
 *   s = 0..32 covers [s, s+32): 4 sectors when s % 8 == 0 (5 values), else 5 (28):
 *   160, then [s, 64) for s = 33..63: 7x4 + 8x3 + 8x2 + 8x1 = 76; warp 1 [32+s, 64):
 *   8 x (4+3+2+1) = 80. 16 x 316 = 5056.
 * Total 2080 + 33280 + 2080 + 4608 + 5056 = 47104. */
static void test_covar(void **state)
{
  (void)state;
  run_symmat("covar", 0, 4800, 47104);
}

/* corr, m = 64, n = 16: threads j1 = 0..62, j2 = j1 + s for s = 1..63-j1 (2016
 * instances). The diagonal store: 63 lanes, one sector each, 2 requests. Per step of j2,
 * 50 requests as in covar; warp 0 steps 63 times, warp 1 31 times: 2 + 94 x 50 = 4702.
 * Sectors: the diagonal 63; symmat stores 2016 + 16 x 2016 + 2016; data[i*m + j1]: warp 0
 * k = 32 for s = 1..32 (128), then 31..1 (76), warp 1 k = 31..1 (76): 16 x 280 = 4480;
 * data[i*m + j2]: warp 0 [s, s+32) for s = 1..32: 4 x 4 + 28 x 5 = 156, [s, 64) for
 * s = 33..63: 76; warp 1 [32+s, 64) for s = 1..31: 7x4 + 8x3 + 8x2 + 8x1 = 76:
 * 16 x 308 = 4928. Total 63 + 2016 + 32256 + 2016 + 4480 + 4928 = 45759. */
static void test_corr(void **state)
{
  (void)state;
  run_symmat("corr", 1, 4702, 45759);
}

/* gemm_rows, n = 32: c[i][j] = the sum over k of a[i][k] * b[k][j] from 0 with fma
 * (nvcc contracts s += a * b); sectors derived in lift.cu: 34816 in 1024 + 1024 + 32
 * requests. */
static void test_gemm_rows(void **state)
{
  enum { N = 32 };
  struct ex_buffer b[] = {{"c", 4, N * N, NULL, NULL, NULL}, {"a", 4, N * N, NULL, NULL, NULL},
                          {"b", 4, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(N * N * sizeof *want);
  const float *a, *bb;
  (void)state;
  ex_run(&r, "lift/gemm_rows.launch", b, 3, NULL);
  a = b[1].data;
  bb = b[2].data;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      float s = 0.0f;
      for (int k = 0; k < N; k++)
        s = fmaf(a[i * N + k], bb[k * N + j], s);
      want[i * N + j] = s;
    }
  ex_check_floats_exact("gemm_rows c", b[0].data, want, N * N);
  free(want);
  ex_check_totals(&r, "gemm_rows", 2080, 34816);
  ex_release(&r, b, 3);
}

/* row_prefix, n = 64: running sums along each row, in j's order. */
static void test_row_prefix(void **state)
{
  enum { N = 64 };
  float *a0 = ex_random_floats(N * N, 35);
  struct ex_buffer b[] = {{"a", 4, N * N, "f32[n*n]", a0, NULL}};
  struct ex_run r;
  float *want = malloc(N * N * sizeof *want);
  (void)state;
  memcpy(want, a0, N * N * sizeof *want);
  ex_run(&r, "lift/row_prefix.launch", b, 1, NULL);
  for (int row = 0; row < N; row++)
    for (int j = 1; j < N; j++)
      want[row * N + j] += want[row * N + j - 1];
  ex_check_floats_exact("row_prefix a", b[0].data, want, N * N);
  free(want);
  ex_release(&r, b, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_row_store),
    cmocka_unit_test(test_myocyte_rows),
    cmocka_unit_test(test_covar),
    cmocka_unit_test(test_corr),
    cmocka_unit_test(test_gemm_rows),
    cmocka_unit_test(test_row_prefix),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
