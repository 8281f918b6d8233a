// Jacobi-1D time steps (PolyBench jacobi-1d): two kernels per step on a 1-D array of N
// floats, coalesced, 2 T launches of one small grid each.
#include "common.cuh"

static const int N = 1 << 20, T = 1000;

__global__ void jac_a(float *b, const float *a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    b[i] = 0.33333f * (a[i - 1] + a[i] + a[i + 1]);
}

__global__ void jac_b(float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1)
    a[i] = 0.33333f * (b[i - 1] + b[i] + b[i + 1]);
}

int main()
{
  float *a = bench_array(N, 1), *b = bench_array(N, 2);
  bench_timer t;
  t.start();
  for (int s = 0; s < T; s++) {
    jac_a<<<N / 256, 256>>>(b, a, N);
    jac_b<<<N / 256, 256>>>(a, b, N);
    t.launches += 2;
  }
  t.stop("jacobi1d", a, N);
  return 0;
}
