/* coalcheck analysis, inside the folder only: one instruction's footprint that the worker
 * threads of a launch (--jobs, partial.c) add to at once, turned into a struct
 * cc_footprint when they are done.
 *
 * Why: each worker used to build a footprint of its own, and the launch's footprint was
 * their union. A worker's CTAs are interleaved with the others' (chunks claimed in CTA
 * order), so for a column access (the naive transpose's store) every worker touched
 * nearly every 512-unit chunk of the whole array: 16 workers built 16 tables the size
 * of the serial one, and their union took 25-30 ms after the last worker ended. On the
 * device's 16 cores the footprints cost 0.43 s of the workers' 1.77 s of CPU and that
 * tail (naive transpose at 4096^2: 0.147 s -> 0.091 s without them,
 * bench/results/scale-2026-11-28-s14.md).
 *
 * Representation: the set of units u = address >> shift (shift = log2 of the
 * instruction's access size, so a float array is 1 bit per element), as a bitmap in
 * leaves of 4096 units (512 bytes), found through nodes of 4096 leaf pointers (one per
 * 16 Mi units) kept in a small table keyed by u >> 24. Leaves and nodes are created on
 * first touch and published with a compare-and-swap; bits are set with atomic OR. Each
 * thread keeps, per footprint, a pending word per lane (a writer) and ORs it in when the
 * lane moves on: a column store's 8 warps of a CTA set 8 bits of one word per lane, one
 * atomic OR; a word that holds the bits already is only read.
 *
 * Exactness: a lane whose address is not a multiple of 1 << shift, or whose unit finds
 * no room (the table of nodes full, or the analysis's budget of leaves spent), is not
 * taken; the caller adds it to a footprint of its own, and the two sets are unioned.
 * The set is the same whatever thread added what, in what order. */
#ifndef CC_ANALYSIS_FPSHARE_H
#define CC_ANALYSIS_FPSHARE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/footprint.h"
#include "util/err.h"

struct cc_fp_shared;
struct cc_fp_writer;

/* An empty shared footprint for accesses of size_bytes bytes a lane (its units are 1 <<
 * log2 of the largest power of two dividing size_bytes, at most 16 bytes), whose leaves
 * and nodes count against *budget (bytes; shared by every footprint given the same
 * pointer, decreased atomically; at 0 no leaf or node is made and lanes that need one are
 * not taken). Free with cc_analysis_fps_free. */
cc_give struct cc_fp_shared *cc_analysis_fps_new(uint32_t size_bytes, int64_t *budget);
/* Frees fs (NULL allowed). No writer may hold bits of it any longer (cc_analysis_fpw_flush). */
void cc_analysis_fps_free(cc_take struct cc_fp_shared *fs);
/* Heap bytes fs holds (its table, nodes, leaves). Any thread; exact once the writers are
 * done. */
size_t cc_analysis_fps_bytes(cc_keep const struct cc_fp_shared *fs);

/* A writer: one thread's pending bits of fs (a word per lane, ORed in when the lane
 * moves to another word). Free with cc_analysis_fpw_free, after cc_analysis_fpw_flush. */
cc_give struct cc_fp_writer *cc_analysis_fpw_new(cc_keep struct cc_fp_shared *fs);
/* ORs w's pending bits into its footprint and forgets them (NULL: nothing). Any thread,
 * once w's thread no longer adds (the caller orders the two, e.g. by a mutex or a join). */
void cc_analysis_fpw_flush(cc_keep struct cc_fp_writer *w);
void cc_analysis_fpw_free(cc_take struct cc_fp_writer *w);

/* Adds addr[l] to w's footprint for each lane l set in mask (addr: 32 entries), from w's
 * thread. Returns the lanes not taken (unaligned, or no room: see above), which the
 * caller must add to a footprint of its own. */
uint32_t cc_analysis_fps_add_lanes(cc_keep struct cc_fp_writer *w, const uint64_t *addr,
                                   uint32_t mask);
/* cc_analysis_fps_add_lanes of all 32 lanes when the caller knows them a progression
 * going up (access.h cc_access_progression; step bytes apart): a coalesced run's lanes
 * are not tested again. Same result and return. */
uint32_t cc_analysis_fps_add_progression(cc_keep struct cc_fp_writer *w, const uint64_t *addr,
                                         uint64_t step);

/* Adds every address of fs[i] to fp[i] (a union) for i < n, and frees fs[i] (NULL
 * entries: nothing), on up to `threads` threads (this one and those it starts, no more
 * than there are parts): each footprint is split into parts of at least 64 leaves (at
 * most `threads`), and each part, a share of its leaves in address order, is built on
 * the set's own grid (its least address, the gcd of its differences) by whichever thread
 * takes it, which then frees those leaves; the parts are joined (footprint.h
 * cc_analysis_fp_concat). Why threads: the bitmaps were written by the other cores;
 * reading them, making the chunks and freeing the leaves took 6-10 ms on one thread after
 * a transpose at 4096^2. Why all at once: a thread pool per footprint cost 10-50 us a
 * thread started, for each of the kernel's instructions. Call once every writer of them
 * is flushed and the adding threads are done (ordered before this call). */
void cc_analysis_fps_finish_all(cc_take struct cc_fp_shared *const *fs,
                                cc_keep struct cc_footprint *const *fp, size_t n,
                                unsigned threads);

#endif
