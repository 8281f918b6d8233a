/* Emulator: records of any number of active lanes through the parallel run's buffers
 * (src/emu/par.c keeps a record as its fields and the addresses of its active lanes only,
 * and unpacks it for the sink; src/emu/README.md "Parallel CTAs").
 * - warps whose stores run with 0 .. 32 active lanes in scattered masks, at every access
 *   size (1 .. 32 bytes): at 1 thread (no buffer) and at 3 threads with the default
 *   budget, a 1-byte one (the oldest chunk delivers its records itself), 64 KiB (slots
 *   wait for room, buffers of a few CTAs) and 1 MiB (buffers that grow), the sink receives
 *   the records the kernel's semantics give, in CTA order, with the addresses of the
 *   inactive lanes 0 (the emulator leaves them 0; the unpacking must too, whatever lanes
 *   the record before it had).
 * The expected records are derived from the kernel below, not from the packer. */
#include "emu/harness.h"

/* Thread t of CTA c: g = 2c + t / 32 (the warp's number in the grid), lane = t % 32, a
 * 32-byte slot at out + 32 (64 c + t). Every lane loads masks[g] (one record, all 32 lanes
 * at the same address); the lanes whose bit of masks[g] is set then store at their slot
 * with st.u8, .u16, .u32, .u64, .v2.u64 and .v4.u64: six records of 1, 2, 4, 8, 16 and 32
 * bytes a lane, active = masks[g], none when masks[g] is 0 (no lane executes). */
static const char *k_lanes = PTX_HEADER
    ".visible .entry lanes(.param .u64 p_out, .param .u64 p_masks)\n"
    "{\n"
    ".reg .pred %p<2>; .reg .b16 %rs<2>; .reg .b32 %r<10>; .reg .b64 %rd<10>;\n"
    "ld.param.u64 %rd1, [p_out];\n"
    "ld.param.u64 %rd2, [p_masks];\n"
    "cvta.to.global.u64 %rd1, %rd1;\n"
    "cvta.to.global.u64 %rd2, %rd2;\n"
    "mov.u32 %r1, %ctaid.x;\n"
    "mov.u32 %r2, %tid.x;\n"
    "mad.lo.u32 %r5, %r1, 64, %r2;\n"
    "shr.u32 %r6, %r5, 5;\n"
    "mul.wide.u32 %rd3, %r6, 4;\n"
    "add.s64 %rd4, %rd2, %rd3;\n"
    "ld.global.u32 %r3, [%rd4];\n"
    "and.b32 %r7, %r2, 31;\n"
    "shr.u32 %r4, %r3, %r7;\n"
    "and.b32 %r4, %r4, 1;\n"
    "setp.eq.u32 %p1, %r4, 1;\n"
    "mul.wide.u32 %rd5, %r5, 32;\n"
    "add.s64 %rd6, %rd1, %rd5;\n"
    "cvt.u16.u32 %rs1, %r1;\n"
    "@%p1 st.global.u8 [%rd6], %rs1;\n"
    "@%p1 st.global.u16 [%rd6], %rs1;\n"
    "@%p1 st.global.u32 [%rd6], %r1;\n"
    "@%p1 st.global.u64 [%rd6], %rd5;\n"
    "@%p1 st.global.v2.u64 [%rd6], {%rd5, %rd5};\n"
    "@%p1 st.global.v4.u64 [%rd6], {%rd5, %rd5, %rd5, %rd5};\n"
    "ret;\n"
    "}\n";

enum { NCTAS = 1000, NWARPS = 2 * NCTAS };

/* masks[g]: (g % 33) lanes set, scattered: the lanes picked by a xorshift sequence
 * seeded by g, so that consecutive records have unrelated masks (their lanes overlap in
 * every way) and every count 0 .. 32 occurs about 60 times. */
static void make_masks(uint32_t *masks)
{
  for (uint32_t g = 0; g < NWARPS; g++) {
    uint32_t x = 2654435761u * (g + 1), m = 0;
    while ((uint32_t)__builtin_popcount(m) < g % 33) {
      x ^= x << 13;
      x ^= x >> 17;
      x ^= x << 5;
      m |= UINT32_C(1) << (x % 32);
    }
    masks[g] = m;
  }
}

/* One run of lanes with jobs threads and buffer budget bytes (0: the default): its
 * records in rs; the device addresses of out and masks in *out_d, *masks_d. */
static void run_lanes(uint32_t jobs, uint64_t budget, const uint32_t *masks,
                      struct rec_sink *rs, uint64_t *out_d, uint64_t *masks_d)
{
  struct ptx_module *m = parse_ok(k_lanes);
  struct cc_emu_opts o = {.jobs = jobs, .buffer_bytes = budget};
  struct cc_emu *emu = cc_emu_new(m, &o);
  struct cc_emu_stats st;
  struct launch l = L1(NCTAS, 64);
  uint32_t *mk;
  alloc_ok(emu, (uint64_t)NCTAS * 64 * 32, "out", out_d);
  mk = alloc_ok(emu, NWARPS * 4, "masks", masks_d);
  memcpy(mk, masks, NWARPS * 4);
  arg64(&l, *out_d);
  arg64(&l, *masks_d);
  rec_init(rs);
  launch_ok(emu, m, "lanes", &l, &rs->sink, &st);
  assert_int_equal(st.jobs, jobs);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* Fails unless record a is the one the kernel gives warp g: kind, space, bytes a lane,
 * active lanes and each lane's address (0 where inactive). */
static void expect_record(const struct cc_warp_access *a, uint32_t g, enum cc_access_kind kind,
                          uint32_t size, uint32_t active, const uint64_t *want_addr)
{
  assert_int_equal(a->cta[0], g / 2);
  assert_int_equal(a->cta[1], 0);
  assert_int_equal(a->cta[2], 0);
  assert_int_equal(a->warp, g % 2);
  assert_int_equal(a->dyn, 0); /* each instruction runs once a warp */
  assert_int_equal(a->kind, kind);
  assert_int_equal(a->space, CC_SPACE_GLOBAL);
  assert_int_equal(a->size_bytes, size);
  assert_int_equal(a->active, active);
  for (unsigned l = 0; l < 32; l++)
    if (a->addr[l] != want_addr[l]) {
      print_error("warp %u, %u-byte record: lane %u at 0x%llx, want 0x%llx (active 0x%08x)\n",
                  g, size, l, (unsigned long long)a->addr[l], (unsigned long long)want_addr[l],
                  active);
      fail();
    }
}

/* Fails unless rs holds, in order, the records of every warp g of the grid: the load of
 * masks[g] (32 lanes at masks + 4 g), then, when masks[g] != 0, the six stores of 1 .. 32
 * bytes by the lanes of masks[g], lane l at out + 32 (32 g + l) (= 64 c + t with
 * t = 32 (g % 2) + l), other lanes 0. */
static void expect_stream(const struct rec_sink *rs, const uint32_t *masks, uint64_t out_d,
                          uint64_t masks_d)
{
  static const uint32_t sizes[] = {1, 2, 4, 8, 16, 32};
  size_t j = 0, want = 0;
  for (uint32_t g = 0; g < NWARPS; g++) want += 1 + (masks[g] ? 6 : 0);
  assert_int_equal(rs->n, want);
  for (uint32_t g = 0; g < NWARPS; g++) {
    uint64_t addr[32];
    for (unsigned l = 0; l < 32; l++) addr[l] = masks_d + 4 * (uint64_t)g;
    expect_record(&rs->recs[j++], g, CC_ACCESS_LOAD, 4, 0xffffffffu, addr);
    if (!masks[g]) continue;
    for (unsigned l = 0; l < 32; l++)
      addr[l] = masks[g] >> l & 1 ? out_d + 32 * (32 * (uint64_t)g + l) : 0;
    for (size_t k = 0; k < 6; k++)
      expect_record(&rs->recs[j++], g, CC_ACCESS_STORE, sizes[k], masks[g], addr);
  }
}

static void test_lanes_any_count(void **state)
{
  /* the default; 1 byte: every chunk but the oldest waits and that one delivers itself;
   * 64 KiB over 12 slots: 5,461 bytes a slot, chunks of a few CTAs (a CTA's entries are
   * 48 bytes a record, up to 14 records, plus 8 bytes a lane and record: 1,500 bytes on
   * average), and the first buffers (19,456 bytes) of only 3 slots fit at once; 1 MiB:
   * buffers that double */
  const uint64_t budgets[] = {0, 1, UINT64_C(64) << 10, UINT64_C(1) << 20};
  static uint32_t masks[NWARPS];
  struct rec_sink rs;
  uint64_t out_d, masks_d;
  (void)state;
  make_masks(masks);
  /* the masks cover every count of lanes: g % 33 lanes for g = 0 .. 32 */
  for (uint32_t g = 0; g <= 32; g++) assert_int_equal(__builtin_popcount(masks[g]), g);
  run_lanes(1, 0, masks, &rs, &out_d, &masks_d); /* the serial run: the emulator alone */
  expect_stream(&rs, masks, out_d, masks_d);
  rec_release(&rs);
  for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
    run_lanes(3, budgets[b], masks, &rs, &out_d, &masks_d);
    expect_stream(&rs, masks, out_d, masks_d);
    rec_release(&rs);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lanes_any_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
