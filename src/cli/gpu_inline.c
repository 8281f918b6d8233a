/* `coalcheck --backend gpu --gpu-mode inline KERNEL.cu|.ptx ...`: the kernel's PTX with
 * the inline counters of src/ptx/instrument.h, run natively by coalcheck-gpu-launch (no
 * Compute Sanitizer), its counter buffer turned into the JSON the injection library
 * writes, so that the same import and report follow (gpu_import.c). See gpu.h. */
#include "cli/gpu.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/instrument.h"
#include "util/fileio.h"
#include "util/mem.h"

int cc_cli_gpu_inline_ptx(const struct ptx_module *m, char **text, size_t *len,
                          struct ptx_inst_map *map, struct cc_err *err)
{
  /* one shard per SM of an H100 / H200 rounded up to a power of two (GPU-NOTES.md: per-SM
   * counters keep the leaders' atomics of different SMs apart) */
  struct ptx_inst_opts opts = {.shards = 256, .sample = 1};
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

/* One instruction of the library's JSON (src/gpu/report.c's fields) from the sums. */
static cJSON *insn_json(const struct ptx_module *m, const struct ptx_function *k,
                        const struct ptx_inst_site *st, const uint64_t v[PTX_INST_FIELDS])
{
  static const char *const kinds[] = {"load", "store", "atomic", "reduction"};
  int shared = st->space == PTX_SPACE_SHARED;
  char text[512];
  cJSON *j = cJSON_CreateObject();
  const struct ptx_loc *loc = ptx_insn_loc(k, st->insn);
  ptx_print_insn(m, k, st->insn, text, sizeof text);
  /* the PTX index stands in for the SASS slot: the report's "ptx_index" is the PTX's */
  cJSON_AddNumberToObject(j, "sass_offset", (double)st->insn * 16);
  cJSON_AddStringToObject(j, "sass", text);
  cJSON_AddStringToObject(j, "space", shared ? "shared" : "global");
  cJSON_AddStringToObject(j, "kind", kinds[st->kind]);
  cJSON_AddNumberToObject(j, "size_bytes", st->size_bytes);
  cJSON_AddNumberToObject(j, "requests", (double)v[PTX_INST_F_REQUESTS]);
  cJSON_AddNumberToObject(j, "lanes", (double)v[PTX_INST_F_LANES]);
  cJSON_AddNumberToObject(j, "bytes_requested", (double)(v[PTX_INST_F_LANES] * st->size_bytes));
  cJSON_AddNumberToObject(j, shared ? "wavefronts" : "sectors", (double)v[PTX_INST_F_UNITS]);
  cJSON_AddNumberToObject(j, shared ? "ideal_wavefronts" : "ideal_sectors",
                          (double)v[PTX_INST_F_IDEAL]);
  if (shared)
    cJSON_AddNumberToObject(j, "ways", (double)v[PTX_INST_F_WAYS]);
  uint64_t strides = v[PTX_INST_F_LANES] - v[PTX_INST_F_REQUESTS];
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
  cJSON *doc = cJSON_CreateObject(), *ks = cJSON_AddArrayToObject(doc, "kernels");
  cJSON *kj = cJSON_CreateObject(), *insns;
  cJSON_AddStringToObject(doc, "backend", "gpu");
  cJSON_AddStringToObject(doc, "mode", "inline");
  cJSON_AddItemToArray(ks, kj);
  cJSON_AddStringToObject(kj, "name", k->name);
  cJSON_AddStringToObject(kj, "mangled", k->name);
  cJSON_AddItemToObject(kj, "grid", dim3_json(grid));
  cJSON_AddItemToObject(kj, "block", dim3_json(block));
  insns = cJSON_AddArrayToObject(kj, "instructions");
  for (uint32_t s = 0; s < map->nsites; s++) {
    uint64_t v[PTX_INST_FIELDS];
    if (map->sites[s].func != fi)
      continue;
    sum_site(c, s, map->shards, v);
    if (v[PTX_INST_F_REQUESTS]) /* as the library: executed instructions only */
      cJSON_AddItemToArray(insns, insn_json(m, k, &map->sites[s], v));
  }
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
