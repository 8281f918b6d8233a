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
  CC_SUGGEST_LOCAL_ARRAY,     /* "local-array": an uncoalesced local access (lanes index a
                                 per-thread array differently): a warp-uniform index,
                                 registers, or shared memory */
  CC_SUGGEST_LOOP             /* "loop": each thread walks contiguous memory in a loop
                                 while the threads stride widely (a gemv's rows): loop
                                 lifting or reduction redistribution, not a permutation */
};

#define CC_ANALYSIS_MAX_SUGGESTIONS 3

/* Figures a backend could not measure (kernels imported with cc_analysis_import_kernel,
 * where the sums do not fix them): bits of the `unknown` fields below. The reports write
 * such a figure as null (JSON) or "-" / "unknown" (text), never as 0. */
enum cc_unknown {
  CC_UNKNOWN_UNIQUE_BYTES = 1u << 0, /* unique_bytes, and so the global/local efficiency */
  CC_UNKNOWN_SECTOR_HIST = 1u << 1,  /* sector_hist */
  CC_UNKNOWN_UNCOALESCED = 1u << 2,  /* uncoalesced_requests, uncoalesced_thread_accesses */
  CC_UNKNOWN_CONFLICTS = 1u << 3     /* conflict_requests */
};

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

/* ---- static address forms (handed in by the caller) -------------------------------- */

/* What the static address analysis (src/affine) says about an instruction's address.
 * This module does not include src/affine (src/README.md): the command that ran both
 * copies the results in here (cc_analysis_set_forms), and the suggestions and the report
 * read them. */
enum cc_addr_status {
  CC_ADDR_NONE,               /* not analysed (a trace, the GPU backend's ./app mode) */
  CC_ADDR_AFFINE,             /* text is the form */
  CC_ADDR_NOT_AFFINE          /* text says why; kind names the reason */
};

/* Stride classes of CGO 2015 Sec. 4.2.2 (seeds/004): z, c, u. */
enum cc_addr_class { CC_ADDR_ZERO, CC_ADDR_UNIT, CC_ADDR_LARGE, CC_ADDR_UNKNOWN };

#define CC_ADDR_MAX_LOOPS 4

struct cc_addr_stride {
  int known;                  /* 0: a symbol of the coefficient has no value in the launch */
  int64_t bytes;              /* the change of the address when the index grows by one */
};

struct cc_addr_loop {
  uint32_t index;             /* the loop counter L<index> of the form */
  uint32_t line;              /* CUDA source line of the loop's header, or 0 */
  struct cc_addr_stride stride; /* bytes per iteration */
};

struct cc_addr_form {
  uint32_t id;                /* the instruction's ptx_index */
  const char *ptx;            /* cc_analysis_set_forms: its PTX text (cc_insn_info.text), to match
                                 (ids of called functions' instructions repeat); NULL: any.
                                 In cc_insn_stats: NULL */
  enum cc_addr_status status;
  const char *kind;           /* "affine", or why not: "indirect", "nonlinear", "control",
                                 "opaque" */
  const char *text;           /* the form in CUDA terms ("in + 4*tid.x + 4*n*tid.y"), or
                                 the reason ("the address depends on a value loaded at PTX
                                 line 48 (ld.global.u32)") */
  uint32_t why_line;          /* not affine: the PTX line that broke the form, or 0 */
  struct cc_addr_stride tid[3]; /* thread strides: threadIdx.x, .y, .z */
  uint32_t nloops;            /* loop counters the form depends on (at most the first
                                 CC_ADDR_MAX_LOOPS, by index) */
  struct cc_addr_loop loops[CC_ADDR_MAX_LOOPS];
};

/* A kernel's forms and the facts that go with them (all borrowed). */
struct cc_kernel_forms {
  const struct cc_addr_form *forms;
  size_t n;
  uint32_t warp_dependent_line; /* PTX line of the first instruction that makes a
                                   thread-geometry permutation observable (shfl, vote,
                                   %laneid, ...), or 0 */
  const char *warp_dependent_what; /* its opcode text, or NULL */
  const char *fix_command;    /* the command that applies a permutation to this launch
                                 ("coalcheck fix --launch FILE -o DIR"), or NULL */
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
  double bound_requests, bound_sectors; /* imported estimates (the GPU backend's fast
                                 mode): relative 95% bounds of requests and of sectors
                                 (shared: wavefronts); 0: exact; NAN: unknown */
  uint64_t max_dyn;           /* the most times one warp executed it (records' dyn + 1): a
                                 bound on any one thread's executions; 0 when the stream
                                 carries no dyn (GPU traces) */
  uint64_t thread_accesses;   /* active lanes summed */
  uint64_t bytes_requested;   /* active lanes x size_bytes summed */

  /* global/local: distinct bytes the active lanes of each record read or write, summed
   * over the records (of the interleaved layout for local; the model's unique_bytes):
   * at most bytes_requested (lanes that share bytes, a broadcast, count them once) and at
   * most bytes_transferred (every byte used is in a transaction); 0 for shared */
  uint64_t unique_bytes;
  unsigned unknown;           /* enum cc_unknown bits: figures not measured (imported) */

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
  /* The static form of the address (cc_analysis_set_forms; status CC_ADDR_NONE until
   * then); kind and text owned. */
  struct cc_addr_form addr;
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
  unsigned unknown;           /* CC_UNKNOWN_UNCOALESCED: some instruction's is unknown */
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
  uint64_t unique_bytes;                       /* global/local (cc_insn_stats) */
  uint64_t wavefronts, ideal_wavefronts, conflict_requests; /* shared */
  uint64_t thread_accesses;                    /* Table 2 "Total" */
  uint64_t uncoalesced_thread_accesses;        /* Table 2 "Uncoalesced" */
  unsigned unknown; /* enum cc_unknown bits: OR of its instructions' (global/local for
                       UNIQUE_BYTES and UNCOALESCED, shared for CONFLICTS) */
};

/* One kernel launch of the stream. */
/* How an imported kernel's figures were sampled (the GPU backend's fast mode,
 * src/gpu/sample.c): `launches` ran, `sampled` of them were measured, the rest
 * extrapolated per launch geometry; bounds relative, at 95% (NAN: unknown). present 0:
 * every launch measured (or an emulated kernel). */
struct cc_kernel_sampling {
  int present;
  uint64_t launches, sampled;
  uint64_t ctas, sampled_ctas; /* --gpu-mode inline --sample-ctas: the grid's CTAs and those
                                  counted, the rest extrapolated (0, 0: no CTA sampling) */
  double bound_requests, bound_sectors;
};

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
  int has_forms;              /* cc_analysis_set_forms was called for this kernel */
  uint32_t warp_dependent_line; /* of cc_kernel_forms; strings owned */
  char *warp_dependent_what, *fix_command;
  size_t n_shared_vars;       /* the kernel's .shared variables (cc_kernel_info), copied */
  struct cc_shared_var *shared_vars; /* owned, names too; NULL when not known */
  struct cc_kernel_sampling sampling; /* set by the importer after the import */
  int imported;               /* figures handed in by cc_analysis_import_kernel (the GPU
                                 backend): no footprint was measured, so all_stride and
                                 line_all_stride are unknown (reported as such); the
                                 instructions' `unknown` bits say what else is */
  /* The cache model's figures (cc_analysis_set_cache), or cached 0: not modelled (no
   * cache attached, cc1.x, imported kernels). cache.total sums the instructions' cache
   * counts; time is cc_cache_estimate's; device is the analysis's (borrowed). Worst-first
   * order puts the largest gain_us first when cached. */
  int cached;
  struct cc_cache_kernel cache;
  struct cc_cache_time time;
  const struct cc_cache_device *device;
};

/* Default of cc_analysis.mem_limit: 2 GiB. */
#define CC_ANALYSIS_MEM_DEFAULT ((size_t)2 << 30)

struct cc_analysis {
  const struct cc_model *model; /* borrowed */
  struct cc_cache *cache;     /* owned, or NULL: no cache figures (cc_analysis_set_cache) */
  uint32_t group_lanes;       /* Algorithm 1's W */
  size_t n_kernels, kernels_cap;
  struct cc_kernel_stats *kernels; /* in stream order */
  int open;                   /* between begin_kernel and end_kernel */
  /* Memory. The results grow with the stream's kernels, instructions, strings and the
   * footprints' distinct addresses (up to ~180 bytes per scattered address; a stream
   * read from a small trace file can name billions). mem_used counts the bytes they hold
   * (what was asked of malloc: tables, strings, footprints, suggestions) and those of the
   * cache model the analysis owns (cc_cache_bytes: its arrays, fixed by the device, and
   * the current kernel's per-instruction counters); the sink
   * refuses to go past mem_limit (bytes; 0: CC_ANALYSIS_MEM_DEFAULT) with CC_ERR_LIMIT.
   * Checked per record, after it: one record can pass the limit by one footprint array
   * doubling. */
  size_t mem_limit, mem_used;
  /* Set by cc_analysis_partials: the sink's access only checks records and feeds the
   * cache model; the figures come from partial states merged before end_kernel. */
  int split;
  /* While the open kernel's partials run (partial.c): the footprints they share, one per
   * instruction slot (fpshare.h), added to the kernel's when the last partial is
   * closed; the bytes their leaves may still take; the partials opened and those closed
   * (a partial combined into another counts at that one's close); whether a close
   * dropped its figures (then so are the shared ones). */
  struct cc_fp_shared **fps;
  size_t fps_n;
  int64_t fps_budget;
  uint32_t parts_opened, parts_closed;
  int parts_dropped;
};

/* Makes an empty analysis using model m (borrowed: it must outlive the analysis). */
cc_give struct cc_analysis *cc_analysis_new(cc_keep const struct cc_model *m);
/* Hands the cache model c (taken; NULL: none) to an: from the next kernel on, every
 * record also goes through c (global and local through L1/L2/DRAM; local records in the
 * interleaved layout, 4 bytes a piece; shared records count the model's wavefronts),
 * and each kernel gets its cache figures, time estimate and per-instruction gains
 * (struct cc_kernel_stats: cached). A cache set earlier is freed. c's bytes count in
 * an->mem_used from now on (a limit below them refuses the next kernel, CC_ERR_LIMIT). */
void cc_analysis_set_cache(struct cc_analysis *an, cc_take struct cc_cache *c);

/* Frees an and every result it holds (names, texts, footprints); NULL is allowed. */
void cc_analysis_free(cc_take struct cc_analysis *an);

/* The sink that feeds an (ctx = an). Errors from its callbacks: CC_ERR_INPUT for a record
 * that names no instruction of the kernel (insn_slot out of range) or whose size is 0 or
 * above CC_ACCESS_MAX_BYTES;
 * CC_ERR_LIMIT when the results would hold more than an->mem_limit bytes ("analysis
 * memory limit of N MiB reached in kernel K (...): raise it with --max-analysis-memory MIB";
 * with a cache model the parenthesis names its size and `--cache off`);
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

/* The order-free side of an (access.h, struct cc_access_partials; ctx = an), for a
 * producer on several threads (src/emu, --jobs): from now on, an's sink only checks the
 * records and feeds the cache model, which needs the serial order, and each partial
 * state accumulates the per-instruction figures of the records it is given (a table of
 * the open kernel's instructions, by slot, each with its footprint), independently of
 * the other partials. close with merge 1 adds a partial's figures to the open kernel
 * (cc_analysis_insn_merge's rules: sums, minima, maxima, unions) and frees it: after all
 * partials are closed the kernel holds the serial run's figures, whatever the split of
 * the records among the partials. Memory: each partial's footprints count against
 * nothing until merged; the merged ones count in mem_used and the limit is checked then
 * (CC_ERR_LIMIT, the sink's message). combine merges one partial into another with the
 * same rules (on any thread, counting nothing: the union counts when the result is
 * closed). access fails as the sink's does (CC_ERR_INPUT). */
struct cc_access_partials cc_analysis_partials(cc_keep struct cc_analysis *an);

/* The record figures of the open kernel of each of ans[0..n) as bytes (pack.c), for a
 * process that analysed a share of a run's records (an MPI rank, src/cli/mpi.c): per
 * analysis its model's name, the kernel's mangled name and instruction count, then per
 * instruction (by slot) its id, every figure cc_analysis_insn_merge combines (counts,
 * the model's sums, the sectors histogram, conflicts, stride minimum, maximum, sum and
 * count, lane stride, lanes seen) and its footprint (analysis/footprint.h): a fixed
 * cc_analysis_packed_insn_bytes() plus 32 bytes and 72 per footprint chunk of 512 units
 * of the granularity. Not the cache model's figures, which need the records in order:
 * pack only analyses without one. *buf is malloc'ed (*len bytes), the caller frees it;
 * host byte order (the ranks of one job share it). */
void cc_analysis_pack(cc_keep const struct cc_analysis *const *ans, size_t n,
                      cc_give uint8_t **buf, size_t *len);
/* The fixed bytes per instruction of cc_analysis_pack's message (without the footprint). */
size_t cc_analysis_packed_insn_bytes(void);
/* Adds the figures that cc_analysis_pack wrote in msg (len bytes) to the open kernels of
 * ans[0..n) (the same models and kernel), as a partial's close does (cc_analysis_partials:
 * sums, minima, maxima, unions), so that the kernels end as if they had seen the packed
 * records too, whatever the order of the merges. The message is read whole before
 * anything is merged. Errors: CC_ERR_INPUT, nothing changed, when msg is cut short,
 * corrupt (footprint.h's checks, trailing bytes) or of other models, kernels or
 * instruction ids; CC_ERR_LIMIT as the sink's (figures merged); CC_ERR_INTERNAL when an
 * analysis has no open kernel or has a cache model. */
int cc_analysis_unpack_merge(cc_keep struct cc_analysis *const *ans, size_t n,
                             const uint8_t *msg, size_t len, struct cc_err *err);

/* Average stride of Algorithm 1 in bytes: the mean of all neighbour differences of all
 * groups of all records (stride_sum / stride_count; 0 when there are none). The paper's
 * line 25 divides each group's running sum by W instead; we take the plain mean. */
double cc_analysis_stride_avg(const struct cc_insn_stats *s);

/* Efficiency, 0..1: global/local: unique bytes / bytes transferred (the bytes the lanes
 * use over the bytes the transactions move: a broadcast, 32 lanes on one 4-byte word,
 * uses 4 of a 32-byte sector's bytes, 12.5%; lanes sharing bytes never push it above 1);
 * shared (nothing transferred): ideal wavefronts / wavefronts; 1 when nothing moved.
 * NAN when the unique bytes are unknown (CC_UNKNOWN_UNIQUE_BYTES, imported kernels). */
double cc_analysis_efficiency(const struct cc_insn_stats *s);
/* The kernel's global/local efficiency, 0..1: unique bytes / bytes transferred of its
 * global and local instructions; 1 when nothing moved; NAN when unknown. */
double cc_analysis_totals_efficiency(const struct cc_kernel_totals *t);

/* Bytes the footprint structure of s holds now (for memory tests and diagnostics). */
size_t cc_analysis_footprint_bytes(const struct cc_insn_stats *s);

/* Records the producer's counters for the last kernel of an (the one just run): what
 * the report prints as "emulated N thread-instructions in S s". No-op without kernels. */
void cc_analysis_set_run_stats(cc_keep struct cc_analysis *an,
                               const struct cc_kernel_run_stats *run);

/* Hands the static address forms of the last kernel of an (finished) to it: each form
 * goes to the instruction with its id (and PTX text, when given); instructions without
 * one keep CC_ADDR_NONE. The strings are copied. The suggestions are then made again
 * with the forms (finalize.c): the thread dimension to swap with threadIdx.x is the one
 * with a unit stride, a loop that walks contiguous memory while the threads stride
 * widely asks for loop transformations, and a swap that would uncoalesce another
 * instruction asks for shared-memory tiling. Errors: CC_ERR_INTERNAL when an has no
 * kernel or one is open. */
int cc_analysis_set_forms(cc_keep struct cc_analysis *an, cc_keep const struct cc_kernel_forms *kf,
                          struct cc_err *err);

/* The stride class of thread dimension d (0..2) of s's form (CGO 2015 Sec. 4.2.2): zero
 * (stride 0), unit (|stride| up to the coalescing bound of access.h), large (above it),
 * unknown (no form, or the stride unknown). */
enum cc_addr_class cc_analysis_addr_class(const struct cc_insn_stats *s, uint32_t d);
/* "zero", "unit", "large", "unknown" */
const char *cc_addr_class_name(enum cc_addr_class c);

/* "thread-geometry", "shared-memory", "layout", "none", "local-array", "loop" */
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
  uint64_t stride_count;      /* Algorithm 1 neighbour strides seen; 0: none. Local:
                                 strides of the interleaved addresses (as the sink's) */
  uint64_t stride_min, stride_max; /* bytes, when stride_count > 0 */
  double stride_sum;          /* bytes */
  double bound_requests, bound_sectors; /* relative 95% bounds when the figures are
                                 estimates (0: exact, NAN: unknown); see cc_insn_stats */
};


/* Appends kernel ki to an as a finished kernel whose instruction ki->insns[i] has the
 * figures counts[i] (ki->n_insns of them), then computes what end_kernel computes:
 * verdicts, suggestions, source locations, totals, worst-first order, per-line sums
 * (global: bytes transferred = 32 x sectors, requests = executions; sector-based
 * architectures). The figures the sums do not carry are derived where the sums fix
 * them (import.c: unique bytes, the sectors histogram, the uncoalesced requests and
 * thread accesses, the conflicting requests) and flagged in `unknown` otherwise; every
 * request is taken to have an active lane (the GPU backend counts no other). Strings of
 * ki are copied. Errors: CC_ERR_INPUT naming the instruction
 * when its figures contradict each other (ideal above actual, more lanes than 32 per
 * execution, stride min above max, size 0); CC_ERR_INTERNAL when a kernel is open. On
 * error an is unchanged. */
int cc_analysis_import_kernel(cc_keep struct cc_analysis *an,
                              cc_keep const struct cc_kernel_info *ki,
                              cc_keep const struct cc_insn_counts *counts, struct cc_err *err);

#endif
