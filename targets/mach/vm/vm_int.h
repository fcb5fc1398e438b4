/* Internals of the persistent VMs (targets/mach/vm/). */
#ifndef TARGET_VM_INT_H
#define TARGET_VM_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "machtrace/vm.h"

/* state.c */
int vm_init(struct mt_vm *vm, const char *name, char *err, size_t errlen);
/* VM name's start lock taken (how) and its state examined: 0 it runs
   (*vm filled), 1 it does not (err; a dead VM's state removed), -1 its
   state is not private, -2 busy (err).  *lk: the lock, or -1, for
   vm_unlock. */
int vm_take(const char *name, struct mt_vm *vm, int how, int *lk, char *err, size_t errlen);
pid_t vm_read_pid(const char *path);
int vm_qemu_alive(pid_t pid, const char *shm);
void vm_remove_state(const struct mt_vm *vm);
void vm_keep_console(const struct mt_vm *vm, char *out, size_t len);

/* private.c: the state root ($XDG_RUNTIME_DIR/machtrace/vm or
   /tmp/machtrace-UID/vm; *base: the length of what machtrace does not
   make), private directories (0; 1 absent unless create; -1 refused with
   err), the start lock (VM_LOOK: shared, -2 if held exclusively; VM_STOP,
   VM_START: exclusive, waits; VM_START makes the root), files of ours,
   the RAM file. */
int vm_root(char *buf, size_t len, size_t *base);
int vm_private_tree(const char *path, int create, char *err, size_t errlen);
enum { VM_LOOK, VM_STOP, VM_START };
int vm_lock(const struct mt_vm *vm, int how, char *err, size_t errlen);
void vm_unlock(const struct mt_vm *vm, int fd);
int vm_owned(const char *path, int dir);
int vm_make_ram(struct mt_vm *vm, unsigned mem_mb, char *err, size_t errlen);
int vm_open_ram(const struct mt_vm *vm, size_t size, char *err, size_t errlen);

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
