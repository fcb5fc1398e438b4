/*
 * machtrace's GNU Mach target: booting the kernel in QEMU with our shim and
 * workload, and the probe catalog of a kernel image.  The kernel image
 * reader itself is in <machtrace/kimg.h>.
 */
#ifndef MACHTRACE_MACH_H
#define MACHTRACE_MACH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "machtrace/bootlim.h"

/* ---- CLI entry points ---------------------------------------------------- */

/*
 * `machtrace boot ...` and `machtrace kernel-info ...`: argv[0] is the
 * subcommand.  Returns the process exit code: 0 when the guest rebooted by
 * itself, 1 for a usage error, 2 for a bad kernel or missing files,
 * 3 for a kernel panic or debugger stop, 4 for the time limit, 130 on
 * SIGINT/SIGTERM.  Messages go to stderr as "machtrace: ...".
 */
int mt_mach_main(int argc, char **argv);

/* 0 if every word of a machload workload is one it knows, else -1 + err. */
int mt_workload_check(const char *words, char *err, size_t len);
/* 0 if an -icount setting (MACHTRACE_ICOUNT, a baseline's) is shift=N,
   N 0 to 10, the only one machtrace gives QEMU; else -1 + err. */
int mt_icount_check(const char *icount, char *err, size_t len);

/* dtrace -lv's attribute lines of a kernel probe, up to "Argument Types". */
void mt_mach_print_attrs(FILE *out);

/* ---- paths --------------------------------------------------------------- */

/*
 * The directory holding boot/, guest/, live/ (and kernel/ in a build tree):
 * $MACHTRACE_BUILD, else PREFIX/lib/machtrace of an installed
 * PREFIX/bin/machtrace, else the build tree above the running executable
 * (build/bin/..), else "build".  Writes into buf; returns buf.
 */
const char *mt_build_dir(char *buf, size_t len);
/*
 * The stock kernel's gnumach-dbg: $BUILD/kernel/ in a build tree; for an
 * installed machtrace $XDG_CACHE_HOME/machtrace/kernels/VERSION/, fetched
 * there (fetch-kernel.sh, messages on stderr) when missing.
 */
const char *mt_stock_kernel(char *buf, size_t len);
/*
 * The kernel fetch script into buf and the stock kernel's directory into
 * cache: 1 for an installed machtrace (LIB/fetch-kernel.sh, the user's
 * cache), 0 for a build tree (build/../scripts/fetch-kernel.sh,
 * build/kernel), -1 for an installed one with no $HOME (cache: none).
 */
int mt_fetch_script(char *buf, size_t len, char *cache, size_t clen);
/* $XDG_CACHE_HOME/machtrace/kernels (~/.cache when unset); -1: no $HOME. */
int mt_user_kernels(char *buf, size_t len);
/* 0 when the stock kernel at path is readable, else -1 and "no kernel at
   PATH" in err with how it gets fetched. */
int mt_stock_kernel_check(const char *path, char *err, size_t errlen);

/* ---- the QEMU launcher --------------------------------------------------- */

/* MT_BOOT_MAX_MODULES, MT_USER_MAX_MODULES: machtrace/bootlim.h */

struct mt_boot_opts {
	const char *kernel;             /* NULL: the stock kernel */
	const char *kernel_args;        /* NULL: "console=com0" */
	/* Module strings "PATH args" passed verbatim (no quote removal, no $
	 * expansion).  nmodules 0: our machload with `workload` arguments. */
	const char *modules[MT_BOOT_MAX_MODULES];
	int nmodules;
	const char *workload;           /* machload words, NULL: its defaults */
	/* A raw disk image attached as the first IDE disk (NULL: none).  The
	 * guest's writes go to the image unless disk_snapshot, which puts
	 * them in a temporary overlay that QEMU drops on exit. */
	const char *disk;
	int disk_snapshot;
	const char *shim;               /* NULL: $BUILD/boot/shim.elf */
	unsigned timeout_ms;            /* 0: no limit */
	unsigned mem_mb;                /* 0: 512 */
	unsigned cpus;                  /* QEMU -smp, 0: 1 */
	uint64_t reserve_pa, reserve_size;      /* size 0: no reservation */
	int reserve_fill;               /* shim fills it with words pa ^ 0xA5A5A5A5 */
	FILE *echo;                     /* console copy (NULL: none) */
	const char *log_path;           /* console log file (NULL: none) */
	const char *marker;             /* line whose time is recorded, NULL: "machload: start" */
	int survive;                    /* QEMU outlives a killed machtrace (deadman tests) */
	int caller_signals;             /* SIGINT/SIGTERM/SIGHUP are the caller's business
					   (a tracing session ends the guest itself) */
	/* The kernel's message buffer (kmsg_buffer: VA, size), watched until
	 * the kernel's console speaks: a kernel stopping in KDB before its
	 * console exists ends the boot as MT_BOOT_DEBUGGER with KDB's words
	 * from there.  Size 0: looked up in the kernel image. */
	uint64_t kmsg_va, kmsg_size;
};

enum mt_boot_status {
	MT_BOOT_REBOOTED,               /* the guest rebooted: QEMU exited by itself */
	MT_BOOT_PANIC,                  /* "panic" line, stopped at db> */
	MT_BOOT_DEBUGGER,               /* kernel debugger prompt without a panic */
	MT_BOOT_TIMEOUT,
	MT_BOOT_INTERRUPTED,            /* SIGINT, SIGTERM or SIGHUP */
	MT_BOOT_QEMU_FAILED,            /* QEMU exited with an error */
	MT_BOOT_SHIM_FAILED,            /* the boot shim refused to load the kernel */
};

struct mt_boot_result {
	enum mt_boot_status status;
	int qemu_status;                /* wait status of QEMU */
	double seconds;                 /* QEMU start to exit */
	double marker_seconds;          /* QEMU start to the marker line, -1: not seen */
	char reason[256];               /* panic or debugger line, QEMU's error */
};

struct mt_boot;                         /* a running guest */

/* Starts QEMU; returns NULL with err filled on bad input or failure. */
struct mt_boot *mt_boot_start(const struct mt_boot_opts *o, char *err, size_t errlen);
/*
 * Reads console output for up to timeout_ms (-1: until something ends).
 * Returns 1 while the guest runs, 0 when it ended (result filled).
 */
int mt_boot_poll(struct mt_boot *b, int timeout_ms, struct mt_boot_result *r);
/* Guest RAM shared with QEMU (file offset = guest physical address). */
void *mt_boot_ram(struct mt_boot *b, size_t *size);
/* Stops QEMU if still running, removes its files, frees b. */
void mt_boot_stop(struct mt_boot *b);
/* start + poll until the end + stop. Returns 0, or -1 with err filled. */
int mt_boot_run(const struct mt_boot_opts *o, struct mt_boot_result *r, char *err, size_t errlen);
const char *mt_boot_status_name(enum mt_boot_status s);

#endif
