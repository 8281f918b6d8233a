/* Unit tests of the operand-shape checks of the parser (the shape column of
 * src/ptx/ptx_ops.def): for each checked family a wrong operand count and a wrong operand
 * kind, with the exact message and position, plus forms that must stay accepted.
 *
 * Every instruction below stands on line 11 of the text that wrap() builds (lines 1-10:
 * .version, .target, .address_size, .entry, '{', four .reg lines, one .shared line),
 * after one tab: an operand at byte offset k of the instruction string is at column k + 2.
 * Count errors point at the opcode (offset 0: column 2). The offsets are counted by hand
 * in the comments. Expected operand counts come from the syntax blocks of PTX ISA 9.0,
 * chapter 9 (e.g. 9.7.1.1 add: "add.type d, a, b;"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ptx/ptx_test_util.h"

#define HEAD                                                                           \
  ".version 9.0\n.target sm_90\n.address_size 64\n"                                    \
  ".visible .entry k(.param .u64 k_p)\n{\n"                                            \
  "\t.reg .pred %p<3>;\n\t.reg .b32 %r<9>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n" \
  "\t.shared .align 8 .b8 sbuf[64];\n"

/* The message of parsing insn on line 11 of a kernel ("" when it parses). */
static const char *wrap(const char *insn) {
  static char text[4096];
  snprintf(text, sizeof text, "%s\t%s\n\tret;\n}\n", HEAD, insn);
  return parse_err(text);
}

/* Asserts that insn fails with "t.ptx:11:" + rest. */
static void fails(const char *insn, const char *rest) {
  char want[512];
  snprintf(want, sizeof want, "t.ptx:11:%s", rest);
  const char *got = wrap(insn);
  if (strcmp(got, want) != 0) fprintf(stderr, "insn: %s\n got: %s\nwant: %s\n", insn, got, want);
  assert_string_equal(got, want);
}

static void passes(const char *insn) {
  const char *got = wrap(insn);
  if (got[0]) fprintf(stderr, "insn: %s\n got: %s\n", insn, got);
  assert_string_equal(got, "");
}

/* add/mad/fma/mov: "d, a, b", "d, a, b, c", "d, a" (ISA 9.7.1.1, 9.7.1.4, 9.7.3.6, 9.7.9.6) */
static void test_arith(void **state) {
  (void)state;
  fails("add.s32 %r1, %r2;", "2: 'add.s32' takes 3 operands (d, a, b), found 2");
  fails("add.s32 %r1, %r2, %r3, %r4;", "2: 'add.s32' takes 3 operands (d, a, b), found 4");
  /* "add.s32 " is 8 bytes: the immediate destination at offset 8, column 10 */
  fails("add.s32 5, %r1, %r2;",
        "10: operand 1 of 'add.s32' (d) must be a register, found an immediate");
  /* "add.s32 %r1, " is 13 bytes: '[' at offset 13, column 15 */
  fails("add.s32 %r1, [%rd1], 1;",
        "15: operand 2 of 'add.s32' (a) must be a register or value, found an address '[..]'");
  /* "add.s32 %r1|" is 12 bytes: %p1 at offset 12, column 14 */
  fails("add.s32 %r1|%p1, %r2, %r3;", "14: 'add.s32' takes no '|' operand here (d, a, b)");
  fails("mad.lo.s32 %r1, %r2, %r3;", "2: 'mad.lo.s32' takes 4 operands (d, a, b, c), found 3");
  /* "fma.rn.f32 " is 11 bytes: %tid.x at offset 11, column 13 */
  fails("fma.rn.f32 %tid.x, %f2, %f3, %f4;",
        "13: operand 1 of 'fma.rn.f32' (d) must be a register, found a special register");
  fails("mov.u32 %r1;", "2: 'mov.u32' takes 2 operands (d, a), found 1");
  /* "mov.b64 " is 8 bytes: the vector at offset 8, column 10 */
  fails("mov.b64 {%r1, 5}, %rd1;",
        "10: operand 1 of 'mov.b64' (d) must be a register, found a vector '{..}' with an "
        "element that is not a register");
  /* "mov.u32 %r1, " is 13 bytes: the label at offset 13, column 15 */
  fails("mov.u32 %r1, L1;\nL1:",
        "15: label 'L1' used as an operand value; only bra takes a label");
  passes("mov.b64 {%r1, _}, %rd1;");  /* unpack */
  passes("mov.b64 %rd1, {%r1, %r2};"); /* pack */
  passes("mov.u64 %rd1, sbuf;");       /* a symbol's address */
  passes("selp.b32 %r1, 1, 0, !%p1;");
}

/* ld/st: "d, [a]" / "[a], b", one more operand with .L2::cache_hint (ISA 9.7.9.8, 9.7.9.10) */
static void test_memory(void **state) {
  (void)state;
  fails("ld.global.f32 %f1;", "2: 'ld.global.f32' takes 2 operands (d, m), found 1");
  /* "ld.global.f32 %f1, " is 19 bytes: %rd1 at offset 19, column 21 */
  fails("ld.global.f32 %f1, %rd1;",
        "21: operand 2 of 'ld.global.f32' (m) must be an address '[..]', found a register");
  fails("ld.global.L2::cache_hint.f32 %f1, [%rd1];",
        "2: 'ld.global.L2::cache_hint.f32' takes 3 operands (d, m, a), found 2");
  passes("ld.global.L2::cache_hint.f32 %f1, [%rd1], %rd2;");
  passes("ld.global.v2.f32 {%f1, %f2}, [%rd1+8];");
  fails("st.global.f32 [%rd1];", "2: 'st.global.f32' takes 2 operands (m, b), found 1");
  /* "st.global.f32 " is 14 bytes: %rd1 at offset 14, column 16 */
  fails("st.global.f32 %rd1, %f1;",
        "16: operand 1 of 'st.global.f32' (m) must be an address '[..]', found a register");
  /* "st.global.f32 [%rd1], " is 22 bytes: the second '[' at offset 22, column 24 */
  fails("st.global.f32 [%rd1], [%rd2];",
        "24: operand 2 of 'st.global.f32' (b) must be a register or value, found an address "
        "'[..]'");
}

/* setp "p[|q], a, b" (with a boolean operation: "p[|q], a, b, c"), cvt "d, a" and the
 * packing "d, a, b" (ISA 9.7.7.4: "setp.CmpOp.BoolOp.type p[|q], a, b, {!}c"; 9.7.9.21) */
static void test_compare_convert(void **state) {
  (void)state;
  fails("setp.lt.s32 %p1, %r1;", "2: 'setp.lt.s32' takes 3 operands (p[|q], a, b), found 2");
  fails("setp.lt.s32 %p1, %r1, %r2, %p2;",
        "2: 'setp.lt.s32' takes 3 operands (p[|q], a, b), found 4");
  fails("setp.lt.and.s32 %p1, %r1, %r2;",
        "2: 'setp.lt.and.s32' takes 4 operands (p[|q], a, b, c), found 3");
  /* "setp.lt.s32 " is 12 bytes: column 14 */
  fails("setp.lt.s32 1, %r1, %r2;",
        "14: operand 1 of 'setp.lt.s32' (p) must be a register, found an immediate");
  /* "setp.lt.s32 %p1|" is 16 bytes: the 5 at offset 16, column 18 */
  fails("setp.lt.s32 %p1|5, %r1, %r2;",
        "18: operand 1 of 'setp.lt.s32' (q) must be a register, found an immediate");
  passes("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p0;");
  passes("setp.ne.s32 %p1, %r1, 0;");
  fails("cvt.rn.f32.s32 %f1, %r1, %r2;", "2: 'cvt.rn.f32.s32' takes 2 operands (d, a), found 3");
  fails("cvt.rn.f16x2.f32 %r1, %f1;",
        "2: 'cvt.rn.f16x2.f32' takes 3 or 4 operands (d, a, b[, c]), found 2");
  passes("cvt.rn.f16x2.f32 %r1, %f1, %f2;");
}

/* atom "d, [a], b" (.cas: "d, [a], b, c"), red "[a], b" (ISA 9.7.13.5, 9.7.13.6) */
static void test_atomics(void **state) {
  (void)state;
  fails("atom.global.cas.b32 %r1, [%rd1], %r2;",
        "2: 'atom.global.cas.b32' takes 4 operands (d, m, b, c), found 3");
  fails("atom.global.add.u32 %r1, [%rd1], %r2, %r3;",
        "2: 'atom.global.add.u32' takes 3 operands (d, m, b), found 4");
  /* "atom.global.add.u32 %r1, " is 25 bytes: %rd1 at offset 25, column 27 */
  fails("atom.global.add.u32 %r1, %rd1, 1;",
        "27: operand 2 of 'atom.global.add.u32' (m) must be an address '[..]', found a register");
  passes("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;");
  passes("atom.global.L2::cache_hint.add.u32 %r1, [%rd1], 1, %rd2;");
  /* a form chosen by two modifiers: cas plus a cache policy, 5 operands */
  passes("atom.global.cas.L2::cache_hint.b32 %r1, [%rd1], %r2, %r3, %rd2;");
  fails("atom.global.cas.L2::cache_hint.b32 %r1, [%rd1], %r2, %r3;",
        "2: 'atom.global.cas.L2::cache_hint.b32' takes 5 operands (d, m, b, c, e), found 4");
  fails("red.global.add.u32 [%rd1];", "2: 'red.global.add.u32' takes 2 operands (m, b), found 1");
  /* "red.global.add.u32 " is 19 bytes: column 21 */
  fails("red.global.add.u32 %rd1, 1;",
        "21: operand 1 of 'red.global.add.u32' (m) must be an address '[..]', found a register");
}

/* shfl.sync "d[|p], a, b, c, membermask", vote.sync "d, {!}a, membermask" (ISA 9.7.9.6ff) */
static void test_warp(void **state) {
  (void)state;
  fails("shfl.sync.idx.b32 %r1, %r2, 0, 31;",
        "2: 'shfl.sync.idx.b32' takes 5 operands (d[|p], a, b, c, e), found 4");
  /* "shfl.sync.idx.b32 %r1|%p1, " is 27 bytes: '[' at offset 27, column 29 */
  fails("shfl.sync.idx.b32 %r1|%p1, [%rd1], 0, 31, -1;",
        "29: operand 2 of 'shfl.sync.idx.b32' (a) must be a register or value, found an "
        "address '[..]'");
  passes("shfl.sync.down.b32 %r1|%p1, %r2, 16, 31, -1;");
  fails("vote.sync.ballot.b32 %r1, %p1;",
        "2: 'vote.sync.ballot.b32' takes 3 operands (d, a, b), found 2");
  passes("vote.sync.any.pred %p1, !%p2, -1;");
}

/* bra "l", ret "", bar/barrier "a[, b]" (.arrive "a, b"; .red "d, a[, b], {!}c"),
 * cp.async (commit/wait forms), mbarrier (ISA 9.7.12, 9.7.13, 9.7.9.25) */
static void test_control_sync(void **state) {
  (void)state;
  fails("bra;", "2: 'bra' takes 1 operand (l), found 0");
  /* "bra " is 4 bytes: column 6 */
  fails("bra %r1;", "6: operand 1 of 'bra' (l) must be a label, found a register");
  fails("ret %r1;", "2: 'ret' takes no operands, found 1");
  fails("bar.sync;", "2: 'bar.sync' takes 1 or 2 operands (a[, b]), found 0");
  fails("bar.arrive 1;", "2: 'bar.arrive' takes 2 operands (a, b), found 1");
  fails("bar.red.popc.u32 %r1, 0;",
        "2: 'bar.red.popc.u32' takes 3 or 4 operands (d, a[, b], c), found 2");
  /* "bar.sync " is 9 bytes: column 11 */
  fails("bar.sync [%rd1];",
        "11: operand 1 of 'bar.sync' (a) must be a register or value, found an address '[..]'");
  passes("bar.red.and.pred %p1, 0, !%p2;");
  passes("bar.warp.sync -1;");
  fails("cp.async.wait_all 0;", "2: 'cp.async.wait_all' takes no operands, found 1");
  /* "cp.async.ca.shared.global [sbuf], " is 34 bytes: %rd1 at offset 34, column 36 */
  fails("cp.async.ca.shared.global [sbuf], %rd1, 4;",
        "36: operand 2 of 'cp.async.ca.shared.global' (m) must be an address '[..]', found a "
        "register");
  passes("cp.async.wait_group 0;");
  passes("cp.async.ca.shared.global [sbuf], [%rd1], 4;");
  fails("mbarrier.init.shared.b64 [sbuf];",
        "2: 'mbarrier.init.shared.b64' takes 2 operands (m, a), found 1");
  fails("mbarrier.try_wait.shared.b64 %p1, [sbuf];",
        "2: 'mbarrier.try_wait.shared.b64' takes 3 or 4 operands (p, m, a[, b]), found 2");
  passes("mbarrier.arrive.shared.b64 %rd1, [sbuf];");
  /* fence: no operands, except the tensormap acquire form "[a], size" */
  fails("fence.sc.gpu %r1;", "2: 'fence.sc.gpu' takes no operands, found 1");
  passes("fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;");
}

/* tex "d[|p], [a, c][, e[, f]]" (ISA 9.7.10.3) */
static void test_texture(void **state) {
  (void)state;
  fails("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4};",
        "2: 'tex.2d.v4.f32.f32' takes 2 to 4 operands (d[|p], g[, e[, f]]), found 1");
  /* "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, " is 40 bytes: %rd1 at offset 40, column 42 */
  fails("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, %rd1;",
        "42: operand 2 of 'tex.2d.v4.f32.f32' (g) must be a bracketed operand '[..]', found a "
        "register");
  /* the group counts once: 2 operands */
  passes("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
  /* a group where a value is needed: "add.f32 %f1, " is 13 bytes, column 15 */
  fails("add.f32 %f1, [%rd1, %f2], %f3;",
        "15: operand 2 of 'add.f32' (a) must be a register or value, found a bracketed group "
        "'[..]'");
}

/* Every row's shape is well formed: balanced brackets, known tokens, and the last form
 * has no modifier condition (it is the default). */
static void test_table_shapes(void **state) {
  (void)state;
  for (int i = 0; i < PTX_OP_COUNT; i++) {
    const char *s = ptx_op_info((enum ptx_opcode)i)->shape;
    const char *last = strrchr(s, ';');
    last = last ? last + 1 : s;
    while (*last == ' ') last++;
    if (i != PTX_OP_CALL) assert_true(*last != '.');
    int depth = 0;
    for (const char *c = s; *c; c++) {
      if (*c == ';') assert_int_equal(depth, 0);
      depth += *c == '[' ? 1 : *c == ']' ? -1 : 0;
      assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
  }
  assert_string_equal(ptx_op_info(PTX_OP_ADD)->shape, "d, a, b");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arith),          cmocka_unit_test(test_memory),
      cmocka_unit_test(test_compare_convert), cmocka_unit_test(test_atomics),
      cmocka_unit_test(test_warp),           cmocka_unit_test(test_control_sync),
      cmocka_unit_test(test_texture),        cmocka_unit_test(test_table_shapes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
