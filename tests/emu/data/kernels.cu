// Kernels for tests/emu/test_emu_nvcc.c: compiled at test time with
// nvcc -ptx -arch=sm_90 -lineinfo, run by the emulator, checked against C references
// written in the test. extern "C" keeps the PTX names plain.

// shared-memory tree reduction with __syncthreads in a loop
extern "C" __global__ void block_sum(const int *in, int *out, int n)
{
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// warp shuffle reduction, then one atomic per warp
extern "C" __global__ void warp_sum(const int *in, int *out)
{
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// grid-stride histogram: shared atomics, then global atomics
extern "C" __global__ void histogram(const unsigned char *in, unsigned *bins, int n)
{
  __shared__ unsigned h[16];
  if (threadIdx.x < 16) h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[in[i] & 15], 1u);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}

// per-lane trip counts in a called function
__device__ __noinline__ int collatz(int x)
{
  int s = 0;
  while (x != 1) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    s++;
  }
  return s;
}

extern "C" __global__ void steps(int *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = collatz(i + 1);
}

// tiled transpose through padded shared memory (32 x 8 threads per 32 x 32 tile)
extern "C" __global__ void transpose(float *out, const float *in, int w, int h)
{
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

// a local array indexed dynamically (local memory), IEEE-exact float ops, ballot
extern "C" __global__ void mixed(const float *a, const float *b, float *out, unsigned *ball,
                                 int k)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float loc[16];
  for (int j = 0; j < 16; j++) loc[j] = a[(i + j) % 64];
  out[i] = sqrtf(loc[(i * 7 + k) % 16]) / (b[i] + 1.0f);
  unsigned m = __ballot_sync(0xffffffffu, (threadIdx.x % 3) == 0);
  if ((threadIdx.x & 31) == 0) ball[i / 32] = m;
}

// early return before __syncthreads: with n not a multiple of 32 a warp splits there (its
// lanes i >= n return, the others reach the barrier); the barrier orders the shared-memory
// writes of one warp before the neighbour reads of the other
extern "C" __global__ void early_return_sync(const int *in, int *out, int n)
{
  __shared__ int s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  s[t] = in[i] * 10;
  __syncthreads();
  int nb = (t + 1 < blockDim.x && i + 1 < n) ? s[t + 1] : -1;
  out[i] = s[t] + nb;
}
