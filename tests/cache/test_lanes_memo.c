/* The sampled lanes of a line-per-lane record (src/cache/cache_impl.h sample_lanes) through
 * the lanes memo (lanes_memo_get): a column whose stride no progression of the class hash
 * serves, moved by less than a line, keeps the lanes whose byte stays in its line and
 * finds the class of the others. What must hold: the lanes are those of the definition
 * (lane l's line (x + l stride) / 128 is sampled iff its class, cc_cache_line_class, has
 * no bit of the sample mask), whatever the memo held before: moves up and down, by 1 to
 * 127 bytes and by a line or more, strides of whole lines, another stride, another mask
 * or index. The first tests' lanes are derived by hand; the walk compares with the
 * definition computed here lane by lane. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache_impl.h"

/* A model whose sampling is mask under index: all sample_lanes reads. */
static struct cc_cache *sampling(struct cc_cache *c, enum cc_cache_index index, uint32_t mask)
{
  memset(c, 0, sizeof *c);
  c->dev.index = index;
  c->sample_mask = mask;
  return c;
}

/* The definition: bit l iff the line of byte x + l x stride is sampled. */
static uint32_t reference(enum cc_cache_index index, uint32_t mask, uint64_t x, uint64_t stride)
{
  uint32_t out = 0;
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    if (!(cc_cache_line_class(index, (x + l * stride) / CC_CACHE_LINE_BYTES) & mask))
      out |= 1u << l;
  return out;
}

static uint32_t strided(struct cc_cache *c, struct lanes_memo *m, uint64_t x, uint64_t stride)
{
  return sample_lanes(c, m, (struct form_key){FORM_STRIDED, x, stride});
}

/* INDEX_MOD (class = line & 15), 1 set in 4 (mask 3: line mod 4 = 0), stride 8200 bytes
 * (64 lines and 8 bytes: a row of 2050 floats). From x = 0, lane l's byte 8200 l is in
 * line 64 l + (8 l) / 128 = 64 l + l / 16: lanes 0-15 in lines = 0 mod 4, 16-31 in
 * lines = 1 mod 4: 0x0000ffff. x = 4: lane 15's offset 120 + 4 = 124 stays: the same.
 * x = 8: lane 15 at 128 takes line 64 x 15 + 1 (out), lane 31's (8 + 248) / 128 = 2:
 * 0x00007fff. Back to x = 0: 0x0000ffff again. */
static void test_moves_up_by_hand(void **state)
{
  struct cc_cache c;
  struct lanes_memo m = {0};
  (void)state;
  sampling(&c, CC_CACHE_INDEX_MOD, 3);
  assert_int_equal(strided(&c, &m, 0, 8200), 0x0000ffffu);
  assert_int_equal(strided(&c, &m, 4, 8200), 0x0000ffffu);
  assert_int_equal(strided(&c, &m, 8, 8200), 0x00007fffu);
  assert_int_equal(strided(&c, &m, 0, 8200), 0x0000ffffu);
}

/* The move finds the classes of the lanes that cross a line only: a lane the memo holds
 * wrongly (lane 20, set by hand) stays wrong across a move of 4 bytes from x = 0 (lane
 * 20's offset 160 % 128 = 32 stays in its line; lane 15 at 120 does not cross either),
 * and is put right by a refill (another stride, then this one again). This is the
 * mechanism, not the figures: test_walks checks those. */
static void test_moves_keep_the_others(void **state)
{
  struct cc_cache c;
  struct lanes_memo m = {0};
  (void)state;
  sampling(&c, CC_CACHE_INDEX_MOD, 3);
  assert_int_equal(strided(&c, &m, 0, 8200), 0x0000ffffu);
  m.lanes ^= 1u << 20;
  assert_int_equal(strided(&c, &m, 4, 8200), 0x0000ffffu | 1u << 20);
  strided(&c, &m, 4, 8204);
  assert_int_equal(strided(&c, &m, 4, 8200), 0x0000ffffu);
}

/* The same column from x = 8192 (line 64: lane l's byte 8192 + 8200 l in line 64 + 64 l
 * + l / 16, class l / 16: 0x0000ffff), then 4 bytes down: lanes 0 and 16, at offset 0,
 * cross into the line before: lane 0's line 63 (class 3: out), lane 16's 1088 (class 0:
 * in); the others' offsets 8 l - 4 keep their lines: 0x0001fffe. 124 bytes further down
 * (x = 8064, line 63's first byte): lane l in line 63 + 64 l + l / 16, class 15 for l <
 * 16 (out), 0 after (in): 0xffff0000. */
static void test_moves_down_by_hand(void **state)
{
  struct cc_cache c;
  struct lanes_memo m = {0};
  (void)state;
  sampling(&c, CC_CACHE_INDEX_MOD, 3);
  assert_int_equal(strided(&c, &m, 8192, 8200), 0x0000ffffu);
  assert_int_equal(strided(&c, &m, 8188, 8200), 0x0001fffeu);
  assert_int_equal(strided(&c, &m, 8064, 8200), 0xffff0000u);
}

/* The memo's answer is the sampling's: the column of test_moves_up_by_hand at x = 8 (lane
 * l in line 64 l + (l + 1) / 16: classes 0 for l < 15, 1 up to lane 30, 2 for lane 31)
 * under 1 set in 4 (0x00007fff), then 1 in 2 (classes 0 and 2: 0x80007fff), then none
 * (mask 0: every lane). */
static void test_other_sampling(void **state)
{
  struct cc_cache c;
  struct lanes_memo m = {0};
  (void)state;
  sampling(&c, CC_CACHE_INDEX_MOD, 3);
  assert_int_equal(strided(&c, &m, 8, 8200), 0x00007fffu);
  sampling(&c, CC_CACHE_INDEX_MOD, 1);
  assert_int_equal(strided(&c, &m, 8, 8200), 0x80007fffu);
  sampling(&c, CC_CACHE_INDEX_MOD, 0);
  assert_int_equal(strided(&c, &m, 8, 8200), 0xffffffffu);
}

/* xorshift64 */
static uint64_t next(uint64_t *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* A move: mostly small (a column one element on or back), at the edges of the memo's
 * reach (127, 128, 129 bytes either way), sometimes a jump. */
static int64_t move(uint64_t *s)
{
  static const int64_t edges[] = {1, 4, 8, 12, 127, 128, 129, 0, -1, -4, -8, -127, -128, -129};
  uint64_t r = next(s);
  if (r % 8 < 5)
    return edges[(r >> 8) % (sizeof edges / sizeof edges[0])];
  if (r % 8 < 7)
    return (int64_t)((r >> 8) % 255) - 127;
  return (int64_t)((r >> 8) % (1u << 20)) - (1 << 19);
}

/* Random walks of columns against the definition: strides of 1 to 64 lines plus 0 to 127
 * bytes (whole lines too, and sector multiples through the LANES form), masks 1, 3, 7,
 * 15, both indexes, the stride or the mask changed now and then; the memo's answer and
 * sample_lanes without a memo both equal the definition. */
static void test_walks(void **state)
{
  static const uint32_t masks[] = {1, 3, 7, 15};
  struct cc_cache c;
  struct lanes_memo m = {0};
  uint64_t s = 0x2545f4914f6cdd1dull, x = 1ull << 40, stride = 8200;
  enum cc_cache_index index = CC_CACHE_INDEX_HASH;
  uint32_t mask = 15;
  (void)state;
  for (uint32_t i = 0; i < 200000; i++) {
    uint64_t r = next(&s);
    int64_t d = move(&s);
    struct form_key k;
    uint32_t want, got;
    if (r % 64 == 0) { /* another column shape */
      uint64_t extra = r % 128 < 64 ? (r >> 16) % 128 : (r >> 16) % 4 * CC_CACHE_SECTOR_BYTES;
      stride = CC_CACHE_LINE_BYTES * (1 + (r >> 8) % 64) + extra;
    }
    if (r % 256 == 1) {
      mask = masks[(r >> 8) % 4];
      index = (r >> 12) % 4 == 0 ? CC_CACHE_INDEX_MOD : CC_CACHE_INDEX_HASH;
    }
    sampling(&c, index, mask);
    x += (uint64_t)d;
    if (stride % CC_CACHE_SECTOR_BYTES == 0 && (r >> 20) % 2) { /* LANES: sectors */
      x -= x % CC_CACHE_SECTOR_BYTES;
      k = (struct form_key){FORM_LANES, x / CC_CACHE_SECTOR_BYTES, stride};
    } else {
      k = (struct form_key){FORM_STRIDED, x, stride};
    }
    want = reference(index, mask, x, stride);
    got = sample_lanes(&c, &m, k);
    if (got != want)
      fail_msg("walk %u: x %llu stride %llu mask %u index %d: lanes %08x, want %08x", i,
               (unsigned long long)x, (unsigned long long)stride, mask, (int)index, got,
               want);
    assert_int_equal(sample_lanes(&c, NULL, k), want);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_moves_up_by_hand),
      cmocka_unit_test(test_moves_keep_the_others),
      cmocka_unit_test(test_moves_down_by_hand),
      cmocka_unit_test(test_other_sampling),
      cmocka_unit_test(test_walks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
