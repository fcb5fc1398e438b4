/*
 * One probe's compiled code (jit.h), for a site of the GNU Mach blob:
 *
 *   pushfq; cli; push the registers the body writes; [push $0: the
 *   firing's timestamp slot]
 *   guards: the runtime is ACTIVE, no host request is pending, the CPU
 *     is not in the runtime -- else the general path (the fallback:
 *     restore everything, jmp to the site's ordinary trampoline)
 *   each clause: predicate; actions (aggregations updated in place,
 *     records written straight into the principal buffer)
 *   nfirings++ (locked: every CPU's); restore; popfq; then the site's continuation (an entry:
 *     the displaced instructions the caller appends; a return: ret)
 *
 * The fallback is only taken before the first side effect (the guards),
 * so a firing is never done twice.  What it does not translate (jit_fail
 * says what) leaves the probe to the interpreter.
 *
 * Aggregations: a keyless one's entry and an ECB's probe-named entry
 * are found through the runtime's own pointers to them (aggent[],
 * ecbent[]: a truncation resets those, the code then asks the runtime
 * again, MT_JH_KEYLESS / MT_JH_NAMED, on a cold path); any other
 * aggregation whose key and value need no argument runs through the
 * interpreter's action (MT_JH_ACTION).
 * Records: only the switch buffer policy and integer values of 4 or 8
 * bytes; a record that does not fit is a drop, its values are written
 * to the staging record instead, as the interpreter would build it.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit_int.h"

/* Push order of the registers a stub may save. */
static const enum jreg save_order[] = {
	X_RAX, X_RCX, X_RDX, X_RSI, X_RDI, X_R8, X_R9, X_R10, X_R11,
	X_RBX, X_RBP, X_R12, X_R13, X_R14, X_R15
};
#define NSAVE (sizeof save_order / sizeof *save_order)
#define RT_HDR		((uint32_t)sizeof(struct mt_rechdr))
#define JIT_MAXACTS	64
#define CB_FIELD(f)	((int32_t)offsetof(struct mt_cb, f))
#define ENT_GEN		12	/* offsetof(struct mt_aggent, gen) */
#define ENT_HDR		16

/*
 * Can the interpreter's action (MT_JH_ACTION) evaluate the DIFO without
 * the firing's context?  The helper has no arguments, no registers, no
 * frame (stack(), caller, uregs[]) and its own timestamp: only built-ins
 * that do not depend on them, and no subroutine.
 */
static int helper_difo_ok(const struct jit *j, uint32_t difo1)
{
	const struct mt_difo *d;

	if (!difo1)
		return 1;
	d = &j->t.difos[difo1 - 1];
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		mt_instr_t in = j->t.text[d->text0 + pc];
		uint32_t v = MT_V16(in);
		if (MT_OP(in) == MT_OP_LDGA || MT_OP(in) == MT_OP_CALL)
			return 0;
		if (MT_OP(in) == MT_OP_LDGS && v < MT_VAR_USER) {
			switch (v) {
			case MT_VAR_EXECNAME: case MT_VAR_PID: case MT_VAR_TID:
			case MT_VAR_CURTHREAD: case MT_VAR_EPID: case MT_VAR_ID:
			case MT_VAR_PROBEPROV: case MT_VAR_PROBEMOD: case MT_VAR_PROBEFUNC:
			case MT_VAR_PROBENAME: case MT_VAR_CPU: case MT_VAR_CURCPU:
			case MT_VAR_TASK:
				break;
			default:
				return 0;
			}
		}
	}
	return 1;
}

/* The probe-named key of an aggregation action (runtime/agg.c's rule). */
static int probe_named_key(const struct jit *j, const struct mt_action *act)
{
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];

		if (!(rec->flags & MT_RF_AGGVAL) &&
		    !mt_rec_probe_named(rec, j->t.difos, j->t.text))
			return 0;
	}
	return 1;
}

enum agg_how { AGG_INLINE_KEYLESS = 1, AGG_INLINE_NAMED, AGG_INLINE_STRKEY, AGG_INTKEYS,
	       AGG_GIVEN, AGG_HELPER };

/* Can the code compute every key and value of the action for the
   runtime (MT_JH_AGGVALS): integers and strings its DIFOs give? */
static int given_ok(struct jit *j, const struct mt_action *act, uint32_t *regs)
{
	uint32_t r = 0;

	if (act->nrecs > 32)
		return 0;
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if ((rec->kind != MT_REC_INT && rec->kind != MT_REC_STR) ||
		    (rec->flags & MT_RF_UPID) || (rec->kind == MT_REC_STR && !rec->difo) ||
		    (rec->difo && jit_difo_needs(j, rec->difo, &r) < 0))
			return 0;
	}
	*regs |= r;
	return 1;
}

/* The key rec of an aggregation keyed by one string or one integer
   alone, NULL if it has another key. */
static const struct mt_rec *one_key(const struct jit *j, const struct mt_action *act,
				    const struct mt_agg *a)
{
	const struct mt_rec *k = NULL;
	uint32_t n = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->flags & MT_RF_AGGVAL)
			continue;
		if ((rec->kind != MT_REC_STR && rec->kind != MT_REC_INT) || !rec->difo ||
		    (rec->flags & MT_RF_UPID))
			return NULL;
		k = rec;
		n++;
	}
	return n == 1 && a->nkeys == 1 ? k : NULL;
}

/* The DIFO of that key, 0 if none. */
static uint32_t str_key_difo(const struct jit *j, const struct mt_action *act,
			     const struct mt_agg *a)
{
	const struct mt_rec *k = one_key(j, act, a);

	return k ? k->difo : 0;
}

/* Does agg_update apply the aggregation's function with nval values? */
static int in_place(const struct mt_agg *a, uint32_t nval)
{
	struct jit_llq q;

	if (a->func != MT_AGG_COUNT && a->func != MT_AGG_SUM && a->func != MT_AGG_MIN &&
	    a->func != MT_AGG_MAX && a->func != MT_AGG_QUANTIZE && !jit_llq_plan(a, &q))
		return 0;
	return nval <= (a->func == MT_AGG_COUNT ? 0u : 1u);
}

/* A string key that is a constant shorter than the key ("SETS; RET"):
   the constant, else NULL. */
static const char *const_key(const struct jit *j, const struct mt_rec *rec)
{
	const struct mt_difo *df;
	const mt_instr_t *t;
	const char *str;

	if (rec->kind != MT_REC_STR || !rec->difo)
		return NULL;
	df = &j->t.difos[rec->difo - 1];
	t = j->t.text + df->text0;
	if (df->ntext != 2 || MT_OP(t[0]) != MT_OP_SETS || MT_OP(t[1]) != MT_OP_RET ||
	    MT_RD(t[1]) != MT_RD(t[0]) || MT_RD(t[0]) == 0 || MT_V16(t[0]) >= j->img->strtab_size)
		return NULL;
	str = j->t.strtab + MT_V16(t[0]);
	return strnlen(str, j->img->strtab_size - MT_V16(t[0])) < rec->size ? str : NULL;
}

/* Is the rec's DIFO "LDGS execname; RET" (the platform's string, its
   MT_JIT_PLATNAME bytes readable and holding its NUL)? */
static int rec_is_execname(const struct jit *j, const struct mt_rec *rec)
{
	const struct mt_difo *df;
	const mt_instr_t *t;

	if (rec->kind != MT_REC_STR || !rec->difo)
		return 0;
	df = &j->t.difos[rec->difo - 1];
	t = j->t.text + df->text0;
	return df->ntext == 2 && MT_OP(t[0]) == MT_OP_LDGS && MT_V16(t[0]) == MT_VAR_EXECNAME &&
		MT_OP(t[1]) == MT_OP_RET && MT_RD(t[1]) == MT_RD(t[0]) && MT_RD(t[0]) != 0;
}

/* Is the aggregation keyed by integers, constant strings and execname
   alone (8 bytes an integer, a string's size rounded up to 8, after the
   aggregation's id, as build_key lays them out)? */
static int int_keys(const struct jit *j, const struct mt_action *act, const struct mt_agg *a)
{
	uint32_t nkeys = 0, size = 8, ints = 0, nval = 0, plat = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->flags & MT_RF_AGGVAL) {
			if (!rec->difo)
				return 0;
			nval++;
			continue;
		}
		if (const_key(j, rec)) {
			size += (rec->size + 7) & ~7u;
		} else if (rec_is_execname(j, rec) && rec->size >= MT_JIT_PLATNAME) {
			size += (rec->size + 7) & ~7u;
			plat++;
		} else if (rec->kind == MT_REC_INT && !(rec->flags & MT_RF_UPID) && rec->difo &&
			   rec->size <= 8) {
			size += 8;
			ints++;
		} else {
			return 0;
		}
		nkeys++;
	}
	/* MT_JH_AGGUPD does not take the execname recs (MT_JH_INTKEYS' plat) */
	return ints >= 1 && a->nkeys == nkeys && a->keysize == size &&
		(plat == 0 || in_place(a, nval));
}

/* How an aggregation action is compiled; 0 if it is not. */
static int agg_how(struct jit *j, const struct mt_action *act, uint32_t *regs)
{
	const struct mt_agg *a = &j->t.aggs[act->arg - 1];
	uint32_t nval = 0, valdifo = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->flags & MT_RF_AGGVAL) {
			nval++;
			valdifo = rec->difo;
		}
	}
	if (in_place(a, nval)) {
		uint32_t kd = str_key_difo(j, act, a), kregs = 0;
		int inl = (a->nkeys == 0 && a->keysize == 8) ? AGG_INLINE_KEYLESS :
			probe_named_key(j, act) ? AGG_INLINE_NAMED :
			kd && jit_difo_needs(j, kd, &kregs) == 0 ? AGG_INLINE_STRKEY : 0;
		if (inl == AGG_INLINE_STRKEY && nval && (kregs >> X_RCX & 1))
			j->need_val = 1;	/* the value waits in the frame */
		if (inl == AGG_INLINE_STRKEY)
			*regs |= kregs | 1u << X_RCX | 1u << X_RDX;
		if (inl && (nval == 0 || (valdifo && jit_difo_needs(j, valdifo, regs) == 0))) {
			*regs |= 1u << X_RAX;
			if (nval)
				*regs |= 1u << X_RCX;
			if (a->func == MT_AGG_QUANTIZE || a->func == MT_AGG_LLQUANTIZE)
				*regs |= 1u << X_RDX;
			return inl;
		}
	}
	*regs |= 1u << X_RAX;
	if (int_keys(j, act, a) && given_ok(j, act, regs)) {
		*regs |= 1u << X_RCX | 1u << X_RDX;
		return AGG_INTKEYS;
	}
	if (given_ok(j, act, regs))
		return AGG_GIVEN;
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->kind == MT_REC_STACK || (rec->flags & MT_RF_UPID) ||
		    !helper_difo_ok(j, rec->difo))
			return jit_fail(j, "an aggregation whose key or value needs the "
					"firing's context (arguments, time, stack)"), 0;
	}
	return AGG_HELPER;
}

/* A record's values: integers of 4 or 8 bytes, strings (jit_str_rec). */
static int record_ok(struct jit *j, const struct mt_action *act, uint32_t *regs)
{
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		int str = rec->kind == MT_REC_STR && rec->difo && rec->size > 0 &&
			rec->size <= 0xffff;
		if ((!str && (rec->kind != MT_REC_INT || (rec->size != 8 && rec->size != 4))) ||
		    (rec->flags & MT_RF_UPID))
			return jit_fail(j, "a record value other than a 4- or 8-byte integer "
					"or a string");
		if (rec->difo && jit_difo_needs(j, rec->difo, regs) < 0)
			return -1;
	}
	return 0;
}

/*
 * exit(): on the local target, as a clause's last action (so no fault
 * can abandon the clause after it, which would cancel it as in the
 * interpreter, whose run_ecb sets the state once the clause is done).
 */
static int exit_ok(const struct jit *j, const struct mt_clause *cl, uint32_t a)
{
	return j->o.site == JIT_SITE_LOCAL && a + 1 == cl->nacts &&
		j->t.actions[cl->act0 + a].nrecs == 1;
}

/* Does ECB ecb's clause call exit()? */
static int exits(const struct jit *j, uint32_t ecb)
{
	const struct mt_clause *cl = &j->t.clauses[j->t.ecbs[ecb].clause];

	return cl->nacts && j->t.actions[cl->act0 + cl->nacts - 1].kind == MT_ACT_EXIT;
}

/* exit(status in rax): the status, and EXITING unless the runtime stops
   already (probe.c run_ecb). */
static void exit_action(struct jit *j)
{
	struct jit_buf *b = j->b;
	uint32_t done = jit_label_new(b);

	x_store_abs(b, 8, X_RAX, MT_JR_CB, 0, CB_FIELD(exit_status));
	x_cmp_abs_imm(b, 4, MT_JR_CB, 0, CB_FIELD(state), MT_CB_ACTIVE);
	x_jcc(b, CC_NE, done);
	x_mov_ri(b, X_RAX, MT_CB_EXITING);
	x_store_abs(b, 4, X_RAX, MT_JR_CB, 0, CB_FIELD(state));
	jit_label_here(b, done);
}

/* Does the probe map an elapsed time to an argument?  The interpreter
   consumes the thread's stamp at every firing (runtime/probe.c
   map_args), whether a clause reads it or not: so does the code, as
   the firing begins (elapsed_take). */
static int elapsed_arg(const struct mt_probe *pr)
{
	for (uint32_t k = 0; k < pr->nmap; k++)
		if (pr->argmap[k] == MT_ARGMAP_ELAPSED)
			return 1;
	return 0;
}

static void elapsed_take(struct jit *j, const struct mt_probe *pr)
{
	if (!elapsed_arg(pr))
		return;
	jit_call(j, MT_JR_HELPER, MT_JH_ELAPSED, 1, 0, 0, 0, X_RAX);
	x_store_m(j->b, 8, X_RAX, (struct x_mem){ X_RSP, j->el_off, 0, 0 });
}

/* Pass 1: can every clause be compiled, which registers it writes. */
static int needs(struct jit *j, uint32_t *regs, int *uses_ts)
{
	const struct mt_probe *pr = &j->t.probes[j->probe];

	if (elapsed_arg(pr)) {
		if (j->o.site == JIT_SITE_LOCAL)
			return jit_fail(j, "a probe with an elapsed-time argument on the host");
		*regs |= 1u << X_RAX;
	}
	for (uint32_t e = 0; e < pr->necbs; e++) {
		const struct mt_clause *cl = &j->t.clauses[j->t.ecbs[pr->ecb0 + e].clause];
		int helper = 0, record = (cl->flags & MT_CF_NEEDS_RECORD) || cl->recsize ||
			cl->nacts == 0;

		if (cl->flags & MT_CF_SPECULATIVE)
			return jit_fail(j, "a speculative clause");
		if (cl->pred_difo && jit_difo_needs(j, cl->pred_difo, regs) < 0)
			return -1;
		for (uint32_t a = 0; a < cl->nacts; a++) {
			const struct mt_action *act = &j->t.actions[cl->act0 + a];
			int how;
			switch (act->kind) {
			case MT_ACT_AGG:
				if (!(how = agg_how(j, act, regs)))
					return -1;
				helper |= how == AGG_HELPER || how == AGG_GIVEN ||
					  how == AGG_INTKEYS;
				break;
			case MT_ACT_EXIT:
				if (!exit_ok(j, cl, a))
					return jit_fail(j, "exit() other than a local clause's "
							"last action");
				/* its status is a record value */
				/* fall through */
			case MT_ACT_TRACE: case MT_ACT_PRINTF:
				if (record_ok(j, act, regs) < 0)
					return -1;
				break;
			case MT_ACT_IF:
				if (act->nrecs != 1 || j->t.recs[act->rec0].size > 1 ||
				    (j->t.recs[act->rec0].difo &&
				     jit_difo_needs(j, j->t.recs[act->rec0].difo, regs) < 0))
					return jit_fail(j, "an if");
				break;
			case MT_ACT_SKIP:
				break;
			case MT_ACT_DIFEXPR:
				if (act->nrecs != 1 || j->t.recs[act->rec0].size != 0 ||
				    (j->t.recs[act->rec0].difo &&
				     jit_difo_needs(j, j->t.recs[act->rec0].difo, regs) < 0))
					return jit_fail(j, "an expression statement");
				break;
			default:
				return jit_fail(j, "action kind %u", act->kind);
			}
		}
		if (record) {
			if (j->img->opt.bufpolicy != MT_BUFPOLICY_SWITCH)
				return jit_fail(j, "a buffer policy other than switch");
			if (RT_HDR + cl->recsize > JIT_MAX_RECORD)
				return jit_fail(j, "a record of more than %d bytes", JIT_MAX_RECORD);
			if (helper)
				return jit_fail(j, "a record and an aggregation through the runtime "
						"in one clause");
			*regs |= 1u << X_RAX | 1u << X_RCX | 1u << X_RDX | 1u << X_R10 |
				1u << X_R11;
			*uses_ts = 1;
		}
	}
	if (*regs & (1u << X_RDX))
		*uses_ts = 1;		/* only the timestamp or a record write rdx */
	return 0;
}

/* Is the aggregation keyed by execname alone? */
static int key_is_execname(const struct jit *j, const struct mt_action *act,
			   const struct mt_agg *a)
{
	const struct mt_rec *k = one_key(j, act, a);

	return k && rec_is_execname(j, k);
}

/* Does a string-keyed count() keep its last entry in ecbent (the key's
   string has MT_JIT_PLATNAME bytes at least; rcx and rdx are free)? */
static int strkey_cached(const struct jit *j, const struct mt_action *act,
			 const struct mt_agg *a)
{
	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->flags & MT_RF_AGGVAL)
			return 0;
		if (rec->size < MT_JIT_PLATNAME)
			return 0;
	}
	return a->func == MT_AGG_COUNT;
}

/* rax = the entry (offset + 1 in the aggregation data), 0: none (drop). */
static void agg_entry(struct jit *j, const struct mt_action *act, int how, uint32_t ecb)
{
	struct jit_buf *b = j->b;
	uint32_t have = jit_label_new(b), cold = jit_label_new(b);
	uint32_t ai = (uint32_t)(act - j->t.actions);

	if (how == AGG_INLINE_STRKEY) {		/* the key's string in rax */
		const struct mt_agg *a = &j->t.aggs[act->arg - 1];
		int plat = key_is_execname(j, act, a);
		if (plat && strkey_cached(j, act, a)) {
			/* the ECB's last entry (MT_JH_STRKEY keeps it in
			   ecbent, tagged): its key's first MT_JIT_PLATNAME
			   bytes against the name's, which holds its NUL */
			x_cmp_abs_imm(b, 4, MT_JR_ECBENT, ecb, 0,
				      (int32_t)(ai | MT_JIT_ECBENT_STRKEY));
			x_jcc(b, CC_NE, cold);
			x_load_abs(b, 4, X_RDX, MT_JR_ECBENT, ecb, 4);
			for (int32_t k = 0; k < MT_JIT_PLATNAME; k += 8) {
				x_load_m(b, 8, X_RCX, (struct x_mem){ X_RDX,
					-1 + ENT_HDR + 8 + k, MT_JR_AGGDATA, 0 });
				x_cmp_mr(b, (struct x_mem){ X_RAX, k, 0, 0 }, X_RCX);
				x_jcc(b, CC_NE, cold);
			}
			x_mov_rr(b, X_RAX, X_RDX);
			x_jmp(b, have);
		}
		jit_label_here(b, cold);
		if (one_key(j, act, a)->kind == MT_REC_INT)
			jit_call(j, MT_JR_HELPER, MT_JH_INTKEY, 4, ecb, ai, 1, X_RAX);
		else
			jit_call(j, MT_JR_HELPER, MT_JH_STRKEY, 4, ecb,
				 ai | (plat ? MT_JH_STRKEY_PLATNAME : 0), 1, X_RAX);
		jit_label_here(b, have);
		return;
	}
	if (how == AGG_INLINE_KEYLESS) {
		x_load_abs(b, 4, X_RAX, MT_JR_AGGENT, (uint32_t)act->arg, 0);
	} else {
		x_cmp_abs_imm(b, 4, MT_JR_ECBENT, ecb, 0, (int32_t)ai + 1);
		x_jcc(b, CC_NE, cold);
		x_load_abs(b, 4, X_RAX, MT_JR_ECBENT, ecb, 4);
	}
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_NE, have);
	jit_label_here(b, cold);
	if (how == AGG_INLINE_KEYLESS)
		jit_call(j, MT_JR_HELPER, MT_JH_KEYLESS, 2, act->arg, 0, 0, X_RAX);
	else
		jit_call(j, MT_JR_HELPER, MT_JH_NAMED, 3, ecb, ai, 0, X_RAX);
	jit_label_here(b, have);
}

/* vals[0] op= rcx (the value), entry offset + 1 in rax. */
static void agg_update(struct jit *j, const struct mt_agg *a)
{
	struct jit_buf *b = j->b;
	int32_t vo = -1 + ENT_HDR + (int32_t)a->keysize;
	struct x_mem val = { X_RAX, vo, MT_JR_AGGDATA, 0 };
	uint32_t skip = jit_label_new(b);

	switch (a->func) {
	case MT_AGG_COUNT:
		x_inc_m(b, 8, val);
		break;
	case MT_AGG_SUM:
		x_add_mr(b, val, X_RCX);
		break;
	case MT_AGG_MIN: case MT_AGG_MAX:
		x_cmp_mr(b, val, X_RCX);
		x_jcc(b, a->func == MT_AGG_MIN ? CC_LE : CC_GE, skip);
		x_store_m(b, 8, X_RCX, val);
		break;
	case MT_AGG_LLQUANTIZE: {	/* in_place: jit_llq_plan said yes */
		struct jit_llq q;
		jit_llq_plan(a, &q);
		jit_llq_bucket(b, &q);
		x_shift_ri(b, 4, X_RDX, 3);
		x_alu_rr(b, A_ADD, X_RDX, X_RAX);
		x_inc_m(b, 8, (struct x_mem){ X_RDX, vo, MT_JR_AGGDATA, 0 });
		break;
	}
	default: {			/* quantize: quantize.h mt_quantize_bucket */
		uint32_t zero = jit_label_new(b), neg = jit_label_new(b), done = jit_label_new(b);
		x_test_rr(b, X_RCX, X_RCX);
		x_jcc(b, CC_E, zero);
		x_jcc(b, CC_S, neg);
		x_bsr(b, X_RDX, X_RCX);
		x_alu_ri(b, A_ADD, X_RDX, MT_QUANTIZE_ZERO + 1);
		x_jmp(b, done);
		jit_label_here(b, neg);
		x_mov_rr(b, X_RDX, X_RCX);
		x_neg(b, X_RDX);
		x_bsr(b, X_RDX, X_RDX);
		x_neg(b, X_RDX);
		x_alu_ri(b, A_ADD, X_RDX, MT_QUANTIZE_ZERO - 1);
		x_jcc(b, CC_NS, done);
		x_mov_ri(b, X_RDX, 0);
		x_jmp(b, done);
		jit_label_here(b, zero);
		x_mov_ri(b, X_RDX, MT_QUANTIZE_ZERO);
		jit_label_here(b, done);
		x_shift_ri(b, 4, X_RDX, 3);
		x_alu_rr(b, A_ADD, X_RDX, X_RAX);
		x_inc_m(b, 8, (struct x_mem){ X_RDX, vo, MT_JR_AGGDATA, 0 });
		break;
	}
	}
	/* gen after the values: runtime/agg.c update()'s rule */
	jit_label_here(b, skip);
	x_inc_m(b, 4, (struct x_mem){ X_RAX, -1 + ENT_GEN, MT_JR_AGGDATA, 0 });
}

/*
 * Every key and value into the staging record, 8 bytes each, then the
 * runtime's MT_JH_AGGVALS builds the key and updates the entry.  A
 * string is its address: the platform's execname or the local target's
 * (plat bit), a
 * subroutine's string in the runtime's scratch (read up to the key's
 * size: stringof()'s copy size does not bound it), or any other, read
 * with safe loads.
 */
static int agg_given(struct jit *j, const struct mt_action *act, uint32_t ecb)
{
	uint32_t plat = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (rec->difo) {
			j->str_rec = rec->kind == MT_REC_STR;
			int rc = jit_difo(j, rec->difo);
			j->str_rec = 0;
			if (rc < 0)
				return -1;
			if (rec->kind == MT_REC_STR && j->ret_str == JIT_STR_MIXED)
				return jit_fail(j, "a string key of several kinds");
			if (rec->kind == MT_REC_STR && j->ret_str == JIT_STR_EXECNAME)
				plat |= 1u << i;
		} else {
			x_mov_ri(j->b, X_RAX, 0);
		}
		x_store_abs(j->b, 8, X_RAX, MT_JR_STAGE, 0, (int32_t)(8 * i));
	}
	jit_call_imm(j, MT_JH_AGGVALS, ecb, (uint32_t)(act - j->t.actions), plat);
	return 0;
}

/* The key words of the entry at rdx (offset + 1) are the staged keys
   (a constant string's words up to the one holding its NUL, which
   build_key zero-fills; execname's first MT_JIT_PLATNAME bytes, which
   hold its NUL, at the address staged); else to miss (rax and rcx
   clobbered). */
static void keys_match(struct jit *j, const struct mt_action *act, uint32_t miss)
{
	int32_t at = -1 + ENT_HDR + 8;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		const char *str = const_key(j, rec);
		if (rec->flags & MT_RF_AGGVAL)
			continue;
		if (!str && rec->kind == MT_REC_STR) {	/* execname (int_keys) */
			x_load_abs(j->b, 8, X_RCX, MT_JR_STAGE, 0, (int32_t)(8 * i));
			for (int32_t k = 0; k < MT_JIT_PLATNAME; k += 8) {
				x_load_m(j->b, 8, X_RAX, (struct x_mem){ X_RCX, k, 0, 0 });
				x_cmp_mr(j->b, (struct x_mem){ X_RDX, at + k, MT_JR_AGGDATA, 0 },
					 X_RAX);
				x_jcc(j->b, CC_NE, miss);
			}
			at += (int32_t)((rec->size + 7) & ~7u);
			continue;
		}
		if (!str) {
			x_load_abs(j->b, 8, X_RAX, MT_JR_STAGE, 0, (int32_t)(8 * i));
			x_cmp_mr(j->b, (struct x_mem){ X_RDX, at, MT_JR_AGGDATA, 0 }, X_RAX);
			x_jcc(j->b, CC_NE, miss);
			at += 8;
			continue;
		}
		for (size_t w = 0, len = strlen(str); w <= len / 8; w++) {
			uint64_t v = 0;
			memcpy(&v, str + 8 * w, len - 8 * w < 8 ? len - 8 * w : 8);
			x_mov_ri(j->b, X_RAX, v);
			x_cmp_mr(j->b, (struct x_mem){ X_RDX, at + 8 * (int32_t)w, MT_JR_AGGDATA, 0 },
				 X_RAX);
			x_jcc(j->b, CC_NE, miss);
		}
		at += (int32_t)((rec->size + 7) & ~7u);
	}
}

/*
 * An aggregation keyed by integers alone: its keys and value into the
 * staging record (8 bytes a rec, a key truncated as build_key does),
 * then the aggregation's last entry (MT_JH_INTKEYS keeps it in its
 * aggent, unused by a keyed aggregation) or the one before it (in the
 * ECB's ecbent, tagged MT_JIT_ECBENT_INTKEYS) if its key words are
 * these, else the
 * runtime finds or makes the entry; updated in place (or by the runtime,
 * MT_JH_AGGUPD, for the functions agg_update does not apply).
 */
static int agg_intkeys(struct jit *j, const struct mt_action *act, uint32_t ecb)
{
	struct jit_buf *b = j->b;
	const struct mt_agg *a = &j->t.aggs[act->arg - 1];
	uint32_t ai = (uint32_t)(act - j->t.actions), vi = 0, nval = 0, plat = 0;
	uint32_t other = jit_label_new(b), cold = jit_label_new(b), have = jit_label_new(b), done = jit_label_new(b);

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if (jit_difo(j, rec->difo) < 0)
			return -1;
		if (!(rec->flags & MT_RF_AGGVAL) && rec_is_execname(j, rec))
			plat |= 1u << i;
		if (!(rec->flags & MT_RF_AGGVAL) && rec->kind == MT_REC_INT && rec->size &&
		    rec->size < 8) {
			x_shift_ri(b, 4, X_RAX, (uint8_t)(64 - 8 * rec->size));
			x_shift_ri(b, (rec->flags & MT_RF_SIGNED) ? 7 : 5, X_RAX,
				   (uint8_t)(64 - 8 * rec->size));
		}
		if ((rec->flags & MT_RF_AGGVAL) && nval++ == 0)
			vi = i;
		x_store_abs(b, 8, X_RAX, MT_JR_STAGE, 0, (int32_t)(8 * i));
	}
	x_load_abs(b, 4, X_RDX, MT_JR_AGGENT, (uint32_t)act->arg, 0);
	x_test_rr(b, X_RDX, X_RDX);
	x_jcc(b, CC_E, cold);
	keys_match(j, act, other);
	x_mov_rr(b, X_RAX, X_RDX);
	x_jmp(b, have);
	jit_label_here(b, other);
	x_cmp_abs_imm(b, 4, MT_JR_ECBENT, ecb, 0, (int32_t)(ai | MT_JIT_ECBENT_INTKEYS));
	x_jcc(b, CC_NE, cold);
	x_load_abs(b, 4, X_RDX, MT_JR_ECBENT, ecb, 4);
	keys_match(j, act, cold);
	x_mov_rr(b, X_RAX, X_RDX);
	x_jmp(b, have);
	jit_label_here(b, cold);
	if (!in_place(a, nval)) {	/* the runtime finds the entry (0) and updates it */
		x_mov_ri(b, X_RAX, 0);
		jit_label_here(b, have);
		jit_call(j, MT_JR_HELPER, MT_JH_AGGUPD, 4, ecb, ai, 1, X_RAX);
		return 0;
	}
	jit_call_imm(j, MT_JH_INTKEYS, ecb, ai, plat);	/* the entry in rax */
	jit_label_here(b, have);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_E, done);
	if (nval)
		x_load_abs(b, 8, X_RCX, MT_JR_STAGE, 0, (int32_t)(8 * vi));
	agg_update(j, a);
	jit_label_here(b, done);
	return 0;
}

static int agg(struct jit *j, const struct mt_action *act, uint32_t ecb)
{
	struct jit_buf *b = j->b;
	const struct mt_agg *a = &j->t.aggs[act->arg - 1];
	uint32_t dummy = 0, done;
	int how = agg_how(j, act, &dummy);

	if (how == AGG_HELPER) {
		jit_call(j, MT_JR_HELPER, MT_JH_ACTION, 4, ecb, (uint32_t)(act - j->t.actions), 0, X_RAX);
		return 0;
	}
	if (how == AGG_GIVEN)
		return agg_given(j, act, ecb);
	if (how == AGG_INTKEYS)
		return agg_intkeys(j, act, ecb);
	uint32_t kregs = 0, kd = how == AGG_INLINE_STRKEY ? str_key_difo(j, act, a) : 0;
	int park = kd && jit_difo_needs(j, kd, &kregs) == 0 && (kregs >> X_RCX & 1);
	int hasval = 0;

	for (uint32_t i = 0; i < act->nrecs; i++) {
		const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
		if ((rec->flags & MT_RF_AGGVAL) && rec->difo) {
			if (jit_difo(j, rec->difo) < 0)
				return -1;
			x_mov_rr(b, X_RCX, X_RAX);
			hasval = 1;
		}
	}
	park = park && hasval && j->val_off >= 0;
	if (park)
		x_store_m(b, 8, X_RCX, (struct x_mem){ X_RSP, j->val_off, 0, 0 });
	if (kd && jit_difo(j, kd) < 0)
		return -1;
	if (park)
		x_load_m(b, 8, X_RCX, (struct x_mem){ X_RSP, j->val_off, 0, 0 });
	done = jit_label_new(b);
	agg_entry(j, act, how, ecb);
	x_test_rr(b, X_RAX, X_RAX);
	x_jcc(b, CC_E, done);
	agg_update(j, a);
	jit_label_here(b, done);
	return 0;
}

/*
 * Reserve len bytes in the principal buffer (buf.c rt_buf_put, switch
 * policy): r11 = where the record goes (the staging record if it does
 * not fit: a drop, counted at the commit), r10 = the head to publish (0:
 * dropped).
 */
static void reserve(struct jit *j, uint32_t len)
{
	struct jit_buf *b = j->b;
	uint32_t wrap = jit_label_new(b), drop = jit_label_new(b), ok = jit_label_new(b);
	int32_t head = (int32_t)offsetof(struct mt_cpubuf, head);
	int32_t tail = (int32_t)offsetof(struct mt_cpubuf, tail);

	x_load_abs(b, 8, X_R10, MT_JR_CPUBUF, 0, head);
	x_mov_rr(b, X_RAX, X_R10);
	x_mov_ri(b, X_RDX, 0);
	x_load_abs(b, 8, X_RCX, MT_JR_CPUBUF, 0, (int32_t)offsetof(struct mt_cpubuf, size));
	x_div(b, X_RCX, 0);				/* rdx = head % size */
	x_lea(b, X_RAX, (struct x_mem){ X_RDX, (int32_t)len, 0, 0 });
	x_alu_rr(b, A_CMP, X_RAX, X_RCX);
	x_jcc(b, CC_A, wrap);
	/* fits before the end: head - tail + len <= size */
	x_load_abs(b, 8, X_RAX, MT_JR_CPUBUF, 0, tail);
	x_neg(b, X_RAX);
	x_alu_rr(b, A_ADD, X_RAX, X_R10);
	x_alu_ri(b, A_ADD, X_RAX, (int32_t)len);
	x_alu_rr(b, A_CMP, X_RAX, X_RCX);
	x_jcc(b, CC_A, drop);
	x_lea(b, X_R11, (struct x_mem){ X_RDX, 0, MT_JR_BUFDATA, 0 });
	x_alu_ri(b, A_ADD, X_R10, (int32_t)len);
	x_jmp(b, ok);
	/* the rest of the ring is padding (epid 0), the record at 0 */
	jit_label_here(b, wrap);
	x_mov_rr(b, X_R11, X_RCX);
	x_alu_rr(b, A_SUB, X_R11, X_RDX);		/* pad */
	x_load_abs(b, 8, X_RAX, MT_JR_CPUBUF, 0, tail);
	x_neg(b, X_RAX);
	x_alu_rr(b, A_ADD, X_RAX, X_R10);
	x_alu_rr(b, A_ADD, X_RAX, X_R11);
	x_alu_ri(b, A_ADD, X_RAX, (int32_t)len);
	x_alu_rr(b, A_CMP, X_RAX, X_RCX);
	x_jcc(b, CC_A, drop);
	x_store_mi(b, 4, (struct x_mem){ X_RDX, 0, MT_JR_BUFDATA, 0 }, 0);
	x_alu_rr(b, A_ADD, X_R10, X_R11);
	x_alu_ri(b, A_ADD, X_R10, (int32_t)len);
	x_mov_rrel(b, X_R11, MT_JR_BUFDATA, 0, 0);
	x_jmp(b, ok);
	jit_label_here(b, drop);		/* counted at the commit */
	x_mov_rrel(b, X_R11, MT_JR_STAGE, 0, 0);
	x_mov_ri(b, X_R10, 0);
	jit_label_here(b, ok);
}

/* Zero the record's 8-byte words no 8-byte value covers. */
static void record_zero(struct jit *j, const struct mt_clause *cl)
{
	uint8_t full[512];
	uint32_t n = cl->recsize / 8;

	memset(full, 0, sizeof full);
	for (uint32_t a = 0; a < cl->nacts; a++) {
		const struct mt_action *act = &j->t.actions[cl->act0 + a];
		if (act->kind == MT_ACT_IF || act->kind == MT_ACT_SKIP) {
			memset(full, 0, sizeof full);	/* skipped values read 0 */
			break;
		}
		if (act->kind != MT_ACT_TRACE && act->kind != MT_ACT_PRINTF)
			continue;
		for (uint32_t i = 0; i < act->nrecs; i++) {
			const struct mt_rec *rec = &j->t.recs[act->rec0 + i];
			if (rec->size == 8 && rec->offset % 8 == 0 && rec->offset / 8 < sizeof full)
				full[rec->offset / 8] = 1;
		}
	}
	for (uint32_t w = 0; w < n; w++)
		if (w >= sizeof full || !full[w])
			x_store_mi(j->b, 8, (struct x_mem){ X_R11, (int32_t)(RT_HDR + 8 * w), 0, 0 }, 0);
}

/*
 * The platform's execname (rax) into a string record: its
 * MT_JIT_PLATNAME readable bytes hold the NUL (jitabi.h), so they are
 * copied as words, without the safe loads another string's copy needs.
 */
static int execname_rec(struct jit *j, uint32_t size, int32_t off)
{
	/* a local site's is the runtime's buffer (MT_JH_EXECNAME) */
	int32_t n = j->o.site == JIT_SITE_LOCAL ? MT_JIT_STRBUF : MT_JIT_PLATNAME;

	if (size <= (uint32_t)n)
		return jit_fail(j, "an execname record of %u bytes", size);
	for (int32_t k = 0; k < n; k += 8) {
		x_load_m(j->b, 8, X_RCX, (struct x_mem){ X_RAX, k, 0, 0 });
		x_store_m(j->b, 8, X_RCX, (struct x_mem){ X_R11, off + k, 0, 0 });
	}
	return 0;
}

/* One value into the record at r11 (record_ok allowed it). */
static int record_value(struct jit *j, const struct mt_rec *rec)
{
	int32_t off = (int32_t)(RT_HDR + rec->offset);
	int rc;

	if (rec->kind == MT_REC_STR) {
		uint32_t size = rec->size;
		j->str_rec = 1;
		rc = jit_difo(j, rec->difo);
		j->str_rec = 0;
		if (rc < 0)
			return -1;
		if (j->ret_str == JIT_STR_MIXED)
			return jit_fail(j, "a string value of several kinds");
		if (j->ret_str == JIT_STR_EXECNAME)
			return execname_rec(j, size, off);
		if (j->ret_bound && j->ret_bound < size)
			size = j->ret_bound + 1;	/* the copy's bytes and a NUL */
		jit_str_rec(j, size, off, j->t.difos[rec->difo - 1].ntext - 1);
		return 0;
	}
	if (rec->difo) {
		if (jit_difo(j, rec->difo) < 0)
			return -1;
	} else {
		x_mov_ri(j->b, X_RAX, 0);
	}
	x_store_m(j->b, (int)rec->size, X_RAX, (struct x_mem){ X_R11, off, 0, 0 });
	return 0;
}

static int clause(struct jit *j, uint32_t ecb)
{
	struct jit_buf *b = j->b;
	const struct mt_clause *cl = &j->t.clauses[j->t.ecbs[ecb].clause];
	int record = (cl->flags & MT_CF_NEEDS_RECORD) || cl->recsize || cl->nacts == 0;
	uint32_t skip = jit_label_new(b);
	uint32_t label[JIT_MAXACTS + 1];
	uint8_t at[JIT_MAXACTS + 1];

	if (cl->nacts > JIT_MAXACTS)
		return jit_fail(j, "a clause of more than %d actions", JIT_MAXACTS);
	j->epid = ecb + 1;
	j->fault = jit_label_new(b);
	j->faults = 0;
	j->where_act = 0xffff;
	if (cl->pred_difo) {
		if (jit_difo(j, cl->pred_difo) < 0)
			return -1;
		x_test_rr(b, X_RAX, X_RAX);
		x_jcc(b, CC_E, skip);
	}
	j->effects = 1;
	if (record) {
		reserve(j, RT_HDR + cl->recsize);
		/* the header: epid, then the CPU of the code's copy */
		x_mov_ri_hirel(b, X_RAX, j->epid, MT_JR_CPU, 0);
		x_store_m(b, 8, X_RAX, (struct x_mem){ X_R11, 0, 0, 0 });
		record_zero(j, cl);
	}
	for (uint32_t a = 0; a <= cl->nacts; a++)
		at[a] = 0;
	for (uint32_t a = 0; a < cl->nacts; a++) {
		const struct mt_action *act = &j->t.actions[cl->act0 + a];
		uint32_t to = a + 1 + (uint32_t)act->arg;
		if ((act->kind == MT_ACT_IF || act->kind == MT_ACT_SKIP) && to <= cl->nacts &&
		    !at[to]) {
			at[to] = 1;
			label[to] = jit_label_new(b);
		}
	}
	for (uint32_t a = 0; a < cl->nacts; a++) {
		const struct mt_action *act = &j->t.actions[cl->act0 + a];
		j->where_act = a;
		if (at[a])
			jit_label_here(b, label[a]);
		if (act->kind == MT_ACT_SKIP) {
			x_jmp(b, label[a + 1 + act->arg]);
			continue;
		}
		if (act->kind == MT_ACT_IF) {
			const struct mt_rec *rec = &j->t.recs[act->rec0];
			if (rec->difo) {
				if (jit_difo(j, rec->difo) < 0)
					return -1;
			} else {
				x_mov_ri(b, X_RAX, 0);
			}
			if (rec->size == 1)
				x_store_m(b, 1, X_RAX, (struct x_mem){ X_R11,
					(int32_t)(RT_HDR + rec->offset), 0, 0 });
			x_test_rr(b, X_RAX, X_RAX);
			x_jcc(b, CC_E, label[a + 1 + act->arg]);
			continue;
		}
		if (act->kind == MT_ACT_AGG) {
			if (agg(j, act, ecb) < 0)
				return -1;
			continue;
		}
		if (act->kind == MT_ACT_DIFEXPR) {
			if (j->t.recs[act->rec0].difo && jit_difo(j, j->t.recs[act->rec0].difo) < 0)
				return -1;
			continue;
		}
		for (uint32_t i = 0; i < act->nrecs; i++)
			if (record_value(j, &j->t.recs[act->rec0 + i]) < 0)
				return -1;
		if (act->kind == MT_ACT_EXIT)
			exit_action(j);
	}
	if (at[cl->nacts])
		jit_label_here(b, label[cl->nacts]);
	if (record) {
		uint32_t dropped = jit_label_new(b);
		jit_timestamp(j);
		x_store_m(b, 8, X_RAX, (struct x_mem){ X_R11, 8, 0, 0 });
		uint32_t done = jit_label_new(b);
		x_test_rr(b, X_R10, X_R10);
		x_jcc(b, CC_E, dropped);
		x_store_abs(b, 8, X_R10, MT_JR_CPUBUF, 0, (int32_t)offsetof(struct mt_cpubuf, head));
		x_jmp(b, done);
		/* a drop counts when the record would have been committed: a
		   clause abandoned by a fault before drops nothing */
		jit_label_here(b, dropped);
		x_inc_abs(b, 8, MT_JR_CPUBUF, 0, (int32_t)offsetof(struct mt_cpubuf, drops));
		jit_label_here(b, done);
	}
	if (j->faults) {		/* a load's fault: reported, clause abandoned */
		x_jmp(b, skip);
		jit_label_here(b, j->fault);
		jit_call(j, MT_JR_HELPER, MT_JH_FAULT, 3, ecb, 0, 1, X_RAX);
	} else {
		jit_label_here(b, j->fault);
	}
	jit_label_here(b, skip);
	return 0;
}

/* Collect DIFO difo1's clause-locals (LDLS/STLS) into ids[*n]; -1 if
   more than max. */
static int difo_locals(const struct jit *j, uint32_t difo1, uint16_t *ids, uint32_t *n,
		       uint32_t max)
{
	const struct mt_difo *d;

	if (!difo1)
		return 0;
	d = &j->t.difos[difo1 - 1];
	for (uint32_t pc = 0; pc < d->ntext; pc++) {
		mt_instr_t in = j->t.text[d->text0 + pc];
		uint32_t k = 0;
		if (MT_OP(in) != MT_OP_LDLS && MT_OP(in) != MT_OP_STLS)
			continue;
		while (k < *n && ids[k] != MT_V16(in))
			k++;
		if (k == *n && *n == max)
			return -1;
		if (k == *n)
			ids[(*n)++] = (uint16_t)MT_V16(in);
	}
	return 0;
}

/*
 * A firing's clause-locals start at 0 (runtime/probe.c zeroes them all
 * at each firing): the ones the probe's clauses name, zeroed.
 */
#define JIT_MAXLOCALS 32
static int locals_zero(struct jit *j, const struct mt_probe *pr)
{
	uint16_t ids[JIT_MAXLOCALS];
	uint32_t n = 0;

	for (uint32_t e = 0; e < pr->necbs; e++) {
		const struct mt_clause *cl = &j->t.clauses[j->t.ecbs[pr->ecb0 + e].clause];
		if (difo_locals(j, cl->pred_difo, ids, &n, JIT_MAXLOCALS) < 0)
			return jit_fail(j, "more than %d clause-locals", JIT_MAXLOCALS);
		for (uint32_t a = 0; a < cl->nacts; a++) {
			const struct mt_action *act = &j->t.actions[cl->act0 + a];
			for (uint32_t i = 0; i < act->nrecs; i++)
				if (difo_locals(j, j->t.recs[act->rec0 + i].difo, ids, &n,
						JIT_MAXLOCALS) < 0)
					return jit_fail(j, "more than %d clause-locals",
							JIT_MAXLOCALS);
		}
	}
	if (n)
		x_mov_ri(j->b, X_RAX, 0);
	for (uint32_t k = 0; k < n; k++)
		x_store_abs(j->b, 8, X_RAX, MT_JR_LOCALS, ids[k], 0);
	return 0;
}

/* The clauses; after exit() only END's and ERROR's go on (probe.c,
   draining). */
static int clauses(struct jit *j, const struct mt_probe *pr)
{
	uint32_t drained = jit_label_new(j->b);
	int exited = 0, drains = pr->kind != MT_PK_END && pr->kind != MT_PK_ERROR;

	if (locals_zero(j, pr) < 0)
		return -1;
	for (uint32_t e = 0; e < pr->necbs; e++) {
		if (exited && drains) {
			x_cmp_abs_imm(j->b, 4, MT_JR_CB, 0, CB_FIELD(state), MT_CB_ACTIVE);
			x_jcc(j->b, CC_NE, drained);
		}
		if (clause(j, pr->ecb0 + e) < 0)
			return -1;
		exited |= exits(j, pr->ecb0 + e);
	}
	jit_label_here(j->b, drained);
	return 0;
}

/* The registers a local site saves: the callee-saved ones it writes,
   and rdi (the arguments' array) for jit_arg. */
static uint32_t local_saves(uint32_t regs)
{
	uint32_t callee = 1u << X_RBX | 1u << X_RBP | 1u << X_R12 | 1u << X_R13 |
		1u << X_R14 | 1u << X_R15;

	return (regs & callee) | 1u << X_RDI;
}

/*
 * The frame: which registers are pushed, where each is.  A local site is
 * called with rsp 8 off 16-alignment: its frame is an odd number of
 * 8-byte slots so that the helpers' calls (jit_call pushes 8) are
 * aligned as the SysV ABI wants.
 */
static void frame(struct jit *j, uint32_t regs, int uses_ts, int el)
{
	uint32_t n = 0;

	j->clobber = regs;
	for (size_t i = 0; i < NSAVE; i++)
		if (regs >> save_order[i] & 1)
			n++;
	n += (uses_ts ? 1 : 0) + (j->need_val ? 1 : 0) + (el ? 1 : 0);
	j->pad = j->o.site == JIT_SITE_LOCAL && n % 2 == 0;
	j->frame = 8 * (n + (uint32_t)j->pad);
	j->ts_off = uses_ts ? 0 : -1;
	j->val_off = j->need_val ? (uses_ts ? 8 : 0) : -1;
	j->el_off = el ? 8 * ((uses_ts ? 1 : 0) + (j->need_val ? 1 : 0) + j->pad) : -1;
	n = 0;
	for (size_t i = 0; i < NSAVE; i++)
		if (regs >> save_order[i] & 1)
			j->saved[save_order[i]] = j->frame - 8 * ++n + 1;
}

static void prologue(struct jit *j)
{
	if (j->o.site != JIT_SITE_LOCAL) {
		x_pushfq(j->b);
		x_cli(j->b);
	}
	for (size_t i = 0; i < NSAVE; i++)
		if (j->clobber >> save_order[i] & 1)
			x_push(j->b, save_order[i]);
	if (j->el_off >= 0)
		x_push_imm0(j->b);
	if (j->pad)
		x_push_imm0(j->b);
	if (j->need_val)
		x_push_imm0(j->b);
	if (j->ts_off >= 0)
		x_push_imm0(j->b);
	if (j->vclock) {		/* the firing starts */
		jit_tsc(j->b);
		x_store_abs(j->b, 8, X_RAX, MT_JR_PLAT_VCLOCK, 0, 0);
	}
}

/* The firing ends: its ticks are probe context's (MT_JR_PLAT_VCLOCK). */
static void vclock_end(struct jit *j)
{
	struct jit_buf *b = j->b;

	if (!j->vclock)
		return;
	jit_tsc(b);
	x_load_abs(b, 8, X_RDX, MT_JR_PLAT_VCLOCK, 0, 0);
	x_alu_rr(b, A_SUB, X_RAX, X_RDX);
	x_load_abs(b, 8, X_RDX, MT_JR_PLAT_VCLOCK, 0, 8);
	x_alu_rr(b, A_ADD, X_RDX, X_RAX);
	x_store_abs(b, 8, X_RDX, MT_JR_PLAT_VCLOCK, 0, 8);
	x_mov_ri(b, X_RAX, 0);
	x_store_abs(b, 8, X_RAX, MT_JR_PLAT_VCLOCK, 0, 0);
}

static void restore(struct jit *j)
{
	int32_t slots = (j->ts_off >= 0) + (j->val_off >= 0) + (j->el_off >= 0) + j->pad;

	if (slots)
		x_lea(j->b, X_RSP, (struct x_mem){ X_RSP, 8 * slots, 0, 0 });
	for (size_t i = NSAVE; i-- > 0;)
		if (j->clobber >> save_order[i] & 1)
			x_pop(j->b, save_order[i]);
	if (j->o.site != JIT_SITE_LOCAL)
		x_popfq(j->b);
}

/*
 * The end: a kernel site's fallback restores and jumps to the general
 * path, its exit restores and goes on to the continuation; a local
 * site's function returns 1 (fall back) or 0 (it ran) in eax.
 */
static void epilogue(struct jit *j, uint32_t exit)
{
	struct jit_buf *b = j->b;

	if (j->o.site == JIT_SITE_LOCAL) {
		x_mov_ri(b, X_RAX, 0);
		x_jmp(b, exit);
		jit_label_here(b, j->fallback);
		x_mov_ri(b, X_RAX, 1);
		jit_label_here(b, exit);
		restore(j);
		x_ret(b);
		return;
	}
	x_jmp(b, exit);
	jit_label_here(b, j->fallback);
	vclock_end(j);
	restore(j);
	x_jmp_rel(b, JIT_JR_FALLBACK, 0);
	jit_label_here(b, exit);
	vclock_end(j);
	restore(j);
	if (j->o.site == JIT_SITE_RETURN)
		x_ret(b);
}

static void jit_init(struct jit *j, const struct mt_image *img, const struct jit_opts *o,
		     struct jit_buf *b, char *why, size_t whylen)
{
	memset(j, 0, sizeof *j);
	j->img = img;
	j->t = mt_image_tabs(img);
	j->o = *o;
	j->b = b;
	j->why = why;
	j->whylen = whylen;
	j->ts_off = -1;
	j->val_off = -1;
	j->el_off = -1;
}

int mt_jit_probe(const struct mt_image *img, uint32_t pi, const struct jit_opts *o,
		 struct jit_code *out, char *why, size_t whylen)
{
	struct jit j;
	struct jit_buf *b = &out->b;
	const struct mt_probe *pr;
	uint32_t regs = 0, exit;
	int uses_ts = 0, el = 0;

	jit_buf_init(b);
	jit_init(&j, img, o, b, why, whylen);
	if (pi >= img->nprobes)
		return jit_fail(&j, "no probe %u", pi), 0;
	if (o->site == JIT_SITE_HOST)
		return jit_fail(&j, "a probe is not compiled for the host"), 0;
	if (o->nalso > 2)
		return jit_fail(&j, "more than three probes at a site"), 0;
	for (uint32_t k = 0; k <= o->nalso; k++) {
		j.probe = k ? o->also[k - 1] : pi;
		if (j.probe >= img->nprobes || j.t.probes[j.probe].necbs == 0)
			return jit_fail(&j, "no clause for probe %u", j.probe), 0;
		if (needs(&j, &regs, &uses_ts) < 0)
			return 0;
		el |= elapsed_arg(&j.t.probes[j.probe]);
	}
	if (o->site == JIT_SITE_RETURN)
		regs |= 1u << X_RAX;		/* arg1 is read from its slot */
	j.vclock = (o->site == JIT_SITE_ENTRY || o->site == JIT_SITE_RETURN) &&
		mt_image_reads_var(img, MT_VAR_VTIMESTAMP);
	if (j.vclock)
		regs |= 1u << X_RAX | 1u << X_RDX;
	if (o->site == JIT_SITE_LOCAL)
		regs = local_saves(regs);
	frame(&j, regs, uses_ts, el);
	j.fallback = jit_label_new(b);
	exit = jit_label_new(b);
	prologue(&j);
	x_cmp_abs_imm(b, 4, MT_JR_CB, 0, CB_FIELD(state), MT_CB_ACTIVE);
	x_jcc(b, CC_NE, j.fallback);
	x_cmp_abs_imm(b, 4, MT_JR_CB, 0, CB_FIELD(req), MT_REQ_NONE);
	x_jcc(b, CC_NE, j.fallback);
	x_cmp_abs_imm(b, 4, MT_JR_BUSY, 0, 0, 0);
	x_jcc(b, CC_NE, j.fallback);
	for (uint32_t k = 0; k <= o->nalso; k++) {
		j.probe = k ? o->also[k - 1] : pi;
		pr = &j.t.probes[j.probe];
		if (k && uses_ts)	/* each firing its own timestamp */
			x_store_mi(b, 8, (struct x_mem){ X_RSP, j.ts_off, 0, 0 }, 0);
		elapsed_take(&j, pr);
		if (clauses(&j, pr) < 0) {
			jit_buf_free(b);
			return b->err ? -1 : 0;
		}
		x_lock_inc_abs(b, 8, MT_JR_CB, 0, CB_FIELD(nfirings));
	}
	epilogue(&j, exit);
	if (jit_buf_finish(b) < 0) {
		jit_buf_free(b);
		return -1;
	}
	return 1;
}

int mt_jit_difo_host(const struct mt_image *img, uint32_t difo1, struct jit_code *out,
		     char *why, size_t whylen)
{
	struct jit j;
	struct jit_buf *b = &out->b;
	struct jit_opts o = { .site = JIT_SITE_HOST };
	static const enum jreg keep[] = { X_RBX, X_RBP, X_R12, X_R13, X_R14, X_R15 };

	jit_buf_init(b);
	jit_init(&j, img, &o, b, why, whylen);
	if (difo1 == 0 || difo1 > img->ndifos)
		return jit_fail(&j, "no DIFO %u", difo1), 0;
	for (size_t i = 0; i < 6; i++)
		x_push(b, keep[i]);
	if (jit_difo(&j, difo1) < 0) {
		jit_buf_free(b);
		return 0;
	}
	for (size_t i = 6; i-- > 0;)
		x_pop(b, keep[i]);
	x_ret(b);
	if (jit_buf_finish(b) < 0) {
		jit_buf_free(b);
		return -1;
	}
	return 1;
}

void mt_jit_free(struct jit_code *c)
{
	jit_buf_free(&c->b);
}
