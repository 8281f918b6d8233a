/* coalcheck GPU backend: inline counters as the library's JSON (inline_json.h). */
#include "gpu/inline_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gpu/sample.h"
#include "util/mem.h"

/* The sums of site's shards: fields of enum ptx_inst_field; ways and strides are maxima. */
static void sum_site(const uint64_t *c, uint32_t site, uint32_t shards,
                     uint64_t out[PTX_INST_FIELDS])
{
  memset(out, 0, PTX_INST_FIELDS * sizeof *out);
  for (uint32_t s = 0; s < shards; s++) {
    const uint64_t *r = c + ((uint64_t)site * shards + s) * PTX_INST_FIELDS;
    for (int f = 0; f < PTX_INST_FIELDS; f++) {
      int is_max = f == PTX_INST_F_WAYS || f == PTX_INST_F_STRMIN_INV || f == PTX_INST_F_STRMAX;
      out[f] = is_max ? (r[f] > out[f] ? r[f] : out[f]) : out[f] + r[f];
    }
  }
}

/* Counted CTAs in shard g: as recorded over the launches, or for one launch the ranks
 * 0..n-1 that are g mod G. */
static uint64_t shard_ctas(const struct cc_gpu_cta_sample *d, uint32_t g)
{
  if (d->shard_ctas)
    return d->shard_ctas[g];
  return d->sampled / d->shards + (g < d->sampled % d->shards);
}

/* Whether d counted everything: every CTA, every execution. */
static int all_counted(const struct cc_gpu_cta_sample *d)
{
  return d->sampled >= d->ctas && d->exec <= 1;
}

/* Relative 95% bound of the expansion estimate (C / n) sum_g y[g] of a figure whose
 * shard sums are y[0..G-1]. Estimator (random groups, Wolter, Introduction to Variance
 * Estimation, ch. 2; Cochran eq. 2.8 with the finite population correction): the G'
 * non-empty shards are treated as random groups of the sample (a stated approximation:
 * they are interleaved, systematic sub-samples), each CTA's figure as drawn without
 * replacement, so
 *     V = C^2 (1 - n/C) * G'/(G'-1) * sum_g (y_g - m_g * ybar)^2 / n^2,
 * ybar = sum y / n the mean per counted CTA, m_g the counted CTAs of shard g (a ratio
 * estimator's residuals, for the unequal m_g); bound = q sqrt(V) / total, q = 1.96 from
 * CC_GPU_SAMPLE_NORMAL_MIN groups on, else 4.47 (cc_gpu_quantile95). 0 when
 * every CTA counted (n = C) or every shard's mean is the same; NAN (unknown) with fewer
 * than CC_GPU_SAMPLE_MIN_CLT non-empty shards (one counted CTA shows no spread, however
 * the others differ), or a zero total with V > 0. */
static double cta_bound95(const struct cc_gpu_cta_sample *d, const double *y)
{
  double n = (double)d->sampled, c = (double)d->ctas, sum = 0.0, ss = 0.0;
  uint32_t groups = 0;
  if (all_counted(d))
    return 0.0;
  for (uint32_t g = 0; g < d->shards; g++)
    sum += y[g];
  double ybar = sum / n;
  for (uint32_t g = 0; g < d->shards; g++) {
    uint64_t mg = shard_ctas(d, g);
    double r = y[g] - (double)mg * ybar;
    groups += mg > 0;
    ss += mg ? r * r : 0.0;
  }
  if (groups < CC_GPU_SAMPLE_MIN_CLT) /* too few to see a spread, even none */
    return NAN;
  if (ss == 0.0)
    return 0.0;
  if (sum == 0.0)
    return NAN;
  /* execution sampling: each counted CTA's figure is itself estimated, so no finite
   * population correction (with-replacement, conservative); E cancels in the ratio */
  double fpc = d->exec > 1 ? 1.0 : 1.0 - n / c;
  double v = c * c * fpc * groups / (groups - 1.0) * ss / (n * n);
  return cc_gpu_quantile95(groups) * sqrt(v) / (sum * c / n);
}

void cc_gpu_inline_add_bound(cJSON *o, double req, double sec)
{
  cJSON *b = cJSON_AddObjectToObject(o, "bound95");
  if (isnan(req)) cJSON_AddNullToObject(b, "requests");
  else cJSON_AddNumberToObject(b, "requests", req);
  if (isnan(sec)) cJSON_AddNullToObject(b, "sectors");
  else cJSON_AddNumberToObject(b, "sectors", sec);
}

/* v's counts (requests, units, lanes, ideal) times C / n, rounded (requests as whole
 * executions of `words` requests each: a wide local access); then what every run
 * satisfies and the importer checks: executions <= lanes <= 32 executions, ideal <= units
 * (rounding is monotonic, so the others hold already). Maxima and the span stay. */
static void scale_counts(const struct cc_gpu_cta_sample *d, uint32_t words,
                         const uint64_t v[PTX_INST_FIELDS], uint64_t out[PTX_INST_FIELDS])
{
  static const int counts[] = {PTX_INST_F_UNITS, PTX_INST_F_LANES, PTX_INST_F_IDEAL};
  memcpy(out, v, PTX_INST_FIELDS * sizeof *out);
  if (all_counted(d))
    return;
  double w = (double)d->ctas / (double)d->sampled;
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    out[counts[i]] = (uint64_t)llround((double)v[counts[i]] * w);
  uint64_t exec = (uint64_t)llround((double)(v[PTX_INST_F_REQUESTS] / words) * w);
  out[PTX_INST_F_REQUESTS] = exec * words;
  cc_gpu_inline_clamp(out, words);
}

void cc_gpu_inline_clamp(uint64_t c[PTX_INST_FIELDS], uint32_t words)
{
  uint64_t exec = c[PTX_INST_F_REQUESTS] / words;
  if (c[PTX_INST_F_LANES] > 32 * exec) c[PTX_INST_F_LANES] = 32 * exec;
  if (c[PTX_INST_F_LANES] < exec) c[PTX_INST_F_LANES] = exec;
  if (c[PTX_INST_F_IDEAL] > c[PTX_INST_F_UNITS]) c[PTX_INST_F_IDEAL] = c[PTX_INST_F_UNITS];
}

uint32_t cc_gpu_inline_words(const struct ptx_inst_site *st)
{
  return st->space == PTX_SPACE_LOCAL && st->size_bytes > 4 ? st->size_bytes / 4 : 1;
}

const char *cc_gpu_inline_space_name(const struct ptx_inst_site *st)
{
  return st->space == PTX_SPACE_SHARED ? "shared"
         : st->space == PTX_SPACE_LOCAL ? "local" : "global";
}

void cc_gpu_inline_skip_notes(const struct ptx_module *m, const struct ptx_inst_map *map,
                              const uint8_t *launched, void (*add)(void *ctx, const char *text),
                              void *ctx)
{
  char text[1200];
  uint32_t shown = 0, more = 0;
  for (uint32_t k = 0; k < map->skipped; k++) {
    uint32_t f = map->skips[k].func;
    if (launched && m->funcs[f].is_entry && !launched[f])
      continue; /* a kernel that never ran: nothing was missed */
    if (shown == CC_GPU_INLINE_MAX_SKIP_NOTES) {
      more++;
      continue;
    }
    ptx_inst_skip_text(m, map, k, text, sizeof text);
    add(ctx, text);
    shown++;
  }
  if (more) {
    snprintf(text, sizeof text, "%" PRIu32 " more memory instructions not counted (the "
             "inline pass's limits, src/ptx/instrument.h)", more);
    add(ctx, text);
  }
}

/* One instruction of the library's JSON (src/gpu/report.c's fields): counts from c (the
 * estimate), the strides' min, max and average from v (the counted CTAs' sums). */
static cJSON *insn_json(const struct ptx_module *m,
                        const struct ptx_inst_site *st, const uint64_t v[PTX_INST_FIELDS],
                        const uint64_t c[PTX_INST_FIELDS])
{
  static const char *const kinds[] = {"load", "store", "atomic", "reduction"};
  int shared = st->space == PTX_SPACE_SHARED;
  char text[512];
  cJSON *j = cJSON_CreateObject();
  const struct ptx_function *body = &m->funcs[st->body]; /* the kernel or a .func it calls */
  const struct ptx_loc *loc = ptx_insn_loc(body, st->insn);
  ptx_print_insn(m, body, st->insn, text, sizeof text);
  /* the PTX index stands in for the SASS slot: the report's "ptx_index" is the PTX's */
  cJSON_AddNumberToObject(j, "sass_offset", (double)st->insn * 16);
  cJSON_AddStringToObject(j, "sass", text);
  /* a generic instruction: one object per space its lanes fell in, each with the same
   * PTX index and text (its figures as the hardware splits the request) */
  cJSON_AddStringToObject(j, "space", cc_gpu_inline_space_name(st));
  cJSON_AddStringToObject(j, "kind", kinds[st->kind]);
  cJSON_AddNumberToObject(j, "size_bytes", st->size_bytes);
  cJSON_AddNumberToObject(j, "requests", (double)c[PTX_INST_F_REQUESTS]);
  cJSON_AddNumberToObject(j, "lanes", (double)c[PTX_INST_F_LANES]);
  cJSON_AddNumberToObject(j, "bytes_requested", (double)(c[PTX_INST_F_LANES] * st->size_bytes));
  cJSON_AddNumberToObject(j, shared ? "wavefronts" : "sectors", (double)c[PTX_INST_F_UNITS]);
  cJSON_AddNumberToObject(j, shared ? "ideal_wavefronts" : "ideal_sectors",
                          (double)c[PTX_INST_F_IDEAL]);
  if (shared)
    cJSON_AddNumberToObject(j, "ways", (double)v[PTX_INST_F_WAYS]);
  /* lanes - 1 neighbour strides per execution; a local access of k > 4 bytes is k / 4
   * requests per execution (as src/gpu/counters.c divides them) */
  uint64_t strides = v[PTX_INST_F_LANES] - v[PTX_INST_F_REQUESTS] / cc_gpu_inline_words(st);
  if (strides && v[PTX_INST_F_STRMIN_INV]) {
    cJSON *s = cJSON_AddObjectToObject(j, "stride");
    cJSON_AddNumberToObject(s, "min", (double)(UINT64_MAX - v[PTX_INST_F_STRMIN_INV]));
    cJSON_AddNumberToObject(s, "max", (double)v[PTX_INST_F_STRMAX]);
    cJSON_AddNumberToObject(s, "avg", (double)v[PTX_INST_F_SPAN] / (double)strides);
  } else {
    cJSON_AddNullToObject(j, "stride");
  }
  const char *file = loc ? ptx_file_path(m, loc->file) : NULL;
  if (file && loc->line) {
    cJSON *s = cJSON_AddObjectToObject(j, "source");
    cJSON_AddStringToObject(s, "file", file);
    cJSON_AddNumberToObject(s, "line", loc->line);
    const char *inl = loc->inl_file ? ptx_file_path(m, loc->inl_file) : NULL;
    if (inl) {
      cJSON *i = cJSON_AddObjectToObject(j, "inlined_at");
      cJSON_AddStringToObject(i, "file", inl);
      cJSON_AddNumberToObject(i, "line", loc->inl_line);
    }
  } else {
    cJSON_AddNullToObject(j, "source");
  }
  return j;
}

static cJSON *dim3_json(const uint32_t d[3])
{
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < 3; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(d[i] ? d[i] : 1));
  return a;
}

uint64_t cc_gpu_cta_sampled(uint64_t ctas, uint32_t sample, int salted)
{
  if (sample <= 1)
    return ctas;
  if (salted) /* one CTA of every run, the last one too */
    return (ctas + sample - 1) / sample;
  return ctas / sample + (ctas % sample > ptx_inst_pick((uint32_t)(ctas / sample), sample));
}

void cc_gpu_cta_shards_add(uint64_t *shard_ctas, uint32_t shards, uint64_t sampled)
{
  for (uint32_t g = 0; g < shards; g++)
    shard_ctas[g] += sampled / shards + (g < sampled % shards);
}

cJSON *cc_gpu_inline_kernel_json(const struct ptx_module *m, uint32_t func,
                                 const struct ptx_inst_map *map, const uint64_t *c,
                                 const struct cc_gpu_cta_sample *d, const uint32_t grid[3],
                                 const uint32_t block[3], uint64_t launches)
{
  const struct ptx_function *k = &m->funcs[func];
  int sampled = map->sample > 1 || !all_counted(d);
  /* per shard: this site's requests and units, and the kernel's (all sites) */
  double *yr = cc_xcalloc(4 * (size_t)map->shards, sizeof *yr), *yu = yr + map->shards;
  double *kr = yu + map->shards, *ku = kr + map->shards;
  cJSON *kj = cJSON_CreateObject(), *insns;
  cJSON_AddStringToObject(kj, "name", k->name);
  cJSON_AddStringToObject(kj, "mangled", k->name);
  cJSON_AddItemToObject(kj, "grid", dim3_json(grid));
  cJSON_AddItemToObject(kj, "block", dim3_json(block));
  cJSON_AddNumberToObject(kj, "launches", (double)launches);
  if (sampled) { /* the CTA sample: its size and the kernel's bounds */
    cJSON_AddNumberToObject(kj, "ctas", (double)d->ctas);
    cJSON_AddNumberToObject(kj, "sampled_ctas", (double)d->sampled);
  }
  insns = cJSON_AddArrayToObject(kj, "instructions");
  for (uint32_t s = 0; s < map->nsites; s++) {
    uint64_t v[PTX_INST_FIELDS], sc[PTX_INST_FIELDS];
    if (map->sites[s].func != func)
      continue;
    sum_site(c, s, map->shards, v);
    if (!v[PTX_INST_F_REQUESTS]) /* as the library: executed instructions only */
      continue;
    scale_counts(d, cc_gpu_inline_words(&map->sites[s]), v, sc);
    cJSON *ij = insn_json(m, &map->sites[s], v, sc);
    for (uint32_t g = 0; g < map->shards; g++) {
      const uint64_t *r = c + ((uint64_t)s * map->shards + g) * PTX_INST_FIELDS;
      yr[g] = (double)r[PTX_INST_F_REQUESTS];
      yu[g] = (double)r[PTX_INST_F_UNITS];
      kr[g] += yr[g];
      ku[g] += yu[g];
    }
    if (sampled)
      cc_gpu_inline_add_bound(ij, cta_bound95(d, yr), cta_bound95(d, yu));
    cJSON_AddItemToArray(insns, ij);
  }
  if (sampled)
    cc_gpu_inline_add_bound(kj, cta_bound95(d, kr), cta_bound95(d, ku));
  free(yr);
  return kj;
}
