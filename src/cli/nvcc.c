/* The nvcc driver: .cu -> PTX with line info, through posix_spawn (no shell). See cli.h. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/mem.h"

extern char **environ;

#define NVCC_FALLBACK "/usr/local/cuda/bin/nvcc"
/* The flags every compile gets: PTX for the default model's architecture, with .loc
 * line information so that reports can name source lines. */
static const char *const nvcc_fixed[] = {"-ptx", "-lineinfo", "-arch=sm_90"};
#define NVCC_NFIXED (sizeof nvcc_fixed / sizeof nvcc_fixed[0])
/* At most this much of nvcc's output goes into the error message. */
#define NVCC_MSG_MAX 1500

static int is_executable(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *cc_cli_find_program(const char *name, const char *path, const char *fallback)
{
  while (path && *path) {
    size_t n = strcspn(path, ":");
    char *cand = cc_xmalloc(n + strlen(name) + 3);
    /* an empty PATH entry means the current folder (POSIX) */
    if (n == 0)
      sprintf(cand, "./%s", name);
    else
      sprintf(cand, "%.*s/%s", (int)n, path, name);
    if (is_executable(cand))
      return cand;
    free(cand);
    path += n + (path[n] == ':');
  }
  return fallback && is_executable(fallback) ? cc_xstrdup(fallback) : NULL;
}

char *cc_cli_find_nvcc(void)
{
  return cc_cli_find_program("nvcc", getenv("PATH"), NVCC_FALLBACK);
}

static char *join(const char *dir, const char *name)
{
  char *p = cc_xmalloc(strlen(dir) + strlen(name) + 2);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

/* Runs argv[0] with stdout and stderr into log_path, stdin from /dev/null; *status gets
 * the wait status. Returns 0, or an errno from posix_spawn. */
static int spawn_wait(char **argv, const char *log_path, int *status)
{
  posix_spawn_file_actions_t fa;
  pid_t pid;
  int rc;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return rc;
  while (waitpid(pid, status, 0) < 0)
    if (errno != EINTR)
      return errno;
  return 0;
}

/* CC_ERR_TOOL with what nvcc printed (its tail when long). */
static int nvcc_failed(const char *cu_path, int status, const char *log_path, struct cc_err *err)
{
  char *log = NULL;
  size_t len = 0;
  const char *shown;
  char how[64];
  if (cc_file_read(log_path, &log, &len, NULL) != CC_OK)
    log = cc_xstrdup("");
  while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' '))
    log[--len] = '\0';
  shown = len > NVCC_MSG_MAX ? log + len - NVCC_MSG_MAX : log;
  if (WIFEXITED(status))
    snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
  else
    snprintf(how, sizeof how, "killed by signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  cc_err_set(err, CC_ERR_TOOL, "nvcc failed on %s (%s)%s%s%s", cu_path, how,
             len ? ":\n" : "", shown == log ? "" : "...", shown);
  free(log);
  return CC_ERR_TOOL;
}

int cc_cli_nvcc_compile(const char *nvcc, const char *cu_path, const char *flags, char **ptx,
                        size_t *len, struct cc_err *err)
{
  char *dir = NULL, *out_path = NULL, *log_path = NULL, **extra = NULL;
  size_t nextra = 0, argc = 0;
  char **argv = NULL;
  int rc, status = 0;
  *ptx = NULL;
  if (flags && (rc = cc_cli_tokenize(flags, "--nvcc-flags", &extra, &nextra, NULL, err)) !=
                   CC_OK) {
    if (err) /* bad quoting in a command-line option is a usage error */
      err->status = CC_ERR_USAGE;
    return CC_ERR_USAGE;
  }
  if (!nvcc) {
    rc = cc_err_set(err, CC_ERR_TOOL, "cannot compile %s: nvcc is not on PATH nor at %s; "
                    "install the CUDA toolkit, add its bin folder to PATH, or pass a .ptx "
                    "file", cu_path, NVCC_FALLBACK);
    goto done;
  }
  if (!(dir = cc_tmpdir_make(err))) {
    rc = err ? (int)err->status : CC_ERR_IO;
    goto done;
  }
  out_path = join(dir, "kernel.ptx");
  log_path = join(dir, "nvcc.log");
  argv = cc_xcalloc(NVCC_NFIXED + nextra + 5, sizeof *argv);
  argv[argc++] = (char *)nvcc;
  for (size_t i = 0; i < NVCC_NFIXED; i++)
    argv[argc++] = (char *)nvcc_fixed[i];
  for (size_t i = 0; i < nextra; i++)
    argv[argc++] = extra[i];
  argv[argc++] = "-o";
  argv[argc++] = out_path;
  argv[argc++] = (char *)cu_path;
  argv[argc] = NULL;
  if ((rc = spawn_wait(argv, log_path, &status)) != 0) {
    rc = cc_err_set(err, CC_ERR_TOOL, "cannot run %s: %s", nvcc, strerror(rc));
    goto done;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    rc = nvcc_failed(cu_path, status, log_path, err);
    goto done;
  }
  if ((rc = cc_file_read(out_path, ptx, len, err)) != CC_OK) {
    cc_err_prefix(err, "nvcc reported success on %s but wrote no PTX", cu_path);
    if (err)
      err->status = CC_ERR_TOOL;
    rc = CC_ERR_TOOL;
  }
done:
  if (out_path)
    unlink(out_path);
  if (log_path)
    unlink(log_path);
  if (dir)
    rmdir(dir);
  for (size_t i = 0; i < nextra; i++)
    free(extra[i]);
  free(extra);
  free(argv);
  free(out_path);
  free(log_path);
  free(dir);
  return rc;
}
