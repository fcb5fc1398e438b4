/*
 * machtrace vm stop: QMP quit (QEMU exits, the guest with it), SIGKILL
 * if it lingers, then the RAM file and the state directory go.  A VM with
 * an attached session is not stopped: the session would lose its kernel
 * under it (end the session first).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "machtrace/vm.h"
#include "targets/mach/mach_int.h"
#include "targets/mach/vm/vm_int.h"

#define QUIT_MS		5000

static int gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* Wait for pid to be gone (not our child: poll), at most ms. */
static int wait_gone(pid_t pid, int ms)
{
	for (int t = 0; t < ms; t += 10) {
		if (gone(pid))
			return 0;
		usleep(10000);
	}
	return gone(pid) ? 0 : -1;
}

void vm_kill(const struct mt_vm *vm)
{
	char ans[256], err[256];

	if (vm->qemu_pid <= 0 || gone(vm->qemu_pid))
		return;
	vm_qmp(vm, "quit", ans, sizeof ans, err, sizeof err);
	if (wait_gone(vm->qemu_pid, QUIT_MS) == 0)
		return;
	if (vm_qemu_alive(vm->qemu_pid, vm->shm))
		kill(vm->qemu_pid, SIGKILL);
	wait_gone(vm->qemu_pid, QUIT_MS);
}

int mt_vm_stop(const char *name, char *err, size_t errlen)
{
	struct mt_vm vm;
	pid_t s;
	int lk, rc = -1;

	if (vm_take(name, &vm, VM_STOP, &lk, err, errlen) != 0)
		goto out;
	if ((s = mt_vm_session_pid(&vm)) != 0) {
		mt_seterr(err, errlen, "vm %s: a session (pid %d) is attached; end it first",
			  name, (int)s);
		goto out;
	}
	vm_kill(&vm);
	if (!gone(vm.qemu_pid)) {
		mt_seterr(err, errlen, "vm %s: QEMU (pid %d) does not end", name,
			  (int)vm.qemu_pid);
		goto out;
	}
	vm_remove_state(&vm);
	rc = 0;
out:
	vm_unlock(&vm, lk);
	return rc;
}
