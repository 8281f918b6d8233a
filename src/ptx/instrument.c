/* coalcheck PTX front end: the inline counting pass (see instrument.h for the rules and
 * the counter layout). The module is printed by ptx_print_module_hooked; the hooks add
 * the counter parameter, the per-entry prologue and one block before each site. Every
 * inserted register is declared inside a { } block of its own or carries the prefix
 * %cci_, which nvcc never writes. */
#include "ptx/instrument.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/instrument_funcs.h"
#include "util/mem.h"

/* The pass's state while printing. */
struct inst {
  const struct ptx_module *m;
  struct ptx_inst_map *map;
  struct ptx_inst_funcs funcs; /* the counted .func bodies, the entries' region ranks */
  uint32_t fstart, nfs;        /* .func sites: region r = sites fstart + r x nfs .. + nfs */
  uint32_t *site_of;   /* per instruction of the function being printed: site + 1, 0 none */
  uint32_t site_func;  /* the function site_of describes, or UINT32_MAX */
  struct cc_strbuf text; /* the last text handed to the printer */
};

static uint32_t func_index(const struct ptx_module *m, const struct ptx_function *f)
{
  return (uint32_t)(f - m->funcs);
}

/* The address operand of a memory instruction, or NULL. */
static const struct ptx_operand *addr_operand(const struct ptx_function *f,
                                              const struct ptx_insn *in)
{
  for (uint32_t k = 0; k < in->nopnds; k++)
    if (f->opnds[in->opnd + k].kind == PTX_OPND_ADDR)
      return &f->opnds[in->opnd + k];
  return NULL;
}

/* Whether in is a site; fills kind and size. */
static int is_site(const struct ptx_function *f, const struct ptx_insn *in, uint8_t *kind,
                   uint32_t *size)
{
  switch (in->op) {
  case PTX_OP_LD: case PTX_OP_LDU: *kind = PTX_INST_LOAD; break;
  case PTX_OP_ST: *kind = PTX_INST_STORE; break;
  case PTX_OP_ATOM: *kind = PTX_INST_ATOMIC; break;
  case PTX_OP_RED: *kind = PTX_INST_REDUCTION; break;
  default: return 0;
  }
  *size = ptx_type_size((enum ptx_type)in->type[0]) * (in->vec ? in->vec : 1);
  return 1;
}

/* Why a memory instruction cannot be counted inline, or NULL when it can. */
static const char *refusal(const struct ptx_function *f, const struct ptx_insn *in, uint32_t size)
{
  const struct ptx_operand *a = addr_operand(f, in);
  if (in->flags & PTX_F_XTYPE) return "an instruction type of a recent architecture";
  if (!a) return "no address operand";
  if (in->space == PTX_SPACE_SHARED_CLUSTER) return "a .shared::cluster access";
  if (in->space != PTX_SPACE_GLOBAL && in->space != PTX_SPACE_SHARED &&
      in->space != PTX_SPACE_LOCAL && in->space != PTX_SPACE_GENERIC)
    return "an access of a state space the pass does not count";
  if (size == 0 || size > 16 || (size & (size - 1)))
    return "a vector access of more than 16 bytes per lane";
  if (a->reg >= 0 && ptx_type_size(f->regs[a->reg].type) != 4 &&
      ptx_type_size(f->regs[a->reg].type) != 8)
    return "an address register of neither 32 nor 64 bits";
  return NULL;
}

/* Why an instruction that moves memory but is no ld/st/atom/red is not counted, or NULL
 * (not a memory instruction the report's counters would include). */
static const char *other_memory(const struct ptx_function *f, const struct ptx_insn *in)
{
  const char *t = in->opcode_text ? in->opcode_text : "";
  (void)f;
  switch (in->op) {
  case PTX_OP_CP:
    return strncmp(t, "cp.async", 8) == 0 && !strstr(t, "commit_group") &&
                   !strstr(t, "wait_") && !strstr(t, "mbarrier")
               ? "an asynchronous copy (cp.async)" : NULL;
  case PTX_OP_LDMATRIX: return "a matrix load from shared memory (ldmatrix)";
  case PTX_OP_STMATRIX: return "a matrix store to shared memory (stmatrix)";
  case PTX_OP_WMMA:
    return strstr(t, ".load") || strstr(t, ".store") ? "a wmma load or store" : NULL;
  default: return NULL;
  }
}

/* loop[i] != 0: instruction i of f lies between a label and a later branch back to it */
static int32_t *loop_marks(const struct ptx_function *f)
{
  int32_t *d = cc_xcalloc((size_t)f->ninsns + 1, sizeof *d);
  for (uint32_t j = 0; f->has_body && j < f->ninsns; j++)
    for (uint32_t k = 0; k < f->insns[j].nopnds; k++) {
      const struct ptx_operand *o = &f->opnds[f->insns[j].opnd + k];
      if (o->kind == PTX_OPND_LABEL && o->target >= 0 && (uint32_t)o->target <= j) {
        d[o->target]++;
        d[j + 1]--;
      }
    }
  for (uint32_t i = 1; i <= f->ninsns; i++)
    d[i] += d[i - 1];
  return d;
}

/* What instruction i of f is: 0 not a memory instruction the report counts, 1 a site
 * (kind and size filled), -1 skipped (*why set). */
static int classify(const struct ptx_function *f, uint32_t i, uint8_t *kind, uint32_t *size,
                    const char **why)
{
  const struct ptx_insn *in = &f->insns[i];
  if (!is_site(f, in, kind, size))
    return (*why = other_memory(f, in)) ? -1 : 0;
  if (in->space == PTX_SPACE_PARAM || in->space == PTX_SPACE_CONST)
    return 0; /* no global, shared or local traffic the report counts */
  return (*why = refusal(f, in, *size)) ? -1 : 1;
}

struct site_vec {
  struct ptx_inst_site *data;
  size_t len, cap;
};

/* Pushes the site(s) of an instruction of space `space`: one, or a generic
 * instruction's three (global, shared, local). */
static void push_sites(struct site_vec *v, struct ptx_inst_site site, uint8_t space)
{
  static const uint8_t spaces[] = {PTX_SPACE_GLOBAL, PTX_SPACE_SHARED, PTX_SPACE_LOCAL};
  if (space != PTX_SPACE_GENERIC) {
    CC_VEC_PUSH(v, site);
    return;
  }
  site.generic = 1;
  for (size_t k = 0; k < sizeof spaces; k++) {
    site.space = spaces[k];
    CC_VEC_PUSH(v, site);
  }
}

/* Most .func sites over all regions (16 KiB each at 256 shards: 64 MiB). */
#define MAX_FUNC_SITES 4096u

static void collect_sites(struct inst *s)
{
  struct site_vec v = {0};
  CC_VEC(struct ptx_inst_skip) skips = {0};
  const struct ptx_module *m = s->m;
  uint8_t *has_sites = cc_xcalloc(m->nfuncs + 1, 1);
  uint8_t kind;
  uint32_t size;
  const char *why;
  for (uint32_t fi = 0; fi < m->nfuncs; fi++)
    for (uint32_t i = 0; m->funcs[fi].has_body && i < m->funcs[fi].ninsns && !has_sites[fi]; i++)
      has_sites[fi] = classify(&m->funcs[fi], i, &kind, &size, &why) > 0;
  ptx_inst_funcs_plan(m, has_sites, &s->funcs);
  free(has_sites);
  uint32_t nfs = 0; /* sites of one region */
  for (uint32_t fi = 0; fi < m->nfuncs; fi++)
    for (uint32_t i = 0; s->funcs.counted[fi] && i < m->funcs[fi].ninsns; i++)
      if (classify(&m->funcs[fi], i, &kind, &size, &why) > 0)
        nfs += m->funcs[fi].insns[i].space == PTX_SPACE_GENERIC ? 3 : 1;
  if ((uint64_t)nfs * s->funcs.nregions > MAX_FUNC_SITES)
    ptx_inst_funcs_none(m, &s->funcs, "in a .func: the module has too many pairs of kernel "
                        "and .func memory instruction to count each (more than 4096)");
  for (uint32_t fi = 0; fi < m->nfuncs; fi++) { /* entries' own sites; skips everywhere */
    const struct ptx_function *f = &m->funcs[fi];
    int32_t *loop = loop_marks(f);
    for (uint32_t i = 0; f->has_body && i < f->ninsns; i++) {
      struct ptx_inst_site site = {.func = fi, .body = fi, .insn = i,
                                   .space = f->insns[i].space, .looped = loop[i] > 0};
      int c = classify(f, i, &site.kind, &site.size_bytes, &why);
      if (c > 0 && !f->is_entry && !s->funcs.counted[fi]) {
        c = -1;
        why = s->funcs.why[fi];
      }
      if (c < 0)
        CC_VEC_PUSH(&skips, ((struct ptx_inst_skip){fi, i, why}));
      else if (c > 0 && f->is_entry)
        push_sites(&v, site, f->insns[i].space);
    }
    free(loop);
  }
  s->fstart = (uint32_t)v.len;
  for (uint32_t e = 0; e < m->nfuncs; e++) { /* each ranked entry's copy of the .func sites */
    if (s->funcs.rank[e] == UINT32_MAX) continue;
    for (uint32_t fi = 0; fi < m->nfuncs; fi++)
      for (uint32_t i = 0; s->funcs.counted[fi] && i < m->funcs[fi].ninsns; i++) {
        /* never execution-sampled: the count of executions lives in the entry */
        struct ptx_inst_site site = {.func = e, .body = fi, .insn = i,
                                     .space = m->funcs[fi].insns[i].space};
        if (classify(&m->funcs[fi], i, &site.kind, &site.size_bytes, &why) > 0)
          push_sites(&v, site, m->funcs[fi].insns[i].space);
      }
  }
  s->nfs = s->funcs.nregions ? ((uint32_t)v.len - s->fstart) / s->funcs.nregions : 0;
  s->map->sites = v.data;
  s->map->nsites = (uint32_t)v.len;
  s->map->skips = skips.data;
  s->map->skipped = (uint32_t)skips.len;
}

/* site_of[] for function fi */
static void index_function(struct inst *s, uint32_t fi)
{
  const struct ptx_function *f = &s->m->funcs[fi];
  if (s->site_func == fi) return;
  free(s->site_of);
  s->site_of = cc_xcalloc(f->ninsns + 1, sizeof *s->site_of);
  /* an entry's own sites, or a .func's in the first region (the others are reached
   * through the region's base, PTX_INST_FUNC_PARAM) */
  for (uint32_t k = 0; k < s->fstart + s->nfs; k++)
    if (s->map->sites[k].body == fi && !s->site_of[s->map->sites[k].insn])
      s->site_of[s->map->sites[k].insn] = k + 1; /* a generic instruction's first site */
  s->site_func = fi;
}

static const char *reset_text(struct inst *s)
{
  s->text.len = 0;
  if (s->text.s) s->text.s[0] = '\0';
  return s->text.s;
}

/* A register's name as the printer writes it (NAME$k in nested scopes). */
static void put_reg(struct inst *s, const struct ptx_function *f, int32_t r)
{
  cc_strbuf_printf(&s->text, "%s", f->regs[r].name);
  if (f->regs[r].instance) cc_strbuf_printf(&s->text, "$%" PRIu32, f->regs[r].instance);
}

/* Whether f's body is instrumented: an entry, or a counted .func. */
static int instrumented(const struct inst *s, const struct ptx_function *f)
{
  return f->is_entry || s->funcs.counted[func_index(s->m, f)];
}

static const char *hook_param(void *ctx, const struct ptx_function *f)
{
  struct inst *s = ctx;
  if (!instrumented(s, f)) return NULL;
  reset_text(s);
  cc_strbuf_printf(&s->text, ".param .u64 %s", f->is_entry ? PTX_INST_PARAM : PTX_INST_FUNC_PARAM);
  return s->text.s;
}

/* Bytes of one site's counters (all shards). */
static uint64_t site_bytes(const struct inst *s)
{
  return (uint64_t)s->map->shards * PTX_INST_FIELDS * 8u;
}

/* Whether the entries' sites branch over their counting (%cci_on) */
static int entry_gated(const struct inst *s)
{
  return s->map->sample > 1 || s->map->gate || s->map->exec > 1;
}

/* A counted .func's prologue: %cci_base = its region's base at the caller's shard
 * (PTX_INST_FUNC_PARAM), %cci_fb the same for its own calls, %cci_on: it counts. */
static const char *func_prologue(struct inst *s)
{
  reset_text(s);
  cc_strbuf_printf(&s->text,
                   "\t// coalcheck inline counters (src/ptx/instrument.c): this .func's sites\n"
                   "\t.reg .b64 %%cci_base, %%cci_fb;\n"
                   "\t.reg .pred %%cci_on;\n"
                   "\tld.param.u64 %%cci_fb, [%s];\n"
                   "\tmov.b64 %%cci_base, %%cci_fb;\n"
                   "\tsetp.ne.u64 %%cci_on, %%cci_base, 0;\n",
                   PTX_INST_FUNC_PARAM);
  return s->text.s;
}

/* An entry's base for the .funcs it calls: its region of .func sites, 0 when this CTA or
 * launch counts nothing (appended to the entry's prologue). */
static void put_func_base(struct inst *s, const struct ptx_function *f)
{
  uint32_t rank = s->funcs.rank[func_index(s->m, f)];
  if (rank == UINT32_MAX) return;
  cc_strbuf_printf(&s->text,
                   "\t.reg .b64 %%cci_fb;\n"
                   "\tadd.s64 %%cci_fb, %%cci_base, %" PRIu64 ";\n",
                   (uint64_t)rank * s->nfs * site_bytes(s));
  if (entry_gated(s))
    cc_strbuf_printf(&s->text, "\tselp.b64 %%cci_fb, %%cci_fb, 0, %%cci_on;\n");
}

/* Whether instruction index of f calls a counted .func (it then passes the counters). */
static int calls_counted(const struct inst *s, const struct ptx_function *f, uint32_t index)
{
  const struct ptx_insn *in = &f->insns[index];
  return in->op == PTX_OP_CALL && in->callee >= 0 && s->funcs.counted[in->callee];
}

/* Before a call of a counted .func: the argument PTX_INST_FUNC_PARAM, declared where the
 * call's own arguments are (nvcc's { } call sequence); a caller without counters (a
 * .func whose address is taken) passes 0: the callee counts nothing for it, which its
 * skip note says. */
static void put_call_arg(struct inst *s, const struct ptx_function *f, uint32_t index)
{
  cc_strbuf_printf(&s->text,
                   "\t.param .b64 __cci_arg%" PRIu32 ";\n"
                   "\tst.param.b64 [__cci_arg%" PRIu32 "], %s;\n",
                   index, index, instrumented(s, f) ? "%cci_fb" : "0");
}

static const char *hook_call_arg(void *ctx, const struct ptx_function *f, uint32_t index)
{
  struct inst *s = ctx;
  if (!calls_counted(s, f, index)) return NULL;
  reset_text(s);
  cc_strbuf_printf(&s->text, "__cci_arg%" PRIu32, index);
  return s->text.s;
}

/* The entry's prologue: the counter pointer moved to this SM's shard, and with CTA
 * sampling (S > 1) the predicate %cci_on: of each run of S consecutive linear ids (x
 * fastest), the run r = id / S counts its CTA at position ptx_inst_pick(r, S), and its
 * shard is r & (shards - 1) instead of the SM's, so that the shards hold interleaved
 * sub-samples (the estimate's bound, src/cli/gpu_inline.c); CTAs running together have
 * neighbouring ids, so their leaders still add to different words. */
static const char *hook_body(void *ctx, const struct ptx_function *f)
{
  struct inst *s = ctx;
  if (!f->is_entry) return s->funcs.counted[func_index(s->m, f)] ? func_prologue(s) : NULL;
  reset_text(s);
  cc_strbuf_printf(&s->text,
                   "\t// coalcheck inline counters (src/ptx/instrument.c)\n"
                   "\t.reg .b64 %%cci_base, %%cci_off;\n"
                   "\t.reg .b32 %%cci_t<4>;\n"
                   "\t.reg .pred %%cci_on;\n"
                   "%s"
                   "\tld.param.u64 %%cci_base, [%s];\n"
                   "\tcvta.to.global.u64 %%cci_base, %%cci_base;\n",
                   s->map->exec > 1 ? "\t.reg .b32 %cci_x, %cci_sd;\n\t.reg .b64 %cci_pb;\n" : "",
                   PTX_INST_PARAM);
  if (s->map->salted) /* the salt from the pointer's low bits, then the pointer itself */
    cc_strbuf_printf(&s->text, "\t.reg .b32 %%cci_salt, %%cci_n0;\n"
                     "\tcvt.u32.u64 %%cci_salt, %%cci_base;\n"
                     "\tand.b32 %%cci_salt, %%cci_salt, %u;\n"
                     "\tand.b64 %%cci_base, %%cci_base, %" PRId64 ";\n"
                     "\tmul.lo.u32 %%cci_salt, %%cci_salt, %u;\n",
                     (1u << PTX_INST_SALT_BITS) - 1, -(int64_t)(1u << PTX_INST_SALT_BITS),
                     PTX_INST_PICK_MUL2);
  if (s->map->gate) /* a NULL buffer: this launch counts nothing */
    cc_strbuf_printf(&s->text, "\tsetp.ne.u64 %%cci_on, %%cci_base, 0;\n");
  /* salted: the pick within the run's own length (the last run may be shorter), so that
   * every run counts one CTA: n = ceil(C / S) */
  char sample[16], run_length[512];
  snprintf(sample, sizeof sample, "%" PRIu32, s->map->sample);
  snprintf(run_length, sizeof run_length,
           "\t{\n\t.reg .b32 %%cci_n1;\n"
           "\tmov.u32 %%cci_n0, %%nctaid.x;\n"
           "\tmov.u32 %%cci_n1, %%nctaid.y;\n"
           "\tmul.lo.u32 %%cci_n0, %%cci_n0, %%cci_n1;\n"
           "\tmov.u32 %%cci_n1, %%nctaid.z;\n"
           "\tmul.lo.u32 %%cci_n0, %%cci_n0, %%cci_n1;\n"
           "\tmul.lo.u32 %%cci_n1, %%cci_t0, %" PRIu32 ";\n"
           "\tsub.u32 %%cci_n0, %%cci_n0, %%cci_n1;\n"
           "\tmin.u32 %%cci_n0, %%cci_n0, %" PRIu32 ";\n\t}\n",
           s->map->sample, s->map->sample);
  if (s->map->sample > 1 || s->map->exec > 1) /* t2 = linear id, t0 = its run, t1 = the
                                                  run's pick, t3 = pos */
    cc_strbuf_printf(&s->text,
                     "\tmov.u32 %%cci_t0, %%ctaid.z;\n"
                     "\tmov.u32 %%cci_t1, %%nctaid.y;\n"
                     "\tmov.u32 %%cci_t2, %%ctaid.y;\n"
                     "\tmad.lo.u32 %%cci_t0, %%cci_t0, %%cci_t1, %%cci_t2;\n"
                     "\tmov.u32 %%cci_t1, %%nctaid.x;\n"
                     "\tmov.u32 %%cci_t2, %%ctaid.x;\n"
                     "\tmad.lo.u32 %%cci_t2, %%cci_t0, %%cci_t1, %%cci_t2;\n"
                     "\tdiv.u32 %%cci_t0, %%cci_t2, %" PRIu32 ";\n"
                     "%s"
                     "\tmul.lo.u32 %%cci_t1, %%cci_t%c, %u;\n"
                     "\tshr.u32 %%cci_t3, %%cci_t1, 16;\n"
                     "\txor.b32 %%cci_t1, %%cci_t1, %%cci_t3;\n"
                     "\tmul.lo.u32 %%cci_t1, %%cci_t1, %u;\n"
                     "\tshr.u32 %%cci_t3, %%cci_t1, 13;\n"
                     "\txor.b32 %%cci_t1, %%cci_t1, %%cci_t3;\n"
                     "%s"
                     "\trem.u32 %%cci_t1, %%cci_t1, %s;\n"
                     "\trem.u32 %%cci_t3, %%cci_t2, %" PRIu32 ";\n"
                     "\tsetp.eq%s.u32 %%cci_on, %%cci_t3, %%cci_t1%s;\n",
                     s->map->sample,
                     s->map->salted ? "\txor.b32 %cci_t1, %cci_t0, %cci_salt;\n" : "",
                     s->map->salted ? '1' : '0', PTX_INST_PICK_MUL1, PTX_INST_PICK_MUL2,
                     s->map->salted ? run_length : "", s->map->salted ? "%cci_n0" : sample,
                     s->map->sample, s->map->gate ? ".and" : "", s->map->gate ? ", %cci_on" : "");
  else
    cc_strbuf_printf(&s->text, "\tmov.u32 %%cci_t0, %%smid;\n");
  /* the execution count from 0; the hash's seed: the CTA's id and the warp's rank in it.
   * Seeded by the CTA alone, every warp of a CTA (same count sequence) chose the same
   * executions: the sample was one CTA's worth, not one warp's, and per-site estimates of
   * a few counted CTAs were off by 13-23% on the H100 (adi_rows, E = 16). */
  if (s->map->exec > 1)
    cc_strbuf_printf(&s->text, "\tmov.u32 %%cci_x, 0;\n"
                     "\tmul.lo.u32 %%cci_sd, %%cci_t2, %u;\n"
                     "\t{\n\t.reg .b32 %%cci_w<3>;\n"
                     "\tmov.u32 %%cci_w0, %%tid.z;\n"
                     "\tmov.u32 %%cci_w1, %%ntid.y;\n"
                     "\tmov.u32 %%cci_w2, %%tid.y;\n"
                     "\tmad.lo.u32 %%cci_w0, %%cci_w0, %%cci_w1, %%cci_w2;\n"
                     "\tmov.u32 %%cci_w1, %%ntid.x;\n"
                     "\tmov.u32 %%cci_w2, %%tid.x;\n"
                     "\tmad.lo.u32 %%cci_w0, %%cci_w0, %%cci_w1, %%cci_w2;\n"
                     "\tshr.u32 %%cci_w0, %%cci_w0, 5;\n"
                     "\tadd.u32 %%cci_w0, %%cci_w0, 1;\n"
                     "\tmul.lo.u32 %%cci_w0, %%cci_w0, %u;\n"
                     "\txor.b32 %%cci_sd, %%cci_sd, %%cci_w0;\n\t}\n%s",
                     PTX_INST_PICK_MUL2, PTX_INST_PICK_MUL1,
                     s->map->salted ? "\txor.b32 %cci_sd, %cci_sd, %cci_salt;\n" : "");
  cc_strbuf_printf(&s->text,
                   "\tand.b32 %%cci_t0, %%cci_t0, %" PRIu32 ";\n"
                   "\tmul.wide.u32 %%cci_off, %%cci_t0, %u;\n"
                   "\tadd.s64 %%cci_base, %%cci_base, %%cci_off;\n",
                   s->map->shards - 1, 8u * PTX_INST_FIELDS);
  put_func_base(s, f);
  return s->text.s;
}

/* %cci_a0 = the byte address of the access (its space's address, 64 bits) */
static void put_address(struct inst *s, const struct ptx_function *f,
                        const struct ptx_operand *a)
{
  if (a->var >= 0) {
    const struct ptx_var *v =
        a->var_scope == PTX_SCOPE_FUNCTION ? &f->vars[a->var] : &s->m->vars[a->var];
    cc_strbuf_printf(&s->text, "\tmov.u64 %%cci_a0, %s", v->name);
    if (a->var_scope == PTX_SCOPE_FUNCTION && v->instance)
      cc_strbuf_printf(&s->text, "$%" PRIu32, v->instance);
    cc_strbuf_printf(&s->text, ";\n");
  } else if (a->reg >= 0) {
    int wide = ptx_type_size(f->regs[a->reg].type) == 8;
    cc_strbuf_printf(&s->text, wide ? "\tmov.b64 %%cci_a0, " : "\tcvt.u64.u32 %%cci_a0, ");
    put_reg(s, f, a->reg);
    cc_strbuf_printf(&s->text, ";\n");
  } else { /* [imm]: an absolute address */
    cc_strbuf_printf(&s->text, "\tmov.u64 %%cci_a0, %" PRId64 ";\n", a->imm);
    return;
  }
  if (a->imm)
    cc_strbuf_printf(&s->text, "\tadd.s64 %%cci_a0, %%cci_a0, %" PRId64 ";\n", a->imm);
}

/* %cci_m1 = the lanes that access: the executing lanes (%cci_m0) whose guard holds */
static void put_lanes(struct inst *s, const struct ptx_function *f, const struct ptx_insn *in)
{
  cc_strbuf_printf(&s->text, "\tactivemask.b32 %%cci_m0;\n");
  if (in->guard < 0) {
    cc_strbuf_printf(&s->text, "\tmov.b32 %%cci_m1, %%cci_m0;\n");
    return;
  }
  cc_strbuf_printf(&s->text, "\tvote.sync.ballot.b32 %%cci_m1, %s", in->guard_neg ? "!" : "");
  put_reg(s, f, in->guard);
  cc_strbuf_printf(&s->text, ", %%cci_m0;\n");
}

/* %cci_p0 = this lane accesses and no lower accessing lane has the same key (%cci_k,
 * 64 bits): the first lane of each distinct key */
static void put_first_of_key(struct inst *s)
{
  cc_strbuf_printf(&s->text,
                   "\tmatch.any.sync.b64 %%cci_m3, %%cci_k, %%cci_m0;\n"
                   "\tand.b32 %%cci_m3, %%cci_m3, %%cci_m1;\n"
                   "\tand.b32 %%cci_m3, %%cci_m3, %%cci_m2;\n"
                   "\tmov.u32 %%cci_m4, %%lanemask_eq;\n"
                   "\tand.b32 %%cci_m4, %%cci_m4, %%cci_m1;\n"
                   "\tsetp.eq.b32 %%cci_p0, %%cci_m3, 0;\n"
                   "\tsetp.ne.b32 %%cci_p1, %%cci_m4, 0;\n"
                   "\tand.pred %%cci_p0, %%cci_p0, %%cci_p1;\n");
}

/* %cci_u = distinct 32-byte sectors of the accessing lanes, %cci_i = the ideal sectors
 * (global_sector32.c, geometry.c) */
static void put_sectors(struct inst *s, uint32_t size)
{
  cc_strbuf_printf(&s->text, "\tshr.u64 %%cci_k, %%cci_a0, 5;\n");
  put_first_of_key(s);
  cc_strbuf_printf(&s->text,
                   "\tvote.sync.ballot.b32 %%cci_u, %%cci_p0, %%cci_m0;\n"
                   "\tpopc.b32 %%cci_u, %%cci_u;\n"
                   "\tmov.b64 %%cci_k, %%cci_a0;\n");
  put_first_of_key(s); /* distinct addresses: the ideal, ceil(their bytes / 32) */
  cc_strbuf_printf(&s->text,
                   "\tvote.sync.ballot.b32 %%cci_i, %%cci_p0, %%cci_m0;\n"
                   "\tpopc.b32 %%cci_i, %%cci_i;\n"
                   "\tmad.lo.u32 %%cci_i, %%cci_i, %" PRIu32 ", 31;\n"
                   "\tshr.u32 %%cci_i, %%cci_i, 5;\n",
                   size);
}

static uint32_t log2u(uint32_t x)
{
  uint32_t k = 0;
  while ((1u << k) < x) k++;
  return k;
}

/* %cci_u = wavefronts, %cci_w = ways, %cci_i = ideal wavefronts of the accessing lanes (shared_banks32.c, 4-byte
 * banks): units of max(size, 4) bytes, phases of 32 / (max(size, 4) / 4) lanes. */
static void put_wavefronts(struct inst *s, uint32_t size)
{
  uint32_t unit = size < 4 ? 4 : size, phases = unit / 4, groups = 128 / unit;
  uint32_t lane_shift = 5 - log2u(phases);
  cc_strbuf_printf(&s->text,
                   "\tshr.u64 %%cci_a1, %%cci_a0, %" PRIu32 ";\n" /* the unit */
                   "\tmov.u32 %%cci_ph, %%laneid;\n"
                   "\tshr.u32 %%cci_ph, %%cci_ph, %" PRIu32 ";\n" /* the phase */
                   "\tshl.b64 %%cci_k, %%cci_a1, 2;\n"
                   "\tcvt.u64.u32 %%cci_a2, %%cci_ph;\n"
                   "\tor.b64 %%cci_k, %%cci_k, %%cci_a2;\n",
                   log2u(unit), lane_shift);
  put_first_of_key(s); /* %cci_p0: the first lane of each distinct (unit, phase) */
  /* the distinct units of one (bank group, phase): first lanes keyed by it, the other
   * lanes by a key of their own */
  cc_strbuf_printf(&s->text,
                   "\tcvt.u32.u64 %%cci_m3, %%cci_a1;\n"
                   "\tand.b32 %%cci_m3, %%cci_m3, %" PRIu32 ";\n"
                   "\tshl.b32 %%cci_m3, %%cci_m3, 2;\n"
                   "\tor.b32 %%cci_m3, %%cci_m3, %%cci_ph;\n"
                   "\tmov.u32 %%cci_m4, %%laneid;\n"
                   "\tadd.u32 %%cci_m4, %%cci_m4, 128;\n"
                   "\tselp.b32 %%cci_m3, %%cci_m3, %%cci_m4, %%cci_p0;\n"
                   "\tmatch.any.sync.b32 %%cci_m3, %%cci_m3, %%cci_m0;\n"
                   "\tpopc.b32 %%cci_m3, %%cci_m3;\n"
                   "\tselp.b32 %%cci_m3, %%cci_m3, 0, %%cci_p0;\n"
                   "\tmov.u32 %%cci_u, 0;\n"
                   "\tmov.u32 %%cci_w, 0;\n"
                   "\tmov.u32 %%cci_i, 0;\n",
                   groups - 1);
  for (uint32_t p = 0; p < phases; p++) /* the largest count of each phase */
    cc_strbuf_printf(&s->text,
                     "\tsetp.eq.u32 %%cci_p1, %%cci_ph, %" PRIu32 ";\n"
                     "\tselp.b32 %%cci_m4, %%cci_m3, 0, %%cci_p1;\n"
                     "\tredux.sync.max.u32 %%cci_m4, %%cci_m4, %%cci_m0;\n"
                     "\tadd.u32 %%cci_u, %%cci_u, %%cci_m4;\n"
                     "\tmax.u32 %%cci_w, %%cci_w, %%cci_m4;\n"
                     "\tsetp.ne.u32 %%cci_p1, %%cci_m4, 0;\n"
                     "\tselp.b32 %%cci_m4, 1, 0, %%cci_p1;\n"
                     "\tadd.u32 %%cci_i, %%cci_i, %%cci_m4;\n",
                     p);
}

/* %cci_s0 = largest - smallest address, %cci_s1 / %cci_s2 = the smallest / largest
 * neighbour stride of the sorted addresses of the accessing lanes (see instrument.h);
 * %cci_s3 = this lane's key: its address relative to the lowest accessing lane's,
 * saturated to 32 bits, offset by 2^31 so that unsigned order is address order. */
static void put_strides(struct inst *s, uint32_t site)
{
  cc_strbuf_printf(&s->text,
                   "\tneg.s32 %%cci_s0, %%cci_m1;\n"
                   "\tand.b32 %%cci_s0, %%cci_s0, %%cci_m1;\n"
                   "\tbfind.u32 %%cci_s0, %%cci_s0;\n"
                   "\tand.b32 %%cci_s0, %%cci_s0, 31;\n"
                   "\tmov.b64 {%%cci_s1, %%cci_s2}, %%cci_a0;\n"
                   "\tshfl.sync.idx.b32 %%cci_s1, %%cci_s1, %%cci_s0, 31, %%cci_m0;\n"
                   "\tshfl.sync.idx.b32 %%cci_s2, %%cci_s2, %%cci_s0, 31, %%cci_m0;\n"
                   "\tmov.b64 %%cci_b, {%%cci_s1, %%cci_s2};\n"
                   "\tsub.s64 %%cci_b, %%cci_a0, %%cci_b;\n"
                   "\tmax.s64 %%cci_b, %%cci_b, -2147483648;\n"
                   "\tmin.s64 %%cci_b, %%cci_b, 2147483647;\n"
                   "\tcvt.u32.u64 %%cci_s3, %%cci_b;\n"
                   "\txor.b32 %%cci_s3, %%cci_s3, -2147483648;\n"
                   /* the span: keys of accessing lanes only */
                   "\tmov.u32 %%cci_s4, %%lanemask_eq;\n"
                   "\tand.b32 %%cci_s4, %%cci_s4, %%cci_m1;\n"
                   "\tsetp.ne.b32 %%cci_q0, %%cci_s4, 0;\n"
                   "\tselp.b32 %%cci_s1, %%cci_s3, -1, %%cci_q0;\n"
                   "\tredux.sync.min.u32 %%cci_s1, %%cci_s1, %%cci_m0;\n"
                   "\tselp.b32 %%cci_s0, %%cci_s3, 0, %%cci_q0;\n"
                   "\tredux.sync.max.u32 %%cci_s0, %%cci_s0, %%cci_m0;\n"
                   "\tsub.u32 %%cci_s0, %%cci_s0, %%cci_s1;\n"
                   "\tmov.u32 %%cci_s5, %%laneid;\n"
                   /* fast path: a full warp, keys not decreasing with the lane */
                   "\tsetp.ne.b32 %%cci_q1, %%cci_m1, -1;\n"
                   "\t@%%cci_q1 bra $cci_search%" PRIu32 ";\n"
                   "\tshfl.sync.up.b32 %%cci_s4, %%cci_s3, 1, 0, %%cci_m0;\n"
                   "\tsetp.ge.u32 %%cci_q1, %%cci_s3, %%cci_s4;\n"
                   "\tsetp.eq.u32 %%cci_q2, %%cci_s5, 0;\n"
                   "\tor.pred %%cci_q1, %%cci_q1, %%cci_q2;\n"
                   "\tvote.sync.all.pred %%cci_q1, %%cci_q1, %%cci_m0;\n"
                   "\t@!%%cci_q1 bra $cci_search%" PRIu32 ";\n"
                   "\tsub.u32 %%cci_s6, %%cci_s3, %%cci_s4;\n"
                   "\tnot.pred %%cci_q1, %%cci_q2;\n"
                   "\tbra.uni $cci_strided%" PRIu32 ";\n"
                   /* successor search: for each accessing lane j (uniform loop), the
                    * nearest key above this lane's (ties: the higher lane) */
                   "$cci_search%" PRIu32 ":\n"
                   "\tmov.u32 %%cci_s6, -1;\n"
                   "\tsetp.ne.u32 %%cci_q1, 0, 0;\n"
                   "\tmov.b32 %%cci_s7, %%cci_m1;\n"
                   "$cci_next%" PRIu32 ":\n"
                   "\tsetp.eq.b32 %%cci_q2, %%cci_s7, 0;\n"
                   "\t@%%cci_q2 bra $cci_strided%" PRIu32 ";\n"
                   "\tneg.s32 %%cci_s4, %%cci_s7;\n"
                   "\tand.b32 %%cci_s4, %%cci_s4, %%cci_s7;\n"
                   "\txor.b32 %%cci_s7, %%cci_s7, %%cci_s4;\n"
                   "\tbfind.u32 %%cci_s4, %%cci_s4;\n"
                   "\tshfl.sync.idx.b32 %%cci_s2, %%cci_s3, %%cci_s4, 31, %%cci_m0;\n"
                   "\tsetp.gt.u32 %%cci_q2, %%cci_s2, %%cci_s3;\n"
                   "\tsetp.eq.u32 %%cci_q3, %%cci_s2, %%cci_s3;\n"
                   "\tsetp.gt.u32 %%cci_q4, %%cci_s4, %%cci_s5;\n"
                   "\tand.pred %%cci_q3, %%cci_q3, %%cci_q4;\n"
                   "\tor.pred %%cci_q2, %%cci_q2, %%cci_q3;\n"
                   "\tsub.u32 %%cci_s2, %%cci_s2, %%cci_s3;\n"
                   "\t@%%cci_q2 min.u32 %%cci_s6, %%cci_s6, %%cci_s2;\n"
                   "\tor.pred %%cci_q1, %%cci_q1, %%cci_q2;\n"
                   "\tbra.uni $cci_next%" PRIu32 ";\n"
                   "$cci_strided%" PRIu32 ":\n"
                   /* %cci_q1: this lane has a successor (and accesses) */
                   "\tand.pred %%cci_q1, %%cci_q1, %%cci_q0;\n"
                   "\tselp.b32 %%cci_s1, %%cci_s6, -1, %%cci_q1;\n"
                   "\tredux.sync.min.u32 %%cci_s1, %%cci_s1, %%cci_m0;\n"
                   "\tselp.b32 %%cci_s2, %%cci_s6, 0, %%cci_q1;\n"
                   "\tredux.sync.max.u32 %%cci_s2, %%cci_s2, %%cci_m0;\n",
                   site, site, site, site, site, site, site, site);
}

/* The leader (lowest executing lane) adds this execution to the site's counters:
 * `requests` requests (a local access: one per 32-bit word). */
static void put_update(struct inst *s, uint32_t site, int shared, uint32_t requests)
{
  uint64_t off = (uint64_t)site * s->map->shards * PTX_INST_FIELDS * 8u;
  /* execution sampling: %cci_pb, the plane the execution counts in */
  const char *base = s->map->exec > 1 && s->map->sites[site].looped ? "%cci_pb" : "%cci_base";
  cc_strbuf_printf(&s->text,
                   "\tand.b32 %%cci_m3, %%cci_m0, %%cci_m2;\n"
                   "\tsetp.eq.b32 %%cci_p0, %%cci_m3, 0;\n"
                   "\tsetp.ne.b32 %%cci_p1, %%cci_m1, 0;\n"
                   "\tand.pred %%cci_p0, %%cci_p0, %%cci_p1;\n"
                   "\tpopc.b32 %%cci_m3, %%cci_m1;\n"
                   "\tcvt.u64.u32 %%cci_a1, %%cci_u;\n"
                   "\tcvt.u64.u32 %%cci_a2, %%cci_m3;\n"
                   "\t@%%cci_p0 red.global.add.u64 [%s+%" PRIu64 "], %" PRIu32 ";\n"
                   "\t@%%cci_p0 red.global.add.u64 [%s+%" PRIu64 "], %%cci_a1;\n"
                   "\t@%%cci_p0 red.global.add.u64 [%s+%" PRIu64 "], %%cci_a2;\n",
                   base, off + 8u * PTX_INST_F_REQUESTS, requests, base, off + 8u * PTX_INST_F_UNITS,
                   base, off + 8u * PTX_INST_F_LANES);
  if (shared)
    cc_strbuf_printf(&s->text,
                     "\tcvt.u64.u32 %%cci_a1, %%cci_w;\n"
                     "\t@%%cci_p0 red.global.max.u64 [%s+%" PRIu64 "], %%cci_a1;\n",
                     base, off + 8u * PTX_INST_F_WAYS);
  /* the ideal; strides where two lanes accessed */
  cc_strbuf_printf(&s->text,
                   "\tcvt.u64.u32 %%cci_a1, %%cci_i;\n"
                   "\t@%%cci_p0 red.global.add.u64 [%s+%" PRIu64 "], %%cci_a1;\n"
                   "\tsetp.gt.u32 %%cci_p1, %%cci_m3, 1;\n"
                   "\tand.pred %%cci_p0, %%cci_p0, %%cci_p1;\n"
                   "\tcvt.u64.u32 %%cci_a1, %%cci_s0;\n"
                   "\t@%%cci_p0 red.global.add.u64 [%s+%" PRIu64 "], %%cci_a1;\n"
                   "\tcvt.u64.u32 %%cci_a1, %%cci_s1;\n"
                   "\tnot.b64 %%cci_a1, %%cci_a1;\n"
                   "\t@%%cci_p0 red.global.max.u64 [%s+%" PRIu64 "], %%cci_a1;\n"
                   "\tcvt.u64.u32 %%cci_a1, %%cci_s2;\n"
                   "\t@%%cci_p0 red.global.max.u64 [%s+%" PRIu64 "], %%cci_a1;\n",
                   base, off + 8u * PTX_INST_F_IDEAL, base, off + 8u * PTX_INST_F_SPAN,
                   base, off + 8u * PTX_INST_F_STRMIN_INV, base, off + 8u * PTX_INST_F_STRMAX);
}

static const char *space_word(uint8_t space)
{
  return space == PTX_SPACE_SHARED ? "shared" : space == PTX_SPACE_LOCAL ? "local" : "global";
}

/* %cci_a0 = the interleaved layout's address of this lane's local-space address %cci_a0
 * (src/model cc_model_local_layout: word w of lane l at w x 128 + l x 4, + byte % 4) */
static void put_local_layout(struct inst *s)
{
  cc_strbuf_printf(&s->text,
                   "\tand.b64 %%cci_a1, %%cci_a0, 3;\n"
                   "\tshr.u64 %%cci_a0, %%cci_a0, 2;\n"
                   "\tshl.b64 %%cci_a0, %%cci_a0, 7;\n"
                   "\tadd.s64 %%cci_a0, %%cci_a0, %%cci_a1;\n"
                   "\tmov.u32 %%cci_s0, %%laneid;\n"
                   "\tmul.wide.u32 %%cci_a1, %%cci_s0, 4;\n"
                   "\tadd.s64 %%cci_a0, %%cci_a0, %%cci_a1;\n");
}

/* Site `site` counted for the accessing lanes %cci_m1 at the addresses %cci_a0 (its
 * space's addresses): the figures of its space, its strides, the leader's update. */
static void put_space(struct inst *s, uint32_t site)
{
  const struct ptx_inst_site *st = &s->map->sites[site];
  uint32_t words = 1, size = st->size_bytes;
  if (st->space == PTX_SPACE_SHARED) {
    put_wavefronts(s, size);
  } else {
    if (st->space == PTX_SPACE_LOCAL) { /* one 4-byte request per 32-bit word */
      words = size > 4 ? size / 4 : 1;
      size = size > 4 ? 4 : size;
      put_local_layout(s);
    }
    put_sectors(s, size);
    if (words > 1)
      cc_strbuf_printf(&s->text,
                       "\tmul.lo.u32 %%cci_u, %%cci_u, %" PRIu32 ";\n"
                       "\tmul.lo.u32 %%cci_i, %%cci_i, %" PRIu32 ";\n",
                       words, words);
  }
  put_strides(s, site);
  put_update(s, site, st->space == PTX_SPACE_SHARED, words);
}

/* A generic instruction's three sites (global, shared, local from `site` on): for each
 * space, the accessing lanes whose address isspacep finds in it count as that space's
 * request, at the address of that space (cvta.to); a space no lane is in is branched
 * over (the ballot is the same in every executing lane: a uniform branch). */
static void put_generic(struct inst *s, uint32_t site)
{
  cc_strbuf_printf(&s->text,
                   "\t{\n"
                   "\t.reg .b64 %%cci_g;\n"
                   "\t.reg .b32 %%cci_gm;\n"
                   "\t.reg .pred %%cci_gp;\n"
                   "\tmov.b64 %%cci_g, %%cci_a0;\n"
                   "\tmov.b32 %%cci_gm, %%cci_m1;\n");
  for (uint32_t k = 0; k < 3; k++) {
    const char *sp = space_word(s->map->sites[site + k].space);
    cc_strbuf_printf(&s->text,
                     "\tisspacep.%s %%cci_gp, %%cci_g;\n"
                     "\tvote.sync.ballot.b32 %%cci_m1, %%cci_gp, %%cci_m0;\n"
                     "\tand.b32 %%cci_m1, %%cci_m1, %%cci_gm;\n"
                     "\tsetp.eq.b32 %%cci_gp, %%cci_m1, 0;\n"
                     "\t@%%cci_gp bra.uni $cci_none%" PRIu32 ";\n",
                     sp, site + k);
    if (k == 0)
      cc_strbuf_printf(&s->text, "\tmov.b64 %%cci_a0, %%cci_g;\n");
    else
      cc_strbuf_printf(&s->text, "\tcvta.to.%s.u64 %%cci_a0, %%cci_g;\n", sp);
    put_space(s, site + k);
    cc_strbuf_printf(&s->text, "$cci_none%" PRIu32 ":\n", site + k);
  }
  cc_strbuf_printf(&s->text, "\t}\n");
}

static const char *hook_insn(void *ctx, const struct ptx_function *f, uint32_t index)
{
  struct inst *s = ctx;
  const struct ptx_insn *in = &f->insns[index];
  uint32_t fi = func_index(s->m, f), site;
  if (calls_counted(s, f, index)) {
    reset_text(s);
    put_call_arg(s, f, index);
    return s->text.s;
  }
  if (!instrumented(s, f)) return NULL;
  index_function(s, fi);
  if (!s->site_of[index]) return NULL;
  site = s->site_of[index] - 1;
  const struct ptx_inst_site *st = &s->map->sites[site];
  reset_text(s);
  cc_strbuf_printf(&s->text, "\t// coalcheck site %" PRIu32 ": %s, %" PRIu32 " bytes\n", site,
                   st->generic ? "generic" : space_word(st->space), st->size_bytes);
  int gated = !f->is_entry || entry_gated(s); /* a .func: counted when given counters */
  if (gated)
    cc_strbuf_printf(&s->text, "\t@!%%cci_on bra $cci_skip%" PRIu32 ";\n", site);
  if (s->map->exec > 1 && st->looped) /* the lowest executing lane's count decides for the warp: its
                           first PTX_INST_EXEC_HEAD count in plane 0, then about 1 in E
                           (a hash) in plane 1 */
    cc_strbuf_printf(&s->text,
                     "\t{\n"
                     "\t.reg .b32 %%cci_e<3>;\n"
                     "\t.reg .pred %%cci_ep;\n"
                     "\tadd.u32 %%cci_x, %%cci_x, 1;\n"
                     "\tactivemask.b32 %%cci_e0;\n"
                     "\tneg.s32 %%cci_e1, %%cci_e0;\n"
                     "\tand.b32 %%cci_e1, %%cci_e1, %%cci_e0;\n"
                     "\tbfind.u32 %%cci_e1, %%cci_e1;\n"
                     "\tshfl.sync.idx.b32 %%cci_e2, %%cci_x, %%cci_e1, 31, %%cci_e0;\n"
                     "\tmov.b64 %%cci_pb, %%cci_base;\n"
                     "\tsetp.le.u32 %%cci_ep, %%cci_e2, %u;\n"
                     "\t@%%cci_ep bra $cci_count%" PRIu32 ";\n"
                     /* MurmurHash3's fmix32 of count + seed: a multiply and one
                      * shift (as before) left the low bits nearly periodic in the
                      * count, so a loop body of k sites aliased with the choice (adi's
                      * 20 sites: per-site errors of 11-18% with every CTA counted) */
                     "\tadd.u32 %%cci_e2, %%cci_e2, %%cci_sd;\n"
                     "\tshr.u32 %%cci_e1, %%cci_e2, 16;\n"
                     "\txor.b32 %%cci_e2, %%cci_e2, %%cci_e1;\n"
                     "\tmul.lo.u32 %%cci_e2, %%cci_e2, %u;\n"
                     "\tshr.u32 %%cci_e1, %%cci_e2, 13;\n"
                     "\txor.b32 %%cci_e2, %%cci_e2, %%cci_e1;\n"
                     "\tmul.lo.u32 %%cci_e2, %%cci_e2, %u;\n"
                     "\tshr.u32 %%cci_e1, %%cci_e2, 16;\n"
                     "\txor.b32 %%cci_e2, %%cci_e2, %%cci_e1;\n"
                     "\tand.b32 %%cci_e2, %%cci_e2, %" PRIu32 ";\n"
                     "\tsetp.ne.u32 %%cci_ep, %%cci_e2, 0;\n"
                     "\t@%%cci_ep bra $cci_skip%" PRIu32 ";\n"
                     "\tadd.s64 %%cci_pb, %%cci_base, %" PRIu64 ";\n"
                     "$cci_count%" PRIu32 ":\n"
                     "\t}\n",
                     PTX_INST_EXEC_HEAD, site, 0x85ebca6bu, 0xc2b2ae35u, s->map->exec - 1, site,
                     ptx_inst_plane_bytes(s->map), site);
  cc_strbuf_printf(&s->text,
                   "\t{\n"
                   "\t.reg .pred %%cci_p<2>, %%cci_q<5>;\n"
                   "\t.reg .b32 %%cci_m<5>, %%cci_u, %%cci_w, %%cci_i, %%cci_ph, %%cci_s<8>;\n"
                   "\t.reg .b64 %%cci_a<3>, %%cci_k, %%cci_b;\n");
  put_lanes(s, f, in);
  cc_strbuf_printf(&s->text, "\tmov.u32 %%cci_m2, %%lanemask_lt;\n");
  put_address(s, f, addr_operand(f, in));
  if (st->generic)
    put_generic(s, site);
  else
    put_space(s, site);
  cc_strbuf_printf(&s->text, "\t}\n");
  if (gated) cc_strbuf_printf(&s->text, "$cci_skip%" PRIu32 ":\n", site);
  return s->text.s;
}

/* A function that has a counter parameter already (an instrumented input). */
static const struct ptx_function *clashing_entry(const struct ptx_module *m)
{
  for (uint32_t fi = 0; fi < m->nfuncs; fi++) {
    const struct ptx_function *f = &m->funcs[fi];
    for (uint32_t p = 0; p < f->nparams; p++)
      if (strcmp(f->vars[f->param_vars[p]].name, PTX_INST_PARAM) == 0 ||
          strcmp(f->vars[f->param_vars[p]].name, PTX_INST_FUNC_PARAM) == 0)
        return f;
  }
  return NULL;
}

/* The sm_NN number of the module's .target ("sm_90a", "sm_80, debug"), 0 when none. */
static unsigned target_sm(const struct ptx_module *m)
{
  const char *t = m->target ? strstr(m->target, "sm_") : NULL;
  return t ? (unsigned)strtoul(t + 3, NULL, 10) : 0;
}

int ptx_instrument(const struct ptx_module *m, const struct ptx_inst_opts *opts, FILE *out,
                   struct ptx_inst_map *map, struct cc_err *err)
{
  struct inst s = {.m = m, .map = map, .site_func = UINT32_MAX};
  uint32_t shards = opts && opts->shards ? opts->shards : 1;
  const struct ptx_function *clash = clashing_entry(m);
  *map = (struct ptx_inst_map){0};
  if (shards > PTX_INST_MAX_SHARDS || (shards & (shards - 1)))
    return cc_err_set(err, CC_ERR_USAGE, "inline counters: %" PRIu32 " shards: expected a "
                      "power of two from 1 to %u", shards, PTX_INST_MAX_SHARDS);
  if (m->address_size != 64 || target_sm(m) < 80)
    return cc_err_set(err, CC_ERR_INPUT, "%s: inline counters need .address_size 64 and a "
                      ".target of sm_80 or later (redux.sync), found %" PRIu32 " and '%s'; "
                      "compile for sm_90 (nvcc -arch=sm_90)", m->path ? m->path : "?",
                      m->address_size, m->target ? m->target : "");
  if (clash)
    return cc_err_set(err, CC_ERR_INPUT, "%s:%" PRIu32 ": function '%s' has a parameter named "
                      "'%s' or '%s' already (instrumented twice?)", m->path ? m->path : "?",
                      clash->line, clash->name, PTX_INST_PARAM, PTX_INST_FUNC_PARAM);
  map->shards = shards;
  map->sample = opts && opts->sample > 1 ? opts->sample : 1;
  map->gate = opts && opts->gate;
  map->exec = opts && opts->exec > 1 ? opts->exec : 1;
  map->salted = opts && opts->salted;
  if (map->exec & (map->exec - 1))
    return cc_err_set(err, CC_ERR_USAGE, "inline counters: execution sampling %" PRIu32
                      ": expected a power of two", map->exec);
  collect_sites(&s);
  struct ptx_print_hooks h = {.ctx = &s, .extra_param = hook_param, .body_start = hook_body,
                              .before_insn = hook_insn, .call_arg = hook_call_arg};
  int rc = ptx_print_module_hooked(m, &h, out);
  ptx_inst_funcs_release(&s.funcs);
  free(s.site_of);
  free(s.text.s);
  if (rc != 0) return cc_err_set(err, CC_ERR_IO, "inline counters: writing the PTX failed");
  return CC_OK;
}

uint32_t ptx_inst_pick(uint32_t run, uint32_t sample)
{
  return ptx_inst_pick_salted(run, sample, 0);
}

uint32_t ptx_inst_pick_salted(uint32_t run, uint32_t sample, uint32_t salt)
{
  uint32_t h = (run ^ salt * PTX_INST_PICK_MUL2) * PTX_INST_PICK_MUL1;
  h ^= h >> 16;
  h *= PTX_INST_PICK_MUL2;
  h ^= h >> 13;
  return sample > 1 ? h % sample : 0;
}

uint64_t ptx_inst_plane_bytes(const struct ptx_inst_map *map)
{
  return (uint64_t)map->nsites * map->shards * PTX_INST_FIELDS * 8u;
}

uint64_t *ptx_inst_fold(const struct ptx_inst_map *map, const uint64_t *c)
{
  size_t words = (size_t)(ptx_inst_plane_bytes(map) / 8);
  uint64_t *out = cc_xmalloc(words ? words * 8 : 8);
  for (size_t i = 0; i < words; i++) {
    int f = (int)(i % PTX_INST_FIELDS);
    uint64_t a = c[i], b = map->exec > 1 ? c[words + i] : 0;
    if (f == PTX_INST_F_WAYS || f == PTX_INST_F_STRMIN_INV || f == PTX_INST_F_STRMAX)
      out[i] = a > b ? a : b;
    else
      out[i] = a + b * map->exec;
  }
  return out;
}

uint64_t ptx_inst_counter_bytes(const struct ptx_inst_map *map)
{
  uint64_t n = ptx_inst_plane_bytes(map) * (map->exec > 1 ? 2 : 1);
  return n ? n : 8u;
}

void ptx_inst_map_release(struct ptx_inst_map *map)
{
  free(map->sites);
  free(map->skips);
  *map = (struct ptx_inst_map){0};
}

void ptx_inst_skip_text(const struct ptx_module *m, const struct ptx_inst_map *map, uint32_t k,
                        char *buf, size_t cap)
{
  const struct ptx_inst_skip *sk = &map->skips[k];
  const struct ptx_function *f = &m->funcs[sk->func];
  const struct ptx_loc *loc = ptx_insn_loc(f, sk->insn);
  const char *file = loc && loc->line ? ptx_file_path(m, loc->file) : NULL;
  char text[256], where[320];
  ptx_print_insn(m, f, sk->insn, text, sizeof text);
  if (file)
    snprintf(where, sizeof where, "%s:%" PRIu32 ": ", file, loc->line);
  else
    where[0] = '\0';
  snprintf(buf, cap, "%s'%s' in %s (PTX line %" PRIu32 "): not counted: %s", where, text,
           f->name, f->insns[sk->insn].line, sk->why);
}
