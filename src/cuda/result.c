/* coalcheck CUDA front end: the results' lifecycle and names (built with or without
 * libclang). */
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda.h"
#include "cuda/pad.h"
#include "cuda/tile.h"
#include "cuda/redist.h"

static const char *const hazard_names[] = {
  "warp intrinsic", "cooperative groups", "inline asm lane id", "inline asm warp instruction",
  "volatile memory", "warpSize", "lane or warp id",
};

const char *cc_cuda_hazard_name(enum cc_cuda_hazard kind)
{
  return (unsigned)kind < sizeof hazard_names / sizeof hazard_names[0] ? hazard_names[kind] : "?";
}

void cc_cuda_rewrite_release(struct cc_cuda_rewrite *r)
{
  free(r->text);
  for (uint32_t i = 0; i < r->nsites; i++)
    free(r->sites[i].note);
  free(r->sites);
  free(r->caller_note);
  memset(r, 0, sizeof *r);
}

void cc_cuda_scan_release(struct cc_cuda_scan *s)
{
  for (uint32_t i = 0; i < s->nsites; i++) {
    free(s->sites[i].file);
    free(s->sites[i].what);
  }
  free(s->sites);
  memset(s, 0, sizeof *s);
}

void cc_cuda_pad_result_release(struct cc_cuda_pad_result *r)
{
  free(r->text);
  memset(r, 0, sizeof *r);
}

void cc_cuda_tile_result_release(struct cc_cuda_tile_result *r)
{
  free(r->text);
  free(r->elt);
  memset(r, 0, sizeof *r);
}

void cc_cuda_redist_release(struct cc_cuda_redist *r)
{
  for (int f = 0; f < CC_CUDA_REDIST_NFORMS; f++)
    free(r->text[f]);
  free(r->loops);
  memset(r, 0, sizeof *r);
}
