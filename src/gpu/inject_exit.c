/* coalcheck gpu: the injection library's report at exit (inject_impl.h): SASS map from
 * nvdisasm, the fast mode's estimates, the GPU trace, the text table and the JSON report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/inject_impl.h"
#include "util/fileio.h"
#include "util/mem.h"

static const char *nvdisasm_path(void)
{
  const char *p = getenv("COALCHECK_NVDISASM");
  if (p && *p)
    return p;
  static char buf[4096];
  const char *home = getenv("CUDA_HOME");
  snprintf(buf, sizeof buf, "%s/bin/nvdisasm", home && *home ? home : "/usr/local/cuda");
  if (access(buf, X_OK) == 0)
    return buf;
  return "nvdisasm";
}

/* Runs nvdisasm -gi on the module's cubin and parses it; on failure m->sass stays empty. */
static void disassemble(struct state *s, struct mod_rec *m)
{
  m->sass_done = 1;
  if (m->cubin == NULL)
    return;
  char tmp[] = "/tmp/coalcheck-cubin-XXXXXX";
  int fd = mkstemp(tmp);
  if (fd < 0)
    return;
  int ok = write(fd, m->cubin, m->cubin_size) == (ssize_t)m->cubin_size;
  close(fd);
  char cmd[8192];
  /* -gi: line information with the call sites of inlined code (an atomicAdd of a CUDA
   * header is reported on the user's line that called it, as the emulator does) */
  snprintf(cmd, sizeof cmd, "'%s' -gi -c '%s' 2>/dev/null", nvdisasm_path(), tmp);
  FILE *p = ok ? popen(cmd, "r") : NULL;
  if (p != NULL) {
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - len - 1, p)) > 0) {
      len += got;
      if (cap - len < 4096) {
        char *t = realloc(text, cap * 2);
        if (t == NULL)
          CC_BUG("out of memory");
        text = t;
        cap *= 2;
      }
    }
    pclose(p);
    if (text) {
      text[len] = '\0';
      struct cc_err e = {0};
      if (cc_gpu_sassmap_parse(&m->sass, text, "nvdisasm output", &e) != CC_OK &&
          s->err.status == CC_OK)
        s->err = e;
      free(text);
    }
  }
  unlink(tmp);
}

/* The instruction table of one function for the trace: every slot the in-situ counters
 * saw (the same table as the JSON report), with its SASS text and line. */
static void trace_func(const struct func_rec *f, const struct mod_rec *m,
                       struct cc_gpu_raw_func *rf)
{
  struct cc_gpu_raw_insn *ins = calloc(f->n_slots + 1, sizeof *ins);
  if (ins == NULL)
    CC_BUG("out of memory");
  size_t n = 0;
  for (uint32_t slot = 0; slot <= f->n_slots; slot++) {
    const struct cc_gpu_pc_stats *st = &f->stats[slot];
    if (st->requests == 0)
      continue;
    const struct cc_gpu_sass_insn *si =
        m && slot < f->n_slots ? cc_gpu_sassmap_find(&m->sass, f->mangled,
                                                     slot * CC_GPU_INSN_BYTES) : NULL;
    struct cc_gpu_raw_insn *in = &ins[n++];
    in->slot = slot;
    in->sass = si ? si->text : slot == f->n_slots ? "(outside the kernel)" : NULL;
    in->kind = cc_gpu_stats_kind(st, in->sass);
    in->space = cc_gpu_stats_space(st);
    in->size = cc_gpu_stats_size(st);
    if (si) {
      in->file = si->file, in->line = si->line;
      in->inl_file = si->inl_file, in->inl_line = si->inl_line;
    }
  }
  *rf = (struct cc_gpu_raw_func){.name = f->name, .mangled = f->mangled,
                                 .n_slots = f->n_slots, .n = n, .insns = ins};
}

/* Ends the drain thread (once every reserved record is spooled) and writes the GPU trace
 * (trace.c) to $COALCHECK_GPU_TRACE, whole or not at all. Disassembly is done. */
static void trace_finish(struct state *s)
{
  if (s->drainer_started) {
    while (__atomic_load_n(&s->drained, __ATOMIC_ACQUIRE) < s->reserved)
      usleep(20);
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    pthread_join(s->drainer, NULL);
    s->drainer_started = 0;
  }
  if (s->trace_path == NULL || s->n_mods == 0)
    return;
  struct cc_gpu_raw_func *rf = calloc(s->n_funcs + 1, sizeof *rf);
  uint32_t *map = calloc(s->n_funcs + 1, sizeof *map);
  if (rf == NULL || map == NULL)
    CC_BUG("out of memory");
  size_t nf = 0;
  for (size_t i = 0; i < s->n_funcs; i++) {
    const struct func_rec *f = &s->funcs[i];
    if (f->launches == 0 || f->stats == NULL)
      continue;
    map[i] = (uint32_t)nf;
    trace_func(f, f->mod < s->n_mods ? &s->mods[f->mod] : NULL, &rf[nf++]);
  }
  for (size_t i = 0; i < s->n_launches; i++)
    s->launches[i].func = map[s->launches[i].func];
  struct cc_outfile out;
  struct cc_err e = {0};
  uint64_t n = s->spool_recs; /* the drain thread has ended */
  if (s->bad_chunks > 0) /* s->err has been printed by now: say it here */
    fprintf(stderr, "coalcheck-gpu: error: trace: %llu copies of the device buffer were not "
            "whole warp records and are missing from the trace (a bug: please report it)\n",
            (unsigned long long)s->bad_chunks);
  if (s->spool)
    fflush(s->spool);
  if (__atomic_load_n(&s->spool_failed, __ATOMIC_ACQUIRE))
    cc_err_set(&e, CC_ERR_IO, "the trace spool in /tmp could not be written (disk full?); "
               "no trace written");
  else if (cc_outfile_open(&out, s->trace_path, &e) == CC_OK) {
    if (cc_gpu_raw_write(out.fp, rf, nf, s->launches, s->n_launches, s->spool, n,
                         s->spool_bytes, s->trace_path, &e) != CC_OK)
      cc_outfile_abort(&out);
    else
      cc_outfile_commit(&out, &e);
  }
  if (e.status != CC_OK)
    fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
  else if (!s->quiet)
    fprintf(stderr, "coalcheck-gpu: trace: %llu warp records (%llu bytes) of %zu launches "
            "in %s%s\n", (unsigned long long)n, (unsigned long long)s->spool_bytes,
            s->n_launches, s->trace_path,
            s->overflowed ? "; the device buffer filled up (COALCHECK_GPU_TRACE_BUFFER)" : "");
  for (size_t i = 0; i < nf; i++)
    free((void *)rf[i].insns);
  free(rf);
  free(map);
}

/* Fast mode: the function's statistics become the estimates over its strata (sample.h),
 * plus what its graph-node launches counted exactly; the bounds are kept for the report. */
static void estimate(struct func_rec *f)
{
  if (f->strata.n == 0 || f->stats == NULL)
    return;
  size_t n = f->n_slots + 1;
  struct cc_gpu_pc_stats *est = malloc(n * sizeof *est);
  f->bound_req = malloc(n * sizeof *f->bound_req);
  f->bound_sec = malloc(n * sizeof *f->bound_sec);
  if (est == NULL || f->bound_req == NULL || f->bound_sec == NULL)
    CC_BUG("out of memory");
  cc_gpu_strata_estimate(&f->strata, f->n_slots, est, f->bound_req, f->bound_sec, &f->sum);
  for (size_t i = 0; i < n; i++)
    cc_gpu_stats_merge(&est[i], &f->stats[i]);
  free(f->stats);
  f->stats = est;
}

/* COALCHECK_GPU_PROFILE=1: the breakdown, one line, key=value (bench/gpu-overhead.sh
 * reads it). Times in ms. */
static void prof_print(const struct state *s)
{
  const struct prof *p = &s->prof;
  fprintf(stderr, "coalcheck-gpu-profile: mode=%s launches=%llu patched=%llu switches=%llu "
          "flushes=%llu empty=%llu deferred=%llu load_ms=%.3f switch_ms=%.3f begin_ms=%.3f "
          "wait_ms=%.3f read_ms=%.3f merge_ms=%.3f finish_ms=%.3f\n",
          s->exact ? "exact" : "fast", (unsigned long long)p->launches,
          (unsigned long long)p->patched, (unsigned long long)p->switches,
          (unsigned long long)p->flushes, (unsigned long long)p->empty,
          (unsigned long long)p->deferred, p->load * 1e3,
          p->sw * 1e3, p->begin * 1e3, p->wait * 1e3, p->read * 1e3, p->merge * 1e3,
          p->finish * 1e3);
}

/* Declared in inject_impl.h. */
void cc_gpu_inj_finish(struct state *s)
{
  pthread_mutex_lock(&s->lock);
  s->depth++; /* callbacks raised from here on (teardown) are ignored */
  double t0 = cc_gpu_inj_now();
  cc_gpu_inj_flush_pending_all(s, NULL, NULL); /* the context is alive: no destroy callback came */
  for (size_t i = 0; i < s->n_funcs; i++)
    estimate(&s->funcs[i]);
  /* graph launches whose flush was deferred (several host threads) and that no later
   * launch end flushed: read now, on the last graph's stream (the application may have
   * destroyed it: then the error says these counts are missing) */
  for (size_t i = 0; i < s->n_funcs; i++)
    if (s->funcs[i].graph_dirty) {
      s->funcs[i].graph_dirty = 0;
      if (cc_gpu_inj_check(s, sanitizerStreamSynchronize(s->last_graph_stream),
                "sanitizerStreamSynchronize (graph launches at exit)") == 0)
        cc_gpu_inj_flush(s, &s->funcs[i], s->last_graph_stream, s->funcs[i].stats);
    }
  unsetenv("LD_PRELOAD"); /* nvdisasm must not load this library again */
  size_t nk = 0;
  struct cc_gpu_kernel_report *ks = calloc(s->n_funcs + 1, sizeof *ks);
  int no_lines = 0, no_sass = 0;
  for (size_t i = 0; ks && i < s->n_funcs; i++) {
    struct func_rec *f = &s->funcs[i];
    if (f->launches == 0 || f->stats == NULL)
      continue;
    struct mod_rec *m = f->mod < s->n_mods ? &s->mods[f->mod] : NULL;
    if (m && !m->sass_done)
      disassemble(s, m);
    struct cc_gpu_kernel_report *k = &ks[nk++];
    k->name = f->name;
    k->mangled = f->mangled;
    memcpy(k->grid, f->grid, sizeof k->grid);
    memcpy(k->block, f->block, sizeof k->block);
    k->launches = f->launches;
    k->sampled_launches = f->sum.sampled + (f->launches - f->sum.launches);
    k->bound_requests = f->sum.bound_req;
    k->bound_sectors = f->sum.bound_sec;
    k->outside_requests = f->stats[f->n_slots].requests;
    k->insns = calloc(f->n_slots + 1, sizeof *k->insns);
    for (uint32_t slot = 0; k->insns && slot < f->n_slots; slot++) {
      if (f->stats[slot].requests == 0)
        continue;
      struct cc_gpu_insn_report *in = &k->insns[k->n++];
      in->sass_offset = slot * CC_GPU_INSN_BYTES;
      in->st = f->stats[slot];
      in->bound_requests = f->bound_req ? f->bound_req[slot] : 0.0;
      in->bound_sectors = f->bound_sec ? f->bound_sec[slot] : 0.0;
      const struct cc_gpu_sass_insn *si =
          m ? cc_gpu_sassmap_find(&m->sass, f->mangled, in->sass_offset) : NULL;
      if (si) {
        in->sass = si->text;
        in->file = si->file;
        in->line = si->line;
        in->inl_file = si->inl_file;
        in->inl_line = si->inl_line;
      }
      no_sass |= si == NULL;
      no_lines |= m && m->sass.n > 0 && !m->sass.has_lines;
    }
  }
  if (no_sass)
    fprintf(stderr, "coalcheck-gpu: warning: no SASS text for some instructions: nvdisasm "
            "(%s) missing or failed; set COALCHECK_NVDISASM; reporting sass offsets\n",
            nvdisasm_path());
  if (no_lines)
    fprintf(stderr, "coalcheck-gpu: warning: no line information: build the application "
            "with -lineinfo; reporting sass offsets\n");
  if (s->err.status != CC_OK)
    fprintf(stderr, "coalcheck-gpu: error: %s\n", s->err.msg);
  trace_finish(s);
  if (s->sample > 1 && !s->quiet)
    fprintf(stderr, "coalcheck-gpu: CTA sampling: only CTAs whose linear id %% %u == 0 "
            "were counted%s; figures cover that sample\n", s->sample,
            s->trace_path ? " and traced" : "");
  if (s->n_mods == 0) { /* no CUDA module in this process (a helper child): no report */
    free(ks);
    pthread_mutex_unlock(&s->lock);
    return;
  }
  if (!s->quiet && ks)
    cc_gpu_report_write_text(stderr, ks, nk);
  if (s->json_path && ks) {
    struct cc_outfile out;
    struct cc_err e = {0};
    if (cc_outfile_open(&out, s->json_path, &e) == CC_OK) {
      if (cc_gpu_report_write_json(out.fp, getenv("COALCHECK_GPU_DEVICE"), ks, nk, &e) != CC_OK)
        cc_outfile_abort(&out);
      else
        cc_outfile_commit(&out, &e);
    }
    if (e.status != CC_OK)
      fprintf(stderr, "coalcheck-gpu: error: %s\n", e.msg);
  }
  for (size_t i = 0; ks && i < nk; i++)
    free(ks[i].insns);
  free(ks);
  s->prof.finish = cc_gpu_inj_now() - t0;
  if (s->profile)
    prof_print(s);
  pthread_mutex_unlock(&s->lock);
}
