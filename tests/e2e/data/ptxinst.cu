// Accesses for the inline counting pass's test (tests/e2e/ptx_instrument.sh): 16-, 8-, 2-
// and 1-byte global accesses, coalesced and scattered; 1-, 4-, 8- and 16-byte shared
// accesses with and without bank conflicts; shared and global atomics; divergent and
// guarded accesses. The figures come from the emulator (the oracle), not from here.
__global__ void ptxinst_mix(const float4 *g4, double2 *gd2, const unsigned char *b,
                            const unsigned short *h, float2 *f2, int *counts, float *out, int n)
{
  __shared__ double sd[128];
  __shared__ float4 s4[64];
  __shared__ float2 s2[64];
  __shared__ unsigned char sb[256];
  __shared__ int hist[32];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t < 32)
    hist[t] = 0;
  float4 v = g4[i];                // 16 bytes, coalesced
  float4 w = __ldg(&g4[(i * 3) % n]); // 16 bytes, stride 48 bytes, ld.global.nc
  double2 d = gd2[i ^ 5];          // 16 bytes, permuted
  unsigned char c = b[i * 2];      // 1 byte, stride 2
  unsigned short s = h[i];         // 2 bytes
  sd[(t * 2) % 128] = d.x;         // 8 bytes, stride 16 bytes: 2-way per half-warp
  s4[(t * 3) % 64] = v;            // 16 bytes, stride 48 bytes
  s2[t] = make_float2(w.x, w.y);   // 8 bytes, conflict-free
  sb[(t * 4) % 256] = c;           // 1 byte, one word per lane
  __syncthreads();
  atomicAdd(&hist[c & 31], 1);     // shared atomic, data-dependent banks
  double e = sd[(t * 4) % 128];    // 8 bytes, stride 32 bytes
  float4 x = s4[t ^ 1];            // 16 bytes, pairs swapped
  float2 y = s2[(t * 2) % 64];     // 8 bytes, stride 16 bytes
  unsigned char z = sb[(t * 8) % 256]; // 1 byte, stride 8
  __syncthreads();
  if (t % 3 == 0)
    atomicAdd(&counts[c % 16], hist[t % 32]); // divergent global atomic
  if (i < n / 2)
    f2[i] = y;                     // guarded 8-byte store
  out[i] = x.x + x.y + x.z + x.w + (float)e + z + s;
  gd2[i] = make_double2(e, d.y);   // 16-byte store
}
