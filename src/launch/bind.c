/* Binding --arg specs to a kernel's .param list, and dumping buffers. See launch.h. */
#include "launch/launch.h"
#include "launch/launch_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/mem.h"

void cc_launch_bound_release(struct cc_launch_bound *b)
{
  for (uint32_t i = 0; i < b->nparams; i++)
    free(b->params[i]);
  free(b->params);
  free(b->param_bytes);
  free(b->buffers);
  memset(b, 0, sizeof *b);
}

const struct cc_launch_buffer *cc_launch_find_buffer(const struct cc_launch_bound *b,
                                                      const char *name)
{
  for (uint32_t i = 0; i < b->nbuffers; i++)
    if (strcmp(b->buffers[i].name, name) == 0)
      return &b->buffers[i];
  return NULL;
}

/* Spelling of a parameter type (our own table: launch needs only the PTX IR's layout,
 * not the parser library). */
static const char *ptype_name(enum ptx_type t)
{
  static const char *const names[PTX_TYPE_COUNT] = {
    [PTX_TYPE_NONE] = "?", [PTX_TYPE_PRED] = "pred", [PTX_TYPE_B8] = "b8",
    [PTX_TYPE_B16] = "b16", [PTX_TYPE_B32] = "b32", [PTX_TYPE_B64] = "b64",
    [PTX_TYPE_B128] = "b128", [PTX_TYPE_U8] = "u8", [PTX_TYPE_U16] = "u16",
    [PTX_TYPE_U32] = "u32", [PTX_TYPE_U64] = "u64", [PTX_TYPE_S8] = "s8",
    [PTX_TYPE_S16] = "s16", [PTX_TYPE_S32] = "s32", [PTX_TYPE_S64] = "s64",
    [PTX_TYPE_F16] = "f16", [PTX_TYPE_F16X2] = "f16x2", [PTX_TYPE_BF16] = "bf16",
    [PTX_TYPE_BF16X2] = "bf16x2", [PTX_TYPE_F32] = "f32", [PTX_TYPE_F64] = "f64",
  };
  return (unsigned)t < PTX_TYPE_COUNT && names[t] ? names[t] : "?";
}

/* PTX spelling of a parameter's type for messages ("s32", "b8[24]"). */
static void param_type_text(const struct ptx_var *v, char *buf, size_t size)
{
  const char *name = ptype_name(v->type);
  if (v->count != 1 || v->vec != 1)
    snprintf(buf, size, "%s[%llu]", name, (unsigned long long)(v->size_bytes /
                                         (cc_launch_scalar_size(v->type) ?
                                          cc_launch_scalar_size(v->type) : 1)));
  else
    snprintf(buf, size, "%s", name);
}

/* "argument 3 'n'" or "argument 3" (a bare value) into buf. */
static void arg_label(const struct cc_launch_arg *a, size_t i, char *buf, size_t size)
{
  if (a->name)
    snprintf(buf, size, "argument %zu '%s'", i + 1, a->name);
  else
    snprintf(buf, size, "argument %zu", i + 1);
}

/* rc, with a's origin ("FILE:LINE") prefixed to err when rc is an error and a has one. */
static int at_arg(const struct cc_launch_arg *a, int rc, struct cc_err *err)
{
  if (rc != CC_OK && a->origin)
    cc_err_prefix(err, "%s", a->origin);
  return rc;
}

/* Checks that no two arguments share a name (dumps and size expressions look names up). */
static int check_names(const struct cc_launch_arg *args, size_t nargs, struct cc_err *err)
{
  for (size_t i = 0; i < nargs; i++)
    for (size_t j = 0; j < i; j++)
      if (args[i].name && args[j].name && strcmp(args[i].name, args[j].name) == 0)
        return at_arg(&args[i],
                      cc_err_set(err, CC_ERR_INPUT, "arguments %zu and %zu are both called "
                                 "'%s'; give each its own name", j + 1, i + 1, args[i].name),
                      err);
  return CC_OK;
}

/* The type a scalar for a parameter of PTX type t is converted as. nvcc declares every
 * integer parameter unsigned (`int` is .u32, `short` .u16, `long long` .u64: nvcc 13's
 * -ptx), so the PTX cannot tell a negative int from a large unsigned: a .uN parameter
 * takes what a .bN does, -2^(N-1)..2^N-1, a negative value as its two's complement. */
static enum ptx_type param_value_type(enum ptx_type t)
{
  switch (t) {
  case PTX_TYPE_U8: return PTX_TYPE_B8;
  case PTX_TYPE_U16: return PTX_TYPE_B16;
  case PTX_TYPE_U32: return PTX_TYPE_B32;
  case PTX_TYPE_U64: return PTX_TYPE_B64;
  default: return t;
  }
}

/* Packs scalar argument i into param slot i. */
static int bind_scalar(const struct cc_launch_arg *a, size_t i, const struct ptx_var *pv,
                       struct cc_launch_bound *b, struct cc_err *err)
{
  char label[160], ptype[48], why[200];
  uint8_t bytes[8];
  unsigned size = cc_launch_scalar_size(pv->type);
  arg_label(a, i, label, sizeof label);
  param_type_text(pv, ptype, sizeof ptype);
  if (size == 0 || pv->count != 1 || pv->vec != 1)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s: the kernel's parameter is %s (%llu bytes), which coalcheck cannot "
                      "pass yet; only scalars and pointers are supported", label, ptype,
                      (unsigned long long)pv->size_bytes);
  if (cc_launch_convert(param_value_type(pv->type), a->value, bytes, why, sizeof why) != 0)
    return cc_err_set(err, CC_ERR_INPUT, "%s is %s in the kernel but %s", label, ptype, why);
  b->params[i] = cc_xmalloc(size);
  memcpy(b->params[i], bytes, size);
  b->param_bytes[i] = size;
  return CC_OK;
}

/* Checks buffer argument i against its parameter pv and evaluates its size into buf. */
static int size_buffer(const struct cc_launch_arg *args, size_t nargs, size_t i,
                       const struct ptx_var *pv, struct cc_launch_buffer *buf,
                       struct cc_err *err)
{
  const struct cc_launch_arg *a = &args[i];
  char label[160], ptype[48];
  unsigned esize = cc_launch_type_size(a->type);
  arg_label(a, i, label, sizeof label);
  param_type_text(pv, ptype, sizeof ptype);
  if (pv->count != 1 || pv->vec != 1 || cc_launch_scalar_size(pv->type) != 8 ||
      pv->type == PTX_TYPE_F64)
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s is a buffer, passed as a 64-bit pointer, but the kernel's parameter "
                      "is %s; pass a scalar NAME=VALUE there", label, ptype);
  if (cc_launch_eval_size(a->size_expr, args, nargs, &buf->count, err) != CC_OK)
    return cc_err_prefix(err, "%s", label);
  if (__builtin_mul_overflow(buf->count, (uint64_t)esize, &buf->bytes))
    return cc_err_set(err, CC_ERR_INPUT,
                      "%s: %llu elements of %u bytes overflow 64 bits; check the size "
                      "expression '%s'", label, (unsigned long long)buf->count, esize,
                      a->size_expr);
  buf->name = a->name;
  buf->type = a->type;
  buf->layout = a->layout.struct_bytes ? &a->layout : NULL;
  return cc_launch_layout_check(&a->layout, a->name, buf->bytes, err);
}

/* bytes for messages: "512 bytes", "68719476736 bytes (64.0 GiB)". */
static void show_bytes(uint64_t bytes, char *buf, size_t size)
{
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)bytes;
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    u++;
  }
  if (u < 0)
    snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
  else
    snprintf(buf, size, "%llu bytes (%.1f %s)", (unsigned long long)bytes, v, units[u]);
}

/* Checks that the buffers b->buffers[0..nbuffers) (those of args, in order) fit max_bytes
 * together (0: no limit); the error names the argument that crosses it. */
static int check_total(const struct cc_launch_arg *args, size_t nargs,
                       const struct cc_launch_bound *b, uint64_t max_bytes, struct cc_err *err)
{
  uint64_t total = 0, bytes = 0;
  size_t j = 0;
  for (size_t i = 0; i < nargs && max_bytes; i++) {
    const struct cc_launch_buffer *buf = &b->buffers[j];
    char label[160], need[48], sum[48], max[48];
    int overflow;
    if (!args[i].is_buffer)
      continue;
    j++;
    /* a buffer's offset(BYTES) takes memory too: BYTES before its first element */
    overflow = __builtin_add_overflow(buf->bytes, (uint64_t)args[i].offset, &bytes) ||
               __builtin_add_overflow(total, bytes, &total);
    if (!overflow && total <= max_bytes)
      continue;
    arg_label(&args[i], i, label, sizeof label);
    show_bytes(overflow ? buf->bytes : bytes, need, sizeof need);
    if (overflow)
      snprintf(sum, sizeof sum, "more than 2^64-1 bytes");
    else
      show_bytes(total, sum, sizeof sum);
    show_bytes(max_bytes, max, sizeof max);
    return at_arg(&args[i],
                  cc_err_set(err, CC_ERR_LIMIT, "%s needs %s, which brings the buffers to %s, "
                             "above the limit of %s of emulated memory; use smaller sizes, or "
                             "raise the limit with --max-memory", label, need, sum, max),
                  err);
  }
  return CC_OK;
}

/* Allocates, fills and packs buffer argument i, sized in buf: with offset(BYTES), BYTES
 * more, the buffer (its address and host bytes) starting BYTES into the allocation. */
static int alloc_buffer(const struct cc_launch_arg *a, size_t i,
                        struct cc_launch_buffer *buf, const struct cc_launch_allocator *alloc,
                        struct cc_launch_bound *b, struct cc_err *err)
{
  char label[160];
  uint64_t bytes;
  int rc;
  arg_label(a, i, label, sizeof label);
  if (__builtin_add_overflow(buf->bytes, (uint64_t)a->offset, &bytes))
    return cc_err_set(err, CC_ERR_INPUT, "%s: %llu bytes and its offset of %u overflow 64 "
                      "bits; check the size expression '%s'", label,
                      (unsigned long long)buf->bytes, a->offset, a->size_expr);
  if ((rc = alloc->alloc(alloc->ctx, bytes, a->name, &buf->dev_addr, &buf->host, err)) != CC_OK)
    return cc_err_prefix(err, "%s", label);
  buf->dev_addr += a->offset;
  buf->host = (uint8_t *)buf->host + a->offset;
  /* the allocator's memory is zero-filled: zero touches no page */
  if (a->init != CC_INIT_ZERO &&
      (rc = cc_launch_fill_threads(a, buf->count, buf->host, alloc->fill_threads, err)) != CC_OK)
    return rc;
  b->params[i] = cc_xmalloc(8);
  memcpy(b->params[i], &buf->dev_addr, 8);
  b->param_bytes[i] = 8;
  return CC_OK;
}

/* Binds the arguments in three steps: scalars first (a size expression over a scalar
 * that does not fit its parameter should fail on the scalar, where the mistake is), then
 * every buffer's size and their total (nothing is allocated for a launch that does not
 * fit), then the buffers' memory. */
static int bind_all(const struct cc_launch_arg *args, size_t nargs,
                    const struct ptx_function *k, const struct cc_launch_allocator *alloc,
                    struct cc_launch_bound *out, struct cc_err *err)
{
  int rc;
  size_t j = 0;
  for (size_t i = 0; i < nargs; i++)
    if (!args[i].is_buffer &&
        (rc = bind_scalar(&args[i], i, &k->vars[k->param_vars[i]], out, err)) != CC_OK)
      return at_arg(&args[i], rc, err);
  for (size_t i = 0; i < nargs; i++)
    if (args[i].is_buffer &&
        (rc = size_buffer(args, nargs, i, &k->vars[k->param_vars[i]],
                          &out->buffers[out->nbuffers++], err)) != CC_OK)
      return at_arg(&args[i], rc, err);
  if ((rc = check_total(args, nargs, out, alloc->max_bytes, err)) != CC_OK)
    return rc;
  for (size_t i = 0; i < nargs; i++)
    if (args[i].is_buffer &&
        (rc = alloc_buffer(&args[i], i, &out->buffers[j++], alloc, out, err)) != CC_OK)
      return at_arg(&args[i], rc, err);
  return CC_OK;
}

int cc_launch_bind(const struct cc_launch_arg *args, size_t nargs,
                   const struct ptx_function *k, const struct cc_launch_allocator *alloc,
                   struct cc_launch_bound *out, struct cc_err *err)
{
  int rc;
  memset(out, 0, sizeof *out);
  if (nargs != k->nparams)
    return cc_err_set(err, CC_ERR_INPUT,
                      "kernel %s has %u parameter%s but %zu --arg %s given; pass one --arg per "
                      "parameter, in order", k->name, k->nparams, k->nparams == 1 ? "" : "s",
                      nargs, nargs == 1 ? "was" : "were");
  if ((rc = check_names(args, nargs, err)) != CC_OK)
    return rc;
  out->nparams = (uint32_t)nargs;
  out->params = cc_xcalloc(nargs ? nargs : 1, sizeof *out->params);
  out->param_bytes = cc_xcalloc(nargs ? nargs : 1, sizeof *out->param_bytes);
  out->buffers = cc_xcalloc(nargs ? nargs : 1, sizeof *out->buffers);
  if ((rc = bind_all(args, nargs, k, alloc, out, err)) != CC_OK)
    cc_launch_bound_release(out);
  return rc;
}

int cc_launch_dump(const struct cc_launch_buffer *buf, const char *path, struct cc_err *err)
{
  struct cc_outfile f;
  const void *bytes = buf->host;
  uint8_t *aos = NULL;
  int rc = cc_outfile_open(&f, path, err);
  if (rc != CC_OK)
    return cc_err_prefix(err, "cannot dump buffer '%s'", buf->name);
  if (buf->layout && buf->layout->struct_bytes && buf->bytes) {
    /* the dump is in the order the initialiser filled, the layout undone on a copy */
    aos = cc_xmalloc((size_t)buf->bytes);
    memcpy(aos, buf->host, (size_t)buf->bytes);
    cc_launch_layout_apply(buf->layout, aos, buf->bytes, 1);
    bytes = aos;
  }
  errno = 0;
  if (buf->bytes && fwrite(bytes, 1, (size_t)buf->bytes, f.fp) != buf->bytes) {
    int e = errno;
    free(aos);
    cc_outfile_abort(&f);
    return cc_err_set(err, CC_ERR_IO, "cannot dump buffer '%s': cannot write %s: %s",
                      buf->name, path, e ? strerror(e) : "write error (disk full?)");
  }
  free(aos);
  if ((rc = cc_outfile_commit(&f, err)) != CC_OK)
    return cc_err_prefix(err, "cannot dump buffer '%s'", buf->name);
  return CC_OK;
}
