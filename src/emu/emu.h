/* coalcheck SIMT emulator: runs one kernel launch of a parsed PTX module on the CPU.
 *
 * Execution model (what the GPU guarantees, no more): CTAs run one after another; the
 * warps of a CTA are scheduled cooperatively (a warp runs until it exits or reaches a
 * barrier); a warp is 32 lanes in linear thread order (x fastest, then y, then z). Every
 * executed global/shared/local memory instruction of a warp is delivered to an access
 * sink as a struct cc_warp_access (src/access/access.h).
 *
 * Memory: device-like addresses. Global allocations are 256-byte aligned (as cudaMalloc's).
 * Every access is bounds-checked; an access outside any allocation stops the run with a
 * memcheck-style report (CC_ERR_MEMCHECK). An instruction budget stops runaway kernels
 * (CC_ERR_LIMIT): per CTA by default, or one for the whole launch (max_warp_insns).
 * Instructions the emulator does not implement are named, with their PTX line, before the
 * run starts (CC_ERR_UNSUPPORTED).
 *
 * Ownership: struct cc_emu borrows the module (which must outlive it) and owns all
 * emulated memory. */
#ifndef CC_EMU_EMU_H
#define CC_EMU_EMU_H

#include <stddef.h>
#include <stdint.h>

#include "access/access.h"
#include "ptx/ptx.h"
#include "util/err.h"

struct cc_emu;

struct cc_emu_opts {
  uint64_t max_warp_insns; /* budget of warp-level instructions for the whole launch; 0 =
                              the default: each CTA at most cc_emu_cta_budget(its threads) */
  int progress;            /* enum cc_emu_progress: progress on stderr for long runs */
  uint32_t jobs;           /* threads that run the CTAs of a launch (0 or 1: the calling
                              thread only; at most CC_EMU_JOBS_MAX); records still reach
                              the sink in CTA order (README.md, Parallel CTAs) */
  uint64_t buffer_bytes;   /* jobs > 1: bytes of records the workers may hold for CTAs
                              the sink has not reached yet; 0: CC_EMU_BUFFER_PER_JOB
                              per thread, at least 256 MiB */
  uint64_t cta_first, cta_count; /* run only the CTAs cta_first .. cta_first+cta_count-1
                              (linear ids, x fastest: one MPI rank's share); cta_count 0:
                              every CTA. The sink still gets the whole launch's table. */
};

/* The most worker threads of one run (the command line's --jobs bound). */
#define CC_EMU_JOBS_MAX 4096
/* Default bytes of buffered records: 64 MiB per worker thread (about 220,000 records of a
 * full warp; 48 bytes + 8 per active lane each: par.c). */
#define CC_EMU_BUFFER_PER_JOB (UINT64_C(64) << 20)

/* The threads this process may run on (sched_getaffinity, else the online processors),
 * at least 1: the command line's default --jobs. */
uint32_t cc_emu_cores(void);

/* How progress shows on stderr, once a run has lasted 2 s: not at all; a line every 10 s;
 * one line rewritten in place every 0.25 s (a terminal). Each says CTAs done / total, warp
 * instructions, their rate, the time, and the running CTA's use of its default budget
 * ("coalcheck: spin: 0/1 blocks, 126.4 M warp instructions, 10.8 M/s, 11.7 s; this block
 * at 94% of its budget"); a last one ends in "done" or "stopped". */
enum cc_emu_progress { CC_EMU_PROGRESS_NONE, CC_EMU_PROGRESS_LINES, CC_EMU_PROGRESS_TERMINAL };

/* The default budget, per CTA: 2^17 warp instructions per thread of the CTA (2^22 per full
 * warp), at least 2^26. Why these: the bundled examples run at most 8,492 warp
 * instructions per warp and 67,936 per CTA (gesummv, cols.launch); the floor is 1000 times
 * that, the per-warp share 500 times. A CTA that never ends stops after 2^26 (up to 256
 * threads) to 2^27 (1024 threads) warp instructions: 6 to 12 s at the 10.8 M warp
 * instructions/s of a spin loop that loads a flag (tests/e2e/data/kernels.cu spin), where
 * the former launch-wide 2^34 took about 26 minutes. */
#define CC_EMU_CTA_BUDGET_PER_THREAD (UINT64_C(1) << 17)
#define CC_EMU_CTA_BUDGET_MIN (UINT64_C(1) << 26)
/* The default budget of a CTA of threads threads, in warp instructions (see above). */
uint64_t cc_emu_cta_budget(uint32_t threads);

/* Creates an emulator for module m (borrowed). Never fails (allocation aborts). */
cc_give struct cc_emu *cc_emu_new(cc_keep const struct ptx_module *m, const struct cc_emu_opts *opts);
/* Changes when progress shows: after after_s seconds of running (default 2), then every
 * every_s seconds (default 10; a terminal's line 0.25). Values <= 0 keep the default.
 * (The command line's COALCHECK_PROGRESS_SECONDS sets both: tests show progress at once.) */
void cc_emu_progress_timing(struct cc_emu *emu, double after_s, double every_s);

/* Frees emu and its emulated memories (host copies included); the module stays the
 * caller's. NULL is allowed. */
void cc_emu_free(cc_take struct cc_emu *emu);

/* Allocates bytes of emulated global memory, zero-filled, 256-byte aligned. *dev_addr
 * receives the device address kernels use; *host receives a pointer to the backing
 * bytes (owned by emu, valid until cc_emu_free). name labels the buffer in reports.
 * Errors: CC_ERR_INPUT (above 2^40 bytes, or past the 2^47 window), CC_ERR_LIMIT (the
 * host has not the memory: never an abort). */
int cc_emu_alloc(struct cc_emu *emu, uint64_t bytes, const char *name, uint64_t *dev_addr,
                 void **host, struct cc_err *err);

/* Checks that every instruction reachable from kernel k (its body and the .func it
 * calls) is implemented. Errors: CC_ERR_UNSUPPORTED naming each missing instruction as
 * "PATH:LINE: unsupported instruction 'opcode_text'". */
int cc_emu_check(struct cc_emu *emu, cc_keep const struct ptx_function *k, struct cc_err *err);

/* One launch. params[i] is the value of the i-th kernel parameter as raw little-endian
 * bytes (scalars, device pointers): param_bytes[i] bytes at params[i]. */
struct cc_emu_launch {
  uint32_t grid[3], block[3];
  uint32_t dynamic_shared_bytes;
  uint32_t nparams;
  const void *const *params;
  const uint32_t *param_bytes;
};

/* Statistics of a finished (or stopped) run. */
struct cc_emu_stats {
  uint64_t warp_insns;     /* warp-level instructions executed */
  uint64_t thread_insns;   /* sum of active lanes over executed instructions */
  uint64_t warp_accesses;  /* records delivered to the sink */
  uint32_t ctas_done;
  uint32_t jobs;           /* threads that ran the CTAs (1: serial) */
  uint64_t chunks;         /* jobs > 1: runs of consecutive CTAs the threads claimed, each
                              one lock and wake-up (src/emu/README.md, Parallel CTAs) */
  const char *serial_reason; /* jobs > 1 was asked but the run was serial: why (a static
                              string naming the construct), else NULL */
};

/* Runs kernel k (an .entry of the module) with the given launch, delivering records to
 * sink (may be NULL). Calls cc_emu_check first. Errors: CC_ERR_UNSUPPORTED,
 * CC_ERR_MEMCHECK ("invalid global read of size 4 at 0x... by thread (x,y,z) in block
 * (x,y,z): kernel K, PTX line L 'ld.global.f32 ...', source file:line; address is N bytes
 * after the end of buffer B (0x..., S bytes)" or "not in any allocation"), CC_ERR_LIMIT,
 * CC_ERR_KERNEL (trap, misaligned address, barrier deadlock, lanes of a warp at
 * different barriers: README.md, Barriers), or a sink's status. The
 * stats are filled in every case. */
int cc_emu_run(struct cc_emu *emu, cc_keep const struct ptx_function *k,
               const struct cc_emu_launch *launch, struct cc_access_sink *sink,
               struct cc_emu_stats *stats, struct cc_err *err);

/* cc_emu_run with the order-free consumers apart (access.h, struct cc_access_partials;
 * NULL: none, as cc_emu_run): every record goes to the partial of the thread that made
 * it, fed in that thread with no ordering, and to sink's access in the serial order
 * when sink has one (sink->access NULL: no ordered consumer, no records buffered; its
 * begin_kernel and end_kernel are still called). The partials are opened after
 * begin_kernel and closed before end_kernel, merged when the run succeeded (a merge's
 * failure is the run's). Errors: cc_emu_run's, and the partials'. */
int cc_emu_run_split(struct cc_emu *emu, cc_keep const struct ptx_function *k,
                     const struct cc_emu_launch *launch, struct cc_access_sink *sink,
                     const struct cc_access_partials *partials, struct cc_emu_stats *stats,
                     struct cc_err *err);

#endif
