/* The blocked layout of `coalcheck fix --transform soa` on the host: the relayouts of the
 * verification and the conversion header written beside the fix (soa_impl.h). */
#include "fix/soa_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

/* Elements per block: one warp's lanes (CUDA C Programming Guide, "SIMT Architecture"). */
#define BLOCK 32u

struct cc_fix_soa_layout *cc_fix_soa_layout_new(const struct cc_cuda_soa_param *p)
{
  struct cc_fix_soa_layout *l =
      cc_xcalloc(1, sizeof *l + (2 * (size_t)p->nmembers + 1) * sizeof l->pieces[0]);
  uint32_t at = 0;
  l->size = p->size;
  for (uint32_t i = 0; i < p->nmembers; i++) {
    const struct cc_cuda_soa_member *mb = &p->members[i];
    if (mb->offset > at)
      l->pieces[l->npieces++] = (struct cc_fix_soa_piece){at, mb->offset - at, 1};
    l->pieces[l->npieces++] = (struct cc_fix_soa_piece){mb->offset, mb->size, 0};
    at = mb->offset + mb->size;
  }
  if (p->size > at)
    l->pieces[l->npieces++] = (struct cc_fix_soa_piece){at, p->size - at, 1};
  return l;
}

uint64_t cc_fix_soa_address(const struct cc_fix_soa_layout *l, uint64_t e, uint32_t o,
                            uint32_t z)
{
  return (e / BLOCK) * BLOCK * l->size + (uint64_t)BLOCK * o + (e % BLOCK) * z;
}

void cc_fix_soa_launch_layout(const struct cc_fix_soa_layout *l, struct cc_launch_layout *out)
{
  out->struct_bytes = l->size;
  out->block = BLOCK;
  out->npieces = l->npieces;
  out->offsets = cc_xcalloc(l->npieces, sizeof *out->offsets);
  for (uint32_t k = 0; k < l->npieces; k++)
    out->offsets[k] = l->pieces[k].offset;
}

/* Moves every whole block of 32 elements: to 1, AoS -> blocked (the launch module's
 * relayout, the one a launch file's LAYOUT applies). */
static void relayout(const struct cc_fix_soa_layout *l, uint8_t *data, uint64_t bytes, int to)
{
  struct cc_launch_layout ll;
  cc_fix_soa_launch_layout(l, &ll);
  cc_launch_layout_apply(&ll, data, bytes, !to);
  cc_launch_layout_release(&ll);
}

void cc_fix_soa_to_blocked(const void *ctx, uint8_t *data, uint64_t bytes)
{
  relayout(ctx, data, bytes, 1);
}

void cc_fix_soa_from_blocked(const void *ctx, uint8_t *data, uint64_t bytes)
{
  relayout(ctx, data, bytes, 0);
}

/* ---- the header ---- */

/* The member of p at offset o, or NULL (padding). */
static const struct cc_cuda_soa_member *member_at(const struct cc_cuda_soa_param *p, uint32_t o)
{
  for (uint32_t i = 0; i < p->nmembers; i++)
    if (p->members[i].offset == o)
      return &p->members[i];
  return NULL;
}

static void header_param(struct cc_strbuf *t, const char *id, const struct cc_cuda_soa_param *p,
                         const struct cc_fix_soa_layout *l)
{
  cc_strbuf_printf(t, "/* %s: struct %s, %u bytes; its pieces (offset, size), padding included so that a "
      "round trip\n * restores every byte. */\nstatic const struct %s_soa_piece %s_%s_pieces[] "
      "= {\n", p->name, p->record, p->size, id, id, p->name);
  for (uint32_t k = 0; k < l->npieces; k++) {
    const struct cc_cuda_soa_member *mb = member_at(p, l->pieces[k].offset);
    cc_strbuf_printf(t, "  {%u, %u}, /* %s%s%s */\n", l->pieces[k].offset, l->pieces[k].size,
        l->pieces[k].padding ? "padding" : mb->name, l->pieces[k].padding ? "" : ": ",
        l->pieces[k].padding ? "" : mb->type);
  }
  cc_strbuf_printf(t, "};\n\n/* Converts n elements of struct %s (n a multiple of 32) from the array of "
      "structures at\n * aos into %s's blocked layout at blocked (n * %u bytes each, not "
      "overlapping). Returns 0,\n * or -1 when n is not a multiple of 32 (nothing written). */\n"
      "static inline int %s_%s_to_blocked(void *blocked, const void *aos, size_t n)\n{\n"
      "  return %s_soa_convert(blocked, aos, n, %u, %s_%s_pieces, %u, 1);\n}\n\n",
      p->record, p->name, p->size, id, p->name, id, p->size, id, p->name, l->npieces);
  cc_strbuf_printf(t, "/* The inverse: n elements of %s's blocked layout at blocked back into an array of\n"
      " * struct %s at aos. Returns 0, or -1 when n is not a multiple of 32. */\n"
      "static inline int %s_%s_from_blocked(void *aos, const void *blocked, size_t n)\n{\n"
      "  return %s_soa_convert(aos, blocked, n, %u, %s_%s_pieces, %u, 0);\n}\n\n",
      p->name, p->record, id, p->name, id, p->size, id, p->name, l->npieces);
}

char *cc_fix_soa_header(const char *input, const char *kernel,
                        const struct cc_cuda_soa_param *params, uint32_t nparams,
                        struct cc_fix_soa_layout *const *layouts)
{
  struct cc_strbuf t = {NULL, 0, 0};
  char id[256], guard[256];
  size_t i;
  for (i = 0; kernel[i] && i + 1 < sizeof id; i++) {
    id[i] = isalnum((unsigned char)kernel[i]) ? kernel[i] : '_';
    guard[i] = (char)toupper((unsigned char)id[i]);
  }
  id[i] = guard[i] = '\0';
  cc_strbuf_printf(&t, "/* %s_soa_layout.h: written by `coalcheck fix --transform soa` for kernel %s of %s.\n"
      " *\n * The fixed kernel reads the buffers below in a blocked layout (an \"array of "
      "structures of\n * arrays\", 32 elements per block, one per lane of a warp): element "
      "e's member m of a\n * structure S lives at byte\n *\n *     (e / 32) * 32 * sizeof(S) + "
      "32 * offsetof(S, m) + (e %% 32) * sizeof(m)\n *\n * of the same buffer, so that the 32 "
      "lanes of a warp reading member m of 32 consecutive\n * elements read one contiguous "
      "run of sizeof(m) sectors. The buffer keeps its size; its\n * element count must be a "
      "multiple of 32 (pad it). Convert each array with\n * *_to_blocked before launching "
      "the fixed kernel and back with *_from_blocked after it\n * (or keep the data blocked "
      "throughout). Plain C99; compiles as C++ (nvcc) too. */\n"
      "#ifndef %s_SOA_LAYOUT_H\n#define %s_SOA_LAYOUT_H\n\n#include <stddef.h>\n"
      "#include <string.h>\n\n", id, kernel, input, guard, guard);
  cc_strbuf_printf(&t, "/* A run of a structure's bytes that moves as one: a member, or padding. */\n"
      "struct %s_soa_piece {\n  size_t offset, size;\n};\n\n"
      "/* Byte of element e's run at offset o (size z) in the blocked layout of structures "
      "of s bytes. */\nstatic inline size_t %s_soa_address(size_t s, size_t e, size_t o, "
      "size_t z)\n{\n  return (e / 32) * 32 * s + 32 * o + (e %% 32) * z;\n}\n\n", id, id);
  cc_strbuf_printf(&t, "/* Converts n structures of s bytes (pieces: npieces runs covering [0, s)) from src "
      "to dst,\n * which must not overlap: to_blocked 1, array of structures -> blocked; 0, "
      "back. Returns 0,\n * or -1 when n is not a multiple of 32 (nothing written). */\n"
      "static inline int %s_soa_convert(void *dst, const void *src, size_t n, size_t s,\n"
      "                                 const struct %s_soa_piece *pieces, size_t npieces,\n"
      "                                 int to_blocked)\n{\n"
      "  unsigned char *d = (unsigned char *)dst;\n"
      "  const unsigned char *p = (const unsigned char *)src;\n  size_t e, k;\n"
      "  if (n %% 32 != 0)\n    return -1;\n  for (e = 0; e < n; e++)\n"
      "    for (k = 0; k < npieces; k++) {\n"
      "      size_t a = e * s + pieces[k].offset;\n"
      "      size_t b = %s_soa_address(s, e, pieces[k].offset, pieces[k].size);\n"
      "      if (to_blocked)\n        memcpy(d + b, p + a, pieces[k].size);\n"
      "      else\n        memcpy(d + a, p + b, pieces[k].size);\n    }\n  return 0;\n}\n\n",
      id, id, id);
  for (uint32_t k = 0; k < nparams; k++)
    header_param(&t, id, &params[k], layouts[k]);
  cc_strbuf_printf(&t, "#endif\n");
  return t.s;
}
