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

struct ptx_tok; /* ptx_lex.h */

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

/* Where and why an instruction's operands do not fit its shape: the token's line and
 * column and the message ("'add.s32' takes 3 operands (d, a, b), found 2"). */
struct ptx_shape_fail {
  uint32_t line, col;
  char msg[1024];
};

/* Checks the operands of in (top: n_top top-level operands, bracketed groups marked by
 * their brk bits; topt: their tokens, for positions; elems: vector elements; regs: the
 * function's registers; address_bits: 32 or 64) against the shape of its opcode's row of
 * ptx_ops.def. Returns 0 when they fit, else -1 with *f naming the token: the opcode op
 * for a wrong count ("'add.s32' takes 3 operands (d, a, b), found 2"), the operand for a
 * wrong kind or type ("operand 1 of 'st.global.f32' (m) must be an address '[..]', found
 * a register"). call and more than 255 operands are not checked here (the parser's
 * grammar does). Source: PTX ISA 9.0, chapter 9. ptx_shape.c. */
int ptx_check_shape(const struct ptx_insn *in, const struct ptx_tok *op,
                    const struct ptx_operand *top, size_t n_top, const struct ptx_tok *topt,
                    const struct ptx_operand *elems, const struct ptx_reg *regs,
                    unsigned address_bits, struct ptx_shape_fail *f);

/* The type named by the word [s, s+len) without its dot ("f32", "b64", "pred"), or
 * PTX_TYPE_NONE. ptx_decode.c. */
enum ptx_type ptx_type_from(const char *s, size_t len);

/* The state space named by the word [s, s+len) without its dot ("global", "shared::cta",
 * "param::entry", ...), or PTX_SPACE_COUNT. ptx_decode.c. */
enum ptx_space ptx_space_from(const char *s, size_t len);

/* Decodes the dotted modifiers of opcode text (after the base name) into in's fields
 * (in->op already set). Words that no field describes (cache hints, scopes, tex "v4"-like
 * extras) are kept only in opcode_text. Types fill type[0..2] in the order written, so
 * cvt.rn.f32.f64 has type[0] = f32 (destination) and type[1] = f64 (source); cp.async
 * and cvta name their second space in cvta_space. Never fails: the validity of the words
 * is ptx_check_modifiers's job. ptx_decode.c. */
void ptx_decode_modifiers(struct ptx_insn *in, const char *text);

#endif
