// Common user kernels (not from a suite): strided gather and scatter (every stride-th
// element of a larger array: a column of a row-major matrix, one channel of interleaved
// data), and an indexed gather through an index array. Written for bench/unseen.
__global__ void gather_strided(float *out, const float *in, int n, int stride)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i * stride];
}

__global__ void scatter_strided(float *out, const float *in, int n, int stride)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i * stride] = in[i];
}

__global__ void gather_indexed(float *out, const float *in, const int *idx, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[idx[i]];
}
