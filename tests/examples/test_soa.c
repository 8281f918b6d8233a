/* examples/soa: the arrays of structures `coalcheck fix --transform soa` lays out member by
 * member (and the one it refuses), run as given, checked against C references and against
 * the figures derived by hand in examples/soa/soa.cu's top comment. What the fix does with
 * them is checked in tests/fix/test_fix_soa.c and tests/e2e/fix_soa.sh.
 *
 * Buffers updated in place (the bodies) are given as files so that the reference knows
 * their contents; the others are read back from their dumps. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

#define DT 0.25f /* dt and the query point of the launch files: exact in binary */

/* struct body {double t; float v; float a; int steps;}: 24 bytes = 6 floats, padding at
 * float 5. step: t += (double)dt (add.f64), v = fma(a, dt, v) (fma.rn.f32), steps += 1;
 * the padding stays. */
static void step_reference(uint32_t *want, const float *init, size_t n)
{
  memcpy(want, init, n * 24);
  for (size_t i = 0; i < n; i++) {
    unsigned char *b = (unsigned char *)want + 24 * i;
    double t;
    float v, a;
    int32_t steps;
    memcpy(&t, b, 8);
    memcpy(&v, b + 8, 4);
    memcpy(&a, b + 12, 4);
    memcpy(&steps, b + 16, 4);
    t += (double)DT;
    v = fmaf(a, DT, v);
    steps += 1;
    memcpy(b, &t, 8);
    memcpy(b + 8, &v, 4);
    memcpy(b + 16, &steps, 4);
  }
}

/* The step on n bodies (launch file launch): outputs, then requests and sectors. */
static void check_step(const char *launch, size_t n, uint64_t requests, uint64_t sectors,
                       uint64_t ld_ideal, uint64_t st_ideal)
{
  struct ex_buffer b[] = {{"b", 4, 6 * n, "f32[6*n]", ex_random_floats(6 * n, 41), NULL}};
  uint32_t *want = malloc(n * 24);
  struct ex_run r;
  struct ex_pick ld, st;
  const cJSON *k;
  assert_non_null(want);
  ex_run(&r, launch, b, 1, NULL);
  step_reference(want, b[0].init, n);
  ex_check_u32_exact("step b", b[0].data, want, 6 * n);
  free(want);
  k = ex_kernel(&r, "step");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, requests);
  ex_check_sum(&st, JS_REQUESTS, requests);
  ex_check_sum(&ld, JS_SECTORS, sectors);
  ex_check_sum(&st, JS_SECTORS, sectors);
  ex_check_sum(&ld, JS_IDEAL, ld_ideal);
  ex_check_sum(&st, JS_IDEAL, st_ideal);
  ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
  ex_check_each_str(&st, JS_VERDICT, "uncoalesced");
  ex_release(&r, b, 1);
}

/* 16384 bodies, 512 warps: 3 loads (t; v and a as one ld.v2.f32; steps) and 3 stores (t, v,
 * steps) per warp. A warp's 32 bodies are 768 bytes from a multiple of 768 (sector
 * aligned); lane starts 24 bytes apart (< 32) touch every one of the 24 sectors: 24 per
 * request, 1536 * 24 = 36864 each way. Ideal: loads 8 + 8 + 4, stores 8 + 4 + 4 per warp. */
static void test_step(void **state)
{
  (void)state;
  check_step("soa/step.launch", 16384, 3 * 512, 24ull * 3 * 512, 20ull * 512, 16ull * 512);
}

/* 1000 bodies, 32 warps: 31 full (24 sectors) and one of 8 lanes: bodies 992..999, 192
 * bytes from 23808 = 744 * 32: 6 sectors; per instruction 31 * 24 + 6 = 750. Ideal: 31
 * full warps as above plus the partial one's: t 64 bytes = 2, v2 64 = 2, steps 32 = 1 (loads
 * 31 * 20 + 5), stores t 2, v 1, steps 1 (31 * 16 + 4). */
static void test_step_n1000(void **state)
{
  (void)state;
  check_step("soa/step_n1000.launch", 1000, 3 * 32, 3 * 750, 31 * 20 + 5, 31 * 16 + 4);
}

/* knn_dist, 16384 points {x, y, z, label} of 16 bytes: dist = fma(dz, dz, fma(dx, dx,
 * dy * dy)) (nvcc 13's order), label copied. 512 warps: 4 loads of 512 bytes = 16 sectors
 * per request (ideal 4), 2 stores of 4. */
static void test_knn(void **state)
{
  enum { N = 16384 };
  struct ex_buffer b[] = {{"pts", 4, 4 * N, NULL, NULL, NULL},
                          {"dist", 4, N, NULL, NULL, NULL},
                          {"label", 4, N, NULL, NULL, NULL}};
  float *dist = malloc(N * sizeof *dist);
  uint32_t *label = malloc(N * sizeof *label);
  struct ex_run r;
  struct ex_pick ld, st;
  const cJSON *k;
  (void)state;
  ex_run(&r, "soa/knn.launch", b, 3, NULL);
  for (size_t i = 0; i < N; i++) {
    const float *p = (const float *)b[0].data + 4 * i;
    float dx = p[0] - 0.5f, dy = p[1] - 0.25f, dz = p[2] - 0.75f;
    dist[i] = fmaf(dz, dz, fmaf(dx, dx, dy * dy));
    memcpy(&label[i], &p[3], 4);
  }
  ex_check_floats_exact("knn dist", b[1].data, dist, N);
  ex_check_u32_exact("knn label", b[2].data, label, N);
  free(dist);
  free(label);
  k = ex_kernel(&r, "knn_dist");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 4 * 512);
  ex_check_sum(&ld, JS_SECTORS, 16ull * 4 * 512);
  ex_check_sum(&ld, JS_IDEAL, 4ull * 4 * 512);
  ex_check_each(&ld, JS_STRIDE ".max", 16);
  ex_check_sum(&st, JS_REQUESTS, 2 * 512);
  ex_check_sum(&st, JS_SECTORS, 4ull * 2 * 512);
  ex_release(&r, b, 3);
}

/* energy, 16384 particles {x, y, z} of 12 bytes through norm2: e = 0.5 * fma(z, z, fma(x,
 * x, y * y)). 512 warps: 3 loads of 12 sectors per request (a warp's 384 bytes), 1 store
 * of 4. */
static void test_energy(void **state)
{
  enum { N = 16384 };
  struct ex_buffer b[] = {{"p", 4, 3 * N, NULL, NULL, NULL}, {"e", 4, N, NULL, NULL, NULL}};
  float *want = malloc(N * sizeof *want);
  struct ex_run r;
  struct ex_pick ld, st;
  const cJSON *k;
  (void)state;
  ex_run(&r, "soa/energy.launch", b, 2, NULL);
  for (size_t i = 0; i < N; i++) {
    const float *p = (const float *)b[0].data + 3 * i;
    want[i] = fmaf(p[2], p[2], fmaf(p[0], p[0], p[1] * p[1])) * 0.5f;
  }
  ex_check_floats_exact("energy e", b[1].data, want, N);
  free(want);
  k = ex_kernel(&r, "energy");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 3 * 512);
  ex_check_sum(&ld, JS_SECTORS, 12ull * 3 * 512);
  ex_check_sum(&st, JS_SECTORS, 4ull * 512);
  ex_release(&r, b, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_step),
    cmocka_unit_test(test_step_n1000),
    cmocka_unit_test(test_knn),
    cmocka_unit_test(test_energy),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
