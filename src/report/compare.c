/* The side-by-side comparison of one run under several models: the check that the
 * analyses belong together, and the text form. See compare.h; the JSON form is
 * compare_json.c. Layout (100 columns):
 *
 *   kernel NAME  (MANGLED)
 *     grid X x Y x Z, block X x Y x Z; models cc1.0, cc1.2, sm_90
 *     arch     global requests  transactions    bytes moved     eff  shared wavefronts  ideal
 *     cc1.0                 64           128           4096   50.0%                  0      0
 *
 *     ptx 14  st.global.f32 [%rd9], %f1;
 *             file.cu:5, store global, 4 bytes, 32 executions, 1024 thread accesses
 *     arch       requests  trans/req    bytes moved     eff  verdict (Algorithm 1)
 *     cc1.0            64       16.00          32768   12.5%  uncoalesced (W = 16)
 *   shared instructions instead:
 *     arch       requests       ways   wavefronts        ideal     eff
 */
#include "report/compare.h"

#include <inttypes.h>
#include <string.h>

#include "report/report.h"
#include "report/source.h"
#include "util/fileio.h"

/* ---- the check ---- */

/* Compares kernel k of a with the same kernel of ref (analysis 0); CC_OK or CC_ERR_INPUT
 * naming what differs. */
static int check_kernel(const struct cc_kernel_stats *ref, const struct cc_kernel_stats *k,
                        const char *arch, struct cc_err *err)
{
  if (strcmp(ref->mangled, k->mangled) != 0)
    return cc_err_set(err, CC_ERR_INPUT,
                      "the analysis under %s has kernel %s where the first has %s: compare "
                      "analyses of the same run", arch, k->mangled, ref->mangled);
  if (ref->n_insns != k->n_insns)
    return cc_err_set(err, CC_ERR_INPUT,
                      "kernel %s has %zu memory instructions under %s but %zu under the "
                      "first model: compare analyses of the same run",
                      k->name, k->n_insns, arch, ref->n_insns);
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    const struct cc_insn_stats *a = &ref->insns[ref->by_slot[slot]];
    const struct cc_insn_stats *b = &k->insns[k->by_slot[slot]];
    if (a->info.id != b->info.id)
      return cc_err_set(err, CC_ERR_INPUT,
                        "kernel %s, instruction slot %zu: ptx_index %" PRIu32 " under %s but %"
                        PRIu32 " under the first model: compare analyses of the same run",
                        k->name, slot, b->info.id, arch, a->info.id);
  }
  for (size_t slot = 0; slot < k->n_insns; slot++) { /* same instructions: same counts */
    const struct cc_insn_stats *a = &ref->insns[ref->by_slot[slot]];
    const struct cc_insn_stats *b = &k->insns[k->by_slot[slot]];
    if (a->executions != b->executions)
      return cc_err_set(err, CC_ERR_INPUT,
                        "kernel %s, ptx_index %" PRIu32 ": %" PRIu64 " executions under %s "
                        "but %" PRIu64 " under the first model: feed every analysis the same "
                        "access stream", k->name, b->info.id, b->executions, arch,
                        a->executions);
  }
  return CC_OK;
}

int cc_report_compare_check(const struct cc_analysis *const *ans, size_t n, struct cc_err *err)
{
  int rc;
  if (n == 0)
    return cc_err_set(err, CC_ERR_USAGE, "nothing to compare: give at least one architecture");
  for (size_t i = 0; i < n; i++) {
    const char *arch = cc_model_name(ans[i]->model);
    if (ans[i]->open)
      return cc_err_set(err, CC_ERR_INTERNAL,
                        "the analysis under %s has a kernel still open (no end_kernel): "
                        "report this bug", arch);
    for (size_t j = 0; j < i; j++)
      if (strcmp(arch, cc_model_name(ans[j]->model)) == 0)
        return cc_err_set(err, CC_ERR_USAGE,
                          "architecture %s is compared twice: name each architecture once",
                          arch);
    if (ans[i]->n_kernels != ans[0]->n_kernels)
      return cc_err_set(err, CC_ERR_INPUT,
                        "the analysis under %s has %zu kernels but the first (%s) has %zu: "
                        "compare analyses of the same run", arch, ans[i]->n_kernels,
                        cc_model_name(ans[0]->model), ans[0]->n_kernels);
    for (size_t k = 0; k < ans[i]->n_kernels; k++)
      if ((rc = check_kernel(&ans[0]->kernels[k], &ans[i]->kernels[k], arch, err)) != CC_OK)
        return rc;
  }
  return CC_OK;
}

/* ---- text ---- */

/* Global transactions of kernel k: the totals hold sectors, not transactions. */
static uint64_t global_transactions(const struct cc_kernel_stats *k)
{
  uint64_t t = 0;
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.space != CC_SPACE_SHARED)
      t += k->insns[i].transactions;
  return t;
}

static void kernel_totals(FILE *fp, const struct cc_analysis *const *ans, size_t n, size_t ki)
{
  fprintf(fp, "  %-8s  %15s  %12s  %14s  %6s  %17s  %10s\n", "arch", "global requests",
          "transactions", "bytes moved", "eff", "shared wavefronts", "ideal");
  for (size_t m = 0; m < n; m++) {
    const struct cc_kernel_stats *k = &ans[m]->kernels[ki];
    const struct cc_kernel_totals *t = &k->totals;
    fprintf(fp, "  %-8s  %15" PRIu64 "  %12" PRIu64 "  %14" PRIu64 "  %5.1f%%  %17" PRIu64
                "  %10" PRIu64 "\n",
            cc_model_name(ans[m]->model), t->requests, global_transactions(k),
            t->bytes_transferred, 100.0 * cc_analysis_totals_efficiency(t),
            t->wavefronts, t->ideal_wavefronts);
  }
}

/* The PTX line "  ptx N  TEXT", cut with "..." at the width. */
static void ptx_line(FILE *fp, const struct cc_insn_stats *s)
{
  char head[32], buf[CC_REPORT_WIDTH + 1];
  const char *text = cc_report_squeeze(s->info.text ? s->info.text : "?", buf, sizeof buf);
  int used = snprintf(head, sizeof head, "  ptx %" PRIu32 "  ", s->info.id);
  size_t room = CC_REPORT_WIDTH - (size_t)(used > 0 ? used : 0), len = strlen(text);
  if (len <= room)
    fprintf(fp, "%s%s\n", head, text);
  else
    fprintf(fp, "%s%.*s...\n", head, (int)(room - 3), text);
}

/* "file.cu:5, store global, 4 bytes, 32 executions, 1024 thread accesses" */
static void about_line(FILE *fp, const struct cc_insn_stats *s)
{
  char where[80];
  const char *base = s->info.file ? strrchr(s->info.file, '/') : NULL;
  base = base ? base + 1 : s->info.file;
  if (base)
    snprintf(where, sizeof where, "%.60s:%" PRIu32 ", ", base, s->info.line);
  else
    where[0] = '\0';
  fprintf(fp, "          %s%s %s, %" PRIu32 " bytes, %" PRIu64 " execution%s, %" PRIu64
              " thread accesses\n",
          where, cc_access_kind_name(s->info.kind), cc_space_name(s->info.space), s->info.size_bytes,
          s->executions, s->executions == 1 ? "" : "s", s->thread_accesses);
}

static void global_row(FILE *fp, const char *arch, uint32_t w, const struct cc_insn_stats *s)
{
  fprintf(fp, "  %-8s  %12" PRIu64 "  %10.2f  %14" PRIu64 "  %5.1f%%  %s (W = %" PRIu32 ")\n",
          arch, s->requests,
          s->requests ? (double)s->transactions / (double)s->requests : 0.0,
          s->bytes_transferred, 100.0 * cc_analysis_efficiency(s), cc_verdict_name(s->verdict),
          w);
}

static void shared_row(FILE *fp, const char *arch, const struct cc_insn_stats *s)
{
  fprintf(fp, "  %-8s  %12" PRIu64 "  %10" PRIu32 "  %14" PRIu64 "  %10" PRIu64 "  %5.1f%%\n",
          arch, s->requests, s->ways_max, s->wavefronts, s->ideal_wavefronts,
          100.0 * cc_analysis_efficiency(s));
}

/* One instruction (slot) of kernel ki under every model. */
static void insn_block(FILE *fp, const struct cc_analysis *const *ans, size_t n, size_t ki,
                       size_t slot)
{
  const struct cc_kernel_stats *k0 = &ans[0]->kernels[ki];
  const struct cc_insn_stats *s0 = &k0->insns[k0->by_slot[slot]];
  int shared = s0->info.space == CC_SPACE_SHARED;
  fputc('\n', fp);
  ptx_line(fp, s0);
  about_line(fp, s0);
  if (shared)
    fprintf(fp, "  %-8s  %12s  %10s  %14s  %10s  %6s\n", "arch", "requests", "ways",
            "wavefronts", "ideal", "eff");
  else
    fprintf(fp, "  %-8s  %12s  %10s  %14s  %6s  %s\n", "arch", "requests", "trans/req",
            "bytes moved", "eff", "verdict (Algorithm 1)");
  for (size_t m = 0; m < n; m++) {
    const struct cc_kernel_stats *k = &ans[m]->kernels[ki];
    const struct cc_insn_stats *s = &k->insns[k->by_slot[slot]];
    const char *arch = cc_model_name(ans[m]->model);
    if (shared)
      shared_row(fp, arch, s);
    else
      global_row(fp, arch, ans[m]->group_lanes, s);
  }
}

static void kernel_block(FILE *fp, const struct cc_analysis *const *ans, size_t n, size_t ki)
{
  const struct cc_kernel_stats *k = &ans[0]->kernels[ki];
  size_t idle = 0;
  fprintf(fp, "kernel %s  (%s)\n", k->name, k->mangled);
  fprintf(fp, "  grid %" PRIu32 " x %" PRIu32 " x %" PRIu32 ", block %" PRIu32 " x %" PRIu32
              " x %" PRIu32 "; models",
          k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
  for (size_t m = 0; m < n; m++)
    fprintf(fp, "%s %s", m ? "," : "", cc_model_name(ans[m]->model));
  fputc('\n', fp);
  kernel_totals(fp, ans, n, ki);
  for (size_t slot = 0; slot < k->n_insns; slot++) {
    if (k->insns[k->by_slot[slot]].executions == 0) {
      idle++;
      continue;
    }
    insn_block(fp, ans, n, ki, slot);
  }
  if (idle)
    fprintf(fp, "\n  %zu memory instruction%s never executed\n", idle, idle == 1 ? "" : "s");
}

int cc_report_compare_text(FILE *fp, const struct cc_analysis *const *ans, size_t n,
                           struct cc_err *err)
{
  int rc = cc_report_compare_check(ans, n, err);
  if (rc != CC_OK)
    return rc;
  for (size_t ki = 0; ki < ans[0]->n_kernels; ki++) {
    if (ki)
      fputc('\n', fp);
    kernel_block(fp, ans, n, ki);
  }
  if (ans[0]->n_kernels == 0)
    fprintf(fp, "(no kernel was run)\n");
  fprintf(fp, "\ntrans/req: transactions per request (32-byte sectors from cc3.0 on); eff: "
              "bytes requested / moved\n");
  if (fflush(fp) != 0 || ferror(fp))
    return cc_err_set(err, CC_ERR_IO, "cannot write the comparison: %s",
                      "write error (disk full or closed pipe?)");
  return CC_OK;
}

int cc_report_compare_text_write(const char *path, const struct cc_analysis *const *ans,
                                 size_t n, struct cc_err *err)
{
  struct cc_outfile f;
  int rc = cc_report_compare_check(ans, n, err);
  if (rc != CC_OK)
    return rc;
  if ((rc = cc_outfile_open(&f, path, err)) != CC_OK)
    return rc;
  rc = cc_report_compare_text(f.fp, ans, n, err);
  if (rc != CC_OK) {
    if (f.path)
      cc_outfile_abort(&f);
    return cc_err_prefix(err, "%s", path);
  }
  return cc_outfile_commit(&f, err);
}
