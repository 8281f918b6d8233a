#!/usr/bin/env bash
# coalcheck gpu: measure the device's memory speeds once, for the cache model's time
# estimates (src/cache/estimate.c; `coalcheck --calibration FILE`).
#
#   bash scripts/gpu-calibrate.sh [FILE]     (on the GPU machine; default FILE:
#                                             $OUT/calibration.json, else ./calibration.json)
#
# Builds a small CUDA program with nvcc and times, with CUDA events, on device 0:
#   dram_gbs     a device-to-device copy of 1 GiB (cudaMemcpyDeviceToDevice), best of 10:
#                (bytes read + bytes written) / time, the convention of the estimate's
#                DRAM term ((dram_bytes_read + dram_bytes_written) / dram_gbs)
#   l2_gbs       a copy kernel over 2 x 8 MiB (fits the L2 of every device this targets:
#                H100/H200 50 MiB; smaller L2s get a quarter of theirs), repeated 200 times
#                after a warm-up: (read + written bytes) / time, the L2 term's convention
#   lat_*_ns     one thread chasing pointers through a random cyclic permutation: 16 KiB
#                (L1), half the L2 (L2; loads with ld.global.cg, which skip L1) and 1 GiB
#                (DRAM), 2^20 dependent loads each: time / loads
#   sms, clock_ghz  from the device's attributes
# and writes them as one JSON object (the fields cc_cache_calibrate reads; others are
# informative). Needs nvcc and a GPU; exits 1 with a message when either is missing.
set -u -o pipefail
cd "$(dirname "$0")/.."
FILE=${1:-${OUT:+$OUT/calibration.json}}
FILE=${FILE:-$PWD/calibration.json}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cc-calibrate.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
command -v nvcc >/dev/null || { echo "gpu-calibrate: nvcc not found (put the CUDA toolkit on PATH)"; exit 1; }

cat > "$WORK/calibrate.cu" <<'EOF'
// Memory speeds of device 0 for coalcheck's cache model: see scripts/gpu-calibrate.sh.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <random>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "gpu-calibrate: %s failed: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void copy_kernel(const float4 *in, float4 *out, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

// One thread: follow next[] `steps` times; cg: loads that skip L1 (ld.global.cg).
template <bool cg>
__global__ void chase(const unsigned *next, unsigned steps, unsigned *sink)
{
  unsigned p = 0;
  for (unsigned i = 0; i < steps; i++)
    p = cg ? __ldcg(&next[p]) : next[p];
  *sink = p;
}

static float elapsed_ms(cudaEvent_t a, cudaEvent_t b)
{
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

// ns per dependent load over a random cycle through `bytes` of 4-byte slots, one slot
// per 128-byte line (so that every load is a new line).
static double chase_ns(size_t bytes, bool cg, cudaEvent_t e0, cudaEvent_t e1)
{
  size_t slots = bytes / 4, stride = 32, lines = slots / stride;
  std::vector<unsigned> order(lines), next(slots, 0);
  for (size_t i = 0; i < lines; i++)
    order[i] = (unsigned)(i * stride);
  std::mt19937 rng(12345);
  std::shuffle(order.begin() + 1, order.end(), rng);
  for (size_t i = 0; i < lines; i++)
    next[order[i]] = order[(i + 1) % lines];
  unsigned *d_next, *d_sink;
  CK(cudaMalloc(&d_next, slots * 4));
  CK(cudaMalloc(&d_sink, 4));
  CK(cudaMemcpy(d_next, next.data(), slots * 4, cudaMemcpyHostToDevice));
  const unsigned steps = 1u << 20;
  unsigned warm = (unsigned)std::min<size_t>(lines, steps);  // one lap: fills the caches
  if (cg) chase<true><<<1, 1>>>(d_next, warm, d_sink);
  else chase<false><<<1, 1>>>(d_next, warm, d_sink);
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(e0));
  if (cg) chase<true><<<1, 1>>>(d_next, steps, d_sink);
  else chase<false><<<1, 1>>>(d_next, steps, d_sink);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  double ns = elapsed_ms(e0, e1) * 1e6 / steps;
  CK(cudaFree(d_next));
  CK(cudaFree(d_sink));
  return ns;
}

int main()
{
  int dev = 0, sms = 0, clock_khz = 0, l2 = 0, major = 0, minor = 0;
  cudaDeviceProp prop;
  if (cudaGetDeviceCount(&sms) != cudaSuccess || sms == 0) {
    fprintf(stderr, "gpu-calibrate: no CUDA device\n");
    return 1;
  }
  CK(cudaSetDevice(dev));
  CK(cudaGetDeviceProperties(&prop, dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) != cudaSuccess)
    clock_khz = 0;
  CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // DRAM: device-to-device copy of 1 GiB, best of 10
  size_t big = (size_t)1 << 30;
  void *a, *b;
  CK(cudaMalloc(&a, big));
  CK(cudaMalloc(&b, big));
  CK(cudaMemset(a, 1, big));
  CK(cudaMemset(b, 0, big));
  float best = 1e30f;
  for (int r = 0; r < 10; r++) {
    CK(cudaEventRecord(e0));
    CK(cudaMemcpy(b, a, big, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    best = std::min(best, elapsed_ms(e0, e1));
  }
  double dram_gbs = 2.0 * big / (best * 1e-3) / 1e9;

  // L2: a copy kernel over two buffers that together fit in L2, many times
  size_t half = (size_t)8 << 20;
  if (l2 > 0 && (size_t)l2 / 4 < half)
    half = (size_t)l2 / 4;
  size_t n = half / sizeof(float4);
  int blocks = sms * 8, reps = 200;
  copy_kernel<<<blocks, 256>>>((const float4 *)a, (float4 *)b, n);  // warm-up
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(e0));
  for (int r = 0; r < reps; r++)
    copy_kernel<<<blocks, 256>>>((const float4 *)a, (float4 *)b, n);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CK(cudaGetLastError());
  double l2_gbs = 2.0 * half * reps / (elapsed_ms(e0, e1) * 1e-3) / 1e9;
  CK(cudaFree(a));
  CK(cudaFree(b));

  double lat_l1 = chase_ns((size_t)16 << 10, false, e0, e1);
  double lat_l2 = chase_ns((size_t)(l2 > 0 ? l2 / 2 : 1 << 20), true, e0, e1);
  double lat_dram = chase_ns((size_t)1 << 30, true, e0, e1);

  printf("{\n  \"tool\": \"scripts/gpu-calibrate.sh\",\n  \"device\": \"%s\",\n"
         "  \"compute_capability\": \"%d.%d\",\n  \"sms\": %d,\n  \"l2_bytes\": %d,\n",
         prop.name, major, minor, sms, l2);
  if (clock_khz > 0)
    printf("  \"clock_ghz\": %.4f,\n", clock_khz / 1e6);
  printf("  \"dram_gbs\": %.1f,\n  \"l2_gbs\": %.1f,\n  \"lat_l1_ns\": %.2f,\n"
         "  \"lat_l2_ns\": %.2f,\n  \"lat_dram_ns\": %.2f,\n"
         "  \"method\": \"dram: cudaMemcpy D2D 1 GiB best of 10, (read+write)/time; l2: copy "
         "kernel 2 x %zu bytes x %d, (read+write)/time; latencies: pointer chase, 1 thread, "
         "2^20 loads, one per 128-byte line\"\n}\n",
         dram_gbs, l2_gbs, lat_l1, lat_l2, lat_dram, half, reps);
  return 0;
}
EOF

echo "== gpu-calibrate: building"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || true
if ! nvcc -O3 -std=c++17 -o "$WORK/calibrate" "$WORK/calibrate.cu" > "$WORK/build.log" 2>&1; then
  echo "gpu-calibrate: nvcc failed:"; cat "$WORK/build.log"; exit 1
fi
echo "== gpu-calibrate: measuring (about half a minute)"
if ! timeout 300 "$WORK/calibrate" > "$WORK/calibration.json"; then
  echo "gpu-calibrate: the measurement failed (no GPU, or see the message above)"; exit 1
fi
mkdir -p "$(dirname "$FILE")"
cp "$WORK/calibration.json" "$FILE"
cat "$FILE"
echo "== gpu-calibrate: wrote $FILE (use: coalcheck --calibration $FILE ...)"
