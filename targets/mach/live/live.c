/*
 * The live GNU Mach target ("mach"), host side.
 *
 * attach: decide the probe sites, boot QEMU with the blob module and a
 *   reserved region, wait until the blob waits in its boot hook (ctl
 *   state WAITING), write sites, trampolines, kernel description and
 *   image into the region (shared guest RAM), send INIT, wait for READY.
 * begin: send GO (BEGIN fires in the kernel, the probes go in).
 * poll: heartbeat, console, and the end conditions: exit() (cb state),
 *   the kernel rebooting (ctl ENDING: the workload is done), the guest
 *   gone, the deadman.
 * end: send STOP (END fires in the kernel, the text is restored).
 * detach: optionally compare the kernel text with the image, RELEASE a
 *   kernel held in its reboot, stop QEMU.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/runtime.h"
#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"

#define WAIT_BOOT_MS	60000
#define WAIT_CMD_MS	20000
#define MEM_MB		512
#define LK_RESV_MAX	0x10000000ull	/* a session's region: 256 MiB of MEM_MB */

static void idt_save(struct live *l);

/* The booted guest's RAM: --memory, else MEM_MB. */
static unsigned guest_mb(const struct live *l)
{
	return l->o.mem_mb ? l->o.mem_mb : MEM_MB;
}

int live_err(struct mt_target *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof t->err, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t live_now_ns(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *region(struct live *l, uint64_t off)
{
	return l->ram + l->resv_pa + off;
}

/* n bytes of src to the region at off; an empty table may be NULL. */
static void put_region(struct live *l, uint64_t off, const void *src, size_t n)
{
	if (n)
		memcpy(region(l, off), src, n);
}

/* Let the guest run for up to ms; 0 once it ended (status recorded). */
static int guest_run(struct live *l, int ms)
{
	if (l->vm)
		return vma_run(l, ms);
	if (l->guest_ended || !l->b)
		return 0;
	if (l->ctl)
		l->ctl->heartbeat++;
	if (mt_boot_poll(l->b, ms, &l->res) == 1)
		return 1;
	l->guest_ended = 1;
	if (l->res.status == MT_BOOT_PANIC)
		snprintf(l->status, sizeof l->status, "the kernel panicked and stopped in "
			 "its debugger (KDB): %s", l->res.reason);
	else if (l->res.status == MT_BOOT_DEBUGGER)
		snprintf(l->status, sizeof l->status, "the kernel stopped in its debugger "
			 "(KDB): %s", l->res.reason);
	else
		snprintf(l->status, sizeof l->status, "guest %s%s%s",
			 mt_boot_status_name(l->res.status), l->res.reason[0] ? ": " : "",
			 l->res.reason);
	if (l->res.status == MT_BOOT_PANIC || l->res.status == MT_BOOT_DEBUGGER)
		snprintf(l->kdb, sizeof l->kdb, "%s", l->status);
	return 0;
}

/* Wait until cond(l) holds, the guest ends, or ms pass. */
static int wait_for(struct live *l, int (*cond)(struct live *), int ms)
{
	uint64_t end = live_now_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000ull;

	while (!cond(l)) {
		if (!guest_run(l, 5))
			return cond(l) ? 0 : -1;
		if (live_now_ns(CLOCK_MONOTONIC) > end)
			return -1;
	}
	return 0;
}

static int blob_waiting(struct live *l)
{
	const volatile struct lk_ctl *c;

	if (!l->ram) {		/* mapped by the launcher before QEMU starts */
		l->ram = mt_boot_ram(l->b, &l->ram_size);
		if (!l->ram || l->ram_size < l->resv_pa + l->resv_size) {
			l->ram = NULL;
			return 0;
		}
	}
	c = region(l, LK_CTL_OFF);

	return __atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) == LK_CTL_MAGIC &&
	       c->state == LK_ST_WAITING;
}

static int acked_init(struct live *l) { return l->ctl->cmd_ack == LK_CMD_INIT; }
static int acked_go(struct live *l) { return l->ctl->cmd_ack == LK_CMD_GO; }
static int acked_stop(struct live *l) { return l->ctl->cmd_ack == LK_CMD_STOP; }
/* attach mode: the blob took its tick hook out (STOP, a failed INIT, deadman) */
static int vm_unhooked(struct live *l)
{
	return l->ctl->cmd_ack == LK_CMD_STOP || l->ctl->state == LK_ST_FAILED ||
	       l->ctl->state == LK_ST_DEADMAN;
}

static void send(struct live *l, uint32_t cmd)
{
	__atomic_store_n(&l->ctl->cmd, cmd, __ATOMIC_RELEASE);
}

static int start_guest(struct mt_target *t)
{
	struct live *l = t->priv;
	struct mt_boot_opts bo;
	char build[PATH_MAX];
	int n = 0;

	memset(&bo, 0, sizeof bo);
	bo.kernel = l->o.kernel;
	bo.kernel_args = l->o.kernel_args;
	bo.disk = l->o.disk;
	bo.disk_snapshot = l->o.disk_snapshot;
	if (l->o.nmodules == 0) {
		mt_build_dir(build, sizeof build);
		snprintf(l->workload, sizeof l->workload,
			 "%s/guest/machload ${host-port} ${device-port}%s%s "
			 "$(task-create) $(task-resume)", build,
			 l->o.workload ? " " : "", l->o.workload ? l->o.workload : "");
		bo.modules[n++] = l->workload;
	}
	for (int i = 0; i < l->o.nmodules && n < MT_BOOT_MAX_MODULES - 1; i++)
		bo.modules[n++] = l->o.modules[i];
	bo.modules[n++] = l->blob;
	bo.nmodules = n;
	bo.shim = l->shim[0] ? l->shim : NULL;
	bo.timeout_ms = l->o.timeout_ms;
	bo.mem_mb = guest_mb(l);
	bo.cpus = l->o.cpus;
	bo.reserve_pa = l->resv_pa;
	bo.reserve_size = l->resv_size;
	bo.echo = l->o.console;
	bo.log_path = l->o.console_log;
	bo.survive = l->o.survive;
	bo.caller_signals = 1;	/* Ctrl-C ends the session: END runs in the kernel */
	if (mt_kimg_boot_check(l->k, l->blob, l->o.cpus, t->err, sizeof t->err) < 0)
		return -1;
	if (mt_kimg_symbol_size(l->k, "kmsg_buffer", &bo.kmsg_va, &bo.kmsg_size) < 0)
		bo.kmsg_va = bo.kmsg_size = 0;
	l->b = mt_boot_start(&bo, t->err, sizeof t->err);
	if (!l->b)
		return -1;
	if (wait_for(l, blob_waiting, WAIT_BOOT_MS) < 0)
		return live_err(t, "the kernel did not reach the runtime's boot hook%s%s",
			      l->status[0] ? ": " : "", l->status);
	l->ctl = region(l, LK_CTL_OFF);
	if (l->ctl->version != LK_BLOB_VERSION)
		return live_err(t, "runtime blob %s is version %u, machtrace expects %u (run make)",
			      l->blob, l->ctl->version, LK_BLOB_VERSION);
	return 0;
}

static void probes_free(struct live *l)
{
	for (uint32_t i = 0; i < l->nprobes; i++) {
		free(l->probes[i].locs);
		free(l->probes[i].uargv);
		free(l->probes[i].usites);
	}
	free(l->probes);
	ksdt_free(l);
	spin_free(l);
	free(l->miss);
	live_uprogs_free(l);
}

static void live_detach(struct mt_target *t);

/* What bounds the reserved region: a VM's own, else LK_RESV_MAX. */
static uint64_t live_resv_max(const struct live *l)
{
	return l->vm ? l->vm->resv_size : LK_RESV_MAX;
}

/* The region holds the area, page-aligned, then the image (live_attach). */
static uint64_t live_area_max(struct mt_target *t, const struct mt_image *img)
{
	uint64_t max = live_resv_max(t->priv);

	if (max < LK_AREA_OFF + img->size)
		return 0;
	return (max - LK_AREA_OFF - img->size) & ~4095ull;
}

/* The guest's CPUs: the kernel numbers them 0 .. --cpus - 1. */
static uint32_t live_ncpus(struct mt_target *t)
{
	struct live *l = t->priv;

	return l->o.cpus ? l->o.cpus : 1;
}

static int live_attach(struct mt_target *t, const struct mt_image *img)
{
	struct live *l = t->priv;
	struct lk_ctl c;
	uint64_t area, image_off, need;
	const char *early_ms;

	live_detach(t);
	area = mt_rt_size(img);
	if (area == 0)
		return live_err(t, "invalid enabling image");
	image_off = (area + 4095) & ~4095ull;
	need = LK_AREA_OFF + image_off + img->size;
	if (need > LK_RESV_MAX)
		return live_err(t, "Enabling exceeds size of buffer");
	l->resv_pa = LK_RESV_PA;
	l->resv_size = need < LK_RESV_SIZE ? LK_RESV_SIZE : (need + 0xfffff) & ~0xfffffull;
	if (l->vm && l->resv_size > l->vm->resv_size)
		return live_err(t, "the enabling needs %llu MiB of reserved memory; vm %s has %llu",
			      (unsigned long long)(l->resv_size >> 20), l->vm->name,
			      (unsigned long long)(l->vm->resv_size >> 20));
	memset(&c, 0, sizeof c);
	l->ss.tramp_va = LK_KERNEL_MAP_BASE + l->resv_pa + LK_TRAMP_OFF;
	l->ss.fbt_entry_va = LK_KERNEL_MAP_BASE + l->resv_pa + LK_VEC_FBT_ENTRY;
	l->ss.fbt_ret_va = LK_KERNEL_MAP_BASE + l->resv_pa + LK_VEC_FBT_RET;
	l->ss.jit_dispatch_va = LK_KERNEL_MAP_BASE + l->resv_pa + LK_VEC_JIT_DISPATCH;
	l->ss.ncopy = live_ncpus(t);
	if (live_plan(t, img, &c) < 0)
		goto fail;
	if (kdesc_fill(l->k, &c.k, (uint64_t)(l->vm ? l->vm->mem_mb : guest_mb(l)) << 20, t->err,
		       sizeof t->err) < 0)
		goto fail;
	if ((l->vm ? vma_open(t) : start_guest(t)) < 0)
		goto fail;
	/* test hook (tests/e2e/live_leftovers.sh): hold the kernel in its
	   boot hook, waiting for INIT, until we are killed */
	if (getenv("MACHTRACE_TEST_STALL_INIT")) {
		fprintf(stderr, "machtrace: stalled before INIT\n");
		while (guest_run(l, 100))
			;
	}
	/* everything into the region, then INIT; the CPU table first: on
	   an SMP kernel the blob's entry code picks each CPU's stack by it
	   from the first hook on (the tick hook of an attach) */
	*(volatile uint64_t *)region(l, LK_VEC_CPU_LUT) = c.k.ncpus > 1 ? c.k.cpu_id_lut : 0;
	put_region(l, LK_SITES_OFF, l->ss.sites, l->ss.nsites * sizeof *l->ss.sites);
	put_region(l, LK_TRAMP_OFF, l->ss.tramp, l->ss.tramp_used);
	put_region(l, LK_USITES_OFF, l->us, l->nus * sizeof *l->us);
	l->ctl->nusites = l->nus;
	memcpy(region(l, LK_AREA_OFF + image_off), img, img->size);
	l->ctl->k = c.k;
	l->ctl->area_size = area;
	l->ctl->image_off = image_off;
	l->ctl->nsites = l->ss.nsites;
	l->ctl->nprobes = img->nprobes;
	if (getenv("MACHTRACE_LIVE_STATS"))
		fprintf(stderr, "machtrace: live: %u sites (the blob's hooks included)\n",
			l->ss.nsites);
	l->ctl->deadman_ns = l->o.deadman_ns ? l->o.deadman_ns : 10000000000ull;
	l->ctl->nticks = c.nticks;
	l->ctl->flags = (c.flags & LK_CTL_VTIME) |
		(getenv("MACHTRACE_LIVE_STATS") ? LK_CTL_STATS : 0);
	memcpy((void *)l->ctl->ticks, c.ticks, sizeof c.ticks);
	l->ctl->tick_lapic = c.tick_lapic;
	l->ctl->target_pid = l->o.has_target ? (int32_t)l->o.target_pid : -1;
	l->ctl->target_state = LK_TGT_UNSEEN;
	l->ctl->attach = l->vm != NULL;
	l->ctl->tramp_used = l->ss.tramp_used;
	idle_range(l);
	if (l->o.text_check)
		idt_save(l);
	/* test hook (tests/e2e/vm_smp.sh): the tick hook in first, INIT
	   after ms of clock ticks through it on every CPU */
	early_ms = l->vm ? getenv("MACHTRACE_TEST_TICKS_BEFORE_INIT") : NULL;
	if (early_ms && !*early_ms)
		early_ms = NULL;
	if (!early_ms)
		send(l, LK_CMD_INIT);
	if (l->vm) {
		if (vma_hook(t) < 0)
			goto fail;
		l->vm_hooked = 1;
	}
	if (early_ms) {
		usleep((useconds_t)atoi(early_ms) * 1000);
		send(l, LK_CMD_INIT);
	}
	if (wait_for(l, acked_init, WAIT_CMD_MS) < 0) {
		live_err(t, "the runtime in the kernel did not answer%s%s",
		       l->status[0] ? ": " : "", l->status);
		goto fail;
	}
	if (l->ctl->state != LK_ST_READY) {
		live_err(t, "%s", (const char *)l->ctl->msg);
		goto fail;
	}
	l->cb = region(l, LK_AREA_OFF);
	return 0;
fail:
	live_detach(t);
	return -1;
}

static struct mt_cb *live_cb(struct mt_target *t)
{
	return ((struct live *)t->priv)->cb;
}

static int live_begin(struct mt_target *t)
{
	struct live *l = t->priv;

	if (!l->cb)
		return live_err(t, "not attached");
	/* the wall clock's base before GO: BEGIN and the first firings read
	   it (the blob stores its TSC while it waits for the command) */
	l->ctl->k.boot_walltime_ns = live_now_ns(CLOCK_REALTIME) -
		(uint64_t)((double)l->ctl->tsc_now * 1e9 / (double)l->ctl->k.tsc_hz);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	send(l, LK_CMD_GO);
	if (wait_for(l, acked_go, WAIT_CMD_MS) < 0 || l->ctl->state != LK_ST_TRACING)
		return live_err(t, "the runtime in the kernel did not start tracing%s%s",
			      l->status[0] ? ": " : "", l->status);
	l->begun = 1;
	tick_report(l);
	return 0;
}

static int live_poll(struct mt_target *t, uint64_t max_ns)
{
	struct live *l = t->priv;
	int ms = (int)(max_ns / 1000000ull);

	if (!l->cb)
		return live_err(t, "not attached");
	if (!guest_run(l, ms > 0 ? ms : 1)) {
		/* a reboot ends a workload; anything else is the kernel's end */
		if (l->res.status != MT_BOOT_REBOOTED && l->res.status != MT_BOOT_INTERRUPTED)
			return live_err(t, "%s", l->status);
		return 1;
	}
	if (l->ctl->state == LK_ST_DEADMAN)
		return live_err(t, "Abort due to systemic unresponsiveness");
	if (l->ctl->state == LK_ST_ENDING)
		l->rebooting = 1;
	else if (idle_stalled(l))
		return live_err(t, "the guest made no progress: the kernel only idled for %u s "
				"of guest time (its boot modules blocked or ended without "
				"rebooting); give --timeout to let it idle", LK_IDLE_S);
	/* -c/-p: tracing ends when the target task does */
	return l->rebooting || l->ctl->target_state == LK_TGT_EXITED ||
	       __atomic_load_n(&l->cb->state, __ATOMIC_ACQUIRE) != MT_CB_ACTIVE;
}

static int live_end(struct mt_target *t)
{
	struct live *l = t->priv;

	if (!l->cb)
		return live_err(t, "not attached");
	if (l->stopped || l->guest_ended)
		return 0;
	l->stopped = 1;
	if (l->ctl->state != LK_ST_TRACING && l->ctl->state != LK_ST_ENDING)
		return 0;
	send(l, LK_CMD_STOP);
	if (wait_for(l, acked_stop, WAIT_CMD_MS) < 0)
		return live_err(t, "the kernel did not stop tracing%s%s",
			      l->status[0] ? ": " : "", l->status);
	tick_rate_report(l);
	return 0;
}

static int live_aggclear(struct mt_target *t, uint32_t aggid, int trunc)
{
	struct live *l = t->priv;

	if (!l->cb)
		return live_err(t, "not attached");
	/* The runtime services requests at the next tick; wait for the ack. */
	l->cb->req_arg = aggid;
	__atomic_store_n(&l->cb->req, trunc ? MT_REQ_AGGTRUNC : MT_REQ_AGGCLEAR,
			 __ATOMIC_RELEASE);
	for (int i = 0; i < 400 && __atomic_load_n(&l->cb->req, __ATOMIC_ACQUIRE); i++)
		if (!guest_run(l, 5))
			break;
	return 0;
}

/*
 * Each CPU's IDT, which the blob changes while tracing (vector 3, the APIC
 * timer's vector), before INIT and after STOP: the boot CPU's `idt`, the
 * others' through mp_desc_table (lkabi.h).  A timer interrupt latched
 * at STOP keeps the blob's vector until the kernel takes it (apic.c): the
 * guest runs a little until the blob says it gave the APIC back.
 */
static const uint8_t *idt_ram(struct live *l, uint32_t cpu, uint64_t *va)
{
	const struct lk_kdesc *k = (const struct lk_kdesc *)&l->ctl->k;
	uint64_t slot = k->mp_desc_table + 8ull * cpu;

	*va = 0;
	if (cpu == 0)
		*va = k->idt;
	else if (k->mp_desc_table && cpu < k->ncpus && slot >= LK_KERNEL_MAP_BASE &&
		 slot - LK_KERNEL_MAP_BASE + 8 <= l->ram_size) {
		memcpy(va, l->ram + (slot - LK_KERNEL_MAP_BASE), 8);
		if (*va)
			*va += k->off_mpdesc_idt;
	}
	if (*va < LK_KERNEL_MAP_BASE || *va - LK_KERNEL_MAP_BASE + sizeof l->idt0[0] > l->ram_size)
		return *va = 0, NULL;
	return l->ram + (*va - LK_KERNEL_MAP_BASE);
}

static void idt_save(struct live *l)
{
	for (uint32_t cpu = 0; cpu < LK_NCPU_MAX; cpu++) {
		const uint8_t *now = idt_ram(l, cpu, &l->idt_va[cpu]);

		if (now)
			memcpy(l->idt0[cpu], now, sizeof l->idt0[cpu]);
	}
}

static void idt_report(struct live *l)
{
	const uint8_t *now;
	uint64_t va;

	if (!l->idt_va[0])
		return;
	for (int i = 0; i < 40 && l->ctl->tick_src == LK_TS_LAPIC; i++)
		if (!guest_run(l, 5))
			break;
	for (uint32_t cpu = 0; cpu < LK_NCPU_MAX; cpu++) {
		if (!l->idt_va[cpu] || !(now = idt_ram(l, cpu, &va)) || va != l->idt_va[cpu])
			continue;
		for (uint32_t i = 0; i < sizeof l->idt0[cpu]; i++)
			if (now[i] != l->idt0[cpu][i]) {
				if (cpu)
					fprintf(stderr, "machtrace: kernel IDT of CPU %u DIFFERS "
						"from before tracing at vector 0x%x\n", cpu, i / 16);
				else
					fprintf(stderr, "machtrace: kernel IDT DIFFERS from before "
						"tracing at vector 0x%x\n", i / 16);
				return;
			}
	}
	fprintf(stderr, "machtrace: kernel IDT identical to before tracing\n");
}

/* Kernel text in guest RAM against the image; 0 identical. */
static int text_compare(struct live *l, uint64_t *where)
{
	const struct lk_kdesc *k = (const struct lk_kdesc *)&l->ctl->k;
	uint64_t start = k->text_start;
	const uint8_t *img = live_text_image(l->k, &start, k->text_end);
	const uint8_t *ram = l->ram + (start - LK_KERNEL_MAP_BASE);

	*where = 0;
	if (!img)
		return -1;
	for (uint64_t i = 0; i < k->text_end - start; i++)
		if (img[i] != ram[i]) {
			*where = start + i;
			return 1;
		}
	return 0;
}

/*
 * After STOP: what became of the user sites (warnings: a probe that
 * stopped firing is never silent), and with the text check, every user
 * text page they patched against its program's ELF.
 */
static void user_report(struct live *l)
{
	uint64_t where;
	uint32_t pages;
	int d;

	if (!l->nus)
		return;
	if (l->ctl->udisarmed)
		fprintf(stderr, "machtrace: warning: %llu user probe site(s) disarmed: the "
			"instruction's user stack page was not present or not writable; "
			"their probes stopped firing there\n",
			(unsigned long long)l->ctl->udisarmed);
	if (l->ctl->ulost)
		fprintf(stderr, "machtrace: warning: %llu user probe site(s) never armed: "
			"their task's text page was not present\n",
			(unsigned long long)l->ctl->ulost);
	if (!l->o.text_check)
		return;
	d = live_utext_compare(l, &where, &pages);
	if (d == 0)
		fprintf(stderr, "machtrace: user text identical to the programs (%u pages)\n",
			pages);
	else
		fprintf(stderr, "machtrace: user text DIFFERS from the program at 0x%llx\n",
			(unsigned long long)where);
}

/* MACHTRACE_ENGINE_STATS=1: the firings each CPU ran through the
   interpreter (the general path); the others ran compiled code or the
   counting fast path. */
static void engine_report(const struct live *l)
{
	uint32_t n = l->o.cpus ? l->o.cpus : 1;

	if (!getenv("MACHTRACE_ENGINE_STATS"))
		return;
	for (uint32_t c = 0; c < n && c < LK_NCPU_MAX; c++)
		fprintf(stderr, "machtrace: live: CPU %u: %llu firings interpreted\n", c,
			(unsigned long long)l->ctl->gen_fires[c]);
}

/* After STOP: the text check, the user sites, the statistics. */
static void detach_report(struct live *l)
{
	uint64_t where;

	if (l->o.text_check && l->ctl->k.text_end) {
		int d = text_compare(l, &where);

		if (d < 0)
			fprintf(stderr, "machtrace: kernel text not compared: the image has "
				"no text between _start and etext\n");
		else
			fprintf(stderr, d == 0 ? "machtrace: kernel text identical to the "
				"image (%llu bytes)\n" : "machtrace: kernel text DIFFERS from "
				"the image at 0x%llx\n", d == 0 ? (unsigned long long)
				(l->ctl->k.text_end - l->ctl->k.text_start) :
				(unsigned long long)where);
		idt_report(l);
		fprintf(stderr, "machtrace: kernel text pokes begun during another's: %llu\n",
			(unsigned long long)l->ctl->poke_overlaps);
	}
	user_report(l);
	engine_report(l);
	if (getenv("MACHTRACE_LIVE_STATS"))
		fprintf(stderr, "machtrace: live: %llu firings, %llu tsc in the runtime "
			"(%llu per firing), %llu ticks, %llu int3 hits, "
			"%llu apic interrupts (vector 0x%x, %llu Hz), %llu cross-calls "
			"(vector 0x%x, %u CPUs, %llu not answered)\n",
			(unsigned long long)l->ctl->fires,
			(unsigned long long)l->ctl->fire_tsc,
			(unsigned long long)(l->ctl->fires ? l->ctl->fire_tsc / l->ctl->fires : 0),
			(unsigned long long)l->ctl->ticks_seen,
			(unsigned long long)l->ctl->int3_hits,
			(unsigned long long)l->ctl->apic_ints, l->ctl->apic_vec,
			(unsigned long long)l->ctl->apic_hz,
			(unsigned long long)l->ctl->xcalls, l->ctl->xcall_vec,
			l->ctl->xcall_cpus, (unsigned long long)l->ctl->xcall_timeouts);
}

/* A VM session: whatever went in comes out (STOP, also before GO); the
   VM runs on. */
static void vm_detach(struct mt_target *t)
{
	struct live *l = t->priv;

	if (l->ctl && !l->guest_ended && l->vm_hooked) {
		if (l->begun && !l->stopped) {
			live_end(t);
		} else if (!l->begun) {
			send(l, LK_CMD_STOP);
			wait_for(l, vm_unhooked, WAIT_CMD_MS);
		}
		detach_report(l);
	}
	l->vm_hooked = 0;
	vma_close(l);
}

static void live_detach(struct mt_target *t)
{
	struct live *l = t->priv;

	if (l->vm) {
		vm_detach(t);
	} else if (l->b && l->ctl && !l->guest_ended) {
		if (l->begun && !l->stopped)
			live_end(t);
		detach_report(l);
		send(l, LK_CMD_RELEASE);
		/* a workload that finished reboots the guest by itself */
		for (int i = 0; l->rebooting && i < 100 && guest_run(l, 20); i++)
			;
	}
	if (l->b)
		mt_boot_stop(l->b);
	l->b = NULL;
	l->ram = NULL;
	l->ctl = NULL;
	l->cb = NULL;
	l->guest_ended = l->stopped = l->begun = l->rebooting = 0;
	sites_free(&l->ss);
	free(l->us);
	l->us = NULL;
	l->nus = 0;
}

/* As dtrace: "mod`func+0x10", "mod`0xaddr" in the module but no symbol
   (assembly routines go by the symbol table's labels: spl0+0x40; data
   by its objects: kernel_map_store+0x10);
   machtrace`tracer, machtrace`trampoline, machtrace`runtime in our
   reserved region. */
static int live_sym(struct mt_target *t, uint64_t pc, const char **mod,
		    const char **func, uint64_t *off)
{
	struct live *l = t->priv;
	uint64_t resv = LK_KERNEL_MAP_BASE + l->resv_pa;
	const char *name = mt_kimg_sym_at(l->k, pc, off);
	int inkernel = (l->ctl && pc >= l->ctl->k.text_start && pc < l->ctl->k.text_end) ||
		       mt_kimg_in_image(l->k, pc);

	/* our reserved region: its base stands for a profile sample of
	   tracer time (runtime/x86_64/sample.c); a trampoline (a kernel
	   function's displaced instructions, run out of line) or the runtime */
	if (!name && !inkernel && l->resv_pa && pc >= resv && pc < resv + LK_AREA_OFF) {
		*mod = "machtrace";
		*func = pc == resv ? "tracer" : pc >= resv + LK_TRAMP_OFF ?
			"trampoline" : "runtime";
		*off = 0;
		return 0;
	}
	if (!name && !inkernel)
		return -1;
	*mod = "gnumach";
	*func = name;
	if (!name)
		*off = 0;
	return 0;
}

/* The boot's programs, in boot order (machload alone by default). */
static void load_umods(struct live *l)
{
	char path[PATH_MAX + 64], err[256], build[PATH_MAX];

	l->umods_loaded = 1;
	if (l->o.nmodules == 0) {
		mt_build_dir(build, sizeof build);
		snprintf(path, sizeof path, "%s/guest/machload", build);
		l->umods[l->numods++] = usyms_load(path, err, sizeof err);
		return;
	}
	for (int i = 0; i < l->o.nmodules && l->numods < MT_USER_MAX_MODULES; i++) {
		snprintf(path, sizeof path, "%s", l->o.modules[i]);
		path[strcspn(path, " \t")] = '\0';
		l->umods[l->numods++] = usyms_load(path, err, sizeof err);
	}
}

/*
 * A user pc of task pid: bootstrap module pid's program when pc is in it,
 * else the one program whose text holds pc (usyms.c).
 */
static int live_usym(struct mt_target *t, int64_t pid, uint64_t pc,
		     const char **mod, const char **func, uint64_t *off)
{
	struct live *l = t->priv;
	const struct usyms *one = NULL;

	if (!l->umods_loaded)
		load_umods(l);
	if (pid >= 1 && pid <= l->numods && usyms_covers(l->umods[pid - 1], pc))
		return usyms_lookup(l->umods[pid - 1], pc, mod, func, off);
	for (int i = 0; i < l->numods; i++) {
		if (!usyms_covers(l->umods[i], pc))
			continue;
		if (one)
			return -1;
		one = l->umods[i];
	}
	return one ? usyms_lookup(one, pc, mod, func, off) : -1;
}

static void live_free(struct mt_target *t)
{
	struct live *l = t->priv;

	for (int i = 0; i < l->numods; i++)
		usyms_free(l->umods[i]);
	probes_free(l);
	if (l->k)
		mt_kimg_close(l->k);
	vma_free(l);
	free(l);
}

/* The ops a command asks (program.h argname, sites, pstate, aborted):
   a mach_trap entry's parameter name of args[i] (DWARF); an SDT or line
   probe's sites and how each was found; the kernel's LK_TGT_* of the
   -c/-p task; why the guest stopped in its debugger (a panic, KDB). */
static const char *live_argname(struct mt_target *t, const char *prov, const char *func,
				const char *name, int i);
static void live_sites(struct mt_target *t, uint32_t id, FILE *out);
static int live_pstate(struct mt_target *t);
static const char *live_aborted(struct mt_target *t);

static const struct mt_target_ops live_ops = {
	.name = "mach",
	.probes = live_probes,
	.attach = live_attach,
	.area_max = live_area_max,
	.cb = live_cb,
	.begin = live_begin,
	.poll = live_poll,
	.end = live_end,
	.aggclear = live_aggclear,
	.detach = live_detach,
	.sym = live_sym,
	.usym = live_usym,
	.free = live_free,
	.ctypes = live_ctypes,
	.dlib = live_dlib,
	.expand = mt_live_expand,
	.ncpus = live_ncpus,
	.argname = live_argname,
	.sites = live_sites,
	.pstate = live_pstate,
	.aborted = live_aborted,
};

static int live_pstate(struct mt_target *t)
{
	struct live *l = t ? t->priv : NULL;

	if (!t || t->ops != &live_ops || !l->o.has_target || !l->ctl)
		return -1;
	return (int)l->ctl->target_state;
}

struct mt_target *mt_mach_target_new(const struct mt_live_opts *o, char *err,
				     size_t errlen)
{
	struct mt_target *t = calloc(1, sizeof *t);
	struct live *l = calloc(1, sizeof *l);
	char build[PATH_MAX];

	if (!t || !l) {
		free(t);
		free(l);
		mt_seterr(err, errlen, "out of memory");
		return NULL;
	}
	t->ops = &live_ops;
	t->priv = l;
	if (o)
		l->o = *o;
	/* test hooks (tests/e2e/live_*.sh) */
	if (getenv("MACHTRACE_SURVIVE"))
		l->o.survive = 1;
	if (getenv("MACHTRACE_TEXTCHECK"))
		l->o.text_check = 1;
	if (getenv("MACHTRACE_DEADMAN_MS"))
		l->o.deadman_ns = strtoull(getenv("MACHTRACE_DEADMAN_MS"), NULL, 10) * 1000000ull;
	l->vm_lock = -1;
	l->vmlog.fd = -1;
	if (l->o.vm && vma_setup(l, err, errlen) < 0)
		goto fail;
	mt_build_dir(build, sizeof build);
	if (l->o.kernel)
		snprintf(l->kernel, sizeof l->kernel, "%s", l->o.kernel);
	else
		mt_stock_kernel(l->kernel, sizeof l->kernel);
	if (l->o.blob)
		snprintf(l->blob, sizeof l->blob, "%s", l->o.blob);
	else
		snprintf(l->blob, sizeof l->blob, "%s/live/blob.bin", build);
	if (l->o.shim)
		snprintf(l->shim, sizeof l->shim, "%s", l->o.shim);
	else if (getenv("MACHTRACE_SHIM"))
		snprintf(l->shim, sizeof l->shim, "%s", getenv("MACHTRACE_SHIM"));
	if (access(l->blob, R_OK) != 0) {
		mt_seterr(err, errlen, "runtime blob %s missing (run make)", l->blob);
		goto fail;
	}
	if (!l->o.kernel && mt_stock_kernel_check(l->kernel, err, errlen) < 0)
		goto fail;
	l->k = mt_kimg_open(l->kernel, err, errlen);
	if (!l->k)
		goto fail;
	if (live_probes_init(l) < 0) {
		mt_seterr(err, errlen, "out of memory");
		goto fail;
	}
	return t;
fail:
	if (l->k)
		mt_kimg_close(l->k);
	probes_free(l);
	vma_free(l);
	free(l);
	free(t);
	return NULL;
}

const char *mt_live_argtype(struct mt_target *t, const char *prov, const char *func,
			    const char *name, int i)
{
	const struct mt_kfunc *f;
	const char *st;
	int matched;

	if (t && t->ops == &live_ops && i >= 0 && prov && sdt_is_provider(prov)) {
		st = sdt_argtype(t->priv, prov, func, name, i, 0, &matched);
		if (matched)
			return st;
	}
	if (prov && !strcmp(prov, "kinst") && i >= 0 && i < mt_live_nargs(t, prov, func, name))
		return mt_kimg_lookup(((struct live *)t->priv)->k, func)->args[i].type;
	if (!t || t->ops != &live_ops || !func || i < 0 ||
	    (prov && strcmp(prov, "fbt") != 0 && strcmp(prov, "mach_trap") != 0))
		return NULL;
	f = mt_kimg_lookup(((struct live *)t->priv)->k, func);
	if (!f)
		return NULL;
	if (name && strcmp(name, "return") == 0)
		return i == 0 ? "int" : i == 1 && f->rettype && strcmp(f->rettype, "void") ?
			f->rettype : NULL;
	return i < f->nargs ? f->args[i].type : NULL;
}

/* The DWARF name of args[i] of a mach_trap entry probe, NULL if none. */
static const char *live_argname(struct mt_target *t, const char *prov, const char *func,
				const char *name, int i)
{
	const struct mt_kfunc *f;

	if (!t || t->ops != &live_ops || !prov || strcmp(prov, "mach_trap") != 0 ||
	    !func || !name || strcmp(name, "entry") != 0 || i < 0)
		return NULL;
	f = mt_kimg_lookup(((struct live *)t->priv)->k, func);
	return f && i < f->nargs && f->args[i].name[0] ? f->args[i].name : NULL;
}

static int first_id(void *arg, const struct mt_probe_info *info)
{
	*(uint32_t *)arg = info->id;
	return 0;
}

/* kinst::FUNC:entry/return of an inlined FUNC (pd), made if need be;
   NULL when pd names no such probe. */
static const struct lprobe *kinline_probe(struct mt_target *t, const struct mt_pdesc *pd)
{
	const struct lprobe *p;
	uint32_t id = 0;

	if (!t || t->ops != &live_ops || !pd->prov || strcmp(pd->prov, "kinst") != 0 ||
	    !pd->func || live_has_glob(pd->func) || live_has_glob(pd->name) ||
	    live_probes(t, pd, 1, first_id, &id) != 1)
		return NULL;
	p = live_probe_by_id(t->priv, id);
	return p && !p->sdt && p->locs ? p : NULL;
}

char *mt_live_argmissing(struct mt_target *t, const char *prov, const char *func,
			 const char *name, int i)
{
	struct mt_pdesc pd = { (char *)prov, NULL, (char *)func, (char *)name, 0 };
	const struct lprobe *p = name && !strcmp(name, "entry") ? kinline_probe(t, &pd) : NULL;

	return p && i >= p->inl_nargs ? kinline_arg_missing(t->priv, p, i) : NULL;
}

char *mt_live_expand(struct mt_target *t, const struct mt_pdesc *pd)
{
	const struct lprobe *p;

	if (t && t->ops == &live_ops && pd->prov && !strcmp(pd->prov, "line"))
		return line_expand(t, pd);
	p = kinline_probe(t, pd);

	return p ? kinline_expand(p) : NULL;
}

static void live_sites(struct mt_target *t, uint32_t id, FILE *out)
{
	const struct lprobe *p = t && t->ops == &live_ops ? live_probe_by_id(t->priv, id) : NULL;

	if (p && p->locs && p->mod)
		line_print_sites(p, out);
	else if (p && !p->sdt && p->locs)
		kinline_print_sites(t->priv, p, out);
	else if (p)
		sdt_print_sites(t->priv, id, out);
}

/* The native type of a translated args[i] of an SDT probe, else NULL. */
const char *mt_live_argnative(struct mt_target *t, const char *prov, const char *func,
			      const char *name, int i)
{
	int matched;

	if (!t || t->ops != &live_ops || i < 0 || !prov || !sdt_is_provider(prov))
		return NULL;
	return sdt_argtype(t->priv, prov, func, name, i, 1, &matched);
}

int mt_live_nargs(struct mt_target *t, const char *prov, const char *func,
		  const char *name)
{
	struct mt_pdesc pd = { (char *)prov, NULL, (char *)func, (char *)name, 0 };
	const struct lprobe *p = name && !strcmp(name, "entry") ? kinline_probe(t, &pd) : NULL;
	const struct mt_kfunc *f;

	if (p)
		return p->inl_nargs;

	if (t && t->ops == &live_ops && prov && sdt_is_provider(prov) &&
	    !live_has_glob(prov))
		return sdt_nargs(t->priv, prov, func, name);
	if (!t || t->ops != &live_ops || !prov || !func || !name ||
	    (strcmp(prov, "fbt") != 0 && strcmp(prov, "mach_trap") != 0) ||
	    strpbrk(func, "*?[\\") != NULL)
		return -1;
	f = mt_kimg_lookup(((struct live *)t->priv)->k, func);
	if (!f || f->nargs < 0 || f->varargs || f->nargs >= MT_KFUNC_MAXARGS)
		return -1;
	if (strcmp(name, "return") == 0)
		return f->rettype && strcmp(f->rettype, "void") ? 2 : 1;
	return strcmp(name, "entry") == 0 ? f->nargs : -1;
}

char *mt_live_symbol(struct mt_target *t, const char *mod, const char *name,
		     uint64_t *addr)
{
	struct mt_kimg *k;
	char buf[512];

	if (!t || t->ops != &live_ops || !name ||
	    (mod && *mod && strcmp(mod, "gnumach") != 0))
		return NULL;
	k = ((struct live *)t->priv)->k;
	if (mt_kimg_symbol(k, name, addr) != 0) {
		*addr = 0;
		return NULL;
	}
	if (*addr == 0 || live_var_type(k, name, buf, sizeof buf) != 0)
		return NULL;	/* a symbol without a type: *addr says so */
	return strdup(buf);
}

char *mt_live_decls(struct mt_target *t, const char *ctype)
{
	if (!t || t->ops != &live_ops || !ctype)
		return NULL;
	return live_decls(((struct live *)t->priv)->k, ctype);
}

char *mt_live_decls_file(const char *kernel, const char *const *ctypes, int n,
			 char *err, size_t errlen)
{
	struct mt_kimg *k = mt_kimg_open(kernel, err, errlen);
	char *d;

	if (!k)
		return NULL;
	d = live_decls_n(k, ctypes, n);
	if (!d)
		snprintf(err, errlen, "no such type in %s", kernel);
	mt_kimg_close(k);
	return d;
}

static const char *live_aborted(struct mt_target *t)
{
	return t && t->ops == &live_ops && ((struct live *)t->priv)->kdb[0] ?
		((struct live *)t->priv)->kdb : NULL;
}

const struct mt_target_kind mt_mach_kind = {
	.name = "mach",
	.claims = mt_live_wants,
	.create = mt_mach_target_new,
	.text_check = mt_live_text_check,
};
