/* src/cuda/plays.c: the loads-first plays (cc_cuda_plays_loads_first) and the vector
 * plays (cc_cuda_plays_vector, their text's pieces) on inline CUDA texts: the whole rewrite against a text written by hand (kept values, a compound store,
 * a plain one, a return), the budget of kept values, and each construct outside the class
 * refused with its place. Legality (isl) is src/fix's part (tests/e2e/
 * fix_loads_first.sh); compiling and emulating the rewrites, tests/e2e/fix_plays.sh. */
#include "cuda/harness.h"
#include "cuda/plays.h"

static int plays(struct fixture *f, const char *name, const char *src, uint32_t max_kept,
                 char **out, struct cc_err *err)
{
  const char *path = put(f, name, src);
  const uint32_t grid[3] = {1, 4, 1};
  size_t len;
  memset(err, 0, sizeof *err);
  return cc_cuda_plays_loads_first(path, src, strlen(src), "k", 2, 1, grid, max_kept, NULL, 0,
                                   out, &len, err);
}

/* The head of one loop over the 2 plays (grid y 4 -> 2): the parameters copied, the
 * played block index, blockIdx shadowed (read), gridDim not (not read), #line 2 (the
 * body's `{`). */
#define HEAD                                                                            \
  "  for (unsigned __cc_q = 0; __cc_q < 2u; __cc_q++) {\n"                              \
  "    decltype(a) a = __cc_a0; (void)a;\n"                                             \
  "    decltype(c) c = __cc_a1; (void)c;\n"                                             \
  "    decltype(n) n = __cc_a2; (void)n;\n"                                             \
  "    const uint3 __cc_ctaid = make_uint3(blockIdx.x, blockIdx.y * 2u + __cc_q, blockIdx.z);\n" \
  "    const uint3 blockIdx = __cc_ctaid;\n"                                            \
  "#line 2\n{"

/* By hand: the compound store a[i * 32 + j] += ... is site 0 (met first, pre-order), its
 * old value kept per play in __cc_v0[2]; c[j] is site 1, __cc_v1[2]: 2 loads x 2 plays =
 * 4 kept values, within a budget of 8. Phase A drops the store but still reads a[...]
 * and evaluates the right operand; phase B stores old value + (right operand on kept
 * values). The return ends one play in each phase; the closing brace was on line 7. */
static void test_rewrite(void **state)
{
  static const char src[] =
    "__global__ void k(float *a, const float *c, int n)\n"
    "{\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int j = threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  a[i * 32 + j] += c[j] * 2.0f;\n"
    "}\n";
  static const char want[] =
    "__global__ void k(float *a, const float *c, int n)\n"
    "{\n"
    "  /* coalcheck fix: each thread plays 2 threads of the launch of grid (1, 4, 1), those "
    "of blocks blockIdx.y * 2 + q (q = 0..1), loads first: phase A runs every play's body "
    "with its stores dropped, keeping each loaded value, phase B runs them again on the kept "
    "values and stores; legal because no play stores an element that a play reads after it "
    "(proved by the caller) */\n"
    "  const auto &__cc_a0 = a;\n"
    "  const auto &__cc_a1 = c;\n"
    "  const auto &__cc_a2 = n;\n"
    "  float __cc_v0[2];\n"
    "  float __cc_v1[2];\n"
    "#pragma unroll\n"
    HEAD "\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int j = threadIdx.x;\n"
    "  if (i >= n) goto __cc_loaded;\n"
    "  (void)((__cc_v0[__cc_q] = a[i * 32 + j]) + ((__cc_v1[__cc_q] = c[j]) * 2.0f));\n"
    "}\n"
    "    __cc_loaded:;\n"
    "  }\n"
    "#pragma unroll\n"
    HEAD "\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int j = threadIdx.x;\n"
    "  if (i >= n) goto __cc_played;\n"
    "  a[i * 32 + j] = __cc_v0[__cc_q] + (__cc_v1[__cc_q] * 2.0f);\n"
    "}\n"
    "    __cc_played:;\n"
    "  }\n"
    "}\n"
    "#line 7\n"
    "\n";
  struct fixture *f = *state;
  struct cc_err err;
  char *out = NULL;
  int rc = plays(f, "rewrite.cu", src, 8, &out, &err);
  if (rc != CC_OK)
    fail_msg("status %d: %s", rc, err.msg);
  assert_string_equal(out, want);
  free(out);
}

/* A plain store `=` is dropped in phase A with its right operand still evaluated (its
 * load kept); 1 load x 2 plays = 2 kept values: within a budget of 2, over one of 1. */
static void test_budget(void **state)
{
  static const char src[] =
    "__global__ void k(float *a, const float *c, int n)\n"
    "{\n"
    "  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  a[i] = c[i + n];\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_err err;
  char *out = NULL, want[1200];
  int rc = plays(f, "budget.cu", src, 2, &out, &err);
  if (rc != CC_OK)
    fail_msg("status %d: %s", rc, err.msg);
  assert_non_null(strstr(out, "  float __cc_v0[2];\n"));
  assert_non_null(strstr(out, "  (void)((__cc_v0[__cc_q] = c[i + n]));\n"));
  assert_non_null(strstr(out, "  a[i] = __cc_v0[__cc_q];\n"));
  free(out);
  out = NULL;
  rc = plays(f, "budget1.cu", src, 1, &out, &err);
  snprintf(want, sizeof want, "%s/budget1.cu:1:17: 1 loads a play x 2 plays = 2 values kept "
           "a thread from phase A to phase B, over the 1 that pay", f->dir);
  if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0)
    fail_msg("status %d, message \"%s\"", rc, err.msg);
  assert_null(out);
}

/* ---- refusals: the message names the place and the construct ---- */

struct refusal {
  const char *name, *src;
  const char *where; /* ":LINE:COL: " after the path */
  const char *why;   /* a part of the message */
};

#define K "__global__ void k(float *a, const float *c, int n, int *idx)\n{\n" \
          "  int i = blockIdx.y * blockDim.y + threadIdx.y;\n"

static const struct refusal refusals[] = {
  {"call", K "  a[i] = sqrtf(c[i]);\n}\n", ":4:10: ", "a call"},
  {"address", K "  float *p = &a[i];\n  *p = c[i];\n}\n", ":4:14: ", "the address of an element"},
  {"indirect", K "  a[idx[i]] = c[i];\n}\n", ":4:5: ", "a subscript inside a subscript"},
  {"increment", K "  a[i]++;\n}\n", ":4:3: ", "a store other than"},
  {"pointer", K "  const float *r = c + i;\n  a[i] = r[0];\n}\n", ":5:10: ",
   "a subscript of something other than a pointer parameter"},
  {"param", K "  n = 4;\n  a[i] = c[i];\n}\n", ":4:3: ", "an assignment to a parameter"},
  {"expression", K "  float v = (a[i] = c[i]);\n  (void)v;\n}\n", ":4:14: ",
   "a store inside an expression"},
  {"no_load", K "  a[i] = 1.0f;\n}\n", ":1:17: ", "no global load to move"},
  {"whole", K "  float *p = a;\n  (void)p;\n  a[i] = c[i];\n}\n", ":1:26: ",
   "a pointer parameter used other than as a subscript's base"},
};

static void test_refusals(void **state)
{
  struct fixture *f = *state;
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const struct refusal *t = &refusals[i];
    struct cc_err err;
    char name[64], want[1200], *out = NULL;
    int rc;
    snprintf(name, sizeof name, "%s.cu", t->name);
    rc = plays(f, name, t->src, 8, &out, &err);
    snprintf(want, sizeof want, "%s/%s%s", f->dir, name, t->where);
    if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, t->why))
      fail_msg("%s: status %d, message \"%s\"", t->name, rc, err.msg);
    assert_null(out);
  }
}

/* The vector plays (cc_cuda_plays_vector) of a[i] += c[0] * 2.0f with a a vector and c a
 * broadcast (the caller's kinds), 4 plays along x of a block 128 wide. By hand: site 0 is
 * the compound store's target a[i] (met first), site 1 c[0]. The alignment test names a
 * only; phase A (play 0) loads a's 4 elements as one float4 and c[0] once; phase B's play
 * q writes component q of __cc_o0 from component q of the loaded vector, keeping the
 * address of element 0 (&a[i] - q); after the plays one float4 store, reported on line 4
 * (the statement's); the played thread g0 + q is threadIdx.x (g0 + q) % 128 of block
 * (g0 + q) / 128; unaligned arrays run the body as written 4 times. */
static void test_vector(void **state)
{
  static const char src[] =
    "__global__ void k(float *a, const float *c, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  a[i] += c[0] * 2.0f;\n"
    "}\n";
  static const char *const want[] = {
    "  const unsigned __cc_g0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4u;\n"
    "  if (((unsigned long long)(const void *)&a[0]) % 16u == 0) {\n"
    "  float4 __cc_w0;\n  float4 __cc_o0; float *__cc_p0 = nullptr;\n  float __cc_w1;\n"
    "  { const unsigned __cc_q = 0;\n",
    "    const uint3 __cc_tid = make_uint3(__cc_gx % 128u, threadIdx.y, threadIdx.z);\n"
    "    const uint3 __cc_ctaid = make_uint3(__cc_gx / 128u, blockIdx.y, blockIdx.z);\n"
    "    const uint3 threadIdx = __cc_tid;\n    const uint3 blockIdx = __cc_ctaid;\n"
    "    const dim3 blockDim(128u, 1u, 1u);\n#line 2\n{",
    "  (void)(((__cc_w0 = *(const float4 *)&a[i]).x) + ((__cc_w1 = c[0]) * 2.0f));\n",
    "  ((float *)&__cc_o0)[__cc_q] = ((const float *)&__cc_w0)[__cc_q] + (__cc_w1 * 2.0f), "
    "__cc_p0 = &a[i] - __cc_q;\n",
    "#line 4\n  if (__cc_p0) *(float4 *)__cc_p0 = __cc_o0;\n  } else {\n"
    "  for (unsigned __cc_q = 0; __cc_q < 4u; __cc_q++) {\n",
    "  a[i] += c[0] * 2.0f;\n}\n    __cc_scalar:;\n"};
  const struct cc_cuda_vclass cls[] = {{4, 4, "a", CC_CUDA_V_VECTOR},
                                       {4, 4, "c", CC_CUDA_V_BROADCAST}};
  const uint32_t grid[3] = {2, 1, 1}, block[3] = {128, 1, 1};
  struct fixture *f = *state;
  struct cc_err err;
  const char *path = put(f, "vector.cu", src);
  char *out = NULL;
  size_t len;
  memset(&err, 0, sizeof err);
  int rc = cc_cuda_plays_vector(path, src, strlen(src), "k", 4, block, grid, cls, 2, NULL, 0,
                                &out, &len, &err);
  if (rc != CC_OK)
    fail_msg("status %d: %s", rc, err.msg);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(out, want[i]))
      fail_msg("missing \"%s\" in:\n%s", want[i], out);
  free(out);
  /* no vector among the kinds: refused at the kernel's name */
  const struct cc_cuda_vclass none[] = {{4, 4, "c", CC_CUDA_V_BROADCAST}};
  memset(&err, 0, sizeof err);
  rc = cc_cuda_plays_vector(path, src, strlen(src), "k", 4, block, grid, none, 1, NULL, 0,
                            &out, &len, &err);
  if (rc != CC_ERR_NO_FIX || !strstr(err.msg, "vector.cu:1:17: no access with unit stride "
                                     "along x to make a vector"))
    fail_msg("status %d, message \"%s\"", rc, err.msg);
  assert_null(out);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_rewrite, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_budget, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_vector, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
