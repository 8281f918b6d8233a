/* coalcheck CUDA front end: byte edits of the input, applied all at once. */
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

void cc_cuda_edits_add(cc_cuda_edits *ed, unsigned b, unsigned e, const char *text)
{
  struct cc_cuda_edit x = {b, e, cc_xstrdup(text), 0};
  for (size_t i = 0; i < ed->len; i++) /* the same edit twice (a macro argument reached twice) */
    if (!ed->data[i].dead && ed->data[i].b == b && ed->data[i].e == e &&
        strcmp(ed->data[i].text, text) == 0) {
      free(x.text);
      return;
    }
  CC_VEC_PUSH(ed, x);
}

int cc_cuda_edits_touch(const cc_cuda_edits *ed, unsigned b, unsigned e)
{
  for (size_t i = 0; i < ed->len; i++) {
    const struct cc_cuda_edit *x = &ed->data[i];
    if (!x->dead && x->b < e && (x->e > b || (x->b == x->e && x->b >= b)))
      return 1;
  }
  return 0;
}

static int edit_cmp(const void *a, const void *b)
{
  const struct cc_cuda_edit *x = a, *y = b;
  if (x->b != y->b)
    return x->b < y->b ? -1 : 1;
  return (x->e > y->e) - (x->e < y->e);
}

/* Appends n bytes at s to *buf (length *len, capacity *cap). */
static void append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
  *buf = cc_xgrow(*buf, cap, *len + n + 1, 1);
  memcpy(*buf + *len, s, n);
  *len += n;
  (*buf)[*len] = '\0';
}

char *cc_cuda_edits_render(cc_cuda_edits *ed, const char *text, unsigned b, unsigned e, int kill)
{
  char *out = NULL;
  size_t len = 0, cap = 0;
  unsigned at = b;
  if (ed->len)
    qsort(ed->data, ed->len, sizeof *ed->data, edit_cmp);
  append(&out, &len, &cap, "", 0);
  for (size_t i = 0; i < ed->len; i++) {
    struct cc_cuda_edit *x = &ed->data[i];
    if (x->dead || x->b < at || x->e > e || (x->b == x->e && x->b == e) || x->b >= e)
      continue;
    append(&out, &len, &cap, text + at, x->b - at);
    append(&out, &len, &cap, x->text, strlen(x->text));
    at = x->e;
    if (kill)
      x->dead = 1;
  }
  append(&out, &len, &cap, text + at, e - at);
  return out;
}

int cc_cuda_edits_apply(cc_cuda_edits *ed, const char *text, size_t len, char **out,
                        size_t *outlen, struct cc_err *err)
{
  char *buf = NULL;
  size_t n = 0, cap = 0;
  unsigned at = 0;
  if (ed->len)
    qsort(ed->data, ed->len, sizeof *ed->data, edit_cmp);
  append(&buf, &n, &cap, "", 0);
  for (size_t i = 0; i < ed->len; i++) {
    const struct cc_cuda_edit *x = &ed->data[i];
    if (x->dead)
      continue;
    if (x->b < at || x->e > len) {
      free(buf);
      return cc_err_set(err, CC_ERR_INTERNAL, "cuda rewrite: edits overlap at byte %u "
                        "(a bug in coalcheck; please report it with the input)", x->b);
    }
    append(&buf, &n, &cap, text + at, x->b - at);
    append(&buf, &n, &cap, x->text, strlen(x->text));
    at = x->e;
  }
  append(&buf, &n, &cap, text + at, len - at);
  *out = buf;
  *outlen = n;
  return CC_OK;
}

void cc_cuda_edits_release(cc_cuda_edits *ed)
{
  for (size_t i = 0; i < ed->len; i++)
    free(ed->data[i].text);
  CC_VEC_FREE(ed);
}
