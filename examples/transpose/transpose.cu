// Matrix transpose, out = in^T, of an n x n row-major float matrix: three versions.
//
// Pattern and expected figures (sm_90 model: 32-byte sectors; n = 1024, 32x8 threads):
//
// transpose_naive: one element per thread; grid (n/32, n/8). A warp is one row of 32
//   consecutive x at one y: the load in[y*n + x] reads 128 contiguous aligned bytes =
//   4 sectors per request (coalesced, Algorithm 1 max stride 4 B); the store
//   out[x*n + y] writes 32 floats 4n bytes apart = 32 sectors per request (uncoalesced,
//   max stride 4n B, but the whole footprint is dense: thread-geometry transformation).
//   Requests = (n/32)(n/8) CTAs x 8 warps = n*n/32 for the load and the store each.
//   CGO 2015 Table 2 shape: 2 n^2 thread accesses in all, n^2 of them uncoalesced.
// transpose_tiled: the 32x32 tile goes through shared memory (NVIDIA's transposeCoalesced);
//   each thread moves 32/8 = 4 elements; grid (n/32, n/32). Global loads and stores both
//   4 sectors per request. Shared store tile[ty+j][tx]: 32 consecutive words, no
//   conflict; shared load tile[tx][ty+j]: 32 words 32 words apart, all in one bank:
//   32-way bank conflict (32 wavefronts per request).
// transpose_padded: the same with tile[32][33]: word tx*33 + c lies in bank (tx + c) % 32,
//   so the column read is conflict-free too.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_naive(float *out, const float *in, int n)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * BLOCK_ROWS + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}

__global__ void transpose_tiled(float *out, const float *in, int n)
{
  __shared__ float tile[TILE_DIM][TILE_DIM];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x; // transposed block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transpose_padded(float *out, const float *in, int n)
{
  __shared__ float tile[TILE_DIM][TILE_DIM + 1]; // +1: column reads hit 32 distinct banks

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
