/* The launch selection (--kernel-name, --kernel-name-base, --kernel-id, --launch-skip,
 * --launch-count; ncu's spellings and meaning) for both modes: the spec from the options,
 * or else from the COALCHECK_* variables; kernel mode's launches (the module's kernels in
 * order, one launch each); the variables an executable's injection library reads. The
 * rules themselves are src/gpu/filter.c's, one copy for both. See cli_impl.h. */
#include "cli/cli_impl.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/mem.h"

/* The variables of the library (src/gpu/inject.c), in the order of spec_of's fields. */
static const char *const vars[] = {"COALCHECK_KERNEL_NAME", "COALCHECK_KERNEL_NAME_BASE",
                                   "COALCHECK_KERNEL_ID", "COALCHECK_LAUNCH_SKIP",
                                   "COALCHECK_LAUNCH_COUNT", "COALCHECK_KERNEL_REGEX"};
#define NVARS (sizeof vars / sizeof vars[0])

int cc_cli_selection_spec(const struct cc_cli_selection *sel, struct cc_gpu_filter_spec *spec)
{
  const char *opt[NVARS - 1] = {sel->kernel_name, sel->name_base, sel->kernel_id, sel->skip,
                                sel->count};
  int any = 0;
  for (size_t i = 0; i < NVARS - 1; i++)
    any |= opt[i] != NULL;
  memset(spec, 0, sizeof *spec);
  if (any) { /* the options, alone: the variables are the fallback, not an addition */
    *spec = (struct cc_gpu_filter_spec){.kernel_name = opt[0], .name_base = opt[1],
                                        .kernel_id = opt[2], .skip = opt[3], .count = opt[4]};
    return 1;
  }
  *spec = (struct cc_gpu_filter_spec){
    .kernel_name = getenv(vars[0]), .name_base = getenv(vars[1]), .kernel_id = getenv(vars[2]),
    .skip = getenv(vars[3]), .count = getenv(vars[4]), .regex = getenv(vars[5]),
    .from_env = 1};
  for (size_t i = 0; i < NVARS; i++)
    if (getenv(vars[i]) && *getenv(vars[i]))
      return 1;
  return 0;
}

void cc_cli_selection_setenv(const struct cc_cli_selection *sel)
{
  const char *opt[NVARS] = {sel->kernel_name, sel->name_base, sel->kernel_id, sel->skip,
                            sel->count, NULL};
  struct cc_gpu_filter_spec spec;
  if (!cc_cli_selection_spec(sel, &spec) || spec.from_env)
    return; /* no options: the variables reach the child as they are */
  for (size_t i = 0; i < NVARS; i++) {
    if (opt[i])
      setenv(vars[i], opt[i], 1);
    else
      unsetenv(vars[i]);
  }
}

/* The selection of run options o. */
static struct cc_cli_selection of_opts(const struct cc_run_opts *o)
{
  return (struct cc_cli_selection){o->sel_kernel_name, o->sel_name_base, o->sel_kernel_id,
                                   o->sel_launch_skip, o->sel_launch_count};
}

int cc_cli_selection_given(const struct cc_run_opts *o)
{
  struct cc_gpu_filter_spec spec;
  struct cc_cli_selection sel = of_opts(o);
  return cc_cli_selection_spec(&sel, &spec);
}

/* "a (_Z1ai), b" of m's kernels into buf (size bytes). */
static void list_entries(const struct ptx_module *m, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < m->nfuncs && used + 1 < size; i++) {
    const struct ptx_function *f = &m->funcs[i];
    char *d;
    int n;
    if (!f->is_entry)
      continue;
    d = cc_cli_demangle(f->name);
    n = snprintf(buf + used, size - used, "%s%s%s%s%s", used ? ", " : "", d ? d : f->name,
                 d ? " (" : "", d ? f->name : "", d ? ")" : "");
    free(d);
    if (n < 0)
      return;
    used += (size_t)n;
  }
}

int cc_cli_select_kernels(const struct cc_run_opts *o, const struct ptx_module *m,
                          const struct ptx_function ***out, size_t *n, struct cc_err *err)
{
  struct cc_cli_selection sel = of_opts(o);
  struct cc_gpu_filter_spec spec;
  struct cc_gpu_filter f;
  const struct ptx_function *one;
  char list[1200];
  int rc;
  *out = NULL;
  *n = 0;
  if (!cc_cli_selection_spec(&sel, &spec) || (o->kernel && spec.from_env)) {
    /* no selection (or --kernel over the variables): --kernel or the only kernel */
    if ((rc = cc_cli_find_kernel(m, o->kernel, &one, err)) != CC_OK)
      return rc;
    *out = cc_xmalloc(sizeof **out);
    (*out)[(*n)++] = one;
    return CC_OK;
  }
  if (o->kernel)
    return cc_err_set(err, CC_ERR_USAGE, "--kernel %s and --kernel-name/--kernel-id/"
                      "--launch-skip/--launch-count both select kernels; use --kernel for one "
                      "kernel, the ncu-style options for a selection", o->kernel);
  if ((rc = cc_gpu_filter_init_spec(&f, &spec, err)) != CC_OK) {
    cc_gpu_filter_release(&f);
    return rc;
  }
  *out = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, sizeof **out);
  for (uint32_t i = 0; i < m->nfuncs; i++) { /* the module's kernels, in order */
    const struct ptx_function *k = &m->funcs[i];
    char *d;
    if (!k->is_entry)
      continue;
    d = cc_cli_demangle(k->name);
    if (cc_gpu_filter_select(&f, d ? d : k->name, k->name))
      (*out)[(*n)++] = k;
    free(d);
  }
  cc_gpu_filter_release(&f);
  if (*n > 0)
    return CC_OK;
  free(*out);
  *out = NULL;
  list_entries(m, list, sizeof list);
  return cc_err_set(err, CC_ERR_INPUT, "the launch selection%s selects none of the kernels of "
                    "%s (one launch each, in order): %s", spec.from_env ?
                    " (COALCHECK_* variables)" : "", m->path, list);
}
