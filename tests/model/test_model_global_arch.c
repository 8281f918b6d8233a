/* Global-memory models of every generation on hand-built warp records.
 *
 * Every row of the table gives one access and, per model, the requests, transactions and
 * bytes transferred derived by hand from the rules of MODELS.md (restated at the top of
 * src/model/global_*.c). Addresses start at B = 0x1000 = 4096 (aligned to 256), lane i at
 * B + i * stride unless said otherwise; "hw" = half-warp (lanes 0-15, 16-31).
 *
 * Rules in one line each:
 *   cc1.0: per hw; words of 4/8/16 bytes, lane k of the hw at seg + k*size, seg aligned
 *          to 64/128/256 -> one 64, one 128 or two 128-byte transactions; else one
 *          32-byte transaction per active lane.
 *   cc1.2: per hw; segment (32/64/128 bytes for 1/2/4+-byte words) of the lowest unserved
 *          lane serves every lane in it; 128 -> 64 if one half used, 64 -> 32 likewise.
 *   cc2.0: 1 request (<= 4-byte words), 2 (8-byte: hw), 4 (16-byte: quarter-warps); per
 *          request one 128-byte line (L1, loads) or 32-byte segment (L2 only; stores,
 *          atomics) per distinct unit; local memory always 128-byte lines.
 *   cc3.5, sm_90: 1 request, one 32-byte sector per distinct sector. */
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

/* columns of the table */
enum { M_CC10, M_CC12, M_CC20_L1, M_CC20_L2, M_SECTOR, N_MODELS };

struct fig {
  uint32_t requests, transactions, bytes;
};

struct row {
  const char *what;
  enum cc_access_kind kind;
  enum cc_space space;
  uint64_t base, stride;
  uint32_t size, mask;
  int permute;          /* 1: lane i reads word i ^ 1 (pairs swapped) */
  struct fig f[N_MODELS];
};

/* clang-format off */
static const struct row rows[] = {
  /* cc1.0: hw h at B + 64h, 64-aligned, in sequence -> 1 x 64 each.
   * cc1.2: hw0 bytes B..B+63 in segment B (128): lower half -> 64; both 32-halves -> 64.
   *        hw1 B+64..B+127: upper half -> 64. cc2.0 L1: bytes B..B+127 = 1 line.
   * L2 / sectors: 128 bytes = 4 segments. */
  { "coalesced 4-byte", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, ALL, 0,
    { { 2, 2, 128 }, { 2, 2, 128 }, { 1, 1, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  /* stride 2 words (8 bytes): cc1.0 out of sequence -> 16 x 32 per hw = 32, 1024 bytes.
   * cc1.2: hw0 B..B+123 in one 128 segment, both halves -> 128; hw1 at B+128.. -> 128.
   * cc2.0 L1: bytes B..B+251 = lines B, B+128 -> 2. L2 / sectors: 4 lanes per 32 -> 8. */
  { "stride 2 words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 8, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 256 }, { 1, 2, 256 }, { 1, 8, 256 }, { 1, 8, 256 } } },
  /* stride 4 words (16 bytes): cc1.2 hw0 lanes 0-7 in segment B, 8-15 in B+128, each
   * using bytes across its middle -> 2 x 128 per hw = 4, 512. L1: B..B+499 -> 4 lines.
   * L2 / sectors: 2 lanes per 32 bytes -> 16. */
  { "stride 4 words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 16, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 4, 512 }, { 1, 4, 512 }, { 1, 16, 512 }, { 1, 16, 512 } } },
  /* stride 8 words (32 bytes): cc1.2: 4 lanes per 128 segment (bytes 0..99 of it, both
   * halves) -> 4 x 128 per hw = 8, 1024. L1: B..B+995 -> 8 lines. L2 / sectors: 32. */
  { "stride 8 words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 32, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 8, 1024 }, { 1, 8, 1024 }, { 1, 32, 1024 }, { 1, 32, 1024 } } },
  /* stride 32 words (128 bytes): cc1.2: each lane alone in its segment, 4 bytes used ->
   * 128 -> 64 -> 32: 32 x 32 = 1024. L1: 32 lines x 128 = 4096. L2 / sectors: 32. */
  { "stride 32 words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 128, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 32, 1024 }, { 1, 32, 4096 }, { 1, 32, 1024 }, { 1, 32, 1024 } } },
  /* misaligned by one word, base B+4: cc1.0 hw segment B+4 not 64-aligned -> 32 x 32.
   * cc1.2: hw0 B+4..B+67 in segment B, crosses B+64 -> 128. hw1: lanes 16-30 at
   * B+68..B+127 in segment B, upper half -> 64 at B+64, crosses B+96 -> 64; lane 31 at
   * B+128 alone -> 32. 3 transactions, 128 + 64 + 32 = 224.
   * L1: B+4..B+131 -> 2 lines. L2 / sectors: bytes 4..131 -> segments 0..4 = 5. */
  { "misaligned by one word", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B + 4, 4, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 3, 224 }, { 1, 2, 256 }, { 1, 5, 160 }, { 1, 5, 160 } } },
  /* lane i reads word i ^ 1: the same bytes as the coalesced row, lanes k out of
   * sequence: cc1.0 32 x 32; every other model as coalesced (any order within a segment) */
  { "permutation in a segment", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, ALL, 1,
    { { 2, 32, 1024 }, { 2, 2, 128 }, { 1, 1, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  /* 8-byte words contiguous: cc1.0 hw h at B + 128h, 128-aligned -> 1 x 128 each.
   * cc1.2: hw0 B..B+127 = 1 segment, both halves -> 128; hw1 likewise. cc2.0: 2 requests
   * (hw), 1 line each; L2: 4 segments each = 8. sectors: 256 bytes = 8. */
  { "8-byte words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 8, 8, ALL, 0,
    { { 2, 2, 256 }, { 2, 2, 256 }, { 2, 2, 256 }, { 2, 8, 256 }, { 1, 8, 256 } } },
  /* 16-byte words contiguous: cc1.0 hw h at B + 256h, 256-aligned -> 2 x 128 each = 4.
   * cc1.2: hw0 lanes 0-7 in segment B, 8-15 in B+128 -> 2 x 128 per hw = 4. cc2.0: 4
   * requests (quarter-warps) of 128 bytes = 1 line each; L2 4 segments each = 16.
   * sectors: 512 bytes = 16 (one request on sm_90: measured, global_sector32.c). */
  { "16-byte words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 16, 16, ALL, 0,
    { { 2, 4, 512 }, { 2, 4, 512 }, { 4, 4, 512 }, { 4, 16, 512 }, { 1, 16, 512 } } },
  /* 8-byte words from B+64: cc1.0 hw0 segment B+64 not 128-aligned -> 32 x 32. cc1.2:
   * hw0 lanes 0-7 at B+64..B+127 (segment B, upper half, both quarters -> 64), lanes
   * 8-15 at B+128..B+191 (segment B+128, lower half -> 64); hw1 lanes 16-23 at
   * B+192..B+255 -> 64, lanes 24-31 at B+256..B+319 -> 64: 4 x 64 = 256. cc2.0 L1: hw0
   * B+64..B+191 -> lines B, B+128; hw1 B+192..B+319 -> lines B+128, B+256: 4 x 128.
   * L2: 4 segments per hw = 8. sectors: bytes 64..319 -> sectors 2..9 = 8. */
  { "8-byte words misaligned", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B + 64, 8, 8, ALL, 0,
    { { 2, 32, 1024 }, { 2, 4, 256 }, { 2, 4, 512 }, { 2, 8, 256 }, { 1, 8, 256 } } },
  /* even lanes only, stride 4: cc1.0 the active lanes k are still at seg + 4k: inactive
   * lanes do not break coalescing -> 1 x 64 per hw. cc1.2: hw0 bytes B..B+59 -> lower
   * half -> 64, crosses B+32 -> 64; hw1 B+64..B+123 -> 64. L1: 1 line. L2 / sectors:
   * bytes 0..123 -> 4. */
  { "even lanes", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, 0x55555555u, 0,
    { { 2, 2, 128 }, { 2, 2, 128 }, { 1, 1, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  /* lanes 0-3 only: cc1.0 one hw, coalesced -> 1 x 64. cc1.2: B..B+15 -> 128 -> 64 ->
   * 32. L1: 1 line. L2 / sectors: 1. */
  { "lanes 0-3", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, 0xfu, 0,
    { { 1, 1, 64 }, { 1, 1, 32 }, { 1, 1, 128 }, { 1, 1, 32 }, { 1, 1, 32 } } },
  /* all lanes read B+64: cc1.0 not in sequence -> 32 x 32. cc1.2: per hw, segment B,
   * bytes B+64..B+67 -> upper half 64 -> lower quarter 32: 2 x 32. L1: 1 line. L2 /
   * sectors: 1. */
  { "one address", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B + 64, 0, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 64 }, { 1, 1, 128 }, { 1, 1, 32 }, { 1, 1, 32 } } },
  /* no active lane: the instruction still counts one request, nothing moves */
  { "no lane", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 4, 0, 0,
    { { 1, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 }, { 1, 0, 0 } } },
  /* 1-byte words contiguous: cc1.0 never coalesces 1-byte words -> 32 x 32. cc1.2:
   * 32-byte segments: hw0 B..B+15 and hw1 B+16..B+31 both in segment B -> 1 x 32 each.
   * L1: 1 line. L2 / sectors: 1. */
  { "1-byte words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 1, 1, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 64 }, { 1, 1, 128 }, { 1, 1, 32 }, { 1, 1, 32 } } },
  /* 1-byte words, stride 2: cc1.2 hw0 B..B+30 (segment B), hw1 B+32..B+62 (segment
   * B+32) -> 2 x 32. L1: 1 line. L2 / sectors: bytes 0..62 -> 2. */
  { "1-byte words stride 2", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 2, 1, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 64 }, { 1, 1, 128 }, { 1, 2, 64 }, { 1, 2, 64 } } },
  /* 2-byte words contiguous: cc1.2 64-byte segment B: hw0 B..B+31 lower half -> 32; hw1
   * B+32..B+63 upper half -> 32. L1: 1 line. L2 / sectors: 64 bytes -> 2. */
  { "2-byte words", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 2, 2, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 64 }, { 1, 1, 128 }, { 1, 2, 64 }, { 1, 2, 64 } } },
  /* 2-byte words, 4 bytes apart: cc1.2 hw0 B..B+61 in segment B (64), both halves -> 64;
   * hw1 B+64..B+125 in segment B+64 -> 64. L1: 1 line. L2 / sectors: bytes 0..125 -> 4. */
  { "2-byte words stride 2", CC_ACCESS_LOAD, CC_SPACE_GLOBAL, B, 4, 2, ALL, 0,
    { { 2, 32, 1024 }, { 2, 2, 128 }, { 1, 1, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  /* stores: cc2.0 writes 32-byte segments to L2 whatever the L1 option; cc1.x and
   * sectors as for loads. Coalesced: 4 segments. Stride 32 words: 32 segments. */
  { "store coalesced", CC_ACCESS_STORE, CC_SPACE_GLOBAL, B, 4, 4, ALL, 0,
    { { 2, 2, 128 }, { 2, 2, 128 }, { 1, 4, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  { "store stride 32 words", CC_ACCESS_STORE, CC_SPACE_GLOBAL, B, 128, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 32, 1024 }, { 1, 32, 1024 }, { 1, 32, 1024 }, { 1, 32, 1024 } } },
  /* 8-byte store contiguous: cc2.0 2 requests of 128 bytes = 4 segments each = 8 */
  { "store 8-byte words", CC_ACCESS_STORE, CC_SPACE_GLOBAL, B, 8, 8, ALL, 0,
    { { 2, 2, 256 }, { 2, 2, 256 }, { 2, 8, 256 }, { 2, 8, 256 }, { 1, 8, 256 } } },
  /* atomics are performed in L2 on cc2.0: 32-byte segments, like stores */
  { "atomic coalesced", CC_ACCESS_ATOMIC, CC_SPACE_GLOBAL, B, 4, 4, ALL, 0,
    { { 2, 2, 128 }, { 2, 2, 128 }, { 1, 4, 128 }, { 1, 4, 128 }, { 1, 4, 128 } } },
  /* Local memory: addresses are offsets in each lane's own window, laid out by the model
   * as the hardware interleaves them: 32-bit word w of lane l at w * 128 + l * 4; wider
   * accesses cost one 4-byte access per word.
   * On cc2.0 local memory is always cached in L1: 128-byte lines even with L1 off.
   * Offset B + 128 i of lane i: element 1024 + 32 i at (1024 + 32 i) * 128 + 4 i, lanes
   * 4096 + 4 bytes apart: each lane alone in its sector, line and cc1.2 segment (32 B). */
  { "local stride 32 words", CC_ACCESS_LOAD, CC_SPACE_LOCAL, B, 128, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 32, 1024 }, { 1, 32, 4096 }, { 1, 32, 4096 }, { 1, 32, 1024 } } },
  /* every lane reads its own variable at offset 8: element 2 -> 256 + 4 l, 128 contiguous
   * bytes at 256: coalesced on every model (the guide: "fully coalesced as long as all
   * threads in a warp access the same relative address"). cc1.0: hw at 256 and 320,
   * 64-aligned -> 2 x 64. cc1.2: segment 256, halves -> 2 x 64. cc2.0: 1 line. 4 sectors. */
  { "local one variable", CC_ACCESS_LOAD, CC_SPACE_LOCAL, 8, 0, 4, ALL, 0,
    { { 2, 2, 128 }, { 2, 2, 128 }, { 1, 1, 128 }, { 1, 1, 128 }, { 1, 4, 128 } } },
  /* 8-byte variable at offset 16: words 4 and 5 of every lane -> 512 + 4 l and 640 + 4 l,
   * two 4-byte accesses of 128 contiguous bytes each, costed like "local one variable":
   * cc1.0 and cc1.2 2 x (2 x 64) = 4 requests, 4 transactions; cc2.0 2 x 1 line; sm_90 2
   * requests (as Nsight Compute counts an 8-byte STL on the H200) of 4 sectors = 8. */
  { "local 8-byte variable", CC_ACCESS_STORE, CC_SPACE_LOCAL, 16, 0, 8, ALL, 0,
    { { 4, 4, 256 }, { 4, 4, 256 }, { 2, 2, 256 }, { 2, 2, 256 }, { 2, 8, 256 } } },
  /* local float a[32] indexed by the lane: offset 4 l = element l -> l * 128 + 4 l = 132 l:
   * cc1.0 out of sequence -> 32 x 32; cc1.2: 132 > 128, each lane alone in its segment,
   * 4 bytes used -> 32 x 32; cc2.0: 32 lines; 32 sectors. */
  { "local array by lane", CC_ACCESS_LOAD, CC_SPACE_LOCAL, 0, 4, 4, ALL, 0,
    { { 2, 32, 1024 }, { 2, 32, 1024 }, { 1, 32, 4096 }, { 1, 32, 4096 }, { 1, 32, 1024 } } },
};
/* clang-format on */

static struct cc_warp_access make(const struct row *r)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.kind = r->kind;
  a.space = r->space;
  a.size_bytes = r->size;
  a.active = r->mask;
  for (uint64_t i = 0; i < CC_WARP_SIZE; i++)
    a.addr[i] = r->base + (r->permute ? (i ^ 1u) : i) * r->stride;
  return a;
}

static struct cc_model *get(const char *arch, int l1)
{
  struct cc_model *m = NULL;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .l1_cache = l1 };
  assert_int_equal(cc_model_get(arch, &o, &m, &err), CC_OK);
  assert_non_null(m);
  return m;
}

/* Checks every row under the model `arch` against column col. The sector geometry
 * (sectors, ideal sectors, lines) is the same under every model: it must equal the
 * sector column's transactions. */
static void check_column(const char *arch, int l1, int col)
{
  struct cc_model *m = get(arch, l1);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    struct cc_warp_access a = make(&rows[i]);
    struct cc_global_cost c;
    cc_model_global(m, &a, &c);
    const struct fig *f = &rows[i].f[col];
    if (c.requests != f->requests || c.transactions != f->transactions ||
        c.transaction_bytes != f->bytes || c.sectors != rows[i].f[M_SECTOR].transactions)
      print_error("%s, row '%s': got %u requests, %u transactions, %u bytes, %u sectors\n",
                  arch, rows[i].what, c.requests, c.transactions, c.transaction_bytes,
                  c.sectors);
    assert_int_equal(c.requests, rows[i].f[col].requests);
    assert_int_equal(c.transactions, rows[i].f[col].transactions);
    assert_int_equal(c.transaction_bytes, rows[i].f[col].bytes);
    assert_int_equal(c.sectors, rows[i].f[M_SECTOR].transactions);
    assert_int_equal(c.bytes_requested, cc_access_lanes(&a) * rows[i].size);
  }
  cc_model_free(m);
}

static void test_cc10(void **state)
{
  (void)state;
  check_column("cc1.0", 0, M_CC10);
  check_column("cc1.1", 0, M_CC10); /* same rule (G.3.2.1 covers 1.0 and 1.1) */
  check_column("sm_10", 0, M_CC10);
}

static void test_cc12(void **state)
{
  (void)state;
  check_column("cc1.2", 0, M_CC12);
  check_column("cc1.3", 0, M_CC12);
}

static void test_cc20(void **state)
{
  (void)state;
  check_column("cc2.0", CC_MODEL_L1_DEFAULT, M_CC20_L1); /* default: cached in L1 */
  check_column("cc2.0", CC_MODEL_L1_ON, M_CC20_L1);
  check_column("cc2.1", CC_MODEL_L1_ON, M_CC20_L1);
  check_column("cc2.0", CC_MODEL_L1_OFF, M_CC20_L2);
  check_column("sm_21", CC_MODEL_L1_OFF, M_CC20_L2);
}

static void test_sector_models(void **state)
{
  (void)state;
  check_column("cc3.0", 0, M_SECTOR);
  check_column("cc3.5", 0, M_SECTOR);
  check_column("sm_90", 0, M_SECTOR);
  /* the L1 option changes nothing where every access moves 32-byte sectors */
  check_column("sm_90", CC_MODEL_L1_OFF, M_SECTOR);
  check_column("cc3.5", CC_MODEL_L1_ON, M_SECTOR);
}

/* The byte geometry of one row under every model: misaligned by one word, bytes 4..131
 * -> sectors 0..4 = 5, lines 0..1 = 2, unique 128 -> ideal 4, requested 128. */
static void test_geometry_same(void **state)
{
  (void)state;
  const char *names[] = { "cc1.0", "cc1.2", "cc2.0", "cc3.5", "sm_90" };
  struct cc_warp_access a = make(&rows[5]);
  assert_string_equal(rows[5].what, "misaligned by one word");
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    struct cc_model *m = get(names[i], 0);
    struct cc_global_cost c;
    cc_model_global(m, &a, &c);
    assert_int_equal(c.sectors, 5);
    assert_int_equal(c.lines, 2);
    assert_int_equal(c.ideal_sectors, 4);
    assert_int_equal(c.unique_bytes, 128);
    assert_int_equal(c.bytes_requested, 128);
    cc_model_free(m);
  }
}

/* W of Algorithm 1: 16 below cc2.0 (CGO 2015), 32 from cc2.0 on; names kept as asked */
static void test_registry_old(void **state)
{
  (void)state;
  struct { const char *name, *canon; uint32_t w; } t[] = {
    { "cc1.0", "cc1.0", 16 }, { "cc1.1", "cc1.1", 16 }, { "cc1.2", "cc1.2", 16 },
    { "cc1.3", "cc1.3", 16 }, { "sm_13", "cc1.3", 16 }, { "cc2.0", "cc2.0", 32 },
    { "cc2.1", "cc2.1", 32 }, { "sm_20", "cc2.0", 32 }, { "cc3.7", "cc3.7", 32 },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    struct cc_model *m = get(t[i].name, 0);
    assert_string_equal(cc_model_name(m), t[i].canon);
    assert_int_equal(cc_model_group_lanes(m), t[i].w);
    assert_non_null(cc_model_global_family(m));
    assert_non_null(cc_model_shared_family(m));
    cc_model_free(m);
  }
  struct cc_model *m = get("cc1.2", 0);
  assert_non_null(strstr(cc_model_global_family(m), "segment"));
  assert_non_null(strstr(cc_model_shared_family(m), "16 banks"));
  cc_model_free(m);
}

/* options: l1_cache outside -1..1 and bank width 8 outside cc3.x are usage errors */
static void test_bad_options(void **state)
{
  (void)state;
  struct cc_model *m = (struct cc_model *)1;
  struct cc_err err = { 0 };
  struct cc_model_opts o = { .l1_cache = 2 };
  assert_int_equal(cc_model_get("cc2.0", &o, &m, &err), CC_ERR_USAGE);
  assert_null(m);
  assert_non_null(strstr(err.msg, "l1 cache option 2"));
  o.l1_cache = -2;
  assert_int_equal(cc_model_get("sm_90", &o, &m, &err), CC_ERR_USAGE);
  o = (struct cc_model_opts){ .smem_bank_width = 8 };
  assert_int_equal(cc_model_get("cc2.0", &o, &m, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "not available on cc2.0"));
  assert_int_equal(cc_model_get("cc1.2", &o, &m, &err), CC_ERR_USAGE);
}

static void test_list(void **state)
{
  (void)state;
  struct cc_model **ms = (struct cc_model **)1;
  size_t n = 99;
  struct cc_err err = { 0 };
  assert_int_equal(cc_model_get_list("cc1.0,sm_12,sm_90", NULL, &ms, &n, &err), CC_OK);
  assert_int_equal(n, 3);
  assert_string_equal(cc_model_name(ms[0]), "cc1.0");
  assert_string_equal(cc_model_name(ms[1]), "cc1.2");
  assert_string_equal(cc_model_name(ms[2]), "sm_90");
  cc_model_free_list(ms, n);
  assert_int_equal(cc_model_get_list("cc2.0", NULL, &ms, &n, &err), CC_OK);
  assert_int_equal(n, 1);
  cc_model_free_list(ms, n);
  cc_model_free_list(NULL, 0);

  struct { const char *list, *msg; } bad[] = {
    { "", "empty architecture list" },
    { "cc1.0,,sm_90", "empty name" },
    { "cc1.0,", "empty name" },
    { "sm_80,cc8.0", "sm_80 is named twice" },
    { "cc1.0,sm_99", "unknown architecture 'sm_99'" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ms = (struct cc_model **)1;
    n = 99;
    assert_int_equal(cc_model_get_list(bad[i].list, NULL, &ms, &n, &err), CC_ERR_USAGE);
    assert_null(ms);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err.msg, bad[i].msg));
  }
  assert_int_equal(cc_model_get_list(NULL, NULL, &ms, &n, &err), CC_ERR_USAGE);
  /* an option one of the list lacks fails the whole list */
  struct cc_model_opts o = { .smem_bank_width = 8 };
  assert_int_equal(cc_model_get_list("cc3.5,sm_90", &o, &ms, &n, &err), CC_ERR_USAGE);
  assert_null(ms);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cc10),          cmocka_unit_test(test_cc12),
    cmocka_unit_test(test_cc20),          cmocka_unit_test(test_sector_models),
    cmocka_unit_test(test_geometry_same), cmocka_unit_test(test_registry_old),
    cmocka_unit_test(test_bad_options),   cmocka_unit_test(test_list),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
