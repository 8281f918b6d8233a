// CUDA samples' fastWalshTransform: fwtBatch1Kernel (one block per vector of N = 2^log2N
// floats in dynamic shared memory, radix-4 butterflies with strides N/4 .. 1, then a
// radix-2 stage when log2N is odd) and fwtBatch2Kernel (one radix-4 stage of stride
// `stride` in global memory, for strides too wide for shared memory: elements i0, i1 =
// i0 + stride, ... of lanes lo = pos & (stride - 1), consecutive). Written for bench/unseen.
__global__ void fwtBatch1Kernel(float *d_Output, const float *d_Input, int log2N)
{
  const int N = 1 << log2N;
  const int base = blockIdx.x << log2N;
  extern __shared__ float s_data[];
  const float *d_Src = d_Input + base;
  float *d_Dst = d_Output + base;
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x)
    s_data[pos] = d_Src[pos];
  int stride = N;
  for (; stride >= 4; stride >>= 2) {
    int lo = 0;
    __syncthreads();
    for (int pos = threadIdx.x; pos < N / 4; pos += blockDim.x) {
      int quarter = stride >> 2;
      lo = pos & (quarter - 1);
      int i0 = ((pos - lo) << 2) + lo;
      int i1 = i0 + quarter, i2 = i1 + quarter, i3 = i2 + quarter;
      float D0 = s_data[i0], D1 = s_data[i1], D2 = s_data[i2], D3 = s_data[i3];
      float T;
      T = D0; D0 = D0 + D2; D2 = T - D2;
      T = D1; D1 = D1 + D3; D3 = T - D3;
      T = D0; s_data[i0] = D0 + D1; s_data[i1] = T - D1;
      T = D2; s_data[i2] = D2 + D3; s_data[i3] = T - D3;
    }
  }
  if (log2N & 1) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < N / 2; pos += blockDim.x) {
      int i0 = pos << 1, i1 = i0 + 1;
      float D0 = s_data[i0], D1 = s_data[i1];
      s_data[i0] = D0 + D1;
      s_data[i1] = D0 - D1;
    }
  }
  __syncthreads();
  for (int pos = threadIdx.x; pos < N; pos += blockDim.x)
    d_Dst[pos] = s_data[pos];
}

__global__ void fwtBatch2Kernel(float *d_Output, const float *d_Input, int stride)
{
  const int pos = blockIdx.x * blockDim.x + threadIdx.x;
  const int N = blockDim.x * gridDim.x * 4;
  const float *d_Src = d_Input + blockIdx.y * N;
  float *d_Dst = d_Output + blockIdx.y * N;
  int lo = pos & (stride - 1);
  int i0 = ((pos - lo) << 2) + lo;
  int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
  float D0 = d_Src[i0], D1 = d_Src[i1], D2 = d_Src[i2], D3 = d_Src[i3];
  float T;
  T = D0; D0 = D0 + D2; D2 = T - D2;
  T = D1; D1 = D1 + D3; D3 = T - D3;
  T = D0; d_Dst[i0] = D0 + D1; d_Dst[i1] = T - D1;
  T = D2; d_Dst[i2] = D2 + D3; d_Dst[i3] = T - D3;
}
