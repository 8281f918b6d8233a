// CUDA samples' dct8x8 (the CUDAkernel1DCT shape): an 8x8 block of threads per 8x8 block
// of the image; each thread loads one pixel into a shared block, the rows are transformed
// (thread (x, y) computes coefficient x of row y as a sum over the row with the DCT
// matrix), then the columns, and the result stored. The DCT matrix is a global array here
// (a __constant__ one in the sample). dct8x8_wide: the same with 32 x 8 threads, four 8x8
// blocks side by side (a warp reads one 128-byte run instead of four 32-byte pieces).
// Written for bench/unseen.
#define BLOCK_SIZE 8

__global__ void dct8x8(float *dst, const float *src, const float *dctm, int stride)
{
  __shared__ float block[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float tmp[BLOCK_SIZE][BLOCK_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * BLOCK_SIZE + tx, y = blockIdx.y * BLOCK_SIZE + ty;
  block[ty][tx] = src[y * stride + x];
  __syncthreads();
  float s = 0.0f;
  for (int k = 0; k < BLOCK_SIZE; k++)
    s += dctm[tx * BLOCK_SIZE + k] * block[ty][k];
  tmp[ty][tx] = s;
  __syncthreads();
  s = 0.0f;
  for (int k = 0; k < BLOCK_SIZE; k++)
    s += dctm[ty * BLOCK_SIZE + k] * tmp[k][tx];
  dst[y * stride + x] = s;
}

__global__ void dct8x8_wide(float *dst, const float *src, const float *dctm, int stride)
{
  __shared__ float block[BLOCK_SIZE][4 * BLOCK_SIZE];
  __shared__ float tmp[BLOCK_SIZE][4 * BLOCK_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int b = tx / BLOCK_SIZE, u = tx % BLOCK_SIZE;
  const int x = blockIdx.x * 4 * BLOCK_SIZE + tx, y = blockIdx.y * BLOCK_SIZE + ty;
  block[ty][tx] = src[y * stride + x];
  __syncthreads();
  float s = 0.0f;
  for (int k = 0; k < BLOCK_SIZE; k++)
    s += dctm[u * BLOCK_SIZE + k] * block[ty][b * BLOCK_SIZE + k];
  tmp[ty][tx] = s;
  __syncthreads();
  s = 0.0f;
  for (int k = 0; k < BLOCK_SIZE; k++)
    s += dctm[ty * BLOCK_SIZE + k] * tmp[k][tx];
  dst[y * stride + x] = s;
}
