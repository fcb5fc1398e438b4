/*
 * Which displaced user instructions the blob emulates after a user
 * site's int3 (runtime/x86_64/usite.c), decided here on the host with
 * Capstone.  The blob has no copy of the task's text to run out of line:
 * the instruction is done by the handler on the saved registers (and the
 * user stack, through the task's page tables), so only instructions of
 * a few fixed shapes are accepted, those of function prologues and
 * epilogues and sdt.h's nop:
 *
 *   nop (any length), endbr64     LK_UE_NOP
 *   push %r64                     LK_UE_PUSH   (user store)
 *   pop %r64 (not %rsp)           LK_UE_POP    (user load)
 *   mov %r64, %r64 / %r32, %r32   LK_UE_MOV / LK_UE_MOV32
 *   add/sub $imm, %rsp            LK_UE_ADD_RSP / LK_UE_SUB_RSP
 *   ret, ret $imm16               LK_UE_RET    (user load)
 *
 * Anything else (a call, a branch, a memory operand, an instruction
 * reading rip) is refused with its text, so that a probe is never planted
 * where it could not be stepped over.
 */
#include <stdio.h>
#include <string.h>

#include "targets/mach/live/umod.h"
#include "targets/mach/x86_64/insn.h"

#define DW_RSP 7

/* The shape of in (decoded with details), or 0. */
static int shape(const cs_insn *in, struct lk_usite *s)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;
	int w0 = 0, w1 = 0, r0 = -1, r1 = -1;

	if (x->op_count >= 1 && o[0].type == X86_OP_REG)
		r0 = x86_dwarf_reg(o[0].reg, &w0);
	if (x->op_count >= 2 && o[1].type == X86_OP_REG)
		r1 = x86_dwarf_reg(o[1].reg, &w1);
	switch (in->id) {
	case X86_INS_NOP:
	case X86_INS_ENDBR64:
		return LK_UE_NOP;
	case X86_INS_PUSH:
		if (x->op_count != 1 || r0 < 0 || w0 != 8)
			return 0;
		s->reg = (uint8_t)r0;
		return LK_UE_PUSH;
	case X86_INS_POP:
		if (x->op_count != 1 || r0 < 0 || w0 != 8 || r0 == DW_RSP)
			return 0;
		s->reg = (uint8_t)r0;
		return LK_UE_POP;
	case X86_INS_MOV:
		if (x->op_count != 2 || r0 < 0 || r1 < 0 || w0 != w1)
			return 0;
		s->reg = (uint8_t)r0;
		s->reg2 = (uint8_t)r1;
		return w0 == 8 ? LK_UE_MOV : LK_UE_MOV32;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (x->op_count != 2 || r0 != DW_RSP || w0 != 8 || o[1].type != X86_OP_IMM ||
		    o[1].imm != (int32_t)o[1].imm)
			return 0;
		s->imm = (int32_t)o[1].imm;
		return in->id == X86_INS_ADD ? LK_UE_ADD_RSP : LK_UE_SUB_RSP;
	case X86_INS_RET:
		if (x->op_count > 1 || (x->op_count == 1 && o[0].type != X86_OP_IMM))
			return 0;
		s->imm = x->op_count ? (int32_t)(o[0].imm & 0xffff) : 0;
		return LK_UE_RET;
	default:
		return 0;
	}
}

int uemul_classify(const uint8_t *code, size_t len, uint64_t va, struct lk_usite *s,
		   char *why, size_t whylen)
{
	const uint8_t *p = code;
	size_t left = len;
	uint64_t a = va;
	cs_insn *in;
	csh cs;
	int k;

	if (x86_open(&cs) < 0)
		return snprintf(why, whylen, "no x86-64 decoder"), -1;
	if (!(in = cs_malloc(cs))) {
		cs_close(&cs);
		return snprintf(why, whylen, "out of memory"), -1;
	}
	if (!cs_disasm_iter(cs, &p, &left, &a, in)) {
		snprintf(why, whylen, "the bytes at 0x%llx do not decode", (unsigned long long)va);
		k = -1;
	} else if (!(k = shape(in, s))) {
		snprintf(why, whylen, "'%s%s%s' cannot be emulated by a user probe", in->mnemonic,
			 in->op_str[0] ? " " : "", in->op_str);
		k = -1;
	} else {
		s->emul = (uint8_t)k;
		s->len = (uint8_t)in->size;
		s->orig = code[0];
	}
	cs_free(in, 1);
	cs_close(&cs);
	return k < 0 ? -1 : 0;
}
