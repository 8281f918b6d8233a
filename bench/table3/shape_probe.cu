// Why the permuted fan2 and cell3d and the redistributed gesummv stop at 66-80% of the
// copy bandwidth (issue 10): each fixed kernel, as `coalcheck fix` wrote it, launched with
// other block shapes that cover the same global indices (what the reshape may choose:
// their threads' work depends on the global index alone), and hand-written variants that
// test one hypothesis each:
//   - block shape / CTA count (the reshape's choice): rows "*_fixed_B...";
//   - bytes in flight per thread: the same kernel with K elements a thread along the slow
//     dimension, loads first (__restrict__): rows "*_coarse_K" (not a coalcheck output);
//     and the naive K-play loop without __restrict__ ("*_plays_K"), which nvcc may not
//     reorder;
//   - gesummv: the lane loop unrolled 4 (nvcc's default), 8, 16, and 4/8/16 warps a CTA;
//   - the references at the cases' size (64 MiB a buffer): cudaMemcpy, a float4 copy and a
//     one-float-a-thread copy kernel;
//   - SpMV's floor: val, cols read once, coalesced, plus the gather vec[cols[j]] at random
//     columns of a 2 MiB vec (the matrix's shape: 524288 rows, 32 a row), no row loop.
// Each row: "probe NAME MEDIAN_MS MIN_MS MAX_MS RUNS BYTES NOTE" (bytes: the case's ideal
// bytes, read + written), 3 warm-ups then the median of RUNS event-timed launches.
//
//   shape_probe [RUNS]      (default 50)
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define TOOL "shape_probe"
#include "event_timer.cuh"

static int runs = 50;

template <typename F> static void row(const char *name, double bytes, F what)
{
  float t[3];
  time_events(runs, what, t);
  printf("probe\t%s\t%.6f\t%.6f\t%.6f\t%d\t%.0f\t%.0f GB/s\n", name, t[0], t[1], t[2], runs,
         bytes, bytes / t[0] / 1e6);
  fflush(stdout);
}

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

__global__ void copy1(float *dst, const float *src, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

__global__ void copy4(float4 *dst, const float4 *src, size_t n)
{
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = src[i];
}

// ---- cell3d: the fixed evolve_zfast (x<->z permuted), byte for byte ----
__global__ void evolve_zfast(float *out, const float *in, int nx, int ny, int nz)
{
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    out[c] = in[c] * 0.5f + 0.5f;
  }
}

// K values of j a thread, loads first
template <int K>
__global__ void cell_coarse(float *__restrict__ out, const float *__restrict__ in, int nx,
                            int ny, int nz)
{
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  int j0 = (blockIdx.y * blockDim.y + threadIdx.y) * K;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v[K];
#pragma unroll
  for (int q = 0; q < K; q++)
    v[q] = (i < nx && j0 + q < ny && k < nz) ? in[((size_t)k * ny + j0 + q) * nx + i] : 0.f;
#pragma unroll
  for (int q = 0; q < K; q++)
    if (i < nx && j0 + q < ny && k < nz)
      out[((size_t)k * ny + j0 + q) * nx + i] = v[q] * 0.5f + 0.5f;
}

// the K plays as a body replication would write them (no restrict, no reordering)
template <int K>
__global__ void cell_plays(float *out, const float *in, int nx, int ny, int nz)
{
#pragma unroll
  for (int q = 0; q < K; q++) {
    int k = blockIdx.z * blockDim.z + threadIdx.z;
    int j = (blockIdx.y * K + q) * blockDim.y + threadIdx.y;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx && j < ny && k < nz) {
      size_t c = ((size_t)k * ny + j) * nx + i;
      out[c] = in[c] * 0.5f + 0.5f;
    }
  }
}

// ---- fan2: the fixed kernel (x<->y permuted), byte for byte ----
__global__ void fan2(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
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

template <int K>
__global__ void fan2_coarse(float *__restrict__ m_cuda, float *__restrict__ a_cuda,
                            float *__restrict__ b_cuda, int Size, int j1, int t)
{
  int x0 = (blockIdx.y * blockDim.y + threadIdx.y) * K;
  int yidx = blockIdx.x * blockDim.x + threadIdx.x;
  if (yidx >= Size - t) return;
  float at = a_cuda[Size * t + (yidx + t)], v[K], m[K];
#pragma unroll
  for (int q = 0; q < K; q++) {
    int xidx = x0 + q;
    bool on = xidx < Size - 1 - t;
    v[q] = on ? a_cuda[Size * (xidx + 1 + t) + (yidx + t)] : 0.f;
    m[q] = on ? m_cuda[Size * (xidx + 1 + t) + t] : 0.f;
  }
#pragma unroll
  for (int q = 0; q < K; q++) {
    int xidx = x0 + q;
    if (xidx < Size - 1 - t) {
      a_cuda[Size * (xidx + 1 + t) + (yidx + t)] = v[q] - m[q] * at;
      if (yidx == 0)
        b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
    }
  }
}

// ---- gesummv: the redistributed gesummv_rows (W warps a CTA; U: the lane loop's unroll) ----
template <int W, int U>
__global__ void gesummv_red(const float *A, const float *B, const float *x, float *y,
                            float alpha, float beta, int n)
{
  const int lane = threadIdx.x;
  const unsigned long long v = (unsigned long long)blockIdx.x * W + threadIdx.y;
  if (v >= (unsigned long long)n) return;
  int i = (int)v;
  float t = 0.0f, u = 0.0f, p0 = 0, p1 = 0;
  if constexpr (U == 0) {
    for (int j = lane; j < n; j += 32) {
      float a = A[(size_t)i * n + j], b = B[(size_t)i * n + j], xj = x[j];
      p0 += a * xj;
      p1 += b * xj;
    }
  } else {
#pragma unroll (U > 0 ? U : 1)
    for (int j = lane; j < n; j += 32) {
      float a = A[(size_t)i * n + j], b = B[(size_t)i * n + j], xj = x[j];
      p0 += a * xj;
      p1 += b * xj;
    }
  }
  for (int o = 16; o > 0; o /= 2) {
    p0 += __shfl_xor_sync(0xffffffffu, p0, o);
    p1 += __shfl_xor_sync(0xffffffffu, p1, o);
  }
  t += p0;
  u += p1;
  if (lane == 0) y[i] = alpha * t + beta * u;
  __syncwarp();
}

// ---- SpMV floor: each entry's val and col read once (coalesced) and vec gathered ----
__global__ void make_cols(int *cols, size_t nnz, int dim)
{
  for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < nnz;
       j += (size_t)gridDim.x * blockDim.x) {
    uint64_t z = j * 0x9E3779B97F4A7C15ull + 7;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    cols[j] = (int)((z ^ (z >> 31)) % (uint64_t)dim);
  }
}

// 32 consecutive entries a warp-row (the mean row length), 8 lanes a row, sum per row
__global__ void gather_floor(const float *val, const int *cols, const float *vec, float *out,
                             int rows)
{
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 8, l = threadIdx.x % 8;
  if (r >= rows) return;
  float s = 0;
#pragma unroll
  for (int q = 0; q < 4; q++) {
    size_t j = (size_t)r * 32 + q * 8 + l;
    s += val[j] * vec[cols[j]];
  }
  for (int o = 4; o > 0; o /= 2)
    s += __shfl_xor_sync(0xffffffffu, s, o, 8);
  if (l == 0) out[r] = s;
}

int main(int argc, char **argv)
{
  if (argc > 1) runs = atoi(argv[1]);
  const int N = 4096, C = 256;
  const size_t n2 = (size_t)N * N, n3 = (size_t)C * C * C;
  float *a, *b, *m, *bb, *x, *y;
  CHECK(cudaMalloc(&a, n2 * 4));
  CHECK(cudaMalloc(&b, n2 * 4));
  CHECK(cudaMalloc(&m, n2 * 4));
  CHECK(cudaMalloc(&bb, N * 4));
  CHECK(cudaMalloc(&x, N * 4));
  CHECK(cudaMalloc(&y, N * 4));
  fill<<<1024, 256>>>(a, n2, 1);
  fill<<<1024, 256>>>(b, n2, 2);
  fill<<<1024, 256>>>(m, n2, 3);
  fill<<<16, 256>>>(bb, N, 4);
  fill<<<16, 256>>>(x, N, 5);
  CHECK(cudaDeviceSynchronize());
  const double cp = 2.0 * n2 * 4;
  row("memcpy_64MiB", cp, [&] { CHECK(cudaMemcpyAsync(b, a, n2 * 4, cudaMemcpyDeviceToDevice)); });
  row("copy4_64MiB_b256", cp, [&] { copy4<<<n2 / 4 / 256, 256>>>((float4 *)b, (const float4 *)a, n2 / 4); });
  row("copy1_64MiB_b256", cp, [&] { copy1<<<n2 / 256, 256>>>(b, a, n2); });
  row("copy1_64MiB_b1024", cp, [&] { copy1<<<n2 / 1024, 1024>>>(b, a, n2); });

  // cell3d: extent (256, 256, 256) after the permutation
  const double cb = 2.0 * n3 * 4;
  struct { unsigned bx, by; } cs[] = {{256, 1}, {128, 1}, {64, 1}, {256, 2}, {256, 4}, {32, 8}, {64, 4}};
  for (auto s : cs) {
    char nm[64];
    snprintf(nm, sizeof nm, "cell3d_fixed_B%ux%u", s.bx, s.by);
    dim3 g(C / s.bx, C / s.by, C), bl(s.bx, s.by, 1);
    row(nm, cb, [&] { evolve_zfast<<<g, bl>>>(b, a, C, C, C); });
  }
  row("cell3d_coarse_2", cb, [&] { cell_coarse<2><<<dim3(1, C / 2, C), 256>>>(b, a, C, C, C); });
  row("cell3d_coarse_4", cb, [&] { cell_coarse<4><<<dim3(1, C / 4, C), 256>>>(b, a, C, C, C); });
  row("cell3d_coarse_8", cb, [&] { cell_coarse<8><<<dim3(1, C / 8, C), 256>>>(b, a, C, C, C); });
  row("cell3d_plays_4", cb, [&] { cell_plays<4><<<dim3(1, C / 4, C), 256>>>(b, a, C, C, C); });

  // fan2: extent (4096, 4096) after the permutation (t = 0)
  const double fb = 4.0 * (2.0 * n2 + N + 2.0 * N);
  struct { unsigned bx, by; } fs[] = {{256, 1}, {128, 1}, {512, 1}, {1024, 1}, {256, 2}, {32, 8}, {64, 4}};
  for (auto s : fs) {
    char nm[64];
    snprintf(nm, sizeof nm, "fan2_fixed_B%ux%u", s.bx, s.by);
    dim3 g(N / s.bx, N / s.by), bl(s.bx, s.by);
    row(nm, fb, [&] { fan2<<<g, bl>>>(m, a, bb, N, N, 0); });
  }
  row("fan2_coarse_2", fb, [&] { fan2_coarse<2><<<dim3(N / 256, N / 2), 256>>>(m, a, bb, N, N, 0); });
  row("fan2_coarse_4", fb, [&] { fan2_coarse<4><<<dim3(N / 256, N / 4), 256>>>(m, a, bb, N, N, 0); });
  row("fan2_coarse_8", fb, [&] { fan2_coarse<8><<<dim3(N / 256, N / 8), 256>>>(m, a, bb, N, N, 0); });

  // gesummv: n = 4096
  const double gb = 4.0 * (2.0 * n2 + 2.0 * N);
  row("gesummv_W8_Udef", gb, [&] { gesummv_red<8, 0><<<N / 8, dim3(32, 8)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W8_U8", gb, [&] { gesummv_red<8, 8><<<N / 8, dim3(32, 8)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W8_U16", gb, [&] { gesummv_red<8, 16><<<N / 8, dim3(32, 8)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W4_Udef", gb, [&] { gesummv_red<4, 0><<<N / 4, dim3(32, 4)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W4_U8", gb, [&] { gesummv_red<4, 8><<<N / 4, dim3(32, 4)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W16_Udef", gb, [&] { gesummv_red<16, 0><<<N / 16, dim3(32, 16)>>>(a, b, x, y, 1.5f, 1.25f, N); });
  row("gesummv_W2_U8", gb, [&] { gesummv_red<2, 8><<<N / 2, dim3(32, 2)>>>(a, b, x, y, 1.5f, 1.25f, N); });

  // SpMV floor (bench/table3's matrix shape: 524288 rows, mean 32 entries)
  const int rows = 524288;
  const size_t nnz = (size_t)rows * 32;
  int *cols;
  float *vec, *out;
  CHECK(cudaMalloc(&cols, nnz * 4));
  CHECK(cudaMalloc(&vec, rows * 4));
  CHECK(cudaMalloc(&out, rows * 4));
  make_cols<<<1024, 256>>>(cols, nnz, rows);
  fill<<<1024, 256>>>(vec, rows, 6);
  CHECK(cudaDeviceSynchronize());
  const double sb = 4.0 * (2.0 * nnz + 3.0 * rows + 1);
  row("spmv_floor_gather", sb, [&] { gather_floor<<<rows * 8 / 256, 256>>>(a, cols, vec, out, rows); });
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return 0;
}
