/* coalcheck memory models: what one warp access costs on one GPU generation.
 *
 * A model maps a struct cc_warp_access to the memory transactions (sectors on sector-based
 * architectures) the hardware issues, and, for shared memory, to bank-conflict ways and
 * wavefronts. Rules and their sources: ../shared/MODELS.md, stated again in each model's
 * file. One model per file (global_sm90.c, ...); this header is the only interface.
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

struct cc_model_opts {
  int l1_cache;        /* cc2.x: 1 = loads cached in L1 (128-byte lines), 0 = L2 only */
  int smem_bank_width; /* cc3.x: 4 or 8 bytes */
};

/* Finds the model for an architecture name: "sm_90" (default; also for NULL or ""),
 * sm_50, sm_52, sm_60, sm_61, sm_70, sm_75, sm_80, sm_86, sm_89, and cc3.0, cc3.2, cc3.5,
 * cc3.7; "ccX.Y" and "sm_XY" spell the same model. opts may be NULL (all zero: defaults).
 * Not yet implemented: cc1.x and cc2.x (MODELS.md). On success *out is a new model the
 * caller frees with cc_model_free. Errors: CC_ERR_USAGE for an unknown name (the message
 * lists the known ones) or an option the architecture lacks (smem_bank_width other than
 * 0 or 4; 8 is allowed on cc3.x only). */
int cc_model_get(const char *arch, const struct cc_model_opts *opts,
                 cc_give struct cc_model **out, struct cc_err *err);
/* Frees m; NULL is allowed. */
void cc_model_free(cc_take struct cc_model *m);

/* Canonical name, e.g. "sm_90". */
const char *cc_model_name(const struct cc_model *m);
/* Lanes per Algorithm 1 group: 16 below cc2.0, else 32 (CGO 2015, Algorithm 1's W). */
uint32_t cc_model_group_lanes(const struct cc_model *m);

/* Cost of one global (or local) memory warp access. */
struct cc_global_cost {
  uint32_t requests;          /* requests the instruction issues (1 on sm_90) */
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
  uint32_t requests;
  uint32_t ways;              /* largest number of distinct words in one bank, in one phase */
  uint32_t wavefronts;        /* phases the hardware needs (sum over requests) */
  uint32_t ideal_wavefronts;  /* wavefronts without conflicts */
};

/* Computes the cost of a global/local access a under model m. Lanes not in a->active are
 * ignored. An access with no active lane costs 0 everywhere but requests. */
void cc_model_global(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_global_cost *out);

/* Computes the shared-memory cost of a (a->space == CC_SPACE_SHARED) under model m. */
void cc_model_shared(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_shared_cost *out);

#endif
