// LU decomposition without pivoting (PolyBench lu): per k, a row scaling (thread per
// column j > k) and a trailing update (2-D, thread per (i, j), i, j > k), both launched
// over the whole matrix so the geometry stays fixed: 2 N launches.
#include "common.cuh"

static const int N = 1024;

__global__ void lu_scale(float *A, int n, int k)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n)
    A[(size_t)k * n + j] /= A[(size_t)k * n + k];
}

__global__ void lu_update(float *A, int n, int k)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > k && j > k && i < n && j < n)
    A[(size_t)i * n + j] -= A[(size_t)i * n + k] * A[(size_t)k * n + j];
}

int main()
{
  float *A = bench_array((size_t)N * N, 1);
  bench_timer t;
  t.start();
  for (int k = 0; k < N; k++) {
    lu_scale<<<N / 256, 256>>>(A, N, k);
    lu_update<<<dim3(N / 32, N / 8), dim3(32, 8)>>>(A, N, k);
    t.launches += 2;
  }
  t.stop("lu", A, (size_t)N * N);
  return 0;
}
