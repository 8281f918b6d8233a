// SHOC reduction (reduction_kernel.h) without its template: 256 threads, each summing a
// grid-strided pair of elements into shared memory, then a shared tree with sequential
// addressing (conflict free). reduce_interleaved is the interleaved-addressing tree of the
// CUDA SDK's reduce1 (Harris, "Optimizing parallel reduction"), whose strided shared
// index 2*s*tid gives 2..16-way bank conflicts.
#define BLOCKSIZE 256

__global__ void reduce(const float *g_idata, float *g_odata, const unsigned int n)
{
  const unsigned int tid = threadIdx.x;
  unsigned int i = (blockIdx.x * (blockDim.x * 2)) + tid;
  const unsigned int gridSize = blockDim.x * 2 * gridDim.x;

  __shared__ float sdata[BLOCKSIZE];
  sdata[tid] = 0;

  while (i < n) {
    sdata[tid] += g_idata[i] + g_idata[i + blockDim.x];
    i += gridSize;
  }
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }

  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce_interleaved(const float *g_idata, float *g_odata, unsigned int n)
{
  __shared__ float sdata[BLOCKSIZE];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();

  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x)
      sdata[index] += sdata[index + s];
    __syncthreads();
  }

  if (tid == 0)
    g_odata[blockIdx.x] = sdata[0];
}
