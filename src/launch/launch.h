/* coalcheck launch specs: the --arg syntax, size expressions, buffer initialisers, the
 * binding of arguments to a kernel's .param list, and buffer dumps.
 *
 * One --arg is either a scalar, NAME=VALUE or a bare VALUE ("n=4096", "alpha=1.5",
 * "-3", "0x10"), or a buffer NAME=TYPE[SIZE]:INIT ("A=f32[n*n]:random:7"): TYPE is one of
 * u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64, SIZE an expression in elements over integer
 * literals and scalar names (+ - * / % and parentheses, 64-bit signed arithmetic with
 * overflow checks), INIT one of zero | iota | random[:SEED] | file:PATH | const:VALUE.
 * A buffer is passed to the kernel as its 64-bit device address. The grammar and the
 * random generator are documented in docs/usage.md; tests reproduce them from there.
 *
 * Status codes: the spelling of one --arg (cc_launch_arg_parse) fails with CC_ERR_USAGE;
 * everything that needs the kernel or the other arguments (sizes, types, counts, files)
 * fails with CC_ERR_INPUT; writing a dump fails with CC_ERR_IO. */
#ifndef CC_LAUNCH_LAUNCH_H
#define CC_LAUNCH_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"
#include "util/err.h"

enum cc_launch_init {
  CC_INIT_ZERO,   /* all bytes 0 */
  CC_INIT_IOTA,   /* element i = i, converted to the element type (integers wrap) */
  CC_INIT_RANDOM, /* splitmix64 stream from the seed, see cc_launch_random_element */
  CC_INIT_FILE,   /* raw little-endian elements read from a file of exactly the size */
  CC_INIT_CONST   /* every element = one value */
};

/* One parsed --arg. Strings are owned (cc_launch_arg_release frees them). */
struct cc_launch_arg {
  char *name;            /* NAME, or NULL for a bare scalar */
  char *text;            /* the spec as given, for messages */
  int is_buffer;
  char *value;           /* scalar: the VALUE text */
  enum ptx_type type;    /* buffer: element type */
  char *size_expr;       /* buffer: SIZE text (syntax checked) */
  enum cc_launch_init init;
  uint64_t seed;         /* random: the seed (default 0) */
  char *init_text;       /* file: the path (already joined with base_dir); const: VALUE */
  char *origin;          /* where the spec was written, "FILE:LINE" of a launch file, or
                            NULL (the command line): prefixed to cc_launch_bind's errors
                            about it. Not set by cc_launch_arg_parse */
};

/* Parses one --arg spec into *out (which the caller releases). base_dir, if not NULL and
 * not "", is prefixed (with '/') to a relative file: path, so that launch files can name
 * data beside them. Errors: CC_ERR_USAGE "bad --arg 'SPEC': what is wrong" (SPEC shortened
 * to 60 characters and "..." when longer), the size expression's syntax included. */
int cc_launch_arg_parse(const char *spec, const char *base_dir, struct cc_launch_arg *out,
                        struct cc_err *err);
/* Frees a's strings and zeroes it (a itself is the caller's); safe on a zeroed arg. */
void cc_launch_arg_release(struct cc_launch_arg *a);

/* Parses an element type name ("f32"); returns PTX_TYPE_NONE when it is not one of the
 * eleven buffer types. */
enum ptx_type cc_launch_type_parse(const char *name, size_t len);
/* Bytes per element of a buffer type (u8: 1 ... f64: 8), 0 for others. */
unsigned cc_launch_type_size(enum ptx_type t);

/* The deepest nesting of '(' and unary '-' a size expression may have (the parser
 * recurses once per level; docs/usage.md). */
#define CC_LAUNCH_MAX_NESTING 256

/* Evaluates a size expression over the scalars among args (NAME=VALUE, VALUE an integer
 * literal). 64-bit signed arithmetic; / and % truncate toward zero (C). Errors
 * (CC_ERR_INPUT): unknown name, a name whose value is not an integer, overflow, division
 * by zero, a negative result, bad syntax, nesting deeper than CC_LAUNCH_MAX_NESTING. */
int cc_launch_eval_size(const char *expr, const struct cc_launch_arg *args, size_t nargs,
                        uint64_t *out, struct cc_err *err);

/* The random generator: splitmix64 (Steele, Lea, Flood, OOPSLA 2014; Vigna's reference
 * code): state += 0x9E3779B97F4A7C15; z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9;
 * z = (z ^ z>>27) * 0x94D049BB133111EB; return z ^ z>>31. The state starts at the seed. */
uint64_t cc_launch_splitmix64(uint64_t *state);

/* Writes one element of type t made from one generator output x into dst
 * (cc_launch_type_size(t) bytes, little-endian): integers take the low bits of x;
 * f64 = (x >> 11) * 2^-53, f32 = (x >> 40) * 2^-24, f16 = (x >> 53) * 2^-11, uniform in
 * [0,1) and exact in the type. */
void cc_launch_random_element(enum ptx_type t, uint64_t x, void *dst);

/* Fills count elements of type t at dst per the arg's initialiser (a buffer arg).
 * Errors (CC_ERR_INPUT): file unreadable or of the wrong size, const value not of the
 * type. */
int cc_launch_fill(const struct cc_launch_arg *a, uint64_t count, void *dst,
                   struct cc_err *err);

/* Where buffers live: cc_launch_emu_allocator (launch_emu.c) wraps cc_emu_alloc; tests
 * pass their own. alloc returns zero-filled memory of bytes bytes, or an error (host
 * memory exhausted included: never an abort). */
struct cc_launch_allocator {
  void *ctx;
  int (*alloc)(void *ctx, uint64_t bytes, const char *name, uint64_t *dev_addr,
               void **host, struct cc_err *err);
  uint64_t max_bytes; /* the most bytes all buffers of one binding may take together;
                         0 = no limit (the CLI's --max-memory) */
};
struct cc_emu;
/* An allocator whose memory is the emulator's global memory (emu borrowed); max_bytes as
 * in struct cc_launch_allocator. */
struct cc_launch_allocator cc_launch_emu_allocator(struct cc_emu *emu, uint64_t max_bytes);

/* One allocated buffer. */
struct cc_launch_buffer {
  const char *name;      /* borrowed from the arg */
  enum ptx_type type;
  uint64_t count, bytes; /* elements, bytes */
  uint64_t dev_addr;
  void *host;            /* owned by the allocator */
};

/* Arguments bound to a kernel: the packed parameter values, ready for cc_emu_launch. */
struct cc_launch_bound {
  uint32_t nparams;
  void **params;          /* nparams owned byte arrays */
  uint32_t *param_bytes;
  struct cc_launch_buffer *buffers; /* one per buffer arg, in argument order */
  uint32_t nbuffers;
};

/* Matches args (one per kernel parameter, in order) to kernel k's .param list: counts,
 * sizes (a buffer needs a 64-bit parameter), scalar values converted to each parameter's
 * type (integers range-checked: .sN -2^(N-1)..2^(N-1)-1; .uN and .bN -2^(N-1)..2^N-1,
 * negative values as two's complement, since nvcc declares `int` parameters .u32; floats
 * from decimal text); then evaluates every buffer's size and checks their total against
 * alloc->max_bytes before allocating any; then allocates every buffer through alloc and
 * fills it (zero: left as the allocator gives it). Errors (CC_ERR_INPUT) name the
 * argument, e.g. "argument 3 'n' is s32 in the kernel but '1.5' is not an integer";
 * CC_ERR_LIMIT when the buffers exceed alloc->max_bytes ("argument 1 'A' needs N bytes
 * (64.0 GiB), which brings the buffers to ..., above the limit of ..."); allocator errors
 * pass through. An error about one argument starts with its origin when it has one
 * ("k.launch:3: buffer 'in': cannot read in.bin: ..."). On failure *out is released. */
int cc_launch_bind(const struct cc_launch_arg *args, size_t nargs,
                   cc_keep const struct ptx_function *k, const struct cc_launch_allocator *alloc,
                   struct cc_launch_bound *out, struct cc_err *err);
/* Frees b's parameter images and buffer table and zeroes it; the emulated buffers
 * themselves belong to the allocator (the emulator). Safe on a zeroed struct. */
void cc_launch_bound_release(struct cc_launch_bound *b);

/* The buffer called name, or NULL. */
const struct cc_launch_buffer *cc_launch_find_buffer(const struct cc_launch_bound *b,
                                                      const char *name);

/* Writes buffer buf whole (raw little-endian elements) to path, or not at all (a
 * temporary file renamed into place). Errors: CC_ERR_IO naming path. */
int cc_launch_dump(const struct cc_launch_buffer *buf, const char *path, struct cc_err *err);

/* Float to IEEE binary16 bits, round to nearest even (overflow to infinity). */
uint16_t cc_launch_f16_bits(double v);

#endif
