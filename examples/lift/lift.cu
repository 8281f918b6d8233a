// Loop lifting (CGO 2015 Sec. 4.3, Algorithm 2; `coalcheck fix --transform lift`):
// kernels whose threads each walk a row of a row-major matrix, so that the 32 lanes of
// a warp touch 32 rows at every step. Lifting the row's loop into thread index x (the
// old index moves to y) makes a warp walk along a row instead.
//
// Pattern and expected figures (sm_90 model, floats, 32-byte sectors):
// row_store (the paper's Listing 3): thread t < n stores a[t*n + i] for i < n; n = 64,
//   grid 2 x block 32. Each store request has 32 lanes 256 bytes apart: 32 sectors
//   (ideal 4). Requests: 2 warps x 64 iterations = 128; sectors 128 x 32 = 4096.
//   Lifted (i on x, t on y; block 64 x 4, grid 1 x 16): a warp stores 32 consecutive
//   floats of one row: 4 sectors, 64 x 64 / 32 = 128 requests, 512 sectors.
// myocyte_rows (Rodinia myocyte's shape: each thread integrates a whole row of
//   independent equations): y[r*cols + j] += h * f[r*cols + j], rows = 64, cols = 32,
//   grid 2 x block 32. Load y, load f, store y: each request 32 lanes 128 bytes apart:
//   32 sectors. Requests: 2 warps x 32 columns = 64 per instruction, 3 x 64 x 32 = 6144
//   sectors. Lifted (j on x, r on y; block 32 x 8, grid 1 x 8): a warp is one row of 32
//   floats: 4 sectors, 64 requests per instruction, 3 x 64 x 4 = 768 sectors.
// covar (PolyBench covariance's covar_kernel): thread j1 < m computes row j1 of the
//   symmetric covariance matrix, symmat[j1][j2] for j2 = j1..m-1, summing over the n
//   rows of data; m = 64, n = 16, grid 2 x block 32. j2 is parallel, the loop over i a
//   reduction (it stays a loop); lifting j2 makes data[i*m + j2] and symmat[j1*m + j2]
//   unit-stride along x. Sectors derived in tests/examples/test_lift.c (triangular).
// corr (PolyBench correlation's corr_kernel): covar's shape with j2 = j1+1..m-1 and the
//   diagonal symmat[j1][j1] = 1 stored before the loop; the lifted kernel stores it from
//   the thread of the loop's first value. m = 64, n = 16, grid 2 x block 32.
// gemm_rows: C = A B with a thread per row i of C and the sum in a register s, declared
//   inside the loop over j (a private scalar: a fresh copy per (i, j), so j is parallel and
//   k carries the sum); n = 32, grid 1 x block 32 (one warp, lane = i). Per (j, k): a[i*n+k]
//   32 lanes 128 bytes apart, 32 sectors; b[k*n+j] one address, 1 sector; per j the store
//   c[i*n+j], 32 sectors: 1024 x 32 + 1024 x 1 + 32 x 32 = 34816 sectors. Lifted (j on x,
//   i on y; block 32 x 8, grid 1 x 4: a warp is one i): a[i*n+k] 1 sector, b[k*n+j] 4,
//   c[i*n+j] 4: 1024 + 4096 + 32 x 4 = 5248 sectors.
// row_prefix: a running sum along each row; the loop over j carries a dependence
//   (a[r*n + j] reads a[r*n + j-1]): `coalcheck fix --transform lift` refuses it, naming
//   the loop. n = 64, grid 2 x block 32: 63 x 2 requests per instruction of 32 sectors.
__global__ void row_store(float *a, int n, float value)
{
  int tx = blockIdx.x * blockDim.x + threadIdx.x;
  if (tx < n)
    for (int i = 0; i < n; i++)
      a[tx * n + i] = value + (float)i;
}

__global__ void myocyte_rows(float *y, const float *f, int rows, int cols, float h)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  for (int j = 0; j < cols; j++)
    y[r * cols + j] = y[r * cols + j] + h * f[r * cols + j];
}

__global__ void covar(int m, int n, float *symmat, float *data)
{
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  int i, j2;
  if (j1 < m) {
    for (j2 = j1; j2 < m; j2++) {
      symmat[j1 * m + j2] = 0.0f;
      for (i = 0; i < n; i++)
        symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
      symmat[j2 * m + j1] = symmat[j1 * m + j2];
    }
  }
}

__global__ void corr(int m, int n, float *symmat, float *data)
{
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  int i, j2;
  if (j1 < (m - 1)) {
    symmat[j1 * m + j1] = 1.0f;
    for (j2 = (j1 + 1); j2 < m; j2++) {
      symmat[j1 * m + j2] = 0.0f;
      for (i = 0; i < n; i++)
        symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
      symmat[j2 * m + j1] = symmat[j1 * m + j2];
    }
  }
}

__global__ void row_prefix(float *a, int n)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < n)
    for (int j = 1; j < n; j++)
      a[r * n + j] += a[r * n + j - 1];
}

__global__ void gemm_rows(float *c, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    for (int j = 0; j < n; j++) {
      float s = 0.0f;
      for (int k = 0; k < n; k++)
        s += a[i * n + k] * b[k * n + j];
      c[i * n + j] = s;
    }
}
