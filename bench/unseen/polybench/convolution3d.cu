// PolyBench/GPU 3DConvolution (v1.0): B = 3x3x3 filter taps of A over the interior of plane
// i (a host loop passes i), one thread per (k = x, j = y), 32x8 blocks, guards on all three
// indices.
#define DATA_TYPE float

__global__ void convolution3D_kernel(DATA_TYPE *A, DATA_TYPE *B, int i, int ni, int nj, int nk)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;

  DATA_TYPE c11, c12, c13, c21, c22, c23, c31, c32, c33;

  c11 = +2;  c21 = +5;  c31 = -8;
  c12 = -3;  c22 = +6;  c32 = -9;
  c13 = +4;  c23 = +7;  c33 = +10;

  if ((i < (ni - 1)) && (j < (nj - 1)) && (k < (nk - 1)) && (i > 0) && (j > 0) && (k > 0)) {
    B[i * (nk * nj) + j * nk + k] =
        c11 * A[(i - 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c13 * A[(i + 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c21 * A[(i - 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c23 * A[(i + 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c31 * A[(i - 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c33 * A[(i + 1) * (nk * nj) + (j - 1) * nk + (k - 1)] +
        c12 * A[(i + 0) * (nk * nj) + (j - 1) * nk + (k + 0)] +
        c22 * A[(i + 0) * (nk * nj) + (j + 0) * nk + (k + 0)] +
        c32 * A[(i + 0) * (nk * nj) + (j + 1) * nk + (k + 0)] +
        c11 * A[(i - 1) * (nk * nj) + (j - 1) * nk + (k + 1)] +
        c13 * A[(i + 1) * (nk * nj) + (j - 1) * nk + (k + 1)] +
        c21 * A[(i - 1) * (nk * nj) + (j + 0) * nk + (k + 1)] +
        c23 * A[(i + 1) * (nk * nj) + (j + 0) * nk + (k + 1)] +
        c31 * A[(i - 1) * (nk * nj) + (j + 1) * nk + (k + 1)] +
        c33 * A[(i + 1) * (nk * nj) + (j + 1) * nk + (k + 1)];
  }
}
