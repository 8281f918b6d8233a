// coalcheck gpu: generic, local and .func accesses for the inline counters (issue 14's
// leftovers; bench/gpu-inline-generic.sh runs it inline exact, under the Sanitizer path
// and under ncu, and the counts must be equal). Each kernel runs once, 64 CTAs of 128
// threads (8192 threads, 256 warps), over n = 1 << 20 floats:
//   struct_ptr   loads through a pointer read from a struct in global memory (nvcc
//                cannot prove its space: generic ld/st), strided by 7 floats;
//   local_array  a local array indexed by a runtime value (LDL/STL), 4- and 8-byte;
//   func_stride  a __noinline__ device function doing a strided load (a .func),
//                called on a global and on a shared array (its load is generic), and
//                from a second kernel (func_other): per-kernel figures;
//   mixed        one generic load whose warp's lanes fall in shared (every 4th lane) and
//                global memory: two requests per warp, one per space.
// Prints "generic kernel_ms=T launches=L check=C" as bench/gpuapps do.
#include "../../../bench/gpuapps/common.cuh"

struct bufs {
  const float *in;
  float *out;
  int stride;
};

constexpr int N = 1 << 20, CTAS = 64, THREADS = 128;

__global__ void struct_ptr(const bufs *b)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float *in = b->in; // read from memory: a generic pointer
  b->out[i] = in[(size_t)i * b->stride % N] * 2.0f;
}

__global__ void local_array(const float *in, const int *idx, float *out)
{
  float loc[32];
  double dl[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int j = 0; j < 32; j++)
    loc[j] = in[(i + j * 4096) % N];
  for (int j = 0; j < 8; j++)
    dl[j] = loc[j * 3] * 0.5;
  int k = idx[i] & 31;
  out[i] = loc[k] + (float)dl[k & 7];
}

__device__ __noinline__ float strided(const float *p, int i, int stride, int mask)
{
  return p[(i * stride) & mask];
}

__global__ void func_stride(const float *in, float *out)
{
  __shared__ float tile[THREADS];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = in[i];
  __syncthreads();
  out[i] = strided(in, i, 16, N - 1) + strided(tile, t, 3, THREADS - 1);
}

__global__ void func_other(const float *in, float *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = strided(in, i, 2, N - 1);
}

__global__ void mixed(const float *in, float *out)
{
  __shared__ float tile[THREADS];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = in[i] + 1.0f;
  __syncthreads();
  const float *q = t % 4 == 0 ? &tile[t ^ 1] : &in[(size_t)i * 5 % N];
  out[i] = *q;
}

int main()
{
  float *in = bench_array(N, 1), *out = bench_array(N, 2);
  int *idx;
  CK(cudaMalloc(&idx, N * sizeof(int)));
  bench_fill<<<1024, 256>>>((float *)idx, N, 3); // bit patterns: any int is an index & 31
  bufs h = {in, out, 7}, *b;
  CK(cudaMalloc(&b, sizeof h));
  CK(cudaMemcpy(b, &h, sizeof h, cudaMemcpyHostToDevice));
  bench_timer tm;
  tm.start();
  struct_ptr<<<CTAS, THREADS>>>(b);
  local_array<<<CTAS, THREADS>>>(in, idx, out);
  func_stride<<<CTAS, THREADS>>>(in, out);
  func_other<<<CTAS, THREADS>>>(in, out);
  mixed<<<CTAS, THREADS>>>(in, out);
  tm.launches = 5;
  tm.stop("generic", out, N);
  return 0;
}
