/* coalcheck PTX front end, internal: the ISA rules that an instruction's modifiers and
 * operand types must follow (the parser applies them; not part of the public interface).
 *
 * Modifiers: every dotted word after the base opcode must be one of the instruction's
 * modifiers or one of its instruction types, and the number of type words must fit
 * ("setp.ge.s32Y", "st.bogus.f32", "add.global.s32", "setp.lt" are errors, as ptxas
 * makes them). Operand types: each operand's register type must agree with the type its
 * shape slot takes (ptx_ops.def: the instruction type unless the slot is annotated),
 * by the rules of PTX ISA 9.0 section 9.4: bit-size types agree with any type of the same
 * size, signed and unsigned integers of the same size agree, floating-point types only
 * with themselves (Table 26); ld, st and cvt data operands may be wider than the
 * instruction type (Tables 27-28). Immediates: integer constants are not floats and float
 * constants are not integers; special registers are read by mov and cvt only; address
 * registers are integers or bit-size; guards are predicates. These are the checks ptxas
 * applies ("Arguments mismatch for instruction 'add'"), verified against ptxas 13 on the
 * cases of tests/ptx/test_ptx_types.c.
 * Source of the per-instruction modifiers and types: the syntax block of each instruction
 * in PTX ISA 9.0, chapter 9. */
#ifndef CC_PTX_PTX_CHECK_H
#define CC_PTX_PTX_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "ptx/ptx.h"

/* Checks the dotted words of in->opcode_text against the rules of in->op (in's fields
 * already decoded). Sets PTX_F_XTYPE in in->flags when a type word has no enum ptx_type
 * (.u16x2, .e4m3x2, ...). Returns 1 when they are valid; else 0, a message in msg (size
 * bytes, no position) and *at = the byte offset in opcode_text of the word to point at. */
int ptx_check_modifiers(struct ptx_insn *in, char *msg, size_t size, uint32_t *at);

/* Whether the operand types of in are checked: its row has operand rules and in carries
 * exactly the type words they are written for. */
int ptx_check_wants_operands(const struct ptx_insn *in);

/* Checks operand o of in against the type rule of its shape slot: slot is the slot's name
 * ("d", "a", "m", ...), ann its annotation after ':' (annlen bytes; 0 = none: the default
 * of the slot name), elems the vector elements o->first.. refer to, regs the function's
 * registers, address_bits the module's .address_size. Returns 1 when it agrees; else 0 and
 * "must be X, found Y" (or "has element K ...") in msg. */
int ptx_check_operand(const struct ptx_insn *in, const char *slot, size_t slotlen,
                      const char *ann, size_t annlen, const struct ptx_operand *o,
                      const struct ptx_operand *elems, const struct ptx_reg *regs,
                      unsigned address_bits, char *msg, size_t size);

/* Checks that a guard register is a predicate; 0 and a message otherwise. */
int ptx_check_guard(const struct ptx_reg *r, char *msg, size_t size);

#endif
