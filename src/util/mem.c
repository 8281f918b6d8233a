/* Allocation helpers: see mem.h. */
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>

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

FILE *cc_text_open(char **buf, size_t *len)
{
  FILE *f = open_memstream(buf, len);
  if (!f)
    CC_BUG("open_memstream failed (out of memory)");
  return f;
}

char *cc_text_close(FILE *f, char **buf)
{
  if (fclose(f) != 0)
    CC_BUG("a text in memory could not be finished (out of memory)");
  return *buf;
}
