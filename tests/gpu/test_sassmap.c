/* Tests of the nvdisasm -g parser (src/gpu/sassmap.c): inline snippets written in
 * nvdisasm 13's format, and tests/gpu/data/gpuapps.nvdisasm, the real output of
 * `nvdisasm -g -c` on tests/gpu/apps/gpuapps.cu built with -O3 -lineinfo -arch=sm_90
 * (captured on the H200 by scripts/gpu-check.sh, 2026-11-22). Expected values are read
 * off those texts by hand (line numbers quoted beside each check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/gpu.h"
#include "util/fileio.h"

static const char *const SNIPPET =
    "\t.target\tsm_90\n"
    "//--------------------- .text._Z1fPf --------------------------\n"
    "\t.section\t.text._Z1fPf,\"ax\",@progbits\n"
    "_Z1fPf:\n"
    "\t//## File \"/src/a.cu\", line 7\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0010*/                   LDG.E R5, desc[UR4][R2.64] ;  /* 0x0000000402057981 */\n"
    "                                                                  /* 0x000ea2000c1e1900 */\n"
    "\t//## File \"/src/b.cuh\", line 12 inlined at \"/src/a.cu\", line 9\n"
    "        /*0020*/               @P0 STG.E desc[UR4][R2.64], R5 ;\n"
    "\t.section\t.text._Z1gv,\"ax\",@progbits\n"
    "        /*0000*/                   EXIT ;\n"
    "        /*0010*/                   BRA 0x10;\n";

static void parses_snippet(void **state)
{
  struct cc_gpu_sassmap m = {0};
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_sassmap_parse(&m, SNIPPET, "snippet", &err), CC_OK);
  assert_int_equal(m.n, 2);
  assert_string_equal(m.funcs[0].name, "_Z1fPf");
  assert_int_equal(m.funcs[0].n, 3); /* the encoding-only line is no instruction */
  assert_int_equal(m.has_lines, 1);

  const struct cc_gpu_sass_insn *in = cc_gpu_sassmap_find(&m, "_Z1fPf", 0x10);
  assert_non_null(in);
  assert_string_equal(in->text, "LDG.E R5, desc[UR4][R2.64]"); /* ';' and comment gone */
  assert_string_equal(in->file, "/src/a.cu");
  assert_int_equal(in->line, 7);

  in = cc_gpu_sassmap_find(&m, "_Z1fPf", 0x20);
  assert_non_null(in);
  assert_string_equal(in->text, "@P0 STG.E desc[UR4][R2.64], R5");
  assert_string_equal(in->file, "/src/b.cuh"); /* the innermost location of an inline */
  assert_int_equal(in->line, 12);
  assert_string_equal(in->inl_file, "/src/a.cu"); /* its call site (-gi) */
  assert_int_equal(in->inl_line, 9);
  in = cc_gpu_sassmap_find(&m, "_Z1fPf", 0x10); /* not inlined: no call site */
  assert_null(in->inl_file);
  assert_int_equal(in->inl_line, 0);

  /* a new section forgets the previous file/line: _Z1gv has no //## line */
  in = cc_gpu_sassmap_find(&m, "_Z1gv", 0x0);
  assert_non_null(in);
  assert_string_equal(in->text, "EXIT");
  assert_null(in->file);
  assert_int_equal(in->line, 0);
  assert_string_equal(cc_gpu_sassmap_find(&m, "_Z1gv", 0x10)->text, "BRA 0x10");

  assert_null(cc_gpu_sassmap_find(&m, "_Z1fPf", 0x30));  /* past the end */
  assert_null(cc_gpu_sassmap_find(&m, "_Z1fPf", 0x08));  /* between instructions */
  assert_null(cc_gpu_sassmap_find(&m, "_Z1hv", 0x0));    /* unknown function */
  cc_gpu_sassmap_release(&m);
  assert_int_equal(m.n, 0);
}

/* -gi chains: "inlined at" repeated outwards (innermost first): the last call site is
 * kept; a tail that does not parse leaves no call site; a new //## line without a tail
 * forgets the previous one. */
static void inline_chains(void **state)
{
  struct cc_gpu_sassmap m = {0};
  struct cc_err err = {0};
  const char *text =
      "\t.section\t.text.k,\"ax\",@progbits\n"
      "\t//## File \"/i/c.h\", line 3 inlined at \"/i/b.h\", line 20 inlined at "
      "\"/src/k.cu\", line 41\n"
      "        /*0000*/  LDG.E R1, desc[UR4][R2.64] ;\n"
      "\t//## File \"/i/c.h\", line 4 inlined at \"/src/k.cu\n"
      "        /*0010*/  STG.E desc[UR4][R2.64], R1 ;\n"
      "\t//## File \"/src/k.cu\", line 42\n"
      "        /*0020*/  EXIT ;\n";
  (void)state;
  assert_int_equal(cc_gpu_sassmap_parse(&m, text, "chain", &err), CC_OK);
  const struct cc_gpu_sass_insn *in = cc_gpu_sassmap_find(&m, "k", 0x0);
  assert_string_equal(in->file, "/i/c.h");
  assert_int_equal(in->line, 3);
  assert_string_equal(in->inl_file, "/src/k.cu");
  assert_int_equal(in->inl_line, 41);
  in = cc_gpu_sassmap_find(&m, "k", 0x10);
  assert_int_equal(in->line, 4);
  assert_null(in->inl_file);
  in = cc_gpu_sassmap_find(&m, "k", 0x20);
  assert_int_equal(in->line, 42);
  assert_null(in->inl_file);
  cc_gpu_sassmap_release(&m);
}

/* tests/gpu/data/histogram.nvdisasm-gi: real `nvdisasm -gi -c` output of
 * examples/histogram/histogram.cu (ptxas -lineinfo -arch=sm_90, on the H200, 2026-11-22
 * 01:31). Each inlined atomicAdd has two //## lines, the header's with its call site, then
 * the call site's own (file lines 52-53, 64-65, 116-117): the instruction keeps the
 * header's line and gets the call site. */
static void real_nvdisasm_gi_output(void **state)
{
  struct cc_gpu_sassmap m = {0};
  struct cc_err err = {0};
  char *text = NULL;
  const char *hdr = "/usr/local/cuda/bin/../targets/x86_64-linux/include/"
                    "device_atomic_functions.hpp";
  const char *cu = "/work/main/examples/histogram/histogram.cu";
  (void)state;
  assert_int_equal(cc_file_read(CC_SOURCE_DIR "/tests/gpu/data/histogram.nvdisasm-gi", &text,
                                NULL, &err), CC_OK);
  assert_int_equal(cc_gpu_sassmap_parse(&m, text, "histogram.nvdisasm-gi", &err), CC_OK);
  /* file line 54: ATOMS after lines 52-53 (header 112 inlined at line 27; line 27) */
  const struct cc_gpu_sass_insn *in = cc_gpu_sassmap_find(&m, "_Z16histogram_sharedPjPKhi",
                                                          0x150);
  assert_string_equal(in->text, "ATOMS.POPC.INC.32 RZ, [R0+URZ]");
  assert_string_equal(in->file, hdr);
  assert_int_equal(in->line, 112);
  assert_string_equal(in->inl_file, cu);
  assert_int_equal(in->inl_line, 27);
  /* file line 62: LDS after line 60 (line 29 alone): not inlined */
  in = cc_gpu_sassmap_find(&m, "_Z16histogram_sharedPjPKhi", 0x190);
  assert_string_equal(in->file, cu);
  assert_int_equal(in->line, 29);
  assert_null(in->inl_file);
  /* file line 66: REDG after lines 64-65 (inlined at line 29) */
  in = cc_gpu_sassmap_find(&m, "_Z16histogram_sharedPjPKhi", 0x1b0);
  assert_string_equal(in->file, hdr);
  assert_int_equal(in->inl_line, 29);
  /* file line 118: REDG of histogram_global after lines 116-117 (inlined at line 15) */
  in = cc_gpu_sassmap_find(&m, "_Z16histogram_globalPjPKhi", 0x100);
  assert_string_equal(in->text, "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7");
  assert_string_equal(in->file, hdr);
  assert_string_equal(in->inl_file, cu);
  assert_int_equal(in->inl_line, 15);
  /* file line 110: the LDG under line 15 (line 104) */
  in = cc_gpu_sassmap_find(&m, "_Z16histogram_globalPjPKhi", 0xd0);
  assert_string_equal(in->file, cu);
  assert_int_equal(in->line, 15);
  assert_null(in->inl_file);
  cc_gpu_sassmap_release(&m);
  free(text);
}

static void no_line_info(void **state)
{
  struct cc_gpu_sassmap m = {0};
  struct cc_err err = {0};
  const char *text = "\t.section\t.text.k,\"ax\",@progbits\n        /*0000*/  EXIT ;\n";
  assert_int_equal(cc_gpu_sassmap_parse(&m, text, "t", &err), CC_OK);
  assert_int_equal(m.has_lines, 0); /* the caller warns: build with -lineinfo */
  assert_int_equal(m.funcs[0].n, 1);
  cc_gpu_sassmap_release(&m);
}

static void expect_error(const char *text, const char *needle)
{
  struct cc_gpu_sassmap m = {0};
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_sassmap_parse(&m, text, "dump.sass", &err), CC_ERR_INPUT);
  assert_int_equal(err.status, CC_ERR_INPUT);
  if (strstr(err.msg, needle) == NULL)
    fail_msg("message '%s' lacks '%s'", err.msg, needle);
  cc_gpu_sassmap_release(&m);
}

static void errors(void **state)
{
  /* line 2: bad hex offset */
  expect_error("\t.section\t.text.k,\"ax\",@progbits\n  /*00zz*/ EXIT ;\n",
               "dump.sass:2: malformed instruction offset");
  /* line 1: instruction before any function */
  expect_error("  /*0000*/ EXIT ;\n", "dump.sass:1: instruction before any");
  /* line 2: //## File without ", line N" */
  expect_error("\t.section\t.text.k,\"ax\",@progbits\n\t//## File \"/a.cu\"\n",
               "dump.sass:2: malformed line information");
  /* line 2: //## File with a line that is no number */
  expect_error("\t.section\t.text.k,\"ax\",@progbits\n\t//## File \"/a.cu\", line x\n",
               "dump.sass:2: malformed line number");
}

static void real_nvdisasm_output(void **state)
{
  char *text = NULL;
  size_t len = 0;
  struct cc_err err = {0};
  assert_int_equal(cc_file_read(CC_SOURCE_DIR "/tests/gpu/data/gpuapps.nvdisasm", &text, &len,
                                &err), CC_OK);
  struct cc_gpu_sassmap m = {0};
  assert_int_equal(cc_gpu_sassmap_parse(&m, text, "gpuapps.nvdisasm", &err), CC_OK);
  /* 17 '.section .text.' lines: 16 test kernels + init_bytes */
  assert_int_equal(m.n, 17);
  /* file line 909: offset 00d0, LDG.E R11 ..., after the "line 40" comment of line 905 */
  const struct cc_gpu_sass_insn *in = cc_gpu_sassmap_find(&m, "_Z15transpose_naivePfPKfi", 0xd0);
  assert_non_null(in);
  assert_string_equal(in->text, "LDG.E R11, desc[UR4][R2.64]");
  assert_string_equal(in->file, "/work/main/tests/gpu/apps/gpuapps.cu");
  assert_int_equal(in->line, 40);
  /* file line 922: the fourth store, still under line 40 */
  in = cc_gpu_sassmap_find(&m, "_Z15transpose_naivePfPKfi", 0x1a0);
  assert_non_null(in);
  assert_string_equal(in->text, "STG.E desc[UR4][R4.64+0x60], R3");
  assert_int_equal(in->line, 40);
  /* file line 705: the reduction of red_add; 759: the returning atomic of atom_ret */
  assert_string_equal(cc_gpu_sassmap_find(&m, "_Z7red_addPii", 0x100)->text,
                      "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R7");
  assert_string_equal(cc_gpu_sassmap_find(&m, "_Z8atom_retPiS_i", 0x110)->text,
                      "ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R9");
  /* file line 692: a predicated instruction keeps its guard */
  assert_string_equal(cc_gpu_sassmap_find(&m, "_Z7red_addPii", 0x70)->text, "@P0 EXIT");
  /* red_add: 32 instruction lines between line 674 and the next section (awk count) */
  for (size_t i = 0; i < m.n; i++)
    if (strcmp(m.funcs[i].name, "_Z7red_addPii") == 0)
      assert_int_equal(m.funcs[i].n, 32);
  /* two files, each interned once: gpuapps.cu (156 //## lines) and the toolkit's
   * device_atomic_functions.hpp (4 lines: atomicAdd is inlined from there) */
  assert_int_equal(m.n_files, 2);
  cc_gpu_sassmap_release(&m);
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parses_snippet),
      cmocka_unit_test(inline_chains),
      cmocka_unit_test(real_nvdisasm_gi_output),
      cmocka_unit_test(no_line_info),
      cmocka_unit_test(errors),
      cmocka_unit_test(real_nvdisasm_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
