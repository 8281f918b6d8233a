// Covariance-like (PolyBench covariance, M variables x N observations, data row-major
// N x M): column means (thread per column, coalesced), centring (2-D, coalesced), then
// cov[i][j] = sum_k d[k][i] d[k][j] with one thread per (i, j) pair: lanes of a warp read
// 32 consecutive j (coalesced) and one i (broadcast). One launch of each kernel.
#include "common.cuh"

static const int M = 2048, N = 2048;

__global__ void col_mean(float *mean, const float *d, int m, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m)
    return;
  float s = 0;
  for (int k = 0; k < n; k++)
    s += d[(size_t)k * m + j];
  mean[j] = s / n;
}

__global__ void centre(float *d, const float *mean, int m, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
  if (j < m)
    d[(size_t)k * m + j] -= mean[j];
}

__global__ void cov(float *c, const float *d, int m, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
  if (j >= m || j < i)
    return;
  float s = 0;
  for (int k = 0; k < n; k++)
    s += d[(size_t)k * m + i] * d[(size_t)k * m + j];
  c[(size_t)i * m + j] = s / (n - 1);
}

int main()
{
  float *d = bench_array((size_t)N * M, 1), *mean = bench_array(M, 2);
  float *c = bench_array((size_t)M * M, 3);
  bench_timer t;
  t.start();
  col_mean<<<M / 128, 128>>>(mean, d, M, N);
  centre<<<dim3(M / 256, N), 256>>>(d, mean, M, N);
  cov<<<dim3(M / 128, M), 128>>>(c, d, M, N);
  t.launches = 3;
  t.stop("covariance", c, (size_t)M * M);
  return 0;
}
