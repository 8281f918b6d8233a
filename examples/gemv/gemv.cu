// Matrix-vector products in the two shapes of PolyBench/GPU atax (n x n floats, A row-major).
//
// gemv_rows (atax_kernel1's shape): thread i walks row i, y[i] = sum_j A[i][j] x[j]. At each
//   j the 32 lanes of a warp read A[i][j] for 32 consecutive i, 4n bytes apart: 32 sectors
//   per request (ideal 4), uncoalesced; x[j] is one word for the whole warp: 1 sector. On
//   average (32 + 1) / 2 = 16.5 sectors per request, the figure of issue 12.
// gemv_cols (atax_kernel2's shape): thread j walks column j, z[j] = sum_i A[i][j] w[i]. At
//   each i the warp reads 32 consecutive floats of row i: 4 sectors, coalesced; w[i] is a
//   broadcast, 1 sector: (4 + 1) / 2 = 2.5 sectors per request.
//
// Beyond L1 (the cache model, H100, n = 1024, 4 CTAs of 256 threads on 4 SMs): both read
// all of A from DRAM once, n^2 x 4 = 4 MiB, plus their vector (4 KiB). gemv_rows' re-reads
// hit L1: a row's 32-byte sector serves 8 consecutive j, so 7 of 8 of its A sectors hit, one
// request in 8 reaches L2 and one in 16 DRAM (64-byte DRAM reads bring the next sector into
// L2). gemv_cols reads a new line of A at every request: no hit, every one waits on DRAM. So the uncoalesced kernel is not the slow one (on an
// H200, atax_kernel1 ran in 0.72 ms, atax_kernel2 in 1.55 ms, issue 12), and the report's
// gain line says why. Figures: tests/examples/test_examples.c, test_gemv_*.
__global__ void gemv_rows(const float *A, const float *x, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
      float a = A[(size_t)i * n + j];
      s += a * x[j];
    }
    y[i] = s;
  }
}

__global__ void gemv_cols(const float *A, const float *w, float *z, int n)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
      float a = A[(size_t)i * n + j];
      s += a * w[i];
    }
    z[j] = s;
  }
}
