/*
 * A tracing session (session/), as libdtrace's dtrace_open .. dtrace_close:
 * the target rule (which target runs a program), the kernel target the
 * compiler asks for C types through struct mt_ctypes, the compilation
 * with the kernel D library, and the consume loop.  A library: it returns
 * errors and keeps its state in struct mt_session; its messages go to the
 * err stream given at open, worded as dtrace's.
 *
 *   mt_session_machine_disk(&m, err); mt_session_machine_vm(&m, err);
 *   mt_session_machine_live(&m, &live);
 *   s = mt_session_open(&live, force, stderr);
 *   prog = mt_session_compile(s, &in, &diag);   the D library when needed
 *   mt_session_pragmas(prog, &opts, &diag);
 *   t = mt_session_target(s, prog);             local, or the kernel's
 *   img = mt_link(prog, &opts, t, &bad, err, len);
 *   rc = mt_session_go(s, prog, t, img, &run);  checks, attach, BEGIN, the
 *                                               loop (mt_session_work), END
 *                                               (mt_session_stop), detach;
 *                                               records and aggregations
 *                                               to the client's hooks
 *   mt_target_free(t); mt_session_close(s); mt_session_machine_free(&m);
 *
 * A tool (top, health, baseline) does all of it in mt_session_tool_run.
 */
#ifndef MACHTRACE_SESSION_H
#define MACHTRACE_SESSION_H

#include <signal.h>
#include <stdio.h>
#include "machtrace/compiler.h"
#include "machtrace/live.h"
#include "machtrace/machopt.h"
#include "machtrace/options.h"
#include "machtrace/program.h"

struct mt_session;
struct mt_consumer;
struct mt_disk_plan;

/* dtrace(1)'s exit statuses, which the commands and tools return. */
#define MT_EXIT_OK	0
#define MT_EXIT_ERROR	1
#define MT_EXIT_USAGE	2

/*
 * The machine a session traces, from a command's options: the machine
 * options (machopt.h), --disk IMAGE [--snapshot], --vm NAME (or
 * $MACHTRACE_VM), and -c's program (only named in messages).  The setup
 * functions fill the kernel, its command line and the modules; free with
 * mt_session_machine_free (which removes the disk's extracted files).
 */
struct mt_session_machine {
	struct mt_mopts mach;
	const char *vm;
	const char *disk;
	int disk_snapshot;
	const char *kernel_args;
	const char *cmd_c;
	int force;			/* the kernel runs every program */
	int verbose;
	const char *disk_entry;		/* "IMAGE, entry 'TITLE'" */
	char *vm_kernel;		/* owned: the VM's kernel */
	struct mt_disk_plan *plan;	/* owned: --disk's extracted files */
};
/* --vm (or $MACHTRACE_VM): the VM's kernel; -1 after saying why on err. */
int mt_session_machine_vm(struct mt_session_machine *m, FILE *err);
/* --disk: the image's kernel, command line and modules; -1 after saying
   why on err. */
int mt_session_machine_disk(struct mt_session_machine *m, FILE *err);
void mt_session_machine_free(struct mt_session_machine *m);
/* The most seconds a -d (and a baseline's runs) may last. */
#define MT_SESSION_MAX_SECONDS	3600
/* A whole number 1 to MT_SESSION_MAX_SECONDS (seconds, refreshes): 0, else -1. */
int mt_session_whole_arg(const char *s, long *v);
/* -s PATH's text ("-": stdin), NUL-terminated, the caller's to free;
   NULL after saying why on err. */
char *mt_session_read_source(const char *path, FILE *err);
/* -x msgids: a bad path is an error at once, whether or not the program
   names messages (the link stage reads the files again when it does).
   0, or -1 after saying why on err. */
int mt_session_check_msgids(const struct mt_opts *opts, FILE *err);
/* The kernel target's options for m (its strings stay m's). */
void mt_session_machine_live(const struct mt_session_machine *m,
			     struct mt_live_opts *lo);

/*
 * live: the kernel target's options (its strings must outlive the
 * session); force: the kernel runs every program whatever its clauses
 * (--mach, --kernel, --module, --workload, a VM).  NULL when out of memory.
 */
struct mt_session *mt_session_open(const struct mt_live_opts *live, int force,
				   FILE *err);
/* Frees the kernel target made for types and not taken (compile failed). */
void mt_session_close(struct mt_session *s);
/* A new kernel target to list probes from: the session's kernel image
   only (no VM, modules or workload); the caller frees it.  NULL with err
   filled when the kernel cannot be read. */
struct mt_target *mt_session_catalog(struct mt_session *s, char *err,
				     size_t errlen);
/* -i ID: the description "prov:mod:func:name" of the probe with that id
   in the kernel's catalog (the session's kernel), else the local
   target's; -1 when neither has it. */
int mt_session_probe_by_id(struct mt_session *s, uint32_t id, char *desc,
			   size_t len);
/* The stream the session's messages go to. */
FILE *mt_session_err(const struct mt_session *s);

/*
 * The target rule (README, machtrace -h): a description is the kernel's
 * when it names a kernel provider (fbt, kinst, mach_trap, the Mach SDT
 * providers, a guest task's pid<N> or usdt provider; a glob matching
 * one), or names no provider and only the kernel can match it, or the
 * kernel is forced (profile, tick and BEGIN/END then run in it too).
 */
int mt_session_desc_wants_kernel(struct mt_session *s, const struct mt_pdesc *pd);
/* A target's probes() callback counting the probes (int *arg). */
int mt_session_count_cb(void *arg, const struct mt_probe_info *p);
/* Does any clause's description belong to the kernel? */
int mt_session_wants_kernel(struct mt_session *s, const struct mt_prog *prog);

/*
 * Compile in (its libs and ctypes are the session's to set; with
 * MT_CC_DUMP its expand too): a program that runs in the kernel after the
 * kernel D library (mach.d), as dtrace compiles its libraries first.
 * NULL with diag filled.
 */
struct mt_prog *mt_session_compile(struct mt_session *s, struct mt_cc_input *in,
				   struct mt_diag *diag);

/* The target that runs prog: the local one, or the kernel's (the one
   made for its types); NULL after saying why on err. */
struct mt_target *mt_session_target(struct mt_session *s, const struct mt_prog *prog);

/*
 * What img may not do on t, as dtrace's "could not enable tracing"
 * reason (in buf, or a constant), or NULL: destructive actions without
 * -w, and with -w what means nothing on this target.
 */
const char *mt_session_refused(const struct mt_image *img, const struct mt_target *t,
			       char *buf, size_t len);

/*
 * The consume loop until the program ends, the target stops, poll()
 * returns non-zero or *intr is set (the caller's SIGINT/SIGTERM count):
 * each step polls the target, drains records into the consumer, and
 * calls poll (may be NULL).  Returns 1 after reporting a failure on err.
 */
struct mt_session_work {
	const struct mt_opts *opts;	/* switchrate, statusrate */
	volatile sig_atomic_t *intr;
	FILE *out;			/* after an interrupt, a newline when
					   a terminal (dtrace tidies it) */
	int (*poll)(void *arg, struct mt_consumer *c);
	void *arg;
};
int mt_session_work(struct mt_session *s, struct mt_target *t,
		    struct mt_consumer *c, const struct mt_session_work *w);
/* END: stop tracing, the last drain and drop report.  1 after reporting
   a failure on err (not when failed already says one was). */
int mt_session_stop(struct mt_session *s, struct mt_target *t,
		    struct mt_consumer *c, int failed);

/*
 * Diagnostics worded as dtrace's: d about the source named name (a -s
 * script when is_file, else a probe specifier), its D_* tag shown with
 * errtags.  A diagnostic of the kernel D library names the library.
 */
void mt_session_print_diag(FILE *err, const struct mt_diag *d, const char *name,
			   int is_file, int errtags);
/* prog's #pragma D options into opts, in order: 0, or -1 with d filled. */
int mt_session_pragmas(const struct mt_prog *prog, struct mt_opts *opts,
		       struct mt_diag *d);

/*
 * A client of a session (the command, record, top, health, baseline):
 * matched() once -x cpu is checked, before the probes matched are
 * (dtrace's "matched N probes" notices), start() once the consumer is
 * attached (before BEGIN), poll() after each drain of the loop (non-zero:
 * end the session), finish() after the loop and the last drain, the
 * consumer still there (non-zero: the session failed; failed: it failed
 * already).  Each may be NULL.  final: the aggregations are printed at
 * the end, as dtrace(1) does; else only what the program's own printa()
 * prints (the tools take them as values).
 */
struct mt_session_client {
	void *arg;
	void (*matched)(void *arg, struct mt_target *t);
	int (*start)(void *arg, const struct mt_prog *prog,
		     const struct mt_image *img, struct mt_target *t,
		     struct mt_consumer *c);
	int (*poll)(void *arg, struct mt_consumer *c);
	int (*finish)(void *arg, struct mt_consumer *c, int failed);
	int final;
};

/*
 * The process's SIGINT/SIGTERM count and the function installing the
 * handlers that count there: the program's (a handler's state has no home
 * but the process), handed to the library.
 */
struct mt_session_intr {
	volatile sig_atomic_t *count;
	void (*catch)(void);
};

/*
 * Running a linked image to its end: -x cpu and what the target refuses
 * checked, the output file opened (ofile, appended; else out), the state
 * area fitted to the target (dtrace's bufresize), attach, the consumer
 * (with the kernel's symbols when it traces the kernel), the client's
 * start, BEGIN, the loop (intr's handlers installed first), END, the last drain, the client's
 * finish, detach.  The program's exit status, or -1 after saying why.
 */
struct mt_session_run {
	struct mt_opts *opts;
	FILE *out;
	const char *ofile;
	struct mt_session_intr intr;
	struct mt_session_client client;
};
int mt_session_go(struct mt_session *s, const struct mt_prog *prog,
		  struct mt_target *t, struct mt_image *img,
		  const struct mt_session_run *r);

/*
 * A tool's session (top, health, baseline): the named sources as one
 * program on the kernel of m, quiet, -x options from xopts ("name",
 * "value", ..., NULL), run to its end with the client.  Messages start
 * "machtrace: TOOL: " where they are the tool's own.  An exit status.
 */
struct mt_session_tool {
	const char *tool;
	const struct mt_session_machine *m;
	const struct mt_cc_src *srcs;
	int nsrcs;
	const char *const *xopts;
	struct mt_session_intr intr;
	struct mt_session_client client;
};
int mt_session_tool_run(const struct mt_session_tool *tool);

/* The tracer's own cost since tracing began, from the runtime's control
   block: probe firings (compiled ones included, the counting trampoline's
   not) and ns in probe context (the platform's timing; docs/top.md).
   Zeros without a control block. */
struct mt_cb;
void mt_session_probe_cost(const struct mt_cb *cb, uint64_t *fires, uint64_t *ns);

#endif /* MACHTRACE_SESSION_H */
