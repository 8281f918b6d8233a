/* The JSON report (docs/json-schema.md, schema_version 5), built with cJSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "report/ci.h"
#include "report/json_impl.h"
#include "report/report.h"
#include "report/source.h"
#include "util/fileio.h"
#include "util/mem.h"


void cc_report_json_num(cJSON *o, const char *key, double v)
{
  cJSON_AddItemToObject(o, key, cJSON_CreateNumber(v));
}

/* Adds key: v, or key: null when the figure is unknown (analysis.h, enum cc_unknown). */
static void num_or_null(cJSON *o, const char *key, double v, int unknown)
{
  if (unknown || isnan(v))
    cJSON_AddNullToObject(o, key);
  else
    cc_report_json_num(o, key, v);
}

static void str_or_null(cJSON *o, const char *key, const char *s)
{
  cJSON_AddItemToObject(o, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON *cc_report_json_dim3(const uint32_t d[3])
{
  double v[3] = { d[0], d[1], d[2] };
  return cJSON_CreateDoubleArray(v, 3);
}

const char *cc_report_json_op(enum cc_access_kind kind)
{
  switch (kind) {
  case CC_ACCESS_LOAD: return "load";
  case CC_ACCESS_STORE: return "store";
  case CC_ACCESS_ATOMIC:
  case CC_ACCESS_REDUCTION: return "atomic";
  }
  return "?";
}

static cJSON *loc_json(const struct cc_source_loc *loc)
{
  cJSON *o = cJSON_CreateObject();
  str_or_null(o, "file", loc->file);
  cc_report_json_num(o, "line", loc->line);
  cc_report_json_num(o, "column", loc->column);
  return o;
}

cJSON *cc_report_json_source(const struct cc_insn_stats *s)
{
  const struct cc_insn_info *info = &s->info;
  cJSON *src = loc_json(&s->source);
  if (s->inlined_from.file)
    cJSON_AddItemToObject(src, "inlined_from", loc_json(&s->inlined_from));
  if (info->inlined_file) {
    cJSON *at = cJSON_CreateObject();
    cJSON_AddStringToObject(at, "file", info->inlined_file);
    cc_report_json_num(at, "line", info->inlined_line);
    cJSON_AddItemToObject(src, "inlined_at", at);
  }
  return src;
}

/* The traffic figures of c (an instruction's or a kernel's) into o: the four of issue 12
 * (null when the kernel has no cache figures) and, when it has, their parts. */
static void cache_fields(cJSON *o, const struct cc_cache_counts *c, int cached)
{
  static const char *const keys[] = {"l1_hit_sectors", "l2_sectors", "dram_bytes_read",
                                     "dram_bytes_written"};
  cJSON *waits;
  if (!cached) {
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      cJSON_AddNullToObject(o, keys[i]);
    return;
  }
  cc_report_json_num(o, keys[0], (double)c->l1_hit_sectors);
  cc_report_json_num(o, keys[1], (double)cc_cache_l2_sectors(c));
  cc_report_json_num(o, keys[2], (double)c->dram_bytes_read);
  cc_report_json_num(o, keys[3], (double)c->dram_bytes_written);
  cc_report_json_num(o, "l2_sectors_read", (double)c->l2_sectors_read);
  cc_report_json_num(o, "l2_sectors_write", (double)c->l2_sectors_write);
  cc_report_json_num(o, "l2_sectors_atomic", (double)c->l2_sectors_atomic);
  cc_report_json_num(o, "l2_hit_sectors", (double)c->l2_hit_sectors);
  cc_report_json_num(o, "l2_dirty_bytes_at_end", (double)c->l2_dirty_bytes_at_end);
  cc_report_json_num(o, "l1_wavefronts", (double)c->l1_wavefronts);
  waits = cJSON_CreateObject();
  cc_report_json_num(waits, "l1", (double)c->waits_l1);
  cc_report_json_num(waits, "l2", (double)c->waits_l2);
  cc_report_json_num(waits, "dram", (double)c->waits_dram);
  cJSON_AddItemToObject(o, "waits", waits);
}

/* The kernel's "cache" (the device and shape modelled) and "time" objects; null when
 * the kernel has no cache figures. */
static void kernel_cache_json(cJSON *o, const struct cc_kernel_stats *k)
{
  cJSON *c, *t;
  const struct cc_cache_device *d = k->device;
  if (!k->cached || !d) {
    cJSON_AddNullToObject(o, "cache");
    cJSON_AddNullToObject(o, "time");
    return;
  }
  c = cJSON_CreateObject();
  cJSON_AddStringToObject(c, "device", d->name);
  cJSON_AddStringToObject(c, "label", d->label);
  cc_report_json_num(c, "sms", d->sms);
  cc_report_json_num(c, "sms_used", k->cache.sms_used);
  cc_report_json_num(c, "resident_ctas", k->cache.resident_ctas);
  cc_report_json_num(c, "l1_bytes", k->cache.l1_bytes);
  cc_report_json_num(c, "l1_ways", d->l1_ways);
  cc_report_json_num(c, "l2_bytes", (double)d->l2_bytes);
  cc_report_json_num(c, "l2_ways", d->l2_ways);
  cJSON_AddStringToObject(c, "dispatch",
                          d->dispatch == CC_CACHE_DISPATCH_BLOCKED ? "blocked" : "round-robin");
  cJSON_AddBoolToObject(c, "l1_caches_global_loads", d->l1_global_loads);
  cc_report_json_num(c, "dram_access_bytes", d->dram_access_bytes);
  /* the L2 write policy's limits (cache.h; 0: none), so that a report says which model
   * gave its DRAM bytes: `--cache h100,partial-ways=N,dirty-ways=N` changes them */
  cc_report_json_num(c, "l2_partial_ways", d->l2_partial_ways);
  cc_report_json_num(c, "l2_dirty_ways", d->l2_dirty_ways);
  cJSON_AddStringToObject(c, "l2_index", d->index == CC_CACHE_INDEX_MOD    ? "mod"
                                         : d->index == CC_CACHE_INDEX_FOLD ? "fold"
                                                                           : "hash");
  cc_report_json_num(c, "l2_evictions", (double)k->cache.l2_evictions);
  /* set sampling (cache.h; schema 5): how the figures were made */
  cc_report_json_num(c, "sample", k->cache.sample);
  cc_report_json_num(c, "sample_after", (double)d->sample_after);
  cc_report_json_num(c, "records", (double)k->cache.records);
  if (k->cache.sampled_from == UINT64_MAX)
    cJSON_AddNullToObject(c, "sampled_from_record");
  else
    cc_report_json_num(c, "sampled_from_record", (double)k->cache.sampled_from);
  cJSON_AddItemToObject(o, "cache", c);
  t = cJSON_CreateObject();
  cc_report_json_num(t, "lower_bound_us", k->time.bound_us);
  cJSON_AddStringToObject(t, "bound_by", cc_cache_bound_name(k->time.bound_by));
  cc_report_json_num(t, "dram_bytes", k->time.dram_bytes);
  cc_report_json_num(t, "dram_us", k->time.dram_us);
  cc_report_json_num(t, "l2_us", k->time.l2_us);
  cc_report_json_num(t, "l1_us", k->time.l1_us);
  cc_report_json_num(t, "latency_us", k->time.latency_us);
  cc_report_json_num(t, "estimate_us", k->time.estimate_us);
  cc_report_json_num(t, "dram_gbs", d->dram_gbs);
  cc_report_json_num(t, "l2_gbs", d->l2_gbs);
  cc_report_json_num(t, "clock_ghz", d->clock_ghz);
  cJSON_AddBoolToObject(t, "calibrated", d->calibrated);
  cJSON_AddStringToObject(t, "speeds_from", d->speed_source ? d->speed_source : "?");
  cJSON_AddItemToObject(o, "time", t);
}

/* A stride of a form: bytes, or null when unknown in this launch. */
static cJSON *stride_json(const struct cc_addr_stride *t)
{
  return t->known ? cJSON_CreateNumber((double)t->bytes) : cJSON_CreateNull();
}

/* The static form of the address (docs/json-schema.md, "affine"), or null. */
static cJSON *affine_json(const struct cc_insn_stats *s)
{
  static const char *const axis[3] = {"x", "y", "z"};
  const struct cc_addr_form *a = &s->addr;
  cJSON *o, *strides, *cls, *loops;
  if (a->status == CC_ADDR_NONE)
    return cJSON_CreateNull();
  o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "status", a->kind);
  if (a->status == CC_ADDR_NOT_AFFINE) {
    cJSON_AddStringToObject(o, "why", a->text);
    cc_report_json_num(o, "ptx_line", a->why_line);
    return o;
  }
  cJSON_AddStringToObject(o, "form", a->text);
  strides = cJSON_AddObjectToObject(o, "strides");
  cls = cJSON_AddArrayToObject(o, "class");
  for (uint32_t d = 0; d < 3; d++) {
    cJSON_AddItemToObject(strides, axis[d], stride_json(&a->tid[d]));
    cJSON_AddItemToArray(cls, cJSON_CreateString(cc_addr_class_name(cc_analysis_addr_class(s, d))));
  }
  loops = cJSON_AddArrayToObject(o, "loops");
  for (uint32_t l = 0; l < a->nloops; l++) {
    cJSON *lp = cJSON_CreateObject();
    cc_report_json_num(lp, "loop", a->loops[l].index);
    cc_report_json_num(lp, "line", a->loops[l].line);
    cJSON_AddItemToObject(lp, "stride", stride_json(&a->loops[l].stride));
    cJSON_AddItemToArray(loops, lp);
  }
  return o;
}

/* "suppressed": {"reason": "..."} when a `// coalcheck: ignore` comment on the source
 * line exempts s from the gates (ci.h); nothing otherwise. */
static void suppressed_json(cJSON *o, const struct cc_insn_stats *s,
                            struct cc_source_cache *cache)
{
  char reason[512];
  cJSON *sup;
  if (!cc_report_suppression(cache, s, reason, sizeof reason))
    return;
  sup = cJSON_AddObjectToObject(o, "suppressed");
  str_or_null(sup, "reason", reason[0] ? reason : NULL);
}

/* {"requests": R, "sectors": S}: relative 95% bounds, null where unknown (NAN). */
static cJSON *bound_json(double req, double sec)
{
  cJSON *b = cJSON_CreateObject();
  num_or_null(b, "requests", req, isnan(req));
  num_or_null(b, "sectors", sec, isnan(sec));
  return b;
}

/* "sampling": how the GPU backend's fast mode sampled the kernel's launches, or null
 * when every launch was measured (docs/json-schema.md). */
static cJSON *sampling_json(const struct cc_kernel_sampling *smp)
{
  if (!smp->present)
    return cJSON_CreateNull();
  cJSON *o = cJSON_CreateObject();
  cc_report_json_num(o, "launches", (double)smp->launches);
  cc_report_json_num(o, "sampled_launches", (double)smp->sampled);
  if (smp->ctas) { /* --gpu-mode inline --sample-ctas */
    cc_report_json_num(o, "ctas", (double)smp->ctas);
    cc_report_json_num(o, "sampled_ctas", (double)smp->sampled_ctas);
  }
  cJSON_AddStringToObject(o, "estimator", "expansion");
  cJSON_AddItemToObject(o, "bound95", bound_json(smp->bound_requests, smp->bound_sectors));
  return o;
}

static cJSON *insn_json(const struct cc_insn_stats *s, int imported, int cached,
                        struct cc_source_cache *cache)
{
  cJSON *o = cJSON_CreateObject(), *stride = cJSON_CreateObject();
  cJSON *hist, *sugg = cJSON_CreateArray();
  int shared = s->info.space == CC_SPACE_SHARED || s->wavefronts;
  cc_report_json_num(o, "ptx_index", s->info.id);
  cJSON_AddItemToObject(o, "source", cc_report_json_source(s));
  str_or_null(o, "ptx", s->info.text);
  cJSON_AddStringToObject(o, "op", cc_report_json_op(s->info.kind));
  if (s->info.kind == CC_ACCESS_REDUCTION)
    cJSON_AddTrueToObject(o, "reduction");
  cJSON_AddStringToObject(o, "space", cc_space_name(s->info.space));
  cc_report_json_num(o, "size_bytes", s->info.size_bytes);
  cc_report_json_num(o, "executions", (double)s->executions);
  cc_report_json_num(o, "requests", (double)s->requests);
  cJSON_AddItemToObject(o, "bound95", bound_json(s->bound_requests, s->bound_sectors));
  cc_report_json_num(o, "thread_accesses", (double)s->thread_accesses);
  cc_report_json_num(o, "bytes_requested", (double)s->bytes_requested);
  if (!shared)
    num_or_null(o, "unique_bytes", (double)s->unique_bytes,
                s->unknown & CC_UNKNOWN_UNIQUE_BYTES);
  cc_report_json_num(o, "sectors", (double)s->sectors);
  cc_report_json_num(o, "ideal_sectors", (double)s->ideal_sectors);
  cc_report_json_num(o, "excess_sectors", (double)s->excess_sectors);
  cc_report_json_num(o, "transactions", (double)s->transactions);
  cc_report_json_num(o, "bytes_transferred", (double)s->bytes_transferred);
  cc_report_json_num(o, "lines", (double)s->lines);
  cc_report_json_num(o, "sectors_per_request", s->requests ? (double)s->sectors / (double)s->requests : 0.0);
  num_or_null(o, "efficiency", cc_analysis_efficiency(s), 0);
  /* CGO 2015 Table 1 "bandwidth": transactions relative to the coalesced case */
  cc_report_json_num(o, "bandwidth_factor",
      s->ideal_sectors ? (double)s->sectors / (double)s->ideal_sectors : 1.0);
  if (s->unknown & CC_UNKNOWN_SECTOR_HIST) {
    hist = cJSON_CreateNull();
  } else {
    hist = cJSON_CreateArray();
    for (int b = 0; b < CC_ANALYSIS_HIST_BUCKETS; b++)
      cJSON_AddItemToArray(hist, cJSON_CreateNumber((double)s->sector_hist[b]));
  }
  cJSON_AddItemToObject(o, "sector_histogram", hist);
  cc_report_json_num(stride, "min", (double)s->stride_min);
  cc_report_json_num(stride, "max", (double)s->stride_max);
  cc_report_json_num(stride, "avg", cc_analysis_stride_avg(s));
  cc_report_json_num(stride, "count", (double)s->stride_count);
  cJSON_AddItemToObject(o, "stride", stride);
  cJSON_AddStringToObject(o, "verdict", cc_verdict_name(s->verdict));
  if (imported) { /* the GPU backend measures no footprint: unknown, not 0 */
    cJSON_AddNullToObject(o, "all_stride");
    cJSON_AddNullToObject(o, "all_coalescable");
    cJSON_AddNullToObject(o, "line_all_stride");
    cJSON_AddNullToObject(o, "line_all_coalescable");
  } else {
    cc_report_json_num(o, "all_stride", (double)s->all_stride);
    cJSON_AddBoolToObject(o, "all_coalescable", s->all_coalescable);
    cc_report_json_num(o, "line_all_stride", (double)s->line_all_stride);
    cJSON_AddBoolToObject(o, "line_all_coalescable", s->line_all_coalescable);
  }
  cc_report_json_num(o, "line_instructions", s->line_insns);
  num_or_null(o, "uncoalesced_requests", (double)s->uncoalesced_requests,
              s->unknown & CC_UNKNOWN_UNCOALESCED);
  num_or_null(o, "uncoalesced_thread_accesses", (double)s->uncoalesced_thread_accesses,
              s->unknown & CC_UNKNOWN_UNCOALESCED);
  cache_fields(o, &s->cache, cached);
  if (cached)
    cc_report_json_num(o, "estimated_gain_us", s->gain_us);
  for (size_t j = 0; j < s->n_suggestions; j++) {
    cJSON *g = cJSON_CreateObject();
    cJSON_AddStringToObject(g, "kind", cc_suggestion_kind_name(s->suggestions[j].kind));
    cJSON_AddStringToObject(g, "text", s->suggestions[j].text);
    cJSON_AddItemToArray(sugg, g);
  }
  cJSON_AddItemToObject(o, "suggestions", sugg);
  cJSON_AddItemToObject(o, "affine", affine_json(s));
  suppressed_json(o, s, cache);
  if (shared) {
    cc_report_json_num(o, "bank_conflict_ways", s->ways_max);
    cc_report_json_num(o, "wavefronts", (double)s->wavefronts);
    cc_report_json_num(o, "ideal_wavefronts", (double)s->ideal_wavefronts);
    num_or_null(o, "conflict_requests", (double)s->conflict_requests,
                s->unknown & CC_UNKNOWN_CONFLICTS);
  }
  return o;
}

static cJSON *totals_json(const struct cc_kernel_stats *k)
{
  const struct cc_kernel_totals *t = &k->totals;
  cJSON *o = cJSON_CreateObject();
  cc_report_json_num(o, "requests", (double)t->requests);
  cc_report_json_num(o, "sectors", (double)t->sectors);
  cc_report_json_num(o, "ideal_sectors", (double)t->ideal_sectors);
  cc_report_json_num(o, "excess_sectors", (double)t->excess_sectors);
  cc_report_json_num(o, "bytes_requested", (double)t->bytes_requested);
  cc_report_json_num(o, "bytes_transferred", (double)t->bytes_transferred);
  num_or_null(o, "unique_bytes", (double)t->unique_bytes, t->unknown & CC_UNKNOWN_UNIQUE_BYTES);
  num_or_null(o, "efficiency", cc_analysis_totals_efficiency(t), 0);
  cc_report_json_num(o, "thread_accesses", (double)t->thread_accesses);
  num_or_null(o, "uncoalesced_thread_accesses", (double)t->uncoalesced_thread_accesses,
              t->unknown & CC_UNKNOWN_UNCOALESCED);
  cc_report_json_num(o, "wavefronts", (double)t->wavefronts);
  cc_report_json_num(o, "ideal_wavefronts", (double)t->ideal_wavefronts);
  num_or_null(o, "conflict_requests", (double)t->conflict_requests,
              t->unknown & CC_UNKNOWN_CONFLICTS);
  cache_fields(o, &k->cache.total, k->cached);
  return o;
}

static cJSON *line_json(const struct cc_line_stats *l)
{
  cJSON *o = cJSON_CreateObject();
  str_or_null(o, "file", l->file);
  cc_report_json_num(o, "line", l->line);
  cc_report_json_num(o, "instructions", l->n_insns);
  cc_report_json_num(o, "executions", (double)l->executions);
  cc_report_json_num(o, "requests", (double)l->requests);
  cc_report_json_num(o, "thread_accesses", (double)l->thread_accesses);
  cc_report_json_num(o, "bytes_requested", (double)l->bytes_requested);
  cc_report_json_num(o, "bytes_transferred", (double)l->bytes_transferred);
  cc_report_json_num(o, "sectors", (double)l->sectors);
  cc_report_json_num(o, "ideal_sectors", (double)l->ideal_sectors);
  cc_report_json_num(o, "excess_sectors", (double)l->excess_sectors);
  cc_report_json_num(o, "wavefronts", (double)l->wavefronts);
  cc_report_json_num(o, "ideal_wavefronts", (double)l->ideal_wavefronts);
  num_or_null(o, "uncoalesced_thread_accesses", (double)l->uncoalesced_thread_accesses,
              l->unknown & CC_UNKNOWN_UNCOALESCED);
  return o;
}

static cJSON *run_json(const struct cc_kernel_run_stats *r)
{
  cJSON *o = cJSON_CreateObject();
  cc_report_json_num(o, "warp_insns", (double)r->warp_insns);
  cc_report_json_num(o, "thread_insns", (double)r->thread_insns);
  cc_report_json_num(o, "warp_accesses", (double)r->warp_accesses);
  cc_report_json_num(o, "seconds", r->seconds);
  return o;
}

static cJSON *kernel_json(const struct cc_kernel_stats *k, struct cc_source_cache *cache)
{
  cJSON *o = cJSON_CreateObject(), *insns = cJSON_CreateArray(), *lines = cJSON_CreateArray();
  cJSON_AddStringToObject(o, "name", k->name);
  cJSON_AddStringToObject(o, "mangled_name", k->mangled);
  cJSON_AddItemToObject(o, "grid", cc_report_json_dim3(k->grid));
  cJSON_AddItemToObject(o, "block", cc_report_json_dim3(k->block));
  if (k->run.present)
    cJSON_AddItemToObject(o, "emulator", run_json(&k->run));
  cJSON_AddItemToObject(o, "sampling", sampling_json(&k->sampling));
  cJSON_AddItemToObject(o, "totals", totals_json(k));
  kernel_cache_json(o, k);
  for (size_t i = 0; i < k->n_insns; i++)
    cJSON_AddItemToArray(insns, insn_json(&k->insns[i], k->imported, k->cached, cache));
  cJSON_AddItemToObject(o, "instructions", insns);
  for (size_t i = 0; i < k->n_lines; i++)
    cJSON_AddItemToArray(lines, line_json(&k->lines[i]));
  cJSON_AddItemToObject(o, "lines", lines);
  return o;
}

char *cc_report_json_string(const struct cc_analysis *an, const char *tool_version)
{
  cJSON *root = cJSON_CreateObject(), *kernels = cJSON_CreateArray();
  cc_report_json_num(root, "schema_version", CC_REPORT_SCHEMA_VERSION);
  cJSON_AddStringToObject(root, "tool_version", tool_version ? tool_version : "unknown");
  cJSON_AddStringToObject(root, "arch", cc_model_name(an->model));
  struct cc_source_cache *cache = cc_report_source_new();
  for (size_t i = 0; i < an->n_kernels; i++)
    cJSON_AddItemToArray(kernels, kernel_json(&an->kernels[i], cache));
  cJSON_AddItemToObject(root, "kernels", kernels);
  cc_report_source_free(cache);
  return cc_report_json_finish(root);
}

char *cc_report_json_finish(cJSON *root)
{
  char *text = cJSON_Print(root), *out;
  cJSON_Delete(root);
  if (!text)
    CC_BUG("cJSON_Print failed (out of memory)");
  /* hand back memory the caller frees with free(), whatever cJSON's allocator is */
  out = cc_xstrdup(text);
  cJSON_free(text);
  return out;
}

int cc_report_json_write(const char *path, const struct cc_analysis *an,
                         const char *tool_version, struct cc_err *err)
{
  return cc_report_json_write_text(path, cc_report_json_string(an, tool_version), err);
}

int cc_report_json_write_text(const char *path, char *text, struct cc_err *err)
{
  struct cc_outfile f;
  int rc = cc_outfile_open(&f, path, err);
  size_t len;
  if (rc != CC_OK) {
    free(text);
    return rc;
  }
  len = strlen(text);
  if (fwrite(text, 1, len, f.fp) != len || fputc('\n', f.fp) == EOF) {
    free(text);
    if (f.path)
      cc_outfile_abort(&f);
    return cc_err_set(err, CC_ERR_IO, "cannot write %s: write error (disk full?)", path);
  }
  free(text);
  return cc_outfile_commit(&f, err);
}
