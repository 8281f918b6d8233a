/* The census test: tests/ptx/data/census.ptx holds every opcode form of the nvcc 13
 * census (tests/ptx/data/ptx-census.tsv, a copy of the project's shared census) and the
 * forms modern code adds, in kernels that ptxas accepts. It is parsed, a sample of
 * decoded fields is checked against values read off the file by hand, and it is printed,
 * fed to ptxas -arch=sm_90 (skipped with a message when ptxas is absent) and parsed again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ptx/ptx_test_util.h"
#include "util/fileio.h"

#define CENSUS_PTX CC_SOURCE_DIR "/tests/ptx/data/census.ptx"
#define CENSUS_TSV CC_SOURCE_DIR "/tests/ptx/data/ptx-census.tsv"

static struct ptx_module *load_census(void) {
  struct cc_err err = {0};
  struct ptx_module *m = NULL;
  int rc = ptx_parse_file(CENSUS_PTX, &m, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, CC_OK);
  return m;
}

/* First instruction (function, index) whose opcode text is form; fails when none. */
static const struct ptx_insn *find_form(const struct ptx_module *m, const char *form,
                                        const struct ptx_function **fout) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    for (uint32_t k = 0; k < m->funcs[i].ninsns; k++)
      if (strcmp(m->funcs[i].insns[k].opcode_text, form) == 0) {
        if (fout) *fout = &m->funcs[i];
        return &m->funcs[i].insns[k];
      }
  return NULL;
}

static void test_every_census_form(void **state) {
  (void)state;
  struct ptx_module *m = load_census();
  char *tsv;
  size_t len;
  struct cc_err err = {0};
  assert_int_equal(cc_file_read(CENSUS_TSV, &tsv, &len, &err), CC_OK);
  int nforms = 0, missing = 0;
  for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || strncmp(line, "opcode_with_modifiers", 21) == 0) continue;
    char *tab = strchr(line, '\t');
    if (tab) *tab = 0;
    nforms++;
    if (!find_form(m, line, NULL)) {
      fprintf(stderr, "census form missing from census.ptx: %s\n", line);
      missing++;
    }
  }
  free(tsv);
  assert_int_equal(nforms, 162); /* the census has 162 forms (164 lines less 2) */
  assert_int_equal(missing, 0);
  /* the forms the brief adds beyond the census */
  static const char *const extra[] = {
      "ld.u32", "st.u32", "ld.f32", "st.f32", "ld.local.u32", "st.local.u32",
      "atom.global.add.f32", "atom.global.add.u32", "atom.global.add.u64",
      "atom.global.add.f64", "atom.global.min.s32", "atom.global.max.u32",
      "atom.global.inc.u32", "atom.global.dec.u32", "atom.global.cas.b32",
      "atom.global.exch.b32", "atom.global.and.b32", "atom.global.or.b32",
      "atom.global.xor.b32", "atom.shared.add.u32", "atom.add.u32", "red.global.add.u32",
      "red.shared.add.u32", "red.add.f32", "shfl.sync.up.b32", "shfl.sync.down.b32",
      "shfl.sync.bfly.b32", "shfl.sync.idx.b32", "vote.sync.all.pred", "vote.sync.any.pred",
      "vote.sync.uni.pred", "vote.sync.ballot.b32", "match.any.sync.b32",
      "match.all.sync.b32", "activemask.b32", "cp.async.ca.shared.global",
      "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all", "membar.gl",
      "fence.acq_rel.gpu", "bar.arrive", "bar.red.popc.u32", "exit", "trap", "brev.b32",
      "popc.b32", "clz.b32", "bfe.u32", "bfind.u32", "testp.finite.f32", "rsqrt.approx.f32",
      "sin.approx.f32", "cos.approx.f32", "lg2.approx.f32", "ex2.approx.f32", "tanh.approx.f32",
      "sqrt.approx.f32", "set.lt.u32.f32", "slct.f32.s32", "mul24.lo.s32", "mad24.lo.s32",
      "sad.u32", "add.cc.u32", "addc.u32", "cvt.rzi.sat.s32.f32", "ld.global.nc.v4.f32",
      "cvta.local.u64", NULL};
  for (int i = 0; extra[i]; i++) {
    if (!find_form(m, extra[i], NULL)) fprintf(stderr, "extra form missing: %s\n", extra[i]);
    assert_non_null(find_form(m, extra[i], NULL));
  }
  ptx_module_free(m);
}

/* Decoded fields of a sample of forms, read off census.ptx by hand. */
static void test_decoded_sample(void **state) {
  (void)state;
  struct ptx_module *m = load_census();
  /* functions in file order of first appearance: helper, sink_func (declared before
   * census, defined after it), census, modern */
  assert_int_equal(m->nfuncs, 4);
  assert_string_equal(m->funcs[0].name, "helper");
  assert_string_equal(m->funcs[1].name, "sink_func");
  assert_string_equal(m->funcs[2].name, "census");
  assert_string_equal(m->funcs[3].name, "modern");
  assert_true(m->funcs[1].has_body);
  /* 5 variables, helper, sink_func declaration, census, sink_func body, modern */
  assert_int_equal(m->nitems, 10);
  assert_int_equal(m->items[6].kind, PTX_ITEM_FUNC_DECL);
  assert_int_equal(m->items[8].kind, PTX_ITEM_FUNC_DEF);
  assert_int_equal(m->items[8].index, 1);
  const struct ptx_function *f;
  const struct ptx_insn *in;

  in = find_form(m, "tex.1d.v4.f32.s32", &f); /* {%f34..%f37}, [%rd2, {%r52}] */
  assert_non_null(in);
  assert_int_equal(in->op, PTX_OP_TEX);
  assert_int_equal(in->mode, PTX_MODE_1D);
  assert_int_equal(in->vec, 4);
  assert_int_equal(in->type[0], PTX_TYPE_F32);
  assert_int_equal(in->type[1], PTX_TYPE_S32);
  assert_int_equal(in->nopnds, 3);
  assert_int_equal(f->opnds[in->opnd].count, 4);
  assert_int_equal(f->opnds[in->opnd + 2].count, 1);

  in = find_form(m, "ld.global.nc.u32", &f); /* %r13, [%rd8+4] */
  assert_int_equal(in->space, PTX_SPACE_GLOBAL);
  assert_int_equal(in->flags, PTX_F_NC);
  assert_int_equal(f->opnds[in->opnd + 1].imm, 4);
  in = find_form(m, "ld.global.nc.f32", &f); /* %f3, [%rd8+-8] */
  assert_int_equal(f->opnds[in->opnd + 1].imm, -8);

  in = find_form(m, "cvt.rzi.f64.f64", NULL);
  assert_int_equal(in->rnd, PTX_RND_RZI);
  assert_int_equal(in->type[0], PTX_TYPE_F64);
  assert_int_equal(in->type[1], PTX_TYPE_F64);

  in = find_form(m, "call.uni", &f); /* (retval0), helper, (param0, param1) */
  assert_ptr_equal(f, &m->funcs[2]);
  assert_int_equal(in->callee, 0);
  assert_int_equal(in->call_nret, 1);
  assert_int_equal(in->nopnds, 3);
  assert_string_equal(f->vars[f->opnds[in->opnd].var].name, "retval0");
  /* the second call (to sink_func) is the next call.uni in census */
  const struct ptx_insn *in2 = in + 1;
  while (in2->op != PTX_OP_CALL) in2++;
  assert_int_equal(in2->callee, 1);
  assert_int_equal(in2->call_nret, 0);
  /* its param0 is a second declaration of the name: instance 1 */
  assert_int_equal(f->vars[f->opnds[in2->opnd].var].instance, 1);

  in = find_form(m, "bra.uni", &f); /* bra.uni $L__BB0_3, the label before the last st */
  int32_t target = f->opnds[in->opnd].target;
  assert_string_equal(f->insns[target].opcode_text, "st.global.f64");
  assert_int_equal(target, (int32_t)f->ninsns - 2);

  in = find_form(m, "st.volatile.shared.f64", &f); /* [smem+16], %fd17 */
  assert_int_equal(in->space, PTX_SPACE_SHARED);
  assert_int_equal(in->flags, PTX_F_VOLATILE);
  assert_int_equal(f->opnds[in->opnd].var_scope, PTX_SCOPE_FUNCTION);
  assert_string_equal(f->vars[f->opnds[in->opnd].var].name, "smem");
  assert_int_equal(f->opnds[in->opnd].imm, 16);

  in = find_form(m, "ld.const.u64", &f); /* %rd14, [ctab+8] */
  assert_int_equal(f->opnds[in->opnd + 1].var_scope, PTX_SCOPE_MODULE);
  assert_int_equal(f->opnds[in->opnd + 1].var, 0);
  assert_int_equal(f->opnds[in->opnd + 1].imm, 8);

  in = find_form(m, "setp.neu.f64", NULL);
  assert_int_equal(in->cmp, PTX_CMP_NEU);
  assert_int_equal(in->type[0], PTX_TYPE_F64);

  in = find_form(m, "bar.arrive", &f); /* 1, 64 */
  assert_int_equal(in->mode, PTX_MODE_ARRIVE);
  assert_int_equal(f->opnds[in->opnd + 1].imm, 64);

  in = find_form(m, "mov.u32", &f); /* the first: %r2, %tid.x */
  assert_int_equal(f->opnds[in->opnd + 1].kind, PTX_OPND_SREG);
  assert_int_equal(f->opnds[in->opnd + 1].sreg, PTX_SREG_TID);

  /* the first ld.global.f32 has the inlined .loc (line 12, inlined at line 20) */
  in = find_form(m, "ld.global.f32", &f);
  const struct ptx_loc *l = ptx_insn_loc(f, (uint32_t)(in - f->insns));
  assert_non_null(l);
  assert_int_equal(l->line, 12);
  assert_int_equal(l->inl_line, 20);
  assert_int_equal(l->inl_column, 5);
  assert_string_equal(l->function_name, "$L__info_string0");
  assert_string_equal(ptx_file_path(m, 1), "census.cu");
  assert_string_equal(m->files[0].rest, "1700000000, 4242");

  /* ctab starts with 1.0f (00 00 80 3F) and 2.0f (00 00 00 40) */
  const uint8_t head[8] = {0, 0, 128, 63, 0, 0, 0, 64};
  assert_memory_equal(m->vars[0].init, head, 8);
  assert_int_equal(m->vars[0].size_bytes, 32);
  assert_true(m->vars[3].init_is_symbolic);
  assert_int_equal(m->vars[4].count, 0);
  assert_string_equal(m->funcs[2].directives, ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  assert_non_null(strstr(m->sections, "$L__info_string0:"));
  ptx_module_free(m);
}

/* Compares two parses of the same program: functions, instruction counts, texts. */
static void assert_same_program(const struct ptx_module *a, const struct ptx_module *b) {
  assert_int_equal(a->nfuncs, b->nfuncs);
  assert_int_equal(a->nvars, b->nvars);
  for (uint32_t i = 0; i < a->nfuncs; i++) {
    const struct ptx_function *fa = &a->funcs[i], *fb = &b->funcs[i];
    assert_string_equal(fa->name, fb->name);
    assert_int_equal(fa->ninsns, fb->ninsns);
    assert_int_equal(fa->nregs, fb->nregs);
    assert_int_equal(fa->nlabels, fb->nlabels);
    assert_int_equal(fa->nlocs, fb->nlocs);
    for (uint32_t k = 0; k < fa->ninsns; k++) {
      assert_string_equal(fa->insns[k].opcode_text, fb->insns[k].opcode_text);
      assert_int_equal(fa->insns[k].nopnds, fb->insns[k].nopnds);
      assert_int_equal(fa->insns[k].callee, fb->insns[k].callee);
    }
  }
}

static void test_print_ptxas_reparse(void **state) {
  (void)state;
  struct ptx_module *m = load_census();
  char *text = print_to_string(m);
  assert_non_null(text);
  /* parse the printed text under the same name: printing it again gives the same text */
  struct cc_err err = {0};
  struct ptx_module *m2 = NULL;
  int rc = ptx_parse(text, strlen(text), CENSUS_PTX, &m2, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  assert_int_equal(rc, CC_OK);
  assert_same_program(m, m2);
  char *text2 = print_to_string(m2);
  assert_string_equal(text, text2);
  free(text2);
  ptx_module_free(m2);

  const char *ptxas = find_tool("ptxas");
  if (!ptxas) {
    printf("ptxas not found on PATH or in /usr/local/cuda/bin: skipping the ptxas check\n");
    free(text);
    ptx_module_free(m);
    skip();
  }
  char *dir = scratch_dir();
  assert_non_null(dir);
  char path[4200];
  snprintf(path, sizeof path, "%s/census.printed.ptx", dir);
  assert_int_equal(write_file(path, text), 0);
  rc = run_ptxas(ptxas, path, dir);
  if (rc != 0) fprintf(stderr, "ptxas rejected %s (kept for inspection)\n", path);
  assert_int_equal(rc, 0);
  /* the original is accepted too (the file itself is valid PTX), and both assemble to
   * the same machine code */
  char obj_in[4300], obj_out[4300];
  snprintf(obj_in, sizeof obj_in, "%s/census.cubin", dir);
  snprintf(obj_out, sizeof obj_out, "%s/printed.cubin", dir);
  assert_int_equal(run_ptxas_o(ptxas, CENSUS_PTX, obj_in), 0);
  assert_int_equal(run_ptxas_o(ptxas, path, obj_out), 0);
  assert_int_equal(cubin_same_code(obj_in, obj_out), 0);
  scratch_remove(dir);
  free(dir);
  free(text);
  ptx_module_free(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_census_form),
      cmocka_unit_test(test_decoded_sample),
      cmocka_unit_test(test_print_ptxas_reparse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
