/* Emulator: integer and floating-point semantics, one instruction at a time in a single
 * thread. Each row gives the instruction, its operand types, inputs and the expected
 * result, derived by hand from the PTX ISA 9.0 definitions (the comment says how). */
#include <math.h>

#include "emu/harness.h"

struct row {
  const char *insn; /* uses %d, %a, %b, %c */
  const char *ta, *td;
  uint64_t a, b, c;
  uint64_t want;
  const char *why;
};

static unsigned tsize(const char *t)
{
  if (!strcmp(t, "pred")) return 4;
  return (unsigned)atoi(t + 1) / 8;
}

/* Runs one row: params a, b, c as .b64 (low bytes hold narrower types). */
static uint64_t run_row(const struct row *r)
{
  char ptx[2048];
  struct ptx_module *m;
  struct cc_emu *emu;
  struct launch l = L1(1, 1);
  uint64_t dout, got = 0;
  void *out;
  unsigned ds = tsize(r->td), as = tsize(r->ta);
  const char *st;
  char ldt[16], stt[16];
  snprintf(ldt, sizeof ldt, "b%u", as * 8);
  snprintf(stt, sizeof stt, "b%u", ds * 8);
  if (!strcmp(r->td, "pred"))
    st = "selp.u32 %t, 1, 0, %d;\nst.global.u32 [%rd1], %t;\n";
  else if (ds == 2) st = "st.global.b16 [%rd1], %d;\n";
  else if (ds == 4) st = "st.global.b32 [%rd1], %d;\n";
  else st = "st.global.b64 [%rd1], %d;\n";
  snprintf(ptx, sizeof ptx,
           PTX_HEADER
           ".visible .entry k(.param .u64 p_out, .param .b64 pa, .param .b64 pb, .param .b64 pc)\n"
           "{\n.reg .b64 %%rd<3>; .reg .b32 %%t;\n.reg .%s %%a, %%b, %%c;\n.reg .%s %%d;\n"
           "ld.param.u64 %%rd1, [p_out];\ncvta.to.global.u64 %%rd1, %%rd1;\n"
           "ld.param.%s %%a, [pa];\nld.param.%s %%b, [pb];\nld.param.%s %%c, [pc];\n"
           "%s;\n%sret;\n}\n",
           r->ta, r->td, ldt, ldt, ldt, r->insn, st);
  m = parse_ok(ptx);
  emu = cc_emu_new(m, NULL);
  out = alloc_ok(emu, 8, "out", &dout);
  arg64(&l, dout);
  arg64(&l, r->a);
  arg64(&l, r->b);
  arg64(&l, r->c);
  launch_ok(emu, m, "k", &l, NULL, NULL);
  memcpy(&got, out, ds);
  cc_emu_free(emu);
  ptx_module_free(m);
  return got;
}

static void check_rows(const struct row *rows, size_t n)
{
  int bad = 0;
  for (size_t j = 0; j < n; j++) {
    uint64_t got = run_row(&rows[j]);
    if (got != rows[j].want) {
      print_error("%s [%s]: got 0x%llx, want 0x%llx\n", rows[j].insn, rows[j].why,
                  (unsigned long long)got, (unsigned long long)rows[j].want);
      bad++;
    }
  }
  assert_int_equal(bad, 0);
}

#define N(x) (sizeof(x) / sizeof((x)[0]))
#define NEG32(x) ((uint64_t)(uint32_t)(int32_t)(x))

static void test_integer(void **state)
{
  static const struct row rows[] = {
      {"add.s32 %d, %a, %b", "s32", "s32", 0x7fffffff, 1, 0, 0x80000000, "wraps"},
      {"add.sat.s32 %d, %a, %b", "s32", "s32", 0x7fffffff, 1, 0, 0x7fffffff, "clamps high"},
      {"add.sat.s32 %d, %a, %b", "s32", "s32", 0x80000000, NEG32(-1), 0, 0x80000000, "clamps low"},
      {"sub.u32 %d, %a, %b", "u32", "u32", 0, 1, 0, 0xffffffff, "wraps below 0"},
      {"add.u16 %d, %a, %b", "u16", "u16", 0xffff, 2, 0, 1, "16-bit wrap"},
      {"mul.lo.s32 %d, %a, %b", "s32", "s32", 0x10000, 0x10000, 0, 0, "2^32 mod 2^32"},
      {"mul.hi.u32 %d, %a, %b", "u32", "u32", 0xffffffff, 0xffffffff, 0, 0xfffffffe,
       "(2^32-1)^2 = 2^64 - 2^33 + 1: high word 2^32 - 2"},
      {"mul.hi.s32 %d, %a, %b", "s32", "s32", NEG32(-1), NEG32(-1), 0, 0, "1: high word 0"},
      {"mul.hi.s32 %d, %a, %b", "s32", "s32", 0x7fffffff, 0x7fffffff, 0, 0x3fffffff,
       "(2^31-1)^2 = 2^62 - 2^32 + 1: high word 2^30 - 1"},
      {"mul.wide.s32 %d, %a, %b", "s32", "s64", NEG32(-2), 3, 0, (uint64_t)-6, "-6 in 64 bits"},
      {"mul.wide.u32 %d, %a, %b", "u32", "u64", 0xffffffff, 2, 0, 0x1fffffffeull, "no wrap"},
      {"mul.hi.u64 %d, %a, %b", "u64", "u64", UINT64_MAX, 2, 0, 1, "2^65 - 2: high 1"},
      {"mad.lo.s32 %d, %a, %b, %c", "s32", "s32", 3, 4, 5, 17, "3*4+5"},
      {"mad.hi.u32 %d, %a, %b, %c", "u32", "u32", 0x80000000, 4, 7, 9, "2^33 >> 32 = 2, +7"},
      {"div.s32 %d, %a, %b", "s32", "s32", NEG32(-7), 2, 0, NEG32(-3), "truncates"},
      {"rem.s32 %d, %a, %b", "s32", "s32", NEG32(-7), 2, 0, NEG32(-1), "sign of dividend"},
      {"div.u32 %d, %a, %b", "u32", "u32", 7, 0, 0, 0xffffffff, "by zero: all ones (ours)"},
      {"rem.u32 %d, %a, %b", "u32", "u32", 7, 0, 0, 0xffffffff, "by zero: all ones (ours)"},
      {"div.s32 %d, %a, %b", "s32", "s32", 0x80000000, NEG32(-1), 0, 0x80000000, "wraps"},
      {"rem.s32 %d, %a, %b", "s32", "s32", 0x80000000, NEG32(-1), 0, 0, "INT_MIN % -1"},
      {"div.u64 %d, %a, %b", "u64", "u64", 100, 7, 0, 14, "100/7"},
      {"shl.b32 %d, %a, %b", "b32", "b32", 1, 32, 0, 0, "shift >= width: 0"},
      {"shl.b32 %d, %a, %b", "b32", "b32", 1, 31, 0, 0x80000000, "1 << 31"},
      {"shr.s32 %d, %a, %b", "s32", "s32", NEG32(-8), 40, 0, 0xffffffff, "clamped: sign fill"},
      {"shr.s32 %d, %a, %b", "s32", "s32", NEG32(-8), 1, 0, NEG32(-4), "arithmetic"},
      {"shr.u32 %d, %a, %b", "u32", "u32", 0x80000000, 31, 0, 1, "logical"},
      {"shr.u32 %d, %a, %b", "u32", "u32", 0x80000000, 33, 0, 0, "clamped: 0"},
      {"shr.b64 %d, %a, 60", "b64", "b64", UINT64_MAX, 0, 0, 15,
       "logical 64 (the shift amount is a .u32: PTX ISA 9.4)"},
      {"shr.s16 %d, %a, 15", "s16", "s16", 0x8000, 0, 0, 0xffff, "16-bit arithmetic"},
      {"min.s32 %d, %a, %b", "s32", "s32", NEG32(-1), 1, 0, NEG32(-1), "signed"},
      {"min.u32 %d, %a, %b", "u32", "u32", 0xffffffff, 1, 0, 1, "unsigned"},
      {"max.s64 %d, %a, %b", "s64", "s64", (uint64_t)-5, 3, 0, 3, "signed 64"},
      {"abs.s32 %d, %a", "s32", "s32", 0x80000000, 0, 0, 0x80000000, "|INT_MIN| wraps"},
      {"abs.s32 %d, %a", "s32", "s32", NEG32(-5), 0, 0, 5, "|-5|"},
      {"neg.s32 %d, %a", "s32", "s32", 5, 0, 0, NEG32(-5), "-5"},
      {"not.b32 %d, %a", "b32", "b32", 0x0f0f0f0f, 0, 0, 0xf0f0f0f0, "complement"},
      {"cnot.b32 %d, %a", "b32", "b32", 0, 0, 0, 1, "!0"},
      {"popc.b32 %d, %a", "b32", "b32", 0xf0f0, 0, 0, 8, "8 ones"},
      {"popc.b64 %d, %a", "b64", "b32", UINT64_MAX, 0, 0, 64, "64 ones"},
      {"clz.b32 %d, %a", "b32", "b32", 0x00010000, 0, 0, 15, "bit 16 set"},
      {"clz.b32 %d, %a", "b32", "b32", 0, 0, 0, 32, "zero: width"},
      {"brev.b32 %d, %a", "b32", "b32", 1, 0, 0, 0x80000000, "bit 0 -> 31"},
      {"bfind.u32 %d, %a", "u32", "u32", 0x00010000, 0, 0, 16, "msb 16"},
      {"bfind.u32 %d, %a", "u32", "u32", 0, 0, 0, 0xffffffff, "none"},
      {"bfind.shiftamt.u32 %d, %a", "u32", "u32", 0x00010000, 0, 0, 15, "31 - 16"},
      {"bfind.s32 %d, %a", "s32", "s32", NEG32(-2), 0, 0, 0, "~(-2) = 1: bit 0"},
      {"bfe.u32 %d, %a, %b, %c", "u32", "u32", 0xabcd1234, 8, 8, 0x12, "byte 1"},
      {"bfe.s32 %d, %a, %b, %c", "s32", "s32", 0x0000f000, 12, 4, 0xffffffff,
       "field 0xf, sign bit 1"},
      {"bfe.s32 %d, %a, %b, %c", "s32", "s32", 0x00007000, 12, 4, 7, "field 0x7"},
      {"bfe.u32 %d, %a, %b, %c", "u32", "u32", 0xffffffff, 40, 8, 0, "start past msb: 0"},
      {"bfe.s32 %d, %a, %b, %c", "s32", "s32", 0x80000000, 28, 8, 0xfffffff8,
       "field runs past msb: bits 28..31 = 8, then the sign (bit 31) replicated"},
      {"mul24.lo.u32 %d, %a, %b", "u32", "u32", 0x01000003, 2, 0, 6, "bits above 24 ignored"},
      {"sad.u32 %d, %a, %b, %c", "u32", "u32", 3, 10, 100, 107, "|3-10| + 100"},
      {"min.u16 %d, %a, %b", "u16", "u16", 0x8000, 0x7fff, 0, 0x7fff, "unsigned 16"},
      {"min.s16 %d, %a, %b", "s16", "s16", 0x8000, 0x7fff, 0, 0x8000, "signed 16"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

static void test_bits(void **state)
{
  static const struct row rows[] = {
      /* bfi d, a, b, c=pos, len: a's low len bits into b at pos; %c holds pos, len is
       * the immediate 4 */
      {"bfi.b32 %d, %a, %b, %c, 4", "b32", "b32", 0xff, 0, 8, 0x00000f00, "4 bits at 8"},
      {"bfi.b32 %d, %a, %b, %c, 8", "b32", "b32", 0xab, 0xffffffff, 28, 0xbfffffff,
       "only bits 28..31 fit"},
      /* prmt: {b,a} bytes 0..7 = 00 11 22 33 44 55 66 77; selectors 0,1,4,5 */
      {"prmt.b32 %d, %a, %b, %c", "b32", "b32", 0x33221100, 0x77665544, 0x5410, 0x55441100,
       "bytes 0,1,4,5"},
      {"prmt.b32 %d, %a, %b, %c", "b32", "b32", 0x80, 0, 0x0008, 0x808080ff,
       "selector 8: byte 0 (0x80) sign replicated; selectors 0: byte 0"},
      {"and.b64 %d, %a, %b", "b64", "b64", 0xff00ff00ff00ff00ull, 0x0ff00ff00ff00ff0ull, 0,
       0x0f000f000f000f00ull, "64-bit and"},
      {"xor.b32 %d, %a, %b", "b32", "b32", 0xffff0000, 0xff00ff00, 0, 0x00ffff00, "xor"},
      {"selp.b32 %d, %a, %b, 1", "b32", "b32", 11, 22, 0, 11, "true picks a"},
      {"slct.s32.s32 %d, %a, %b, %c", "s32", "s32", 11, 22, NEG32(-1), 22, "c < 0 picks b"},
      {"slct.s32.s32 %d, %a, %b, %c", "s32", "s32", 11, 22, 0, 11, "c >= 0 picks a"},
      /* lop3 LUT 0x96 = a ^ b ^ c; 0xe8 = majority */
      {"lop3.b32 %d, %a, %b, %c, 0x96", "b32", "b32", 0xff00ff00, 0xf0f0f0f0, 0xcccccccc,
       0xc33cc33c, "xor3"},
      {"lop3.b32 %d, %a, %b, %c, 0xe8", "b32", "b32", 12, 10, 9, 8, "majority of 1100,1010,1001"},
      /* funnel shifts of b:a = 0x00000001:80000000 */
      {"shf.l.wrap.b32 %d, %a, %b, %c", "b32", "b32", 0x80000000, 1, 4, 0x18, "b<<4 | a>>28"},
      {"shf.l.wrap.b32 %d, %a, %b, %c", "b32", "b32", 0x80000000, 1, 36, 0x18, "36 mod 32 = 4"},
      {"shf.r.clamp.b32 %d, %a, %b, %c", "b32", "b32", 0xf0, 1, 4, 0x1000000f, "a>>4 | b<<28"},
      {"shf.r.clamp.b32 %d, %a, %b, %c", "b32", "b32", 0xf0, 1, 40, 1, "clamped to 32: b"},
      /* bmsk: len b bits from position a; szext: extend the low b bits of a */
      {"bmsk.clamp.b32 %d, %a, %b", "b32", "b32", 4, 8, 0, 0xff0, "8 bits at 4"},
      {"bmsk.wrap.b32 %d, %a, %b", "b32", "b32", 36, 4, 0, 0xf0, "36 mod 32 = 4"},
      {"bmsk.clamp.b32 %d, %a, %b", "b32", "b32", 30, 8, 0, 0xc0000000, "cut at bit 31"},
      {"szext.clamp.s32 %d, %a, %b", "s32", "s32", 0x80, 8, 0, 0xffffff80, "sign of bit 7"},
      {"szext.wrap.u32 %d, %a, %b", "u32", "u32", 0x1ff, 40, 0, 0xff, "40 mod 32 = 8 bits"},
      /* carry chains: the second instruction reads the carry left by the first */
      {"add.cc.u32 %d, %a, %b;\naddc.u32 %d, 0, 0", "u32", "u32", 0xffffffff, 1, 0, 1,
       "carry out of 2^32"},
      {"add.cc.u32 %d, %a, %b;\naddc.cc.u32 %d, %c, 0;\naddc.u32 %d, 0, 0", "u32", "u32",
       0xffffffff, 1, 0xffffffff, 1, "carry through two words"},
      {"sub.cc.u32 %d, %a, %b;\nsubc.u32 %d, 0, 0", "u32", "u32", 1, 2, 0, 0xffffffff,
       "borrow: 0 - 0 - 1"},
      {"mad.lo.cc.u32 %d, %a, %b, %c;\naddc.u32 %d, 0, 0", "u32", "u32", 0xffffffff,
       0xffffffff, 0xffffffff, 1, "lo((2^32-1)^2) = 1; 1 + 2^32-1 carries"},
      {"add.cc.u64 %d, %a, %b;\naddc.u64 %d, 5, 0", "u64", "u64", UINT64_MAX, 2, 0, 6,
       "64-bit carry"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

#define F1 0x3f800000u   /* 1.0f */
#define FNAN 0x7fffffffu /* canonical NaN */

static void test_float(void **state)
{
  static const struct row rows[] = {
      /* 1 + 2^-24 is half an ulp of 1: ties to even -> 1; .rp -> 1 + 2^-23 */
      {"add.f32 %d, %a, %b", "f32", "f32", F1, 0x33800000, 0, F1, "tie to even"},
      {"add.rn.f32 %d, %a, %b", "f32", "f32", F1, 0x33800000, 0, F1, "tie to even"},
      {"add.rp.f32 %d, %a, %b", "f32", "f32", F1, 0x33800000, 0, 0x3f800001, "up"},
      {"add.rz.f32 %d, %a, %b", "f32", "f32", F1, 0x34400000, 0, 0x3f800001,
       "1 + 1.5 ulp toward zero: 1 + 1 ulp"},
      {"add.f32 %d, %a, %b", "f32", "f32", F1, 0x34400000, 0, 0x3f800002,
       "1 + 1.5 ulp to nearest: 1 + 2 ulp"},
      {"add.rm.f32 %d, %a, %b", "f32", "f32", 0xbf800000, 0xb3800000, 0, 0xbf800001,
       "-1 - 2^-24 toward -inf"},
      {"mul.f32 %d, %a, %b", "f32", "f32", 0x7fc00001, F1, 0, FNAN, "NaN in: canonical NaN out"},
      {"min.f32 %d, %a, %b", "f32", "f32", 0x7fc00000, F1, 0, F1, "NaN ignored"},
      {"max.f32 %d, %a, %b", "f32", "f32", 0x7fc00000, 0x7fc00000, 0, FNAN, "both NaN"},
      {"min.f32 %d, %a, %b", "f32", "f32", 0x00000000, 0x80000000, 0, 0x80000000, "-0 < +0"},
      {"max.f32 %d, %a, %b", "f32", "f32", 0x80000000, 0x00000000, 0, 0x00000000, "+0 > -0"},
      {"add.ftz.f32 %d, %a, %b", "f32", "f32", 0x00000001, 0, 0, 0, "subnormal in flushed"},
      {"add.ftz.f32 %d, %a, %b", "f32", "f32", 0x80000001, 0x80000000, 0, 0x80000000,
       "-subnormal -> -0; -0 + -0 = -0"},
      {"add.f32 %d, %a, %b", "f32", "f32", 0x00000001, 0, 0, 0x00000001, "kept without ftz"},
      {"mul.ftz.f32 %d, %a, %b", "f32", "f32", 0x00800000, 0x3f000000, 0, 0,
       "2^-126 * 0.5 = 2^-127 (subnormal) flushed"},
      {"mul.f32 %d, %a, %b", "f32", "f32", 0x00800000, 0x3f000000, 0, 0x00400000,
       "2^-127 kept"},
      {"add.sat.f32 %d, %a, %b", "f32", "f32", 0x3f400000, 0x3f000000, 0, F1, "0.75+0.5 -> 1"},
      {"add.sat.f32 %d, %a, %b", "f32", "f32", 0x7fc00000, 0, 0, 0, "NaN -> 0"},
      {"div.rn.f32 %d, %a, %b", "f32", "f32", F1, 0x40400000, 0, 0x3eaaaaab, "1/3"},
      {"div.rn.f32 %d, %a, %b", "f32", "f32", F1, 0, 0, 0x7f800000, "1/0 = inf"},
      {"sqrt.rn.f32 %d, %a", "f32", "f32", 0x40000000, 0, 0, 0x3fb504f3, "sqrt 2"},
      {"sqrt.rn.f32 %d, %a", "f32", "f32", 0xbf800000, 0, 0, FNAN, "sqrt -1"},
      {"rcp.rn.f32 %d, %a", "f32", "f32", 0x40800000, 0, 0, 0x3e800000, "1/4"},
      /* fma: (1+2^-12)^2 - (1+2^-11) = 2^-24 exactly; mul then add would give 0 */
      {"fma.rn.f32 %d, %a, %b, %c", "f32", "f32", 0x3f800800, 0x3f800800, 0xbf801000,
       0x33800000, "single rounding"},
      {"neg.f32 %d, %a", "f32", "f32", 0, 0, 0, 0x80000000, "-(+0) = -0"},
      {"abs.f32 %d, %a", "f32", "f32", 0xbf800000, 0, 0, F1, "|-1|"},
      {"copysign.f32 %d, %a, %b", "f32", "f32", 0xbf800000, 0x40000000, 0, 0xc0000000,
       "sign of a, magnitude of b"},
      {"ex2.approx.f32 %d, %a", "f32", "f32", 0x40400000, 0, 0, 0x41000000, "2^3 exact"},
      {"add.f64 %d, %a, %b", "f64", "f64", 0x3ff0000000000000ull, 0x3ca0000000000000ull, 0,
       0x3ff0000000000000ull, "1 + 2^-53: tie to even"},
      {"add.rp.f64 %d, %a, %b", "f64", "f64", 0x3ff0000000000000ull, 0x3ca0000000000000ull, 0,
       0x3ff0000000000001ull, "up"},
      {"div.rn.f64 %d, %a, %b", "f64", "f64", 0x3ff0000000000000ull, 0x4008000000000000ull, 0,
       0x3fd5555555555555ull, "1/3"},
      {"rcp.rn.f64 %d, %a", "f64", "f64", 0x4008000000000000ull, 0, 0, 0x3fd5555555555555ull,
       "1/3"},
      {"fma.rn.f64 %d, %a, %b, %c", "f64", "f64", 0x3ff0000000000000ull, 0x4000000000000000ull,
       0x3ff0000000000000ull, 0x4008000000000000ull, "1*2+1"},
      {"testp.notanumber.f32 %d, %a", "f32", "pred", 0x7fc00000, 0, 0, 1, "NaN"},
      {"testp.finite.f32 %d, %a", "f32", "pred", 0x7f800000, 0, 0, 0, "inf"},
      {"tanh.approx.f32 %d, %a", "f32", "f32", 0, 0, 0, 0, "tanh 0 = 0"},
      {"set.lt.u32.f32 %d, %a, %b", "f32", "u32", F1, 0x40000000, 0, 0xffffffff, "1 < 2"},
      {"set.gt.f32.s32 %d, %a, %b", "s32", "f32", 3, 2, 0, F1, "3 > 2: 1.0f"},
      {"set.gt.f32.s32 %d, %a, %b", "s32", "f32", 2, 3, 0, 0, "2 > 3: 0.0f"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

static void test_half(void **state)
{
  /* f16: 1.0 = 0x3c00, ulp(1) = 2^-10; 2^-11 = 0x1000; 1.5 * 2^-11 = 0x1200 */
  static const struct row rows[] = {
      {"add.f16 %d, %a, %b", "f16", "f16", 0x3c00, 0x1000, 0, 0x3c00, "half ulp: tie to even"},
      {"add.f16 %d, %a, %b", "f16", "f16", 0x3c00, 0x1200, 0, 0x3c01, "0.75 ulp: up"},
      {"sub.f16 %d, %a, %b", "f16", "f16", 0x3c00, 0x3c00, 0, 0x0000, "x - x = +0"},
      {"mul.f16 %d, %a, %b", "f16", "f16", 0x3c01, 0x3c01, 0, 0x3c02,
       "(1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 -> 1 + 2^-9"},
      {"fma.rn.f16 %d, %a, %b, %c", "f16", "f16", 0x3c01, 0x3c01, 0xbc02, 0x0010,
       "2^-20 exactly: 16 subnormal units"},
      {"mul.f16 %d, %a, %b", "f16", "f16", 0x7bff, 0x4000, 0, 0x7c00, "65504 * 2 = inf"},
      {"max.f16 %d, %a, %b", "f16", "f16", 0x7e00, 0x3c00, 0, 0x3c00, "NaN ignored"},
      {"neg.f16 %d, %a", "f16", "f16", 0x3c00, 0, 0, 0xbc00, "-1"},
      {"abs.f16 %d, %a", "f16", "f16", 0xbc00, 0, 0, 0x3c00, "|-1|"},
      {"setp.gt.f16 %d, %a, %b", "f16", "pred", 0x3c01, 0x3c00, 0, 1, "1 + ulp > 1"},
      {"setp.gtu.f16 %d, %a, %b", "f16", "pred", 0x7e00, 0x3c00, 0, 1, "unordered"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

static void test_setp(void **state)
{
  static const struct row rows[] = {
      {"setp.lt.f32 %d, %a, %b", "f32", "pred", 0x7fc00000, F1, 0, 0, "ordered: NaN false"},
      {"setp.ltu.f32 %d, %a, %b", "f32", "pred", 0x7fc00000, F1, 0, 1, "unordered: NaN true"},
      {"setp.ne.f32 %d, %a, %b", "f32", "pred", 0x7fc00000, 0x7fc00000, 0, 0, "ordered ne"},
      {"setp.neu.f32 %d, %a, %b", "f32", "pred", 0x7fc00000, 0x7fc00000, 0, 1, "unordered ne"},
      {"setp.num.f32 %d, %a, %b", "f32", "pred", F1, 0x7fc00000, 0, 0, "one NaN"},
      {"setp.nan.f32 %d, %a, %b", "f32", "pred", F1, 0x7fc00000, 0, 1, "one NaN"},
      {"setp.eq.f32 %d, %a, %b", "f32", "pred", 0x80000000, 0, 0, 1, "-0 == +0"},
      {"setp.geu.f64 %d, %a, %b", "f64", "pred", 0x3ff0000000000000ull, 0x4000000000000000ull,
       0, 0, "1 >= 2 false"},
      {"setp.lt.s32 %d, %a, %b", "s32", "pred", NEG32(-1), 1, 0, 1, "signed"},
      {"setp.lt.u32 %d, %a, %b", "u32", "pred", NEG32(-1), 1, 0, 0, "unsigned"},
      {"setp.hi.u32 %d, %a, %b", "u32", "pred", 5, 4, 0, 1, "higher"},
      {"setp.lt.s16 %d, %a, %b", "s16", "pred", 0x8000, 1, 0, 1, "16-bit signed"},
      {"setp.lt.s64 %d, %a, %b", "s64", "pred", (uint64_t)-1, 0, 0, 1, "64-bit signed"},
      {"setp.eq.and.s32 %d, %a, %b, 0", "s32", "pred", 1, 1, 0, 0, "true and false"},
      {"setp.eq.or.s32 %d, %a, %b, 1", "s32", "pred", 1, 2, 0, 1, "false or true"},
      {"setp.eq.xor.s32 %d, %a, %b, 1", "s32", "pred", 1, 1, 0, 0, "true xor true"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

static void test_cvt(void **state)
{
  static const struct row rows[] = {
      {"cvt.rzi.s32.f32 %d, %a", "f32", "s32", 0xc02ccccd, 0, 0, NEG32(-2), "-2.7 -> -2"},
      {"cvt.rni.s32.f32 %d, %a", "f32", "s32", 0x40200000, 0, 0, 2, "2.5 -> 2 (even)"},
      {"cvt.rni.s32.f32 %d, %a", "f32", "s32", 0x40600000, 0, 0, 4, "3.5 -> 4 (even)"},
      {"cvt.rmi.s32.f32 %d, %a", "f32", "s32", 0xc0200000, 0, 0, NEG32(-3), "-2.5 -> -3"},
      {"cvt.rpi.s32.f32 %d, %a", "f32", "s32", 0x40066666, 0, 0, 3, "2.1 -> 3"},
      {"cvt.rzi.s32.f32 %d, %a", "f32", "s32", 0x7fc00000, 0, 0, 0, "NaN -> 0"},
      {"cvt.rzi.s32.f32 %d, %a", "f32", "s32", 0x501502f9, 0, 0, 0x7fffffff, "1e10 saturates"},
      {"cvt.rzi.s32.f32 %d, %a", "f32", "s32", 0xd01502f9, 0, 0, 0x80000000, "-1e10 saturates"},
      {"cvt.rzi.u32.f32 %d, %a", "f32", "u32", 0xc0a00000, 0, 0, 0, "-5 -> 0 unsigned"},
      {"cvt.rzi.s64.f64 %d, %a", "f64", "s64", 0xc00c000000000000ull, 0, 0, (uint64_t)-3,
       "-3.5 -> -3"},
      /* 16777217 = 2^24 + 1 is halfway between 2^24 and 2^24 + 2 */
      {"cvt.rn.f32.s32 %d, %a", "s32", "f32", 16777217, 0, 0, 0x4b800000, "tie to even 2^24"},
      {"cvt.rp.f32.s32 %d, %a", "s32", "f32", 16777217, 0, 0, 0x4b800001, "up: 2^24+2"},
      {"cvt.rz.f32.s32 %d, %a", "s32", "f32", 16777219, 0, 0, 0x4b800001, "2^24+3 -> 2^24+2"},
      {"cvt.rm.f32.s32 %d, %a", "s32", "f32", NEG32(-16777217), 0, 0, 0xcb800001,
       "-(2^24+1) down: -(2^24+2)"},
      {"cvt.rn.f32.u32 %d, %a", "u32", "f32", 0xffffffff, 0, 0, 0x4f800000, "2^32-1 -> 2^32"},
      {"cvt.rn.f64.s64 %d, %a", "s64", "f64", (uint64_t)-1, 0, 0, 0xbff0000000000000ull, "-1"},
      /* f64 1 + 2^-24 -> f32: a tie -> 1; 1 + 2^-40 up -> 1 + 2^-23 */
      {"cvt.rn.f32.f64 %d, %a", "f64", "f32", 0x3ff0000010000000ull, 0, 0, F1, "tie to even"},
      {"cvt.rp.f32.f64 %d, %a", "f64", "f32", 0x3ff0000000001000ull, 0, 0, 0x3f800001, "up"},
      {"cvt.rz.f32.f64 %d, %a", "f64", "f32", 0x3ff0000000001000ull, 0, 0, F1, "toward 0"},
      {"cvt.rm.f32.f64 %d, %a", "f64", "f32", 0xbff0000000001000ull, 0, 0, 0xbf800001, "down"},
      {"cvt.f64.f32 %d, %a", "f32", "f64", 0x3eaaaaab, 0, 0, 0x3fd5555560000000ull, "exact"},
      {"cvt.sat.f32.f32 %d, %a", "f32", "f32", 0x3fc00000, 0, 0, F1, "1.5 -> 1"},
      {"cvt.sat.f32.f32 %d, %a", "f32", "f32", 0xbf000000, 0, 0, 0, "-0.5 -> 0"},
      {"cvt.sat.f32.f32 %d, %a", "f32", "f32", 0x7fc00000, 0, 0, 0, "NaN -> 0"},
      {"cvt.rni.f32.f32 %d, %a", "f32", "f32", 0x40200000, 0, 0, 0x40000000, "2.5 -> 2.0"},
      {"cvt.rzi.f32.f32 %d, %a", "f32", "f32", 0xc02ccccd, 0, 0, 0xc0000000, "-2.7 -> -2.0"},
      {"cvt.ftz.f32.f32 %d, %a", "f32", "f32", 0x80000001, 0, 0, 0x80000000, "-subnormal -> -0"},
      {"cvt.s32.s16 %d, %a", "s16", "s32", 0x8000, 0, 0, 0xffff8000, "sign-extends"},
      {"cvt.u32.u16 %d, %a", "u16", "u32", 0x8000, 0, 0, 0x8000, "zero-extends"},
      {"cvt.s64.s32 %d, %a", "s32", "s64", 0xffffffff, 0, 0, UINT64_MAX, "-1"},
      {"cvt.u64.u32 %d, %a", "u32", "u64", 0xffffffff, 0, 0, 0xffffffff, "zero"},
      {"cvt.u16.u32 %d, %a", "u32", "u16", 0x12345, 0, 0, 0x2345, "truncates"},
      {"cvt.sat.s16.s32 %d, %a", "s32", "s16", 300000, 0, 0, 0x7fff, "clamps high"},
      {"cvt.sat.s16.s32 %d, %a", "s32", "s16", NEG32(-300000), 0, 0, 0x8000, "clamps low"},
      {"cvt.sat.u16.s32 %d, %a", "s32", "u16", NEG32(-5), 0, 0, 0, "clamps at 0"},
      {"cvt.sat.u32.s64 %d, %a", "s64", "u32", 0x100000000ull, 0, 0, 0xffffffff, "clamps"},
      /* f16: 1.0 = 0x3c00; 65520 rounds to inf; 65519 to 65504 (0x7bff); 3 * 2^-25 is
       * 1.5 units of 2^-24: ties to 2 units; subnormal f16 1 unit = 2^-24 */
      {"cvt.rn.f16.f32 %d, %a", "f32", "b16", F1, 0, 0, 0x3c00, "1.0"},
      {"cvt.rn.f16.f32 %d, %a", "f32", "b16", 0x477ff000, 0, 0, 0x7c00, "65520 -> inf"},
      {"cvt.rn.f16.f32 %d, %a", "f32", "b16", 0x477fef00, 0, 0, 0x7bff, "65519 -> 65504"},
      {"cvt.rn.f16.f32 %d, %a", "f32", "b16", 0x33c00000, 0, 0, 0x0002, "1.5 units -> 2"},
      {"cvt.f32.f16 %d, %a", "b16", "f32", 0x0001, 0, 0, 0x33800000, "2^-24"},
      {"cvt.f32.f16 %d, %a", "b16", "f32", 0xfc00, 0, 0, 0xff800000, "-inf"},
      {"cvt.f32.f16 %d, %a", "b16", "f32", 0x3555, 0, 0, 0x3eaaa000, "0.333 exactly"},
      /* 1 + 2^-11 + 2^-40 is just above the tie between 1 and 1 + 2^-10: up. (Through
       * f32 the 2^-40 would be lost and the tie would go to even, 1.0) */
      {"cvt.rn.f16.f64 %d, %a", "f64", "b16", 0x3ff0020000001000ull, 0, 0, 0x3c01,
       "one rounding"},
      {"cvt.rz.f16.f32 %d, %a", "f32", "b16", 0x3f801800, 0, 0, 0x3c00, "1 + 0.75 ulp -> 1"},
      {"cvt.rz.f16.f32 %d, %a", "f32", "b16", 0x47800000, 0, 0, 0x7bff, "65536 -> 65504"},
  };
  (void)state;
  check_rows(rows, N(rows));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integer), cmocka_unit_test(test_bits),
      cmocka_unit_test(test_float),   cmocka_unit_test(test_setp),
      cmocka_unit_test(test_cvt),     cmocka_unit_test(test_half),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
