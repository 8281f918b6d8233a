/* Why no permutation of the thread geometry helps: the one-line reason of the
 * permutation's refusal (CGO 2015 Sec. 4.2), from the measured figures and, where those
 * mislead, the static address forms of src/affine. See fix_impl.h. */
#include "fix/fix_impl.h"

#include <stdio.h>
#include <string.h>

#include "affine/affine.h"
#include "report/report.h"

/* p->worst_note: what the static form of the worst access (the report's first) says
 * that the advice made from the dynamic figures alone (the fix's measurement has no
 * forms) gets wrong: an address that depends on data (a gather or scatter through loaded
 * indices, a histogram's bin), which no order of the threads makes regular; a unit
 * stride along x in a block narrower than a warp (16 x 4: two rows a warp), where the
 * dynamic advice would swap x and y. */
static void worst_note(const struct cc_fix_opts *o, const struct cc_affine_kernel *ak,
                       const struct cc_affine_env *env, const struct cc_kernel_stats *b,
                       struct cc_fix_plan *p)
{
  char line[24];
  p->worst_note[0] = '\0';
  if (!b->n_insns || b->insns[0].info.space != CC_SPACE_GLOBAL)
    return;
  cc_report_line_name(b->insns[0].source.line, line, sizeof line);
  for (uint32_t i = 0; i < ak->naccesses; i++) {
    const struct cc_affine_access *a = &ak->accesses[i];
    int64_t sx;
    if (a->insn != b->insns[0].info.id)
      continue;
    if (a->status == CC_AFFINE_INDIRECT)
      snprintf(p->worst_note, sizeof p->worst_note, "its worst access is the %s at %s, whose "
               "lanes touch data-dependent elements (%.120s): no order of the threads or of "
               "a loop makes them regular; order the data or the indices so that neighbouring "
               "threads use neighbouring elements, or accumulate per CTA in shared memory "
               "(privatisation)", cc_access_kind_name(b->insns[0].info.kind), line,
               a->why ? a->why : "the address depends on a loaded value");
    else if (a->status == CC_AFFINE_OK && o->block[0] < 32 && o->block[1] * o->block[2] > 1 &&
             cc_affine_coeff(a, env, CC_AFFINE_TID, 0, &sx) && sx != 0 &&
             (uint64_t)(sx < 0 ? -sx : sx) <= a->size_bytes)
      snprintf(p->worst_note, sizeof p->worst_note, "its worst access is the %s at %s: "
               "threadIdx.x already moves the address by one element, but the block is only "
               "%u threads wide in x, so each warp reads %u pieces of %u elements; make "
               "blockDim.x a multiple of 32 with the same threads per block, so that a warp "
               "reads one contiguous run", cc_access_kind_name(b->insns[0].info.kind), line,
               o->block[0], 32 / o->block[0] ? 32 / o->block[0] : 1, o->block[0]);
    return;
  }
}

/* The thread dimensions (spanned by the block) along which some global access has a unit
 * stride, counted: 2 or more is the transposition that no permutation fixes. */
static int unit_dims(const struct cc_fix_opts *o, const struct cc_affine_kernel *ak,
                     const struct cc_affine_env *env)
{
  int seen[3] = {0, 0, 0};
  for (uint32_t i = 0; i < ak->naccesses; i++) {
    const struct cc_affine_access *a = &ak->accesses[i];
    if (a->status != CC_AFFINE_OK || a->space != PTX_SPACE_GLOBAL)
      continue;
    for (uint32_t d = 0; d < 3; d++) {
      int64_t sd;
      if (o->block[d] > 1 && cc_affine_coeff(a, env, CC_AFFINE_TID, d, &sd) &&
          (uint64_t)(sd < 0 ? -sd : sd) == a->size_bytes)
        seen[d] = 1;
    }
  }
  return seen[0] + seen[1] + seen[2];
}

void cc_fix_static_notes(const struct cc_fix_opts *o, const struct cc_affine_kernel *ak,
                         const struct cc_affine_env *env, const struct cc_kernel_stats *before,
                         struct cc_fix_plan *p)
{
  worst_note(o, ak, env, before, p);
  p->unit_dims = unit_dims(o, ak, env);
}

void cc_fix_explain_no_gain(const struct cc_fix_opts *o, struct cc_fix_plan *p)
{
  const struct cc_kernel_stats *b = cc_fix_measure_kernel(&p->before);
  int any_legal = 0, transposition = 0;
  char line[24];
  for (int i = 1; i < p->ncands; i++)
    any_legal |= p->cands[i].legal;
  /* a transposition-shaped pair: some access has unit stride along one dimension and
   * another along a different one, so every permutation leaves one strided */
  int coalesced = 0, strided = 0;
  for (size_t i = 0; i < b->n_insns; i++) {
    const struct cc_insn_stats *s = &b->insns[i];
    if (s->info.space != CC_SPACE_GLOBAL || !s->requests)
      continue;
    coalesced |= s->excess_sectors == 0;
    strided |= s->excess_sectors > 0 && s->all_coalescable;
  }
  /* and the static forms agree: two accesses unit-stride along different thread
     dimensions (a coalesced access of one lane, as a reduction's final store, is not) */
  transposition = coalesced && strided && p->unit_dims > 1;
  if (!any_legal)
    snprintf(p->reason, sizeof p->reason, "no permutation of the launch fits CUDA's limits "
             "(%s)", p->cands[1].why);
  else if (transposition && p->unknown_requests == 0)
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess sectors of %s: its accesses are coalesced along different thread "
             "dimensions (a transposition), so one of them stays strided; stage the data "
             "through shared memory (tiling) instead", o->kernel_name);
  else if (b->totals.excess_sectors == 0 && b->totals.wavefronts > b->totals.ideal_wavefronts)
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess of %s: its global accesses read the ideal sectors (%llu), and its excess "
             "is %llu shared-memory wavefronts over the ideal %llu (bank conflicts), which "
             "padding or the tile's layout address, not the thread order", o->kernel_name,
             (unsigned long long)b->totals.sectors,
             (unsigned long long)(b->totals.wavefronts - b->totals.ideal_wavefronts),
             (unsigned long long)b->totals.ideal_wavefronts);
  else if (p->worst_note[0])
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess sectors of %s; %s", o->kernel_name, p->worst_note);
  else if (b->n_insns && b->insns[0].n_suggestions &&
           b->insns[0].suggestions[0].kind == CC_SUGGEST_THREAD_GEOMETRY)
    /* the dynamic advice to swap thread indices, which the candidates just measured or
       modelled: repeating it would contradict this very refusal */
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess sectors of %s; its worst access is the %s at %s, whose neighbouring "
             "lanes are up to %llu bytes apart, and no other order of the thread indices reads "
             "fewer sectors (every permutation that fits CUDA's limits was tried): the "
             "stride comes from the index arithmetic or the data's layout, not from the "
             "thread order; store the array so that the thread index that varies fastest "
             "moves the address by one element", o->kernel_name,
             cc_access_kind_name(b->insns[0].info.kind),
             cc_report_line_name(b->insns[0].source.line, line, sizeof line),
             (unsigned long long)b->insns[0].stride_max);
  else if (b->n_insns && b->insns[0].n_suggestions) /* worst first: the report's advice */
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess sectors of %s; its worst access is the %s at %s: %s",
             o->kernel_name, cc_access_kind_name(b->insns[0].info.kind),
             cc_report_line_name(b->insns[0].source.line, line, sizeof line),
             b->insns[0].suggestions[0].text);
  else
    snprintf(p->reason, sizeof p->reason, "no permutation of the thread geometry lowers the "
             "excess sectors of %s: its strided accesses do not come from the thread "
             "dimensions%s", o->kernel_name,
             p->unknown_requests ? " (some addresses are not affine)" : "");
}
