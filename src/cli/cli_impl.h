/* Internals shared by the files of src/cli (not part of the module's interface). */
#ifndef CC_CLI_CLI_IMPL_H
#define CC_CLI_CLI_IMPL_H

#include <stdio.h>

#include "access/access.h"
#include "analysis/analysis.h"
#include "cli/cli.h"

#define CC_CLI_VERSION "0.1.0"

/* Writes the option table of the main job as help lines (generated from the table). */
void cc_cli_print_options(FILE *out);
/* The same for one command: only the options it takes (options.c's table). */
void cc_cli_print_options_cmd(FILE *out, enum cc_cli_cmd cmd);

/* One command of the command table: argv[0] is the command's name (or the program's,
 * for the default command). Returns the exit status; errors fill err. */
struct cc_cli_command {
  const char *name;
  int (*fn)(int argc, char **argv, struct cc_err *err);
  const char *summary;
};

/* The commands (one file each: run.c, help.c, cmd_record.c, cmd_report.c). */
int cc_cli_cmd_run(int argc, char **argv, struct cc_err *err);
int cc_cli_cmd_help(int argc, char **argv, struct cc_err *err);

int cc_cli_cmd_record(int argc, char **argv, struct cc_err *err);
int cc_cli_cmd_report(int argc, char **argv, struct cc_err *err);

/* ---- inlining chains (inline.c) -------------------------------------------------------- */

/* For each instruction of insns[0..n) (the memory instructions of kernel f of module m, as
 * the emulator describes them: id = index in f's body) whose .loc is inlined from another
 * file, replaces inlined_file / inlined_line (one level of inlined_at: the header's own
 * caller, maybe another header) by the innermost call site in the kernel's own file (the
 * file of f's .loc lines without inlined_at), following the inlined_at chain through the
 * earlier .loc lines that name each call site (PTX ISA, ".loc": an inlined_at location
 * appeared in an earlier .loc); the outermost known call site when the chain never
 * reaches the kernel's file. Strings are m's. Instructions whose .loc does not match f's
 * (of a called .func) are left as they are. */
void cc_cli_resolve_inlined(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *f,
                            struct cc_insn_info *insns, uint32_t n);

/* ---- the consumers of a run's access stream (outputs.c) ------------------------------ */

/* Everything downstream of the producer (emulator or trace replay): the analyses (one per
 * model of o->arch, default sm_90, with o->l1_cache and o->smem_bank_width; none when
 * o->record_only), the --json file and the trace file (o->trace_path; for record_only,
 * "<kernel>.cctrace" when NULL). o is borrowed for the life of the object. */
struct cc_cli_outputs;

/* Makes the models and analyses and opens --json, before any long work: a bad --arch or
 * an unwritable --json fails at once. *out is set even on failure (free it). Errors:
 * CC_ERR_USAGE (bad --arch list or model option), CC_ERR_IO (--json). */
int cc_cli_outputs_open(cc_keep const struct cc_run_opts *o, cc_give struct cc_cli_outputs **out,
                        struct cc_err *err);

/* Opens the trace file if there is one (its default name from kernel, the source name)
 * and gives the sink to stream into: the analyses, the trace writer, or both through a
 * fan-out (valid while s lives). Errors: CC_ERR_IO (the trace file cannot be created). */
int cc_cli_outputs_sink(struct cc_cli_outputs *s, const char *kernel,
                        struct cc_access_sink *sink, struct cc_err *err);

/* Hands the producer's counters for the kernel just run to every analysis (the report
 * prints them; analysis.h's cc_analysis_set_run_stats). No-op for record. */
void cc_cli_outputs_set_run_stats(struct cc_cli_outputs *s, const struct cc_kernel_run_stats *run);

/* After the stream ended: closes the trace (record: writes the summary line to out, or to
 * stderr when the trace itself went to standard output), then writes the JSON to --json
 * and the text report to out (unless --json -): one model, the usual report with --top;
 * several, the side-by-side comparison. Errors: CC_ERR_IO; those of report/compare.h. */
int cc_cli_outputs_finish(struct cc_cli_outputs *s, FILE *out, struct cc_err *err);

/* Frees s, removing an unfinished trace and --json file; NULL is allowed. */
void cc_cli_outputs_free(cc_take struct cc_cli_outputs *s);

/* The files o reads, which no output may replace (util/fileio.h, cc_outfile_open_except):
 * INPUT, the launch file and the file: initialisers, in a new array of *n paths borrowed
 * from o (the caller frees the array). */
cc_give const char **cc_cli_input_paths(cc_keep const struct cc_run_opts *o, size_t *n);

/* The command table and its length (cli.c). */
extern const struct cc_cli_command cc_cli_commands[];
extern const size_t cc_cli_ncommands;

#endif
