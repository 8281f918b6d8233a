/* coalcheck launch specs: the --arg syntax, size expressions, buffer initialisers, the
 * binding of arguments to a kernel's .param list, and buffer dumps.
 *
 * One --arg is either a scalar, NAME=VALUE or a bare VALUE ("n=4096", "alpha=1.5",
 * "-3", "0x10"), or a buffer NAME=TYPE[SIZE]:INIT ("A=f32[n*n]:random:7"): TYPE is one of
 * u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64, SIZE an expression in elements over integer
 * literals and scalar names (+ - * / % and parentheses, 64-bit signed arithmetic with
 * overflow checks), INIT one of zero | iota | random[:SEED] | file:PATH | const:VALUE.
 * A buffer may carry a LAYOUT, NAME=TYPE[SIZE]:LAYOUT:INIT (struct cc_launch_layout), and
 * before it an OFFSET, NAME=TYPE[SIZE]:offset(BYTES):[LAYOUT:]INIT: the kernel's pointer
 * BYTES past its allocation's 256-byte aligned start (CC_LAUNCH_OFFSET_MAX).
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

/* A buffer's layout directive, the optional LAYOUT of NAME=TYPE[SIZE]:LAYOUT:INIT,
 * spelled soa(BYTES,OFFSET,...[,block=B]): the buffer is an array of BYTES-byte
 * structures whose runs of bytes that move as one (members and padding) start at the
 * OFFSETs (0 first, ascending; run k ends where run k+1 starts, the last at BYTES), and
 * the kernel reads it in the blocked layout ("array of structures of arrays", B elements
 * per block, default 32): element e's run at offset o, size z, lives at byte
 * (e / B) * B * BYTES + B * o + (e % B) * z. INIT fills the buffer in the array-of-
 * structures order (what the original kernel reads); the layout is applied to those bytes
 * before the kernel runs, and a --dump writes them back in the array-of-structures order,
 * so that the launch of a kernel fixed by `coalcheck fix --transform soa` gives the
 * original's dumps byte for byte. The layout is a permutation of whole blocks' bytes: a
 * round trip restores every byte. */
struct cc_launch_layout {
  uint32_t struct_bytes;   /* BYTES; 0: no layout (the buffer is used as filled) */
  uint32_t block;          /* B, elements per block */
  uint32_t npieces;
  uint32_t *offsets;       /* owned: npieces ascending byte offsets, offsets[0] = 0 */
};

/* Elements per block when block= is not given: one warp's lanes (CUDA C Programming
 * Guide, "SIMT Architecture"), the block of `coalcheck fix --transform soa`. */
#define CC_LAUNCH_LAYOUT_BLOCK 32u
/* The largest BYTES, OFFSET and B a layout takes. */
#define CC_LAUNCH_LAYOUT_MAX_BYTES 65536u

/* offset(BYTES) of a buffer spec: the buffer's first element sits BYTES bytes past the
 * start of its allocation, which is 256-byte aligned (as cudaMalloc's; CUDA C
 * Programming Guide, "Device Memory Accesses"), so the kernel's pointer has the alignment
 * of an application's sub-array (`cudaMalloc` + BYTES). BYTES is a multiple of the
 * element size (an element at an unnatural address is no legal access, PTX ISA
 * "Addresses as Operands") and at most CC_LAUNCH_OFFSET_MAX: the offset sets the
 * pointer's alignment only. The BYTES before the buffer are zero, neither filled nor
 * dumped; they lie inside the emulated allocation, so a kernel reading them is not
 * reported out of bounds (a read past the end still is). */
#define CC_LAUNCH_OFFSET_MAX 255u

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
  struct cc_launch_layout layout; /* buffer: its LAYOUT, struct_bytes 0 when none */
  uint32_t offset;       /* buffer: its offset(BYTES), 0 when none */
  size_t init_at;        /* buffer: where INIT starts in text */
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

/* count elements of type t at dst (count x its size in bytes) from the
 * generator's stream started at seed, element i from its output i: the bytes a loop of
 * cc_launch_random_element over cc_launch_splitmix64 writes, with the generator inline
 * (a 4096^2 float buffer: 16.8 M elements before the run starts). */
void cc_launch_random_fill(enum ptx_type t, uint64_t seed, void *dst, uint64_t count);
/* cc_launch_random_fill on up to `threads` threads, each a contiguous range of elements
 * from the generator's state at its first one (splitmix64 can seek: the state before
 * output i is seed + i x 0x9E3779B97F4A7C15): the same bytes for any thread count. Below
 * CC_LAUNCH_FILL_PER_THREAD elements a thread, fewer threads, and at most 64; a thread
 * that cannot be started leaves its range to the caller (no error: the fill is whole). */
#define CC_LAUNCH_FILL_PER_THREAD (1u << 20)
void cc_launch_random_fill_threads(enum ptx_type t, uint64_t seed, void *dst, uint64_t count,
                                   uint32_t threads);

/* Fills count elements of type t at dst per the arg's initialiser (a buffer arg), then
 * applies its layout (a->layout) to them. Errors (CC_ERR_INPUT): file unreadable or of the
 * wrong size, const value not of the type, a size the layout does not fit
 * (cc_launch_layout_check). */
int cc_launch_fill(const struct cc_launch_arg *a, uint64_t count, void *dst,
                   struct cc_err *err);
/* cc_launch_fill with a random buffer filled on up to `threads` threads
 * (cc_launch_random_fill_threads): the same bytes, errors and layout. */
int cc_launch_fill_threads(const struct cc_launch_arg *a, uint64_t count, void *dst,
                           uint32_t threads, struct cc_err *err);

/* Frees l's offsets and zeroes it; safe on a zeroed layout. */
void cc_launch_layout_release(struct cc_launch_layout *l);

/* Checks that a buffer of bytes bytes, called name, holds whole blocks of l's structures
 * (nothing to check without a layout). Errors (CC_ERR_INPUT) say what to pad it to. */
int cc_launch_layout_check(cc_keep const struct cc_launch_layout *l, const char *name,
                           uint64_t bytes, struct cc_err *err);

/* Byte in the blocked layout of element e's run number piece (0..npieces-1) of l. */
uint64_t cc_launch_layout_address(cc_keep const struct cc_launch_layout *l, uint64_t e,
                                  uint32_t piece);

/* Rewrites the bytes bytes at data in place: from the array-of-structures order into l's
 * blocked layout (inverse 0), or back (inverse 1). Only whole blocks move (the caller has
 * checked the size with cc_launch_layout_check); nothing happens without a layout. */
void cc_launch_layout_apply(cc_keep const struct cc_launch_layout *l, uint8_t *data,
                            uint64_t bytes, int inverse);

/* Spells l as the launch-file directive, "soa(24,0,8,12,16,20)" (",block=B" when B is not
 * 32) into buf of size bytes; returns its length, or -1 when it does not fit. */
int cc_launch_layout_format(cc_keep const struct cc_launch_layout *l, char *buf, size_t size);

/* Where buffers live: cc_launch_emu_allocator (launch_emu.c) wraps cc_emu_alloc; tests
 * pass their own. alloc returns zero-filled memory of bytes bytes, or an error (host
 * memory exhausted included: never an abort). */
struct cc_launch_allocator {
  void *ctx;
  int (*alloc)(void *ctx, uint64_t bytes, const char *name, uint64_t *dev_addr,
               void **host, struct cc_err *err);
  uint64_t max_bytes; /* the most bytes all buffers of one binding may take together;
                         0 = no limit (the CLI's --max-memory) */
  uint32_t fill_threads; /* threads that fill a large random buffer (and so touch its
                            pages) at once: the run's --jobs; 0 or 1: the caller alone */
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
  uint64_t dev_addr;      /* the kernel's pointer: the allocation's plus the offset */
  void *host;            /* the first element's bytes, in memory the allocator owns (the
                            allocation's start plus the arg's offset(BYTES)) */
  const struct cc_launch_layout *layout; /* borrowed from the arg, or NULL: the layout of
                                            the bytes at host (cc_launch_dump undoes it) */
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
 * alloc->max_bytes before allocating any; then allocates every buffer through alloc (its
 * offset(BYTES) more, the buffer starting BYTES in) and fills it (zero: left as the
 * allocator gives it). Errors (CC_ERR_INPUT) name the
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
 * temporary file renamed into place); a buffer with a layout is written in the
 * array-of-structures order (the layout undone on a copy). Errors: CC_ERR_IO naming path. */
int cc_launch_dump(const struct cc_launch_buffer *buf, const char *path, struct cc_err *err);

/* Float to IEEE binary16 bits, round to nearest even (overflow to infinity). */
uint16_t cc_launch_f16_bits(double v);

#endif
