/* What the libFuzzer targets of tests/fuzz share: the entry point's prototype and a
 * scratch file for entry points that read a path. See README.md. */
#ifndef CC_TESTS_FUZZ_H
#define CC_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libFuzzer's entry point: one input, data[0..size); returns 0 (inputs are never
 * rejected from the corpus). A crash, a sanitizer report or abort() is a finding. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch folder of this process, made at the first call and removed at exit: in
 * $TMPDIR, else in /dev/shm (memory: a file written per input on a disk-backed /tmp costs
 * about 1.5 ms, 15x the parse), else in /tmp. */
static char fuzz_dir_buf[256];

static inline void fuzz_dir_remove(void)
{
  char cmd[300];
  if (!fuzz_dir_buf[0])
    return;
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_buf);
  if (system(cmd) != 0)
    fprintf(stderr, "fuzz: cannot remove %s\n", fuzz_dir_buf);
}

static inline const char *fuzz_dir(void)
{
  if (!fuzz_dir_buf[0]) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
      tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_dir_buf, sizeof fuzz_dir_buf, "%s/cc-fuzz-XXXXXX", tmp);
    if (!mkdtemp(fuzz_dir_buf)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(fuzz_dir_remove);
  }
  return fuzz_dir_buf;
}

/* Writes data[0..size) to DIR/name (replacing it) and returns its path (valid until the
 * next call). Aborts when the file cannot be written: that is the harness's failure. */
static inline const char *fuzz_file(const char *name, const uint8_t *data, size_t size)
{
  static char path[320];
  FILE *fp;
  snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
  fp = fopen(path, "wb");
  if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0) {
    perror("fuzz: cannot write the scratch file");
    abort();
  }
  return path;
}

/* A NUL-terminated copy of data (owned by the caller). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if (!s)
    abort();
  if (size)
    memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

#endif
