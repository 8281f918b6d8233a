// ADI-like alternating sweeps (PolyBench adi's shape): per time step a row sweep (thread
// per row walking its row: uncoalesced) in one launch, then a column sweep as one launch
// per row i (thread per column j, row i from row i - 1: coalesced). T (N + 1) launches.
#include "common.cuh"

static const int N = 1024, T = 10;

__global__ void adi_rows(float *X, const float *A, const float *B, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  for (int j = 1; j < n; j++)
    X[(size_t)i * n + j] -= X[(size_t)i * n + j - 1] * A[(size_t)i * n + j] / B[(size_t)i * n + j - 1];
}

__global__ void adi_cols(float *X, const float *A, const float *B, int n, int i)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n)
    X[(size_t)i * n + j] -= X[(size_t)(i - 1) * n + j] * A[(size_t)i * n + j] / B[(size_t)(i - 1) * n + j];
}

int main()
{
  float *X = bench_array((size_t)N * N, 1), *A = bench_array((size_t)N * N, 2);
  float *B = bench_array((size_t)N * N, 3);
  bench_timer t;
  t.start();
  for (int s = 0; s < T; s++) {
    adi_rows<<<N / 128, 128>>>(X, A, B, N);
    t.launches++;
    for (int i = 1; i < N; i++) {
      adi_cols<<<N / 256, 256>>>(X, A, B, N, i);
      t.launches++;
    }
  }
  t.stop("adi", X, (size_t)N * N);
  return 0;
}
