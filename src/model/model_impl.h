/* coalcheck models, inside the folder only: what a model file provides and what the
 * registry (model.c) holds. Adding an architecture = one file defining a const
 * struct cc_model_rules plus one row in model.c's table. */
#ifndef CC_MODEL_MODEL_IMPL_H
#define CC_MODEL_MODEL_IMPL_H

#include "model/model.h"

/* The rules of one family of architectures. Both functions fill *out completely. */
struct cc_model_rules {
  const char *family;    /* for messages and docs, e.g. "32-byte sectors (cc3.x, sm_50..sm_90)" */
  uint32_t group_lanes;  /* Algorithm 1's W: 16 below cc2.0, else 32 */
  void (*global)(const struct cc_model *m, const struct cc_warp_access *a,
                 struct cc_global_cost *out);
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

/* Global/local rule of cc3.x and sm_50..sm_90: global_sector32.c. */
extern const struct cc_model_rules cc_model_rules_sector32;
/* Shared rule of sm_50..sm_90 (and cc3.x, bank width from the options): shared_banks32.c. */
extern const struct cc_model_rules cc_model_rules_banks32;

#endif
