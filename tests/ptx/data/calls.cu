// A kernel calling __noinline__ device functions (call.uni sequences with params).
__device__ __noinline__ float axpy1(float a, float x, float y) { return a * x + y; }
__device__ __noinline__ void store2(double *p, double v, int k) { p[k] = v; p[k + 1] = -v; }
__device__ __noinline__ int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
__global__ void saxpy_calls(float a, const float *x, float *y, double *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = axpy1(a, x[i], y[i]);
    store2(z, (double)y[i], clampi(2 * i, 0, 2 * n - 2));
  }
}
