// PolyBench/GPU gesummv, y = alpha*A*x + beta*B*x, one thread per row i (n x n floats).
//
// Pattern and expected figures (sm_90 model, n = 1024, 256 threads per CTA):
// gesummv_rows (the PolyBench shape): thread i walks row i of A and of B, so at each j the
//   32 lanes of a warp read A[i][j] for 32 consecutive i, 4n = 4096 bytes apart:
//   32 sectors per request (ideal 4), Algorithm 1 max stride 4096 B: uncoalesced. x[j] is
//   the same word for every lane: 1 sector per request (a broadcast, stride 0: coalesced).
//   y[i] is one coalesced store per warp (4 sectors).
//   Requests: 32 warps x n steps = 32768 for A and for B. nvcc 13 unrolls the j loop 4
//   times, so each copy of the A load sees every 4th column: Algorithm 1's whole-footprint
//   stride of one instruction is 16 bytes (all_stride 16), although the 4 copies together
//   cover A densely. CGO 2015 Table 2 shape: 2 n^2 uncoalesced thread accesses (A and B).
// gesummv_cols (the fix): A and B are stored column-major (At[j][i] = A[i][j]), so at each
//   j the warp reads 32 consecutive floats of At: 4 sectors per request, coalesced.
//   Same requests and the same arithmetic: given At = A transposed, y is bit-for-bit
//   gesummv_rows' y.
__global__ void gesummv_rows(const float *A, const float *B, const float *x, float *y,
                             float alpha, float beta, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = 0.0f, u = 0.0f;
    for (int j = 0; j < n; j++) {
      float a = A[(size_t)i * n + j];
      float b = B[(size_t)i * n + j];
      float xj = x[j];
      t += a * xj;
      u += b * xj;
    }
    y[i] = alpha * t + beta * u;
  }
}

__global__ void gesummv_cols(const float *At, const float *Bt, const float *x, float *y,
                             float alpha, float beta, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = 0.0f, u = 0.0f;
    for (int j = 0; j < n; j++) {
      float a = At[(size_t)j * n + i];
      float b = Bt[(size_t)j * n + i];
      float xj = x[j];
      t += a * xj;
      u += b * xj;
    }
    y[i] = alpha * t + beta * u;
  }
}
