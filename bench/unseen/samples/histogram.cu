// CUDA samples' histogram: histogram256Kernel (per-warp sub-histograms of 256 bins in
// shared memory, each input word's four bytes counted with shared atomics, 6 warps a
// block; then the block's warps summed into d_PartialHistograms[blockIdx.x * 256 + bin])
// and mergeHistogram256Kernel (one block per bin, reading the partial histograms of that
// bin: d_PartialHistograms[bin + i * 256], i over the blocks, lanes 1 KiB apart, then a
// shared tree). histogram64Kernel: per-thread byte counters for 64 bins in shared memory,
// laid out bin-major with the thread index shuffled against bank conflicts, as the
// sample's threadPos. Written for bench/unseen.
#define HISTOGRAM256_BIN_COUNT 256
#define LOG2_WARP_SIZE 5
#define WARP_COUNT 6
#define HISTOGRAM256_THREADBLOCK_SIZE (WARP_COUNT * 32)
#define MERGE_THREADBLOCK_SIZE 256
#define HISTOGRAM64_BIN_COUNT 64
#define HISTOGRAM64_THREADBLOCK_SIZE 64

__device__ void addByte(unsigned int *s_WarpHist, unsigned int data)
{
  atomicAdd(s_WarpHist + data, 1);
}

__device__ void addWord(unsigned int *s_WarpHist, unsigned int data)
{
  addByte(s_WarpHist, (data >> 0) & 0xFFU);
  addByte(s_WarpHist, (data >> 8) & 0xFFU);
  addByte(s_WarpHist, (data >> 16) & 0xFFU);
  addByte(s_WarpHist, (data >> 24) & 0xFFU);
}

__global__ void histogram256Kernel(unsigned int *d_PartialHistograms, const unsigned int *d_Data,
                                   unsigned int dataCount)
{
  __shared__ unsigned int s_Hist[WARP_COUNT * HISTOGRAM256_BIN_COUNT];
  unsigned int *s_WarpHist = s_Hist + (threadIdx.x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;
  for (unsigned int i = 0; i < (HISTOGRAM256_BIN_COUNT / WARP_COUNT) + 1; i++)
    if (threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE < WARP_COUNT * HISTOGRAM256_BIN_COUNT)
      s_Hist[threadIdx.x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
  __syncthreads();
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x)
    addWord(s_WarpHist, d_Data[pos]);
  __syncthreads();
  for (unsigned int bin = threadIdx.x; bin < HISTOGRAM256_BIN_COUNT; bin += HISTOGRAM256_THREADBLOCK_SIZE) {
    unsigned int sum = 0;
    for (unsigned int i = 0; i < WARP_COUNT; i++)
      sum += s_Hist[bin + i * HISTOGRAM256_BIN_COUNT];
    d_PartialHistograms[blockIdx.x * HISTOGRAM256_BIN_COUNT + bin] = sum;
  }
}

__global__ void mergeHistogram256Kernel(unsigned int *d_Histogram,
                                        const unsigned int *d_PartialHistograms,
                                        unsigned int histogramCount)
{
  __shared__ unsigned int data[MERGE_THREADBLOCK_SIZE];
  unsigned int sum = 0;
  for (unsigned int i = threadIdx.x; i < histogramCount; i += MERGE_THREADBLOCK_SIZE)
    sum += d_PartialHistograms[blockIdx.x + i * HISTOGRAM256_BIN_COUNT];
  data[threadIdx.x] = sum;
  for (unsigned int stride = MERGE_THREADBLOCK_SIZE / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride)
      data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0)
    d_Histogram[blockIdx.x] = data[0];
}

__global__ void histogram64Kernel(unsigned int *d_PartialHistograms, const unsigned int *d_Data,
                                  unsigned int dataCount)
{
  // per-thread byte counters, bin-major: s_Hist[bin * 64 + threadPos]
  __shared__ unsigned char s_Hist[HISTOGRAM64_THREADBLOCK_SIZE * HISTOGRAM64_BIN_COUNT];
  const unsigned int threadPos = ((threadIdx.x & ~(16 * 4 - 1)) << 0) |
                                 ((threadIdx.x & (16 - 1)) << 2) | ((threadIdx.x & (16 * 3)) >> 4);
  for (unsigned int i = 0; i < HISTOGRAM64_BIN_COUNT; i++)
    s_Hist[threadIdx.x + i * HISTOGRAM64_THREADBLOCK_SIZE] = 0;
  __syncthreads();
  for (unsigned int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount;
       pos += blockDim.x * gridDim.x) {
    unsigned int data = d_Data[pos];
    s_Hist[threadPos + ((data >> 2) & 0x3FU) * HISTOGRAM64_THREADBLOCK_SIZE]++;
    s_Hist[threadPos + ((data >> 10) & 0x3FU) * HISTOGRAM64_THREADBLOCK_SIZE]++;
    s_Hist[threadPos + ((data >> 18) & 0x3FU) * HISTOGRAM64_THREADBLOCK_SIZE]++;
    s_Hist[threadPos + ((data >> 26) & 0x3FU) * HISTOGRAM64_THREADBLOCK_SIZE]++;
  }
  __syncthreads();
  if (threadIdx.x < HISTOGRAM64_BIN_COUNT) {
    unsigned int sum = 0;
    for (unsigned int i = 0; i < HISTOGRAM64_THREADBLOCK_SIZE; i++)
      sum += s_Hist[threadIdx.x * HISTOGRAM64_THREADBLOCK_SIZE + ((i + threadIdx.x) % HISTOGRAM64_THREADBLOCK_SIZE)];
    d_PartialHistograms[blockIdx.x * HISTOGRAM64_BIN_COUNT + threadIdx.x] = sum;
  }
}
