// FDTD-2D (PolyBench fdtd-2d): per time step three kernels over an NX x NY grid (ey, ex,
// hz updates), 32x8 blocks, coalesced rows: 3 TMAX launches.
#include "common.cuh"

static const int NX = 2048, NY = 2048, TMAX = 200;

__global__ void fdtd_ey(float *ey, const float *hz, const float *fict, int nx, int ny, int t)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= nx || j >= ny)
    return;
  if (i == 0)
    ey[j] = fict[t];
  else
    ey[(size_t)i * ny + j] -= 0.5f * (hz[(size_t)i * ny + j] - hz[(size_t)(i - 1) * ny + j]);
}

__global__ void fdtd_ex(float *ex, const float *hz, int nx, int ny)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j > 0 && j < ny)
    ex[(size_t)i * ny + j] -= 0.5f * (hz[(size_t)i * ny + j] - hz[(size_t)i * ny + j - 1]);
}

__global__ void fdtd_hz(float *hz, const float *ex, const float *ey, int nx, int ny)
{
  int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx - 1 && j < ny - 1)
    hz[(size_t)i * ny + j] -= 0.7f * (ex[(size_t)i * ny + j + 1] - ex[(size_t)i * ny + j] +
                                      ey[(size_t)(i + 1) * ny + j] - ey[(size_t)i * ny + j]);
}

int main()
{
  size_t n = (size_t)NX * NY;
  float *ex = bench_array(n, 1), *ey = bench_array(n, 2), *hz = bench_array(n, 3);
  float *fict = bench_array(TMAX, 4);
  dim3 grid(NY / 32, NX / 8), block(32, 8);
  bench_timer t;
  t.start();
  for (int s = 0; s < TMAX; s++) {
    fdtd_ey<<<grid, block>>>(ey, hz, fict, NX, NY, s);
    fdtd_ex<<<grid, block>>>(ex, hz, NX, NY);
    fdtd_hz<<<grid, block>>>(hz, ex, ey, NX, NY);
    t.launches += 3;
  }
  t.stop("fdtd2d", hz, n);
  return 0;
}
