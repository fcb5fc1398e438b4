/*
 * The machtrace command: dtrace(1)'s options and modes on the local target
 * (and the GNU Mach subcommands).  Messages use dtrace's wording and its
 * "dtrace: " prefix so that scripts and test suites written for dtrace(1)
 * read them unchanged.
 */
#ifndef MT_CLI_H
#define MT_CLI_H

#include <signal.h>
#include <stdio.h>
#include "machtrace/compiler.h"
#include "machtrace/machopt.h"
#include "machtrace/options.h"
#include "machtrace/session.h"
#include "tools/record/record.h"

#define E_SUCCESS	MT_EXIT_OK
#define E_ERROR		MT_EXIT_ERROR
#define E_USAGE		MT_EXIT_USAGE

/* A program specification from the command line, in order. */
struct cli_cmd {
	int is_file;			/* -s */
	int generated;			/* machtrace's own (record --events),
					   named by arg in messages */
	char *arg;			/* path, or the probe specifier */
	char *text;			/* the source text */
};

struct mt_target;
struct mt_consumer;
struct mt_prog;
struct mt_image;

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
	/* GNU Mach (live target): the machine options (machopt.h), --mach
	   (m.force), --disk IMAGE [--snapshot] (the kernel, its command line
	   and the modules come from the image's grub.cfg), --vm NAME (or
	   $MACHTRACE_VM: attach to that running VM, machtrace vm start),
	   -c 'PROGRAM ARGS' (a boot module, the first: pid 1) */
	struct mt_session_machine m;
	/* -c or -p PID: the target, $target; tracing ends when it exits */
	int have_target;
	long long target_pid;
	/* machtrace record (tools/record/): the trace directory (-o),
	   --events groups and the clauses they generated (compiled first),
	   what the trace's env shows; its client while recording */
	int record;
	unsigned events;
	const char *events_list;	/* --events as given */
	struct tool_record rec;
	struct mt_session_client rec_hook;
	/* The session (session/) while one runs: the target rule, the kernel
	   target for the compiler's types; NULL: compile alone (-l) */
	struct mt_session *session;
	/* the session's client (record), or NULL */
	const struct mt_session_client *hook;
	/* while a session runs: its program, image and target */
	const struct mt_prog *prog;
	const struct mt_image *img;
	struct mt_target *t;
};

/* target.c: -c / -p */
int cli_take_target(struct cli *cl, int opt, const char *arg);
int cli_target_module(struct cli *cl);
struct mt_target;
int cli_target_report(const struct cli *cl, struct mt_target *t);
/* vm.c: machtrace vm start|list|stop|console */
int cli_vm_main(int argc, char **argv);
/* kernel.c: machtrace kernel fetch|list */
int cli_kernel_main(int argc, char **argv);
struct mt_vm;
int cli_vm_console(const struct mt_vm *vm, int follow);
/* session.c: SIGINT and SIGTERM, counted in cli_intr once
   cli_catch_signals installed the handlers (the session loop's) */
extern volatile sig_atomic_t cli_intr;
void cli_catch_signals(void);
int cli_run(struct cli *cl);
struct mt_prog *cli_compile(struct cli *cl, int first, int n,
			    struct mt_diag *diag);
void cli_print_diag(const struct cli *cl, const struct mt_diag *d, int which);
/* session.c: open cl->session from the command line's kernel options
   (mt_session_close frees it); -1 when out of memory */
int cli_session_open(struct cli *cl);
/* stability.c: -v's report for one program (t: the target, or NULL) */
struct mt_prog;
struct cli_cmd;
void cli_stability_report(const struct cli *cl, struct mt_target *t,
			  const struct mt_prog *prog, const struct cli_cmd *cmd,
			  const char *name);
/* msgdecode.c: machtrace msgdecode, rpcsnoop's filter */
int cli_msgdecode_main(int argc, char **argv);
/* list.c */
int cli_list(struct cli *cl);
#endif
