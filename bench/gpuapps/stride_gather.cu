// Stride-S gather out[i] = in[i * S] (S = 2, 4, 8, 32 floats): 2 .. 32 sectors per request,
// one launch per stride (four kernels' launches of one function, different geometry:
// none, same grid; each a single launch of its stride).
#include "common.cuh"

static const size_t M = 16u << 20; // outputs

__global__ void gather(float *out, const float *in, size_t m, int stride)
{
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[i * stride];
}

int main()
{
  float *in = bench_array(M * 32, 1), *out = bench_array(M, 2);
  bench_timer t;
  t.start();
  const int strides[] = {2, 4, 8, 32};
  for (int s : strides) {
    gather<<<(unsigned)(M / 256), 256>>>(out, in, M, s);
    t.launches++;
  }
  t.stop("stride_gather", out, M);
  return 0;
}
