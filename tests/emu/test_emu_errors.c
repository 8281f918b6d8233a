/* Emulator: the error paths not covered elsewhere, each with its message checked. */
#include "emu/harness.h"

static void expect(const char *ptx, const char *kernel, struct launch *l, int status,
                   const char *needle)
{
  struct ptx_module *m = parse_ok(ptx);
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  int s = launch_run(emu, m, kernel, l, NULL, NULL, &err);
  if (s != status) print_error("status %d, want %d: %s\n", s, status, err.msg);
  assert_int_equal(s, status);
  assert_true(contains(err.msg, needle));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* one kernel, the faulting instruction chosen by the text */
#define K1(body)                                                                        \
  PTX_HEADER ".visible .entry k(.param .u32 p_x)\n{\n"                                  \
  ".reg .pred %p<2>; .reg .b32 %r<8>; .reg .b64 %rd<8>;\n" body "ret;\n}\n"

static void test_space_bounds(void **state)
{
  struct launch l = L1(1, 32);
  (void)state;
  arg32(&l, 0);
  /* .local: 16 bytes per thread; offset 16 is out */
  expect(K1(".local .align 4 .b8 loc[16];\n"
            "mov.u64 %rd1, loc;\n"
            "ld.local.u32 %r1, [%rd1+16];\n"),
         "k", &l, CC_ERR_MEMCHECK, "invalid local read of size 4 at 0x10 by thread (0,0,0)");
  expect(K1(".local .align 4 .b8 loc[16];\n"
            "ld.local.u32 %r1, [loc+16];\n"),
         "k", &l, CC_ERR_MEMCHECK, "offset 16 is outside the thread's 16 bytes of local memory");
  /* .const: the module's bank is 8 bytes */
  expect(PTX_HEADER ".const .align 4 .b32 c[2] = {1, 2};\n"
         ".visible .entry k(.param .u32 p_x)\n{\n.reg .b32 %r<4>;\n"
         "ld.const.u32 %r1, [c+8];\nret;\n}\n",
         "k", &l, CC_ERR_MEMCHECK, "outside the module's 8 bytes of constant memory");
  /* kernel parameters: 4 bytes */
  expect(K1("ld.param.u32 %r1, [p_x+4];\n"), "k", &l, CC_ERR_MEMCHECK,
         "invalid param read of size 4 at 0x4");
  /* writing a kernel parameter is not allowed either */
  expect(K1("st.param.u32 [p_x], 1;\n"), "k", &l, CC_ERR_MEMCHECK, "invalid param write");
  /* an atomic on a generic address in the local window */
  expect(K1(".local .align 4 .b8 loc[16];\n"
            "mov.u64 %rd1, loc;\n"
            "cvta.local.u64 %rd2, %rd1;\n"
            "atom.add.u32 %r1, [%rd2], 1;\n"),
         "k", &l, CC_ERR_KERNEL, "atomic on local memory");
  /* st.const is not even decoded: unsupported */
}

static void test_barrier_operands(void **state)
{
  struct launch l = L1(1, 64);
  (void)state;
  arg32(&l, 0);
  expect(K1("bar.sync 16;\n"), "k", &l, CC_ERR_KERNEL, "barrier id 16 out of range (0..15)");
  expect(K1("bar.sync 1, 48;\n"), "k", &l, CC_ERR_KERNEL,
         "barrier thread count 48 is not a multiple of 32");
  /* bar.sync 1, 32 waits for one warp: each warp passes alone */
  expect(K1("bar.sync 1, 32;\n"), "k", &l, CC_OK, "");
}

static void test_resources(void **state)
{
  struct launch l = L1(1, 32);
  (void)state;
  arg32(&l, 0);
  /* 600000 bytes of .local per thread: more than the 512 KiB CUDA allows */
  expect(K1(".local .align 4 .b8 big[600000];\n"), "k", &l, CC_ERR_UNSUPPORTED,
         "function k uses 600000 bytes of local memory per thread");
  /* 300 KB of dynamic shared memory */
  l.dyn = 300000;
  expect(K1(""), "k", &l, CC_ERR_INPUT, "needs 300000 bytes of shared memory per block");
  l.dyn = 0;
  /* recursion with 400 KB frames: the third frame would pass 1 MiB */
  expect(PTX_HEADER ".func deep()\n{\n.local .align 4 .b8 buf[400000];\n"
         "call.uni deep, ();\nret;\n}\n"
         ".visible .entry k(.param .u32 p_x)\n{\ncall.uni deep, ();\nret;\n}\n",
         "k", &l, CC_ERR_KERNEL, "local memory stack overflow: the call to deep");
}

static void test_bad_indirect_call(void **state)
{
  struct launch l = L1(1, 32);
  (void)state;
  arg32(&l, 0);
  /* a target that is no function's address (functions' addresses are small indices) */
  expect(K1("mov.u64 %rd1, 999;\n"
            "{\n"
            "proto : .callprototype _ ();\n"
            "call %rd1, (), proto;\n"
            "}\n"),
         "k", &l, CC_ERR_KERNEL, "indirect call to 0x3e7, which is no function's address");
}

static void test_not_a_kernel_and_alloc(void **state)
{
  struct ptx_module *m = parse_ok(PTX_HEADER ".func f()\n{\nret;\n}\n"
                                  ".visible .entry k()\n{\nret;\n}\n");
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct cc_err err;
  uint64_t dev;
  void *host;
  (void)state;
  memset(&err, 0, sizeof err);
  assert_int_equal(cc_emu_check(emu, ptx_module_find(m, "f"), &err), CC_ERR_INPUT);
  assert_true(contains(err.msg, "function f is not a kernel"));
  assert_int_equal(cc_emu_check(emu, ptx_module_find(m, "k"), &err), CC_OK);
  assert_int_equal(cc_emu_alloc(emu, UINT64_C(1) << 41, "huge", &dev, &host, &err), CC_ERR_INPUT);
  assert_true(contains(err.msg, "cannot allocate 2199023255552 bytes of emulated global "
                                "memory for buffer 'huge'"));
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* a sink's failure stops the run with the sink's status; end_kernel still runs */
struct fail_sink {
  int ends, accesses;
};

static int fs_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  (void)ctx;
  (void)k;
  (void)err;
  return 0;
}

static int fs_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct fail_sink *f = ctx;
  (void)a;
  f->accesses++;
  return cc_err_set(err, CC_ERR_IO, "disk full");
}

static int fs_end(void *ctx, struct cc_err *err)
{
  struct fail_sink *f = ctx;
  (void)err;
  f->ends++;
  return 0;
}

static void test_sink_failure(void **state)
{
  struct ptx_module *m = parse_ok(K1("mov.u64 %rd1, 0x7f0000000000;\n"
                                     "ld.global.u32 %r1, [%rd1];\n"
                                     "ld.global.u32 %r1, [%rd1];\n"));
  struct cc_emu *emu = cc_emu_new(m, NULL);
  struct fail_sink f = {0, 0};
  struct cc_access_sink sink = {&f, fs_begin, fs_access, fs_end};
  struct cc_err err;
  struct cc_emu_stats st;
  struct launch l = L1(1, 32);
  uint64_t dev;
  (void)state;
  alloc_ok(emu, 256, "buf", &dev);
  arg32(&l, 0);
  assert_int_equal(launch_run(emu, m, "k", &l, &sink, &st, &err), CC_ERR_IO);
  assert_true(contains(err.msg, "disk full"));
  assert_int_equal(f.accesses, 1);
  assert_int_equal(f.ends, 1);
  cc_emu_free(emu);
  ptx_module_free(m);
}

/* The default budget per CTA (emu.h): 2^17 warp instructions per thread, at least 2^26:
 * the floor up to 512 threads, 2^17 x 1024 = 2^27 at the most threads a block may have. */
static void test_default_budget(void **state)
{
  (void)state;
  assert_int_equal(cc_emu_cta_budget(1), UINT64_C(1) << 26);
  assert_int_equal(cc_emu_cta_budget(32), UINT64_C(1) << 26);
  assert_int_equal(cc_emu_cta_budget(512), UINT64_C(1) << 26);
  assert_int_equal(cc_emu_cta_budget(513), UINT64_C(513) << 17);
  assert_int_equal(cc_emu_cta_budget(1024), UINT64_C(1) << 27);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_budget),
      cmocka_unit_test(test_space_bounds),
      cmocka_unit_test(test_barrier_operands),
      cmocka_unit_test(test_resources),
      cmocka_unit_test(test_bad_indirect_call),
      cmocka_unit_test(test_not_a_kernel_and_alloc),
      cmocka_unit_test(test_sink_failure),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
