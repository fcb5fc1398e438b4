/*
 * The QEMU command line of a guest:
 *
 *   qemu-system-x86_64 -accel tcg -display none -vga none -no-reboot
 *     -monitor none -serial stdio -m MEM
 *     -object memory-backend-file,id=ram0,size=MEMM,mem-path=SHM,share=on
 *     -machine pc,memory-backend=ram0
 *     -kernel SHIM [-append reserve=PA:SIZE]
 *     -initrd 'KERNEL console=com0,MODULE args,...'
 *     [-drive file=IMAGE,format=raw,if=ide,index=0,media=disk[,snapshot=on]]
 *
 * Every file is checked before QEMU starts so that errors name the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machtrace/kimg.h"
#include "machtrace/machopt.h"
#include "targets/mach/qemu/boot_int.h"
#include "targets/mach/mach_int.h"

/*
 * QEMU's -icount takes options that write files (rr=record,rrfile=PATH)
 * and a baseline file carries the setting it was measured with, so
 * machtrace passes on only what it writes itself: shift=N, N 0 to 10
 * (QEMU's largest shift).
 */
#define ICOUNT_MAX_SHIFT 10

int mt_icount_check(const char *icount, char *err, size_t len)
{
	const char *d = strncmp(icount, "shift=", 6) == 0 ? icount + 6 : "";
	size_t n = strlen(d);

	if (n >= 1 && n <= 2 && strspn(d, "0123456789") == n && atoi(d) <= ICOUNT_MAX_SHIFT)
		return 0;
	mt_seterr(err, len, "icount '%.64s' is not one machtrace uses (shift=N, N 0 to %d)",
		  icount, ICOUNT_MAX_SHIFT);
	return -1;
}

static void add(struct qemu_cmd *c, const char *arg)
{
	if (c->argc < QEMU_MAX_ARGS - 1)
		c->argv[c->argc++] = (char *)arg;
	c->argv[c->argc] = NULL;
}

static int readable(const char *path, const char *what, char *err, size_t errlen)
{
	if (access(path, R_OK) == 0)
		return 0;
	mt_seterr(err, errlen, "%s %s: %s", what, path, strerror(errno));
	return -1;
}

static int default_workload(const struct mt_boot_opts *o, struct qemu_cmd *c,
			    char *err, size_t errlen)
{
	char build[PATH_MAX], path[PATH_MAX];

	snprintf(path, sizeof path, "%s/guest/machload", mt_build_dir(build, sizeof build));
	if (access(path, R_OK) != 0) {
		mt_seterr(err, errlen, "workload %s: %s (run make)", path, strerror(errno));
		return -1;
	}
	snprintf(c->workload, sizeof c->workload,
		 "%s ${host-port} ${device-port}%s%s $(task-create) $(task-resume)",
		 path, o->workload && *o->workload ? " " : "", o->workload ? o->workload : "");
	return 0;
}

/* A module string's length once the shim has reduced its path to the basename. */
static size_t shim_string_len(const char *module)
{
	size_t n = strcspn(module, " ");
	const char *base = module;

	for (size_t i = 0; i < n; i++)
		if (module[i] == '/')
			base = module + i + 1;
	return strlen(base);
}

/*
 * GNU Mach's boot script (kern/bootstrap.c) makes a task of a module only
 * when its line says $(task-create), and runs it only on $(task-resume):
 * without one the kernel boots, starts nothing and idles for ever.
 */
static int check_started(const struct mt_boot_opts *o, char *err, size_t errlen)
{
	for (int i = 0; i < o->nmodules; i++)
		if (strstr(o->modules[i], "$(task-resume)"))
			return 0;
	mt_seterr(err, errlen, "no boot module would run: GNU Mach's boot script "
		  "starts a module only when its line ends in '$(task-create) "
		  "$(task-resume)', e.g. --module 'PATH ${host-port} ${device-port} "
		  "ARGS $(task-create) $(task-resume)' (docs/live-kernel.md)");
	return -1;
}

static int build_initrd(const struct mt_boot_opts *o, struct qemu_cmd *c,
			char *err, size_t errlen)
{
	char kmod[PATH_MAX + 512], path[PATH_MAX];

	snprintf(kmod, sizeof kmod, "%s %s", c->kernel,
		 o->kernel_args ? o->kernel_args : "console=com0");
	if (strlen(kmod) >= SHIM_STR_MAX) {
		mt_seterr(err, errlen, "kernel path and command line longer than the boot "
			  "shim's %d bytes", SHIM_STR_MAX - 1);
		return -1;
	}
	c->initrd[0] = 0;
	if (mt_initrd_append(c->initrd, sizeof c->initrd, kmod, 1) < 0)
		goto too_long;
	if (o->nmodules == 0) {
		if (default_workload(o, c, err, errlen) < 0)
			return -1;
		if (mt_initrd_append(c->initrd, sizeof c->initrd, c->workload, 0) < 0)
			goto too_long;
	}
	for (int i = 0; i < o->nmodules; i++) {
		if (mt_module_path(o->modules[i], path, sizeof path) < 0) {
			mt_seterr(err, errlen, "bad module string '%s'", o->modules[i]);
			return -1;
		}
		if (readable(path, "module", err, errlen) < 0)
			return -1;
		if (shim_string_len(o->modules[i]) >= SHIM_STR_MAX) {
			mt_seterr(err, errlen, "module string of %s longer than the boot shim's "
				  "%d bytes", path, SHIM_STR_MAX - 1);
			return -1;
		}
		if (mt_initrd_append(c->initrd, sizeof c->initrd, o->modules[i], 0) < 0)
			goto too_long;
	}
	return o->nmodules ? check_started(o, err, errlen) : 0;
too_long:
	mt_seterr(err, errlen, "module strings too long");
	return -1;
}

int mt_qemu_cmd(const struct mt_boot_opts *o, const char *shm, struct qemu_cmd *c,
		char *err, size_t errlen)
{
	char build[PATH_MAX - 32], elf[sizeof c->kernel];
	unsigned mem = o->mem_mb ? o->mem_mb : 512;
	const char *icount;
	char why[160];

	memset(c, 0, sizeof *c);
	if ((icount = getenv("MACHTRACE_ICOUNT")) != NULL && *icount == '\0')
		icount = NULL;
	if (icount && mt_icount_check(icount, why, sizeof why) != 0) {
		mt_seterr(err, errlen, "MACHTRACE_ICOUNT: %s", why);
		return -1;
	}
	mt_build_dir(build, sizeof build);
	if (o->kernel)
		snprintf(c->kernel, sizeof c->kernel, "%s", o->kernel);
	else
		mt_stock_kernel(c->kernel, sizeof c->kernel);
	if (o->shim)
		snprintf(c->shim, sizeof c->shim, "%s", o->shim);
	else
		snprintf(c->shim, sizeof c->shim, "%s/boot/shim.elf", build);

	if (!o->kernel && mt_stock_kernel_check(c->kernel, err, errlen) < 0)
		return -1;
	if (mt_kimg_check(c->kernel, err, errlen) < 0 ||
	    mt_kernel_elf(c->kernel, elf, sizeof elf, err, errlen) < 0 ||
	    mt_kernel_cpus_check(elf, o->cpus, err, errlen) < 0)
		return -1;
	if (o->cpus > 1 && mem < MT_MOPT_SMP_MEM_MIN) {
		mt_seterr(err, errlen, "--memory %u with --cpus %u: an SMP GNU Mach on more "
			  "than one CPU needs at least %u MiB (with less, sid's stops in its "
			  "boot: a panic or a hang)", mem, o->cpus, MT_MOPT_SMP_MEM_MIN);
		return -1;
	}
	snprintf(c->kernel, sizeof c->kernel, "%s", elf);
	if (readable(c->shim, "boot shim", err, errlen) < 0)
		return -1;
	if (build_initrd(o, c, err, errlen) < 0)
		return -1;

	c->mem_mb = mem;
	snprintf(c->mem, sizeof c->mem, "%u", mem);
	snprintf(c->object, sizeof c->object,
		 "memory-backend-file,id=ram0,size=%uM,mem-path=%s,share=on", mem, shm);
	add(c, "qemu-system-x86_64");
	/* several CPUs: a host thread each, unless -icount (one thread) */
	add(c, "-accel"), add(c, o->cpus > 1 && !icount ? "tcg,thread=multi" : "tcg");
	/* MACHTRACE_ICOUNT=shift=N: the guest clock (and rdtsc) follows the
	   instructions executed, so cycle counts are repeatable (benchmarks) */
	if (icount)
		add(c, "-icount"), add(c, icount);
	add(c, "-display"), add(c, "none");
	add(c, "-vga"), add(c, "none");
	add(c, "-no-reboot");
	add(c, "-monitor"), add(c, "none");
	add(c, "-serial"), add(c, "stdio");
	add(c, "-m"), add(c, c->mem);
	if (o->cpus > 1) {
		snprintf(c->smp, sizeof c->smp, "%u", o->cpus);
		add(c, "-smp"), add(c, c->smp);
	}
	add(c, "-object"), add(c, c->object);
	add(c, "-machine"), add(c, "pc,memory-backend=ram0");
	add(c, "-kernel"), add(c, c->shim);
	if (o->reserve_size) {
		snprintf(c->append, sizeof c->append, "reserve=0x%" PRIx64 ":0x%" PRIx64 "%s",
			 o->reserve_pa, o->reserve_size, o->reserve_fill ? " reserve-fill" : "");
		add(c, "-append"), add(c, c->append);
	}
	add(c, "-initrd"), add(c, c->initrd);
	if (o->disk) {
		char file[2 * PATH_MAX];
		size_t n = 0;

		if (readable(o->disk, "disk image", err, errlen) < 0)
			return -1;
		for (const char *s = o->disk; *s && n + 3 < sizeof file; s++) {
			if (*s == ',')          /* QEMU's option syntax: ",," is a comma */
				file[n++] = ',';
			file[n++] = *s;
		}
		file[n] = 0;
		if (snprintf(c->drive, sizeof c->drive,
			     "file=%s,format=raw,if=ide,index=0,media=disk%s", file,
			     o->disk_snapshot ? ",snapshot=on" : "") >= (int)sizeof c->drive) {
			mt_seterr(err, errlen, "disk image path too long");
			return -1;
		}
		add(c, "-drive"), add(c, c->drive);
	}
	return 0;
}
