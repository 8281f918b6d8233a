// Rodinia srad_v2 (srad_kernel.cu): speckle-reducing anisotropic diffusion, 16x16 blocks.
// srad_cuda_1 loads the block and its four neighbouring rows/columns into shared tiles and
// computes the diffusion coefficient and the four derivatives; srad_cuda_2 applies the
// divergence. The image borders clamp (Rodinia reads the neighbouring tile's edge; the
// first and last block rows and columns reread their own).
#define BLOCK_SIZE 16

__global__ void srad_cuda_1(float *E_C, float *W_C, float *N_C, float *S_C, float *J_cuda,
                            float *C_cuda, int cols, int rows, float q0sqr)
{
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
  int index_n = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + tx - cols;
  int index_s = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * BLOCK_SIZE + tx;
  int index_w = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty - 1;
  int index_e = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + BLOCK_SIZE;

  float n, w, e, s, jc, g2, l, num, den, qsqr, c;

  __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float temp_result[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float north[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float south[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float east[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float west[BLOCK_SIZE][BLOCK_SIZE];

  if (by == 0)
    north[ty][tx] = J_cuda[BLOCK_SIZE * bx + tx];
  else
    north[ty][tx] = J_cuda[index_n];
  if (by == gridDim.y - 1)
    south[ty][tx] = J_cuda[cols * BLOCK_SIZE * (gridDim.y - 1) + BLOCK_SIZE * bx +
                           cols * (BLOCK_SIZE - 1) + tx];
  else
    south[ty][tx] = J_cuda[index_s];
  __syncthreads();

  if (bx == 0)
    west[ty][tx] = J_cuda[cols * BLOCK_SIZE * by + cols * ty];
  else
    west[ty][tx] = J_cuda[index_w];
  if (bx == gridDim.x - 1)
    east[ty][tx] = J_cuda[cols * BLOCK_SIZE * by + BLOCK_SIZE * (gridDim.x - 1) + cols * ty +
                          BLOCK_SIZE - 1];
  else
    east[ty][tx] = J_cuda[index_e];
  __syncthreads();

  temp[ty][tx] = J_cuda[index];
  __syncthreads();

  jc = temp[ty][tx];

  if (ty == 0)
    n = north[ty][tx] - jc;
  else
    n = temp[ty - 1][tx] - jc;
  if (ty == BLOCK_SIZE - 1)
    s = south[ty][tx] - jc;
  else
    s = temp[ty + 1][tx] - jc;
  if (tx == 0)
    w = west[ty][tx] - jc;
  else
    w = temp[ty][tx - 1] - jc;
  if (tx == BLOCK_SIZE - 1)
    e = east[ty][tx] - jc;
  else
    e = temp[ty][tx + 1] - jc;

  g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  l = (n + s + w + e) / jc;
  num = (0.5 * g2) - ((1.0 / 16.0) * (l * l));
  den = 1 + (.25 * l);
  qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1 + q0sqr));
  c = 1.0 / (1.0 + den);

  if (c < 0) {
    temp_result[ty][tx] = 0;
  } else if (c > 1) {
    temp_result[ty][tx] = 1;
  } else {
    temp_result[ty][tx] = c;
  }
  __syncthreads();

  C_cuda[index] = temp_result[ty][tx];
  E_C[index] = e;
  W_C[index] = w;
  S_C[index] = s;
  N_C[index] = n;
}

__global__ void srad_cuda_2(float *E_C, float *W_C, float *N_C, float *S_C, float *J_cuda,
                            float *C_cuda, int cols, int rows, float lambda, float q0sqr)
{
  int bx = blockIdx.x;
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + tx;
  int index_s = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * BLOCK_SIZE + tx;
  int index_e = cols * BLOCK_SIZE * by + BLOCK_SIZE * bx + cols * ty + BLOCK_SIZE;
  float cc, cn, cs, ce, cw, d_sum;

  __shared__ float south_c[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float east_c[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float c_cuda_temp[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float c_cuda_result[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float temp[BLOCK_SIZE][BLOCK_SIZE];

  temp[ty][tx] = J_cuda[index];
  __syncthreads();

  if (by == gridDim.y - 1)
    south_c[ty][tx] = C_cuda[cols * BLOCK_SIZE * (gridDim.y - 1) + BLOCK_SIZE * bx +
                             cols * (BLOCK_SIZE - 1) + tx];
  else
    south_c[ty][tx] = C_cuda[index_s];
  __syncthreads();

  if (bx == gridDim.x - 1)
    east_c[ty][tx] = C_cuda[cols * BLOCK_SIZE * by + BLOCK_SIZE * (gridDim.x - 1) +
                            cols * ty + BLOCK_SIZE - 1];
  else
    east_c[ty][tx] = C_cuda[index_e];
  __syncthreads();

  c_cuda_temp[ty][tx] = C_cuda[index];
  __syncthreads();

  cc = c_cuda_temp[ty][tx];

  if (ty == BLOCK_SIZE - 1)
    cs = south_c[ty][tx];
  else
    cs = c_cuda_temp[ty + 1][tx];
  if (tx == BLOCK_SIZE - 1)
    ce = east_c[ty][tx];
  else
    ce = c_cuda_temp[ty][tx + 1];
  cn = cc;
  cw = cc;

  d_sum = cn * N_C[index] + cs * S_C[index] + cw * W_C[index] + ce * E_C[index];

  c_cuda_result[ty][tx] = temp[ty][tx] + 0.25 * lambda * d_sum;
  __syncthreads();

  J_cuda[index] = c_cuda_result[ty][tx];
}
