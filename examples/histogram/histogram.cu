// Byte histogram: bins[v] = number of i with data[i] == v, 256 bins.
//
// Pattern and expected figures (sm_90 model, n = 65536 bytes, 256 threads per CTA):
// histogram_global: every thread does atomicAdd on its bin in global memory. The byte
//   load data[i]: 32 consecutive bytes, 32-byte aligned: 1 sector per request, n/32 = 2048
//   requests. The atomics' sectors depend on the data (random bytes): not derived here.
// histogram_shared: a per-CTA histogram in shared memory (256 words zeroed by the 256
//   threads: word tid, one per lane, no bank conflict), shared atomics on data[i], then
//   one global atomicAdd per bin and CTA: 256 CTAs x 8 warps = 2048 global atomic requests
//   of 32 consecutive words (4 sectors each).
__global__ void histogram_global(unsigned int *bins, const unsigned char *data, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&bins[data[i]], 1u);
}

// blockDim.x must be 256 (one thread per bin)
__global__ void histogram_shared(unsigned int *bins, const unsigned char *data, int n)
{
  __shared__ unsigned int local[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
