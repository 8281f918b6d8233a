// Parboil cutcp (cutoff Coulombic potential on a lattice; the "cuda" version's
// cuda_cutoff_potential_lattice shape): one thread per lattice point (x, y) of a z-plane,
// the atoms of the neighbourhood staged in shared memory by the block in chunks of the
// block's size (each thread copies one float4 {x, y, z, q}), then every thread sums the
// potential of the chunk's atoms within the cutoff. Written for bench/unseen.
__global__ void cutcp_lattice(const float4 *atoms, int natoms, float *lattice, int nx,
                              int ny, float zplane, float h, float cutoff2)
{
  __shared__ float4 s_atoms[128];
  int ix = blockIdx.x * blockDim.x + threadIdx.x;
  int iy = blockIdx.y * blockDim.y + threadIdx.y;
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  float px = ix * h, py = iy * h, e = 0.0f;
  for (int base = 0; base < natoms; base += 128) {
    if (tid < 128 && base + tid < natoms)
      s_atoms[tid] = atoms[base + tid];
    __syncthreads();
    int n = natoms - base < 128 ? natoms - base : 128;
    for (int a = 0; a < n; a++) {
      float dx = s_atoms[a].x - px, dy = s_atoms[a].y - py, dz = s_atoms[a].z - zplane;
      float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 < cutoff2) {
        float s = 1.0f - r2 / cutoff2;
        e += s_atoms[a].w * rsqrtf(r2) * s * s;
      }
    }
    __syncthreads();
  }
  if (ix < nx && iy < ny)
    lattice[iy * nx + ix] += e;
}
