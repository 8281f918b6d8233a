/* coalcheck GPU backend: the inline counters (src/ptx/instrument.h) as the JSON of a
 * kernel that libcoalcheck_gpu.so writes (README.md, "Output"), shared by kernel mode
 * (src/cli/gpu_inline.c) and application mode (inline_app.c), so that one importer
 * (src/cli/gpu_import.c) reads both. */
#ifndef CC_GPU_INLINE_JSON_H
#define CC_GPU_INLINE_JSON_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "ptx/instrument.h"
#include "ptx/ptx.h"

/* CTA sampling's design (instrument.h): C CTAs in runs of S consecutive ids per launch,
 * one CTA counted per run (the last, partial run's only if its pick falls inside), n in
 * all; shard g summed the counted CTAs of ranks g, g + G, ... of each launch (G shards).
 * shard_ctas[g]: counted CTAs in shard g over all launches, or NULL for one launch
 * (then ranks 0..n-1 mod G). */
struct cc_gpu_cta_sample {
  uint64_t ctas, sampled;
  uint32_t shards;
  const uint64_t *shard_ctas; /* shards elements, borrowed; or NULL */
  uint32_t exec;              /* execution sampling E (instrument.h) of counters already
                                 folded (ptx_inst_fold): the counted CTAs' figures are
                                 estimates too; 0 or 1: every execution counted */
};

/* CTAs counted of a launch of `ctas` CTAs under sampling `sample` (1: all): full runs,
 * then the partial run's pick if inside (run 0 picks 0, so one CTA at least); salted
 * (instrument.h, opts.salted): one of every run, ceil(ctas / sample). */
uint64_t cc_gpu_cta_sampled(uint64_t ctas, uint32_t sample, int salted);

/* Adds one launch's `sampled` counted CTAs to shard_ctas[0..shards-1] (ranks mod shards). */
void cc_gpu_cta_shards_add(uint64_t *shard_ctas, uint32_t shards, uint64_t sampled);

/* Adds "bound95": {"requests": req, "sectors": sec} to o: relative 95% bounds (fractions),
 * null where NAN (unknown), as src/cli/gpu_import.c reads them. */
void cc_gpu_inline_add_bound(cJSON *o, double req, double sec);

/* The JSON "space" of a site: "global", "shared" or "local" (a generic instruction's
 * sites name the space they count). */
const char *cc_gpu_inline_space_name(cc_keep const struct ptx_inst_site *st);

/* Requests per execution of a site: 1, or k / 4 for a local access of k > 4 bytes (one
 * per 32-bit word, instrument.h). */
uint32_t cc_gpu_inline_words(cc_keep const struct ptx_inst_site *st);

/* Makes the estimated counts c (fields of enum ptx_inst_field; requests a multiple of
 * words) satisfy what every run satisfies and the importer checks: executions (requests /
 * words) <= lanes <= 32 executions, ideal <= units. */
void cc_gpu_inline_clamp(uint64_t c[PTX_INST_FIELDS], uint32_t words);

/* The most notes cc_gpu_inline_skip_notes writes per module; the rest are counted. */
#define CC_GPU_INLINE_MAX_SKIP_NOTES 16u

/* Calls add(ctx, text) with one note per instruction of m the pass left out (map.skips:
 * "FILE:LINE: 'PTX' in FUNCTION (PTX line N): not counted: WHY"), those of kernels
 * whose entry `launched` says is 0 left out (launched NULL: all), at most
 * CC_GPU_INLINE_MAX_SKIP_NOTES, then one saying how many more. */
void cc_gpu_inline_skip_notes(cc_keep const struct ptx_module *m,
                              cc_keep const struct ptx_inst_map *map,
                              cc_keep const uint8_t *launched,
                              void (*add)(void *ctx, const char *text), void *ctx);

/* The kernel object of the library's JSON for function `func` of m: name, grid and block
 * (of the last launch), `launches`, per instruction (executed sites of map only) the
 * counts of c (counters[site][shard][field], map's layout) scaled by C / n when d
 * sampled fewer than all CTAs or executions (then `ctas`,
 * `sampled_ctas` and `bound95` per instruction and kernel: cta_bound95 in
 * inline_json.c); PTX text and index * 16 stand in for SASS
 * text and offset, the .loc gives source and inlined_at. Returns a new object. */
cc_give cJSON *cc_gpu_inline_kernel_json(cc_keep const struct ptx_module *m, uint32_t func,
                                         cc_keep const struct ptx_inst_map *map,
                                         cc_keep const uint64_t *c,
                                         cc_keep const struct cc_gpu_cta_sample *d,
                                         const uint32_t grid[3], const uint32_t block[3],
                                         uint64_t launches);

#endif
