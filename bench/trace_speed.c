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

static const struct cc_insn_info insns[2] = {
    {1, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.global.f32 %f1, [%rd1];", "bench.cu", 1, 1,
     NULL, 0},
    {2, CC_ACCESS_STORE, CC_SPACE_GLOBAL, 4, "st.global.f32 [%rd2], %f1;", "bench.cu", 2, 1,
     NULL, 0},
};
static const struct cc_kernel_info kernel = {"bench", "_Z5benchPfPKf", {1, 1, 1},
                                             {256, 1, 1}, 2, insns};

enum pattern { COPY, TRANSPOSE, DIVERGENT, LOOP, GATHER, N_PATTERNS };
static const char *const pattern_names[N_PATTERNS] = {"copy", "transpose", "divergent",
                                                      "loop", "gather"};

static void fill(struct cc_warp_access *a, uint64_t base, uint64_t stride)
{
  for (uint32_t l = 0; l < 32; l++)
    a->addr[l] = base + l * stride;
}

/* Record i of pattern p; *x is the gather generator's state. */
static void gen(enum pattern p, uint64_t i, uint64_t *x, struct cc_warp_access *a)
{
  const uint64_t in = 0x7f0000000000ull, out = 0x7f1000000000ull;
  uint64_t pair = i / 2, warp_id = pair, cta = warp_id / 8;
  uint32_t slot = (uint32_t)(i & 1);
  a->insn_slot = slot;
  a->kind = insns[slot].kind;
  a->space = CC_SPACE_GLOBAL;
  a->size_bytes = 4;
  a->dyn = 0;
  a->active = 0xffffffffu;
  a->cta[0] = (uint32_t)(cta % 4096);
  a->cta[1] = (uint32_t)(cta / 4096);
  a->cta[2] = 0;
  a->warp = (uint32_t)(warp_id % 8);
  switch (p) {
  case COPY:
    fill(a, (slot ? out : in) + warp_id * 128, 4);
    break;
  case TRANSPOSE: { /* CTA (bx, by) of 32x8 threads; warp w = thread row ty = w */
    uint64_t bx = cta % 128, by = cta / 128 % 512, ty = warp_id % 8;
    uint64_t row = by * 8 + ty, col = bx * 32;
    a->cta[0] = (uint32_t)bx;
    a->cta[1] = (uint32_t)by;
    if (slot)
      fill(a, out + (col * 4096 + row) * 4, 4096 * 4);
    else
      fill(a, in + (row * 4096 + col) * 4, 4);
    break;
  }
  case DIVERGENT:
    fill(a, (slot ? out : in) + warp_id * 128, 4);
    if (warp_id & 1)
      a->active = (warp_id & 2) ? 0x0000ffffu : 0xaaaaaaaau;
    break;
  case LOOP: { /* warp w of the grid handles rows 32w..32w+31; trip t reads column t */
    uint64_t w = i / 4096, t = i % 4096;
    a->insn_slot = 0;
    a->kind = CC_ACCESS_LOAD;
    a->cta[0] = (uint32_t)(w / 8);
    a->cta[1] = 0;
    a->warp = (uint32_t)(w % 8);
    a->dyn = t;
    fill(a, in + (w * 32 * 4096 + t) * 4, 4096 * 4);
    break;
  }
  case GATHER:
    for (uint32_t l = 0; l < 32; l++) {
      *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
      a->addr[l] = in + (*x % (1u << 26)) * 4;
    }
    break;
  case N_PATTERNS:
    break;
  }
}

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
