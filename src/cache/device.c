/* The devices the cache model knows, the --cache spec and the calibration file. See
 * cache.h.
 *
 * Sources of the table (one representative GPU per --arch model):
 *   - SMs, L2 size, L1/shared storage per SM, DRAM bandwidth, boost clock: NVIDIA's
 *     datasheets and architecture whitepapers (H100: "NVIDIA H100 Tensor Core GPU
 *     Architecture", 2022, and the H100 datasheet: SXM5 132 SMs, 50 MB L2, 256 KB L1 and
 *     shared memory per SM, HBM3 3.35 TB/s, 1.98 GHz; H200 datasheet: HBM3e 4.8 TB/s, the
 *     same GH100 chip: 132 SMs, 50 MB L2; A100 whitepaper: 108 SMs, 40 MB L2, 192 KB per
 *     SM, 1555 GB/s; V100 whitepaper: 80 SMs, 6 MB L2, 128 KB per SM, 900 GB/s; the
 *     older ones from their product pages).
 *   - Shared memory carveouts and residency limits (threads and CTAs per SM): CUDA C
 *     Programming Guide, "Compute Capabilities", the technical-specifications table and
 *     each capability's "Shared Memory" section (9.0: 0, 8, 16, 32, 64, 100, 132, 164,
 *     196 or 228 KB; 8.0: up to 164; 8.6/8.9: up to 100; 7.0: up to 96; 7.5: 32 or 64),
 *     and the 1 KB of shared memory the driver reserves per CTA from 8.0 on.
 *   - L2 bandwidth (not published by NVIDIA): Chips and Cheese, "Nvidia's H100: Funny
 *     L2, and Tons of Bandwidth" (2023), about 5.5 TB/s measured on the H100 PCIe; the
 *     other rows scale the DRAM figure (L2 ~ 2.5 x DRAM). Latencies: approximate
 *     figures of the same measurements and of Jia et al. (Volta, 2018): L1 hit ~ 20-30
 *     ns, L2 hit ~ 150-200 ns, DRAM ~ 450-550 ns.
 *   Every speed is a default for the lower-bound estimate: scripts/gpu-calibrate.sh
 *   measures the device at hand and --calibration FILE replaces them. Associativity (L1
 *   4 ways, L2 16) is an assumption (not published).
 *   - DRAM access unit (dram_access_bytes): 64 bytes on the H100, measured with Nsight
 *     Compute (bench/results/cache-h100-2026-11-25.md: strided_copy_stride32 reads one
 *     float per 128-byte line, 65536 L2 read sectors, and dram__bytes_read.sum is 4.20 MB
 *     = 64 bytes per sector; strided_copy_stride8, whole sectors pairwise, 2.10 MB = 32 per
 *     sector). The H200 and the H100 PCIe have the same GH100 L2 and memory controllers
 *     (HBM3e, HBM2e): 64 assumed. Every other device: 32, the sector (not measured; `--cache
 *     NAME,dram-bytes=64` changes it).
 *   - L2 write policy (l2_partial_ways, l2_dirty_ways; cache.c, "write policy"): 2 and 5
 *     of the 16 ways on sm_90, measured on the H100 with the probes of bench/cache_probe
 *     (bench/results/cache-h100-2026-11-27-probes-run.md, figures in 32-byte sectors).
 *     One 4-byte store into each of 16384 / 65536 / 131072 / 262144 / 1048576 lines
 *     sends 0 / 11400 / 65300 / 218800 / 998900 partly written sectors to DRAM, read
 *     and written again (the writes: 0 / 11300 / 51600 / 179500 / 996500); at most 2
 *     partial lines in each of the 25600 sets gives 0 / 14336 / 79872 / 210944 / 997376
 *     (+26%, +37% in the middle: the hardware's limit is softer). Whole sectors (8 floats
 *     a line) are written without a read, and the H100 keeps 121800 (262144 lines) and
 *     123600 (1048576 lines) of those lines dirty, as it keeps 126800 (strided_copy_64m)
 *     and 132000 (transpose_tiled_4096) whole dirty lines: at most 5 of 16 ways dirty
 *     (128000 lines) predicted the 262144-line probe before it ran (4.29 MB written, 4.49
 *     measured). A kernel that dirties lines faster than the L2 writes them back keeps
 *     more (262144 whole lines in 22 us: 10.92 MB written, 17.17 predicted). The H200 and
 *     the H100 PCIe: the same GH100 L2, assumed. Every other device: 0 (no limit, not
 *     measured). */
#include "cache/cache.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/fileio.h"
#include "util/mem.h"

#define KB 1024u
#define MB (1024u * 1024u)

struct row {
  const char *name, *arch, *label;
  uint32_t sms, unified_kb;
  uint32_t carveouts[CC_CACHE_MAX_CARVEOUTS]; /* KiB, increasing; ends at 0 after the first */
  uint32_t fixed_carveout_kb;  /* UINT32_MAX: chosen by residency; else this one */
  uint32_t reserved_kb;
  uint64_t l2_bytes;
  uint32_t dram_bytes;         /* DRAM access unit */
  int l1_global_loads, whole_lines;
  uint32_t max_ctas, max_threads;
  double clock_ghz, dram_gbs, l2_gbs;
  double lat_l1, lat_l2, lat_dram;
};

#define AUTO UINT32_MAX
#define HOPPER_CARVE {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}
#define AMPERE_CARVE {0, 8, 16, 32, 64, 100, 132, 164}
#define GA10X_CARVE {0, 8, 16, 32, 64, 100}

static const struct row rows[] = {
  {"h100", "sm_90", "NVIDIA H100 SXM5 (sm_90)", 132, 256, HOPPER_CARVE, AUTO, 1,
   50ull * MB, 64, 1, 0, 32, 2048, 1.98, 3350, 5500, 20, 150, 500},
  {"h200", "sm_90", "NVIDIA H200 SXM (sm_90)", 132, 256, HOPPER_CARVE, AUTO, 1,
   50ull * MB, 64, 1, 0, 32, 2048, 1.98, 4800, 5500, 20, 150, 500},
  {"h100-pcie", "sm_90", "NVIDIA H100 PCIe (sm_90)", 114, 256, HOPPER_CARVE, AUTO, 1,
   50ull * MB, 64, 1, 0, 32, 2048, 1.755, 2000, 5500, 20, 150, 500},
  {"l40", "sm_89", "NVIDIA L40 (sm_89)", 142, 128, GA10X_CARVE, AUTO, 1,
   96ull * MB, 32, 1, 0, 24, 1536, 2.49, 864, 2200, 20, 150, 500},
  {"a10", "sm_86", "NVIDIA A10 (sm_86)", 72, 128, GA10X_CARVE, AUTO, 1,
   6ull * MB, 32, 1, 0, 16, 1536, 1.695, 600, 1500, 25, 180, 500},
  {"a100", "sm_80", "NVIDIA A100 SXM4 40GB (sm_80)", 108, 192, AMPERE_CARVE, AUTO, 1,
   40ull * MB, 32, 1, 0, 32, 2048, 1.41, 1555, 4000, 25, 180, 500},
  {"t4", "sm_75", "NVIDIA T4 (sm_75)", 40, 96, {32, 64}, AUTO, 0,
   4ull * MB, 32, 1, 0, 16, 1024, 1.59, 320, 800, 30, 200, 500},
  {"v100", "sm_70", "NVIDIA V100 SXM2 (sm_70)", 80, 128, {0, 8, 16, 32, 64, 96}, AUTO, 0,
   6ull * MB, 32, 1, 0, 32, 2048, 1.53, 900, 2200, 25, 180, 450},
  {"p100", "sm_60", "NVIDIA P100 (sm_60)", 56, 24, {0}, AUTO, 0,
   4ull * MB, 32, 0, 0, 32, 2048, 1.48, 732, 1800, 40, 200, 450},
  {"gtx1080", "sm_61", "NVIDIA GeForce GTX 1080 (sm_61)", 20, 48, {0}, AUTO, 0,
   2ull * MB, 32, 0, 0, 32, 2048, 1.733, 320, 800, 40, 200, 450},
  {"m40", "sm_52", "NVIDIA Tesla M40 (sm_52)", 24, 48, {0}, AUTO, 0,
   3ull * MB, 32, 0, 0, 32, 2048, 1.114, 288, 700, 40, 200, 450},
  {"gtx750ti", "sm_50", "NVIDIA GeForce GTX 750 Ti (sm_50)", 5, 24, {0}, AUTO, 0,
   2ull * MB, 32, 0, 0, 32, 2048, 1.085, 86, 200, 40, 200, 450},
  {"k80", "cc3.7", "NVIDIA Tesla K80, one GPU (cc3.7)", 13, 64, {16, 32, 48}, 48, 0,
   1536ull * KB, 32, 0, 0, 16, 2048, 0.875, 240, 600, 40, 250, 500},
  {"k40", "cc3.5", "NVIDIA Tesla K40 (cc3.5)", 15, 64, {16, 32, 48}, 48, 0,
   1536ull * KB, 32, 0, 0, 16, 2048, 0.745, 288, 700, 40, 250, 500},
  {"tk1", "cc3.2", "NVIDIA Jetson TK1 (cc3.2)", 1, 64, {16, 32, 48}, 48, 0,
   128ull * KB, 32, 0, 0, 16, 2048, 0.852, 15, 40, 40, 250, 500},
  {"gtx680", "cc3.0", "NVIDIA GeForce GTX 680 (cc3.0)", 8, 64, {16, 32, 48}, 48, 0,
   512ull * KB, 32, 0, 0, 16, 2048, 1.006, 192, 500, 40, 250, 500},
  {"c2050", "cc2.0", "NVIDIA Tesla C2050 (cc2.0)", 14, 64, {16, 48}, 48, 0,
   768ull * KB, 32, 1, 1, 8, 1536, 1.15, 144, 350, 40, 250, 550},
  {"gtx460", "cc2.1", "NVIDIA GeForce GTX 460 (cc2.1)", 7, 64, {16, 48}, 48, 0,
   512ull * KB, 32, 1, 1, 8, 1536, 1.35, 115, 300, 40, 250, 550},
};

#define N_ROWS (sizeof rows / sizeof rows[0])
#define L1_WAYS 4
#define L2_WAYS 16
#define GH100_PARTIAL_WAYS 2   /* of L2_WAYS: the sources above */
#define GH100_DIRTY_WAYS 5
#define SPEED_SOURCE "device table defaults (src/cache/device.c), not calibrated"

static void known_devices(char *buf, size_t cap)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < N_ROWS && used < cap; i++) {
    int n = snprintf(buf + used, cap - used, "%s%s (%s)", i ? ", " : "", rows[i].name,
                     rows[i].arch);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

static void from_row(const struct row *r, struct cc_cache_device *d)
{
  memset(d, 0, sizeof *d);
  snprintf(d->name, sizeof d->name, "%s", r->name);
  d->label = r->label;
  d->arch = r->arch;
  d->sms = r->sms;
  d->l1_unified_bytes = r->unified_kb * KB;
  for (uint32_t i = 0; i < CC_CACHE_MAX_CARVEOUTS; i++) {
    if (i > 0 && r->carveouts[i] == 0)
      break;
    d->carveouts_kb[i] = r->carveouts[i];
    d->n_carveouts = i + 1;
  }
  if (d->n_carveouts == 1 && d->carveouts_kb[0] == 0)
    d->n_carveouts = 0; /* a fixed L1 (sm_5x, sm_6x: shared memory is separate) */
  d->carveout_kb = r->fixed_carveout_kb;
  d->smem_reserved_bytes = r->reserved_kb * KB;
  d->l1_ways = L1_WAYS;
  d->l1_global_loads = r->l1_global_loads;
  d->l1_whole_lines = r->whole_lines;
  d->l2_bytes = r->l2_bytes;
  d->dram_access_bytes = r->dram_bytes;
  d->l2_ways = L2_WAYS;
  if (strcmp(r->arch, "sm_90") == 0) {
    d->l2_partial_ways = GH100_PARTIAL_WAYS;
    d->l2_dirty_ways = GH100_DIRTY_WAYS;
  }
  d->index = CC_CACHE_INDEX_HASH;
  d->dispatch = CC_CACHE_DISPATCH_ROUND_ROBIN;
  d->sample = 0; /* the default: CC_CACHE_SAMPLE_DEFAULT, capped by the levels */
  d->sample_after = CC_CACHE_SAMPLE_AFTER_DEFAULT;
  d->max_ctas_per_sm = r->max_ctas;
  d->max_threads_per_sm = r->max_threads;
  d->clock_ghz = r->clock_ghz;
  d->dram_gbs = r->dram_gbs;
  d->l2_gbs = r->l2_gbs;
  d->l1_bytes_per_clk = CC_CACHE_LINE_BYTES;
  d->lat_l1_ns = r->lat_l1;
  d->lat_l2_ns = r->lat_l2;
  d->lat_dram_ns = r->lat_dram;
  d->speed_source = SPEED_SOURCE;
}

/* The arch spelled the other way ("sm_35" for "cc3.5"), into buf; "" when not of that
 * form. */
static void other_spelling(const char *arch, char *buf, size_t cap)
{
  buf[0] = '\0';
  if (strncmp(arch, "sm_", 3) == 0 && isdigit((unsigned char)arch[3]) &&
      isdigit((unsigned char)arch[4]) && arch[5] == '\0')
    snprintf(buf, cap, "cc%c.%c", arch[3], arch[4]);
  else if (strncmp(arch, "cc", 2) == 0 && isdigit((unsigned char)arch[2]) && arch[3] == '.' &&
           isdigit((unsigned char)arch[4]) && arch[5] == '\0')
    snprintf(buf, cap, "sm_%c%c", arch[2], arch[4]);
}

static int same_arch(const char *a, const char *b)
{
  char other[16];
  other_spelling(a, other, sizeof other);
  return strcmp(a, b) == 0 || strcmp(other, b) == 0;
}

static const struct row *find_row(const char *name, size_t len)
{
  for (size_t i = 0; i < N_ROWS; i++)
    if (strlen(rows[i].name) == len && strncmp(rows[i].name, name, len) == 0)
      return &rows[i];
  return NULL;
}

static const struct row *row_for_arch(const char *arch)
{
  for (size_t i = 0; i < N_ROWS; i++)
    if (same_arch(arch, rows[i].arch))
      return &rows[i];
  return NULL;
}

/* ---- spec values ----------------------------------------------------------------------- */

/* A size: digits, optionally K or M (KiB, MiB). */
static int parse_size(const char *v, uint64_t *out)
{
  char *end;
  unsigned long long n;
  if (!isdigit((unsigned char)v[0]))
    return 0;
  errno = 0;
  n = strtoull(v, &end, 10);
  if (errno || n > (1ull << 40))
    return 0;
  if (*end == 'K' || *end == 'k')
    n *= KB, end++;
  else if (*end == 'M' || *end == 'm')
    n *= MB, end++;
  if (*end)
    return 0;
  *out = n;
  return 1;
}

static int parse_count(const char *v, uint64_t max, uint64_t *out)
{
  char *end;
  unsigned long long n;
  if (!isdigit((unsigned char)v[0]))
    return 0;
  errno = 0;
  n = strtoull(v, &end, 10);
  if (errno || *end || n == 0 || n > max)
    return 0;
  *out = n;
  return 1;
}

/* A way count that may be 0 (no limit): 0..64. */
static int parse_ways_or_zero(const char *v, uint64_t *out)
{
  if (strcmp(v, "0") == 0) {
    *out = 0;
    return 1;
  }
  return parse_count(v, 64, out);
}

static int is_pow2(uint64_t v)
{
  return v && !(v & (v - 1));
}

static int bad(struct cc_err *err, const char *kv, const char *rule)
{
  return cc_err_set(err, CC_ERR_USAGE, "bad --cache value '%s': %s", kv, rule);
}

/* Checks a cache shape: size a power of two >= one line, ways dividing its lines. */
static int check_shape(const char *what, uint64_t bytes, uint32_t ways, int custom_size,
                       struct cc_err *err)
{
  uint64_t lines = bytes / CC_CACHE_LINE_BYTES;
  if (custom_size && (!is_pow2(bytes) || bytes < CC_CACHE_LINE_BYTES))
    return cc_err_set(err, CC_ERR_USAGE, "bad --cache %s size %llu bytes: use a power of two "
                      "of at least 128 bytes (e.g. %s=64K)", what, (unsigned long long)bytes,
                      what);
  if (lines % ways != 0)
    return cc_err_set(err, CC_ERR_USAGE, "bad --cache %s shape: %u ways do not divide its "
                      "%llu lines of 128 bytes; use ways that divide the line count (sets x "
                      "ways = lines)", what, ways, (unsigned long long)lines);
  return CC_OK;
}

/* Checks an explicit sample=N against the classes of the levels (cc_cache_level_classes:
 * L2, and L1 at its largest; a kernel whose carveout leaves fewer L1 sets has it capped,
 * the report says which it used). */
static int check_sample(const struct cc_cache_device *d, struct cc_err *err)
{
  uint64_t l1 = d->l1_bytes_override ? d->l1_bytes_override : d->l1_unified_bytes;
  uint32_t l1_sets = (uint32_t)(l1 / CC_CACHE_LINE_BYTES / d->l1_ways);
  uint32_t l2_sets = (uint32_t)(d->l2_bytes / CC_CACHE_LINE_BYTES / d->l2_ways);
  uint32_t k1 = cc_cache_level_classes(d->index, l1_sets ? l1_sets : 1);
  uint32_t k2 = cc_cache_level_classes(d->index, l2_sets ? l2_sets : 1);
  uint32_t most = k1 < k2 ? k1 : k2;
  if (d->sample <= most)
    return CC_OK;
  return cc_err_set(err, CC_ERR_USAGE, "bad --cache value 'sample=%u': %s allows at most "
                    "sample=%u (%s; L1 %u sets, L2 %u sets); use sample=%u, or sample=1 to "
                    "replay every set", d->sample, d->name, most,
                    d->index == CC_CACHE_INDEX_FOLD ? "index=fold has no set classes"
                    : d->index == CC_CACHE_INDEX_MOD ? "index=mod: a power of two dividing "
                                                       "the sets"
                                                     : "at most the sets",
                    l1_sets, l2_sets, most);
}

/* Applies one KEY=VALUE of a spec to d; *l1_custom / *l2_custom: a size was given. */
static int apply_key(struct cc_cache_device *d, const char *kv, int *l1_custom, int *l2_custom,
                     struct cc_err *err)
{
  const char *eq = strchr(kv, '='), *v;
  char key[32];
  uint64_t n;
  if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof key)
    return bad(err, kv, "expected KEY=VALUE with KEY one of sms, l1, l1-ways, carveout, "
               "smem, l2, l2-ways, dispatch, index, dram-bytes, partial-ways, dirty-ways, "
               "sample, sample-after");
  snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
  v = eq + 1;
  if (strcmp(key, "sms") == 0) {
    if (!parse_count(v, 1024, &n))
      return bad(err, kv, "SMs must be an integer in 1..1024");
    d->sms = (uint32_t)n;
  } else if (strcmp(key, "l1") == 0 || strcmp(key, "l2") == 0) {
    if (!parse_size(v, &n) || n == 0 || (key[1] == '1' && n > 16ull * MB))
      return bad(err, kv, "expected a size in bytes, or with K or M (KiB, MiB); L1 at most 16M");
    if (key[1] == '1')
      d->l1_bytes_override = (uint32_t)n, *l1_custom = 1;
    else
      d->l2_bytes = n, *l2_custom = 1;
  } else if (strcmp(key, "l1-ways") == 0 || strcmp(key, "l2-ways") == 0) {
    if (!parse_count(v, 64, &n))
      return bad(err, kv, "ways must be an integer in 1..64");
    if (key[1] == '1')
      d->l1_ways = (uint32_t)n;
    else
      d->l2_ways = (uint32_t)n;
  } else if (strcmp(key, "carveout") == 0) {
    uint32_t i;
    char list[128] = "";
    size_t used = 0;
    for (i = 0; i < d->n_carveouts; i++)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%u", i ? ", " : "",
                               d->carveouts_kb[i]);
    if (!parse_size(v, &n) || n > UINT32_MAX)
      return bad(err, kv, "expected the shared memory carveout in KB");
    for (i = 0; i < d->n_carveouts && d->carveouts_kb[i] != n; i++)
      ;
    if (i == d->n_carveouts)
      return cc_err_set(err, CC_ERR_USAGE, "bad --cache value '%s': %s has no %llu KB "
                        "shared memory carveout; use one of: %s", kv, d->name,
                        (unsigned long long)n, d->n_carveouts ? list : "none (fixed L1)");
    d->carveout_kb = (uint32_t)n;
  } else if (strcmp(key, "smem") == 0) {
    if (!parse_size(v, &n) || n > d->l1_unified_bytes)
      return bad(err, kv, "expected the shared memory per CTA in bytes (K suffix allowed), "
                 "at most the SM's storage");
    d->smem_per_cta_bytes = (uint32_t)n;
  } else if (strcmp(key, "dispatch") == 0) {
    if (strcmp(v, "rr") == 0 || strcmp(v, "round-robin") == 0)
      d->dispatch = CC_CACHE_DISPATCH_ROUND_ROBIN;
    else if (strcmp(v, "blocked") == 0)
      d->dispatch = CC_CACHE_DISPATCH_BLOCKED;
    else
      return bad(err, kv, "dispatch is rr (CTA c on SM c mod SMs) or blocked (consecutive "
                 "CTAs on one SM)");
  } else if (strcmp(key, "index") == 0) {
    if (strcmp(v, "hash") == 0)
      d->index = CC_CACHE_INDEX_HASH;
    else if (strcmp(v, "mod") == 0)
      d->index = CC_CACHE_INDEX_MOD;
    else if (strcmp(v, "fold") == 0)
      d->index = CC_CACHE_INDEX_FOLD;
    else
      return bad(err, kv, "index is hash, mod or fold (the hash before set sampling)");
  } else if (strcmp(key, "sample") == 0) {
    if (!parse_count(v, CC_CACHE_CLASSES, &n) || !is_pow2(n))
      return bad(err, kv, "sample is 1, 2, 4, 8 or 16 (1 set in N replayed; 1: every set, "
                 "exact)");
    d->sample = (uint32_t)n;
  } else if (strcmp(key, "sample-after") == 0) {
    if (strcmp(v, "0") == 0)
      n = 0;
    else if (!parse_count(v, UINT64_MAX, &n))
      return bad(err, kv, "sample-after is a number of records (0: sample from the first)");
    d->sample_after = n;
  } else if (strcmp(key, "dram-bytes") == 0) {
    if (!parse_count(v, CC_CACHE_LINE_BYTES, &n) || !is_pow2(n) || n < CC_CACHE_SECTOR_BYTES)
      return bad(err, kv, "the DRAM access unit is 32, 64 or 128 bytes");
    d->dram_access_bytes = (uint32_t)n;
  } else if (strcmp(key, "partial-ways") == 0 || strcmp(key, "dirty-ways") == 0) {
    if (!parse_ways_or_zero(v, &n))
      return bad(err, kv, "expected a number of L2 ways in 0..64 (0: no limit)");
    if (key[0] == 'p')
      d->l2_partial_ways = (uint32_t)n;
    else
      d->l2_dirty_ways = (uint32_t)n;
  } else {
    return bad(err, kv, "unknown key; use sms, l1, l1-ways, carveout, smem, l2, l2-ways, "
               "dispatch, index, dram-bytes, partial-ways, dirty-ways, sample, sample-after");
  }
  return CC_OK;
}

int cc_cache_device_get(const char *arch, const char *spec, const char *calibration,
                        struct cc_cache_device *out, int *enabled, struct cc_err *err)
{
  const struct row *r;
  const char *p;
  char names[1024];
  size_t len;
  int rc, l1_custom = 0, l2_custom = 0;
  *enabled = 0;
  memset(out, 0, sizeof *out);
  if (spec && strcmp(spec, "off") == 0)
    return CC_OK;
  if (!arch || !*arch)
    arch = "sm_90";
  len = spec ? strcspn(spec, ",") : 0;
  known_devices(names, sizeof names);
  if (!spec || len == 0 || (len == 7 && strncmp(spec, "default", 7) == 0)) {
    if (!(r = row_for_arch(arch))) {
      if (strncmp(arch, "cc1.", 4) == 0 || strncmp(arch, "sm_1", 4) == 0)
        return CC_OK; /* cc1.x: no data cache; every transaction goes to DRAM */
      return cc_err_set(err, CC_ERR_USAGE, "no cache model for architecture '%s': use --cache "
                        "off, or an architecture with one of these devices: %s", arch, names);
    }
  } else if (!(r = find_row(spec, len))) {
    return cc_err_set(err, CC_ERR_USAGE, "unknown device '%.*s' in --cache %s: use one of %s, "
                      "default or off", (int)len, spec, spec, names);
  } else if (!same_arch(arch, r->arch)) {
    const struct row *mine = row_for_arch(arch);
    return cc_err_set(err, CC_ERR_USAGE, "--cache %.*s is a %s device but the model is %s: "
                      "use --arch %s, or --cache %s", (int)len, spec, r->arch, arch, r->arch,
                      mine ? mine->name : "off");
  }
  from_row(r, out);
  for (p = spec ? spec + len : ""; *p == ',';) {
    char kv[128];
    size_t n = strcspn(p + 1, ",");
    if (n == 0 || n >= sizeof kv)
      return cc_err_set(err, CC_ERR_USAGE, "bad --cache '%s': empty or too long KEY=VALUE "
                        "after a comma", spec);
    snprintf(kv, sizeof kv, "%.*s", (int)n, p + 1);
    if ((rc = apply_key(out, kv, &l1_custom, &l2_custom, err)) != CC_OK)
      return rc;
    p += n + 1;
  }
  if (l1_custom || out->l1_ways != L1_WAYS) {
    uint64_t l1 = l1_custom ? out->l1_bytes_override : out->l1_unified_bytes;
    if ((rc = check_shape("l1", l1, out->l1_ways, l1_custom, err)) != CC_OK)
      return rc;
  }
  if ((rc = check_shape("l2", out->l2_bytes, out->l2_ways, l2_custom, err)) != CC_OK)
    return rc;
  if ((rc = check_sample(out, err)) != CC_OK)
    return rc;
  if (calibration && (rc = cc_cache_calibrate(out, calibration, err)) != CC_OK)
    return rc;
  *enabled = 1;
  return CC_OK;
}

/* ---- calibration ---------------------------------------------------------------------- */

/* The positive number field key of o into *v; absent: CC_OK when optional. */
static int calib_num(const cJSON *o, const char *key, int optional, double *v, const char *path,
                     struct cc_err *err)
{
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!f && optional)
    return CC_OK;
  if (!cJSON_IsNumber(f) || !(f->valuedouble > 0) || f->valuedouble > 1e9)
    return cc_err_set(err, CC_ERR_INPUT, "calibration file %s: field '%s' %s; run "
                      "scripts/gpu-calibrate.sh again or fix the file", path, key,
                      f ? "is not a positive number" : "is missing");
  *v = f->valuedouble;
  return CC_OK;
}

int cc_cache_calibrate(struct cc_cache_device *d, const char *path, struct cc_err *err)
{
  char *text;
  cJSON *root;
  double sms = 0;
  struct cc_cache_device t = *d;
  int rc = cc_file_read(path, &text, NULL, err);
  if (rc != CC_OK)
    return cc_err_prefix(err, "cannot read calibration file");
  root = cJSON_Parse(text);
  free(text);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return cc_err_set(err, CC_ERR_INPUT, "calibration file %s is not a JSON object; use the "
                      "file scripts/gpu-calibrate.sh writes", path);
  }
  if ((rc = calib_num(root, "dram_gbs", 0, &t.dram_gbs, path, err)) == CC_OK &&
      (rc = calib_num(root, "l2_gbs", 0, &t.l2_gbs, path, err)) == CC_OK &&
      (rc = calib_num(root, "clock_ghz", 1, &t.clock_ghz, path, err)) == CC_OK &&
      (rc = calib_num(root, "lat_l1_ns", 1, &t.lat_l1_ns, path, err)) == CC_OK &&
      (rc = calib_num(root, "lat_l2_ns", 1, &t.lat_l2_ns, path, err)) == CC_OK &&
      (rc = calib_num(root, "lat_dram_ns", 1, &t.lat_dram_ns, path, err)) == CC_OK)
    rc = calib_num(root, "sms", 1, &sms, path, err);
  cJSON_Delete(root);
  if (rc != CC_OK)
    return rc;
  if (sms > 0) {
    if (sms > 1024 || sms != (double)(uint32_t)sms)
      return cc_err_set(err, CC_ERR_INPUT, "calibration file %s: field 'sms' must be an "
                        "integer in 1..1024", path);
    t.sms = (uint32_t)sms;
  }
  t.speed_source = path;
  t.calibrated = 1;
  *d = t;
  return CC_OK;
}
