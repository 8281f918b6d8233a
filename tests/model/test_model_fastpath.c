/* The fast byte geometry and bank rule (model/geometry.c, model/shared_banks32.c: no
 * library sort, shifts instead of divisions) against their reference forms
 * (cc_model_geometry_ref, cc_model_units_ref, cc_model_shared_banks32_ref: the general
 * path, qsort and a division per unit), on random and adversarial records
 * (tests/model/fastpath_gen.h): every field must be equal. A few hand-derived records
 * check that both are right on the orders the fast path treats specially (reverse lane
 * order, a shuffled order). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/fastpath_gen.h"
#include "model/model_impl.h"

#define ROUNDS 200000

static struct cc_model *get(const char *arch, int bank_width)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .smem_bank_width = bank_width };
  assert_int_equal(cc_model_get(arch, &o, &m, &err), CC_OK);
  return m;
}

static void same_geometry(const struct cc_global_cost *f, const struct cc_global_cost *r)
{
  assert_int_equal(f->sectors, r->sectors);
  assert_int_equal(f->lines, r->lines);
  assert_int_equal(f->ideal_sectors, r->ideal_sectors);
  assert_int_equal(f->bytes_requested, r->bytes_requested);
  assert_int_equal(f->unique_bytes, r->unique_bytes);
}

static void test_geometry_random(void **state)
{
  (void)state;
  uint64_t st = 1;
  for (int i = 0; i < ROUNDS; i++) {
    struct cc_warp_access a = gen_record(&st, CC_SPACE_GLOBAL);
    struct cc_global_cost f = { 0 }, r = { 0 };
    cc_model_geometry(&a, &f);
    cc_model_geometry_ref(&a, &r);
    same_geometry(&f, &r);
    uint32_t mask = gen_mask(&st);
    static const uint64_t units[] = { 1, 32, 64, 96, 128, 4096 }; /* 96: not a power of 2 */
    uint64_t unit = units[gen_next(&st) % 6];
    assert_int_equal(cc_model_units(&a, mask, unit), cc_model_units_ref(&a, mask, unit));
  }
}

static void same_shared(const struct cc_shared_cost *f, const struct cc_shared_cost *r)
{
  assert_int_equal(f->requests, r->requests);
  assert_int_equal(f->ways, r->ways);
  assert_int_equal(f->wavefronts, r->wavefronts);
  assert_int_equal(f->ideal_wavefronts, r->ideal_wavefronts);
}

static void test_banks32_random(void **state)
{
  (void)state;
  struct cc_model *m4 = get("sm_90", 0), *m8 = get("cc3.5", 8);
  uint64_t st = 2;
  for (int i = 0; i < ROUNDS; i++) {
    struct cc_warp_access a = gen_record(&st, CC_SPACE_SHARED);
    struct cc_shared_cost f, r;
    struct cc_model *m = i % 2 ? m4 : m8;
    cc_model_shared(m, &a, &f);
    cc_model_shared_banks32_ref(m, &a, &r);
    same_shared(&f, &r);
    /* descending columns inside the window (the generator's negative strides mostly
     * wrap below 0): lane l at 60000 - l x stride */
    static const uint64_t down[] = { 4, 128, 132, 256, 1024, 1800 };
    for (int l = 0; l < CC_WARP_SIZE; l++)
      a.addr[l] = 60000 - (uint64_t)l * down[i % 6];
    cc_model_shared(m, &a, &f);
    cc_model_shared_banks32_ref(m, &a, &r);
    same_shared(&f, &r);
  }
  cc_model_free(m4);
  cc_model_free(m8);
}

/* Whole rules on random global and local records: every global rule uses the geometry,
 * cc1.x and cc2.x also cc_model_units; the comparison is with the reference geometry
 * for the fields it fills. */
static void test_rules_random(void **state)
{
  (void)state;
  static const char *const archs[] = { "sm_90", "cc2.0", "cc1.2", "cc1.0" };
  uint64_t st = 3;
  for (size_t k = 0; k < 4; k++) {
    struct cc_model *m = get(archs[k], 0);
    for (int i = 0; i < ROUNDS / 8; i++) {
      struct cc_warp_access a = gen_record(&st, i % 2 ? CC_SPACE_GLOBAL : CC_SPACE_LOCAL);
      struct cc_global_cost f, r = { 0 };
      cc_model_global(m, &a, &f);
      if (a.space == CC_SPACE_LOCAL) {
        /* the layout (32-bit words interleaved by lane), then one 4-byte access per word
         * of a wider access, each word 128 bytes after the previous one in every lane */
        struct cc_warp_access phys;
        cc_model_local_layout(&a, &phys);
        uint32_t words = a.size_bytes > 4 ? a.size_bytes / 4 : 1;
        if (words > 1)
          phys.size_bytes = 4;
        for (uint32_t w = 0; w < words; w++) {
          struct cc_global_cost part = { 0 };
          cc_model_geometry_ref(&phys, &part);
          r.sectors += part.sectors, r.lines += part.lines;
          r.ideal_sectors += part.ideal_sectors, r.bytes_requested += part.bytes_requested;
          r.unique_bytes += part.unique_bytes;
          for (int l = 0; l < CC_WARP_SIZE; l++)
            phys.addr[l] += 128;
        }
      } else {
        cc_model_geometry_ref(&a, &r);
      }
      same_geometry(&f, &r);
    }
    cc_model_free(m);
  }
}

/* Hand-derived: lane l reads the float at 124 - 4l (a negative stride: lane order is
 * the reverse of address order): bytes 0..127, all distinct -> 4 sectors, 1 line,
 * ideal 4, 128 unique bytes, 128 requested. The same 32 addresses shuffled (lane l at
 * 4 x ((l x 7) % 32): 7 is odd, so a permutation of 0..31) give the same figures. */
static void test_reverse_and_shuffled(void **state)
{
  (void)state;
  struct cc_warp_access a;
  struct cc_global_cost f, r;
  memset(&a, 0, sizeof a);
  a.space = CC_SPACE_GLOBAL;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  for (int pass = 0; pass < 2; pass++) {
    for (uint64_t l = 0; l < 32; l++)
      a.addr[l] = pass == 0 ? 124 - 4 * l : 4 * ((l * 7) % 32);
    cc_model_geometry(&a, &f);
    cc_model_geometry_ref(&a, &r);
    assert_int_equal(f.sectors, 4);
    assert_int_equal(f.lines, 1);
    assert_int_equal(f.ideal_sectors, 4);
    assert_int_equal(f.unique_bytes, 128);
    assert_int_equal(f.bytes_requested, 128);
    same_geometry(&f, &r);
  }
}

/* Hand-derived, shared: lane l reads word 31 - l (reverse): 32 distinct banks -> 1 way,
 * 1 wavefront; lane l reads word 32 x (31 - l) (reverse column): every word in bank 0,
 * 32 distinct words -> 32 ways, 32 wavefronts, ideal 1. */
static void test_shared_reverse(void **state)
{
  (void)state;
  struct cc_model *m = get("sm_90", 0);
  struct cc_warp_access a;
  struct cc_shared_cost f;
  memset(&a, 0, sizeof a);
  a.space = CC_SPACE_SHARED;
  a.size_bytes = 4;
  a.active = 0xffffffffu;
  for (uint64_t l = 0; l < 32; l++)
    a.addr[l] = 4 * (31 - l);
  cc_model_shared(m, &a, &f);
  assert_int_equal(f.ways, 1);
  assert_int_equal(f.wavefronts, 1);
  for (uint64_t l = 0; l < 32; l++)
    a.addr[l] = 4 * 32 * (31 - l);
  cc_model_shared(m, &a, &f);
  assert_int_equal(f.ways, 32);
  assert_int_equal(f.wavefronts, 32);
  assert_int_equal(f.ideal_wavefronts, 1);
  cc_model_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_geometry_random),      cmocka_unit_test(test_banks32_random),
    cmocka_unit_test(test_rules_random),         cmocka_unit_test(test_reverse_and_shuffled),
    cmocka_unit_test(test_shared_reverse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
