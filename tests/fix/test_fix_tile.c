/* src/fix/tile.c, `coalcheck fix --transform tile`: the pair found in the PTX, refusals
 * with their places, and (nvcc 13 on PATH, else skipped) every candidate compiled and
 * emulated against the original: outputs bitwise equal, global sectors and shared
 * wavefronts against figures derived by hand; the unpadded tile [32][32] shows the
 * column conflicts the padding removes (for 4- and 8-byte elements).
 *
 * Figures: sm_90 model, 32-byte sectors, 32 banks of 4 bytes; a request is one warp-level
 * execution of an instruction; a shared request's ideal is one wavefront per 128 bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda/cuda.h"
#include "cuda/tile.h"
#include "fix/fix_impl.h"
#include "ptx/ptx.h"
#include "util/fileio.h"

/* n x n transpose with a guard; n = 64 and 32x8 threads: grid 2 x 8. */
static const char naive[] =
  "__global__ void k(float *out, const float *in, int n)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  if (x < n && y < n)\n"
  "    out[x * n + y] = in[y * n + x];\n"
  "}\n";

static const char naive_f64[] =
  "__global__ void k(double *out, const double *in, int n)\n"
  "{\n"
  "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
  "  out[x * n + y] = in[y * n + x];\n"
  "}\n";

/* One kernel of a test: its file, PTX, arguments and original run. */
struct kfix {
  char *dir;
  char path[1024];
  const char *text;
  struct ptx_module *m;
  const struct ptx_function *k;
  struct cc_launch_arg args[4];
  size_t nargs;
  struct cc_fix_opts o;
  struct cc_fix_measure before;
};

static int have_nvcc(void)
{
  return system("nvcc --version >/dev/null 2>&1") == 0;
}

/* Writes text into dir/name.cu and compiles it to PTX; returns the module. */
static struct ptx_module *compile(const char *dir, const char *name, const char *text)
{
  char cu[1024], ptx[1024], cmd[3200];
  struct ptx_module *m = NULL;
  struct cc_err err = {0};
  FILE *fp;
  snprintf(cu, sizeof cu, "%s/%s.cu", dir, name);
  snprintf(ptx, sizeof ptx, "%s/%s.ptx", dir, name);
  assert_non_null(fp = fopen(cu, "w"));
  assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
  assert_int_equal(fclose(fp), 0);
  snprintf(cmd, sizeof cmd, "nvcc -ptx -lineinfo -arch=sm_90 -o '%s' '%s'", ptx, cu);
  if (system(cmd) != 0)
    fail_msg("nvcc failed on %s", cu);
  if (ptx_parse_file(ptx, &m, &err) != CC_OK)
    fail_msg("%s: %s", ptx, err.msg);
  unlink(ptx);
  return m;
}

static const struct ptx_function *entry(const struct ptx_module *m)
{
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].is_entry)
      return &m->funcs[i];
  fail_msg("no kernel in the PTX");
  return NULL;
}

static void measure(const struct ptx_module *m, const struct ptx_function *k,
                    const struct kfix *f, const uint32_t grid[3], const uint32_t block[3],
                    struct cc_fix_measure *out)
{
  struct cc_fix_launch l;
  struct cc_err err = {0};
  memset(&l, 0, sizeof l);
  memcpy(l.grid, grid, sizeof l.grid);
  memcpy(l.block, block, sizeof l.block);
  l.args = f->args;
  l.nargs = f->nargs;
  if (cc_fix_measure(m, k, &l, out, &err) != CC_OK)
    fail_msg("measure: %s", err.msg);
}

/* Compiles text (kernel k), binds args (NULL-terminated specs) and runs the original. */
static void kfix_init(struct kfix *f, const char *text, const char *const *args,
                      uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by)
{
  struct cc_err err = {0};
  memset(f, 0, sizeof *f);
  assert_non_null(f->dir = cc_tmpdir_make(&err));
  snprintf(f->path, sizeof f->path, "%s/t.cu", f->dir);
  f->text = text;
  f->m = compile(f->dir, "t", text);
  f->k = entry(f->m);
  for (; args[f->nargs]; f->nargs++)
    if (cc_launch_arg_parse(args[f->nargs], NULL, &f->args[f->nargs], &err) != CC_OK)
      fail_msg("%s: %s", args[f->nargs], err.msg);
  f->o.input = f->path;
  f->o.input_text = text;
  f->o.input_len = strlen(text);
  f->o.input_is_cuda = 1;
  f->o.module = f->m;
  f->o.kernel = f->k;
  f->o.kernel_name = "k";
  f->o.grid[0] = gx, f->o.grid[1] = gy, f->o.grid[2] = 1;
  f->o.block[0] = bx, f->o.block[1] = by, f->o.block[2] = 1;
  f->o.args = f->args;
  f->o.nargs = f->nargs;
  measure(f->m, f->k, f, f->o.grid, f->o.block, &f->before);
}

static void kfix_release(struct kfix *f)
{
  char t[1100];
  cc_fix_measure_release(&f->before);
  for (size_t i = 0; i < f->nargs; i++)
    cc_launch_arg_release(&f->args[i]);
  ptx_module_free(f->m);
  snprintf(t, sizeof t, "%s/t.cu", f->dir);
  unlink(t);
  rmdir(f->dir);
  free(f->dir);
}

/* Global sectors and shared wavefronts (and their ideal) of a run. */
static void figures(const struct cc_fix_measure *r, uint64_t *sectors, uint64_t *wf,
                    uint64_t *ideal_wf)
{
  const struct cc_kernel_stats *k = cc_fix_measure_kernel(r);
  *sectors = *wf = *ideal_wf = 0;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (s->info.space == CC_SPACE_GLOBAL)
      *sectors += s->sectors;
    else if (s->info.space == CC_SPACE_SHARED) {
      *wf += s->wavefronts;
      *ideal_wf += s->ideal_wavefronts;
    }
  }
}

/* Compiles text as the fix of f (launch grid/block), emulates it and compares outputs. */
static void run_fix(struct kfix *f, const char *text, const uint32_t grid[3],
                    const uint32_t block[3], uint64_t *sectors, uint64_t *wf, uint64_t *ideal_wf)
{
  struct ptx_module *m = compile(f->dir, "fix", text);
  struct cc_fix_measure after;
  char why[512], cu[1100];
  measure(m, entry(m), f, grid, block, &after);
  if (!cc_fix_buffers_equal(&f->before, &after, why, sizeof why))
    fail_msg("outputs differ: %s", why);
  figures(&after, sectors, wf, ideal_wf);
  cc_fix_measure_release(&after);
  ptx_module_free(m);
  snprintf(cu, sizeof cu, "%s/fix.cu", f->dir);
  unlink(cu);
}

static const char *const args64[] = {"out=f32[n*n]:zero", "in=f32[n*n]:random:5", "n=64", NULL};
static const char *const args64_f64[] = {"out=f64[n*n]:zero", "in=f64[n*n]:random:6", "n=64",
                                         NULL};

/* Both candidates of the naive transpose, n = 64, 32x8 threads (grid 2 x 8).
 * Before: 128 warps, each one row of 32 x at one y. Load: 128 contiguous bytes, 4
 * sectors -> 512; store: 32 lanes 256 bytes apart, 32 sectors -> 4096. Total 4608.
 * After (grid 2 x 2 tiles; 32x8 threads with 4 rows each, or 32x32 threads): phase 0
 * loads 64 rows x 2 tiles = 128 requests of 128 bytes (512 sectors), phase 1 stores as
 * many (512): 1024. The tile: 128 row writes and 128 column reads, one wavefront each
 * (rows of 33 words: lane r's word 33 r + c is in bank (r + c) mod 32): 256 = ideal. */
static void test_naive_candidates(void **state)
{
  struct kfix f;
  cc_fix_xcands cands = {0};
  struct cc_err err = {0};
  uint64_t before_sectors, wf, iwf;
  (void)state;
  if (!have_nvcc())
    skip();
  kfix_init(&f, naive, args64, 2, 8, 32, 8);
  figures(&f.before, &before_sectors, &wf, &iwf);
  assert_int_equal(before_sectors, 4608);
  if (cc_fix_tile(&f.o, &f.before, &cands, &err) != CC_OK)
    fail_msg("%s", err.msg);
  assert_int_equal(cands.len, 2);
  for (size_t i = 0; i < cands.len; i++) {
    struct cc_fix_xcand *c = &cands.data[i];
    uint64_t sectors;
    char want[2400];
    assert_string_equal(c->transform, "tile");
    assert_int_equal(c->compare, CC_FIX_COMPARE_BITWISE);
    assert_int_equal(c->shared_bytes, 0);
    assert_int_equal(c->grid[0], 2);
    assert_int_equal(c->grid[1], 2);
    assert_int_equal(c->grid[2], 1);
    assert_int_equal(c->block[0], 32);
    assert_int_equal(c->block[1], i == 0 ? 8 : 32);
    snprintf(want, sizeof want, "the transposition of %s:6:22 (load, coalesced along x) and "
             "%s:6:5 (store, along y) staged through a 32x33 float tile", f.path, f.path);
    if (strncmp(c->what, want, strlen(want)) != 0)
      fail_msg("what: %s", c->what);
    assert_non_null(strstr(c->launch_note, "launch k with grid (2, 2, 1)"));
    run_fix(&f, c->text, c->grid, c->block, &sectors, &wf, &iwf);
    assert_int_equal(sectors, 1024);
    assert_int_equal(wf, 256);
    assert_int_equal(iwf, 256);
    cc_fix_xcand_release(c);
  }
  CC_VEC_FREE(&cands);
  kfix_release(&f);
}

/* The rewrite with the given padding (cc_cuda_tile directly), run as f's fix. */
static void padded(struct kfix *f, uint32_t pad, uint64_t *sectors, uint64_t *wf, uint64_t *iwf)
{
  struct cc_cuda_tile_spec s = {1, 0, 0, 32, 8, pad, {2, 8}, {32, 8}};
  struct cc_cuda_tile_result r;
  struct cc_err err = {0};
  const uint32_t grid[3] = {2, 2, 1}, block[3] = {32, 8, 1};
  if (cc_cuda_tile(f->path, f->text, strlen(f->text), "k", &s, NULL, 0, &r, &err) != CC_OK)
    fail_msg("%s", err.msg);
  run_fix(f, r.text, grid, block, sectors, wf, iwf);
  cc_cuda_tile_result_release(&r);
}

/* 4-byte elements. Padded: above, 256 wavefronts = ideal. Unpadded tile[32][32]: the
 * writes still hit 32 banks (1 wavefront each, 128), but a column read has lane r at
 * word 32 r + c, all in bank c: 32-way, 32 wavefronts -> 128 * 32 = 4096; 4224 in all
 * against the same ideal 256. The global sectors do not change (1024). */
static void test_padding_f32(void **state)
{
  struct kfix f;
  uint64_t sectors, wf, iwf;
  (void)state;
  if (!have_nvcc())
    skip();
  kfix_init(&f, naive, args64, 2, 8, 32, 8);
  padded(&f, 1, &sectors, &wf, &iwf);
  assert_int_equal(sectors, 1024);
  assert_int_equal(wf, 256);
  assert_int_equal(iwf, 256);
  padded(&f, 0, &sectors, &wf, &iwf);
  assert_int_equal(sectors, 1024);
  assert_int_equal(wf, 4224);
  assert_int_equal(iwf, 256);
  kfix_release(&f);
}

/* 8-byte elements, n = 64. Global: before, load 128 requests of 256 bytes (8 sectors:
 * 1024), store 32 sectors each (4096); after, 8 sectors each way: 2048. Shared: a
 * 256-byte request is 2 wavefronts at best, so ideal = 2 * (128 + 128) = 512. Padded
 * (rows of 66 words): a column read puts lane r at words 66 r + 2c and the next, banks
 * 2 (r + c) mod 32 and +1: the 16 lanes of a half-warp cover the 32 banks once: 2
 * wavefronts per request, 512 = ideal. Unpadded (rows of 64 words): every lane in banks
 * 2c and 2c + 1: the 32 lanes take 32 wavefronts -> 128 * 32 + 128 * 2 = 4352. */
static void test_padding_f64(void **state)
{
  struct kfix f;
  uint64_t sectors, wf, iwf;
  (void)state;
  if (!have_nvcc())
    skip();
  kfix_init(&f, naive_f64, args64_f64, 2, 8, 32, 8);
  figures(&f.before, &sectors, &wf, &iwf);
  assert_int_equal(sectors, 5120);
  padded(&f, 1, &sectors, &wf, &iwf);
  assert_int_equal(sectors, 2048);
  assert_int_equal(iwf, 512);
  assert_int_equal(wf, 512);
  padded(&f, 0, &sectors, &wf, &iwf);
  assert_int_equal(iwf, 512);
  assert_int_equal(wf, 4352);
  kfix_release(&f);
}

/* Refusals that need no PTX: the input is PTX; a 3-D launch; a grid too tall. */
static void test_refusals_without_ptx(void **state)
{
  struct cc_fix_opts o;
  struct cc_fix_measure before;
  cc_fix_xcands cands = {0};
  struct cc_err err = {0};
  (void)state;
  memset(&o, 0, sizeof o);
  memset(&before, 0, sizeof before);
  o.input = "k.ptx";
  o.kernel_name = "k";
  o.grid[0] = o.grid[1] = o.grid[2] = 1;
  o.block[0] = o.block[1] = o.block[2] = 1;
  assert_int_equal(cc_fix_tile(&o, &before, &cands, &err), CC_ERR_NO_FIX);
  assert_string_equal(err.msg, "k.ptx: staging a transposition through a shared-memory tile "
                               "needs the kernel's CUDA C source (the input is PTX)");
  o.input = "k.cu";
  o.input_is_cuda = 1;
  o.block[2] = 4;
  assert_int_equal(cc_fix_tile(&o, &before, &cands, &err), CC_ERR_NO_FIX);
  assert_string_equal(err.msg, "k.cu: kernel k is launched with a 3-D geometry (grid z 1, "
                               "block z 4); the tile handles 2-D launches");
  /* 65535 x 1024 threads along y: 2,097,120 tiles, over the grid's 65535 */
  o.block[2] = 1;
  o.grid[1] = 65535;
  o.block[1] = 1024;
  assert_int_equal(cc_fix_tile(&o, &before, &cands, &err), CC_ERR_NO_FIX);
  assert_non_null(strstr(err.msg, "k.cu: kernel k's launch spans 1 x 67107840 threads; the "
                                  "tile's grid of 32x32 tiles would break CUDA's limits"));
  assert_int_equal(cands.len, 0);
}

/* Refusals from the PTX, each at the source place of the instruction (its .loc). */
struct refusal {
  const char *name, *body; /* body: after the two index lines (line 3 on) */
  const char *where;       /* ":LINE:COL: " after the path */
  const char *why;
};

static const struct refusal refusals[] = {
  {"copy", "  out[y * n + x] = in[y * n + x];\n", ":4:", "no global load has unit stride "
   "along the other thread dimension than this store (not a transposition)"},
  {"atomic", "  atomicAdd(&out[x * n + y], in[y * n + x]);\n", ":4:", "an atomic operation"},
  {"indirect", "  out[x * n + y] = in[(int)in[y * n + x]];\n", ":4:", "the address of this "
   "global access is not affine"},
  {"two_pairs", "  if (x + 1 < n)\n    out[x * n + y] = in[y * n + x] + in[y * n + x + 1];\n", ":5:",
   "a second load transposed with respect to the store"},
  {"reads_out", "  out[x * n + y] = in[y * n + x] + out[y * n + x];\n", ":4:",
   "the kernel reads the array it stores to"},
  {"barrier", "  __syncthreads();\n  out[x * n + y] = in[y * n + x];\n", ":4:",
   "the kernel already has a barrier"},
  {"loop_unrolled", "  for (int j = 0; j < 2; j++)\n    out[x * n + y] = in[y * n + x] + j;\n",
   ":5:", "this store runs several times per thread (a loop, unrolled by nvcc)"},
  {"loop", "  for (int j = y; j < n; j += n)\n    out[x * n + j] = in[j * n + x];\n", ":5:",
   "this global access is inside a loop (its address depends on the loop's counter)"},
  {"two_stores", "  out[x * n + y] = in[y * n + x];\n  out[y * n + x] = 0.0f;\n", ":5:",
   "a second global store"},
};

static void test_refusals_from_ptx(void **state)
{
  (void)state;
  if (!have_nvcc())
    skip();
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    const struct refusal *t = &refusals[i];
    char text[1024], want[1300];
    struct kfix f;
    cc_fix_xcands cands = {0};
    struct cc_err err = {0};
    int rc;
    snprintf(text, sizeof text, "__global__ void k(float *out, const float *in, int n)\n{\n"
             "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + "
             "threadIdx.y;\n%s}\n", t->body);
    kfix_init(&f, text, args64, 2, 8, 32, 8);
    rc = cc_fix_tile(&f.o, &f.before, &cands, &err);
    snprintf(want, sizeof want, "%s%s", f.path, t->where);
    if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0 || !strstr(err.msg, t->why))
      fail_msg("%s: status %d, message \"%s\"", t->name, rc, err.msg);
    assert_int_equal(cands.len, 0);
    CC_VEC_FREE(&cands);
    kfix_release(&f);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_naive_candidates),
    cmocka_unit_test(test_padding_f32),
    cmocka_unit_test(test_padding_f64),
    cmocka_unit_test(test_refusals_without_ptx),
    cmocka_unit_test(test_refusals_from_ptx),
  };
  if (!cc_cuda_available()) {
    fprintf(stderr, "skipped: coalcheck was built without libclang\n");
    return 0;
  }
  return cmocka_run_group_tests(tests, NULL, NULL);
}
