// tests/e2e/gpu_inline_sample.sh: a kernel whose CTAs differ, for --sample-ctas's
// estimate and bound. CTA b draws h = (b * 2654435761) >> 27 (0..31): lanes 0..h access,
// (h & 7) + 1 times, with a stride of (h & 3) + 1 floats on the load.
__global__ void ragged(float *out, const float *in)
{
  unsigned b = blockIdx.x;
  unsigned h = (b * 2654435761u) >> 27;
  if (threadIdx.x > h)
    return;
  float s = 0.0f;
  for (unsigned i = 0; i <= (h & 7); i++)
    s += in[b * 32 + threadIdx.x * ((h & 3) + 1) + i];
  out[b * 32 + threadIdx.x] = s;
}
