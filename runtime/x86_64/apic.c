/*
 * tick-N and profile-N at their own rates: the local APIC timer (probe
 * context).  The kernel's clock interrupt runs at hz (100), too slow for
 * profile-997; from GO to the end of tracing the blob owns the local
 * APIC's timer, which GNU Mach leaves unused (its PIT drives the clock
 * through the 8259 and the APIC's virtual-wire LINT0).
 *
 * Set up at GO (lk_apic_start), in order, each step's failure leaving
 * everything as it was and the ticks on the clock interrupt (ctl->
 * apic_why says why):
 *   1. the registers: the kernel's own mapping (`lapic`) when it made
 *      one; else the blob borrows the 4 KiB page-table entry of one page
 *      of its own .bss (apic_page, in the reserved region, which only the
 *      blob uses) and points it at IA32_APIC_BASE (uncached).  GNU Mach's
 *      uniprocessor build never maps the APIC: `lapic` is &dummy_lapic.
 *   2. a vector: the highest IDT entry the kernel left not present
 *      (below the spurious vector), an interrupt gate to lk_apic_entry.
 *   3. the timer's rate against the TSC (a 50 us count), then the timer
 *      in one-shot mode on that vector; the spurious-interrupt register
 *      gets its enable bit if it lacked it.
 * Each interrupt fires the tick/profile probes that are due (TSC
 * deadlines, as on the clock path: the counts follow the guest's clock,
 * whatever the timer's rate) and arms the timer for the earliest next
 * one; the interrupted context is the probe's (a kernel pc or, from user
 * mode, a user pc with the user registers in pcb->iss for uregs[] and
 * ustack()).
 *
 * Torn down by lk_apic_stop at every end of tracing (STOP, the deadman,
 * END at reboot): the timer masked and stopped, then its registers, the
 * spurious register, the IDT entry and the page-table entry as they
 * were.  A timer interrupt already latched by the APIC (IRR) cannot be
 * withdrawn: the vector then stays ours until it is taken, and its
 * handler finishes the teardown (DRAINING).
 */
#include "runtime/kernel/kern.h"

#define AP_SVR		0x0f0
#define AP_VER		0x030
#define AP_EOI		0x0b0
#define AP_IRR		0x200
#define AP_ISR		0x100
#define AP_LVT_TIMER	0x320
#define AP_INIT		0x380
#define AP_CUR		0x390
#define AP_DIV		0x3e0
#define LVT_MASKED	0x10000u
#define SVR_ENABLE	0x100u
#define DIV_BY_1	0xbu

#define MSR_APIC_BASE	0x1b
#define APIC_BASE_EXTD	(1ull << 10)	/* x2APIC mode */
#define APIC_BASE_EN	(1ull << 11)
#define PTE_P		0x1ull
#define PTE_RW		0x2ull
#define PTE_PWT		0x8ull
#define PTE_PCD		0x10ull
#define PTE_PS		0x80ull
#define PTE_G		0x100ull
#define PTE_ADDR	0x000ffffffffff000ull

enum { AP_OFF = 0, AP_ON, AP_DRAINING };

static uint8_t apic_page[4096] __attribute__((aligned(4096)));

static struct {
	int state;
	uint64_t base;			/* VA of the registers */
	volatile uint64_t *pte;		/* the borrowed entry, 0 if none */
	uint64_t pte_orig;
	uint32_t vec;
	uint32_t gate[4];		/* the IDT entry as the kernel had it */
	uint32_t lvt, init, div, svr;	/* the timer as the kernel had it */
	uint64_t ratio;			/* timer counts per TSC tick, 32.32 */
	uint64_t tsc_hz;
} ap;

extern char lk_apic_entry[];

static uint32_t rd(uint32_t reg)
{
	return *(volatile uint32_t *)(ap.base + reg);
}

static void wr(uint32_t reg, uint32_t v)
{
	*(volatile uint32_t *)(ap.base + reg) = v;
}

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static int vec_pending(uint32_t reg)
{
	return (rd(reg + (ap.vec / 32) * 16) >> (ap.vec % 32)) & 1;
}

/* Step 1: where the registers are. */
static int map_regs(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t base = rdmsr(MSR_APIC_BASE), kva = 0, e;
	int level = 0;

	if (!(base & APIC_BASE_EN) || (base & APIC_BASE_EXTD))
		return LK_AW_DISABLED;
	if (k->lapic_var && lk_load64(k->lapic_var, &kva) && kva &&
	    kva != k->dummy_lapic && (kva & 0xfff) == 0) {
		ap.base = kva;
		return LK_AW_OK;
	}
	ap.pte = lk_kpte((uint64_t)apic_page, &level);
	if (!ap.pte || level != 1) {
		ap.pte = 0;
		return LK_AW_NO_MAPPING;
	}
	ap.pte_orig = e = *ap.pte;
	*ap.pte = (base & PTE_ADDR) | (e & ~(PTE_ADDR | PTE_G)) | PTE_P | PTE_RW |
		  PTE_PCD | PTE_PWT;
	invlpg((uint64_t)apic_page);
	ap.base = (uint64_t)apic_page;
	return LK_AW_OK;
}

static void unmap_regs(void)
{
	if (ap.pte) {
		*ap.pte = ap.pte_orig;
		invlpg((uint64_t)apic_page);
		ap.pte = 0;
	}
	ap.base = 0;
}

struct idtr {
	uint16_t limit;
	uint64_t base;
} __attribute__((packed));

static volatile uint32_t *gate(uint32_t vec)
{
	struct idtr r;

	__asm__ volatile("sidt %0" : "=m"(r));
	if (vec * 16 + 15 > r.limit)
		return 0;
	return (volatile uint32_t *)(r.base + vec * 16);
}

/* Step 2: a vector the kernel does not use, pointed at lk_apic_entry. */
static int take_vector(void)
{
	uint64_t h = (uint64_t)lk_apic_entry;
	uint16_t cs;
	volatile uint32_t *g;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	for (uint32_t v = 0xfe; v >= 0x30; v--) {
		if (!(g = gate(v)) || (g[1] & 0x8000))
			continue;
		ap.vec = v;
		for (int i = 0; i < 4; i++)
			ap.gate[i] = g[i];
		g[0] = ((uint32_t)cs << 16) | (uint32_t)(h & 0xffff);
		g[2] = (uint32_t)(h >> 32);
		g[3] = 0;
		g[1] = (uint32_t)(h & 0xffff0000u) | 0x8e00;	/* present, DPL 0,
								   interrupt gate */
		return LK_AW_OK;
	}
	return LK_AW_NO_VECTOR;
}

static void give_vector(void)
{
	volatile uint32_t *g = gate(ap.vec);

	if (g) {
		g[1] = ap.gate[1];
		g[0] = ap.gate[0];
		g[2] = ap.gate[2];
		g[3] = ap.gate[3];
	}
}

/* Step 3: the timer's count rate (divide by 1) against the TSC, as
   counts per TSC tick in 32.32 fixed point (0: it does not count). */
static uint64_t calibrate(void)
{
	uint64_t t0, t1, span = ap.tsc_hz / 20000;
	uint32_t c0, c1;

	wr(AP_LVT_TIMER, LVT_MASKED | ap.vec);
	wr(AP_DIV, DIV_BY_1);
	wr(AP_INIT, 0xffffffffu);
	t0 = lk_rdtsc();
	c0 = rd(AP_CUR);
	while ((t1 = lk_rdtsc()) - t0 < span)
		lk_pause();
	c1 = rd(AP_CUR);
	wr(AP_INIT, 0);
	if (c1 >= c0 || t1 == t0)
		return 0;
	return ((uint64_t)(c0 - c1) << 32) / (t1 - t0);
}

/* One-shot interrupt at TSC `at` (at the latest one second from now). */
static void arm(uint64_t at)
{
	uint64_t now = lk_rdtsc(), d = at > now ? at - now : 0, n;

	if (d > ap.tsc_hz)
		d = ap.tsc_hz;
	n = (uint64_t)(((unsigned __int128)d * ap.ratio) >> 32) + 1;
	wr(AP_INIT, n > 0xffffffffu ? 0xffffffffu : (uint32_t)n);
}

static void teardown_regs(void)
{
	wr(AP_LVT_TIMER, LVT_MASKED | ap.vec);
	wr(AP_INIT, 0);
	wr(AP_DIV, ap.div);
	wr(AP_LVT_TIMER, ap.lvt);
	wr(AP_INIT, ap.init);
}

static void finish(void)
{
	wr(AP_SVR, ap.svr);
	give_vector();
	unmap_regs();
	ap.state = AP_OFF;
	lk.ctl->tick_src = LK_TS_CLOCK;
}

static int setup(void)
{
	uint32_t ver;
	int why;

	if ((why = map_regs()) != LK_AW_OK)
		return why;
	ver = rd(AP_VER);
	if (ver == 0 || ver == 0xffffffffu || (ver & 0xff) < 0x10) {
		unmap_regs();
		return LK_AW_NO_APIC;
	}
	if ((why = take_vector()) != LK_AW_OK) {
		unmap_regs();
		return why;
	}
	ap.lvt = rd(AP_LVT_TIMER);
	ap.init = rd(AP_INIT);
	ap.div = rd(AP_DIV);
	ap.svr = rd(AP_SVR);
	if (!(ap.svr & SVR_ENABLE))
		wr(AP_SVR, ap.svr | SVR_ENABLE);
	if (!(ap.ratio = calibrate())) {
		teardown_regs();
		finish();
		return LK_AW_NO_COUNT;
	}
	return LK_AW_OK;
}

void lk_apic_start(void)
{
	struct lk_ctl *c = lk.ctl;
	uint64_t next = ~0ull;
	int why;

	c->tick_src = LK_TS_CLOCK;
	c->apic_vec = 0;
	ap.tsc_hz = c->k.tsc_hz;
	if (!c->tick_lapic || !c->nticks || !ap.tsc_hz || ap.state == AP_ON) {
		c->apic_why = LK_AW_NOT_ASKED;
		return;
	}
	if (ap.state == AP_DRAINING) {
		/* the last session's latched interrupt is still to come: the
		   vector, the mapping and the saved registers are still ours */
		why = LK_AW_OK;
		ap.ratio = ap.ratio ? ap.ratio : calibrate();
	} else {
		why = setup();
	}
	c->apic_why = (uint32_t)why;
	if (why != LK_AW_OK)
		return;
	ap.state = AP_ON;
	c->apic_hz = (uint64_t)(((unsigned __int128)ap.ratio * ap.tsc_hz) >> 32);
	c->apic_vec = ap.vec;
	c->tick_src = LK_TS_LAPIC;
	for (uint32_t i = 0; i < c->nticks && i < 32; i++)
		if (c->ticks[i].next_tsc < next)
			next = c->ticks[i].next_tsc;
	wr(AP_LVT_TIMER, ap.vec);		/* one-shot, unmasked */
	arm(next);
}

void lk_apic_stop(void)
{
	if (ap.state != AP_ON)
		return;
	teardown_regs();
	if (vec_pending(AP_IRR) || vec_pending(AP_ISR)) {
		ap.state = AP_DRAINING;
		return;
	}
	finish();
}

int lk_apic_active(void)
{
	return ap.state == AP_ON;
}

/* The timer's interrupt (entry.S lk_apic_entry, IF = 0, any mode). */
void lk_apic_fire(struct lk_regs *r)
{
	uint64_t rip = r->u.t.rip, next, a[2];
	struct lk_regs u;
	struct lk_fire f;
	int user = (r->u.t.cs & 3) != 0, filled = 0;

	lk.ctl->apic_ints++;
	if (ap.state == AP_ON && lk.tracing) {
		a[0] = user ? 0 : lk_sample_at(r, &f);	/* sample.c */
		a[1] = user ? rip : 0;
		if (user) {
			/* no kernel frame: stack() is empty, ustack() the task's */
			lk_regs_copy(&u, r);
			filled = lk_iss_fill(r, &u, ap.vec);
			f = (struct lk_fire){ &u, 0, 0, 0, 1, 0, 0 };
		}
		next = lk_ticks_run(&f, a, 1);
		if (filled)
			lk_regs_copy(r, &u);
		if (ap.state == AP_ON && next != ~0ull)
			arm(next);
	}
	wr(AP_EOI, 0);
	if (ap.state == AP_DRAINING && !vec_pending(AP_IRR))
		finish();
}
