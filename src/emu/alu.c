/* Integer semantics of PTX ISA 9.0 (section 9.7.1 "Integer Arithmetic Instructions",
 * 9.7.2 "Extended-Precision", 9.7.8 "Logic and Shift"): wrap-around arithmetic at the
 * instruction's width, .sat for s32, .lo/.hi/.wide products, shift amounts clamped, bit
 * field operations. Division by zero (unspecified by the ISA) gives all ones, for div
 * and rem alike; the most negative value divided by -1 wraps to itself (rem: 0). */
#include <stdint.h>
#include <string.h>

#include "emu/emu_internal.h"

/* all ones in the low w bits */
static uint64_t wmask(unsigned w)
{
  return w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
}

/* the low w bits of v, sign-extended */
static int64_t sx(uint64_t v, unsigned w)
{
  return (int64_t)emu_norm(v, w, K_S);
}

/* the low w bits of v, zero-extended */
static uint64_t zx(uint64_t v, unsigned w)
{
  return v & wmask(w);
}

/* full 2w-bit product of two w-bit values (w <= 64) as a 128-bit integer */
static unsigned __int128 product(uint64_t a, uint64_t b, unsigned w, int sg)
{
  if (sg) return (unsigned __int128)((__int128)sx(a, w) * (__int128)sx(b, w));
  return (unsigned __int128)zx(a, w) * zx(b, w);
}

/* mul.lo/.hi/.wide of a and b at the instruction width (.wide: 2w bits) */
static uint64_t mul_mode(const struct dinsn *i, uint64_t a, uint64_t b)
{
  unsigned __int128 p = product(a, b, i->w, i->k == K_S);
  switch (i->mode) {
  case PTX_MODE_HI: return zx((uint64_t)(p >> i->w), i->w);
  case PTX_MODE_WIDE: return i->w >= 64 ? (uint64_t)p : zx((uint64_t)p, 2 * i->w);
  default: return zx((uint64_t)p, i->w);
  }
}

/* v clamped to the s32 range, as 32 bits */
static uint64_t sat_s32(int64_t v)
{
  if (v > INT32_MAX) v = INT32_MAX;
  if (v < INT32_MIN) v = INT32_MIN;
  return (uint32_t)(int32_t)v;
}

/* a / b or a % b at width w (by zero: all ones; MIN / -1 wraps) */
static uint64_t divrem(const struct dinsn *i, uint64_t a, uint64_t b, int is_rem)
{
  unsigned w = i->w;
  if (zx(b, w) == 0) return wmask(w);
  if (i->k == K_S) {
    int64_t x = sx(a, w), y = sx(b, w);
    int64_t mn = w == 64 ? INT64_MIN : -(INT64_C(1) << (w - 1));
    if (x == mn && y == -1) return is_rem ? 0 : zx((uint64_t)x, w);
    return zx((uint64_t)(is_rem ? x % y : x / y), w);
  }
  return is_rem ? zx(a, w) % zx(b, w) : zx(a, w) / zx(b, w);
}

/* min or max of a and b, signed or unsigned per the type */
static uint64_t minmax(const struct dinsn *i, uint64_t a, uint64_t b, int is_max)
{
  int lt = i->k == K_S ? sx(a, i->w) < sx(b, i->w) : zx(a, i->w) < zx(b, i->w);
  return zx(lt != is_max ? a : b, i->w);
}

/* a shifted by b (a u32 amount) at width w; amounts >= w clamp */
static uint64_t shift(const struct dinsn *i, uint64_t a, uint64_t b, int left)
{
  uint32_t n = (uint32_t)b;
  unsigned w = i->w;
  if (left) return n >= w ? 0 : zx(a << n, w);
  if (i->k == K_S) return zx((uint64_t)(sx(a, w) >> (n >= w ? w - 1 : n)), w);
  return n >= w ? 0 : zx(a, w) >> n;
}

/* bfe: len c bits of a from position b, sign-filled for signed types (ISA pseudo-code) */
static uint64_t bfe(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c)
{
  unsigned w = i->w, msb = w - 1, pos = (unsigned)(b & 0xff), len = (unsigned)(c & 0xff);
  uint64_t d = 0, sbit = 0;
  if (i->k == K_S && len) {
    unsigned top = pos + len - 1 < msb ? pos + len - 1 : msb;
    sbit = (a >> top) & 1;
  }
  for (unsigned j = 0; j <= msb; j++) {
    uint64_t bit = (j < len && pos + j <= msb) ? (a >> (pos + j)) & 1 : sbit;
    d |= bit << j;
  }
  return d;
}

/* bfi: b with the low e bits of a inserted at position c */
static uint64_t bfi(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
  unsigned w = i->w, pos = (unsigned)(c & 0xff), len = (unsigned)(e & 0xff);
  uint64_t f = zx(b, w);
  for (unsigned j = 0; j < len && pos + j < w; j++) {
    uint64_t bit = (a >> j) & 1;
    f = (f & ~(UINT64_C(1) << (pos + j))) | (bit << (pos + j));
  }
  return f;
}

/* prmt.b32 default mode: pick bytes of {b, a} by the nibbles of c; bit 3 of a nibble
 * replicates the picked byte's sign */
static uint64_t prmt(uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t t = ((b & 0xffffffffu) << 32) | (a & 0xffffffffu), d = 0;
  for (unsigned n = 0; n < 4; n++) {
    unsigned sel = (unsigned)(c >> (4 * n)) & 0xf;
    uint64_t byte = (t >> (8 * (sel & 7))) & 0xff;
    if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
    d |= byte << (8 * n);
  }
  return d;
}

/* the low w bits of a reversed */
static uint64_t brev(uint64_t a, unsigned w)
{
  uint64_t d = 0;
  for (unsigned j = 0; j < w; j++) d |= ((a >> j) & 1) << (w - 1 - j);
  return d;
}

/* bfind: position of the most significant non-sign bit (0xffffffff if none) */
static uint64_t bfind(const struct dinsn *i, uint64_t a)
{
  unsigned w = i->w;
  uint64_t v = zx(a, w);
  int pos = -1;
  if (i->k == K_S && (v >> (w - 1)) & 1) v = zx(~v, w); /* first non-sign bit */
  for (int j = (int)w - 1; j >= 0; j--)
    if ((v >> j) & 1) { pos = j; break; }
  if (pos < 0) return 0xffffffffu;
  return (i->flags & PTX_F_SHIFTAMT) ? (uint64_t)(w - 1 - (unsigned)pos) : (uint64_t)pos;
}

uint64_t emu_iop(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c, uint64_t e)
{
  unsigned w = i->w;
  int sat = (i->flags & PTX_F_SAT) && i->k == K_S && w == 32;
  switch (i->fam) {
  case F_ADD: return sat ? sat_s32(sx(a, 32) + sx(b, 32)) : zx(a + b, w);
  case F_SUB: return sat ? sat_s32(sx(a, 32) - sx(b, 32)) : zx(a - b, w);
  case F_MUL: return mul_mode(i, a, b);
  case F_MAD: {
    uint64_t p = mul_mode(i, a, b);
    if (i->mode == PTX_MODE_WIDE) return w >= 64 ? p + c : zx(p + c, 2 * w);
    if (sat && i->mode == PTX_MODE_HI) return sat_s32(sx(p, 32) + sx(c, 32));
    return zx(p + c, w);
  }
  case F_MUL24: case F_MAD24: {
    uint64_t x = i->k == K_S ? (uint64_t)sx(a, 24) : zx(a, 24);
    uint64_t y = i->k == K_S ? (uint64_t)sx(b, 24) : zx(b, 24);
    uint64_t p = x * y; /* 48 significant bits */
    uint64_t r = i->mode == PTX_MODE_HI ? zx(p >> 16, 32) : zx(p, 32);
    return i->fam == F_MAD24 ? zx(r + c, 32) : r;
  }
  case F_SAD: {
    /* |a - b| in unsigned arithmetic: the signed difference of 64-bit values may overflow */
    uint64_t diff = i->k == K_S ? (sx(a, w) > sx(b, w) ? (uint64_t)sx(a, w) - (uint64_t)sx(b, w)
                                                       : (uint64_t)sx(b, w) - (uint64_t)sx(a, w))
                                : (zx(a, w) > zx(b, w) ? zx(a, w) - zx(b, w) : zx(b, w) - zx(a, w));
    return zx(c + diff, w);
  }
  case F_DIV: return divrem(i, a, b, 0);
  case F_REM: return divrem(i, a, b, 1);
  case F_ABS: /* |INT_MIN| wraps to INT_MIN: negate as unsigned (no signed overflow) */
    return i->k == K_S && sx(a, w) < 0 ? zx(0 - (uint64_t)sx(a, w), w) : zx(a, w);
  case F_NEG: return zx(-a, w);
  case F_MIN: return minmax(i, a, b, 0);
  case F_MAX: return minmax(i, a, b, 1);
  case F_AND: return zx(a & b, w);
  case F_OR: return zx(a | b, w);
  case F_XOR: return zx(a ^ b, w);
  case F_NOT: return zx(~a, w);
  case F_CNOT: return zx(a, w) == 0;
  case F_SHL: return shift(i, a, b, 1);
  case F_SHR: return shift(i, a, b, 0);
  case F_POPC: return (uint64_t)__builtin_popcountll(zx(a, w));
  case F_CLZ: return zx(a, w) == 0 ? w : (uint64_t)(__builtin_clzll(zx(a, w)) - (64 - (int)w));
  case F_BREV: return brev(a, w);
  case F_BFIND: return bfind(i, a);
  case F_BFE: return bfe(i, a, b, c);
  case F_BFI: return bfi(i, a, b, c, e);
  case F_PRMT: return prmt(a, b, c);
  case F_LOP3: { /* bit j of the LUT e answers a,b,c = bits 2,1,0 of j */
    uint64_t d = 0;
    for (unsigned j = 0; j < 8; j++)
      if ((e >> j) & 1)
        d |= ((j & 4) ? a : ~a) & ((j & 2) ? b : ~b) & ((j & 1) ? c : ~c);
    return zx(d, 32);
  }
  case F_SHF: { /* funnel shift of b:a by c (.wrap: c mod 32; .clamp: min(c, 32)) */
    uint64_t v = (zx(b, 32) << 32) | zx(a, 32);
    uint32_t n = (uint32_t)c;
    n = (i->flags & PTX_F_CLAMP) ? (n > 32 ? 32 : n) : n & 31;
    return i->mode == PTX_MODE_SHF_L ? zx((v << n) >> 32, 32) : zx(v >> n, 32);
  }
  case F_BMSK: { /* len bits from pos: .clamp limits both to 32, .wrap takes them mod 32 */
    uint32_t pos = (uint32_t)a, len = (uint32_t)b;
    if (i->flags & PTX_F_WRAP) { pos &= 31; len &= 31; }
    else { pos = pos > 32 ? 32 : pos; len = len > 32 ? 32 : len; }
    if (pos >= 32 || len == 0) return 0;
    return zx(((len >= 32 ? UINT64_C(0xffffffff) : (UINT64_C(1) << len) - 1)) << pos, 32);
  }
  case F_SZEXT: { /* extend the low b bits of a (.s32: sign, .u32: zero) */
    uint32_t n = (uint32_t)b;
    if (i->flags & PTX_F_WRAP) n &= 31;
    else n = n > 32 ? 32 : n;
    if (n == 0) return 0;
    return zx(emu_norm(a, n, i->k), 32);
  }
  case F_ISSPACEP: {
    int sh = a - WIN_SHARED < WIN_SIZE, lo = a - WIN_LOCAL < WIN_SIZE;
    int co = a - WIN_CONST < WIN_SIZE;
    switch (i->space) {
    case PTX_SPACE_SHARED: return (uint64_t)sh;
    case PTX_SPACE_LOCAL: return (uint64_t)lo;
    case PTX_SPACE_CONST: return (uint64_t)co;
    case PTX_SPACE_GLOBAL: return (uint64_t)!(sh || lo || co);
    default: return 0;
    }
  }
  case F_SLCT: {
    int ge;
    if (i->k2 == K_F) {
      uint32_t u = (uint32_t)c;
      float f;
      memcpy(&f, &u, 4);
      ge = f >= 0.0f;
    } else {
      ge = sx(c, 32) >= 0;
    }
    return ge ? zx(a, w) : zx(b, w);
  }
  default: return 0;
  }
}
