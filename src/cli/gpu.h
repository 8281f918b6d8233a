/* coalcheck command line, the GPU backend's side (issue 3): what `coalcheck ./app`,
 * `coalcheck --backend gpu ...` and `coalcheck import` need. Shared by the src/cli files
 * app.c, gpu_import.c, gpu_probe.c and gpu_kernel.c only.
 *
 * The measuring is done by the injection library libcoalcheck_gpu.so (src/gpu), loaded
 * into the application with LD_PRELOAD; it writes per-SASS-instruction counters as JSON
 * ($COALCHECK_GPU_JSON, src/gpu/README.md), which is imported here into a struct
 * cc_analysis and printed by src/report like an emulator run. */
#ifndef CC_CLI_GPU_H
#define CC_CLI_GPU_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "ptx/instrument.h"
#include "util/err.h"

/* Exit status of `--backend gpu` (and of an executable INPUT) where no CUDA GPU can be
 * used (docs/exit-codes.md); CI scripts may treat it as "skipped". */
#define CC_CLI_EXIT_NO_GPU CC_ERR_NO_GPU

/* Imports the GPU backend's JSON report (text, NUL-terminated; origin names it in
 * messages) into a new analysis over model m (borrowed; "sm_90" for the GPU backend):
 * one kernel per entry of "kernels" (the library aggregates the profiled launches of
 * each kernel: its figures are sums over them, grid and block those of the last), one
 * instruction per SASS instruction, the SASS text standing in for the PTX text and
 * sass_offset / 16 for ptx_index; the kernel's name is its source name (as the emulator
 * reports it). Per instruction: executions = requests, thread_accesses = lanes; global:
 * sectors, ideal_sectors; shared and local: wavefronts, ideal_wavefronts, ways; the
 * stride count is lanes - requests (each request of n lanes has n - 1 neighbours), its
 * sum avg x count. The figures the library does not measure (unique bytes, so the
 * efficiency; the sectors histogram; Algorithm 1's uncoalesced requests and thread
 * accesses; shared requests with a conflict) are derived by cc_analysis_import_kernel
 * where the sums fix them and flagged unknown otherwise (analysis.h, enum cc_unknown:
 * the reports show null or "-", never 0). Not measured by the GPU: footprints (allStr:
 * the report says "not measured on the GPU", the JSON has null).
 * An "inlined_at" {file, line} becomes the instruction's inlined_file/inlined_line.
 * Errors: CC_ERR_INPUT "ORIGIN: ..." when the text is not JSON or not a GPU report (a
 * missing or mistyped field is named with its kernel and instruction), or the analysis
 * refuses the figures. */
int cc_cli_gpu_import(const char *text, const char *origin, cc_keep const struct cc_model *m,
                      cc_give struct cc_analysis **out, struct cc_err *err);

/* Whether a usable CUDA GPU is here, without linking libcuda: dlopen("libcuda.so.1"),
 * cuInit(0), cuDeviceGetCount >= 1. Returns CC_OK, or CC_CLI_EXIT_NO_GPU with a message
 * "no usable CUDA GPU: WHY" in err (driver library missing, cuInit failed with its
 * code, no device). $COALCHECK_GPU_PROBE=none pretends none (tests). */
int cc_cli_gpu_probe(struct cc_err *err);

/* Whether path is an ELF file (its first 4 bytes are 0x7f 'E' 'L' 'F'). */
int cc_cli_is_elf(const char *path);

/* Finds a file of the GPU backend's build: $ENV if set (must exist), else NAME in the
 * folders beside the running coalcheck (/proc/self/exe): DIR/src/gpu/NAME (the build
 * tree), DIR/NAME, DIR/../lib/coalcheck/NAME. Returns an owned path, or NULL with
 * CC_ERR_TOOL in err naming the places tried and the variable to set. */
cc_give char *cc_cli_gpu_find_file(const char *env, const char *name, struct cc_err *err);

/* Where a CUDA installation is looked for (cc_cli_cuda_places_from_env fills it from the
 * environment; tests pass a fake toolkit). Strings borrowed; each may be NULL. */
struct cc_cli_cuda_places {
  const char *cuda_home;       /* $CUDA_HOME: the toolkit's root */
  const char *path;            /* $PATH: the first nvcc on it is ROOT/bin/nvcc */
  const char *default_root;    /* "/usr/local/cuda" */
  const char *ld_library_path; /* $LD_LIBRARY_PATH: folders that may hold the library */
};

/* Fills p from $CUDA_HOME, $PATH and $LD_LIBRARY_PATH, default_root "/usr/local/cuda". */
void cc_cli_cuda_places_from_env(struct cc_cli_cuda_places *p);

/* Finds libsanitizer-public.so (the Compute Sanitizer API library, which
 * libcoalcheck_gpu.so needs at run time; the toolkit's ROOT/compute-sanitizer/) in
 * this order: $CUDA_HOME/compute-sanitizer; the toolkit of the first nvcc on PATH
 * (ROOT/bin/nvcc, as found and with links resolved); default_root/compute-sanitizer;
 * each folder of LD_LIBRARY_PATH. A folder is taken when DIR/libsanitizer-public.so is
 * readable. Returns CC_OK with *dir (the folder) and *origin (where it came from:
 * "$CUDA_HOME", "the nvcc on PATH", ...) owned, or CC_ERR_TOOL naming every folder tried
 * and what to do (set CUDA_HOME). */
int cc_cli_gpu_find_sanitizer(const struct cc_cli_cuda_places *p, cc_give char **dir,
                              cc_give char **origin, struct cc_err *err);

/* What a GPU run loads into the child: the injection library and the folder of
 * libsanitizer-public.so (with where that came from). Owned strings. */
struct cc_cli_gpu_files {
  char *lib;        /* libcoalcheck_gpu.so (cc_cli_gpu_find_file, $COALCHECK_GPU_LIB) */
  char *san_dir;    /* the folder put first on the child's LD_LIBRARY_PATH */
  char *san_origin; /* "$CUDA_HOME", ... (cc_cli_gpu_find_sanitizer) */
};

/* Finds both from the environment; unless quiet, says on stderr which were taken.
 * Errors: those of cc_cli_gpu_find_file and cc_cli_gpu_find_sanitizer (CC_ERR_TOOL);
 * f is released on failure. */
int cc_cli_gpu_files_find(struct cc_cli_gpu_files *f, int quiet, struct cc_err *err);

/* Frees f's strings; f may be zeroed. */
void cc_cli_gpu_files_release(struct cc_cli_gpu_files *f);

/* `coalcheck [options] EXECUTABLE [ARGS...]`: the command line of the executable mode.
 * Returns 1 if argv (argv[0] the program) has, after options this mode knows, an INPUT
 * that is an ELF file; the caller then runs cc_cli_cmd_app. */
int cc_cli_app_wanted(int argc, char **argv);

/* Runs the executable mode: options (--backend gpu|emu, --kernel-name REGEX,
 * --launch-skip N, --launch-count N, --json PATH, --top N, -q) before the EXECUTABLE,
 * everything after it passed to the application. See docs/usage.md "GPU backend".
 * Returns the application's exit status when the report was written, else a status. */
int cc_cli_cmd_app(int argc, char **argv, struct cc_err *err);

/* The program for an executable INPUT (cli.c hands argv over when cc_cli_app_wanted):
 * cc_cli_cmd_app, then prints an error as cc_cli_main does ("coalcheck: error: ...",
 * a --help hint for coalcheck's own usage errors only, not for an application's status
 * that happens to be 2); returns the exit status. */
int cc_cli_app_main(int argc, char **argv);

/* `coalcheck import GPU.json [--json PATH] [--top N]`: the report of a saved GPU backend
 * JSON (what the library wrote to $COALCHECK_GPU_JSON). */
int cc_cli_cmd_import(int argc, char **argv, struct cc_err *err);

/* `--backend gpu` in kernel mode (.cu/.ptx + launch spec): binds the arguments into host
 * buffers, writes a launch plan (gpu_kernel.c) and runs coalcheck-gpu-launch on it under
 * the injection library, then reports like cc_cli_run. With $COALCHECK_GPU_PLAN=DIR the
 * plan is written to DIR and nothing is run (for running it on another machine). Errors:
 * those of cc_cli_run before the run; CC_CLI_EXIT_NO_GPU; CC_ERR_TOOL when the launcher
 * or the library is missing or the launch failed. */
int cc_cli_run_gpu(const struct cc_run_opts *o, FILE *report_out, struct cc_err *err);

struct cc_view;

/* --gpu-mode inline (gpu_inline.c): m instrumented by src/ptx/instrument.h (256 counter
 * shards; every CTA counted, or with sample_ctas S > 1 those whose linear id % S == 0)
 * into *text (*len bytes, owned), the site table into *map (released by the caller with
 * ptx_inst_map_release). Errors: ptx_instrument's. */
int cc_cli_gpu_inline_ptx(cc_keep const struct ptx_module *m, uint32_t sample_ctas,
                          cc_give char **text, size_t *len, struct ptx_inst_map *map,
                          struct cc_err *err);

/* Reads the counter buffer the instrumented launch of kernel k (of m, instrumented into
 * map) dumped to counters_path (little-endian 64-bit words, ptx_inst_counter_bytes(map)
 * of them) and writes json_path in the injection library's format (src/gpu/report.c,
 * read by cc_cli_gpu_import): one kernel; one instruction per executed site, sass_offset
 * = PTX index x 16 and "sass" = the PTX text, requests, lanes, bytes requested (lanes x
 * size), sectors and ideal sectors (global) or wavefronts, ideal wavefronts and ways
 * (shared), stride {min, max, avg = span / (lanes - requests)} or null, source {file,
 * line} and inlined_at from the PTX's .loc. With CTA sampling (map->sample S > 1) the
 * counts are the expansion estimate, the counted CTAs' sums x C / n (C = the grid's CTAs,
 * n counted: one per run of S ids, ptx_inst_pick), and the kernel carries "ctas", "sampled_ctas" and each
 * instruction and the kernel a "bound95" {requests, sectors} (the estimator and its 95%
 * bound: gpu_inline.c, cta_bound95). Errors: CC_ERR_TOOL when the buffer has the wrong
 * size, the file errors of reading and writing. */
int cc_cli_gpu_inline_json(const char *counters_path, cc_keep const struct ptx_module *m,
                           cc_keep const struct ptx_function *k,
                           cc_keep const struct ptx_inst_map *map, const uint32_t grid[3],
                           const uint32_t block[3], const char *json_path, struct cc_err *err);

/* What cc_cli_gpu_report writes besides the text report. Borrowed. */
struct cc_cli_gpu_outputs {
  const char *json;      /* --json: the report (schema of docs/json-schema.md), or NULL */
  const char *html;      /* --html: the views page (src/view), or NULL */
  struct cc_view *view;  /* the records' views (GPU trace mode), or NULL: none, the page
                            then says which views are missing and how to get them */
  const char *title;     /* the page's label: the executable or the input */
  uint32_t top;          /* --top: instructions per kernel in the text (0: all) */
};

/* Reads the GPU report at json_path, imports it, writes o->json, o->html (the report's
 * figures per source line, the source with heat and the kernel totals, under sm_90, the
 * GPU's model; the grid, block, warp and operation views only from o->view's records)
 * and the text report (to out; not when o->json is "-"), each output whole or not at
 * all. Errors: those of cc_cli_gpu_import, CC_ERR_USAGE (an output naming json_path),
 * CC_ERR_IO. */
int cc_cli_gpu_report(const char *json_path, const struct cc_cli_gpu_outputs *o, FILE *out,
                      struct cc_err *err);

/* Writes the views page of the analysis an (its JSON report embedded) into path, whole or
 * not at all: o->view's records' views, or without them the note of what is missing
 * (cc_cli_gpu_no_records); o->title labels it. input: the file read, which path may not
 * name. Errors: CC_ERR_USAGE (path is input), CC_ERR_IO. */
int cc_cli_gpu_page(const char *path, const char *input, const struct cc_analysis *an,
                    const struct cc_cli_gpu_outputs *o, struct cc_err *err);

/* The page's text where the GPU run has no per-warp records (in-situ counters): which
 * views are missing, why, and how to get them (docs/views.md). */
extern const char cc_cli_gpu_no_records[];

/* Runs child (child[0] the program's path, NULL-terminated) under the injection library
 * f->lib: LD_PRELOAD (f->lib first), LD_LIBRARY_PATH (f->san_dir first, so that the
 * library's libsanitizer-public.so is the toolkit's), COALCHECK_GPU_JSON=json,
 * COALCHECK_GPU_QUIET=1 and the launch selection sel (NULL: none; select.c's
 * cc_cli_selection_setenv: the options as the library's variables, or the environment as
 * it is) in the child's environment; waits for it (*status: the wait status). Errors:
 * CC_ERR_TOOL when it cannot be started. */
struct cc_cli_selection;
int cc_cli_gpu_spawn(char **child, const struct cc_cli_gpu_files *f, const char *json,
                     const struct cc_cli_selection *sel, int *status, struct cc_err *err);

/* Times kernel `mangled` of the PTX text (len bytes) on the GPU, uninstrumented: the
 * arguments bound and filled as for the emulator, one launch, 3 warm-up launches, then
 * runs launches each timed with CUDA events (coalcheck-gpu-launch's `time` directive);
 * *ms: the median in milliseconds. Errors: CC_CLI_EXIT_NO_GPU, CC_ERR_TOOL (launcher
 * missing or failed), those of cc_launch_bind. */
int cc_cli_gpu_time(const char *ptx, size_t len, const char *mangled, const uint32_t grid[3],
                    const uint32_t block[3], uint32_t shared, const struct cc_launch_arg *args,
                    size_t nargs, unsigned runs, double *ms, struct cc_err *err);

/* A wait status as a shell gives it: the exit code, or 128 + the signal. */
int cc_cli_gpu_exit_status(int ws);

#endif
