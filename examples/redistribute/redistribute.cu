// Reductions a thread makes over its own run of memory, the shape CGO 2015 Sec. 4.4
// (Algorithm 3) redistributes over the 32 lanes of a warp: `coalcheck fix --transform
// redistribute` (tests/e2e/fix_redistribute.sh). Each kernel is checked as given in
// tests/examples/test_redistribute.c. sm_90 model, 32-byte sectors; a warp = 32
// consecutive threads = 32 consecutive rows.
//
// mvt_kernel1 (PolyBench/GPU mvt, n = 1024, 4 CTAs of 256): x1[i] += a[i][j] y_1[j].
//   a[i*n+j]: lanes 4n = 4096 bytes apart: 32 sectors per request (ideal 4); 32 warps x
//   1024 columns = 32768 requests: 1,048,576 sectors. y_1[j]: a broadcast, 1 sector per
//   request: 32768. x1[i] is loaded once before the loop (32 requests of 4 sectors) and
//   stored back at every j (x1 may alias a, so each new sum is written before the next
//   load of a): 32768 store requests of 4 sectors, 131,072.
//   Fixed (one warp per row): a row is 1024 consecutive floats read 32 at a time: 32
//   requests of 4 sectors per row, 1024 rows: 131,072 sectors; y_1 likewise 131,072;
//   x1[i] once by lane 0 after the loop (1 sector per load and store).
// bicg_kernel2 (PolyBench/GPU bicg, nx = 1024 rows, ny = 512 columns, 4 CTAs of 256):
//   q[i] = 0; q[i] += A[i][j] p[j] with j declared before the loop (PolyBench's style).
//   A: lanes 4 ny = 2048 bytes apart: 32 sectors per request, 32 warps x 512 = 16384
//   requests: 524,288 sectors; p[j] a broadcast, 16,384. q[i] is never reloaded (nvcc
//   forwards the value it stored) but stored at every j: 16384 requests of 4 sectors.
//   Fixed: 16 requests of 4 sectors per row: 65,536.
// spmv_csr_scalar (CSR, a thread per row, rows = 1024): row i has 8 (2 + i % 5) nonzeros
//   (16, 24, 32, 40, 48; nnz = 8 x (205 x 14 + 204 x 6) = 32,752), stored in order;
//   rowptr.bin holds rowptr (1025 s32, rowptr[0] = 0); the column of nonzero p is p
//   (colidx = iota, x has nnz entries: a staircase matrix). Bounds are loaded
//   (rowptr[row]..rowptr[row+1]). At step k the lanes still in their row read val[rowptr
//   [i]+k], at least 16 floats = 64 bytes apart: one sector per active lane, so val (and
//   colidx, and x[colidx]) cost nnz = 32,752 sectors each however the requests fall.
//   Fixed: every row starts at a multiple of 8 floats (row lengths are multiples of 8),
//   so row i reads nnz_i / 8 whole sectors: 32,752 / 8 = 4,094 for val.
// row_sums_u32 (1024 x 1024 unsigned, 8 CTAs of 128): s += a[r][c] modulo 2^32; like
//   row_sums_thread: 32 sectors per request, 32768 requests: 1,048,576 sectors. Fixed:
//   131,072. Integer sums are exact in any order: the fix compares bitwise.
__global__ void mvt_kernel1(float *a, float *x1, float *y_1, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    for (int j = 0; j < n; j++)
      x1[i] += a[i * n + j] * y_1[j];
  }
}

__global__ void bicg_kernel2(float *A, float *p, float *q, int nx, int ny)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx) {
    q[i] = 0.0f;
    int j;
    for (j = 0; j < ny; j++)
      q[i] += A[i * ny + j] * p[j];
  }
}

__global__ void spmv_csr_scalar(const int *rowptr, const int *colidx, const float *val,
                                const float *x, float *y, int rows)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) {
    float dot = 0.0f;
    for (int k = rowptr[row]; k < rowptr[row + 1]; k++)
      dot += val[k] * x[colidx[k]];
    y[row] = dot;
  }
}

__global__ void row_sums_u32(unsigned *sums, const unsigned *a, int rows, int cols)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    unsigned s = 0;
    for (int c = 0; c < cols; c++)
      s += a[(size_t)r * cols + c];
    sums[r] = s;
  }
}
