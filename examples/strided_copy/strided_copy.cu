// Strided copy: out[i] = in[i * stride], one element per thread, stride a kernel argument.
//
// Pattern and expected figures (sm_90 model, n = 65536 floats, 256 threads per CTA):
// the 32 lanes of a warp load floats 4*stride bytes apart. A 32-byte sector holds
// 8 / stride of them while stride <= 8, so a load request touches 32*4*stride / 32 =
// 4*stride sectors: 4, 8, 16, 32 for stride 1, 2, 4, 8, and 32 (one per lane, the most
// there can be) for stride 32. The store out[i] is always 4 sectors. Requests: n / 32 =
// 2048 warps, one load and one store each. Algorithm 1 (CGO 2015): min = max = average
// stride 4*stride bytes; coalesced only for stride 1; for stride > 1 the footprint itself
// has 4*stride-byte holes, so no thread mapping can coalesce it ("cannot be all
// coalesced"). One launch file per stride: stride1.launch ... stride32.launch.
__global__ void strided_copy(float *out, const float *in, int stride, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[(size_t)i * stride];
}
