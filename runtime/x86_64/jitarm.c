/*
 * Compiled probes in the blob (LK_SF_JIT, jit/ on the host): after a
 * site's first general firing its relocations are filled in (the
 * runtime's addresses, mt_rt_jit_addr; the platform's TSC multiplier)
 * and its jmp goes to the compiled code, as fast_arm does for the
 * counting trampoline.  lk_fast_disarm puts the general path back (STOP,
 * a host request); the next firing arms it again.
 */
#include "runtime/kernel/kern.h"
#include "machtrace/jitabi.h"

/* The value of relocation r of code at va; 0 if it has none. */
static int rel_value(const struct lk_jit_rel *r, uint64_t va, int32_t *out)
{
	uint64_t v;

	if (r->kind == MT_JR_PLAT_TSCMULT)
		v = (uint64_t)&lk.tsc_mult;
	else if (r->kind == MT_JR_PLAT_EXECNAME)
		v = (uint64_t)lk_jit_execname;
	else if (r->kind == MT_JR_PLAT_THRMEMO)
		v = (uint64_t)&lk.thr[0];
	else if (r->kind == MT_JR_PLAT_CURTHREAD)
		v = lk_jit_curthread_at();
	else if (r->kind == MT_JR_PLAT_VCLOCK)
		v = (uint64_t)&lk.vt_fire;
	else if (r->kind == MT_JR_PLAT_LOADABLE)
		v = lk_jit_loadable_at();
	else if (r->kind < MT_JR_PLAT_TSCMULT)
		v = mt_rt_jit_addr(lk.cb, r->kind, r->arg);
	else
		return 0;
	return v && mt_jit_rel_encode(r->kind, v, r->addend, va + r->at + 4, out);
}

void lk_jit_arm(struct lk_site *s)
{
	const struct lk_jit *h = (const struct lk_jit *)s->fast;
	uint64_t code = s->fast + h->code_off;
	int64_t rel = (int64_t)(code - (s->addr + 5));
	int32_t v;

	if (s->fast_armed || rel != (int32_t)rel)
		return;
	for (uint32_t i = 0; i < h->nrel; i++) {
		if (h->rel[i].at + 4 > h->code_len || !rel_value(&h->rel[i], code, &v)) {
			s->fast_armed = LK_JIT_BAD;
			return;
		}
		*(volatile int32_t *)(code + h->rel[i].at) = v;
	}
	lk_site_jump(s, (int32_t)rel);
}
