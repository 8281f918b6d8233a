/* Unit tests of the PTX front end: lexer and parser on PTX written inline, decoded
 * modifiers, scoped registers, calls, variables and initializers, the line table, the
 * printer, error messages with exact positions, truncation/mutation fuzzing, speed.
 *
 * Every expected figure is derived by hand in the comments next to it: register indices
 * count declarations in order ("%r<3>" declares %r0 %r1 %r2), columns count bytes from 1
 * (a tab is one byte), byte images of initializers are little-endian IEEE encodings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "ptx/ptx_test_util.h"
#include "util/fileio.h"

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* ---- instructions in a fixed register environment ------------------------------------ */

/* Registers, in declaration order:
 *   %p0..%p3 -> 0..3, %rs0..%rs3 -> 4..7, %r0..%r7 -> 8..15, %f0..%f7 -> 16..23,
 *   %rd0..%rd7 -> 24..31, %fd0..%fd3 -> 32..35 */
#define REG_P(i) (0 + (i))
#define REG_R(i) (8 + (i))
#define REG_F(i) (16 + (i))
#define REG_RD(i) (24 + (i))

static struct ptx_module *one_insn_module(const char *insn) {
  char text[2048];
  snprintf(text, sizeof text,
           HDR ".visible .entry k()\n{\n"
               "\t.reg .pred %%p<4>;\n\t.reg .b16 %%rs<4>;\n\t.reg .b32 %%r<8>;\n"
               "\t.reg .f32 %%f<8>;\n\t.reg .b64 %%rd<8>;\n\t.reg .f64 %%fd<4>;\n"
               "\t%s\n}\n",
           insn);
  return parse_ok(text);
}

struct one {
  struct ptx_module *m;
  const struct ptx_function *f;
  const struct ptx_insn *in;
};

static struct one one_insn(const char *insn) {
  struct one o = {0};
  o.m = one_insn_module(insn);
  assert_non_null(o.m);
  assert_int_equal(o.m->nfuncs, 1);
  o.f = &o.m->funcs[0];
  assert_int_equal(o.f->ninsns, 1);
  o.in = &o.f->insns[0];
  return o;
}

static const struct ptx_operand *opnd(const struct one *o, unsigned i) {
  assert_true(i < o->in->nopnds);
  return &o->f->opnds[o->in->opnd + i];
}

static void test_decode_memory(void **state) {
  (void)state;
  struct one o = one_insn("ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];");
  assert_int_equal(o.in->op, PTX_OP_LD);
  assert_int_equal(o.in->space, PTX_SPACE_GLOBAL);
  assert_int_equal(o.in->vec, 4);
  assert_int_equal(o.in->type[0], PTX_TYPE_F32);
  assert_int_equal(o.in->flags, PTX_F_NC);
  assert_string_equal(o.in->opcode_text, "ld.global.nc.v4.f32");
  assert_int_equal(o.in->nopnds, 2);
  assert_int_equal(opnd(&o, 0)->kind, PTX_OPND_VEC);
  assert_int_equal(opnd(&o, 0)->count, 4);
  /* the elements follow the two top-level operands */
  assert_int_equal(opnd(&o, 0)->first, (int32_t)(o.in->opnd + 2));
  assert_int_equal(o.f->opnds[opnd(&o, 0)->first + 3].reg, REG_F(4));
  assert_int_equal(opnd(&o, 1)->kind, PTX_OPND_ADDR);
  assert_int_equal(opnd(&o, 1)->reg, REG_RD(1));
  assert_int_equal(opnd(&o, 1)->imm, 0);
  ptx_module_free(o.m);

  o = one_insn("ld.volatile.shared.f32 %f1, [%rd1+-8];");
  assert_int_equal(o.in->space, PTX_SPACE_SHARED);
  assert_int_equal(o.in->flags, PTX_F_VOLATILE);
  assert_int_equal(opnd(&o, 1)->imm, -8);
  ptx_module_free(o.m);

  o = one_insn("ld.u32 %r1, [%rd1+16];"); /* generic: no space */
  assert_int_equal(o.in->space, PTX_SPACE_GENERIC);
  assert_int_equal(o.in->type[0], PTX_TYPE_U32);
  assert_int_equal(opnd(&o, 1)->imm, 16);
  ptx_module_free(o.m);

  o = one_insn("st.local.v2.u32 [%rd1+8], {%r1, %r2};");
  assert_int_equal(o.in->op, PTX_OP_ST);
  assert_int_equal(o.in->space, PTX_SPACE_LOCAL);
  assert_int_equal(o.in->vec, 2);
  ptx_module_free(o.m);

  o = one_insn("ld.shared::cta.u32 %r1, [%rd1];");
  assert_int_equal(o.in->space, PTX_SPACE_SHARED);
  ptx_module_free(o.m);

  o = one_insn("cp.async.ca.shared.global [%rd1], [%rd2], 16;");
  assert_int_equal(o.in->op, PTX_OP_CP);
  assert_int_equal(o.in->space, PTX_SPACE_SHARED);     /* destination */
  assert_int_equal(o.in->cvta_space, PTX_SPACE_GLOBAL); /* source */
  assert_int_equal(o.in->nopnds, 3);
  ptx_module_free(o.m);
}

static void test_decode_convert_compare(void **state) {
  (void)state;
  struct one o = one_insn("cvt.rzi.s32.f32 %r1, %f1;");
  assert_int_equal(o.in->op, PTX_OP_CVT);
  assert_int_equal(o.in->rnd, PTX_RND_RZI);
  assert_int_equal(o.in->type[0], PTX_TYPE_S32); /* destination */
  assert_int_equal(o.in->type[1], PTX_TYPE_F32); /* source */
  ptx_module_free(o.m);

  o = one_insn("cvt.rn.f32.f64 %f1, %fd1;");
  assert_int_equal(o.in->rnd, PTX_RND_RN);
  assert_int_equal(o.in->type[0], PTX_TYPE_F32);
  assert_int_equal(o.in->type[1], PTX_TYPE_F64);
  ptx_module_free(o.m);

  o = one_insn("cvt.sat.f32.f32 %f1, %f2;");
  assert_int_equal(o.in->flags, PTX_F_SAT);
  assert_int_equal(o.in->rnd, PTX_RND_NONE);
  ptx_module_free(o.m);

  o = one_insn("setp.geu.f32 %p1, %f1, %f2;");
  assert_int_equal(o.in->op, PTX_OP_SETP);
  assert_int_equal(o.in->cmp, PTX_CMP_GEU);
  assert_int_equal(o.in->type[0], PTX_TYPE_F32);
  ptx_module_free(o.m);

  /* p|q destinations, a boolean combination with a third predicate */
  o = one_insn("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;");
  assert_int_equal(o.in->cmp, PTX_CMP_LT);
  assert_int_equal(o.in->boolop, PTX_BOOL_AND);
  assert_int_equal(o.in->type[0], PTX_TYPE_S32);
  assert_int_equal(o.in->nopnds, 5);
  assert_int_equal(opnd(&o, 0)->pipe, 0);
  assert_int_equal(opnd(&o, 1)->pipe, 1);
  assert_int_equal(opnd(&o, 1)->reg, REG_P(2));
  ptx_module_free(o.m);

  o = one_insn("setp.lo.u32 %p1, %r1, %r2;"); /* "lo" is a comparison for setp */
  assert_int_equal(o.in->cmp, PTX_CMP_LO);
  assert_int_equal(o.in->mode, PTX_MODE_NONE);
  ptx_module_free(o.m);

  o = one_insn("cvta.to.global.u64 %rd1, %rd2;");
  assert_int_equal(o.in->op, PTX_OP_CVTA);
  assert_int_equal(o.in->mode, PTX_MODE_TO);
  assert_int_equal(o.in->cvta_space, PTX_SPACE_GLOBAL);
  assert_int_equal(o.in->space, PTX_SPACE_GENERIC);
  assert_int_equal(o.in->type[0], PTX_TYPE_U64);
  ptx_module_free(o.m);

  o = one_insn("cvta.local.u64 %rd1, %rd2;"); /* local -> generic */
  assert_int_equal(o.in->mode, PTX_MODE_NONE);
  assert_int_equal(o.in->cvta_space, PTX_SPACE_LOCAL);
  ptx_module_free(o.m);
}

static void test_decode_arith(void **state) {
  (void)state;
  struct one o = one_insn("mul.wide.s32 %rd1, %r1, %r2;");
  assert_int_equal(o.in->op, PTX_OP_MUL);
  assert_int_equal(o.in->mode, PTX_MODE_WIDE);
  assert_int_equal(o.in->type[0], PTX_TYPE_S32);
  ptx_module_free(o.m);

  o = one_insn("mul.hi.u32 %r1, %r2, %r3;"); /* "hi" is a mode for mul */
  assert_int_equal(o.in->mode, PTX_MODE_HI);
  assert_int_equal(o.in->cmp, PTX_CMP_NONE);
  ptx_module_free(o.m);

  o = one_insn("fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4;");
  assert_int_equal(o.in->op, PTX_OP_FMA);
  assert_int_equal(o.in->rnd, PTX_RND_RN);
  assert_int_equal(o.in->flags, PTX_F_FTZ | PTX_F_SAT);
  ptx_module_free(o.m);

  o = one_insn("rcp.approx.ftz.f64 %fd1, %fd2;");
  assert_int_equal(o.in->op, PTX_OP_RCP);
  assert_int_equal(o.in->flags, PTX_F_APPROX | PTX_F_FTZ);
  assert_int_equal(o.in->type[0], PTX_TYPE_F64);
  ptx_module_free(o.m);

  o = one_insn("add.cc.u32 %r1, %r2, %r3;");
  assert_int_equal(o.in->flags, PTX_F_CC);
  ptx_module_free(o.m);

  o = one_insn("bfind.shiftamt.u32 %r1, %r2;");
  assert_int_equal(o.in->op, PTX_OP_BFIND);
  assert_int_equal(o.in->flags, PTX_F_SHIFTAMT);
  ptx_module_free(o.m);

  o = one_insn("shf.l.wrap.b32 %r1, %r2, %r3, %r4;");
  assert_int_equal(o.in->mode, PTX_MODE_SHF_L);
  assert_int_equal(o.in->flags, PTX_F_WRAP);
  ptx_module_free(o.m);

  o = one_insn("slct.f32.s32 %f1, %f2, %f3, %r1;");
  assert_int_equal(o.in->type[0], PTX_TYPE_F32);
  assert_int_equal(o.in->type[1], PTX_TYPE_S32);
  ptx_module_free(o.m);
}

static void test_decode_warp_atomic_tex(void **state) {
  (void)state;
  struct one o = one_insn("atom.global.cas.b32 %r1, [%rd1], %r2, %r3;");
  assert_int_equal(o.in->op, PTX_OP_ATOM);
  assert_int_equal(o.in->space, PTX_SPACE_GLOBAL);
  assert_int_equal(o.in->mode, PTX_MODE_CAS);
  assert_int_equal(o.in->type[0], PTX_TYPE_B32);
  assert_int_equal(o.in->nopnds, 4);
  ptx_module_free(o.m);

  o = one_insn("atom.add.u32 %r1, [%rd1], 1;");
  assert_int_equal(o.in->space, PTX_SPACE_GENERIC);
  assert_int_equal(o.in->mode, PTX_MODE_ADD);
  ptx_module_free(o.m);

  o = one_insn("red.shared.max.s32 [%rd1], %r1;");
  assert_int_equal(o.in->op, PTX_OP_RED);
  assert_int_equal(o.in->space, PTX_SPACE_SHARED);
  assert_int_equal(o.in->mode, PTX_MODE_MAX);
  assert_int_equal(o.in->type[0], PTX_TYPE_S32);
  ptx_module_free(o.m);

  /* d|p, a, b, c, membermask: six operands, the second joined with '|' */
  o = one_insn("shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, -1;");
  assert_int_equal(o.in->op, PTX_OP_SHFL);
  assert_int_equal(o.in->mode, PTX_MODE_BFLY);
  assert_int_equal(o.in->flags, PTX_F_SYNC);
  assert_int_equal(o.in->nopnds, 6);
  assert_int_equal(opnd(&o, 1)->pipe, 1);
  assert_int_equal(opnd(&o, 5)->kind, PTX_OPND_IMM);
  assert_int_equal(opnd(&o, 5)->imm, -1);
  ptx_module_free(o.m);

  o = one_insn("vote.sync.ballot.b32 %r1, %p1, -1;");
  assert_int_equal(o.in->mode, PTX_MODE_BALLOT);
  assert_int_equal(o.in->type[0], PTX_TYPE_B32);
  ptx_module_free(o.m);

  o = one_insn("vote.sync.any.pred %p1, !%p2, -1;");
  assert_int_equal(o.in->mode, PTX_MODE_ANY);
  assert_int_equal(opnd(&o, 1)->neg, 1);
  assert_int_equal(opnd(&o, 1)->reg, REG_P(2));
  ptx_module_free(o.m);

  o = one_insn("match.any.sync.b32 %r1, %r2, %r3;");
  assert_int_equal(o.in->op, PTX_OP_MATCH);
  assert_int_equal(o.in->mode, PTX_MODE_ANY);
  ptx_module_free(o.m);

  /* {d}, [handle, {coordinates}]: three operands, the last two in one bracket group */
  o = one_insn("tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f1, %f2}];");
  assert_int_equal(o.in->op, PTX_OP_TEX);
  assert_int_equal(o.in->mode, PTX_MODE_2D);
  assert_int_equal(o.in->vec, 4);
  assert_int_equal(o.in->type[0], PTX_TYPE_U32);
  assert_int_equal(o.in->type[1], PTX_TYPE_F32);
  assert_int_equal(o.in->nopnds, 3);
  assert_int_equal(opnd(&o, 1)->kind, PTX_OPND_REG);
  assert_int_equal(opnd(&o, 1)->reg, REG_RD(1));
  assert_int_equal(opnd(&o, 1)->brk, 1);
  assert_int_equal(opnd(&o, 2)->kind, PTX_OPND_VEC);
  assert_int_equal(opnd(&o, 2)->count, 2);
  assert_int_equal(opnd(&o, 2)->brk, 2);
  ptx_module_free(o.m);

  o = one_insn("bar.sync 0;");
  assert_int_equal(o.in->op, PTX_OP_BAR);
  assert_int_equal(o.in->flags, PTX_F_SYNC);
  assert_int_equal(opnd(&o, 0)->imm, 0);
  ptx_module_free(o.m);

  o = one_insn("barrier.sync 0;");
  assert_int_equal(o.in->op, PTX_OP_BARRIER);
  ptx_module_free(o.m);

  o = one_insn("bar.red.and.pred %p1, 3, !%p2;");
  assert_int_equal(o.in->mode, PTX_MODE_RED);
  assert_int_equal(o.in->boolop, PTX_BOOL_AND);
  ptx_module_free(o.m);

  o = one_insn("mov.u32 %r1, %laneid;");
  assert_int_equal(opnd(&o, 1)->kind, PTX_OPND_SREG);
  assert_int_equal(opnd(&o, 1)->sreg, PTX_SREG_LANEID);
  ptx_module_free(o.m);

  o = one_insn("mov.b64 {%r1, _}, %rd1;");
  assert_int_equal(o.f->opnds[opnd(&o, 0)->first + 1].kind, PTX_OPND_SINK);
  ptx_module_free(o.m);

  o = one_insn("membar.gl;");
  assert_int_equal(o.in->op, PTX_OP_MEMBAR);
  assert_int_equal(o.in->nopnds, 0);
  ptx_module_free(o.m);
}

/* ---- operands, labels, scopes ----------------------------------------------------------- */

static const char operands_ptx[] =
    HDR ".global .align 4 .b8 buf[64];\n"          /* module var 0 */
        ".visible .entry k(.param .u64 k_p0)\n"    /* function var 0 */
        "{\n"
        "\t.reg .pred %p<3>;\n"                    /* regs 0..2 */
        "\t.reg .b32 %r<5>;\n"                     /* regs 3..7 */
        "\t.reg .f32 %f<5>;\n"                     /* regs 8..12 */
        "\t.reg .b64 %rd<5>;\n"                    /* regs 13..17 */
        "\tld.param.u64 %rd1, [k_p0];\n"           /* insn 0 */
        "\tld.global.v2.f32 {%f1, %f2}, [%rd1+-8];\n" /* 1 */
        "\tld.global.u32 %r1, [buf+40];\n"         /* 2 */
        "\tmov.u64 %rd2, buf;\n"                   /* 3 */
        "\tmov.f32 %f3, 0f3F800000;\n"             /* 4 */
        "\tadd.s32 %r2, %r1, -5;\n"                /* 5 */
        "\tand.b32 %r3, %r2, 0xFF;\n"              /* 6 */
        "\tmov.u32 %r4, %ctaid.y;\n"               /* 7 */
        "\tsetp.lt.s32 %p1|%p2, %r1, %r2;\n"       /* 8 */
        "\t@!%p1 bra $L_end;\n"                    /* 9: forward reference */
        "\tst.global.f32 [%rd1], %f1;\n"           /* 10 */
        "$L_end:\n"
        "\tret;\n"                                 /* 11 */
        "}\n";

static void test_operands(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(operands_ptx);
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  assert_int_equal(f->ninsns, 12);
  assert_int_equal(f->nregs, 3 + 5 + 5 + 5);
#define OP(i, k) (&f->opnds[f->insns[i].opnd + (k)])
  assert_int_equal(OP(0, 0)->reg, 14); /* %rd1 = 13 + 1 */
  assert_int_equal(OP(0, 1)->kind, PTX_OPND_ADDR);
  assert_int_equal(OP(0, 1)->reg, -1);
  assert_int_equal(OP(0, 1)->var, 0);
  assert_int_equal(OP(0, 1)->var_scope, PTX_SCOPE_FUNCTION);
  assert_int_equal(f->nparams, 1);
  assert_int_equal(f->param_vars[0], 0);
  assert_int_equal(f->vars[0].space, PTX_SPACE_PARAM);
  assert_int_equal(f->vars[0].type, PTX_TYPE_U64);

  assert_int_equal(OP(1, 0)->kind, PTX_OPND_VEC);
  assert_int_equal(f->opnds[OP(1, 0)->first].reg, 9);      /* %f1 = 8 + 1 */
  assert_int_equal(f->opnds[OP(1, 0)->first + 1].reg, 10); /* %f2 */
  assert_int_equal(OP(1, 1)->reg, 14);
  assert_int_equal(OP(1, 1)->imm, -8);

  assert_int_equal(OP(2, 1)->var, 0);
  assert_int_equal(OP(2, 1)->var_scope, PTX_SCOPE_MODULE);
  assert_int_equal(OP(2, 1)->imm, 40);

  assert_int_equal(OP(3, 1)->kind, PTX_OPND_SYM);
  assert_int_equal(OP(3, 1)->var, 0);
  assert_int_equal(OP(3, 1)->var_scope, PTX_SCOPE_MODULE);
  assert_int_equal(OP(3, 1)->is_func, 0);

  assert_int_equal(OP(4, 1)->kind, PTX_OPND_IMM);
  assert_int_equal(OP(4, 1)->is_float, 1);
  assert_int_equal(OP(4, 1)->is_f64, 0);
  assert_int_equal(OP(4, 1)->imm, 0x3F800000);

  assert_int_equal(OP(5, 2)->imm, -5);
  assert_int_equal(OP(6, 2)->imm, 255);

  assert_int_equal(OP(7, 1)->kind, PTX_OPND_SREG);
  assert_int_equal(OP(7, 1)->sreg, PTX_SREG_CTAID);
  assert_int_equal(OP(7, 1)->comp, 1);

  assert_int_equal(OP(8, 1)->pipe, 1);

  assert_int_equal(f->insns[9].guard, 1); /* %p1 */
  assert_int_equal(f->insns[9].guard_neg, 1);
  assert_int_equal(OP(9, 0)->kind, PTX_OPND_LABEL);
  assert_int_equal(OP(9, 0)->target, 11);
  assert_int_equal(f->nlabels, 1);
  assert_string_equal(f->labels[OP(9, 0)->var].name, "$L_end");
  assert_int_equal(f->labels[0].insn, 11);
  assert_int_equal(f->insns[10].guard, -1);

  /* positions of opcodes: HDR is lines 1-3, .global 4, .entry 5, '{' 6, .reg 7-10,
   * insn 0 on line 11, so insn 2 ("\tld.global.u32 ...") is on line 13, column 2 */
  assert_int_equal(f->insns[2].line, 13);
  assert_int_equal(f->insns[2].column, 2);
#undef OP

  char buf[128];
  size_t n = ptx_print_insn(m, f, 1, buf, sizeof buf);
  assert_string_equal(buf, "ld.global.v2.f32 {%f1, %f2}, [%rd1+-8];");
  assert_int_equal(n, strlen(buf));
  ptx_print_insn(m, f, 9, buf, sizeof buf);
  assert_string_equal(buf, "@!%p1 bra $L_end;");
  ptx_print_insn(m, f, 8, buf, sizeof buf);
  assert_string_equal(buf, "setp.lt.s32 %p1|%p2, %r1, %r2;");
  ptx_print_insn(m, f, 4, buf, sizeof buf);
  assert_string_equal(buf, "mov.f32 %f3, 0f3F800000;");
  ptx_print_insn(m, f, 2, buf, sizeof buf);
  assert_string_equal(buf, "ld.global.u32 %r1, [buf+40];");
  ptx_print_insn(m, f, 7, buf, sizeof buf);
  assert_string_equal(buf, "mov.u32 %r4, %ctaid.y;");
  /* truncation: "ret;" into 3 bytes keeps "re", returns the full length 4 */
  n = ptx_print_insn(m, f, 11, buf, 3);
  assert_string_equal(buf, "re");
  assert_int_equal(n, 4);
  ptx_module_free(m);
}

static const char scopes_ptx[] =
    HDR ".visible .entry k()\n"
        "{\n"
        "\t.reg .b32 \t%r<3>;\n"                   /* regs 0..2 */
        "\t.reg .pred %p;\n"                       /* reg 3 */
        "\t{ .reg .b32 %t; mov.u32 %t, %r1; }\n"   /* reg 4 (%t #0), insn 0 */
        "\t{ .reg .b32 %t; mov.u32 %t, %r2; }\n"   /* reg 5 (%t #1), insn 1 */
        "\t{ .reg .b32 %r1; mov.u32 %r1, 7; }\n"   /* reg 6 (%r1 #1), insn 2 */
        "\tmov.u32 %r1, %r0;\n"                    /* insn 3: the outer %r1 again */
        "\tret;\n"
        "}\n";

static void test_scoped_registers(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(scopes_ptx);
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  assert_int_equal(f->nregs, 7);
  assert_string_equal(f->regs[2].name, "%r2");
  assert_int_equal(f->regs[3].type, PTX_TYPE_PRED);
  assert_string_equal(f->regs[4].name, "%t");
  assert_int_equal(f->regs[4].instance, 0);
  assert_string_equal(f->regs[5].name, "%t");
  assert_int_equal(f->regs[5].instance, 1);
  assert_string_equal(f->regs[6].name, "%r1");
  assert_int_equal(f->regs[6].instance, 1);
#define OPR(i, k) (f->opnds[f->insns[i].opnd + (k)].reg)
  assert_int_equal(OPR(0, 0), 4);
  assert_int_equal(OPR(0, 1), 1);
  assert_int_equal(OPR(1, 0), 5);
  assert_int_equal(OPR(1, 1), 2);
  assert_int_equal(OPR(2, 0), 6);
  assert_int_equal(OPR(3, 0), 1);
  assert_int_equal(OPR(3, 1), 0);
#undef OPR
  char *text = print_to_string(m);
  assert_non_null(text);
  assert_non_null(strstr(text, "\t.reg .b32 \t%r<3>;\n"));
  assert_non_null(strstr(text, "\t.reg .b32 \t%t$1;\n"));
  assert_non_null(strstr(text, "\tmov.u32 %t$1, %r2;\n"));
  assert_non_null(strstr(text, "\tmov.u32 %r1$1, 7;\n"));
  /* the printed text parses again to the same number of registers and instructions */
  struct ptx_module *m2 = parse_ok(text);
  assert_non_null(m2);
  assert_int_equal(m2->funcs[0].nregs, 7);
  assert_int_equal(m2->funcs[0].ninsns, 5);
  ptx_module_free(m2);
  free(text);
  ptx_module_free(m);
}

/* ---- calls ------------------------------------------------------------------------ */

static const char calls_ptx[] =
    HDR ".func (.param .b32 r) f(.param .b32 a);\n"  /* declared first: function 0 */
        ".visible .entry k()\n"                      /* function 1 */
        "{\n"
        "\t.reg .b32 %r<3>;\n"
        "\t{ // callseq 0, 0\n"
        "\t.param .b32 param0;\n"                    /* k var 0 */
        "\tst.param.b32 [param0+0], %r1;\n"          /* insn 0 */
        "\t.param .b32 retval0;\n"                   /* k var 1 */
        "\tcall.uni (retval0), \n\tf, \n\t(\n\tparam0\n\t);\n" /* insn 1 */
        "\tld.param.b32 %r2, [retval0+0];\n"         /* insn 2 */
        "\t} // callseq 0\n"
        "\tcall.uni g, (%r1);\n"                     /* insn 3: g is defined later */
        "\tret;\n"
        "}\n"
        ".func (.param .b32 r) f(.param .b32 a)\n"   /* the definition keeps index 0 */
        "{\n\t.reg .b32 %x;\n\tld.param.b32 %x, [a];\n\tst.param.b32 [r], %x;\n\tret;\n}\n"
        ".func g(.param .b32 b)\n"                   /* function 2 */
        "{\n\tret;\n}\n";

static void test_calls(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(calls_ptx);
  assert_non_null(m);
  assert_int_equal(m->nfuncs, 3);
  assert_string_equal(m->funcs[0].name, "f");
  assert_true(m->funcs[0].has_body);
  assert_int_equal(m->funcs[0].nret, 1);
  assert_int_equal(m->funcs[0].nparams, 1);
  assert_int_equal(m->funcs[0].ninsns, 3);
  assert_ptr_equal(ptx_module_find(m, "f"), &m->funcs[0]);
  assert_ptr_equal(ptx_module_find(m, "g"), &m->funcs[2]);
  assert_null(ptx_module_find(m, "h"));
  const struct ptx_function *k = &m->funcs[1];
  assert_true(k->is_entry);
  assert_true(k->is_visible);
  const struct ptx_insn *call = &k->insns[1];
  assert_int_equal(call->op, PTX_OP_CALL);
  assert_int_equal(call->flags, PTX_F_UNI);
  assert_int_equal(call->callee, 0);
  assert_int_equal(call->call_nret, 1);
  assert_int_equal(call->nopnds, 2);
  assert_int_equal(k->opnds[call->opnd].kind, PTX_OPND_SYM);
  assert_int_equal(k->opnds[call->opnd].var, 1); /* retval0 */
  assert_int_equal(k->opnds[call->opnd].var_scope, PTX_SCOPE_FUNCTION);
  assert_int_equal(k->opnds[call->opnd + 1].var, 0); /* param0 */
  /* the call sequence block: opened before insn 0, closed before insn 3; its .param
   * variables belong to it, and the printer declares them inside it */
  assert_int_equal(k->nscopes, 1);
  assert_int_equal(k->scopes[0].parent, -1);
  assert_int_equal(k->scopes[0].open_insn, 0);
  assert_int_equal(k->scopes[0].close_insn, 3);
  assert_int_equal(k->vars[0].scope, 0);
  assert_int_equal(k->vars[1].scope, 0);
  assert_int_equal(k->regs[0].scope, -1);
  char *text = print_to_string(m);
  assert_non_null(text);
  assert_non_null(strstr(text, "\t{\n\t.param .b32 param0;\n\t.param .b32 retval0;\n"
                               "\tst.param.b32 [param0+0], %r1;\n"));
  assert_non_null(strstr(text, "\tld.param.b32 %r2, [retval0+0];\n\t}\n"));
  free(text);
  assert_int_equal(k->insns[3].callee, 2);
  assert_int_equal(k->insns[3].call_nret, 0);
  assert_int_equal(k->insns[3].nopnds, 1);
  /* declaration of f, k, definition of f, g */
  assert_int_equal(m->nitems, 4);
  assert_int_equal(m->items[0].kind, PTX_ITEM_FUNC_DECL);
  assert_int_equal(m->items[0].index, 0);
  assert_int_equal(m->items[2].kind, PTX_ITEM_FUNC_DEF);
  assert_int_equal(m->items[2].index, 0);
  char buf[128];
  ptx_print_insn(m, k, 1, buf, sizeof buf);
  assert_string_equal(buf, "call.uni (retval0), f, (param0);");
  ptx_print_insn(m, k, 3, buf, sizeof buf);
  assert_string_equal(buf, "call.uni g, (%r1);");
  ptx_module_free(m);
}

/* An indirect call through a register with a .callprototype, a .ptr kernel parameter,
 * a decimal float immediate and a 64-bit hex constant. */
static const char indirect_ptx[] =
    HDR ".func  (.param .b32 func_retval0) f(.param .b32 f_param_0)\n"
        "{\n\t.reg .b32 %r<3>;\n\tld.param.u32 %r1, [f_param_0];\n\tadd.s32 %r2, %r1, 1;\n"
        "\tst.param.b32 [func_retval0+0], %r2;\n\tret;\n}\n"
        ".visible .entry k(.param .u64 .ptr .global .align 16 k_param_0)\n"
        "{\n"
        "\t.reg .b32 %r<3>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [k_param_0];\n"                 /* insn 0 */
        "\tmov.u64 %rd3, f;\n"                                /* 1 */
        "\tmov.u32 %r1, 5;\n"                                 /* 2 */
        "\tadd.f32 %f1, %f2, 1.5;\n"                          /* 3 */
        "\tand.b64 %rd2, %rd1, 0xFFFFFFFFFFFFFFF0;\n"         /* 4 */
        "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r1;\n" /* 5 */
        "\t.param .b32 retval0;\n"
        "\tprototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
        "\tcall (retval0), %rd3, (param0), prototype_0;\n"    /* 6 */
        "\tld.param.b32 %r2, [retval0+0];\n\t}\n"           /* 7 */
        "\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u32 [%rd2], %r2;\n"
        "\tst.global.f32 [%rd2+4], %f1;\n\tret;\n}\n";

static void test_indirect_call(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(indirect_ptx);
  assert_non_null(m);
  const struct ptx_function *k = &m->funcs[1];
  assert_int_equal(k->vars[0].type, PTX_TYPE_U64); /* .ptr .global .align 16: hints */
  const struct ptx_operand *o = &k->opnds[k->insns[1].opnd + 1];
  assert_int_equal(o->kind, PTX_OPND_SYM);
  assert_int_equal(o->is_func, 1);
  assert_int_equal(o->var, 0);
  o = &k->opnds[k->insns[3].opnd + 2];
  /* 1.5 = 1.1b x 2^0: exponent 1023 = 0x3FF, fraction .1b = 0x8000000000000 */
  assert_int_equal(o->is_float, 1);
  assert_int_equal(o->is_f64, 1);
  assert_int_equal((uint64_t)o->imm, 0x3FF8000000000000ull);
  o = &k->opnds[k->insns[4].opnd + 2];
  assert_int_equal(o->imm, -16); /* 0xFFFFFFFFFFFFFFF0 as a signed 64-bit value */
  const struct ptx_insn *call = &k->insns[6];
  assert_int_equal(call->op, PTX_OP_CALL);
  assert_int_equal(call->callee, -1);
  assert_int_equal(call->call_nret, 1);
  assert_int_equal(call->nopnds, 3);
  assert_int_equal(k->opnds[call->opnd + 1].kind, PTX_OPND_REG);
  assert_int_equal(k->opnds[call->opnd + 1].reg, 3 + 3 + 3); /* %rd3 after %r<3>, %f<3> */
  assert_string_equal(call->call_proto, "prototype_0");
  assert_string_equal(k->protos, "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n");
  char buf[128];
  ptx_print_insn(m, k, 6, buf, sizeof buf);
  assert_string_equal(buf, "call (retval0), %rd3, (param0), prototype_0;");
  char *text = print_to_string(m);
  assert_non_null(text);
  const char *ptxas = find_tool("ptxas");
  if (ptxas) {
    assert_int_equal(ptxas_text(ptxas, text, "indirect.ptx"), 0);
  } else {
    printf("ptxas not found: the printed text is not assembled\n");
  }
  free(text);
  ptx_module_free(m);
}

/* Inline asm names registers without '%' ("{ .reg .pred p; ... @p ...; }") and sm_90
 * code reaches elect/mbarrier/ldmatrix/mma; all of it parses, prints and assembles. */
static const char inline_asm_ptx[] =
    HDR ".visible .entry k(.param .u64 k_p)\n"
        "{\n"
        "\t.reg .pred %p<2>;\n\t.reg .b32 %r<12>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n"
        "\t.shared .align 8 .b8 sbuf[1024];\n"
        "\tld.param.u64 %rd1, [k_p];\n"                                           /* 0 */
        "\tmov.u32 %r1, %tid.x;\n"                                                /* 1 */
        "\t{ .reg .pred p; setp.ne.b32 p, %r1, 0; @p add.s32 %r2, %r1, 1; "       /* 2, 3 */
        "selp.b32 %r3, 1, 0, p; }\n"                                               /* 4 */
        "\t{ .reg .pred p; .reg .b64 addr; setp.eq.b32 p, %r3, 0; "               /* 5 */
        "cvta.to.global.u64 addr, %rd1; @!p st.global.u32 [addr], %r2; }\n"       /* 6, 7 */
        "\telect.sync %r4|%p1, -1;\n"                                             /* 8 */
        "\tmbarrier.init.shared.b64 [sbuf], 1;\n"
        "\tmbarrier.arrive.shared.b64 %rd2, [sbuf];\n"
        "\tbar.warp.sync -1;\n"
        "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r5, %r6, %r7, %r8}, [sbuf+64];\n"
        "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, "
        "{%r5, %r6, %r7, %r8}, {%r9, %r10}, {%f5, %f6, %f7, %f4};\n"
        "\tbmsk.clamp.b32 %r11, %r1, 5;\n"
        "\tszext.wrap.s32 %r11, %r11, 8;\n"
        "\tfence.proxy.async.shared::cta;\n"
        "\tst.global.f32 [%rd1+4], %f1;\n"
        "\tgriddepcontrol.launch_dependents;\n"
        "\tret;\n"
        "}\n";

static void test_inline_asm_names(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(inline_asm_ptx);
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  /* registers: %p0-1 (0-1), %r0-11 (2-13), %f0-7 (14-21), %rd0-3 (22-25), p (26),
   * p again (27, instance 1), addr (28) */
  assert_int_equal(f->nregs, 29);
  assert_string_equal(f->regs[27].name, "p");
  assert_int_equal(f->regs[27].instance, 1);
  assert_int_equal(f->insns[3].guard, 26);                      /* @p add.s32 */
  assert_int_equal(f->opnds[f->insns[4].opnd + 3].reg, 26);     /* selp ..., p */
  assert_int_equal(f->insns[7].guard, 27);                      /* @!p st.global */
  assert_int_equal(f->insns[7].guard_neg, 1);
  assert_int_equal(f->opnds[f->insns[7].opnd].reg, 28);         /* [addr] */
  assert_int_equal(f->insns[8].op, PTX_OP_ELECT);
  assert_int_equal(f->opnds[f->insns[8].opnd + 1].pipe, 1);
  char buf[128];
  ptx_print_insn(m, f, 7, buf, sizeof buf);
  assert_string_equal(buf, "@!p$1 st.global.u32 [addr], %r2;");
  char *text = print_to_string(m);
  assert_non_null(text);
  const char *ptxas = find_tool("ptxas");
  if (ptxas) {
    assert_int_equal(ptxas_text(ptxas, text, "inline.ptx"), 0);
  } else {
    printf("ptxas not found: the printed text is not assembled\n");
  }
  free(text);
  ptx_module_free(m);
}

/* Vector registers: declared with .v2/.v4, used whole or by element (%v.y). */
static void test_vector_registers(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(
      HDR ".visible .entry k(.param .u64 k_p)\n{\n"
          "\t.reg .v4 .f32 %v;\n\t.reg .v2 .b32 %w;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<3>;\n"
          "\tld.param.u64 %rd1, [k_p];\n"             /* 0 */
          "\tld.global.v4.f32 %v, [%rd1];\n"          /* 1 */
          "\tadd.f32 %f1, %v.x, %v.w;\n"              /* 2 */
          "\tmov.b32 %w.g, 3;\n"                      /* 3: .r .g .b .a name elements too */
          "\tret;\n}\n");
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  assert_int_equal(f->regs[0].vec, 4);
  assert_int_equal(f->regs[1].vec, 2);
  const struct ptx_operand *o = &f->opnds[f->insns[1].opnd];
  assert_int_equal(o->reg, 0);
  assert_int_equal(o->regcomp, 0); /* the whole vector */
  o = &f->opnds[f->insns[2].opnd + 2];
  assert_int_equal(o->reg, 0);
  assert_int_equal(o->regcomp, 4); /* .w */
  o = &f->opnds[f->insns[3].opnd];
  assert_int_equal(o->reg, 1);
  assert_int_equal(o->regcomp, 2); /* .g = .y */
  char buf[64];
  ptx_print_insn(m, f, 3, buf, sizeof buf);
  assert_string_equal(buf, "mov.b32 %w.y, 3;");
  char *text = print_to_string(m);
  assert_non_null(strstr(text, "\t.reg .v4 .f32 \t%v;\n"));
  free(text);
  ptx_module_free(m);
  /* "\tmov.b32 %w.z, 1;": a .v2 register has no .z (column 10) */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .v2 .b32 %w;\n\tmov.b32 %w.z, 1;\n}\n"),
                      "t.ptx:7:10: register '%w.z' has no such element (a .v2 register)");
}

/* ---- variables and initializers ----------------------------------------------------- */

static void test_variables(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(
      HDR ".const .align 4 .f32 c[2] = {1.0, -2.0};\n"
          ".global .s16 h[3] = {1, -1};\n"
          ".global .u32 g = 0x12345678;\n"
          ".global .b8 bytes[] = {1, 2, 3};\n"
          ".extern .shared .align 16 .b8 sm[];\n"
          ".global .align 8 .u64 p[1] = {generic(g)};\n"
          ".global .v2 .f32 v = {0f3F800000, 0f40000000};\n"
          ".visible .global .align 4 .b8 grid[4][8];\n");
  assert_non_null(m);
  assert_int_equal(m->nvars, 8);
  /* 1.0f = 0x3F800000 and -2.0f = 0xC0000000, little-endian */
  const uint8_t c_bytes[8] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0};
  assert_int_equal(m->vars[0].space, PTX_SPACE_CONST);
  assert_int_equal(m->vars[0].align, 4);
  assert_int_equal(m->vars[0].count, 2);
  assert_int_equal(m->vars[0].size_bytes, 8);
  assert_memory_equal(m->vars[0].init, c_bytes, 8);
  /* s16 {1, -1, (0)}: 0x0001, 0xFFFF, 0x0000 */
  const uint8_t h_bytes[6] = {0x01, 0x00, 0xFF, 0xFF, 0x00, 0x00};
  assert_memory_equal(m->vars[1].init, h_bytes, 6);
  const uint8_t g_bytes[4] = {0x78, 0x56, 0x34, 0x12};
  assert_int_equal(m->vars[2].count, 1);
  assert_memory_equal(m->vars[2].init, g_bytes, 4);
  assert_int_equal(m->vars[3].count, 3); /* sized by its initializer */
  assert_int_equal(m->vars[3].size_bytes, 3);
  assert_int_equal(m->vars[4].count, 0);
  assert_true(m->vars[4].is_extern);
  assert_int_equal(m->vars[4].align, 16);
  assert_int_equal(m->vars[4].space, PTX_SPACE_SHARED);
  assert_true(m->vars[5].init_is_symbolic);
  assert_null(m->vars[5].init);
  assert_string_equal(m->vars[5].init_text, "{generic(g)}");
  assert_int_equal(m->vars[6].vec, 2);
  assert_int_equal(m->vars[6].size_bytes, 8);
  assert_int_equal(m->vars[7].count, 32); /* 4 x 8 */
  assert_true(m->vars[7].is_visible);
  char *text = print_to_string(m);
  assert_non_null(text);
  assert_non_null(strstr(text, ".const .align 4 .f32 c[2] = {0f3F800000, 0fC0000000};\n"));
  assert_non_null(strstr(text, ".global .s16 h[3] = {1, -1, 0};\n"));
  assert_non_null(strstr(text, ".global .u32 g = 305419896;\n")); /* 0x12345678 */
  assert_non_null(strstr(text, ".global .align 8 .u64 p[1] = {generic(g)};\n"));
  assert_non_null(strstr(text, ".extern .shared .align 16 .b8 sm[];\n"));
  free(text);
  ptx_module_free(m);
}

/* ---- line table, directives, sections ------------------------------------------------ */

static const char loc_ptx[] =
    HDR ".visible .entry k()\n"
        ".maxntid 256, 1, 1\n"
        ".minnctapersm 2\n"
        "{\n"
        "\texit;\n"                                                    /* insn 0: no .loc */
        "\t.loc\t1 5 0\n"
        "\tret;\n"                                                     /* insn 1: loc 0 */
        "\t.loc 2 7 3, function_name $L__info_string0, inlined_at 1 9 4\n"
        "\t.pragma \"nounroll\";\n"
        "\texit;\n"                                                    /* insn 2: loc 1 */
        "}\n"
        "\t.file\t1 \"a.cu\", 1700000000, 1234\n"
        "\t.file\t2 \"b.h\"\n"
        "\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 102,0\n\t}\n";

/* nvcc's `.loc 1 0 0`: code merged from several lines has line 0. Insn 0 (before any
 * real .loc) keeps the line-0 .loc (reports: "line unknown"); insn 1 has line 12; insn 2,
 * after `.loc 1 0 0`, keeps line 12 (the nearest preceding real one), insn 3 line 14,
 * insn 4 after another line 0 line 14 again. The directives all stay and print. */
static const char loc0_ptx[] =
    HDR ".visible .entry k(.param .u64 p)\n"
        "{\n"
        "\t.reg .b64 %rd<2>;\n"
        "\t.reg .f32 %f<3>;\n"
        "\t.loc\t1 0 0\n"
        "\tld.param.u64 %rd1, [p];\n"                      /* insn 0: line 0 */
        "\t.loc\t1 12 3\n"
        "\tld.global.f32 %f1, [%rd1];\n"                   /* insn 1: 12 */
        "\t.loc\t1 0 0\n"
        "\tld.global.f32 %f2, [%rd1+4];\n"                 /* insn 2: 12 (merged) */
        "\t.loc\t1 14 5\n"
        "\tst.global.f32 [%rd1], %f1;\n"                   /* insn 3: 14 */
        "\t.loc\t1 0 0\n"
        "\tst.global.f32 [%rd1+4], %f2;\n"                 /* insn 4: 14 */
        "\tret;\n"
        "}\n"
        "\t.file\t1 \"m.cu\"\n";

static void test_line_zero(void **state) {
  (void)state;
  static const uint32_t want[] = {0, 12, 12, 14, 14, 14};
  struct ptx_module *m = parse_ok(loc0_ptx);
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  assert_int_equal(f->ninsns, 6);
  assert_int_equal(f->nlocs, 5);
  for (uint32_t i = 0; i < 6; i++) {
    const struct ptx_loc *l = ptx_insn_loc(f, i);
    assert_non_null(l);
    assert_int_equal(l->line, want[i]);
  }
  assert_int_equal(ptx_insn_loc(f, 2)->column, 3);
  char *text = print_to_string(m);
  assert_non_null(text);
  const char *at = strstr(text, "\t.loc\t1 12 3\n");
  assert_non_null(at);
  assert_non_null(strstr(at, "\t.loc\t1 0 0\n")); /* the line-0 directive kept */
  free(text);
  ptx_module_free(m);
}

static void test_line_table(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(loc_ptx);
  assert_non_null(m);
  const struct ptx_function *f = &m->funcs[0];
  assert_int_equal(f->ninsns, 3);
  assert_null(ptx_insn_loc(f, 0));
  const struct ptx_loc *l = ptx_insn_loc(f, 1);
  assert_non_null(l);
  assert_int_equal(l->file, 1);
  assert_int_equal(l->line, 5);
  assert_int_equal(l->column, 0);
  assert_null(l->function_name);
  assert_int_equal(l->inl_file, 0);
  l = ptx_insn_loc(f, 2);
  assert_non_null(l);
  assert_int_equal(l->file, 2);
  assert_int_equal(l->line, 7);
  assert_int_equal(l->column, 3);
  assert_string_equal(l->function_name, "$L__info_string0");
  assert_int_equal(l->inl_file, 1);
  assert_int_equal(l->inl_line, 9);
  assert_int_equal(l->inl_column, 4);
  assert_null(ptx_insn_loc(f, 3)); /* out of range */
  assert_string_equal(ptx_file_path(m, 1), "a.cu");
  assert_string_equal(ptx_file_path(m, 2), "b.h");
  assert_null(ptx_file_path(m, 3));
  assert_string_equal(m->files[0].rest, "1700000000, 1234");
  assert_null(m->files[1].rest);
  assert_string_equal(f->directives, ".maxntid 256, 1, 1\n.minnctapersm 2\n");
  assert_int_equal(f->npragmas, 1);
  assert_string_equal(f->pragmas[0].text, "\"nounroll\"");
  assert_int_equal(f->pragmas[0].insn, 2);
  /* marks in file order: .loc (before insn 1), .loc and .pragma (before insn 2) */
  assert_int_equal(f->nmarks, 3);
  assert_int_equal(f->marks[0].kind, PTX_MARK_LOC);
  assert_int_equal(f->marks[0].insn, 1);
  assert_int_equal(f->marks[2].kind, PTX_MARK_PRAGMA);
  assert_int_equal(f->marks[2].insn, 2);
  assert_string_equal(m->sections, ".section\t.debug_str\n\t{\n$L__info_string0:\n.b8 102,0\n\t}\n");
  assert_string_equal(m->version, "9.0");
  assert_string_equal(m->target, "sm_90");
  assert_int_equal(m->address_size, 64);
  char *text = print_to_string(m);
  assert_non_null(text);
  assert_non_null(strstr(text, "\t.loc\t2 7 3, function_name $L__info_string0, inlined_at 1 9 4\n"
                               "\t.pragma \"nounroll\";\n\texit;\n"));
  assert_non_null(strstr(text, "\t.file\t1 \"a.cu\", 1700000000, 1234\n"));
  assert_non_null(strstr(text, ".maxntid 256, 1, 1\n.minnctapersm 2\n{\n"));
  free(text);
  ptx_module_free(m);
}

/* ---- errors: exact messages and positions --------------------------------------------- */

static void test_errors(void **state) {
  (void)state;
  /* line 6 is "\tret" without ';': the next token is '}' at 7:1 */
  assert_string_equal(parse_err(HDR ".visible .entry k()\n{\n\tret\n}\n"),
                      "t.ptx:7:1: expected ';', found '}'");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tfoo.bar %r1;\n}\n"),
                      "t.ptx:6:2: unknown instruction 'foo.bar'");
  /* "\tmov.u32 %r1, %r9;": tab 1, mov.u32 2-8, ' ' 9, "%r1," 10-13, ' ' 14, %r9 at 15 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %r9;\n}\n"),
                      "t.ptx:7:15: undefined register '%r9'");
  /* "\tbra $L_x;": the label at column 6 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tbra $L_x;\n}\n"),
                      "t.ptx:6:6: undefined label '$L_x'");
  /* a register of a closed scope: "\tmov.u32 %t, 1;" has %t at column 10 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t{ .reg .b32 %t; }\n\tmov.u32 %t, 1;\n}\n"),
                      "t.ptx:7:10: undefined register '%t'");
  assert_string_equal(parse_err(".target sm_90\n"), "t.ptx:1:1: missing .version directive");
  assert_string_equal(parse_err(".version 9.0\n"), "t.ptx:1:1: missing .target directive");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t/* never closed\n"),
                      "t.ptx:6:2: unterminated comment '/*'");
  /* "\tmov.f32 %f, 0f3F80;": the constant at column 14 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .f32 %f;\n\tmov.f32 %f, 0f3F80;\n}\n"),
                      "t.ptx:7:14: malformed float constant (0f takes 8 hex digits) '0f3F80'");
  assert_string_equal(parse_err(HDR "#include\n"), "t.ptx:4:1: unexpected character '#'");
  assert_string_equal(parse_err(HDR ".foo\n"), "t.ptx:4:1: expected a directive, found '.foo'");
  /* "\t.reg .b32 %r<2000000>;": the count at column 15 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .b32 %r<2000000>;\n}\n"),
                      "t.ptx:6:15: register range of 2000000 is too large (at most 1048576)");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n$L1:\n$L1:\n\tret;\n}\n"),
                      "t.ptx:7:1: label '$L1' defined twice");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tret;\n}\n.entry k()\n{\n\tret;\n}\n"),
                      "t.ptx:8:8: function 'k' defined twice");
  /* ".global .u32 a[2] = {1, 2, 3};": the third value at column 28 */
  assert_string_equal(parse_err(HDR ".global .u32 a[2] = {1, 2, 3};\n"),
                      "t.ptx:4:28: too many initializers for 'a' (2 elements)");
  assert_string_equal(parse_err(HDR ".global .u32 a;\n.global .u32 a;\n"),
                      "t.ptx:5:14: variable 'a' declared twice");
  assert_string_equal(parse_err(HDR ".section .debug_str\n{\n.b8 1\n"),
                      "t.ptx:4:1: unterminated .section block (no closing '}')");
  /* a NUL inside a string (fuzz_ptx: the printer wrote the string up to the NUL, and the
   * printed module no longer parsed) */
  {
    static const char nul[] = HDR ".entry k()\n{\n\t.pragma \"nounroll\0x\";\n\tret;\n}\n";
    struct ptx_module *m = NULL;
    struct cc_err e = {0};
    assert_int_equal(ptx_parse(nul, sizeof nul - 1, "t.ptx", &m, &e), CC_ERR_INPUT);
    assert_null(m);
    assert_non_null(strstr(e.msg, "t.ptx:6:10: NUL byte inside a string"));
  }
  { /* escaped: "\\\0" (the second fuzz_ptx finding) */
    static const char nul[] = HDR ".entry k()\n{\n\t.pragma \"no\\\0x\";\n\tret;\n}\n";
    struct ptx_module *m = NULL;
    struct cc_err e = {0};
    assert_int_equal(ptx_parse(nul, sizeof nul - 1, "t.ptx", &m, &e), CC_ERR_INPUT);
    assert_null(m);
    assert_non_null(strstr(e.msg, "NUL byte inside a string"));
  }
  /* "\tcall.uni nothere;": the name at column 11 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tcall.uni nothere;\n}\n"),
                      "t.ptx:6:11: undefined function 'nothere'");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .b64 %rd;\n\tmov.u64 %rd, nosuch;\n}\n"),
                      "t.ptx:7:15: undefined symbol 'nosuch'");
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tret;\n"),
                      "t.ptx:7:1: expected an instruction, a declaration or '}', found end of input");
  assert_string_equal(parse_err(HDR ".file 1 \"abc\n"), "t.ptx:4:9: unterminated string '\"abc'");
  assert_string_equal(parse_err(".version 9.0\n.target sm_90\n.address_size 48\n"),
                      "t.ptx:3:15: address size must be 32 or 64");
  /* "\tmov.u32 %r, 99999999999999999999;": the constant at column 14 */
  assert_string_equal(
      parse_err(HDR ".entry k()\n{\n\t.reg .b32 %r;\n\tmov.u32 %r, 99999999999999999999;\n}\n"),
      "t.ptx:7:14: integer constant does not fit in 64 bits '99999999999999999999'");
  /* ".entry k(.param .u64)": .entry 1-6, ' ' 7, k 8, '(' 9, .param 10-15, ' ' 16,
   * .u64 17-20: the ')' where a name must be is at column 21 */
  assert_string_equal(parse_err(HDR ".entry k(.param .u64)\n{\n}\n"),
                      "t.ptx:4:21: expected a variable name, found ')'");
  /* "\tld.global.u32 %r, [%r+];": the ']' at column 24 */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\t.reg .b32 %r;\n\tld.global.u32 %r, [%r+];\n}\n"),
                      "t.ptx:7:24: expected an offset, found ']'");
  /* a long token is cut to 40 bytes in the message */
  assert_string_equal(parse_err(HDR ".entry k()\n{\n\tabcdefghijabcdefghijabcdefghijabcdefghijXYZ;\n}\n"),
                      "t.ptx:6:2: unknown instruction 'abcdefghijabcdefghijabcdefghijabcdefghij...'");
}

/* The rarer error paths: each message and position derived from the text by hand. */
static void test_more_errors(void **state) {
  (void)state;
#define K(body) HDR ".entry k()\n{\n" body "}\n" /* body starts on line 6 */
  /* ".global .b8 huge[4294967296][4];": 2^32 x 4 bytes passes the 4 GiB limit at the
   * second size, column 30 ('[' 17, the first size 18-27, "][" 28-29) */
  assert_string_equal(parse_err(HDR ".global .b8 huge[4294967296][4];\n"),
                      "t.ptx:4:30: array 'huge' is too large");
  /* "\tmov.f64 %fd, 0d3FF0;": tab 1, mov.f64 2-8, ' ' 9, "%fd," 10-13, ' ' 14 */
  assert_string_equal(parse_err(K("\t.reg .f64 %fd;\n\tmov.f64 %fd, 0d3FF0;\n")),
                      "t.ptx:7:15: malformed double constant (0d takes 16 hex digits) '0d3FF0'");
  /* "\tmov.u32 %r, 12ab;": the constant at column 14 */
  assert_string_equal(parse_err(K("\t.reg .b32 %r;\n\tmov.u32 %r, 12ab;\n")),
                      "t.ptx:7:14: malformed integer constant '12ab'");
  assert_string_equal(parse_err(K("\t.reg .f32 %f;\n\tmov.f32 %f, 1.5e;\n")),
                      "t.ptx:7:14: malformed float constant '1.5e'");
  assert_string_equal(parse_err(HDR ".entry k()\nret;\n"),
                      "t.ptx:5:1: expected '{' or ';', found 'ret'");
  /* ".global .align 4 x;": x at column 18 */
  assert_string_equal(parse_err(HDR ".global .align 4 x;\n"),
                      "t.ptx:4:18: expected a type, found 'x'");
  /* ".global .u32 a = -x;": x at column 19 */
  assert_string_equal(parse_err(HDR ".global .u32 a = -x;\n"),
                      "t.ptx:4:19: expected a number, found 'x'");
  assert_string_equal(parse_err(HDR ".global .u32 a = ;\n"),
                      "t.ptx:4:18: expected an initializer value, found ';'");
  /* ".global .u32 a[2] = {1, 2;": the brace is still open at the ';' (column 26) */
  assert_string_equal(parse_err(HDR ".global .u32 a[2] = {1, 2;\n"),
                      "t.ptx:4:26: expected an initializer value, found ';'");
  assert_string_equal(parse_err(K("\t@x bra $L;\n")),
                      "t.ptx:6:3: expected a predicate register, found 'x'");
  /* "\tld.global.u32 %r, [;": tab 1, ld.global.u32 2-14, ' ' 15, "%r," 16-18, ' ' 19,
   * '[' 20: the ';' at column 21 */
  assert_string_equal(parse_err(K("\t.reg .b32 %r;\n\tld.global.u32 %r, [;\n")),
                      "t.ptx:7:21: expected an address, found ';'");
  /* "\ttex.1d.v4.f32.s32 {%f,%f,%f,%f}, [%rd+4, {%r}];": a texture handle takes no
   * offset. tab 1, the opcode (17 bytes) 2-18, ' ' 19, the vector (13 bytes) 20-32,
   * ',' 33, ' ' 34, '[' 35, %rd 36-38, '+' 39, '4' 40: the ',' is at column 41 */
  assert_string_equal(
      parse_err(K("\t.reg .f32 %f;\n\t.reg .b32 %r;\n\t.reg .b64 %rd;\n"
                  "\ttex.1d.v4.f32.s32 {%f,%f,%f,%f}, [%rd+4, {%r}];\n")),
      "t.ptx:9:41: expected ']', found ','");
  assert_string_equal(parse_err(K("\t.reg .foo %r;\n")),
                      "t.ptx:6:7: expected a register type, found '.foo'");
  assert_string_equal(parse_err(HDR ".file 1 abc\n"),
                      "t.ptx:4:9: expected a file name string, found 'abc'");
  assert_string_equal(parse_err(".version ;\n"), "t.ptx:1:10: expected a version number, found ';'");
  /* "\tld.global.u32 %r, [%r+9223372036854775808];": 2^63 at column 24 */
  assert_string_equal(
      parse_err(K("\t.reg .b32 %r;\n\tld.global.u32 %r, [%r+9223372036854775808];\n")),
      "t.ptx:7:24: offset out of range");
  /* 300 operands: more than an instruction can hold (255) */
  char big[4096];
  int n = snprintf(big, sizeof big, HDR ".entry k()\n{\n\tadd.s32 ");
  for (int i = 0; i < 299; i++) n += snprintf(big + n, sizeof big - (size_t)n, "1, ");
  snprintf(big + n, sizeof big - (size_t)n, "1;\n}\n");
  assert_string_equal(parse_err(big), "t.ptx:6:2: too many operands");
  /* a 300-byte register name in a range declaration, at column 12 */
  n = snprintf(big, sizeof big, HDR ".entry k()\n{\n\t.reg .b32 %%");
  for (int i = 0; i < 300; i++) big[n++] = 'a';
  snprintf(big + n, sizeof big - (size_t)n, "<2>;\n}\n");
  assert_string_equal(parse_err(big), "t.ptx:6:12: register name too long");
  /* bounds on memory: an initialized image above 64 MiB (named at the variable, col 13) */
  assert_string_equal(parse_err(HDR ".global .b8 x[100000000] = {1};\n"),
                      "t.ptx:4:13: initialized variable 'x' is too large (100000000 bytes, "
                      "at most 67108864)");
  /* and more than 2^22 registers in one function: five ranges of 2^20 pass 4,194,304
   * in the fifth ("\t.reg .b32 %e<1048576>;" on line 10, the name at column 12) */
  assert_string_equal(parse_err(K("\t.reg .b32 %a<1048576>;\n\t.reg .b32 %b<1048576>;\n"
                                  "\t.reg .b32 %c<1048576>;\n\t.reg .b32 %d<1048576>;\n"
                                  "\t.reg .b32 %e<1048576>;\n")),
                      "t.ptx:10:12: too many registers in function 'k' (at most 4194304)");
  /* a long chain of '|' is parsed by a loop, not by recursion: no stack overflow */
  {
    size_t cap = 64u << 20, len = 0;
    char *chain = malloc(cap);
    len += (size_t)snprintf(chain, cap, HDR ".entry k()\n{\n\t.reg .pred %%p;\n\tsetp.eq.s32 %%p");
    for (int i = 0; i < 1000000; i++) {
      memcpy(chain + len, "|%p", 3);
      len += 3;
    }
    snprintf(chain + len, cap - len, ", 1, 1\n}\n"); /* no ';': an error after the chain */
    /* line 7 is the setp line: 15 bytes before the chain, 3,000,000 in it, then
     * ", 1, 1"; the '}' on line 8 stands where the ';' should */
    assert_string_equal(parse_err(chain), "t.ptx:8:1: expected ';', found '}'");
    free(chain);
  }
#undef K
}

static void test_print_stream_error(void **state) {
  (void)state;
  struct ptx_module *m = parse_ok(scopes_ptx);
  assert_non_null(m);
  FILE *full = fopen("/dev/full", "w"); /* every write fails with ENOSPC */
  if (!full) {
    ptx_module_free(m);
    skip();
  }
  assert_int_equal(ptx_print_module(m, full), -1);
  fclose(full);
  ptx_module_free(m);
}

static void test_parse_file_errors(void **state) {
  (void)state;
  struct cc_err err = {0};
  struct ptx_module *m = (struct ptx_module *)1;
  int rc = ptx_parse_file("/nonexistent/dir/x.ptx", &m, &err);
  assert_int_equal(rc, CC_ERR_INPUT);
  assert_null(m);
  assert_non_null(strstr(err.msg, "/nonexistent/dir/x.ptx"));

  char *dir = scratch_dir();
  assert_non_null(dir);
  char path[4200];
  snprintf(path, sizeof path, "%s/bad.ptx", dir);
  assert_int_equal(write_file(path, HDR ".entry k()\n{\n\tnope;\n}\n"), 0);
  memset(&err, 0, sizeof err);
  rc = ptx_parse_file(path, &m, &err);
  assert_int_equal(rc, CC_ERR_INPUT);
  assert_null(m);
  char want[4400];
  snprintf(want, sizeof want, "%s:6:2: unknown instruction 'nope'", path);
  assert_string_equal(err.msg, want);
  snprintf(path, sizeof path, "%s/good.ptx", dir);
  assert_int_equal(write_file(path, HDR ".entry k()\n{\n\tret;\n}\n"), 0);
  rc = ptx_parse_file(path, &m, &err);
  assert_int_equal(rc, CC_OK);
  assert_string_equal(m->path, path);
  ptx_module_free(m);
  scratch_remove(dir);
  free(dir);
}

/* ---- fuzzing: truncations and mutations of a valid file never crash or leak --------------- */

static void check_no_crash(const char *text, size_t len, size_t *nerr) {
  struct cc_err err = {0};
  struct ptx_module *m = NULL;
  int rc = ptx_parse(text, len, "census.ptx", &m, &err);
  if (rc == CC_OK) {
    assert_non_null(m);
    char *s = print_to_string(m); /* printing whatever parsed must not crash either */
    free(s);
    ptx_module_free(m);
  } else {
    assert_int_equal(rc, CC_ERR_INPUT);
    assert_null(m);
    assert_int_equal(strncmp(err.msg, "census.ptx:", 11), 0);
    (*nerr)++;
  }
}

static void test_fuzz(void **state) {
  (void)state;
  char *text;
  size_t len;
  struct cc_err err = {0};
  int rc = cc_file_read(CC_SOURCE_DIR "/tests/ptx/data/census.ptx", &text, &len, &err);
  assert_int_equal(rc, CC_OK);
  size_t nerr = 0, ncuts = 0;
  /* every cut inside the text: a truncated kernel is an error, never a crash */
  for (size_t cut = 0; cut < len; cut += 3, ncuts++) check_no_crash(text, cut, &nerr);
  /* the cuts before the closing '}' of the last block are errors: at least the cuts
   * inside function bodies, which are most of the file */
  assert_true(nerr > ncuts / 2);
  /* byte mutations at pseudo-random places (fixed LCG seed) */
  static const char evil[] = "{}[];,%.@!|<>-0fx\"/*\n \t_$:=()";
  char *copy = malloc(len);
  uint32_t seed = 12345;
  for (int i = 0; i < 3000; i++) {
    memcpy(copy, text, len);
    for (int k = 0; k < 3; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t pos = (seed >> 8) % len;
      seed = seed * 1103515245u + 12345u;
      copy[pos] = (seed >> 8) % 7 == 0 ? '\0' : evil[(seed >> 8) % (sizeof evil - 1)];
    }
    check_no_crash(copy, len, &nerr);
  }
  free(copy);
  free(text);
}

/* ---- speed ------------------------------------------------------------------------ */

static void test_speed(void **state) {
  (void)state;
  /* 20,000 instructions: 5,000 blocks of a label and 4 instructions */
  size_t cap = 4u << 20, n = 0;
  char *text = malloc(cap);
  n += (size_t)snprintf(text + n, cap - n,
                        HDR ".visible .entry big(.param .u64 p)\n{\n"
                            "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<100>;\n\t.reg .f32 %%f<100>;\n"
                            "\t.reg .b64 %%rd<100>;\n");
  for (int i = 0; i < 5000; i++)
    n += (size_t)snprintf(text + n, cap - n,
                          "$L__BB0_%d:\n\t.loc\t1 %d 3\n"
                          "\tld.global.nc.f32 \t%%f%d, [%%rd%d+%d];\n"
                          "\tfma.rn.f32 \t%%f%d, %%f%d, 0f3F800000, %%f%d;\n"
                          "\tsetp.lt.s32 %%p1, %%r%d, %%r%d;\n"
                          "\t@%%p1 bra \t$L__BB0_%d;\n",
                          i, i + 1, i % 100, i % 100, 4 * (i % 64), (i + 1) % 100, i % 100,
                          (i + 2) % 100, i % 100, (i + 3) % 100, (i + 1) % 5000);
  n += (size_t)snprintf(text + n, cap - n, "\tret;\n}\n");
  struct timespec t0, t1;
  struct cc_err err = {0};
  struct ptx_module *m = NULL;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = ptx_parse(text, n, "big.ptx", &m, &err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_int_equal(rc, CC_OK);
  assert_int_equal(m->funcs[0].ninsns, 20001);
  assert_int_equal(m->funcs[0].nlabels, 5000);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  printf("parsed 20,001 instructions in %.1f ms\n", ms);
  /* Not a speed target (those live in bench/, where the machine is quiet): a bound that
   * only a parser quadratic in the input would break, under sanitizers and on a loaded
   * CI machine alike (it takes 50-80 ms in a plain build, alone). */
  assert_true(ms < 10000.0);
  ptx_module_free(m);
  free(text);
}

/* ---- tables ------------------------------------------------------------------------- */

static void test_tables(void **state) {
  (void)state;
  assert_int_equal(ptx_op_lookup("ld", 2), PTX_OP_LD);
  assert_int_equal(ptx_op_lookup("tanh", 4), PTX_OP_TANH);
  assert_int_equal(ptx_op_lookup("ldx", 3), PTX_OP_COUNT);
  assert_string_equal(ptx_op_info(PTX_OP_SHFL)->name, "shfl");
  for (int i = 0; i < PTX_OP_COUNT; i++) {
    const struct ptx_op_info *info = ptx_op_info((enum ptx_opcode)i);
    assert_non_null(info->name);
    assert_non_null(info->shape);
    assert_true(strlen(info->semantics) > 0);
    /* every row can be found by its name, and names are unique */
    assert_int_equal(ptx_op_lookup(info->name, strlen(info->name)), i);
  }
  assert_int_equal(ptx_type_size(PTX_TYPE_F16X2), 4);
  assert_int_equal(ptx_type_size(PTX_TYPE_PRED), 0);
  assert_int_equal(ptx_type_size(PTX_TYPE_B128), 16);
  assert_string_equal(ptx_type_name(PTX_TYPE_BF16X2), "bf16x2");
  assert_true(ptx_type_is_float(PTX_TYPE_BF16));
  assert_false(ptx_type_is_float(PTX_TYPE_F16X2));
  assert_true(ptx_type_is_signed(PTX_TYPE_S8));
  assert_false(ptx_type_is_signed(PTX_TYPE_U64));
  assert_string_equal(ptx_space_name(PTX_SPACE_GENERIC), "");
  assert_string_equal(ptx_space_name(PTX_SPACE_SHARED), "shared");
  assert_string_equal(ptx_sreg_name(PTX_SREG_DYNAMIC_SMEM_SIZE), "%dynamic_smem_size");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_memory),
      cmocka_unit_test(test_decode_convert_compare),
      cmocka_unit_test(test_decode_arith),
      cmocka_unit_test(test_decode_warp_atomic_tex),
      cmocka_unit_test(test_operands),
      cmocka_unit_test(test_scoped_registers),
      cmocka_unit_test(test_calls),
      cmocka_unit_test(test_indirect_call),
      cmocka_unit_test(test_inline_asm_names),
      cmocka_unit_test(test_vector_registers),
      cmocka_unit_test(test_variables),
      cmocka_unit_test(test_line_table),
      cmocka_unit_test(test_line_zero),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_more_errors),
      cmocka_unit_test(test_print_stream_error),
      cmocka_unit_test(test_parse_file_errors),
      cmocka_unit_test(test_fuzz),
      cmocka_unit_test(test_speed),
      cmocka_unit_test(test_tables),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
