// Parboil spmv (JDS format, the "cuda" version's spmv_jds): rows sorted by length and
// permuted (perm), the nonzeros stored by jagged diagonal: diagonal k starts at
// jds_ptr[k] and holds one entry per row long enough, so that row r's k-th entry is at
// jds_ptr[k] + r (consecutive rows, consecutive entries: coalesced); sh_zcnt[b] is the
// longest row of block b (the loop bound). The product gathers x[index] (data-dependent)
// and scatters dst[perm[row]]. Parboil keeps jds_ptr in __constant__ memory; here global.
// spmv_csr_scalar: the same matrix in CSR with one thread per row (the textbook scalar
// kernel: lanes a row apart). Written for bench/unseen; gen_jds.py makes the matrix.
__global__ void spmv_jds(float *dst_vector, const float *d_data, const int *d_index,
                         const int *d_perm, const float *x_vec, int dim,
                         const int *jds_ptr_int, const int *sh_zcnt_int)
{
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  if (ix < dim) {
    float sum = 0.0f;
    int bound = sh_zcnt_int[blockIdx.x];
    for (int k = 0; k < bound; k++) {
      int j = jds_ptr_int[k] + ix;
      int in = d_index[j];
      float d = d_data[j];
      float t = x_vec[in];
      sum += d * t;
    }
    dst_vector[d_perm[ix]] = sum;
  }
}

__global__ void spmv_csr_scalar(float *y, const float *val, const int *col, const int *rowptr,
                                const float *x, int dim)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < dim) {
    float sum = 0.0f;
    for (int k = rowptr[row]; k < rowptr[row + 1]; k++)
      sum += val[k] * x[col[k]];
    y[row] = sum;
  }
}
