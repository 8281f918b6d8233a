/* The --json report of `coalcheck fix` (docs/json-schema.md, "fix report"): the
 * candidates with their cost under each strategy, the choice, and the before/after
 * reports in the main job's own schema. */
#include "fix/fix_impl.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/report.h"
#include "util/mem.h"

#define FIX_SCHEMA_VERSION 2

static cJSON *dim3(const uint32_t d[3])
{
  double v[3] = {d[0], d[1], d[2]};
  return cJSON_CreateDoubleArray(v, 3);
}

static cJSON *candidate_json(const struct cc_fix_candidate *c)
{
  cJSON *o = cJSON_CreateObject();
  double s[3] = {c->perm.sigma[0], c->perm.sigma[1], c->perm.sigma[2]};
  cJSON_AddStringToObject(o, "permutation", cc_fix_perm_name(&c->perm));
  cJSON_AddBoolToObject(o, "reshaped", c->reshaped);
  cJSON_AddNumberToObject(o, "plays", c->plays);
  cJSON_AddNumberToObject(o, "vector", c->vec);
  cJSON_AddItemToObject(o, "sigma", cJSON_CreateDoubleArray(s, 3));
  cJSON_AddBoolToObject(o, "legal", c->legal);
  if (!c->legal)
    cJSON_AddStringToObject(o, "why_not", c->why);
  cJSON_AddItemToObject(o, "grid", dim3(c->grid));
  cJSON_AddItemToObject(o, "block", dim3(c->block));
  cJSON_AddNumberToObject(o, "model_cost", c->model_cost);
  if (c->measured) {
    cJSON_AddNumberToObject(o, "measured_sectors", (double)c->sectors);
    cJSON_AddNumberToObject(o, "measured_excess_sectors", (double)c->excess_sectors);
    cJSON_AddNumberToObject(o, "measured_wavefronts", (double)c->wavefronts);
  } else {
    cJSON_AddNullToObject(o, "measured_sectors");
  }
  if (c->gpu_ms > 0)
    cJSON_AddNumberToObject(o, "gpu_ms", c->gpu_ms);
  return o;
}

static cJSON *xcand_json(const struct cc_fix_xcand *c)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "transform", c->transform);
  cJSON_AddStringToObject(o, "what", c->what);
  cJSON_AddStringToObject(o, "why", c->why);
  cJSON_AddItemToObject(o, "grid", dim3(c->grid));
  cJSON_AddItemToObject(o, "block", dim3(c->block));
  cJSON_AddNumberToObject(o, "shared_bytes", c->shared_bytes);
  cJSON_AddStringToObject(o, "compare", c->compare == CC_FIX_COMPARE_BITWISE ? "bitwise"
                                                                             : "reassociated");
  if (c->compare == CC_FIX_COMPARE_REASSOCIATED)
    cJSON_AddNumberToObject(o, "terms", (double)c->terms);
  cJSON_AddBoolToObject(o, "verified", c->verified);
  cJSON_AddBoolToObject(o, "alternate", c->alternate);
  if (c->measured) {
    cJSON_AddNumberToObject(o, "measured_sectors", (double)c->sectors);
    cJSON_AddNumberToObject(o, "measured_excess_sectors", (double)c->excess_sectors);
    cJSON_AddNumberToObject(o, "measured_wavefronts", (double)c->wavefronts);
  }
  if (c->failure[0])
    cJSON_AddStringToObject(o, "failure", c->failure);
  if (c->gpu_ms > 0)
    cJSON_AddNumberToObject(o, "gpu_ms", c->gpu_ms);
  if (c->extra_name)
    cJSON_AddStringToObject(o, "extra_file", c->extra_name);
  return o;
}

/* p->refusals ("NAME: reason" lines) as [{"transform": NAME, "reason": ...}]. */
static cJSON *refusals_json(const char *s)
{
  cJSON *a = cJSON_CreateArray();
  while (*s) {
    size_t n = strcspn(s, "\n"), k = strcspn(s, ":");
    cJSON *o = cJSON_CreateObject();
    char *line = cc_xmalloc(n + 1);
    memcpy(line, s, n);
    line[n] = '\0';
    if (k < n) {
      line[k] = '\0';
      cJSON_AddStringToObject(o, "transform", line);
      cJSON_AddStringToObject(o, "reason", line + k + (k + 1 < n && line[k + 1] == ' ' ? 2 : 1));
    } else {
      cJSON_AddStringToObject(o, "reason", line);
    }
    cJSON_AddItemToArray(a, o);
    free(line);
    s += n + (s[n] == '\n');
  }
  return a;
}

/* The main job's JSON document of measurement m, parsed back into a cJSON tree. */
static cJSON *report_json(const struct cc_fix_measure *m)
{
  char *text = cc_report_json_string(m->an, NULL);
  cJSON *o = cJSON_Parse(text);
  free(text);
  return o ? o : cJSON_CreateNull();
}

int cc_fix_write_json(const struct cc_fix_opts *o, const struct cc_fix_plan *p,
                      struct cc_err *err)
{
  cJSON *root = cJSON_CreateObject(), *cands = cJSON_CreateArray();
  cJSON_AddNumberToObject(root, "fix_schema_version", FIX_SCHEMA_VERSION);
  cJSON_AddStringToObject(root, "input", o->input);
  cJSON_AddStringToObject(root, "kernel", o->kernel_name);
  cJSON_AddStringToObject(root, "requested_transform", cc_fix_transform_name(o->transform));
  if (p->verified && p->transform)
    cJSON_AddStringToObject(root, "transform", p->transform);
  else
    cJSON_AddNullToObject(root, "transform");
  cJSON_AddStringToObject(root, "strategy",
                          o->strategy == CC_FIX_STRATEGY_EMPIRICAL ? "empirical" : "model");
  cJSON_AddBoolToObject(root, "verified", p->verified);
  if (p->verified && p->xchosen >= 0)
    cJSON_AddItemToObject(root, "chosen", xcand_json(&p->x.data[p->xchosen]));
  else if (p->chosen >= 0) {
    cJSON *c = candidate_json(&p->cands[p->chosen]);
    if (p->cands[p->chosen].plays > 1 || p->cands[p->chosen].vec > 1) /* the form, why */
      cJSON_AddStringToObject(c, "plays_form", p->plays_form);
    cJSON_AddItemToObject(root, "chosen", c);
  }
  else
    cJSON_AddNullToObject(root, "chosen");
  if (p->verified) {
    cJSON_AddStringToObject(root, "what", p->what);
    cJSON_AddStringToObject(root, "why", p->why);
    cJSON_AddItemToObject(root, "grid", dim3(p->grid));
    cJSON_AddItemToObject(root, "block", dim3(p->block));
    cJSON_AddNumberToObject(root, "shared_bytes", p->shared_bytes);
    cJSON_AddBoolToObject(root, "bitwise_equal", p->compare == CC_FIX_COMPARE_BITWISE);
    if (p->compare == CC_FIX_COMPARE_REASSOCIATED) {
      cJSON_AddNumberToObject(root, "terms", (double)p->terms);
      cJSON_AddNumberToObject(root, "max_error_of_bound", p->max_rel);
    }
  }
  if (!p->verified)
    cJSON_AddStringToObject(root, "reason", p->reason);
  cJSON_AddNumberToObject(root, "model_seconds", p->model_seconds);
  if (o->strategy == CC_FIX_STRATEGY_EMPIRICAL)
    cJSON_AddNumberToObject(root, "empirical_seconds", p->empirical_seconds);
  cJSON_AddNumberToObject(root, "non_affine_requests", (double)p->unknown_requests);
  if (p->ncands == 6)
    cJSON_AddStringToObject(root, "no_reshape", p->no_reshape);
  for (int i = 0; i < p->ncands; i++)
    cJSON_AddItemToArray(cands, candidate_json(&p->cands[i]));
  cJSON_AddItemToObject(root, "candidates", cands);
  {
    cJSON *xs = cJSON_CreateArray();
    for (size_t i = 0; i < p->x.len; i++)
      cJSON_AddItemToArray(xs, xcand_json(&p->x.data[i]));
    cJSON_AddItemToObject(root, "source_candidates", xs);
  }
  cJSON_AddItemToObject(root, "refusals", refusals_json(p->refusals));
  if (p->launch_note)
    cJSON_AddStringToObject(root, "launch_note", p->launch_note);
  if (p->verified)
    cJSON_AddStringToObject(root, "remaining", p->remaining);
  if (p->warp_note[0])
    cJSON_AddStringToObject(root, "warp_note", p->warp_note);
  if (p->gpu_runs) {
    cJSON *g = cJSON_AddObjectToObject(root, "gpu");
    cJSON_AddNumberToObject(g, "runs", p->gpu_runs);
    cJSON_AddNumberToObject(g, "ms_before", p->gpu_ms_before);
    cJSON_AddNumberToObject(g, "ms_after", p->gpu_ms_after);
    cJSON_AddNumberToObject(g, "speedup", p->gpu_ms_before / p->gpu_ms_after);
  }
  cJSON_AddItemToObject(root, "before", report_json(&p->before));
  if (p->verified)
    cJSON_AddItemToObject(root, "after", report_json(&p->after));
  return cc_report_json_write_text(o->json_path, cc_report_json_finish(root), err);
}
