/* Tests of cc_cuda_scan_kernel: the source constructs of a kernel's call tree that
 * observe warp membership (what a thread-geometry permutation changes). Each expected
 * place is counted by hand in the inline source. */
#include "cuda/harness.h"

struct want {
  enum cc_cuda_hazard kind;
  unsigned line, column;
  const char *what;
};

static void expect(const struct cc_cuda_scan *s, const struct want *w, size_t n)
{
  for (size_t i = 0; i < n && i < s->nsites; i++)
    if (s->sites[i].kind != w[i].kind || s->sites[i].line != w[i].line ||
        s->sites[i].column != w[i].column || strcmp(s->sites[i].what, w[i].what) != 0)
      fail_msg("site %zu: got %s %u:%u \"%s\", want %s %u:%u \"%s\"", i,
               cc_cuda_hazard_name(s->sites[i].kind), s->sites[i].line, s->sites[i].column,
               s->sites[i].what, cc_cuda_hazard_name(w[i].kind), w[i].line, w[i].column, w[i].what);
  assert_int_equal(s->nsites, n);
}

static int scan(struct fixture *f, const char *name, const char *text, const char *kernel,
                struct cc_cuda_scan *s, struct cc_err *err)
{
  const char *path = put(f, name, text);
  memset(err, 0, sizeof *err);
  return cc_cuda_scan_kernel(path, text, strlen(text), kernel, NULL, 0, s, err);
}

/* One of each: helpers reached from the kernel are scanned after it; one site per kind
 * and line (line 13's warp id and its warpSize are two kinds). */
static void test_every_kind(void **state)
{
  static const char in[] =
    "#include <cooperative_groups.h>\n"
    "namespace cg = cooperative_groups;\n"
    "__device__ float warp_sum(float v) {\n"
    "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
    "  return v;\n"
    "}\n"
    "__device__ void tail(volatile float *s, int t) { s[t] += s[t + 32]; }\n"
    "__device__ unsigned laneid() { unsigned r; asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(r)); return r; }\n"
    "__global__ void k(float *out, const float *in) {\n"
    "  __shared__ float sh[256];\n"
    "  int tid = threadIdx.x;\n"
    "  int lane = tid % 32;\n"
    "  int warp = tid / warpSize;\n"
    "  unsigned l2 = threadIdx.x & 31;\n"
    "  unsigned w2 = threadIdx.x >> 5;\n"
    "  int fine = threadIdx.x * 32 + threadIdx.y / 2 + (blockIdx.x & 31);\n"
    "  cg::thread_block b = cg::this_thread_block();\n"
    "  float v = warp_sum(in[tid]);\n"
    "  if (__ballot_sync(0xffffffff, v > 0))\n"
    "    __syncwarp();\n"
    "  tail(sh, tid);\n"
    "  asm(\"shfl.sync.idx.b32 %0, %0, 0, 31, -1;\" : \"+f\"(v));\n"
    "  out[lane + warp + l2 + w2 + laneid() + fine] = v;\n"
    "  b.sync();\n"
    "}\n";
  static const struct want w[] = {
    {CC_CUDA_LANE_ID, 12, 14, "threadIdx-derived % 32"},
    {CC_CUDA_LANE_ID, 13, 14, "threadIdx-derived / warpSize"},
    {CC_CUDA_WARP_SIZE, 13, 20, "warpSize"},
    {CC_CUDA_LANE_ID, 14, 17, "threadIdx-derived & 31"},
    {CC_CUDA_LANE_ID, 15, 17, "threadIdx-derived >> 5"},
    {CC_CUDA_COOPERATIVE_GROUPS, 17, 7, "cooperative_groups::thread_block"},
    {CC_CUDA_WARP_INTRINSIC, 19, 7, "__ballot_sync"},
    {CC_CUDA_WARP_INTRINSIC, 20, 5, "__syncwarp"},
    {CC_CUDA_ASM_WARP, 22, 3, "shfl."},
    {CC_CUDA_COOPERATIVE_GROUPS, 24, 5, "cooperative_groups::sync"},
    {CC_CUDA_WARP_INTRINSIC, 4, 40, "__shfl_down_sync"},
    {CC_CUDA_VOLATILE, 7, 38, "volatile float *s"},
    {CC_CUDA_ASM_LANE, 8, 44, "%laneid"},
  };
  struct fixture *f = *state;
  struct cc_cuda_scan s;
  struct cc_err err;
  char file[1100];
  assert_int_equal(scan(f, "w.cu", in, "k", &s, &err), CC_OK);
  expect(&s, w, sizeof w / sizeof w[0]);
  snprintf(file, sizeof file, "%s/w.cu", f->dir);
  assert_string_equal(s.sites[0].file, file);
  assert_false(s.truncated);
  cc_cuda_scan_release(&s);
  assert_null(s.sites);
}

/* What is not warp membership: index arithmetic with 32, halving, blockIdx masks, a
 * non-volatile shared array, __syncthreads, a helper that is not called, data loaded at a
 * thread's index (d & 31: d is data, not an id), a mask of 64 (tiles, not warps). */
static void test_clean_kernel(void **state)
{
  static const char in[] =
    "__device__ int unused() { return __shfl_sync(0xffffffff, threadIdx.x & 31, 0); }\n"
    "__global__ void transpose(float *out, const float *in, int n) {\n"
    "  __shared__ float tile[32][33];\n"
    "  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
    "  tile[threadIdx.y][threadIdx.x] = in[y * n + x];\n"
    "  __syncthreads();\n"
    "  out[(blockIdx.x * 32 + threadIdx.y) * n + blockIdx.y * 32 + threadIdx.x / 2 * 2] =\n"
    "      tile[threadIdx.x][threadIdx.y] + (blockIdx.x & 31) + (n % 32) + (threadIdx.x & 63);\n"
    "  int d = (int)in[x];\n"
    "  out[d & 31] = 0;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_scan s;
  struct cc_err err;
  assert_int_equal(scan(f, "c.cu", in, "transpose", &s, &err), CC_OK);
  expect(&s, NULL, 0);
  cc_cuda_scan_release(&s);
}

/* Lane ids through assignments and the commuted &, warp bases (& -32), volatile shared
 * memory declared in the kernel and reached by a cast. */
static void test_lane_ids_and_volatile(void **state)
{
  static const char in[] =
    "__global__ void k(float *a) {\n"
    "  __shared__ volatile float s[64];\n"
    "  unsigned t;\n"
    "  t = threadIdx.y * blockDim.x + threadIdx.x;\n"
    "  unsigned lane = 31 & t;\n"
    "  unsigned base = t & -32;\n"
    "  unsigned half = t % 16;\n"
    "  __shared__ float plain[64];\n"
    "  ((volatile float *)plain)[t] = a[lane + base + half] + s[t];\n"
    "}\n";
  static const struct want w[] = {
    {CC_CUDA_VOLATILE, 2, 29, "volatile float[64] s"},
    {CC_CUDA_LANE_ID, 5, 19, "threadIdx-derived & 31"},
    {CC_CUDA_LANE_ID, 6, 19, "threadIdx-derived & -32"},
    {CC_CUDA_LANE_ID, 7, 19, "threadIdx-derived % 16"},
    {CC_CUDA_VOLATILE, 9, 4, "cast to volatile float *"},
  };
  struct fixture *f = *state;
  struct cc_cuda_scan s;
  struct cc_err err;
  assert_int_equal(scan(f, "v.cu", in, "k", &s, &err), CC_OK);
  expect(&s, w, sizeof w / sizeof w[0]);
  cc_cuda_scan_release(&s);
}

/* The kernel must be found and parse, as for the rewrite. */
static void test_scan_errors(void **state)
{
  struct fixture *f = *state;
  struct cc_cuda_scan s;
  struct cc_err err;
  assert_int_equal(scan(f, "e.cu", "__global__ void k(int *a) { a[0] = nope; }\n", "k", &s, &err),
                   CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "e.cu:1:36: use of undeclared identifier 'nope'"));
  assert_int_equal(s.nsites, 0);
  assert_int_equal(scan(f, "m.cu", "__global__ void k(int *a) { }\n", "q", &s, &err), CC_ERR_INPUT);
  assert_string_equal(cc_cuda_hazard_name(CC_CUDA_VOLATILE), "volatile memory");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_every_kind, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_clean_kernel, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_lane_ids_and_volatile, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_scan_errors, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
