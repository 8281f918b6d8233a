/* coalcheck cache model: what a warp access stream costs beyond L1 — L1 hits per SM, L2
 * sectors, DRAM bytes read and written — and the time those figures take at a device's
 * bandwidths and latencies.
 *
 * The model replays the warp access records (access/access.h) of one kernel at a time,
 * in the order the producer delivers them (the emulator: CTAs one after another, the
 * warps of a CTA round-robin between barriers; a .cctrace: the order it was recorded
 * in), through real set-associative arrays with LRU replacement:
 *   - one L1 per SM, 128-byte lines of four 32-byte sectors, filled per sector (whole
 *     lines on cc2.x), its capacity the SM's unified L1/shared storage less the shared
 *     memory carveout; CTAs are placed on SMs by a dispatch rule (round-robin by
 *     default: CTA c, linear in x, then y, then z, runs on SM c mod SMs);
 *   - one L2 of the device's size, 128-byte lines of 32-byte sectors, write-back,
 *     write-allocate without fetch (a store marks the bytes it writes; a read of a sector
 *     not wholly written fetches it), dirty sectors written to DRAM when evicted; those
 *     still dirty at the kernel's end stay in L2 (counted apart, not as DRAM writes);
 *   - DRAM: read in units of the device's dram_access_bytes (an L2 miss of one sector
 *     fetches its aligned unit, and every sector of the unit becomes valid in L2),
 *     written 32 bytes per dirty sector written back.
 * Both arrays start empty at each kernel (Nsight Compute flushes the caches before each
 * profiled kernel by default, --cache-control all). The rules per level, the policy
 * assumed where NVIDIA publishes none (set-index hash, LRU, L2 as one unified array)
 * and the sources are in cache.c and README.md; the device table with its sources in
 * device.c.
 *
 * Memory is bounded by the cache sizes (the arrays) and the kernel's instruction and SM
 * counts, never by the number of records. */
#ifndef CC_CACHE_CACHE_H
#define CC_CACHE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "util/err.h"

#define CC_CACHE_LINE_BYTES 128u
#define CC_CACHE_SECTOR_BYTES 32u
#define CC_CACHE_MAX_CARVEOUTS 12

/* How CTAs are placed on SMs (the hardware's scheduler is not documented). */
enum cc_cache_dispatch {
  CC_CACHE_DISPATCH_ROUND_ROBIN, /* CTA c on SM c mod SMs (linear CTA order, x fastest) */
  CC_CACHE_DISPATCH_BLOCKED      /* CTA c on SM c / ceil(CTAs / SMs): neighbours share an SM */
};

/* How a line picks its set. */
enum cc_cache_index {
  CC_CACHE_INDEX_HASH, /* class-pure hash (the default): the line number folded with its
                          higher bits picks a set among those of the line's class
                          (cc_cache_line_class), so that every set holds lines of one
                          class at every level and set sampling is exact (cache.c set_of) */
  CC_CACHE_INDEX_MOD,  /* line number mod sets (for hand-derived tests); class line & 15 */
  CC_CACHE_INDEX_FOLD  /* the folded hash mod sets, without classes: the model before set
                          sampling (2026-11-27), for comparisons; sample=1 only */
};

/* Set sampling (Kessler, Hill, Wood, "A comparison of trace-sampling techniques for
 * multi-megabyte caches", IEEE TC 43(6), 1994; Puzak's set sampling): a set's state
 * depends only on the lookups of its own lines, in order, so replaying the lines of a
 * fixed subset of the sets simulates those sets exactly, and the whole cache's figures
 * are estimated by scaling. A line's class is cc_cache_line_class; with sample=k a line
 * is replayed iff its class is a multiple of k. Defaults: */
#define CC_CACHE_SAMPLE_DEFAULT 16u        /* 1 set in 16 (capped by the levels' classes) */
#define CC_CACHE_SAMPLE_AFTER_DEFAULT 65536u /* records of a kernel replayed in full first */
#define CC_CACHE_CLASSES 16u

/* The class of a 128-byte line (0..15) under a set index. INDEX_HASH (and FOLD): (line
 * & 15) xor the top 4 bits of a multiplicative hash (Fibonacci) of line >> 4: a
 * permutation inside each aligned group of 16 lines (neighbouring lines fall in distinct
 * sets), and lines a power of two apart (a matrix's column) get well-spread classes.
 * INDEX_MOD: line & 15 (set = line mod sets keeps it in the set's low bits). */
#define CC_CACHE_CLASS_MUL 0x9e3779b97f4a7c15ull /* 2^64 / golden ratio */
static inline uint32_t cc_cache_line_class(enum cc_cache_index index, uint64_t line)
{
  if (index == CC_CACHE_INDEX_MOD)
    return (uint32_t)(line & 15u);
  return (uint32_t)((line & 15u) ^ (((line >> 4) * CC_CACHE_CLASS_MUL) >> 60));
}

/* One GPU's memory system as the model and the estimate use it. Sizes in bytes, speeds
 * in GB/s (10^9 bytes per second), clock in GHz, latencies in ns. */
struct cc_cache_device {
  char name[32];              /* "h100", "h200", ..., or the base name of a custom shape */
  const char *label;          /* "NVIDIA H100 SXM5 (sm_90)"; static */
  const char *arch;           /* the --arch model it belongs to, e.g. "sm_90"; static */
  uint32_t sms;               /* streaming multiprocessors */
  uint32_t l1_unified_bytes;  /* L1 and shared memory storage per SM */
  uint32_t carveouts_kb[CC_CACHE_MAX_CARVEOUTS]; /* shared memory sizes the SM can be set
                                 to, increasing (KiB); L1 = unified - carveout */
  uint32_t n_carveouts;       /* 0: fixed split, L1 = l1_unified_bytes */
  uint32_t smem_reserved_bytes; /* shared memory the driver reserves per CTA (1 KiB from
                                   sm_80 on) */
  uint32_t smem_per_cta_bytes;/* the kernel's shared memory per CTA, as far as known (the
                                 `smem=` option; 0 when not given) */
  uint32_t carveout_kb;       /* chosen carveout (`carveout=`); UINT32_MAX: the smallest
                                 that holds the resident CTAs' shared memory */
  uint32_t l1_bytes_override; /* `l1=`: L1 capacity per SM; 0: from the carveout */
  uint32_t l1_ways;
  int l1_global_loads;        /* global loads allocate in L1 (sm_70 on, cc2.x default) */
  int l1_whole_lines;         /* an L1 miss fetches the whole 128-byte line (cc2.x) */
  uint32_t dram_access_bytes; /* bytes one DRAM read moves, aligned: 32 (a sector), 64 (a
                                 sector pair: the H100) or 128 (a line); `dram-bytes=` */
  uint64_t l2_bytes;
  uint32_t l2_ways;
  uint32_t l2_partial_ways;   /* lines of an L2 set that may hold partly written sectors:
                                 a line becoming one beyond it sends the set's least
                                 recently used other one's to DRAM; and a partly written
                                 sector reaching DRAM is read-modify-written (32 bytes read,
                                 32 written). 0: neither (`partial-ways=`; cache.c,
                                 "write policy") */
  uint32_t l2_dirty_ways;     /* lines of an L2 set that may be dirty: a line becoming one
                                 beyond it writes the set's least recently used other dirty
                                 line back (it stays, clean). 0: no limit (`dirty-ways=`) */
  enum cc_cache_index index;
  enum cc_cache_dispatch dispatch;
  uint32_t sample;            /* set sampling: replay 1 set in `sample` (1, 2, 4, 8, 16;
                                 1: every set, the exact replay) after the first
                                 sample_after records of each kernel (`sample=`);
                                 0: the default, 16 capped by the levels (cc_cache_new) */
  uint64_t sample_after;      /* `sample-after=`: CC_CACHE_SAMPLE_AFTER_DEFAULT */
  uint32_t max_ctas_per_sm, max_threads_per_sm; /* residency limits */
  double clock_ghz;           /* SM clock */
  double dram_gbs;            /* DRAM bandwidth */
  double l2_gbs;              /* L2 bandwidth (reads from the SMs) */
  double l1_bytes_per_clk;    /* L1 data bandwidth per SM: one 128-byte wavefront a clock */
  double lat_l1_ns, lat_l2_ns, lat_dram_ns; /* load-to-use latency of a hit in L1, L2, and
                                               of a DRAM access */
  const char *speed_source;   /* where the speeds come from (static, or the calibration
                                 file's path: borrowed from the caller) */
  int calibrated;             /* speeds read from a calibration file */
};

/* K, the classes of a level of `sets` sets under index: every set holds lines whose
 * class (cc_cache_line_class) is one residue mod K. INDEX_HASH: the largest power of two
 * at most 16 and at most sets; INDEX_MOD: the largest power of two at most 16 dividing
 * sets (set = line mod sets, class = line & 15); INDEX_FOLD: 1. Set sampling can replay
 * 1 set in k for k a power of two up to the smallest K of L1 and L2 (sample.c). */
uint32_t cc_cache_level_classes(enum cc_cache_index index, uint32_t sets);

/* Looks up the device for an architecture (cc_model_name's spelling: "sm_90", "cc3.5"):
 * spec NULL or "" gives the architecture's default device (sm_90: h100); otherwise spec
 * is "NAME[,KEY=VALUE...]" with NAME a device of the table (h100, h200, h100-pcie, a100,
 * l40, a10, t4, v100, p100, gtx1080, m40, gtx750ti, k80, k40, tk1, gtx680, c2050,
 * gtx460) or "default" (the architecture's), and keys: sms=N, l1=SIZE, l1-ways=N,
 * carveout=KB, smem=SIZE, l2=SIZE, l2-ways=N, dispatch=rr|blocked, index=hash|mod,
 * dram-bytes=32|64|128, partial-ways=N, dirty-ways=N (0..64; 0, or l2-ways or more: no
 * limit), sample=1|2|4|8|16 (set sampling: 1 set in N replayed, the figures that depend
 * on cache state scaled by N; 1: exact; default 16), sample-after=R (records of each
 * kernel replayed in full first; default 65536) (SIZE: bytes, or with K or M suffix:
 * KiB, MiB). index=fold (the hash before set sampling) allows sample=1 only; an explicit
 * sample above the largest the levels' set counts allow is an error naming it. A custom l1 or l2 must be a power of
 * two of at least 128 bytes, ways must divide its lines (associativity times sets =
 * lines), carveout one of the device's sizes. calibration, if not NULL, is a JSON file
 * written by scripts/gpu-calibrate.sh whose speeds replace the table's (cc_cache_calibrate).
 * *enabled is 0 (and CC_OK) for spec "off" and for architectures without an L1/L2 data
 * cache (cc1.x). Errors: CC_ERR_USAGE naming the unknown device or key (listing the known
 * ones), the bad value and the rule, or a device of another architecture than arch;
 * CC_ERR_INPUT for an unreadable or malformed calibration file. */
int cc_cache_device_get(const char *arch, const char *spec, const char *calibration,
                        struct cc_cache_device *out, int *enabled, struct cc_err *err);

/* Reads the speeds of a calibration file (JSON object; scripts/gpu-calibrate.sh writes
 * it) into d: "dram_gbs", "l2_gbs", and when present "clock_ghz", "sms", "lat_l1_ns",
 * "lat_l2_ns", "lat_dram_ns". path is kept in d->speed_source (borrowed). Errors:
 * CC_ERR_INPUT (unreadable file, not JSON, a field missing, not a positive number). */
int cc_cache_calibrate(struct cc_cache_device *d, const char *path, struct cc_err *err);

/* The L1 capacity (bytes) the device gives a kernel of threads_per_cta threads per CTA:
 * l1_bytes_override when set; else unified storage less the carveout, which is the
 * chosen one or the smallest that holds resident CTAs x (smem_per_cta + reserved)
 * (cc_cache_resident_ctas); rounded down to whole sets of l1_ways lines. */
uint32_t cc_cache_l1_bytes(const struct cc_cache_device *d, uint32_t threads_per_cta);

/* CTAs of threads_per_cta threads one SM holds at once by the device's thread and CTA
 * limits (registers and shared memory are not known to the model; they may lower it). */
uint32_t cc_cache_resident_ctas(const struct cc_cache_device *d, uint32_t threads_per_cta);

/* Traffic figures, per instruction and per kernel. Sectors are 32 bytes. */
struct cc_cache_counts {
  uint64_t l1_hit_sectors;    /* requested sectors found in L1 (loads) */
  uint64_t l2_sectors_read;   /* sectors L1 asked of L2 for loads (lts__t_sectors_srcunit_tex_op_read) */
  uint64_t l2_sectors_write;  /* sectors stores wrote to L2 (..._op_write) */
  uint64_t l2_sectors_atomic; /* sectors of atomics and reductions, done in L2 (..._op_atom/red) */
  uint64_t l2_hit_sectors;    /* of those, found in L2 */
  uint64_t dram_bytes_read;   /* dram_access_bytes per DRAM unit L2 fetched (a miss of one
                                 sector fetches its whole unit), and 32 per partly written
                                 sector read-modify-written (l2_partial_ways) */
  uint64_t dram_bytes_written;/* 32 per dirty sector written back during the kernel (at
                                 its line's eviction, or by the write policy:
                                 l2_partial_ways, l2_dirty_ways; dram__bytes_write.sum),
                                 counted for the instruction that last wrote the sector */
  uint64_t l2_dirty_bytes_at_end; /* 32 per sector still dirty in L2 when the kernel ends
                                 (written back later, by whatever evicts it), counted for
                                 the instruction that last wrote it */
  uint64_t l1_wavefronts;     /* L1 data-stage cycles: ceil(sectors / 4) per global or
                                 local request (one 128-byte wavefront a clock), the shared
                                 model's wavefronts per shared request */
  uint64_t waits_l1, waits_l2, waits_dram; /* load and atomic requests by the deepest level
                                              one of their sectors had to reach */
  double latency_ns;          /* sum of the latencies those requests wait (device's) */
};

/* A kernel's figures: the counts summed, and what the estimate needs. */
struct cc_cache_kernel {
  struct cc_cache_counts total;
  uint64_t l2_evictions;        /* L2 lines replaced during the kernel: nonzero when its
                                   footprint overflowed L2 (cc_cache_dram_bytes) */
  uint64_t l1_wavefronts_max_sm;/* the busiest SM's wavefronts */
  double latency_ns_max_sm;     /* max over SMs of (its requests' latency sum / the warps it
                                   holds at once): the serial-latency time */
  uint32_t l1_bytes;            /* L1 capacity per SM for this kernel */
  uint32_t resident_ctas;       /* per SM (cc_cache_resident_ctas) */
  uint32_t sms_used;            /* SMs that received a CTA */
  uint32_t sample;              /* set sampling of this kernel: 1 set in `sample` replayed
                                   after record sampled_from (1: every set, all exact) */
  uint64_t sampled_from;        /* the record (global and local records, from 0) where
                                   sampling started; UINT64_MAX: never (the kernel had at
                                   most sample_after records, or sample 1). The figures
                                   that depend on cache state (L1 hit sectors, L2 read and
                                   hit sectors of loads through L1, DRAM bytes, dirty
                                   bytes at the end, evictions, waits and latency) are then
                                   estimates (sample.c); the others stay counts */
  uint64_t records;             /* global and local records replayed or filtered */
};

struct cc_cache; /* opaque: the arrays and counters of one device */

/* Makes an empty model of device d (copied). Allocates the L1 arrays for the largest L1
 * the device can have and the L2 array: 16 bytes per L1 line of every SM plus 48 bytes
 * per L2 line (16 for the way, 32 for what stores wrote), the way predictors (4 bytes an
 * entry: up to 1024 per SM, up to 65536 for L2), a byte per set of either level (the sets
 * a kernel filled) and a little per SM (H100: 4.3 MB + 19.7 MB + 0.9 MB; cc_cache_bytes),
 * its pages faulted in here. The caller frees it with cc_cache_free. */
cc_give struct cc_cache *cc_cache_new(const struct cc_cache_device *d);
/* Frees c; NULL is allowed. */
void cc_cache_free(cc_take struct cc_cache *c);

/* Sets the threads c's replay uses from the next cc_cache_begin_kernel on, the calling
 * thread's included: 1 (the default) replays on the calling thread; 2 runs the serial
 * replay on a helper thread, the calling thread queueing the records in batches of 8192;
 * jobs > 2 replays the batches on jobs - 1 helpers, the L1s of the SMs s with s % (jobs -
 * 1) == t and the t-th block of L2 sets on helper t, while the calling thread fills the
 * next batch (par.c). Every figure is the serial replay's. cc_cache_access must still be called by one thread
 * at a time (any thread, each call ordered after the last), and the figures read only
 * after cc_cache_end_kernel. 0 means 1. The threads start at the next kernel (or
 * fewer, if the system refuses some: the figures do not change) and stop in
 * cc_cache_free or at the first kernel begun after a cc_cache_set_jobs with another
 * count; a kernel under way keeps its threads. Source of the
 * exactness: L1s are per SM, and an L2 set's state depends only on the order of its own
 * lookups (README.md, "Parallel replay"). */
void cc_cache_set_jobs(struct cc_cache *c, uint32_t jobs);

/* Bytes c holds: what cc_cache_new allocated (the L1 and L2 arrays, fixed by the device)
 * and the per-instruction counters of the kernel begun last (2 x sizeof(struct
 * cc_cache_counts) + 8 per instruction slot: the counts, set sampling's raw counts and
 * its requests after the switch; cc_cache_begin_kernel replaces them). The
 * analysis counts them in its memory (analysis.h, mem_used). */
size_t cc_cache_bytes(const struct cc_cache *c);

/* The device c models (borrowed from c). */
const struct cc_cache_device *cc_cache_device_of(const struct cc_cache *c);

/* Starts a kernel: empties both levels, sizes L1 for the kernel's CTA size, zeroes the
 * counters of n_insns instruction slots. grid and block in CTAs and threads. Emptying
 * costs the sets the last kernel filled, not the levels' size (an application's many
 * small launches: README.md, "Cold start"). */
void cc_cache_begin_kernel(struct cc_cache *c, const uint32_t grid[3], const uint32_t block[3],
                           uint32_t n_insns);

/* Replays one warp record: a global or local access through L1 (on a->cta's SM), L2 and
 * DRAM; a shared access only counts shared_wavefronts (the shared model's) as L1
 * wavefronts and, for loads, an L1 latency. Local records must carry the addresses of the
 * hardware's interleaved layout (model.h cc_model_local_layout) in 4-byte pieces: the
 * caller splits wider ones; each warp's local area is placed at its own address by its
 * SM and residency slot. Records with insn_slot >= n_insns or a size above
 * CC_ACCESS_MAX_BYTES are ignored (the analysis refuses them first). A lane's bytes past
 * 2^64 - 1 continue at address 0. A cut record (a->cut, made by cc_cache_drop after the
 * sampling switch, whose whole-record counts are in a cc_cache_drops) only replays its
 * sampled lines' state changes, their raw counts and its sampled wait. */
void cc_cache_access(struct cc_cache *c, const struct cc_warp_access *a,
                     uint32_t shared_wavefronts);

/* Records a producer's worker threads may count themselves (src/emu --jobs; drop.c).
 * While the model runs behind the workers, in the serial order, most records change no
 * cache state: shared records (counted at once) and, once set sampling has started, the
 * global and local records that touch no sampled line (their whole-record counts and
 * their requests only). A worker counts those into its own cc_cache_drops and does not
 * send them on. A global record after the switch that does touch a sampled line (a
 * column: 32 lines, nearly always one sampled) has its whole-record counts done there
 * too, and only its lanes whose line is sampled go on, as a cut record
 * (cc_warp_access.cut), whose state changes alone c replays. cc_cache_drops_add adds the
 * counts to c before the kernel ends. The figures are those of c given every record
 * whole: integer sums, whatever thread counted what (drop.c says why;
 * tests/cache/test_cut.c, tests/e2e/cache_drop.sh). */
struct cc_cache_drops;

/* An empty set of counts for c's open kernel (its instructions and SMs); the caller frees
 * it with cc_cache_drops_free. */
cc_give struct cc_cache_drops *cc_cache_drops_new(cc_keep const struct cc_cache *c);

/* The most records cc_cache_drop and cc_cache_drops_release put into their out. */
#define CC_CACHE_DROP_OUT 10

/* What c must see of record a, given the wavefronts shared records cost (the shared
 * model's, as cc_cache_access takes them): up to CC_CACHE_DROP_OUT records put into out
 * (their number returned), to pass to cc_cache_access in that order in a's place, held
 * by d until its next call. None when a is counted into d; a itself when c must see it
 * whole; a cut of a (its lanes that touch a sampled line, cut set: its whole-record
 * figures are counted into d); and before either, the global stores d held back. d
 * holds back a cut global store and the chain of identical ones (from up to 8
 * instructions) that follow it while no record sent on in between touches its lines'
 * L2 sets, and sends them on as one record per instruction whose cut field counts its
 * stores (drop.c says why the figures stay the serial run's); cc_cache_drops_release
 * gives them up. Safe on worker threads while another thread feeds c: it reads c's
 * kernel shape, set before the workers start, and the first CTA past the sampling
 * switch, which c publishes (atomically) when it switches; a record of an earlier CTA,
 * or one read before the switch is known, is sent on whole (a producer still holding it
 * may ask again: cc_cache_drop_may_cut). The parallel replay
 * (cc_cache_set_jobs) takes the same records. */
uint32_t cc_cache_drop(cc_keep const struct cc_cache *c, const struct cc_warp_access *a,
                       uint32_t shared_wavefronts, struct cc_cache_drops *d,
                       const struct cc_warp_access *out[CC_CACHE_DROP_OUT]);

/* Whether cc_cache_drop, given record a now with d holding nothing back, could decide
 * it otherwise than whole: a global record of c's open kernel (a slot of it, lanes
 * active, a size it takes, not cut) whose CTA is at or past the first CTA after the
 * sampling switch, which c has published. A producer that passed such a record on whole
 * while the switch was unknown (cc_cache_drop's first word: the CTA could not be
 * placed after it yet) and has not delivered it may give it to cc_cache_drop again and
 * pass on what that returns instead (src/emu/par.c, re-cut: the covariance kernel's
 * later CTAs ran a third of their records before CTA 0 reached the switch, 0.4-0.5 GB
 * of whole records for the serial thread). 1 too while d holds a chain: cc_cache_drop
 * releases it before a whole record, so the record must go through it. a NULL: whether
 * any record could be (c has published its switch; 0 while it has not, and always when
 * it does not sample). On worker threads, as cc_cache_drop. */
int cc_cache_drop_may_cut(cc_keep const struct cc_cache *c, const struct cc_warp_access *a,
                          cc_keep const struct cc_cache_drops *d);

/* The stores d holds back (cc_cache_drop) into out, their number returned (0: none),
 * held by d until its next call: to pass to cc_cache_access before any record that does
 * not follow the last one given to cc_cache_drop in the serial order (the next CTAs of
 * another worker), and before the kernel ends. d holds nothing after it. */
uint32_t cc_cache_drops_release(struct cc_cache_drops *d,
                                const struct cc_warp_access *out[CC_CACHE_DROP_OUT]);

/* The records cc_cache_access counts towards c's switch to set sampling for a record of
 * that space, active lanes, instruction slot and size (bytes): 1 for a global or local
 * record with a lane active, a slot of the open kernel and a size it takes, else 0
 * (shared records and those it ignores; cut records never count and are not asked
 * about). On any thread (it reads the kernel's shape only). */
uint32_t cc_cache_switch_records(cc_keep const struct cc_cache *c, enum cc_space space,
                                 uint32_t active, uint32_t slot, uint32_t size_bytes);

/* A producer's word that every record of the CTAs from linear index cta on reaches c
 * after `before` records that count towards its switch (cc_cache_switch_records), in the
 * serial order. When the switch lies among those (before > the record it happens at),
 * those CTAs are published to cc_cache_drop as past the switch at once, while c may
 * still be replaying the exact records before it: the workers then count and cut the
 * records of the CTAs after the switch they emulate meanwhile, which c would otherwise
 * get whole (the kernel's first records, replayed line by line, take a while: the naive
 * 4096^2 transpose's 65,536 records about 50 ms on 16 cores, while the workers, let run
 * ahead of the merger by src/emu/par.c, emulate thousands of CTAs past them). Never moves
 * the published CTA up. On any thread, at any
 * time within the kernel; a producer that cannot count exactly may tell less (a smaller
 * `before`, a larger cta), never more. */
void cc_cache_foresee(struct cc_cache *c, uint64_t cta, uint64_t before);

/* Adds d's counts to c's open kernel (before cc_cache_end_kernel), on c's thread. */
void cc_cache_drops_add(struct cc_cache *c, cc_keep const struct cc_cache_drops *d);

/* Adds from's counts to into's (two workers' counts of one kernel, on any thread: it
 * touches the two only), so that cc_cache_drops_add of into adds both: integer sums,
 * in any order (the workers' tree, src/emu/par.c). */
void cc_cache_drops_merge(cc_keep struct cc_cache_drops *into,
                          cc_keep const struct cc_cache_drops *from);

/* Frees d (NULL is allowed). */
void cc_cache_drops_free(cc_take struct cc_cache_drops *d);

/* Ends the kernel: counts every sector still dirty in L2 in its writing instruction's
 * l2_dirty_bytes_at_end (not in dram_bytes_written: the hardware keeps them in L2 past
 * the kernel; Nsight Compute counts no DRAM write for them, bench/results/cache-h100-
 * 2026-11-25.md) and marks them clean, so that a second call counts nothing. */
void cc_cache_end_kernel(struct cc_cache *c);

/* The figures of instruction slot `slot` of the kernel (after cc_cache_end_kernel for
 * the dirty bytes at the end); a zeroed struct for a slot out of range. Borrowed from c. */
const struct cc_cache_counts *cc_cache_insn(const struct cc_cache *c, uint32_t slot);

/* The raw counts of the lines set sampling replayed in slot `slot` after it started
 * (unscaled: cc_cache_insn holds the estimates; zeroed when the kernel did not sample):
 * the fields that depend on cache state (l1_hit_sectors, l2_sectors_read of loads L1
 * caches, l2_hit_sectors, dram_bytes_read, dram_bytes_written, l2_dirty_bytes_at_end of
 * the sampled sets) and waits_* of the requests that touched a sampled line. For tests
 * (tests/cache/test_set_sample.c) and reports. Borrowed from c. */
const struct cc_cache_counts *cc_cache_insn_sampled(const struct cc_cache *c, uint32_t slot);

/* The kernel's figures into *out (after cc_cache_end_kernel). */
void cc_cache_kernel_figures(const struct cc_cache *c, struct cc_cache_kernel *out);

/* Adds b's counts to a (for merges and sums). */
void cc_cache_counts_add(struct cc_cache_counts *a, const struct cc_cache_counts *b);

/* L2 sectors of all kinds: read + write + atomic. */
uint64_t cc_cache_l2_sectors(const struct cc_cache_counts *c);

/* ---- time (estimate.c) --------------------------------------------------------------- */

enum cc_cache_bound { CC_CACHE_BOUND_DRAM, CC_CACHE_BOUND_L2, CC_CACHE_BOUND_L1 };

/* A kernel's times, microseconds. */
struct cc_cache_time {
  double dram_bytes;          /* what dram_us counts: cc_cache_dram_bytes */
  double dram_us;             /* dram_bytes / dram_gbs */
  double l2_us;               /* L2 sectors x 32 / l2_gbs */
  double l1_us;               /* busiest SM's wavefronts x 128 / (l1_bytes_per_clk x clock) */
  double bound_us;            /* max of the three: no kernel moving these bytes is faster */
  enum cc_cache_bound bound_by;
  double latency_us;          /* serial latency: the busiest SM's warps each waiting for
                                 every load in turn (no overlap within a warp) */
  double estimate_us;         /* max(bound_us, latency_us) */
};

/* The DRAM bytes the time estimate counts for kernel k: read + written during the kernel,
 * plus the bytes left dirty in L2 at its end when the kernel overflowed L2 (k->l2_evictions
 * > 0). Why: a kernel whose footprint fits L2 leaves its dirty lines there for whoever
 * reads them next (a following kernel, a second launch, which rewrites them in L2 at no
 * DRAM cost), and the hardware measures no DRAM write for them; a kernel that streams
 * more than L2 holds also streams out, in a loop of launches, the lines its previous
 * launch left dirty (each launch's writes reach DRAM once), so its steady-state DRAM
 * traffic includes them. */
uint64_t cc_cache_dram_bytes(const struct cc_cache_kernel *k);

/* The times of kernel k on device d. */
void cc_cache_estimate(const struct cc_cache_device *d, const struct cc_cache_kernel *k,
                       struct cc_cache_time *t);

/* "DRAM", "L2", "L1" */
const char *cc_cache_bound_name(enum cc_cache_bound b);

/* What making one instruction coalesced would save, in microseconds (>= 0): the kernel's
 * estimate now minus its estimate with the instruction's figures replaced by those of a
 * coalesced access of the same requests: ideal_sectors (the model's fewest sectors) per
 * request through L1 (wavefronts ceil(ideal / 4) in all), L2 sectors of each kind at most
 * ideal_sectors, DRAM bytes unchanged (a coalesced access reads the same data), and its
 * loads waiting on DRAM once per ideal-sized piece of the DRAM bytes, on L1 otherwise
 * (a coalesced access reads fresh sectors each request where an uncoalesced one's
 * re-reads hit L1). The kernel's busiest-SM wavefronts and latency scale with their
 * kernel-wide sums. `after` (may be NULL) receives the kernel's times after the fix. */
double cc_cache_fix_gain_us(const struct cc_cache_device *d, const struct cc_cache_kernel *k,
                            const struct cc_cache_counts *insn, uint64_t requests,
                            uint64_t ideal_sectors, struct cc_cache_time *after);

#endif
