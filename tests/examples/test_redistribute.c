/* examples/redistribute: the per-thread reductions `coalcheck fix --transform
 * redistribute` spreads over a warp, run as given, checked against C references and
 * against the figures derived by hand in examples/redistribute/redistribute.cu's top
 * comment. What the fix does with them is checked in tests/e2e/fix_redistribute.sh.
 *
 * The references add in the kernels' order with the kernels' roundings: nvcc 13 contracts
 * each `s += a * b` into fma.rn.f32 (read off `nvcc -ptx -arch=sm_90`), so fmaf. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

#include <math.h>

static const char *const src = "redistribute/redistribute.cu";

/* mvt_kernel1, n = 1024: x1[i] = fma chain over j starting from x1's initial value. */
static void test_mvt(void **state)
{
  enum { N = 1024 };
  struct ex_buffer b[] = {{"a", 4, N * N, NULL, NULL, NULL},
                          {"x1", 4, N, "f32[n]", NULL, NULL},
                          {"y_1", 4, N, NULL, NULL, NULL}};
  float *x0 = ex_random_floats(N, 7), want[N];
  struct ex_run r;
  struct ex_pick ld, st;
  const float *a, *y;
  int line = ex_source_line(src, "void mvt_kernel1(", "x1[i] += a[i * n + j] * y_1[j];");
  (void)state;
  b[1].init = x0;
  ex_run(&r, "redistribute/mvt.launch", b, 3, NULL);
  a = b[0].data;
  y = b[2].data;
  for (int i = 0; i < N; i++) {
    float s = x0[i];
    for (int j = 0; j < N; j++)
      s = fmaf(a[(size_t)i * N + j], y[j], s);
    want[i] = s;
  }
  ex_check_floats_exact("mvt x1", b[1].data, want, N);
  ld = ex_pick(ex_kernel(&r, "mvt_kernel1"), "ld.global", line, NULL);
  st = ex_pick(ex_kernel(&r, "mvt_kernel1"), "st.global", line, NULL);
  /* a: 32768 requests x 32 sectors; y_1: 32768 x 1; x1 loaded once per warp before the
   * loop: 32 x 4 (the comment) */
  ex_check_sum(&ld, JS_REQUESTS, 32768 + 32768 + 32);
  ex_check_sum(&ld, JS_SECTORS, 1048576 + 32768 + 128);
  /* x1[i] written back at every j: 32768 requests of 4 sectors */
  ex_check_sum(&st, JS_REQUESTS, 32768);
  ex_check_sum(&st, JS_SECTORS, 131072);
  ex_release(&r, b, 3);
}

/* bicg_kernel2, 1024 x 512: q[i] = fma chain from 0. */
static void test_bicg(void **state)
{
  enum { NX = 1024, NY = 512 };
  struct ex_buffer b[] = {{"A", 4, NX * NY, NULL, NULL, NULL},
                          {"p", 4, NY, NULL, NULL, NULL},
                          {"q", 4, NX, NULL, NULL, NULL}};
  float want[NX];
  struct ex_run r;
  struct ex_pick ld;
  const float *A, *p;
  int line = ex_source_line(src, "void bicg_kernel2(", "q[i] += A[i * ny + j] * p[j];");
  (void)state;
  ex_run(&r, "redistribute/bicg.launch", b, 3, NULL);
  A = b[0].data;
  p = b[1].data;
  for (int i = 0; i < NX; i++) {
    float s = 0.0f;
    for (int j = 0; j < NY; j++)
      s = fmaf(A[(size_t)i * NY + j], p[j], s);
    want[i] = s;
  }
  ex_check_floats_exact("bicg q", b[2].data, want, NX);
  ld = ex_pick(ex_kernel(&r, "bicg_kernel2"), "ld.global", line, NULL);
  /* A: 16384 requests x 32 sectors; p: 16384 x 1 (q[i] is never reloaded: nvcc forwards
   * the value it stored) */
  ex_check_sum(&ld, JS_REQUESTS, 16384 + 16384);
  ex_check_sum(&ld, JS_SECTORS, 524288 + 16384);
  ex_release(&r, b, 3);
}

/* spmv_csr_scalar: the launch's rowptr.bin against its formula, then y. */
static void test_spmv_csr(void **state)
{
  enum { ROWS = 1024, NNZ = 32752 };
  struct ex_buffer b[] = {{"rowptr", 4, ROWS + 1, NULL, NULL, NULL},
                          {"colidx", 4, NNZ, NULL, NULL, NULL},
                          {"val", 4, NNZ, NULL, NULL, NULL},
                          {"x", 4, NNZ, NULL, NULL, NULL},
                          {"y", 4, ROWS, NULL, NULL, NULL}};
  float want[ROWS];
  struct ex_run r;
  struct ex_pick ld;
  const int32_t *rowptr, *colidx;
  const float *val, *x;
  int line = ex_source_line(src, "void spmv_csr_scalar(", "dot += val[k] * x[colidx[k]];");
  int32_t at = 0;
  (void)state;
  ex_run(&r, "redistribute/spmv_csr.launch", b, 5, NULL);
  rowptr = b[0].data;
  colidx = b[1].data;
  val = b[2].data;
  x = b[3].data;
  for (int i = 0; i <= ROWS; i++) { /* rowptr[i] = sum of 8 (2 + r % 5), r < i */
    EX_EQ_U64((uint64_t)rowptr[i], (uint64_t)at, "rowptr.bin element");
    at += 8 * (2 + i % 5);
  }
  for (int i = 0; i < ROWS; i++) {
    float s = 0.0f;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
      s = fmaf(val[k], x[colidx[k]], s);
    want[i] = s;
  }
  ex_check_floats_exact("spmv y", b[4].data, want, ROWS);
  ld = ex_pick(ex_kernel(&r, "spmv_csr_scalar"), "ld.global", line, NULL);
  /* val, colidx, x: one sector per active lane and step: 3 x nnz; each warp steps 48
   * times (its longest row): 32 warps x 48 x 3 requests */
  ex_check_sum(&ld, JS_SECTORS, 3ull * NNZ);
  ex_check_sum(&ld, JS_REQUESTS, 32ull * 48 * 3);
  ex_release(&r, b, 5);
}

/* row_sums_u32: sums modulo 2^32. */
static void test_row_sums_u32(void **state)
{
  enum { ROWS = 1024, COLS = 1024 };
  struct ex_buffer b[] = {{"sums", 4, ROWS, NULL, NULL, NULL},
                          {"a", 4, ROWS * COLS, NULL, NULL, NULL}};
  uint32_t want[ROWS];
  struct ex_run r;
  struct ex_pick ld;
  const uint32_t *a;
  int line = ex_source_line(src, "void row_sums_u32(", "s += a[(size_t)r * cols + c];");
  (void)state;
  ex_run(&r, "redistribute/row_sums_u32.launch", b, 2, NULL);
  a = b[1].data;
  for (int i = 0; i < ROWS; i++) {
    uint32_t s = 0;
    for (int c = 0; c < COLS; c++)
      s += a[(size_t)i * COLS + c];
    want[i] = s;
  }
  ex_check_u32_exact("row sums u32", b[0].data, want, ROWS);
  ld = ex_pick(ex_kernel(&r, "row_sums_u32"), "ld.global", line, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&ld, JS_SECTORS, 32ull * 32768);
  ex_release(&r, b, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mvt),
      cmocka_unit_test(test_bicg),
      cmocka_unit_test(test_spmv_csr),
      cmocka_unit_test(test_row_sums_u32),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
