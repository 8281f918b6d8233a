/* End of a kernel: allStr (per instruction and per source-level reference), verdict,
 * suggestions (CGO 2015 Algorithm 1, lines 28-44, plus the layout and bank-conflict
 * advice), source locations, totals, the worst-first order and the per-line sums. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"
#include "util/mem.h"

/* Largest uniform stride still read as a structure size for the AoS -> SoA advice. */
#define LAYOUT_MAX_STRUCT 256u

/* What one element of the instruction is called, from the type suffix of its PTX text
 * ("ld.global.f32 ..." -> "float"); vectors and unknown types by their size. */
static void element_name(const struct cc_insn_info *info, char *buf, size_t cap)
{
  static const struct { const char *suffix, *name; } types[] = {
    { ".f32", "float" }, { ".f64", "double" }, { ".f16", "half" }, { ".bf16", "bfloat16" },
    { ".s32", "int" }, { ".u32", "unsigned int" }, { ".b32", "32-bit word" },
    { ".s64", "64-bit int" }, { ".u64", "64-bit unsigned int" }, { ".b64", "64-bit word" },
    { ".s16", "short" }, { ".u16", "unsigned short" }, { ".b16", "16-bit word" },
    { ".s8", "byte" }, { ".u8", "byte" }, { ".b8", "byte" },
  };
  const char *text = info->text ? info->text : "";
  size_t opcode_len = strcspn(text, " \t");
  if (memmem(text, opcode_len, ".v2", 3) || memmem(text, opcode_len, ".v4", 3) ||
      memmem(text, opcode_len, ".v8", 3)) {
    snprintf(buf, cap, "%" PRIu32 "-byte vector", info->size_bytes);
    return;
  }
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    size_t n = strlen(types[i].suffix);
    const char *p = text;
    /* the suffix must end the opcode or be followed by a space or a dot */
    while ((p = memmem(p, opcode_len - (size_t)(p - text), types[i].suffix, n)) != NULL) {
      char next = p[n];
      if (next == ' ' || next == '\t' || next == '\0') {
        snprintf(buf, cap, "%s", types[i].name);
        return;
      }
      p += n;
    }
  }
  snprintf(buf, cap, "%" PRIu32 "-byte element", info->size_bytes);
}

/* "1024 floats" / "1 float" / "2.5 floats" for a stride of bytes. */
static void in_elements(const struct cc_insn_info *info, uint64_t bytes, char *buf, size_t cap)
{
  char name[48];
  element_name(info, name, sizeof name);
  if (info->size_bytes && bytes % info->size_bytes == 0) {
    uint64_t n = bytes / info->size_bytes;
    snprintf(buf, cap, "%" PRIu64 " %s%s", n, name, n == 1 ? "" : "s");
  } else {
    snprintf(buf, cap, "%.4g %ss", info->size_bytes ? (double)bytes / info->size_bytes : 0.0,
             name);
  }
}

static const char *verb(enum cc_access_kind kind)
{
  switch (kind) {
  case CC_ACCESS_LOAD: return "read";
  case CC_ACCESS_STORE: return "write";
  case CC_ACCESS_ATOMIC:
  case CC_ACCESS_REDUCTION: return "update";
  }
  return "access";
}

static void suggest(struct cc_insn_stats *s, enum cc_suggestion_kind kind, const char *text)
{
  if (s->n_suggestions >= CC_ANALYSIS_MAX_SUGGESTIONS)
    return;
  s->suggestions[s->n_suggestions].kind = kind;
  s->suggestions[s->n_suggestions].text = cc_xstrdup(text);
  s->n_suggestions++;
}

static int is_global(const struct cc_insn_stats *s)
{
  return s->wavefronts == 0 && s->info.space != CC_SPACE_SHARED;
}

/* The structure size S of s if it reads one field of an array of structures: a uniform
 * lane stride S with size < S <= LAYOUT_MAX_STRUCT, and every address at one offset
 * modulo S (S divides the footprint's granularity, the gcd of its differences); else 0. */
static uint64_t struct_size(const struct cc_insn_stats *s)
{
  uint64_t S = s->lane_stride, g = cc_analysis_fp_granularity(s->footprint);
  /* local: lanes stride across the interleaved rows, not through a structure */
  if (!is_global(s) || s->info.space == CC_SPACE_LOCAL || S == CC_LANE_STRIDE_NONE ||
      S == CC_LANE_STRIDE_MIXED ||
      S <= s->info.size_bytes || S > LAYOUT_MAX_STRUCT || g % S != 0)
    return 0;
  return S;
}

/* An instruction that may read a field of an array of structures (struct_size), with
 * what the field comparison needs (field_counts). */
struct field_entry {
  uint64_t S, lo, hi, offset; /* offset: lo modulo S */
  uint32_t lanes;
  size_t insn;
};

static int cmp_u64(const void *pa, const void *pb)
{
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return (a > b) - (a < b);
}

/* By structure size, lanes seen and offset: the classes field_counts counts over. */
static int cmp_field(const void *pa, const void *pb)
{
  const struct field_entry *a = pa, *b = pb;
  if (a->S != b->S)
    return a->S < b->S ? -1 : 1;
  if (a->lanes != b->lanes)
    return a->lanes < b->lanes ? -1 : 1;
  return (a->offset > b->offset) - (a->offset < b->offset);
}

/* Elements of the sorted v[0..n) below x (le: at most x). */
static size_t count_below(const uint64_t *v, size_t n, uint64_t x, int le)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < x || (le && v[mid] == x))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A run of entries [first, end) whose ranges are sorted apart: starts in los, ends in
 * his (both ascending). How many of its ranges meet [lo, hi]: those starting at or
 * before hi, less those ending before lo (which start before lo <= hi too). */
static size_t overlapping(const uint64_t *los, const uint64_t *his, size_t first, size_t end,
                          uint64_t lo, uint64_t hi)
{
  return count_below(los + first, end - first, hi, 1) -
         count_below(his + first, end - first, lo, 0);
}

/* The first entry of e[a..b) (sorted by offset) whose offset is at least off (after:
 * above off). */
static size_t offset_run(const struct field_entry *e, size_t a, size_t b, uint64_t off,
                         int after)
{
  while (a < b) {
    size_t mid = a + (b - a) / 2;
    if (e[mid].offset < off || (after && e[mid].offset == off))
      a = mid + 1;
    else
      b = mid;
  }
  return a;
}

/* Distinct lane masks of one structure size above which field_counts compares pairs
 * (at most FIELD_PAIRS_MAX of them per kernel) instead of counting classes. */
#define FIELD_MASKS_MAX 64
#define FIELD_PAIRS_MAX ((uint64_t)1 << 25)

/* For each instruction s of k (by index, in a new array): how many other global
 * instructions read other fields of the same array of structures: the same structure
 * size S, a different offset modulo S, some lanes in common (the same threads read the
 * fields: K fields at distinct offsets), and footprints that overlap (one array: the base
 * register is not in the record). Branches that split one array between different lanes
 * (even lanes here, odd lanes there) have a lane stride of one element, or no lane in
 * common, and are not fields. Only uncoalesced instructions are counted (the others get
 * no advice).
 * Counted by classes, n log n for real kernels: the candidates of one S are grouped by
 * lane mask m and, within, by offset; for each mask m sharing lanes with s, the ranges of
 * (S, m) that meet s's range, less those of (S, m, s's offset) (s itself among them). A
 * size with more than FIELD_MASKS_MAX distinct masks (no real kernel has them) is counted
 * pair by pair, within a budget of FIELD_PAIRS_MAX pairs per kernel: a limit instead of
 * n^2 time. */
static size_t *field_counts(const struct cc_kernel_stats *k)
{
  size_t n_insns = k->n_insns ? k->n_insns : 1, n = 0;
  size_t *count = cc_xcalloc(n_insns, sizeof *count);
  struct field_entry *e = cc_xcalloc(n_insns, sizeof *e);
  uint64_t *los = cc_xcalloc(n_insns, sizeof *los), *his = cc_xcalloc(n_insns, sizeof *his);
  uint64_t *clos = cc_xcalloc(n_insns, sizeof *clos), *chis = cc_xcalloc(n_insns, sizeof *chis);
  size_t *run_end = cc_xcalloc(n_insns, sizeof *run_end); /* at a run's start: its end */
  uint64_t budget = FIELD_PAIRS_MAX;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    uint64_t S = struct_size(s);
    if (S && cc_analysis_fp_min(s->footprint, &e[n].lo) &&
        cc_analysis_fp_max(s->footprint, &e[n].hi)) {
      e[n].S = S;
      e[n].offset = e[n].lo % S;
      e[n].lanes = s->lanes_seen;
      e[n++].insn = i;
    }
  }
  qsort(e, n, sizeof *e, cmp_field);
  /* sorted starts and ends of each (S, mask) run (los, his) and of each (S, mask,
   * offset) run (clos, chis), at the run's own positions */
  for (size_t i = 0; i < n; i++) {
    los[i] = clos[i] = e[i].lo;
    his[i] = chis[i] = e[i].hi;
  }
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && e[b].S == e[a].S && e[b].lanes == e[a].lanes; b++)
      ;
    run_end[a] = b;
    qsort(los + a, b - a, sizeof *los, cmp_u64);
    qsort(his + a, b - a, sizeof *his, cmp_u64);
    for (size_t c = a, d; c < b; c = d) {
      for (d = c + 1; d < b && e[d].offset == e[c].offset; d++)
        ;
      qsort(clos + c, d - c, sizeof *clos, cmp_u64);
      qsort(chis + c, d - c, sizeof *chis, cmp_u64);
    }
  }
  for (size_t first = 0, end; first < n; first = end) {
    size_t masks = 1;
    for (end = first + 1; end < n && e[end].S == e[first].S; end++)
      masks += e[end].lanes != e[end - 1].lanes;
    for (size_t i = first; i < end; i++) {
      const struct field_entry *s = &e[i];
      if (k->insns[s->insn].verdict != CC_VERDICT_UNCOALESCED)
        continue;
      if (masks > FIELD_MASKS_MAX) {
        for (size_t j = first; j < end && budget; j++, budget--)
          if (j != i && (e[j].lanes & s->lanes) && e[j].lo <= s->hi && e[j].hi >= s->lo &&
              e[j].offset != s->offset)
            count[s->insn]++;
        continue;
      }
      for (size_t a = first, b; a < end; a = b) { /* each mask m of this S */
        size_t c, d;
        b = run_end[a];
        if (!(e[a].lanes & s->lanes))
          continue;
        c = offset_run(e, a, b, s->offset, 0);
        d = offset_run(e, c, b, s->offset, 1);
        count[s->insn] += overlapping(los, his, a, b, s->lo, s->hi) -
                          overlapping(clos, chis, c, d, s->lo, s->hi);
      }
    }
  }
  free(run_end);
  free(chis);
  free(clos);
  free(his);
  free(los);
  free(e);
  return count;
}

/* The advice for an uncoalesced local access. Its strides are of the interleaved layout
 * (analysis.c, accumulate): lanes at one per-thread offset are size bytes apart, so an
 * uncoalesced one means the lanes used different offsets (indices of a per-thread array,
 * or of a spill slot's address). Threads cannot be remapped onto a per-thread array, so
 * the thread-geometry, shared-memory staging and "none" advice of global memory does not
 * apply; CUDA C Programming Guide, "Local Memory": accesses are fully coalesced as long
 * as all threads of a warp access the same relative address. */
static void suggest_local(struct cc_insn_stats *s)
{
  char text[512];
  snprintf(text, sizeof text,
           "the lanes of a warp %s a per-thread (local) array at different indices (up to "
           "%" PRIu64 " bytes apart in the interleaved layout); local memory is interleaved "
           "by thread, so only a warp-uniform index is coalesced: make the index the same "
           "across the warp, keep the array in registers (constant indices, full "
           "unrolling), or move it to shared memory",
           verb(s->info.kind), s->stride_max);
  suggest(s, CC_SUGGEST_LOCAL_ARRAY, text);
}

/* The alternative for a load that a thread remapping would fix: stage the data through
 * shared memory, read there with stride bytes between lanes (CGO 2015 "suggest also
 * shared memory usage"). */
static void suggest_staging(struct cc_insn_stats *s, uint64_t stride)
{
  char text[512];
  if (s->info.kind != CC_ACCESS_LOAD)
    return;
  snprintf(text, sizeof text,
           "or stage through shared memory: load a tile with consecutive threadIdx.x on "
           "consecutive elements, then read it from shared memory with the %" PRIu64
           "-byte stride (pad each tile row by one word against bank conflicts)", stride);
  suggest(s, CC_SUGGEST_SHARED_MEMORY, text);
}

/* ---- advice from the static forms (cc_analysis_set_forms) ------------------------------ */

static const char axis[3] = {'x', 'y', 'z'};

static uint64_t magnitude(int64_t v)
{
  return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* An executed global instruction of k other than s that threadIdx.x coalesces now (zero
 * or unit stride) and that swapping threadIdx.x and threadIdx.d would uncoalesce (a
 * large stride on d), or NULL. */
static const struct cc_insn_stats *swap_breaks(const struct cc_kernel_stats *k,
                                               const struct cc_insn_stats *s, uint32_t d)
{
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *o = &k->insns[i];
    enum cc_addr_class x;
    if (o == s || !o->executions || !is_global(o) || o->info.space == CC_SPACE_LOCAL)
      continue;
    x = cc_analysis_addr_class(o, 0);
    if ((x == CC_ADDR_ZERO || x == CC_ADDR_UNIT) && cc_analysis_addr_class(o, d) == CC_ADDR_LARGE)
      return o;
  }
  return NULL;
}

/* The tail of a permutation advice: how to apply it. */
static void apply_hint(const struct cc_kernel_stats *k, char *buf, size_t cap)
{
  if (k->warp_dependent_line)
    snprintf(buf, cap, "; the kernel uses %s (PTX line %" PRIu32 "), whose lanes a "
             "permutation regroups: apply it by hand and check that code",
             k->warp_dependent_what ? k->warp_dependent_what : "warp-level code",
             k->warp_dependent_line);
  else if (k->fix_command)
    snprintf(buf, cap, "; run `%s` to apply", k->fix_command);
  else
    buf[0] = '\0';
}

/* threadIdx.x strides widely and threadIdx.d has a unit (or zero) stride: swap them,
 * unless the swap uncoalesces another instruction (then tiling through shared memory). */
static void suggest_swap(const struct cc_kernel_stats *k, struct cc_insn_stats *s, uint32_t d)
{
  char text[768], sx[96], tail[256];
  const struct cc_insn_stats *o = swap_breaks(k, s, d);
  int64_t x = s->addr.tid[0].bytes, u = s->addr.tid[d].bytes;
  in_elements(&s->info, magnitude(x), sx, sizeof sx);
  if (o) {
    snprintf(text, sizeof text,
             "swapping threadIdx.x and threadIdx.%c would coalesce this access (threadIdx.%c "
             "moves it %" PRId64 " bytes, threadIdx.x %" PRId64 " bytes = %s) but uncoalesce "
             "the %s at line %" PRIu32 ", which threadIdx.x coalesces now: no permutation of "
             "the threads coalesces both; stage the data through shared memory (read a tile "
             "with consecutive threadIdx.x on consecutive elements, write it out the same "
             "way, as a tiled transpose does)",
             axis[d], axis[d], u, x, sx, cc_access_kind_name(o->info.kind), o->source.line);
    suggest(s, CC_SUGGEST_SHARED_MEMORY, text);
    return;
  }
  apply_hint(k, tail, sizeof tail);
  snprintf(text, sizeof text,
           "threadIdx.x moves the address %" PRId64 " bytes (%s) but threadIdx.%c moves it %"
           PRId64 " bytes: swap threadIdx.x and threadIdx.%c (with blockDim, and blockIdx and "
           "gridDim where they index the same data) so that the lanes of a warp %s %s "
           "(thread-geometry transformation)%s",
           x, sx, axis[d], u, axis[d], verb(s->info.kind),
           u ? "consecutive elements" : "one element", tail);
  suggest(s, CC_SUGGEST_THREAD_GEOMETRY, text);
  suggest_staging(s, magnitude(x));
}

/* The loop of s's form that walks memory contiguously (the smallest nonzero stride, at
 * most the coalescing bound per copy of the reference: an unrolled loop's copies share
 * one iteration's stride) and less than threadIdx.x does; NULL when none. */
static const struct cc_addr_loop *walking_loop(const struct cc_insn_stats *s, uint64_t bound)
{
  const struct cc_addr_loop *best = NULL;
  uint64_t copies = s->line_insns ? s->line_insns : 1;
  for (uint32_t i = 0; i < s->addr.nloops; i++) {
    const struct cc_addr_loop *l = &s->addr.loops[i];
    uint64_t m = magnitude(l->stride.bytes);
    if (!l->stride.known || m == 0 || m > bound * copies ||
        m >= magnitude(s->addr.tid[0].bytes))
      continue;
    if (!best || m < magnitude(best->stride.bytes))
      best = l;
  }
  return best;
}

/* An address computed from data in memory (a gather, a scatter, a histogram's bins): no
 * permutation of the threads makes it regular. */
static void suggest_indirect(struct cc_insn_stats *s)
{
  char text[768];
  if (s->info.kind == CC_ACCESS_ATOMIC || s->info.kind == CC_ACCESS_REDUCTION) {
    snprintf(text, sizeof text,
             "the lanes update data-dependent elements (%s), so no permutation of the threads "
             "makes the updates regular: accumulate per CTA in shared memory (privatisation) "
             "and update global memory once per element at the end", s->addr.text);
    suggest(s, CC_SUGGEST_SHARED_MEMORY, text);
    return;
  }
  snprintf(text, sizeof text,
           "the lanes %s data-dependent elements (%s), so no permutation of the threads makes "
           "the accesses regular: order the data (or the indices) so that neighbouring threads "
           "use neighbouring elements", verb(s->info.kind), s->addr.text);
  suggest(s, CC_SUGGEST_NONE, text);
}

/* threadIdx.x already has the unit stride, but the block is narrower than a warp: each
 * warp holds 32 / blockDim.x pieces of rows (Rodinia's 16x16 blocks: two half-rows of 64
 * bytes), which sectors at unaligned starts cut further. No permutation helps (x is
 * already right); a block 32 or more wide in x does (CUDA C Programming Guide, "Device
 * Memory Accesses": a warp's 32 consecutive words are its ideal). */
static void suggest_narrow_block(const struct cc_kernel_stats *k, struct cc_insn_stats *s)
{
  char text[768], sy[96];
  uint32_t rows = 32 / k->block[0] ? 32 / k->block[0] : 1;
  int64_t y = s->addr.tid[1].bytes;
  in_elements(&s->info, magnitude(y), sy, sizeof sy);
  snprintf(text, sizeof text,
           "threadIdx.x already moves the address by one element, but the block is only %"
           PRIu32 " threads wide in x, so each warp reads %" PRIu32 " pieces of %" PRIu32
           " elements (threadIdx.y moves the address %" PRId64 " bytes = %s), and a piece "
           "that does not start on a 32-byte boundary touches one sector more: make "
           "blockDim.x a multiple of 32 (e.g. %" PRIu32 " x %" PRIu32 " instead of %" PRIu32
           " x %" PRIu32 ") with the same threads per block, so that a warp reads one "
           "contiguous run; no permutation of the threads helps",
           k->block[0], rows, k->block[0], y, sy, 32u,
           k->block[0] * k->block[1] / 32 ? k->block[0] * k->block[1] / 32 : 1, k->block[0],
           k->block[1]);
  suggest(s, CC_SUGGEST_THREAD_GEOMETRY, text);
}

/* The advice of an uncoalesced global access from its static form (analysis.h,
 * cc_analysis_set_forms); 0 when the form does not decide it (not affine, a stride
 * unknown, threadIdx.x already contiguous) and the dynamic rules apply. */
static int suggest_from_form(const struct cc_kernel_stats *k, struct cc_insn_stats *s)
{
  char text[768], sx[96], elems[96];
  uint64_t bound = cc_access_coalesced_stride(s->info.space, s->info.size_bytes);
  const struct cc_addr_loop *loop;
  int best = -1;
  if (s->addr.status == CC_ADDR_NOT_AFFINE && s->addr.kind &&
      strcmp(s->addr.kind, "indirect") == 0) {
    suggest_indirect(s);
    return 1;
  }
  if (s->addr.status == CC_ADDR_AFFINE && cc_analysis_addr_class(s, 0) == CC_ADDR_UNIT &&
      k->block[0] < 32 && k->block[0] * k->block[1] * k->block[2] > k->block[0]) {
    suggest_narrow_block(k, s);
    return 1;
  }
  if (s->addr.status != CC_ADDR_AFFINE || cc_analysis_addr_class(s, 0) != CC_ADDR_LARGE)
    return 0;
  /* a dimension that threads span (blockDim > 1: a permutation maps the launch's threads
   * onto themselves, so one of extent 1 cannot take threadIdx.x's lanes) with a unit
   * stride, else a zero one (the lanes would share one element) */
  for (uint32_t d = 1; d < 3; d++) {
    enum cc_addr_class c = cc_analysis_addr_class(s, d);
    if (k->block[d] > 1 && (c == CC_ADDR_UNIT || c == CC_ADDR_ZERO) &&
        (best < 0 || magnitude(s->addr.tid[d].bytes) > magnitude(s->addr.tid[best].bytes)))
      best = (int)d;
  }
  if (best > 0) {
    suggest_swap(k, s, (uint32_t)best);
    return 1;
  }
  in_elements(&s->info, magnitude(s->addr.tid[0].bytes), sx, sizeof sx);
  if ((loop = walking_loop(s, bound)) != NULL) {
    in_elements(&s->info, magnitude(loop->stride.bytes), elems, sizeof elems);
    snprintf(text, sizeof text,
             "each thread walks its own contiguous run: one iteration of the loop at line %"
             PRIu32 " moves the address %" PRId64 " bytes (%s) while threadIdx.x moves it %"
             PRId64 " bytes (%s), and no thread dimension has a unit stride, so no "
             "permutation of threadIdx helps; hand the loop's index to the lanes instead: "
             "loop lifting (the threads of a warp take consecutive iterations) or reduction "
             "redistribution (the lanes of a warp share each run and combine their sums), "
             "`coalcheck fix` (which tries both; or --transform lift|redistribute); or store "
             "the array transposed",
             loop->line, loop->stride.bytes, elems, s->addr.tid[0].bytes, sx);
    suggest(s, CC_SUGGEST_LOOP, text);
    return 1;
  }
  if (!s->all_coalescable && !s->line_all_coalescable)
    return 0; /* the dynamic "cannot be all coalesced" says why, with the gaps */
  snprintf(text, sizeof text,
           "no thread dimension moves the address by at most %" PRIu64 " bytes (threadIdx.x "
           "moves it %" PRId64 " bytes = %s) and no loop walks it contiguously, so no "
           "permutation of threadIdx coalesces it although the executions together cover "
           "contiguous memory (another index, e.g. blockIdx, walks it): change the indexing",
           bound, s->addr.tid[0].bytes, sx);
  suggest(s, CC_SUGGEST_NONE, text);
  return 1;
}

/* The advice for s; fields: how many other instructions read other fields of its
 * array of structures (field_counts). */
static void suggest_global(const struct cc_kernel_stats *k, struct cc_insn_stats *s,
                           size_t fields)
{
  char text[512], elems[96], all[96];
  if (s->verdict == CC_VERDICT_COALESCED)
    return;
  if (s->info.space == CC_SPACE_LOCAL) {
    suggest_local(s);
    return;
  }
  if (fields > 0) {
    uint64_t S = s->lane_stride;
    in_elements(&s->info, S, elems, sizeof elems);
    snprintf(text, sizeof text,
             "lanes of a warp are %" PRIu64 " bytes (%s) apart and %zu other instruction%s "
             "%s neighbouring fields of the same %" PRIu64 "-byte elements: store each "
             "field in its own array (AoS -> SoA) so that consecutive threads %s "
             "consecutive elements",
             S, elems, fields, fields == 1 ? "" : "s",
             fields == 1 ? "accesses" : "access", S, verb(s->info.kind));
    suggest(s, CC_SUGGEST_LAYOUT, text);
  }
  if (suggest_from_form(k, s))
    return;
  in_elements(&s->info, s->stride_max, elems, sizeof elems);
  /* the instruction alone or its whole reference: either being contiguous is enough for
   * a thread remapping to help */
  if (!s->all_coalescable && !s->line_all_coalescable) {
    char copies[96] = "";
    /* name the smaller of the two gaps, and where it comes from */
    int line = s->line_insns > 1 && s->line_all_stride < s->all_stride;
    uint64_t gap = line ? s->line_all_stride : s->all_stride;
    in_elements(&s->info, gap, all, sizeof all);
    if (line)
      snprintf(copies, sizeof copies, " of the %" PRIu32 " instructions of this source line",
               s->line_insns);
    snprintf(text, sizeof text,
             "cannot be all coalesced: lanes of a warp are %" PRIu64 " bytes (%s) apart and "
             "even all executions%s together leave gaps of %" PRIu64 " bytes (%s), so no "
             "remapping of threads makes the accesses contiguous",
             s->stride_max, elems, copies, gap, all);
    suggest(s, CC_SUGGEST_NONE, text);
    return;
  }
  if ((uint64_t)k->grid[1] * k->block[1] == 1 && (uint64_t)k->grid[2] * k->block[2] == 1) {
    /* a 1-D launch has no other thread index to take x's place (CGO 2015's swap needs
       one): what covers the gaps is another index, a loop of the thread (PolyBench's
       triangular row loops, whose bounds the static form cannot follow) or blockIdx */
    snprintf(text, sizeof text,
             "lanes of a warp are %" PRIu64 " bytes (%s) apart, though all executions "
             "together cover contiguous memory; the launch is 1-D, so no other thread index "
             "can take threadIdx.x's place: hand a loop of the thread to the lanes (loop "
             "lifting or reduction redistribution, `coalcheck fix --transform "
             "lift|redistribute`), or store the array transposed", s->stride_max, elems);
    suggest(s, CC_SUGGEST_LOOP, text);
    suggest_staging(s, s->stride_max);
    return;
  }
  snprintf(text, sizeof text,
           "lanes of a warp are %" PRIu64 " bytes (%s) apart: consecutive threadIdx.x should "
           "%s consecutive elements; swap the roles of threadIdx.x and threadIdx.y (thread-"
           "geometry transformation)", s->stride_max, elems, verb(s->info.kind));
  suggest(s, CC_SUGGEST_THREAD_GEOMETRY, text);
  suggest_staging(s, s->stride_max);
}

/* Footprint range of s; 0 when it is empty. */
static int fp_range(const struct cc_insn_stats *s, uint64_t *lo, uint64_t *hi)
{
  return cc_analysis_fp_min(s->footprint, lo) && cc_analysis_fp_max(s->footprint, hi);
}

/* The source name in a PTX variable name: the last <length><identifier> of an Itanium
 * mangled name ("_ZZ15transpose_tiledPfPKfiE4tile" -> "tile", "_ZN2ns4tileE" -> "tile",
 * a "_0" discriminator dropped), or the name itself when it is not mangled. Writes at
 * most cap - 1 bytes. */
static void source_var_name(const char *name, char *buf, size_t cap)
{
  const char *best = NULL, *p = name;
  size_t best_len = 0;
  if (strncmp(name, "_Z", 2) != 0) {
    snprintf(buf, cap, "%s", name);
    return;
  }
  while (*p) {
    char *end;
    unsigned long len;
    size_t ok = 0;
    if (*p < '1' || *p > '9' || (p > name && p[-1] >= '0' && p[-1] <= '9')) {
      p++;
      continue;
    }
    len = strtoul(p, &end, 10);
    while (ok < len && end[ok] && (end[ok] == '_' || isalnum((unsigned char)end[ok])))
      ok++;
    if (ok != len || len == 0) {
      p = end;
      continue;
    }
    best = end;
    best_len = len;
    p = end + len;
  }
  if (best)
    snprintf(buf, cap, "%.*s", (int)best_len, best);
  else
    snprintf(buf, cap, "%s", name);
}

/* The .shared variable of k holding every address of s (its footprint and the access
 * size), or NULL (not known: a trace or the GPU backend; or several variables). */
static const struct cc_shared_var *shared_array(const struct cc_kernel_stats *k,
                                                const struct cc_insn_stats *s)
{
  uint64_t lo, hi;
  if (!fp_range(s, &lo, &hi))
    return NULL;
  hi += s->info.size_bytes; /* one past the last byte */
  for (size_t i = 0; i < k->n_shared_vars; i++) {
    const struct cc_shared_var *v = &k->shared_vars[i];
    if (lo >= v->offset && (v->size_bytes == 0 || hi <= v->offset + v->size_bytes))
      return v;
  }
  return NULL;
}

/* The advice for a bank conflict (ways > 1). Shared memory has 32 banks of 4-byte words
 * (sm_90; MODELS.md): an access of u = max(size, 4) bytes is served in phases of 128 / u
 * lanes, and lanes a uniform S bytes apart, S a multiple of u, hit S / u u-byte units
 * apart: gcd(S / u, 128 / u) of them share a bank in one phase. So with S / u even (a
 * column of a 2-D array whose rows are a multiple of 2u bytes long) padding each row by
 * u bytes makes S / u odd, and the column conflict-free: tile[32][32] floats -> [32][33]
 * (CUDA C Best Practices Guide, "Shared Memory in Matrix Multiplication"; the transpose of
 * examples/transpose). Otherwise (no single stride between lanes: a data-dependent
 * index, or several rows per warp) padding rows is no sure cure, and the text says so;
 * without a measured lane stride (an imported kernel) the padding advice is conditional. */
static void suggest_shared(const struct cc_kernel_stats *k, struct cc_insn_stats *s)
{
  /* sized for the longest of each part, so that no advice is cut (gcc -O0
   * -Wformat-truncation checks it) */
  char text[1024], row[96], pad[64], array[320] = "", raw[96] = "", name[100];
  const struct cc_shared_var *v = shared_array(k, s);
  uint64_t S = s->lane_stride, u = s->info.size_bytes > 4 ? s->info.size_bytes : 4;
  uint32_t size = s->info.size_bytes;
  if (s->ways_max <= 1)
    return;
  if (v)
    source_var_name(v->name, raw, sizeof raw);
  snprintf(name, sizeof name, v ? "'%s'" : "the shared array", raw);
  if (S == CC_LANE_STRIDE_MIXED) {
    in_elements(&s->info, s->stride_max, row, sizeof row);
    snprintf(text, sizeof text,
             "%" PRIu32 "-way bank conflict in %s: lanes of a warp reach different words of "
             "one bank (up to %" PRIu64 " bytes apart, %s) with no single stride between "
             "lanes (a data-dependent index, or several rows per warp); padding rows does not "
             "remove conflicts that depend on the data; when the lanes walk a column of a 2-D "
             "array, make its rows an odd number of %" PRIu64 "-byte words long",
             s->ways_max, name, s->stride_max, row, u);
    suggest(s, CC_SUGGEST_LAYOUT, text);
    return;
  }
  if (S == CC_LANE_STRIDE_NONE || S % u != 0 || (S / u) % 2) {
    /* no lane stride measured (the GPU backend), or one that row padding does not fix */
    in_elements(&s->info, s->stride_max, row, sizeof row);
    snprintf(text, sizeof text,
             "%" PRIu32 "-way bank conflict in %s: lanes of a warp reach different words of "
             "one bank (up to %" PRIu64 " bytes apart, %s); when they walk a column of a 2-D "
             "array whose rows are an even number of %" PRIu64 "-byte words long, pad each "
             "row by %" PRIu64 " bytes", s->ways_max, name, s->stride_max, row, u, u);
    suggest(s, CC_SUGGEST_LAYOUT, text);
    return;
  }
  in_elements(&s->info, S, row, sizeof row);
  in_elements(&s->info, u, pad, sizeof pad);
  if (v && v->size_bytes && v->size_bytes % S == 0 && S % size == 0 && u % size == 0)
    snprintf(array, sizeof array, ": declare %s[%" PRIu64 "][%" PRIu64 "] instead of %s[%"
             PRIu64 "][%" PRIu64 "]", raw, v->size_bytes / S, (S + u) / size, raw,
             v->size_bytes / S, S / size);
  snprintf(text, sizeof text,
           "%" PRIu32 "-way bank conflict: lanes of a warp are %" PRIu64 " bytes (%s) apart, "
           "down a column of %s whose rows are %s long, an even number of %" PRIu64 "-byte "
           "words; pad each row by %s (%" PRIu64 " bytes) so that rows are an odd number of "
           "words long%s",
           s->ways_max, S, row, name, row, u, pad, u, array);
  suggest(s, CC_SUGGEST_LAYOUT, text);
}

/* Algorithm 1, lines 28-44: allStr over the footprint, then the verdict. */
static void verdict(struct cc_insn_stats *s)
{
  if (s->stride_count == 0)
    s->stride_min = 0; /* no pair of active lanes in any group: no stride */
  s->all_stride = cc_analysis_fp_max_gap(s->footprint);
  uint32_t bound = cc_access_coalesced_stride(s->info.space, s->info.size_bytes);
  s->verdict = s->stride_max <= bound ? CC_VERDICT_COALESCED : CC_VERDICT_UNCOALESCED;
  s->all_coalescable = s->all_stride <= bound;
  s->excess_sectors = s->sectors - s->ideal_sectors;
}

static int same_str(const char *a, const char *b)
{
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* The kernel's own source file: that of its lowest-id instruction whose .loc is not
 * inlined (the kernel body), or NULL. */
static const char *kernel_file(const struct cc_kernel_stats *k)
{
  const struct cc_insn_stats *best = NULL;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (s->info.file && !s->info.inlined_file && (!best || s->info.id < best->info.id))
      best = s;
  }
  return best ? best->info.file : NULL;
}

/* source / inlined_from of every instruction (analysis.h): the chain is [the .loc, its
 * inlined_at]; the innermost one in the kernel's file, else the outermost. */
static void resolve_sources(struct cc_kernel_stats *k)
{
  const char *own = kernel_file(k);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    const struct cc_insn_info *in = &s->info;
    s->source = (struct cc_source_loc){ in->file, in->line, in->column };
    s->inlined_from = (struct cc_source_loc){ NULL, 0, 0 };
    if (in->inlined_file && !(own && same_str(in->file, own))) {
      s->source = (struct cc_source_loc){ in->inlined_file, in->inlined_line, 0 };
      s->inlined_from = (struct cc_source_loc){ in->file, in->line, in->column };
    }
  }
}

/* Order of source lines: by file (no file last), then line. */
static int cmp_loc(const char *fa, uint32_t la, const char *fb, uint32_t lb)
{
  if (!fa || !fb) {
    if (fa != fb)
      return fa ? -1 : 1;
  } else {
    int c = strcmp(fa, fb);
    if (c)
      return c;
  }
  return (la > lb) - (la < lb);
}

/* Whether s can join a source-level reference with others (analysis.h): it ran, has a
 * source file and a footprint (its range in *lo, *hi). Instructions that never ran (an
 * unrolled loop's remainder) have no footprint and join none. */
static int joins_reference(const struct cc_insn_stats *s, uint64_t *lo, uint64_t *hi)
{
  return s->executions && s->source.file && cc_analysis_fp_min(s->footprint, lo) &&
         cc_analysis_fp_max(s->footprint, hi);
}

/* An instruction of a reference, with its footprint range (reference_strides). */
struct ref_entry {
  const struct cc_insn_stats *s;
  size_t insn;
  uint64_t lo, hi;
};

/* Order of copies of one reference together (same source, inlined_from, kind, space and
 * access size), then by the start of the footprint. */
static int cmp_ref(const void *pa, const void *pb)
{
  const struct ref_entry *x = pa, *y = pb;
  const struct cc_insn_stats *a = x->s, *b = y->s;
  int c = cmp_loc(a->source.file, a->source.line, b->source.file, b->source.line);
  if (!c)
    c = cmp_loc(a->inlined_from.file, a->inlined_from.line, b->inlined_from.file,
                b->inlined_from.line);
  if (!c)
    c = ((int)a->info.kind > (int)b->info.kind) - ((int)a->info.kind < (int)b->info.kind);
  if (!c)
    c = ((int)a->info.space > (int)b->info.space) - ((int)a->info.space < (int)b->info.space);
  if (!c)
    c = (a->info.size_bytes > b->info.size_bytes) - (a->info.size_bytes < b->info.size_bytes);
  if (!c)
    c = (x->lo > y->lo) - (x->lo < y->lo);
  return c;
}

static void set_reference(struct cc_insn_stats *s, uint64_t gap, size_t n)
{
  s->line_all_stride = gap;
  s->line_all_coalescable = gap <= s->info.size_bytes;
  s->line_insns = (uint32_t)n;
}

/* line_all_stride of every instruction: allStr over the union of the footprints of its
 * reference's copies whose address ranges overlap, transitively: the copies of an
 * unrolled loop read one array, while one source line that reads two arrays (a[i] +
 * b[i], each unrolled) has two references, whose union would only measure the distance
 * between the arrays. The copies are sorted by reference and range start; a run whose
 * ranges chain (each starts at or before the largest end so far) is one group: one merge
 * per group, n log n in all. */
static void reference_strides(struct cc_kernel_stats *k)
{
  size_t n_insns = k->n_insns ? k->n_insns : 1, n = 0;
  struct ref_entry *e = cc_xcalloc(n_insns, sizeof *e);
  const struct cc_footprint **fps = cc_xcalloc(n_insns, sizeof *fps);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    if (joins_reference(s, &e[n].lo, &e[n].hi)) {
      e[n].s = s;
      e[n++].insn = i;
    } else {
      set_reference(s, s->all_stride, 1);
    }
  }
  qsort(e, n, sizeof *e, cmp_ref);
  for (size_t first = 0, last; first < n; first = last) {
    uint64_t hi = e[first].hi, gap;
    struct ref_entry key = e[first];
    for (last = first + 1; last < n; last++) {
      key.lo = e[last].lo; /* compare the reference only */
      if (cmp_ref(&key, &e[last]) != 0 || e[last].lo > hi)
        break;
      hi = e[last].hi > hi ? e[last].hi : hi;
    }
    for (size_t m = first; m < last; m++)
      fps[m - first] = e[m].s->footprint;
    gap = last - first == 1 ? e[first].s->all_stride
                            : cc_analysis_fp_max_gap_union(fps, last - first);
    for (size_t m = first; m < last; m++)
      set_reference(&k->insns[e[m].insn], gap, last - first);
  }
  free(fps);
  free(e);
}

/* qsort over instruction pointers by their source line (line_summary). */
static int cmp_insn_line(const void *pa, const void *pb)
{
  const struct cc_insn_stats *a = *(const struct cc_insn_stats *const *)pa;
  const struct cc_insn_stats *b = *(const struct cc_insn_stats *const *)pb;
  return cmp_loc(a->source.file, a->source.line, b->source.file, b->source.line);
}

/* k->lines: the instructions summed per source line, in cmp_loc order. The instructions
 * are sorted by line first (n log n: a kernel of many lines must not cost n^2). */
static void line_summary(struct cc_kernel_stats *k)
{
  const struct cc_insn_stats **by_line = cc_xcalloc(k->n_insns ? k->n_insns : 1,
                                                    sizeof *by_line);
  free(k->lines);
  k->lines = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *k->lines);
  k->n_lines = 0;
  for (size_t i = 0; i < k->n_insns; i++)
    by_line[i] = &k->insns[i];
  qsort(by_line, k->n_insns, sizeof *by_line, cmp_insn_line);
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = by_line[i];
    struct cc_line_stats *l = k->n_lines ? &k->lines[k->n_lines - 1] : NULL;
    if (!l || cmp_loc(l->file, l->line, s->source.file, s->source.line) != 0) {
      l = &k->lines[k->n_lines++];
      l->file = s->source.file;
      l->line = s->source.line;
    }
    l->n_insns++;
    l->executions += s->executions;
    l->requests += s->requests;
    l->thread_accesses += s->thread_accesses;
    l->bytes_requested += s->bytes_requested;
    l->bytes_transferred += s->bytes_transferred;
    l->sectors += s->sectors;
    l->ideal_sectors += s->ideal_sectors;
    l->excess_sectors += s->excess_sectors;
    l->wavefronts += s->wavefronts;
    l->ideal_wavefronts += s->ideal_wavefronts;
    l->uncoalesced_thread_accesses += s->uncoalesced_thread_accesses;
    l->unknown |= s->unknown & CC_UNKNOWN_UNCOALESCED;
  }
  free(by_line);
}

static void add_totals(struct cc_kernel_totals *t, const struct cc_insn_stats *s)
{
  if (is_global(s)) {
    t->requests += s->requests;
    t->sectors += s->sectors;
    t->ideal_sectors += s->ideal_sectors;
    t->excess_sectors += s->excess_sectors;
    t->bytes_requested += s->bytes_requested;
    t->bytes_transferred += s->bytes_transferred;
    t->unique_bytes += s->unique_bytes;
    t->thread_accesses += s->thread_accesses;
    t->uncoalesced_thread_accesses += s->uncoalesced_thread_accesses;
    t->unknown |= s->unknown & (CC_UNKNOWN_UNIQUE_BYTES | CC_UNKNOWN_UNCOALESCED);
  } else {
    t->wavefronts += s->wavefronts;
    t->ideal_wavefronts += s->ideal_wavefronts;
    t->conflict_requests += s->conflict_requests;
    t->unknown |= s->unknown & CC_UNKNOWN_CONFLICTS;
  }
}

/* Excess units of an instruction: sectors over the ideal, plus wavefronts over the ideal. */
static uint64_t excess(const struct cc_insn_stats *s)
{
  return s->excess_sectors + (s->wavefronts - s->ideal_wavefronts);
}

/* Worst first: the largest estimated gain (cached kernels; gains below a nanosecond are
 * ties), then the most excess, then ptx_index. */
static int cmp_worst_first(const void *pa, const void *pb)
{
  const struct cc_insn_stats *a = pa, *b = pb;
  uint64_t ea = excess(a), eb = excess(b);
  if (a->gain_us > b->gain_us + 1e-3 || b->gain_us > a->gain_us + 1e-3)
    return a->gain_us > b->gain_us ? -1 : 1;
  if (ea != eb)
    return ea > eb ? -1 : 1;
  return (a->info.id > b->info.id) - (a->info.id < b->info.id);
}

/* An instruction a coalescing fix is about: global or local, executed, uncoalesced. */
static int fixable(const struct cc_insn_stats *s)
{
  return is_global(s) && s->requests && s->verdict == CC_VERDICT_UNCOALESCED;
}

/* The kernel's cache totals (the instructions' sums), its time estimate, and for each
 * uncoalesced global or local instruction the sums over the uncoalesced instructions of
 * its source line with its inlined_from, kind, space and size (an unrolled loop's copies,
 * which one fix at the source coalesces together; itself alone without a source file)
 * and the gain of coalescing them (cache/cache.h). The copies are sorted together by
 * cmp_ref (footprint ranges left 0: every array of the line counts): n log n. */
static void cache_figures(struct cc_kernel_stats *k)
{
  size_t n = 0;
  struct ref_entry *e = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *e);
  memset(&k->cache.total, 0, sizeof k->cache.total);
  for (size_t i = 0; i < k->n_insns; i++)
    cc_cache_counts_add(&k->cache.total, &k->insns[i].cache);
  cc_cache_estimate(k->device, &k->cache, &k->time);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    memset(&s->ref_cache, 0, sizeof s->ref_cache);
    s->ref_requests = s->ref_ideal_sectors = 0;
    s->gain_us = 0;
    if (fixable(s)) {
      e[n].s = s;
      e[n++].insn = i;
    }
  }
  qsort(e, n, sizeof *e, cmp_ref);
  for (size_t first = 0, last; first < n; first = last) {
    struct cc_cache_counts sum = {0};
    uint64_t requests = 0, ideal = 0;
    double gain;
    for (last = first; last < n; last++) {
      if (last > first && (!e[first].s->source.file || cmp_ref(&e[first], &e[last]) != 0))
        break;
      cc_cache_counts_add(&sum, &e[last].s->cache);
      requests += e[last].s->requests;
      ideal += e[last].s->ideal_sectors;
    }
    gain = cc_cache_fix_gain_us(k->device, &k->cache, &sum, requests, ideal, NULL);
    for (size_t m = first; m < last; m++) {
      struct cc_insn_stats *s = &k->insns[e[m].insn];
      s->ref_cache = sum;
      s->ref_requests = requests;
      s->ref_ideal_sectors = ideal;
      s->gain_us = gain;
    }
  }
  free(e);
}

void cc_analysis_finalize_kernel(struct cc_kernel_stats *k)
{
  size_t *fields;
  memset(&k->totals, 0, sizeof k->totals);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    for (size_t j = 0; j < s->n_suggestions; j++)
      free(s->suggestions[j].text);
    s->n_suggestions = 0;
    verdict(s);
  }
  resolve_sources(k);
  reference_strides(k);
  /* suggestions look at other instructions' verdicts and footprints: a second pass */
  fields = field_counts(k);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    if (is_global(s))
      suggest_global(k, s, fields[i]);
    else
      suggest_shared(k, s);
    add_totals(&k->totals, s);
  }
  free(fields);
  if (k->cached)
    cache_figures(k);
  qsort(k->insns, k->n_insns, sizeof *k->insns, cmp_worst_first);
  for (size_t i = 0; i < k->n_insns; i++)
    k->by_slot[k->insns[i].slot] = i;
  line_summary(k);
  k->finished = 1;
}
