// PolyBench/GPU gemm (v1.0): C = alpha A B + beta C, one thread per element of C
// (j = x, i = y), 32x8 blocks, the sum accumulated in C in global memory.
#define DATA_TYPE float

__global__ void gemm_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c, int ni, int nj, int nk,
                            DATA_TYPE alpha, DATA_TYPE beta)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nj)) {
    c[i * nj + j] *= beta;
    int k;
    for (k = 0; k < nk; k++) {
      c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
  }
}
