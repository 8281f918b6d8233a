/* cc_model_global_list: the transactions each global rule issues, listed (the operation
 * view draws them), on hand-built warp records. Addresses from B = 0x1000 (aligned to
 * 256); "hw" = half-warp. Expected lists derived by hand from the rules restated at the
 * top of src/model/global_*.c; then, on pseudo-random records of every model and space,
 * the list agrees with cc_model_global's counts (its length is the transactions, its
 * bytes the transaction bytes, its requests below the requests). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

#define B 0x1000u
#define ALL 0xffffffffu

static struct cc_warp_access access_of(enum cc_access_kind kind, enum cc_space space,
                                       uint64_t base, uint64_t stride, uint32_t size,
                                       uint32_t mask)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.space = space;
  a.size_bytes = size;
  a.active = mask;
  for (int l = 0; l < CC_WARP_SIZE; l++)
    a.addr[l] = base + (uint64_t)l * stride;
  return a;
}

static uint32_t list(const char *arch, const struct cc_warp_access *a,
                     struct cc_model_transaction *t)
{
  struct cc_model *m = NULL;
  struct cc_err err;
  struct cc_global_cost c;
  assert_int_equal(cc_model_get(arch, NULL, &m, &err), CC_OK);
  uint32_t n = cc_model_global_list(m, a, &c, t, CC_MODEL_MAX_TRANSACTIONS);
  assert_int_equal(n, c.transactions);
  cc_model_free(m);
  return n;
}

static void expect(const struct cc_model_transaction *t, uint64_t addr, uint32_t bytes,
                   uint32_t lanes, uint32_t request)
{
  assert_int_equal(t->addr, addr);
  assert_int_equal(t->bytes, bytes);
  assert_int_equal(t->lanes, lanes);
  assert_int_equal(t->request, request);
}

/* The naive transpose's store: lane i at B + 256 i, 4 bytes. Every lane alone in its
 * segment: cc1.0 out of sequence -> one 32-byte transaction per lane at its address
 * (256-aligned, so 32-aligned), request = its hw; cc1.2: its 128-byte segment, bytes in
 * the lower 32 -> shrunk to 32 at its address; cc2.0 (store: 32-byte L2 segments), one
 * request; sm_90 one sector per lane. */
static void test_transposed_store(void **state)
{
  (void)state;
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  struct cc_warp_access a = access_of(CC_ACCESS_STORE, CC_SPACE_GLOBAL, B, 256, 4, ALL);
  const char *archs[] = {"cc1.0", "cc1.2", "cc2.0", "sm_90"};
  for (int k = 0; k < 4; k++) {
    assert_int_equal(list(archs[k], &a, t), 32);
    for (uint32_t i = 0; i < 32; i++)
      expect(&t[i], B + 256u * i, 32, 1u << i, k < 2 ? i / 16 : 0);
  }
}

/* Coalesced 4-byte load, lane i at B + 4 i. cc1.0: each hw fills its 64-byte segment:
 * {B, 64, lanes 0-15, hw 0}, {B+64, 64, lanes 16-31, hw 1}. cc1.2: hw0's 128-byte
 * segment B, bytes B..B+63 in its lower half -> 64 (both 32-byte halves used: stays
 * 64); hw1: upper half -> {B+64, 64}. cc2.0 (load, L1 on): one 128-byte line. sm_90: 4
 * sectors of 8 lanes. */
static void test_coalesced_load(void **state)
{
  (void)state;
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  struct cc_warp_access a = access_of(CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, ALL);
  for (int k = 0; k < 2; k++) {
    assert_int_equal(list(k ? "cc1.2" : "cc1.0", &a, t), 2);
    expect(&t[0], B, 64, 0xffffu, 0);
    expect(&t[1], B + 64, 64, 0xffff0000u, 1);
  }
  assert_int_equal(list("cc2.0", &a, t), 1);
  expect(&t[0], B, 128, ALL, 0);
  assert_int_equal(list("sm_90", &a, t), 4);
  for (uint32_t s = 0; s < 4; s++)
    expect(&t[s], B + 32 * s, 32, 0xffu << (8 * s), 0);
}

/* cc1.0, 16-byte words in sequence: each hw fills a 256-byte segment as two 128-byte
 * transactions, lanes 0-7 in the first (16 x 8 = 128 bytes), 8-15 in the second. */
static void test_cc10_16_bytes(void **state)
{
  (void)state;
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  struct cc_warp_access a = access_of(CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 16, 16, ALL);
  assert_int_equal(list("cc1.0", &a, t), 4);
  expect(&t[0], B, 128, 0xffu, 0);
  expect(&t[1], B + 128, 128, 0xff00u, 0);
  expect(&t[2], B + 256, 128, 0xff0000u, 1);
  expect(&t[3], B + 384, 128, 0xff000000u, 1);
}

/* cc1.2 shrinking to a quarter: lane 0 alone at B + 96: segment B (128); bytes in the
 * upper half -> 64 at B + 64; in its upper 32 -> 32 at B + 96. */
static void test_cc12_shrink(void **state)
{
  (void)state;
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  struct cc_warp_access a = access_of(CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B + 96, 4, 4, 1u);
  assert_int_equal(list("cc1.2", &a, t), 1);
  expect(&t[0], B + 96, 32, 1u, 0);
}

/* Every model, every space but shared, pseudo-random records (a fixed LCG): the list
 * has the rule's transaction count, bytes and requests, each transaction aligned to its
 * size with at least one lane, and the listing does not change the costs. */
static void test_agrees_with_counts(void **state)
{
  (void)state;
  const char *archs[] = {"cc1.0", "cc1.2", "cc2.0", "cc3.5", "sm_90"};
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  const enum cc_space spaces[] = {CC_SPACE_GLOBAL, CC_SPACE_LOCAL};
  struct cc_model_transaction t[CC_MODEL_MAX_TRANSACTIONS];
  uint64_t x = 12345;
  for (int r = 0; r < 2000; r++) {
    struct cc_warp_access a;
    memset(&a, 0, sizeof a);
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    a.size_bytes = sizes[(x >> 33) % 5];
    a.space = spaces[(x >> 40) & 1];
    a.kind = (x >> 41) & 1 ? CC_ACCESS_STORE : CC_ACCESS_LOAD;
    a.active = (x >> 42) & 1 ? ALL : (uint32_t)(x >> 11);
    for (int l = 0; l < CC_WARP_SIZE; l++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      /* aligned to the size; nearby lanes mostly (coalescing happens), sometimes far */
      uint64_t word = (x >> 60) < 12 ? (uint64_t)l + ((x >> 20) & 3) : (x >> 24) & 0xfff;
      a.addr[l] = B + word * a.size_bytes;
    }
    for (int k = 0; k < 5; k++) {
      struct cc_model *m = NULL;
      struct cc_err err;
      struct cc_global_cost c, c2;
      uint64_t bytes = 0;
      assert_int_equal(cc_model_get(archs[k], NULL, &m, &err), CC_OK);
      cc_model_global(m, &a, &c);
      uint32_t n = cc_model_global_list(m, &a, &c2, t, CC_MODEL_MAX_TRANSACTIONS);
      assert_memory_equal(&c, &c2, sizeof c);
      assert_int_equal(n, c.transactions);
      for (uint32_t i = 0; i < n; i++) {
        bytes += t[i].bytes;
        assert_true(t[i].request < c.requests);
        assert_int_equal(t[i].addr % t[i].bytes, 0);
        assert_true(a.active == 0 || t[i].lanes != 0);
        assert_int_equal(t[i].lanes & ~a.active, 0);
      }
      assert_int_equal(bytes, c.transaction_bytes);
      cc_model_free(m);
    }
  }
}

/* A short list: cap entries, the cost still whole. */
static void test_cap(void **state)
{
  (void)state;
  struct cc_model_transaction t[4];
  struct cc_model *m = NULL;
  struct cc_err err;
  struct cc_global_cost c;
  struct cc_warp_access a = access_of(CC_ACCESS_STORE, CC_SPACE_GLOBAL, B, 256, 4, ALL);
  assert_int_equal(cc_model_get("sm_90", NULL, &m, &err), CC_OK);
  assert_int_equal(cc_model_global_list(m, &a, &c, t, 4), 4);
  assert_int_equal(c.transactions, 32);
  cc_model_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_transposed_store), cmocka_unit_test(test_coalesced_load),
    cmocka_unit_test(test_cc10_16_bytes),    cmocka_unit_test(test_cc12_shrink),
    cmocka_unit_test(test_agrees_with_counts), cmocka_unit_test(test_cap),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
