/* Shared-memory models of every generation on hand-built warp records.
 *
 * Per model the table gives {requests, ways, wavefronts, ideal wavefronts}, derived by
 * hand from the rules (MODELS.md; src/model/shared_banks16.c, shared_banks32.c):
 *   cc1.x (16 banks): bank = (byte / 4) % 16; one request per active half-warp (hw) and
 *     32-bit piece (8-byte accesses: 2 pieces, 16-byte: 4); each request takes steps: a
 *     read step serves the broadcast word (that of the lowest unserved lane) plus one
 *     address per other bank; ways = most steps of a request, wavefronts = all steps.
 *   cc2.0, cc3.5, sm_90 (32 banks x 4 bytes): bank = (byte / 4) % 32, multicast; 8-byte
 *     accesses in 2 phases (hw), 16-byte in 4 (quarter-warps); ways = most distinct words
 *     in one bank of one phase; wavefronts = sum over active phases of max(1, ways).
 *   cc3.5 with 8-byte banks: bank = (byte / 8) % 32; a phase carries 256 bytes (4- and
 *     8-byte accesses: one phase; 16-byte: two, per hw).
 * Word w below is a 4-byte word (byte 4w) unless said otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

#define ALL 0xffffffffu

enum { M_CC1, M_BANKS32, M_BANK8, N_MODELS };

struct sfig {
  uint32_t requests, ways, wavefronts, ideal;
};

/* How lane i's address is made: base + i * stride, or a tile read by column. */
enum shape { LINEAR, TILE16, TILE32 };

struct srow {
  const char *what;
  enum cc_access_kind kind;
  enum shape shape;
  uint64_t base, stride; /* LINEAR: bytes; TILE*: stride = row length in words */
  uint32_t size, mask;
  struct sfig f[N_MODELS];
};

/* clang-format off */
static const struct srow rows[] = {
  /* stride 1 word: cc1 hw words 16h..16h+15 -> banks 0..15 once: 1 step each hw.
   * 32 banks: banks 0..31 once. bank8: lanes 2j, 2j+1 share 8-byte word j (multicast),
   * banks 0..15 once. */
  { "stride 1", CC_ACCESS_LOAD, LINEAR, 0, 4, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* stride 2 words: cc1 hw0 words 0,2,..,30: banks 0,2,..,14 hold words w and w+16.
   * Step 1: broadcast word 0, one address in banks 2..14 (words 2..14); step 2: the
   * rest (words 16..30) -> 2 steps per hw. 32 banks: words 0..62 even, banks 0..30 even
   * twice each -> 2-way. bank8: 8-byte word = lane i -> banks 0..31 once. */
  { "stride 2", CC_ACCESS_LOAD, LINEAR, 0, 8, 4, ALL,
    { { 2, 2, 4, 2 }, { 1, 2, 2, 1 }, { 1, 1, 1, 1 } } },
  /* stride 16 words: cc1 hw words 16k all in bank 0, 16 distinct -> 16 steps per hw.
   * 32 banks: word 16i in bank 0 (i even) or 16 (odd), 16 words each -> 16-way.
   * bank8: 8-byte word 8i, bank 0, 8, 16 or 24, 8 words each -> 8-way. */
  { "stride 16", CC_ACCESS_LOAD, LINEAR, 0, 64, 4, ALL,
    { { 2, 16, 32, 2 }, { 1, 16, 16, 1 }, { 1, 8, 8, 1 } } },
  /* stride 32 words: cc1 all in bank 0, 16 per hw -> 16 steps each. 32 banks: 32 words
   * in bank 0 -> 32-way. bank8: 8-byte word 16i, banks 0 and 16, 16 each -> 16-way. */
  { "stride 32", CC_ACCESS_LOAD, LINEAR, 0, 128, 4, ALL,
    { { 2, 16, 32, 2 }, { 1, 32, 32, 1 }, { 1, 16, 16, 1 } } },
  /* stride 33 words: cc1 bank 33k % 16 = k % 16 distinct. 32 banks: 33i % 32 = i.
   * bank8: byte 132i, 8-byte word floor(16.5 i): i = 2m -> 33m, bank m (0..15);
   * i = 2m+1 -> 33m + 16, bank m + 16 (16..31): all distinct. */
  { "stride 33", CC_ACCESS_LOAD, LINEAR, 0, 132, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* every lane reads byte 20: cc1 the broadcast word serves the whole hw in 1 step */
  { "broadcast one word", CC_ACCESS_LOAD, LINEAR, 20, 0, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* float tile[16][16], block 16x16, warp 0 (ty = lane / 16, tx = lane % 16) reads
   * tile[tx][ty]: word 16tx + ty. cc1: hw0 words 16tx, all bank 0 -> 16 steps; hw1
   * bank 1 -> 16: 16-way, 32 wavefronts (EuroVis 2013: "16-way bank conflict for 32
   * serialized transactions"). 32 banks: bank ty (tx even) or 16 + ty (tx odd), 8 words
   * each -> 8-way, 8 wavefronts (EuroVis: "8-way conflict with 8 serialized
   * transactions" on 2.x). bank8: 8-byte word floor((16tx + ty) / 2) = 8tx, the same
   * for ty = 0 and 1 (multicast); bank 8tx % 32 in {0, 8, 16, 24}, 4 words each. */
  { "tile 16x16 by column", CC_ACCESS_LOAD, TILE16, 0, 16, 4, ALL,
    { { 2, 16, 32, 2 }, { 1, 8, 8, 1 }, { 1, 4, 4, 1 } } },
  /* padded tile[16][17]: word 17tx + ty. cc1: bank (tx + ty) % 16 distinct in each hw:
   * conflict-free (EuroVis Listing 3). 32 banks: ty = 0 gives banks {0,2,..,14} (tx
   * even: 17tx = tx mod 32) and {17,19,..,31} (tx odd); ty = 1 the same plus one:
   * {1,3,..,15} and {18,..,30, 0}. Only bank 0 is hit twice (words 0 and 17*15+1 =
   * 256) -> 2-way (EuroVis 6.2.2: "in rare cases ... a 2-way bank conflict persists").
   * bank8: tx = 2m -> 8-byte word 17m for both ty (banks 0,17,2,19,4,21,6,23); tx =
   * 2m+1 -> 17m+8 (banks 8,25,..,31) and 17m+9 (banks 9,26,..,15, and 128 -> 0): bank
   * 0 twice -> 2-way. */
  { "tile 16x17 by column", CC_ACCESS_LOAD, TILE16, 0, 17, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 2, 2, 1 }, { 1, 2, 2, 1 } } },
  /* float tile[32][32], block 32x8, warp 3 (ty = 3, tx = lane) reads tile[tx][ty]: word
   * 32tx + 3. cc1: bank 3 for all, 16 words per hw -> 16 steps each. 32 banks: bank 3,
   * 32 words -> 32-way. bank8: 8-byte word 16tx + 1, banks 1 and 17, 16 each. */
  { "tile 32x32 by column", CC_ACCESS_LOAD, TILE32, 0, 32, 4, ALL,
    { { 2, 16, 32, 2 }, { 1, 32, 32, 1 }, { 1, 16, 16, 1 } } },
  /* padded tile[32][33]: word 33tx + 3. cc1: bank (tx + 3) % 16 distinct per hw. 32
   * banks: (tx + 3) % 32 distinct. bank8: tx = 2m -> 8-byte word 33m + 1, bank m + 1
   * (1..16); tx = 2m+1 -> 33m + 18, bank (m + 18) % 32 (18..31, 0, 1): bank 1 twice
   * (words 1 and 513) -> 2-way. */
  { "tile 32x33 by column", CC_ACCESS_LOAD, TILE32, 0, 33, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 2, 2, 1 } } },
  /* 64-bit, lane i at 8i. cc1: two 32-bit pieces per hw, piece p reads words 2k + p:
   * banks of one parity, two words each (2k+p, 2k+p+16) -> 2 steps: 4 requests, 2-way,
   * 8 wavefronts (the guide: shared doubles have 2-way conflicts on 1.x). 32 banks: hw
   * phases, words 0..31 and 32..63 -> 1-way each, 2 wavefronts. bank8: word i, bank i,
   * one phase. */
  { "64-bit", CC_ACCESS_LOAD, LINEAR, 0, 8, 8, ALL,
    { { 4, 2, 8, 4 }, { 1, 1, 2, 2 }, { 1, 1, 1, 1 } } },
  /* 128-bit, lane i at 16i. cc1: four pieces per hw, piece p reads words 4k + p, banks
   * p, p+4, p+8, p+12 with 4 words each -> 4 steps: 8 requests, 4-way, 32 wavefronts.
   * 32 banks: quarter-warp q reads words 32q..32q+31 -> 4 phases, 1-way. bank8: two
   * phases (hw), 8-byte words 0..31 and 32..63 -> 1-way each. */
  { "128-bit", CC_ACCESS_LOAD, LINEAR, 0, 16, 16, ALL,
    { { 8, 4, 32, 8 }, { 1, 1, 4, 4 }, { 1, 1, 2, 2 } } },
  /* char at byte k (shared[tid]): cc1 hw0 bytes 0..15 = words 0..3 (banks 0..3), four
   * addresses each. Step 1: word 0 broadcast (lanes 0-3), banks 1-3 one lane each
   * (4, 8, 12); step 2: word 1 (5-7), lanes 9, 13; step 3: word 2 (10, 11), lane 14;
   * step 4: lane 15 -> 4 steps per hw (the guide's char example conflicts on 1.x).
   * 32 banks: words 0..7, multicast -> 1-way. bank8: 8-byte words 0..3 -> 1-way. */
  { "char contiguous", CC_ACCESS_LOAD, LINEAR, 0, 1, 1, ALL,
    { { 2, 4, 8, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* char at byte 4k (shared[4 * tid]): one lane per word, banks distinct: no conflict */
  { "char stride 4", CC_ACCESS_LOAD, LINEAR, 0, 4, 1, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* two lanes, 2-byte at bytes 0 and 2 (one word): a read broadcasts the word -> 1 step;
   * a write has no broadcast, two addresses in bank 0 -> 2 steps. 32 banks: one word. */
  { "short pair read", CC_ACCESS_LOAD, LINEAR, 0, 2, 2, 0x3u,
    { { 1, 1, 1, 1 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  { "short pair write", CC_ACCESS_STORE, LINEAR, 0, 2, 2, 0x3u,
    { { 1, 2, 2, 1 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* every lane writes word 5: one address -> 1 step per hw on cc1 */
  { "store one address", CC_ACCESS_STORE, LINEAR, 20, 0, 4, ALL,
    { { 2, 1, 2, 2 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } } },
  /* lanes 0-15 only, stride 16 words: cc1 one hw, 16 steps. 32 banks: words 16i, i < 16,
   * banks 0 and 16 with 8 each -> 8-way. bank8: 8-byte words 8i, banks 0, 8, 16, 24,
   * 4 each. */
  { "half warp stride 16", CC_ACCESS_LOAD, LINEAR, 0, 64, 4, 0xffffu,
    { { 1, 16, 16, 1 }, { 1, 8, 8, 1 }, { 1, 4, 4, 1 } } },
  /* no lane active: one request, nothing else */
  { "no lane", CC_ACCESS_LOAD, LINEAR, 0, 4, 4, 0,
    { { 1, 0, 0, 0 }, { 1, 0, 0, 0 }, { 1, 0, 0, 0 } } },
};
/* clang-format on */

static struct cc_warp_access make(const struct srow *r)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = r->kind;
  a.space = CC_SPACE_SHARED;
  a.size_bytes = r->size;
  a.active = r->mask;
  for (uint64_t i = 0; i < CC_WARP_SIZE; i++) {
    uint64_t tx, ty;
    switch (r->shape) {
    case LINEAR:
      a.addr[i] = r->base + i * r->stride;
      break;
    case TILE16: /* block 16x16, warp 0: tile[tx][ty], rows of `stride` words */
      tx = i % 16;
      ty = i / 16;
      a.addr[i] = 4 * (tx * r->stride + ty);
      break;
    case TILE32: /* block 32x8, warp 3: tile[tx][3] */
      tx = i;
      ty = 3;
      a.addr[i] = 4 * (tx * r->stride + ty);
      break;
    }
  }
  return a;
}

static void check_column(const char *arch, int bank_width, int col)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .smem_bank_width = bank_width };
  assert_int_equal(cc_model_get(arch, &o, &m, &err), CC_OK);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    struct cc_warp_access a = make(&rows[i]);
    struct cc_shared_cost c;
    const struct sfig *f = &rows[i].f[col];
    cc_model_shared(m, &a, &c);
    if (c.requests != f->requests || c.ways != f->ways || c.wavefronts != f->wavefronts ||
        c.ideal_wavefronts != f->ideal)
      print_error("%s, row '%s': got %u requests, %u ways, %u wavefronts, %u ideal\n", arch,
                  rows[i].what, c.requests, c.ways, c.wavefronts, c.ideal_wavefronts);
    assert_int_equal(c.requests, f->requests);
    assert_int_equal(c.ways, f->ways);
    assert_int_equal(c.wavefronts, f->wavefronts);
    assert_int_equal(c.ideal_wavefronts, f->ideal);
  }
  cc_model_free(m);
}

static void test_cc1x(void **state)
{
  (void)state;
  check_column("cc1.0", 0, M_CC1);
  check_column("cc1.1", 0, M_CC1);
  check_column("cc1.2", 4, M_CC1);
  check_column("cc1.3", 0, M_CC1);
}

static void test_banks32(void **state)
{
  (void)state;
  check_column("cc2.0", 0, M_BANKS32);
  check_column("cc2.1", 4, M_BANKS32);
  check_column("cc3.0", 0, M_BANKS32);
  check_column("cc3.5", 4, M_BANKS32);
  check_column("sm_90", 0, M_BANKS32);
}

static void test_bank8(void **state)
{
  (void)state;
  check_column("cc3.0", 8, M_BANK8);
  check_column("cc3.5", 8, M_BANK8);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cc1x),
    cmocka_unit_test(test_banks32),
    cmocka_unit_test(test_bank8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
