// Warp-shuffle reduction with atomics, votes and a dynamic shared buffer.
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
__device__ __forceinline__ int warp_max(int v) {
  for (int o = 1; o < 32; o <<= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
extern __shared__ float partial[];
__global__ void reduce_sum(const float *in, float *out, int *count, unsigned *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_sum(v);
  unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(out, v);
  }
  unsigned b = __ballot_sync(0xffffffffu, v > 1.0f);
  if (__any_sync(0xffffffffu, v < 0.0f)) atomicOr(flags, b);
  if (__all_sync(0xffffffffu, i < n)) atomicInc((unsigned *)count, 1000u);
  int m = warp_max(i);
  atomicMax(count + 1, m);
  atomicMin(count + 2, m);
  atomicExch(count + 3, m);
  atomicCAS(count + 4, 0, m);
  atomicAdd((unsigned long long *)(flags + 8), 1ull);
  atomicAdd((double *)(flags + 16), 1.0);
  __shared__ int hist[32];
  if (threadIdx.x < 32) hist[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&hist[i & 31], 1);
  unsigned peers = __match_any_sync(__activemask(), i & 3);
  __syncthreads();
  if (threadIdx.x < 32) count[8 + threadIdx.x] = hist[threadIdx.x] + __popc(peers) + __shfl_sync(0xffffffffu, m, 3) + __shfl_up_sync(0xffffffffu, m, 1);
}
