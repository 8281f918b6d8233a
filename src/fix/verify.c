/* Comparing a fix's outputs with the original's when the fix reassociates a sum (a
 * reduction redistributed over the lanes of a warp): the error bound, and the run on
 * absolute values that supplies its magnitudes. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/launch.h"
#include "util/mem.h"

static void abs_f32(const void *ctx, uint8_t *data, uint64_t bytes)
{
  (void)ctx;
  for (uint64_t i = 0; i + 4 <= bytes; i += 4)
    data[i + 3] &= 0x7f; /* IEEE 754 binary32, little endian: the sign bit */
}

static void abs_f64(const void *ctx, uint8_t *data, uint64_t bytes)
{
  (void)ctx;
  for (uint64_t i = 0; i + 8 <= bytes; i += 8)
    data[i + 7] &= 0x7f;
}

uint32_t cc_fix_abs_relayouts(const struct cc_launch_arg *args, size_t nargs,
                              struct cc_fix_relayout **out)
{
  uint32_t n = 0;
  *out = cc_xcalloc(nargs ? nargs : 1, sizeof **out);
  for (size_t i = 0; i < nargs; i++) {
    const struct cc_launch_arg *a = &args[i];
    if (!a->is_buffer || (a->type != PTX_TYPE_F32 && a->type != PTX_TYPE_F64))
      continue;
    (*out)[n].buffer = cc_xstrdup(a->name);
    (*out)[n].to_fix = a->type == PTX_TYPE_F32 ? abs_f32 : abs_f64;
    n++;
  }
  return n;
}

void cc_fix_relayouts_free(struct cc_fix_relayout *r, uint32_t n)
{
  for (uint32_t i = 0; r && i < n; i++) {
    free(r[i].buffer);
    free(r[i].launch_layout);
    if (r[i].free_ctx)
      r[i].free_ctx(r[i].ctx);
  }
  free(r);
}

/* gamma(n) = n u / (1 - n u) (Higham, Sec. 3.1), or infinity when n u >= 1. */
static double gamma_n(double n, double u)
{
  return n * u < 1 ? n * u / (1 - n * u) : INFINITY;
}

static double element(enum ptx_type t, const uint8_t *p)
{
  if (t == PTX_TYPE_F32) {
    float f;
    memcpy(&f, p, 4);
    return f;
  }
  double d;
  memcpy(&d, p, 8);
  return d;
}

/* Checks one float buffer; 1 when every element passes. */
static int buffer_ok(const struct cc_fix_buffer *x, const struct cc_fix_buffer *y,
                     const struct cc_fix_buffer *a, double g, double *max_rel, char *why,
                     size_t size)
{
  unsigned es = x->type == PTX_TYPE_F32 ? 4 : 8;
  for (uint64_t e = 0; e + es <= x->bytes; e += es) {
    double o, f, bound;
    if (memcmp(x->data + e, y->data + e, es) == 0)
      continue;
    o = element(x->type, x->data + e);
    f = element(x->type, y->data + e);
    if (isnan(o) && isnan(f))
      continue;
    bound = 2 * g * fabs(element(x->type, a->data + e));
    if (!(fabs(o - f) <= bound)) {
      snprintf(why, size, "buffer '%s' element %llu: %.9g before, %.9g after, |difference| "
               "%.3g over the reassociation bound %.3g", x->name,
               (unsigned long long)(e / es), o, f, fabs(o - f), bound);
      return 0;
    }
    if (bound > 0 && fabs(o - f) / bound > *max_rel)
      *max_rel = fabs(o - f) / bound;
  }
  return 1;
}

int cc_fix_reassociation_ok(const struct cc_fix_measure *orig, const struct cc_fix_measure *fix,
                            const struct cc_fix_measure *absrun, uint64_t terms,
                            double *max_rel, char *why, size_t size)
{
  *max_rel = 0;
  if (orig->nbufs != fix->nbufs || orig->nbufs != absrun->nbufs) {
    snprintf(why, size, "%u buffers against %u", orig->nbufs, fix->nbufs);
    return 0;
  }
  for (uint32_t i = 0; i < orig->nbufs; i++) {
    const struct cc_fix_buffer *x = &orig->bufs[i], *y = &fix->bufs[i], *a = &absrun->bufs[i];
    int fp = x->type == PTX_TYPE_F32 || x->type == PTX_TYPE_F64;
    if (x->bytes != y->bytes || x->bytes != a->bytes) {
      snprintf(why, size, "buffer '%s' has %llu bytes against %llu", x->name,
               (unsigned long long)x->bytes, (unsigned long long)y->bytes);
      return 0;
    }
    if (memcmp(x->data, y->data, x->bytes) == 0)
      continue;
    if (!fp) { /* integers: reassociation is exact, so any difference is a bug */
      struct cc_fix_measure one = *orig, two = *fix;
      one.bufs = (struct cc_fix_buffer *)x;
      two.bufs = (struct cc_fix_buffer *)y;
      one.nbufs = two.nbufs = 1;
      return cc_fix_buffers_equal(&one, &two, why, size);
    }
    double u = x->type == PTX_TYPE_F32 ? 0x1p-24 : 0x1p-53, g = gamma_n((double)terms + 2, u);
    /* past n u = 1/2 the bound exceeds |sum| itself (2 gamma > 2): it would pass anything */
    if (((double)terms + 2) * u > 0.5) {
      snprintf(why, size, "buffer '%s' differs, and a sum of %llu terms has no useful error "
               "bound in %s (n u > 1/2)", x->name, (unsigned long long)terms,
               x->type == PTX_TYPE_F32 ? "f32" : "f64");
      return 0;
    }
    if (!buffer_ok(x, y, a, g, max_rel, why, size))
      return 0;
  }
  return 1;
}
