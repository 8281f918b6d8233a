/* What tests/cache/test_set_sample.c and test_quick_sample.c keep of a replay and compare:
 * per instruction slot the counts and the sampled lines' raw counts, and the kernel's
 * figures. SAMPLE_RUN_SLOTS is defined before. Included by one program each: everything
 * is static. */
#ifndef CC_TESTS_CACHE_SAMPLE_RUN_H
#define CC_TESTS_CACHE_SAMPLE_RUN_H

#include <stdint.h>

#include "cache/cache.h"

struct run {
  struct cc_cache_counts slot[SAMPLE_RUN_SLOTS], raw[SAMPLE_RUN_SLOTS];
  struct cc_cache_kernel k;
};

/* Ends c's kernel, keeps its figures in out and frees c. */
static void run_finish(struct cc_cache *c, struct run *out)
{
  cc_cache_end_kernel(c);
  cc_cache_kernel_figures(c, &out->k);
  for (uint32_t i = 0; i < SAMPLE_RUN_SLOTS; i++) {
    out->slot[i] = *cc_cache_insn(c, i);
    out->raw[i] = *cc_cache_insn_sampled(c, i);
  }
  cc_cache_free(c);
}

/* Fails (naming `where` and slot i) unless the sampled raw counts r equal the counts c of
 * the full replay of the stream cut to the sampled lines, in every count that depends on
 * cache state (with_read: the L2 sectors of loads too, which are whole-record counts
 * where L1 does not cache global loads). */
static void expect_raw_equal(const char *where, uint32_t i, const struct cc_cache_counts *r,
                             const struct cc_cache_counts *c, int with_read)
{
#define RAW_EQ(field)                                                                      \
  do {                                                                                     \
    if (r->field != c->field)                                                              \
      fail_msg("%s, slot %u: raw " #field " %llu, expected %llu", where, i,               \
               (unsigned long long)r->field, (unsigned long long)c->field);               \
  } while (0)
  RAW_EQ(l1_hit_sectors);
  if (with_read)
    RAW_EQ(l2_sectors_read);
  RAW_EQ(l2_hit_sectors);
  RAW_EQ(dram_bytes_read);
  RAW_EQ(dram_bytes_written);
  RAW_EQ(l2_dirty_bytes_at_end);
  RAW_EQ(waits_l1);
  RAW_EQ(waits_l2);
  RAW_EQ(waits_dram);
#undef RAW_EQ
}

/* Fails (naming `where` and slot i) unless the counts s of a sampled replay equal the
 * counts f of the full replay of the same stream in every count that does not depend on
 * cache state: wavefronts, the sectors stores and atomics send to L2, requests. */
static void expect_whole_equal(const char *where, uint32_t i, const struct cc_cache_counts *s,
                               const struct cc_cache_counts *f)
{
  uint64_t got = s->waits_l1 + s->waits_l2 + s->waits_dram;
  uint64_t want = f->waits_l1 + f->waits_l2 + f->waits_dram;
#define WHOLE_EQ(field)                                                                    \
  do {                                                                                     \
    if (s->field != f->field)                                                              \
      fail_msg("%s, slot %u: " #field " %llu, expected %llu", where, i,                   \
               (unsigned long long)s->field, (unsigned long long)f->field);               \
  } while (0)
  WHOLE_EQ(l1_wavefronts);
  WHOLE_EQ(l2_sectors_write);
  WHOLE_EQ(l2_sectors_atomic);
#undef WHOLE_EQ
  if (got != want)
    fail_msg("%s, slot %u: requests %llu, expected %llu", where, i, (unsigned long long)got,
             (unsigned long long)want);
}

#endif
