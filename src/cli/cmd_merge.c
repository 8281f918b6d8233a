/* `coalcheck merge [--json OUT] [--csv OUT] [--imbalance-threshold PCT] r0.json r1.json
 * ...`: the JSON reports of the ranks of an MPI job (`mpirun ... coalcheck --json
 * 'r%q{OMPI_COMM_WORLD_RANK}.json' ./app`) combined per kernel, one column per rank, and
 * the ranks whose figures differ flagged (report/merge.h). See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/merge.h"
#include "util/fileio.h"
#include "util/mem.h"

static void print_help(FILE *out)
{
  fprintf(out,
          "usage: coalcheck merge [OPTIONS] REPORT.json REPORT.json ...\n"
          "\n"
          "Combines the JSON reports of the ranks of one MPI job (rank r = the r-th file\n"
          "given; note that a shell sorts r10.json before r2.json) per kernel launch,\n"
          "matched by name, grid, block and occurrence, with one column per rank for the\n"
          "requests, sectors, excess sectors and wavefronts of the kernel's totals and of\n"
          "each instruction. A rank whose totals exceed the fewest rank's by more than the\n"
          "threshold is flagged (load imbalance shows as different request counts); a\n"
          "kernel missing in some ranks is listed. The text goes to standard output.\n"
          "\n"
          "options:\n");
  cc_cli_print_options_cmd(out, CC_CLI_CMD_MERGE);
}

/* Writes text into path (whole or not at all; "-" = standard output), refusing to
 * replace one of the reports read. */
static int write_file(const struct cc_run_opts *o, const char *path, const char *text,
                      struct cc_err *err)
{
  struct cc_outfile f;
  int rc = cc_outfile_open_except(&f, path, (const char *const *)o->inputs, o->ninputs, err);
  if (rc != CC_OK)
    return rc;
  if (fputs(text, f.fp) < 0) {
    cc_outfile_abort(&f);
    return cc_err_set(err, CC_ERR_IO, "cannot write %s: write error (disk full?)", path);
  }
  return cc_outfile_commit(&f, err);
}

int cc_cli_merge(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err)
{
  struct cc_merge m;
  const struct cc_cli_path outs[] = {{"--json", o->json_path}, {"--csv", o->csv_path}};
  int rc;
  if (o->ninputs == 0)
    return cc_err_set(err, CC_ERR_USAGE, "no report given; pass the JSON reports of the "
                      "ranks, e.g. coalcheck merge r0.json r1.json");
  if (o->json_path && o->csv_path && strcmp(o->json_path, "-") == 0 &&
      strcmp(o->csv_path, "-") == 0)
    return cc_err_set(err, CC_ERR_USAGE, "--json - and --csv -: only one output can go to "
                      "standard output; give one of them a file");
  {
    struct cc_cli_path *ins = cc_xcalloc(o->ninputs, sizeof *ins);
    for (size_t i = 0; i < o->ninputs; i++)
      ins[i] = (struct cc_cli_path){"REPORT", o->inputs[i]};
    rc = cc_cli_check_paths(ins, o->ninputs, outs, 2, err);
    free(ins);
    if (rc != CC_OK)
      return rc;
  }
  rc = cc_report_merge_load((const char *const *)o->inputs, o->ninputs, o->imbalance_pct, &m,
                            err);
  if (rc == CC_OK && o->json_path) {
    char *text = cc_report_merge_json_string(&m);
    size_t n = strlen(text);
    text = cc_xrealloc(text, n + 2); /* the document ends in a newline, like the report's */
    strcpy(text + n, "\n");
    rc = write_file(o, o->json_path, text, err);
    free(text);
  }
  if (rc == CC_OK && o->csv_path) {
    char *text = cc_report_merge_csv_string(&m);
    rc = write_file(o, o->csv_path, text, err);
    free(text);
  }
  if (rc == CC_OK && !(o->json_path && strcmp(o->json_path, "-") == 0) &&
      !(o->csv_path && strcmp(o->csv_path, "-") == 0))
    cc_report_merge_text(report_out, &m);
  cc_report_merge_release(&m);
  return rc;
}

int cc_cli_cmd_merge(int argc, char **argv, struct cc_err *err)
{
  struct cc_run_opts o;
  int rc = cc_cli_parse_cmd(CC_CLI_CMD_MERGE, argc, argv, &o, err);
  if (rc == CC_OK && o.help)
    print_help(stdout);
  else if (rc == CC_OK)
    rc = cc_cli_merge(&o, stdout, err);
  cc_cli_opts_release(&o);
  return rc;
}
