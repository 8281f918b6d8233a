/* coalcheck fix --transform soa (src/fix/soa.c, soa_layout.c): the blocked layout's
 * relayouts on small buffers (expected bytes from the rule, written out here), the
 * conversion header compiled with gcc and g++ (round trip; the device helpers of the
 * rewritten kernel address the bytes the header puts each member at), the refusals of
 * cc_fix_soa with their places, and, with nvcc, examples/soa's kernels emulated before and
 * after with the relayouts applied by hand: buffers equal, sectors as derived in
 * examples/soa/soa.cu.
 *
 * The rule (cuda/soa.h): element e's run at offset o (size z) of an s-byte structure lives
 * at byte (e / 32) * 32 s + 32 o + (e % 32) z. */
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
#include "fix/soa_impl.h"
#include "launch/launch.h"
#include "ptx/ptx.h"
#include "util/fileio.h"

#define SRC CC_SOURCE_DIR "/examples/soa/soa.cu"

/* ---- relayouts -------------------------------------------------------------------- */

/* struct {short s; char c;}: 4 bytes, s at 0 (2), c at 2 (1), one byte of padding at 3.
 * A block of 32 is 128 bytes: s run at 0 (64 bytes), c run at 64, padding run at 96. */
static struct cc_cuda_soa_member small_members[] = {{"s", "short", 0, 2}, {"c", "char", 2, 1}};
static const struct cc_cuda_soa_param small = {0, "p", "sc", 4, 0, small_members, 2, 0, NULL,
                                               0, 1, 1};

static void test_relayout_small(void **state)
{
  enum { N = 64, TAIL = 3, BYTES = (N + TAIL) * 4 };
  struct cc_fix_soa_layout *l = cc_fix_soa_layout_new(&small);
  uint8_t aos[BYTES], buf[BYTES], want[BYTES];
  (void)state;
  assert_int_equal(l->npieces, 3);
  assert_int_equal(l->pieces[2].offset, 3);
  assert_int_equal(l->pieces[2].size, 1);
  assert_int_equal(l->pieces[2].padding, 1);
  for (int i = 0; i < BYTES; i++)
    aos[i] = (uint8_t)(7 * i + 1);
  /* by hand: block b at 128 b; element e of it: s bytes at 2e, 2e + 1; c at 64 + e;
   * padding at 96 + e; the 3 elements after the last whole block stay where they are */
  memcpy(want, aos, sizeof want);
  for (int b = 0; b < 2; b++)
    for (int e = 0; e < 32; e++) {
      const uint8_t *el = aos + 128 * b + 4 * e;
      uint8_t *blk = want + 128 * b;
      blk[2 * e] = el[0];
      blk[2 * e + 1] = el[1];
      blk[64 + e] = el[2];
      blk[96 + e] = el[3];
    }
  /* spot checks of the same rule: element 1's s at 2, element 33's c at 128 + 64 + 1 */
  assert_int_equal(want[2], aos[4]);
  assert_int_equal(want[193], aos[33 * 4 + 2]);
  memcpy(buf, aos, sizeof buf);
  cc_fix_soa_to_blocked(l, buf, sizeof buf);
  assert_memory_equal(buf, want, sizeof want);
  cc_fix_soa_from_blocked(l, buf, sizeof buf);
  assert_memory_equal(buf, aos, sizeof aos);
  /* {double; float;} of 16 bytes: element 33's float (offset 8) at 512 + 256 + 4 */
  l->size = 16;
  assert_int_equal(cc_fix_soa_address(l, 33, 8, 4), 772);
  free(l);
}

/* ---- the header, compiled ----------------------------------------------------------- */

/* Runs cmd; returns its exit status, or -1. */
static int run(const char *cmd)
{
  int st = system(cmd);
  return st == -1 ? -1 : WEXITSTATUS(st);
}

static void put(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

static char *slurp(const char *path, size_t *len)
{
  char *s = NULL;
  struct cc_err err = {0};
  if (cc_file_read(path, &s, len, &err) != CC_OK)
    fail_msg("%s", err.msg);
  return s;
}

/* The rewrite of kernel k of examples/soa/soa.cu (libclang). */
static void rewrite_example(const char *k, struct cc_cuda_soa *r)
{
  size_t len;
  char *text = slurp(SRC, &len);
  struct cc_err err = {0};
  if (cc_cuda_soa(SRC, text, len, k, NULL, 0, r, &err) != CC_OK)
    fail_msg("%s", err.msg);
  free(text);
}

/* The helpers the rewrite inserted: from their #line to the blank line before the kernel. */
static char *helpers_of(const char *text)
{
  const char *b = strstr(text, "#line "), *e;
  char *h;
  assert_non_null(b);
  e = strstr(b, "\n\n");
  assert_non_null(e);
  h = calloc(1, (size_t)(e - b) + 2);
  memcpy(h, b, (size_t)(e - b) + 1);
  return h;
}

/* A C program over the header of kernel step: round trip of 64 bodies (24 bytes: t at 0,
 * v at 8, a at 12, steps at 16, 4 bytes of padding), -1 for 63, the blocked bytes on
 * stdout. */
static const char header_main[] =
  "#include <stdio.h>\n"
  "#include \"step_soa_layout.h\"\n"
  "int main(void)\n{\n"
  "  static unsigned char aos[64 * 24], blk[64 * 24], back[64 * 24];\n"
  "  size_t i;\n"
  "  for (i = 0; i < sizeof aos; i++)\n    aos[i] = (unsigned char)(13 * i + 5);\n"
  "  if (step_b_to_blocked(blk, aos, 64) != 0 || step_b_from_blocked(back, blk, 64) != 0)\n"
  "    return 2;\n"
  "  if (memcmp(back, aos, sizeof aos) != 0)\n    return 3;\n"
  "  if (step_b_to_blocked(blk, aos, 63) != -1)\n    return 4;\n"
  "  return fwrite(blk, 1, sizeof blk, stdout) == sizeof blk ? 0 : 5;\n}\n";

/* A C++ program: the rewritten kernels' device helpers as host functions, checked
 * against the headers' addresses for 64 elements of every member, and knn_dist's whole
 * copy against the members the header put there. */
static const char helpers_main[] =
  "#include <stdio.h>\n"
  "#define __device__\n#define __forceinline__ inline\n"
  "struct body { double t; float v; float a; int steps; };\n"
  "struct point { float x, y, z; int label; };\n"
  "#include \"helpers.h\"\n#include \"step_soa_layout.h\"\n#include \"knn_dist_soa_layout.h\"\n"
  "#define AT(base, p) ((size_t)((const unsigned char *)(p) - (const unsigned char *)(base)))\n"
  "int main()\n{\n"
  "  static unsigned char buf[64 * 24], aos[64 * 16];\n"
  "  for (size_t e = 0; e < 64; e++) {\n"
  "    if (AT(buf, __cc_soa_b_t(buf, e)) != step_soa_address(24, e, 0, 8)) return 10;\n"
  "    if (AT(buf, __cc_soa_b_v(buf, e)) != step_soa_address(24, e, 8, 4)) return 11;\n"
  "    if (AT(buf, __cc_soa_b_a(buf, e)) != step_soa_address(24, e, 12, 4)) return 12;\n"
  "    if (AT(buf, __cc_soa_b_steps(buf, e)) != step_soa_address(24, e, 16, 4)) return 13;\n"
  "  }\n"
  "  point pts[64];\n"
  "  for (int e = 0; e < 64; e++)\n"
  "    pts[e] = point{e + 0.5f, e + 0.25f, e + 0.125f, 1000 + e};\n"
  "  memcpy(aos, pts, sizeof aos);\n"
  "  if (knn_dist_pts_to_blocked(buf, aos, 64) != 0) return 20;\n"
  "  for (int e = 0; e < 64; e++) {\n"
  "    point q = __cc_soa_pts_get((const point *)buf, e);\n"
  "    if (q.x != pts[e].x || q.y != pts[e].y || q.z != pts[e].z || q.label != pts[e].label)\n"
  "      return 21;\n"
  "  }\n"
  "  return 0;\n}\n";

static void test_header_compiles(void **state)
{
  struct cc_err err = {0};
  char *dir = cc_tmpdir_make(&err), path[1024], cmd[4096], *out, *hs, *hk;
  struct cc_cuda_soa step, knn;
  struct cc_fix_soa_layout *ls, *lk;
  uint8_t aos[64 * 24];
  size_t len;
  (void)state;
  assert_non_null(dir);
  if (!cc_cuda_available())
    skip();
  rewrite_example("step", &step);
  rewrite_example("knn_dist", &knn);
  ls = cc_fix_soa_layout_new(&step.params[0]);
  lk = cc_fix_soa_layout_new(&knn.params[0]);
  out = cc_fix_soa_header("soa.cu", "step", step.params, 1, &ls);
  snprintf(path, sizeof path, "%s/step_soa_layout.h", dir);
  put(path, out);
  free(out);
  out = cc_fix_soa_header("soa.cu", "knn_dist", knn.params, 1, &lk);
  snprintf(path, sizeof path, "%s/knn_dist_soa_layout.h", dir);
  put(path, out);
  free(out);
  hs = helpers_of(step.text);
  hk = helpers_of(knn.text);
  snprintf(path, sizeof path, "%s/helpers.h", dir);
  out = malloc(strlen(hs) + strlen(hk) + 1);
  strcat(strcpy(out, hs), hk);
  put(path, out);
  free(out);
  snprintf(path, sizeof path, "%s/h.c", dir);
  put(path, header_main);
  snprintf(path, sizeof path, "%s/d.cc", dir);
  put(path, helpers_main);
  /* plain C99, pedantic, warnings as errors; then the device helpers in C++ */
  snprintf(cmd, sizeof cmd, "cd %s && gcc -std=c99 -pedantic -Wall -Wextra -Werror -o h h.c && "
           "./h > blocked.bin && g++ -std=c++17 -Wall -Wextra -Werror -o d d.cc && ./d", dir);
  assert_int_equal(run(cmd), 0);
  /* the header's blocked bytes are the relayout's */
  for (size_t i = 0; i < sizeof aos; i++)
    aos[i] = (uint8_t)(13 * i + 5);
  cc_fix_soa_to_blocked(ls, aos, sizeof aos);
  snprintf(path, sizeof path, "%s/blocked.bin", dir);
  out = slurp(path, &len);
  assert_int_equal(len, sizeof aos);
  assert_memory_equal(out, aos, sizeof aos);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(run(cmd), 0);
  free(hs);
  free(hk);
  free(ls);
  free(lk);
  free(dir);
  cc_cuda_soa_release(&step);
  cc_cuda_soa_release(&knn);
}

/* ---- refusals of cc_fix_soa ----------------------------------------------------------- */

static void parse_args(const char *const *specs, size_t n, struct cc_launch_arg *out)
{
  for (size_t i = 0; i < n; i++) {
    struct cc_err err = {0};
    if (cc_launch_arg_parse(specs[i], NULL, &out[i], &err) != CC_OK)
      fail_msg("%s", err.msg);
  }
}

static void release_args(struct cc_launch_arg *a, size_t n)
{
  for (size_t i = 0; i < n; i++)
    cc_launch_arg_release(&a[i]);
}

static void release_cands(cc_fix_xcands *xs)
{
  for (size_t i = 0; i < xs->len; i++)
    cc_fix_xcand_release(&xs->data[i]);
  CC_VEC_FREE(xs);
}

/* cc_fix_soa on kernel k of examples/soa/soa.cu with args (a launch's, in order) and a
 * measurement holding only buffer `buf` of `bytes` (no instructions); returns its status,
 * the message in err. */
static int soa_on(const char *k, int cuda, const char *const *specs, size_t n, const char *buf,
                  uint64_t bytes, struct cc_err *err)
{
  struct cc_launch_arg args[8];
  struct cc_fix_buffer b = {(char *)buf, PTX_TYPE_F32, bytes, NULL};
  struct cc_fix_measure before;
  struct cc_fix_opts o;
  cc_fix_xcands xs = {0};
  size_t len;
  char *text = slurp(SRC, &len);
  int rc;
  parse_args(specs, n, args);
  memset(&before, 0, sizeof before);
  before.bufs = &b;
  before.nbufs = 1;
  memset(&o, 0, sizeof o);
  o.input = SRC;
  o.input_text = text;
  o.input_len = len;
  o.input_is_cuda = cuda;
  o.kernel_name = k;
  o.args = args;
  o.nargs = n;
  memset(err, 0, sizeof *err);
  rc = cc_fix_soa(&o, &before, &xs, err);
  assert_int_equal(xs.len, 0);
  release_cands(&xs);
  release_args(args, n);
  free(text);
  return rc;
}

static void expect_refusal(int rc, const struct cc_err *err, const char *start, const char *part)
{
  if (rc != CC_ERR_NO_FIX || strncmp(err->msg, start, strlen(start)) != 0 ||
      !strstr(err->msg, part))
    fail_msg("rc %d, '%s'; want '%s...' with '%s'", rc, err->msg, start, part);
}

static void test_refusals(void **state)
{
  static const char *const step_1000[] = {"b=f32[6*n]:random:11", "dt=0.25", "n=1000"};
  static const char *const step_odd[] = {"b=f32[6*n+1]:random:11", "dt=0.25", "n=64"};
  static const char *const energy[] = {"p=f32[3*n]:random:13", "e=f32[n]:zero", "n=16384"};
  struct cc_err err;
  int rc;
  (void)state;
  if (!cc_cuda_available())
    skip();
  /* PTX in */
  rc = soa_on("step", 0, step_1000, 3, "b", 24000, &err);
  expect_refusal(rc, &err, SRC ": laying an array of structures out", "CUDA C source");
  /* 1000 bodies of 24 bytes: not a multiple of 32; the parameter b is declared at 33:28 */
  rc = soa_on("step", 1, step_1000, 3, "b", 24000, &err);
  expect_refusal(rc, &err, SRC ":33:28: buffer 'b' of parameter b holds 1000 struct body",
                 "pad the array to a multiple of 32 elements (1024)");
  /* 6 * 64 + 1 floats = 1540 bytes: not whole 24-byte elements */
  rc = soa_on("step", 1, step_odd, 3, "b", 1540, &err);
  expect_refusal(rc, &err, SRC ":33:28: buffer 'b' of parameter b has 1540 bytes", "24-byte");
  /* energy passes p to norm2 at 78:25: the advice names the three float arrays */
  rc = soa_on("energy", 1, energy, 3, "p", 16384 * 12, &err);
  expect_refusal(rc, &err, SRC ":78:25: p is passed to norm2",
                 "(const float *x, const float *y, const float *z)");
  /* no instruction measured on the accesses' lines: nothing to lower */
  rc = soa_on("step", 1, step_1000, 3, "b", 24 * 1024, &err);
  expect_refusal(rc, &err, SRC ":37: the accesses to b are coalesced already", "0 sectors");
}

/* ---- with nvcc: examples/soa emulated before and after ------------------------------ */

static const char *nvcc_path(void)
{
  const char *n = getenv("NVCC");
  if (!n)
    n = "/usr/local/cuda/bin/nvcc";
  return access(n, X_OK) == 0 ? n : NULL;
}

/* text compiled by nvcc (-ptx -arch=sm_90 -lineinfo) in dir as NAME.cu, parsed. */
static struct ptx_module *compile(const char *dir, const char *name, const char *text)
{
  char cu[1024], ptx[1024], cmd[4096];
  struct ptx_module *m = NULL;
  struct cc_err err = {0};
  snprintf(cu, sizeof cu, "%s/%s.cu", dir, name);
  snprintf(ptx, sizeof ptx, "%s/%s.ptx", dir, name);
  put(cu, text);
  snprintf(cmd, sizeof cmd, "%s -ptx -arch=sm_90 -lineinfo -o %s %s", nvcc_path(), ptx, cu);
  assert_int_equal(run(cmd), 0);
  if (ptx_parse_file(ptx, &m, &err) != CC_OK)
    fail_msg("%s", err.msg);
  return m;
}

struct example {
  const char *kernel, *mangled;
  const char *const *specs;
  size_t nargs;
  uint64_t sectors_before, sectors_after;
};

/* The example's original and soa candidate, each emulated on the same arguments (the
 * candidate with its relayouts), 64 CTAs of 256 threads: every buffer bitwise equal in
 * the original layout, and the global sectors of both as derived by hand. */
static void check_example(const struct example *x)
{
  struct cc_err err = {0};
  char *dir = cc_tmpdir_make(&err), cmd[1200], *text, why[512];
  struct cc_launch_arg args[8];
  struct ptx_module *m, *m2;
  const struct ptx_function *k, *k2;
  struct cc_fix_measure before, after;
  struct cc_fix_launch l = {{64, 1, 1}, {256, 1, 1}, 0, NULL, 0, 0, 0, NULL, 0};
  struct cc_fix_opts o;
  cc_fix_xcands xs = {0};
  size_t len;
  assert_non_null(dir);
  text = slurp(SRC, &len);
  parse_args(x->specs, x->nargs, args);
  m = compile(dir, "soa", text); /* named as the input: its lines are the input's */
  assert_non_null(k = ptx_module_find(m, x->mangled));
  l.args = args;
  l.nargs = x->nargs;
  if (cc_fix_measure(m, k, &l, &before, &err) != CC_OK)
    fail_msg("%s", err.msg);
  memset(&o, 0, sizeof o);
  o.input = SRC;
  o.input_text = text;
  o.input_len = len;
  o.input_is_cuda = 1;
  o.module = m;
  o.kernel = k;
  o.kernel_name = x->kernel;
  memcpy(o.grid, l.grid, sizeof o.grid);
  memcpy(o.block, l.block, sizeof o.block);
  o.args = args;
  o.nargs = x->nargs;
  if (cc_fix_soa(&o, &before, &xs, &err) != CC_OK)
    fail_msg("%s", err.msg);
  assert_int_equal(xs.len, 1);
  assert_int_equal(xs.data[0].nrelayouts, 1);
  m2 = compile(dir, "fixed", xs.data[0].text);
  assert_non_null(k2 = ptx_module_find(m2, x->mangled));
  l.relayouts = xs.data[0].relayouts;
  l.nrelayouts = xs.data[0].nrelayouts;
  if (cc_fix_measure(m2, k2, &l, &after, &err) != CC_OK)
    fail_msg("%s", err.msg);
  if (!cc_fix_buffers_equal(&before, &after, why, sizeof why))
    fail_msg("%s: %s", x->kernel, why);
  assert_int_equal(cc_fix_measure_kernel(&before)->totals.sectors, x->sectors_before);
  assert_int_equal(cc_fix_measure_kernel(&after)->totals.sectors, x->sectors_after);
  cc_fix_measure_release(&before);
  cc_fix_measure_release(&after);
  release_cands(&xs);
  release_args(args, x->nargs);
  ptx_module_free(m);
  ptx_module_free(m2);
  free(text);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(run(cmd), 0);
  free(dir);
}

static void test_examples_emulated(void **state)
{
  static const char *const step[] = {"b=f32[6*n]:random:11", "dt=0.25", "n=16384"};
  static const char *const knn[] = {"pts=f32[4*n]:random:12", "qx=0.5", "qy=0.25", "qz=0.75",
                                    "dist=f32[n]:zero", "label=s32[n]:zero", "n=16384"};
  /* step, 512 warps (soa.cu's comment): before 3 loads + 3 stores of 24 sectors each per
   * warp = 144 * 512 = 73728; after, loads t 8, v 4, a 4, steps 4 and stores t 8, v 4,
   * steps 4 = 36 * 512 = 18432. knn_dist: before 4 loads of 16 and 2 stores of 4 = 72 *
   * 512 = 36864; after 6 * 4 * 512 = 12288. */
  static const struct example xs[] = {
    {"step", "_Z4stepP4bodyfi", step, 3, 73728, 18432},
    {"knn_dist", "_Z8knn_distPK5pointfffPfPii", knn, 7, 36864, 12288},
  };
  (void)state;
  if (!nvcc_path() || !cc_cuda_available())
    skip();
  for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
    check_example(&xs[i]);
}

/* Every access form of tests/cuda/test_cuda_soa.c's kernel (p[i].m read and written,
 * (p + i)->m, p->m, a whole copy, a const parameter) rewritten and compiled by nvcc. */
static void test_all_forms_compile(void **state)
{
  static const char in[] =
    "struct pt { double w; float x; int k; };\n"
    "__global__ void move(pt *p, const pt *q, float dt)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  p[i].x += q[ i ].x * dt;\n"
    "  (p + i)->k = p->k + 1;\n"
    "  pt s = q[i + 1];\n"
    "  p[i].w = s.w;\n"
    "}\n";
  struct cc_err err = {0};
  char *dir = cc_tmpdir_make(&err), cmd[1200];
  struct cc_cuda_soa r;
  struct ptx_module *m;
  (void)state;
  assert_non_null(dir);
  if (!nvcc_path() || !cc_cuda_available())
    skip();
  if (cc_cuda_soa("move.cu", in, strlen(in), "move", NULL, 0, &r, &err) != CC_OK)
    fail_msg("%s", err.msg);
  m = compile(dir, "move", r.text);
  assert_non_null(ptx_module_find(m, "_Z4moveP2ptPKS_f"));
  ptx_module_free(m);
  cc_cuda_soa_release(&r);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(run(cmd), 0);
  free(dir);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_relayout_small),
    cmocka_unit_test(test_header_compiles),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_examples_emulated),
    cmocka_unit_test(test_all_forms_compile),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
