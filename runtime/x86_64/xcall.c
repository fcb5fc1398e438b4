/*
 * Cross-calls: run a function on one or every other CPU and wait for
 * them (DTrace's dtrace_xcall; dtrace_sync is a cross-call of nothing).
 * GNU Mach has no generic IPI, so the blob takes its own vector in every
 * CPU's IDT (idt.c) at INIT, beside int3, and gives it back at the end;
 * the IPI goes through the sending CPU's local APIC (the SMP kernel's
 * mapping, `lapic`, at which each CPU reaches its own).  Only with an
 * SMP kernel: a UP kernel runs on one CPU, where everything here is a
 * no-op.
 *
 * A CPU answers once it is online: it took a clock interrupt since INIT
 * (lk_tick), which is also how its APIC ID becomes known.  The caller
 * (patching, lk_text_poke, also from probe context when a firing arms
 * its site) holds its interrupts off; the handler runs with them off too.  An interrupt serializes the
 * CPU that takes it, so after lk_xcall_sync every other CPU executes
 * the bytes written before it (the syncs of Linux's text_poke_bp).  A
 * CPU holding its interrupts off for more than 20 ms (spinning on a lock
 * that the caller's interrupted thread holds) is not waited for further:
 * ctl->xcall_timeouts counts it, and the int3 written first keeps a
 * patch safe for it.  One cross-call at a time: a second caller meanwhile
 * gets -1 at once (waiting could deadlock both with interrupts off); a
 * patch's sync then tries again, answering syncs aimed at its own CPU.
 *
 * A hold (lk_xcall_hold, attach mode's GO) keeps every other CPU in its
 * handler, interrupts off, its interrupted registers known, until
 * lk_xcall_release or a second at most: the caller checks where each
 * stands before patching, and the syncs meanwhile are no-ops (a held CPU
 * executes nothing, and its iret serializes it).
 */
#include "runtime/kernel/kern.h"

#define AP_EOI		0x0b0
#define XC_WAIT_DIV	50		/* 1/50 s: 20 ms */

extern char lk_xcall_entry[];

static struct {
	uint64_t base;			/* the registers (the kernel's mapping) */
	uint32_t vec;
	volatile uint32_t busy;
	volatile uint32_t online[LK_NCPU_MAX], apic_id[LK_NCPU_MAX];
	volatile uint64_t gen, seen[LK_NCPU_MAX];
	volatile uint32_t target;	/* a CPU, or LK_XC_ALL */
	void (*volatile fn)(void *);
	void *volatile arg;
	volatile uint32_t holding;
	struct lk_regs *volatile held[LK_NCPU_MAX];
} xc;

int lk_xcall_start(void)
{
	struct lk_ctl *c = lk.ctl;

	c->xcall_vec = c->xcall_cpus = 0;
	if (c->k.ncpus < 2)
		return 0;
	if (!xc.vec) {
		if (!(xc.base = lk_apic_kernel_regs()))
			return -1;
		for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
			xc.online[i] = 0;
		if (!(xc.vec = lk_idt_take((uint64_t)lk_xcall_entry)))
			return -1;
	}
	c->xcall_vec = xc.vec;
	return 0;
}

/* The hold's function: a marker, hold_here does the waiting. */
static void hold(void *arg)
{
}

/* In the handler, until the holder releases (a second at most). */
static void hold_here(uint32_t me)
{
	uint64_t t0 = lk_rdtsc();

	while (__atomic_load_n(&xc.holding, __ATOMIC_ACQUIRE) &&
	       lk_rdtsc() - t0 < lk.ctl->k.tsc_hz)
		lk_pause();
	xc.held[me] = 0;
}

static int targets(uint32_t cpu, uint32_t me)
{
	return cpu != me && xc.online[cpu] && (xc.target == LK_XC_ALL || xc.target == cpu);
}

/* The vector back, unless a CPU that did not answer in time still has
   the IPI to take (its gate must stay then: the IDT check names it). */
void lk_xcall_stop(void)
{
	uint32_t me = mt_plat_cpu();
	uint64_t t0 = lk_rdtsc();

	if (!xc.vec)
		return;
	xc.target = LK_XC_ALL;
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
		while (targets(i, me) && __atomic_load_n(&xc.seen[i], __ATOMIC_ACQUIRE) != xc.gen)
			if (lk_rdtsc() - t0 > lk.ctl->k.tsc_hz / XC_WAIT_DIV)
				return;
	lk_idt_give(xc.vec);
	xc.vec = 0;
}

/* From each CPU's clock interrupt: it answers cross-calls from now on. */
void lk_xcall_online(void)
{
	uint32_t me = mt_plat_cpu(), a = 1, b, c = 0, d;

	if (!xc.vec || me >= LK_NCPU_MAX || xc.online[me])
		return;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	xc.apic_id[me] = b >> 24;
	__atomic_store_n(&xc.online[me], 1, __ATOMIC_RELEASE);
	__atomic_add_fetch(&lk.ctl->xcall_cpus, 1, __ATOMIC_RELAXED);
}

/*
 * fn(arg) on CPU cpu (LK_XC_ALL: every other online CPU), waited for.
 * Returns how many of them did not answer in time, -1 if another
 * cross-call is under way (nothing sent).
 */
int lk_xcall(uint32_t cpu, void (*fn)(void *), void *arg)
{
	uint32_t me = mt_plat_cpu(), zero = 0, n = 0, late = 0;
	uint64_t t0, gen, fl;

	if (!xc.vec || (xc.holding && fn != hold))
		return 0;
	if (!__atomic_compare_exchange_n(&xc.busy, &zero, 1, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return -1;
	fl = lk_save_cli();
	xc.target = cpu, xc.fn = fn, xc.arg = arg;
	gen = __atomic_add_fetch(&xc.gen, 1, __ATOMIC_ACQ_REL);
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
		n += targets(i, me);
	if (n) {
		if (cpu == LK_XC_ALL)
			lk_apic_ipi(xc.base, LK_ICR_OTHERS, 0, xc.vec);
		else
			lk_apic_ipi(xc.base, 0, xc.apic_id[cpu], xc.vec);
		lk.ctl->xcalls++;
	}
	t0 = lk_rdtsc();
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++) {
		while (targets(i, me) && __atomic_load_n(&xc.seen[i], __ATOMIC_ACQUIRE) != gen &&
		       lk_rdtsc() - t0 < lk.ctl->k.tsc_hz / XC_WAIT_DIV)
			lk_pause();
		late += targets(i, me) && xc.seen[i] != gen;
	}
	lk.ctl->xcall_timeouts += late;
	xc.fn = 0;
	lk_restore(fl);
	__atomic_store_n(&xc.busy, 0, __ATOMIC_RELEASE);
	return (int)late;
}

/* A patch's sync: after another CPU's cross-call (one under way made it
   -1 at once, and the patch went on unsynced), 40 ms at most. */
void lk_xcall_sync(void)
{
	uint64_t t0 = lk_rdtsc();

	while (lk_xcall(LK_XC_ALL, 0, 0) < 0 &&
	       lk_rdtsc() - t0 < 2 * lk.ctl->k.tsc_hz / XC_WAIT_DIV)
		lk_xcall_poll();
}

/* Spinning with interrupts off (lk_patch_wait): answer a sync aimed at
   this CPU as the IPI would (the IPI itself comes later and finds
   nothing or the next call). */
void lk_xcall_poll(void)
{
	uint32_t me = mt_plat_cpu();
	uint64_t gen = __atomic_load_n(&xc.gen, __ATOMIC_ACQUIRE);

	if (xc.vec && me < LK_NCPU_MAX && __atomic_load_n(&xc.busy, __ATOMIC_ACQUIRE) &&
	    !xc.fn && !xc.holding && targets(me, LK_NCPU_MAX) && xc.seen[me] != gen)
		__atomic_store_n(&xc.seen[me], gen, __ATOMIC_RELEASE);
	lk_pause();
}

/*
 * Every other online CPU held (0), their number at least `cpus` in all;
 * else -1 with none held.  lk_xcall_held gives a held CPU's registers.
 */
int lk_xcall_hold(uint32_t cpus)
{
	uint32_t n = 0;

	if (!xc.vec)
		return 0;
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
		n += xc.online[i];
	if (n < cpus)
		return -1;
	__atomic_store_n(&xc.holding, 1, __ATOMIC_RELEASE);
	if (lk_xcall(LK_XC_ALL, hold, 0) != 0) {
		lk_xcall_release();
		return -1;
	}
	return 0;
}

struct lk_regs *lk_xcall_held(uint32_t cpu)
{
	return cpu < LK_NCPU_MAX && xc.holding ? xc.held[cpu] : 0;
}

void lk_xcall_release(void)
{
	__atomic_store_n(&xc.holding, 0, __ATOMIC_RELEASE);
}

/*
 * A sync that nothing hurries (ending a session), DTrace's dtrace_sync:
 * every other CPU has left the firing it was in (it answers with
 * interrupts off, which probe context keeps off).  Up to 1 s for a CPU
 * the host has not run for a while (QEMU's vCPU thread descheduled) or
 * while another CPU's cross-call is under way.
 */
void lk_xcall_sync_long(void)
{
	uint64_t t0 = lk_rdtsc();

	while (lk_xcall(LK_XC_ALL, 0, 0) != 0 && lk_rdtsc() - t0 < lk.ctl->k.tsc_hz)
		lk_xcall_poll();	/* answer another CPU's sync meanwhile */
}

/* The IPI (entry.S lk_xcall_entry, IF = 0, any mode). */
void lk_xcall_fire(struct lk_regs *r)
{
	uint32_t me = mt_plat_cpu();
	/* the call's generation first: its fn, target and arg were written
	   before it (lk_xcall), so a stale IPI never acknowledges a newer
	   call with an older call's fn */
	uint64_t gen = __atomic_load_n(&xc.gen, __ATOMIC_ACQUIRE);
	void (*fn)(void *) = xc.fn;

	if (me < LK_NCPU_MAX) {
		if (fn && fn != hold && (xc.target == LK_XC_ALL || xc.target == me))
			fn(xc.arg);
		xc.held[me] = fn == hold ? r : 0;
		__atomic_store_n(&xc.seen[me], gen, __ATOMIC_RELEASE);
		if (fn == hold)
			hold_here(me);
	}
	*(volatile uint32_t *)(xc.base + AP_EOI) = 0;
}
