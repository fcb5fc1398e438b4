/* The launcher's internal state (boot.c) and QEMU command line (qemu_cmd.c). */
#ifndef TARGET_BOOT_INT_H
#define TARGET_BOOT_INT_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include "machtrace/mach.h"
#include "targets/mach/mach_int.h"

struct mt_boot {
	pid_t pid;                      /* QEMU, 0 once reaped */
	int fd;                         /* QEMU's stdout and stderr */
	FILE *echo, *log;
	char name[64];                  /* QEMU's -name: machtrace-PID-HEX */
	int ram_fd;                     /* guest RAM: a memfd, -1 if none */
	void *ram;
	size_t ram_size;
	double t0, deadline;            /* CLOCK_MONOTONIC seconds; deadline 0 = none */
	const char *marker;
	char line[4096];                /* console line being assembled */
	size_t used;
	struct mt_con_kdb kdb;          /* what KDB said */
	uint64_t kmsg_va, kmsg_size;    /* opts' or the image's; size 0: none */
	int console_up;                 /* the kernel printed a console line */
	char qemu_msg[256];             /* first "qemu-system..." message */
	struct sigaction old_sa[3];
	int caller_signals;             /* opts.caller_signals: no handlers of ours */
	int own_signals;                /* our handlers are installed */
	int done;
	struct mt_boot_result res;
};

#define QEMU_MAX_ARGS 40

/* The shim's string buffers: the kernel's command line and each module's
   string, NUL included. */
#define SHIM_STR_MAX MT_SHIM_STR_MAX

struct qemu_cmd {
	char *argv[QEMU_MAX_ARGS];
	int argc;
	unsigned mem_mb;
	char mem[32], smp[16], object[PATH_MAX + 128], append[96];
	char initrd[16384];
	char shim[PATH_MAX + 32], kernel[PATH_MAX], workload[8192];
	char drive[2 * PATH_MAX + 96];
};

int mt_qemu_cmd(const struct mt_boot_opts *o, const char *shm, struct qemu_cmd *c,
		char *err, size_t errlen);

#endif
