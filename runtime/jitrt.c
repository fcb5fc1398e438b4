/*
 * The runtime's side of compiled probes (jit/, machtrace/jitabi.h): the
 * addresses their relocations name, and the helpers they call (probe
 * context, from the compiled code, interrupts off).  The code has one
 * copy per CPU, each relocated to its CPU's state (mt_rt_jit_addr's
 * cpu), and runs only on its own CPU; a helper finds that CPU as the
 * interpreter does (mt_plat_cpu), sets up the machine state a firing of
 * the ECB would have and does what the interpreter does for it.
 */
#include "rt.h"
#include "machtrace/jitabi.h"


_Static_assert(RT_JIT_STR == MT_JIT_STRBUF, "the execname buffer the code reads");

static const struct mt_pctx no_ctx;

/* The helper's CPU: the one whose copy of the code called it, always one
   of the runtime's (the blob sends another CPU to the general path). */
static uint32_t jit_cpu(const struct rt *rt)
{
	uint32_t cpu = mt_plat_cpu();

	return cpu < rt->ncpus ? cpu : 0;
}

static void ms_init(struct rt_mstate *ms, struct rt *rt, uint32_t ecb,
		    const struct mt_pctx *ctx)
{
	/* field by field, as probe.c's fire(): not the tuple stack, which
	   zeroing would make the helper cost ten times a compiled firing */
	ms->rt = rt;
	ms->cpu = jit_cpu(rt);
	ms->ts = 0;
	ms->have_ts = 0;
	ms->tid = 0;
	ms->have_tid = 0;
	ms->scratch_used = 0;
	ms->alloca_used = 0;
	ms->fault = MT_FLT_NONE;
	ms->fault_pc = 0;
	ms->fault_addr = 0;
	ms->ttop = 0;
	ms->given = 0;
	ms->c = &rt->cpu[ms->cpu];
	ms->stat = &rt->cpustat[ms->cpu];
	ms->ctx = ctx;
	ms->probe = rt->t.ecbs[ecb].probe;
	ms->epid = ecb + 1;
}

/* A helper's fault for the code to find (MT_JR_FAULT's word). */
static void jit_fault_keep(const struct rt_mstate *ms)
{
	ms->c->jit_fault = ms->fault;
	ms->c->jit_fault_addr = ms->fault_addr;
}

/* The keyless entry's offset + 1, as rt_agg_keyless keeps it in aggent. */
static uint32_t mt_rt_jit_keyless(struct mt_cb *cb, uint32_t aggid)
{
	struct rt *rt = rt_get(cb);
	uint32_t cpu = jit_cpu(rt);

	if (aggid == 0 || aggid > rt->img->naggs || !rt_agg_keyless(rt, cpu, aggid))
		return 0;
	return rt->cpu[cpu].aggent[aggid - 1];
}

static uint32_t mt_rt_jit_named(struct mt_cb *cb, uint32_t ecb, uint32_t act)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	if (ecb >= rt->img->necbs || act >= rt->img->nactions)
		return 0;
	ms_init(&ms, rt, ecb, &no_ctx);
	return rt_agg_entry(&ms, &rt->t.actions[act]);
}

static void mt_rt_jit_action(struct mt_cb *cb, uint32_t ecb, uint32_t act, const uint64_t *args)
{
	struct rt *rt = rt_get(cb);
	const struct mt_clause *cl;
	struct mt_pctx ctx = no_ctx;
	struct rt_mstate ms;

	if (ecb >= rt->img->necbs || act >= rt->img->nactions)
		return;
	if (args)
		for (uint32_t i = 0; i < MT_NARGS; i++)
			ctx.arg[i] = args[i];
	ms_init(&ms, rt, ecb, &ctx);
	cl = &rt->t.clauses[rt->t.ecbs[ecb].clause];
	rt_aggregate(&ms, &rt->t.actions[act]);
	if (ms.fault)
		rt_report_fault(&ms, act - cl->act0);
}

static uint32_t mt_rt_jit_strkey(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint64_t str)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;
	uint32_t off, known = act & MT_JH_STRKEY_PLATNAME ? MT_JIT_PLATNAME : 0;

	act &= ~MT_JH_STRKEY_PLATNAME;
	if (ecb >= rt->img->necbs || act >= rt->img->nactions)
		return 0;
	ms_init(&ms, rt, ecb, &no_ctx);
	off = rt_agg_entry_str(&ms, &rt->t.actions[act], str, known);
	if (off && act < MT_JIT_ECBENT_STRKEY) {
		ms.c->ecbent[ecb].act = act | MT_JIT_ECBENT_STRKEY;
		ms.c->ecbent[ecb].off = off;
	}
	if (ms.fault)
		rt_report_fault(&ms, act - rt->t.clauses[rt->t.ecbs[ecb].clause].act0);
	return off;
}

static uint32_t mt_rt_jit_intkey(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint64_t key)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;
	uint64_t given[32];

	if (ecb >= rt->img->necbs || act >= rt->img->nactions ||
	    rt->t.actions[act].nrecs > 32)
		return 0;
	for (uint32_t i = 0; i < rt->t.actions[act].nrecs; i++)
		given[i] = key;			/* the one key rec's */
	ms_init(&ms, rt, ecb, &no_ctx);
	ms.given = given;
	return rt_agg_entry_given(&ms, &rt->t.actions[act]);
}

/* The entry of act keyed by the values at the CPU's staging record,
   kept in the aggregation's aggent (unused by a keyed aggregation) for
   compiled code to try first, the one it replaces there kept in the
   ECB's ecbent to try next (MT_JH_INTKEYS). */
static uint32_t intkeys_entry(struct rt_mstate *ms, uint32_t ecb, uint32_t act)
{
	struct rt *rt = ms->rt;
	uint32_t *last = &ms->c->aggent[rt->t.actions[act].arg - 1];
	uint32_t off;

	ms->given = (const uint64_t *)ms->c->stage;
	off = rt_agg_entry_given(ms, &rt->t.actions[act]);

	if (off && *last && *last != off) {
		ms->c->ecbent[ecb].act = act | MT_JIT_ECBENT_INTKEYS;
		ms->c->ecbent[ecb].off = *last;
	}
	if (off)
		*last = off;
	return off;
}

static int intkeys_ok(const struct rt *rt, uint32_t ecb, uint32_t act)
{
	return ecb < rt->img->necbs && act < rt->img->nactions && act < MT_JIT_ECBENT_INTKEYS &&
		rt->t.actions[act].kind == MT_ACT_AGG;
}

static uint32_t mt_rt_jit_intkeys(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t plat)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	if (!intkeys_ok(rt, ecb, act))
		return 0;
	ms_init(&ms, rt, ecb, &no_ctx);
	ms.given_plat = plat;
	return intkeys_entry(&ms, ecb, act);
}

static void mt_rt_jit_aggupd(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t off1)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	if (!intkeys_ok(rt, ecb, act))
		return;
	ms_init(&ms, rt, ecb, &no_ctx);
	ms.given = (const uint64_t *)ms.c->stage;
	if (off1 == 0)
		off1 = intkeys_entry(&ms, ecb, act);
	if (off1)
		rt_agg_update_entry(&ms, &rt->t.actions[act], off1);
}

static uint64_t mt_rt_jit_execname(struct mt_cb *cb)
{
	struct rt *rt = rt_get(cb);
	char *str = rt->cpu[jit_cpu(rt)].jit_str;

	mt_plat_strvar(&no_ctx, MT_VAR_EXECNAME, str, RT_JIT_STR);
	return (uint64_t)(uintptr_t)str;
}

/*
 * A scalar thread-local's value in the current thread's row (tls.c),
 * without a machine state: the row is found by the tid, as rt_tls_ref()
 * finds it.  A by-reference one goes the interpreter's way.
 */
static int64_t *jit_tls_ref(struct rt *rt, const struct rt_varslot *sl, int create)
{
	int64_t *row = rt_tls_row(rt, mt_plat_var(&no_ctx, MT_VAR_TID), create);

	return row ? row + sl->off : 0;
}

static uint64_t mt_rt_jit_tls_load(struct mt_cb *cb, uint32_t id)
{
	struct rt *rt = rt_get(cb);
	const struct rt_varslot *sl = rt_slot(rt, MT_VS_THREAD, id);
	struct rt_mstate ms;
	const int64_t *p;

	if (sl && sl->tls) {
		p = jit_tls_ref(rt, sl, 0);
		return p ? (uint64_t)*p : 0;
	}
	ms_init(&ms, rt, 0, &no_ctx);
	return rt_tls_load(&ms, id);
}

static void mt_rt_jit_tls_store(struct mt_cb *cb, uint32_t id, uint64_t v)
{
	struct rt *rt = rt_get(cb);
	const struct rt_varslot *sl = rt_slot(rt, MT_VS_THREAD, id);
	struct rt_mstate ms;
	int64_t *p;

	if (sl && sl->tls) {
		if ((p = jit_tls_ref(rt, sl, v != 0)) != 0) {
			*p = (int64_t)v;
			if (v == 0)
				rt_tls_release(rt, p - sl->off);
		}
		return;
	}
	ms_init(&ms, rt, 0, &no_ctx);
	rt_tls_store(&ms, id, v);
}

static uint64_t mt_rt_jit_load(struct mt_cb *cb, uint32_t how, uint64_t addr)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;
	uint32_t size = how & 0xff;
	uint64_t v;

	ms_init(&ms, rt, 0, &no_ctx);
	if (rt_check_load(&ms, addr, size) != 0) {
		jit_fault_keep(&ms);
		return 0;
	}
	switch (size) {
	case 1: v = *(const volatile uint8_t *)(uintptr_t)addr; break;
	case 2: v = *(const volatile uint16_t *)(uintptr_t)addr; break;
	case 4: v = *(const volatile uint32_t *)(uintptr_t)addr; break;
	default: return *(const volatile uint64_t *)(uintptr_t)addr;
	}
	if (how & MT_JH_LOAD_SIGNED) {
		int sh = 64 - 8 * (int)size;
		v = (uint64_t)((int64_t)(v << sh) >> sh);
	}
	return v;
}

static void mt_rt_jit_fault(struct mt_cb *cb, uint32_t ecb, uint32_t where)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;
	uint32_t act = where >> 16;

	if (ecb >= rt->img->necbs)
		return;
	ms_init(&ms, rt, ecb, &no_ctx);
	ms.fault = ms.c->jit_fault;
	ms.fault_addr = ms.c->jit_fault_addr;
	ms.fault_pc = where & 0xffff;
	ms.c->jit_fault = 0;
	ms.c->jit_fault_addr = 0;	/* compiled code's own faults have none */
	ms.c->jit_mark = 0;	/* the abandoned clause's strings */
	rt_report_fault(&ms, act == 0xffff ? 0xffffffffu : act);
}

/* A built-in, and the clock (the local target's compiled code has no
   TSC multiplier: its timestamp is mt_plat_time's, as the interpreter's). */
static uint64_t mt_rt_jit_var(struct mt_cb *cb, uint32_t var)
{
	if (var == MT_VAR_TIMESTAMP)
		return mt_plat_time();
	return mt_plat_var(&no_ctx, var);
}

static uint64_t mt_rt_jit_subr(struct mt_cb *cb, uint32_t subr, uint64_t arg)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;
	uint64_t r = 0;

	if (subr != MT_SUBR_MACH_PID && subr != MT_SUBR_MACH_TID &&
	    subr != MT_SUBR_MACH_EXECNAME)
		return 0;
	ms_init(&ms, rt, 0, &no_ctx);
	ms.scratch_used = ms.c->jit_mark;	/* after the strings not consumed yet */
	ms.tuple[0].val = arg;
	ms.tuple[0].size = 8;
	ms.tuple[0].type = MT_TT_INT;
	ms.ttop = 1;
	rt_subr(&ms, subr, &r);
	ms.c->jit_mark = ms.scratch_used;
	if (ms.fault) {
		jit_fault_keep(&ms);
		return 0;
	}
	return r;
}

/* Is [dst, dst + size) inside the CPU's principal buffer or staging
   record?  The only places compiled code writes a record. */
static int jit_rec_dst(const struct rt_mstate *ms, uint64_t dst, uint32_t size)
{
	const struct rt *rt = ms->rt;
	uint64_t buf = (uint64_t)(uintptr_t)ms->c->buf;
	uint64_t stage = (uint64_t)(uintptr_t)ms->c->stage;
	uint64_t bufsize = rt->cpubuf[ms->cpu].size;

	return (dst >= buf && dst - buf <= bufsize && size <= bufsize - (dst - buf)) ||
		(dst >= stage && dst - stage <= rt->stagesize &&
		 size <= rt->stagesize - (dst - stage));
}

static int64_t mt_rt_jit_str(struct mt_cb *cb, uint32_t size, uint64_t src, uint64_t dst)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	ms_init(&ms, rt, 0, &no_ctx);
	if (!jit_rec_dst(&ms, dst, size))
		return 0;
	ms.scratch_used = ms.c->jit_mark;	/* a subroutine's string is loadable */
	ms.c->jit_mark = 0;
	if (rt_copy_str0(&ms, (char *)(uintptr_t)dst, src, size) < 0) {
		jit_fault_keep(&ms);
		return -1;
	}
	return 0;
}

static uint64_t mt_rt_jit_gaa(struct mt_cb *cb, uint32_t id, uint64_t key, uint64_t v)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	ms_init(&ms, rt, 0, &no_ctx);
	ms.tuple[0].val = key;
	ms.tuple[0].size = 8;
	ms.tuple[0].type = MT_TT_INT;
	ms.ttop = 1;
	/* a compiled firing is in no epoch of its own: this helper's walk of
	   the chains is, so no other CPU reuses a chunk under it (rt.h) */
	if (rt->ncpus > 1)
		rt_epoch_enter(ms.c);
	if (id & MT_JH_GAA_STORE) {
		rt_dyn_store(&ms, MT_VS_GLOBAL, id & ~MT_JH_GAA_STORE, 0, v);
		v = 0;
	} else {
		v = rt_dyn_load(&ms, MT_VS_GLOBAL, id, 0);
	}
	if (rt->ncpus > 1)
		rt_epoch_exit(ms.c);
	return v;
}

/* Aggregation action act with the values compiled code left in the
   CPU's staging record (stage_size makes room for them). */
static void mt_rt_jit_aggvals(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint32_t plat)
{
	struct rt *rt = rt_get(cb);
	const struct mt_clause *cl;
	struct rt_mstate ms;

	if (ecb >= rt->img->necbs || act >= rt->img->nactions)
		return;
	ms_init(&ms, rt, ecb, &no_ctx);
	ms.scratch_used = ms.c->jit_mark;	/* a subroutine's string is loadable */
	ms.c->jit_mark = 0;
	ms.given = (const uint64_t *)ms.c->stage;
	ms.given_plat = plat;
	cl = &rt->t.clauses[rt->t.ecbs[ecb].clause];
	rt_aggregate(&ms, &rt->t.actions[act]);
	if (ms.fault)
		rt_report_fault(&ms, act - cl->act0);
}

static uint64_t mt_rt_jit_elapsed(struct mt_cb *cb)
{
	return rt_stamp_elapsed(rt_get(cb), &no_ctx);
}

static uint64_t helper(uint32_t h)
{
	switch (h) {
	case MT_JH_KEYLESS: return (uint64_t)(uintptr_t)mt_rt_jit_keyless;
	case MT_JH_NAMED: return (uint64_t)(uintptr_t)mt_rt_jit_named;
	case MT_JH_ACTION: return (uint64_t)(uintptr_t)mt_rt_jit_action;
	case MT_JH_EXECNAME: return (uint64_t)(uintptr_t)mt_rt_jit_execname;
	case MT_JH_TLS_LOAD: return (uint64_t)(uintptr_t)mt_rt_jit_tls_load;
	case MT_JH_TLS_STORE: return (uint64_t)(uintptr_t)mt_rt_jit_tls_store;
	case MT_JH_STRKEY: return (uint64_t)(uintptr_t)mt_rt_jit_strkey;
	case MT_JH_LOAD: return (uint64_t)(uintptr_t)mt_rt_jit_load;
	case MT_JH_FAULT: return (uint64_t)(uintptr_t)mt_rt_jit_fault;
	case MT_JH_VAR: return (uint64_t)(uintptr_t)mt_rt_jit_var;
	case MT_JH_INTKEY: return (uint64_t)(uintptr_t)mt_rt_jit_intkey;
	case MT_JH_SUBR: return (uint64_t)(uintptr_t)mt_rt_jit_subr;
	case MT_JH_STR: return (uint64_t)(uintptr_t)mt_rt_jit_str;
	case MT_JH_GAA: return (uint64_t)(uintptr_t)mt_rt_jit_gaa;
	case MT_JH_AGGVALS: return (uint64_t)(uintptr_t)mt_rt_jit_aggvals;
	case MT_JH_ELAPSED: return (uint64_t)(uintptr_t)mt_rt_jit_elapsed;
	case MT_JH_INTKEYS: return (uint64_t)(uintptr_t)mt_rt_jit_intkeys;
	case MT_JH_AGGUPD: return (uint64_t)(uintptr_t)mt_rt_jit_aggupd;
	}
	return 0;
}

uint64_t mt_rt_jit_addr(struct mt_cb *cb, uint32_t kind, uint32_t arg, uint32_t cpu)
{
	struct rt *rt = rt_get(cb);
	struct rt_cpu *c;

	if (cpu >= rt->ncpus)
		return 0;
	c = &rt->cpu[cpu];
	switch (kind) {
	case MT_JR_CB: return (uint64_t)(uintptr_t)cb;
	case MT_JR_BUSY: return (uint64_t)(uintptr_t)&c->busy;
	case MT_JR_AGGENT:
		return arg && arg <= rt->img->naggs ? (uint64_t)(uintptr_t)&c->aggent[arg - 1] : 0;
	case MT_JR_AGGDATA: return (uint64_t)(uintptr_t)c->aggdata;
	case MT_JR_ECBENT:
		return arg < rt->img->necbs ? (uint64_t)(uintptr_t)&c->ecbent[arg] : 0;
	case MT_JR_CPUBUF: return (uint64_t)(uintptr_t)&rt->cpubuf[cpu];
	case MT_JR_BUFDATA: return (uint64_t)(uintptr_t)c->buf;
	case MT_JR_STRTAB: return (uint64_t)(uintptr_t)rt->t.strtab;
	case MT_JR_BUFSIZE: return rt->cpubuf[cpu].size;
	case MT_JR_GLOBALS: {		/* global scalar arg's storage */
		const struct rt_varslot *sl = rt_slot(rt, MT_VS_GLOBAL, arg);
		return sl && sl->kind == MT_VK_SCALAR && !(sl->flags & MT_VF_REF) ?
			(uint64_t)(uintptr_t)(rt->globals + sl->off) : 0;
	}
	case MT_JR_STAGE: return (uint64_t)(uintptr_t)c->stage;
	case MT_JR_FAULT: return (uint64_t)(uintptr_t)&c->jit_fault;
	case MT_JR_TLS: return rt->tls_nrows ? (uint64_t)(uintptr_t)rt->tls : 0;
	case MT_JR_TLS_MASK: return rt->tls_nrows ? rt->tls_nrows - 1 : 0;
	case MT_JR_LOCALS: {		/* clause-local scalar arg's storage */
		const struct rt_varslot *sl = rt_slot(rt, MT_VS_LOCAL, arg);
		return sl && sl->kind == MT_VK_SCALAR && !(sl->flags & MT_VF_REF) ?
			(uint64_t)(uintptr_t)(c->locals + sl->off) : 0;
	}
	case MT_JR_HELPER: return helper(arg);
	case MT_JR_CPU: return cpu;	/* mt_jit_rel_zero_ok */
	}
	return 0;
}
