// SHOC's spmv_csr_scalar_kernel (the SpMV of CGO 2015 Table 3): out = A vec for a CSR
// matrix (val, cols, rowDelimiters), one thread per row, 1-D blocks of 256. SHOC reads vec
// through a texture (texReader); here it is a plain global pointer, passed before out.
// The matrix comes from bench/table3/gen_csr.c (bench/table3.sh gen).
//
// Accesses per warp and step (sm_90): val[j] and cols[j] at 32 rows' own positions,
// about (average row length) x 4 bytes apart: up to 32 sectors per request, uncoalesced;
// vec[col] a gather (one sector per lane); rowDelimiters and out contiguous. Rows differ
// in length: the warp runs as long as its longest row.
__global__ void spmv_csr_scalar_kernel(const float *val, const int *cols,
                                       const int *rowDelimiters, const int dim,
                                       const float *vec, float *out)
{
  int myRow = blockIdx.x * blockDim.x + threadIdx.x;

  if (myRow < dim) {
    float t = 0.0f;
    int start = rowDelimiters[myRow];
    int end = rowDelimiters[myRow + 1];
    for (int j = start; j < end; j++) {
      int col = cols[j];
      t += val[j] * vec[col];
    }
    out[myRow] = t;
  }
}
