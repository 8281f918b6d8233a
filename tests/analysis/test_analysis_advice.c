/* Report correctness of the analysis (issue 13): the efficiency of lanes that share
 * bytes, the bank-conflict advice for static shared arrays, and the figures of imported
 * (GPU) kernels that the sums do not fix. Every expected figure is derived by hand in the
 * comment above its check (sector = 32 bytes; shared memory: 32 banks of 4-byte words). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "analysis/analysis.h"

static struct cc_model *model(const char *arch)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get(arch, NULL, &m, &err), CC_OK);
  return m;
}

/* Runs one kernel of one instruction over n records (addr[r][lane], all lanes active)
 * and returns the analysis; vars: the kernel's .shared variables (may be NULL). */
static struct cc_analysis *run(const struct cc_model *m, const struct cc_insn_info *insn,
                               const uint64_t (*addr)[32], size_t n,
                               const struct cc_shared_var *vars, uint32_t n_vars)
{
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_access_sink s = cc_analysis_sink(an);
  struct cc_kernel_info k = { .name = "k", .mangled = "k", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1, .insns = insn,
                              .n_shared_vars = n_vars, .shared_vars = vars };
  struct cc_err err = { 0 };
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = insn->kind, a.space = insn->space, a.size_bytes = insn->size_bytes;
  a.active = 0xffffffffu;
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (size_t r = 0; r < n; r++) {
    memcpy(a.addr, addr[r], sizeof a.addr);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  return an;
}

static const struct cc_insn_info ld_f32 = { .id = 3, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_GLOBAL, .size_bytes = 4,
                                            .text = "ld.global.f32 %f1, [%rd4];" };

/* x[j] in a gemv: all 32 lanes read one float. sm_90: 1 sector (32 bytes moved), 128
 * bytes requested, 4 distinct: efficiency 4 / 32 = 12.5% (bytes requested / moved would
 * say 128 / 32 = 400%). Two records: the same per record, 8 / 64. Half and half (lanes
 * 0-15 on x[0], 16-31 on x[1]): 8 distinct bytes of one sector, 8 / 32 = 25%. cc1.2
 * (segment protocol, half-warps), all on x[0]: each half-warp's one word shrinks to one
 * 32-byte segment, 2 requests, 64 bytes moved for the warp's 4 distinct bytes (the byte
 * geometry is the warp's under every model): 4 / 64. */
static void test_broadcast_efficiency(void **state)
{
  uint64_t addr[2][32];
  struct cc_model *m = model("sm_90"), *m12 = model("cc1.2");
  struct cc_analysis *an;
  const struct cc_insn_stats *s;
  (void)state;
  for (int l = 0; l < 32; l++)
    addr[0][l] = addr[1][l] = 0x1000;
  an = run(m, &ld_f32, addr, 2, NULL, 0);
  s = &an->kernels[0].insns[0];
  assert_int_equal(s->bytes_requested, 256);
  assert_int_equal(s->unique_bytes, 8);
  assert_int_equal(s->bytes_transferred, 64);
  assert_true(cc_analysis_efficiency(s) == 0.125);
  assert_int_equal(an->kernels[0].totals.unique_bytes, 8);
  assert_true(cc_analysis_totals_efficiency(&an->kernels[0].totals) == 0.125);
  cc_analysis_free(an);
  for (int l = 16; l < 32; l++)
    addr[0][l] = 0x1004;
  an = run(m, &ld_f32, addr, 1, NULL, 0);
  s = &an->kernels[0].insns[0];
  assert_int_equal(s->unique_bytes, 8);
  assert_true(cc_analysis_efficiency(s) == 0.25);
  cc_analysis_free(an);
  an = run(m12, &ld_f32, addr + 1, 1, NULL, 0);
  s = &an->kernels[0].insns[0];
  assert_int_equal(s->requests, 2);
  assert_int_equal(s->bytes_transferred, 64);
  assert_int_equal(s->unique_bytes, 4);
  assert_true(cc_analysis_efficiency(s) == 4.0 / 64.0);
  cc_analysis_free(an);
  cc_model_free(m12);
  cc_model_free(m);
}

/* Shared memory: the first advice text of the only instruction. */
static const char *advice(const struct cc_analysis *an)
{
  const struct cc_insn_stats *s = &an->kernels[0].insns[0];
  assert_int_equal(s->n_suggestions, 1);
  assert_int_equal(s->suggestions[0].kind, CC_SUGGEST_LAYOUT);
  return s->suggestions[0].text;
}

/* Lane l at base + l x stride: a warp walking a column of rows `stride` bytes long. */
static void column(uint64_t addr[32], uint64_t base, uint64_t stride)
{
  for (int l = 0; l < 32; l++)
    addr[l] = base + (uint64_t)l * stride;
}

static uint32_t ways_of(const struct cc_model *m, const struct cc_insn_info *insn,
                        const uint64_t (*addr)[32])
{
  struct cc_analysis *an = run(m, insn, addr, 1, NULL, 0);
  uint32_t ways = an->kernels[0].insns[0].ways_max;
  cc_analysis_free(an);
  return ways;
}

/* Reads down a column of rows `pitch` bytes long from base (one record): expects `ways`
 * and an advice holding each of the 3 phrases; then the padded pitch (pitch + pad) is
 * conflict-free under the model. */
static void check_padding(const struct cc_model *m, const struct cc_insn_info *insn,
                          const struct cc_shared_var *vars, uint32_t n_vars, uint64_t base,
                          uint64_t pitch, uint64_t pad, uint32_t ways,
                          const char *const phrases[3])
{
  uint64_t addr[1][32];
  struct cc_analysis *an;
  column(addr[0], base, pitch);
  an = run(m, insn, addr, 1, vars, n_vars);
  assert_int_equal(an->kernels[0].insns[0].ways_max, ways);
  for (int i = 0; i < 3; i++)
    if (!strstr(advice(an), phrases[i]))
      fail_msg("no '%s' in: %s", phrases[i], advice(an));
  cc_analysis_free(an);
  column(addr[0], base, pitch + pad);
  assert_int_equal(ways_of(m, insn, addr), 1);
}

/* __shared__ float tile[32][32] (the PTX's _ZZ15transpose_tiledPfPKfiE4tile, 4096 bytes
 * at offset 256 after another array) read down a column: lanes 128 bytes = 32 words
 * apart, all in one bank: 32 ways. Rows of 32 words, even: pad by one float, the array
 * has 4096 / 128 = 32 rows: "declare tile[32][33] instead of tile[32][32]". The claim
 * checked with the model: lanes 132 bytes apart are conflict-free (ways 1).
 * __shared__ double d[32][16] (4096 bytes, offset 4352) down a column: lanes 128 bytes =
 * 16 doubles apart; 8-byte accesses go in 2 phases of 16 lanes, lane l at 8-byte unit
 * 16 l: 16 ways. u = 8, 128 / 8 = 16 even: pad by one double (8 bytes), 4096 / 128 = 32
 * rows: d[32][17]; lanes 136 bytes apart: units 17 l, distinct mod 16: ways 1. */
static void test_shared_padding_named(void **state)
{
  static const struct cc_insn_info ld_sh = { .id = 7, .kind = CC_ACCESS_LOAD,
                                             .space = CC_SPACE_SHARED, .size_bytes = 4,
                                             .text = "ld.shared.f32 %f5, [%r22];" };
  static const struct cc_insn_info ld_d = { .id = 8, .kind = CC_ACCESS_LOAD,
                                            .space = CC_SPACE_SHARED, .size_bytes = 8,
                                            .text = "ld.shared.f64 %fd1, [%r9];" };
  static const struct cc_shared_var vars[] = {
    { "_ZZ15transpose_tiledPfPKfiE5other", 0, 256 },
    { "_ZZ15transpose_tiledPfPKfiE4tile", 256, 4096 },
    { "d", 4352, 4096 },
  };
  static const char *const tile[3] = { "32-way bank conflict: lanes of a warp are 128 bytes "
                                       "(32 floats) apart, down a column of 'tile'",
                                       "pad each row by 1 float (4 bytes)",
                                       "declare tile[32][33] instead of tile[32][32]" };
  static const char *const d[3] = { "column of 'd' whose rows are 16 doubles long",
                                    "pad each row by 1 double (8 bytes)",
                                    "declare d[32][17] instead of d[32][16]" };
  struct cc_model *m = model("sm_90");
  (void)state;
  check_padding(m, &ld_sh, vars, 3, 256 + 4, 128, 4, 32, tile); /* tile[l][1] */
  check_padding(m, &ld_d, vars, 3, 4352, 128, 8, 16, d);        /* d[l][0] */
  cc_model_free(m);
}

/* Names of static shared arrays as nvcc writes them in PTX: a function's static
 * (_ZZ<function>E<name>, "_0" for a second one of that name), a namespace member
 * (_ZN<ns><name>E), a template function's static, a plain C name; and no table (a
 * replayed trace): "the shared array", no declaration. Each: tile[32][32] read down a
 * column, as above. */
static void test_shared_var_names(void **state)
{
  static const struct cc_insn_info ld_sh = { .id = 7, .kind = CC_ACCESS_LOAD,
                                             .space = CC_SPACE_SHARED, .size_bytes = 4,
                                             .text = "ld.shared.f32 %f5, [%r22];" };
  static const char *const names[][2] = {
    { "_ZZ4funcvE4tile_0", "'tile'" },
    { "_ZN2ns5tilesE", "'tiles'" },
    { "_ZZ9transposeILi32EEvPfE2sm", "'sm'" },
    { "smem", "'smem'" },
  };
  uint64_t addr[1][32];
  struct cc_model *m = model("sm_90");
  (void)state;
  column(addr[0], 0, 128);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    struct cc_shared_var v = { names[i][0], 0, 4096 };
    struct cc_analysis *an = run(m, &ld_sh, addr, 1, &v, 1);
    const char *text = advice(an);
    if (!strstr(text, names[i][1]))
      fail_msg("%s: no %s in: %s", names[i][0], names[i][1], text);
    cc_analysis_free(an);
  }
  struct cc_analysis *an = run(m, &ld_sh, addr, 1, NULL, 0);
  assert_non_null(strstr(advice(an), "column of the shared array whose rows are 32 floats"));
  assert_null(strstr(advice(an), "declare"));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* A histogram's shared bins, atomicAdd(&bins[data[i]], 1): lane l < 16 hits bin b(l) =
 * (37 l) % 64 (0, 37, 10, 47, 20, ...), lane l + 16 bin b(l) + 64 (256 bins, 1024 bytes):
 * no one stride between lanes (37 x 4 bytes, then back). Bank of bin b: b % 32; the 16
 * banks of b(0..15) are distinct (0, 5, 10, 15, 20, ...) and lane l + 16 meets lane l in
 * its bank at another word: 2 ways. The conflict comes from the data: the advice says
 * so and proposes no declaration. */
static void test_shared_data_dependent(void **state)
{
  static const struct cc_insn_info atom = { .id = 11, .kind = CC_ACCESS_ATOMIC,
                                            .space = CC_SPACE_SHARED, .size_bytes = 4,
                                            .text = "atom.shared.add.u32 %r13, [%r12], 1;" };
  static const struct cc_shared_var bins = { "_ZZ16histogram_sharedPjPKhiE4bins", 0, 1024 };
  uint64_t addr[1][32];
  struct cc_model *m = model("sm_90");
  struct cc_analysis *an;
  const char *text;
  (void)state;
  for (int l = 0; l < 32; l++)
    addr[0][l] = 4u * ((uint64_t)((l % 16) * 37 % 64) + (l >= 16 ? 64u : 0u));
  an = run(m, &atom, addr, 1, &bins, 1);
  assert_int_equal(an->kernels[0].insns[0].ways_max, 2);
  assert_int_equal(an->kernels[0].insns[0].lane_stride, CC_LANE_STRIDE_MIXED);
  text = advice(an);
  assert_non_null(strstr(text, "bank conflict in 'bins'"));
  assert_non_null(strstr(text, "no single stride"));
  assert_non_null(strstr(text, "padding rows does not remove conflicts that depend on the data"));
  assert_null(strstr(text, "declare"));
  assert_null(strstr(text, "[32][33]"));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Imported kernels (the GPU backend's sums): what the sums fix is derived, the rest is
 * flagged unknown, never 0.
 *  A: LDG, 4 executions of 32 lanes, bytes 512, 16 sectors (4 per request), ideal 16,
 *     strides 4..4: no lanes share bytes (min 4 >= 4): unique 512; 16 sectors = neither
 *     4 x 1 nor 4 x 32: histogram unknown; stride max 4 <= 4: 0 uncoalesced.
 *  B: STG, 4 x 32 lanes, 128 sectors = 32 x 4: every request 32 sectors (hist[32] = 4);
 *     min stride 4096 > 4 in full warps: 4 requests, 128 thread accesses uncoalesced.
 *  C: LDG broadcast, 3 executions of 32 lanes, 3 sectors (1 each: hist[1] = 3), strides
 *     0..0: every lane on one address, 4 bytes per request: unique 12; efficiency 12 /
 *     96 = 1/8.
 *  D: LDG, 2 executions, 40 lanes (partial warps), 10 sectors, ideal 4, strides 0..128:
 *     lanes share some bytes (min 0 < 4) but not all (max > 0): unique unknown, so the
 *     efficiency; histogram unknown (10 is neither 2 nor 64 and 2 > 1 executions); max
 *     128 > 4 but min 0: uncoalesced unknown.
 *  E: LDS, 3 requests, 5 wavefronts for 3 ideal, 2 ways: 5 != 2 x 3: which requests
 *     conflicted is unknown (strides 4..4: none uncoalesced). F: LDS, 1 request, 2 ways:
 *     it conflicted, 1.
 * Totals: global unique unknown (D), uncoalesced unknown (D), conflicts unknown (E). */
static void test_import_unknowns(void **state)
{
  static const struct cc_insn_info in[] = {
    { .id = 1, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "A" },
    { .id = 2, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "B" },
    { .id = 3, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "C" },
    { .id = 4, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size_bytes = 4, .text = "D" },
    { .id = 5, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4, .text = "E" },
    { .id = 6, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_SHARED, .size_bytes = 4, .text = "F" },
  };
  static const struct cc_insn_counts c[] = {
    { .executions = 4, .thread_accesses = 128, .bytes_requested = 512, .sectors = 16,
      .ideal_sectors = 16, .stride_count = 124, .stride_min = 4, .stride_max = 4,
      .stride_sum = 496 },
    { .executions = 4, .thread_accesses = 128, .bytes_requested = 512, .sectors = 128,
      .ideal_sectors = 16, .stride_count = 124, .stride_min = 4096, .stride_max = 4096,
      .stride_sum = 124 * 4096.0 },
    { .executions = 3, .thread_accesses = 96, .bytes_requested = 384, .sectors = 3,
      .ideal_sectors = 3, .stride_count = 93 },
    { .executions = 2, .thread_accesses = 40, .bytes_requested = 160, .sectors = 10,
      .ideal_sectors = 4, .stride_count = 38, .stride_min = 0, .stride_max = 128,
      .stride_sum = 1000 },
    { .executions = 3, .thread_accesses = 96, .bytes_requested = 384, .wavefronts = 5,
      .ideal_wavefronts = 3, .ways_max = 2, .stride_count = 93, .stride_min = 4,
      .stride_max = 4, .stride_sum = 372 },
    { .executions = 1, .thread_accesses = 32, .bytes_requested = 128, .wavefronts = 2,
      .ideal_wavefronts = 1, .ways_max = 2, .stride_count = 31, .stride_min = 8,
      .stride_max = 8, .stride_sum = 248 },
  };
  struct cc_kernel_info k = { .name = "g", .mangled = "g", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 6, .insns = in };
  struct cc_model *m = model("sm_90");
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_err err = { 0 };
  const struct cc_kernel_stats *ks;
  const struct cc_insn_stats *s[6];
  (void)state;
  assert_int_equal(cc_analysis_import_kernel(an, &k, c, &err), CC_OK);
  ks = &an->kernels[0];
  for (int i = 0; i < 6; i++)
    s[i] = &ks->insns[ks->by_slot[i]];
  assert_int_equal(s[0]->unknown, CC_UNKNOWN_SECTOR_HIST);
  assert_int_equal(s[0]->unique_bytes, 512);
  assert_int_equal(s[0]->uncoalesced_requests, 0);
  assert_int_equal(s[1]->unknown, 0);
  assert_int_equal(s[1]->sector_hist[32], 4);
  assert_int_equal(s[1]->uncoalesced_requests, 4);
  assert_int_equal(s[1]->uncoalesced_thread_accesses, 128);
  assert_int_equal(s[2]->unknown, 0);
  assert_int_equal(s[2]->unique_bytes, 12);
  assert_int_equal(s[2]->sector_hist[1], 3);
  assert_true(cc_analysis_efficiency(s[2]) == 0.125);
  assert_int_equal(s[3]->unknown, CC_UNKNOWN_UNIQUE_BYTES | CC_UNKNOWN_SECTOR_HIST |
                                   CC_UNKNOWN_UNCOALESCED);
  assert_true(isnan(cc_analysis_efficiency(s[3])));
  assert_int_equal(s[4]->unknown, CC_UNKNOWN_CONFLICTS);
  /* no lane stride measured: the padding advice is conditional, not "no single stride" */
  assert_int_equal(s[4]->n_suggestions, 1);
  assert_non_null(strstr(s[4]->suggestions[0].text, "2-way bank conflict in the shared array"));
  assert_non_null(strstr(s[4]->suggestions[0].text, "when they walk a column"));
  assert_null(strstr(s[4]->suggestions[0].text, "no single stride"));
  assert_int_equal(s[5]->unknown, 0);
  assert_int_equal(s[5]->conflict_requests, 1);
  assert_int_equal(ks->totals.unknown,
                   CC_UNKNOWN_UNIQUE_BYTES | CC_UNKNOWN_UNCOALESCED | CC_UNKNOWN_CONFLICTS);
  assert_true(isnan(cc_analysis_totals_efficiency(&ks->totals)));
  cc_analysis_free(an);
  cc_model_free(m);
}

/* Figures that cannot be true: lanes 4 bytes apart (no shared bytes) in 1 request of 32
 * lanes use 128 bytes, more than 1 ideal sector (32 bytes) holds. Refused, naming the
 * instruction's line, and an is unchanged. */
static void test_import_inconsistent(void **state)
{
  static const struct cc_insn_info in = { .id = 1, .kind = CC_ACCESS_LOAD,
                                          .space = CC_SPACE_GLOBAL, .size_bytes = 4,
                                          .text = "LDG", .file = "t.cu", .line = 3 };
  static const struct cc_insn_counts c = { .executions = 1, .thread_accesses = 32,
                                           .bytes_requested = 128, .sectors = 4,
                                           .ideal_sectors = 1, .stride_count = 31,
                                           .stride_min = 4, .stride_max = 4,
                                           .stride_sum = 124 };
  struct cc_kernel_info k = { .name = "g", .mangled = "g", .grid = { 1, 1, 1 },
                              .block = { 32, 1, 1 }, .n_insns = 1, .insns = &in };
  struct cc_model *m = model("sm_90");
  struct cc_analysis *an = cc_analysis_new(m);
  struct cc_err err = { 0 };
  (void)state;
  assert_int_equal(cc_analysis_import_kernel(an, &k, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "t.cu:3"));
  assert_non_null(strstr(err.msg, "more bytes used than the ideal sectors hold"));
  assert_int_equal(an->n_kernels, 0);
  cc_analysis_free(an);
  cc_model_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_broadcast_efficiency), cmocka_unit_test(test_shared_padding_named),
    cmocka_unit_test(test_shared_var_names),     cmocka_unit_test(test_shared_data_dependent),
    cmocka_unit_test(test_import_unknowns),      cmocka_unit_test(test_import_inconsistent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
