/* Measuring one launch in the emulator for `coalcheck fix`: the sm_90 analysis of its
 * accesses and a copy of every buffer afterwards, so that the original and a
 * transformed kernel can be compared figure by figure and byte by byte. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/cache.h"
#include "emu/emu.h"
#include "util/mem.h"

void cc_fix_measure_release(struct cc_fix_measure *r)
{
  for (uint32_t i = 0; i < r->nbufs; i++) {
    free(r->bufs[i].name);
    free(r->bufs[i].data);
  }
  free(r->bufs);
  free(r->param_values);
  free(r->param_known);
  cc_analysis_free(r->an);
  cc_model_free(r->model);
  memset(r, 0, sizeof *r);
}

const struct cc_kernel_stats *cc_fix_measure_kernel(const struct cc_fix_measure *r)
{
  return r->an && r->an->n_kernels ? &r->an->kernels[r->an->n_kernels - 1] : NULL;
}

static void copy_buffers(const struct cc_launch_bound *b, struct cc_fix_measure *out)
{
  out->nbufs = b->nbuffers;
  out->bufs = cc_xcalloc(b->nbuffers ? b->nbuffers : 1, sizeof *out->bufs);
  for (uint32_t i = 0; i < b->nbuffers; i++) {
    const struct cc_launch_buffer *s = &b->buffers[i];
    struct cc_fix_buffer *d = &out->bufs[i];
    d->name = cc_xstrdup(s->name ? s->name : "?");
    d->type = s->type;
    d->bytes = s->bytes;
    d->data = cc_xmalloc(s->bytes ? s->bytes : 1);
    if (s->bytes)
      memcpy(d->data, s->host, s->bytes);
  }
}

/* The integer scalar parameters' values, for evaluating the affine forms (affine.h's
 * cc_affine_env): the bytes of each .param as the kernel loads them, extended by its type. */
static void param_values(const struct ptx_function *k, const struct cc_launch_bound *b,
                         struct cc_fix_measure *out)
{
  out->nparams = b->nparams;
  out->param_values = cc_xcalloc(b->nparams ? b->nparams : 1, sizeof *out->param_values);
  out->param_known = cc_xcalloc(b->nparams ? b->nparams : 1, 1);
  for (uint32_t i = 0; i < b->nparams && i < k->nparams; i++) {
    const struct ptx_var *v = &k->vars[k->param_vars[i]];
    unsigned size = b->param_bytes[i];
    uint64_t u = 0;
    if (ptx_type_is_float(v->type) || v->count != 1 || size == 0 || size > 8)
      continue;
    for (unsigned j = 0; j < size; j++)
      u |= (uint64_t)((const uint8_t *)b->params[i])[j] << (8 * j);
    if (ptx_type_is_signed(v->type) && size < 8 && (u >> (8 * size - 1)) & 1)
      u |= ~UINT64_C(0) << (8 * size);
    out->param_values[i] = (int64_t)u;
    out->param_known[i] = 1;
  }
  for (uint32_t i = 0; i < b->nbuffers; i++) /* a buffer's address says nothing of strides */
    for (uint32_t j = 0; j < b->nparams; j++)
      if (b->param_bytes[j] == 8 && memcmp(b->params[j], &b->buffers[i].dev_addr, 8) == 0)
        out->param_known[j] = 0;
}

struct cc_fix_launch cc_fix_launch_make(const struct cc_fix_opts *o, const uint32_t grid[3],
                                       const uint32_t block[3], uint32_t shared_bytes)
{
  struct cc_fix_launch l;
  memset(&l, 0, sizeof l);
  memcpy(l.grid, grid, sizeof l.grid);
  memcpy(l.block, block, sizeof l.block);
  l.shared_bytes = shared_bytes;
  l.args = o->args;
  l.nargs = o->nargs;
  l.max_insns = o->max_insns;
  l.max_memory = o->max_memory;
  return l;
}

/* Applies l's relayouts to the bound buffers: to_fix before the run (to_fix = 1), from_fix
 * after it (to_fix = 0; a relayout without one is skipped). A relayout naming no buffer
 * argument is a bug of the transformation that made it. */
static int apply_relayouts(const struct cc_fix_launch *l, const struct cc_launch_bound *b,
                           int to_fix, struct cc_err *err)
{
  for (uint32_t r = 0; r < l->nrelayouts; r++) {
    const struct cc_fix_relayout *x = &l->relayouts[r];
    uint32_t i = 0;
    while (i < b->nbuffers && (!b->buffers[i].name || strcmp(b->buffers[i].name, x->buffer)))
      i++;
    if (i == b->nbuffers)
      return cc_err_set(err, CC_ERR_INTERNAL, "a fix relays out buffer '%s', which the "
                        "launch does not have", x->buffer);
    if (to_fix)
      x->to_fix(x->ctx, b->buffers[i].host, b->buffers[i].bytes);
    else if (x->from_fix)
      x->from_fix(x->ctx, b->buffers[i].host, b->buffers[i].bytes);
  }
  return CC_OK;
}

/* The sm_90 default device's cache model (src/cache: the H100's L1 per SM, L2, DRAM),
 * so that every measurement also says what reaches L2 and DRAM and how long the kernel
 * should take at least (issue 12: on Hopper the caches can absorb an uncoalesced
 * kernel's re-reads, so sectors alone do not say what a fix gains). */
static int attach_cache(struct cc_analysis *an, struct cc_err *err)
{
  struct cc_cache_device dev;
  int on = 0, rc = cc_cache_device_get("sm_90", NULL, NULL, &dev, &on, err);
  if (rc == CC_OK && on)
    cc_analysis_set_cache(an, cc_cache_new(&dev));
  return rc;
}

int cc_fix_measure(const struct ptx_module *m, const struct ptx_function *k,
                   const struct cc_fix_launch *l, struct cc_fix_measure *out,
                   struct cc_err *err)
{
  struct cc_emu_opts eopts = {.max_warp_insns = l->max_insns, .jobs = 1};
  struct cc_emu *emu;
  struct cc_launch_allocator alloc;
  struct cc_launch_bound bound;
  struct cc_emu_launch launch;
  struct cc_emu_stats stats;
  struct cc_access_sink sink;
  struct timespec t0, t1;
  int rc;
  memset(out, 0, sizeof *out);
  memset(&bound, 0, sizeof bound);
  if ((rc = cc_model_get("sm_90", NULL, &out->model, err)) != CC_OK)
    return rc;
  out->an = cc_analysis_new(out->model);
  if ((rc = attach_cache(out->an, err)) != CC_OK)
    return rc;
  emu = cc_emu_new(m, &eopts);
  alloc = cc_launch_emu_allocator(emu, l->max_memory);
  if ((rc = cc_emu_check(emu, k, err)) != CC_OK ||
      (rc = cc_launch_bind(l->args, l->nargs, k, &alloc, &bound, err)) != CC_OK)
    goto done;
  memset(&launch, 0, sizeof launch);
  memcpy(launch.grid, l->grid, sizeof launch.grid);
  memcpy(launch.block, l->block, sizeof launch.block);
  launch.dynamic_shared_bytes = l->shared_bytes;
  launch.nparams = bound.nparams;
  launch.params = (const void *const *)bound.params;
  launch.param_bytes = bound.param_bytes;
  memset(&stats, 0, sizeof stats);
  if ((rc = apply_relayouts(l, &bound, 1, err)) != CC_OK)
    goto done;
  sink = cc_analysis_sink(out->an);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  rc = cc_emu_run(emu, k, &launch, &sink, &stats, err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc != CC_OK)
    goto done;
  out->warp_insns = stats.warp_insns;
  out->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (!cc_fix_measure_kernel(out)) {
    rc = cc_err_set(err, CC_ERR_NO_FIX, "kernel %s executed no memory instruction; there is "
                    "nothing to fix", k->name);
    goto done;
  }
  apply_relayouts(l, &bound, 0, err);
  copy_buffers(&bound, out);
  param_values(k, &bound, out);
done:
  cc_launch_bound_release(&bound);
  cc_emu_free(emu);
  return rc;
}

/* Element i of a buffer of type t as text (hex bits and value). */
static void element_text(enum ptx_type t, const uint8_t *p, char *buf, size_t size)
{
  if (t == PTX_TYPE_F32) {
    float f;
    uint32_t u;
    memcpy(&f, p, 4);
    memcpy(&u, p, 4);
    snprintf(buf, size, "%.9g (0x%08x)", (double)f, u);
  } else if (t == PTX_TYPE_F64) {
    double d;
    uint64_t u;
    memcpy(&d, p, 8);
    memcpy(&u, p, 8);
    snprintf(buf, size, "%.17g (0x%016llx)", d, (unsigned long long)u);
  } else {
    unsigned n = cc_launch_type_size(t), i;
    int off = 0;
    off += snprintf(buf, size, "0x");
    for (i = n; i-- > 0 && off < (int)size;)
      off += snprintf(buf + off, size - (size_t)off, "%02x", p[i]);
  }
}

int cc_fix_buffers_equal(const struct cc_fix_measure *a, const struct cc_fix_measure *b,
                         char *why, size_t size)
{
  if (a->nbufs != b->nbufs) {
    snprintf(why, size, "%u buffers against %u", a->nbufs, b->nbufs);
    return 0;
  }
  for (uint32_t i = 0; i < a->nbufs; i++) {
    const struct cc_fix_buffer *x = &a->bufs[i], *y = &b->bufs[i];
    unsigned es = cc_launch_type_size(x->type) ? cc_launch_type_size(x->type) : 1;
    char vx[64], vy[64];
    if (x->bytes != y->bytes) {
      snprintf(why, size, "buffer '%s' has %llu bytes against %llu", x->name,
               (unsigned long long)x->bytes, (unsigned long long)y->bytes);
      return 0;
    }
    if (memcmp(x->data, y->data, x->bytes) == 0)
      continue;
    for (uint64_t e = 0; e + es <= x->bytes; e += es) {
      if (memcmp(x->data + e, y->data + e, es) == 0)
        continue;
      element_text(x->type, x->data + e, vx, sizeof vx);
      element_text(y->type, y->data + e, vy, sizeof vy);
      snprintf(why, size, "buffer '%s' differs at element %llu: %s before, %s after", x->name,
               (unsigned long long)(e / es), vx, vy);
      return 0;
    }
    snprintf(why, size, "buffer '%s' differs", x->name);
    return 0;
  }
  return 1;
}
