/* coalcheck gpu: host-side pieces of the GPU backend (plain C11, no CUDA headers).
 *
 * The injection library (inject.c, built only where the Compute Sanitizer headers are)
 * patches every global/shared/local memory instruction of the application's kernels; the
 * device patch (patch.cu) reduces each warp's access on the GPU into per-(pc, SM) counters
 * (layout.h). What is here turns those counters into the report, and is what the unit
 * tests exercise without a GPU:
 *   - counters: sum the per-SM shards of one pc into struct cc_gpu_pc_stats;
 *   - sassmap: parse `nvdisasm -g` text into (function, offset) -> SASS text, file:line;
 *   - filter: COALCHECK_KERNEL_REGEX / _LAUNCH_SKIP / _LAUNCH_COUNT launch selection;
 *   - report: the JSON report (docs/json-schema.md names, `sass`/`sass_offset` instead
 *     of `ptx`/`ptx_index`) and the short text table. */
#ifndef CC_GPU_GPU_H
#define CC_GPU_GPU_H

#include <regex.h>
#include <stdint.h>
#include <stdio.h>

#include "access/access.h"
#include "gpu/layout.h"
#include "util/err.h"

/* ---- counters ---- */

/* What the GPU measured for one static instruction (one pc), summed over SMs and
 * launches. For global memory sectors/ideal are 32-byte sectors; for shared and local
 * memory they are wavefronts / ideal wavefronts (phases with active lanes). */
struct cc_gpu_pc_stats {
  uint64_t requests;      /* warp-level executions; local accesses wider than 4 bytes:
                             x their 32-bit words (hardware requests, as ncu counts) */
  uint64_t lanes;         /* active lanes over all requests */
  uint64_t sectors;       /* global: sectors; shared: wavefronts */
  uint64_t ideal;         /* global: ideal sectors; shared: ideal wavefronts */
  uint64_t bytes;         /* bytes requested: lanes x size */
  uint64_t stride_count;  /* neighbour strides seen (lanes - 1 per execution) */
  uint64_t stride_sum;    /* bytes */
  uint64_t stride_min;    /* bytes; UINT64_MAX when stride_count == 0 */
  uint64_t stride_max;    /* bytes */
  uint64_t ways;          /* shared: worst bank-conflict ways of one request (>= 1) */
  uint32_t flags;         /* CC_GPU_FL_* (layout.h) */
};

/* Sets *s to "nothing measured" (zeros, stride_min = UINT64_MAX, ways = 1). */
void cc_gpu_stats_init(struct cc_gpu_pc_stats *s);

/* Adds the n_shards records of one slot (raw: n_shards x CC_GPU_FIELDS uint64 words, in
 * layout.h order) to *acc. Each shard is unpacked before summing, so packed halves never
 * carry into each other on the host. */
void cc_gpu_stats_add_shards(struct cc_gpu_pc_stats *acc, cc_keep const uint64_t *raw,
                             uint32_t n_shards);

/* Space of an instruction from its flags: the space bit set (CC_SPACE_GLOBAL if none). */
enum cc_space cc_gpu_stats_space(const struct cc_gpu_pc_stats *s);

/* Access size in bytes (largest size bit seen; 0 if none). */
uint32_t cc_gpu_stats_size(const struct cc_gpu_pc_stats *s);

/* Kind of access: atomics whose SASS mnemonic starts with "RED" are reductions (no value
 * returned), other atomics atomic; else store if written, else load. sass may be NULL. */
enum cc_access_kind cc_gpu_stats_kind(const struct cc_gpu_pc_stats *s, const char *sass);

/* ---- sassmap ---- */

struct cc_gpu_sass_insn {
  uint32_t offset;        /* bytes from the function's first instruction */
  char *text;             /* "LDG.E R5, desc[UR4][R2.64]" (no trailing ';'), owned */
  const char *file;       /* source file from the last //## line, or NULL (owned by map) */
  uint32_t line;          /* 0 when none */
  const char *inl_file;   /* nvdisasm -gi: the outermost "inlined at" call site of that
                             line, or NULL (owned by map) */
  uint32_t inl_line;
};

struct cc_gpu_sass_func {
  char *name;             /* mangled, owned */
  size_t n, cap;
  struct cc_gpu_sass_insn *insns;   /* ascending offsets */
};

struct cc_gpu_sassmap {
  size_t n, cap;
  struct cc_gpu_sass_func *funcs;
  size_t n_files, cap_files;
  char **files;           /* interned file names */
  int has_lines;          /* 1 if any //## line information was seen */
};

/* Parses the output of `nvdisasm -g` (or -gi) into *map (zeroed first by the caller or
 * fresh). Functions start at `.section .text.NAME,` lines; instructions are lines
 * `/<star>OFFS<star>/ TEXT ;` (hex offset); `//## File "F", line N` sets the source of
 * the instructions that follow, and a tail `inlined at "G", line M` (-gi; repeated for
 * deeper inlining, innermost first) their call site: the last one is kept (inl_file,
 * inl_line); a tail that does not parse is ignored. origin names the text in messages. Errors: CC_ERR_INPUT
 * with origin:line when an offset or a //## line is malformed or an instruction comes
 * before any function. On error *map holds what was parsed so far: release it. */
int cc_gpu_sassmap_parse(struct cc_gpu_sassmap *map, cc_keep const char *text,
                         const char *origin, struct cc_err *err);

/* The instruction of function func at offset, or NULL. */
const struct cc_gpu_sass_insn *cc_gpu_sassmap_find(const struct cc_gpu_sassmap *map,
                                                   const char *func, uint32_t offset);

/* Frees everything map owns and zeroes it. */
void cc_gpu_sassmap_release(struct cc_gpu_sassmap *map);

/* ---- filter ---- */

/* The name a kernel is matched by (ncu --kernel-name-base): function, the demangled
 * name without return type, scope, template arguments and parameters ("tiled" for "void
 * ns::tiled<32>(float*)"); demangled, the whole demangled name; mangled, the PTX/ELF
 * symbol. Names that are not mangled are the same under all three. */
enum cc_gpu_name_base { CC_GPU_BASE_FUNCTION, CC_GPU_BASE_DEMANGLED, CC_GPU_BASE_MANGLED };

/* A kernel-name pattern of ncu: NAME (an exact match) or regex:RE (a POSIX extended
 * regular expression found anywhere in the name). */
struct cc_gpu_name_pattern {
  int set, is_regex;
  char *exact;            /* owned, when !is_regex */
  regex_t re;             /* when is_regex */
};

/* Launch selection with Nsight Compute's meaning (--kernel-name, --kernel-name-base,
 * --kernel-id, --launch-skip, --launch-count): a launch matches when its name matches the
 * kernel name and the kernel id (and the older COALCHECK_KERNEL_REGEX, searched in the
 * demangled and the mangled name); of the matching launches the first `skip` are skipped,
 * then `count` profiled (all when has_count is 0). The same rules serve the executable
 * mode (the injection library) and kernel mode (src/cli: the module's kernels in order,
 * one launch each). */
struct cc_gpu_filter {
  int has_regex;
  regex_t regex;          /* COALCHECK_KERNEL_REGEX: demangled or mangled name */
  enum cc_gpu_name_base base;
  struct cc_gpu_name_pattern name;    /* --kernel-name */
  struct cc_gpu_name_pattern id_name; /* --kernel-id's kernel-name field */
  uint64_t id_invocation; /* --kernel-id's invocation-nr, 1-based; 0 = any */
  uint64_t skip, count;
  int has_count;
  uint64_t matched;       /* matching launches seen so far */
  char **seen;            /* invocations so far per function (base name), for --kernel-id */
  uint64_t *seen_count;
  size_t n_seen;
};

/* The selection as given: each string NULL or empty = no constraint. */
struct cc_gpu_filter_spec {
  const char *regex;        /* COALCHECK_KERNEL_REGEX */
  const char *kernel_name;  /* NAME or regex:RE */
  const char *name_base;    /* function | demangled | mangled (default function) */
  const char *kernel_id;    /* CONTEXT:STREAM:[regex:]NAME:INVOCATION; context and stream
                               must be empty (not matched), NAME and INVOCATION may be */
  const char *skip, *count; /* non-negative; count at least 1 */
  int from_env;             /* messages name the variables, not the options */
};

/* Reads the filter from spec. Errors: CC_ERR_USAGE naming the option (or variable): a
 * regular expression that does not compile (with the 1-based position of the error in
 * it, cc_gpu_regex_compile), an empty --kernel-name, an unknown name base, a kernel id
 * that is not CONTEXT:STREAM:NAME:INVOCATION or gives a context or stream, a count that
 * is not a non-negative decimal integer, --launch-count 0. f is safe to release after a
 * failure. */
int cc_gpu_filter_init_spec(struct cc_gpu_filter *f, const struct cc_gpu_filter_spec *spec,
                            struct cc_err *err);

/* cc_gpu_filter_init_spec with the three variables of old (COALCHECK_KERNEL_REGEX,
 * COALCHECK_LAUNCH_SKIP, COALCHECK_LAUNCH_COUNT). */
int cc_gpu_filter_init(struct cc_gpu_filter *f, const char *regex, const char *skip,
                       const char *count, struct cc_err *err);

/* 1 if this launch is to be profiled; counts matching launches and each function's
 * invocations. demangled and mangled may be equal; either may be NULL (demangled NULL:
 * the mangled name serves as all three bases). */
int cc_gpu_filter_select(struct cc_gpu_filter *f, const char *demangled, const char *mangled);

/* The function base of a demangled name (see enum cc_gpu_name_base) into out (size
 * bytes, truncated); returns out. */
char *cc_gpu_function_name(const char *demangled, char *out, size_t size);

/* Compiles pattern (POSIX extended) into *re. Errors: CC_ERR_USAGE "OPT 'PATTERN' does
 * not compile: unmatched '(' at position 3 (regcomp: ...)": what names the option or
 * variable; the position (1-based, in pattern) comes from a scan of the ERE syntax
 * (brackets, parentheses, repetitions, intervals, a trailing backslash). */
int cc_gpu_regex_compile(regex_t *re, const char *pattern, const char *what,
                         struct cc_err *err);

/* Frees the compiled regex; f may come from a failed cc_gpu_filter_init. */
void cc_gpu_filter_release(struct cc_gpu_filter *f);

/* Reads the memory spaces to patch from a comma-separated list of "global", "shared",
 * "local" (--spaces, COALCHECK_GPU_SPACES) into *mask (bit 1 << enum cc_space); NULL or
 * empty: all three. Patching fewer spaces is the one way below the instrumentation's
 * cost on kernels whose other accesses are frequent (bench/results/gpu-check-*.md).
 * Errors: CC_ERR_USAGE naming the word that is not a space. */
int cc_gpu_spaces_parse(const char *list, uint32_t *mask, struct cc_err *err);

/* ---- report ---- */

struct cc_gpu_insn_report {
  uint32_t sass_offset;
  const char *sass;       /* NULL when nvdisasm was not available */
  const char *file;       /* NULL without -lineinfo */
  uint32_t line;
  const char *inl_file;   /* the call site when the line was inlined, else NULL */
  uint32_t inl_line;
  struct cc_gpu_pc_stats st;
};

struct cc_gpu_kernel_report {
  const char *name;       /* demangled */
  const char *mangled;
  uint32_t grid[3], block[3];   /* of the last profiled launch */
  uint64_t launches;      /* profiled launches */
  size_t n;
  struct cc_gpu_insn_report *insns;   /* ascending sass_offset */
  uint64_t outside_requests;          /* accesses from pcs outside the kernel's range */
};

/* Writes the report as JSON to fp: {"tool","backend":"gpu","device","model":"sm_90",
 * "kernels":[{...,"instructions":[...],"totals":{...}}]}. Per instruction: requests,
 * lanes, sectors, ideal_sectors (global) or wavefronts, ideal_wavefronts, bank_conflicts,
 * ways (shared/local), bytes_requested, efficiency, stride {min,max,avg} or null,
 * verdict (Algorithm 1: "coalesced" when max stride <= size, else "uncoalesced"), source
 * {file,line} or null, inlined_at {file,line} (only for inlined code: the outermost call
 * site, nvdisasm -gi), sass, sass_offset. Errors: CC_ERR_IO when writing fails. */
int cc_gpu_report_write_json(FILE *fp, const char *device,
                             cc_keep const struct cc_gpu_kernel_report *k, size_t nk,
                             struct cc_err *err);

/* Writes a short text table (one line per instruction) to fp. */
void cc_gpu_report_write_text(FILE *fp, cc_keep const struct cc_gpu_kernel_report *k,
                              size_t nk);

/* Writes s as a JSON string literal (quotes and escapes included); NULL as null. */
void cc_gpu_json_string(FILE *fp, const char *s);

/* ---- trace (trace.c): ring draining and the GPU trace file (.ccgpu) ---- */

/* Copies up to max complete records from the ring (layout.h protocol: a record is
 * complete once its seq equals its index + 1) into out, in order, and publishes the new
 * tail to the device. cap is the ring's record count (a power of two). Returns the number
 * copied (0: the next record is not complete yet). Never blocks. */
size_t cc_gpu_ring_drain(struct cc_gpu_ring_host *ring, uint32_t cap,
                         struct cc_gpu_trace_rec *out, size_t max);

/* Encodes one warp access as a warp record (layout.h, struct cc_gpu_wrec) into out
 * (room for 32 + 256 bytes): the affine form (32 bytes) when every active lane l accessed
 * addr[first] + (l - first) * stride with a 32-bit stride, as the device decides it
 * (patch.cu, lane_affine), else the header and the active lanes' addresses in lane order.
 * info: size, space, flags and warp as in the record (the explicit bit is set here);
 * addr[l] is read for active lanes only; active 0 (never from the device) gives a header
 * that readers refuse. Returns the bytes written. */
size_t cc_gpu_wrec_encode(uint32_t info, uint32_t launch, uint32_t slot, uint32_t cta,
                          uint32_t active, const uint64_t addr[CC_WARP_SIZE], void *out);

/* cc_gpu_wrec_encode of a ring record (layout.h): the ring's overflow records join the
 * device buffer's in the spool in one format. Returns the bytes written to out. */
size_t cc_gpu_wrec_from_ring(const struct cc_gpu_trace_rec *r, void *out);

/* Walks bytes of back-to-back warp records (a segment of the device buffer as copied),
 * counting them into *n_recs. Returns 0, or -1 when the last record is cut short or a
 * header is impossible (active mask 0): the buffer is not what the device writes. */
int cc_gpu_wrec_scan(const void *buf, size_t bytes, uint64_t *n_recs);

/* A static memory instruction of a kernel, as the trace file stores it: SASS slot
 * (offset / 16) and what the in-situ counters learnt about it. Strings borrowed. */
struct cc_gpu_raw_insn {
  uint32_t slot;
  enum cc_access_kind kind;
  enum cc_space space;
  uint32_t size;
  const char *sass, *file, *inl_file; /* each may be NULL */
  uint32_t line, inl_line;
};

struct cc_gpu_raw_func {
  const char *name, *mangled;
  uint32_t n_slots;       /* kernel size / 16; slot n_slots: pcs outside the kernel */
  size_t n;
  const struct cc_gpu_raw_insn *insns; /* distinct slots */
};

struct cc_gpu_raw_launch {
  uint32_t func;          /* index into the functions */
  uint32_t grid[3], block[3];
  uint32_t sample;        /* CTA sampling: 1 CTA in `sample` traced (0, 1: all) */
};

/* Writes a GPU trace to fp (the layout in trace.c's comment): the function tables, the
 * launches, then n_recs warp records of n_bytes in all, copied from spool (rewound
 * first; may be NULL when n_bytes is 0). path names fp in messages. Errors: CC_ERR_IO
 * when the spool is short or fp cannot be written. */
int cc_gpu_raw_write(FILE *fp, cc_keep const struct cc_gpu_raw_func *funcs, size_t nf,
                     cc_keep const struct cc_gpu_raw_launch *launches, size_t nl,
                     FILE *spool, uint64_t n_recs, uint64_t n_bytes, const char *path,
                     struct cc_err *err);

/* Decodes one warp record (addrs: its explicit addresses, if any) into *a against kernel
 * k, whose instructions are sorted by slot (insns[i].id; the one for slot s is found by
 * binary search, a->insn_slot its position): CTA (from the linear id and k->grid), warp,
 * active mask, addresses (0 in inactive lanes), space and size from the record, kind
 * from the table; dyn is 0 (the device does not count instances). Returns -1 when the
 * slot has no instruction. */
int cc_gpu_wrec_decode(const struct cc_gpu_wrec *w, const uint64_t *addrs,
                       const struct cc_kernel_info *k, struct cc_warp_access *a);

/* What cc_gpu_raw_convert streamed. */
struct cc_gpu_raw_summary {
  uint64_t kernels;       /* begin_kernel events (one per launch that left records) */
  uint64_t records;
  uint32_t sample;        /* largest CTA sampling factor of those launches (0/1: none) */
};

/* Streams the GPU trace at path into sink: per launch (in record order; a new kernel
 * whenever the launch number changes) begin_kernel with the function's table (SASS text
 * as the instruction text, slot as id), the records, end_kernel. sum may be NULL.
 * Errors: CC_ERR_INPUT for an unreadable, foreign, truncated or inconsistent file (path,
 * offset or record number in the message); a sink's status as it returned it. */
int cc_gpu_raw_convert(const char *path, const struct cc_access_sink *sink,
                       struct cc_gpu_raw_summary *sum, struct cc_err *err);

#endif
