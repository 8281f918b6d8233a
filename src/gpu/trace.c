/* coalcheck gpu: the host side of the trace mode (gpu.h, "trace").
 *
 * The device writes one warp record (struct cc_gpu_wrec, layout.h: 32 bytes for a
 * lane-affine access, plus the addresses otherwise) per warp access into a buffer in
 * device memory, which the library copies after each launch; what does not fit there goes
 * through a ring of full-size records in pinned host memory (struct cc_gpu_trace_rec),
 * drained by a host thread with cc_gpu_ring_drain while the kernel runs and turned into
 * warp records by cc_gpu_wrec_from_ring. Both land in a spool file; at exit the library
 * writes the GPU trace (.ccgpu: the kernels' SASS instruction tables, the launches, the
 * records) with cc_gpu_raw_write, and cc_gpu_raw_convert streams such a file into any
 * access sink (the .cctrace writer: `coalcheck report FILE --arch ...` then works on GPU
 * runs). The library itself links no zstd: the conversion happens in coalcheck.
 *
 * File layout (host byte order, little-endian on every CUDA host):
 *   "CCGPUTR2"
 *   u32 n_funcs, per function: str name, str mangled, u32 n_slots, u32 n_insns, per insn:
 *     u32 slot, kind, space, size, line, inl_line, str sass, str file, str inl_file
 *   u32 n_launches, per launch: u32 func, grid[3], block[3], sample
 *   u64 n_recs, u64 n_bytes, then n_bytes of n_recs warp records (struct cc_gpu_wrec,
 *   each followed by its explicit addresses, if any)
 * str = u32 length (0xffffffff: NULL) + bytes (no terminator). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "util/mem.h"

#define MAGIC "CCGPUTR2"
#define NO_STR 0xffffffffu
#define MAX_ITEMS (1u << 24) /* sanity bound on counts read from a file */

size_t cc_gpu_ring_drain(struct cc_gpu_ring_host *ring, uint32_t cap,
                         struct cc_gpu_trace_rec *out, size_t max)
{
  uint64_t tail = __atomic_load_n(&ring->tail, __ATOMIC_RELAXED);
  size_t n = 0;
  while (n < max) {
    struct cc_gpu_trace_rec *r = &ring->recs[tail & (cap - 1)];
    /* acquire: the addresses and fields, stored before seq on the device (behind a
     * system fence), are visible once seq is */
    if (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) != (uint32_t)(tail + 1))
      break;
    memcpy(&out[n++], r, sizeof *r);
    tail++;
  }
  /* release: the copies are done before the device may overwrite the slots */
  if (n > 0)
    __atomic_store_n(&ring->tail, tail, __ATOMIC_RELEASE);
  return n;
}

size_t cc_gpu_wrec_encode(uint32_t info, uint32_t launch, uint32_t slot, uint32_t cta,
                          uint32_t active, const uint64_t addr[CC_WARP_SIZE], void *out)
{
  /* active 0 never comes from the device; kept as it came (the reader refuses it) */
  int first = active ? __builtin_ctz(active) : 0, second = -1;
  uint32_t rest = active & (active - 1);
  int64_t stride = 0;
  int affine = 1;
  if (rest != 0) {
    second = __builtin_ctz(rest);
    int64_t d = (int64_t)(addr[second] - addr[first]), dl = second - first;
    stride = d / dl;
    affine = stride * dl == d && stride >= INT32_MIN && stride <= INT32_MAX;
  }
  uint64_t base = addr[first] - (uint64_t)(stride * first);
  for (int l = 0; affine && l < CC_WARP_SIZE; l++)
    if ((active & (1u << l)) && addr[l] != base + (uint64_t)(stride * l))
      affine = 0;
  struct cc_gpu_wrec w = {.info = (info & ~CC_GPU_WREC_EXPLICIT) |
                                  (affine ? 0 : CC_GPU_WREC_EXPLICIT),
                          .launch = launch, .slot = slot, .cta = cta, .active = active,
                          .stride = affine ? (int32_t)stride : 0, .base = affine ? base : 0};
  memcpy(out, &w, sizeof w);
  if (affine)
    return sizeof w;
  uint64_t *a = (uint64_t *)((char *)out + sizeof w);
  size_t n = 0;
  for (int l = 0; l < CC_WARP_SIZE; l++)
    if (active & (1u << l))
      memcpy(&a[n++], &addr[l], sizeof addr[l]);
  return sizeof w + n * sizeof *a;
}

size_t cc_gpu_wrec_from_ring(const struct cc_gpu_trace_rec *r, void *out)
{
  return cc_gpu_wrec_encode(r->info, r->launch, r->slot, r->cta, r->active, r->addr, out);
}

int cc_gpu_wrec_scan(const void *buf, size_t bytes, uint64_t *n_recs)
{
  const char *p = buf;
  size_t off = 0;
  *n_recs = 0;
  while (off < bytes) {
    struct cc_gpu_wrec w;
    if (bytes - off < sizeof w)
      return -1;
    memcpy(&w, p + off, sizeof w);
    size_t len = CC_GPU_WREC_BYTES(w.info, w.active);
    if (w.active == 0 || bytes - off < len)
      return -1;
    off += len;
    ++*n_recs;
  }
  return 0;
}

/* ---- writing ---- */

static void put_u32(FILE *fp, uint32_t v) { fwrite(&v, sizeof v, 1, fp); }

static void put_str(FILE *fp, const char *s)
{
  if (s == NULL) {
    put_u32(fp, NO_STR);
    return;
  }
  uint32_t n = (uint32_t)strlen(s);
  put_u32(fp, n);
  fwrite(s, 1, n, fp);
}

int cc_gpu_raw_write(FILE *fp, cc_keep const struct cc_gpu_raw_func *funcs, size_t nf,
                     cc_keep const struct cc_gpu_raw_launch *launches, size_t nl,
                     FILE *spool, uint64_t n_recs, uint64_t n_bytes, const char *path,
                     struct cc_err *err)
{
  fwrite(MAGIC, 1, 8, fp);
  put_u32(fp, (uint32_t)nf);
  for (size_t i = 0; i < nf; i++) {
    const struct cc_gpu_raw_func *f = &funcs[i];
    put_str(fp, f->name);
    put_str(fp, f->mangled);
    put_u32(fp, f->n_slots);
    put_u32(fp, (uint32_t)f->n);
    for (size_t j = 0; j < f->n; j++) {
      const struct cc_gpu_raw_insn *in = &f->insns[j];
      put_u32(fp, in->slot);
      put_u32(fp, (uint32_t)in->kind);
      put_u32(fp, (uint32_t)in->space);
      put_u32(fp, in->size);
      put_u32(fp, in->line);
      put_u32(fp, in->inl_line);
      put_str(fp, in->sass);
      put_str(fp, in->file);
      put_str(fp, in->inl_file);
    }
  }
  put_u32(fp, (uint32_t)nl);
  for (size_t i = 0; i < nl; i++) {
    const struct cc_gpu_raw_launch *l = &launches[i];
    put_u32(fp, l->func);
    for (int d = 0; d < 3; d++)
      put_u32(fp, l->grid[d]);
    for (int d = 0; d < 3; d++)
      put_u32(fp, l->block[d]);
    put_u32(fp, l->sample);
  }
  fwrite(&n_recs, sizeof n_recs, 1, fp);
  fwrite(&n_bytes, sizeof n_bytes, 1, fp);
  if (spool != NULL && n_bytes > 0) {
    char buf[1 << 16];
    uint64_t left = n_bytes;
    rewind(spool);
    while (left > 0) {
      size_t want = left < sizeof buf ? (size_t)left : sizeof buf;
      size_t got = fread(buf, 1, want, spool);
      if (got != want)
        return cc_err_set(err, CC_ERR_IO, "%s: the record spool ended after %llu of %llu "
                          "bytes; check the space in TMPDIR", path,
                          (unsigned long long)(n_bytes - left + got),
                          (unsigned long long)n_bytes);
      fwrite(buf, 1, got, fp);
      left -= got;
    }
  }
  if (ferror(fp))
    return cc_err_set(err, CC_ERR_IO, "cannot write %s; check the disk space and the "
                      "folder's permissions", path);
  return CC_OK;
}

/* ---- reading ---- */

struct reader {
  FILE *fp;
  const char *path;
  struct cc_err *err;
  long size;              /* bytes of the file: what counts read from it can hold */
};

static int get(struct reader *r, void *p, size_t n, const char *what)
{
  if (fread(p, 1, n, r->fp) == n)
    return CC_OK;
  return cc_err_set(r->err, CC_ERR_INPUT, "%s: truncated at offset %ld (reading %s); "
                    "record the run again", r->path, ftell(r->fp), what);
}

static int get_u32(struct reader *r, uint32_t *v, const char *what)
{
  return get(r, v, sizeof *v, what);
}

static int get_str(struct reader *r, char **out, const char *what)
{
  uint32_t n;
  int rc;
  *out = NULL;
  if ((rc = get_u32(r, &n, what)) != CC_OK || n == NO_STR)
    return rc;
  if (n > (1u << 20))
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: %s of %u bytes at offset %ld: not a GPU "
                      "trace, or a corrupt one", r->path, what, n, ftell(r->fp));
  *out = cc_xmalloc((size_t)n + 1);
  (*out)[n] = '\0';
  return get(r, *out, n, what);
}

/* A count of items of at least item_bytes bytes each (0: not stored in the file, bounded
 * by MAX_ITEMS only): more than the rest of the file can hold is corruption, found before
 * anything is allocated for them. */
static int get_count(struct reader *r, uint32_t *n, uint32_t item_bytes, const char *what)
{
  int rc = get_u32(r, n, what);
  long left = r->size - ftell(r->fp);
  if (rc == CC_OK && (*n > MAX_ITEMS || (item_bytes && (uint64_t)*n * item_bytes >
                                                         (uint64_t)(left > 0 ? left : 0))))
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: %u %s at offset %ld: not a GPU trace, "
                      "or a corrupt one (the %ld bytes left hold fewer)", r->path, *n, what,
                      ftell(r->fp) - 4, left);
  return rc;
}

/* A function as read back: its table, sorted by slot (cc_gpu_wrec_decode). */
struct rfunc {
  char *name, *mangled;
  uint32_t n_slots, n;
  struct cc_insn_info *insns;
  char **strs;            /* 3 per insn: sass, file, inl_file (owned) */
};

struct rtrace {
  uint32_t nf, nl;
  struct rfunc *funcs;
  struct cc_gpu_raw_launch *launches;
};

static void rtrace_free(struct rtrace *t)
{
  for (uint32_t i = 0; t->funcs && i < t->nf; i++) {
    struct rfunc *f = &t->funcs[i];
    for (uint32_t j = 0; f->strs && j < 3 * f->n; j++)
      free(f->strs[j]);
    free(f->strs);
    free(f->insns);
    free(f->name);
    free(f->mangled);
  }
  free(t->funcs);
  free(t->launches);
}

static int read_insn(struct reader *r, struct rfunc *f, uint32_t j)
{
  uint32_t v[6];
  int rc;
  for (int k = 0; k < 6; k++)
    if ((rc = get_u32(r, &v[k], "an instruction")) != CC_OK)
      return rc;
  if ((rc = get_str(r, &f->strs[3 * j], "sass text")) != CC_OK ||
      (rc = get_str(r, &f->strs[3 * j + 1], "a file name")) != CC_OK ||
      (rc = get_str(r, &f->strs[3 * j + 2], "a file name")) != CC_OK)
    return rc;
  if (v[0] > f->n_slots || v[1] > CC_ACCESS_REDUCTION || v[2] >= CC_SPACE_COUNT)
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: instruction %u of %s is malformed (slot "
                      "%u, kind %u, space %u) at offset %ld; record the run again", r->path,
                      j, f->mangled ? f->mangled : "?", v[0], v[1], v[2], ftell(r->fp));
  f->insns[j] = (struct cc_insn_info){
      .id = v[0], .kind = (enum cc_access_kind)v[1], .space = (enum cc_space)v[2],
      .size_bytes = v[3], .line = v[4], .inlined_line = v[5], .text = f->strs[3 * j],
      .file = f->strs[3 * j + 1], .inlined_file = f->strs[3 * j + 2]};
  return CC_OK;
}

static int cmp_slot(const void *pa, const void *pb)
{
  uint32_t a = ((const struct cc_insn_info *)pa)->id, b = ((const struct cc_insn_info *)pb)->id;
  return (a > b) - (a < b);
}

/* Sorts f's table by slot (cc_gpu_wrec_decode searches it), refusing a slot twice. A
 * table indexed by slot would cost 4 bytes per slot of the kernel's code, a size the
 * file states but does not hold. */
static int sort_table(struct reader *r, struct rfunc *f)
{
  qsort(f->insns, f->n, sizeof *f->insns, cmp_slot);
  for (uint32_t j = 1; j < f->n; j++)
    if (f->insns[j].id == f->insns[j - 1].id)
      return cc_err_set(r->err, CC_ERR_INPUT, "%s: %s has two instructions at slot %u (before "
                        "offset %ld); record the run again", r->path,
                        f->mangled ? f->mangled : "?", f->insns[j].id, ftell(r->fp));
  return CC_OK;
}

static int read_tables(struct reader *r, struct rtrace *t)
{
  char magic[8];
  int rc;
  if ((rc = get(r, magic, 8, "the header")) != CC_OK)
    return rc;
  if (memcmp(magic, MAGIC, 8) != 0)
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: not a GPU trace (no CCGPUTR1 header); "
                      "pass the file libcoalcheck_gpu.so wrote to $COALCHECK_GPU_TRACE",
                      r->path);
  /* the least bytes of a function (two string lengths, two counts), an instruction (six
   * u32, three string lengths) and a launch (eight u32) */
  if ((rc = get_count(r, &t->nf, 16, "functions")) != CC_OK)
    return rc;
  t->funcs = cc_xcalloc(t->nf + 1, sizeof *t->funcs);
  for (uint32_t i = 0; i < t->nf; i++) {
    struct rfunc *f = &t->funcs[i];
    if ((rc = get_str(r, &f->name, "a kernel name")) != CC_OK ||
        (rc = get_str(r, &f->mangled, "a kernel name")) != CC_OK ||
        (rc = get_count(r, &f->n_slots, 0, "slots")) != CC_OK ||
        (rc = get_count(r, &f->n, 36, "instructions")) != CC_OK)
      return rc;
    f->insns = cc_xcalloc(f->n + 1, sizeof *f->insns);
    f->strs = cc_xcalloc(3 * (size_t)f->n + 1, sizeof *f->strs);
    for (uint32_t j = 0; j < f->n; j++)
      if ((rc = read_insn(r, f, j)) != CC_OK)
        return rc;
    if ((rc = sort_table(r, f)) != CC_OK)
      return rc;
  }
  if ((rc = get_count(r, &t->nl, 32, "launches")) != CC_OK)
    return rc;
  t->launches = cc_xcalloc(t->nl + 1, sizeof *t->launches);
  for (uint32_t i = 0; i < t->nl; i++) {
    uint32_t v[8];
    for (int k = 0; k < 8; k++)
      if ((rc = get_u32(r, &v[k], "a launch")) != CC_OK)
        return rc;
    if (v[0] >= t->nf)
      return cc_err_set(r->err, CC_ERR_INPUT, "%s: launch %u names function %u of %u; "
                        "record the run again", r->path, i, v[0], t->nf);
    t->launches[i] = (struct cc_gpu_raw_launch){
        .func = v[0], .grid = {v[1], v[2], v[3]}, .block = {v[4], v[5], v[6]},
        .sample = v[7]};
  }
  return CC_OK;
}

int cc_gpu_wrec_decode(const struct cc_gpu_wrec *w, const uint64_t *addrs,
                       const struct cc_kernel_info *k, struct cc_warp_access *a)
{
  uint32_t lo = 0, hi = k->n_insns; /* the first instruction at a slot >= w->slot */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (k->insns[mid].id < w->slot)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == k->n_insns || k->insns[lo].id != w->slot)
    return -1;
  const struct cc_insn_info *in = &k->insns[lo];
  uint32_t gx = k->grid[0] ? k->grid[0] : 1, gy = k->grid[1] ? k->grid[1] : 1;
  memset(a, 0, sizeof *a);
  a->insn_slot = lo;
  a->cta[0] = w->cta % gx;
  a->cta[1] = w->cta / gx % gy;
  a->cta[2] = w->cta / gx / gy;
  a->warp = CC_GPU_WREC_WARP(w->info);
  a->kind = in->kind;
  a->space = (enum cc_space)CC_GPU_REC_SPACE(w->info);
  a->size_bytes = CC_GPU_REC_SIZE(w->info);
  a->active = w->active;
  size_t n = 0;
  for (int l = 0; l < CC_WARP_SIZE; l++)
    if (w->active & (1u << l))
      a->addr[l] = (w->info & CC_GPU_WREC_EXPLICIT)
                       ? addrs[n++]
                       : w->base + (uint64_t)((int64_t)w->stride * l);
  return 0;
}

static void kernel_info(const struct rtrace *t, uint32_t launch, struct cc_kernel_info *k)
{
  const struct cc_gpu_raw_launch *l = &t->launches[launch];
  const struct rfunc *f = &t->funcs[l->func];
  *k = (struct cc_kernel_info){.name = f->name ? f->name : f->mangled,
                               .mangled = f->mangled, .n_insns = f->n, .insns = f->insns};
  memcpy(k->grid, l->grid, sizeof k->grid);
  memcpy(k->block, l->block, sizeof k->block);
}

/* Reads record i (header and explicit addresses) and checks what the header claims
 * against the launch table; the launch it names must exist, size and space be valid. */
static int read_record(struct reader *r, const struct rtrace *t, uint64_t i,
                       struct cc_gpu_wrec *w, uint64_t *addrs)
{
  int rc = get(r, w, sizeof *w, "a record");
  if (rc != CC_OK)
    return rc;
  uint32_t size = CC_GPU_REC_SIZE(w->info);
  if (w->active == 0 || CC_GPU_REC_SPACE(w->info) >= CC_SPACE_COUNT || size == 0 ||
      size > 16 || (size & (size - 1)) != 0)
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: record %llu at offset %ld is malformed "
                      "(info 0x%x, active 0x%x); record the run again", r->path,
                      (unsigned long long)i, ftell(r->fp) - (long)sizeof *w, w->info,
                      w->active);
  if (w->launch >= t->nl)
    return cc_err_set(r->err, CC_ERR_INPUT, "%s: record %llu names launch %u of %u; record "
                      "the run again", r->path, (unsigned long long)i, w->launch, t->nl);
  if (w->info & CC_GPU_WREC_EXPLICIT)
    return get(r, addrs, 8u * (size_t)__builtin_popcount(w->active), "a record's addresses");
  return CC_OK;
}

/* Streams the records: a new kernel (begin_kernel) whenever the launch number changes. */
static int stream_records(struct reader *r, const struct rtrace *t,
                          const struct cc_access_sink *sink, struct cc_gpu_raw_summary *sum)
{
  uint64_t n, n_bytes;
  int rc = get(r, &n, sizeof n, "the record count");
  if (rc == CC_OK)
    rc = get(r, &n_bytes, sizeof n_bytes, "the record bytes");
  long start = ftell(r->fp);
  uint32_t cur = UINT32_MAX;
  struct cc_kernel_info k;
  struct cc_warp_access a;
  for (uint64_t i = 0; rc == CC_OK && i < n; i++) {
    struct cc_gpu_wrec w;
    uint64_t addrs[CC_WARP_SIZE];
    if ((rc = read_record(r, t, i, &w, addrs)) != CC_OK)
      break;
    if (w.launch != cur) {
      if (cur != UINT32_MAX && (rc = sink->end_kernel(sink->ctx, r->err)) != CC_OK)
        break;
      cur = w.launch;
      kernel_info(t, cur, &k);
      if ((rc = sink->begin_kernel(sink->ctx, &k, r->err)) != CC_OK) {
        cur = UINT32_MAX;
        break;
      }
      sum->kernels++;
      if (t->launches[cur].sample > sum->sample)
        sum->sample = t->launches[cur].sample;
    }
    if (cc_gpu_wrec_decode(&w, addrs, &k, &a) != 0) {
      rc = cc_err_set(r->err, CC_ERR_INPUT, "%s: record %llu of %s is at sass offset 0x%x, "
                      "which has no memory instruction in the table; record the run again",
                      r->path, (unsigned long long)i, k.name, w.slot * CC_GPU_INSN_BYTES);
      break;
    }
    if ((rc = sink->access(sink->ctx, &a, r->err)) != CC_OK)
      break;
    sum->records++;
  }
  if (rc == CC_OK && (uint64_t)(ftell(r->fp) - start) != n_bytes)
    rc = cc_err_set(r->err, CC_ERR_INPUT, "%s: %llu records take %ld bytes, the header says "
                    "%llu; record the run again", r->path, (unsigned long long)n,
                    ftell(r->fp) - start, (unsigned long long)n_bytes);
  if (rc == CC_OK && cur != UINT32_MAX)
    rc = sink->end_kernel(sink->ctx, r->err);
  return rc;
}

int cc_gpu_raw_convert(const char *path, const struct cc_access_sink *sink,
                       struct cc_gpu_raw_summary *sum, struct cc_err *err)
{
  struct cc_gpu_raw_summary local = {0};
  struct rtrace t = {0};
  struct reader r = {fopen(path, "rb"), path, err, 0};
  int rc;
  if (sum == NULL)
    sum = &local;
  memset(sum, 0, sizeof *sum);
  if (r.fp == NULL)
    return cc_err_set(err, CC_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
  if (fseek(r.fp, 0, SEEK_END) != 0 || (r.size = ftell(r.fp)) < 0 ||
      fseek(r.fp, 0, SEEK_SET) != 0) {
    fclose(r.fp);
    return cc_err_set(err, CC_ERR_INPUT, "cannot read %s: not a seekable file (a GPU trace "
                      "is a file written by libcoalcheck_gpu.so)", path);
  }
  rc = read_tables(&r, &t);
  if (rc == CC_OK)
    rc = stream_records(&r, &t, sink, sum);
  rtrace_free(&t);
  fclose(r.fp);
  return rc;
}
