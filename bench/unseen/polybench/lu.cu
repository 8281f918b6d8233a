// PolyBench/GPU lu (v1.0): for each pivot k (a host loop passes k), kernel1 scales row k
// right of the pivot (thread per column j), kernel2 updates the trailing submatrix (thread
// per element, j = x, i = y, guards on both indices and on k).
#define DATA_TYPE float

__global__ void lu_kernel1(DATA_TYPE *A, int k, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((j > k) && (j < n)) {
    A[k * n + j] = A[k * n + j] / A[k * n + k];
  }
}

__global__ void lu_kernel2(DATA_TYPE *A, int k, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i > k) && (j > k) && (i < n) && (j < n)) {
    A[i * n + j] = A[i * n + j] - A[i * n + k] * A[k * n + j];
  }
}
