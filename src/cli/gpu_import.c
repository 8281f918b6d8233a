/* The GPU backend's JSON report (src/gpu/report.c) -> struct cc_analysis, so that
 * src/report prints a GPU run exactly like an emulator run. See gpu.h. */
#include "cli/gpu.h"
#include "cli/cli_impl.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/fileio.h"
#include "util/mem.h"
#include "view/view.h"

#define SASS_INSN_BYTES 16u /* sm_70 .. sm_90 (src/gpu/layout.h, CC_GPU_INSN_BYTES) */

/* Where a field is read, for messages: "ORIGIN: kernel K, instruction I". */
struct where {
  const char *origin;
  long kernel, insn; /* -1: not inside one */
};

static int bad(const struct where *w, const char *field, const char *what, struct cc_err *err)
{
  char at[96] = "";
  if (w->kernel >= 0 && w->insn >= 0)
    snprintf(at, sizeof at, " in kernel %ld, instruction %ld", w->kernel, w->insn);
  else if (w->kernel >= 0)
    snprintf(at, sizeof at, " in kernel %ld", w->kernel);
  return cc_err_set(err, CC_ERR_INPUT, "%s: field '%s'%s %s; pass the JSON that "
                    "libcoalcheck_gpu.so wrote to $COALCHECK_GPU_JSON", w->origin, field, at,
                    what);
}

/* A non-negative integer field (exact in a double up to 2^53). */
static int get_u64(const cJSON *o, const char *field, const struct where *w, uint64_t *out,
                   struct cc_err *err)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
  if (!cJSON_IsNumber(v))
    return bad(w, field, "is missing or not a number", err);
  if (v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
      floor(v->valuedouble) != v->valuedouble)
    return bad(w, field, "is not a non-negative integer", err);
  *out = (uint64_t)v->valuedouble;
  return CC_OK;
}

static int get_str(const cJSON *o, const char *field, const struct where *w, int nullable,
                   const char **out, struct cc_err *err)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
  *out = NULL;
  if (nullable && (v == NULL || cJSON_IsNull(v)))
    return CC_OK;
  if (!cJSON_IsString(v))
    return bad(w, field, "is missing or not a string", err);
  *out = v->valuestring;
  return CC_OK;
}

static int get_dim3(const cJSON *o, const char *field, const struct where *w, uint32_t d[3],
                    struct cc_err *err)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
  if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
    return bad(w, field, "is not an array of 3 integers", err);
  for (int i = 0; i < 3; i++) {
    const cJSON *x = cJSON_GetArrayItem(v, i);
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || x->valuedouble > 4294967295.0)
      return bad(w, field, "is not an array of 3 integers", err);
    d[i] = (uint32_t)x->valuedouble;
  }
  return CC_OK;
}

/* "global" / "shared" / "local"; "load" / "store" / "atomic" / "reduction". */
static int parse_enum(const char *s, const char *const *names, int n)
{
  for (int i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0)
      return i;
  return -1;
}

/* One element of "instructions" -> info (strings borrowed from the JSON) and counts. */
/* The optional "bound95" {"requests","sectors"} of o (the library's fast mode, src/gpu/
 * sample.c): relative bounds, null for unknown (NAN); absent: exact (0, 0). */
static int get_bound(const cJSON *o, const struct where *w, double *req, double *sec,
                     struct cc_err *err)
{
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(o, "bound95");
  *req = *sec = 0.0;
  if (b == NULL)
    return CC_OK;
  if (!cJSON_IsObject(b))
    return bad(w, "bound95", "is not an object {requests, sectors}", err);
  const char *names[] = {"requests", "sectors"};
  double *outs[] = {req, sec};
  for (int i = 0; i < 2; i++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(b, names[i]);
    if (cJSON_IsNull(v))
      *outs[i] = NAN;
    else if (cJSON_IsNumber(v) && v->valuedouble >= 0)
      *outs[i] = v->valuedouble;
    else
      return bad(w, "bound95", "holds a bound that is neither a non-negative number nor null",
                 err);
  }
  return CC_OK;
}

static int import_insn(const cJSON *j, const struct where *w, char *sass_buf, size_t cap,
                       struct cc_insn_info *info, struct cc_insn_counts *c, struct cc_err *err)
{
  static const char *const spaces[] = {"global", "shared", "local"};
  static const char *const kinds[] = {"load", "store", "atomic", "reduction"};
  uint64_t offset, size, requests, lanes, bytes, u;
  const char *space, *kind, *sass;
  const cJSON *src, *stride;
  int rc, sp, kd;
  memset(info, 0, sizeof *info);
  memset(c, 0, sizeof *c);
  if (!cJSON_IsObject(j))
    return bad(w, "instructions", "holds an element that is not an object", err);
  if ((rc = get_u64(j, "sass_offset", w, &offset, err)) != CC_OK ||
      (rc = get_str(j, "sass", w, 1, &sass, err)) != CC_OK ||
      (rc = get_str(j, "space", w, 0, &space, err)) != CC_OK ||
      (rc = get_str(j, "kind", w, 0, &kind, err)) != CC_OK ||
      (rc = get_u64(j, "size_bytes", w, &size, err)) != CC_OK ||
      (rc = get_u64(j, "requests", w, &requests, err)) != CC_OK ||
      (rc = get_u64(j, "lanes", w, &lanes, err)) != CC_OK ||
      (rc = get_u64(j, "bytes_requested", w, &bytes, err)) != CC_OK)
    return rc;
  if ((sp = parse_enum(space, spaces, 3)) < 0)
    return bad(w, "space", "is not global, shared or local", err);
  if ((kd = parse_enum(kind, kinds, 4)) < 0)
    return bad(w, "kind", "is not load, store, atomic or reduction", err);
  if (size == 0 || size > 16)
    return bad(w, "size_bytes", "is not 1 to 16", err);
  if (lanes < requests)
    return bad(w, "lanes", "is below requests (every request has an active lane)", err);
  info->id = (uint32_t)(offset / SASS_INSN_BYTES);
  info->kind = (enum cc_access_kind)kd;
  info->space = (enum cc_space)sp;
  info->size_bytes = (uint32_t)size;
  if (!sass) { /* no nvdisasm where the app ran: the offset is all there is */
    snprintf(sass_buf, cap, "SASS +0x%llx", (unsigned long long)offset);
    sass = sass_buf;
  }
  info->text = sass;
  src = cJSON_GetObjectItemCaseSensitive(j, "source");
  if (cJSON_IsObject(src)) {
    struct where ws = *w;
    if ((rc = get_str(src, "file", &ws, 0, &info->file, err)) != CC_OK ||
        (rc = get_u64(src, "line", &ws, &u, err)) != CC_OK)
      return rc;
    info->line = (uint32_t)u;
  } else if (src && !cJSON_IsNull(src)) {
    return bad(w, "source", "is neither {file, line} nor null", err);
  }
  /* code inlined from a header: the call site (the analysis reports it there, as the
   * emulator does with the PTX's .loc inlined_at) */
  src = cJSON_GetObjectItemCaseSensitive(j, "inlined_at");
  if (cJSON_IsObject(src)) {
    if ((rc = get_str(src, "file", w, 0, &info->inlined_file, err)) != CC_OK ||
        (rc = get_u64(src, "line", w, &u, err)) != CC_OK)
      return rc;
    info->inlined_line = (uint32_t)u;
  } else if (src && !cJSON_IsNull(src)) {
    return bad(w, "inlined_at", "is neither {file, line} nor null", err);
  }
  /* the library counts hardware requests: one per 32-bit word of a wide local access */
  uint32_t words = cc_access_words((enum cc_space)sp, (uint32_t)size);
  if (requests % words != 0)
    return bad(w, "requests", "is not a multiple of the access's 32-bit words (local)", err);
  c->executions = requests / words;
  c->thread_accesses = lanes;
  if ((rc = get_bound(j, w, &c->bound_requests, &c->bound_sectors, err)) != CC_OK)
    return rc;
  c->bytes_requested = bytes;
  if (sp != CC_SPACE_SHARED) {
    if ((rc = get_u64(j, "sectors", w, &c->sectors, err)) != CC_OK ||
        (rc = get_u64(j, "ideal_sectors", w, &c->ideal_sectors, err)) != CC_OK)
      return rc;
  } else {
    if ((rc = get_u64(j, "wavefronts", w, &c->wavefronts, err)) != CC_OK ||
        (rc = get_u64(j, "ideal_wavefronts", w, &c->ideal_wavefronts, err)) != CC_OK ||
        (rc = get_u64(j, "ways", w, &u, err)) != CC_OK)
      return rc;
    c->ways_max = (uint32_t)(u ? u : 1);
  }
  stride = cJSON_GetObjectItemCaseSensitive(j, "stride");
  if (cJSON_IsObject(stride)) {
    const cJSON *avg = cJSON_GetObjectItemCaseSensitive(stride, "avg");
    if ((rc = get_u64(stride, "min", w, &c->stride_min, err)) != CC_OK ||
        (rc = get_u64(stride, "max", w, &c->stride_max, err)) != CC_OK)
      return rc;
    if (!cJSON_IsNumber(avg) || avg->valuedouble < 0)
      return bad(w, "avg", "is missing or not a non-negative number", err);
    /* the device counts lanes - 1 neighbour strides per execution (src/gpu/gpu.h) */
    c->stride_count = lanes - c->executions;
    c->stride_sum = avg->valuedouble * (double)c->stride_count;
    if (c->stride_count == 0)
      return bad(w, "stride", "is given but no request had two active lanes", err);
  } else if (stride && !cJSON_IsNull(stride)) {
    return bad(w, "stride", "is neither {min, max, avg} nor null", err);
  }
  return CC_OK;
}

/* One element of "kernels" -> one imported kernel of an. */
static int import_kernel(const cJSON *j, struct where *w, struct cc_analysis *an,
                         struct cc_err *err)
{
  const cJSON *insns = cJSON_GetObjectItemCaseSensitive(j, "instructions");
  const char *name, *mangled;
  struct cc_kernel_info ki;
  struct cc_kernel_sampling smp = {0};
  struct cc_insn_info *infos;
  struct cc_insn_counts *counts;
  char(*sass)[32];
  size_t n;
  int rc;
  memset(&ki, 0, sizeof ki);
  if (!cJSON_IsObject(j))
    return bad(w, "kernels", "holds an element that is not an object", err);
  if ((rc = get_str(j, "name", w, 0, &name, err)) != CC_OK ||
      (rc = get_str(j, "mangled", w, 0, &mangled, err)) != CC_OK ||
      (rc = get_dim3(j, "grid", w, ki.grid, err)) != CC_OK ||
      (rc = get_dim3(j, "block", w, ki.block, err)) != CC_OK)
    return rc;
  if (!cJSON_IsArray(insns))
    return bad(w, "instructions", "is missing or not an array", err);
  /* sampled launches (the fast mode); older reports and --exact: every launch counted */
  if (cJSON_GetObjectItemCaseSensitive(j, "sampled_launches")) {
    if ((rc = get_u64(j, "launches", w, &smp.launches, err)) != CC_OK ||
        (rc = get_u64(j, "sampled_launches", w, &smp.sampled, err)) != CC_OK ||
        (rc = get_bound(j, w, &smp.bound_requests, &smp.bound_sectors, err)) != CC_OK)
      return rc;
    smp.present = smp.sampled < smp.launches;
  }
  /* sampled CTAs (--gpu-mode inline --sample-ctas, gpu_inline.c) */
  if (cJSON_GetObjectItemCaseSensitive(j, "sampled_ctas")) {
    if ((rc = get_u64(j, "ctas", w, &smp.ctas, err)) != CC_OK ||
        (rc = get_u64(j, "sampled_ctas", w, &smp.sampled_ctas, err)) != CC_OK ||
        (rc = get_bound(j, w, &smp.bound_requests, &smp.bound_sectors, err)) != CC_OK)
      return rc;
    if (smp.sampled_ctas > smp.ctas)
      return bad(w, "sampled_ctas", "is more than ctas", err);
    smp.present = smp.sampled_ctas < smp.ctas;
    if (!smp.launches)
      smp.launches = smp.sampled = 1;
  }
  n = (size_t)cJSON_GetArraySize(insns);
  infos = cc_xcalloc(n ? n : 1, sizeof *infos);
  counts = cc_xcalloc(n ? n : 1, sizeof *counts);
  sass = cc_xcalloc(n ? n : 1, sizeof *sass);
  rc = CC_OK;
  for (size_t i = 0; i < n && rc == CC_OK; i++) {
    w->insn = (long)i;
    rc = import_insn(cJSON_GetArrayItem(insns, (int)i), w, sass[i], sizeof sass[i], &infos[i],
                     &counts[i], err);
  }
  w->insn = -1;
  if (rc == CC_OK) {
    char *source = cc_cli_source_name(mangled); /* "transpose", as the emulator names it */
    ki.name = source;
    ki.mangled = mangled;
    ki.n_insns = (uint32_t)n;
    ki.insns = infos;
    rc = cc_analysis_import_kernel(an, &ki, counts, err);
    if (rc != CC_OK)
      cc_err_prefix(err, "%s", w->origin);
    else
      an->kernels[an->n_kernels - 1].sampling = smp;
    free(source);
  }
  free(sass);
  free(counts);
  free(infos);
  return rc;
}

int cc_cli_gpu_import(const char *text, const char *origin, const struct cc_model *m,
                      struct cc_analysis **out, struct cc_err *err)
{
  struct where w = {origin, -1, -1};
  cJSON *doc = cJSON_Parse(text);
  const cJSON *backend, *kernels;
  int rc = CC_OK;
  *out = NULL;
  if (!doc)
    return cc_err_set(err, CC_ERR_INPUT, "%s: not JSON (near byte %ld); pass the JSON that "
                      "libcoalcheck_gpu.so wrote to $COALCHECK_GPU_JSON", origin,
                      cJSON_GetErrorPtr() ? (long)(cJSON_GetErrorPtr() - text) : 0L);
  backend = cJSON_GetObjectItemCaseSensitive(doc, "backend");
  kernels = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
  if (!cJSON_IsString(backend) || strcmp(backend->valuestring, "gpu") != 0)
    rc = bad(&w, "backend", "is not \"gpu\" (an emulator report cannot be imported)", err);
  else if (!cJSON_IsArray(kernels))
    rc = bad(&w, "kernels", "is missing or not an array", err);
  if (rc == CC_OK) {
    *out = cc_analysis_new(m);
    for (int i = 0; i < cJSON_GetArraySize(kernels) && rc == CC_OK; i++) {
      w.kernel = i;
      rc = import_kernel(cJSON_GetArrayItem(kernels, i), &w, *out, err);
    }
    if (rc != CC_OK) {
      cc_analysis_free(*out);
      *out = NULL;
    }
  }
  cJSON_Delete(doc);
  return rc;
}

const char cc_cli_gpu_no_records[] =
    "This run measured the GPU's counters in situ (each warp's access reduced on the "
    "device), so no per-warp records were kept: this page has the figures per instruction "
    "and source line, the source with its heat and the kernel totals, under sm_90 (the "
    "GPU's model) only. To get every view, record the warp accesses with GPU trace mode: "
    "coalcheck --trace RUN.cctrace --html FILE ./app ... (the page then has the grid, "
    "block, warp and operation views; narrow it with --kernel-name, --launch-count 1, "
    "--sample-ctas N); then coalcheck report RUN.cctrace --arch cc1.0,cc1.2,cc2.0,sm_90 "
    "--html FILE shows the older models too.";

int cc_cli_gpu_page(const char *path, const char *json_path, const struct cc_analysis *an,
                    const struct cc_cli_gpu_outputs *o, struct cc_err *err)
{
  struct cc_view *empty = NULL, *v = o->view;
  struct cc_outfile f;
  char *json;
  int rc;
  if (!v) {
    if ((rc = cc_view_new("sm_90", NULL, &empty, err)) != CC_OK)
      return rc;
    cc_view_set_unavailable(empty, cc_cli_gpu_no_records);
    v = empty;
  }
  if ((rc = cc_outfile_open_except(&f, path, &json_path, 1, err)) != CC_OK) {
    cc_view_free(empty);
    return rc;
  }
  json = cc_report_json_string(an, CC_CLI_VERSION);
  rc = cc_view_html_write(f.fp, v, json, o->title ? o->title : json_path, err);
  rc = rc == CC_OK ? cc_outfile_commit(&f, err) : (cc_outfile_abort(&f), rc);
  free(json);
  cc_view_free(empty);
  return rc;
}

int cc_cli_gpu_report(const char *json_path, const struct cc_cli_gpu_outputs *o, FILE *out,
                      struct cc_err *err)
{
  struct cc_model *m = NULL;
  struct cc_analysis *an = NULL;
  char *text = NULL;
  const char *json_out = o->json;
  uint32_t top = o->top;
  int rc;
  if ((rc = cc_model_get("sm_90", NULL, &m, err)) != CC_OK)
    return rc;
  if ((rc = cc_file_read(json_path, &text, NULL, err)) != CC_OK)
    goto done;
  if ((rc = cc_cli_gpu_import(text, json_path, m, &an, err)) != CC_OK)
    goto done;
  if (json_out && ((rc = cc_outfile_check_inputs(json_out, &json_path, 1, err)) != CC_OK ||
                   (rc = cc_report_json_write(json_out, an, CC_CLI_VERSION, err)) != CC_OK))
    goto done;
  if (o->html && (rc = cc_cli_gpu_page(o->html, json_path, an, o, err)) != CC_OK)
    goto done;
  if (!(json_out && strcmp(json_out, "-") == 0)) {
    /* --top: the first `top` instructions of each kernel (they are worst first) */
    struct cc_analysis view = *an;
    view.kernels = cc_xcalloc(an->n_kernels ? an->n_kernels : 1, sizeof *view.kernels);
    for (size_t i = 0; i < an->n_kernels; i++) {
      view.kernels[i] = an->kernels[i];
      if (top && view.kernels[i].n_insns > top)
        view.kernels[i].n_insns = top;
    }
    rc = cc_report_text(out, &view, err);
    free(view.kernels);
  }
done:
  cc_analysis_free(an);
  cc_model_free(m);
  free(text);
  return rc;
}
