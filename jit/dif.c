/*
 * DIF bytecode to x86-64, one instruction at a time (jit_int.h).  DIF
 * registers live in callee-saved x86 registers (the pool), assigned in
 * order of first use in the DIFO; a DIFO needing more than JIT_NPOOL of
 * them, or an instruction this file does not translate, is not compiled.
 * Scratch: rax (values, the result), rcx (shift counts), rdx (rdtsc).
 *
 * Condition codes: CMP and TST become x86 cmp/test, which set the flags
 * the branches read.  They survive only moves: an instruction that
 * changes the x86 flags, or a branch target between the compare and the
 * branch, makes the DIFO uncompilable rather than guessing.
 * A register read where it may not have been written on every path
 * reads 0, as in the interpreter (which zeroes all sixteen): those are
 * zeroed at the DIFO's start.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jit/jit_int.h"

static const enum jreg pool[JIT_NPOOL] = { X_RBX, X_R12, X_R13, X_R14, X_R15, X_RBP };

int jit_fail(struct jit *j, const char *fmt, ...)
{
	va_list ap;

	if (j->why && j->whylen) {
		va_start(ap, fmt);
		vsnprintf(j->why, j->whylen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* What an instruction reads and writes (DIF register bit masks). */
static void uses(mt_instr_t in, uint32_t *rd_mask, uint32_t *wr_mask)
{
	uint32_t op = MT_OP(in), r1 = MT_R1(in), r2 = MT_R2(in), rd = MT_RD(in);

	*rd_mask = *wr_mask = 0;
	switch (op) {
	case MT_OP_OR: case MT_OP_XOR: case MT_OP_AND: case MT_OP_SLL:
	case MT_OP_SRL: case MT_OP_SRA: case MT_OP_SUB: case MT_OP_ADD:
	case MT_OP_MUL: case MT_OP_SDIV: case MT_OP_UDIV: case MT_OP_SREM:
	case MT_OP_UREM:
		*rd_mask = 1u << r1 | 1u << r2;
		*wr_mask = 1u << rd;
		break;
	case MT_OP_NOT: case MT_OP_MOV:
		*rd_mask = 1u << r1;
		*wr_mask = 1u << rd;
		break;
	case MT_OP_CMP: case MT_OP_SCMP:
		*rd_mask = 1u << r1 | 1u << r2;
		break;
	case MT_OP_TST:
		*rd_mask = 1u << r1;
		break;
	case MT_OP_RET:
		*rd_mask = 1u << rd;
		break;
	case MT_OP_SETX: case MT_OP_SETS: case MT_OP_LDGS: case MT_OP_LDTS:
	case MT_OP_LDGAA: case MT_OP_LDLS: case MT_OP_CALL:
		*wr_mask = 1u << rd;
		break;
	case MT_OP_LDSB: case MT_OP_LDSH: case MT_OP_LDSW: case MT_OP_LDUB:
	case MT_OP_LDUH: case MT_OP_LDUW: case MT_OP_LDX: case MT_OP_ALLOCS:
		*rd_mask = 1u << r1;
		*wr_mask = 1u << rd;
		break;
	case MT_OP_STTS: case MT_OP_STGS: case MT_OP_PUSHTV: case MT_OP_STGAA:
	case MT_OP_STLS:
		*rd_mask = 1u << rd;
		break;
	case MT_OP_LDGA:
		*rd_mask = 1u << r2;
		*wr_mask = 1u << rd;
		break;
	case MT_OP_COPYS:
		*rd_mask = 1u << r1 | 1u << r2 | 1u << rd;
		break;
	}
	*rd_mask &= ~1u;
	*wr_mask &= ~1u;
}

static int is_branch(uint32_t op)
{
	return op >= MT_OP_BA && op <= MT_OP_BLEU;
}

/* A scalar integer (not by reference) of the scope? */
static int scalar_var(const struct jit *j, uint32_t scope, uint32_t id)
{
	const struct mt_var *v = j->t.vars;

	for (uint32_t i = 0; i < j->img->nvars; i++)
		if (v[i].scope == scope && v[i].id == id)
			return v[i].kind == MT_VK_SCALAR && !(v[i].flags & MT_VF_REF);
	return 0;
}

/* A global associative array of integer values (its key: one PUSHTV
   integer, gaa()) */
static int assoc_int(const struct jit *j, uint32_t id)
{
	const struct mt_var *v = j->t.vars;

	for (uint32_t i = 0; i < j->img->nvars; i++)
		if (v[i].scope == MT_VS_GLOBAL && v[i].id == id)
			return v[i].kind == MT_VK_ASSOC && !(v[i].flags & MT_VF_REF);
	return 0;
}

static int tls_scalar(const struct jit *j, uint32_t id)
{
	return scalar_var(j, MT_VS_THREAD, id);
}

/* A fault fires ERROR's clauses from the compiled code, on the kernel's
   stack: what may fault is compiled only when there are none. */
static int error_clauses(const struct jit *j)
{
	const struct mt_probe *pr = j->t.probes;

	if (j->img->error_probe)
		for (uint32_t i = 0; i < j->img->nprobes; i++)
			if (pr[i].id == j->img->error_probe && pr[i].necbs)
				return 1;
	return 0;
}

#define JIT_NARGS	(MT_VAR_ARG9 - MT_VAR_ARG0 + 1)

/* Where D's argument i comes from: the site's raw argument (below
   JIT_NARGS) through the probe's mapping (SDT probes, struct mt_probe),
   or MT_ARGMAP_ZERO / _CURTHREAD / _ELAPSED. */
static uint32_t arg_source(const struct jit *j, uint32_t i)
{
	const struct mt_probe *pr = &j->t.probes[j->probe];

	if (!pr->nmap)
		return i;
	return i < pr->nmap ? pr->argmap[i] : MT_ARGMAP_ZERO;
}

/* Why argument i cannot be read here, NULL if it can. */
static const char *arg_unsupported(const struct jit *j, uint32_t i)
{
	uint32_t src = arg_source(j, i);

	if (src == MT_ARGMAP_ELAPSED && j->o.site == JIT_SITE_LOCAL)
		return "a mapped argument on the host";
	if (src == MT_ARGMAP_CURTHREAD && j->o.site == JIT_SITE_LOCAL)
		return "a mapped argument on the host";
	if (j->o.nregargs && src < j->o.nregargs && j->o.regarg[src] == 7)
		return "the stack pointer as an argument";
	if (j->o.site == JIT_SITE_ENTRY && src >= 6 && src < JIT_NARGS)
		return "an argument on the stack";
	return NULL;
}

/*
 * args[] with a constant index: LDGA's index register set by the SETX
 * just before it (the compiler's args[N]), with no branch in between,
 * or %r0.  0 and the index, or -1.
 */
static int ldga_index(const struct jit *j, const struct mt_difo *d, uint32_t pc,
		      uint64_t *idx)
{
	mt_instr_t in = j->t.text[d->text0 + pc], prev;

	if (MT_R1(in) != MT_VAR_ARGS)
		return -1;
	if (MT_R2(in) == 0) {
		*idx = 0;
		return 0;
	}
	if (pc == 0)
		return -1;
	prev = j->t.text[d->text0 + pc - 1];
	if (MT_OP(prev) != MT_OP_SETX || MT_RD(prev) != MT_R2(in))
		return -1;
	for (uint32_t k = 0; k < d->ntext; k++) {
		mt_instr_t b = j->t.text[d->text0 + k];
		if (is_branch(MT_OP(b)) && MT_LABEL(b) == pc)
			return -1;
	}
	*idx = j->t.ints[MT_V16(prev)];
	return 0;
}

static const char *ldga_unsupported(const struct jit *j, const struct mt_difo *d, uint32_t pc)
{
	uint64_t i;

	if (ldga_index(j, d, pc, &i) < 0)
		return "args[], regs[] or uregs[] other than args[] of a constant";
	return i < JIT_NARGS ? arg_unsupported(j, (uint32_t)i) : NULL;
}

/* Supported?  The reason if not. */
static const char *unsupported(const struct jit *j, mt_instr_t in)
{
	uint32_t op = MT_OP(in), v = MT_V16(in);

	switch (op) {
	case MT_OP_LDTS: case MT_OP_STTS:
		if (j->o.site == JIT_SITE_HOST)
			return "a thread-local on the host";
		return tls_scalar(j, v) ? NULL : "a thread-local other than an integer";
	case MT_OP_SCMP:
		return j->o.site == JIT_SITE_HOST ? "a string compare on the host" : NULL;
	case MT_OP_LDSB: case MT_OP_LDSH: case MT_OP_LDSW: case MT_OP_LDUB:
	case MT_OP_LDUH: case MT_OP_LDUW: case MT_OP_LDX:
		if (j->o.site == JIT_SITE_HOST)
			return "a load on the host";
		return error_clauses(j) ? "a load in a program with ERROR clauses" : NULL;
	case MT_OP_SDIV: case MT_OP_UDIV: case MT_OP_SREM: case MT_OP_UREM:
		if (j->o.site == JIT_SITE_HOST)
			return "a division on the host";
		return error_clauses(j) ? "a division in a program with ERROR clauses" : NULL;
	case MT_OP_NOP: case MT_OP_OR: case MT_OP_XOR: case MT_OP_AND:
	case MT_OP_SLL: case MT_OP_SRL: case MT_OP_SRA: case MT_OP_SUB:
	case MT_OP_ADD: case MT_OP_MUL: case MT_OP_NOT: case MT_OP_MOV:
	case MT_OP_CMP: case MT_OP_TST: case MT_OP_RET: case MT_OP_SETX:
	case MT_OP_SETS:
		return NULL;
	case MT_OP_LDLS: case MT_OP_STLS:
		if (j->o.site == JIT_SITE_HOST)
			return "a clause-local on the host";
		return scalar_var(j, MT_VS_LOCAL, v) ? NULL : "a clause-local other than an integer";
	case MT_OP_LDGAA: case MT_OP_STGAA:
		if (j->o.site == JIT_SITE_HOST)
			return "an associative array on the host";
		return assoc_int(j, v) ? NULL : "an associative array of other than integers";
	case MT_OP_FLUSHTS:
		return NULL;
	case MT_OP_PUSHTV: case MT_OP_ALLOCS: case MT_OP_COPYS:
		/* only as a subroutine's argument and stringof() of its
		   string (one(), subr_call and copys) */
		return j->o.site == JIT_SITE_HOST ? "a subroutine on the host" : NULL;
	case MT_OP_CALL:
		if (j->o.site == JIT_SITE_HOST)
			return "a subroutine on the host";
		return v == MT_SUBR_MACH_PID || v == MT_SUBR_MACH_TID ||
			v == MT_SUBR_MACH_EXECNAME ? NULL : "a subroutine other than "
			"mach_pid(), mach_tid() or mach_execname()";
	case MT_OP_STGS:
		if (j->o.site == JIT_SITE_HOST)
			return "a global on the host";
		return scalar_var(j, MT_VS_GLOBAL, v) ? NULL : "a global other than an integer";
	case MT_OP_LDGS:
		if (v >= MT_VAR_USER) {
			if (j->o.site == JIT_SITE_HOST)
				return "a global on the host";
			return scalar_var(j, MT_VS_GLOBAL, v) ? NULL :
				"a global other than an integer";
		}
		if (v >= MT_VAR_ARG0 && v <= MT_VAR_ARG9)
			return arg_unsupported(j, v - MT_VAR_ARG0);
		switch (v) {
		case MT_VAR_EXECNAME: case MT_VAR_PID: case MT_VAR_TID:
		case MT_VAR_CURTHREAD: case MT_VAR_TASK:
			return j->o.site == JIT_SITE_HOST ? "a thread's variable on the host" : NULL;
		case MT_VAR_EPID: case MT_VAR_ID: case MT_VAR_PROBEPROV:
		case MT_VAR_PROBEMOD: case MT_VAR_PROBEFUNC: case MT_VAR_PROBENAME:
			return NULL;
		case MT_VAR_CPU:
			return j->o.site == JIT_SITE_HOST ? "cpu on the host" : NULL;
		case MT_VAR_TIMESTAMP: case MT_VAR_VTIMESTAMP:
			return j->o.site == JIT_SITE_HOST ? "timestamp on the host" : NULL;
		}
		return "a built-in variable";
	default:
		if (is_branch(op))
			return NULL;
		return "an instruction";
	}
}

/* DIF register -> pool index (map[r], -1: none); -1 if too many. */
static int map_regs(const struct jit *j, const struct mt_difo *d, int map[MT_NREGS])
{
	int n = 0;

	for (int r = 0; r < MT_NREGS; r++)
		map[r] = -1;
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		uint32_t rm, wm;
		uses(j->t.text[d->text0 + pc], &rm, &wm);
		for (int r = 1; r < MT_NREGS; r++)
			if (((rm | wm) >> r & 1) && map[r] < 0) {
				if (n == JIT_NPOOL)
					return -1;
				map[r] = n++;
			}
	}
	return n;
}

/* Does a load at this site check the platform's loadable ranges inline
   (MT_JR_PLAT_LOADABLE)?  A kernel site's: the host and the local
   target have no such ranges. */
static int inline_loads(const struct jit *j)
{
	return j->o.site == JIT_SITE_ENTRY || j->o.site == JIT_SITE_RETURN;
}

int jit_difo_needs(struct jit *j, uint32_t difo1, uint32_t *regs)
{
	const struct mt_difo *d = &j->t.difos[difo1 - 1];
	int map[MT_NREGS], n;

	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		mt_instr_t in = j->t.text[d->text0 + pc];
		uint32_t op = MT_OP(in), v = MT_V16(in);
		const char *w = op == MT_OP_LDGA ? ldga_unsupported(j, d, pc) : unsupported(j, in);
		if (w)
			return jit_fail(j, "DIFO %u uses %s (opcode %u at %u)", difo1, w, op, pc);
		if (op == MT_OP_SLL || op == MT_OP_SRL || op == MT_OP_SRA)
			*regs |= 1u << X_RCX;
		if (op == MT_OP_LDGS && v == MT_VAR_TIMESTAMP)
			*regs |= 1u << X_RDX;
		if (op == MT_OP_SCMP)
			*regs |= 1u << X_RCX | 1u << X_RDX;
		if (op == MT_OP_LDGS && (v == MT_VAR_EXECNAME || v == MT_VAR_TID ||
					 v == MT_VAR_PID))
			*regs |= 1u << X_RDX;	/* not rcx: an aggregation's value */
		if (op == MT_OP_LDTS || op == MT_OP_STTS)
			*regs |= 1u << X_RCX | 1u << X_RDX;	/* tls_row */
		if (op == MT_OP_SDIV || op == MT_OP_UDIV || op == MT_OP_SREM || op == MT_OP_UREM)
			*regs |= 1u << X_RCX | 1u << X_RDX;
		if (op >= MT_OP_LDSB && op <= MT_OP_LDX && inline_loads(j))
			*regs |= 1u << X_RDX;
	}
	if ((n = map_regs(j, d, map)) < 0)
		return jit_fail(j, "DIFO %u uses more than %d registers", difo1, JIT_NPOOL);
	for (int i = 0; i < n; i++)
		*regs |= 1u << pool[i];
	*regs |= 1u << X_RAX;
	return 0;
}

/* Registers read before they are written on some path: zeroed first. */
static uint32_t maybe_unset(const struct jit *j, const struct mt_difo *d)
{
	uint32_t set[1024], need = 0;

	if (d->ntext > 1024)
		return 0xfffe;
	for (uint32_t pc = 0; pc < d->ntext; pc++)
		set[pc] = 0xffffffffu;
	set[0] = 1;			/* r0 */
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		mt_instr_t in = j->t.text[d->text0 + pc];
		uint32_t rm, wm, out, op = MT_OP(in);
		uses(in, &rm, &wm);
		need |= rm & ~set[pc];
		out = set[pc] | wm;
		if (is_branch(op) && MT_LABEL(in) < d->ntext)
			set[MT_LABEL(in)] &= out;
		if (op != MT_OP_BA && op != MT_OP_RET && pc + 1 < d->ntext)
			set[pc + 1] &= out;
	}
	return need;
}

/* What a DIF register holds, for SCMP and string records: a strtab
   string, the execname (MT_JIT_PLATNAME readable bytes), a subroutine's
   string in the runtime's scratch (JIT_STR_SCRATCH, jit_int.h), scratch
   ALLOCS reserved (emitted as nothing: COPYS of a scratch string into it
   aliases the string, bound[] bytes of it). */
enum { STR_NONE = 0, STR_CONST, STR_EXECNAME = JIT_STR_EXECNAME, STR_SCRATCH = JIT_STR_SCRATCH,
	STR_ALLOC };

struct difo_em {
	struct jit *j;
	int map[MT_NREGS];
	uint8_t str[MT_NREGS];		/* STR_* */
	uint32_t stroff[MT_NREGS];	/* STR_CONST: strtab offset */
	uint32_t bound[MT_NREGS];	/* STR_SCRATCH: a copy's size, 0: none */
	uint8_t known[MT_NREGS];	/* SETX's constant in kval */
	uint64_t kval[MT_NREGS];
	int tv;				/* PUSHTV's register, -1: none pushed */
	int scratch;			/* a subroutine's string was made: the
					   RET must hand it to a record or key */
	uint32_t labels[1024];		/* per DIF pc: a label if a branch goes there */
	uint8_t target[1024];
	uint32_t end;			/* label: after the DIFO */
	int flags;			/* 0: x86 flags invalid; 1: cmp; 2: test;
					   3: ZF alone (an inline SCMP) */
};

static const enum jreg cold_save[] = {
	X_RCX, X_RDX, X_RSI, X_RDI, X_R8, X_R9, X_R10, X_R11
};
#define NCOLD (sizeof cold_save / sizeof *cold_save)

void jit_call(struct jit *j, uint16_t kind, uint32_t h, int nargs, uint64_t a1, uint64_t a2, int a3_reg,
	      enum jreg a3)
{
	struct jit_buf *b = j->b;

	/* the register argument is the last one: rdx (3 arguments) or rcx
	   (4); it is rax or a pool register, which the pushes leave alone */
	enum jreg last = nargs > 3 ? X_RCX : X_RDX;

	for (size_t i = 0; i < NCOLD; i++)
		x_push(b, cold_save[i]);
	if (a3_reg && a3 != last)
		x_mov_rr(b, last, a3);
	x_mov_rrel(b, X_RDI, MT_JR_CB, 0, 0);
	if (nargs > 1)
		x_mov_ri(b, X_RSI, a1);
	if (nargs > 2 && (nargs > 3 || !a3_reg))
		x_mov_ri(b, X_RDX, a2);
	if (nargs > 3 && !a3_reg)
		x_mov_ri(b, X_RCX, 0);
	x_call_rel(b, kind, h);
	for (size_t i = NCOLD; i-- > 0;)
		x_pop(b, cold_save[i]);
}

void jit_call_imm(struct jit *j, uint32_t h, uint32_t a1, uint32_t a2, uint32_t a3)
{
	struct jit_buf *b = j->b;

	for (size_t i = 0; i < NCOLD; i++)
		x_push(b, cold_save[i]);
	x_mov_rrel(b, X_RDI, MT_JR_CB, 0, 0);
	x_mov_ri(b, X_RSI, a1);
	x_mov_ri(b, X_RDX, a2);
	x_mov_ri(b, X_RCX, a3);
	x_call_rel(b, MT_JR_HELPER, h);
	for (size_t i = NCOLD; i-- > 0;)
		x_pop(b, cold_save[i]);
}

void jit_str_rec(struct jit *j, uint32_t size, int32_t off, uint32_t pc)
{
	struct jit_buf *b = j->b;
	uint32_t ok = jit_label_new(b);

	for (size_t i = 0; i < NCOLD; i++)
		x_push(b, cold_save[i]);
	x_mov_rr(b, X_RDX, X_RAX);
	x_lea(b, X_RCX, (struct x_mem){ X_R11, off, 0, 0 });
	x_mov_rrel(b, X_RDI, MT_JR_CB, 0, 0);
	x_mov_ri(b, X_RSI, size);
	x_call_rel(b, MT_JR_HELPER, MT_JH_STR);
	for (size_t i = NCOLD; i-- > 0;)
		x_pop(b, cold_save[i]);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_E, ok);
	x_mov_ri(b, X_RAX, (uint64_t)j->where_act << 16 | (pc & 0xffff));
	x_jmp(b, j->fault);
	j->faults = 1;
	jit_label_here(b, ok);
}

static enum jreg reg(const struct difo_em *e, uint32_t r)
{
	return pool[e->map[r]];
}

/* x = DIF register r */
static void get(struct difo_em *e, enum jreg x, uint32_t r)
{
	if (r == 0)
		x_mov_ri(e->j->b, x, 0);
	else if (reg(e, r) != x)
		x_mov_rr(e->j->b, x, reg(e, r));
}

static void put(struct difo_em *e, uint32_t r, enum jreg x)
{
	if (r != 0 && reg(e, r) != x)
		x_mov_rr(e->j->b, reg(e, r), x);
}

static void jit_arg(struct jit *j, enum jreg r, uint32_t i)
{
	static const enum jreg entry[6] = { X_RDI, X_RSI, X_RDX, X_RCX, X_R8, X_R9 };
	/* DWARF x86-64 register numbers (7, rsp: arg_unsupported) */
	static const enum jreg dwarf_reg[16] = {
		X_RAX, X_RDX, X_RCX, X_RBX, X_RSI, X_RDI, X_RBP, X_RSP,
		X_R8, X_R9, X_R10, X_R11, X_R12, X_R13, X_R14, X_R15
	};
	enum jreg src;

	i = arg_source(j, i);
	if (i == MT_ARGMAP_CURTHREAD) {		/* a kernel site (arg_unsupported) */
		x_load_abs(j->b, 8, r, MT_JR_PLAT_CURTHREAD, 0, 0);
		return;
	}
	if (i == MT_ARGMAP_ELAPSED) {		/* taken as the firing began */
		x_load_m(j->b, 8, r, (struct x_mem){ X_RSP, j->el_off, 0, 0 });
		return;
	}
	if (j->o.counter) {		/* a counter's site: constants */
		x_mov_ri(j->b, r, i < 2 ? j->o.cnt_args[i] : 0);
		return;
	}
	if (j->o.nregargs)		/* an SDT site's variables */
		i = i < j->o.nregargs ? j->o.regarg[i] : JIT_REG_ZERO;
	if (i == JIT_REG_CURTHREAD) {
		x_load_abs(j->b, 8, r, MT_JR_PLAT_CURTHREAD, 0, 0);
		return;
	}
	if (i >= (j->o.nregargs ? 16u : JIT_NARGS)) {
		x_mov_ri(j->b, r, 0);
		return;
	}
	if (j->o.nregargs) {
		src = dwarf_reg[i];
		goto have;
	}
	switch (j->o.site) {
	case JIT_SITE_HOST:
		x_load_m(j->b, 8, r, (struct x_mem){ X_RDI, (int32_t)(8 * i), 0, 0 });
		return;
	case JIT_SITE_LOCAL:		/* the array's address is in the frame */
		x_load_m(j->b, 8, r, (struct x_mem){ X_RSP, (int32_t)(j->saved[X_RDI] - 1), 0, 0 });
		x_load_m(j->b, 8, r, (struct x_mem){ r, (int32_t)(8 * i), 0, 0 });
		return;
	case JIT_SITE_RETURN:
		if (i == 0) {
			x_mov_ri(j->b, r, j->o.func_off);
			return;
		}
		if (i != 1) {
			x_mov_ri(j->b, r, 0);
			return;
		}
		src = X_RAX;
		break;
	default:
		src = entry[i];
		break;
	}
have:
	if (j->saved[src])
		x_load_m(j->b, 8, r, (struct x_mem){ X_RSP, (int32_t)(j->saved[src] - 1), 0, 0 });
	else if (src != r)
		x_mov_rr(j->b, r, src);
}

void jit_tsc(struct jit_buf *b)
{
	x_rdtsc(b);
	x_shift_ri(b, 4, X_RDX, 32);
	x_alu_rr(b, A_OR, X_RAX, X_RDX);
}

void jit_timestamp(struct jit *j)
{
	struct jit_buf *b = j->b;
	struct x_mem ts = { X_RSP, j->ts_off, 0, 0 };
	uint32_t have = jit_label_new(b);

	x_load_m(b, 8, X_RAX, ts);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NE, have);
	if (j->o.site == JIT_SITE_LOCAL) {	/* the clock mt_plat_time reads */
		jit_call(j, MT_JR_HELPER, MT_JH_VAR, 2, MT_VAR_TIMESTAMP, 0, 0, X_RAX);
		x_store_m(b, 8, X_RAX, ts);
		jit_label_here(b, have);
		return;
	}
	jit_tsc(b);
	x_mul_abs(b, MT_JR_PLAT_TSCMULT, 0, 0);
	x_shrd_ri(b, X_RAX, X_RDX, 32);
	x_store_m(b, 8, X_RAX, ts);
	jit_label_here(b, have);
}

/* A string of the image's strtab at offset off. */
static void strtab_addr(struct jit *j, enum jreg x, uint32_t off)
{
	if (j->o.site == JIT_SITE_HOST)
		x_mov_ri(j->b, x, (uint64_t)(uintptr_t)(j->t.strtab + off));
	else
		x_mov_rrel(j->b, x, MT_JR_STRTAB, 0, (int32_t)off);
}

/*
 * The current thread's entry of the platform's per-thread memo: rax =
 * the thread's address, rdx = the entry's offset, the entry returned as
 * a memory operand; to `slow` if there is no thread or the entry is
 * another's.  The thread's address and the memo are the platform's own
 * memory.
 */
static struct x_mem memo_entry(struct jit *j, uint32_t slow)
{
	struct jit_buf *b = j->b;
	struct x_mem memo = { X_RDX, 0, MT_JR_PLAT_THRMEMO, 0 };

	x_load_abs(b, 8, X_RAX, MT_JR_PLAT_CURTHREAD, 0, 0);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_E, slow);
	x_mov_rr(b, X_RDX, X_RAX);
	x_shift_ri(b, 5, X_RDX, 6);
	x_alu_ri(b, A_AND, X_RDX, MT_JIT_MEMO_N - 1);
	x_shift_ri(b, 4, X_RDX, MT_JIT_MEMO_SHIFT);	/* * MT_JIT_MEMO_SIZE */
	x_cmp_mr(b, memo, X_RAX);
	x_jcc(b, CC_NE, slow);
	return memo;
}

/*
 * rax = the execname's place: the platform's per-thread memo when it
 * knows the current thread's, else its function (which fills the memo).
 * The thread's address and the memo are the platform's own memory.
 */
static void execname(struct jit *j)
{
	struct jit_buf *b = j->b;
	uint32_t slow, done;
	struct x_mem memo;

	if (j->o.site == JIT_SITE_LOCAL) {	/* the runtime's copy */
		jit_call(j, MT_JR_HELPER, MT_JH_EXECNAME, 1, 0, 0, 0, X_RAX);
		return;
	}
	slow = jit_label_new(b), done = jit_label_new(b);
	memo = memo_entry(j, slow);

	memo.disp = 8;
	x_load_m(b, 8, X_RAX, memo);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NE, done);
	jit_label_here(b, slow);
	jit_call(j, MT_JR_PLAT_EXECNAME, 0, 0, 0, 0, 0, X_RAX);
	jit_label_here(b, done);
}

/* rax = tid or pid (v): the platform's memo when it knows the current
   thread's, else the runtime's helper (which fills the memo).  Clobbers
   rdx. */
static void memo_var(struct jit *j, uint32_t v)
{
	struct jit_buf *b = j->b;
	uint32_t slow = jit_label_new(b), done = jit_label_new(b);
	struct x_mem memo = memo_entry(j, slow);

	memo.disp = v == MT_VAR_TID ? MT_JIT_MEMO_TIDOK : MT_JIT_MEMO_PIDOK;
	x_load_m(b, 8, X_RAX, memo);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_E, slow);
	memo.disp = v == MT_VAR_TID ? MT_JIT_MEMO_TID : MT_JIT_MEMO_PID;
	x_load_m(b, 8, X_RAX, memo);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NE, done);
	jit_label_here(b, slow);
	jit_call(j, MT_JR_HELPER, MT_JH_VAR, 2, v, 0, 0, X_RAX);
	jit_label_here(b, done);
}

/*
 * Thread-local id's row, inline (abi.h, mt_tls_column): the current
 * thread's tid from the platform's memo, then its row among the
 * MT_TLS_PROBE from the tid's hash, unrolled.  At `found`, rax is the
 * row's byte offset in MT_JR_TLS; falling through, the thread has no row;
 * anything the memo does not know (a thread it has not seen, tid 0) goes
 * to `slow`, the runtime's helper.  Clobbers rcx (the key) and rdx.
 */
static void tls_row(struct jit *j, uint32_t slow, uint32_t found)
{
	struct jit_buf *b = j->b;
	struct x_mem memo = memo_entry(j, slow);
	uint32_t ncols;

	mt_tls_column(j->img, 0, &ncols);
	memo.disp = MT_JIT_MEMO_TIDOK;
	x_load_m(b, 8, X_RCX, memo);
	x_test_rr(b, X_RCX, X_RCX);
	x_jcc(b, CC_E, slow);
	memo.disp = MT_JIT_MEMO_TID;
	x_load_m(b, 8, X_RCX, memo);
	x_test_rr(b, X_RCX, X_RCX);
	x_jcc(b, CC_E, slow);
	x_mov_ri(b, X_RDX, 0x9e3779b97f4a7c15ull);	/* mt_tls_hash */
	x_imul_rr(b, X_RDX, X_RCX);
	x_shift_ri(b, 5, X_RDX, 32);
	for (int32_t k = 0; k < MT_TLS_PROBE; k++) {
		x_mov_rr(b, X_RAX, X_RDX);
		if (k)
			x_alu_ri(b, A_ADD, X_RAX, k);
		x_alu_rrel(b, A_AND, X_RAX, MT_JR_TLS_MASK, 0);
		x_imul_ri(b, X_RAX, X_RAX, (int32_t)(8 * (1 + ncols)));
		x_cmp_mr(b, (struct x_mem){ X_RAX, 0, MT_JR_TLS, 0 }, X_RCX);
		x_jcc(b, CC_E, found);
	}
}

/* LDTS: rax = thread-local id (0 if the thread has no row). */
static void ldts(struct jit *j, uint32_t id)
{
	struct jit_buf *b = j->b;
	uint32_t slow, found, done;
	int32_t col = mt_tls_column(j->img, id, 0);

	if (j->o.site == JIT_SITE_LOCAL) {	/* no thread memo: the runtime's */
		jit_call(j, MT_JR_HELPER, MT_JH_TLS_LOAD, 2, id, 0, 0, X_RAX);
		return;
	}
	slow = jit_label_new(b), found = jit_label_new(b), done = jit_label_new(b);
	tls_row(j, slow, found);
	x_mov_ri(b, X_RAX, 0);
	x_jmp(b, done);
	jit_label_here(b, found);
	x_load_m(b, 8, X_RAX, (struct x_mem){ X_RAX, 8 + 8 * col, MT_JR_TLS, 0 });
	x_jmp(b, done);
	jit_label_here(b, slow);
	jit_call(j, MT_JR_HELPER, MT_JH_TLS_LOAD, 2, id, 0, 0, X_RAX);
	jit_label_here(b, done);
}

static void stts_call(struct jit *j, uint32_t id, int has_v, enum jreg v)
{
	if (has_v)
		jit_call(j, MT_JR_HELPER, MT_JH_TLS_STORE, 3, id, 0, 1, v);
	else
		jit_call(j, MT_JR_HELPER, MT_JH_TLS_STORE, 3, id, 0, 0, X_RAX);
}

/* STTS: thread-local id = register v (a pool register; 0: none, the
   value 0).  A thread with no row needs one only for a value not 0. */
static void stts(struct jit *j, uint32_t id, int has_v, enum jreg v)
{
	struct jit_buf *b = j->b;
	uint32_t slow, found, done;
	struct x_mem at = { X_RAX, 8 + 8 * mt_tls_column(j->img, id, 0), MT_JR_TLS, 0 };

	if (j->o.site == JIT_SITE_LOCAL) {	/* no thread memo: the runtime's */
		stts_call(j, id, has_v, v);
		return;
	}
	slow = jit_label_new(b), found = jit_label_new(b), done = jit_label_new(b);
	tls_row(j, slow, found);
	if (has_v) {
		x_test_rr(b, v, v);
		x_jcc(b, CC_NE, slow);
	}
	x_jmp(b, done);
	jit_label_here(b, found);
	if (has_v)
		x_store_m(b, 8, v, at);
	else
		x_store_mi(b, 8, at, 0);
	x_jmp(b, done);
	jit_label_here(b, slow);
	stts_call(j, id, has_v, v);
	jit_label_here(b, done);
}

static void ldgs(struct difo_em *e, uint32_t v, uint32_t rd)
{
	struct jit *j = e->j;
	const struct mt_probe *pr = &j->t.probes[j->probe];
	enum jreg x = rd ? reg(e, rd) : X_RAX;

	if (v >= MT_VAR_ARG0 && v <= MT_VAR_ARG9) {
		jit_arg(j, x, v - MT_VAR_ARG0);
		return;
	}
	if (v >= MT_VAR_USER) {
		x_load_abs(j->b, 8, x, MT_JR_GLOBALS, v, 0);
		return;
	}
	switch (v) {
	case MT_VAR_EPID: x_mov_ri(j->b, x, j->epid); return;
	case MT_VAR_ID: x_mov_ri(j->b, x, pr->id); return;
	case MT_VAR_PROBEPROV: strtab_addr(j, x, pr->prov); return;
	case MT_VAR_PROBEMOD: strtab_addr(j, x, pr->mod); return;
	case MT_VAR_PROBEFUNC: strtab_addr(j, x, pr->func); return;
	case MT_VAR_PROBENAME: strtab_addr(j, x, pr->name); return;
	case MT_VAR_EXECNAME:
		execname(j);
		e->flags = 0;
		put(e, rd, X_RAX);
		return;
	case MT_VAR_CPU:		/* the CPU of the code's copy (jitabi.h) */
		if (j->o.site != JIT_SITE_LOCAL) {
			x_mov_rrel(j->b, x, MT_JR_CPU, 0, 0);
			return;
		}
		jit_call(j, MT_JR_HELPER, MT_JH_VAR, 2, v, 0, 0, X_RAX);
		e->flags = 0;
		put(e, rd, X_RAX);
		return;
	case MT_VAR_CURTHREAD:
		if (j->o.site != JIT_SITE_LOCAL) {
			x_load_abs(j->b, 8, x, MT_JR_PLAT_CURTHREAD, 0, 0);
			return;
		}
		/* the runtime's on the host */
		/* fall through */
	case MT_VAR_PID: case MT_VAR_TID: case MT_VAR_TASK:
	case MT_VAR_VTIMESTAMP:		/* the platform's clock of the thread */
		if ((v == MT_VAR_TID || v == MT_VAR_PID) && j->o.site != JIT_SITE_LOCAL)
			memo_var(j, v);
		else
			jit_call(j, MT_JR_HELPER, MT_JH_VAR, 2, v, 0, 0, X_RAX);
		e->flags = 0;
		put(e, rd, X_RAX);
		return;
	default:			/* timestamp */
		jit_timestamp(j);
		e->flags = 0;
		put(e, rd, X_RAX);
		return;
	}
}

static const uint8_t alu_op[MT_OP__COUNT] = {
	[MT_OP_OR] = A_OR, [MT_OP_XOR] = A_XOR, [MT_OP_AND] = A_AND,
	[MT_OP_SUB] = A_SUB, [MT_OP_ADD] = A_ADD,
};

static void alu(struct difo_em *e, mt_instr_t in)
{
	struct jit_buf *b = e->j->b;
	uint32_t op = MT_OP(in), r1 = MT_R1(in), r2 = MT_R2(in), rd = MT_RD(in);

	get(e, X_RAX, r1);
	switch (op) {
	case MT_OP_OR: case MT_OP_XOR: case MT_OP_AND: case MT_OP_SUB: case MT_OP_ADD:
		if (r2)
			x_alu_rr(b, alu_op[op], X_RAX, reg(e, r2));
		else
			x_alu_ri(b, alu_op[op], X_RAX, 0);
		break;
	case MT_OP_MUL:
		if (r2)
			x_imul_rr(b, X_RAX, reg(e, r2));
		else
			x_mov_ri(b, X_RAX, 0);
		break;
	case MT_OP_NOT:
		x_not(b, X_RAX);
		break;
	case MT_OP_MOV:
		break;
	default:			/* shifts: by r2 & 63, as the interpreter */
		get(e, X_RCX, r2);
		x_shift_cl(b, op == MT_OP_SLL ? 4 : op == MT_OP_SRL ? 5 : 7, X_RAX);
		break;
	}
	put(e, rd, X_RAX);
	if (op != MT_OP_MOV)
		e->flags = 0;
}

/* The x86 condition for a DIF branch after cmp (flags 1) or test (2);
   -1: always, -2: never. */
static int cond(uint32_t op, int flags)
{
	static const int after_cmp[] = {
		[MT_OP_BE] = CC_E, [MT_OP_BNE] = CC_NE, [MT_OP_BG] = CC_G,
		[MT_OP_BGU] = CC_A, [MT_OP_BGE] = CC_GE, [MT_OP_BGEU] = CC_AE,
		[MT_OP_BL] = CC_L, [MT_OP_BLU] = CC_B, [MT_OP_BLE] = CC_LE,
		[MT_OP_BLEU] = CC_BE,
	};

	if (op == MT_OP_BA)
		return -1;
	if (flags == 3)
		return op == MT_OP_BE ? CC_E : op == MT_OP_BNE ? CC_NE : -3;
	if (flags == 1)
		return after_cmp[op];
	/* TST: n = c = 0, z = (r1 == 0) */
	switch (op) {
	case MT_OP_BE: case MT_OP_BLE: case MT_OP_BLEU: return CC_E;
	case MT_OP_BNE: case MT_OP_BG: case MT_OP_BGU: return CC_NE;
	case MT_OP_BGE: case MT_OP_BGEU: return -1;
	default: return -2;		/* BL, BLU */
	}
}

/*
 * SCMP of the execname buffer with a string constant, only for == and
 * != (ZF alone): the constant's bytes and its NUL against the name's,
 * a word at a time (MT_JIT_PLATNAME bytes are readable there: a longer
 * constant is not compiled).
 */
static int scmp(struct difo_em *e, uint32_t pc, uint32_t r1, uint32_t r2)
{
	struct jit *j = e->j;
	struct jit_buf *b = j->b;
	uint32_t c, x, done;
	const char *s;
	size_t n;

	if (r1 && r2 && e->str[r1] == STR_CONST && e->str[r2] == STR_EXECNAME)
		c = r1, x = r2;
	else if (r1 && r2 && e->str[r2] == STR_CONST && e->str[r1] == STR_EXECNAME)
		c = r2, x = r1;
	else
		return jit_fail(j, "a string compare other than execname with a constant");
	s = j->t.strtab + e->stroff[c];
	n = strnlen(s, j->img->strtab_size - e->stroff[c]) + 1;
	if (n > MT_JIT_PLATNAME)
		return jit_fail(j, "a string constant of %zu bytes", n);
	done = jit_label_new(b);
	get(e, X_RAX, x);
	for (size_t o = 0; o < n; o += 8) {
		size_t k = n - o < 8 ? n - o : 8;
		uint64_t w = 0;
		for (size_t i = 0; i < k; i++)
			w |= (uint64_t)(uint8_t)(i + o + 1 == n ? 0 : s[o + i]) << (8 * i);
		x_load_m(b, 8, X_RCX, (struct x_mem){ X_RAX, (int32_t)o, 0, 0 });
		if (k < 8) {
			x_shift_ri(b, 4, X_RCX, (uint8_t)(8 * (8 - k)));
			w <<= 8 * (8 - k);
		}
		x_mov_ri(b, X_RDX, w);
		x_alu_rr(b, A_CMP, X_RCX, X_RDX);
		if (o + 8 < n)
			x_jcc(b, CC_NE, done);
	}
	jit_label_here(b, done);
	e->flags = 3;
	(void)pc;
	return 0;
}

/*
 * A load: the runtime's safe load (MT_JH_LOAD); a fault goes to the
 * clause's fault path with where in eax, which reports it (MT_JH_FAULT)
 * and abandons the clause, as the interpreter does.
 */
/* To the clause's fault path (the fault is in MT_JR_FAULT's word), with
   where it happened in eax. */
static void to_fault(struct difo_em *e, uint32_t pc)
{
	struct jit *j = e->j;

	x_mov_ri(j->b, X_RAX, (uint64_t)j->where_act << 16 | (pc & 0xffff));
	x_jmp(j->b, j->fault);
	j->faults = 1;
}

/* rax = rax srem d (d not 0 or -1; clobbers rcx, rdx): the remainder of
   the magnitudes, negated when the signs differ, on the stack meanwhile. */
static void srem_abs(struct jit_buf *b, enum jreg d)
{
	uint32_t l1 = jit_label_new(b), l2 = jit_label_new(b), l3 = jit_label_new(b);

	x_mov_rr(b, X_RDX, X_RAX);
	x_alu_rr(b, A_XOR, X_RDX, d);
	x_push(b, X_RDX);
	x_mov_rr(b, X_RCX, d);
	x_test_rr(b, X_RCX, X_RCX);
	x_jcc(b, CC_NS, l1);
	x_neg(b, X_RCX);
	jit_label_here(b, l1);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NS, l2);
	x_neg(b, X_RAX);
	jit_label_here(b, l2);
	x_mov_ri(b, X_RDX, 0);
	x_div(b, X_RCX, 0);
	x_mov_rr(b, X_RAX, X_RDX);
	x_pop(b, X_RDX);
	x_test_rr(b, X_RDX, X_RDX);
	x_jcc(b, CC_NS, l3);
	x_neg(b, X_RAX);
	jit_label_here(b, l3);
}

/*
 * rax = size bytes at rax if they lie in one of the platform's loadable
 * ranges and are aligned, then to done; else on (rdx clobbered).  So the
 * common load costs a few instructions; any other address takes the
 * runtime's safe load, which faults as the interpreter does.
 */
static void load_inline(struct jit_buf *b, int size, int is_signed, uint32_t done)
{
	uint32_t slow = jit_label_new(b), fast = jit_label_new(b);
	struct x_mem at = { X_RAX, 0, 0, 0 };

	if (size > 1) {
		x_mov_rr(b, X_RDX, X_RAX);
		x_alu_ri(b, A_AND, X_RDX, size - 1);
		x_jcc(b, CC_NE, slow);
	}
	for (int i = 0; i < MT_JIT_NLOADABLE; i++) {
		x_mov_rr(b, X_RDX, X_RAX);
		x_alu_r_abs(b, A_SUB, X_RDX, MT_JR_PLAT_LOADABLE, 0, 16 * i);
		x_alu_r_abs(b, A_CMP, X_RDX, MT_JR_PLAT_LOADABLE, 0, 16 * i + 8);
		x_jcc(b, CC_B, fast);
	}
	x_jmp(b, slow);
	jit_label_here(b, fast);
	x_load_ext(b, size, is_signed, X_RAX, at);
	x_jmp(b, done);
	jit_label_here(b, slow);
}

static void load(struct difo_em *e, uint32_t pc, mt_instr_t in)
{
	static const uint16_t how[] = {
		[MT_OP_LDSB] = 1 | MT_JH_LOAD_SIGNED, [MT_OP_LDSH] = 2 | MT_JH_LOAD_SIGNED,
		[MT_OP_LDSW] = 4 | MT_JH_LOAD_SIGNED, [MT_OP_LDUB] = 1, [MT_OP_LDUH] = 2,
		[MT_OP_LDUW] = 4, [MT_OP_LDX] = 8,
	};
	struct jit *j = e->j;
	uint32_t ok = jit_label_new(j->b), done = jit_label_new(j->b), r1 = MT_R1(in);
	uint16_t h = how[MT_OP(in)];

	if (inline_loads(j)) {
		get(e, X_RAX, r1);
		load_inline(j->b, h & 0xff, (h & MT_JH_LOAD_SIGNED) != 0, done);
		jit_call(j, MT_JR_HELPER, MT_JH_LOAD, 3, h, 0, 1, X_RAX);
	} else if (r1) {
		jit_call(j, MT_JR_HELPER, MT_JH_LOAD, 3, h, 0, 1, reg(e, r1));
	} else {
		jit_call(j, MT_JR_HELPER, MT_JH_LOAD, 3, h, 0, 0, X_RAX);
	}
	x_cmp_abs_imm(j->b, 4, MT_JR_FAULT, 0, 0, 0);
	x_jcc(j->b, CC_E, ok);
	to_fault(e, pc);
	jit_label_here(j->b, ok);
	jit_label_here(j->b, done);
	put(e, MT_RD(in), X_RAX);
	e->flags = 0;
}

/*
 * SDIV, UDIV, SREM, UREM as the interpreter computes them (interp.c,
 * alu): a divisor of 0 faults DIVZERO; a signed divisor of -1 gives -a
 * and 0 (never idiv's overflow trap); a signed remainder is |a| % |b|
 * with the sign of a ^ b.
 */
static void divide(struct difo_em *e, uint32_t pc, mt_instr_t in)
{
	struct jit_buf *b = e->j->b;
	uint32_t op = MT_OP(in), r2 = MT_R2(in), ok = jit_label_new(b), done = jit_label_new(b);
	enum jreg d = r2 ? reg(e, r2) : X_RCX;

	if (!r2)
		x_mov_ri(b, X_RCX, 0);
	x_test_rr(b, d, d);
	x_jcc(b, CC_NE, ok);
	x_mov_ri(b, X_RAX, MT_FLT_DIVZERO);
	x_store_abs(b, 4, X_RAX, MT_JR_FAULT, 0, 0);
	to_fault(e, pc);
	jit_label_here(b, ok);
	get(e, X_RAX, MT_R1(in));
	if (op == MT_OP_SDIV || op == MT_OP_SREM) {
		uint32_t normal = jit_label_new(b);
		x_alu_ri(b, A_CMP, d, -1);
		x_jcc(b, CC_NE, normal);
		if (op == MT_OP_SREM)
			x_mov_ri(b, X_RAX, 0);
		else
			x_neg(b, X_RAX);
		x_jmp(b, done);
		jit_label_here(b, normal);
	}
	if (op == MT_OP_SREM)
		srem_abs(b, d);
	else if (op == MT_OP_SDIV) {
		x_cqo(b);
		x_div(b, d, 1);
	} else {
		x_mov_ri(b, X_RDX, 0);
		x_div(b, d, 0);
		if (op == MT_OP_UREM)
			x_mov_rr(b, X_RAX, X_RDX);
	}
	jit_label_here(b, done);
	put(e, MT_RD(in), X_RAX);
	e->flags = 0;
}

/*
 * CALL of mach_pid/mach_tid/mach_execname (unsupported() allows no other)
 * with the one argument PUSHTV pushed: the runtime's helper, a fault to
 * the clause's fault path.  A string result stays in the runtime's
 * scratch until the next helper call, so only a record's value may
 * return it (the RET's check) and only one such call is live.
 */
static int subr_call(struct difo_em *e, uint32_t pc, mt_instr_t in)
{
	struct jit *j = e->j;
	uint32_t ok = jit_label_new(j->b), rd = MT_RD(in), v = MT_V16(in);

	if (e->tv < 0)
		return jit_fail(j, "a subroutine without its argument at %u", pc);
	for (int r = 1; r < MT_NREGS; r++)
		if (e->str[r] == STR_SCRATCH)
			return jit_fail(j, "two subroutine strings in one DIFO at %u", pc);
	if (e->tv)
		jit_call(j, MT_JR_HELPER, MT_JH_SUBR, 3, v, 0, 1, reg(e, (uint32_t)e->tv));
	else
		jit_call(j, MT_JR_HELPER, MT_JH_SUBR, 3, v, 0, 0, X_RAX);
	e->tv = -1;
	x_cmp_abs_imm(j->b, 4, MT_JR_FAULT, 0, 0, 0);
	x_jcc(j->b, CC_E, ok);
	to_fault(e, pc);
	jit_label_here(j->b, ok);
	put(e, rd, X_RAX);
	e->flags = 0;
	if (v == MT_SUBR_MACH_EXECNAME)
		e->scratch = 1;
	if (rd && v == MT_SUBR_MACH_EXECNAME) {
		e->str[rd] = STR_SCRATCH;
		e->bound[rd] = 0;
	}
	return 0;
}

/*
 * COPYS of a subroutine's string (readable: no fault the copy could
 * take) into scratch ALLOCS reserved, of a constant size: the
 * destination aliases the string, bounded by that size where a record
 * copies it (stringof(args[1]->pr_fname)).
 */
static int copys(struct difo_em *e, uint32_t pc, mt_instr_t in)
{
	uint32_t r1 = MT_R1(in), r2 = MT_R2(in), rd = MT_RD(in);

	if (!rd || e->str[rd] != STR_ALLOC || !r1 || e->str[r1] != STR_SCRATCH ||
	    !r2 || !e->known[r2] || e->kval[r2] == 0 || e->kval[r2] > 0xffff)
		return jit_fail(e->j, "a string copy other than of a subroutine's "
				"string at %u", pc);
	x_mov_rr(e->j->b, reg(e, rd), reg(e, r1));
	e->str[rd] = STR_SCRATCH;
	e->bound[rd] = (uint32_t)e->kval[r2];
	e->str[r1] = STR_NONE;		/* one live scratch string */
	return 0;
}

/* x = DIF register r (0 for r0); a pool register is never rdx or rcx */
static void arg_reg(struct difo_em *e, enum jreg x, int r)
{
	if (r > 0)
		x_mov_rr(e->j->b, x, reg(e, (uint32_t)r));
	else
		x_mov_ri(e->j->b, x, 0);
}

/* LDGAA/STGAA of an integer array at the one integer key PUSHTV pushed:
   the runtime's MT_JH_GAA. */
static int gaa(struct difo_em *e, uint32_t pc, mt_instr_t in)
{
	struct jit_buf *b = e->j->b;
	uint32_t rd = MT_RD(in), id = MT_V16(in);

	if (e->tv < 0)
		return jit_fail(e->j, "an associative array without its key at %u", pc);
	for (size_t i = 0; i < NCOLD; i++)
		x_push(b, cold_save[i]);
	arg_reg(e, X_RDX, e->tv);
	if (MT_OP(in) == MT_OP_STGAA) {
		arg_reg(e, X_RCX, (int)rd);
		id |= MT_JH_GAA_STORE;
	}
	x_mov_rrel(b, X_RDI, MT_JR_CB, 0, 0);
	x_mov_ri(b, X_RSI, id);
	x_call_rel(b, MT_JR_HELPER, MT_JH_GAA);
	for (size_t i = NCOLD; i-- > 0;)
		x_pop(b, cold_save[i]);
	if (MT_OP(in) == MT_OP_LDGAA)
		put(e, rd, X_RAX);
	e->flags = 0;
	return 0;
}

static int one(struct difo_em *e, const struct mt_difo *d, uint32_t pc, mt_instr_t in)
{
	struct jit *j = e->j;
	struct jit_buf *b = j->b;
	uint32_t op = MT_OP(in), rd = MT_RD(in), rm, wm;
	int c;

	uses(in, &rm, &wm);
	for (int r = 1; r < MT_NREGS; r++) {	/* ALLOCS emits nothing */
		if ((rm >> r & 1) && e->str[r] == STR_ALLOC && op != MT_OP_COPYS)
			return jit_fail(j, "an ALLOCS whose scratch an instruction other "
					"than COPYS reads (at %u)", pc);
		/* the runtime's MT_JH_STR or MT_JH_AGGVALS consumes it */
		if ((rm >> r & 1) && e->str[r] == STR_SCRATCH && op != MT_OP_COPYS &&
		    op != MT_OP_MOV && op != MT_OP_RET)
			return jit_fail(j, "a subroutine's string other than a value "
					"(at %u)", pc);
	}
	if (wm && op == MT_OP_MOV) {		/* the value's kind goes with it */
		uint32_t r1 = MT_R1(in);
		e->str[rd] = e->str[r1];
		e->stroff[rd] = e->stroff[r1];
		e->bound[rd] = e->bound[r1];
		e->known[rd] = e->known[r1];
		e->kval[rd] = e->kval[r1];
	} else if (wm) {
		e->str[rd] = STR_NONE;
		e->known[rd] = 0;
	}
	switch (op) {
	case MT_OP_NOP:
		return 0;
	case MT_OP_PUSHTV:
		if (e->tv >= 0)
			return jit_fail(j, "a tuple of more than one value at %u", pc);
		e->tv = (int)rd;
		return 0;
	case MT_OP_CALL:
		return subr_call(e, pc, in);
	case MT_OP_FLUSHTS:
		e->tv = -1;
		return 0;
	case MT_OP_LDGAA: case MT_OP_STGAA:
		return gaa(e, pc, in);
	case MT_OP_LDLS:
		x_load_abs(b, 8, rd ? reg(e, rd) : X_RAX, MT_JR_LOCALS, MT_V16(in), 0);
		return 0;
	case MT_OP_ALLOCS:
		e->str[rd] = STR_ALLOC;
		return 0;
	case MT_OP_COPYS:
		return copys(e, pc, in);
	case MT_OP_CMP:
		get(e, X_RAX, MT_R1(in));
		if (MT_R2(in))
			x_alu_rr(b, A_CMP, X_RAX, reg(e, MT_R2(in)));
		else
			x_alu_ri(b, A_CMP, X_RAX, 0);
		e->flags = 1;
		return 0;
	case MT_OP_TST:
		get(e, X_RAX, MT_R1(in));
		x_test_rr(b, X_RAX, X_RAX);
		e->flags = 2;
		return 0;
	case MT_OP_SCMP:
		return scmp(e, pc, MT_R1(in), MT_R2(in));
	case MT_OP_LDSB: case MT_OP_LDSH: case MT_OP_LDSW: case MT_OP_LDUB:
	case MT_OP_LDUH: case MT_OP_LDUW: case MT_OP_LDX:
		load(e, pc, in);
		return 0;
	case MT_OP_STGS: case MT_OP_STLS:
		get(e, X_RAX, rd);
		x_store_abs(b, 8, X_RAX, op == MT_OP_STGS ? MT_JR_GLOBALS : MT_JR_LOCALS,
			    MT_V16(in), 0);
		return 0;
	case MT_OP_LDTS:
		ldts(j, MT_V16(in));
		put(e, rd, X_RAX);
		e->flags = 0;
		return 0;
	case MT_OP_STTS:
		stts(j, MT_V16(in), rd != 0, rd ? reg(e, rd) : X_RAX);
		e->flags = 0;
		return 0;
	case MT_OP_RET:
		if ((e->str[rd] == STR_SCRATCH || e->scratch) &&
		    (!j->str_rec || e->str[rd] != STR_SCRATCH))
			return jit_fail(j, "a subroutine's string other than a record's value");
		/* RETs of different kinds of string: JIT_STR_MIXED */
		j->ret_str = j->nret++ && j->ret_str != e->str[rd] ? JIT_STR_MIXED : e->str[rd];
		j->ret_bound = e->str[rd] == STR_SCRATCH ? e->bound[rd] : 0;
		get(e, X_RAX, rd);
		if (pc + 1 < d->ntext)
			x_jmp(b, e->end);
		return 0;
	case MT_OP_SETX:
		if (rd) {
			x_mov_ri(b, reg(e, rd), j->t.ints[MT_V16(in)]);
			e->known[rd] = 1;
			e->kval[rd] = j->t.ints[MT_V16(in)];
		}
		return 0;
	case MT_OP_SETS:
		if (rd) {
			strtab_addr(j, reg(e, rd), MT_V16(in));
			e->str[rd] = STR_CONST;
			e->stroff[rd] = MT_V16(in);
		}
		return 0;
	case MT_OP_LDGS:
		ldgs(e, MT_V16(in), rd);
		if (rd && MT_V16(in) == MT_VAR_EXECNAME)
			e->str[rd] = STR_EXECNAME;
		return 0;
	case MT_OP_LDGA: {		/* args[N] (ldga_unsupported) */
		uint64_t i = 0;
		ldga_index(j, d, pc, &i);
		if (rd && i < JIT_NARGS)
			jit_arg(j, reg(e, rd), (uint32_t)i);
		else if (rd)
			x_mov_ri(b, reg(e, rd), 0);
		e->flags = 0;
		return 0;
	}
	}
	if (op == MT_OP_SDIV || op == MT_OP_UDIV || op == MT_OP_SREM || op == MT_OP_UREM) {
		divide(e, pc, in);
		return 0;
	}
	if (!is_branch(op)) {
		alu(e, in);
		return 0;
	}
	if (op != MT_OP_BA && !e->flags)
		return jit_fail(j, "DIFO branch at %u after its compare's flags changed", pc);
	c = cond(op, e->flags);
	if (c == -3)
		return jit_fail(j, "a string ordering at %u", pc);
	if (MT_LABEL(in) >= d->ntext)
		return jit_fail(j, "DIFO branch past its end at %u", pc);
	if (c == -1)
		x_jmp(b, e->labels[MT_LABEL(in)]);
	else if (c >= 0)
		x_jcc(b, (enum jcc)c, e->labels[MT_LABEL(in)]);
	return 0;
}

int jit_difo(struct jit *j, uint32_t difo1)
{
	const struct mt_difo *d = &j->t.difos[difo1 - 1];
	struct difo_em e;
	uint32_t zero, dummy = 0;

	if (jit_difo_needs(j, difo1, &dummy) < 0)
		return -1;
	if (d->ntext > 1024)
		return jit_fail(j, "DIFO %u is too long", difo1);
	memset(&e, 0, sizeof e);
	e.j = j;
	e.tv = -1;
	j->ret_str = STR_NONE;
	j->ret_bound = 0;
	j->nret = 0;
	map_regs(j, d, e.map);
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		mt_instr_t in = j->t.text[d->text0 + pc];
		if (is_branch(MT_OP(in)) && MT_LABEL(in) < d->ntext && !e.target[MT_LABEL(in)]) {
			e.target[MT_LABEL(in)] = 1;
			e.labels[MT_LABEL(in)] = jit_label_new(j->b);
		}
	}
	e.end = jit_label_new(j->b);
	zero = maybe_unset(j, d);
	for (int r = 1; r < MT_NREGS; r++)
		if ((zero >> r & 1) && e.map[r] >= 0)
			x_mov_ri(j->b, reg(&e, (uint32_t)r), 0);
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		if (e.target[pc]) {
			jit_label_here(j->b, e.labels[pc]);
			e.flags = 0;
		}
		if (one(&e, d, pc, j->t.text[d->text0 + pc]) < 0)
			return -1;
	}
	jit_label_here(j->b, e.end);
	return j->b->err ? jit_fail(j, "out of memory or labels") : 0;
}
