/* The sparse matrix of bench/table3's SpMV case, in CSR: ROWS x ROWS, row r holding
 * K/2 + (x mod (K+1)) entries (uniform in [K/2, 3K/2], mean K) at uniformly random columns,
 * sorted within the row (duplicates allowed, as in a random SHOC-style matrix); x is the
 * next output of splitmix64 seeded with SEED (the generator of docs/usage.md's random
 * initialiser), so every machine writes the same bytes (the launch plans check their
 * FNV-1a hash on the GPU).
 *
 *   gen_csr ROWS K SEED DIR   writes DIR/spmv-rowptr.s32 (ROWS + 1 int32: row starts)
 *                             and DIR/spmv-cols.s32 (nnz int32), prints nnz
 * Exit 0, 2 on bad arguments, 1 when a file cannot be written. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t next(uint64_t *state)
{
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Writes count int32 of v to dir/name; 0 on success. */
static int write_s32(const char *dir, const char *name, const int32_t *v, size_t count)
{
  char path[4096];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(f = fopen(path, "wb")) || fwrite(v, sizeof *v, count, f) != count || fclose(f) != 0) {
    fprintf(stderr, "gen_csr: error: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 5) {
    fprintf(stderr, "usage: gen_csr ROWS K SEED DIR\n");
    return 2;
  }
  long rows = strtol(argv[1], NULL, 10), k = strtol(argv[2], NULL, 10);
  uint64_t state = strtoull(argv[3], NULL, 10);
  if (rows < 1 || rows > (1L << 26) || k < 2 || k > 1024) {
    fprintf(stderr, "gen_csr: error: ROWS must be 1..2^26 and K 2..1024\n");
    return 2;
  }
  int32_t *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr);
  int32_t *cols = malloc((size_t)rows * (size_t)(k + k / 2 + 1) * sizeof *cols);
  if (!rowptr || !cols) {
    fprintf(stderr, "gen_csr: error: out of memory\n");
    return 1;
  }
  size_t nnz = 0;
  for (long r = 0; r < rows; r++) {
    long len = k / 2 + (long)(next(&state) % (uint64_t)(k + 1));
    rowptr[r] = (int32_t)nnz;
    for (long e = 0; e < len; e++) { /* insertion: the row stays sorted */
      int32_t c = (int32_t)(next(&state) % (uint64_t)rows);
      size_t p = nnz + (size_t)e;
      while (p > nnz && cols[p - 1] > c) {
        cols[p] = cols[p - 1];
        p--;
      }
      cols[p] = c;
    }
    nnz += (size_t)len;
  }
  rowptr[rows] = (int32_t)nnz;
  if (write_s32(argv[4], "spmv-rowptr.s32", rowptr, (size_t)rows + 1) ||
      write_s32(argv[4], "spmv-cols.s32", cols, nnz))
    return 1;
  printf("%zu\n", nnz);
  free(rowptr);
  free(cols);
  return 0;
}
