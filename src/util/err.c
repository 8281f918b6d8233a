/* Error reporting: see err.h. */
#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cc_err_set(struct cc_err *err, enum cc_status status, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->status = status;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
  }
  return (int)status;
}

int cc_err_prefix(struct cc_err *err, const char *fmt, ...)
{
  char old[CC_ERR_MSG_MAX];
  va_list ap;
  int n;
  if (!err)
    return CC_ERR_INTERNAL;
  memcpy(old, err->msg, sizeof old);
  va_start(ap, fmt);
  n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof err->msg - 2) { /* room for ": " and some of the old text */
    /* the old text cut to what fits (memcpy: snprintf's "%s" here is a truncation warning
     * under gcc -O0, -Wformat-truncation) */
    size_t at = (size_t)n + 2, len = strlen(old);
    if (len > sizeof err->msg - 1 - at)
      len = sizeof err->msg - 1 - at;
    memcpy(err->msg + n, ": ", 2);
    memcpy(err->msg + at, old, len);
    err->msg[at + len] = '\0';
  }
  return (int)err->status;
}

const char *cc_status_name(enum cc_status status)
{
  switch (status) {
  case CC_OK: return "ok";
  case CC_ERR_USAGE: return "usage";
  case CC_ERR_INPUT: return "input";
  case CC_ERR_UNSUPPORTED: return "unsupported";
  case CC_ERR_MEMCHECK: return "memcheck";
  case CC_ERR_LIMIT: return "limit";
  case CC_ERR_IO: return "io";
  case CC_ERR_TOOL: return "tool";
  case CC_ERR_KERNEL: return "kernel";
  case CC_ERR_NO_GPU: return "no-gpu";
  case CC_ERR_NO_FIX: return "no-fix";
  case CC_ERR_GATE: return "gate";
  case CC_ERR_INTERNAL: return "internal";
  }
  return "unknown";
}

void cc_bug(const char *file, int line, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "coalcheck: BUG at %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  abort();
}
