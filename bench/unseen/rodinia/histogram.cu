// A 256-bin histogram with shared-memory atomics (the CUDA samples' histogram256 without
// its per-warp sub-histograms; Parboil's and SHOC's privatised histograms alike): each CTA
// counts its grid-strided bytes into a shared histogram, then adds it to the global one.
#define BIN_COUNT 256

__global__ void histogram256(unsigned int *d_Histogram, const unsigned char *d_Data,
                             unsigned int dataCount)
{
  __shared__ unsigned int s_Hist[BIN_COUNT];

  for (int i = threadIdx.x; i < BIN_COUNT; i += blockDim.x)
    s_Hist[i] = 0;
  __syncthreads();

  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x)
    atomicAdd(&s_Hist[d_Data[pos]], 1);
  __syncthreads();

  for (int i = threadIdx.x; i < BIN_COUNT; i += blockDim.x)
    atomicAdd(&d_Histogram[i], s_Hist[i]);
}
