/* The affine address analysis on PTX written inline, one construct per test. Every
 * expected form, coefficient and class is derived by hand in the comment above its check
 * (bytes; a float is 4 bytes; PTX line numbers are counted in the inline text by
 * line_of, from the instruction's own text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "affine/affine.h"
#include "ptx/ptx.h"

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"
/* Registers every kernel below declares, and its first lines: k(a) or k(a, n) with the
 * pointer a in %rd1 (and n in %r9). */
#define REGS "\t.reg .pred %p<4>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n" \
             "\t.reg .f32 %f<6>;\n\t.reg .f64 %fd<2>;\n"
#define K_A HDR ".visible .entry k(.param .u64 k_param_0)\n{\n" REGS \
            "\tld.param.u64 %rd1, [k_param_0];\n"
#define K_AN HDR ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{\n" \
             REGS "\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u32 %r9, [k_param_1];\n"
/* Reads a[R] (R a 32-bit register) and ends the kernel. */
#define LOAD_END(R) "\tmul.wide.u32 %rd8, " R ", 4;\n\tadd.s64 %rd7, %rd1, %rd8;\n" \
                    "\tld.global.f32 %f1, [%rd7];\n\tret;\n}\n"

/* prefix + middle + suffix into buf (cap bytes). */
static const char *splice(char *buf, size_t cap, const char *prefix, const char *middle,
                          const char *suffix)
{
  snprintf(buf, cap, "%s%s%s", prefix, middle, suffix);
  return buf;
}

struct fx {
  struct ptx_module *m;
  struct cc_affine_kernel *k;
  const char *text;
};

/* Parses text and analyses its first function with a body. */
static struct fx analyse(const char *text)
{
  struct fx x = {NULL, NULL, text};
  struct cc_err err = {0};
  if (ptx_parse(text, strlen(text), "t.ptx", &x.m, &err) != CC_OK)
    fail_msg("unexpected parse error: %s", err.msg);
  for (uint32_t i = 0; i < x.m->nfuncs; i++)
    if (x.m->funcs[i].has_body) {
      assert_int_equal(cc_affine_analyze(x.m, &x.m->funcs[i], &x.k, &err), CC_OK);
      return x;
    }
  fail_msg("no function with a body");
  return x;
}

static void release(struct fx *x)
{
  cc_affine_kernel_free(x->k);
  ptx_module_free(x->m);
}

/* The 1-based line of text where needle first occurs (the hand count of PTX lines). */
static uint32_t line_of(const char *text, const char *needle)
{
  const char *p = strstr(text, needle);
  uint32_t line = 1;
  if (!p)
    fail_msg("'%s' not in the PTX text", needle);
  for (const char *c = text; c < p; c++)
    line += *c == '\n';
  return line;
}

/* The n-th memory access (program order). */
static const struct cc_affine_access *acc(const struct fx *x, uint32_t n)
{
  if (n >= x->k->naccesses)
    fail_msg("access %u of %u", n, x->k->naccesses);
  return &x->k->accesses[n];
}

static void expect_form(const struct cc_affine_access *a, const char *form)
{
  if (a->status != CC_AFFINE_OK)
    fail_msg("expected the form '%s', got %s: %s", form, cc_affine_status_name(a->status),
             a->why ? a->why : "(no reason)");
  assert_string_equal(a->text, form);
}

static void expect_status(const struct cc_affine_access *a, enum cc_affine_status st,
                          const char *why_part, uint32_t line)
{
  if (a->status != st)
    fail_msg("expected %s, got %s (%s)", cc_affine_status_name(st),
             cc_affine_status_name(a->status), a->text ? a->text : a->why);
  if (!a->why || !strstr(a->why, why_part))
    fail_msg("expected a reason with '%s', got '%s'", why_part, a->why ? a->why : "(none)");
  assert_int_equal(a->why_line, line);
  assert_null(a->text);
  assert_null(a->form);
}

/* The coefficient of (kind, index) under env, which must be known. */
static int64_t coeff(const struct cc_affine_access *a, const struct cc_affine_env *env,
                     enum cc_affine_atom_kind kind, uint32_t index)
{
  int64_t c = 0;
  if (!cc_affine_coeff(a, env, kind, index, &c))
    fail_msg("coefficient of atom %d.%u unknown in '%s'", (int)kind, index,
             a->text ? a->text : a->why);
  return c;
}

static void expect_classes(const struct cc_affine_access *a, const struct cc_affine_env *env,
                           enum cc_affine_class x, enum cc_affine_class y,
                           enum cc_affine_class z)
{
  enum cc_affine_class c[3];
  cc_affine_classify(a, env, c);
  assert_string_equal(cc_affine_class_name(c[0]), cc_affine_class_name(x));
  assert_string_equal(cc_affine_class_name(c[1]), cc_affine_class_name(y));
  assert_string_equal(cc_affine_class_name(c[2]), cc_affine_class_name(z));
}

/* ---- straight-line index arithmetic ------------------------------------------------ */

/* in[(blockIdx.y*blockDim.y + threadIdx.y) * n + blockIdx.x*blockDim.x + threadIdx.x], as
 * nvcc writes it: mad.lo.s32, mul.wide.s32 by 4, add.s64 to the cvta'd pointer. */
static const char *const two_d =
    HDR ".visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)\n{\n"
    "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<2>;\n"
    "\tld.param.u64 %rd1, [k_param_0];\n"
    "\tld.param.u32 %r1, [k_param_1];\n"
    "\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n"
    "\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "\tmov.u32 %r6, %ctaid.y;\n\tmov.u32 %r7, %ntid.y;\n\tmov.u32 %r8, %tid.y;\n"
    "\tmad.lo.s32 %r9, %r6, %r7, %r8;\n"
    "\tmad.lo.s32 %r10, %r9, %r1, %r5;\n"
    "\tmul.wide.s32 %rd3, %r10, 4;\n"
    "\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tld.global.f32 %f1, [%rd4];\n"
    "\tret;\n}\n";

static void test_two_d(void **state)
{
  struct fx x = analyse(two_d);
  const struct cc_affine_access *a = acc(&x, 0);
  static const char *const names[] = {"in", "n"};
  int64_t params[2] = {0, 1024};
  uint8_t known[2] = {0, 1};
  struct cc_affine_env env = {params, known, 2, {32, 8, 1}, {32, 128, 1}};
  struct cc_affine_env unknown_n = {params, (const uint8_t[]){0, 0}, 2, {32, 8, 1}, {1, 1, 1}};
  char *named;
  int64_t c;
  (void)state;
  assert_int_equal(x.k->naccesses, 1);
  /* the ld is instruction 14 (0-based: 2 ld.param, cvta, 3 mov, mad, 3 mov, 2 mad,
   * mul.wide, add; ret is 15); 4 bytes; global */
  assert_int_equal(a->insn, 14);
  assert_int_equal(a->size_bytes, 4);
  assert_int_equal(a->space, PTX_SPACE_GLOBAL);
  assert_int_equal(a->loops, 0);
  assert_ptr_equal(cc_affine_find(x.k, 14), a);
  assert_null(cc_affine_find(x.k, 13));
  /* address = in + 4*((ctaid.y*ntid.y + tid.y)*n + ctaid.x*ntid.x + tid.x) */
  expect_form(a, "param_0 + 4*tid.x + 4*param_1*tid.y + 4*ntid.x*ctaid.x + "
                 "4*param_1*ntid.y*ctaid.y");
  named = cc_affine_format(a, names, 2);
  assert_string_equal(named, "in + 4*tid.x + 4*n*tid.y + 4*ntid.x*ctaid.x + 4*n*ntid.y*ctaid.y");
  free(named);
  /* n = 1024, blockDim 32x8: tid.x 4, tid.y 4*1024 = 4096, tid.z 0; ctaid.x 4*32 = 128,
   * ctaid.y 4*1024*8 = 32768 */
  assert_int_equal(coeff(a, &env, CC_AFFINE_TID, 0), 4);
  assert_int_equal(coeff(a, &env, CC_AFFINE_TID, 1), 4096);
  assert_int_equal(coeff(a, &env, CC_AFFINE_TID, 2), 0);
  assert_int_equal(coeff(a, &env, CC_AFFINE_CTAID, 0), 128);
  assert_int_equal(coeff(a, &env, CC_AFFINE_CTAID, 1), 32768);
  expect_classes(a, &env, CC_AFFINE_CLASS_UNIT, CC_AFFINE_CLASS_LARGE, CC_AFFINE_CLASS_ZERO);
  /* ntid.x is multiplied by ctaid.x, which no launch fixes: unknown */
  assert_int_equal(cc_affine_coeff(a, &env, CC_AFFINE_NTID, 0, &c), 0);
  /* n unknown: the tid.y stride is unknown, tid.x still 4 */
  assert_int_equal(cc_affine_coeff(a, &unknown_n, CC_AFFINE_TID, 1, &c), 0);
  expect_classes(a, &unknown_n, CC_AFFINE_CLASS_UNIT, CC_AFFINE_CLASS_UNKNOWN,
                 CC_AFFINE_CLASS_ZERO);
  release(&x);
}

/* sub, neg, shl by a constant, cvt between widths: out[n - 2*tid.x] stored via 64 bits
 * as ((u64)(n + -(tid.x << 1))) << 2. */
static void test_sub_neg_shl_cvt(void **state)
{
  static const char *const text =
      K_AN "\tmov.u32 %r2, %tid.x;\n"
      "\tshl.b32 %r3, %r2, 1;\n"
      "\tneg.s32 %r4, %r3;\n"
      "\tadd.s32 %r5, %r9, %r4;\n"
      "\tsub.s32 %r6, %r5, 3;\n"
      "\tcvt.s64.s32 %rd2, %r6;\n"
      "\tshl.b64 %rd3, %rd2, 2;\n"
      "\tadd.s64 %rd4, %rd1, %rd3;\n"
      "\tmov.f32 %f1, 0f00000000;\n"
      "\tst.global.f32 [%rd4+8], %f1;\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  const struct cc_affine_access *a = acc(&x, 0);
  struct cc_affine_env env = {(const int64_t[]){0, 5}, (const uint8_t[]){0, 1}, 2,
                              {64, 1, 1}, {1, 1, 1}};
  (void)state;
  /* 4*(n - 2*tid.x - 3) + 8 = param_0 - 8*tid.x + 4*param_1 - 4 */
  expect_form(a, "param_0 - 8*tid.x + 4*param_1 - 4");
  assert_int_equal(coeff(a, &env, CC_AFFINE_TID, 0), -8);
  /* |-8| > 4: large */
  expect_classes(a, &env, CC_AFFINE_CLASS_LARGE, CC_AFFINE_CLASS_ZERO, CC_AFFINE_CLASS_ZERO);
  release(&x);
}

/* mad.wide.s32 straight into the 64-bit address (a + 8*tid.y + a's cvta), and mad.lo.s64
 * with an immediate: a[tid.y * 2 + 3] as nvcc may write it for doubles. */
static void test_mad_wide(void **state)
{
  static const char *const text =
      K_A "\tcvta.to.global.u64 %rd2, %rd1;\n"
      "\tmov.u32 %r1, %tid.y;\n"
      "\tmad.wide.s32 %rd3, %r1, 16, %rd2;\n"
      "\tld.global.f64 %fd1, [%rd3+24];\n"
      "\tcvt.u64.u32 %rd4, %r1;\n"
      "\tmad.lo.s64 %rd5, %rd4, 8, %rd2;\n"
      "\tld.global.f64 %fd1, [%rd5];\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  struct cc_affine_env env = {NULL, NULL, 0, {32, 8, 1}, {1, 1, 1}};
  (void)state;
  /* 16*tid.y + 24: 8-byte loads 16 bytes apart along y: large; x and z: zero */
  expect_form(acc(&x, 0), "param_0 + 16*tid.y + 24");
  assert_int_equal(acc(&x, 0)->size_bytes, 8);
  expect_classes(acc(&x, 0), &env, CC_AFFINE_CLASS_ZERO, CC_AFFINE_CLASS_LARGE,
                 CC_AFFINE_CLASS_ZERO);
  /* 8*tid.y: the access size: unit */
  expect_form(acc(&x, 1), "param_0 + 8*tid.y");
  expect_classes(acc(&x, 1), &env, CC_AFFINE_CLASS_ZERO, CC_AFFINE_CLASS_UNIT,
                 CC_AFFINE_CLASS_ZERO);
  release(&x);
}

/* An operation the forms do not model on parameters only: opaque and thread-invariant,
 * and computable under a launch: out[tid.x * (n & 3)] and out[tid.x * (n >> 1)]. */
static void test_opaque_invariant(void **state)
{
  static const char *const text =
      K_AN "\tmov.u32 %r2, %tid.x;\n"
      "\tand.b32 %r3, %r9, 3;\n"
      "\tmul.lo.s32 %r4, %r2, %r3;\n"
      "\tmul.wide.u32 %rd2, %r4, 4;\n"
      "\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tld.global.f32 %f1, [%rd3];\n"
      "\tshr.u32 %r5, %r9, 1;\n"
      "\tmul.lo.s32 %r6, %r2, %r5;\n" LOAD_END("%r6");
  struct fx x = analyse(text);
  struct cc_affine_env env = {(const int64_t[]){0, 7}, (const uint8_t[]){0, 1}, 2,
                              {32, 1, 1}, {1, 1, 1}};
  struct cc_affine_env unknown = {(const int64_t[]){0, 7}, (const uint8_t[]){0, 0}, 2,
                                  {32, 1, 1}, {1, 1, 1}};
  int64_t c;
  (void)state;
  expect_form(acc(&x, 0), "param_0 + 4*(param_1 & 3)*tid.x");
  expect_form(acc(&x, 1), "param_0 + 4*(param_1 >> 1)*tid.x");
  /* n = 7: 7 & 3 = 3 -> 12 bytes; 7 >> 1 = 3 -> 12 */
  assert_int_equal(coeff(acc(&x, 0), &env, CC_AFFINE_TID, 0), 12);
  assert_int_equal(coeff(acc(&x, 1), &env, CC_AFFINE_TID, 0), 12);
  assert_int_equal(cc_affine_coeff(acc(&x, 0), &unknown, CC_AFFINE_TID, 0, &c), 0);
  release(&x);
}

/* ---- loops ------------------------------------------------------------------------- */

/* A strength-reduced row walk (gemv's shape): p = A + 4*n*tid.x; loop { load p[1];
 * p += 8 bytes; j += 2 } while (j < n). */
static const char *const row_walk =
    K_AN                                          /* 0, 1: ld.param */
    "\tcvta.to.global.u64 %rd2, %rd1;\n"          /* 2 */
    "\tmov.u32 %r2, %tid.x;\n"                    /* 3 */
    "\tmul.lo.s32 %r3, %r2, %r9;\n"               /* 4 */
    "\tmul.wide.s32 %rd3, %r3, 4;\n"              /* 5 */
    "\tadd.s64 %rd4, %rd2, %rd3;\n"               /* 6 */
    "\tmov.u32 %r4, 0;\n"                         /* 7 */
    "\tmov.f32 %f1, 0f00000000;\n"                /* 8 */
    "$L__BB0_1:\n"
    "\tld.global.f32 %f2, [%rd4+4];\n"            /* 9: the loop's header */
    "\tadd.f32 %f1, %f1, %f2;\n"                  /* 10 */
    "\tadd.s64 %rd4, %rd4, 8;\n"                  /* 11 */
    "\tadd.s32 %r4, %r4, 2;\n"                    /* 12 */
    "\tsetp.lt.s32 %p1, %r4, %r9;\n"              /* 13 */
    "\t@%p1 bra $L__BB0_1;\n"                     /* 14: the back branch */
    "\tst.global.f32 [%rd2], %f1;\n"              /* 15 */
    "\tret;\n}\n";

static void test_strength_reduced_pointer(void **state)
{
  struct fx x = analyse(row_walk);
  const struct cc_affine_access *ld = acc(&x, 0), *st = acc(&x, 1);
  struct cc_affine_env env = {(const int64_t[]){0, 100}, (const uint8_t[]){0, 1}, 2,
                              {128, 1, 1}, {8, 1, 1}};
  (void)state;
  assert_int_equal(x.k->nloops, 1);
  assert_int_equal(x.k->loops[0].head_insn, 9);
  assert_int_equal(x.k->loops[0].latch_insn, 14);
  /* rd4 = A + 4*n*tid.x in the first iteration, 8 bytes more in each next one */
  expect_form(ld, "param_0 + 4*param_1*tid.x + 8*L0 + 4");
  assert_int_equal(ld->loops, 1);
  /* n = 100: thread stride 400 bytes (large), loop stride 8 */
  assert_int_equal(coeff(ld, &env, CC_AFFINE_TID, 0), 400);
  assert_int_equal(coeff(ld, &env, CC_AFFINE_LOOP, 0), 8);
  expect_classes(ld, &env, CC_AFFINE_CLASS_LARGE, CC_AFFINE_CLASS_ZERO, CC_AFFINE_CLASS_ZERO);
  /* the store after the loop does not depend on it */
  expect_form(st, "param_0");
  assert_int_equal(st->loops, 0);
  release(&x);
}

/* Counters used directly, in two nested loops: for i < 4 { for j < 8 { a[i*n + j + tid.x] } } */
static void test_nested_counters(void **state)
{
  static const char *const text =
      K_AN "\tmov.u32 %r1, %tid.x;\n"
      "\tmov.u32 %r3, 0;\n"
      "$L__BB0_1:\n"
      "\tmov.u32 %r4, 0;\n"
      "$L__BB0_2:\n"
      "\tmad.lo.s32 %r5, %r3, %r9, %r4;\n"
      "\tadd.s32 %r6, %r5, %r1;\n"
      "\tmul.wide.s32 %rd3, %r6, 4;\n"
      "\tadd.s64 %rd4, %rd1, %rd3;\n"
      "\tld.global.f32 %f1, [%rd4];\n"
      "\tadd.s32 %r4, %r4, 1;\n"
      "\tsetp.lt.s32 %p1, %r4, 8;\n"
      "\t@%p1 bra $L__BB0_2;\n"
      "\tadd.s32 %r3, %r3, 1;\n"
      "\tsetp.lt.s32 %p2, %r3, 4;\n"
      "\t@%p2 bra $L__BB0_1;\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  const struct cc_affine_access *a = acc(&x, 0);
  struct cc_affine_env env = {(const int64_t[]){0, 16}, (const uint8_t[]){0, 1}, 2,
                              {32, 1, 1}, {1, 1, 1}};
  (void)state;
  /* loop 0 is the outer one (its header comes first), loop 1 the inner one */
  assert_int_equal(x.k->nloops, 2);
  expect_form(a, "param_0 + 4*tid.x + 4*param_1*L0 + 4*L1");
  assert_int_equal(a->loops, 3);
  /* n = 16: one outer iteration moves 4*16 = 64 bytes, an inner one 4 */
  assert_int_equal(coeff(a, &env, CC_AFFINE_LOOP, 0), 64);
  assert_int_equal(coeff(a, &env, CC_AFFINE_LOOP, 1), 4);
  assert_int_equal(coeff(a, &env, CC_AFFINE_TID, 0), 4);
  release(&x);
}

/* A counter's value after its loop: j counts to n (thread-invariant: "L0.last"), then
 * a[j] is read; and the same with the bound tid.x (each thread its own trip count). */
static const char *after_loop(char *buf, size_t cap, const char *bound)
{
  return splice(buf, cap,
                K_AN "\tmov.u32 %r1, %tid.x;\n"
                "\tmov.u32 %r2, 0;\n"
                "$L__BB0_1:\n"
                "\tadd.s32 %r2, %r2, 1;\n"
                "\tsetp.lt.u32 %p1, %r2, ",
                bound, ";\n\t@%p1 bra $L__BB0_1;\n" LOAD_END("%r2"));
}

static void test_value_after_loop(void **state)
{
  char buf[2048];
  struct fx x = analyse(after_loop(buf, sizeof buf, "%r9"));
  struct cc_affine_env env = {(const int64_t[]){0, 9}, (const uint8_t[]){0, 1}, 2,
                              {32, 1, 1}, {1, 1, 1}};
  (void)state;
  /* j leaves the loop as L0.last + 1 (the add precedes the exit test): a + 4*L0.last + 4;
   * the same for every thread: tid stride 0 */
  expect_form(acc(&x, 0), "param_0 + 4*L0.last + 4");
  assert_int_equal(coeff(acc(&x, 0), &env, CC_AFFINE_TID, 0), 0);
  release(&x);
  x = analyse(after_loop(buf, sizeof buf, "%r1"));
  /* the loop runs tid.x times: j after it differs between threads */
  expect_status(acc(&x, 0), CC_AFFINE_CONTROL, "after the loop at PTX line",
                line_of(buf, "add.s32 %r2, %r2, 1;"));
  release(&x);
}

/* A register scaled in its loop (r *= 2) is no induction variable. */
static void test_geometric_update(void **state)
{
  static const char *const text =
      K_A "\tmov.u32 %r1, 1;\n"
      "\tmov.u32 %r2, 0;\n"
      "$L__BB0_1:\n"
      "\tmul.wide.u32 %rd2, %r1, 4;\n"
      "\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tld.global.f32 %f1, [%rd3];\n"
      "\tshl.b32 %r1, %r1, 1;\n"
      "\tadd.s32 %r2, %r2, 1;\n"
      "\tsetp.lt.u32 %p1, %r2, 10;\n"
      "\t@%p1 bra $L__BB0_1;\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  (void)state;
  /* the header's first line is the mul.wide */
  expect_status(acc(&x, 0), CC_AFFINE_CONTROL, "%r1 changes in the loop",
                line_of(text, "mul.wide.u32 %rd2"));
  release(&x);
}

/* ---- not affine ----------------------------------------------------------------------- */

/* a[b[tid.x]]: the index comes from memory. */
static void test_indirect(void **state)
{
  static const char *const text =
      HDR ".visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)\n{\n" REGS
      "\tld.param.u64 %rd1, [k_param_0];\n\tld.param.u64 %rd2, [k_param_1];\n"
      "\tmov.u32 %r1, %tid.x;\n"
      "\tmul.wide.u32 %rd3, %r1, 4;\n"
      "\tadd.s64 %rd4, %rd2, %rd3;\n"
      "\tld.global.u32 %r2, [%rd4];\n"
      "\tmul.wide.u32 %rd5, %r2, 4;\n"
      "\tadd.s64 %rd6, %rd1, %rd5;\n"
      "\tld.global.f32 %f1, [%rd6];\n"
      "\tatom.global.add.f32 %f1, [%rd6], %f1;\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  uint32_t line = line_of(text, "ld.global.u32");
  (void)state;
  assert_int_equal(x.k->naccesses, 3);
  expect_form(acc(&x, 0), "param_1 + 4*tid.x");
  expect_status(acc(&x, 1), CC_AFFINE_INDIRECT, "loaded at PTX line", line);
  /* atom: a memory instruction too, the same address */
  expect_status(acc(&x, 2), CC_AFFINE_INDIRECT, "loaded at PTX line", line);
  release(&x);
}

/* One nonlinear index: insn makes %r3 from tid.x (%r1) and tid.y (%r2), and a[%r3] is
 * read. */
static void check_nonlinear(const char *insn, const char *why)
{
  char text[2048];
  struct fx x = analyse(splice(text, sizeof text,
                               K_A "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\t", insn,
                               "\n" LOAD_END("%r3")));
  expect_status(acc(&x, 0), CC_AFFINE_NONLINEAR, why, line_of(text, insn));
  release(&x);
}

static void test_nonlinear(void **state)
{
  (void)state;
  check_nonlinear("mul.lo.s32 %r3, %r1, %r2;", "multiplies two thread or loop indices");
  check_nonlinear("div.u32 %r3, %r1, 3;", "takes div.u32 of a thread or loop index");
  check_nonlinear("rem.u32 %r3, %r1, 3;", "takes rem.u32 of a thread or loop index");
  check_nonlinear("and.b32 %r3, %r1, 31;", "takes and.b32 of a thread or loop index");
  check_nonlinear("xor.b32 %r3, %r1, %r2;", "takes xor.b32 of a thread or loop index");
  check_nonlinear("shl.b32 %r3, %r1, %r2;", "takes shl.b32 of a thread or loop index");
  check_nonlinear("mov.u32 %r3, %laneid;", "uses %laneid");
}

/* if (tid.x < 16) i = 4*tid.x else i = 8*tid.x: two forms join. */
static void test_control_join(void **state)
{
  static const char *const text =
      K_A "\tmov.u32 %r1, %tid.x;\n"
      "\tsetp.lt.u32 %p1, %r1, 16;\n"
      "\t@%p1 bra $L__BB0_2;\n"
      "\tshl.b32 %r2, %r1, 2;\n"
      "\tbra.uni $L__BB0_3;\n"
      "$L__BB0_2:\n"
      "\tshl.b32 %r2, %r1, 3;\n"
      "$L__BB0_3:\n"
      "\tcvt.u64.u32 %rd2, %r2;\n"
      "\tadd.s64 %rd3, %rd1, %rd2;\n"
      "\tld.global.f32 %f1, [%rd3];\n"
      "\tselp.b32 %r3, %r1, 0, %p1;\n" LOAD_END("%r3");
  struct fx x = analyse(text);
  (void)state;
  expect_status(acc(&x, 0), CC_AFFINE_CONTROL, "%r2 has different values on the paths",
                line_of(text, "cvt.u64.u32 %rd2"));
  expect_status(acc(&x, 1), CC_AFFINE_CONTROL, "chosen by a predicate",
                line_of(text, "selp.b32"));
  release(&x);
}

/* Different thread-invariant values after a branch on a parameter (the start of an
 * unrolled loop's remainder) join to one opaque value; on tid.x they do not. */
static const char *uniform_join(char *buf, size_t cap, const char *cond)
{
  return splice(buf, cap,
                K_AN "\tmov.u32 %r1, %tid.x;\n"
                "\tmov.u32 %r4, 0;\n"
                "\tsetp.lt.u32 %p1, ",
                cond, ", 4;\n"
                "\t@%p1 bra $L__BB0_2;\n"
                "\tmov.u32 %r4, 4;\n"
                "$L__BB0_2:\n"
                "\tadd.s32 %r5, %r4, %r1;\n" LOAD_END("%r5"));
}

static void test_uniform_join(void **state)
{
  char buf[2048];
  struct fx x = analyse(uniform_join(buf, sizeof buf, "%r9"));
  struct cc_affine_env env = {(const int64_t[]){0, 9}, (const uint8_t[]){0, 1}, 2,
                              {32, 1, 1}, {1, 1, 1}};
  (void)state;
  /* r4 is 0 or 4, the same in every thread: a + 4*tid.x + 4*%r4; tid stride 4 */
  expect_form(acc(&x, 0), "param_0 + 4*tid.x + 4*%r4");
  assert_int_equal(coeff(acc(&x, 0), &env, CC_AFFINE_TID, 0), 4);
  release(&x);
  x = analyse(uniform_join(buf, sizeof buf, "%r1"));
  expect_status(acc(&x, 0), CC_AFFINE_CONTROL, "%r4 has different values",
                line_of(buf, "add.s32 %r5"));
  release(&x);
}

/* A predicated write joins the value before it: @p add r, r, 4. */
static void test_predicated_write(void **state)
{
  static const char *const text =
      K_A "\tmov.u32 %r1, %tid.x;\n"
      "\tsetp.lt.u32 %p1, %r1, 16;\n"
      "\tmov.u32 %r2, %r1;\n"
      "\t@%p1 add.s32 %r2, %r2, 4;\n" LOAD_END("%r2");
  struct fx x = analyse(text);
  (void)state;
  expect_status(acc(&x, 0), CC_AFFINE_CONTROL, "%r2 has different values",
                line_of(text, "@%p1 add.s32"));
  release(&x);
}

/* A cycle entered in two places is no natural loop. */
static void test_irreducible(void **state)
{
  static const char *const text =
      K_A "\tmov.u32 %r1, %tid.x;\n"
      "\tmov.u32 %r2, 0;\n"
      "\tsetp.eq.u32 %p1, %r1, 0;\n"
      "\t@%p1 bra $L__B;\n"
      "$L__A:\n"
      "\tadd.s32 %r2, %r2, 1;\n"
      "$L__B:\n"
      "\tadd.s32 %r2, %r2, 2;\n"
      "\tsetp.lt.u32 %p2, %r2, 100;\n"
      "\t@%p2 bra $L__A;\n" LOAD_END("%r2");
  struct fx x = analyse(text);
  (void)state;
  assert_int_equal(x.k->nloops, 0);
  assert_int_equal(acc(&x, 0)->status, CC_AFFINE_CONTROL);
  assert_non_null(strstr(acc(&x, 0)->why, "irreducible"));
  release(&x);
}

/* ---- spaces, sizes, classes -------------------------------------------------------------- */

/* A function-scope shared array read with ld.shared.v4 and through a generic address
 * (cvta.shared), and a local depot written per thread. */
static void test_spaces_and_vectors(void **state)
{
  static const char *const text =
      HDR ".visible .entry k()\n{\n"
      "\t.local .align 4 .b8 __local_depot0[256];\n"
      "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<6>;\n\t.reg .b16 %rs<2>;\n"
      "\t.shared .align 16 .b8 _ZZ1kvE4tile[4096];\n"
      "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n"
      "\tshl.b32 %r3, %r1, 4;\n"
      "\tmov.u32 %r4, _ZZ1kvE4tile;\n"
      "\tmad.lo.s32 %r5, %r2, 256, %r4;\n"
      "\tadd.s32 %r6, %r5, %r3;\n"
      "\tld.shared.v4.f32 {%f1, %f2, %f3, %f4}, [%r6+16];\n"
      "\tmov.u64 %rd1, _ZZ1kvE4tile;\n"
      "\tcvta.shared.u64 %rd2, %rd1;\n"
      "\tmul.wide.u32 %rd3, %r1, 4;\n"
      "\tadd.s64 %rd4, %rd2, %rd3;\n"
      "\tld.f32 %f5, [%rd4];\n"
      "\tmov.u64 %rd5, __local_depot0;\n"
      "\tmul.wide.u32 %rd6, %r1, 4;\n"
      "\tadd.s64 %rd7, %rd5, %rd6;\n"
      "\tmov.u16 %rs1, 7;\n"
      "\tst.local.u16 [%rd7], %rs1;\n"
      "\tst.global.u16 [%rd7], %rs1;\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  struct cc_affine_env env = {NULL, NULL, 0, {8, 8, 1}, {1, 1, 1}};
  (void)state;
  assert_int_equal(x.k->naccesses, 4);
  /* v4.f32: 16 bytes per lane; tile + 256*tid.y + 16*tid.x + 16 */
  assert_int_equal(acc(&x, 0)->size_bytes, 16);
  assert_int_equal(acc(&x, 0)->space, PTX_SPACE_SHARED);
  expect_form(acc(&x, 0), "tile + 16*tid.x + 256*tid.y + 16");
  /* stride 16 = the access size: unit; 256: large */
  expect_classes(acc(&x, 0), &env, CC_AFFINE_CLASS_UNIT, CC_AFFINE_CLASS_LARGE,
                 CC_AFFINE_CLASS_ZERO);
  assert_int_equal(acc(&x, 1)->space, PTX_SPACE_GENERIC);
  expect_form(acc(&x, 1), "tile + 4*tid.x");
  /* 2-byte accesses 4 bytes apart: unit for local memory (bound max(2, 4) = 4, access.h),
   * large for global memory (bound 2) */
  assert_int_equal(acc(&x, 2)->size_bytes, 2);
  expect_form(acc(&x, 2), "__local_depot0 + 4*tid.x");
  expect_classes(acc(&x, 2), &env, CC_AFFINE_CLASS_UNIT, CC_AFFINE_CLASS_ZERO,
                 CC_AFFINE_CLASS_ZERO);
  expect_classes(acc(&x, 3), &env, CC_AFFINE_CLASS_LARGE, CC_AFFINE_CLASS_ZERO,
                 CC_AFFINE_CLASS_ZERO);
  release(&x);
}

/* The first instruction that makes a geometry permutation observable. */
static void test_warp_dependent(void **state)
{
  static const char *const text =
      K_A                                                /* 0 */
      "\tmov.u32 %r1, %tid.x;\n"                         /* 1 */
      "\tshfl.sync.down.b32 %r2, %r1, 16, 31, -1;\n"     /* 2 */
      "\tmov.u32 %r3, %laneid;\n"                        /* 3 */
      "\tst.global.u32 [%rd1], %r2;\n"                   /* 4 */
      "\tret;\n}\n";
  struct fx x = analyse(text);
  (void)state;
  assert_int_equal(x.k->warp_dependent_insn, 2);
  release(&x);
  x = analyse(two_d);
  assert_int_equal(x.k->warp_dependent_insn, -1);
  release(&x);
}

/* ---- bad input ------------------------------------------------------------------------ */

static void test_no_body(void **state)
{
  static const char *const text = HDR ".extern .func f(.param .b32 f_param_0);\n";
  struct ptx_module *m = NULL;
  struct cc_affine_kernel *k = (struct cc_affine_kernel *)1;
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(ptx_parse(text, strlen(text), "t.ptx", &m, &err), CC_OK);
  assert_int_equal(cc_affine_analyze(m, &m->funcs[0], &k, &err), CC_ERR_INPUT);
  assert_null(k);
  assert_non_null(strstr(err.msg, "no body"));
  ptx_module_free(m);
}

/* An address computed by a chain of 3000 dependent adds: deeper than the walk follows
 * (2000 steps), so opaque, without exhausting the stack (the ASan build too); 200 adds
 * are followed. */
static char *add_chain(unsigned n)
{
  size_t cap = 512 + 32 * (size_t)n;
  char *text = malloc(cap);
  size_t len;
  assert_non_null(text);
  len = (size_t)snprintf(text, cap, HDR ".visible .entry k(.param .u64 k_param_0)\n{\n"
                         "\t.reg .b64 %%rd<4>;\n\t.reg .f32 %%f<2>;\n"
                         "\tld.param.u64 %%rd1, [k_param_0];\n");
  for (unsigned i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len, "\tadd.s64 %%rd1, %%rd1, 4;\n");
  snprintf(text + len, cap - len, "\tld.global.f32 %%f1, [%%rd1];\n\tret;\n}\n");
  return text;
}

/* An address register written before n blocks that do nothing but branch to the next. */
static char *block_chain(unsigned n)
{
  size_t cap = 512 + 48 * (size_t)n;
  char *text = malloc(cap);
  size_t len;
  assert_non_null(text);
  len = (size_t)snprintf(text, cap, "%s", K_A "\tmov.u32 %r1, %tid.x;\n"
                         "\tsetp.eq.u32 %p1, %r1, 0;\n");
  for (unsigned i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len, "\t@%%p1 bra $L%u;\n$L%u:\n", i, i);
  snprintf(text + len, cap - len, "%s", LOAD_END("%r1"));
  return text;
}

static void test_deep_chain(void **state)
{
  char *text = add_chain(3000);
  struct fx x = analyse(text);
  char want[64];
  (void)state;
  assert_int_equal(acc(&x, 0)->status, CC_AFFINE_OPAQUE);
  assert_non_null(strstr(acc(&x, 0)->why, "deeper than the analysis follows"));
  release(&x);
  free(text);
  text = add_chain(200);
  x = analyse(text);
  snprintf(want, sizeof want, "param_0 + %u", 4 * 200);
  expect_form(acc(&x, 0), want);
  release(&x);
  free(text);
  /* a register copied halfway down a 3000-add chain: the first access (the end of the
   * chain) is cut by the limit, the second (the copy, 1500 adds deep) is not; what the
   * first walk left unfinished must not stick to it */
  text = add_chain(3000);
  {
    char *mid = strstr(text, "\tadd.s64"), *copy = malloc(strlen(text) + 128);
    assert_non_null(copy);
    for (int i = 0; i < 1500; i++)
      mid = strstr(mid + 1, "\tadd.s64");
    snprintf(copy, strlen(text) + 128, "%.*s\tmov.u64 %%rd2, %%rd1;\n%s", (int)(mid - text),
             text, mid);
    mid = strstr(copy, "\tret;");
    memmove(mid + 30, mid, strlen(mid) + 1);
    memcpy(mid, "\tld.global.f32 %f1, [%rd2];  \n", 30);
    free(text);
    text = copy;
  }
  x = analyse(text);
  assert_int_equal(x.k->naccesses, 2);
  assert_int_equal(acc(&x, 0)->status, CC_AFFINE_OPAQUE);
  expect_form(acc(&x, 1), "param_0 + 6000");
  release(&x);
  free(text);
  /* 1500 blocks of walk back to the write: followed; 2500: opaque */
  text = block_chain(1500);
  x = analyse(text);
  expect_form(acc(&x, 0), "param_0 + 4*tid.x");
  release(&x);
  free(text);
  text = block_chain(2500);
  x = analyse(text);
  assert_int_equal(acc(&x, 0)->status, CC_AFFINE_OPAQUE);
  release(&x);
  free(text);
}

/* Coefficients that overflow 64 bits make the access opaque, not wrong. */
static void test_overflow(void **state)
{
  static const char *const text =
      K_A "\tmov.u32 %r1, %tid.x;\n"
      "\tcvt.u64.u32 %rd2, %r1;\n"
      "\tmul.lo.s64 %rd3, %rd2, 4611686018427387904;\n"
      "\tmul.lo.s64 %rd4, %rd3, 4;\n"
      "\tadd.s64 %rd5, %rd1, %rd4;\n"
      "\tld.global.f32 %f1, [%rd5];\n"
      "\tret;\n}\n";
  struct fx x = analyse(text);
  (void)state;
  expect_status(acc(&x, 0), CC_AFFINE_OPAQUE, "overflows", line_of(text, "mul.lo.s64 %rd4"));
  release(&x);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_two_d),
      cmocka_unit_test(test_sub_neg_shl_cvt),
      cmocka_unit_test(test_mad_wide),
      cmocka_unit_test(test_opaque_invariant),
      cmocka_unit_test(test_strength_reduced_pointer),
      cmocka_unit_test(test_nested_counters),
      cmocka_unit_test(test_value_after_loop),
      cmocka_unit_test(test_geometric_update),
      cmocka_unit_test(test_indirect),
      cmocka_unit_test(test_nonlinear),
      cmocka_unit_test(test_control_join),
      cmocka_unit_test(test_uniform_join),
      cmocka_unit_test(test_predicated_write),
      cmocka_unit_test(test_irreducible),
      cmocka_unit_test(test_spaces_and_vectors),
      cmocka_unit_test(test_warp_dependent),
      cmocka_unit_test(test_no_body),
      cmocka_unit_test(test_deep_chain),
      cmocka_unit_test(test_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
