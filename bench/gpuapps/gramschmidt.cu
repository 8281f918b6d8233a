// Gram-Schmidt QR (PolyBench gramschmidt's three kernels per column k): 3 N launches of
// small grids, fixed geometry per kernel. A is N x N row-major; kernel3 walks columns
// with one thread per column j (lanes: consecutive j, coalesced).
#include "common.cuh"

static const int N = 512;

__global__ void gs_norm(float *R, const float *A, int n, int k)
{
  __shared__ float part[256];
  float s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float v = A[(size_t)i * n + k];
    s += v * v;
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    R[(size_t)k * n + k] = sqrtf(part[0]);
}

__global__ void gs_scale(float *Q, const float *A, const float *R, int n, int k)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    Q[(size_t)i * n + k] = A[(size_t)i * n + k] / R[(size_t)k * n + k];
}

__global__ void gs_update(float *A, float *R, const float *Q, int n, int k)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j <= k || j >= n)
    return;
  float r = 0;
  for (int i = 0; i < n; i++)
    r += Q[(size_t)i * n + k] * A[(size_t)i * n + j];
  R[(size_t)k * n + j] = r;
  for (int i = 0; i < n; i++)
    A[(size_t)i * n + j] -= Q[(size_t)i * n + k] * r;
}

int main()
{
  float *A = bench_array((size_t)N * N, 1), *R = bench_array((size_t)N * N, 2);
  float *Q = bench_array((size_t)N * N, 3);
  bench_timer t;
  t.start();
  for (int k = 0; k < N; k++) {
    gs_norm<<<1, 256>>>(R, A, N, k);
    gs_scale<<<N / 128, 128>>>(Q, A, R, N, k);
    gs_update<<<N / 128, 128>>>(A, R, Q, N, k);
    t.launches += 3;
  }
  t.stop("gramschmidt", A, (size_t)N * N);
  return 0;
}
