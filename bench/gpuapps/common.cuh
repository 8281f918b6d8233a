// coalcheck bench: what every app of bench/gpuapps/ shares (bench/gpu-overhead.sh).
// Each app fills its arrays on the device (non-zero, position-dependent: METHOD.md), then
// times its own kernels with CUDA events around the timed region (every launch of the
// region, the gaps between them included: what a user's own timer sees) and prints one
// line "APP kernel_ms=T launches=L" on stdout, and a checksum so that the work is used.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "%s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__,    \
              __LINE__);                                                                  \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

__global__ void bench_fill(float *p, size_t n, uint32_t seed)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = 0.5f + (float)(((uint32_t)i * 2654435761u + seed) >> 20) / 4096.0f;
}

static float *bench_array(size_t n, uint32_t seed)
{
  float *p;
  CK(cudaMalloc(&p, n * sizeof(float)));
  bench_fill<<<1024, 256>>>(p, n, seed);
  CK(cudaGetLastError());
  return p;
}

// Events around the timed region.
struct bench_timer {
  cudaEvent_t a, b;
  int launches = 0;
  void start()
  {
    CK(cudaDeviceSynchronize());
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
  }
  void stop(const char *app, const float *check, size_t n)
  {
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    float h[4] = {0, 0, 0, 0};
    CK(cudaMemcpy(h, check + n / 2, sizeof h, cudaMemcpyDeviceToHost));
    printf("%s kernel_ms=%.3f launches=%d check=%g\n", app, ms, launches,
           (double)(h[0] + h[1] + h[2] + h[3]));
  }
};
