/* The model registry: architecture name -> rules. See model.h.
 *
 * Each row names one architecture and the rule files serving it. The older models of
 * MODELS.md (cc1.0/1.1 strict half-warp, cc1.2/1.3 segments, cc2.x L1 lines) are added as
 * one file each (global_cc1x.c, ...) defining a struct cc_model_rules, plus rows here;
 * until then their names are unknown and cc_model_get says which names are. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_impl.h"
#include "util/mem.h"

struct row {
  const char *name;
  const char *alias; /* second spelling, e.g. "cc9.0" for "sm_90", or NULL */
  const struct cc_model_rules *global;
  const struct cc_model_rules *shared;
};

/* Sector-based architectures all share one global and one shared rule; each keeps its
 * own name so that reports say what was asked for. */
static const struct row rows[] = {
  { "sm_90", "cc9.0", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_89", "cc8.9", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_86", "cc8.6", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_80", "cc8.0", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_75", "cc7.5", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_70", "cc7.0", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_61", "cc6.1", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_60", "cc6.0", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_52", "cc5.2", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "sm_50", "cc5.0", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "cc3.0", "sm_30", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "cc3.2", "sm_32", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "cc3.5", "sm_35", &cc_model_rules_sector32, &cc_model_rules_banks32 },
  { "cc3.7", "sm_37", &cc_model_rules_sector32, &cc_model_rules_banks32 },
};

#define DEFAULT_ARCH "sm_90"

/* Writes "sm_90, sm_89, ..." into buf (cap bytes). */
static void known_names(char *buf, size_t cap)
{
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof rows / sizeof rows[0] && used < cap; i++) {
    int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", rows[i].name);
    if (n < 0)
      break;
    used += (size_t)n;
  }
}

int cc_model_get(const char *arch, const struct cc_model_opts *opts,
                 struct cc_model **out, struct cc_err *err)
{
  char names[512];
  *out = NULL;
  if (!arch || !*arch)
    arch = DEFAULT_ARCH;
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const struct row *r = &rows[i];
    if (strcmp(arch, r->name) != 0 && !(r->alias && strcmp(arch, r->alias) == 0))
      continue;
    struct cc_model *m = cc_xcalloc(1, sizeof *m);
    m->name = r->name;
    m->global_rules = r->global;
    m->shared_rules = r->shared;
    if (opts)
      m->opts = *opts;
    if (m->opts.smem_bank_width != 0 && m->opts.smem_bank_width != 4 &&
        !(m->opts.smem_bank_width == 8 && strncmp(r->name, "cc3.", 4) == 0)) {
      int bad = m->opts.smem_bank_width;
      free(m);
      return cc_err_set(err, CC_ERR_USAGE,
                        "shared memory bank width %d is not available on %s: use 4 "
                        "(8 only on cc3.x)", bad, r->name);
    }
    *out = m;
    return CC_OK;
  }
  known_names(names, sizeof names);
  return cc_err_set(err, CC_ERR_USAGE, "unknown architecture '%s': use one of %s", arch,
                    names);
}

void cc_model_free(struct cc_model *m)
{
  free(m);
}

const char *cc_model_name(const struct cc_model *m)
{
  return m->name;
}

uint32_t cc_model_group_lanes(const struct cc_model *m)
{
  return m->global_rules->group_lanes;
}

void cc_model_global(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_global_cost *out)
{
  m->global_rules->global(m, a, out);
}

void cc_model_shared(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_shared_cost *out)
{
  m->shared_rules->shared(m, a, out);
}
