/*
 * A session on a running VM (machtrace --vm NAME), host side.
 *
 * The VM's blob idles resident since its boot hook was answered SKIP:
 * nothing is patched and nothing calls it.  A session
 *   1. takes the VM's session lock (one session at a time) and checks the
 *      blob is this build's (the VM's info records the blob file's hash);
 *   2. maps the guest RAM file; if an earlier session died (the control
 *      page says TRACING/ENDING/READY, or the tick hook is still in the
 *      text) waits for the blob's deadman to take everything out; a VM
 *      left paused (a session killed while the gdbstub held it) is resumed;
 *   3. writes sites, trampolines, user sites, description and image as a
 *      boot session does (live.c), with ctl->attach set, and INIT;
 *   4. puts the tick hook in through the gdbstub (vma_hook): the tick
 *      site's trampoline, then its jmp.  These writes make QEMU drop
 *      translated code; the blob then runs INIT and GO from its tick and
 *      rewrites the other trampolines itself before any site goes in.
 * STOP takes every site out, the tick hook too: the text is stock again.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "targets/mach/live/live_int.h"
#include "targets/mach/mach_int.h"

#define DEADMAN_SLACK_MS	3000

static volatile struct lk_ctl *vm_ctl(struct live *l)
{
	return (volatile struct lk_ctl *)(l->ram + l->vm->resv_pa + LK_CTL_OFF);
}

/* The tick site of the plan; NULL if none. */
static const struct lk_site *tick_site(struct live *l, uint32_t *index)
{
	for (uint32_t i = 0; i < l->ss.nsites; i++)
		if (l->ss.sites[i].flags & LK_SF_INTERNAL_TICK) {
			*index = i;
			return &l->ss.sites[i];
		}
	return NULL;
}

/* Is the kernel's text at the tick function stock (no hook of an earlier
   session left in)? */
static int tick_stock(struct live *l)
{
	const struct mt_kfunc *f = mt_kimg_lookup(l->k, "clock_interrupt");
	const uint8_t *img;

	if (!f || !(img = mt_kimg_bytes(l->k, f->addr, 5)))
		return 1;
	return memcmp(l->ram + (f->addr - LK_KERNEL_MAP_BASE), img, 5) == 0;
}

static int idle(struct live *l)
{
	uint32_t st = vm_ctl(l)->state;

	return st != LK_ST_READY && st != LK_ST_TRACING && st != LK_ST_ENDING && tick_stock(l);
}

/* An earlier session died: its deadman takes its probes out. */
static int wait_idle(struct mt_target *t)
{
	struct live *l = t->priv;
	volatile struct lk_ctl *c = vm_ctl(l);
	uint64_t limit = c->deadman_ns / 1000000 + DEADMAN_SLACK_MS, t0 = live_now_ns(CLOCK_MONOTONIC) / 1000000;
	char st[32], err[256];

	if (mt_vm_status(l->vm, st, sizeof st) && strcmp(st, "paused") == 0 &&
	    mt_vm_cont(l->vm, err, sizeof err) < 0)
		return live_err(t, "%s", err);
	if (idle(l))
		return 0;
	fprintf(stderr, "machtrace: vm %s: an earlier session did not end; waiting for "
		"the runtime's deadman (at most %llu ms)\n", l->vm->name,
		(unsigned long long)limit);
	while (!idle(l)) {
		if (mt_vm_log_poll(&l->vmlog))
			return live_err(t, "vm %s: the kernel stopped in its debugger (KDB): %s "
				       "(machtrace vm console %s)", l->vm->name,
				       l->vmlog.panic[0] ? l->vmlog.panic : "db>", l->vm->name);
		if (live_now_ns(CLOCK_MONOTONIC) / 1000000 - t0 > limit)
			return live_err(t, "vm %s: the runtime is still tracing for a session "
				       "that is gone; restart the VM", l->vm->name);
		usleep(10000);
	}
	return 0;
}

static int check_blob(struct mt_target *t)
{
	struct live *l = t->priv;
	char id[72];

	if (mt_vm_file_id(l->blob, id, sizeof id) < 0)
		return live_err(t, "runtime blob %s missing (run make)", l->blob);
	if (strcmp(id, l->vm->blob_id) != 0)
		return live_err(t, "vm %s runs the runtime blob of another build (%s has "
			       "changed since vm start); restart the VM", l->vm->name, l->blob);
	if (vm_ctl(l)->magic != LK_CTL_MAGIC || vm_ctl(l)->version != LK_BLOB_VERSION)
		return live_err(t, "vm %s: no runtime of version %u in its memory; restart "
			       "the VM", l->vm->name, LK_BLOB_VERSION);
	return 0;
}

/* Steps 1 and 2: the VM locked, mapped and idle; -1 with t->err. */
int vma_open(struct mt_target *t)
{
	struct live *l = t->priv;
	size_t size;

	if (mt_vm_lock(l->vm, &l->vm_lock, t->err, sizeof t->err) < 0)
		return -1;
	if (!(l->ram = mt_vm_map_ram(l->vm, &size, t->err, sizeof t->err)))
		return -1;
	l->ram_size = size;
	if (mt_vm_log_open(l->vm, &l->vmlog, 0) < 0)
		return live_err(t, "vm %s: no console log", l->vm->name);
	mt_vm_log_poll(&l->vmlog);	/* a KDB prompt already there? */
	if (l->vmlog.kdb)
		return live_err(t, "vm %s: the kernel is in its debugger (KDB): %s (machtrace "
			       "vm console %s)", l->vm->name, l->vmlog.panic[0] ?
			       l->vmlog.panic : "db>", l->vm->name);
	l->vmlog.echo = l->o.console;
	l->vmlog.copy = l->vmcopy;
	if (check_blob(t) < 0 || wait_idle(t) < 0)
		return -1;
	l->ctl = vm_ctl(l);
	l->ctl->cmd = LK_CMD_NONE;
	l->ctl->cmd_ack = LK_CMD_NONE;
	l->ctl->error = 0;
	l->ctl->state = LK_ST_NONE;
	return 0;
}

/* Step 4: the tick site's trampoline and jmp through the gdbstub. */
int vma_hook(struct mt_target *t)
{
	struct live *l = t->priv;
	const struct lk_site *s;
	struct mt_vm_poke p[2];
	uint64_t off, len;
	uint32_t i;

	if (!(s = tick_site(l, &i)) || s->kind != LK_SK_JMP)
		return live_err(t, "the kernel's clock_interrupt takes no jmp hook: "
			       "sessions cannot attach to a running kernel");
	l->ctl->tick_site = i;
	off = s->ool - l->ss.tramp_va;
	len = l->ss.tramp_used - off < 128 ? l->ss.tramp_used - off : 128;
	p[0].pa = l->vm->resv_pa + LK_TRAMP_OFF + off;
	p[0].bytes = l->ss.tramp + off;
	p[0].len = (uint32_t)len;
	p[1].pa = s->addr - LK_KERNEL_MAP_BASE;
	p[1].bytes = s->patch;
	p[1].len = s->plen;
	return mt_vm_gdb_write(l->vm, p, 2, LK_KERNEL_MAP_BASE, t->err, sizeof t->err);
}

/* Let the guest run ms (it runs by itself): heartbeat, console, its end. */
int vma_run(struct live *l, int ms)
{
	if (l->guest_ended)
		return 0;
	if (l->ctl)
		l->ctl->heartbeat++;
	if (ms > 0)
		usleep((useconds_t)ms * 1000);
	if (mt_vm_log_poll(&l->vmlog)) {
		snprintf(l->status, sizeof l->status, "the kernel stopped in its debugger "
			 "(KDB): %s (the VM stays: machtrace vm console %s)",
			 l->vmlog.panic[0] ? l->vmlog.panic : "db>", l->vm->name);
		snprintf(l->kdb, sizeof l->kdb, "%s", l->status);
		l->guest_ended = 1;
		l->res.status = MT_BOOT_DEBUGGER;
		return 0;
	}
	if (kill(l->vm->qemu_pid, 0) < 0) {
		snprintf(l->status, sizeof l->status, "vm %s: QEMU ended", l->vm->name);
		l->guest_ended = 1;
		l->res.status = MT_BOOT_QEMU_FAILED;
		return 0;
	}
	return 1;
}

void vma_close(struct live *l)
{
	if (l->ram)
		munmap(l->ram, l->ram_size);
	mt_vm_log_close(&l->vmlog);
	mt_vm_unlock(l->vm, l->vm_lock);
	l->vm_lock = -1;
}

/* At target creation: the VM's kernel and boot modules are the session's. */
int vma_setup(struct live *l, char *err, size_t errlen)
{
	const char *m;
	int n = 0;

	if (!(l->vm = calloc(1, sizeof *l->vm))) {
		mt_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (mt_vm_find(l->o.vm, l->vm, err, errlen) < 0)
		return -1;
	l->o.cpus = l->vm->cpus;
	l->o.kernel = l->vm->kernel;
	for (m = l->vm->modules; *m && n < MT_USER_MAX_MODULES; n++) {
		size_t k = strcspn(m, "\n");
		l->vmmods[n] = strndup(m, k);
		l->o.modules[n] = l->vmmods[n];
		m += k + (m[k] == '\n');
	}
	l->o.nmodules = n;
	if (l->o.console_log && !(l->vmcopy = fopen(l->o.console_log, "w"))) {
		mt_seterr(err, errlen, "cannot write %s", l->o.console_log);
		return -1;
	}
	return 0;
}

void vma_free(struct live *l)
{
	for (int i = 0; i < MT_USER_MAX_MODULES; i++)
		free(l->vmmods[i]);
	if (l->vmcopy)
		fclose(l->vmcopy);
	free(l->vm);
}
