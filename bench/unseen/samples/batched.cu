// Common user kernels (not from a suite): batched small matrices stored one after the
// other (the batch index slowest in memory: A[b][i][j]), one thread per matrix.
// batched_gemv4: y_b = A_b x_b for 4x4 matrices (lanes 64 bytes apart);
// batched_scale: every element of each 8x8 matrix scaled by the matrix's own factor, one
// thread per matrix walking its 64 elements (lanes 256 bytes apart: the loop over the
// elements is the coalescing dimension). Written for bench/unseen.
__global__ void batched_gemv4(const float *A, const float *x, float *y, int batch)
{
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) {
    for (int i = 0; i < 4; i++) {
      float s = 0.0f;
      for (int j = 0; j < 4; j++)
        s += A[b * 16 + i * 4 + j] * x[b * 4 + j];
      y[b * 4 + i] = s;
    }
  }
}

__global__ void batched_scale(float *A, const float *alpha, int batch)
{
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < batch) {
    for (int e = 0; e < 64; e++)
      A[b * 64 + e] = alpha[b] * A[b * 64 + e];
  }
}
