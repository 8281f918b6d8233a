/* The text report: see report.h. Layout (100 columns):
 *
 *   kernel NAME  (MANGLED)
 *     grid X x Y x Z, block X x Y x Z, arch ARCH
 *     emulated N thread-instructions in S s (R M warp records/s)
 *     global: ... ; shared: ... ; thread accesses ... (CGO 2015 Table 2)
 *     traffic: L1 hits, L2 sectors, DRAM bytes           (with a cache model: cache.h)
 *     time:    lower bound, serial latency, estimate; the device and its speeds' source
 *     note:    why uncoalesced accesses cost little, when none would gain from a fix
 *
 *     #  location            op    space   size    requests cost/req  ideal    eff   DRAM  verdict
 *     1  file.cu:5           st    global     4         128    32.00   4.00  12.5%   4.1K  uncoalesced
 *   (verdict: Algorithm 1's for global and local rows; "N-way" or "no conflict" for shared;
 *    DRAM: bytes read + written for the instruction, "-" without a cache model)
 *        ptx     the PTX text
 *        stride  min, max, avg bytes; footprint stride (allStr) and what it means
 *        address the static form (src/affine, when the run had one) and its thread strides,
 *                or "not affine (kind): why"
 *        banks   shared rows: conflict ways
 *        cache   L1 hits, L2 sectors, DRAM bytes read and written
 *        gain    what coalescing it would save, or why nothing
 *        advice  kind: text (wrapped)
 *        source  LINE | the CUDA line (the user's line when inlined from a header)
 *        via     header.hpp:112 (inlined)
 *   Several kernels with advice: "advice by estimated gain", across kernels, at the end.
 *   Counts carry thousands separators (1,179,648); PTX whitespace is one space.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/ci.h"
#include "report/report.h"
#include "report/source.h"
#include "util/fileio.h"
#include "util/mem.h"

#define LOC_WIDTH 18
#define DETAIL_INDENT 13 /* "     advice  " */

static const char *op_name(enum cc_access_kind kind)
{
  switch (kind) {
  case CC_ACCESS_LOAD: return "ld";
  case CC_ACCESS_STORE: return "st";
  case CC_ACCESS_ATOMIC: return "atom";
  case CC_ACCESS_REDUCTION: return "red";
  }
  return "?";
}

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* v with thousands separators: 1179648 -> "1,179,648". buf holds >= 27 bytes. */
static const char *grouped(uint64_t v, char *buf, size_t cap)
{
  char digits[24];
  int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
  size_t o = 0;
  for (int i = 0; i < n && o + 2 < cap; i++) {
    if (i > 0 && (n - i) % 3 == 0)
      buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
  return buf;
}

/* Bytes in decimal units: "512 B", "4.1 KB", "67.1 MB" (compact: "512", "4.1K", "67.1M",
 * at most 6 characters below 10^15). */
static const char *human_bytes(uint64_t v, char *buf, size_t cap, int compact)
{
  static const char units[] = "KMGT";
  double x = (double)v;
  int u = -1;
  while (x >= 999.95 && u < 3) {
    x /= 1000.0;
    u++;
  }
  if (u < 0)
    snprintf(buf, cap, compact ? "%" PRIu64 : "%" PRIu64 " B", v);
  else
    snprintf(buf, cap, compact ? "%.1f%c" : "%.1f %cB", x, units[u]);
  return buf;
}

/* A cache size: "50 MiB", "768 KiB". */
static const char *binary_size(uint64_t v, char *buf, size_t cap)
{
  if (v % (1024 * 1024) == 0)
    snprintf(buf, cap, "%" PRIu64 " MiB", v / (1024 * 1024));
  else
    snprintf(buf, cap, "%" PRIu64 " KiB", v / 1024);
  return buf;
}

/* Microseconds as "12.3 us", "1.55 ms" or "2.10 s". */
static const char *human_us(double t, char *buf, size_t cap)
{
  if (t >= 1e6)
    snprintf(buf, cap, "%.2f s", t / 1e6);
  else if (t >= 1e3)
    snprintf(buf, cap, "%.2f ms", t / 1e3);
  else
    snprintf(buf, cap, "%.1f us", t);
  return buf;
}

static const char *basename_of(const char *path)
{
  const char *base = strrchr(path, '/');
  return base ? base + 1 : path;
}

/* "file.cu:5" from the last path component, cut from the left to LOC_WIDTH ("file.cu,
 * line unknown" for line 0, or "line unknown" when that is too wide). */
static void location(const struct cc_source_loc *loc, char *buf, size_t cap)
{
  char full[512];
  size_t n;
  if (!loc->file) {
    snprintf(buf, cap, "?");
    return;
  }
  cc_report_place(basename_of(loc->file), loc->line, full, sizeof full);
  n = strlen(full);
  if (n > LOC_WIDTH && !loc->line) { /* the file is the kernel's; "unknown" must show */
    snprintf(buf, cap, "line unknown");
    return;
  }
  if (n <= LOC_WIDTH)
    snprintf(buf, cap, "%s", full);
  else
    snprintf(buf, cap, "...%s", full + n - (LOC_WIDTH - 3));
}

/* Prints "     LABEL   " then s[0..len), cut with "..." to fit the width. */
static void detail_cut(FILE *fp, const char *label, const char *s, size_t len)
{
  size_t room = CC_REPORT_WIDTH - DETAIL_INDENT;
  fprintf(fp, "     %-8s", label);
  if (len <= room)
    fprintf(fp, "%.*s\n", (int)len, s);
  else
    fprintf(fp, "%.*s...\n", (int)(room - 3), s);
}

/* Prints first (a prefix of indent columns) then text word-wrapped at the width,
 * continuation lines indented by indent. */
static void wrap(FILE *fp, const char *first, size_t indent, const char *text)
{
  size_t room = CC_REPORT_WIDTH - indent;
  int first_line = 1;
  while (*text) {
    size_t n = strlen(text);
    if (n > room) {
      n = room;
      while (n > 0 && text[n] != ' ')
        n--;
      if (n == 0) /* one word longer than the room: cut it */
        n = room;
    }
    if (first_line)
      fprintf(fp, "%s%.*s\n", first, (int)n, text);
    else
      fprintf(fp, "%*s%.*s\n", (int)indent, "", (int)n, text);
    first_line = 0;
    text += n;
    while (*text == ' ')
      text++;
  }
}

/* Prints "     LABEL   " then text word-wrapped at the width, continuation lines indented
 * under the text. */
static void detail_wrap(FILE *fp, const char *label, const char *text)
{
  char first[32];
  snprintf(first, sizeof first, "     %-8s", label);
  wrap(fp, first, DETAIL_INDENT, text);
}

/* "emulated N thread-instructions in S s (R M warp records/s)" when the run's counters
 * are known. */
static void run_line(FILE *fp, const struct cc_kernel_run_stats *run)
{
  char a[32];
  if (!run->present)
    return;
  fprintf(fp, "  emulated %s thread-instructions in %.2f s", grouped(run->thread_insns, a,
          sizeof a), run->seconds);
  if (run->seconds > 0)
    fprintf(fp, " (%.1f M warp records/s)", (double)run->warp_accesses / run->seconds / 1e6);
  fputc('\n', fp);
}

/* The kernel's "traffic" and "time" lines (cache/cache.h). */
static void traffic_lines(FILE *fp, const struct cc_kernel_stats *k)
{
  const struct cc_cache_counts *c = &k->cache.total;
  const struct cc_cache_device *d = k->device;
  const struct cc_cache_time *t = &k->time;
  uint64_t asked = c->l1_hit_sectors + c->l2_sectors_read;
  char buf[512], a[32], b[32], e[32], f[32], g[32], h[32];
  snprintf(buf, sizeof buf, "L1 hits %s of %s load sectors (%.1f%%); L2 %s sectors; DRAM %s "
           "read, %s written (%s left dirty in L2 at the end)",
           grouped(c->l1_hit_sectors, a, sizeof a), grouped(asked, b, sizeof b),
           pct(c->l1_hit_sectors, asked), grouped(cc_cache_l2_sectors(c), e, sizeof e),
           human_bytes(c->dram_bytes_read, f, sizeof f, 0),
           human_bytes(c->dram_bytes_written, g, sizeof g, 0),
           human_bytes(c->l2_dirty_bytes_at_end, h, sizeof h, 0));
  wrap(fp, "  traffic: ", 11, buf);
  snprintf(buf, sizeof buf, "at least %s (%s bound%s), serial latency %s: estimate %s; %s, "
           "L1 %u KiB on %u of %u SMs, L2 %s; speeds: %s", human_us(t->bound_us, a, sizeof a),
           cc_cache_bound_name(t->bound_by),
           t->bound_by == CC_CACHE_BOUND_L1 ? ", busiest SM" : "",
           human_us(t->latency_us, b, sizeof b), human_us(t->estimate_us, e, sizeof e), d->label,
           k->cache.l1_bytes / 1024, k->cache.sms_used, d->sms,
           binary_size(d->l2_bytes, f, sizeof f),
           d->calibrated ? d->speed_source : "table defaults (not calibrated)");
  wrap(fp, "  time:    ", 11, buf);
  if (k->cache.sampled_from != UINT64_MAX) {
    snprintf(buf, sizeof buf, "L1 hits, L2 and DRAM figures estimated from 1 set in %u "
             "after the first %s records (of %s); every set: --cache %s,sample=1",
             k->cache.sample, grouped(k->cache.sampled_from, b, sizeof b),
             grouped(k->cache.records, a, sizeof a), d->name);
    wrap(fp, "  sampled: ", 11, buf);
  }
}

/* "±x%" of a relative 95% bound, "±?" when unknown */
static const char *bound_text(double b, char *buf, size_t cap)
{
  if (isnan(b))
    snprintf(buf, cap, "\u00b1?");
  else
    snprintf(buf, cap, "\u00b1%.1f%%", 100.0 * b);
  return buf;
}

/* The GPU backend's fast mode: launches sampled, figures extrapolated (sample.c). */
static void sampling_line(FILE *fp, const struct cc_kernel_sampling *smp)
{
  char a[32], b[32], c[32], d[32];
  if (!smp->present)
    return;
  if (smp->ctas) { /* --gpu-mode inline --sample-ctas (src/cli/gpu_inline.c) */
    fprintf(fp, "  sampled: %s of %s CTAs counted, the counts scaled to the grid: requests "
            "%s, sectors %s (95%%; --sample-ctas 1 counts every CTA)\n",
            grouped(smp->sampled_ctas, a, sizeof a), grouped(smp->ctas, b, sizeof b),
            bound_text(smp->bound_requests, c, sizeof c),
            bound_text(smp->bound_sectors, d, sizeof d));
    return;
  }
  fprintf(fp, "  sampled: %s of %s launches measured, the rest extrapolated: requests %s, "
          "sectors %s (95%%; --exact counts every launch)\n",
          grouped(smp->sampled, a, sizeof a), grouped(smp->launches, b, sizeof b),
          bound_text(smp->bound_requests, c, sizeof c),
          bound_text(smp->bound_sectors, d, sizeof d));
}

static void kernel_header(FILE *fp, const struct cc_kernel_stats *k)
{
  const struct cc_kernel_totals *t = &k->totals;
  char a[32], b[32], c[32], d[32];
  fprintf(fp, "kernel %s  (%s)\n", k->name, k->mangled);
  fprintf(fp, "  grid %" PRIu32 " x %" PRIu32 " x %" PRIu32 ", block %" PRIu32 " x %" PRIu32
              " x %" PRIu32 ", arch %s\n",
          k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->arch);
  run_line(fp, &k->run);
  sampling_line(fp, &k->sampling);
  if (t->requests == 0) {
    fprintf(fp, "  global: no requests\n");
  } else {
    fprintf(fp, "  global: %s requests, %s sectors, ideal %s, excess %s\n",
            grouped(t->requests, a, sizeof a), grouped(t->sectors, b, sizeof b),
            grouped(t->ideal_sectors, c, sizeof c), grouped(t->excess_sectors, d, sizeof d));
    double eff = cc_analysis_totals_efficiency(t);
    if (isnan(eff))
      fprintf(fp, "          %s bytes requested, %s transferred; distinct bytes and efficiency "
              "unknown\n", grouped(t->bytes_requested, a, sizeof a),
              grouped(t->bytes_transferred, b, sizeof b));
    else
      fprintf(fp, "          %s bytes requested, %s distinct, %s transferred: efficiency "
              "%.1f%%\n", grouped(t->bytes_requested, a, sizeof a),
              grouped(t->unique_bytes, c, sizeof c), grouped(t->bytes_transferred, b, sizeof b),
              100.0 * eff);
  }
  if (t->wavefronts && (t->unknown & CC_UNKNOWN_CONFLICTS))
    fprintf(fp, "  shared: %s wavefronts, ideal %s, bank conflicts in an unknown number of "
            "requests\n", grouped(t->wavefronts, a, sizeof a),
            grouped(t->ideal_wavefronts, b, sizeof b));
  else if (t->wavefronts)
    fprintf(fp, "  shared: %s wavefronts, ideal %s, bank conflicts in %s request%s\n",
            grouped(t->wavefronts, a, sizeof a), grouped(t->ideal_wavefronts, b, sizeof b),
            grouped(t->conflict_requests, c, sizeof c), t->conflict_requests == 1 ? "" : "s");
  if (t->unknown & CC_UNKNOWN_UNCOALESCED)
    fprintf(fp, "  thread accesses %s, in uncoalesced requests unknown  [CGO 2015 Table 2]\n",
            grouped(t->thread_accesses, a, sizeof a));
  else
    fprintf(fp, "  thread accesses %s, in uncoalesced requests %s (%.1f%%)  [CGO 2015 Table 2]"
            "\n", grouped(t->thread_accesses, a, sizeof a),
            grouped(t->uncoalesced_thread_accesses, b, sizeof b),
            pct(t->uncoalesced_thread_accesses, t->thread_accesses));
  if (k->cached && k->device)
    traffic_lines(fp, k);
}

/* Strides, then Algorithm 1's footprint stride (allStr, CGO 2015 lines 28-31: the largest
 * gap between the sorted distinct addresses of all executions), also over the unrolled
 * copies of the source line; for an uncoalesced global instruction what allStr means
 * (lines 39-42): no gap wider than an element, so a remapping of threads can coalesce
 * it, or gaps that no remapping closes. A coalesced, shared or local row gets no
 * judgement (coalescing by remapping threads is about global memory). imported: the GPU
 * backend measures no footprint. */
static void stride_line(FILE *fp, const struct cc_insn_stats *s, int imported)
{
  char buf[384], lane[64];
  int n;
  if (s->stride_count == 0)
    snprintf(lane, sizeof lane, "none (no two active lanes in one group)");
  else
    snprintf(lane, sizeof lane, "min %" PRIu64 ", max %" PRIu64 ", avg %.1f bytes",
             s->stride_min, s->stride_max, cc_analysis_stride_avg(s));
  if (imported) {
    snprintf(buf, sizeof buf, "%s; footprint stride not measured on the GPU", lane);
    detail_wrap(fp, "stride", buf);
    return;
  }
  n = snprintf(buf, sizeof buf, "%s; footprint stride %" PRIu64 " bytes", lane, s->all_stride);
  if (s->line_insns > 1)
    n += snprintf(buf + n, sizeof buf - (size_t)n, ", %" PRIu64 " bytes over the %" PRIu32
                  " instructions of this source line", s->line_all_stride, s->line_insns);
  /* a data-dependent address (a gather, a histogram's bin) may cover contiguous memory
     over the run, but only an order of the data, not of the threads, makes it regular */
  int indirect = s->addr.status == CC_ADDR_NOT_AFFINE && s->addr.kind &&
                 strcmp(s->addr.kind, "indirect") == 0;
  if (s->verdict == CC_VERDICT_UNCOALESCED && s->info.space == CC_SPACE_GLOBAL &&
      s->wavefronts == 0)
    snprintf(buf + n, sizeof buf - (size_t)n, "%s",
             (s->all_coalescable || s->line_all_coalescable) && indirect
                 ? ": contiguous over the run, but the address depends on loaded data, so "
                   "no remapping of threads coalesces it"
             : s->all_coalescable || s->line_all_coalescable
                 ? ": contiguous, a remapping of threads can coalesce it"
                 : ": gaps remain, no remapping of threads can coalesce it");
  detail_wrap(fp, "stride", buf);
}

/* The static form of the address (analysis.h, cc_addr_form) with its thread strides and
 * loops, or why it has none; nothing when no form was handed in. */
static void address_line(FILE *fp, const struct cc_insn_stats *s)
{
  char buf[1536];
  const struct cc_addr_form *a = &s->addr;
  size_t n;
  if (a->status == CC_ADDR_NONE)
    return;
  if (a->status == CC_ADDR_NOT_AFFINE) {
    snprintf(buf, sizeof buf, "not affine (%s): %s", a->kind, a->text);
    detail_wrap(fp, "address", buf);
    return;
  }
  n = (size_t)snprintf(buf, sizeof buf, "%s; thread strides", a->text);
  for (uint32_t d = 0; d < 3 && n < sizeof buf; d++) {
    static const char axis[3] = {'x', 'y', 'z'};
    if (a->tid[d].known)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %c %" PRId64, d ? "," : "", axis[d],
                            a->tid[d].bytes);
    else
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %c ?", d ? "," : "", axis[d]);
  }
  if (n < sizeof buf)
    n += (size_t)snprintf(buf + n, sizeof buf - n, " bytes (%s, %s, %s)",
                          cc_addr_class_name(cc_analysis_addr_class(s, 0)),
                          cc_addr_class_name(cc_analysis_addr_class(s, 1)),
                          cc_addr_class_name(cc_analysis_addr_class(s, 2)));
  for (uint32_t l = 0; l < a->nloops && n < sizeof buf; l++) {
    const struct cc_addr_loop *lp = &a->loops[l];
    if (lp->stride.known)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "; L%" PRIu32 " (loop at line %" PRIu32
                            ") %" PRId64 " bytes per iteration", lp->index, lp->line,
                            lp->stride.bytes);
  }
  detail_wrap(fp, "address", buf);
}

/* The CUDA line of the instruction's source (analysis.h: the user's line), and "via" the
 * header location it was inlined from. */
/* "ignore  suppressed in the source: REASON" when a `// coalcheck: ignore` comment on the
 * instruction's line exempts it from the --fail-on gates (ci.h). */
static void suppressed_line(FILE *fp, struct cc_source_cache *cache,
                            const struct cc_insn_stats *s)
{
  char reason[512], buf[600];
  if (!cc_report_suppression(cache, s, reason, sizeof reason))
    return;
  snprintf(buf, sizeof buf, "suppressed in the source (exempt from --fail-on)%s%s",
           reason[0] ? ": " : "", reason);
  detail_wrap(fp, "ignore", buf);
}

static void source_line(FILE *fp, struct cc_source_cache *cache, const struct cc_insn_stats *s)
{
  char buf[CC_REPORT_WIDTH * 2];
  size_t len = 0;
  const struct cc_source_loc *src = &s->source;
  const char *line = cc_report_source_line(cache, src->file, src->line, &len);
  if (!src->line && src->file) {
    detail_cut(fp, "source", "(line unknown: nvcc gave this instruction line 0)",
               strlen("(line unknown: nvcc gave this instruction line 0)"));
  } else if (!line) {
    detail_cut(fp, "source", "(source not available)", strlen("(source not available)"));
  } else {
    while (len > 0 && (*line == ' ' || *line == '\t'))
      line++, len--;
    int n = snprintf(buf, sizeof buf, "%" PRIu32 " | %.*s", src->line,
                     (int)(len < CC_REPORT_WIDTH ? len : CC_REPORT_WIDTH), line);
    for (char *p = buf; *p; p++)
      if (*p == '\t')
        *p = ' ';
    detail_cut(fp, "source", buf, n < 0 ? 0 : strlen(buf));
  }
  if (s->inlined_from.file) {
    snprintf(buf, sizeof buf, "%s:%" PRIu32 " (inlined)", basename_of(s->inlined_from.file),
             s->inlined_from.line);
    detail_cut(fp, "via", buf, strlen(buf));
  }
  suppressed_line(fp, cache, s);
}

/* "cache" line of a global or local row: its L1 hits, L2 sectors and DRAM bytes. */
static void cache_line(FILE *fp, const struct cc_insn_stats *s)
{
  const struct cc_cache_counts *c = &s->cache;
  uint64_t asked = c->l1_hit_sectors + c->l2_sectors_read;
  uint64_t waits = c->waits_l1 + c->waits_l2 + c->waits_dram;
  char buf[512], a[32], b[32], e[32], f[32];
  int n = 0;
  if (asked)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "L1 hits %s of %s sectors (%.1f%%); ",
                  grouped(c->l1_hit_sectors, a, sizeof a), grouped(asked, b, sizeof b),
                  pct(c->l1_hit_sectors, asked));
  n += snprintf(buf + n, sizeof buf - (size_t)n, "L2 %s sectors%s; DRAM %s read, %s written",
                grouped(cc_cache_l2_sectors(c), e, sizeof e),
                c->l2_sectors_atomic ? " (atomic)" : c->l2_sectors_write ? " written" : "",
                human_bytes(c->dram_bytes_read, a, sizeof a, 0),
                human_bytes(c->dram_bytes_written, f, sizeof f, 0));
  if (c->l2_dirty_bytes_at_end)
    n += snprintf(buf + n, sizeof buf - (size_t)n, " (%s left dirty in L2)",
                  human_bytes(c->l2_dirty_bytes_at_end, a, sizeof a, 0));
  if (c->waits_dram)
    snprintf(buf + n, sizeof buf - (size_t)n, "; waits on DRAM in %s of %s requests",
             grouped(c->waits_dram, a, sizeof a), grouped(waits, b, sizeof b));
  detail_wrap(fp, "cache", buf);
}

/* Whether an uncoalesced instruction's re-reads are absorbed by the caches, over its
 * source-level reference (analysis.h ref_cache: an unrolled loop's copies): they hit L1,
 * and DRAM reads no more than their ideal sectors (a coalesced access's) hold, +5%. */
static int reads_absorbed(const struct cc_insn_stats *s)
{
  return s->ref_cache.l1_hit_sectors > 0 &&
         (double)s->ref_cache.dram_bytes_read <= 1.05 * 32.0 * (double)s->ref_ideal_sectors;
}

/* Estimated gains below 1% of the kernel's estimate (and below a nanosecond) are none. */
static int gains_little(const struct cc_kernel_stats *k, const struct cc_insn_stats *s)
{
  return s->gain_us < 1e-3 || s->gain_us < 0.01 * k->time.estimate_us;
}

static const char *limit_name(const struct cc_cache_time *t)
{
  return t->latency_us > t->bound_us ? "latency" : cc_cache_bound_name(t->bound_by);
}

/* "gain" line of an uncoalesced global or local row: what coalescing its source-level
 * reference saves, or why nothing (issue 12: a row-per-thread loop whose re-reads hit L1
 * is not the slow one). */
static void gain_line(FILE *fp, const struct cc_kernel_stats *k, const struct cc_insn_stats *s)
{
  struct cc_cache_time after;
  const struct cc_cache_counts *c = &s->ref_cache;
  uint64_t waits = c->waits_l1 + c->waits_l2 + c->waits_dram;
  char buf[768], a[32], b[32], e[32];
  int n;
  cc_cache_fix_gain_us(k->device, &k->cache, c, s->ref_requests, s->ref_ideal_sectors, &after);
  if (!gains_little(k, s)) {
    snprintf(buf, sizeof buf, "coalescing this source line saves about %s of the kernel's %s "
             "estimate (to %s, %s bound)", human_us(s->gain_us, a, sizeof a),
             human_us(k->time.estimate_us, b, sizeof b), human_us(after.estimate_us, e, sizeof e),
             limit_name(&after));
    detail_wrap(fp, "gain", buf);
    return;
  }
  n = snprintf(buf, sizeof buf, "none estimated: ");
  if (reads_absorbed(s)) {
    n += snprintf(buf + n, sizeof buf - (size_t)n, "L1 and L2 absorb the line's re-reads "
                  "(%.1f%% of its sectors hit L1) and DRAM reads %s, what a coalesced access "
                  "reads too", pct(c->l1_hit_sectors, c->l1_hit_sectors + c->l2_sectors_read),
                  human_bytes(c->dram_bytes_read, a, sizeof a, 0));
    if (c->waits_dram && c->waits_dram < waits)
      n += snprintf(buf + n, sizeof buf - (size_t)n, "; 1 in %.0f of its requests waits on "
                    "DRAM, where a coalesced one would wait at each", (double)waits /
                    (double)c->waits_dram);
    if (after.estimate_us > k->time.estimate_us * 1.01)
      snprintf(buf + n, sizeof buf - (size_t)n, ": coalesced, the kernel would take about %s, "
               "not %s", human_us(after.estimate_us, b, sizeof b),
               human_us(k->time.estimate_us, e, sizeof e));
  } else {
    snprintf(buf + n, sizeof buf - (size_t)n, "the kernel's time is set by %s (%s), which "
             "coalescing this line leaves about as it is", limit_name(&k->time),
             human_us(k->time.estimate_us, a, sizeof a));
  }
  detail_wrap(fp, "gain", buf);
}

/* sectors: the model's global transactions are 32-byte sectors; otherwise the cost of a
 * global row is its transactions (cc1.x/cc2.x segments and lines) */
static void insn_row(FILE *fp, struct cc_source_cache *cache, size_t rank,
                     const struct cc_insn_stats *s, const struct cc_kernel_stats *k, int sectors)
{
  char loc[LOC_WIDTH + 8], buf[160], ptx[512], req[32], dram[32];
  int shared = s->wavefronts > 0, imported = k->imported;
  int global = !shared && s->info.space != CC_SPACE_SHARED;
  uint64_t cost = shared ? s->wavefronts : sectors ? s->sectors : s->transactions;
  uint64_t ideal = shared ? s->ideal_wavefronts : s->ideal_sectors;
  location(&s->source, loc, sizeof loc);
  fprintf(fp, "  %3zu  %-18s  %-4s  %-6s  %4" PRIu32 "  %10s", rank, loc,
          op_name(s->info.kind), cc_space_name(s->info.space), s->info.size_bytes,
          grouped(s->requests, req, sizeof req));
  if (s->requests && !shared && !sectors) /* no ideal in this model's transaction units */
    fprintf(fp, " %8.2f %6s", (double)cost / (double)s->requests, "-");
  else if (s->requests)
    fprintf(fp, " %8.2f %6.2f", (double)cost / (double)s->requests,
            (double)ideal / (double)s->requests);
  else
    fprintf(fp, " %8s %6s", "-", "-");
  /* Algorithm 1's verdict is about global memory; a shared row shows its bank conflicts */
  if (shared && s->ways_max > 1)
    snprintf(buf, sizeof buf, "%" PRIu32 "-way", s->ways_max);
  else
    snprintf(buf, sizeof buf, "%s", shared ? "no conflict" : cc_verdict_name(s->verdict));
  if (k->cached)
    human_bytes(s->cache.dram_bytes_read + s->cache.dram_bytes_written, dram, sizeof dram, 1);
  else
    snprintf(dram, sizeof dram, "-");
  if (isnan(cc_analysis_efficiency(s))) /* unknown (an imported kernel) */
    fprintf(fp, " %6s %6s  %s\n", "-", dram, buf);
  else
    fprintf(fp, " %5.1f%% %6s  %s\n", 100.0 * cc_analysis_efficiency(s), dram, buf);
  cc_report_squeeze(s->info.text ? s->info.text : "?", ptx, sizeof ptx);
  detail_cut(fp, "ptx", ptx, strlen(ptx));
  stride_line(fp, s, imported);
  address_line(fp, s);
  if (shared && (s->unknown & CC_UNKNOWN_CONFLICTS)) {
    snprintf(buf, sizeof buf, "%" PRIu32 "-way at worst", s->ways_max);
    detail_wrap(fp, "banks", buf);
  } else if (shared) {
    char cr[32];
    snprintf(buf, sizeof buf, "%" PRIu32 "-way at worst; conflicts in %s of %s requests",
             s->ways_max, grouped(s->conflict_requests, cr, sizeof cr), req);
    detail_wrap(fp, "banks", buf);
  }
  if (k->cached && global && s->requests) {
    cache_line(fp, s);
    if (s->verdict == CC_VERDICT_UNCOALESCED)
      gain_line(fp, k, s);
  }
  for (size_t j = 0; j < s->n_suggestions; j++) {
    char text[1024];
    snprintf(text, sizeof text, "%s: %s", cc_suggestion_kind_name(s->suggestions[j].kind),
             s->suggestions[j].text);
    detail_wrap(fp, "advice", text);
  }
  source_line(fp, cache, s);
}

/* With a cache model, the kernel's "note" when it has uncoalesced global accesses and
 * none would gain from a fix while one of them has its re-reads absorbed: why the
 * uncoalesced kernel is not slow for that (issue 12). */
static void kernel_note(FILE *fp, const struct cc_kernel_stats *k)
{
  size_t uncoalesced = 0, absorbed = 0;
  char a[32], buf[512];
  if (!k->cached || !k->device)
    return;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (s->wavefronts || s->info.space == CC_SPACE_SHARED || !s->requests ||
        s->verdict != CC_VERDICT_UNCOALESCED)
      continue;
    if (!gains_little(k, s))
      return;
    uncoalesced++;
    absorbed += reads_absorbed(s);
  }
  if (!uncoalesced || !absorbed)
    return;
  snprintf(buf, sizeof buf, "its uncoalesced accesses are not what makes it slow: L1 and L2 "
           "absorb their re-reads, DRAM moves the bytes coalesced ones would, and its %s "
           "estimate is set by %s, which coalescing does not lower (see gain)",
           human_us(k->time.estimate_us, a, sizeof a),
           k->time.latency_us > k->time.bound_us ? "the loads' latency" : limit_name(&k->time));
  wrap(fp, "  note:    ", 11, buf);
}

static void kernel_report(FILE *fp, struct cc_source_cache *cache, const struct cc_kernel_stats *k,
                          int sectors)
{
  size_t rank = 0, idle = 0;
  kernel_header(fp, k);
  kernel_note(fp, k);
  fprintf(fp, "\n  %3s  %-18s  %-4s  %-6s  %4s  %10s %8s %6s %6s %6s  %s\n", "#", "location",
          "op", "space", "size", "requests", "cost/req", "ideal", "eff", "DRAM", "verdict");
  for (size_t i = 0; i < k->n_insns; i++) {
    if (k->insns[i].executions == 0) {
      idle++;
      continue;
    }
    insn_row(fp, cache, ++rank, &k->insns[i], k, sectors);
  }
  if (rank == 0)
    fprintf(fp, "  (no memory instruction was executed)\n");
  if (idle)
    fprintf(fp, "  %zu memory instruction%s never executed\n", idle, idle == 1 ? "" : "s");
  if (rank && !k->imported)
    fprintf(fp, "  footprint stride: allStr (CGO 2015), the largest gap between distinct addresses "
            "of all executions\n");
  if (sectors)
    fprintf(fp, "  cost/req: 32-byte sectors (global, local) or wavefronts (shared) per request\n");
  else
    fprintf(fp, "  cost/req: transactions (global, local: %s rules) or wavefronts (shared) "
            "per request\n", k->arch);
  if (k->cached)
    fprintf(fp, "  DRAM: bytes read + written (cache model of the %s); ideal: ideal/req\n",
            k->device ? k->device->name : "?");
}

/* One line of the ranking: a kernel's uncoalesced instruction and its gain. */
struct ranked {
  const struct cc_kernel_stats *k;
  const struct cc_insn_stats *s;
};

static int cmp_ranked(const void *pa, const void *pb)
{
  const struct ranked *a = pa, *b = pb;
  if (a->s->gain_us != b->s->gain_us)
    return a->s->gain_us > b->s->gain_us ? -1 : 1;
  return (a->s->excess_sectors < b->s->excess_sectors) - (a->s->excess_sectors > b->s->excess_sectors);
}

/* Several kernels with cache figures: their estimates, slowest first, and the advice of
 * all kernels by estimated gain (issue 12: rank by what a fix gains, not by sectors). */
static void ranking(FILE *fp, const struct cc_analysis *an)
{
  struct ranked *r = cc_xcalloc(an->n_kernels ? an->n_kernels : 1, sizeof *r), *adv;
  size_t n = 0, m = 0, total = 0;
  char a[32], b[32], line[256];
  for (size_t i = 0; i < an->n_kernels; i++)
    if (an->kernels[i].cached && an->kernels[i].device) {
      r[n++].k = &an->kernels[i];
      total += an->kernels[i].n_insns;
    }
  if (n < 2) {
    free(r);
    return;
  }
  for (size_t i = 1; i < n; i++) /* slowest first; few kernels: insertion sort */
    for (size_t j = i; j > 0 && r[j].k->time.estimate_us > r[j - 1].k->time.estimate_us; j--) {
      struct ranked t = r[j];
      r[j] = r[j - 1];
      r[j - 1] = t;
    }
  fprintf(fp, "\nkernels by estimated time, slowest first\n");
  for (size_t i = 0; i < n; i++) {
    const struct cc_kernel_stats *k = r[i].k;
    snprintf(line, sizeof line, "%3zu  %-30.30s  %10s  %s; uncoalesced thread accesses %.1f%%",
             i + 1, k->name, human_us(k->time.estimate_us, a, sizeof a),
             limit_name(&k->time), pct(k->totals.uncoalesced_thread_accesses, k->totals.thread_accesses));
    wrap(fp, "  ", 7, line);
  }
  adv = cc_xcalloc(total ? total : 1, sizeof *adv);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < r[i].k->n_insns; j++)
      if (r[i].k->insns[j].n_suggestions && r[i].k->insns[j].requests)
        adv[m++] = (struct ranked){r[i].k, &r[i].k->insns[j]};
  qsort(adv, m, sizeof *adv, cmp_ranked);
  if (m)
    fprintf(fp, "\nadvice by estimated gain\n");
  for (size_t i = 0; i < m && i < 10; i++) {
    char loc[LOC_WIDTH + 8];
    location(&adv[i].s->source, loc, sizeof loc);
    snprintf(line, sizeof line, "%3zu  %-24.24s %-14s  %-15s  gain %s of %s", i + 1,
             adv[i].k->name, loc, cc_suggestion_kind_name(adv[i].s->suggestions[0].kind),
             adv[i].s->gain_us > 0 ? human_us(adv[i].s->gain_us, a, sizeof a) : "none",
             human_us(adv[i].k->time.estimate_us, b, sizeof b));
    wrap(fp, "  ", 7, line);
  }
  free(adv);
  free(r);
}

int cc_report_text(FILE *fp, const struct cc_analysis *an, struct cc_err *err)
{
  struct cc_source_cache *cache = cc_report_source_new();
  for (size_t i = 0; i < an->n_kernels; i++) {
    if (i)
      fputc('\n', fp);
    kernel_report(fp, cache, &an->kernels[i], cc_model_counts_sectors(an->model));
  }
  ranking(fp, an);
  cc_report_source_free(cache);
  if (fflush(fp) != 0 || ferror(fp))
    return cc_err_set(err, CC_ERR_IO, "cannot write the text report: %s",
                      "write error (disk full or closed pipe?)");
  return CC_OK;
}

int cc_report_text_write(const char *path, const struct cc_analysis *an, struct cc_err *err)
{
  struct cc_outfile f;
  int rc = cc_outfile_open(&f, path, err);
  if (rc != CC_OK)
    return rc;
  rc = cc_report_text(f.fp, an, err);
  if (rc != CC_OK) {
    if (f.path)
      cc_outfile_abort(&f);
    return cc_err_prefix(err, "%s", path);
  }
  return cc_outfile_commit(&f, err);
}
