/* The control-flow graph of a function body: basic blocks, dominators (Cooper, Harvey and
 * Kennedy, "A Simple, Fast Dominance Algorithm", 2001: the iterative algorithm over
 * reverse post-order) and natural loops (Aho, Lam, Sethi and Ullman, "Compilers", 2nd
 * ed., Sec. 9.6.6: a back edge q -> h where h dominates q; the loop is h and every block
 * that reaches q without passing through h). */
#include <string.h>

#include "affine/affine_impl.h"

/* Opcodes whose first operand is never a register they write. */
static int writes_nothing(const struct ptx_insn *in)
{
  switch (in->op) {
  case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BRA: case PTX_OP_RET: case PTX_OP_EXIT:
  case PTX_OP_CALL: case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_MEMBAR:
  case PTX_OP_FENCE: case PTX_OP_TRAP: case PTX_OP_BRKPT: case PTX_OP_NANOSLEEP:
  case PTX_OP_PMEVENT: case PTX_OP_SUST: case PTX_OP_SURED: case PTX_OP_STMATRIX:
  case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY: case PTX_OP_SETMAXNREG:
  case PTX_OP_STACKRESTORE: case PTX_OP_GRIDDEPCONTROL: case PTX_OP_CP:
    return 1;
  case PTX_OP_BAR: case PTX_OP_BARRIER:
    return in->mode != PTX_MODE_RED;
  default:
    return 0;
  }
}

static int operand_writes(const struct ptx_function *f, const struct ptx_operand *o, int32_t r)
{
  if (o->kind == PTX_OPND_REG)
    return o->reg == r;
  if (o->kind == PTX_OPND_VEC)
    for (int32_t k = 0; k < o->count; k++) {
      const struct ptx_operand *e = &f->opnds[o->first + k];
      if (e->kind == PTX_OPND_REG && e->reg == r)
        return 1;
    }
  return 0;
}

int aff_insn_writes(const struct ptx_function *f, uint32_t i, int32_t r)
{
  const struct ptx_insn *in = &f->insns[i];
  const struct ptx_operand *o;
  if (in->nopnds == 0 || writes_nothing(in))
    return 0;
  o = &f->opnds[in->opnd];
  if (operand_writes(f, o, r))
    return 1;
  /* "d|p": the second destination is the operand after the first, marked pipe */
  return in->nopnds > 1 && o[1].pipe && operand_writes(f, &o[1], r);
}

/* Marks in bits every register instruction i writes. */
static void mark_writes(const struct ptx_function *f, uint32_t i, uint8_t *bits)
{
  const struct ptx_insn *in = &f->insns[i];
  if (in->nopnds == 0 || writes_nothing(in))
    return;
  for (uint32_t k = 0; k < 2 && k < in->nopnds; k++) {
    const struct ptx_operand *o = &f->opnds[in->opnd + k];
    if (k == 1 && !o->pipe)
      break;
    if (o->kind == PTX_OPND_REG && o->reg >= 0)
      bits[o->reg / 8] |= (uint8_t)(1u << (o->reg % 8));
    else if (o->kind == PTX_OPND_VEC)
      for (int32_t e = 0; e < o->count; e++) {
        const struct ptx_operand *x = &f->opnds[o->first + e];
        if (x->kind == PTX_OPND_REG && x->reg >= 0)
          bits[x->reg / 8] |= (uint8_t)(1u << (x->reg % 8));
      }
  }
}

static int ends_block(const struct ptx_insn *in)
{
  return in->op == PTX_OP_BRA || in->op == PTX_OP_RET || in->op == PTX_OP_EXIT ||
         in->op == PTX_OP_TRAP;
}

/* The label target of a bra, or -1. */
static int64_t branch_target(const struct ptx_function *f, const struct ptx_insn *in)
{
  for (uint32_t k = 0; k < in->nopnds; k++)
    if (f->opnds[in->opnd + k].kind == PTX_OPND_LABEL)
      return f->opnds[in->opnd + k].target;
  return -1;
}

static void split_blocks(struct aff_arena *ar, const struct ptx_function *f, struct aff_cfg *g)
{
  uint8_t *leader = aff_alloc(ar, f->ninsns + 1);
  uint32_t n = 0;
  leader[0] = 1;
  for (uint32_t i = 0; i < f->ninsns; i++) {
    const struct ptx_insn *in = &f->insns[i];
    int64_t t;
    if (ends_block(in))
      leader[i + 1] = 1;
    if (in->op == PTX_OP_BRA && (t = branch_target(f, in)) >= 0 && t <= f->ninsns)
      leader[t] = 1;
  }
  for (uint32_t i = 0; i < f->ninsns; i++)
    n += leader[i];
  g->blocks = aff_alloc(ar, (n ? n : 1) * sizeof *g->blocks);
  g->block_of = aff_alloc(ar, (f->ninsns + 1) * sizeof *g->block_of);
  g->nblocks = 0;
  for (uint32_t i = 0; i < f->ninsns; i++) {
    if (leader[i]) {
      if (g->nblocks)
        g->blocks[g->nblocks - 1].end = i;
      g->blocks[g->nblocks].first = i;
      g->nblocks++;
    }
    g->block_of[i] = g->nblocks - 1;
  }
  if (g->nblocks)
    g->blocks[g->nblocks - 1].end = f->ninsns;
}

static void link_blocks(struct aff_arena *ar, const struct ptx_function *f, struct aff_cfg *g)
{
  uint32_t *count = aff_alloc(ar, (g->nblocks + 1) * sizeof *count);
  for (uint32_t b = 0; b < g->nblocks; b++) {
    struct aff_block *bl = &g->blocks[b];
    const struct ptx_insn *last = &f->insns[bl->end - 1];
    int falls = bl->end < f->ninsns;
    bl->nsucc = 0;
    if (last->op == PTX_OP_BRA) {
      int64_t t = branch_target(f, last);
      if (t >= 0 && t < f->ninsns)
        bl->succ[bl->nsucc++] = g->block_of[t];
      falls = falls && last->guard >= 0;
    } else if (last->op == PTX_OP_RET || last->op == PTX_OP_EXIT || last->op == PTX_OP_TRAP) {
      falls = falls && last->guard >= 0;
    }
    if (falls && !(bl->nsucc == 1 && bl->succ[0] == g->block_of[bl->end]))
      bl->succ[bl->nsucc++] = g->block_of[bl->end];
    for (uint32_t s = 0; s < bl->nsucc; s++)
      count[bl->succ[s]]++;
  }
  for (uint32_t b = 0; b < g->nblocks; b++) {
    g->blocks[b].preds = aff_alloc(ar, (count[b] ? count[b] : 1) * sizeof(uint32_t));
    g->blocks[b].npreds = 0;
  }
  for (uint32_t b = 0; b < g->nblocks; b++)
    for (uint32_t s = 0; s < g->blocks[b].nsucc; s++) {
      struct aff_block *to = &g->blocks[g->blocks[b].succ[s]];
      to->preds[to->npreds++] = b;
    }
}

/* Reverse post-order from the entry (iterative depth-first search); order[k] = block. */
static uint32_t reverse_post_order(struct aff_arena *ar, struct aff_cfg *g, uint32_t *order)
{
  uint32_t *stack = aff_alloc(ar, (g->nblocks + 1) * sizeof *stack);
  uint8_t *next = aff_alloc(ar, g->nblocks + 1); /* successors visited so far */
  uint8_t *seen = aff_alloc(ar, g->nblocks + 1);
  uint32_t sp = 0, post = 0, n;
  for (uint32_t b = 0; b < g->nblocks; b++)
    g->blocks[b].rpo = UINT32_MAX;
  stack[sp++] = 0;
  seen[0] = 1;
  while (sp) {
    uint32_t b = stack[sp - 1];
    if (next[b] < g->blocks[b].nsucc) {
      uint32_t s = g->blocks[b].succ[next[b]++];
      if (!seen[s]) {
        seen[s] = 1;
        stack[sp++] = s;
      }
    } else {
      order[post++] = b; /* post-order for now */
      sp--;
    }
  }
  n = post;
  for (uint32_t k = 0; k < n / 2; k++) {
    uint32_t t = order[k];
    order[k] = order[n - 1 - k];
    order[n - 1 - k] = t;
  }
  for (uint32_t k = 0; k < n; k++)
    g->blocks[order[k]].rpo = k;
  return n;
}

static uint32_t intersect(const struct aff_cfg *g, uint32_t a, uint32_t b)
{
  while (a != b) {
    while (g->blocks[a].rpo > g->blocks[b].rpo)
      a = (uint32_t)g->blocks[a].idom;
    while (g->blocks[b].rpo > g->blocks[a].rpo)
      b = (uint32_t)g->blocks[b].idom;
  }
  return a;
}

static void dominators(struct aff_arena *ar, struct aff_cfg *g)
{
  uint32_t *order = aff_alloc(ar, (g->nblocks + 1) * sizeof *order);
  uint32_t n = reverse_post_order(ar, g, order);
  int changed = 1;
  for (uint32_t b = 0; b < g->nblocks; b++)
    g->blocks[b].idom = -1;
  g->blocks[0].idom = 0;
  while (changed) {
    changed = 0;
    for (uint32_t k = 1; k < n; k++) {
      struct aff_block *bl = &g->blocks[order[k]];
      int64_t nd = -1;
      for (uint32_t p = 0; p < bl->npreds; p++) {
        uint32_t q = bl->preds[p];
        if (g->blocks[q].idom < 0)
          continue;
        nd = nd < 0 ? q : intersect(g, (uint32_t)nd, q);
      }
      if (nd >= 0 && bl->idom != nd) {
        bl->idom = (int32_t)nd;
        changed = 1;
      }
    }
  }
  g->blocks[0].idom = -1;
}

static int dominates(const struct aff_cfg *g, uint32_t h, uint32_t b)
{
  if (g->blocks[b].rpo == UINT32_MAX)
    return 0;
  for (;;) {
    if (b == h)
      return 1;
    if (g->blocks[b].idom < 0)
      return 0;
    b = (uint32_t)g->blocks[b].idom;
  }
}

/* The body of the loop with header h and the given latches: h and every block that
 * reaches a latch without passing through h. */
static void loop_body(struct aff_arena *ar, const struct aff_cfg *g, struct aff_loop *l)
{
  uint32_t *work = aff_alloc(ar, (g->nblocks + 1) * sizeof *work), n = 0;
  l->body = aff_alloc(ar, g->nblocks);
  l->body[l->header] = 1;
  for (uint32_t k = 0; k < l->nlatches; k++)
    if (!l->body[l->latches[k]]) {
      l->body[l->latches[k]] = 1;
      work[n++] = l->latches[k];
    }
  while (n) {
    const struct aff_block *b = &g->blocks[work[--n]];
    for (uint32_t p = 0; p < b->npreds; p++)
      if (!l->body[b->preds[p]] && g->blocks[b->preds[p]].rpo != UINT32_MAX) {
        l->body[b->preds[p]] = 1;
        work[n++] = b->preds[p];
      }
  }
}

static void find_loops(struct aff_arena *ar, const struct ptx_function *f, struct aff_cfg *g)
{
  uint32_t *size;
  g->nloops = 0;
  g->loops = aff_alloc(ar, (g->nblocks + 1) * sizeof *g->loops);
  for (uint32_t h = 0; h < g->nblocks; h++) {
    struct aff_block *hb = &g->blocks[h];
    struct aff_loop *l = &g->loops[g->nloops];
    hb->header_of = -1;
    for (uint32_t p = 0; p < hb->npreds; p++)
      if (dominates(g, h, hb->preds[p])) {
        if (!l->latches)
          l->latches = aff_alloc(ar, hb->npreds * sizeof *l->latches);
        l->latches[l->nlatches++] = hb->preds[p];
      }
    if (!l->nlatches)
      continue;
    l->header = h;
    hb->header_of = (int32_t)g->nloops++;
    loop_body(ar, g, l);
  }
  size = aff_alloc(ar, (g->nloops + 1) * sizeof *size);
  for (uint32_t l = 0; l < g->nloops; l++)
    for (uint32_t b = 0; b < g->nblocks; b++)
      size[l] += g->loops[l].body[b];
  /* innermost loop of a block and parent of a loop: the smallest loop containing it */
  for (uint32_t b = 0; b < g->nblocks; b++) {
    g->blocks[b].loop = -1;
    for (uint32_t l = 0; l < g->nloops; l++)
      if (g->loops[l].body[b] &&
          (g->blocks[b].loop < 0 || size[l] < size[g->blocks[b].loop]))
        g->blocks[b].loop = (int32_t)l;
  }
  for (uint32_t l = 0; l < g->nloops; l++) {
    struct aff_loop *lp = &g->loops[l];
    lp->parent = -1;
    for (uint32_t o = 0; o < g->nloops; o++)
      if (o != l && g->loops[o].body[lp->header] && size[o] > size[l] &&
          (lp->parent < 0 || size[o] < size[lp->parent]))
        lp->parent = (int32_t)o;
    lp->defines = aff_alloc(ar, f->nregs / 8 + 1);
    for (uint32_t b = 0; b < g->nblocks; b++)
      if (lp->body[b])
        for (uint32_t i = g->blocks[b].first; i < g->blocks[b].end; i++)
          mark_writes(f, i, lp->defines);
  }
}

void aff_cfg_build(struct aff_arena *ar, const struct ptx_function *f, struct aff_cfg *g)
{
  memset(g, 0, sizeof *g);
  if (f->ninsns == 0) {
    g->block_of = aff_alloc(ar, sizeof *g->block_of);
    return;
  }
  split_blocks(ar, f, g);
  link_blocks(ar, f, g);
  dominators(ar, g);
  find_loops(ar, f, g);
}
