/* coalcheck fix --transform soa (issue 10, item 4; CGO 2015 leaves data layout to future
 * work): a kernel whose lanes read the members of one structure each gets its structure
 * arrays laid out member by member in blocks of 32 elements (cuda/soa.h), the buffers
 * converted by relayouts for the verification, and a header of host-side conversion
 * routines (soa_layout.c). Where the structure escapes the kernel, the refusal is the
 * advice: the structure of arrays to adopt by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/soa_impl.h"
#include "util/mem.h"

/* The buffer argument bound to parameter p (arguments bind by position: launch.h's
 * cc_launch_bind), and its bytes after the original run. */
static int bound_buffer(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
                        const struct cc_cuda_soa_param *p, const struct cc_fix_buffer **buf,
                        struct cc_err *err)
{
  const struct cc_launch_arg *a = p->index < o->nargs ? &o->args[p->index] : NULL;
  if (!a || !a->is_buffer || !a->name)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: parameter %s of kernel %s is not bound "
                      "to a buffer argument (--arg %u); the layout change converts that buffer",
                      o->input, p->line, p->column, p->name, o->kernel_name, p->index + 1);
  if (a->layout.struct_bytes)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: buffer '%s' of parameter %s has a "
                      "layout in its --arg already (%s); give the kernel its buffer in the "
                      "array-of-structures order", o->input, p->line, p->column, a->name,
                      p->name, a->text);
  for (uint32_t i = 0; i < before->nbufs; i++)
    if (strcmp(before->bufs[i].name, a->name) == 0) {
      *buf = &before->bufs[i];
      return CC_OK;
    }
  return cc_err_set(err, CC_ERR_INTERNAL, "soa: buffer '%s' of parameter %s was not measured "
                    "(a bug in coalcheck)", a->name, p->name);
}

/* The buffer must hold whole blocks of 32 structures: the blocked layout fills exactly
 * those, and the kernel does not know the element count that a last partial block's
 * member stride would need. */
static int check_count(const struct cc_fix_opts *o, const struct cc_cuda_soa_param *p,
                       const struct cc_fix_buffer *b, struct cc_err *err)
{
  uint64_t n = b->bytes / p->size;
  if (b->bytes % p->size != 0)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: buffer '%s' of parameter %s has %llu "
                      "bytes, not a whole number of %u-byte struct %s elements; bind it to an "
                      "array of them", o->input, p->line, p->column, b->name, p->name,
                      (unsigned long long)b->bytes, p->size, p->record);
  if (n % 32 != 0)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s:%u:%u: buffer '%s' of parameter %s holds %llu "
                      "struct %s elements, not a multiple of 32: the blocked layout (32 "
                      "elements per block) would not fill it and the kernel does not know the "
                      "count a last partial block needs; pad the array to a multiple of 32 "
                      "elements (%llu)", o->input, p->line, p->column, b->name, p->name,
                      (unsigned long long)n, p->record, (unsigned long long)((n + 31) / 32 * 32));
  return CC_OK;
}

/* Sums of the original's global instructions on p's access lines (the input's file). */
struct lines_cost {
  uint64_t requests, sectors, ideal;
};

static int in_input(const struct cc_fix_opts *o, const char *file)
{
  const char *a = strrchr(o->input, '/'), *b = file ? strrchr(file, '/') : NULL;
  a = a ? a + 1 : o->input;
  b = b ? b + 1 : file;
  return !file || strcmp(a, b) == 0;
}

static void cost_of_lines(const struct cc_fix_opts *o, const struct cc_kernel_stats *k,
                          const struct cc_cuda_soa_param *p, struct lines_cost *c)
{
  for (size_t i = 0; k && i < k->n_insns; i++) {
    const struct cc_insn_stats *s = &k->insns[i];
    if (s->info.space != CC_SPACE_GLOBAL || !in_input(o, s->info.file))
      continue;
    for (uint32_t l = 0; l < p->nlines; l++)
      if (p->lines[l] == s->info.line) {
        c->requests += s->requests;
        c->sectors += s->sectors;
        c->ideal += s->ideal_sectors;
        break;
      }
  }
}

/* The candidate's relayouts (one per parameter), the header and the sentences. */
static void fill(const struct cc_fix_opts *o, const struct cc_cuda_soa *r,
                 const struct cc_fix_buffer *const *bufs, const struct lines_cost *c,
                 struct cc_fix_xcand *x)
{
  struct cc_fix_soa_layout **ls = cc_xcalloc(r->nparams, sizeof *ls);
  size_t at = 0, wat = 0;
  char *note;
  x->relayouts = cc_xcalloc(r->nparams, sizeof *x->relayouts);
  x->nrelayouts = r->nparams;
  for (uint32_t i = 0; i < r->nparams; i++) {
    const struct cc_cuda_soa_param *p = &r->params[i];
    struct cc_launch_layout ll;
    char text[1024];
    ls[i] = cc_fix_soa_layout_new(p);
    cc_fix_soa_launch_layout(ls[i], &ll);
    x->relayouts[i] = (struct cc_fix_relayout){cc_xstrdup(bufs[i]->name), ls[i],
                                               cc_fix_soa_to_blocked, cc_fix_soa_from_blocked,
                                               free, NULL};
    /* a structure of more runs than the directive holds keeps only the header's route */
    if (cc_launch_layout_format(&ll, text, sizeof text) > 0)
      x->relayouts[i].launch_layout = cc_xstrdup(text);
    cc_launch_layout_release(&ll);
    at += (size_t)snprintf(x->what + at, at < sizeof x->what ? sizeof x->what - at : 0,
                           "%s%s (struct %s, %u bytes)", i ? " and " : "", p->name, p->record,
                           p->size);
    wat += (size_t)snprintf(x->why + wat, wat < sizeof x->why ? sizeof x->why - wat : 0,
                            "%s'%s'", i ? ", " : "", bufs[i]->name);
  }
  if (at < sizeof x->what)
    snprintf(x->what + at, sizeof x->what - at, " stored member by member in blocks of 32 "
             "elements");
  x->extra_text = cc_fix_soa_header(o->input, o->kernel_name, r->params, r->nparams, ls);
  x->extra_name = cc_xmalloc(strlen(o->kernel_name) + sizeof "_soa_layout.h");
  sprintf(x->extra_name, "%s_soa_layout.h", o->kernel_name);
  note = cc_xmalloc(strlen(x->why) + strlen(x->extra_name) + 400);
  sprintf(note, "the fixed kernel reads buffer(s) %s in the blocked layout of %s: this "
          "launch file's soa(...) layouts apply it to what the initialisers fill and undo it "
          "in --dump; a program of your own converts with its *_to_blocked routines before "
          "the launch and back with *_from_blocked after it", x->why, x->extra_name);
  x->launch_note = note;
  snprintf(x->why, sizeof x->why, "the accesses to the structures read %llu sectors in %llu "
           "requests (%.1f per request); in blocks of 32 a warp reads a member's 32 values as "
           "one run: %llu predicted (the ideal, %.1f per request)",
           (unsigned long long)c->sectors, (unsigned long long)c->requests,
           c->requests ? (double)c->sectors / (double)c->requests : 0.0,
           (unsigned long long)c->ideal,
           c->requests ? (double)c->ideal / (double)c->requests : 0.0);
  free(ls);
}

int cc_fix_soa(const struct cc_fix_opts *o, const struct cc_fix_measure *before,
               cc_fix_xcands *out, struct cc_err *err)
{
  struct cc_cuda_soa r;
  const struct cc_fix_buffer **bufs = NULL;
  struct lines_cost c = {0, 0, 0};
  struct cc_fix_xcand x;
  int rc;
  if (!o->input_is_cuda)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: laying an array of structures out member by "
                      "member needs the kernel's CUDA C source (the structure's members and "
                      "every use of the pointer); give the .cu file", o->input);
  if ((rc = cc_cuda_soa(o->input, o->input_text, o->input_len, o->kernel_name, o->clang_args,
                        o->nclang_args, &r, err)) != CC_OK)
    return rc;
  bufs = cc_xcalloc(r.nparams, sizeof *bufs);
  for (uint32_t i = 0; i < r.nparams && rc == CC_OK; i++)
    if ((rc = bound_buffer(o, before, &r.params[i], &bufs[i], err)) == CC_OK &&
        (rc = check_count(o, &r.params[i], bufs[i], err)) == CC_OK)
      cost_of_lines(o, cc_fix_measure_kernel(before), &r.params[i], &c);
  if (rc == CC_OK && c.sectors <= c.ideal)
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s:%u: the accesses to %s are coalesced already "
                    "(%llu sectors in %llu requests, the ideal); laying it out member by "
                    "member would not lower them", o->input, r.params[0].lines[0],
                    r.params[0].name, (unsigned long long)c.sectors,
                    (unsigned long long)c.requests);
  if (rc == CC_OK) {
    memset(&x, 0, sizeof x);
    x.transform = "soa";
    x.text = r.text;
    x.len = r.len;
    r.text = NULL;
    memcpy(x.grid, o->grid, sizeof x.grid);
    memcpy(x.block, o->block, sizeof x.block);
    x.shared_bytes = o->shared_bytes;
    x.compare = CC_FIX_COMPARE_BITWISE;
    fill(o, &r, bufs, &c, &x);
    CC_VEC_PUSH(out, x);
  }
  free(bufs);
  cc_cuda_soa_release(&r);
  return rc;
}
