/*
 * SDT sites and argument registers from what the kernel's instructions
 * do (sdt.h), so that they survive a compiler upgrade: the calls of a
 * function, the increments and reads of a struct member, the increments
 * of a kernel counter, and where a value found in a register at a site
 * goes next.
 */
#include <stdlib.h>
#include <string.h>

#include "targets/mach/live/live_int.h"

/* The lookahead of a member increment: load, lea/add, store, and the
   store of the old value somewhere else (sdt_site.into). */
#define LOOKAHEAD	5

/* in has a memory operand disp(%base), base a general register (not
   rip); its index in in's operands, -1 if none. */
static int member_operand(const cs_insn *in, uint64_t disp)
{
	const cs_x86 *x = &in->detail->x86;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *m = &x->operands[i];
		if (m->type == X86_OP_MEM && (uint64_t)m->mem.disp == disp &&
		    m->mem.base != X86_REG_RIP && m->mem.base != X86_REG_INVALID &&
		    m->mem.index == X86_REG_INVALID && m->mem.segment == X86_REG_INVALID)
			return i;
	}
	return -1;
}

/* in is `mov %reg, disp(%base)` (a store of a register); the register's
   DWARF number, -1 if not. */
static int store_of(const cs_insn *in, uint64_t disp, x86_reg base)
{
	const cs_x86 *x = &in->detail->x86;
	int w;

	if (in->id != X86_INS_MOV || x->op_count != 2 || member_operand(in, disp) != 0 ||
	    (base != X86_REG_INVALID && x->operands[0].mem.base != base) ||
	    x->operands[1].type != X86_OP_REG)
		return -1;
	return x86_dwarf_reg(x->operands[1].reg, &w);
}

/*
 * Whether the instructions from in on increment the member at disp: an
 * add/inc of it, or a load of it stored back (+1 in a register) within
 * LOOKAHEAD instructions.  With into (>= 0), the loaded (old) value must
 * also be stored to a member at offset into (`x = p->seq++` into
 * `k->seqno`).  next[] are the instructions after in.
 */
static int member_inc(const cs_insn *in, const cs_insn *next, int nnext, uint64_t disp,
		      int64_t into)
{
	const cs_x86 *x = &in->detail->x86;
	int old, w, back = 0, copied = into < 0;

	if (in->id == X86_INS_ADD || in->id == X86_INS_INC)
		return into < 0 && member_operand(in, disp) == 0;
	if (in->id != X86_INS_MOV || x->op_count != 2 || x->operands[0].type != X86_OP_REG ||
	    member_operand(in, disp) != 1 || (old = x86_dwarf_reg(x->operands[0].reg, &w)) < 0)
		return 0;
	for (int i = 0; i < nnext && !(back && copied); i++) {
		if (x86_is_branch(&next[i]))
			break;
		back |= store_of(&next[i], disp, x->operands[1].mem.base) >= 0;
		copied |= into >= 0 && store_of(&next[i], (uint64_t)into, X86_REG_INVALID) == old;
	}
	return back && copied;
}

/*
 * Offsets in f of the instructions of a site: each direct call to
 * `target` (SDT_CALL) or the instruction after it (SDT_AFTER_CALL), each
 * increment (SDT_MEMBER_INC, with into) or use (SDT_MEMBER_USE) of the
 * member at offset `target`; at most max, -1 if f cannot be decoded.
 * Only instructions an int3 site can take (relocatable out of line) count.
 */
int sdt_insn_offsets(struct mt_kimg *k, const struct mt_kfunc *f, int where, uint64_t target,
		     int64_t into, uint32_t *offs, int max)
{
	uint32_t all[SDT_MAXINSNS];
	int n = sites_insn_offsets(k, f, all, SDT_MAXINSNS), m = 0;
	const uint8_t *code;
	cs_insn *in, *next = NULL;
	size_t left, nnext = 0;
	uint64_t a;
	csh cs;

	if (n < 0 || x86_open(&cs) < 0)
		return -1;
	in = cs_malloc(cs);
	for (int i = 0; in && i < n && m < max; i++) {
		a = f->addr + all[i];
		left = f->size - all[i];
		if (!(code = mt_kimg_bytes(k, a, left)) || !cs_disasm_iter(cs, &code, &left, &a, in))
			continue;
		if (where == SDT_MEMBER_USE) {
			if (member_operand(in, target) >= 0)
				offs[m++] = all[i];
		} else if (where == SDT_MEMBER_INC) {
			if (member_operand(in, target) < 0)
				continue;
			if (next)
				cs_free(next, nnext);
			next = NULL;
			nnext = cs_disasm(cs, code, left, a, LOOKAHEAD, &next);
			if (member_inc(in, next, (int)nnext, target, into))
				offs[m++] = all[i];
		} else if (x86_in_group(in, CS_GRP_CALL) && x86_branch_target(in) == target) {
			if (where == SDT_CALL)
				offs[m++] = all[i];
			else if (i + 1 < n && all[i + 1] == all[i] + in->size)
				offs[m++] = all[i + 1];
		}
	}
	if (next)
		cs_free(next, nnext);
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return m;
}

/* DWARF number of any general register, 8- and 16-bit ones included
   (a write to %al changes %rax); -1 for others. */
static int any_reg(csh cs, x86_reg r)
{
	static const char *const low[8] = { "a", "d", "c", "b", "si", "di", "bp", "sp" };
	const char *n = cs_reg_name(cs, r);
	int w, d = x86_dwarf_reg(r, &w);

	if (d >= 0 || !n)
		return d;
	if (n[0] == 'r' && n[1] >= '0' && n[1] <= '9')
		return (int)strtol(n + 1, NULL, 10);
	for (int i = 0; i < 8; i++) {
		size_t l = strlen(low[i]);
		if (strncmp(n, low[i], l) == 0 &&
		    (l == 1 ? (n[1] == 'l' || n[1] == 'h' || n[1] == 'x') && !n[2] :
		     !n[l] || (n[l] == 'l' && !n[l + 1])))
			return i;
	}
	return -1;
}

/* The flow's end at in (struct sdt_flow): the register (of in) holding
   the value sought, -1 if in is not the end, -2 if the flow stops. */
static int flow_end(const cs_insn *in, const struct sdt_flow *g)
{
	static const int argregs[6] = { 5, 4, 1, 2, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *o = x->operands;
	int w, s;

	if (x86_in_group(in, CS_GRP_CALL))
		return g->kind == SDT_FLOW_ARG && x86_branch_target(in) == g->target &&
		       g->argn < 6 ? argregs[g->argn] : -2;
	if (x86_in_group(in, CS_GRP_RET) || in->id == X86_INS_JMP)
		return -2;
	if (in->id != X86_INS_MOV || x->op_count != 2 || o[0].type != X86_OP_MEM ||
	    o[0].mem.index != X86_REG_INVALID || o[0].mem.base == X86_REG_RIP)
		return -1;
	if (g->kind == SDT_FLOW_STORED && o[1].type == X86_OP_REG && o[0].mem.disp == 0 &&
	    o[0].mem.base != X86_REG_RSP && o[0].mem.base != X86_REG_RBP &&
	    (s = x86_dwarf_reg(o[1].reg, &w)) >= 0 && w == 8)
		return s;
	if (g->kind == SDT_FLOW_BASE && (uint64_t)o[0].mem.disp == g->target &&
	    (s = x86_dwarf_reg(o[0].mem.base, &w)) >= 0 && w == 8)
		return s;
	return -1;
}

/*
 * Where the value a register holds at addr goes, along the code that
 * follows (through conditional branches not taken, at most 48
 * instructions, until a jmp, a ret or a call other than the one sought):
 * the register whose value at addr is, per g, the argument argn of the
 * next call of a function, the value next stored through a plain pointer
 * (`*outp = v`, the pointer neither rsp nor rbp), or the base of the next
 * store to the member at offset target (`v->m = ...`).  Its DWARF
 * number at addr, -1 if none.
 */
int sdt_flow_reg(struct mt_kimg *k, uint64_t addr, const struct sdt_flow *g)
{
	const struct mt_kfunc *f = mt_kimg_func_at(k, addr);
	size_t left = f ? f->addr + f->size - addr : 0;
	const uint8_t *code = left ? mt_kimg_bytes(k, addr, left) : NULL;
	int val[16], r = -1, w;
	cs_insn *in;
	csh cs;

	if (!code || x86_open(&cs) < 0)
		return -1;
	for (int i = 0; i < 16; i++)
		val[i] = i;	/* val[r]: the register at addr r's value came from */
	in = cs_malloc(cs);
	for (int i = 0; in && i < 48 && cs_disasm_iter(cs, &code, &left, &addr, in); i++) {
		const cs_x86_op *o = in->detail->x86.operands;
		cs_regs rd, wr;
		uint8_t nrd, nwr;
		int d, s, e = flow_end(in, g);
		if (e != -1) {
			r = e >= 0 ? val[e] : -1;
			break;
		}
		if (in->id == X86_INS_MOV && in->detail->x86.op_count == 2 &&
		    o[0].type == X86_OP_REG && o[1].type == X86_OP_REG &&
		    (d = x86_dwarf_reg(o[0].reg, &w)) >= 0 && w == 8 &&
		    (s = x86_dwarf_reg(o[1].reg, &w)) >= 0 && w == 8) {
			val[d] = val[s];
			continue;
		}
		if (cs_regs_access(cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
			break;
		for (int j = 0; j < nwr; j++)
			if ((d = any_reg(cs, wr[j])) >= 0)
				val[d] = -1;
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return r;
}

/*
 * The address of a counter ("global" or "global.member", a member of a
 * global struct, from DWARF); 0 if this kernel has none.
 */
static uint64_t counter_addr(struct mt_kimg *k, const char *name)
{
	char g[64], type[256], sname[256], mtype[256];
	const char *dot = strchr(name, '.');
	uint64_t addr, off;
	size_t n = dot ? (size_t)(dot - name) : strlen(name);

	if (n >= sizeof g)
		return 0;
	memcpy(g, name, n);
	g[n] = 0;
	if (mt_kimg_symbol(k, g, &addr) != 0 || !addr)
		return 0;
	if (!dot)
		return addr;
	if (live_var_type(k, g, type, sizeof type) != 0 ||
	    live_struct_of(k, type, sname, sizeof sname) != 0)
		return 0;
	if (mt_kimg_member(k, sname, dot + 1, &off, mtype, sizeof mtype) != 0)
		return 0;
	return addr + off;
}

/* in adds a constant to the memory at caddr (add $imm / inc with a
   rip-relative operand); the constant, 0 if it does not. */
static int32_t counter_inc(const cs_insn *in, uint64_t caddr)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *m = &x->operands[0];

	if (in->id != X86_INS_ADD && in->id != X86_INS_INC)
		return 0;
	if (x->op_count < 1 || m->type != X86_OP_MEM || m->mem.base != X86_REG_RIP ||
	    m->mem.index != X86_REG_INVALID ||
	    in->address + in->size + (uint64_t)m->mem.disp != caddr)
		return 0;
	if (in->id == X86_INS_INC)
		return 1;
	if (x->op_count != 2 || x->operands[1].type != X86_OP_IMM)
		return 0;
	return (int32_t)x->operands[1].imm;
}

/* f's bytes hold a rip-relative displacement that may reach caddr (a
   cheap test before decoding f: the operand's disp32 is followed by
   0, 1 or 4 immediate bytes). */
static int may_count(struct mt_kimg *k, const struct mt_kfunc *f, uint64_t caddr)
{
	const uint8_t *b = f->size >= 6 ? mt_kimg_bytes(k, f->addr, f->size) : NULL;

	for (uint64_t j = 2; b && j + 4 <= f->size; j++) {
		int32_t d = (int32_t)((uint32_t)b[j] | (uint32_t)b[j + 1] << 8 |
				      (uint32_t)b[j + 2] << 16 | (uint32_t)b[j + 3] << 24);
		uint64_t next = f->addr + j + 4, gap = caddr - (next + (uint64_t)(int64_t)d);
		if (gap == 0 || gap == 1 || gap == 4)
			return 1;
	}
	return 0;
}

/* Append the increments of the counter at caddr in f to p's locations
   (instructions an int3 can take only); -1 out of memory. */
static int counter_sites(struct live *l, struct lprobe *p, const struct mt_kfunc *f,
			 uint64_t caddr)
{
	const uint8_t *code = f->size ? mt_kimg_bytes(l->k, f->addr, f->size) : NULL;
	uint64_t a = f->addr;
	size_t left = f->size;
	cs_insn *in;
	csh cs;
	int rc = 0, ends;

	if (!code || f->inline_only || f->patch == MT_PATCH_REFUSED || !may_count(l->k, f, caddr))
		return 0;
	if (x86_open(&cs) < 0)
		return 0;
	in = cs_malloc(cs);
	while (in && rc == 0 && left && cs_disasm_iter(cs, &code, &left, &a, in)) {
		int32_t inc = counter_inc(in, caddr);
		struct sdt_loc *v;
		if (!inc || reloc_insn(in, LIVE_TRAMP_VA,
				       NULL, &ends) < 0)
			continue;
		if (!(v = realloc(p->locs, (p->nlocs + 1) * sizeof *v))) {
			rc = -1;
			break;
		}
		p->locs = v;
		p->locs[p->nlocs++] = (struct sdt_loc){ .addr = in->address, .f = f, .where = SDT_COUNTER,
							 .inc = inc, .counter = caddr };
	}
	if (in)
		cs_free(in, 1);
	cs_close(&cs);
	return rc;
}

/* An SDT_COUNTER site: in its function, or anywhere in the text; -1 out
   of memory. */
int sdt_counter_sites(struct live *l, struct lprobe *p, const struct sdt_site *s)
{
	uint64_t caddr = counter_addr(l->k, s->callee);
	size_t n = mt_kimg_nfuncs(l->k);

	if (!caddr)
		return 0;
	if (s->func) {
		const struct mt_kfunc *f = mt_kimg_lookup(l->k, s->func);
		return f ? counter_sites(l, p, f, caddr) : 0;
	}
	for (size_t i = 0; i < n; i++)
		if (counter_sites(l, p, mt_kimg_func(l->k, i), caddr) < 0)
			return -1;
	return 0;
}
