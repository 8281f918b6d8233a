// PolyBench/GPU syr2k (v1.0): C = alpha A B^T + alpha B A^T + beta C, one thread per element
// of C (j = x, i = y), 32x8 blocks, the sum accumulated in C in global memory. The reads
// a[j * m + k] and b[j * m + k] walk row j: lanes m floats apart.
#define DATA_TYPE float

__global__ void syr2k_kernel(DATA_TYPE *a, DATA_TYPE *b, DATA_TYPE *c, int n, int m,
                             DATA_TYPE alpha, DATA_TYPE beta)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < n) && (j < n)) {
    c[i * n + j] *= beta;
    int k;
    for (k = 0; k < m; k++) {
      c[i * n + j] += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
    }
  }
}
