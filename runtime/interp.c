/*
 * The bytecode interpreter (probe context), after illumos
 * dtrace_dif_emulate.  The verifier has checked opcodes, registers,
 * branch targets (forward only) and table indices, so this loop checks
 * only what depends on run-time values: addresses, divisors, scratch and
 * tuple-stack space.  A fault stops the DIFO; the caller reports it.
 */
#include "rt.h"

/* The platform writes the string and its NUL: the rest of the strsize
   bytes is left as it was (every string reader stops at the NUL). */
static uint64_t str_builtin(struct rt_mstate *ms, uint32_t id)
{
	uint32_t n = ms->rt->strsize;
	uint64_t p = rt_alloc_raw(ms, n);

	if (p)
		mt_plat_strvar(ms->ctx, id, (char *)(uintptr_t)p, n);
	return p;
}

static uint64_t builtin(struct rt_mstate *ms, uint32_t id)
{
	const struct mt_probe *pr = &ms->rt->t.probes[ms->probe];
	const char *st = ms->rt->t.strtab;

	if (id >= MT_VAR_ARG0 && id <= MT_VAR_ARG9)
		return ms->ctx->arg[id - MT_VAR_ARG0];
	switch (id) {
	case MT_VAR_TIMESTAMP:
		return rt_ts(ms);
	case MT_VAR_WALLTIMESTAMP:
		return mt_plat_walltime();
	case MT_VAR_EPID:
		return ms->epid;
	case MT_VAR_ID:
		return pr->id;
	case MT_VAR_PROBEPROV:
		return (uint64_t)(uintptr_t)(st + pr->prov);
	case MT_VAR_PROBEMOD:
		return (uint64_t)(uintptr_t)(st + pr->mod);
	case MT_VAR_PROBEFUNC:
		return (uint64_t)(uintptr_t)(st + pr->func);
	case MT_VAR_PROBENAME:
		return (uint64_t)(uintptr_t)(st + pr->name);
	case MT_VAR_CPU: case MT_VAR_CURCPU:
		return ms->cpu;
	case MT_VAR_EXECNAME: case MT_VAR_ZONENAME: case MT_VAR_EXECARGS:
		return str_builtin(ms, id);
	case MT_VAR_TID:
		return rt_tid(ms);
	default:
		return mt_plat_var(ms->ctx, id);
	}
}

/* Copy a by-reference value (string or memory) from src into dst. */
static void ref_store(struct rt_mstate *ms, uint8_t *dst,
		      const struct rt_varslot *sl, uint64_t src)
{
	if (sl->flags & MT_VF_STRING)
		rt_copy_str_over(ms, (char *)dst, src, sl->size);
	else
		rt_copy_in(ms, dst, src, sl->size);
}

static uint64_t slot_load(const struct rt_varslot *sl, uint8_t *p)
{
	if (sl->flags & MT_VF_REF)
		return (uint64_t)(uintptr_t)p;
	return *(uint64_t *)p;
}

static void slot_store(struct rt_mstate *ms, const struct rt_varslot *sl,
		       uint8_t *p, uint64_t v)
{
	if (sl->flags & MT_VF_REF)
		ref_store(ms, p, sl, v);
	else
		*(uint64_t *)p = v;
}

/* Globals and clause-locals: by-ref values carry a NULL flag. */
static uint64_t *null_flag(const struct rt_varslot *sl, uint8_t *p)
{
	return (uint64_t *)(p + RT_ALIGN(sl->size, 8));
}

static uint64_t var_load(const struct rt_varslot *sl, uint8_t *p)
{
	if ((sl->flags & MT_VF_REF) && *null_flag(sl, p))
		return 0;
	return slot_load(sl, p);
}

static void var_store(struct rt_mstate *ms, const struct rt_varslot *sl,
		      uint8_t *p, uint64_t v)
{
	if ((sl->flags & MT_VF_REF) && v == 0) {
		rt_memset(p, 0, RT_ALIGN(sl->size, 8));
		*null_flag(sl, p) = 1;
		return;
	}
	if (sl->flags & MT_VF_REF)
		*null_flag(sl, p) = 0;
	slot_store(ms, sl, p, v);
}

/* Dynamic variables: thread-locals and associative arrays.  The key is
   built in scratch and released afterwards. */
static uint64_t rt_dyn_load(struct rt_mstate *ms, uint32_t scope, uint32_t id, int tls)
{
	const struct rt_varslot *sl = rt_slot(ms->rt, scope, id);
	uint64_t mark = ms->scratch_used, v = 0;
	uint32_t klen;
	uint64_t small[2];
	uint8_t *key, *p;

	if (!sl || !(key = rt_key(ms, sl, scope, id, tls, &klen, small)))
		return 0;
	p = rt_dvar_get(ms, key, klen, 0);
	if (p)
		v = slot_load(sl, p);
	ms->scratch_used = mark;
	return v;
}

static void rt_dyn_store(struct rt_mstate *ms, uint32_t scope, uint32_t id, int tls, uint64_t v)
{
	const struct rt_varslot *sl = rt_slot(ms->rt, scope, id);
	uint64_t mark = ms->scratch_used;
	uint32_t klen;
	uint64_t small[2];
	uint8_t *key, *p;

	if (!sl || !(key = rt_key(ms, sl, scope, id, tls, &klen, small)))
		return;
	if (v == 0) {
		rt_dvar_del(ms, key, klen);
	} else {
		p = rt_dvar_get(ms, key, klen, 1);
		if (p)
			slot_store(ms, sl, p, v);
	}
	ms->scratch_used = mark;
}

/* self->x: a scalar one in its thread's row (tls.c), a by-reference one
   in dynamic variable space.  Compiled code's helpers (jitrt.c) too. */
uint64_t rt_tls_load(struct rt_mstate *ms, uint32_t id)
{
	const struct rt_varslot *sl = rt_slot(ms->rt, MT_VS_THREAD, id);
	const int64_t *p;

	if (sl && sl->tls) {
		p = rt_tls_ref(ms, sl, 0);
		return p ? (uint64_t)*p : 0;
	}
	return rt_dyn_load(ms, MT_VS_THREAD, id, 1);
}

void rt_tls_store(struct rt_mstate *ms, uint32_t id, uint64_t v)
{
	const struct rt_varslot *sl = rt_slot(ms->rt, MT_VS_THREAD, id);
	int64_t *p;

	if (sl && sl->tls) {
		if ((p = rt_tls_ref(ms, sl, v != 0)) != 0) {
			*p = (int64_t)v;
			if (v == 0)
				rt_tls_release(ms->rt, p - sl->off);
		}
		return;
	}
	rt_dyn_store(ms, MT_VS_THREAD, id, 1, v);
}

static int push(struct rt_mstate *ms, uint32_t type, uint64_t val,
		uint64_t size)
{
	struct rt_tuple *t;

	if (ms->ttop >= MT_TUPLE_MAX) {
		rt_fault(ms, MT_FLT_TUPOFLOW, 0);
		return -1;
	}
	t = &ms->tuple[ms->ttop++];
	t->type = type;
	t->val = val;
	t->size = type == MT_TT_STR ? ms->rt->strsize :
		type == MT_TT_INT ? 8 : size;
	return 0;
}

/*
 * Signed remainder as dtrace-utils computes it (arithmetic/tst.moddiv.d):
 * |a| % |b|, negative when exactly one operand is.
 */
static uint64_t srem(uint64_t a, uint64_t b)
{
	uint64_t ua = (int64_t)a < 0 ? 0 - a : a;
	uint64_t ub = (int64_t)b < 0 ? 0 - b : b;
	uint64_t r = ua % ub;

	return ((int64_t)(a ^ b) < 0) ? 0 - r : r;
}

/* String comparison; NULL sorts before every string, "" included. */
static int64_t scmp(struct rt_mstate *ms, uint64_t a, uint64_t b)
{
	uint64_t max = ms->rt->strsize;
	int64_t la, lb;
	const uint8_t *x, *y;
	int c;

	if (a == b)
		return 0;
	if (a == 0 || b == 0)
		return a == 0 ? -1 : 1;
	la = rt_strlen(ms, a, max);
	lb = rt_strlen(ms, b, max);
	if (la < 0 || lb < 0)
		return 0;
	x = (const uint8_t *)(uintptr_t)a;
	y = (const uint8_t *)(uintptr_t)b;
	/* equal up to the shorter one's end: its NUL sorts first */
	c = rt_memcmp(x, y, (uint64_t)(la < lb ? la : lb));
	if (c)
		return c;
	return la == lb ? 0 : la < lb ? -1 : 1;
}

/*
 * COPYS: a copy whose source is a string literal near the end of the
 * strtab (the compiler copies strsize bytes for string assignments) gets
 * the bytes past the image zero-filled instead of faulting.
 */
static void copys(struct rt_mstate *ms, uint64_t dst, uint64_t src,
		  uint64_t n)
{
	uint64_t st = (uint64_t)(uintptr_t)ms->rt->t.strtab;
	uint64_t stn = ms->rt->img->strtab_size;

	if (src >= st && src - st < stn && n > stn - (src - st)) {
		uint64_t k = stn - (src - st);
		rt_memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, k);
		rt_memset((uint8_t *)(uintptr_t)dst + k, 0, n - k);
		return;
	}
	rt_copy_in(ms, (void *)(uintptr_t)dst, src, n);
}

#define LOAD(type, size) do {						\
	if (rt_check_load(ms, r[MT_R1(in)], size) == 0)			\
		r[rd] = (uint64_t)(int64_t)*(const volatile type *)	\
			(uintptr_t)r[MT_R1(in)];				\
} while (0)

#define STORE(type, size) do {						\
	if (rt_check_store(ms, r[rd], size, 1) == 0)			\
		*(type *)(uintptr_t)r[rd] = (type)r[MT_R1(in)];		\
} while (0)

/* The condition codes CMP, TST and SCMP set for the branches. */
struct rt_flags {
	int n, z, c;
};

/* Arithmetic and logic: the value for rd.  Division by zero faults. */
static inline uint64_t alu(struct rt_mstate *ms, uint32_t op, uint64_t a,
			   uint64_t b)
{
	switch (op) {
	case MT_OP_OR: return a | b;
	case MT_OP_XOR: return a ^ b;
	case MT_OP_AND: return a & b;
	case MT_OP_SLL: return a << (b & 63);
	case MT_OP_SRL: return a >> (b & 63);
	case MT_OP_SRA: return (uint64_t)((int64_t)a >> (b & 63));
	case MT_OP_SUB: return a - b;
	case MT_OP_ADD: return a + b;
	case MT_OP_MUL: return a * b;
	case MT_OP_NOT: return ~a;
	case MT_OP_MOV: return a;
	}
	if (b == 0) {
		rt_fault(ms, MT_FLT_DIVZERO, 0);
		return 0;
	}
	switch (op) {
	case MT_OP_SDIV:
		return (int64_t)b == -1 ? 0 - a : (uint64_t)((int64_t)a / (int64_t)b);
	case MT_OP_SREM:
		return (int64_t)b == -1 ? 0 : srem(a, b);
	case MT_OP_UDIV:
		return a / b;
	default:
		return a % b;
	}
}

/* CMP, TST, SCMP */
static inline void compare(struct rt_mstate *ms, uint32_t op, uint64_t a,
			   uint64_t b, struct rt_flags *f)
{
	if (op == MT_OP_CMP) {
		f->n = (int64_t)a < (int64_t)b;
		f->z = a == b;
		f->c = a < b;
	} else if (op == MT_OP_TST) {
		f->n = f->c = 0;
		f->z = a == 0;
	} else {
		int64_t s = scmp(ms, a, b);
		f->n = s < 0;
		f->z = s == 0;
		f->c = 0;
	}
}

/* Is the branch op taken under the flags? */
static inline int taken(uint32_t op, const struct rt_flags *f)
{
	switch (op) {
	case MT_OP_BA: return 1;
	case MT_OP_BE: return f->z;
	case MT_OP_BNE: return !f->z;
	case MT_OP_BG: return !(f->z | f->n);
	case MT_OP_BGU: return !(f->c | f->z);
	case MT_OP_BGE: return !f->n;
	case MT_OP_BGEU: return !f->c;
	case MT_OP_BL: return f->n;
	case MT_OP_BLU: return f->c;
	case MT_OP_BLE: return f->z | f->n;
	default: return f->c | f->z;	/* BLEU */
	}
}

/* Safe loads and stores through a register. */
static inline void memop(struct rt_mstate *ms, mt_instr_t in, uint64_t *r)
{
	uint32_t rd = MT_RD(in);

	switch (MT_OP(in)) {
	case MT_OP_LDSB: LOAD(int8_t, 1); break;
	case MT_OP_LDSH: LOAD(int16_t, 2); break;
	case MT_OP_LDSW: LOAD(int32_t, 4); break;
	case MT_OP_LDUB: LOAD(uint8_t, 1); break;
	case MT_OP_LDUH: LOAD(uint16_t, 2); break;
	case MT_OP_LDUW: LOAD(uint32_t, 4); break;
	case MT_OP_LDX: LOAD(uint64_t, 8); break;
	case MT_OP_STB: STORE(uint8_t, 1); break;
	case MT_OP_STH: STORE(uint16_t, 2); break;
	case MT_OP_STW: STORE(uint32_t, 4); break;
	default: STORE(uint64_t, 8); break;	/* STX */
	}
}

/* LDGS: a built-in variable or a global scalar */
static inline uint64_t ldgs(struct rt_mstate *ms, uint32_t id)
{
	const struct rt_varslot *sl;

	if (id < MT_VAR_USER)
		return builtin(ms, id);
	sl = rt_slot(ms->rt, MT_VS_GLOBAL, id);
	return sl ? var_load(sl, ms->rt->globals + sl->off) : 0;
}

/* LDGA: args[b], regs[b] or uregs[b] */
static inline uint64_t ldga(struct rt_mstate *ms, uint32_t v, uint64_t b)
{
	uint64_t x;
	int ok = 1;

	if (v == MT_VAR_ARGS)
		x = b < 10 ? ms->ctx->arg[b] : 0;
	else
		x = mt_plat_reg(ms->ctx, v == MT_VAR_UREGS, b, &ok);
	if (ok == 0)
		rt_fault(ms, MT_FLT_ILLOP, b);
	else if (ok < 0)
		rt_fault(ms, MT_FLT_BADADDR, 0);
	return x;
}

/*
 * Variable loads and stores other than LDGS and LDGA: scalars in the
 * global and clause-local areas, thread-local and associative ones in
 * dynamic variable space.
 */
static inline void varop(struct rt_mstate *ms, mt_instr_t in, uint64_t *r)
{
	uint32_t rd = MT_RD(in), id = MT_V16(in);
	const struct rt_varslot *sl;

	switch (MT_OP(in)) {
	case MT_OP_STGS:
		sl = rt_slot(ms->rt, MT_VS_GLOBAL, id);
		if (sl)
			var_store(ms, sl, ms->rt->globals + sl->off, r[rd]);
		break;
	case MT_OP_LDLS:
		sl = rt_slot(ms->rt, MT_VS_LOCAL, id);
		r[rd] = sl ? var_load(sl, ms->c->locals + sl->off) : 0;
		break;
	case MT_OP_STLS:
		sl = rt_slot(ms->rt, MT_VS_LOCAL, id);
		if (sl)
			var_store(ms, sl, ms->c->locals + sl->off, r[rd]);
		break;
	case MT_OP_LDTS:
		r[rd] = rt_tls_load(ms, id);
		break;
	case MT_OP_STTS:
		rt_tls_store(ms, id, r[rd]);
		break;
	case MT_OP_LDTAA:
		r[rd] = rt_dyn_load(ms, MT_VS_THREAD, id, 1);
		break;
	case MT_OP_STTAA:
		rt_dyn_store(ms, MT_VS_THREAD, id, 1, r[rd]);
		break;
	case MT_OP_LDGAA:
		r[rd] = rt_dyn_load(ms, MT_VS_GLOBAL, id, 0);
		break;
	default:	/* STGAA */
		rt_dyn_store(ms, MT_VS_GLOBAL, id, 0, r[rd]);
		break;
	}
}

/* Subroutine calls, the tuple stack and scratch space. */
static inline void tupleop(struct rt_mstate *ms, mt_instr_t in, uint64_t *r,
			   uint64_t a, uint64_t b)
{
	uint32_t rd = MT_RD(in);

	switch (MT_OP(in)) {
	case MT_OP_CALL:
		rt_subr(ms, MT_V16(in), &r[rd]);
		ms->ttop = 0;
		break;
	case MT_OP_PUSHTR:
		push(ms, MT_R1(in), r[rd], b);
		break;
	case MT_OP_PUSHTV:
		push(ms, MT_TT_INT, r[rd], 8);
		break;
	case MT_OP_POPTS:
		if (ms->ttop)
			ms->ttop--;
		break;
	case MT_OP_FLUSHTS:
		ms->ttop = 0;
		break;
	case MT_OP_ALLOCS:
		r[rd] = rt_alloca(ms, a);
		break;
	default:	/* COPYS */
		if (rt_check_store(ms, r[rd], b, 0) == 0)
			copys(ms, r[rd], a, b);
		break;
	}
}

/*
 * Run DIFO difo1 (index + 1); *result gets what RET returned.  Returns 0,
 * or -1 with ms->fault, fault_addr and fault_pc set.
 */
int rt_exec(struct rt_mstate *ms, uint32_t difo1, uint64_t *result)
{
	const struct mt_difo *d = &ms->rt->t.difos[difo1 - 1];
	const mt_instr_t *text = ms->rt->t.text + d->text0;
	uint64_t r[MT_NREGS];
	struct rt_flags f = { 0, 0, 0 };
	uint32_t pc = 0;

	/* unrolled: sixteen stores, not a loop of sixty-four instructions,
	   at every predicate and value */
#pragma GCC unroll 16
	for (int i = 0; i < MT_NREGS; i++)
		r[i] = 0;
	ms->ttop = 0;
	while (pc < d->ntext) {
		mt_instr_t in = text[pc];
		uint32_t rd = MT_RD(in), op = MT_OP(in);
		/* operands; masked: V16 and label forms reuse these bytes */
		uint64_t a = r[MT_R1(in) & (MT_NREGS - 1)];
		uint64_t b = r[MT_R2(in) & (MT_NREGS - 1)];
		uint32_t next = pc + 1;

		switch (op) {
		case MT_OP_NOP:
			break;
		case MT_OP_OR: case MT_OP_XOR: case MT_OP_AND: case MT_OP_SLL:
		case MT_OP_SRL: case MT_OP_SRA: case MT_OP_SUB: case MT_OP_ADD:
		case MT_OP_MUL: case MT_OP_SDIV: case MT_OP_UDIV: case MT_OP_SREM:
		case MT_OP_UREM: case MT_OP_NOT: case MT_OP_MOV:
			r[rd] = alu(ms, op, a, b);
			break;
		case MT_OP_CMP: case MT_OP_TST: case MT_OP_SCMP:
			compare(ms, op, a, b, &f);
			break;
		case MT_OP_BA: case MT_OP_BE: case MT_OP_BNE: case MT_OP_BG:
		case MT_OP_BGU: case MT_OP_BGE: case MT_OP_BGEU: case MT_OP_BL:
		case MT_OP_BLU: case MT_OP_BLE: case MT_OP_BLEU:
			if (taken(op, &f))
				next = MT_LABEL(in);
			break;
		case MT_OP_LDSB: case MT_OP_LDSH: case MT_OP_LDSW: case MT_OP_LDUB:
		case MT_OP_LDUH: case MT_OP_LDUW: case MT_OP_LDX:
		case MT_OP_STB: case MT_OP_STH: case MT_OP_STW: case MT_OP_STX:
			memop(ms, in, r);
			break;
		case MT_OP_RET:
			*result = r[rd];
			return 0;
		case MT_OP_SETX:
			r[rd] = ms->rt->t.ints[MT_V16(in)];
			break;
		case MT_OP_SETS:
			r[rd] = (uint64_t)(uintptr_t)(ms->rt->t.strtab + MT_V16(in));
			break;
		case MT_OP_LDGS:
			r[rd] = ldgs(ms, MT_V16(in));
			break;
		case MT_OP_LDGA:
			r[rd] = ldga(ms, MT_R1(in), b);
			break;
		case MT_OP_STGS: case MT_OP_LDLS: case MT_OP_STLS:
		case MT_OP_LDTS: case MT_OP_STTS: case MT_OP_LDGAA:
		case MT_OP_STGAA: case MT_OP_LDTAA: case MT_OP_STTAA:
			varop(ms, in, r);
			break;
		case MT_OP_CALL: case MT_OP_PUSHTR: case MT_OP_PUSHTV:
		case MT_OP_POPTS: case MT_OP_FLUSHTS: case MT_OP_ALLOCS:
		case MT_OP_COPYS:
			tupleop(ms, in, r, a, b);
			break;
		default:
			rt_fault(ms, MT_FLT_ILLOP, 0);
			break;
		}
		r[0] = 0;
		if (ms->fault) {
			ms->fault_pc = pc;
			return -1;
		}
		pc = next;
	}
	ms->fault_pc = pc;
	rt_fault(ms, MT_FLT_ILLOP, 0);
	return -1;
}
