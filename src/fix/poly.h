/* coalcheck fix: the polyhedral side of loop lifting (CGO 2015 Sec. 4.3, Algorithm 2)
 * with isl: a kernel's SCoP (cuda/scop.h) as isl sets and maps, its dependences, the
 * legality of making a loop a thread dimension, the loop's range, and the code of the
 * lifted kernel from isl's AST generator. Inside src/fix only (lift.c). */
#ifndef CC_FIX_POLY_H
#define CC_FIX_POLY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuda/scop.h"
#include "util/err.h"
#include "util/mem.h"

struct cc_fix_poly;

/* Builds the isl form of s (borrowed: it must outlive the result): each statement's
 * iteration domain and access relations with the parameters by their launch values, and
 * the memory-based dependence relation (pairs of instances touching the same element,
 * at least one a write: RAW, WAR and WAW, unordered, so a superset of the flow
 * dependences isl_union_access_info_compute_flow would give). Errors: CC_ERR_INTERNAL
 * when isl rejects the notation (a bug of the printer). */
int cc_fix_poly_build(cc_keep const struct cc_cuda_scop *s, cc_give struct cc_fix_poly **out,
                      struct cc_err *err);
/* Frees p and its isl objects. NULL is allowed. */
void cc_fix_poly_free(cc_take struct cc_fix_poly *p);

/* Whether the thread dimensions (the geometry variables g..., loop variable var) may run
 * in parallel: no dependence relates two instances that differ in g... or in var (the
 * loop carries none, and the original threads share none), where a statement outside the
 * loop counts as running at var = pin (the one thread that will run it). var = -1 (or a
 * geometry variable) checks g... alone. Returns 1, or 0 with the array and an example pair
 * of (g..., var) differences in why (size bytes). */
int cc_fix_poly_parallel(const struct cc_fix_poly *p, int var, int64_t pin, char *why,
                         size_t size);

/* Whether the loads-first plays (src/cuda/plays.h, cc_cuda_plays_loads_first) are legal
 * for p's kernel: no thread of the launch touches an element another thread writes
 * (cc_fix_poly_parallel with var = -1), every statement is straight-line (no loop), and
 * no statement reads an element of an array that an earlier statement of the same thread
 * (textual order: the body is straight-line) wrote. Then, among the threads one thread
 * plays, no store precedes a load of the same element, so every load may run before
 * every store. Within one statement the reads precede its write (C: the operands are
 * evaluated before the assignment), so `a[i] -= b[i]` is allowed. Private scalars are
 * registers, out of the question. Returns 1, or 0 with the reason (the lines) in why. */
int cc_fix_poly_loads_first(const struct cc_fix_poly *p, char *why, size_t size);

/* The vector plays (src/fix/vector.c): whether statement i's domain is a union of whole
 * aligned groups of v consecutive values of geometry variable d (for every instance, the
 * v instances whose g_d lie in the same [v k, v k + v) and whose other variables are
 * equal are instances too). Then the v original threads one thread plays along d all run
 * statement i, or none does. Returns 1 or 0. */
int cc_fix_poly_group_closed(const struct cc_fix_poly *p, uint32_t i, int d, uint32_t v);

/* Whether no two different statements write the same element of an array (in any
 * threads). Returns 1, or 0 with the lines and the array in why (size bytes). */
int cc_fix_poly_writes_once(const struct cc_fix_poly *p, char *why, size_t size);

/* The smallest and largest value of variable var (g or a loop variable) over every
 * statement's domain that has it. Returns 1, or 0 when no domain has it or it is
 * unbounded. */
int cc_fix_poly_range(const struct cc_fix_poly *p, int var, int64_t *lo, int64_t *hi);

/* Appends the statement instance stmt whose domain tuple (g, loops...) has the C
 * expressions args[0..nargs) to b, indented by indent spaces. */
typedef void (*cc_fix_poly_stmt_fn)(void *ctx, struct cc_strbuf *b, uint32_t stmt,
                                    const char *const *args, int nargs, int indent);

/* How one geometry variable g_d runs in the lifted kernel. */
struct cc_fix_poly_dim {
  const char *name;        /* the C name of its thread index, or NULL: a loop in the kernel
                              over its whole range (more thread dimensions than CUDA's 3) */
  int64_t stride;          /* with a name: 0, g_d = name; else g_d is a loop from name by
                              stride (the threads are fewer than g_d's values: CUDA's grid
                              limit in y and z) */
};

/* What the lifted kernel's thread indices stand for. */
struct cc_fix_poly_lift {
  int var;                 /* the variable that becomes thread index x: a loop (lifted), or
                              a geometry variable other than g_x (the geometry permuted) */
  int64_t pin;             /* the value of var whose thread runs the statements outside it */
  const char *vname;       /* the C name of var's thread index (x) */
  int64_t step;            /* var's values are pin + step k (a loop's `+= step`); 0 or 1: all */
  struct cc_fix_poly_dim geo[3]; /* each geometry variable other than var */
};

/* The body of the lifted kernel: the loops and guards isl's AST generator
 * (isl_ast_build_node_from_schedule_map) makes for the schedule that keeps the original
 * order (the 2d+1 textual schedule) of every loop but l->var, with var and the geometry
 * variables fixed to the C parameters vname and l->geo[d].name (the thread dimensions, as
 * PPCG treats them; a statement outside the loop runs where vname = pin; a strided or
 * unnamed geometry variable an outermost loop), parameters symbolic. Printed as CUDA C (int loop counters __cc_c<k>, min/max/floord as
 * conditional expressions), each statement through fn. Owned; NULL with err set on an
 * isl failure (CC_ERR_INTERNAL). */
cc_give char *cc_fix_poly_codegen(const struct cc_fix_poly *p, const struct cc_fix_poly_lift *l,
                                  cc_fix_poly_stmt_fn fn, void *ctx, int indent,
                                  struct cc_err *err);

#endif
