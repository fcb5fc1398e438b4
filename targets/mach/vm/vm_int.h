/* Internals of the persistent VMs (targets/mach/vm/). */
#ifndef TARGET_VM_INT_H
#define TARGET_VM_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "machtrace/vm.h"

/* state.c */
int vm_init(struct mt_vm *vm, const char *name, char *err, size_t errlen);
pid_t vm_read_pid(const char *path);
int vm_qemu_alive(pid_t pid, const char *shm);
void vm_remove_state(const struct mt_vm *vm);
void vm_keep_console(const struct mt_vm *vm, char *out, size_t len);



/* sock.c */
int vm_sock_connect(const char *path, char *err, size_t errlen);
ssize_t vm_sock_read(int fd, void *buf, size_t n, int ms);

/* qmp.c: run one QMP command ("quit", "cont", "query-status"); its answer
   line in ans.  -1 with err when QMP does not answer or says error. */
int vm_qmp(const struct mt_vm *vm, const char *cmd, char *ans, size_t len,
	   char *err, size_t errlen);
/* bootwait.c */
struct mt_vm_opts;
int vm_boot_wait(const struct mt_vm *vm, const struct mt_vm_opts *o, char *err,
		 size_t errlen);
/* stop.c: QMP quit, then SIGKILL; returns when QEMU is gone (or 10 s) */
void vm_kill(const struct mt_vm *vm);

#endif
