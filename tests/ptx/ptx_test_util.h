/* Helpers shared by the PTX tests: parsing inline text, printing to a string, finding
 * and running the CUDA tools (nvcc, ptxas), scratch directories. Header-only (static)
 * because every test program is built from one .c file. */
#ifndef CC_TESTS_PTX_TEST_UTIL_H
#define CC_TESTS_PTX_TEST_UTIL_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptx/ptx.h"
#include "util/fileio.h"

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

/* Runs "ptxas -arch=sm_90 FILE -o OUT"; returns its exit status. */
static inline int run_ptxas_o(const char *ptxas, const char *file, const char *out) {
  static char cmd[32768];
  int n = snprintf(cmd, sizeof cmd, "'%s' -arch=sm_90 '%s' -o '%s'", ptxas, file, out);
  if (n < 0 || (size_t)n >= sizeof cmd) return -1;
  return system(cmd);
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

/* The .text.<function> sections of a cubin (ELF64, little-endian): the machine code of
 * each function. Returns the number found (at most max), or -1 when the file is not a
 * readable ELF64 file. names/offsets point into *buf, which the caller frees. */
struct text_sec {
  const char *name;
  const unsigned char *bytes;
  uint64_t size;
};

static inline uint64_t rd_le(const unsigned char *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

static inline int cubin_texts(const char *path, char **buf, struct text_sec *out, int max) {
  size_t len;
  struct cc_err err = {0};
  if (cc_file_read(path, buf, &len, &err) != 0) return -1;
  const unsigned char *b = (const unsigned char *)*buf;
  if (len < 64 || memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 2 || b[5] != 1) return -1;
  uint64_t shoff = rd_le(b + 0x28, 8), shentsize = rd_le(b + 0x3A, 2);
  uint64_t shnum = rd_le(b + 0x3C, 2), shstrndx = rd_le(b + 0x3E, 2);
  if (shentsize < 64 || shstrndx >= shnum || shoff > len || shnum * shentsize > len - shoff)
    return -1;
  const unsigned char *strh = b + shoff + shstrndx * shentsize;
  uint64_t stroff = rd_le(strh + 0x18, 8), strsize = rd_le(strh + 0x20, 8);
  if (stroff > len || strsize > len - stroff) return -1;
  int n = 0;
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *h = b + shoff + i * shentsize;
    uint64_t name = rd_le(h, 4), off = rd_le(h + 0x18, 8), size = rd_le(h + 0x20, 8);
    if (name >= strsize || !memchr(b + stroff + name, 0, strsize - name)) return -1;
    const char *nm = (const char *)b + stroff + name;
    if (strncmp(nm, ".text.", 6) != 0) continue;
    if (off > len || size > len - off || n >= max) return -1;
    out[n++] = (struct text_sec){nm, b + off, size};
  }
  return n;
}

/* Compares the machine code of two cubins function by function: 0 when every .text.*
 * section has the same name and bytes in both; otherwise 1 (or -1 when unreadable),
 * with the first difference written to stderr. */
static inline int cubin_same_code(const char *a, const char *b) {
  char *ba = NULL, *bb = NULL;
  struct text_sec sa[256], sb[256];
  int na = cubin_texts(a, &ba, sa, 256), nb = cubin_texts(b, &bb, sb, 256), rc = 0;
  if (na < 0 || nb < 0) {
    rc = -1;
  } else if (na != nb) {
    fprintf(stderr, "%d functions in %s, %d in %s\n", na, a, nb, b);
    rc = 1;
  } else {
    for (int i = 0; i < na && rc == 0; i++) {
      int j = 0;
      while (j < nb && strcmp(sa[i].name, sb[j].name) != 0) j++;
      if (j == nb || sa[i].size != sb[j].size || memcmp(sa[i].bytes, sb[j].bytes, sa[i].size)) {
        fprintf(stderr, "machine code of %s differs\n", sa[i].name);
        rc = 1;
      }
    }
  }
  free(ba);
  free(bb);
  return rc;
}

#endif
