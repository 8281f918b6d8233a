// SHOC MD (md.cu compute_lj_force): Lennard-Jones forces over a neighbour list, float4
// positions gathered by neighbour index. SHOC stores the list neighbour-major
// (neighList[j * inum + i], coalesced); compute_lj_force_rowmajor is the row-major list
// (neighList[i * maxNeighbors + j]) that CPU-side builders and naive ports produce.
__global__ void compute_lj_force(float4 *force, const float4 *position, const int neighCount,
                                 const int *neighList, const float cutsq, const float lj1,
                                 const float lj2, const int inum)
{
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= inum)
    return;
  float4 ipos = position[idx];
  float4 f = {0.0f, 0.0f, 0.0f, 0.0f};
  int j = 0;
  while (j < neighCount) {
    int jidx = neighList[j * inum + idx];
    float4 jpos = position[jidx];
    float delx = ipos.x - jpos.x;
    float dely = ipos.y - jpos.y;
    float delz = ipos.z - jpos.z;
    float r2inv = delx * delx + dely * dely + delz * delz;
    if (r2inv < cutsq) {
      r2inv = 1.0f / r2inv;
      float r6inv = r2inv * r2inv * r2inv;
      float forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
      f.x += delx * forceC;
      f.y += dely * forceC;
      f.z += delz * forceC;
    }
    j++;
  }
  force[idx] = f;
}

__global__ void compute_lj_force_rowmajor(float4 *force, const float4 *position,
                                          const int maxNeighbors, const int *neighList,
                                          const float cutsq, const float lj1, const float lj2,
                                          const int inum)
{
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < inum) {
    float4 ipos = position[idx];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < maxNeighbors; j++) {
      int jidx = neighList[idx * maxNeighbors + j];
      float4 jpos = position[jidx];
      float delx = ipos.x - jpos.x;
      float dely = ipos.y - jpos.y;
      float delz = ipos.z - jpos.z;
      float r2inv = delx * delx + dely * dely + delz * delz;
      float forceC = 0.0f;
      if (r2inv < cutsq) {
        r2inv = 1.0f / r2inv;
        float r6inv = r2inv * r2inv * r2inv;
        forceC = r2inv * r6inv * (lj1 * r6inv - lj2);
      }
      fx += delx * forceC;
      fy += dely * forceC;
      fz += delz * forceC;
    }
    force[idx] = make_float4(fx, fy, fz, 0.0f);
  }
}
