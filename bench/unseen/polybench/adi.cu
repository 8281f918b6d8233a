// PolyBench/GPU adi (v1.0): one time step (the time loop is on the host). Kernels 1-3
// sweep along the rows, one thread per row i1 walking its row (a recurrence over i2: lanes
// n floats apart); kernels 4-6 sweep down the columns, one launch per row i1 (a host loop
// passes i1), one thread per column i2 (coalesced).
#define DATA_TYPE float

__global__ void adi_kernel1(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int n)
{
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i1 < n)) {
    for (int i2 = 1; i2 < n; i2++) {
      X[i1 * n + i2] = X[i1 * n + i2] - X[i1 * n + (i2 - 1)] * A[i1 * n + i2] / B[i1 * n + (i2 - 1)];
      B[i1 * n + i2] = B[i1 * n + i2] - A[i1 * n + i2] * A[i1 * n + i2] / B[i1 * n + (i2 - 1)];
    }
  }
}

__global__ void adi_kernel2(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int n)
{
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;

  if ((i1 < n)) {
    X[i1 * n + (n - 1)] = X[i1 * n + (n - 1)] / B[i1 * n + (n - 1)];
  }
}

__global__ void adi_kernel3(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int n)
{
  int i1 = blockIdx.x * blockDim.x + threadIdx.x;

  if (i1 < n) {
    for (int i2 = 0; i2 < n - 2; i2++) {
      X[i1 * n + (n - i2 - 2)] =
          (X[i1 * n + (n - 2 - i2)] - X[i1 * n + (n - 2 - i2 - 1)] * A[i1 * n + (n - i2 - 3)]) /
          B[i1 * n + (n - 3 - i2)];
    }
  }
}

__global__ void adi_kernel4(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int i1, int n)
{
  int i2 = blockIdx.x * blockDim.x + threadIdx.x;

  if (i2 < n) {
    X[i1 * n + i2] = X[i1 * n + i2] - X[(i1 - 1) * n + i2] * A[i1 * n + i2] / B[(i1 - 1) * n + i2];
    B[i1 * n + i2] = B[i1 * n + i2] - A[i1 * n + i2] * A[i1 * n + i2] / B[(i1 - 1) * n + i2];
  }
}

__global__ void adi_kernel5(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int n)
{
  int i2 = blockIdx.x * blockDim.x + threadIdx.x;

  if (i2 < n) {
    X[(n - 1) * n + i2] = X[(n - 1) * n + i2] / B[(n - 1) * n + i2];
  }
}

__global__ void adi_kernel6(DATA_TYPE *A, DATA_TYPE *B, DATA_TYPE *X, int i1, int n)
{
  int i2 = blockIdx.x * blockDim.x + threadIdx.x;

  if (i2 < n) {
    X[(n - 2 - i1) * n + i2] =
        (X[(n - 2 - i1) * n + i2] - X[(n - i1 - 3) * n + i2] * A[(n - 3 - i1) * n + i2]) /
        B[(n - 2 - i1) * n + i2];
  }
}
