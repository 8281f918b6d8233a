/* Unit tests of the parser's modifier and operand-type checks (src/ptx/ptx_check.c; issue
 * 13: "st.bogus.f32" and "setp.ge.s32Y" were accepted, the latter reaching a 64-bit shift
 * in the emulator). Each rejected instruction has its exact message and position; each
 * accepted one must stay accepted.
 *
 * Where the expectations come from: the rules of PTX ISA 9.0 (each instruction's syntax
 * block; section 9.4, Tables 26-28 for operand types), and ptxas itself: when ptxas is
 * installed, every instruction below is also assembled by `ptxas -arch=sm_90` and the test
 * requires that ptxas rejects each rejected one and accepts the accepted ones (all in one
 * kernel), so the cases cannot drift from what the real assembler does.
 *
 * Every instruction stands on line 17 of the text that wrap() builds, after one tab: a
 * word at byte offset k of the instruction string is at column k + 2. Offsets are counted
 * by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ptx/ptx_test_util.h"

#define HEAD                                                                              \
  ".version 9.0\n.target sm_90\n.address_size 64\n"                                       \
  ".visible .entry k(.param .u64 k_p)\n{\n"                                               \
  "\t.reg .pred %p<3>;\n\t.reg .b32 %r<9>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<9>;\n"    \
  "\t.reg .b16 %h<9>;\n\t.reg .f64 %fd<9>;\n\t.reg .u32 %u<9>;\n\t.reg .s32 %s<9>;\n"     \
  "\t.reg .f16x2 %hh<9>;\n\t.reg .u64 %ud<9>;\n\t.reg .f16 %hf<9>;\n"

/* The kernel holding insn on line 17. */
static const char *kernel(const char *insn) {
  static char text[8192];
  snprintf(text, sizeof text, "%s\t%s\n\tret;\n}\n", HEAD, insn);
  return text;
}

/* ptxas's verdict on text: 1 accepted, 0 rejected, -1 no ptxas. */
static int ptxas_accepts(const char *text) {
  const char *ptxas = find_tool("ptxas");
  if (!ptxas) return -1;
  char *dir = scratch_dir();
  char path[4200], cmd[9000];
  snprintf(path, sizeof path, "%s/t.ptx", dir);
  assert_int_equal(write_file(path, text), 0);
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s' -o '%s/t.o' >/dev/null 2>&1", ptxas, path,
           dir);
  int rc = system(cmd);
  scratch_remove(dir);
  free(dir);
  return rc == 0;
}

/* Asserts that insn fails with "t.ptx:17:" + rest, and that ptxas rejects it too. */
static void fails(const char *insn, const char *rest) {
  char want[1024];
  snprintf(want, sizeof want, "t.ptx:17:%s", rest);
  const char *got = parse_err(kernel(insn));
  if (strcmp(got, want) != 0) fprintf(stderr, "insn: %s\n got: %s\nwant: %s\n", insn, got, want);
  assert_string_equal(got, want);
  int px = ptxas_accepts(kernel(insn));
  if (px == 1) fprintf(stderr, "ptxas accepts: %s\n", insn);
  assert_true(px != 1);
}

/* Asserts that every instruction of the NULL-terminated list parses, and that ptxas
 * accepts them all (one kernel). */
static void passes(const char *const *insns) {
  static char text[16384];
  size_t n = (size_t)snprintf(text, sizeof text, "%s", HEAD);
  for (int i = 0; insns[i]; i++) {
    const char *got = parse_err(kernel(insns[i]));
    if (got[0]) fprintf(stderr, "insn: %s\n got: %s\n", insns[i], got);
    assert_string_equal(got, "");
    n += (size_t)snprintf(text + n, sizeof text - n, "\t%s\n", insns[i]);
  }
  snprintf(text + n, sizeof text - n, "\tret;\n}\n");
  int px = ptxas_accepts(text);
  if (px == 0) fprintf(stderr, "ptxas rejects one of these (run it on them to see which)\n");
  assert_true(px != 0);
}

/* Words that are no modifier of the instruction (issue 13's two cases first), missing and
 * surplus types (PTX ISA 9.0, chapter 9: each instruction's syntax block). */
static void test_modifiers(void **state) {
  (void)state;
  /* ".bogus" at offset 2 */
  fails("st.bogus.f32 [%rd1], %f1;", "4: unknown modifier '.bogus' in 'st.bogus.f32'");
  /* ".s32Y" at offset 7 */
  fails("setp.ge.s32Y %p1, %r1, 32;", "9: unknown modifier '.s32Y' in 'setp.ge.s32Y'");
  /* a real modifier of other instructions: ".global" at offset 3 */
  fails("add.global.s32 %r1, %r1, %r2;",
        "5: modifier '.global' does not apply to 'add' ('add.global.s32')");
  fails("ld.rn.f32 %f1, [%rd1];", "4: modifier '.rn' does not apply to 'ld' ('ld.rn.f32')");
  /* a type the instruction does not take: ".b32" at offset 3 */
  fails("add.b32 %r1, %r1, %r1;",
        "5: type '.b32' is not valid for 'add' (it takes .s16 .s32 .s64 .u16 .u32 .u64 .f16 "
        ".f16x2 .bf16 .bf16x2 .f32 .f64 .u16x2 .s16x2 .f32x2)");
  fails("ld.global.f16 %hf1, [%rd1];",
        "11: type '.f16' is not valid for 'ld' (it takes .b8 .b16 .b32 .b64 .b128 .u8 .u16 "
        ".u32 .u64 .s8 .s16 .s32 .s64 .f32 .f64)");
  /* missing pieces: at the opcode */
  fails("setp.lt %p1, %r1, %r2;",
        "2: 'setp.lt' needs a type (one of .b16 .b32 .b64 .s16 .s32 .s64 .u16 .u32 .u64 .f16 "
        ".f16x2 .bf16 .bf16x2 .f32 .f64)");
  fails("setp.s32 %p1, %r1, %r2;",
        "2: 'setp.s32' needs a comparison (one of .eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ "
        ".neu .ltu .leu .gtu .geu .num .nan)");
  fails("mul.s32 %r1, %r1, %r2;", "2: 'mul.s32' needs .lo, .hi or .wide");
  fails("cvta.to.u64 %rd1, %rd2;",
        "2: 'cvta.to.u64' needs a state space (one of .global .shared .shared::cta "
        ".shared::cluster .local .const .param .param::entry .param::func)");
  /* surplus, at the word in excess: the second type of add (offset 7), a repeated word
   * (offset 7), a second space (offset 9), a second rounding mode (offset 10), comparison
   * (offset 7), mode (offset 8) */
  fails("add.s32.s32 %r1, %r1, %r2;", "9: 'add' takes 1 type, found more in 'add.s32.s32'");
  fails("sub.ftz.ftz.f32 %f1, %f1, %f2;",
        "9: modifier '.ftz' given twice in 'sub.ftz.ftz.f32'");
  fails("ld.global.param.f32 %f1, [%rd1];", "11: 'ld.global.param.f32' names two state spaces");
  fails("cvt.rn.f32.rzi.s32 %f1, %r1;", "12: 'cvt.rn.f32.rzi.s32' names two rounding modes");
  fails("setp.lt.ne.s32 %p1, %r1, %r2;", "9: 'setp.lt.ne.s32' names two comparisons");
  fails("mul.wide.lo.s32 %rd1, %r1, %r2;", "10: 'mul.wide.lo.s32' names two modes");
}

/* Operand types against the instruction type: PTX ISA 9.0, 9.4 Table 26 (same size;
 * bit-size agrees with anything of its size, integers with integers, floats only with
 * themselves), Tables 27-28 (ld/st/cvt data may be wider), fixed-type operands (shift
 * amounts .u32, predicates, mul.wide's double width). Operand columns: "add.s32 %r1, "
 * is 13 bytes (operand 2 at column 15). */
static void test_operand_types(void **state) {
  (void)state;
  fails("add.s32 %r1, %rd1, %r2;",
        "15: operand 2 of 'add.s32' (a) must be a 32-bit integer or bit-size register, found "
        "'%rd1' (.b64)");
  fails("add.u32 %r1, %f1, %r1;",
        "15: operand 2 of 'add.u32' (a) must be a 32-bit integer or bit-size register, found "
        "'%f1' (.f32)");
  /* "add.f16x2 %hh1, " is 16 bytes */
  fails("add.f16x2 %hh1, %f1, %hh2;",
        "18: operand 2 of 'add.f16x2' (a) must be a .f16x2 or .b32 register, found '%f1' "
        "(.f32)");
  fails("mov.u32 %r1, %rd1;",
        "15: operand 2 of 'mov.u32' (a) must be a 32-bit integer or bit-size register, found "
        "'%rd1' (.b64)");
  /* "setp.ne.s32 %p1, %r1, " is 22 bytes */
  fails("setp.ne.s32 %p1, %r1, %p1;",
        "24: operand 3 of 'setp.ne.s32' (b) must be a 32-bit integer or bit-size register, "
        "found '%p1' (.pred)");
  /* "selp.b32 %r1, %r2, %r3, " is 24 bytes */
  fails("selp.b32 %r1, %r2, %r3, %r4;",
        "26: operand 4 of 'selp.b32' (c) must be a .pred register, found '%r4' (.b32)");
  /* "shl.b32 %r1, %r1, " is 18 bytes */
  fails("shl.b32 %r1, %r1, %rd1;",
        "20: operand 3 of 'shl.b32' (b) must be a 32-bit integer or bit-size register, found "
        "'%rd1' (.b64)");
  /* "mul.wide.s32 " is 13 bytes */
  fails("mul.wide.s32 %r1, %r2, %r3;",
        "15: operand 1 of 'mul.wide.s32' (d) must be a 64-bit integer or bit-size register, "
        "found '%r1' (.b32)");
  fails("popc.b64 %rd1, %rd2;",
        "11: operand 1 of 'popc.b64' (d) must be a 32-bit integer or bit-size register, found "
        "'%rd1' (.b64)");
  /* relaxed data operands: wider is fine, narrower is not; "ld.param.u64 " is 13 bytes */
  fails("ld.param.u64 %r1, [k_p];",
        "15: operand 1 of 'ld.param.u64' (d) must be an integer or bit-size register of at "
        "least 64 bits, found '%r1' (.b32)");
  /* "st.global.u32 [%rd1], " is 22 bytes */
  fails("st.global.u32 [%rd1], %h1;",
        "24: operand 2 of 'st.global.u32' (b) must be an integer or bit-size register of at "
        "least 32 bits, found '%h1' (.b16)");
  fails("st.global.f32 [%rd1], %u1;",
        "24: operand 2 of 'st.global.f32' (b) must be a .f32 register or a bit-size register "
        "of at least 32 bits, found '%u1' (.u32)");
  /* "cvt.f32.f16 %f1, " is 17 bytes */
  fails("cvt.f32.f16 %f1, %f2;",
        "19: operand 2 of 'cvt.f32.f16' (a) must be a .f16 register or a bit-size register of "
        "at least 16 bits, found '%f2' (.f32)");
  /* vectors: "ld.global.v2.u32 " is 17 bytes */
  fails("ld.global.v2.u32 {%r1, %rd1}, [%rd2];",
        "19: operand 1 of 'ld.global.v2.u32' (d) has element 2 '%rd1' (.b64); the elements of "
        "a vector must all be 32-bit registers");
  /* "mov.b64 %rd1, " is 14 bytes */
  fails("mov.b64 %rd1, {%r1, %h2};",
        "16: operand 2 of 'mov.b64' (a) has element 2 '%h2' (.b16); a vector of 2 elements in "
        "a .b64 move takes 32-bit registers");
  fails("mov.u64 %rd1, {%r1, %r2};",
        "16: operand 2 of 'mov.u64' (a) must be a register (vectors pack only in .b16, .b32, "
        ".b64 or .b128 moves), found a vector '{..}'");
  /* addresses: "ld.global.u32 %r1, " is 19 bytes */
  fails("ld.global.u32 %r1, [%f1];",
        "21: operand 2 of 'ld.global.u32' (m) must be an address in an integer or bit-size "
        "register, found '%f1' (.f32)");
  fails("ld.global.u32 %r1, [%r2];",
        "21: operand 2 of 'ld.global.u32' (m) must be a 64-bit address (.address_size 64), "
        "found '%r2' (.b32)");
  /* constants: "add.f32 %f1, %f1, " is 18 bytes */
  fails("add.f32 %f1, %f1, 1;",
        "20: operand 3 of 'add.f32' (b) must be a .f32 value, found an integer constant "
        "(write floats as 0f... or 0d...)");
  fails("add.s32 %r1, %r1, 0f3F800000;",
        "20: operand 3 of 'add.s32' (b) must be a .s32 value, found a floating-point constant");
  fails("mov.b64 %rd1, 0f3F800000;",
        "16: operand 2 of 'mov.b64' (a) must be a .b64 value, found a 32-bit floating-point "
        "constant");
  /* special registers: only mov and cvt read them, at their width */
  fails("add.s32 %r1, %tid.x, %r2;",
        "15: operand 2 of 'add.s32' (a) must be a register or a constant, found the special "
        "register '%tid.x' (only mov and cvt read special registers: copy it with mov.u32 "
        "first)");
  fails("mov.u64 %rd1, %tid.x;",
        "16: operand 2 of 'mov.u64' (a) must be .u64, found the 32-bit special register "
        "'%tid.x'");
  /* a guard: "@" at column 2, the register at 3 */
  fails("@%r1 bra $L;", "3: the guard '%r1' must be a .pred register, found .b32");
}

/* What ptxas accepts stays accepted: each rule's permitted cases. */
static void test_accepted(void **state) {
  (void)state;
  static const char *const ok[] = {
      "add.f32 %f1, %r1, %f1;",            /* bit-size agrees with float of its size */
      "add.u32 %u1, %s1, %r1;",            /* signed and unsigned of one size */
      "add.f16 %hf1, %h1, %hf2;",          /* b16 with f16 */
      "add.f16x2 %hh1, %r1, %hh2;",        /* b32 with f16x2 */
      "mov.b32 %f1, %r1;",
      "mov.b32 %hh1, %f1;",
      "ld.global.u8 %rd1, [%rd2];",        /* relaxed: a wider destination */
      "ld.global.f32 %rd1, [%rd2];",       /* ... bit-size, for a float */
      "ld.global.b16 %hf1, [%rd2];",
      "st.global.u8 [%rd1], %r1;",         /* relaxed: a wider source */
      "st.global.f32 [%rd1], %r1;",
      "selp.f32 %f1, %r1, %f1, %p1;",
      "selp.u32 %r1, 1, 0, !%p1;",
      "cvt.f32.f16 %f1, %h1;",
      "cvt.f32.f16 %f1, %r1;",             /* relaxed source */
      "cvt.u16.u32 %h1, %rd1;",
      "cvt.u64.u16 %rd1, %tid.x;",         /* cvt reads special registers */
      "mul.wide.u16 %r1, %h1, %h2;",
      "mad.wide.s32 %rd1, %r1, %r2, %rd2;",
      "popc.b64 %r1, %rd1;",
      "shl.b32 %r1, %r1, %s1;",            /* a .s32 shift amount agrees with .u32 */
      "shl.b64 %rd1, %rd1, %u1;",
      "shfl.sync.idx.b32 %f1, %f2, %r1, 31, -1;",
      "mov.b64 %rd1, {%r1, %r2};",         /* vectors pack into bit-size moves */
      "mov.b64 %rd1, {%r1, %f1};",
      "mov.b32 %r1, {%h1, %h2};",
      "mov.b64 {%r1, %r2}, %rd1;",
      "ld.global.v2.f32 {%f1, %f2}, [%rd1];",
      "ld.global.v2.u32 {%r1, %u1}, [%rd1];",
      "st.global.v2.u32 [%rd1], {%r1, %p1};", /* ptxas takes a predicate element */
      "mov.u16 %h1, %tid.x;",              /* %tid components are .u16 in early PTX */
      "mov.u64 %rd1, %clock64;",
      "mov.u32 %r1, %gridid;",
      "mov.u64 %rd1, %gridid;",
      "mov.b32 %r1, %lanemask_lt;",
      "mov.u64 %rd1, k_p;",                /* a symbol's address */
      "mov.b32 %r1, 0f3F800000;",          /* float bits in a bit-size move of their size */
      "mov.b64 %rd1, 0d3FF0000000000000;",
      "mov.f64 %fd1, 0f3F800000;",         /* a float constant converts between floats */
      "mov.f32 %f1, 1.0;",
      "add.u32 %r1, %r1, -1;",
      "ld.shared.f32 %f1, [%r1];",         /* shared offsets may be 32-bit */
      "atom.global.exch.b32 %f1, [%rd1], %r1;",
      "vote.sync.ballot.b32 %r1, %p1, -1;",
      "setp.eq.b32 %p1, %f1, %r1;",
      "addc.u16 %h1, %h1, %h2;",           /* not in the ISA's list, but ptxas takes it */
      "cvta.to.global.u64 %rd1, %ud1;",
      "ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];",
      "atom.relaxed.gpu.global.add.u64 %rd1, [%rd2], %ud1;",
      "fence.proxy.async.shared::cta;",
      NULL};
  passes(ok);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_modifiers),
      cmocka_unit_test(test_operand_types),
      cmocka_unit_test(test_accepted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
