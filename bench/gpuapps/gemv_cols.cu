// gemv of the transpose, one thread per column: y[j] = sum_i A[i][j] x[i]; lanes read
// consecutive floats of one row: coalesced. One launch.
#include "common.cuh"

static const int N = 16384;

__global__ void gemv_cols(float *y, const float *A, const float *x, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  float s = 0;
  for (int i = 0; i < n; i++)
    s += A[(size_t)i * n + j] * x[i];
  y[j] = s;
}

int main()
{
  float *A = bench_array((size_t)N * N, 1), *x = bench_array(N, 2), *y = bench_array(N, 3);
  bench_timer t;
  t.start();
  gemv_cols<<<N / 128, 128>>>(y, A, x, N);
  t.launches = 1;
  t.stop("gemv_cols", y, N);
  return 0;
}
