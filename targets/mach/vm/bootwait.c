/*
 * vm start, after QEMU started: the blob's boot hook is answered SKIP
 * (the kernel boots with nothing patched, the blob stays resident), then
 * the boot is done when the workload prints its start marker.  A panic
 * (the KDB prompt in the console log), QEMU's end or the time limit end
 * the wait with an error, as does a kernel stopped in KDB before its
 * console existed (its message buffer in guest RAM says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/lkabi.h"
#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

#define BOOT_MS		60000
#define NOMARK_MS	1000	/* the user's modules: let them start */

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void *mt_vm_map_ram(const struct mt_vm *vm, size_t *size, char *err, size_t errlen)
{
	int fd = vm_open_ram(vm, (size_t)vm->mem_mb << 20, err, errlen);
	void *p;

	*size = (size_t)vm->mem_mb << 20;
	if (fd < 0)
		return NULL;
	p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		mt_seterr(err, errlen, "vm %s: mmap %s: %s", vm->name, vm->shm, strerror(errno));
		return NULL;
	}
	return p;
}

/* One step of the boot: 1 done, 0 not yet, -1 failed (err). */
static int boot_step(const struct mt_vm *vm, struct mt_vm_log *log, const uint8_t *ram,
		     size_t size, const uint64_t kmsg[2], int *skipped, double *nomark,
		     char *err, size_t errlen)
{
	volatile struct lk_ctl *c = (volatile struct lk_ctl *)(ram + vm->resv_pa + LK_CTL_OFF);
	char why[256];

	if (!*skipped && mt_kmsg_stop(ram, size, kmsg[0], kmsg[1], why, sizeof why)) {
		mt_seterr(err, errlen, "vm %s: the kernel stopped in its debugger (KDB) before "
			  "its console existed: %s (its message buffer)", vm->name, why);
		return -1;
	}
	if (mt_vm_log_poll(log)) {
		mt_seterr(err, errlen, "vm %s: the kernel stopped in its debugger (KDB) "
			  "during boot: %s", vm->name, log->panic[0] ? log->panic : "db> prompt");
		return -1;
	}
	if (log->shim[0]) {
		mt_seterr(err, errlen, "vm %s: the boot shim stopped the boot: %s", vm->name,
			  log->shim);
		return -1;
	}
	if (!vm_qemu_alive(vm->qemu_pid, vm->shm)) {
		mt_seterr(err, errlen, "vm %s: QEMU ended during boot%s%s", vm->name,
			  log->panic[0] ? ": " : "", log->panic);
		return -1;
	}
	if (!*skipped && __atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) == LK_CTL_MAGIC &&
	    c->state == LK_ST_WAITING) {
		if (c->version != LK_BLOB_VERSION) {
			mt_seterr(err, errlen, "runtime blob is version %u, machtrace expects "
				  "%u (run make)", c->version, LK_BLOB_VERSION);
			return -1;
		}
		c->attach = 0;
		__atomic_store_n(&c->cmd, LK_CMD_SKIP, __ATOMIC_RELEASE);
		*skipped = 1;
	}
	if (*skipped && log->marker && log->seen_marker)
		return 1;
	if (*skipped && !log->marker && c->state == LK_ST_NONE) {
		if (*nomark == 0)
			*nomark = mono() + NOMARK_MS / 1000.0;
		else if (mono() > *nomark)
			return 1;
	}
	return 0;
}

int vm_boot_wait(const struct mt_vm *vm, const struct mt_vm_opts *o, char *err,
		 size_t errlen)
{
	struct mt_vm_log log;
	struct mt_kimg *k = mt_kimg_open(vm->kernel, err, errlen);
	uint64_t kmsg[2] = { 0, 0 };	/* the kernel's message buffer: va, size */
	size_t size;
	uint8_t *ram;
	double end = mono() + (o->timeout_ms ? o->timeout_ms : BOOT_MS) / 1000.0, nomark = 0;
	int skipped = 0, rc = 0;

	if (k && mt_kimg_symbol_size(k, "kmsg_buffer", &kmsg[0], &kmsg[1]) < 0)
		kmsg[1] = 0;
	mt_kimg_close(k);
	if (!(ram = mt_vm_map_ram(vm, &size, err, errlen)))
		return -1;
	mt_vm_log_open(vm, &log, 0);	/* QEMU made it: fd -1 if not */
	log.marker = o->nmodules == 0 && !o->disk ? "machload: start" : NULL;
	while (rc == 0) {
		rc = boot_step(vm, &log, ram, size, kmsg, &skipped, &nomark, err, errlen);
		if (rc == 0 && mono() > end) {
			mt_seterr(err, errlen, "vm %s: %s within %u s", vm->name, skipped ?
				  "the workload did not start" : "the kernel did not reach the "
				  "runtime's boot hook", (o->timeout_ms ? o->timeout_ms : BOOT_MS) / 1000);
			rc = -1;
		}
		if (rc == 0) {
			usleep(5000);
		}
	}
	mt_vm_log_close(&log);
	munmap(ram, size);
	return rc < 0 ? -1 : 0;
}
