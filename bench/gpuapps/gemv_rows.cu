// gemv, one thread per row: thread i walks row i of A (row-major), so the 32 lanes of a
// warp read 32 rows N floats apart: uncoalesced (CGO 2015's "loop" case). One launch.
#include "common.cuh"

static const int N = 12288;

__global__ void gemv_rows(float *y, const float *A, const float *x, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0;
  for (int j = 0; j < n; j++)
    s += A[(size_t)i * n + j] * x[j];
  y[i] = s;
}

int main()
{
  float *A = bench_array((size_t)N * N, 1), *x = bench_array(N, 2), *y = bench_array(N, 3);
  bench_timer t;
  t.start();
  gemv_rows<<<N / 128, 128>>>(y, A, x, N);
  t.launches = 1;
  t.stop("gemv_rows", y, N);
  return 0;
}
