/* coalcheck CUDA front end, inside the module: the parsed file (tu.c), the model of a
 * kernel's call tree (model.c), macro bodies (macro.c), edits (edit.c) and launch sites
 * (launch.c). Not installed, not included outside src/cuda. */
#ifndef CC_CUDA_INTERNAL_H
#define CC_CUDA_INTERNAL_H

#include <stddef.h>

#include <clang-c/Index.h>

#include "cuda/cuda.h"
#include "cuda/redist.h"
#include "util/mem.h"

/* ---- prelude.c: files that exist only in memory ---- */

#define CC_CUDA_VDIR "/__coalcheck__"
#define CC_CUDA_PRELUDE_PATH CC_CUDA_VDIR "/prelude.h"

struct cc_cuda_vfile {
  const char *path, *text;
};

/* The prelude (first) and the stand-in headers; *n gets their count. Static storage. */
const struct cc_cuda_vfile *cc_cuda_vfiles(size_t *n);

/* ---- tu.c: the parsed file ---- */

/* Where a location lies. */
enum cc_cuda_where {
  CC_CUDA_MAIN,    /* the input file */
  CC_CUDA_HEADER,  /* a header of the user's (not a system header) */
  CC_CUDA_SYSTEM,  /* a system header (C/C++ library) */
  CC_CUDA_PRELUDE, /* the prelude or a stand-in header */
  CC_CUDA_NOWHERE  /* no file: a compiler builtin */
};

struct cc_cuda_tu {
  CXIndex index;
  CXTranslationUnit tu;
  CXFile main;
  const char *path; /* kept: as the caller gave it (messages use it) */
  const char *text; /* kept: the input's bytes; offsets index it */
  size_t len;
};

/* Parses text (len bytes, the content of path) as CUDA device code with the prelude and
 * extra (nextra) clang arguments. Errors: CC_ERR_TOOL (libclang failed or crashed). */
int cc_cuda_tu_parse(struct cc_cuda_tu *t, const char *path, const char *text, size_t len,
                     const char *const *extra, size_t nextra, struct cc_err *err);
void cc_cuda_tu_release(struct cc_cuda_tu *t);

/* 1 when a and b are the same file. clang_File_isEqual alone compares unique ids, which
 * every file that exists only in memory shares (the prelude, and an input whose path is
 * not on disk): the names must agree too. */
int cc_cuda_same_file(CXFile a, CXFile b);
/* Which file loc is in (the file where it is written or, for a token from a macro body,
 * where the macro was expanded: libclang's "spelling" location is clang's file
 * location). */
enum cc_cuda_where cc_cuda_tu_where(const struct cc_cuda_tu *t, CXSourceLocation loc);
/* 1 and *off = the byte offset of loc in the input when its file location is in the
 * input; else 0. */
int cc_cuda_tu_off(const struct cc_cuda_tu *t, CXSourceLocation loc, unsigned *off);
/* 1 and [*b, *e) = the bytes of c's extent in the input (file locations of its ends) when
 * both ends are in the input and b < e; else 0. */
int cc_cuda_tu_extent(const struct cc_cuda_tu *t, CXCursor c, unsigned *b, unsigned *e);
/* The 1-based line of byte off of the input (what a rewrite's #line names, so that the
 * rewritten text keeps the input's line numbers). */
unsigned cc_cuda_tu_line_at(const struct cc_cuda_tu *t, unsigned off);
/* "FILE:LINE:COL" of loc's file location into buf (FILE is t->path for the input). */
void cc_cuda_tu_place(const struct cc_cuda_tu *t, CXSourceLocation loc, char *buf, size_t n);
/* 1-based line and column of loc's file location. */
void cc_cuda_tu_linecol(CXSourceLocation loc, unsigned *line, unsigned *col);
/* A copy of s (disposed). */
cc_give char *cc_cuda_str(CXString s);
/* The spelling of c (owned copy). */
cc_give char *cc_cuda_spelling(CXCursor c);
/* 1 when c's spelling equals s. */
int cc_cuda_spelled(CXCursor c, const char *s);

/* Tokens of a range (clang_tokenize), owned. */
struct cc_cuda_tokens {
  CXTranslationUnit tu;
  CXToken *tok;
  unsigned n;
};
void cc_cuda_tokens_get(const struct cc_cuda_tu *t, CXSourceRange r, struct cc_cuda_tokens *out);
void cc_cuda_tokens_release(struct cc_cuda_tokens *tk);
/* 1 when token i exists and its spelling is s. */
int cc_cuda_token_is(const struct cc_cuda_tokens *tk, unsigned i, const char *s);
/* Offset of token i in its file. */
unsigned cc_cuda_token_off(const struct cc_cuda_tokens *tk, unsigned i);
/* The operator token of operator expression c (owned, or NULL): for a binary or compound
 * operator, the first token at or after the end of its first operand lhs; for a unary one
 * (lhs null), its first token when that is punctuation (prefix: ++x, -x, *p), else its
 * last (postfix: x++). Shared by the extractors of redist.c and scop.c. */
cc_give char *cc_cuda_operator(const struct cc_cuda_tu *t, CXCursor c, CXCursor lhs);

/* ---- model.c: a kernel and its call tree ---- */

/* The builtin variables; CC_CUDA_B_NONE: not one of them. */
enum cc_cuda_builtin {
  CC_CUDA_B_TID, CC_CUDA_B_CTAID, CC_CUDA_B_NTID, CC_CUDA_B_NCTAID, CC_CUDA_B_WARPSIZE,
  CC_CUDA_B_NONE
};
extern const char *const cc_cuda_builtin_names[CC_CUDA_B_NONE];

/* A function: defined or only referenced. Keyed by the USR of its primary template (a
 * specialisation or an instantiated member maps to the template it came from). */
struct cc_cuda_fn {
  char *usr, *name;
  CXCursor def;              /* the definition (null cursor when none was seen) */
  CXCursor decl;             /* a declaration (the first referenced or defined) */
  enum cc_cuda_where where;  /* of the definition, else of the declaration */
  int is_global;             /* __global__ */
  int visited;               /* its definition was walked (in the input or a header) */
  int tmpl;                  /* the template it instantiates (index), or -1 */
  int in_tree;               /* reached from the kernel by calls */
  int reads;                 /* its body reads a builtin (component, whole or address) */
  int reads_tree;            /* it or a function it calls, transitively, reads one */
};

/* A reference from function `from` (-1: file scope) to function `to`. */
struct cc_cuda_edge {
  int from, to;
  CXCursor at;
};

/* How a builtin component's letter is written, seen from the input's bytes. */
enum cc_cuda_spell {
  CC_CUDA_DIRECT,  /* in the input, outside any macro expansion */
  CC_CUDA_ARG,     /* in the input, inside a macro invocation's arguments */
  CC_CUDA_BODY,    /* in a macro's body: the file location is the expansion */
  CC_CUDA_ELSEWHERE /* not in the input */
};

/* A member reference `B.e` with B a builtin variable (threadIdx .. gridDim). */
struct cc_cuda_comp {
  int fn;                   /* the function whose body holds it (-1: file scope) */
  enum cc_cuda_builtin b;
  int e;                    /* 0 = x, 1 = y, 2 = z */
  enum cc_cuda_spell spell;
  unsigned off;             /* file location's offset when in the input */
  CXCursor at;
};

/* Any reference-like cursor in the input at a macro argument position, or a member
 * reference with a letter member: what an edit at its offset would also change. */
struct cc_cuda_mark {
  unsigned off;
  int fn;
  int comp;                 /* 1: it is a builtin component reference (struct cc_cuda_comp) */
};

/* A use of a builtin that the rewrite cannot follow. */
struct cc_cuda_use {
  int fn;
  int addr;                 /* 1: a component's address taken; 0: the variable used whole */
  enum cc_cuda_builtin b;
  CXCursor at;
};

/* A `K<<<...>>>(...)` of the kernel. */
struct cc_cuda_launch {
  int fn;
  CXCursor call, config;    /* the kernel call and its configuration call */
};

/* A reference to the kernel that is not the callee of a <<<...>>> of it. */
struct cc_cuda_kref {
  int fn;
  CXCursor at;
};

/* A reference to a local variable of type dim3. */
enum cc_cuda_vrole { CC_CUDA_V_OTHER, CC_CUDA_V_MEMBER, CC_CUDA_V_LAUNCH };
struct cc_cuda_vref {
  CXCursor var;             /* its declaration */
  CXCursor ref;             /* the DeclRefExpr */
  enum cc_cuda_vrole role;
  int e;                    /* MEMBER: the component */
  int direct;               /* MEMBER: its letter written in the input outside macros */
  unsigned off;             /* MEMBER: the letter's offset */
  int launch;               /* LAUNCH: index into launches */
};

/* A macro expansion written in the input: [b, e) are its bytes (name and arguments). */
struct cc_cuda_expansion {
  unsigned b, e;
  CXCursor at;              /* the MacroExpansion cursor */
  CXCursor def;             /* its macro definition (may lie in a header) */
};

/* An unresolved member call `obj.name(...)` in a template (dependent). */
struct cc_cuda_unresolved {
  int fn;
  char *name;
};

struct cc_cuda_model {
  struct cc_cuda_tu tu;
  char kernel_name[256];    /* unqualified (cc_cuda_model_build reduces a qualified name) */
  int kernel;               /* index into fns */
  CC_VEC(struct cc_cuda_fn) fns;
  CC_VEC(struct cc_cuda_edge) edges;
  CC_VEC(struct cc_cuda_comp) comps;
  CC_VEC(struct cc_cuda_mark) marks;     /* sorted by offset after the walk */
  CC_VEC(struct cc_cuda_use) uses;
  CC_VEC(struct cc_cuda_launch) launches;
  CC_VEC(struct cc_cuda_kref) krefs;
  CC_VEC(struct cc_cuda_vref) vrefs;
  CC_VEC(struct cc_cuda_expansion) exps; /* sorted by offset */
  CC_VEC(struct cc_cuda_unresolved) unresolved;
  CC_VEC(CXCursor) consumed;             /* walk only: DeclRefExprs already accounted */
  int *hash;                             /* fns by USR: open addressing, -1 empty */
  size_t hash_cap;
};

/* Parses the file, finds the kernel, walks every function outside system headers and
 * the prelude, computes the call tree, and checks that the tree and the launch sites
 * parsed without error. Errors: CC_ERR_INPUT (no such kernel, several, in a header,
 * an error inside), CC_ERR_TOOL. On error m is released. */
int cc_cuda_model_build(struct cc_cuda_model *m, const char *path, const char *text,
                        size_t len, const char *kernel, const char *const *extra,
                        size_t nextra, struct cc_err *err);
void cc_cuda_model_release(struct cc_cuda_model *m);

/* The builtins the kernel's own body reads (bit b: enum cc_cuda_builtin b), by component
 * or whole: those a rewrite that plays other threads must shadow (a local never read
 * draws a warning from nvcc). */
unsigned cc_cuda_model_builtins_read(const struct cc_cuda_model *m);
/* The first call edge from the kernel to a function that reads the thread geometry
 * (which would see the real builtins, not a rewrite's shadows), or NULL. */
const struct cc_cuda_edge *cc_cuda_model_geometry_callee(const struct cc_cuda_model *m);

/* The builtin variable that c (a DeclRefExpr) refers to, or CC_CUDA_B_NONE. */
enum cc_cuda_builtin cc_cuda_model_builtin(const struct cc_cuda_model *m, CXCursor c);
/* 1 when the type t is the prelude's dim3 (any qualifiers). */
int cc_cuda_model_is_dim3(const struct cc_cuda_model *m, CXType t);
/* The innermost macro expansion in the input that contains offset off, or NULL. */
const struct cc_cuda_expansion *cc_cuda_model_expansion_at(const struct cc_cuda_model *m,
                                                           unsigned off);
/* 1 when [b, e) contains every macro expansion it meets (none starts or ends inside
 * it without the whole expansion lying inside): text there can be moved as it is. */
int cc_cuda_model_whole(const struct cc_cuda_model *m, unsigned b, unsigned e);
/* 1 when function fn (an index; -1, file scope, is not) is in the kernel's call tree. */
int cc_cuda_model_in_tree(const struct cc_cuda_model *m, int fn);
/* The first child of c, skipping ParenExpr layers, or a null cursor. */
CXCursor cc_cuda_first_child(CXCursor c);
/* Children of c (up to max) into out; returns how many c has (may exceed max). */
unsigned cc_cuda_children(CXCursor c, CXCursor *out, unsigned max);
/* The function c refers to (a declaration, a specialisation as written), or a null
 * cursor when c refers to no function. */
CXCursor cc_cuda_fn_target(CXCursor c);

/* ---- edit.c: byte edits of the input ---- */

struct cc_cuda_edit {
  unsigned b, e;            /* replaced bytes [b, e) of the input (b == e: an insertion) */
  char *text;               /* owned */
  int dead;                 /* 1: folded into another edit's text */
};
typedef CC_VEC(struct cc_cuda_edit) cc_cuda_edits;

/* Adds the edit replacing [b, e) by text (copied). */
void cc_cuda_edits_add(cc_cuda_edits *ed, unsigned b, unsigned e, const char *text);
/* 1 when an edit (not dead) touches [b, e). */
int cc_cuda_edits_touch(const cc_cuda_edits *ed, unsigned b, unsigned e);
/* The input's bytes [b, e) with the edits that lie inside applied; those edits are marked
 * dead when kill is 1 (their text moves with the slice). Owned. */
cc_give char *cc_cuda_edits_render(cc_cuda_edits *ed, const char *text, unsigned b,
                                   unsigned e, int kill);
/* The whole input with the live edits applied (NUL-terminated, *len bytes). Errors:
 * CC_ERR_INTERNAL when two edits overlap (a bug). */
int cc_cuda_edits_apply(cc_cuda_edits *ed, const char *text, size_t len, char **out,
                        size_t *outlen, struct cc_err *err);
void cc_cuda_edits_release(cc_cuda_edits *ed);

/* ---- macro.c: builtins written in the body of a macro defined in the input ---- */

/* Adds to ed the edits of every builtin component written in the bodies of the macros
 * (in the input) through which the call tree's CC_CUDA_BODY references are expanded, and
 * checks that this is consistent: each such macro defined in the input, its body's
 * components matching what the AST saw at each expansion, and every expansion of it (or of
 * a macro using it) lying in the call tree. *count gets the edits that change a letter.
 * Errors: CC_ERR_NO_FIX naming the place. */
int cc_cuda_macro_edits(const struct cc_cuda_model *m, const int sigma[3], cc_cuda_edits *ed,
                        unsigned *count, struct cc_err *err);

/* ---- launch.c: the launch sites ---- */

/* Rewrites the launches of the kernel (edits into ed) and fills out's sites and
 * caller_note. */
void cc_cuda_launch_rewrite(const struct cc_cuda_model *m, const int sigma[3],
                            cc_cuda_edits *ed, struct cc_cuda_rewrite *out);

/* ---- redist.c, redist_emit.c: a reduction loop spread over a warp (redist.h) ---- */

/* An accumulation target of a rewritten loop: its partial is __cc_p<id>. */
struct cc_cuda_rtarget {
  char *key;                /* owned: the lvalue's bytes without white space */
  char *text;               /* owned: the lvalue as written (copied after the loop) */
  char *type;               /* owned: its canonical type's spelling ("float") */
  int memory;               /* 1: memory, folded in by lane 0 between two __syncwarp() */
  int integer;              /* 1: an integer type */
  uint32_t size;            /* bytes of its type */
  CXCursor decl;            /* local: the variable; memory: its base variable, or null */
  uint32_t id;
};

/* Bytes [b, e) of the input that become the partial of target `target` (an
 * accumulation's left-hand side, or the T of `T = T + E`). */
struct cc_cuda_rrename {
  unsigned b, e;
  uint32_t target;          /* index into the loop's targets */
};

/* A loop of the kernel, analysed. */
struct cc_cuda_rloop {
  CXCursor stmt;
  unsigned b, e;            /* the statement's bytes, its `;` included */
  unsigned init_b, init_e;  /* the initial value's bytes (`0` of `int j = 0`) */
  unsigned step_b, step_e;  /* the increment's bytes (`j++`) */
  int ok;                   /* the shape of redist.h; else why says what breaks it */
  int selected;             /* ok and holds an uncoalesced load: rewritten */
  char why[1024];           /* !ok: "FILE:LINE:COL: what; why" */
  CC_VEC(struct cc_cuda_rtarget) targets;
  CC_VEC(struct cc_cuda_rrename) renames;
  struct cc_cuda_redist_loop info;
};

/* A statement outside the rewritten loops that stores to memory: made by lane 0 only. */
struct cc_cuda_rstore {
  unsigned b, e;            /* its bytes, `;` included */
};

/* Adds to ed the edits of form f: the prologue (virtual thread from the real builtins,
 * shadows), each selected loop of loops (nloops) and each store; *shared_bytes gets the
 * static shared memory the form declares. in gives the launch and W. */
void cc_cuda_redist_edits(const struct cc_cuda_model *m, const struct cc_cuda_redist_in *in,
                          unsigned body_b, unsigned body_e, struct cc_cuda_rloop *loops,
                          size_t nloops, const struct cc_cuda_rstore *stores, size_t nstores,
                          enum cc_cuda_redist_form f, cc_cuda_edits *ed, uint32_t *shared_bytes);

/* ---- redist_ast.c: cursor questions of the redistribution ---- */

/* c without parentheses and implicit conversions (libclang's UnexposedExpr of one child). */
CXCursor cc_cuda_rd_strip(CXCursor c);
/* 1 and [*b, *e) when c is written in the input outside any macro expansion (so that its
 * bytes can be edited or copied). */
int cc_cuda_rd_bytes(const struct cc_cuda_model *m, CXCursor c, unsigned *b, unsigned *e);
/* The bytes [b, e) of text without white space (owned). */
cc_give char *cc_cuda_rd_squeeze(const char *text, unsigned b, unsigned e);
/* The operator token of c: the first token at or after the end of its first operand lhs
 * (binary), or its first or last token (unary, lhs null). Owned, or NULL. */
cc_give char *cc_cuda_rd_operator(const struct cc_cuda_model *m, CXCursor c, CXCursor lhs);
int cc_cuda_rd_op_is(const struct cc_cuda_model *m, CXCursor c, CXCursor lhs, const char *want);
/* 1 for the cursor kinds that may assign (binary, compound, unary operators). */
int cc_cuda_rd_is_assignment(enum CXCursorKind k);
/* 1 when c writes its first operand (=, op=, ++, --); *target gets it. */
int cc_cuda_rd_writes(const struct cc_cuda_model *m, CXCursor c, CXCursor *target);
/* Type kinds: int, unsigned, long (long) and unsigned; float, double; every integer. */
int cc_cuda_rd_integer(enum CXTypeKind k);
int cc_cuda_rd_float(enum CXTypeKind k);
int cc_cuda_rd_any_integer(enum CXTypeKind k);
/* The canonical type kind of c. */
enum CXTypeKind cc_cuda_rd_type_kind(CXCursor c);
/* 1 when c has a child attribute of kind attr (CXCursor_CUDASharedAttr). */
int cc_cuda_rd_has_attr(CXCursor c, enum CXCursorKind attr);
/* 1 when variable d is the thread's own: a parameter, or a local neither static nor
 * __shared__. */
int cc_cuda_rd_private(CXCursor d);
/* 1 when lvalue c names memory the lanes share (global, a pointer's target, shared); 0
 * for a local scalar, a local array's element, a member of a local struct. */
int cc_cuda_rd_shared_lvalue(CXCursor c);
/* The offset of c's location in the input (0 when elsewhere). */
unsigned cc_cuda_rd_off(const struct cc_cuda_model *m, CXCursor c);
/* The name of the function call c reaches (owned), or NULL. */
cc_give char *cc_cuda_rd_callee(CXCursor call);
/* Names: a CTA barrier (__syncthreads*), a warp-level primitive, an atomic. */
int cc_cuda_rd_barrier(const char *name);
int cc_cuda_rd_warp_op(const char *name);
int cc_cuda_rd_atomic(const char *name);
/* The model's function that call c reaches (its index), or -1. */
int cc_cuda_rd_model_fn(const struct cc_cuda_model *m, CXCursor call);
/* The end offset of statement c whose extent ends at e: e, or past the `;` that follows
 * an expression or a jump (clang's extent stops before it). */
unsigned cc_cuda_rd_statement_end(const struct cc_cuda_model *m, CXCursor c, unsigned e);

#endif
