/* coalcheck PTX front end: module IR, parser and printer.
 *
 * The IR is a faithful, resolved image of one PTX module as nvcc 13 writes it (ISA 9.x):
 * every name is resolved to an index (registers per function, labels to instruction
 * indices, variables and functions to table entries), every instruction's dotted
 * modifiers are decoded into fields, and the line table (.file/.loc, including
 * inlined_at) is attached to instructions. Registers are scoped by { } in PTX; the IR
 * gives each declaration its own dense index, so a name may appear several times in
 * ptx_function.regs.
 *
 * Ownership: a ptx_module owns everything reachable from it (strings, tables, pools) and
 * is freed by ptx_module_free(). Pointers into it stay valid until then.
 *
 * The instruction table (ptx_ops.def) is the single source of truth for opcodes: name,
 * operand shape and one-line semantics; the parser, the printer and the emulator read it.
 *
 * Source of the grammar: NVIDIA, "Parallel Thread Execution ISA", version 9.0. */
#ifndef CC_PTX_PTX_H
#define CC_PTX_PTX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* ---- types and state spaces ------------------------------------------------------- */

enum ptx_type {
  PTX_TYPE_NONE,
  PTX_TYPE_PRED,
  PTX_TYPE_B8, PTX_TYPE_B16, PTX_TYPE_B32, PTX_TYPE_B64, PTX_TYPE_B128,
  PTX_TYPE_U8, PTX_TYPE_U16, PTX_TYPE_U32, PTX_TYPE_U64,
  PTX_TYPE_S8, PTX_TYPE_S16, PTX_TYPE_S32, PTX_TYPE_S64,
  PTX_TYPE_F16, PTX_TYPE_F16X2, PTX_TYPE_BF16, PTX_TYPE_BF16X2,
  PTX_TYPE_F32, PTX_TYPE_F64,
  PTX_TYPE_COUNT
};

/* Size of a type in bytes (.pred: 0; .f16x2: 4). */
unsigned ptx_type_size(enum ptx_type t);
/* Spelling without the dot, e.g. "f32". */
const char *ptx_type_name(enum ptx_type t);
/* Classification helpers. */
int ptx_type_is_float(enum ptx_type t);  /* f16, bf16, f32, f64 (not the x2 forms) */
int ptx_type_is_signed(enum ptx_type t); /* s8..s64 */

enum ptx_space {
  PTX_SPACE_GENERIC, /* no space given: generic addressing */
  PTX_SPACE_REG,
  PTX_SPACE_SREG,
  PTX_SPACE_CONST,
  PTX_SPACE_GLOBAL,
  PTX_SPACE_LOCAL,
  PTX_SPACE_PARAM,
  PTX_SPACE_SHARED,  /* .shared and .shared::cta */
  PTX_SPACE_SHARED_CLUSTER,
  PTX_SPACE_TEX,
  PTX_SPACE_COUNT
};
const char *ptx_space_name(enum ptx_space s); /* "global", ... ; "" for generic */

/* ---- opcodes (from the instruction table) ---------------------------------------- */

enum ptx_opcode {
#define PTX_OP(id, name, shape, semantics) PTX_OP_##id,
#include "ptx/ptx_ops.def"
#undef PTX_OP
  PTX_OP_COUNT
};

/* Entry of the instruction table: see ptx_ops.def for the meaning of shape. */
struct ptx_op_info {
  const char *name;      /* base opcode, e.g. "ld" */
  const char *shape;     /* operand grammar, e.g. "d, a" (see ptx_ops.def) */
  const char *semantics; /* one line, for --help and docs */
};
/* The table row of op (static storage, never freed); NULL when op >= PTX_OP_COUNT. */
const struct ptx_op_info *ptx_op_info(enum ptx_opcode op);
/* Looks a base opcode up by name ("ld", "setp"); returns PTX_OP_COUNT when unknown. */
enum ptx_opcode ptx_op_lookup(const char *name, size_t len);

/* ---- decoded modifiers ------------------------------------------------------------ */

enum ptx_round { PTX_RND_NONE, PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP,
                 PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI };

enum ptx_cmp { PTX_CMP_NONE, PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT,
               PTX_CMP_GE, PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS, PTX_CMP_EQU,
               PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
               PTX_CMP_NUM, PTX_CMP_NAN };

enum ptx_boolop { PTX_BOOL_NONE, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR };

/* The one "mode" modifier an opcode takes, by family: mul/mad .lo/.hi/.wide;
 * atom/red operation; shfl mode; vote mode; cvta direction (to/from). */
enum ptx_mode {
  PTX_MODE_NONE,
  PTX_MODE_LO, PTX_MODE_HI, PTX_MODE_WIDE,
  PTX_MODE_ADD, PTX_MODE_MIN, PTX_MODE_MAX, PTX_MODE_INC, PTX_MODE_DEC, PTX_MODE_CAS,
  PTX_MODE_EXCH, PTX_MODE_AND, PTX_MODE_OR, PTX_MODE_XOR,
  PTX_MODE_UP, PTX_MODE_DOWN, PTX_MODE_BFLY, PTX_MODE_IDX,
  PTX_MODE_ALL, PTX_MODE_ANY, PTX_MODE_UNI, PTX_MODE_BALLOT,
  PTX_MODE_TO, /* cvta.to.<space> */
  /* added by the PTX front end (additive): */
  PTX_MODE_ARRIVE, PTX_MODE_RED,        /* bar.arrive, bar.red (bar.sync: flag PTX_F_SYNC) */
  PTX_MODE_POPC,                        /* bar.red.popc */
  PTX_MODE_1D, PTX_MODE_2D, PTX_MODE_3D, /* tex geometry */
  PTX_MODE_SHF_L, PTX_MODE_SHF_R        /* shf.l / shf.r */
};

/* Flag bits of ptx_insn.flags. */
enum {
  PTX_F_FTZ = 1u << 0, PTX_F_SAT = 1u << 1, PTX_F_APPROX = 1u << 2, PTX_F_FULL = 1u << 3,
  PTX_F_UNI = 1u << 4, PTX_F_NC = 1u << 5, PTX_F_VOLATILE = 1u << 6, PTX_F_CC = 1u << 7,
  PTX_F_SYNC = 1u << 8, PTX_F_ALIGNED = 1u << 9, PTX_F_SHIFTAMT = 1u << 10,
  PTX_F_CLAMP = 1u << 11, PTX_F_WRAP = 1u << 12, PTX_F_RELAXED = 1u << 13,
  PTX_F_ACQUIRE = 1u << 14, PTX_F_RELEASE = 1u << 15, PTX_F_NOFTZ = 1u << 16,
  PTX_F_XTYPE = 1u << 17 /* a type word with no enum ptx_type (.u16x2, .e4m3x2, ...): kept
                            only in opcode_text; the emulator names the instruction
                            unsupported */
};

/* ---- operands --------------------------------------------------------------------- */

enum ptx_special_reg {
  PTX_SREG_TID, PTX_SREG_NTID, PTX_SREG_CTAID, PTX_SREG_NCTAID, PTX_SREG_LANEID,
  PTX_SREG_WARPID, PTX_SREG_NWARPID, PTX_SREG_SMID, PTX_SREG_NSMID, PTX_SREG_GRIDID,
  PTX_SREG_CLOCK, PTX_SREG_CLOCK64, PTX_SREG_GLOBALTIMER, PTX_SREG_LANEMASK_EQ,
  PTX_SREG_LANEMASK_LT, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_GT, PTX_SREG_LANEMASK_GE,
  PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE,
  PTX_SREG_COUNT
};
/* Spelling without component, e.g. "%ntid", "%laneid". */
const char *ptx_sreg_name(enum ptx_special_reg r);
/* Whether the register takes a component .x/.y/.z (tid, ntid, ctaid, nctaid). */
int ptx_sreg_has_comp(enum ptx_special_reg r);

enum ptx_operand_kind {
  PTX_OPND_REG,   /* reg: register index in the function */
  PTX_OPND_SREG,  /* sreg + comp (0..2 for .x/.y/.z, 0 otherwise) */
  PTX_OPND_IMM,   /* imm: integer value, or IEEE bits when is_float (f32 in the low 32) */
  PTX_OPND_SYM,   /* a variable or function used as a value (its address): var/func */
  PTX_OPND_ADDR,  /* [reg+imm], [var+imm] or [imm]: reg (-1 none), var (-1 none), imm */
  PTX_OPND_VEC,   /* { a, b, ... }: first..first+count-1 in ptx_function.opnds */
  PTX_OPND_LABEL, /* branch target: target = instruction index, var = ptx_function.labels index */
  PTX_OPND_SINK   /* "_" */
};

/* Where a variable lives: module scope, or the current function (params, .local,
 * function-scope .shared, call-sequence .param declarations). */
enum ptx_var_scope { PTX_SCOPE_MODULE, PTX_SCOPE_FUNCTION };

struct ptx_operand {
  uint8_t kind;     /* enum ptx_operand_kind */
  uint8_t neg;      /* "!%p" (predicate negation) */
  uint8_t is_float; /* IMM written as a float literal (0f.., 0d.. or decimal) */
  uint8_t is_f64;   /* ... of 64 bits (0d.. or decimal) */
  uint8_t sreg;     /* enum ptx_special_reg */
  uint8_t comp;     /* .x .y .z -> 0 1 2 */
  uint8_t var_scope;/* enum ptx_var_scope for SYM/ADDR with var >= 0 */
  uint8_t is_func;  /* SYM names a function (var holds its index in ptx_module.funcs) */
  uint8_t pipe;     /* written "x|y" joined to the previous operand (setp p|q, shfl d|p):
                       a second destination */
  uint8_t brk;      /* texture-style bracket groups "[h, {c}]" (tex, tld4, txq): bit 0 on the
                       first operand inside the brackets, bit 1 on the last; plain [addr]
                       operands are PTX_OPND_ADDR and have brk 0 */
  uint8_t has_offset; /* ADDR written with an offset, even "+0" (nvcc writes [param0+0];
                         ptxas -O0 code differs without it, so the printer keeps it) */
  uint8_t regcomp;  /* REG: element of a vector register (.reg .v4 .f32 %v; ... %v.y):
                       1..4 for .x .y .z .w (or .r .g .b .a); 0 for the whole register */
  int32_t reg;      /* REG, ADDR base register or -1 */
  int32_t var;      /* SYM/ADDR variable or function index, or -1 */
  int32_t first, count; /* VEC */
  int32_t target;   /* LABEL: index of the labelled instruction */
  int64_t imm;      /* IMM value; ADDR offset in bytes */
};

/* ---- line table --------------------------------------------------------------------- */

struct ptx_file_entry {
  uint32_t id;      /* the number in ".file N" */
  char *path;       /* as written */
  char *rest;       /* anything after the path (timestamp, size), verbatim, or NULL */
};

/* One .loc directive: file/line/column, and, when present, the inlining information. */
struct ptx_loc {
  uint32_t file, line, column;
  char *function_name;          /* e.g. "$L__info_string3", or NULL */
  uint32_t inl_file, inl_line, inl_column; /* inlined_at; inl_file == 0: none */
  uint32_t insn;        /* index of the instruction that follows the directive (the
                           printer writes every .loc there: ptxas requires an inlined_at
                           location to have appeared in an earlier .loc) */
};

/* ---- declarations --------------------------------------------------------------------- */

struct ptx_reg {
  char *name;          /* e.g. "%f3" ("%f<37>" is expanded to %f0..%f36) */
  enum ptx_type type;
  uint32_t vec;        /* .v2/.v4 register declarations: 2 or 4, else 1 */
  uint32_t instance;   /* 0 for the first declaration of this name in the function, k for the
                          (k+1)-th (nested scopes); the printer writes NAME$k when k > 0 */
  int32_t scope;       /* the { } block declaring it (index into ptx_function.scopes), or
                          -1 for the function body itself */
};

struct ptx_var {
  char *name;
  enum ptx_space space;   /* GLOBAL, SHARED, CONST, LOCAL, PARAM, TEX */
  enum ptx_type type;
  uint32_t align;         /* bytes; 0 = natural */
  uint32_t vec;           /* .v2/.v4 variables, else 1 */
  uint64_t count;         /* array elements (1 for scalars; 0 for extern unsized []) */
  uint64_t size_bytes;    /* count x type size x vec */
  int is_extern, is_visible, is_weak;
  uint8_t *init;          /* initial bytes (size_bytes) or NULL; .global/.const only */
  int init_is_symbolic;   /* initializer names symbols (generic(...)); kept as init_text */
  char *init_text;        /* initializer text verbatim when it is symbolic, else NULL */
  uint32_t instance;      /* function scope: as ptx_reg.instance (callseq .param names) */
  int32_t scope;          /* function scope: as ptx_reg.scope (-1: the body or a parameter;
                             module variables: -1) */
};

struct ptx_label {
  char *name;
  uint32_t insn;          /* index of the first instruction after the label */
};

/* A nested { } block of a function body: instructions open_insn .. close_insn-1. */
struct ptx_scope {
  int32_t parent;         /* enclosing block, or -1 for the body */
  uint32_t open_insn, close_insn;
};

/* What stands between instructions, in file order, for the printer: labels, .loc, .pragma
 * and the braces of nested blocks. index: into labels, locs, pragmas or scopes. */
enum ptx_mark_kind { PTX_MARK_LABEL, PTX_MARK_LOC, PTX_MARK_PRAGMA, PTX_MARK_OPEN,
                     PTX_MARK_CLOSE };
struct ptx_mark {
  uint8_t kind;           /* enum ptx_mark_kind */
  uint32_t insn;          /* index of the instruction that follows it */
  uint32_t index;
};

/* A .pragma inside a body ("nounroll" steers ptxas's loop unrolling: kept so that the
 * printed PTX assembles to the same machine code). */
struct ptx_pragma {
  char *text;             /* the string operand with its quotes, e.g. "\"nounroll\"" */
  uint32_t insn;          /* index of the instruction that follows it */
  uint32_t labels_before; /* labels defined before it (orders it among the labels at insn) */
};

struct ptx_insn {
  uint16_t op;            /* enum ptx_opcode */
  uint8_t space;          /* enum ptx_space */
  uint8_t vec;            /* 1, 2, 4 (.v2, .v4) */
  uint8_t rnd;            /* enum ptx_round */
  uint8_t cmp;            /* enum ptx_cmp */
  uint8_t boolop;         /* enum ptx_boolop */
  uint8_t mode;           /* enum ptx_mode */
  uint8_t type[3];        /* type[0]: the instruction type (cvt: destination),
                             type[1]: cvt source / mul.wide etc., PTX_TYPE_NONE if unused.
                             The parser fills them in the order written: cvt.rn.f32.f64
                             and set.lt.u32.f32 -> {f32|u32, f64|f32}; tex.2d.v4.u32.f32 ->
                             {u32 (texel), f32 (coordinates)}; mul.wide.s32 -> {s32} (the
                             operand type; the result is twice as wide); setp.lt.s32 ->
                             {s32} (the comparison type) */
  uint8_t cvta_space;     /* cvta: the space converted to/from (enum ptx_space) */
  uint32_t flags;         /* PTX_F_* bits */
  int32_t guard;          /* guard predicate register, or -1 */
  uint8_t guard_neg;      /* @!%p */
  uint8_t nopnds;
  uint32_t opnd;          /* operands: ptx_function.opnds[opnd .. opnd+nopnds-1] */
  char *opcode_text;      /* opcode with all modifiers as written, e.g. "ld.global.nc.v4.f32";
                             the printer prints this, so unknown-but-harmless modifiers
                             survive a round trip */
  int32_t loc;            /* index into ptx_function.locs of the .loc in force, or -1; a
                             .loc of line 0 (nvcc: merged code) leaves the real one before
                             it in force (ptx_parse.c) */
  int32_t callee;         /* call: index into ptx_module.funcs, or -1 (indirect) */
  uint8_t call_nret;      /* call: how many leading operands are return parameters; the
                             arguments follow; an indirect call (callee -1) has the target
                             register as operand call_nret, before the arguments */
  char *call_proto;       /* call: the .callprototype label named last, or NULL */
  uint32_t line, column;  /* position of the opcode in the .ptx file */
};

struct ptx_function {
  char *name;             /* as in PTX (mangled) */
  int is_entry;           /* .entry (kernel) vs .func */
  int is_visible, is_extern, is_weak, has_body;
  /* .func return parameters then parameters; .entry parameters. Indices into vars. */
  uint32_t nret, nparams;
  uint32_t *ret_vars, *param_vars;
  struct ptx_var *vars;   uint32_t nvars;   /* function-scope variables */
  struct ptx_reg *regs;   uint32_t nregs;
  struct ptx_insn *insns; uint32_t ninsns;
  struct ptx_operand *opnds; uint32_t nopnds;
  struct ptx_label *labels; uint32_t nlabels;
  struct ptx_loc *locs;   uint32_t nlocs;
  char *directives;       /* performance directives (.maxntid, .reqntid, ...) verbatim, or NULL */
  char *protos;           /* "NAME: .callprototype ...;" declarations verbatim, one per line,
                             or NULL */
  struct ptx_pragma *pragmas; uint32_t npragmas; /* in file order */
  struct ptx_scope *scopes; uint32_t nscopes;    /* nested { } blocks, in opening order */
  struct ptx_mark *marks; uint32_t nmarks;       /* labels, .loc, .pragma, braces in order */
  uint32_t line;          /* where the function starts in the .ptx file */
};

struct ptx_module {
  char *path;             /* file name used in messages */
  char *version;          /* ".version" value, e.g. "9.0" */
  char *target;           /* ".target" value(s), e.g. "sm_90" */
  uint32_t address_size;  /* 64 or 32 */
  struct ptx_file_entry *files; uint32_t nfiles;
  struct ptx_var *vars;   uint32_t nvars;   /* module-scope variables */
  struct ptx_function *funcs; uint32_t nfuncs;
  char *sections;         /* trailing .section blocks (e.g. .debug_str) verbatim, or NULL */
  /* Module-scope declarations in file order, for the printer: */
  struct ptx_item { uint8_t kind; uint32_t index; } *items; uint32_t nitems;
  char **pragmas; uint32_t npragmas; /* module-scope .pragma strings (with quotes) */
};
/* ptx_item.kind: a module variable, a function declaration (no body), a function body,
 * a module-scope .pragma (index into ptx_module.pragmas). */
enum { PTX_ITEM_VAR, PTX_ITEM_FUNC_DECL, PTX_ITEM_FUNC_DEF, PTX_ITEM_PRAGMA };

/* ---- API -------------------------------------------------------------------------- */

/* Parses PTX text (len bytes; need not be NUL-terminated) into a new module. path names
 * the input in messages. Errors (CC_ERR_INPUT, LINE and COL 1-based, COL in bytes):
 *   "PATH:LINE:COL: expected X, found 'Y'"         (syntax; 'found end of input' at EOF)
 *   "PATH:LINE:COL: unknown instruction 'foo.bar'"
 *   "PATH:LINE:COL: undefined register '%r9'"       (also out of its { } scope)
 *   "PATH:LINE:COL: undefined label '$L__BB0_9'"   (also: undefined symbol, function)
 *   "PATH:LINE:COL: 'add.s32' takes 3 operands (d, a, b), found 2"  (the shape column of
 *     ptx_ops.def; at the opcode) and "operand 2 of 'ld.global.f32' (m) must be an address
 *     '[..]', found a register" (at the operand); "label 'L' used as an operand value"
 *   "PATH:LINE:COL: unknown modifier '.s32Y' in 'setp.ge.s32Y'" (at the word; also "does
 *     not apply to", "type '.b32' is not valid for", "needs a type", ...: ptx_check.h) and
 *     "operand 2 of 'add.s32' (a) must be a 32-bit integer or bit-size register, found
 *     '%rd1' (.b64)" (operand types: PTX ISA 9.0 section 9.4; src/ptx/README.md)
 *   lexical errors ("malformed float constant ...", "unterminated comment ...") and
 *   limits (register ranges above 2^20, arrays above 4 GiB, 255 operands).
 * On failure *out is NULL and nothing leaks. Grammar coverage: src/ptx/README.md. */
int ptx_parse(const char *text, size_t len, const char *path,
              cc_give struct ptx_module **out, struct cc_err *err);

/* Reads and parses the file at path (CC_ERR_INPUT if unreadable). */
int ptx_parse_file(const char *path, cc_give struct ptx_module **out, struct cc_err *err);

/* Frees m and everything it owns (functions, strings, line table); NULL is allowed. */
void ptx_module_free(cc_take struct ptx_module *m);

/* Finds a function by its PTX (mangled) name; NULL when absent. */
const struct ptx_function *ptx_module_find(cc_keep const struct ptx_module *m, const char *name);

/* Writes the module as PTX that ptxas accepts and that means the same (registers of
 * nested scopes are renamed apart and declared at function scope). Returns 0, or -1
 * when the stream reported an error. */
int ptx_print_module(cc_keep const struct ptx_module *m, FILE *out);

/* Text that ptx_print_module_hooked inserts (an instrumentation pass's, src/ptx/instrument.c).
 * Each callback returns text owned by ctx (valid until its next call) or NULL for none;
 * any callback may be NULL. In file order: extra_param for every function header,
 * declarations included (one more parameter declaration, e.g. ".param .u64 p", written
 * after the last one), then for a function with a body body_start (after the declarations, before the first label or
 * instruction), then before_insn for each instruction in order (after the labels, .loc
 * and braces that precede it: a branch to the label runs the inserted text), and for a
 * call call_arg (one more argument written after the last one, e.g. "__p9": the callee's
 * extra_param). */
struct ptx_print_hooks {
  void *ctx;
  const char *(*extra_param)(void *ctx, const struct ptx_function *f);
  const char *(*body_start)(void *ctx, const struct ptx_function *f);
  const char *(*before_insn)(void *ctx, const struct ptx_function *f, uint32_t index);
  const char *(*call_arg)(void *ctx, const struct ptx_function *f, uint32_t index);
};

/* ptx_print_module with the hooks' text inserted (h NULL: the same output). Returns 0, or
 * -1 when the stream reported an error. */
int ptx_print_module_hooked(cc_keep const struct ptx_module *m,
                            cc_keep const struct ptx_print_hooks *h, FILE *out);

/* Writes one instruction as PTX text (no label, no newline, guard and ';' included) into
 * buf (size bytes, truncated, always NUL-terminated); returns the untruncated length. */
size_t ptx_print_insn(cc_keep const struct ptx_module *m, cc_keep const struct ptx_function *f,
                      uint32_t index, char *buf, size_t size);

/* The source location of instruction index of f: its .loc, or NULL when none is in force. */
const struct ptx_loc *ptx_insn_loc(cc_keep const struct ptx_function *f, uint32_t index);

/* The path that a .file number names, or NULL. */
const char *ptx_file_path(cc_keep const struct ptx_module *m, uint32_t file_id);

#endif
