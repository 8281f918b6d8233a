/* coalcheck CUDA front end: the source side of `coalcheck fix --transform soa` (issue 10,
 * item 4): an array of structures read member by member, laid out member by member.
 *
 * A kernel parameter `S *p` (or `const S *p`) points to an array of a plain structure S
 * whose members are scalars (integers, floating point, enums, pointers). Lanes that read
 * one member of consecutive elements touch addresses sizeof(S) bytes apart: a warp's 32
 * floats of a 12-byte S span 12 sectors where 4 would hold them (CUDA C Programming
 * Guide, "Device Memory Accesses"). The fix keeps the buffer (same size, same parameter)
 * and changes its layout to blocks of 32 elements, each member contiguous inside a block
 * (an "array of structures of arrays", AoSoA-32): element e's member m lives at byte
 *
 *     (e / 32) * 32 * sizeof(S) + offsetof(S, m) * 32 + (e % 32) * sizeof(m)
 *
 * so the 32 lanes of a warp reading member m of 32 consecutive, 32-aligned elements read
 * 32 * sizeof(m) contiguous bytes starting on a sector boundary (32 * sizeof(S) and
 * 32 * offsetof are multiples of 32): sizeof(m) sectors, the ideal. The layout needs no
 * element count, which the kernel does not know; it fills the buffer exactly when the
 * count is a multiple of 32 (the caller checks; padding bytes of S become runs of their
 * own, so the layout is a permutation of the buffer's bytes). */
#ifndef CC_CUDA_SOA_H
#define CC_CUDA_SOA_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/mem.h"

/* One member of S, in declaration order. */
struct cc_cuda_soa_member {
  char *name;              /* owned */
  char *type;              /* owned: its type as C spells it, canonical ("float", "int") */
  uint32_t offset, size;   /* bytes: offsetof(S, m), sizeof(m) */
};

/* One parameter laid out member by member. */
struct cc_cuda_soa_param {
  uint32_t index;          /* its position in the kernel's parameter list (0-based) */
  char *name;              /* owned: the parameter's name */
  char *record;            /* owned: S as spelled in the source ("particle") */
  uint32_t size;           /* bytes: sizeof(S) */
  int is_const;            /* the parameter is `const S *` */
  struct cc_cuda_soa_member *members; uint32_t nmembers; /* owned */
  uint32_t accesses;       /* member accesses and whole-element loads rewritten */
  uint32_t *lines; uint32_t nlines; /* owned: distinct source lines of those, ascending */
  uint32_t line, column;   /* of the parameter's declaration */
};

/* The result of cc_cuda_soa; cc_cuda_soa_release frees it. */
struct cc_cuda_soa {
  char *text; size_t len;  /* owned: the whole rewritten file, NUL-terminated */
  struct cc_cuda_soa_param *params; uint32_t nparams; /* owned: those rewritten */
};

/* Rewrites kernel `kernel` (found as cc_cuda_permute finds it) of the CUDA file path
 * (text, len bytes; extra_args added to clang's command line) so that every parameter
 * `S *p` / `const S *p` of a plain structure S of scalar members, indexed by a value that
 * is not a constant somewhere, addresses its buffer in the AoSoA-32 layout above. Every
 * use of p must be one of
 *   p[e].m     (*__cc_soa_p_m(p, e))
 *   (p + e)->m (*__cc_soa_p_m(p, e))
 *   p->m       (*__cc_soa_p_m(p, 0))
 *   S q = p[e];  S q = __cc_soa_p_get(p, e);   (a copy into a local, any type of e)
 *   S *q = p + e;  or  S *q = &p[e];  const long long q = (e);   (q, a pointer to one
 *              element declared alone, used only as q->m: Rodinia nn's latLong)
 *   q->m       (*__cc_soa_p_m(p, q))
 * (right: what it becomes). The helpers, `__device__ __forceinline__` functions computing
 * the address from the buffer's base, are inserted before the kernel; every other byte is
 * unchanged, e included. The kernel keeps its name and parameters.
 *
 * Errors: CC_ERR_NO_FIX with the reason (FILE:LINE:COL, the construct, what to do):
 * - p escapes: passed to a function, cast, stored, used in other address arithmetic
 *   (`p + e` not followed by ->m, `p++`), written or read whole elsewhere (`p[e] = q`), a
 *   member's address taken (`&p[e].m`), an element pointer q used other than as q->m
 *   (reassigned, passed): the message is the advice, the structure of
 *   arrays to adopt by hand (one array per member with its element type);
 * - S is not plain (a member that is an array, a structure, a bit-field; not POD), an
 *   access lies in a macro expansion, the kernel is a template over S;
 * - no parameter qualifies (no pointer to such a structure indexed by a non-constant).
 * CC_ERR_INPUT and CC_ERR_TOOL as cc_cuda_permute. On error *out is zeroed. */
int cc_cuda_soa(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_soa *out,
                struct cc_err *err);

/* Frees what s owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_soa_release(struct cc_cuda_soa *s);

#endif
