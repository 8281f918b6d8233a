/* Tests of cc_cuda_redistribute: a per-thread reduction loop spread over the 32 lanes of a
 * warp (CGO 2015 Sec. 4.4, Algorithm 3), in its two forms. Every expected text is written
 * by hand from the rules of src/cuda/redist.h: the virtual thread v = blockIdx.x * W +
 * threadIdx.y decomposed over the original block and grid, the loop starting at
 * init + lane with step 32, the partials, the warp sum, the fold into the target, stores
 * outside the loop made by lane 0; inserted code adds no line. */
#include "cuda/harness.h"
#include "cuda/redist.h"

/* cc_cuda_redist_in.uncoalesced: every loop (1) or none (0), per ctx. */
static int answer(void *ctx, uint32_t first, uint32_t last)
{
  (void)first;
  (void)last;
  return *(const int *)ctx;
}

/* Writes text as DIR/name and rewrites kernel with W = 8 and V = lanes (0: 32) on grid x
 * block; parameter 2 (n in the kernels below) is known to be n. */
static int redist_v(struct fixture *f, const char *name, const char *text, const char *kernel,
                    uint32_t gx, uint32_t bx, uint32_t by, int64_t n, int uncoalesced,
                    uint32_t lanes, struct cc_cuda_redist *r, struct cc_err *err)
{
  static int yes = 1, no = 0;
  const int64_t values[3] = {0, 0, n};
  const uint8_t known[3] = {0, 0, 1};
  struct cc_cuda_redist_in in;
  memset(&in, 0, sizeof in);
  in.path = put(f, name, text);
  in.text = text;
  in.len = strlen(text);
  in.kernel = kernel;
  in.grid[0] = gx;
  in.grid[1] = in.grid[2] = 1;
  in.block[0] = bx;
  in.block[1] = by;
  in.block[2] = 1;
  in.warps = 8;
  in.lanes = lanes;
  in.param_values = values;
  in.param_known = known;
  in.nparams = 3;
  in.uncoalesced = answer;
  in.ctx = uncoalesced ? &yes : &no;
  memset(err, 0, sizeof *err);
  return cc_cuda_redistribute(&in, r, err);
}

static int redist(struct fixture *f, const char *name, const char *text, const char *kernel,
                  uint32_t gx, uint32_t bx, uint32_t by, int64_t n, int uncoalesced,
                  struct cc_cuda_redist *r, struct cc_err *err)
{
  return redist_v(f, name, text, kernel, gx, bx, by, n, uncoalesced, 0, r, err);
}

/* ---- rewrites ---- */

/* A row sum into a local, stored after the loop: grid 2 x block 64 = 128 threads, so
 * 128 warps in 16 CTAs of 8; tid.x = v % 64, ctaid.x = v / 64 % 2. */
static const char sum_in[] =
  "__global__ void k(const float *A, float *y, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  float s = 0.0f;\n"
  "  for (int j = 0; j < n; j++)\n"
  "    s += A[i * n + j];\n"
  "  y[i] = s;\n"
  "}\n";

#define SUM_PROLOGUE(SHARED)                                                              \
  "{ /* coalcheck redistribute: warp v plays thread v of grid (2, 1, 1) x block (64, 1, 1), " \
  "its lanes split the loop */ const int __cc_lane = (int)threadIdx.x, __cc_warp = "       \
  "(int)threadIdx.y; const unsigned long long __cc_v = (unsigned long long)blockIdx.x * "  \
  "8ull + (unsigned long long)__cc_warp;" SHARED " if (__cc_v >= 128ull) return; const "   \
  "uint3 __cc_tid = make_uint3((unsigned)(__cc_v % 64ull), 0u, 0u); const uint3 "          \
  "__cc_ctaid = make_uint3((unsigned)(__cc_v / 64ull % 2ull), 0u, 0u); { const uint3 "     \
  "threadIdx = __cc_tid, blockIdx = __cc_ctaid; const dim3 blockDim(64u, 1u, 1u), "        \
  "gridDim(2u, 1u, 1u); (void)threadIdx; (void)blockIdx; (void)blockDim; (void)gridDim;\n"

/* The lane loop of a whole warp (V = 32) carries _Pragma("unroll 8") (redist.h's
 * CC_CUDA_REDIST_UNROLL) on the loop's own line; test_subwarp_sum's V = 8 loop none. */
static void test_local_sum(void **state)
{
  static const char shuffle[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    SUM_PROLOGUE("")
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float s = 0.0f;\n"
    "  { float __cc_p0 = 0; _Pragma(\"unroll 8\") for (int j = (0) + __cc_lane; j < n; j += 32)\n"
    "    __cc_p0 += A[i * n + j]; for (int __cc_o = 16; __cc_o > 0; __cc_o /= 2) { __cc_p0 "
    "+= __shfl_xor_sync(0xffffffffu, __cc_p0, __cc_o); } s += __cc_p0; }\n"
    "  { if (__cc_lane == 0) { y[i] = s; } __syncwarp(); }\n"
    "} }\n";
  static const char shared[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    SUM_PROLOGUE(" __shared__ float __cc_s0[8][32];")
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float s = 0.0f;\n"
    "  { float __cc_p0 = 0; _Pragma(\"unroll 8\") for (int j = (0) + __cc_lane; j < n; j += 32)\n"
    "    __cc_p0 += A[i * n + j]; __cc_s0[__cc_warp][__cc_lane] = __cc_p0; __syncwarp(); "
    "for (int __cc_o = 16; __cc_o > 0; __cc_o /= 2) { if (__cc_lane < __cc_o) { "
    "__cc_s0[__cc_warp][__cc_lane] += __cc_s0[__cc_warp][__cc_lane + __cc_o]; } "
    "__syncwarp(); } __cc_p0 = __cc_s0[__cc_warp][0]; __syncwarp(); s += __cc_p0; }\n"
    "  { if (__cc_lane == 0) { y[i] = s; } __syncwarp(); }\n"
    "} }\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "sum.cu", sum_in, "k", 2, 64, 1, 100, 1, &r, &err), CC_OK);
  assert_string_equal(r.text[CC_CUDA_REDIST_SHUFFLE], shuffle);
  assert_int_equal(r.len[CC_CUDA_REDIST_SHUFFLE], strlen(shuffle));
  assert_string_equal(r.text[CC_CUDA_REDIST_SHARED], shared);
  /* 8 warps x 32 floats */
  assert_int_equal(r.shared_bytes[CC_CUDA_REDIST_SHARED], 8 * 32 * 4);
  assert_int_equal(r.shared_bytes[CC_CUDA_REDIST_SHUFFLE], 0);
  /* 128 threads, one warp each, 8 per CTA: 16 CTAs of (32, 8, 1) */
  assert_int_equal(r.grid[0], 16);
  assert_int_equal(r.block[0], 32);
  assert_int_equal(r.block[1], 8);
  assert_int_equal(r.nloops, 1);
  assert_int_equal(r.loops[0].line, 5);
  assert_int_equal(r.loops[0].column, 3);
  assert_string_equal(r.loops[0].var, "j");
  assert_int_equal(r.loops[0].integer, 0);
  /* 0 <= j < n = 100: 100 iterations */
  assert_int_equal(r.loops[0].trips, 100);
  cc_cuda_redist_release(&r);
}

/* The sub-warp form, V = 8: sum_in again. A group of 8 lanes plays one thread, 4 a warp:
 * v = (blockIdx.x * 8 + threadIdx.y) * 4 + threadIdx.x / 8, the lane in the group
 * threadIdx.x % 8, the group's first lane __cc_g and its mask 0xff << __cc_g; the loop
 * steps by 8; the butterfly starts at offset 4 with width 8 and the group's mask; the
 * shared tree uses the group's 8 words of the warp's row; every __syncwarp names the
 * group's mask (other groups of the warp may have left). 128 threads, 32 a CTA: 4 CTAs. */
#define SUM_PROLOGUE_V8(SHARED)                                                           \
  "{ /* coalcheck redistribute: group v of 8 lanes plays thread v of grid (2, 1, 1) x "     \
  "block (64, 1, 1), its lanes split the loop */ const int __cc_lane = (int)(threadIdx.x % " \
  "8u), __cc_warp = (int)threadIdx.y; const int __cc_g = (int)threadIdx.x - __cc_lane; "    \
  "const unsigned __cc_mask = 0xffu << __cc_g; const unsigned long long __cc_v = "          \
  "((unsigned long long)blockIdx.x * 8ull + (unsigned long long)__cc_warp) * 4ull + "       \
  "(unsigned long long)(threadIdx.x / 8u);" SHARED " if (__cc_v >= 128ull) return; const "  \
  "uint3 __cc_tid = make_uint3((unsigned)(__cc_v % 64ull), 0u, 0u); const uint3 "          \
  "__cc_ctaid = make_uint3((unsigned)(__cc_v / 64ull % 2ull), 0u, 0u); { const uint3 "     \
  "threadIdx = __cc_tid, blockIdx = __cc_ctaid; const dim3 blockDim(64u, 1u, 1u), "        \
  "gridDim(2u, 1u, 1u); (void)threadIdx; (void)blockIdx; (void)blockDim; (void)gridDim;\n"

static void test_subwarp_sum(void **state)
{
  static const char shuffle[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    SUM_PROLOGUE_V8("")
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float s = 0.0f;\n"
    "  { float __cc_p0 = 0; for (int j = (0) + __cc_lane; j < n; j += 8)\n"
    "    __cc_p0 += A[i * n + j]; for (int __cc_o = 4; __cc_o > 0; __cc_o /= 2) { __cc_p0 "
    "+= __shfl_xor_sync(__cc_mask, __cc_p0, __cc_o, 8); } s += __cc_p0; }\n"
    "  { if (__cc_lane == 0) { y[i] = s; } __syncwarp(__cc_mask); }\n"
    "} }\n";
  static const char shared[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    SUM_PROLOGUE_V8(" __shared__ float __cc_s0[8][32];")
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float s = 0.0f;\n"
    "  { float __cc_p0 = 0; for (int j = (0) + __cc_lane; j < n; j += 8)\n"
    "    __cc_p0 += A[i * n + j]; __cc_s0[__cc_warp][__cc_g + __cc_lane] = __cc_p0; "
    "__syncwarp(__cc_mask); for (int __cc_o = 4; __cc_o > 0; __cc_o /= 2) { if (__cc_lane < "
    "__cc_o) { __cc_s0[__cc_warp][__cc_g + __cc_lane] += __cc_s0[__cc_warp][__cc_g + "
    "__cc_lane + __cc_o]; } __syncwarp(__cc_mask); } __cc_p0 = __cc_s0[__cc_warp][__cc_g]; "
    "__syncwarp(__cc_mask); s += __cc_p0; }\n"
    "  { if (__cc_lane == 0) { y[i] = s; } __syncwarp(__cc_mask); }\n"
    "} }\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist_v(f, "sum8.cu", sum_in, "k", 2, 64, 1, 100, 1, 8, &r, &err), CC_OK);
  assert_string_equal(r.text[CC_CUDA_REDIST_SHUFFLE], shuffle);
  assert_string_equal(r.text[CC_CUDA_REDIST_SHARED], shared);
  /* the same [8][32] array: 8 warps x 4 groups x 8 words */
  assert_int_equal(r.shared_bytes[CC_CUDA_REDIST_SHARED], 8 * 32 * 4);
  assert_int_equal(r.grid[0], 4);
  assert_int_equal(r.block[0], 32);
  assert_int_equal(r.block[1], 8);
  /* one read a step: A[i * n + j] */
  assert_int_equal(r.loops[0].reads, 1);
  cc_cuda_redist_release(&r);
}

/* Reads one iteration makes (cc_cuda_redist_loop.reads): CSR's val[k] * x[colidx[k]] is
 * 3; the target's own subscript (y[row]) and a local array's element are not counted. */
static void test_reads(void **state)
{
  static const char in[] =
    "__global__ void s(const int *rp, const int *ci, const float *val, float *x, float *y,\n"
    "                  int n)\n"
    "{\n"
    "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float w[2] = {1.0f, 2.0f};\n"
    "  for (int k = rp[row]; k < rp[row + 1]; k++)\n"
    "    y[row] += val[k] * x[ci[k]] * w[k & 1];\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist_v(f, "reads.cu", in, "s", 1, 64, 1, 0, 1, 16, &r, &err), CC_OK);
  assert_int_equal(r.nloops, 1);
  assert_int_equal(r.loops[0].reads, 3);
  /* the bounds are loaded: no trip count */
  assert_int_equal(r.loops[0].trips, -1);
  /* 64 threads, 8 warps x 2 a CTA: 4 CTAs */
  assert_int_equal(r.grid[0], 4);
  assert_non_null(strstr(r.text[CC_CUDA_REDIST_SHUFFLE], "__shfl_xor_sync(__cc_mask, __cc_p0, "
                                                         "__cc_o, 16)"));
  assert_non_null(strstr(r.text[CC_CUDA_REDIST_SHUFFLE], "const unsigned __cc_mask = 0xffffu "
                                                         "<< __cc_g;"));
  cc_cuda_redist_release(&r);
}

/* A memory target written `T = T + E` (PolyBench's q[i] style), j declared before the
 * loop, `<=` and `++j`, a 2D block (4, 2): tid = (v % 4, v / 4 % 2), one CTA. */
static void test_memory_target(void **state)
{
  static const char in[] =
    "__global__ void m(float *q, const float *A, int n)\n"
    "{\n"
    "  int i = threadIdx.y * 4 + threadIdx.x;\n"
    "  int j;\n"
    "  for (j = 1; j <= n; ++j)\n"
    "    q[i] = q[i] + A[i * n + j];\n"
    "}\n";
  static const char want[] =
    "__global__ void m(float *q, const float *A, int n)\n"
    "{ /* coalcheck redistribute: warp v plays thread v of grid (1, 1, 1) x block (4, 2, 1), "
    "its lanes split the loop */ const int __cc_lane = (int)threadIdx.x, __cc_warp = "
    "(int)threadIdx.y; const unsigned long long __cc_v = (unsigned long long)blockIdx.x * "
    "8ull + (unsigned long long)__cc_warp; if (__cc_v >= 8ull) return; const uint3 __cc_tid "
    "= make_uint3((unsigned)(__cc_v % 4ull), (unsigned)(__cc_v / 4ull % 2ull), 0u); const "
    "uint3 __cc_ctaid = make_uint3(0u, 0u, 0u); { const uint3 threadIdx = __cc_tid, blockIdx "
    "= __cc_ctaid; const dim3 blockDim(4u, 2u, 1u), gridDim(1u, 1u, 1u); (void)threadIdx; "
    "(void)blockIdx; (void)blockDim; (void)gridDim;\n"
    "  int i = threadIdx.y * 4 + threadIdx.x;\n"
    "  int j;\n"
    "  { float __cc_p0 = 0; _Pragma(\"unroll 8\") for (j = (1) + __cc_lane; j <= n; j += 32)\n"
    "    __cc_p0 = __cc_p0 + A[i * n + j]; for (int __cc_o = 16; __cc_o > 0; __cc_o /= 2) { "
    "__cc_p0 += __shfl_xor_sync(0xffffffffu, __cc_p0, __cc_o); } __syncwarp(); if (__cc_lane "
    "== 0) { q[i] += __cc_p0; } __syncwarp(); }\n"
    "} }\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "mem.cu", in, "m", 1, 4, 2, 10, 1, &r, &err), CC_OK);
  assert_string_equal(r.text[CC_CUDA_REDIST_SHUFFLE], want);
  /* 8 threads: one CTA of 8 warps */
  assert_int_equal(r.grid[0], 1);
  /* 1 <= j <= 10: 10 iterations */
  assert_int_equal(r.loops[0].trips, 10);
  cc_cuda_redist_release(&r);
}

/* Two targets of one loop (gesummv), integer types, a bound loaded from memory (CSR):
 * the partials, the integer flag and an unknown trip count. */
static void test_two_integer_targets(void **state)
{
  static const char in[] =
    "__global__ void g(const int *rp, const int *v, int n, int *out)\n"
    "{\n"
    "  int i = threadIdx.x;\n"
    "  int t = 0;\n"
    "  long long u = 0;\n"
    "  for (int k = rp[i]; k < rp[i + 1]; k += 1) {\n"
    "    int a = v[k];\n"
    "    t += a;\n"
    "    u -= a;\n"
    "  }\n"
    "  out[i] = t + (int)u;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "two.cu", in, "g", 1, 32, 1, 0, 1, &r, &err), CC_OK);
  assert_non_null(strstr(r.text[0], "  { int __cc_p0 = 0; long long __cc_p1 = 0; _Pragma(\"unroll 8\") for (int k = "
                                    "(rp[i]) + __cc_lane; k < rp[i + 1]; k += 32) {\n"));
  assert_non_null(strstr(r.text[0], "    __cc_p0 += a;\n    __cc_p1 -= a;\n"));
  assert_non_null(strstr(r.text[0], "t += __cc_p0; u += __cc_p1; }\n"));
  assert_int_equal(r.loops[0].ntargets, 2);
  assert_int_equal(r.loops[0].integer, 1);
  assert_int_equal(r.loops[0].trips, -1);
  cc_cuda_redist_release(&r);
}

/* A loop nested in others: runs, the times a thread enters it, is the product of the
 * enclosing loops' trip counts (the V rule of src/fix/redistribute.c divides by it).
 * Derived by hand, n = 34 (the known parameter): the loop over j sits in c (0..4: 5
 * iterations) and d (1..2 with <=: 2): 10 runs of 34 iterations; the outer loops do not
 * qualify (their bodies store and nest), so j's is the only loop returned. */
static void test_nested_runs(void **state)
{
  static const char in[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  for (int c = 0; c < 5; c++)\n"
    "    for (int d = 1; d <= 2; ++d) {\n"
    "      float s = 0.0f;\n"
    "      for (int j = 0; j < n; j++)\n"
    "        s += A[i * n + j] * (float)(c + d);\n"
    "      y[i * 10 + c * 2 + d - 1] = s;\n"
    "    }\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "nest.cu", in, "k", 1, 32, 1, 34, 1, &r, &err), CC_OK);
  assert_int_equal(r.nloops, 1);
  assert_string_equal(r.loops[0].var, "j");
  assert_int_equal(r.loops[0].nested, 1);
  assert_int_equal(r.loops[0].runs, 10);
  assert_int_equal(r.loops[0].trips, 34);
  cc_cuda_redist_release(&r);
}

/* Runs not known: an enclosing loop bounded by a load (lim[0]) or an enclosing while;
 * the inner loop's own trip count (n = 34) is still read from its bounds. A triangular
 * loop (j < c) under a known loop of 5: runs 5, its trip count not known. */
static void test_nested_unknown(void **state)
{
  static const char loaded[] =
    "__global__ void k(const float *A, float *y, int n, const int *lim)\n"
    "{\n"
    "  int i = threadIdx.x;\n"
    "  int c = 0;\n"
    "  while (c < lim[1]) {\n"
    "    for (int e = 0; e < lim[0]; e++) {\n"
    "      float s = 0.0f;\n"
    "      for (int j = 0; j < n; j++)\n"
    "        s += A[i * n + j];\n"
    "      y[i + e] = s;\n"
    "    }\n"
    "    c++;\n"
    "  }\n"
    "}\n";
  static const char tri[] =
    "__global__ void k(const float *A, float *y, int n)\n"
    "{\n"
    "  int i = threadIdx.x;\n"
    "  for (int c = 0; c < 5; c++) {\n"
    "    float s = 0.0f;\n"
    "    for (int j = 0; j < c; j++)\n"
    "      s += A[i * n + j];\n"
    "    y[i * 5 + c] = s;\n"
    "  }\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "loaded.cu", loaded, "k", 1, 32, 1, 34, 1, &r, &err), CC_OK);
  assert_int_equal(r.nloops, 1);
  assert_int_equal(r.loops[0].runs, -1);
  assert_int_equal(r.loops[0].trips, 34);
  cc_cuda_redist_release(&r);
  assert_int_equal(redist(f, "tri.cu", tri, "k", 1, 32, 1, 34, 1, &r, &err), CC_OK);
  assert_int_equal(r.nloops, 1);
  assert_int_equal(r.loops[0].runs, 5);
  assert_int_equal(r.loops[0].trips, -1);
  cc_cuda_redist_release(&r);
}

/* ---- refusals: the message names the place and the reason ---- */

struct refusal {
  const char *name, *src;
  int uncoalesced;
  const char *where; /* ":LINE:COL: " after the path */
  const char *why;   /* a part of the message */
};

#define HEAD "__global__ void k(const float *A, float *y, int n)\n{\n  int i = threadIdx.x;\n" \
             "  float s = 0.0f;\n"

static const struct refusal refusals[] = {
  {"barrier", HEAD "  __syncthreads();\n  for (int j = 0; j < n; j++)\n    s += A[i * n + j];\n"
              "  y[i] = s;\n}\n", 1, ":5:3: ", "barrier __syncthreads in kernel k"},
  {"barrier_in_helper", "__device__ void sync() { __syncthreads(); }\n" HEAD
                        "  for (int j = 0; j < n; j++)\n    s += A[j];\n  sync();\n"
                        "  y[i] = s;\n}\n", 1, ":1:26: ", "barrier __syncthreads"},
  {"shared", HEAD "  __shared__ float t[32];\n  for (int j = 0; j < n; j++)\n    s += A[j];\n"
             "  y[i] = s + t[0];\n}\n", 1, ":5:20: ", "__shared__ variable in kernel k"},
  {"warp", HEAD "  for (int j = 0; j < n; j++)\n    s += A[j];\n"
           "  y[i] = __shfl_down_sync(0xffffffffu, s, 1);\n}\n", 1, ":7:10: ",
   "warp intrinsic __shfl_down_sync"},
  {"break", HEAD "  for (int j = 0; j < n; j++) {\n    s += A[j];\n    if (s > 1.0f) break;\n"
            "  }\n  y[i] = s;\n}\n", 1, ":7:5: ", "neither a local declaration nor an accumulation"},
  {"break_direct", HEAD "  for (int j = 0; j < n; j++) {\n    s += A[j];\n    break;\n"
                   "  }\n  y[i] = s;\n}\n", 1, ":7:5: ", "`break` in the loop over j"},
  {"continue", HEAD "  for (int j = 0; j < n; j++) {\n    continue;\n    s += A[j];\n"
               "  }\n  y[i] = s;\n}\n", 1, ":6:5: ", "`continue` in the loop over j"},
  {"return", HEAD "  for (int j = 0; j < n; j++) {\n    s += A[j];\n    return;\n"
             "  }\n  y[i] = s;\n}\n", 1, ":7:5: ", "`return` in the loop over j"},
  {"reads_target", HEAD "  for (int j = 0; j < n; j++)\n    s += s * A[j];\n  y[i] = s;\n}\n", 1,
   ":6:10: ", "reads the variable of its accumulation target s"},
  {"step", HEAD "  for (int j = 0; j < n; j += 2)\n    s += A[j];\n  y[i] = s;\n}\n", 1,
   ":5:26: ", "the step of the loop over j is not +1"},
  {"atomic", HEAD "  for (int j = 0; j < n; j++)\n    atomicAdd(y, A[j]);\n}\n", 1, ":6:5: ",
   "atomic atomicAdd in the loop over j"},
  {"geometry_call", "__device__ int me() { return threadIdx.x; }\n" HEAD
                    "  for (int j = 0; j < n; j++)\n    s += A[j];\n  y[me()] = s;\n}\n", 1,
   ":8:5: ", "me reads the thread geometry"},
  {"store_in_expression", HEAD "  for (int j = 0; j < n; j++)\n    s += A[j];\n"
                          "  y[0] = y[i] = s;\n}\n", 1, ":7:10: ",
   "a store to memory inside an expression"},
  {"loop_var_used_after", HEAD "  int j;\n  for (j = 0; j < n; j++)\n    s += A[j];\n"
                          "  y[i] = s + j;\n}\n", 1, ":8:14: ",
   "j, the variable of the loop at line 6, is used outside the loop"},
  {"float_into_int", "__global__ void k(const float *A, int *y, int n)\n{\n  int s = 0;\n"
                     "  for (int j = 0; j < n; j++)\n    s += A[j];\n  y[0] = s;\n}\n", 1,
   ":5:5: ", "adds a floating-point value, rounded at every step"},
  {"coalesced", HEAD "  for (int j = 0; j < n; j++)\n    s += A[j];\n  y[i] = s;\n}\n", 0,
   ":5: ", "the loop over j is already coalesced"},
  {"no_loop", HEAD "  y[i] = s;\n}\n", 1, ": ", "kernel k has no for loop to spread over a warp"},
};

static void test_refusals(void **state)
{
  struct fixture *f = *state;
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const struct refusal *t = &refusals[i];
    struct cc_cuda_redist r;
    struct cc_err err;
    char name[64], want[1200];
    int rc;
    snprintf(name, sizeof name, "%s.cu", t->name);
    rc = redist(f, name, t->src, "k", 1, 32, 1, 64, t->uncoalesced, &r, &err);
    snprintf(want, sizeof want, "%s/%s%s", f->dir, name, t->where);
    if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0 ||
        !strstr(err.msg, t->why))
      fail_msg("%s: status %d, message \"%s\"", t->name, rc, err.msg);
    assert_null(r.text[0]);
    assert_null(r.text[1]);
    assert_int_equal(r.nloops, 0);
  }
}

/* One warp per thread, 8 per CTA: (2^31 - 1) CTAs of 16 threads need 2 (2^31 - 1) CTAs,
 * over CUDA's grid.x limit of 2^31 - 1 (CTAs of 8 threads would just fit). */
static void test_grid_limit(void **state)
{
  struct fixture *f = *state;
  struct cc_cuda_redist r;
  struct cc_err err;
  assert_int_equal(redist(f, "big.cu", sum_in, "k", 2147483647u, 16, 1, 4, 1, &r, &err),
                   CC_ERR_NO_FIX);
  assert_non_null(strstr(err.msg, "over CUDA's limit of 2^31-1 in x"));
  assert_null(r.text[0]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_local_sum, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_subwarp_sum, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_reads, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_memory_target, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_two_integer_targets, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_nested_runs, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_nested_unknown, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_grid_limit, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
