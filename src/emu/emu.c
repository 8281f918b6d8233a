/* Emulator lifecycle and global/constant memory: see emu.h and README.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu_internal.h"

/* x rounded up to a multiple of a */
static uint64_t round_up(uint64_t x, uint64_t a)
{
  return (x + a - 1) / a * a;
}

/* Appends a region at the next free global address (256-byte aligned, GLOBAL_GAP bytes
 * after the previous one so that small overruns hit no allocation), backed by host (taken:
 * zero-filled memory of at least bytes bytes, 1 for 0). */
static struct region *add_region(struct cc_emu *emu, uint64_t bytes, const char *name,
                                 cc_take void *host)
{
  struct region g;
  g.base = emu->next_global;
  g.size = bytes;
  g.host = host;
  g.name = cc_xstrdup(name ? name : "?");
  emu->next_global = round_up(g.base + (bytes ? bytes : 1) + GLOBAL_GAP, 256);
  CC_VEC_PUSH(&emu->regions, g);
  return &emu->regions.data[emu->regions.len - 1];
}

/* the alignment of a variable: declared, else natural */
static uint64_t var_align(const struct ptx_var *v)
{
  uint64_t a = v->align ? v->align : ptx_type_size(v->type) * (v->vec ? v->vec : 1);
  return a ? a : 1;
}

/* the index of the module variable named name[0..len), or -1 */
static int find_mvar(const struct ptx_module *m, const char *name, size_t len)
{
  for (uint32_t j = 0; j < m->nvars; j++)
    if (strlen(m->vars[j].name) == len && memcmp(m->vars[j].name, name, len) == 0)
      return (int)j;
  return -1;
}

/* Evaluates a symbolic initializer such as "{generic(a), b+8, 0}" into out (the
 * variable's size_bytes): each element is a number, or NAME, NAME+N, generic(NAME)[+N]
 * naming a module .global variable (its address; generic = global addresses) or .const
 * variable (its offset). Returns 0 on anything else (the variable is then unusable). */
static int eval_symbolic(struct cc_emu *emu, const struct ptx_var *v, uint8_t *out)
{
  const char *p = v->init_text;
  unsigned es = ptx_type_size(v->type);
  uint64_t off = 0;
  if (!p || es == 0 || es > 8) return 0;
  while (*p == ' ' || *p == '{') p++;
  while (*p && *p != '}') {
    uint64_t val = 0;
    char *end;
    int gen = 0;
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    if (strncmp(p, "generic(", 8) == 0) { gen = 1; p += 8; }
    if ((*p >= '0' && *p <= '9') || *p == '-') {
      val = strtoull(p, &end, 0);
      p = end;
    } else {
      const char *n0 = p;
      int j;
      while (*p && *p != ')' && *p != '+' && *p != ',' && *p != '}' && *p != ' ') p++;
      j = find_mvar(emu->m, n0, (size_t)(p - n0));
      if (j < 0 || (emu->m->vars[j].space != PTX_SPACE_GLOBAL &&
                    emu->m->vars[j].space != PTX_SPACE_CONST))
        return 0;
      val = emu->mvar_addr[j] + (emu->m->vars[j].space == PTX_SPACE_CONST && gen ? WIN_CONST : 0);
    }
    if (gen) {
      if (*p != ')') return 0;
      p++;
    }
    if (*p == '+') {
      val += strtoull(p + 1, &end, 0);
      p = end;
    }
    if (off + es > v->size_bytes) return 0;
    memcpy(out + off, &val, es); /* little-endian host, as the GPU */
    off += es;
    while (*p == ' ') p++;
    if (*p == ',') p++;
    else if (*p && *p != '}') return 0;
  }
  return 1;
}

struct cc_emu *cc_emu_new(const struct ptx_module *m, const struct cc_emu_opts *opts)
{
  struct cc_emu *emu = cc_xcalloc(1, sizeof *emu);
  emu->m = m;
  if (opts) emu->opts = *opts;
  emu->next_global = GLOBAL_BASE;
  emu->mvar_addr = cc_xcalloc(m->nvars ? m->nvars : 1, sizeof *emu->mvar_addr);
  emu->mvar_bad = cc_xcalloc(m->nvars ? m->nvars : 1, 1);
  /* .const variables: one bank, each at its alignment */
  for (uint32_t j = 0; j < m->nvars; j++) {
    const struct ptx_var *v = &m->vars[j];
    if (v->space != PTX_SPACE_CONST) continue;
    emu->const_size = round_up(emu->const_size, var_align(v));
    emu->mvar_addr[j] = emu->const_size;
    emu->const_size += v->size_bytes;
  }
  emu->constbank = cc_xcalloc(emu->const_size ? emu->const_size : 1, 1);
  for (uint32_t j = 0; j < m->nvars; j++) {
    const struct ptx_var *v = &m->vars[j];
    if (v->space == PTX_SPACE_CONST && v->init)
      memcpy(emu->constbank + emu->mvar_addr[j], v->init, v->size_bytes);
    if (v->space == PTX_SPACE_GLOBAL) {
      struct region *g = add_region(emu, v->size_bytes, v->name,
                                    cc_xcalloc(v->size_bytes ? v->size_bytes : 1, 1));
      emu->mvar_addr[j] = g->base;
      if (v->init) memcpy(g->host, v->init, v->size_bytes);
    }
  }
  /* symbolic initializers, once every variable has its address */
  for (uint32_t j = 0; j < m->nvars; j++) {
    const struct ptx_var *v = &m->vars[j];
    uint8_t *dst = NULL;
    if (!v->init_is_symbolic) continue;
    if (v->space == PTX_SPACE_CONST) dst = emu->constbank + emu->mvar_addr[j];
    if (v->space == PTX_SPACE_GLOBAL) {
      struct region *g = emu_find_region(emu, emu->mvar_addr[j], 1);
      dst = g ? g->host : NULL;
    }
    if (!dst || !eval_symbolic(emu, v, dst)) emu->mvar_bad[j] = 1;
  }
  return emu;
}

void cc_emu_free(struct cc_emu *emu)
{
  if (!emu) return;
  for (size_t j = 0; j < emu->regions.len; j++) {
    free(emu->regions.data[j].host);
    free(emu->regions.data[j].name);
  }
  CC_VEC_FREE(&emu->regions);
  for (uint32_t j = 0; j < emu->ncodes; j++) {
    emu_code_release(emu->codes[j]);
    free(emu->codes[j]);
  }
  free(emu->codes);
  free(emu->mvar_addr);
  free(emu->mvar_bad);
  free(emu->constbank);
  free(emu);
}

int cc_emu_alloc(struct cc_emu *emu, uint64_t bytes, const char *name, uint64_t *dev_addr,
                 void **host, struct cc_err *err)
{
  struct region *g;
  void *mem;
  /* the global window ends where 64-bit user space does on the GPU (2^47) */
  if (bytes > (UINT64_C(1) << 40) || emu->next_global + bytes > (UINT64_C(1) << 47))
    return cc_err_set(err, CC_ERR_INPUT,
                      "cannot allocate %" PRIu64 " bytes of emulated global memory for "
                      "buffer '%s'; use a smaller size",
                      bytes, name ? name : "?");
  /* the host may not have it: an error, not an abort */
  if (!(mem = calloc(bytes ? bytes : 1, 1)))
    return cc_err_set(err, CC_ERR_LIMIT,
                      "cannot allocate %" PRIu64 " bytes of host memory for buffer '%s': out "
                      "of memory; use a smaller size or free memory", bytes, name ? name : "?");
  cc_mem_huge(mem, bytes); /* before the buffer's first write (its INIT) */
  g = add_region(emu, bytes, name, mem);
  if (dev_addr) *dev_addr = g->base;
  if (host) *host = g->host;
  return CC_OK;
}

struct region *emu_find_region(struct cc_emu *emu, uint64_t addr, uint64_t size)
{
  size_t lo = 0, hi = emu->regions.len;
  /* regions are appended at increasing addresses: binary search the last base <= addr */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (emu->regions.data[mid].base <= addr) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0) return NULL;
  {
    struct region *g = &emu->regions.data[lo - 1];
    if (addr - g->base < g->size && size <= g->size - (addr - g->base)) return g;
  }
  return NULL;
}

void emu_describe_global(struct cc_emu *emu, uint64_t addr, char *buf, size_t size)
{
  const struct region *best = NULL;
  uint64_t bestd = UINT64_MAX;
  int after = 0;
  for (size_t j = 0; j < emu->regions.len; j++) {
    const struct region *g = &emu->regions.data[j];
    uint64_t end = g->base + g->size;
    if (addr >= end && addr - end < bestd) {
      best = g;
      bestd = addr - end;
      after = 1;
    } else if (addr < g->base && g->base - addr < bestd) {
      best = g;
      bestd = g->base - addr;
      after = 0;
    } else if (addr >= g->base && addr < end) { /* straddles the end */
      best = g;
      bestd = end - addr;
      after = 2;
      break;
    }
  }
  if (!best || bestd > (UINT64_C(1) << 30)) {
    snprintf(buf, size, "not in any allocation");
    return;
  }
  if (after == 2)
    snprintf(buf, size, "inside buffer '%s' (0x%" PRIx64 ", %" PRIu64
             " bytes) but the access runs %" PRIu64 " bytes past its end",
             best->name, best->base, best->size, bestd);
  else
    snprintf(buf, size, "%" PRIu64 " bytes %s buffer '%s' (0x%" PRIx64 ", %" PRIu64 " bytes)",
             bestd, after ? "after the end of" : "before the start of", best->name, best->base,
             best->size);
}

/* see emu_internal.h */
int emu_code_get(struct cc_emu *emu, const struct ptx_function *k, const struct code **out,
                 struct cc_err *err)
{
  struct code *c;
  int s;
  for (uint32_t j = 0; j < emu->ncodes; j++)
    if (emu->codes[j]->funcs[0].f == k) {
      *out = emu->codes[j];
      return CC_OK;
    }
  c = cc_xmalloc(sizeof *c);
  if ((s = emu_decode(emu, k, c, err))) {
    free(c);
    return s;
  }
  emu->codes = cc_xrealloc(emu->codes, (emu->ncodes + 1) * sizeof *emu->codes);
  emu->codes[emu->ncodes++] = c;
  *out = c;
  return CC_OK;
}

int cc_emu_check(struct cc_emu *emu, const struct ptx_function *k, struct cc_err *err)
{
  const struct code *c;
  return emu_code_get(emu, k, &c, err);
}
