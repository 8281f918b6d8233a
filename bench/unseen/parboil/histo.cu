// Parboil histo's main kernel shape (histo_main_kernel): a grid-stride loop over the input
// (unsigned 8-bit values here, Parboil's are 12-bit bins of an image), each value counted
// into a per-block shared histogram with shared atomics, then the block's histogram added
// to the global one with global atomics. histo_global: the naive version with one global
// atomicAdd per input element. Written for bench/unseen.
#define BINS 256

__global__ void histo_main(const unsigned int *input, int n, unsigned int *histo)
{
  __shared__ unsigned int s_histo[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    s_histo[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s_histo[input[i] & (BINS - 1)], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    atomicAdd(&histo[b], s_histo[b]);
}

__global__ void histo_global(const unsigned int *input, int n, unsigned int *histo)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&histo[input[i] & (BINS - 1)], 1u);
}
