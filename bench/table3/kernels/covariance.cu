// PolyBench/GPU covariance (v1.0), covar_kernel as PolyBench writes it: symmat = data^T
// data over the (n+1) x (m+1) row-major data (PolyBench's 1-based indices: rows and
// columns 1..n, 1..m are used), one thread per column j1, 1-D blocks of 256, the sum
// accumulated in symmat in global memory, then mirrored. Macros M, N became the
// parameters m, n. (mean_kernel and reduce_kernel, which centre data first, are
// coalesced and not timed here.)
//
// Accesses per warp and (j2, i) (sm_90): symmat[j1*(m+1) + j2] (load and store at every i)
// for 32 consecutive j1, 4(m+1) bytes apart: 32 sectors per request, uncoalesced; the
// mirror store symmat[j2*(m+1) + j1] is contiguous; data[i*(m+1) + j1] and
// data[i*(m+1) + j2] (j2 = j1 + step) are contiguous. The lanes' j2 loops have different
// lengths (m - j1 + 1): the warp diverges at its end.
__global__ void covar_kernel(float *symmat, float *data, int m, int n)
{
  int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i, j2;

  if ((j1 >= 1) && (j1 < (m + 1))) {
    for (j2 = j1; j2 < (m + 1); j2++) {
      symmat[j1 * (m + 1) + j2] = 0.0;
      for (i = 1; i < (n + 1); i++) {
        symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
      }
      symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
    }
  }
}
