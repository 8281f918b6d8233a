/* coalcheck gpu: summing the per-SM counter shards (layout.h) into per-pc statistics. */
#include <string.h>

#include "gpu/gpu.h"

void cc_gpu_stats_init(struct cc_gpu_pc_stats *s)
{
  memset(s, 0, sizeof *s);
  s->stride_min = UINT64_MAX;
  s->ways = 1;
}

static uint64_t hi32(uint64_t v) { return v >> 32; }
static uint64_t lo32(uint64_t v) { return v & 0xffffffffu; }

void cc_gpu_stats_add_shards(struct cc_gpu_pc_stats *acc, const uint64_t *raw,
                             uint32_t n_shards)
{
  for (uint32_t i = 0; i < n_shards; i++) {
    const uint64_t *r = raw + (size_t)i * CC_GPU_FIELDS;
    acc->requests += hi32(r[CC_GPU_F_REQ_LANES]);
    acc->lanes += lo32(r[CC_GPU_F_REQ_LANES]);
    acc->sectors += hi32(r[CC_GPU_F_SECT_IDEAL]);
    acc->ideal += lo32(r[CC_GPU_F_SECT_IDEAL]);
    acc->stride_sum += r[CC_GPU_F_STRSUM];
    /* the device stores UINT64_MAX - min so that zeroed memory means "none" */
    if (r[CC_GPU_F_STRMIN_INV] != 0 && UINT64_MAX - r[CC_GPU_F_STRMIN_INV] < acc->stride_min)
      acc->stride_min = UINT64_MAX - r[CC_GPU_F_STRMIN_INV];
    if (r[CC_GPU_F_STRMAX] > acc->stride_max)
      acc->stride_max = r[CC_GPU_F_STRMAX];
    if (r[CC_GPU_F_WAYS] > acc->ways)
      acc->ways = r[CC_GPU_F_WAYS];
    acc->flags |= (uint32_t)r[CC_GPU_F_FLAGS];
  }
  /* one instruction has one access size; each execution adds (its lanes - 1) strides; a
   * local access wider than 4 bytes is one request per 32-bit word (patch.cu) */
  uint32_t size = cc_gpu_stats_size(acc);
  uint64_t words = cc_access_words(cc_gpu_stats_space(acc), size);
  acc->bytes = acc->lanes * size;
  acc->stride_count = acc->lanes - acc->requests / words;
}

enum cc_space cc_gpu_stats_space(const struct cc_gpu_pc_stats *s)
{
  for (int sp = CC_SPACE_GLOBAL; sp < CC_SPACE_COUNT; sp++)
    if (s->flags & (1u << (CC_GPU_FL_SPACE_SHIFT + sp)))
      return (enum cc_space)sp;
  return CC_SPACE_GLOBAL;
}

uint32_t cc_gpu_stats_size(const struct cc_gpu_pc_stats *s)
{
  uint32_t size = 0;
  for (uint32_t b = 0; b <= 4; b++)
    if (s->flags & (1u << (CC_GPU_FL_SIZE_SHIFT + b)))
      size = 1u << b;
  return size;
}

enum cc_access_kind cc_gpu_stats_kind(const struct cc_gpu_pc_stats *s, const char *sass)
{
  if (s->flags & CC_GPU_FL_ATOMIC) {
    if (sass) {
      if (*sass == '@') { /* a guard predicate "@P0 " / "@!PT " */
        while (*sass && *sass != ' ')
          sass++;
        while (*sass == ' ')
          sass++;
      }
      if (strncmp(sass, "RED", 3) == 0)
        return CC_ACCESS_REDUCTION;
    }
    return CC_ACCESS_ATOMIC;
  }
  if (s->flags & CC_GPU_FL_WRITE)
    return CC_ACCESS_STORE;
  return CC_ACCESS_LOAD;
}
