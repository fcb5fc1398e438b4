/* Internals of the persistent VMs (targets/mach/vm/). */
#ifndef TARGET_VM_INT_H
#define TARGET_VM_INT_H

#include <stddef.h>
#include <sys/types.h>

#include "machtrace/vm.h"

/* state.c */
int vm_init(struct mt_vm *vm, const char *name, char *err, size_t errlen);
int vm_mkdirs(const char *dir);
pid_t vm_read_pid(const char *path);
int vm_qemu_alive(pid_t pid, const char *shm);
int vm_read_info(struct mt_vm *vm);
void vm_remove_state(const struct mt_vm *vm);

#endif
