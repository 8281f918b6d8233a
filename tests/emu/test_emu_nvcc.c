/* Emulator on real nvcc output: tests/emu/data/kernels.cu is compiled at test time
 * (nvcc -ptx -arch=sm_90 -lineinfo; skipped when nvcc is absent: set NVCC or install the
 * CUDA toolkit at /usr/local/cuda), each kernel runs in the emulator and its output is
 * compared with a C reference written here from the kernel's meaning. */
#include <stdlib.h>
#include <unistd.h>
#include <math.h>

#include "emu/harness.h"

static char ptx_path[512];
static int have_ptx;

static int setup(void **state)
{
  const char *nvcc = getenv("NVCC");
  char dir[] = "/tmp/cc_emu_nvcc_XXXXXX", cmd[2048];
  (void)state;
  if (!nvcc) nvcc = "/usr/local/cuda/bin/nvcc";
  if (access(nvcc, X_OK) != 0) return 0;
  if (!mkdtemp(dir)) return 0;
  snprintf(ptx_path, sizeof ptx_path, "%s/kernels.ptx", dir);
  snprintf(cmd, sizeof cmd, "%s -ptx -arch=sm_90 -lineinfo -o %s %s/tests/emu/data/kernels.cu",
           nvcc, ptx_path, CC_SOURCE_DIR);
  have_ptx = system(cmd) == 0;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  if (have_ptx) {
    char dir[512];
    unlink(ptx_path);
    snprintf(dir, sizeof dir, "%s", ptx_path);
    *strrchr(dir, '/') = 0;
    rmdir(dir);
  }
  return 0;
}

static struct ptx_module *load(void)
{
  struct ptx_module *m = NULL;
  struct cc_err err;
  if (!have_ptx) return NULL;
  memset(&err, 0, sizeof err);
  if (ptx_parse_file(ptx_path, &m, &err) != CC_OK) {
    print_error("parse of nvcc output failed: %s\n", err.msg);
    fail();
  }
  return m;
}

#define NEED_PTX(m)                                                                     \
  do {                                                                                  \
    if (!(m)) {                                                                         \
      print_message("nvcc not available: skipped\n");                                   \
      skip();                                                                           \
    }                                                                                   \
  } while (0)

static void test_block_sum(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  uint64_t din, dout;
  int32_t *in, *out;
  struct launch l = L1(4, 256);
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  in = alloc_ok(emu, 1000 * 4, "in", &din);
  out = alloc_ok(emu, 4 * 4, "out", &dout);
  for (int j = 0; j < 1000; j++) in[j] = j * 3 - 700;
  arg64(&l, din);
  arg64(&l, dout);
  arg32(&l, 1000);
  launch_ok(emu, m, "block_sum", &l, NULL, NULL);
  for (int b = 0; b < 4; b++) {
    int32_t want = 0;
    for (int j = b * 256; j < b * 256 + 256 && j < 1000; j++) want += in[j];
    assert_int_equal(out[b], want);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

static void test_warp_sum_and_histogram(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  uint64_t din, dout, dbytes, dbins;
  int32_t *in, *out;
  uint8_t *bytes;
  uint32_t *bins, want[16] = {0};
  struct launch l = L1(3, 64), h = L1(2, 96);
  int64_t sum = 0;
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  in = alloc_ok(emu, 192 * 4, "in", &din);
  out = alloc_ok(emu, 4, "out", &dout);
  for (int j = 0; j < 192; j++) sum += in[j] = (j * 37) % 101;
  arg64(&l, din);
  arg64(&l, dout);
  launch_ok(emu, m, "warp_sum", &l, NULL, NULL);
  assert_int_equal(out[0], sum);
  bytes = alloc_ok(emu, 1000, "bytes", &dbytes);
  bins = alloc_ok(emu, 16 * 4, "bins", &dbins);
  for (int j = 0; j < 1000; j++) want[(bytes[j] = (uint8_t)(j * 7 + j / 13)) & 15]++;
  arg64(&h, dbytes);
  arg64(&h, dbins);
  arg32(&h, 1000);
  launch_ok(emu, m, "histogram", &h, NULL, NULL);
  for (int b = 0; b < 16; b++) assert_int_equal(bins[b], want[b]);
  cc_emu_free(emu);
  ptx_module_free(m);
}

static void test_steps_divergent_call(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  uint64_t dout;
  int32_t *out;
  struct launch l = L1(2, 64);
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  out = alloc_ok(emu, 100 * 4, "out", &dout);
  arg64(&l, dout);
  arg32(&l, 100);
  launch_ok(emu, m, "steps", &l, NULL, NULL);
  for (int i = 0; i < 100; i++) {
    int x = i + 1, s = 0;
    while (x != 1) { x = (x & 1) ? 3 * x + 1 : x / 2; s++; }
    assert_int_equal(out[i], s);
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

static void test_transpose(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  struct rec_sink rs;
  uint64_t din, dout;
  float *in, *out;
  const int w = 70, hh = 40;
  struct launch l = L1(3, 32);
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  in = alloc_ok(emu, (uint64_t)w * hh * 4, "in", &din);
  out = alloc_ok(emu, (uint64_t)w * hh * 4, "out", &dout);
  for (int j = 0; j < w * hh; j++) in[j] = (float)j;
  l.grid[1] = 2;
  l.block[1] = 8;
  arg64(&l, dout);
  arg64(&l, din);
  arg32(&l, (uint32_t)w);
  arg32(&l, (uint32_t)hh);
  rec_init(&rs);
  launch_ok(emu, m, "transpose", &l, &rs.sink, NULL);
  for (int y = 0; y < hh; y++)
    for (int x = 0; x < w; x++) assert_true(out[x * hh + y] == in[y * w + x]);
  /* the table carries source lines from .loc: kernels.cu lines 62 (global load, shared
   * store) and 67 (shared load, global store) hold every memory access of the kernel */
  assert_true(rs.k.n_insns >= 4);
  for (uint32_t j = 0; j < rs.k.n_insns && j < 64; j++) {
    const struct cc_insn_info *ii = &rs.insns[j];
    int is62 = (ii->kind == CC_ACCESS_LOAD) == (ii->space == CC_SPACE_GLOBAL);
    assert_non_null(ii->file);
    assert_true(contains(ii->file, "kernels.cu"));
    assert_int_equal(ii->line, is62 ? 62 : 67);
  }
  assert_true(rs.n > 0);
  rec_release(&rs);
  cc_emu_free(emu);
  ptx_module_free(m);
}

static void test_mixed(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  uint64_t da, db, dout, dball;
  float *a, *b, *out;
  uint32_t *ball;
  struct launch l = L1(2, 32);
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  a = alloc_ok(emu, 64 * 4, "a", &da);
  b = alloc_ok(emu, 64 * 4, "b", &db);
  out = alloc_ok(emu, 64 * 4, "out", &dout);
  ball = alloc_ok(emu, 2 * 4, "ball", &dball);
  for (int j = 0; j < 64; j++) {
    a[j] = (float)j * 1.25f + 0.1f;
    b[j] = (float)(j % 7) * 0.3f;
  }
  arg64(&l, da);
  arg64(&l, db);
  arg64(&l, dout);
  arg64(&l, dball);
  arg32(&l, 5);
  launch_ok(emu, m, "mixed", &l, NULL, NULL);
  for (int i = 0; i < 64; i++) {
    /* loc[j] = a[(i + j) % 64]; loc[(7i + 5) % 16]; sqrt.rn and div.rn are exact */
    float want = sqrtf(a[(i + (i * 7 + 5) % 16) % 64]) / (b[i] + 1.0f);
    assert_true(memcmp(&out[i], &want, 4) == 0);
  }
  /* lanes 0, 3, ..., 30: bits 0x49249249 */
  assert_int_equal(ball[0], 0x49249249u);
  assert_int_equal(ball[1], 0x49249249u);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* `if (i >= n) return; ... __syncthreads();` (kernels.cu early_return_sync): blocks of
 * 64, n = 100: block 1's warp 1 keeps lanes 0..3 (i = 96..99) at the barrier while its
 * lanes 4..31 return; n = 70: block 1's warp 1 returns whole and warp 0 keeps lanes 0..5.
 * out[i] = 10 in[i] + (t + 1 < 64 && i + 1 < n ? 10 in[i + 1] : -1) for i < n (the
 * neighbour of t = 31 is written by the other warp before the barrier); the rest of out
 * keeps the 12345 written here. */
static void test_early_return_sync(void **state)
{
  struct ptx_module *m = load();
  struct cc_emu *emu;
  uint64_t din, dout;
  int32_t *in, *out;
  static const int ns[] = {100, 70};
  (void)state;
  NEED_PTX(m);
  emu = cc_emu_new(m, NULL);
  in = alloc_ok(emu, 128 * 4, "in", &din);
  out = alloc_ok(emu, 128 * 4, "out", &dout);
  for (int j = 0; j < 128; j++) in[j] = 7 * j - 300;
  for (int c = 0; c < 2; c++) {
    int n = ns[c];
    struct launch l = L1(2, 64);
    for (int j = 0; j < 128; j++) out[j] = 12345;
    arg64(&l, din);
    arg64(&l, dout);
    arg32(&l, (uint32_t)n);
    launch_ok(emu, m, "early_return_sync", &l, NULL, NULL);
    for (int i = 0; i < 128; i++) {
      int t = i % 64;
      int want = i >= n ? 12345 : 10 * in[i] + (t + 1 < 64 && i + 1 < n ? 10 * in[i + 1] : -1);
      assert_int_equal(out[i], want);
    }
  }
  cc_emu_free(emu);
  ptx_module_free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block_sum),
      cmocka_unit_test(test_warp_sum_and_histogram),
      cmocka_unit_test(test_steps_divergent_call),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_mixed),
      cmocka_unit_test(test_early_return_sync),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
