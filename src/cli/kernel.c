/* Kernel selection by source or PTX name. See cli.h. */
#include "cli/cli.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* libstdc++'s demangler (abi::__cxa_demangle, extern "C"): returns a malloc'd string, or
 * NULL with *status != 0 when mangled is not a valid mangled name. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *cc_cli_demangle(const char *mangled)
{
  int status = 0;
  char *d;
  if (strncmp(mangled, "_Z", 2) != 0)
    return NULL;
  d = __cxa_demangle(mangled, NULL, NULL, &status);
  if (status != 0) {
    free(d);
    return NULL;
  }
  return d;
}

/* Index of the '(' that opens the parameter list closed by s's last character, or -1. */
static long param_list_start(const char *s, size_t len)
{
  int depth = 0;
  if (len == 0 || s[len - 1] != ')')
    return -1;
  for (size_t i = len; i-- > 0;) {
    depth += s[i] == ')';
    depth -= s[i] == '(';
    if (depth == 0)
      return (long)i;
  }
  return -1;
}

/* Index just after the last blank of s[0..len) outside <> and (): where the name starts
 * after a return type ("void ns::f<int>" -> 5); 0 when there is none. */
static size_t name_start(const char *s, size_t len)
{
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < len; i++) {
    depth += s[i] == '<' || s[i] == '(';
    depth -= s[i] == '>' || s[i] == ')';
    if (s[i] == ' ' && depth == 0)
      start = i + 1;
  }
  return start;
}

char *cc_cli_source_name(const char *mangled)
{
  char *d = cc_cli_demangle(mangled), *out;
  size_t len, start;
  long open;
  if (!d)
    return cc_xstrdup(mangled);
  len = strlen(d);
  open = param_list_start(d, len);
  if (open > 0)
    len = (size_t)open;
  start = name_start(d, len);
  out = cc_xstrndup(d + start, len - start);
  free(d);
  return out;
}

/* Length of s without a trailing template argument list ("f<32>" -> 1). */
static size_t without_template(const char *s, size_t len)
{
  int depth = 0;
  if (len == 0 || s[len - 1] != '>')
    return len;
  for (size_t i = len; i-- > 0;) {
    depth += s[i] == '>';
    depth -= s[i] == '<';
    if (depth == 0)
      return i;
  }
  return len;
}

/* Offset of the unqualified part of s[0..len): after the last "::" outside <> and (). */
static size_t unqualified(const char *s, size_t len)
{
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < len; i++) {
    depth += s[i] == '<' || s[i] == '(';
    depth -= s[i] == '>' || s[i] == ')';
    if (depth == 0 && s[i] == ':' && s[i + 1] == ':')
      start = i + 2;
  }
  return start;
}

static int ident_char(char c)
{
  return isalnum((unsigned char)c) || c == '_';
}

/* 1 when name equals s[0..len) as C++ source: blanks ignored, and an integer literal's
 * suffix (u, l, ul, ...) ignored, so that "k<256>" names the kernel the demangler spells
 * "k<256u>" (a template argument of type unsigned int; C++ [lex.icon]). A digit inside
 * an identifier ("k1u") is not a literal. */
static int same(const char *name, const char *s, size_t len)
{
  size_t i = 0, j = 0, n = strlen(name);
  for (;;) {
    int literal;
    while (i < n && name[i] == ' ')
      i++;
    while (j < len && s[j] == ' ')
      j++;
    if (i == n || j == len)
      return i == n && j == len;
    if (name[i] != s[j])
      return 0;
    literal = isdigit((unsigned char)name[i]) && (i == 0 || !ident_char(name[i - 1]));
    i++, j++;
    if (!literal)
      continue;
    while (i < n && j < len && isdigit((unsigned char)name[i]) && name[i] == s[j])
      i++, j++;
    if ((i < n && isdigit((unsigned char)name[i])) || (j < len && isdigit((unsigned char)s[j])))
      return 0;
    while (i < n && strchr("uUlL", name[i]))
      i++;
    while (j < len && strchr("uUlL", s[j]))
      j++;
  }
}

int cc_cli_kernel_matches(const char *mangled, const char *name)
{
  char *q;
  size_t len, u;
  int hit;
  if (strcmp(mangled, name) == 0)
    return 1;
  q = cc_cli_source_name(mangled);
  len = strlen(q);
  u = unqualified(q, len);
  hit = same(name, q, len) || same(name, q, without_template(q, len)) ||
        same(name, q + u, len - u) || same(name, q + u, without_template(q + u, len - u));
  free(q);
  return hit;
}

/* Writes "name (mangled)" of every kernel of m (those matching name, if not NULL) to
 * buf (size bytes), comma-separated; a list that does not fit ends in ", ...". */
static void list_kernels(const struct ptx_module *m, const char *name, char *buf, size_t size)
{
  size_t used = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < m->nfuncs && used < size; i++) {
    const struct ptx_function *f = &m->funcs[i];
    char *src;
    int n;
    if (!f->is_entry || (name && !cc_cli_kernel_matches(f->name, name)))
      continue;
    src = cc_cli_source_name(f->name);
    if (strcmp(src, f->name) == 0)
      n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", f->name);
    else
      n = snprintf(buf + used, size - used, "%s%s (%s)", used ? ", " : "", src, f->name);
    free(src);
    if (n < 0 || (size_t)n >= size - used) { /* full: end the list visibly */
      if (size > 5)
        strcpy(buf + (used < size - 5 ? used : size - 5), ", ...");
      return;
    }
    used += (size_t)n;
  }
}

int cc_cli_find_kernel(const struct ptx_module *m, const char *name,
                       const struct ptx_function **out, struct cc_err *err)
{
  const struct ptx_function *found = NULL;
  uint32_t entries = 0, matches = 0;
  char list[1200];
  *out = NULL;
  for (uint32_t i = 0; i < m->nfuncs; i++) {
    const struct ptx_function *f = &m->funcs[i];
    if (!f->is_entry)
      continue;
    entries++;
    if (name && strcmp(f->name, name) == 0) { /* the exact PTX name wins outright */
      *out = f;
      return CC_OK;
    }
    if (!name || cc_cli_kernel_matches(f->name, name)) {
      matches++;
      found = f;
    }
  }
  if (entries == 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s has no kernel (.entry); nothing to run", m->path);
  if (matches == 1) {
    *out = found;
    return CC_OK;
  }
  list_kernels(m, matches ? name : NULL, list, sizeof list);
  if (!name)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s has %u kernels; choose one with --kernel: %s", m->path, entries, list);
  if (matches == 0)
    return cc_err_set(err, CC_ERR_INPUT, "no kernel called '%s' in %s; its kernels: %s", name,
                      m->path, list);
  return cc_err_set(err, CC_ERR_INPUT,
                    "kernel name '%s' is ambiguous in %s, it matches: %s; pass a qualified "
                    "name with template arguments, or the PTX name", name, m->path, list);
}
