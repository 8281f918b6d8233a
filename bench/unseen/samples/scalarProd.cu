// CUDA samples' scalarProd: vectorN dot products of elementN-long vectors, one block per
// pair (a grid-stride loop over the pairs): each thread accumulates a strided partial
// sum (elements threadIdx.x, + blockDim.x, ...: coalesced), then the block reduces the
// partials in shared memory. Written for bench/unseen.
#define ACCUM_N 256

__global__ void scalarProdGPU(float *d_C, const float *d_A, const float *d_B, int vectorN,
                              int elementN)
{
  __shared__ float accumResult[ACCUM_N];
  for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
    int vectorBase = elementN * vec;
    int vectorEnd = vectorBase + elementN;
    for (int iAccum = threadIdx.x; iAccum < ACCUM_N; iAccum += blockDim.x) {
      float sum = 0;
      for (int pos = vectorBase + iAccum; pos < vectorEnd; pos += ACCUM_N)
        sum += d_A[pos] * d_B[pos];
      accumResult[iAccum] = sum;
    }
    for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int iAccum = threadIdx.x; iAccum < stride; iAccum += blockDim.x)
        accumResult[iAccum] += accumResult[stride + iAccum];
    }
    __syncthreads();
    if (threadIdx.x == 0)
      d_C[vec] = accumResult[0];
  }
}
