/* What `coalcheck fix` writes: the output folder (rewritten input, KERNEL.launch,
 * fix.diff), whole or not at all. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include "util/mem.h"

extern char **environ;

static int dir_is_empty(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *e;
  int empty = 1;
  if (!d)
    return 0;
  while (empty && (e = readdir(d)))
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(d);
  return empty;
}

/* Whether path (an existing file) lies inside folder dir (both resolved: links, ./). */
static int inside(const char *path, const char *dir)
{
  char rp[PATH_MAX], rd[PATH_MAX];
  size_t n;
  if (!realpath(path, rp) || !realpath(dir, rd))
    return 0;
  n = strlen(rd);
  return strncmp(rp, rd, n) == 0 && (rp[n] == '/' || (n == 1 && rd[0] == '/'));
}

/* A file the fix reads (the input, a file: initialiser) inside DIR, which --force would
 * replace: its path, or NULL. */
static const char *input_inside(const struct cc_fix_opts *o)
{
  if (inside(o->input, o->out_dir))
    return o->input;
  for (size_t i = 0; i < o->nargs; i++)
    if (o->args[i].is_buffer && o->args[i].init == CC_INIT_FILE &&
        inside(o->args[i].init_text, o->out_dir))
      return o->args[i].init_text;
  return NULL;
}

int cc_fix_check_dir(const struct cc_fix_opts *o, struct cc_err *err)
{
  struct stat st;
  const char *in;
  if (!o->out_dir || !*o->out_dir)
    return cc_err_set(err, CC_ERR_USAGE, "missing -o DIR: the folder to write the fix into");
  if (stat(o->out_dir, &st) != 0)
    return errno == ENOENT ? CC_OK
                           : cc_err_set(err, CC_ERR_IO, "cannot use -o %s: %s", o->out_dir,
                                        strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return cc_err_set(err, CC_ERR_USAGE, "-o %s exists and is not a folder; name a new folder",
                      o->out_dir);
  if ((in = input_inside(o)) != NULL)
    return cc_err_set(err, CC_ERR_USAGE, "-o %s holds %s, which the fix reads; name another "
                      "folder for the fix", o->out_dir, in);
  if (!o->force && !dir_is_empty(o->out_dir))
    return cc_err_set(err, CC_ERR_USAGE, "-o %s is not empty; pass --force to replace it, or "
                      "name a new folder", o->out_dir);
  return CC_OK;
}

static int write_file(const char *dir, const char *name, const char *data, size_t len,
                      struct cc_err *err)
{
  char *path = cc_xmalloc(strlen(dir) + strlen(name) + 2);
  FILE *fp;
  int ok;
  sprintf(path, "%s/%s", dir, name);
  fp = fopen(path, "w");
  ok = fp && fwrite(data, 1, len, fp) == len;
  ok = fp && fclose(fp) == 0 && ok;
  if (!ok) {
    int rc = cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    free(path);
    return rc;
  }
  free(path);
  return CC_OK;
}

/* A launch-file word in single quotes ('\'' for a quote inside). */
static void put_quoted(FILE *fp, const char *s)
{
  fputc('\'', fp);
  for (; *s; s++) {
    if (*s == '\'')
      fputs("'\\''", fp);
    else
      fputc(*s, fp);
  }
  fputc('\'', fp);
}

static const char *type_word(enum ptx_type t)
{
  return ptx_type_name(t);
}

/* The launch-file LAYOUT the chosen fix gives buffer name, or NULL. */
static const char *fix_layout(const struct cc_fix_plan *p, const char *name)
{
  const struct cc_fix_xcand *c = p->xchosen >= 0 ? &p->x.data[p->xchosen] : NULL;
  for (uint32_t i = 0; c && name && i < c->nrelayouts; i++)
    if (c->relayouts[i].launch_layout && strcmp(c->relayouts[i].buffer, name) == 0)
      return c->relayouts[i].launch_layout;
  return NULL;
}

/* One --arg as a launch-file word: its spec as given, except a file: initialiser, whose
 * path is made absolute (the new launch file lives elsewhere), and a buffer whose layout
 * the fix changed, which gets that LAYOUT before its INIT (the INIT still fills the
 * original's layout; launch.h); an offset(BYTES) is kept. */
static void put_arg(FILE *fp, const struct cc_launch_arg *a, const char *layout)
{
  char abs[PATH_MAX], own[1024];
  int is_file = a->is_buffer && a->init == CC_INIT_FILE && realpath(a->init_text, abs);
  fputs("--arg ", fp);
  if (!layout && a->is_buffer && a->layout.struct_bytes &&
      cc_launch_layout_format(&a->layout, own, sizeof own) > 0)
    layout = own; /* the argument's own LAYOUT stays */
  if (is_file || layout) {
    /* INIT as written (arg.c's init_at); the offset(BYTES) stays */
    const char *init = a->text + a->init_at;
    char *spec, offset[32] = "";
    if (a->offset)
      snprintf(offset, sizeof offset, "offset(%u):", a->offset);
    spec = cc_xmalloc(strlen(a->text) + (is_file ? strlen(abs) : 0) + strlen(layout ? layout : "") + 64);
    sprintf(spec, "%s=%s[%s]:%s%s%s%s%s", a->name, type_word(a->type), a->size_expr, offset,
            layout ? layout : "", layout ? ":" : "", is_file ? "file:" : "",
            is_file ? abs : init);
    put_quoted(fp, spec);
    free(spec);
  } else {
    put_quoted(fp, a->text);
  }
  fputc('\n', fp);
}

/* KERNEL.launch text (owned). */
static char *launch_text(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                         const char *input_name)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *fp = open_memstream(&buf, &len);
  if (!fp)
    abort();
  fprintf(fp, "# coalcheck fix (%s): kernel %s of %s: %s,\n"
          "# verified in the emulator: %s, global sectors %llu -> %llu\n",
          p->transform, o->kernel_name, o->input, p->what,
          p->compare == CC_FIX_COMPARE_BITWISE ? "every buffer bitwise equal"
                                               : "outputs within the reassociation bound",
          (unsigned long long)cc_fix_measure_kernel(&p->before)->totals.sectors,
          (unsigned long long)cc_fix_measure_kernel(&p->after)->totals.sectors);
  if (p->launch_note) { /* what a launch of the fixed kernel must also do, as comments */
    fputs("# ", fp);
    for (const char *c = p->launch_note; *c; c++)
      fputs(*c == '\n' ? "\n# " : (char[2]){*c, 0}, fp);
    fputc('\n', fp);
  }
  put_quoted(fp, input_name);
  fputs(" --kernel ", fp);
  put_quoted(fp, o->kernel_name);
  fprintf(fp, "\n--grid %u,%u,%u --block %u,%u,%u\n", p->grid[0], p->grid[1], p->grid[2],
          p->block[0], p->block[1], p->block[2]);
  if (p->shared_bytes)
    fprintf(fp, "--shared %u\n", p->shared_bytes);
  if (o->input_is_cuda) { /* the input's own folder stays on the include path */
    char *dcopy = cc_xstrdup(o->input), abs[PATH_MAX];
    const char *dir = realpath(dirname(dcopy), abs) ? abs : ".";
    char *flags = cc_xmalloc(strlen(dir) + (o->nvcc_flags ? strlen(o->nvcc_flags) : 0) + 8);
    sprintf(flags, "-I%s%s%s", dir, o->nvcc_flags ? " " : "", o->nvcc_flags ? o->nvcc_flags : "");
    fputs("--nvcc-flags ", fp);
    put_quoted(fp, flags);
    fputc('\n', fp);
    free(flags);
    free(dcopy);
  } else if (o->nvcc_flags) {
    fputs("--nvcc-flags ", fp);
    put_quoted(fp, o->nvcc_flags);
    fputc('\n', fp);
  }
  if (o->max_insns)
    fprintf(fp, "--max-insns %llu\n", (unsigned long long)o->max_insns);
  for (size_t i = 0; i < o->nargs; i++)
    put_arg(fp, &o->args[i], fix_layout(p, o->args[i].name));
  fclose(fp);
  return buf;
}

/* `diff -u` of the input against DIR/NAME into DIR/fix.diff, labelled a/NAME, b/NAME.
 * diff exits 1 when the files differ: that is success here. */
static int write_diff(const char *input, const char *dir, const char *name, struct cc_err *err)
{
  char *after = cc_xmalloc(strlen(dir) + strlen(name) + 2), *out = cc_xmalloc(strlen(dir) + 16);
  char *la = cc_xmalloc(strlen(name) + 3), *lb = cc_xmalloc(strlen(name) + 3);
  char *argv[] = {"diff", "-u", "--label", la, "--label", lb, (char *)input, after, NULL};
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int status = 0, rc;
  sprintf(after, "%s/%s", dir, name);
  sprintf(out, "%s/fix.diff", dir);
  sprintf(la, "a/%s", name);
  sprintf(lb, "b/%s", name);
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  rc = posix_spawnp(&pid, "diff", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc == 0 && waitpid(pid, &status, 0) < 0)
    rc = errno;
  if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) > 1)
    rc = cc_err_set(err, CC_ERR_TOOL, "cannot write %s: `diff -u` %s; install diffutils", out,
                    rc ? strerror(rc) : "failed");
  else
    rc = CC_OK;
  free(after);
  free(out);
  free(la);
  free(lb);
  return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  return remove(path);
}

/* Creates the missing folders above path (mkdir -p of its parent), so that -o a/b/c works
 * like the other outputs' paths would in a shell script. */
static int make_parents(const char *path, struct cc_err *err)
{
  char *copy = cc_xstrdup(path);
  int rc = CC_OK;
  for (char *p = copy + 1; *p && rc == CC_OK; p++) {
    if (*p != '/')
      continue;
    *p = '\0';
    if (mkdir(copy, 0777) != 0 && errno != EEXIST)
      rc = cc_err_set(err, CC_ERR_IO, "cannot create the folder %s for -o %s: %s", copy, path,
                      strerror(errno));
    *p = '/';
  }
  free(copy);
  return rc;
}

/* The output file name of kernel K's launch: K with every character other than
 * [A-Za-z0-9_.-] made '_', then ".launch" (owned). */
static char *launch_name(const char *kernel)
{
  char *s = cc_xmalloc(strlen(kernel) + 8);
  size_t i;
  for (i = 0; kernel[i]; i++) {
    char c = kernel[i];
    s[i] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-' ? c : '_';
  }
  strcpy(s + i, ".launch");
  return s;
}

/* Moves the finished folder tmp to DIR: an empty DIR is removed first; a non-empty one
 * (--force) is renamed aside and removed after the move, so DIR is never half. */
static int move_into_place(const char *tmp, const char *dir, struct cc_err *err)
{
  struct stat st;
  char *old = NULL;
  int rc = CC_OK;
  if (stat(dir, &st) == 0) {
    old = cc_xmalloc(strlen(dir) + 32);
    sprintf(old, "%s.old.%ld", dir, (long)getpid());
    if (rename(dir, old) != 0)
      rc = cc_err_set(err, CC_ERR_IO, "cannot replace %s: %s", dir, strerror(errno));
  }
  if (rc == CC_OK && rename(tmp, dir) != 0) {
    rc = cc_err_set(err, CC_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    if (old)
      rename(old, dir);
  }
  if (rc == CC_OK && old)
    nftw(old, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  free(old);
  return rc;
}

/* The chosen source candidate's extra file (the host-side routines of soa), if any, under
 * its own name; a name that is the input's, a launch's or fix.diff, or that leaves DIR,
 * is a bug of the transformation. */
static int write_extra(const struct cc_fix_plan *p, const char *dir, const char *input_name,
                       struct cc_err *err)
{
  const struct cc_fix_xcand *c = p->xchosen >= 0 ? &p->x.data[p->xchosen] : NULL;
  if (!c || !c->extra_name || !c->extra_text)
    return CC_OK;
  if (strchr(c->extra_name, '/') || !strcmp(c->extra_name, input_name) ||
      !strcmp(c->extra_name, "fix.diff") || strstr(c->extra_name, ".launch") ||
      c->extra_name[0] == '.')
    return cc_err_set(err, CC_ERR_INTERNAL, "the %s fix names its extra file '%s', which "
                      "may not be written", c->transform, c->extra_name);
  return write_file(dir, c->extra_name, c->extra_text, strlen(c->extra_text), err);
}

int cc_fix_emit_dir(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                    struct cc_err *err)
{
  char *copy = cc_xstrdup(o->input), *name = basename(copy);
  char *tmp = cc_xmalloc(strlen(o->out_dir) + 32), *launch = NULL, *lname = NULL;
  int rc;
  if ((rc = cc_fix_check_dir(o, err)) != CC_OK)
    goto done;
  sprintf(tmp, "%s.tmp.%ld", o->out_dir, (long)getpid());
  if ((rc = make_parents(o->out_dir, err)) != CC_OK)
    goto done;
  if (mkdir(tmp, 0777) != 0) {
    rc = cc_err_set(err, CC_ERR_IO, "cannot create %s: %s", tmp, strerror(errno));
    goto done;
  }
  launch = launch_text(o, p, name);
  lname = launch_name(o->kernel_name);
  if ((rc = write_file(tmp, name, p->text, p->len, err)) != CC_OK ||
      (rc = write_file(tmp, lname, launch, strlen(launch), err)) != CC_OK ||
      (rc = write_extra(p, tmp, name, err)) != CC_OK ||
      (rc = write_diff(o->input, tmp, name, err)) != CC_OK ||
      (rc = move_into_place(tmp, o->out_dir, err)) != CC_OK)
    nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
done:
  free(copy);
  free(tmp);
  free(launch);
  free(lname);
  return rc;
}
