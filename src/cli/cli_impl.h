/* Internals shared by the files of src/cli (not part of the module's interface). */
#ifndef CC_CLI_CLI_IMPL_H
#define CC_CLI_CLI_IMPL_H

#include <stdio.h>

#include "cli/cli.h"

#define CC_CLI_VERSION "0.1.0"

/* Writes the option table of the main job as help lines (generated from the table). */
void cc_cli_print_options(FILE *out);

/* One command of the command table: argv[0] is the command's name (or the program's,
 * for the default command). Returns the exit status; errors fill err. */
struct cc_cli_command {
  const char *name;
  int (*fn)(int argc, char **argv, struct cc_err *err);
  const char *summary;
};

/* The commands (one file each: cmd_run.c, cmd_help.c). */
int cc_cli_cmd_run(int argc, char **argv, struct cc_err *err);
int cc_cli_cmd_help(int argc, char **argv, struct cc_err *err);

/* The command table and its length (cli.c). */
extern const struct cc_cli_command cc_cli_commands[];
extern const size_t cc_cli_ncommands;

#endif
