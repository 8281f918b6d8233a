/* Tests of the GPU backend's trace mode, host side (src/gpu/trace.c): draining a
 * hand-made ring image (layout.h protocol), encoding warp records (affine and explicit
 * forms), decoding them, writing a GPU trace (.ccgpu) and converting it into the .cctrace
 * writer (access/trace.h), replayed back.
 * Every record is built by hand here; expected figures are derived beside them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "access/trace.h"
#include "gpu/gpu.h"

#define CAP 4u

static struct cc_gpu_ring_host *ring_new(void)
{
  struct cc_gpu_ring_host *r =
      calloc(1, sizeof *r + CAP * sizeof(struct cc_gpu_trace_rec));
  assert_non_null(r);
  return r;
}

/* A record as the device writes it into the ring: index i, launch, slot, linear CTA id,
 * warp, active mask, 4-byte global load, lane l at base + l * stride. */
static struct cc_gpu_trace_rec rec_make(uint64_t i, uint32_t launch, uint32_t slot,
                                        uint32_t cta, uint32_t warp, uint32_t active,
                                        uint64_t base, uint64_t stride)
{
  struct cc_gpu_trace_rec r;
  memset(&r, 0, sizeof r);
  r.seq = (uint32_t)(i + 1);
  r.launch = launch;
  r.slot = slot;
  r.cta = cta;
  r.active = active;
  r.info = 4u | ((uint32_t)CC_SPACE_GLOBAL << 8) | (CC_GPU_FL_READ << 16) | (warp << 24);
  for (int l = 0; l < 32; l++)
    r.addr[l] = (active & (1u << l)) ? base + (uint64_t)l * stride : 0xdeadbeefull;
  return r;
}

static void layout_sizes(void **state)
{
  /* 16 words of header + 32 addresses of 8 bytes = 64 + 256 = 320 bytes */
  assert_int_equal(sizeof(struct cc_gpu_trace_rec), 320);
  /* warp record: 6 words + one 8-byte base = 32 bytes, what patch.cu stores as 2 x uint4 */
  assert_int_equal(sizeof(struct cc_gpu_wrec), 32);
  assert_int_equal(offsetof(struct cc_gpu_wrec, active), 16);
  assert_int_equal(offsetof(struct cc_gpu_wrec, stride), 20);
  assert_int_equal(offsetof(struct cc_gpu_wrec, base), 24);
  /* tail alone in the first 128 bytes of the host ring */
  assert_int_equal(offsetof(struct cc_gpu_ring_host, recs), 128);
  assert_true(sizeof(struct cc_gpu_launch_hdr) <= CC_GPU_HDR_BYTES);
}

static void drain_stops_at_incomplete(void **state)
{
  struct cc_gpu_ring_host *r = ring_new();
  struct cc_gpu_trace_rec out[8];
  /* the host has consumed 2 records (tail 2); indices 2 and 3 are complete (seq 3, 4);
   * index 4 lives in slot 0, which still holds index 0 (seq 1, not 5): not complete */
  r->tail = 2;
  r->recs[0] = rec_make(0, 0, 1, 0, 0, 1, 0, 0);
  r->recs[2] = rec_make(2, 0, 7, 0, 0, 1, 0, 0);
  r->recs[3] = rec_make(3, 0, 8, 0, 0, 1, 0, 0);
  assert_int_equal(cc_gpu_ring_drain(r, CAP, out, 8), 2);
  assert_int_equal(out[0].slot, 7);
  assert_int_equal(out[1].slot, 8);
  assert_int_equal(r->tail, 4);
  /* nothing new: 0 records, tail unchanged */
  assert_int_equal(cc_gpu_ring_drain(r, CAP, out, 8), 0);
  assert_int_equal(r->tail, 4);
  /* the device completes index 4 (slot 0) and 5 (slot 1): max 1 takes only index 4 */
  r->recs[0] = rec_make(4, 0, 9, 0, 0, 1, 0, 0);
  r->recs[1] = rec_make(5, 0, 10, 0, 0, 1, 0, 0);
  assert_int_equal(cc_gpu_ring_drain(r, CAP, out, 1), 1);
  assert_int_equal(out[0].slot, 9);
  assert_int_equal(r->tail, 5);
  assert_int_equal(cc_gpu_ring_drain(r, CAP, out, 8), 1);
  assert_int_equal(out[0].slot, 10);
  assert_int_equal(r->tail, 6);
  free(r);
}

static const struct cc_gpu_raw_insn insns_a[] = {
    {.slot = 3, .kind = CC_ACCESS_LOAD, .space = CC_SPACE_GLOBAL, .size = 4,
     .sass = "LDG.E R2, desc[UR4][R2.64]", .file = "k.cu", .line = 12},
    {.slot = 9, .kind = CC_ACCESS_STORE, .space = CC_SPACE_GLOBAL, .size = 4,
     .sass = "STG.E desc[UR4][R4.64], R2", .file = "k.cu", .line = 13},
};
static const struct cc_gpu_raw_func funcs[] = {
    {.name = "copy", .mangled = "_Z4copyPfPKf", .n_slots = 20, .n = 2, .insns = insns_a},
};
static const struct cc_gpu_raw_launch launches[] = {
    {.func = 0, .grid = {2, 1, 1}, .block = {64, 1, 1}, .sample = 1},
    {.func = 0, .grid = {4, 1, 1}, .block = {32, 1, 1}, .sample = 2},
};

static uint32_t info4(uint32_t warp)
{
  return 4u | ((uint32_t)CC_SPACE_GLOBAL << 8) | (CC_GPU_FL_READ << 16) | (warp << 24);
}

static void encode_affine_and_explicit(void **state)
{
  uint64_t addr[32] = {0};
  unsigned char out[32 + 256];
  struct cc_gpu_wrec w;
  /* lanes 0 and 2 (mask 0x5) at 0x1000, 0x1010: stride 0x10 / 2 = 8, base 0x1000;
   * lane 1's value is not looked at */
  addr[0] = 0x1000, addr[1] = 0xdeadbeef, addr[2] = 0x1010;
  assert_int_equal(cc_gpu_wrec_encode(info4(3), 7, 9, 5, 0x5u, addr, out), 32);
  memcpy(&w, out, sizeof w);
  assert_int_equal(w.info, info4(3)); /* no explicit bit */
  assert_int_equal(w.launch, 7);
  assert_int_equal(w.slot, 9);
  assert_int_equal(w.cta, 5);
  assert_int_equal(w.active, 0x5u);
  assert_int_equal(w.stride, 8);
  assert_int_equal(w.base, 0x1000);
  /* lanes 3..5 descending by 128: lane 3 at 0x2000 -> stride -128, base = 0x2000 + 3 x 128
   * = 0x2180 (lane 0 would access it) */
  memset(addr, 0, sizeof addr);
  addr[3] = 0x2000, addr[4] = 0x1f80, addr[5] = 0x1f00;
  assert_int_equal(cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x38u, addr, out), 32);
  memcpy(&w, out, sizeof w);
  assert_int_equal(w.stride, -128);
  assert_int_equal(w.base, 0x2180);
  /* one lane (lane 6 at 0x777): stride 0, base 0x777 */
  addr[6] = 0x777;
  assert_int_equal(cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x40u, addr, out), 32);
  memcpy(&w, out, sizeof w);
  assert_int_equal(w.stride, 0);
  assert_int_equal(w.base, 0x777);
  /* lane 5 off the line (0x1f08): explicit, 32 + 3 x 8 = 56 bytes, addresses in lane
   * order after the header */
  addr[5] = 0x1f08;
  assert_int_equal(cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x38u, addr, out), 56);
  memcpy(&w, out, sizeof w);
  assert_int_equal(w.info, info4(0) | CC_GPU_WREC_EXPLICIT);
  uint64_t a[3];
  memcpy(a, out + 32, sizeof a);
  assert_int_equal(a[0], 0x2000);
  assert_int_equal(a[1], 0x1f80);
  assert_int_equal(a[2], 0x1f08);
  /* a stride of 2^32 bytes does not fit the 32-bit field: explicit, 32 + 2 x 8 = 48 */
  memset(addr, 0, sizeof addr);
  addr[0] = 0, addr[1] = 1ull << 32;
  assert_int_equal(cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x3u, addr, out), 48);
  /* a stride that is not a whole number of bytes per lane (lanes 0, 2 at 0 and 3): explicit */
  addr[1] = 0, addr[2] = 3;
  assert_int_equal(cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x5u, addr, out), 48);
}

static void scan_counts_whole_records(void **state)
{
  uint64_t addr[32] = {0};
  unsigned char buf[2 * (32 + 256)];
  addr[0] = 0x100, addr[1] = 0x104;
  size_t n1 = cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x3u, addr, buf);   /* affine: 32 */
  addr[1] = 0x900;
  addr[2] = 0x104;
  size_t n2 = cc_gpu_wrec_encode(info4(0), 0, 1, 0, 0x7u, addr, buf + n1); /* 32 + 24 */
  assert_int_equal(n1 + n2, 88);
  uint64_t n = 0;
  assert_int_equal(cc_gpu_wrec_scan(buf, 88, &n), 0);
  assert_int_equal(n, 2);
  assert_int_equal(cc_gpu_wrec_scan(buf, 87, &n), -1); /* the second one cut short */
  assert_int_equal(cc_gpu_wrec_scan(buf, 20, &n), -1); /* a header cut short */
  assert_int_equal(cc_gpu_wrec_scan(buf, 0, &n), 0);
  assert_int_equal(n, 0);
  memset(buf + 16, 0, 4); /* active mask 0: not a record */
  assert_int_equal(cc_gpu_wrec_scan(buf, 88, &n), -1);
}

static void ring_record_becomes_wrec(void **state)
{
  /* lanes 0 and 2 of warp 1, CTA 5, at 0x1000 + 8 l: affine, base 0x1000, stride 8 */
  struct cc_gpu_trace_rec r = rec_make(0, 1, 9, 5, 1, 0x5u, 0x1000, 8);
  unsigned char out[32 + 256];
  struct cc_gpu_wrec w;
  assert_int_equal(cc_gpu_wrec_from_ring(&r, out), 32);
  memcpy(&w, out, sizeof w);
  assert_int_equal(w.launch, 1);
  assert_int_equal(w.slot, 9);
  assert_int_equal(w.cta, 5);
  assert_int_equal(CC_GPU_WREC_WARP(w.info), 1);
  assert_int_equal(w.stride, 8);
  assert_int_equal(w.base, 0x1000);
}

static void decode_masks_inactive_lanes(void **state)
{
  /* sorted by slot: slot 3 at position 0, slot 9 at position 1 */
  struct cc_insn_info ii[2] = {{.id = 3, .kind = CC_ACCESS_LOAD},
                               {.id = 9, .kind = CC_ACCESS_STORE}};
  /* grid 3 x 2 x 2: linear CTA 11 = x 11 % 3 = 2, y 11 / 3 % 2 = 1, z 11 / 6 = 1 */
  struct cc_kernel_info k = {.name = "copy", .grid = {3, 2, 2}, .n_insns = 2, .insns = ii};
  /* lanes 0 and 2 active (mask 0x5) at 0x1000 + 8 * lane: 0x1000, 0x1010, affine */
  struct cc_gpu_wrec w = {.info = info4(1), .slot = 9, .cta = 11, .active = 0x5u,
                          .stride = 8, .base = 0x1000};
  struct cc_warp_access a;
  assert_int_equal(cc_gpu_wrec_decode(&w, NULL, &k, &a), 0);
  assert_int_equal(a.insn_slot, 1);
  assert_int_equal(a.kind, CC_ACCESS_STORE); /* from the table, not the flags */
  assert_int_equal(a.space, CC_SPACE_GLOBAL);
  assert_int_equal(a.size_bytes, 4);
  assert_int_equal(a.cta[0], 2);
  assert_int_equal(a.cta[1], 1);
  assert_int_equal(a.cta[2], 1);
  assert_int_equal(a.warp, 1);
  assert_int_equal(a.active, 0x5u);
  assert_int_equal(a.addr[0], 0x1000);
  assert_int_equal(a.addr[1], 0); /* inactive */
  assert_int_equal(a.addr[2], 0x1010);
  /* explicit: lanes 0 and 2 take the two addresses in lane order */
  uint64_t ex[2] = {0x5000, 0x40};
  w.info |= CC_GPU_WREC_EXPLICIT;
  assert_int_equal(cc_gpu_wrec_decode(&w, ex, &k, &a), 0);
  assert_int_equal(a.addr[0], 0x5000);
  assert_int_equal(a.addr[1], 0);
  assert_int_equal(a.addr[2], 0x40);
  /* slots 4 and 21 have no instruction: both refused */
  w.slot = 4;
  assert_int_equal(cc_gpu_wrec_decode(&w, ex, &k, &a), -1);
  w.slot = 21;
  assert_int_equal(cc_gpu_wrec_decode(&w, ex, &k, &a), -1);
}

/* Writes the hand-made GPU trace into path: the ring records given, as warp records
 * (extra: zero bytes after them, counted in the header's byte count but in no record, to
 * fake an inconsistent file). Returns the size of the last record. */
static size_t write_raw_extra(const char *path, const struct cc_gpu_trace_rec *recs, size_t n,
                              uint64_t extra)
{
  FILE *spool = tmpfile();
  assert_non_null(spool);
  unsigned char w[32 + 256];
  uint64_t bytes = 0;
  size_t last = 0;
  for (size_t i = 0; i < n; i++) {
    last = cc_gpu_wrec_from_ring(&recs[i], w);
    assert_int_equal(fwrite(w, 1, last, spool), last);
    bytes += last;
  }
  memset(w, 0, sizeof w);
  assert_int_equal(fwrite(w, 1, extra, spool), extra);
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_raw_write(fp, funcs, 1, launches, 2, spool, n, bytes + extra, path,
                                    &err), CC_OK);
  fclose(fp);
  fclose(spool);
  return last;
}

static size_t write_raw(const char *path, const struct cc_gpu_trace_rec *recs, size_t n)
{
  return write_raw_extra(path, recs, n, 0);
}

/* A sink that counts what it sees and keeps the last kernel's figures. */
struct collect {
  int kernels, ends, records;
  uint32_t grid0, n_insns, last_slot, last_active;
  uint64_t last_addr31;
  char text1[64];
  int fail_access;
};

static int c_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct collect *c = ctx;
  c->kernels++;
  c->grid0 = k->grid[0];
  c->n_insns = k->n_insns;
  snprintf(c->text1, sizeof c->text1, "%s", k->insns[1].text);
  return CC_OK;
}

static int c_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct collect *c = ctx;
  if (c->fail_access)
    return cc_err_set(err, CC_ERR_IO, "sink full");
  c->records++;
  c->last_slot = a->insn_slot;
  c->last_active = a->active;
  c->last_addr31 = a->addr[31];
  return CC_OK;
}

static int c_end(void *ctx, struct cc_err *err)
{
  ((struct collect *)ctx)->ends++;
  return CC_OK;
}

static void three_records(struct cc_gpu_trace_rec *recs)
{
  /* launch 0: a full-warp coalesced load (slot 3) and store (slot 9) of CTA 1, warp 1;
   * launch 1: a full-warp load of stride 8 from 0x2000: lane 31 at 0x2000 + 31 * 8 =
   * 0x20f8. All three are affine: 32 bytes each in the file. */
  recs[0] = rec_make(0, 0, 3, 1, 1, 0xffffffffu, 0x1000, 4);
  recs[1] = rec_make(1, 0, 9, 1, 1, 0xffffffffu, 0x3000, 4);
  recs[2] = rec_make(2, 1, 3, 2, 0, 0xffffffffu, 0x2000, 8);
}

static void convert_streams_per_launch(void **state)
{
  char path[] = "/tmp/cc-test-gpu-trace-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  struct cc_gpu_trace_rec recs[3];
  three_records(recs);
  write_raw(path, recs, 3);
  struct collect c = {0};
  struct cc_access_sink sink = {&c, c_begin, c_access, c_end};
  struct cc_gpu_raw_summary sum;
  struct cc_err err = {0};
  assert_int_equal(cc_gpu_raw_convert(path, &sink, &sum, &err), CC_OK);
  /* two launches -> two kernels, each begun and ended; 3 records */
  assert_int_equal(c.kernels, 2);
  assert_int_equal(c.ends, 2);
  assert_int_equal(c.records, 3);
  assert_int_equal(sum.kernels, 2);
  assert_int_equal(sum.records, 3);
  assert_int_equal(sum.sample, 2); /* launch 1 was sampled 1 CTA in 2 */
  assert_int_equal(c.grid0, 4);    /* the last kernel is launch 1: grid 4 */
  assert_int_equal(c.n_insns, 2);
  assert_string_equal(c.text1, "STG.E desc[UR4][R4.64], R2");
  assert_int_equal(c.last_slot, 0); /* slot 3 is the table's first instruction */
  assert_int_equal(c.last_addr31, 0x20f8);
  unlink(path);
}

static void convert_into_cctrace(void **state)
{
  char raw[] = "/tmp/cc-test-gpu-trace-XXXXXX";
  int fd = mkstemp(raw);
  assert_true(fd >= 0);
  close(fd);
  struct cc_gpu_trace_rec recs[3];
  three_records(recs);
  write_raw(raw, recs, 3);
  char out[64];
  snprintf(out, sizeof out, "%s.cctrace", raw);
  struct cc_trace_writer *w;
  struct cc_access_sink sink;
  struct cc_err err = {0};
  assert_int_equal(cc_trace_writer_open(out, NULL, &w, &sink, &err), CC_OK);
  assert_int_equal(cc_gpu_raw_convert(raw, &sink, NULL, &err), CC_OK);
  assert_int_equal(cc_trace_writer_close(w, &err), CC_OK);
  /* replayed: the same 2 kernels and 3 records, the last one's lane 31 at 0x20f8 */
  struct collect c = {0};
  struct cc_access_sink back = {&c, c_begin, c_access, c_end};
  assert_int_equal(cc_trace_replay(out, &back, NULL, &err), CC_OK);
  assert_int_equal(c.kernels, 2);
  assert_int_equal(c.records, 3);
  assert_int_equal(c.last_addr31, 0x20f8);
  assert_int_equal(c.last_active, 0xffffffffu);
  unlink(out);
  unlink(raw);
}

/* ---- error paths ---- */

static int convert_file(const char *path, struct collect *c, struct cc_err *err)
{
  struct cc_access_sink sink = {c, c_begin, c_access, c_end};
  return cc_gpu_raw_convert(path, &sink, NULL, err);
}

static void errors(void **state)
{
  char path[] = "/tmp/cc-test-gpu-trace-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  struct collect c = {0};
  struct cc_err err = {0};
  /* missing file */
  assert_int_equal(convert_file("/nonexistent/x.ccgpu", &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "cannot open /nonexistent/x.ccgpu"));
  /* foreign file */
  FILE *fp = fopen(path, "wb");
  fputs("not a trace at all", fp);
  fclose(fp);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "not a GPU trace"));
  /* truncated: a valid file cut 10 bytes into its last record */
  struct cc_gpu_trace_rec recs[3];
  three_records(recs);
  size_t last = write_raw(path, recs, 3);
  fp = fopen(path, "rb");
  fseek(fp, 0, SEEK_END);
  long size = ftell(fp);
  fclose(fp);
  assert_int_equal(truncate(path, size - (long)last + 10), 0);
  memset(&c, 0, sizeof c);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "truncated"));
  assert_int_equal(c.records, 2); /* the two whole records came before */
  /* a record naming launch 7 of 2 */
  recs[1].launch = 7;
  write_raw(path, recs, 3);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "names launch 7 of 2"));
  /* an impossible record: active mask 0 */
  three_records(recs);
  recs[1].active = 0;
  recs[1].addr[0] = 0;
  write_raw(path, recs, 2);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "record 1 at offset"));
  assert_non_null(strstr(err.msg, "is malformed"));
  /* the header claims 8 bytes more than its 3 affine records take (3 x 32 = 96) */
  three_records(recs);
  assert_int_equal(write_raw_extra(path, recs, 3, 8), 32);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "3 records take 96 bytes, the header says 104"));
  /* a record at slot 4, which has no instruction: sass offset 4 x 16 = 0x40 */
  three_records(recs);
  recs[2].slot = 4;
  write_raw(path, recs, 3);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "sass offset 0x40"));
  /* the sink's own error comes back as it is */
  three_records(recs);
  write_raw(path, recs, 3);
  memset(&c, 0, sizeof c);
  c.fail_access = 1;
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_IO);
  assert_string_equal(err.msg, "sink full");
  /* a launch naming function 3 of 1 */
  struct cc_gpu_raw_launch bad = {.func = 3};
  fp = fopen(path, "wb");
  assert_int_equal(cc_gpu_raw_write(fp, funcs, 1, &bad, 1, NULL, 0, 0, path, &err), CC_OK);
  fclose(fp);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "names function 3 of 1"));
  /* writing: a spool holding 32 bytes where 96 are announced */
  FILE *spool = tmpfile();
  unsigned char w[32 + 256];
  fwrite(w, 1, cc_gpu_wrec_from_ring(&recs[0], w), spool);
  fp = fopen(path, "wb");
  assert_int_equal(cc_gpu_raw_write(fp, funcs, 1, launches, 2, spool, 3, 96, path, &err),
                   CC_ERR_IO);
  assert_non_null(strstr(err.msg, "spool ended after 32 of 96 bytes"));
  fclose(fp);
  fclose(spool);
  /* writing to a full device */
  fp = fopen("/dev/full", "wb");
  if (fp != NULL) {
    setvbuf(fp, NULL, _IONBF, 0);
    assert_int_equal(cc_gpu_raw_write(fp, funcs, 1, launches, 2, NULL, 0, 0, "/dev/full",
                                      &err), CC_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot write /dev/full"));
    fclose(fp);
  }
  unlink(path);
}

/* Writes the n 32-bit words of v (and nothing else) into path. */
static void write_words(const char *path, const uint32_t *v, size_t n)
{
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  fwrite("CCGPUTR2", 1, 8, fp);
  fwrite(v, sizeof *v, n, fp);
  assert_int_equal(fclose(fp), 0);
}

/* Counts read from the file are bounded by what the rest of the file can hold (a
 * function takes at least 16 bytes, an instruction 36, a launch 32) before anything is
 * allocated for them: a 12-byte file declaring 2^24 functions asked for 0.8 GB, and a
 * table indexed by slot took 4 bytes per slot of the declared code size. A slot named by
 * two instructions is refused. */
static void counts_bounded_by_the_file(void **state)
{
  char path[] = "/tmp/cc-test-gpu-trace-XXXXXX";
  int fd = mkstemp(path);
  struct collect c = {0};
  struct cc_err err = {0};
  (void)state;
  assert_true(fd >= 0);
  close(fd);
  const uint32_t many_funcs[] = {1u << 24};
  write_words(path, many_funcs, 1);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, ": 16777216 functions at offset 8: not a GPU trace, or a "
                                  "corrupt one (the 0 bytes left hold fewer)"));
  /* one function (no names), 2^24 slots, 10^6 instructions, and 36 bytes of them */
  uint32_t many_insns[5 + 9] = {1, 0xffffffffu, 0xffffffffu, 1u << 24, 1000000};
  write_words(path, many_insns, 14);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, ": 1000000 instructions at offset 24: not a GPU trace, or "
                                  "a corrupt one (the 36 bytes left hold fewer)"));
  /* two instructions at slot 2^24 - 1 (the table's slots are taken as they come, not
   * through a table of 2^24 entries), no launch */
  uint32_t twice[5 + 2 * 9 + 1] = {1, 0xffffffffu, 0xffffffffu, 1u << 24, 2};
  for (int j = 0; j < 2; j++) {
    uint32_t insn[9] = {(1u << 24) - 1, CC_ACCESS_LOAD, CC_SPACE_GLOBAL, 4, 1, 0,
                        0xffffffffu, 0xffffffffu, 0xffffffffu};
    memcpy(&twice[5 + 9 * j], insn, sizeof insn);
  }
  write_words(path, twice, 24);
  assert_int_equal(convert_file(path, &c, &err), CC_ERR_INPUT);
  assert_non_null(strstr(err.msg, "has two instructions at slot 16777215"));
  unlink(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(layout_sizes),
      cmocka_unit_test(drain_stops_at_incomplete),
      cmocka_unit_test(encode_affine_and_explicit),
      cmocka_unit_test(scan_counts_whole_records),
      cmocka_unit_test(ring_record_becomes_wrec),
      cmocka_unit_test(decode_masks_inactive_lanes),
      cmocka_unit_test(convert_streams_per_launch),
      cmocka_unit_test(convert_into_cctrace),
      cmocka_unit_test(errors),
      cmocka_unit_test(counts_bounded_by_the_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
