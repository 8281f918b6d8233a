/* The affine extractor of loop lifting (cuda/scop.h) on inline kernels: iteration
 * domains and access relations in isl's notation, written by hand from the source (the
 * printer's order: constraints as met, outermost first, variables in the order first
 * seen), and each refusal with its place. */
#include "cuda/harness.h"
#include "cuda/scop.h"

static const uint32_t grid2[3] = {2, 1, 1}, block32[3] = {32, 1, 1};

/* Extracts kernel k of text with the launch 2 x 32 and parameter values vals (known
 * where known[i]); fails the test on an error. */
static void extract(struct fixture *f, const char *text, const char *k, const int64_t *vals,
                    const uint8_t *known, uint32_t n, struct cc_cuda_scop *s)
{
  struct cc_err err = {CC_OK, ""};
  const char *path = put(f, "k.cu", text);
  int rc = cc_cuda_scop_extract(path, text, strlen(text), k, grid2, block32, vals, known, n,
                                NULL, 0, s, &err);
  if (rc != CC_OK)
    fail_msg("extract: %s", err.msg);
}

static void expect_str(char *got, const char *want)
{
  assert_string_equal(got, want);
  free(got);
}

/* CGO 2015 Listing 3: each thread stores its own row. g = blockIdx.x*32 + threadIdx.x
 * ranges over 0..63 (grid 2 x block 32); i over 0..N-1 with N = 16 by value. */
static void test_listing3(void **state)
{
  static const char text[] =
    "__global__ void row(float *A, int N, float value) {\n"
    "  int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int i = 0; i < N; i++)\n"
    "    A[tx * N + i] = value;\n"
    "}\n";
  static const int64_t vals[3] = {0, 16, 0};
  static const uint8_t known[3] = {0, 1, 0};
  struct cc_cuda_scop s;
  extract(*state, text, "row", vals, known, 3, &s);
  assert_int_equal(s.nstmts, 1);
  assert_int_equal(s.stmts[0].line, 4);
  assert_int_equal(s.stmts[0].column, 5);
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 0),
             "[N] -> { S0[__cc_g, i] : __cc_g >= 0 and -__cc_g + 63 >= 0 and i >= 0 and "
             "-i + N - 1 >= 0 }");
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 1),
             "{ S0[__cc_g, i] : __cc_g >= 0 and -__cc_g + 63 >= 0 and i >= 0 and "
             "-i + 15 >= 0 }");
  /* tx * N + i with N = 16: the quasi-affine product made affine by the launch */
  expect_str(cc_cuda_scop_isl_access(&s, 0, 1), "{ S0[__cc_g, i] -> A[16 * __cc_g + i] }");
  expect_str(cc_cuda_scop_isl_access(&s, 0, 0), "{  }");
  assert_string_equal(s.vars[1].type, "int");
  cc_cuda_scop_release(&s);
}

/* PolyBench's covar_kernel: counters declared before their loops, a guard, a triangular
 * loop j2 = j1..m-1, a reduction over i into memory, three statements. m = 8, n = 4. */
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

static void test_covariance(void **state)
{
  static const int64_t vals[4] = {8, 4, 0, 0};
  static const uint8_t known[4] = {1, 1, 0, 0};
  struct cc_cuda_scop s;
  extract(*state, covar, "covar", vals, known, 4, &s);
  assert_int_equal(s.nstmts, 3);
  /* S1: g < m (the guard: m - g - 1 >= 0), j2 >= j1 = g, j2 < m, 0 <= i < n; m is
   * met (in the guard) before j2, so it prints first in j2's bound */
  expect_str(cc_cuda_scop_isl_domain(&s, 1, 0),
             "[m, n] -> { S1[__cc_g, j2, i] : __cc_g >= 0 and -__cc_g + 63 >= 0 and "
             "-__cc_g + m - 1 >= 0 and -__cc_g + j2 >= 0 and m - j2 - 1 >= 0 and i >= 0 and "
             "-i + n - 1 >= 0 }");
  /* op= reads and writes symmat[8 g + j2]; data[8 i + g] and data[8 i + j2] read */
  expect_str(cc_cuda_scop_isl_access(&s, 1, 1), "{ S1[__cc_g, j2, i] -> symmat[8 * __cc_g + j2] }");
  expect_str(cc_cuda_scop_isl_access(&s, 1, 0),
             "{ S1[__cc_g, j2, i] -> symmat[8 * __cc_g + j2]; S1[__cc_g, j2, i] -> "
             "data[__cc_g + 8 * i]; S1[__cc_g, j2, i] -> data[j2 + 8 * i] }");
  expect_str(cc_cuda_scop_isl_access(&s, 2, 1), "{ S2[__cc_g, j2] -> symmat[__cc_g + 8 * j2] }");
  /* the counters were declared before their loops: no type, the declaration is kept */
  assert_null(s.vars[1].type);
  assert_int_equal(s.stmts[2].ndecls, 2);
  /* textual order: S0 before the i loop before S2, all inside j2 */
  assert_true(s.stmts[0].beta[1] < s.stmts[1].beta[1] && s.stmts[1].beta[1] < s.stmts[2].beta[1]);
  assert_int_equal(s.stmts[0].beta[0], s.stmts[2].beta[0]);
  cc_cuda_scop_release(&s);
}

/* A loop of step 2 from 1 (a red-black half sweep): its values are 1 + 2 k, in the
 * domain as an existential (m = 8 by value in the numeric form). */
static void test_stepped_loop(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, int m) {\n"
    "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 1; j < m - 1; j += 2)\n"
    "    A[g * m + j] = 0.0f;\n"
    "}\n";
  static const int64_t vals[2] = {0, 8};
  static const uint8_t known[2] = {0, 1};
  struct cc_cuda_scop s;
  extract(*state, text, "k", vals, known, 2, &s);
  assert_int_equal(s.nstmts, 1);
  assert_int_equal(s.vars[s.stmts[0].loops[0]].step, 2);
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 1),
             "{ S0[__cc_g, j] : __cc_g >= 0 and -__cc_g + 63 >= 0 and j - 1 >= 0 and "
             "-j + 6 >= 0 and exists (__cc_e0 : j = 1 + 2 __cc_e0) }");
  cc_cuda_scop_release(&s);
}

/* Counting down by 2 from m - 2 = 6 while j >= 1: j <= 6 (the start bounds from above),
 * j >= 1, and j = 6 - 2 k. */
static void test_loop_counting_down(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, int m) {\n"
    "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = m - 2; j >= 1; j -= 2)\n"
    "    A[g * m + j] = 0.0f;\n"
    "}\n";
  static const int64_t vals[2] = {0, 8};
  static const uint8_t known[2] = {0, 1};
  struct cc_cuda_scop s;
  extract(*state, text, "k", vals, known, 2, &s);
  assert_int_equal(s.vars[s.stmts[0].loops[0]].step, -2);
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 1),
             "{ S0[__cc_g, j] : __cc_g >= 0 and -__cc_g + 63 >= 0 and -j + 6 >= 0 and "
             "j - 1 >= 0 and exists (__cc_e0 : j = 6 - 2 __cc_e0) }");
  cc_cuda_scop_release(&s);
}

/* A sum in a register, declared inside the loop over j: a private scalar indexed by g
 * and j (a fresh copy per iteration), its declaration the statement `s = 0.0f`. */
static void test_private_scalar(void **state)
{
  static const char text[] =
    "__global__ void k(float *C, const float *A, const float *B, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int j = 0; j < n; j++) {\n"
    "    float s = 0.0f;\n"
    "    for (int k = 0; k < n; k++)\n"
    "      s += A[i * n + k] * B[k * n + j];\n"
    "    C[i * n + j] = s;\n"
    "  }\n"
    "}\n";
  static const int64_t vals[4] = {0, 0, 0, 8};
  static const uint8_t known[4] = {0, 0, 0, 1};
  struct cc_cuda_scop s;
  extract(*state, text, "k", vals, known, 4, &s);
  assert_int_equal(s.nstmts, 3);
  assert_int_equal(s.nprivs, 1);
  assert_string_equal(s.privs[0].name, "s");
  assert_string_equal(s.privs[0].type, "float");
  assert_string_equal(s.stmts[0].text, "s = 0.0f");
  expect_str(cc_cuda_scop_isl_access(&s, 0, 1), "{ S0[__cc_g, j] -> s[__cc_g, j] }");
  expect_str(cc_cuda_scop_isl_access(&s, 1, 1), "{ S1[__cc_g, j, k] -> s[__cc_g, j] }");
  expect_str(cc_cuda_scop_isl_access(&s, 1, 0),
             "{ S1[__cc_g, j, k] -> s[__cc_g, j]; S1[__cc_g, j, k] -> A[8 * __cc_g + k]; "
             "S1[__cc_g, j, k] -> B[j + 8 * k] }");
  expect_str(cc_cuda_scop_isl_access(&s, 2, 0), "{ S2[__cc_g, j] -> s[__cc_g, j] }");
  cc_cuda_scop_release(&s);
}

/* An else branch gets the negated comparison. */
static void test_else(void **state)
{
  static const char text[] =
    "__global__ void k(float *a, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (t < n) a[t] = 1.0f;\n"
    "  else a[t] = 2.0f;\n"
    "}\n";
  static const int64_t vals[2] = {0, 40};
  static const uint8_t known[2] = {0, 1};
  struct cc_cuda_scop s;
  extract(*state, text, "k", vals, known, 2, &s);
  assert_int_equal(s.nstmts, 2);
  expect_str(cc_cuda_scop_isl_domain(&s, 1, 0),
             "[n] -> { S1[__cc_g] : __cc_g >= 0 and -__cc_g + 63 >= 0 and __cc_g - n >= 0 }");
  cc_cuda_scop_release(&s);
}

/* `if (c) return;` bounds the rest by !c. */
static void test_return_guard(void **state)
{
  static const char text[] =
    "__global__ void k(float *a, int n) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (t >= n) return;\n"
    "  a[t] = 1.0f;\n"
    "}\n";
  static const int64_t vals[2] = {0, 40};
  static const uint8_t known[2] = {0, 1};
  struct cc_cuda_scop s;
  extract(*state, text, "k", vals, known, 2, &s);
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 0),
             "[n] -> { S0[__cc_g] : __cc_g >= 0 and -__cc_g + 63 >= 0 and -__cc_g + n - 1 >= 0 }");
  cc_cuda_scop_release(&s);
}

/* Each refusal names its place and the construct. */
static void expect_refusal_in(struct fixture *f, const char *body, const uint32_t grid[3],
                              const uint32_t block[3], const char *where, const char *what)
{
  static const int64_t vals[3] = {0, 16, 0};
  static const uint8_t known[3] = {0, 1, 0};
  char text[2048], want[256];
  struct cc_cuda_scop s;
  struct cc_err err = {CC_OK, ""};
  const char *path;
  snprintf(text, sizeof text,
           "__global__ void k(float *A, int N, const int *rowptr) {\n"
           "  int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "%s"
           "}\n", body);
  path = put(f, "r.cu", text);
  assert_int_equal(cc_cuda_scop_extract(path, text, strlen(text), "k", grid, block, vals,
                                        known, 3, NULL, 0, &s, &err), CC_ERR_NO_FIX);
  snprintf(want, sizeof want, "%s:%s: %s", path, where, what);
  if (strncmp(err.msg, want, strlen(want)) != 0)
    fail_msg("got \"%s\", want a message starting \"%s\"", err.msg, want);
  assert_int_equal(s.nstmts, 0);
}

static void expect_refusal(struct fixture *f, const char *body, const char *where,
                           const char *what)
{
  expect_refusal_in(f, body, grid2, block32, where, what);
}

static void test_refusals(void **state)
{
  static const uint32_t block32x4[3] = {32, 4, 1}, grid2x2[3] = {2, 2, 1};
  expect_refusal(*state, "  for (int i = rowptr[tx]; i < rowptr[tx + 1]; i++) A[i] = 0;\n",
                 "3:16", "the loop start `rowptr[tx]` is not affine");
  expect_refusal(*state, "  for (int i = 0; i < rowptr[tx + 1]; i++) A[i] = 0;\n",
                 "3:23", "the loop bound `rowptr[tx + 1]` is not affine");
  expect_refusal(*state, "  A[tx] = 1.0f;\n  __syncthreads();\n", "4:3",
                 "a call to __syncthreads");
  expect_refusal(*state, "  A[threadIdx.x] = 1.0f;\n", "3:5",
                 "`threadIdx.x` in the subscript is not affine: threadIdx.x and blockIdx.x are "
                 "used apart from blockIdx.x * blockDim.x + threadIdx.x");
  expect_refusal(*state, "#define IDX(r, c) ((r) * N + (c))\n  A[IDX(tx, 0)] = 1.0f;\n", "4:5",
                 "`IDX(tx, 0)` in the subscript is not affine: its operator is written in a "
                 "macro's body");
  expect_refusal(*state, "  A[tx * tx] = 1.0f;\n", "3:5", "the subscript `tx * tx` is not affine");
  expect_refusal(*state, "  for (int i = 0; i < N; i += tx) A[i] = 0;\n", "3:26",
                 "the loop step is not a constant of 1 to 1024");
  expect_refusal(*state, "  tx = 0;\n  A[tx] = 1.0f;\n", "3:3",
                 "the statement `tx = 0` assigns an integer that is an affine value or a loop "
                 "counter");
  expect_refusal(*state, "  int v = tx;\n  { float v = 2.0f; A[tx] = v; }\n", "4:5",
                 "v hides another local variable of that name");
  /* with 2 blocks in y, threadIdx.y alone is g_y mod 4: not affine in g_y */
  expect_refusal_in(*state, "  float v = 0.0f;\n  A[tx + threadIdx.y] = v;\n", grid2x2,
                    block32x4, "4:5", "`tx + threadIdx.y` in the subscript is not affine: "
                    "threadIdx.y and blockIdx.y are used apart from blockIdx.y * blockDim.y + "
                    "threadIdx.y");
  expect_refusal(*state, "  if (tx < N && tx > 2) A[tx] = 0; else A[tx] = 1;\n", "3:7",
                 "the condition (negated, for the else branch) `tx < N && tx > 2` is not affine");
  expect_refusal_in(*state, "  int y = blockIdx.y * 8 + threadIdx.y;\n  A[tx + y] = 0;\n",
                    grid2x2, block32x4, "4:5", "`tx + y` in the subscript is not affine: "
                    "threadIdx.y and blockIdx.y are used apart from");
}

/* A 2-D kernel (grid 2 x 2, block 32 x 4): g_x = blockIdx.x * 32 + threadIdx.x over 0..63
 * and g_y = blockIdx.y * 4 + threadIdx.y over 0..7 are the tuple's first two variables;
 * (y * 64 + x) * N + i with N = 16 is 16 g_x + 1024 g_y + i. threadIdx.y read in a float
 * (a statement's value) is fine: the lifted kernel gives it back. With one block in y,
 * threadIdx.y alone is g_y. */
static void test_two_dimensions(void **state)
{
  static const char text[] =
    "__global__ void k(float *A, int N) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  for (int i = 0; i < N; i++)\n"
    "    A[(y * 64 + x) * N + i] = threadIdx.y;\n"
    "}\n";
  static const char text1[] =
    "__global__ void k(float *A, int N) {\n"
    "  A[threadIdx.y * 64 + blockIdx.x * blockDim.x + threadIdx.x] = 0;\n"
    "}\n";
  static const uint32_t grid[3] = {2, 2, 1}, grid1[3] = {2, 1, 1}, block[3] = {32, 4, 1};
  static const int64_t vals[2] = {0, 16};
  static const uint8_t known[2] = {0, 1};
  struct cc_err err = {CC_OK, ""};
  struct cc_cuda_scop s;
  const char *path = put(*state, "k2.cu", text);
  if (cc_cuda_scop_extract(path, text, strlen(text), "k", grid, block, vals, known, 2, NULL, 0,
                           &s, &err) != CC_OK)
    fail_msg("extract: %s", err.msg);
  assert_int_equal(s.ngeo, 2);
  assert_int_equal(s.extent[1], 8);
  expect_str(cc_cuda_scop_isl_domain(&s, 0, 0),
             "[N] -> { S0[__cc_g, __cc_gy, i] : __cc_g >= 0 and -__cc_g + 63 >= 0 and "
             "__cc_gy >= 0 and -__cc_gy + 7 >= 0 and i >= 0 and -i + N - 1 >= 0 }");
  expect_str(cc_cuda_scop_isl_access(&s, 0, 1),
             "{ S0[__cc_g, __cc_gy, i] -> A[16 * __cc_g + 1024 * __cc_gy + i] }");
  cc_cuda_scop_release(&s);
  path = put(*state, "k1.cu", text1);
  if (cc_cuda_scop_extract(path, text1, strlen(text1), "k", grid1, block, vals, known, 2, NULL,
                           0, &s, &err) != CC_OK)
    fail_msg("extract: %s", err.msg);
  expect_str(cc_cuda_scop_isl_access(&s, 0, 1), "{ S0[__cc_g, __cc_gy] -> A[__cc_g + 64 * __cc_gy] }");
  cc_cuda_scop_release(&s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_listing3, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_two_dimensions, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_covariance, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_return_guard, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_else, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_stepped_loop, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_loop_counting_down, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_private_scalar, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
