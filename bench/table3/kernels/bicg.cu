// PolyBench/GPU bicg (v1.0), kernel 2 as PolyBench writes it: q = A p for the nx x ny
// row-major A, one thread per row i, 1-D blocks of 256, the sum accumulated in q[i] in
// global memory (A and q may alias, so nvcc loads and stores q[i] at every j). Macros NX,
// NY became the parameters nx, ny; nothing else changed. (Kernel 1, s = A^T r with one
// thread per column, is coalesced and not in CGO 2015's Table 3.)
//
// Accesses per warp and j (sm_90): A[i*ny + j] for 32 consecutive i, 4 ny bytes apart: 32
// sectors per request (ideal 4), uncoalesced, n^2 thread accesses (CGO 2015 Table 2);
// p[j] one word for the warp (1 sector); q[i] load and store 4 sectors each, coalesced.
__global__ void bicg_kernel2(float *A, float *p, float *q, int nx, int ny)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < nx) {
    q[i] = 0.0;

    int j;
    for (j = 0; j < ny; j++) {
      q[i] += A[i * ny + j] * p[j];
    }
  }
}
