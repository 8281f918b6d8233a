// PolyBench/GPU 3mm (v1.0): E = A B, F = C D, G = E F, one kernel each, one thread per
// output element (j = x, i = y), 32x8 blocks, sums accumulated in global memory.
#define DATA_TYPE float

__global__ void mm3_kernel1(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *E, int ni, int nj, int nk)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nj)) {
    int k;
    for (k = 0; k < nk; k++) {
      E[i * nj + j] += A[i * nk + k] * B[k * nj + j];
    }
  }
}

__global__ void mm3_kernel2(DATA_TYPE *C, DATA_TYPE *D, DATA_TYPE *F, int nj, int nl, int nm)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < nj) && (j < nl)) {
    int k;
    for (k = 0; k < nm; k++) {
      F[i * nl + j] += C[i * nm + k] * D[k * nl + j];
    }
  }
}

__global__ void mm3_kernel3(DATA_TYPE *E, DATA_TYPE *F, DATA_TYPE *G, int ni, int nj, int nl)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < ni) && (j < nl)) {
    int k;
    for (k = 0; k < nj; k++) {
      G[i * nl + j] += E[i * nj + k] * F[k * nl + j];
    }
  }
}
