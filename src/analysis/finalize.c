/* End of a kernel: allStr (per instruction and per source-level reference), verdict,
 * suggestions (CGO 2015 Algorithm 1, lines 28-44, plus the layout and bank-conflict
 * advice), source locations, totals, the worst-first order and the per-line sums. */
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

/* How many other global instructions of k read other fields of the same array of
 * structures as s: the same structure size S, a different offset modulo S, some lanes
 * in common (the same threads read the fields: K fields at distinct offsets), and
 * footprints that overlap (one array: the base register is not in the record). Branches
 * that split one array between different lanes (even lanes here, odd lanes there) have a
 * lane stride of one element, or no lane in common, and are not fields. */
static size_t neighbour_fields(const struct cc_kernel_stats *k, const struct cc_insn_stats *s)
{
  uint64_t S = struct_size(s), lo, hi, olo, ohi;
  size_t n = 0;
  if (!S || !cc_analysis_fp_min(s->footprint, &lo) || !cc_analysis_fp_max(s->footprint, &hi))
    return 0;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *o = &k->insns[i];
    if (o == s || struct_size(o) != S || !(o->lanes_seen & s->lanes_seen) ||
        !cc_analysis_fp_min(o->footprint, &olo) || !cc_analysis_fp_max(o->footprint, &ohi))
      continue;
    if (olo % S != lo % S && olo <= hi && lo <= ohi)
      n++;
  }
  return n;
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

static void suggest_global(const struct cc_kernel_stats *k, struct cc_insn_stats *s)
{
  char text[512], elems[96], all[96];
  size_t fields;
  if (s->verdict == CC_VERDICT_COALESCED)
    return;
  if (s->info.space == CC_SPACE_LOCAL) {
    suggest_local(s);
    return;
  }
  fields = neighbour_fields(k, s);
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
  snprintf(text, sizeof text,
           "lanes of a warp are %" PRIu64 " bytes (%s) apart: consecutive threadIdx.x should "
           "%s consecutive elements; swap the roles of threadIdx.x and threadIdx.y (thread-"
           "geometry transformation)", s->stride_max, elems, verb(s->info.kind));
  suggest(s, CC_SUGGEST_THREAD_GEOMETRY, text);
  if (s->info.kind == CC_ACCESS_LOAD) {
    snprintf(text, sizeof text,
             "or stage through shared memory: load a tile with consecutive threadIdx.x on "
             "consecutive elements, then read it from shared memory with the %" PRIu64
             "-byte stride (pad each tile row by one word against bank conflicts)",
             s->stride_max);
    suggest(s, CC_SUGGEST_SHARED_MEMORY, text);
  }
}

static void suggest_shared(struct cc_insn_stats *s)
{
  char text[512], elems[96];
  if (s->ways_max <= 1)
    return;
  in_elements(&s->info, s->stride_max, elems, sizeof elems);
  snprintf(text, sizeof text,
           "%" PRIu32 "-way bank conflict: lanes of a warp are up to %" PRIu64 " bytes (%s) "
           "apart and reach different words of one bank; pad each row of the shared array "
           "by one 4-byte word (e.g. [32][33]) or make the stride an odd number of words",
           s->ways_max, s->stride_max, elems);
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

/* Whether a and b are copies of one source-level reference (analysis.h); instructions
 * that never ran (an unrolled loop's remainder) have no footprint and join none. */
static int same_reference(const struct cc_insn_stats *a, const struct cc_insn_stats *b)
{
  return a->executions && b->executions && a->source.file && b->source.file &&
         a->source.line == b->source.line &&
         same_str(a->source.file, b->source.file) &&
         a->inlined_from.line == b->inlined_from.line &&
         same_str(a->inlined_from.file, b->inlined_from.file) &&
         a->info.kind == b->info.kind && a->info.space == b->info.space &&
         a->info.size_bytes == b->info.size_bytes;
}

/* Footprint range of s; 0 when it is empty. */
static int fp_range(const struct cc_insn_stats *s, uint64_t *lo, uint64_t *hi)
{
  return cc_analysis_fp_min(s->footprint, lo) && cc_analysis_fp_max(s->footprint, hi);
}

/* line_all_stride of every instruction: allStr over the union of the footprints of its
 * reference's copies (same_reference) whose address ranges overlap, transitively: the
 * copies of an unrolled loop read one array, while one source line that reads two arrays
 * (a[i] + b[i], each unrolled) has two references, whose union would only measure the
 * distance between the arrays. One merge per group. */
static void reference_strides(struct cc_kernel_stats *k)
{
  size_t n_insns = k->n_insns ? k->n_insns : 1;
  const struct cc_footprint **fps = cc_xcalloc(n_insns, sizeof *fps);
  char *done = cc_xcalloc(n_insns, 1);
  size_t *members = cc_xcalloc(n_insns, sizeof *members);
  for (size_t i = 0; i < k->n_insns; i++) {
    size_t n = 1;
    uint64_t gap, lo = 0, hi = 0;
    int grew = fp_range(&k->insns[i], &lo, &hi);
    if (done[i])
      continue;
    members[0] = i;
    done[i] = 1;
    while (grew) { /* add overlapping copies until the group's range stops growing */
      grew = 0;
      for (size_t j = i + 1; j < k->n_insns; j++) {
        uint64_t jlo, jhi;
        if (done[j] || !same_reference(&k->insns[i], &k->insns[j]) ||
            !fp_range(&k->insns[j], &jlo, &jhi) || jlo > hi || jhi < lo)
          continue;
        members[n++] = j;
        done[j] = 1;
        lo = jlo < lo ? jlo : lo;
        hi = jhi > hi ? jhi : hi;
        grew = 1;
      }
    }
    for (size_t m = 0; m < n; m++)
      fps[m] = k->insns[members[m]].footprint;
    gap = n == 1 ? k->insns[i].all_stride : cc_analysis_fp_max_gap_union(fps, n);
    for (size_t m = 0; m < n; m++) {
      struct cc_insn_stats *s = &k->insns[members[m]];
      s->line_all_stride = gap;
      s->line_all_coalescable = gap <= s->info.size_bytes;
      s->line_insns = (uint32_t)n;
    }
  }
  free(members);
  free(done);
  free(fps);
}

static int cmp_line(const void *pa, const void *pb)
{
  const struct cc_line_stats *a = pa, *b = pb;
  if (!a->file || !b->file) {
    if (a->file != b->file)
      return a->file ? -1 : 1;
  } else {
    int c = strcmp(a->file, b->file);
    if (c)
      return c;
  }
  return (a->line > b->line) - (a->line < b->line);
}

/* k->lines: the instructions summed per source line. */
static void line_summary(struct cc_kernel_stats *k)
{
  free(k->lines);
  k->lines = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof *k->lines);
  k->n_lines = 0;
  for (size_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    struct cc_line_stats *l = NULL;
    for (size_t j = 0; j < k->n_lines && !l; j++)
      if (same_str(k->lines[j].file, s->source.file) && k->lines[j].line == s->source.line)
        l = &k->lines[j];
    if (!l) {
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
  }
  qsort(k->lines, k->n_lines, sizeof *k->lines, cmp_line);
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
    t->thread_accesses += s->thread_accesses;
    t->uncoalesced_thread_accesses += s->uncoalesced_thread_accesses;
  } else {
    t->wavefronts += s->wavefronts;
    t->ideal_wavefronts += s->ideal_wavefronts;
    t->conflict_requests += s->conflict_requests;
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
 * uncoalesced global or local instruction the sums over its reference's uncoalesced
 * copies (same_reference, or itself without a source line) and the gain of coalescing
 * them (cache/cache.h). */
static void cache_figures(struct cc_kernel_stats *k)
{
  memset(&k->cache.total, 0, sizeof k->cache.total);
  for (size_t i = 0; i < k->n_insns; i++)
    cc_cache_counts_add(&k->cache.total, &k->insns[i].cache);
  cc_cache_estimate(k->device, &k->cache, &k->time);
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    memset(&s->ref_cache, 0, sizeof s->ref_cache);
    s->ref_requests = s->ref_ideal_sectors = 0;
    s->gain_us = 0;
    if (!fixable(s))
      continue;
    for (size_t j = 0; j < k->n_insns; j++) {
      const struct cc_insn_stats *t = &k->insns[j];
      if (!fixable(t) || (j != i && !same_reference(s, t)))
        continue;
      cc_cache_counts_add(&s->ref_cache, &t->cache);
      s->ref_requests += t->requests;
      s->ref_ideal_sectors += t->ideal_sectors;
    }
    s->gain_us = cc_cache_fix_gain_us(k->device, &k->cache, &s->ref_cache, s->ref_requests,
                                      s->ref_ideal_sectors, NULL);
  }
}

void cc_analysis_finalize_kernel(struct cc_kernel_stats *k)
{
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
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    if (is_global(s))
      suggest_global(k, s);
    else
      suggest_shared(s);
    add_totals(&k->totals, s);
  }
  if (k->cached)
    cache_figures(k);
  qsort(k->insns, k->n_insns, sizeof *k->insns, cmp_worst_first);
  for (size_t i = 0; i < k->n_insns; i++)
    k->by_slot[k->insns[i].slot] = i;
  line_summary(k);
  k->finished = 1;
}
