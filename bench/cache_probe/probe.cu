// Probes for the naive transposes' DRAM excess on the H100 (issue 12, item 2;
// bench/results/cache-h100-2026-11-27-model3.md says what each tells apart). Run by
// scripts/gpu-cache-check.sh with the other launches (bench/cache_probe/*.launch).
//
// transpose_rows: out = in^T of an n x n float matrix, one element per thread, CTAs of
//   32 x R threads (R = blockDim.y): a warp stores 4 bytes into each of 32 lines 4n bytes
//   apart, and a CTA writes R consecutive floats of each of its 32 output lines, so one
//   CTA completes a 32-byte sector when R = 8 (transpose_naive's shape), half of one when
//   R = 4 (two CTAs, on different SMs, share each sector), and a whole 128-byte line
//   when R = 32 (no line is shared between CTAs).
// partial_store: thread i stores 4 bytes at out[32 i]: one 4-byte write into sector 0 of
//   each 128-byte line, never completed. The model predicts no DRAM traffic (the lines
//   fit L2 and stay dirty at the end); a DRAM read here means the L2 fetches a sector
//   (or its 64-byte unit) that a store writes only partly.
__global__ void transpose_rows(float *out, const float *in, int n)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}

__global__ void partial_store(float *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[32 * i] = (float)i;
}

// store_pattern (issue 12 item 2, second round: which candidate holds): thread i of n
//   (a grid-stride loop, so one CTA can do all) stores 4 bytes at out[stride * (i / width)
//   + i % width]: with stride = 32 floats each 128-byte line receives `width` consecutive
//   floats, written in one request by `width` neighbouring lanes (width 1: one 4-byte
//   partial sector, as partial_store; 8: one whole sector, half of its 64-byte DRAM unit;
//   16: one whole 64-byte unit; 32: the whole line, the control). Varying the lines
//   (n / width) tells a fixed fraction from a capacity; one CTA against 256 tells a
//   property of lines shared between SMs or L2 partitions from one of the lines alone.
__global__ void store_pattern(float *out, int n, int width, int stride)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[stride * (i / width) + i % width] = (float)i;
}

// store_then_wait: partial_store, then thread 0 of each CTA runs `iters` dependent
//   multiply-adds (about 4 clocks each) before the CTA ends: the same partial sectors
//   stay dirty in L2 some 10x longer within the kernel. A write-back that depends on the
//   time a partial sector waits grows with iters; one decided when the store arrives
//   does not. (a never equals 12345: the store only keeps the loop.)
__global__ void store_then_wait(float *out, int n, int iters)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[32 * i] = (float)i;
  if (threadIdx.x == 0) {
    float a = (float)i;
    for (int k = 0; k < iters; k++)
      a = a * 0.999f + 1.0f;
    if (a == 12345.0f)
      out[0] = a;
  }
}
