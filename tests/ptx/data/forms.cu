// PTX forms that real code reaches through CUDA intrinsics and libraries (atomics with
// cas, bit ops, cp.async, mbarrier, bar.red, wmma, textures and surfaces, printf/assert/
// local arrays): the round trip guards the operand-shape checks of the parser against
// false errors (tests/ptx/test_ptx_roundtrip.c).
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
#include <cstdio>
#include <cassert>

__global__ void atomics(unsigned *u, unsigned long long *ul, double *d, __half2 *h, int *s) {
  int t = threadIdx.x;
  atomicCAS(u + 1, 3u, (unsigned)t);
  atomicCAS(ul, 5ull, (unsigned long long)t);
  atomicAdd(d, 1.0);
  atomicAdd(h, __floats2half2_rn(1.f, 2.f));
  atomicExch(s + 2, t);
  atomicAdd_block(s + 3, t);
  atomicMax_system(s + 4, t);
  s[5] = __reduce_add_sync(0xffffffffu, (unsigned)t);
  s[6] = __match_all_sync(0xffffffffu, t, &s[7]);
}

__global__ void bits(const unsigned *a, unsigned *o) {
  unsigned x = a[threadIdx.x], y = a[threadIdx.x + 32];
  o[0] = __brev(x) + __popc(y) + __clz(x) + __ffs(y);
  o[1] = __funnelshift_l(x, y, x & 31) ^ __byte_perm(x, y, 0x5410);
  o[2] = __dp4a(x, y, 7u) + __dp2a_lo(x, y, 3u);
  o[3] = __fns(x, y, 2) + __sad(x, y, 1u) + __umulhi(x, y) + __mul24(x, y);
  o[4] = (unsigned)__float2int_rn(__sinf((float)x) + __expf((float)y) + rsqrtf((float)x));
  unsigned long long c = clock64();
  __nanosleep(100);
  o[5] = (unsigned)(clock64() - c) + __activemask();
}

__global__ void pipeline(const float *g, float *o) {
  __shared__ float s[256];
  __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  o[threadIdx.x] = s[255 - threadIdx.x];
}

__global__ void barriers(float *o) {
  __shared__ unsigned long long bar;
  unsigned addr = (unsigned)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(blockDim.x));
  __syncthreads();
  o[threadIdx.x] += 1.f;
  unsigned long long state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
  asm volatile("{\n\t.reg .pred done;\n"
               "wait:\n\tmbarrier.test_wait.shared.b64 done, [%0], %1;\n"
               "\t@!done bra wait;\n}" ::"r"(addr), "l"(state) : "memory");
  o[threadIdx.x] *= 2.f;
  int n = __syncthreads_count(o[threadIdx.x] > 1.f);
  int a = __syncthreads_and(o[threadIdx.x] > 2.f);
  __syncwarp();
  o[threadIdx.x] = n + a + __shfl_down_sync(0xffffffffu, o[threadIdx.x], 1) +
                   __any_sync(0xffffffffu, n > 3);
  __threadfence();
}

__global__ void matrix(const half *a, const half *b, float *c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void surfaces(cudaSurfaceObject_t so, cudaTextureObject_t to, float *o) {
  float v = tex2D<float>(to, threadIdx.x + 0.5f, 0.5f);
  float4 g = tex2Dgather<float4>(to, 0.5f, 0.5f, 1);
  surf2Dwrite(v + g.x, so, threadIdx.x * 4, 0);
  float r;
  surf2Dread(&r, so, threadIdx.x * 4, 1);
  o[threadIdx.x] = r + tex1Dfetch<float>(to, threadIdx.x) + tex2DLod<float>(to, 0.5f, 0.5f, 1.f);
}

__global__ void runtime(int *o, int n) {
  int buf[64];
  for (int i = 0; i < n && i < 64; i++) buf[i] = o[i] * i;
  assert(n < 1000);
  printf("thread %d: %d\n", threadIdx.x, buf[n & 63]);
  o[threadIdx.x] = buf[threadIdx.x & 63];
}
