// Particles moved by one time step, pos += vel * dt: array of structures vs structure of
// arrays.
//
// Pattern and expected figures (sm_90 model, n = 65536 particles, 256 threads per CTA):
// update_aos: struct particle {float x, y, z;} is 12 bytes, so the lanes of a warp read
//   one field 12 bytes apart: a warp's 32 particles span 384 bytes = 12 sectors (the
//   array starts 256-byte aligned and 32 * 12 is a multiple of 32), and every field load
//   and store touches all 12 of them: 12 sectors per request where 4 would do
//   (efficiency 4/12). Algorithm 1: stride 12 bytes, uncoalesced, and the footprint of
//   one field has 8-byte holes: cannot be all coalesced.
// update_soa: three arrays per quantity; every load and store is 32 consecutive floats:
//   4 sectors per request, coalesced.
// Requests: n / 32 = 2048 warps; per warp 6 loads and 3 stores in both versions.
struct particle {
  float x, y, z;
};

__global__ void update_aos(particle *pos, const particle *vel, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    pos[i].x += vel[i].x * dt;
    pos[i].y += vel[i].y * dt;
    pos[i].z += vel[i].z * dt;
  }
}

__global__ void update_soa(float *x, float *y, float *z, const float *vx, const float *vy,
                           const float *vz, float dt, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}
