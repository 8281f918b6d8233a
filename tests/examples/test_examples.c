/* The bundled examples (examples/<name>/<variant>.launch), run through the coalcheck
 * binary: for every launch file, the outputs the emulator computed are compared with a
 * plain C reference computed here from the dumped inputs, and the figures of the JSON
 * report with figures derived by hand (each derivation is written beside its check; the
 * kernels' own header comments state the same figures).
 *
 * Floats are compared bit for bit: each reference performs the kernel's operations in the
 * kernel's order with the same roundings (fmaf where nvcc 13's PTX has fma.rn.f32, read off
 * `nvcc -ptx -lineinfo -arch=sm_90`; plain float + - * elsewhere; the C compiler does not
 * contract: C11 mode, -ffp-contract=off is gcc's default there).
 *
 * Buffers a kernel updates in place (AoS/SoA positions, the Gaussian matrix and vector)
 * are given as files (--arg NAME=TYPE[SIZE]:file:PATH, replacing the launch file's
 * initializer), so that the test knows their contents before the run; all others are
 * read back from their dumps.
 *
 * Units: addresses and strides in bytes, sectors of 32 bytes, requests = warp-level
 * executions of one instruction (sm_90: one request per warp-level instruction). */
#include "examples/harness.h"

/* ---- transpose (examples/transpose) ------------------------------------------------ */

#define TR_N 1024u

/* out = in^T: out[x*n + y] = in[y*n + x]: a copy, so exact. */
static void check_transpose_output(const float *out, const float *in)
{
  float *want = malloc(TR_N * TR_N * sizeof *want);
  uint32_t x, y;
  assert_non_null(want);
  for (y = 0; y < TR_N; y++)
    for (x = 0; x < TR_N; x++)
      want[(size_t)x * TR_N + y] = in[(size_t)y * TR_N + x];
  ex_check_floats_exact("transpose out", out, want, (size_t)TR_N * TR_N);
  free(want);
}

static void test_transpose_naive(void **state)
{
  struct ex_buffer b[] = {{"out", 4, TR_N * TR_N, NULL, NULL, NULL},
                          {"in", 4, TR_N * TR_N, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k, *totals;
  struct ex_pick ld, st;
  int line = ex_source_line("transpose/transpose.cu", NULL, "out[x * n + y] = in[y * n + x];");
  (void)state;
  ex_run(&r, "transpose/naive.launch", b, 2, NULL);
  check_transpose_output(b[0].data, b[1].data);

  k = ex_kernel(&r, "transpose_naive");
  ld = ex_pick(k, "ld.global", line, NULL);
  st = ex_pick(k, "st.global", line, NULL);
  /* Grid 32 x 128 CTAs of 32x8 threads = 8 warps; one element per thread (1 row per
   * thread): requests = 32*128 * 8 * 1 = 32768 = n*n/32 for the load and the store. */
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&st, JS_REQUESTS, 32768);
  /* A warp = 32 consecutive x at one y. Load in[y*n + x]: 128 contiguous bytes starting
   * at a multiple of 128 (x0 = 32*blockIdx.x, rows of 4096 bytes, buffer 256-aligned):
   * 4 sectors per request -> 4 * 32768 = 131072, all ideal. */
  ex_check_sum(&ld, JS_SECTORS, 131072);
  ex_check_sum(&ld, JS_IDEAL, 131072);
  /* Store out[x*n + y]: 32 floats 4n = 4096 bytes apart, one sector each: 32 per request
   * -> 32 * 32768 = 1048576; the 128 requested bytes would fit in 4: ideal 131072. */
  ex_check_sum(&st, JS_SECTORS, 1048576);
  ex_check_sum(&st, JS_IDEAL, 131072);
  /* the kernel's totals: the two instructions, 65536 requests, 131072 + 1048576 sectors */
  ex_check_totals(&r, "transpose_naive", 65536, 1179648);
  /* per request: 32 sectors; efficiency = 128 requested / (32 * 32) transferred bytes */
  ex_check_each(&ld, JS_SPR, 4);
  ex_check_each(&st, JS_SPR, 32);
  ex_check_each(&ld, JS_EFFICIENCY, 1.0);
  ex_check_each(&st, JS_EFFICIENCY, 0.125);
  /* Algorithm 1: load lanes 4 bytes apart: min = max = 4 = access size: coalesced.
   * Store lanes 4096 apart: min = max = 4096 > 4: uncoalesced; the store's footprint over
   * all instances is the whole matrix, gaps of 4: all_stride 4 <= 4. By its own strides a
   * swap of threadIdx.x and threadIdx.y would coalesce the store (address out + 4n*tid.x +
   * 4*tid.y: y unit) but uncoalesce the load (in + 4*tid.x + 4n*tid.y): no permutation
   * coalesces both, the advice is shared-memory tiling (issue 9), not a swap. */
  ex_check_each(&ld, JS_STRIDE ".max", 4);
  ex_check_each_str(&ld, JS_VERDICT, "coalesced");
  ex_check_each(&st, JS_STRIDE ".min", 4096);
  ex_check_each(&st, JS_STRIDE ".max", 4096);
  ex_check_each(&st, JS_STRIDE ".avg", 4096);
  ex_check_each_str(&st, JS_VERDICT, "uncoalesced");
  ex_check_each(&st, JS_ALL_STRIDE, 4);
  ex_check_suggestion(&st, "thread-geometry", 0);
  ex_check_advice_text(&st, "shared-memory", "uncoalesce the load at line");
  /* CGO 2015 Table 2 pair for this kernel: every thread makes one load and one store:
   * total 2 n^2 = 2097152 thread accesses; the stores' groups are uncoalesced: n^2 =
   * 1048576. */
  totals = cJSON_GetObjectItemCaseSensitive(k, JS_TOTALS);
  EX_EQ_U64(ex_u64(totals, JS_T2_TOTAL), 2097152, "transpose_naive Table 2 total");
  EX_EQ_U64(ex_u64(totals, JS_T2_UNCOAL), 1048576, "transpose_naive Table 2 uncoalesced");
  ex_release(&r, b, 2);
}

/* The naive transpose at 4096 x 4096 (bench/transpose_naive_4096.launch, grid 128 x 512
 * of 32x8) against hardware: ../shared/DESIGN.md records Nsight Compute on an H200 for
 * this kernel and input: 524,288 load requests with 2,097,152 sectors, 524,288 store
 * requests with 16,777,216 sectors (l1tex__t_{requests,sectors}_pipe_lsu_mem_global_op_
 * {ld,st}.sum). By hand: 128*512*8 warps = 524288; 4 and 32 sectors per request. */
static void test_transpose_naive_4096_h200(void **state)
{
  char extra[1024];
  struct ex_run r;
  const cJSON *k;
  struct ex_pick ld, st;
  (void)state;
  snprintf(extra, sizeof extra, "'%s/examples/transpose/transpose.cu'", getenv("COALCHECK_SRC"));
  ex_run(&r, "../bench/transpose_naive_4096.launch", NULL, 0, extra);
  k = ex_kernel(&r, "transpose_naive");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  ex_check_sum(&ld, JS_REQUESTS, 524288);
  ex_check_sum(&ld, JS_SECTORS, 2097152);
  ex_check_sum(&st, JS_REQUESTS, 524288);
  ex_check_sum(&st, JS_SECTORS, 16777216);
  ex_release(&r, NULL, 0);
}

/* The tiled versions: padded = 0 (tile[32][32]) or 1 (tile[32][33]). */
static void check_transpose_tiled(const char *launch, const char *kernel, int padded)
{
  struct ex_buffer b[] = {{"out", 4, TR_N * TR_N, NULL, NULL, NULL},
                          {"in", 4, TR_N * TR_N, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k, *totals;
  struct ex_pick ld, st, sst, sld;
  ex_run(&r, launch, b, 2, NULL);
  check_transpose_output(b[0].data, b[1].data);

  k = ex_kernel(&r, kernel);
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  sst = ex_pick(k, "st.shared", 0, NULL);
  sld = ex_pick(k, "ld.shared", 0, NULL);
  /* Grid 32 x 32 CTAs, 8 warps each, 32/8 = 4 rows per thread: 32*32*8*4 = 32768
   * requests for the global loads together (nvcc unrolls the j loop: 4 instructions of
   * 8192), the same for the stores, the shared stores and the shared loads. */
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&st, JS_REQUESTS, 32768);
  ex_check_sum(&sst, JS_REQUESTS, 32768);
  ex_check_sum(&sld, JS_REQUESTS, 32768);
  /* Global load in[(y+j)*n + x] and store out[(y+j)*n + x]: 32 consecutive floats of
   * one row, 128-byte aligned: 4 sectors per request = 131072 in all. */
  ex_check_sum(&ld, JS_SECTORS, 131072);
  ex_check_sum(&st, JS_SECTORS, 131072);
  ex_check_each(&ld, JS_STRIDE ".max", 4);
  ex_check_each(&st, JS_STRIDE ".max", 4);
  ex_check_each_str(&ld, JS_VERDICT, "coalesced");
  ex_check_each_str(&st, JS_VERDICT, "coalesced");
  /* Shared store tile[ty+j][tx]: 32 consecutive words, banks 0..31: 1 way, 1 wavefront
   * per request (32768). */
  ex_check_each(&sst, JS_WAYS, 1);
  ex_check_sum(&sst, JS_WAVEFRONTS, 32768);
  /* Shared load tile[tx][ty+j]: word tx*W + c with W = 32 (padded: 33). W = 32: every
   * lane in bank c % 32, 32 distinct words: 32 ways, 32 wavefronts per request ->
   * 32 * 32768 = 1048576 (ideal 32768). W = 33: bank (tx + c) % 32, all distinct: 1 way,
   * 32768 wavefronts. */
  ex_check_each(&sld, JS_WAYS, padded ? 1 : 32);
  ex_check_sum(&sld, JS_WAVEFRONTS, padded ? 32768 : 1048576);
  ex_check_sum(&sld, JS_IDEAL_WAVEFRONTS, 32768);
  /* a bank conflict (ways > 1) earns the "layout" (padding) suggestion, and only then */
  ex_check_suggestion(&sld, "layout", !padded);
  /* Table 2 pair: n^2 global loads + n^2 global stores, none uncoalesced. */
  totals = cJSON_GetObjectItemCaseSensitive(k, JS_TOTALS);
  EX_EQ_U64(ex_u64(totals, JS_T2_TOTAL), 2097152, "%s Table 2 total", kernel);
  EX_EQ_U64(ex_u64(totals, JS_T2_UNCOAL), 0, "%s Table 2 uncoalesced", kernel);
  ex_release(&r, b, 2);
}

static void test_transpose_tiled(void **state)
{
  (void)state;
  check_transpose_tiled("transpose/tiled.launch", "transpose_tiled", 0);
}

static void test_transpose_padded(void **state)
{
  (void)state;
  check_transpose_tiled("transpose/padded.launch", "transpose_padded", 1);
}

/* ---- strided copy (examples/strided_copy) ------------------------------------------ */

#define SC_N 65536u

static void check_strided(uint32_t stride)
{
  char launch[64];
  struct ex_buffer b[] = {{"out", 4, SC_N, NULL, NULL, NULL},
                          {"in", 4, (size_t)SC_N * stride, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k;
  struct ex_pick ld, st;
  float *want = malloc(SC_N * sizeof *want);
  const float *in;
  uint32_t i, sectors;
  int line =
      ex_source_line("strided_copy/strided_copy.cu", NULL, "out[i] = in[(size_t)i * stride];");
  assert_non_null(want);
  snprintf(launch, sizeof launch, "strided_copy/stride%u.launch", stride);
  ex_run(&r, launch, b, 2, NULL);
  in = b[1].data;
  for (i = 0; i < SC_N; i++)
    want[i] = in[(size_t)i * stride];
  ex_check_floats_exact("strided_copy out", b[0].data, want, SC_N);
  free(want);

  k = ex_kernel(&r, "strided_copy");
  ld = ex_pick(k, "ld.global", line, NULL);
  st = ex_pick(k, "st.global", line, NULL);
  /* 65536 threads = 2048 full warps, one load and one store each. */
  ex_check_sum(&ld, JS_REQUESTS, 2048);
  ex_check_sum(&st, JS_REQUESTS, 2048);
  /* Load: lanes 4*stride bytes apart from a 128*stride-aligned start: a 32-byte sector
   * holds 8/stride lanes while stride <= 8, so 32*4*stride/32 = 4*stride sectors; past 8,
   * one lane per sector: 32. Ideal: 128 requested bytes = 4 sectors. */
  sectors = 4 * stride < 32 ? 4 * stride : 32;
  ex_check_sum(&ld, JS_SECTORS, 2048ull * sectors);
  ex_check_sum(&ld, JS_IDEAL, 2048ull * 4);
  ex_check_sum(&st, JS_SECTORS, 2048ull * 4);
  ex_check_each(&ld, JS_SPR, sectors);
  /* efficiency 128 / (32 * sectors): 1, 1/2, 1/4, 1/8, 1/8 (exact binary fractions) */
  ex_check_each(&ld, JS_EFFICIENCY, 4.0 / sectors);
  /* Algorithm 1: every neighbour difference is 4*stride: min = max = avg = 4*stride;
   * coalesced iff 4*stride <= 4. The load's footprint is every stride-th float: all_stride
   * = 4*stride, so for stride > 1 no thread mapping helps: no thread-geometry suggestion. */
  ex_check_each(&ld, JS_STRIDE ".min", 4.0 * stride);
  ex_check_each(&ld, JS_STRIDE ".max", 4.0 * stride);
  ex_check_each(&ld, JS_STRIDE ".avg", 4.0 * stride);
  ex_check_each(&ld, JS_ALL_STRIDE, 4.0 * stride);
  ex_check_each_str(&ld, JS_VERDICT, stride == 1 ? "coalesced" : "uncoalesced");
  if (stride > 1)
    ex_check_suggestion(&ld, "thread-geometry", 0);
  ex_check_each(&st, JS_STRIDE ".max", 4);
  ex_check_each_str(&st, JS_VERDICT, "coalesced");
  ex_release(&r, b, 2);
}

static void test_strided_copy_1(void **state) { (void)state; check_strided(1); }
static void test_strided_copy_2(void **state) { (void)state; check_strided(2); }
static void test_strided_copy_4(void **state) { (void)state; check_strided(4); }
static void test_strided_copy_8(void **state) { (void)state; check_strided(8); }
static void test_strided_copy_32(void **state) { (void)state; check_strided(32); }

/* The stride-2 copy under the older models of ../shared/MODELS.md (--arch), per warp
 * (2048 warps): the load covers 256 bytes (lanes 8 bytes apart, 256-byte aligned), the
 * store 128 contiguous aligned bytes.
 *   cc2.0 (L1-cached loads: one transaction per 128-byte line; stores per 32-byte
 *     segment): load 2 x 128 B, store 4 x 32 B.
 *   cc1.3 (per half-warp, segment protocol, 4-byte words: 128-byte segments shrunk to
 *     the half the lanes use): load: each half-warp spans a whole 128-byte segment,
 *     2 x 128 B; store: each half-warp uses 64 bytes, one half of its segment: 2 x 64 B.
 *   cc1.0 (strict): the load's k-th lane does not read the k-th word: one 32-byte
 *     transaction per lane, 32 x 32 B; the store coalesces: one 64-byte transaction per
 *     half-warp, 2 x 64 B. */
static void check_strided_arch(const char *arch, uint64_t ld_tx, uint64_t ld_bytes,
                               uint64_t st_tx, uint64_t st_bytes)
{
  char extra[32];
  struct ex_buffer b[] = {{"out", 4, SC_N, NULL, NULL, NULL},
                          {"in", 4, (size_t)SC_N * 2, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k;
  struct ex_pick ld, st;
  snprintf(extra, sizeof extra, "--arch %s", arch);
  ex_run(&r, "strided_copy/stride2.launch", b, 2, extra);
  k = ex_kernel(&r, "strided_copy");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  EX_EQ_U64(ex_sum(&ld, JS_TRANSACTIONS), 2048 * ld_tx, "%s load transactions", arch);
  EX_EQ_U64(ex_sum(&ld, JS_BYTES_TRANSFERRED), 2048 * ld_bytes, "%s load bytes", arch);
  EX_EQ_U64(ex_sum(&st, JS_TRANSACTIONS), 2048 * st_tx, "%s store transactions", arch);
  EX_EQ_U64(ex_sum(&st, JS_BYTES_TRANSFERRED), 2048 * st_bytes, "%s store bytes", arch);
  ex_release(&r, b, 2);
}

static void test_strided_copy_archs(void **state)
{
  (void)state;
  check_strided_arch("cc2.0", 2, 256, 4, 128);
  check_strided_arch("cc1.3", 2, 256, 2, 128);
  check_strided_arch("cc1.0", 32, 1024, 2, 128);
}

/* ---- AoS vs SoA (examples/aos_soa) ------------------------------------------------- */

#define PS_N 65536u
#define PS_DT 0.25f /* dt in aos.launch / soa.launch: exact in binary */

/* pos += vel * dt per component: PTX fma.rn.f32 %f, vel, dt, pos. */
static void check_move(const char *what, const float *got, const float *pos0, const float *vel,
                       size_t count)
{
  float *want = malloc(count * sizeof *want);
  size_t i;
  assert_non_null(want);
  for (i = 0; i < count; i++)
    want[i] = fmaf(vel[i], PS_DT, pos0[i]);
  ex_check_floats_exact(what, got, want, count);
  free(want);
}

static void test_aos(void **state)
{
  struct ex_buffer b[] = {{"pos", 4, 3 * PS_N, "f32[3*n]", ex_random_floats(3 * PS_N, 31), NULL},
                          {"vel", 4, 3 * PS_N, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k;
  struct ex_pick ld, st;
  (void)state;
  ex_run(&r, "aos_soa/aos.launch", b, 2, NULL);
  check_move("aos pos", b[0].data, b[0].init, b[1].data, 3 * PS_N);

  k = ex_kernel(&r, "update_aos");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  /* 2048 warps; per warp 3 fields x (load vel, load pos) = 6 loads and 3 stores. */
  ex_check_sum(&ld, JS_REQUESTS, 6 * 2048);
  ex_check_sum(&st, JS_REQUESTS, 3 * 2048);
  /* A field of 32 consecutive 12-byte particles: bytes [384w + f, 384w + 372 + f + 4)
   * for f = 0, 4, 8 -> within the 12 sectors of [384w, 384w + 384): 12 sectors per
   * request; the 128 requested bytes fit in 4 (ideal). */
  ex_check_sum(&ld, JS_SECTORS, 12ull * 6 * 2048);
  ex_check_sum(&ld, JS_IDEAL, 4ull * 6 * 2048);
  ex_check_sum(&st, JS_SECTORS, 12ull * 3 * 2048);
  /* Algorithm 1: stride 12 > 4: uncoalesced; the footprint of one field has 8-byte holes
   * (all_stride 12 > 4): cannot be all coalesced by a thread remapping. */
  ex_check_each(&ld, JS_STRIDE ".min", 12);
  ex_check_each(&ld, JS_STRIDE ".max", 12);
  ex_check_each(&ld, JS_ALL_STRIDE, 12);
  ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
  ex_check_each_str(&st, JS_VERDICT, "uncoalesced");
  ex_check_suggestion(&ld, "thread-geometry", 0);
  /* Each field load shares its 12-byte stride with the loads of the other two fields,
   * whose footprints start 4 and 8 bytes away (< 12): docs/json-schema.md's rule for the
   * "layout" (AoS -> SoA) suggestion. */
  ex_check_suggestion(&ld, "layout", 1);
  ex_release(&r, b, 2);
}

static void test_soa(void **state)
{
  struct ex_buffer b[] = {{"x", 4, PS_N, "f32[n]", ex_random_floats(PS_N, 32), NULL},
                          {"y", 4, PS_N, "f32[n]", ex_random_floats(PS_N, 33), NULL},
                          {"z", 4, PS_N, "f32[n]", ex_random_floats(PS_N, 34), NULL},
                          {"vx", 4, PS_N, NULL, NULL, NULL},
                          {"vy", 4, PS_N, NULL, NULL, NULL},
                          {"vz", 4, PS_N, NULL, NULL, NULL}};
  struct ex_run r;
  const cJSON *k;
  struct ex_pick ld, st;
  int c;
  (void)state;
  ex_run(&r, "aos_soa/soa.launch", b, 6, NULL);
  for (c = 0; c < 3; c++)
    check_move(b[c].name, b[c].data, b[c].init, b[c + 3].data, PS_N);

  k = ex_kernel(&r, "update_soa");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  /* Same requests as AoS; every access is 32 consecutive aligned floats: 4 sectors. */
  ex_check_sum(&ld, JS_REQUESTS, 6 * 2048);
  ex_check_sum(&st, JS_REQUESTS, 3 * 2048);
  ex_check_sum(&ld, JS_SECTORS, 4ull * 6 * 2048);
  ex_check_sum(&st, JS_SECTORS, 4ull * 3 * 2048);
  ex_check_each(&ld, JS_STRIDE ".max", 4);
  ex_check_each_str(&ld, JS_VERDICT, "coalesced");
  ex_check_each_str(&st, JS_VERDICT, "coalesced");
  ex_release(&r, b, 6);
}

/* ---- row sums (examples/row_sums) -------------------------------------------------- */

#define RS_ROWS 1024u
#define RS_COLS 1024u

/* The unroll factor nvcc chose for a loop = the instructions of that source line that
 * ran (its remainder copy never runs: 1024 is a multiple of 4). */
static void check_row_sums_thread_figures(const cJSON *k, int line)
{
  struct ex_pick ld = ex_pick(k, "ld.global", line, NULL);
  uint64_t unroll = ld.n;
  /* 1024 rows / 32 = 32 warps; each walks 1024 columns: 32768 load requests; lanes are
   * rows, 4*1024 = 4096 bytes apart: 32 sectors each (ideal 4). */
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&ld, JS_SECTORS, 32ull * 32768);
  ex_check_sum(&ld, JS_IDEAL, 4ull * 32768);
  ex_check_each(&ld, JS_STRIDE ".max", 4096);
  ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
  /* Unrolled u times, copy c of the load reads columns c, c+u, c+2u ... of every row:
   * its footprint has gaps of 4u bytes (4 when not unrolled). */
  ex_check_each(&ld, JS_ALL_STRIDE, 4.0 * (double)unroll);
  /* The u copies are one source-level reference (same line, load, global, 4 bytes; the
   * remainder loop's copy never runs, 1024 % u == 0, and joins none):
   * together they read every column of every row, the whole matrix: line_all_stride 4
   * <= 4: not "cannot be all coalesced". Each thread walks its row (4u bytes per
   * iteration of the loop, 4096 between threads, blocks of 128x1x1): no permutation of
   * threadIdx helps; the advice is the loop transformations, not a swap. */
  ex_check_each(&ld, JS_LINE_ALL_STRIDE, 4);
  ex_check_each(&ld, JS_LINE_INSNS, (double)unroll);
  ex_check_suggestion(&ld, "thread-geometry", 0);
  ex_check_suggestion(&ld, "none", 0);
  ex_check_advice_text(&ld, "loop", "each thread walks its own contiguous run");
}

static void test_row_sums_thread(void **state)
{
  struct ex_buffer b[] = {{"sums", 4, RS_ROWS, NULL, NULL, NULL},
                          {"a", 4, RS_ROWS * RS_COLS, NULL, NULL, NULL}};
  struct ex_run r;
  const float *a;
  float want[RS_ROWS];
  struct ex_pick st;
  const cJSON *k;
  uint32_t row, c;
  (void)state;
  ex_run(&r, "row_sums/thread_per_row.launch", b, 2, NULL);
  a = b[1].data;
  /* s = 0; s += a[r][c] for c = 0.. in order (PTX: add.f32 chain). */
  for (row = 0; row < RS_ROWS; row++) {
    float s = 0.0f;
    for (c = 0; c < RS_COLS; c++)
      s += a[(size_t)row * RS_COLS + c];
    want[row] = s;
  }
  ex_check_floats_exact("row sums", b[0].data, want, RS_ROWS);

  k = ex_kernel(&r, "row_sums_thread");
  check_row_sums_thread_figures(
      k, ex_source_line("row_sums/row_sums.cu", "void row_sums_thread(",
                        "s += a[(size_t)r * cols + c];"));
  st = ex_pick(k, "st.global", 0, NULL);
  /* 32 warps store 32 consecutive sums: 32 requests of 4 sectors. */
  ex_check_sum(&st, JS_REQUESTS, 32);
  ex_check_sum(&st, JS_SECTORS, 128);
  /* the emulator's counters: 3364 warp instructions per warp, 32 warps: 107648 (counted
   * by hand from the PTX: see test_instruction_counts). Thread instructions count the
   * lanes whose guard is true: 4 guarded branches per warp are not taken by any lane
   * (@%p1 r >= rows, @%p2 cols < 1, @%p3 fewer than 4 columns, and the last test of the
   * unrolled loop's back edge @%p4), so 32 x (3364 - 4) x 32 = 3440640. */
  EX_EQ_U64(ex_u64(k, JS_EMULATOR ".warp_insns"), 107648, "row_sums_thread warp_insns");
  EX_EQ_U64(ex_u64(k, JS_EMULATOR ".thread_insns"), 32ull * 32 * (3364 - 4),
            "row_sums_thread thread_insns");
  /* warp access records: 256 iterations x 4 loads + 1 store, per warp: 32 x 1025 */
  EX_EQ_U64(ex_u64(k, JS_EMULATOR ".warp_accesses"), 32ull * 1025,
            "row_sums_thread warp_accesses");
  ex_release(&r, b, 2);
}

static void test_row_sums_warp(void **state)
{
  struct ex_buffer b[] = {{"sums", 4, RS_ROWS, NULL, NULL, NULL},
                          {"a", 4, RS_ROWS * RS_COLS, NULL, NULL, NULL}};
  struct ex_run r;
  const float *a;
  float want[RS_ROWS];
  struct ex_pick ld, st;
  const cJSON *k;
  uint32_t row, c, lane;
  int off;
  (void)state;
  ex_run(&r, "row_sums/warp_per_row.launch", b, 2, NULL);
  a = b[1].data;
  /* Lane l sums a[r][l], a[r][l+32], ... in order; then for offset 16, 8, 4, 2, 1 every
   * lane adds the value of lane l + offset (shfl.sync.down: its own value when l + offset
   * > 31), all lanes at once; lane 0 holds the sum. */
  for (row = 0; row < RS_ROWS; row++) {
    float s[32], t[32];
    for (lane = 0; lane < 32; lane++) {
      s[lane] = 0.0f;
      for (c = lane; c < RS_COLS; c += 32)
        s[lane] += a[(size_t)row * RS_COLS + c];
    }
    for (off = 16; off > 0; off /= 2) {
      for (lane = 0; lane < 32; lane++)
        t[lane] = s[lane] + (lane + (uint32_t)off < 32 ? s[lane + (uint32_t)off] : s[lane]);
      memcpy(s, t, sizeof s);
    }
    want[row] = s[0];
  }
  ex_check_floats_exact("row sums (warp)", b[0].data, want, RS_ROWS);

  k = ex_kernel(&r, "row_sums_warp");
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  /* 1024 warps (one per row), 1024/32 = 32 steps each: 32768 requests of 32 consecutive
   * floats, 128-byte aligned (rows are 4096 bytes): 4 sectors each. */
  ex_check_sum(&ld, JS_REQUESTS, 32768);
  ex_check_sum(&ld, JS_SECTORS, 4ull * 32768);
  ex_check_each(&ld, JS_STRIDE ".max", 4);
  ex_check_each_str(&ld, JS_VERDICT, "coalesced");
  /* lane 0 of each of the 1024 warps stores: 1024 requests of one lane, 1 sector. */
  ex_check_sum(&st, JS_REQUESTS, 1024);
  ex_check_sum(&st, JS_SECTORS, 1024);
  ex_release(&r, b, 2);
}

/* ---- gesummv (examples/gesummv) ---------------------------------------------------- */

#define GS_N 1024u
#define GS_ALPHA 1.5f  /* rows.launch / cols.launch: exact in binary */
#define GS_BETA 1.25f

/* y[i] = alpha*t + beta*u with t = sum_j A[i][j]*x[j], u likewise with B; A[i][j] at
 * A[i*n + j] (row-major, col_major = 0) or A[j*n + i]. PTX: t = fma(a, x, t) in j order,
 * then fma(t, alpha, u*beta). */
static void gesummv_ref(float *y, const float *A, const float *B, const float *x, int col_major)
{
  uint32_t i, j;
  for (i = 0; i < GS_N; i++) {
    float t = 0.0f, u = 0.0f;
    for (j = 0; j < GS_N; j++) {
      size_t at = col_major ? (size_t)j * GS_N + i : (size_t)i * GS_N + j;
      t = fmaf(A[at], x[j], t);
      u = fmaf(B[at], x[j], u);
    }
    y[i] = fmaf(t, GS_ALPHA, u * GS_BETA);
  }
}

static void check_gesummv(const char *launch, const char *kernel, const char *a_name,
                          const char *b_name, int col_major)
{
  struct ex_buffer b[] = {{a_name, 4, GS_N * GS_N, NULL, NULL, NULL},
                          {b_name, 4, GS_N * GS_N, NULL, NULL, NULL},
                          {"x", 4, GS_N, NULL, NULL, NULL},
                          {"y", 4, GS_N, NULL, NULL, NULL}};
  struct ex_run r;
  float want[GS_N];
  const cJSON *k, *totals;
  struct ex_pick lda, ldb, ldx, st;
  const char *src = "gesummv/gesummv.cu";
  const char *anchor = col_major ? "void gesummv_cols(" : "void gesummv_rows(";
  ex_run(&r, launch, b, 4, NULL);
  gesummv_ref(want, b[0].data, b[1].data, b[2].data, col_major);
  ex_check_floats_exact("gesummv y", b[3].data, want, GS_N);

  k = ex_kernel(&r, kernel);
  lda = ex_pick(k, "ld.global", ex_source_line(src, anchor, "float a = A"), NULL);
  ldb = ex_pick(k, "ld.global", ex_source_line(src, anchor, "float b = B"), NULL);
  ldx = ex_pick(k, "ld.global", ex_source_line(src, anchor, "float xj = x[j];"), NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  /* 1024 threads = 32 warps, each running j = 0..1023: 32768 requests for A, B and x. */
  ex_check_sum(&lda, JS_REQUESTS, 32768);
  ex_check_sum(&ldb, JS_REQUESTS, 32768);
  ex_check_sum(&ldx, JS_REQUESTS, 32768);
  /* x[j]: one word for all lanes: 1 sector, stride 0 (a broadcast): coalesced. */
  ex_check_sum(&ldx, JS_SECTORS, 32768);
  ex_check_each(&ldx, JS_STRIDE ".max", 0);
  ex_check_each_str(&ldx, JS_VERDICT, "coalesced");
  /* efficiency = distinct bytes / bytes moved: 4 of the sector's 32 = 1/8 (issue 13:
   * bytes requested / moved said 128 / 32 = 400%) */
  ex_check_sum(&ldx, "unique_bytes", 4ull * 32768); /* 4 bytes per request */
  ex_check_each(&ldx, JS_EFFICIENCY, 0.125);
  /* y[i]: 32 stores of 32 consecutive floats: 4 sectors each. */
  ex_check_sum(&st, JS_REQUESTS, 32);
  ex_check_sum(&st, JS_SECTORS, 128);
  totals = cJSON_GetObjectItemCaseSensitive(k, JS_TOTALS);
  /* Table 2 pair: every thread loads A, B, x n times and stores y once: 3 n^2 + n
   * = 3146752 thread accesses. */
  EX_EQ_U64(ex_u64(totals, JS_T2_TOTAL), 3ull * GS_N * GS_N + GS_N, "%s Table 2 total", kernel);
  if (!col_major) {
    /* A[i][j] for 32 consecutive i: 4096 bytes apart: 32 sectors (ideal 4), max stride
     * 4096: uncoalesced. Uncoalesced thread accesses: the A and B loads, 2 n^2 = 2097152,
     * the "Uncoalesced" figure of gesummv in CGO 2015 Table 2. */
    ex_check_sum(&lda, JS_SECTORS, 32ull * 32768);
    ex_check_sum(&ldb, JS_SECTORS, 32ull * 32768);
    ex_check_each(&lda, JS_STRIDE ".max", 4096);
    ex_check_each_str(&lda, JS_VERDICT, "uncoalesced");
    ex_check_each_str(&ldb, JS_VERDICT, "uncoalesced");
    /* each unrolled copy reads every u-th column: footprint gaps 4u (see row sums); the
     * copies together read all of A: line_all_stride 4, not "cannot be all coalesced".
     * The address A + 4n*tid.x + 4u*L0 + 4c has no thread dimension of unit stride (the
     * block is 256x1x1): a permutation cannot help; the loop walks the row: the advice is
     * the loop transformations (issue 9), not "swap threadIdx.x and threadIdx.y". */
    ex_check_each(&lda, JS_ALL_STRIDE, 4.0 * (double)lda.n);
    ex_check_each(&lda, JS_LINE_ALL_STRIDE, 4);
    ex_check_each(&ldb, JS_LINE_ALL_STRIDE, 4);
    ex_check_suggestion(&lda, "thread-geometry", 0);
    ex_check_suggestion(&ldb, "thread-geometry", 0);
    ex_check_suggestion(&lda, "none", 0);
    ex_check_advice_text(&lda, "loop", "no permutation of threadIdx helps");
    ex_check_advice_text(&ldb, "loop", "lift|redistribute");
    EX_EQ_U64(ex_u64(totals, JS_T2_UNCOAL), 2ull * GS_N * GS_N, "%s Table 2 uncoalesced", kernel);
  } else {
    /* At[j][i] for 32 consecutive i: 128 aligned bytes: 4 sectors, coalesced. */
    ex_check_sum(&lda, JS_SECTORS, 4ull * 32768);
    ex_check_sum(&ldb, JS_SECTORS, 4ull * 32768);
    ex_check_each(&lda, JS_STRIDE ".max", 4);
    ex_check_each_str(&lda, JS_VERDICT, "coalesced");
    ex_check_each_str(&ldb, JS_VERDICT, "coalesced");
    EX_EQ_U64(ex_u64(totals, JS_T2_UNCOAL), 0, "%s Table 2 uncoalesced", kernel);
  }
  ex_release(&r, b, 4);
}

static void test_gesummv_rows(void **state)
{
  (void)state;
  check_gesummv("gesummv/rows.launch", "gesummv_rows", "A", "B", 0);
}

static void test_gesummv_cols(void **state)
{
  (void)state;
  check_gesummv("gesummv/cols.launch", "gesummv_cols", "At", "Bt", 1);
}

/* ---- gemv (examples/gemv): traffic beyond L1 ------------------------------------------ */

#define GV_N 1024u
#define JS_L1_HITS "l1_hit_sectors"
#define JS_L2_SECTORS "l2_sectors"
#define JS_DRAM_READ "dram_bytes_read"
#define JS_DRAM_WRITTEN "dram_bytes_written"

/* out[r] = sum over k of A(r, k) * v[k] in k order, fma as in the PTX (fma.rn.f32), with
 * A(r, k) = A[r*n + k] (rows) or A[k*n + r] (cols). */
static void gemv_ref(float *out, const float *A, const float *v, int cols)
{
  uint32_t r, k;
  for (r = 0; r < GV_N; r++) {
    float s = 0.0f;
    for (k = 0; k < GV_N; k++)
      s = fmaf(cols ? A[(size_t)k * GV_N + r] : A[(size_t)r * GV_N + k], v[k], s);
    out[r] = s;
  }
}

/* Runs examples/gemv/LAUNCH and checks its outputs and its figures, model and cache (the
 * default H100, n = 1024: 4 CTAs of 256 threads = 8 warps, one CTA on each of SMs 0..3, so
 * each SM's L1 sees one CTA; L1 248 KiB: 8 CTAs resident by the thread limit, 8 KiB of
 * carveout; the 4 MiB of A and all else fit the 50 MiB L2, nothing is evicted from it).
 * Returns the kernel's time.estimate_us. */
static double check_gemv(const char *launch, const char *kernel, int cols)
{
  struct ex_buffer b[] = {{"A", 4, GV_N * GV_N, NULL, NULL, NULL},
                          {cols ? "w" : "x", 4, GV_N, NULL, NULL, NULL},
                          {cols ? "z" : "y", 4, GV_N, NULL, NULL, NULL}};
  struct ex_run r;
  float want[GV_N];
  const cJSON *k, *totals;
  struct ex_pick lda, ldv, st;
  const char *src = "gemv/gemv.cu", *anchor = cols ? "void gemv_cols(" : "void gemv_rows(";
  char path[128], *text;
  size_t len;
  double estimate;
  /* sample=1: the figures below are the exact replay's, derived by hand; the default
   * model samples 1 set class in 16 after a kernel's first 65536 records (src/cache
   * README.md, "Set sampling"), and these launches have 32 warps x 1024 steps x 3 */
  ex_run(&r, launch, b, 3, "--cache h100,sample=1");
  gemv_ref(want, b[0].data, b[1].data, cols);
  ex_check_floats_exact(kernel, b[2].data, want, GV_N);

  k = ex_kernel(&r, kernel);
  lda = ex_pick(k, "ld.global", ex_source_line(src, anchor, "float a = A"), NULL);
  ldv = ex_pick(k, "ld.global", ex_source_line(src, anchor, cols ? "a * w[i]" : "a * x[j]"),
                NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  totals = cJSON_GetObjectItemCaseSensitive(k, JS_TOTALS);
  /* 32 warps x 1024 steps: 32768 requests for A and for the vector (1 sector each: one
   * word for all lanes); 32 stores of 32 consecutive floats (4 sectors). */
  ex_check_sum(&lda, JS_REQUESTS, 32768);
  ex_check_sum(&ldv, JS_REQUESTS, 32768);
  ex_check_sum(&ldv, JS_SECTORS, 32768);
  ex_check_sum(&st, JS_SECTORS, 128);
  /* Both read all of A from DRAM once: n^2 x 4 = 4194304 bytes, and the vector once:
   * 4096 (the H100's 64-byte DRAM units change nothing: rows reads sector s of a row and
   * later s + 1, which came with it into L2; cols and the vector read whole lines); they
   * write the result once, 4096 bytes, still dirty in L2 at the end: 0 bytes written to
   * DRAM during the kernel (schema 3; the H100 measures 0), 4096 left dirty. */
  ex_check_sum(&lda, JS_DRAM_READ, 4ull * GV_N * GV_N);
  ex_check_sum(&ldv, JS_DRAM_READ, 4ull * GV_N);
  ex_check_sum(&st, JS_DRAM_WRITTEN, 0);
  ex_check_sum(&st, "l2_dirty_bytes_at_end", 4ull * GV_N);
  EX_EQ_U64(ex_u64(totals, JS_DRAM_READ), 4ull * GV_N * GV_N + 4 * GV_N, "%s DRAM read", kernel);
  EX_EQ_U64(ex_u64(totals, JS_DRAM_WRITTEN), 0, "%s DRAM written", kernel);
  /* The vector: its 128 sectors come into each SM's L1 at least once (4 SMs: 512 from
   * L2; only the first SM's from DRAM, 4096 bytes above). Within a warp, consecutive
   * reads of one of its sectors have at most one new line of A between them (cols), or
   * none (rows: A's 32 lines stay for 32 steps): an L1 set of 4 ways keeps a line used
   * last until 4 newer ones arrive, so a sector misses at most at a warp's first read of
   * it: at most 128 x 32 warps = 4096. Between warps (run one after another) it may or
   * may not survive, by the sets A's lines fall in: 512 to 4096. */
  if (ex_sum(&ldv, JS_L2_SECTORS) < 512 || ex_sum(&ldv, JS_L2_SECTORS) > 4096)
    fail_msg("%s vector loads: %" PRIu64 " L2 sectors, expected 512 to 4096", kernel,
             ex_sum(&ldv, JS_L2_SECTORS));
  EX_EQ_U64(ex_sum(&ldv, JS_L1_HITS) + ex_sum(&ldv, JS_L2_SECTORS), 32768,
            "%s vector loads: L1 hits + L2 sectors = its sectors", kernel);
  if (!cols) {
    /* Lane l of a warp reads row 32w + l: 32 sectors per request, 4096 bytes apart; the
     * 4 unrolled copies: 4 x 8192 requests, 32 x 32768 = 1048576 sectors. A sector holds 8
     * consecutive floats of a row: the first of 8 steps brings it from L2 (and DRAM), the
     * next 7 hit L1: 1048576 / 8 = 131072 L2 sectors (4 MiB, all of A), 917504 L1 hits;
     * 1 request in 8 (4096 of 32768) reaches L2, the others wait on L1 only. Of those,
     * half wait on DRAM: the H100 reads DRAM 64 bytes at a time, so the request reading
     * sector 2i of the rows brings sector 2i + 1 into L2, and the one 8 steps later
     * finds it there: 2048 wait on DRAM, 2048 on L2 (4096 on DRAM before the DRAM unit
     * was modelled). */
    ex_check_sum(&lda, JS_SECTORS, 32ull * 32768);
    ex_check_sum(&lda, JS_L2_SECTORS, 131072);
    ex_check_sum(&lda, JS_L1_HITS, 917504);
    ex_check_sum(&lda, "waits.dram", 2048);
    ex_check_sum(&lda, "waits.l2", 2048);
    ex_check_sum(&lda, "waits.l1", 28672);
    ex_check_each_str(&lda, JS_VERDICT, "uncoalesced");
    /* 16.5 sectors per request on average over A and x: (32 + 1) / 2, issue 12's figure */
    EX_EQ_U64(ex_sum(&lda, JS_SECTORS) + ex_sum(&ldv, JS_SECTORS), 33ull * 32768,
              "%s sectors of A and x", kernel);
    /* and no gain from coalescing it: a coalesced form reads the same 4 MiB, 128 bytes a
     * request, so every request would wait on DRAM */
    ex_check_each(&lda, "estimated_gain_us", 0);
  } else {
    /* Lane l reads column 32w + l of row i: one whole new line each request, 4 sectors:
     * 131072 sectors, none in L1, every request waits on DRAM. */
    ex_check_sum(&lda, JS_SECTORS, 4ull * 32768);
    ex_check_sum(&lda, JS_L2_SECTORS, 131072);
    ex_check_sum(&lda, JS_L1_HITS, 0);
    ex_check_sum(&lda, "waits.dram", 32768);
    ex_check_each_str(&lda, JS_VERDICT, "coalesced");
    /* per warp 1024 requests x 500 ns (the H100 table's DRAM latency) waiting on DRAM:
     * the serial latency is at least 512 us */
    if (ex_num(k, "time.latency_us") < 512.0)
      fail_msg("%s: serial latency %g us, expected >= 512", kernel, ex_num(k, "time.latency_us"));
  }
  /* the text report says why the uncoalesced kernel is not the slow one */
  snprintf(path, sizeof path, "%s/stdout.txt", r.dir);
  text = ex_read_file(path, &len);
  assert_non_null(text);
  if (!cols && (!strstr(text, "note:    its uncoalesced accesses are not what makes it slow") ||
                !strstr(text, "none estimated: L1 and L2 absorb the line's re-reads") ||
                !strstr(text, "1 in 16 of its requests waits on")))
    fail_msg("%s: the text report does not say why it is not slow:\n%s", kernel, text);
  free(text);
  estimate = ex_num(k, "time.estimate_us");
  ex_release(&r, b, 3);
  return estimate;
}

/* Both launch files; the row-per-thread kernel (uncoalesced, 16.5 sectors per request)
 * is estimated faster than the column-per-thread one (coalesced, 2.5), as on the H200. */
static void test_gemv(void **state)
{
  double rows, cols;
  (void)state;
  rows = check_gemv("gemv/rows.launch", "gemv_rows", 0);
  cols = check_gemv("gemv/cols.launch", "gemv_cols", 1);
  if (!(rows < cols))
    fail_msg("estimates: gemv_rows %g us, gemv_cols %g us: the coalesced one should be slower",
             rows, cols);
}

/* ---- Gaussian Fan2 (examples/gaussian) --------------------------------------------- */

#define GA_N 512u

/* Step t = 0: a[r][c] -= m[r][0] * a[0][c] for r >= 1, all c; b[r] -= m[r][0] * b[0]
 * for r >= 1 (yidx == 0 threads). PTX: mul.f32 then sub.f32 (no fma). Row 0 and b[0]
 * are only read. */
static void check_fan2(const char *launch, const char *kernel, int fixed)
{
  struct ex_buffer b[] = {{"m_cuda", 4, GA_N * GA_N, NULL, NULL, NULL},
                          {"a_cuda", 4, GA_N * GA_N, "f32[Size*Size]",
                           ex_random_floats(GA_N * GA_N, 41), NULL},
                          {"b_cuda", 4, GA_N, "f32[Size]", ex_random_floats(GA_N, 42), NULL}};
  struct ex_run r;
  float *wa = malloc(GA_N * GA_N * sizeof *wa), wb[GA_N];
  const float *m, *a0, *b0;
  const cJSON *k;
  struct ex_pick st, ld;
  char operand[64];
  const char *ptx, *open, *close;
  uint32_t row, c;
  int line;
  assert_non_null(wa);
  ex_run(&r, launch, b, 3, NULL);
  m = b[0].data;
  a0 = b[1].init;
  b0 = b[2].init;
  memcpy(wa, a0, GA_N * GA_N * sizeof *wa);
  memcpy(wb, b0, sizeof wb);
  for (row = 1; row < GA_N; row++) {
    float p;
    for (c = 0; c < GA_N; c++) {
      p = m[(size_t)row * GA_N] * a0[c];
      wa[(size_t)row * GA_N + c] = a0[(size_t)row * GA_N + c] - p;
    }
    p = m[(size_t)row * GA_N] * b0[0];
    wb[row] = b0[row] - p;
  }
  ex_check_floats_exact("fan2 a", b[1].data, wa, GA_N * GA_N);
  ex_check_floats_exact("fan2 b", b[2].data, wb, GA_N);
  free(wa);

  /* The update a[n*(xidx+1+t) + yidx+t] -= ... is one source line with three loads and
   * one store; its load is the one with the store's address operand. */
  k = ex_kernel(&r, kernel);
  line = ex_source_line("gaussian/gaussian.cu", fixed ? "void fan2_fixed(" : "void fan2(",
                        "a_cuda[Size * (xidx + 1 + t) + (yidx + t)] -= ");
  st = ex_pick(k, "st.global", line, NULL);
  assert_int_equal(st.n, 1);
  ptx = ex_str(st.insn[0], JS_PTX);
  open = strchr(ptx, '[');
  close = open ? strchr(open, ']') : NULL;
  assert_non_null(close);
  snprintf(operand, sizeof operand, "%.*s", (int)(close - open + 1), open);
  ld = ex_pick(k, "ld.global", line, operand);
  assert_int_equal(ld.n, 1);
  if (!fixed) {
    /* 16x16 threads, grid 32x32: 8 warps per CTA, every warp has an active lane: 8192
     * requests. A warp: 16 rows (tx) x 2 adjacent columns (ty = 2w, 2w+1; even first
     * column, so the pair shares a sector): 16 sectors; blockIdx.x = 31 loses tx = 15
     * (row 512 does not exist): 15. Sectors 31*32*8*16 + 32*8*15 = 130816. Strides of the
     * sorted lane addresses: 4 (the pair), 2048 - 4 = 2044 (next row): max 2044. The
     * footprint (rows 1..511, all columns) is dense: all_stride 4: thread-geometry. */
    ex_check_sum(&st, JS_REQUESTS, 8192);
    ex_check_sum(&ld, JS_REQUESTS, 8192);
    ex_check_sum(&st, JS_SECTORS, 130816);
    ex_check_sum(&ld, JS_SECTORS, 130816);
    ex_check_each(&st, JS_STRIDE ".min", 4);
    ex_check_each(&st, JS_STRIDE ".max", 2044);
    ex_check_each_str(&st, JS_VERDICT, "uncoalesced");
    ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
    ex_check_each(&st, JS_ALL_STRIDE, 4);
    ex_check_suggestion(&st, "thread-geometry", 1);
    /* a_cuda + 4*Size*tid.x + 4*tid.y + ...: the fastest index is on threadIdx.y */
    ex_check_advice_text(&st, "thread-geometry", "swap threadIdx.x and threadIdx.y");
    ex_check_advice_text(&st, "thread-geometry", "run `coalcheck fix --launch");
  } else {
    /* 32x8 threads, grid 16x64: 8192 warps, less the 16 (blockIdx.y = 63, threadIdx.y =
     * 7: row 512) that return at once: 8176 requests; 32 consecutive floats of a row,
     * 128-byte aligned: 4 sectors: 32704; stride 4: coalesced. */
    ex_check_sum(&st, JS_REQUESTS, 8176);
    ex_check_sum(&ld, JS_REQUESTS, 8176);
    ex_check_sum(&st, JS_SECTORS, 32704);
    ex_check_sum(&ld, JS_SECTORS, 32704);
    ex_check_each(&st, JS_STRIDE ".max", 4);
    ex_check_each_str(&st, JS_VERDICT, "coalesced");
    ex_check_each_str(&ld, JS_VERDICT, "coalesced");
  }
  ex_release(&r, b, 3);
}

static void test_gaussian_fan2(void **state)
{
  (void)state;
  check_fan2("gaussian/fan2.launch", "fan2", 0);
}

static void test_gaussian_fan2_fixed(void **state)
{
  (void)state;
  check_fan2("gaussian/fan2_fixed.launch", "fan2_fixed", 1);
}

/* ---- 3D (examples/cell3d) ---------------------------------------------------------- */

#define C3_N 64u

static void check_cell3d(const char *launch, const char *kernel, int zfast)
{
  struct ex_buffer b[] = {{"out", 4, C3_N * C3_N * C3_N, NULL, NULL, NULL},
                          {"in", 4, C3_N * C3_N * C3_N, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(C3_N * C3_N * C3_N * sizeof *want);
  const float *in;
  const cJSON *k;
  struct ex_pick ld, st;
  size_t c;
  assert_non_null(want);
  ex_run(&r, launch, b, 2, NULL);
  in = b[1].data;
  /* every cell once: out = fma(in, 0.5, 0.5) (PTX fma.rn.f32 with two immediates) */
  for (c = 0; c < (size_t)C3_N * C3_N * C3_N; c++)
    want[c] = fmaf(in[c], 0.5f, 0.5f);
  ex_check_floats_exact("cell3d out", b[0].data, want, (size_t)C3_N * C3_N * C3_N);
  free(want);

  k = ex_kernel(&r, kernel);
  ld = ex_pick(k, "ld.global", 0, NULL);
  st = ex_pick(k, "st.global", 0, NULL);
  /* 64^3 threads = 8192 warps, one load and one store each. */
  ex_check_sum(&ld, JS_REQUESTS, 8192);
  ex_check_sum(&st, JS_REQUESTS, 8192);
  if (zfast) {
    /* A warp: 32 values of k (threadIdx.x), one j, one i: lanes 64*64*4 = 16384 bytes
     * apart: 32 sectors; stride 16384; the footprint is the whole grid (all_stride 4). */
    ex_check_sum(&ld, JS_SECTORS, 32ull * 8192);
    ex_check_sum(&st, JS_SECTORS, 32ull * 8192);
    ex_check_each(&ld, JS_STRIDE ".max", 16384);
    ex_check_each(&ld, JS_STRIDE ".min", 16384);
    ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
    ex_check_each_str(&st, JS_VERDICT, "uncoalesced");
    ex_check_each(&ld, JS_ALL_STRIDE, 4);
    ex_check_suggestion(&ld, "thread-geometry", 1);
    /* in + 4*nx*ny*tid.x + 4*nx*tid.y + 4*tid.z + ...: z has the unit stride, y does not
     * (256 bytes): swap x and z, not x and y */
    ex_check_advice_text(&ld, "thread-geometry", "swap threadIdx.x and threadIdx.z");
    ex_check_advice_text(&st, "thread-geometry", "swap threadIdx.x and threadIdx.z");
  } else {
    /* 32 consecutive i, 128-byte aligned: 4 sectors, stride 4, coalesced. */
    ex_check_sum(&ld, JS_SECTORS, 4ull * 8192);
    ex_check_sum(&st, JS_SECTORS, 4ull * 8192);
    ex_check_each(&ld, JS_STRIDE ".max", 4);
    ex_check_each_str(&ld, JS_VERDICT, "coalesced");
    ex_check_each_str(&st, JS_VERDICT, "coalesced");
  }
  ex_release(&r, b, 2);
}

static void test_cell3d_zfast(void **state)
{
  (void)state;
  check_cell3d("cell3d/zfast.launch", "evolve_zfast", 1);
}

static void test_cell3d_xfast(void **state)
{
  (void)state;
  check_cell3d("cell3d/xfast.launch", "evolve_xfast", 0);
}

/* ---- histogram (examples/histogram) ------------------------------------------------ */

#define HI_N 65536u

static void check_histogram(const char *launch, const char *kernel, int shared)
{
  struct ex_buffer b[] = {{"bins", 4, 256, NULL, NULL, NULL},
                          {"data", 1, HI_N, NULL, NULL, NULL}};
  struct ex_run r;
  uint32_t want[256] = {0};
  const uint8_t *data;
  const cJSON *k;
  struct ex_pick ldd, atom;
  size_t i;
  ex_run(&r, launch, b, 2, NULL);
  data = b[1].data;
  /* bins start at zero (launch file: u32[256]:zero); atomics commute: exact counts */
  for (i = 0; i < HI_N; i++)
    want[data[i]]++;
  ex_check_u32_exact("histogram bins", b[0].data, want, 256);

  k = ex_kernel(&r, kernel);
  /* data[i]: 32 consecutive bytes at a multiple of 32: 1 sector; 2048 warps. */
  ldd = ex_pick(k, "ld.global.u8", 0, NULL);
  ex_check_sum(&ldd, JS_REQUESTS, 2048);
  ex_check_sum(&ldd, JS_SECTORS, 2048);
  atom = ex_pick(k, "atom.global", 0, NULL);
  /* global: one atomic per warp of data (2048); shared: one per warp of bins,
   * 256 CTAs x 8 warps = 2048, each 32 consecutive words: 4 sectors. */
  ex_check_sum(&atom, JS_REQUESTS, 2048);
  if (!shared) {
    /* bins[data[i]]: the address comes from memory: no permutation; privatise the bins
     * in shared memory (what histogram_shared does) */
    ex_check_suggestion(&atom, "thread-geometry", 0);
    ex_check_advice_text(&atom, "shared-memory", "privatisation");
  }
  if (shared) {
    struct ex_pick sst = ex_pick(k, "st.shared", 0, NULL);
    struct ex_pick sat = ex_pick(k, "atom.shared", 0, NULL);
    ex_check_sum(&atom, JS_SECTORS, 4ull * 2048);
    /* local[threadIdx.x] = 0: 32 consecutive words: 1 way, 2048 requests/wavefronts */
    ex_check_sum(&sst, JS_REQUESTS, 2048);
    ex_check_each(&sst, JS_WAYS, 1);
    ex_check_sum(&sst, JS_WAVEFRONTS, 2048);
    /* the shared atomics: one per warp (data-dependent conflicts: not derived) */
    ex_check_sum(&sat, JS_REQUESTS, 2048);
    /* atomicAdd is inlined from a CUDA header: the source is the user's line, the header
     * is inlined_from */
    sat = ex_pick(k, "atom.shared",
                  ex_source_line("histogram/histogram.cu", "void histogram_shared(",
                                 "atomicAdd(&local[data[i]], 1u);"), NULL);
    const cJSON *from = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(sat.insn[0], JS_SOURCE), JS_INLINED_FROM);
    if (!from || !strstr(ex_str(from, "file"), "atomic_functions"))
      fail_msg("histogram_shared: atom.shared is not inlined_from a CUDA atomics header");
    if (!strstr(ex_str(cJSON_GetObjectItemCaseSensitive(sat.insn[0], JS_SOURCE), "file"),
                "histogram.cu"))
      fail_msg("histogram_shared: atom.shared's source is not histogram.cu");
  }
  ex_release(&r, b, 2);
}

static void test_histogram_global(void **state)
{
  (void)state;
  check_histogram("histogram/global.launch", "histogram_global", 0);
}

static void test_histogram_shared(void **state)
{
  (void)state;
  check_histogram("histogram/shared.launch", "histogram_shared", 1);
}

/* ---- divergent (examples/divergent) ------------------------------------------------ */

static void test_divergent(void **state)
{
  const uint32_t n = 65536;
  struct ex_buffer b[] = {{"out", 4, n, NULL, NULL, NULL},
                          {"a", 4, n, NULL, NULL, NULL},
                          {"b", 4, n, NULL, NULL, NULL}};
  struct ex_run r;
  float *want = malloc(n * sizeof *want);
  const float *a, *bb;
  const cJSON *k;
  uint32_t i;
  int lines[2], l;
  (void)state;
  assert_non_null(want);
  ex_run(&r, "divergent/divergent.launch", b, 3, NULL);
  a = b[1].data;
  bb = b[2].data;
  /* blocks of 256: threadIdx.x % 2 == i % 2. a*2 is add.f32 a, a (exact either way). */
  for (i = 0; i < n; i++)
    want[i] = i % 2 == 0 ? a[i] * 2.0f : bb[i] + 1.0f;
  ex_check_floats_exact("divergent out", b[0].data, want, n);
  free(want);

  k = ex_kernel(&r, "divergent");
  lines[0] = ex_source_line("divergent/divergent.cu", NULL, "out[i] = a[i] * 2.0f;");
  lines[1] = ex_source_line("divergent/divergent.cu", NULL, "out[i] = b[i] + 1.0f;");
  for (l = 0; l < 2; l++) {
    struct ex_pick ld = ex_pick(k, "ld.global", lines[l], NULL);
    struct ex_pick st = ex_pick(k, "st.global", lines[l], NULL);
    /* 2048 warps, each running both branches with 16 lanes: every other float of a
     * 128-byte aligned span: 4 sectors (the 64 bytes would fit in 2). */
    ex_check_sum(&ld, JS_REQUESTS, 2048);
    ex_check_sum(&st, JS_REQUESTS, 2048);
    ex_check_sum(&ld, JS_SECTORS, 4ull * 2048);
    ex_check_sum(&ld, JS_IDEAL, 2ull * 2048);
    ex_check_sum(&st, JS_SECTORS, 4ull * 2048);
    /* 16 lanes x 4 bytes requested of 4 x 32 transferred: efficiency 1/2 */
    ex_check_each(&ld, JS_EFFICIENCY, 0.5);
    ex_check_each(&st, JS_EFFICIENCY, 0.5);
    /* Algorithm 1 over the active lanes: sorted addresses 8 bytes apart: uncoalesced;
     * footprint: every other float: all_stride 8 > 4. */
    ex_check_each(&ld, JS_STRIDE ".min", 8);
    ex_check_each(&ld, JS_STRIDE ".max", 8);
    ex_check_each(&ld, JS_ALL_STRIDE, 8);
    ex_check_each_str(&ld, JS_VERDICT, "uncoalesced");
    /* no AoS -> SoA advice: the two stores split one array between even and odd lanes
     * (lane stride 4 = the access size: no structure), they are not two fields */
    ex_check_suggestion(&ld, "layout", 0);
    ex_check_suggestion(&st, "layout", 0);
  }
  ex_release(&r, b, 3);
}

/* ---- instruction counts and error paths --------------------------------------------- */

/* The warp-instruction budget (--max-insns N) is exhausted (exit 6) exactly when a run
 * needs more than N warp-level instructions. Counts by hand from nvcc 13's PTX
 * (`nvcc -ptx -lineinfo -arch=sm_90`), every lane of every warp taking the same path:
 *   transpose_naive: 22 straight-line instructions, 32*128*8 = 32768 warps: 720896;
 *   transpose_tiled: 56 straight-line instructions (j loops unrolled, bar.sync counted),
 *     32*32*8 = 8192 warps: 458752;
 *   strided_copy: 10 up to the bounds branch, 9 for the copy, ret: 20; 2048 warps: 40960;
 *   row_sums_thread: 29 before the 4-way unrolled loop, 13 per iteration x 1024/4, 2 to
 *     skip the remainder loop, 5 after it: 3364; 32 warps: 107648.
 * (bench/emu_speed.sh uses the same counts for its thread-instruction rates.) */
static void check_budget(const char *launch, uint64_t warp_insns)
{
  char extra[64], *err;
  int got;
  snprintf(extra, sizeof extra, "--max-insns %" PRIu64, warp_insns);
  got = ex_run_status(launch, extra, &err);
  if (got != 0)
    fail_msg("%s %s: exit status %d, expected 0: %s", launch, extra, got, err);
  free(err);
  snprintf(extra, sizeof extra, "--max-insns %" PRIu64, warp_insns - 1);
  ex_check_fails(launch, extra, 6, "coalcheck: error: ", "budget", (const char *)NULL);
}

static void test_instruction_counts(void **state)
{
  (void)state;
  check_budget("transpose/naive.launch", 720896);
  check_budget("transpose/tiled.launch", 458752);
  check_budget("strided_copy/stride1.launch", 40960);
  check_budget("row_sums/thread_per_row.launch", 107648);
}

/* A buffer too small for the kernel: strided_copy with stride 2 reads in[2i] for i up to
 * 65535, but 'in' holds 65536 floats: the first lane past the end is i = 32768, thread 0
 * of block 32768/256 = 128 (CTAs run in order, so it is the first out-of-bounds access);
 * the emulator stops with a memcheck error naming the buffer (exit 5). */
static void test_error_out_of_bounds(void **state)
{
  (void)state;
  ex_check_fails("strided_copy/stride2.launch", "--arg 'in=f32[n]:random:2'", 5,
                 "coalcheck: error: ", "invalid global read of size 4",
                 "by thread (0,0,0) in block (128,0,0)", "'in'", (const char *)NULL);
}

/* A file initializer of the wrong size is an input error (exit 3). */
static void test_error_file_size(void **state)
{
  char path[] = "/tmp/cc-examples-short-XXXXXX", extra[128];
  int fd = mkstemp(path);
  (void)state;
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "\0\0\0\0", 4), 4); /* one float where 65536 are needed */
  close(fd);
  snprintf(extra, sizeof extra, "--arg 'in=f32[n]:file:%s'", path);
  ex_check_fails("strided_copy/stride1.launch", extra, 3, "coalcheck: error: ", path,
                 (const char *)NULL);
  unlink(path);
}

/* nvcc rejecting the flags it is given: exit 8. */
static void test_error_nvcc(void **state)
{
  (void)state;
  ex_check_fails("strided_copy/stride1.launch", "--nvcc-flags --no-such-nvcc-flag", 8,
                 "coalcheck: error: ", "nvcc", (const char *)NULL);
}

/* A kernel name the module does not have: an input error (the launch spec does not fit
 * the module, docs/exit-codes.md) naming it. */
static void test_error_kernel_name(void **state)
{
  char *err;
  int got;
  (void)state;
  got = ex_run_status("strided_copy/stride1.launch", "--kernel no_such_kernel", &err);
  if (got != 3 || !strstr(err, "no_such_kernel"))
    fail_msg("--kernel no_such_kernel: exit %d (want 3), stderr: %s", got, err);
  free(err);
}

/* Every examples/<name>/<variant>.launch has a test above: a new launch file without a
 * reference fails here until one is written. */
static const char *const tested_launches[] = {
    "aos_soa/aos.launch",          "aos_soa/soa.launch",
    "cell3d/xfast.launch",         "cell3d/zfast.launch",
    "divergent/divergent.launch",  "gaussian/fan2.launch",
    "gaussian/fan2_fixed.launch",  "gesummv/cols.launch",
    "gesummv/rows.launch",         "gemv/cols.launch",
    "gemv/rows.launch",            "histogram/global.launch",
    "histogram/shared.launch",     "row_sums/thread_per_row.launch",
    "row_sums/warp_per_row.launch", "strided_copy/stride1.launch",
    "strided_copy/stride2.launch", "strided_copy/stride4.launch",
    "strided_copy/stride8.launch", "strided_copy/stride32.launch",
    "transpose/naive.launch",      "transpose/padded.launch",
    "transpose/tiled.launch",
    /* tested in tests/examples/test_local_array.c */
    "local_array/divergent.launch", "local_array/uniform.launch",
    "local_array/uniform8.launch",
    /* tested in tests/examples/test_permute.c */
    "permute/copy3d.launch", "permute/rowsum_shfl.launch", "permute/stencil2d.launch",
    "permute/transpose16.launch",
    /* tested in tests/examples/test_lift.c */
    "lift/corr.launch", "lift/covar.launch", "lift/gemm_rows.launch", "lift/myocyte_rows.launch",
    "lift/row_prefix.launch", "lift/row_store.launch",
    /* tested in tests/examples/test_lift2d.c */
    "lift/add3d.launch", "lift/batched_gemv.launch", "lift/covar2d.launch",
    "lift/scale_rows2d.launch",
    /* tested in tests/examples/test_tile.c */
    "tile/colmajor.launch", "tile/f64.launch", "tile/scale.launch",
    /* tested in tests/examples/test_redistribute.c */
    "redistribute/bicg.launch", "redistribute/mvt.launch", "redistribute/row_sums_u32.launch",
    "redistribute/spmv_csr.launch",
    /* tested in tests/examples/test_soa.c */
    "soa/energy.launch", "soa/knn.launch", "soa/step.launch", "soa/step_n1000.launch",
    /* tested in tests/e2e/ci_example.sh (docs/ci.md's job; fixed/ is one level deeper) */
    "ci/scale.launch",
};

static int is_tested(const char *rel)
{
  size_t i;
  for (i = 0; i < sizeof tested_launches / sizeof *tested_launches; i++)
    if (strcmp(tested_launches[i], rel) == 0)
      return 1;
  return 0;
}

static void test_every_launch_is_tested(void **state)
{
  char path[1024], rel[512];
  DIR *top, *sub;
  struct dirent *e, *f;
  size_t found = 0;
  (void)state;
  snprintf(path, sizeof path, "%s/examples", getenv("COALCHECK_SRC"));
  top = opendir(path);
  assert_non_null(top);
  while ((e = readdir(top)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, sizeof path, "%s/examples/%s", getenv("COALCHECK_SRC"), e->d_name);
    if ((sub = opendir(path)) == NULL)
      continue; /* a file such as README.md */
    while ((f = readdir(sub)) != NULL) {
      size_t n = strlen(f->d_name);
      if (n < 7 || strcmp(f->d_name + n - 7, ".launch") != 0)
        continue;
      snprintf(rel, sizeof rel, "%s/%s", e->d_name, f->d_name);
      if (!is_tested(rel))
        fail_msg("examples/%s has no test in tests/examples/test_examples.c", rel);
      found++;
    }
    closedir(sub);
  }
  closedir(top);
  EX_EQ_U64(found, sizeof tested_launches / sizeof *tested_launches,
            "launch files found under examples/");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_transpose_naive),  cmocka_unit_test(test_transpose_naive_4096_h200),
      cmocka_unit_test(test_transpose_tiled),
      cmocka_unit_test(test_transpose_padded), cmocka_unit_test(test_strided_copy_1),
      cmocka_unit_test(test_strided_copy_2),   cmocka_unit_test(test_strided_copy_4),
      cmocka_unit_test(test_strided_copy_8),   cmocka_unit_test(test_strided_copy_32),
      cmocka_unit_test(test_strided_copy_archs),
      cmocka_unit_test(test_aos),              cmocka_unit_test(test_soa),
      cmocka_unit_test(test_row_sums_thread),  cmocka_unit_test(test_row_sums_warp),
      cmocka_unit_test(test_gesummv_rows),     cmocka_unit_test(test_gesummv_cols),
      cmocka_unit_test(test_gemv),
      cmocka_unit_test(test_gaussian_fan2),    cmocka_unit_test(test_gaussian_fan2_fixed),
      cmocka_unit_test(test_cell3d_zfast),     cmocka_unit_test(test_cell3d_xfast),
      cmocka_unit_test(test_histogram_global), cmocka_unit_test(test_histogram_shared),
      cmocka_unit_test(test_divergent),        cmocka_unit_test(test_instruction_counts),
      cmocka_unit_test(test_error_out_of_bounds), cmocka_unit_test(test_error_file_size),
      cmocka_unit_test(test_error_nvcc),       cmocka_unit_test(test_error_kernel_name),
      cmocka_unit_test(test_every_launch_is_tested),
  };
  ex_skip_unless_ready();
  return cmocka_run_group_tests(tests, NULL, NULL);
}
