// Common user kernels (not from a suite): a column-major matrix (element (r, c) at
// c * ld + r, as cuBLAS and Fortran store it) indexed by a kernel written for row-major
// thinking: thread x is the column. colmajor_axpby: C = alpha A + beta B element-wise, a
// 2-D launch (x = column, y = row: lanes ld elements apart); colmajor_colsum: the sum of
// each row r over the columns, one thread per row walking c: coalesced (lanes are
// consecutive rows), and colmajor_rowdot: one thread per column c summing down it
// (lanes ld apart, the loop over r contiguous). Written for bench/unseen.
__global__ void colmajor_axpby(float *C, const float *A, const float *B, int rows, int cols,
                               int ld, float alpha, float beta)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    C[c * ld + r] = alpha * A[c * ld + r] + beta * B[c * ld + r];
}

__global__ void colmajor_colsum(float *s, const float *A, int rows, int cols, int ld)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float acc = 0.0f;
    for (int c = 0; c < cols; c++)
      acc += A[c * ld + r];
    s[r] = acc;
  }
}

__global__ void colmajor_rowdot(float *s, const float *A, const float *x, int rows, int cols,
                                int ld)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float acc = 0.0f;
    for (int r = 0; r < rows; r++)
      acc += A[c * ld + r] * x[r];
    s[c] = acc;
  }
}
