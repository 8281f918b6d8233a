/* Internals shared by the files of src/cli (not part of the module's interface). */
#ifndef CC_CLI_CLI_IMPL_H
#define CC_CLI_CLI_IMPL_H

#include <stdio.h>

#include "access/access.h"
#include "analysis/analysis.h"
#include "cli/cli.h"

/* project(coalcheck VERSION ...) in CMakeLists.txt, passed as CC_PROJECT_VERSION */
#define CC_CLI_VERSION CC_PROJECT_VERSION

/* What CMake configured (cmake/buildinfo.cmake generates the one definition, in
 * cc_build_info.c of the build folder). */
struct cc_cli_build_info {
  const char *git_revision; /* `git describe --always --dirty` of the sources at build
                               time, e.g. "cb79238-dirty"; "unknown" outside git */
  int gpu_backend;          /* libcoalcheck_gpu.so and its patch were built (src/gpu) */
  int libclang;             /* the CUDA C front end links libclang (src/cuda) */
  int mpi;                  /* COALCHECK_MPI was ON */
};
extern const struct cc_cli_build_info cc_cli_build_info;

/* The most bytes the buffer arguments of a launch may take together (the allocator's
 * max_bytes, launch.h): o->max_memory (--max-memory), else half of the machine's
 * physical memory (sysconf _SC_PHYS_PAGES x _SC_PAGESIZE), else 4 GiB when that is
 * unknown. Emulated and GPU runs alike: their buffers live in host memory first. */
uint64_t cc_cli_max_memory(const struct cc_run_opts *o);

/* Checks the dimensions of --grid or --block (opt "grid" or "block") against CUDA's
 * launch limits (CUDA C Programming Guide, Compute Capabilities): grid x 2^31-1, y and z
 * 65535; block x and y 1024, z 64, at most 1024 threads (x*y*z). text[i], when text is not
 * NULL, is how dims[i] was written (for messages: a value above 2^64-1 is UINT64_MAX in
 * dims). Errors: CC_ERR_USAGE "--grid y = 65536 is above CUDA's limit of 65535; CUDA grids
 * are at most 2147483647 x 65535 x 65535 CTAs", "--block 64,32,1 has 2048 threads; CUDA
 * allows at most 1024 per CTA". */
int cc_cli_check_dims(const char *opt, const uint64_t dims[3], const char *const text[3],
                      struct cc_err *err);

/* ---- output file names (outname.c) ------------------------------------------------- */

/* The output file name value of option opt ("--json", for messages) with the Nsight tools'
 * patterns expanded (ncu --export, nsys --output): %q{VAR} the environment variable's
 * value, %p this process's id (decimal), %h the host name (gethostname), %% a literal '%'.
 * *out is owned (NULL on error). Errors: CC_ERR_USAGE naming the 1-based position of the
 * '%' in value: an unset VAR (named), %q without {NAME}, a lone '%' at the end, any other
 * %x. Run once per option when it is parsed, so a value is expanded once. */
int cc_cli_expand_path(const char *opt, const char *value, cc_give char **out,
                       struct cc_err *err);

/* ---- launch selection (select.c) ----------------------------------------------------- */

/* The ncu-style selection options as given (each NULL when absent); borrowed strings. */
struct cc_cli_selection {
  const char *kernel_name, *name_base, *kernel_id, *skip, *count;
};

struct cc_gpu_filter_spec;

/* The selection in force into *spec (gpu/gpu.h): the options when any is given (the
 * variables are then ignored), else the variables COALCHECK_KERNEL_NAME, _KERNEL_NAME_BASE,
 * _KERNEL_ID, _LAUNCH_SKIP, _LAUNCH_COUNT and _KERNEL_REGEX (spec->from_env set). Returns
 * whether there is any selection. Strings borrowed from sel or the environment. */
int cc_cli_selection_spec(const struct cc_cli_selection *sel, struct cc_gpu_filter_spec *spec);

/* For an executable's injection library: when options are given, sets the variables
 * above to them and unsets the others (COALCHECK_KERNEL_REGEX too), so that the library
 * applies exactly the options; without options the environment is left as it is. */
void cc_cli_selection_setenv(const struct cc_cli_selection *sel);

/* Whether o (or the environment) selects launches (cc_cli_selection_spec). */
int cc_cli_selection_given(const struct cc_run_opts *o);

/* Kernel mode's launches: without a selection, the one kernel of --kernel (or the
 * module's only one; cc_cli_find_kernel); with one, the module's .entry kernels in PTX
 * order, one launch each, through the same rules as the executable mode
 * (cc_gpu_filter_select on the demangled and mangled names). *out (owned array, entries
 * borrowed from m) receives *n >= 1 kernels. Errors: those of cc_cli_find_kernel and
 * cc_gpu_filter_init_spec (CC_ERR_USAGE naming the option); CC_ERR_USAGE for --kernel
 * with selection options; CC_ERR_INPUT when nothing is selected (the kernels listed). */
int cc_cli_select_kernels(cc_keep const struct cc_run_opts *o, cc_keep const struct ptx_module *m,
                          cc_give const struct ptx_function ***out, size_t *n,
                          struct cc_err *err);

/* ---- inputs and outputs on one path (paths.c) ---------------------------------------- */

/* One path of a command line and its role in messages ("INPUT", "--json", "--dump out=":
 * a role ending in '=' or ':' is glued to the path). Both borrowed. */
struct cc_cli_path {
  const char *role;
  const char *path;
};

/* Refuses, before anything runs, an output that would destroy an input or another output:
 * outputs[i] naming the same file as inputs[j] or outputs[j < i] (the same device and
 * inode when both exist, links included; else the same path once its folder is made
 * canonical). NULL, empty and "-" (standard output) paths are skipped, and so are two
 * names of one device (/dev/null). Errors: CC_ERR_USAGE "--json k.ptx is INPUT k.ptx:
 * writing it would destroy an input; give the output another path", "--json r.json and
 * --dump out=r.json are one file: one output would replace the other; give each output
 * its own path". */
int cc_cli_check_paths(const struct cc_cli_path *inputs, size_t nin,
                       const struct cc_cli_path *outputs, size_t nout, struct cc_err *err);

/* cc_cli_check_paths over a launch's options: inputs INPUT, the --launch file and the
 * file: initialisers; outputs --json, --trace (or record's -o) and every --dump. */
int cc_cli_check_run_paths(const struct cc_run_opts *o, struct cc_err *err);

/* Writes the option table of the main job as help lines (generated from the table). */
void cc_cli_print_options(FILE *out);
/* The same for one command: only the options it takes (options.c's table). */
void cc_cli_print_options_cmd(FILE *out, enum cc_cli_cmd cmd);
/* The same for the executable mode (app.c): every option it takes, or (only_app) those
 * the main job does not take, then one line naming the others. */
void cc_cli_print_options_app(FILE *out, int only_app);
/* Whether word ("--kernel-name", "-q"; no "=VALUE") is an option of the executable mode:
 * 1 when it takes a value, 0 for a flag, -1 when it is not one (options.c's table). */
int cc_cli_app_option(const char *word);

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
int cc_cli_cmd_fix(int argc, char **argv, struct cc_err *err);
int cc_cli_cmd_merge(int argc, char **argv, struct cc_err *err);

/* fix --html (fix_html.c): after the fix is written to o->fix_dir, runs the original
 * launch (o) and DIR's KERNEL.launch each with --html into a temporary page, writes both
 * side by side (sandboxed iframes) into f, opened by the caller on o->html_path, and
 * commits f. On an error f is left open for the caller to abort. Errors: those of the
 * runs (cc_cli_run), CC_ERR_IO. */
struct cc_outfile;
int cc_cli_fix_html(const struct cc_run_opts *o, struct cc_outfile *f, struct cc_err *err);
int cc_cli_cmd_report(int argc, char **argv, struct cc_err *err);

/* Checks the INPUT of a run (emulator or --backend gpu) before its options: CC_ERR_USAGE
 * when input is NULL, CC_ERR_INPUT "cannot read INPUT: WHY" (strerror) when it is not a
 * readable file (run.c). */
int cc_cli_check_input(const char *input, struct cc_err *err);

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

/* Makes the cache model of every analysis replay on `jobs` threads (0 or 1: one), with
 * the same figures for any count (cache.h cc_cache_set_jobs). `coalcheck report TRACE
 * --jobs N` asks for it, an emulator run with --cache-jobs N (default 1: behind the
 * emulator's workers the parallel replay measured no gain on 16 cores,
 * bench/results/scale-2026-11-27-s10-cachejobs.md). */
void cc_cli_outputs_replay_jobs(cc_keep struct cc_cli_outputs *s, uint32_t jobs);

/* Makes the models and analyses and opens --json, before any long work: a bad --arch or
 * an unwritable --json fails at once. *out is set even on failure (free it). Errors:
 * CC_ERR_USAGE (bad --arch list or model option), CC_ERR_IO (--json). */
int cc_cli_outputs_open(cc_keep const struct cc_run_opts *o, cc_give struct cc_cli_outputs **out,
                        struct cc_err *err);
/* MPI ranks > 0 that reduce (mpi.c): the analyses of o alone, as cc_cli_outputs_open
 * makes them, no file opened (rank 0 writes the outputs). *out is set even on failure.
 * Errors: CC_ERR_USAGE (bad --arch list or model option, cache device). */
int cc_cli_outputs_open_analyses(cc_keep const struct cc_run_opts *o,
                                 cc_give struct cc_cli_outputs **out, struct cc_err *err);
/* Whether no consumer of s needs the records in CTA order, so that MPI ranks may reduce
 * their figures: analyses without a cache model, no --html views, no trace. */
int cc_cli_outputs_reducible(cc_keep const struct cc_cli_outputs *s);
/* The open kernel's figures of s's analyses as bytes (analysis/multi.h,
 * cc_analysis_multi_pack): *buf malloc'ed, the caller frees it. */
void cc_cli_outputs_pack(cc_keep const struct cc_cli_outputs *s, cc_give uint8_t **buf,
                         size_t *len);
/* Merges figures cc_cli_outputs_pack wrote on another rank into s's open kernel
 * (cc_analysis_unpack_merge: CC_ERR_INPUT for a cut or corrupt message). */
int cc_cli_outputs_merge_packed(cc_keep struct cc_cli_outputs *s, const uint8_t *msg,
                                size_t len, struct cc_err *err);

/* Opens the trace file if there is one (its default name from kernel, the source name)
 * and gives the sink to stream into: the analyses, the trace writer, or both through a
 * fan-out (valid while s lives). Errors: CC_ERR_IO (the trace file cannot be created). */
/* The order-free side of the outputs for a run on several threads (analysis/multi.h,
 * cc_analysis_multi_partials), after cc_cli_outputs_sink: 0 when there is none (record:
 * no analyses); else *out is set, the outputs' sink from then on leaves the figures to
 * the partials, and *ordered says whether the sink still needs the records in order (a
 * cache model, the views of --html, the trace of --trace): 0 lets the producer skip the
 * ordered stream. */
int cc_cli_outputs_partials(struct cc_cli_outputs *s, struct cc_access_partials *out,
                            int *ordered);

/* The run's sink (*sink, owned by s): a tee of the analyses of every --arch model, the
 * views' collector (--html) and the trace writer (--trace, or record's default name from
 * kernel), made on the first call; later kernels of the run (a launch selection) get the
 * same stream. Errors: the trace writer's (CC_ERR_IO and its file:reason). */
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

/* After every output is written: evaluates o->gates (--fail-on) on every analysis
 * (report/ci.h, suppressed instructions skipped), writes one line per trip to fp
 * (standard error) and returns CC_ERR_GATE "N gate trips ..." when any tripped; CC_OK
 * without gates or trips, and for record. */
int cc_cli_outputs_gates(struct cc_cli_outputs *s, FILE *fp, struct cc_err *err);

/* Hands the static address forms of the kernel just run to every analysis (analysis.h's
 * cc_analysis_set_forms). No-op for record. Errors: those of cc_analysis_set_forms. */
int cc_cli_outputs_set_forms(struct cc_cli_outputs *s, const struct cc_kernel_forms *kf,
                             struct cc_err *err);

/* ---- static address forms (forms.c) ---------------------------------------------------- */

/* Analyses the addresses of kernel f of module m (src/affine), evaluates the forms under
 * the launch (o's grid and block, b's parameter values, o's --arg names for the
 * parameters) and hands them to outs with the fix command for the advice (`coalcheck
 * fix` with o's --launch file, or INPUT --kernel `kernel` and o's launch options).
 * A function the analysis refuses gets no forms (not an error). Errors: those of
 * cc_cli_outputs_set_forms. */
int cc_cli_attach_forms(struct cc_cli_outputs *outs, cc_keep const struct ptx_module *m,
                        cc_keep const struct ptx_function *f, const char *kernel,
                        cc_keep const struct cc_run_opts *o, cc_keep const struct cc_launch_bound *b,
                        struct cc_err *err);

/* Frees s, removing an unfinished trace and --json file; NULL is allowed. */
void cc_cli_outputs_free(cc_take struct cc_cli_outputs *s);

/* ---- shared by the commands that run a launch (run.c) ------------------------------- */

/* Checks what the parser cannot: INPUT, --grid and --block given, CUDA's launch limits.
 * Errors: CC_ERR_USAGE. */
int cc_cli_check_launch(const struct cc_run_opts *o, struct cc_err *err);

/* Parses o->input into a module: .ptx read as is, .cu compiled with nvcc (-ptx -lineinfo,
 * o->nvcc_flags). Errors: CC_ERR_USAGE (neither .cu nor .ptx), CC_ERR_INPUT, CC_ERR_TOOL. */
int cc_cli_load_module(const struct cc_run_opts *o, cc_give struct ptx_module **out,
                       struct cc_err *err);

/* The files o reads, which no output may replace (util/fileio.h, cc_outfile_open_except):
 * INPUT, the launch file and the file: initialisers, in a new array of *n paths borrowed
 * from o (the caller frees the array). */
cc_give const char **cc_cli_input_paths(cc_keep const struct cc_run_opts *o, size_t *n);

/* The command table and its length (cli.c). */
extern const struct cc_cli_command cc_cli_commands[];
extern const size_t cc_cli_ncommands;

/* ---- the tables as the generators read them (options.c; man.c, completion.c) ------- */

/* One option of the table (options.c): every string borrowed, static. */
struct cc_cli_option_doc {
  const char *name;  /* long name without "--" */
  char short_name;   /* 'q' for -q, or 0 */
  const char *arg;   /* metavariable of the value ("FILE", "on|off"), or NULL for a flag */
  const char *help;  /* the --help text, lines separated by '\n' */
};

/* The number of options in the table. */
size_t cc_cli_option_count(void);

/* Option i (< cc_cli_option_count(), in the table's order) into *doc. */
void cc_cli_option_doc(size_t i, struct cc_cli_option_doc *doc);

/* Whether option i is an option of the command named command ("run", "record",
 * "report", "fix": enum cc_cli_cmd; "import": the executable mode's options, a superset
 * of what import takes), or of the executable mode (`coalcheck [OPTIONS] ./app`) when
 * command is NULL. 0 for a command that takes none of the table's options ("help"). */
int cc_cli_option_taken_by(size_t i, const char *command);

/* `coalcheck --help-man`: the manual page coalcheck(1) (man(7) roff) from the command
 * and option tables, written to out; the build writes it into share/man/man1 (man.c). */
void cc_cli_write_man(FILE *out);

/* `coalcheck --help-completion SHELL`: the completion script for SHELL ("bash" or
 * "zsh") from the command and option tables, written to out (completion.c). Errors:
 * CC_ERR_USAGE for another SHELL. */
int cc_cli_write_completion(FILE *out, const char *shell, struct cc_err *err);

/* `coalcheck --version`: the version, the git revision the build was made from
 * ("unknown" outside git) and what the build includes (GPU backend, libclang, MPI), as
 * CMake configured it (version.c, the generated cc_build_info.c). */
void cc_cli_print_version(FILE *out);

/* ---- one run as an MPI job (mpi.c; docs/scaling.md) ----------------------------------- */

struct cc_cli_mpi;
struct cc_emu_stats;
struct cc_launch_bound;
struct ptx_module;
struct ptx_function;

/* Joins the MPI job when the launcher's environment (OMPI_COMM_WORLD_SIZE, PMI_SIZE,
 * PMIX_SIZE) says this process is one of several ranks: *out is the job, else NULL (a
 * plain run; also under `mpirun -np 1`). Errors: CC_ERR_USAGE under several ranks when
 * built without MPI; CC_ERR_TOOL when MPI_Init fails. */
int cc_cli_mpi_start(cc_give struct cc_cli_mpi **out, struct cc_err *err);
/* This process's rank (0 outside MPI). */
int cc_cli_mpi_rank(const struct cc_cli_mpi *m);
/* Whether worker threads may call MPI (MPI_THREAD_SERIALIZED granted); 1 outside MPI. */
int cc_cli_mpi_threads_ok(const struct cc_cli_mpi *m);
/* This rank's contiguous share of total CTAs (linear ids): rank r of N runs
 * [total r / N, total (r+1) / N); an empty share is first = total, count 0. */
void cc_cli_mpi_share(const struct cc_cli_mpi *m, uint64_t total, uint64_t *first,
                      uint64_t *count);
/* A 64-bit hash (a word at a time, mpi.c) of the inputs of a run: the module as printed, the kernel's name, the
 * launch dimensions, the parameter bytes and every buffer's initial contents. */
uint64_t cc_cli_mpi_input_hash(const struct ptx_module *m, const struct ptx_function *k,
                               const struct cc_run_opts *o, const struct cc_launch_bound *b);
/* Compares hash across the ranks (a collective). Errors: CC_ERR_INPUT naming the first
 * rank whose hash differs from rank 0's. */
int cc_cli_mpi_check_inputs(struct cc_cli_mpi *m, uint64_t hash, struct cc_err *err);
/* Notes the --dump buffers of b and copies their initial bytes: the changes each rank
 * makes are the bytes that differ from them; rank 0 refuses a byte two ranks changed. */
void cc_cli_mpi_keep_dumps(struct cc_cli_mpi *m, const struct cc_run_opts *o,
                           const struct cc_launch_bound *b);
/* Ranks > 0: *out becomes the sink that sends the records to rank 0 in chunks. */
void cc_cli_mpi_forward_sink(struct cc_cli_mpi *m, struct cc_access_sink *out);
/* Ranks > 0, after the run: the changed bytes of the --dump buffers (when status is
 * CC_OK), then status, err's message and the counters, to rank 0. */
void cc_cli_mpi_send_end(struct cc_cli_mpi *m, int status, const struct cc_err *err,
                         const struct cc_emu_stats *st);
/* Whether the job reduces per-instruction figures instead of gathering records: rank 0's
 * reducible (cc_cli_outputs_reducible), broadcast to every rank (a collective). */
int cc_cli_mpi_choose_reduce(struct cc_cli_mpi *m, int reducible);
/* Ranks > 0 that reduce: wraps *sink (the analyses of outs, borrowed) so that its
 * end_kernel first sends the kernel's packed figures (cc_cli_outputs_pack) to rank 0. */
void cc_cli_mpi_reduce_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink);
/* Rank 0: wraps *sink so that its end_kernel first takes the other ranks' records in rank
 * order (after rank 0's own) or, when the job reduces, merges their packed figures into
 * outs's analyses (cc_cli_outputs_merge_packed; outs borrowed, NULL when gathering),
 * applies their dump changes and takes their ends; a rank's failure becomes the run's
 * error when no lower CTA failed; a dump byte changed by two ranks is
 * CC_ERR_UNSUPPORTED (the merge would not be the serial buffer). */
void cc_cli_mpi_gather_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink);
/* Rank 0, after a kernel: a note line on f saying whether the ranks reduced figures (the
 * bytes received) or gathered records (how many); the counts start again at 0. */
void cc_cli_mpi_note(struct cc_cli_mpi *m, const char *kernel, FILE *f);
/* Rank 0: adds the other ranks' counters (received by the gathering sink) to st. */
void cc_cli_mpi_add_stats(const struct cc_cli_mpi *m, struct cc_emu_stats *st);
/* Ends the job (MPI_Finalize) and frees m; returns rc. When rank 0 failed before it
 * received the other ranks' messages, prints err and aborts the job (MPI_Abort), as the
 * others may still be sending. NULL m: returns rc. */
int cc_cli_mpi_finish(cc_take struct cc_cli_mpi *m, int rc, struct cc_err *err);

#endif
