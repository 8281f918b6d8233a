/* The source transformations of `coalcheck fix` (issue 10; CGO 2015 Sec. 4.3-4.4 and
 * beyond): each selected transformation proposes candidates (lift.c, redistribute.c,
 * tile.c, soa.c); every candidate is compiled, emulated on the original's launch with
 * its own geometry, and compared with the original, before any is chosen. See
 * fix_impl.h. */
#include "fix/fix_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

void cc_fix_xcand_release(struct cc_fix_xcand *c)
{
  free(c->text);
  cc_fix_relayouts_free(c->relayouts, c->nrelayouts);
  free(c->extra_name);
  free(c->extra_text);
  free(c->launch_note);
  cc_fix_measure_release(&c->run);
  memset(c, 0, sizeof *c);
}

/* The transformations in the order `--transform auto` tries them. */
static const struct {
  enum cc_fix_transform t;
  const char *name;
  cc_fix_xform_fn fn;
} xforms[] = {
  {CC_FIX_T_LIFT, "lift", cc_fix_lift},
  {CC_FIX_T_REDISTRIBUTE, "redistribute", cc_fix_redistribute},
  {CC_FIX_T_TILE, "tile", cc_fix_tile},
  {CC_FIX_T_SOA, "soa", cc_fix_soa},
  {CC_FIX_T_PAD, "pad", cc_fix_pad},
};

const char *cc_fix_transform_name(enum cc_fix_transform t)
{
  switch (t) {
  case CC_FIX_T_AUTO: return "auto";
  case CC_FIX_T_PERMUTE: return "permute";
  case CC_FIX_T_LIFT: return "lift";
  case CC_FIX_T_REDISTRIBUTE: return "redistribute";
  case CC_FIX_T_TILE: return "tile";
  case CC_FIX_T_SOA: return "soa";
  case CC_FIX_T_PAD: return "pad";
  }
  return "?";
}

void cc_fix_setf(char *dst, size_t size, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(dst, size, fmt, ap);
  va_end(ap);
}

/* reason with each run of white space made one space, cut to CC_FIX_REFUSAL_MAX bytes
 * ("..." ending a cut one), into buf (CC_FIX_REFUSAL_MAX + 4 bytes) */
static void one_line(const char *reason, char *buf)
{
  size_t n = 0;
  const char *s = reason;
  for (; *s && n < CC_FIX_REFUSAL_MAX; s++) {
    if (isspace((unsigned char)*s)) {
      if (n > 0 && buf[n - 1] == ' ')
        continue;
      buf[n++] = ' ';
    } else {
      buf[n++] = *s;
    }
  }
  if (*s)
    memcpy(buf + n - 3, "...", 3);
  buf[n] = '\0';
}

void cc_fix_refusal_add(struct cc_fix_plan *p, const char *name, const char *reason)
{
  char line[CC_FIX_REFUSAL_MAX + 4];
  size_t len = strlen(p->refusals);
  one_line(reason, line);
  if (len + 8 < sizeof p->refusals)
    cc_fix_setf(p->refusals + len, sizeof p->refusals - len, "%s%s: %s", len ? "\n" : "",
                name, line);
}

/* Emulates candidate c into c->run: compiled by the caller's nvcc, the kernel found by
 * its mangled name (a transformation keeps the name and the parameter list, so the
 * launch's arguments bind unchanged), c's launch, c's relayouts. Any failure is a bug of
 * the transformation: CC_ERR_INTERNAL naming it. */
static int run_candidate(const struct cc_fix_opts *o, struct cc_fix_xcand *c, struct cc_err *err)
{
  struct ptx_module *m = NULL;
  const struct ptx_function *k;
  struct cc_fix_launch l;
  struct cc_err e = {0};
  char *ptx = NULL, *name;
  size_t len = 0;
  int rc;
  if (o->compiler.compile(o->compiler.ctx, o->input, c->text, c->len, &ptx, &len, &e) != CC_OK)
    return cc_err_set(err, CC_ERR_INTERNAL, "the %s rewrite of %s does not compile (a bug in "
                      "coalcheck fix; nothing was written): %s", c->transform, o->kernel_name,
                      e.msg);
  name = cc_xmalloc(strlen(o->input) + 32);
  sprintf(name, "%s (%s)", o->input, c->transform);
  rc = ptx_parse(ptx, len, name, &m, err);
  free(name);
  free(ptx);
  if (rc != CC_OK)
    return cc_err_prefix(err, "the %s rewrite of %s", c->transform, o->kernel_name);
  l = cc_fix_launch_make(o, c->grid, c->block, c->shared_bytes);
  l.relayouts = c->relayouts;
  l.nrelayouts = c->nrelayouts;
  if (!(k = ptx_module_find(m, o->kernel->name)))
    rc = cc_err_set(err, CC_ERR_INTERNAL, "the %s rewrite of %s has no kernel %s (a "
                    "transformation must keep the kernel's name and parameters)",
                    c->transform, o->kernel_name, o->kernel->name);
  else if (cc_fix_measure(m, k, &l, &c->run, &e) != CC_OK)
    rc = cc_err_set(err, CC_ERR_INTERNAL, "the %s rewrite of %s fails in the emulator (a bug "
                    "in coalcheck fix; nothing was written): %s", c->transform,
                    o->kernel_name, e.msg);
  ptx_module_free(m);
  return rc;
}

/* The original's magnitude kernel (cc_fix_magnitude_module) run on the absolute values of
 * its float inputs (the magnitudes of the reassociation bound), made once per plan. */
static int absrun(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  struct cc_fix_launch l;
  struct cc_fix_relayout *abs = NULL;
  struct ptx_module *mag = NULL;
  const struct ptx_function *k;
  int rc;
  if (p->have_absrun)
    return CC_OK;
  if ((rc = cc_fix_magnitude_module(o->module, &mag, err)) != CC_OK)
    return rc;
  if (!(k = ptx_module_find(mag, o->kernel->name))) {
    ptx_module_free(mag);
    return cc_err_set(err, CC_ERR_INTERNAL, "the magnitude kernel has no %s", o->kernel->name);
  }
  l = cc_fix_launch_make(o, o->grid, o->block, o->shared_bytes);
  l.nrelayouts = cc_fix_abs_relayouts(o->args, o->nargs, &abs);
  l.relayouts = abs;
  rc = cc_fix_measure(mag, k, &l, &p->absrun, err);
  cc_fix_relayouts_free(abs, l.nrelayouts);
  ptx_module_free(mag);
  p->have_absrun = rc == CC_OK;
  return rc;
}

/* Global excess sectors plus shared excess wavefronts. */
static uint64_t excess_of(const struct cc_kernel_stats *k)
{
  return k->totals.excess_sectors + (k->totals.wavefronts - k->totals.ideal_wavefronts);
}

/* Compares candidate c's run with the original: outputs (bitwise, or within the
 * reassociation bound), then no more global sectors and less excess. A difference in the
 * outputs is a bug (CC_ERR_INTERNAL), except where atomics may reorder (then a refusal of
 * this candidate: c->failure). */
static int judge(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_fix_xcand *c,
                 struct cc_err *err)
{
  const struct cc_kernel_stats *b = cc_fix_measure_kernel(&p->before),
                               *a = cc_fix_measure_kernel(&c->run);
  char why[512], race[768];
  int same, rc;
  c->measured = 1;
  c->sectors = a->totals.sectors;
  c->excess_sectors = a->totals.excess_sectors;
  c->wavefronts = a->totals.wavefronts;
  if (c->compare == CC_FIX_COMPARE_REASSOCIATED) {
    if ((rc = absrun(o, p, err)) != CC_OK)
      return rc;
    same = cc_fix_reassociation_ok(&p->before, &c->run, &p->absrun, c->terms, &c->max_rel,
                                   why, sizeof why);
  } else {
    same = cc_fix_buffers_equal(&p->before, &c->run, why, sizeof why);
  }
  if (!same && cc_fix_uses_atomics(o->module, o->kernel)) {
    cc_fix_setf(c->failure, sizeof c->failure, "its results differ (%s), and the kernel's "
             "atomics may run in another order: not verifiable", why);
    return CC_OK;
  }
  if (!same && cc_fix_threads_race(o, &p->before, race, sizeof race)) {
    cc_fix_setf(c->failure, sizeof c->failure, "its results differ (%s): %s, a race whose "
                "outcome depends on the order of the threads, which the fix changes", why,
                race);
    return CC_OK;
  }
  if (!same)
    return cc_err_set(err, CC_ERR_INTERNAL, "%s of %s failed its verification (a bug in "
                      "coalcheck fix; nothing was written): %s; the candidate: %s",
                      c->transform, o->kernel_name, why, c->what);
  /* the permutation's rule (fix.c, verify): the excess must fall and the global sectors
   * never rise (padding removes wavefronts and keeps the sectors) */
  if (a->totals.sectors > b->totals.sectors || excess_of(a) >= excess_of(b)) {
    snprintf(c->failure, sizeof c->failure, "global sectors %llu -> %llu, excess %llu -> "
             "%llu: no improvement", (unsigned long long)b->totals.sectors,
             (unsigned long long)a->totals.sectors, (unsigned long long)excess_of(b),
             (unsigned long long)excess_of(a));
    return CC_OK;
  }
  c->verified = 1;
  return CC_OK;
}

int cc_fix_xform_run(const struct cc_fix_opts *o, struct cc_fix_plan *p, struct cc_err *err)
{
  for (size_t t = 0; t < sizeof xforms / sizeof xforms[0]; t++) {
    size_t first = p->x.len;
    struct cc_err e = {0};
    int rc;
    if (o->transform != CC_FIX_T_AUTO && o->transform != xforms[t].t)
      continue;
    if (!o->input_is_cuda) {
      cc_fix_refusal_add(p, xforms[t].name, "needs the kernel's CUDA C source (the input is "
                         "PTX)");
      continue;
    }
    if (!o->quiet)
      fprintf(stderr, "coalcheck fix: trying %s\n", xforms[t].name);
    rc = xforms[t].fn(o, &p->before, &p->x, &e);
    if (rc == CC_ERR_NO_FIX) {
      cc_fix_refusal_add(p, xforms[t].name, e.msg);
      continue;
    }
    if (rc != CC_OK) {
      *err = e;
      return rc;
    }
    for (size_t i = first; i < p->x.len; i++) {
      struct cc_fix_xcand *c = &p->x.data[i];
      if (!o->quiet)
        fprintf(stderr, "coalcheck fix: verifying %s: %s\n", c->transform, c->what);
      if ((rc = run_candidate(o, c, err)) != CC_OK || (rc = judge(o, p, c, err)) != CC_OK)
        return rc;
      if (!c->verified)
        cc_fix_refusal_add(p, c->transform, c->failure);
    }
  }
  return CC_OK;
}
