// Transposition-shaped kernels for `coalcheck fix --transform tile`: each thread moves one
// element, its load coalesced along one thread dimension and its store along the other,
// so no thread-geometry permutation helps and the fix stages a 32x32 tile through shared
// memory (padded to 33 columns). Figures under the default sm_90 model (32-byte sectors),
// derived by hand; a warp is 32 consecutive threadIdx.x at one threadIdx.y (32x8 blocks).
//
// transpose_scale (w = 72, h = 40; grid 3 x 5, block 32 x 8): out (w x h) = alpha *
//   in^T + beta, in h x w row-major, guard x < w && y < h (sizes not multiples of 32).
//   Rows of in are 288 bytes = 9 sectors, so every row starts on a sector. Per y, the
//   three warps have 32, 32 and 8 active lanes.
//   Load in[y*w + x]: 128, 128 and 32 contiguous bytes: 4 + 4 + 1 = 9 sectors per y ->
//     40 * 9 = 360 sectors in 3 * 40 = 120 requests (all ideal).
//   Store out[x*h + y]: lanes 4h = 160 bytes apart, a sector each: 32 + 32 + 8 = 72 per
//     y -> 2880 sectors in 120 requests (ideal 360). Kernel: 3240 sectors.
//   Tiled (grid 3 x 2 of 32x32 tiles, block 32 x 8): the load as before (360 sectors, 120
//     requests); the store by columns of out: per x, y 0..31 (128 bytes at x*160, on a
//     sector: 4 sectors) and y 32..39 (32 bytes: 1 sector) -> 72 * 5 = 360 sectors in 144
//     requests. Kernel: 720 sectors. Tile: 120 row writes + 144 column reads, one
//     wavefront each (264 = ideal).
// transpose_f64 (n = 256; grid 8 x 32, block 32 x 8): out[x*n + y] = in[y*n + x], doubles.
//   2048 requests each. Load: 256 contiguous bytes: 8 sectors -> 16384. Store: lanes 2048
//   bytes apart: 32 sectors -> 65536 (ideal 16384). Kernel: 81920.
//   Tiled: both 8 sectors per request -> 32768. Tile: 64-bit accesses of 256 bytes are
//   2 wavefronts at best; row writes and padded column reads (lane r at word 66 r + 2c:
//   banks 2r + 2c, +1, distinct over a half-warp) take 2: 2 * (2048 + 2048) = 8192 = ideal.
// to_col_major (rows = 64, cols = 48, ld_in = 56, ld_out = 72; grid 2 x 6, block 32 x 8):
//   out[c*ld_out + r] = in[r*ld_in + c] with r along x and c along y: here the STORE is
//   coalesced along x and the load along y (the reverse of the two above). 96 requests
//   each. Load: lanes 4 ld_in = 224 bytes apart: 32 sectors -> 3072 (ideal 384). Store:
//   128 contiguous bytes at c*288 + 128 bx, on a sector: 4 -> 384. Kernel: 3456.
//   Tiled (grid 2 x 2): the load by rows of in: per r, c 0..31 (128 bytes at r*224: 4
//   sectors) and c 32..47 (64 bytes: 2) -> 64 * 6 = 384 sectors in 128 requests; the
//   store as before (384 in 96). Kernel: 768. Tile: 128 row writes + 96 column reads,
//   one wavefront each (224 = ideal).
#define RM(row, col, ld) ((row) * (ld) + (col)) // row-major index

__global__ void transpose_scale(float *out, const float *in, float alpha, float beta, int w,
                                int h)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = alpha * in[y * w + x] + beta;
}

__global__ void transpose_f64(double *out, const double *in, int n)
{
  unsigned x = blockIdx.x * 32 + threadIdx.x;
  unsigned y = blockIdx.y * 8 + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}

__global__ void to_col_major(float *out, const float *in, int rows, int cols, int ld_in,
                             int ld_out)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  int c = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= cols)
    return;
  float v = in[RM(r, c, ld_in)];
  out[RM(c, r, ld_out)] = v;
}
