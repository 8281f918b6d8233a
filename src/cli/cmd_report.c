/* `coalcheck report FILE.cctrace [--arch A[,B...]] [--json FILE] [--top N] [--l1-cache on|off]
 * [--smem-bank-width 4|8]`: replay a trace written by `record` (or `--trace`) into one
 * analysis per model and report it, without running the kernel again (Rosen, EuroVis
 * 2013, 6.2.2: one trace, transactions simulated per architecture). See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdio.h>

#include "access/trace.h"

static void print_help(FILE *out)
{
  fprintf(out,
          "usage: coalcheck report FILE.cctrace [OPTIONS]\n"
          "\n"
          "Replays a trace written by `coalcheck record` (or the main command's --trace) and\n"
          "reports it: with one --arch the usual report, with several (cc1.0,cc1.2,sm_90)\n"
          "the architectures side by side. A corrupt or truncated trace is an error (exit\n"
          "code 3) and no report is printed.\n"
          "\n"
          "options:\n");
  cc_cli_print_options_cmd(out, CC_CLI_CMD_REPORT);
}

int cc_cli_report(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err)
{
  struct cc_cli_outputs *outs = NULL;
  struct cc_access_sink sink;
  int rc;
  if (!o->input)
    return cc_err_set(err, CC_ERR_USAGE, "no trace given; pass the FILE.cctrace written by "
                      "'coalcheck record'");
  if ((rc = cc_cli_check_run_paths(o, err)) != CC_OK)
    return rc;
  /* the analyses are complete before anything is written: a trace that fails to replay
   * leaves no report and no --json file */
  if ((rc = cc_cli_outputs_open(o, &outs, err)) == CC_OK)
    cc_cli_outputs_replay_jobs(outs, o->jobs);
  if (rc == CC_OK && (rc = cc_cli_outputs_sink(outs, NULL, &sink, err)) == CC_OK &&
      (rc = cc_trace_replay(o->input, &sink, NULL, err)) == CC_OK)
    rc = cc_cli_outputs_finish(outs, report_out, err);
  if (rc == CC_OK)
    rc = cc_cli_outputs_gates(outs, stderr, err);
  cc_cli_outputs_free(outs);
  return rc;
}

int cc_cli_cmd_report(int argc, char **argv, struct cc_err *err)
{
  struct cc_run_opts o;
  int rc = cc_cli_parse_cmd(CC_CLI_CMD_REPORT, argc, argv, &o, err);
  if (rc == CC_OK && o.help)
    print_help(stdout);
  else if (rc == CC_OK && o.version)
    cc_cli_print_version(stdout);
  else if (rc == CC_OK)
    rc = cc_cli_report(&o, stdout, err);
  cc_cli_opts_release(&o);
  return rc;
}
