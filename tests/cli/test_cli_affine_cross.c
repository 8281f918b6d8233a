/* Cross-check of the static affine forms (src/affine) against the run, on every bundled
 * example launch (examples/<name>/<variant>.launch):
 *   1. every warp record of an affine instruction: for each active lane l, the address
 *      minus the first active lane's equals sum_d stride_d * (tid_d(l) - tid_d(first)),
 *      the strides being cc_affine_coeff's under the launch (parameters from the launch's
 *      --arg values, blockDim from --block), the thread index of a lane from its linear
 *      index 32*warp + lane in the block (x fastest): the forms' thread strides are the
 *      ones the run produced, masks and all;
 *   2. Algorithm 1 per instruction (the JSON's stride.min and stride.max, W = 32 on
 *      sm_90): for an affine global or shared instruction whose every execution had 32
 *      active lanes, the sorted-neighbour differences of one full warp of each warp
 *      position of the block, with the forms' strides, give the same min and max; and the
 *      report's "affine" strides are those strides;
 *   3. which instructions are not affine, by hand from the kernels' sources: an address
 *      read from memory (the histograms' bins[data[i]]) is "indirect"; a warp per row
 *      (row = thread / 32, shr) and the local arrays indexed "& 63" are "nonlinear";
 *      every other executed instruction is affine.
 * Needs nvcc (the examples are CUDA sources): skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "access/trace.h"
#include "affine/affine.h"
#include "cli/cli.h"
#include "util/fileio.h"

#define MAX_LAUNCHES 64

/* Instructions that are not affine, derived from the sources (see the top). kernel: the
 * source name; op: the start of the PTX text ("" any). */
static const struct {
  const char *kernel, *op, *status;
} not_affine[] = {
    {"histogram_global", "atom.global", "indirect"},  /* bins[data[i]] */
    {"histogram_shared", "atom.shared", "indirect"},  /* local[data[i]] */
    {"row_sums_warp", "", "nonlinear"},               /* row = (blockIdx*blockDim+tid)/32 */
    {"local_uniform", "ld.local", "nonlinear"},       /* a[(k * s) & 63] */
    {"local_uniform8", "ld.local", "nonlinear"},      /* a[(k * s) & 63] */
    {"local_divergent", "st.local", "nonlinear"},     /* a[(5 * l + k) & 63] */
    {"local_divergent", "ld.local", "nonlinear"},     /* a[(k * s + (l & 3)) & 63] */
    /* CSR: rowptr[i] is affine, the row's val[k], colidx[k], x[colidx[k]] depend on it
     * (indirect); "*" accepts the form's own status for every instruction of the kernel,
     * and the affine ones are still cross-checked against the run */
    {"spmv_csr_scalar", "", "*"},
};

static const char *expected_status(const char *kernel, const char *ptx)
{
  for (size_t i = 0; i < sizeof not_affine / sizeof not_affine[0]; i++)
    if (strcmp(not_affine[i].kernel, kernel) == 0 &&
        strncmp(ptx, not_affine[i].op, strlen(not_affine[i].op)) == 0)
      return not_affine[i].status;
  return "affine";
}

/* ---- the run's records against the forms ------------------------------------------------ */

struct cross {
  const struct cc_affine_kernel *ak;
  const struct cc_affine_env *env;
  uint32_t block[3];
  uint32_t *ids;           /* ptx_index per slot */
  uint32_t n_ids;
  uint64_t checked, lanes;
  char mismatch[512];      /* the first one, or "" */
};

static int cross_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct cross *c = ctx;
  (void)err;
  free(c->ids);
  c->ids = calloc(k->n_insns + 1, sizeof *c->ids);
  assert_non_null(c->ids);
  for (uint32_t i = 0; i < k->n_insns; i++)
    c->ids[i] = k->insns[i].id;
  c->n_ids = k->n_insns;
  return CC_OK;
}

/* threadIdx of linear index t in a block of the given shape (x fastest). */
static void thread_of(const uint32_t block[3], uint32_t t, int64_t tid[3])
{
  tid[0] = t % block[0];
  tid[1] = (t / block[0]) % block[1];
  tid[2] = t / (block[0] * block[1]);
}

static int strides_of(const struct cc_affine_access *a, const struct cc_affine_env *env,
                      int64_t s[3])
{
  for (uint32_t d = 0; d < 3; d++)
    if (!cc_affine_coeff(a, env, CC_AFFINE_TID, d, &s[d]))
      return 0;
  return 1;
}

static int cross_access(void *ctx, const struct cc_warp_access *r, struct cc_err *err)
{
  struct cross *c = ctx;
  const struct cc_affine_access *a;
  int64_t s[3], t0[3], t[3];
  int first = -1;
  (void)err;
  assert_true(r->insn_slot < c->n_ids);
  a = cc_affine_find(c->ak, c->ids[r->insn_slot]);
  if (!a || a->status != CC_AFFINE_OK)
    return CC_OK;
  if (!strides_of(a, c->env, s)) {
    snprintf(c->mismatch, sizeof c->mismatch, "PTX %u: a thread stride of '%s' is unknown",
             a->insn, a->text);
    return CC_OK;
  }
  c->checked++;
  for (uint32_t l = 0; l < 32; l++) {
    int64_t want = 0, got;
    if (!((r->active >> l) & 1))
      continue;
    if (first < 0) {
      first = (int)l;
      thread_of(c->block, 32 * r->warp + l, t0);
      continue;
    }
    thread_of(c->block, 32 * r->warp + l, t);
    for (uint32_t d = 0; d < 3; d++)
      want += s[d] * (t[d] - t0[d]);
    got = (int64_t)(r->addr[l] - r->addr[first]);
    c->lanes++;
    if (got != want && !c->mismatch[0])
      snprintf(c->mismatch, sizeof c->mismatch,
               "PTX %u (%s), CTA %u,%u,%u warp %u: lane %u is %" PRId64 " bytes from lane %d, "
               "the form says %" PRId64, a->insn, a->text, r->cta[0], r->cta[1], r->cta[2],
               r->warp, l, got, first, want);
  }
  return CC_OK;
}

static int cross_end(void *ctx, struct cc_err *err)
{
  (void)ctx;
  (void)err;
  return CC_OK;
}

/* ---- Algorithm 1 from the forms ----------------------------------------------------------- */

/* min and max of the sorted-neighbour differences of every full warp of a block with
 * thread strides s (every warp position: a block of 16 x 16 has warps of two rows). */
static void predict_alg1(const int64_t s[3], const uint32_t block[3], int64_t *min, int64_t *max)
{
  uint32_t n = block[0] * block[1] * block[2];
  *min = INT64_MAX;
  *max = 0;
  for (uint32_t w = 0; 32 * w < n; w++) {
    int64_t v[32], tid[3];
    uint32_t m = 0;
    for (uint32_t l = 0; l < 32 && 32 * w + l < n; l++) {
      thread_of(block, 32 * w + l, tid);
      v[m++] = s[0] * tid[0] + s[1] * tid[1] + s[2] * tid[2];
    }
    for (uint32_t i = 1; i < m; i++) /* insertion sort */
      for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
        int64_t x = v[j];
        v[j] = v[j - 1];
        v[j - 1] = x;
      }
    for (uint32_t i = 1; i < m; i++) {
      int64_t d = v[i] - v[i - 1];
      *min = d < *min ? d : *min;
      *max = d > *max ? d : *max;
    }
  }
}

static double num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(v))
    fail_msg("JSON: '%s' is not a number", key);
  return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsString(v))
    fail_msg("JSON: '%s' is not a string", key);
  return v->valuestring;
}

/* Checks 2 and 3 on one instruction of the report; returns 1 when Algorithm 1 was
 * compared. */
static int check_insn(const char *launch, const char *kernel, const cJSON *in,
                      const struct cc_affine_kernel *ak, const struct cc_affine_env *env,
                      const uint32_t block[3])
{
  const cJSON *aff = cJSON_GetObjectItemCaseSensitive(in, "affine");
  const char *ptx = str(in, "ptx"), *want = expected_status(kernel, ptx);
  const struct cc_affine_access *a = cc_affine_find(ak, (uint32_t)num(in, "ptx_index"));
  int64_t s[3], pmin, pmax;
  double execs = num(in, "executions");
  if (execs == 0)
    return 0;
  if (!cJSON_IsObject(aff) || !a)
    fail_msg("%s %s '%s': no affine member or access", launch, kernel, ptx);
  if (strcmp(want, "*") == 0)
    want = str(aff, "status");
  if (strcmp(str(aff, "status"), want) != 0)
    fail_msg("%s %s '%s': status %s, expected %s (%s)", launch, kernel, ptx,
             str(aff, "status"), want,
             cJSON_GetObjectItemCaseSensitive(aff, "why")
                 ? str(aff, "why") : str(aff, "form"));
  if (strcmp(want, "affine") != 0)
    return 0;
  if (!strides_of(a, env, s))
    fail_msg("%s %s '%s': a stride of '%s' is unknown", launch, kernel, ptx, a->text);
  {
    const cJSON *js = cJSON_GetObjectItemCaseSensitive(aff, "strides");
    static const char *const axis[3] = {"x", "y", "z"};
    for (uint32_t d = 0; d < 3; d++)
      if (num(js, axis[d]) != (double)s[d])
        fail_msg("%s %s '%s': JSON stride %s %g, the form %" PRId64, launch, kernel, ptx,
                 axis[d], num(js, axis[d]), s[d]);
  }
  /* Algorithm 1: global and shared (local strides are of the interleaved layout), full
   * warps only (a partial mask changes the neighbours) */
  if (strcmp(str(in, "space"), "local") == 0 || num(in, "thread_accesses") != 32 * execs)
    return 0;
  predict_alg1(s, block, &pmin, &pmax);
  {
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(in, "stride");
    if (num(st, "min") != (double)pmin || num(st, "max") != (double)pmax)
      fail_msg("%s %s '%s' (%s): Algorithm 1 measured min %g max %g, the form predicts min %"
               PRId64 " max %" PRId64, launch, kernel, ptx, a->text, num(st, "min"),
               num(st, "max"), pmin, pmax);
  }
  return 1;
}

/* ---- one launch ---------------------------------------------------------------------- */

struct module_cache {
  char *cu;
  struct ptx_module *m;
};

static struct ptx_module *module_of(struct module_cache *mc, const char *nvcc, const char *cu)
{
  struct cc_err err = {0};
  char *ptx = NULL;
  size_t len = 0;
  if (mc->cu && strcmp(mc->cu, cu) == 0)
    return mc->m;
  free(mc->cu);
  ptx_module_free(mc->m);
  mc->cu = strdup(cu);
  if (cc_cli_nvcc_compile(nvcc, cu, NULL, &ptx, &len, &err) != CC_OK)
    fail_msg("nvcc %s: %s", cu, err.msg);
  if (ptx_parse(ptx, len, cu, &mc->m, &err) != CC_OK)
    fail_msg("%s: %s", cu, err.msg);
  free(ptx);
  return mc->m;
}

/* The launch's parameter values: integers from their --arg text; buffers and floats
 * unknown. */
static void launch_env(const struct cc_run_opts *o, int64_t *params, uint8_t *known)
{
  for (size_t i = 0; i < o->nargs; i++) {
    char *end;
    known[i] = 0;
    if (o->args[i].is_buffer || !o->args[i].value)
      continue;
    params[i] = strtoll(o->args[i].value, &end, 0);
    known[i] = *end == '\0' && end != o->args[i].value;
  }
}

static void check_launch(const char *launch, const char *dir, const char *nvcc,
                         struct module_cache *mc, uint64_t *records, uint64_t *alg1)
{
  char json[4096], trace[4096];
  const char *argv[] = {"coalcheck", "--launch", launch, "-q", "--json", json, "--trace", trace};
  struct cc_run_opts o;
  struct cc_err err = {0};
  const struct ptx_function *k;
  struct cc_affine_kernel *ak = NULL;
  int64_t params[32] = {0};
  uint8_t known[32] = {0};
  struct cc_affine_env env;
  struct cross c;
  struct cc_access_sink sink = {&c, cross_begin, cross_access, cross_end};
  FILE *devnull = fopen("/dev/null", "w");
  char *text = NULL;
  cJSON *doc, *kern, *in;
  size_t len;
  snprintf(json, sizeof json, "%s/report.json", dir);
  snprintf(trace, sizeof trace, "%s/run.cctrace", dir);
  assert_non_null(devnull);
  if (cc_cli_parse_run(8, (char **)argv, &o, &err) != CC_OK)
    fail_msg("%s: %s", launch, err.msg);
  if (cc_cli_run(&o, devnull, &err) != CC_OK)
    fail_msg("%s: %s", launch, err.msg);
  fclose(devnull);
  if (cc_cli_find_kernel(module_of(mc, nvcc, o.input), o.kernel, &k, &err) != CC_OK)
    fail_msg("%s: %s", launch, err.msg);
  assert_int_equal(cc_affine_analyze(mc->m, k, &ak, &err), CC_OK);
  assert_true(o.nargs <= 32);
  launch_env(&o, params, known);
  env = (struct cc_affine_env){params, known, (uint32_t)o.nargs,
                               {o.block[0], o.block[1] ? o.block[1] : 1, o.block[2] ? o.block[2] : 1},
                               {o.grid[0], o.grid[1] ? o.grid[1] : 1, o.grid[2] ? o.grid[2] : 1}};
  memset(&c, 0, sizeof c);
  c.ak = ak;
  c.env = &env;
  memcpy(c.block, env.ntid, sizeof c.block);
  if (cc_trace_replay(trace, &sink, NULL, &err) != CC_OK)
    fail_msg("%s: replay: %s", launch, err.msg);
  if (c.mismatch[0])
    fail_msg("%s: %s", launch, c.mismatch);
  *records += c.checked;
  /* the report: statuses, strides, Algorithm 1 */
  if (cc_file_read(json, &text, &len, &err) != CC_OK)
    fail_msg("%s: %s", launch, err.msg);
  doc = cJSON_Parse(text);
  assert_non_null(doc);
  kern = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "kernels"), 0);
  cJSON_ArrayForEach(in, cJSON_GetObjectItemCaseSensitive(kern, "instructions"))
      *alg1 += (uint64_t)check_insn(launch, str(kern, "name"), in, ak, &env, env.ntid);
  cJSON_Delete(doc);
  free(text);
  free(c.ids);
  cc_affine_kernel_free(ak);
  cc_cli_opts_release(&o);
  unlink(json);
  unlink(trace);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* examples/<name>/<variant>.launch, sorted. */
static size_t list_launches(char **out, size_t cap)
{
  char path[4096];
  size_t n = 0;
  DIR *top = opendir(CC_SOURCE_DIR "/examples"), *sub;
  struct dirent *e, *f;
  assert_non_null(top);
  while ((e = readdir(top)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, CC_SOURCE_DIR "/examples/%s", e->d_name);
    if (!(sub = opendir(path)))
      continue;
    while ((f = readdir(sub)) != NULL) {
      size_t l = strlen(f->d_name);
      if (l > 7 && strcmp(f->d_name + l - 7, ".launch") == 0 && n < cap) {
        out[n] = malloc(strlen(path) + l + 2);
        assert_non_null(out[n]);
        sprintf(out[n++], "%s/%s", path, f->d_name);
      }
    }
    closedir(sub);
  }
  closedir(top);
  qsort(out, n, sizeof *out, cmp_str);
  return n;
}

static void test_examples_cross(void **state)
{
  char *launches[MAX_LAUNCHES], dir[] = "/tmp/cc-affine-cross-XXXXXX";
  char *nvcc = cc_cli_find_nvcc();
  struct module_cache mc = {NULL, NULL};
  uint64_t records = 0, alg1 = 0;
  size_t n;
  (void)state;
  if (!nvcc)
    skip(); /* no CUDA toolkit: the examples cannot be compiled */
  assert_non_null(mkdtemp(dir));
  n = list_launches(launches, MAX_LAUNCHES);
  /* examples/README.md's table: transpose 3, strided_copy 5, aos_soa 2, row_sums 2,
   * gesummv 2, gemv 2, gaussian 2, cell3d 2, histogram 2, divergent 1, local_array 3,
   * permute 4; the fix examples: redistribute 4, soa 4, tile 3, lift 10 (6 + lift2d.cu's
   * 4); ci 1 (docs/ci.md) */
  assert_int_equal(n, 52);
  for (size_t i = 0; i < n; i++) {
    check_launch(launches[i], dir, nvcc, &mc, &records, &alg1);
    free(launches[i]);
  }
  printf("cross-check: %zu launches, %" PRIu64 " warp records of affine instructions, "
         "Algorithm 1 compared on %" PRIu64 " instructions\n", n, records, alg1);
  assert_true(records > 0);
  assert_true(alg1 > 0);
  free(mc.cu);
  ptx_module_free(mc.m);
  free(nvcc);
  rmdir(dir);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_examples_cross),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
