/* Prints the figures tests/cache/test_cache_oracle.c compares against: each stream of
 * oracle_mix.h replayed through the cache model of each configuration, the kernel's
 * figures and each instruction slot's counts, as C initialisers. Not built by CMake: it
 * recorded the oracle from main's model before the model was rewritten (see the test),
 * and can record it again from any commit:
 *   cc -std=c11 -O2 -D_GNU_SOURCE -Isrc -Itests -o /tmp/oracle_print \
 *     tests/cache/oracle_print.c src/cache/[cdes]*.c src/util/err.c src/util/mem.c \
 *     src/util/fileio.c src/access/access.c $(pkg-config --cflags --libs libcjson) -lm */
#include <stdio.h>
#include <stdlib.h>

#include "cache/cache.h"
#include "cache/oracle_mix.h"

static void print_counts(const struct cc_cache_counts *c)
{
  printf("{%llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu, %llu, %.17g}",
         (unsigned long long)c->l1_hit_sectors, (unsigned long long)c->l2_sectors_read,
         (unsigned long long)c->l2_sectors_write, (unsigned long long)c->l2_sectors_atomic,
         (unsigned long long)c->l2_hit_sectors, (unsigned long long)c->dram_bytes_read,
         (unsigned long long)c->dram_bytes_written,
         (unsigned long long)c->l2_dirty_bytes_at_end, (unsigned long long)c->l1_wavefronts,
         (unsigned long long)c->waits_l1, (unsigned long long)c->waits_l2,
         (unsigned long long)c->waits_dram, c->latency_ns);
}

int main(void)
{
  static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};
  for (size_t k = 0; k < ORACLE_CONFIGS; k++) {
    struct cc_cache_device d;
    struct cc_err err = {0};
    int on = 0;
    if (cc_cache_device_get(oracle_configs[k].arch, oracle_configs[k].spec, NULL, &d, &on,
                            &err) != CC_OK || !on) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    struct cc_cache *c = cc_cache_new(&d);
    for (int s = 0; s < ORACLE_STREAMS; s++) {
      uint64_t x = 88172645463325252ull;
      struct cc_cache_kernel kf;
      struct cc_warp_access a;
      cc_cache_begin_kernel(c, grid, block, ORACLE_SLOTS);
      for (uint64_t i = 0; i < oracle_records(&oracle_configs[k], s); i++) {
        oracle_gen(s, i, &x, &a);
        cc_cache_access(c, &a, a.space == CC_SPACE_SHARED ? 1 + (uint32_t)(i % 3) : 0);
      }
      cc_cache_end_kernel(c);
      cc_cache_kernel_figures(c, &kf);
      printf("  {%zu, %d, %llu, %llu, %.17g, %u, %u, %u,\n   {", k, s,
             (unsigned long long)kf.l2_evictions, (unsigned long long)kf.l1_wavefronts_max_sm,
             kf.latency_ns_max_sm, kf.l1_bytes, kf.resident_ctas, kf.sms_used);
      for (uint32_t i = 0; i < ORACLE_SLOTS; i++) {
        printf(i ? ",\n    " : "");
        print_counts(cc_cache_insn(c, i));
      }
      printf("}},\n");
    }
    cc_cache_free(c);
  }
  return 0;
}
