/* Inputs and outputs of one command line that name the same file, refused before anything
 * runs. See cli_impl.h. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/mem.h"

/* path with its folder made canonical (realpath) and its last name kept as written (an
 * output need not exist yet); path itself when the folder does not resolve. Owned. */
static char *canonical(const char *path)
{
  char *dir_copy = cc_xstrdup(path), *base_copy = cc_xstrdup(path), *out;
  char *real = realpath(dirname(dir_copy), NULL);
  const char *base = basename(base_copy);
  if (real) {
    out = cc_xmalloc(strlen(real) + strlen(base) + 2);
    sprintf(out, "%s/%s", real, base);
  } else {
    out = cc_xstrdup(path);
  }
  free(real);
  free(dir_copy);
  free(base_copy);
  return out;
}

/* Whether a and b are one file: the same device and inode when both exist (hard and
 * symbolic links included), else the same canonical path. Two names of one device
 * (/dev/null twice) are not: writing a device twice destroys nothing. */
static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;
  int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0, same;
  char *ca, *cb;
  if (ea && eb)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
           !S_ISCHR(sa.st_mode) && !S_ISBLK(sa.st_mode);
  if (ea != eb)
    return 0;
  ca = canonical(a);
  cb = canonical(b);
  same = strcmp(ca, cb) == 0;
  free(ca);
  free(cb);
  return same;
}

static int skipped(const struct cc_cli_path *p)
{
  return !p->path || !*p->path || strcmp(p->path, "-") == 0;
}

/* "--json r.json", or "--dump out=r.bin" for a role ending in '=' or ':'. */
static void show(const struct cc_cli_path *p, char *buf, size_t size)
{
  size_t n = strlen(p->role);
  int glued = n && (p->role[n - 1] == '=' || p->role[n - 1] == ':');
  snprintf(buf, size, "%s%s%s", p->role, glued ? "" : " ", p->path);
}

int cc_cli_check_paths(const struct cc_cli_path *inputs, size_t nin,
                       const struct cc_cli_path *outputs, size_t nout, struct cc_err *err)
{
  char a[CC_ERR_MSG_MAX / 2], b[CC_ERR_MSG_MAX / 2];
  for (size_t i = 0; i < nout; i++) {
    const struct cc_cli_path *o = &outputs[i];
    if (skipped(o))
      continue;
    show(o, a, sizeof a);
    for (size_t j = 0; j < nin; j++)
      if (!skipped(&inputs[j]) && same_file(o->path, inputs[j].path)) {
        show(&inputs[j], b, sizeof b);
        return cc_err_set(err, CC_ERR_USAGE, "%s is %s: writing it would destroy an input; "
                          "give the output another path", a, b);
      }
    for (size_t j = 0; j < i; j++)
      if (!skipped(&outputs[j]) && same_file(o->path, outputs[j].path)) {
        show(&outputs[j], b, sizeof b);
        return cc_err_set(err, CC_ERR_USAGE, "%s and %s are one file: one output would "
                          "replace the other; give each output its own path", b, a);
      }
  }
  return CC_OK;
}

int cc_cli_check_run_paths(const struct cc_run_opts *o, struct cc_err *err)
{
  struct cc_cli_path *in = cc_xcalloc(o->nargs + 2, sizeof *in);
  struct cc_cli_path *out = cc_xcalloc(o->ndumps + 5, sizeof *out);
  char (*roles)[96] = cc_xcalloc(o->nargs + o->ndumps + 1, sizeof *roles);
  size_t nin = 0, nout = 0, r = 0;
  int rc;
  in[nin++] = (struct cc_cli_path){"INPUT", o->input};
  in[nin++] = (struct cc_cli_path){"the launch file", o->launch_file};
  for (size_t i = 0; i < o->nargs; i++) {
    if (!o->args[i].is_buffer || o->args[i].init != CC_INIT_FILE)
      continue;
    snprintf(roles[r], sizeof roles[r], "--arg %s=...:file:", o->args[i].name);
    in[nin++] = (struct cc_cli_path){roles[r++], o->args[i].init_text};
  }
  out[nout++] = (struct cc_cli_path){"--json", o->json_path};
  out[nout++] = (struct cc_cli_path){"--html", o->html_path};
  out[nout++] = (struct cc_cli_path){"--sarif", o->sarif_path};
  out[nout++] = (struct cc_cli_path){"--csv", o->csv_path};
  out[nout++] = (struct cc_cli_path){o->record_only ? "-o" : "--trace", o->trace_path};
  for (size_t i = 0; i < o->ndumps; i++) {
    snprintf(roles[r], sizeof roles[r], "--dump %s=", o->dumps[i].name);
    out[nout++] = (struct cc_cli_path){roles[r++], o->dumps[i].path};
  }
  rc = cc_cli_check_paths(in, nin, out, nout, err);
  free(in);
  free(out);
  free(roles);
  return rc;
}
