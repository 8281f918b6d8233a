/* Trace file speed: records per second written and replayed, bytes per record, for five
 * access patterns and two zstd levels. Built and run by bench/trace_speed.sh.
 *
 * usage: trace_speed DIR [RECORDS]   (files are written to DIR and removed)
 *
 * Patterns (one warp record per warp-level memory instruction, 32 lanes, 4-byte floats):
 *   copy       out[i] = in[i], 256-thread CTAs: load + store, both unit stride
 *   transpose  naive 4096x4096 transpose, 32x8 CTAs: load unit stride, store stride 16 KiB
 *   divergent  copy where every other warp has a partial mask (lower half, odd lanes)
 *   loop       row sums, one thread per row: 1 load per trip, lanes 16 KiB apart, dyn
 *              counts trips (4096 trips per warp)
 *   gather     addresses from a xorshift generator: nothing to predict (worst case)
 * Write time includes generating the records; the generation alone is timed too and the
 * "write" rate is computed without it. Read = cc_trace_replay into a sink that counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "access/trace.h"
#include "patterns.h"

static const struct cc_insn_info insns[3] = { /* slot 2: gesummv's third load */
    {1, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.global.f32 %f1, [%rd1];", "bench.cu", 1, 1,
     NULL, 0},
    {2, CC_ACCESS_STORE, CC_SPACE_GLOBAL, 4, "st.global.f32 [%rd2], %f1;", "bench.cu", 2, 1,
     NULL, 0},
    {3, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.global.f32 %f2, [%rd3];", "bench.cu", 3, 1,
     NULL, 0},
};
static const struct cc_kernel_info kernel = {"bench", "_Z5benchPfPKf", {1, 1, 1},
                                             {256, 1, 1}, 3, insns};

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int count_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  (void)ctx, (void)k, (void)err;
  return 0;
}

static int count_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  uint64_t *n = ctx;
  (void)err;
  *n += a->addr[31] != 1; /* touch the record so the decode is not dead code */
  return 0;
}

static int count_end(void *ctx, struct cc_err *err)
{
  (void)ctx, (void)err;
  return 0;
}

/* Runs one pattern at one level; prints a markdown table row. Returns 0 on success. */
static int run(const char *dir, enum pattern p, int level, uint64_t n)
{
  char path[4096];
  struct cc_trace_writer_opts o = {"trace_speed", "bench", NULL, level, 0};
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_access_sink cs;
  struct cc_trace_info info;
  struct cc_err err = {0};
  struct cc_warp_access a;
  struct stat sb;
  uint64_t x = 0x2545f4914f6cdd1dull, sum = 0, got = 0;
  double t0, t_gen, t_write, t_read;
  memset(&a, 0, sizeof a);
  snprintf(path, sizeof path, "%s/%s-%d.cctrace", dir, pattern_names[p], level);
  t0 = now();
  for (uint64_t i = 0; i < n; i++) {
    gen(p, i, &x, &a);
    sum += a.addr[i & 31];
  }
  t_gen = now() - t0;
  x = 0x2545f4914f6cdd1dull;
  t0 = now();
  if (cc_trace_writer_open(path, &o, &w, &s, &err) != CC_OK ||
      s.begin_kernel(s.ctx, &kernel, &err) != CC_OK)
    goto fail;
  for (uint64_t i = 0; i < n; i++) {
    gen(p, i, &x, &a);
    if (s.access(s.ctx, &a, &err) != CC_OK) {
      cc_trace_writer_abort(w);
      goto fail;
    }
  }
  if (s.end_kernel(s.ctx, &err) != CC_OK || cc_trace_writer_close(w, &err) != CC_OK)
    goto fail;
  t_write = now() - t0;
  if (stat(path, &sb) != 0)
    return 1;
  cs = (struct cc_access_sink){&got, count_begin, count_access, count_end};
  t0 = now();
  if (cc_trace_replay(path, &cs, &info, &err) != CC_OK)
    goto fail;
  t_read = now() - t0;
  printf("| %s | %d | %llu | %.3f | %.3f | %.1f | %.1f | %.1f |\n", pattern_names[p], level,
         (unsigned long long)n, (double)info.stats.raw_bytes / (double)n,
         (double)sb.st_size / (double)n, (double)n / (t_write - t_gen) * 1e-6,
         (double)n / t_write * 1e-6, (double)n / t_read * 1e-6);
  fflush(stdout);
  cc_trace_info_release(&info);
  remove(path);
  return got == n && sum != 1 ? 0 : 1;
fail:
  fprintf(stderr, "trace_speed: %s\n", err.msg);
  remove(path);
  return 1;
}

int main(int argc, char **argv)
{
  uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 8u << 20;
  static const int levels[] = {1, 3};
  if (argc < 2) {
    fprintf(stderr, "usage: trace_speed DIR [RECORDS]\n");
    return 2;
  }
  printf("| pattern | zstd level | records | raw bytes/record | file bytes/record | "
         "write M rec/s | write+gen M rec/s | read M rec/s |\n");
  printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (int p = 0; p < N_PATTERNS; p++)
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
      if (run(argv[1], (enum pattern)p, levels[l], n) != 0)
        return 1;
  return 0;
}
