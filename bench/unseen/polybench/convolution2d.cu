// PolyBench/GPU 2DConvolution (v1.0): B = 3x3 filter of A over the interior, one thread per
// element (j = x, i = y), 32x8 blocks, guards on both indices.
#define DATA_TYPE float

__global__ void Convolution2D_kernel(DATA_TYPE *A, DATA_TYPE *B, int ni, int nj)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

  c11 = +0.2;  c21 = +0.5;  c31 = -0.8;
  c12 = -0.3;  c22 = +0.6;  c32 = -0.9;
  c13 = +0.4;  c23 = +0.7;  c33 = +0.10;

  if ((i < ni - 1) && (j < nj - 1) && (i > 0) && (j > 0)) {
    B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + (j + 0)] +
                    c31 * A[(i - 1) * nj + (j + 1)] + c12 * A[(i + 0) * nj + (j - 1)] +
                    c22 * A[(i + 0) * nj + (j + 0)] + c32 * A[(i + 0) * nj + (j + 1)] +
                    c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + (j + 0)] +
                    c33 * A[(i + 1) * nj + (j + 1)];
  }
}
