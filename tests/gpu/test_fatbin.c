/* Tests for src/gpu/fatbin.c: fatbins written by this machine's nvcc (skipped without
 * it) and hand-made byte images. Expected entries come from the nvcc flags (which
 * architectures each -gencode embeds, CUDA C Programming Guide, "nvcc: -arch/-gencode")
 * and from hexdumps of nvcc 13's output, written out at each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gpu/fatbin.h"
#include "util/fileio.h"

/* two kernels; k2's name mangles to _Z2k2Pfi */
static const char kSource[] =
    "__global__ void k1(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
    " if (i < n) a[i] *= 2; }\n"
    "__global__ void k2(float *a, int n) { a[threadIdx.x * n] += 1; }\n";

/* nvcc -fatbin FLAGS of kSource into a fresh buffer (*len bytes); NULL without nvcc. */
static uint8_t *nvcc_fatbin(const char *flags, size_t *len)
{
  char dir[] = "/tmp/cc_fatbin_XXXXXX", cmd[1024], path[256];
  char *buf = NULL;
  struct cc_err err = {0};
  if (system("nvcc --version > /dev/null 2>&1") != 0 || !mkdtemp(dir))
    return NULL;
  snprintf(path, sizeof path, "%s/k.cu", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(kSource, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd %s && nvcc -fatbin %s -o k.fatbin k.cu > /dev/null 2>&1", dir,
           flags);
  int rc = system(cmd);
  snprintf(path, sizeof path, "%s/k.fatbin", dir);
  if (rc == 0 && cc_file_read(path, &buf, len, &err) != CC_OK)
    fail_msg("%s", err.msg);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    print_message("could not remove %s\n", dir);
  assert_int_equal(rc, 0);
  return (uint8_t *)buf;
}

#define NEED(fb)                                                                        \
  do {                                                                                  \
    if (!(fb)) {                                                                        \
      print_message("nvcc not available: skipped\n");                                   \
      skip();                                                                           \
    }                                                                                   \
  } while (0)

static struct cc_fatbin_entry *entries_of(const uint8_t *fb, size_t len, size_t *n)
{
  struct cc_fatbin_entry *e = NULL;
  struct cc_err err = {0};
  uint64_t bytes;
  const uint8_t *p = cc_fatbin_find(fb, &bytes);
  assert_ptr_equal(p, fb);
  assert_int_equal(bytes, len); /* the header's sizes cover the whole file */
  if (cc_fatbin_entries(p, bytes, &e, n, &err) != CC_OK)
    fail_msg("%s", err.msg);
  return e;
}

/* -arch=sm_90 embeds the sm_90 cubin and the compute_90 PTX, in that order (nvcc 13's
 * hexdump: kind 2 arch 0x5a, then kind 1 arch 0x5a, flags 0x8011: ZSTD); the PTX
 * decompresses to text with ".target sm_90" and both kernels' .entry. */
static void test_sm90(void **state)
{
  size_t len, n;
  (void)state;
  uint8_t *fb = nvcc_fatbin("-arch=sm_90", &len);
  NEED(fb);
  struct cc_fatbin_entry *e = entries_of(fb, len, &n);
  assert_int_equal(n, 2);
  assert_int_equal(e[0].kind, CC_FATBIN_ELF);
  assert_int_equal(e[0].arch, 90);
  assert_memory_equal(e[0].payload, "\x7f" "ELF", 4);
  assert_int_equal(e[1].kind, CC_FATBIN_PTX);
  assert_int_equal(e[1].arch, 90);
  assert_true(e[1].flags & CC_FATBIN_F_ZSTD);
  assert_true(e[1].stored < e[1].plain); /* compressed */
  const struct cc_fatbin_entry *p = cc_fatbin_best_ptx(e, n, 90);
  assert_ptr_equal(p, &e[1]);
  char *text;
  size_t tlen;
  struct cc_err err = {0};
  assert_int_equal(cc_fatbin_ptx_text(p, &text, &tlen, &err), CC_OK);
  assert_int_equal(tlen, strlen(text));
  assert_int_equal(tlen + 1, e[1].plain); /* nvcc states the text with its NUL */
  assert_non_null(strstr(text, ".target sm_90"));
  assert_non_null(strstr(text, ".entry _Z2k1Pfi("));
  assert_non_null(strstr(text, ".entry _Z2k2Pfi("));
  /* a device below compute_90 cannot use it */
  assert_null(cc_fatbin_best_ptx(e, n, 89));
  free(text);
  free(e);
  free(fb);
}

/* --no-compress: the PTX stored as text, padded with NULs to its payload size; the text
 * equals the compressed one's */
static void test_uncompressed(void **state)
{
  size_t len, n, len2, n2;
  (void)state;
  uint8_t *fb = nvcc_fatbin("-arch=sm_90 --no-compress", &len);
  NEED(fb);
  uint8_t *fz = nvcc_fatbin("-arch=sm_90", &len2);
  struct cc_fatbin_entry *e = entries_of(fb, len, &n), *z = entries_of(fz, len2, &n2);
  const struct cc_fatbin_entry *p = cc_fatbin_best_ptx(e, n, 90);
  assert_non_null(p);
  assert_false(p->flags & (CC_FATBIN_F_ZSTD | CC_FATBIN_F_LZ4));
  char *t1, *t2;
  size_t l1, l2;
  struct cc_err err = {0};
  assert_int_equal(cc_fatbin_ptx_text(p, &t1, &l1, &err), CC_OK);
  assert_int_equal(cc_fatbin_ptx_text(cc_fatbin_best_ptx(z, n2, 90), &t2, &l2, &err), CC_OK);
  assert_true(l1 < p->stored); /* padding cut */
  assert_string_equal(t1, t2);
  free(t1);
  free(t2);
  free(e);
  free(z);
  free(fb);
  free(fz);
}

/* Two PTX targets (compute_80 and compute_90): the best for a device is the highest at
 * or below it: 80 for sm_86, 90 for sm_90 and sm_100, none for sm_75. */
static void test_best_of_two(void **state)
{
  size_t len, n;
  (void)state;
  uint8_t *fb = nvcc_fatbin("-gencode arch=compute_80,code=compute_80 "
                            "-gencode arch=compute_90,code=compute_90", &len);
  NEED(fb);
  struct cc_fatbin_entry *e = entries_of(fb, len, &n);
  assert_int_equal(n, 2);
  assert_int_equal(cc_fatbin_best_ptx(e, n, 86)->arch, 80);
  assert_int_equal(cc_fatbin_best_ptx(e, n, 90)->arch, 90);
  assert_int_equal(cc_fatbin_best_ptx(e, n, 100)->arch, 90);
  assert_null(cc_fatbin_best_ptx(e, n, 75));
  free(e);
  free(fb);
}

/* A hand-made fatbin: header (16 bytes: magic, version 1, header 16, 96 bytes of
 * entries), one PTX entry of 80 header bytes and 16 payload bytes "ptx text\0..." not
 * compressed, arch 90; then the same image cut by one byte, and a wrapper pointing at it. */
static void test_hand_made(void **state)
{
  uint8_t fb[16 + 80 + 16] = {0};
  uint32_t magic = CC_FATBIN_MAGIC, hsize = 80, arch = 90;
  uint16_t ver = 1, hs = 16, kind = CC_FATBIN_PTX;
  uint64_t fat = 96, psize = 16;
  (void)state;
  memcpy(fb, &magic, 4);
  memcpy(fb + 4, &ver, 2);
  memcpy(fb + 6, &hs, 2);
  memcpy(fb + 8, &fat, 8);
  memcpy(fb + 16, &kind, 2);
  memcpy(fb + 16 + 4, &hsize, 4);
  memcpy(fb + 16 + 8, &psize, 8);
  memcpy(fb + 16 + 28, &arch, 4);
  memcpy(fb + 96, "ptx text", 8);
  struct cc_fatbin_entry *e;
  size_t n;
  struct cc_err err = {0};
  uint64_t bytes;
  assert_ptr_equal(cc_fatbin_find(fb, &bytes), fb);
  assert_int_equal(bytes, sizeof fb);
  assert_int_equal(cc_fatbin_entries(fb, bytes, &e, &n, &err), CC_OK);
  assert_int_equal(n, 1);
  assert_int_equal(e[0].arch, 90);
  char *t;
  size_t tl;
  assert_int_equal(cc_fatbin_ptx_text(&e[0], &t, &tl, &err), CC_OK);
  assert_string_equal(t, "ptx text");
  free(t);
  free(e);
  /* one byte short: the payload runs past the end */
  assert_int_equal(cc_fatbin_entries(fb, bytes - 1, &e, &n, &err), CC_ERR_INPUT);
  assert_null(e);
  assert_non_null(strstr(err.msg, "runs past the end"));
  /* the wrapper cudart registers: magic, version, pointer */
  struct { uint32_t magic, version; const void *data; const void *name; } w = {
      CC_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
  assert_ptr_equal(cc_fatbin_find(&w, &bytes), fb);
  /* a cubin is not a fatbin */
  assert_null(cc_fatbin_find("\x7f" "ELF....", &bytes));
  assert_int_equal(bytes, 0);
  /* LZ4 is refused by name */
  e = (struct cc_fatbin_entry[]){{.kind = CC_FATBIN_PTX, .arch = 75,
                                  .flags = CC_FATBIN_F_LZ4, .payload = fb, .stored = 4}};
  assert_int_equal(cc_fatbin_ptx_text(&e[0], &t, &tl, &err), CC_ERR_TOOL);
  assert_non_null(strstr(err.msg, "LZ4"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sm90),
      cmocka_unit_test(test_uncompressed),
      cmocka_unit_test(test_best_of_two),
      cmocka_unit_test(test_hand_made),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
