/*
 * tick-N and profile-N at their own rates: each CPU's local APIC timer
 * (probe context).  The kernel's clock interrupt runs at hz (100), too
 * slow for profile-997; from GO to the end of tracing the blob owns
 * every CPU's local APIC timer.  GNU Mach's UP kernels and the SMP
 * kernels' boot CPU leave it unused (the PIT drives their clock); the
 * SMP kernels program it periodic on every other CPU for that CPU's
 * clock ("LAPIC timer configured on cpu1").  The blob shares it: the
 * kernel's period (or its one-shot count) becomes one more deadline of
 * that CPU, delivered as a self-IPI of the kernel's vector.
 *
 * Set up at GO (lk_apic_start), in order, each step's failure leaving
 * everything as it was and the ticks on the clock interrupt (ctl->
 * apic_why says why):
 *   1. the registers: the kernel's own mapping (`lapic`) when it made
 *      one (each CPU reaches its own APIC at that one address); else the
 *      blob borrows the 4 KiB page-table entry of one page of its own
 *      .bss (apic_page, in the reserved region, which only the blob
 *      uses) and points it at IA32_APIC_BASE (uncached).  GNU Mach's
 *      uniprocessor build never maps the APIC: `lapic` is &dummy_lapic.
 *   2. a vector free in every CPU's IDT (idt.c), an interrupt gate to
 *      lk_apic_entry in each.
 *   3. the timer's rate against the TSC (a 50 us count, on the CPU that
 *      runs GO; the others are assumed alike), then that CPU's timer in
 *      one-shot mode on that vector; the spurious-interrupt register gets
 *      its enable bit if it lacked it.
 * A CPU takes its own timer (join: a CPU programs only its own APIC) at
 * GO for the CPU that runs it, at its next clock interrupt for the
 * others.  Each interrupt fires the tick/profile probes due on that CPU
 * (kmain.c: TSC deadlines, so the counts follow the guest's clock), the
 * kernel's timer if due, and arms the timer for the earliest next one;
 * the interrupted context is the probe's (a kernel pc or, from user
 * mode, a user pc with the user registers in pcb->iss for uregs[] and
 * ustack()).
 *
 * Torn down by lk_apic_stop at every end of tracing (STOP, the deadman,
 * END at reboot): that CPU's timer as the kernel had it, then a
 * cross-call (xcall.c) in which each other CPU gives its own back (a CPU
 * that does not answer in time gives it back at its next timer
 * interrupt), then the spurious register, the IDT entries and the
 * page-table entry as they were.  A timer interrupt
 * already latched by an APIC (IRR) cannot be withdrawn: the vector then
 * stays ours until it is taken, and the handler finishes the teardown
 * (STOPPING).
 */
#include "runtime/kernel/kern.h"

#define AP_TPR		0x080
#define AP_SVR		0x0f0
#define AP_VER		0x030
#define AP_EOI		0x0b0
#define AP_IRR		0x200
#define AP_ISR		0x100
#define AP_LVT_TIMER	0x320
#define AP_ICR_LO	0x300
#define AP_ICR_HI	0x310
#define AP_INIT		0x380
#define AP_CUR		0x390
#define AP_DIV		0x3e0
#define LVT_MASKED	0x10000u
#define LVT_MODE	0x60000u
#define LVT_PERIODIC	0x20000u
#define ICR_BUSY	0x1000u
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

enum { AP_OFF = 0, AP_ON, AP_STOPPING, AP_FINISHING };

static uint8_t apic_page[4096] __attribute__((aligned(4096)));

/* One CPU's timer while the blob has it (on), and the kernel's it displaced. */
struct apcpu {
	volatile uint32_t on, drain, saved, hold;
	uint32_t lvt, init, div, svr, cur;	/* the kernel's registers */
	uint64_t kper;		/* the kernel's period in TSC ticks (0: one-shot) */
	uint64_t knext;		/* the kernel's timer next due, TSC (0: never) */
};

static struct {
	volatile int state;
	uint64_t base;			/* VA of the registers */
	volatile uint64_t *pte;		/* the borrowed entry, 0 if none */
	uint64_t pte_orig;
	uint32_t vec;
	uint64_t ratio;			/* timer counts per TSC tick, 32.32 */
	uint64_t tsc_hz;
	struct apcpu cpu[LK_NCPU_MAX];
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

/* The SMP kernel's mapping of the registers (`lapic`), 0: none. */
uint64_t lk_apic_kernel_regs(void)
{
	const struct lk_kdesc *k = &lk.ctl->k;
	uint64_t kva = 0;

	if (k->lapic_var && lk_load64(k->lapic_var, &kva) && kva &&
	    kva != k->dummy_lapic && (kva & 0xfff) == 0)
		return kva;
	return 0;
}

/* Step 1: where the registers are. */
static int map_regs(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE), kva = 0, e;
	int level = 0;

	if (!(base & APIC_BASE_EN) || (base & APIC_BASE_EXTD))
		return LK_AW_DISABLED;
	if ((kva = lk_apic_kernel_regs())) {
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

static struct apcpu *this_cpu(void)
{
	uint32_t me = mt_plat_cpu();

	return &ap.cpu[me < LK_NCPU_MAX ? me : 0];
}

static void save_regs(struct apcpu *pc)
{
	pc->lvt = rd(AP_LVT_TIMER);
	pc->init = rd(AP_INIT);
	pc->cur = rd(AP_CUR);
	pc->div = rd(AP_DIV);
	pc->svr = rd(AP_SVR);
	pc->saved = 1;
}

/* n timer counts at the kernel's divider, in TSC ticks (16.16 of the
   ratio is precise enough, and needs no 128-bit division) */
static uint64_t counts_tsc(uint32_t n, uint32_t div)
{
	uint32_t v = (div & 3) | ((div >> 1) & 4);
	uint64_t f = v == 7 ? 1 : 2ull << v, r = ap.ratio >> 16;

	return (((uint64_t)n * f) << 16) / (r ? r : 1);
}

/* This CPU's timer becomes the blob's; the kernel's, if running, a deadline. */
static void take_timer(struct apcpu *pc)
{
	uint64_t now = lk_rdtsc();

	if (!pc->saved)
		save_regs(pc);
	pc->saved = 0;
	pc->kper = pc->knext = 0;
	if (!(pc->lvt & LVT_MASKED) && (pc->lvt & LVT_MODE) == LVT_PERIODIC && pc->init)
		pc->knext = now + (pc->kper = counts_tsc(pc->init, pc->div));
	else if (!(pc->lvt & LVT_MASKED) && !(pc->lvt & LVT_MODE) && pc->cur)
		pc->knext = now + counts_tsc(pc->cur, pc->div);
	if (!(pc->svr & SVR_ENABLE))
		wr(AP_SVR, pc->svr | SVR_ENABLE);
	wr(AP_LVT_TIMER, ap.vec);		/* one-shot, unmasked */
	wr(AP_DIV, DIV_BY_1);
	pc->on = 1;
	arm(now);		/* at once: the interrupt arms the first deadline */
}

/*
 * A timer interrupt this CPU latched before its timer was given back,
 * taken now rather than left pending (outside the handler: the reboot
 * hook holds the CPU with interrupts off, and the vector must go back
 * before the host looks): interrupts on for a moment with the task
 * priority raised to the vector's class, so that only the blob's and
 * the highest vectors can come in.  hold keeps the handler from
 * finishing the teardown meanwhile.
 */
static void take_latched(struct apcpu *pc)
{
	uint32_t tpr;

	if (!vec_pending(AP_IRR))
		return;
	pc->hold = 1;
	tpr = rd(AP_TPR);
	wr(AP_TPR, ((ap.vec >> 4) - 1) << 4);
	for (int i = 0; i < 1000 && vec_pending(AP_IRR); i++)
		__asm__ volatile("sti; nop; cli" : : : "memory");
	wr(AP_TPR, tpr);
	pc->hold = 0;
}

/* This CPU's timer as the kernel had it (a latched interrupt: drain). */
static void give_timer(struct apcpu *pc, int in_handler)
{
	wr(AP_LVT_TIMER, LVT_MASKED | ap.vec);
	wr(AP_INIT, 0);
	wr(AP_DIV, pc->div);
	wr(AP_LVT_TIMER, pc->lvt);
	wr(AP_INIT, pc->init);
	wr(AP_SVR, pc->svr);
	pc->on = 0;
	if (!in_handler)
		take_latched(pc);
	pc->drain = vec_pending(AP_IRR) || (!in_handler && vec_pending(AP_ISR));
}

/* An IPI of vector vec: how is LK_ICR_SELF, LK_ICR_OTHERS, or 0 and dest
   an APIC ID; base: the registers (each CPU sends through its own). */
void lk_apic_ipi(uint64_t base, uint32_t how, uint32_t dest, uint32_t vec)
{
	volatile uint32_t *lo = (volatile uint32_t *)(base + AP_ICR_LO);

	for (int i = 0; i < 1000 && (*lo & ICR_BUSY); i++)
		lk_pause();
	*(volatile uint32_t *)(base + AP_ICR_HI) = dest << 24;
	*lo = how | vec;
}

/* Every CPU gave its timer back and took its latched interrupt: the
   vector, the spurious register and the mapping go back (one CPU). */
static void maybe_finish(void)
{
	int st = AP_STOPPING;

	for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
		if (ap.cpu[i].on || ap.cpu[i].drain || ap.cpu[i].hold)
			return;
	if (!__atomic_compare_exchange_n(&ap.state, &st, AP_FINISHING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	lk_idt_give(ap.vec);
	unmap_regs();
	lk.ctl->tick_src = LK_TS_CLOCK;
	__atomic_store_n(&ap.state, AP_OFF, __ATOMIC_RELEASE);
}

static int setup(struct apcpu *pc)
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
	if (!(ap.vec = lk_idt_take((uint64_t)lk_apic_entry))) {
		unmap_regs();
		return LK_AW_NO_VECTOR;
	}
	save_regs(pc);
	if (!(ap.ratio = calibrate())) {
		give_timer(pc, 0);
		pc->drain = 0;
		lk_idt_give(ap.vec);
		unmap_regs();
		return LK_AW_NO_COUNT;
	}
	return LK_AW_OK;
}

void lk_apic_start(void)
{
	struct lk_ctl *c = lk.ctl;
	struct apcpu *pc = this_cpu();
	int why;

	c->tick_src = LK_TS_CLOCK;
	c->apic_vec = 0;
	ap.tsc_hz = c->k.tsc_hz;
	if (!c->tick_lapic || !c->nticks || !ap.tsc_hz || ap.state == AP_ON ||
	    ap.state == AP_FINISHING) {
		c->apic_why = LK_AW_NOT_ASKED;
		return;
	}
	/* STOPPING: the last session's latched interrupts, or CPUs that
	   have not given their timer back yet: the vector, the mapping and
	   their saved registers are still ours */
	why = ap.state == AP_STOPPING ? LK_AW_OK : setup(pc);
	c->apic_why = (uint32_t)why;
	if (why != LK_AW_OK)
		return;
	ap.state = AP_ON;
	c->apic_hz = (uint64_t)(((unsigned __int128)ap.ratio * ap.tsc_hz) >> 32);
	c->apic_vec = ap.vec;
	c->tick_src = LK_TS_LAPIC;
	if (!pc->on)
		take_timer(pc);
}

/* From the clock interrupt: 1 when this CPU's timer is the blob's (taken
   now if it was not yet). */
int lk_apic_join(void)
{
	struct apcpu *pc = this_cpu();

	if (ap.state != AP_ON)
		return 0;
	if (!pc->on)
		take_timer(pc);
	return 1;
}

/* A cross-call: this CPU's timer back to the kernel. */
static void give_back(void *arg)
{
	struct apcpu *pc = this_cpu();

	if (pc->on)
		give_timer(pc, 0);
}

void lk_apic_stop(void)
{
	uint32_t others = 0;

	if (ap.state != AP_ON)
		return;
	ap.state = AP_STOPPING;
	give_back(0);
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++)
		others |= ap.cpu[i].on;
	if (others)
		lk_xcall(LK_XC_ALL, give_back, 0);
	maybe_finish();
}

/* The kernel's own timer on this CPU, when due: its vector, as a
   self-IPI taken after this handler's EOI.  Returns the earlier of next
   and the kernel's next deadline. */
static uint64_t kernel_timer(struct apcpu *pc, uint64_t next)
{
	uint64_t now = lk_rdtsc();

	if (pc->knext && now >= pc->knext) {
		lk_apic_ipi(ap.base, LK_ICR_SELF, 0, pc->lvt & 0xff);
		pc->knext = pc->kper ? pc->knext + ((now - pc->knext) / pc->kper + 1) * pc->kper : 0;
	}
	return pc->knext && pc->knext < next ? pc->knext : next;
}

/* The timer's interrupt, or the stopping CPU's IPI (entry.S
   lk_apic_entry, IF = 0, any mode). */
void lk_apic_fire(struct lk_regs *r)
{
	uint64_t rip = r->u.t.rip, next = ~0ull, a[2];
	struct apcpu *pc = this_cpu();
	struct lk_regs u;
	struct lk_fire f;
	int user = (r->u.t.cs & 3) != 0, filled = 0;

	lk.ctl->apic_ints++;
	if (pc->on && ap.state == AP_ON && lk.tracing) {
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
	}
	if (pc->on && ap.state == AP_ON) {
		next = kernel_timer(pc, next);
		if (next != ~0ull)
			arm(next);
	} else if (pc->on && ap.state != AP_ON) {
		give_timer(pc, 1);
	}
	wr(AP_EOI, 0);
	if (pc->drain && !vec_pending(AP_IRR))
		pc->drain = 0;
	if (ap.state == AP_STOPPING)
		maybe_finish();
}
