/* The thread-geometry permutation of CGO 2015 (seeds/004, Sec. 4.2) on PTX: candidates,
 * the permuted launch, the rewrite of the special registers in the PTX text, and the
 * legality scan (what makes warp membership observable). See fix_impl.h. */
#include "fix/fix_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

const struct cc_fix_perm cc_fix_perms[6] = {
  {{0, 1, 2}}, {{1, 0, 2}}, {{2, 1, 0}}, {{0, 2, 1}}, {{1, 2, 0}}, {{2, 0, 1}},
};

const char *cc_fix_perm_name(const struct cc_fix_perm *p)
{
  static const char *const names[6] = {"identity", "x<->y", "x<->z", "y<->z",
                                       "x->y->z->x", "x->z->y->x"};
  for (int i = 0; i < 6; i++)
    if (memcmp(p->sigma, cc_fix_perms[i].sigma, sizeof p->sigma) == 0)
      return names[i];
  return "?";
}

/* CUDA's launch limits (CUDA C Programming Guide, "Compute Capabilities", technical
 * specifications; the same for cc 3.0 through 9.0). */
static const uint32_t max_block[3] = {1024, 1024, 64};
static const uint32_t max_grid[3] = {2147483647u, 65535, 65535};

int cc_fix_perm_geometry(const struct cc_fix_perm *p, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t grid_out[3], uint32_t block_out[3],
                         char *why, size_t size)
{
  static const char axis[3] = {'x', 'y', 'z'};
  for (int e = 0; e < 3; e++) {
    grid_out[p->sigma[e]] = grid[e];
    block_out[p->sigma[e]] = block[e];
  }
  for (int d = 0; d < 3; d++) {
    if (block_out[d] > max_block[d]) {
      snprintf(why, size, "the block would be %u threads in %c, above CUDA's limit of %u",
               block_out[d], axis[d], max_block[d]);
      return 0;
    }
    if (grid_out[d] > max_grid[d]) {
      snprintf(why, size, "the grid would be %u CTAs in %c, above CUDA's limit of %u",
               grid_out[d], axis[d], max_grid[d]);
      return 0;
    }
  }
  return 1;
}

/* ---- call graph ---------------------------------------------------------------------- */

/* Marks in seen[] (one per module function) every function reachable from f by direct
 * calls, f included. */
static void mark_reachable(const struct ptx_module *m, const struct ptx_function *f,
                           uint8_t *seen)
{
  uint32_t fi = (uint32_t)(f - m->funcs);
  if (seen[fi])
    return;
  seen[fi] = 1;
  for (uint32_t i = 0; i < f->ninsns; i++)
    if (f->insns[i].op == PTX_OP_CALL && f->insns[i].callee >= 0 &&
        (uint32_t)f->insns[i].callee < m->nfuncs)
      mark_reachable(m, &m->funcs[f->insns[i].callee], seen);
}

static int is_geometry_sreg(const struct ptx_operand *o)
{
  return o->kind == PTX_OPND_SREG &&
         (o->sreg == PTX_SREG_TID || o->sreg == PTX_SREG_NTID || o->sreg == PTX_SREG_CTAID ||
          o->sreg == PTX_SREG_NCTAID);
}

static int reads_geometry(const struct ptx_function *f)
{
  for (uint32_t i = 0; i < f->nopnds; i++)
    if (is_geometry_sreg(&f->opnds[i]))
      return 1;
  return 0;
}

/* A .func of k's call tree that reads the geometry and is reached from another kernel:
 * its index, or -1. */
static int shared_callee(const struct ptx_module *m, const struct ptx_function *k,
                         const uint8_t *mine)
{
  int found = -1;
  uint8_t *other = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, 1);
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].is_entry && &m->funcs[i] != k && m->funcs[i].has_body)
      mark_reachable(m, &m->funcs[i], other);
  for (uint32_t i = 0; i < m->nfuncs && found < 0; i++)
    if (mine[i] && other[i] && &m->funcs[i] != k && reads_geometry(&m->funcs[i]))
      found = (int)i;
  free(other);
  return found;
}

/* ---- the text rewrite ------------------------------------------------------------------ */

/* Line ranges [first, last] of the functions to rewrite: from each one's start line up to
 * the line before the next function of the file. */
struct range { uint32_t first, last; };

static uint32_t end_line(const struct ptx_module *m, uint32_t start)
{
  uint32_t end = UINT32_MAX;
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (m->funcs[i].line > start && m->funcs[i].line - 1 < end)
      end = m->funcs[i].line - 1;
  return end;
}

static int in_ranges(const struct range *r, uint32_t n, uint32_t line)
{
  for (uint32_t i = 0; i < n; i++)
    if (line >= r[i].first && line <= r[i].last)
      return 1;
  return 0;
}

static int ident_char(char c)
{
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* If text[i..] is "%tid.x" (or ntid, ctaid, nctaid) as a whole token, the offset of its
 * component letter; else 0. */
static size_t geometry_component(const char *text, size_t len, size_t i)
{
  static const char *const names[4] = {"%tid.", "%ntid.", "%ctaid.", "%nctaid."};
  if (i > 0 && ident_char(text[i - 1]))
    return 0;
  for (int n = 0; n < 4; n++) {
    size_t l = strlen(names[n]);
    if (i + l < len && memcmp(text + i, names[n], l) == 0 &&
        (text[i + l] == 'x' || text[i + l] == 'y' || text[i + l] == 'z') &&
        (i + l + 1 >= len || !ident_char(text[i + l + 1])))
      return i + l;
  }
  return 0;
}

/* Appends to a growing buffer. */
struct sbuf { char *p; size_t n, cap; };

static void put(struct sbuf *b, const char *s, size_t n)
{
  b->p = cc_xgrow(b->p, &b->cap, b->n + n + 1, 1);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

/* At text[i..] ".reqntid a[, b[, c]]" (a whole directive word): writes the directive
 * with the triple permuted by sigma into repl (size bytes) and returns the offset after
 * its numbers; else 0. (.maxntid bounds the product of the extents: left as it is.) */
static size_t reqntid_end(const char *text, size_t len, size_t i, const int sigma[3],
                          char *repl, size_t size)
{
  static const char word[] = ".reqntid";
  uint64_t v[3] = {1, 1, 1}, w[3];
  size_t j = i + sizeof word - 1;
  int n = 0;
  if (j >= len || memcmp(text + i, word, sizeof word - 1) != 0 || ident_char(text[j]))
    return 0;
  while (n < 3) {
    char *end;
    while (j < len && (text[j] == ' ' || text[j] == '\t'))
      j++;
    if (j >= len || !isdigit((unsigned char)text[j]))
      return 0;
    v[n++] = strtoull(text + j, &end, 10);
    j = (size_t)(end - text);
    while (j < len && (text[j] == ' ' || text[j] == '\t'))
      j++;
    if (j >= len || text[j] != ',')
      break;
    j++;
  }
  for (int e = 0; e < 3; e++)
    w[sigma[e]] = v[e];
  snprintf(repl, size, ".reqntid %llu, %llu, %llu", (unsigned long long)w[0],
           (unsigned long long)w[1], (unsigned long long)w[2]);
  return j;
}

/* Copies text to b, permuting geometry components on the lines of ranges; comments and
 * strings are copied untouched. Returns the number of components rewritten. */
static uint32_t rewrite(const char *text, size_t len, const struct range *r, uint32_t nr,
                        const int sigma[3], struct sbuf *b)
{
  uint32_t line = 1, edits = 0;
  size_t i = 0, copied = 0;
  char repl[96];
  while (i < len) {
    char c = text[i];
    size_t comp, next;
    if (c == '\n') {
      line++;
      i++;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '/') {
      while (i < len && text[i] != '\n')
        i++;
    } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
      for (i += 2; i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'); i++)
        line += text[i] == '\n';
      i = i + 2 < len ? i + 2 : len;
    } else if (c == '"') {
      for (i++; i < len && text[i] != '"' && text[i] != '\n'; i++)
        i += text[i] == '\\';
      i++;
    } else if (c == '%' && in_ranges(r, nr, line) && (comp = geometry_component(text, len, i))) {
      char d = (char)('x' + sigma[text[comp] - 'x']);
      put(b, text + copied, comp - copied);
      put(b, &d, 1);
      copied = comp + 1;
      i = comp + 1;
      edits++;
    } else if (c == '.' && in_ranges(r, nr, line) &&
               (next = reqntid_end(text, len, i, sigma, repl, sizeof repl))) {
      put(b, text + copied, i - copied);
      put(b, repl, strlen(repl));
      copied = i = next;
    } else {
      i++;
    }
  }
  put(b, text + copied, len - copied);
  return edits;
}

int cc_fix_permute_ptx(const char *text, size_t len, const struct ptx_module *m,
                       const struct ptx_function *k, const struct cc_fix_perm *p,
                       char **out, size_t *out_len, struct cc_err *err)
{
  uint8_t *mine = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, 1);
  struct range *r = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, sizeof *r);
  struct sbuf b = {NULL, 0, 0};
  uint32_t nr = 0;
  int shared;
  *out = NULL;
  *out_len = 0;
  mark_reachable(m, k, mine);
  if ((shared = shared_callee(m, k, mine)) >= 0) {
    const struct ptx_function *f = &m->funcs[shared];
    free(mine);
    free(r);
    return cc_err_set(err, CC_ERR_NO_FIX, "%s:%u: function %s reads the thread geometry and "
                      "is called by %s and by another kernel; a permutation for one kernel "
                      "would change the other", m->path, f->line, f->name, k->name);
  }
  for (uint32_t i = 0; i < m->nfuncs; i++)
    if (mine[i] && m->funcs[i].has_body)
      r[nr++] = (struct range){m->funcs[i].line, end_line(m, m->funcs[i].line)};
  rewrite(text, len, r, nr, p->sigma, &b);
  if (!b.p)
    put(&b, "", 0);
  *out = b.p;
  *out_len = b.n;
  free(mine);
  free(r);
  return CC_OK;
}

/* ---- legality ------------------------------------------------------------------------- */

/* What instruction i of f does that depends on warp membership, or NULL. */
static const char *warp_use(const struct ptx_function *f, uint32_t i)
{
  const struct ptx_insn *in = &f->insns[i];
  switch (in->op) {
  case PTX_OP_SHFL: return "a warp shuffle (shfl)";
  case PTX_OP_VOTE: return "a warp vote (vote)";
  case PTX_OP_MATCH: return "a warp match (match)";
  case PTX_OP_REDUX: return "a warp reduction (redux)";
  case PTX_OP_ACTIVEMASK: return "activemask";
  case PTX_OP_ELECT: return "elect.sync";
  case PTX_OP_MMA: case PTX_OP_WMMA: case PTX_OP_WGMMA: case PTX_OP_LDMATRIX:
  case PTX_OP_STMATRIX: case PTX_OP_MOVMATRIX:
    return "a warp-level matrix operation";
  case PTX_OP_BAR:
    if (in->opcode_text && strncmp(in->opcode_text, "bar.warp", 8) == 0)
      return "a warp barrier (bar.warp.sync, __syncwarp)";
    break;
  case PTX_OP_LD: case PTX_OP_ST:
    if ((in->flags & PTX_F_VOLATILE) && in->space == PTX_SPACE_SHARED)
      return "a volatile shared-memory access (warp-synchronous code)";
    break;
  default:
    break;
  }
  for (uint32_t o = 0; o < in->nopnds; o++) {
    const struct ptx_operand *op = &f->opnds[in->opnd + o];
    if (op->kind != PTX_OPND_SREG)
      continue;
    switch (op->sreg) {
    case PTX_SREG_LANEID: return "%laneid";
    case PTX_SREG_WARPID: return "%warpid";
    case PTX_SREG_LANEMASK_EQ: case PTX_SREG_LANEMASK_LT: case PTX_SREG_LANEMASK_LE:
    case PTX_SREG_LANEMASK_GT: case PTX_SREG_LANEMASK_GE:
      return "a lane mask register (%lanemask_*)";
    default:
      break;
    }
  }
  return NULL;
}

int cc_fix_warp_dependent(const struct ptx_module *m, const struct ptx_function *k,
                          const struct ptx_function **f_out, uint32_t *insn_out,
                          char *what, size_t size)
{
  uint8_t *mine = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, 1);
  int found = 0;
  mark_reachable(m, k, mine);
  for (uint32_t fi = 0; fi < m->nfuncs && !found; fi++) {
    const struct ptx_function *f = &m->funcs[fi];
    if (!mine[fi])
      continue;
    for (uint32_t i = 0; i < f->ninsns && !found; i++) {
      const char *w = warp_use(f, i);
      if (w) {
        *f_out = f;
        *insn_out = i;
        snprintf(what, size, "%s", w);
        found = 1;
      }
    }
  }
  free(mine);
  return found;
}

int cc_fix_uses_atomics(const struct ptx_module *m, const struct ptx_function *k)
{
  uint8_t *mine = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, 1);
  int found = 0;
  mark_reachable(m, k, mine);
  for (uint32_t fi = 0; fi < m->nfuncs && !found; fi++)
    for (uint32_t i = 0; mine[fi] && i < m->funcs[fi].ninsns && !found; i++)
      found = m->funcs[fi].insns[i].op == PTX_OP_ATOM || m->funcs[fi].insns[i].op == PTX_OP_RED;
  free(mine);
  return found;
}

/* ---- reshaping the block ------------------------------------------------------------- */

/* Registers of f written by instruction i (its destination operands): first operand,
 * and a second one written "d|p". Returns how many (0..2) into out. */
static int dests(const struct ptx_function *f, uint32_t i, int32_t out[2])
{
  const struct ptx_insn *in = &f->insns[i];
  int n = 0;
  if (in->op == PTX_OP_ST || in->op == PTX_OP_RED || in->op == PTX_OP_BRA ||
      in->op == PTX_OP_BAR || in->op == PTX_OP_RET || in->op == PTX_OP_EXIT ||
      in->op == PTX_OP_CALL || in->nopnds == 0)
    return 0;
  if (f->opnds[in->opnd].kind == PTX_OPND_REG)
    out[n++] = f->opnds[in->opnd].reg;
  if (in->nopnds > 1 && f->opnds[in->opnd + 1].pipe && f->opnds[in->opnd + 1].kind == PTX_OPND_REG)
    out[n++] = f->opnds[in->opnd + 1].reg;
  return n;
}

/* Whether register r is read by instruction i (any operand but its destinations; vector
 * and address operands included; the guard too). */
static int reads_reg(const struct ptx_function *f, uint32_t i, int32_t r)
{
  const struct ptx_insn *in = &f->insns[i];
  int32_t d[2];
  int nd = dests(f, i, d);
  if (in->guard == r)
    return 1;
  for (uint32_t o = (uint32_t)nd; o < in->nopnds; o++) {
    const struct ptx_operand *op = &f->opnds[in->opnd + o];
    if ((op->kind == PTX_OPND_REG || op->kind == PTX_OPND_ADDR) && op->reg == r)
      return 1;
    if (op->kind == PTX_OPND_VEC)
      for (int32_t v = 0; v < op->count; v++)
        if (f->opnds[op->first + v].kind == PTX_OPND_REG && f->opnds[op->first + v].reg == r)
          return 1;
  }
  return 0;
}

/* The register that `mov r, %sreg.d` defines, when r is defined exactly once in f; -1
 * otherwise. */
static int32_t single_def(const struct ptx_function *f, uint32_t i)
{
  int32_t d[2], r;
  uint32_t defs = 0;
  if (f->insns[i].op != PTX_OP_MOV || dests(f, i, d) != 1)
    return -1;
  r = d[0];
  for (uint32_t j = 0; j < f->ninsns; j++) {
    int32_t e[2];
    int n = dests(f, j, e);
    for (int k = 0; k < n; k++)
      defs += e[k] == r;
  }
  return defs == 1 ? r : -1;
}

/* The one instruction reading r, or -1 when none or several do. */
static int64_t single_use(const struct ptx_function *f, int32_t r)
{
  int64_t use = -1;
  for (uint32_t j = 0; j < f->ninsns; j++)
    if (reads_reg(f, j, r)) {
      if (use >= 0)
        return -1;
      use = j;
    }
  return use;
}

/* The component (0..2) of the %ctaid/%ntid/%tid that register operand o was moved from,
 * or -1. */
static int geometry_comp_of(const struct ptx_function *f, const struct ptx_operand *o)
{
  if (o->kind != PTX_OPND_REG)
    return -1;
  for (uint32_t j = 0; j < f->ninsns; j++) {
    const struct ptx_insn *in = &f->insns[j];
    int32_t d[2];
    if (in->op == PTX_OP_MOV && dests(f, j, d) == 1 && d[0] == o->reg && in->nopnds == 2 &&
        is_geometry_sreg(&f->opnds[in->opnd + 1]))
      return f->opnds[in->opnd + 1].comp;
  }
  return -1;
}

int cc_fix_reshape_legal(const struct ptx_module *m, const struct ptx_function *k, char *why,
                         size_t size)
{
  uint8_t *mine = cc_xcalloc(m->nfuncs ? m->nfuncs : 1, 1);
  int ok = 1;
  mark_reachable(m, k, mine);
  for (uint32_t fi = 0; fi < m->nfuncs && ok; fi++) {
    const struct ptx_function *f = &m->funcs[fi];
    if (!mine[fi])
      continue;
    if (f != k && reads_geometry(f)) {
      snprintf(why, size, "function %s reads the thread geometry", f->name);
      ok = 0;
    }
    for (uint32_t i = 0; i < f->ninsns && ok; i++) {
      const struct ptx_insn *in = &f->insns[i];
      if (in->op == PTX_OP_BAR || in->op == PTX_OP_BARRIER ||
          ((in->op == PTX_OP_LD || in->op == PTX_OP_ST || in->op == PTX_OP_ATOM ||
            in->op == PTX_OP_RED) && in->space == PTX_SPACE_SHARED)) {
        snprintf(why, size, "PTX line %u: shared memory or a barrier ties threads to their CTA",
                 in->line);
        ok = 0;
      }
    }
  }
  /* each %ctaid.d, %ntid.d, %tid.d read once, by a mov whose register feeds exactly one
   * mad.lo that forms ctaid.d * ntid.d + tid.d; no %nctaid */
  for (uint32_t i = 0; i < k->ninsns && ok; i++) {
    const struct ptx_insn *in = &k->insns[i];
    for (uint32_t o = 0; o < in->nopnds && ok; o++) {
      const struct ptx_operand *op = &k->opnds[in->opnd + o];
      int32_t r;
      int64_t use;
      if (!is_geometry_sreg(op))
        continue;
      if (op->sreg == PTX_SREG_NCTAID || (r = single_def(k, i)) < 0 ||
          (use = single_use(k, r)) < 0 || k->insns[use].op != PTX_OP_MAD ||
          k->insns[use].mode != PTX_MODE_LO) {
        snprintf(why, size, "PTX line %u: %s.%c is used other than in the global index "
                 "blockIdx * blockDim + threadIdx", in->line, ptx_sreg_name(op->sreg),
                 "xyz"[op->comp]);
        ok = 0;
        break;
      }
      /* the mad's operands: d, a, b, c; %tid.d must be c, the others a and b, all three
       * of dimension d */
      {
        const struct ptx_insn *mad = &k->insns[use];
        const struct ptx_operand *c = &k->opnds[mad->opnd + 3];
        int is_tid = op->sreg == PTX_SREG_TID, same_dim = 1;
        for (uint32_t x = 1; x <= 3 && mad->nopnds == 4; x++)
          same_dim &= geometry_comp_of(k, &k->opnds[mad->opnd + x]) == op->comp;
        if ((c->kind == PTX_OPND_REG && c->reg == r) != is_tid || !same_dim) {
          snprintf(why, size, "PTX line %u: %s.%c is not combined as blockIdx * blockDim + "
                   "threadIdx", mad->line, ptx_sreg_name(op->sreg), "xyz"[op->comp]);
          ok = 0;
        }
      }
    }
  }
  free(mine);
  return ok;
}

/* Largest power of two dividing both a and b, at most cap. */
static uint32_t pow2_divisor(uint64_t a, uint64_t b, uint32_t cap)
{
  uint32_t d = 1;
  while (d * 2 <= cap && a % (d * 2) == 0 && b % (d * 2) == 0)
    d *= 2;
  return d;
}

int cc_fix_reshape(const uint32_t grid[3], const uint32_t block[3], uint32_t grid_out[3],
                   uint32_t block_out[3])
{
  uint64_t extent[3], threads = (uint64_t)block[0] * block[1] * block[2], left;
  for (int d = 0; d < 3; d++)
    extent[d] = (uint64_t)grid[d] * block[d];
  /* x as wide as possible (a warp along x), then y, then z */
  block_out[0] = pow2_divisor(extent[0], threads, 1024);
  left = threads / block_out[0];
  block_out[1] = pow2_divisor(extent[1], left, 1024);
  left /= block_out[1];
  block_out[2] = (uint32_t)left;
  if ((uint64_t)block_out[0] * block_out[1] * block_out[2] != threads || block_out[2] > 64 ||
      extent[2] % block_out[2] != 0)
    return 0;
  for (int d = 0; d < 3; d++) {
    if (extent[d] / block_out[d] > max_grid[d])
      return 0;
    grid_out[d] = (uint32_t)(extent[d] / block_out[d]);
  }
  return memcmp(block_out, block, 3 * sizeof *block) != 0;
}

/* Whether f is straight-line code that never waits on another thread: no backward branch
 * (a loop), no call, no atomic, volatile access or fence. */
static int plays_body_ok(const struct ptx_function *f)
{
  for (uint32_t i = 0; i < f->ninsns; i++) {
    const struct ptx_insn *in = &f->insns[i];
    if (in->op == PTX_OP_CALL || in->op == PTX_OP_ATOM || in->op == PTX_OP_RED ||
        in->op == PTX_OP_MEMBAR || in->op == PTX_OP_FENCE || (in->flags & PTX_F_VOLATILE))
      return 0;
    for (uint32_t o = 0; in->op == PTX_OP_BRA && o < in->nopnds; o++) {
      const struct ptx_operand *t = &f->opnds[in->opnd + o];
      if (t->kind == PTX_OPND_LABEL && (uint32_t)t->target <= i)
        return 0;
    }
  }
  return 1;
}

uint32_t cc_fix_plays(const struct ptx_function *k, const uint32_t grid[3])
{
  uint64_t ctas = (uint64_t)grid[0] * grid[1] * grid[2];
  if (grid[1] % CC_FIX_PLAYS != 0 || ctas / CC_FIX_PLAYS < CC_FIX_PLAYS_MIN_CTAS ||
      !plays_body_ok(k))
    return 1;
  return CC_FIX_PLAYS;
}
