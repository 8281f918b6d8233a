// Kernels whose warps run along the wrong thread dimension, for `coalcheck fix` (the
// thread-geometry permutation of CGO 2015, Sec. 4.2), and one it must refuse.
// Row-major storage throughout: element (r, c) of an n x n matrix at r*n + c (c fastest),
// cell (k, j, i) of an nz x ny x nx grid at (k*ny + j)*nx + i (i fastest).
//
// Expected figures (sm_90 model; derived by hand; a warp is 32 consecutive threads of the
// CTA in x, then y, then z order):
//
// stencil2d_yfast (512 x 512, 16x16 threads, grid 32x32): r from threadIdx.x, the fastest
//   index c from threadIdx.y. A warp = 16 values of r (rows 2048 bytes apart) x 2 adjacent
//   values of c. Each of the five global accesses touches one or two sectors per row:
//   the column pair (c, c+1) starts at an even c, so in[r*n+c] and out[...] need 1 sector
//   per row (16 per request), in[r*n+c-1] and in[r*n+c+1] straddle a sector boundary when
//   c mod 8 = 0 resp. 6 (the pair c-1,c or c+1,c+2 spans two sectors).
//   The store: every one of the 32*32*8 = 8192 warps has an active lane (1 <= r, c <= 510);
//   one sector per active row: 256 warps per CTA column x (30*16 + 2*15) rows = 130,560
//   sectors (rows 0 and 511 are inactive in the first and last CTA of x).
//   After the permutation x<->y (block 16x16, grid 32x32 unchanged in shape): a warp = 16
//   consecutive c (64 bytes, 64-byte aligned) x 2 rows: 2 sectors per row, 4 per request
//   for in[r*n+c] and the store; the c-1 and c+1 neighbours 3 per row. The store: 8192
//   requests, 2 sectors for each active row: 32 CTA columns x (512 - 2) rows x 2 = 32,640
//   sectors, 4.0x fewer.
// copy3d_zfast (64^3 floats, 8x8x8 threads, grid 8x8x8): k from threadIdx.x, j from y, the
//   fastest index i from threadIdx.z. A warp = 8 values of k x 4 values of j at one i: 32
//   addresses in 32 different sectors: 32 sectors per request for the load and the store
//   (ideal 4). After x<->z: a warp = 8 consecutive i (32 bytes, one sector) x 4 values of
//   j: 4 sectors per request. Requests: 64^3 / 32 = 8192 per instruction either way.
// transpose16 (1024 x 1024, 16x16 threads): out[x*n + y] = in[y*n + x], x and y global
//   indices over blockDim. A warp = 16 x by 2 y: the load reads 2 rows of 64 contiguous
//   bytes (4 sectors per request, ideal 4), the store 16 rows of 2 floats (16 sectors).
//   Swapping x and y swaps the two (16 and 4): no permutation lowers the 20 sectors per
//   warp, so `coalcheck fix` refuses it (exit 11) and points at shared-memory tiling.
// rowsum_shfl_yfast (128 x 128, 32x8 threads): r from threadIdx.x, c from threadIdx.y, so
//   the load in[r*n+c] is strided by n; each warp then sums its 32 values (one column, 32
//   rows) with warp shuffles. A permutation would change which values meet in the
//   shuffle, so `coalcheck fix` refuses it (exit 11) and names the shuffle's line.
__global__ void stencil2d_yfast(float *out, const float *in, int n)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= 1 && r < n - 1 && c >= 1 && c < n - 1)
    out[r * n + c] = 0.25f * (in[(r - 1) * n + c] + in[(r + 1) * n + c] +
                              in[r * n + c - 1] + in[r * n + c + 1]);
}

__global__ void copy3d_zfast(float *out, const float *in, int nx, int ny, int nz)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) {
    size_t cell = ((size_t)k * ny + j) * nx + i;
    out[cell] = 2.0f * in[cell] + 1.0f;
  }
}

__global__ void transpose16(float *out, const float *in, int n)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < n)
    out[x * n + y] = in[y * n + x];
}

__global__ void rowsum_shfl_yfast(float *out, const float *in, int n)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  float v = (r < n && c < n) ? in[r * n + c] : 0.0f;
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync(0xffffffffu, v, d);
  if ((threadIdx.x & 31) == 0 && r < n && c < n)
    out[r * n + c] = v;
}
