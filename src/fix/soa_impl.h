/* The blocked layout of `coalcheck fix --transform soa` on the host (soa_layout.c): the
 * buffer relayouts the verification applies and the conversion header written to DIR.
 * Inside src/fix only. The layout (cuda/soa.h): element e's member at offset o, size z,
 * of a structure of s bytes, lives at byte (e / 32) * 32 s + 32 o + (e % 32) z. */
#ifndef CC_FIX_SOA_IMPL_H
#define CC_FIX_SOA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda/soa.h"
#include "launch/launch.h"
#include "fix/fix_impl.h"

/* A run of the structure's bytes that moves as one: a member, or a gap of padding (which
 * moves too, so that the layout is a permutation of the buffer's bytes and a round trip
 * restores every byte). */
struct cc_fix_soa_piece {
  uint32_t offset, size;   /* bytes within the structure */
  int padding;             /* 1: no member lives there */
};

/* One structure's layout: its pieces cover [0, size) in ascending order. */
struct cc_fix_soa_layout {
  uint32_t size;           /* bytes: sizeof(S) */
  uint32_t npieces;
  struct cc_fix_soa_piece pieces[]; /* npieces */
};

/* The layout of p's structure (members and the padding between and after them). Owned by
 * the caller (free). */
cc_give struct cc_fix_soa_layout *cc_fix_soa_layout_new(const struct cc_cuda_soa_param *p);

/* Byte in the blocked buffer of element e's bytes at offset o (size z, a piece's) of the
 * structure of l. */
uint64_t cc_fix_soa_address(const struct cc_fix_soa_layout *l, uint64_t e, uint32_t o,
                            uint32_t z);

/* l as a launch file's LAYOUT (launch.h: the same blocked layout, block 32) into *out
 * (released by the caller with cc_launch_layout_release). */
void cc_fix_soa_launch_layout(const struct cc_fix_soa_layout *l, cc_give struct cc_launch_layout *out);

/* struct cc_fix_relayout's functions, ctx a struct cc_fix_soa_layout: the buffer's
 * bytes (an array of bytes / size structures) from the array-of-structures layout to the
 * blocked one (to_blocked) and back (from_blocked), in place. Only whole blocks of 32
 * elements move; bytes after the last whole block stay (the caller refuses buffers with
 * a partial block). */
void cc_fix_soa_to_blocked(const void *ctx, uint8_t *data, uint64_t bytes);
void cc_fix_soa_from_blocked(const void *ctx, uint8_t *data, uint64_t bytes);

/* The text of KERNEL_soa_layout.h for the parameters params (nparams, their layouts
 * layouts[i]) of kernel `kernel` in file `input`: plain C (C99, compiles as C++ with nvcc)
 * routines converting an array of n structures to the blocked layout and back, and the
 * byte address of a member. Owned by the caller (free). */
cc_give char *cc_fix_soa_header(const char *input, const char *kernel,
                                const struct cc_cuda_soa_param *params, uint32_t nparams,
                                struct cc_fix_soa_layout *const *layouts);

#endif
