/* coalcheck: the one way of reporting errors.
 *
 * Bad input (files, PTX, launch specs, emulated out-of-bounds accesses) is reported
 * through a struct cc_err filled by the function that found it and returned up the call
 * chain as its status; only main() prints it. Invariants use assert(); programmer errors
 * that must survive NDEBUG use CC_BUG(). Messages follow git's guidelines: lowercase, what
 * failed first, then where (file:line:column), then what to do; no full stop. */
#ifndef CC_UTIL_ERR_H
#define CC_UTIL_ERR_H

#include <stddef.h>

/* Ownership annotations (isl's __isl_give/__isl_take/__isl_keep): empty markers.
 * cc_give: the caller owns the returned object and frees it.
 * cc_take: the callee takes the argument (and frees it, on failure too).
 * cc_keep: the callee only borrows the argument. */
#define cc_give
#define cc_take
#define cc_keep

/* Status codes double as the process exit codes documented in docs/exit-codes.md. */
enum cc_status {
  CC_OK = 0,
  CC_ERR_USAGE = 2,       /* bad command line: unknown option, bad --arg, missing value */
  CC_ERR_INPUT = 3,       /* unreadable or malformed input: file, PTX syntax, launch spec */
  CC_ERR_UNSUPPORTED = 4, /* PTX the emulator does not implement (named before the run) */
  CC_ERR_MEMCHECK = 5,    /* emulated kernel accessed memory outside any allocation */
  CC_ERR_LIMIT = 6,       /* instruction budget exhausted (runaway kernel) */
  CC_ERR_IO = 7,          /* an output file could not be written whole */
  CC_ERR_TOOL = 8,        /* an external tool (nvcc) failed or is missing */
  CC_ERR_KERNEL = 9,      /* emulated kernel trapped (trap, misaligned access, ...) */
  CC_ERR_NO_GPU = 10,     /* --backend gpu (or an executable INPUT) without a usable GPU */
  CC_ERR_NO_FIX = 11,     /* `coalcheck fix`: no legal transformation improves the kernel
                             (refused or no gain); nothing that looks like a fix is written */
  CC_ERR_GATE = 12,       /* a --fail-on gate tripped; every output was written (report/ci.h) */
  CC_ERR_INTERNAL = 70    /* a bug in coalcheck */
};

/* 8 KiB: `coalcheck fix --transform auto` joins one refusal a transformation, six lines
 * of up to CC_FIX_REFUSAL_MAX bytes each (src/fix), and must not cut the last ones off */
#define CC_ERR_MSG_MAX 8192

/* An error: a status and a human-readable message. A zeroed struct means "no error". */
struct cc_err {
  enum cc_status status;
  char msg[CC_ERR_MSG_MAX];
};

/* Fills *err (if not NULL) with status and a printf-style message; returns status, so
 * that callers can write `return cc_err_set(err, CC_ERR_INPUT, "...", ...);`. */
int cc_err_set(struct cc_err *err, enum cc_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "context: " to err->msg (e.g. the file being read); returns err->status. */
int cc_err_prefix(struct cc_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name of a status for messages and docs, e.g. "memcheck" for CC_ERR_MEMCHECK. */
const char *cc_status_name(enum cc_status status);

/* Programmer error: prints file:line and the message to stderr and aborts. */
#define CC_BUG(...) cc_bug(__FILE__, __LINE__, __VA_ARGS__)
/* What CC_BUG expands to: "coalcheck: BUG at FILE:LINE: message" on stderr, then abort();
 * never returns, survives NDEBUG. Call it through CC_BUG. */
_Noreturn void cc_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
