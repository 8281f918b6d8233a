/* src/fix/redistribute.c: the candidates cc_fix_redistribute proposes for a kernel
 * measured in the emulator (the rewritten texts themselves are tests/cuda/
 * test_cuda_redist.c's), compiled by nvcc and measured again: outputs within a tolerance
 * derived from the reduction's length (floats) or bitwise (integers), and the sectors
 * derived by hand. The refusals made here (PTX input, warp-level code seen by the scan).
 * The parts that compile skip without nvcc. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <math.h>

#include "cuda/cuda.h"
#include "fix/fix_impl.h"
#include "launch/launch.h"
#include "ptx/ptx.h"
#include "util/fileio.h"

struct env {
  char *dir;
  int nvcc;                   /* nvcc found */
};

static int setup(void **state)
{
  struct cc_err err = {0};
  struct env *e = calloc(1, sizeof *e);
  if (!e || !(e->dir = cc_tmpdir_make(&err)))
    return -1;
  e->nvcc = system("command -v nvcc >/dev/null 2>&1") == 0;
  *state = e;
  return 0;
}

static int teardown(void **state)
{
  struct env *e = *state;
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", e->dir);
  if (system(cmd) != 0)
    return -1;
  free(e->dir);
  free(e);
  return 0;
}

/* Writes text to DIR/name.cu, compiles it to PTX and parses it. */
static struct ptx_module *compile(const struct env *e, const char *name, const char *text)
{
  char cu[1100], ptx[1100], cmd[3400];
  struct ptx_module *m = NULL;
  struct cc_err err = {0};
  FILE *f;
  snprintf(cu, sizeof cu, "%s/%s.cu", e->dir, name);
  snprintf(ptx, sizeof ptx, "%s/%s.ptx", e->dir, name);
  assert_non_null(f = fopen(cu, "w"));
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
  snprintf(cmd, sizeof cmd, "nvcc -ptx -lineinfo -arch=sm_90 -o '%s' '%s'", ptx, cu);
  if (system(cmd) != 0)
    fail_msg("nvcc failed on %s", cu);
  if (ptx_parse_file(ptx, &m, &err) != CC_OK)
    fail_msg("%s", err.msg);
  return m;
}

static const struct ptx_function *entry(const struct ptx_module *m)
{
  for (size_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].is_entry)
      return &m->funcs[i];
  fail_msg("no .entry");
  return NULL;
}

/* Parses the --arg specs (NULL-terminated) into args (at most 8). */
static size_t parse_args(const char *const *specs, struct cc_launch_arg *args)
{
  size_t n = 0;
  for (; specs[n]; n++) {
    struct cc_err err = {0};
    assert_true(n < 8);
    if (cc_launch_arg_parse(specs[n], ".", &args[n], &err) != CC_OK)
      fail_msg("%s: %s", specs[n], err.msg);
  }
  return n;
}

/* Emulates the only kernel of m on grid x block (x extents only, else 1). */
static void measure(const struct ptx_module *m, uint32_t gx, uint32_t bx, uint32_t by,
                    const struct cc_launch_arg *args, size_t nargs, struct cc_fix_measure *out)
{
  struct cc_fix_launch l;
  struct cc_err err = {0};
  memset(&l, 0, sizeof l);
  l.grid[0] = gx;
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = bx;
  l.block[1] = by;
  l.block[2] = 1;
  l.args = args;
  l.nargs = nargs;
  if (cc_fix_measure(m, entry(m), &l, out, &err) != CC_OK)
    fail_msg("measure: %s", err.msg);
}

static void opts_for(struct cc_fix_opts *o, const char *path, const char *text,
                     const struct ptx_module *m, const char *kernel, uint32_t gx, uint32_t bx,
                     const struct cc_launch_arg *args, size_t nargs)
{
  memset(o, 0, sizeof *o);
  o->input = path;
  o->input_text = text;
  o->input_len = strlen(text);
  o->input_is_cuda = 1;
  o->module = m;
  o->kernel = m ? entry(m) : NULL;
  o->kernel_name = kernel;
  o->grid[0] = gx;
  o->grid[1] = o->grid[2] = 1;
  o->block[0] = bx;
  o->block[1] = o->block[2] = 1;
  o->args = args;
  o->nargs = nargs;
}

static uint64_t sectors_on_line(const struct cc_fix_measure *r, uint32_t line)
{
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(r);
  uint64_t s = 0;
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.kind == CC_ACCESS_LOAD && k->insns[i].info.space == CC_SPACE_GLOBAL &&
        k->insns[i].info.line == line)
      s += k->insns[i].sectors;
  return s;
}

/* ---- a float row sum: 64 rows x 64 columns, grid 2 x block 32 ---- */

static const char rs_text[] =
  "__global__ void rs(float *y, const float *A, int n)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (i < n) {\n"
  "    float s = 0.0f;\n"
  "    for (int j = 0; j < n; j++)\n"
  "      s += A[i * n + j];\n"
  "    y[i] = s;\n"
  "  }\n"
  "}\n";

static void test_float_row_sum(void **state)
{
  struct env *e = *state;
  static const char *const specs[] = {"y=f32[n]:zero", "A=f32[n*n]:random:3", "n=64", NULL};
  struct cc_launch_arg args[8];
  struct cc_fix_measure before, after[2];
  struct cc_fix_opts o;
  struct cc_err err = {0};
  cc_fix_xcands c = {0};
  struct ptx_module *m, *fixed[2];
  size_t nargs;
  char path[1100];
  if (!e->nvcc)
    skip();
  nargs = parse_args(specs, args);
  m = compile(e, "rs", rs_text);
  memset(&before, 0, sizeof before);
  measure(m, 2, 32, 1, args, nargs, &before);
  /* before: 2 warps x 64 steps = 128 requests; lanes are rows 256 bytes apart: 32 sectors
   * each: 4096 sectors on line 7 */
  assert_int_equal(sectors_on_line(&before, 7), 4096);
  snprintf(path, sizeof path, "%s/rs.cu", e->dir);
  opts_for(&o, path, rs_text, m, "rs", 2, 32, args, nargs);
  if (cc_fix_redistribute(&o, &before, &c, &err) != CC_OK)
    fail_msg("%s", err.msg);
  assert_int_equal(c.len, 2);
  assert_string_equal(c.data[0].what, "the loop over j at rs.cu:6 spread over the 32 lanes of a "
                                       "warp (warp shuffle)");
  assert_string_equal(c.data[1].what, "the loop over j at rs.cu:6 spread over the 32 lanes of a "
                                       "warp (shared memory)");
  for (int f = 0; f < 2; f++) {
    const struct cc_fix_buffer *want, *got;
    assert_string_equal(c.data[f].transform, "redistribute");
    assert_int_equal(c.data[f].compare, CC_FIX_COMPARE_REASSOCIATED);
    /* n = 64 is a known parameter: 64 iterations, plus s's value before the loop */
    assert_int_equal(c.data[f].terms, 65);
    /* 64 threads, one warp each, 8 per CTA */
    assert_int_equal(c.data[f].grid[0], 8);
    assert_int_equal(c.data[f].block[0], 32);
    assert_int_equal(c.data[f].block[1], 8);
    assert_non_null(strstr(c.data[f].launch_note, "grid (8, 1, 1) and block (32, 8, 1)"));
    assert_non_null(strstr(c.data[f].why, "32.00 sectors per request measured"));
    fixed[f] = compile(e, f ? "rs_shared" : "rs_shuffle", c.data[f].text);
    memset(&after[f], 0, sizeof after[f]);
    measure(fixed[f], 8, 32, 8, args, nargs, &after[f]);
    /* after: a warp per row, 2 requests of 32 consecutive floats (4 sectors): 64 rows x 8 */
    assert_int_equal(sectors_on_line(&after[f], 7), 512);
    /* y: every row sums 64 values in [0, 1); both orders are within gamma(64) sum of the
     * exact sum, so they differ by at most 2 gamma(66) y (n = terms + 2 as fix_impl.h) */
    want = &before.bufs[0];
    got = &after[f].bufs[0];
    assert_int_equal(got->bytes, want->bytes);
    for (size_t i = 0; i < want->bytes / 4; i++) {
      float a, b;
      double u = ldexp(1.0, -24), g = 66 * u / (1 - 66 * u);
      memcpy(&a, want->data + 4 * i, 4);
      memcpy(&b, got->data + 4 * i, 4);
      if (fabs((double)a - (double)b) > 2 * g * fabs((double)a))
        fail_msg("y[%zu]: %.9g vs %.9g", i, (double)a, (double)b);
    }
    cc_fix_measure_release(&after[f]);
    ptx_module_free(fixed[f]);
  }
  for (size_t i = 0; i < c.len; i++)
    cc_fix_xcand_release(&c.data[i]);
  CC_VEC_FREE(&c);
  cc_fix_measure_release(&before);
  ptx_module_free(m);
  for (size_t i = 0; i < nargs; i++)
    cc_launch_arg_release(&args[i]);
}

/* An unsigned row sum: integer sums compare bitwise, and are bitwise equal. */
static void test_integer_row_sum(void **state)
{
  static const char text[] =
    "__global__ void us(unsigned *y, const unsigned *A, int n)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  unsigned s = 0;\n"
    "  for (int j = 0; j < n; j++)\n"
    "    s += A[i * n + j];\n"
    "  y[i] = s;\n"
    "}\n";
  static const char *const specs[] = {"y=u32[n]:zero", "A=u32[n*n]:random:4", "n=64", NULL};
  struct env *e = *state;
  struct cc_launch_arg args[8];
  struct cc_fix_measure before, after;
  struct cc_fix_opts o;
  struct cc_err err = {0};
  cc_fix_xcands c = {0};
  struct ptx_module *m, *fixed;
  size_t nargs;
  char path[1100], why[256];
  if (!e->nvcc)
    skip();
  nargs = parse_args(specs, args);
  m = compile(e, "us", text);
  memset(&before, 0, sizeof before);
  measure(m, 2, 32, 1, args, nargs, &before);
  snprintf(path, sizeof path, "%s/us.cu", e->dir);
  opts_for(&o, path, text, m, "us", 2, 32, args, nargs);
  if (cc_fix_redistribute(&o, &before, &c, &err) != CC_OK)
    fail_msg("%s", err.msg);
  assert_int_equal(c.len, 2);
  assert_int_equal(c.data[0].compare, CC_FIX_COMPARE_BITWISE);
  fixed = compile(e, "us_fixed", c.data[0].text);
  memset(&after, 0, sizeof after);
  measure(fixed, 8, 32, 8, args, nargs, &after);
  if (!cc_fix_buffers_equal(&before, &after, why, sizeof why))
    fail_msg("%s", why);
  for (size_t i = 0; i < c.len; i++)
    cc_fix_xcand_release(&c.data[i]);
  CC_VEC_FREE(&c);
  cc_fix_measure_release(&before);
  cc_fix_measure_release(&after);
  ptx_module_free(m);
  ptx_module_free(fixed);
  for (size_t i = 0; i < nargs; i++)
    cc_launch_arg_release(&args[i]);
}

/* Refusals that need no measurement: PTX input; a warp intrinsic in a helper the kernel
 * calls (the scan of the call tree sees it, with its place). */
static void test_refusals(void **state)
{
  static const char helper[] =
    "__device__ float warp_sum(float v)\n"
    "{\n"
    "  return v + __shfl_down_sync(0xffffffffu, v, 1);\n"
    "}\n"
    "__global__ void k(float *y, const float *A, int n)\n"
    "{\n"
    "  float s = 0.0f;\n"
    "  for (int j = 0; j < n; j++)\n"
    "    s += A[threadIdx.x * n + j];\n"
    "  y[threadIdx.x] = warp_sum(s);\n"
    "}\n";
  struct env *e = *state;
  struct cc_fix_measure none;
  struct cc_fix_opts o;
  struct cc_err err = {0};
  cc_fix_xcands c = {0};
  char path[1100], want[1300];
  FILE *f;
  memset(&none, 0, sizeof none);
  opts_for(&o, "k.ptx", ".version 9.0\n", NULL, "k", 1, 32, NULL, 0);
  o.input_is_cuda = 0;
  assert_int_equal(cc_fix_redistribute(&o, &none, &c, &err), CC_ERR_NO_FIX);
  assert_non_null(strstr(err.msg, "k.ptx: redistributing a reduction over a warp rewrites "
                                  "loops and needs the kernel's CUDA C source"));
  if (!cc_cuda_available())
    skip();
  snprintf(path, sizeof path, "%s/helper.cu", e->dir);
  assert_non_null(f = fopen(path, "w"));
  assert_int_equal(fputs(helper, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
  opts_for(&o, path, helper, NULL, "k", 1, 32, NULL, 0);
  assert_int_equal(cc_fix_redistribute(&o, &none, &c, &err), CC_ERR_NO_FIX);
  snprintf(want, sizeof want, "%s:3:14: __shfl_down_sync (warp intrinsic) in kernel k", path);
  if (strncmp(err.msg, want, strlen(want)) != 0)
    fail_msg("message \"%s\", want \"%s...\"", err.msg, want);
  assert_int_equal(c.len, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_float_row_sum),
    cmocka_unit_test(test_integer_row_sum),
    cmocka_unit_test(test_refusals),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
