/*
 * The machine options: how every command that boots GNU Mach (sessions,
 * record, top, health, baseline, vm start, boot, the toolkit) is told
 * which kernel, modules, workload, time limit and memory.  One table
 * (names, argument, default, limit, help) and one parser, so that a value
 * means the same and a bad one gets the same message everywhere; each
 * command prefixes the message with its own name.
 */
#ifndef MACHTRACE_MACHOPT_H
#define MACHTRACE_MACHOPT_H

#include <stddef.h>
#include <stdio.h>
#include "machtrace/mach.h"

enum mt_mopt {
	MT_MOPT_KERNEL, MT_MOPT_MODULE, MT_MOPT_WORKLOAD, MT_MOPT_TIMEOUT,
	MT_MOPT_MEMORY, MT_MOPT_CPUS, MT_MOPT_N
};

/* The most --module, and the --timeout and --memory bounds. */
#define MT_MOPT_MAX_MODULES	MT_USER_MAX_MODULES
#define MT_MOPT_MAX_SECONDS	1000000		/* fits unsigned ms */
#define MT_MOPT_MEM_MIN		128
#define MT_MOPT_MEM_MAX		1536
#define MT_MOPT_MAX_CPUS	64		/* and at most the kernel's NCPUS */
/* The least RAM with more than one CPU: sid's SMP kernel on two CPUs
   under TCG stopped in its boot with 192 MiB (hung), 256, 264 and 272
   (panics: "kernel thread accessed user space", a double fault) and
   booted with 240, 288 to 448, 512 and more; 512 is the default of
   sessions, and vm start takes it with --cpus above 1. */
#define MT_MOPT_SMP_MEM_MIN	512

struct mt_mopt_def {
	const char *name;	/* "kernel": --kernel */
	const char *arg;	/* "FILE" */
	const char *deflt;	/* what applies without it */
	const char *limit;	/* what a value may be */
	const char *help;
};
extern const struct mt_mopt_def mt_mopt_table[MT_MOPT_N];

/* What the command line gave; NULL/0: the command's default. */
struct mt_mopts {
	const char *kernel;
	const char *modules[MT_MOPT_MAX_MODULES];
	int nmodules;
	const char *workload;
	unsigned timeout_ms;
	unsigned mem_mb;
	unsigned cpus;
};

/* Option o's value v into m: 0, or -1 with err ("--timeout 0: ..."). */
int mt_mopt_set(struct mt_mopts *m, enum mt_mopt o, const char *v, char *err,
		size_t len);

/*
 * Take the machine options ("--NAME V" and "--NAME=V") out of argv[1..]
 * wherever they are: what is left keeps its order and *argcp shrinks.  0,
 * or -1 with err (a bad or missing value).
 */
int mt_mopt_extract(struct mt_mopts *m, int *argcp, char **argv, char *err,
		    size_t len);

/* The table as help lines, each starting with indent. */
void mt_mopt_help(FILE *fp, const char *indent);

#endif
