/* coalcheck: the warp access record and the stream that carries it.
 *
 * One record = one executed global/shared/local memory instruction of one warp. It is
 * the only coupling between the backends that produce accesses (src/emu, later src/gpu)
 * and everything that consumes them (src/analysis, src/model, the trace writer).
 *
 * A stream is a sink with three callbacks: begin_kernel (with the table of the kernel's
 * static memory instructions), access (once per warp record, in execution order of each
 * warp), end_kernel. Producers call them in that order; a non-zero return from any
 * callback stops the producer, which returns that status. */
#ifndef CC_ACCESS_ACCESS_H
#define CC_ACCESS_ACCESS_H

#include <stdint.h>

#include "util/bits.h"
#include "util/err.h"

#define CC_WARP_SIZE 32
/* The widest access of one lane, in bytes: a vector of four 64-bit or eight 32-bit
 * elements (PTX ISA, ld/st .v4.b64, .v8.b32). Consumers refuse records above it. */
#define CC_ACCESS_MAX_BYTES 32

enum cc_space { CC_SPACE_GLOBAL, CC_SPACE_SHARED, CC_SPACE_LOCAL, CC_SPACE_COUNT };

/* load, store, atomic (returns a value: atom.*), reduction (no value: red.*) */
enum cc_access_kind { CC_ACCESS_LOAD, CC_ACCESS_STORE, CC_ACCESS_ATOMIC, CC_ACCESS_REDUCTION };

/* A static memory instruction of a kernel (a PTX instruction, later a SASS pc). */
struct cc_insn_info {
  uint32_t id;              /* ptx_index: index of the instruction in its function body */
  enum cc_access_kind kind;
  enum cc_space space;      /* resolved space; generic ld/st are resolved per access */
  uint32_t size_bytes;      /* bytes per lane: element size x vector width (ld.v4.f32: 16) */
  const char *text;         /* the instruction as PTX text, e.g. "ld.global.f32 %f1, [%rd4];" */
  const char *file;         /* CUDA source file from .loc/.file, or NULL */
  uint32_t line, column;    /* source line (0: none) */
  const char *inlined_file; /* call site when the .loc says inlined_at, else NULL */
  uint32_t inlined_line;
};

/* A .shared variable the kernel can reach (module scope, or in the kernel or a function
 * it calls): where the run placed it in the CTA's shared window, so that advice can name
 * the array an access falls in. */
struct cc_shared_var {
  const char *name;         /* as in the PTX, possibly mangled ("_ZZ9kernelPfE4tile") */
  uint64_t offset;          /* bytes from the start of the shared window */
  uint64_t size_bytes;      /* 0: extern (dynamic) array, sized at launch */
};

/* A kernel launch as the consumers see it. All pointers are borrowed for the duration of
 * the stream (begin_kernel .. end_kernel). */
struct cc_kernel_info {
  const char *name;         /* name as in the source, demangled, e.g. "transpose" */
  const char *mangled;      /* name as in PTX, e.g. "_Z9transposePfPKfii" */
  uint32_t grid[3], block[3];
  uint32_t n_insns;         /* static memory instructions */
  const struct cc_insn_info *insns; /* indexed by position, NOT by id: see insn_slot */
  uint32_t n_shared_vars;   /* the kernel's .shared variables, when the producer knows them
                               (the emulator); 0 and NULL otherwise (a trace, the GPU) */
  const struct cc_shared_var *shared_vars;
};

/* One executed memory instruction of one warp. */
struct cc_warp_access {
  uint32_t insn_slot;       /* index into cc_kernel_info.insns */
  uint32_t cta[3];          /* CTA id (blockIdx) */
  uint32_t warp;            /* warp index in the CTA (linear thread id / 32) */
  uint32_t cut;             /* 0 from every producer (the emulator, the trace readers, the
                               GPU import: set it to 0). 1 or more only in the ordered
                               stream behind --jobs, for the cache model: a worker cut the
                               record to the lanes whose line is sampled and counted the
                               whole record's figures itself; a global store stands
                               for `cut` stores of its instruction, all of the same
                               bytes, in one chain of repeats (cache.h cc_cache_drop) */
  uint64_t dyn;             /* dynamic instance: how many times this warp ran this insn */
  enum cc_access_kind kind;
  enum cc_space space;      /* space actually accessed (generic accesses resolved) */
  uint32_t size_bytes;      /* bytes per lane, 1..CC_ACCESS_MAX_BYTES */
  uint32_t active;          /* bit i set: lane i accessed memory */
  uint64_t addr[CC_WARP_SIZE]; /* byte address per lane; valid where active; for shared
                                  and local memory, the offset in that window */
};

/* The consumer side of a stream. ctx is the consumer's state. */
struct cc_access_sink {
  void *ctx;
  int (*begin_kernel)(void *ctx, const struct cc_kernel_info *k, struct cc_err *err);
  int (*access)(void *ctx, const struct cc_warp_access *a, struct cc_err *err);
  int (*end_kernel)(void *ctx, struct cc_err *err);
};

/* The order-free side of a stream (docs/scaling.md, "Sink on several threads"): a
 * consumer whose figures are sums, minima, maxima and unions over the records (the
 * per-instruction statistics of src/analysis) does not need the records in order. A
 * producer that runs on several threads opens one partial state per thread after
 * begin_kernel (open, on the calling thread), gives each record of that thread to it
 * (access, on the owning thread only; it fails like a sink's access) and, before
 * end_kernel, closes every partial on the calling thread: merge 1 adds its figures to the
 * consumer's open kernel (the merge is associative and commutative, so the result is the
 * serial one whatever thread ran which CTA), merge 0 only frees it (the run failed).
 * open returns NULL only when ctx has no open kernel. to_ordered (NULL: every record
 * goes to the ordered sink whole, and the partials count nothing of the ordered side),
 * called on the owning thread right after access succeeded for a, when the producer
 * passes on what it returns, says what the consumer's ordered sink needs of a: it puts
 * up to CC_ACCESS_ORDERED_MAX records in out[] (their number returned), which the
 * producer passes on in that order before the thread's next record: a itself, nothing
 * (the partial counted what the ordered side would have, the cache model's records that
 * change no cache state), records the partial holds until its next call (a cut from a,
 * cc_warp_access.cut: the cache model's sampled lanes), and before them records it held
 * back (cache.h cc_cache_drop: a store repeated with nothing between that its repeats
 * could change). release (NULL: to_ordered holds nothing back) puts the records the
 * partial still holds back into out in the same way: the producer calls it, and passes
 * on what it returns, wherever the thread's next record does not follow its last one in
 * the serial order (the end of a run of consecutive CTAs) and before closing the
 * partial.
 * combine (NULL: the producer closes every partial) merges partial from into partial
 * into and frees from, so that closing into then adds what closing both would have: the
 * producer may reduce its partials pairwise in a tree on its own threads (src/emu/par.c)
 * and close only the root. Both must be done with (no thread gives them records any
 * more); it may run on any thread, concurrently with the calling thread's sink and with
 * other combines of disjoint pairs, and cannot fail (it only sums, keeps minima and
 * maxima, and unions sets: associative and commutative, like close's merge, so any
 * tree gives the serial figures).
 * counted (NULL: nothing counted) gives, and restarts, the number of records that
 * to_ordered passed on whole since its last call and that the ordered consumer counts
 * towards a point of its stream (the cache model: its switch to set sampling after a
 * number of records, cache.h cc_cache_switch_records); the producer calls it on the
 * owning thread at the end of each run of consecutive CTAs. ahead (NULL: no use for it)
 * takes the producer's word, on any thread, that every record of the CTAs from linear
 * index cta on reaches the ordered sink after `before` such records (the sums of
 * counted over the runs before cta, once all of them have ended): the consumer may act
 * on it before its sink gets there (cache.h cc_cache_foresee).
 * recut (NULL: none) takes again, on the owning thread, a record that to_ordered passed
 * on whole and the producer still holds (not yet given to the ordered sink), the
 * thread's records given to to_ordered since then being whole too and still held, after
 * a release: CC_ACCESS_RECUT_SAME when a stays as it was (nothing put into out), else
 * what to_ordered would give for a now, in its place (the counted records corrected).
 * Why: what to_ordered decides may depend on what the ordered consumer has seen (the
 * cache model's sampling switch, which a long first CTA reaches late); a producer that
 * buffers records may ask again before delivering them (src/emu/par.c, re-cut). The
 * producer calls release after the last record it asks about. a NULL asks whether any
 * record could change now: CC_ACCESS_RECUT_SAME if none (nothing done), else 0. */
#define CC_ACCESS_ORDERED_MAX 10 /* records to_ordered and release give at most */
#define CC_ACCESS_RECUT_SAME UINT32_MAX /* recut: the record stays whole */

struct cc_access_partials {
  void *ctx;
  void *(*open)(void *ctx);
  int (*access)(void *part, const struct cc_warp_access *a, struct cc_err *err);
  int (*close)(void *ctx, void *part, int merge, struct cc_err *err);
  uint32_t (*to_ordered)(void *part, const struct cc_warp_access *a,
                         const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX]);
  void (*combine)(void *ctx, void *into, void *from);
  uint32_t (*release)(void *part, const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX]);
  uint64_t (*counted)(void *part);
  void (*ahead)(void *ctx, uint64_t cta, uint64_t before);
  uint32_t (*recut)(void *part, const struct cc_warp_access *a,
                    const struct cc_warp_access *out[CC_ACCESS_ORDERED_MAX]);
};

/* Number of active lanes of a record (popcount of active). */
static inline uint32_t cc_access_lanes(const struct cc_warp_access *a)
{
  return cc_popcount32(a->active);
}

/* The largest neighbour stride (bytes) at which an access of size bytes in space is
 * coalesced, the bound of CGO 2015 Algorithm 1 (max stride <= size): size, except for
 * local memory, whose strides are taken between 32-bit words of the interleaved layout
 * (src/model, cc_model_local_layout), so that a warp-uniform 1- or 2-byte local access,
 * lanes 4 bytes apart, is coalesced too: max(size, 4). The emulator's analysis and the
 * GPU backend's verdict both use it. */
static inline uint32_t cc_access_coalesced_stride(enum cc_space space, uint32_t size)
{
  return space == CC_SPACE_LOCAL && size < 4 ? 4 : size;
}

/* The 32-bit words a local access of size bytes is split into, each one request (the
 * interleaved layout puts a lane's next word 128 bytes further: src/model, cc_model_global;
 * Nsight Compute on the H200 counts 2 requests per 8-byte LDL/STL); 1 for any other
 * access. Requests of an instruction = its warp-level executions x this. */
static inline uint32_t cc_access_words(enum cc_space space, uint32_t size)
{
  return space == CC_SPACE_LOCAL && size > 4 ? size / 4 : 1;
}

/* Whether every lane l of a, active or not (all 32 are read), is at addr[0] + l x step,
 * modulo 2^64: one vector test, AVX2 where the host has it (-DCC_CACHE_NO_AVX2: the
 * portable form only). The cache model's fast forms (src/cache cc_cache_form_of, the
 * quick path) and cc_access_progression start from it. */
int cc_access_lanes_affine(const struct cc_warp_access *a, uint64_t step);

/* Whether record a is one whole-warp progression going up: all 32 lanes active, lane l
 * at addr[0] + l x step with step = addr[1] - addr[0] (mod 2^64), and the last lane's
 * bytes below 2^64 (addr[0] + 31 step + size - 1 does not pass the top of memory), so
 * that the lanes lie in address order, step bytes apart. Sets *step when so (left alone
 * otherwise). Rows (step = size), columns (step: a row's bytes) and broadcasts (step 0)
 * are; the per-record fast paths of the analysis and of the sector model start from
 * this one test (src/analysis/analysis.c accumulate, src/model/geometry.c). Size 0 is
 * read as 1. */
int cc_access_progression(const struct cc_warp_access *a, uint64_t *step);

const char *cc_space_name(enum cc_space space);           /* "global", "shared", "local" */
const char *cc_access_kind_name(enum cc_access_kind kind); /* "load", "store", "atomic", "reduction" */

#endif
