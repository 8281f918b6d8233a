/* Scalar values of launch specs: integer and float literals converted to PTX types, the
 * binary16 conversion, the random generator. See launch.h and docs/usage.md. */
#include "launch/launch.h"
#include "launch/launch_impl.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "buffers and parameters are stored as host bytes: little-endian hosts only");

/* Integer literal: optional sign, then decimal digits or 0x/0X and hex digits, nothing
 * else. *mag gets the magnitude, *neg the sign. Returns 0, or -1 on bad syntax or a
 * magnitude above 2^64-1. */
int cc_launch_parse_int(const char *s, uint64_t *mag, int *neg)
{
  int base = 10;
  char *end;
  *neg = 0;
  if (*s == '+' || *s == '-')
    *neg = *s++ == '-';
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  /* strtoull accepts leading blanks and a sign of its own: refuse them here */
  if (!(base == 16 ? ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
                      (*s >= 'A' && *s <= 'F'))
                   : (*s >= '0' && *s <= '9')))
    return -1;
  errno = 0;
  *mag = strtoull(s, &end, base);
  if (errno == ERANGE || *end != '\0')
    return -1;
  return 0;
}

/* The signed-integer value of literal s, when it fits int64_t; returns 0 or -1. */
int cc_launch_parse_i64(const char *s, int64_t *out)
{
  uint64_t mag;
  int neg;
  if (cc_launch_parse_int(s, &mag, &neg) != 0)
    return -1;
  if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)
    return -1;
  *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
  return 0;
}

uint16_t cc_launch_f16_bits(double v)
{
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v))
    return (uint16_t)(sign | 0x7e00);
  if (a >= 65520.0) /* 65504 + half an ulp (16) rounds to infinity */
    return (uint16_t)(sign | 0x7c00);
  if (a >= 0x1p-14) { /* normal: a = m * 2^e, m in [0.5, 1) */
    int e;
    double m = frexp(a, &e);
    uint32_t sig = (uint32_t)rint(m * 2048.0); /* 11 significant bits, nearest even */
    if (sig == 2048) {
      sig = 1024;
      e++;
    }
    return (uint16_t)(sign | (uint32_t)(e - 1 + 15) << 10 | (sig - 1024));
  }
  /* subnormal: units of 2^-24; 1024 units carry into the smallest normal, 0x0400 */
  return (uint16_t)(sign | (uint32_t)rint(a * 0x1p24));
}

static int type_is_float(enum ptx_type t)
{
  return t == PTX_TYPE_F16 || t == PTX_TYPE_F32 || t == PTX_TYPE_F64;
}

static int type_is_signed(enum ptx_type t)
{
  return t == PTX_TYPE_S8 || t == PTX_TYPE_S16 || t == PTX_TYPE_S32 || t == PTX_TYPE_S64;
}

static int type_is_bits(enum ptx_type t)
{
  return t == PTX_TYPE_B8 || t == PTX_TYPE_B16 || t == PTX_TYPE_B32 || t == PTX_TYPE_B64;
}

unsigned cc_launch_scalar_size(enum ptx_type t)
{
  switch (t) {
  case PTX_TYPE_B8: case PTX_TYPE_U8: case PTX_TYPE_S8: return 1;
  case PTX_TYPE_B16: case PTX_TYPE_U16: case PTX_TYPE_S16: case PTX_TYPE_F16: return 2;
  case PTX_TYPE_B32: case PTX_TYPE_U32: case PTX_TYPE_S32: case PTX_TYPE_F32: return 4;
  case PTX_TYPE_B64: case PTX_TYPE_U64: case PTX_TYPE_S64: case PTX_TYPE_F64: return 8;
  default: return 0;
  }
}

/* Stores double v as type t (a float type) in out (always); returns 0, or -1 when a
 * finite v does not fit (f32 above FLT_MAX after rounding, f16 above 65504). */
static int store_float(enum ptx_type t, double v, uint8_t out[8])
{
  if (t == PTX_TYPE_F64) {
    memcpy(out, &v, 8);
  } else if (t == PTX_TYPE_F32) {
    float f = (float)v;
    memcpy(out, &f, 4);
    if (isfinite(v) && !isfinite(f))
      return -1;
  } else {
    uint16_t h = cc_launch_f16_bits(v);
    memcpy(out, &h, 2);
    if (isfinite(v) && (h & 0x7c00) == 0x7c00)
      return -1;
  }
  return 0;
}

int cc_launch_convert(enum ptx_type t, const char *text, uint8_t out[8], char *why,
                      size_t why_size)
{
  unsigned size = cc_launch_scalar_size(t);
  memset(out, 0, 8);
  if (size == 0) {
    snprintf(why, why_size, "has no value form");
    return -1;
  }
  if (type_is_float(t)) {
    char *end;
    double v;
    if (*text == '\0' || *text == ' ' || *text == '\t') {
      snprintf(why, why_size, "'%s' is not a number", text);
      return -1;
    }
    v = strtod(text, &end);
    if (*end != '\0') {
      snprintf(why, why_size, "'%s' is not a number", text);
      return -1;
    }
    if (store_float(t, v, out) != 0) {
      snprintf(why, why_size, "'%s' is out of range", text);
      return -1;
    }
    return 0;
  }
  {
    uint64_t mag, max_u = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    uint64_t max_s = max_u >> 1, bits;
    int neg;
    if (cc_launch_parse_int(text, &mag, &neg) != 0) {
      snprintf(why, why_size, "'%s' is not an integer", text);
      return -1;
    }
    /* unsigned types: 0..2^n-1; signed: -2^(n-1)..2^(n-1)-1; bit types accept both */
    if ((neg && (mag > max_s + 1 || (!type_is_signed(t) && !type_is_bits(t) && mag != 0))) ||
        (!neg && mag > (type_is_signed(t) ? max_s : max_u))) {
      if (type_is_signed(t))
        snprintf(why, why_size, "'%s' is out of range (-%llu..%llu)", text,
                 (unsigned long long)max_s + 1, (unsigned long long)max_s);
      else if (type_is_bits(t))
        snprintf(why, why_size, "'%s' is out of range (-%llu..%llu)", text,
                 (unsigned long long)max_s + 1, (unsigned long long)max_u);
      else
        snprintf(why, why_size, "'%s' is out of range (0..%llu)", text,
                 (unsigned long long)max_u);
      return -1;
    }
    bits = neg ? 0 - mag : mag;
    memcpy(out, &bits, size); /* little-endian: the low bytes are the value mod 2^n */
    return 0;
  }
}

static inline uint64_t splitmix64(uint64_t *state)
{
  uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

uint64_t cc_launch_splitmix64(uint64_t *state)
{
  return splitmix64(state);
}

void cc_launch_random_element(enum ptx_type t, uint64_t x, void *dst)
{
  uint8_t out[8];
  switch (t) {
  case PTX_TYPE_F64: {
    double v = (double)(x >> 11) * 0x1p-53;
    memcpy(out, &v, 8);
    break;
  }
  case PTX_TYPE_F32: {
    float v = (float)(x >> 40) * 0x1p-24f;
    memcpy(out, &v, 4);
    break;
  }
  case PTX_TYPE_F16: {
    uint16_t h = cc_launch_f16_bits((double)(x >> 53) * 0x1p-11);
    memcpy(out, &h, 2);
    break;
  }
  default:
    memcpy(out, &x, 8); /* integers: the low bytes */
    break;
  }
  memcpy(dst, out, cc_launch_scalar_size(t));
}

/* Elements first..end-1 of a random buffer of type t at dst, the generator's state before
 * element first being `state`. */
static void random_range(enum ptx_type t, uint64_t state, uint8_t *dst, uint64_t first,
                         uint64_t end)
{
  if (t == PTX_TYPE_F32) { /* the common buffer: cc_launch_random_element's f32, inline */
    for (uint64_t i = first; i < end; i++) {
      float v = (float)(splitmix64(&state) >> 40) * 0x1p-24f;
      memcpy(dst + i * 4, &v, 4);
    }
    return;
  }
  for (uint64_t i = first, size = cc_launch_scalar_size(t); i < end; i++)
    cc_launch_random_element(t, splitmix64(&state), dst + i * size);
}

void cc_launch_random_fill(enum ptx_type t, uint64_t seed, void *dst, uint64_t count)
{
  random_range(t, seed, dst, 0, count);
}

/* One thread's range of cc_launch_random_fill_threads. */
struct fill_part {
  enum ptx_type t;
  uint64_t seed, first, end;
  uint8_t *dst;
  pthread_t id;
  int started;
};

static void *fill_part_run(void *arg)
{
  struct fill_part *f = arg;
  /* the state before output i: i increments past the seed (splitmix64's state += gamma) */
  random_range(f->t, f->seed + f->first * UINT64_C(0x9E3779B97F4A7C15), f->dst, f->first,
               f->end);
  return NULL;
}

#define FILL_THREADS_MAX 64u

void cc_launch_random_fill_threads(enum ptx_type t, uint64_t seed, void *dst, uint64_t count,
                                   uint32_t threads)
{
  struct fill_part part[FILL_THREADS_MAX];
  uint64_t n = count / CC_LAUNCH_FILL_PER_THREAD;
  if (threads > n)
    threads = (uint32_t)n;
  if (threads > FILL_THREADS_MAX)
    threads = FILL_THREADS_MAX;
  if (threads <= 1) {
    random_range(t, seed, dst, 0, count);
    return;
  }
  for (uint32_t k = 0; k < threads; k++) {
    part[k] = (struct fill_part){t, seed, count * k / threads, count * (k + 1) / threads, dst,
                                 0, 0};
    if (k > 0) /* part 0 is the caller's */
      part[k].started = pthread_create(&part[k].id, NULL, fill_part_run, &part[k]) == 0;
  }
  fill_part_run(&part[0]);
  for (uint32_t k = 1; k < threads; k++) {
    if (part[k].started)
      pthread_join(part[k].id, NULL);
    else
      fill_part_run(&part[k]);
  }
}

/* Element i of an iota buffer of type t into dst. */
void cc_launch_iota_element(enum ptx_type t, uint64_t i, void *dst)
{
  uint8_t out[8];
  if (type_is_float(t))
    store_float(t, (double)i, out); /* f16 above 65504 becomes infinity, as a cast would */
  else
    memcpy(out, &i, 8);
  memcpy(dst, out, cc_launch_scalar_size(t));
}
