/* The command table and the dispatcher (git's git.c, perf's perf.c): coalcheck COMMAND
 * [ARGS], with `run` the default when argv[1] is not a command. See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "cli/gpu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/fileio.h"

/* annotate joins here, one file each. */
const struct cc_cli_command cc_cli_commands[] = {
  {"run", cc_cli_cmd_run, "record one launch in the emulator, report it (default)"},
  {"record", cc_cli_cmd_record, "run one launch, save its accesses as a .cctrace"},
  {"report", cc_cli_cmd_report, "report a .cctrace under one or several --arch"},
  {"fix", cc_cli_cmd_fix, "permute the thread geometry of a kernel, verified (CGO 2015)"},
  {"merge", cc_cli_cmd_merge, "combine the JSON reports of MPI ranks, flag imbalance"},
  {"import", cc_cli_cmd_import, "report a GPU backend JSON (libcoalcheck_gpu.so)"},
  {"help", cc_cli_cmd_help, "show this help"},
};
const size_t cc_cli_ncommands = sizeof cc_cli_commands / sizeof cc_cli_commands[0];

static const struct cc_cli_command *find_command(const char *name)
{
  for (size_t i = 0; i < cc_cli_ncommands; i++)
    if (strcmp(cc_cli_commands[i].name, name) == 0)
      return &cc_cli_commands[i];
  return NULL;
}

int cc_cli_main(int argc, char **argv)
{
  struct cc_err err = {CC_OK, ""};
  const struct cc_cli_command *cmd = argc > 1 ? find_command(argv[1]) : NULL;
  int rc;
  cc_tmp_cleanup_install(); /* SIGINT, SIGTERM: no temporary output left behind */
  if (argc <= 1) {
    rc = cc_err_set(&err, CC_ERR_USAGE, "no input given; pass KERNEL.cu or KERNEL.ptx with "
                    "--grid, --block and --arg");
  } else if (strcmp(argv[1], "--help-man") == 0) { /* hidden: the build's man page */
    cc_cli_write_man(stdout);
    rc = CC_OK;
  } else if (strcmp(argv[1], "--help-completion") == 0) { /* hidden: the build's scripts */
    rc = cc_cli_write_completion(stdout, argc > 2 ? argv[2] : NULL, &err);
  } else if (!cmd && cc_cli_app_wanted(argc, argv)) {
    return cc_cli_app_main(argc, argv); /* an executable INPUT: the GPU backend (app.c) */
  } else if (cmd) {
    rc = cmd->fn(argc - 1, argv + 1, &err);
  } else {
    rc = cc_cli_cmd_run(argc, argv, &err);
  }
  /* ferror too: a write that failed before the flush (output larger than the buffer)
   * leaves the flag set while the flush itself may succeed (errno then says nothing) */
  errno = 0;
  if ((fflush(stdout) != 0 || ferror(stdout)) && rc == CC_OK)
    rc = cc_err_set(&err, CC_ERR_IO, "cannot write to standard output: %s; check the disk "
                    "or the pipe it goes to", errno ? strerror(errno) : "write error");
  if (rc != CC_OK) {
    fprintf(stderr, "coalcheck: error: %s\n", err.msg[0] ? err.msg : cc_status_name(rc));
    if (rc == CC_ERR_USAGE && cmd && (cmd->fn == cc_cli_cmd_record || cmd->fn == cc_cli_cmd_report ||
                                    cmd->fn == cc_cli_cmd_fix || cmd->fn == cc_cli_cmd_merge))
      fprintf(stderr, "hint: run 'coalcheck %s --help' for the options\n", cmd->name);
    else if (rc == CC_ERR_USAGE)
      fprintf(stderr, "hint: run 'coalcheck --help' for the options\n");
  }
  return rc;
}
