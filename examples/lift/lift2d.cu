// Loop lifting on 2-D and 3-D thread geometry (`coalcheck fix --transform lift`, CGO 2015
// Sec. 4.3, Algorithm 2): every global index g_d = blockIdx.d * blockDim.d + threadIdx.d
// is a loop of the polyhedral model beside the kernel's own loops, and the permutation
// ILP picks which of them becomes thread index x; the others keep their order on y, z
// (and a loop in the kernel past CUDA's three dimensions).
//
// Pattern and expected figures (sm_90 model, floats, 32-byte sectors; warps are 32
// consecutive threadIdx.x of one threadIdx.y, threadIdx.z):
// scale_rows2d (scale_rows2d.launch): Y[b][i][k] = alpha * X[b][i][k], a thread per
//   (row i = x, batch b = y), the loop over k inside; n = 64 rows of K = 32 floats,
//   batch = 8, grid 2 x 2, block 32 x 4: 512 threads, 16 warps (one b, 32 rows each).
//   Per k a warp's lanes are K floats = 128 bytes apart: the load of X and the store of
//   Y each touch 32 sectors. 16 warps x 32 k x 2 = 1024 requests, 32 x 1024 = 32,768
//   sectors. Lifted (k on x, i on y, b on z; block 32 x 8, grid 1 x 8 x 8): a warp is
//   one row's 32 floats, 128-byte aligned: 4 sectors, 512 warps x 2 = 1024 requests,
//   4,096 sectors.
// covar2d (covar2d.launch): symmat[j1][j2] = sum over i of data[i][j1] * data[i][j2], a
//   thread per (j1 = x, j2 = y), the sum in a register s; m = 64, n = 16, grid 2 x 16,
//   block 32 x 4: 4096 threads, 128 warps (one j2, 32 consecutive j1). Per i: data[i*m +
//   j1] a 128-byte aligned run, 4 sectors; data[i*m + j2] one float, 1 sector; the store
//   symmat[j1*m + j2] has lanes 64 floats apart: 32 sectors. Per warp 16 x (4 + 1) + 32
//   = 112, 14,336 sectors in 128 x 33 = 4224 requests. The loop over i carries the sum,
//   so the ILP's best is a geometry dimension: j2 made thread index x (the geometry
//   permuted; block 64 x 4, grid 1 x 16): data[i*m + j1] 1 sector, data[i*m + j2] 4, the
//   store 4: 128 x (16 x 5 + 4) = 10,752.
// add3d (add3d.launch): out[b][j][i][k] = in[b][j][i][k] + 1, a thread per (i = x,
//   j = y, b = z), the loop over k inside; 32 x 4 x 4 threads, K = 32, grid 1 x 1 x 2,
//   block 32 x 4 x 2: 16 warps, lanes K floats apart: 32 sectors per request, 16 x 32 x 2
//   = 1024 requests, 32,768 sectors. Lifted: k on x, i on y, j on z, and b (the fourth
//   dimension) a loop in the kernel (block 32 x 8 x 1, grid 1 x 4 x 4): 128 warps, each
//   4 b x 2 requests of 4 sectors: 1024 requests, 4,096 sectors.
// batched_gemv (batched_gemv.launch): y[b][i] = sum over k of A[b][i][k] * x[b][k], a
//   thread per (row i = x, batch b = y); the loop over k carries the sum and no other
//   dimension has fewer non-unit strides: lifting refuses, naming the loop (the
//   reduction is redistribute's). n = 64, K = 32, batch = 4, grid 2 x 1, block 32 x 4:
//   8 warps x 32 k: A 32 sectors, x 1 sector per request, 4 x 8 the store y: 8 x 32 x
//   (32 + 1) + 8 x 4 = 8480 sectors.
__global__ void scale_rows2d(const float *X, float *Y, float alpha, int n, int K, int batch)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && b < batch)
    for (int k = 0; k < K; k++)
      Y[(b * n + i) * K + k] = alpha * X[(b * n + i) * K + k];
}

__global__ void covar2d(const float *data, float *symmat, int m, int n)
{
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  int j2 = blockIdx.y * blockDim.y + threadIdx.y;
  if (j1 < m && j2 < m) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
      s += data[i * m + j1] * data[i * m + j2];
    symmat[j1 * m + j2] = s;
  }
}

__global__ void add3d(const float *in, float *out, int ni, int nj, int nb, int K)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < ni && j < nj && b < nb)
    for (int k = 0; k < K; k++)
      out[((b * nj + j) * ni + i) * K + k] = in[((b * nj + j) * ni + i) * K + k] + 1.0f;
}

__global__ void batched_gemv(const float *A, const float *x, float *y, int n, int K, int batch)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int b = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && b < batch) {
    float s = 0.0f;
    for (int k = 0; k < K; k++)
      s += A[(b * n + i) * K + k] * x[b * K + k];
    y[b * n + i] = s;
  }
}
