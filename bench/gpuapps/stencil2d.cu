// 5-point 2-D stencil (one Jacobi sweep) on an N x N grid, 32x8 blocks: coalesced rows.
// One launch.
#include "common.cuh"

static const int N = 16384;

__global__ void stencil2d(float *out, const float *in, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || j < 1 || i >= n - 1 || j >= n - 1)
    return;
  size_t c = (size_t)i * n + j;
  out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
}

int main()
{
  float *in = bench_array((size_t)N * N, 1), *out = bench_array((size_t)N * N, 2);
  bench_timer t;
  t.start();
  stencil2d<<<dim3(N / 32, N / 8), dim3(32, 8)>>>(out, in, N);
  t.launches = 1;
  t.stop("stencil2d", out, (size_t)N * N);
  return 0;
}
