// PolyBench/GPU mvt (v1.0), kernel 1 as PolyBench writes it: x1 += A y_1 for the n x n
// row-major A, one thread per row i, 1-D blocks of 256, accumulated in x1[i] in global
// memory (x1 is an input too: mvt does not zero it). The macro N became the parameter n.
// (Kernel 2, x2 += A^T y_2 with one thread per column, is coalesced.)
//
// Accesses per warp and j (sm_90): a[i*n + j] for 32 consecutive i, 4n bytes apart: 32
// sectors per request (ideal 4), uncoalesced, n^2 thread accesses (CGO 2015 Table 2);
// y_1[j] one word (1 sector); x1[i] load and store 4 sectors each.
__global__ void mvt_kernel1(float *a, float *x1, float *y_1, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < n) {
    int j;
    for (j = 0; j < n; j++) {
      x1[i] += a[i * n + j] * y_1[j];
    }
  }
}
