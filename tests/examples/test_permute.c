/* examples/permute: the kernels `coalcheck fix` permutes (and one it refuses), run as
 * given, checked against C references and against the figures derived by hand in
 * examples/permute/permute.cu's top comment. What the fix does with them is checked in
 * tests/e2e/fix_permute.sh. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

static const char *const src = "permute/permute.cu";

/* stencil2d_yfast, n = 512, 16x16 threads: out = 0.25 * (((up + down) + left) + right)
 * inside, 0 on the border (zero-initialised, never written). */
static void test_stencil2d(void **state)
{
  enum { N = 512 };
  struct ex_buffer b[] = {{"out", 4, N * N, NULL, NULL, NULL}, {"in", 4, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = calloc(N * N, sizeof *want);
  const float *in;
  struct ex_pick st;
  (void)state;
  ex_run(&r, "permute/stencil2d.launch", b, 2, NULL);
  in = b[1].data;
  for (int row = 1; row < N - 1; row++)
    for (int c = 1; c < N - 1; c++)
      want[row * N + c] = 0.25f * (((in[(row - 1) * N + c] + in[(row + 1) * N + c]) +
                                    in[row * N + c - 1]) + in[row * N + c + 1]);
  ex_check_floats_exact("stencil2d out", b[0].data, want, N * N);
  free(want);
  st = ex_pick(ex_kernel(&r, "stencil2d_yfast"), "st.global",
               ex_source_line(src, "stencil2d_yfast(", "out[r * n + c] ="), NULL);
  /* 8192 warps, each with an active lane; one sector per active row (comment) */
  ex_check_sum(&st, JS_REQUESTS, 8192);
  ex_check_sum(&st, JS_SECTORS, 130560);
  /* the form says: unit stride along threadIdx.y, large along x (src/affine) */
  ex_check_suggestion(&st, "thread-geometry", 1);
  ex_release(&r, b, 2);
}

/* copy3d_zfast, 64^3, 8x8x8 threads: out = fma(in, 2, 1) everywhere; 32 sectors per
 * request for the load and the store, 8192 requests each. */
static void test_copy3d(void **state)
{
  enum { N = 64 * 64 * 64 };
  struct ex_buffer b[] = {{"out", 4, N, NULL, NULL, NULL}, {"in", 4, N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(N * sizeof *want);
  const float *in;
  struct ex_pick ld, st;
  const cJSON *k;
  (void)state;
  ex_run(&r, "permute/copy3d.launch", b, 2, NULL);
  in = b[1].data;
  for (int c = 0; c < N; c++)
    want[c] = fmaf(in[c], 2.0f, 1.0f);
  ex_check_floats_exact("copy3d out", b[0].data, want, N);
  free(want);
  k = ex_kernel(&r, "copy3d_zfast");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 8192);
  ex_check_sum(&st, JS_REQUESTS, 8192);
  ex_check_sum(&ld, JS_SECTORS, 32ull * 8192);
  ex_check_sum(&st, JS_SECTORS, 32ull * 8192);
  ex_release(&r, b, 2);
}

/* transpose16, n = 1024, 16x16 threads: 32768 requests each way; load 4, store 16
 * sectors per request. */
static void test_transpose16(void **state)
{
  enum { N = 1024 };
  struct ex_buffer b[] = {{"out", 4, N * N, NULL, NULL, NULL}, {"in", 4, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(N * N * sizeof *want);
  const float *in;
  struct ex_pick ld, st;
  const cJSON *k;
  (void)state;
  ex_run(&r, "permute/transpose16.launch", b, 2, NULL);
  in = b[1].data;
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++)
      want[x * N + y] = in[y * N + x];
  ex_check_floats_exact("transpose16 out", b[0].data, want, N * N);
  free(want);
  k = ex_kernel(&r, "transpose16");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&st, JS_REQUESTS, 32768);
  ex_check_sum(&ld, JS_SECTORS, 4ull * 32768);
  ex_check_sum(&st, JS_SECTORS, 16ull * 32768);
  ex_release(&r, b, 2);
}

/* rowsum_shfl_yfast, n = 128, 32x8 threads: each warp (32 rows r at one column c) sums its
 * values with shfl.down 16, 8, 4, 2, 1 (a lane whose source lane is past 31 adds its own
 * value, PTX ISA shfl.sync: out-of-range source lanes return the caller's value); lane 0
 * (r a multiple of 32) stores the sum. Load: 512 requests of 32 sectors; store: 512
 * requests of one lane, one sector. */
static void test_rowsum_shfl(void **state)
{
  enum { N = 128 };
  struct ex_buffer b[] = {{"out", 4, N * N, NULL, NULL, NULL}, {"in", 4, N * N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = calloc(N * N, sizeof *want);
  const float *in;
  struct ex_pick ld, st;
  const cJSON *k;
  (void)state;
  ex_run(&r, "permute/rowsum_shfl.launch", b, 2, NULL);
  in = b[1].data;
  for (int c = 0; c < N; c++)
    for (int r0 = 0; r0 < N; r0 += 32) {
      float v[32], nv[32];
      for (int l = 0; l < 32; l++)
        v[l] = in[(r0 + l) * N + c];
      for (int d = 16; d > 0; d /= 2) {
        for (int l = 0; l < 32; l++)
          nv[l] = v[l] + (l + d < 32 ? v[l + d] : v[l]);
        memcpy(v, nv, sizeof v);
      }
      want[r0 * N + c] = v[0];
    }
  ex_check_floats_exact("rowsum_shfl out", b[0].data, want, N * N);
  free(want);
  k = ex_kernel(&r, "rowsum_shfl_yfast");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 512);
  ex_check_sum(&ld, JS_SECTORS, 32ull * 512);
  ex_check_sum(&st, JS_REQUESTS, 512);
  ex_check_sum(&st, JS_SECTORS, 512);
  ex_release(&r, b, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_stencil2d),
    cmocka_unit_test(test_copy3d),
    cmocka_unit_test(test_transpose16),
    cmocka_unit_test(test_rowsum_shfl),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
