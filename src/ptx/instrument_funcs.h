/* coalcheck PTX front end, internal to the inline counting pass: which .func bodies
 * count their accesses, and how their counters are found (instrument.h, ".func bodies").
 *
 * A counted .func takes one more parameter, PTX_INST_FUNC_PARAM (.u64): the counters of
 * the calling thread's kernel, at its shard, at the start of that kernel's copy of the
 * .func sites (0: this thread counts nothing). Each call passes it on: a kernel computes
 * it in its prologue, a .func passes its own. The figures of one .func site are so kept
 * apart per kernel (a region of sites per kernel that reaches a counted .func, in rank
 * order), with no state outside the launch's own registers: concurrent launches of
 * several kernels on several streams never share a word they should not. (A module-scope
 * variable written before each launch would be one pointer for every launch in flight.)
 *
 * A .func is counted when it has a body, its address is never taken (an operand other
 * than a call's callee, or a symbolic initializer naming it: a virtual function or a
 * function pointer could call it without the parameter) and it has a countable site or
 * calls a counted .func. Entries that call a counted .func directly get a rank. */
#ifndef CC_PTX_INSTRUMENT_FUNCS_H
#define CC_PTX_INSTRUMENT_FUNCS_H

#include <stdint.h>

#include "ptx/instrument.h"
#include "ptx/ptx.h"

/* The plan for m's .func bodies. */
struct ptx_inst_funcs {
  uint8_t *counted;   /* per function: 1 = a counted .func */
  const char **why;   /* per function: why a .func with a body is not counted, or NULL */
  uint32_t *rank;     /* per function: an entry's region rank, or UINT32_MAX */
  uint32_t nregions;  /* entries with a rank */
};

/* Fills *p for m; has_sites[f] != 0 when function f's body has a countable site.
 * Released with ptx_inst_funcs_release. */
void ptx_inst_funcs_plan(const struct ptx_module *m, const uint8_t *has_sites,
                         struct ptx_inst_funcs *p);

/* Counts no .func (every counted one then says why_all). */
void ptx_inst_funcs_none(const struct ptx_module *m, struct ptx_inst_funcs *p,
                         const char *why_all);

void ptx_inst_funcs_release(struct ptx_inst_funcs *p);

#endif
