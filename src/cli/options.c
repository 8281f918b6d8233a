/* The main job's options: one table, one parser (command line and launch files), the
 * generated --help. See cli.h and docs/usage.md. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "model/model.h"
#include "report/ci.h"
#include "util/fileio.h"
#include "util/mem.h"

/* Where the words being parsed come from: the command line, or a launch file. */
struct source {
  const char *file;        /* launch file path, or NULL for the command line */
  const uint32_t *lines;   /* line of each word (launch file) */
  const char *base_dir;    /* folder relative paths in the file are taken from, or NULL */
  size_t file_args, file_dumps; /* --arg/--dump entries that came from the launch file */
  uint32_t line;           /* launch file: the line of the option being set */
  enum cc_cli_cmd cmd;     /* the command being parsed */
};

/* Which commands take an option: bits (1u << enum cc_cli_cmd). The launch options are
 * taken by run and record, the report options by run and report. */
#define CMD_BIT(c) (1u << (c))
#define FOR_LAUNCH (CMD_BIT(CC_CLI_CMD_RUN) | CMD_BIT(CC_CLI_CMD_RECORD) | CMD_BIT(CC_CLI_CMD_FIX))
#define FOR_REPORT (CMD_BIT(CC_CLI_CMD_RUN) | CMD_BIT(CC_CLI_CMD_REPORT))
#define FOR_ALL (FOR_LAUNCH | FOR_REPORT)
/* The executable mode (`coalcheck [OPTIONS] ./app [ARGS]`, app.c): app.c parses its words
 * itself; the table says which options it takes (cc_cli_app_option) and gives their help.
 * An option with this bit alone has no set function. */
#define FOR_APP (1u << 16)
/* The launch selection: the executable mode and kernel mode (run, record) alike. */
#define FOR_SELECT (FOR_APP | CMD_BIT(CC_CLI_CMD_RUN) | CMD_BIT(CC_CLI_CMD_RECORD))

struct option {
  const char *name;  /* long name without "--" */
  char short_name;   /* 'q' for -q, or 0 */
  const char *arg;   /* metavariable of the value, or NULL for a flag */
  const char *help;  /* lines separated by '\n' */
  int (*set)(struct cc_run_opts *o, const char *value, const struct source *src,
             struct cc_err *err);
  unsigned cmds;     /* FOR_* or CMD_BIT(cmd): the commands that take it */
};

static int takes(const struct option *op, enum cc_cli_cmd cmd)
{
  return ((op->cmds ? op->cmds : FOR_LAUNCH) & CMD_BIT(cmd)) != 0;
}

static void replace_str(char **dst, const char *value)
{
  free(*dst);
  *dst = value ? cc_xstrdup(value) : NULL;
}

/* A relative path from a launch file, joined to the file's folder; owned. */
static char *from_base(const struct source *src, const char *path)
{
  char *out;
  if (!src->base_dir || !*src->base_dir || path[0] == '/')
    return cc_xstrdup(path);
  out = cc_xmalloc(strlen(src->base_dir) + strlen(path) + 2);
  sprintf(out, "%s/%s", src->base_dir, path);
  return out;
}

/* An output's path into *dst: the Nsight patterns (%q{VAR}, %p, %h, %%) expanded
 * (outname.c), then "-" (standard output, where allow_stdout) as is, else from the launch
 * file's folder when relative. *dst is left as it was on an error. */
static int set_out_path(char **dst, const char *opt, const char *v, int allow_stdout,
                        const struct source *s, struct cc_err *err)
{
  char *path;
  int rc = cc_cli_expand_path(opt, v, &path, err);
  if (rc != CC_OK)
    return rc;
  free(*dst);
  *dst = allow_stdout && strcmp(path, "-") == 0 ? cc_xstrdup(path) : from_base(s, path);
  free(path);
  return CC_OK;
}

/* Decimal (or 0x hex) integer in 1..max (0..max when allow_zero) into *out; on
 * CC_ERR_USAGE *out is left as it was. */
static int parse_uint(const char *opt, const char *value, uint64_t max, int allow_zero,
                      uint64_t *out, struct cc_err *err)
{
  char *end;
  int base = value[0] == '0' && (value[1] == 'x' || value[1] == 'X') ? 16 : 10;
  unsigned long long v;
  if (!isdigit((unsigned char)value[0]))
    goto bad;
  errno = 0;
  v = strtoull(value, &end, base);
  if (errno || *end || v > max || (!allow_zero && v == 0))
    goto bad;
  *out = v;
  return CC_OK;
bad:
  /* a constant status, not cc_err_set's result, so that callers' compilers see that
   * *out is set whenever CC_OK comes back */
  cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --%s: expected an integer in %d..%llu",
             value, opt, allow_zero ? 0 : 1, (unsigned long long)max);
  return CC_ERR_USAGE;
}

/* X[,Y[,Z]] of positive integers within CUDA's limits for opt ("grid" or "block",
 * cc_cli_check_dims); missing components are 1. */
static int parse_dim3(const char *opt, const char *value, uint32_t out[3], struct cc_err *err)
{
  const char *p = value;
  uint64_t d[3] = {1, 1, 1};
  char part[3][32] = {"1", "1", "1"};
  const char *const text[3] = {part[0], part[1], part[2]};
  int rc;
  for (int i = 0; i < 3; i++) {
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof part[i])
      return cc_err_set(err, CC_ERR_USAGE,
                        "bad value '%s' for --%s: expected X[,Y[,Z]], e.g. 32,8", value, opt);
    memcpy(part[i], p, n);
    part[i][n] = '\0';
    if (parse_uint(opt, part[i], UINT64_MAX, 1, &d[i], NULL) != CC_OK) {
      if (strspn(part[i], "0123456789") != n)
        d[i] = 0;
      else /* decimal digits beyond 2^64-1: above every limit (the message shows the text) */
        d[i] = UINT64_MAX;
    }
    if (d[i] == 0)
      return cc_err_set(err, CC_ERR_USAGE,
                        "bad value '%s' for --%s: expected X[,Y[,Z]] of positive integers",
                        value, opt);
    p += n;
    if (*p == '\0')
      break;
    p++;
    if (i == 2)
      return cc_err_set(err, CC_ERR_USAGE,
                        "bad value '%s' for --%s: at most 3 dimensions", value, opt);
  }
  if ((rc = cc_cli_check_dims(opt, d, text, err)) != CC_OK)
    return rc;
  for (int i = 0; i < 3; i++)
    out[i] = (uint32_t)d[i]; /* at most 2^31-1 now */
  return CC_OK;
}

static int set_kernel(struct cc_run_opts *o, const char *v, const struct source *s,
                      struct cc_err *err)
{
  replace_str(&o->kernel, v);
  return CC_OK;
}

static int set_grid(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  return parse_dim3("grid", v, o->grid, err);
}

static int set_block(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  return parse_dim3("block", v, o->block, err);
}

static int set_arg(struct cc_run_opts *o, const char *v, const struct source *s,
                   struct cc_err *err)
{
  struct cc_launch_arg a;
  int rc = cc_launch_arg_parse(v, s->base_dir, &a, err);
  if (rc != CC_OK)
    return rc;
  if (s->file) { /* errors found when binding name the line too */
    a.origin = cc_xmalloc(strlen(s->file) + 16);
    sprintf(a.origin, "%s:%u", s->file, s->line);
  }
  /* the command line wins: an --arg named like one from the launch file replaces it */
  for (size_t i = 0; a.name && !s->file && i < s->file_args; i++) {
    if (o->args[i].name && strcmp(o->args[i].name, a.name) == 0) {
      cc_launch_arg_release(&o->args[i]);
      o->args[i] = a;
      return CC_OK;
    }
  }
  o->args = cc_xrealloc(o->args, (o->nargs + 1) * sizeof *o->args);
  o->args[o->nargs++] = a;
  return CC_OK;
}

static int set_dump(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  const char *eq = strchr(v, '=');
  struct cc_cli_dump d;
  int rc;
  if (!eq || eq == v || eq[1] == '\0')
    return cc_err_set(err, CC_ERR_USAGE, "bad --dump '%s': expected NAME=PATH", v);
  d.path = NULL;
  if ((rc = set_out_path(&d.path, "--dump", eq + 1, 0, s, err)) != CC_OK)
    return rc;
  d.name = cc_xstrndup(v, (size_t)(eq - v));
  for (size_t i = 0; !s->file && i < s->file_dumps; i++) {
    if (strcmp(o->dumps[i].name, d.name) == 0) {
      free(o->dumps[i].name);
      free(o->dumps[i].path);
      o->dumps[i] = d;
      return CC_OK;
    }
  }
  o->dumps = cc_xrealloc(o->dumps, (o->ndumps + 1) * sizeof *o->dumps);
  o->dumps[o->ndumps++] = d;
  return CC_OK;
}

static int set_shared(struct cc_run_opts *o, const char *v, const struct source *s,
                      struct cc_err *err)
{
  uint64_t n;
  int rc = parse_uint("shared", v, UINT32_MAX, 1, &n, err);
  if (rc == CC_OK) /* a refused value leaves the option as it was */
    o->shared_bytes = (uint32_t)n;
  return rc;
}

static int set_launch(struct cc_run_opts *o, const char *v, const struct source *s,
                      struct cc_err *err)
{
  if (s->file)
    return cc_err_set(err, CC_ERR_USAGE, "--launch inside a launch file; launch files do not "
                      "nest, put the options in one file");
  replace_str(&o->launch_file, v);
  return CC_OK;
}

static int set_json(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  return set_out_path(&o->json_path, "--json", v, 1, s, err);
}

static int set_sarif(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  return set_out_path(&o->sarif_path, "--sarif", v, 1, s, err);
}

static int set_csv(struct cc_run_opts *o, const char *v, const struct source *s,
                   struct cc_err *err)
{
  return set_out_path(&o->csv_path, "--csv", v, 1, s, err);
}

/* A repeated --fail-on adds a gate (report/ci.h; docs/usage.md, "Gates"). */
static int set_fail_on(struct cc_run_opts *o, const char *v, const struct source *s,
                       struct cc_err *err)
{
  struct cc_gate g;
  int rc = cc_report_gate_parse(v, &g, err);
  (void)s;
  if (rc != CC_OK)
    return rc;
  o->gates = cc_xrealloc(o->gates, (o->ngates + 1) * sizeof *o->gates);
  o->gates[o->ngates++] = g;
  return CC_OK;
}

static int set_html(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  return set_out_path(&o->html_path, "--html", v, 0, s, err);
}

/* A repeated --arch adds to the list: "--arch cc1.0 --arch sm_90" = "cc1.0,sm_90" (the
 * names are checked by the models, model.h's cc_model_get_list). */
static int set_arch(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  char *list;
  if (!o->arch) {
    replace_str(&o->arch, v);
    return CC_OK;
  }
  list = cc_xmalloc(strlen(o->arch) + strlen(v) + 2);
  sprintf(list, "%s,%s", o->arch, v);
  free(o->arch);
  o->arch = list;
  return CC_OK;
}

/* --trace (run) and -o (record): the trace file; "-" is standard output, which the main
 * job's report already holds. */
static int set_trace(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  if (s->cmd == CC_CLI_CMD_RUN && strcmp(v, "-") == 0)
    return cc_err_set(err, CC_ERR_USAGE, "--trace -: standard output holds the report; "
                      "pass a file name, or use 'coalcheck record -o -'");
  return set_out_path(&o->trace_path, s->cmd == CC_CLI_CMD_RUN ? "--trace" : "-o", v, 1, s,
                      err);
}

/* -o: record's trace file, or fix's output folder */
static int set_output(struct cc_run_opts *o, const char *v, const struct source *s,
                      struct cc_err *err)
{
  if (s->cmd != CC_CLI_CMD_FIX)
    return set_trace(o, v, s, err);
  return set_out_path(&o->fix_dir, "-o", v, 0, s, err);
}

static int set_l1_cache(struct cc_run_opts *o, const char *v, const struct source *s,
                        struct cc_err *err)
{
  if (strcmp(v, "on") == 0)
    o->l1_cache = CC_MODEL_L1_ON;
  else if (strcmp(v, "off") == 0)
    o->l1_cache = CC_MODEL_L1_OFF;
  else
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --l1-cache: expected on or off",
                      v);
  return CC_OK;
}

static int set_smem_bank_width(struct cc_run_opts *o, const char *v, const struct source *s,
                               struct cc_err *err)
{
  if (strcmp(v, "4") != 0 && strcmp(v, "8") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --smem-bank-width: expected 4 "
                      "or 8 (bytes; 8 on cc3.x only)", v);
  o->smem_bank_width = (uint32_t)(v[0] - '0');
  return CC_OK;
}

static int set_cache(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  replace_str(&o->cache_spec, v); /* checked with the models (cache.h cc_cache_device_get) */
  return CC_OK;
}

static int set_calibration(struct cc_run_opts *o, const char *v, const struct source *s,
                           struct cc_err *err)
{
  free(o->calibration);
  o->calibration = from_base(s, v);
  return CC_OK;
}

static int set_nvcc_flags(struct cc_run_opts *o, const char *v, const struct source *s,
                          struct cc_err *err)
{
  replace_str(&o->nvcc_flags, v);
  return CC_OK;
}

static int set_max_insns(struct cc_run_opts *o, const char *v, const struct source *s,
                         struct cc_err *err)
{
  return parse_uint("max-insns", v, UINT64_MAX, 0, &o->max_insns, err);
}

/* --jobs N: threads that emulate the CTAs (src/emu, Parallel CTAs); for `report TRACE`,
 * threads that replay the cache model (src/cache, Parallel replay; cli_impl.h
 * cc_cli_outputs_replay_jobs says why not for emulator runs) */
static int set_jobs(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  uint64_t n;
  int rc = parse_uint("jobs", v, CC_EMU_JOBS_MAX, 0, &n, err);
  if (rc == CC_OK)
    o->jobs = (uint32_t)n;
  return rc;
}

/* --cache-jobs N: threads that replay the cache model behind the emulator's workers
 * (src/cache, Parallel replay; run.c cache_jobs gives the default) */
static int set_cache_jobs(struct cc_run_opts *o, const char *v, const struct source *s,
                          struct cc_err *err)
{
  uint64_t n;
  int rc = parse_uint("cache-jobs", v, CC_CLI_CACHE_JOBS_MAX, 0, &n, err);
  if (rc == CC_OK)
    o->cache_jobs = (uint32_t)n;
  return rc;
}

/* --max-memory BYTES: an integer with an optional K, M, G or T suffix (powers of 1024) */
static int set_max_memory(struct cc_run_opts *o, const char *v, const struct source *s,
                          struct cc_err *err)
{
  static const char units[] = "KMGT";
  size_t n = strlen(v);
  const char *unit = n ? strchr(units, v[n - 1]) : NULL;
  unsigned shift = unit && *unit ? 10u * (unsigned)(unit - units + 1) : 0;
  char num[32];
  uint64_t bytes;
  if (shift)
    n--;
  if (n == 0 || n >= sizeof num)
    goto bad;
  memcpy(num, v, n);
  num[n] = '\0';
  if (parse_uint("max-memory", num, UINT64_MAX >> shift, 0, &bytes, NULL) != CC_OK)
    goto bad;
  o->max_memory = bytes << shift;
  return CC_OK;
bad:
  return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --max-memory: expected bytes, a "
                    "positive integer with an optional K, M, G or T suffix (powers of 1024) "
                    "below 2^64, e.g. 64G", v);
}

/* --max-analysis-memory MIB: the analyses' memory limit */
static int set_max_analysis_memory(struct cc_run_opts *o, const char *v, const struct source *s,
                                   struct cc_err *err)
{
  return parse_uint("max-analysis-memory", v, SIZE_MAX >> 20, 0, &o->max_memory_mib, err);
}

static int set_top(struct cc_run_opts *o, const char *v, const struct source *s,
                   struct cc_err *err)
{
  uint64_t n;
  int rc = parse_uint("top", v, UINT32_MAX, 0, &n, err);
  if (rc == CC_OK)
    o->top = (uint32_t)n;
  return rc;
}

/* --backend emu|gpu (docs/usage.md, "GPU backend") */
static int set_backend(struct cc_run_opts *o, const char *v, const struct source *s,
                       struct cc_err *err)
{
  if (strcmp(v, "emu") != 0 && strcmp(v, "gpu") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --backend: expected emu or gpu",
                      v);
  o->gpu_backend = strcmp(v, "gpu") == 0;
  return CC_OK;
}

/* --gpu-mode sanitizer|inline (docs/usage.md, "GPU backend") */
static int set_gpu_mode(struct cc_run_opts *o, const char *v, const struct source *s,
                        struct cc_err *err)
{
  if (strcmp(v, "sanitizer") != 0 && strcmp(v, "inline") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --gpu-mode: expected sanitizer "
                      "or inline", v);
  o->gpu_inline = strcmp(v, "inline") == 0;
  return CC_OK;
}

/* --sample-ctas N: kernel mode's --gpu-mode inline counts 1 CTA in N and extrapolates
 * (gpu_inline.c); the executable mode parses its own copy (app.c) */
static int set_sample_ctas(struct cc_run_opts *o, const char *v, const struct source *s,
                           struct cc_err *err)
{
  uint64_t n;
  int rc = parse_uint("sample-ctas", v, UINT32_MAX, 0, &n, err);
  if (rc == CC_OK)
    o->sample_ctas = (uint32_t)n;
  return rc;
}

static int set_strategy(struct cc_run_opts *o, const char *v, const struct source *s,
                        struct cc_err *err)
{
  if (strcmp(v, "model") != 0 && strcmp(v, "empirical") != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --strategy: expected model or "
                      "empirical", v);
  o->fix_strategy = strcmp(v, "empirical") == 0; /* enum cc_fix_strategy */
  return CC_OK;
}

/* --transform NAME: enum cc_fix_transform's names, in its order (auto = 0) */
static int set_transform(struct cc_run_opts *o, const char *v, const struct source *s,
                         struct cc_err *err)
{
  static const char *const names[] = {"auto", "permute", "lift", "redistribute", "tile", "soa",
                                      "pad"};
  for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
    if (strcmp(v, names[i]) == 0) {
      o->fix_transform = i;
      return CC_OK;
    }
  return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --transform: expected auto, "
                    "permute, lift, redistribute, tile, soa or pad", v);
}

static int set_auto(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  o->fix_transform = 0;
  return CC_OK;
}

static int set_force(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  o->force = 1;
  return CC_OK;
}

/* The launch selection's values are kept as given; cc_gpu_filter_init_spec checks them
 * when the run starts (select.c), with the option named. */
static int set_sel_kernel_name(struct cc_run_opts *o, const char *v, const struct source *s,
                               struct cc_err *err)
{
  replace_str(&o->sel_kernel_name, v);
  return CC_OK;
}

static int set_sel_name_base(struct cc_run_opts *o, const char *v, const struct source *s,
                             struct cc_err *err)
{
  replace_str(&o->sel_name_base, v);
  return CC_OK;
}

static int set_sel_kernel_id(struct cc_run_opts *o, const char *v, const struct source *s,
                             struct cc_err *err)
{
  replace_str(&o->sel_kernel_id, v);
  return CC_OK;
}

static int set_sel_launch_skip(struct cc_run_opts *o, const char *v, const struct source *s,
                               struct cc_err *err)
{
  replace_str(&o->sel_launch_skip, v);
  return CC_OK;
}

static int set_sel_launch_count(struct cc_run_opts *o, const char *v, const struct source *s,
                                struct cc_err *err)
{
  replace_str(&o->sel_launch_count, v);
  return CC_OK;
}

/* --imbalance-threshold PCT: a non-negative decimal number of percent */
static int set_imbalance(struct cc_run_opts *o, const char *v, const struct source *s,
                         struct cc_err *err)
{
  char *end;
  double pct;
  errno = 0;
  pct = strtod(v, &end);
  if (!isdigit((unsigned char)v[0]) || *end || errno || !(pct >= 0 && pct <= 1e9))
    return cc_err_set(err, CC_ERR_USAGE, "bad value '%s' for --imbalance-threshold: expected "
                      "a percentage, a number >= 0 such as 0, 5 or 12.5", v);
  o->imbalance_pct = pct;
  return CC_OK;
}

static int set_quiet(struct cc_run_opts *o, const char *v, const struct source *s,
                     struct cc_err *err)
{
  o->quiet = 1;
  return CC_OK;
}

static int set_help(struct cc_run_opts *o, const char *v, const struct source *s,
                    struct cc_err *err)
{
  o->help = 1;
  return CC_OK;
}

static int set_version(struct cc_run_opts *o, const char *v, const struct source *s,
                       struct cc_err *err)
{
  o->version = 1;
  return CC_OK;
}

/* Help lines fit 80 columns: 26 for the option, 54 for the text. */
static const struct option options[] = {
  {"kernel", 0, "NAME",
   "kernel to run: its source name (\"transpose\",\n"
   "\"ns::tiled<32>\") or its PTX name; optional when\n"
   "the module has one .entry", set_kernel, FOR_LAUNCH},
  {"grid", 0, "X[,Y[,Z]]", "grid dimensions in CTAs (required)", set_grid, FOR_LAUNCH},
  {"block", 0, "X[,Y[,Z]]", "CTA dimensions in threads (required)", set_block, FOR_LAUNCH},
  {"arg", 0, "SPEC",
   "kernel parameter, in order, repeated:\n"
   "  scalar NAME=VALUE or VALUE   n=4096, 1.5, 0x10\n"
   "  buffer NAME=TYPE[SIZE]:INIT  'A=f32[n*n]:random'\n"
   "TYPE u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64;\n"
   "SIZE elements: integers, scalar names, + - * / % ( );\n"
   "INIT zero | iota | random[:SEED] | file:PATH |\n"
   "const:VALUE; the buffer's device pointer is passed;\n"
   "optional layout TYPE[SIZE]:soa(BYTES,OFFSET,...):INIT\n"
   "(blocks of 32 structures, docs/usage.md); optional\n"
   "TYPE[SIZE]:offset(BYTES):[LAYOUT:]INIT: the pointer\n"
   "BYTES (0..255) past a 256-byte boundary", set_arg, FOR_LAUNCH},
  {"shared", 0, "BYTES", "dynamic shared memory per CTA (default 0)", set_shared,
   FOR_LAUNCH},
  {"dump", 0, "NAME=PATH", "after the run, write buffer NAME to PATH\n"
   "(raw little-endian elements)", set_dump, FOR_LAUNCH},
  {"launch", 0, "FILE",
   "read options (and INPUT) from FILE: shell-like\n"
   "words, '#' comments; its relative paths are taken\n"
   "from its folder; the command line wins", set_launch, FOR_LAUNCH},
  {"json", 0, "FILE", "also write the JSON report; '-' = stdout; %q{VAR},\n"
   "%p, %h, %% expanded as by Nsight (docs/usage.md)", set_json,
   FOR_REPORT | FOR_APP | CMD_BIT(CC_CLI_CMD_FIX) | CMD_BIT(CC_CLI_CMD_MERGE)},
  {"sarif", 0, "FILE", "also write a SARIF 2.1.0 log of the uncoalesced\n"
   "and conflicting accesses (docs/ci.md); '-' = stdout", set_sarif, FOR_REPORT},
  {"csv", 0, "FILE", "also write one CSV row per instruction, units in\n"
   "the header (docs/usage.md); '-' = stdout", set_csv,
   FOR_REPORT | CMD_BIT(CC_CLI_CMD_MERGE)},
  {"imbalance-threshold", 0, "PCT", "merge: flag a rank whose requests (sectors,\n"
   "excess, wavefronts) exceed the fewest rank's by\n"
   "more than PCT percent of it (default 0: any)", set_imbalance,
   CMD_BIT(CC_CLI_CMD_MERGE)},
  {"fail-on", 0, "EXPR", "a gate: exit 12 when METRIC OP NUMBER holds for\n"
   "an instruction or kernel ('efficiency<0.5',\n"
   "'excess-sectors>0'); repeatable (docs/usage.md)", set_fail_on, FOR_REPORT},
  {"html", 0, "FILE", "also write the views: one self-contained HTML page\n"
   "(grid, block, warp, operation, source; docs/views.md);\n"
   "fix: before and after side by side; an executable:\n"
   "its figures and source (every view with --trace)", set_html,
   FOR_REPORT | FOR_APP | CMD_BIT(CC_CLI_CMD_FIX)},
  {"arch", 0, "ARCH",
   "memory model (default sm_90); several, comma-\n"
   "separated or repeated (cc1.0,cc1.2,sm_90): the\n"
   "models side by side", set_arch, FOR_REPORT},
  {"l1-cache", 0, "on|off", "cc2.x global loads cached in L1 or not\n"
   "(default on, as -Xptxas -dlcm=ca)", set_l1_cache, FOR_REPORT},
  {"smem-bank-width", 0, "4|8", "shared memory bank width in bytes (8: cc3.x\n"
   "8-byte bank mode; default 4)", set_smem_bank_width, FOR_REPORT},
  {"cache", 0, "SPEC", "cache model: DEVICE[,KEY=VALUE...] or off;\n"
   "DEVICE h100 h200 a100 v100 ... (default: the\n"
   "arch's); keys sms l1 l1-ways carveout smem l2\n"
   "l2-ways dispatch=rr|blocked (docs/usage.md)", set_cache, FOR_REPORT},
  {"calibration", 0, "FILE", "device speeds measured by scripts/gpu-calibrate.sh\n"
   "(JSON) for the time estimates", set_calibration, FOR_REPORT},
  {"trace", 0, "FILE", "also save the access trace (.cctrace) for\n"
   "`coalcheck report` (executables: GPU trace mode)", set_trace,
   CMD_BIT(CC_CLI_CMD_RUN) | FOR_APP},
  {"output", 'o', "FILE", "record: the trace file (default KERNEL.cctrace);\n"
   "fix: the folder to write the fix into (DIR)", set_output,
   CMD_BIT(CC_CLI_CMD_RECORD) | CMD_BIT(CC_CLI_CMD_FIX)},
  {"strategy", 0, "model|empirical", "fix: choose the permutation by the static cost\n"
   "model (default) or by emulating every candidate", set_strategy, CMD_BIT(CC_CLI_CMD_FIX)},
  {"transform", 0, "NAME", "fix: permute (thread geometry, CGO'15 4.2), lift\n"
   "(a loop into a thread dimension, 4.3), redistribute\n"
   "(a reduction over a warp, 4.4), tile (shared-\n"
   "memory transpose), soa (structures into arrays),\n"
   "pad (shared rows against bank conflicts),\n"
   "or auto (default: every one that applies; the\n"
   "fewest sectors, or the fastest with --backend gpu)", set_transform,
   CMD_BIT(CC_CLI_CMD_FIX)},
  {"auto", 0, NULL, "fix: the same as --transform auto", set_auto, CMD_BIT(CC_CLI_CMD_FIX)},
  {"force", 0, NULL, "fix: replace a non-empty -o DIR", set_force, CMD_BIT(CC_CLI_CMD_FIX)},
  {"nvcc-flags", 0, "FLAGS", "extra flags for nvcc (one string)", set_nvcc_flags, FOR_LAUNCH},
  {"max-insns", 0, "N", "warp-instruction budget of the launch (stops\n"
   "runaway kernels; default: 2^17 per thread of\neach block, at least 2^26 per block)",
   set_max_insns, FOR_LAUNCH},
  {"jobs", 'j', "N", "threads that emulate the blocks (1..4096;\n"
   "default: the cores available); for report,\n"
   "threads that replay the cache model (default\n"
   "1); the report and buffers are the same for\n"
   "every N", set_jobs,
   CMD_BIT(CC_CLI_CMD_RUN) | CMD_BIT(CC_CLI_CMD_RECORD) | CMD_BIT(CC_CLI_CMD_REPORT)},
  {"cache-jobs", 0, "N", "threads that replay the cache model behind\n"
   "the emulator's threads (1..64; default 1: the\n"
   "thread that takes their records in order; 2:\n"
   "it and one thread replaying; N > 2: it and\n"
   "N-1 threads replaying in parallel); the report\n"
   "is the same for every N", set_cache_jobs, FOR_LAUNCH},
  {"max-memory", 0, "BYTES", "most memory all buffer arguments may take\n"
   "(K, M, G, T suffixes; default half the RAM)", set_max_memory, FOR_LAUNCH},
  {"top", 0, "N", "show the N worst instructions per kernel\n(default: all)", set_top,
   FOR_REPORT | FOR_APP},
  {"max-analysis-memory", 0, "MIB", "memory for the analyses' results, in MiB\n"
   "(default 2048; exit 6 past it)", set_max_analysis_memory, FOR_REPORT},
  {"backend", 0, "emu|gpu", "emu: the PTX emulator (default for .cu/.ptx);\n"
   "gpu: run it on the GPU under libcoalcheck_gpu.so\n"
   "(the only one for executables; exit 10 when\n"
   "there is no GPU); fix: also time both on the GPU", set_backend,
   CMD_BIT(CC_CLI_CMD_RUN) | CMD_BIT(CC_CLI_CMD_FIX) | FOR_APP},
  {"gpu-mode", 0, "sanitizer|inline", "--backend gpu with a .cu/.ptx: count under the\n"
   "Compute Sanitizer (default) or with counters\n"
   "written into the PTX (faster; global, shared);\n"
   "an executable: inline by default, sanitizer for\n"
   "--trace, --spaces and launch selection", set_gpu_mode,
   CMD_BIT(CC_CLI_CMD_RUN) | FOR_APP},
  /* launch selection, ncu's spellings and meaning (gpu/gpu.h, docs/usage.md): the
   * application's launches, or a module's kernels in order, one launch each */
  {"kernel-name", 0, "NAME", "profile launches of kernel NAME (exact), or\n"
   "regex:RE (POSIX ERE found in the name); the name\n"
   "per --kernel-name-base", set_sel_kernel_name, FOR_SELECT},
  {"kernel-name-base", 0, "BASE", "function (default: \"tiled\"), demangled\n"
   "(\"void ns::tiled<32>(float*)\") or mangled", set_sel_name_base, FOR_SELECT},
  {"kernel-id", 0, "::NAME:N", "ncu's CONTEXT:STREAM:[regex:]NAME:INVOCATION;\n"
   "NAME and N (1-based) honoured, context and stream\n"
   "must be empty: ::NAME:2, :::1", set_sel_kernel_id, FOR_SELECT},
  {"launch-skip", 0, "N", "skip the first N matching launches", set_sel_launch_skip,
   FOR_SELECT},
  {"launch-count", 0, "N", "profile N matching launches (default: all; N >= 1)",
   set_sel_launch_count, FOR_SELECT},
  /* the executable mode's own options (app.c) */
  {"gpu-json", 0, "FILE", "keep the injection library's own JSON", NULL, FOR_APP},
  {"sample-ctas", 0, "N", "count and trace only CTAs whose linear id % N\n"
   "is 0 (--gpu-mode inline: 1 CTA per N ids, at\n"
   "a hashed position, the counts scaled to the\n"
   "grid with a 95% bound per figure)", set_sample_ctas,
   FOR_APP | CMD_BIT(CC_CLI_CMD_RUN)},
  {"spaces", 0, "LIST", "patch only these of global,shared,local\n"
   "(default all): the others run at native speed", NULL, FOR_APP},
  {"exact", 0, NULL, "count every launch (default: the fast mode\n"
   "samples repeated launches of one geometry and\n"
   "extrapolates, with a 95% bound per figure)", NULL, FOR_APP},
  {"quiet", 'q', NULL, "no progress messages", set_quiet,
   FOR_ALL | FOR_APP | CMD_BIT(CC_CLI_CMD_FIX) | CMD_BIT(CC_CLI_CMD_MERGE)},
  {"help", 'h', NULL, "show this help", set_help,
   FOR_ALL | FOR_APP | CMD_BIT(CC_CLI_CMD_FIX) | CMD_BIT(CC_CLI_CMD_MERGE)},
  {"version", 0, NULL, "show the version", set_version,
   FOR_ALL | CMD_BIT(CC_CLI_CMD_FIX)},
};

#define NOPTIONS (sizeof options / sizeof options[0])

/* Writes the help of the options taken under any bit of want and none of skip. */
static void print_matching(FILE *out, unsigned want, unsigned skip)
{
  for (size_t i = 0; i < NOPTIONS; i++) {
    const struct option *op = &options[i];
    unsigned cmds = op->cmds ? op->cmds : FOR_LAUNCH;
    char head[64];
    if (!(cmds & want) || (cmds & skip))
      continue;
    const char *h = op->help;
    int n = snprintf(head, sizeof head, "  %s%c%s--%s%s%s", op->short_name ? "-" : "",
                     op->short_name ? op->short_name : ' ', op->short_name ? ", " : "  ",
                     op->name, op->arg ? " " : "", op->arg ? op->arg : "");
    if (!op->short_name) /* no "-x, " column: keep the long names aligned */
      n = snprintf(head, sizeof head, "      --%s%s%s", op->name, op->arg ? " " : "",
                   op->arg ? op->arg : "");
    fprintf(out, "%-26s", head);
    if (n >= 26)
      fprintf(out, "\n%-26s", "");
    for (;;) { /* help lines, each indented to column 26 */
      size_t len = strcspn(h, "\n");
      fprintf(out, "%.*s\n", (int)len, h);
      if (!h[len])
        break;
      h += len + 1;
      fprintf(out, "%-26s", "");
    }
  }
}

void cc_cli_print_options(FILE *out)
{
  cc_cli_print_options_cmd(out, CC_CLI_CMD_RUN);
}

void cc_cli_print_options_cmd(FILE *out, enum cc_cli_cmd cmd)
{
  print_matching(out, CMD_BIT(cmd), 0);
}

void cc_cli_print_options_app(FILE *out, int only_app)
{
  print_matching(out, FOR_APP, only_app ? FOR_ALL : 0);
  if (!only_app)
    return;
  fprintf(out, "%-26s", "  and, as above:");
  for (size_t i = 0, n = 0, col = 26; i < NOPTIONS; i++) {
    const struct option *op = &options[i];
    char name[64];
    int len;
    if (!(op->cmds & FOR_APP) || !(op->cmds & FOR_ALL))
      continue;
    if (op->short_name)
      len = snprintf(name, sizeof name, "-%c", op->short_name);
    else
      len = snprintf(name, sizeof name, "--%s", op->name);
    if (n && col + 2 + (size_t)len > 80) { /* help lines fit 80 columns */
      fprintf(out, ",\n%-26s", "");
      col = 26;
    } else if (n) {
      fputs(", ", out);
      col += 2;
    }
    fputs(name, out);
    col += (size_t)len;
    n++;
  }
  fputc('\n', out);
}

int cc_cli_app_option(const char *word)
{
  for (size_t i = 0; i < NOPTIONS; i++) {
    const struct option *op = &options[i];
    int hit = word[0] == '-' && ((word[1] == '-' && strcmp(word + 2, op->name) == 0) ||
                                 (op->short_name && word[1] == op->short_name && !word[2]));
    if (hit && (op->cmds & FOR_APP))
      return op->arg != NULL;
  }
  return -1;
}

static const struct option *find_long(const char *name, size_t len)
{
  for (size_t i = 0; i < NOPTIONS; i++)
    if (strlen(options[i].name) == len && memcmp(options[i].name, name, len) == 0)
      return &options[i];
  return NULL;
}

static const char *cmd_name(enum cc_cli_cmd cmd)
{
  return cmd == CC_CLI_CMD_RECORD ? "record" : cmd == CC_CLI_CMD_REPORT ? "report"
         : cmd == CC_CLI_CMD_FIX ? "fix" : cmd == CC_CLI_CMD_MERGE ? "merge" : "run";
}

static const struct option *find_short(char c)
{
  for (size_t i = 0; i < NOPTIONS; i++)
    if (options[i].short_name == c)
      return &options[i];
  return NULL;
}

size_t cc_cli_option_count(void)
{
  return NOPTIONS;
}

void cc_cli_option_doc(size_t i, struct cc_cli_option_doc *doc)
{
  doc->name = options[i].name;
  doc->short_name = options[i].short_name;
  doc->arg = options[i].arg;
  doc->help = options[i].help;
}

int cc_cli_option_taken_by(size_t i, const char *command)
{
  const struct option *op = &options[i];
  if (!command || strcmp(command, "import") == 0) /* app.c parses both (a superset for import) */
    return (op->cmds & FOR_APP) != 0;
  /* the commands of enum cc_cli_cmd, by the names cmd_name gives them (bits below FOR_APP) */
  for (unsigned c = 0; c < 16; c++)
    if (strcmp(cmd_name((enum cc_cli_cmd)c), command) == 0)
      return takes(op, (enum cc_cli_cmd)c);
  return 0;
}

/* Prefixes "FILE:LINE: " to an error found in a launch file. */
static int at_word(const struct source *src, size_t i, int rc, struct cc_err *err)
{
  if (rc != CC_OK && src->file)
    cc_err_prefix(err, "%s:%u", src->file, src->lines ? src->lines[i] : 0);
  return rc;
}

/* One option word w[*i] (starting with '-'); consumes its value too. */
static int parse_option(struct cc_run_opts *o, char **w, size_t n, size_t *i,
                        const struct source *src, struct cc_err *err)
{
  const char *word = w[*i], *value = NULL, *eq = NULL;
  const struct option *op;
  char shown[64];
  if (word[1] == '-') {
    eq = strchr(word + 2, '=');
    op = find_long(word + 2, eq ? (size_t)(eq - word - 2) : strlen(word + 2));
  } else {
    op = word[2] == '\0' ? find_short(word[1]) : NULL;
  }
  snprintf(shown, sizeof shown, "%.*s", eq ? (int)(eq - word) : (int)strlen(word), word);
  if (!op)
    return cc_err_set(err, CC_ERR_USAGE, "unknown option '%s'; see 'coalcheck --help'", shown);
  if (!op->set) /* an option of the executable mode (app.c) */
    return cc_err_set(err, CC_ERR_USAGE, "option '%s' goes with an executable INPUT, "
                      "before it (coalcheck %s %s ./app [ARGS]); a KERNEL.cu/.ptx does not "
                      "take it", shown, shown, op->arg ? op->arg : "");
  if (!takes(op, src->cmd) && !(src->file && src->cmd == CC_CLI_CMD_RECORD &&
                                takes(op, CC_CLI_CMD_RUN)))
    return cc_err_set(err, CC_ERR_USAGE, "option '%s' is not an option of 'coalcheck %s'",
                      shown, cmd_name(src->cmd));
  if (op->arg) {
    if (eq) {
      value = eq + 1;
    } else if (*i + 1 < n) {
      value = w[++*i];
    } else {
      return cc_err_set(err, CC_ERR_USAGE, "option '%s' needs a value: %s %s", shown, shown,
                        op->arg);
    }
  } else if (eq) {
    return cc_err_set(err, CC_ERR_USAGE, "option '%s' takes no value", shown);
  }
  if (!takes(op, src->cmd)) /* a report option in a launch file read by record: ignored */
    return CC_OK;
  {
    struct source here = *src;
    here.line = src->lines ? src->lines[*i] : 0;
    return op->set(o, value, &here, err);
  }
}

/* Parses words (the command line or a launch file) into o. */
static int parse_words(struct cc_run_opts *o, char **w, size_t n, const struct source *src,
                       struct cc_err *err)
{
  int only_inputs = 0;
  const char *input = NULL;
  for (size_t i = 0; i < n; i++) {
    size_t at = i;
    int rc;
    if (!only_inputs && strcmp(w[i], "--") == 0) {
      only_inputs = 1;
      continue;
    }
    if (!only_inputs && w[i][0] == '-' && w[i][1] != '\0' &&
        !isdigit((unsigned char)w[i][1])) {
      if ((rc = parse_option(o, w, n, &i, src, err)) != CC_OK)
        return at_word(src, at, rc, err);
      continue;
    }
    if (src->cmd == CC_CLI_CMD_MERGE) { /* merge: every report, in rank order */
      o->inputs = cc_xrealloc(o->inputs, (o->ninputs + 1) * sizeof *o->inputs);
      o->inputs[o->ninputs++] = cc_xstrdup(w[i]);
      continue;
    }
    if (input)
      return at_word(src, at,
                     cc_err_set(err, CC_ERR_USAGE, "two inputs given: '%s' and '%s'; pass one "
                                "%s", input, w[i], src->cmd == CC_CLI_CMD_REPORT ?
                                "FILE.cctrace" : "KERNEL.cu or KERNEL.ptx"), err);
    input = w[i];
    free(o->input);
    o->input = from_base(src, w[i]);
  }
  return CC_OK;
}

void cc_cli_opts_release(struct cc_run_opts *o)
{
  free(o->input);
  free(o->kernel);
  for (size_t i = 0; i < o->nargs; i++)
    cc_launch_arg_release(&o->args[i]);
  free(o->args);
  for (size_t i = 0; i < o->ndumps; i++) {
    free(o->dumps[i].name);
    free(o->dumps[i].path);
  }
  free(o->dumps);
  free(o->launch_file);
  free(o->json_path);
  free(o->html_path);
  free(o->sarif_path);
  free(o->csv_path);
  for (size_t i = 0; i < o->ngates; i++)
    cc_report_gate_release(&o->gates[i]);
  free(o->gates);
  free(o->arch);
  free(o->cache_spec);
  free(o->calibration);
  free(o->nvcc_flags);
  free(o->trace_path);
  free(o->command_line);
  free(o->fix_dir);
  free(o->sel_kernel_name);
  free(o->sel_name_base);
  free(o->sel_kernel_id);
  free(o->sel_launch_skip);
  free(o->sel_launch_count);
  for (size_t i = 0; i < o->ninputs; i++)
    free(o->inputs[i]);
  free(o->inputs);
  memset(o, 0, sizeof *o);
}

/* The --launch FILE of the command line (before any "--"), or NULL; two are an error. */
static int find_launch(int argc, char **argv, const char **out, struct cc_err *err)
{
  *out = NULL;
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
    const char *f = NULL;
    if (strcmp(argv[i], "--launch") == 0 && i + 1 < argc)
      f = argv[++i];
    else if (strncmp(argv[i], "--launch=", 9) == 0)
      f = argv[i] + 9;
    else if (argv[i][0] == '-' && argv[i][1] == '-' && i + 1 < argc) {
      const char *eq = strchr(argv[i], '=');
      const struct option *op = eq ? NULL : find_long(argv[i] + 2, strlen(argv[i] + 2));
      if (op && op->arg) /* skip the value: "--kernel --launch" names a kernel */
        i++;
    }
    if (f && *out)
      return cc_err_set(err, CC_ERR_USAGE, "two --launch files given: '%s' and '%s'", *out, f);
    if (f)
      *out = f;
  }
  return CC_OK;
}

/* Launch files hold a few lines; a bigger one is a mistake (docs/usage.md). */
#define MAX_LAUNCH_FILE_BYTES (1u << 20)

/* Reads launch file path (a regular file of at most MAX_LAUNCH_FILE_BYTES) into o. */
static int read_launch_file(struct cc_run_opts *o, const char *path, enum cc_cli_cmd cmd,
                            struct cc_err *err)
{
  char *text, **words = NULL, *dir_copy = cc_xstrdup(path);
  uint32_t *lines = NULL;
  size_t n = 0;
  struct source src = {path, NULL, NULL, 0, 0, 0, cmd};
  int rc = cc_file_read_max(path, MAX_LAUNCH_FILE_BYTES, "a launch file", &text, NULL, err);
  if (rc != CC_OK) {
    free(dir_copy);
    return cc_err_prefix(err, "cannot read launch file");
  }
  rc = cc_cli_tokenize(text, path, &words, &n, &lines, err);
  free(text);
  if (rc == CC_OK) {
    char *dir = dirname(dir_copy);
    src.lines = lines;
    src.base_dir = strcmp(dir, ".") == 0 ? NULL : dir;
    rc = parse_words(o, words, n, &src, err);
  }
  for (size_t i = 0; i < n; i++)
    free(words[i]);
  free(words);
  free(lines);
  free(dir_copy);
  return rc;
}

int cc_cli_parse_run(int argc, char **argv, struct cc_run_opts *o, struct cc_err *err)
{
  return cc_cli_parse_cmd(CC_CLI_CMD_RUN, argc, argv, o, err);
}

int cc_cli_parse_cmd(enum cc_cli_cmd cmd, int argc, char **argv, struct cc_run_opts *o,
                     struct cc_err *err)
{
  const char *launch = NULL;
  struct source cmdline = {NULL, NULL, NULL, 0, 0, 0, cmd};
  char *file_arch;
  int rc;
  memset(o, 0, sizeof *o);
  /* report and merge take no launch file: their --launch is refused by parse_words */
  if (cmd != CC_CLI_CMD_REPORT && cmd != CC_CLI_CMD_MERGE && (rc = find_launch(argc, argv, &launch, err)) != CC_OK)
    return rc;
  if (launch && (rc = read_launch_file(o, launch, cmd, err)) != CC_OK)
    return rc;
  cmdline.file_args = o->nargs;
  cmdline.file_dumps = o->ndumps;
  /* --arch adds to the list, but the command line's list replaces the file's */
  file_arch = o->arch;
  o->arch = NULL;
  rc = parse_words(o, argc > 1 ? argv + 1 : argv, argc > 1 ? (size_t)argc - 1 : 0,
                   &cmdline, err);
  if (!o->arch)
    o->arch = file_arch;
  else
    free(file_arch);
  return rc;
}
