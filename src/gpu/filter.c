/* coalcheck gpu: which launches to profile, with Nsight Compute's meaning of --kernel-name
 * (NAME or regex:RE), --kernel-name-base, --kernel-id, --launch-skip and --launch-count
 * (skip and count apply to matching launches only), and the older COALCHECK_KERNEL_REGEX.
 * Shared by the injection library and kernel mode (src/cli/select.c). See gpu.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

static int parse_count(const char *var, const char *s, uint64_t *out, int *has,
                       struct cc_err *err)
{
  *has = 0;
  if (s == NULL || *s == '\0')
    return CC_OK;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*s < '0' || *s > '9' || *end != '\0' || errno != 0)
    return cc_err_set(err, CC_ERR_USAGE,
                      "%s is not a non-negative integer: '%s'; set it to a count such as 0 or 10",
                      var, s);
  *out = v;
  *has = 1;
  return CC_OK;
}

/* Skips a bracket expression starting at re[i] == '['; returns the index of its closing
 * ']', or 0 when it has none. */
static size_t bracket_end(const char *re, size_t i)
{
  size_t j = i + 1;
  if (re[j] == '^')
    j++;
  if (re[j] == ']') /* a leading ']' is a member */
    j++;
  for (; re[j]; j++) {
    if (re[j] == '[' && (re[j + 1] == ':' || re[j + 1] == '.' || re[j + 1] == '=')) {
      char close = re[j + 1];
      const char *e = strchr(re + j + 2, close);
      while (e && e[1] != ']')
        e = strchr(e + 1, close);
      if (!e)
        return 0;
      j = (size_t)(e - re) + 1;
    } else if (re[j] == ']') {
      return j;
    }
  }
  return 0;
}

/* An interval {n}, {n,}, {n,m} at re[i] == '{': index of its '}', or 0 when malformed
 * (*what says why). */
static size_t interval_end(const char *re, size_t i, const char **what)
{
  size_t j = i + 1;
  unsigned long lo = 0, hi = 0;
  int has_hi = 0;
  *what = "bad interval: expected {N}, {N,} or {N,M}";
  if (re[j] < '0' || re[j] > '9')
    return 0;
  lo = strtoul(re + j, NULL, 10);
  while (re[j] >= '0' && re[j] <= '9')
    j++;
  if (re[j] == ',') {
    j++;
    if (re[j] >= '0' && re[j] <= '9') {
      hi = strtoul(re + j, NULL, 10);
      has_hi = 1;
    }
    while (re[j] >= '0' && re[j] <= '9')
      j++;
  }
  if (re[j] != '}')
    return 0;
  if (has_hi && hi < lo) {
    *what = "bad interval: its minimum is above its maximum";
    return 0;
  }
  return j;
}

/* The 1-based position in re of its first syntax error that the scan recognises, and
 * *what it is; 0 when the scan finds none. */
static size_t ere_error_at(const char *re, const char **what)
{
  size_t n = strlen(re), depth = 0;
  size_t *open = malloc((n + 1) * sizeof *open);
  int can_repeat = 0; /* the last item may take * + ? {} */
  size_t at = 0;
  if (!open)
    return 0;
  for (size_t i = 0; i < n && !at; i++) {
    switch (re[i]) {
    case '\\':
      if (re[i + 1] == '\0')
        *what = "a trailing backslash escapes nothing", at = i + 1;
      i++;
      can_repeat = 1;
      break;
    case '[': {
      size_t e = bracket_end(re, i);
      if (!e)
        *what = "unmatched '[': the bracket expression has no closing ']'", at = i + 1;
      i = e;
      can_repeat = 1;
      break;
    }
    case '(':
      open[depth++] = i;
      can_repeat = 0;
      break;
    case ')':
      if (depth == 0)
        *what = "unmatched ')'", at = i + 1;
      else
        depth--;
      can_repeat = 1;
      break;
    case '*':
    case '+':
    case '?':
      if (!can_repeat)
        *what = "a repetition operator repeats nothing", at = i + 1;
      break;
    case '{': {
      size_t e = can_repeat ? interval_end(re, i, what) : 0;
      if (!can_repeat)
        *what = "an interval '{' repeats nothing";
      if (!e)
        at = i + 1;
      i = e;
      break;
    }
    case '|':
    case '^':
      can_repeat = 0;
      break;
    default:
      can_repeat = 1;
    }
  }
  if (!at && depth > 0)
    *what = "unmatched '(': the group is not closed", at = open[depth - 1] + 1;
  free(open);
  return at;
}

int cc_gpu_regex_compile(regex_t *re, const char *pattern, const char *what,
                         struct cc_err *err)
{
  const char *why_scan = NULL;
  size_t at = ere_error_at(pattern, &why_scan);
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
  char why[256];
  if (rc == 0) /* where the scan is stricter than this regcomp, regcomp decides */
    return CC_OK;
  regerror(rc, re, why, sizeof why);
  if (at)
    return cc_err_set(err, CC_ERR_USAGE, "%s '%s' does not compile at position %zu: %s "
                      "(regcomp: %s); use a POSIX extended regular expression", what, pattern,
                      at, why_scan, why);
  return cc_err_set(err, CC_ERR_USAGE, "%s '%s' does not compile: %s (position not found); "
                    "use a POSIX extended regular expression", what, pattern, why);
}

/* A kernel-name pattern: "regex:RE" or an exact NAME (what: for messages). */
static int pattern_init(struct cc_gpu_name_pattern *p, const char *text, const char *what,
                        struct cc_err *err)
{
  int rc;
  if (strncmp(text, "regex:", 6) == 0) {
    if ((rc = cc_gpu_regex_compile(&p->re, text + 6, what, err)) != CC_OK)
      return rc;
    p->is_regex = 1;
  } else {
    p->exact = strdup(text);
    if (!p->exact)
      return cc_err_set(err, CC_ERR_INTERNAL, "out of memory");
  }
  p->set = 1;
  return CC_OK;
}

static void pattern_release(struct cc_gpu_name_pattern *p)
{
  if (p->set && p->is_regex)
    regfree(&p->re);
  free(p->exact);
  memset(p, 0, sizeof *p);
}

static int pattern_matches(const struct cc_gpu_name_pattern *p, const char *name)
{
  if (!p->set)
    return 1;
  if (p->is_regex)
    return regexec(&p->re, name, 0, NULL, 0) == 0;
  return strcmp(p->exact, name) == 0;
}

/* CONTEXT:STREAM:[regex:]NAME:INVOCATION into f (ncu --kernel-id). */
static int kernel_id_init(struct cc_gpu_filter *f, const char *id, const char *what,
                          struct cc_err *err)
{
  const char *c1 = strchr(id, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  const char *last = strrchr(id, ':');
  char *name;
  int rc = CC_OK;
  if (!c2 || last == c2)
    return cc_err_set(err, CC_ERR_USAGE, "%s '%s': expected CONTEXT:STREAM:NAME:INVOCATION "
                      "(ncu's syntax), e.g. ::transpose:2 or :::1", what, id);
  if (c1 != id || c2 != c1 + 1)
    return cc_err_set(err, CC_ERR_USAGE, "%s '%s': coalcheck does not match contexts and "
                      "streams; leave both fields empty (::NAME:INVOCATION)", what, id);
  if (last[1] != '\0') {
    char *end;
    errno = 0;
    f->id_invocation = strtoull(last + 1, &end, 10);
    if (last[1] < '0' || last[1] > '9' || *end || errno || f->id_invocation == 0)
      return cc_err_set(err, CC_ERR_USAGE, "%s '%s': the invocation '%s' is not a positive "
                        "integer (1 is a kernel's first launch)", what, id, last + 1);
  }
  if (last > c2 + 1) {
    name = strndup(c2 + 1, (size_t)(last - c2 - 1));
    if (!name)
      return cc_err_set(err, CC_ERR_INTERNAL, "out of memory");
    rc = pattern_init(&f->id_name, name, what, err);
    free(name);
  }
  return rc;
}

static int base_init(struct cc_gpu_filter *f, const char *base, const char *what,
                     struct cc_err *err)
{
  static const char *const names[] = {"function", "demangled", "mangled"};
  for (int i = 0; i < 3; i++)
    if (strcmp(base, names[i]) == 0) {
      f->base = (enum cc_gpu_name_base)i;
      return CC_OK;
    }
  return cc_err_set(err, CC_ERR_USAGE, "%s '%s': expected function, demangled or mangled",
                    what, base);
}

static int set(const char *s)
{
  return s != NULL && *s != '\0';
}

int cc_gpu_filter_init_spec(struct cc_gpu_filter *f, const struct cc_gpu_filter_spec *spec,
                            struct cc_err *err)
{
  int env = spec->from_env, has_skip, st;
  memset(f, 0, sizeof *f);
  st = parse_count(env ? "COALCHECK_LAUNCH_SKIP" : "--launch-skip", spec->skip, &f->skip,
                   &has_skip, err);
  if (st == CC_OK)
    st = parse_count(env ? "COALCHECK_LAUNCH_COUNT" : "--launch-count", spec->count,
                     &f->count, &f->has_count, err);
  if (st == CC_OK && f->has_count && f->count == 0)
    st = cc_err_set(err, CC_ERR_USAGE, "%s 0 selects no launch; give at least 1 (as ncu), "
                    "or leave it out to profile every matching launch",
                    env ? "COALCHECK_LAUNCH_COUNT" : "--launch-count");
  if (st == CC_OK && set(spec->name_base))
    st = base_init(f, spec->name_base, env ? "COALCHECK_KERNEL_NAME_BASE" : "--kernel-name-base",
                   err);
  if (st == CC_OK && spec->kernel_name && strcmp(spec->kernel_name, "regex:") == 0)
    st = cc_err_set(err, CC_ERR_USAGE, "%s 'regex:' has no expression",
                    env ? "COALCHECK_KERNEL_NAME" : "--kernel-name");
  if (st == CC_OK && set(spec->kernel_name))
    st = pattern_init(&f->name, spec->kernel_name, env ? "COALCHECK_KERNEL_NAME" :
                      "--kernel-name", err);
  if (st == CC_OK && set(spec->kernel_id))
    st = kernel_id_init(f, spec->kernel_id, env ? "COALCHECK_KERNEL_ID" : "--kernel-id", err);
  if (st == CC_OK && set(spec->regex)) {
    st = cc_gpu_regex_compile(&f->regex, spec->regex, "COALCHECK_KERNEL_REGEX", err);
    f->has_regex = st == CC_OK;
  }
  return st;
}

int cc_gpu_filter_init(struct cc_gpu_filter *f, const char *regex, const char *skip,
                       const char *count, struct cc_err *err)
{
  struct cc_gpu_filter_spec spec = {.regex = regex, .skip = skip, .count = count,
                                    .from_env = 1};
  return cc_gpu_filter_init_spec(f, &spec, err);
}

int cc_gpu_spaces_parse(const char *list, uint32_t *mask, struct cc_err *err)
{
  static const char *const names[CC_SPACE_COUNT] = {"global", "shared", "local"};
  *mask = 0;
  if (list == NULL || *list == '\0') {
    *mask = (1u << CC_SPACE_COUNT) - 1;
    return CC_OK;
  }
  for (const char *p = list;;) {
    size_t n = strcspn(p, ",");
    int sp = -1;
    for (int i = 0; i < CC_SPACE_COUNT; i++)
      if (n == strlen(names[i]) && strncmp(p, names[i], n) == 0)
        sp = i;
    if (sp < 0)
      return cc_err_set(err, CC_ERR_USAGE, "spaces '%s': '%.*s' is not a memory space; give "
                        "a comma-separated list of global, shared, local", list, (int)n, p);
    *mask |= 1u << sp;
    if (p[n] == '\0')
      return CC_OK;
    p += n + 1;
  }
}

/* Offset of the '(' that opens the parameter list ending s[0..len), or len. */
static size_t params_at(const char *s, size_t len)
{
  int depth = 0;
  if (len == 0 || s[len - 1] != ')')
    return len;
  for (size_t i = len; i-- > 0;) {
    depth += s[i] == ')';
    depth -= s[i] == '(';
    if (depth == 0)
      return i;
  }
  return len;
}

char *cc_gpu_function_name(const char *demangled, char *out, size_t size)
{
  size_t len = params_at(demangled, strlen(demangled)), start = 0;
  int depth = 0;
  if (len && demangled[len - 1] == '>') { /* template arguments */
    for (size_t i = len; i-- > 0;) {
      depth += demangled[i] == '>';
      depth -= demangled[i] == '<';
      if (depth == 0) {
        len = i;
        break;
      }
    }
  }
  depth = 0;
  for (size_t i = 0; i < len; i++) { /* after the return type and the last scope */
    depth += demangled[i] == '<' || demangled[i] == '(';
    depth -= demangled[i] == '>' || demangled[i] == ')';
    if (depth == 0 && demangled[i] == ' ')
      start = i + 1;
    if (depth == 0 && demangled[i] == ':' && demangled[i + 1] == ':')
      start = i + 2;
  }
  snprintf(out, size, "%.*s", (int)(len - start), demangled + start);
  return out;
}

/* Counts one more launch of function fn; returns its invocation number (1-based). */
static uint64_t invocation(struct cc_gpu_filter *f, const char *fn)
{
  for (size_t i = 0; i < f->n_seen; i++)
    if (strcmp(f->seen[i], fn) == 0)
      return ++f->seen_count[i];
  char **seen = realloc(f->seen, (f->n_seen + 1) * sizeof *seen);
  uint64_t *cnt = seen ? realloc(f->seen_count, (f->n_seen + 1) * sizeof *cnt) : NULL;
  if (seen)
    f->seen = seen;
  if (!cnt || !(f->seen[f->n_seen] = strdup(fn)))
    return 0; /* out of memory: matches no invocation number */
  f->seen_count = cnt;
  f->seen_count[f->n_seen++] = 1;
  return 1;
}

int cc_gpu_filter_select(struct cc_gpu_filter *f, const char *demangled, const char *mangled)
{
  char fn[1024];
  const char *d = demangled ? demangled : mangled, *m = mangled ? mangled : demangled;
  const char *name;
  if (!d)
    return 0;
  cc_gpu_function_name(d, fn, sizeof fn);
  name = f->base == CC_GPU_BASE_FUNCTION ? fn : f->base == CC_GPU_BASE_DEMANGLED ? d : m;
  /* every launch of a function counts towards its invocation number, selected or not */
  uint64_t inv = invocation(f, name);
  if (f->has_regex && regexec(&f->regex, d, 0, NULL, 0) != 0 &&
      regexec(&f->regex, m, 0, NULL, 0) != 0)
    return 0;
  if (!pattern_matches(&f->name, name) || !pattern_matches(&f->id_name, name) ||
      (f->id_invocation && inv != f->id_invocation))
    return 0;
  uint64_t idx = f->matched++;
  if (idx < f->skip)
    return 0;
  return !f->has_count || idx - f->skip < f->count;
}

void cc_gpu_filter_release(struct cc_gpu_filter *f)
{
  if (f->has_regex)
    regfree(&f->regex);
  f->has_regex = 0;
  pattern_release(&f->name);
  pattern_release(&f->id_name);
  for (size_t i = 0; i < f->n_seen; i++)
    free(f->seen[i]);
  free(f->seen);
  free(f->seen_count);
  f->seen = NULL;
  f->seen_count = NULL;
  f->n_seen = 0;
}
