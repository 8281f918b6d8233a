// A divergent kernel: even and odd threads take different branches (threadIdx.x % 2).
//
//   even i: out[i] = a[i] * 2      odd i: out[i] = b[i] + 1
//
// Pattern and expected figures (sm_90 model, n = 65536 floats, 256 threads per CTA): each
// branch's load and store run with 16 of the 32 lanes active, every other float of a
// 128-byte span: 4 sectors per request where the 64 requested bytes fit in 2 (efficiency
// 1/2); nvcc 13 keeps both branches (no if-conversion), so each is its own instruction.
// Algorithm 1: the active lanes' sorted addresses are 8 bytes apart (max stride 8 > 4:
// uncoalesced), and the footprint of each load keeps the 4-byte holes (all_stride 8:
// cannot be all coalesced). Requests: n/32 = 2048 per load and per store.
__global__ void divergent(float *out, const float *a, const float *b, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  if (threadIdx.x % 2 == 0) {
    out[i] = a[i] * 2.0f;
  } else {
    out[i] = b[i] + 1.0f;
  }
}
