// cuBLAS doing the math of bench/table3's PolyBench cases, the vendor reference of
// CGO 2015 Table 3 on this GPU: each SPEC timed with a CUDA event pair per run after 3
// warm-ups (the median of RUNS), FP32 throughout (CUBLAS_DEFAULT_MATH: no TF32), random
// data in [0, 1), checked against a double-precision CPU sum on a few rows.
//
//   cublas_gemv RUNS SPEC...
//   SPEC  sgemv_rows:N   y = A x, A an N x N row-major matrix (atax_kernel1, bicg_kernel2,
//                        mvt_kernel1): cublasSgemv(CUBLAS_OP_T) on its column-major view
//         sgemv_cols:N   z = A^T w (atax_kernel2's shape): cublasSgemv(CUBLAS_OP_N)
//         gesummv:N      y = alpha A x + beta B x: two cublasSgemv calls (beta = 1 in the
//                        second), timed together
//         sgemm_ata:M:N  C = D^T D, D an N x M row-major matrix (covariance's and
//                        correlation's product, the whole square): cublasSgemm
// Prints TSV rows "vendor SPEC MEDIAN_MS MIN_MS MAX_MS RUNS - CHECK" (CHECK "ok" or
// "bad: ..."); exit 1 on a CUDA or cuBLAS error or a bad check, 2 on bad usage.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cublas_v2.h>

#define TOOL "cublas_gemv"
#include "event_timer.cuh"

#define CHECK_BLAS(call)                                                                     \
  do {                                                                                       \
    cublasStatus_t s_ = (call);                                                              \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                       \
      fprintf(stderr, "cublas_gemv: error: %s failed: status %d\n", #call, (int)s_);         \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

// A device buffer of n floats filled with uniform [0, 1) values (an LCG: seeded per
// buffer); the host copy is kept in h for the check.
struct buf {
  std::vector<float> h;
  float *d = nullptr;
  buf(size_t n, unsigned seed) : h(n)
  {
    unsigned long long s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      h[i] = (float)(s >> 40) * (1.0f / 16777216.0f);
    }
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~buf() { cudaFree(d); }
  std::vector<float> back(size_t n) const
  {
    std::vector<float> v(n);
    CHECK(cudaMemcpy(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  }
};

static const size_t CHECK_ROWS[] = {0, 1, 31, 1000, 4095, 8191};

// "ok", or the first checked output (index i < n of CHECK_ROWS) whose value got(i) is not
// within 1e-4 x sum|terms| of the double sum over j < len of term(i, j) (FP32 accumulation
// of 8192 terms in blocked order errs about 1e-6 of it; a wrong result errs by O(1)).
template <typename T, typename G>
static std::string check_sums(size_t n, size_t len, T term, G got)
{
  for (size_t i : CHECK_ROWS) {
    if (i >= n)
      continue;
    double s = 0, mag = 0;
    for (size_t j = 0; j < len; j++) {
      double v = term(i, j);
      s += v, mag += fabs(v);
    }
    if (!(fabs(got(i) - s) <= 1e-4 * mag + 1e-30)) {
      char m[160];
      snprintf(m, sizeof m, "bad: output %zu = %.9g, CPU %.9g", i, got(i), s);
      return m;
    }
  }
  return "ok";
}

static std::string gemv(cublasHandle_t h, int runs, size_t n, bool rows, float t[3])
{
  buf A(n * n, 1), x(n, 2), y(n, 3);
  const float one = 1.0f, zero = 0.0f;
  cublasOperation_t op = rows ? CUBLAS_OP_T : CUBLAS_OP_N;
  time_events(runs, [&] {
    CHECK_BLAS(cublasSgemv(h, op, (int)n, (int)n, &one, A.d, (int)n, x.d, 1, &zero, y.d, 1));
  }, t);
  std::vector<float> got = y.back(n);
  return check_sums(n, n, [&](size_t i, size_t j) {
    return (double)(rows ? A.h[i * n + j] : A.h[j * n + i]) * x.h[j];
  }, [&](size_t i) { return (double)got[i]; });
}

static std::string gesummv(cublasHandle_t h, int runs, size_t n, float t[3])
{
  buf A(n * n, 4), B(n * n, 5), x(n, 6), y(n, 7);
  const float alpha = 1.5f, beta = 1.25f, one = 1.0f, zero = 0.0f;
  time_events(runs, [&] {
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_T, (int)n, (int)n, &alpha, A.d, (int)n, x.d, 1, &zero,
                           y.d, 1));
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_T, (int)n, (int)n, &beta, B.d, (int)n, x.d, 1, &one,
                           y.d, 1));
  }, t);
  std::vector<float> got = y.back(n);
  return check_sums(n, n, [&](size_t i, size_t j) {
    return alpha * (double)A.h[i * n + j] * x.h[j] + beta * (double)B.h[i * n + j] * x.h[j];
  }, [&](size_t i) { return (double)got[i]; });
}

// C (M x M) = D^T D for D N x M row-major: with D's column-major view X (M x N, ld M),
// C = X X^T.
static std::string sgemm_ata(cublasHandle_t h, int runs, size_t m, size_t n, float t[3])
{
  buf D(n * m, 8), C(m * m, 9);
  const float one = 1.0f, zero = 0.0f;
  time_events(runs, [&] {
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, (int)m, (int)m, (int)n, &one, D.d,
                           (int)m, D.d, (int)m, &zero, C.d, (int)m));
  }, t);
  std::vector<float> got = C.back(m * m);
  // output j1: C[j1][(7 j1 + 3) mod m] (symmetric: row or column major alike)
  auto j2 = [m](size_t j1) { return (j1 * 7 + 3) % m; };
  return check_sums(m, n, [&](size_t j1, size_t i) {
    return (double)D.h[i * m + j1] * D.h[i * m + j2(j1)];
  }, [&](size_t j1) { return (double)got[j2(j1) * m + j1]; });
}

int main(int argc, char **argv)
{
  int runs = argc > 1 ? atoi(argv[1]) : 0, bad = 0;
  if (runs < 1 || argc < 3) {
    fprintf(stderr, "usage: cublas_gemv RUNS SPEC...\n");
    return 2;
  }
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  for (int a = 2; a < argc; a++) {
    char kind[32];
    unsigned long p = 0, q = 0;
    float t[3];
    std::string check;
    if (sscanf(argv[a], "sgemv_rows:%lu", &p) == 1 && p > 0)
      check = gemv(h, runs, p, true, t);
    else if (sscanf(argv[a], "sgemv_cols:%lu", &p) == 1 && p > 0)
      check = gemv(h, runs, p, false, t);
    else if (sscanf(argv[a], "gesummv:%lu", &p) == 1 && p > 0)
      check = gesummv(h, runs, p, t);
    else if (sscanf(argv[a], "sgemm_ata:%lu:%lu", &p, &q) == 2 && p > 0 && q > 0)
      check = sgemm_ata(h, runs, p, q, t);
    else {
      snprintf(kind, sizeof kind, "%.20s", argv[a]);
      fprintf(stderr, "cublas_gemv: error: unknown SPEC '%s'\n", kind);
      return 2;
    }
    bad += check != "ok";
    printf("vendor\t%s\t%.6f\t%.6f\t%.6f\t%d\t-\t%s\n", argv[a], t[0], t[1], t[2], runs,
           check.c_str());
    fflush(stdout);
  }
  CHECK_BLAS(cublasDestroy(h));
  return bad ? 1 : 0;
}
