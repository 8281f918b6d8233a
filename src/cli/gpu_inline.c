/* `coalcheck --backend gpu --gpu-mode inline KERNEL.cu|.ptx ...`: the kernel's PTX with
 * the inline counters of src/ptx/instrument.h, run natively by coalcheck-gpu-launch (no
 * Compute Sanitizer), its counter buffer turned into the JSON the injection library
 * writes, so that the same import and report follow (gpu_import.c). See gpu.h. */
#include "cli/gpu.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/inline_json.h"
#include "ptx/instrument.h"
#include "util/fileio.h"
#include "util/mem.h"

int cc_cli_gpu_inline_ptx(const struct ptx_module *m, uint32_t sample_ctas, char **text,
                          size_t *len, struct ptx_inst_map *map, struct cc_err *err)
{
  /* one shard per SM of an H100 / H200 rounded up to a power of two (GPU-NOTES.md: per-SM
   * counters keep the leaders' atomics of different SMs apart); with sampling 256
   * interleaved sub-samples of the sampled CTAs, whose spread bounds the estimate */
  struct ptx_inst_opts opts = {.shards = 256, .sample = sample_ctas > 1 ? sample_ctas : 1};
  FILE *f;
  int rc;
  *text = NULL;
  *len = 0;
  if (!(f = open_memstream(text, len)))
    return cc_err_set(err, CC_ERR_IO, "inline counters: cannot open a memory stream");
  rc = ptx_instrument(m, &opts, f, map, err);
  if (fclose(f) != 0 && rc == CC_OK)
    rc = cc_err_set(err, CC_ERR_IO, "inline counters: writing the PTX failed");
  if (rc != CC_OK) {
    free(*text);
    *text = NULL;
  }
  return rc;
}

/* One skipped instruction: into the JSON's notes, and said on stderr (never silent) */
static void add_note(void *ctx, const char *text)
{
  cJSON_AddItemToArray(ctx, cJSON_CreateString(text));
  fprintf(stderr, "coalcheck: %s\n", text);
}

int cc_cli_gpu_inline_json(const char *counters_path, const struct ptx_module *m,
                           const struct ptx_function *k, const struct ptx_inst_map *map,
                           const uint32_t grid[3], const uint32_t block[3],
                           const char *json_path, struct cc_err *err)
{
  char *raw = NULL, *text;
  size_t len = 0;
  uint32_t fi = (uint32_t)(k - m->funcs);
  int rc = cc_file_read(counters_path, &raw, &len, err);
  if (rc != CC_OK)
    return rc;
  if (len != ptx_inst_counter_bytes(map)) {
    free(raw);
    return cc_err_set(err, CC_ERR_TOOL, "%s: %zu bytes, expected %" PRIu64 " (the inline "
                      "counters of %" PRIu32 " instructions)", counters_path, len,
                      ptx_inst_counter_bytes(map), map->nsites);
  }
  uint64_t *c = cc_xmalloc(len ? len : 8);
  memcpy(c, raw, len); /* aligned 64-bit words (little-endian, as the GPU) */
  free(raw);
  uint64_t ctas = (uint64_t)grid[0] * grid[1] * grid[2];
  struct cc_gpu_cta_sample d = {ctas, 0, map->shards, NULL, 1};
  d.sampled = cc_gpu_cta_sampled(d.ctas, map->sample, 0);
  cJSON *doc = cJSON_CreateObject(), *ks = cJSON_AddArrayToObject(doc, "kernels");
  cJSON_AddStringToObject(doc, "backend", "gpu");
  cJSON_AddStringToObject(doc, "mode", "inline");
  cJSON_AddItemToArray(ks, cc_gpu_inline_kernel_json(m, fi, map, c, &d, grid, block, 1));
  cJSON *notes = cJSON_AddArrayToObject(doc, "notes");
  uint8_t *launched = cc_xcalloc(m->nfuncs + 1, 1);
  launched[fi] = 1;
  cc_gpu_inline_skip_notes(m, map, launched, add_note, notes);
  free(launched);
  free(c);
  text = cJSON_Print(doc);
  cJSON_Delete(doc);
  struct cc_outfile f;
  if ((rc = cc_outfile_open(&f, json_path, err)) == CC_OK) {
    if (fputs(text, f.fp) < 0) {
      cc_outfile_abort(&f);
      rc = cc_err_set(err, CC_ERR_IO, "cannot write %s", json_path);
    } else {
      rc = cc_outfile_commit(&f, err);
    }
  }
  free(text);
  return rc;
}
