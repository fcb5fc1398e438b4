/*
 * DWARF location expressions compiled to D text (dwloc.h).  The DWARF
 * stack machine runs at compile time over D expressions instead of
 * values: each stack slot holds the D text that computes it at the probe.
 * A location ends as a register (DW_OP_regN: the value is in it), a value
 * (DW_OP_stack_value, DW_OP_implicit_value) or an address (the top of the
 * stack); DW_OP_pieces join up to 8 bytes of such parts into one value.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"

#define DEPTH 8

enum { L_ADDR, L_REG, L_VALUE };

struct vm {
	char st[DEPTH][DWLOC_TEXT];
	int n;
	int loc;			/* L_*: what the ops so far describe */
	char comp[DWLOC_TEXT];		/* pieces joined so far ("" none) */
	unsigned shift;			/* bits of comp */
	const struct dwloc_frame *fr;
	char *err;
	size_t errlen;
};

/* DWARF 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15
   to regs[] (runtime/kernel/kplat.c mt_plat_reg: rax rcx rdx rsi rdi
   r8-r11 rbx rbp r12-r15, then 15 the probe's stack pointer). */
static int reg_index(uint64_t n)
{
	static const signed char map[16] = { 0, 2, 1, 9, 3, 4, 10, 15,
					     5, 6, 7, 8, 11, 12, 13, 14 };
	return n < 16 ? map[n] : -1;
}

static int fail(struct vm *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int push(struct vm *m, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (m->n == DEPTH)
		return fail(m, "DWARF expression deeper than %d", DEPTH);
	va_start(ap, fmt);
	len = vsnprintf(m->st[m->n], DWLOC_TEXT, fmt, ap);
	va_end(ap);
	if (len < 0 || len >= DWLOC_TEXT)
		return fail(m, "DWARF expression too long for D");
	m->n++;
	return 0;
}

/* Pop into buf (DWLOC_TEXT bytes). */
static int pop(struct vm *m, char *buf)
{
	if (m->n == 0)
		return fail(m, "DWARF expression pops an empty stack");
	memcpy(buf, m->st[--m->n], DWLOC_TEXT);
	return 0;
}

static int reg(struct vm *m, uint64_t n, int64_t off, int value)
{
	int i = reg_index(n);

	if (i < 0)
		return fail(m, "DWARF register %llu is not saved at a probe",
			    (unsigned long long)n);
	if (value)
		return push(m, "regs[%d]", i);
	return push(m, "(regs[%d] + %lld)", i, (long long)off);
}

static int cfa(struct vm *m)
{
	if (m->fr->cfa_reg < 0)
		return fail(m, "no call frame (CFA) rule at this instruction");
	return reg(m, (uint64_t)m->fr->cfa_reg, m->fr->cfa_off, 0);
}

static int frame_base(struct vm *m, int64_t off)
{
	const struct dwloc_frame *fr = m->fr;
	struct dwloc_frame plain = { fr->cfa_reg, fr->cfa_off, NULL, 0 };
	struct dwloc_res fb;
	char base[DWLOC_TEXT];

	if (!fr->fb || (fr->nfb == 1 && fr->fb[0].atom == DW_OP_call_frame_cfa)) {
		if (cfa(m) < 0)
			return -1;
	} else {
		if (dwloc_compile(fr->fb, fr->nfb, &plain, 8, &fb, m->err, m->errlen) < 0)
			return -1;
		if (push(m, "%s", fb.text) < 0)
			return -1;
	}
	if (pop(m, base) < 0)
		return -1;
	return push(m, "(%s + %lld)", base, (long long)off);
}

static int unary(struct vm *m, const char *pre, const char *post)
{
	char a[DWLOC_TEXT];

	if (pop(m, a) < 0)
		return -1;
	return push(m, "(%s%s%s)", pre, a, post);
}

static int binary(struct vm *m, const char *cast, const char *op)
{
	char a[DWLOC_TEXT], b[DWLOC_TEXT];

	if (pop(m, b) < 0 || pop(m, a) < 0)
		return -1;
	return push(m, "(%s%s %s %s%s)", cast, a, op, cast, b);
}

static const char *uint_type(uint64_t size)
{
	switch (size) {
	case 1: return "uint8_t";
	case 2: return "uint16_t";
	case 4: return "uint32_t";
	case 8: return "uint64_t";
	}
	return NULL;
}

static int deref(struct vm *m, uint64_t size)
{
	const char *t = uint_type(size);
	char a[DWLOC_TEXT];

	if (!t)
		return fail(m, "DW_OP_deref_size %llu is not supported",
			    (unsigned long long)size);
	if (pop(m, a) < 0)
		return -1;
	return push(m, "(uint64_t)*(%s *)%s", t, a);
}

static int stackop(struct vm *m, uint8_t atom)
{
	char a[DWLOC_TEXT], b[DWLOC_TEXT];

	if (atom == DW_OP_drop)
		return pop(m, a);
	if (atom == DW_OP_dup || atom == DW_OP_over) {
		int at = m->n - (atom == DW_OP_dup ? 1 : 2);

		if (at < 0)
			return fail(m, "DWARF expression pops an empty stack");
		memcpy(a, m->st[at], DWLOC_TEXT);
		return push(m, "%s", a);
	}
	if (pop(m, b) < 0 || pop(m, a) < 0)	/* DW_OP_swap */
		return -1;
	return push(m, "%s", b) < 0 ? -1 : push(m, "%s", a);
}

static int arith(struct vm *m, uint8_t atom)
{
	switch (atom) {
	case DW_OP_plus: return binary(m, "", "+");
	case DW_OP_minus: return binary(m, "", "-");
	case DW_OP_mul: return binary(m, "", "*");
	case DW_OP_div: return binary(m, "(int64_t)", "/");
	case DW_OP_mod: return binary(m, "(uint64_t)", "%");
	case DW_OP_and: return binary(m, "", "&");
	case DW_OP_or: return binary(m, "", "|");
	case DW_OP_xor: return binary(m, "", "^");
	case DW_OP_shl: return binary(m, "(uint64_t)", "<<");
	case DW_OP_shr: return binary(m, "(uint64_t)", ">>");
	case DW_OP_shra: return binary(m, "(int64_t)", ">>");
	case DW_OP_eq: return binary(m, "(int64_t)", "==");
	case DW_OP_ne: return binary(m, "(int64_t)", "!=");
	case DW_OP_lt: return binary(m, "(int64_t)", "<");
	case DW_OP_gt: return binary(m, "(int64_t)", ">");
	case DW_OP_le: return binary(m, "(int64_t)", "<=");
	case DW_OP_ge: return binary(m, "(int64_t)", ">=");
	case DW_OP_neg: return unary(m, "-", "");
	case DW_OP_not: return unary(m, "~", "");
	}
	return 1;
}

static int implicit(struct vm *m, const struct dwloc_op *op)
{
	uint64_t v = 0;
	uint64_t i;

	if (op->number > 8 || (op->number && !op->block))
		return fail(m, "DW_OP_implicit_value of %llu bytes is not supported",
			    (unsigned long long)op->number);
	for (i = 0; i < op->number; i++)	/* little-endian target */
		v |= (uint64_t)op->block[i] << (8 * i);
	m->loc = L_VALUE;
	return push(m, "0x%llx", (unsigned long long)v);
}

/* The value of the location described so far, size bytes, into buf. */
static int part_value(struct vm *m, uint64_t size, char *buf)
{
	const char *t = uint_type(size);
	char a[DWLOC_TEXT];
	int len;

	if (!t)
		return fail(m, "a DW_OP_piece of %llu bytes is not supported",
			    (unsigned long long)size);
	if (pop(m, a) < 0)
		return -1;
	if (m->loc == L_ADDR)
		len = snprintf(buf, DWLOC_TEXT, "(uint64_t)*(%s *)%s", t, a);
	else
		len = snprintf(buf, DWLOC_TEXT, "(uint64_t)(%s)%s", t, a);
	return len >= DWLOC_TEXT ? fail(m, "DWARF expression too long for D") : 0;
}

static int piece(struct vm *m, uint64_t size)
{
	char v[DWLOC_TEXT], prev[DWLOC_TEXT];
	int len;

	if (m->n == 0)
		return fail(m, "part of the variable is optimized out");
	if (m->shift + 8 * size > 64)
		return fail(m, "DW_OP_pieces of more than 8 bytes are not supported");
	if (part_value(m, size, v) < 0)
		return -1;
	memcpy(prev, m->comp, DWLOC_TEXT);
	if (!m->shift)
		len = snprintf(m->comp, DWLOC_TEXT, "%s", v);
	else
		len = snprintf(m->comp, DWLOC_TEXT, "(%s | (%s << %u))", prev, v, m->shift);
	if (len >= DWLOC_TEXT)
		return fail(m, "DWARF expression too long for D");
	m->shift += 8 * (unsigned)size;
	m->n = 0;
	m->loc = L_ADDR;
	return 0;
}

static int step(struct vm *m, const struct dwloc_op *op)
{
	uint8_t a = op->atom;
	int rc;

	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		return push(m, "%d", a - DW_OP_lit0);
	if (a >= DW_OP_reg0 && a <= DW_OP_reg31) {
		m->loc = L_REG;
		return reg(m, a - DW_OP_reg0, 0, 1);
	}
	if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		return reg(m, a - DW_OP_breg0, (int64_t)op->number, 0);
	if ((rc = arith(m, a)) <= 0)
		return rc;
	switch (a) {
	case DW_OP_regx:
		m->loc = L_REG;
		return reg(m, op->number, 0, 1);
	case DW_OP_bregx:
		return reg(m, op->number, (int64_t)op->number2, 0);
	case DW_OP_fbreg:
		return frame_base(m, (int64_t)op->number);
	case DW_OP_call_frame_cfa:
		return cfa(m);
	case DW_OP_addr: case DW_OP_const1u: case DW_OP_const2u:
	case DW_OP_const4u: case DW_OP_const8u: case DW_OP_constu:
		return push(m, "0x%llx", (unsigned long long)op->number);
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		return push(m, "(%lld)", (long long)op->number);
	case DW_OP_deref:
		return deref(m, 8);
	case DW_OP_deref_size:
		return deref(m, op->number);
	case DW_OP_plus_uconst:
		return push(m, "%llu", (unsigned long long)op->number) < 0 ? -1 :
			binary(m, "", "+");
	case DW_OP_dup: case DW_OP_drop: case DW_OP_swap: case DW_OP_over:
		return stackop(m, a);
	case DW_OP_stack_value:
		m->loc = L_VALUE;
		return 0;
	case DW_OP_implicit_value:
		return implicit(m, op);
	case DW_OP_piece:
		return piece(m, op->number);
	case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		/* the value a register had at the function's entry: gone */
		return fail(m, "optimized out");
	}
	return fail(m, "DWARF operation 0x%x is not supported", a);
}

int dwloc_compile(const struct dwloc_op *ops, size_t n, const struct dwloc_frame *fr,
		  uint64_t size, struct dwloc_res *res, char *err, size_t errlen)
{
	static const struct dwloc_frame rsp8 = { 7, 8, NULL, 0 };
	struct vm m;
	size_t i;

	if (n == 0) {
		snprintf(err, errlen, "optimized out");
		return -1;
	}
	memset(&m, 0, sizeof(m));
	m.fr = fr ? fr : &rsp8;
	m.err = err;
	m.errlen = errlen;
	for (i = 0; i < n; i++)
		if (step(&m, &ops[i]) < 0)
			return -1;
	if (m.shift) {
		if (m.n)
			return fail(&m, "DWARF expression continues after its last DW_OP_piece");
		res->kind = DWLOC_VALUE;
		snprintf(res->text, DWLOC_TEXT, "%s", m.comp);
		return size > m.shift / 8 ?
			fail(&m, "part of the variable is optimized out") : 0;
	}
	if (m.n == 0)
		return fail(&m, "DWARF expression leaves an empty stack");
	res->kind = m.loc == L_ADDR ? DWLOC_ADDR : DWLOC_VALUE;
	memcpy(res->text, m.st[m.n - 1], DWLOC_TEXT);
	return 0;
}
