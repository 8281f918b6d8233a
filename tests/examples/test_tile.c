/* examples/tile: the transposition-shaped kernels `coalcheck fix --transform tile`
 * stages through shared memory, run as given, checked against C references and against
 * the figures derived by hand in examples/tile/tile.cu's top comment. What the fix does
 * with them is checked in tests/e2e/fix_tile.sh. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

static const char *const src = "tile/tile.cu";

/* transpose_scale, w = 72, h = 40, 32x8 threads (grid 3 x 5): out[x*h + y] =
 * fma(alpha, in[y*w + x], beta) (nvcc contracts alpha * v + beta into fma.rn.f32) for
 * x < 72, y < 40. Load: 120 requests, 9 sectors per y = 360; store: 120 requests, 72
 * sectors per y = 2880. */
static void test_scale(void **state)
{
  enum { W = 72, H = 40 };
  struct ex_buffer b[] = {{"out", 4, W * H, NULL, NULL, NULL}, {"in", 4, W * H, NULL, NULL, NULL}};
  struct ex_run r;
  float want[W * H];
  const float *in;
  struct ex_pick ld, st;
  int line = ex_source_line(src, "transpose_scale(", "out[x * h + y] =");
  (void)state;
  ex_run(&r, "tile/scale.launch", b, 2, NULL);
  in = b[1].data;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      want[x * H + y] = fmaf(1.5f, in[y * W + x], 0.25f);
  ex_check_floats_exact("transpose_scale out", b[0].data, want, W * H);
  ld = ex_pick(ex_kernel(&r, "transpose_scale"), "ld.global", line, NULL);
  st = ex_pick(ex_kernel(&r, "transpose_scale"), "st.global", line, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 120);
  ex_check_sum(&ld, JS_SECTORS, 360);
  ex_check_sum(&ld, JS_IDEAL, 360);
  ex_check_sum(&st, JS_REQUESTS, 120);
  ex_check_sum(&st, JS_SECTORS, 2880);
  ex_check_sum(&st, JS_IDEAL, 360);
  ex_release(&r, b, 2);
}

/* transpose_f64, n = 256, 32x8 threads: 2048 requests each; load 8 sectors per request
 * (16384), store 32 (65536, ideal 16384). The copy is exact. */
static void test_f64(void **state)
{
  enum { N = 256 };
  struct ex_buffer b[] = {{"out", 8, N * N, NULL, NULL, NULL}, {"in", 8, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  double *want = malloc(N * N * sizeof *want);
  const double *in;
  struct ex_pick ld, st;
  int line = ex_source_line(src, "transpose_f64(", "out[x * n + y] =");
  (void)state;
  assert_non_null(want);
  ex_run(&r, "tile/f64.launch", b, 2, NULL);
  in = b[1].data;
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++)
      want[x * N + y] = in[y * N + x];
  assert_memory_equal(b[0].data, want, N * N * sizeof *want);
  free(want);
  ld = ex_pick(ex_kernel(&r, "transpose_f64"), "ld.global", line, NULL);
  st = ex_pick(ex_kernel(&r, "transpose_f64"), "st.global", line, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 2048);
  ex_check_sum(&ld, JS_SECTORS, 16384);
  ex_check_sum(&st, JS_REQUESTS, 2048);
  ex_check_sum(&st, JS_SECTORS, 65536);
  ex_check_sum(&st, JS_IDEAL, 16384);
  ex_release(&r, b, 2);
}

/* to_col_major, 64 x 48 (ld_in 56) to column-major (ld_out 72), r along x, c along y:
 * out[c*72 + r] = in[r*56 + c]; the rest of out (rows 64..71 of each column) stays 0.
 * 96 requests each; load 32 sectors per request (3072, ideal 384), store 4 (384). */
static void test_colmajor(void **state)
{
  enum { ROWS = 64, COLS = 48, LDI = 56, LDO = 72 };
  struct ex_buffer b[] = {{"out", 4, LDO * COLS, NULL, NULL, NULL},
                          {"in", 4, ROWS * LDI, NULL, NULL, NULL}};
  struct ex_run r;
  float want[LDO * COLS];
  const float *in;
  struct ex_pick ld, st;
  (void)state;
  ex_run(&r, "tile/colmajor.launch", b, 2, NULL);
  in = b[1].data;
  memset(want, 0, sizeof want);
  for (int c = 0; c < COLS; c++)
    for (int row = 0; row < ROWS; row++)
      want[c * LDO + row] = in[row * LDI + c];
  ex_check_floats_exact("to_col_major out", b[0].data, want, LDO * COLS);
  ld = ex_pick(ex_kernel(&r, "to_col_major"), "ld.global",
               ex_source_line(src, "to_col_major(", "float v = in["), NULL);
  st = ex_pick(ex_kernel(&r, "to_col_major"), "st.global",
               ex_source_line(src, "to_col_major(", "out[RM(c, r, ld_out)]"), NULL);
  ex_check_sum(&ld, JS_REQUESTS, 96);
  ex_check_sum(&ld, JS_SECTORS, 3072);
  ex_check_sum(&ld, JS_IDEAL, 384);
  ex_check_sum(&st, JS_REQUESTS, 96);
  ex_check_sum(&st, JS_SECTORS, 384);
  ex_release(&r, b, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_scale),
    cmocka_unit_test(test_f64),
    cmocka_unit_test(test_colmajor),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
