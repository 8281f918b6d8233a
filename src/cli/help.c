/* `coalcheck help` and --help: generated from the command and option tables. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdio.h>

void cc_cli_print_help(FILE *out)
{
  fprintf(out,
          "usage: coalcheck [OPTIONS] INPUT [OPTIONS]     record + report (emulator)\n"
          "       coalcheck --launch FILE [OPTIONS]       INPUT taken from the launch file\n"
          "       coalcheck [GPU OPTIONS] ./app [ARGS]    an executable, on the GPU\n"
          "       coalcheck COMMAND [ARGS]\n"
          "       coalcheck help | --help | --version\n"
          "\n"
          "INPUT: KERNEL.cu (compiled with `nvcc -ptx -lineinfo -arch=sm_90` plus\n"
          "--nvcc-flags) or KERNEL.ptx. An executable INPUT (an ELF file, found in PATH\n"
          "when it has no '/') runs on the GPU under libcoalcheck_gpu.so: options before\n"
          "it, the application's ARGS after it. The report goes to standard output, errors\n"
          "to standard error; exit codes are listed in docs/exit-codes.md.\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < cc_cli_ncommands; i++)
    fprintf(out, "  %-24s%s\n", cc_cli_commands[i].name, cc_cli_commands[i].summary);
  fprintf(out, "\noptions:\n");
  cc_cli_print_options(out);
  fprintf(out, "\nGPU OPTIONS (before an executable INPUT; `coalcheck --help ./app`):\n");
  cc_cli_print_options_app(out, 1);
  fprintf(out, "\nexample:\n"
          "  coalcheck transpose.cu --kernel transpose_naive --grid 32,128 --block 32,8 \\\n"
          "      --arg 'out=f32[n*n]:zero' --arg 'in=f32[n*n]:random:1' --arg n=1024\n");
}

int cc_cli_cmd_help(int argc, char **argv, struct cc_err *err)
{
  cc_cli_print_help(stdout);
  return CC_OK;
}
