/*
 * The probe firing path (probe context), after illumos dtrace_probe.
 *
 * For each ECB of the probe, in clause order: reset scratch, evaluate the
 * predicate, run the actions building the clause's record in the CPU's
 * staging area, then commit the whole record at once into the principal
 * buffer (or the speculation chosen by speculate()).  A fault abandons the
 * record, writes an MT_EPID_ERROR record and fires dtrace:::ERROR (not
 * recursively).  Deferred effects (commit/discard, exit) happen after the
 * record is committed, so a clause's own record precedes the speculative
 * records it commits.  A firing that arrives while the CPU is already in
 * the runtime (an interrupt during a probe) is ignored.
 */
#include "rt.h"

#define RT_MAXPEND	32		/* commit/discard per clause */

struct clause_run {
	uint32_t spec;			/* speculate() id; 0 = none */
	int speculative;
	int exiting;
	uint64_t cond;			/* the last MT_ACT_IF's condition */
	int64_t status;
	uint32_t npend;
	uint32_t pend[RT_MAXPEND];	/* spec id | discard << 31 */
};

static void fire(struct rt *rt, uint32_t cpu, uint32_t pi,
		 const struct mt_pctx *ctx, int nested);

static void error(struct rt_mstate *ms, uint32_t action)
{
	struct rt *rt = ms->rt;
	struct rt_cpu *c = ms->c;
	uint64_t rec[RT_ERRRECSIZE / 8];
	struct mt_rechdr *h = (struct mt_rechdr *)rec;
	struct mt_errrec *er = (struct mt_errrec *)(h + 1);
	struct mt_pctx ectx;

	if (c->in_error) {
		/* a fault in an ERROR clause: counted, not reported (dtrace's
		   DTRACEDROP_DBLERROR) */
		ms->stat->dblerrors++;
		return;
	}
	ms->stat->errors++;
	h->epid = MT_EPID_ERROR;
	h->cpu = ms->cpu;
	h->timestamp = rt_ts(ms);
	er->epid = ms->epid;
	er->action = action;
	er->pc = ms->fault_pc;
	er->fault = ms->fault;
	er->addr = ms->fault_addr;
	rt_buf_put(rt, ms->cpu, rec, RT_ERRRECSIZE, 0);
	if (!rt->error_probe)
		return;
	rt_memset(&ectx, 0, sizeof(ectx));
	ectx.arg[1] = ms->epid;
	ectx.arg[2] = action == 0xffffffffu ? 0 : action + 1;
	ectx.arg[3] = (uint64_t)ms->fault_pc * sizeof(mt_instr_t);
	ectx.arg[4] = ms->fault;
	ectx.arg[5] = ms->fault_addr;
	ectx.plat = ms->ctx ? ms->ctx->plat : 0;
	c->in_error = 1;
	fire(rt, ms->cpu, rt->error_probe - 1, &ectx, 1);
	c->in_error = 0;
}

void rt_report_fault(struct rt_mstate *ms, uint32_t action)
{
	error(ms, action);
}

static void put_int(uint8_t *p, uint32_t size, uint64_t v)
{
	switch (size) {
	case 1: *p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	case 8: *(uint64_t *)p = v; break;
	}
}

/* Evaluate rec and store it into the record data; -1 on fault. */
static int write_rec(struct rt_mstate *ms, const struct mt_rec *rec,
		     uint8_t *data, uint64_t *valp)
{
	uint8_t *p = data + rec->offset;
	uint64_t val = 0;

	if (rec->difo && rt_exec(ms, rec->difo, &val))
		return -1;
	/* a fault copying the value is reported at the DIFO's ret */
	ms->fault_pc = rec->difo ? ms->rt->t.difos[rec->difo - 1].ntext - 1 : 0;
	*valp = val;
	switch (rec->kind) {
	case MT_REC_INT:
		if (rec->flags & MT_RF_UPID) {
			put_int(p, 8, mt_plat_var(ms->ctx, MT_VAR_PID));
			put_int(p + 8, 8, val);
			return 0;
		}
		put_int(p, rec->size, val);
		return 0;
	case MT_REC_STR:	/* the staging record is zeroed (run_ecb) */
		return rt_copy_str0(ms, (char *)p, val, rec->size);
	case MT_REC_MEM:
		return rt_copy_in(ms, p, val, rec->size);
	case MT_REC_STACK:
		rt_rec_stack(ms, rec, p);
		return 0;
	}
	return 0;
}

/* chill(ns): destructive, spins (illumos caps it; so do we: 500 ms). */
static void chill(struct rt_mstate *ms, uint64_t ns)
{
	uint64_t t0;

	if (!(ms->rt->img->opt.flags & MT_OPT_F_DESTRUCTIVE))
		return;
	if (ns > 500000000ull)
		ns = 500000000ull;
	t0 = mt_plat_time();
	while (mt_plat_time() - t0 < ns)
		;
}

static int spec_id(struct rt_mstate *ms, uint64_t v)
{
	if (v > ms->rt->nspec) {
		rt_fault(ms, MT_FLT_ILLOP, v);
		return -1;
	}
	return 0;
}

/* Run one action; -1 on fault, 1 to abandon the clause quietly. */
static int action(struct rt_mstate *ms, const struct mt_action *act,
		  uint8_t *data, struct clause_run *cr)
{
	uint64_t v = 0;

	if (act->kind == MT_ACT_AGG) {
		rt_aggregate(ms, act);
		return ms->fault ? -1 : 0;
	}
	for (uint32_t r = 0; r < act->nrecs; r++) {
		const struct mt_rec *rec = &ms->rt->t.recs[act->rec0 + r];
		uint64_t val, mark = ms->scratch_used;

		if (write_rec(ms, rec, data, &val))
			return -1;
		if (rec->flags & MT_RF_TEMPS)
			ms->scratch_used = mark;
		if (r == 0)
			v = val;
	}
	switch (act->kind) {
	case MT_ACT_SPECULATE:
		/* an unusable id (0, out of range, not active) abandons the
		   rest of the clause silently, as dtrace-utils does */
		if (!rt_spec_active(ms->rt, v))
			return 1;
		cr->speculative = 1;
		cr->spec = (uint32_t)v;
		break;
	case MT_ACT_COMMIT: case MT_ACT_DISCARD:
		if (spec_id(ms, v))
			return -1;
		if (cr->npend < RT_MAXPEND)
			cr->pend[cr->npend++] = (uint32_t)v |
				(act->kind == MT_ACT_DISCARD ? 1u << 31 : 0);
		else
			rt_spec_commit(ms, (uint32_t)v,
				       act->kind == MT_ACT_DISCARD);
		break;
	case MT_ACT_IF:
		cr->cond = v;
		break;
	case MT_ACT_EXIT:
		cr->exiting = 1;
		cr->status = (int64_t)v;
		break;
	case MT_ACT_CHILL:
		chill(ms, v);
		break;
	case MT_ACT_PANIC: case MT_ACT_BREAKPOINT:
		if (ms->rt->img->opt.flags & MT_OPT_F_DESTRUCTIVE)
			mt_plat_destructive(ms->ctx, act->kind);
		break;
	}
	return 0;
}

static void run_ecb(struct rt_mstate *ms, uint32_t ecb)
{
	struct rt *rt = ms->rt;
	const struct mt_clause *cl = &rt->t.clauses[rt->t.ecbs[ecb].clause];
	uint8_t *stage = ms->c->stage;
	struct mt_rechdr *h = (struct mt_rechdr *)stage;
	struct clause_run cr;
	uint64_t v;

	ms->epid = ecb + 1;
	ms->scratch_used = 0;
	ms->alloca_used = 0;
	ms->c->strtok = 0;		/* strtok() state lives for one clause */
	ms->fault = MT_FLT_NONE;
	if (cl->pred_difo) {
		if (rt_exec(ms, cl->pred_difo, &v)) {
			error(ms, 0xffffffffu);
			return;
		}
		if (!v)
			return;
	}
	h->epid = ms->epid;
	h->cpu = ms->cpu;
	rt_memset(h + 1, 0, cl->recsize);
	cr.spec = 0;
	cr.speculative = 0;
	cr.exiting = 0;
	cr.cond = 0;
	cr.status = 0;
	cr.npend = 0;
	for (uint32_t a = 0; a < cl->nacts; a++) {
		const struct mt_action *act = &rt->t.actions[cl->act0 + a];
		int rc = action(ms, act, (uint8_t *)(h + 1), &cr);
		if (rc < 0)
			error(ms, a);
		if (rc)
			return;
		/* if/else: forward skips only (the verifier bounds arg) */
		if (act->kind == MT_ACT_SKIP ||
		    (act->kind == MT_ACT_IF && !cr.cond))
			a += (uint32_t)act->arg;
	}
	if ((cl->flags & MT_CF_NEEDS_RECORD) || cl->recsize || cl->nacts == 0) {
		uint32_t len = RT_HDRSIZE + cl->recsize;
		h->timestamp = rt_ts(ms);
		if (cr.speculative)
			rt_spec_put(ms, cr.spec, stage, len);
		else
			rt_buf_put(rt, ms->cpu, stage, len,
				   rt->t.probes[ms->probe].kind == MT_PK_END);
	}
	for (uint32_t i = 0; i < cr.npend; i++)
		rt_spec_commit(ms, cr.pend[i] & 0x7fffffffu, cr.pend[i] >> 31);
	if (cr.exiting) {
		/* the last exit() sets the status, as dtrace's consumer
		   takes it from the last exit record */
		struct mt_cb *cb = (struct mt_cb *)rt->base;
		cb->exit_status = cr.status;
		if (cb->state == MT_CB_ACTIVE)
			__atomic_store_n(&cb->state, MT_CB_EXITING,
					 __ATOMIC_RELEASE);
	}
}

/* After exit() only END and ERROR still fire (later BEGIN clauses too
   are skipped), as dtrace's DRAINING state. */
static int draining(struct rt *rt, const struct mt_probe *pr)
{
	return ((struct mt_cb *)rt->base)->state == MT_CB_EXITING &&
		pr->kind != MT_PK_END && pr->kind != MT_PK_ERROR;
}

static void fire(struct rt *rt, uint32_t cpu, uint32_t pi,
		 const struct mt_pctx *ctx, int nested)
{
	const struct mt_probe *pr = &rt->t.probes[pi];
	struct rt_mstate ms;

	ms.rt = rt;
	ms.c = &rt->cpu[cpu];
	ms.stat = &rt->cpustat[cpu];
	ms.ctx = ctx;
	ms.cpu = cpu;
	ms.probe = pi;
	ms.ts = 0;
	ms.have_ts = 0;
	ms.have_tid = 0;
	ms.tid = 0;
	ms.ttop = 0;
	ms.given = 0;
	ms.fault_pc = 0;
	ms.fault_addr = 0;
	if (!nested && rt->locals_size)
		rt_memset(ms.c->locals, 0, rt->locals_size);
	for (uint32_t e = 0; e < pr->necbs && !draining(rt, pr); e++)
		run_ecb(&ms, pr->ecb0 + e);
}

static const struct mt_pctx zero_ctx;

static uint32_t stamp_hash(uint64_t thread)
{
	return (uint32_t)((thread >> 4) * 0x9e3779b97f4a7c15ull >> 56) % RT_NSTAMPS;
}

void mt_rt_stamp(struct mt_cb *cb, const struct mt_pctx *ctx)
{
	struct rt *rt = rt_get(cb);
	uint32_t state = __atomic_load_n(&cb->state, __ATOMIC_ACQUIRE);
	uint64_t th, now;
	uint32_t h, oldest = 0;

	if (state != MT_CB_ACTIVE && state != MT_CB_EXITING)
		return;
	th = mt_plat_var(ctx, MT_VAR_CURTHREAD);
	if (!th)
		return;
	now = mt_plat_time();
	h = stamp_hash(th);
	for (uint32_t k = 0; k < RT_STAMP_PROBE; k++) {
		struct rt_stamp *s = &rt->stamps[(h + k) % RT_NSTAMPS];
		uint64_t none = 0;
		if (__atomic_load_n(&s->thread, __ATOMIC_ACQUIRE) == th ||
		    __atomic_compare_exchange_n(&s->thread, &none, th, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			__atomic_store_n(&s->t0, now, __ATOMIC_RELEASE);
			return;
		}
		if (s->t0 < rt->stamps[(h + oldest) % RT_NSTAMPS].t0)
			oldest = k;
	}
	/* no room: the oldest stamp near the slot (a thread that died in
	   its interval, most likely) gives way */
	struct rt_stamp *s = &rt->stamps[(h + oldest) % RT_NSTAMPS];
	__atomic_store_n(&s->thread, th, __ATOMIC_RELEASE);
	__atomic_store_n(&s->t0, now, __ATOMIC_RELEASE);
}

/* ns since the current thread's stamp, which is consumed; 0 if none. */
uint64_t rt_stamp_elapsed(struct rt *rt, const struct mt_pctx *ctx)
{
	uint64_t th = mt_plat_var(ctx, MT_VAR_CURTHREAD), t0, now;
	uint32_t h;

	if (!th)
		return 0;
	h = stamp_hash(th);
	for (uint32_t k = 0; k < RT_STAMP_PROBE; k++) {
		struct rt_stamp *s = &rt->stamps[(h + k) % RT_NSTAMPS];
		if (__atomic_load_n(&s->thread, __ATOMIC_ACQUIRE) != th)
			continue;
		t0 = __atomic_exchange_n(&s->t0, 0, __ATOMIC_ACQ_REL);
		__atomic_store_n(&s->thread, 0, __ATOMIC_RELEASE);
		now = mt_plat_time();
		return t0 && now > t0 ? now - t0 : 0;
	}
	return 0;
}

/* A provider's argument mapping (struct mt_probe: nmap, argmap). */
static void map_args(struct rt *rt, const struct mt_probe *pr, const struct mt_pctx *raw,
		     struct mt_pctx *out)
{
	*out = *raw;
	for (uint32_t i = 0; i < MT_NARGS; i++) {
		uint8_t m = i < pr->nmap ? pr->argmap[i] : MT_ARGMAP_ZERO;
		out->arg[i] = m < MT_NARGS ? raw->arg[m] :
			m == MT_ARGMAP_CURTHREAD ? mt_plat_var(raw, MT_VAR_CURTHREAD) :
			m == MT_ARGMAP_ELAPSED ? rt_stamp_elapsed(rt, raw) : 0;
	}
}

/* 1 + the highest raw argument a DIFO reads (MT_NARGS for args[]). */
static uint32_t difo_nargs(const struct rt *rt, uint32_t difo1)
{
	const struct mt_difo *d;
	uint32_t n = 0;

	if (difo1 == 0)
		return 0;
	d = &rt->t.difos[difo1 - 1];
	for (uint32_t i = 0; i < d->ntext; i++) {
		mt_instr_t in = rt->t.text[d->text0 + i];
		uint32_t v = MT_V16(in);

		if (MT_OP(in) == MT_OP_LDGA && MT_R1(in) == MT_VAR_ARGS)
			return MT_NARGS;
		if (MT_OP(in) == MT_OP_LDGS && v >= MT_VAR_ARG0 && v <= MT_VAR_ARG9 &&
		    v - MT_VAR_ARG0 + 1 > n)
			n = v - MT_VAR_ARG0 + 1;
	}
	return n;
}

/*
 * Every DIFO a firing of the probe can run is a clause's predicate or an
 * action's rec (agg keys and values included), and interp.c reads the
 * arguments only through LDGS argN and LDGA args[] (ERROR's clauses run
 * with a context of their own).
 */
uint32_t mt_rt_probe_nargs(struct mt_cb *cb, uint32_t pi)
{
	struct rt *rt = rt_get(cb);
	const struct mt_probe *pr;
	uint32_t n = 0;

	if (pi >= rt->img->nprobes)
		return 0;
	pr = &rt->t.probes[pi];
	if (pr->nmap)
		return MT_NARGS;
	for (uint32_t e = 0; e < pr->necbs && n < MT_NARGS; e++) {
		const struct mt_clause *cl = &rt->t.clauses[rt->t.ecbs[pr->ecb0 + e].clause];
		uint32_t k = difo_nargs(rt, cl->pred_difo);

		n = k > n ? k : n;
		for (uint32_t a = 0; a < cl->nacts; a++) {
			const struct mt_action *act = &rt->t.actions[cl->act0 + a];
			for (uint32_t r = 0; r < act->nrecs; r++) {
				k = difo_nargs(rt, rt->t.recs[act->rec0 + r].difo);
				n = k > n ? k : n;
			}
		}
	}
	return n;
}

void mt_rt_probe(struct mt_cb *cb, uint32_t pi, const struct mt_pctx *ctx)
{
	struct rt *rt = rt_get(cb);
	uint32_t state = __atomic_load_n(&cb->state, __ATOMIC_ACQUIRE);
	uint32_t cpu;
	struct rt_cpu *c;
	struct mt_pctx mapped;

	if (state != MT_CB_ACTIVE && state != MT_CB_EXITING)
		return;
	if (pi >= rt->img->nprobes)
		return;
	if (!ctx)
		ctx = &zero_ctx;
	if (rt->t.probes[pi].nmap) {
		map_args(rt, &rt->t.probes[pi], ctx, &mapped);
		ctx = &mapped;
	}
	cpu = mt_plat_cpu();
	if (cpu >= rt->ncpus)
		return;
	c = &rt->cpu[cpu];
	if (c->busy) {
		rt->cpustat[cpu].nested++;
		return;
	}
	c->busy = 1;
	if (rt->ncpus > 1)
		rt_epoch_enter(c);
	/* not while a firing is in progress; with several CPUs the
	   platform serves each CPU's data on that CPU */
	if (cb->req != MT_REQ_NONE && rt->ncpus == 1)
		mt_rt_service(cb);
	__atomic_add_fetch(&cb->nfirings, 1, __ATOMIC_RELAXED);	/* every CPU's */
	fire(rt, cpu, pi, ctx, 0);
	if (rt->ncpus > 1)
		rt_epoch_exit(c);
	c->busy = 0;
}

void mt_rt_probe_time(struct mt_cb *cb, uint64_t ns)
{
	struct rt *rt = rt_get(cb);
	uint32_t cpu = mt_plat_cpu();

	if (cpu < rt->ncpus)
		rt->cpustat[cpu].probe_ns = ns;
}
