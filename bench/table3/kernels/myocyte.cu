// The shape of Rodinia myocyte's solver: one thread per instance (a cell model), walking
// its own row of `eqs` state variables, here one step of the classic Runge-Kutta update
// with its error estimate. Every array is workload x eqs floats, row-major (instance i's
// variables contiguous), as Rodinia lays out each instance's state; 1-D blocks of 256.
// Not Rodinia's code (its solver is thousands of lines of model equations): the access
// shape CGO 2015 Table 2 counts for it, 7 N^2 thread accesses, all uncoalesced.
//
// Accesses per warp and e (sm_90): 5 loads (y, k1..k4) and 2 stores (ynew, err) at
// (size_t)i*eqs + e for 32 consecutive i, 4 eqs bytes apart: 32 sectors per request
// (ideal 4) each. The loads come first and the stores last in every iteration, so nvcc
// (which must assume the arrays alias) issues exactly these 7 per iteration. Iterations
// of the e loop are independent: the loop can become a thread dimension.
__global__ void myocyte_solver(const float *y, const float *k1, const float *k2,
                               const float *k3, const float *k4, float *ynew, float *err,
                               int workload, int eqs, float h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i < workload) {
    for (int e = 0; e < eqs; e++) {
      size_t c = (size_t)i * eqs + e;
      float v = y[c], a = k1[c], b = k2[c], d = k3[c], f = k4[c];
      ynew[c] = v + h * (a + 2.0f * b + 2.0f * d + f) / 6.0f;
      err[c] = h * (a - f) / 6.0f;
    }
  }
}
