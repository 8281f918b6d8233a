/* Internals shared by the files of src/launch (not part of the module's interface, but
 * exported so that tests/launch can check them one by one). */
#ifndef CC_LAUNCH_LAUNCH_IMPL_H
#define CC_LAUNCH_LAUNCH_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "launch/launch.h"
#include "ptx/ptx.h"

/* Integer literal: [+-](decimal | 0x hex), nothing else. *mag: magnitude, *neg: sign.
 * Returns 0, or -1 on bad syntax or a magnitude above 2^64-1. */
int cc_launch_parse_int(const char *s, uint64_t *mag, int *neg);
/* The same, as an int64_t; -1 when it does not fit. */
int cc_launch_parse_i64(const char *s, int64_t *out);

/* Bytes of a scalar PTX type (b/u/s 8..64, f16, f32, f64); 0 for the others. */
unsigned cc_launch_scalar_size(enum ptx_type t);

/* Converts literal text to type t, little-endian, into out (cc_launch_scalar_size(t)
 * bytes used, the rest zeroed). Integer types take integer literals, range-checked
 * (u: 0..2^n-1, s: -2^(n-1)..2^(n-1)-1, b: either); float types take strtod syntax,
 * rounded to nearest. Returns 0, or -1 with a reason in why ("'1.5' is not an integer"). */
int cc_launch_convert(enum ptx_type t, const char *text, uint8_t out[8], char *why,
                      size_t why_size);

/* Element i of an iota buffer of type t (i converted; integers keep the low bits). */
void cc_launch_iota_element(enum ptx_type t, uint64_t i, void *dst);

/* Parses the layout directive text[0..len) ("soa(24,0,8,12,16,20)") into *out (released
 * by the caller). Returns 0, or -1 with the reason in why (out released). */
int cc_launch_layout_parse(const char *text, size_t len, struct cc_launch_layout *out,
                           char *why, size_t why_size);

#endif
