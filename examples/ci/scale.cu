// The CI example of docs/ci.md: out = alpha * in over a height x width row-major matrix.
// examples/ci/scale.cu takes the row from threadIdx.x, a deliberate mistake;
// examples/ci/fixed/scale.cu is what `coalcheck fix --launch scale.launch -o fixed` wrote
// (the thread geometry permuted: the column from threadIdx.x, the block reshaped to 256 x 1),
// committed as it came out but for its launch file's --nvcc-flags line (an absolute -I).
// docs/ci.md's job gates both: the first fails (exit 12), the second passes.
//
// Expected figures (sm_90 model, 512 x 512 floats), derived by hand:
// - scale.cu, 32 x 8 threads per CTA, grid 16 x 64: a warp is the 32 x-lanes of one
//   threadIdx.y, so 32 consecutive rows of one column, width * 4 = 2048 bytes apart: each
//   float in its own 32-byte sector, 32 sectors per request where 4 would do. 512 * 512 /
//   32 = 8192 requests for the load and 8192 for the store: 262,144 sectors each, ideal
//   32,768, excess 229,376; the kernel 524,288 sectors, 458,752 excess; efficiency 4 / 32.
// - fixed/scale.cu, 256 x 1 threads per CTA, grid 2 x 512: a warp is 32 consecutive
//   columns of one row, 128 contiguous bytes on a 128-byte boundary (col a multiple of 32,
//   rows 2048 bytes): 4 sectors per request, 8192 requests each, the kernel 65,536
//   sectors, no excess.
__global__ void scale(float *out, const float *in, float alpha, int width, int height)
{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < height && col < width)
    out[row * width + col] = alpha * in[row * width + col];
}
