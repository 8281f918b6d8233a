/* coalcheck CUDA front end: the affine subset of a kernel (a static control part, SCoP)
 * for loop lifting (CGO 2015, seeds/004, Sec. 4.3, Algorithm 2).
 *
 * pet is not packaged for Debian, so this is our own small extractor over the clang AST:
 * it reads the kernel's body and returns, for every statement that writes an array, its
 * iteration domain (constraints over the global thread index and the enclosing loops),
 * its access relations (affine subscripts of 1-D arrays, in elements), the textual order
 * (a 2d+1 schedule) and the source bytes needed to print the statement again. Nothing
 * here knows isl: src/fix/poly.c turns this into isl sets and maps (via isl's notation,
 * cc_cuda_scop_isl_* below), so src/cuda keeps depending on util and libclang only.
 *
 * The class (anything else is refused with FILE:LINE:COL and the construct):
 * - the geometry: in each dimension d (x, y, z), threadIdx.d and blockIdx.d appear only
 *   as the global index g_d = blockIdx.d * blockDim.d + threadIdx.d (blockDim/gridDim are
 *   the launch's constants; a component whose launch extent is 1 is the constant 0);
 * - local integer scalars declared once with an affine initialiser (substituted), or
 *   declared without one and used only as loop counters; any other local scalar (a sum
 *   `float s = 0;`, a loaded value) is a private variable of the thread: its declaration
 *   with a value and its assignments are statements, its reads accesses, indexed by the
 *   loops around its declaration (a fresh copy per iteration: scalar expansion);
 * - `if (c)` with c a conjunction of affine comparisons (<, <=, >, >=, ==); an else
 *   branch when c is one comparison other than == (its negation is convex);
 *   `if (c) return;` at the body's top level, c one comparison (its negation bounds the
 *   rest);
 * - `for (i = lo; i < hi; i++)` (or <=, ++i, i += C; counting down: >, >=, i--, --i,
 *   i -= C; C a constant 1..1024) with affine bounds (a step C > 1 puts i in lo + C k,
 *   k >= 0, in the domains);
 * - statements `A[e] = ...;` and `A[e] op= ...;` (or `s = ...;`, `s op= ...;` with s a
 *   private scalar) whose every subscript is affine, A a pointer parameter of the
 *   kernel, without calls.
 * Affine means: integer literals, integer parameters, loop counters, substituted locals,
 * + - and products with a constant; the product of a parameter and anything else is made
 * affine with the parameter's value from the launch (quasi-affine -> affine). Object-like
 * macros (#define N 64) are fine; an operator written in a function-like macro's body is
 * refused (libclang 14 gives its token no place in the file). */
#ifndef CC_CUDA_SCOP_H
#define CC_CUDA_SCOP_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Variables of the affine expressions: indices 0..ngeo-1 are the global thread indices
 * g_d = blockIdx.d * blockDim.d + threadIdx.d of dimensions x, y, z (named __cc_g,
 * __cc_gy, __cc_gz), then one per integer kernel parameter used symbolically and one per
 * loop counter, in the order met. */
#define CC_CUDA_SCOP_MAXV 24

enum cc_cuda_scop_vkind { CC_CUDA_SV_GEO, CC_CUDA_SV_PARAM, CC_CUDA_SV_LOOP };

struct cc_cuda_scop_var {
  enum cc_cuda_scop_vkind kind;
  char *name;              /* owned: the source name ("g" for the geometry) */
  int param;               /* PARAM: the kernel parameter's index */
  int64_t value;           /* PARAM: its value in the launch */
  /* LOOP: the loop */
  char *type;              /* owned: the counter's type spelling when the for declares it,
                              NULL when it is declared before the loop */
  unsigned line, column;   /* the for statement */
  int64_t step;            /* LOOP: its constant step (`i += 2`: 2, `i--`: -1), never 0 */
  struct cc_cuda_aff *lo;  /* LOOP with |step| > 1: owned, its start (values lo + k step,
                              k >= 0) */
};

/* c + sum coef[v] * var v. */
struct cc_cuda_aff {
  int64_t c;
  int64_t coef[CC_CUDA_SCOP_MAXV];
};

/* One access: array[sub] in elements, or a private scalar. */
struct cc_cuda_scop_access {
  char *array;             /* owned: the pointer parameter's name, or the scalar's */
  int write;               /* 1: written (an op= reference also has a read entry) */
  uint32_t elem_bytes;     /* sizeof the pointee; 0 for a scalar */
  struct cc_cuda_aff sub;  /* arrays */
  int priv;                /* 1: a local scalar, a register of the thread: one copy per
                              instance of the loops around its declaration, so it is
                              indexed by g and the statement's first pdims loops */
  int pdims;
};

/* A statement writing an array, and where it sits. */
struct cc_cuda_scop_stmt {
  unsigned b, e;           /* its bytes in the input, without the ';' */
  char *text;              /* owned: what to print for it, without the ';' (its bytes, or
                              `NAME = INIT` for a scalar's declaration) */
  unsigned line, column;
  int nloops;              /* enclosing loops, outermost first: variable indices */
  int loops[CC_CUDA_SCOP_MAXV];
  unsigned beta[CC_CUDA_SCOP_MAXV + 1]; /* textual positions: beta[k] orders the statement
                              or loop at depth k among its siblings (byte offsets) */
  struct cc_cuda_aff *cons; uint32_t ncons; /* owned: the domain, each cons >= 0 */
  struct cc_cuda_scop_access *acc; uint32_t nacc; /* owned */
  uint32_t *decls; uint32_t ndecls; /* owned: indices into scop decls visible here */
};

/* A local declaration statement kept for printing (its text, verbatim). */
struct cc_cuda_scop_decl {
  unsigned b, e;           /* the DeclStmt's bytes, with its ';' */
};

/* A local scalar that is not affine (a sum, a loaded value): declared once per thread
 * in the lifted kernel, its declaration's value assigned where the declaration was. */
struct cc_cuda_scop_priv {
  char *name, *type;       /* owned: its name and type spelling */
};

struct cc_cuda_scop {
  char *path;                        /* owned: as given */
  struct cc_cuda_scop_priv *privs; uint32_t nprivs; /* owned */
  struct cc_cuda_scop_var vars[CC_CUDA_SCOP_MAXV]; int nvars;
  struct cc_cuda_scop_stmt *stmts; uint32_t nstmts;
  struct cc_cuda_scop_decl *decls; uint32_t ndecls;
  unsigned body_b, body_e;           /* the kernel body's bytes, braces included */
  unsigned line, column;             /* the kernel's name */
  int ngeo;                          /* geometry variables 0..ngeo-1: g_x, g_y, g_z, one
                                        per dimension up to the last whose extent is > 1 */
  uint64_t extent[3];                /* the launch's extent of g_d: grid[d] * block[d] */
  uint32_t block[3], grid[3];        /* the launch */
};

/* Extracts the SCoP of kernel (found as cc_cuda_permute finds it) in path (text, len
 * bytes) for the launch grid x block, whose integer parameter values are values[i] where
 * known[i] (nparams entries, in the kernel's parameter order). Errors: CC_ERR_NO_FIX when
 * the kernel leaves the affine subset (the message names FILE:LINE:COL and the construct:
 * "the loop bound `rowptr[i+1]` is not affine", "a call to __syncthreads"), CC_ERR_INPUT
 * and CC_ERR_TOOL as cc_cuda_permute. On error *out is zeroed. */
int cc_cuda_scop_extract(const char *path, const char *text, size_t len, const char *kernel,
                         const uint32_t grid[3], const uint32_t block[3],
                         const int64_t *values, const uint8_t *known, uint32_t nparams,
                         const char *const *extra_args, size_t nextra,
                         struct cc_cuda_scop *out, struct cc_err *err);

/* Frees what s owns and zeroes it; safe on a zeroed struct. */
void cc_cuda_scop_release(struct cc_cuda_scop *s);

/* Statement i's iteration domain in isl's notation, "[P] -> { S<i>[g, l0, ...] : ... }"
 * (g standing for the ngeo geometry variables, g_x first)
 * with the symbolic parameters P (numeric = 0) or with every parameter replaced by its
 * value (numeric = 1, no parameter list). Owned. */
char *cc_cuda_scop_isl_domain(const struct cc_cuda_scop *s, uint32_t i, int numeric);

/* Statement i's access relation of the given kind (write 1 or read 0) in isl's notation,
 * "{ S<i>[g, l0, ...] -> A[e]; ... }" (parameters by value), or "{ }" when it has none.
 * Owned. */
char *cc_cuda_scop_isl_access(const struct cc_cuda_scop *s, uint32_t i, int write);

/* Access k of statement i alone, "{ S<i>[g, l0, ...] -> A[e] }" (a private scalar:
 * "-> s[g, l0, ...]" over the loops around its declaration). Owned. */
char *cc_cuda_scop_isl_access_one(const struct cc_cuda_scop *s, uint32_t i, uint32_t k);

/* Prints a as isl/C text over the variable names of s ("2 * g + 3"), parameters by
 * value when numeric. Owned. */
char *cc_cuda_scop_aff_str(const struct cc_cuda_scop *s, const struct cc_cuda_aff *a,
                           int numeric);

#endif
