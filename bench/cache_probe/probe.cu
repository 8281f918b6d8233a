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
