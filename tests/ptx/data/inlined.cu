// Inlined helpers (.loc with inlined_at), a constant table and __ldg reads.
__constant__ float coef[4] = {0.25f, 0.5f, 0.25f, 1.0f};
__device__ int gcounter = 7;
__device__ __forceinline__ int clamp_idx(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
__device__ __forceinline__ float stencil_at(const float *__restrict__ in, int i, int n) {
  return coef[0] * __ldg(&in[clamp_idx(i - 1, n)]) + coef[1] * __ldg(&in[clamp_idx(i, n)]) +
         coef[2] * __ldg(&in[clamp_idx(i + 1, n)]);
}
__global__ void __launch_bounds__(256, 2) stencil3(const float *__restrict__ in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = stencil_at(in, i, n) * coef[3] + (float)gcounter;
}
__global__ void rowsum(const double *a, double *s, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  double acc = 0.0;
  for (int c = 0; c < n; c++) acc += a[r * n + c];
  s[r] = acc;
}
