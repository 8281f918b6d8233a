/* src/fix/verify.c: the reassociation bound that a redistributed sum is compared with,
 * and the relayouts that make the original's run on absolute values. Every expected
 * figure is worked out by hand in the comment above its test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fix/fix_impl.h"
#include "launch/launch.h"
#include "ptx/ptx.h"

/* A measurement holding one buffer named "y" of type t with the n bytes at data. */
static struct cc_fix_measure one_buffer(enum ptx_type t, const void *data, uint64_t n)
{
  struct cc_fix_measure m;
  memset(&m, 0, sizeof m);
  m.nbufs = 1;
  m.bufs = calloc(1, sizeof *m.bufs);
  m.bufs[0].name = strdup("y");
  m.bufs[0].type = t;
  m.bufs[0].bytes = n;
  m.bufs[0].data = malloc(n);
  memcpy(m.bufs[0].data, data, n);
  return m;
}

/* f32, terms = 1, so n = 3: gamma(3) = 3u / (1 - 3u), u = 2^-24, and the bound is
 * 2 gamma(3) |abs| = 6u / (1 - 3u) = 3.5763e-7 for |abs| = 1. One ulp at 1.0 is
 * 2^-23 = 2u = 1.1921e-7: within, at (2u) / (6u / (1 - 3u)) = (1 - 3u) / 3 of the bound.
 * Four ulps, 4.7684e-7, are not. */
static void test_f32_bound(void **state)
{
  float orig[2] = {1.0f, 1.0f}, fix[2], absv[2] = {1.0f, 1.0f};
  struct cc_fix_measure o, f, a;
  char why[256];
  double max_rel;
  uint32_t bits;
  fix[0] = nextafterf(1.0f, 2.0f);     /* 1 ulp up */
  fix[1] = 1.0f;
  o = one_buffer(PTX_TYPE_F32, orig, sizeof orig);
  f = one_buffer(PTX_TYPE_F32, fix, sizeof fix);
  a = one_buffer(PTX_TYPE_F32, absv, sizeof absv);
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1, &max_rel, why, sizeof why), 1);
  assert_true(fabs(max_rel - (1 - 3 * 0x1p-24) / 3) < 1e-12);
  memcpy(&bits, &fix[0], 4);
  bits += 3;                           /* 4 ulps up */
  memcpy(f.bufs[0].data, &bits, 4);
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1, &max_rel, why, sizeof why), 0);
  assert_non_null(strstr(why, "buffer 'y' element 0"));
  /* a longer sum widens the bound: terms = 5, n = 7, 2 gamma(7) = 14u / (1 - 7u) =
   * 8.34e-7 > 4 ulps */
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 5, &max_rel, why, sizeof why), 1);
  cc_fix_measure_release(&o);
  cc_fix_measure_release(&f);
  cc_fix_measure_release(&a);
}

/* Integers are summed exactly in any order: a difference of 1 fails whatever the terms;
 * NaN against NaN passes for floats; a zero magnitude allows no difference at all. */
static void test_int_nan_zero(void **state)
{
  int32_t io[1] = {7}, ifx[1] = {8};
  float no[2] = {NAN, 0.0f}, nf[2] = {NAN, 1e-30f}, na[2] = {1.0f, 0.0f};
  struct cc_fix_measure o = one_buffer(PTX_TYPE_S32, io, 4), f = one_buffer(PTX_TYPE_S32, ifx, 4),
                        a = one_buffer(PTX_TYPE_S32, io, 4);
  char why[256];
  double max_rel;
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1000, &max_rel, why, sizeof why), 0);
  cc_fix_measure_release(&o);
  cc_fix_measure_release(&f);
  cc_fix_measure_release(&a);
  o = one_buffer(PTX_TYPE_F32, no, sizeof no);
  f = one_buffer(PTX_TYPE_F32, nf, sizeof nf);
  a = one_buffer(PTX_TYPE_F32, na, sizeof na);
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1000, &max_rel, why, sizeof why), 0);
  assert_non_null(strstr(why, "element 1"));
  nf[1] = 0.0f;
  memcpy(f.bufs[0].data, nf, sizeof nf);
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1000, &max_rel, why, sizeof why), 1);
  cc_fix_measure_release(&o);
  cc_fix_measure_release(&f);
  cc_fix_measure_release(&a);
}

/* f64: terms = 1, bound 6u / (1 - 3u) with u = 2^-53 for |abs| = 1: one ulp (2u) passes,
 * a difference of 1e-15 (about 9 ulps) fails. */
static void test_f64_bound(void **state)
{
  double orig[1] = {1.0}, fix[1] = {nextafter(1.0, 2.0)}, absv[1] = {1.0};
  struct cc_fix_measure o = one_buffer(PTX_TYPE_F64, orig, 8), f = one_buffer(PTX_TYPE_F64, fix, 8),
                        a = one_buffer(PTX_TYPE_F64, absv, 8);
  char why[256];
  double max_rel;
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1, &max_rel, why, sizeof why), 1);
  fix[0] = 1.0 + 1e-15;
  memcpy(f.bufs[0].data, fix, 8);
  assert_int_equal(cc_fix_reassociation_ok(&o, &f, &a, 1, &max_rel, why, sizeof why), 0);
  cc_fix_measure_release(&o);
  cc_fix_measure_release(&f);
  cc_fix_measure_release(&a);
}

/* The |x| run: one relayout per f32/f64 buffer argument (not for integer buffers or
 * scalars), each clearing the sign bits: -2.5f -> 2.5f, -0.0 -> 0.0, 3.0 stays. */
static void test_abs_relayouts(void **state)
{
  struct cc_launch_arg args[4];
  struct cc_fix_relayout *r = NULL;
  float fv[3] = {-2.5f, 3.0f, -0.0f};
  double dv[1] = {-1e300};
  uint32_t n;
  memset(args, 0, sizeof args);
  args[0].name = "A"; args[0].is_buffer = 1; args[0].type = PTX_TYPE_F32;
  args[1].name = "idx"; args[1].is_buffer = 1; args[1].type = PTX_TYPE_S32;
  args[2].name = "n"; args[2].is_buffer = 0;
  args[3].name = "D"; args[3].is_buffer = 1; args[3].type = PTX_TYPE_F64;
  n = cc_fix_abs_relayouts(args, 4, &r);
  assert_int_equal(n, 2);
  assert_string_equal(r[0].buffer, "A");
  assert_string_equal(r[1].buffer, "D");
  r[0].to_fix(r[0].ctx, (uint8_t *)fv, sizeof fv);
  r[1].to_fix(r[1].ctx, (uint8_t *)dv, sizeof dv);
  assert_true(fv[0] == 2.5f && fv[1] == 3.0f && fv[2] == 0.0f && !signbit(fv[2]));
  assert_true(dv[0] == 1e300);
  assert_null(r[0].from_fix);
  cc_fix_relayouts_free(r, n);
}

/* The magnitude kernel of lbm's relaxation f + w (rho / 19 - f), written as nvcc does
 * (sub, a negated operand, a negative immediate -1.0 = 0fBF800000 and -2.0 in f64 =
 * 0dC000000000000000): the float sub becomes add, neg becomes abs, the immediates lose
 * their sign (0f3F800000 = 1.0, 0d4000000000000000 = 2.0); the integer sub.s32 stays.
 * So with |f| = 1, |rho| = 19, w = 1.5 the plain |x| run would give 1 + 1.5 (1 - 1) = 1,
 * the magnitude kernel 1 + 1.5 (1 + 1) = 4 = |f| + w |rho / 19| + w |f| (checked end to
 * end by fix_unseen_parboil.sh's lbm_aos). */
static void test_magnitude_module(void **state)
{
  static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n"
    "  .reg .f32 %f<8>;\n  .reg .f64 %fd<3>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<2>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  sub.f32 %f3, %f1, %f2;\n"
    "  neg.f32 %f4, %f3;\n"
    "  mul.f32 %f5, %f4, 0fBF800000;\n"
    "  sub.rn.f64 %fd2, %fd1, 0dC000000000000000;\n"
    "  sub.s32 %r3, %r1, %r2;\n"
    "  ret;\n}\n";
  struct ptx_module *m = NULL, *mag = NULL;
  struct cc_err err = {CC_OK, ""};
  char *text = NULL;
  size_t len = 0;
  FILE *f;
  (void)state;
  assert_int_equal(ptx_parse(ptx, strlen(ptx), "k.ptx", &m, &err), CC_OK);
  assert_int_equal(cc_fix_magnitude_module(m, &mag, &err), CC_OK);
  f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_int_equal(ptx_print_module(mag, f), CC_OK);
  fclose(f);
  assert_non_null(strstr(text, "add.f32"));
  assert_non_null(strstr(text, "abs.f32"));
  assert_non_null(strstr(text, "0f3F800000"));
  assert_non_null(strstr(text, "add.rn.f64"));
  assert_non_null(strstr(text, "0d4000000000000000"));
  assert_non_null(strstr(text, "sub.s32"));
  assert_null(strstr(text, "sub.f32"));
  assert_null(strstr(text, "neg.f32"));
  assert_null(strstr(text, "0fBF800000"));
  free(text);
  ptx_module_free(mag);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f32_bound),
    cmocka_unit_test(test_int_nan_zero),
    cmocka_unit_test(test_f64_bound),
    cmocka_unit_test(test_abs_relayouts),
    cmocka_unit_test(test_magnitude_module),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
