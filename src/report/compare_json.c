/* The comparison as JSON: document type "coalcheck-compare" (docs/json-schema.md,
 * "Comparison document"), built with cJSON. See compare.h. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/compare.h"
#include "report/json_impl.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/mem.h"


/* The figures of one instruction under one model (the "models" member). */
static cJSON *model_json(const struct cc_insn_stats *s, uint32_t w)
{
  cJSON *o = cJSON_CreateObject();
  double req = (double)s->requests;
  cc_report_json_num(o, "requests", req);
  if (s->info.space == CC_SPACE_SHARED) {
    cc_report_json_num(o, "bank_conflict_ways", s->ways_max);
    cc_report_json_num(o, "wavefronts", (double)s->wavefronts);
    cc_report_json_num(o, "ideal_wavefronts", (double)s->ideal_wavefronts);
    cc_report_json_num(o, "wavefronts_per_request", req ? (double)s->wavefronts / req : 0.0);
    cc_report_json_num(o, "conflict_requests", (double)s->conflict_requests);
  } else {
    cc_report_json_num(o, "transactions", (double)s->transactions);
    cc_report_json_num(o, "transactions_per_request", req ? (double)s->transactions / req : 0.0);
    cc_report_json_num(o, "bytes_transferred", (double)s->bytes_transferred);
    cc_report_json_num(o, "unique_bytes", (double)s->unique_bytes);
    cc_report_json_num(o, "sectors", (double)s->sectors);
    cc_report_json_num(o, "lines", (double)s->lines);
  }
  cc_report_json_num(o, "efficiency", cc_analysis_efficiency(s));
  cc_report_json_num(o, "group_lanes", w);
  cJSON_AddStringToObject(o, "verdict", cc_verdict_name(s->verdict));
  cc_report_json_num(o, "uncoalesced_requests", (double)s->uncoalesced_requests);
  return o;
}

static cJSON *insn_json(const struct cc_analysis *const *ans, size_t n, size_t ki, size_t slot)
{
  const struct cc_kernel_stats *k0 = &ans[0]->kernels[ki];
  const struct cc_insn_stats *s0 = &k0->insns[k0->by_slot[slot]];
  cJSON *o = cJSON_CreateObject(), *models = cJSON_CreateObject();
  cc_report_json_num(o, "ptx_index", s0->info.id);
  cJSON_AddItemToObject(o, "source", cc_report_json_source(s0));
  cJSON_AddItemToObject(o, "ptx",
                        s0->info.text ? cJSON_CreateString(s0->info.text) : cJSON_CreateNull());
  cJSON_AddStringToObject(o, "op", cc_report_json_op(s0->info.kind));
  if (s0->info.kind == CC_ACCESS_REDUCTION)
    cJSON_AddTrueToObject(o, "reduction");
  cJSON_AddStringToObject(o, "space", cc_space_name(s0->info.space));
  cc_report_json_num(o, "size_bytes", s0->info.size_bytes);
  cc_report_json_num(o, "executions", (double)s0->executions);
  cc_report_json_num(o, "thread_accesses", (double)s0->thread_accesses);
  cc_report_json_num(o, "bytes_requested", (double)s0->bytes_requested);
  for (size_t m = 0; m < n; m++) {
    const struct cc_kernel_stats *k = &ans[m]->kernels[ki];
    cJSON_AddItemToObject(models, cc_model_name(ans[m]->model),
                          model_json(&k->insns[k->by_slot[slot]], ans[m]->group_lanes));
  }
  cJSON_AddItemToObject(o, "models", models);
  return o;
}

static cJSON *totals_json(const struct cc_kernel_stats *k)
{
  const struct cc_kernel_totals *t = &k->totals;
  cJSON *o = cJSON_CreateObject();
  uint64_t transactions = 0;
  for (size_t i = 0; i < k->n_insns; i++)
    if (k->insns[i].info.space != CC_SPACE_SHARED)
      transactions += k->insns[i].transactions;
  cc_report_json_num(o, "requests", (double)t->requests);
  cc_report_json_num(o, "transactions", (double)transactions);
  cc_report_json_num(o, "bytes_requested", (double)t->bytes_requested);
  cc_report_json_num(o, "bytes_transferred", (double)t->bytes_transferred);
  cc_report_json_num(o, "unique_bytes", (double)t->unique_bytes);
  cc_report_json_num(o, "efficiency", cc_analysis_totals_efficiency(t));
  cc_report_json_num(o, "uncoalesced_thread_accesses", (double)t->uncoalesced_thread_accesses);
  cc_report_json_num(o, "wavefronts", (double)t->wavefronts);
  cc_report_json_num(o, "ideal_wavefronts", (double)t->ideal_wavefronts);
  cc_report_json_num(o, "conflict_requests", (double)t->conflict_requests);
  return o;
}

static cJSON *kernel_json(const struct cc_analysis *const *ans, size_t n, size_t ki)
{
  const struct cc_kernel_stats *k = &ans[0]->kernels[ki];
  cJSON *o = cJSON_CreateObject(), *totals = cJSON_CreateObject();
  cJSON *insns = cJSON_CreateArray();
  cJSON_AddStringToObject(o, "name", k->name);
  cJSON_AddStringToObject(o, "mangled_name", k->mangled);
  cJSON_AddItemToObject(o, "grid", cc_report_json_dim3(k->grid));
  cJSON_AddItemToObject(o, "block", cc_report_json_dim3(k->block));
  cc_report_json_num(o, "thread_accesses", (double)k->totals.thread_accesses);
  for (size_t m = 0; m < n; m++)
    cJSON_AddItemToObject(totals, cc_model_name(ans[m]->model),
                          totals_json(&ans[m]->kernels[ki]));
  cJSON_AddItemToObject(o, "totals", totals);
  for (size_t slot = 0; slot < k->n_insns; slot++)
    cJSON_AddItemToArray(insns, insn_json(ans, n, ki, slot));
  cJSON_AddItemToObject(o, "instructions", insns);
  return o;
}

int cc_report_compare_json_string(const struct cc_analysis *const *ans, size_t n,
                                  const char *tool_version, char **out, struct cc_err *err)
{
  cJSON *root, *arch, *kernels;
  int rc;
  *out = NULL;
  if ((rc = cc_report_compare_check(ans, n, err)) != CC_OK)
    return rc;
  root = cJSON_CreateObject();
  arch = cJSON_CreateArray();
  kernels = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "document", CC_REPORT_COMPARE_DOCUMENT);
  cc_report_json_num(root, "schema_version", CC_REPORT_SCHEMA_VERSION);
  cJSON_AddStringToObject(root, "tool_version", tool_version ? tool_version : "unknown");
  for (size_t m = 0; m < n; m++)
    cJSON_AddItemToArray(arch, cJSON_CreateString(cc_model_name(ans[m]->model)));
  cJSON_AddItemToObject(root, "arch", arch);
  for (size_t ki = 0; ki < ans[0]->n_kernels; ki++)
    cJSON_AddItemToArray(kernels, kernel_json(ans, n, ki));
  cJSON_AddItemToObject(root, "kernels", kernels);
  *out = cc_report_json_finish(root);
  return CC_OK;
}

int cc_report_compare_json_write(const char *path, const struct cc_analysis *const *ans,
                                 size_t n, const char *tool_version, struct cc_err *err)
{
  char *text = NULL;
  int rc = cc_report_compare_json_string(ans, n, tool_version, &text, err);
  if (rc != CC_OK)
    return rc;
  return cc_report_json_write_text(path, text, err);
}
