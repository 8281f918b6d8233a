extern "C" __global__ void scale(float *out, const float *in, int n, float a)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i];
}
extern "C" __global__ void spin(int *flag)
{
  while (*(volatile int *)flag == 0) { }
}
extern "C" __global__ void oob(float *out)
{
  out[threadIdx.x + 1] = 1.0f;
}
