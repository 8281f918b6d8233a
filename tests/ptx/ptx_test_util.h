/* Helpers shared by the PTX tests: parsing inline text, printing to a string, finding
 * and running the CUDA tools (nvcc, ptxas), scratch directories. Header-only (static)
 * because every test program is built from one .c file. */
#ifndef CC_TESTS_PTX_TEST_UTIL_H
#define CC_TESTS_PTX_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptx/ptx.h"

/* Parses a NUL-terminated PTX text named "t.ptx"; fails the test with the message when
 * it does not parse. */
static inline struct ptx_module *parse_ok(const char *text) {
  struct cc_err err = {0};
  struct ptx_module *m = NULL;
  int rc = ptx_parse(text, strlen(text), "t.ptx", &m, &err);
  if (rc != CC_OK) {
    fprintf(stderr, "unexpected parse error: %s\n", err.msg);
    return NULL;
  }
  return m;
}

/* Parses text that must fail; returns the message in a static buffer ("" on success). */
static inline const char *parse_err(const char *text) {
  static struct cc_err err;
  struct ptx_module *m = NULL;
  memset(&err, 0, sizeof err);
  int rc = ptx_parse(text, strlen(text), "t.ptx", &m, &err);
  if (rc == CC_OK) {
    ptx_module_free(m);
    return "";
  }
  if (rc != CC_ERR_INPUT || m != NULL) return "<wrong status or module not NULL>";
  return err.msg;
}

/* The module printed to a malloc'ed string. */
static inline char *print_to_string(const struct ptx_module *m) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  int rc = ptx_print_module(m, f);
  fclose(f);
  if (rc != 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Full path of a CUDA tool: on PATH, else in /usr/local/cuda/bin; NULL when absent.
 * Returns a static buffer. */
static inline const char *find_tool(const char *name) {
  static char path[4096];
  const char *env = getenv("PATH");
  if (env) {
    const char *s = env;
    while (*s) {
      const char *e = strchr(s, ':');
      size_t n = e ? (size_t)(e - s) : strlen(s);
      if (n > 0 && n < 3000) {
        snprintf(path, sizeof path, "%.*s/%s", (int)n, s, name);
        if (access(path, X_OK) == 0) return path;
      }
      if (!e) break;
      s = e + 1;
    }
  }
  snprintf(path, sizeof path, "/usr/local/cuda/bin/%s", name);
  if (access(path, X_OK) == 0) return path;
  return NULL;
}

/* A fresh scratch directory under TMPDIR (caller frees the string); the test program
 * stops when none can be made (a broken machine, not a finding of the test). */
static inline __attribute__((returns_nonnull)) char *scratch_dir(void) {
  const char *tmp = getenv("TMPDIR");
  char *p = malloc(4096);
  if (!p) abort();
  snprintf(p, 4096, "%s/cc_ptx_test_XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(p)) {
    perror("mkdtemp");
    exit(1);
  }
  return p;
}

/* Removes a scratch directory and the plain files in it. */
static inline void scratch_remove(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    char p[8192];
    while ((e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
    closedir(d);
  }
  rmdir(dir);
}

/* Writes text to path; 0 on success. */
static inline int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, f) == n;
  return (fclose(f) == 0 && ok) ? 0 : -1;
}

/* Runs "ptxas -arch=sm_90 FILE -o DIR/out.o" quietly; returns its exit status (0 = accepted);
 * the tool's messages go to stderr so that a failure shows them. */
static inline int run_ptxas(const char *ptxas, const char *file, const char *dir) {
  char cmd[12288];
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s' -o '%s/out.o'", ptxas, file, dir);
  return system(cmd);
}

/* Assembles PTX text with ptxas in a scratch directory; returns ptxas's status (0 =
 * accepted) or -1 when the file cannot be written. */
static inline int ptxas_text(const char *ptxas, const char *text, const char *name) {
  char *dir = scratch_dir();
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int rc = write_file(path, text) == 0 ? run_ptxas(ptxas, path, dir) : -1;
  scratch_remove(dir);
  free(dir);
  return rc;
}

#endif
