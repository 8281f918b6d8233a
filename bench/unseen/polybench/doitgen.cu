// PolyBench-ACC doitgen (CUDA): for each r (a host loop passes r), sum[r][q][p] =
// sum_s A[r][q][s] C4[s][p], then A[r][q][p] = sum[r][q][p]. One thread per (p = x, q = y),
// 32x8 blocks, the sum accumulated in global memory.
#define DATA_TYPE float

__global__ void doitgen_kernel1(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A,
                                DATA_TYPE *C4, int r)
{
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int q = blockIdx.y * blockDim.y + threadIdx.y;

  if ((p < np) && (q < nq)) {
    sum[r * (nq * np) + q * np + p] = (DATA_TYPE)0.0;
    for (int s = 0; s < np; s++) {
      sum[r * (nq * np) + q * np + p] =
          sum[r * (nq * np) + q * np + p] + A[r * (nq * np) + q * np + s] * C4[s * np + p];
    }
  }
}

__global__ void doitgen_kernel2(int nr, int nq, int np, DATA_TYPE *sum, DATA_TYPE *A,
                                DATA_TYPE *C4, int r)
{
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  int q = blockIdx.y * blockDim.y + threadIdx.y;

  if ((p < np) && (q < nq)) {
    A[r * (nq * np) + q * np + p] = sum[r * (nq * np) + q * np + p];
  }
}
