/* Tests of cc_cuda_soa: structure arrays addressed member by member in blocks of 32
 * elements (cuda/soa.h). Expected texts are written by hand from the rule there: element
 * e's member m at byte (e / 32) * 32 * sizeof(S) + 32 * offsetof(S, m) + (e % 32) *
 * sizeof(m); every byte other than the accesses stays. */
#include "cuda/harness.h"
#include "cuda/soa.h"

static int soa(struct fixture *f, const char *name, const char *text, const char *kernel,
               struct cc_cuda_soa *r, struct cc_err *err)
{
  const char *path = put(f, name, text);
  memset(err, 0, sizeof *err);
  return cc_cuda_soa(path, text, strlen(text), kernel, NULL, 0, r, err);
}

/* struct pt {double w; float x; int k;}: 16 bytes, w at 0 (8), x at 8 (4), k at 12 (4);
 * a block of 32 is 512 bytes, the runs start at 32 * offset: w 0, x 256, k 384. Every
 * access form: p[i].m read and written (+=), (p + i)->m, p->m (element 0), a whole copy of
 * q[i + 1] into a local (the template helper), a spaced subscript `q[ i ]`. */
static const char move_in[] =
  "struct pt { double w; float x; int k; };\n"
  "__global__ void move(pt *p, const pt *q, float dt)\n"
  "{\n"
  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
  "  p[i].x += q[ i ].x * dt; // p[i].x in a comment stays\n"
  "  (p + i)->k = p->k + 1;\n"
  "  pt s = q[i + 1];\n"
  "  p[i].w = s.w;\n"
  "}\n";

static void test_rewrite(void **state)
{
  static const char want[] =
    "struct pt { double w; float x; int k; };\n"
    "/* coalcheck fix --transform soa: the helpers below are numbered after the file's last\n"
    " * line and the kernel keeps its line numbers (#line), so that reports compare lines. */\n"
    "#line 10\n" /* the input has 9 lines */
    "/* coalcheck fix --transform soa: p (struct pt, 16 bytes) is stored member by member in\n"
    " * blocks of 32 elements: element e's member m is at byte\n"
    " * (e / 32) * 512 + 32 * offsetof(pt, m) + (e % 32) * sizeof(m) of the buffer. */\n"
    "static __device__ __forceinline__ double *__cc_soa_p_w(void *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  return (double *)((char *)__cc_p + (__cc_e / 32u) * 512u + 0u + (__cc_e % 32u) * 8u);\n"
    "}\n"
    "static __device__ __forceinline__ float *__cc_soa_p_x(void *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  return (float *)((char *)__cc_p + (__cc_e / 32u) * 512u + 256u + (__cc_e % 32u) * 4u);\n"
    "}\n"
    "static __device__ __forceinline__ int *__cc_soa_p_k(void *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  return (int *)((char *)__cc_p + (__cc_e / 32u) * 512u + 384u + (__cc_e % 32u) * 4u);\n"
    "}\n"
    "/* coalcheck fix --transform soa: q (struct pt, 16 bytes) is stored member by member in\n"
    " * blocks of 32 elements: element e's member m is at byte\n"
    " * (e / 32) * 512 + 32 * offsetof(pt, m) + (e % 32) * sizeof(m) of the buffer. */\n"
    "static __device__ __forceinline__ const float *__cc_soa_q_x(const void *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  return (const float *)((const char *)__cc_p + (__cc_e / 32u) * 512u + 256u + (__cc_e % 32u) * 4u);\n"
    "}\n"
    "template <class __cc_T>\n"
    "static __device__ __forceinline__ __cc_T __cc_soa_q_get(const __cc_T *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  __cc_T __cc_s;\n"
    "  __cc_s.w = *(const double *)((const char *)__cc_p + (__cc_e / 32u) * 512u + 0u + (__cc_e % 32u) * 8u);\n"
    "  __cc_s.x = *(const float *)((const char *)__cc_p + (__cc_e / 32u) * 512u + 256u + (__cc_e % 32u) * 4u);\n"
    "  __cc_s.k = *(const int *)((const char *)__cc_p + (__cc_e / 32u) * 512u + 384u + (__cc_e % 32u) * 4u);\n"
    "  return __cc_s;\n"
    "}\n"
    "\n"
    "#line 2\n"
    "__global__ void move(pt *p, const pt *q, float dt)\n"
    "{\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  (*__cc_soa_p_x(p, i)) += (*__cc_soa_q_x(q, i)) * dt; // p[i].x in a comment stays\n"
    "  (*__cc_soa_p_k(p, i)) = (*__cc_soa_p_k(p, 0)) + 1;\n"
    "  pt s = __cc_soa_q_get(q, i + 1);\n"
    "  (*__cc_soa_p_w(p, i)) = s.w;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_soa r;
  struct cc_err err;
  assert_int_equal(soa(f, "move.cu", move_in, "move", &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.len, strlen(want));
  assert_int_equal(r.nparams, 2);
  /* p: parameter 0, declared at 2:26; 4 accesses: line 5 one, line 6 two, line 8 one */
  assert_int_equal(r.params[0].index, 0);
  assert_string_equal(r.params[0].name, "p");
  assert_string_equal(r.params[0].record, "pt");
  assert_int_equal(r.params[0].size, 16);
  assert_int_equal(r.params[0].is_const, 0);
  assert_int_equal(r.params[0].line, 2);
  assert_int_equal(r.params[0].column, 26);
  assert_int_equal(r.params[0].accesses, 4);
  assert_int_equal(r.params[0].nlines, 3);
  assert_int_equal(r.params[0].lines[0], 5);
  assert_int_equal(r.params[0].lines[1], 6);
  assert_int_equal(r.params[0].lines[2], 8);
  assert_int_equal(r.params[0].nmembers, 3);
  assert_string_equal(r.params[0].members[1].name, "x");
  assert_string_equal(r.params[0].members[1].type, "float");
  assert_int_equal(r.params[0].members[1].offset, 8);
  assert_int_equal(r.params[0].members[1].size, 4);
  assert_string_equal(r.params[0].members[2].type, "int");
  assert_int_equal(r.params[0].members[2].offset, 12);
  /* q: const, parameter 1, accesses on lines 5 and 7 */
  assert_int_equal(r.params[1].index, 1);
  assert_int_equal(r.params[1].is_const, 1);
  assert_int_equal(r.params[1].accesses, 2);
  assert_int_equal(r.params[1].nlines, 2);
  assert_int_equal(r.params[1].lines[1], 7);
  cc_cuda_soa_release(&r);
}

/* A parameter read only at constant indices (a configuration record, a broadcast) is left
 * alone, and a structure with padding (char then double: 7 bytes of it) keeps its
 * offsets from clang's record layout: d at 8, sizeof 16. extern "C" without braces: the
 * helpers go before it. */
static void test_constant_index_and_padding(void **state)
{
  static const char in[] =
    "struct cfg { float scale; int n; };\n"
    "struct rec { char c; double d; };\n"
    "extern \"C\" __global__ void k(const cfg *c, rec *r)\n"
    "{\n"
    "  int i = threadIdx.x;\n"
    "  if (i < c->n) r[i].d *= c[0].scale;\n"
    "}\n";
  static const char want[] =
    "struct cfg { float scale; int n; };\n"
    "struct rec { char c; double d; };\n"
    "/* coalcheck fix --transform soa: the helpers below are numbered after the file's last\n"
    " * line and the kernel keeps its line numbers (#line), so that reports compare lines. */\n"
    "#line 8\n" /* 7 lines */
    "/* coalcheck fix --transform soa: r (struct rec, 16 bytes) is stored member by member in\n"
    " * blocks of 32 elements: element e's member m is at byte\n"
    " * (e / 32) * 512 + 32 * offsetof(rec, m) + (e % 32) * sizeof(m) of the buffer. */\n"
    "static __device__ __forceinline__ double *__cc_soa_r_d(void *__cc_p, unsigned long long __cc_e)\n"
    "{\n"
    "  return (double *)((char *)__cc_p + (__cc_e / 32u) * 512u + 256u + (__cc_e % 32u) * 8u);\n"
    "}\n"
    "\n"
    "#line 3\n"
    "extern \"C\" __global__ void k(const cfg *c, rec *r)\n"
    "{\n"
    "  int i = threadIdx.x;\n"
    "  if (i < c->n) (*__cc_soa_r_d(r, i)) *= c[0].scale;\n"
    "}\n";
  struct fixture *f = *state;
  struct cc_cuda_soa r;
  struct cc_err err;
  assert_int_equal(soa(f, "pad.cu", in, "k", &r, &err), CC_OK);
  assert_string_equal(r.text, want);
  assert_int_equal(r.nparams, 1);
  assert_int_equal(r.params[0].index, 1);
  assert_int_equal(r.params[0].nmembers, 2);
  assert_int_equal(r.params[0].members[0].offset, 0);
  assert_int_equal(r.params[0].members[0].size, 1);
  assert_int_equal(r.params[0].members[1].offset, 8);
  cc_cuda_soa_release(&r);
}

/* A local pointer to the thread's element (Rodinia nn's `LatLong *latLong = d_locations +
 * globalId;`), by `p + e` or `&p[e]`, used only as q->m: q keeps the element's index
 * instead, and q->m becomes the member's helper at that index. A pointer reassigned
 * (q++) escapes, named. */
static void test_element_pointer(void **state)
{
  static const char in[] =
    "struct ll { float lat, lng; };\n"
    "__global__ void euclid(ll *d, float *o, int n)\n"
    "{\n"
    "  int g = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  ll *q = d + g;\n"
    "  const ll *r = &d[g];\n"
    "  if (g < n) o[g] = q->lat - r->lng;\n"
    "}\n"
    "__global__ void walk(ll *d, float *o)\n"                                    /* 9 */
    "{ int g = threadIdx.x; ll *q = d + g; q++; o[g] = q->lat; }\n";          /* 10 */
  struct fixture *f = *state;
  struct cc_cuda_soa r;
  struct cc_err err;
  char want[256];
  int rc = soa(f, "nn.cu", in, "euclid", &r, &err);
  if (rc != CC_OK)
    fail_msg("euclid: rc %d: %s", rc, err.msg);
  assert_non_null(strstr(r.text, "  const long long q = (g);\n"));
  assert_non_null(strstr(r.text, "  const long long r = (g);\n"));
  assert_non_null(strstr(r.text, "  if (g < n) o[g] = (*__cc_soa_d_lat(d, q)) - "
                                 "(*__cc_soa_d_lng(d, r));\n"));
  assert_int_equal(r.nparams, 1);
  assert_int_equal(r.params[0].accesses, 4); /* two declarations, two members */
  cc_cuda_soa_release(&r);
  rc = soa(f, "nn.cu", in, "walk", &r, &err);
  /* column 39: the q of `q++` */
  snprintf(want, sizeof want, "nn.cu:10:39: q, a pointer to one element");
  if (rc != CC_ERR_NO_FIX || !strstr(err.msg, want))
    fail_msg("walk: rc %d, message '%s'; want '%s'", rc, err.msg, want);
  assert_null(r.text);
}

/* struct pv {float3 pos; float m;}: 16 bytes; float3's components are members of their
 * own: pos.x at 0, pos.y at 4, pos.z at 8, m at 12 (4 bytes each), a block of 32 is 512
 * bytes, so the runs start at 32 * offset: 0, 128, 256, 384. p[i].pos.y is the helper
 * __cc_soa_p_pos_y at 128; `float3 a = p[i].pos;` (the member whole) is refused, at line
 * 5, column 40 (the member name pos of p[i].pos, counted from the line's start). */
static void test_vector_members(void **state)
{
  static const char in[] =
    "struct pv { float3 pos; float m; };\n"
    "__global__ void step(pv *p, float dt)\n"
    "{ int i = threadIdx.x; p[i].pos.y += p[i].m * dt; }\n"
    "__global__ void whole(pv *p, float *o)\n"
    "{ int i = threadIdx.x; float3 a = p[i].pos; o[i] = a.x; }\n";
  struct fixture *f = *state;
  struct cc_cuda_soa r;
  struct cc_err err;
  int rc = soa(f, "pv.cu", in, "step", &r, &err);
  if (rc != CC_OK)
    fail_msg("step: rc %d: %s", rc, err.msg);
  assert_non_null(strstr(r.text, "{ int i = threadIdx.x; (*__cc_soa_p_pos_y(p, i)) += "
                                 "(*__cc_soa_p_m(p, i)) * dt; }\n"));
  assert_non_null(strstr(r.text, "static __device__ __forceinline__ float *__cc_soa_p_pos_y("
                                 "void *__cc_p, unsigned long long __cc_e)\n{\n  return (float *)"
                                 "((char *)__cc_p + (__cc_e / 32u) * 512u + 128u + (__cc_e % 32u)"
                                 " * 4u);\n}\n"));
  assert_null(strstr(r.text, "__cc_soa_p_pos_x")); /* only the members used get helpers */
  assert_int_equal(r.params[0].nmembers, 4);
  assert_string_equal(r.params[0].members[2].name, "pos.z");
  assert_int_equal(r.params[0].members[2].offset, 8);
  assert_int_equal(r.params[0].members[3].offset, 12);
  cc_cuda_soa_release(&r);
  rc = soa(f, "pv.cu", in, "whole", &r, &err);
  if (rc != CC_ERR_NO_FIX ||
      !strstr(err.msg, "pv.cu:5:40: member pos of p[e] (a vector type) is used whole"))
    fail_msg("whole: rc %d, message '%s'", rc, err.msg);
  assert_null(r.text);
}

/* Each refusal: exit code CC_ERR_NO_FIX, the place (line:column of the escaping use, by
 * counting the inline text's bytes) and the construct. */
static void test_refusals(void **state)
{
  static const char in[] =
    "struct P { float x, y; };\n"                                                   /* 1 */
    "__device__ float f(const P *p, int i) { return p[i].x; }\n"                    /* 2 */
    "__global__ void k1(P *p, float *o) { int i = threadIdx.x; o[i] = f(p, i); }\n" /* 3 */
    "__global__ void k2(P *p, float *o) { int i = threadIdx.x; o[i] = ((float *)p)[i]; }\n"
    "__global__ void k3(P *p, float *o) { int i = threadIdx.x; P *q = p; o[i] = q[i].x; }\n"
    "__global__ void k4(P *p, float *o) { int i = threadIdx.x; o[i] = (p + i + 1)->x; }\n"
    "__global__ void k5(P *p, float *o) { int i = threadIdx.x; P t = {1, 2}; p[i] = t; }\n"
    "__global__ void k6(P *p, float *o) { int i = threadIdx.x; float *a = &p[i].y; o[i] = *a; }\n"
    "__global__ void k7(P *p, float *o) { int i = threadIdx.x; o[i] = p->x; }\n"    /* 9 */
    "#define X(i) p[i].x\n"                                                         /* 10 */
    "__global__ void k8(P *p, float *o) { int i = threadIdx.x; o[i] = X(i); }\n"    /* 11 */
    "struct Q { float a[2]; };\n"                                                   /* 12 */
    "__global__ void k9(Q *p, float *o) { int i = threadIdx.x; o[i] = p[i].a[0]; }\n"
    "__global__ void k10(P *p, float *o) { int i = threadIdx.x; p++; o[i] = p[i].x; }\n"
    "struct R { float x; __device__ float f() const { return x; } };\n"            /* 15 */
    "__global__ void k11(R *p, float *o) { int i = threadIdx.x; o[i] = p[i].f(); }\n"
    "struct C { const float x; float y; };\n"                                      /* 17 */
    "__global__ void k12(C *p, float *o) { int i = threadIdx.x; o[i] = p[i].y; }\n"
    /* CUDA's vector types are loaded whole by a lane: not an array of structures */
    "__global__ void k13(float4 *p, float *o) { int i = threadIdx.x; p[i] = make_float4(1, 2, 3, 4); o[i] = p[i].x; }\n";
  static const struct {
    const char *kernel, *place, *what;
  } cases[] = {
    /* columns: the reference to p that escapes (k6: the &) */
    {"k1", ":3:68: p is passed to f, so the structure escapes kernel k1", "(float *x, float *y)"},
    {"k2", ":4:76: p is cast to another type", "advice: store the array of struct P (8 bytes)"},
    {"k3", ":5:66: p is stored or assigned", "instead of p"},
    {"k4", ":6:67: p + e is used other than as (p + e)->member", "float *x"},
    {"k5", ":7:73: p[e] is used whole", "structure of arrays"},
    {"k6", ":8:70: the address of a member of p[e] is taken", "float *y"},
    {"k7", ": kernel k7 has no parameter pointing to an array of structures", "nothing"},
    {"k8", ":11:66: this access to p is written in a macro expansion", "outside the macro"},
    {"k9", ":12:18: member a of Q is not a scalar", "flatten it"},
    {"k10", ":14:60: p is used other than as p[e].member", "escapes kernel k10"},
    {"k11", ":16:67: a member function of p[e] is called", "float *x"},
    {"k12", ":17:24: member x of C is const", "scalar members only"},
    {"k13", ": kernel k13 has no parameter pointing to an array of structures", "nothing"},
  };
  struct fixture *f = *state;
  const char *path = put(f, "esc.cu", in);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    struct cc_cuda_soa r;
    struct cc_err err = {0};
    char want[256];
    int rc = cc_cuda_soa(path, in, strlen(in), cases[i].kernel, NULL, 0, &r, &err);
    snprintf(want, sizeof want, "%s%s", path, cases[i].place);
    if (rc != CC_ERR_NO_FIX || strncmp(err.msg, want, strlen(want)) != 0 ||
        !strstr(err.msg, cases[i].what))
      fail_msg("%s: rc %d, message '%s'; want '%s...' with '%s'", cases[i].kernel, rc, err.msg,
               want, cases[i].what);
    assert_null(r.text);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_rewrite, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_constant_index_and_padding, fixture_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_element_pointer, fixture_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_vector_members, fixture_setup, fixture_teardown),
  };
  SKIP_WITHOUT_LIBCLANG();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
