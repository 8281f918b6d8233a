// Local memory: a per-thread array that nvcc cannot keep in registers (runtime indices,
// `#pragma unroll 1`), so every access is ld.local / st.local (SASS LDL / STL).
//
// Model (every architecture, docs/json-schema.md "local memory"; src/model/geometry.c):
// local memory is interleaved per lane in 32-bit words, whatever the access size (CUDA C
// Programming Guide, "Local Memory": "consecutive 32-bit words are accessed by consecutive
// thread IDs"; confirmed on the H200 with Nsight Compute, tests/gpu/apps/gpuapps.cu).
// Byte off of a thread's frame lies at (off / 4) * 128 + lane * 4 + off % 4, and sectors
// are counted on those addresses as for global memory: word w of lane l lies in the
// 128-byte row w at byte 4l, i.e. in sector 4w + l / 8; two lanes share a sector iff they
// use the same word and the same l / 8. An 8-byte access (element e = words 2e, 2e + 1)
// is 2 requests, one per word, the second word 128 bytes after the first.
// The array is the first thing in the thread's frame (.local .align 4 / 8 depot, offset 0).
//
// Pattern and expected figures (sm_90 model, n = 8192 threads = 32 CTAs x 256 = 256 full
// warps; each thread 64 stores, then 16 loads with s = 7):
//   local_uniform (float a[64], a[k], a[(k * s) & 63]): all lanes at one word -> 32
//     consecutive words of one 128-byte row = 4 sectors (ideal 4).
//     st.local 256 x 64 = 16384 requests, 65536 sectors; ld.local 4096 requests, 16384.
//   local_uniform8 (double a[64]): rows 2e and 2e + 1, 2 requests x 4 sectors = 8 sectors
//     per instruction (ideal 8).
//     st.local 32768 requests, 131072 sectors; ld.local 8192 requests, 32768 sectors.
//   local_divergent (float): store a[(5l + k) & 63]: 5 is odd, so the 32 lanes use 32
//     different words = 32 rows -> 32 sectors (ideal 4): 16384 requests, 524288 sectors.
//     Load a[(k * s + (l & 3)) & 63]: in each group of 8 lanes (same l / 8) l & 3 takes 4
//     values -> 4 words -> 4 sectors per group, 4 groups -> 16 sectors (ideal 4):
//     4096 requests, 65536 sectors.
// The same kernels run on the GPU in tests/gpu/apps/gpuapps.cu (local_uniform4/8,
// local_divergent), where Nsight Compute's l1tex__t_sectors_pipe_lsu_mem_local_op_* are
// the hardware's figures.
__global__ void local_uniform(float *out, const float *in, int s, int n)
{
  float a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[k] = v + (float)k; // uniform store
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s) & 63]; // uniform load
  out[i] = acc;
}

__global__ void local_uniform8(double *out, const double *in, int s, int n)
{
  double a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[k] = v + (double)k; // uniform store
  double acc = 0.0;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s) & 63]; // uniform load
  out[i] = acc;
}

__global__ void local_divergent(float *out, const float *in, int s, int n)
{
  float a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  if (i >= n)
    return;
  float v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[(lane * 5 + k) & 63] = v + (float)k; // scattered store
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s + (lane & 3)) & 63]; // 4 words per 8 lanes
  out[i] = acc;
}
