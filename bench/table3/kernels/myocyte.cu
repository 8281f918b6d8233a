// The shape of Rodinia myocyte's solver: one thread per instance (a cell model), walking
// its own row of `eqs` state variables; here one step of the classic Runge-Kutta update
// plus a stimulus term, ynew = y + h (k1 + 2 k2 + 2 k3 + k4) / 6 + h s. Every array is
// workload x eqs floats, row-major (instance i's variables contiguous, int offsets as
// Rodinia's), as Rodinia lays out each instance's state; 1-D blocks of 256. Not Rodinia's
// code (its solver is thousands of lines of model equations): the access shape CGO 2015
// Table 2 counts for it, 7 N^2 thread accesses, all uncoalesced.
//
// Accesses per warp and e (sm_90): 6 loads (y, k1..k4, s) and 1 store (ynew) at
// i*eqs + e for 32 consecutive i, 4 eqs bytes apart: 32 sectors per request (ideal 4)
// each. Iterations of the e loop are independent: the loop can become a thread dimension.
// One array statement, no local temporaries: bench/table3/README.md says why.
__global__ void myocyte_solver(const float *y, const float *k1, const float *k2,
                               const float *k3, const float *k4, const float *s,
                               float *ynew, int workload, int eqs, float h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < workload) {
    for (int e = 0; e < eqs; e++)
      ynew[i * eqs + e] = y[i * eqs + e] +
                          h * (k1[i * eqs + e] + 2.0f * k2[i * eqs + e] +
                               2.0f * k3[i * eqs + e] + k4[i * eqs + e]) / 6.0f +
                          h * s[i * eqs + e];
  }
}
