/* An emulated run as one MPI job (docs/scaling.md): under `mpirun -np N coalcheck ...`
 * each rank emulates a contiguous share of the CTAs with all its threads, and rank 0
 * writes the one report, the single-process report bit for bit. Two ways to get there:
 *   - reduce, when no consumer needs the records in order (no cache model, no --html
 *     views, no trace: cc_cli_outputs_reducible, rank 0's choice for all): each rank
 *     analyses its own CTAs and sends rank 0 its per-instruction figures as bytes
 *     (analysis/pack.c), which rank 0 merges into its open kernel in rank order with the
 *     partials' rules; the message grows with the instructions and their footprints,
 *     not with the records;
 *   - gather, otherwise: ranks 1..N-1 send their records, in CTA order, to rank 0, whose
 *     sink (analyses, cache model, views, trace writer) receives them after its own CTAs
 *     and before end_kernel; rank 0 posts the receive of a rank's next chunk before it
 *     analyses the current one, so the transfer overlaps the analysis.
 * Then each rank's changes to the --dump buffers (bytes that differ from the initial
 * image), applied by rank 0 in rank order, and the rank's end: status, error, counters.
 * Built with MPI when CMake finds MPI_C (COALCHECK_MPI=AUTO|ON|OFF); without it, a run
 * under mpirun with several ranks is refused. */
#include "cli/cli_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* The world size the launcher announces (Open MPI, MPICH/Hydra, PMIx), or 0 outside MPI. */
static long env_world_size(void)
{
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                     "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v)
      return strtol(v, NULL, 10);
  }
  return 0;
}

/* Mixes n bytes at p into h, eight at a time (the tail zero-padded, the length mixed in):
 * a multiply-rotate step per 64-bit word (the round of xxHash64, Collet), about eight
 * times faster than FNV-1a's byte at a time on the run's buffers (rank 0 hashed 128 MiB
 * of a 4096^2 transpose's buffers byte by byte: 11% of its samples). Not a cryptographic
 * hash: it tells ranks with other inputs apart, it does not resist forgery. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;
  const uint64_t k1 = UINT64_C(0x9e3779b185ebca87), k2 = UINT64_C(0xc2b2ae3d27d4eb4f);
  size_t i = 0;
  uint64_t w;
  for (; i + 8 <= n; i += 8) {
    memcpy(&w, b + i, 8);
    h ^= w * k2;
    h = ((h << 31) | (h >> 33)) * k1;
  }
  w = 0;
  if (n > i)
    memcpy(&w, b + i, n - i);
  h ^= (w ^ (uint64_t)n) * k2;
  return ((h << 31) | (h >> 33)) * k1;
}

uint64_t cc_cli_mpi_input_hash(const struct ptx_module *m, const struct ptx_function *k,
                               const struct cc_run_opts *o, const struct cc_launch_bound *b)
{
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (f) {
    ptx_print_module(m, f);
    fclose(f);
    h = hash_bytes(h, text, len);
  }
  free(text);
  h = hash_bytes(h, k->name, strlen(k->name));
  h = hash_bytes(h, o->grid, sizeof o->grid);
  h = hash_bytes(h, o->block, sizeof o->block);
  h = hash_bytes(h, &o->shared_bytes, sizeof o->shared_bytes);
  for (uint32_t i = 0; i < b->nparams; i++)
    h = hash_bytes(h, b->params[i], b->param_bytes[i]);
  for (uint32_t i = 0; i < b->nbuffers; i++)
    h = hash_bytes(h, b->buffers[i].host, b->buffers[i].bytes);
  return h;
}

#ifdef CC_HAVE_MPI
#include <mpi.h>

#include "emu/emu.h"

enum { TAG_RECS = 1, TAG_DUMP, TAG_END, TAG_FIGS };
#define CHUNK_RECS 4096 /* records per message: 1.2 MiB; an empty one ends a rank's */
#define FIGS_PIECE (1 << 30) /* packed figures per message; a shorter piece is the last */
#define TEST_EVERY 512 /* records analysed between two looks at the next chunk's receive */
#define DUMP_CHUNK (UINT64_C(64) << 20)

/* A rank's end: its status, error message and counters. */
struct end_msg {
  int32_t status;
  uint32_t ctas_done;
  uint64_t warp_insns, thread_insns, warp_accesses;
  char msg[CC_ERR_MSG_MAX];
};

struct dump_buf {
  const char *name;  /* the buffer's (borrowed from the options) */
  uint8_t *host;     /* the emulated buffer (the run's memory) */
  uint8_t *initial;  /* its bytes before the run */
  uint8_t *written;  /* rank 0: 1 where a rank's changes landed (conflicts) */
  uint64_t bytes;
};

struct cc_cli_mpi {
  int rank, size;
  int serialized;    /* MPI_THREAD_SERIALIZED: a worker thread may send */
  struct cc_access_sink inner; /* rank 0: the report's sink */
  FILE *spill;       /* rank > 0: the share's records until rank 0 takes them */
  struct cc_warp_access *chunk; /* rank > 0: records not yet sent or spilled */
  size_t n;
  struct dump_buf *dumps;
  size_t ndumps;
  struct cc_emu_stats others; /* rank 0: the other ranks' counters */
  int gathered;      /* rank 0: every rank's messages were received */
  int reduce;        /* the figures are reduced, not the records gathered (rank 0's choice) */
  struct cc_cli_outputs *outs; /* the analyses: ranks > 0 pack theirs, rank 0 merges */
  uint64_t got_recs, got_figs; /* rank 0: records and bytes of figures received (the note) */
};

int cc_cli_mpi_start(struct cc_cli_mpi **out, struct cc_err *err)
{
  struct cc_cli_mpi *m;
  int provided = 0, size = 1;
  *out = NULL;
  if (env_world_size() <= 1)
    return CC_OK;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return cc_err_set(err, CC_ERR_TOOL, "MPI_Init failed under mpirun; run without mpirun");
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size <= 1) {
    MPI_Finalize();
    return CC_OK;
  }
  m = cc_xcalloc(1, sizeof *m);
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  m->size = size;
  m->serialized = provided >= MPI_THREAD_SERIALIZED;
  *out = m;
  return CC_OK;
}

int cc_cli_mpi_rank(const struct cc_cli_mpi *m)
{
  return m ? m->rank : 0;
}

int cc_cli_mpi_threads_ok(const struct cc_cli_mpi *m)
{
  return !m || m->serialized;
}

void cc_cli_mpi_share(const struct cc_cli_mpi *m, uint64_t total, uint64_t *first,
                      uint64_t *count)
{
  /* rank r: [total r / N, total (r+1) / N), contiguous, sizes differing by at most 1
   * (unsigned __int128: total x N may exceed 2^64 for 2^31 x 65535 x 65535 CTAs) */
  unsigned __int128 t = total;
  uint64_t lo = (uint64_t)(t * (unsigned)m->rank / (unsigned)m->size);
  uint64_t hi = (uint64_t)(t * (unsigned)(m->rank + 1) / (unsigned)m->size);
  *first = lo;
  *count = hi - lo;
  if (*count == 0) /* more ranks than CTAs: an empty share, not "all" */
    *first = total;
}

int cc_cli_mpi_check_inputs(struct cc_cli_mpi *m, uint64_t hash, struct cc_err *err)
{
  uint64_t *all = cc_xcalloc((size_t)m->size, sizeof *all);
  unsigned long long theirs = 0, ours;
  int bad = -1;
  MPI_Allgather(&hash, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 1; r < m->size && bad < 0; r++)
    if (all[r] != all[0]) {
      bad = r;
      theirs = all[r];
    }
  ours = all[0];
  free(all);
  if (bad < 0)
    return CC_OK;
  return cc_err_set(err, CC_ERR_INPUT, "rank %d of the MPI job has other inputs than rank 0 "
                    "(the PTX, the launch or a buffer's contents differ: input hash %016llx, "
                    "rank 0's %016llx); every rank must run the same kernel on the same files",
                    bad, theirs, ours);
}

static void free_dumps(struct cc_cli_mpi *m)
{
  for (size_t i = 0; i < m->ndumps; i++) {
    free(m->dumps[i].initial);
    free(m->dumps[i].written);
  }
  free(m->dumps);
  m->dumps = NULL;
  m->ndumps = 0;
}

void cc_cli_mpi_keep_dumps(struct cc_cli_mpi *m, const struct cc_run_opts *o,
                           const struct cc_launch_bound *b)
{
  free_dumps(m); /* a selection of several launches: the last one's */
  m->dumps = cc_xcalloc(o->ndumps ? o->ndumps : 1, sizeof *m->dumps);
  for (size_t i = 0; i < o->ndumps; i++) {
    const struct cc_launch_buffer *buf = cc_launch_find_buffer(b, o->dumps[i].name);
    struct dump_buf *d = &m->dumps[m->ndumps++];
    if (!buf)
      continue; /* check_dumps refused it already */
    d->name = o->dumps[i].name;
    d->host = buf->host;
    d->bytes = buf->bytes;
    d->initial = cc_xmalloc(d->bytes ? d->bytes : 1);
    memcpy(d->initial, d->host, d->bytes);
  }
}

int cc_cli_mpi_choose_reduce(struct cc_cli_mpi *m, int reducible)
{
  m->reduce = reducible;
  MPI_Bcast(&m->reduce, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return m->reduce;
}

/* ---- ranks > 0: send ---------------------------------------------------------------- */

/* Rank 0 takes a rank's records only after those of the ranks before it: a blocking send
 * per chunk would stall this rank's emulation for as long. The records go to an unlinked
 * temporary file instead (memory stays bounded), sent when the share is done; without
 * one, each chunk is sent as it fills. */
static void spill_chunk(struct cc_cli_mpi *m)
{
  if (!m->n)
    return;
  if (!m->spill || fwrite(m->chunk, sizeof *m->chunk, m->n, m->spill) != m->n)
    MPI_Send(m->chunk, (int)(m->n * sizeof *m->chunk), MPI_BYTE, 0, TAG_RECS, MPI_COMM_WORLD);
  m->n = 0;
}

static int forward_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_cli_mpi *m = ctx;
  (void)err;
  m->chunk[m->n++] = *a;
  if (m->n == CHUNK_RECS)
    spill_chunk(m);
  return CC_OK;
}

static int forward_end(void *ctx, struct cc_err *err)
{
  (void)err;
  spill_chunk(ctx);
  return CC_OK;
}

void cc_cli_mpi_forward_sink(struct cc_cli_mpi *m, struct cc_access_sink *out)
{
  if (!m->chunk) /* one per job: a selection runs several launches */
    m->chunk = cc_xmalloc(CHUNK_RECS * sizeof *m->chunk);
  m->spill = tmpfile();
  *out = (struct cc_access_sink){m, NULL, forward_access, forward_end};
}

/* Sends the spilled records to rank 0 in chunks. */
static void send_spill(struct cc_cli_mpi *m)
{
  size_t n;
  spill_chunk(m); /* a run that stopped before end_kernel */
  if (!m->spill)
    return;
  rewind(m->spill);
  while ((n = fread(m->chunk, sizeof *m->chunk, CHUNK_RECS, m->spill)) > 0)
    MPI_Send(m->chunk, (int)(n * sizeof *m->chunk), MPI_BYTE, 0, TAG_RECS, MPI_COMM_WORLD);
  fclose(m->spill);
  m->spill = NULL;
}

/* end_kernel of a rank > 0 that reduces: its analyses' figures of the kernel, packed, to
 * rank 0 in pieces of at most FIGS_PIECE bytes (the last one shorter, maybe empty), then
 * the analyses' own end_kernel. Sent even after a failure (rank 0 then ignores them). */
static int reduce_end(void *ctx, struct cc_err *err)
{
  struct cc_cli_mpi *m = ctx;
  uint8_t *buf;
  size_t len, at = 0;
  cc_cli_outputs_pack(m->outs, &buf, &len);
  for (;;) {
    size_t piece = len - at < FIGS_PIECE ? len - at : FIGS_PIECE;
    MPI_Send(buf + at, (int)piece, MPI_BYTE, 0, TAG_FIGS, MPI_COMM_WORLD);
    at += piece;
    if (piece < FIGS_PIECE)
      break;
  }
  free(buf);
  return m->inner.end_kernel ? m->inner.end_kernel(m->inner.ctx, err) : CC_OK;
}

/* begin_kernel and access of the wrapping sinks (reduce and gather): the inner sink's */
static int pass_begin(void *ctx, const struct cc_kernel_info *k, struct cc_err *err)
{
  struct cc_cli_mpi *m = ctx;
  return m->inner.begin_kernel ? m->inner.begin_kernel(m->inner.ctx, k, err) : CC_OK;
}

static int pass_access(void *ctx, const struct cc_warp_access *a, struct cc_err *err)
{
  struct cc_cli_mpi *m = ctx;
  return m->inner.access(m->inner.ctx, a, err);
}

void cc_cli_mpi_reduce_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink)
{
  m->outs = outs;
  m->inner = *sink;
  *sink = (struct cc_access_sink){m, pass_begin, pass_access, reduce_end};
}

/* Sends the bytes of d that differ from its initial image as runs (offset, length, bytes)
 * in messages of at most DUMP_CHUNK bytes, then an empty message. */
static void send_changes(const struct dump_buf *d)
{
  uint8_t *msg = cc_xmalloc(DUMP_CHUNK + 16);
  uint64_t used = 0, i = 0;
  while (i < d->bytes) {
    uint64_t j, len;
    if (d->host[i] == d->initial[i]) {
      i++;
      continue;
    }
    for (j = i; j < d->bytes && j - i < DUMP_CHUNK - 16 && d->host[j] != d->initial[j]; j++) {
    }
    len = j - i;
    if (used + 16 + len > DUMP_CHUNK) {
      MPI_Send(msg, (int)used, MPI_BYTE, 0, TAG_DUMP, MPI_COMM_WORLD);
      used = 0;
    }
    memcpy(msg + used, &i, 8);
    memcpy(msg + used + 8, &len, 8);
    memcpy(msg + used + 16, d->host + i, len);
    used += 16 + len;
    i = j;
  }
  if (used)
    MPI_Send(msg, (int)used, MPI_BYTE, 0, TAG_DUMP, MPI_COMM_WORLD);
  MPI_Send(msg, 0, MPI_BYTE, 0, TAG_DUMP, MPI_COMM_WORLD);
  free(msg);
}

void cc_cli_mpi_send_end(struct cc_cli_mpi *m, int status, const struct cc_err *err,
                         const struct cc_emu_stats *st)
{
  struct end_msg e;
  memset(&e, 0, sizeof e);
  send_spill(m);
  if (!m->reduce)
    MPI_Send(&e, 0, MPI_BYTE, 0, TAG_RECS, MPI_COMM_WORLD); /* the records' end */
  if (status == CC_OK)
    for (size_t i = 0; i < m->ndumps; i++)
      if (m->dumps[i].host)
        send_changes(&m->dumps[i]);
  e.status = status;
  e.ctas_done = st->ctas_done;
  e.warp_insns = st->warp_insns;
  e.thread_insns = st->thread_insns;
  e.warp_accesses = st->warp_accesses;
  if (status)
    snprintf(e.msg, sizeof e.msg, "%s", err->msg);
  MPI_Send(&e, (int)sizeof e, MPI_BYTE, 0, TAG_END, MPI_COMM_WORLD);
}

/* ---- rank 0: gather ---------------------------------------------------------------- */

/* Receives the next message from rank r into *buf (grown), its tag and size. */
static void recv_any(int r, uint8_t **buf, size_t *cap, int *tag, size_t *bytes)
{
  MPI_Status st;
  int n;
  MPI_Probe(r, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_BYTE, &n);
  if ((size_t)n > *cap) {
    *cap = (size_t)n;
    *buf = cc_xrealloc(*buf, *cap);
  }
  MPI_Recv(*buf, n, MPI_BYTE, r, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  *tag = st.MPI_TAG;
  *bytes = (size_t)n;
}

/* Rank 0, once its own CTAs are done: marks the bytes of each dump it changed. */
static void mark_own_changes(struct cc_cli_mpi *m)
{
  for (size_t i = 0; i < m->ndumps; i++) {
    struct dump_buf *d = &m->dumps[i];
    if (!d->host)
      continue;
    free(d->written);
    d->written = cc_xcalloc(d->bytes ? d->bytes : 1, 1);
    for (uint64_t b = 0; b < d->bytes; b++)
      d->written[b] = d->host[b] != d->initial[b];
  }
}

/* Applies one message of rank r's changed runs to dump d. The merge is the serial run's
 * buffer only when the ranks change disjoint bytes (CTAs writing their own elements);
 * bytes that a lower rank changed too (atomics on shared counters, overlapping writes)
 * make it refuse: CC_ERR_UNSUPPORTED naming the buffer, the offset and the rank. */
static int apply_changes(struct dump_buf *d, int r, const uint8_t *msg, size_t bytes,
                         struct cc_err *err)
{
  size_t at = 0;
  while (at + 16 <= bytes) {
    uint64_t off, len;
    memcpy(&off, msg + at, 8);
    memcpy(&len, msg + at + 8, 8);
    if (off > d->bytes || len > d->bytes - off || len > bytes - at - 16)
      return cc_err_set(err, CC_ERR_INTERNAL, "rank %d sent a bad change of buffer '%s'", r,
                        d->name);
    for (uint64_t b = off; b < off + len; b++)
      if (d->written[b])
        return cc_err_set(err, CC_ERR_UNSUPPORTED, "--dump %s under MPI: rank %d changes byte "
                          "%llu of buffer '%s', which a lower rank changed too (atomics or "
                          "overlapping writes): the merged buffer would not be the "
                          "single-process one; dump it from a run without mpirun", d->name, r,
                          (unsigned long long)b, d->name);
    memset(d->written + off, 1, len);
    memcpy(d->host + off, msg + at + 16, len);
    at += 16 + len;
  }
  return CC_OK;
}

/* The receive of a rank's next chunk of records. */
struct next_chunk {
  MPI_Request req;
  MPI_Status st;     /* valid once done */
  int done;          /* a test completed it (the request is MPI_REQUEST_NULL then) */
};

/* Analyses n records of a chunk (while *s is 0), testing the receive of the next chunk
 * every TEST_EVERY records: Open MPI moves a large message's bytes only inside its calls,
 * so the tests let the transfer proceed during the analysis. */
static void analyse_chunk(struct cc_cli_mpi *m, const struct cc_warp_access *a, size_t n,
                          struct next_chunk *next, int *s, struct cc_err *err)
{
  m->got_recs += n;
  for (size_t j = 0; j < n && !*s; j++) {
    *s = m->inner.access(m->inner.ctx, &a[j], err);
    if (j % TEST_EVERY == TEST_EVERY - 1 && !next->done)
      MPI_Test(&next->req, &next->done, &next->st);
  }
}

/* Receives rank r's records up to their end (an empty chunk), double-buffered: the
 * receive of the next chunk is posted before the current one is analysed, so rank r's
 * send (and Open MPI's copy) overlaps rank 0's analysis instead of waiting for it. */
static void gather_records(struct cc_cli_mpi *m, int r, int *s, struct cc_err *err)
{
  const int cap = CHUNK_RECS * (int)sizeof(struct cc_warp_access);
  struct cc_warp_access *buf[2];
  struct next_chunk next;
  int n, i = 0;
  buf[0] = cc_xmalloc((size_t)cap);
  buf[1] = cc_xmalloc((size_t)cap);
  memset(&next, 0, sizeof next);
  MPI_Irecv(buf[0], cap, MPI_BYTE, r, TAG_RECS, MPI_COMM_WORLD, &next.req);
  for (;; i ^= 1) {
    if (!next.done)
      MPI_Wait(&next.req, &next.st);
    MPI_Get_count(&next.st, MPI_BYTE, &n);
    if (n == 0)
      break;
    next.done = 0;
    MPI_Irecv(buf[i ^ 1], cap, MPI_BYTE, r, TAG_RECS, MPI_COMM_WORLD, &next.req);
    analyse_chunk(m, buf[i], (size_t)n / sizeof(struct cc_warp_access), &next, s, err);
  }
  free(buf[0]);
  free(buf[1]);
}

/* Merges rank r's packed figures (*figs, *nfigs bytes so far, to which the piece of
 * bytes in buf is added) once their last piece came (while *s is 0). */
static void take_figs(struct cc_cli_mpi *m, uint8_t **figs, size_t *nfigs, const uint8_t *buf,
                      size_t bytes, int *s, struct cc_err *err)
{
  *figs = cc_xrealloc(*figs, *nfigs + bytes + 1);
  memcpy(*figs + *nfigs, buf, bytes);
  *nfigs += bytes;
  if (bytes == FIGS_PIECE)
    return;
  m->got_figs += *nfigs;
  if (!*s)
    *s = m->outs ? cc_cli_outputs_merge_packed(m->outs, *figs, *nfigs, err)
                 : cc_err_set(err, CC_ERR_INTERNAL, "an MPI rank sent figures to a run that "
                              "gathers records: report this bug");
  *nfigs = 0;
}

/* Receives rank r's records (to the inner sink while *s is 0) or figures, dump changes
 * and end. *s becomes the first failure in CTA order: a sink's, or the rank's own. */
static void gather_rank(struct cc_cli_mpi *m, int r, int *s, struct cc_err *err)
{
  uint8_t *buf = NULL, *figs = NULL;
  size_t cap = 0, bytes, dump = 0, nfigs = 0;
  int tag;
  if (!m->reduce)
    gather_records(m, r, s, err);
  for (;;) {
    recv_any(r, &buf, &cap, &tag, &bytes);
    if (tag == TAG_FIGS) {
      take_figs(m, &figs, &nfigs, buf, bytes, s, err);
    } else if (tag == TAG_DUMP) {
      if (bytes == 0)
        dump++;
      else if (dump < m->ndumps && m->dumps[dump].host && !*s)
        *s = apply_changes(&m->dumps[dump], r, buf, bytes, err);
    } else if (tag == TAG_END) {
      struct end_msg e;
      memcpy(&e, buf, sizeof e);
      m->others.ctas_done += e.ctas_done;
      m->others.warp_insns += e.warp_insns;
      m->others.thread_insns += e.thread_insns;
      m->others.warp_accesses += e.warp_accesses;
      if (!*s && e.status)
        *s = cc_err_set(err, (enum cc_status)e.status, "%s", e.msg);
      break;
    }
  }
  free(figs);
  free(buf);
}

/* end_kernel of rank 0's sink: the other ranks' CTAs, in rank order, then the report's
 * own end_kernel. Every message is received even after a failure, so no rank waits. */
static int gather_end(void *ctx, struct cc_err *err)
{
  struct cc_cli_mpi *m = ctx;
  struct cc_err scratch;
  int s = CC_OK;
  mark_own_changes(m);
  for (int r = 1; r < m->size; r++)
    gather_rank(m, r, &s, err);
  m->gathered = 1;
  memset(&scratch, 0, sizeof scratch);
  if (m->inner.end_kernel) {
    int s2 = m->inner.end_kernel(m->inner.ctx, s ? &scratch : err);
    if (!s)
      s = s2;
  }
  return s;
}

void cc_cli_mpi_gather_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink)
{
  m->outs = outs;
  m->inner = *sink;
  *sink = (struct cc_access_sink){m, pass_begin, pass_access, gather_end};
}

void cc_cli_mpi_add_stats(const struct cc_cli_mpi *m, struct cc_emu_stats *st)
{
  st->ctas_done += m->others.ctas_done;
  st->warp_insns += m->others.warp_insns;
  st->thread_insns += m->others.thread_insns;
  st->warp_accesses += m->others.warp_accesses;
}

void cc_cli_mpi_note(struct cc_cli_mpi *m, const char *kernel, FILE *f)
{
  if (m->reduce)
    fprintf(f, "coalcheck: note: kernel %s: %d MPI ranks reduced their per-instruction "
            "figures to rank 0 (%llu bytes received)\n", kernel, m->size,
            (unsigned long long)m->got_figs);
  else
    fprintf(f, "coalcheck: note: kernel %s: %d MPI ranks gathered %llu warp records on rank "
            "0 (a cache model, --html or a trace needs them in order)\n", kernel, m->size,
            (unsigned long long)m->got_recs);
  m->got_figs = m->got_recs = 0;
}

int cc_cli_mpi_finish(struct cc_cli_mpi *m, int rc, struct cc_err *err)
{
  if (!m)
    return rc;
  /* rank 0 failed before its sink's end (before the run, or its sink refused the
   * kernel): the other ranks may still be sending; end the job, naming the error */
  if (m->rank == 0 && rc != CC_OK && !m->gathered) {
    fprintf(stderr, "coalcheck: error: %s\n", err->msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  MPI_Finalize();
  free_dumps(m);
  free(m->chunk);
  free(m);
  return rc;
}

#else /* no MPI: refuse a run under mpirun with several ranks */

int cc_cli_mpi_start(struct cc_cli_mpi **out, struct cc_err *err)
{
  long n = env_world_size();
  *out = NULL;
  if (n > 1)
    return cc_err_set(err, CC_ERR_USAGE, "running as one of %ld MPI ranks, but this coalcheck "
                      "was built without MPI; install libopenmpi-dev and rebuild "
                      "(-DCOALCHECK_MPI=ON), or run it without mpirun", n);
  return CC_OK;
}

int cc_cli_mpi_rank(const struct cc_cli_mpi *m)
{
  (void)m;
  return 0;
}

int cc_cli_mpi_threads_ok(const struct cc_cli_mpi *m)
{
  (void)m;
  return 1;
}

void cc_cli_mpi_share(const struct cc_cli_mpi *m, uint64_t total, uint64_t *first,
                      uint64_t *count)
{
  (void)m;
  (void)total;
  *first = *count = 0;
}

int cc_cli_mpi_check_inputs(struct cc_cli_mpi *m, uint64_t hash, struct cc_err *err)
{
  (void)m;
  (void)hash;
  (void)err;
  return CC_OK;
}

void cc_cli_mpi_keep_dumps(struct cc_cli_mpi *m, const struct cc_run_opts *o,
                           const struct cc_launch_bound *b)
{
  (void)m;
  (void)o;
  (void)b;
}

void cc_cli_mpi_forward_sink(struct cc_cli_mpi *m, struct cc_access_sink *out)
{
  (void)m;
  memset(out, 0, sizeof *out);
}

void cc_cli_mpi_send_end(struct cc_cli_mpi *m, int status, const struct cc_err *err,
                         const struct cc_emu_stats *st)
{
  (void)m;
  (void)status;
  (void)err;
  (void)st;
}

int cc_cli_mpi_choose_reduce(struct cc_cli_mpi *m, int reducible)
{
  (void)m;
  return reducible;
}

void cc_cli_mpi_reduce_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink)
{
  (void)m;
  (void)outs;
  (void)sink;
}

void cc_cli_mpi_gather_sink(struct cc_cli_mpi *m, struct cc_cli_outputs *outs,
                            struct cc_access_sink *sink)
{
  (void)m;
  (void)outs;
  (void)sink;
}

void cc_cli_mpi_note(struct cc_cli_mpi *m, const char *kernel, FILE *f)
{
  (void)m;
  (void)kernel;
  (void)f;
}

void cc_cli_mpi_add_stats(const struct cc_cli_mpi *m, struct cc_emu_stats *st)
{
  (void)m;
  (void)st;
}

int cc_cli_mpi_finish(struct cc_cli_mpi *m, int rc, struct cc_err *err)
{
  (void)m;
  (void)err;
  return rc;
}
#endif
