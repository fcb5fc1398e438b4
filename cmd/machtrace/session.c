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

volatile sig_atomic_t cli_intr;

static void
on_signal(int sig)
{
	(void)sig;
	cli_intr++;
}

void
cli_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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

	mt_session_print_diag(stderr, d, cmd->arg, cmd->is_file, cl->opts.errtags);
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
	struct mt_diag d;

	if (mt_session_pragmas(prog, &cl->opts, &d) == 0)
		return 0;
	cli_print_diag(cl, &d, 0);
	return -1;
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

int
cli_session_open(struct cli *cl)
{
	struct mt_live_opts lo;

	mt_session_machine_live(&cl->m, &lo);
	lo.has_target = cl->have_target;
	lo.target_pid = cl->target_pid;
	cl->session = mt_session_open(&lo, cl->m.mach.kernel || cl->m.mach.nmodules ||
				      cl->m.force, stderr);
	return cl->session ? 0 : -1;
}

/* The command's notices: each command's "matched N probes", -v's report. */
static void
cli_matched(void *arg, struct mt_target *t)
{
	struct cli *cl = arg;

	for (int i = 0; i < cl->ncmds; i++) {
		struct cli_cmd *cmd = &cl->cmds[i];
		uint32_t n = cl->ncmds == 1 ? cl->img->necbs :
			count_matches(cl->prog, cl->img, i);
		char *name = cmd->is_file ? strdup(cmd->arg) :
			crop_name(cmd->arg);

		notice(cl, cmd->generated ? "dtrace: %s matched %u probe%s\n" :
		       cmd->is_file ? "dtrace: script '%s' matched %u "
		       "probe%s\n" : "dtrace: description '%s' matched %u "
		       "probe%s\n", name ? name : "", n);
		if (cl->verbose)
			cli_stability_report(cl, t, cl->prog, cmd, name ? name : "");
		free(name);
	}
}

static int
cli_start(void *arg, const struct mt_prog *prog, const struct mt_image *img,
	  struct mt_target *t, struct mt_consumer *c)
{
	struct cli *cl = arg;

	return cl->hook && cl->hook->start ?
		cl->hook->start(cl->hook->arg, prog, img, t, c) : 0;
}

static int
cli_poll(void *arg, struct mt_consumer *c)
{
	struct cli *cl = arg;

	return cl->hook && cl->hook->poll && cl->hook->poll(cl->hook->arg, c) != 0;
}

/* The client's finish, then -c/-p's "pid N has exited" after the output. */
static int
cli_finish(void *arg, struct mt_consumer *c, int failed)
{
	struct cli *cl = arg;
	int f = cl->hook && cl->hook->finish &&
		cl->hook->finish(cl->hook->arg, c, failed) != 0;

	fflush(cl->out);
	return !failed && !f ? cli_target_report(cl, cl->t) != 0 : f;
}

/* The session of a linked program, to its end; the caller frees prog, t, img. */
static int
run_session(struct cli *cl, struct mt_prog *prog, struct mt_target *t,
	    struct mt_image *img)
{
	struct mt_session_run r = {
		&cl->opts, cl->out, cl->ofile, { &cli_intr, cli_catch_signals },
		{ cl, cli_matched, cli_start, cli_poll, cli_finish,
		  cl->hook == NULL || cl->hook->final },
	};
	int rc;

	cl->prog = prog;
	cl->img = img;
	cl->t = t;
	rc = mt_session_go(cl->session, prog, t, img, &r);
	return rc < 0 ? E_ERROR : rc;
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
