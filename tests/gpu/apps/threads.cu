// coalcheck gpu: a multi-threaded host (scripts/gpu-workloads.sh): several std::threads
// launch kernels at once, each on a stream of its own, repeatedly.
// Usage: threads [rounds] [graph]   (defaults 4 and 0); exits 0 when every result checks,
// 1 otherwise, 2 on bad arguments.
// Measured (H200, 2026-11-22): `threads 4 1` under libcoalcheck_gpu.so used to hang: the
// graph thread, holding the library's lock in GRAPHS_LAUNCH_END, blocked in a counter copy
// while the other threads, inside their launches, waited for that lock
// (scripts/gpu-hang-stacks.sh). Fixed (graph flushes deferred to a launch end when several
// host threads call); graph = 0 stays the default so that the plain threads figures are
// checked on their own.
//
// Threads 0, 1, 2 (stream s_t, cudaStreamNonBlocking), per round, no sync in between:
//     scale(a_t, x_t, N)              the SAME function in every thread
//     gather<S_t>(g_t, gin_t, M)      a function of its own: S_0 = 2, S_1 = 4, S_2 = 8
// Thread 3 (only when graph = 1): a graph of one kernel node scale(a_3, x_3, N), captured
// from its stream (thread-local capture mode) and instantiated before the start, replayed
// `rounds` times with cudaGraphLaunch while the other threads launch directly.
// All threads wait at a start line (atomic counter) so their launches overlap; each syncs
// its stream at the end; the main thread joins them and checks every output.
//
// Expected coalcheck figures (sm_90 rule, MODELS.md: one request per warp instruction,
// sectors = distinct 32-byte sectors of the active lanes; full warps; 256-byte aligned
// cudaMalloc bases), per launch, then summed (rounds = 4):
//   scale      N = 2^20 floats, 256 threads: 32,768 warps, one LDG + one STG of 32
//              consecutive floats = 4 sectors: ld 32,768 / 131,072; st 32,768 / 131,072.
//              graph = 0: 3 x 4 = 12 launches: ld 393,216 / 1,572,864;
//                         st 393,216 / 1,572,864.
//              graph = 1: 3 x 4 + 4 = 16 launches: ld 524,288 / 2,097,152;
//                         st 524,288 / 2,097,152.
//   gather<S>  out[i] = in[S i], M = 2^18, 256 threads: 8,192 warps; the loads' lanes lie
//              4S bytes apart, spanning 128 S bytes: S = 2: 256 B = 8 sectors, S = 4:
//              16, S = 8: 32 (one per lane); the stores 4 sectors. Per launch: ld 8,192
//              req / 8,192 x {8, 16, 32} = {65,536, 131,072, 262,144} sect; st 8,192 /
//              32,768.  x4 rounds, each S: ld 32,768 / {262,144, 524,288, 1,048,576};
//              st 32,768 / 131,072; 4 launches each.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CK(x)                                                                             \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf(stderr, "threads: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_),     \
              __FILE__, __LINE__);                                                        \
      exit(1);                                                                            \
    }                                                                                     \
  } while (0)

static const int N = 1 << 20, M = 1 << 18, NDIRECT = 3;
static const int STRIDE[NDIRECT] = {2, 4, 8};

__global__ void scale(float *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * 2.0f + 1.0f;
}

template <int S> __global__ void gather(float *out, const float *in, int m)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    out[i] = in[S * i];
}

struct work {
  float *x, *a, *gin, *g;
  std::vector<float> hx, hgin;
  int stride; // 0: the graph thread
  cudaStream_t st;
  cudaGraphExec_t exec;
};

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

static void launch_gather(int stride, float *g, const float *gin, cudaStream_t st)
{
  if (stride == 2)
    gather<2><<<M / 256, 256, 0, st>>>(g, gin, M);
  else if (stride == 4)
    gather<4><<<M / 256, 256, 0, st>>>(g, gin, M);
  else
    gather<8><<<M / 256, 256, 0, st>>>(g, gin, M);
}

static void thread_main(work *w, int rounds, std::atomic<int> *ready, int nthreads)
{
  ready->fetch_add(1);
  while (ready->load() < nthreads)
    std::this_thread::yield();
  for (int r = 0; r < rounds; r++) {
    if (w->stride == 0) {
      CK(cudaGraphLaunch(w->exec, w->st));
    } else {
      scale<<<N / 256, 256, 0, w->st>>>(w->a, w->x, N);
      launch_gather(w->stride, w->g, w->gin, w->st);
      CK(cudaGetLastError());
    }
  }
  CK(cudaStreamSynchronize(w->st));
}

static int check(const char *what, int t, const float *d, const std::vector<float> &src,
                 size_t n, int step, int affine)
{
  std::vector<float> got(n);
  CK(cudaMemcpy(got.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; i++) {
    float want = affine ? src[i] * 2.0f + 1.0f : src[i * step];
    if (got[i] != want) {
      fprintf(stderr, "threads: thread %d: %s[%zu] = %g, expected %g\n", t, what, i, got[i],
              want);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 4;
  int graph = argc > 2 ? atoi(argv[2]) : 0;
  if (rounds < 1 || (graph != 0 && graph != 1)) {
    fprintf(stderr, "usage: threads [rounds >= 1] [graph: 0 or 1]\n");
    return 2;
  }
  int nthreads = NDIRECT + graph;
  std::vector<work> ws(nthreads);
  for (int t = 0; t < nthreads; t++) {
    work &w = ws[t];
    w.stride = t < NDIRECT ? STRIDE[t] : 0;
    w.x = dev_fill(w.hx, N, 7 + 2 * t);
    CK(cudaMalloc(&w.a, N * sizeof(float)));
    CK(cudaMemset(w.a, 0, N * sizeof(float)));
    w.gin = w.g = nullptr;
    if (w.stride) {
      w.gin = dev_fill(w.hgin, (size_t)w.stride * M, 17 + t);
      CK(cudaMalloc(&w.g, M * sizeof(float)));
      CK(cudaMemset(w.g, 0, M * sizeof(float)));
    }
    CK(cudaStreamCreateWithFlags(&w.st, cudaStreamNonBlocking));
    w.exec = nullptr;
    if (!w.stride) { // the graph thread: capture and instantiate before the start line
      cudaGraph_t g;
      CK(cudaStreamBeginCapture(w.st, cudaStreamCaptureModeThreadLocal));
      scale<<<N / 256, 256, 0, w.st>>>(w.a, w.x, N);
      CK(cudaStreamEndCapture(w.st, &g));
      CK(cudaGraphInstantiate(&w.exec, g, 0));
      CK(cudaGraphDestroy(g));
    }
  }
  CK(cudaDeviceSynchronize());
  std::atomic<int> ready(0);
  std::vector<std::thread> th;
  for (int t = 0; t < nthreads; t++)
    th.emplace_back(thread_main, &ws[t], rounds, &ready, nthreads);
  for (auto &t : th)
    t.join();
  CK(cudaDeviceSynchronize());
  int bad = 0;
  for (int t = 0; t < nthreads; t++) {
    bad += check("a (scale)", t, ws[t].a, ws[t].hx, N, 1, 1);
    if (ws[t].stride)
      bad += check("g (gather)", t, ws[t].g, ws[t].hgin, M, ws[t].stride, 0);
    if (ws[t].exec)
      CK(cudaGraphExecDestroy(ws[t].exec));
  }
  printf("threads: %d host threads (%d with a graph), %d rounds, %s\n", nthreads, graph,
         rounds, bad ? "WRONG" : "results ok");
  return bad ? 1 : 0;
}
