/* x86-64 instruction helpers (insn.h). */
#include "targets/mach/x86_64/insn.h"

int x86_open(csh *cs)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, cs) != CS_ERR_OK)
		return -1;
	cs_option(*cs, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

int x86_in_group(const cs_insn *in, int g)
{
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == g)
			return 1;
	return 0;
}

int x86_is_branch(const cs_insn *in)
{
	return x86_in_group(in, CS_GRP_JUMP) || x86_in_group(in, CS_GRP_CALL) ||
	       x86_in_group(in, CS_GRP_RET) || x86_in_group(in, CS_GRP_INT) ||
	       x86_in_group(in, CS_GRP_IRET) || x86_in_group(in, CS_GRP_BRANCH_RELATIVE);
}

int x86_rip_relative(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	for (int i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
			return 1;
	return 0;
}

uint64_t x86_branch_target(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if ((x86_in_group(in, CS_GRP_JUMP) || x86_in_group(in, CS_GRP_CALL)) &&
	    x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		return (uint64_t)x->operands[0].imm;
	return 0;
}

/* DWARF number and width (bytes) of a Capstone register; -1 if none. */
int x86_dwarf_reg(x86_reg r, int *width)
{
	static const struct { x86_reg q, d; } map[16] = {
		{ X86_REG_RAX, X86_REG_EAX }, { X86_REG_RDX, X86_REG_EDX },
		{ X86_REG_RCX, X86_REG_ECX }, { X86_REG_RBX, X86_REG_EBX },
		{ X86_REG_RSI, X86_REG_ESI }, { X86_REG_RDI, X86_REG_EDI },
		{ X86_REG_RBP, X86_REG_EBP }, { X86_REG_RSP, X86_REG_ESP },
		{ X86_REG_R8, X86_REG_R8D }, { X86_REG_R9, X86_REG_R9D },
		{ X86_REG_R10, X86_REG_R10D }, { X86_REG_R11, X86_REG_R11D },
		{ X86_REG_R12, X86_REG_R12D }, { X86_REG_R13, X86_REG_R13D },
		{ X86_REG_R14, X86_REG_R14D }, { X86_REG_R15, X86_REG_R15D },
	};

	for (int i = 0; i < 16; i++) {
		if (map[i].q == r) {
			*width = 8;
			return i;
		}
		if (map[i].d == r) {
			*width = 4;
			return i;
		}
	}
	return -1;
}
