/* coalcheck gpu: the JSON report and the text table of the GPU backend.
 *
 * Names follow the emulator's report (docs/json-schema.md); per instruction `sass` and
 * `sass_offset` replace `ptx` and `ptx_index`. Written by hand (no cJSON) so that the
 * injection library needs nothing beyond libc on the GPU machine. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "gpu/gpu.h"

void cc_gpu_json_string(FILE *fp, const char *s)
{
  if (s == NULL) {
    fputs("null", fp);
    return;
  }
  fputc('"', fp);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", fp); break;
    case '\\': fputs("\\\\", fp); break;
    case '\n': fputs("\\n", fp); break;
    case '\t': fputs("\\t", fp); break;
    case '\r': fputs("\\r", fp); break;
    default:
      if (*p < 0x20)
        fprintf(fp, "\\u%04x", *p);
      else
        fputc(*p, fp);
    }
  }
  fputc('"', fp);
}

static const char *space_name(enum cc_space s)
{
  static const char *const names[] = {"global", "shared", "local"};
  return (unsigned)s < CC_SPACE_COUNT ? names[s] : "global";
}

static const char *kind_name(enum cc_access_kind k)
{
  static const char *const names[] = {"load", "store", "atomic", "reduction"};
  return (unsigned)k <= CC_ACCESS_REDUCTION ? names[k] : "load";
}

/* Algorithm 1 (CGO 2015): coalesced when the largest neighbour stride <= access size
 * (local: cc_access_coalesced_stride). */
static const char *verdict(const struct cc_gpu_pc_stats *s)
{
  if (s->stride_count == 0)
    return "coalesced"; /* single-lane requests only: nothing to coalesce */
  uint32_t bound = cc_access_coalesced_stride(cc_gpu_stats_space(s), cc_gpu_stats_size(s));
  return s->stride_max <= bound ? "coalesced" : "uncoalesced";
}

/* A relative bound as a JSON number, or null when unknown (NAN). */
static void write_rel(FILE *fp, double b)
{
  if (isnan(b))
    fputs("null", fp);
  else
    fprintf(fp, "%.6f", b);
}

/* "bound95":{"requests":R,"sectors":S}: relative 95% bounds of the fast mode's estimates
 * (sample.c; 0: every launch measured). Shared: sectors stands for wavefronts. */
static void write_bound(FILE *fp, double req, double sec)
{
  fputs("\"bound95\":{\"requests\":", fp);
  write_rel(fp, req);
  fputs(",\"sectors\":", fp);
  write_rel(fp, sec);
  fputc('}', fp);
}

static void write_insn(FILE *fp, const struct cc_gpu_insn_report *in)
{
  const struct cc_gpu_pc_stats *s = &in->st;
  enum cc_space sp = cc_gpu_stats_space(s);
  uint32_t size = cc_gpu_stats_size(s);
  fprintf(fp, "{\"sass_offset\":%" PRIu32 ",\"sass\":", in->sass_offset);
  cc_gpu_json_string(fp, in->sass);
  fprintf(fp, ",\"space\":\"%s\",\"kind\":\"%s\",\"size_bytes\":%" PRIu32,
          space_name(sp), kind_name(cc_gpu_stats_kind(s, in->sass)), size);
  fputs(",\"source\":", fp);
  if (in->file != NULL && in->line != 0) {
    fputs("{\"file\":", fp);
    cc_gpu_json_string(fp, in->file);
    fprintf(fp, ",\"line\":%" PRIu32 "}", in->line);
  } else {
    fputs("null", fp);
  }
  if (in->inl_file != NULL && in->inl_line != 0) {
    fputs(",\"inlined_at\":{\"file\":", fp);
    cc_gpu_json_string(fp, in->inl_file);
    fprintf(fp, ",\"line\":%" PRIu32 "}", in->inl_line);
  }
  fprintf(fp, ",\"requests\":%" PRIu64 ",\"lanes\":%" PRIu64 ",\"bytes_requested\":%" PRIu64,
          s->requests, s->lanes, s->bytes);
  if (sp != CC_SPACE_SHARED) { /* local: sectors of the interleaved layout */
    fprintf(fp, ",\"sectors\":%" PRIu64 ",\"ideal_sectors\":%" PRIu64, s->sectors, s->ideal);
    /* efficiency = bytes requested / bytes moved (MODELS.md, derived figures) */
    fprintf(fp, ",\"efficiency\":%.4f",
            s->sectors ? (double)s->bytes / (32.0 * (double)s->sectors) : 1.0);
  } else {
    fprintf(fp, ",\"wavefronts\":%" PRIu64 ",\"ideal_wavefronts\":%" PRIu64
            ",\"bank_conflicts\":%" PRIu64 ",\"ways\":%" PRIu64,
            s->sectors, s->ideal, s->sectors - s->ideal, s->ways);
  }
  if (s->stride_count != 0)
    fprintf(fp, ",\"stride\":{\"min\":%" PRIu64 ",\"max\":%" PRIu64 ",\"avg\":%.3f}",
            s->stride_min, s->stride_max, (double)s->stride_sum / (double)s->stride_count);
  else
    fputs(",\"stride\":null", fp);
  fprintf(fp, ",\"verdict\":\"%s\",", verdict(s));
  write_bound(fp, in->bound_requests, in->bound_sectors);
  fputc('}', fp);
}

/* totals per space and kind, the figures Nsight Compute reports per kernel */
static void write_totals(FILE *fp, const struct cc_gpu_kernel_report *k)
{
  uint64_t req[CC_SPACE_COUNT][4] = {{0}}, sec[CC_SPACE_COUNT][4] = {{0}},
           ideal[CC_SPACE_COUNT][4] = {{0}};
  for (size_t i = 0; i < k->n; i++) {
    const struct cc_gpu_pc_stats *s = &k->insns[i].st;
    enum cc_space sp = cc_gpu_stats_space(s);
    enum cc_access_kind kd = cc_gpu_stats_kind(s, k->insns[i].sass);
    req[sp][kd] += s->requests;
    sec[sp][kd] += s->sectors;
    ideal[sp][kd] += s->ideal;
  }
  fputs("\"totals\":{", fp);
  for (int sp = 0; sp < CC_SPACE_COUNT; sp++) {
    fprintf(fp, "%s\"%s\":{", sp ? "," : "", space_name((enum cc_space)sp));
    for (int kd = 0; kd < 4; kd++) {
      fprintf(fp, "%s\"%s\":{\"requests\":%" PRIu64, kd ? "," : "",
              kind_name((enum cc_access_kind)kd), req[sp][kd]);
      if (sp != CC_SPACE_SHARED)
        fprintf(fp, ",\"sectors\":%" PRIu64 ",\"ideal_sectors\":%" PRIu64 "}", sec[sp][kd],
                ideal[sp][kd]);
      else
        fprintf(fp, ",\"wavefronts\":%" PRIu64 ",\"bank_conflicts\":%" PRIu64 "}",
                sec[sp][kd], sec[sp][kd] - ideal[sp][kd]);
    }
    fputc('}', fp);
  }
  fputc('}', fp);
}

int cc_gpu_report_write_json(FILE *fp, const char *device,
                             const struct cc_gpu_kernel_report *k, size_t nk,
                             struct cc_err *err)
{
  fputs("{\"tool\":\"coalcheck\",\"backend\":\"gpu\",\"device\":", fp);
  cc_gpu_json_string(fp, device);
  fputs(",\"model\":\"sm_90\",\"kernels\":[", fp);
  for (size_t i = 0; i < nk; i++) {
    fputs(i ? ",\n{" : "\n{", fp);
    fputs("\"name\":", fp);
    cc_gpu_json_string(fp, k[i].name);
    fputs(",\"mangled\":", fp);
    cc_gpu_json_string(fp, k[i].mangled);
    fprintf(fp, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],\"launches\":%" PRIu64
            ",\"sampled_launches\":%" PRIu64 ",",
            k[i].grid[0], k[i].grid[1], k[i].grid[2], k[i].block[0], k[i].block[1],
            k[i].block[2], k[i].launches, k[i].sampled_launches);
    write_bound(fp, k[i].bound_requests, k[i].bound_sectors);
    fprintf(fp, ",\"outside_requests\":%" PRIu64 ",\"instructions\":[",
            k[i].outside_requests);
    for (size_t j = 0; j < k[i].n; j++) {
      fputs(j ? ",\n " : "\n ", fp);
      write_insn(fp, &k[i].insns[j]);
    }
    fputs("],\n", fp);
    write_totals(fp, &k[i]);
    fputc('}', fp);
  }
  fputs("]}\n", fp);
  if (fflush(fp) != 0 || ferror(fp))
    return cc_err_set(err, CC_ERR_IO, "cannot write the gpu json report; check the disk");
  return CC_OK;
}

/* "±x%" of a relative bound, "±?" when unknown */
static void text_bound(FILE *fp, double b)
{
  if (isnan(b))
    fputs("\u00b1?", fp);
  else
    fprintf(fp, "\u00b1%.1f%%", 100.0 * b);
}

void cc_gpu_report_write_text(FILE *fp, const struct cc_gpu_kernel_report *k, size_t nk)
{
  for (size_t i = 0; i < nk; i++) {
    fprintf(fp, "coalcheck-gpu: %s  grid %ux%ux%u block %ux%ux%u  launches %" PRIu64,
            k[i].name ? k[i].name : "?", k[i].grid[0], k[i].grid[1], k[i].grid[2],
            k[i].block[0], k[i].block[1], k[i].block[2], k[i].launches);
    if (k[i].sampled_launches < k[i].launches) {
      fprintf(fp, " (%" PRIu64 " sampled; requests ", k[i].sampled_launches);
      text_bound(fp, k[i].bound_requests);
      fputs(", sectors ", fp);
      text_bound(fp, k[i].bound_sectors);
      fputs(" at 95%)", fp);
    }
    fputc('\n', fp);
    fprintf(fp, "  %-6s %-7s %-9s %4s %12s %12s %12s %10s  %s\n", "offset", "space", "kind",
            "size", "requests", "sect/wavef", "ideal", "max-stride", "source / sass");
    for (size_t j = 0; j < k[i].n; j++) {
      const struct cc_gpu_insn_report *in = &k[i].insns[j];
      const struct cc_gpu_pc_stats *s = &in->st;
      char where[512];
      if (in->file && in->line) {
        const char *base = strrchr(in->file, '/');
        snprintf(where, sizeof where, "%s:%u  %s", base ? base + 1 : in->file, in->line,
                 in->sass ? in->sass : "");
      } else {
        snprintf(where, sizeof where, "%s", in->sass ? in->sass : "");
      }
      fprintf(fp, "  %06x %-7s %-9s %4u %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %10" PRIu64
              "  %s\n", in->sass_offset, space_name(cc_gpu_stats_space(s)),
              kind_name(cc_gpu_stats_kind(s, in->sass)), cc_gpu_stats_size(s), s->requests,
              s->sectors, s->ideal, s->stride_count ? s->stride_max : 0, where);
    }
  }
}
