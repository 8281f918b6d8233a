/* Runs a libFuzzer target without libFuzzer: every file named on the command line, or
 * every regular file of a directory named there (in name order), is read whole and given
 * to LLVMFuzzerTestOneInput once. Exit 0 when all ran (a crash ends the process as it
 * would under libFuzzer), 1 when a file cannot be read or a directory holds none. For
 * the regression tests of tests/fuzz (CTest fuzz/<target>), with gcc or clang. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds the file at path to the target; returns 0, or -1 when it cannot be read. */
static int run_file(const char *path)
{
  FILE *fp = fopen(path, "rb");
  uint8_t *data = NULL;
  size_t size = 0, cap = 0, n;
  if (!fp) {
    fprintf(stderr, "standalone: cannot open %s\n", path);
    return -1;
  }
  do {
    if (size == cap) {
      cap = cap ? 2 * cap : 4096;
      data = realloc(data, cap);
      if (!data)
        abort();
    }
    n = fread(data + size, 1, cap - size, fp);
    size += n;
  } while (n > 0);
  fclose(fp);
  /* a copy of exactly size bytes, so that ASan sees reads past the input */
  uint8_t *exact = malloc(size ? size : 1);
  if (!exact)
    abort();
  memcpy(exact, data, size);
  free(data);
  LLVMFuzzerTestOneInput(exact, size);
  free(exact);
  return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
  int status = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    struct dirent **names;
    int n, ran = 0;
    if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
      status |= run_file(argv[i]) != 0;
      continue;
    }
    n = scandir(argv[i], &names, NULL, by_name);
    for (int j = 0; j < n; j++) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], names[j]->d_name);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        status |= run_file(path) != 0;
        ran++;
      }
      free(names[j]);
    }
    free(names);
    if (ran == 0) {
      fprintf(stderr, "standalone: no input files in %s\n", argv[i]);
      status = 1;
    }
    printf("standalone: %d inputs from %s\n", ran, argv[i]);
  }
  return status;
}
