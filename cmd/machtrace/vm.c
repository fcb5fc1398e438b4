/*
 * machtrace vm start|list|stop|console: persistent VMs (docs/vm.md).
 *
 *   vm start [--name N] [--kernel F] [--module 'PATH args']... [--disk IMAGE]
 *            [--workload WORDS] [--memory MIB] [--timeout SEC]
 *   vm list
 *   vm stop [N]
 *   vm console [--no-follow] [N]
 *
 * Messages start "machtrace: vm"; every error exits 1, a usage error 2.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/machtrace/cli.h"
#include "machtrace/live.h"
#include "machtrace/mach.h"
#include "machtrace/vm.h"

static int vm_usage(void)
{
	fprintf(stderr, "usage: machtrace vm start [--name N] [--kernel FILE] "
		"[--module 'PATH args']... [--disk IMAGE [--snapshot]] [--workload WORDS] "
		"[--memory MIB] [--timeout SEC]\n"
		"       machtrace vm list\n"
		"       machtrace vm stop [NAME]\n"
		"       machtrace vm console [--no-follow] [NAME]\n");
	return E_USAGE;
}

/* "--opt V" or "--opt=V" at argv[*i]: the value, NULL if not this option. */
static const char *opt_val(int argc, char **argv, int *i, const char *opt, int *bad)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		fprintf(stderr, "machtrace: vm: option %s needs a value\n", opt);
		*bad = 1;
		return NULL;
	}
	return argv[++*i];
}

static int start_opts(int argc, char **argv, struct mt_vm_opts *o)
{
	struct mt_mopts m = { 0 };
	char err[512];
	const char *v;
	int bad = 0;

	if (mt_mopt_extract(&m, &argc, argv, err, sizeof err) != 0) {
		fprintf(stderr, "machtrace: vm start: %s\n", err);
		return -1;
	}
	o->kernel = m.kernel;
	memcpy(o->modules, m.modules, sizeof m.modules);
	o->nmodules = m.nmodules;
	o->workload = m.workload;
	o->timeout_ms = m.timeout_ms;
	o->mem_mb = m.mem_mb;
	o->cpus = m.cpus;
	for (int i = 1; i < argc; i++) {
		if ((v = opt_val(argc, argv, &i, "--name", &bad)))
			o->name = v;
		else if ((v = opt_val(argc, argv, &i, "--disk", &bad)))
			o->disk = v;
		else if (strcmp(argv[i], "--snapshot") == 0)
			o->disk_snapshot = 1;
		else {
			if (!bad)
				fprintf(stderr, "machtrace: vm start: unknown argument %s\n", argv[i]);
			return -1;
		}
		if (bad)
			return -1;
	}
	if (o->disk && (o->kernel || o->nmodules || o->workload)) {
		fprintf(stderr, "machtrace: vm start: --disk boots the kernel and modules its "
			"grub.cfg names: it does not go with %s\n", o->kernel ? "--kernel" :
			o->nmodules ? "--module" : "--workload");
		return -1;
	}
	if (o->disk_snapshot && !o->disk) {
		fprintf(stderr, "machtrace: vm start: --snapshot goes with --disk IMAGE\n");
		return -1;
	}
	if (o->workload && o->nmodules) {
		fprintf(stderr, "machtrace: vm start: --workload gives machload's words; "
			"with --module machload is not booted\n");
		return -1;
	}
	return 0;
}

static int vm_start(int argc, char **argv)
{
	struct mt_vm_opts o;
	struct mt_vm vm;
	char err[1024];
	uint64_t where, len;
	int d;

	memset(&o, 0, sizeof o);
	if (start_opts(argc, argv, &o) < 0)
		return E_USAGE;
	if (mt_vm_start(&o, &vm, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: vm start: %s\n", err);
		return E_ERROR;
	}
	d = mt_mach_kind.text_check(vm.shm, vm.kernel, &where, &len, err, sizeof err);
	if (d != 0) {
		fprintf(stderr, "machtrace: vm %s: %s; stopping it\n", vm.name, d < 0 ? err :
			"kernel text DIFFERS from the image");
		mt_vm_stop(vm.name, err, sizeof err);
		return E_ERROR;
	}
	printf("machtrace: vm %s running (QEMU pid %d, %u MiB); kernel text identical to "
	       "the image (%llu bytes)\n", vm.name, (int)vm.qemu_pid, vm.mem_mb,
	       (unsigned long long)len);
	return E_SUCCESS;
}

/* running, paused, panicked (KDB prompt in the log) or unknown. */
static const char *vm_state(const struct mt_vm *vm, char *buf, size_t len)
{
	struct mt_vm_log log;
	int kdb = 0;

	if (mt_vm_log_open(vm, &log, 0) == 0) {
		kdb = mt_vm_log_poll(&log);
		mt_vm_log_close(&log);
	}
	if (kdb)
		return "panicked-in-KDB";
	return mt_vm_status(vm, buf, len) ? buf : "unknown";
}

static void uptime(double started, char *buf, size_t len)
{
	struct timespec ts;
	long s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (long)(ts.tv_sec - started);
	if (s < 0)
		s = 0;
	snprintf(buf, len, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

static int vm_list(void)
{
	int n;
	char err[512], **names = mt_vm_names(&n, err, sizeof err), st[64], up[32], sess[32];

	if (n < 0) {
		fprintf(stderr, "machtrace: vm list: %s\n", err);
		return E_ERROR;
	}
	printf("%-16s %-16s %8s %10s %8s  %s\n", "NAME", "STATE", "QEMU", "UPTIME",
	       "SESSION", "KERNEL");
	for (int i = 0; i < n; i++) {
		struct mt_vm vm;
		pid_t s;
		int r = mt_vm_find(names[i], &vm, err, sizeof err);
		if (r < 0) {
			printf("%-16s %-16s %8s %10s %8s  (%s)\n", names[i], r == -2 ? "starting" :
			       "dead", "-", "-", "-", r == -2 ? "starting or stopping" :
			       "removed: its QEMU is gone");
			continue;
		}
		s = mt_vm_session_pid(&vm);
		snprintf(sess, sizeof sess, s ? "%d" : "-", (int)s);
		uptime(vm.started, up, sizeof up);
		printf("%-16s %-16s %8d %10s %8s  %s\n", vm.name, vm_state(&vm, st, sizeof st),
		       (int)vm.qemu_pid, up, sess, vm.kernel);
	}
	mt_vm_names_free(names, n);
	return E_SUCCESS;
}

static int vm_stop(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : MT_VM_DEFAULT;
	char err[512];

	if (argc > 2)
		return vm_usage();
	if (mt_vm_stop(name, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: vm stop: %s\n", err);
		return E_ERROR;
	}
	printf("machtrace: vm %s stopped\n", name);
	return E_SUCCESS;
}



static int vm_console(int argc, char **argv)
{
	const char *name = MT_VM_DEFAULT;
	struct mt_vm vm;
	char err[512];
	int follow = 1;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-follow") == 0)
			follow = 0;
		else if (argv[i][0] == '-')
			return vm_usage();
		else
			name = argv[i];
	}
	if (mt_vm_find(name, &vm, err, sizeof err) < 0) {
		fprintf(stderr, "machtrace: vm console: %s\n", err);
		return E_ERROR;
	}
	return cli_vm_console(&vm, follow);
}

int cli_vm_main(int argc, char **argv)
{
	if (argc < 2)
		return vm_usage();
	if (strcmp(argv[1], "start") == 0)
		return vm_start(argc - 1, argv + 1);
	if (strcmp(argv[1], "list") == 0)
		return argc == 2 ? vm_list() : vm_usage();
	if (strcmp(argv[1], "stop") == 0)
		return vm_stop(argc - 1, argv + 1);
	if (strcmp(argv[1], "console") == 0)
		return vm_console(argc - 1, argv + 1);
	return vm_usage();
}
