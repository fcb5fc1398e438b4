/*
 * The runtime's side of compiled probes (jit/, machtrace/jitabi.h): the
 * addresses their relocations name, and the helpers they call (probe
 * context, from the compiled code, interrupts off, CPU 0: the compiled
 * code runs only on the GNU Mach blob, which is uniprocessor).  A helper
 * sets up the machine state a firing of the ECB would have and does what
 * the interpreter does for it.
 */
#include "rt.h"
#include "machtrace/jitabi.h"


_Static_assert(RT_JIT_STR == MT_JIT_STRBUF, "the execname buffer the code reads");

static const struct mt_pctx no_ctx;

static void ms_init(struct rt_mstate *ms, struct rt *rt, uint32_t ecb,
		    const struct mt_pctx *ctx)
{
	/* field by field, as probe.c's fire(): not the tuple stack, which
	   zeroing would make the helper cost ten times a compiled firing */
	ms->rt = rt;
	ms->cpu = 0;
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
	ms->c = &rt->cpu[0];
	ms->stat = &rt->cpustat[0];
	ms->ctx = ctx;
	ms->probe = rt->t.ecbs[ecb].probe;
	ms->epid = ecb + 1;
}

/* The keyless entry's offset + 1, as rt_agg_keyless keeps it in aggent. */
static uint32_t mt_rt_jit_keyless(struct mt_cb *cb, uint32_t aggid)
{
	struct rt *rt = rt_get(cb);

	if (aggid == 0 || aggid > rt->img->naggs || !rt_agg_keyless(rt, 0, aggid))
		return 0;
	return rt->cpu[0].aggent[aggid - 1];
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
		rt->cpu[0].ecbent[ecb].act = act | MT_JIT_ECBENT_STRKEY;
		rt->cpu[0].ecbent[ecb].off = off;
	}
	if (ms.fault)
		rt_report_fault(&ms, act - rt->t.clauses[rt->t.ecbs[ecb].clause].act0);
	return off;
}

static uint32_t mt_rt_jit_intkey(struct mt_cb *cb, uint32_t ecb, uint32_t act, uint64_t key)
{
	struct rt *rt = rt_get(cb);
	struct rt_mstate ms;

	if (ecb >= rt->img->necbs || act >= rt->img->nactions)
		return 0;
	ms_init(&ms, rt, ecb, &no_ctx);
	return rt_agg_entry_int(&ms, &rt->t.actions[act], key);
}

static uint64_t mt_rt_jit_execname(struct mt_cb *cb)
{
	struct rt *rt = rt_get(cb);

	mt_plat_strvar(&no_ctx, MT_VAR_EXECNAME, rt->jit_str, RT_JIT_STR);
	return (uint64_t)(uintptr_t)rt->jit_str;
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
		rt->jit_fault = ms.fault;
		rt->jit_fault_addr = ms.fault_addr;
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
	ms.fault = rt->jit_fault;
	ms.fault_addr = rt->jit_fault_addr;
	ms.fault_pc = where & 0xffff;
	rt->jit_fault = 0;
	rt->jit_fault_addr = 0;	/* compiled code's own faults have none */
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
	}
	return 0;
}

uint64_t mt_rt_jit_addr(struct mt_cb *cb, uint32_t kind, uint32_t arg)
{
	struct rt *rt = rt_get(cb);
	struct rt_cpu *c = &rt->cpu[0];

	switch (kind) {
	case MT_JR_CB: return (uint64_t)(uintptr_t)cb;
	case MT_JR_BUSY: return (uint64_t)(uintptr_t)&c->busy;
	case MT_JR_AGGENT:
		return arg && arg <= rt->img->naggs ? (uint64_t)(uintptr_t)&c->aggent[arg - 1] : 0;
	case MT_JR_AGGDATA: return (uint64_t)(uintptr_t)c->aggdata;
	case MT_JR_ECBENT:
		return arg < rt->img->necbs ? (uint64_t)(uintptr_t)&c->ecbent[arg] : 0;
	case MT_JR_CPUBUF: return (uint64_t)(uintptr_t)&rt->cpubuf[0];
	case MT_JR_BUFDATA: return (uint64_t)(uintptr_t)c->buf;
	case MT_JR_STRTAB: return (uint64_t)(uintptr_t)rt->t.strtab;
	case MT_JR_BUFSIZE: return rt->cpubuf[0].size;
	case MT_JR_GLOBALS: {		/* global scalar arg's storage */
		const struct rt_varslot *sl = rt_slot(rt, MT_VS_GLOBAL, arg);
		return sl && sl->kind == MT_VK_SCALAR && !(sl->flags & MT_VF_REF) ?
			(uint64_t)(uintptr_t)(rt->globals + sl->off) : 0;
	}
	case MT_JR_STAGE: return (uint64_t)(uintptr_t)c->stage;
	case MT_JR_FAULT: return (uint64_t)(uintptr_t)&rt->jit_fault;
	case MT_JR_TLS: return rt->tls_nrows ? (uint64_t)(uintptr_t)rt->tls : 0;
	case MT_JR_TLS_MASK: return rt->tls_nrows ? rt->tls_nrows - 1 : 0;
	case MT_JR_HELPER: return helper(arg);
	}
	return 0;
}
