/* Floating-point semantics of PTX ISA 9.0 (sections 9.7.3 "Floating-Point Instructions",
 * 9.7.9.21 "cvt"): rounding modifiers, .ftz, .sat, min/max NaN rules, conversions.
 *
 * Directed rounding (.rz/.rm/.rp) runs the host operation under fesetround(); the
 * operands pass through volatile objects so that the compiler cannot move or fold the
 * operation across the mode switch. .approx operations use libm (the ISA allows an error
 * of a few ulp; we are closer than the GPU, never farther). */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "emu/emu_internal.h"

static float F32(uint64_t v)
{
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint64_t B32(float f)
{
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static double F64(uint64_t v)
{
  double f;
  memcpy(&f, &v, 8);
  return f;
}
static uint64_t B64(double f)
{
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}

static int host_mode(unsigned rnd)
{
  switch (rnd) {
  case PTX_RND_RZ: case PTX_RND_RZI: return FE_TOWARDZERO;
  case PTX_RND_RM: case PTX_RND_RMI: return FE_DOWNWARD;
  case PTX_RND_RP: case PTX_RND_RPI: return FE_UPWARD;
  default: return FE_TONEAREST;
  }
}

/* .ftz: subnormal f32 -> zero of the same sign */
static float ftz(float x)
{
  return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static float sat32(float x)
{
  if (isnan(x)) return 0.0f;
  return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}

static double sat64(double x)
{
  if (isnan(x)) return 0.0;
  return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* PTX min/max: a NaN operand is ignored; both NaN gives the canonical NaN; -0 < +0 */
static double fminmax(double a, double b, int is_max)
{
  if (isnan(a) && isnan(b)) return NAN;
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b && a == 0.0) {
    int na = signbit(a) != 0, nb = signbit(b) != 0;
    if (is_max) return (na && nb) ? a : (na ? b : a);
    return (na || nb) ? (na ? a : b) : a;
  }
  return is_max ? (a > b ? a : b) : (a < b ? a : b);
}

static float op32(unsigned fam, float a, float b, float c, unsigned rnd)
{
  volatile float va = a, vb = b, vc = c, vr;
  int mode = host_mode(rnd), old = 0;
  if (mode != FE_TONEAREST) { old = fegetround(); fesetround(mode); }
  switch (fam) {
  case F_ADD: vr = va + vb; break;
  case F_SUB: vr = va - vb; break;
  case F_MUL: vr = va * vb; break;
  case F_DIV: vr = va / vb; break;
  case F_FMA: case F_MAD: vr = fmaf(va, vb, vc); break;
  case F_SQRT: vr = sqrtf(va); break;
  case F_RCP: vr = 1.0f / va; break;
  default: vr = 0; break;
  }
  if (mode != FE_TONEAREST) fesetround(old);
  return vr;
}

static double op64(unsigned fam, double a, double b, double c, unsigned rnd)
{
  volatile double va = a, vb = b, vc = c, vr;
  int mode = host_mode(rnd), old = 0;
  if (mode != FE_TONEAREST) { old = fegetround(); fesetround(mode); }
  switch (fam) {
  case F_ADD: vr = va + vb; break;
  case F_SUB: vr = va - vb; break;
  case F_MUL: vr = va * vb; break;
  case F_DIV: vr = va / vb; break;
  case F_FMA: case F_MAD: vr = fma(va, vb, vc); break;
  case F_SQRT: vr = sqrt(va); break;
  case F_RCP: vr = 1.0 / va; break;
  default: vr = 0; break;
  }
  if (mode != FE_TONEAREST) fesetround(old);
  return vr;
}

/* testp operations, stored in dinsn.cmp by the decoder */
enum { TP_FINITE = 1, TP_INFINITE, TP_NUMBER, TP_NOTANUMBER, TP_NORMAL, TP_SUBNORMAL };

static uint64_t testp(unsigned what, double x)
{
  switch (what) {
  case TP_FINITE: return isfinite(x) != 0;
  case TP_INFINITE: return isinf(x) != 0;
  case TP_NUMBER: return !isnan(x);
  case TP_NOTANUMBER: return isnan(x) != 0;
  case TP_NORMAL: return isnormal(x) != 0;
  case TP_SUBNORMAL: return fpclassify(x) == FP_SUBNORMAL;
  default: return 0;
  }
}

static uint64_t fop32(const struct dinsn *i, float a, float b, float c)
{
  int fz = (i->flags & PTX_F_FTZ) != 0;
  float r;
  if (fz) { a = ftz(a); b = ftz(b); c = ftz(c); }
  switch (i->fam) {
  case F_ADD: case F_SUB: case F_MUL: case F_FMA: case F_MAD:
    r = op32(i->fam, a, b, c, i->rnd);
    break;
  case F_DIV:
    r = (i->flags & (PTX_F_APPROX | PTX_F_FULL)) ? a / b : op32(F_DIV, a, b, 0, i->rnd);
    break;
  case F_SQRT: r = (i->flags & PTX_F_APPROX) ? sqrtf(a) : op32(F_SQRT, a, 0, 0, i->rnd); break;
  case F_RCP: r = (i->flags & PTX_F_APPROX) ? 1.0f / a : op32(F_RCP, a, 0, 0, i->rnd); break;
  case F_RSQRT: r = 1.0f / sqrtf(a); break;
  case F_EX2: r = exp2f(a); break;
  case F_LG2: r = log2f(a); break;
  case F_SIN: r = sinf(a); break;
  case F_COS: r = cosf(a); break;
  case F_TANH: r = tanhf(a); break;
  case F_ABS: r = fabsf(a); break;
  case F_NEG: r = -a; break;
  case F_MIN: r = (float)fminmax(a, b, 0); break;
  case F_MAX: r = (float)fminmax(a, b, 1); break;
  case F_COPYSIGN: r = copysignf(b, a); break;
  case F_TESTP: return testp(i->cmp, a);
  default: r = 0; break;
  }
  if (i->flags & PTX_F_SAT) r = sat32(r); /* NaN -> +0 */
  if (isnan(r) && i->fam != F_ABS && i->fam != F_NEG && i->fam != F_COPYSIGN)
    return 0x7fffffff; /* the GPU's canonical NaN */
  if (fz) r = ftz(r);
  return B32(r);
}

static uint64_t fop64(const struct dinsn *i, double a, double b, double c)
{
  double r;
  switch (i->fam) {
  case F_ADD: case F_SUB: case F_MUL: case F_FMA: case F_MAD: case F_DIV:
    r = op64(i->fam, a, b, c, i->rnd);
    break;
  case F_SQRT: r = op64(F_SQRT, a, 0, 0, i->rnd); break;
  case F_RCP:
    r = (i->flags & PTX_F_APPROX) ? 1.0 / a : op64(F_RCP, a, 0, 0, i->rnd);
    if ((i->flags & PTX_F_FTZ) && fpclassify(r) == FP_SUBNORMAL) r = copysign(0.0, r);
    break;
  case F_RSQRT: r = 1.0 / sqrt(a); break;
  case F_EX2: r = exp2(a); break;
  case F_LG2: r = log2(a); break;
  case F_SIN: r = sin(a); break;
  case F_COS: r = cos(a); break;
  case F_TANH: r = tanh(a); break;
  case F_ABS: r = fabs(a); break;
  case F_NEG: r = -a; break;
  case F_MIN: r = fminmax(a, b, 0); break;
  case F_MAX: r = fminmax(a, b, 1); break;
  case F_COPYSIGN: r = copysign(b, a); break;
  case F_TESTP: return testp(i->cmp, a);
  default: r = 0; break;
  }
  if (i->flags & PTX_F_SAT) r = sat64(r);
  return B64(r);
}

/* double -> binary16, round to nearest even (x is the exact value to round) */
static uint32_t f64_to_f16(double x)
{
  uint32_t sign = signbit(x) ? 0x8000u : 0;
  double a = fabs(x), m;
  int e, he;
  if (isnan(x)) return 0x7fffu; /* the GPU's canonical f16 NaN */
  if (a >= 65520.0) return sign | 0x7c00u;
  if (a < 0x1p-14) return sign | (uint32_t)nearbyint(a * 0x1p24); /* units of 2^-24 */
  frexp(a, &e); /* a in [2^(e-1), 2^e) */
  m = nearbyint(ldexp(a, 11 - e)); /* 11 significant bits: [1024, 2048] */
  if (m == 2048.0) {
    m = 1024.0;
    e++;
  }
  he = e - 1 + 15;
  if (he >= 31) return sign | 0x7c00u;
  return sign | (uint32_t)he << 10 | ((uint32_t)m - 1024u);
}

/* .f16 arithmetic: operands widened to double (exact); add, sub and mul of two halves
 * are exact in double, so one rounding to half follows; fma is computed rounding toward
 * zero with a sticky last bit (round to odd), which makes the final rounding exact too */
static uint64_t fop16(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c)
{
  double x = emu_f16_to_f32((uint32_t)a), y = emu_f16_to_f32((uint32_t)b);
  double z = emu_f16_to_f32((uint32_t)c), r;
  switch (i->fam) {
  case F_NEG: return (a ^ 0x8000u) & 0xffffu;
  case F_ABS: return a & 0x7fffu;
  case F_ADD: r = x + y; break;
  case F_SUB: r = x - y; break;
  case F_MUL: r = x * y; break;
  case F_MIN: r = fminmax(x, y, 0); break;
  case F_MAX: r = fminmax(x, y, 1); break;
  default: { /* fma */
    volatile double vx = x, vy = y, vz = z, vr;
    uint64_t bits;
    int old = fegetround();
    feclearexcept(FE_INEXACT);
    fesetround(FE_TOWARDZERO);
    vr = fma(vx, vy, vz);
    fesetround(old);
    r = vr;
    if (fetestexcept(FE_INEXACT) && isfinite(r)) {
      bits = B64(r) | 1;
      r = F64(bits);
    }
    break;
  }
  }
  if (i->flags & PTX_F_SAT) r = sat64(r);
  return f64_to_f16(r);
}

uint64_t emu_fop(const struct dinsn *i, uint64_t a, uint64_t b, uint64_t c)
{
  if (i->w == 16) return fop16(i, a, b, c);
  if (i->w == 32) return fop32(i, F32(a), F32(b), F32(c));
  return fop64(i, F64(a), F64(b), F64(c));
}

int emu_setp_f(const struct dinsn *i, uint64_t a, uint64_t b)
{
  double x, y;
  int un;
  if (i->w == 16) {
    x = emu_f16_to_f32((uint32_t)a);
    y = emu_f16_to_f32((uint32_t)b);
  } else if (i->w == 32) {
    float fa = F32(a), fb = F32(b);
    if (i->flags & PTX_F_FTZ) { fa = ftz(fa); fb = ftz(fb); }
    x = fa;
    y = fb;
  } else {
    x = F64(a);
    y = F64(b);
  }
  un = isnan(x) || isnan(y);
  switch (i->cmp) {
  case PTX_CMP_EQ: return !un && x == y;
  case PTX_CMP_NE: return !un && x != y;
  case PTX_CMP_LT: return !un && x < y;
  case PTX_CMP_LE: return !un && x <= y;
  case PTX_CMP_GT: return !un && x > y;
  case PTX_CMP_GE: return !un && x >= y;
  case PTX_CMP_EQU: return un || x == y;
  case PTX_CMP_NEU: return un || x != y;
  case PTX_CMP_LTU: return un || x < y;
  case PTX_CMP_LEU: return un || x <= y;
  case PTX_CMP_GTU: return un || x > y;
  case PTX_CMP_GEU: return un || x >= y;
  case PTX_CMP_NUM: return !un;
  case PTX_CMP_NAN: return un;
  default: return 0;
  }
}

/* IEEE binary16 <-> binary32; f32 -> f16 rounds to nearest even */
uint32_t emu_f32_to_f16(float f)
{
  uint32_t x, sign, ax, mant, h, rem;
  int e;
  memcpy(&x, &f, 4);
  sign = (x >> 16) & 0x8000;
  ax = x & 0x7fffffff;
  if (ax > 0x7f800000) return sign | 0x7e00;
  if (ax >= 0x477ff000) return sign | 0x7c00; /* >= 65520 rounds to infinity */
  if (ax < 0x38800000) /* below 2^-14: a multiple of 2^-24 after rounding */
    return sign | (uint32_t)nearbyintf(fabsf(f) * 16777216.0f);
  mant = ax & 0x7fffff;
  e = (int)(ax >> 23) - 127 + 15;
  h = ((uint32_t)e << 10) | (mant >> 13);
  rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
  return sign | h;
}

float emu_f16_to_f32(uint32_t h)
{
  uint32_t sign = (h & 0x8000) << 16, e = (h >> 10) & 0x1f, mant = h & 0x3ff, x;
  float f;
  if (e == 0) {
    f = ldexpf((float)mant, -24);
    return sign ? -f : f;
  }
  if (e == 31) x = sign | 0x7f800000 | (mant << 13);
  else x = sign | ((e - 15 + 127) << 23) | (mant << 13);
  memcpy(&f, &x, 4);
  return f;
}

/* value of a float source of class (w) as double (exact) */
static double fsrc(const struct dinsn *i, uint64_t a)
{
  if (i->w2 == 16) return emu_f16_to_f32((uint32_t)a);
  if (i->w2 == 32) {
    float f = F32(a);
    if (i->flags & PTX_F_FTZ) f = ftz(f);
    return f;
  }
  return F64(a);
}

static double round_int(double x, unsigned rnd)
{
  switch (rnd) {
  case PTX_RND_RNI: return nearbyint(x);
  case PTX_RND_RMI: return floor(x);
  case PTX_RND_RPI: return ceil(x);
  default: return trunc(x);
  }
}

static uint64_t f_to_int(const struct dinsn *i, double x)
{
  double lo, hi;
  if (isnan(x)) return 0;
  x = round_int(x, i->rnd);
  if (i->k == K_S) {
    lo = -ldexp(1.0, i->w - 1);
    hi = ldexp(1.0, i->w - 1) - 1;
    if (x <= lo) return emu_norm((uint64_t)(int64_t)lo, i->w, K_U);
    if (x >= hi)
      return i->w == 64 ? (uint64_t)INT64_MAX : emu_norm((uint64_t)(int64_t)hi, i->w, K_U);
    return emu_norm((uint64_t)(int64_t)x, i->w, K_U);
  }
  hi = ldexp(1.0, i->w) - 1;
  if (x <= 0) return 0;
  if (x >= hi) return i->w == 64 ? UINT64_MAX : (uint64_t)hi;
  return (uint64_t)x;
}

static uint64_t int_to_f(const struct dinsn *i, uint64_t a)
{
  int sg = i->k2 == K_S;
  int64_t s = (int64_t)emu_norm(a, i->w2, K_S);
  uint64_t u = emu_norm(a, i->w2, K_U);
  int mode = host_mode(i->rnd), old = 0;
  uint64_t out;
  if (mode != FE_TONEAREST) { old = fegetround(); fesetround(mode); }
  if (i->w == 64) {
    volatile double d;
    if (sg) { volatile int64_t vs = s; d = (double)vs; }
    else { volatile uint64_t vu = u; d = (double)vu; }
    double r = d;
    if (i->flags & PTX_F_SAT) r = sat64(r);
    out = B64(r);
  } else {
    volatile float f;
    if (sg) { volatile int64_t vs = s; f = (float)vs; }
    else { volatile uint64_t vu = u; f = (float)vu; }
    float r = f;
    if (i->flags & PTX_F_SAT) r = sat32(r);
    out = i->w == 16 ? emu_f32_to_f16(r) : B32(r);
  }
  if (mode != FE_TONEAREST) fesetround(old);
  return out;
}

/* integer -> integer: extend per the source type, then truncate to the destination,
 * sign-extended when the destination is signed (the ISA extends narrow results to the
 * register's width); .sat clamps to the destination's range first */
static uint64_t int_to_int(const struct dinsn *i, uint64_t a)
{
  if (i->flags & PTX_F_SAT) {
    int sg = i->k2 == K_S;
    int64_t s = (int64_t)emu_norm(a, i->w2, K_S);
    uint64_t u = emu_norm(a, i->w2, K_U);
    if (i->k == K_S) {
      int64_t hi = i->w == 64 ? INT64_MAX : (INT64_C(1) << (i->w - 1)) - 1, lo = -hi - 1;
      if (sg) s = s < lo ? lo : s > hi ? hi : s;
      else s = u > (uint64_t)hi ? hi : (int64_t)u;
      return emu_norm((uint64_t)s, i->w, K_S);
    }
    {
      uint64_t hi = i->w == 64 ? UINT64_MAX : (UINT64_C(1) << i->w) - 1;
      if (sg) u = s < 0 ? 0 : (uint64_t)s > hi ? hi : (uint64_t)s;
      else u = u > hi ? hi : u;
      return u;
    }
  }
  return emu_norm(emu_norm(a, i->w2, i->k2), i->w, i->k);
}

static uint64_t f_to_f(const struct dinsn *i, uint64_t a)
{
  double x = fsrc(i, a);
  int integral = i->rnd >= PTX_RND_RNI;
  if (integral && !isnan(x) && !isinf(x)) x = round_int(x, i->rnd);
  if (i->w == 64) {
    if (i->flags & PTX_F_SAT) x = sat64(x);
    return B64(x);
  }
  if (i->w == 32) {
    float r;
    if (i->w2 == 64 && !integral) {
      int mode = host_mode(i->rnd), old = 0;
      volatile double vx = x;
      volatile float vr;
      if (mode != FE_TONEAREST) { old = fegetround(); fesetround(mode); }
      vr = (float)vx;
      if (mode != FE_TONEAREST) fesetround(old);
      r = vr;
    } else {
      r = (float)x; /* exact: the source is f16/f32, or an integral value */
    }
    if (i->flags & PTX_F_FTZ) r = ftz(r);
    if (i->flags & PTX_F_SAT) r = sat32(r);
    return B32(r);
  }
  /* f16 destination: from the exact source value */
  {
    uint32_t h;
    if (i->flags & PTX_F_SAT) x = sat64(x);
    h = f64_to_f16(x);
    if (i->rnd == PTX_RND_RZ && !isnan(x) && (h & 0x7fffu) != 0 &&
        fabs((double)emu_f16_to_f32(h)) > fabs(x))
      h--; /* nearest was away from zero: the next one toward zero */
    return h;
  }
}

uint64_t emu_cvt(const struct dinsn *i, uint64_t a)
{
  int fd = i->k == K_F, fs = i->k2 == K_F;
  if (!fd && !fs) return int_to_int(i, a);
  if (!fd) return f_to_int(i, fsrc(i, a));
  if (!fs) return int_to_f(i, a);
  return f_to_f(i, a);
}
