/* One stream, three analyses (analysis/multi.h). Figures derived by hand from the model
 * rules (src/model/global_*.c, shared_*.c). Records, B = 0x1000:
 *  slot 0, ld.global.f32: lane i at B + 8 i (stride 2 words), bytes B..B+251:
 *    cc1.0: out of sequence -> per half-warp 16 x 32 bytes: 2 requests, 32 transactions,
 *      1024 bytes. cc2.0 (L1): lines B, B+128: 1 request, 2 transactions, 256 bytes.
 *    sm_90: 4 lanes per sector: 8 sectors, 1 request, 256 bytes.
 *  slot 1, ld.shared.f32: lane i at 8 i (words 2i):
 *    cc1.0 (16 banks): half-warp words 0,2,..,30: banks 0..14 even, 2 words each ->
 *      2 steps per half-warp: 2 requests, 2 ways, 4 wavefronts, ideal 2.
 *    cc2.0 and sm_90 (32 banks): words 0..62 even, banks 0..30 even twice -> 1 request,
 *      2 ways, 2 wavefronts, ideal 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/multi.h"

static const struct cc_insn_info insns[2] = {
  { .id = 3, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4,
    .text = "ld.global.f32 %f1, [%rd1];" },
  { .id = 7, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4,
    .text = "ld.shared.f32 %f2, [%r1];" },
};

static struct cc_warp_access record(uint32_t slot)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot;
  a.kind = CC_ACCESS_LOAD;
  a.space = insns[slot].space;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  for (uint64_t i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = (slot == 0 ? 0x1000u : 0u) + 8 * i;
  return a;
}

static const struct cc_insn_stats *stats(const struct cc_analysis *an, uint32_t slot)
{
  const struct cc_kernel_stats *k = &an->kernels[0];
  return &k->insns[k->by_slot[slot]];
}

static void test_three_models(void **state)
{
  (void)state;
  struct cc_analysis_multi *mu = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_analysis_multi_new("cc1.0,cc2.0,sm_90", NULL, &mu, &err), CC_OK);
  assert_int_equal(cc_analysis_multi_count(mu), 3);
  struct cc_access_sink s = cc_analysis_multi_sink(mu);
  struct cc_kernel_info k = { .name = "k", .mangled = "_Z1kv", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 2, .insns = insns };
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t slot = 0; slot < 2; slot++) {
    struct cc_warp_access a = record(slot);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);

  const struct cc_analysis *const *an = cc_analysis_multi_results(mu);
  struct { const char *arch; uint32_t w; uint64_t req, trans, bytes, sreq, ways, wf, ideal; }
  want[3] = {
    { "cc1.0", 16, 2, 32, 1024, 2, 2, 4, 2 },
    { "cc2.0", 32, 1, 2, 256, 1, 2, 2, 1 },
    { "sm_90", 32, 1, 8, 256, 1, 2, 2, 1 },
  };
  for (size_t m = 0; m < 3; m++) {
    assert_string_equal(cc_model_name(an[m]->model), want[m].arch);
    assert_int_equal(an[m]->group_lanes, want[m].w);
    assert_int_equal(an[m]->n_kernels, 1);
    const struct cc_insn_stats *g = stats(an[m], 0), *sh = stats(an[m], 1);
    assert_int_equal(g->executions, 1);
    assert_int_equal(g->requests, want[m].req);
    assert_int_equal(g->transactions, want[m].trans);
    assert_int_equal(g->bytes_transferred, want[m].bytes);
    assert_int_equal(g->sectors, 8); /* geometry: the same under every model */
    assert_int_equal(sh->requests, want[m].sreq);
    assert_int_equal(sh->ways_max, want[m].ways);
    assert_int_equal(sh->wavefronts, want[m].wf);
    assert_int_equal(sh->ideal_wavefronts, want[m].ideal);
  }
  cc_analysis_multi_free(mu);
}

/* a bad record stops the fan-out with the first analysis's error */
static void test_sink_error(void **state)
{
  (void)state;
  struct cc_analysis_multi *mu = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_analysis_multi_new("cc1.2,sm_90", NULL, &mu, &err), CC_OK);
  struct cc_access_sink s = cc_analysis_multi_sink(mu);
  struct cc_kernel_info k = { .name = "k", .mangled = "_Z1kv", .n_insns = 2, .insns = insns };
  struct cc_warp_access a = record(0);
  a.insn_slot = 9;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "instruction slot 9"));
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  cc_analysis_multi_free(mu);
  cc_analysis_multi_free(NULL);
}

static void test_bad_list(void **state)
{
  (void)state;
  struct cc_analysis_multi *mu = (struct cc_analysis_multi *)1;
  struct cc_err err = { 0 };
  assert_int_equal(cc_analysis_multi_new("cc1.0,cc1.0", NULL, &mu, &err), CC_ERR_USAGE);
  assert_null(mu);
  assert_non_null(strstr(err.msg, "named twice"));
  struct cc_model_opts o = { .smem_bank_width = 8 };
  assert_int_equal(cc_analysis_multi_new("cc3.5,cc2.0", &o, &mu, &err), CC_ERR_USAGE);
  assert_null(mu);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_three_models),
    cmocka_unit_test(test_sink_error),
    cmocka_unit_test(test_bad_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
