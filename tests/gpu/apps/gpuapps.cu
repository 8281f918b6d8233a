// coalcheck gpu: test applications for the GPU backend (scripts/gpu-check.sh).
// Usage: gpuapps <kernel|all> [iterations]   prints "kernel ms_per_iteration" per kernel.
// Every kernel runs once untimed (warm-up) and then `iterations` times between events.
// Expected figures per launch, derived by hand (sm_90 rules of MODELS.md), are written
// beside each kernel; scripts/gpu-compare.py compares coalcheck with ncu, not with these.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "gpuapps: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_),      \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N = 4096;            // transpose: N x N floats
static const int M = 16 << 20;        // gather: M outputs
static const int C = 4 << 20;         // copies: C elements of each size

// Non-zero, position-dependent data (never time on zeros: METHOD.md).
__global__ void init_bytes(uint8_t *p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = (uint8_t)(i * 2654435761u >> 13) | 1;
}

// 32x8 blocks, 4 rows per thread. Per launch: 16384 blocks x 8 warps x 4 = 524,288
// requests each for ld and st. ld: 32 consecutive floats = 128 aligned bytes = 4 sectors
// -> 2,097,152; st: 32 lanes in 32 rows -> 32 sectors -> 16,777,216.
__global__ void transpose_naive(float *out, const float *in, int n)
{
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[x * n + (y + j)] = in[(y + j) * n + x];
}

// out[i] = in[2i], M = 16 M: 524,288 requests each; ld 8 sectors (32 floats over 256 B)
// -> 4,194,304; st 4 sectors -> 2,097,152.
__global__ void gather_stride2(float *out, const float *in, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[2 * i];
}

// Copies of C = 4 M elements: 131,072 requests each for ld and st; sectors per request
// = 32 x size / 32 = size: 1, 2, 4, 8, 16 -> 131,072 .. 2,097,152.
template <typename T> __global__ void copy_t(T *out, const T *in, int c)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < c)
    out[i] = in[i];
}

// Half-warp active: lanes 0..15 load and store 16 consecutive floats = 64 B = 2 sectors.
// C threads -> 131,072 requests each, 262,144 sectors each.
__global__ void divergent_half(float *out, const float *in, int c)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if ((threadIdx.x & 31) < 16 && i < c)
    out[i] = in[i] * 2.0f;
}

// Atomics on 32 consecutive ints per warp (128 B = 4 sectors). C threads -> 131,072
// warp-level atomics. atom_ret keeps the old value (ATOMG), red_add drops it (RED).
__global__ void atom_ret(int *ctr, int *out, int c)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < c)
    out[i] = atomicAdd(&ctr[i % 1024], 1);
}

__global__ void red_add(int *ctr, int c)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < c)
    atomicAdd(&ctr[i % 1024], 1);
}

// Tiled transpose through shared memory, 32x8 blocks. Shared st tile[ty+j][tx]: 32
// consecutive words, no conflict: 524,288 requests, 524,288 wavefronts. Shared ld
// tile[tx][ty+j]: word tx*PITCH + c; PITCH 32: all 32 lanes in one bank, 32 distinct
// words -> 32 wavefronts per request (16,777,216; conflicts 16,252,928); PITCH 33: 32
// different banks -> 1 wavefront (524,288; conflicts 0). Global: ld and st 4 sectors.
template <int PITCH> __global__ void transpose_shared(float *out, const float *in, int n)
{
  __shared__ float tile[32 * PITCH];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[(threadIdx.y + j) * PITCH + threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[(y + j) * n + x] = tile[threadIdx.x * PITCH + threadIdx.y + j];
}

// Strided shared access, 256 threads: word tid*S. S = 2: each bank holds 2 distinct words
// of a warp -> 2 wavefronts per request; S = 32: one bank, 32 words -> 32. C threads ->
// 131,072 requests each for st and ld.
template <int S> __global__ void shared_stride(float *out, const float *in, int c)
{
  __shared__ float s[256 * S];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x * S] = in[i];
  __syncthreads();
  out[i] = s[threadIdx.x * S] + 1.0f;
}

// 8- and 16-byte shared accesses, consecutive: MODELS.md sm_90: 8 B in 2 phases, 16 B in
// 4, no conflict -> wavefronts 2 and 4 per request (ideal), 131,072 requests each.
template <typename T> __global__ void shared_wide(T *out, const T *in, int c)
{
  __shared__ T s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = s[255 - threadIdx.x];
}

// Shared memory only, no global traffic in flight during the loop: 1 st + 32 ld requests
// per warp; word tid ^ k stays inside the warp's 32 words (a permutation): conflict-free,
// wavefronts = requests. C threads -> st 131,072, ld 4,194,304 requests.
__global__ void shared_only(float *out, int c)
{
  __shared__ float s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = (float)threadIdx.x;
  __syncthreads();
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 32; k++)
    acc += s[threadIdx.x ^ k];
  if (i < c)
    out[i] = acc;
}

// ---- local memory (issue 3). Model (src/model/geometry.c cc_model_local_layout, the
// interleaved layout of the CUDA Programming Guide, "Local Memory": "consecutive 32-bit
// words are accessed by consecutive thread IDs"): byte off of a thread's frame lies at
// physical (off / 4) * 128 + lane * 4 + off % 4, in 32-BIT WORDS whatever the access size;
// an access wider than 4 bytes is one request per word (word j 128 j bytes further), and
// sectors are counted as for global memory (32-byte sectors). So word w of lane l is in
// the 128-byte row w, sector 4w + l / 8: two lanes share a sector iff they use the same
// word and l / 8 is the same.
// Measured on the H200 with Nsight Compute (2026-11-22, 2 launches each, so twice the
// per-launch figures below): the 4-byte kernels matched the model exactly;
// local_uniform<double>: ld 524,288 requests / 2,097,152 sectors, st 2,097,152 requests /
// 8,388,608 sectors (the earlier 8-byte-interleave model said 262,144 and 1,048,576
// requests: an 8-byte LDL/STL counts 2 requests); local_probe8: ld 524,288 requests /
// 4,194,304 sectors (the 8-byte-interleave model said 2,097,152 sectors), st 2,097,152 /
// 8,388,608. The 4-byte interleave is confirmed.
// Launch: L = 256 K threads = 1024 blocks x 256 = 8,192 full warps; `#pragma unroll 1`
// and a runtime index keep the array in local memory (cuobjdump -sass shows STL/LDL;
// 4-byte: STL/LDL, 8-byte: STL.64/LDL.64). Each also loads in[i] and stores out[i] once
// (global: 8,192 requests each, 4 sectors for float = 32,768; 8 for double = 65,536).
static const int L = 256 << 10;

// Uniform: every lane stores a[k] (64 stores) and loads a[(k * s) & 63] (16 loads, s a
// runtime argument): all 32 lanes at the same offset -> each 32-bit word of the element
// is 32 consecutive words, one 128-byte row.
// T = float (4 B): 128 aligned bytes = 1 request, 4 sectors:
//   local st 8,192 x 64 = 524,288 requests, 2,097,152 sectors;
//   local ld 8,192 x 16 = 131,072 requests,   524,288 sectors.
// T = double (8 B): element e = words 2e, 2e + 1: rows 256e and 256e + 128, 2 requests x
// 4 sectors = 8 sectors per instruction:
//   local st 1,048,576 requests, 4,194,304 sectors; local ld 262,144 requests, 1,048,576
//   (measured, 2 launches: st 2,097,152 / 8,388,608, ld 524,288 / 2,097,152: equal).
template <typename T> __global__ void local_uniform(T *out, const T *in, int s)
{
  T a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[k] = v + (T)k;
  T acc = 0;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s) & 63];
  out[i] = acc;
}

// Divergent, float: lane l stores a[(5l + k) & 63]: 5 is odd, so l -> 5l mod 64 is one to
// one and the 32 lanes use 32 different words -> 32 different rows -> 32 sectors per
// request. Loads a[(k * s + (l & 3)) & 63]: in each group of 8 lanes (l / 8 equal) l & 3
// takes 4 values -> 4 words -> 4 sectors per group, 4 groups -> 16 sectors per request.
//   local st 524,288 requests, 16,777,216 sectors (32 / request; ideal 4);
//   local ld 131,072 requests,  2,097,152 sectors (16 / request; ideal 4).
__global__ void local_divergent(float *out, const float *in, int s)
{
  float a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  float v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[(lane * 5 + k) & 63] = v + (float)k;
  float acc = 0.0f;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s + (lane & 3)) & 63];
  out[i] = acc;
}

// Probe of the interleave granularity, double: stores a[k] (uniform, as in local_uniform
// <double>: 2 requests x 4 sectors); loads a[(k * s + ((l >> 2) & 1)) & 63]: lanes 0-3
// element e, 4-7 element e + 1, 8-11 e, ... 4-byte interleave (the model now): element e
// of lane l at 256e + 4l (first word) and 256e + 128 + 4l (second word), sectors
// 8e + l / 8 and 8e + 4 + l / 8: per word, each group of 8 lanes touches 2 sectors (e and
// e + 1) -> 8 sectors per request, 2 requests -> 16 sectors per instruction (ideal 8).
// The old 8-byte-interleave model put lane l at 256e + 8l, sector 8e + l / 4: each group
// of 4 lanes 1 sector -> 8 sectors, 1 request.
//   local st 1,048,576 requests, 4,194,304 sectors;
//   local ld 262,144 requests, 2,097,152 sectors (8-byte interleave: 131,072 / 1,048,576).
//   Measured, 2 launches: ld 524,288 / 4,194,304, st 2,097,152 / 8,388,608: the 4-byte
//   interleave is confirmed.
__global__ void local_probe8(double *out, const double *in, int s)
{
  double a[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  double v = in[i];
#pragma unroll 1
  for (int k = 0; k < 64; k++)
    a[k] = v + (double)k;
  double acc = 0.0;
#pragma unroll 1
  for (int k = 0; k < 16; k++)
    acc += a[(k * s + ((lane >> 2) & 1)) & 63];
  out[i] = acc;
}

struct bufs {
  float *a, *b;     // 2 x 128 MiB
  int *ctr;
};

typedef void (*launch_fn)(const bufs &);

static void k_transpose_naive(const bufs &m)
{
  transpose_naive<<<dim3(N / 32, N / 32), dim3(32, 8)>>>(m.b, m.a, N);
}
static void k_gather(const bufs &m) { gather_stride2<<<M / 256, 256>>>(m.b, m.a, M); }
template <typename T> static void k_copy(const bufs &m)
{
  copy_t<T><<<C / 256, 256>>>((T *)m.b, (const T *)m.a, C);
}
static void k_divergent(const bufs &m) { divergent_half<<<C / 256, 256>>>(m.b, m.a, C); }
static void k_atom(const bufs &m) { atom_ret<<<C / 256, 256>>>(m.ctr, (int *)m.b, C); }
static void k_red(const bufs &m) { red_add<<<C / 256, 256>>>(m.ctr, C); }
template <int P> static void k_tshared(const bufs &m)
{
  transpose_shared<P><<<dim3(N / 32, N / 32), dim3(32, 8)>>>(m.b, m.a, N);
}
template <int S> static void k_sstride(const bufs &m)
{
  shared_stride<S><<<C / 256, 256>>>(m.b, m.a, C);
}
template <typename T> static void k_swide(const bufs &m)
{
  shared_wide<T><<<C / 256, 256>>>((T *)m.b, (const T *)m.a, C);
}

static void k_sonly(const bufs &m) { shared_only<<<C / 256, 256>>>(m.b, C); }
template <typename T> static void k_luniform(const bufs &m)
{
  local_uniform<T><<<L / 256, 256>>>((T *)m.b, (const T *)m.a, 7);
}
static void k_ldivergent(const bufs &m) { local_divergent<<<L / 256, 256>>>(m.b, m.a, 7); }
static void k_lprobe8(const bufs &m)
{
  local_probe8<<<L / 256, 256>>>((double *)m.b, (const double *)m.a, 7);
}

static const struct {
  const char *name;
  launch_fn fn;
} kernels[] = {
    {"transpose_naive", k_transpose_naive},
    {"gather_stride2", k_gather},
    {"copy_1", k_copy<uint8_t>},
    {"copy_2", k_copy<uint16_t>},
    {"copy_4", k_copy<float>},
    {"copy_8", k_copy<double>},
    {"copy_16", k_copy<float4>},
    {"divergent_half", k_divergent},
    {"atom_ret", k_atom},
    {"red_add", k_red},
    {"transpose_shared_nopad", k_tshared<32>},
    {"transpose_shared_pad", k_tshared<33>},
    {"shared_stride2", k_sstride<2>},
    {"shared_stride32", k_sstride<32>},
    {"shared_wide8", k_swide<double>},
    {"shared_wide16", k_swide<float4>},
    {"shared_only", k_sonly},
    {"local_uniform4", k_luniform<float>},
    {"local_uniform8", k_luniform<double>},
    {"local_divergent", k_ldivergent},
    {"local_probe8", k_lprobe8},
};

int main(int argc, char **argv)
{
  const char *which = argc > 1 ? argv[1] : "all";
  int iters = argc > 2 ? atoi(argv[2]) : 1;
  bufs m;
  size_t bytes = (size_t)N * N * sizeof(float) * 2; // 128 MiB: gather reads 2 x 16 M floats
  CK(cudaMalloc(&m.a, bytes));
  CK(cudaMalloc(&m.b, bytes));
  CK(cudaMalloc(&m.ctr, 1024 * sizeof(int)));
  CK(cudaMemset(m.ctr, 0, 1024 * sizeof(int)));
  init_bytes<<<1024, 256>>>((uint8_t *)m.a, bytes);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  cudaEvent_t t0, t1;
  CK(cudaEventCreate(&t0));
  CK(cudaEventCreate(&t1));
  int ran = 0;
  for (const auto &k : kernels) {
    if (strcmp(which, "all") != 0 && strcmp(which, k.name) != 0)
      continue;
    k.fn(m); // warm-up
    CK(cudaGetLastError());
    CK(cudaEventRecord(t0));
    for (int i = 0; i < iters; i++)
      k.fn(m);
    CK(cudaEventRecord(t1));
    CK(cudaEventSynchronize(t1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));
    printf("%s %.4f\n", k.name, iters ? ms / iters : 0.0f);
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "gpuapps: unknown kernel '%s'\n", which);
    return 2;
  }
  CK(cudaFree(m.a));
  CK(cudaFree(m.b));
  CK(cudaFree(m.ctr));
  return 0;
}
