/* The cache model against figures recorded from main's model before its replay was
 * rewritten: a regression oracle, not a hand derivation. The figures below were printed
 * by tests/cache/oracle_print.c built from main's src/cache at 72cc76c ("Merge branch
 * 'h-ptxinst'", which has the H100's L2 write policy of h-cacheacc; the command is in
 * oracle_print.c) and pasted unchanged. (The replay was first checked against fc5a8f3,
 * before the write policy: same result.) They hold the
 * streams of oracle_mix.h (the bench patterns copy, transpose, divergent, loop, gather of
 * bench/patterns.h, and a mixed stream of loads, stores, atomics, local and shared
 * records) on five configurations (the H100; a 2 MiB L2 with a 16 KiB L1 and blocked
 * dispatch, which evicts in both levels; 8 SMs with a 4-way modulo-indexed L2; cc2.0's
 * whole-line fills; sm_61, where L1 does not cache global loads). Every figure of the
 * model (per instruction slot, and the kernel's evictions, busiest SM, latency, L1 size,
 * residency, SMs used) must stay bitwise equal, whether the replay runs on one thread or
 * on several (cc_cache_set_jobs: 2, 3 and 4 threads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cache.h"
#include "cache/oracle_mix.h"

struct oracle {
  size_t config;
  int stream;
  uint64_t l2_evictions, l1_wavefronts_max_sm;
  double latency_ns_max_sm;
  uint32_t l1_bytes, resident_ctas, sms_used;
  struct cc_cache_counts slot[ORACLE_SLOTS];
};

/* printed by oracle_print.c from 72cc76c (main before this change) */
static const struct oracle figures[] = {
  {0, 0, 0, 384, 1500, 253952, 8, 132,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 98304, 0, 0, 0, 0, 3145728, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {0, 1, 0, 1728, 1500, 253952, 8, 132,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 786432, 0, 0, 0, 1097728, 2048000, 196608, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {0, 2, 0, 384, 1500, 253952, 8, 132,
   {{0, 86016, 0, 0, 0, 2752512, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 86016, 0, 0, 0, 0, 2752512, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {0, 3, 0, 262144, 29760, 253952, 8, 132,
   {{1376256, 196608, 0, 0, 98304, 6291456, 0, 0, 393216, 43008, 3072, 3072, 2856960},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {0, 4, 41, 384, 187.5, 253952, 8, 132,
   {{7, 98296, 0, 0, 1061, 6223040, 0, 0, 24576, 0, 0, 3072, 1536000},
    {0, 0, 98302, 0, 1147, 1527168, 1527168, 1606080, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {0, 5, 0, 1741, 993.28125, 253952, 8, 132,
   {{37467, 73373, 75576, 0, 131551, 531136, 0, 511328, 51352, 2577, 2962, 1857, 1424340},
    {35469, 73759, 37837, 36048, 129699, 720896, 0, 460736, 50483, 2512, 4479, 2494, 1969090},
    {36351, 75796, 73736, 0, 131458, 561344, 0, 492192, 51177, 2447, 3034, 1901, 1454540},
    {36265, 74097, 37906, 34893, 129609, 698048, 0, 485952, 50724, 2597, 4558, 2439, 1955140}}},
  {1, 0, 32768, 49152, 192000, 16384, 8, 132,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 98304, 0, 0, 0, 2490368, 655360, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {1, 1, 32768, 221184, 192000, 16384, 8, 132,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 786432, 0, 0, 0, 2490368, 655360, 196608, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {1, 2, 32768, 49152, 192000, 16384, 8, 132,
   {{0, 86016, 0, 0, 0, 2752512, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 86016, 0, 0, 622592, 2179072, 573440, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {1, 3, 32768, 393216, 44640, 16384, 8, 132,
   {{1376256, 196608, 0, 0, 98304, 6291456, 0, 0, 393216, 43008, 3072, 3072, 2856960},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {1, 4, 178757, 49152, 24000, 16384, 8, 132,
   {{2, 98301, 0, 0, 197, 6278656, 0, 0, 24576, 0, 0, 3072, 1536000},
    {0, 0, 98302, 0, 198, 3071584, 3078816, 66176, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {1, 5, 9271, 203736, 115143.28125, 16384, 8, 132,
   {{23848, 86992, 75576, 0, 143750, 772480, 1157536, 68928, 51352, 1878, 3518, 2000, 1565260},
    {21986, 87242, 37837, 36048, 141760, 924064, 1110688, 56000, 50483, 1878, 4947, 2660, 2109610},
    {22906, 89241, 73736, 0, 143583, 803552, 1136992, 62816, 51177, 1830, 3496, 2056, 1589000},
    {22782, 87580, 37906, 34893, 141605, 896256, 1115040, 71360, 50724, 1940, 5030, 2624, 2105300}}},
  {2, 0, 45056, 6144, 24000, 253952, 8, 8,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 98304, 0, 0, 0, 2883584, 262144, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {2, 1, 119456, 27648, 24000, 253952, 8, 8,
   {{0, 98304, 0, 0, 0, 3145728, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 786432, 0, 0, 25165312, 25165312, 512, 196608, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {2, 2, 45056, 6144, 24000, 253952, 8, 8,
   {{0, 86016, 0, 0, 0, 2752512, 0, 0, 24576, 0, 0, 24576, 12288000},
    {0, 0, 86016, 0, 0, 720896, 2523136, 229376, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {2, 3, 45056, 262144, 29760, 253952, 8, 8,
   {{1376256, 196608, 0, 0, 98304, 6291456, 0, 0, 393216, 43008, 3072, 3072, 2856960},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {2, 4, 192117, 6144, 3000, 253952, 8, 8,
   {{21, 98282, 0, 0, 58, 6286336, 0, 0, 24576, 0, 0, 3072, 1536000},
    {0, 0, 98302, 0, 47, 3088352, 3091200, 53888, 24576, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {2, 5, 255164, 25927, 21082.96875, 253952, 8, 8,
   {{52551, 58289, 75576, 0, 36401, 3968256, 1767168, 21952, 51352, 2762, 549, 4085, 2180090},
    {50139, 59089, 37837, 36048, 35323, 4800608, 1640576, 21376, 50483, 2689, 1134, 5662, 3054880},
    {51631, 60516, 73736, 0, 34747, 4102016, 1732672, 21824, 51177, 2609, 541, 4232, 2249330},
    {51865, 58497, 37906, 34893, 33927, 4756000, 1634944, 28672, 50724, 2783, 1163, 5648, 3054110}}},
  {3, 0, 26624, 2352, 13475, 16384, 6, 14,
   {{0, 65536, 0, 0, 0, 2097152, 0, 0, 16384, 0, 0, 16384, 9011200},
    {0, 0, 65536, 0, 0, 0, 1687552, 409600, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {3, 1, 26671, 10584, 13475, 16384, 6, 14,
   {{0, 65536, 0, 0, 0, 2097152, 0, 0, 16384, 0, 0, 16384, 9011200},
    {0, 0, 524288, 0, 0, 0, 1573408, 523744, 131072, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {3, 2, 26624, 2352, 13475, 16384, 6, 14,
   {{0, 65536, 0, 0, 0, 2097152, 0, 0, 16384, 0, 0, 16384, 9011200},
    {0, 0, 57344, 0, 0, 0, 1476608, 358400, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {3, 3, 26624, 262144, 38186.666666666664, 16384, 6, 14,
   {{1015808, 131072, 0, 0, 0, 4194304, 0, 0, 262144, 31744, 0, 1024, 1832960},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {3, 4, 124562, 2432, 1741.6666666666667, 16384, 6, 14,
   {{4, 262128, 0, 0, 376, 8376064, 0, 0, 16384, 0, 0, 2048, 1126400},
    {0, 0, 65535, 0, 98, 0, 1996992, 99424, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {3, 5, 118212, 10079, 11742.291666666666, 16384, 6, 14,
   {{18066, 191125, 50061, 0, 136824, 2764480, 795712, 43136, 34436, 1546, 1101, 2330, 1618590},
    {16339, 185580, 25257, 24423, 132062, 3007456, 770112, 39040, 33620, 1547, 1762, 3002, 2153480},
    {17132, 195228, 50010, 0, 135446, 2947424, 785408, 46656, 34421, 1523, 982, 2399, 1625870},
    {16595, 187032, 25368, 23027, 132509, 2970016, 758112, 43872, 33574, 1557, 1805, 3007, 2167380}}},
  {4, 0, 30720, 1648, 5793.75, 49152, 8, 20,
   {{0, 65536, 0, 0, 0, 2097152, 0, 0, 16384, 0, 0, 16384, 7372800},
    {0, 0, 65536, 0, 0, 0, 1966080, 131072, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {4, 1, 79872, 7416, 5793.75, 49152, 8, 20,
   {{0, 65536, 0, 0, 0, 2097152, 0, 0, 16384, 0, 0, 16384, 7372800},
    {0, 0, 524288, 0, 0, 0, 2043904, 53248, 131072, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {4, 2, 30720, 1648, 5793.75, 49152, 8, 20,
   {{0, 57344, 0, 0, 0, 1835008, 0, 0, 16384, 0, 0, 16384, 7372800},
    {0, 0, 57344, 0, 0, 0, 1720320, 114688, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {4, 3, 30720, 262144, 118400, 49152, 8, 20,
   {{0, 1048576, 0, 0, 917504, 4194304, 0, 0, 262144, 0, 28672, 4096, 7577600},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {4, 4, 128899, 1664, 731.25, 49152, 8, 20,
   {{0, 65536, 0, 0, 10, 2096832, 0, 0, 16384, 0, 0, 2048, 921600},
    {0, 0, 65535, 0, 9, 0, 2063232, 33696, 16384, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}}},
  {4, 5, 203407, 7063, 6479.375, 49152, 8, 20,
   {{126, 75060, 50061, 0, 51590, 1397792, 1081376, 8256, 34436, 496, 1423, 3058, 1680540},
    {172, 71841, 25257, 24423, 49049, 1840992, 1065664, 7776, 33620, 551, 1771, 3989, 2171290},
    {156, 74949, 50010, 0, 49950, 1449408, 1078016, 14752, 34421, 496, 1301, 3107, 1678190},
    {147, 72584, 25368, 23027, 48494, 1801408, 1034432, 13376, 33574, 552, 1822, 3995, 2184230}}},
};

/* One counter of a slot, compared with both values printed on failure. */
#define SAME(field)                                                                        \
  do {                                                                                     \
    if (got->field != want->field)                                                         \
      fail_msg("%s, stream %d, slot %u, jobs %u: " #field " %.17g, recorded %.17g",      \
               cfg->spec, o->stream, i, jobs, (double)got->field, (double)want->field);   \
  } while (0)

/* Replays stream o->stream of configuration o->config on `jobs` threads and compares
 * every figure with the recorded ones. */
static void check(struct cc_cache *c, const struct oracle *o, uint32_t jobs)
{
  static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};
  const struct oracle_config *cfg = &oracle_configs[o->config];
  uint64_t x = 88172645463325252ull;
  struct cc_warp_access a;
  struct cc_cache_kernel k;
  cc_cache_set_jobs(c, jobs);
  cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
  for (uint64_t r = 0; r < oracle_records(cfg, o->stream); r++) {
    oracle_gen(o->stream, r, &x, &a);
    cc_cache_access(c, &a, a.space == CC_SPACE_SHARED ? 1 + (uint32_t)(r % 3) : 0);
  }
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, &k);
  for (uint32_t i = 0; i < ORACLE_SLOTS; i++) {
    const struct cc_cache_counts *got = cc_cache_insn(c, i), *want = &o->slot[i];
    SAME(l1_hit_sectors);
    SAME(l2_sectors_read);
    SAME(l2_sectors_write);
    SAME(l2_sectors_atomic);
    SAME(l2_hit_sectors);
    SAME(dram_bytes_read);
    SAME(dram_bytes_written);
    SAME(l2_dirty_bytes_at_end);
    SAME(l1_wavefronts);
    SAME(waits_l1);
    SAME(waits_l2);
    SAME(waits_dram);
    SAME(latency_ns);
  }
  {
    const struct cc_cache_kernel *got = &k;
    const struct oracle *want = o;
    uint32_t i = ORACLE_SLOTS; /* the kernel's figures */
    SAME(l2_evictions);
    SAME(l1_wavefronts_max_sm);
    SAME(latency_ns_max_sm);
    SAME(l1_bytes);
    SAME(resident_ctas);
    SAME(sms_used);
  }
}

/* Every configuration and stream, on the thread counts of *state. */
static void replay_all(uint32_t jobs)
{
  size_t n = sizeof figures / sizeof figures[0];
  assert_int_equal(n, ORACLE_CONFIGS * ORACLE_STREAMS);
  for (size_t cfg = 0; cfg < ORACLE_CONFIGS; cfg++) {
    struct cc_cache_device d;
    struct cc_err err = {0};
    int on = 0;
    if (cc_cache_device_get(oracle_configs[cfg].arch, oracle_configs[cfg].spec, NULL, &d, &on,
                            &err) != CC_OK)
      fail_msg("%s: %s", oracle_configs[cfg].spec, err.msg);
    struct cc_cache *c = cc_cache_new(&d);
    for (size_t i = 0; i < n; i++)
      if (figures[i].config == cfg)
        check(c, &figures[i], jobs);
    cc_cache_free(c);
  }
}

static void test_oracle_serial(void **state)
{
  (void)state;
  replay_all(1);
}

static void test_oracle_jobs2(void **state)
{
  (void)state;
  replay_all(2);
}

static void test_oracle_jobs3(void **state)
{
  (void)state;
  replay_all(3);
}

static void test_oracle_jobs4(void **state)
{
  (void)state;
  replay_all(4);
}

/* The parallel replay is the one that ran: its state (a batch of records, per-thread
 * counts and predictors) is counted in cc_cache_bytes from the kernel's begin, and goes
 * when a kernel begins after cc_cache_set_jobs(c, 1). */
static void test_jobs_state(void **state)
{
  static const uint32_t grid[3] = {8, 1, 1}, block[3] = {256, 1, 1};
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  size_t serial, parallel, again;
  (void)state;
  assert_int_equal(cc_cache_device_get("sm_90", "h100", NULL, &d, &on, &err), CC_OK);
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_begin_kernel(c, grid, block, 2);
  serial = cc_cache_bytes(c);
  cc_cache_set_jobs(c, 3);
  assert_int_equal(cc_cache_bytes(c), serial); /* the kernel under way keeps one thread */
  cc_cache_end_kernel(c);
  cc_cache_begin_kernel(c, grid, block, 2);
  parallel = cc_cache_bytes(c);
  cc_cache_end_kernel(c);
  cc_cache_set_jobs(c, 1);
  cc_cache_begin_kernel(c, grid, block, 2);
  again = cc_cache_bytes(c);
  cc_cache_end_kernel(c);
  cc_cache_free(c);
  /* at least a batch of records (8192 of about 300 bytes; 4096 asked here) */
  if (parallel < serial + 4096 * sizeof(struct cc_warp_access))
    fail_msg("3 threads hold %zu bytes, 1 thread %zu", parallel, serial);
  assert_int_equal(again, serial);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_oracle_serial),
    cmocka_unit_test(test_oracle_jobs2),
    cmocka_unit_test(test_oracle_jobs3),
    cmocka_unit_test(test_oracle_jobs4),
    cmocka_unit_test(test_jobs_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
