/* Loop lifting (CGO 2015 Sec. 4.3, Algorithm 2; src/fix/lift.c, poly.c) on inline CUDA
 * kernels: the legality decisions and the chosen loop, the generated text of Listing 3
 * against a hand-written expected text, and, when nvcc is on PATH, the original and the
 * lifted kernel compiled and emulated on the same launch: buffers bitwise equal, sectors
 * derived by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda/cuda.h"
#include "fix/fix_impl.h"
#include "launch/launch.h"
#include "ptx/ptx.h"
#include "util/fileio.h"

/* Runs cc_fix_lift on text (CUDA C when is_cuda; kernel k, launch grid x block,
 * parameter values vals where known) without a measured run (every statement weighs 1).
 * Returns its status; *out gets the candidates. */
static int lift_input(const char *text, int is_cuda, const char *k, const uint32_t grid[3],
                      const uint32_t block[3], int64_t *vals, uint8_t *known, uint32_t n,
                      cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_fix_opts o;
  struct cc_fix_measure before;
  memset(&o, 0, sizeof o);
  memset(&before, 0, sizeof before);
  o.input = "k.cu";
  o.input_text = text;
  o.input_len = strlen(text);
  o.input_is_cuda = is_cuda;
  o.kernel_name = k;
  memcpy(o.grid, grid, sizeof o.grid);
  memcpy(o.block, block, sizeof o.block);
  before.param_values = vals;
  before.param_known = known;
  before.nparams = n;
  return cc_fix_lift(&o, &before, out, err);
}

static int lift(const char *text, const char *k, const uint32_t grid[3], const uint32_t block[3],
                int64_t *vals, uint8_t *known, uint32_t n, cc_fix_xcands *out,
                struct cc_err *err)
{
  return lift_input(text, 1, k, grid, block, vals, known, n, out, err);
}

static void release(cc_fix_xcands *v)
{
  for (size_t i = 0; i < v->len; i++)
    cc_fix_xcand_release(&v->data[i]);
  CC_VEC_FREE(v);
}

static const char listing3[] =
  "__global__ void row(float *A, int N, float value) {\n"
  "  int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (tx < N)\n"
  "    for (int i = 0; i < N; i++)\n"
  "      A[tx * N + i] = value;\n"
  "}\n";

/* The lifted Listing 3 (n = 64, grid 2 x block 32), written by hand from the algorithm:
 * i (0..63) is x in blocks of 64 (one block), the old index g (0..63) is y in blocks of 4
 * (16 blocks). isl's AST is one guard, the domain: 0 <= g <= 63 (the launch), g < N, 0 <= i,
 * i < N; the statement keeps its text in a block that gives thread g the builtins it
 * names back (threadIdx, blockIdx, blockDim in tx's declaration; gridDim is not named). */
static const char listing3_lifted[] =
  "__global__ void row(float *A, int N, float value) {\n"
  "  /* coalcheck fix --transform lift (CGO 2015 Sec. 4.3): the loop over i is thread index x, the old global index x is y */\n"
  "  const int __cc_tx = (int)(blockIdx.x * 64u + threadIdx.x) + (0);\n"
  "  const int __cc_ty = (int)(blockIdx.y * 4u + threadIdx.y);\n"
  "  if (((((__cc_ty >= 0) && (__cc_ty <= 63)) && (__cc_tx >= 0)) && (N >= (__cc_ty + 1))) && (N >= (__cc_tx + 1))) {\n"
  "    {\n"
  "      const uint3 threadIdx = make_uint3((unsigned)(__cc_ty) % 32u, 0u, 0u);\n"
  "      const uint3 blockIdx = make_uint3((unsigned)(__cc_ty) / 32u, 0u, 0u);\n"
  "      const dim3 blockDim(32u, 1u, 1u);\n"
  "      int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "      int i = __cc_tx;\n"
  "      A[tx * N + i] = value;\n"
  "    }\n"
  "  }\n"
  "}\n";

static const uint32_t grid2[3] = {2, 1, 1}, block32[3] = {32, 1, 1};

static void test_listing3_text(void **state)
{
  int64_t vals[3] = {0, 64, 0};
  uint8_t known[3] = {0, 1, 0};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(listing3, "row", grid2, block32, vals, known, 3, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_string_equal(v.data[0].text, listing3_lifted);
  assert_string_equal(v.data[0].transform, "lift");
  assert_int_equal(v.data[0].compare, CC_FIX_COMPARE_BITWISE);
  /* x: 64 values of i in one block of 64; y: 64 threads in blocks of 256 / 64 = 4 */
  assert_int_equal(v.data[0].grid[0], 1);
  assert_int_equal(v.data[0].grid[1], 16);
  assert_int_equal(v.data[0].block[0], 64);
  assert_int_equal(v.data[0].block[1], 4);
  assert_non_null(strstr(v.data[0].what, "the loop over i at k.cu:4:5"));
  release(&v);
}

/* PolyBench covariance's covar_kernel (m = 8, n = 4): j2 is parallel (each (j1, j2)
 * element is written by one instance pair, the transposed store meets the others only on
 * the diagonal, in the same instance of j2), i carries the reduction into
 * symmat[j1*m + j2]: j2 is lifted (x: 0..7 -> one block of 32, y: 8 threads). */
static const char covar[] =
  "__global__ void covar(int m, int n, float *symmat, float *data) {\n"
  "  int j1 = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int i, j2;\n"
  "  if (j1 < m) {\n"
  "    for (j2 = j1; j2 < m; j2++) {\n"
  "      symmat[j1 * m + j2] = 0.0f;\n"
  "      for (i = 0; i < n; i++)\n"
  "        symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];\n"
  "      symmat[j2 * m + j1] = symmat[j1 * m + j2];\n"
  "    }\n"
  "  }\n"
  "}\n";

static void test_covar_choice(void **state)
{
  static const uint32_t grid1[3] = {1, 1, 1};
  int64_t vals[4] = {8, 4, 0, 0};
  uint8_t known[4] = {1, 1, 0, 0};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(covar, "covar", grid1, block32, vals, known, 4, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].what, "the loop over j2 at k.cu:5:5"));
  assert_int_equal(v.data[0].block[0], 32);
  assert_int_equal(v.data[0].block[1], 8);
  assert_int_equal(v.data[0].grid[0], 1);
  assert_int_equal(v.data[0].grid[1], 1);
  /* the reduction stays a loop inside the thread */
  assert_non_null(strstr(v.data[0].text, "for (int __cc_c"));
  assert_non_null(strstr(v.data[0].text, "j2 = __cc_tx;"));
  release(&v);
}

/* Two parallel loops: per reference, the stride along g is n*n = 16 floats, along i n = 4,
 * along j 1: lifting j removes the only non-unit-stride reference, i would not (the ILP's
 * minimum is j); i stays a loop around the generated statement, j's 4 values are x (one
 * block of 32), g's 64 values y (8 per block: 256 / 32). */
static void test_choice_of_loop(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int i = 0; i < n; i++)\n"
    "    for (int j = 0; j < n; j++)\n"
    "      A[(t * n + i) * n + j] = 1.0f;\n"
    "}\n";
  int64_t vals[2] = {0, 4};
  uint8_t known[2] = {0, 1};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(text, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].what, "the loop over j at k.cu:4:5"));
  assert_non_null(strstr(v.data[0].text, "for (int __cc_c1 = 0; (__cc_c1 < n); __cc_c1 += 1)"));
  assert_non_null(strstr(v.data[0].text, "int i = __cc_c1;"));
  assert_non_null(strstr(v.data[0].text, "int j = __cc_tx;"));
  assert_int_equal(v.data[0].block[0], 32);
  assert_int_equal(v.data[0].block[1], 8);
  assert_int_equal(v.data[0].grid[1], 8);
  release(&v);
}

/* More rows than CUDA's grid has blocks in y: 16400 x 32 = 524800 threads, i's 32 values
 * in x (block 32 x 8), so 524800 / 8 = 65600 blocks in y would be needed. Each thread
 * then loops over g: 2 trips, 65600 / 2 = 32800 blocks in y, stride 32800 x 8 = 262400. */
static void test_grid_limit_loop(void **state)
{
  static const char text[] =
    "__global__ void k(float *A) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int i = 0; i < 32; i++)\n"
    "    A[t * 32 + i] = 1.0f;\n"
    "}\n";
  static const uint32_t grid[3] = {16400, 1, 1};
  int64_t vals[1] = {0};
  uint8_t known[1] = {0};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(text, "k", grid, block32, vals, known, 1, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_int_equal(v.data[0].grid[0], 1);
  assert_int_equal(v.data[0].grid[1], 32800);
  assert_int_equal(v.data[0].block[0], 32);
  assert_int_equal(v.data[0].block[1], 8);
  /* g from the thread's index in y to the launch's last, 524799 */
  assert_non_null(strstr(v.data[0].text,
                         "for (int __cc_c0 = __cc_ty; (__cc_c0 <= 524799); __cc_c0 += 262400)"));
  assert_non_null(strstr(v.data[0].text, "make_uint3((unsigned)(__cc_c0) % 32u, 0u, 0u)"));
  release(&v);
}

/* 2-D, more rows in z than CUDA's grid has blocks: g_x = i (32 values, grid 1 x block
 * 32), g_y = b over 65535 blocks of 2 = 131070 values. Lifted: k (32) on x in a block of
 * 32, i (32) on y with the rest of the 256 threads, 8 (4 blocks), b on z one a block:
 * 131070 blocks, more than 65535, so each thread loops over b: 2 trips, 65535 blocks in
 * z, stride 65535 x 1. The original thread's builtins come back from (i, b): threadIdx =
 * (i % 32, b % 2), blockIdx = (i / 32, b / 2). */
static void test_grid_limit_2d(void **state)
{
  static const char text[] =
    "__global__ void k(float *A) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int b = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  for (int k = 0; k < 32; k++)\n"
    "    A[(b * 32 + i) * 32 + k] = 1.0f;\n"
    "}\n";
  static const uint32_t grid[3] = {1, 65535, 1}, block[3] = {32, 2, 1};
  int64_t vals[1] = {0};
  uint8_t known[1] = {0};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(text, "k", grid, block, vals, known, 1, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_int_equal(v.data[0].block[0], 32);
  assert_int_equal(v.data[0].block[1], 8);
  assert_int_equal(v.data[0].block[2], 1);
  assert_int_equal(v.data[0].grid[0], 1);
  assert_int_equal(v.data[0].grid[1], 4);
  assert_int_equal(v.data[0].grid[2], 65535);
  assert_non_null(strstr(v.data[0].text, "const int __cc_tz = (int)(blockIdx.z * 1u + threadIdx.z);"));
  /* b from the thread's index in z to the launch's last, 131069 */
  assert_non_null(strstr(v.data[0].text,
                         "for (int __cc_c0 = __cc_tz; (__cc_c0 <= 131069); __cc_c0 += 65535)"));
  assert_non_null(strstr(v.data[0].text, "make_uint3((unsigned)(__cc_ty) % 32u, "
                         "(unsigned)(__cc_c0) % 2u, 0u)"));
  assert_non_null(strstr(v.data[0].what, "the old indices x and y moved to y and z and a loop"));
  release(&v);
}

/* A private scalar written before the loop and only read in it (PolyBench's filter
 * constants, declared together without a value, and a hoisted load `float xi = x[t]`):
 * its statements are replayed by every thread of the lifted kernel, so j is legal (its
 * iterations touch A[t*n + j], distinct) and is x. Each replayed statement carries no
 * constraint on __cc_tx: its guard is the launch's (0 <= g <= 63) alone, printed before
 * the loop's guard `__cc_tx >= 0`. */
static void test_replicated_privates(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, const float *x, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float c1, c2;\n"
    "  c1 = 0.25f; c2 = 0.5f;\n"
    "  float xi = x[t];\n"
    "  for (int j = 0; j < n; j++)\n"
    "    A[t * n + j] = c1 * A[t * n + j] + c2 * xi;\n"
    "}\n";
  int64_t vals[3] = {0, 0, 64};
  uint8_t known[3] = {0, 0, 1};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  const char *decl, *c1, *loop;
  (void)state;
  if (lift(text, "k", grid2, block32, vals, known, 3, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].what, "the loop over j at k.cu:6:3"));
  decl = strstr(v.data[0].text, "  float c1;\n  float c2;\n  float xi;\n");
  c1 = strstr(v.data[0].text, "c1 = 0.25f;");
  loop = strstr(v.data[0].text, "int j = __cc_tx;");
  assert_non_null(decl);
  assert_non_null(c1);
  assert_non_null(strstr(v.data[0].text, "xi = x[t];"));
  assert_non_null(loop);
  assert_true(decl < c1 && c1 < loop);
  release(&v);
}

/* Warps of the lifted loop start on a 32-byte sector where the access relation allows
 * (64 threads t, n = 64, floats: 8 a sector):
 * - a loop from 1 over rows of 64 floats (256 bytes, sector-aligned): thread x 0 stands
 *   for j = 0 (idle), so warp w holds j = 32w..32w+31, whole sectors; x covers 0..62 (63
 *   threads: one block of 64);
 * - rows of n + 1 = 65 floats: row t starts 65 t = t (mod 8) elements into a sector, so
 *   thread x 0 is j = -(t mod 8): the shift (0 + 1 * __cc_ty) % 8, declared after
 *   __cc_ty; x covers 64 + 7 = 71 threads (block 96, 256 / 96 = 2 rows a block: grid
 *   1 x 32);
 * - a loop j += 2 from 2 (n = 256): thread x 0 at j = 0 (the step kept: x is 2 t);
 * - the same rows indexed by a loop i inside the thread (B[i*(n+1) + j]): the offset
 *   changes with i, no shift helps, thread x 0 stays j = 1. */
static void test_warp_aligned_origin(void **state)
{
  static const char from1[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 1; j < n; j++)\n"
    "    A[t * n + j] = 1.0f;\n"
    "}\n";
  static const char rows65[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 0; j < n; j++)\n"
    "    A[t * (n + 1) + j] = 1.0f;\n"
    "}\n";
  static const char inner[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 1; j < n; j++)\n"
    "    for (int i = 0; i < 4; i++)\n"
    "      A[(t * 4 + i) * (n + 1) + j] = 1.0f;\n"
    "}\n";
  static const char stepped[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 2; j < n; j += 2)\n"
    "    A[t * n + j] = 1.0f;\n"
    "}\n";
  int64_t vals[2] = {0, 64};
  uint8_t known[2] = {0, 1};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  const char *ty, *tx;
  (void)state;
  if (lift(from1, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].text,
                         "const int __cc_tx = (int)(blockIdx.x * 64u + threadIdx.x) + (0);\n"));
  assert_non_null(strstr(v.data[0].what, "(1..63, thread x 0 at 0 so that warps start on a sector)"));
  assert_int_equal(v.data[0].block[0], 64);
  assert_int_equal(v.data[0].grid[0], 1);
  release(&v);

  if (lift(rows65, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  ty = strstr(v.data[0].text, "const int __cc_ty = (int)(blockIdx.y * 2u + threadIdx.y);\n");
  tx = strstr(v.data[0].text, "const int __cc_tx = (int)(blockIdx.x * 96u + threadIdx.x) + (0) - "
              "(int)((0u + 1u * (unsigned)__cc_ty) % 8u);\n");
  assert_non_null(ty);
  assert_non_null(tx);
  assert_true(ty < tx);
  assert_int_equal(v.data[0].block[0], 96);
  assert_int_equal(v.data[0].block[1], 2);
  assert_int_equal(v.data[0].grid[0], 1);
  assert_int_equal(v.data[0].grid[1], 32);
  release(&v);

  /* j += 2 from 2 over rows of 256 floats: thread x is j = 2 x + origin; the origin 2
     - 2 d with 2 - 2 d = 0 (mod 8) is d = 1: x 0 at j = 0, 127 + 1 = 128 threads */
  vals[1] = 256;
  if (lift(stepped, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].text,
                         "const int __cc_tx = (int)(blockIdx.x * 128u + threadIdx.x) * 2 + (0);\n"));
  assert_non_null(strstr(v.data[0].what, "(2..254, step 2, thread x 0 at 0 so that warps start "
                         "on a sector)"));
  release(&v);
  vals[1] = 64;

  if (lift(inner, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].text,
                         "const int __cc_tx = (int)(blockIdx.x * 64u + threadIdx.x) + (1);\n"));
  release(&v);
}

/* `#pragma unroll 4` before the loop (a hint to nvcc, common in real kernels): the loop is
 * extracted as any other, lifted, and the generated code drops the pragma. */
static void test_pragma_unroll(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "#pragma unroll 4\n"
    "  for (int j = 0; j < n; j++)\n"
    "    A[t * n + j] = 1.0f;\n"
    "}\n";
  int64_t vals[2] = {0, 64};
  uint8_t known[2] = {0, 1};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(text, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].what, "the loop over j at k.cu:4:3"));
  assert_null(strstr(v.data[0].text + strlen("__global__"), "#pragma"));
  release(&v);
}

/* A backward recurrence over rows i (i = n - 2 down to 0, X[i] from the updated
 * X[i + 1]) with a parallel loop over columns j: j is lifted (no dependence between
 * columns), i stays a loop and must still count down: the schedule runs it over -i, so
 * the generated loop goes up over __cc_c1 = -i from -(n - 2) to 0. */
static void test_counting_down_kept(void **state)
{
  static const char text[] =
    "__global__ void k(float *X, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int i = n - 2; i >= 0; i--)\n"
    "    for (int j = 0; j < n; j++)\n"
    "      X[(t * n + i) * n + j] -= 0.5f * X[(t * n + i + 1) * n + j];\n"
    "}\n";
  int64_t vals[2] = {0, 32};
  uint8_t known[2] = {0, 1};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(text, "k", grid2, block32, vals, known, 2, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  assert_non_null(strstr(v.data[0].what, "the loop over j at k.cu:4:5"));
  assert_non_null(strstr(v.data[0].text, "for (int __cc_c1 = ((-n) + 2); (__cc_c1 <= 0); "
                                         "__cc_c1 += 1)"));
  assert_non_null(strstr(v.data[0].text, "int i = (-__cc_c1);"));
  release(&v);
}

/* Expects cc_fix_lift to refuse text with a message starting with want. */
static void expect_refusal(const char *text, const char *k, int64_t *vals, uint8_t *known,
                           uint32_t n, int is_cuda, const char *want)
{
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  assert_int_equal(lift_input(text, is_cuda, k, grid2, block32, vals, known, n, &v, &err),
                   CC_ERR_NO_FIX);
  assert_int_equal(v.len, 0);
  if (strncmp(err.msg, want, strlen(want)) != 0)
    fail_msg("got \"%s\", want a message starting \"%s\"", err.msg, want);
}

static void test_refusals(void **state)
{
  int64_t vals[3] = {0, 0, 16};
  uint8_t known[3] = {0, 0, 1};
  (void)state;
  /* the only loop is a reduction into out[t]: every i touches the same element */
  expect_refusal("__global__ void k(float *out, const float *in, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  for (int i = 0; i < n; i++)\n"
                 "    out[t] += in[t * n + i];\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:3:3: the loop over i carries a dependence (out: two instances 0 "
                 "threads and ");
  /* already unit stride along the thread index: nothing to lift */
  expect_refusal("__global__ void k(float *out, const float *in, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  if (t < n)\n"
                 "  for (int i = 0; i < n; i++)\n"
                 "    out[i * n + t] = in[i * n + t];\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:1:17: already coalesced");
  /* every thread adds into out[0]: the original's threads are not independent */
  expect_refusal("__global__ void k(float *out, const float *in, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  for (int i = 0; i < n; i++)\n"
                 "    out[0] += in[t * n + i];\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:1:17: threads of kernel k share an element");
  /* the value read before the loop is an element the loop writes (iteration 5): the
     replayed read in thread j = 6 would race with thread 5's write */
  expect_refusal("__global__ void k(float *A, const float *x, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  float a5 = A[t * n + 5];\n"
                 "  for (int j = 0; j < n; j++)\n"
                 "    A[t * n + j] = A[t * n + j] * a5;\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:4:3: the loop over j carries a dependence (A: two instances 0 "
                 "threads and ");
  /* a sum the loop accumulates is not replayed: its first value is set once */
  expect_refusal("__global__ void k(float *out, const float *in, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  float s = 0;\n"
                 "  for (int i = 0; i < n; i++)\n"
                 "    s += in[t * n + i];\n"
                 "  out[t] = s;\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:4:3: the loop over i carries a dependence (s: ");
  /* a barrier, with its place */
  expect_refusal("__global__ void k(float *out, const float *in, int n) {\n"
                 "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  for (int i = 0; i < n; i++) {\n"
                 "    out[t * n + i] = in[t];\n"
                 "    __syncthreads();\n"
                 "  }\n"
                 "}\n", "k", vals, known, 3, 1,
                 "k.cu:5:5: a call to __syncthreads");
  /* PTX input */
  expect_refusal("", "k", vals, known, 3, 0, "k.cu: loop lifting (CGO 2015 Sec. 4.3) needs "
                 "the kernel's CUDA C source");
}

/* ---- with nvcc: the lifted kernel compiled and emulated ---- */

static int have_nvcc(void)
{
  return system("command -v nvcc >/dev/null 2>&1") == 0;
}

/* Compiles text (written to dir/name) with nvcc and parses its PTX. */
static struct ptx_module *compile(const char *dir, const char *name, const char *text)
{
  char path[1024], ptx[1100], cmd[3000];
  struct ptx_module *m = NULL;
  struct cc_err err = {CC_OK, ""};
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  snprintf(ptx, sizeof ptx, "%s.ptx", path);
  f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
  snprintf(cmd, sizeof cmd, "nvcc -ptx -arch=sm_90 -lineinfo -o '%s' '%s'", ptx, path);
  if (system(cmd) != 0)
    fail_msg("nvcc failed on %s:\n%s", name, text);
  if (ptx_parse_file(ptx, &m, &err) != CC_OK)
    fail_msg("ptx: %s", err.msg);
  unlink(ptx);
  unlink(path);
  return m;
}

static const struct ptx_function *entry(const struct ptx_module *m)
{
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].is_entry)
      return &m->funcs[i];
  fail_msg("no .entry");
  return NULL;
}

/* Emulates text's kernel with the launch (args: nargs specs) into *out. */
static void measure(const char *dir, const char *name, const char *text, const uint32_t grid[3],
                    const uint32_t block[3], const char *const *specs, size_t nargs,
                    struct cc_fix_measure *out)
{
  struct ptx_module *m = compile(dir, name, text);
  struct cc_launch_arg args[8];
  struct cc_fix_launch l;
  struct cc_err err = {CC_OK, ""};
  memset(args, 0, sizeof args);
  for (size_t i = 0; i < nargs; i++)
    if (cc_launch_arg_parse(specs[i], NULL, &args[i], &err) != CC_OK)
      fail_msg("arg: %s", err.msg);
  memset(&l, 0, sizeof l);
  memcpy(l.grid, grid, sizeof l.grid);
  memcpy(l.block, block, sizeof l.block);
  l.args = args;
  l.nargs = nargs;
  if (cc_fix_measure(m, entry(m), &l, out, &err) != CC_OK)
    fail_msg("measure %s: %s", name, err.msg);
  for (size_t i = 0; i < nargs; i++)
    cc_launch_arg_release(&args[i]);
  ptx_module_free(m);
}

/* Listing 3 with n = 64 (grid 2 x block 32), value 0.5 + i stored: before, each store
 * request has 32 lanes 256 bytes apart, 32 sectors; 2 warps x 64 iterations = 128
 * requests, 4096 sectors. Lifted (block 64 x 4, grid 1 x 16): a warp stores 32
 * consecutive floats of a row, 4 sectors; 64 x 64 / 32 = 128 requests, 512 sectors. */
static void test_listing3_emulated(void **state)
{
  static const char text[] =
    "__global__ void row(float *A, int N, float value) {\n"
    "  int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (tx < N)\n"
    "    for (int i = 0; i < N; i++)\n"
    "      A[tx * N + i] = value + (float)i;\n"
    "}\n";
  static const char *const specs[] = {"A=f32[N*N]:zero", "N=64", "value=0.5"};
  struct cc_fix_measure before, after;
  struct cc_fix_opts o;
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  char why[256], *dir;
  (void)state;
  if (!have_nvcc())
    skip();
  dir = cc_tmpdir_make(&err);
  assert_non_null(dir);
  measure(dir, "row.cu", text, grid2, block32, specs, 3, &before);
  memset(&o, 0, sizeof o);
  o.input = "row.cu";
  o.input_text = text;
  o.input_len = strlen(text);
  o.input_is_cuda = 1;
  o.kernel_name = "row";
  memcpy(o.grid, grid2, sizeof o.grid);
  memcpy(o.block, block32, sizeof o.block);
  if (cc_fix_lift(&o, &before, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  measure(dir, "row_lifted.cu", v.data[0].text, v.data[0].grid, v.data[0].block, specs, 3,
          &after);
  if (!cc_fix_buffers_equal(&before, &after, why, sizeof why))
    fail_msg("outputs differ: %s", why);
  assert_int_equal(cc_fix_measure_kernel(&before)->totals.requests, 128);
  assert_int_equal(cc_fix_measure_kernel(&before)->totals.sectors, 4096);
  assert_int_equal(cc_fix_measure_kernel(&after)->totals.requests, 128);
  assert_int_equal(cc_fix_measure_kernel(&after)->totals.sectors, 512);
  cc_fix_measure_release(&before);
  cc_fix_measure_release(&after);
  release(&v);
  rmdir(dir);
  free(dir);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_listing3_text),
    cmocka_unit_test(test_covar_choice),
    cmocka_unit_test(test_choice_of_loop),
    cmocka_unit_test(test_grid_limit_loop),
    cmocka_unit_test(test_grid_limit_2d),
    cmocka_unit_test(test_replicated_privates),
    cmocka_unit_test(test_warp_aligned_origin),
    cmocka_unit_test(test_pragma_unroll),
    cmocka_unit_test(test_counting_down_kept),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_listing3_emulated),
  };
  if (!cc_cuda_available()) {
    fprintf(stderr, "skipped: coalcheck was built without libclang\n");
    return 77;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
