// PolyBench/GPU correlation (v1.0), corr_kernel as PolyBench writes it: the correlation
// matrix symmat = data^T data of the centred and scaled (n+1) x (m+1) row-major data
// (1-based indices), one thread per column j1 < m, 1-D blocks of 256: the diagonal set
// to 1, the strict upper triangle accumulated in global memory, then mirrored. Macros M, N
// became the parameters m, n. (mean_kernel, std_kernel and reduce_kernel, one thread per
// column walking contiguous rows or one per element, are coalesced and not timed here.)
//
// Accesses as covar_kernel's (covariance.cu): symmat[j1*(m+1) + j2] loaded and stored at
// every i, 4(m+1) bytes apart across the warp: uncoalesced; the rest contiguous.
__global__ void corr_kernel(float *symmat, float *data, int m, int n)
{
  int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int i, j2;

  if ((j1 >= 1) && (j1 < m)) {
    symmat[j1 * (m + 1) + j1] = 1.0;

    for (j2 = (j1 + 1); j2 < (m + 1); j2++) {
      symmat[j1 * (m + 1) + j2] = 0.0;
      for (i = 1; i < (n + 1); i++) {
        symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
      }
      symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
    }
  }
}
