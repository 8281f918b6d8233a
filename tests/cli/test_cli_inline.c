/* cc_cli_resolve_inlined: the inlined_at chain of the .loc line table, on a hand-written
 * PTX function (PTX ISA, ".loc": inlined_at names a location of an earlier .loc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli_impl.h"

/* Instruction 0: ld.param at k.cu:10 (the kernel's file: its .loc has no inlined_at).
 * Instruction 1: a.hpp:50 inlined at k.cu:20, then b.hpp:70 inlined at a.hpp:50: the
 *   chain b.hpp:70 -> a.hpp:50 -> k.cu:20; the emulator gives one level (a.hpp:50), the
 *   resolution the innermost call site in k.cu: k.cu:20.
 * Instruction 2: b.hpp:80 inlined at a.hpp:60:4, a location no earlier .loc names: the
 *   outermost known, a.hpp:60, stays.
 * Instruction 3: a.hpp:90 inlined at k.cu:40 directly: k.cu:40 (one level was enough). */
static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n"
    "\t.reg .b64 %rd<3>;\n\t.reg .f32 %f<3>;\n"
    "\t.loc 1 10 1\n"
    "\tld.param.u64 %rd1, [p];\n"
    "\t.loc 2 50 3, function_name $L__info_string0, inlined_at 1 20 5\n"
    "\t.loc 3 70 7, function_name $L__info_string1, inlined_at 2 50 3\n"
    "\tld.global.f32 %f1, [%rd1];\n"
    "\t.loc 3 80 2, function_name $L__info_string1, inlined_at 2 60 4\n"
    "\tst.global.f32 [%rd1], %f1;\n"
    "\t.loc 2 90 1, function_name $L__info_string0, inlined_at 1 40 2\n"
    "\tst.global.f32 [%rd1+4], %f1;\n"
    "\t.loc 1 30 2\n"
    "\tret;\n}\n"
    "\t.file 1 \"/src/k.cu\"\n\t.file 2 \"/inc/a.hpp\"\n\t.file 3 \"/inc/b.hpp\"\n";

static void test_chain(void **state)
{
  struct ptx_module *m = NULL;
  struct cc_err err = { 0 };
  (void)state;
  if (ptx_parse(ptx, strlen(ptx), "inline.ptx", &m, &err) != CC_OK)
    fail_msg("parse: %s", err.msg);
  const struct ptx_function *f = &m->funcs[0];
  /* the table as the emulator fills it: the .loc and its one inlined_at level */
  struct cc_insn_info in[] = {
    { .id = 1, .file = "/inc/b.hpp", .line = 70, .inlined_file = "/inc/a.hpp", .inlined_line = 50 },
    { .id = 2, .file = "/inc/b.hpp", .line = 80, .inlined_file = "/inc/a.hpp", .inlined_line = 60 },
    { .id = 3, .file = "/inc/a.hpp", .line = 90, .inlined_file = "/src/k.cu", .inlined_line = 40 },
    /* not this function's .loc (line differs: a called .func's instruction 1): untouched */
    { .id = 1, .file = "/x/f.cu", .line = 5, .inlined_file = "/inc/a.hpp", .inlined_line = 50 },
  };
  cc_cli_resolve_inlined(m, f, in, 4);
  assert_string_equal(in[0].inlined_file, "/src/k.cu");
  assert_int_equal(in[0].inlined_line, 20);
  assert_string_equal(in[0].file, "/inc/b.hpp"); /* the .loc itself is kept */
  assert_int_equal(in[0].line, 70);
  assert_string_equal(in[1].inlined_file, "/inc/a.hpp");
  assert_int_equal(in[1].inlined_line, 60);
  assert_string_equal(in[2].inlined_file, "/src/k.cu");
  assert_int_equal(in[2].inlined_line, 40);
  assert_string_equal(in[3].inlined_file, "/inc/a.hpp");
  assert_int_equal(in[3].inlined_line, 50);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_chain) };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
