// The device-to-device copy bandwidth that bench/table3.sh's achieved bandwidths are
// compared against: cudaMemcpyDeviceToDevice of MIB MiB, and a copy kernel (one float4 a
// thread) over the same buffers; each run timed with a CUDA event pair after 3 warm-ups,
// the median of RUNS. Bytes counted: read + written (2 x MIB MiB), as bandwidthTest and
// NVIDIA's STREAM-like copy figures do.
//
//   copy_bw [MIB [RUNS]]     (default 1024 MiB, 20 runs)
// Prints TSV rows "copy NAME MEDIAN_MS MIN_MS MAX_MS RUNS BYTES" (the columns of
// bench/table3.sh's device TSV); exit 1 on a CUDA error (the message on stderr).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "copy_bw: error: %s failed: %s\n", #call, cudaGetErrorString(e_));  \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

__global__ void copy_kernel(float4 *dst, const float4 *src, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// Times `what` (one copy) RUNS times after 3 warm-ups; prints its row.
template <typename F> static void time_rows(const char *name, int runs, double bytes, F what)
{
  cudaEvent_t a, b;
  std::vector<float> ms(runs);
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int r = 0; r < 3 + runs; r++) {
    CHECK(cudaEventRecord(a));
    what();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    if (r >= 3)
      CHECK(cudaEventElapsedTime(&ms[r - 3], a, b));
  }
  CHECK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  printf("copy\t%s\t%.6f\t%.6f\t%.6f\t%d\t%.0f\tread+written\n", name, ms[runs / 2], ms[0], ms[runs - 1], runs,
         bytes);
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  int runs = argc > 2 ? atoi(argv[2]) : 20;
  if (mib < 1 || runs < 1) {
    fprintf(stderr, "usage: copy_bw [MIB [RUNS]]\n");
    return 2;
  }
  size_t bytes = mib << 20, n4 = bytes / sizeof(float4);
  void *src, *dst;
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  CHECK(cudaMemset(dst, 0, bytes));
  time_rows("memcpy_d2d", runs, 2.0 * bytes,
            [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  unsigned blocks = (unsigned)((n4 + 255) / 256);
  time_rows("copy_kernel", runs, 2.0 * bytes, [&] {
    copy_kernel<<<blocks, 256>>>((float4 *)dst, (const float4 *)src, n4);
  });
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 0;
}
