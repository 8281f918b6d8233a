// Shared by copy_bw.cu and cublas_gemv.cu: CUDA error checks and the timing rule of
// bench/table3.sh (3 warm-ups, then each run between a CUDA event pair on the default
// stream; the median, minimum and maximum in ms), the same as coalcheck-gpu-launch's `time`
// directive (src/gpu/launch.c) that times the kernels.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      fprintf(stderr, "%s: error: %s failed: %s\n", TOOL, #call, cudaGetErrorString(e_));   \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

// Median, min and max (out[0..2], ms) of `runs` timed calls of `what` after 3 warm-ups.
template <typename F> static void time_events(int runs, F what, float out[3])
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
  out[0] = ms[runs / 2], out[1] = ms[0], out[2] = ms[runs - 1];
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
}
