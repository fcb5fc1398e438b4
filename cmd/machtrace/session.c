/*
 * The command's session, a client of session/ (include/machtrace/session.h):
 * the commands' sources and names, pragmas, the "matched N probes"
 * notices, -v's report, record and the tools' hooks, output, exit status.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "machtrace/consumer.h"
#include "machtrace/live.h"
#include "machtrace/program.h"
#include "machtrace/session.h"

static volatile sig_atomic_t g_intr;

static void
on_signal(int sig)
{
	(void)sig;
	g_intr++;
}

/* The name dtrace reports for a -n specifier: cropped at "{/;". */
static char *
crop_name(const char *arg)
{
	char *s = strdup(arg);

	if (s)
		s[strcspn(s, "{/;")] = '\0';
	return s;
}

void
cli_print_diag(const struct cli *cl, const struct mt_diag *d, int which)
{
	int i = d->src >= 0 && d->src < cl->ncmds ? d->src : which;
	const struct cli_cmd *cmd = &cl->cmds[i >= 0 ? i : 0];
	char line[32] = "";

	if (d->line > 0)
		snprintf(line, sizeof(line), "line %d: ", d->line);
	fflush(stdout);
	if (d->lib) {
		/* the kernel D library: not the user's program */
		fprintf(stderr, "dtrace: failed to initialize dtrace: D library "
			"%s: %s%s%s%s%s\n", d->lib,
			cl->opts.errtags && d->tag ? "[" : "",
			cl->opts.errtags && d->tag ? d->tag : "",
			cl->opts.errtags && d->tag ? "] " : "", line, d->msg);
		return;
	}
	fprintf(stderr, "dtrace: %s %s: %s%s%s%s%s\n", cmd->is_file ?
		"failed to compile script" : "invalid probe specifier",
		cmd->arg, cl->opts.errtags && d->tag ? "[" : "",
		cl->opts.errtags && d->tag ? d->tag : "",
		cl->opts.errtags && d->tag ? "] " : "", line, d->msg);
}

/*
 * Commands first .. first+n-1 as one program: through the session when
 * there is one (it picks the target and the kernel D library), else
 * alone (-l's scripts).
 */
struct mt_prog *
cli_compile(struct cli *cl, int first, int n, struct mt_diag *diag)
{
	struct mt_cc_src *srcs = calloc(n, sizeof(*srcs));
	struct mt_cc_input in;
	struct mt_prog *prog;
	char *arg0 = cl->args[0];

	if (srcs == NULL)
		return NULL;
	for (int i = 0; i < n; i++) {
		const struct cli_cmd *cmd = &cl->cmds[first + i];

		srcs[i].text = cmd->text;
		srcs[i].name = cmd->arg;
		srcs[i].is_pspec = !cmd->is_file;
		if (cmd->is_file && cl->args[0] == arg0)
			cl->args[0] = cmd->arg;
	}
	memset(&in, 0, sizeof(in));
	in.srcs = srcs;
	in.nsrcs = n;
	in.cpp = cl->opts.cpp;
	in.cpp_args = (const char *const *)cl->opts.cpp_args;
	in.ncpp_args = cl->opts.ncpp_args;
	in.macro_args = (const char *const *)cl->args;
	in.nmacro_args = cl->nargs;
	in.target = cl->have_target ? cl->target_pid : 0;
	in.opts = &cl->opts;
	in.flags = cl->exec ? 0 : MT_CC_COMPILE_ONLY;
	if (cl->dump)
		in.flags |= MT_CC_DUMP;
	memset(diag, 0, sizeof(*diag));
	diag->src = -1;
	prog = cl->session ? mt_session_compile(cl->session, &in, diag) :
		mt_compile(&in, diag);
	if (prog == NULL && diag->src >= 0)
		diag->src += first;
	cl->args[0] = arg0;
	free(srcs);
	return prog;
}

/* #pragma D option, in order; reports dtrace's error. */
static int
apply_pragmas(struct cli *cl, const struct mt_prog *prog)
{
	for (uint32_t i = 0; i < prog->noptsets; i++) {
		const struct mt_optset *o = &prog->optsets[i];
		struct mt_diag d;

		memset(&d, 0, sizeof(d));
		d.src = -1;
		if (mt_opts_set_pragma(&cl->opts, o->name, o->value, &d.tag,
				       d.msg, sizeof(d.msg)) == 0)
			continue;
		d.line = o->line;
		cli_print_diag(cl, &d, 0);
		return -1;
	}
	return 0;
}

/* Matches of command i: the image's ECBs of its clauses. */
static uint32_t
count_matches(const struct mt_prog *prog, const struct mt_image *img, int i)
{
	const struct mt_ecb *e = (const void *)((const char *)img + img->ecbs_off);
	uint32_t n = 0;

	for (uint32_t k = 0; k < img->necbs; k++)
		n += e[k].clause < prog->nclauses &&
		     prog->clause_info[e[k].clause].src == i;
	return n;
}

static void
notice(const struct cli *cl, const char *fmt, const char *a, uint32_t n)
{
	if (cl->opts.quiet)
		return;
	fprintf(stderr, fmt, a, n, n == 1 ? "" : "s");
}

/* A session's poll: the client's (record, a tool). */
static int
cli_poll(void *arg, struct mt_consumer *c)
{
	struct cli *cl = arg;

	return cl->hook && cl->hook->poll(cl->hook->arg, c) != 0;
}

/* The consume loop, END, and the aggregations at the end (not with a
   hook that takes them, nor after a second interrupt: stop now). */
static int
run_loop(struct cli *cl, struct mt_target *t, struct mt_consumer *c)
{
	struct mt_session_work w = { &cl->opts, &g_intr, cl->out, cli_poll, cl };
	struct sigaction sa;
	int failed;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	failed = mt_session_work(cl->session, t, c, &w);
	failed |= mt_session_stop(cl->session, t, c, failed);
	if (g_intr < 2 && (cl->hook == NULL || cl->hook->final))
		mt_consume_final(c);
	return failed;
}

/* The live GNU Mach target's options, from the command line. */
static void
cli_live_opts(const struct cli *cl, struct mt_live_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->kernel = cl->mach.kernel;
	lo->kernel_args = cl->kernel_args;
	lo->disk = cl->disk;
	lo->disk_snapshot = cl->disk_snapshot;
	for (int i = 0; i < cl->mach.nmodules; i++)
		lo->modules[i] = cl->mach.modules[i];
	lo->nmodules = cl->mach.nmodules;
	lo->workload = cl->mach.workload;
	lo->has_target = cl->have_target;
	lo->target_pid = cl->target_pid;
	lo->timeout_ms = cl->mach.timeout_ms;
	lo->mem_mb = cl->mach.mem_mb;
	lo->cpus = cl->mach.cpus;
	lo->console_log = getenv("MACHTRACE_CONSOLE_LOG");
	lo->console = getenv("MACHTRACE_CONSOLE") ? stderr : NULL;
	lo->text_check = getenv("MACHTRACE_TEXTCHECK") != NULL;
	lo->verbose = cl->verbose;
	lo->vm = cl->vm;
}

int
cli_session_open(struct cli *cl)
{
	struct mt_live_opts lo;

	cli_live_opts(cl, &lo);
	cl->session = mt_session_open(&lo, cl->mach.kernel || cl->mach.nmodules ||
				      cl->force_kernel, stderr);
	return cl->session ? 0 : -1;
}

/*
 * The session of a linked program: the matched-probe notices, attach,
 * BEGIN, the loop, END and the output.  The caller frees prog, t, img.
 */
static int
run_session(struct cli *cl, struct mt_prog *prog, struct mt_target *t,
	    struct mt_image *img)
{
	struct mt_consumer *c;
	char err[1024];
	const char *why;
	int status, failed, kernel;

	/* -x cpu names the one CPU to trace on, of the target's (mt_target_ops.ncpus) */
	if (cl->opts.cpu >= 0 && (uint64_t)cl->opts.cpu >= img->opt.ncpus) {
		fprintf(stderr, "dtrace: could not enable tracing: -x cpu=%lld: "
			"no such CPU (the target has %u, numbered from 0)\n",
			(long long)cl->opts.cpu, img->opt.ncpus);
		return E_ERROR;
	}
	for (int i = 0; i < cl->ncmds; i++) {
		struct cli_cmd *cmd = &cl->cmds[i];
		uint32_t n = cl->ncmds == 1 ? img->necbs : count_matches(prog, img, i);
		char *name = cmd->is_file ? strdup(cmd->arg) :
			crop_name(cmd->arg);

		notice(cl, cmd->generated ? "dtrace: %s matched %u probe%s\n" :
		       cmd->is_file ? "dtrace: script '%s' matched %u "
		       "probe%s\n" : "dtrace: description '%s' matched %u "
		       "probe%s\n", name ? name : "", n);
		if (cl->verbose)
			cli_stability_report(cl, t, prog, cmd, name ? name : "");
		free(name);
	}
	if (img->necbs == 0 && !cl->opts.zdefs) {
		fprintf(stderr, "dtrace: no probes matched\n");
		return E_ERROR;
	}
	if ((why = mt_session_refused(img, t, err, sizeof(err))) != NULL) {
		fprintf(stderr, "dtrace: could not enable tracing: %s\n", why);
		return E_ERROR;
	}
	if (cl->ofile && (cl->out = fopen(cl->ofile, "a")) == NULL) {
		fprintf(stderr, "dtrace: failed to open output file '%s'\n",
			cl->ofile);
		return E_ERROR;
	}
	if (cli_fit_memory(cl, t, img) != 0)
		return E_ERROR;
	if (t->ops->attach(t, img) != 0) {
		/* a VM's own state (another session, its deadman) is not
		   dtrace's message */
		if (cl->vm && strncmp(mt_target_error(t), "vm ", 3) == 0)
			fprintf(stderr, "machtrace: %s\n", mt_target_error(t));
		else
			fprintf(stderr, "dtrace: could not enable tracing: %s\n",
				mt_target_error(t));
		return E_ERROR;
	}
	c = mt_consumer_new(prog, img, &cl->opts, t, cl->out, stderr);
	if (c == NULL) {
		fprintf(stderr, "dtrace: failed to allocate the consumer\n");
		t->ops->detach(t);
		return E_ERROR;
	}
	if (t->ops->sym == NULL && mt_session_wants_kernel(cl->session, prog))
		cli_kernel_symbols(cl, c);
	mt_consumer_attach(c, t->ops->cb(t));
	if (cl->hook && cl->hook->start(cl->hook->arg, prog, img, t, c) != 0) {
		t->ops->detach(t);
		mt_consumer_free(c);
		return E_ERROR;
	}
	if (cl->opts.destructive && !cl->opts.quiet)
		fprintf(stderr, "dtrace: allowing destructive actions\n");
	if (t->ops->begin(t) != 0) {
		fprintf(stderr, "dtrace: could not enable tracing: %s\n",
			mt_target_error(t));
		t->ops->detach(t);
		mt_consumer_free(c);
		return E_ERROR;
	}
	failed = run_loop(cl, t, c);
	kernel = mt_session_wants_kernel(cl->session, prog);
	if (getenv("MACHTRACE_PROBE_COST") && kernel)
		cli_print_probe_cost(t->ops->cb(t));
	if (cl->hook && cl->hook->finish &&
	    cl->hook->finish(cl->hook->arg, c, failed) != 0)
		failed = 1;
	status = mt_consumer_exited(c) ? mt_consumer_status(c) : 0;
	fflush(cl->out);
	if (!failed && cli_target_report(cl, t) != 0)
		failed = 1;
	t->ops->detach(t);
	/* a kernel that stopped in KDB after the loop (while draining) */
	if (!failed && t->ops->aborted && (why = t->ops->aborted(t)) != NULL) {
		fprintf(stderr, "dtrace: processing aborted: %s\n", why);
		failed = 1;
	}
	mt_consumer_free(c);
	return failed ? E_ERROR : status;
}

int
cli_tool_init(struct cli *cl, const char *tool, const struct mt_mopts *mach,
	      const char *vm, const char *const *xopts, struct cli_hook *hook)
{
	char err[1024];

	memset(cl, 0, sizeof(*cl));
	cl->pname = "machtrace";
	mt_opts_init(&cl->opts);
	cl->opts.quiet = 1;
	cl->exec = 1;
	cl->out = stdout;
	cl->force_kernel = 1;
	cl->vm = vm;
	cl->mach = *mach;
	cl->hook = hook;
	if ((cl->args = calloc(2, sizeof(char *))) == NULL)
		return -1;
	cl->args[cl->nargs++] = (char *)"machtrace";
	for (; xopts && xopts[0]; xopts += 2)
		if (mt_opts_set(&cl->opts, xopts[0], xopts[1], NULL, err,
				sizeof(err)) != 0) {
			fprintf(stderr, "machtrace: %s: %s\n", tool, err);
			return -1;
		}
	return 0;
}

void
cli_tool_free(struct cli *cl)
{
	free(cl->args);
	cl->args = NULL;
	mt_opts_free(&cl->opts);
}

int
cli_run(struct cli *cl)
{
	struct mt_diag diag;
	struct mt_prog *prog;
	struct mt_target *t = NULL;
	struct mt_image *img = NULL;
	int bad = -1;
	char err[1024];
	int rc = E_ERROR;

	if (cl->ncmds == 0) {
		if (!cl->exec)
			return E_SUCCESS;
		fprintf(stderr, "dtrace: no probes specified\n");
		return E_ERROR;
	}
	if (cli_session_open(cl) != 0) {
		fprintf(stderr, "dtrace: failed to initialize dtrace: out of memory\n");
		return E_ERROR;
	}
	if ((prog = cli_compile(cl, 0, cl->ncmds, &diag)) == NULL) {
		cli_print_diag(cl, &diag, 0);
		goto out;
	}
	if (apply_pragmas(cl, prog) != 0)
		goto out;
	if (cl->dump && prog->dump) {
		fputs(prog->dump, stdout);
		fflush(stdout);
	}
	if (cl->disasm) {
		mt_disasm(prog, stderr);
		setenv("MACHTRACE_JIT_SHOW", "1", 1);	/* the live target's code too */
	}
	if ((t = mt_session_target(cl->session, prog)) == NULL)
		goto out;
	err[0] = '\0';
	img = mt_link(prog, &cl->opts, t, &bad, err, sizeof(err));
	if (img == NULL) {
		/* the command of the clause that failed, as dtrace (which
		   enables each in turn) names it */
		int i = bad >= 0 && prog->clause_info[bad].src >= 0 ?
			prog->clause_info[bad].src : 0;

		fprintf(stderr, "dtrace: %s %s: %s\n", cl->cmds[i].is_file ?
			"failed to compile script" : "invalid probe specifier",
			cl->cmds[i].arg, err);
		goto out;
	}
	if (!cl->exec) {
		/* -e -v: the report of each program, as compiled alone */
		for (int i = 0; cl->verbose && i < cl->ncmds; i++) {
			struct mt_prog *p = cli_compile(cl, i, 1, &diag);
			char *name = cl->cmds[i].is_file ?
				strdup(cl->cmds[i].arg) :
				crop_name(cl->cmds[i].arg);

			if (p != NULL)
				cli_stability_report(cl, t, p, &cl->cmds[i],
						     name ? name : "");
			free(name);
			mt_prog_free(p);
		}
		rc = E_SUCCESS;
		goto out;
	}
	rc = run_session(cl, prog, t, img);
out:
	/* the kernel target made for types and not used (compile failed) */
	mt_session_close(cl->session);
	cl->session = NULL;
	mt_target_free(t);
	free(img);
	mt_prog_free(prog);
	return rc;
}
