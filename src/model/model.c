/* The model registry: architecture name -> rules. See model.h.
 *
 * Each row names one architecture and the rule files serving it (one rule per file, the
 * rule and its source at the top of each): global_cc10.c, global_cc12.c, global_cc20.c,
 * global_sector32.c for global/local memory; shared_banks16.c, shared_banks32.c for
 * shared memory. */
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
  { "cc2.0", "sm_20", &cc_model_rules_cc20, &cc_model_rules_banks32 },
  { "cc2.1", "sm_21", &cc_model_rules_cc20, &cc_model_rules_banks32 },
  { "cc1.0", "sm_10", &cc_model_rules_cc10, &cc_model_rules_banks16 },
  { "cc1.1", "sm_11", &cc_model_rules_cc10, &cc_model_rules_banks16 },
  { "cc1.2", "sm_12", &cc_model_rules_cc12, &cc_model_rules_banks16 },
  { "cc1.3", "sm_13", &cc_model_rules_cc12, &cc_model_rules_banks16 },
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

/* Checks opts against row r: CC_OK, or CC_ERR_USAGE with what to use instead. */
static int check_opts(const struct row *r, const struct cc_model_opts *o, struct cc_err *err)
{
  if (o->smem_bank_width != 0 && o->smem_bank_width != 4 &&
      !(o->smem_bank_width == 8 && strncmp(r->name, "cc3.", 4) == 0))
    return cc_err_set(err, CC_ERR_USAGE,
                      "shared memory bank width %d is not available on %s: use 4 "
                      "(8 only on cc3.x)", o->smem_bank_width, r->name);
  if (o->l1_cache < CC_MODEL_L1_OFF || o->l1_cache > CC_MODEL_L1_ON)
    return cc_err_set(err, CC_ERR_USAGE,
                      "l1 cache option %d is not valid: use -1 (L2 only), 0 (default) or "
                      "1 (cached in L1)", o->l1_cache);
  return CC_OK;
}

/* The row named arch (either spelling), or NULL. */
static const struct row *find_row(const char *arch)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    const struct row *r = &rows[i];
    if (strcmp(arch, r->name) == 0 || (r->alias && strcmp(arch, r->alias) == 0))
      return r;
  }
  return NULL;
}

int cc_model_get(const char *arch, const struct cc_model_opts *opts,
                 struct cc_model **out, struct cc_err *err)
{
  char names[512];
  struct cc_model_opts o = { 0 };
  const struct row *r;
  int rc;
  *out = NULL;
  if (!arch || !*arch)
    arch = DEFAULT_ARCH;
  if (opts)
    o = *opts;
  if (!(r = find_row(arch))) {
    known_names(names, sizeof names);
    return cc_err_set(err, CC_ERR_USAGE, "unknown architecture '%s': use one of %s", arch,
                      names);
  }
  if ((rc = check_opts(r, &o, err)) != CC_OK)
    return rc;
  struct cc_model *m = cc_xcalloc(1, sizeof *m);
  m->name = r->name;
  m->global_rules = r->global;
  m->shared_rules = r->shared;
  m->opts = o;
  *out = m;
  return CC_OK;
}

int cc_model_get_list(const char *list, const struct cc_model_opts *opts,
                      struct cc_model ***out, size_t *n, struct cc_err *err)
{
  struct cc_model **ms = NULL;
  size_t count = 0;
  const char *p = list ? list : "";
  int rc = CC_OK;
  *out = NULL;
  *n = 0;
  if (!*p)
    return cc_err_set(err, CC_ERR_USAGE,
                      "empty architecture list: use e.g. --arch cc1.0,cc1.2,sm_90");
  for (;;) {
    size_t len = strcspn(p, ",");
    char *name = cc_xstrndup(p, len);
    struct cc_model *m = NULL;
    if (len == 0)
      rc = cc_err_set(err, CC_ERR_USAGE,
                      "empty name in architecture list '%s': separate names by one comma",
                      list);
    else
      rc = cc_model_get(name, opts, &m, err);
    for (size_t i = 0; rc == CC_OK && i < count; i++)
      if (strcmp(ms[i]->name, m->name) == 0)
        rc = cc_err_set(err, CC_ERR_USAGE,
                        "architecture %s is named twice in '%s': name each once",
                        m->name, list);
    free(name);
    if (rc != CC_OK) {
      cc_model_free(m);
      cc_model_free_list(ms, count);
      return rc;
    }
    ms = cc_xrealloc(ms, (count + 1) * sizeof *ms);
    ms[count++] = m;
    if (p[len] == '\0')
      break;
    p += len + 1;
  }
  *out = ms;
  *n = count;
  return CC_OK;
}

void cc_model_free_list(struct cc_model **ms, size_t n)
{
  if (!ms)
    return;
  for (size_t i = 0; i < n; i++)
    cc_model_free(ms[i]);
  free(ms);
}

void cc_model_free(struct cc_model *m)
{
  free(m);
}

const char *cc_model_name(const struct cc_model *m)
{
  return m->name;
}

const char *cc_model_global_family(const struct cc_model *m)
{
  return m->global_rules->family;
}

const char *cc_model_shared_family(const struct cc_model *m)
{
  return m->shared_rules->family;
}

int cc_model_counts_sectors(const struct cc_model *m)
{
  return m->global_rules == &cc_model_rules_sector32;
}

uint32_t cc_model_group_lanes(const struct cc_model *m)
{
  return m->global_rules->group_lanes;
}

/* cc_model_global and cc_model_global_list: the rule of m, listing into list unless
 * NULL. */
static void global_cost(const struct cc_model *m, const struct cc_warp_access *a,
                        struct cc_global_cost *out, struct cc_model_txns *list)
{
  if (a->space == CC_SPACE_LOCAL) {
    /* per-thread offsets -> the interleaved addresses the rules are written for. Wider
     * than 4 bytes: one 4-byte access per word, word j 128 x j bytes after word 0 in
     * every lane (the H200 counts 2 requests per 8-byte LDL/STL) */
    struct cc_warp_access phys;
    cc_model_local_layout(a, &phys);
    uint32_t words = cc_access_words(a->space, a->size_bytes);
    if (words > 1)
      phys.size_bytes = 4;
    memset(out, 0, sizeof *out);
    for (uint32_t j = 0; j < words; j++) {
      struct cc_global_cost c;
      if (list)
        list->request_base = out->requests;
      m->global_rules->global(m, &phys, &c, list);
      out->requests += c.requests;
      out->transactions += c.transactions;
      out->transaction_bytes += c.transaction_bytes;
      out->sectors += c.sectors;
      out->ideal_sectors += c.ideal_sectors;
      out->lines += c.lines;
      out->bytes_requested += c.bytes_requested;
      out->unique_bytes += c.unique_bytes;
      for (int l = 0; l < CC_WARP_SIZE; l++)
        phys.addr[l] += 4 * CC_WARP_SIZE;
    }
    return;
  }
  m->global_rules->global(m, a, out, list);
}

void cc_model_global(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_global_cost *out)
{
  global_cost(m, a, out, NULL);
}

uint32_t cc_model_global_list(const struct cc_model *m, const struct cc_warp_access *a,
                              struct cc_global_cost *out, struct cc_model_transaction *t,
                              uint32_t cap)
{
  struct cc_model_txns list = {t, 0, cap, 0};
  global_cost(m, a, out, &list);
  return list.n;
}

void cc_model_shared(const struct cc_model *m, const struct cc_warp_access *a,
                     struct cc_shared_cost *out)
{
  m->shared_rules->shared(m, a, out);
}
