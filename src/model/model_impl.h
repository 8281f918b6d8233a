/* coalcheck models, inside the folder only: what a model file provides and what the
 * registry (model.c) holds. Adding an architecture = one file defining a const
 * struct cc_model_rules plus one row in model.c's table. */
#ifndef CC_MODEL_MODEL_IMPL_H
#define CC_MODEL_MODEL_IMPL_H

#include "model/model.h"

/* Where a global rule lists the transactions it counts (cc_model_global_list), or NULL:
 * the costs only (the analyses' path, which pays one test per transaction). */
struct cc_model_txns {
  struct cc_model_transaction *t;
  uint32_t n, cap;
  uint32_t request_base; /* added to each request number (a local access's word j) */
};

/* Adds one transaction to list (no-op when list is NULL or full). */
void cc_model_txn_add(struct cc_model_txns *list, uint64_t addr, uint32_t bytes,
                      uint32_t lanes, uint32_t request);

/* Lists into list (unless NULL) the distinct aligned units of `unit` bytes touched by the
 * bytes [addr, addr + size) of the lanes in mask & a->active, ascending, each with the
 * lanes touching it, as request `request`. */
void cc_model_list_units(const struct cc_warp_access *a, uint32_t mask, uint64_t unit,
                         uint32_t request, struct cc_model_txns *list);

/* The rules of one family of architectures. Both functions fill *out completely; the
 * global one also lists its transactions into list unless it is NULL. */
struct cc_model_rules {
  const char *family;    /* for messages and docs, e.g. "32-byte sectors (cc3.x, sm_50..sm_90)" */
  uint32_t group_lanes;  /* Algorithm 1's W: 16 below cc2.0, else 32 */
  void (*global)(const struct cc_model *m, const struct cc_warp_access *a,
                 struct cc_global_cost *out, struct cc_model_txns *list);
  void (*shared)(const struct cc_model *m, const struct cc_warp_access *a,
                 struct cc_shared_cost *out);
};

/* A model: a table row (name, rules) plus the options it was made with. */
struct cc_model {
  const char *name;                   /* canonical name, static storage */
  const struct cc_model_rules *global_rules;
  const struct cc_model_rules *shared_rules;
  struct cc_model_opts opts;
};

/* Global/local rule of cc1.0 and cc1.1 (strict half-warp coalescing): global_cc10.c. */
extern const struct cc_model_rules cc_model_rules_cc10;
/* Global/local rule of cc1.2 and cc1.3 (half-warp segment protocol): global_cc12.c. */
extern const struct cc_model_rules cc_model_rules_cc12;
/* Global/local rule of cc2.0 and cc2.1 (128-byte L1 lines, 32-byte L2 segments):
 * global_cc20.c. */
extern const struct cc_model_rules cc_model_rules_cc20;
/* Shared rule of cc1.x (16 banks, half-warps, one broadcast word per step):
 * shared_banks16.c. */
extern const struct cc_model_rules cc_model_rules_banks16;
/* Global/local rule of cc3.x and sm_50..sm_90: global_sector32.c. */
extern const struct cc_model_rules cc_model_rules_sector32;
/* Shared rule of sm_50..sm_90 (and cc3.x, bank width from the options): shared_banks32.c. */
extern const struct cc_model_rules cc_model_rules_banks32;

/* geometry.c: the byte geometry every global rule shares. */

/* Fills out->sectors (distinct 32-byte sectors), lines (distinct 128-byte lines),
 * ideal_sectors (ceil(distinct bytes / 32)), bytes_requested (active lanes x size) and
 * unique_bytes (distinct bytes) of the whole warp access a; leaves the other fields. */
void cc_model_geometry(const struct cc_warp_access *a, struct cc_global_cost *out);
/* Distinct aligned units of `unit` bytes (e.g. 32, 128) that hold the bytes
 * [addr, addr + size) of the lanes in mask & a->active; 0 when no such lane. */
uint32_t cc_model_units(const struct cc_warp_access *a, uint32_t mask, uint64_t unit);
/* Reference forms of the two functions above and of the banks32 shared rule, for the
 * tests only (tests/model/test_model_fastpath.c): the general path they were first
 * written as (a library sort of the lanes' ranges, a division per unit). The fast forms
 * must give exactly their figures. (cc_model_local_layout is public: model.h.) */
void cc_model_geometry_ref(const struct cc_warp_access *a, struct cc_global_cost *out);
uint32_t cc_model_units_ref(const struct cc_warp_access *a, uint32_t mask, uint64_t unit);
void cc_model_shared_banks32_ref(const struct cc_model *m, const struct cc_warp_access *a,
                                 struct cc_shared_cost *out);
/* Mask of lanes [first, first + count); first + count <= 32, count >= 1. */
uint32_t cc_model_lane_mask(uint32_t first, uint32_t count);

#endif
