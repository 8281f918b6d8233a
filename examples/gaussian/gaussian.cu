// Rodinia Gaussian elimination, kernel Fan2 (one elimination step t on an n x n matrix a,
// multipliers m, right-hand side b), as Rodinia writes it and with the thread mapping fixed.
//
//   a[row][col] -= m[row][t] * a[t][col]  for row > t, col >= t;  b[row] -= m[row][t] * b[t]
//
// Pattern and expected figures (sm_90 model, n = 512, t = 0):
// fan2 (Rodinia's mapping; 16x16 threads, grid 32x32): xidx (threadIdx.x) picks the ROW
//   and yidx (threadIdx.y) the COLUMN, so a warp (16 x-lanes times 2 y-rows of the CTA)
//   touches 16 rows 4n = 2048 bytes apart, two adjacent columns each (one sector: the pair
//   starts at an even column). The update a[n*(xidx+1+t) + yidx+t] costs 16 sectors per
//   request for its load and its store (ideal 4); in the CTAs of the last grid column
//   (blockIdx.x = 31) lane tx = 15 is gone (xidx = 511 >= n-1-t returns): 15 sectors.
//   Per instruction: requests 32*32*8 = 8192, sectors 31*32*8*16 + 32*8*15 = 130816.
//   Algorithm 1: sorted lane addresses alternate gaps of 4 and 2048-4 = 2044 bytes: max
//   stride 2044, uncoalesced; the update's footprint (rows 1..511, all columns) is dense,
//   all_stride 4: a thread-geometry transformation fixes it.
// fan2_fixed (what the CGO 2015 paper's transformation produces; 32x8 threads, grid 16x64):
//   threadIdx.x on the column, so a warp reads 32 consecutive floats of one row, 128-byte
//   aligned: 4 sectors per request, max stride 4, coalesced. The warps of the last grid
//   row that would take row 512 (blockIdx.y = 63, threadIdx.y = 7) return before any
//   access: 16*64*8 - 16 = 8176 requests, 8176*4 = 32704 sectors per instruction.
__global__ void fan2(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - 1 - t) return;
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - t) return;

  int xidx = blockIdx.x * blockDim.x + threadIdx.x;
  int yidx = blockIdx.y * blockDim.y + threadIdx.y;

  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0) {
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
  }
}

__global__ void fan2_fixed(float *m_cuda, float *a_cuda, float *b_cuda, int Size, int j1, int t)
{
  if (threadIdx.y + blockIdx.y * blockDim.y >= Size - 1 - t) return;
  if (threadIdx.x + blockIdx.x * blockDim.x >= Size - t) return;

  int xidx = blockIdx.y * blockDim.y + threadIdx.y; // row: the slow index
  int yidx = blockIdx.x * blockDim.x + threadIdx.x; // column: the fast index

  a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= m_cuda[Size * (xidx + 1 + t) + t] * a_cuda[Size * t + (yidx + t)];
  if (yidx == 0) {
    b_cuda[xidx + 1 + t] -= m_cuda[Size * (xidx + 1 + t) + (yidx + t)] * b_cuda[t];
  }
}
