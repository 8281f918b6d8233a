// PolyBench/GPU gramschmidt (v1.0): for each column k (a host loop passes k), kernel1 (one
// thread) takes the norm of column k of a, kernel2 (thread per row i) scales it into q,
// kernel3 (thread per column j > k) projects the later columns: two loops over the rows
// i in the thread, r[k][j] accumulated in global memory. a and q are m x n, row-major.
#define DATA_TYPE float

__global__ void gramschmidt_kernel1(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n)
{
  int tid = blockIdx.x * blockDim.x + threadIdx.x;

  if (tid == 0) {
    DATA_TYPE nrm = 0.0;
    int i;
    for (i = 0; i < m; i++) {
      nrm += a[i * n + k] * a[i * n + k];
    }
    r[k * n + k] = sqrtf(nrm);
  }
}

__global__ void gramschmidt_kernel2(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    q[i * n + k] = a[i * n + k] / r[k * n + k];
  }
}

__global__ void gramschmidt_kernel3(DATA_TYPE *a, DATA_TYPE *r, DATA_TYPE *q, int k, int m, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;

  if ((j > k) && (j < n)) {
    r[k * n + j] = 0.0;
    int i;
    for (i = 0; i < m; i++) {
      r[k * n + j] += q[i * n + k] * a[i * n + j];
    }
    for (i = 0; i < m; i++) {
      a[i * n + j] -= q[i * n + k] * r[k * n + j];
    }
  }
}
