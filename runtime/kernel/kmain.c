/*
 * The blob's life in GNU Mach (probe context: runs with interrupts off,
 * calls nothing in the kernel).
 *
 * Boot: the shim hooked the entry of a boot-time function (lk_blob_hdr.
 * hook_name, before any user task exists).  lk_boot restores the kernel
 * text the shim patched, then talks to the host through the control page
 * (struct lk_ctl): WAITING -> host writes the kernel description, sites,
 * trampolines and the enabling image, sends INIT -> runtime initialised,
 * READY -> host sends GO -> BEGIN fires, probes go in, TRACING; the
 * hooked function then continues.  Without a host (timeout, SKIP) the
 * kernel boots untraced.
 *
 * Later: lk_tick (the timer hook) runs tick/profile probes, services
 * host requests (STOP: END fires and the text is restored) and the
 * deadman (host silent for deadman_ns: everything removed).  lk_ending
 * (the reboot hook) holds a rebooting kernel until the host has drained
 * the buffers.
 */
#include "runtime/kernel/kern.h"

struct lk_glob lk;
extern struct lk_blob_hdr lk_blob_hdr;

#define WAIT_HOST_TSC	(1ull << 36)	/* ~25 s at 2.6 GHz: no host */

uint64_t lk_ns(uint64_t tsc)
{
	return (uint64_t)(((unsigned __int128)tsc * lk.tsc_mult) >> 32);
}

static void set_msg(const char *s)
{
	uint32_t i = 0;

	for (; s[i] && i < sizeof lk.ctl->msg - 1; i++)
		lk.ctl->msg[i] = s[i];
	lk.ctl->msg[i] = 0;
}

static void fail(const char *why)
{
	if (why)
		set_msg(why);
	lk.ctl->error = 1;
	lk.ctl->state = LK_ST_FAILED;
}

/* Wait for a host command other than `seen`, at most `limit` TSC ticks. */
static uint32_t wait_cmd(uint32_t seen, uint64_t limit)
{
	uint64_t t0 = lk_rdtsc();
	uint32_t c;

	while ((c = lk.ctl->cmd) == seen || c == LK_CMD_NONE) {
		uint64_t now = lk_rdtsc();
		lk.ctl->tsc_now = now;
		if (now - t0 > limit)
			return LK_CMD_SKIP;
		lk_pause();
	}
	return c;
}

static void heartbeat_reset(void)
{
	lk.hb_last = lk.ctl->heartbeat;
	lk.hb_tsc = lk_rdtsc();
}

static int init_runtime(void)
{
	struct lk_ctl *c = lk.ctl;
	const struct mt_image *img;
	const struct mt_probe *pr;
	char err[200];

	lk.area_va = lk.resv_va + LK_AREA_OFF;
	lk.area_end = lk.resv_end;
	if (c->area_size == 0 || c->image_off < c->area_size ||
	    lk.area_va + c->image_off >= lk.area_end) {
		fail("runtime area does not fit the reserved region");
		return -1;
	}
	if (c->nsites > LK_SITES_MAX) {
		fail("too many probe sites");
		return -1;
	}
	lk.sites = (struct lk_site *)(lk.resv_va + LK_SITES_OFF);
	lk.nsites = c->nsites;
	if (c->nusites > LK_USITES_MAX) {
		fail("too many user probe sites");
		return -1;
	}
	lk.usites = (struct lk_usite *)(lk.resv_va + LK_USITES_OFF);
	lk.nusites = c->nusites;
	lk.tsc_mult = c->k.tsc_hz ? (1000000000ull << 32) / c->k.tsc_hz : 0;
	lk.deadman_tsc = c->deadman_ns && c->k.tsc_hz ?
		c->deadman_ns / 1000000 * (c->k.tsc_hz / 1000) : 0;
	img = (const struct mt_image *)(lk.area_va + c->image_off);
	if (mt_rt_init((void *)lk.area_va, c->area_size, img, err, sizeof err) != 0) {
		set_msg("enabling rejected: ");
		for (uint32_t i = 0, n = 19; err[i] && n < sizeof c->msg - 1; i++, n++)
			c->msg[n] = err[i], c->msg[n + 1] = 0;
		fail(0);
		return -1;
	}
	lk.cb = (struct mt_cb *)lk.area_va;
	lk_sites_prepare();
	img = mt_rt_image(lk.cb);
	pr = (const struct mt_probe *)((const uint8_t *)img + img->probes_off);
	for (uint32_t i = 0; i < img->nprobes; i++) {
		if (pr[i].kind == MT_PK_BEGIN)
			lk.begin_probe = i + 1;
		else if (pr[i].kind == MT_PK_END)
			lk.end_probe = i + 1;
	}
	if (lk_sites_check(c->msg, sizeof c->msg) != 0) {
		fail(0);
		return -1;
	}
	/* several CPUs are patched only with cross-call syncs */
	if (lk_xcall_start() != 0) {
		fail("several CPUs, but no local APIC mapping or free interrupt vector "
		     "for cross-calls: patching would not be safe");
		return -1;
	}
	if (lk_idt_hook() != 0) {
		lk_xcall_stop();
		fail("vector 3 is not an interrupt or trap gate");
		return -1;
	}
	return 0;
}

static void fire_special(uint32_t probe1)
{
	struct lk_fire f = { 0, 0, 0, 0, 0, 0, 0 };

	if (probe1)
		lk_fire_probe(probe1 - 1, &f, 0, 0);
}

static void ticks_go(uint64_t now);

static void start_tracing(void)
{
	struct lk_ctl *c = lk.ctl;
	uint64_t now = lk_rdtsc();

	c->tsc_go = now;
	ticks_go(now);
	heartbeat_reset();
	lk_vtime_start();
	if (c->attach)
		lk_ids_attach();
	else
		lk_ids_start();
	lk.tracing = 1;
	fire_special(lk.begin_probe);
	lk_sites_install();
	lk_apic_start();
	c->state = LK_ST_TRACING;
}

/*
 * END, then every patched byte back; the runtime stays for the host.
 * Before END, as DTrace's DRAINING and dtrace_sync: no other probe fires
 * from now on, and a cross-call waits out the firings under way on the
 * other CPUs (probe context runs with interrupts off), so that END's
 * aggregations hold no firing whose record comes after them.  After the
 * last byte, another one serializes every CPU before int3 goes back to
 * the kernel (an int3 site's byte is restored without a sync of its own).
 *
 * One CPU stops.  Another that sees STOP meanwhile (the reboot hook on
 * one CPU, CPU 0's tick on another) waits until every byte is back, so
 * that its acknowledgement never follows a partial restore.  The same
 * CPU can enter again: lk_apic_stop takes a latched timer interrupt with
 * interrupts on for a moment (apic.c take_latched), and the raised task
 * priority does not hold off the PIC's clock interrupt (ExtINT), whose
 * tick then reaches lk_tick inside this stop; waiting there would never
 * end, so lk_tick leaves a stop under way alone.
 */
static void stop_tracing(uint32_t state)
{
	int me = (int)mt_plat_cpu() + 1, none = 0;

	/* no test of lk.tracing before this: it goes to 0 before the bytes
	   are back, and a caller must not acknowledge a stop under way */
	if (!__atomic_compare_exchange_n(&lk.stopping, &none, me, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE)) {
		while (none != me && __atomic_load_n(&lk.stopping, __ATOMIC_ACQUIRE))
			lk_xcall_poll();	/* the stopping CPU's syncs */
		return;
	}
	if (!lk.tracing) {
		__atomic_store_n(&lk.stopping, 0, __ATOMIC_RELEASE);
		return;
	}
	lk_apic_stop();
	__atomic_store_n(&lk.ending, 1, __ATOMIC_RELEASE);
	/* compiled code does not look at lk.ending: its sites go back to the
	   general path, which lets only END fire (one CPU has no other
	   firing to stop) */
	if (lk.cb && lk.cb->ncpus > 1)
		lk_fast_disarm();
	lk_xcall_sync_long();
	fire_special(lk.end_probe);
	if (lk.cb)
		mt_rt_probe_time(lk.cb, lk_ns(lk.vt_probe));
	lk.tracing = 0;
	lk.ending = 0;
	lk_sites_remove();
	lk_usites_remove(-1);
	lk_xcall_sync_long();	/* no CPU writes its buffers after STOPPED */
	lk_xcall_stop();
	lk_idt_unhook();
	if (lk.cb)
		__atomic_store_n(&lk.cb->state, MT_CB_STOPPED, __ATOMIC_RELEASE);
	lk.ctl->state = state;
	__atomic_store_n(&lk.stopping, 0, __ATOMIC_RELEASE);
}

static void restore_boot_patches(struct lk_blob_hdr *h)
{
	if (h->hook_len && h->hook_len <= sizeof h->hook_orig)
		lk_text_write(h->hook_va, h->hook_orig, h->hook_len);
	if (h->rsv_hook_len && h->rsv_hook_len <= sizeof h->rsv_hook_orig)
		lk_text_write(h->rsv_hook_va, h->rsv_hook_orig, h->rsv_hook_len);
}

/* Called from lk_boot_entry; returns where the hooked function goes on. */
uint64_t lk_boot(struct lk_regs *r)
{
	struct lk_blob_hdr *h = &lk_blob_hdr;
	struct lk_ctl *c;
	uint32_t cmd;

	lk.hdr = h;
	lk.resv_va = LK_KVA(h->resv_pa);
	lk.resv_end = lk.resv_va + h->resv_size;
	restore_boot_patches(h);
	c = lk.ctl = (struct lk_ctl *)(lk.resv_va + LK_CTL_OFF);
	/* fixed places: the tick hook of an attach reaches its site before INIT */
	lk.sites = (struct lk_site *)(lk.resv_va + LK_SITES_OFF);
	lk.usites = (struct lk_usite *)(lk.resv_va + LK_USITES_OFF);
	c->version = LK_BLOB_VERSION;
	c->cmd_ack = 0;
	c->error = 0;
	c->state = LK_ST_WAITING;
	__atomic_store_n(&c->magic, LK_CTL_MAGIC, __ATOMIC_RELEASE);
	cmd = wait_cmd(LK_CMD_NONE, WAIT_HOST_TSC);
	if (cmd == LK_CMD_INIT) {
		if (init_runtime() == 0)
			c->state = LK_ST_READY;
		c->cmd_ack = LK_CMD_INIT;
		cmd = wait_cmd(LK_CMD_INIT, WAIT_HOST_TSC);
		if (cmd == LK_CMD_GO && c->state == LK_ST_READY)
			start_tracing();
		c->cmd_ack = cmd;
	}
	if (c->state != LK_ST_TRACING && c->state != LK_ST_FAILED)
		c->state = LK_ST_NONE;
	return (uint64_t)h->hook_cont;
}

/* Has the host been silent (no heartbeat) for longer than the deadman? */
static int host_silent(void)
{
	uint64_t now = lk_rdtsc();

	if (lk.ctl->heartbeat != lk.hb_last) {
		heartbeat_reset();
		return 0;
	}
	return lk.deadman_tsc && now - lk.hb_tsc > lk.deadman_tsc;
}

static void deadman(void)
{
	if (host_silent())
		stop_tracing(LK_ST_DEADMAN);
}

static int in_intr_code(uint64_t pc)
{
	const struct lk_kdesc *k = &lk.ctl->k;

	for (int i = 0; i < 2; i++)
		if (pc >= k->intr_code[i][0] && pc < k->intr_code[i][1])
			return 1;
	return 0;
}

/* The frame of the rbp chain from fp that returns into the interrupt
   dispatch code, 0 if none within 8 frames. */
static uint64_t intr_fp(uint64_t fp)
{
	uint64_t ret, next;

	for (int i = 0; i < 8 && fp; i++) {
		if (!lk_load64(fp + 8, &ret) || !lk_load64(fp, &next))
			return 0;
		if (in_intr_code(ret))
			return fp;
		fp = next;
	}
	return 0;
}

/*
 * The interrupted kernel code's frame, seen from the timer hook: the
 * dispatch code leaves rbp alone, so the first frame of the rbp chain that
 * returns into it saved the interrupted rbp R.  stack() is then the
 * interrupted pc, [R + 8] (its caller), and the frames from [R] on.
 */
static void intr_frame(struct lk_regs *r, uint64_t pc, struct lk_fire *f)
{
	uint64_t fp = pc ? intr_fp(r->rbp) : 0, next, up;

	f->r = r;
	f->user = 0;
	f->tracer = 0;
	f->pc = pc;
	f->sp = f->fp = f->rsp = 0;
	if (fp && lk_load64(fp, &next) && next && lk_load64(next, &up)) {
		f->sp = next + 8;
		f->fp = up;
	}
}

/* The CPU's interrupt frame at [a, a + 64 words): the words pc, then cs. */
static uint64_t iret_frame(uint64_t a, uint64_t pc, uint64_t cs, uint64_t w[5])
{
	for (uint64_t end = a + 64 * 8; a < end; a += 8) {
		if (!lk_load64(a, &w[0]) || w[0] != pc || !lk_load64(a + 8, &w[1]) || w[1] != cs)
			continue;
		for (int i = 2; i < 5; i++)
			if (!lk_load64(a + 8 * i, &w[i]))
				return 0;
		return a;
	}
	return 0;
}

/*
 * The registers of a kernel-mode clock interrupt at pc, as the APIC
 * timer's handler sees them: the CPU's frame (rip, cs, rflags, rsp, ss)
 * and the interrupted rbp, into ir.  The dispatch code (all_intrs) saves
 * the registers and the CPU's frame on the interrupted stack, switches
 * to the interrupt stack, pushes the old rsp and calls interrupt (two
 * locals), which calls the handler whose frame is fp: the CPU's frame is
 * above the old rsp, one of the words just above fp + 16 (or above
 * fp + 16 itself when the interrupt came on the interrupt stack).  0 if
 * not found.
 */
static int intr_regs(const struct lk_regs *r, uint64_t pc, struct lk_regs *ir)
{
	uint64_t fp = intr_fp(r->rbp), rbp, old = 0, w[5], cs, at = 0;

	__asm__ volatile("mov %%cs, %0" : "=r"(cs));
	if (!fp || !lk_load64(fp, &rbp))
		return 0;
	for (int i = 0; i < 8 && !at; i++)
		if (lk_load64(fp + 16 + 8 * i, &old) && old >= LK_KERNEL_MAP_BASE)
			at = iret_frame(old, pc, cs, w);
	if (!at && !iret_frame(fp + 16, pc, cs, w))
		return 0;
	*ir = *r;
	ir->rbp = rbp;
	ir->u.t.rip = w[0], ir->u.t.cs = w[1], ir->u.t.rflags = w[2];
	ir->u.t.rsp = w[3], ir->u.t.ss = w[4];
	return 1;
}

/*
 * A tick/profile probe fires when its next_tsc is reached, which then
 * moves on by one interval.  tick-N fires on CPU 0 only; profile-N on
 * every CPU, each with its own next due TSC (CPU 0's in ctl->ticks[],
 * the others' in prof_next, set at GO).  With `catchup` (the local APIC
 * timer, whose interrupt may come late: interrupts held off, the
 * emulator not scheduled) each interval missed fires now, as illumos'
 * cyclics do, so the counts follow the guest's clock; a probe more than
 * a second behind skips to its next boundary instead.  Without (the
 * clock interrupt, at hz) it fires at most once per call, and skips what
 * it missed.  The result is this CPU's earliest next due TSC.
 */
static uint64_t prof_next[LK_NCPU_MAX][LK_MAX_TICKS];

/* Tick i's interval in TSC ticks, at least 1. */
static uint64_t tick_interval(const struct lk_ctl *c, uint32_t i)
{
	uint64_t iv = c->ticks[i].interval_ns * (c->k.tsc_hz / 1000000) / 1000;

	return iv ? iv : 1;
}

static void ticks_go(uint64_t now)
{
	struct lk_ctl *c = lk.ctl;

	for (uint32_t i = 0; i < c->nticks && i < LK_MAX_TICKS; i++) {
		c->ticks[i].next_tsc = now + tick_interval(c, i);
		for (uint32_t cpu = 1; cpu < LK_NCPU_MAX; cpu++)
			prof_next[cpu][i] = c->ticks[i].next_tsc;
	}
}

static volatile uint64_t *tick_next(uint32_t cpu, uint32_t i)
{
	if (cpu == 0)
		return &lk.ctl->ticks[i].next_tsc;
	if (lk.ctl->ticks[i].kind != LK_TICK_PROFILE || cpu >= LK_NCPU_MAX)
		return 0;
	return &prof_next[cpu][i];
}

uint64_t lk_ticks_run(struct lk_fire *f, const uint64_t *args, int catchup)
{
	struct lk_ctl *c = lk.ctl;
	uint64_t now = lk_rdtsc(), next = ~0ull;
	uint32_t cpu = mt_plat_cpu();
	volatile uint64_t *nt;

	for (uint32_t i = 0; i < c->nticks && i < LK_MAX_TICKS && lk.tracing; i++) {
		uint64_t iv = tick_interval(c, i);
		if (!(nt = tick_next(cpu, i)))
			continue;
		while (now >= *nt && lk.tracing) {
			uint64_t late = now - *nt;
			if (!catchup || late > c->k.tsc_hz) {
				*nt += (late / iv + 1) * iv;
				if (catchup)
					continue;
			} else {
				*nt += iv;
			}
			lk_fire_probe(c->ticks[i].probe, f, args, 2);
		}
		if (*nt < next)
			next = *nt;
	}
	return next;
}

/* From the clock interrupt: the fallback when the local APIC is not used. */
static void run_ticks(struct lk_regs *r)
{
	/* clock_interrupt(usec, usermode, basepri, pc): profile's
	   arg0 = kernel pc, arg1 = user pc */
	uint64_t pc = r->rcx, user = r->rsi != 0;
	uint64_t a[2] = { user ? 0 : pc, user ? pc : 0 };
	struct lk_fire f;
	struct lk_regs ir;

	intr_frame(r, a[0], &f);
	/* in the blob's region: charged as the APIC timer's samples are */
	if (!user && pc >= lk.resv_va && pc < lk.resv_end && intr_regs(r, pc, &ir))
		a[0] = lk_sample_at(&ir, &f);
	lk_ticks_run(&f, a, 0);
}

/*
 * Attach mode: the trampolines the host wrote through the RAM file are
 * read and written back by the guest, which makes QEMU drop whatever it
 * translated at those addresses in an earlier session (its writes through
 * the file invalidate nothing).
 */
static void tramp_refresh(void)
{
	volatile uint8_t *p = (volatile uint8_t *)(lk.resv_va + LK_TRAMP_OFF);
	uint64_t n = lk.ctl->tramp_used < LK_TRAMP_MAX ? lk.ctl->tramp_used : LK_TRAMP_MAX;

	for (uint64_t i = 0; i < n; i++)
		p[i] = p[i];
}

/* Attach mode without tracing: take the tick hook out, back to idle. */
static void attach_abort(uint32_t state)
{
	lk_sites_remove();
	lk_xcall_stop();
	lk_idt_unhook();
	lk.cb = 0;
	lk.ctl->state = state;
}

/*
 * Attach mode patches from the clock interrupt, so the kernel resumes at
 * the interrupted pc: GO waits for a tick where that is safe
 * (lk_tick_unsafe).  Other threads are no risk: GNU Mach does not preempt
 * kernel code (a thread leaves the CPU in the kernel only through a call:
 * thread_block, and the switch from an AST on the way back to user
 * mode), so their saved kernel pcs are return addresses, and a displaced
 * call is always the last displaced instruction (sites.c), returning
 * past the jmp.
 */
#define GO_WAIT_TICKS	500	/* 5 s at hz 100 (the host waits 20 s for GO) */

/*
 * The other CPUs, for GO on a running kernel: each held in its cross-call
 * handler (xcall.c) where patching is safe for it, as lk_tick_unsafe asks
 * of CPU 0: in user mode, or in kernel code outside every site's patched
 * bytes and not inside an interrupt (whose interrupted pc, below on the
 * stack, is unknown: a frame of the rbp chain returning into the
 * interrupt dispatch code).  Every CPU of the image must be online (have
 * taken a clock interrupt since INIT), or one might run unsynced.
 * 0 with them held until lk_xcall_release, 1 with none held.
 */
static int others_unsafe(void)
{
	uint32_t me = mt_plat_cpu();
	struct lk_regs *h;

	if (lk_xcall_hold(lk.cb->ncpus) != 0)
		return 1;
	for (uint32_t i = 0; i < LK_NCPU_MAX; i++) {
		if (i == me || !(h = lk_xcall_held(i)) || (h->u.t.cs & 3))
			continue;
		if (in_intr_code(h->u.t.rip) || lk_pc_in_patch(lk.sites, lk.nsites, h->u.t.rip) ||
		    intr_fp(h->rbp)) {
			lk_xcall_release();
			return 1;
		}
	}
	return 0;
}

/*
 * Attach mode (a running VM), before GO: the host put the tick hook in
 * through QEMU's gdbstub; INIT and GO arrive here.  A STOP before GO, or
 * the host's silence, takes the hook out again.  GO waits for a tick
 * where patching is safe, at most GO_WAIT_TICKS.
 */
static void attach_tick(const struct lk_regs *r)
{
	struct lk_ctl *c = lk.ctl;
	uint32_t cmd = c->cmd;

	c->tsc_now = lk_rdtsc();
	if (cmd == LK_CMD_INIT && c->cmd_ack != LK_CMD_INIT) {
		heartbeat_reset();
		lk.go_waits = 0;
		if (lk_site_adopt(c->tick_site) != 0)
			fail("the tick hook is not in place");
		else if (init_runtime() == 0)
			c->state = LK_ST_READY;
		if (c->state != LK_ST_READY)
			attach_abort(LK_ST_FAILED);
		else
			tramp_refresh();
		c->cmd_ack = LK_CMD_INIT;
		return;
	}
	if (cmd == LK_CMD_GO && c->cmd_ack == LK_CMD_INIT && c->state == LK_ST_READY) {
		if ((lk_tick_unsafe(lk.sites, lk.nsites, r->rsi, r->rcx) || others_unsafe()) &&
		    ++lk.go_waits < GO_WAIT_TICKS)
			return;
		if (lk.go_waits >= GO_WAIT_TICKS) {
			fail("500 clock ticks in a row interrupted a probe site's bytes "
			     "or an interrupt handler: nothing patched");
			attach_abort(LK_ST_FAILED);
			c->cmd_ack = LK_CMD_GO;
			return;
		}
		c->sessions++;
		start_tracing();
		lk_xcall_release();
		c->cmd_ack = LK_CMD_GO;
		return;
	}
	if (cmd == LK_CMD_STOP || cmd == LK_CMD_RELEASE) {
		attach_abort(LK_ST_STOPPED);
		c->cmd_ack = LK_CMD_STOP;
		return;
	}
	if (host_silent())
		attach_abort(LK_ST_DEADMAN);
}

/* A cross-call's function: the request on this CPU's own data. */
static void serve_here(void *arg)
{
	uint32_t me = mt_plat_cpu();

	mt_rt_service_cpu(lk.cb, me);
	__atomic_or_fetch(&lk.req_done, 1u << me, __ATOMIC_RELEASE);
}

/*
 * The host's request (clear or truncate an aggregation) changes each
 * CPU's aggregations on that CPU, by a cross-call, as DTrace switches a
 * CPU's buffers with dtrace_xcall: a CPU answers with interrupts off,
 * which probe context keeps off, so never inside a firing, and no other
 * CPU writes its data meanwhile.  A CPU that does not answer in time (or
 * a cross-call under way) is asked again at the next tick; one that does
 * not answer cross-calls (not online yet: no clock tick since INIT) is
 * served from here.  The request is acknowledged once every CPU of the
 * session has served it, by one server (the reboot hook may run beside
 * CPU 0's tick).
 */
static void serve_request(void)
{
	uint32_t me = mt_plat_cpu(), n = lk.cb->ncpus, all, done;

	if (n > LK_NCPU_MAX)
		n = LK_NCPU_MAX;
	all = (1u << n) - 1;
	lk_fast_disarm();
	for (uint32_t i = 0; i < n; i++) {
		if (__atomic_load_n(&lk.req_done, __ATOMIC_ACQUIRE) & 1u << i)
			continue;
		if (i == me || lk_xcall(i, serve_here, 0) == 0)
			if (!(__atomic_load_n(&lk.req_done, __ATOMIC_ACQUIRE) & 1u << i)) {
				mt_rt_service_cpu(lk.cb, i);
				__atomic_or_fetch(&lk.req_done, 1u << i, __ATOMIC_RELEASE);
			}
	}
	done = all;
	if (__atomic_compare_exchange_n(&lk.req_done, &done, 0, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED))
		__atomic_store_n(&lk.cb->req, MT_REQ_NONE, __ATOMIC_RELEASE);
}

/* The timer hook: every clock tick while the blob has sites in. */
void lk_tick(struct lk_regs *r)
{
	struct lk_ctl *c = lk.ctl;

	c->ticks_seen++;
	lk_xcall_online();
	/* clock_interrupt(usec, usermode, basepri, pc) */
	if (r->rsi || r->rcx < c->idle_lo || r->rcx >= c->idle_hi)
		c->busy_ticks++;
	c->krpcs = lk_kernel_rpcs();
	/* a clock interrupt taken inside stop_tracing: it finishes alone */
	if (__atomic_load_n(&lk.stopping, __ATOMIC_ACQUIRE))
		return;
	if (mt_plat_cpu() != 0) {
		/* the host's commands, the deadman and the consumer's
		   requests are CPU 0's, so that two CPUs never patch or stop
		   at once (a cross-call from each would wait for the other) */
		if (lk.tracing && !lk_apic_join())
			run_ticks(r);
		return;
	}
	if (!lk.tracing) {
		if (c->attach)
			attach_tick(r);
		return;
	}
	deadman();
	if (!lk.tracing)
		return;
	if (c->cmd == LK_CMD_STOP) {
		stop_tracing(LK_ST_STOPPED);
		c->cmd_ack = LK_CMD_STOP;
		return;
	}
	if (lk.cb->req != MT_REQ_NONE)
		serve_request();
	if (lk.cb->state != MT_CB_ACTIVE)
		lk_fast_disarm();	/* exit(): counting stops as dtrace's */
	/* the tracer's own cost, for the host, once a clock tick */
	mt_rt_probe_time(lk.cb, lk_ns(lk.vt_probe));
	if (!lk_apic_join())
		run_ticks(r);
}

/* The reboot hook: hold the kernel until the host took everything. */
void lk_ending(struct lk_regs *r)
{
	struct lk_ctl *c = lk.ctl;
	uint32_t cmd;

	if (!lk.tracing) {
		stop_tracing(LK_ST_STOPPED);	/* waits out a stop under way */
		return;
	}
	c->state = LK_ST_ENDING;
	heartbeat_reset();
	for (;;) {
		cmd = c->cmd;
		if (cmd == LK_CMD_STOP || cmd == LK_CMD_RELEASE)
			break;
		deadman();
		if (!lk.tracing) {
			stop_tracing(LK_ST_STOPPED);	/* as above */
			return;
		}
		if (lk.cb->req != MT_REQ_NONE)
			serve_request();
		lk_pause();
	}
	stop_tracing(LK_ST_STOPPED);
	c->cmd_ack = LK_CMD_STOP;
	/* wait for the host's RELEASE (it drains first), or its silence */
	heartbeat_reset();
	while (c->cmd != LK_CMD_RELEASE) {
		if (lk.deadman_tsc && lk_rdtsc() - lk.hb_tsc > lk.deadman_tsc)
			break;
		if (c->heartbeat != lk.hb_last)
			heartbeat_reset();
		lk_pause();
	}
}

_Static_assert(__builtin_offsetof(struct lk_blob_hdr, hook_va) == 72 &&
	       LK_VEC_FBT_ENTRY == sizeof(struct lk_blob_hdr) &&
	       sizeof(struct lk_blob_hdr) == 72 + LK_BLOB_HDR_REST,
	       "entry.S lays out lk_blob_hdr by hand");
