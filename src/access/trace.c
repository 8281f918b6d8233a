/* The trace file: writer (a sink), reader (replay into a sink), fan-out sink. Format:
 * docs/trace-format.md; interface: trace.h.
 *
 * Encoding in one paragraph: a block's uncompressed bytes are a sequence of events. An
 * event starts with a flags byte. Bit 7 (F_EXT) says an extension byte follows: EXT_BEGIN
 * and EXT_END are the kernel events (flags exactly F_EXT), EXT_OVERRIDE an access whose
 * kind/space/size differ from its instruction's table entry. Every other field of an
 * access is sent only when it differs from a prediction: the slot, CTA and warp of the
 * previous record; the dyn, active mask, stride and base address of the previous record
 * of the same instruction slot. Prediction state restarts at each block and each kernel,
 * so that a block decodes on its own given the kernel table. */
#include "access/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <zstd.h>

#include "util/fileio.h"
#include "util/mem.h"

/* ---- format constants (docs/trace-format.md) ---------------------------------------- */

static const uint8_t file_magic[8] = {0x89, 'C', 'C', 'T', '\r', '\n', 0x1a, '\n'};
#define FILE_FIXED_BYTES 16         /* magic, major, minor, header payload length */
#define HEADER_PAYLOAD_MAX (1u << 20)
#define BLOCK_HEADER_BYTES 20       /* tag, raw size, stored size, events, crc */
#define END_PAYLOAD_BYTES 40        /* kernels, records, blocks, raw bytes, offset */
static const char tag_data[4] = {'C', 'C', 'B', 'D'};
static const char tag_end[4] = {'C', 'C', 'B', 'E'};

enum {
  F_SLOT = 1u << 0,   /* insn_slot differs from the previous record's: varint slot */
  F_CTA = 1u << 1,    /* cta differs: 3 zigzag deltas */
  F_WARP = 1u << 2,   /* warp differs: zigzag delta */
  F_DYN = 1u << 3,    /* dyn differs from the prediction: zigzag delta */
  F_ACTIVE = 1u << 4, /* active differs from the slot's last: 4 bytes LE */
  F_MODE_SHIFT = 5,   /* 2 bits: address mode, see enum addr_mode */
  F_EXT = 1u << 7     /* an extension byte follows the flags */
};
enum addr_mode {
  MODE_AFFINE_PREDICTED = 0, /* base = predicted, stride = slot's last: no bytes */
  MODE_AFFINE_BASE = 1,      /* stride = slot's last; zigzag base - predicted */
  MODE_AFFINE_STRIDE = 2,    /* zigzag new stride, zigzag base - predicted */
  MODE_GENERAL = 3           /* zigzag base - predicted, then per further active lane
                                zigzag (addr - previous active lane's addr) */
};
enum { EXT_OVERRIDE = 1, EXT_BEGIN = 2, EXT_END = 3 };

/* ---- CRC-32 --------------------------------------------------------------------------- */

/* 4 bits at a time: crc_nibble[i] is the CRC register after shifting nibble i through the
 * reflected polynomial 0xEDB88320 four times (zlib's table, 16 entries). */
static const uint32_t crc_nibble[16] = {
    0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
    0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
    0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};

uint32_t cc_trace_crc32(uint32_t crc, const void *data, size_t n)
{
  const uint8_t *p = data;
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    crc = (crc >> 4) ^ crc_nibble[crc & 15];
    crc = (crc >> 4) ^ crc_nibble[crc & 15];
  }
  return ~crc;
}

/* Slicing-by-8 tables (Intel's "slicing-by-8", as in zlib's crc32_little): t[0] is the
 * byte table, t[k][i] = (t[k-1][i] >> 8) ^ t[0][t[k-1][i] & 0xff]. Built per writer and
 * reader (8 KiB) because there are no mutable globals; ~10x the nibble loop's speed. */
struct crc_tables {
  uint32_t t[8][256];
};

static void crc_tables_init(struct crc_tables *c)
{
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t r = i;
    for (int b = 0; b < 8; b++)
      r = (r >> 1) ^ (0xedb88320u & (0 - (r & 1)));
    c->t[0][i] = r;
  }
  for (int k = 1; k < 8; k++)
    for (uint32_t i = 0; i < 256; i++)
      c->t[k][i] = (c->t[k - 1][i] >> 8) ^ c->t[0][c->t[k - 1][i] & 0xff];
}

/* The same function as cc_trace_crc32, 8 bytes per step. */
static uint32_t crc32_fast(const struct crc_tables *c, uint32_t crc, const void *data,
                           size_t n)
{
  const uint8_t *p = data;
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                         (uint32_t)p[3] << 24);
    crc = c->t[7][lo & 0xff] ^ c->t[6][lo >> 8 & 0xff] ^ c->t[5][lo >> 16 & 0xff] ^
          c->t[4][lo >> 24] ^ c->t[3][p[4]] ^ c->t[2][p[5]] ^ c->t[1][p[6]] ^ c->t[0][p[7]];
  }
  for (; n; n--, p++)
    crc = (crc >> 8) ^ c->t[0][(crc ^ *p) & 0xff];
  return ~crc;
}

/* ---- byte encoding -------------------------------------------------------------------- */

typedef CC_VEC(uint8_t) bytes;

static void put_u8(bytes *b, uint8_t v)
{
  CC_VEC_PUSH(b, v);
}

static void put_le(bytes *b, uint64_t v, int n)
{
  CC_VEC_RESERVE(b, (size_t)n);
  for (int i = 0; i < n; i++)
    b->data[b->len++] = (uint8_t)(v >> (8 * i));
}

static void store_le(uint8_t *p, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t load_le(const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* LEB128: 7 bits per byte, low first, bit 7 = more; at most 10 bytes for 64 bits. */
static void put_varint(bytes *b, uint64_t v)
{
  CC_VEC_RESERVE(b, 10);
  while (v >= 0x80) {
    b->data[b->len++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b->data[b->len++] = (uint8_t)v;
}

/* Zigzag maps a two's complement difference (as uint64) to small codes for small
 * magnitudes: 0,-1,1,-2,... -> 0,1,2,3,... */
static uint64_t zz_enc(uint64_t d)
{
  return (d << 1) ^ (0 - (d >> 63));
}

static uint64_t zz_dec(uint64_t v)
{
  return (v >> 1) ^ (0 - (v & 1));
}

/* A string: varint (length + 1), then the bytes; 0 encodes NULL. */
static void put_str(bytes *b, const char *s)
{
  size_t n;
  if (!s) {
    put_u8(b, 0);
    return;
  }
  n = strlen(s);
  put_varint(b, (uint64_t)n + 1);
  CC_VEC_RESERVE(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

/* ---- prediction state (shared by writer and reader, so both stay in step) ------------ */

struct slot_state {
  uint64_t base, base_delta, stride, dyn;
  uint32_t active, cta[3], warp;
  int seen;
};

struct pred_state {
  uint32_t slot, cta[3], warp;
  struct slot_state *slots; /* n_slots entries */
  uint32_t n_slots;
};

static void pred_reset(struct pred_state *s)
{
  s->slot = s->warp = 0;
  s->cta[0] = s->cta[1] = s->cta[2] = 0;
  for (uint32_t i = 0; i < s->n_slots; i++) {
    memset(&s->slots[i], 0, sizeof s->slots[i]);
    s->slots[i].active = 0xffffffffu;
  }
}

static void pred_resize(struct pred_state *s, uint32_t n_slots)
{
  free(s->slots);
  s->slots = cc_xcalloc(n_slots ? n_slots : 1, sizeof *s->slots);
  s->n_slots = n_slots;
  pred_reset(s);
}

static uint64_t pred_dyn(const struct slot_state *ss, const uint32_t cta[3], uint32_t warp)
{
  int same = ss->seen && ss->warp == warp && ss->cta[0] == cta[0] && ss->cta[1] == cta[1] &&
             ss->cta[2] == cta[2];
  return same ? ss->dyn + 1 : ss->dyn;
}

/* Records a decoded or encoded access as the new prediction basis. */
static void pred_update(struct pred_state *s, const struct cc_warp_access *a)
{
  struct slot_state *ss = &s->slots[a->insn_slot];
  s->slot = a->insn_slot;
  memcpy(s->cta, a->cta, sizeof s->cta);
  s->warp = a->warp;
  memcpy(ss->cta, a->cta, sizeof ss->cta);
  ss->warp = a->warp;
  ss->dyn = a->dyn;
  ss->active = a->active;
  ss->seen = 1;
  if (a->active) {
    uint64_t base = a->addr[__builtin_ctz(a->active)];
    ss->base_delta = base - ss->base;
    ss->base = base;
  }
}

/* True when every active lane l of a has addr[l] = base + (l - l0) * stride (mod 2^64). */
static int is_affine(const struct cc_warp_access *a, uint32_t l0, uint64_t stride)
{
  uint64_t base = a->addr[l0];
  for (uint32_t m = a->active & (a->active - 1); m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctz(m);
    if (a->addr[l] != base + (uint64_t)(l - l0) * stride)
      return 0;
  }
  return 1;
}

/* The stride implied by the first two active lanes, if one exists (at least 2 lanes). */
static int find_stride(const struct cc_warp_access *a, uint32_t l0, uint64_t *stride)
{
  uint32_t rest = a->active & (a->active - 1);
  uint32_t l1, k;
  int64_t d;
  if (!rest)
    return 0;
  l1 = (uint32_t)__builtin_ctz(rest);
  k = l1 - l0;
  d = (int64_t)(a->addr[l1] - a->addr[l0]);
  if (d % (int64_t)k != 0)
    return 0;
  *stride = (uint64_t)(d / (int64_t)k);
  return 1;
}

/* ---- writer --------------------------------------------------------------------------- */

struct cc_trace_writer {
  struct cc_outfile out; /* a file, a device or stdout (util/fileio.h) */
  char *path;
  ZSTD_CCtx *cctx;
  int level;
  size_t block_bytes;
  bytes raw;             /* the block being built */
  uint8_t *zbuf;
  size_t zcap;
  uint32_t block_events;
  struct pred_state st;
  const struct cc_insn_info *insns; /* borrowed: begin_kernel .. end_kernel */
  uint32_t n_insns;
  const char *kernel_name;          /* borrowed likewise, for messages */
  int in_kernel;
  int failed;            /* status of the first failed callback, 0 if none */
  struct cc_trace_stats stats;
  struct crc_tables crc;
};

static int write_bytes(struct cc_trace_writer *w, const void *p, size_t n, struct cc_err *err)
{
  if (n && fwrite(p, 1, n, w->out.fp) != n)
    return cc_err_set(err, CC_ERR_IO, "cannot write %s: %s", w->path, strerror(errno));
  w->stats.file_bytes += n;
  return CC_OK;
}

/* Writes one block: a 20-byte header (tag, raw size, stored size, events, CRC-32 of the
 * first 16 header bytes and the stored bytes) and the stored bytes. */
static int write_block(struct cc_trace_writer *w, const char tag[4], const uint8_t *stored,
                       size_t stored_len, size_t raw_len, uint32_t events,
                       struct cc_err *err)
{
  uint8_t h[BLOCK_HEADER_BYTES];
  uint32_t crc;
  int rc;
  memcpy(h, tag, 4);
  store_le(h + 4, raw_len, 4);
  store_le(h + 8, stored_len, 4);
  store_le(h + 12, events, 4);
  crc = crc32_fast(&w->crc, 0, h, 16);
  crc = crc32_fast(&w->crc, crc, stored, stored_len);
  store_le(h + 16, crc, 4);
  if ((rc = write_bytes(w, h, sizeof h, err)) != CC_OK)
    return rc;
  return write_bytes(w, stored, stored_len, err);
}

/* Compresses and writes the pending events as one data block; restarts prediction. */
static int flush_block(struct cc_trace_writer *w, struct cc_err *err)
{
  size_t bound, z;
  int rc;
  if (w->raw.len == 0)
    return CC_OK;
  bound = ZSTD_compressBound(w->raw.len);
  if (bound > w->zcap) {
    w->zbuf = cc_xrealloc(w->zbuf, bound);
    w->zcap = bound;
  }
  z = ZSTD_compressCCtx(w->cctx, w->zbuf, w->zcap, w->raw.data, w->raw.len, w->level);
  if (ZSTD_isError(z))
    return cc_err_set(err, CC_ERR_INTERNAL, "cannot compress a block of %s: %s", w->path,
                      ZSTD_getErrorName(z));
  if ((rc = write_block(w, tag_data, w->zbuf, z, w->raw.len, w->block_events, err)) != CC_OK)
    return rc;
  w->stats.blocks++;
  w->stats.raw_bytes += w->raw.len;
  w->raw.len = 0;
  w->block_events = 0;
  pred_reset(&w->st);
  return CC_OK;
}

static int flush_if_full(struct cc_trace_writer *w, struct cc_err *err)
{
  return w->raw.len >= w->block_bytes ? flush_block(w, err) : CC_OK;
}

/* Remembers the first failure: the stream is unusable after it. */
static int fail(struct cc_trace_writer *w, int rc)
{
  if (rc != CC_OK && !w->failed)
    w->failed = rc;
  return rc;
}

static void put_kernel(bytes *b, const struct cc_kernel_info *k)
{
  put_u8(b, F_EXT);
  put_u8(b, EXT_BEGIN);
  put_str(b, k->name);
  put_str(b, k->mangled);
  for (int i = 0; i < 3; i++)
    put_varint(b, k->grid[i]);
  for (int i = 0; i < 3; i++)
    put_varint(b, k->block[i]);
  put_varint(b, k->n_insns);
  for (uint32_t i = 0; i < k->n_insns; i++) {
    const struct cc_insn_info *in = &k->insns[i];
    put_varint(b, in->id);
    put_u8(b, (uint8_t)in->kind);
    put_u8(b, (uint8_t)in->space);
    put_varint(b, in->size_bytes);
    put_str(b, in->text);
    put_str(b, in->file);
    put_varint(b, in->line);
    put_varint(b, in->column);
    put_str(b, in->inlined_file);
    put_varint(b, in->inlined_line);
  }
}

static int w_begin_kernel(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct cc_trace_writer *w = ctx;
  int rc;
  if (w->failed)
    return cc_err_set(err, w->failed, "trace %s: the recording already failed: abort it",
                      w->path);
  if (w->in_kernel)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL,
                              "trace %s: begin_kernel(%s) inside kernel %s: end it first",
                              w->path, k->name ? k->name : "?",
                              w->kernel_name ? w->kernel_name : "?"));
  if (k->n_insns > CC_TRACE_INSNS_MAX)
    return fail(w, cc_err_set(err, CC_ERR_LIMIT, "trace %s: kernel %s has %u memory "
                              "instructions, more than a trace holds (" CC_TRACE_INSNS_MAX_TEXT
                              "): split the kernel", w->path, k->name ? k->name : "?",
                              k->n_insns));
  if (k->n_insns && !k->insns)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: kernel %s has %u instructions "
                              "but no table", w->path, k->name ? k->name : "?", k->n_insns));
  for (uint32_t i = 0; i < k->n_insns; i++)
    if ((unsigned)k->insns[i].kind > CC_ACCESS_REDUCTION ||
        (unsigned)k->insns[i].space >= CC_SPACE_COUNT)
      return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: kernel %s, slot %u: kind %d, "
                                "space %d out of range", w->path, k->name ? k->name : "?", i,
                                (int)k->insns[i].kind, (int)k->insns[i].space));
  /* a table opens a block, so a block holds at most one: CC_TRACE_BLOCK_MAX bounds both */
  if ((rc = flush_block(w, err)) != CC_OK)
    return fail(w, rc);
  put_kernel(&w->raw, k);
  if (w->raw.len > CC_TRACE_BLOCK_MAX) {
    size_t n = w->raw.len;
    w->raw.len = 0;
    return fail(w, cc_err_set(err, CC_ERR_LIMIT, "trace %s: the table of kernel %s takes %zu "
                              "bytes, more than a trace block holds (%u): split the kernel",
                              w->path, k->name ? k->name : "?", n, CC_TRACE_BLOCK_MAX));
  }
  w->block_events++;
  w->insns = k->insns;
  w->n_insns = k->n_insns;
  w->kernel_name = k->name;
  w->in_kernel = 1;
  w->stats.kernels++;
  pred_resize(&w->st, k->n_insns);
  return fail(w, flush_if_full(w, err));
}

static int w_end_kernel(void *ctx, struct cc_err *err)
{
  struct cc_trace_writer *w = ctx;
  if (w->failed)
    return cc_err_set(err, w->failed, "trace %s: the recording already failed: abort it",
                      w->path);
  if (!w->in_kernel)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: end_kernel without "
                              "begin_kernel", w->path));
  put_u8(&w->raw, F_EXT);
  put_u8(&w->raw, EXT_END);
  w->block_events++;
  w->in_kernel = 0;
  w->insns = NULL;
  w->kernel_name = NULL;
  return fail(w, flush_if_full(w, err));
}

/* Appends the address fields of a; returns the address mode for the flags byte. */
static unsigned put_addresses(bytes *b, const struct slot_state *ss,
                              const struct cc_warp_access *a)
{
  uint32_t l0;
  uint64_t base, pred, stride;
  if (!a->active)
    return MODE_AFFINE_PREDICTED;
  l0 = (uint32_t)__builtin_ctz(a->active);
  base = a->addr[l0];
  pred = ss->base + ss->base_delta;
  if (is_affine(a, l0, ss->stride)) {
    if (base == pred)
      return MODE_AFFINE_PREDICTED;
    put_varint(b, zz_enc(base - pred));
    return MODE_AFFINE_BASE;
  }
  if (find_stride(a, l0, &stride) && is_affine(a, l0, stride)) {
    put_varint(b, zz_enc(stride));
    put_varint(b, zz_enc(base - pred));
    return MODE_AFFINE_STRIDE;
  }
  put_varint(b, zz_enc(base - pred));
  uint32_t prev = l0;
  for (uint32_t m = a->active & (a->active - 1); m; m &= m - 1) {
    uint32_t l = (uint32_t)__builtin_ctz(m);
    put_varint(b, zz_enc(a->addr[l] - a->addr[prev]));
    prev = l;
  }
  return MODE_GENERAL;
}

/* Appends the encoding of a (flags byte first) and makes a the prediction basis. */
static void put_access(struct cc_trace_writer *w, const struct cc_warp_access *a)
{
  bytes *b = &w->raw;
  struct pred_state *s = &w->st;
  struct slot_state *ss = &s->slots[a->insn_slot];
  const struct cc_insn_info *in = &w->insns[a->insn_slot];
  size_t at = b->len;
  unsigned flags = 0, mode;
  put_u8(b, 0); /* flags, filled in below */
  if (a->kind != in->kind || a->space != in->space || a->size_bytes != in->size_bytes) {
    flags |= F_EXT;
    put_u8(b, EXT_OVERRIDE);
    put_u8(b, (uint8_t)((unsigned)a->kind | (unsigned)a->space << 4));
    put_varint(b, a->size_bytes);
  }
  if (a->insn_slot != s->slot) {
    flags |= F_SLOT;
    put_varint(b, a->insn_slot);
  }
  if (a->cta[0] != s->cta[0] || a->cta[1] != s->cta[1] || a->cta[2] != s->cta[2]) {
    flags |= F_CTA;
    for (int i = 0; i < 3; i++)
      put_varint(b, zz_enc((uint64_t)a->cta[i] - s->cta[i]));
  }
  if (a->warp != s->warp) {
    flags |= F_WARP;
    put_varint(b, zz_enc((uint64_t)a->warp - s->warp));
  }
  uint64_t dp = pred_dyn(ss, a->cta, a->warp);
  if (a->dyn != dp) {
    flags |= F_DYN;
    put_varint(b, zz_enc(a->dyn - dp));
  }
  if (a->active != ss->active) {
    flags |= F_ACTIVE;
    put_le(b, a->active, 4);
  }
  mode = put_addresses(b, ss, a);
  if (mode == MODE_AFFINE_STRIDE) {
    uint32_t l0 = (uint32_t)__builtin_ctz(a->active);
    find_stride(a, l0, &ss->stride);
  }
  b->data[at] = (uint8_t)(flags | mode << F_MODE_SHIFT);
  pred_update(s, a);
}

static int w_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_trace_writer *w = ctx;
  if (w->failed)
    return cc_err_set(err, w->failed, "trace %s: the recording already failed: abort it",
                      w->path);
  if (!w->in_kernel)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: access record outside a "
                              "kernel: call begin_kernel first", w->path));
  if (a->insn_slot >= w->n_insns)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: access record for slot %u of "
                              "kernel %s, which has %u instructions", w->path, a->insn_slot,
                              w->kernel_name ? w->kernel_name : "?", w->n_insns));
  if ((unsigned)a->kind > CC_ACCESS_REDUCTION || (unsigned)a->space >= CC_SPACE_COUNT)
    return fail(w, cc_err_set(err, CC_ERR_INTERNAL, "trace %s: access record with kind %d, "
                              "space %d", w->path, (int)a->kind, (int)a->space));
  put_access(w, a);
  w->block_events++;
  w->stats.records++;
  return fail(w, flush_if_full(w, err));
}

static void format_now(char out[32])
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int write_file_header(struct cc_trace_writer *w, const struct cc_trace_writer_opts *o,
                             struct cc_err *err)
{
  char now[32];
  const char *strs[3];
  bytes h = {0};
  uint32_t crc;
  int rc;
  format_now(now);
  strs[0] = o && o->tool_version ? o->tool_version : "coalcheck";
  strs[1] = o && o->created ? o->created : now;
  strs[2] = o && o->command_line ? o->command_line : "";
  for (int i = 0; i < 8; i++)
    put_u8(&h, file_magic[i]);
  put_le(&h, CC_TRACE_VERSION_MAJOR, 2);
  put_le(&h, CC_TRACE_VERSION_MINOR, 2);
  put_le(&h, 0, 4); /* payload length, filled in below */
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(strs[i]);
    put_le(&h, n, 4);
    CC_VEC_RESERVE(&h, n);
    memcpy(h.data + h.len, strs[i], n);
    h.len += n;
  }
  if (h.len - FILE_FIXED_BYTES > HEADER_PAYLOAD_MAX) {
    CC_VEC_FREE(&h);
    return cc_err_set(err, CC_ERR_USAGE, "trace %s: header strings too long (over %u bytes): "
                      "shorten the command line", w->path, HEADER_PAYLOAD_MAX);
  }
  store_le(h.data + 12, h.len - FILE_FIXED_BYTES, 4);
  crc = cc_trace_crc32(0, h.data, h.len);
  put_le(&h, crc, 4);
  rc = write_bytes(w, h.data, h.len, err);
  CC_VEC_FREE(&h);
  return rc;
}

static void writer_free(struct cc_trace_writer *w)
{
  ZSTD_freeCCtx(w->cctx);
  free(w->raw.data);
  free(w->zbuf);
  free(w->st.slots);
  free(w->path);
  free(w);
}

int cc_trace_writer_open(const char *path, const struct cc_trace_writer_opts *opts,
                         struct cc_trace_writer **out, struct cc_access_sink *sink,
                         struct cc_err *err)
{
  struct cc_trace_writer *w;
  size_t bb = opts && opts->block_bytes ? opts->block_bytes : CC_TRACE_BLOCK_BYTES;
  int level = opts && opts->zstd_level ? opts->zstd_level : 3;
  int rc;
  *out = NULL;
  if (bb > CC_TRACE_BLOCK_MAX / 2)
    return cc_err_set(err, CC_ERR_USAGE, "trace %s: block size %zu too large (at most %u)",
                      path, bb, CC_TRACE_BLOCK_MAX / 2);
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
    return cc_err_set(err, CC_ERR_USAGE, "trace %s: zstd level %d out of range (%d to %d)",
                      path, level, ZSTD_minCLevel(), ZSTD_maxCLevel());
  w = cc_xcalloc(1, sizeof *w);
  crc_tables_init(&w->crc);
  w->path = cc_xstrdup(path);
  w->block_bytes = bb;
  w->level = level;
  w->cctx = ZSTD_createCCtx();
  if (!w->cctx)
    CC_BUG("ZSTD_createCCtx failed (out of memory)");
  if ((rc = cc_outfile_open_except(&w->out, path, opts ? opts->inputs : NULL,
                                    opts ? opts->n_inputs : 0, err)) != CC_OK) {
    writer_free(w);
    return rc;
  }
  if ((rc = write_file_header(w, opts, err)) != CC_OK) {
    cc_trace_writer_abort(w);
    return rc;
  }
  *out = w;
  sink->ctx = w;
  sink->begin_kernel = w_begin_kernel;
  sink->access = w_access;
  sink->end_kernel = w_end_kernel;
  return CC_OK;
}

static int write_end(struct cc_trace_writer *w, struct cc_err *err)
{
  uint8_t p[END_PAYLOAD_BYTES];
  store_le(p + 0, w->stats.kernels, 8);
  store_le(p + 8, w->stats.records, 8);
  store_le(p + 16, w->stats.blocks, 8);
  store_le(p + 24, w->stats.raw_bytes, 8);
  store_le(p + 32, w->stats.file_bytes, 8); /* offset of the end marker itself */
  return write_block(w, tag_end, p, sizeof p, sizeof p, 0, err);
}

int cc_trace_writer_close(struct cc_trace_writer *w, struct cc_err *err)
{
  int rc;
  if (w->failed) {
    rc = cc_err_set(err, w->failed, "trace %s not written: an earlier record failed",
                    w->path);
    cc_trace_writer_abort(w);
    return rc;
  }
  if (w->in_kernel) {
    rc = cc_err_set(err, CC_ERR_INTERNAL, "trace %s not written: kernel %s was not ended "
                    "(begin_kernel without end_kernel)", w->path,
                    w->kernel_name ? w->kernel_name : "?");
    cc_trace_writer_abort(w);
    return rc;
  }
  if ((rc = flush_block(w, err)) != CC_OK || (rc = write_end(w, err)) != CC_OK) {
    cc_trace_writer_abort(w);
    return rc;
  }
  rc = cc_outfile_commit(&w->out, err);
  writer_free(w);
  return rc;
}

void cc_trace_writer_abort(struct cc_trace_writer *w)
{
  if (!w)
    return;
  if (w->out.fp)
    cc_outfile_abort(&w->out);
  writer_free(w);
}

void cc_trace_writer_stats(const struct cc_trace_writer *w, struct cc_trace_stats *out)
{
  *out = w->stats;
}

/* ---- reader --------------------------------------------------------------------------- */

/* A cursor over one block's uncompressed bytes; on failure why says what was wrong. */
struct cursor {
  const uint8_t *p;
  size_t len, pos;
  const char *why;
};

static int get_u8(struct cursor *c, uint8_t *v)
{
  if (c->pos >= c->len) {
    c->why = "record runs past the end of the block";
    return 0;
  }
  *v = c->p[c->pos++];
  return 1;
}

static int get_varint(struct cursor *c, uint64_t *v)
{
  uint64_t r = 0;
  uint8_t b = 0x80;
  /* 9 bytes carry 63 bits; a 10th byte may only add bit 63 (values 0 and 1) */
  for (int i = 0; i < 10 && (b & 0x80); i++) {
    if (!get_u8(c, &b))
      return 0;
    if (i == 9 && b > 1) {
      c->why = "varint overflows 64 bits";
      return 0;
    }
    r |= (uint64_t)(b & 0x7f) << (7 * i);
  }
  *v = r;
  return 1;
}

static int get_u32(struct cursor *c, uint32_t *v, const char *what)
{
  uint64_t x;
  if (!get_varint(c, &x))
    return 0;
  if (x > UINT32_MAX) {
    c->why = what;
    return 0;
  }
  *v = (uint32_t)x;
  return 1;
}

/* Decodes a string into a new NUL-terminated copy (*out NULL for the NULL string). */
static int get_str(struct cursor *c, char **out)
{
  uint64_t n;
  *out = NULL;
  if (!get_varint(c, &n))
    return 0;
  if (n == 0)
    return 1;
  if (n - 1 > c->len - c->pos) {
    c->why = "string runs past the end of the block";
    return 0;
  }
  *out = cc_xstrndup((const char *)c->p + c->pos, (size_t)(n - 1));
  c->pos += (size_t)(n - 1);
  return 1;
}

/* Adds a zigzag delta to a 32-bit field, failing when the sum leaves 32 bits. */
static int get_delta32(struct cursor *c, uint32_t *field, const char *what)
{
  uint64_t d, v;
  if (!get_varint(c, &d))
    return 0;
  v = (uint64_t)*field + zz_dec(d);
  if (v > UINT32_MAX) {
    c->why = what;
    return 0;
  }
  *field = (uint32_t)v;
  return 1;
}

struct reader {
  const char *path;
  FILE *fp;
  uint64_t off;           /* bytes consumed so far */
  uint32_t block_no;      /* blocks read so far (data and end) */
  uint8_t *zbuf, *raw;
  size_t zcap, rcap;
  ZSTD_DCtx *dctx;
  const struct cc_access_sink *sink;
  /* current kernel, owned */
  struct cc_kernel_info k;
  struct cc_insn_info *insns;
  int in_kernel;
  struct pred_state st;
  struct cc_warp_access rec;
  struct cc_trace_stats seen;
  struct crc_tables crc;
};

static void free_kernel(struct reader *r)
{
  for (uint32_t i = 0; i < r->k.n_insns; i++) {
    free((char *)r->insns[i].text);
    free((char *)r->insns[i].file);
    free((char *)r->insns[i].inlined_file);
  }
  free(r->insns);
  free((char *)r->k.name);
  free((char *)r->k.mangled);
  memset(&r->k, 0, sizeof r->k);
  r->insns = NULL;
}

static int get_insn(struct cursor *c, struct cc_insn_info *in)
{
  uint8_t kind, space;
  char *text, *file, *ifile;
  if (!get_u32(c, &in->id, "instruction id out of range") || !get_u8(c, &kind) ||
      !get_u8(c, &space) || !get_u32(c, &in->size_bytes, "access size out of range"))
    return 0;
  if (kind > CC_ACCESS_REDUCTION || space >= CC_SPACE_COUNT) {
    c->why = "bad kind or space in the kernel table";
    return 0;
  }
  in->kind = (enum cc_access_kind)kind;
  in->space = (enum cc_space)space;
  if (!get_str(c, &text))
    return 0;
  in->text = text;
  if (!get_str(c, &file))
    return 0;
  in->file = file;
  if (!get_u32(c, &in->line, "line out of range") ||
      !get_u32(c, &in->column, "column out of range") || !get_str(c, &ifile))
    return 0;
  in->inlined_file = ifile;
  return get_u32(c, &in->inlined_line, "line out of range");
}

/* Decodes a kernel table (after F_EXT, EXT_BEGIN) into r->k; the strings are owned. */
static int get_kernel(struct reader *r, struct cursor *c)
{
  char *name, *mangled;
  uint32_t n;
  if (!get_str(c, &name))
    return 0;
  r->k.name = name;
  if (!get_str(c, &mangled))
    return 0;
  r->k.mangled = mangled;
  for (int i = 0; i < 3; i++)
    if (!get_u32(c, &r->k.grid[i], "grid size out of range"))
      return 0;
  for (int i = 0; i < 3; i++)
    if (!get_u32(c, &r->k.block[i], "block size out of range"))
      return 0;
  if (!get_u32(c, &n, "instruction count out of range"))
    return 0;
  if (n > (c->len - c->pos) / 10) { /* an entry takes at least 10 bytes */
    c->why = "instruction count larger than the block";
    return 0;
  }
  if (n > CC_TRACE_INSNS_MAX) {
    c->why = "instruction count over the limit of " CC_TRACE_INSNS_MAX_TEXT;
    return 0;
  }
  r->insns = cc_xcalloc(n ? n : 1, sizeof *r->insns);
  r->k.insns = r->insns;
  for (uint32_t i = 0; i < n; i++) {
    r->k.n_insns = i + 1; /* so that free_kernel frees what is decoded so far */
    if (!get_insn(c, &r->insns[i]))
      return 0;
  }
  r->k.n_insns = n;
  return 1;
}

static int get_addresses(struct cursor *c, struct slot_state *ss, struct cc_warp_access *a,
                         unsigned mode)
{
  uint64_t v, base, stride = ss->stride;
  uint32_t l0;
  if (a->active != 0xffffffffu) /* (a whole warp's lanes are all written below) */
    memset(a->addr, 0, sizeof a->addr);
  if (!a->active) {
    if (mode != MODE_AFFINE_PREDICTED) {
      c->why = "addresses for a record without active lanes";
      return 0;
    }
    return 1;
  }
  l0 = (uint32_t)__builtin_ctz(a->active);
  base = ss->base + ss->base_delta;
  if (mode == MODE_AFFINE_STRIDE) {
    if (!get_varint(c, &v))
      return 0;
    stride = zz_dec(v);
  }
  if (mode != MODE_AFFINE_PREDICTED) {
    if (!get_varint(c, &v))
      return 0;
    base += zz_dec(v);
  }
  a->addr[l0] = base;
  if (mode == MODE_GENERAL) {
    uint32_t prev = l0;
    for (uint32_t m = a->active & (a->active - 1); m; m &= m - 1) {
      uint32_t l = (uint32_t)__builtin_ctz(m);
      if (!get_varint(c, &v))
        return 0;
      a->addr[l] = a->addr[prev] + zz_dec(v);
      prev = l;
    }
    return 1;
  }
  if (a->active == 0xffffffffu) { /* one loop the compiler can vectorize */
    for (uint32_t l = 1; l < CC_WARP_SIZE; l++)
      a->addr[l] = base + (uint64_t)l * stride;
  } else {
    for (uint32_t m = a->active & (a->active - 1); m; m &= m - 1) {
      uint32_t l = (uint32_t)__builtin_ctz(m);
      a->addr[l] = base + (uint64_t)(l - l0) * stride;
    }
  }
  ss->stride = stride;
  return 1;
}

/* Decodes one access record whose flags byte was already read into r->rec. */
static int get_access(struct reader *r, struct cursor *c, uint8_t flags)
{
  struct cc_warp_access *a = &r->rec;
  struct pred_state *s = &r->st;
  uint8_t ks = 0;
  uint32_t size = 0;
  uint64_t v;
  int override = 0;
  if (flags & F_EXT) { /* EXT_OVERRIDE, already checked by the caller */
    if (!get_u8(c, &ks) || !get_u32(c, &size, "access size out of range"))
      return 0;
    if ((ks & 15) > CC_ACCESS_REDUCTION || (ks >> 4) >= CC_SPACE_COUNT) {
      c->why = "bad kind or space";
      return 0;
    }
    override = 1;
  }
  a->insn_slot = s->slot;
  if ((flags & F_SLOT) && !get_u32(c, &a->insn_slot, "instruction slot out of range"))
    return 0;
  if (a->insn_slot >= r->k.n_insns) {
    c->why = "instruction slot beyond the kernel table";
    return 0;
  }
  memcpy(a->cta, s->cta, sizeof a->cta);
  if (flags & F_CTA)
    for (int i = 0; i < 3; i++)
      if (!get_delta32(c, &a->cta[i], "cta id out of range"))
        return 0;
  a->warp = s->warp;
  if ((flags & F_WARP) && !get_delta32(c, &a->warp, "warp index out of range"))
    return 0;
  struct slot_state *ss = &s->slots[a->insn_slot];
  a->dyn = pred_dyn(ss, a->cta, a->warp);
  if (flags & F_DYN) {
    if (!get_varint(c, &v))
      return 0;
    a->dyn += zz_dec(v);
  }
  a->active = ss->active;
  if (flags & F_ACTIVE) {
    if (c->len - c->pos < 4) {
      c->why = "record runs past the end of the block";
      return 0;
    }
    a->active = (uint32_t)load_le(c->p + c->pos, 4);
    c->pos += 4;
  }
  const struct cc_insn_info *in = &r->insns[a->insn_slot];
  a->kind = override ? (enum cc_access_kind)(ks & 15) : in->kind;
  a->space = override ? (enum cc_space)(ks >> 4) : in->space;
  a->size_bytes = override ? size : in->size_bytes;
  if (!get_addresses(c, ss, a, (flags >> F_MODE_SHIFT) & 3))
    return 0;
  pred_update(s, a);
  return 1;
}

/* Decodes and delivers one event. Returns CC_OK, a sink's status, or -1 with c->why set
 * for a malformed event. */
static int replay_event(struct reader *r, struct cursor *c, struct cc_err *err)
{
  uint8_t flags, ext = 0;
  if (!get_u8(c, &flags))
    return -1;
  if ((flags & F_EXT) && !get_u8(c, &ext))
    return -1;
  if (flags & F_EXT) {
    if (ext == EXT_BEGIN || ext == EXT_END) {
      if (flags != F_EXT) {
        c->why = "kernel event with access flags";
        return -1;
      }
      if (ext == EXT_END) {
        if (!r->in_kernel) {
          c->why = "end of kernel without a kernel";
          return -1;
        }
        r->in_kernel = 0;
        return r->sink->end_kernel(r->sink->ctx, err);
      }
      if (r->in_kernel) {
        c->why = "kernel begins inside another kernel";
        return -1;
      }
      /* the writer opens a block for each table: so the number of kernels is bounded by
       * the file's size, not by what one compressed block can expand to */
      if (c->pos != 2) {
        c->why = "kernel table not at the start of its block";
        return -1;
      }
      free_kernel(r);
      if (!get_kernel(r, c))
        return -1;
      r->in_kernel = 1;
      r->seen.kernels++;
      pred_resize(&r->st, r->k.n_insns);
      return r->sink->begin_kernel(r->sink->ctx, &r->k, err);
    }
    if (ext != EXT_OVERRIDE) {
      c->why = "unknown event type";
      return -1;
    }
  }
  if (!r->in_kernel) {
    c->why = "access record outside a kernel";
    return -1;
  }
  if (!get_access(r, c, flags))
    return -1;
  r->seen.records++;
  return r->sink->access(r->sink->ctx, &r->rec, err);
}

static int corrupt(struct reader *r, uint64_t boff, struct cc_err *err, const char *why)
{
  return cc_err_set(err, CC_ERR_INPUT, "%s: block %u at offset %llu is corrupt (%s)", r->path,
                    r->block_no, (unsigned long long)boff, why);
}

/* Reads n bytes; returns CC_OK, CC_ERR_INPUT for a read error, or 1 (with *got) at EOF. */
static int read_exact(struct reader *r, void *buf, size_t n, size_t *got, struct cc_err *err)
{
  *got = n ? fread(buf, 1, n, r->fp) : 0;
  r->off += *got;
  if (*got == n)
    return CC_OK;
  if (ferror(r->fp))
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s at offset %llu: %s", r->path,
                      (unsigned long long)r->off, strerror(errno));
  return 1;
}

static int truncated(struct reader *r, uint64_t boff, struct cc_err *err)
{
  return cc_err_set(err, CC_ERR_INPUT, "%s: truncated after block %u (offset %llu, file ends "
                    "at %llu inside block %u): the recording was cut off", r->path,
                    r->block_no - 1, (unsigned long long)boff, (unsigned long long)r->off,
                    r->block_no);
}

static char *dup_n(const uint8_t *p, size_t n)
{
  return cc_xstrndup((const char *)p, n);
}

/* Reads and checks the file header; fills info's strings when info is not NULL. */
static int read_file_header(struct reader *r, struct cc_trace_info *info, struct cc_err *err)
{
  uint8_t fixed[FILE_FIXED_BYTES];
  uint8_t *p;
  size_t got;
  uint32_t major, minor, len, crc;
  int rc = read_exact(r, fixed, sizeof fixed, &got, err);
  if (rc < 0 || rc > 1)
    return rc;
  if (got == 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s: not a coalcheck trace: the file is empty "
                      "(offset 0)", r->path);
  if (memcmp(fixed, file_magic, got < 8 ? got : 8) != 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s: not a coalcheck trace: bad magic at offset 0 "
                      "(expected a file written by coalcheck record)", r->path);
  if (rc == 1)
    return cc_err_set(err, CC_ERR_INPUT, "%s: truncated at offset %llu inside the file header: "
                      "the recording was cut off", r->path, (unsigned long long)r->off);
  major = (uint32_t)load_le(fixed + 8, 2);
  minor = (uint32_t)load_le(fixed + 10, 2);
  if (major != CC_TRACE_VERSION_MAJOR)
    return cc_err_set(err, CC_ERR_INPUT, "%s: unsupported trace format version %u.%u at offset "
                      "8 (this coalcheck reads %u.x): re-record the trace with this coalcheck",
                      r->path, major, minor, CC_TRACE_VERSION_MAJOR);
  len = (uint32_t)load_le(fixed + 12, 4);
  if (len > HEADER_PAYLOAD_MAX)
    return cc_err_set(err, CC_ERR_INPUT, "%s: file header at offset 0 is corrupt (header "
                      "length %u out of range)", r->path, len);
  p = cc_xmalloc((size_t)len + 4);
  rc = read_exact(r, p, (size_t)len + 4, &got, err);
  if (rc == 1)
    rc = cc_err_set(err, CC_ERR_INPUT, "%s: truncated at offset %llu inside the file header: "
                    "the recording was cut off", r->path, (unsigned long long)r->off);
  if (rc != CC_OK) {
    free(p);
    return rc;
  }
  crc = cc_trace_crc32(cc_trace_crc32(0, fixed, sizeof fixed), p, len);
  if (crc != (uint32_t)load_le(p + len, 4)) {
    free(p);
    return cc_err_set(err, CC_ERR_INPUT, "%s: file header at offset 0 is corrupt (checksum "
                      "mismatch)", r->path);
  }
  /* three strings, each u32 length + bytes; later minor versions may append fields */
  size_t pos = 0;
  char *strs[3] = {NULL, NULL, NULL};
  for (int i = 0; i < 3; i++) {
    uint32_t n;
    if (len - pos < 4 || (n = (uint32_t)load_le(p + pos, 4)) > len - pos - 4) {
      free(strs[0]);
      free(strs[1]);
      free(p);
      return cc_err_set(err, CC_ERR_INPUT, "%s: file header at offset 0 is corrupt (string "
                        "%d at offset %zu runs past the header)", r->path, i + 1,
                        FILE_FIXED_BYTES + pos);
    }
    strs[i] = dup_n(p + pos + 4, n);
    pos += 4 + (size_t)n;
  }
  free(p);
  if (info) {
    info->version_major = major;
    info->version_minor = minor;
    info->tool_version = strs[0];
    info->created = strs[1];
    info->command_line = strs[2];
  } else {
    for (int i = 0; i < 3; i++)
      free(strs[i]);
  }
  return CC_OK;
}

static void grow(uint8_t **buf, size_t *cap, size_t need)
{
  if (need > *cap) {
    *buf = cc_xrealloc(*buf, need);
    *cap = need;
  }
}

/* Checks the end marker's totals against what was read, and that nothing follows it. */
static int read_end(struct reader *r, uint64_t boff, struct cc_trace_info *info,
                    struct cc_err *err)
{
  const uint8_t *p = r->zbuf;
  struct cc_trace_stats t = {
      .kernels = load_le(p, 8), .records = load_le(p + 8, 8), .blocks = load_le(p + 16, 8),
      .raw_bytes = load_le(p + 24, 8), .file_bytes = r->off};
  uint8_t extra;
  size_t got;
  int rc;
  if (t.kernels != r->seen.kernels || t.records != r->seen.records ||
      t.blocks != r->seen.blocks || t.raw_bytes != r->seen.raw_bytes ||
      load_le(p + 32, 8) != boff)
    return cc_err_set(err, CC_ERR_INPUT, "%s: end marker at offset %llu disagrees with the "
                      "file (%llu records recorded, %llu read): blocks were lost or altered",
                      r->path, (unsigned long long)boff, (unsigned long long)t.records,
                      (unsigned long long)r->seen.records);
  if (r->in_kernel)
    return corrupt(r, boff, err, "end marker inside a kernel");
  rc = read_exact(r, &extra, 1, &got, err);
  if (rc == CC_OK)
    return cc_err_set(err, CC_ERR_INPUT, "%s: unexpected data at offset %llu after the end "
                      "marker: the file was altered or appended to", r->path,
                      (unsigned long long)(r->off - 1));
  if (rc != 1)
    return rc;
  if (info)
    info->stats = t;
  return CC_OK;
}

/* Decompresses the data block in r->zbuf and delivers its events. */
static int replay_block(struct reader *r, uint64_t boff, size_t raw_len, size_t stored,
                        uint32_t events, struct cc_err *err)
{
  struct cursor c;
  size_t n;
  uint32_t count = 0;
  grow(&r->raw, &r->rcap, raw_len);
  n = ZSTD_decompressDCtx(r->dctx, r->raw, raw_len, r->zbuf, stored);
  if (ZSTD_isError(n))
    return corrupt(r, boff, err, ZSTD_getErrorName(n));
  if (n != raw_len)
    return corrupt(r, boff, err, "decompressed size differs from the header");
  c = (struct cursor){.p = r->raw, .len = raw_len};
  pred_reset(&r->st);
  r->seen.blocks++;
  r->seen.raw_bytes += raw_len;
  while (c.pos < c.len) {
    size_t at = c.pos;
    int rc = replay_event(r, &c, err);
    if (rc < 0) {
      char why[160];
      snprintf(why, sizeof why, "bad record at byte %zu of its data: %s", at, c.why);
      return corrupt(r, boff, err, why);
    }
    if (rc != CC_OK) /* a consumer's error (e.g. the analysis's memory limit): where */
      return cc_err_prefix(err, "%s: block %u at offset %llu", r->path, r->block_no,
                           (unsigned long long)boff);
    count++;
  }
  if (count != events)
    return corrupt(r, boff, err, "event count differs from the header");
  return CC_OK;
}

/* Reads the next block; *done is set after the end marker. */
static int replay_next(struct reader *r, struct cc_trace_info *info, int *done,
                       struct cc_err *err)
{
  uint8_t h[BLOCK_HEADER_BYTES];
  uint64_t boff = r->off;
  size_t got, raw_len, stored;
  uint32_t events;
  int is_end, rc;
  r->block_no++;
  rc = read_exact(r, h, sizeof h, &got, err);
  if (rc == 1 && got == 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s: truncated after block %u at offset %llu: the "
                      "recording was cut off (no end marker)", r->path, r->block_no - 1,
                      (unsigned long long)boff);
  if (rc == 1)
    return truncated(r, boff, err);
  if (rc != CC_OK)
    return rc;
  is_end = memcmp(h, tag_end, 4) == 0;
  if (!is_end && memcmp(h, tag_data, 4) != 0)
    return corrupt(r, boff, err, "bad block tag");
  raw_len = (size_t)load_le(h + 4, 4);
  stored = (size_t)load_le(h + 8, 4);
  events = (uint32_t)load_le(h + 12, 4);
  if (is_end ? raw_len != END_PAYLOAD_BYTES || stored != END_PAYLOAD_BYTES
             : raw_len == 0 || raw_len > CC_TRACE_BLOCK_MAX || stored == 0 ||
                   stored > ZSTD_compressBound(raw_len))
    return corrupt(r, boff, err, "block size out of range");
  grow(&r->zbuf, &r->zcap, stored);
  rc = read_exact(r, r->zbuf, stored, &got, err);
  if (rc == 1)
    return truncated(r, boff, err);
  if (rc != CC_OK)
    return rc;
  if (crc32_fast(&r->crc, crc32_fast(&r->crc, 0, h, 16), r->zbuf, stored) !=
      (uint32_t)load_le(h + 16, 4))
    return corrupt(r, boff, err, "checksum mismatch");
  if (is_end) {
    *done = 1;
    return read_end(r, boff, info, err);
  }
  return replay_block(r, boff, raw_len, stored, events, err);
}

int cc_trace_replay(const char *path, const struct cc_access_sink *sink,
                    struct cc_trace_info *info, struct cc_err *err)
{
  struct reader r = {.path = path, .sink = sink};
  int rc, done = 0;
  if (info)
    memset(info, 0, sizeof *info);
  r.fp = fopen(path, "rb");
  crc_tables_init(&r.crc);
  if (!r.fp)
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
  r.dctx = ZSTD_createDCtx();
  if (!r.dctx)
    CC_BUG("ZSTD_createDCtx failed (out of memory)");
  rc = read_file_header(&r, info, err);
  while (rc == CC_OK && !done)
    rc = replay_next(&r, info, &done, err);
  if (rc != CC_OK && info)
    cc_trace_info_release(info);
  free_kernel(&r);
  free(r.st.slots);
  free(r.zbuf);
  free(r.raw);
  ZSTD_freeDCtx(r.dctx);
  fclose(r.fp);
  return rc;
}

void cc_trace_info_release(struct cc_trace_info *info)
{
  free(info->tool_version);
  free(info->created);
  free(info->command_line);
  memset(info, 0, sizeof *info);
}

/* ---- fan-out -------------------------------------------------------------------------- */

static int tee_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  const struct cc_access_tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].begin_kernel(t->sinks[i].ctx, k, err);
    if (rc)
      return rc;
  }
  return CC_OK;
}

static int tee_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  const struct cc_access_tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].access(t->sinks[i].ctx, a, err);
    if (rc)
      return rc;
  }
  return CC_OK;
}

static int tee_end(void *ctx, struct cc_err *err)
{
  const struct cc_access_tee *t = ctx;
  for (size_t i = 0; i < t->n; i++) {
    int rc = t->sinks[i].end_kernel(t->sinks[i].ctx, err);
    if (rc)
      return rc;
  }
  return CC_OK;
}

struct cc_access_sink cc_access_tee(const struct cc_access_tee *tee)
{
  struct cc_access_sink s = {(void *)tee, tee_begin, tee_access, tee_end};
  return s;
}
