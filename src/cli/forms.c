/* The static address forms of the kernel a run launched (src/affine), evaluated under the
 * launch and handed to the analyses (analysis.h, cc_analysis_set_forms): the report shows
 * them, the suggestions use them. See cli_impl.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affine/affine.h"
#include "util/mem.h"

/* The value of parameter i as the launch bound it (little-endian bytes; sign-extended
 * when the --arg value was negative); 0 when it is no integer of at most 8 bytes. */
static int param_value(const struct ptx_function *f, const struct cc_launch_bound *b,
                       const struct cc_run_opts *o, uint32_t i, int64_t *out)
{
  enum ptx_type t = f->vars[f->param_vars[i]].type;
  uint32_t n = b->param_bytes[i];
  const uint8_t *p = b->params[i];
  uint64_t v = 0;
  if (n == 0 || n > 8 || ptx_type_is_float(t) || t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2)
    return 0;
  for (uint32_t k = n; k-- > 0;)
    v = v << 8 | p[k];
  if (n < 8 && i < o->nargs && o->args[i].value && o->args[i].value[0] == '-' &&
      (v >> (8 * n - 1)) & 1)
    v |= ~0ull << (8 * n);
  *out = (int64_t)v;
  return 1;
}

static struct cc_addr_stride stride(const struct cc_affine_access *a,
                                    const struct cc_affine_env *env,
                                    enum cc_affine_atom_kind kind, uint32_t index)
{
  struct cc_addr_stride s = {0, 0};
  s.known = cc_affine_coeff(a, env, kind, index, &s.bytes);
  return s;
}

/* The form of access a under env, as analysis.h wants it; the strings it points to
 * (ptx, text) are allocated into *ptx and *text for the caller to free. */
static struct cc_addr_form make_form(const struct ptx_module *m, const struct cc_affine_kernel *ak,
                                     const struct cc_affine_access *a,
                                     const struct cc_affine_env *env, const char *const *names,
                                     uint32_t nnames, char **ptx, char **text)
{
  struct cc_addr_form f;
  char buf[512];
  memset(&f, 0, sizeof f);
  ptx_print_insn(m, ak->func, a->insn, buf, sizeof buf); /* as the emulator names it */
  *ptx = cc_xstrdup(buf);
  f.id = a->insn;
  f.ptx = *ptx;
  f.kind = cc_affine_status_name(a->status);
  if (a->status != CC_AFFINE_OK) {
    f.status = CC_ADDR_NOT_AFFINE;
    *text = cc_xstrdup(a->why ? a->why : "");
    f.text = *text;
    f.why_line = a->why_line;
    return f;
  }
  f.status = CC_ADDR_AFFINE;
  *text = cc_affine_format(a, names, nnames);
  f.text = *text;
  for (uint32_t d = 0; d < 3; d++)
    f.tid[d] = stride(a, env, CC_AFFINE_TID, d);
  for (uint32_t l = 0; l < 32 && f.nloops < CC_ADDR_MAX_LOOPS; l++)
    if ((a->loops >> l) & 1) {
      struct cc_addr_loop *lp = &f.loops[f.nloops++];
      lp->index = l;
      lp->line = l < ak->nloops ? ak->loops[l].line : 0;
      lp->stride = stride(a, env, CC_AFFINE_LOOP, l);
    }
  return f;
}

/* Appends s to *buf (of *len, *cap), quoted for a POSIX shell when it needs it. */
static void put_word(char **buf, size_t *len, size_t *cap, const char *s)
{
  int plain = *s != '\0';
  for (const char *c = s; *c; c++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=,:", *c))
      plain = 0;
  *buf = cc_xgrow(*buf, cap, *len + 4 * strlen(s) + 4, 1);
  (*buf)[(*len)++] = ' ';
  if (plain) {
    strcpy(*buf + *len, s);
    *len += strlen(s);
    return;
  }
  (*buf)[(*len)++] = '\'';
  for (const char *c = s; *c; c++) {
    if (*c == '\'') { /* ' -> '\'' */
      memcpy(*buf + *len, "'\\''", 4);
      *len += 4;
    } else {
      (*buf)[(*len)++] = *c;
    }
  }
  (*buf)[(*len)++] = '\'';
  (*buf)[*len] = '\0';
}

/* "coalcheck fix --launch FILE -o DIR", or with the launch's own options when it came
 * from the command line: INPUT --kernel K --grid X,Y,Z --block X,Y,Z --arg SPEC... */
static char *fix_command(const struct cc_run_opts *o, const char *kernel)
{
  char *buf = NULL, dims[64];
  size_t len = 0, cap = 0;
  buf = cc_xgrow(buf, &cap, 64, 1);
  len = (size_t)snprintf(buf, cap, "coalcheck fix");
  if (o->launch_file) {
    put_word(&buf, &len, &cap, "--launch");
    put_word(&buf, &len, &cap, o->launch_file);
  } else {
    put_word(&buf, &len, &cap, o->input);
    put_word(&buf, &len, &cap, "--kernel");
    put_word(&buf, &len, &cap, kernel);
    snprintf(dims, sizeof dims, "%u,%u,%u", o->grid[0], o->grid[1] ? o->grid[1] : 1,
             o->grid[2] ? o->grid[2] : 1);
    put_word(&buf, &len, &cap, "--grid");
    put_word(&buf, &len, &cap, dims);
    snprintf(dims, sizeof dims, "%u,%u,%u", o->block[0], o->block[1] ? o->block[1] : 1,
             o->block[2] ? o->block[2] : 1);
    put_word(&buf, &len, &cap, "--block");
    put_word(&buf, &len, &cap, dims);
    for (size_t i = 0; i < o->nargs; i++) {
      put_word(&buf, &len, &cap, "--arg");
      put_word(&buf, &len, &cap, o->args[i].text ? o->args[i].text : "?");
    }
  }
  put_word(&buf, &len, &cap, "-o");
  put_word(&buf, &len, &cap, "DIR");
  return buf;
}

int cc_cli_attach_forms(struct cc_cli_outputs *outs, const struct ptx_module *m,
                        const struct ptx_function *f, const char *kernel,
                        const struct cc_run_opts *o, const struct cc_launch_bound *b,
                        struct cc_err *err)
{
  struct cc_affine_kernel *ak = NULL;
  struct cc_kernel_forms kf;
  struct cc_affine_env env;
  struct cc_addr_form *forms;
  const char **names;
  char **strs;
  int64_t *params;
  uint8_t *known;
  int rc;
  if (cc_affine_analyze(m, f, &ak, err) != CC_OK)
    return CC_OK; /* no body: nothing ran, and nothing to show */
  params = cc_xcalloc(f->nparams + 1, sizeof *params);
  known = cc_xcalloc(f->nparams + 1, 1);
  names = cc_xcalloc(f->nparams + 1, sizeof *names);
  for (uint32_t i = 0; i < f->nparams && i < b->nparams; i++) {
    known[i] = (uint8_t)param_value(f, b, o, i, &params[i]);
    names[i] = i < o->nargs ? o->args[i].name : NULL;
  }
  env = (struct cc_affine_env){params, known, f->nparams < b->nparams ? f->nparams : b->nparams,
                               {o->block[0], o->block[1] ? o->block[1] : 1,
                                o->block[2] ? o->block[2] : 1},
                               {o->grid[0], o->grid[1] ? o->grid[1] : 1,
                                o->grid[2] ? o->grid[2] : 1}};
  forms = cc_xcalloc(ak->naccesses + 1, sizeof *forms);
  strs = cc_xcalloc(2 * (size_t)ak->naccesses + 1, sizeof *strs);
  for (uint32_t i = 0; i < ak->naccesses; i++)
    forms[i] = make_form(m, ak, &ak->accesses[i], &env, names, f->nparams, &strs[2 * i],
                         &strs[2 * i + 1]);
  memset(&kf, 0, sizeof kf);
  kf.forms = forms;
  kf.n = ak->naccesses;
  if (ak->warp_dependent_insn >= 0) {
    kf.warp_dependent_line = f->insns[ak->warp_dependent_insn].line;
    kf.warp_dependent_what = f->insns[ak->warp_dependent_insn].opcode_text;
  }
  kf.fix_command = fix_command(o, kernel);
  rc = cc_cli_outputs_set_forms(outs, &kf, err);
  free((char *)kf.fix_command);
  for (size_t i = 0; i < 2 * (size_t)ak->naccesses; i++)
    free(strs[i]);
  free(strs);
  free(forms);
  free(names);
  free(known);
  free(params);
  cc_affine_kernel_free(ak);
  return rc;
}
