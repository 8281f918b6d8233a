/* Where a level stores its sets (src/cache/cache_impl.h set_of, state.c
 * cc_cache_level_layout): set w of class c at class_base[c] + w x class_step[c], the
 * sampled classes (c mod k = 0) first, each region in the order c + K w. What must hold:
 * distinct sets never share a place (a collision would merge two sets' LRU state), every
 * place is below `slots` (the arrays' length), the sampled classes' sets fill the first
 * `region` places, k = 1 is the order c + K w, and the parallel replay's parts
 * (part_of, part_first) agree and split the sampled region evenly. The expected places
 * of the first test are derived by hand from the layout's rule; the others compare the
 * code's places with the (class, w) pair computed here from the index's definition
 * (cache_impl.h: the fold, then w = (h >> log2 K) mod the class's sets). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache_impl.h"

/* The set (c, w) line names under INDEX_HASH in lv's shape, from the definition. */
static void reference_set(const struct level *lv, uint64_t line, uint32_t *c, uint32_t *w)
{
  uint32_t s = 1, k = lv->classes, bits = 0;
  uint64_t h;
  while (s < 32 && (1ull << s) < lv->sets)
    s++;
  while ((1u << bits) < k)
    bits++;
  h = line ^ (line >> s) ^ (line >> (2 * s));
  *c = cc_cache_line_class(CC_CACHE_INDEX_HASH, line) % k;
  *w = ((uint32_t)(h ^ (h >> 32)) >> bits) % ((lv->sets - *c + k - 1) / k);
}

/* INDEX_MOD, 48 sets (K = 16 classes of 3 sets: set s = line mod 48 is class s mod 16,
 * w = s / 16), replayed 1 in 4: the sampled classes 0, 4, 8, 12 (K / k = 4 of them) take
 * places 0..11, set w of the j-th at 4 w + j; the 12 others places 12..47, set w of the
 * j-th (class c: j = c - c / 4 - 1) at 12 + 12 w + j. */
static void test_layout_by_hand(void **state)
{
  struct level lv;
  static const uint64_t line[] = {0, 16, 32, 4, 20, 36, 12, 1, 17, 15, 47, 5, 95};
  static const uint32_t place[] = {
      0,  /* class 0, w 0 */
      4,  /* class 0, w 1: 4 x 1 + 0 */
      8,  /* class 0, w 2 */
      1,  /* class 4 (j = 1), w 0 */
      5,  /* class 4, w 1: 4 + 1 */
      9,  /* class 4, w 2 */
      3,  /* class 12 (j = 3), w 0 */
      12, /* class 1 (j = 0), w 0 */
      24, /* class 1, w 1: 12 + 12 */
      23, /* class 15 (j = 15 - 3 - 1 = 11), w 0: 12 + 11 */
      47, /* class 15, w 2: 12 + 24 + 11 */
      15, /* class 5 (j = 5 - 1 - 1 = 3), w 0 */
      47, /* line 95 = set 47 again: same place as line 47 */
  };
  (void)state;
  cc_cache_level_shape(&lv, 48, 4, CC_CACHE_INDEX_MOD);
  assert_int_equal(lv.classes, 16);
  assert_int_equal(lv.slots, 48);
  for (uint32_t i = 0; i < sizeof line / sizeof line[0]; i++) /* k = 1: c + 16 w */
    assert_int_equal(set_of(&lv, line[i]), line[i] % 48);
  cc_cache_level_layout(&lv, 4);
  assert_int_equal(lv.region, 12);
  for (uint32_t i = 0; i < sizeof line / sizeof line[0]; i++) {
    if (set_of(&lv, line[i]) != place[i])
      fail_msg("line %llu: place %u, expected %u", (unsigned long long)line[i],
               set_of(&lv, line[i]), place[i]);
  }
}

/* For a level of `sets` sets under INDEX_HASH replayed 1 in k: every line over a range
 * is placed below slots, in the first region iff its class is sampled, and places and
 * the reference's (class, w) pairs correspond one to one. */
static void check_hash_layout(uint32_t sets, uint32_t k)
{
  struct level lv;
  uint64_t *owner; /* per place: 1 + c + 16 w of the set there, 0: none yet */
  uint64_t used = 0;
  cc_cache_level_shape(&lv, sets, 4, CC_CACHE_INDEX_HASH);
  if (k > lv.classes)
    return;
  cc_cache_level_layout(&lv, k);
  assert_true(lv.slots >= lv.sets && lv.slots < lv.sets + lv.classes);
  owner = calloc(lv.slots, sizeof *owner);
  assert_non_null(owner);
  for (uint64_t line = 0; line < 64ull * sets + 4096; line++) {
    uint32_t c, w, p = set_of(&lv, line);
    uint64_t id;
    reference_set(&lv, line, &c, &w);
    id = 1 + c + 16ull * w;
    if (p >= lv.slots)
      fail_msg("sets %u k %u line %llu: place %u of %u", sets, k, (unsigned long long)line,
               p, lv.slots);
    if ((p < lv.region) != (c % k == 0))
      fail_msg("sets %u k %u line %llu (class %u): place %u, region %u", sets, k,
               (unsigned long long)line, c, p, lv.region);
    if (!owner[p]) {
      owner[p] = id;
      used++;
    } else if (owner[p] != id) {
      fail_msg("sets %u k %u: place %u holds sets %llu and %llu", sets, k, p,
               (unsigned long long)owner[p] - 1, (unsigned long long)id - 1);
    }
  }
  assert_int_equal(used, lv.sets); /* every set was named, each at its own place */
  free(owner);
}

static void test_layout_hash(void **state)
{
  static const uint32_t sets[] = {1, 3, 16, 56, 100, 512, 1600};
  (void)state;
  for (uint32_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
    for (uint32_t k = 1; k <= 16; k *= 2)
      check_hash_layout(sets[i], k);
}

/* The parallel replay's parts: part_of(p) = t iff p lies in [part_first(t, r),
 * part_first(t + 1, r)) of its region r, and each part holds within one of an even share
 * of the sampled region. */
static void test_parts(void **state)
{
  struct level lv;
  (void)state;
  cc_cache_level_shape(&lv, 1600, 16, CC_CACHE_INDEX_HASH); /* 100 sets a class */
  cc_cache_level_layout(&lv, 16);
  assert_int_equal(lv.region, 100);
  assert_int_equal(lv.slots, 1600);
  for (uint32_t parts = 1; parts <= 7; parts++) {
    for (uint32_t t = 0; t < parts; t++) {
      uint32_t n0 = part_first(&lv, parts, t + 1, 0) - part_first(&lv, parts, t, 0);
      assert_true(n0 >= 100 / parts && n0 <= 100 / parts + 1);
      for (int r = 0; r < 2; r++)
        for (uint32_t p = part_first(&lv, parts, t, r); p < part_first(&lv, parts, t + 1, r); p++)
          assert_int_equal(part_of(&lv, parts, p), t);
    }
    assert_int_equal(part_first(&lv, parts, parts, 0), 100);
    assert_int_equal(part_first(&lv, parts, parts, 1), 1600);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_layout_by_hand),
      cmocka_unit_test(test_layout_hash),
      cmocka_unit_test(test_parts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
