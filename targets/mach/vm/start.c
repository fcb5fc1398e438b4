/*
 * machtrace vm start: a GNU Mach guest that outlives the command.
 *
 * QEMU runs daemonized (-daemonize: it detaches from us and from our
 * session, and reports its start-up errors before its parent exits) with
 *   - guest RAM in the file /dev/shm/machtrace-vm-UID-NAME.XXXXXX (shared;
 *     a random suffix nobody can take first), which sessions map (offset =
 *     guest physical address);
 *   - the serial console on a socket chardev with a logfile: `vm console`
 *     connects to console.sock, console.log keeps everything;
 *   - QMP on qmp.sock, the gdbstub on gdb.sock;
 *   - the runtime blob as the last boot module with the reserved region,
 *     as a boot session has it.
 * At its boot hook the blob waits for the host: we answer LK_CMD_SKIP, so
 * the kernel boots with nothing patched and the blob stays resident and
 * idle until a session attaches (live/vmattach.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/disk.h"
#include "machtrace/kimg.h"
#include "machtrace/lkabi.h"
#include "machtrace/mach.h"
#include "machtrace/machopt.h"
#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/qemu/boot_int.h"
#include "targets/mach/vm/vm_int.h"

#define VM_MAX_ARGS	72

struct vm_boot {
	struct mt_vm *vm;
	char *argv[VM_MAX_ARGS];
	int argc;
	char con[2 * PATH_MAX + 128], gdb[PATH_MAX + 64], qmp[PATH_MAX + 64];
	char pidfile[PATH_MAX], errfile[PATH_MAX], name[64];
	char machload[8400], blob[PATH_MAX];
	struct qemu_cmd cmd;
	struct mt_disk_plan plan;	/* --disk */
};

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add(struct vm_boot *b, const char *a)
{
	if (b->argc < VM_MAX_ARGS - 1)
		b->argv[b->argc++] = (char *)a;
	b->argv[b->argc] = NULL;
}

/* machload with serve: the default workload of a VM. */
static void default_module(struct vm_boot *b, const char *words)
{
	char build[PATH_MAX];
	int has_serve = 0;

	for (const char *p = words; p && *p; ) {
		p += strspn(p, " \t");
		if (strncmp(p, "serve", 5) == 0 && (p[5] == 0 || p[5] == '=' || p[5] == ' '))
			has_serve = 1;
		p += strcspn(p, " \t");
	}
	snprintf(b->machload, sizeof b->machload,
		 "%s/guest/machload ${host-port} ${device-port}%s%s%s $(task-create) "
		 "$(task-resume)", mt_build_dir(build, sizeof build),
		 words && *words ? " " : "", words ? words : "", has_serve ? "" : " serve");
}

/* The boot's QEMU command line: the launcher's, with our chardevs. */
static int vm_cmdline(const struct mt_vm_opts *o, struct vm_boot *b, char *err, size_t errlen)
{
	struct mt_boot_opts bo;
	char build[PATH_MAX];
	int n = 0;

	memset(&bo, 0, sizeof bo);
	bo.kernel = o->kernel;
	bo.kernel_args = o->kernel_args;
	if (o->disk) {
		if (mt_disk_plan(o->disk, &b->plan, err, errlen) < 0)
			return -1;
		/* as realpath() says: removal checks the two are the same */
		snprintf(b->vm->disk_dir, sizeof b->vm->disk_dir, "%.*s",
			 (int)sizeof b->vm->disk_dir - 1,
			 realpath(b->plan.dir, build) ? build : b->plan.dir);
		mt_disk_boot_opts(&b->plan, &bo);
		bo.disk_snapshot = o->disk_snapshot;
		n = bo.nmodules;
	} else if (o->nmodules == 0) {
		default_module(b, o->workload);
		bo.modules[n++] = b->machload;
	}
	for (int i = 0; i < o->nmodules && n < MT_BOOT_MAX_MODULES - 1; i++)
		bo.modules[n++] = o->modules[i];
	for (int i = 0; i < n; i++)	/* the info file's module= lines */
		snprintf(b->vm->modules + strlen(b->vm->modules),
			 sizeof b->vm->modules - strlen(b->vm->modules), "%s%s",
			 i ? "\n" : "", bo.modules[i]);
	if (o->blob)
		snprintf(b->blob, sizeof b->blob, "%s", o->blob);
	else
		snprintf(b->blob, sizeof b->blob, "%s/live/blob.bin",
			 mt_build_dir(build, sizeof build));
	bo.modules[n++] = b->blob;
	bo.nmodules = n;
	bo.mem_mb = b->vm->mem_mb;
	bo.cpus = o->cpus;
	bo.reserve_pa = LK_RESV_PA;
	bo.reserve_size = LK_RESV_SIZE;
	if (mt_qemu_cmd(&bo, b->vm->shm, &b->cmd, err, errlen) < 0 ||
	    mt_kernel_boot_check(b->cmd.kernel, b->blob, o->cpus, err, errlen) < 0)
		return -1;
	for (int i = 0; i < b->cmd.argc; i++) {
		if (i > 0 && strcmp(b->cmd.argv[i - 1], "-serial") == 0)
			add(b, "chardev:con0");
		else
			add(b, b->cmd.argv[i]);
	}
	mt_vm_path(b->vm, "qemu.pid", b->pidfile, sizeof b->pidfile);
	mt_vm_path(b->vm, "qemu.err", b->errfile, sizeof b->errfile);
	snprintf(b->con, sizeof b->con, "socket,id=con0,path=%s/console.sock,server=on,"
		 "wait=off,logfile=%s/console.log", b->vm->dir, b->vm->dir);
	snprintf(b->gdb, sizeof b->gdb, "socket,id=gdb0,path=%s/gdb.sock,server=on,wait=off",
		 b->vm->dir);
	snprintf(b->qmp, sizeof b->qmp, "unix:%s/qmp.sock,server=on,wait=off", b->vm->dir);
	snprintf(b->name, sizeof b->name, "machtrace-vm-%s", b->vm->name);
	add(b, "-chardev"), add(b, b->con);
	add(b, "-chardev"), add(b, b->gdb);
	add(b, "-gdb"), add(b, "chardev:gdb0");
	add(b, "-qmp"), add(b, b->qmp);
	add(b, "-name"), add(b, b->name);
	add(b, "-pidfile"), add(b, b->pidfile);
	add(b, "-daemonize");
	snprintf(b->vm->kernel, sizeof b->vm->kernel, "%s", b->cmd.kernel);
	b->vm->mem_mb = b->cmd.mem_mb;
	return 0;
}

/* Run QEMU; it daemonizes, its parent's status says whether it started. */
static int spawn(struct vm_boot *b, char *err, size_t errlen)
{
	int st;
	pid_t pid = fork();

	if (pid < 0) {
		mt_seterr(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY), out = open(b->errfile,
			O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		for (int fd = 3; fd < 1024; fd++)	/* no lock of the caller's */
			close(fd);
		setsid();
		execvp(b->argv[0], b->argv);
		fprintf(stderr, "cannot run %s: %s (install qemu-system-x86)\n", b->argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	{
		char msg[512] = "";
		FILE *f = fopen(b->errfile, "r");
		if (f) {
			size_t n = fread(msg, 1, sizeof msg - 1, f);
			msg[n] = 0;
			fclose(f);
		}
		msg[strcspn(msg, "\n")] = 0;
		mt_seterr(err, errlen, "QEMU failed to start: %s", msg[0] ? msg :
			  "(no message)");
	}
	return -1;
}

/* Written before QEMU runs: a VM without info is one whose start died. */
static int write_info(const struct mt_vm *vm, const struct vm_boot *b, char *err,
		      size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	mt_vm_path(vm, "info", path, sizeof path);
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	if (!(f = fopen(tmp, "wxe"))) {
		mt_seterr(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "name=%s\nkernel=%s\nshm=%s\n", vm->name, vm->kernel, vm->shm);
	for (const char *m = vm->modules; *m; ) {
		size_t n = strcspn(m, "\n");
		fprintf(f, "module=%.*s\n", (int)n, m);
		m += n + (m[n] == '\n');
	}
	fprintf(f, "memory=%u\ncpus=%u\nresv_pa=0x%llx\n"
		"resv_size=0x%llx\nblob=%s\nblob_id=%s\nstarted=%.3f\ndisk_dir=%s\n", vm->mem_mb,
		vm->cpus, (unsigned long long)vm->resv_pa,
		(unsigned long long)vm->resv_size, b->blob, vm->blob_id, vm->started, vm->disk_dir);
	if (fclose(f) != 0 || rename(tmp, path) < 0) {
		mt_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int mt_vm_start(const struct mt_vm_opts *o, struct mt_vm *vm, char *err, size_t errlen)
{
	const char *name = o->name ? o->name : MT_VM_DEFAULT;
	struct vm_boot *b = NULL;
	char kept[PATH_MAX];
	int rc = -1, lk, r;

	r = vm_take(name, vm, VM_START, &lk, err, errlen);
	if (r == 0)
		mt_seterr(err, errlen, "vm %s is already running (QEMU pid %d); machtrace vm "
			  "stop %s first", vm->name, (int)vm->qemu_pid, vm->name);
	if (r != 1 || vm_init(vm, name, err, errlen) < 0)
		goto out;
	if (!(b = calloc(1, sizeof *b))) {
		mt_seterr(err, errlen, "out of memory");
		goto out;
	}
	b->vm = vm;
	if (vm_private_tree(vm->dir, 1, err, errlen) < 0)
		goto out;
	vm->cpus = o->cpus ? o->cpus : 1;
	vm->mem_mb = o->mem_mb ? o->mem_mb : vm->cpus > 1 ? MT_MOPT_SMP_MEM_MIN : MT_VM_MEM_MB;
	if (vm_make_ram(vm, vm->mem_mb, err, errlen) < 0 || vm_cmdline(o, b, err, errlen) < 0)
		goto fail;
	vm->resv_pa = LK_RESV_PA;
	vm->resv_size = LK_RESV_SIZE;
	if (mt_vm_file_id(b->blob, vm->blob_id, sizeof vm->blob_id) < 0) {
		mt_seterr(err, errlen, "runtime blob %s: %s (run make)", b->blob, strerror(errno));
		goto fail;
	}
	vm->started = wall();
	if (write_info(vm, b, err, errlen) < 0 || spawn(b, err, errlen) < 0)
		goto fail;
	vm->qemu_pid = vm_read_pid(b->pidfile);
	if (vm_boot_wait(vm, o, err, errlen) < 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	if (vm->qemu_pid > 0)
		vm_kill(vm);
	vm_keep_console(vm, kept, sizeof kept);
	if (kept[0] && strlen(err) + strlen(kept) + 24 < errlen)
		snprintf(err + strlen(err), errlen - strlen(err), " (console log: %s)", kept);
	vm_remove_state(vm);
	mt_disk_plan_free(&b->plan);
out:
	vm_unlock(vm, lk);
	free(b);
	return rc;
}
