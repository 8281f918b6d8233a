/* The record figures of open kernels as bytes, and back (analysis.h, cc_analysis_pack):
 * what an MPI rank sends rank 0 instead of its records when no consumer needs their
 * order (docs/scaling.md). Host byte order: the ranks of one job run one build on one
 * kind of machine; a message of another byte order fails the magic check. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_impl.h"
#include "analysis/footprint.h"
#include "util/mem.h"

#define MAGIC UINT32_C(0x4b504343) /* "CCPK" */
#define VERSION 1u

/* The 64-bit record figures of struct cc_insn_stats, in message order; the others are
 * written by name below. merge.c's cc_analysis_insn_merge gives the rule of each. */
static const size_t u64_fields[] = {
  offsetof(struct cc_insn_stats, executions), offsetof(struct cc_insn_stats, max_dyn),
  offsetof(struct cc_insn_stats, thread_accesses),
  offsetof(struct cc_insn_stats, bytes_requested),
  offsetof(struct cc_insn_stats, unique_bytes), offsetof(struct cc_insn_stats, requests),
  offsetof(struct cc_insn_stats, transactions),
  offsetof(struct cc_insn_stats, bytes_transferred), offsetof(struct cc_insn_stats, sectors),
  offsetof(struct cc_insn_stats, ideal_sectors), offsetof(struct cc_insn_stats, lines),
  offsetof(struct cc_insn_stats, wavefronts), offsetof(struct cc_insn_stats, ideal_wavefronts),
  offsetof(struct cc_insn_stats, conflict_requests), offsetof(struct cc_insn_stats, stride_min),
  offsetof(struct cc_insn_stats, stride_max), offsetof(struct cc_insn_stats, stride_count),
  offsetof(struct cc_insn_stats, uncoalesced_requests),
  offsetof(struct cc_insn_stats, uncoalesced_thread_accesses),
  offsetof(struct cc_insn_stats, lane_stride)};
#define N_U64 (sizeof u64_fields / sizeof u64_fields[0])

struct writer {
  uint8_t *p;
  size_t n, cap;
};

/* Room for more bytes at w->p + w->n. */
static uint8_t *reserve(struct writer *w, size_t more)
{
  if (w->n + more > w->cap) {
    w->cap = w->n + more > 2 * w->cap ? w->n + more : 2 * w->cap;
    w->p = cc_xrealloc(w->p, w->cap);
  }
  w->n += more;
  return w->p + w->n - more;
}

static void put(struct writer *w, const void *v, size_t n)
{
  memcpy(reserve(w, n), v, n);
}

static void put_u32(struct writer *w, uint32_t v)
{
  put(w, &v, 4);
}

static void put_str(struct writer *w, const char *s)
{
  put_u32(w, (uint32_t)strlen(s));
  put(w, s, strlen(s));
}

static void put_insn(struct writer *w, const struct cc_insn_stats *s)
{
  put_u32(w, s->info.id);
  for (size_t f = 0; f < N_U64; f++)
    put(w, (const char *)s + u64_fields[f], 8);
  put(w, s->sector_hist, sizeof s->sector_hist);
  put(w, &s->stride_sum, 8);
  put_u32(w, s->unknown);
  put_u32(w, s->ways_max);
  put_u32(w, s->lanes_seen);
  cc_analysis_fp_pack(s->footprint, reserve(w, cc_analysis_fp_packed_bytes(s->footprint)));
}

size_t cc_analysis_packed_insn_bytes(void)
{
  return 4 + 8 * N_U64 + 8 * CC_ANALYSIS_HIST_BUCKETS + 8 + 3 * 4;
}

void cc_analysis_pack(const struct cc_analysis *const *ans, size_t n, uint8_t **buf,
                      size_t *len)
{
  struct writer w = {NULL, 0, 0};
  put_u32(&w, MAGIC);
  put_u32(&w, VERSION);
  put_u32(&w, (uint32_t)n);
  for (size_t i = 0; i < n; i++) {
    const struct cc_kernel_stats *k = &ans[i]->kernels[ans[i]->n_kernels - 1];
    uint64_t n_insns = k->n_insns;
    put_str(&w, cc_model_name(ans[i]->model));
    put_str(&w, k->mangled);
    put(&w, &n_insns, 8);
    for (size_t slot = 0; slot < k->n_insns; slot++)
      put_insn(&w, &k->insns[k->by_slot[slot]]);
  }
  *buf = w.p;
  *len = w.n;
}

/* ---- reading --------------------------------------------------------------------------- */

struct reader {
  const uint8_t *p;
  size_t n, at;
};

/* Copies n bytes to v; 0 when fewer are left. */
static int get(struct reader *r, void *v, size_t n)
{
  if (n > r->n - r->at)
    return 0;
  memcpy(v, r->p + r->at, n);
  r->at += n;
  return 1;
}

/* Whether the next string is s. */
static int get_same_str(struct reader *r, const char *s)
{
  uint32_t len;
  if (!get(r, &len, 4) || len != strlen(s) || len > r->n - r->at)
    return 0;
  r->at += len;
  return memcmp(r->p + r->at - len, s, len) == 0;
}

/* Reads one instruction's figures into s (zeroed; footprint owned) when its id is id. */
static int get_insn(struct reader *r, uint32_t id, struct cc_insn_stats *s)
{
  uint32_t got, small[3];
  size_t used;
  if (!get(r, &got, 4) || got != id)
    return 0;
  for (size_t f = 0; f < N_U64; f++)
    if (!get(r, (char *)s + u64_fields[f], 8))
      return 0;
  if (!get(r, s->sector_hist, sizeof s->sector_hist) || !get(r, &s->stride_sum, 8) ||
      !get(r, small, sizeof small))
    return 0;
  s->unknown = small[0];
  s->ways_max = small[1];
  s->lanes_seen = small[2];
  if (cc_analysis_fp_unpack(r->p + r->at, r->n - r->at, &used, &s->footprint) != 0)
    return 0;
  r->at += used;
  return 1;
}

/* Reads the figures of one analysis's kernel into tmp (by slot, calloc'ed here);
 * 0 when they are not of an's open kernel or the bytes are cut or corrupt. */
static int get_kernel(struct reader *r, const struct cc_analysis *an,
                      struct cc_insn_stats **tmp)
{
  const struct cc_kernel_stats *k = &an->kernels[an->n_kernels - 1];
  uint64_t n_insns;
  *tmp = NULL;
  if (!get_same_str(r, cc_model_name(an->model)) || !get_same_str(r, k->mangled) ||
      !get(r, &n_insns, 8) || n_insns != k->n_insns)
    return 0;
  *tmp = cc_xcalloc(k->n_insns ? k->n_insns : 1, sizeof **tmp);
  for (size_t slot = 0; slot < k->n_insns; slot++)
    if (!get_insn(r, k->insns[k->by_slot[slot]].info.id, &(*tmp)[slot]))
      return 0;
  return 1;
}

static void free_tmp(struct cc_insn_stats *tmp, size_t n)
{
  if (!tmp)
    return;
  for (size_t slot = 0; slot < n; slot++)
    cc_analysis_fp_free(tmp[slot].footprint);
  free(tmp);
}

int cc_analysis_unpack_merge(struct cc_analysis *const *ans, size_t n, const uint8_t *msg,
                             size_t len, struct cc_err *err)
{
  struct reader r = {msg, len, 0};
  struct cc_insn_stats **tmp = cc_xcalloc(n ? n : 1, sizeof *tmp);
  uint32_t head[3];
  size_t i = 0;
  int ok, rc = CC_OK;
  for (size_t j = 0; j < n; j++)
    if (!ans[j]->open || ans[j]->cache) {
      free(tmp);
      return cc_err_set(err, CC_ERR_INTERNAL, "packed figures merged into an analysis "
                        "without an open kernel or with a cache model: report this bug");
    }
  ok = get(&r, head, sizeof head) && head[0] == MAGIC && head[1] == VERSION && head[2] == n;
  for (; ok && i < n; i++) /* all of it first: a bad message changes nothing */
    ok = get_kernel(&r, ans[i], &tmp[i]);
  ok = ok && r.at == len;
  for (size_t j = 0; j < n; j++) {
    if (ok) {
      int s = cc_analysis_merge_open(ans[j], tmp[j], err);
      if (rc == CC_OK)
        rc = s;
    }
    if (tmp[j])
      free_tmp(tmp[j], ans[j]->kernels[ans[j]->n_kernels - 1].n_insns);
  }
  free(tmp);
  if (!ok)
    return cc_err_set(err, CC_ERR_INPUT, "packed figures of %zu bytes are cut short or "
                      "corrupt near byte %zu, or not of this run's kernel and --arch: "
                      "every rank must run the same coalcheck on the same inputs", len, r.at);
  return rc;
}
