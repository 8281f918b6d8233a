/* Tests of cc_cuda_permute: kernels rewritten by a thread-geometry permutation sigma
 * (block'[sigma[e]] = block[e], threadIdx.e -> threadIdx.sigma[e]; CGO 2015 Sec. 4.2).
 * Every expected text is written by hand from that rule; all other bytes must stay. */
#include "cuda/harness.h"

/* Writes text as DIR/name and permutes kernel by (s0, s1, s2). */
static int permute(struct fixture *f, const char *name, const char *text, const char *kernel,
                   int s0, int s1, int s2, struct cc_cuda_rewrite *r, struct cc_err *err)
{
  const char *path = put(f, name, text);
  const int sigma[3] = {s0, s1, s2};
  memset(err, 0, sizeof *err);
  return cc_cuda_permute(path, text, strlen(text), kernel, sigma, NULL, 0, r, err);
}

/* The message "DIR/name:REST" (REST printf-style) into buf. */
static const char *at(const struct fixture *f, char *buf, size_t n, const char *name,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static const char *at(const struct fixture *f, char *buf, size_t n, const char *name,
                      const char *fmt, ...)
{
  va_list ap;
  int k = snprintf(buf, n, "%s/%s", f->dir, name);
  va_start(ap, fmt);
  vsnprintf(buf + k, n - (size_t)k, fmt, ap);
  va_end(ap);
  return buf;
}

/* ---- rewrites ---- */

/* A __device__ helper, a macro body (TX), macro arguments (IDX), a comment and a string
 * that mention threadIdx.x, and a launch through dim3 variables whose grid is computed
 * from the block: with x and y swapped the grid's declaration is its own image. */
static const char helpers_in[] =
  "#include <cuda_runtime.h>\n"
  "#define TX threadIdx.x\n"
  "#define IDX(r, c) ((r) * n + (c))\n"
  "/* threadIdx.x in a comment stays */\n"
  "__device__ int row() { return blockIdx.y * blockDim.y + threadIdx.y; }\n"
  "__global__ void k(float *out, const float *in, int n) {\n"
  "  const char *s = \"threadIdx.x\";\n"
  "  int col = blockIdx.x * blockDim.x + TX;\n"
  "  out[IDX(row(), col)] = in[IDX(threadIdx.y, threadIdx.x)] + s[0];\n"
  "}\n"
  "int main() {\n"
  "  int n = 64;\n"
  "  float *a = 0, *b = 0;\n"
  "  dim3 block(32, 8);\n"
  "  dim3 grid(n / block.x, n / block.y);\n"
  "  k<<<grid, block>>>(a, b, n);\n"
  "  return block.x == 32 ? 0 : 1;\n"
  "}\n";

static void test_helpers_macros_variables(void **state)
{
  static const char want[] =
    "#include <cuda_runtime.h>\n"
    "#define TX threadIdx.y\n"
    "#define IDX(r, c) ((r) * n + (c))\n"
    "/* threadIdx.x in a comment stays */\n"
    "__device__ int row() { return blockIdx.x * blockDim.x + threadIdx.x; }\n"
    "__global__ void k(float *out, const float *in, int n) {\n"
    "  const char *s = \"threadIdx.x\";\n"
    "  int col = blockIdx.y * blockDim.y + TX;\n"
    "  out[IDX(row(), col)] = in[IDX(threadIdx.x, threadIdx.y)] + s[0];\n"
    "}\n"
    "int main() {\n"
    "  int n = 64;\n"
    "  float *a = 0, *b = 0;\n"
    "  dim3 block(8, 32);\n"
    "  dim3 grid(n / block.x, n / block.y);\n"
    "  k<<<grid, block>>>(a, b, n);\n"
    "  return block.y == 32 ? 0 : 1;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "k.cu", helpers_in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.len, strlen(want));
  /* row: 3; k: blockIdx.x, blockDim.x, TX's body once, IDX's two arguments */
  assert_int_equal(r.kernel_edits, 8);
  assert_int_equal(r.nsites, 1);
  assert_int_equal(r.sites[0].line, 16);
  assert_int_equal(r.sites[0].column, 3);
  assert_int_equal(r.sites[0].rewritten, 1);
  assert_string_equal(r.sites[0].note,
                      "grid: `dim3 grid(n / block.x, n / block.y)` unchanged; "
                      "block: `dim3 block(32, 8)` -> `dim3 block(8, 32)`");
  assert_null(r.caller_note);
  cc_cuda_rewrite_release(&r);
  assert_null(r.text);
}

/* The identity changes nothing. */
static void test_identity(void **state)
{
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "k.cu", helpers_in, "k", 0, 1, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, helpers_in);
  assert_int_equal(r.kernel_edits, 0);
  assert_int_equal(r.nsites, 1);
  assert_int_equal(r.sites[0].rewritten, 1);
  assert_string_equal(r.sites[0].note,
                      "grid: `dim3 grid(n / block.x, n / block.y)` unchanged; "
                      "block: `dim3 block(32, 8)` unchanged");
  cc_cuda_rewrite_release(&r);
}

/* A template kernel in a namespace with a template helper; launches with an inline
 * dim3(...) and with integers (1D: x moves to y, so n becomes dim3(1, n)). */
static void test_template_namespace_inline_and_ints(void **state)
{
  static const char in[] =
    "namespace ns {\n"
    "template <typename T> __device__ T get(const T *p) { return p[blockIdx.x * blockDim.x + threadIdx.x]; }\n"
    "template <typename T>\n"
    "__global__ void k(T *out, const T *in) {\n"
    "  out[gridDim.x * blockDim.x * (blockIdx.y * blockDim.y + threadIdx.y) + blockIdx.x * blockDim.x + threadIdx.x] = get(in);\n"
    "}\n"
    "}\n"
    "void run(float *a, const float *b, int n) {\n"
    "  ns::k<float><<<dim3(n / 32, n / 8), dim3(32, 8)>>>(a, b);\n"
    "  ns::k<float><<<n, 256, 0>>>(a, b);\n"
    "}\n";
  static const char want[] =
    "namespace ns {\n"
    "template <typename T> __device__ T get(const T *p) { return p[blockIdx.y * blockDim.y + threadIdx.y]; }\n"
    "template <typename T>\n"
    "__global__ void k(T *out, const T *in) {\n"
    "  out[gridDim.y * blockDim.y * (blockIdx.x * blockDim.x + threadIdx.x) + blockIdx.y * blockDim.y + threadIdx.y] = get(in);\n"
    "}\n"
    "}\n"
    "void run(float *a, const float *b, int n) {\n"
    "  ns::k<float><<<dim3(n / 8, n / 32), dim3(8, 32)>>>(a, b);\n"
    "  ns::k<float><<<dim3(1, n), dim3(1, 256), 0>>>(a, b);\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  /* named as a demangler names it: reduced to "k" */
  assert_int_equal(permute(f, "t.cu", in, "void ns::k<float>(float*, float const*)", 1, 0, 2, &r,
                           &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.kernel_edits, 11);
  assert_int_equal(r.nsites, 2);
  assert_int_equal(r.sites[0].line, 9);
  assert_int_equal(r.sites[1].line, 10);
  assert_true(r.sites[0].rewritten && r.sites[1].rewritten);
  assert_string_equal(r.sites[0].note, "grid: `dim3(n / 32, n / 8)` -> `dim3(n / 8, n / 32)`; "
                                       "block: `dim3(32, 8)` -> `dim3(8, 32)`");
  assert_string_equal(r.sites[1].note, "grid: `n` -> `dim3(1, n)`; block: `256` -> `dim3(1, 256)`");
  cc_cuda_rewrite_release(&r);
}

/* A 3D rotation sigma = (2, 0, 1): x -> z, y -> x, z -> y. block (8, 4, 2) becomes
 * block'[2] = 8, block'[0] = 4, block'[1] = 2 = (4, 2, 8); a 1D grid n becomes (1, 1, n). */
static void test_rotation_3d(void **state)
{
  static const char in[] =
    "__global__ void k3(float *a) {\n"
    "  a[threadIdx.z * 32 + threadIdx.y * 8 + threadIdx.x] = blockDim.x + blockDim.y + blockDim.z;\n"
    "}\n"
    "void run(float *a, int n) {\n"
    "  dim3 block(8, 4, 2);\n"
    "  k3<<<n, block>>>(a);\n"
    "}\n";
  static const char want[] =
    "__global__ void k3(float *a) {\n"
    "  a[threadIdx.y * 32 + threadIdx.x * 8 + threadIdx.z] = blockDim.z + blockDim.x + blockDim.y;\n"
    "}\n"
    "void run(float *a, int n) {\n"
    "  dim3 block(4, 2, 8);\n"
    "  k3<<<dim3(1, 1, n), block>>>(a);\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "r.cu", in, "k3", 2, 0, 1, &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.kernel_edits, 6);
  assert_int_equal(r.nsites, 1);
  assert_true(r.sites[0].rewritten);
  cc_cuda_rewrite_release(&r);
}

/* A variable used by two launches of the kernel (warm-up and timed) is rewritten once;
 * `dim3 b;` with components assigned one by one: the assignments' letters move. */
static void test_shared_variable_and_assigned_components(void **state)
{
  static const char in[] =
    "__global__ void k(int *a) { a[threadIdx.y * 64 + threadIdx.x] = 1; }\n"
    "void run(int *a, int n) {\n"
    "  dim3 b;\n"
    "  b.x = 64;\n"
    "  b.y = 4;\n"
    "  dim3 g(1, n / b.y);\n"
    "  k<<<g, b>>>(a);\n"
    "  k<<<g, b>>>(a);\n"
    "}\n";
  static const char want[] =
    "__global__ void k(int *a) { a[threadIdx.x * 64 + threadIdx.y] = 1; }\n"
    "void run(int *a, int n) {\n"
    "  dim3 b;\n"
    "  b.y = 64;\n"
    "  b.x = 4;\n"
    "  dim3 g(n / b.x, 1);\n"
    "  k<<<g, b>>>(a);\n"
    "  k<<<g, b>>>(a);\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "s.cu", in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.nsites, 2);
  assert_true(r.sites[0].rewritten && r.sites[1].rewritten);
  assert_string_equal(r.sites[1].note, "grid: `dim3 g(1, n / b.y)` -> `dim3 g(n / b.x, 1)`; "
                                       "block: `dim3 b` unchanged");
  cc_cuda_rewrite_release(&r);
}

/* A macro argument used twice by its macro (one edit), and a macro body reached twice
 * through it (the body's letter once). */
static void test_macro_repeats(void **state)
{
  static const char in[] =
    "#define TX threadIdx.x\n"
    "#define SQ(v) ((v) * (v))\n"
    "__global__ void k(int *a) { a[SQ(threadIdx.x) + SQ(TX)] = 1; }\n";
  static const char want[] =
    "#define TX threadIdx.y\n"
    "#define SQ(v) ((v) * (v))\n"
    "__global__ void k(int *a) { a[SQ(threadIdx.y) + SQ(TX)] = 1; }\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "m.cu", in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.kernel_edits, 2);
  assert_int_equal(r.nsites, 0);
  cc_cuda_rewrite_release(&r);
}

/* No launch in the file: the caller is told what to pass. */
static void test_no_launch(void **state)
{
  static const char in[] = "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  char want[2048];
  assert_int_equal(permute(f, "n.cu", in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, "__global__ void k(int *a) { a[threadIdx.y] = 1; }\n");
  assert_int_equal(r.nsites, 0);
  assert_non_null(r.caller_note);
  snprintf(want, sizeof want, "no <<<...>>> launch of k in %s/n.cu: launch k with grid (g.y, "
           "g.x, g.z) and block (b.y, b.x, b.z), where g and b are the grid and block it had",
           f->dir);
  assert_string_equal(r.caller_note, want);
  cc_cuda_rewrite_release(&r);
}

/* Launches that cannot be rewritten: a parameter grid, a block variable also used by
 * another kernel's launch, a launch written by a macro; each note says what to pass. */
static void test_launches_left_to_the_caller(void **state)
{
  static const char in[] =
    "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
    "__global__ void other(int *a) { a[0] = 2; }\n"
    "#define LAUNCH(g, b) k<<<g, b>>>(a)\n"
    "void run(int *a, dim3 g) {\n"
    "  dim3 b(64, 2);\n"
    "  k<<<g, 32>>>(a);\n"
    "  k<<<1, b>>>(a);\n"
    "  other<<<1, b>>>(a);\n"
    "  LAUNCH(2, 64);\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  char want[2048];
  assert_int_equal(permute(f, "l.cu", in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_string_equal(r.text + 28, "a[threadIdx.y] = 1; }\n"
                                   "__global__ void other(int *a) { a[0] = 2; }\n"
                                   "#define LAUNCH(g, b) k<<<g, b>>>(a)\n"
                                   "void run(int *a, dim3 g) {\n"
                                   "  dim3 b(64, 2);\n"
                                   "  k<<<g, 32>>>(a);\n"
                                   "  k<<<1, b>>>(a);\n"
                                   "  other<<<1, b>>>(a);\n"
                                   "  LAUNCH(2, 64);\n"
                                   "}\n");
  assert_int_equal(r.nsites, 3);
  assert_int_equal(r.sites[0].line, 6);
  assert_false(r.sites[0].rewritten);
  assert_string_equal(r.sites[0].note,
                      "not rewritten: grid `g` is not a local dim3 variable, an inline dim3(...) "
                      "or an integer; launch k here with grid (g.y, g.x, g.z) and block (1, 32, 1)");
  assert_int_equal(r.sites[1].line, 7);
  assert_false(r.sites[1].rewritten);
  snprintf(want, sizeof want, "not rewritten: variable `b` is also used at %s/l.cu:8:14, which "
           "the rewrite does not follow; launch k here with grid (1, 1, 1) and block (b.y, b.x, "
           "b.z)", f->dir);
  assert_string_equal(r.sites[1].note, want);
  assert_int_equal(r.sites[2].line, 9);
  assert_false(r.sites[2].rewritten);
  assert_string_equal(r.sites[2].note, "not rewritten: the launch is written by a macro; launch k "
                                       "here with grid (1, 2, 1) and block (1, 64, 1)");
  assert_null(r.caller_note);
  cc_cuda_rewrite_release(&r);
}

/* Clang arguments from the caller: a -D the kernel needs and an include folder. */
static void test_extra_args(void **state)
{
  static const char in[] =
    "#include \"tile.h\"\n"
    "__global__ void k(float *a) { a[threadIdx.y * TILE + threadIdx.x] = ROWS; }\n";
  struct fixture *f = *state;
  const char *path, *args[2];
  char inc[1100];
  const int sigma[3] = {1, 0, 2};
  struct cc_cuda_rewrite r;
  struct cc_err err = {0};
  put(f, "tile.h", "#define TILE 32\n");
  path = put(f, "e.cu", in);
  snprintf(inc, sizeof inc, "-I%s", f->dir);
  args[0] = inc;
  args[1] = "-DROWS=8";
  /* without ROWS the kernel does not parse: a parse error inside it is bad input */
  assert_int_equal(cc_cuda_permute(path, in, strlen(in), "k", sigma, args, 1, &r, &err),
                   CC_ERR_INPUT);
  if (!strstr(err.msg, "e.cu:2:69: use of undeclared identifier 'ROWS'"))
    fail_msg("%s", err.msg);
  assert_null(r.text);
  assert_int_equal(cc_cuda_permute(path, in, strlen(in), "k", sigma, args, 2, &r, &err), CC_OK);
  assert_string_equal(r.text, "#include \"tile.h\"\n"
                              "__global__ void k(float *a) { a[threadIdx.x * TILE + threadIdx.y] = ROWS; }\n");
  cc_cuda_rewrite_release(&r);
}

/* Other places naming the kernel: a cudaLaunchKernel and a skipped #if branch. */
static void test_other_places(void **state)
{
  static const char in[] =
    "__global__ void k(int *a) { a[threadIdx.x] = 1; }\n"
    "void run(int *a) {\n"
    "  void *args[] = {&a};\n"
    "  cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0);\n"
    "#if 0\n"
    "  k<<<1, 32>>>(a);\n"
    "#endif\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  assert_int_equal(permute(f, "o.cu", in, "k", 1, 0, 2, &r, &err), CC_OK);
  assert_int_equal(r.nsites, 2);
  assert_int_equal(r.sites[0].line, 4);
  assert_int_equal(r.sites[0].column, 34);
  assert_false(r.sites[0].rewritten);
  assert_string_equal(r.sites[0].note,
                      "k is named here but not launched with <<<...>>>: if this launches it "
                      "(cudaLaunchKernel, ...), give it grid (g.y, g.x, g.z) and block (b.y, b.x, "
                      "b.z), where g and b are the grid and block it had");
  assert_int_equal(r.sites[1].line, 6);
  assert_int_equal(r.sites[1].column, 3);
  assert_false(r.sites[1].rewritten);
  assert_non_null(strstr(r.sites[1].note, "k is named in code the preprocessor skipped"));
  assert_non_null(r.caller_note); /* no <<<...>>> that was parsed */
  cc_cuda_rewrite_release(&r);
}

/* ---- refusals: the message names the place and the reason ---- */

struct refusal {
  const char *name, *src, *kernel;
  int status;
  const char *where; /* ":LINE:COL: " after the path, or NULL when the message starts elsewhere */
  const char *why;   /* a part of the message */
};

static const struct refusal refusals[] = {
  {"helper", "__device__ int h() { return threadIdx.x; }\n"
             "__global__ void k(int *a) { a[h()] = 1; }\n"
             "__global__ void other(int *a) { a[h()] = 2; }\n",
   "k", CC_ERR_NO_FIX, ":3:35: ", "h reads the thread geometry (kernel k calls it) and is also "
   "used here, in other; rewriting it would change that use too"},
  {"address", "__global__ void k(const unsigned **a) { a[0] = &threadIdx.x; }\n", "k",
   CC_ERR_NO_FIX, ":1:48: ", "the address of a component of threadIdx is taken"},
  {"whole", "__global__ void k(int *a) { uint3 t = threadIdx; a[t.x] = 1; }\n", "k",
   CC_ERR_NO_FIX, ":1:39: ", "threadIdx is used whole (copied, passed or converted)"},
  {"whole_dim3", "__global__ void k(int *a) { dim3 b = blockDim; a[b.x] = 1; }\n", "k",
   CC_ERR_NO_FIX, ":1:38: ", "blockDim is used whole"},
  {"skipped", "__global__ void k(int *a) {\n"
              "#ifndef __CUDA_ARCH__\n"
              "  a[threadIdx.y] = 0;\n"
              "#endif\n"
              "  a[threadIdx.x] = 1;\n"
              "}\n",
   "k", CC_ERR_NO_FIX, ":3:5: ", "threadIdx in code the preprocessor skipped"},
  {"macro_outside", "#define TX threadIdx.x\n"
                    "__global__ void k(int *a) { a[TX] = 1; }\n"
                    "__global__ void other(int *a) { a[TX] = 2; }\n",
   "k", CC_ERR_NO_FIX, ":3:35: ", "macro TX (defined at "},
  {"macro_argument_twice", "#define GET(v, c) (v.c + c)\n"
                           "__global__ void k(int *a) { int x = 1; a[GET(threadIdx, x)] = 1; }\n",
   "k", CC_ERR_NO_FIX, ":2:57: ", "this macro argument's letter reaches code outside the "
   "kernel's call tree, names something else in the macro's body or is pasted (##)"},
  {"macro_argument_pasted", "#define GET(v, c) (v.c + v##_##c)\n"
                            "__global__ void k(int *a) { int threadIdx_x = 1; a[GET(threadIdx, x)] = 1; }\n",
   "k", CC_ERR_NO_FIX, ":2:67: ", "or is pasted (##)"},
  {"macro_body_other_member", "#define P(s) (s.x + threadIdx.x)\n"
                              "struct S { int x; };\n"
                              "__global__ void k(int *a, S s) { a[P(s)] = 1; }\n",
   "k", CC_ERR_NO_FIX, ":3:36: ", "cannot match the thread-geometry components of macro P"},
  {"declared_only", "__device__ int ext(int i);\n"
                    "__global__ void k(int *a) { a[ext(threadIdx.x)] = 1; }\n",
   "k", CC_ERR_NO_FIX, ":1:16: ", "kernel k calls ext, which is declared here but not defined"},
  {"parse_error", "__global__ void k(int *a) { a[threadIdx.x] = undeclared(1); }\n", "k",
   CC_ERR_INPUT, ":1:46: ", "use of undeclared identifier 'undeclared' (in kernel k"},
  {"several", "__global__ void k(int *a) { }\nnamespace q { __global__ void k(int *a) { } }\n",
   "k", CC_ERR_INPUT, NULL, "several kernels named k in "},
  {"missing", "__global__ void k(int *a) { }\n__device__ void d() { }\n", "d", CC_ERR_INPUT, NULL,
   "no kernel (__global__ function definition) named d in "},
};

static void test_refusals(void **state)
{
  struct fixture *f = *state;
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const struct refusal *t = &refusals[i];
    struct cc_cuda_rewrite r;
    struct cc_err err;
    char name[64], want[1200];
    int rc;
    snprintf(name, sizeof name, "%s.cu", t->name);
    rc = permute(f, name, t->src, t->kernel, 1, 0, 2, &r, &err);
    at(f, want, sizeof want, name, "%s", t->where ? t->where : "");
    if (rc != t->status || (t->where && strncmp(err.msg, want, strlen(want)) != 0) ||
        !strstr(err.msg, t->why))
      fail_msg("%s: status %d, message \"%s\"", t->name, rc, err.msg);
    assert_null(r.text);
    assert_int_equal(r.nsites, 0);
  }
}

/* A kernel defined in a header, and a helper or a macro there that reads the builtins. */
static void test_headers(void **state)
{
  static const char hdr[] =
    "#define HTX threadIdx.x\n"
    "__device__ int hlane() { return threadIdx.x; }\n"
    "__global__ void hk(int *a) { a[0] = 0; }\n";
  static const char via_macro[] = "#include \"h.cuh\"\n__global__ void k(int *a) { a[HTX] = 1; }\n";
  static const char via_fn[] = "#include \"h.cuh\"\n__global__ void k(int *a) { a[hlane()] = 1; }\n";
  struct fixture *f = *state;
  struct cc_cuda_rewrite r;
  struct cc_err err;
  char want[1200];
  put(f, "h.cuh", hdr);
  assert_int_equal(permute(f, "hm.cu", via_macro, "k", 1, 0, 2, &r, &err), CC_ERR_NO_FIX);
  at(f, want, sizeof want, "hm.cu", ":2:31: threadIdx.x is read through macro HTX, defined at ");
  assert_memory_equal(err.msg, want, strlen(want));
  assert_non_null(strstr(err.msg, "h.cuh:1:9 outside "));
  assert_int_equal(permute(f, "hf.cu", via_fn, "k", 1, 0, 2, &r, &err), CC_ERR_NO_FIX);
  at(f, want, sizeof want, "h.cuh", ":2:16: hlane, called by kernel k, reads the thread "
     "geometry but is defined outside ");
  assert_memory_equal(err.msg, want, strlen(want));
  assert_int_equal(permute(f, "hk.cu", via_fn, "hk", 1, 0, 2, &r, &err), CC_ERR_INPUT);
  at(f, want, sizeof want, "h.cuh", ":3:17, not in ");
  assert_non_null(strstr(err.msg, want));
}

/* The function of text that starts with head, up to its closing "\n}\n", with `//`
 * comments and the spaces before them removed (owned). */
static char *function_text(const char *text, const char *head)
{
  const char *b = strstr(text, head), *e;
  char *out, *o;
  assert_non_null(b);
  e = strstr(b, "\n}\n");
  assert_non_null(e);
  out = o = calloc(1, (size_t)(e - b) + 4);
  assert_non_null(out);
  for (const char *p = b; p < e + 3; p++) {
    if (p[0] == '/' && p[1] == '/') {
      while (o > out && o[-1] == ' ')
        o--;
      while (*p != '\n')
        p++;
    }
    *o++ = *p;
  }
  return out;
}

/* Rodinia's Gaussian Fan2 (examples/gaussian): the thread mapping the CGO 2015 paper's
 * transformation gives, written by hand in the same file as fan2_fixed, is what permuting
 * fan2 by (1, 0, 2) produces. */
static void test_gaussian_fan2(void **state)
{
  const char *path = CC_SOURCE_DIR "/examples/gaussian/gaussian.cu";
  const int sigma[3] = {1, 0, 2};
  char *text, *got, *want;
  size_t len;
  struct cc_cuda_rewrite r;
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_file_read(path, &text, &len, &err), CC_OK);
  assert_int_equal(cc_cuda_permute(path, text, len, "fan2", sigma, NULL, 0, &r, &err), CC_OK);
  got = function_text(r.text, "__global__ void fan2(");
  want = function_text(text, "__global__ void fan2_fixed(");
  memmove(want + strlen("__global__ void fan2"), want + strlen("__global__ void fan2_fixed"),
          strlen(want + strlen("__global__ void fan2_fixed")) + 1);
  assert_string_equal(got, want);
  assert_int_equal(r.kernel_edits, 12);
  free(got);
  free(want);
  free(text);
  cc_cuda_rewrite_release(&r);
}

/* The text need not be on disk (the caller may hand a generated text): the input, like
 * the prelude, is then a file that exists only in memory, and the two must not be
 * confused (they were: nothing was rewritten). */
static void test_path_not_on_disk(void **state)
{
  static const char in[] = "__global__ void k(int *a) { a[threadIdx.x] = blockDim.y; }\n";
  struct fixture *f = *state;
  char path[1100];
  const int sigma[3] = {1, 0, 2};
  struct cc_cuda_rewrite r;
  struct cc_err err = {0};
  snprintf(path, sizeof path, "%s/absent/k.cu", f->dir);
  assert_int_equal(cc_cuda_permute(path, in, strlen(in), "k", sigma, NULL, 0, &r, &err), CC_OK);
  assert_string_equal(r.text, "__global__ void k(int *a) { a[threadIdx.y] = blockDim.x; }\n");
  assert_int_equal(r.kernel_edits, 2);
  cc_cuda_rewrite_release(&r);
}

/* Bad input never crashes: empty text, text with NUL bytes, a file that is not CUDA. */
static void test_bad_input(void **state)
{
  static const char junk[] = "\x7f\x45LF\0\0\x01 }}}} <<<>>> threadIdx.x";
  struct fixture *f = *state;
  const char *path = put(f, "j.cu", "");
  const int sigma[3] = {1, 0, 2};
  struct cc_cuda_rewrite r;
  struct cc_err err = {0};
  assert_int_equal(cc_cuda_permute(path, "", 0, "k", sigma, NULL, 0, &r, &err), CC_ERR_INPUT);
  assert_int_equal(cc_cuda_permute(path, junk, sizeof junk - 1, "k", sigma, NULL, 0, &r, &err),
                   CC_ERR_INPUT);
  assert_null(r.text);
  { /* more than 64 MiB: refused before parsing */
    size_t big = (64u << 20) + 1;
    char *text = malloc(big), want[1200];
    assert_non_null(text);
    memset(text, ' ', big);
    assert_int_equal(cc_cuda_permute(path, text, big, "k", sigma, NULL, 0, &r, &err), CC_ERR_INPUT);
    snprintf(want, sizeof want, "%s is 67108865 bytes; coalcheck parses CUDA files of at most "
             "64 MiB", path);
    assert_string_equal(err.msg, want);
    free(text);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_helpers_macros_variables, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_identity, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_template_namespace_inline_and_ints, fixture_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_rotation_3d, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_shared_variable_and_assigned_components, fixture_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_macro_repeats, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_no_launch, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_launches_left_to_the_caller, fixture_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_extra_args, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_other_places, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_headers, fixture_setup, fixture_teardown),
    cmocka_unit_test(test_gaussian_fan2),
    cmocka_unit_test_setup_teardown(test_path_not_on_disk, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_bad_input, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
