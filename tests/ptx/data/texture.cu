// Texture objects: 1D fetch by integer, 2D fetch by float coordinates.
__global__ void tex_gather(cudaTextureObject_t t1, cudaTextureObject_t t2, float4 *out, uint4 *out2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = tex1Dfetch<float4>(t1, i);
    out2[i] = tex2D<uint4>(t2, i + 0.5f, 0.5f);
  }
}
