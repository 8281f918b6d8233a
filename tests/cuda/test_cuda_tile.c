/* src/cuda/tile.c: the source side of `coalcheck fix --transform tile` on inline CUDA
 * texts: the rewritten kernel against a text written by hand, the reverse orientation
 * (load coalesced along y), and every refusal with its place. Compiling and emulating the
 * rewrites is tests/fix/test_fix_tile.c's part. */
#include "cuda/harness.h"
#include "cuda/tile.h"

/* The transpose of an n x n matrix with a guard, the class's plainest member. */
static const char naive[] =
  "__global__ void k(float *out, const float *in, int n)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < n && y < n)\n"
  "    out[x * n + y] = in[y * n + x];\n"
  "}\n";

/* in = parameter 1, out = parameter 0; the load along x; n = 64 with 32x8 threads: grid
 * 2 x 8 */
static struct cc_cuda_tile_spec spec_naive(uint32_t rows, uint32_t pad)
{
  struct cc_cuda_tile_spec s = {1, 0, 0, 32, rows, pad, {2, 8}, {32, 8}};
  return s;
}

static int tile(struct fixture *f, const char *name, const char *src,
                const struct cc_cuda_tile_spec *s, struct cc_cuda_tile_result *r,
                struct cc_err *err)
{
  const char *path = put(f, name, src);
  memset(err, 0, sizeof *err);
  return cc_cuda_tile(path, src, strlen(src), "k", s, NULL, 0, r, err);
}

/* The whole rewrite, written by hand: the body kept byte for byte inside the lambda, the
 * store done in phase 1 only, its value read from the tile; X = 2*32 = 64, Y = 8*8 = 64;
 * the played thread's threadIdx = (gx % 32, gy % 8), blockIdx = (gx / 32, gy / 8),
 * blockDim (32, 8); gridDim is not read, so not declared (nvcc would warn). The body's
 * braces were on lines 2 and 7: #line 2 before it, #line 7 before the rest of line 7. */
static void test_rewrite_naive(void **state)
{
  static const char want[] =
    "__global__ void k(float *out, const float *in, int n)\n"
    "{\n"
    "  /* coalcheck fix --transform tile: a 32x32 tile of the transposition staged through\n"
    "     shared memory (+1 padding: conflict-free columns). Each thread plays threads of\n"
    "     the original launch (grid 2 x 8, block 32 x 8): in phase 0 those whose load is\n"
    "     coalesced, in phase 1 those whose store is; the original body runs as written,\n"
    "     its load going through the tile. */\n"
    "  __shared__ float __cc_tile[32][33];\n"
    "  for (int __cc_phase = 0; __cc_phase < 2; __cc_phase++) {\n"
    "    if (__cc_phase == 1)\n"
    "      __syncthreads();\n"
    "    for (unsigned __cc_r = 0; __cc_r < 32u; __cc_r += 8u) {\n"
    "      const unsigned __cc_i = __cc_phase == 0 ? threadIdx.x : threadIdx.y + __cc_r;\n"
    "      const unsigned __cc_j = __cc_phase == 0 ? threadIdx.y + __cc_r : threadIdx.x;\n"
    "      const unsigned __cc_gx = blockIdx.x * 32u + __cc_i, __cc_gy = blockIdx.y * 32u + __cc_j;\n"
    "      [=]() mutable {\n"
    "        if (__cc_gx >= 64u || __cc_gy >= 64u)\n"
    "          return;\n"
    "        const uint3 threadIdx = make_uint3(__cc_gx % 32u, __cc_gy % 8u, 0u);\n"
    "        const uint3 blockIdx = make_uint3(__cc_gx / 32u, __cc_gy / 8u, 0u);\n"
    "        const dim3 blockDim(32u, 8u, 1u);\n"
    "#line 2\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x < n && y < n)\n"
    "    (__cc_phase == 0 ? (void)(__cc_tile[__cc_j][__cc_i] = in[y * n + x]) : "
    "(void)(out[x * n + y] = __cc_tile[__cc_j][__cc_i]));\n"
    "}\n"
    "      }();\n"
    "    }\n"
    "  }\n"
    "}\n"
    "#line 7\n"
    "\n";
  struct fixture *f = *state;
  struct cc_cuda_tile_spec s = spec_naive(8, 1);
  struct cc_cuda_tile_result r;
  struct cc_err err;
  assert_int_equal(tile(f, "naive.cu", naive, &s, &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.len, strlen(want));
  assert_string_equal(r.elt, "float");
  /* in[ at 6:22, out[ at 6:5 */
  assert_int_equal(r.load_line, 6);
  assert_int_equal(r.load_column, 22);
  assert_int_equal(r.store_line, 6);
  assert_int_equal(r.store_column, 5);
  cc_cuda_tile_result_release(&r);
}

/* The load coalesced along y (load_dim 1): the tile's i runs along y, so gx takes j and gy
 * takes i; the block 32x32 loop runs once; pad 0 leaves [32][32]; the element type is the
 * typedef's canonical type; the loaded value kept in a local (the load outside the store:
 * evaluated in both phases, through the tile in phase 1); a macro index. */
static void test_rewrite_reverse(void **state)
{
  static const char src[] =
    "typedef double real;\n"
    "#define RM(r, c, ld) ((r) * (ld) + (c))\n"
    "__global__ void k(real *out, const real *in, int ld)\n"
    "{\n"
    "  int r = blockIdx.x * 32 + threadIdx.x, c = blockIdx.y * 32 + threadIdx.y;\n"
    "  real v = in[RM(r, c, ld)];\n"
    "  out[RM(c, r, ld)] = v;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_tile_spec s = {1, 0, 1, 32, 32, 0, {2, 2}, {32, 32}};
  struct cc_cuda_tile_result r;
  struct cc_err err;
  assert_int_equal(tile(f, "reverse.cu", src, &s, &r, &err), CC_OK);
  assert_string_equal(r.elt, "double");
  assert_non_null(strstr(r.text, "  __shared__ double __cc_tile[32][32];\n"));
  assert_non_null(strstr(r.text, "__cc_r < 32u; __cc_r += 32u)"));
  assert_non_null(strstr(r.text, "__cc_gx = blockIdx.x * 32u + __cc_j, __cc_gy = blockIdx.y * "
                                 "32u + __cc_i;"));
  assert_non_null(strstr(r.text, "const uint3 threadIdx = make_uint3(__cc_gx % 32u, __cc_gy % "
                                 "32u, 0u);"));
  /* neither blockDim nor gridDim is read */
  assert_null(strstr(r.text, "blockDim"));
  assert_null(strstr(r.text, "gridDim"));
  assert_non_null(strstr(r.text, "  real v = (__cc_phase == 0 ? (__cc_tile[__cc_j][__cc_i] = "
                                 "in[RM(r, c, ld)]) : __cc_tile[__cc_j][__cc_i]);\n"));
  assert_non_null(strstr(r.text, "  (__cc_phase == 0 ? (void)0 : (void)(out[RM(c, r, ld)] = v));\n"));
  assert_int_equal(r.load_line, 6);
  assert_int_equal(r.store_line, 7);
  cc_cuda_tile_result_release(&r);
}

/* A template kernel: the element type as written (its canonical spelling,
 * "type-parameter-0-0", is no C++). */
static void test_template(void **state)
{
  static const char src[] =
    "template <typename T>\n"
    "__global__ void k(double *out, const T *in, int n)\n"
    "{\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  if (x >= n || y >= n)\n"
    "    return;\n"
    "  out[x * n + y] = (double)in[y * n + x] * 2.0;\n"
    "}\n"
    "template __global__ void k<float>(double *, const float *, int);\n";
  struct fixture *f = *state;
  struct cc_cuda_tile_spec s = spec_naive(8, 1);
  struct cc_cuda_tile_result r;
  struct cc_err err;
  assert_int_equal(tile(f, "template.cu", src, &s, &r, &err), CC_OK);
  assert_string_equal(r.elt, "T");
  assert_non_null(strstr(r.text, "  __shared__ T __cc_tile[32][33];\n"));
  assert_non_null(strstr(r.text, "  (__cc_phase == 0 ? (void)((double)(__cc_tile[__cc_j][__cc_i] = "
                                 "in[y * n + x]) * 2.0) : (void)(out[x * n + y] = "
                                 "(double)__cc_tile[__cc_j][__cc_i] * 2.0));\n"));
  /* the explicit instantiation after the kernel stays */
  assert_non_null(strstr(r.text, "#line 8\n\ntemplate __global__ void k<float>"));
  cc_cuda_tile_result_release(&r);
}

/* ---- refusals: the message names the place and the reason ---- */

struct refusal {
  const char *name, *src;
  const char *where; /* ":LINE:COL: " after the path */
  const char *why;   /* a part of the message */
};

#define K "__global__ void k(float *out, const float *in, int n)\n{\n" \
          "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"

static const struct refusal refusals[] = {
  {"read_twice", K "  out[x * n + y] = in[y * n + x] + in[y * n + x + 1];\n}\n", ":4:36: ",
   "in is read here a second time"},
  {"reads_out", K "  out[x * n + y] = in[y * n + x] + out[x * n + y];\n}\n", ":4:36: ",
   "the output array of the transposition is read here"},
  {"compound", K "  out[x * n + y] += in[y * n + x];\n}\n", ":4:3: ",
   "the output array of the transposition is read here"},
  {"loop", K "  for (int j = 0; j < 32; j += 8)\n    out[x * n + y + j] = in[(y + j) * n + x];\n}\n",
   ":5:26: ", "in[...] is inside a loop"},
  {"barrier", K "  __syncthreads();\n  out[x * n + y] = in[y * n + x];\n}\n", ":4:3: ",
   "__syncthreads, a barrier or warp-level operation"},
  {"shuffle", K "  float v = __shfl_sync(0xffffffffu, in[y * n + x], 0);\n  out[x * n + y] = v;\n}\n",
   ":4:13: ", "__shfl_sync, a barrier or warp-level operation"},
  {"shared", K "  __shared__ float s[32];\n  s[0] = 1;\n  out[x * n + y] = in[y * n + x];\n}\n",
   ":4:20: ", "a __shared__ variable is declared in the kernel"},
  {"callee", "__device__ int gx() { return blockIdx.x * blockDim.x + threadIdx.x; }\n"
             "__global__ void k(float *out, const float *in, int n)\n"
             "{\n  int y = threadIdx.y;\n  out[gx() * n + y] = in[y * n + gx()];\n}\n",
   ":5:7: ", "gx, called by kernel k, reads the thread geometry"},
  {"pointer", K "  const float *row = in + y * n;\n  out[x * n + y] = row[x];\n}\n", ":4:22: ",
   "an array of the transposition is used here other than by a subscript"},
  {"other_store", "__global__ void k(float *out, const float *in, int n, int *flag)\n{\n"
                  "  int x = threadIdx.x, y = threadIdx.y;\n  flag[x] = 1;\n"
                  "  out[x * n + y] = in[y * n + x];\n}\n", ":4:3: ", "another array is written here"},
  {"expression", K "  float v = (out[x * n + y] = in[y * n + x]);\n  (void)v;\n}\n", ":4:14: ",
   "the store's assignment is part of a larger expression"},
  {"no_load", K "  out[x * n + y] = 1.0f;\n}\n", ":1:44: ", "in is never read by a subscript in[...]"},
  {"macro_access", "#define AT(a, i) a[i]\n" K "  AT(out, x * n + y) = AT(in, y * n + x);\n}\n",
   ":5:27: ", "the transposition's load is written partly inside a macro"},
};

static void test_refusals(void **state)
{
  struct fixture *f = *state;
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const struct refusal *t = &refusals[i];
    struct cc_cuda_tile_spec s = spec_naive(8, 1);
    struct cc_cuda_tile_result r;
    struct cc_err err;
    char name[64], want[1200];
    int rc;
    snprintf(name, sizeof name, "%s.cu", t->name);
    rc = tile(f, name, t->src, &s, &r, &err);
    snprintf(want, sizeof want, "%s/%s%s", f->dir, name, t->where);
    if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, t->why))
      fail_msg("%s: status %d, message \"%s\"", t->name, rc, err.msg);
    assert_null(r.text);
    assert_null(r.elt);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_rewrite_naive, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_rewrite_reverse, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_template, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
