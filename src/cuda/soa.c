/* coalcheck CUDA front end: cc_cuda_soa, an array of structures addressed member by member
 * in blocks of 32 elements (soa.h). One walk over the kernel's body, with the chain of
 * ancestors of each cursor, classifies every reference to a structure-pointer parameter
 * as a member access, a whole-element copy into a local, or an escape. */
#include "cuda/soa.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

/* The deepest cursor nesting walked inside the kernel; deeper input is refused. */
#define MAX_DEPTH 2000

enum use_kind {
  USE_MEMBER, /* p[e].m, (p + e)->m, p->m, q->m: `at` is the member reference */
  USE_GET,    /* S q = p[e]: `at` is the subscript */
  USE_ALIAS,  /* S *q = p + e; or S *q = &p[e];: `at` is q's declaration */
  USE_ESCAPE  /* anything else: `at` is where, `what` says how */
};

struct use {
  enum use_kind kind;
  CXCursor at;
  CXCursor index;      /* the index expression e, or a null cursor (p->m) */
  int constant;        /* e is an integer constant (or absent) */
  char alias[128];     /* q->m of an element pointer q (USE_ALIAS): q's name, else "" */
  char member[128];    /* USE_MEMBER of a vector member's component: "pos.x", else "" */
  char what[160];      /* USE_ESCAPE */
};

struct param {
  CXCursor decl;
  unsigned index;
  CXType record;       /* canonical, unqualified view through clang_Type_* */
  int is_const;
  CC_VEC(struct use) uses;
  CC_VEC(CXCursor) aliases; /* the declarations of USE_ALIAS: pointers to one element */
};

struct walk {
  const struct cc_cuda_model *m;
  CXCursor stack[MAX_DEPTH];
  unsigned depth;
  int too_deep;
  CC_VEC(struct param) params;
};

static int kind_is(CXCursor c, enum CXCursorKind k)
{
  return clang_getCursorKind(c) == k;
}

/* The ancestor at stack position *i - 1 and above that is not an implicit cast
 * (UnexposedExpr) or parentheses; *i becomes its position. Null when there is none. */
static CXCursor real_parent(const struct walk *w, unsigned *i)
{
  while (*i > 0) {
    CXCursor c = w->stack[--*i];
    if (!kind_is(c, CXCursor_UnexposedExpr) && !kind_is(c, CXCursor_ParenExpr))
      return c;
  }
  return clang_getNullCursor();
}

/* 1 when the path from the stack's position i + 1 goes through the first child of the
 * cursor at position i. */
static int via_first_child(const struct walk *w, unsigned i)
{
  CXCursor kids[1];
  return i + 1 < w->depth && cc_cuda_children(w->stack[i], kids, 1) >= 1 &&
         clang_equalCursors(kids[0], w->stack[i + 1]);
}

/* The second child of c, or a null cursor. */
static CXCursor second_child(CXCursor c)
{
  CXCursor kids[2];
  return cc_cuda_children(c, kids, 2) >= 2 ? kids[1] : clang_getNullCursor();
}

/* The first token of c's extent at or after offset off is s. */
static int token_after(const struct cc_cuda_model *m, CXCursor c, unsigned off, const char *s)
{
  struct cc_cuda_tokens tk;
  int yes = 0;
  cc_cuda_tokens_get(&m->tu, clang_getCursorExtent(c), &tk);
  for (unsigned i = 0; i < tk.n; i++)
    if (cc_cuda_token_off(&tk, i) >= off) {
      yes = cc_cuda_token_is(&tk, i, s);
      break;
    }
  cc_cuda_tokens_release(&tk);
  return yes;
}

/* A binary operator c whose operator token is s (libclang 14 has no operator kind). */
static int binop_is(const struct cc_cuda_model *m, CXCursor c, const char *s)
{
  CXCursor kids[2];
  unsigned b, e;
  if (!kind_is(c, CXCursor_BinaryOperator) || cc_cuda_children(c, kids, 2) != 2 ||
      !cc_cuda_tu_extent(&m->tu, kids[0], &b, &e))
    return 0;
  return token_after(m, c, e, s);
}

/* A prefix unary operator c whose operator token is s. */
static int unop_is(const struct cc_cuda_model *m, CXCursor c, const char *s)
{
  unsigned b, e;
  return kind_is(c, CXCursor_UnaryOperator) && cc_cuda_tu_extent(&m->tu, c, &b, &e) &&
         token_after(m, c, b, s);
}

static int is_pointer(CXCursor c)
{
  return clang_getCanonicalType(clang_getCursorType(c)).kind == CXType_Pointer;
}

static int is_constant(CXCursor e)
{
  CXEvalResult r;
  int yes;
  if (clang_Cursor_isNull(e))
    return 1;
  r = clang_Cursor_Evaluate(e);
  yes = r && clang_EvalResult_getKind(r) == CXEval_Int;
  if (r)
    clang_EvalResult_dispose(r);
  return yes;
}

/* An escape at the reference to p (u->at), or at `at` when not null. */
static void escape(struct use *u, CXCursor at, const char *fmt, const char *arg)
{
  u->kind = USE_ESCAPE;
  if (!clang_Cursor_isNull(at))
    u->at = at;
  snprintf(u->what, sizeof u->what, fmt, arg);
}

/* d (a cursor, maybe null) declares one local `S *q` (the only declarator of its
 * statement) of p's structure type initialised by the expression on the stack at i + 1. */
static int element_pointer(const struct walk *w, CXCursor d, unsigned i, CXType record)
{
  CXType t = clang_getCanonicalType(clang_getCursorType(d));
  CXCursor kids[2];
  /* the same record, qualifiers aside (libclang 14 cannot drop them from a type) */
  if (!kind_is(d, CXCursor_VarDecl) || t.kind != CXType_Pointer ||
      !clang_equalCursors(
          clang_getTypeDeclaration(clang_getCanonicalType(clang_getPointeeType(t))),
          clang_getTypeDeclaration(record)) ||
      i == 0 || !kind_is(w->stack[i - 1], CXCursor_DeclStmt) ||
      cc_cuda_children(w->stack[i - 1], kids, 2) != 1)
    return 0;
  return 1;
}

/* The declaration above stack position j when it is an element pointer (as above): 1
 * and *at set, else 0. */
static int alias_decl(const struct walk *w, unsigned j, CXType record, CXCursor *at)
{
  CXCursor d = real_parent(w, &j);
  if (!element_pointer(w, d, j, record))
    return 0;
  *at = d;
  return 1;
}

/* How the reference to q, an element pointer of parameter p (`S *q = p + e;`), at the top
 * of the stack is used: q->m, else an escape (q reassigned, passed, dereferenced whole). */
static struct use classify_alias(const struct walk *w, const char *q)
{
  struct use u = {USE_ESCAPE, w->stack[w->depth - 1], clang_getNullCursor(), 0, "", "", ""};
  unsigned i = w->depth - 1;
  CXCursor a = real_parent(w, &i);
  if (kind_is(a, CXCursor_MemberRefExpr) && via_first_child(w, i) &&
      kind_is(clang_getCursorReferenced(a), CXCursor_FieldDecl) &&
      !unop_is(w->m, real_parent(w, &i), "&")) {
    u.kind = USE_MEMBER;
    u.at = a;
    snprintf(u.alias, sizeof u.alias, "%s", q);
  } else {
    escape(&u, clang_getNullCursor(), "%s, a pointer to one element of the array of "
           "structures, is used other than as q->member (reassigned, passed, a member's "
           "address taken or the element used whole)", q);
  }
  return u;
}

/* How the reference to parameter `name` at the top of the stack is used (soa.h). */
static int vector_type(const struct cc_cuda_model *m, CXType t);

/* For a use of member u->at (a MemberRefExpr at stack position k) whose member is of a
 * CUDA vector type (float3 pos): the component read or written, `p[e].pos.x`, becomes the
 * use ("pos.x", u->at the outer MemberRefExpr); the member used whole is an escape, since
 * the layout change stores each component apart (float3's 12 bytes, read by a warp at
 * a 12-byte stride, would still touch 3 sectors for each 1 a component needs). */
static void vector_member(const struct walk *w, unsigned k, const char *name, struct use *u)
{
  CXCursor f = clang_getCursorReferenced(u->at), c;
  CXType t = clang_getCanonicalType(clang_getCursorType(f));
  char *m, *x;
  if (t.kind != CXType_Record || !vector_type(w->m, t))
    return;
  c = real_parent(w, &k);
  m = cc_cuda_spelling(u->at);
  if (kind_is(c, CXCursor_MemberRefExpr) && via_first_child(w, k)) {
    x = cc_cuda_spelling(c);
    snprintf(u->member, sizeof u->member, "%s.%s", m, x);
    u->at = c;
    free(x);
  } else {
    char fmt[200];
    snprintf(fmt, sizeof fmt, "member %s of %%s[e] (a vector type) is used whole, not by its "
             "components (.x, .y, ...), which the layout change stores apart", m);
    escape(u, clang_getNullCursor(), fmt, name);
  }
  free(m);
}

static struct use classify(const struct walk *w, const char *name, CXType record)
{
  struct use u = {USE_ESCAPE, w->stack[w->depth - 1], clang_getNullCursor(), 1, "", "", ""};
  unsigned i = w->depth - 1, j;
  CXCursor a = real_parent(w, &i), b;
  if (kind_is(a, CXCursor_ArraySubscriptExpr) && via_first_child(w, i)) {
    j = i;
    b = real_parent(w, &j);
    u.index = second_child(a);
    if (kind_is(b, CXCursor_MemberRefExpr) && !is_pointer(a)) {
      u.kind = USE_MEMBER;
      u.at = b;
    } else if (kind_is(b, CXCursor_CallExpr) &&
               kind_is(clang_getCursorReferenced(b), CXCursor_Constructor) && j > 0 &&
               (kind_is(w->stack[j - 1], CXCursor_VarDecl) ||
                (kind_is(w->stack[j - 1], CXCursor_UnexposedExpr) && j > 1 &&
                 kind_is(w->stack[j - 2], CXCursor_VarDecl)))) {
      u.kind = USE_GET;
      u.at = a;
    } else if (unop_is(w->m, b, "&") && alias_decl(w, j, record, &u.at)) {
      u.kind = USE_ALIAS; /* S *q = &p[e]; */
    } else {
      escape(&u, clang_getNullCursor(), "%s[e] is used whole (written, assigned, passed or its address taken), "
             "not copied into a local `S q = p[e];`", name);
    }
  } else if (kind_is(a, CXCursor_BinaryOperator) && via_first_child(w, i) &&
             binop_is(w->m, a, "+")) {
    j = i;
    b = real_parent(w, &j);
    if (kind_is(b, CXCursor_MemberRefExpr) && via_first_child(w, j)) {
      u.kind = USE_MEMBER;
      u.at = b;
      u.index = second_child(a);
    } else if (element_pointer(w, b, j, record)) {
      u.kind = USE_ALIAS; /* S *q = p + e; */
      u.at = b;
      u.index = second_child(a);
    } else {
      escape(&u, clang_getNullCursor(), "%s + e is used other than as (p + e)->member (address arithmetic)", name);
    }
  } else if (kind_is(a, CXCursor_MemberRefExpr) && via_first_child(w, i)) {
    u.kind = USE_MEMBER; /* p->m */
    u.at = a;
  } else if (kind_is(a, CXCursor_CallExpr)) {
    char fmt[200], *callee = cc_cuda_spelling(a);
    snprintf(fmt, sizeof fmt, "%%s is passed to %s", callee[0] ? callee : "a function");
    free(callee);
    escape(&u, clang_getNullCursor(), fmt, name);
  } else if (kind_is(a, CXCursor_CStyleCastExpr) || kind_is(a, CXCursor_CXXStaticCastExpr) ||
             kind_is(a, CXCursor_CXXReinterpretCastExpr) ||
             kind_is(a, CXCursor_CXXConstCastExpr) || kind_is(a, CXCursor_CXXFunctionalCastExpr)) {
    escape(&u, clang_getNullCursor(), "%s is cast to another type", name);
  } else if (kind_is(a, CXCursor_VarDecl) || binop_is(w->m, a, "=")) {
    escape(&u, clang_getNullCursor(), "%s is stored or assigned", name);
  } else if (!clang_Cursor_isNull(a)) {
    escape(&u, clang_getNullCursor(), "%s is used other than as p[e].member, (p + e)->member or `S q = p[e];` "
           "(address arithmetic, a comparison or a pointer use)", name);
  }
  if (u.kind == USE_MEMBER &&
      !kind_is(clang_getCursorReferenced(u.at), CXCursor_FieldDecl))
    escape(&u, w->stack[w->depth - 1], "a member function of %s[e] is called (it sees the "
           "structure's layout)", name);
  if (u.kind == USE_MEMBER) {
    j = i;
    while (j > 0 && !clang_equalCursors(w->stack[j], u.at))
      j--;
    vector_member(w, j, name, &u);
  }
  if (u.kind == USE_MEMBER) {
    j = i;
    while (j > 0 && !clang_equalCursors(w->stack[j], u.at))
      j--;
    b = real_parent(w, &j);
    if (unop_is(w->m, b, "&"))
      escape(&u, b, "the address of a member of %s[e] is taken", name);
  }
  if (u.kind != USE_ESCAPE)
    u.constant = is_constant(u.index);
  return u;
}

static struct param *param_of(struct walk *w, CXCursor ref)
{
  CXCursor d = clang_getCursorReferenced(ref);
  for (size_t i = 0; i < w->params.len; i++)
    if (clang_equalCursors(d, w->params.data[i].decl))
      return &w->params.data[i];
  return NULL;
}

/* The parameter whose element pointer (USE_ALIAS) ref names, or NULL. */
static struct param *alias_of(struct walk *w, CXCursor ref)
{
  CXCursor d = clang_getCursorReferenced(ref);
  for (size_t i = 0; i < w->params.len; i++)
    for (size_t k = 0; k < w->params.data[i].aliases.len; k++)
      if (clang_equalCursors(d, w->params.data[i].aliases.data[k]))
        return &w->params.data[i];
  return NULL;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct walk *w = data;
  (void)parent;
  if (w->depth >= MAX_DEPTH) {
    w->too_deep = 1;
    return CXChildVisit_Break;
  }
  w->stack[w->depth++] = c;
  if (kind_is(c, CXCursor_DeclRefExpr)) {
    struct param *p = param_of(w, c), *q = p ? NULL : alias_of(w, c);
    if (p) {
      char *name = cc_cuda_spelling(p->decl);
      struct use u = classify(w, name, p->record);
      free(name);
      if (u.kind == USE_ALIAS)
        CC_VEC_PUSH(&p->aliases, u.at);
      CC_VEC_PUSH(&p->uses, u);
    } else if (q) {
      char *name = cc_cuda_spelling(clang_getCursorReferenced(c));
      struct use u = classify_alias(w, name);
      free(name);
      CC_VEC_PUSH(&q->uses, u);
    }
  }
  clang_visitChildren(c, visit, w);
  w->depth--;
  return w->too_deep ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* t is declared by the prelude (CUDA's float4, int2, double2, ...: vector types a lane
 * loads whole in one aligned access, CUDA C Programming Guide, "Built-in Vector Types")
 * or a system header: not the user's array of structures to relayout. */
static int vector_type(const struct cc_cuda_model *m, CXType t)
{
  enum cc_cuda_where at =
      cc_cuda_tu_where(&m->tu, clang_getCursorLocation(clang_getTypeDeclaration(t)));
  return at == CC_CUDA_PRELUDE || at == CC_CUDA_SYSTEM;
}

/* The kernel's parameters that point to a structure type. */
static void find_params(struct walk *w, CXCursor def)
{
  CXCursor kids[512];
  unsigned n = cc_cuda_children(def, kids, 512), index = 0;
  for (unsigned i = 0; i < n && i < 512; i++) {
    CXType t, pt;
    struct param p;
    if (!kind_is(kids[i], CXCursor_ParmDecl))
      continue;
    t = clang_getCanonicalType(clang_getCursorType(kids[i]));
    pt = clang_getPointeeType(t);
    if (t.kind == CXType_Pointer && clang_getCanonicalType(pt).kind == CXType_Record &&
        !vector_type(w->m, clang_getCanonicalType(pt))) {
      memset(&p, 0, sizeof p);
      p.decl = kids[i];
      p.index = index;
      p.record = clang_getCanonicalType(pt);
      p.is_const = clang_isConstQualifiedType(pt);
      CC_VEC_PUSH(&w->params, p);
    }
    index++;
  }
}

static CXCursor body_of(CXCursor def)
{
  CXCursor kids[512];
  unsigned n = cc_cuda_children(def, kids, 512);
  for (unsigned i = n < 512 ? n : 512; i-- > 0;)
    if (kind_is(kids[i], CXCursor_CompoundStmt))
      return kids[i];
  return clang_getNullCursor();
}

/* ---- the structure's layout ---- */

struct fields {
  const struct cc_cuda_model *m;
  CC_VEC(struct cc_cuda_soa_member) v;
  CXCursor bad;        /* the first member that is not a scalar, or null */
  const char *why;
  const char *outer;   /* visiting a vector member's components: its name, else NULL */
  uint32_t base;       /* and its offset in the structure, bytes */
};

static int scalar_type(CXType t)
{
  t = clang_getCanonicalType(t);
  return (t.kind >= CXType_FirstBuiltin && t.kind <= CXType_LastBuiltin &&
          t.kind != CXType_Void) ||
         t.kind == CXType_Pointer || t.kind == CXType_Enum;
}

static enum CXVisitorResult visit_field(CXCursor c, CXClientData data);

/* Member c of a CUDA vector type (float3 pos): its scalar components become members of
 * their own, "pos.x" at offsetof(S, pos) + offsetof(float3, x), so that a warp reading
 * pos.x reads 4-byte elements side by side. 0 (f->bad set) when a component is not. */
static int vector_components(struct fields *f, CXCursor c, CXType t, long long off)
{
  struct fields in = *f;
  char *name = cc_cuda_spelling(c);
  in.outer = name;
  in.base = (uint32_t)(off / 8);
  clang_Type_visitFields(t, visit_field, &in);
  f->v = in.v;
  free(name);
  if (!clang_Cursor_isNull(in.bad)) {
    f->bad = c;
    f->why = "a vector type whose components are not all scalars";
    return 0;
  }
  return 1;
}

static enum CXVisitorResult visit_field(CXCursor c, CXClientData data)
{
  struct fields *f = data;
  CXType t = clang_getCursorType(c);
  struct cc_cuda_soa_member mb;
  long long off = clang_Cursor_getOffsetOfField(c), size = clang_Type_getSizeOf(t);
  CXType ct = clang_getCanonicalType(t);
  if (!f->outer && ct.kind == CXType_Record && vector_type(f->m, ct) && off >= 0 && off % 8 == 0 &&
      !clang_isConstQualifiedType(t))
    return vector_components(f, c, ct, off) ? CXVisit_Continue : CXVisit_Break;
  if (clang_Cursor_isBitField(c) || !scalar_type(t) || clang_isConstQualifiedType(t) ||
      off < 0 || off % 8 || size <= 0) {
    f->bad = c;
    f->why = clang_Cursor_isBitField(c) ? "a bit-field"
             : clang_isConstQualifiedType(t) ? "const (a whole copy could not assign it)"
             : "not a scalar (an array, a structure, a union or a vector type)";
    return CXVisit_Break;
  }
  mb.name = cc_cuda_spelling(c);
  if (f->outer) { /* a component: "pos.x" */
    char *whole = cc_xmalloc(strlen(f->outer) + strlen(mb.name) + 2);
    sprintf(whole, "%s.%s", f->outer, mb.name);
    free(mb.name);
    mb.name = whole;
  }
  mb.type = cc_cuda_str(clang_getTypeSpelling(clang_getCanonicalType(t)));
  mb.offset = f->base + (uint32_t)(off / 8);
  mb.size = (uint32_t)size;
  CC_VEC_PUSH(&f->v, mb);
  return CXVisit_Continue;
}

static enum CXChildVisitResult find_base(CXCursor c, CXCursor parent, CXClientData data)
{
  (void)parent;
  if (kind_is(c, CXCursor_CXXBaseSpecifier)) {
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
  }
  return CXChildVisit_Continue;
}

/* S as spelled, without the qualifiers of the pointee ("const particle" -> "particle"). */
static char *record_name(CXType t)
{
  char *s = cc_cuda_str(clang_getTypeSpelling(t)), *at = s;
  for (;;) {
    if (strncmp(at, "const ", 6) == 0)
      at += 6;
    else if (strncmp(at, "volatile ", 9) == 0)
      at += 9;
    else
      break;
  }
  memmove(s, at, strlen(at) + 1);
  return s;
}

static void free_members(struct cc_cuda_soa_member *v, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    free(v[i].name);
    free(v[i].type);
  }
  free(v);
}

static int refuse(const struct cc_cuda_model *m, CXCursor at, struct cc_err *err,
                  const char *fmt, const char *a, const char *b)
{
  char place[512], msg[1024];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(at), place, sizeof place);
  snprintf(msg, sizeof msg, fmt, a, b);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s", place, msg);
}

/* The members of p's structure into out (sizes, offsets through clang's record layout). */
static int layout(const struct cc_cuda_model *m, const struct param *p,
                  struct cc_cuda_soa_param *out, struct cc_err *err)
{
  struct fields f = {m, {0}, clang_getNullCursor(), NULL, NULL, 0};
  CXCursor decl = clang_getTypeDeclaration(p->record), base = clang_getNullCursor();
  char *rec = record_name(p->record);
  long long size = clang_Type_getSizeOf(p->record);
  int rc = CC_OK;
  clang_visitChildren(decl, find_base, &base);
  if (size <= 0 || !clang_isPODType(p->record) || !clang_Cursor_isNull(base)) {
    rc = refuse(m, decl, err, "structure %s is %s; the layout change needs a plain structure "
                "of scalar members", rec, size <= 0 ? "incomplete" : !clang_Cursor_isNull(base)
                ? "derived from another" : "not plain old data (constructors, virtual "
                "functions or private members)");
  } else {
    clang_Type_visitFields(p->record, visit_field, &f);
    if (!clang_Cursor_isNull(f.bad)) {
      char place[512], *name = cc_cuda_spelling(f.bad);
      cc_cuda_tu_place(&m->tu, clang_getCursorLocation(f.bad), place, sizeof place);
      rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: member %s of %s is %s; the layout change "
                      "handles scalar members only: flatten it into scalars or lay the "
                      "structure out by hand", place, name, rec, f.why);
      free(name);
    } else if (f.v.len == 0) {
      rc = refuse(m, decl, err, "structure %s has no members%s", rec, "");
    }
  }
  if (rc != CC_OK) {
    free_members(f.v.data, f.v.len);
    free(rec);
    return rc;
  }
  out->record = rec;
  out->size = (uint32_t)size;
  out->members = f.v.data;
  out->nmembers = (uint32_t)f.v.len;
  return CC_OK;
}

/* ---- refusals and advice ---- */

/* The identifier of member name in helper names: "pos.x" -> "pos_x", into buf (size). */
static const char *member_id(const char *name, char *buf, size_t size)
{
  size_t i = 0;
  for (; name[i] && i + 1 < size; i++)
    buf[i] = name[i] == '.' ? '_' : name[i];
  buf[i] = '\0';
  return buf;
}

/* "float *x, float *y, float *z" for p's members (const when p is). */
static void array_list(const struct cc_cuda_soa_param *p, char *buf, size_t size)
{
  size_t at = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < p->nmembers && at < size; i++) {
    char id[128];
    at += (size_t)snprintf(buf + at, size - at, "%s%s%s *%s", i ? ", " : "",
                           p->is_const ? "const " : "", p->members[i].type,
                           member_id(p->members[i].name, id, sizeof id));
  }
}

/* The refusal for an escape: where, how, and the structure of arrays to adopt by hand. */
static int advise(const struct cc_cuda_model *m, const struct use *u,
                  const struct cc_cuda_soa_param *p, struct cc_err *err)
{
  char place[512], arrays[600];
  cc_cuda_tu_place(&m->tu, clang_getCursorLocation(u->at), place, sizeof place);
  array_list(p, arrays, sizeof arrays);
  return cc_err_set(err, CC_ERR_NO_FIX, "%s: %s, so the structure escapes kernel %s and its "
                    "layout cannot be changed inside the kernel alone; advice: store the array "
                    "of struct %s (%u bytes) as a structure of arrays, one array per member "
                    "(%s), element e's member m at m[e], and pass those arrays instead of %s",
                    place, u->what, m->kernel_name, p->record, p->size, arrays, p->name);
}

/* ---- the rewrite ---- */

/* 1 when offset off is written in the input outside every macro expansion. */
static int plain(const struct cc_cuda_model *m, unsigned off)
{
  return cc_cuda_model_expansion_at(m, off) == NULL;
}

/* The edits of one use of p (soa.h's table). */
static int use_edits(const struct cc_cuda_model *m, const struct cc_cuda_soa_param *p,
                     const struct use *u, cc_cuda_edits *ed, struct cc_err *err)
{
  unsigned b, e, ib = 0, ie = 0;
  char text[600];
  int has_index = !clang_Cursor_isNull(u->index);
  char *member = u->kind != USE_MEMBER ? cc_xstrdup("get") : u->member[0] ?
                 cc_xstrdup(u->member) : cc_cuda_spelling(u->at);
  for (char *d = member; *d; d++) /* "pos.x": the helper __cc_soa_p_pos_x */
    if (*d == '.')
      *d = '_';
  int ok = cc_cuda_tu_extent(&m->tu, u->at, &b, &e) &&
           (!has_index || cc_cuda_tu_extent(&m->tu, u->index, &ib, &ie)) && plain(m, b) &&
           plain(m, e - 1) && (!has_index || (plain(m, ib - 1) && plain(m, ie)));
  if (!ok) {
    free(member);
    return refuse(m, u->at, err, "this access to %s is written in a macro expansion%s; the "
                  "rewrite edits the input's bytes: write the access outside the macro", p->name,
                  "");
  }
  if (u->kind == USE_ALIAS) {
    /* q keeps the element's index instead of its address: every use of q is q->m */
    char *q = cc_cuda_spelling(u->at);
    snprintf(text, sizeof text, "const long long %s = (", q);
    cc_cuda_edits_add(ed, b, ib, text);
    cc_cuda_edits_add(ed, ie, e, ")");
    free(q);
  } else if (!has_index) {
    snprintf(text, sizeof text, "(*__cc_soa_%s_%s(%s, %s))", p->name, member, p->name,
             u->alias[0] ? u->alias : "0");
    cc_cuda_edits_add(ed, b, e, text);
  } else if (u->kind == USE_MEMBER) {
    snprintf(text, sizeof text, "(*__cc_soa_%s_%s(%s, ", p->name, member, p->name);
    cc_cuda_edits_add(ed, b, ib, text);
    cc_cuda_edits_add(ed, ie, e, "))");
  } else {
    snprintf(text, sizeof text, "__cc_soa_%s_get(%s, ", p->name, p->name);
    cc_cuda_edits_add(ed, b, ib, text);
    cc_cuda_edits_add(ed, ie, e, ")");
  }
  free(member);
  return CC_OK;
}

/* The address of member mb of element __cc_e, bytes from the buffer's base (soa.h). */
static void address(struct cc_strbuf *s, const struct cc_cuda_soa_param *p,
                    const struct cc_cuda_soa_member *mb)
{
  cc_strbuf_printf(s, "(__cc_e / 32u) * %lluu + %lluu + (__cc_e %% 32u) * %uu",
      32ull * p->size, 32ull * mb->offset, mb->size);
}

/* The device helpers of parameter p: one address function per member used (used[i]) and the
 * whole-element load when get (a template, so that S need not be spelled). */
static void helpers(const struct cc_cuda_soa_param *p, const char *used, int get,
                    struct cc_strbuf *s)
{
  const char *c = p->is_const ? "const " : "";
  cc_strbuf_printf(s, "/* coalcheck fix --transform soa: %s (struct %s, %u bytes) is stored member "
      "by member in\n * blocks of 32 elements: element e's member m is at byte\n * (e / 32) * "
      "%llu + 32 * offsetof(%s, m) + (e %% 32) * sizeof(m) of the buffer. */\n", p->name,
      p->record, p->size, 32ull * p->size, p->record);
  for (uint32_t i = 0; i < p->nmembers; i++) {
    const struct cc_cuda_soa_member *mb = &p->members[i];
    if (!used[i])
      continue;
    char id[128];
    cc_strbuf_printf(s, "static __device__ __forceinline__ %s%s *__cc_soa_%s_%s(%svoid *__cc_p, "
        "unsigned long long __cc_e)\n{\n  return (%s%s *)((%schar *)__cc_p + ", c, mb->type,
        p->name, member_id(mb->name, id, sizeof id), c, c, mb->type, c);
    address(s, p, mb);
    cc_strbuf_printf(s, ");\n}\n");
  }
  if (!get)
    return;
  cc_strbuf_printf(s, "template <class __cc_T>\nstatic __device__ __forceinline__ __cc_T "
      "__cc_soa_%s_get(const __cc_T *__cc_p, unsigned long long __cc_e)\n{\n  __cc_T __cc_s;\n",
      p->name);
  for (uint32_t i = 0; i < p->nmembers; i++) {
    const struct cc_cuda_soa_member *mb = &p->members[i];
    cc_strbuf_printf(s, "  __cc_s.%s = *(const %s *)((const char *)__cc_p + ", mb->name, mb->type);
    address(s, p, mb);
    cc_strbuf_printf(s, ");\n");
  }
  cc_strbuf_printf(s, "  return __cc_s;\n}\n");
}

/* Where the helpers go: before the kernel's definition, or before the `extern "C"` written
 * (without braces) in front of it. */
static unsigned insert_at(const struct cc_cuda_model *m, CXCursor def)
{
  static const char *const linkage[] = {"\"C\"", "\"C++\""};
  const char *t = m->tu.text;
  unsigned kb = 0, e, at;
  cc_cuda_tu_extent(&m->tu, def, &kb, &e);
  for (size_t i = 0; i < 2; i++) {
    size_t n = strlen(linkage[i]);
    at = kb;
    while (at > 0 && strchr(" \t\r\n", t[at - 1]))
      at--;
    if (at < n || strncmp(t + at - n, linkage[i], n) != 0)
      continue;
    at -= (unsigned)n;
    while (at > 0 && strchr(" \t\r\n", t[at - 1]))
      at--;
    if (at >= 6 && strncmp(t + at - 6, "extern", 6) == 0 &&
        (at == 6 || !(isalnum((unsigned char)t[at - 7]) || t[at - 7] == '_')))
      return at - 6;
  }
  return kb;
}

static void release_walk(struct walk *w)
{
  for (size_t i = 0; i < w->params.len; i++) {
    CC_VEC_FREE(&w->params.data[i].uses);
    CC_VEC_FREE(&w->params.data[i].aliases);
  }
  CC_VEC_FREE(&w->params);
}

/* The distinct lines of p's rewritten uses, ascending. */
static void use_lines(const struct param *q, struct cc_cuda_soa_param *p)
{
  p->lines = cc_xcalloc(q->uses.len ? q->uses.len : 1, sizeof *p->lines);
  for (size_t i = 0; i < q->uses.len; i++) {
    unsigned line, col, k;
    cc_cuda_tu_linecol(clang_getCursorLocation(q->uses.data[i].at), &line, &col);
    for (k = 0; k < p->nlines && p->lines[k] < line; k++)
      ;
    if (k < p->nlines && p->lines[k] == line)
      continue;
    memmove(p->lines + k + 1, p->lines + k, (p->nlines - k) * sizeof *p->lines);
    p->lines[k] = line;
    p->nlines++;
  }
  p->accesses = (uint32_t)q->uses.len;
}

/* 1 when q's structure is read per thread: an escape, or an index not a constant. */
static int per_thread(const struct param *q)
{
  for (size_t i = 0; i < q->uses.len; i++)
    if (q->uses.data[i].kind == USE_ESCAPE || !q->uses.data[i].constant)
      return 1;
  return 0;
}

/* Fills out->params from the walk's parameters that are read per thread, refusing the
 * first that escapes or whose structure is not plain. */
static int choose(const struct cc_cuda_model *m, struct walk *w, struct cc_cuda_soa *out,
                  struct cc_err *err)
{
  out->params = cc_xcalloc(w->params.len ? w->params.len : 1, sizeof *out->params);
  for (size_t i = 0; i < w->params.len; i++) {
    struct param *q = &w->params.data[i];
    struct cc_cuda_soa_param *p = &out->params[out->nparams];
    int rc;
    if (!per_thread(q))
      continue;
    out->nparams++;
    p->index = q->index;
    p->name = cc_cuda_spelling(q->decl);
    p->is_const = q->is_const;
    cc_cuda_tu_linecol(clang_getCursorLocation(q->decl), &p->line, &p->column);
    if ((rc = layout(m, q, p, err)) != CC_OK)
      return rc;
    for (size_t k = 0; k < q->uses.len; k++)
      if (q->uses.data[k].kind == USE_ESCAPE)
        return advise(m, &q->uses.data[k], p, err);
    use_lines(q, p);
  }
  if (out->nparams == 0)
    return cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s has no parameter pointing to an array "
                      "of structures that its threads index (S *p read as p[e].member with e "
                      "not a constant); nothing to lay out member by member", m->tu.path,
                      m->kernel_name);
  return CC_OK;
}

/* The helpers h as inserted at offset at of text (len bytes): numbered by #line as if they
 * followed the file's last line, and the text after them numbered as it was, so that the
 * kernel's lines keep their numbers (coalcheck's before/after reports compare lines, and
 * a load written in the kernel stays on its line). */
static char *numbered(const char *text, size_t len, unsigned at, const char *h)
{
  unsigned lines = 0, line = 1;
  struct cc_strbuf s = {NULL, 0, 0};
  for (size_t i = 0; i < len; i++) {
    lines += text[i] == '\n';
    line += i < at && text[i] == '\n';
  }
  lines += len > 0 && text[len - 1] != '\n';
  cc_strbuf_printf(&s, "%s/* coalcheck fix --transform soa: the helpers below are numbered after "
      "the file's last\n * line and the kernel keeps its line numbers (#line), so that reports "
      "compare lines. */\n#line %u\n%s\n#line %u\n",
      at > 0 && text[at - 1] != '\n' ? "\n" : "", lines + 1, h, line);
  return s.s;
}

static int rewrite(const struct cc_cuda_model *m, const struct walk *w, CXCursor def,
                   struct cc_cuda_soa *out, struct cc_err *err)
{
  cc_cuda_edits ed = {0};
  struct cc_strbuf h = {NULL, 0, 0};
  int rc = CC_OK;
  for (uint32_t i = 0; i < out->nparams && rc == CC_OK; i++) {
    const struct cc_cuda_soa_param *p = &out->params[i];
    char *used = cc_xcalloc(p->nmembers, 1);
    int get = 0;
    for (size_t k = 0; k < w->params.len && rc == CC_OK; k++)
      if (w->params.data[k].index == p->index)
        for (size_t j = 0; j < w->params.data[k].uses.len && rc == CC_OK; j++) {
          const struct use *u = &w->params.data[k].uses.data[j];
          get |= u->kind == USE_GET;
          for (uint32_t f = 0; u->kind == USE_MEMBER && f < p->nmembers; f++)
            used[f] |= u->member[0] ? !strcmp(u->member, p->members[f].name)
                                    : cc_cuda_spelled(u->at, p->members[f].name);
          rc = use_edits(m, p, u, &ed, err);
        }
    helpers(p, used, get, &h);
    free(used);
  }
  if (rc == CC_OK) {
    unsigned at = insert_at(m, def);
    char *block = numbered(m->tu.text, m->tu.len, at, h.s);
    cc_cuda_edits_add(&ed, at, at, block);
    free(block);
    rc = cc_cuda_edits_apply(&ed, m->tu.text, m->tu.len, &out->text, &out->len, err);
  }
  free(h.s);
  cc_cuda_edits_release(&ed);
  return rc;
}

int cc_cuda_soa(const char *path, const char *text, size_t len, const char *kernel,
                const char *const *extra_args, size_t nextra, struct cc_cuda_soa *out,
                struct cc_err *err)
{
  struct cc_cuda_model m;
  struct walk *w;
  CXCursor def, body;
  int rc;
  memset(out, 0, sizeof *out);
  if ((rc = cc_cuda_model_build(&m, path, text, len, kernel, extra_args, nextra, err)) != CC_OK)
    return rc;
  w = cc_xcalloc(1, sizeof *w);
  w->m = &m;
  def = m.fns.data[m.kernel].def;
  body = body_of(def);
  find_params(w, def);
  if (!clang_Cursor_isNull(body))
    clang_visitChildren(body, visit, w);
  if (w->too_deep)
    rc = cc_err_set(err, CC_ERR_NO_FIX, "%s: kernel %s nests expressions more than %d deep; "
                    "coalcheck does not rewrite it", path, m.kernel_name, MAX_DEPTH);
  else if ((rc = choose(&m, w, out, err)) == CC_OK)
    rc = rewrite(&m, w, def, out, err);
  release_walk(w);
  free(w);
  cc_cuda_model_release(&m);
  if (rc != CC_OK)
    cc_cuda_soa_release(out);
  return rc;
}

void cc_cuda_soa_release(struct cc_cuda_soa *s)
{
  for (uint32_t i = 0; i < s->nparams; i++) {
    struct cc_cuda_soa_param *p = &s->params[i];
    free(p->name);
    free(p->record);
    free_members(p->members, p->nmembers);
    free(p->lines);
  }
  free(s->params);
  free(s->text);
  memset(s, 0, sizeof *s);
}
