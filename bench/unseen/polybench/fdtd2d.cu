// PolyBench/GPU fdtd-2d (v1.0): one time step t (the time loop is on the host) in three
// kernels: ey, ex, hz. One thread per element (j = x, i = y), 32x8 blocks; ex has nx rows
// of ny+1 columns, ey nx+1 rows of ny.
#define DATA_TYPE float

__global__ void fdtd_step1_kernel(DATA_TYPE *_fict_, DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz,
                                  int t, int nx, int ny)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < nx) && (j < ny)) {
    if (i == 0) {
      ey[i * ny + j] = _fict_[t];
    } else {
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
    }
  }
}

__global__ void fdtd_step2_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t, int nx,
                                  int ny)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < nx) && (j < ny) && (j > 0)) {
    ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
  }
}

__global__ void fdtd_step3_kernel(DATA_TYPE *ex, DATA_TYPE *ey, DATA_TYPE *hz, int t, int nx,
                                  int ny)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;

  if ((i < nx) && (j < ny)) {
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
  }
}
