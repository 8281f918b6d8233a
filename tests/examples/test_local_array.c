/* examples/local_array: per-thread arrays in local memory (ld.local / st.local), checked
 * against C references and against figures derived by hand from the interleaved local
 * layout (examples/local_array/local_array.cu, top comment; src/model/geometry.c
 * cc_model_local_layout). Local memory is interleaved in 32-bit words whatever the access
 * size (CUDA C Programming Guide, "Local Memory"; confirmed on the H200 with Nsight
 * Compute, tests/gpu/apps/gpuapps.cu local_uniform<double> and local_probe8):
 *
 *   physical(off, lane) = (off / 4) * 128 + lane * 4 + off % 4,
 *
 * then 32-byte sectors as for global memory. Word w of lane l is in sector 4w + l / 8 of
 * the thread block's interleaved local area. An 8-byte access (element e = words 2e and
 * 2e + 1) is costed as two 4-byte accesses, 2 requests, the second 128 bytes after the
 * first in every lane; Algorithm 1's strides and the footprint (allStr) use the first
 * word's address with the access's size. The array starts at offset 0 of the frame (one
 * local array, no spills), so rows start on 128-byte boundaries.
 *
 * Every launch: n = 8192 threads, 32 CTAs x 256 threads = 256 full warps; each thread
 * does 64 local stores and 16 local loads (s = 7), one global load and one global store.
 * The same kernels run on the GPU in tests/gpu/apps/gpuapps.cu against Nsight Compute. */
/* harness.h is a set of static helpers written for one program: this one uses a part */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "examples/harness.h"
#pragma GCC diagnostic pop

enum { N = 8192, WARPS = N / 32, STORES = 64, LOADS = 16, S = 7 };

/* The local and global instructions of one kernel, by source line. */
struct local_picks {
  struct ex_pick st, ld, gld, gst;
};

/* store: a snippet of the kernel's store line (the declaration "float a[64]" comes first);
 * words: 32-bit words per local access (1 for float, 2 for double: one request each) */
static struct local_picks pick_all(const cJSON *k, const char *anchor, const char *store,
                                   uint64_t words)
{
  const char *f = "local_array/local_array.cu";
  struct local_picks p;
  p.st = ex_pick(k, "st.local", ex_source_line(f, anchor, store), NULL);
  p.ld = ex_pick(k, "ld.local", ex_source_line(f, anchor, "acc += a["), NULL);
  p.gld = ex_pick(k, "ld.global", ex_source_line(f, anchor, "v = in[i];"), NULL);
  p.gst = ex_pick(k, "st.global", ex_source_line(f, anchor, "out[i] = acc;"), NULL);
  ex_check_each_str(&p.st, "space", "local");
  ex_check_each_str(&p.ld, "space", "local");
  /* one warp-level instruction per loop iteration: 256 warps x 64 stores, x 16 loads,
   * each one request per 32-bit word */
  ex_check_sum(&p.st, JS_REQUESTS, (uint64_t)WARPS * STORES * words);
  ex_check_sum(&p.ld, JS_REQUESTS, (uint64_t)WARPS * LOADS * words);
  ex_check_sum(&p.gld, JS_REQUESTS, WARPS);
  ex_check_sum(&p.gst, JS_REQUESTS, WARPS);
  return p;
}

/* A coalesced local instruction gets no advice of any kind (docs/json-schema.md). */
static void check_no_advice(const struct ex_pick *p)
{
  static const char *const kinds[] = { "local-array", "thread-geometry", "shared-memory",
                                       "layout", "none" };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    ex_check_suggestion(p, kinds[i], 0);
}

/* local_uniform: a[k] then a[(k * 7) & 63], all lanes at one word w: lanes 0..31 at
 * 128w + 4l, 128 aligned bytes: 4 sectors, ideal 4 (32 lanes x 4 B / 32). */
static void test_local_uniform(void **state)
{
  struct ex_buffer b[] = {{"out", 4, N, NULL, NULL, NULL}, {"in", 4, N, NULL, NULL, NULL}};
  struct ex_run r;
  struct local_picks p;
  float *want = malloc(N * sizeof *want);
  const float *in;
  uint32_t i, k;
  (void)state;
  assert_non_null(want);
  ex_run(&r, "local_array/uniform.launch", b, 2, NULL);
  in = b[1].data;
  /* a[j] = in[i] + j (add.f32), summed in loop order from 0 */
  for (i = 0; i < N; i++) {
    float acc = 0.0f;
    for (k = 0; k < LOADS; k++)
      acc += in[i] + (float)((k * S) & 63);
    want[i] = acc;
  }
  ex_check_floats_exact("local_uniform out", b[0].data, want, N);
  free(want);

  p = pick_all(ex_kernel(&r, "local_uniform"), "void local_uniform(", "a[k] = v", 1);
  ex_check_sum(&p.st, JS_SECTORS, 4ull * WARPS * STORES); /* 65536 */
  ex_check_sum(&p.st, JS_IDEAL, 4ull * WARPS * STORES);
  ex_check_sum(&p.ld, JS_SECTORS, 4ull * WARPS * LOADS); /* 16384 */
  ex_check_sum(&p.ld, JS_IDEAL, 4ull * WARPS * LOADS);
  ex_check_each(&p.st, JS_EFFICIENCY, 1.0);
  ex_check_each(&p.ld, JS_EFFICIENCY, 1.0);
  /* all lanes at one offset: Algorithm 1 runs on the interleaved addresses (128w + 4l),
   * so the 31 neighbour strides of every record are 4 = size: min = max = 4, coalesced,
   * no uncoalesced thread access, no advice (neither the local kind nor the global ones).
   * Store footprint: words 0..63 of every lane = physical 0..8188 every 4 bytes: allStr
   * 4. Load footprint: words (7k) & 63, k < 16 = {0, 6, 7, 13, 14, 20, 21, 27, 28, 34, 35,
   * 41, 42, 49, 56, 63}, each a full row 128w .. 128w + 124; the largest word gap is 7
   * (42 -> 49, 49 -> 56, 56 -> 63): allStr 7 x 128 - 124 = 772. */
  ex_check_each_str(&p.st, JS_VERDICT, "coalesced");
  ex_check_each_str(&p.ld, JS_VERDICT, "coalesced");
  ex_check_each(&p.st, "stride.min", 4);
  ex_check_each(&p.st, "stride.max", 4);
  ex_check_each(&p.ld, "stride.min", 4);
  ex_check_each(&p.ld, "stride.max", 4);
  ex_check_each(&p.st, JS_ALL_STRIDE, 4);
  ex_check_each(&p.ld, JS_ALL_STRIDE, 772);
  ex_check_sum(&p.st, JS_T2_UNCOAL, 0);
  ex_check_sum(&p.ld, JS_T2_UNCOAL, 0);
  check_no_advice(&p.st);
  check_no_advice(&p.ld);
  /* global in[i], out[i]: 32 consecutive floats = 4 sectors */
  ex_check_sum(&p.gld, JS_SECTORS, 4ull * WARPS);
  ex_check_sum(&p.gst, JS_SECTORS, 4ull * WARPS);
  ex_release(&r, b, 2);
}

/* local_uniform8: the same with doubles. Element e = words 2e, 2e + 1 of every lane:
 * first words at 128 x 2e + 4l = 256e + 4l, 128 aligned bytes -> 1 request, 4 sectors
 * (ideal 4); second words 128 further, 256e + 128 + 4l: 1 request, 4 sectors (ideal 4).
 * Per instruction 2 requests, 8 sectors, ideal 8, efficiency 256 / 256 = 1. Totals:
 * st 256 x 64 x 2 = 32768 requests, 131072 sectors; ld 256 x 16 x 2 = 8192 requests,
 * 32768 sectors (H200, Nsight Compute: 2 requests x 4 sectors per LDL.64/STL.64). */
static void test_local_uniform8(void **state)
{
  struct ex_buffer b[] = {{"out", 8, N, NULL, NULL, NULL}, {"in", 8, N, NULL, NULL, NULL}};
  struct ex_run r;
  struct local_picks p;
  const double *in, *got;
  uint32_t i, k;
  (void)state;
  ex_run(&r, "local_array/uniform8.launch", b, 2, NULL);
  in = b[1].data;
  got = b[0].data;
  for (i = 0; i < N; i++) {
    double acc = 0.0;
    for (k = 0; k < LOADS; k++)
      acc += in[i] + (double)((k * S) & 63);
    if (memcmp(&acc, &got[i], sizeof acc) != 0)
      fail_msg("local_uniform8 out[%u] = %a, reference %a", i, got[i], acc);
  }

  p = pick_all(ex_kernel(&r, "local_uniform8"), "void local_uniform8(", "a[k] = v", 2);
  ex_check_sum(&p.st, JS_SECTORS, 8ull * WARPS * STORES); /* 131072 */
  ex_check_sum(&p.st, JS_IDEAL, 8ull * WARPS * STORES);
  ex_check_sum(&p.ld, JS_SECTORS, 8ull * WARPS * LOADS); /* 32768 */
  ex_check_sum(&p.ld, JS_IDEAL, 8ull * WARPS * LOADS);
  ex_check_each_str(&p.st, JS_VERDICT, "coalesced");
  ex_check_each_str(&p.ld, JS_VERDICT, "coalesced");
  ex_check_each(&p.st, JS_EFFICIENCY, 1.0);
  ex_check_each(&p.ld, JS_EFFICIENCY, 1.0);
  /* Algorithm 1 on the first words 256e + 4l: every neighbour stride 4 <= size 8 (min =
   * max = 4), coalesced, no uncoalesced thread access, no advice. The footprint holds
   * first words only: store, elements 0..63: rows 256e .. 256e + 124, gap to the next
   * row 256 - 124 = 132: allStr 132 (> 8, but the verdict is coalesced, so no advice).
   * Load, elements (7k) & 63 (list in test_local_uniform), largest element gap 7:
   * allStr 7 x 256 - 124 = 1668. */
  ex_check_each(&p.st, "stride.min", 4);
  ex_check_each(&p.st, "stride.max", 4);
  ex_check_each(&p.ld, "stride.min", 4);
  ex_check_each(&p.ld, "stride.max", 4);
  ex_check_each(&p.st, JS_ALL_STRIDE, 132);
  ex_check_each(&p.ld, JS_ALL_STRIDE, 1668);
  ex_check_sum(&p.st, JS_T2_UNCOAL, 0);
  ex_check_sum(&p.ld, JS_T2_UNCOAL, 0);
  check_no_advice(&p.st);
  check_no_advice(&p.ld);
  /* global: 32 consecutive doubles = 256 bytes = 8 sectors */
  ex_check_sum(&p.gld, JS_SECTORS, 8ull * WARPS);
  ex_check_sum(&p.gst, JS_SECTORS, 8ull * WARPS);
  ex_release(&r, b, 2);
}

/* local_divergent. Store a[(5l + k) & 63]: 5 is odd, so l -> 5l mod 64 is one to one:
 * 32 different words, one per lane, each in its own 128-byte row: 32 sectors (ideal 4,
 * efficiency 128 / 1024 = 1/8). Load a[(7k + (l & 3)) & 63]: lanes with equal l / 8 share
 * a sector only with equal words; l & 3 gives 4 words per group of 8 lanes: 4 groups x 4
 * = 16 sectors (ideal 4, efficiency 1/4). */
static void test_local_divergent(void **state)
{
  struct ex_buffer b[] = {{"out", 4, N, NULL, NULL, NULL}, {"in", 4, N, NULL, NULL, NULL}};
  struct ex_run r;
  struct local_picks p;
  float *want = malloc(N * sizeof *want);
  const float *in;
  uint32_t i, k;
  (void)state;
  assert_non_null(want);
  ex_run(&r, "local_array/divergent.launch", b, 2, NULL);
  in = b[1].data;
  for (i = 0; i < N; i++) {
    float a[64], acc = 0.0f;
    uint32_t lane = i % 32; /* blocks of 256: threadIdx.x & 31 == i % 32 */
    for (k = 0; k < STORES; k++)
      a[(lane * 5 + k) & 63] = in[i] + (float)k;
    for (k = 0; k < LOADS; k++)
      acc += a[(k * S + (lane & 3)) & 63];
    want[i] = acc;
  }
  ex_check_floats_exact("local_divergent out", b[0].data, want, N);
  free(want);

  p = pick_all(ex_kernel(&r, "local_divergent"), "void local_divergent(",
               "a[(lane * 5 + k) & 63] =", 1);
  ex_check_sum(&p.st, JS_SECTORS, 32ull * WARPS * STORES); /* 524288 */
  ex_check_sum(&p.st, JS_IDEAL, 4ull * WARPS * STORES);
  ex_check_sum(&p.ld, JS_SECTORS, 16ull * WARPS * LOADS); /* 65536 */
  ex_check_sum(&p.ld, JS_IDEAL, 4ull * WARPS * LOADS);
  ex_check_each(&p.st, JS_EFFICIENCY, 0.125);
  ex_check_each(&p.ld, JS_EFFICIENCY, 0.25);
  ex_check_sum(&p.gld, JS_SECTORS, 4ull * WARPS);
  ex_check_sum(&p.gst, JS_SECTORS, 4ull * WARPS);
  /* Verdict and advice, on the interleaved addresses 128w + 4l (stride 128 dw + 4 dl).
   * Store: 32 distinct words per record; sorted neighbours have distinct words, so the
   * 31 strides add up to at least 31 x 128 - 124 > 31 x 4: some stride > 4 in every
   * record, every lane in an uncoalesced group: 256 warps x 64 x 32 = 524288.
   * Load, record k: 4 words 7k + j (j = l & 3), word of j held by lanes j, j+4, ..., j+28
   * -> 16 bytes apart inside a word (the smallest stride: min 16 > 4, every record
   * uncoalesced: 256 x 16 x 32 = 131072 lanes); word w -> w + 1: lane j + 28 -> j + 1,
   * 128 - 108 = 20. Only k = 9 (7k & 63 = 63) wraps: words 0, 1, 2 (j = 1, 2, 3) then 63
   * (j = 0): lane 31 of word 2 -> lane 0 of word 63: 61 x 128 - 124 = 7684 = max.
   * Advice: local-array only; no thread remapping advice for a per-thread array. */
  ex_check_each_str(&p.st, JS_VERDICT, "uncoalesced");
  ex_check_each_str(&p.ld, JS_VERDICT, "uncoalesced");
  ex_check_sum(&p.st, JS_T2_UNCOAL, 32ull * WARPS * STORES);
  ex_check_sum(&p.ld, JS_T2_UNCOAL, 32ull * WARPS * LOADS);
  ex_check_each(&p.ld, "stride.min", 16);
  ex_check_each(&p.ld, "stride.max", 7684);
  ex_check_suggestion(&p.st, "local-array", 1);
  ex_check_suggestion(&p.ld, "local-array", 1);
  ex_check_advice_text(&p.ld, "local-array", "make the index the same across the warp");
  ex_check_suggestion(&p.st, "thread-geometry", 0);
  ex_check_suggestion(&p.ld, "thread-geometry", 0);
  ex_check_suggestion(&p.st, "shared-memory", 0);
  ex_check_suggestion(&p.ld, "shared-memory", 0);
  ex_check_suggestion(&p.st, "none", 0);
  ex_check_suggestion(&p.ld, "none", 0);
  ex_release(&r, b, 2);
}

/* Error path: the launch file with --kernel of a kernel the module lacks is an input
 * error (exit 3, docs/exit-codes.md) naming it. */
static void test_error_kernel_name(void **state)
{
  (void)state;
  ex_check_fails("local_array/uniform.launch", "--kernel local_missing", 3,
                 "coalcheck: error: ", "local_missing", (const char *)NULL);
}

/* Error path: 'in' of n / 2 floats: the first lane past its end is i = 4096, thread 0 of
 * CTA 16; the emulator stops with a memcheck error naming the buffer (exit 5). */
static void test_error_short_input(void **state)
{
  (void)state;
  ex_check_fails("local_array/divergent.launch", "--arg 'in=f32[n/2]:random:31'", 5,
                 "coalcheck: error: ", "invalid global read of size 4",
                 "by thread (0,0,0) in block (16,0,0)", "'in'", (const char *)NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_local_uniform),
      cmocka_unit_test(test_local_uniform8),
      cmocka_unit_test(test_local_divergent),
      cmocka_unit_test(test_error_kernel_name),
      cmocka_unit_test(test_error_short_input),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
