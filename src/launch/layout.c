/* A buffer's layout directive (the LAYOUT of NAME=TYPE[SIZE]:LAYOUT:INIT): parsing,
 * the check against the buffer's size, the relayout of its bytes and its spelling. See
 * launch.h. */
#include "launch/launch.h"
#include "launch/launch_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void cc_launch_layout_release(struct cc_launch_layout *l)
{
  free(l->offsets);
  memset(l, 0, sizeof *l);
}

/* One unsigned decimal number in 0..max at *p (advanced past it); -1 when there is none
 * or it is out of range. */
static int layout_number(const char **p, uint32_t max, uint32_t *out)
{
  uint64_t v = 0;
  const char *s = *p;
  if (*s < '0' || *s > '9')
    return -1;
  while (*s >= '0' && *s <= '9') {
    v = v * 10 + (uint64_t)(*s - '0');
    if (v > max)
      return -1;
    s++;
  }
  *p = s;
  *out = (uint32_t)v;
  return 0;
}

/* Appends offset to l (grown as needed). */
static void push_offset(struct cc_launch_layout *l, uint32_t offset)
{
  l->offsets = cc_xrealloc(l->offsets, ((size_t)l->npieces + 1) * sizeof *l->offsets);
  l->offsets[l->npieces++] = offset;
}

int cc_launch_layout_parse(const char *text, size_t len, struct cc_launch_layout *out,
                           char *why, size_t why_size)
{
  char *s = cc_xstrndup(text, len);
  const char *p = s;
  uint32_t v;
  memset(out, 0, sizeof *out);
  out->block = CC_LAUNCH_LAYOUT_BLOCK;
  if (strncmp(p, "soa(", 4) != 0 || len < 5 || s[len - 1] != ')') {
    snprintf(why, why_size, "a layout is soa(BYTES,OFFSET,...[,block=B])");
    goto error;
  }
  p += 4;
  if (layout_number(&p, CC_LAUNCH_LAYOUT_MAX_BYTES, &out->struct_bytes) != 0 ||
      out->struct_bytes == 0) {
    snprintf(why, why_size, "soa(): BYTES, the structure's size, must be 1..%u",
             CC_LAUNCH_LAYOUT_MAX_BYTES);
    goto error;
  }
  while (*p == ',') {
    p++;
    if (strncmp(p, "block=", 6) == 0) {
      p += 6;
      if (layout_number(&p, CC_LAUNCH_LAYOUT_MAX_BYTES, &out->block) != 0 || out->block == 0) {
        snprintf(why, why_size, "soa(): block=B needs B in 1..%u elements",
                 CC_LAUNCH_LAYOUT_MAX_BYTES);
        goto error;
      }
      break;
    }
    if (layout_number(&p, CC_LAUNCH_LAYOUT_MAX_BYTES, &v) != 0) {
      snprintf(why, why_size, "soa(): expected a byte offset or block=B after ','");
      goto error;
    }
    if (out->npieces == 0 ? v != 0 : v <= out->offsets[out->npieces - 1]) {
      snprintf(why, why_size, "soa(): the offsets must start at 0 and ascend (the runs of "
               "bytes that move as one: members and padding)");
      goto error;
    }
    if (v >= out->struct_bytes) {
      snprintf(why, why_size, "soa(): offset %u is not inside the %u-byte structure", v,
               out->struct_bytes);
      goto error;
    }
    push_offset(out, v);
  }
  if (*p != ')' || p != s + len - 1) {
    snprintf(why, why_size, "soa(): unexpected '%c'; a layout is soa(BYTES,OFFSET,..."
             "[,block=B])", *p);
    goto error;
  }
  if (out->npieces == 0) {
    snprintf(why, why_size, "soa(): give the offsets of the structure's members, 0 first");
    goto error;
  }
  free(s);
  return 0;
error:
  free(s);
  cc_launch_layout_release(out);
  return -1;
}

int cc_launch_layout_check(const struct cc_launch_layout *l, const char *name, uint64_t bytes,
                           struct cc_err *err)
{
  uint64_t span = (uint64_t)l->struct_bytes * l->block;
  if (!l->struct_bytes)
    return CC_OK;
  if (bytes % l->struct_bytes != 0)
    return cc_err_set(err, CC_ERR_INPUT, "buffer '%s': its %llu bytes are not a whole number "
                      "of %u-byte structures, as its layout soa(%u,...) needs; fix the size or "
                      "the layout", name, (unsigned long long)bytes, l->struct_bytes,
                      l->struct_bytes);
  if (bytes % span != 0)
    return cc_err_set(err, CC_ERR_INPUT, "buffer '%s': its %llu structures are not a multiple "
                      "of the layout's block of %u; pad the buffer to %llu structures",
                      name, (unsigned long long)(bytes / l->struct_bytes), l->block,
                      (unsigned long long)((bytes / l->struct_bytes + l->block - 1) / l->block *
                                           l->block));
  return CC_OK;
}

uint64_t cc_launch_layout_address(const struct cc_launch_layout *l, uint64_t e, uint32_t piece)
{
  uint32_t o = l->offsets[piece];
  uint32_t z = (piece + 1 < l->npieces ? l->offsets[piece + 1] : l->struct_bytes) - o;
  return (e / l->block) * l->block * l->struct_bytes + (uint64_t)l->block * o +
         (e % l->block) * z;
}

void cc_launch_layout_apply(const struct cc_launch_layout *l, uint8_t *data, uint64_t bytes,
                            int inverse)
{
  uint64_t span = (uint64_t)l->struct_bytes * l->block, blocks;
  uint8_t *tmp;
  if (!l->struct_bytes)
    return;
  blocks = bytes / span;
  tmp = cc_xmalloc((size_t)span);
  for (uint64_t b = 0; b < blocks; b++) {
    uint8_t *blk = data + b * span;
    memcpy(tmp, blk, (size_t)span);
    for (uint32_t e = 0; e < l->block; e++)
      for (uint32_t k = 0; k < l->npieces; k++) {
        uint64_t aos = (uint64_t)e * l->struct_bytes + l->offsets[k];
        uint64_t blocked = cc_launch_layout_address(l, e, k);
        uint32_t z = (k + 1 < l->npieces ? l->offsets[k + 1] : l->struct_bytes) - l->offsets[k];
        if (inverse)
          memcpy(blk + aos, tmp + blocked, z);
        else
          memcpy(blk + blocked, tmp + aos, z);
      }
  }
  free(tmp);
}

int cc_launch_layout_format(const struct cc_launch_layout *l, char *buf, size_t size)
{
  size_t at = 0;
  int n = snprintf(buf, size, "soa(%u", l->struct_bytes);
  if (n < 0)
    return -1;
  at = (size_t)n;
  for (uint32_t k = 0; k < l->npieces; k++) {
    n = snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, ",%u", l->offsets[k]);
    at += (size_t)n;
  }
  if (l->block != CC_LAUNCH_LAYOUT_BLOCK)
    at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0,
                           ",block=%u", l->block);
  at += (size_t)snprintf(buf + (at < size ? at : size), at < size ? size - at : 0, ")");
  return at < size ? (int)at : -1;
}
