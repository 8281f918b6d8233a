// Row sums of a rows x cols row-major float matrix: sums[r] = a[r][0] + ... + a[r][cols-1].
//
// Pattern and expected figures (sm_90 model, 1024 x 1024 floats):
// row_sums_thread: one thread per row (128 threads per CTA, 8 CTAs). At each step the 32
//   lanes of a warp read one column of 32 consecutive rows, 4*cols = 4096 bytes apart:
//   32 sectors per request (ideal 4). Requests: 32 warps x 1024 columns = 32768. The
//   store sums[r] is one coalesced request per warp (4 sectors, 32 requests). nvcc 13
//   unrolls the loop 4 times: each load instruction sees every 4th column (all_stride 16).
// row_sums_warp: one warp per row; lane l adds a[r][l], a[r][l+32], ... (32 consecutive
//   floats per step: 4 sectors per request), then the warp adds its 32 partial sums with
//   shfl.sync (a shift-down tree, offsets 16 8 4 2 1) and lane 0 stores.
//   Requests: 1024 warps x 1024/32 steps = 32768 loads of 4 sectors; 1024 stores of one
//   lane (1 sector).
__global__ void row_sums_thread(float *sums, const float *a, int rows, int cols)
{
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float s = 0.0f;
    for (int c = 0; c < cols; c++)
      s += a[(size_t)r * cols + c];
    sums[r] = s;
  }
}

__global__ void row_sums_warp(float *sums, const float *a, int rows, int cols)
{
  int lane = threadIdx.x % 32;
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (r < rows) {
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32)
      s += a[(size_t)r * cols + c];
    for (int offset = 16; offset > 0; offset /= 2)
      s += __shfl_down_sync(0xffffffff, s, offset);
    if (lane == 0)
      sums[r] = s;
  }
}
