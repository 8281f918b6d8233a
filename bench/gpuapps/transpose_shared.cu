// Transpose through a padded shared tile (33 columns: no bank conflicts): global loads
// and stores coalesced, shared accesses conflict-free. One launch.
#include "common.cuh"

static const int N = 16384;

__global__ void transpose_shared(float *out, const float *in, int n)
{
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main()
{
  float *in = bench_array((size_t)N * N, 1), *out = bench_array((size_t)N * N, 2);
  bench_timer t;
  t.start();
  transpose_shared<<<dim3(N / 32, N / 32), dim3(32, 8)>>>(out, in, N);
  t.launches = 1;
  t.stop("transpose_shared", out, (size_t)N * N);
  return 0;
}
