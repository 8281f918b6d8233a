/* libFuzzer target: the trace reader (docs/trace-format.md). The first byte picks what the
 * rest is:
 *   even: a whole .cctrace file;
 *   odd:  the uncompressed events of one data block, which this target wraps into a file
 *         (a valid header, the block zstd-compressed with its CRC-32, an end marker), so
 *         that mutations reach the event decoder and the analysis instead of stopping at
 *         the checksum. The block's event count is written as 0: the reader delivers the
 *         block's records before it compares the count, then reports the mismatch.
 * The file is replayed (cc_trace_replay) into the analysis under sm_90 with a cache model,
 * as `coalcheck report` does (a small H100, 2 SMs, 16 KiB L1, 64 KiB L2, so that each
 * kernel's cold start stays cheap), and the analysis, when no kernel is left open, written
 * as a JSON report. */
#include "fuzz.h"

#include <zstd.h>

#include "access/trace.h"
#include "cache/cache.h"
#include "report/report.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* The file around one block of events: header | CCBD block | CCBE end marker. */
static uint8_t *wrap_events(const uint8_t *events, size_t n, size_t *len)
{
  static const char strings[][24] = {"fuzz", "2026-01-01T00:00:00Z", ""};
  size_t bound = ZSTD_compressBound(n), payload = 0, o = 0, z;
  uint8_t *f;
  for (int i = 0; i < 3; i++)
    payload += 4 + strlen(strings[i]);
  f = malloc(16 + payload + 4 + 20 + bound + 20 + 40);
  if (!f)
    abort();
  memcpy(f, "\x89" "CCT\r\n\x1a\n", 8);
  put_le(f + 8, 1, 2);
  put_le(f + 10, 0, 2);
  put_le(f + 12, payload, 4);
  o = 16;
  for (int i = 0; i < 3; i++) {
    put_le(f + o, strlen(strings[i]), 4);
    memcpy(f + o + 4, strings[i], strlen(strings[i]));
    o += 4 + strlen(strings[i]);
  }
  put_le(f + o, cc_trace_crc32(0, f, o), 4);
  o += 4;
  if (n > 0) {
    size_t h = o;
    z = ZSTD_compress(f + h + 20, bound, events, n, 1);
    if (ZSTD_isError(z))
      abort();
    memcpy(f + h, "CCBD", 4);
    put_le(f + h + 4, n, 4);
    put_le(f + h + 8, z, 4);
    put_le(f + h + 12, 0, 4);
    put_le(f + h + 16, cc_trace_crc32(cc_trace_crc32(0, f + h, 16), f + h + 20, z), 4);
    o = h + 20 + z;
  }
  {
    size_t h = o;
    uint8_t *m = f + h + 20;
    memcpy(f + h, "CCBE", 4);
    put_le(f + h + 4, 40, 4);
    put_le(f + h + 8, 40, 4);
    put_le(f + h + 12, 0, 4);
    put_le(m, 0, 8);
    put_le(m + 8, 0, 8);
    put_le(m + 16, n > 0, 8);
    put_le(m + 24, n, 8);
    put_le(m + 32, h, 8);
    put_le(f + h + 16, cc_trace_crc32(cc_trace_crc32(0, f + h, 16), m, 40), 4);
    o = h + 60;
  }
  *len = o;
  return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct cc_model *m = NULL;
  struct cc_analysis *an;
  struct cc_access_sink sink;
  struct cc_trace_info info;
  struct cc_err err = {CC_OK, ""};
  struct cc_cache_device dev;
  const char *path;
  int rc, on = 0;
  if (size == 0)
    return 0;
  if (data[0] & 1) {
    size_t len;
    uint8_t *file = wrap_events(data + 1, size - 1, &len);
    path = fuzz_file("fuzz.cctrace", file, len);
    free(file);
  } else {
    path = fuzz_file("fuzz.cctrace", data + 1, size - 1);
  }
  if (cc_model_get("sm_90", NULL, &m, &err) != CC_OK)
    abort();
  an = cc_analysis_new(m);
  if (cc_cache_device_get("sm_90", "h100,sms=2,l1=16K,l2=64K", NULL, &dev, &on, &err) !=
      CC_OK)
    abort();
  cc_analysis_set_cache(an, cc_cache_new(&dev));
  sink = cc_analysis_sink(an);
  memset(&info, 0, sizeof info);
  rc = cc_trace_replay(path, &sink, &info, &err);
  if (rc == CC_OK)
    cc_trace_info_release(&info);
  else if (!err.msg[0])
    abort(); /* every failure says why */
  if (!an->open)
    free(cc_report_json_string(an, "fuzz"));
  cc_analysis_free(an);
  cc_model_free(m);
  return 0;
}
