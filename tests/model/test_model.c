/* Models on hand-built warp records. Every expected figure is derived in the comment
 * above its check: sector s holds bytes [32s, 32s + 32); bank of 4-byte word w is w % 32. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

/* A record where lane i (active in mask) accesses base + i * stride, size bytes. */
static struct cc_warp_access rec(enum cc_space space, uint64_t base, uint64_t stride,
                                 uint32_t size, uint32_t mask)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = CC_ACCESS_LOAD;
  a.space = space;
  a.size_bytes = size;
  a.active = mask;
  for (int i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = base + (uint64_t)i * stride;
  return a;
}

static struct cc_model *get(const char *arch)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get(arch, NULL, &m, &err), CC_OK);
  assert_non_null(m);
  return m;
}

static struct cc_global_cost gcost(uint64_t base, uint64_t stride, uint32_t size, uint32_t mask)
{
  struct cc_model *m = get("sm_90");
  struct cc_warp_access a = rec(CC_SPACE_GLOBAL, base, stride, size, mask);
  struct cc_global_cost c;
  cc_model_global(m, &a, &c);
  cc_model_free(m);
  return c;
}

static void test_registry(void **state)
{
  (void)state;
  const char *names[] = { "sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80",
                          "sm_86", "sm_89", "sm_90", "cc3.0", "cc3.5" };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    struct cc_model *m = get(names[i]);
    assert_string_equal(cc_model_name(m), names[i]); /* each keeps its own name */
    assert_int_equal(cc_model_group_lanes(m), 32);  /* W = 32 from cc2.0 on (CGO 2015) */
    cc_model_free(m);
  }
  struct cc_model *m = get(NULL); /* default */
  assert_string_equal(cc_model_name(m), "sm_90");
  cc_model_free(m);
  m = get("cc8.0"); /* alias spelling */
  assert_string_equal(cc_model_name(m), "sm_80");
  cc_model_free(m);
}

static void test_unknown_arch(void **state)
{
  (void)state;
  struct cc_model *m = (struct cc_model *)1;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get("sm_99", NULL, &m, &err), CC_ERR_USAGE);
  assert_null(m);
  assert_non_null(strstr(err.msg, "unknown architecture 'sm_99'"));
  assert_non_null(strstr(err.msg, "sm_90"));
  assert_non_null(strstr(err.msg, "sm_50"));
  /* the older models are known now; names between the generations are not */
  assert_non_null(strstr(err.msg, "cc1.0"));
  assert_non_null(strstr(err.msg, "cc2.1"));
  assert_int_equal(cc_model_get("cc4.0", NULL, &m, &err), CC_ERR_USAGE);
  assert_null(m);
  assert_int_equal(cc_model_get("cc1.4", NULL, &m, &err), CC_ERR_USAGE);
  assert_int_equal(cc_model_get("sm_90,sm_80", NULL, &m, &err), CC_ERR_USAGE);
}

static void test_bad_bank_width(void **state)
{
  (void)state;
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .smem_bank_width = 8 };
  assert_int_equal(cc_model_get("sm_90", &o, &m, &err), CC_ERR_USAGE);
  assert_null(m);
  assert_non_null(strstr(err.msg, "bank width 8"));
  o.smem_bank_width = 3;
  assert_int_equal(cc_model_get("cc3.5", &o, &m, &err), CC_ERR_USAGE);
  o.smem_bank_width = 8;
  assert_int_equal(cc_model_get("cc3.5", &o, &m, &err), CC_OK);
  cc_model_free(m);
}

/* 32 lanes x 4 bytes at 0..127: bytes 0..127 = sectors 0..3 -> 4; unique 128 -> ideal 4;
 * one 128-byte line. */
static void test_coalesced4(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(0x1000, 4, 4, 0xffffffffu);
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.sectors, 4);
  assert_int_equal(c.ideal_sectors, 4);
  assert_int_equal(c.transactions, 4);
  assert_int_equal(c.transaction_bytes, 128);
  assert_int_equal(c.lines, 1);
  assert_int_equal(c.bytes_requested, 128);
  assert_int_equal(c.unique_bytes, 128);
}

/* stride k words: lane i at 4ki. k=2: last byte 8*31+3 = 251 -> sectors 0..7 = 8, lines
 * 0..1 = 2. k=4: 16*31+3 = 499 -> sectors 0..15 = 16. k=8: 32*31 -> each lane its own
 * sector = 32. k=32: 128 bytes apart = 32 sectors, 32 lines. ideal stays 128/32 = 4. */
static void test_strided(void **state)
{
  (void)state;
  struct { uint64_t stride; uint32_t sectors, lines; } t[] = {
    { 8, 8, 2 }, { 16, 16, 4 }, { 32, 32, 8 }, { 128, 32, 32 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    struct cc_global_cost c = gcost(0x10000, t[i].stride, 4, 0xffffffffu);
    assert_int_equal(c.sectors, t[i].sectors);
    assert_int_equal(c.lines, t[i].lines);
    assert_int_equal(c.ideal_sectors, 4);
    assert_int_equal(c.transaction_bytes, 32 * t[i].sectors);
  }
}

/* base 4: bytes 4..131 -> sectors 0..4 = 5; ideal ceil(128/32) = 4; lines 0..1 = 2 */
static void test_misaligned(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(4, 4, 4, 0xffffffffu);
  assert_int_equal(c.sectors, 5);
  assert_int_equal(c.ideal_sectors, 4);
  assert_int_equal(c.lines, 2);
}

/* all 32 lanes read bytes 64..67: 1 sector, unique 4 bytes -> ideal 1; requested 128 */
static void test_same_address(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(64, 0, 4, 0xffffffffu);
  assert_int_equal(c.sectors, 1);
  assert_int_equal(c.ideal_sectors, 1);
  assert_int_equal(c.unique_bytes, 4);
  assert_int_equal(c.bytes_requested, 128);
}

/* 8-byte: 256 contiguous bytes = 8 sectors, 1 request; 16-byte: 512 bytes = 16 sectors,
 * 1 request (H200: LDG.E.128 by 32 lanes = 1 request, 16 sectors) */
static void test_wide(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(0, 8, 8, 0xffffffffu);
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.sectors, 8);
  assert_int_equal(c.ideal_sectors, 8);
  c = gcost(0, 16, 16, 0xffffffffu);
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.sectors, 16);
  assert_int_equal(c.ideal_sectors, 16);
  assert_int_equal(c.lines, 4);
}

/* lanes 0..7 active, stride 4: bytes 0..31 = 1 sector, ideal 1, requested 32. Even lanes
 * only (0x55555555), stride 4: lanes 0,2,..,30 at 0,8,..,120, bytes up to 123 -> sectors
 * 0..3 = 4; unique 16 x 4 = 64 -> ideal 2. No lane active: 0 sectors, 1 request. */
static void test_inactive(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(0, 4, 4, 0xffu);
  assert_int_equal(c.sectors, 1);
  assert_int_equal(c.ideal_sectors, 1);
  assert_int_equal(c.bytes_requested, 32);
  c = gcost(0, 4, 4, 0x55555555u);
  assert_int_equal(c.sectors, 4);
  assert_int_equal(c.ideal_sectors, 2);
  assert_int_equal(c.bytes_requested, 64);
  c = gcost(0, 4, 4, 0);
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.sectors, 0);
  assert_int_equal(c.ideal_sectors, 0);
}

/* one lane, 8 bytes at 28: bytes 28..35 straddle sectors 0 and 1 -> 2 sectors, ideal 1.
 * 32 lanes x 8 bytes from 4: bytes 4..259 -> sectors 0..8 = 9; unique 256 -> ideal 8.
 * one lane, 16 bytes at 120: bytes 120..135 -> sectors 3, 4 and lines 0, 1. */
static void test_straddle(void **state)
{
  (void)state;
  struct cc_global_cost c = gcost(28, 0, 8, 1u);
  assert_int_equal(c.sectors, 2);
  assert_int_equal(c.ideal_sectors, 1);
  c = gcost(4, 8, 8, 0xffffffffu);
  assert_int_equal(c.sectors, 9);
  assert_int_equal(c.ideal_sectors, 8);
  c = gcost(120, 0, 16, 1u);
  assert_int_equal(c.sectors, 2);
  assert_int_equal(c.lines, 2);
}

/* ---- shared memory ---- */

static struct cc_shared_cost scost_rec(const struct cc_warp_access *a)
{
  struct cc_model *m = get("sm_90");
  struct cc_shared_cost c;
  cc_model_shared(m, a, &c);
  cc_model_free(m);
  return c;
}

static struct cc_shared_cost scost(uint64_t stride_bytes, uint32_t size, uint32_t mask)
{
  struct cc_warp_access a = rec(CC_SPACE_SHARED, 0, stride_bytes, size, mask);
  return scost_rec(&a);
}

static void expect_shared(struct cc_shared_cost c, uint32_t ways, uint32_t wf, uint32_t ideal)
{
  assert_int_equal(c.requests, 1);
  assert_int_equal(c.ways, ways);
  assert_int_equal(c.wavefronts, wf);
  assert_int_equal(c.ideal_wavefronts, ideal);
}

/* 4-byte words, lane i at word k*i, bank (k*i) % 32:
 * k=1: banks 0..31 once -> 1 way, 1 wavefront.
 * k=2: banks 0,2,..,30 twice each (words 2i and 2i+32) -> 2 ways, 2 wavefronts.
 * k=16: banks 0 and 16, 16 words each -> 16 ways.
 * k=32: all in bank 0, 32 distinct words -> 32 ways.
 * k=33: bank (33i) % 32 = i, distinct -> conflict-free.
 * k=0: one word, multicast -> 1 way. */
static void test_shared_strides(void **state)
{
  (void)state;
  expect_shared(scost(4, 4, 0xffffffffu), 1, 1, 1);
  expect_shared(scost(8, 4, 0xffffffffu), 2, 2, 1);
  expect_shared(scost(64, 4, 0xffffffffu), 16, 16, 1);
  expect_shared(scost(128, 4, 0xffffffffu), 32, 32, 1);
  expect_shared(scost(132, 4, 0xffffffffu), 1, 1, 1);
  expect_shared(scost(0, 4, 0xffffffffu), 1, 1, 1);
}

/* float tile[32][32] read by column c = 5: lane i reads tile[i][5], word 32i + 5, bank 5
 * for every lane -> 32 ways. Padded tile[32][33]: word 33i + 5, bank (i + 5) % 32, all
 * distinct -> 1 way. */
static void test_shared_tile(void **state)
{
  (void)state;
  struct cc_warp_access a = rec(CC_SPACE_SHARED, 5 * 4, 32 * 4, 4, 0xffffffffu);
  expect_shared(scost_rec(&a), 32, 32, 1);
  a = rec(CC_SPACE_SHARED, 5 * 4, 33 * 4, 4, 0xffffffffu);
  expect_shared(scost_rec(&a), 1, 1, 1);
}

/* 64-bit, lane i at 8i: half-warp 0 touches words 0..31 (all banks once), half-warp 1
 * words 32..63 -> 2 phases, 1 way each: 2 wavefronts, ideal 2.
 * 64-bit at 16i: half-warp 0 words {4i, 4i+1}, i < 16 = 0,1,4,5,..,60,61: banks 0,1,4,5,..
 * each twice (word w and w + 32) -> 2 ways per phase, 4 wavefronts, ideal 2.
 * 128-bit at 16i: quarter-warp q words 32q..32q+31, one per bank -> 4 phases, 1 way.
 * 128-bit, lanes 0..7 only: one active phase -> 1 wavefront, ideal 1. */
static void test_shared_wide(void **state)
{
  (void)state;
  expect_shared(scost(8, 8, 0xffffffffu), 1, 2, 2);
  expect_shared(scost(16, 8, 0xffffffffu), 2, 4, 2);
  expect_shared(scost(16, 16, 0xffffffffu), 1, 4, 4);
  expect_shared(scost(16, 16, 0xffu), 1, 1, 1);
}

/* cc3.x with 8-byte banks: 64-bit at 8i -> word i, bank i, one phase (32 x 8 = 256
 * bytes per phase) -> 1 way, 1 wavefront. 4-byte at 4i -> 8-byte words i/2, pairs of
 * lanes share a word (multicast) -> 1 way. */
static void test_shared_bank8(void **state)
{
  (void)state;
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .smem_bank_width = 8 };
  struct cc_shared_cost c;
  assert_int_equal(cc_model_get("cc3.5", &o, &m, &err), CC_OK);
  struct cc_warp_access a = rec(CC_SPACE_SHARED, 0, 8, 8, 0xffffffffu);
  cc_model_shared(m, &a, &c);
  expect_shared(c, 1, 1, 1);
  a = rec(CC_SPACE_SHARED, 0, 4, 4, 0xffffffffu);
  cc_model_shared(m, &a, &c);
  expect_shared(c, 1, 1, 1);
  cc_model_free(m);
}

/* no active lane: 0 wavefronts, 0 ways, 1 request */
static void test_shared_inactive(void **state)
{
  (void)state;
  expect_shared(scost(4, 4, 0), 0, 0, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_registry),        cmocka_unit_test(test_unknown_arch),
    cmocka_unit_test(test_bad_bank_width),  cmocka_unit_test(test_coalesced4),
    cmocka_unit_test(test_strided),         cmocka_unit_test(test_misaligned),
    cmocka_unit_test(test_same_address),    cmocka_unit_test(test_wide),
    cmocka_unit_test(test_inactive),        cmocka_unit_test(test_straddle),
    cmocka_unit_test(test_shared_strides),  cmocka_unit_test(test_shared_tile),
    cmocka_unit_test(test_shared_wide),     cmocka_unit_test(test_shared_bank8),
    cmocka_unit_test(test_shared_inactive),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
