// Kernels of tests/e2e/emu_jobs.sh (compiled to jobs.ptx with nvcc -ptx -arch=sm_90).
// fence: __threadfence between blocks (the last-block pattern): runs serially under --jobs.
extern "C" __global__ void fence(unsigned *out, unsigned *count)
{
  out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x;
  __threadfence();
  if (threadIdx.x == 0)
    atomicAdd(count, 1u);
}
// clock: the clock's value depends on every instruction before it: runs serially.
extern "C" __global__ void clock_read(unsigned *out)
{
  out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)clock();
}
// late_oob: blocks 5 and 9 write past out (n words); block 5 first spins `work` rounds,
// so that under --jobs block 9 fails first in time; the error must still name block 5.
extern "C" __global__ void late_oob(unsigned *out, int n, int work)
{
  unsigned b = blockIdx.x, v = 0;
  if (b == 5)
    for (int k = 0; k < work; k++) v += k;
  unsigned i = (b == 5 || b == 9) ? n + b * blockDim.x + threadIdx.x
                                  : (b % 5) * blockDim.x + threadIdx.x;
  out[i] = v;
}
// count: every thread adds 1 to count[tid % 7] (integer atomics: order does not matter).
extern "C" __global__ void count(unsigned *bins)
{
  atomicAdd(&bins[(blockIdx.x * blockDim.x + threadIdx.x) % 7], 1u);
}
