/* `coalcheck [options] EXECUTABLE [ARGS...]` (the executable mode) and `coalcheck import
 * GPU.json`: run an unmodified CUDA application under the GPU backend's injection library
 * (LD_PRELOAD of libcoalcheck_gpu.so), then import its JSON and print the usual report.
 * Options come before the EXECUTABLE; everything after it is the application's. See
 * gpu.h and docs/usage.md ("GPU backend"). */
#include "cli/gpu.h"
#include "cli/cli_impl.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "access/trace.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "util/fileio.h"
#include "util/mem.h"
#include "view/view.h"

extern char **environ;

/* What the executable mode and `import` take. Strings borrowed from argv. */
struct app_opts {
  const char *backend;      /* "gpu" (default) or "emu" */
  const char *regex, *skip, *count; /* ncu-style launch selection: --kernel-name, */
  const char *name_base, *kernel_id; /* --launch-skip, --launch-count, ... (select.c) */
  const char *json;         /* --json: coalcheck's report (schema of docs/json-schema.md) */
  const char *html;         /* --html: the views page (docs/views.md) */
  const char *gpu_json;     /* --gpu-json: keep the library's own JSON here */
  const char *trace;        /* --trace: the GPU trace converted into this .cctrace */
  const char *sample;       /* --sample-ctas N: 1 CTA in N counted and traced */
  const char *spaces;       /* --spaces LIST: memory spaces patched (default all) */
  const char *gpu_mode;     /* --gpu-mode inline|sanitizer (default: inline_mode below) */
  int inline_mode;          /* inline PTX counters (libcoalcheck_inline.so), not the
                               Compute Sanitizer: the default unless --trace, --spaces
                               or a launch selection needs the Sanitizer's library */
  char *expanded[4];        /* owned: --json, --gpu-json, --trace, --html with the Nsight
                               patterns expanded (outname.c); the four above point at them */
  uint32_t top;
  int quiet, help;
  int exact;                /* --exact: every launch counted (COALCHECK_GPU_EXACT=1) */
  int input;                /* argv index of the EXECUTABLE (or GPU.json); 0: none */
};

/* Where the value of each option with a value goes (which options this mode takes, and
 * their help, is options.c's table: cc_cli_app_option); --top is parsed apart. */
static const char **slot(struct app_opts *o, const char *name)
{
  static const char *const names[] = {"--backend", "--kernel-name", "--launch-skip",
                                      "--launch-count", "--json", "--gpu-json", "--trace",
                                      "--sample-ctas", "--spaces", "--kernel-name-base",
                                      "--kernel-id", "--html", "--gpu-mode"};
  const char **slots[] = {&o->backend, &o->regex, &o->skip, &o->count, &o->json,
                          &o->gpu_json, &o->trace, &o->sample, &o->spaces, &o->name_base,
                          &o->kernel_id, &o->html, &o->gpu_mode};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0)
      return slots[i];
  CC_BUG("option %s of the executable mode has no slot in app.c", name);
}

/* A non-negative decimal integer (what ncu's --launch-skip takes). */
static int is_count(const char *s)
{
  if (!*s)
    return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return 0;
  return 1;
}

/* Expands the Nsight patterns of the output names (--json, --gpu-json, --trace, --html)
 * into o->expanded and points the options at them. Errors: those of cc_cli_expand_path. */
static int expand_outputs(struct app_opts *o, struct cc_err *err)
{
  const char **slots[4] = {&o->json, &o->gpu_json, &o->trace, &o->html};
  static const char *const names[4] = {"--json", "--gpu-json", "--trace", "--html"};
  for (int i = 0; i < 4; i++) {
    int rc;
    if (!*slots[i])
      continue;
    if ((rc = cc_cli_expand_path(names[i], *slots[i], &o->expanded[i], err)) != CC_OK)
      return rc;
    *slots[i] = o->expanded[i];
  }
  return CC_OK;
}

static void app_opts_release(struct app_opts *o)
{
  for (int i = 0; i < 4; i++)
    free(o->expanded[i]);
  memset(o->expanded, 0, sizeof o->expanded);
}

/* The launch selection options of o. */
static struct cc_cli_selection selection(const struct app_opts *o)
{
  return (struct cc_cli_selection){o->regex, o->name_base, o->kernel_id, o->skip, o->count};
}

/* Sets o->inline_mode from --gpu-mode, or by default: inline counters unless an option
 * only the Sanitizer library implements is given (--trace, --spaces, launch selection).
 * Errors: CC_ERR_USAGE for another mode, or inline with such an option. */
static int choose_mode(struct app_opts *o, struct cc_err *err)
{
  const char *needs = o->trace ? "--trace" : o->spaces ? "--spaces" :
                      o->regex ? "--kernel-name" : o->name_base ? "--kernel-name-base" :
                      o->kernel_id ? "--kernel-id" : o->skip ? "--launch-skip" :
                      o->count ? "--launch-count" : NULL;
  if (o->gpu_mode && strcmp(o->gpu_mode, "inline") != 0 &&
      strcmp(o->gpu_mode, "sanitizer") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --gpu-mode: expected sanitizer "
                      "or inline", o->gpu_mode);
  if (o->gpu_mode && strcmp(o->gpu_mode, "inline") == 0 && needs)
    return cc_err_set(err, CC_ERR_USAGE, "%s needs --gpu-mode sanitizer with an executable "
                      "(the inline counters do not trace, patch by space or select "
                      "launches); drop --gpu-mode inline", needs);
  o->inline_mode = o->gpu_mode ? strcmp(o->gpu_mode, "inline") == 0 : !needs;
  return CC_OK;
}

/* Reads options up to the first word that is not one (the INPUT). Errors: CC_ERR_USAGE
 * for an option this mode does not take, one without its value, or a bad value. */
static int parse(int argc, char **argv, struct app_opts *o, struct cc_err *err)
{
  memset(o, 0, sizeof *o);
  o->backend = "gpu";
  for (int i = 1; i < argc; i++) {
    char name[32];
    const char *a = argv[i], *value = NULL, *eq;
    size_t n;
    if (strcmp(a, "--") == 0) {
      o->input = i + 1 < argc ? i + 1 : 0;
      break;
    }
    if (a[0] != '-' || a[1] == '\0') {
      o->input = i;
      break;
    }
    if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
      continue;
    }
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      o->help = 1;
      continue;
    }
    if (strcmp(a, "--exact") == 0) {
      o->exact = 1;
      continue;
    }
    eq = strchr(a, '=');
    n = eq ? (size_t)(eq - a) : strlen(a);
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), a);
    if (n >= sizeof name || cc_cli_app_option(name) != 1)
      return cc_err_set(err, CC_ERR_USAGE, "option '%s' is not taken with an executable INPUT; "
                        "put coalcheck's options before the executable ('coalcheck --help "
                        "./app' lists them)", a);
    if (eq)
      value = eq + 1;
    else if (i + 1 < argc)
      value = argv[++i];
    else
      return cc_err_set(err, CC_ERR_USAGE, "option %s needs a value", name);
    if (strcmp(name, "--top") == 0) {
      if (!is_count(value) || strlen(value) > 9)
        return cc_err_set(err, CC_ERR_USAGE, "--top %s: not a count; give the number of "
                          "instructions to show per kernel (0: all)", value);
      o->top = (uint32_t)strtoul(value, NULL, 10);
    } else {
      *slot(o, name) = value;
    }
  }
  if (strcmp(o->backend, "gpu") != 0 && strcmp(o->backend, "emu") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "--backend %s: unknown backend; use emu or gpu",
                      o->backend);
  if (o->sample && (!is_count(o->sample) || strlen(o->sample) > 9 ||
                    strtoul(o->sample, NULL, 10) == 0))
    return cc_err_set(err, CC_ERR_USAGE, "--sample-ctas %s: not a positive integer; give N "
                      "to count and trace 1 CTA in N (linear CTA id %% N == 0)", o->sample);
  int rc = choose_mode(o, err);
  if (rc != CC_OK)
    return rc;
  uint32_t mask;
  rc = cc_gpu_spaces_parse(o->spaces, &mask, err); /* the library reads it again */
  if (rc != CC_OK)
    return rc;
  { /* the selection is checked here, with the options named; the library reads it again */
    struct cc_cli_selection sel = selection(o);
    struct cc_gpu_filter_spec spec;
    struct cc_gpu_filter f;
    cc_cli_selection_spec(&sel, &spec);
    rc = cc_gpu_filter_init_spec(&f, &spec, err);
    cc_gpu_filter_release(&f);
    if (rc != CC_OK)
      return rc;
  }
  return expand_outputs(o, err);
}

/* The executable named by INPUT: as given when it has a '/', else looked up in PATH
 * (like a shell); owned, or NULL when there is no such file. */
static char *resolve(const char *input)
{
  if (strchr(input, '/'))
    return access(input, F_OK) == 0 ? cc_xstrdup(input) : NULL;
  if (access(input, F_OK) == 0 && cc_cli_is_elf(input)) { /* ./app given as app */
    char *p = cc_xmalloc(strlen(input) + 3);
    sprintf(p, "./%s", input);
    return p;
  }
  return cc_cli_find_program(input, getenv("PATH"), NULL);
}

int cc_cli_app_wanted(int argc, char **argv)
{
  struct app_opts o;
  struct cc_err err = {CC_OK, ""};
  char *exe;
  int yes;
  if (parse(argc, argv, &o, &err) != CC_OK && !o.input)
    return 0;
  if (!o.input)
    return 0;
  exe = resolve(argv[o.input]);
  yes = exe && cc_cli_is_elf(exe);
  free(exe);
  app_opts_release(&o);
  return yes;
}

static void print_help(void)
{
  printf("usage: coalcheck [options] EXECUTABLE [ARGS...]\n"
         "       coalcheck import GPU.json [--json PATH] [--html PATH] [--top N]\n"
         "       coalcheck import RUN.ccgpu --trace FILE.cctrace [--html PATH]\n\n"
         "Runs the CUDA application on the GPU under libcoalcheck_inline.so (inline PTX\n"
         "counters; --gpu-mode sanitizer: libcoalcheck_gpu.so) by LD_PRELOAD and\n"
         "reports its global and shared memory accesses per SASS instruction and source line\n"
         "(build the application with -lineinfo). libsanitizer-public.so is taken from the\n"
         "CUDA toolkit: $CUDA_HOME, nvcc's on PATH, /usr/local/cuda (compute-sanitizer/).\n"
         "Exit status: the application's; 10 when no CUDA GPU is usable.\n"
         "\noptions (before the EXECUTABLE):\n");
  cc_cli_print_options_app(stdout, 0);
}

/* Runs exe with args under the library; *status: the wait status. */
static int spawn_app(char **argv, int *status, struct cc_err *err)
{
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0)
    return cc_err_set(err, CC_ERR_TOOL, "cannot run %s: %s; check that it is executable",
                      argv[0], strerror(rc));
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR)
      return cc_err_set(err, CC_ERR_INTERNAL, "waitpid failed: %s", strerror(errno));
  return CC_OK;
}

/* Puts first in the colon list of variable name; returns its old value (owned, or NULL
 * when unset) for put_back. */
static char *put_first(const char *name, const char *first)
{
  const char *old = getenv(name);
  char *saved = old ? cc_xstrdup(old) : NULL;
  char *list = cc_xmalloc(strlen(first) + (old ? strlen(old) : 0) + 2);
  sprintf(list, "%s%s%s", first, old && *old ? ":" : "", old && *old ? old : "");
  setenv(name, list, 1);
  free(list);
  return saved;
}

/* Restores variable name to saved (NULL: unset) and frees saved. */
static void put_back(const char *name, char *saved)
{
  if (saved)
    setenv(name, saved, 1);
  else
    unsetenv(name);
  free(saved);
}

int cc_cli_gpu_spawn(char **child, const struct cc_cli_gpu_files *f, const char *json,
                     const struct cc_cli_selection *sel, int *status, struct cc_err *err)
{
  /* the library first in the list (one Sanitizer subscriber per process); its
   * libsanitizer-public.so from the toolkit found (src/gpu/README.md, "Installing") */
  char *saved_preload = put_first("LD_PRELOAD", f->lib);
  char *saved_libpath = f->san_dir ? put_first("LD_LIBRARY_PATH", f->san_dir) : NULL;
  int rc;
  setenv("COALCHECK_GPU_JSON", json, 1);
  setenv("COALCHECK_GPU_QUIET", "1", 1);
  if (sel)
    cc_cli_selection_setenv(sel);
  rc = spawn_app(child, status, err);
  /* nothing else this process starts is traced */
  put_back("LD_PRELOAD", saved_preload);
  if (f->san_dir)
    put_back("LD_LIBRARY_PATH", saved_libpath);
  return rc;
}

/* The application's exit status as a shell gives it: the code, or 128 + signal. */
int cc_cli_gpu_exit_status(int ws)
{
  if (WIFEXITED(ws))
    return WEXITSTATUS(ws);
  if (WIFSIGNALED(ws))
    return 128 + WTERMSIG(ws);
  return 1;
}

/* A sink that names each kernel as the emulator and the in-situ import do (the source
 * name, "transpose" for "_Z9transposePfPKfi") and passes everything on. */
struct source_named_sink {
  struct cc_access_sink inner;
  struct cc_kernel_info info; /* the renamed copy; lives until the next kernel */
  char *name;                 /* owned */
};

static int source_named_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct source_named_sink *s = ctx;
  free(s->name);
  s->name = k->mangled ? cc_cli_source_name(k->mangled) : NULL;
  s->info = *k;
  if (s->name)
    s->info.name = s->name;
  return s->inner.begin_kernel(s->inner.ctx, &s->info, err);
}

static int source_named_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct source_named_sink *s = ctx;
  return s->inner.access(s->inner.ctx, a, err);
}

static int source_named_end(void *ctx, struct cc_err *err)
{
  struct source_named_sink *s = ctx;
  return s->inner.end_kernel(s->inner.ctx, err);
}

/* Converts the library's GPU trace raw (.ccgpu, gpu.h) into the .cctrace out, whole or
 * not at all, the records also fed to the sink also unless it is NULL (--html: the
 * views' collector); says on stderr how much and whether CTAs were sampled. */
static int convert_trace(const char *raw, const char *out, const char *origin, int quiet,
                         const struct cc_access_sink *also, struct cc_err *err)
{
  struct cc_trace_writer *w;
  struct cc_access_sink sink, both[2];
  struct cc_access_tee tee = {both, 2};
  struct cc_gpu_raw_summary sum;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "coalcheck GPU trace of %s", origin);
  const char *inputs[] = {raw, origin};
  struct cc_trace_writer_opts opts = {.command_line = cmd, .inputs = inputs, .n_inputs = 2};
  struct source_named_sink named = {.name = NULL};
  int rc = cc_trace_writer_open(out, &opts, &w, &both[0], err);
  if (rc != CC_OK)
    return rc;
  if (also) { /* it sees the records as the trace does: named by source name */
    both[1] = *also;
    named.inner = cc_access_tee(&tee);
  } else {
    named.inner = both[0];
  }
  sink = (struct cc_access_sink){&named, source_named_begin, source_named_access,
                                 source_named_end};
  rc = cc_gpu_raw_convert(raw, &sink, &sum, err);
  free(named.name);
  if (rc != CC_OK) {
    cc_trace_writer_abort(w);
    return rc;
  }
  if ((rc = cc_trace_writer_close(w, err)) != CC_OK)
    return rc;
  if (sum.sample > 1)
    fprintf(stderr, "coalcheck: note: CTA sampling: the trace holds only CTAs whose linear "
            "id %% %u == 0 (1 in %u); its figures cover that sample\n", sum.sample,
            sum.sample);
  if (!quiet)
    fprintf(stderr, "coalcheck: trace: %llu warp records of %llu launches in %s\n",
            (unsigned long long)sum.records, (unsigned long long)sum.kernels, out);
  return CC_OK;
}

/* cc_cli_cmd_app; *passthrough set when the status is the application's own. */
static int run_app(int argc, char **argv, struct cc_err *err, int *passthrough);

/* The outputs (--json, --gpu-json, --trace) against INPUT and each other, before anything
 * runs (--gpu-json is removed first: naming the executable would delete it). */
static int check_app_paths(const struct app_opts *o, const char *input, struct cc_err *err)
{
  const struct cc_cli_path in[] = {{"INPUT", input}};
  const struct cc_cli_path out[] = {{"--json", o->json}, {"--gpu-json", o->gpu_json},
                                    {"--trace", o->trace}, {"--html", o->html}};
  return cc_cli_check_paths(in, 1, out, 4, err);
}

int cc_cli_cmd_app(int argc, char **argv, struct cc_err *err)
{
  int passthrough;
  return run_app(argc, argv, err, &passthrough);
}

int cc_cli_app_main(int argc, char **argv)
{
  struct cc_err err = {CC_OK, ""};
  int passthrough = 0;
  int rc = run_app(argc, argv, &err, &passthrough);
  if (fflush(stdout) != 0 && rc == CC_OK)
    rc = cc_err_set(&err, CC_ERR_IO, "cannot write to standard output");
  if (rc != CC_OK) {
    fprintf(stderr, "coalcheck: error: %s\n", err.msg[0] ? err.msg : cc_status_name(rc));
    if (rc == CC_ERR_USAGE && !passthrough)
      fputs("hint: coalcheck's options come before the executable; 'coalcheck --help "
            "./app' lists them\n", stderr);
  }
  return rc;
}

static int run_app(int argc, char **argv, struct cc_err *err, int *passthrough)
{
  struct app_opts o;
  char *exe = NULL, *dir = NULL, *json = NULL, *raw = NULL;
  struct cc_cli_gpu_files files = {NULL, NULL, NULL};
  struct cc_view *view = NULL;
  int rc, ws = 0, app_rc;
  *passthrough = 0;
  if ((rc = parse(argc, argv, &o, err)) != CC_OK) {
    app_opts_release(&o);
    return rc;
  }
  if (o.help) {
    print_help();
    app_opts_release(&o);
    return CC_OK;
  }
  if (!o.input || !(exe = resolve(argv[o.input]))) {
    app_opts_release(&o);
    return cc_err_set(err, CC_ERR_USAGE, "no executable given, or '%s' not found",
                      o.input ? argv[o.input] : "");
  }
  if ((rc = check_app_paths(&o, exe, err)) != CC_OK)
    goto done;
  if (strcmp(o.backend, "emu") == 0) {
    rc = cc_err_set(err, CC_ERR_USAGE, "%s is an executable: the emulator cannot run "
                    "executables yet; use --backend gpu on a machine with a CUDA GPU, or "
                    "pass the kernel (KERNEL.cu or .ptx) with a launch spec", exe);
    goto done;
  }
  if ((rc = cc_cli_gpu_probe(err)) != CC_OK) {
    cc_err_prefix(err, "%s is an executable, which only the gpu backend runs (the emulator "
                  "cannot run executables yet)", exe);
    goto done;
  }
  if (o.inline_mode) { /* no Compute Sanitizer: the library alone */
    if (!(files.lib = cc_cli_gpu_find_file("COALCHECK_GPU_INLINE_LIB",
                                           "libcoalcheck_inline.so", err))) {
      rc = err->status;
      goto done;
    }
    if (!o.quiet)
      fprintf(stderr, "coalcheck: GPU library %s (inline counters)\n", files.lib);
  } else if ((rc = cc_cli_gpu_files_find(&files, o.quiet, err)) != CC_OK) {
    goto done;
  }
  if (o.gpu_json && !o.trace) {
    json = cc_xstrdup(o.gpu_json);
    cc_outfile_remove_stale(json); /* an earlier run's report must not pass for this one */
  } else {
    if (!(dir = cc_tmpdir_make(err))) {
      rc = err->status;
      goto done;
    }
    json = cc_xmalloc(strlen(dir) + sizeof "/gpu.json");
    sprintf(json, "%s/gpu.json", dir);
    if (o.gpu_json) { /* the temporary folder holds the trace; the JSON goes where asked */
      free(json);
      json = cc_xstrdup(o.gpu_json);
      cc_outfile_remove_stale(json);
    }
    if (o.trace) {
      raw = cc_xmalloc(strlen(dir) + sizeof "/gpu.ccgpu");
      sprintf(raw, "%s/gpu.ccgpu", dir);
    }
  }
  if (!o.quiet)
    fprintf(stderr, "coalcheck: running %s on the GPU\n", exe);
  {
    char **child = argv + o.input;
    char *saved = child[0];
    child[0] = exe; /* the resolved path; argv[0] of the app as given otherwise */
    /* trace mode and sampling reach the library through its environment, for this child
     * only */
    if (raw)
      setenv("COALCHECK_GPU_TRACE", raw, 1);
    if (o.sample)
      setenv("COALCHECK_GPU_SAMPLE_CTAS", o.sample, 1);
    if (o.spaces)
      setenv("COALCHECK_GPU_SPACES", o.spaces, 1);
    if (o.exact)
      setenv("COALCHECK_GPU_EXACT", "1", 1);
    {
      struct cc_cli_selection sel = selection(&o);
      rc = cc_cli_gpu_spawn(child, &files, json, &sel, &ws, err);
    }
    unsetenv("COALCHECK_GPU_TRACE");
    unsetenv("COALCHECK_GPU_SAMPLE_CTAS");
    unsetenv("COALCHECK_GPU_SPACES");
    unsetenv("COALCHECK_GPU_EXACT");
    child[0] = saved;
  }
  if (rc != CC_OK)
    goto done;
  app_rc = cc_cli_gpu_exit_status(ws);
  if (access(json, R_OK) != 0) {
    rc = cc_err_set(err, CC_ERR_TOOL, "%s exited with status %d and wrote no GPU report: it "
                    "ran no CUDA kernel, or died before its exit handlers ran", exe, app_rc);
    goto done;
  }
  if (raw && access(raw, R_OK) != 0) {
    rc = cc_err_set(err, CC_ERR_TOOL, "%s exited with status %d and wrote no GPU trace: "
                    "see the library's error above", exe, app_rc);
    goto done;
  }
  /* trace mode with --html: the records feed the views as they are converted (the GPU
   * report is sm_90's, so are the views) */
  if (raw && o.html && (rc = cc_view_new("sm_90", NULL, &view, err)) != CC_OK)
    goto done;
  if (raw) {
    struct cc_access_sink vs;
    if (view)
      vs = cc_view_sink(view);
    if ((rc = convert_trace(raw, o.trace, exe, o.quiet, view ? &vs : NULL, err)) != CC_OK)
      goto done;
  }
  if (o.sample)
    fprintf(stderr, "coalcheck: note: CTA sampling: only CTAs whose linear id %% %s == 0 "
            "were counted; the figures below cover that sample\n", o.sample);
  {
    struct cc_cli_gpu_outputs go = {o.json, o.html, view, exe, o.top};
    if ((rc = cc_cli_gpu_report(json, &go, stdout, err)) != CC_OK)
      goto done;
  }
  *passthrough = 1;
  if (app_rc != 0)
    rc = cc_err_set(err, (enum cc_status)app_rc, "%s exited with status %d (the report "
                    "covers the kernels that completed)", exe, app_rc);
done:
  if (dir) {
    if (!o.gpu_json)
      unlink(json);
    if (raw)
      unlink(raw);
    rmdir(dir);
  }
  free(raw);
  free(dir);
  free(json);
  cc_view_free(view);
  cc_cli_gpu_files_release(&files);
  free(exe);
  app_opts_release(&o);
  return rc;
}

static int import_run(int argc, char **argv, const struct app_opts *o, struct cc_err *err);

/* `import RUN.ccgpu --trace FILE.cctrace --html PAGE`: the conversion, its records fed to
 * the views and to an sm_90 analysis (the GPU's model) on the way: PAGE has every view
 * and the records' report, as the executable mode's trace mode gives them. */
static int import_trace_page(const struct app_opts *o, const char *raw, struct cc_err *err)
{
  struct cc_model *m = NULL;
  struct cc_analysis *an = NULL;
  struct cc_view *view = NULL;
  struct cc_access_sink sinks[2], tee_sink;
  struct cc_access_tee tee = {sinks, 2};
  int rc = cc_model_get("sm_90", NULL, &m, err);
  if (rc == CC_OK && (rc = cc_view_new("sm_90", NULL, &view, err)) == CC_OK) {
    an = cc_analysis_new(m);
    sinks[0] = cc_analysis_sink(an);
    sinks[1] = cc_view_sink(view);
    tee_sink = cc_access_tee(&tee);
    rc = convert_trace(raw, o->trace, raw, o->quiet, &tee_sink, err);
  }
  if (rc == CC_OK) {
    struct cc_cli_gpu_outputs go = {NULL, o->html, view, raw, 0};
    rc = cc_cli_gpu_page(o->html, raw, an, &go, err);
  }
  cc_analysis_free(an);
  cc_view_free(view);
  cc_model_free(m);
  return rc;
}

/* Whether word a is an option of this mode that takes its value from the next word. */
static int takes_next(const char *a)
{
  return cc_cli_app_option(a) == 1;
}

int cc_cli_cmd_import(int argc, char **argv, struct cc_err *err)
{
  struct app_opts o;
  /* import takes options before and after its one INPUT: the words are reordered,
   * options first, INPUTs last, for the one parser */
  char **words = cc_xcalloc((size_t)argc + 1, sizeof *words);
  int n = 0, rc;
  words[n++] = argv[0];
  for (int pass = 0; pass < 2; pass++)
    for (int i = 1; i < argc; i++) {
      int is_opt = argv[i][0] == '-' && argv[i][1] != '\0';
      int with_value = is_opt && takes_next(argv[i]) && i + 1 < argc;
      if (is_opt == (pass == 0)) {
        words[n++] = argv[i];
        if (with_value)
          words[n++] = argv[i + 1];
      }
      i += with_value;
    }
  rc = parse(n, words, &o, err);
  if (rc == CC_OK)
    rc = import_run(n, words, &o, err);
  app_opts_release(&o);
  free(words);
  return rc;
}

static int import_run(int argc, char **argv, const struct app_opts *op, struct cc_err *err)
{
  struct app_opts o = *op;
  if (o.help) {
    print_help();
    return CC_OK;
  }
  if (!o.input)
    return cc_err_set(err, CC_ERR_USAGE, "no input given; pass the JSON that "
                      "libcoalcheck_gpu.so wrote to $COALCHECK_GPU_JSON");
  if (o.input + 1 < argc)
    return cc_err_set(err, CC_ERR_USAGE, "import takes one file; '%s' is a second one",
                      argv[o.input + 1]);
  if (check_app_paths(&o, argv[o.input], err) != CC_OK)
    return CC_ERR_USAGE;
  size_t len = strlen(argv[o.input]);
  int is_raw = len > 6 && strcmp(argv[o.input] + len - 6, ".ccgpu") == 0;
  if (is_raw != (o.trace != NULL))
    return cc_err_set(err, CC_ERR_USAGE, is_raw ? "%s is a GPU trace: give --trace "
                      "FILE.cctrace to convert it" : "--trace goes with a GPU trace "
                      "(.ccgpu, from COALCHECK_GPU_TRACE), not with %s", argv[o.input]);
  if (is_raw) {
    if (o.json || o.top || o.sample || o.regex || o.skip || o.count || o.gpu_json ||
        o.name_base || o.kernel_id || o.exact)
      return cc_err_set(err, CC_ERR_USAGE, "import of a GPU trace takes only --trace, --html "
                        "and -q; report the converted trace with `coalcheck report "
                        "FILE.cctrace`");
    if (o.html)
      return import_trace_page(&o, argv[o.input], err);
    return convert_trace(argv[o.input], o.trace, argv[o.input], o.quiet, NULL, err);
  }
  if (o.regex || o.skip || o.count || o.gpu_json || o.sample || o.name_base || o.kernel_id ||
      o.exact ||
      strcmp(o.backend, "gpu") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "import takes only --json, --html, --top and -q: "
                      "the launch filter applies when the application runs");
  {
    struct cc_cli_gpu_outputs go = {o.json, o.html, NULL, argv[o.input], o.top};
    return cc_cli_gpu_report(argv[o.input], &go, stdout, err);
  }
}
