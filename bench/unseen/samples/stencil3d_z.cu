// A common user kernel (not from a suite): a 7-point 3-D stencil on an array whose z index
// is the fastest in memory (a[(x * ny + y) * nz + z], Fortran-ordered data read from C),
// with the thread geometry x, y, z mapped to the array's x, y, z: lanes nz * ny elements
// apart. Written for bench/unseen.
__global__ void stencil3d_z(const float *a, float *b, int nx, int ny, int nz)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x > 0 && x < nx - 1 && y > 0 && y < ny - 1 && z > 0 && z < nz - 1) {
    int c = (x * ny + y) * nz + z;
    b[c] = 0.4f * a[c] + 0.1f * (a[c - ny * nz] + a[c + ny * nz] + a[c - nz] + a[c + nz] +
                                 a[c - 1] + a[c + 1]);
  }
}
