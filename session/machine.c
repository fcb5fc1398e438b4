/*
 * The machine a session traces (struct mt_session_machine): a running VM
 * (--vm, $MACHTRACE_VM) or a fresh boot, of the machine options or of a
 * disk image (disk.c), as the kernel target's options.
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/disk.h"
#include "machtrace/session.h"
#include "machtrace/vm.h"

int
mt_session_whole_arg(const char *s, long *v)
{
	char *end;

	*v = strtol(s, &end, 10);
	return *s == '\0' || *end || *v <= 0 || *v > MT_SESSION_MAX_SECONDS ? -1 : 0;
}

/*
 * --vm NAME, or $MACHTRACE_VM (the same): a session on
 * that running VM, whose kernel and boot modules are fixed (--kernel,
 * --module, --workload and -c, which boot one, do not go with it).
 * Without either, machtrace boots a fresh kernel as always.
 */
int
mt_session_machine_vm(struct mt_session_machine *m, FILE *err)
{
	const char *env = getenv("MACHTRACE_VM");
	struct mt_vm vm;
	char msg[512];

	if (!m->vm && env && *env) {
		m->vm = env;
		m->force = 1;
	}
	if (!m->vm)
		return 0;
	if (m->cmd_c || m->mach.kernel || m->mach.nmodules || m->mach.workload ||
	    m->mach.mem_mb || m->mach.cpus || m->disk) {
		fprintf(err, "machtrace: vm %s: %s boots a kernel; a VM's kernel and "
			"modules are fixed at vm start (-p PID names one of its tasks)\n",
			m->vm, m->cmd_c ? "-c" : m->disk ? "--disk" : m->mach.kernel ?
			"--kernel" : m->mach.nmodules ? "--module" : m->mach.workload ?
			"--workload" : m->mach.mem_mb ? "--memory" : "--cpus");
		return -1;
	}
	if (mt_vm_find(m->vm, &vm, msg, sizeof msg) < 0) {
		fprintf(err, "machtrace: vm: %s\n", msg);
		return -1;
	}
	free(m->vm_kernel);
	if ((m->vm_kernel = strdup(vm.kernel)) == NULL) {
		fprintf(err, "machtrace: vm: out of memory\n");
		return -1;
	}
	m->mach.kernel = m->vm_kernel;
	return 0;
}

void
mt_session_machine_free(struct mt_session_machine *m)
{
	if (m->plan)
		mt_disk_plan_free(m->plan);
	free(m->plan);
	m->plan = NULL;
	free((char *)m->disk_entry);
	m->disk_entry = NULL;
	free(m->vm_kernel);
	m->vm_kernel = NULL;
}

void
mt_session_machine_live(const struct mt_session_machine *m, struct mt_live_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->kernel = m->mach.kernel;
	lo->kernel_args = m->kernel_args;
	lo->disk = m->disk;
	lo->disk_snapshot = m->disk_snapshot;
	for (int i = 0; i < m->mach.nmodules; i++)
		lo->modules[i] = m->mach.modules[i];
	lo->nmodules = m->mach.nmodules;
	lo->workload = m->mach.workload;
	lo->timeout_ms = m->mach.timeout_ms;
	lo->mem_mb = m->mach.mem_mb;
	lo->cpus = m->mach.cpus;
	lo->console_log = getenv("MACHTRACE_CONSOLE_LOG");
	lo->console = getenv("MACHTRACE_CONSOLE") ? stderr : NULL;
	lo->text_check = getenv("MACHTRACE_TEXTCHECK") != NULL;
	lo->verbose = m->verbose;
	lo->vm = m->vm;
}
