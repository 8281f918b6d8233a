/* The text report: see report.h. Layout (100 columns):
 *
 *   kernel NAME  (MANGLED)
 *     grid X x Y x Z, block X x Y x Z, arch ARCH
 *     emulated N thread-instructions in S s (R M warp records/s)
 *     global: ... ; shared: ... ; thread accesses ... (CGO 2015 Table 2)
 *
 *     #  location            op    space   size    requests  cost/req  ideal/req     eff  verdict
 *     1  file.cu:5           st    global     4         128     32.00       4.00   12.5%  uncoalesced
 *   (verdict: Algorithm 1's for global and local rows; "N-way" or "no conflict" for shared)
 *        ptx     the PTX text
 *        stride  min, max, avg bytes; footprint stride (allStr) and what it means
 *        address the static form (src/affine, when the run had one) and its thread strides,
 *                or "not affine (kind): why"
 *        advice  kind: text (wrapped)
 *        source  LINE | the CUDA line (the user's line when inlined from a header)
 *        via     header.hpp:112 (inlined)
 *   Counts carry thousands separators (1,179,648); PTX whitespace is one space.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/source.h"
#include "util/fileio.h"

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

static const char *basename_of(const char *path)
{
  const char *base = strrchr(path, '/');
  return base ? base + 1 : path;
}

/* "file.cu:5" from the last path component, cut from the left to LOC_WIDTH. */
static void location(const struct cc_source_loc *loc, char *buf, size_t cap)
{
  char full[512];
  size_t n;
  if (!loc->file) {
    snprintf(buf, cap, "?");
    return;
  }
  snprintf(full, sizeof full, "%s:%" PRIu32, basename_of(loc->file), loc->line);
  n = strlen(full);
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

/* Prints "     LABEL   " then text word-wrapped at the width, continuation lines indented
 * under the text. */
static void detail_wrap(FILE *fp, const char *label, const char *text)
{
  size_t room = CC_REPORT_WIDTH - DETAIL_INDENT;
  int first = 1;
  while (*text) {
    size_t n = strlen(text);
    if (n > room) {
      n = room;
      while (n > 0 && text[n] != ' ')
        n--;
      if (n == 0) /* one word longer than the room: cut it */
        n = room;
    }
    if (first)
      fprintf(fp, "     %-8s%.*s\n", label, (int)n, text);
    else
      fprintf(fp, "%*s%.*s\n", DETAIL_INDENT, "", (int)n, text);
    first = 0;
    text += n;
    while (*text == ' ')
      text++;
  }
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

static void kernel_header(FILE *fp, const struct cc_kernel_stats *k)
{
  const struct cc_kernel_totals *t = &k->totals;
  char a[32], b[32], c[32], d[32];
  fprintf(fp, "kernel %s  (%s)\n", k->name, k->mangled);
  fprintf(fp, "  grid %" PRIu32 " x %" PRIu32 " x %" PRIu32 ", block %" PRIu32 " x %" PRIu32
              " x %" PRIu32 ", arch %s\n",
          k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->arch);
  run_line(fp, &k->run);
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
  if (s->verdict == CC_VERDICT_UNCOALESCED && s->info.space == CC_SPACE_GLOBAL &&
      s->wavefronts == 0)
    snprintf(buf + n, sizeof buf - (size_t)n, "%s",
             s->all_coalescable || s->line_all_coalescable
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
static void source_line(FILE *fp, struct cc_source_cache *cache, const struct cc_insn_stats *s)
{
  char buf[CC_REPORT_WIDTH * 2];
  size_t len = 0;
  const struct cc_source_loc *src = &s->source;
  const char *line = cc_report_source_line(cache, src->file, src->line, &len);
  if (!line) {
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
}

/* sectors: the model's global transactions are 32-byte sectors; otherwise the cost of a
 * global row is its transactions (cc1.x/cc2.x segments and lines) */
static void insn_row(FILE *fp, struct cc_source_cache *cache, size_t rank,
                     const struct cc_insn_stats *s, int imported, int sectors)
{
  char loc[LOC_WIDTH + 8], buf[160], ptx[512], req[32];
  int shared = s->wavefronts > 0;
  uint64_t cost = shared ? s->wavefronts : sectors ? s->sectors : s->transactions;
  uint64_t ideal = shared ? s->ideal_wavefronts : s->ideal_sectors;
  location(&s->source, loc, sizeof loc);
  fprintf(fp, "  %3zu  %-18s  %-4s  %-6s  %4" PRIu32 "  %10s", rank, loc,
          op_name(s->info.kind), cc_space_name(s->info.space), s->info.size_bytes,
          grouped(s->requests, req, sizeof req));
  if (s->requests && !shared && !sectors) /* no ideal in this model's transaction units */
    fprintf(fp, "  %8.2f  %9s", (double)cost / (double)s->requests, "-");
  else if (s->requests)
    fprintf(fp, "  %8.2f  %9.2f", (double)cost / (double)s->requests,
            (double)ideal / (double)s->requests);
  else
    fprintf(fp, "  %8s  %9s", "-", "-");
  /* Algorithm 1's verdict is about global memory; a shared row shows its bank conflicts */
  if (shared && s->ways_max > 1)
    snprintf(buf, sizeof buf, "%" PRIu32 "-way", s->ways_max);
  else
    snprintf(buf, sizeof buf, "%s", shared ? "no conflict" : cc_verdict_name(s->verdict));
  if (isnan(cc_analysis_efficiency(s))) /* unknown (an imported kernel) */
    fprintf(fp, "  %6s  %s\n", "-", buf);
  else
    fprintf(fp, "  %5.1f%%  %s\n", 100.0 * cc_analysis_efficiency(s), buf);
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
  for (size_t j = 0; j < s->n_suggestions; j++) {
    char text[1024];
    snprintf(text, sizeof text, "%s: %s", cc_suggestion_kind_name(s->suggestions[j].kind),
             s->suggestions[j].text);
    detail_wrap(fp, "advice", text);
  }
  source_line(fp, cache, s);
}

static void kernel_report(FILE *fp, struct cc_source_cache *cache, const struct cc_kernel_stats *k,
                          int sectors)
{
  size_t rank = 0, idle = 0;
  kernel_header(fp, k);
  fprintf(fp, "\n  %3s  %-18s  %-4s  %-6s  %4s  %10s  %8s  %9s  %6s  %s\n", "#", "location",
          "op", "space", "size", "requests", "cost/req", "ideal/req", "eff", "verdict");
  for (size_t i = 0; i < k->n_insns; i++) {
    if (k->insns[i].executions == 0) {
      idle++;
      continue;
    }
    insn_row(fp, cache, ++rank, &k->insns[i], k->imported, sectors);
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
}

int cc_report_text(FILE *fp, const struct cc_analysis *an, struct cc_err *err)
{
  struct cc_source_cache *cache = cc_report_source_new();
  for (size_t i = 0; i < an->n_kernels; i++) {
    if (i)
      fputc('\n', fp);
    kernel_report(fp, cache, &an->kernels[i], cc_model_counts_sectors(an->model));
  }
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
