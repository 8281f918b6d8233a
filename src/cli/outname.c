/* Output file names with the Nsight tools' patterns (ncu --export, nsys -o): %q{VAR},
 * %p, %h, %%. See cli_impl.h and docs/usage.md ("Output file names"). */
#include "cli/cli_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/mem.h"

/* A growing string: text[0..len), NUL-terminated, owned. */
struct buf {
  char *text;
  size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->text = cc_xrealloc(b->text, b->cap);
  }
  memcpy(b->text + b->len, s, n);
  b->len += n;
  b->text[b->len] = '\0';
}

/* The value of %q{NAME...}: p points at the 'q'; *used gets the pattern's length after
 * the '%'. at is the 1-based position of the '%' in the whole value (for messages). */
static int env_value(const char *opt, const char *value, const char *p, size_t at,
                     const char **out, size_t *used, struct cc_err *err)
{
  const char *close;
  char name[256];
  size_t n;
  if (p[1] != '{')
    return cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': '%%q' at position %zu needs a "
                      "variable name in braces, e.g. %%q{OMPI_COMM_WORLD_RANK}", opt, value,
                      at);
  close = strchr(p + 2, '}');
  if (!close)
    return cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': '%%q{' at position %zu has no closing "
                      "'}'; write %%q{NAME}", opt, value, at);
  n = (size_t)(close - (p + 2));
  if (n == 0 || n >= sizeof name)
    return cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': '%%q{}' at position %zu names no "
                      "variable (or one longer than %zu bytes)", opt, value, at,
                      sizeof name - 1);
  memcpy(name, p + 2, n);
  name[n] = '\0';
  *out = getenv(name);
  if (!*out)
    return cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': environment variable %s (%%q{%s} at "
                      "position %zu) is not set; set it, or under mpirun use the launcher's "
                      "rank variable (OMPI_COMM_WORLD_RANK, PMI_RANK)", opt, value, name, name,
                      at);
  *used = n + 3; /* q { NAME } */
  return CC_OK;
}

int cc_cli_expand_path(const char *opt, const char *value, char **out, struct cc_err *err)
{
  struct buf b = {NULL, 0, 0};
  char num[32], host[256];
  int rc = CC_OK;
  put(&b, "", 0);
  for (const char *p = value; *p;) {
    size_t at = (size_t)(p - value) + 1, used = 1;
    const char *text = num;
    if (*p != '%') {
      size_t n = strcspn(p, "%");
      put(&b, p, n);
      p += n;
      continue;
    }
    switch (p[1]) {
    case '%':
      text = "%";
      break;
    case 'p':
      snprintf(num, sizeof num, "%ld", (long)getpid());
      break;
    case 'h':
      if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
      host[sizeof host - 1] = '\0';
      text = host;
      break;
    case 'q':
      rc = env_value(opt, value, p + 1, at, &text, &used, err);
      break;
    case '\0':
      rc = cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': a lone '%%' at position %zu (the end); "
                      "write %%%% for a literal '%%'", opt, value, at);
      break;
    default:
      rc = cc_err_set(err, CC_ERR_USAGE, "bad %s '%s': unknown pattern '%%%c' at position %zu; "
                      "the patterns are %%q{VAR}, %%p, %%h and %%%% (a literal '%%')", opt,
                      value, p[1], at);
    }
    if (rc != CC_OK) {
      free(b.text);
      *out = NULL;
      return rc;
    }
    put(&b, text, strlen(text));
    p += 1 + used;
  }
  *out = b.text;
  return CC_OK;
}
