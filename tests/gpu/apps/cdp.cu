// coalcheck gpu: CUDA dynamic parallelism, a parent kernel launching child grids from the
// device (scripts/gpu-workloads.sh). Build: nvcc -rdc=true ... -lcudadevrt.
// Usage: cdp [rounds]   (default 3); exits 0 when every result checks, 1 otherwise.
//
// The question: does the tool see the child grids' accesses? Device-side launches raise
// no host launch callback (no LAUNCH_BEGIN/END), so the library never gives them a table.
// To tell the cases apart the child is also launched ONCE from the host (a normal launch
// the library sees), into a separate output, before the parent rounds:
//   host:  child<<<M/256, 256>>>(g1, gin, M)                 (direct, 1 launch)
//   host:  rounds x parent<<<N/256, 256>>>(y, x, N, g2, gin)
//          each parent launch: its own copy y[i] = 2 x[i] + 1 (every thread) and, in
//          threads 0 of blocks 0..3, one device launch each (cudaStreamFireAndForget):
//          child<<<Q/256, 256>>>(g2 + b*Q, gin + 2*b*Q, Q), Q = M/4: 4 children per
//          parent launch cover g2[0 .. M). A parent grid completes only after its children
//          (CUDA programming guide, dynamic parallelism), so cudaDeviceSynchronize waits
//          for everything.
//
// Expected coalcheck figures (sm_90 rule, MODELS.md: one request per warp instruction,
// sectors = distinct 32-byte sectors of the active lanes; full warps; 256-byte aligned
// cudaMalloc bases):
//   child, per warp: ld lanes 8 B apart (in[2i]) span 256 B = 8 sectors; st 4 sectors.
//     direct launch, M = 2^19, 16,384 warps: ld 16,384 req / 131,072 sect;
//       st 16,384 / 65,536.
//     device launches: per parent launch 4 x Q/32 = 4 x 4,096 = 16,384 warps: the same
//       figures again; x3 rounds: ld 49,152 / 393,216; st 49,152 / 196,608 (12 launches).
//     all 13 launches: ld 65,536 / 524,288; st 65,536 / 262,144.
//     host launch only (if the device launches are not seen): 1 launch, the direct figures.
//   parent, its copy: N = 2^20, 32,768 warps, one LDG + one STG of 4 sectors:
//     ld 32,768 / 131,072; st 32,768 / 131,072 per launch; x3: ld 98,304 / 393,216;
//     st 98,304 / 393,216 (3 launches).  PLUS the device launch path of the 4 launching
//     threads, one lane each: the parameter buffer is written with 3 generic stores
//     (st.u64, st.u64, st.u32 in the PTX of nvcc 13.0 -O3: out, in, m), i.e. at least
//     4 x 3 = 12 more store requests and 12 sectors per parent launch (36 for 3), plus
//     whatever the device runtime's __cudaCDP2GetParameterBufferV2 / LaunchDeviceV2 /
//     GetLastError do (separate functions: outside the parent's code range; not
//     derivable by hand). Expected: a few dozen requests per parent launch, not the
//     children's 16,384 / 131,072; if the parent's figures grow by the children's, the
//     children were attributed to the parent (or to its "outside the kernel" slot).
// Nsight Compute profiles host launches: expected parent 3 rows, child 1 row (the direct
// launch); whether it lists or folds in the device launches is what the script records.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "cdp: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_),         \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N = 1 << 20, M = 1 << 19, Q = M / 4, KIDS = 4;

__global__ void child(float *out, const float *in, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[2 * i];
}

__global__ void parent(float *y, const float *x, int n, float *g2, const float *gin,
                       int *launch_err)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = 2.0f * x[i] + 1.0f;
  if (threadIdx.x == 0 && blockIdx.x < KIDS) {
    int b = blockIdx.x;
    child<<<Q / 256, 256, 0, cudaStreamFireAndForget>>>(g2 + (size_t)b * Q,
                                                        gin + 2 * (size_t)b * Q, Q);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
      atomicExch(launch_err, (int)e);
  }
}

static float *dev_fill(std::vector<float> &h, size_t n, int mod)
{
  h.resize(n);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(i % mod) + 1.0f; // small integers: results exact
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
      fprintf(stderr, "cdp: %s[%zu] = %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (rounds < 1) {
    fprintf(stderr, "usage: cdp [rounds >= 1]\n");
    return 2;
  }
  std::vector<float> hx, hg;
  float *x = dev_fill(hx, N, 7), *gin = dev_fill(hg, 2 * (size_t)M, 23);
  float *y, *g1, *g2;
  int *launch_err;
  CK(cudaMalloc(&y, N * sizeof(float)));
  CK(cudaMalloc(&g1, M * sizeof(float)));
  CK(cudaMalloc(&g2, M * sizeof(float)));
  CK(cudaMalloc(&launch_err, sizeof(int)));
  CK(cudaMemset(y, 0, N * sizeof(float)));
  CK(cudaMemset(g1, 0, M * sizeof(float)));
  CK(cudaMemset(g2, 0, M * sizeof(float)));
  CK(cudaMemset(launch_err, 0, sizeof(int)));

  child<<<M / 256, 256>>>(g1, gin, M); // the direct launch
  CK(cudaGetLastError());
  for (int r = 0; r < rounds; r++) {
    parent<<<N / 256, 256>>>(y, x, N, g2, gin, launch_err);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  int err = 0;
  CK(cudaMemcpy(&err, launch_err, sizeof err, cudaMemcpyDeviceToHost));
  if (err != 0)
    fprintf(stderr, "cdp: a device-side launch failed: %s\n",
            cudaGetErrorString((cudaError_t)err));

  std::vector<float> wy(N), wg(M);
  for (int i = 0; i < N; i++)
    wy[i] = 2.0f * hx[i] + 1.0f;
  for (int i = 0; i < M; i++)
    wg[i] = hg[2 * (size_t)i];
  int bad = (err != 0) + check("y (parent)", y, wy) + check("g1 (direct child)", g1, wg) +
            check("g2 (device-launched children)", g2, wg);
  printf("cdp: %d parent launches, %d device-side child launches, %s\n", rounds,
         rounds * KIDS, bad ? "WRONG" : "results ok");
  return bad ? 1 : 0;
}
