/*
 * Relocation of displaced instructions (host side, Capstone).  An
 * instruction copied from `from` to run at `va` keeps its meaning:
 *
 *   no rip-relative operand, no branch   copied as is
 *   rip-relative memory operand          disp32 adjusted to the same target
 *   jcc rel8/rel32                       jcc rel32 to the same target
 *   jmp rel                              jmp rel32 (ends the flow)
 *   call rel32                           push $next; jmp target (ends the
 *                                        flow: it returns to `next`)
 *   call *reg / call *mem                push $next; jmp *same operand (the
 *                                        ModRM reg field 2 -> 4); refused
 *                                        when the operand reads rsp, which
 *                                        the push moved
 *   jmp *reg / jmp *mem                  copied (ends the flow)
 *   ret, ret imm16                       copied (ends the flow)
 *   anything else (int, iret, loop, jrcxz, far branches)   refused
 *
 * `next` must fit a sign-extended imm32 (the kernel lies in the top 2 GiB).
 *
 * All targets must be within rel32 of va (the reserved region lies within
 * 2 GiB of the kernel text).
 */
#include <string.h>

#include "targets/mach/live/live_int.h"

static int rel(uint64_t from_end, uint64_t to, uint8_t *p)
{
	int64_t d = (int64_t)(to - from_end);
	int32_t d32 = (int32_t)d;

	if (d != d32)
		return -1;
	if (p)
		memcpy(p, &d32, 4);
	return 0;
}

/* Operand 0 of an indirect jmp/call: a register or a memory operand. */
static int indirect_ok(const cs_insn *in, int is_call)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *op = &x->operands[0];

	if (x->op_count != 1 || x->opcode[0] != 0xff || !x->encoding.modrm_offset)
		return 0;
	if (op->type == X86_OP_REG)
		return !is_call || (op->reg != X86_REG_RSP && op->reg != X86_REG_ESP);
	if (op->type != X86_OP_MEM || op->mem.segment != X86_REG_INVALID)
		return 0;
	return !is_call || (op->mem.base != X86_REG_RSP && op->mem.index != X86_REG_RSP);
}

/* Adjust a rip-relative disp32 of the copy at p (running at va). */
static int fix_rip(const cs_insn *in, uint64_t va, uint8_t *p, unsigned shift)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t next = in->address + in->size;

	for (int i = 0; i < x->op_count; i++) {
		if (x->operands[i].type != X86_OP_MEM || x->operands[i].mem.base != X86_REG_RIP)
			continue;
		if (!x->encoding.disp_offset || x->encoding.disp_size != 4 ||
		    rel(va + in->size, next + (uint64_t)x->operands[i].mem.disp,
			p + shift + x->encoding.disp_offset) < 0)
			return -1;
	}
	return 0;
}

/* call *op: "push $next; jmp *op" (same operand, ModRM.reg 2 -> 4). */
static int reloc_call_indirect(const cs_insn *in, uint64_t va, uint8_t *p)
{
	uint64_t next = in->address + in->size;
	int32_t r32 = (int32_t)next;
	unsigned mo = in->detail->x86.encoding.modrm_offset;
	uint8_t *m = p + 5 + mo;

	if ((uint64_t)(int64_t)r32 != next || ((in->bytes[mo] >> 3) & 7) != 2)
		return -1;
	p[0] = 0x68;
	memcpy(p + 1, &r32, 4);
	memcpy(p + 5, in->bytes, in->size);
	*m = (uint8_t)((*m & ~0x38) | (4 << 3));
	return fix_rip(in, va + 5, p, 5) < 0 ? -1 : 5 + in->size;
}

int reloc_insn(const cs_insn *in, uint64_t va, uint8_t *out, int *ends)
{
	const cs_x86 *x = &in->detail->x86;
	uint64_t next = in->address + in->size, tgt = x86_branch_target(in);
	uint8_t buf[32], *p = out ? out : buf;

	*ends = 0;
	if (x86_in_group(in, CS_GRP_RET) && !x86_in_group(in, CS_GRP_IRET) &&
	    (x->opcode[0] == 0xc3 || x->opcode[0] == 0xc2)) {
		memcpy(p, in->bytes, in->size);
		*ends = 1;
		return in->size;
	}
	if (!tgt && in->id == X86_INS_CALL && indirect_ok(in, 1)) {
		*ends = 1;
		return reloc_call_indirect(in, va, p);
	}
	if (!tgt && in->id == X86_INS_JMP && indirect_ok(in, 0)) {
		memcpy(p, in->bytes, in->size);
		*ends = 1;
		return fix_rip(in, va, p, 0) < 0 ? -1 : in->size;
	}
	if (tgt && x86_in_group(in, CS_GRP_CALL)) {
		int32_t r32 = (int32_t)next;
		if ((uint64_t)(int64_t)r32 != next)
			return -1;
		p[0] = 0x68;				/* push $next (sign-extended) */
		memcpy(p + 1, &r32, 4);
		p[5] = 0xe9;
		*ends = 1;
		return rel(va + 10, tgt, p + 6) ? -1 : 10;
	}
	if (tgt && in->id == X86_INS_JMP) {
		p[0] = 0xe9;
		*ends = 1;
		return rel(va + 5, tgt, p + 1) ? -1 : 5;
	}
	if (tgt && x86_in_group(in, CS_GRP_JUMP) &&
	    ((x->opcode[0] >= 0x70 && x->opcode[0] <= 0x7f) ||
	     (x->opcode[0] == 0x0f && x->opcode[1] >= 0x80 && x->opcode[1] <= 0x8f))) {
		p[0] = 0x0f;
		p[1] = (uint8_t)(0x80 | (x->opcode[0] == 0x0f ? x->opcode[1] & 0xf :
					 x->opcode[0] & 0xf));
		return rel(va + 6, tgt, p + 2) ? -1 : 6;
	}
	if (x86_is_branch(in))
		return -1;
	memcpy(p, in->bytes, in->size);
	return fix_rip(in, va, p, 0) < 0 ? -1 : in->size;
}
