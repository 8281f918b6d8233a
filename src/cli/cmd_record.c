/* `coalcheck record [launch options] INPUT [-o FILE.cctrace]`: run one launch in the
 * emulator and save its access stream as a trace file (access/trace.h) for `coalcheck
 * report` (DESIGN.md's perf-like record/report pair; Rosen, EuroVis 2013, 6.2.2: record
 * once, simulate the memory of several architectures afterwards). See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdio.h>
#include <string.h>

#include "util/mem.h"

static void print_help(FILE *out)
{
  fprintf(out,
          "usage: coalcheck record [OPTIONS] INPUT [-o FILE.cctrace]\n"
          "       coalcheck record --launch FILE [OPTIONS] [-o FILE.cctrace]\n"
          "\n"
          "Runs the launch in the emulator, as the main command does, and writes every warp\n"
          "memory access to a trace file (default KERNEL.cctrace), whole or not at all; then\n"
          "prints one line: records, bytes, bytes/record. Analyse it with\n"
          "`coalcheck report FILE.cctrace [--arch cc1.0,cc1.2,sm_90]`. Report options in a\n"
          "launch file (--json, --arch, --top, --l1-cache, --smem-bank-width, --trace) are\n"
          "ignored.\n"
          "\n"
          "options:\n");
  cc_cli_print_options_cmd(out, CC_CLI_CMD_RECORD);
}

/* "coalcheck record ARGS" as one string for the trace's header, each word in single
 * quotes when it holds anything but [A-Za-z0-9_./=,:+-] (a quote as '\'' ), so that it
 * can be pasted into a POSIX shell. Owned. */
static char *join_words(int argc, char **argv)
{
  size_t cap = 32;
  char *out, *p;
  for (int i = 1; i < argc; i++)
    cap += 4 * strlen(argv[i]) + 3;
  out = p = cc_xmalloc(cap);
  p += sprintf(p, "coalcheck record");
  for (int i = 1; i < argc; i++) {
    const char *w = argv[i];
    int plain = *w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_./=,:+-") == strlen(w);
    *p++ = ' ';
    if (plain) {
      p += sprintf(p, "%s", w);
      continue;
    }
    *p++ = '\'';
    for (; *w; w++)
      p += *w == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *w);
    *p++ = '\'';
    *p = '\0';
  }
  return out;
}

int cc_cli_record(const struct cc_run_opts *o, FILE *summary_out, struct cc_err *err)
{
  struct cc_run_opts rec = *o; /* a shallow copy: o keeps ownership of the strings */
  rec.record_only = 1;
  return cc_cli_run(&rec, summary_out, err);
}

int cc_cli_cmd_record(int argc, char **argv, struct cc_err *err)
{
  struct cc_run_opts o;
  int rc = cc_cli_parse_cmd(CC_CLI_CMD_RECORD, argc, argv, &o, err);
  if (rc == CC_OK && o.help)
    print_help(stdout);
  else if (rc == CC_OK && o.version)
    cc_cli_print_version(stdout);
  else if (rc == CC_OK) {
    o.command_line = join_words(argc, argv);
    rc = cc_cli_record(&o, stdout, err);
  }
  cc_cli_opts_release(&o);
  return rc;
}
