/* Shared helpers of the emulator tests: parse inline PTX, allocate buffers, launch,
 * record the access stream. Header-only (each test program includes it once). */
#ifndef CC_TESTS_EMU_HARNESS_H
#define CC_TESTS_EMU_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "emu/emu.h"
#include "ptx/ptx.h"

#define PTX_HEADER ".version 9.0\n.target sm_90\n.address_size 64\n"

/* a recorded stream */
struct rec_sink {
  struct cc_access_sink sink;
  int begun, ended;
  struct cc_kernel_info k;
  struct cc_insn_info insns[64];
  char kname[128];
  int same_names;
  char texts[64][160];
  char files[64][256]; /* the table's strings live only until end_kernel: copied */
  struct cc_warp_access *recs;
  size_t n, cap;
};

static int rec_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct rec_sink *s = ctx;
  (void)err;
  s->begun++;
  s->k = *k;
  for (uint32_t j = 0; j < k->n_insns && j < 64; j++) {
    s->insns[j] = k->insns[j];
    snprintf(s->texts[j], sizeof s->texts[j], "%s", k->insns[j].text);
    s->insns[j].text = s->texts[j];
    snprintf(s->files[j], sizeof s->files[j], "%s", k->insns[j].file ? k->insns[j].file : "");
    s->insns[j].file = k->insns[j].file ? s->files[j] : NULL;
    s->insns[j].inlined_file = NULL;
  }
  s->k.insns = s->insns;
  s->k.name = s->k.mangled = NULL;
  snprintf(s->kname, sizeof s->kname, "%s", k->name);
  s->same_names = strcmp(k->name, k->mangled) == 0;
  return 0;
}

static int rec_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct rec_sink *s = ctx;
  (void)err;
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 64;
    s->recs = realloc(s->recs, s->cap * sizeof *s->recs);
    assert_non_null(s->recs);
  }
  s->recs[s->n++] = *a;
  return 0;
}

static int rec_end(void *ctx, struct cc_err *err)
{
  struct rec_sink *s = ctx;
  (void)err;
  s->ended++;
  return 0;
}

static inline void rec_init(struct rec_sink *s)
{
  memset(s, 0, sizeof *s);
  s->sink.ctx = s;
  s->sink.begin_kernel = rec_begin;
  s->sink.access = rec_access;
  s->sink.end_kernel = rec_end;
}

static inline void rec_release(struct rec_sink *s)
{
  free(s->recs);
  s->recs = NULL;
}

/* Parses text (a PTX module) or fails the test with the parser's message. */
static inline struct ptx_module *parse_ok(const char *text)
{
  struct ptx_module *m = NULL;
  struct cc_err err;
  memset(&err, 0, sizeof err);
  if (ptx_parse(text, strlen(text), "test.ptx", &m, &err) != CC_OK) {
    print_error("parse failed: %s\n", err.msg);
    fail();
  }
  return m;
}

/* One launch: params are 8-byte values unless sizes[] says otherwise. */
struct launch {
  uint32_t grid[3], block[3], dyn;
  uint32_t n;
  uint64_t vals[16];
  uint32_t sizes[16];
};

static inline struct launch L1(uint32_t gx, uint32_t bx)
{
  struct launch l;
  memset(&l, 0, sizeof l);
  l.grid[0] = gx;
  l.grid[1] = l.grid[2] = 1;
  l.block[0] = bx;
  l.block[1] = l.block[2] = 1;
  return l;
}

static inline void arg64(struct launch *l, uint64_t v)
{
  l->vals[l->n] = v;
  l->sizes[l->n++] = 8;
}

static inline void arg32(struct launch *l, uint32_t v)
{
  l->vals[l->n] = v;
  l->sizes[l->n++] = 4;
}

static inline int launch_run(struct cc_emu *emu, const struct ptx_module *m, const char *kernel,
                      const struct launch *l, struct cc_access_sink *sink,
                      struct cc_emu_stats *st, struct cc_err *err)
{
  const void *pp[16];
  struct cc_emu_launch cl;
  const struct ptx_function *k = ptx_module_find(m, kernel);
  assert_non_null(k);
  memset(&cl, 0, sizeof cl);
  memcpy(cl.grid, l->grid, sizeof cl.grid);
  memcpy(cl.block, l->block, sizeof cl.block);
  cl.dynamic_shared_bytes = l->dyn;
  cl.nparams = l->n;
  for (uint32_t j = 0; j < l->n; j++) pp[j] = &l->vals[j];
  cl.params = pp;
  cl.param_bytes = l->sizes;
  memset(err, 0, sizeof *err);
  return cc_emu_run(emu, k, &cl, sink, st, err);
}

/* Runs and requires success. */
static inline void launch_ok(struct cc_emu *emu, const struct ptx_module *m, const char *kernel,
                      const struct launch *l, struct cc_access_sink *sink,
                      struct cc_emu_stats *st)
{
  struct cc_err err;
  int s = launch_run(emu, m, kernel, l, sink, st, &err);
  if (s != CC_OK) {
    print_error("run failed (%d): %s\n", s, err.msg);
    fail();
  }
}

static inline void *alloc_ok(struct cc_emu *emu, uint64_t bytes, const char *name, uint64_t *dev)
{
  void *host = NULL;
  struct cc_err err;
  memset(&err, 0, sizeof err);
  assert_int_equal(cc_emu_alloc(emu, bytes, name, dev, &host, &err), CC_OK);
  return host;
}

static inline int contains(const char *hay, const char *needle)
{
  if (!strstr(hay, needle)) {
    print_error("'%s' not found in '%s'\n", needle, hay);
    return 0;
  }
  return 1;
}

#endif
