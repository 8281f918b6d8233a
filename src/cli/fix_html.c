/* `coalcheck fix ... --html FILE`: the views of the original launch and of the fix's
 * launch (DIR/KERNEL.launch) side by side. Each is run by the main job (cc_cli_run) with
 * --html into a temporary page; FILE holds both pages, each in a sandboxed <iframe srcdoc>
 * (scripts run, in an opaque origin, nothing fetched), written whole or not at all. */
#include "cli/cli.h"
#include "cli/cli_impl.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/mem.h"

/* s with &, " , < and > as character references: an attribute value in double quotes. */
static char *attr_escape(const char *s)
{
  size_t n = 0;
  char *out, *p;
  for (const char *q = s; *q; q++)
    n += *q == '&' ? 5 : *q == '"' ? 6 : (*q == '<' || *q == '>') ? 4 : 1;
  out = p = cc_xmalloc(n + 1);
  for (; *s; s++) {
    const char *r = *s == '&' ? "&amp;" : *s == '"' ? "&quot;" : *s == '<' ? "&lt;"
                  : *s == '>' ? "&gt;" : NULL;
    if (r) {
      strcpy(p, r);
      p += strlen(r);
    } else {
      *p++ = *s;
    }
  }
  *p = '\0';
  return out;
}

/* The one KERNEL.launch the fix wrote into dir (owned path), or CC_ERR_INTERNAL. */
static int find_launch(const char *dir, char **out, struct cc_err *err)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  *out = NULL;
  while (d && (e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n > 7 && strcmp(e->d_name + n - 7, ".launch") == 0 && !*out) {
      *out = cc_xmalloc(strlen(dir) + n + 2);
      sprintf(*out, "%s/%s", dir, e->d_name);
    }
  }
  if (d)
    closedir(d);
  return *out ? CC_OK : cc_err_set(err, CC_ERR_INTERNAL, "fix --html: no .launch in %s", dir);
}

/* Runs the launch of o (shallow copy: only the outputs change) with --html page, its
 * report thrown away. */
static int run_page(const struct cc_run_opts *o, char *page, struct cc_err *err)
{
  struct cc_run_opts r = *o;
  FILE *null = fopen("/dev/null", "w");
  int rc;
  r.html_path = page;
  r.json_path = NULL;
  r.trace_path = NULL;
  r.fix_dir = NULL;
  r.ndumps = 0;
  r.quiet = 1;
  rc = cc_cli_run(&r, null ? null : stderr, err);
  if (null)
    fclose(null);
  return rc;
}

/* The fix's launch file parsed as the main job's command line with --html page. */
static int run_fixed_page(const char *launch, char *page, struct cc_err *err)
{
  char *argv[] = {"coalcheck", "--launch", (char *)launch, "--html", page, "-q", NULL};
  struct cc_run_opts r;
  FILE *null;
  int rc = cc_cli_parse_run(6, argv, &r, err);
  if (rc == CC_OK) {
    null = fopen("/dev/null", "w");
    rc = cc_cli_run(&r, null ? null : stderr, err);
    if (null)
      fclose(null);
  }
  cc_cli_opts_release(&r);
  return rc;
}

static int write_pair(FILE *fp, const char *before, const char *after)
{
  char *b = attr_escape(before), *a = attr_escape(after);
  int ok = fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                 "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                 "<title>coalcheck fix: before and after</title><style>"
                 "body{margin:0;font:13px system-ui,sans-serif}"
                 "#pair{display:flex;height:100vh}#pair div{flex:1;display:flex;"
                 "flex-direction:column}h2{margin:4px 8px;font-size:14px}"
                 "iframe{flex:1;border:0;border-right:1px solid #ccc;width:100%}"
                 "</style></head><body><div id=\"pair\">\n"
                 "<div><h2>before: the original launch</h2><iframe id=\"before\" "
                 "sandbox=\"allow-scripts\" srcdoc=\"", fp) >= 0 &&
           fputs(b, fp) >= 0 &&
           fputs("\"></iframe></div>\n<div><h2>after: the fix (DIR's launch)</h2>"
                 "<iframe id=\"after\" sandbox=\"allow-scripts\" srcdoc=\"", fp) >= 0 &&
           fputs(a, fp) >= 0 && fputs("\"></iframe></div>\n</div></body></html>\n", fp) >= 0;
  free(b);
  free(a);
  return ok;
}

int cc_cli_fix_html(const struct cc_run_opts *o, struct cc_outfile *f, struct cc_err *err)
{
  char *tmp = cc_tmpdir_make(err), *launch = NULL, *before = NULL, *after = NULL;
  char *pb = NULL, *pa = NULL;
  int rc;
  if (!tmp)
    return CC_ERR_IO;
  pb = cc_xmalloc(strlen(tmp) + 16);
  pa = cc_xmalloc(strlen(tmp) + 16);
  sprintf(pb, "%s/before.html", tmp);
  sprintf(pa, "%s/after.html", tmp);
  if ((rc = run_page(o, pb, err)) == CC_OK && (rc = find_launch(o->fix_dir, &launch, err)) ==
      CC_OK && (rc = run_fixed_page(launch, pa, err)) == CC_OK &&
      (rc = cc_file_read(pb, &before, NULL, err)) == CC_OK &&
      (rc = cc_file_read(pa, &after, NULL, err)) == CC_OK) {
    rc = write_pair(f->fp, before, after) ? cc_outfile_commit(f, err)
         : cc_err_set(err, CC_ERR_IO, "cannot write %s: write error (disk full?)",
                      o->html_path);
  }
  unlink(pb);
  unlink(pa);
  rmdir(tmp);
  free(pb);
  free(pa);
  free(tmp);
  free(launch);
  free(before);
  free(after);
  return rc;
}
