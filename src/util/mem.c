/* Allocation helpers: see mem.h. */
#include "util/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdint.h>

#include "util/err.h"

void *cc_xmalloc(size_t bytes)
{
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    CC_BUG("out of memory allocating %zu bytes", bytes);
  return p;
}

void *cc_xcalloc(size_t count, size_t bytes)
{
  void *p = calloc(count ? count : 1, bytes ? bytes : 1);
  if (!p)
    CC_BUG("out of memory allocating %zu x %zu bytes", count, bytes);
  return p;
}

void *cc_xrealloc(void *ptr, size_t bytes)
{
  void *p = realloc(ptr, bytes ? bytes : 1);
  if (!p)
    CC_BUG("out of memory reallocating %zu bytes", bytes);
  return p;
}

void cc_mem_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
  uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (p && bytes >= CC_MEM_HUGE_MIN && hi > lo)
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: its failure is harmless */
#else
  (void)p;
  (void)bytes;
#endif
}

char *cc_xstrdup(const char *s)
{
  return cc_xstrndup(s, strlen(s));
}

char *cc_xstrndup(const char *s, size_t n)
{
  char *p = cc_xmalloc(n + 1);
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

void *cc_xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
  size_t nc;
  if (need <= *cap)
    return p;
  nc = *cap ? *cap * 2 : 8;
  while (nc < need)
    nc *= 2;
  p = cc_xrealloc(p, nc * elem);
  *cap = nc;
  return p;
}

void cc_strbuf_printf(struct cc_strbuf *b, const char *fmt, ...)
{
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    CC_BUG("cc_strbuf_printf: bad format '%s'", fmt);
  b->s = cc_xgrow(b->s, &b->cap, b->len + (size_t)n + 1, 1);
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}
