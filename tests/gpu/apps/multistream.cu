// coalcheck gpu: a multi-stream workload for the GPU backend (scripts/gpu-workloads.sh).
// Usage: multistream [rounds]   (default 3 rounds); exits 0 when every result checks.
//
// Per round, on three streams (created with cudaStreamCreate), overlapping:
//   s1: scale(a1)                                  s2: scale(a2), gather4(g)
//   s3: transpose(t)                               s1: waits for events e2 (after
//   gather4) and e3 (after transpose), then combine(z = g + t[0 .. N4)).
// scale runs on two streams at once (same kernel, two tables' worth of launches into one
// function table); all kernels are idempotent, so the rounds may overlap freely.
//
// Expected coalcheck figures (sm_90 rule, MODELS.md: one request per warp instruction,
// sectors = distinct 32-byte sectors of the active lanes; every warp below is full and
// every base address is 256-byte aligned by cudaMalloc), per launch, then x launches:
//   scale     N1 = 2^20 floats, 256 threads: 2^20/32 = 32,768 warps, one LDG + one STG
//             each, 32 consecutive floats = 128 B = 4 sectors:
//             ld 32,768 req / 131,072 sect; st 32,768 / 131,072.  Launches: 2 per round
//             (s1 and s2) -> 6 for 3 rounds: ld 196,608 / 786,432; st 196,608 / 786,432.
//   gather4   out[i] = in[4i], N2 = 2^18, 128 threads: 8,192 warps; ld lanes 16 B apart
//             span 512 B = 16 sectors -> 131,072; st 4 sectors -> 32,768.  x3 rounds:
//             ld 24,576 / 393,216; st 24,576 / 98,304.
//   transpose n = 1024, 32x8 blocks, 32x32 grid, 4 rows per thread: 1,024 blocks x 8
//             warps x 4 = 32,768 ld requests (4 sectors each: 131,072) and 32,768 st
//             requests (32 lanes in 32 rows: 32 sectors each: 1,048,576).  x3 rounds:
//             ld 98,304 / 393,216; st 98,304 / 3,145,728.
//   combine   z[i] = g[i] + t[i], N4 = 2^18, 256 threads: 8,192 warps x 2 LDG = 16,384
//             ld requests x 4 sectors = 65,536; st 8,192 / 32,768.  x3 rounds:
//             ld 49,152 / 196,608; st 24,576 / 98,304.
// Launches counted: scale 6, gather4 3, transpose 3, combine 3 (rounds = 3).
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "multistream: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N1 = 1 << 20, N2 = 1 << 18, NT = 1024, N4 = 1 << 18;

__global__ void scale(float *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2.0f + 1.0f;
}

__global__ void gather4(float *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[4 * i];
}

__global__ void transpose(float *out, const float *in, int n)
{
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    out[x * n + (y + j)] = in[(y + j) * n + x];
}

__global__ void combine(float *z, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = a[i] + b[i];
}

static float *dev_fill(std::vector<float> &h, size_t n, int mod)
{
  h.resize(n);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(i % mod) + 1.0f; // small integers: every sum below is exact
  float *d;
  CK(cudaMalloc(&d, n * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

static int check(const char *what, const float *d, const std::vector<float> &want)
{
  std::vector<float> got(want.size());
  CK(cudaMemcpy(got.data(), d, want.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < want.size(); i++)
    if (got[i] != want[i]) {
      fprintf(stderr, "multistream: %s[%zu] = %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (rounds < 1) {
    fprintf(stderr, "usage: multistream [rounds >= 1]\n");
    return 2;
  }
  std::vector<float> h1, h2, hg, ht;
  float *in1 = dev_fill(h1, N1, 13), *in2 = dev_fill(h2, N1, 11);
  float *gin = dev_fill(hg, 4 * (size_t)N2, 17), *tin = dev_fill(ht, (size_t)NT * NT, 19);
  float *a1, *a2, *g, *t, *z;
  CK(cudaMalloc(&a1, N1 * sizeof(float)));
  CK(cudaMalloc(&a2, N1 * sizeof(float)));
  CK(cudaMalloc(&g, N2 * sizeof(float)));
  CK(cudaMalloc(&t, (size_t)NT * NT * sizeof(float)));
  CK(cudaMalloc(&z, N4 * sizeof(float)));
  cudaStream_t s1, s2, s3;
  cudaEvent_t e2, e3;
  CK(cudaStreamCreate(&s1));
  CK(cudaStreamCreate(&s2));
  CK(cudaStreamCreate(&s3));
  CK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&e3, cudaEventDisableTiming));
  for (int r = 0; r < rounds; r++) {
    scale<<<N1 / 256, 256, 0, s1>>>(a1, in1, N1);
    scale<<<N1 / 256, 256, 0, s2>>>(a2, in2, N1);
    gather4<<<N2 / 128, 128, 0, s2>>>(g, gin, N2);
    CK(cudaEventRecord(e2, s2));
    transpose<<<dim3(NT / 32, NT / 32), dim3(32, 8), 0, s3>>>(t, tin, NT);
    CK(cudaEventRecord(e3, s3));
    CK(cudaStreamWaitEvent(s1, e2, 0));
    CK(cudaStreamWaitEvent(s1, e3, 0));
    combine<<<N4 / 256, 256, 0, s1>>>(z, g, t, N4);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> w1(N1), w2(N1), wg(N2), wt((size_t)NT * NT), wz(N4);
  for (int i = 0; i < N1; i++)
    w1[i] = h1[i] * 2.0f + 1.0f, w2[i] = h2[i] * 2.0f + 1.0f;
  for (int i = 0; i < N2; i++)
    wg[i] = hg[4 * (size_t)i];
  for (int y = 0; y < NT; y++)
    for (int x = 0; x < NT; x++)
      wt[(size_t)x * NT + y] = ht[(size_t)y * NT + x];
  for (int i = 0; i < N4; i++)
    wz[i] = wg[i] + wt[i];
  int bad = check("a1", a1, w1) + check("a2", a2, w2) + check("g", g, wg) +
            check("t", t, wt) + check("z", z, wz);
  printf("multistream: %d rounds, %s\n", rounds, bad ? "WRONG" : "results ok");
  return bad ? 1 : 0;
}
