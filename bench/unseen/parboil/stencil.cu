// Parboil stencil (7-point Jacobi in 3-D, Anext = c1 * (6 neighbours) - c0 * A0), the
// array x fastest: Index3D(nx, ny, i, j, k) = i + nx * (j + ny * k). stencil_naive is
// Parboil's "base" kernel: one thread per interior point of a 2-D block plane, k from
// blockIdx.z (i = x + 1: every warp one element off its sector). stencil_regtile is the
// "cuda" version's shape (block2D_reg_tiling): a 2-D grid of threads, each walking k in
// its own loop, keeping bottom/current/top in registers. Written for bench/unseen.
#define Index3D(_nx, _ny, _i, _j, _k) ((_i) + (_nx) * ((_j) + (_ny) * (_k)))

__global__ void stencil_naive(float c0, float c1, const float *A0, float *Anext, int nx,
                              int ny, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int j = blockIdx.y * blockDim.y + threadIdx.y + 1;
  int k = blockIdx.z + 1;
  if (i < nx - 1 && j < ny - 1 && k < nz - 1) {
    Anext[Index3D(nx, ny, i, j, k)] =
        (A0[Index3D(nx, ny, i, j, k + 1)] + A0[Index3D(nx, ny, i, j, k - 1)] +
         A0[Index3D(nx, ny, i, j + 1, k)] + A0[Index3D(nx, ny, i, j - 1, k)] +
         A0[Index3D(nx, ny, i + 1, j, k)] + A0[Index3D(nx, ny, i - 1, j, k)]) * c1 -
        A0[Index3D(nx, ny, i, j, k)] * c0;
  }
}

__global__ void stencil_regtile(float c0, float c1, const float *A0, float *Anext, int nx,
                                int ny, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1)
    return;
  float bottom = A0[Index3D(nx, ny, i, j, 0)];
  float current = A0[Index3D(nx, ny, i, j, 1)];
  for (int k = 1; k < nz - 1; k++) {
    float top = A0[Index3D(nx, ny, i, j, k + 1)];
    Anext[Index3D(nx, ny, i, j, k)] =
        (top + bottom + A0[Index3D(nx, ny, i, j + 1, k)] + A0[Index3D(nx, ny, i, j - 1, k)] +
         A0[Index3D(nx, ny, i + 1, j, k)] + A0[Index3D(nx, ny, i - 1, j, k)]) * c1 -
        current * c0;
    bottom = current;
    current = top;
  }
}
