/* coalcheck memory models: what one warp access costs on one GPU generation.
 *
 * A model maps a struct cc_warp_access to the memory transactions (sectors on sector-based
 * architectures) the hardware issues, and, for shared memory, to bank-conflict ways and
 * wavefronts. Rules and their sources: ../shared/MODELS.md, stated again in each model's
 * file. One rule per file (global_cc10.c, global_cc12.c, global_cc20.c,
 * global_sector32.c, shared_banks16.c, shared_banks32.c); this header is the only
 * interface.
 *
 * The default is sm_90 (Hopper): a warp-level global request touches the distinct 32-byte
 * sectors holding its active lanes' bytes; one request per warp-level instruction (measured
 * on H200 against Nsight Compute's l1tex__t_requests/sectors_pipe_lsu_mem_global_op_*). */
#ifndef CC_MODEL_MODEL_H
#define CC_MODEL_MODEL_H

#include <stdint.h>

#include "access/access.h"
#include "util/err.h"

struct cc_model; /* opaque: one architecture with its options */

/* Values of cc_model_opts.l1_cache. */
enum cc_model_l1 {
  CC_MODEL_L1_OFF = -1,    /* cc2.x global loads cached in L2 only (-Xptxas -dlcm=cg) */
  CC_MODEL_L1_DEFAULT = 0, /* the architecture's default: on cc2.x, cached in L1 */
  CC_MODEL_L1_ON = 1       /* cc2.x global loads cached in L1, 128-byte lines (-dlcm=ca) */
};

/* Options of a model. All zero = every architecture's defaults. */
struct cc_model_opts {
  int l1_cache;        /* enum cc_model_l1. Changes cc2.x only: cc1.x has no L1, and on
                          cc3.x..sm_90 global accesses move 32-byte sectors either way */
  int smem_bank_width; /* 0 (default: 4) or 4; 8 on cc3.x only (8-byte bank mode) */
};

/* Finds the model for an architecture name: "sm_90" (default; also for NULL or ""),
 * sm_50, sm_52, sm_60, sm_61, sm_70, sm_75, sm_80, sm_86, sm_89, cc3.0, cc3.2, cc3.5,
 * cc3.7, cc2.0, cc2.1, cc1.0, cc1.1, cc1.2, cc1.3; "ccX.Y" and "sm_XY" spell the same
 * model. opts may be NULL (all zero: defaults). On success *out is a new model the caller
 * frees with cc_model_free. Errors: CC_ERR_USAGE for an unknown name (the message lists
 * the known ones) or a bad option (smem_bank_width other than 0 or 4, 8 being allowed on
 * cc3.x only; l1_cache other than -1, 0, 1). */
int cc_model_get(const char *arch, const struct cc_model_opts *opts,
                 cc_give struct cc_model **out, struct cc_err *err);
/* Frees m; NULL is allowed. */
void cc_model_free(cc_take struct cc_model *m);

/* Makes one model per name of the comma-separated list ("cc1.0,cc1.2,sm_90"), in the
 * order given, all with opts (may be NULL), for `--arch A,B,C`. On success *out is a new
 * array of *n models, freed with cc_model_free_list. Errors: CC_ERR_USAGE for an empty
 * list or an empty name ("cc1.0,,sm_90"), an architecture named twice (under either
 * spelling: "sm_80,cc8.0"), or any error of cc_model_get; on failure *out is NULL, *n 0
 * and nothing is left allocated. */
int cc_model_get_list(const char *list, const struct cc_model_opts *opts,
                      cc_give struct cc_model ***out, size_t *n, struct cc_err *err);
/* Frees the n models of ms and the array; NULL is allowed. */
void cc_model_free_list(cc_take struct cc_model **ms, size_t n);

/* Canonical name, e.g. "sm_90". */
const char *cc_model_name(const struct cc_model *m);
/* The rule families serving m, for messages and docs: e.g. "half-warps, segment protocol
 * with shrinking (cc1.2, cc1.3)" (global) and "16 banks, ..." (shared). */
/* Both strings are static (never freed). */
const char *cc_model_global_family(const struct cc_model *m);
const char *cc_model_shared_family(const struct cc_model *m);
/* Non-zero when m's global transactions are 32-byte sectors (cc3.x, sm_50 and later), so
 * that transactions == sectors; 0 for the cc1.x/cc2.x rules, whose transactions are
 * 32/64/128-byte segments or lines (MODELS.md). */
int cc_model_counts_sectors(const struct cc_model *m);
/* Lanes per Algorithm 1 group: 16 below cc2.0, else 32 (CGO 2015, Algorithm 1's W). */
uint32_t cc_model_group_lanes(const struct cc_model *m);

/* Cost of one global (or local) memory warp access. */
struct cc_global_cost {
  uint32_t requests;          /* requests the instruction issues (1 on sm_90; half-warps on
                                 cc1.x; 128-byte requests on cc2.x) */
  uint32_t transactions;      /* transactions; sectors on sector-based architectures */
  uint32_t transaction_bytes; /* bytes moved = sum of transaction sizes */
  uint32_t sectors;           /* distinct 32-byte sectors touched */
  uint32_t ideal_sectors;     /* fewest 32-byte sectors that could hold the unique bytes */
  uint32_t lines;             /* distinct 128-byte lines touched */
  uint32_t bytes_requested;   /* active lanes x size */
  uint32_t unique_bytes;      /* distinct bytes requested */
};

/* Cost of one shared memory warp access. */
struct cc_shared_cost {
  uint32_t requests;          /* 1 from cc2.0 on; half-warps x 32-bit pieces on cc1.x */
  uint32_t ways;              /* largest number of distinct words in one bank, in one phase;
                                 cc1.x: most steps of one request (one broadcast word per
                                 step, shared_banks16.c) */
  uint32_t wavefronts;        /* phases the hardware needs (sum over requests) */
  uint32_t ideal_wavefronts;  /* wavefronts without conflicts */
};

/* Computes the cost of a global/local access a under model m. Lanes not in a->active are
 * ignored. An access with no active lane costs 0 everywhere but requests (1). The rule of
 * each architecture and its source: the header comment of its file (global_*.c).
 * Local memory: a->addr holds each lane's offset in its own window (access.h); the
 * offsets are first laid out as the hardware interleaves them (cc_model_local_layout:
 * 32-bit word w of lane l at w x 128 + l x 4), an access wider than 4 bytes is costed
 * as one 4-byte access per word (requests included: 2 for an 8-byte access, as Nsight
 * Compute counts on the H200), and all figures, unique_bytes included, are of those
 * addresses. */
void cc_model_global(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_global_cost *out);

/* One transaction of a global/local warp access as a model issues it (the operation
 * view draws them): the aligned block [addr, addr + bytes) moved, the lanes it serves
 * (bit l: lane l) and the request it belongs to (0 .. requests - 1: the half-warp on
 * cc1.x, the 128-byte request on cc2.x, 0 on the sector models; for a local access wider
 * than 4 bytes, word j's requests follow word j - 1's). */
struct cc_model_transaction {
  uint64_t addr;
  uint32_t bytes;
  uint32_t lanes;
  uint32_t request;
};

/* The most transactions one warp access can have: 32 lanes whose bytes straddle two
 * units each, times 4 words for a 16-byte local access. */
#define CC_MODEL_MAX_TRANSACTIONS 256u

/* cc_model_global, and the transactions it counts listed into t (cap entries, at most
 * CC_MODEL_MAX_TRANSACTIONS needed) in the order the rule issues them. Returns how many
 * were listed: out->transactions when cap suffices (the listing and the count come from
 * the same rule code, global_*.c), else cap (the rest not listed). The sums of the
 * listed bytes is out->transaction_bytes. Sector models list the distinct 32-byte sectors
 * (ascending within a request). Local accesses list the interleaved layout's addresses
 * (cc_model_local_layout). */
uint32_t cc_model_global_list(const struct cc_model *m, const struct cc_warp_access *a,
                              struct cc_global_cost *out, struct cc_model_transaction *t,
                              uint32_t cap);

/* The hardware's interleaved local-memory layout of one warp access: copies a into *out
 * (a and out may not overlap) with each lane's per-thread offset a->addr[l] (the offset
 * in the lane's own local window, as the emulator and the GPU trace report local
 * accesses, a->space == CC_SPACE_LOCAL) replaced by the address of its first byte in the
 * layout: 32-bit word w = off / 4 of lane l lies at w x 128 + l x 4 (+ off % 4).
 * Addresses are relative to the warp's local area, so that a warp-uniform offset gives
 * 32 consecutive words. size_bytes is kept: an access wider than 4 bytes covers the same
 * lane's next words, 128 bytes apart (cc_model_global costs it word by word). Source: CUDA
 * C Programming Guide, "Device Memory Accesses, Local Memory": "local memory is organized
 * such that consecutive 32-bit words are accessed by consecutive thread IDs"; confirmed
 * on the H200 against Nsight Compute (bench/results/gpu-check-2026-11-22b.md): an 8-byte
 * LDL/STL is 2 requests, and lanes reading alternate 8-byte elements touch the sectors
 * of 4-byte interleaving, not 8-byte. Used by cc_model_global for local accesses and by
 * the analysis (Algorithm 1 strides, allStr) on the same addresses. Cannot fail; offsets
 * that overflow 64 bits wrap (the emulator's windows are small). */
void cc_model_local_layout(const struct cc_warp_access *a, struct cc_warp_access *out);

/* Computes the shared-memory cost of a (a->space == CC_SPACE_SHARED) under model m. An
 * access with no active lane costs 0 everywhere but requests (1). Rules and sources: the
 * header comment of shared_banks16.c (cc1.x) and shared_banks32.c (cc2.0 on). */
void cc_model_shared(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_shared_cost *out);

#endif
