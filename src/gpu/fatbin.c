/* coalcheck GPU backend: fatbin entries and their PTX (see fatbin.h for the layout). */
#include "gpu/fatbin.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* little-endian reads at any alignment (the fatbin is 8-byte aligned, its fields too, but
 * a test's buffer need not be) */
static uint64_t rd(const uint8_t *p, int bytes)
{
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

const uint8_t *cc_fatbin_find(const void *image, uint64_t *bytes)
{
  const uint8_t *p = image;
  *bytes = 0;
  if (!p)
    return NULL;
  if (rd(p, 4) == CC_FATBIN_WRAPPER_MAGIC) { /* __fatBinC_Wrapper_t: magic, version, data */
    uintptr_t data = (uintptr_t)rd(p + 8, 8);
    p = (const uint8_t *)data;
    if (!p)
      return NULL;
  }
  if (rd(p, 4) != CC_FATBIN_MAGIC)
    return NULL;
  *bytes = rd(p + 6, 2) + rd(p + 8, 8);
  return p;
}

int cc_fatbin_entries(const uint8_t *fb, uint64_t bytes, struct cc_fatbin_entry **out,
                      size_t *n, struct cc_err *err)
{
  CC_VEC(struct cc_fatbin_entry) v = {0};
  *out = NULL;
  *n = 0;
  if (bytes < 16 || rd(fb, 4) != CC_FATBIN_MAGIC)
    return cc_err_set(err, CC_ERR_INPUT, "fatbin: no 0xBA55ED50 header (%" PRIu64 " bytes)",
                      bytes);
  uint64_t off = rd(fb + 6, 2);
  while (off < bytes) {
    const uint8_t *h = fb + off;
    uint64_t hsize, psize;
    if (bytes - off < 32 || (hsize = rd(h + 4, 4)) < 32 || hsize > bytes - off ||
        (psize = rd(h + 8, 8)) > bytes - off - hsize) {
      free(v.data);
      return cc_err_set(err, CC_ERR_INPUT, "fatbin: entry at byte %" PRIu64 " runs past the "
                        "end (%" PRIu64 " bytes)", off, bytes);
    }
    struct cc_fatbin_entry e = {.kind = (uint16_t)rd(h, 2), .minor = (uint16_t)rd(h + 24, 2),
                                .major = (uint16_t)rd(h + 26, 2), .arch = (uint32_t)rd(h + 28, 4),
                                .payload = h + hsize, .stored = psize, .plain = psize};
    e.flags = hsize >= 48 ? rd(h + 40, 8) : 0;
    uint64_t csize = rd(h + 16, 4);
    if ((e.flags & (CC_FATBIN_F_ZSTD | CC_FATBIN_F_LZ4)) && csize && csize <= psize) {
      e.stored = csize;
      e.plain = hsize >= 64 ? rd(h + 56, 8) : 0;
    }
    CC_VEC_PUSH(&v, e);
    off += hsize + psize;
  }
  *out = v.data;
  *n = v.len;
  return CC_OK;
}

const struct cc_fatbin_entry *cc_fatbin_best_ptx(const struct cc_fatbin_entry *e, size_t n,
                                                 uint32_t device_arch)
{
  const struct cc_fatbin_entry *best = NULL;
  for (size_t i = 0; i < n; i++)
    if (e[i].kind == CC_FATBIN_PTX && e[i].arch <= device_arch &&
        (!best || e[i].arch > best->arch))
      best = &e[i];
  return best;
}

int cc_fatbin_ptx_text(const struct cc_fatbin_entry *e, char **text, size_t *len,
                       struct cc_err *err)
{
  char *t;
  size_t got;
  *text = NULL;
  *len = 0;
  if (e->flags & CC_FATBIN_F_LZ4)
    return cc_err_set(err, CC_ERR_TOOL, "fatbin: the PTX of arch %" PRIu32 " is LZ4-compressed "
                      "(an older toolkit): not supported; rebuild with CUDA 12.4 or later",
                      e->arch);
  if (e->flags & CC_FATBIN_F_ZSTD) {
    if (!e->plain || e->plain > ((uint64_t)1 << 31))
      return cc_err_set(err, CC_ERR_INPUT, "fatbin: the PTX of arch %" PRIu32 " is compressed "
                        "but states %" PRIu64 " bytes decompressed", e->arch, e->plain);
    t = cc_xmalloc((size_t)e->plain + 1);
    got = ZSTD_decompress(t, (size_t)e->plain, e->payload, (size_t)e->stored);
    if (ZSTD_isError(got) || got != e->plain) {
      free(t);
      return cc_err_set(err, CC_ERR_INPUT, "fatbin: the PTX of arch %" PRIu32 " does not "
                        "decompress (ZSTD: %s)", e->arch,
                        ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch");
    }
  } else {
    got = (size_t)e->stored;
    t = cc_xmalloc(got + 1);
    memcpy(t, e->payload, got);
  }
  t[got] = '\0';
  *len = strlen(t); /* payloads are padded with NULs */
  *text = t;
  return CC_OK;
}
