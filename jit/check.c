/*
 * The emitted code's checker, and its disassembly for -S (Capstone).
 * What compiled code may do, as the verifier says of bytecode:
 *   - only the instructions the compiler emits (a closed list);
 *   - jumps only forward and inside the code, but the fallback's jmp
 *     (relocated to the site's general path); calls only to the
 *     runtime's helpers (relocated); ret only as the last instruction;
 *   - memory writes only to a relocated address of the runtime's state
 *     area (plus a register holding an offset the code read from the
 *     runtime: an aggregation entry, a buffer offset), to the record
 *     being written (r11 plus less than a record), or to its own frame
 *     (rsp plus less than the frame's most), pushes and pops aside.
 * So every path ends, and no store leaves the state area or the stack.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

#include "jit/jit.h"
#include "machtrace/jitabi.h"

#define MAX_FRAME	(8 * 20)

static const char *const allowed[] = {
	"pushfq", "popfq", "cli", "push", "pop", "mov", "movabs", "movzx", "movsx", "movsxd", "lea", "add", "sub",
	"and", "or", "xor", "cmp", "test", "inc", "imul", "shl", "shr", "sar", "not",
	"neg", "bsr", "div", "idiv", "mul", "shrd", "rdtsc", "cqo", "jmp", "je", "jne", "ja",
	"jae", "jb", "jbe", "jg", "jge", "jl", "jle", "js", "jns", "call", "ret",
	"lock inc",
};

static int is_allowed(const char *m)
{
	for (size_t i = 0; i < sizeof allowed / sizeof *allowed; i++)
		if (strcmp(m, allowed[i]) == 0)
			return 1;
	return 0;
}

static const struct jit_rel *rel_at(const struct jit_code *c, uint64_t at)
{
	for (uint32_t i = 0; i < c->b.nrel; i++)
		if (c->b.rel[i].at == at)
			return &c->b.rel[i];
	return NULL;
}

static int state_kind(uint16_t k)
{
	switch (k) {
	case MT_JR_CB: case MT_JR_BUSY: case MT_JR_AGGENT: case MT_JR_AGGDATA:
	case MT_JR_ECBENT: case MT_JR_CPUBUF: case MT_JR_BUFDATA: case MT_JR_STAGE:
	case MT_JR_GLOBALS: case MT_JR_FAULT: case MT_JR_TLS: case MT_JR_LOCALS:
		return 1;
	}
	return 0;
}

static int seterr(char *why, size_t n, const cs_insn *in, const char *what)
{
	snprintf(why, n, "at +%llu (%s %s): %s", (unsigned long long)in->address,
		 in->mnemonic, in->op_str, what);
	return -1;
}

/* A memory operand that the instruction writes: allowed? */
static int store_ok(const struct jit_code *c, const cs_insn *in, const cs_x86_op *op)
{
	const struct jit_rel *r = NULL;
	x86_reg base = op->mem.base;

	if (op->mem.index != X86_REG_INVALID || op->mem.segment != X86_REG_INVALID)
		return 0;
	if (in->detail->x86.encoding.disp_offset)
		r = rel_at(c, in->address + in->detail->x86.encoding.disp_offset);
	if (r && r->kind == MT_JR_PLAT_VCLOCK)	/* its two words */
		return base == X86_REG_INVALID && (r->addend == 0 || r->addend == 8);
	if (r)
		return state_kind(r->kind);
	if (base == X86_REG_RSP)
		return op->mem.disp >= 0 && op->mem.disp < MAX_FRAME;
	if (base == X86_REG_R11)
		return op->mem.disp >= 0 && op->mem.disp < JIT_MAX_RECORD;
	return 0;
}

static int check_one(const struct jit_code *c, const cs_insn *in, int last, char *why,
		     size_t n)
{
	const cs_x86 *x = &in->detail->x86;
	const struct jit_rel *r;

	if (!is_allowed(in->mnemonic))
		return seterr(why, n, in, "an instruction compiled code does not use");
	if (in->id == X86_INS_RET)
		return last ? 0 : seterr(why, n, in, "ret before the end");
	if (in->id == X86_INS_CALL) {
		r = rel_at(c, in->address + 1);
		return in->size == 5 && r && (r->kind == MT_JR_HELPER ||
					      r->kind == MT_JR_PLAT_EXECNAME) ? 0 :
			seterr(why, n, in, "a call to something else than a runtime helper");
	}
	if (in->id == X86_INS_JMP || (in->detail->groups_count &&
	    cs_insn_group(0, in, CS_GRP_JUMP))) {
		uint64_t to;
		if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
			return seterr(why, n, in, "an indirect jump");
		r = rel_at(c, in->address + in->size - 4);
		if (r && r->kind == JIT_JR_FALLBACK && in->id == X86_INS_JMP)
			return 0;
		to = (uint64_t)x->operands[0].imm;
		if (to <= in->address || to > c->b.len)
			return seterr(why, n, in, "a jump backward or out of the code");
		return 0;
	}
	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if (op->type == X86_OP_MEM && (op->access & CS_AC_WRITE) &&
		    in->id != X86_INS_PUSH && in->id != X86_INS_POP && !store_ok(c, in, op))
			return seterr(why, n, in, "a store outside the state area and the frame");
	}
	return 0;
}

int mt_jit_check(const struct jit_code *c, char *why, size_t whylen)
{
	csh cs;
	cs_insn *in;
	const uint8_t *p = c->b.code;
	size_t left = c->b.len;
	uint64_t a = 0;
	int rc = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return snprintf(why, whylen, "capstone: cannot open"), -1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	in = cs_malloc(cs);
	while (rc == 0 && left && cs_disasm_iter(cs, &p, &left, &a, in))
		rc = check_one(c, in, left == 0, why, whylen);
	if (rc == 0 && left)
		{ snprintf(why, whylen, "undecodable bytes at +%llu", (unsigned long long)a); rc = -1; }
	cs_free(in, 1);
	cs_close(&cs);
	return rc;
}

static const char *rel_name(uint16_t k)
{
	static const char *const names[] = {
		[MT_JR_CB] = "cb", [MT_JR_BUSY] = "busy", [MT_JR_AGGENT] = "aggent",
		[MT_JR_AGGDATA] = "aggdata", [MT_JR_ECBENT] = "ecbent", [MT_JR_CPUBUF] = "cpubuf",
		[MT_JR_BUFDATA] = "bufdata", [MT_JR_STRTAB] = "strtab",
		[MT_JR_BUFSIZE] = "bufsize", [MT_JR_GLOBALS] = "globals",
		[MT_JR_HELPER] = "helper", [MT_JR_STAGE] = "stage", [MT_JR_FAULT] = "fault",
		[MT_JR_TLS] = "tls rows", [MT_JR_TLS_MASK] = "tls mask",
		[MT_JR_LOCALS] = "locals", [MT_JR_CPU] = "cpu",
	};
	if (k == MT_JR_PLAT_TSCMULT)
		return "tsc_mult";
	if (k == MT_JR_PLAT_EXECNAME)
		return "execname";
	if (k == MT_JR_PLAT_CURTHREAD)
		return "curthread";
	if (k == MT_JR_PLAT_THRMEMO)
		return "thread memo";
	if (k == MT_JR_PLAT_VCLOCK)
		return "vclock";
	if (k == MT_JR_PLAT_LOADABLE)
		return "loadable";
	if (k == JIT_JR_FALLBACK)
		return "general path";
	return k < sizeof names / sizeof *names && names[k] ? names[k] : "?";
}

void mt_jit_disasm(const struct jit_code *c, uint64_t va, FILE *f)
{
	csh cs;
	cs_insn *in;
	const uint8_t *p = c->b.code;
	size_t left = c->b.len;
	uint64_t a = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return;
	in = cs_malloc(cs);
	while (left && cs_disasm_iter(cs, &p, &left, &a, in)) {
		const struct jit_rel *r = NULL;
		for (uint16_t k = 0; k < in->size && !r; k++)
			r = rel_at(c, in->address + k);
		fprintf(f, "%04llx: %-8s %s", (unsigned long long)(va + in->address),
			in->mnemonic, in->op_str);
		if (r)
			fprintf(f, "\t! %s %u%+d", rel_name(r->kind), r->arg, r->addend);
		fputc('\n', f);
	}
	cs_free(in, 1);
	cs_close(&cs);
}
