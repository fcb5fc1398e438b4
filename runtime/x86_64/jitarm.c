/*
 * Compiled probes in the blob (LK_SF_JIT, jit/ on the host): after a
 * site's first general firing the relocations of each copy of its code
 * are filled in (copy i's with CPU i's addresses: the runtime's,
 * mt_rt_jit_addr, and the platform's) and its jmp goes to the code (one
 * copy) or to the host's dispatch stub (several: lkabi.h, struct
 * lk_jit), as fast_arm does for the counting trampoline.  Its calls of
 * the runtime go through entry.S's thunks, onto the blob's stack.
 * lk_fast_disarm puts the general path back (STOP, a host request); the
 * next firing arms it again.
 */
#include "runtime/kernel/kern.h"
#include "machtrace/jitabi.h"

/* What entry.S's thunks call: the MT_JH_* helpers, then execname's. */
uint64_t lk_jit_fn[MT_JH__COUNT + 1];

/* Thunk i, which calls fn on the blob's stack: 0 if none. */
static uint64_t thunk(uint32_t i, uint64_t fn)
{
	uint64_t t = (uint64_t)lk_jit_thunks + 16 * (uint64_t)i;

	if (fn == 0 || i > MT_JH__COUNT || t + 16 > (uint64_t)lk_jit_thunks_end)
		return 0;
	lk_jit_fn[i] = fn;
	return t;
}

/* The value of relocation r of CPU cpu's copy of the code at va; 0 if it
   has none.  vtimestamp's clock is one CPU's: only copy 0 has it (the
   host compiles no probe reading it for several CPUs). */
static int rel_value(const struct lk_jit_rel *r, uint64_t va, uint32_t cpu, int32_t *out)
{
	uint64_t v;

	if (r->kind == MT_JR_PLAT_TSCMULT)
		v = (uint64_t)&lk.tsc_mult;
	else if (r->kind == MT_JR_PLAT_EXECNAME)
		v = thunk(MT_JH__COUNT, (uint64_t)lk_jit_execname);
	else if (r->kind == MT_JR_PLAT_THRMEMO)
		v = (uint64_t)&lk.thr[cpu][0];
	else if (r->kind == MT_JR_PLAT_CURTHREAD)
		v = lk_jit_curthread_at(cpu);
	else if (r->kind == MT_JR_PLAT_VCLOCK)
		v = cpu == 0 ? (uint64_t)&lk.vt_fire : 0;
	else if (r->kind == MT_JR_PLAT_LOADABLE)
		v = lk_jit_loadable_at();
	else if (r->kind == MT_JR_HELPER)
		v = thunk(r->arg, mt_rt_jit_addr(lk.cb, r->kind, r->arg, cpu));
	else if (r->kind < MT_JR_PLAT_TSCMULT)
		v = mt_rt_jit_addr(lk.cb, r->kind, r->arg, cpu);
	else
		return 0;
	return (v || mt_jit_rel_zero_ok(r->kind)) &&
		mt_jit_rel_encode(r->kind, v, r->addend, va + r->at + 4, out);
}

/* Fill in copy cpu's relocations; 0 if one cannot be resolved. */
static int relocate(const struct lk_jit *h, uint64_t code, uint32_t cpu)
{
	int32_t v;

	for (uint32_t i = 0; i < h->nrel; i++) {
		if (h->rel[i].at + 4 > h->code_len || !rel_value(&h->rel[i], code, cpu, &v))
			return 0;
		*(volatile int32_t *)(code + h->rel[i].at) = v;
	}
	return 1;
}

void lk_jit_arm(struct lk_site *s)
{
	const struct lk_jit *h = (const struct lk_jit *)s->fast;
	uint64_t code = s->fast + h->code_off;
	uint64_t to = h->ncopy > 1 ? s->fast + h->disp_off : code;
	int64_t rel = (int64_t)(to - (s->addr + 5));

	if (s->fast_armed || rel != (int32_t)rel)
		return;
	if (h->ncopy == 0 || h->ncopy > LK_NCPU_MAX) {
		s->fast_armed = LK_JIT_BAD;
		return;
	}
	for (uint32_t cpu = 0; cpu < h->ncopy; cpu++)
		if (!relocate(h, code + (uint64_t)cpu * h->stride, cpu)) {
			s->fast_armed = LK_JIT_BAD;
			return;
		}
	lk_site_jump(s, (int32_t)rel);
}
