/* coalcheck CUDA front end, inside the module: what the two files of the SCoP
 * extractor share (scop.c walks statements, scop_expr.c evaluates expressions and
 * conditions). Not included outside src/cuda. */
#ifndef CC_CUDA_SCOP_IMPL_H
#define CC_CUDA_SCOP_IMPL_H

#include "cuda/internal.h"
#include "cuda/scop.h"

#define CC_CUDA_SCOP_MAXCONS 256
#define CC_CUDA_SCOP_MAXDEPTH (CC_CUDA_SCOP_MAXV - 2)

/* An affine value during extraction: each dimension d's thread index is still split
 * into threadIdx (tid[d]) and blockIdx (ctaid[d]); finish() joins them into g_d. */
struct cc_cuda_xaff {
  struct cc_cuda_aff a;
  int64_t tid[3], ctaid[3];
};

enum cc_cuda_local_kind {
  CC_CUDA_L_AFFINE,   /* an integer declared once with an affine initialiser: substituted */
  CC_CUDA_L_COUNTER,  /* an integer declared without initialiser: usable as a loop counter */
  CC_CUDA_L_PRIVATE   /* any other scalar: a private variable of the thread (scop.h) */
};

struct cc_cuda_local {
  CXCursor decl;
  enum cc_cuda_local_kind kind;
  struct cc_cuda_xaff val;  /* CC_CUDA_L_AFFINE */
  int var;          /* CC_CUDA_L_COUNTER inside its loop: the loop variable, else -1 */
  int pdepth;       /* CC_CUDA_L_PRIVATE: the loops around its declaration */
};

struct cc_cuda_ex {
  const struct cc_cuda_model *m;
  struct cc_cuda_scop *s;
  const uint32_t *grid, *block;
  const int64_t *values; const uint8_t *known; uint32_t nparams;
  CXCursor kernel;
  CC_VEC(struct cc_cuda_local) locals;
  struct cc_cuda_aff cons[CC_CUDA_SCOP_MAXCONS]; uint32_t ncons;
  int loops[CC_CUDA_SCOP_MAXDEPTH]; unsigned loop_off[CC_CUDA_SCOP_MAXDEPTH]; int nloops;
  CC_VEC(uint32_t) visible;  /* decls in scope */
  CC_VEC(struct cc_cuda_scop_stmt) stmts;
  CC_VEC(struct cc_cuda_scop_decl) decls;
  CC_VEC(struct cc_cuda_scop_priv) privs;
  CXCursor bad;              /* the expression that was not affine */
  char note[160];            /* why, when a builtin made it so (or "") */
  struct cc_err *err;
};

/* Forgets the culprit of the last evaluation (before a new one). */
void cc_cuda_scop_fresh(struct cc_cuda_ex *x);
/* The bytes of c in the input, one line, for messages (n bytes of buf). */
void cc_cuda_scop_snippet(const struct cc_cuda_ex *x, CXCursor c, char *buf, size_t n);
/* CC_ERR_NO_FIX with "FILE:LINE:COL: WHAT; ..." at the start of at, WHAT = fmt with arg. */
int cc_cuda_scop_refuse(struct cc_cuda_ex *x, CXCursor at, const char *fmt, const char *arg);
/* Refuses the culprit of the last evaluation (or at): "the ROLE `TEXT` is not affine". */
int cc_cuda_scop_refuse_affine(struct cc_cuda_ex *x, CXCursor at, const char *role);
/* c without parentheses and implicit conversions. */
CXCursor cc_cuda_scop_strip(CXCursor c);
/* The operator of a binary or compound assignment operator, read from its tokens into op
 * (n bytes); 0 when it cannot be read. */
int cc_cuda_scop_binop(const struct cc_cuda_ex *x, CXCursor c, char *op, size_t n);
/* The operator of a unary operator (prefix or postfix) into op (n bytes). */
void cc_cuda_scop_unop(const struct cc_cuda_ex *x, CXCursor c, char *op, size_t n);
/* 1 when t is an integer type (char and bool excluded). */
int cc_cuda_scop_is_int(CXType t);
/* The index of kernel parameter d, or -1. */
int cc_cuda_scop_param(const struct cc_cuda_ex *x, CXCursor d);
/* The local variable declared by d (innermost), or NULL. */
struct cc_cuda_local *cc_cuda_scop_local(struct cc_cuda_ex *x, CXCursor d);
/* 1 when v has no variable part. */
int cc_cuda_scop_is_const(const struct cc_cuda_xaff *v);
/* A new variable of the SCoP (index), or -1 when there are CC_CUDA_SCOP_MAXV. */
int cc_cuda_scop_new_var(struct cc_cuda_ex *x, enum cc_cuda_scop_vkind kind, const char *name);
/* Evaluates integer expression c as an affine value; 0 (the culprit recorded) when it
 * is not one. */
int cc_cuda_scop_eval(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_xaff *out);
/* cc_cuda_scop_eval, then threadIdx.x and blockIdx.x joined into g. */
int cc_cuda_scop_eval_final(struct cc_cuda_ex *x, CXCursor c, struct cc_cuda_aff *out);
/* Adds constraint a >= 0 to the current domain; 0 when full. */
int cc_cuda_scop_push_con(struct cc_cuda_ex *x, const struct cc_cuda_aff *a);
/* Adds the constraints of comparison or conjunction c (negate: of !c); 0 when c is not
 * one (the culprit recorded). */
int cc_cuda_scop_cond(struct cc_cuda_ex *x, CXCursor c, int negate);

#endif
