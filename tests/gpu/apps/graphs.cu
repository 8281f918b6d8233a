// coalcheck gpu: a CUDA graph workload for the GPU backend (scripts/gpu-workloads.sh).
// Usage: graphs [replays]   (default 5); exits 0 when every result checks.
//
// One direct launch axpy(2, x, y) on s0, then a graph captured from s0 (global capture
// mode) with a fork to s1 and a join, replayed `replays` times with cudaGraphLaunch:
//     node A: axpy(2, x, y)  (s0)
//        fork -> node B: gather2(g, gin) (s1)   parallel to   node C: axpy(3, x2, y2) (s0)
//     join -> node D: add(z, y, y2) (s0)
// so the same kernel (axpy) runs in two nodes of one graph, B and C may run at once.
// Before the first replay the graph is uploaded once (cudaGraphUpload on s0): an upload
// runs no node, so it adds no launch and no access to the figures below.
//
// Expected coalcheck figures (sm_90 rule, MODELS.md: one request per warp instruction,
// sectors = distinct 32-byte sectors of the active lanes; full warps, 256-byte aligned
// cudaMalloc bases), per launch, then summed over launches:
//   axpy     N = 2^20 floats, 256 threads: 32,768 warps; y[i] = a*x[i] + y[i]: two LDG and
//            one STG per warp, 4 sectors each: ld 65,536 req / 262,144 sect;
//            st 32,768 / 131,072.  Launches: 1 direct + 2 per replay = 11 (5 replays):
//            ld 720,896 / 2,883,584; st 360,448 / 1,441,792.
//   gather2  out[i] = in[2i], M = 2^19, 256 threads: 16,384 warps; ld lanes 8 B apart span
//            256 B = 8 sectors -> 131,072; st 4 sectors -> 65,536.  x5 replays:
//            ld 81,920 / 655,360; st 81,920 / 327,680.
//   add      z[i] = y[i] + y2[i], N = 2^20: ld 65,536 / 262,144; st 32,768 / 131,072.
//            x5: ld 327,680 / 1,310,720; st 163,840 / 655,360.
// Launches counted: axpy 11, gather2 5, add 5 (replays = 5).
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "graphs: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_),      \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N = 1 << 20, M = 1 << 19;

__global__ void axpy(float a, const float *x, float *y, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void gather2(float *out, const float *in, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[2 * i];
}

__global__ void add(float *z, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    z[i] = a[i] + b[i];
}

static float *dev_fill(std::vector<float> &h, size_t n, int mod)
{
  h.resize(n);
  for (size_t i = 0; i < n; i++)
    h[i] = (float)(i % mod); // small integers: every result below is exact
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
      fprintf(stderr, "graphs: %s[%zu] = %g, expected %g\n", what, i, got[i], want[i]);
      return 1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  int replays = argc > 1 ? atoi(argv[1]) : 5;
  if (replays < 1) {
    fprintf(stderr, "usage: graphs [replays >= 1]\n");
    return 2;
  }
  std::vector<float> hx, hy, hx2, hy2, hg;
  float *x = dev_fill(hx, N, 7), *y = dev_fill(hy, N, 5);
  float *x2 = dev_fill(hx2, N, 3), *y2 = dev_fill(hy2, N, 9);
  float *gin = dev_fill(hg, 2 * (size_t)M, 23), *g, *z;
  CK(cudaMalloc(&g, M * sizeof(float)));
  CK(cudaMalloc(&z, N * sizeof(float)));
  cudaStream_t s0, s1;
  CK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

  axpy<<<N / 256, 256, 0, s0>>>(2.0f, x, y, N); // the direct launch
  CK(cudaStreamSynchronize(s0));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  axpy<<<N / 256, 256, 0, s0>>>(2.0f, x, y, N);             // A
  CK(cudaEventRecord(fork, s0));
  CK(cudaStreamWaitEvent(s1, fork, 0));
  gather2<<<M / 256, 256, 0, s1>>>(g, gin, M);              // B
  axpy<<<N / 256, 256, 0, s0>>>(3.0f, x2, y2, N);           // C
  CK(cudaEventRecord(join, s1));
  CK(cudaStreamWaitEvent(s0, join, 0));
  add<<<N / 256, 256, 0, s0>>>(z, y, y2, N);                // D
  CK(cudaStreamEndCapture(s0, &graph));
  size_t nodes = 0;
  CK(cudaGraphGetNodes(graph, NULL, &nodes));
  CK(cudaGraphInstantiate(&exec, graph, 0));
  // uploads the graph's work to the device without running it: no node runs, so no
  // launch may be counted for it (the figures below stay those of the replays)
  CK(cudaGraphUpload(exec, s0));
  for (int r = 0; r < replays; r++)
    CK(cudaGraphLaunch(exec, s0));
  CK(cudaStreamSynchronize(s0));

  // y = y0 + (1 + replays) * 2x; y2 = y20 + replays * 3x2; all small integers: exact
  std::vector<float> wy(N), wy2(N), wz(N), wg(M);
  for (int i = 0; i < N; i++) {
    wy[i] = hy[i] + (float)(1 + replays) * 2.0f * hx[i];
    wy2[i] = hy2[i] + (float)replays * 3.0f * hx2[i];
    wz[i] = wy[i] + wy2[i];
  }
  for (int i = 0; i < M; i++)
    wg[i] = hg[2 * (size_t)i];
  int bad = check("y", y, wy) + check("y2", y2, wy2) + check("z", z, wz) + check("g", g, wg);
  printf("graphs: %zu nodes, %d replays, %s\n", nodes, replays, bad ? "WRONG" : "results ok");
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(graph));
  return bad ? 1 : 0;
}
