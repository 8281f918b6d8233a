/* The main job, `coalcheck [run] INPUT ...`: record one launch in the emulator and report
 * it. Parsing (cc_cli_cmd_run) is separate from the work (cc_cli_run). See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "cli/gpu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "emu/emu.h"
#include "model/model.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/mem.h"

/* CUDA's launch limits (CUDA C Programming Guide, "Compute Capabilities", table of
 * technical specifications; the same for cc 3.0 through 9.0). */
#define MAX_BLOCK_THREADS 1024u
static const uint32_t max_block[3] = {1024, 1024, 64};
static const uint32_t max_grid[3] = {INT32_MAX, 65535, 65535};

int cc_cli_check_dims(const char *opt, const uint64_t dims[3], const char *const text[3],
                      struct cc_err *err)
{
  static const char axis[3] = {'x', 'y', 'z'};
  int grid = strcmp(opt, "grid") == 0;
  const uint32_t *max = grid ? max_grid : max_block;
  for (int i = 0; i < 3; i++) {
    char shown[32];
    if (dims[i] <= max[i])
      continue;
    if (text && text[i])
      snprintf(shown, sizeof shown, "%s", text[i]);
    else
      snprintf(shown, sizeof shown, "%llu", (unsigned long long)dims[i]);
    return cc_err_set(err, CC_ERR_USAGE, "--%s %c = %s is above CUDA's limit of %u; %s", opt,
                      axis[i], shown, max[i],
                      grid ? "CUDA grids are at most 2147483647 x 65535 x 65535 CTAs"
                           : "CUDA blocks are at most 1024 x 1024 x 64 threads, 1024 in all");
  }
  if (!grid && dims[0] * dims[1] * dims[2] > MAX_BLOCK_THREADS) /* each <= 1024 here */
    return cc_err_set(err, CC_ERR_USAGE, "--block %llu,%llu,%llu has %llu threads; CUDA allows "
                      "at most %u per CTA", (unsigned long long)dims[0],
                      (unsigned long long)dims[1], (unsigned long long)dims[2],
                      (unsigned long long)(dims[0] * dims[1] * dims[2]), MAX_BLOCK_THREADS);
  return CC_OK;
}

uint64_t cc_cli_max_memory(const struct cc_run_opts *o)
{
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (o->max_memory)
    return o->max_memory;
  if (pages <= 0 || page <= 0)
    return UINT64_C(4) << 30;
  return (uint64_t)pages * (uint64_t)page / 2;
}

/* Everything a run holds, released in one place. */
struct run {
  struct cc_cli_outputs *outs; /* analyses, --json, trace (outputs.c) */
  struct ptx_module *module;
  struct cc_emu *emu;
  struct cc_launch_bound bound;
  char *source_name;
  struct cc_cli_mpi *mpi;      /* the MPI job this run is a rank of, or NULL (mpi.c) */
  int reduce;                  /* MPI: the ranks reduce figures rather than gather records */
};

/* A sink that renames the kernel to its source name, places inlined instructions on the
 * user's call site (cc_cli_resolve_inlined: the whole inlined_at chain) and passes
 * everything on. */
struct named_sink {
  struct cc_access_sink inner;
  const char *name;
  const struct ptx_module *module;  /* borrowed */
  const struct ptx_function *kernel;
  struct cc_kernel_info info; /* the renamed copy; lives as long as the stream */
  struct cc_insn_info *insns; /* owned copy of the table (strings borrowed), or NULL */
};

static int named_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct named_sink *s = ctx;
  s->info = *k;
  s->info.name = s->name;
  free(s->insns);
  s->insns = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *s->insns);
  if (k->n_insns)
    memcpy(s->insns, k->insns, k->n_insns * sizeof *s->insns);
  cc_cli_resolve_inlined(s->module, s->kernel, s->insns, k->n_insns);
  s->info.insns = s->insns;
  return s->inner.begin_kernel(s->inner.ctx, &s->info, err);
}

static int named_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct named_sink *s = ctx;
  return s->inner.access(s->inner.ctx, a, err);
}

static int named_end(void *ctx, struct cc_err *err)
{
  struct named_sink *s = ctx;
  return s->inner.end_kernel(s->inner.ctx, err);
}

int cc_cli_check_input(const char *input, struct cc_err *err)
{
  if (!input)
    return cc_err_set(err, CC_ERR_USAGE, "no input given; pass KERNEL.cu or KERNEL.ptx, or a "
                      "--launch FILE that names one");
  if (access(input, R_OK) != 0)
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s; INPUT is KERNEL.cu, KERNEL.ptx "
                      "or an executable (./app, or a program on PATH)", input, strerror(errno));
  return CC_OK;
}

/* Checks what the parser cannot: INPUT first (a missing file is named before any missing
 * option), then required options and CUDA's launch limits. */
int cc_cli_check_launch(const struct cc_run_opts *o, struct cc_err *err)
{
  uint64_t grid[3], block[3];
  int rc = cc_cli_check_input(o->input, err);
  if (rc != CC_OK)
    return rc;
  if (!o->grid[0])
    return cc_err_set(err, CC_ERR_USAGE, "missing --grid X[,Y[,Z]]: the grid dimensions in CTAs");
  if (!o->block[0])
    return cc_err_set(err, CC_ERR_USAGE,
                      "missing --block X[,Y[,Z]]: the CTA dimensions in threads");
  /* the parser checks them too (with the launch file's line); callers may fill o */
  for (int i = 0; i < 3; i++) {
    grid[i] = o->grid[i];
    block[i] = o->block[i];
  }
  if ((rc = cc_cli_check_dims("block", block, NULL, err)) != CC_OK)
    return rc;
  return cc_cli_check_dims("grid", grid, NULL, err);
}

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int cc_cli_load_module(const struct cc_run_opts *o, struct ptx_module **out, struct cc_err *err)
{
  char *text;
  size_t len;
  int rc;
  if (ends_with(o->input, ".ptx"))
    return ptx_parse_file(o->input, out, err);
  if (!ends_with(o->input, ".cu"))
    return cc_err_set(err, CC_ERR_USAGE, "cannot tell what '%s' is; INPUT must be a CUDA "
                      "source (.cu) or PTX (.ptx)", o->input);
  {
    char *nvcc = cc_cli_find_nvcc();
    rc = cc_cli_nvcc_compile(nvcc, o->input, o->nvcc_flags, &text, &len, err);
    free(nvcc);
    if (rc != CC_OK)
      return rc;
  }
  {
    /* messages about the PTX name "INPUT.ptx": the temporary file is gone by then */
    char *name = cc_xmalloc(strlen(o->input) + 5);
    sprintf(name, "%s.ptx", o->input);
    rc = ptx_parse(text, len, name, out, err);
    free(name);
  }
  free(text);
  return rc;
}

/* A --dump must not replace a file the run reads (INPUT, the launch file, a file:
 * initialiser): CC_ERR_USAGE from cc_outfile_check_inputs. */
static int dump_not_input(const struct cc_run_opts *o, const char *path, struct cc_err *err)
{
  size_t n;
  const char **inputs = cc_cli_input_paths(o, &n);
  int rc = cc_outfile_check_inputs(path, inputs, n, err);
  free(inputs);
  return rc;
}

/* Every --dump must name a buffer argument and no input: checked before the run, not
 * after it. */
static int check_dumps(const struct cc_run_opts *o, const struct cc_launch_bound *b,
                       struct cc_err *err)
{
  for (size_t i = 0; i < o->ndumps; i++) {
    int rc;
    if (!cc_launch_find_buffer(b, o->dumps[i].name))
      return cc_err_set(err, CC_ERR_USAGE, "--dump %s=%s: no buffer argument is called '%s'; "
                        "dump a NAME=TYPE[SIZE]:INIT argument", o->dumps[i].name,
                        o->dumps[i].path, o->dumps[i].name);
    if ((rc = dump_not_input(o, o->dumps[i].path, err)) != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* Writes the dumps; each path is checked against the inputs again at write time (the
 * file may have become one, e.g. a link made during the run). */
static int write_dumps(const struct cc_run_opts *o, const struct cc_launch_bound *b,
                       struct cc_err *err)
{
  for (size_t i = 0; i < o->ndumps; i++) {
    int rc = dump_not_input(o, o->dumps[i].path, err);
    if (rc == CC_OK)
      rc = cc_launch_dump(cc_launch_find_buffer(b, o->dumps[i].name), o->dumps[i].path, err);
    if (rc != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* How the emulator shows progress: -q none; one updating line on a terminal; lines. */
static int progress_mode(const struct cc_run_opts *o)
{
  if (o->quiet)
    return CC_EMU_PROGRESS_NONE;
  return isatty(STDERR_FILENO) ? CC_EMU_PROGRESS_TERMINAL : CC_EMU_PROGRESS_LINES;
}

/* COALCHECK_PROGRESS_SECONDS=S shows progress after S seconds and every S seconds (tests
 * use a tiny S; docs/usage.md); a value that is no positive number is ignored. */
static void progress_timing(struct cc_emu *emu)
{
  const char *v = getenv("COALCHECK_PROGRESS_SECONDS");
  char *end;
  double sec;
  if (!v || !*v)
    return;
  sec = strtod(v, &end);
  if (*end == 0 && sec > 0 && sec < 1e6)
    cc_emu_progress_timing(emu, sec, sec);
}

/* Runs the selected kernel with the analysis as sink, and hands the emulator's counters
 * and the wall time of the run to the analysis (the report prints them). */
/* Under MPI: this rank's share of the CTAs in eopts, its threads, no progress but rank 0's */
static void mpi_share(const struct cc_run_opts *o, const struct run *r, struct cc_emu_opts *eopts)
{
  uint64_t total = (uint64_t)o->grid[0] * o->grid[1] * o->grid[2];
  if (!r->mpi)
    return;
  cc_cli_mpi_share(r->mpi, total, &eopts->cta_first, &eopts->cta_count);
  if (cc_cli_mpi_rank(r->mpi) > 0)
    eopts->progress = CC_EMU_PROGRESS_NONE;
  if (!cc_cli_mpi_threads_ok(r->mpi)) /* the sink may send from a worker thread */
    eopts->jobs = 1;
}

/* The threads that replay the cache model behind the emulating threads: --cache-jobs,
 * else 1 (the thread that takes the records in order replays it: with 2-8 threads of the
 * parallel replay, the 16-core machine measured no gain, bench/results/
 * scale-2026-11-27-s10-cachejobs.md). */
static uint32_t cache_jobs(const struct cc_run_opts *o)
{
  return o->cache_jobs ? o->cache_jobs : 1;
}

/* The sink of the run: the outputs' (renamed), wrapped on MPI rank 0 to gather the other
 * ranks' records or merge their figures; on the other ranks, the sender of the records to
 * rank 0, or (reducing) their own analyses, wrapped to send their figures. */
static int make_sink(struct run *r, const struct ptx_function *k, struct named_sink *named,
                     struct cc_access_sink *sink, struct cc_err *err)
{
  int rc;
  if (cc_cli_mpi_rank(r->mpi) > 0 && !r->reduce) {
    cc_cli_mpi_forward_sink(r->mpi, sink);
    return CC_OK;
  }
  if ((rc = cc_cli_outputs_sink(r->outs, r->source_name, &named->inner, err)) != CC_OK)
    return rc;
  named->name = r->source_name;
  named->module = r->module;
  named->kernel = k;
  named->insns = NULL;
  *sink = (struct cc_access_sink){named, named_begin, named_access, named_end};
  if (cc_cli_mpi_rank(r->mpi) > 0)
    cc_cli_mpi_reduce_sink(r->mpi, r->outs, sink);
  else if (r->mpi)
    cc_cli_mpi_gather_sink(r->mpi, r->reduce ? r->outs : NULL, sink);
  return CC_OK;
}

/* Runs the selected kernel with the analysis as sink, and hands the emulator's counters
 * and the wall time of the run to the analysis (the report prints them). Under MPI, runs
 * this rank's share; ranks > 0 send their records, changes and end to rank 0 (mpi.c). */
static int emulate(const struct cc_run_opts *o, struct run *r, const struct ptx_function *k,
                   struct cc_err *err)
{
  struct cc_launch_allocator alloc;
  struct cc_emu_opts eopts = {.max_warp_insns = o->max_insns, .progress = progress_mode(o),
                              .jobs = o->jobs ? o->jobs : cc_emu_cores()};
  struct cc_emu_launch launch;
  struct cc_emu_stats stats;
  struct named_sink named;
  struct cc_access_sink sink;
  struct cc_access_partials parts;
  int split = 0, ordered = 1;
  struct timespec t0, t1;
  int rc;
  mpi_share(o, r, &eopts);
  r->emu = cc_emu_new(r->module, &eopts);
  progress_timing(r->emu);
  if ((rc = cc_emu_check(r->emu, k, err)) != CC_OK)
    return rc;
  alloc = cc_launch_emu_allocator(r->emu, cc_cli_max_memory(o));
  alloc.fill_threads = eopts.jobs; /* the inputs' random fill: the run's threads */
  if ((rc = cc_launch_bind(o->args, o->nargs, k, &alloc, &r->bound, err)) != CC_OK)
    return rc;
  if ((rc = check_dumps(o, &r->bound, err)) != CC_OK)
    return rc;
  if (r->mpi) {
    rc = cc_cli_mpi_check_inputs(r->mpi, cc_cli_mpi_input_hash(r->module, k, o, &r->bound), err);
    if (rc != CC_OK)
      return rc;
    cc_cli_mpi_keep_dumps(r->mpi, o, &r->bound);
  }
  memset(&named, 0, sizeof named);
  if ((rc = make_sink(r, k, &named, &sink, err)) != CC_OK)
    return rc;
  if (r->outs) /* (none on an MPI rank that sends its records to rank 0) */
    cc_cli_outputs_replay_jobs(r->outs, cache_jobs(o));
  memset(&launch, 0, sizeof launch);
  memcpy(launch.grid, o->grid, sizeof launch.grid);
  memcpy(launch.block, o->block, sizeof launch.block);
  launch.dynamic_shared_bytes = o->shared_bytes;
  launch.nparams = r->bound.nparams;
  launch.params = (const void *const *)r->bound.params;
  launch.param_bytes = r->bound.param_bytes;
  memset(&stats, 0, sizeof stats);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* on several threads, the analyses' figures are summed in the workers (docs/scaling.md);
   * MPI ranks that gather send their records to rank 0's ordered sink instead */
  if ((!r->mpi || r->reduce) && eopts.jobs > 1 &&
      (split = cc_cli_outputs_partials(r->outs, &parts, &ordered)) && !ordered)
    sink.access = NULL; /* no consumer needs the serial order: no records buffered */
  rc = cc_emu_run_split(r->emu, k, &launch, &sink, split ? &parts : NULL, &stats, err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(named.insns);
  if (cc_cli_mpi_rank(r->mpi) > 0) { /* rank 0 reports, errors included */
    cc_cli_mpi_send_end(r->mpi, rc, err, &stats);
    return CC_OK;
  }
  if (r->mpi) {
    cc_cli_mpi_add_stats(r->mpi, &stats);
    if (!o->quiet && rc == CC_OK) /* which path the job took (tests/e2e/mpi_reduce.sh) */
      cc_cli_mpi_note(r->mpi, k->name, stderr);
  }
  if (stats.serial_reason && !o->quiet) /* asked for threads, ran on one: say why */
    fprintf(stderr, "coalcheck: note: kernel %s runs its blocks one after another on one "
            "thread: %s\n", k->name, stats.serial_reason);
  if (rc == CC_OK) {
    /* the report's "emulator" counters (docs/json-schema.md) */
    struct cc_kernel_run_stats run = {
      .present = 1, .warp_insns = stats.warp_insns, .thread_insns = stats.thread_insns,
      .warp_accesses = stats.warp_accesses,
      .seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec)
    };
    cc_cli_outputs_set_run_stats(r->outs, &run);
  }
  return rc;
}

/* Under MPI: whether the ranks reduce their figures (rank 0's outputs decide, for all);
 * if so, ranks > 0 make analyses of their own (no files). */
static int mpi_outputs(const struct cc_run_opts *o, struct run *r, struct cc_err *err)
{
  int rank = cc_cli_mpi_rank(r->mpi);
  r->reduce = cc_cli_mpi_choose_reduce(r->mpi, rank == 0 && cc_cli_outputs_reducible(r->outs));
  if (rank > 0 && r->reduce)
    return cc_cli_outputs_open_analyses(o, &r->outs, err);
  return CC_OK;
}

/* Frees what one launch holds (emulator, arguments, name), ready for the next. */
static void release_launch(struct run *r)
{
  cc_launch_bound_release(&r->bound);
  memset(&r->bound, 0, sizeof r->bound);
  if (r->emu)
    cc_emu_free(r->emu);
  r->emu = NULL;
  free(r->source_name);
  r->source_name = NULL;
}

static void release(struct run *r)
{
  cc_cli_outputs_free(r->outs);
  release_launch(r);
  if (r->module)
    ptx_module_free(r->module);
}

/* Runs kernel k (one launch of o's spec) into r's outputs and attaches its static forms;
 * fix_name: how the advice's `coalcheck fix` names the kernel (NULL: its source name). */
static int run_one(const struct cc_run_opts *o, struct run *r, const struct ptx_function *k,
                   const char *fix_name, struct cc_err *err)
{
  int rc;
  release_launch(r);
  r->source_name = cc_cli_source_name(k->name);
  if ((rc = emulate(o, r, k, err)) != CC_OK || cc_cli_mpi_rank(r->mpi) > 0)
    return rc;
  /* the static forms: the report shows them, the advice uses them */
  return cc_cli_attach_forms(r->outs, r->module, k, fix_name ? fix_name : r->source_name, o,
                             &r->bound, err);
}

int cc_cli_run(const struct cc_run_opts *o, FILE *out, struct cc_err *err)
{
  struct run r;
  const struct ptx_function **ks = NULL;
  size_t nk = 0;
  int rc;
  memset(&r, 0, sizeof r);
  if ((rc = cc_cli_check_run_paths(o, err)) != CC_OK)
    return rc;
  if (o->gpu_backend && (o->sarif_path || o->csv_path || o->ngates))
    return cc_err_set(err, CC_ERR_USAGE, "--sarif, --csv and --fail-on work on emulated runs "
                      "and traces; drop --backend gpu, or record a trace and use 'coalcheck "
                      "report'");
  if (o->gpu_backend && (o->sel_kernel_name || o->sel_name_base || o->sel_kernel_id ||
                         o->sel_launch_skip || o->sel_launch_count))
    return cc_err_set(err, CC_ERR_USAGE, "--backend gpu with a KERNEL.cu or .ptx runs one "
                      "launch: name its kernel with --kernel (the launch selection options "
                      "apply to the emulator and to executables)");
  if (o->gpu_inline && !o->gpu_backend)
    return cc_err_set(err, CC_ERR_USAGE, "--gpu-mode inline counts on the GPU: add --backend "
                      "gpu (the emulator counts every access already)");
  if (o->sample_ctas > 1 && !o->gpu_inline)
    return cc_err_set(err, CC_ERR_USAGE, "--sample-ctas with a KERNEL.cu or .ptx samples the "
                      "inline counters: add --backend gpu --gpu-mode inline (the emulator and "
                      "the Compute Sanitizer count every CTA)");
  if (o->gpu_backend) /* --backend gpu: the same launch on the GPU (gpu_kernel.c) */
    return cc_cli_run_gpu(o, out, err);
  if ((rc = cc_cli_check_launch(o, err)) != CC_OK)
    return rc;
  if ((rc = cc_cli_mpi_start(&r.mpi, err)) != CC_OK)
    return rc;
  /* models and --json first: a bad --arch or an unwritable path fails before a long run,
   * and leaves nothing; MPI ranks other than 0 write nothing */
  if (cc_cli_mpi_rank(r.mpi) == 0 && (rc = cc_cli_outputs_open(o, &r.outs, err)) != CC_OK)
    goto done;
  if (r.mpi && (rc = mpi_outputs(o, &r, err)) != CC_OK)
    goto done;
  if ((rc = cc_cli_load_module(o, &r.module, err)) != CC_OK)
    goto done;
  if ((rc = cc_cli_select_kernels(o, r.module, &ks, &nk, err)) != CC_OK)
    goto done;
  if (nk > 1 && o->ndumps) {
    rc = cc_err_set(err, CC_ERR_USAGE, "--dump with a selection of %zu launches: a buffer "
                    "belongs to one launch; select one (--launch-count 1) to dump it", nk);
    goto done;
  }
  /* the selected kernels one after another, into one stream: one report, one kernel
   * entry each (a selection of one: the usual run) */
  for (size_t i = 0; i < nk; i++)
    if ((rc = run_one(o, &r, ks[i], o->kernel ? o->kernel : nk > 1 || cc_cli_selection_given(o)
                      ? ks[i]->name : NULL, err)) != CC_OK)
      goto done;
  if (cc_cli_mpi_rank(r.mpi) > 0) /* rank 0 writes the outputs */
    goto done;
  if ((rc = cc_cli_outputs_finish(r.outs, out, err)) != CC_OK)
    goto done;
  if ((rc = write_dumps(o, &r.bound, err)) == CC_OK)
    rc = cc_cli_outputs_gates(r.outs, stderr, err);
done:
  free(ks);
  rc = cc_cli_mpi_finish(r.mpi, rc, err);
  release(&r);
  return rc;
}

int cc_cli_cmd_run(int argc, char **argv, struct cc_err *err)
{
  struct cc_run_opts o;
  int rc = cc_cli_parse_run(argc, argv, &o, err);
  if (rc == CC_OK && o.help)
    rc = cc_cli_cmd_help(0, NULL, err);
  else if (rc == CC_OK && o.version)
    cc_cli_print_version(stdout);
  else if (rc == CC_OK)
    rc = cc_cli_run(&o, stdout, err);
  cc_cli_opts_release(&o);
  return rc;
}
