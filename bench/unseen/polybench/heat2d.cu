// A 2-D heat (5-point) stencil, one step of a time loop on the host (PolyBench's heat-3d
// and jacobi-2d shape in 2-D, double-buffered: B from A, then A from B). The row index i
// comes from threadIdx.x, the column j from threadIdx.y: a naive port's mapping (the
// transposed thread order of many hand-written stencils), so lanes are n floats apart.
// heat_rowstep: the same stencil with one thread per row, j stepping by 2 over the odd
// columns (a red-black half sweep: a loop with a non-unit step).
#define DATA_TYPE float

__global__ void heat_step(DATA_TYPE *A, DATA_TYPE *B, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;

  if (i > 0 && i < n - 1 && j > 0 && j < n - 1) {
    B[i * n + j] = A[i * n + j] + 0.125f * (A[(i + 1) * n + j] - 2.0f * A[i * n + j] +
                                            A[(i - 1) * n + j]) +
                   0.125f * (A[i * n + j + 1] - 2.0f * A[i * n + j] + A[i * n + j - 1]);
  }
}

__global__ void heat_rowstep(DATA_TYPE *A, DATA_TYPE *B, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i > 0 && i < n - 1) {
    for (int j = 1; j < n - 1; j += 2) {
      B[i * n + j] = A[i * n + j] + 0.125f * (A[(i + 1) * n + j] - 2.0f * A[i * n + j] +
                                              A[(i - 1) * n + j]) +
                     0.125f * (A[i * n + j + 1] - 2.0f * A[i * n + j] + A[i * n + j - 1]);
    }
  }
}
