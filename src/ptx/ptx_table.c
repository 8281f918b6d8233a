/* coalcheck PTX front end: tables (types, spaces, special registers, opcodes) and the
 * module's lifetime and queries. Source: PTX ISA 9.0, sections 5.2 (types), 5.1 (state
 * spaces), 10 (special registers), 9 (instructions). */
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

static const struct {
  const char *name;
  unsigned size;
} type_table[PTX_TYPE_COUNT] = {
    [PTX_TYPE_NONE] = {"", 0},       [PTX_TYPE_PRED] = {"pred", 0},
    [PTX_TYPE_B8] = {"b8", 1},       [PTX_TYPE_B16] = {"b16", 2},
    [PTX_TYPE_B32] = {"b32", 4},     [PTX_TYPE_B64] = {"b64", 8},
    [PTX_TYPE_B128] = {"b128", 16},  [PTX_TYPE_U8] = {"u8", 1},
    [PTX_TYPE_U16] = {"u16", 2},     [PTX_TYPE_U32] = {"u32", 4},
    [PTX_TYPE_U64] = {"u64", 8},     [PTX_TYPE_S8] = {"s8", 1},
    [PTX_TYPE_S16] = {"s16", 2},     [PTX_TYPE_S32] = {"s32", 4},
    [PTX_TYPE_S64] = {"s64", 8},     [PTX_TYPE_F16] = {"f16", 2},
    [PTX_TYPE_F16X2] = {"f16x2", 4}, [PTX_TYPE_BF16] = {"bf16", 2},
    [PTX_TYPE_BF16X2] = {"bf16x2", 4}, [PTX_TYPE_F32] = {"f32", 4},
    [PTX_TYPE_F64] = {"f64", 8},
};

unsigned ptx_type_size(enum ptx_type t) { return t < PTX_TYPE_COUNT ? type_table[t].size : 0; }

const char *ptx_type_name(enum ptx_type t) { return t < PTX_TYPE_COUNT ? type_table[t].name : ""; }

int ptx_type_is_float(enum ptx_type t) {
  return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_F32 || t == PTX_TYPE_F64;
}

int ptx_type_is_signed(enum ptx_type t) {
  return t == PTX_TYPE_S8 || t == PTX_TYPE_S16 || t == PTX_TYPE_S32 || t == PTX_TYPE_S64;
}

const char *ptx_space_name(enum ptx_space s) {
  static const char *const names[PTX_SPACE_COUNT] = {
      [PTX_SPACE_GENERIC] = "", [PTX_SPACE_REG] = "reg", [PTX_SPACE_SREG] = "sreg",
      [PTX_SPACE_CONST] = "const", [PTX_SPACE_GLOBAL] = "global", [PTX_SPACE_LOCAL] = "local",
      [PTX_SPACE_PARAM] = "param", [PTX_SPACE_SHARED] = "shared",
      [PTX_SPACE_SHARED_CLUSTER] = "shared::cluster", [PTX_SPACE_TEX] = "tex"};
  return s < PTX_SPACE_COUNT ? names[s] : "";
}

static const char *const sreg_names[PTX_SREG_COUNT] = {
    [PTX_SREG_TID] = "%tid", [PTX_SREG_NTID] = "%ntid", [PTX_SREG_CTAID] = "%ctaid",
    [PTX_SREG_NCTAID] = "%nctaid", [PTX_SREG_LANEID] = "%laneid",
    [PTX_SREG_WARPID] = "%warpid", [PTX_SREG_NWARPID] = "%nwarpid",
    [PTX_SREG_SMID] = "%smid", [PTX_SREG_NSMID] = "%nsmid", [PTX_SREG_GRIDID] = "%gridid",
    [PTX_SREG_CLOCK] = "%clock", [PTX_SREG_CLOCK64] = "%clock64",
    [PTX_SREG_GLOBALTIMER] = "%globaltimer", [PTX_SREG_LANEMASK_EQ] = "%lanemask_eq",
    [PTX_SREG_LANEMASK_LT] = "%lanemask_lt", [PTX_SREG_LANEMASK_LE] = "%lanemask_le",
    [PTX_SREG_LANEMASK_GT] = "%lanemask_gt", [PTX_SREG_LANEMASK_GE] = "%lanemask_ge",
    [PTX_SREG_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size",
    [PTX_SREG_TOTAL_SMEM_SIZE] = "%total_smem_size",
};

const char *ptx_sreg_name(enum ptx_special_reg r) {
  return r < PTX_SREG_COUNT ? sreg_names[r] : "";
}

int ptx_sreg_has_comp(enum ptx_special_reg r) {
  return r == PTX_SREG_TID || r == PTX_SREG_NTID || r == PTX_SREG_CTAID ||
         r == PTX_SREG_NCTAID;
}

static const struct ptx_op_info op_table[PTX_OP_COUNT] = {
#define PTX_OP(id, name, shape, semantics) [PTX_OP_##id] = {name, shape, semantics},
#include "ptx/ptx_ops.def"
#undef PTX_OP
};

const struct ptx_op_info *ptx_op_info(enum ptx_opcode op) {
  return op < PTX_OP_COUNT ? &op_table[op] : NULL;
}

/* A linear scan: about 80 rows, compared on the first byte first; 20,000 lookups cost
 * well under a millisecond, so no hash is needed. */
enum ptx_opcode ptx_op_lookup(const char *name, size_t len) {
  for (int i = 0; i < PTX_OP_COUNT; i++) {
    const char *n = op_table[i].name;
    if (n[0] == name[0] && strlen(n) == len && memcmp(n, name, len) == 0)
      return (enum ptx_opcode)i;
  }
  return PTX_OP_COUNT;
}

static void var_release(struct ptx_var *v) {
  free(v->name);
  free(v->init);
  free(v->init_text);
}

static void function_release(struct ptx_function *f) {
  free(f->name);
  free(f->ret_vars);
  free(f->param_vars);
  for (uint32_t i = 0; i < f->nvars; i++) var_release(&f->vars[i]);
  free(f->vars);
  for (uint32_t i = 0; i < f->nregs; i++) free(f->regs[i].name);
  free(f->regs);
  for (uint32_t i = 0; i < f->ninsns; i++) {
    free(f->insns[i].opcode_text);
    free(f->insns[i].call_proto);
  }
  free(f->insns);
  free(f->opnds);
  for (uint32_t i = 0; i < f->nlabels; i++) free(f->labels[i].name);
  free(f->labels);
  for (uint32_t i = 0; i < f->nlocs; i++) free(f->locs[i].function_name);
  free(f->locs);
  free(f->directives);
  free(f->protos);
  for (uint32_t i = 0; i < f->npragmas; i++) free(f->pragmas[i].text);
  free(f->pragmas);
  free(f->scopes);
  free(f->marks);
}

void ptx_module_free(struct ptx_module *m) {
  if (!m) return;
  free(m->path);
  free(m->version);
  free(m->target);
  for (uint32_t i = 0; i < m->nfiles; i++) {
    free(m->files[i].path);
    free(m->files[i].rest);
  }
  free(m->files);
  for (uint32_t i = 0; i < m->nvars; i++) var_release(&m->vars[i]);
  free(m->vars);
  for (uint32_t i = 0; i < m->nfuncs; i++) function_release(&m->funcs[i]);
  free(m->funcs);
  free(m->sections);
  free(m->items);
  for (uint32_t i = 0; i < m->npragmas; i++) free(m->pragmas[i]);
  free(m->pragmas);
  free(m);
}

const struct ptx_function *ptx_module_find(const struct ptx_module *m, const char *name) {
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (strcmp(m->funcs[i].name, name) == 0) return &m->funcs[i];
  return NULL;
}

const struct ptx_loc *ptx_insn_loc(const struct ptx_function *f, uint32_t index) {
  if (index >= f->ninsns || f->insns[index].loc < 0) return NULL;
  return &f->locs[f->insns[index].loc];
}

const char *ptx_file_path(const struct ptx_module *m, uint32_t file_id) {
  for (uint32_t i = 0; i < m->nfiles; i++)
    if (m->files[i].id == file_id) return m->files[i].path;
  return NULL;
}
