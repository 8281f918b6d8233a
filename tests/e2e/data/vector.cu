// Kernels for tests/e2e/fix_vector.sh: the vector plays (src/cuda/plays.h,
// cc_cuda_plays_vector) of a reshaped permutation, each with the geometry mistake (the row
// i from x, the column j from y).

// y += a x over the rows: float, unit stride along j: float4 loads and stores.
__global__ void axpy_rows(float *y, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    y[i * n + j] += a * x[i * n + j];
}

// y = a x with doubles: double2 loads and stores.
__global__ void scale_rows(double *y, const double *x, double a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    y[i * n + j] = a * x[i * n + j];
}

// Fan2's shape: row i + 1 of a less m[i] times row i + 1 of c (m[i]: the same for every
// j, a broadcast), and a statement that only j == 0 runs (scalar).
__global__ void row_elim(float *a, const float *m, const float *c, float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n - 1 && j < n) {
    a[(i + 1) * n + j] -= m[i] * c[(i + 1) * n + j];
    if (j == 0)
      b[i + 1] -= b[0] * 2.0f;
  }
}

// The last group of 4 columns is cut (j < n - 1): not every play of a group runs the
// statement, so no vectors; the loads-first plays instead.
__global__ void axpy_ragged(float *y, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n - 1)
    y[i * n + j] += a * x[i * n + j];
}
