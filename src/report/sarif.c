/* The SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format v2.1.0): see
 * ci.h. GitHub code scanning reads it as written (docs/ci.md). */
#include "report/ci.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "report/json_impl.h"
#include "report/report.h"
#include "report/source.h"
#include "util/mem.h"

enum rule { RULE_GLOBAL, RULE_LOCAL, RULE_SHARED, NRULES };

static const struct {
  const char *id, *name, *brief, *full;
} rules[NRULES] = {
  {"coalcheck/uncoalesced-global", "UncoalescedGlobalAccess",
   "uncoalesced global-memory access",
   "The lanes of a warp access global memory with a stride larger than the element size "
   "(CGO 2015, Algorithm 1), so each request moves more 32-byte sectors than the bytes it "
   "uses need: bandwidth is wasted."},
  {"coalcheck/uncoalesced-local", "UncoalescedLocalAccess",
   "uncoalesced local-memory access",
   "The lanes of a warp access local memory (register spills, local arrays indexed at run "
   "time) in a pattern that moves more sectors than the bytes used need."},
  {"coalcheck/shared-bank-conflict", "SharedBankConflict",
   "shared-memory bank conflict",
   "Several lanes of a warp access different words of one shared-memory bank, so the "
   "request is split into several wavefronts (CUDA C Programming Guide, Shared Memory)."},
};

/* The rule a result of s would have, or NRULES when s is not a finding. */
static enum rule rule_of(const struct cc_insn_stats *s)
{
  if (s->executions == 0)
    return NRULES;
  if (s->wavefronts > 0 || s->info.space == CC_SPACE_SHARED)
    return s->ways_max > 1 || s->wavefronts > s->ideal_wavefronts ? RULE_SHARED : NRULES;
  if (s->verdict != CC_VERDICT_UNCOALESCED)
    return NRULES;
  return s->info.space == CC_SPACE_LOCAL ? RULE_LOCAL : RULE_GLOBAL;
}

static cJSON *message(const char *text)
{
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "text", text);
  return m;
}

static cJSON *driver(const char *version)
{
  cJSON *d = cJSON_CreateObject(), *rs = cJSON_CreateArray();
  cJSON_AddStringToObject(d, "name", "coalcheck");
  cJSON_AddStringToObject(d, "version", version ? version : "unknown");
  for (int r = 0; r < NRULES; r++) {
    cJSON *o = cJSON_CreateObject(), *cfg = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", rules[r].id);
    cJSON_AddStringToObject(o, "name", rules[r].name);
    cJSON_AddItemToObject(o, "shortDescription", message(rules[r].brief));
    cJSON_AddItemToObject(o, "fullDescription", message(rules[r].full));
    cJSON_AddStringToObject(cfg, "level", "warning");
    cJSON_AddItemToObject(o, "defaultConfiguration", cfg);
    cJSON_AddItemToArray(rs, o);
  }
  cJSON_AddItemToObject(d, "rules", rs);
  return d;
}

/* path as a URI reference (RFC 3986): characters outside the unreserved set and '/'
 * percent-encoded; relative to cwd (and *rel set) when path lies below it. Owned. */
static char *uri_of(const char *path, const char *cwd, int *rel)
{
  static const char hex[] = "0123456789ABCDEF";
  size_t cl = cwd ? strlen(cwd) : 0;
  const char *p = path;
  char *out, *o;
  *rel = path[0] != '/';
  if (cl && strncmp(path, cwd, cl) == 0 && path[cl] == '/') {
    p = path + cl + 1;
    *rel = 1;
  }
  out = o = cc_xmalloc(3 * strlen(p) + sizeof "file://");
  if (!*rel)
    o += sprintf(o, "file://");
  for (; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("-._~/", c)) {
      *o++ = (char)c;
    } else {
      *o++ = '%';
      *o++ = hex[c >> 4];
      *o++ = hex[c & 15];
    }
  }
  *o = '\0';
  return out;
}

static cJSON *location(const struct cc_insn_stats *s, const char *cwd)
{
  cJSON *loc = cJSON_CreateObject(), *phys = cJSON_CreateObject();
  cJSON *art = cJSON_CreateObject(), *region = cJSON_CreateObject();
  int rel;
  char *uri = uri_of(s->source.file ? s->source.file : "unknown", cwd, &rel);
  cJSON_AddStringToObject(art, "uri", uri);
  if (rel)
    cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
  free(uri);
  cJSON_AddItemToObject(phys, "artifactLocation", art);
  /* line 0 is "line unknown" (report.h): no region (optional in a SARIF 2.1.0
   * physicalLocation) rather than a made-up line 1 */
  if (s->source.line) {
    cc_report_json_num(region, "startLine", s->source.line);
    if (s->source.column)
      cc_report_json_num(region, "startColumn", s->source.column);
    cJSON_AddItemToObject(phys, "region", region);
  } else {
    cJSON_Delete(region);
  }
  cJSON_AddItemToObject(loc, "physicalLocation", phys);
  return loc;
}

/* "kernel K: 'st.global.f32 ...' is uncoalesced: S sectors for R requests (...)", then
 * the advice. */
static void result_text(char *buf, size_t cap, enum rule r, const struct cc_kernel_stats *k,
                        const struct cc_insn_stats *s)
{
  char ptx[256];
  double req = s->requests ? (double)s->requests : 1.0;
  size_t n;
  cc_report_squeeze(s->info.text ? s->info.text : "?", ptx, sizeof ptx);
  if (r == RULE_SHARED)
    n = (size_t)snprintf(buf, cap, "kernel %s: '%s' has a %u-way bank conflict at worst; %llu "
                         "wavefronts for %llu requests (%.2f per request, ideal %.2f)",
                         k->name, ptx, (unsigned)s->ways_max,
                         (unsigned long long)s->wavefronts, (unsigned long long)s->requests,
                         (double)s->wavefronts / req, (double)s->ideal_wavefronts / req);
  else
    n = (size_t)snprintf(buf, cap, "kernel %s: '%s' is uncoalesced: %llu sectors for %llu "
                         "requests (%.2f per request, ideal %.2f), %llu excess sectors, "
                         "efficiency %.1f%%", k->name, ptx, (unsigned long long)s->sectors,
                         (unsigned long long)s->requests, (double)s->sectors / req,
                         (double)s->ideal_sectors / req, (unsigned long long)s->excess_sectors,
                         100.0 * cc_analysis_efficiency(s));
  for (size_t j = 0; j < s->n_suggestions && n < cap; j++)
    n += (size_t)snprintf(buf + n, cap - n, ". %s: %s",
                          cc_suggestion_kind_name(s->suggestions[j].kind),
                          s->suggestions[j].text);
}

static cJSON *properties(const struct cc_kernel_stats *k, const struct cc_insn_stats *s)
{
  cJSON *p = cJSON_CreateObject();
  cJSON_AddStringToObject(p, "kernel", k->name);
  cJSON_AddStringToObject(p, "space", cc_space_name(s->info.space));
  cJSON_AddStringToObject(p, "op", cc_report_json_op(s->info.kind));
  cc_report_json_num(p, "ptx_index", s->info.id);
  cc_report_json_num(p, "size_bytes", s->info.size_bytes);
  cc_report_json_num(p, "requests", (double)s->requests);
  cc_report_json_num(p, "sectors", (double)s->sectors);
  cc_report_json_num(p, "ideal_sectors", (double)s->ideal_sectors);
  cc_report_json_num(p, "excess_sectors", (double)s->excess_sectors);
  cc_report_json_num(p, "wavefronts", (double)s->wavefronts);
  cc_report_json_num(p, "ideal_wavefronts", (double)s->ideal_wavefronts);
  cc_report_json_num(p, "bank_conflict_ways", s->ways_max);
  if (!isnan(cc_analysis_efficiency(s)))
    cc_report_json_num(p, "efficiency", cc_analysis_efficiency(s));
  return p;
}

static cJSON *result(enum rule r, const struct cc_kernel_stats *k, const struct cc_insn_stats *s,
                     const char *cwd, struct cc_source_cache *cache)
{
  cJSON *o = cJSON_CreateObject(), *locs = cJSON_CreateArray();
  char text[2048], reason[512];
  result_text(text, sizeof text, r, k, s);
  cJSON_AddStringToObject(o, "ruleId", rules[r].id);
  cc_report_json_num(o, "ruleIndex", r);
  cJSON_AddStringToObject(o, "level", "warning");
  cJSON_AddItemToObject(o, "message", message(text));
  cJSON_AddItemToArray(locs, location(s, cwd));
  cJSON_AddItemToObject(o, "locations", locs);
  if (cc_report_suppression(cache, s, reason, sizeof reason)) {
    cJSON *sups = cJSON_CreateArray(), *sup = cJSON_CreateObject();
    cJSON_AddStringToObject(sup, "kind", "inSource");
    if (reason[0])
      cJSON_AddStringToObject(sup, "justification", reason);
    cJSON_AddItemToArray(sups, sup);
    cJSON_AddItemToObject(o, "suppressions", sups);
  }
  cJSON_AddItemToObject(o, "properties", properties(k, s));
  return o;
}

char *cc_report_sarif_string(const struct cc_analysis *an, const char *tool_version)
{
  cJSON *root = cJSON_CreateObject(), *runs = cJSON_CreateArray(), *run = cJSON_CreateObject();
  cJSON *tool = cJSON_CreateObject(), *results = cJSON_CreateArray();
  struct cc_source_cache *cache = cc_report_source_new();
  char cwd[PATH_MAX];
  const char *wd = getcwd(cwd, sizeof cwd) ? cwd : NULL;
  cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  cJSON_AddStringToObject(root, "version", "2.1.0");
  cJSON_AddItemToObject(tool, "driver", driver(tool_version));
  cJSON_AddItemToObject(run, "tool", tool);
  for (size_t ki = 0; ki < an->n_kernels; ki++) {
    const struct cc_kernel_stats *k = &an->kernels[ki];
    for (size_t i = 0; i < k->n_insns; i++) {
      enum rule r = rule_of(&k->insns[i]);
      if (r != NRULES)
        cJSON_AddItemToArray(results, result(r, k, &k->insns[i], wd, cache));
    }
  }
  cJSON_AddItemToObject(run, "results", results);
  if (wd) { /* where %SRCROOT% is: the folder coalcheck ran in */
    cJSON *bases = cJSON_CreateObject(), *src = cJSON_CreateObject();
    int rel;
    char *dir = cc_xmalloc(strlen(wd) + 2), *uri;
    sprintf(dir, "%s/", wd);
    uri = uri_of(dir, NULL, &rel);
    cJSON_AddStringToObject(src, "uri", uri);
    cJSON_AddItemToObject(bases, "%SRCROOT%", src);
    cJSON_AddItemToObject(run, "originalUriBaseIds", bases);
    free(uri);
    free(dir);
  }
  cJSON_AddItemToArray(runs, run);
  cJSON_AddItemToObject(root, "runs", runs);
  cc_report_source_free(cache);
  return cc_report_json_finish(root);
}
