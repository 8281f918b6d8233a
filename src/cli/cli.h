/* coalcheck command line: the command table, the option table and its parser, launch
 * files, the nvcc driver, kernel selection, and the main job (record + report).
 *
 * Parsing is separate from work (perf's cmd_annotate / __cmd_annotate): the parser fills
 * a struct cc_run_opts; cc_cli_run() does the work and is what tests call. Every failure
 * is an enum cc_status (the exit code, docs/exit-codes.md) with a message in a
 * struct cc_err; only cc_cli_main prints. */
#ifndef CC_CLI_CLI_H
#define CC_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "launch/launch.h"
#include "ptx/ptx.h"
#include "util/err.h"

/* --dump NAME=PATH */
struct cc_cli_dump {
  char *name, *path;
};

/* Everything the main job needs; filled by cc_cli_parse_run, freed by
 * cc_cli_opts_release. All strings are owned. */
#define CC_CLI_CACHE_JOBS_MAX 64 /* --cache-jobs: each thread queues for every other */

struct cc_run_opts {
  char *input;                   /* INPUT: KERNEL.cu or KERNEL.ptx */
  char *kernel;                  /* --kernel, or NULL: the module's only .entry */
  uint32_t grid[3], block[3];    /* --grid, --block; 0 = not given */
  struct cc_launch_arg *args;    /* --arg, in order */
  size_t nargs;
  struct cc_cli_dump *dumps;     /* --dump */
  size_t ndumps;
  uint32_t shared_bytes;         /* --shared: dynamic shared memory per CTA, bytes */
  char *launch_file;             /* --launch */
  char *json_path;               /* --json, or NULL; "-" = stdout */
  char *html_path;               /* --html: the views page (src/view), or NULL */
  char *sarif_path;              /* --sarif: the SARIF 2.1.0 log (report/ci.h), or NULL */
  char *csv_path;                /* --csv: one row per instruction (report/ci.h), or NULL */
  struct cc_gate *gates;         /* --fail-on, in order (report/ci.h); owned */
  size_t ngates;
  char *arch;                    /* --arch, or NULL = "sm_90" */
  char *nvcc_flags;              /* --nvcc-flags, or NULL */
  uint64_t max_insns;            /* --max-insns: warp-instruction budget; 0 = default */
  uint32_t jobs;                 /* --jobs: threads emulating the CTAs; 0 = cc_emu_cores() */
  uint32_t cache_jobs;           /* --cache-jobs: threads replaying the cache model behind
                                    the emulator's workers (at most CC_CLI_CACHE_JOBS_MAX);
                                    0 = the default (run.c cache_jobs) */
  uint64_t max_memory;           /* --max-memory: bytes all buffer arguments may take
                                    together; 0 = default (cc_cli_max_memory) */
  uint32_t top;                  /* --top: instructions shown per kernel; 0 = all */
  uint64_t max_memory_mib;       /* --max-analysis-memory: the analyses' memory limit in MiB (all
                                    --arch models together); 0 = CC_ANALYSIS_MEM_DEFAULT */
  int quiet;                     /* -q, --quiet */
  int help, version;             /* --help, --version */
  char *trace_path;              /* --trace (main job) or -o (record): the .cctrace to write,
                                    or NULL (record: "<kernel>.cctrace") */
  int l1_cache;                  /* --l1-cache: CC_MODEL_L1_ON / _OFF; 0 = the default */
  uint32_t smem_bank_width;      /* --smem-bank-width: 4 or 8 bytes; 0 = the default */
  char *cache_spec;              /* --cache: device and shape (cache/cache.h), "off", or NULL
                                    = the architecture's default device */
  char *calibration;             /* --calibration: speeds from scripts/gpu-calibrate.sh, or NULL */
  int record_only;               /* set by `record`: write the trace, no analysis, no report */
  int gpu_backend;               /* --backend gpu: run on the GPU (cli/gpu.h), not emulate */
  int gpu_inline;                /* --gpu-mode inline: count with instrumented PTX
                                    (src/ptx/instrument.h), not the Compute Sanitizer */
  uint32_t sample_ctas;          /* --sample-ctas N with --gpu-mode inline: 1 CTA in N counted,
                                    the counts extrapolated (gpu_inline.c); 0 or 1: all */
  char *command_line;            /* the command line, stored in the trace's header; or NULL */
  char *fix_dir;                 /* fix: -o DIR, the folder the fix is written to */
  int fix_strategy;              /* fix: --strategy, enum cc_fix_strategy (0: model) */
  int fix_transform;             /* fix: --transform, enum cc_fix_transform (0: auto) */
  int force;                     /* fix: --force, replace a non-empty -o DIR */
  char *sel_kernel_name;         /* --kernel-name NAME | regex:RE (ncu's; gpu/gpu.h's
                                    struct cc_gpu_filter_spec), or NULL */
  char *sel_name_base;           /* --kernel-name-base function|demangled|mangled, or NULL */
  char *sel_kernel_id;           /* --kernel-id ::NAME:N, or NULL */
  char *sel_launch_skip;         /* --launch-skip N, or NULL */
  char *sel_launch_count;        /* --launch-count N, or NULL */
  char **inputs;                 /* merge: the reports, in rank order (input is NULL) */
  size_t ninputs;
  double imbalance_pct;          /* merge: --imbalance-threshold, percent (default 0) */
};

/* The commands that share the option table (each option says which take it). */
enum cc_cli_cmd {
  CC_CLI_CMD_RUN,
  CC_CLI_CMD_RECORD,
  CC_CLI_CMD_REPORT,
  CC_CLI_CMD_FIX,
  CC_CLI_CMD_MERGE
};

/* Frees everything *o owns (strings, --arg and --dump lists) and zeroes it; safe on a
 * zeroed struct. */
void cc_cli_opts_release(struct cc_run_opts *o);

/* Parses the main job's command line (argv[0] is the program or command name, skipped)
 * into *o (zeroed first): options and INPUT in any order, "--opt VALUE" or "--opt=VALUE",
 * "--" ends options. A --launch FILE is read first and the command line applied on top
 * (scalars replaced; an --arg or --dump with the NAME of one from the file replaces it,
 * others are appended). Errors: CC_ERR_USAGE (unknown option, missing or bad value, two
 * INPUTs), CC_ERR_INPUT (unreadable or malformed launch file, "FILE:LINE:COL: ..."). */
int cc_cli_parse_run(int argc, char **argv, struct cc_run_opts *o, struct cc_err *err);

/* Parses the command line of command cmd like cc_cli_parse_run (which is the same for
 * CC_CLI_CMD_RUN): only the options the command takes are accepted (an option of another
 * command is CC_ERR_USAGE on the command line; in a launch file read by `record`, the
 * report options --json, --sarif, --csv, --fail-on, --arch, --top, --l1-cache,
 * --smem-bank-width, --cache, --calibration, --max-analysis-memory and --trace are ignored, so that one launch file serves `run` and
 * `record`). `report` takes no launch file; its INPUT is the .cctrace. A repeated --arch adds to the list ("--arch cc1.0
 * --arch sm_90" = "--arch cc1.0,sm_90"); a command-line --arch replaces a launch file's. */
int cc_cli_parse_cmd(enum cc_cli_cmd cmd, int argc, char **argv, struct cc_run_opts *o,
                     struct cc_err *err);

/* `coalcheck record`: runs the launch like cc_cli_run but streams the accesses into the
 * trace file o->trace_path (NULL: "<kernel>.cctrace" in the current folder, the kernel's
 * source name with every character other than [A-Za-z0-9_.-] made '_'), written whole
 * or not at all (access/trace.h), and writes one summary line (records, bytes,
 * bytes/record) to summary_out. No model is made and no report written. Errors: those of
 * cc_cli_run; CC_ERR_IO when the trace cannot be written (nothing is left). */
int cc_cli_record(const struct cc_run_opts *o, FILE *summary_out, struct cc_err *err);

/* `coalcheck report`: replays the trace o->input into one analysis per --arch model
 * (o->arch, default sm_90; with o->l1_cache, o->smem_bank_width) and writes, for one model,
 * the report the main job writes (text with --top, JSON to --json), for several, the
 * side-by-side comparison (report/compare.h; --json gets the comparison document, --top
 * does not apply). Nothing is written to report_out, and no --json file is left, unless
 * the whole trace replayed. Errors: CC_ERR_USAGE (no INPUT, bad --arch or model option),
 * CC_ERR_INPUT (unreadable, foreign, corrupt or truncated trace: the message has the
 * path, block and offset), CC_ERR_IO (--json or report_out not writable); after every
 * output is written, CC_ERR_GATE when a --fail-on gate tripped (one line per trip on
 * stderr, report/ci.h). --sarif and --csv are written like --json. */
int cc_cli_report(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err);

/* `coalcheck merge`: reads the JSON reports o->inputs[0..o->ninputs) (rank r = the r-th,
 * report/merge.h), and writes the per-rank table as text to report_out (not when --json
 * or --csv is "-"), the merge document to --json and the CSV to --csv, each whole or not
 * at all; ranks whose totals exceed the fewest by more than o->imbalance_pct percent are
 * flagged (not an error). Errors: CC_ERR_USAGE (no report given), CC_ERR_INPUT (those of
 * cc_report_merge_load), CC_ERR_IO. */
int cc_cli_merge(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err);

/* Writes the generated --help of the main job (option table) to out. */
void cc_cli_print_help(FILE *out);

/* The main job: compile (.cu) or read (.ptx) INPUT, parse it, select the kernel, check
 * it, allocate and fill the arguments, run it in the emulator with the analysis as sink,
 * then write the JSON report to --json (opened before the run), the text report to
 * report_out (not with --json -: standard output is the JSON's), --sarif and --csv, and
 * the dumps; then evaluates the --fail-on gates: CC_ERR_GATE, with one line per trip on
 * stderr, when any tripped (every output written). Progress goes to stderr unless
 * o->quiet. Errors: any enum cc_status (the exit code); on another error nothing more
 * is written and no --json file is left; --backend gpu with --sarif, --csv or --fail-on
 * is CC_ERR_USAGE. */
int cc_cli_run(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err);

/* The program: dispatches argv[1] through the command table (run is the default), prints
 * errors as "coalcheck: error: MESSAGE"; returns the exit code. */
int cc_cli_main(int argc, char **argv);

/* ---- launch files ---------------------------------------------------------------- */

/* Splits text into shell-like words: blanks separate words; '...' quotes literally;
 * "..." quotes with \" \\ \$ \` escapes; a backslash outside quotes escapes the next
 * character (backslash-newline joins lines); '#' at the start of a word comments out the
 * rest of the line. *words receives *nwords owned strings (free each, then the array);
 * lines[i] (if lines is not NULL, owned too) the line where word i starts. Errors:
 * CC_ERR_INPUT "PATH:LINE:COL: unterminated quote". */
int cc_cli_tokenize(const char *text, const char *path, cc_give char ***words, size_t *nwords,
                    cc_give uint32_t **lines, struct cc_err *err);

/* ---- kernel selection --------------------------------------------------------------- */

/* The demangled name of a PTX function name, e.g. "transpose(float*, float const*, int)"
 * for "_Z9transposePfPKfi", or NULL when name is not an Itanium-mangled name. Owned by
 * the caller. Uses libstdc++'s __cxa_demangle. */
cc_give char *cc_cli_demangle(const char *mangled);

/* The source name of a kernel without parameters and return type: "ns::tiled<32>" for
 * "void ns::tiled<32>(float*)"; the PTX name itself when it is not mangled. Owned. */
cc_give char *cc_cli_source_name(const char *mangled);

/* Whether NAME (as the user wrote it) names the kernel whose PTX name is mangled: the
 * PTX name itself, the qualified source name ("ns::tiled<32>"), the same without template
 * arguments ("ns::tiled"), or the unqualified forms ("tiled<32>", "tiled"). */
int cc_cli_kernel_matches(const char *mangled, const char *name);

/* Selects the .entry of m named name (NULL: the only .entry). Errors, all CC_ERR_INPUT
 * (the launch spec does not fit the input: only the module can tell, docs/exit-codes.md):
 * no match (the message lists the module's kernels), several matches (lists them), no
 * name and several kernels, a module without kernels. */
int cc_cli_find_kernel(cc_keep const struct ptx_module *m, const char *name,
                       const struct ptx_function **out, struct cc_err *err);

/* ---- nvcc --------------------------------------------------------------------------- */

/* The nvcc to run: the first "nvcc" on PATH, else /usr/local/cuda/bin/nvcc if executable,
 * else NULL. Owned. */
cc_give char *cc_cli_find_nvcc(void);

/* The first executable regular file called name in the ':'-separated folders of path
 * (an empty entry is "."), else fallback if it is executable, else NULL. Owned. */
cc_give char *cc_cli_find_program(const char *name, const char *path, const char *fallback);

/* Compiles cu_path with `NVCC -ptx -lineinfo -arch=sm_90 FLAGS -o TMP.ptx cu_path`
 * (posix_spawn, no shell; FLAGS split like a launch file's words; TMP a private folder
 * under $TMPDIR or /tmp, removed afterwards) and returns the PTX text (owned,
 * NUL-terminated) in *ptx, *len bytes. nvcc is the program to run, normally
 * cc_cli_find_nvcc()'s answer; NULL means none was found. Errors: CC_ERR_TOOL (nvcc
 * missing, not runnable, or failed: the message holds nvcc's output), CC_ERR_USAGE (bad
 * quoting in FLAGS), CC_ERR_IO (no temporary folder). */
int cc_cli_nvcc_compile(const char *nvcc, const char *cu_path, const char *flags,
                        cc_give char **ptx, size_t *len, struct cc_err *err);

#endif
