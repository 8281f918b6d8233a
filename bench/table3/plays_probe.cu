// What lets the permuted fan2 and cell3d with plays (bench/results/table3-h100.md, "plays")
// reach 80% of the 1 GiB copy: each hand-written variant of the fixed kernels tests one
// hypothesis, timed in one run against cudaMemcpy of 1 GiB and of 64 MiB (the cases'
// buffers) and a float4 copy kernel of 64 MiB:
//   fixed      the reshaped permutation, one element a thread (block 256x1)
//   seq_K      K plays a thread along y, one after the other (what coalcheck wrote up to
//              session 7): play q+1's loads wait for play q's store (nvcc may not reorder)
//   seqr_K     the same with __restrict__ on every pointer parameter
//   seqldg_K   the same with the read-only arrays read by __ldg (ld.global.nc)
//   two_K      the two-phase plays (loads first, src/cuda/plays.c without its read-once
//              loads, twou_K below): phase A runs every
//              play's body with its stores dropped and its loads kept in registers,
//              phase B runs every play's body again with the kept values; no restrict
//   two_K_bB   the same with a block of B threads
//   twou_K     two-phase, the loads whose index is the same in every play read once (by
//              the first play that reaches them), as src/cuda/plays.c writes it
//   twox_4     two-phase, 4 plays along x instead of y
//   twoldg_4   two-phase with __ldg for the read-only arrays
//   vec4       hand-vectorised: 4 consecutive elements a thread, float4 (not general)
// Every variant's output is compared bitwise with `fixed`'s on fresh inputs first.
// Rows: "probe NAME MEDIAN_MS MIN_MS MAX_MS RUNS BYTES GB/s %1GiB %64MiB CHECK".
//
//   nvcc -O3 -arch=sm_90 -std=c++17 -o plays_probe plays_probe.cu && ./plays_probe [RUNS]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define TOOL "plays_probe"
#include "event_timer.cuh"

static int runs = 50;
static double copy1g = 0, copy64m = 0; // GB/s, measured first

__global__ void fill(float *p, size_t n, uint32_t seed)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = (float)(h & 0xffff) / 65536.0f;
  }
}

__global__ void copy4(float4 *dst, const float4 *src, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// ---- cell3d: evolve_zfast after x<->z and the reshape (block 256x1, grid (1, 256, 256)) ----
__global__ void cell_fixed(float *out, const float *in, int nx, int ny, int nz)
{
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    out[c] = in[c] * 0.5f + 0.5f;
  }
}

#define CELL_BODY(OUT, IN)                                                                 \
  int k = b.z * blockDim.z + threadIdx.z;                                                  \
  int j = b.y * blockDim.y + threadIdx.y;                                                  \
  int i = b.x * blockDim.x + threadIdx.x;                                                  \
  if (i < nx && j < ny && k < nz) {                                                        \
    size_t c = ((size_t)k * ny + j) * nx + i;                                              \
    OUT = IN * 0.5f + 0.5f;                                                                \
  }

template <int K> __global__ void cell_seq(float *out, const float *in, int nx, int ny, int nz)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    CELL_BODY(out[c], in[c])
  }
}

template <int K>
__global__ void cell_seqr(float *__restrict__ out, const float *__restrict__ in, int nx, int ny,
                          int nz)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    CELL_BODY(out[c], in[c])
  }
}

template <int K>
__global__ void cell_seqldg(float *out, const float *in, int nx, int ny, int nz)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    CELL_BODY(out[c], __ldg(&in[c]))
  }
}

// the two-phase plays as src/cuda/plays.c writes them (played dimension D: 0 x, 1 y)
template <int K, int D, int LDG>
__global__ void cell_two(float *out, const float *in, int nx, int ny, int nz)
{
  float v0[K];
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(D == 0 ? blockIdx.x * K + q : blockIdx.x,
                               D == 1 ? blockIdx.y * K + q : blockIdx.y, blockIdx.z);
    {
      int k = b.z * blockDim.z + threadIdx.z;
      int j = b.y * blockDim.y + threadIdx.y;
      int i = b.x * blockDim.x + threadIdx.x;
      if (i < nx && j < ny && k < nz) {
        size_t c = ((size_t)k * ny + j) * nx + i;
        (void)((v0[q] = LDG ? __ldg(&in[c]) : in[c]) * 0.5f + 0.5f);
      }
    }
  }
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(D == 0 ? blockIdx.x * K + q : blockIdx.x,
                               D == 1 ? blockIdx.y * K + q : blockIdx.y, blockIdx.z);
    CELL_BODY(out[c], v0[q])
  }
}

__global__ void cell_vec4(float *out, const float *in, int nx, int ny, int nz)
{
  int k = blockIdx.z, j = blockIdx.y, i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    float4 v = *(const float4 *)&in[c];
    v.x = v.x * 0.5f + 0.5f, v.y = v.y * 0.5f + 0.5f, v.z = v.z * 0.5f + 0.5f,
    v.w = v.w * 0.5f + 0.5f;
    *(float4 *)&out[c] = v;
  }
}

// ---- fan2 after x<->y and the reshape (block 256x1, grid (16, 4096)), t = 0 ----
__global__ void fan2_fixed(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - 1 - t) return;
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - t) return;
  int xidx = blockIdx.y * blockDim.y + threadIdx.y;
  int yidx = blockIdx.x * blockDim.x + threadIdx.x;
  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0) {
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
  }
}

#define FAN2_SEQ_BODY(LDM)                                                                 \
  if (threadIdx.y + b.y * blockDim.y >= Size - 1 - t) continue;                            \
  if (threadIdx.x + b.x * blockDim.x >= Size - t) continue;                                \
  int xidx = b.y * blockDim.y + threadIdx.y;                                               \
  int yidx = b.x * blockDim.x + threadIdx.x;                                               \
  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= LDM(m_cuda[Size * (xidx + 1 + t) + t]) * a_cuda[Size * t + (yidx + t)]; \
  if (yidx == 0) {                                                                         \
    b_cuda[xidx + 1 + t] -= LDM(m_cuda[Size * (xidx + 1 + t) + (yidx + t)]) * b_cuda[t];   \
  }
#define PLAIN(x) (x)
#define LDG(x) __ldg(&(x))

template <int K>
__global__ void fan2_seq(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    FAN2_SEQ_BODY(PLAIN)
  }
}

template <int K>
__global__ void fan2_seqr(float *__restrict__ m_cuda, float *__restrict__ a_cuda,
                          float *__restrict__ b_cuda, int Size, int j1, int t)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    FAN2_SEQ_BODY(PLAIN)
  }
}

template <int K>
__global__ void fan2_seqldg(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(blockIdx.x, blockIdx.y * K + q, blockIdx.z);
    FAN2_SEQ_BODY(LDG)
  }
}

// two-phase: phase A keeps the 6 loads of each play (v0..v5), drops the two stores; with
// U, the two loads whose index is the same in every play (row t: a[t][yidx + t], b[t])
// are read once, by the first play that reaches them (what src/cuda/plays.c writes)
template <int K, int D, int LDGM, int U = 0>
__global__ void fan2_two(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
  float v0[K], v1[K], v2[K], v3[K], v4[K], v5[K], u2 = 0, u5 = 0;
  bool u2_ok = false, u5_ok = false;
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(D == 0 ? blockIdx.x * K + q : blockIdx.x,
                               D == 1 ? blockIdx.y * K + q : blockIdx.y, blockIdx.z);
    {
      if (threadIdx.y + b.y * blockDim.y >= Size - 1 - t) goto loaded;
      if (threadIdx.x + b.x * blockDim.x >= Size - t) goto loaded;
      {
        int xidx = b.y * blockDim.y + threadIdx.y;
        int yidx = b.x * blockDim.x + threadIdx.x;
        (v0[q] = a_cuda[Size * (xidx + 1 + t) + (yidx + t)],
         (void)((v1[q] = LDGM ? __ldg(&m_cuda[Size * (xidx + 1 + t) + t]) : m_cuda[Size * (xidx + 1 + t) + t]) *
                (U ? (u2_ok ? u2 : (u2_ok = true, u2 = a_cuda[Size * t + (yidx + t)]))
                   : (v2[q] = a_cuda[Size * t + (yidx + t)]))));
        if (yidx == 0) {
          (v3[q] = b_cuda[xidx + 1 + t],
           (void)((v4[q] = LDGM ? __ldg(&m_cuda[Size * (xidx + 1 + t) + (yidx + t)]) : m_cuda[Size * (xidx + 1 + t) + (yidx + t)]) *
                  (U ? (u5_ok ? u5 : (u5_ok = true, u5 = b_cuda[t])) : (v5[q] = b_cuda[t]))));
        }
      }
    }
  loaded:;
  }
#pragma unroll
  for (unsigned q = 0; q < K; q++) {
    const uint3 b = make_uint3(D == 0 ? blockIdx.x * K + q : blockIdx.x,
                               D == 1 ? blockIdx.y * K + q : blockIdx.y, blockIdx.z);
    {
      if (threadIdx.y + b.y * blockDim.y >= Size - 1 - t) goto played;
      if (threadIdx.x + b.x * blockDim.x >= Size - t) goto played;
      {
        int xidx = b.y * blockDim.y + threadIdx.y;
        int yidx = b.x * blockDim.x + threadIdx.x;
        a_cuda[Size * (xidx + 1 + t) + (yidx + t)] = v0[q] - (v1[q] * (U ? u2 : v2[q]));
        if (yidx == 0) {
          b_cuda[xidx + 1 + t] = v3[q] - (v4[q] * (U ? u5 : v5[q]));
        }
      }
    }
  played:;
  }
}

// 4 consecutive columns a thread (float4; Size - t a multiple of 4, t = 0)
__global__ void fan2_vec4(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
  int xidx = blockIdx.y;
  int y0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (xidx >= Size - 1 - t || y0 >= Size - t) return;
  float m = m_cuda[Size * (xidx + 1 + t) + t];
  float4 p = *(const float4 *)&a_cuda[Size * t + y0 + t];
  float4 *r = (float4 *)&a_cuda[Size * (xidx + 1 + t) + y0 + t];
  float4 v = *r;
  v.x -= m * p.x, v.y -= m * p.y, v.z -= m * p.z, v.w -= m * p.w;
  *r = v;
  if (y0 == 0)
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t)] * b_cuda[t];
}

// ---- the harness ----
struct buf {
  float *d;
  size_t n;
};

// One row: the check (bitwise against the reference output ref after a run on fresh
// inputs: restore() then what() once), then the timing.
template <typename R, typename F>
static void row(const char *name, double bytes, R restore, F what, const buf &res,
                const std::vector<float> *ref)
{
  const char *check = "-";
  if (ref) {
    restore();
    what();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> h(res.n);
    CHECK(cudaMemcpy(h.data(), res.d, res.n * 4, cudaMemcpyDeviceToHost));
    check = memcmp(h.data(), ref->data(), res.n * 4) == 0 ? "bitwise" : "DIFFERS";
  }
  float t[3];
  time_events(runs, what, t);
  double gbs = bytes / t[0] / 1e6;
  printf("probe\t%s\t%.6f\t%.6f\t%.6f\t%d\t%.0f\t%.0f\t%.1f\t%.1f\t%s\n", name, t[0], t[1], t[2],
         runs, bytes, gbs, copy1g ? 100 * gbs / copy1g : 0, copy64m ? 100 * gbs / copy64m : 0,
         check);
  fflush(stdout);
}

static std::vector<float> host_of(const buf &b)
{
  std::vector<float> h(b.n);
  CHECK(cudaMemcpy(h.data(), b.d, b.n * 4, cudaMemcpyDeviceToHost));
  return h;
}

int main(int argc, char **argv)
{
  if (argc > 1) runs = atoi(argv[1]);
  const int N = 4096, C = 256;
  const size_t n2 = (size_t)N * N, n3 = (size_t)C * C * C, g1 = (size_t)1 << 28;
  float *a, *a0, *m, *bb, *bb0, *cin, *cout, *big0, *big1;
  CHECK(cudaMalloc(&big0, g1 * 4));
  CHECK(cudaMalloc(&big1, g1 * 4));
  CHECK(cudaMemset(big0, 1, g1 * 4));
  float t[3];
  time_events(runs, [&] { CHECK(cudaMemcpyAsync(big1, big0, g1 * 4, cudaMemcpyDeviceToDevice)); }, t);
  copy1g = 2.0 * g1 * 4 / t[0] / 1e6;
  printf("probe\tmemcpy_1GiB\t%.6f\t%.6f\t%.6f\t%d\t%.0f\t%.0f\t100.0\t-\t-\n", t[0], t[1], t[2],
         runs, 2.0 * g1 * 4, copy1g);
  CHECK(cudaFree(big0));
  CHECK(cudaFree(big1));
  CHECK(cudaMalloc(&a, n2 * 4));
  CHECK(cudaMalloc(&a0, n2 * 4));
  CHECK(cudaMalloc(&m, n2 * 4));
  CHECK(cudaMalloc(&bb, N * 4));
  CHECK(cudaMalloc(&bb0, N * 4));
  CHECK(cudaMalloc(&cin, n3 * 4));
  CHECK(cudaMalloc(&cout, n3 * 4));
  fill<<<1024, 256>>>(a0, n2, 1);
  fill<<<1024, 256>>>(m, n2, 3);
  fill<<<16, 256>>>(bb0, N, 4);
  fill<<<1024, 256>>>(cin, n3, 5);
  CHECK(cudaDeviceSynchronize());
  const double cp = 2.0 * n2 * 4;
  time_events(runs, [&] { CHECK(cudaMemcpyAsync(a, a0, n2 * 4, cudaMemcpyDeviceToDevice)); }, t);
  copy64m = cp / t[0] / 1e6;
  printf("probe\tmemcpy_64MiB\t%.6f\t%.6f\t%.6f\t%d\t%.0f\t%.0f\t%.1f\t100.0\t-\n", t[0], t[1],
         t[2], runs, cp, copy64m, 100 * copy64m / copy1g);
  auto none = [] {};
  row("copy4_64MiB", cp, none, [&] { copy4<<<n2 / 4 / 256, 256>>>((float4 *)a, (const float4 *)a0, n2 / 4); },
      buf{a, n2}, nullptr);

  // cell3d
  const double cb = 2.0 * n3 * 4;
  buf co{cout, n3};
  CHECK(cudaMemset(cout, 0, n3 * 4));
  cell_fixed<<<dim3(1, C, C), 256>>>(cout, cin, C, C, C);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> cref = host_of(co);
  auto crestore = [&] { CHECK(cudaMemset(cout, 0, n3 * 4)); };
#define CROW(NAME, LAUNCH) row(NAME, cb, crestore, [&] { LAUNCH; }, co, &cref)
  CROW("cell3d_fixed", (cell_fixed<<<dim3(1, C, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_seq_4", (cell_seq<4><<<dim3(1, C / 4, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_seqr_4", (cell_seqr<4><<<dim3(1, C / 4, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_seqldg_4", (cell_seqldg<4><<<dim3(1, C / 4, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_two_2", (cell_two<2, 1, 0><<<dim3(1, C / 2, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_two_4", (cell_two<4, 1, 0><<<dim3(1, C / 4, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_two_8", (cell_two<8, 1, 0><<<dim3(1, C / 8, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_two_4_b128", (cell_two<4, 1, 0><<<dim3(2, C / 4, C), 128>>>(cout, cin, C, C, C)));
  CROW("cell3d_two_4_b64x4", (cell_two<4, 1, 0><<<dim3(4, C / 16, C), dim3(64, 4)>>>(cout, cin, C, C, C)));
  CROW("cell3d_twox_4_b64", (cell_two<4, 0, 0><<<dim3(1, C, C), 64>>>(cout, cin, C, C, C)));
  CROW("cell3d_twoldg_4", (cell_two<4, 1, 1><<<dim3(1, C / 4, C), 256>>>(cout, cin, C, C, C)));
  CROW("cell3d_vec4_b64", (cell_vec4<<<dim3(1, C, C), 64>>>(cout, cin, C, C, C)));

  // fan2 (t = 0): a and b_cuda are read and written; fresh a copy before the check
  const double fb = 4.0 * (2.0 * n2 + N + 2.0 * N);
  buf fa{a, n2};
  auto frestore = [&] {
    CHECK(cudaMemcpy(a, a0, n2 * 4, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(bb, bb0, N * 4, cudaMemcpyDeviceToDevice));
  };
  frestore();
  fan2_fixed<<<dim3(N / 256, N), 256>>>(m, a, bb, N, N, 0);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> fref = host_of(fa);
#define FROW(NAME, LAUNCH) row(NAME, fb, frestore, [&] { LAUNCH; }, fa, &fref)
  FROW("fan2_fixed", (fan2_fixed<<<dim3(N / 256, N), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_seq_4", (fan2_seq<4><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_seqr_4", (fan2_seqr<4><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_seqldg_4", (fan2_seqldg<4><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_two_2", (fan2_two<2, 1, 0><<<dim3(N / 256, N / 2), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_two_4", (fan2_two<4, 1, 0><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_two_8", (fan2_two<8, 1, 0><<<dim3(N / 256, N / 8), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_two_4_b128", (fan2_two<4, 1, 0><<<dim3(N / 128, N / 4), 128>>>(m, a, bb, N, N, 0)));
  FROW("fan2_two_4_b512", (fan2_two<4, 1, 0><<<dim3(N / 512, N / 4), 512>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twox_4_b64", (fan2_two<4, 0, 0><<<dim3(N / 256, N), 64>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twou_2", (fan2_two<2, 1, 0, 1><<<dim3(N / 256, N / 2), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twou_4", (fan2_two<4, 1, 0, 1><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twou_8", (fan2_two<8, 1, 0, 1><<<dim3(N / 256, N / 8), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twou_4_b128", (fan2_two<4, 1, 0, 1><<<dim3(N / 128, N / 4), 128>>>(m, a, bb, N, N, 0)));
  FROW("fan2_twoldg_4", (fan2_two<4, 1, 1><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0)));
  FROW("fan2_vec4_b64", (fan2_vec4<<<dim3(N / 256, N), 64>>>(m, a, bb, N, N, 0)));
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return 0;
}
