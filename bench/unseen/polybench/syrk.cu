// PolyBench/GPU syrk (v1.0): C = alpha A A^T + beta C, one thread per element of C
// (j = x, i = y), 32x8 blocks, the sum accumulated in C in global memory. The read
// a[j * m + k] walks row j of A: 32 lanes (32 consecutive j) are m floats apart.
#define DATA_TYPE float

__global__ void syrk_kernel(DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c, int n,
                            int m)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < n) && (j < n)) {
    c[i * n + j] *= beta;
    int k;
    for (k = 0; k < m; k++) {
      c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
  }
}

// PolyBench 4's syrk loop nest (lower triangle, j <= i) with one thread per row i: the loop
// over j has a bound that depends on the thread's row (triangular), and c[i * n + j],
// a[i * m + k] put lanes n and m floats apart.
__global__ void syrk_tri_kernel(DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE *a, DATA_TYPE *c,
                                int n, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    for (int j = 0; j <= i; j++) {
      c[i * n + j] *= beta;
      for (int k = 0; k < m; k++) {
        c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
      }
    }
  }
}
