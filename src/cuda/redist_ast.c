/* coalcheck CUDA front end: the small questions the reduction redistribution (redist.c)
 * asks of libclang's cursors — an expression's bytes and operator, whether it writes,
 * whether an lvalue is the thread's own or shared memory, what a call reaches, where a
 * statement ends. Declared in internal.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/internal.h"

static enum CXCursorKind kind(CXCursor c)
{
  return clang_getCursorKind(c);
}

/* c without parentheses and implicit conversions (libclang's UnexposedExpr of one child). */
CXCursor cc_cuda_rd_strip(CXCursor c)
{
  CXCursor k;
  for (int i = 0; i < 64; i++) {
    enum CXCursorKind ck = kind(c);
    if ((ck != CXCursor_ParenExpr && ck != CXCursor_UnexposedExpr) ||
        cc_cuda_children(c, &k, 1) != 1)
      break;
    c = k;
  }
  return c;
}

/* The bytes of c in the input, outside any macro expansion (so that they can be edited
 * or copied); 0 when c is not written so. */
int cc_cuda_rd_bytes(const struct cc_cuda_model *m, CXCursor c, unsigned *b, unsigned *e)
{
  return cc_cuda_tu_extent(&m->tu, c, b, e) && !cc_cuda_model_expansion_at(m, *b) &&
         cc_cuda_model_whole(m, *b, *e);
}

/* The bytes [b, e) without white space (owned). */
char *cc_cuda_rd_squeeze(const char *text, unsigned b, unsigned e)
{
  char *s = cc_xmalloc(e - b + 1), *p = s;
  for (unsigned i = b; i < e; i++)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
      *p++ = text[i];
  *p = '\0';
  return s;
}

/* The operator token of c (cc_cuda_operator), or NULL where c is not written in the
 * input itself (inside a macro expansion, which the rewrite could not edit). Owned. */
char *cc_cuda_rd_operator(const struct cc_cuda_model *m, CXCursor c, CXCursor lhs)
{
  unsigned b, e;
  if (!cc_cuda_rd_bytes(m, c, &b, &e) ||
      (!clang_Cursor_isNull(lhs) && !cc_cuda_rd_bytes(m, lhs, &b, &e)))
    return NULL;
  return cc_cuda_operator(&m->tu, c, lhs);
}

int cc_cuda_rd_op_is(const struct cc_cuda_model *m, CXCursor c, CXCursor lhs, const char *want)
{
  char *op = cc_cuda_rd_operator(m, c, lhs);
  int yes = op && strcmp(op, want) == 0;
  free(op);
  return yes;
}

int cc_cuda_rd_is_assignment(enum CXCursorKind k)
{
  return k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator ||
         k == CXCursor_UnaryOperator;
}

/* 1 when operator expression c writes its first operand (=, op=, ++, --); *target gets it. */
int cc_cuda_rd_writes(const struct cc_cuda_model *m, CXCursor c, CXCursor *target)
{
  CXCursor kids[2];
  unsigned n = cc_cuda_children(c, kids, 2);
  if (kind(c) == CXCursor_CompoundAssignOperator && n == 2) {
    *target = kids[0];
    return 1;
  }
  if (kind(c) == CXCursor_BinaryOperator && n == 2 && cc_cuda_rd_op_is(m, c, kids[0], "=")) {
    *target = kids[0];
    return 1;
  }
  if (kind(c) == CXCursor_UnaryOperator && n == 1) {
    char *op = cc_cuda_rd_operator(m, c, clang_getNullCursor());
    int yes = op && (strcmp(op, "++") == 0 || strcmp(op, "--") == 0);
    free(op);
    *target = kids[0];
    return yes;
  }
  return 0;
}

int cc_cuda_rd_integer(enum CXTypeKind k)
{
  return k == CXType_Int || k == CXType_UInt || k == CXType_Long || k == CXType_ULong ||
         k == CXType_LongLong || k == CXType_ULongLong;
}

int cc_cuda_rd_float(enum CXTypeKind k)
{
  return k == CXType_Float || k == CXType_Double;
}

int cc_cuda_rd_any_integer(enum CXTypeKind k)
{
  return cc_cuda_rd_integer(k) || k == CXType_Short || k == CXType_UShort || k == CXType_Char_S ||
         k == CXType_Char_U || k == CXType_SChar || k == CXType_UChar || k == CXType_Bool;
}

enum CXTypeKind cc_cuda_rd_type_kind(CXCursor c)
{
  return clang_getCanonicalType(clang_getCursorType(c)).kind;
}

struct attr_find {
  enum CXCursorKind want;
  int found;
};

static enum CXChildVisitResult attr_visit(CXCursor c, CXCursor parent, CXClientData data)
{
  struct attr_find *a = data;
  (void)parent;
  if (kind(c) == a->want)
    a->found = 1;
  return CXChildVisit_Continue;
}

int cc_cuda_rd_has_attr(CXCursor c, enum CXCursorKind attr)
{
  struct attr_find a = {attr, 0};
  clang_visitChildren(c, attr_visit, &a);
  return a.found;
}

/* 1 when variable d lives in a thread's registers or local memory: a parameter, or a
 * variable of a function's body that is neither static nor __shared__. */
int cc_cuda_rd_private(CXCursor d)
{
  enum CXCursorKind pk;
  if (kind(d) == CXCursor_ParmDecl)
    return 1;
  if (kind(d) != CXCursor_VarDecl || cc_cuda_rd_has_attr(d, CXCursor_CUDASharedAttr) ||
      clang_Cursor_getStorageClass(d) == CX_SC_Static ||
      clang_Cursor_getStorageClass(d) == CX_SC_Extern)
    return 0;
  pk = kind(clang_getCursorSemanticParent(d));
  return pk == CXCursor_FunctionDecl || pk == CXCursor_FunctionTemplate ||
         pk == CXCursor_CXXMethod;
}

/* 1 when lvalue c names memory every lane shares (a global, a pointer's target, shared
 * memory); 0 when it lies in the thread's own variables (a local scalar, a local array's
 * element, a member of a local struct). */
int cc_cuda_rd_shared_lvalue(CXCursor c)
{
  for (int i = 0; i < 64; i++) {
    CXCursor kids[2];
    unsigned n;
    c = cc_cuda_rd_strip(c);
    n = cc_cuda_children(c, kids, 2);
    switch (kind(c)) {
    case CXCursor_DeclRefExpr:
      return !cc_cuda_rd_private(clang_getCursorReferenced(c));
    case CXCursor_ArraySubscriptExpr:
      if (n != 2 || clang_getCanonicalType(clang_getCursorType(cc_cuda_rd_strip(kids[0]))).kind !=
                        CXType_ConstantArray)
        return 1;
      c = kids[0];
      break;
    case CXCursor_MemberRefExpr:
      if (n < 1 || clang_getCanonicalType(clang_getCursorType(kids[0])).kind == CXType_Pointer)
        return 1;
      c = kids[0];
      break;
    default:
      return 1;
    }
  }
  return 1;
}

/* The offset of c's location in the input (0 when elsewhere). */
unsigned cc_cuda_rd_off(const struct cc_cuda_model *m, CXCursor c)
{
  unsigned off = 0;
  cc_cuda_tu_off(&m->tu, clang_getCursorLocation(c), &off);
  return off;
}

/* The name of the function a call reaches (owned), or NULL. */
char *cc_cuda_rd_callee(CXCursor call)
{
  CXCursor f = cc_cuda_fn_target(call);
  return clang_Cursor_isNull(f) ? NULL : cc_cuda_spelling(f);
}

int cc_cuda_rd_barrier(const char *name)
{
  return strncmp(name, "__syncthreads", 13) == 0 || strcmp(name, "__barrier_sync") == 0;
}

int cc_cuda_rd_warp_op(const char *name)
{
  return strncmp(name, "__shfl", 6) == 0 || strncmp(name, "__ballot", 8) == 0 ||
         strncmp(name, "__all", 5) == 0 || strncmp(name, "__any", 5) == 0 ||
         strncmp(name, "__uni", 5) == 0 || strncmp(name, "__match", 7) == 0 ||
         strncmp(name, "__reduce", 8) == 0 || strcmp(name, "__activemask") == 0 ||
         strcmp(name, "__syncwarp") == 0;
}

int cc_cuda_rd_atomic(const char *name)
{
  return strncmp(name, "atomic", 6) == 0 || strncmp(name, "__atomic", 8) == 0;
}

/* The model's function that call c reaches, or -1. */
int cc_cuda_rd_model_fn(const struct cc_cuda_model *m, CXCursor call)
{
  CXCursor f = cc_cuda_fn_target(call), t;
  char *usr;
  int found = -1;
  if (clang_Cursor_isNull(f))
    return -1;
  t = clang_getSpecializedCursorTemplate(f);
  usr = cc_cuda_str(clang_getCursorUSR(clang_Cursor_isNull(t) ? f : t));
  for (size_t i = 0; i < m->fns.len && found < 0; i++)
    if (strcmp(m->fns.data[i].usr, usr) == 0)
      found = (int)i;
  free(usr);
  return found;
}

/* Reads the end of statement c: its extent, and the `;` that follows an expression or a
 * jump (clang's extent stops before it). */
unsigned cc_cuda_rd_statement_end(const struct cc_cuda_model *m, CXCursor c, unsigned e)
{
  enum CXCursorKind k = kind(c);
  CXCursor kids[5];
  unsigned n;
  const char *t = m->tu.text;
  if (k == CXCursor_CompoundStmt || k == CXCursor_DeclStmt)
    return e;
  n = cc_cuda_children(c, kids, 5);
  if ((k == CXCursor_ForStmt || k == CXCursor_WhileStmt || k == CXCursor_IfStmt ||
       k == CXCursor_LabelStmt || k == CXCursor_CXXForRangeStmt) && n > 0 && n <= 5)
    return cc_cuda_rd_statement_end(m, kids[n - 1], e);
  for (unsigned i = e; i < m->tu.len; i++) {
    if (t[i] == ';')
      return i + 1;
    if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
      break;
  }
  return e;
}

