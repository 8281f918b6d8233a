// The device-to-device copy bandwidth that bench/table3.sh's achieved bandwidths are
// compared against: cudaMemcpyDeviceToDevice of MIB MiB, and a copy kernel (one float4 a
// thread) over the same buffers; each run timed with a CUDA event pair after 3 warm-ups,
// the median of RUNS. Bytes counted: read + written (2 x MIB MiB), as bandwidthTest and
// NVIDIA's STREAM-like copy figures do.
//
//   copy_bw [MIB [RUNS]]     (default 1024 MiB, 20 runs)
// Prints TSV rows "copy NAME MEDIAN_MS MIN_MS MAX_MS RUNS BYTES" (the columns of
// bench/table3.sh's device TSV); exit 1 on a CUDA error (the message on stderr).
#include <cstdio>
#include <cstdlib>

#define TOOL "copy_bw"
#include "event_timer.cuh"

__global__ void copy_kernel(float4 *dst, const float4 *src, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// Times `what` (one copy) `runs` times after 3 warm-ups; prints its row.
template <typename F> static void time_row(const char *name, int runs, double bytes, F what)
{
  float t[3];
  time_events(runs, what, t);
  printf("copy\t%s\t%.6f\t%.6f\t%.6f\t%d\t%.0f\tread+written\n", name, t[0], t[1], t[2], runs,
         bytes);
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
  time_row("memcpy_d2d", runs, 2.0 * bytes,
            [&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
  unsigned blocks = (unsigned)((n4 + 255) / 256);
  time_row("copy_kernel", runs, 2.0 * bytes, [&] {
    copy_kernel<<<blocks, 256>>>((float4 *)dst, (const float4 *)src, n4);
  });
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  return 0;
}
