/* Emulator: every instruction form that parses runs without undefined behaviour.
 *
 * A sweep over instruction templates x every type word (the 20 PTX types of enum
 * ptx_type, and words that are no type: "s32Y", "u33", "f31", "b"): each form is wrapped
 * in a kernel whose source registers hold lane-dependent edge values (0, all ones, the
 * sign bit alone, shift counts 0..70, float NaN/Inf/subnormal patterns; every pair of them
 * in the first two operands) and run over eight warps. What the parser refuses is not run; what parses must run to completion or be
 * named unsupported (CC_ERR_UNSUPPORTED) or stop with a kernel error; never crash. The
 * ASan/UBSan build (scripts/test.sh) turns any undefined shift, overflow or bad access in
 * the interpreter into a failure: before the parser checked type words, "setp.ge.s32Y"
 * parsed with no type and reached a 64-bit shift in emu_norm (issue 13).
 * Also: a type word that is no type never parses (checked here for every template). */
#include "emu/harness.h"

static const char *const types[] = {
    "pred", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
    "s64", "f16", "f16x2", "bf16", "bf16x2", "f32", "f64",
};
static const char *const junk[] = {"s32Y", "u33", "f31", "b"};

/* Operand letters of a template: D dest of T, A B C sources of T, W wide dest (2T), X
 * a wide source, U a .b32 source (shift counts, positions), V a .b32 dest, P a .pred
 * dest, Q a .pred source, M an address; T and T2 stand for type words. */
static const char *const templates[] = {
    "add.T D, A, B", "add.sat.T D, A, B", "add.cc.T D, A, B", "addc.T D, A, B",
    "sub.T D, A, B", "subc.cc.T D, A, B", "mul.lo.T D, A, B", "mul.hi.T D, A, B",
    "mul.wide.T W, A, B", "mul.T D, A, B", "mul.rz.ftz.T D, A, B", "mad.lo.T D, A, B, C",
    "mad.hi.sat.T D, A, B, C", "mad.wide.T W, A, B, X", "mad.rn.T D, A, B, C",
    "madc.hi.cc.T D, A, B, C", "fma.rn.T D, A, B, C", "fma.rm.sat.T D, A, B, C",
    "div.T D, A, B", "div.rn.T D, A, B", "div.approx.ftz.T D, A, B", "div.full.T D, A, B",
    "rem.T D, A, B", "abs.T D, A", "abs.ftz.T D, A", "neg.T D, A", "min.T D, A, B",
    "max.NaN.T D, A, B", "mov.T D, A", "and.T D, A, B", "or.T D, A, B", "xor.T D, A, B",
    "not.T D, A", "cnot.T D, A", "shl.T D, A, U", "shr.T D, A, U", "popc.T V, A", "clz.T V, A",
    "brev.T D, A", "bfind.T V, A", "bfind.shiftamt.T V, A", "bfe.T D, A, U, U",
    "bfi.T D, A, B, U, U", "prmt.T D, A, B, C", "lop3.T D, A, B, C, 0x96",
    "shf.l.wrap.T D, A, B, U", "shf.r.clamp.T D, A, B, U", "bmsk.clamp.T D, A, U",
    "szext.wrap.T D, A, U", "mul24.lo.T D, A, B", "mad24.hi.T D, A, B, C", "sad.T D, A, B, C",
    "fns.T D, A, U, U", "dp4a.T.T2 V, A, B, U", "testp.finite.T P, A",
    "testp.subnormal.T P, A", "copysign.T D, A, B", "sqrt.rn.T D, A", "sqrt.approx.T D, A",
    "rsqrt.approx.T D, A", "sin.approx.T D, A", "cos.approx.ftz.T D, A", "lg2.approx.T D, A",
    "ex2.approx.T D, A", "rcp.rn.T D, A", "rcp.approx.ftz.T D, A", "tanh.approx.T D, A",
    "setp.lt.T P, A, B", "setp.lo.T P, A, B", "setp.gtu.T P, A, B", "setp.nan.T P, A, B",
    "setp.ne.and.T P, A, B, Q", "set.lt.u32.T V, A, B", "set.ge.f32.T V, A, B",
    "selp.T D, A, B, Q", "slct.T.s32 D, A, B, U", "cvt.T.T2 D, A", "cvt.rn.T.T2 D, A",
    "cvt.rzi.T.T2 D, A", "cvt.sat.T.T2 D, A", "cvt.rni.sat.T.T2 D, A", "cvt.rz.ftz.T.T2 D, A",
    "ld.global.T D, M", "st.global.T M, A", "atom.global.add.T D, M, B",
    "atom.global.cas.T D, M, B, C", "atom.global.min.T D, M, B", "atom.global.inc.T D, M, B",
    "red.global.max.T M, B", "shfl.sync.idx.T D, A, U, 31, -1",
    "shfl.sync.down.T D, A, U, 31, -1", "vote.sync.ballot.T D, Q, -1",
    "match.any.sync.T V, A, -1", "redux.sync.add.T D, A, -1", "redux.sync.max.T D, A, -1",
};

static unsigned type_bits(const char *t)
{
  if (!strcmp(t, "pred")) return 1;
  if (!strcmp(t, "f16x2") || !strcmp(t, "bf16x2")) return 32;
  if (!strcmp(t, "bf16")) return 16;
  return (unsigned)atoi(t + 1);
}

static int is_type(const char *t)
{
  for (size_t j = 0; j < sizeof types / sizeof types[0]; j++)
    if (!strcmp(types[j], t)) return 1;
  return 0;
}

/* the register class (.bN or .pred) holding values of type t (of .s32 for a junk word) */
static void reg_class(const char *t, char *buf, size_t size)
{
  unsigned b = type_bits(is_type(t) ? t : "s32");
  if (b == 1) snprintf(buf, size, "pred");
  else snprintf(buf, size, "b%u", b < 8 ? 8 : b);
}

/* Appends to *p the text of template tp with T = t, T2 = t2 and operand letters replaced
 * by registers (see above). */
static void expand(const char *tp, const char *t, const char *t2, char **p, char *end)
{
  for (const char *c = tp; *c && *p < end - 16; c++) {
    const char *r = NULL;
    if (c[0] == 'T' && c[1] == '2') { r = t2; c++; }
    else if (c[0] == 'T' && (c == tp || c[-1] == '.')) r = t;
    else if (c[1] == ',' || c[1] == 0 || c[1] == ' ') {
      switch (*c) {
      case 'D': r = "%d0"; break;
      case 'A': r = "%a0"; break;
      case 'B': r = "%a1"; break;
      case 'C': r = "%a2"; break;
      case 'W': r = "%w0"; break;
      case 'X': r = "%w1"; break;
      case 'U': r = "%u1"; break;
      case 'V': r = "%u0"; break;
      case 'P': r = "%p0"; break;
      case 'Q': r = "%p1"; break;
      case 'M': r = "[%rd2]"; break;
      default: break;
      }
    }
    if (r) *p += snprintf(*p, (size_t)(end - *p), "%s", r);
    else *(*p)++ = *c;
  }
  **p = 0;
}

/* The kernel running form (template tp at types t, t2); NULL-free text in buf. */
static void kernel_text(const char *tp, const char *t, const char *t2, char *buf, size_t size)
{
  char ct[16], c2[16], cw[16];
  reg_class(t, ct, sizeof ct);
  reg_class(t2, c2, sizeof c2);
  unsigned tb = type_bits(is_type(t) ? t : "s32");
  snprintf(cw, sizeof cw, "b%u", tb >= 64 ? 128 : 2 * (tb < 8 ? 8 : tb));
  if (!strcmp(ct, "pred")) snprintf(cw, sizeof cw, "b16");
  char *p = buf, *end = buf + size;
  p += snprintf(p, (size_t)(end - p),
                PTX_HEADER ".visible .entry k(.param .u64 k_in)\n{\n"
                ".reg .b64 %%rd<4>; .reg .b32 %%r<4>; .reg .pred %%p<2>;\n"
                ".reg .%s %%a<3>; .reg .%s %%d0; .reg .%s %%w<2>; .reg .b32 %%u<2>;\n"
                ".reg .%s %%s<3>;\n"
                "ld.param.u64 %%rd1, [k_in];\ncvta.to.global.u64 %%rd1, %%rd1;\n"
                "mov.u32 %%r1, %%tid.x;\nmul.wide.u32 %%rd3, %%r1, 64;\n"
                "add.s64 %%rd2, %%rd1, %%rd3;\n"
                "ld.global.b32 %%u1, [%%rd2+40];\nand.b32 %%u1, %%u1, 127;\n"
                "ld.global.b32 %%r2, [%%rd2+44];\nsetp.ne.b32 %%p1, %%r2, 0;\n",
                ct, ct, cw, c2);
  /* sources: the bytes at offsets 0, 8, 16 (wide ones at 24, 32), as bit patterns */
  for (int j = 0; j < 3; j++) {
    if (!strcmp(ct, "pred"))
      p += snprintf(p, (size_t)(end - p), "ld.global.b32 %%r3, [%%rd2+%d];\n"
                    "setp.ne.b32 %%a%d, %%r3, 0;\n", 8 * j, j);
    else if (!strcmp(ct, "b128"))
      p += snprintf(p, (size_t)(end - p), "mov.b128 %%a%d, 0;\n", j);
    else
      p += snprintf(p, (size_t)(end - p), "ld.global.%s %%a%d, [%%rd2+%d];\n", ct, j, 8 * j);
  }
  if (strcmp(cw, "b128") != 0)
    p += snprintf(p, (size_t)(end - p), "ld.global.%s %%w1, [%%rd2+24];\n", cw);
  expand(tp, t, t2, &p, end);
  if ((size_t)(end - p) > 32) p += snprintf(p, (size_t)(end - p), ";\nret;\n}\n");
  (void)c2;
}

/* Edge values per lane: every pair of the 16 patterns meets in the first two source slots
 * over 256 lanes (slot 0: pattern l % 16, slot 1: l / 16 % 16; the others mixed). */
static void fill(uint8_t *in, unsigned nthreads)
{
  static const uint64_t pats[16] = {
      0, ~UINT64_C(0), UINT64_C(1) << 63, 0x80000000u, 0x8000u, 0x80u, 1, 63, 64, 70,
      0x7fc00000u /* f32 NaN */, 0x7ff0000000000000u /* f64 Inf */, 0x00000001u /* f32 subnormal */,
      0x7e00u /* f16 NaN */, 0xdeadbeefcafef00dull, 0xffffffff80000000ull};
  for (unsigned l = 0; l < nthreads; l++)
    for (unsigned s = 0; s < 6; s++) {
      unsigned k = s == 0 ? l % 16 : s == 1 ? l / 16 % 16 : (l * (2 * s + 1) + s) % 16;
      uint64_t v = pats[k];
      memcpy(in + 64 * l + 8 * s, &v, 8);
    }
}

struct tally {
  unsigned parsed, ran, unsupported, kernel_err, refused;
};

/* Parses and, when it parses, runs the form; counts the outcome. */
static void one(const char *tp, const char *t, const char *t2, struct tally *n)
{
  static char text[8192];
  struct ptx_module *m = NULL;
  struct cc_err err;
  kernel_text(tp, t, t2, text, sizeof text);
  memset(&err, 0, sizeof err);
  if (ptx_parse(text, strlen(text), "sweep.ptx", &m, &err) != CC_OK) {
    n->refused++;
    return;
  }
  n->parsed++;
  struct cc_emu *emu = cc_emu_new(m, NULL);
  uint64_t dev;
  void *host = alloc_ok(emu, 64 * 256, "in", &dev);
  fill(host, 256);
  struct launch l = L1(1, 256);
  arg64(&l, dev);
  int s = launch_run(emu, m, "k", &l, NULL, NULL, &err);
  if (s == CC_OK) n->ran++;
  else if (s == CC_ERR_UNSUPPORTED) n->unsupported++;
  else if (s == CC_ERR_KERNEL) n->kernel_err++;
  else {
    print_error("%s [T=%s T2=%s]: status %d: %s\n", tp, t, t2, s, err.msg);
    fail();
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

static int has_t2(const char *tp)
{
  return strstr(tp, "T2") != NULL;
}

static void test_sweep(void **state)
{
  struct tally n = {0};
  size_t nt = sizeof types / sizeof types[0];
  (void)state;
  for (size_t j = 0; j < sizeof templates / sizeof templates[0]; j++)
    for (size_t a = 0; a < nt; a++) {
      if (!has_t2(templates[j])) {
        one(templates[j], types[a], "b32", &n);
        continue;
      }
      for (size_t b = 0; b < nt; b++) one(templates[j], types[a], types[b], &n);
    }
  printf("sweep: %u forms parsed (%u ran, %u unsupported, %u kernel errors), %u refused\n",
         n.parsed, n.ran, n.unsupported, n.kernel_err, n.refused);
  /* the sweep is not vacuous: most templates have valid types (counted from the ISA's type
   * lists: well over 400 valid template x type pairs) */
  assert_true(n.ran > 400);
}

/* A word that is no type never makes a form parse, in any template and either type
 * position (before the fix, "setp.ge.s32Y" parsed as a setp without a type). */
static void test_junk_types_refused(void **state)
{
  static char text[8192];
  (void)state;
  for (size_t j = 0; j < sizeof templates / sizeof templates[0]; j++)
    for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++)
      for (int pos = 0; pos < (has_t2(templates[j]) ? 2 : 1); pos++) {
        struct ptx_module *m = NULL;
        struct cc_err err;
        memset(&err, 0, sizeof err);
        kernel_text(templates[j], pos ? "s32" : junk[k], pos ? junk[k] : "s32", text,
                    sizeof text);
        int s = ptx_parse(text, strlen(text), "sweep.ptx", &m, &err);
        if (s == CC_OK) {
          print_error("'%s' with '.%s' parsed\n", templates[j], junk[k]);
          ptx_module_free(m);
        }
        assert_int_equal(s, CC_ERR_INPUT);
        assert_true(contains(err.msg, "modifier"));
      }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_junk_types_refused),
      cmocka_unit_test(test_sweep),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
