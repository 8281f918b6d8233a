/* Static address forms handed in by the caller (cc_analysis_set_forms) and their stride
 * classes. See analysis.h. */
#include "analysis/analysis.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_impl.h"
#include "util/mem.h"

void cc_analysis_addr_release(struct cc_addr_form *a)
{
  free((char *)a->kind);
  free((char *)a->text);
  memset(a, 0, sizeof *a);
}

/* The form of f whose id and PTX text are s's, or NULL. */
static const struct cc_addr_form *form_of(const struct cc_kernel_forms *kf,
                                          const struct cc_insn_stats *s)
{
  for (size_t i = 0; i < kf->n; i++) {
    const struct cc_addr_form *f = &kf->forms[i];
    if (f->id == s->info.id &&
        (!f->ptx || (s->info.text && strcmp(f->ptx, s->info.text) == 0)))
      return f;
  }
  return NULL;
}

int cc_analysis_set_forms(struct cc_analysis *an, const struct cc_kernel_forms *kf,
                          struct cc_err *err)
{
  struct cc_kernel_stats *k;
  if (an->open || an->n_kernels == 0)
    return cc_err_set(err, CC_ERR_INTERNAL, "address forms handed to an analysis %s: report "
                      "this bug", an->open ? "with a kernel open" : "without a kernel");
  k = &an->kernels[an->n_kernels - 1];
  for (size_t i = 0; i < k->n_insns; i++) {
    struct cc_insn_stats *s = &k->insns[i];
    const struct cc_addr_form *f = form_of(kf, s);
    cc_analysis_addr_release(&s->addr);
    if (!f || f->status == CC_ADDR_NONE)
      continue;
    s->addr = *f;
    s->addr.ptx = NULL;
    s->addr.kind = cc_xstrdup(f->kind ? f->kind : "?");
    s->addr.text = cc_xstrdup(f->text ? f->text : "");
    if (s->addr.nloops > CC_ADDR_MAX_LOOPS)
      s->addr.nloops = CC_ADDR_MAX_LOOPS;
  }
  free(k->warp_dependent_what);
  free(k->fix_command);
  k->warp_dependent_line = kf->warp_dependent_line;
  k->warp_dependent_what = kf->warp_dependent_what ? cc_xstrdup(kf->warp_dependent_what) : NULL;
  k->fix_command = kf->fix_command ? cc_xstrdup(kf->fix_command) : NULL;
  k->has_forms = 1;
  cc_analysis_finalize_kernel(k); /* the suggestions again, with the forms */
  return CC_OK;
}

enum cc_addr_class cc_analysis_addr_class(const struct cc_insn_stats *s, uint32_t d)
{
  const struct cc_addr_stride *t;
  uint64_t mag;
  if (d > 2 || s->addr.status != CC_ADDR_AFFINE || !s->addr.tid[d].known)
    return CC_ADDR_UNKNOWN;
  t = &s->addr.tid[d];
  mag = t->bytes < 0 ? (uint64_t)0 - (uint64_t)t->bytes : (uint64_t)t->bytes;
  if (mag == 0)
    return CC_ADDR_ZERO;
  return mag <= cc_access_coalesced_stride(s->info.space, s->info.size_bytes) ? CC_ADDR_UNIT
                                                                              : CC_ADDR_LARGE;
}

const char *cc_addr_class_name(enum cc_addr_class c)
{
  switch (c) {
  case CC_ADDR_ZERO: return "zero";
  case CC_ADDR_UNIT: return "unit";
  case CC_ADDR_LARGE: return "large";
  case CC_ADDR_UNKNOWN: return "unknown";
  }
  return "?";
}
