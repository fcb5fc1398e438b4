/*
 * The machtrace command: dtrace(1)'s options and modes on the local target
 * (and the GNU Mach subcommands).  Messages use dtrace's wording and its
 * "dtrace: " prefix so that scripts and test suites written for dtrace(1)
 * read them unchanged.
 */
#ifndef MT_CLI_H
#define MT_CLI_H

#include <stdio.h>
#include "machtrace/compiler.h"
#include "machtrace/machopt.h"
#include "machtrace/options.h"

#define E_SUCCESS	0
#define E_ERROR		1
#define E_USAGE		2

/* A program specification from the command line, in order. */
struct cli_cmd {
	int is_file;			/* -s */
	int generated;			/* machtrace's own (record --events),
					   named by arg in messages */
	char *arg;			/* path, or the probe specifier */
	char *text;			/* the source text */
};

/*
 * A client of the session (record, top, health, baseline): start() once
 * the consumer is attached (before BEGIN), poll() after each drain of the
 * loop (non-zero: end the session), finish() (may be NULL) after the loop
 * and the last drain, the consumer still there (non-zero: the session
 * failed; failed: it failed already).  final: the aggregations are printed
 * at the end as without a hook (record); else only what the program's
 * own printa() prints (the tools take them as values).
 */
struct mt_target;
struct mt_consumer;
struct mt_prog;
struct mt_image;
struct cli_hook {
	void *arg;
	int (*start)(void *arg, const struct mt_prog *prog,
		     const struct mt_image *img, struct mt_target *t,
		     struct mt_consumer *c);
	int (*poll)(void *arg, struct mt_consumer *c);
	int (*finish)(void *arg, struct mt_consumer *c, int failed);
	int final;
};

struct cli {
	const char *pname;		/* basename(argv[0]) for usage */
	struct cli_cmd *cmds;
	int ncmds;
	char **args;			/* $0..$N: argv[0] then operands */
	int nargs;
	struct mt_opts opts;
	int exec;			/* 0 with -e */
	int list, version, verbose, disasm;
	int dump;			/* -d: print the program after rewrites */
	const char *ofile;
	FILE *out;
	/* GNU Mach (live target): the machine options (machopt.h) and
	   --mach */
	struct mt_mopts mach;
	int force_kernel;
	/* --disk IMAGE [--snapshot]: the kernel, its command line and the
	   modules come from the image's grub.cfg (disk.c) */
	const char *disk;
	int disk_snapshot;
	const char *kernel_args;
	const char *disk_entry;		/* "IMAGE, entry 'TITLE'" */
	/* --vm NAME (or $MACHTRACE_VM): attach to that running VM
	   (machtrace vm start) instead of booting a kernel */
	const char *vm;
	/* -c 'PROGRAM ARGS' (a boot module, the first: pid 1) or -p PID: the
	   target, $target; tracing ends when it exits */
	const char *cmd_c;
	int have_target;
	long long target_pid;
	/* machtrace record: the trace directory (-o), --events groups and
	   the number of clauses they generated (compiled first) */
	int record;
	const char *record_dir;
	unsigned events;
	const char *events_list;	/* --events as given */
	uint32_t events_nclauses;
	struct cli_rec *rec;
	struct cli_hook rec_hook;	/* record's, cl->hook while recording */
	/* The session (session/) while one runs: the target rule, the kernel
	   target for the compiler's types; NULL: compile alone (-l) */
	struct mt_session *session;
	/* the session's client (record, top, health, baseline), or NULL */
	struct cli_hook *hook;
};

/*
 * session.c: a command's own session (top, health, baseline): the
 * kernel's, quiet, on vm or a fresh boot of mach, -x options from xopts
 * ("name", "value", ..., NULL), hook called; the caller gives cmds and
 * frees with cli_tool_free.  0, or -1 after saying why ("machtrace:
 * TOOL: ...").
 */
int cli_tool_init(struct cli *cl, const char *tool, const struct mt_mopts *mach,
		  const char *vm, const char *const *xopts, struct cli_hook *hook);
void cli_tool_free(struct cli *cl);

/* disk.c: --disk; -1 after saying what is wrong */
int cli_disk_setup(struct cli *cl);
/* target.c: -c / -p */
int cli_take_target(struct cli *cl, int opt, const char *arg);
int cli_target_module(struct cli *cl);
struct mt_target;
int cli_target_report(const struct cli *cl, struct mt_target *t);
/* The tracer's own cost since tracing began, from the runtime's control
   block: probe firings (compiled ones included, the counting trampoline's
   not) and ns in probe context (the platform's timing; docs/top.md).  Zeros without a control block. */
struct mt_cb;
void cli_probe_cost(const struct mt_cb *cb, uint64_t *fires, uint64_t *ns);
/* MACHTRACE_PROBE_COST set (the toolkit's latency scripts): that cost on
   stderr at the session's end */
void cli_print_probe_cost(const struct mt_cb *cb);
/* vm.c: machtrace vm start|list|stop|console */
int cli_vm_main(int argc, char **argv);
/* kernel.c: machtrace kernel fetch|list */
int cli_kernel_main(int argc, char **argv);
int cli_vm_options(struct cli *cl);
struct mt_vm;
int cli_vm_console(const struct mt_vm *vm, int follow);
/* report.c: machtrace report */
int cli_report_main(int argc, char **argv);
/* session.c */
int cli_run(struct cli *cl);
struct mt_prog *cli_compile(struct cli *cl, int first, int n,
			    struct mt_diag *diag);
void cli_print_diag(const struct cli *cl, const struct mt_diag *d, int which);
/* syms.c: resolve kernel addresses through the kernel image */
struct mt_consumer;
void cli_kernel_symbols(const struct cli *cl, struct mt_consumer *c);
/* session.c: open cl->session from the command line's kernel options
   (mt_session_close frees it); -1 when out of memory */
int cli_session_open(struct cli *cl);
/* stability.c: -v's report for one program (t: the target, or NULL) */
struct mt_prog;
struct cli_cmd;
void cli_stability_report(const struct cli *cl, struct mt_target *t,
			  const struct mt_prog *prog, const struct cli_cmd *cmd,
			  const char *name);
/* hostmem.c: bound the state area by the host's memory (the local
   target) or by the target's own bound (the kernel's region), lowering
   bufsize & co. as dtrace's bufresize=auto does; -1 after saying
   "Not enough space" */
struct mt_image;
struct mt_target;
int cli_fit_memory(struct cli *cl, struct mt_target *t, struct mt_image *img);
/* record.c: machtrace record, a client of the session recording its
   records as a CTF trace: fills h (kept in cl) with cl as its arg */
void cli_record_hook(struct cli *cl, struct cli_hook *h);
/* export.c: machtrace export DIR --format F [-o FILE] */
int cli_export_main(int argc, char **argv);
/* msgdecode.c: machtrace msgdecode, rpcsnoop's filter */
int cli_msgdecode_main(int argc, char **argv);
/* list.c */
int cli_list(struct cli *cl);
/* top.c: machtrace top, machtrace health */
int cli_top_main(int argc, char **argv, int health);
/* The most seconds a -d (and a baseline's runs) may last. */
#define CLI_MAX_SECONDS	3600

/* A whole number 1 to CLI_MAX_SECONDS (seconds, refreshes): 0, else -1. */
int cli_whole_arg(const char *s, long *v);

#endif
