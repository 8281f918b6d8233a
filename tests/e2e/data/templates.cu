// Kernels whose names need demangling: a template in a namespace, instantiated twice.
namespace ns {
template <int STRIDE> __global__ void tiled(float *a)
{
  a[threadIdx.x * STRIDE] = 1.0f;
}
template __global__ void tiled<1>(float *);
template __global__ void tiled<2>(float *);
}
