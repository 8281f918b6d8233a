/* The main job, `coalcheck [run] INPUT ...`: record one launch in the emulator and report
 * it. Parsing (cc_cli_cmd_run) is separate from the work (cc_cli_run). See cli.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdlib.h>
#include <string.h>
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

/* Everything a run holds, released in one place. */
struct run {
  struct cc_model *model;
  struct ptx_module *module;
  struct cc_emu *emu;
  struct cc_launch_bound bound;
  struct cc_analysis *analysis;
  struct cc_outfile json;
  int json_open;
  char *source_name;
};

/* A sink that renames the kernel to its source name and passes everything on. */
struct named_sink {
  struct cc_access_sink inner;
  const char *name;
  struct cc_kernel_info info; /* the renamed copy; lives as long as the stream */
};

static int named_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct named_sink *s = ctx;
  s->info = *k;
  s->info.name = s->name;
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

/* Checks what the parser cannot: required options and CUDA's launch limits. */
static int check_opts(const struct cc_run_opts *o, struct cc_err *err)
{
  static const char axis[3] = {'x', 'y', 'z'};
  uint64_t threads;
  if (!o->input)
    return cc_err_set(err, CC_ERR_USAGE, "no input given; pass KERNEL.cu or KERNEL.ptx, or a "
                      "--launch FILE that names one");
  if (!o->grid[0])
    return cc_err_set(err, CC_ERR_USAGE, "missing --grid X[,Y[,Z]]: the grid dimensions in CTAs");
  if (!o->block[0])
    return cc_err_set(err, CC_ERR_USAGE,
                      "missing --block X[,Y[,Z]]: the CTA dimensions in threads");
  for (int i = 0; i < 3; i++) {
    if (o->block[i] > max_block[i])
      return cc_err_set(err, CC_ERR_USAGE, "--block %c = %u is above CUDA's limit of %u",
                        axis[i], o->block[i], max_block[i]);
    if (o->grid[i] > max_grid[i])
      return cc_err_set(err, CC_ERR_USAGE, "--grid %c = %u is above CUDA's limit of %u",
                        axis[i], o->grid[i], max_grid[i]);
  }
  threads = (uint64_t)o->block[0] * o->block[1] * o->block[2];
  if (threads > MAX_BLOCK_THREADS)
    return cc_err_set(err, CC_ERR_USAGE, "--block %u,%u,%u has %llu threads; CUDA allows at "
                      "most %u per CTA", o->block[0], o->block[1], o->block[2],
                      (unsigned long long)threads, MAX_BLOCK_THREADS);
  return CC_OK;
}

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Parses INPUT into a module: .ptx read as is, .cu through nvcc. */
static int load_module(const struct cc_run_opts *o, struct ptx_module **out, struct cc_err *err)
{
  char *text;
  size_t len;
  int rc;
  if (ends_with(o->input, ".ptx"))
    return ptx_parse_file(o->input, out, err);
  if (!ends_with(o->input, ".cu"))
    return cc_err_set(err, CC_ERR_USAGE, "cannot tell what '%s' is; INPUT must be a CUDA "
                      "source (.cu) or PTX (.ptx)", o->input);
  if (access(o->input, R_OK) != 0) { /* nvcc's own message for this is less clear */
    char *probe;
    if ((rc = cc_file_read(o->input, &probe, NULL, err)) != CC_OK)
      return rc;
    free(probe);
  }
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

/* Every --dump must name a buffer argument: checked before the run, not after it. */
static int check_dumps(const struct cc_run_opts *o, const struct cc_launch_bound *b,
                       struct cc_err *err)
{
  for (size_t i = 0; i < o->ndumps; i++)
    if (!cc_launch_find_buffer(b, o->dumps[i].name))
      return cc_err_set(err, CC_ERR_USAGE, "--dump %s=%s: no buffer argument is called '%s'; "
                        "dump a NAME=TYPE[SIZE]:INIT argument", o->dumps[i].name,
                        o->dumps[i].path, o->dumps[i].name);
  return CC_OK;
}

static int write_dumps(const struct cc_run_opts *o, const struct cc_launch_bound *b,
                       struct cc_err *err)
{
  for (size_t i = 0; i < o->ndumps; i++) {
    int rc = cc_launch_dump(cc_launch_find_buffer(b, o->dumps[i].name), o->dumps[i].path, err);
    if (rc != CC_OK)
      return rc;
  }
  return CC_OK;
}

/* Runs the selected kernel with the analysis as sink. */
static int emulate(const struct cc_run_opts *o, struct run *r, const struct ptx_function *k,
                   struct cc_err *err)
{
  struct cc_launch_allocator alloc;
  struct cc_emu_opts eopts = {o->max_insns, !o->quiet};
  struct cc_emu_launch launch;
  struct cc_emu_stats stats;
  struct named_sink named;
  struct cc_access_sink sink;
  int rc;
  r->emu = cc_emu_new(r->module, &eopts);
  if ((rc = cc_emu_check(r->emu, k, err)) != CC_OK)
    return rc;
  alloc = cc_launch_emu_allocator(r->emu);
  if ((rc = cc_launch_bind(o->args, o->nargs, k, &alloc, &r->bound, err)) != CC_OK)
    return rc;
  if ((rc = check_dumps(o, &r->bound, err)) != CC_OK)
    return rc;
  r->analysis = cc_analysis_new(r->model);
  named.inner = cc_analysis_sink(r->analysis);
  named.name = r->source_name;
  sink = (struct cc_access_sink){&named, named_begin, named_access, named_end};
  memset(&launch, 0, sizeof launch);
  memcpy(launch.grid, o->grid, sizeof launch.grid);
  memcpy(launch.block, o->block, sizeof launch.block);
  launch.dynamic_shared_bytes = o->shared_bytes;
  launch.nparams = r->bound.nparams;
  launch.params = (const void *const *)r->bound.params;
  launch.param_bytes = r->bound.param_bytes;
  return cc_emu_run(r->emu, k, &launch, &sink, &stats, err);
}

static void release(struct run *r)
{
  if (r->json_open)
    cc_outfile_abort(&r->json);
  if (r->analysis)
    cc_analysis_free(r->analysis);
  cc_launch_bound_release(&r->bound);
  if (r->emu)
    cc_emu_free(r->emu);
  if (r->module)
    ptx_module_free(r->module);
  if (r->model)
    cc_model_free(r->model);
  free(r->source_name);
}

/* Writes the text report of an to out, keeping the top worst instructions per kernel
 * (0: all). The analysis orders them worst first; a shallow copy with shorter
 * instruction lists is what the report writer sees. */
static int text_report(FILE *out, const struct cc_analysis *an, uint32_t top,
                       struct cc_err *err)
{
  struct cc_analysis view = *an;
  int rc;
  if (top == 0)
    return cc_report_text(out, an, err);
  view.kernels = cc_xcalloc(an->n_kernels ? an->n_kernels : 1, sizeof *view.kernels);
  for (size_t i = 0; i < an->n_kernels; i++) {
    view.kernels[i] = an->kernels[i];
    if (view.kernels[i].n_insns > top)
      view.kernels[i].n_insns = top;
  }
  rc = cc_report_text(out, &view, err);
  free(view.kernels);
  return rc;
}

/* Writes the reports: the JSON to the --json file opened before the run (first: when it
 * cannot be written, the run fails with no report at all), then the text to out (unless
 * --json - owns standard output). */
static int write_reports(const struct cc_run_opts *o, struct run *r, FILE *out,
                         struct cc_err *err)
{
  int rc;
  int text = !(o->json_path && strcmp(o->json_path, "-") == 0);
  if (r->json_open) {
    char *json = cc_report_json_string(r->analysis, CC_CLI_VERSION);
    int ok = fputs(json, r->json.fp) >= 0 && fputc('\n', r->json.fp) != EOF;
    free(json);
    if (!ok)
      return cc_err_set(err, CC_ERR_IO, "cannot write %s", o->json_path);
    r->json_open = 0;
    if ((rc = cc_outfile_commit(&r->json, err)) != CC_OK)
      return rc;
  }
  if (text && (rc = text_report(out, r->analysis, o->top, err)) != CC_OK)
    return rc;
  return CC_OK;
}

int cc_cli_run(const struct cc_run_opts *o, FILE *out, struct cc_err *err)
{
  struct run r;
  const struct ptx_function *k;
  struct cc_model_opts mopts = {0, 4};
  int rc;
  memset(&r, 0, sizeof r);
  if ((rc = check_opts(o, err)) != CC_OK)
    return rc;
  if ((rc = cc_model_get(o->arch ? o->arch : "sm_90", &mopts, &r.model, err)) != CC_OK)
    goto done;
  /* open --json first: an unwritable path fails before a long run, and leaves nothing */
  if (o->json_path) {
    if ((rc = cc_outfile_open(&r.json, o->json_path, err)) != CC_OK)
      goto done;
    r.json_open = 1;
  }
  if ((rc = load_module(o, &r.module, err)) != CC_OK)
    goto done;
  if ((rc = cc_cli_find_kernel(r.module, o->kernel, &k, err)) != CC_OK)
    goto done;
  r.source_name = cc_cli_source_name(k->name);
  if ((rc = emulate(o, &r, k, err)) != CC_OK)
    goto done;
  if ((rc = write_reports(o, &r, out, err)) != CC_OK)
    goto done;
  rc = write_dumps(o, &r.bound, err);
done:
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
    printf("coalcheck %s\n", CC_CLI_VERSION);
  else if (rc == CC_OK)
    rc = cc_cli_run(&o, stdout, err);
  cc_cli_opts_release(&o);
  return rc;
}
