/* The footprint the worker threads share (src/analysis/fpshare.h): several threads add
 * warp records at once (coalesced runs, columns, scattered lanes, unaligned lanes, the
 * same addresses from several threads), each through its own writer, with the lanes the
 * shared footprint does not take added to a footprint of the thread's own, as partial.c
 * does; the shared set is then added to the union of those. The result must hold exactly
 * the distinct addresses of every record, checked against a sorted array of them (count,
 * least, greatest, largest gap, and the gcd of the differences), not against footprint.c.
 * Also: a budget too small for the leaves, a table of nodes filled, a strided set (the
 * bit-by-bit path of cc_analysis_fp_grid_part), and hand-derived figures. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/footprint.h"
#include "analysis/fpshare.h"

struct addrs {
  uint64_t *a;
  size_t n, cap;
};

static void addrs_push(struct addrs *s, uint64_t addr)
{
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 1024;
    s->a = realloc(s->a, s->cap * sizeof *s->a);
    assert_non_null(s->a);
  }
  s->a[s->n++] = addr;
}

static int cmp_u64(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* fp holds exactly the distinct addresses of s (sorted and made unique here). */
static void holds_exactly(const struct cc_footprint *fp, struct addrs *s)
{
  size_t n = 0;
  uint64_t gap = 0, g = 0, lo = 0, hi = 0;
  int sorted = 1;
  for (size_t i = 1; i < s->n && sorted; i++)
    sorted = s->a[i - 1] <= s->a[i];
  if (!sorted)
    qsort(s->a, s->n, sizeof *s->a, cmp_u64);
  for (size_t i = 0; i < s->n; i++)
    if (i == 0 || s->a[i] != s->a[n - 1]) {
      if (n && s->a[i] - s->a[n - 1] > gap)
        gap = s->a[i] - s->a[n - 1];
      if (n)
        g = gcd(g, s->a[i] - s->a[0]);
      s->a[n++] = s->a[i];
    }
  s->n = n;
  assert_true(n > 0);
  assert_int_equal(cc_analysis_fp_count(fp), n);
  assert_int_equal(cc_analysis_fp_max_gap(fp), gap);
  assert_int_equal(cc_analysis_fp_granularity(fp), g);
  assert_true(cc_analysis_fp_min(fp, &lo) && cc_analysis_fp_max(fp, &hi));
  assert_int_equal(lo, s->a[0]);
  assert_int_equal(hi, s->a[n - 1]);
}

/* cc_analysis_fps_finish_all of one footprint. */
static void finish(struct cc_fp_shared *fs, struct cc_footprint *fp, unsigned threads)
{
  cc_analysis_fps_finish_all(&fs, &fp, 1, threads);
}

static uint64_t next(uint64_t *st) /* splitmix64 */
{
  uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* One thread's share: its records, its writer, its own footprint, what it added. */
struct share {
  struct cc_fp_shared *fs;
  struct cc_fp_writer *w;
  struct cc_footprint *own;
  struct addrs s;
  uint64_t seed, base;
  int records, flush_here; /* flush_here 0: the main thread flushes w after the join */
  uint32_t size;           /* bytes a lane */
  uint64_t taken_back;     /* lanes the shared footprint did not take */
};

/* Adds one record as partial.c does; its addresses to s too. */
static void add_record(struct share *t, const uint64_t *addr, uint32_t mask)
{
  uint32_t left = cc_analysis_fps_add_lanes(t->w, addr, mask);
  assert_int_equal(left & ~mask, 0);
  if (left)
    cc_analysis_fp_add_lanes(t->own, addr, left);
  t->taken_back += (uint64_t)__builtin_popcount(left);
  for (uint32_t m = mask; m; m &= m - 1)
    addrs_push(&t->s, addr[__builtin_ctz(m)]);
}

/* Records of six kinds over a 64 MiB range from base (shared by the threads): a
 * coalesced run, a column of a 4096-element-wide matrix, scattered lanes, lanes a few
 * bytes off the grid, the last column moved on by one element (the next warp of a
 * transpose's CTA: each lane's word again), the last record again; random partial masks. */
static void *share_main(void *arg)
{
  struct share *t = arg;
  uint64_t addr[32] = {0}, col = t->base;
  for (int r = 0; r < t->records; r++) {
    uint64_t kind = next(&t->seed) % 6, at = t->base + t->size * (next(&t->seed) % (1u << 24));
    uint32_t mask = next(&t->seed) % 3 ? 0xffffffffu : (uint32_t)next(&t->seed);
    if (kind == 1)
      col = at;
    if (kind == 4)
      col += t->size;
    for (unsigned l = 0; l < 32 && kind != 5; l++) {
      switch (kind) {
      case 0: addr[l] = at + (uint64_t)l * t->size; break;
      case 1: case 4: addr[l] = col + (uint64_t)l * 4096 * t->size; break;
      case 2: addr[l] = t->base + t->size * (next(&t->seed) % (1u << 24)); break;
      default: addr[l] = at + (uint64_t)l * t->size + (l % 3 == 0 ? 1 + l % t->size : 0); break;
      }
    }
    if (mask && (kind != 5 || r > 0))
      add_record(t, addr, mask);
  }
  if (t->flush_here)
    cc_analysis_fpw_flush(t->w);
  return NULL;
}

/* Runs n threads of `records` records each on one shared footprint, then checks the
 * union against every address added. */
static void run_threads(int n, int records, uint32_t size, int64_t budget, uint64_t seed,
                        uint64_t *taken_back)
{
  struct share t[8];
  pthread_t th[8];
  int64_t left = budget;
  struct cc_fp_shared *fs = cc_analysis_fps_new(size, &left);
  size_t empty = cc_analysis_fps_bytes(fs);
  struct cc_footprint *all = cc_analysis_fp_new();
  struct addrs s = {0};
  assert_true(n <= 8);
  *taken_back = 0;
  for (int i = 0; i < n; i++) {
    t[i] = (struct share){fs, cc_analysis_fpw_new(fs), cc_analysis_fp_new(), {0},
                          seed * 131 + (uint64_t)i, (1ull << 36) + 4096, records, i % 2,
                          size, 0};
    assert_int_equal(pthread_create(&th[i], NULL, share_main, &t[i]), 0);
  }
  for (int i = 0; i < n; i++) {
    assert_int_equal(pthread_join(th[i], NULL), 0);
    cc_analysis_fpw_flush(t[i].w); /* a second flush (flush_here) finds nothing */
    cc_analysis_fp_union(all, t[i].own);
    for (size_t j = 0; j < t[i].s.n; j++)
      addrs_push(&s, t[i].s.a[j]);
    *taken_back += t[i].taken_back;
    cc_analysis_fpw_free(t[i].w);
    cc_analysis_fp_free(t[i].own);
    free(t[i].s.a);
  }
  assert_true(left >= 0); /* what the leaves and nodes took is what the footprint holds */
  assert_int_equal(cc_analysis_fps_bytes(fs) - empty, (uint64_t)(budget - left));
  finish(fs, all, (unsigned)n);
  holds_exactly(all, &s);
  cc_analysis_fp_free(all);
  free(s.a);
}

/* Four threads at once, 4- and 8-byte lanes, a budget that holds every leaf: only the
 * unaligned lanes come back. */
static void test_threads(void **state)
{
  (void)state;
  for (uint64_t seed = 1; seed <= 6; seed++) {
    uint64_t back;
    run_threads(4, 3000, seed % 2 ? 4 : 8, INT64_C(1) << 32, seed, &back);
    assert_true(back > 0); /* the off-grid kind gave some */
  }
}

/* A budget of 40 KiB: one node (32 KiB) and a few leaves; the rest of the lanes go to the
 * threads' own footprints, and the union is still exact. */
static void test_budget(void **state)
{
  (void)state;
  uint64_t back;
  run_threads(3, 2000, 4, 40 << 10, 77, &back);
  assert_true(back > 3 * 2000); /* most lanes came back */
}

/* Hand-derived: 32 lanes of 4 bytes from 0x1000: 32 addresses, gap 4, 0x1000..0x107c;
 * the footprint holds one node and one leaf, taken from the budget; a footprint made
 * before the writer's flush holds none of them. Then 130 lanes, one in each of 130
 * ranges of 2^24 units (64 MiB apart): 128 nodes fit the table, the last three lanes
 * come back; the set is then the 32 and the 127 taken. */
static void test_hand(void **state)
{
  (void)state;
  int64_t budget = INT64_C(1) << 40, before;
  struct cc_fp_shared *fs = cc_analysis_fps_new(4, &budget), *early;
  struct cc_fp_writer *w = cc_analysis_fpw_new(fs), *we;
  struct cc_footprint *fp = cc_analysis_fp_new();
  uint64_t addr[32], lo, hi;
  size_t empty = cc_analysis_fps_bytes(fs);
  unsigned back = 0;
  for (unsigned l = 0; l < 32; l++)
    addr[l] = 0x1000 + 4 * l;
  assert_int_equal(cc_analysis_fps_add_lanes(w, addr, 0xffffffffu), 0);
  assert_int_equal(cc_analysis_fps_bytes(fs) - empty, 4096 * 8 + 512); /* node, leaf */
  assert_int_equal((INT64_C(1) << 40) - budget, 4096 * 8 + 512);
  early = cc_analysis_fps_new(4, &budget); /* the same lanes, finished before the flush */
  we = cc_analysis_fpw_new(early);
  assert_int_equal(cc_analysis_fps_add_lanes(we, addr, 0xffffffffu), 0);
  finish(early, fp, 1);
  assert_int_equal(cc_analysis_fp_count(fp), 0);
  cc_analysis_fpw_free(we); /* (its pending bits point into the freed leaves: dropped) */
  before = budget;
  for (unsigned i = 1; i <= 130; i++) { /* node 0 holds 0x1000 already */
    uint64_t a[32] = {(uint64_t)i << 26};
    back += __builtin_popcount(cc_analysis_fps_add_lanes(w, a, 1));
  }
  assert_int_equal(back, 130 - 127);
  assert_int_equal(before - budget, 127 * (4096 * 8 + 512));
  cc_analysis_fpw_flush(w);
  finish(fs, fp, 1);
  assert_int_equal(cc_analysis_fp_count(fp), 32 + 127);
  assert_true(cc_analysis_fp_min(fp, &lo) && cc_analysis_fp_max(fp, &hi));
  assert_int_equal(lo, 0x1000);
  assert_int_equal(hi, (uint64_t)127 << 26);
  assert_int_equal(cc_analysis_fp_max_gap(fp), (uint64_t)1 << 26); /* the ranges' step */
  cc_analysis_fpw_free(w);
  cc_analysis_fp_free(fp);
}

/* Every fourth unit of 4 bytes (granularity 16: cc_analysis_fp_grid_part bit by bit) into
 * a footprint that already holds other addresses at granularity 8, off the shared grid's
 * origin: the union is exact. */
static void test_strided_into(void **state)
{
  (void)state;
  int64_t budget = INT64_C(1) << 30;
  struct cc_fp_shared *fs = cc_analysis_fps_new(4, &budget);
  struct cc_fp_writer *w = cc_analysis_fpw_new(fs);
  struct cc_footprint *fp = cc_analysis_fp_new();
  struct addrs s = {0};
  uint64_t addr[32];
  for (unsigned r = 0; r < 600; r++) {
    for (unsigned l = 0; l < 32; l++) {
      addr[l] = 0x200000 + 16 * (32 * (uint64_t)r + l);
      addrs_push(&s, addr[l]);
    }
    assert_int_equal(cc_analysis_fps_add_lanes(w, addr, 0xffffffffu), 0);
  }
  for (unsigned i = 0; i < 1000; i++) {
    uint64_t a = 0x1f0008 + 8 * (uint64_t)i * 37;
    cc_analysis_fp_add(fp, a);
    addrs_push(&s, a);
  }
  cc_analysis_fpw_flush(w);
  finish(fs, fp, 4);
  holds_exactly(fp, &s);
  cc_analysis_fpw_free(w);
  cc_analysis_fp_free(fp);
  free(s.a);
}

/* A dense set (coalesced records of 4-byte lanes, a few left out) into an empty
 * footprint whose origin, the least address, is 37 units into a leaf's first window:
 * cc_analysis_fp_grid_part ORs 512 bits at a time, each window straddling two of the
 * footprint's chunks. */
static void test_dense_into(void **state)
{
  (void)state;
  int64_t budget = INT64_C(1) << 30;
  struct cc_fp_shared *fs = cc_analysis_fps_new(4, &budget);
  struct cc_fp_writer *w = cc_analysis_fpw_new(fs);
  struct cc_footprint *fp = cc_analysis_fp_new();
  struct addrs s = {0};
  uint64_t addr[32], st = 5;
  for (unsigned r = 0; r < 4000; r++) {
    uint32_t mask = r % 7 == 3 ? (uint32_t)next(&st) : 0xffffffffu;
    for (unsigned l = 0; l < 32; l++) {
      addr[l] = 0x40000 + 4 * (37 + 32 * (uint64_t)r + l);
      if (mask & (1u << l))
        addrs_push(&s, addr[l]);
    }
    if (r == 0)
      mask |= 1; /* the origin */
    if (r == 0)
      addrs_push(&s, addr[0]);
    assert_int_equal(cc_analysis_fps_add_lanes(w, addr, mask), 0);
  }
  cc_analysis_fpw_flush(w);
  finish(fs, fp, 4);
  holds_exactly(fp, &s);
  cc_analysis_fpw_free(w);
  cc_analysis_fp_free(fp);
  free(s.a);
}

/* The conversion on several threads (cc_analysis_fps_finish_all, footprint.c
 * cc_analysis_fp_grid_part and cc_analysis_fp_concat): sets over 2 Mi units, dense
 * with holes, every 4th unit (granularity 16: the bit-by-bit part), every 3rd (a gcd that
 * is no power of two), and dense but for one unit off the 4-unit grid (the gcd falls to 1
 * late); origins off the leaves' and chunks' boundaries, so that parts share their
 * boundary chunk; into empty footprints and into ones that hold other addresses (the
 * parts' union); all in one call with a NULL entry, an empty set and a set of one address,
 * on 1, 3, 8 and 64 threads (fewer used: at least 64 leaves a part). */
static void test_parallel_into(void **state)
{
  (void)state;
  static const unsigned threads[] = {1, 3, 8, 64};
  for (unsigned ti = 0; ti < 4; ti++)
    for (int nonempty = 0; nonempty < 2; nonempty++) {
      /* slots 0-3: the four kinds; 4: none (NULL); 5: nothing added; 6: one address */
      int64_t budget = INT64_C(1) << 32;
      struct cc_fp_shared *fs[7];
      struct cc_footprint *fp[7];
      struct addrs s[7] = {{0}};
      for (unsigned kind = 0; kind < 7; kind++) {
        fs[kind] = kind == 4 ? NULL : cc_analysis_fps_new(4, &budget);
        fp[kind] = cc_analysis_fp_new();
      }
      for (unsigned kind = 0; kind < 4; kind++) {
        struct cc_fp_writer *w = cc_analysis_fpw_new(fs[kind]);
        uint64_t st = 91 + kind, base = 0x10000000 + 4 * 777, units = 1u << 21;
        uint64_t step = kind == 1 ? 4 : kind == 2 ? 3 : 1;
        if (nonempty) /* below the set, off its grid, in increasing order */
          for (unsigned i = 0; i < 300; i++) {
            uint64_t a = base - 4 * 300 * 37 + 2 + 4 * 37 * (uint64_t)i;
            cc_analysis_fp_add(fp[kind], a);
            addrs_push(&s[kind], a);
          }
        for (uint64_t u = 0; u < units; u += 32 * step) {
          uint64_t addr[32];
          uint32_t mask = next(&st) % 5 ? 0xffffffffu : (uint32_t)next(&st);
          for (unsigned l = 0; l < 32; l++) {
            addr[l] = base + 4 * (u + l * step);
            if (kind == 3 && l)
              addr[l] = base + 16 * (u + l); /* the 4-unit grid ... */
            if (mask & (1u << l))
              addrs_push(&s[kind], addr[l]);
          }
          if (mask)
            assert_int_equal(cc_analysis_fps_add_lanes(w, addr, mask), 0);
        }
        if (kind == 3) { /* ... but for one unit */
          uint64_t a[32] = {base + 4 * (4 * units + 1)};
          assert_int_equal(cc_analysis_fps_add_lanes(w, a, 1), 0);
          addrs_push(&s[kind], a[0]);
        }
        cc_analysis_fpw_flush(w);
        cc_analysis_fpw_free(w);
      }
      {
        struct cc_fp_writer *w = cc_analysis_fpw_new(fs[6]);
        uint64_t a[32] = {0x7f0000001230};
        assert_int_equal(cc_analysis_fps_add_lanes(w, a, 1), 0);
        cc_analysis_fpw_flush(w);
        cc_analysis_fpw_free(w);
        addrs_push(&s[6], a[0]);
      }
      cc_analysis_fps_finish_all(fs, fp, 7, threads[ti]);
      for (unsigned kind = 0; kind < 7; kind++) {
        if (kind == 4 || kind == 5)
          assert_int_equal(cc_analysis_fp_count(fp[kind]), 0);
        else
          holds_exactly(fp[kind], &s[kind]);
        cc_analysis_fp_free(fp[kind]);
        free(s[kind].a);
      }
    }
}

/* cc_analysis_fp_bits_gcd's word test (a word whose units all lie on the grid of a
 * power-of-two gcd is skipped whole) against the gcd of every difference, computed here
 * bit by bit: three words of units on a grid of g (2..64) from a least unit u0 at every
 * residue, plus one unit at every position of the middle word. */
static void test_bits_gcd(void **state)
{
  (void)state;
  for (uint64_t g = 2; g <= 64; g *= 2)
    for (unsigned r = 0; r < g; r++)
      for (unsigned b = 0; b <= 64; b++) { /* 64: no extra unit */
        uint64_t words[3] = {0, 0, 0}, u0 = 1000 * 64 + r, want = 0;
        struct cc_fp_bits pc = {1000 * 64, words, 3};
        for (uint64_t u = u0; u < 1003 * 64; u += g)
          words[(u - 1000 * 64) / 64] |= 1ull << (u % 64);
        if (b < 64)
          words[1] |= 1ull << b;
        for (unsigned i = 0; i < 192; i++)
          if (words[i / 64] >> (i % 64) & 1)
            want = gcd(want, 1000 * 64 + i - u0);
        assert_int_equal(cc_analysis_fp_bits_gcd(&pc, 1, u0, 0), want);
      }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_budget),
      cmocka_unit_test(test_hand),
      cmocka_unit_test(test_strided_into),
      cmocka_unit_test(test_dense_into),
      cmocka_unit_test(test_parallel_into),
      cmocka_unit_test(test_bits_gcd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
