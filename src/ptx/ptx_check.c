/* coalcheck PTX front end: the modifier and operand-type rules of each instruction (see
 * ptx_check.h). The table below lists, per row of ptx_ops.def, the modifier words and the
 * instruction types that the row's syntax blocks in PTX ISA 9.0 chapter 9 allow; the
 * operand type rules live in the shape column of ptx_ops.def (slot annotations). The
 * lists are supersets of what any one form allows (ptxas checks combinations; this
 * catches words that are not modifiers of the instruction at all, and missing types). */
#include <stdio.h>
#include <string.h>

#include "ptx/ptx_check.h"

/* ---- the rules table ------------------------------------------------------------------- */

/* words: modifier words other than types, space-separated; '#' stands for a decimal
 * number ("m#n#k#" matches m16n8k16). types: the instruction types. tmin..tmax: how many
 * type words the instruction carries. opnd: the operand types are checked against the
 * shape's slot rules, for instructions with tmin type words (0: not checked: textures,
 * matrices, barriers, asynchronous copies, whose operands follow rules of their own; and
 * the mixed-type forms such as add.f32.f16). */
struct rule {
  const char *words, *types;
  uint8_t tmin, tmax, opnd;
  const char *need, *needwhat; /* one of these words must be present ("a comparison") */
};

#define RND "rn rz rm rp "
#define IRND "rni rzi rmi rpi "
#define CMPOPS "eq ne lt le gt ge lo ls hi hs equ neu ltu leu gtu geu num nan "
#define CMP CMPOPS "and or xor "
#define SPACES "global shared shared::cta shared::cluster local const param param::entry " \
               "param::func "
#define SCOPES "cta cluster gpu sys "
#define EVICT "L1::evict_normal L1::evict_unchanged L1::evict_first L1::evict_last "       \
              "L1::no_allocate L2::evict_normal L2::evict_first L2::evict_last "           \
              "L2::evict_unchanged L2::cache_hint "
#define PREFETCH_SIZE "L2::64B L2::128B L2::256B "
#define ATOM_OPS "and or xor cas exch add inc dec min max "
#define INTS "s16 s32 s64 u16 u32 u64 "
#define HALFS "f16 f16x2 bf16 bf16x2 "
#define BITS "b16 b32 b64 "
#define MEMTYPES "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64 "
#define MATRIX_WORDS                                                                       \
  "sync aligned sp sp::ordered_metadata m#n#k# m#n# row col satfinite relu and xor popc "   \
  "kind::f8f6f4 kind::mxf4 kind::mxf4nvf4 kind::mxf8f6f4 kind::f16 kind::tf32 kind::i8 "    \
  "block_scale scale_vec::1X scale_vec::2X scale_vec::4X load store mma a b c d global "    \
  "shared shared::cta trans x# fence commit_group wait_group mma_async num "
#define MATRIX_TYPES                                                                       \
  "f16 f32 f64 bf16 tf32 e4m3 e5m2 e3m2 e2m3 e2m1 ue8m0 ue4m3 u8 s8 u4 s4 b1 s32 b8 b16 "  \
  "b8x16 b6x16_p32 b4x16_p64 f16x2 "

/* rows without a needed word leave need and needwhat NULL (clang's
 * -Wmissing-field-initializers would have every row spell them out) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct rule rules[PTX_OP_COUNT] = {
    [PTX_OP_ADD] = {"sat ftz cc relu " RND, INTS HALFS "f32 f64 u16x2 s16x2 f32x2", 1, 2, 1},
    [PTX_OP_SUB] = {"sat ftz cc relu " RND, INTS HALFS "f32 f64 u16x2 s16x2 f32x2", 1, 2, 1},
    [PTX_OP_MUL] = {"lo hi wide ftz sat " RND, INTS HALFS "f32 f64 f32x2", 1, 1, 1},
    [PTX_OP_MAD] = {"lo hi wide ftz sat cc " RND, INTS "f32 f64", 1, 1, 1},
    [PTX_OP_FMA] = {"ftz sat relu oob " RND, HALFS "f32 f64 f32x2", 1, 2, 1},
    [PTX_OP_DIV] = {"approx full ftz " RND, INTS "f32 f64", 1, 1, 1},
    [PTX_OP_REM] = {"", INTS, 1, 1, 1},
    [PTX_OP_ABS] = {"ftz relu", "s16 s32 s64 " HALFS "f32 f64", 1, 1, 1},
    [PTX_OP_NEG] = {"ftz relu", "s16 s32 s64 " HALFS "f32 f64", 1, 1, 1},
    [PTX_OP_MIN] = {"ftz NaN xorsign abs relu", INTS HALFS "f32 f64 u16x2 s16x2", 1, 1, 1},
    [PTX_OP_MAX] = {"ftz NaN xorsign abs relu", INTS HALFS "f32 f64 u16x2 s16x2", 1, 1, 1},
    [PTX_OP_MOV] = {"", "pred b16 b32 b64 b128 u16 u32 u64 s16 s32 s64 f32 f64", 1, 1, 1},
    [PTX_OP_LD] = {"weak volatile relaxed acquire mmio nc unified ca cg cs lu cv v2 v4 v8 "
                   SCOPES SPACES EVICT PREFETCH_SIZE, MEMTYPES, 1, 1, 1},
    [PTX_OP_ST] = {"weak volatile relaxed release mmio async wb cg cs wt v2 v4 v8 "
                   "mbarrier::complete_tx::bytes " SCOPES SPACES EVICT, MEMTYPES, 1, 1, 1},
    [PTX_OP_CVT] = {"ftz sat relu satfinite rna rs pack " RND IRND,
                    "u8 u16 u32 u64 s8 s16 s32 s64 b32 f16 f32 f64 f16x2 bf16 bf16x2 tf32 "
                    "e4m3x2 e5m2x2 e2m1x2 e2m3x2 e3m2x2 ue8m0x2 e2m1x4 e4m3x4 e5m2x4 e2m3x4 "
                    "e3m2x4", 2, 3, 1},
    [PTX_OP_CVTA] = {"to " SPACES, "u32 u64", 1, 1, 1, SPACES, "a state space"},
    [PTX_OP_SETP] = {"ftz " CMP, BITS INTS HALFS "f32 f64", 1, 1, 1, CMPOPS, "a comparison"},
    [PTX_OP_SELP] = {"", BITS INTS "f32 f64", 1, 1, 1},
    [PTX_OP_BRA] = {"uni", "", 0, 0, 0},
    [PTX_OP_RET] = {"uni", "", 0, 0, 0},
    [PTX_OP_EXIT] = {"", "", 0, 0, 0},
    [PTX_OP_BAR] = {"sync arrive red popc and or cta warp aligned", "u32 pred", 0, 1, 0},
    [PTX_OP_BARRIER] = {"sync arrive red popc and or cta cluster aligned wait release "
                        "relaxed acquire", "u32 pred", 0, 1, 0},
    [PTX_OP_AND] = {"", "pred " BITS, 1, 1, 1},
    [PTX_OP_OR] = {"", "pred " BITS, 1, 1, 1},
    [PTX_OP_XOR] = {"", "pred " BITS, 1, 1, 1},
    [PTX_OP_NOT] = {"", "pred " BITS, 1, 1, 1},
    [PTX_OP_SHL] = {"", BITS, 1, 1, 1},
    [PTX_OP_SHR] = {"", BITS INTS, 1, 1, 1},
    [PTX_OP_CALL] = {"uni", "", 0, 0, 0},
    /* the ISA lists 32 and 64 bits; ptxas 13 takes 16 as well */
    [PTX_OP_ADDC] = {"cc", "u16 s16 u32 s32 u64 s64", 1, 1, 1},
    [PTX_OP_SUBC] = {"cc", "u16 s16 u32 s32 u64 s64", 1, 1, 1},
    [PTX_OP_MADC] = {"lo hi cc", "u16 s16 u32 s32 u64 s64", 1, 1, 1},
    [PTX_OP_MUL24] = {"lo hi", "u32 s32", 1, 1, 1},
    [PTX_OP_MAD24] = {"lo hi sat", "u32 s32", 1, 1, 1},
    [PTX_OP_SAD] = {"", INTS, 1, 1, 1},
    [PTX_OP_CNOT] = {"", BITS, 1, 1, 1},
    [PTX_OP_LOP3] = {"and or", "b32", 1, 1, 1},
    [PTX_OP_SHF] = {"l r clamp wrap", "b32 u32 s32", 1, 1, 1},
    [PTX_OP_BFE] = {"", "u32 u64 s32 s64", 1, 1, 1},
    [PTX_OP_BFI] = {"", "b32 b64", 1, 1, 1},
    [PTX_OP_BFIND] = {"shiftamt", "u32 u64 s32 s64", 1, 1, 1},
    [PTX_OP_BREV] = {"", "b32 b64", 1, 1, 1},
    [PTX_OP_POPC] = {"", "b32 b64", 1, 1, 1},
    [PTX_OP_CLZ] = {"", "b32 b64", 1, 1, 1},
    [PTX_OP_FNS] = {"", "b32", 1, 1, 1},
    [PTX_OP_PRMT] = {"f4e b4e rc8 ecl ecr rc16", "b32", 1, 1, 1},
    [PTX_OP_DP4A] = {"lo hi", "u32 s32", 2, 2, 1},
    [PTX_OP_DP2A] = {"lo hi", "u32 s32", 2, 2, 1},
    [PTX_OP_TESTP] = {"finite infinite number notanumber normal subnormal", "f32 f64", 1, 1, 1,
                      "finite infinite number notanumber normal subnormal", "a property"},
    [PTX_OP_COPYSIGN] = {"", "f32 f64", 1, 1, 1},
    [PTX_OP_SQRT] = {"approx ftz " RND, "f32 f64", 1, 1, 1},
    [PTX_OP_RSQRT] = {"approx ftz", "f32 f64", 1, 1, 1},
    [PTX_OP_SIN] = {"approx ftz", "f32", 1, 1, 1},
    [PTX_OP_COS] = {"approx ftz", "f32", 1, 1, 1},
    [PTX_OP_LG2] = {"approx ftz", "f32", 1, 1, 1},
    [PTX_OP_EX2] = {"approx ftz", HALFS "f32", 1, 1, 1},
    [PTX_OP_RCP] = {"approx ftz " RND, "f32 f64", 1, 1, 1},
    [PTX_OP_TANH] = {"approx", HALFS "f32", 1, 1, 1},
    [PTX_OP_SET] = {"ftz " CMP, BITS INTS HALFS "f32 f64", 2, 2, 1, CMPOPS, "a comparison"},
    [PTX_OP_SLCT] = {"ftz", BITS INTS "f32 f64", 2, 2, 1},
    [PTX_OP_LDU] = {"global v2 v4", MEMTYPES, 1, 1, 1},
    [PTX_OP_PREFETCH] = {"global local L1 L2 L2::evict_last L2::evict_normal tensormap const "
                         "param", "", 0, 0, 1},
    [PTX_OP_ATOM] = {"relaxed acquire release acq_rel noftz v2 v4 v8 " ATOM_OPS SCOPES SPACES EVICT,
                     "b16 b32 b64 b128 u32 u64 s32 s64 f32 f64 " HALFS, 1, 1, 1, ATOM_OPS,
                     "an operation"},
    [PTX_OP_RED] = {"relaxed release acq_rel async mbarrier::complete_tx::bytes noftz v2 v4 v8 "
                    ATOM_OPS SCOPES SPACES EVICT,
                    "b32 b64 u32 u64 s32 s64 f32 f64 " HALFS, 1, 1, 1, ATOM_OPS,
                    "an operation"},
    [PTX_OP_SHFL] = {"sync up down bfly idx", "b32", 1, 1, 1, "up down bfly idx", "a mode"},
    [PTX_OP_VOTE] = {"sync all any uni ballot", "pred b32", 1, 1, 1, "all any uni ballot",
                     "a mode"},
    [PTX_OP_MATCH] = {"sync any all", "b32 b64", 1, 1, 1},
    [PTX_OP_ACTIVEMASK] = {"", "b32", 1, 1, 1},
    [PTX_OP_REDUX] = {"sync add min max and or xor abs NaN", "u32 s32 b32 f32", 1, 1, 1},
    [PTX_OP_CP] = {"async ca cg cs L2::cache_hint commit_group wait_group wait_all mbarrier "
                   "arrive noinc bulk tensor reduce prefetch 1d 2d 3d 4d 5d tile tile::gather4 "
                   "tile::scatter4 im2col im2col::w im2col::w::128 im2col_no_offs "
                   "mbarrier::complete_tx::bytes bulk_group multicast::cluster cta_group::1 "
                   "cta_group::2 L2 cp_mask read noftz " ATOM_OPS SPACES PREFETCH_SIZE,
                   "b32 b64 u32 u64 s32 s64 f16 bf16 f32 f64", 0, 1, 0},
    [PTX_OP_MEMBAR] = {"cta gl sys proxy alias async global shared::cta shared::cluster", "", 0,
                       0, 0},
    [PTX_OP_FENCE] = {"sc acq_rel acquire release proxy alias async global shared::cta "
                      "shared::cluster tensormap::generic async::generic op_restrict "
                      "mbarrier_init sync_restrict::shared::cluster "
                      "sync_restrict::shared::cta " SCOPES, "", 0, 0, 0},
    [PTX_OP_TRAP] = {"", "", 0, 0, 0},
    [PTX_OP_BRKPT] = {"", "", 0, 0, 0},
    [PTX_OP_NANOSLEEP] = {"", "u32", 1, 1, 1},
    [PTX_OP_TEX] = {"1d 2d 3d a1d a2d cube acube 2dms a2dms base level grad v2 v4",
                    "u32 s32 f16 f32 f16x2", 2, 2, 0},
    [PTX_OP_TLD4] = {"r g b a 2d a2d cube acube v4", "u32 s32 f32", 2, 2, 0},
    [PTX_OP_TXQ] = {"width height depth channel_data_type channel_order normalized_coords "
                    "array_size num_mipmap_levels num_samples force_unnormalized_coords "
                    "filter_mode addr_mode_0 addr_mode_1 addr_mode_2 level", "b32", 1, 1, 0},
    [PTX_OP_ISSPACEP] = {"const global local shared shared::cta shared::cluster param "
                         "param::entry", "", 0, 0, 1},
    [PTX_OP_PMEVENT] = {"mask", "", 0, 0, 0},
    [PTX_OP_BMSK] = {"clamp wrap", "b32", 1, 1, 1},
    [PTX_OP_SZEXT] = {"clamp wrap", "u32 s32", 1, 1, 1},
    [PTX_OP_MMA] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_WMMA] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_WGMMA] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_LDMATRIX] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_STMATRIX] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_MOVMATRIX] = {MATRIX_WORDS, MATRIX_TYPES, 0, 6, 0},
    [PTX_OP_MBARRIER] = {"init inval arrive arrive_drop expect_tx complete_tx test_wait "
                         "try_wait pending_count parity noComplete shared shared::cta "
                         "shared::cluster release acquire relaxed cta cluster", "b64", 0, 1,
                         0},
    [PTX_OP_ELECT] = {"sync", "", 0, 0, 1},
    [PTX_OP_GRIDDEPCONTROL] = {"launch_dependents wait", "", 0, 0, 0},
    [PTX_OP_MAPA] = {"shared::cluster", "u32 u64", 1, 1, 1},
    [PTX_OP_GETCTARANK] = {"shared::cluster", "u32 u64", 1, 1, 1},
    [PTX_OP_DISCARD] = {"global L2", "", 0, 0, 0},
    [PTX_OP_CREATEPOLICY] = {"range global fractional cvt L2 L2::evict_last L2::evict_normal "
                             "L2::evict_first L2::evict_unchanged", "b64", 1, 1, 0},
    [PTX_OP_PREFETCHU] = {"L1", "", 0, 0, 1},
    [PTX_OP_APPLYPRIORITY] = {"global L2::evict_normal", "", 0, 0, 0},
    [PTX_OP_SETMAXNREG] = {"inc dec sync aligned", "u32", 1, 1, 1},
    [PTX_OP_STACKSAVE] = {"", "u32 u64", 1, 1, 1},
    [PTX_OP_STACKRESTORE] = {"", "u32 u64", 1, 1, 1},
    [PTX_OP_ALLOCA] = {"local", "u32 u64", 1, 1, 1},
    [PTX_OP_SULD] = {"b p 1d 2d 3d a1d a2d ca cg cs cv v2 v4 trap clamp zero", "b8 b16 b32 b64",
                     1, 1, 0},
    [PTX_OP_SUST] = {"b p 1d 2d 3d a1d a2d wb cg cs wt v2 v4 trap clamp zero", "b8 b16 b32 b64",
                     1, 1, 0},
    [PTX_OP_SURED] = {"b p add min max and or 1d 2d 3d trap clamp zero",
                      "u32 u64 s32 s64 b32 b64", 1, 1, 0},
    [PTX_OP_SUQ] = {"width height depth channel_data_type channel_order array_size "
                    "memory_layout", "b32", 1, 1, 0},
    [PTX_OP_ISTYPEP] = {"texref samplerref surfref", "", 0, 0, 0},
};
#pragma GCC diagnostic pop

/* Type words that no enum ptx_type stands for (packed and narrow formats of recent
 * architectures): known, so not "unknown modifiers", but the IR keeps them only in
 * opcode_text. */
static const char extra_types[] =
    "u16x2 s16x2 f32x2 tf32 e4m3 e5m2 e3m2 e2m3 e2m1 ue8m0 ue4m3 e4m3x2 e5m2x2 e2m1x2 e2m3x2 "
    "e3m2x2 ue8m0x2 e2m1x4 e4m3x4 e5m2x4 e2m3x4 e3m2x4 u4 s4 b1 b8x16 b6x16_p32 b4x16_p64";

/* ---- word lists -------------------------------------------------------------------------- */

/* Whether word w (n bytes) matches pattern p (plen bytes), '#' matching 1+ digits. */
static int word_match(const char *p, size_t plen, const char *w, size_t n) {
  size_t i = 0, j = 0;
  while (i < plen && j < n) {
    if (p[i] == '#') {
      if (w[j] < '0' || w[j] > '9') return 0;
      while (j < n && w[j] >= '0' && w[j] <= '9') j++;
      i++;
    } else if (p[i++] != w[j++]) {
      return 0;
    }
  }
  return i == plen && j == n;
}

/* Whether word w (n bytes) is in the space-separated list. */
static int in_list(const char *list, const char *w, size_t n) {
  for (const char *s = list; *s;) {
    while (*s == ' ') s++;
    const char *e = s;
    while (*e && *e != ' ') e++;
    if (e > s && word_match(s, (size_t)(e - s), w, n)) return 1;
    s = e;
  }
  return 0;
}

/* The enum type named by w (n bytes), or PTX_TYPE_NONE. */
static enum ptx_type type_named(const char *w, size_t n) {
  for (int t = PTX_TYPE_PRED; t < PTX_TYPE_COUNT; t++) {
    const char *name = ptx_type_name((enum ptx_type)t);
    if (strlen(name) == n && memcmp(name, w, n) == 0) return (enum ptx_type)t;
  }
  return PTX_TYPE_NONE;
}

/* Whether w is a modifier or type of some row (for "unknown" against "does not apply"). */
static int known_anywhere(const char *w, size_t n) {
  for (int op = 0; op < PTX_OP_COUNT; op++)
    if ((rules[op].words && in_list(rules[op].words, w, n)) ||
        (rules[op].types && in_list(rules[op].types, w, n)))
      return 1;
  return in_list(extra_types, w, n);
}

/* list with a dot before each word: "s32 u32" -> ".s32 .u32" (truncated to size) */
static void dotted(const char *list, char *buf, size_t size) {
  size_t k = 0;
  buf[0] = 0;
  for (const char *s = list; *s && k + 2 < size;) {
    while (*s == ' ') s++;
    if (!*s) break;
    if (k) buf[k++] = ' ';
    buf[k++] = '.';
    while (*s && *s != ' ' && k + 1 < size) buf[k++] = *s++;
    buf[k] = 0;
  }
}

/* Words of which an instruction takes one at most (op: the row it applies to;
 * PTX_OP_COUNT: every row). */
static const struct {
  uint16_t op;
  const char *what, *words;
} exclusive[] = {
    {PTX_OP_COUNT, "rounding modes", RND IRND},
    {PTX_OP_SETP, "comparisons", CMPOPS}, {PTX_OP_SET, "comparisons", CMPOPS},
    {PTX_OP_SETP, "boolean operations", "and or xor"},
    {PTX_OP_SET, "boolean operations", "and or xor"},
    {PTX_OP_MUL, "modes", "lo hi wide"}, {PTX_OP_MAD, "modes", "lo hi wide"},
    {PTX_OP_MUL24, "modes", "lo hi"}, {PTX_OP_MAD24, "modes", "lo hi"},
    {PTX_OP_MADC, "modes", "lo hi"},
    {PTX_OP_ATOM, "operations", ATOM_OPS}, {PTX_OP_RED, "operations", ATOM_OPS},
    {PTX_OP_SHFL, "modes", "up down bfly idx"}, {PTX_OP_VOTE, "modes", "all any uni ballot"},
};

/* The group of exclusive words that w (n bytes, at s in text) is the second member of,
 * or NULL. */
static const char *second_of_group(const struct ptx_insn *in, const char *text, const char *s,
                                   const char *w, size_t n) {
  for (size_t g = 0; g < sizeof exclusive / sizeof exclusive[0]; g++) {
    if ((exclusive[g].op != PTX_OP_COUNT && exclusive[g].op != in->op) ||
        !in_list(exclusive[g].words, w, n))
      continue;
    for (const char *t = strchr(text, '.'); t && t < s; t = strchr(t + 1, '.')) {
      const char *e = strchr(t + 1, '.');
      size_t k = e ? (size_t)(e - t - 1) : strlen(t + 1);
      if (in_list(exclusive[g].words, t + 1, k)) return exclusive[g].what;
    }
  }
  return NULL;
}

/* Whether the word [w, w+n) occurs in text before position before (a repeated modifier). */
static int seen_before(const char *text, const char *before, const char *w, size_t n) {
  for (const char *s = strchr(text, '.'); s && s < before; s = strchr(s + 1, '.')) {
    const char *e = strchr(s + 1, '.');
    size_t k = e ? (size_t)(e - s - 1) : strlen(s + 1);
    if (k == n && memcmp(s + 1, w, n) == 0) return 1;
  }
  return 0;
}

static int is_space_word(const char *w, size_t n) {
  return in_list(SPACES, w, n);
}

/* The mixed-precision forms with two types (add.f32.f16, fma.rn.f32.bf16: sm_100) are the
 * only two-type forms of add, sub and fma. */
static int mixed_ok(const struct ptx_insn *in) {
  if (in->op != PTX_OP_ADD && in->op != PTX_OP_SUB && in->op != PTX_OP_FMA) return 1;
  if (in->type[1] == PTX_TYPE_NONE) return 1;
  return in->type[0] == PTX_TYPE_F32 &&
         (in->type[1] == PTX_TYPE_F16 || in->type[1] == PTX_TYPE_BF16);
}

int ptx_check_modifiers(struct ptx_insn *in, char *msg, size_t size, uint32_t *at) {
  const struct rule *r = in->op < PTX_OP_COUNT ? &rules[in->op] : NULL;
  const char *text = in->opcode_text;
  const char *base = ptx_op_info((enum ptx_opcode)in->op)->name;
  unsigned ntypes = 0, nspaces = 0;
  const char *two;
  int needed = 0;
  char list[400];
  *at = 0;
  if (!r || !r->words) return 1; /* a row without rules: nothing to check */
  for (const char *s = strchr(text, '.'); s; s = strchr(s + 1, '.')) {
    const char *w = s + 1, *e = strchr(w, '.');
    size_t n = e ? (size_t)(e - w) : strlen(w);
    int xt = in_list(extra_types, w, n);
    int n32 = n > 40 ? 40 : (int)n;
    *at = (uint32_t)(s - text);
    if (n == 0) {
      snprintf(msg, size, "empty modifier in '%s'", text);
      return 0;
    }
    if (type_named(w, n) != PTX_TYPE_NONE || xt) {
      if (!in_list(r->types, w, n)) {
        dotted(r->types, list, sizeof list);
        if (r->types[0])
          snprintf(msg, size, "type '.%.*s' is not valid for '%s' (it takes %s)", n32, w, base,
                   list);
        else
          snprintf(msg, size, "'%s' takes no type, found '.%.*s'", base, n32, w);
        return 0;
      }
      if (++ntypes > r->tmax || (ntypes == 2 && !mixed_ok(in))) {
        snprintf(msg, size, "'%s' takes %u type%s, found more in '%s'",
                 base, ntypes == 2 && !mixed_ok(in) ? 1 : r->tmax,
                 r->tmax == 1 || !mixed_ok(in) ? "" : "s", text);
        return 0;
      }
      if (xt) in->flags |= PTX_F_XTYPE;
      continue;
    }
    if (!in_list(r->words, w, n)) {
      if (known_anywhere(w, n))
        snprintf(msg, size, "modifier '.%.*s' does not apply to '%s' ('%s')", n32, w, base,
                 text);
      else
        snprintf(msg, size, "unknown modifier '.%.*s' in '%s'", n32, w, text);
      return 0;
    }
    if (seen_before(text, s, w, n)) {
      snprintf(msg, size, "modifier '.%.*s' given twice in '%s'", n32, w, text);
      return 0;
    }
    /* cp.async names its destination and source spaces; every other one space at most */
    if (is_space_word(w, n) && ++nspaces > 1 && in->op != PTX_OP_CP) {
      snprintf(msg, size, "'%s' names two state spaces", text);
      return 0;
    }
    if ((two = second_of_group(in, text, s, w, n)) != NULL) {
      snprintf(msg, size, "'%s' names two %s", text, two);
      return 0;
    }
    needed |= r->need && in_list(r->need, w, n);
  }
  *at = 0;
  if (ntypes < r->tmin) {
    dotted(r->types, list, sizeof list);
    if (r->tmin == 1)
      snprintf(msg, size, "'%s' needs a type (one of %s)", text, list);
    else
      snprintf(msg, size, "'%s' needs %u types (of %s), found %u", text, r->tmin, list,
               ntypes);
    return 0;
  }
  /* integer mul and mad take the half of the product they keep; floats take none */
  if (in->op == PTX_OP_MUL || in->op == PTX_OP_MAD) {
    int is_int = in->type[0] != PTX_TYPE_NONE && ptx_type_size(in->type[0]) &&
                 !ptx_type_is_float((enum ptx_type)in->type[0]) &&
                 in->type[0] != PTX_TYPE_F16X2 && in->type[0] != PTX_TYPE_BF16X2;
    int has_mode = in->mode == PTX_MODE_LO || in->mode == PTX_MODE_HI ||
                   in->mode == PTX_MODE_WIDE;
    if (is_int && !has_mode) {
      snprintf(msg, size, "'%s' needs .lo, .hi or .wide", text);
      return 0;
    }
    if (!is_int && has_mode && !(in->flags & PTX_F_XTYPE)) {
      snprintf(msg, size, "'%s': .lo, .hi and .wide apply to integer types only", text);
      return 0;
    }
  }
  if (r->need && !needed) {
    dotted(r->need, list, sizeof list);
    snprintf(msg, size, "'%s' needs %s (one of %s)", text, r->needwhat, list);
    return 0;
  }
  return 1;
}

/* ---- operand types ------------------------------------------------------------------------ */

/* how a slot's operand must relate to its type */
enum mode {
  M_SKIP,    /* not checked */
  M_STRICT,  /* Table 26: same size; floats only with bit-size or themselves */
  M_RELAXED, /* Tables 27-28 (ld, st, cvt data): at least as wide */
  M_PACK,    /* mov: the strict rule, vectors that pack into a bit-size type, special
                registers */
  M_ADDR     /* an address: its base register an integer or bit-size register */
};

enum tclass { TC_PRED, TC_BIT, TC_INT, TC_FLOAT };

static enum tclass tclass(enum ptx_type t) {
  switch (t) {
  case PTX_TYPE_PRED: return TC_PRED;
  case PTX_TYPE_B8: case PTX_TYPE_B16: case PTX_TYPE_B32: case PTX_TYPE_B64:
  case PTX_TYPE_B128:
    return TC_BIT;
  case PTX_TYPE_U8: case PTX_TYPE_U16: case PTX_TYPE_U32: case PTX_TYPE_U64:
  case PTX_TYPE_S8: case PTX_TYPE_S16: case PTX_TYPE_S32: case PTX_TYPE_S64:
    return TC_INT;
  default: return TC_FLOAT;
  }
}

static unsigned tbits(enum ptx_type t) {
  return t == PTX_TYPE_PRED ? 1 : 8 * ptx_type_size(t);
}

/* the integer type twice as wide as t (mul.wide, mad.wide), or NONE */
static enum ptx_type wide_of(enum ptx_type t) {
  switch (t) {
  case PTX_TYPE_U16: return PTX_TYPE_U32;
  case PTX_TYPE_U32: return PTX_TYPE_U64;
  case PTX_TYPE_S16: return PTX_TYPE_S32;
  case PTX_TYPE_S32: return PTX_TYPE_S64;
  default: return PTX_TYPE_NONE;
  }
}

/* Whether a register of type r may stand where type t is needed under mode m. */
static int reg_agrees(enum ptx_type t, enum ptx_type r, enum mode m) {
  enum tclass ct = tclass(t), cr = tclass(r);
  /* cvt: "a register wider than the specified type may be used, except when the operand
   * has .bf16 or .bf16x2 format" (PTX ISA 9.7.9.21) */
  if (t == PTX_TYPE_BF16 || t == PTX_TYPE_BF16X2) m = M_STRICT;
  if (ct == TC_PRED || cr == TC_PRED) return ct == cr;
  if (m == M_RELAXED ? tbits(r) < tbits(t) : tbits(r) != tbits(t)) return 0;
  switch (ct) {
  case TC_BIT: return 1;
  case TC_INT: return cr != TC_FLOAT;
  default: return r == t || cr == TC_BIT;
  }
}

/* "a 32-bit integer or bit-size register" and the like: what type t needs under mode m */
static void need_desc(enum ptx_type t, enum mode m, char *buf, size_t size) {
  unsigned b = tbits(t);
  const char *tn = ptx_type_name(t);
  enum tclass c = tclass(t);
  if (c == TC_PRED) snprintf(buf, size, "a .pred register");
  else if (m == M_RELAXED && c == TC_BIT) snprintf(buf, size, "a register of at least %u bits", b);
  else if (m == M_RELAXED && c == TC_INT)
    snprintf(buf, size, "an integer or bit-size register of at least %u bits", b);
  else if (m == M_RELAXED)
    snprintf(buf, size, "a .%s register or a bit-size register of at least %u bits", tn, b);
  else if (c == TC_BIT) snprintf(buf, size, "a %u-bit register", b);
  else if (c == TC_INT) snprintf(buf, size, "a %u-bit integer or bit-size register", b);
  else snprintf(buf, size, "a .%s or .b%u register", tn, b);
}

/* The bits of a special register as mov reads it; *legacy16: 16-bit moves allowed too
 * (%tid, %ntid, %ctaid, %nctaid: .u16 in early PTX); *any: 32 or 64 (%gridid). */
static unsigned sreg_bits(const struct ptx_operand *o, int *legacy16, int *any) {
  *legacy16 = ptx_sreg_has_comp((enum ptx_special_reg)o->sreg);
  *any = o->sreg == PTX_SREG_GRIDID;
  return o->sreg == PTX_SREG_CLOCK64 || o->sreg == PTX_SREG_GLOBALTIMER ||
                 o->sreg == PTX_SREG_GRIDID
             ? 64
             : 32;
}

/* a register's type as an operand sees it; NONE for a whole vector register */
static enum ptx_type reg_type(const struct ptx_operand *o, const struct ptx_reg *regs) {
  const struct ptx_reg *r = &regs[o->reg];
  return r->vec > 1 && !o->regcomp ? PTX_TYPE_NONE : r->type;
}

static void found_reg(const struct ptx_operand *o, const struct ptx_reg *regs, char *buf,
                      size_t size) {
  const struct ptx_reg *r = &regs[o->reg];
  snprintf(buf, size, "%s'%.60s%s' (.%s)", o->neg ? "the negated " : "", r->name,
           o->regcomp ? ".?" : "", ptx_type_name(r->type));
  if (o->regcomp) {
    char *q = strstr(buf, ".?'");
    if (q) q[1] = "xyzw"[(o->regcomp - 1) & 3];
  }
}

/* A scalar operand (register, constant, symbol, special register) against type t. */
static int scalar_ok(const struct ptx_insn *in, enum ptx_type t, enum mode m,
                     const struct ptx_operand *o, const struct ptx_reg *regs, char *msg,
                     size_t size) {
  char need[120], found[120];
  enum tclass c = tclass(t);
  switch (o->kind) {
  case PTX_OPND_REG: {
    enum ptx_type r = reg_type(o, regs);
    if (r == PTX_TYPE_NONE || reg_agrees(t, r, m)) return 1;
    need_desc(t, m, need, sizeof need);
    found_reg(o, regs, found, sizeof found);
    snprintf(msg, size, "must be %s, found %s", need, found);
    return 0;
  }
  case PTX_OPND_IMM:
    if (c == TC_FLOAT && !o->is_float) {
      snprintf(msg, size, "must be a .%s value, found an integer constant (write floats as "
               "0f... or 0d...)", ptx_type_name(t));
      return 0;
    }
    if ((c == TC_INT || c == TC_PRED) && o->is_float) {
      snprintf(msg, size, "must be a .%s value, found a floating-point constant",
               ptx_type_name(t));
      return 0;
    }
    /* a bit-size type takes the bits of a float constant of its own size (0f: 32, 0d: 64) */
    if (c == TC_BIT && o->is_float && tbits(t) != (o->is_f64 ? 64u : 32u)) {
      snprintf(msg, size, "must be a .%s value, found a %u-bit floating-point constant",
               ptx_type_name(t), o->is_f64 ? 64 : 32);
      return 0;
    }
    return 1;
  case PTX_OPND_SYM:
    if (c == TC_FLOAT || c == TC_PRED) {
      snprintf(msg, size, "must be a .%s value, found a symbol (an address)", ptx_type_name(t));
      return 0;
    }
    return 1;
  case PTX_OPND_SREG: {
    int legacy16, any;
    unsigned b = sreg_bits(o, &legacy16, &any);
    char name[40];
    int ok;
    snprintf(name, sizeof name, "%s%s", ptx_sreg_name((enum ptx_special_reg)o->sreg),
             legacy16 ? (const char *[]){".x", ".y", ".z"}[o->comp % 3] : "");
    if (m == M_PACK)
      ok = (c == TC_BIT || c == TC_INT) &&
           (tbits(t) == b || (legacy16 && tbits(t) == 16) || (any && tbits(t) == 32));
    else if (m == M_RELAXED)
      ok = c == TC_INT && tbits(t) <= b;
    else {
      snprintf(msg, size, "must be a register or a constant, found the special register "
               "'%s' (only mov and cvt read special registers: copy it with mov.u32 first)",
               name);
      return 0;
    }
    if (ok) return 1;
    snprintf(msg, size, "must be .%s, found the %u-bit special register '%s'",
             ptx_type_name(t), b, name);
    return 0;
  }
  default: (void)in; return 1; /* kinds the shape check governs */
  }
}

/* mov's vectors: {a, b} packs into (or unpacks from) a bit-size register of the
 * instruction type; each element is size(t) / count bits (PTX ISA 9.7.9.7 mov). */
static int pack_ok(enum ptx_type t, const struct ptx_operand *o, const struct ptx_operand *elems,
                   const struct ptx_reg *regs, char *msg, size_t size) {
  char found[120];
  if (tclass(t) != TC_BIT) {
    snprintf(msg, size, "must be a register (vectors pack only in .b16, .b32, .b64 or .b128 "
             "moves), found a vector '{..}'");
    return 0;
  }
  unsigned eb = tbits(t) / (unsigned)(o->count ? o->count : 1);
  for (int32_t k = 0; k < o->count; k++) {
    const struct ptx_operand *e = &elems[o->first + k];
    if (e->kind != PTX_OPND_REG) continue;
    enum ptx_type r = reg_type(e, regs);
    /* ptxas 13 takes a .pred element in any vector ({%r1, %p1}); so does this check */
    if (r == PTX_TYPE_NONE || r == PTX_TYPE_PRED || tbits(r) == eb) continue;
    found_reg(e, regs, found, sizeof found);
    snprintf(msg, size, "has element %d %s; a vector of %d elements in a .%s move takes "
             "%u-bit registers", k + 1, found, o->count, ptx_type_name(t), eb);
    return 0;
  }
  return 1;
}

/* the vector elements of ld/st/atom/... against t: each as a scalar, all of one size */
static int vector_ok(const struct ptx_insn *in, enum ptx_type t, enum mode m,
                     const struct ptx_operand *o, const struct ptx_operand *elems,
                     const struct ptx_reg *regs, char *msg, size_t size) {
  unsigned first_bits = 0;
  char inner[300], found[120];
  for (int32_t k = 0; k < o->count; k++) {
    const struct ptx_operand *e = &elems[o->first + k];
    if (e->kind == PTX_OPND_REG && reg_type(e, regs) == PTX_TYPE_PRED) continue; /* as ptxas */
    if (!scalar_ok(in, t, m, e, regs, inner, sizeof inner)) {
      snprintf(msg, size, "has element %d that %s", k + 1, inner);
      return 0;
    }
    if (e->kind != PTX_OPND_REG || reg_type(e, regs) == PTX_TYPE_NONE) continue;
    unsigned b = tbits(reg_type(e, regs));
    if (!first_bits) {
      first_bits = b;
    } else if (b != first_bits) {
      found_reg(e, regs, found, sizeof found);
      snprintf(msg, size, "has element %d %s; the elements of a vector must all be %u-bit "
               "registers", k + 1, found, first_bits);
      return 0;
    }
  }
  return 1;
}

static int ann_is(const char *ann, size_t n, const char *s) {
  return strlen(s) == n && memcmp(ann, s, n) == 0;
}

int ptx_check_wants_operands(const struct ptx_insn *in) {
  if (in->op >= PTX_OP_COUNT || !rules[in->op].words || !rules[in->op].opnd) return 0;
  if (in->flags & PTX_F_XTYPE) return 0;
  unsigned n = 0;
  for (int j = 0; j < 3; j++) n += in->type[j] != PTX_TYPE_NONE;
  return n == rules[in->op].tmin;
}

int ptx_check_operand(const struct ptx_insn *in, const char *slot, size_t slotlen,
                      const char *ann, size_t annlen, const struct ptx_operand *o,
                      const struct ptx_operand *elems, const struct ptx_reg *regs,
                      unsigned address_bits, char *msg, size_t size) {
  enum ptx_type t = (enum ptx_type)in->type[0];
  enum mode m = M_STRICT;
  char c = slotlen == 1 ? slot[0] : 0;
  if (c == 'l' || c == 'g' || ann_is(ann, annlen, "any")) return 1;
  if (c == 'm') m = M_ADDR;
  else if (ann_is(ann, annlen, "pred") || (!annlen && (c == 'p' || c == 'q'))) t = PTX_TYPE_PRED;
  else if (ann_is(ann, annlen, "u32")) t = PTX_TYPE_U32;
  else if (ann_is(ann, annlen, "b64")) t = PTX_TYPE_B64;
  else if (ann_is(ann, annlen, "wide")) t = wide_of(t);
  else if (ann_is(ann, annlen, "t2")) t = (enum ptx_type)in->type[1];
  else if (ann_is(ann, annlen, "rel")) m = M_RELAXED;
  else if (ann_is(ann, annlen, "rel2")) { t = (enum ptx_type)in->type[1]; m = M_RELAXED; }
  else if (ann_is(ann, annlen, "pack")) m = M_PACK;
  if (m == M_ADDR) {
    char found[120];
    if (o->kind != PTX_OPND_ADDR || o->reg < 0) return 1;
    enum ptx_type r = regs[o->reg].type;
    found_reg(o, regs, found, sizeof found);
    if (tclass(r) != TC_INT && tclass(r) != TC_BIT) {
      snprintf(msg, size, "must be an address in an integer or bit-size register, found %s",
               found);
      return 0;
    }
    /* global and generic addresses are 64-bit in a 64-bit module (ptxas 13: "32-Bit ABI
     * is not supported on sm_90" for a 32-bit register; a 16-bit one only warns); shared,
     * local, const and param offsets may be narrower */
    if (address_bits == 64 && tbits(r) == 32 &&
        (in->space == PTX_SPACE_GLOBAL || in->space == PTX_SPACE_GENERIC)) {
      snprintf(msg, size, "must be a 64-bit address (.address_size 64), found %s", found);
      return 0;
    }
    return 1;
  }
  if (t == PTX_TYPE_NONE) return 1;
  if (o->kind == PTX_OPND_VEC)
    return m == M_PACK ? pack_ok(t, o, elems, regs, msg, size)
                       : vector_ok(in, t, m, o, elems, regs, msg, size);
  return scalar_ok(in, t, m, o, regs, msg, size);
}

int ptx_check_guard(const struct ptx_reg *r, char *msg, size_t size) {
  if (r->type == PTX_TYPE_PRED) return 1;
  snprintf(msg, size, "the guard '%.60s' must be a .pred register, found .%s", r->name,
           ptx_type_name(r->type));
  return 0;
}
