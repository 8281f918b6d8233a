/* Unit tests of src/access/trace.c: round trip of hand-built records of every shape, the
 * exact encoding of a small stream (derived by hand from docs/trace-format.md), corrupt,
 * truncated and foreign files, the writer's failure paths, and the fan-out sink. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "access/trace.h"
#include "util/fileio.h"
#include "util/mem.h"

/* ---- a sink that keeps deep copies of everything it is given ------------------------- */

struct kcopy {
  struct cc_kernel_info k;
  struct cc_insn_info *insns;
};

struct capture {
  CC_VEC(struct kcopy) kernels;
  CC_VEC(struct cc_warp_access) recs;
  CC_VEC(uint32_t) rec_kernel; /* kernel index of each record */
  int open;
  int ends;
  size_t fail_at;              /* fail the access callback at this record (1-based), 0: never */
};

static char *dup_or_null(const char *s)
{
  return s ? cc_xstrdup(s) : NULL;
}

static int cap_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct capture *c = ctx;
  struct kcopy kc = {.k = *k};
  (void)err;
  kc.k.name = dup_or_null(k->name);
  kc.k.mangled = dup_or_null(k->mangled);
  kc.insns = cc_xcalloc(k->n_insns + 1, sizeof *kc.insns);
  for (uint32_t i = 0; i < k->n_insns; i++) {
    kc.insns[i] = k->insns[i];
    kc.insns[i].text = dup_or_null(k->insns[i].text);
    kc.insns[i].file = dup_or_null(k->insns[i].file);
    kc.insns[i].inlined_file = dup_or_null(k->insns[i].inlined_file);
  }
  kc.k.insns = kc.insns;
  CC_VEC_PUSH(&c->kernels, kc);
  c->open = 1;
  return 0;
}

static int cap_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct capture *c = ctx;
  assert_true(c->open);
  CC_VEC_PUSH(&c->recs, *a);
  CC_VEC_PUSH(&c->rec_kernel, (uint32_t)(c->kernels.len - 1));
  if (c->fail_at && c->recs.len == c->fail_at)
    return cc_err_set(err, CC_ERR_LIMIT, "capture: stop at record %zu", c->recs.len);
  return 0;
}

static int cap_end(void *ctx, struct cc_err *err)
{
  struct capture *c = ctx;
  (void)err;
  assert_true(c->open);
  c->open = 0;
  c->ends++;
  return 0;
}

static struct cc_access_sink cap_sink(struct capture *c)
{
  struct cc_access_sink s = {c, cap_begin, cap_access, cap_end};
  return s;
}

static void cap_free(struct capture *c)
{
  for (size_t i = 0; i < c->kernels.len; i++) {
    struct kcopy *kc = &c->kernels.data[i];
    for (uint32_t j = 0; j < kc->k.n_insns; j++) {
      free((char *)kc->insns[j].text);
      free((char *)kc->insns[j].file);
      free((char *)kc->insns[j].inlined_file);
    }
    free(kc->insns);
    free((char *)kc->k.name);
    free((char *)kc->k.mangled);
  }
  CC_VEC_FREE(&c->kernels);
  CC_VEC_FREE(&c->recs);
  CC_VEC_FREE(&c->rec_kernel);
}

/* ---- the hand-built stream ----------------------------------------------------------- */

static const struct cc_insn_info insns_a[] = {
    {3, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.global.f32 %f1, [%rd4];", "transpose.cu", 12,
     5, NULL, 0},
    {9, CC_ACCESS_STORE, CC_SPACE_GLOBAL, 4, "st.global.f32 [%rd8], %f1;", "transpose.cu", 13,
     3, "main.cu", 40},
    {14, CC_ACCESS_LOAD, CC_SPACE_SHARED, 16, "ld.shared.v2.f64 {%fd1, %fd2}, [%r9];", NULL, 0,
     0, NULL, 0},
    {20, CC_ACCESS_STORE, CC_SPACE_LOCAL, 8, "st.local.u64 [%rd2], %rd3;", "", 1, 1, NULL, 0},
    {31, CC_ACCESS_ATOMIC, CC_SPACE_GLOBAL, 4, "atom.global.add.u32 %r1, [%rd5], 1;",
     "transpose.cu", 20, 7, NULL, 0},
    {40, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld.f32 %f2, [%rd9];", "transpose.cu", 22, 9,
     NULL, 0}, /* generic: resolved per access */
};
static const struct cc_insn_info insns_b[] = {
    {0, CC_ACCESS_REDUCTION, CC_SPACE_SHARED, 8, "red.shared.add.u64 [%r1], %rd1;",
     "reduce.cu", 7, 1, NULL, 0},
    {1, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 1, "ld.global.u8 %rs1, [%rd1];", "reduce.cu", 9, 2,
     NULL, 0},
};
static const struct cc_kernel_info kernels[] = {
    {"transpose", "_Z9transposePfPKfii", {4, 2, 1}, {32, 8, 1}, 6, insns_a, 0, NULL},
    {"reduce", NULL, {UINT32_MAX, 65535, 64}, {1024, 1, 1}, 2, insns_b, 0, NULL},
    {NULL, NULL, {1, 1, 1}, {1, 1, 1}, 0, NULL, 0, NULL}, /* no name, no instructions, no records */
};

/* Record template: slot, cta, warp, dyn, kind/space/size from the table unless *_set. */
static struct cc_warp_access rec(const struct cc_kernel_info *k, uint32_t slot, uint32_t cx,
                                 uint32_t cy, uint32_t cz, uint32_t warp, uint64_t dyn,
                                 uint32_t active)
{
  struct cc_warp_access a;
  memset(&a, 0, sizeof a);
  a.insn_slot = slot;
  a.cta[0] = cx;
  a.cta[1] = cy;
  a.cta[2] = cz;
  a.warp = warp;
  a.dyn = dyn;
  a.kind = k->insns[slot].kind;
  a.space = k->insns[slot].space;
  a.size_bytes = k->insns[slot].size_bytes;
  a.active = active;
  return a;
}

static void affine(struct cc_warp_access *a, uint64_t base, uint64_t stride)
{
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++)
    a->addr[l] = (a->active >> l & 1) ? base + l * stride : 0;
}

/* Builds the records of kernel 0 (n_a of them) and kernel 1 (the rest) into out[]. */
static size_t build_records(struct cc_warp_access *out, size_t *n_a)
{
  const struct cc_kernel_info *ka = &kernels[0], *kb = &kernels[1];
  size_t n = 0;
  struct cc_warp_access a;
  /* all lanes, affine stride 4; then the next warps, predicted base */
  for (uint32_t w = 0; w < 3; w++) {
    a = rec(ka, 0, 0, 0, 0, w, 0, 0xffffffffu);
    affine(&a, 0x7f0000001000ull + 128 * w, 4);
    out[n++] = a;
    a = rec(ka, 1, 0, 0, 0, w, 0, 0xffffffffu);
    affine(&a, 0x7f0000100000ull + 4096 * w, 128); /* transposed: stride one row */
    out[n++] = a;
  }
  /* divergent masks */
  a = rec(ka, 0, 1, 0, 0, 0, 0, 0x0000ffffu);
  affine(&a, 0x7f0000002000ull, 4);
  out[n++] = a;
  a = rec(ka, 0, 1, 0, 0, 1, 0, 0xaaaaaaaau);
  affine(&a, 0x7f0000002080ull, 8);
  out[n++] = a;
  /* non-affine: lane l reads element l*l (a quadratic gather) */
  a = rec(ka, 0, 1, 0, 0, 2, 0, 0xffffffffu);
  for (uint32_t l = 0; l < 32; l++)
    a.addr[l] = 0x7f0000003000ull + 4ull * l * l;
  out[n++] = a;
  /* non-affine with a divergent mask and garbage in inactive lanes (ignored) */
  a = rec(ka, 0, 1, 0, 0, 3, 0, 0x80000031u);
  a.addr[0] = 0x9000;
  a.addr[4] = 0x100;
  a.addr[5] = 0xffffffffffff0000ull;
  a.addr[31] = 0x9004;
  a.addr[1] = 0xdeadbeef; /* inactive */
  out[n++] = a;
  /* one lane; no lanes */
  a = rec(ka, 0, 1, 0, 0, 4, 0, 1u << 17);
  a.addr[17] = 0x7f00000040a4ull;
  out[n++] = a;
  a = rec(ka, 0, 1, 0, 0, 5, 0, 0);
  out[n++] = a;
  /* 16-byte shared accesses (stride 16, then 32: a 2-way conflict), 8-byte local */
  a = rec(ka, 2, 1, 0, 0, 5, 0, 0xffffffffu);
  affine(&a, 0, 16);
  out[n++] = a;
  a = rec(ka, 2, 1, 0, 0, 5, 1, 0xffffffffu);
  affine(&a, 0x200, 32);
  out[n++] = a;
  a = rec(ka, 3, 1, 0, 0, 5, 0, 0xffffffffu);
  affine(&a, 0xfff8, 8);
  out[n++] = a;
  /* a loop: the same warp runs the atomic 3 times (dyn 0,1,2), then dyn jumps to 1000 */
  for (uint64_t d = 0; d < 3; d++) {
    a = rec(ka, 4, 3, 1, 0, 7, d, 0xffffffffu);
    affine(&a, 0x7f0000005000ull, 0); /* all lanes on one word */
    out[n++] = a;
  }
  a = rec(ka, 4, 3, 1, 0, 7, 1000, 0xffffffffu);
  affine(&a, 0x7f0000005000ull, 0);
  out[n++] = a;
  /* descending addresses (negative stride) and addresses that wrap past 2^64 */
  a = rec(ka, 0, 3, 1, 0, 6, 0, 0xffffffffu);
  affine(&a, 0x7f0000008000ull, (uint64_t)-4);
  out[n++] = a;
  a = rec(ka, 0, 3, 1, 0, 7, 0, 0xffffffffu);
  affine(&a, 0xfffffffffffffff0ull, 4);
  out[n++] = a;
  /* generic load resolved to shared, 8 bytes: kind/space/size differ from the table */
  a = rec(ka, 5, 3, 1, 0, 7, 0, 0x0f0f0f0fu);
  a.space = CC_SPACE_SHARED;
  a.size_bytes = 8;
  affine(&a, 0x40, 8);
  out[n++] = a;
  a = rec(ka, 5, 3, 1, 0, 7, 1, 0x0f0f0f0fu);
  a.kind = CC_ACCESS_STORE;
  affine(&a, 0x7f0000009000ull, 4);
  out[n++] = a;
  *n_a = n;
  /* kernel 1: extreme CTA ids, warps going down, 1-byte loads, shared reductions */
  a = rec(kb, 1, UINT32_MAX - 1, 65534, 63, 31, 0, 0xffffffffu);
  affine(&a, 0x7f000000a000ull, 1);
  out[n++] = a;
  a = rec(kb, 0, 0, 0, 0, 0, UINT64_MAX, 0xffffffffu);
  affine(&a, 0, 8);
  out[n++] = a;
  a = rec(kb, 1, UINT32_MAX - 1, 65534, 63, 2, 0, 0x00000003u);
  a.addr[0] = 0;
  a.addr[1] = UINT64_MAX; /* stride -1 from 0 */
  out[n++] = a;
  return n;
}

/* Writes kernels 0, 1, 2 with the records of build_records into path. */
static void write_stream(const char *path, const struct cc_trace_writer_opts *o)
{
  struct cc_warp_access recs[64];
  size_t n_a, n = build_records(recs, &n_a);
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  assert_int_equal(cc_trace_writer_open(path, o, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[0], &err), CC_OK);
  for (size_t i = 0; i < n_a; i++)
    assert_int_equal(s.access(s.ctx, &recs[i], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[1], &err), CC_OK);
  for (size_t i = n_a; i < n; i++)
    assert_int_equal(s.access(s.ctx, &recs[i], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[2], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_OK);
}

static void assert_str_eq_or_null(const char *a, const char *b)
{
  if (!a || !b)
    assert_ptr_equal(a, b);
  else
    assert_string_equal(a, b);
}

static void check_kernel(const struct cc_kernel_info *got, const struct cc_kernel_info *want)
{
  assert_str_eq_or_null(got->name, want->name);
  assert_str_eq_or_null(got->mangled, want->mangled);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(got->grid[i], want->grid[i]);
    assert_int_equal(got->block[i], want->block[i]);
  }
  assert_int_equal(got->n_insns, want->n_insns);
  for (uint32_t i = 0; i < want->n_insns; i++) {
    const struct cc_insn_info *g = &got->insns[i], *e = &want->insns[i];
    assert_int_equal(g->id, e->id);
    assert_int_equal(g->kind, e->kind);
    assert_int_equal(g->space, e->space);
    assert_int_equal(g->size_bytes, e->size_bytes);
    assert_str_eq_or_null(g->text, e->text);
    assert_str_eq_or_null(g->file, e->file);
    assert_int_equal(g->line, e->line);
    assert_int_equal(g->column, e->column);
    assert_str_eq_or_null(g->inlined_file, e->inlined_file);
    assert_int_equal(g->inlined_line, e->inlined_line);
  }
}

static void check_record(const struct cc_warp_access *g, const struct cc_warp_access *e)
{
  assert_int_equal(g->insn_slot, e->insn_slot);
  for (int i = 0; i < 3; i++)
    assert_int_equal(g->cta[i], e->cta[i]);
  assert_int_equal(g->warp, e->warp);
  assert_int_equal(g->dyn, e->dyn);
  assert_int_equal(g->kind, e->kind);
  assert_int_equal(g->space, e->space);
  assert_int_equal(g->size_bytes, e->size_bytes);
  assert_int_equal(g->active, e->active);
  for (uint32_t l = 0; l < CC_WARP_SIZE; l++) /* inactive lanes come back as 0 */
    assert_int_equal(g->addr[l], (e->active >> l & 1) ? e->addr[l] : 0);
}

static void roundtrip(size_t block_bytes, int level)
{
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer_opts o = {"coalcheck 0.1.0", "coalcheck record -o t.cctrace k.ptx",
                                   "2026-11-22T00:00:00Z", level, block_bytes, NULL, 0};
  struct cc_warp_access want[64];
  size_t n_a, n = build_records(want, &n_a);
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_trace_info info;
  struct cc_err err = {0};
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);
  write_stream(path, &o);
  assert_int_equal(cc_trace_replay(path, &s, &info, &err), CC_OK);
  assert_int_equal(c.kernels.len, 3);
  assert_int_equal(c.ends, 3);
  for (size_t i = 0; i < 3; i++)
    check_kernel(&c.kernels.data[i].k, &kernels[i]);
  assert_int_equal(c.recs.len, n);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(c.rec_kernel.data[i], i < n_a ? 0 : 1);
    check_record(&c.recs.data[i], &want[i]);
  }
  assert_int_equal(info.version_major, 1);
  assert_int_equal(info.version_minor, 0);
  assert_string_equal(info.tool_version, "coalcheck 0.1.0");
  assert_string_equal(info.created, "2026-11-22T00:00:00Z");
  assert_string_equal(info.command_line, "coalcheck record -o t.cctrace k.ptx");
  assert_int_equal(info.stats.kernels, 3);
  assert_int_equal(info.stats.records, n);
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(info.stats.file_bytes, (uint64_t)sb.st_size);
  if (block_bytes == 1) /* every event closes its block: 3 kernels x 2 + records */
    assert_int_equal(info.stats.blocks, 6 + n);
  cc_trace_info_release(&info);
  cap_free(&c);
  remove(path);
  assert_int_equal(rmdir(dir), 0);
}

static void test_roundtrip_default(void **state)
{
  (void)state;
  roundtrip(0, 0);
}

/* One event per block: every record is decoded from restarted prediction state. */
static void test_roundtrip_one_event_per_block(void **state)
{
  (void)state;
  roundtrip(1, 0);
}

static void test_roundtrip_small_blocks_level19(void **state)
{
  (void)state;
  roundtrip(64, 19);
}

/* ---- the exact encoding of a small stream -------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *len)
{
  char *buf;
  struct cc_err err = {0};
  assert_int_equal(cc_file_read(path, &buf, len, &err), CC_OK);
  return (uint8_t *)buf;
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(p, 1, n, fp), n);
  assert_int_equal(fclose(fp), 0);
}

static uint32_t le32(const uint8_t *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offsets of the blocks of a trace file image (docs/trace-format.md: a 16-byte fixed
 * header, its payload, a CRC; then blocks of a 20-byte header and their stored bytes). */
static size_t block_offsets(const uint8_t *p, size_t n, size_t *offs, size_t max)
{
  size_t at = 16 + le32(p + 12) + 4, k = 0;
  while (at + 20 <= n && k < max) {
    offs[k++] = at;
    at += 20 + le32(p + at + 8);
  }
  assert_int_equal(at, n);
  return k;
}

static void test_exact_encoding(void **state)
{
  /* Hand derivation (docs/trace-format.md, "Events"):
   * kernel event: 80 02 | name "k": 02 6b | mangled NULL: 00 | grid 01 01 01 |
   *   block 40 01 01 | n_insns 01 | insn: id 07, kind 00, space 00, size 04,
   *   text "ld": 03 6c 64, file NULL 00, line 00, column 00, inlined NULL 00, line 00
   *   = 24 bytes.
   * r1 warp 0, addr 0x1000+4l: predicted stride 0 fails, the stride 4 is new: mode 2,
   *   flags 0x40; zz(4) = 08; base - predicted (0) = 0x1000, zz = 0x2000 = 80 40.
   * r2 warp 1, addr 0x1080+4l: F_WARP, zz(+1) = 02; predicted base 0x1000 + 0x1000 =
   *   0x2000, delta -0xf80, zz = 0x1eff = ff 3d; stride 4 kept: mode 1 -> flags 0x24.
   * r3 warp 2, addr 0x1100+4l: F_WARP 02; predicted 0x1080 + 0x80 = 0x1100: flags 0x04.
   * r4 warp 2, dyn 1, addr 0x1180+4l: same warp so dyn predicted 0+1, base predicted
   *   0x1100 + 0x80: flags 0x00.
   * r5 warp 2, dyn 2, active 0x7, addr 0x5000 0x5004 0x6000: F_ACTIVE 07 00 00 00, not
   *   affine: mode 3, flags 0x70; base - (0x1180 + 0x80) = 0x3e00, zz 0x7c00 = 80 f8 01;
   *   lane 1: zz(4) = 08; lane 2: 0x6000 - 0x5004 = 0xffc, zz 0x1ff8 = f8 3f.
   * end kernel: 80 03. Total 24 + 4 + 4 + 2 + 1 + 11 + 2 = 48 bytes, 7 events. */
  static const uint8_t want[] = {
      0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x40, 0x01, 0x01, 0x01,
      0x07, 0x00, 0x00, 0x04, 0x03, 0x6c, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x40, 0x08, 0x80, 0x40,
      0x24, 0x02, 0xff, 0x3d,
      0x04, 0x02,
      0x00,
      0x70, 0x07, 0x00, 0x00, 0x00, 0x80, 0xf8, 0x01, 0x08, 0xf8, 0x3f,
      0x80, 0x03};
  static const struct cc_insn_info in = {7, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, "ld",
                                         NULL, 0, 0, NULL, 0};
  static const struct cc_kernel_info k = {"k", NULL, {1, 1, 1}, {64, 1, 1}, 1, &in, 0, NULL};
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer_opts o = {"t", "", "d", 0, 0, NULL, 0};
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct cc_warp_access a;
  uint8_t *img, raw[sizeof want];
  size_t n, offs[4];
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);
  assert_int_equal(cc_trace_writer_open(path, &o, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_OK);
  for (uint32_t i = 0; i < 4; i++) {
    a = rec(&k, 0, 0, 0, 0, i < 2 ? i : 2, i == 3, 0xffffffffu);
    affine(&a, 0x1000 + 0x80 * i, 4);
    assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  }
  a = rec(&k, 0, 0, 0, 0, 2, 2, 0x7);
  a.addr[0] = 0x5000;
  a.addr[1] = 0x5004;
  a.addr[2] = 0x6000;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_OK);

  img = slurp(path, &n);
  /* header: magic, version 1.0, payload = 3 strings "t", "d", "" = 4+1 + 4+1 + 4+0 = 14 */
  static const uint8_t head[] = {0x89, 'C', 'C', 'T', '\r', '\n', 0x1a, '\n', 1, 0, 0, 0,
                                 14,   0,   0,   0,   1,    0,    0,    0,    't'};
  assert_memory_equal(img, head, sizeof head);
  assert_int_equal(le32(img + 16 + 14), cc_trace_crc32(0, img, 16 + 14));
  assert_int_equal(block_offsets(img, n, offs, 4), 2); /* one data block, the end marker */
  assert_memory_equal(img + offs[0], "CCBD", 4);
  assert_int_equal(le32(img + offs[0] + 4), sizeof want);
  assert_int_equal(le32(img + offs[0] + 12), 7);
  assert_int_equal(ZSTD_decompress(raw, sizeof raw, img + offs[0] + 20, le32(img + offs[0] + 8)),
                   sizeof want);
  assert_memory_equal(raw, want, sizeof want);
  /* the block CRC covers the header's first 16 bytes and the stored bytes */
  assert_int_equal(le32(img + offs[0] + 16),
                   cc_trace_crc32(cc_trace_crc32(0, img + offs[0], 16), img + offs[0] + 20,
                                  le32(img + offs[0] + 8)));
  /* end marker: 1 kernel, 5 records, 1 block, 48 raw bytes, its own offset */
  assert_memory_equal(img + offs[1], "CCBE", 4);
  assert_int_equal(offs[1] + 20 + 40, n);
  const uint8_t *e = img + offs[1] + 20;
  assert_int_equal(le32(e), 1);
  assert_int_equal(le32(e + 8), 5);
  assert_int_equal(le32(e + 16), 1);
  assert_int_equal(le32(e + 24), 48);
  assert_int_equal(le32(e + 32), offs[1]);
  free(img);
  remove(path);
  assert_int_equal(rmdir(dir), 0);
}

/* The standard check value of CRC-32/ISO-HDLC (the CRC catalogue): "123456789". */
static void test_crc32_check_value(void **state)
{
  (void)state;
  assert_int_equal(cc_trace_crc32(0, "123456789", 9), 0xcbf43926u);
  assert_int_equal(cc_trace_crc32(cc_trace_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
  assert_int_equal(cc_trace_crc32(0, "", 0), 0);
}

/* ---- bad files ----------------------------------------------------------------------- */

struct bad {
  char dir[32], good[256], bad[256];
  uint8_t *img;
  size_t n;
  size_t offs[256];
  size_t n_blocks;
};

/* Writes the hand-built stream with 64-byte blocks (many blocks) and reads it back. */
static void bad_setup(struct bad *b)
{
  struct cc_trace_writer_opts o = {"coalcheck 0.1.0", "rec", "2026-11-22T00:00:00Z", 0, 64, NULL, 0};
  strcpy(b->dir, "/tmp/cc_trace_XXXXXX");
  assert_non_null(mkdtemp(b->dir));
  snprintf(b->good, sizeof b->good, "%s/good.cctrace", b->dir);
  snprintf(b->bad, sizeof b->bad, "%s/t.cctrace", b->dir);
  write_stream(b->good, &o);
  b->img = slurp(b->good, &b->n);
  b->n_blocks = block_offsets(b->img, b->n, b->offs, 256);
  assert_true(b->n_blocks > 6);
}

static void bad_teardown(struct bad *b)
{
  free(b->img);
  remove(b->good);
  remove(b->bad);
  assert_int_equal(rmdir(b->dir), 0);
}

/* Replays b->bad, expecting CC_ERR_INPUT with exactly the message want (after "PATH: "). */
static void expect_input_error(struct bad *b, const char *want)
{
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_trace_info info;
  struct cc_err err = {0};
  char full[1024];
  assert_int_equal(cc_trace_replay(b->bad, &s, &info, &err), CC_ERR_INPUT);
  snprintf(full, sizeof full, "%s: %s", b->bad, want);
  assert_string_equal(err.msg, full);
  assert_null(info.tool_version); /* nothing to release after a failure */
  cap_free(&c);
}

static void test_flipped_byte_in_block(void **state)
{
  struct bad b;
  char want[256];
  (void)state;
  bad_setup(&b);
  b.img[b.offs[2] + 20 + 1] ^= 0x10; /* second stored byte of block 3 */
  spit(b.bad, b.img, b.n);
  snprintf(want, sizeof want, "block 3 at offset %zu is corrupt (checksum mismatch)",
           b.offs[2]);
  expect_input_error(&b, want);
  bad_teardown(&b);
}

static void test_flipped_byte_in_block_header(void **state)
{
  struct bad b;
  char want[256];
  (void)state;
  bad_setup(&b);
  b.img[b.offs[4] + 12] ^= 0x01; /* event count of block 5: covered by the CRC too */
  spit(b.bad, b.img, b.n);
  snprintf(want, sizeof want, "block 5 at offset %zu is corrupt (checksum mismatch)",
           b.offs[4]);
  expect_input_error(&b, want);
  b.img[b.offs[4] + 12] ^= 0x01;
  b.img[b.offs[4] + 1] = 'X'; /* the tag */
  spit(b.bad, b.img, b.n);
  snprintf(want, sizeof want, "block 5 at offset %zu is corrupt (bad block tag)", b.offs[4]);
  expect_input_error(&b, want);
  b.img[b.offs[4] + 1] = 'C';
  b.img[b.offs[4] + 7] = 0x10; /* raw size 256 MiB + ...: over CC_TRACE_BLOCK_MAX */
  spit(b.bad, b.img, b.n);
  snprintf(want, sizeof want, "block 5 at offset %zu is corrupt (block size out of range)",
           b.offs[4]);
  expect_input_error(&b, want);
  bad_teardown(&b);
}

static void test_truncated_inside_block(void **state)
{
  struct bad b;
  char want[256];
  (void)state;
  bad_setup(&b);
  spit(b.bad, b.img, b.offs[5] + 23); /* block 6's header and 3 stored bytes */
  snprintf(want, sizeof want, "truncated after block 5 (offset %zu, file ends at %zu inside "
           "block 6): the recording was cut off", b.offs[5], b.offs[5] + 23);
  expect_input_error(&b, want);
  spit(b.bad, b.img, b.offs[5] + 7); /* inside block 6's header */
  snprintf(want, sizeof want, "truncated after block 5 (offset %zu, file ends at %zu inside "
           "block 6): the recording was cut off", b.offs[5], b.offs[5] + 7);
  expect_input_error(&b, want);
  bad_teardown(&b);
}

static void test_truncated_at_block_boundary(void **state)
{
  struct bad b;
  char want[256];
  size_t last;
  (void)state;
  bad_setup(&b);
  last = b.n_blocks - 1; /* index of the end marker */
  spit(b.bad, b.img, b.offs[last]);
  snprintf(want, sizeof want, "truncated after block %zu at offset %zu: the recording was "
           "cut off (no end marker)", last, b.offs[last]);
  expect_input_error(&b, want);
  spit(b.bad, b.img, b.offs[0]); /* the header alone */
  snprintf(want, sizeof want, "truncated after block 0 at offset %zu: the recording was "
           "cut off (no end marker)", b.offs[0]);
  expect_input_error(&b, want);
  spit(b.bad, b.img, 10); /* inside the file header */
  expect_input_error(&b, "truncated at offset 10 inside the file header: the recording was "
                     "cut off");
  bad_teardown(&b);
}

static void test_wrong_magic_version_empty(void **state)
{
  struct bad b;
  (void)state;
  bad_setup(&b);
  spit(b.bad, b.img, 0);
  expect_input_error(&b, "not a coalcheck trace: the file is empty (offset 0)");
  spit(b.bad, (const uint8_t *)"{\"kernels\": []}\n", 16);
  expect_input_error(&b, "not a coalcheck trace: bad magic at offset 0 (expected a file "
                     "written by coalcheck record)");
  spit(b.bad, b.img, 3); /* a prefix of the magic: cut off, not foreign */
  expect_input_error(&b, "truncated at offset 3 inside the file header: the recording was "
                     "cut off");
  b.img[8] = 2; /* major version 2 */
  spit(b.bad, b.img, b.n);
  expect_input_error(&b, "unsupported trace format version 2.0 at offset 8 (this coalcheck "
                     "reads 1.x): re-record the trace with this coalcheck");
  b.img[8] = 1;
  b.img[10] = 7; /* minor version 7: readable (additions only), but the header CRC fails */
  spit(b.bad, b.img, b.n);
  expect_input_error(&b, "file header at offset 0 is corrupt (checksum mismatch)");
  b.img[10] = 0;
  b.img[12] = 0xff; /* header payload length */
  b.img[14] = 0xff;
  spit(b.bad, b.img, b.n);
  expect_input_error(&b, "file header at offset 0 is corrupt (header length 16711935 out of "
                     "range)");
  bad_teardown(&b);
}

static void test_trailing_data_and_lost_block(void **state)
{
  struct bad b;
  char want[1024];
  uint8_t *cut;
  size_t len, end;
  (void)state;
  bad_setup(&b);
  cut = cc_xmalloc(b.n + 1);
  memcpy(cut, b.img, b.n);
  cut[b.n] = 0;
  spit(b.bad, cut, b.n + 1);
  snprintf(want, sizeof want, "unexpected data at offset %zu after the end marker: the file "
           "was altered or appended to", b.n);
  expect_input_error(&b, want);
  /* drop block 2 whole: every block is still valid and the stream still decodes (block 1
   * is kernel 0's table alone, being over 64 bytes; block 2 holds only records of kernel 0,
   * as its header's event count is all records), but the end marker's totals disagree */
  uint32_t lost = le32(b.img + b.offs[1] + 12);
  size_t klen = b.offs[2] - b.offs[1];
  memcpy(cut, b.img, b.offs[1]);
  len = b.offs[1];
  memcpy(cut + len, b.img + b.offs[2], b.n - b.offs[2]);
  len += b.n - b.offs[2];
  end = b.offs[b.n_blocks - 1] - klen;
  spit(b.bad, cut, len);
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_err err = {0};
  struct cc_warp_access recs[64];
  size_t n_a, n = build_records(recs, &n_a);
  assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_ERR_INPUT);
  snprintf(want, sizeof want, "%s: end marker at offset %zu disagrees with the file (%zu "
           "records recorded, %zu read): blocks were lost or altered", b.bad, end, n,
           n - lost);
  assert_string_equal(err.msg, want);
  assert_int_equal(c.recs.len, n - lost);
  cap_free(&c);
  free(cut);
  bad_teardown(&b);
}

/* Hand-built files whose checksums hold but whose content is wrong. */
typedef CC_VEC(uint8_t) image;

static void im_put(image *im, const void *p, size_t n)
{
  CC_VEC_RESERVE(im, n);
  memcpy(im->data + im->len, p, n);
  im->len += n;
}

static void im_le(image *im, uint64_t v, int n)
{
  for (int i = 0; i < n; i++) {
    uint8_t byte = (uint8_t)(v >> 8 * i);
    im_put(im, &byte, 1);
  }
}

/* Appends a block: tag, raw size as claimed, stored size, events, CRC, stored bytes. */
static void im_block(image *im, const char *tag, const void *stored, size_t stored_len,
                     size_t claimed_raw, uint32_t events)
{
  size_t at = im->len;
  im_put(im, tag, 4);
  im_le(im, claimed_raw, 4);
  im_le(im, stored_len, 4);
  im_le(im, events, 4);
  uint32_t crc = cc_trace_crc32(cc_trace_crc32(0, im->data + at, 16), stored, stored_len);
  im_le(im, crc, 4);
  im_put(im, stored, stored_len);
}

/* Appends a data block holding raw (zstd level 3), claiming claimed_raw bytes. */
static void im_data(image *im, const uint8_t *raw, size_t raw_len, size_t claimed_raw,
                    uint32_t events)
{
  size_t cap = ZSTD_compressBound(raw_len), z;
  uint8_t *zb = malloc(cap);
  assert_non_null(zb);
  z = ZSTD_compress(zb, cap, raw, raw_len, 3);
  assert_false(ZSTD_isError(z));
  im_block(im, "CCBD", zb, z, claimed_raw, events);
  free(zb);
}

/* The good file's header followed by one data block holding raw. */
static void write_handmade(struct bad *b, const uint8_t *raw, size_t raw_len, uint32_t events)
{
  image im = {0};
  im_put(&im, b->img, 16 + le32(b->img + 12) + 4);
  im_data(&im, raw, raw_len, raw_len, events);
  spit(b->bad, im.data, im.len);
  CC_VEC_FREE(&im);
}

/* A kernel "k" with one instruction {0, load, global, 4 bytes}: 22 bytes, and one with
 * none: 12 bytes. */
#define K1 0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, \
           0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00
#define K0 0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00

struct malformed {
  uint8_t bytes[48];
  size_t len;
  uint32_t events;
  size_t at;       /* byte of the event that is wrong */
  const char *why; /* NULL: a block-level message, in block_why */
  const char *block_why;
};

static void test_malformed_events(void **state)
{
  static const struct malformed cases[] = {
      {{0x01, 0x00}, 2, 1, 0, "access record outside a kernel", NULL},
      {{K1, 0x80, 0x09}, 24, 2, 22, "unknown event type", NULL},
      {{K0, 0x00}, 13, 2, 12, "instruction slot beyond the kernel table", NULL},
      {{K1, 0x01, 0xff, 0xff, 0xff, 0xff, 0x1f}, 28, 2, 22, "instruction slot out of range",
       NULL},
      {{0x80, 0x02, 0x65, 0x6b}, 4, 1, 0, "string runs past the end of the block", NULL},
      {{0x80, 0x02, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x01}, 15, 1, 0, "varint overflows 64 bits", NULL},
      {{0x80, 0x03}, 2, 1, 0, "end of kernel without a kernel", NULL},
      {{K1, K1}, 44, 2, 22, "kernel begins inside another kernel", NULL},
      {{0x81, 0x02}, 2, 1, 0, "kernel event with access flags", NULL},
      /* F_ACTIVE with mask 0, then MODE 1: addresses for no lane */
      {{K1, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00}, 28, 2, 22,
       "addresses for a record without active lanes", NULL},
      {{K1, 0x10, 0xff, 0xff}, 25, 2, 22, "record runs past the end of the block", NULL},
      /* override with kind 4 */
      {{K1, 0x80, 0x01, 0x04, 0x04}, 26, 2, 22, "bad kind or space", NULL},
      /* CTA x 0 + zz(1) = -1; warp 0 - 1 */
      {{K1, 0x02, 0x01, 0x00, 0x00}, 26, 2, 22, "cta id out of range", NULL},
      {{K1, 0x04, 0x01}, 24, 2, 22, "warp index out of range", NULL},
      /* a table entry of kind 7 */
      {{0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x00, 0x07,
        0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 22, 1, 0,
       "bad kind or space in the kernel table", NULL},
      /* 65536 instructions in a 14-byte block */
      {{0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x80, 0x80, 0x04},
       14, 1, 0, "instruction count larger than the block", NULL},
      {{K0, 0x80, 0x03}, 14, 3, 0, NULL, "event count differs from the header"},
      /* two kernels in one block: the writer opens a block per table, so that the number
       * of kernels is bounded by the file's size (issue 13: 1 M kernels -> 2.1 GB) */
      {{K0, 0x80, 0x03, K0, 0x80, 0x03}, 28, 4, 14,
       "kernel table not at the start of its block", NULL},
  };
  struct bad b;
  char want[512];
  size_t head;
  (void)state;
  bad_setup(&b);
  head = 16 + le32(b.img + 12) + 4;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const struct malformed *m = &cases[i];
    write_handmade(&b, m->bytes, m->len, m->events);
    if (m->why)
      snprintf(want, sizeof want, "block 1 at offset %zu is corrupt (bad record at byte %zu "
               "of its data: %s)", head, m->at, m->why);
    else
      snprintf(want, sizeof want, "block 1 at offset %zu is corrupt (%s)", head, m->block_why);
    expect_input_error(&b, want);
  }
  bad_teardown(&b);
}

/* A kernel table of n instructions of 10 zero bytes each ({id 0, load, global, size 0,
 * no strings, line 0}) and its end: 12 + varint(n) + 10 n + 2 bytes, 2 events. */
static void write_wide_kernel(struct bad *b, uint32_t n)
{
  static const uint8_t head[] = {0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01,
                                 0x01};
  size_t len = sizeof head;
  uint8_t *raw = calloc(sizeof head + 5 + 10 * (size_t)n + 2, 1);
  assert_non_null(raw);
  memcpy(raw, head, sizeof head);
  for (uint32_t v = n; ; v >>= 7) { /* varint n */
    raw[len++] = (uint8_t)(v >= 0x80 ? (v & 0x7f) | 0x80 : v);
    if (v < 0x80)
      break;
  }
  len += 10 * (size_t)n;
  raw[len++] = 0x80;
  raw[len++] = 0x03;
  write_handmade(b, raw, len, 2);
  free(raw);
}

/* A kernel table may have CC_TRACE_INSNS_MAX = 65536 instructions, not one more: a small
 * block that expands to millions of entries asked the reader and each analysis for
 * ~1.4 KB per entry (issue 13: 1 M entries in a 504-byte file -> 1.35 GB). */
static void test_instruction_count_limit(void **state)
{
  struct bad b;
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_err err = {0};
  char want[256];
  (void)state;
  bad_setup(&b);
  write_wide_kernel(&b, 65536);
  /* accepted: the file only lacks its end marker */
  assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "truncated after block 1"));
  assert_int_equal(c.kernels.len, 1);
  assert_int_equal(c.kernels.data[0].k.n_insns, 65536);
  write_wide_kernel(&b, 65537);
  snprintf(want, sizeof want, "block 1 at offset %zu is corrupt (bad record at byte 0 of its "
           "data: instruction count over the limit of 65536)", 16 + (size_t)le32(b.img + 12) + 4);
  expect_input_error(&b, want);
  cap_free(&c);
  bad_teardown(&b);
}

/* Block- and file-level inconsistencies behind valid checksums. */
static void test_malformed_blocks(void **state)
{
  static const uint8_t k0[] = {K0}, k0_end[] = {K0, 0x80, 0x03};
  struct bad b;
  image im = {0};
  char want[512];
  size_t head, at;
  uint8_t end[40];
  (void)state;
  bad_setup(&b);
  head = 16 + le32(b.img + 12) + 4;

  /* the header claims 2 more raw bytes than the frame holds */
  im.len = 0;
  im_put(&im, b.img, head);
  im_data(&im, k0_end, sizeof k0_end, sizeof k0_end + 2, 2);
  spit(b.bad, im.data, im.len);
  snprintf(want, sizeof want, "block 1 at offset %zu is corrupt (decompressed size differs "
           "from the header)", head);
  expect_input_error(&b, want);
  /* ... 2 fewer: zstd refuses ("Destination buffer is too small") */
  im.len = 0;
  im_put(&im, b.img, head);
  im_data(&im, k0_end, sizeof k0_end, sizeof k0_end - 2, 2);
  spit(b.bad, im.data, im.len);
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_err err = {0};
  assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_ERR_INPUT);
  snprintf(want, sizeof want, "%s: block 1 at offset %zu is corrupt (", b.bad, head);
  assert_memory_equal(err.msg, want, strlen(want));
  assert_non_null(strstr(err.msg, "too small"));

  /* an end marker of 41 bytes */
  im.len = 0;
  im_put(&im, b.img, head);
  memset(end, 0, sizeof end);
  im_block(&im, "CCBE", end, sizeof end, 41, 0);
  spit(b.bad, im.data, im.len);
  snprintf(want, sizeof want, "block 1 at offset %zu is corrupt (block size out of range)",
           head);
  expect_input_error(&b, want);

  /* a kernel left open at a consistent end marker */
  im.len = 0;
  im_put(&im, b.img, head);
  im_data(&im, k0, sizeof k0, sizeof k0, 1);
  at = im.len;
  uint64_t tot[5] = {1, 0, 1, sizeof k0, at};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++)
      end[8 * i + j] = (uint8_t)(tot[i] >> 8 * j);
  im_block(&im, "CCBE", end, sizeof end, sizeof end, 0);
  spit(b.bad, im.data, im.len);
  snprintf(want, sizeof want, "block 2 at offset %zu is corrupt (end marker inside a kernel)",
           at);
  expect_input_error(&b, want);
  /* the same with the end event: a valid file (checks the hand-built image itself) */
  im.len = 0;
  im_put(&im, b.img, head);
  im_data(&im, k0_end, sizeof k0_end, sizeof k0_end, 2);
  at = im.len;
  uint64_t tot2[5] = {1, 0, 1, sizeof k0_end, at};
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 8; j++)
      end[8 * i + j] = (uint8_t)(tot2[i] >> 8 * j);
  im_block(&im, "CCBE", end, sizeof end, sizeof end, 0);
  spit(b.bad, im.data, im.len);
  assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_OK);

  /* a header whose first string claims 5 bytes of a 1-byte payload (CRC recomputed) */
  im.len = 0;
  im_put(&im, b.img, 12);
  im_le(&im, 5, 4);
  im_le(&im, 5, 4);
  im_put(&im, "a", 1);
  im_le(&im, cc_trace_crc32(0, im.data, im.len), 4);
  spit(b.bad, im.data, im.len);
  expect_input_error(&b, "file header at offset 0 is corrupt (string 1 at offset 16 runs "
                     "past the header)");
  cap_free(&c);
  CC_VEC_FREE(&im);
  bad_teardown(&b);
}

/* Every single flipped byte and every truncation of a whole file is reported as
 * CC_ERR_INPUT: the CRCs cover every byte but the magic, versions and sizes, which are
 * checked on their own. */
static void test_every_flip_and_cut(void **state)
{
  struct bad b;
  struct cc_err err = {0};
  (void)state;
  bad_setup(&b);
  for (size_t i = 0; i < b.n; i++) {
    struct capture c = {0};
    struct cc_access_sink s = cap_sink(&c);
    b.img[i] ^= 0x04;
    spit(b.bad, b.img, b.n);
    b.img[i] ^= 0x04;
    if (cc_trace_replay(b.bad, &s, NULL, &err) != CC_ERR_INPUT)
      fail_msg("flip at offset %zu not detected", i);
    cap_free(&c);
  }
  for (size_t len = 0; len < b.n; len++) {
    struct capture c = {0};
    struct cc_access_sink s = cap_sink(&c);
    spit(b.bad, b.img, len);
    if (cc_trace_replay(b.bad, &s, NULL, &err) != CC_ERR_INPUT)
      fail_msg("cut at %zu not detected", len);
    cap_free(&c);
  }
  bad_teardown(&b);
}

/* The decoder on garbage that passes the checksum: random event bytes, and real blocks
 * with a byte changed before compression. It must stop with CC_ERR_INPUT (there is no end
 * marker) and never crash or break the sink protocol (the capture sink asserts it). */
static void test_decoder_fuzz(void **state)
{
  struct bad b;
  struct cc_err err = {0};
  uint8_t raw[4096], *img;
  size_t n, offs[8], raw_len;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  char path[300];
  struct cc_trace_writer_opts o = {NULL, NULL, NULL, 0, 0, NULL, 0};
  (void)state;
  bad_setup(&b);
  for (int round = 0; round < 3000; round++) {
    struct capture c = {0};
    struct cc_access_sink s = cap_sink(&c);
    size_t len = 1 + (size_t)(x % 200);
    /* half the inputs start with a valid empty kernel so that records get decoded */
    static const uint8_t k0[] = {0x80, 0x02, 0x02, 0x6b, 0x00, 0x01, 0x01, 0x01,
                                 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x04,
                                 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    size_t start = (round & 1) ? sizeof k0 : 0;
    memcpy(raw, k0, start);
    for (size_t i = start; i < start + len; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      raw[i] = (uint8_t)(x >> 24);
    }
    write_handmade(&b, raw, start + len, (uint32_t)(x & 3));
    assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_ERR_INPUT);
    cap_free(&c);
  }
  /* real blocks (default size: one per kernel), one byte changed */
  snprintf(path, sizeof path, "%s/big.cctrace", b.dir);
  write_stream(path, &o);
  img = slurp(path, &n);
  assert_int_equal(block_offsets(img, n, offs, 8), 4);
  raw_len = le32(img + offs[0] + 4);
  assert_true(raw_len <= sizeof raw);
  assert_int_equal(ZSTD_decompress(raw, sizeof raw, img + offs[0] + 20, le32(img + offs[0] + 8)),
                   raw_len);
  for (size_t i = 0; i < raw_len; i++) {
    for (int bit = 0; bit < 8; bit += 3) {
      struct capture c = {0};
      struct cc_access_sink s = cap_sink(&c);
      raw[i] ^= (uint8_t)(1u << bit);
      write_handmade(&b, raw, raw_len, le32(img + offs[0] + 12));
      raw[i] ^= (uint8_t)(1u << bit);
      assert_int_equal(cc_trace_replay(b.bad, &s, NULL, &err), CC_ERR_INPUT);
      cap_free(&c);
    }
  }
  free(img);
  remove(path);
  bad_teardown(&b);
}

static void test_missing_file(void **state)
{
  struct capture c = {0};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_err err = {0};
  (void)state;
  assert_int_equal(cc_trace_replay("/nonexistent/t.cctrace", &s, NULL, &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "cannot read /nonexistent/t.cctrace: No such file or directory");
  /* a directory opens, but reading it fails */
  assert_int_equal(cc_trace_replay("/tmp", &s, NULL, &err), CC_ERR_INPUT);
  assert_string_equal(err.msg, "cannot read /tmp at offset 0: Is a directory");
}

/* A sink's failure stops the replay with the sink's status and message. */
static void test_sink_failure_stops_replay(void **state)
{
  struct bad b;
  struct capture c = {.fail_at = 3};
  struct cc_access_sink s = cap_sink(&c);
  struct cc_err err = {0};
  (void)state;
  bad_setup(&b);
  char want[512];
  int found = 0;
  assert_int_equal(cc_trace_replay(b.good, &s, NULL, &err), CC_ERR_LIMIT);
  /* the sink's message, after where the record was: one of the file's blocks */
  for (size_t i = 0; i < b.n_blocks; i++) {
    snprintf(want, sizeof want, "%s: block %zu at offset %zu: capture: stop at record 3",
             b.good, i + 1, b.offs[i]);
    found |= strcmp(err.msg, want) == 0;
  }
  if (!found)
    fail_msg("unexpected message: %s", err.msg);
  assert_int_equal(c.recs.len, 3);
  cap_free(&c);
  bad_teardown(&b);
}

/* ---- writer failures ----------------------------------------------------------------- */

static int dir_is_empty(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  assert_non_null(d);
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
      n++;
  closedir(d);
  return n == 0;
}

/* /dev/full is written in place (never renamed over); the full device fails the flush. */
static void test_writer_dev_full(void **state)
{
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct stat sb;
  (void)state;
  if (stat("/dev/full", &sb) != 0 || !S_ISCHR(sb.st_mode))
    skip();
  assert_int_equal(cc_trace_writer_open("/dev/full", NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[2], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_IO);
  assert_string_equal(err.msg, "cannot write /dev/full: No space left on device");
  assert_int_equal(stat("/dev/full", &sb), 0);
  assert_true(S_ISCHR(sb.st_mode)); /* still the device */
  /* /dev/null takes the whole trace, and stays the device too */
  assert_int_equal(cc_trace_writer_open("/dev/null", NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[2], &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_OK);
  assert_int_equal(stat("/dev/null", &sb), 0);
  assert_true(S_ISCHR(sb.st_mode));
}

/* A regular file that cannot grow (RLIMIT_FSIZE, as a full disk): CC_ERR_IO from the
 * callback that writes a block or from close, and no file left, temporary included. */
static void test_writer_file_too_large(void **state)
{
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer_opts o = {NULL, NULL, NULL, 1, 4096, NULL, 0};
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct rlimit old, small;
  struct cc_warp_access a;
  int rc = CC_OK;
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);
  assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
  small = old;
  small.rlim_cur = 8192;
  signal(SIGXFSZ, SIG_IGN);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
  assert_int_equal(cc_trace_writer_open(path, &o, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[0], &err), CC_OK);
  /* non-affine records with pseudo-random addresses do not compress: ~100+ bytes each */
  uint64_t x = 88172645463325252ull;
  for (uint32_t i = 0; i < 20000 && rc == CC_OK; i++) {
    a = rec(&kernels[0], 0, i, 0, 0, 0, 0, 0xffffffffu);
    for (int l = 0; l < 32; l++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      a.addr[l] = x;
    }
    rc = s.access(s.ctx, &a, &err);
  }
  assert_int_equal(rc, CC_ERR_IO);
  assert_non_null(strstr(err.msg, "cannot write "));
  assert_non_null(strstr(err.msg, "File too large"));
  /* later callbacks refuse; close reports the earlier failure and removes the file */
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_ERR_IO);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_IO);
  assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
  signal(SIGXFSZ, SIG_DFL);
  assert_true(dir_is_empty(dir));
  assert_int_equal(rmdir(dir), 0);
}

static void test_writer_unwritable_and_bad_opts(void **state)
{
  struct cc_trace_writer *w = (void *)1;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct cc_trace_writer_opts big = {NULL, NULL, NULL, 0, CC_TRACE_BLOCK_MAX, NULL, 0};
  struct cc_trace_writer_opts lvl = {NULL, NULL, NULL, 1000, 0, NULL, 0};
  (void)state;
  assert_int_equal(cc_trace_writer_open("/nonexistent/dir/t.cctrace", NULL, &w, &s, &err),
                   CC_ERR_IO);
  assert_string_equal(err.msg, "cannot write /nonexistent/dir/t.cctrace: No such file or "
                      "directory");
  assert_null(w);
  assert_int_equal(cc_trace_writer_open("/tmp/x.cctrace", &big, &w, &s, &err), CC_ERR_USAGE);
  assert_string_equal(err.msg, "trace /tmp/x.cctrace: block size 67108864 too large (at most "
                      "33554432)");
  assert_int_equal(cc_trace_writer_open("/tmp/x.cctrace", &lvl, &w, &s, &err), CC_ERR_USAGE);
  assert_non_null(strstr(err.msg, "trace /tmp/x.cctrace: zstd level 1000 out of range"));
  assert_int_not_equal(access("/tmp/x.cctrace", F_OK), 0);
}

/* Producer protocol errors: CC_ERR_INTERNAL, and nothing is left on disk. */
static void test_writer_protocol_errors(void **state)
{
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct cc_warp_access a = rec(&kernels[0], 0, 0, 0, 0, 0, 0, 1);
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": access record outside a kernel: call "
                      "begin_kernel first");
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_INTERNAL);
  assert_true(dir_is_empty(dir));

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[1], &err), CC_OK);
  a.insn_slot = 2;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": access record for slot 2 of kernel reduce, "
                      "which has 2 instructions");
  cc_trace_writer_abort(w);
  assert_true(dir_is_empty(dir));

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[1], &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[0], &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": begin_kernel(transpose) inside kernel reduce: "
                      "end it first");
  cc_trace_writer_abort(w);

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": end_kernel without begin_kernel");
  cc_trace_writer_abort(w);

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[1], &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, " not written"), " not written: kernel reduce was not "
                      "ended (begin_kernel without end_kernel)");
  assert_true(dir_is_empty(dir));

  struct cc_insn_info bad_in = insns_b[0];
  bad_in.space = CC_SPACE_COUNT;
  struct cc_kernel_info bad_k = {"bad", NULL, {1, 1, 1}, {1, 1, 1}, 1, &bad_in, 0, NULL};
  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &bad_k, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": kernel bad, slot 0: kind 3, space 3 out of "
                      "range");
  cc_trace_writer_abort(w);
  cc_trace_writer_abort(NULL);

  struct cc_kernel_info no_table = {"nt", NULL, {1, 1, 1}, {1, 1, 1}, 3, NULL, 0, NULL};
  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &no_table, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": kernel nt has 3 instructions but no table");
  cc_trace_writer_abort(w);

  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[0], &err), CC_OK);
  a = rec(&kernels[0], 0, 0, 0, 0, 0, 0, 1);
  a.space = (enum cc_space)7;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": access record with kind 0, space 7");
  /* after a failure every callback refuses */
  a.space = CC_SPACE_GLOBAL;
  assert_int_equal(s.access(s.ctx, &a, &err), CC_ERR_INTERNAL);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[1], &err), CC_ERR_INTERNAL);
  assert_string_equal(strstr(err.msg, ": "), ": the recording already failed: abort it");
  cc_trace_writer_abort(w);
  assert_true(dir_is_empty(dir));
  assert_int_equal(rmdir(dir), 0);
}

/* Limits: a kernel table larger than a block (CC_ERR_LIMIT), header strings over 1 MiB
 * (CC_ERR_USAGE at open); nothing left on disk. */
static void test_writer_limits(void **state)
{
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  size_t big = CC_TRACE_BLOCK_MAX + 1;
  char *text = cc_xmalloc(big + 1);
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);
  memset(text, 'a', big);
  text[big] = '\0';
  struct cc_insn_info in = insns_b[1];
  in.text = text;
  in.file = NULL;
  struct cc_kernel_info k = {"huge", NULL, {1, 1, 1}, {1, 1, 1}, 1, &in, 0, NULL};
  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &k, &err), CC_ERR_LIMIT);
  /* the entry: 2 + 5 ("huge") + 1 + 6 + 1, then id, kind, space, size (4), the text
   * (varint of 2^26 + 2: 4 bytes, then 2^26 + 1 bytes), 5 one-byte fields */
  char want[256];
  snprintf(want, sizeof want, ": the table of kernel huge takes %zu bytes, more than a trace "
           "block holds (%u): split the kernel", (size_t)15 + 4 + 4 + big + 5,
           CC_TRACE_BLOCK_MAX);
  assert_string_equal(strstr(err.msg, ": "), want);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_LIMIT);
  assert_true(dir_is_empty(dir));

  /* 65537 instructions: more than a reader accepts (CC_TRACE_INSNS_MAX) */
  struct cc_insn_info *many = cc_xcalloc(65537, sizeof *many);
  struct cc_kernel_info wide = {"wide", NULL, {1, 1, 1}, {1, 1, 1}, 65537, many, 0, NULL};
  for (size_t i = 0; i < 65537; i++)
    many[i] = insns_b[0];
  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &wide, &err), CC_ERR_LIMIT);
  assert_string_equal(strstr(err.msg, ": "), ": kernel wide has 65537 memory instructions, "
                      "more than a trace holds (65536): split the kernel");
  assert_int_equal(cc_trace_writer_close(w, &err), CC_ERR_LIMIT);
  assert_true(dir_is_empty(dir));
  free(many);

  text[(1u << 20) + 1] = '\0'; /* a command line of 1 MiB + 1 */
  struct cc_trace_writer_opts o = {NULL, text, NULL, 0, 0, NULL, 0};
  assert_int_equal(cc_trace_writer_open(path, &o, &w, &s, &err), CC_ERR_USAGE);
  assert_string_equal(strstr(err.msg, ": "), ": header strings too long (over 1048576 bytes): "
                      "shorten the command line");
  assert_null(w);
  assert_true(dir_is_empty(dir));
  free(text);
  assert_int_equal(rmdir(dir), 0);
}

/* Before close the final path does not exist; stats count what was written. */
static void test_writer_whole_or_nothing_and_stats(void **state)
{
  char dir[] = "/tmp/cc_trace_XXXXXX", path[256];
  struct cc_trace_writer *w;
  struct cc_access_sink s;
  struct cc_err err = {0};
  struct cc_trace_stats st;
  struct cc_warp_access a = rec(&kernels[0], 0, 0, 0, 0, 0, 0, 1);
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.cctrace", dir);
  assert_int_equal(cc_trace_writer_open(path, NULL, &w, &s, &err), CC_OK);
  assert_int_equal(s.begin_kernel(s.ctx, &kernels[0], &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  assert_int_equal(s.access(s.ctx, &a, &err), CC_OK);
  cc_trace_writer_stats(w, &st);
  assert_int_equal(st.kernels, 1);
  assert_int_equal(st.records, 2);
  assert_int_equal(st.blocks, 0); /* still pending in memory */
  assert_int_not_equal(access(path, F_OK), 0);
  assert_int_equal(s.end_kernel(s.ctx, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_OK);
  assert_int_equal(access(path, F_OK), 0);
  remove(path);
  assert_int_equal(rmdir(dir), 0);
}

/* ---- fan-out ------------------------------------------------------------------------- */

static void test_tee(void **state)
{
  struct bad b;
  struct capture c[3];
  struct cc_access_sink sinks[3] = {cap_sink(&c[0]), cap_sink(&c[1]), cap_sink(&c[2])};
  struct cc_access_tee tee = {sinks, 3};
  struct cc_access_tee tee2 = {sinks, 1};
  struct cc_access_tee tee3 = {sinks + 2, 1};
  struct cc_access_sink s;
  struct cc_access_sink both[2];
  struct cc_access_tee outer = {both, 2};
  struct cc_err err = {0};
  struct cc_warp_access want[64];
  size_t n_a, n = build_records(want, &n_a);
  (void)state;
  memset(c, 0, sizeof c);
  c[1].fail_at = 2;
  bad_setup(&b);
  /* the second sink stops at its 2nd record: the third never sees that record */
  s = cc_access_tee(&tee);
  assert_int_equal(cc_trace_replay(b.good, &s, NULL, &err), CC_ERR_LIMIT);
  assert_int_equal(c[0].recs.len, 2);
  assert_int_equal(c[1].recs.len, 2);
  assert_int_equal(c[2].recs.len, 1);
  for (int i = 0; i < 3; i++)
    cap_free(&c[i]);
  memset(c, 0, sizeof c);
  /* nested tees: both leaves get the whole stream */
  both[0] = cc_access_tee(&tee2);
  both[1] = cc_access_tee(&tee3);
  s = cc_access_tee(&outer);
  assert_int_equal(cc_trace_replay(b.good, &s, NULL, &err), CC_OK);
  for (int i = 0; i < 3; i += 2) {
    assert_int_equal(c[i].kernels.len, 3);
    assert_int_equal(c[i].ends, 3);
    assert_int_equal(c[i].recs.len, n);
    for (size_t j = 0; j < n; j++)
      check_record(&c[i].recs.data[j], &want[j]);
    cap_free(&c[i]);
  }
  assert_int_equal(c[1].recs.len, 0);
  bad_teardown(&b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip_default),
    cmocka_unit_test(test_roundtrip_one_event_per_block),
    cmocka_unit_test(test_roundtrip_small_blocks_level19),
    cmocka_unit_test(test_exact_encoding),
    cmocka_unit_test(test_crc32_check_value),
    cmocka_unit_test(test_flipped_byte_in_block),
    cmocka_unit_test(test_flipped_byte_in_block_header),
    cmocka_unit_test(test_truncated_inside_block),
    cmocka_unit_test(test_truncated_at_block_boundary),
    cmocka_unit_test(test_wrong_magic_version_empty),
    cmocka_unit_test(test_trailing_data_and_lost_block),
    cmocka_unit_test(test_malformed_events),
    cmocka_unit_test(test_malformed_blocks),
    cmocka_unit_test(test_instruction_count_limit),
    cmocka_unit_test(test_every_flip_and_cut),
    cmocka_unit_test(test_decoder_fuzz),
    cmocka_unit_test(test_missing_file),
    cmocka_unit_test(test_sink_failure_stops_replay),
    cmocka_unit_test(test_writer_dev_full),
    cmocka_unit_test(test_writer_file_too_large),
    cmocka_unit_test(test_writer_unwritable_and_bad_opts),
    cmocka_unit_test(test_writer_protocol_errors),
    cmocka_unit_test(test_writer_limits),
    cmocka_unit_test(test_writer_whole_or_nothing_and_stats),
    cmocka_unit_test(test_tee),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
