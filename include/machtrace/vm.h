/*
 * Persistent VMs (machtrace vm start/list/stop/console, machtrace --vm):
 * a GNU Mach guest whose QEMU outlives the command that started it, with
 * the runtime blob resident and idle (nothing patched) so that sessions
 * attach and detach.
 *
 * Everything of VM NAME lives in its state directory
 *   $XDG_RUNTIME_DIR/machtrace/vm/NAME  (else /tmp/machtrace-UID/vm/NAME):
 *   info         key=value lines (below), written once QEMU runs
 *   qemu.pid     QEMU's pid
 *   qmp.sock     QMP (quit, cont, query-status)
 *   gdb.sock     QEMU's gdbstub (sessions put the tick hook in through it)
 *   console.sock the serial console (vm console connects to it)
 *   console.log  everything the guest printed (QEMU's chardev logfile)
 *   session.lock flock()ed by the attached session (one at a time)
 *   session.pid  that session's pid, while it is attached
 * and its guest RAM is the file /dev/shm/machtrace-vm-UID-NAME (offset =
 * guest physical address), which sessions map.
 */
#ifndef MACHTRACE_VM_H
#define MACHTRACE_VM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MT_VM_NAME_MAX	32
#define MT_VM_DEFAULT	"default"

struct mt_vm {
	char name[MT_VM_NAME_MAX + 1];
	char dir[PATH_MAX - 64];	/* the state directory */
	char shm[PATH_MAX];		/* the guest RAM file */
	pid_t qemu_pid;			/* 0 when unknown */
	/* from the info file */
	char kernel[PATH_MAX];
	char modules[8192];		/* the module strings, ',' separated */
	unsigned mem_mb;
	uint64_t resv_pa, resv_size;
	char blob_id[72];		/* hash of the blob file it was booted with */
	double started;			/* wall clock seconds */
};

/* Is name a valid VM name ([A-Za-z0-9_.-]{1,32}, not starting with '.')? */
int mt_vm_name_ok(const char *name);
/* The state directory of VM name (whether or not it exists). */
int mt_vm_dir(const char *name, char *buf, size_t len);
/* A file of VM name's state directory ("gdb.sock", ...) into buf. */
int mt_vm_path(const struct mt_vm *vm, const char *file, char *buf, size_t len);
/* The guest RAM file of VM name. */
int mt_vm_shm(const char *name, char *buf, size_t len);

/*
 * The running VM name: 0 and *vm filled; -1 with err ("no VM named N")
 * when it has no state directory, its QEMU is gone (the stale state is
 * then removed) or its info is unreadable.
 */
int mt_vm_find(const char *name, struct mt_vm *vm, char *err, size_t errlen);

/* The VMs' names with a state directory (malloc'd array of malloc'd
   strings, sorted); *n gets the count.  NULL with n = 0 when none. */
char **mt_vm_names(int *n);
void mt_vm_names_free(char **names, int n);

/* Hash (hex) of a file's bytes, for blob identity; -1 if unreadable. */
int mt_vm_file_id(const char *path, char *buf, size_t len);

/*
 * The attached session: take the VM's session lock (non-blocking) and
 * record our pid; -1 with err naming the holder when another session is
 * attached.  *fd gets the lock (mt_vm_unlock closes it and removes the
 * pid file).  mt_vm_session_pid: the attached session's pid, 0 if none.
 */
int mt_vm_lock(const struct mt_vm *vm, int *fd, char *err, size_t errlen);
void mt_vm_unlock(const struct mt_vm *vm, int fd);
pid_t mt_vm_session_pid(const struct mt_vm *vm);

#endif /* MACHTRACE_VM_H */
