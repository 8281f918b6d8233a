/* tests/launch: the --arg syntax, size expressions, initialisers, the random generator,
 * binding to a kernel's .param list, and dumps. Every expected figure is derived by hand
 * in the comment above its assertion (or taken from the published splitmix64 reference
 * outputs). Kernels are built by hand as PTX IR: these tests need no parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/launch.h"
#include "launch/launch_impl.h"

/* ---- helpers ---------------------------------------------------------------------- */

static struct cc_launch_arg parse_ok(const char *spec, const char *base)
{
  struct cc_launch_arg a;
  struct cc_err err = {0};
  int rc = cc_launch_arg_parse(spec, base, &a, &err);
  if (rc != CC_OK)
    fail_msg("parsing '%s' failed: %s", spec, err.msg);
  return a;
}

/* Parses specs[0..n) into args (released by free_args). */
static void parse_all(const char *const *specs, size_t n, struct cc_launch_arg *args)
{
  for (size_t i = 0; i < n; i++)
    args[i] = parse_ok(specs[i], NULL);
}

static void free_args(struct cc_launch_arg *args, size_t n)
{
  for (size_t i = 0; i < n; i++)
    cc_launch_arg_release(&args[i]);
}

static void expect_parse_error(const char *spec, const char *needle)
{
  struct cc_launch_arg a;
  struct cc_err err = {0};
  int rc = cc_launch_arg_parse(spec, NULL, &a, &err);
  if (rc != CC_ERR_USAGE)
    fail_msg("'%s': expected usage error, got %d (%s)", spec, rc, err.msg);
  if (!strstr(err.msg, needle))
    fail_msg("'%s': message '%s' lacks '%s'", spec, err.msg, needle);
  assert_null(a.name); /* released on failure */
}

static void expect_msg(const struct cc_err *err, const char *needle)
{
  if (!strstr(err->msg, needle))
    fail_msg("message '%s' lacks '%s'", err->msg, needle);
}

/* ---- spec parsing --------------------------------------------------------------------- */

static void test_parse_scalars(void **state)
{
  struct cc_launch_arg a = parse_ok("n=4096", NULL);
  assert_string_equal(a.name, "n");
  assert_false(a.is_buffer);
  assert_string_equal(a.value, "4096");
  cc_launch_arg_release(&a);
  a = parse_ok("-3", NULL); /* a bare value has no name */
  assert_null(a.name);
  assert_string_equal(a.value, "-3");
  cc_launch_arg_release(&a);
  a = parse_ok("0x10", NULL);
  assert_string_equal(a.value, "0x10");
  cc_launch_arg_release(&a);
  a = parse_ok("alpha=1.5", NULL);
  assert_string_equal(a.name, "alpha");
  assert_string_equal(a.value, "1.5");
  cc_launch_arg_release(&a);
}

static void test_parse_buffers(void **state)
{
  struct cc_launch_arg a = parse_ok("A=f32[n*n]:random", NULL);
  assert_true(a.is_buffer);
  assert_string_equal(a.name, "A");
  assert_int_equal(a.type, PTX_TYPE_F32);
  assert_string_equal(a.size_expr, "n*n");
  assert_int_equal(a.init, CC_INIT_RANDOM);
  assert_int_equal(a.seed, 0); /* documented default seed */
  cc_launch_arg_release(&a);

  a = parse_ok("B=u64[(n+1)*2]:random:7", NULL);
  assert_int_equal(a.type, PTX_TYPE_U64);
  assert_string_equal(a.size_expr, "(n+1)*2");
  assert_int_equal(a.seed, 7);
  cc_launch_arg_release(&a);

  a = parse_ok("C=s16[4]:const:-5", NULL);
  assert_int_equal(a.init, CC_INIT_CONST);
  assert_string_equal(a.init_text, "-5");
  cc_launch_arg_release(&a);

  a = parse_ok("D=f16[4]:iota", NULL);
  assert_int_equal(a.init, CC_INIT_IOTA);
  cc_launch_arg_release(&a);

  a = parse_ok("E=u8[1]:zero", NULL);
  assert_int_equal(a.init, CC_INIT_ZERO);
  cc_launch_arg_release(&a);

  /* file: paths are joined to the launch file's folder unless absolute */
  a = parse_ok("F=u8[4]:file:data/in.bin", "examples/t");
  assert_int_equal(a.init, CC_INIT_FILE);
  assert_string_equal(a.init_text, "examples/t/data/in.bin");
  cc_launch_arg_release(&a);
  a = parse_ok("F=u8[4]:file:/abs/in.bin", "examples/t");
  assert_string_equal(a.init_text, "/abs/in.bin");
  cc_launch_arg_release(&a);
  a = parse_ok("F=u8[4]:file:in.bin", NULL);
  assert_string_equal(a.init_text, "in.bin");
  cc_launch_arg_release(&a);
}

static void test_parse_errors(void **state)
{
  expect_parse_error("A=f99[4]:zero", "unknown element type");
  expect_parse_error("A=f32[4:zero", "missing ']'");
  expect_parse_error("A=f32[4]", "missing ':INIT'");
  expect_parse_error("A=f32[4]:bogus", "unknown initialiser");
  expect_parse_error("f32[4]:zero", "a buffer needs a name");
  expect_parse_error("A=f32[4+]:zero", "bad size expression '4+'");
  expect_parse_error("A=f32[(4]:zero", "expected ')'");
  expect_parse_error("A=f32[4 4]:zero", "unexpected character");
  expect_parse_error("A=u8[4]:const:300", "out of range (0..255)");
  expect_parse_error("A=s8[4]:const:x", "is not an integer");
  expect_parse_error("A=f32[4]:const:1.5.5", "is not a number");
  expect_parse_error("A=f32[4]:random:x", "seed");
  expect_parse_error("A=f32[4]:random:-1", "seed");
  expect_parse_error("A=f32[4]:file:", "needs a path");
  expect_parse_error("1x=3", "identifier");
  expect_parse_error("n=", "missing value");
}

/* ---- size expressions ----------------------------------------------------------------- */

static uint64_t eval_ok(const char *expr, const struct cc_launch_arg *args, size_t n)
{
  uint64_t v = 0;
  struct cc_err err = {0};
  if (cc_launch_eval_size(expr, args, n, &v, &err) != CC_OK)
    fail_msg("'%s' failed: %s", expr, err.msg);
  return v;
}

static void expect_eval_error(const char *expr, const struct cc_launch_arg *args, size_t n,
                              const char *needle)
{
  uint64_t v;
  struct cc_err err = {0};
  int rc = cc_launch_eval_size(expr, args, n, &v, &err);
  if (rc != CC_ERR_INPUT)
    fail_msg("'%s': expected an input error, got %d", expr, rc);
  expect_msg(&err, needle);
}

static void test_size_expressions(void **state)
{
  /* the buffer comes before the scalars it names: names resolve in any order */
  static const char *const specs[] = {"A=f32[n*m]:zero", "n=1024", "m=0x10", "big=4294967296",
                                      "alpha=1.5", "neg=-3", "huge=9223372036854775807"};
  struct cc_launch_arg args[7];
  parse_all(specs, 7, args);
  assert_int_equal(eval_ok("n*n", args, 7), 1048576);      /* 1024^2 = 2^20 */
  assert_int_equal(eval_ok("n*m", args, 7), 16384);        /* 1024 * 16 */
  assert_int_equal(eval_ok("2+3*4", args, 7), 14);         /* * binds tighter */
  assert_int_equal(eval_ok("(2+3)*4", args, 7), 20);
  assert_int_equal(eval_ok("10-7/2", args, 7), 7);         /* 7/2 truncates to 3 */
  assert_int_equal(eval_ok("n%1000", args, 7), 24);
  assert_int_equal(eval_ok("8-2-1", args, 7), 5);          /* left associative */
  assert_int_equal(eval_ok("neg*-2", args, 7), 6);         /* -3 * -2 */
  assert_int_equal(eval_ok(" ( n + 1 ) / 5 ", args, 7), 205); /* 1025/5 */
  assert_int_equal(eval_ok("0", args, 7), 0);
  /* errors */
  expect_eval_error("big*big", args, 7, "64-bit overflow");      /* 2^64 */
  expect_eval_error("huge+1", args, 7, "64-bit overflow");       /* 2^63 */
  expect_eval_error("-huge-2", args, 7, "64-bit overflow");      /* -2^63-1 */
  expect_eval_error("n/(m-16)", args, 7, "division by zero");
  expect_eval_error("n%0", args, 7, "division by zero");
  expect_eval_error("n*k", args, 7, "unknown name 'k'");
  expect_eval_error("alpha*2", args, 7, "'alpha' = '1.5' is not a 64-bit integer");
  expect_eval_error("A+1", args, 7, "'A' is a buffer");
  expect_eval_error("neg", args, 7, "negative (-3)");
  expect_eval_error("n+", args, 7, "unexpected end");
  expect_eval_error("99999999999999999999", args, 7, "bad number");
  free_args(args, 7);
}

/* "A=f32[" + depth '(' (or '-') + "1" + depth ')' + "]:zero", owned. */
static char *nested_spec(size_t depth, char open, int close)
{
  char *s = malloc(depth * 2 + 32), *p = s;
  assert_non_null(s);
  p += sprintf(p, "A=f32[");
  memset(p, open, depth);
  p += depth;
  *p++ = '1';
  if (close) {
    memset(p, ')', depth);
    p += depth;
  }
  strcpy(p, "]:zero");
  return s;
}

/* Nesting is bounded (docs/usage.md: 256 levels of parentheses and unary minus): 100,000
 * levels used to recurse until the stack overflowed (SIGSEGV). */
static void test_size_nesting_limit(void **state)
{
  char *spec = nested_spec(100000, '(', 1);
  struct cc_launch_arg a;
  uint64_t v = 0;
  struct cc_err err = {0};
  expect_parse_error(spec, "nested deeper than 256 levels");
  free(spec);
  spec = nested_spec(100000, '-', 0);
  expect_parse_error(spec, "nested deeper than 256 levels");
  free(spec);
  /* the message quotes a long spec shortened, so that the reason is not cut off */
  spec = nested_spec(100000, '(', 1);
  assert_int_equal(cc_launch_arg_parse(spec, NULL, &a, &err), CC_ERR_USAGE);
  if (strlen(err.msg) > 400)
    fail_msg("message of %zu bytes: '%.100s...'", strlen(err.msg), err.msg);
  free(spec);
  /* 256 levels are fine: ((...(1)...)) is 1; 257 are not */
  spec = nested_spec(256, '(', 1);
  a = parse_ok(spec, NULL);
  assert_int_equal(eval_ok(a.size_expr, NULL, 0), 1);
  cc_launch_arg_release(&a);
  free(spec);
  spec = nested_spec(257, '(', 1);
  expect_parse_error(spec, "nested deeper than 256 levels");
  /* evaluation checks it too (it does not rely on the syntax check) */
  spec[6 + 257 + 1 + 257] = '\0';
  assert_int_equal(cc_launch_eval_size(spec + 6, NULL, 0, &v, &err), CC_ERR_INPUT);
  expect_msg(&err, "nested deeper than 256 levels");
  free(spec);
}

/* ---- the random generator ------------------------------------------------------------- */

/* splitmix64 from seed 0, by hand from the documented steps (and equal to the outputs of
 * Vigna's reference splitmix64.c for seed 0):
 *   state = 0x9e3779b97f4a7c15
 *   z ^ z>>30 = 0x9e3779bb07979af0, * 0xbf58476d1ce4e5b9 = 0x6f68261b57e7a770
 *   z ^ z>>27 = 0x6f682616bae3641a, * 0x94d049bb133111eb = 0xe220a838bf5c9dde
 *   z ^ z>>31 = 0xe220a8397b1dcdaf
 * next two: 0x6e789e6aa1b965f4 (state 0x3c6ef372fe94f82a), 0x06c45d188009454f. */
static void test_splitmix64(void **state)
{
  uint64_t s = 0;
  assert_int_equal(cc_launch_splitmix64(&s), UINT64_C(0xe220a8397b1dcdaf));
  assert_int_equal(s, UINT64_C(0x9e3779b97f4a7c15));
  assert_int_equal(cc_launch_splitmix64(&s), UINT64_C(0x6e789e6aa1b965f4));
  assert_int_equal(s, UINT64_C(0x3c6ef372fe94f82a));
  assert_int_equal(cc_launch_splitmix64(&s), UINT64_C(0x06c45d188009454f));
}

/* Elements made from x = 0xe220a8397b1dcdaf (the first output for seed 0). */
static void test_random_elements(void **state)
{
  const uint64_t x = UINT64_C(0xe220a8397b1dcdaf);
  float f;
  double d;
  uint16_t h;
  uint8_t u8;
  int16_t s16;
  uint32_t u32;
  /* f32: x >> 40 = 0xe220a8 = 14819496, times 2^-24 (exact in a float) */
  cc_launch_random_element(PTX_TYPE_F32, x, &f);
  assert_true(f == 14819496.0f / 16777216.0f);
  /* f64: x >> 11 = 7956156453446585, times 2^-53 */
  cc_launch_random_element(PTX_TYPE_F64, x, &d);
  assert_true(d == 7956156453446585.0 / 9007199254740992.0);
  /* f16: x >> 53 = 0x711 = 1809; 1809 * 2^-11 = (1809/1024) * 2^-1: exponent field
   * -1 + 15 = 14, mantissa 1809 - 1024 = 785 = 0x311 -> 14 << 10 | 0x311 = 0x3b11 */
  cc_launch_random_element(PTX_TYPE_F16, x, &h);
  assert_int_equal(h, 0x3b11);
  /* integers: the low bits */
  cc_launch_random_element(PTX_TYPE_U8, x, &u8);
  assert_int_equal(u8, 0xaf);
  cc_launch_random_element(PTX_TYPE_S16, x, &s16);
  assert_int_equal(s16, -12881); /* 0xcdaf - 0x10000 */
  cc_launch_random_element(PTX_TYPE_U32, x, &u32);
  assert_int_equal(u32, 0x7b1dcdaf);
}

static void test_fill_random(void **state)
{
  struct cc_launch_arg a = parse_ok("R=u32[3]:random", NULL);
  uint32_t v[3];
  struct cc_err err = {0};
  assert_int_equal(cc_launch_fill(&a, 3, v, &err), CC_OK);
  /* low 32 bits of the three outputs above */
  assert_int_equal(v[0], 0x7b1dcdaf);
  assert_int_equal(v[1], 0xa1b965f4);
  assert_int_equal(v[2], 0x8009454f);
  cc_launch_arg_release(&a);
}

/* The threaded fill against the serial one, byte for byte, for a float, a double and
 * two integer types, with thread counts that do not divide the elements; then element
 * 2^20 (thread 1's first at 2 threads of 2^21 u32 elements) by hand: seeking by
 * (i) x 0x9e3779b97f4a7c15 from seed 0 gives the state test_splitmix64 reached after i
 * outputs; its output i + 1's low 32 bits are the serial fill's element i. With seed 0,
 * elements 0..2: test_fill_random's figures at any thread count. */
static void test_fill_random_threads(void **state)
{
  static const enum ptx_type types[] = {PTX_TYPE_F32, PTX_TYPE_F64, PTX_TYPE_U8,
                                        PTX_TYPE_S16};
  static const uint32_t threads[] = {2, 3, 7};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    size_t size = cc_launch_type_size(types[ti]);
    uint64_t count = 3 * (uint64_t)CC_LAUNCH_FILL_PER_THREAD + 12345;
    uint8_t *want = malloc(count * size), *got = malloc(count * size);
    assert_non_null(want);
    assert_non_null(got);
    cc_launch_random_fill(types[ti], 99, want, count);
    for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
      memset(got, 0xa5, count * size);
      cc_launch_random_fill_threads(types[ti], 99, got, count, threads[k]);
      assert_memory_equal(got, want, count * size);
    }
    free(want);
    free(got);
  }
  {
    uint64_t count = 2 * (uint64_t)CC_LAUNCH_FILL_PER_THREAD, s = 0, x = 0;
    uint32_t *v = malloc(count * 4);
    assert_non_null(v);
    cc_launch_random_fill_threads(PTX_TYPE_U32, 0, v, count, 2);
    assert_int_equal(v[0], 0x7b1dcdaf);
    assert_int_equal(v[1], 0xa1b965f4);
    assert_int_equal(v[2], 0x8009454f);
    for (uint64_t i = 0; i <= CC_LAUNCH_FILL_PER_THREAD; i++)
      x = cc_launch_splitmix64(&s);
    assert_int_equal(v[CC_LAUNCH_FILL_PER_THREAD], (uint32_t)x);
    free(v);
  }
}

/* ---- binary16 ------------------------------------------------------------------------ */

static void test_f16(void **state)
{
  assert_int_equal(cc_launch_f16_bits(1.0), 0x3c00);        /* exp 15, mantissa 0 */
  assert_int_equal(cc_launch_f16_bits(-2.0), 0xc000);       /* sign, exp 16 */
  assert_int_equal(cc_launch_f16_bits(65504.0), 0x7bff);    /* largest finite */
  assert_int_equal(cc_launch_f16_bits(65520.0), 0x7c00);    /* halfway to 2^16: inf */
  assert_int_equal(cc_launch_f16_bits(0x1p-14), 0x0400);    /* smallest normal */
  assert_int_equal(cc_launch_f16_bits(0x1p-24), 0x0001);    /* smallest subnormal */
  assert_int_equal(cc_launch_f16_bits(0x1p-26), 0x0000);    /* below half of it: 0 */
  assert_int_equal(cc_launch_f16_bits(1.0 + 0x1p-11), 0x3c00); /* tie: to even */
  assert_int_equal(cc_launch_f16_bits(1.0 + 3 * 0x1p-11), 0x3c02); /* tie: to even */
  /* 0.1 = 1.6 * 2^-4: exp 11; 0.6 * 1024 = 614.4 -> 614 = 0x266; 11 << 10 = 0x2c00 */
  assert_int_equal(cc_launch_f16_bits(0.1), 0x2e66);
}

/* ---- initialisers ------------------------------------------------------------------- */

static void test_fill_iota_const_zero(void **state)
{
  struct cc_err err = {0};
  struct cc_launch_arg a = parse_ok("I=u8[300]:iota", NULL);
  uint8_t u8[300];
  float f[6];
  int16_t s16[2];
  uint16_t h[3];
  assert_int_equal(cc_launch_fill(&a, 300, u8, &err), CC_OK);
  assert_int_equal(u8[255], 255);
  assert_int_equal(u8[256], 0);   /* 256 mod 2^8 */
  assert_int_equal(u8[299], 43);  /* 299 - 256 */
  cc_launch_arg_release(&a);

  a = parse_ok("I=f32[6]:iota", NULL);
  assert_int_equal(cc_launch_fill(&a, 6, f, &err), CC_OK);
  assert_true(f[0] == 0.0f && f[5] == 5.0f);
  cc_launch_arg_release(&a);

  a = parse_ok("I=f16[3]:iota", NULL); /* 0, 1.0 = 0x3c00, 2.0 = 0x4000 */
  assert_int_equal(cc_launch_fill(&a, 3, h, &err), CC_OK);
  assert_int_equal(h[0], 0);
  assert_int_equal(h[1], 0x3c00);
  assert_int_equal(h[2], 0x4000);
  cc_launch_arg_release(&a);

  a = parse_ok("C=s16[2]:const:-5", NULL);
  assert_int_equal(cc_launch_fill(&a, 2, s16, &err), CC_OK);
  assert_int_equal(s16[0], -5);
  assert_int_equal(s16[1], -5);
  cc_launch_arg_release(&a);

  a = parse_ok("C=f32[6]:const:2.5", NULL);
  assert_int_equal(cc_launch_fill(&a, 6, f, &err), CC_OK);
  assert_true(f[0] == 2.5f && f[5] == 2.5f);
  cc_launch_arg_release(&a);

  a = parse_ok("Z=f32[6]:zero", NULL);
  memset(f, 0xff, sizeof f);
  assert_int_equal(cc_launch_fill(&a, 6, f, &err), CC_OK);
  assert_true(f[0] == 0.0f && f[5] == 0.0f);
  cc_launch_arg_release(&a);
}

static void test_fill_file(void **state)
{
  char path[] = "/tmp/cc-test-launch-XXXXXX", spec[128];
  const uint8_t bytes[8] = {1, 0, 0, 0, 2, 0, 0, 0};
  uint32_t v[3];
  struct cc_err err = {0};
  struct cc_launch_arg a;
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, bytes, 8), 8);
  close(fd);
  snprintf(spec, sizeof spec, "F=u32[2]:file:%s", path);
  a = parse_ok(spec, NULL);
  assert_int_equal(cc_launch_fill(&a, 2, v, &err), CC_OK); /* little-endian 1, 2 */
  assert_int_equal(v[0], 1);
  assert_int_equal(v[1], 2);
  /* the file must hold the buffer exactly: 8 bytes for 3 u32 (12 bytes) is an error */
  assert_int_equal(cc_launch_fill(&a, 3, v, &err), CC_ERR_INPUT);
  expect_msg(&err, "has 8 bytes but the buffer holds 3 u32 elements (12 bytes)");
  cc_launch_arg_release(&a);
  unlink(path);
  /* an unreadable file */
  a = parse_ok(spec, NULL);
  assert_int_equal(cc_launch_fill(&a, 2, v, &err), CC_ERR_INPUT);
  expect_msg(&err, "buffer 'F'");
  expect_msg(&err, "cannot read");
  cc_launch_arg_release(&a);
}

/* ---- binding -------------------------------------------------------------------------- */

/* A fake allocator: calloc'd host memory at device addresses 0x10000, 0x10100, ...
 * (256-byte steps like cudaMalloc's alignment). fail_at: the call that fails (1-based). */
struct fake_alloc {
  uint64_t next;
  int calls, fail_at;
  void *blocks[8];
};

static int fake_alloc_fn(void *ctx, uint64_t bytes, const char *name, uint64_t *dev,
                         void **host, struct cc_err *err)
{
  struct fake_alloc *f = ctx;
  if (++f->calls == f->fail_at)
    return cc_err_set(err, CC_ERR_INPUT, "out of emulated memory for %s", name);
  *dev = f->next;
  f->next += 0x100;
  *host = f->blocks[f->calls - 1] = calloc(1, bytes ? bytes : 1);
  return CC_OK;
}

static void fake_free(struct fake_alloc *f)
{
  for (int i = 0; i < 8; i++)
    free(f->blocks[i]);
}

/* A kernel k(u64, u64, s32, f32) and optional extra params, built as IR. */
struct kernel {
  struct ptx_function f;
  struct ptx_var vars[6];
  uint32_t params[6];
};

static void make_kernel(struct kernel *k, const enum ptx_type *types, uint32_t n)
{
  memset(k, 0, sizeof *k);
  k->f.name = "_Z4kernPfPhif";
  k->f.is_entry = 1;
  k->f.nparams = n;
  k->f.param_vars = k->params;
  k->f.vars = k->vars;
  k->f.nvars = n;
  for (uint32_t i = 0; i < n; i++) {
    k->vars[i].space = PTX_SPACE_PARAM;
    k->vars[i].type = types[i];
    k->vars[i].vec = 1;
    k->vars[i].count = 1;
    k->vars[i].size_bytes = cc_launch_scalar_size(types[i]);
    k->params[i] = i;
  }
}

static const enum ptx_type kern_types[] = {PTX_TYPE_U64, PTX_TYPE_U64, PTX_TYPE_S32,
                                           PTX_TYPE_F32};

static void test_bind(void **state)
{
  static const char *const specs[] = {"A=f32[n*2]:iota", "B=u8[n]:const:7", "n=3", "alpha=1.5"};
  struct cc_launch_arg args[4];
  struct kernel k;
  struct fake_alloc fa = {0x10000, 0, 0, {0}};
  struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 0, 0};
  struct cc_launch_bound b;
  struct cc_err err = {0};
  uint64_t p0, p1;
  int32_t p2;
  uint32_t p3;
  const struct cc_launch_buffer *buf;
  make_kernel(&k, kern_types, 4);
  parse_all(specs, 4, args);
  assert_int_equal(cc_launch_bind(args, 4, &k.f, &alloc, &b, &err), CC_OK);
  assert_int_equal(b.nparams, 4);
  assert_int_equal(b.param_bytes[0], 8); /* pointers are 64-bit */
  assert_int_equal(b.param_bytes[2], 4);
  memcpy(&p0, b.params[0], 8);
  memcpy(&p1, b.params[1], 8);
  memcpy(&p2, b.params[2], 4);
  memcpy(&p3, b.params[3], 4);
  assert_int_equal(p0, 0x10000);
  assert_int_equal(p1, 0x10100);
  assert_int_equal(p2, 3);
  assert_int_equal(p3, 0x3fc00000); /* 1.5f: exponent 127, mantissa 0x400000 */
  assert_int_equal(b.nbuffers, 2);
  buf = cc_launch_find_buffer(&b, "A");
  assert_non_null(buf);
  assert_int_equal(buf->count, 6);  /* n*2 */
  assert_int_equal(buf->bytes, 24); /* 6 x 4 */
  assert_true(((float *)buf->host)[5] == 5.0f);
  buf = cc_launch_find_buffer(&b, "B");
  assert_int_equal(buf->bytes, 3);
  assert_int_equal(((uint8_t *)buf->host)[2], 7);
  assert_null(cc_launch_find_buffer(&b, "n")); /* a scalar is not a buffer */
  cc_launch_bound_release(&b);
  free_args(args, 4);
  fake_free(&fa);
}

/* offset(BYTES) (launch.h, CC_LAUNCH_OFFSET_MAX): parsed before the LAYOUT, INIT found
 * after both (init_at); BYTES a multiple of the element size in 0..255, else a usage
 * error naming the rule. */
static void test_parse_offset(void **state)
{
  struct cc_launch_arg a;
  (void)state;
  a = parse_ok("A=f32[n]:offset(4):iota", NULL);
  assert_int_equal(a.offset, 4);
  assert_int_equal(a.init, CC_INIT_IOTA);
  assert_string_equal(a.text + a.init_at, "iota");
  cc_launch_arg_release(&a);
  a = parse_ok("B=f64[64]:offset(8):soa(16,0,8):random:3", NULL);
  assert_int_equal(a.offset, 8);
  assert_int_equal(a.layout.struct_bytes, 16);
  assert_string_equal(a.text + a.init_at, "random:3");
  cc_launch_arg_release(&a);
  a = parse_ok("C=u8[4]:offset(255):zero", NULL); /* the largest; u8: any byte */
  assert_int_equal(a.offset, 255);
  cc_launch_arg_release(&a);
  a = parse_ok("D=f32[4]:zero", NULL); /* none: 0, INIT right after the size */
  assert_int_equal(a.offset, 0);
  assert_string_equal(a.text + a.init_at, "zero");
  cc_launch_arg_release(&a);
  expect_parse_error("A=f32[4]:offset(2):zero", "a multiple of the element size (4 bytes) in "
                     "0..255");
  expect_parse_error("A=u8[4]:offset(256):zero", "in 0..255");
  expect_parse_error("A=f64[4]:offset(12):zero", "(8 bytes)");
  expect_parse_error("A=f32[4]:offset(-4):zero", "offset(BYTES) takes");
  expect_parse_error("A=f32[4]:offset():zero", "offset(BYTES) takes");
  expect_parse_error("A=f32[4]:offset(4)zero", "needs its ')' and ':'");
  expect_parse_error("A=f32[4]:offset(4", "needs its ')' and ':'");
  expect_parse_error("A=f32[4]:offset(4):", "unknown initialiser");
}

/* Binding offset buffers with the fake allocator (256-byte steps from 0x10000): A =
 * f32[6] iota at offset(4) takes 24 + 4 = 28 bytes at 0x10000, its pointer 0x10004, its
 * host bytes 4 into the block, the 4 before zero; B = u8[3] const 7 at offset(3) takes 6
 * bytes at 0x10100, pointer 0x10103, block bytes 0 0 0 7 7 7. Their total, 28 + 6 = 34
 * bytes, counts the offsets: a limit of 33 refuses B ("needs 6 bytes"). A dump writes
 * the 24 bytes of A only (iota: 0.0f .. 5.0f). */
static void test_bind_offset(void **state)
{
  static const char *const specs[] = {"A=f32[n*2]:offset(4):iota", "B=u8[n]:offset(3):const:7",
                                      "n=3", "alpha=1.5"};
  static const uint8_t b_block[6] = {0, 0, 0, 7, 7, 7};
  static const float iota[6] = {0, 1, 2, 3, 4, 5};
  struct cc_launch_arg args[4];
  struct kernel k;
  struct fake_alloc fa = {0x10000, 0, 0, {0}};
  struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 33, 0};
  struct cc_launch_bound b;
  struct cc_err err = {0};
  const struct cc_launch_buffer *buf;
  char path[] = "/tmp/cc-test-offset-XXXXXX";
  float back[7];
  uint64_t p0, p1;
  FILE *fp;
  int fd;
  (void)state;
  make_kernel(&k, kern_types, 4);
  parse_all(specs, 4, args);
  assert_int_equal(cc_launch_bind(args, 4, &k.f, &alloc, &b, &err), CC_ERR_LIMIT);
  expect_msg(&err, "argument 2 'B' needs 6 bytes, which brings the buffers to 34 bytes, "
                   "above the limit of 33 bytes");
  alloc.max_bytes = 34;
  assert_int_equal(cc_launch_bind(args, 4, &k.f, &alloc, &b, &err), CC_OK);
  memcpy(&p0, b.params[0], 8);
  memcpy(&p1, b.params[1], 8);
  assert_int_equal(p0, 0x10004);
  assert_int_equal(p1, 0x10103);
  buf = cc_launch_find_buffer(&b, "A");
  assert_int_equal(buf->dev_addr, 0x10004);
  assert_int_equal(buf->bytes, 24);
  assert_ptr_equal(buf->host, (uint8_t *)fa.blocks[0] + 4);
  assert_memory_equal(fa.blocks[0], "\0\0\0\0", 4);
  assert_memory_equal(buf->host, iota, sizeof iota);
  buf = cc_launch_find_buffer(&b, "B");
  assert_int_equal(buf->bytes, 3);
  assert_memory_equal(fa.blocks[1], b_block, sizeof b_block);
  fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(cc_launch_dump(cc_launch_find_buffer(&b, "A"), path, &err), CC_OK);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  assert_int_equal(fread(back, 1, sizeof back, fp), 24);
  fclose(fp);
  unlink(path);
  assert_memory_equal(back, iota, sizeof iota);
  cc_launch_bound_release(&b);
  free_args(args, 4);
  fake_free(&fa);
}

/* Binds specs to a kernel of the given param types; expects status and a message. */
static void expect_bind_error(const char *const *specs, size_t n, const enum ptx_type *types,
                              uint32_t ntypes, int fail_at, int status, const char *needle)
{
  struct cc_launch_arg args[6];
  struct kernel k;
  struct fake_alloc fa = {0x10000, 0, fail_at, {0}};
  struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 0, 0};
  struct cc_launch_bound b;
  struct cc_err err = {0};
  int rc;
  make_kernel(&k, types, ntypes);
  parse_all(specs, n, args);
  rc = cc_launch_bind(args, n, &k.f, &alloc, &b, &err);
  if (rc != status)
    fail_msg("expected status %d, got %d (%s)", status, rc, err.msg);
  expect_msg(&err, needle);
  assert_null(b.params); /* released on failure */
  free_args(args, n);
  fake_free(&fa);
}

static void test_bind_errors(void **state)
{
  static const char *const three[] = {"A=f32[n]:zero", "B=u8[n]:zero", "n=3"};
  static const char *const frac[] = {"A=f32[n]:zero", "B=u8[4]:zero", "n=1.5", "alpha=1"};
  static const char *const big[] = {"A=f32[4]:zero", "B=u8[4]:zero", "n=2147483648", "1"};
  static const char *const buf_in_s32[] = {"A=f32[4]:zero", "B=u8[4]:zero", "C=s32[4]:zero",
                                           "1"};
  static const char *const dup[] = {"A=f32[4]:zero", "A=u8[4]:zero", "n=3", "1"};
  static const char *const notnum[] = {"A=f32[4]:zero", "B=u8[4]:zero", "3", "x"};
  static const char *const sizeerr[] = {"A=f32[m]:zero", "B=u8[4]:zero", "n=3", "1"};
  static const char *const overflow[] = {"A=f64[n]:zero", "B=u8[4]:zero",
                                         "n=2305843009213693952", "1"};
  static const char *const agg[] = {"A=f32[4]:zero", "B=u8[4]:zero", "3", "1", "7"};
  static const char *const ok4[] = {"A=f32[4]:zero", "B=u8[4]:zero", "3", "1"};
  static const char *const neg_u32[] = {"-2147483649"}; /* -2^31 - 1 */
  static const char *const big_u32[] = {"4294967296"};  /* 2^32 */
  static const enum ptx_type u32[] = {PTX_TYPE_U32};
  static const enum ptx_type s64_types[] = {PTX_TYPE_U64, PTX_TYPE_U64, PTX_TYPE_S64,
                                            PTX_TYPE_F32};
  enum ptx_type with_agg[5] = {PTX_TYPE_U64, PTX_TYPE_U64, PTX_TYPE_S32, PTX_TYPE_F32,
                               PTX_TYPE_B8};
  expect_bind_error(three, 3, kern_types, 4, 0, CC_ERR_INPUT,
                    "kernel _Z4kernPfPhif has 4 parameters but 3 --arg were given");
  expect_bind_error(frac, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "argument 3 'n' is s32 in the kernel but '1.5' is not an integer");
  expect_bind_error(big, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "argument 3 'n' is s32 in the kernel but '2147483648' is out of range "
                    "(-2147483648..2147483647)");
  expect_bind_error(buf_in_s32, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "argument 3 'C' is a buffer, passed as a 64-bit pointer, but the kernel's "
                    "parameter is s32");
  expect_bind_error(dup, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "arguments 1 and 2 are both called 'A'");
  expect_bind_error(notnum, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "argument 4 is f32 in the kernel but 'x' is not a number");
  expect_bind_error(sizeerr, 4, kern_types, 4, 0, CC_ERR_INPUT,
                    "argument 1 'A': bad size expression 'm': unknown name 'm'");
  /* 2^61 elements x 8 bytes = 2^64: overflows */
  expect_bind_error(overflow, 4, s64_types, 4, 0, CC_ERR_INPUT, "overflow 64 bits");
  expect_bind_error(ok4, 4, kern_types, 4, 2, CC_ERR_INPUT,
                    "argument 2 'B': out of emulated memory for B");
  /* a .u32 parameter takes -2^31..2^32-1 (see test_bind_unsigned_params) */
  expect_bind_error(neg_u32, 1, u32, 1, 0, CC_ERR_INPUT,
                    "argument 1 is u32 in the kernel but '-2147483649' is out of range "
                    "(-2147483648..4294967295)");
  expect_bind_error(big_u32, 1, u32, 1, 0, CC_ERR_INPUT,
                    "argument 1 is u32 in the kernel but '4294967296' is out of range "
                    "(-2147483648..4294967295)");
  {
    /* a by-value struct: .param .align 4 .b8 p[12] */
    struct cc_launch_arg args[5];
    struct kernel k;
    struct fake_alloc fa = {0x10000, 0, 0, {0}};
    struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 0, 0};
    struct cc_launch_bound b;
    struct cc_err err = {0};
    make_kernel(&k, with_agg, 5);
    k.vars[4].count = 12;
    k.vars[4].size_bytes = 12;
    parse_all(agg, 5, args);
    assert_int_equal(cc_launch_bind(args, 5, &k.f, &alloc, &b, &err), CC_ERR_INPUT);
    expect_msg(&err, "argument 5: the kernel's parameter is b8[12] (12 bytes), which "
                     "coalcheck cannot pass yet");
    free_args(args, 5);
    fake_free(&fa);
  }
}

/* The buffers' total is checked against the allocator's max_bytes before any buffer is
 * allocated: A = 16 f32 = 64 bytes, B = n = 64 u8 = 64 bytes, 128 in all. */
static void test_bind_memory_limit(void **state)
{
  static const char *const specs[] = {"A=f32[16]:zero", "B=u8[n]:iota", "n=64", "1"};
  struct cc_launch_arg args[4];
  struct kernel k;
  struct fake_alloc fa = {0x10000, 0, 0, {0}};
  struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 127, 0};
  struct cc_launch_bound b;
  struct cc_err err = {0};
  make_kernel(&k, kern_types, 4);
  parse_all(specs, 4, args);
  assert_int_equal(cc_launch_bind(args, 4, &k.f, &alloc, &b, &err), CC_ERR_LIMIT);
  expect_msg(&err, "argument 2 'B' needs 64 bytes, which brings the buffers to 128 bytes, "
                   "above the limit of 127 bytes of emulated memory");
  expect_msg(&err, "--max-memory");
  assert_int_equal(fa.calls, 0); /* nothing was allocated */
  assert_null(b.params);
  alloc.max_bytes = 128; /* exactly the total: fine */
  assert_int_equal(cc_launch_bind(args, 4, &k.f, &alloc, &b, &err), CC_OK);
  assert_int_equal(fa.calls, 2);
  cc_launch_bound_release(&b);
  fake_free(&fa);
  free_args(args, 4);
  /* 2^40 f32 = 4 TiB against 1 GiB; the sum of two 2^63-byte buffers (2^60 u64 each)
   * overflows 64 bits */
  {
    static const char *const huge[] = {"A=f32[1099511627776]:zero",
                                       "B=u64[1152921504606846976]:zero", "3", "1"};
    struct fake_alloc fb = {0x10000, 0, 0, {0}};
    struct cc_launch_allocator lim = {&fb, fake_alloc_fn, UINT64_C(1) << 30, 0};
    parse_all(huge, 4, args);
    assert_int_equal(cc_launch_bind(args, 4, &k.f, &lim, &b, &err), CC_ERR_LIMIT);
    expect_msg(&err, "argument 1 'A' needs 4398046511104 bytes (4.0 TiB), which brings the "
                     "buffers to 4398046511104 bytes (4.0 TiB), above the limit of 1073741824 "
                     "bytes (1.0 GiB)");
    cc_launch_arg_release(&args[0]);
    args[0] = parse_ok("A=u64[1152921504606846976]:zero", NULL);
    lim.max_bytes = UINT64_MAX;
    assert_int_equal(cc_launch_bind(args, 4, &k.f, &lim, &b, &err), CC_ERR_LIMIT);
    expect_msg(&err, "argument 2 'B' needs 9223372036854775808 bytes (8.0 EiB), which brings "
                     "the buffers to more than 2^64-1 bytes");
    assert_int_equal(fb.calls, 0);
    free_args(args, 4);
  }
}

/* nvcc 13 declares every integer parameter unsigned: `int i, short s, signed char c, long
 * long ll` become .u32, .u16, .u8, .u64 (nvcc -ptx of a kernel taking them). So a .uN
 * parameter takes a negative value as two's complement, -2^(N-1)..2^N-1
 * (docs/usage.md); a .sN parameter (hand-written PTX) keeps the signed range. */
static void test_bind_unsigned_params(void **state)
{
  static const char *const specs[] = {"-1", "-2147483648", "4294967295", "-128", "-1",
                                      "-9223372036854775808"};
  static const enum ptx_type types[] = {PTX_TYPE_U32, PTX_TYPE_U32, PTX_TYPE_U32,
                                        PTX_TYPE_U8, PTX_TYPE_U16, PTX_TYPE_U64};
  static const char *const s32_big[] = {"4294967295"};
  static const enum ptx_type s32[] = {PTX_TYPE_S32};
  struct cc_launch_arg args[6];
  struct kernel k;
  struct fake_alloc fa = {0x10000, 0, 0, {0}};
  struct cc_launch_allocator alloc = {&fa, fake_alloc_fn, 0, 0};
  struct cc_launch_bound b;
  struct cc_err err = {0};
  uint32_t u32;
  uint16_t u16;
  uint64_t u64;
  make_kernel(&k, types, 6);
  parse_all(specs, 6, args);
  if (cc_launch_bind(args, 6, &k.f, &alloc, &b, &err) != CC_OK)
    fail_msg("%s", err.msg);
  memcpy(&u32, b.params[0], 4);
  assert_int_equal(u32, 0xffffffffu);          /* -1 mod 2^32 */
  memcpy(&u32, b.params[1], 4);
  assert_int_equal(u32, 0x80000000u);          /* -2^31 mod 2^32 */
  memcpy(&u32, b.params[2], 4);
  assert_int_equal(u32, 0xffffffffu);          /* 2^32-1 */
  assert_int_equal(b.param_bytes[3], 1);
  assert_int_equal(*(uint8_t *)b.params[3], 0x80); /* -128 mod 2^8 */
  memcpy(&u16, b.params[4], 2);
  assert_int_equal(u16, 0xffff);
  memcpy(&u64, b.params[5], 8);
  assert_true(u64 == UINT64_C(0x8000000000000000)); /* -2^63 mod 2^64 */
  cc_launch_bound_release(&b);
  free_args(args, 6);
  expect_bind_error(s32_big, 1, s32, 1, 0, CC_ERR_INPUT,
                    "argument 1 is s32 in the kernel but '4294967295' is out of range "
                    "(-2147483648..2147483647)");
  fake_free(&fa);
}

/* Scalar conversion to every parameter type, by hand. */
static void test_convert(void **state)
{
  uint8_t out[8];
  char why[128];
  uint64_t u64;
  double d;
  assert_int_equal(cc_launch_convert(PTX_TYPE_S8, "-128", out, why, sizeof why), 0);
  assert_int_equal(out[0], 0x80);
  assert_int_equal(cc_launch_convert(PTX_TYPE_S8, "128", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_B8, "-1", out, why, sizeof why), 0);
  assert_int_equal(out[0], 0xff);
  assert_int_equal(cc_launch_convert(PTX_TYPE_B8, "255", out, why, sizeof why), 0);
  assert_int_equal(cc_launch_convert(PTX_TYPE_B8, "256", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_U16, "0xffff", out, why, sizeof why), 0);
  assert_int_equal(out[0], 0xff);
  assert_int_equal(out[1], 0xff);
  assert_int_equal(cc_launch_convert(PTX_TYPE_U64, "18446744073709551615", out, why,
                                     sizeof why), 0);
  memcpy(&u64, out, 8);
  assert_true(u64 == UINT64_MAX);
  assert_int_equal(cc_launch_convert(PTX_TYPE_U64, "18446744073709551616", out, why,
                                     sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_S64, "-9223372036854775808", out, why,
                                     sizeof why), 0);
  memcpy(&u64, out, 8);
  assert_true(u64 == UINT64_C(0x8000000000000000));
  assert_int_equal(cc_launch_convert(PTX_TYPE_F64, "-0.25", out, why, sizeof why), 0);
  memcpy(&d, out, 8);
  assert_true(d == -0.25);
  assert_int_equal(cc_launch_convert(PTX_TYPE_F32, "1e39", out, why, sizeof why), -1);
  assert_non_null(strstr(why, "out of range"));
  assert_int_equal(cc_launch_convert(PTX_TYPE_F16, "70000", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_F16, "2", out, why, sizeof why), 0);
  assert_int_equal(out[0] | out[1] << 8, 0x4000);
  assert_int_equal(cc_launch_convert(PTX_TYPE_S32, " 1", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_S32, "1 ", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_S32, "0x", out, why, sizeof why), -1);
  assert_int_equal(cc_launch_convert(PTX_TYPE_PRED, "1", out, why, sizeof why), -1);
}

/* ---- dumps -------------------------------------------------------------------------- */

static void test_dump(void **state)
{
  char dir[] = "/tmp/cc-test-dump-XXXXXX", path[256], *back;
  uint32_t data[3] = {1, 2, 0xdeadbeef};
  struct cc_launch_buffer buf = {"A", PTX_TYPE_U32, 3, 12, 0x10000, data, NULL};
  struct cc_err err = {0};
  FILE *fp;
  long size;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/a.bin", dir);
  assert_int_equal(cc_launch_dump(&buf, path, &err), CC_OK);
  fp = fopen(path, "rb");
  assert_non_null(fp);
  fseek(fp, 0, SEEK_END);
  size = ftell(fp);
  assert_int_equal(size, 12);
  back = calloc(1, 12);
  fseek(fp, 0, SEEK_SET);
  assert_int_equal(fread(back, 1, 12, fp), 12);
  assert_memory_equal(back, data, 12);
  free(back);
  fclose(fp);
  unlink(path);
  /* a folder that does not exist: CC_ERR_IO naming the buffer and the path */
  snprintf(path, sizeof path, "%s/missing/a.bin", dir);
  assert_int_equal(cc_launch_dump(&buf, path, &err), CC_ERR_IO);
  expect_msg(&err, "cannot dump buffer 'A'");
  expect_msg(&err, path);
  assert_int_equal(rmdir(dir), 0); /* nothing left behind */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_parse_scalars),
    cmocka_unit_test(test_parse_buffers),
    cmocka_unit_test(test_parse_errors),
    cmocka_unit_test(test_size_expressions),
    cmocka_unit_test(test_size_nesting_limit),
    cmocka_unit_test(test_splitmix64),
    cmocka_unit_test(test_random_elements),
    cmocka_unit_test(test_fill_random),
    cmocka_unit_test(test_fill_random_threads),
    cmocka_unit_test(test_f16),
    cmocka_unit_test(test_fill_iota_const_zero),
    cmocka_unit_test(test_fill_file),
    cmocka_unit_test(test_bind),
    cmocka_unit_test(test_bind_errors),
    cmocka_unit_test(test_bind_unsigned_params),
    cmocka_unit_test(test_bind_memory_limit),
    cmocka_unit_test(test_parse_offset),
    cmocka_unit_test(test_bind_offset),
    cmocka_unit_test(test_convert),
    cmocka_unit_test(test_dump),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
