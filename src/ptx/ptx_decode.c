/* coalcheck PTX front end: the words of an opcode decoded into an instruction's fields
 * (types, state spaces, comparison, rounding, atomic and warp-operation modes, flags),
 * for the parser. Source: PTX ISA 9.0, chapter 9 (each instruction's syntax block). */
#include <stdint.h>
#include <string.h>

#include "ptx/ptx.h"
#include "ptx/ptx_check.h"

/* Declared in ptx_check.h. */
enum ptx_type ptx_type_from(const char *s, size_t len) {
  for (int t = PTX_TYPE_PRED; t < PTX_TYPE_COUNT; t++) {
    const char *n = ptx_type_name((enum ptx_type)t);
    if (strlen(n) == len && memcmp(n, s, len) == 0) return (enum ptx_type)t;
  }
  return PTX_TYPE_NONE;
}

/* Declared in ptx_check.h. */
enum ptx_space ptx_space_from(const char *s, size_t len) {
#define IS(lit) (len == sizeof(lit) - 1 && memcmp(s, lit, len) == 0)
  if (IS("global")) return PTX_SPACE_GLOBAL;
  if (IS("shared") || IS("shared::cta")) return PTX_SPACE_SHARED;
  if (IS("shared::cluster")) return PTX_SPACE_SHARED_CLUSTER;
  if (IS("local")) return PTX_SPACE_LOCAL;
  if (IS("const")) return PTX_SPACE_CONST;
  if (IS("param") || IS("param::entry") || IS("param::func")) return PTX_SPACE_PARAM;
#undef IS
  return PTX_SPACE_COUNT;
}

struct word { const char *s; uint8_t v; };

static int word_find(const struct word *tab, const char *s, size_t len) {
  for (int i = 0; tab[i].s; i++)
    if (strlen(tab[i].s) == len && memcmp(tab[i].s, s, len) == 0) return tab[i].v;
  return -1;
}

static const struct word rnd_words[] = {
    {"rn", PTX_RND_RN},   {"rz", PTX_RND_RZ},   {"rm", PTX_RND_RM},   {"rp", PTX_RND_RP},
    {"rni", PTX_RND_RNI}, {"rzi", PTX_RND_RZI}, {"rmi", PTX_RND_RMI}, {"rpi", PTX_RND_RPI},
    {NULL, 0}};
static const struct word cmp_words[] = {
    {"eq", PTX_CMP_EQ},   {"ne", PTX_CMP_NE},   {"lt", PTX_CMP_LT},   {"le", PTX_CMP_LE},
    {"gt", PTX_CMP_GT},   {"ge", PTX_CMP_GE},   {"lo", PTX_CMP_LO},   {"ls", PTX_CMP_LS},
    {"hi", PTX_CMP_HI},   {"hs", PTX_CMP_HS},   {"equ", PTX_CMP_EQU}, {"neu", PTX_CMP_NEU},
    {"ltu", PTX_CMP_LTU}, {"leu", PTX_CMP_LEU}, {"gtu", PTX_CMP_GTU}, {"geu", PTX_CMP_GEU},
    {"num", PTX_CMP_NUM}, {"nan", PTX_CMP_NAN}, {NULL, 0}};
static const struct word bool_words[] = {
    {"and", PTX_BOOL_AND}, {"or", PTX_BOOL_OR}, {"xor", PTX_BOOL_XOR}, {NULL, 0}};
static const struct word atom_words[] = {
    {"add", PTX_MODE_ADD},   {"min", PTX_MODE_MIN}, {"max", PTX_MODE_MAX},
    {"inc", PTX_MODE_INC},   {"dec", PTX_MODE_DEC}, {"cas", PTX_MODE_CAS},
    {"exch", PTX_MODE_EXCH}, {"and", PTX_MODE_AND}, {"or", PTX_MODE_OR},
    {"xor", PTX_MODE_XOR},   {NULL, 0}};
static const struct word int_mode_words[] = {
    {"lo", PTX_MODE_LO}, {"hi", PTX_MODE_HI}, {"wide", PTX_MODE_WIDE}, {NULL, 0}};
static const struct word shfl_words[] = {
    {"up", PTX_MODE_UP}, {"down", PTX_MODE_DOWN}, {"bfly", PTX_MODE_BFLY},
    {"idx", PTX_MODE_IDX}, {NULL, 0}};
static const struct word vote_words[] = {
    {"all", PTX_MODE_ALL}, {"any", PTX_MODE_ANY}, {"uni", PTX_MODE_UNI},
    {"ballot", PTX_MODE_BALLOT}, {NULL, 0}};
static const struct word tex_words[] = {
    {"1d", PTX_MODE_1D}, {"2d", PTX_MODE_2D}, {"3d", PTX_MODE_3D}, {NULL, 0}};
static const struct word shf_words[] = {{"l", PTX_MODE_SHF_L}, {"r", PTX_MODE_SHF_R}, {NULL, 0}};
static const struct word bar_words[] = {
    {"arrive", PTX_MODE_ARRIVE}, {"red", PTX_MODE_RED}, {NULL, 0}};

static const struct { const char *s; uint32_t bit; } flag_words[] = {
    {"ftz", PTX_F_FTZ},         {"sat", PTX_F_SAT},         {"approx", PTX_F_APPROX},
    {"full", PTX_F_FULL},       {"uni", PTX_F_UNI},         {"nc", PTX_F_NC},
    {"volatile", PTX_F_VOLATILE}, {"cc", PTX_F_CC},         {"sync", PTX_F_SYNC},
    {"aligned", PTX_F_ALIGNED}, {"shiftamt", PTX_F_SHIFTAMT}, {"clamp", PTX_F_CLAMP},
    {"wrap", PTX_F_WRAP},       {"relaxed", PTX_F_RELAXED}, {"acquire", PTX_F_ACQUIRE},
    {"release", PTX_F_RELEASE}, {"noftz", PTX_F_NOFTZ},
};

/* The family-specific meaning of a modifier word; 1 when it was one. */
static int decode_family(struct ptx_insn *in, const char *s, size_t n) {
  int v;
  switch (in->op) {
  case PTX_OP_SETP:
  case PTX_OP_SET:
    if ((v = word_find(cmp_words, s, n)) >= 0) { in->cmp = (uint8_t)v; return 1; }
    if ((v = word_find(bool_words, s, n)) >= 0) { in->boolop = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_ATOM:
  case PTX_OP_RED:
  case PTX_OP_REDUX:
    if ((v = word_find(atom_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_SHFL:
    if ((v = word_find(shfl_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_VOTE:
  case PTX_OP_MATCH:
    if ((v = word_find(vote_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_TEX:
  case PTX_OP_TLD4:
    if ((v = word_find(tex_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_SHF:
    if ((v = word_find(shf_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_BAR:
  case PTX_OP_BARRIER:
    if ((v = word_find(bar_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    if (n == 4 && memcmp(s, "popc", 4) == 0) {
      in->mode = PTX_MODE_POPC; /* bar.red.popc */
      return 1;
    }
    if ((v = word_find(bool_words, s, n)) >= 0) { in->boolop = (uint8_t)v; return 1; }
    return 0;
  case PTX_OP_CVTA:
    if (n == 2 && memcmp(s, "to", 2) == 0) { in->mode = PTX_MODE_TO; return 1; }
    return 0;
  default:
    if ((v = word_find(int_mode_words, s, n)) >= 0) { in->mode = (uint8_t)v; return 1; }
    return 0;
  }
}

/* Declared in ptx_check.h. */
void ptx_decode_modifiers(struct ptx_insn *in, const char *text) {
  const char *s = strchr(text, '.');
  int ntypes = 0, nspaces = 0;
  while (s) {
    s++;
    const char *e = strchr(s, '.');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    enum ptx_type t;
    enum ptx_space sp;
    int v;
    if (decode_family(in, s, n)) {
      /* done */
    } else if ((t = ptx_type_from(s, n)) != PTX_TYPE_NONE) {
      if (ntypes < 3) in->type[ntypes++] = (uint8_t)t;
    } else if ((sp = ptx_space_from(s, n)) != PTX_SPACE_COUNT) {
      /* cvta names the space converted; cp.async names destination then source */
      if (in->op == PTX_OP_CVTA || nspaces == 1) in->cvta_space = (uint8_t)sp;
      else in->space = (uint8_t)sp;
      nspaces++;
    } else if (n == 2 && s[0] == 'v' && (s[1] == '2' || s[1] == '4' || s[1] == '8')) {
      in->vec = (uint8_t)(s[1] - '0');
    } else if ((v = word_find(rnd_words, s, n)) >= 0) {
      in->rnd = (uint8_t)v;
    } else {
      for (size_t i = 0; i < sizeof flag_words / sizeof flag_words[0]; i++)
        if (strlen(flag_words[i].s) == n && memcmp(flag_words[i].s, s, n) == 0)
          in->flags |= flag_words[i].bit;
    }
    s = e;
  }
}
