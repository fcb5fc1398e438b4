/*
 * Persistent VMs (machtrace vm start/list/stop/console, machtrace --vm):
 * a GNU Mach guest whose QEMU outlives the command that started it, with
 * the runtime blob resident and idle (nothing patched) so that sessions
 * attach and detach.
 *
 * Everything of VM NAME lives in its state directory
 *   $XDG_RUNTIME_DIR/machtrace/vm/NAME  (else /tmp/machtrace-UID/vm/NAME),
 * private (0700, ours: anything else there is refused, see
 * targets/mach/vm/private.c):
 *   info         key=value lines (below), written once QEMU runs
 *   qemu.pid     QEMU's pid
 *   qmp.sock     QMP (quit, cont, query-status)
 *   gdb.sock     QEMU's gdbstub (sessions put the tick hook in through it)
 *   console.sock the serial console (vm console connects to it)
 *   console.log  everything the guest printed (QEMU's chardev logfile)
 *   session.lock flock()ed by the attached session (one at a time)
 *   session.pid  that session's pid, while it is attached
 * and its guest RAM is the file /dev/shm/machtrace-vm-UID-NAME.XXXXXX
 * (a random suffix; info's shm=; offset = guest physical address), which
 * sessions map.
 */
#ifndef MACHTRACE_VM_H
#define MACHTRACE_VM_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "machtrace/mach.h"

#define MT_VM_NAME_MAX	32
#define MT_VM_DEFAULT	"default"

struct mt_vm {
	char name[MT_VM_NAME_MAX + 1];
	char dir[PATH_MAX - 64];	/* the state directory */
	char shm[PATH_MAX];		/* the guest RAM file (its prefix
					   until read from info) */
	pid_t qemu_pid;			/* 0 when unknown */
	/* from the info file */
	char kernel[PATH_MAX];
	char modules[8192];		/* the boot modules (not the blob), '\n' separated */
	unsigned mem_mb;
	unsigned cpus;			/* guest CPUs (vm start --cpus); 0 in an
					   info file from before it was kept: 1 */
	uint64_t resv_pa, resv_size;
	char blob_id[72];		/* hash of the blob file it was booted with */
	double started;			/* wall clock seconds */
	char disk_dir[PATH_MAX / 2];	/* --disk: the kernel and modules taken out
					   of the image (removed with the VM) */
};

struct mt_vm_opts {
	const char *name;		/* NULL: MT_VM_DEFAULT */
	const char *kernel;		/* NULL: the stock kernel */
	const char *kernel_args;	/* NULL: "console=com0" */
	const char *modules[MT_USER_MAX_MODULES];	/* "PATH args"; none: machload serve */
	int nmodules;
	const char *workload;		/* machload's words (serve added) */
	const char *disk;		/* a Hurd-style disk image: its grub.cfg's
					   kernel and modules boot, it is IDE disk 0 */
	int disk_snapshot;		/* the guest's writes to it are not kept */
	unsigned mem_mb;		/* 0: 256, 512 with cpus > 1 */
	unsigned cpus;			/* 0: 1 */
	unsigned timeout_ms;		/* boot limit, 0: 60 s */
	const char *blob;		/* NULL: $BUILD/live/blob.bin */
};
#define MT_VM_MEM_MB	256

/*
 * Boot VM o->name: QEMU daemonized (it outlives us), the runtime blob
 * loaded and answered LK_CMD_SKIP at its boot hook (resident, idle,
 * nothing patched); returns once the workload printed its start marker
 * ("machload: start", without modules of the user's) or the blob let the
 * kernel go on (with them).  *vm filled.  -1 with err (QEMU's message, the
 * kernel's panic line), nothing left behind.
 */
int mt_vm_start(const struct mt_vm_opts *o, struct mt_vm *vm, char *err, size_t errlen);
/* Quit VM name's QEMU (QMP quit, then SIGKILL), remove its RAM file and
   state directory.  Refuses (-1, err) while a session is attached. */
int mt_vm_stop(const char *name, char *err, size_t errlen);

/* Map the VM's guest RAM (mem_mb MiB, shared); NULL with err. */
void *mt_vm_map_ram(const struct mt_vm *vm, size_t *size, char *err, size_t errlen);

/* Is name a valid VM name ([A-Za-z0-9_.-]{1,32}, not starting with '.')? */
int mt_vm_name_ok(const char *name);
/* The state directory of VM name (whether or not it exists). */
int mt_vm_dir(const char *name, char *buf, size_t len);
/* A file of VM name's state directory ("gdb.sock", ...) into buf. */
int mt_vm_path(const struct mt_vm *vm, const char *file, char *buf, size_t len);
/* The guest RAM file of VM name, without its random suffix. */
int mt_vm_shm(const char *name, char *buf, size_t len);

/*
 * The running VM name: 0 and *vm filled; -1 with err ("no VM named N")
 * when it has no state directory, its QEMU is gone (the stale state is
 * then removed), its info is unreadable or its state is not private;
 * -2 with err while it is being started or stopped.
 */
int mt_vm_find(const char *name, struct mt_vm *vm, char *err, size_t errlen);

/* The VMs' names with a state directory (malloc'd array of malloc'd
   strings, sorted); *n gets the count.  NULL with n = 0 when none, with
   n = -1 and err when the state root is not private. */
char **mt_vm_names(int *n, char *err, size_t errlen);
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

/*
 * Write guest memory through QEMU's gdbstub (TCG then drops translated
 * code of those bytes, which writes through the RAM file do not make it
 * do).  The VM is stopped for the writes and runs again after.  pa:
 * guest physical addresses; kva_base: the kernel VA of physical 0, used
 * when the stub has no physical mode.  -1 with err.
 */
struct mt_vm_poke {
	uint64_t pa;
	const uint8_t *bytes;
	uint32_t len;
};
int mt_vm_gdb_write(const struct mt_vm *vm, const struct mt_vm_poke *p, int n,
		    uint64_t kva_base, char *err, size_t errlen);

/* The VM's run state from QMP ("running", "paused", ...), NULL if QMP
   does not answer; mt_vm_cont resumes a paused VM (0, or -1 with err). */
const char *mt_vm_status(const struct mt_vm *vm, char *buf, size_t len);
int mt_vm_cont(const struct mt_vm *vm, char *err, size_t errlen);

/*
 * Following the VM's console.log: new complete lines are copied to echo
 * (if any) and scanned as the launcher scans a console (a panic line, the
 * KDB prompt, the marker).  from_end: only what comes after now.
 */
struct mt_vm_log {
	int fd;
	FILE *echo, *copy;		/* new lines go to both (NULL: not) */
	const char *marker;		/* a line containing it sets seen_marker */
	int seen_marker;
	int kdb;			/* the log ends at the KDB prompt */
	char panic[256];		/* the last panic / debugger / trap line */
	char shim[256];			/* "shim: error: ..." (the shim halted) */
	char line[4096];
	size_t used;
};
int mt_vm_log_open(const struct mt_vm *vm, struct mt_vm_log *l, int from_end);
/* Read what is new; 1 if the log ends at the KDB prompt (the kernel waits
   in its debugger). */
int mt_vm_log_poll(struct mt_vm_log *l);
void mt_vm_log_close(struct mt_vm_log *l);

#endif /* MACHTRACE_VM_H */
