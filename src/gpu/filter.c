/* coalcheck gpu: which launches to profile (COALCHECK_KERNEL_REGEX, COALCHECK_LAUNCH_SKIP,
 * COALCHECK_LAUNCH_COUNT), with Nsight Compute's meaning of --kernel-name regex: /
 * --launch-skip / --launch-count: skip and count apply to matching launches only. */
#include <errno.h>
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

int cc_gpu_filter_init(struct cc_gpu_filter *f, const char *regex, const char *skip,
                       const char *count, struct cc_err *err)
{
  memset(f, 0, sizeof *f);
  int has_skip;
  int st = parse_count("COALCHECK_LAUNCH_SKIP", skip, &f->skip, &has_skip, err);
  if (st == CC_OK)
    st = parse_count("COALCHECK_LAUNCH_COUNT", count, &f->count, &f->has_count, err);
  if (st != CC_OK)
    return st;
  if (regex != NULL && *regex != '\0') {
    int rc = regcomp(&f->regex, regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char why[256];
      regerror(rc, &f->regex, why, sizeof why);
      return cc_err_set(err, CC_ERR_USAGE,
                        "COALCHECK_KERNEL_REGEX does not compile: '%s': %s; use a POSIX "
                        "extended regular expression", regex, why);
    }
    f->has_regex = 1;
  }
  return CC_OK;
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

int cc_gpu_filter_select(struct cc_gpu_filter *f, const char *name, const char *mangled)
{
  if (f->has_regex) {
    int hit = (name != NULL && regexec(&f->regex, name, 0, NULL, 0) == 0) ||
              (mangled != NULL && regexec(&f->regex, mangled, 0, NULL, 0) == 0);
    if (!hit)
      return 0;
  }
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
}
