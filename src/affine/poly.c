/* Polynomials over the atoms of affine.h with int64 coefficients (bytes), kept canonical
 * so that equal values have equal term arrays; and the arena they live in. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affine/affine_impl.h"
#include "util/mem.h"

/* ---- arena ------------------------------------------------------------------------ */

#define CHUNK_BYTES (64u * 1024u)

struct aff_chunk {
  struct aff_chunk *next;
  size_t used, cap;
  max_align_t data[];
};

void *aff_alloc(struct aff_arena *ar, size_t size)
{
  struct aff_chunk *c = ar->head;
  size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!c || c->cap - c->used < size) {
    size_t cap = size > CHUNK_BYTES ? size : CHUNK_BYTES;
    c = cc_xmalloc(sizeof *c + cap);
    c->next = ar->head;
    c->used = 0;
    c->cap = cap;
    ar->head = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

char *aff_strdup(struct aff_arena *ar, const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(aff_alloc(ar, n), s, n);
}

char *aff_printf(struct aff_arena *ar, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return aff_strdup(ar, buf);
}

void aff_arena_release(struct aff_arena *ar)
{
  struct aff_chunk *c = ar->head;
  while (c) {
    struct aff_chunk *next = c->next;
    free(c);
    c = next;
  }
  ar->head = NULL;
}

/* ---- polynomials ---------------------------------------------------------------------- */

static struct cc_affine_form *new_form(struct aff_arena *ar, uint32_t cap)
{
  struct cc_affine_form *f = aff_alloc(ar, sizeof(struct cc_affine_form) +
                                           cap * sizeof(struct aff_term));
  f->syms = ar->syms;
  return f;
}

/* Orders monomials: by degree, then atoms lexicographically. */
static int cmp_mono(const struct aff_term *a, const struct aff_term *b)
{
  if (a->deg != b->deg)
    return a->deg < b->deg ? -1 : 1;
  for (uint32_t i = 0; i < a->deg; i++)
    if (a->atoms[i] != b->atoms[i])
      return a->atoms[i] < b->atoms[i] ? -1 : 1;
  return 0;
}

static int cmp_term(const void *pa, const void *pb)
{
  return cmp_mono(pa, pb);
}

/* Sorts f's terms, adds the coefficients of equal monomials, drops zeros. */
static const struct cc_affine_form *canonical(struct cc_affine_form *f, enum aff_fail *fail)
{
  uint32_t o = 0;
  qsort(f->t, f->n, sizeof f->t[0], cmp_term);
  for (uint32_t i = 0; i < f->n; i++) {
    if (o > 0 && cmp_mono(&f->t[o - 1], &f->t[i]) == 0) {
      if (__builtin_add_overflow(f->t[o - 1].coeff, f->t[i].coeff, &f->t[o - 1].coeff)) {
        *fail = AFF_FAIL_OVERFLOW;
        return NULL;
      }
    } else {
      if (o > 0 && f->t[o - 1].coeff == 0)
        o--;
      f->t[o++] = f->t[i];
    }
  }
  if (o > 0 && f->t[o - 1].coeff == 0)
    o--;
  f->n = o;
  if (o > AFF_MAX_TERMS) {
    *fail = AFF_FAIL_SIZE;
    return NULL;
  }
  return f;
}

const struct cc_affine_form *aff_const(struct aff_arena *ar, int64_t c)
{
  struct cc_affine_form *f = new_form(ar, 1);
  if (c != 0) {
    f->n = 1;
    f->t[0].coeff = c;
  }
  return f;
}

const struct cc_affine_form *aff_atom_poly(struct aff_arena *ar, aff_atom a)
{
  struct cc_affine_form *f = new_form(ar, 1);
  f->n = 1;
  f->t[0].coeff = 1;
  f->t[0].deg = 1;
  f->t[0].atoms[0] = a;
  return f;
}

const struct cc_affine_form *aff_add(struct aff_arena *ar, const struct cc_affine_form *a,
                                     const struct cc_affine_form *b, int64_t bscale,
                                     enum aff_fail *fail)
{
  struct cc_affine_form *f = new_form(ar, a->n + b->n);
  memcpy(f->t, a->t, a->n * sizeof a->t[0]);
  for (uint32_t i = 0; i < b->n; i++) {
    f->t[a->n + i] = b->t[i];
    if (__builtin_mul_overflow(b->t[i].coeff, bscale, &f->t[a->n + i].coeff)) {
      *fail = AFF_FAIL_OVERFLOW;
      return NULL;
    }
  }
  f->n = a->n + b->n;
  return canonical(f, fail);
}

/* The product of monomials x and y into out; 0 with *fail on too many atoms or a square
 * of index atoms (degree 2 in the indices). */
static int mul_mono(const struct aff_term *x, const struct aff_term *y, struct aff_term *out,
                    enum aff_fail *fail)
{
  uint32_t i = 0, j = 0, n = 0, index = 0;
  if (x->deg + y->deg > AFF_MAX_DEG) {
    *fail = AFF_FAIL_SIZE;
    return 0;
  }
  while (i < x->deg || j < y->deg) {
    aff_atom at;
    if (j >= y->deg || (i < x->deg && x->atoms[i] <= y->atoms[j]))
      at = x->atoms[i++];
    else
      at = y->atoms[j++];
    if (aff_atom_is_index(at) && ++index > 1) {
      *fail = AFF_FAIL_DEGREE;
      return 0;
    }
    out->atoms[n++] = at;
  }
  out->deg = n;
  if (__builtin_mul_overflow(x->coeff, y->coeff, &out->coeff)) {
    *fail = AFF_FAIL_OVERFLOW;
    return 0;
  }
  return 1;
}

const struct cc_affine_form *aff_mul(struct aff_arena *ar, const struct cc_affine_form *a,
                                     const struct cc_affine_form *b, enum aff_fail *fail)
{
  struct cc_affine_form *f;
  if ((uint64_t)a->n * b->n > 4u * AFF_MAX_TERMS * AFF_MAX_TERMS) {
    *fail = AFF_FAIL_SIZE;
    return NULL;
  }
  f = new_form(ar, a->n * b->n);
  for (uint32_t i = 0; i < a->n; i++)
    for (uint32_t j = 0; j < b->n; j++)
      if (!mul_mono(&a->t[i], &b->t[j], &f->t[f->n++], fail))
        return NULL;
  return canonical(f, fail);
}

const struct cc_affine_form *aff_rename(struct aff_arena *ar, const struct cc_affine_form *a,
                                        aff_atom from, aff_atom to, enum aff_fail *fail)
{
  struct cc_affine_form *f = new_form(ar, a->n);
  f->n = a->n;
  memcpy(f->t, a->t, a->n * sizeof a->t[0]);
  for (uint32_t i = 0; i < f->n; i++) {
    struct aff_term *t = &f->t[i];
    int hit = 0;
    for (uint32_t k = 0; k < t->deg; k++)
      if (t->atoms[k] == from) {
        t->atoms[k] = to;
        hit = 1;
      }
    if (hit) { /* keep the atoms sorted: insertion sort of a handful */
      for (uint32_t k = 1; k < t->deg; k++)
        for (uint32_t m = k; m > 0 && t->atoms[m - 1] > t->atoms[m]; m--) {
          aff_atom x = t->atoms[m];
          t->atoms[m] = t->atoms[m - 1];
          t->atoms[m - 1] = x;
        }
    }
  }
  return canonical(f, fail);
}

int aff_equal(const struct cc_affine_form *a, const struct cc_affine_form *b)
{
  if (a->n != b->n)
    return 0;
  for (uint32_t i = 0; i < a->n; i++)
    if (a->t[i].coeff != b->t[i].coeff || cmp_mono(&a->t[i], &b->t[i]) != 0)
      return 0;
  return 1;
}

int aff_has_atom(const struct cc_affine_form *a, int (*pred)(aff_atom, const void *),
                 const void *ctx)
{
  for (uint32_t i = 0; i < a->n; i++)
    for (uint32_t k = 0; k < a->t[i].deg; k++)
      if (pred(a->t[i].atoms[k], ctx))
        return 1;
  return 0;
}
