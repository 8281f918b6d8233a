// Parboil lbm (lattice-Boltzmann, D3Q19; the "cuda" version's performStreamCollide): 19
// distributions a cell. Parboil's CUDA layout is a structure of arrays (distribution e of
// cell c at e * ncells + c: a warp of consecutive cells reads one run per e); the
// collision relaxes each distribution toward the equilibrium from the cell's density. A
// naive port keeps the C version's array of structures (c * 20 + e, 19 values and a flag:
// lanes 80 bytes apart): lbm_aos. Simplified physics (density-only equilibrium); written
// for bench/unseen.
#define Q 19
#define CELL 20 /* the AoS stride: 19 distributions and a flag */

__global__ void lbm_soa(const float *src, float *dst, int ncells, float omega)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncells)
    return;
  float rho = 0.0f;
  for (int e = 0; e < Q; e++)
    rho += src[e * ncells + c];
  float feq = rho * (1.0f / Q);
  for (int e = 0; e < Q; e++)
    dst[e * ncells + c] = src[e * ncells + c] + omega * (feq - src[e * ncells + c]);
}

__global__ void lbm_aos(const float *src, float *dst, int ncells, float omega)
{
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= ncells)
    return;
  float rho = 0.0f;
  for (int e = 0; e < Q; e++)
    rho += src[c * CELL + e];
  float feq = rho * (1.0f / Q);
  for (int e = 0; e < Q; e++)
    dst[c * CELL + e] = src[c * CELL + e] + omega * (feq - src[c * CELL + e]);
}
