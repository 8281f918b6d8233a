// A 3D update in the shape of Rodinia Cell's evolve: every cell of an nx x ny x nz grid
// (x fastest in memory: cell (i, j, k) at (k*ny + j)*nx + i) decays toward 1.
//
// Pattern and expected figures (sm_90 model, 64^3 floats, 32x4x2 threads per CTA, grid
// 2x16x32 for both kernels):
// evolve_zfast (the mistake): the fastest index i comes from threadIdx.z, j from
//   threadIdx.y and k from threadIdx.x. A warp (the 32 x-lanes of one y and z) has one i,
//   one j and 32 values of k, nx*ny*4 = 16384 bytes apart: 32 sectors per request for the
//   load and the store (ideal 4); Algorithm 1 stride 16384 B, uncoalesced; the footprint
//   is the whole grid (all_stride 4): a thread-geometry transformation fixes it.
// evolve_xfast (the fix): i from threadIdx.x: a warp reads 32 consecutive floats, 128-byte
//   aligned: 4 sectors per request, stride 4, coalesced.
// Requests: 64^3 / 32 = 8192 for the load and the store of each kernel.
__global__ void evolve_zfast(float *out, const float *in, int nx, int ny, int nz)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int i = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    out[c] = in[c] * 0.5f + 0.5f;
  }
}

__global__ void evolve_xfast(float *out, const float *in, int nx, int ny, int nz)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  int k = blockIdx.z * blockDim.z + threadIdx.z;
  if (i < nx && j < ny && k < nz) {
    size_t c = ((size_t)k * ny + j) * nx + i;
    out[c] = in[c] * 0.5f + 0.5f;
  }
}
