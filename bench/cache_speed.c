/* Cache model speed: warp records per second through cc_cache_access (src/cache), per
 * access pattern, on one core, and the memory the model holds. Built and run by
 * bench/cache_speed.sh.
 *
 * usage: cache_speed [RECORDS] [DEVICE-SPEC] [PATTERN] [JOBS] [KERNELS]
 *   (default 16777216 records per pattern, h100, every pattern ("all"), 1 thread, 1
 *   kernel)
 * With JOBS > 1 the model replays on JOBS threads (cc_cache_set_jobs) and the rate
 * divides by wall time (the threads' CPU time is not this thread's); with 1, by this
 * thread's CPU time. With KERNELS > 1 a pattern's records are KERNELS launches in turn
 * on the one model (an application's many launches: each begins and ends a kernel), and
 * the time counts cc_cache_begin_kernel and cc_cache_end_kernel too.
 *
 * Patterns: bench/patterns.h (one warp record per warp-level memory instruction, 32
 * lanes, 4-byte floats), CTAs of 256 threads dispatched over the device's SMs: copy (a
 * line per record), transpose (stores of 32 lines), divergent, loop (a row-per-thread
 * walk, PolyBench atax_kernel1's shape: 32 lines per record, 7 in 8 sectors hit L1),
 * gather (32 random lines), padded (the transpose into rows of 4097 floats: columns of a
 * stride no progression of the class hash serves), gemv (loop's column with a broadcast
 * of x[j] between: gemv_rows, atax_kernel1 itself), gesummv (two columns and x[j]).
 * Records are generated in chunks of 4096 and then replayed; only the replay is timed
 * (the model's own work: grouping lanes into lines and sectors, L1, L2, DRAM counts). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cache/cache.h"
#include "patterns.h"

#define CHUNK 4096

/* CPU time of this thread (the machine may be shared, wall time would count the others),
 * or wall time when the replay runs on several threads */
static double now(int wall)
{
  struct timespec ts;
  clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kib(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

int main(int argc, char **argv)
{
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 16777216ull;
  const char *spec = argc > 2 ? argv[2] : "h100";
  const char *only = argc > 3 && strcmp(argv[3], "all") != 0 ? argv[3] : NULL;
  uint32_t jobs = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1;
  uint64_t kernels = argc > 5 ? strtoull(argv[5], NULL, 10) : 1;
  static struct cc_warp_access chunk[CHUNK];
  static const uint32_t grid[3] = {4096, 4096, 1}, block[3] = {256, 1, 1};
  struct cc_cache_device d;
  struct cc_err err = {0};
  int on = 0;
  long rss0;
  if (cc_cache_device_get("sm_90", spec, NULL, &d, &on, &err) != CC_OK || !on) {
    fprintf(stderr, "cache_speed: %s\n", err.msg[0] ? err.msg : "no cache model");
    return 2;
  }
  rss0 = max_rss_kib();
  struct cc_cache *c = cc_cache_new(&d);
  cc_cache_set_jobs(c, jobs);
  printf("| pattern | records | %s seconds | M records/s | L2 sectors | DRAM MB read | DRAM MB written |\n",
         jobs > 1 ? "wall" : "CPU");
  printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (int p = 0; p < N_PATTERNS; p++) {
    uint64_t x = 88172645463325252ull;
    double t = 0;
    struct cc_cache_kernel k;
    if (only && strcmp(only, pattern_names[p]) != 0)
      continue;
    for (uint64_t kn = 0, per = kernels > 1 && n / kernels ? n / kernels : n; kn * per < n; kn++) {
      uint64_t end = n - kn * per < per ? n : (kn + 1) * per;
      double t0 = now(jobs > 1);
      cc_cache_begin_kernel(c, grid, block, 3); /* gesummv: 3 slots */
      if (kernels > 1)
        t += now(jobs > 1) - t0;
      for (uint64_t done = kn * per; done < end; done += CHUNK) {
        uint64_t m = end - done < CHUNK ? end - done : CHUNK;
        for (uint64_t i = 0; i < m; i++)
          gen((enum pattern)p, done + i, &x, &chunk[i]);
        t0 = now(jobs > 1);
        for (uint64_t i = 0; i < m; i++)
          cc_cache_access(c, &chunk[i], 0);
        t += now(jobs > 1) - t0;
      }
      t0 = now(jobs > 1);
      cc_cache_end_kernel(c); /* the last batch of a parallel replay runs here */
      t += now(jobs > 1) - t0;
    }
    cc_cache_kernel_figures(c, &k);
    printf("| %s | %llu | %.3f | %.1f | %llu | %.1f | %.1f |\n", pattern_names[p], (unsigned long long)n,
           t, (double)n / t / 1e6, (unsigned long long)cc_cache_l2_sectors(&k.total),
           (double)k.total.dram_bytes_read / 1e6, (double)k.total.dram_bytes_written / 1e6);
  }
  printf("\nmemory: maximum resident set %ld KiB, %ld KiB of it after making the model "
         "(%s: %u SMs x L1 of up to %u KiB, L2 %llu MiB)\n", max_rss_kib(),
         max_rss_kib() - rss0, d.name, d.sms, d.l1_unified_bytes / 1024,
         (unsigned long long)(d.l2_bytes >> 20));
  cc_cache_free(c);
  return 0;
}
