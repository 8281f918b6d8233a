/* `coalcheck fix INPUT --kernel K [launch options | --launch FILE] -o DIR
 * [--transform NAME] [--strategy model|empirical] [--json FILE] [--force]`: options -> struct cc_fix_opts ->
 * cc_fix_run (src/fix). This file only parses, loads the input and lends the fix engine
 * the nvcc driver. */
#include "cli/cli.h"
#include "cli/cli_impl.h"
#include "cli/gpu.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fix.h"
#include "util/fileio.h"
#include "util/mem.h"

static void print_help(FILE *out)
{
  fprintf(out,
          "usage: coalcheck fix INPUT --kernel K --grid X[,Y[,Z]] --block X[,Y[,Z]] --arg ... -o DIR\n"
          "       coalcheck fix --launch FILE -o DIR\n"
          "\n"
          "Permutes the thread geometry of kernel K (CGO 2015, Sec. 4.2) so that the thread\n"
          "dimension along which its accesses are contiguous becomes x, the dimension the\n"
          "lanes of a warp follow; rewrites the kernel (CUDA C through libclang, or PTX) and\n"
          "its launch; runs original and fix in the emulator on the same arguments and keeps\n"
          "the fix only when every buffer is bitwise equal and the excess sectors fall.\n"
          "Writes DIR/INPUT (rewritten), DIR/K.launch (`coalcheck --launch DIR/K.launch`)\n"
          "and DIR/fix.diff. Exit 0: verified improvement; 11: no legal permutation\n"
          "improves K (the reason is printed, nothing is written to DIR).\n"
          "\n"
          "options:\n");
  cc_cli_print_options_cmd(out, CC_CLI_CMD_FIX);
}

/* The nvcc driver lent to src/fix: compiles the rewritten text from a private temporary
 * folder, with the input's own folder on the include path (its #include "..." files). */
struct compile_ctx {
  const char *nvcc_flags;
};

static int compile(void *vctx, const char *path, const char *text, size_t len, char **ptx,
                   size_t *len_out, struct cc_err *err)
{
  const struct compile_ctx *ctx = vctx;
  char *pcopy = cc_xstrdup(path), *dcopy = cc_xstrdup(path);
  char *tmp = cc_tmpdir_make(err), *file = NULL, *flags = NULL, *nvcc = NULL;
  FILE *fp;
  int rc;
  if (!tmp) {
    rc = err->status;
    goto done;
  }
  file = cc_xmalloc(strlen(tmp) + strlen(path) + 2);
  sprintf(file, "%s/%s", tmp, basename(pcopy));
  fp = fopen(file, "w");
  if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp) != 0) {
    rc = cc_err_set(err, CC_ERR_IO, "cannot write %s", file);
    goto done;
  }
  flags = cc_xmalloc(strlen(path) + (ctx->nvcc_flags ? strlen(ctx->nvcc_flags) : 0) + 8);
  sprintf(flags, "\"-I%s\" %s", dirname(dcopy), ctx->nvcc_flags ? ctx->nvcc_flags : "");
  nvcc = cc_cli_find_nvcc();
  rc = cc_cli_nvcc_compile(nvcc, file, flags, ptx, len_out, err);
  remove(file);
done:
  if (tmp)
    remove(tmp);
  free(tmp);
  free(file);
  free(flags);
  free(nvcc);
  free(pcopy);
  free(dcopy);
  return rc;
}

/* The GPU timer lent to src/fix (--backend gpu): coalcheck-gpu-launch's `time`. */
#define GPU_TIMED_RUNS 20

static int gpu_time(void *ctx, const char *ptx, size_t len, const char *mangled,
                    const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes,
                    const struct cc_launch_arg *args, size_t nargs, double *ms, int *runs,
                    struct cc_err *err)
{
  (void)ctx;
  *runs = GPU_TIMED_RUNS;
  return cc_cli_gpu_time(ptx, len, mangled, grid, block, shared_bytes, args, nargs,
                         GPU_TIMED_RUNS, ms, err);
}

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Loads INPUT, selects K and runs the fix. */
static int run_fix(const struct cc_run_opts *o, FILE *out, struct cc_err *err)
{
  struct ptx_module *m = NULL;
  const struct ptx_function *k;
  struct compile_ctx cctx = {o->nvcc_flags};
  struct cc_fix_opts fo;
  static const struct cc_fix_timer timer = {NULL, gpu_time};
  char *text = NULL, *name = NULL;
  size_t len = 0;
  struct cc_outfile html;
  int html_open = 0;
  const char *inputs[2] = {o->input, o->launch_file};
  int rc;
  if ((rc = cc_cli_check_launch(o, err)) != CC_OK)
    return rc;
  if (!o->fix_dir)
    return cc_err_set(err, CC_ERR_USAGE, "missing -o DIR: the folder to write the fix into");
  if (o->gpu_backend && (rc = cc_cli_gpu_probe(err)) != CC_OK)
    return rc;
  if ((rc = cc_file_read(o->input, &text, &len, err)) != CC_OK ||
      (rc = cc_cli_load_module(o, &m, err)) != CC_OK ||
      (rc = cc_cli_find_kernel(m, o->kernel, &k, err)) != CC_OK)
    goto done;
  name = cc_cli_source_name(k->name);
  memset(&fo, 0, sizeof fo);
  fo.input = o->input;
  fo.input_text = text;
  fo.input_len = len;
  fo.input_is_cuda = ends_with(o->input, ".cu");
  fo.module = m;
  fo.kernel = k;
  fo.kernel_name = o->kernel ? o->kernel : name;
  for (int i = 0; i < 3; i++) {
    fo.grid[i] = o->grid[i] ? o->grid[i] : 1;
    fo.block[i] = o->block[i] ? o->block[i] : 1;
  }
  fo.shared_bytes = o->shared_bytes;
  fo.args = o->args;
  fo.nargs = o->nargs;
  fo.nvcc_flags = o->nvcc_flags;
  fo.max_insns = o->max_insns;
  fo.max_memory = cc_cli_max_memory(o);
  fo.strategy = o->fix_strategy ? CC_FIX_STRATEGY_EMPIRICAL : CC_FIX_STRATEGY_MODEL;
  fo.transform = (enum cc_fix_transform)o->fix_transform;
  fo.out_dir = o->fix_dir;
  fo.force = o->force;
  fo.json_path = o->json_path;
  fo.quiet = o->quiet;
  fo.compiler = (struct cc_fix_compiler){&cctx, compile};
  fo.timer = o->gpu_backend ? &timer : NULL;
  if (o->html_path) { /* opened first: an unwritable path fails before the fix */
    if ((rc = cc_outfile_open_except(&html, o->html_path, (const char *const *)inputs,
                                     o->launch_file ? 2 : 1,
                                     err)) != CC_OK)
      goto done;
    html_open = 1;
  }
  rc = cc_fix_run(&fo, out, err);
  if (rc == CC_OK && html_open && (rc = cc_cli_fix_html(o, &html, err)) == CC_OK)
    html_open = 0;
done:
  if (html_open)
    cc_outfile_abort(&html);
  free(name);
  free(text);
  ptx_module_free(m);
  return rc;
}

int cc_cli_cmd_fix(int argc, char **argv, struct cc_err *err)
{
  struct cc_run_opts o;
  int rc = cc_cli_parse_cmd(CC_CLI_CMD_FIX, argc, argv, &o, err);
  if (rc == CC_OK && o.help)
    print_help(stdout);
  else if (rc == CC_OK && o.version)
    cc_cli_print_version(stdout);
  else if (rc == CC_OK)
    rc = run_fix(&o, stdout, err);
  cc_cli_opts_release(&o);
  return rc;
}
