// Naive transpose of an N x N float matrix, 32x8 blocks, 4 rows per thread: loads
// coalesced, stores 32 rows apart (32 sectors per request). One launch.
#include "common.cuh"

static const int N = 16384;

__global__ void transpose_naive(float *out, const float *in, int n)
{
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(size_t)x * n + (y + j)] = in[(size_t)(y + j) * n + x];
}

int main()
{
  float *in = bench_array((size_t)N * N, 1), *out = bench_array((size_t)N * N, 2);
  bench_timer t;
  t.start();
  transpose_naive<<<dim3(N / 32, N / 32), dim3(32, 8)>>>(out, in, N);
  t.launches = 1;
  t.stop("transpose_naive", out, (size_t)N * N);
  return 0;
}
