/* coalcheck analysis: per-kernel, per-instruction statistics of an access stream.
 *
 * A struct cc_analysis is a consumer of the access stream (cc_analysis_sink gives the
 * struct cc_access_sink). For every kernel of the stream (begin_kernel .. end_kernel,
 * repeated) and every static memory instruction it keeps:
 *   - counts: executions (warp records), thread accesses, bytes requested;
 *   - the model's figures summed (model/model.h): requests, transactions, bytes moved,
 *     sectors, ideal sectors, lines, a histogram of sectors per request; for shared
 *     memory, the largest conflict ways, wavefronts, ideal wavefronts and the requests
 *     with a conflict;
 *   - CGO 2015 Algorithm 1 (seeds/004, lines ~100-145): strides between neighbouring
 *     sorted addresses of each group of W lanes, the whole-footprint stride allStr, the
 *     verdict and suggestions.
 * Memory is bounded by the instructions' footprints, never by the number of records: the
 * footprint is a sparse bitmap of the distinct lane addresses (analysis/footprint.h).
 *
 * After end_kernel the kernel's results are final and readable through the public
 * fields below (the report and the tests read them directly). */
#ifndef CC_ANALYSIS_ANALYSIS_H
#define CC_ANALYSIS_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "cache/cache.h"
#include "model/model.h"
#include "util/err.h"

/* Buckets of the sectors-per-request histogram: [0] no sector (no active lane),
 * [1..31] exactly that many, [32] 32 or more. */
#define CC_ANALYSIS_HIST_BUCKETS 33

enum cc_verdict { CC_VERDICT_COALESCED, CC_VERDICT_UNCOALESCED };

enum cc_suggestion_kind {
  CC_SUGGEST_NONE,            /* "none": nothing a remapping can fix (allStr > size) */
  CC_SUGGEST_THREAD_GEOMETRY, /* "thread-geometry": permute threadIdx dimensions */
  CC_SUGGEST_SHARED_MEMORY,   /* "shared-memory": stage loads through shared memory */
  CC_SUGGEST_LAYOUT,          /* "layout": AoS -> SoA, or padding of a shared array */
  CC_SUGGEST_LOCAL_ARRAY      /* "local-array": an uncoalesced local access (lanes index a
                                 per-thread array differently): a warp-uniform index,
                                 registers, or shared memory */
};

#define CC_ANALYSIS_MAX_SUGGESTIONS 3

struct cc_suggestion {
  enum cc_suggestion_kind kind;
  char *text;                 /* owned; one sentence naming the stride in elements and bytes */
};

struct cc_footprint;          /* analysis/footprint.h */

/* A source location; file NULL: none (borrowed from the instruction's info strings). */
struct cc_source_loc {
  const char *file;
  uint32_t line, column;      /* 0: unknown */
};

/* lane_stride values that are not a stride */
#define CC_LANE_STRIDE_NONE 0u            /* no record had two active lanes */
#define CC_LANE_STRIDE_MIXED UINT64_MAX   /* not one uniform positive stride */

/* Everything known about one static memory instruction of one kernel. */
struct cc_insn_stats {
  /* the instruction (strings owned, copied from the stream's cc_insn_info) */
  struct cc_insn_info info;
  uint32_t slot;              /* position in the kernel's cc_kernel_info.insns */

  /* counts */
  uint64_t executions;        /* warp records = warp-level requests of the program */
  uint64_t thread_accesses;   /* active lanes summed */
  uint64_t bytes_requested;   /* active lanes x size_bytes summed */

  /* global/local model figures, summed over the records (0 for shared) */
  uint64_t requests, transactions, bytes_transferred, sectors, ideal_sectors, lines;
  uint64_t excess_sectors;    /* sectors - ideal_sectors */
  uint64_t sector_hist[CC_ANALYSIS_HIST_BUCKETS];

  /* shared model figures (0 for global/local) */
  uint32_t ways_max;          /* worst conflict of any record (1 = none) */
  uint64_t wavefronts, ideal_wavefronts;
  uint64_t conflict_requests; /* records with ways > 1 */

  /* Algorithm 1. Strides are differences of neighbouring sorted addresses within one
   * group of W lanes, in bytes; stride_count = how many there were (0: no group had two
   * active lanes; then min = max = avg = 0). Local accesses: the addresses here, in the
   * lane stride and in the footprint (so allStr) are those of the hardware's interleaved
   * layout (cc_model_local_layout, model.h), not the per-thread offsets of the record. */
  uint64_t stride_min, stride_max;
  double stride_sum;          /* exact up to 2^53 */
  uint64_t stride_count;
  uint64_t uncoalesced_requests;        /* records with a group whose max stride > size */
  uint64_t uncoalesced_thread_accesses; /* active lanes of those groups (CGO Table 2) */
  struct cc_footprint *footprint;       /* owned: distinct lane addresses, all records */

  /* final results, set at end_kernel (and by cc_analysis_merge) */
  uint64_t all_stride;        /* allStr: largest gap between sorted distinct addresses */
  enum cc_verdict verdict;    /* coalesced iff stride_max <= size_bytes */
  int all_coalescable;        /* allStr <= size_bytes */
  size_t n_suggestions;
  struct cc_suggestion suggestions[CC_ANALYSIS_MAX_SUGGESTIONS];

  /* The source-level reference (the CGO paper's static_id names a reference of the
   * source; a loop unrolled N times makes N instructions of one reference): the
   * executed instructions of the kernel with the same source (below, inlined_from
   * included), kind, space and access size, whose footprint ranges overlap (transitively:
   * one array; a line reading two arrays has two references). line_all_stride is allStr
   * over the union of their footprints; the advice is "thread-geometry" when
   * all_coalescable or line_all_coalescable, "none" when neither (global; an
   * uncoalesced local access gets "local-array" instead). Instructions without a
   * source file are a reference of their own. Set at end_kernel. */
  uint64_t line_all_stride;
  int line_all_coalescable;   /* line_all_stride <= size_bytes */
  uint32_t line_insns;        /* instructions of the reference, this one included */

  /* Lane stride, for the layout (AoS) rule: the address difference per lane index
   * between active lanes of one record, (addr[l2] - addr[l1]) / (l2 - l1), when it is
   * one positive value for every pair of neighbouring active lanes of every record
   * (CC_LANE_STRIDE_NONE / _MIXED otherwise). Unlike the sorted-neighbour strides of
   * Algorithm 1 it does not count inactive lanes: every other lane of a float array has
   * lane stride 4, not 8. lanes_seen: OR of the records' active masks. */
  uint64_t lane_stride;
  uint32_t lanes_seen;

  /* Where the report places the instruction (set at end_kernel), from the .loc and its
   * inlined_at: the innermost location in the kernel's own source file (the file of
   * the kernel's .loc lines without inlined_at), else the outermost one. inlined_from:
   * the .loc's own location when it is not `source` (e.g. a CUDA header's atomicAdd),
   * else file NULL. cc_insn_info has one inlined_at level: the main command puts there
   * the innermost call site in the kernel's file, walking the whole chain
   * (cli/inline.c), so that two levels are enough here. */
  struct cc_source_loc source, inlined_from;

  /* Traffic beyond L1 (cache/cache.h), when the kernel's `cached` is set: L1 hits, L2
   * sectors, DRAM bytes, L1 wavefronts and load latencies of this instruction. For a
   * global or local instruction whose verdict is uncoalesced, ref_cache, ref_requests and
   * ref_ideal_sectors sum those of the uncoalesced instructions of its source-level
   * reference (same source line, inlined_from, kind, space and size: an unrolled loop's
   * copies, which one fix at the source coalesces together), and gain_us is what that
   * fix would save (cc_cache_fix_gain_us on those sums); all 0 otherwise. Set at
   * end_kernel. */
  struct cc_cache_counts cache;
  struct cc_cache_counts ref_cache;
  uint64_t ref_requests, ref_ideal_sectors;
  double gain_us;
};

/* One source line of a kernel: the sums over the instructions whose `source` is that
 * line (for comparisons per source line, e.g. with a GPU backend). */
struct cc_line_stats {
  const char *file;           /* borrowed from an instruction's info; NULL: no line info */
  uint32_t line;
  uint32_t n_insns;           /* instructions summed */
  uint64_t executions, requests, thread_accesses, bytes_requested, bytes_transferred;
  uint64_t sectors, ideal_sectors, excess_sectors;
  uint64_t wavefronts, ideal_wavefronts;
  uint64_t uncoalesced_thread_accesses;
};

/* What the producer reported about the run of a kernel (the emulator's struct
 * cc_emu_stats and its wall time); present 0 when nobody filled it. */
struct cc_kernel_run_stats {
  int present;
  uint64_t warp_insns;        /* warp-level instructions executed */
  uint64_t thread_insns;      /* active lanes summed over them */
  uint64_t warp_accesses;     /* warp access records delivered */
  double seconds;             /* wall time of the emulation */
};

/* Kernel totals. Global figures cover global and local instructions; shared ones shared
 * instructions. The CGO Table 2 pair counts global and local thread accesses. */
struct cc_kernel_totals {
  uint64_t requests, sectors, ideal_sectors, excess_sectors;
  uint64_t bytes_requested, bytes_transferred; /* global/local */
  uint64_t wavefronts, ideal_wavefronts, conflict_requests; /* shared */
  uint64_t thread_accesses;                    /* Table 2 "Total" */
  uint64_t uncoalesced_thread_accesses;        /* Table 2 "Uncoalesced" */
};

/* One kernel launch of the stream. */
struct cc_kernel_stats {
  char *name, *mangled;       /* owned */
  uint32_t grid[3], block[3];
  const char *arch;           /* the model's name (static storage) */
  struct cc_kernel_totals totals;
  size_t n_insns;
  struct cc_insn_stats *insns; /* after end_kernel: worst first (cached: largest gain_us;
                                  then excess sectors, shared: excess wavefronts; ties by
                                  ptx_index) */
  size_t *by_slot;            /* owned: insns index of each slot */
  int finished;               /* end_kernel seen */
  size_t n_lines;             /* after end_kernel: per source line sums, ordered by file */
  struct cc_line_stats *lines; /* owned; then line; file NULL last */
  struct cc_kernel_run_stats run; /* filled by the caller after the run (cli), or 0 */
  int imported;               /* figures handed in by cc_analysis_import_kernel (the GPU
                                 backend): no footprint was measured, so all_stride and
                                 line_all_stride are unknown (reported as such), and
                                 conflict_requests is a lower bound */
  /* The cache model's figures (cc_analysis_set_cache), or cached 0: not modelled (no
   * cache attached, cc1.x, imported kernels). cache.total sums the instructions' cache
   * counts; time is cc_cache_estimate's; device is the analysis's (borrowed). Worst-first
   * order puts the largest gain_us first when cached. */
  int cached;
  struct cc_cache_kernel cache;
  struct cc_cache_time time;
  const struct cc_cache_device *device;
};

struct cc_analysis {
  const struct cc_model *model; /* borrowed */
  struct cc_cache *cache;     /* owned, or NULL: no cache figures (cc_analysis_set_cache) */
  uint32_t group_lanes;       /* Algorithm 1's W */
  size_t n_kernels;
  struct cc_kernel_stats *kernels; /* in stream order */
  int open;                   /* between begin_kernel and end_kernel */
};

/* Makes an empty analysis using model m (borrowed: it must outlive the analysis). */
cc_give struct cc_analysis *cc_analysis_new(cc_keep const struct cc_model *m);
/* Hands the cache model c (taken; NULL: none) to an: from the next kernel on, every
 * record also goes through c (global and local through L1/L2/DRAM; local records in the
 * interleaved layout, 4 bytes a piece; shared records count the model's wavefronts),
 * and each kernel gets its cache figures, time estimate and per-instruction gains
 * (struct cc_kernel_stats: cached). A cache set earlier is freed. */
void cc_analysis_set_cache(struct cc_analysis *an, cc_take struct cc_cache *c);

/* Frees an and every result it holds (names, texts, footprints); NULL is allowed. */
void cc_analysis_free(cc_take struct cc_analysis *an);

/* The sink that feeds an (ctx = an). Errors from its callbacks: CC_ERR_INPUT for a record
 * that names no instruction of the kernel (insn_slot out of range) or has size 0;
 * CC_ERR_INTERNAL for callbacks out of order (access or end_kernel outside a kernel,
 * begin_kernel inside one). */
struct cc_access_sink cc_analysis_sink(cc_keep struct cc_analysis *an);

/* Merges the results of another shard of the same run into `into`: kernels are paired in
 * stream order, their instructions by ptx_index; counts add, minima and maxima combine,
 * footprints unite, and allStr, verdicts, suggestions and the order are computed again.
 * Both must be finished (no kernel open). from is left unchanged, and so is into on
 * failure. Errors: CC_ERR_INPUT when the shards differ in model (arch), in kernels (count
 * or mangled names) or in instruction ids; CC_ERR_INTERNAL when a kernel is open. */
int cc_analysis_merge(cc_keep struct cc_analysis *into, cc_keep const struct cc_analysis *from,
                      struct cc_err *err);

/* Average stride of Algorithm 1 in bytes: the mean of all neighbour differences of all
 * groups of all records (stride_sum / stride_count; 0 when there are none). The paper's
 * line 25 divides each group's running sum by W instead; we take the plain mean. */
double cc_analysis_stride_avg(const struct cc_insn_stats *s);

/* Efficiency, 0..1: global/local: bytes requested / bytes transferred; shared (nothing
 * transferred): ideal wavefronts / wavefronts; 1 when the instruction never ran. */
double cc_analysis_efficiency(const struct cc_insn_stats *s);

/* Bytes the footprint structure of s holds now (for memory tests and diagnostics). */
size_t cc_analysis_footprint_bytes(const struct cc_insn_stats *s);

/* Records the producer's counters for the last kernel of an (the one just run): what
 * the report prints as "emulated N thread-instructions in S s". No-op without kernels. */
void cc_analysis_set_run_stats(cc_keep struct cc_analysis *an,
                               const struct cc_kernel_run_stats *run);

/* "thread-geometry", "shared-memory", "layout", "none", "local-array" */
const char *cc_suggestion_kind_name(enum cc_suggestion_kind kind);
/* "coalesced", "uncoalesced" */
const char *cc_verdict_name(enum cc_verdict v);

/* ---- results measured elsewhere (the GPU backend, src/gpu) ---------------------------- */

/* What another backend measured for one static memory instruction, summed over its
 * executions: the figures the sink otherwise accumulates from warp records. The GPU
 * backend measures per SASS instruction on the device (src/gpu/README.md); it sees no
 * lane addresses after the fact, so no footprint: allStr (all_stride, line_all_stride)
 * comes out 0 and the "none" advice is never given. */
struct cc_insn_counts {
  uint64_t executions;        /* warp-level executions (requests on sm_90) */
  uint64_t thread_accesses;   /* active lanes summed */
  uint64_t bytes_requested;   /* active lanes x size summed */
  uint64_t sectors, ideal_sectors;        /* global and local (of the interleaved layout):
                                             32-byte sectors (0 for shared) */
  uint64_t wavefronts, ideal_wavefronts;  /* shared: wavefronts (0 for global and local) */
  uint32_t ways_max;          /* shared: worst conflict ways of one request (1: none) */
  uint64_t conflict_requests; /* shared: requests with ways > 1, when known (else 0) */
  uint64_t stride_count;      /* Algorithm 1 neighbour strides seen; 0: none. Local:
                                 strides of the interleaved addresses (as the sink's) */
  uint64_t stride_min, stride_max; /* bytes, when stride_count > 0 */
  double stride_sum;          /* bytes */
  uint64_t uncoalesced_thread_accesses; /* when known (else 0) */
};

/* Appends kernel ki to an as a finished kernel whose instruction ki->insns[i] has the
 * figures counts[i] (ki->n_insns of them), then computes what end_kernel computes:
 * verdicts, suggestions, source locations, totals, worst-first order, per-line sums
 * (global: bytes transferred = 32 x sectors, requests = executions; sector-based
 * architectures). Strings of ki are copied. Errors: CC_ERR_INPUT naming the instruction
 * when its figures contradict each other (ideal above actual, more lanes than 32 per
 * execution, stride min above max, size 0); CC_ERR_INTERNAL when a kernel is open. On
 * error an is unchanged. */
int cc_analysis_import_kernel(cc_keep struct cc_analysis *an,
                              cc_keep const struct cc_kernel_info *ki,
                              cc_keep const struct cc_insn_counts *counts, struct cc_err *err);

#endif
