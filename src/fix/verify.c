/* Comparing a fix's outputs with the original's when the fix reassociates a sum (a
 * reduction redistributed over the lanes of a warp): the error bound, and the run on
 * absolute values that supplies its magnitudes. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/launch.h"
#include "ptx/ptx.h"
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

/* ---- the magnitude kernel ---- */

static int ident(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '%' || c == '$';
}

/* In the instruction at line[0..n) (guard and blanks before its opcode), a float
 * subtraction becomes an addition and a negation an absolute value; every float
 * immediate (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX) loses its sign bit. */
static void magnitude_line(char *line, size_t n)
{
  size_t i = 0, op;
  while (i < n && (line[i] == ' ' || line[i] == '\t'))
    i++;
  if (i < n && line[i] == '@') /* a guard: @%p1 or @!%p1 */
    while (i < n && line[i] != ' ' && line[i] != '\t')
      i++;
  while (i < n && (line[i] == ' ' || line[i] == '\t'))
    i++;
  op = i;
  while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != ';')
    i++;
  if (i - op > 4 && (memmem(line + op, i - op, ".f32", 4) || memmem(line + op, i - op, ".f64", 4))) {
    if (!strncmp(line + op, "sub.", 4))
      memcpy(line + op, "add", 3);
    else if (!strncmp(line + op, "neg.", 4))
      memcpy(line + op, "abs", 3);
  }
  for (; i + 2 < n; i++) {
    size_t digits = line[i + 1] == 'f' ? 8 : line[i + 1] == 'd' ? 16 : 0, k;
    if (line[i] != '0' || !digits || (i > 0 && ident(line[i - 1])) || i + 2 + digits > n)
      continue;
    for (k = 0; k < digits && isxdigit((unsigned char)line[i + 2 + k]); k++)
      ;
    if (k < digits || (i + 2 + digits < n && ident(line[i + 2 + digits])))
      continue;
    {
      char *h = &line[i + 2], c = (char)toupper((unsigned char)*h);
      int v = c <= '9' ? c - '0' : c - 'A' + 10;
      *h = "0123456789ABCDEF"[v & 7]; /* the sign is the top bit of the first digit */
    }
    i += 1 + digits;
  }
}

int cc_fix_magnitude_module(const struct ptx_module *m, struct ptx_module **out,
                            struct cc_err *err)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int rc;
  *out = NULL;
  if (!f)
    return cc_err_set(err, CC_ERR_IO, "cannot print the PTX of %s to memory", m->path);
  rc = ptx_print_module(m, f);
  if (fclose(f) != 0 || rc != CC_OK) {
    free(text);
    return cc_err_set(err, CC_ERR_INTERNAL, "cannot print the PTX of %s", m->path);
  }
  for (size_t b = 0; b < len;) {
    size_t e = b;
    while (e < len && text[e] != '\n')
      e++;
    if (e > b && text[e - 1] == ';') /* an instruction or a declaration: no float op or
                                        immediate in a declaration but an initialiser's */
      magnitude_line(text + b, e - b);
    b = e + 1;
  }
  rc = ptx_parse(text, len, m->path, out, err);
  free(text);
  return rc;
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
