// Kernels for tests/e2e/fix_loads_first.sh: the loads-first plays (src/cuda/plays.h) of a
// reshaped permutation: one kernel that takes them, one whose kept values would exceed the
// cost rule's budget, one for which they are illegal.

// y += a x over the rows of a matrix, with the geometry mistake (the row i from x): two
// loads (x and y's old value), one store, each element touched by one thread.
__global__ void axpy_rows(float *y, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    y[i * n + j] += a * x[i * n + j];
}

// PolyBench fdtd-2d's step 3 (bench/unseen/polybench/fdtd2d.cu) with the geometry
// mistake: i, the row, from x, so a warp's 32 lanes touch 32 rows. Five loads, one store,
// every element touched by one thread only: loads first is legal, but 5 values a play.
__global__ void hz_step(float *ex, float *ey, float *hz, int nx, int ny)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if ((i < nx) && (j < ny)) {
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]);
  }
}

// Two statements, the second reading the element of b the first wrote in the same
// thread: a value kept before the stores would be stale, so the plays stay one after the
// other.
__global__ void raw_step(float *a, float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    b[i * n + j] = a[i * n + j] * 2.0f;
    a[i * n + j] = b[i * n + j] + 1.0f;
  }
}

// axpy_rows with every index one element on: y[i*n + j + 1] starts at 4 k + 1 where j =
// 4 k, so the vector plays (16-byte aligned accesses) do not apply; the loads-first plays
// do (two loads a play).
__global__ void axpy_off(float *y, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n)
    y[i * n + j + 1] += a * x[i * n + j + 1];
}
