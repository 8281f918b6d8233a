// Generic and local accesses for the inline counting pass's test
// (tests/e2e/ptx_instrument.sh; instrument.h: generic sites split by space, local sites
// in the interleaved layout). The figures come from the emulator (the oracle).
//   - a generic load through a pointer read back from global memory (nvcc cannot prove
//     its space), strided: global lanes only;
//   - a generic load whose lanes fall in shared (every 4th lane) and global memory;
//   - a generic load whose lanes fall in local and shared memory (by a runtime index);
//   - a local array indexed by a runtime value (ld.local / st.local, lane-divergent),
//     with 4- and 8-byte elements;
//   - __noinline__ device functions (.func bodies): a strided generic load through a
//     pointer parameter (global or shared by the call), called directly and from
//     another .func; a second kernel calls the first one too, so
//     that the launched kernel's sites are the second region of .func sites.
__device__ __noinline__ float strided_load(const float *p, int i, int stride)
{
  return p[(i * stride) & 255];
}

__device__ __noinline__ float two_loads(const float *p, const float *s, int i)
{
  return strided_load(s, i & 31, 2) + p[(i * 2) & 255]; // strided_load on shared too
}

__global__ void ptxinst_func_other(const float *in, float *out)
{
  out[threadIdx.x] = strided_load(in, threadIdx.x, 3);
}

__global__ void ptxinst_generic(const float *in, const int *idx, unsigned long long *ptrs,
                                float *out, int n, int stride)
{
  __shared__ float tile[64];
  float loc[16];
  double dl[8];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  tile[t] = in[i];
  int k = idx[i] & 15;
  for (int j = 0; j < 16; j++)
    loc[j] = in[(i + j * 64) % n];
  for (int j = 0; j < 8; j++)
    dl[j] = loc[j] * 2.0;
  ptrs[i] = (unsigned long long)&in[(i * stride) % n];
  __syncthreads();
  const float *p = (const float *)((volatile unsigned long long *)ptrs)[i];
  float acc = *p;                                       // generic, global lanes
  acc += loc[k];                                        // local, 4 bytes, divergent
  acc += (float)dl[k & 7];                              // local, 8 bytes
  const float *q = (t % 4 == 0) ? &tile[t ^ 1] : &in[(i * 3) % n];
  acc += *q;                                            // generic: shared + global
  const float *w = (k & 1) ? &loc[k ^ 1] : &tile[(t * 2) % 64];
  acc += *w;                                            // generic: local + shared
  acc += strided_load(in, i, stride);                   // .func: generic, stride 5 floats
  acc += two_loads(in, tile, t);                        // .func -> .func, and shared
  out[i] = acc;
}
