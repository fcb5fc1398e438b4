/*
 * -c and -p: the session's target task on GNU Mach.
 *
 * GNU Mach's tasks have no pids; machtrace numbers them in creation order
 * (runtime/kernel/kplat.c): kernel_task is 0 and the boot modules, created
 * first, are 1, 2, ... in boot order.  So -c 'PROGRAM ARGS' makes PROGRAM
 * the first boot module and $target 1; -p PID names a task by that number.
 * PROGRAM is machload (ARGS: its workload words) or the path of a static
 * ELF64 for GNU Mach, which gets machload's argument convention:
 * argv = {PATH, host port, device port, ARGS...}.  Tracing ends when the
 * target task is destroyed (the kernel's machine_task_terminate), as
 * dtrace's ends when its -c process exits; a workload that reboots the
 * machine ends it too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "cmd/machtrace/cli.h"
#include "machtrace/mach.h"
#include "machtrace/live.h"
#include "machtrace/lkabi.h"

int
cli_take_target(struct cli *cl, int opt, const char *arg)
{
	char *end;
	long long pid;

	if (cl->have_target) {
		fprintf(stderr, "dtrace: only one -c or -p target is supported\n");
		return -1;
	}
	if (opt == 'c') {
		if (arg[strspn(arg, " \t")] == '\0') {
			fprintf(stderr, "dtrace: -c needs a command\n");
			return -1;
		}
		cl->m.cmd_c = arg;
		pid = 1;
	} else {
		errno = 0;
		pid = strtoll(arg, &end, 10);
		if (errno || end == arg || *end || pid < 0 || pid > 0x7fffffff) {
			fprintf(stderr, "dtrace: invalid process ID: %s\n", arg);
			return -1;
		}
	}
	cl->have_target = 1;
	cl->target_pid = pid;
	cl->m.force = 1;
	return 0;
}

/* Is path a readable ELF64 file?  Says why not. */
static int
check_elf(const char *path)
{
	unsigned char h[5];
	int fd = open(path, O_RDONLY), ok;

	if (fd < 0) {
		fprintf(stderr, "dtrace: failed to execute %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	ok = read(fd, h, sizeof h) == sizeof h && memcmp(h, "\177ELF", 4) == 0 &&
	     h[4] == 2;
	close(fd);
	if (!ok)
		fprintf(stderr, "dtrace: failed to execute %s: not an ELF64 "
			"program for GNU Mach\n", path);
	return ok ? 0 : -1;
}

/*
 * Turn -c into the first boot module (before any --module).  Returns -1
 * after saying what is wrong.
 */
int
cli_target_module(struct cli *cl)
{
	const char *p, *args;
	char prog[4096], build[4096], err[256], *mod;
	size_t n;

	if (!cl->m.cmd_c)
		return 0;
	p = cl->m.cmd_c + strspn(cl->m.cmd_c, " \t");
	n = strcspn(p, " \t");
	args = p + n + strspn(p + n, " \t");
	if (n >= sizeof prog || cl->m.mach.nmodules >= MT_MOPT_MAX_MODULES) {
		if (n >= sizeof prog)
			fprintf(stderr, "dtrace: -c: command too long\n");
		else
			fprintf(stderr, "dtrace: -c: too many --module (-c is one "
				"too: at most %d in all)\n", MT_MOPT_MAX_MODULES);
		return -1;
	}
	memcpy(prog, p, n);
	prog[n] = '\0';
	if (strcmp(prog, "machload") == 0) {
		if (cl->m.mach.workload) {
			fprintf(stderr, "dtrace: -c 'machload WORDS' and "
				"--workload both give machload's words\n");
			return -1;
		}
		if (mt_workload_check(args, err, sizeof err) != 0) {
			fprintf(stderr, "dtrace: -c: %s\n", err);
			return -1;
		}
		snprintf(prog, sizeof prog, "%s/guest/machload",
			 mt_build_dir(build, sizeof build));
	}
	if (check_elf(prog) != 0)
		return -1;
	if (asprintf(&mod, "%s ${host-port} ${device-port}%s%s $(task-create) "
		     "$(task-resume)", prog, *args ? " " : "", args) < 0)
		return -1;
	memmove(&cl->m.mach.modules[1], &cl->m.mach.modules[0],
		cl->m.mach.nmodules * sizeof *cl->m.mach.modules);
	cl->m.mach.modules[0] = mod;
	cl->m.mach.nmodules++;
	return 0;
}

/*
 * After tracing: dtrace's "pid N has exited" when the target did; a target
 * that never ran is an error (1), as dtrace's failure to grab it.
 */
int
cli_target_report(const struct cli *cl, struct mt_target *t)
{
	int st = t->ops->pstate ? t->ops->pstate(t) : -1;

	if (!cl->have_target || st < 0)
		return 0;
	if (st == LK_TGT_EXITED)
		fprintf(stderr, "dtrace: pid %lld has exited\n", cl->target_pid);
	if (st != LK_TGT_UNSEEN)
		return 0;
	fprintf(stderr, "dtrace: failed to grab pid %lld: no such task ran "
		"while tracing\n", cl->target_pid);
	return 1;
}
