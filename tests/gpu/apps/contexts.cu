// coalcheck gpu: two CUDA contexts on one GPU (scripts/gpu-workloads.sh).
// Usage: contexts [rounds]   (default 3); exits 0 when every result checks, 1 otherwise.
//
// Context P is the device's primary context (the runtime's, made by cudaFree(0)); context
// C is created with the driver API (cuCtxCreate). Runtime kernels run in whichever context
// is current to the thread (the runtime uses a context made current by the driver API;
// CUDA programming guide, "Interoperability between Runtime and Driver APIs"), so the
// runtime loads this file's module into each context: the same kernel `copy` exists as
// two CUfunctions, one per context. Each context has its own buffers (allocated while it
// is current). Per round, interleaved:
//   P current: copy(pa, px, N)       (legacy default stream of P)
//   C current: copy(ca, cx, N/2), gather2(cg, cgin, M)   (legacy default stream of C)
// At the end C is destroyed (cuCtxDestroy) after its results are checked.
//
// Expected coalcheck figures (sm_90 rule, MODELS.md: one request per warp instruction,
// sectors = distinct 32-byte sectors of the active lanes; full warps; 256-byte aligned
// cudaMalloc bases), per launch, then x rounds (3):
//   copy in P   N = 2^20 floats, 256 threads: 2^20/32 = 32,768 warps, one LDG + one STG,
//               32 consecutive floats = 128 B = 4 sectors each:
//               ld 32,768 req / 131,072 sect; st 32,768 / 131,072.
//               x3: ld 98,304 / 393,216; st 98,304 / 393,216.   grid 4096, block 256.
//   copy in C   N/2 = 2^19 floats: 16,384 warps: ld 16,384 / 65,536; st 16,384 / 65,536.
//               x3: ld 49,152 / 196,608; st 49,152 / 196,608.   grid 2048, block 256.
//   copy, both contexts (what ncu sums under one kernel name): 6 launches:
//               ld 147,456 / 589,824; st 147,456 / 589,824.
//   gather2     out[i] = in[2i], M = 2^19, 256 threads: 16,384 warps; ld lanes 8 B apart
//               span 256 B = 8 sectors -> 131,072; st 4 sectors -> 65,536.
//               x3: ld 49,152 / 393,216; st 49,152 / 196,608.   3 launches, in C only.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda.h>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "contexts: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_),    \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

#define CU(x)                                                                             \
  do {                                                                                    \
    CUresult r_ = (x);                                                                    \
    if (r_ != CUDA_SUCCESS) {                                                             \
      const char *s_ = "unknown";                                                         \
      cuGetErrorString(r_, &s_);                                                          \
      fprintf(stderr, "contexts: %s failed: %s (%s:%d)\n", #x, s_, __FILE__, __LINE__);   \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N = 1 << 20, M = 1 << 19;

__global__ void copy(float *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

__global__ void gather2(float *out, const float *in, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[2 * i];
}

// Allocates n floats in the current context and fills them with small integers.
static float *dev_fill(std::vector<float> &h, size_t n, int mod)
{
  h.resize(n);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(i % mod) + 1.0f;
  float *d;
  CK(cudaMalloc(&d, n * sizeof(float)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

static float *dev_zero(size_t n)
{
  float *d;
  CK(cudaMalloc(&d, n * sizeof(float)));
  CK(cudaMemset(d, 0, n * sizeof(float)));
  return d;
}

// Compares n floats of d (current context) with want[i * step] for i < n.
static int check(const char *what, const float *d, const std::vector<float> &want, size_t n,
                 size_t step)
{
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++)
    if (got[i] != want[i * step]) {
      fprintf(stderr, "contexts: %s[%zu] = %g, expected %g\n", what, i, got[i], want[i * step]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (rounds < 1) {
    fprintf(stderr, "usage: contexts [rounds >= 1]\n");
    return 2;
  }
  CK(cudaSetDevice(0));
  CK(cudaFree(0)); // makes the primary context current
  CUcontext P, C;
  CUdevice dev;
  CU(cuCtxGetCurrent(&P));
  CU(cuCtxGetDevice(&dev));
  std::vector<float> hp, hc, hg;
  float *px = dev_fill(hp, N, 13), *pa = dev_zero(N);
  CUctxCreateParams params;
  memset(&params, 0, sizeof params);
  CU(cuCtxCreate(&C, &params, 0, dev)); // C is now current
  if (C == P) {
    fprintf(stderr, "contexts: the created context equals the primary one\n");
    return 1;
  }
  float *cx = dev_fill(hc, N / 2, 11), *ca = dev_zero(N / 2);
  float *cgin = dev_fill(hg, 2 * (size_t)M, 17), *cg = dev_zero(M);

  for (int r = 0; r < rounds; r++) {
    CU(cuCtxSetCurrent(P));
    copy<<<N / 256, 256>>>(pa, px, N);
    CK(cudaGetLastError());
    CU(cuCtxSetCurrent(C));
    copy<<<N / 2 / 256, 256>>>(ca, cx, N / 2);
    gather2<<<M / 256, 256>>>(cg, cgin, M);
    CK(cudaGetLastError());
  }
  // C is current: check its results, then P's
  CK(cudaDeviceSynchronize());
  int bad = check("ca (context C)", ca, hc, N / 2, 1) + check("cg (context C)", cg, hg, M, 2);
  CK(cudaFree(ca));
  CK(cudaFree(cx));
  CK(cudaFree(cg));
  CK(cudaFree(cgin));
  CU(cuCtxSetCurrent(P));
  CU(cuCtxDestroy(C));
  CK(cudaDeviceSynchronize());
  bad += check("pa (primary context)", pa, hp, N, 1);
  printf("contexts: 2 contexts, %d rounds, %s\n", rounds, bad ? "WRONG" : "results ok");
  return bad ? 1 : 0;
}
