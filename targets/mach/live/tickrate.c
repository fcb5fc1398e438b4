/*
 * The rate of the clock fallback: without the local APIC timer, tick-N
 * and profile-N fire from the kernel's clock interrupt, at most once per
 * interrupt.  That rate is the kernel's: its hz as the running kernel
 * holds it (said at GO), and the interrupts the blob saw while tracing
 * (said after STOP when they ran at another rate: forky's kernel ticks
 * about twice per 1/hz under QEMU).  The same count times the no-progress
 * watchdog.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "targets/mach/live/live_int.h"

static const char *apic_why(uint32_t why)
{
	switch (why) {
	case LK_AW_DISABLED: return "the local APIC is disabled or in x2APIC mode";
	case LK_AW_NO_MAPPING: return "no 4 KiB page to map the local APIC through";
	case LK_AW_NO_APIC: return "no local APIC answers";
	case LK_AW_NO_VECTOR: return "no free interrupt vector";
	case LK_AW_NO_COUNT: return "the local APIC timer does not count";
	default: return "the runtime did not take it";
	}
}

/* The kernel's hz: in the running kernel's memory, else the image's
   initial value, else 100. */
static uint32_t kernel_hz(struct live *l)
{
	uint64_t va = 0;
	const uint8_t *b = NULL;
	uint32_t v = 0;

	if (mt_kimg_symbol(l->k, "hz", &va) < 0)
		return 100;
	if (l->ram && va >= LK_KERNEL_MAP_BASE && va - LK_KERNEL_MAP_BASE + 4 <= l->ram_size)
		b = l->ram + (va - LK_KERNEL_MAP_BASE);
	else
		b = mt_kimg_bytes(l->k, va, 4);
	if (b)
		memcpy(&v, b, 4);
	return v ? v : 100;
}

/* The fastest tick/profile interval in ns, ~0 if none. */
static uint64_t fastest_tick(const struct live *l)
{
	uint64_t fastest = ~0ull;

	for (uint32_t i = 0; i < l->ctl->nticks && i < LK_MAX_TICKS; i++)
		if (l->ctl->ticks[i].interval_ns < fastest)
			fastest = l->ctl->ticks[i].interval_ns;
	return fastest;
}

/*
 * After GO: tick/profile probes faster than the kernel's clock (hz) fire
 * at most hz times a second unless the blob took the local APIC timer;
 * say so once, with the reason.  The clock's count starts here.
 */
void tick_report(struct live *l)
{
	uint32_t hz;

	l->go_ticks = l->ctl->ticks_seen;
	l->go_ns = live_now_ns(CLOCK_MONOTONIC);
	if (!l->ctl->nticks || l->ctl->tick_src == LK_TS_LAPIC)
		return;
	hz = kernel_hz(l);
	if (fastest_tick(l) >= 1000000000ull / hz)
		return;
	fprintf(stderr, "machtrace: warning: tick-N/profile-N fire at most %u times a second "
		"(the kernel's clock): the local APIC timer is not used: %s\n", hz,
		l->tick_why[0] ? l->tick_why : apic_why(l->ctl->apic_why));
}

/*
 * After STOP: when the kernel's clock interrupt ran at a rate a quarter or
 * more off its hz over at least half a second of tracing, and a tick or
 * profile probe asked for more, say at what rate they could fire.
 */
void tick_rate_report(struct live *l)
{
	uint64_t dt = live_now_ns(CLOCK_MONOTONIC) - l->go_ns, rate;
	uint32_t hz;

	if (!l->go_ns || !l->ctl->nticks || l->ctl->tick_src == LK_TS_LAPIC || dt < 500000000ull)
		return;
	hz = kernel_hz(l);
	rate = (l->ctl->ticks_seen - l->go_ticks) * 1000000000ull / dt;
	if (fastest_tick(l) >= 1000000000ull / (rate > hz ? rate : hz) ||
	    (rate * 4 >= (uint64_t)hz * 3 && rate * 4 <= (uint64_t)hz * 5))
		return;
	fprintf(stderr, "machtrace: warning: the kernel's clock interrupt ran %llu times a "
		"second, not hz (%u): tick-N/profile-N fired at most that often\n",
		(unsigned long long)rate, hz);
}

/* What the watchdog reads (before INIT): the idle loop its clock samples
   do not count (machine_idle, where an idle CPU halts; none, so every
   sample counts, in a kernel without it), and where the kernel counts
   the RPCs it served. */
void idle_range(struct live *l)
{
	const struct mt_kfunc *f;
	uint64_t va = 0;

	uint64_t off = 0;
	char type[256];

	l->ctl->off_krpcs = mt_kimg_member(l->k, "task", "messages_received", &off, type,
					   sizeof type) < 0 ? 0 : (uint32_t)off;
	l->ctl->idle_lo = l->ctl->idle_hi = 0;
	if (mt_kimg_symbol(l->k, "machine_idle", &va) < 0 || !(f = mt_kimg_func_at(l->k, va)))
		return;
	l->ctl->idle_lo = f->addr;
	l->ctl->idle_hi = f->addr + f->size;
}

/*
 * The no-progress watchdog: a boot session without --timeout (not a disk
 * system, not a VM) whose kernel served no RPC and took every clock
 * interrupt in its idle loop (idle_range) for LK_IDLE_S seconds of guest
 * time (the kernel's clock: hz interrupts a second) runs nothing: its
 * modules blocked or ended without rebooting.  Clock samples alone miss
 * a workload that wakes for a few ms a second; its kernel calls do not.
 * 1 once that happened.
 */
int idle_stalled(struct live *l)
{
	uint64_t u = l->ctl->busy_ticks + l->ctl->krpcs, t = l->ctl->ticks_seen;

	if (l->vm || l->o.timeout_ms || l->o.disk)
		return 0;
	if (u != l->idle_busy || !l->idle_mark) {
		l->idle_busy = u;
		l->idle_mark = t;
		return 0;
	}
	return t - l->idle_mark >= (uint64_t)LK_IDLE_S * kernel_hz(l);
}
