// Parboil tpacf (two-point angular correlation function; gen_hists's shape): points on
// the unit sphere, one thread per point i of the data set, a loop over the points j of
// the other set, the dot product's angular bin found by a binary search over the bin
// boundaries and counted in a per-block shared histogram (shared atomics), merged into
// the global histogram at the end. Parboil stores the points as separate x, y, z arrays;
// tpacf_aos is a naive port's `struct cartesian {float x, y, z;}` (lanes 12 bytes apart
// for the thread's own point). Written for bench/unseen.
#define NBINS 32

struct cartesian {
  float x, y, z;
};

__global__ void tpacf_aos(const cartesian *data, const cartesian *rnd, int n,
                          const float *binb, unsigned int *hist)
{
  __shared__ unsigned int s_hist[NBINS];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < NBINS)
    s_hist[threadIdx.x] = 0;
  __syncthreads();
  float xi = data[i].x, yi = data[i].y, zi = data[i].z;
  for (int j = 0; j < n; j++) {
    float dot = xi * rnd[j].x + yi * rnd[j].y + zi * rnd[j].z;
    int lo = 0, hi = NBINS;
    while (hi > lo + 1) {
      int mid = (lo + hi) / 2;
      if (dot >= binb[mid])
        hi = mid;
      else
        lo = mid;
    }
    atomicAdd(&s_hist[lo], 1u);
  }
  __syncthreads();
  if (threadIdx.x < NBINS)
    atomicAdd(&hist[threadIdx.x], s_hist[threadIdx.x]);
}
