/* coalcheck: allocation helpers and a typed growable array.
 *
 * Allocation failure is not recoverable in a command-line tool that needs a few MiB:
 * cc_xmalloc and friends abort with a message (CC_BUG) instead of returning NULL. */
#ifndef CC_UTIL_MEM_H
#define CC_UTIL_MEM_H

#include <stddef.h>

#include "util/err.h" /* cc_give, cc_take, cc_keep */

/* malloc/calloc/realloc/strdup that never return NULL (abort on exhaustion through
 * CC_BUG). Sizes are in bytes; a request of 0 bytes still returns a unique pointer. The
 * caller owns the result and releases it with free(). */
cc_give void *cc_xmalloc(size_t bytes);
/* count elements of bytes each, zero-filled. */
cc_give void *cc_xcalloc(size_t count, size_t bytes);
/* Resizes ptr (taken; NULL allowed) to bytes; the old pointer is invalid afterwards. */
cc_give void *cc_xrealloc(cc_take void *ptr, size_t bytes);
/* A copy of the NUL-terminated string s. */
cc_give char *cc_xstrdup(cc_keep const char *s);
/* A NUL-terminated copy of exactly the n bytes at s (unlike strndup it does not stop at
 * a NUL: s must hold n readable bytes). Used for tokens given as pointer and length. */
cc_give char *cc_xstrndup(cc_keep const char *s, size_t n);

/* Asks the kernel to back the 2 MiB-aligned part of the allocation [p, p + bytes) with
 * transparent huge pages (madvise MADV_HUGEPAGE), when bytes >= CC_MEM_HUGE_MIN; call it
 * before the memory is first written. A hint: where the kernel has no such pages, or
 * gives them without asking (mode "always"), nothing changes; the memory stays the
 * caller's, freed with free() as before. Why: Debian's kernels give huge pages only when
 * asked (mode "madvise"), and the emulated buffers and the cache model's arrays are read
 * at strides of a page or more (a column of a matrix, the sets of L2): with 4 KiB pages
 * each such access walks the page table, with 2 MiB pages a 64 MiB buffer is 32 TLB
 * entries. The cost: a page touched at all holds 2 MiB of memory, so memory grows by up
 * to 2 MiB for each 2 MiB range touched, never beyond the allocation. */
#define CC_MEM_HUGE_MIN ((size_t)2 << 20)
void cc_mem_huge(cc_keep void *p, size_t bytes);

/* Grows an array p of *cap elements of elem bytes so that it holds at least need
 * elements (doubling; first size 8); returns the (possibly moved) array and updates *cap.
 * The caller owns the result; never NULL (aborts on exhaustion). */
cc_give void *cc_xgrow(cc_take void *p, size_t *cap, size_t need, size_t elem);

/* Growable array of T: `CC_VEC(int) v = {0}; CC_VEC_PUSH(&v, 3); free(v.data);`. */
#define CC_VEC(T) struct { T *data; size_t len, cap; }
#define CC_VEC_RESERVE(v, n)                                                            \
  do {                                                                                  \
    if ((v)->len + (n) > (v)->cap) {                                                    \
      size_t cc_nc_ = (v)->cap ? (v)->cap * 2 : 8;                                      \
      while (cc_nc_ < (v)->len + (n)) cc_nc_ *= 2;                                      \
      (v)->data = cc_xrealloc((v)->data, cc_nc_ * sizeof *(v)->data);                   \
      (v)->cap = cc_nc_;                                                                \
    }                                                                                   \
  } while (0)
#define CC_VEC_PUSH(v, x)                                                               \
  do {                                                                                  \
    CC_VEC_RESERVE(v, 1);                                                               \
    (v)->data[(v)->len++] = (x);                                                        \
  } while (0)
#define CC_VEC_FREE(v) (free((v)->data), (v)->data = NULL, (v)->len = (v)->cap = 0)

/* A growing NUL-terminated string: `struct cc_strbuf b = {0}; cc_strbuf_printf(&b, "%d", 3);`
 * then b.s (owned by the caller; NULL until something is appended), b.len bytes. */
struct cc_strbuf {
  char *s;
  size_t len, cap;
};

/* Appends printf-style text to b. Aborts on exhausted memory as cc_xmalloc does. */
void cc_strbuf_printf(struct cc_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
