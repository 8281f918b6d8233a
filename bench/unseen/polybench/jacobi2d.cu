// PolyBench/GPU jacobi2d (v1.0): one time step in two kernels (the time loop is on the
// host), B = 5-point average of A over the interior, then A = B. One thread per element
// (j = x, i = y), 32x8 blocks, guards on both indices.
#define DATA_TYPE float

__global__ void runJacobiCUDA_kernel1(int n, DATA_TYPE *A, DATA_TYPE *B)
{
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1))) {
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] +
                           A[(1 + i) * n + j] + A[(i - 1) * n + j]);
  }
}

__global__ void runJacobiCUDA_kernel2(int n, DATA_TYPE *A, DATA_TYPE *B)
{
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i >= 1) && (i < (n - 1)) && (j >= 1) && (j < (n - 1))) {
    A[i * n + j] = B[i * n + j];
  }
}
