/* The advice with static address forms (cc_analysis_set_forms): hand-built streams of one
 * uncoalesced record per instruction (lanes `stride` bytes apart, 4-byte accesses, sm_90)
 * and hand-written forms; each expected advice is derived from analysis.h's rules in the
 * comment above its check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/analysis.h"

#define MAX_INSNS 4

struct run {
  struct cc_model *m;
  struct cc_analysis *an;
};

/* One kernel with block dims `block` and instructions insns[0..n), instruction i executed
 * once by warp 0 of CTA 0 with all lanes, lane l at 0x100000 * (i + 1) + strides[i] * l. */
static struct run run_kernel(const uint32_t block[3], const struct cc_insn_info *insns,
                             uint32_t n, const uint64_t *strides)
{
  struct run r;
  struct cc_err err = {0};
  struct cc_kernel_info k = {.name = "k", .mangled = "_Z1kv", .grid = {1, 1, 1},
                             .n_insns = n, .insns = insns};
  struct cc_access_sink sink;
  struct cc_warp_access a;
  memcpy(k.block, block, sizeof k.block);
  assert_int_equal(cc_model_get("sm_90", NULL, &r.m, &err), CC_OK);
  r.an = cc_analysis_new(r.m);
  sink = cc_analysis_sink(r.an);
  assert_int_equal(sink.begin_kernel(sink.ctx, &k, &err), CC_OK);
  for (uint32_t i = 0; i < n; i++) {
    memset(&a, 0, sizeof a);
    a.insn_slot = i;
    a.kind = insns[i].kind;
    a.space = insns[i].space;
    a.size_bytes = 4;
    a.active = 0xffffffffu;
    for (uint32_t l = 0; l < 32; l++)
      a.addr[l] = 0x100000ull * (i + 1) + strides[i] * l;
    assert_int_equal(sink.access(sink.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(sink.end_kernel(sink.ctx, &err), CC_OK);
  return r;
}

static void run_free(struct run *r)
{
  cc_analysis_free(r->an);
  cc_model_free(r->m);
}

static const struct cc_insn_stats *insn(const struct run *r, uint32_t id)
{
  const struct cc_kernel_stats *k = &r->an->kernels[0];
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.id == id)
      return &k->insns[i];
  fail_msg("no instruction %u", id);
  return NULL;
}

/* The text of s's suggestion of kind, or NULL. */
static const char *advice(const struct cc_insn_stats *s, enum cc_suggestion_kind kind)
{
  for (size_t j = 0; j < s->n_suggestions; j++)
    if (s->suggestions[j].kind == kind)
      return s->suggestions[j].text;
  return NULL;
}

static void expect_advice(const struct cc_insn_stats *s, enum cc_suggestion_kind kind,
                          const char *part)
{
  const char *t = advice(s, kind);
  if (!t || !strstr(t, part))
    fail_msg("'%s' advice should say '%s'; it is '%s'", cc_suggestion_kind_name(kind), part,
             t ? t : "(none)");
}

static void expect_no_advice(const struct cc_insn_stats *s, enum cc_suggestion_kind kind)
{
  const char *t = advice(s, kind);
  if (t)
    fail_msg("unexpected '%s' advice: %s", cc_suggestion_kind_name(kind), t);
}

static struct cc_addr_form affine(uint32_t id, int64_t x, int64_t y, int64_t z)
{
  struct cc_addr_form f;
  memset(&f, 0, sizeof f);
  f.id = id;
  f.status = CC_ADDR_AFFINE;
  f.kind = "affine";
  f.text = "a + ...";
  f.tid[0] = (struct cc_addr_stride){1, x};
  f.tid[1] = (struct cc_addr_stride){1, y};
  f.tid[2] = (struct cc_addr_stride){1, z};
  return f;
}

static void set_forms(struct run *r, const struct cc_addr_form *f, size_t n, uint32_t warp_line)
{
  struct cc_err err = {0};
  struct cc_kernel_forms kf = {f, n, warp_line, warp_line ? "shfl.sync.bfly.b32" : NULL,
                               "coalcheck fix --launch k.launch -o DIR"};
  assert_int_equal(cc_analysis_set_forms(r->an, &kf, &err), CC_OK);
}

static const struct cc_insn_info ld = {.id = 7, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL,
                                       .size_bytes = 4, .text = "ld.global.f32 %f1, [%rd4];",
                                       .file = "k.cu", .line = 21};
static const struct cc_insn_info st = {.id = 9, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL,
                                       .size_bytes = 4, .text = "st.global.f32 [%rd8], %f1;",
                                       .file = "k.cu", .line = 22};

/* 3D, fastest index on threadIdx.z: strides x 16384, y 256, z 4 (cell3d's evolve_zfast). */
static void test_swap_x_and_z(void **state)
{
  const uint32_t block[3] = {32, 4, 2};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){16384});
  struct cc_addr_form f = affine(7, 16384, 256, 4);
  (void)state;
  /* before the forms: the dynamic advice; one record, footprint gaps of 16384 bytes:
   * "cannot be all coalesced" */
  expect_advice(insn(&r, 7), CC_SUGGEST_NONE, "cannot be all coalesced");
  set_forms(&r, &f, 1, 0);
  /* z is the only unit dimension (|4| <= 4; 256 > 4), and the block spans it (2); the
   * form decides, whatever one record's footprint says */
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY, "swap threadIdx.x and threadIdx.z");
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY,
                "run `coalcheck fix --launch k.launch -o DIR` to apply");
  /* a load: the shared-memory alternative too */
  expect_advice(insn(&r, 7), CC_SUGGEST_SHARED_MEMORY, "stage through shared memory");
  assert_string_equal(insn(&r, 7)->addr.kind, "affine");
  assert_int_equal(cc_analysis_addr_class(insn(&r, 7), 0), CC_ADDR_LARGE);
  assert_int_equal(cc_analysis_addr_class(insn(&r, 7), 1), CC_ADDR_LARGE);
  assert_int_equal(cc_analysis_addr_class(insn(&r, 7), 2), CC_ADDR_UNIT);
  run_free(&r);
}

/* The same strides with blockDim.z = 1: no thread spans z, so no permutation can give
 * threadIdx.x its lanes; y is large: no swap; no loop: the dynamic "none" (one record,
 * footprint gaps 16384). */
static void test_no_swap_with_a_dimension_of_extent_one(void **state)
{
  const uint32_t block[3] = {32, 8, 1};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){16384});
  struct cc_addr_form f = affine(7, 16384, 256, 4);
  (void)state;
  set_forms(&r, &f, 1, 0);
  expect_no_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY);
  expect_advice(insn(&r, 7), CC_SUGGEST_NONE, "cannot be all coalesced");
  run_free(&r);
}

/* x large, y zero (a column read m[row][t] in 16 x 16 blocks): swapping gives the lanes
 * of a warp one element. */
static void test_swap_with_zero(void **state)
{
  const uint32_t block[3] = {16, 16, 1};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){2048});
  struct cc_addr_form f = affine(7, 2048, 0, 0);
  (void)state;
  set_forms(&r, &f, 1, 0);
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY, "swap threadIdx.x and threadIdx.y");
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY, "read one element");
  run_free(&r);
}

/* The naive transpose: the store wants x and y swapped (x 4096, y 4), the load has them
 * right (x 4, y 4096): the swap would uncoalesce the load, so tiling, not a swap. */
static void test_swap_that_breaks_another(void **state)
{
  const uint32_t block[3] = {32, 8, 1};
  const struct cc_insn_info insns[2] = {ld, st};
  struct run r = run_kernel(block, insns, 2, (const uint64_t[]){4, 4096});
  struct cc_addr_form f[2] = {affine(7, 4, 4096, 0), affine(9, 4096, 4, 0)};
  (void)state;
  set_forms(&r, f, 2, 0);
  expect_no_advice(insn(&r, 9), CC_SUGGEST_THREAD_GEOMETRY);
  expect_advice(insn(&r, 9), CC_SUGGEST_SHARED_MEMORY, "uncoalesce the load at line 21");
  /* the load is coalesced: no advice */
  assert_int_equal(insn(&r, 7)->n_suggestions, 0);
  run_free(&r);
}

/* A gemv row walk: x 4096, no other dimension, loop L0 of line 26 moves it 4 bytes: the
 * loop transformations, not a swap. */
static void test_loop_walk(void **state)
{
  const uint32_t block[3] = {256, 1, 1};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){4096});
  struct cc_addr_form f = affine(7, 4096, 0, 0);
  (void)state;
  f.nloops = 1;
  f.loops[0] = (struct cc_addr_loop){0, 26, {1, 4}};
  set_forms(&r, &f, 1, 0);
  expect_no_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY);
  expect_advice(insn(&r, 7), CC_SUGGEST_LOOP, "the loop at line 26 moves the address 4 bytes");
  expect_advice(insn(&r, 7), CC_SUGGEST_LOOP, "no permutation of threadIdx helps");
  /* a loop that moves it more than the access size per instruction of the reference
   * (here 1) does not walk it contiguously: the dynamic "none" */
  f.loops[0].stride.bytes = 64;
  set_forms(&r, &f, 1, 0);
  expect_no_advice(insn(&r, 7), CC_SUGGEST_LOOP);
  expect_advice(insn(&r, 7), CC_SUGGEST_NONE, "cannot be all coalesced");
  run_free(&r);
}

/* Warp-level code in the kernel: the permutation is still named, but to apply by hand. */
static void test_warp_dependent_kernel(void **state)
{
  const uint32_t block[3] = {32, 4, 2};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){16384});
  struct cc_addr_form f = affine(7, 16384, 256, 4);
  (void)state;
  set_forms(&r, &f, 1, 67);
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY, "swap threadIdx.x and threadIdx.z");
  expect_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY,
                "uses shfl.sync.bfly.b32 (PTX line 67)");
  if (strstr(advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY), "coalcheck fix"))
    fail_msg("a warp-dependent kernel is sent to coalcheck fix");
  run_free(&r);
}

/* A data-dependent atomic (a histogram's bins[data[i]]): privatise in shared memory. */
static void test_indirect_atomic(void **state)
{
  const uint32_t block[3] = {256, 1, 1};
  const struct cc_insn_info atom = {.id = 16, .kind = CC_ACCESS_ATOMIC,
                                    .space = CC_SPACE_GLOBAL, .size_bytes = 4,
                                    .text = "atom.global.add.u32 %r7, [%rd8], 1;"};
  struct run r = run_kernel(block, &atom, 1, (const uint64_t[]){296});
  struct cc_addr_form f;
  (void)state;
  memset(&f, 0, sizeof f);
  f.id = 16;
  f.status = CC_ADDR_NOT_AFFINE;
  f.kind = "indirect";
  f.text = "the address depends on a value loaded at PTX line 45 (ld.global.u8)";
  f.why_line = 45;
  set_forms(&r, &f, 1, 0);
  expect_no_advice(insn(&r, 16), CC_SUGGEST_THREAD_GEOMETRY);
  expect_advice(insn(&r, 16), CC_SUGGEST_SHARED_MEMORY, "privatisation");
  assert_int_equal(insn(&r, 16)->addr.why_line, 45);
  assert_int_equal(cc_analysis_addr_class(insn(&r, 16), 0), CC_ADDR_UNKNOWN);
  run_free(&r);
}

/* Forms go to the instruction with their id and PTX text; another text is another
 * function's instruction with the same index: not attached. No kernel: an error. */
static void test_matching_and_errors(void **state)
{
  const uint32_t block[3] = {32, 4, 2};
  struct run r = run_kernel(block, &ld, 1, (const uint64_t[]){16384});
  struct cc_addr_form f = affine(7, 16384, 256, 4);
  struct cc_analysis *empty = cc_analysis_new(r.m);
  struct cc_kernel_forms kf = {&f, 1, 0, NULL, NULL};
  struct cc_err err = {0};
  (void)state;
  f.ptx = "ld.global.f32 %f9, [%rd9];";
  set_forms(&r, &f, 1, 0);
  assert_int_equal(insn(&r, 7)->addr.status, CC_ADDR_NONE);
  expect_no_advice(insn(&r, 7), CC_SUGGEST_THREAD_GEOMETRY);
  f.ptx = ld.text;
  set_forms(&r, &f, 1, 0);
  assert_int_equal(insn(&r, 7)->addr.status, CC_ADDR_AFFINE);
  assert_null(insn(&r, 7)->addr.ptx);
  assert_int_equal(cc_analysis_set_forms(empty, &kf, &err), CC_ERR_INTERNAL);
  cc_analysis_free(empty);
  run_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_swap_x_and_z),
      cmocka_unit_test(test_no_swap_with_a_dimension_of_extent_one),
      cmocka_unit_test(test_swap_with_zero),
      cmocka_unit_test(test_swap_that_breaks_another),
      cmocka_unit_test(test_loop_walk),
      cmocka_unit_test(test_warp_dependent_kernel),
      cmocka_unit_test(test_indirect_atomic),
      cmocka_unit_test(test_matching_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
