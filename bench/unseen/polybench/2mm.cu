// PolyBench/GPU 2mm (v1.0): D = alpha A B C + beta D in two kernels, tmp = alpha A B, then
// D = tmp C + beta D. One thread per output element (j = x, i = y), 32x8 blocks, the sum
// accumulated in global memory as PolyBench writes it. Macros NI..NL became parameters.
#define DATA_TYPE float

__global__ void mm2_kernel1(DATA_TYPE *tmp, DATA_TYPE *A, DATA_TYPE *B, int ni, int nj, int nk,
                            DATA_TYPE alpha)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nj)) {
    tmp[i * nj + j] = 0;
    int k;
    for (k = 0; k < nk; k++) {
      tmp[i * nj + j] += alpha * A[i * nk + k] * B[k * nj + j];
    }
  }
}

__global__ void mm2_kernel2(DATA_TYPE *tmp, DATA_TYPE *C, DATA_TYPE *D, int ni, int nj, int nl,
                            DATA_TYPE beta)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nl)) {
    D[i * nl + j] *= beta;
    int k;
    for (k = 0; k < nj; k++) {
      D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
    }
  }
}
