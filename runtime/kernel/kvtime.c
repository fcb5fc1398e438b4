/*
 * vtimestamp on GNU Mach (probe context, LK_CTL_VTIME): each thread's
 * time on the CPU less the time spent in probe context, as illumos keeps
 * t_dtrace_vtime.  A thread's clock is in its tid entry (kplat.c,
 * mt_ident.data): ACC, the ticks it ran before its current stint; START,
 * the TSC at which the stint began (0: not on the CPU, or not seen since
 * GO); PSTART, lk.vt_probe then.  Every switch goes through the entry of
 * switch_context or stack_handoff, where the blob's hooks
 * (LK_SF_INTERNAL_SWITCH*) end the leaving thread's stint and start the
 * next one's; lk_fire_ctx adds the ticks each firing spends in the
 * runtime to lk.vt_probe (interrupts are off in probe context, so a
 * stint's probe ticks are the difference).  A running thread's virtual
 * time at t is
 *
 *	ACC + (t - START) - (lk.vt_probe - PSTART)
 *
 * with t the firing's start, so one firing reads one value.  A thread
 * first seen running (on the CPU at GO) starts its clock then.  Compiled
 * probes (jit/) bypass lk_fire_ctx: their own few instructions count as
 * the thread's time.  Ticks throughout; ns when read (lk_ns is linear).
 */
#include "runtime/kernel/kern.h"
#include "runtime/idtab.h"

#define ACC	0
#define START	1
#define PSTART	2

void lk_vtime_start(void)
{
	lk.vt_probe = 0;
	lk.vt_fire = 0;
}

static void stint(struct mt_ident *e, uint64_t now)
{
	e->data[START] = now ? now : 1;
	e->data[PSTART] = lk.vt_probe;
}

static uint64_t ran(const struct mt_ident *e, uint64_t now)
{
	uint64_t wall = now - e->data[START], probe = lk.vt_probe - e->data[PSTART];

	return wall > probe ? wall - probe : 0;
}

void lk_vtime_switch(uint64_t next)
{
	uint64_t now = lk_rdtsc();
	struct mt_ident *e = lk_thread_ent(mt_plat_var(0, MT_VAR_CURTHREAD));

	if (e && e->data[START]) {
		e->data[ACC] += ran(e, now);
		e->data[START] = 0;
	}
	if ((e = lk_thread_ent(next)) != 0)
		stint(e, now);
}

uint64_t lk_vtime(void)
{
	uint64_t t = lk.vt_fire ? lk.vt_fire : lk_rdtsc();
	struct mt_ident *e = lk_thread_ent(mt_plat_var(0, MT_VAR_CURTHREAD));

	if (!e)
		return 0;
	if (!e->data[START])
		stint(e, t);
	return lk_ns(e->data[ACC] + ran(e, t));
}
