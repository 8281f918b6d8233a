// Parboil sgemm (Stratton et al., Parboil 2.5): C = alpha A B^T + beta C with A column-major
// (lda = m) and B given transposed (ldb = n), as Parboil's `mysgemmNT`. Two shapes:
// sgemm_base is Parboil's "base" version (one thread per element of C, m on x, n on y, the
// k loop in the thread: A[row + i*lda] coalesced along x, B[col + i*ldb] one address per
// warp); sgemm_tiled is the "cuda" version's register tiling: a block of TILE_M threads
// computes TILE_M x TILE_N of C, each thread one row of TILE_N values in registers, B's
// TILE_N-wide strip staged through shared memory by the block's TILE_TB_HEIGHT x TILE_N
// threads. Written for coalcheck's bench/unseen from the shapes; not Parboil's text.
#define TILE_N 16
#define TILE_TB_HEIGHT 8
#define TILE_M (TILE_N * TILE_TB_HEIGHT)

__global__ void sgemm_base(const float *A, int lda, const float *B, int ldb, float *C,
                           int ldc, int k, float alpha, float beta)
{
  float c = 0.0f;
  int m = blockIdx.x * blockDim.x + threadIdx.x;
  int n = blockIdx.y * blockDim.y + threadIdx.y;
  for (int i = 0; i < k; ++i) {
    float a = A[m + i * lda];
    float b = B[n + i * ldb];
    c += a * b;
  }
  C[m + n * ldc] = C[m + n * ldc] * beta + alpha * c;
}

__global__ void sgemm_tiled(const float *A, int lda, const float *B, int ldb, float *C,
                            int ldc, int k, float alpha, float beta)
{
  // thread (tx, ty) of a TILE_N x TILE_TB_HEIGHT block owns row m of C's tile
  const int m = blockIdx.x * TILE_M + threadIdx.y * TILE_N + threadIdx.x;
  const int n = blockIdx.y * TILE_N;
  float c[TILE_N];
  __shared__ float b_s[TILE_TB_HEIGHT][TILE_N];
  for (int i = 0; i < TILE_N; i++)
    c[i] = 0.0f;
  for (int i = 0; i < k; i += TILE_TB_HEIGHT) {
    b_s[threadIdx.y][threadIdx.x] = B[n + threadIdx.x + (i + threadIdx.y) * ldb];
    __syncthreads();
    for (int j = 0; j < TILE_TB_HEIGHT; j++) {
      float a = A[m + (i + j) * lda];
      for (int kk = 0; kk < TILE_N; kk++)
        c[kk] += a * b_s[j][kk];
    }
    __syncthreads();
  }
  for (int i = 0; i < TILE_N; i++)
    C[m + (n + i) * ldc] = C[m + (n + i) * ldc] * beta + alpha * c[i];
}
