/* `coalcheck --backend gpu KERNEL.cu|.ptx --grid ... --arg ...`: one launch of one kernel
 * on the GPU. The arguments are bound exactly as for the emulator (src/launch, into host
 * buffers here), written as a launch plan (the PTX, the packed scalars, each buffer's
 * spec and the FNV-1a hash of its initial bytes), and coalcheck-gpu-launch (src/gpu/
 * launch.c) runs the plan under libcoalcheck_gpu.so: it refills the buffers with the same
 * src/launch code, checks the hashes, launches. The library's JSON is then imported and
 * reported like an emulator run. See gpu.h. */
#include "cli/gpu.h"
#include "cli/cli_impl.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/launch.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/mem.h"

extern char **environ;

/* Host buffers for cc_launch_bind; the "device address" is a tag (the buffers never meet
 * a device here: the launcher allocates its own). */
struct host_alloc {
  void **blocks;
  size_t n;
};

static int host_alloc_fn(void *ctx, uint64_t bytes, const char *name, uint64_t *dev_addr,
                         void **host, struct cc_err *err)
{
  struct host_alloc *h = ctx;
  void *mem = calloc(bytes ? bytes : 1, 1); /* the host may not have it: not an abort */
  if (!mem)
    return cc_err_set(err, CC_ERR_LIMIT, "cannot allocate %llu bytes of host memory for "
                      "buffer '%s': out of memory; use a smaller size or free memory",
                      (unsigned long long)bytes, name);
  h->blocks = cc_xrealloc(h->blocks, (h->n + 1) * sizeof *h->blocks);
  h->blocks[h->n] = mem;
  *host = h->blocks[h->n++];
  *dev_addr = (uint64_t)h->n << 40; /* distinct and never 0 */
  return CC_OK;
}

static void host_free(struct host_alloc *h)
{
  for (size_t i = 0; i < h->n; i++)
    free(h->blocks[i]);
  free(h->blocks);
}

static const char *type_name(enum ptx_type t)
{
  static const struct { enum ptx_type t; const char *name; } names[] = {
    {PTX_TYPE_U8, "u8"}, {PTX_TYPE_U16, "u16"}, {PTX_TYPE_U32, "u32"}, {PTX_TYPE_U64, "u64"},
    {PTX_TYPE_S8, "s8"}, {PTX_TYPE_S16, "s16"}, {PTX_TYPE_S32, "s32"}, {PTX_TYPE_S64, "s64"},
    {PTX_TYPE_F16, "f16"}, {PTX_TYPE_F32, "f32"}, {PTX_TYPE_F64, "f64"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].t == t)
      return names[i].name;
  return NULL;
}

/* The buffer spec with a literal count and an absolute file path: the launcher needs
 * neither the other arguments nor the launch file's folder. */
static int buffer_spec(const struct cc_launch_arg *a, uint64_t count, char *buf, size_t cap,
                       struct cc_err *err)
{
  char init[PATH_MAX + 16], layout[1024], offset[32];
  switch (a->init) {
  case CC_INIT_ZERO: snprintf(init, sizeof init, "zero"); break;
  case CC_INIT_IOTA: snprintf(init, sizeof init, "iota"); break;
  case CC_INIT_RANDOM:
    snprintf(init, sizeof init, "random:%llu", (unsigned long long)a->seed);
    break;
  case CC_INIT_CONST: snprintf(init, sizeof init, "const:%s", a->init_text); break;
  case CC_INIT_FILE: {
    char abs[PATH_MAX];
    if (!realpath(a->init_text, abs))
      return cc_err_set(err, CC_ERR_INPUT, "cannot resolve %s: %s", a->init_text,
                        strerror(errno));
    snprintf(init, sizeof init, "file:%s", abs);
    break;
  }
  }
  if (!type_name(a->type) || strchr(init, '\n'))
    return cc_err_set(err, CC_ERR_INPUT, "argument '%s' cannot be written into a launch "
                      "plan; use another initialiser", a->name);
  layout[0] = '\0';
  if (a->layout.struct_bytes) {
    if (cc_launch_layout_format(&a->layout, layout, sizeof layout - 1) < 0)
      return cc_err_set(err, CC_ERR_INPUT, "argument '%s': its layout has too many offsets "
                        "for a launch plan (at most about 150)", a->name);
    strcat(layout, ":");
  }
  offset[0] = '\0';
  if (a->offset) /* before the LAYOUT, arg.c's order */
    snprintf(offset, sizeof offset, "offset(%u):", a->offset);
  snprintf(buf, cap, "%s=%s[%llu]:%s%s%s", a->name, type_name(a->type),
           (unsigned long long)count, offset, layout, init);
  return CC_OK;
}

/* Writes DIR/kernel.ptx and DIR/plan (format: src/gpu/launch.c). */
static int write_plan(const char *dir, const struct cc_run_opts *o, const char *ptx, size_t len,
                      const char *mangled, const struct cc_launch_bound *b, unsigned time_runs,
                      const char *extra, struct cc_err *err)
{
  char *path = cc_xmalloc(strlen(dir) + 16);
  struct cc_outfile f;
  int rc;
  sprintf(path, "%s/kernel.ptx", dir);
  if ((rc = cc_outfile_open(&f, path, err)) == CC_OK) {
    if (fwrite(ptx, 1, len, f.fp) != len) {
      cc_outfile_abort(&f);
      rc = cc_err_set(err, CC_ERR_IO, "cannot write %s", path);
    } else {
      rc = cc_outfile_commit(&f, err);
    }
  }
  sprintf(path, "%s/plan", dir);
  if (rc == CC_OK && (rc = cc_outfile_open(&f, path, err)) == CC_OK) {
    fprintf(f.fp, "coalcheck-gpu-plan 1\nmodule kernel.ptx\nkernel %s\n", mangled);
    fprintf(f.fp, "grid %u %u %u\nblock %u %u %u\nshared %u\n", o->grid[0],
            o->grid[1] ? o->grid[1] : 1, o->grid[2] ? o->grid[2] : 1, o->block[0],
            o->block[1] ? o->block[1] : 1, o->block[2] ? o->block[2] : 1, o->shared_bytes);
    for (uint32_t i = 0; i < b->nparams && rc == CC_OK; i++) {
      const struct cc_launch_arg *a = &o->args[i];
      fprintf(f.fp, "param %u ", i);
      if (a->is_buffer) {
        const struct cc_launch_buffer *buf = cc_launch_find_buffer(b, a->name);
        char spec[PATH_MAX + 1200];
        if ((rc = buffer_spec(a, buf->count, spec, sizeof spec, err)) == CC_OK)
          fprintf(f.fp, "buffer %016llx %s\n",
                  (unsigned long long)cc_fnv1a64(buf->host, buf->bytes), spec);
      } else {
        fputs("scalar ", f.fp);
        for (uint32_t j = 0; j < b->param_bytes[i]; j++)
          fprintf(f.fp, "%02x", ((const uint8_t *)b->params[i])[j]);
        fputc('\n', f.fp);
      }
    }
    for (size_t i = 0; i < o->ndumps && rc == CC_OK; i++) {
      char abs[PATH_MAX];
      /* relative to coalcheck's folder, where the emulator's run would write it */
      if (o->dumps[i].path[0] == '/' || !getcwd(abs, sizeof abs))
        snprintf(abs, sizeof abs, "%s", o->dumps[i].path);
      else
        snprintf(abs + strlen(abs), sizeof abs - strlen(abs), "/%s", o->dumps[i].path);
      fprintf(f.fp, "dump %s %s\n", o->dumps[i].name, abs);
    }
    if (extra) /* --gpu-mode inline: the counter buffer and its dump */
      fputs(extra, f.fp);
    if (time_runs)
      fprintf(f.fp, "time %u time.txt\n", time_runs);
    if (rc != CC_OK)
      cc_outfile_abort(&f);
    else
      rc = cc_outfile_commit(&f, err);
  }
  free(path);
  return rc;
}

/* PTX text of INPUT: .ptx as is, .cu through nvcc (as the emulator's run). */
static int ptx_text(const struct cc_run_opts *o, char **text, size_t *len, struct cc_err *err)
{
  size_t n = strlen(o->input);
  if (n > 4 && strcmp(o->input + n - 4, ".ptx") == 0)
    return cc_file_read(o->input, text, len, err);
  if (n > 3 && strcmp(o->input + n - 3, ".cu") == 0) {
    char *nvcc = cc_cli_find_nvcc();
    int rc;
    if (access(o->input, R_OK) != 0) {
      free(nvcc);
      return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", o->input, strerror(errno));
    }
    rc = cc_cli_nvcc_compile(nvcc, o->input, o->nvcc_flags, text, len, err);
    free(nvcc);
    return rc;
  }
  return cc_err_set(err, CC_ERR_USAGE, "cannot tell what '%s' is; INPUT must be a CUDA "
                    "source (.cu), PTX (.ptx) or, for the gpu backend, an executable",
                    o->input);
}

static int check(const struct cc_run_opts *o, struct cc_err *err)
{
  int rc = cc_cli_check_input(o->input, err);
  if (rc != CC_OK)
    return rc;
  if (!o->grid[0] || !o->block[0])
    return cc_err_set(err, CC_ERR_USAGE, "missing --grid or --block: the launch needs both");
  if (o->arch && strcmp(o->arch, "sm_90") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "--arch %s: the gpu backend measures the GPU it runs "
                      "on (sm_90 rules); drop --arch or use --backend emu", o->arch);
  if (o->trace_path)
    return cc_err_set(err, CC_ERR_USAGE, "--trace: the gpu backend keeps no access trace; use "
                      "--backend emu");
  return CC_OK;
}

static int run_native(const char *launcher, const char *dir, struct cc_err *err);

/* --gpu-mode inline: the plan's lines for the counter buffer (the kernel's parameter
 * nparams, zero-filled, dumped to counters.bin in the plan's folder). */
static void inline_plan_lines(const struct ptx_inst_map *map, uint32_t nparams, char *buf,
                              size_t cap)
{
  uint64_t bytes = ptx_inst_counter_bytes(map), h = cc_fnv1a64_zeros(bytes);
  snprintf(buf, cap, "param %u buffer %016llx cc_counters=u64[%llu]:zero\n"
           "dump cc_counters counters.bin\n", nparams, (unsigned long long)h,
           (unsigned long long)(bytes / 8));
}

/* --gpu-mode inline: runs the instrumented plan in dir natively, turns the counters into
 * the library's JSON and reports it like run_plan. */
static int run_inline(const char *dir, const struct cc_run_opts *o, const struct ptx_module *m,
                      const struct ptx_function *k, const struct ptx_inst_map *map, FILE *out,
                      struct cc_err *err)
{
  char *launcher, *counters = cc_xmalloc(strlen(dir) + 16), *json = cc_xmalloc(strlen(dir) + 16);
  uint32_t grid[3], block[3];
  int rc;
  sprintf(counters, "%s/counters.bin", dir);
  sprintf(json, "%s/gpu.json", dir);
  for (int i = 0; i < 3; i++) {
    grid[i] = o->grid[i] ? o->grid[i] : 1;
    block[i] = o->block[i] ? o->block[i] : 1;
  }
  if (!(launcher = cc_cli_gpu_find_file("COALCHECK_GPU_LAUNCH", "coalcheck-gpu-launch", err)))
    rc = err->status;
  else if ((rc = run_native(launcher, dir, err)) == CC_OK &&
           (rc = cc_cli_gpu_inline_json(counters, m, k, map, grid, block, json, err)) == CC_OK) {
    struct cc_cli_gpu_outputs go = {o->json_path, o->html_path, NULL, o->input, o->top};
    rc = cc_cli_gpu_report(json, &go, out, err);
  }
  unlink(counters);
  unlink(json);
  free(launcher);
  free(counters);
  free(json);
  return rc;
}

/* Runs the plan in dir under the library and reports. */
static int run_plan(const char *dir, const struct cc_run_opts *o, FILE *out, struct cc_err *err)
{
  struct cc_cli_gpu_files files;
  char *launcher, *plan, *json;
  int rc, ws = 0, st;
  if (!(launcher = cc_cli_gpu_find_file("COALCHECK_GPU_LAUNCH", "coalcheck-gpu-launch", err)))
    return err->status;
  if ((rc = cc_cli_gpu_files_find(&files, o->quiet, err)) != CC_OK) {
    free(launcher);
    return rc;
  }
  plan = cc_xmalloc(strlen(dir) + 16);
  json = cc_xmalloc(strlen(dir) + 16);
  sprintf(plan, "%s/plan", dir);
  sprintf(json, "%s/gpu.json", dir);
  {
    char *child[] = {launcher, plan, NULL};
    rc = cc_cli_gpu_spawn(child, &files, json, NULL, &ws, err);
  }
  if (rc == CC_OK && (st = cc_cli_gpu_exit_status(ws)) != 0)
    rc = cc_err_set(err, st == 10 ? (enum cc_status)CC_CLI_EXIT_NO_GPU : CC_ERR_TOOL,
                    "the gpu launch failed (coalcheck-gpu-launch exit status %d, its message "
                    "above)", st);
  if (rc == CC_OK) {
    struct cc_cli_gpu_outputs go = {o->json_path, o->html_path, NULL, o->input, o->top};
    rc = cc_cli_gpu_report(json, &go, out, err);
  }
  unlink(json);
  free(plan);
  free(json);
  free(launcher);
  cc_cli_gpu_files_release(&files);
  return rc;
}

int cc_cli_run_gpu(const struct cc_run_opts *o, FILE *out, struct cc_err *err)
{
  struct ptx_module *m = NULL;
  const struct ptx_function *k;
  struct host_alloc h = {NULL, 0};
  struct cc_launch_allocator alloc = {&h, host_alloc_fn, cc_cli_max_memory(o), 0};
  struct cc_launch_bound b;
  const char *keep = getenv("COALCHECK_GPU_PLAN");
  char *text = NULL, *dir = NULL, *itext = NULL, extra[256];
  size_t len = 0, ilen = 0;
  struct ptx_inst_map map = {0};
  int rc;
  memset(&b, 0, sizeof b);
  /* the GPU first (cheap), before nvcc and the buffers; a plan to keep needs none */
  if ((rc = check(o, err)) != CC_OK ||
      (!(keep && *keep) && (rc = cc_cli_gpu_probe(err)) != CC_OK) ||
      (rc = ptx_text(o, &text, &len, err)) != CC_OK ||
      (rc = ptx_parse(text, len, o->input, &m, err)) != CC_OK ||
      (rc = cc_cli_find_kernel(m, o->kernel, &k, err)) != CC_OK ||
      (rc = cc_launch_bind(o->args, o->nargs, k, &alloc, &b, err)) != CC_OK)
    goto done;
  for (size_t i = 0; i < o->ndumps; i++)
    if (!cc_launch_find_buffer(&b, o->dumps[i].name)) {
      rc = cc_err_set(err, CC_ERR_USAGE, "--dump %s=%s: no buffer argument is called '%s'",
                      o->dumps[i].name, o->dumps[i].path, o->dumps[i].name);
      goto done;
    }
  if (keep && *keep) {
    if (mkdir(keep, 0777) != 0 && errno != EEXIST) {
      rc = cc_err_set(err, CC_ERR_IO, "cannot create %s: %s", keep, strerror(errno));
      goto done;
    }
    dir = cc_xstrdup(keep);
  } else {
    if (!(dir = cc_tmpdir_make(err))) {
      rc = err->status;
      goto done;
    }
  }
  if (o->gpu_inline) { /* the counters written into the PTX (src/ptx/instrument.h) */
    if ((rc = cc_cli_gpu_inline_ptx(m, o->sample_ctas, &itext, &ilen, &map, err)) != CC_OK)
      goto done;
    inline_plan_lines(&map, b.nparams, extra, sizeof extra);
  }
  if ((rc = write_plan(dir, o, itext ? itext : text, itext ? ilen : len, k->name, &b, 0,
                       itext ? extra : NULL, err)) != CC_OK)
    goto done;
  if (keep && *keep) { /* COALCHECK_GPU_PLAN: prepare only, run elsewhere */
    if (!o->quiet)
      fprintf(stderr, "coalcheck: wrote the launch plan %s/plan; run coalcheck-gpu-launch on "
              "it under libcoalcheck_gpu.so\n", dir);
    goto done;
  }
  rc = o->gpu_inline ? run_inline(dir, o, m, k, &map, out, err) : run_plan(dir, o, out, err);
done:
  if (dir && !(keep && *keep)) {
    char *p = cc_xmalloc(strlen(dir) + 16);
    sprintf(p, "%s/plan", dir);
    unlink(p);
    sprintf(p, "%s/kernel.ptx", dir);
    unlink(p);
    free(p);
    rmdir(dir);
  }
  free(dir);
  cc_launch_bound_release(&b);
  host_free(&h);
  ptx_inst_map_release(&map);
  if (m)
    ptx_module_free(m);
  free(text);
  free(itext);
  return rc;
}

/* ---- timing for `coalcheck fix --backend gpu` ------------------------------------------ */

/* Runs the launcher on dir/plan without the injection library (native speed), standard
 * output and error inherited. */
static int run_native(const char *launcher, const char *dir, struct cc_err *err)
{
  char *plan = cc_xmalloc(strlen(dir) + 16);
  char *child[] = {(char *)launcher, plan, NULL};
  pid_t pid;
  int ws = 0, rc;
  sprintf(plan, "%s/plan", dir);
  rc = posix_spawn(&pid, launcher, NULL, NULL, child, environ);
  if (rc == 0 && waitpid(pid, &ws, 0) < 0)
    rc = errno;
  free(plan);
  if (rc != 0)
    return cc_err_set(err, CC_ERR_TOOL, "cannot run %s: %s", launcher, strerror(rc));
  if (cc_cli_gpu_exit_status(ws) != 0)
    return cc_err_set(err, cc_cli_gpu_exit_status(ws) == 10 ? (enum cc_status)CC_CLI_EXIT_NO_GPU
                      : CC_ERR_TOOL, "the timed gpu launch failed (coalcheck-gpu-launch exit "
                      "status %d, its message above)", cc_cli_gpu_exit_status(ws));
  return CC_OK;
}

int cc_cli_gpu_time(const char *ptx, size_t len, const char *mangled, const uint32_t grid[3],
                    const uint32_t block[3], uint32_t shared, const struct cc_launch_arg *args,
                    size_t nargs, unsigned runs, double *ms, struct cc_err *err)
{
  struct ptx_module *m = NULL;
  const struct ptx_function *k;
  struct host_alloc h = {NULL, 0};
  struct cc_launch_allocator alloc = {&h, host_alloc_fn, 0, 0};
  struct cc_launch_bound b;
  struct cc_run_opts o;
  char *dir = NULL, *launcher = NULL, *path = NULL, *text = NULL;
  int rc;
  memset(&b, 0, sizeof b);
  memset(&o, 0, sizeof o);
  memcpy(o.grid, grid, sizeof o.grid);
  memcpy(o.block, block, sizeof o.block);
  o.shared_bytes = shared;
  o.args = (struct cc_launch_arg *)args;
  o.nargs = nargs;
  if ((rc = ptx_parse(ptx, len, "timed kernel", &m, err)) != CC_OK)
    goto done;
  if (!(k = ptx_module_find(m, mangled))) {
    rc = cc_err_set(err, CC_ERR_INTERNAL, "no kernel %s to time", mangled);
    goto done;
  }
  if ((rc = cc_launch_bind(args, nargs, k, &alloc, &b, err)) != CC_OK)
    goto done;
  if (!(launcher = cc_cli_gpu_find_file("COALCHECK_GPU_LAUNCH", "coalcheck-gpu-launch", err)) ||
      !(dir = cc_tmpdir_make(err))) {
    rc = err->status;
    goto done;
  }
  if ((rc = write_plan(dir, &o, ptx, len, mangled, &b, runs, NULL, err)) != CC_OK ||
      (rc = run_native(launcher, dir, err)) != CC_OK)
    goto done;
  path = cc_xmalloc(strlen(dir) + 16);
  sprintf(path, "%s/time.txt", dir);
  if ((rc = cc_file_read(path, &text, NULL, err)) == CC_OK && sscanf(text, "%lf", ms) != 1)
    rc = cc_err_set(err, CC_ERR_TOOL, "%s: no time in it", path);
done:
  if (dir) {
    static const char *const names[] = {"plan", "kernel.ptx", "time.txt"};
    char *p = cc_xmalloc(strlen(dir) + 16);
    for (size_t i = 0; i < 3; i++) {
      sprintf(p, "%s/%s", dir, names[i]);
      unlink(p);
    }
    free(p);
    rmdir(dir);
  }
  free(dir);
  free(launcher);
  free(path);
  free(text);
  cc_launch_bound_release(&b);
  host_free(&h);
  if (m)
    ptx_module_free(m);
  return rc;
}
