/*
 * A tracing session: compile, apply pragmas, pick the target (local, or
 * GNU Mach for kernel probes), link, attach, BEGIN, the consume loop, END,
 * final output, exit status.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "machtrace/consumer.h"
#include "machtrace/errtags.h"
#include "machtrace/live.h"
#include "machtrace/program.h"

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

static char *lazy_expand(void *arg, const char *pdesc);

static struct mt_prog *
compile_with(struct cli *cl, int first, int n, struct mt_diag *diag, int lib)
{
	struct mt_cc_src *srcs = calloc(n, sizeof(*srcs));
	struct mt_cc_src libsrc = { NULL, NULL, 0 };
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
	in.ctypes = cl->ctypes;
	if (cl->dump) {
		in.flags |= MT_CC_DUMP;
		in.expand = lazy_expand;
	}
	if (lib) {
		libsrc.text = mt_live_dlib(&libsrc.name);
		in.libs = &libsrc;
		in.nlibs = 1;
	}
	memset(diag, 0, sizeof(*diag));
	diag->src = -1;
	prog = mt_compile(&in, diag);
	if (prog == NULL && diag->src >= 0)
		diag->src += first;
	cl->args[0] = arg0;
	free(srcs);
	return prog;
}

static int wants_kernel(const struct cli *cl, const struct mt_prog *prog);
static struct mt_target *new_mach_target(const struct cli *cl, int quiet);

/*
 * Kernel types for the compiler.  The target is chosen from the program's
 * probe descriptions, but args[] must be typed while compiling: the live
 * target is therefore created on the compiler's first question about a
 * kernel provider's arguments (it only reads the kernel image; QEMU starts
 * at attach) and make_target() reuses it.
 */
struct lazy_kernel {
	struct cli *cl;
	struct mt_target *t;		/* created on demand, or NULL */
	int failed;			/* creation failed (reported once) */
};
static struct lazy_kernel lazy;

/*
 * A program that runs in the GNU Mach kernel is compiled after the kernel
 * D library (mach.d: psinfo_t, curpsinfo, ...), as dtrace compiles its
 * libraries first.  Which target runs it is known from its clauses, so
 * the program is compiled alone first; when it has kernel clauses it is
 * compiled again after the library, and that result (or error) counts.
 * A program that fails alone may need the library (curpsinfo, psinfo_t):
 * it is tried with it, and that result counts when it compiles to kernel
 * clauses, or when a kernel clause was seen: then its error (the library's
 * or the program's, e.g. a member psinfo_t lacks) is the one to report.
 * Not after a cpp failure (no tag, or D_PREPROC): cpp would print its
 * errors twice.
 */
struct mt_prog *
cli_compile(struct cli *cl, int first, int n, struct mt_diag *diag)
{
	struct mt_prog *prog = compile_with(cl, first, n, diag, 0), *p2;
	struct mt_diag d2;
	int kernel_seen = lazy.t != NULL;

	if (cl->ctypes == NULL || lazy.cl != cl)
		return prog;
	if (prog ? !wants_kernel(cl, prog) :
	    diag->tag == NULL || strcmp(diag->tag, mt_dtag_name(D_PREPROC)) == 0)
		return prog;
	if (lazy.t == NULL && !lazy.failed &&
	    (lazy.t = new_mach_target(cl, prog == NULL)) == NULL)
		lazy.failed = prog != NULL;
	if (lazy.t == NULL)
		return prog;
	if (prog) {
		mt_prog_free(prog);
		return compile_with(cl, first, n, diag, 1);
	}
	p2 = compile_with(cl, first, n, &d2, 1);
	if (p2 && wants_kernel(cl, p2)) {
		*diag = d2;
		return p2;
	}
	mt_prog_free(p2);
	if (!p2 && kernel_seen)
		*diag = d2;
	return NULL;
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

/* Matches of one command on its own, for its "matched N probes" line. */
static uint32_t
count_matches(struct cli *cl, int i, struct mt_target *t)
{
	struct mt_diag d;
	struct mt_opts saved = cl->opts;
	struct mt_prog *p = cli_compile(cl, i, 1, &d);
	struct mt_image *img;
	uint32_t n = 0;
	char err[512];

	if (p == NULL)
		return 0;
	cl->opts.zdefs = 1;
	img = mt_link(p, &cl->opts, t, &n, err, sizeof(err));
	cl->opts = saved;
	n = img ? img->necbs : 0;
	free(img);
	mt_prog_free(p);
	return n;
}

/*
 * Linking the whole program failed: find the first command that fails on
 * its own, as dtrace (which enables each in turn) would name it, and
 * replace err with its message.  0 if none does.
 */
static int
failing_cmd(struct cli *cl, struct mt_target *t, char *err, size_t len)
{
	for (int i = 0; cl->ncmds > 1 && i < cl->ncmds; i++) {
		struct mt_diag d;
		struct mt_prog *p = cli_compile(cl, i, 1, &d);
		struct mt_image *img;
		uint32_t n;
		char e[1024];

		if (p == NULL)
			continue;
		img = mt_link(p, &cl->opts, t, &n, e, sizeof(e));
		mt_prog_free(p);
		if (img == NULL) {
			snprintf(err, len, "%s", e);
			return i;
		}
		free(img);
	}
	return 0;
}

static void
notice(const struct cli *cl, const char *fmt, const char *a, uint32_t n)
{
	if (cl->opts.quiet)
		return;
	fprintf(stderr, fmt, a, n, n == 1 ? "" : "s");
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * dtrace notices exit() when it checks the status: right after BEGIN, then
 * once per statusrate.  END fires then, so scripts can measure the delay.
 */
static void
wait_status_tick(struct cli *cl, struct mt_consumer *c, uint64_t start)
{
	uint64_t rate = cl->opts.statusrate, now = now_ns(), next;
	struct timespec ts;

	if (rate == 0)
		return;
	next = start + ((now - start + rate - 1) / rate) * rate;
	while (!g_intr && (now = now_ns()) < next) {
		uint64_t d = next - now > 50000000ULL ? 50000000ULL : next - now;

		ts.tv_sec = 0;
		ts.tv_nsec = (long)d;
		nanosleep(&ts, NULL);
		mt_consume(c);
		mt_consume_drops(c);
	}
}

static int
run_loop(struct cli *cl, struct mt_target *t, struct mt_consumer *c)
{
	struct sigaction sa;
	int rc = 0, failed = 0, first = 1;
	uint64_t step = 10000000ULL, start = now_ns();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (cl->opts.switchrate && cl->opts.switchrate < step)
		step = cl->opts.switchrate;
	while (!g_intr) {
		rc = t->ops->poll(t, step);
		if (mt_consume(c) != 0) {
			fprintf(stderr, "dtrace: processing aborted: %s\n",
				mt_consumer_error(c));
			failed = 1;
			break;
		}
		mt_consume_drops(c);
		cli_record_poll(cl);
		if (cl->hook && cl->hook->poll(cl->hook->arg, c) != 0)
			break;
		if (rc != 0 || mt_consumer_done(c)) {
			/* the first status check is right after BEGIN */
			if (rc >= 0 && mt_consumer_exited(c) && !first)
				wait_status_tick(cl, c, start);
			break;
		}
		first = 0;
	}
	/* dtrace tidies the terminal after ^C, whose echo left the cursor
	   on its line (not when testing); in a file or a pipe there is no
	   echo, and the newline was a second blank line before the
	   aggregations */
	if (g_intr && !getenv("_DTRACE_TESTING") && isatty(fileno(cl->out))) {
		fputc('\n', cl->out);
		fflush(cl->out);
	}
	if (rc < 0 && !failed) {
		fprintf(stderr, "dtrace: processing aborted: %s\n",
			mt_target_error(t));
		failed = 1;
	}
	if (t->ops->end(t) != 0 && !failed) {
		fprintf(stderr, "dtrace: couldn't stop tracing: %s\n",
			mt_target_error(t));
		failed = 1;
	}
	if (mt_consume(c) != 0 && !failed) {
		fprintf(stderr, "dtrace: processing aborted: %s\n",
			mt_consumer_error(c));
		failed = 1;
	}
	mt_consume_drops_final(c);
	/* a second interrupt means: stop now, skip the aggregations */
	if (g_intr < 2 && cl->hook == NULL)
		mt_consume_final(c);
	return failed;
}

/*
 * Destructive actions and subroutines the image uses (dtrace's
 * DTRACEACT_*DESTRUCTIVE and copyout/copyoutstr): a bit per kind, the
 * subroutines as MT_ACT__COUNT + 0/1.
 */
static uint64_t
destructive_uses(const struct mt_image *img)
{
	const struct mt_action *a = (const void *)((const char *)img + img->actions_off);
	const mt_instr_t *text = (const void *)((const char *)img + img->text_off);
	uint64_t m = 0;

	for (uint32_t i = 0; i < img->nactions; i++)
		switch (a[i].kind) {
		case MT_ACT_SYSTEM: case MT_ACT_FREOPEN: case MT_ACT_CHILL:
		case MT_ACT_RAISE: case MT_ACT_STOP: case MT_ACT_BREAKPOINT:
		case MT_ACT_PANIC:
			m |= 1ull << a[i].kind;
			break;
		}
	for (uint32_t i = 0; i < img->ntext; i++)
		if (MT_OP(text[i]) == MT_OP_CALL && (MT_V16(text[i]) == MT_SUBR_COPYOUT ||
						     MT_V16(text[i]) == MT_SUBR_COPYOUTSTR))
			m |= 1ull << (MT_ACT__COUNT + (MT_V16(text[i]) == MT_SUBR_COPYOUTSTR));
	return m;
}

/*
 * What the image may not do here, as dtrace's "could not enable tracing"
 * reason, or NULL: destructive actions without -w (dtrace refuses them
 * when it enables, EDT_DESTRUCTIVE); with -w, what means nothing for this
 * target instead of silently doing nothing.
 */
static const char *
refused_actions(const struct mt_image *img, const struct mt_target *t, char *buf, size_t len)
{
	static const struct { int bit; const char *name; } proc[] = {
		{ MT_ACT_RAISE, "raise" }, { MT_ACT_STOP, "stop" },
		{ MT_ACT__COUNT, "copyout" }, { MT_ACT__COUNT + 1, "copyoutstr" },
	};
	uint64_t m = destructive_uses(img);

	if (m && !(img->opt.flags & MT_OPT_F_DESTRUCTIVE))
		return "Destructive actions not allowed";
	for (size_t i = 0; i < sizeof proc / sizeof proc[0]; i++)
		if (m & (1ull << proc[i].bit)) {
			snprintf(buf, len, "%s( ) acts on the user process that fired the "
				 "probe: GNU Mach tasks have no signals or process stops, and "
				 "machtrace writes no task's memory", proc[i].name);
			return buf;
		}
	if ((m & (1ull << MT_ACT_PANIC | 1ull << MT_ACT_BREAKPOINT)) &&
	    strcmp(t->ops->name, "mach") != 0) {
		snprintf(buf, len, "%s( ) acts on the kernel: trace one (--mach)",
			 m & (1ull << MT_ACT_PANIC) ? "panic" : "breakpoint");
		return buf;
	}
	return NULL;
}

int
cli_count_cb(void *arg, const struct mt_probe_info *p)
{
	(void)p;
	++*(int *)arg;
	return 0;
}

/* Does the local target have a probe matching pd (creating tick-N...)? */
static int
local_matches(const struct mt_pdesc *pd)
{
	struct mt_target *t = mt_local_target_new();
	int n = 0;

	if (t == NULL)
		return 0;
	t->ops->probes(t, pd, 1, cli_count_cb, &n);
	mt_target_free(t);
	return n > 0;
}

static struct mt_target *kernel_catalog(const struct cli *cl);

/* Does the kernel (when it can be read) have a probe matching pd? */
static int
kernel_matches(const struct cli *cl, const struct mt_pdesc *pd)
{
	struct mt_target *t = kernel_catalog(cl);
	int n = 0;

	if (t != NULL)
		t->ops->probes(t, pd, 0, cli_count_cb, &n);
	return n > 0;
}

/*
 * The target rule (README, machtrace -h): a description is the kernel's
 * when it names a kernel provider (fbt, kinst, mach_trap, the Mach SDT
 * providers, a guest task's pid<N> or usdt provider; a glob matching
 * one), or names no provider and only the kernel can match it (-f FUNC,
 * -m MODULE, -i of a kernel probe, `vm_fault:entry`), or --kernel,
 * --module, --workload or --mach is given (profile, tick and BEGIN/END
 * then run in the kernel too).  Everything else runs on the local target.
 */
int
cli_desc_wants_kernel(const struct cli *cl, const struct mt_pdesc *pd)
{
	int force = cl->mach.kernel || cl->mach.nmodules || cl->force_kernel;
	const char *prov = pd->prov ? pd->prov : "";

	if (mt_live_wants(prov, force))
		return 1;
	if (force || (prov[0] != '\0' && strcmp(prov, "*") != 0) ||
	    local_matches(pd))
		return 0;
	return kernel_matches(cl, pd);
}

/* Does any clause's description belong to the kernel (see above)? */
static int
wants_kernel(const struct cli *cl, const struct mt_prog *prog)
{
	for (uint32_t i = 0; i < prog->nclauses; i++) {
		const struct mt_clause_info *ci = &prog->clause_info[i];

		for (uint32_t j = 0; j < ci->npdescs; j++)
			if (cli_desc_wants_kernel(cl, &ci->pdescs[j]))
				return 1;
	}
	return 0;
}

static int
kernel_only_rec(const struct mt_rec_info *ri, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ri[i].kind == MT_TI_STACK || ri[i].kind == MT_TI_SYM ||
		    ri[i].kind == MT_TI_MOD)
			return 1;
	return 0;
}

/*
 * On the local target the probes fire in machtrace itself: curthread,
 * caller, stackdepth, stack(), func()/sym()/mod() and a profile probe's
 * arg0 (the interrupted kernel pc) have no kernel to describe.  Say so
 * once, with the way to trace the kernel instead.
 */
static void
local_kernel_values_notice(const struct mt_prog *prog)
{
	const char *what = NULL;
	int profile = 0;

	for (uint32_t i = 0; i < prog->nclauses; i++)
		for (uint32_t j = 0; j < prog->clause_info[i].npdescs; j++) {
			const char *nm = prog->clause_info[i].pdescs[j].name;
			profile |= nm && strncmp(nm, "profile-", 8) == 0;
		}
	for (uint32_t i = 0; i < prog->ntext && !what; i++) {
		mt_instr_t in = prog->text[i];
		uint32_t op = in >> 24, v = (in >> 8) & 0xffff;

		if (op != MT_OP_LDGS)
			continue;
		if (v == MT_VAR_CURTHREAD)
			what = "curthread";
		else if (v == MT_VAR_CALLER)
			what = "caller";
		else if (v == MT_VAR_STACKDEPTH)
			what = "stackdepth";
		else if (profile && (v == MT_VAR_ARG0 || v == MT_VAR_ARG1))
			what = "a profile probe's arg0/arg1";
	}
	if (!what && kernel_only_rec(prog->rec_info, prog->nrecs))
		what = "stack(), func(), sym() or mod()";
	for (uint32_t i = 0; i < prog->naggs && !what; i++)
		if (kernel_only_rec(prog->agg_info[i].keys,
				    prog->agg_info[i].nkeys))
			what = "stack(), func(), sym() or mod()";
	if (what)
		fprintf(stderr, "dtrace: warning: this program runs on the "
			"local target (its probes fire in machtrace, not in GNU "
			"Mach), where %s describes no kernel; add --mach to run "
			"it in the kernel\n", what);
}

/* The live target for a kernel description's question, created once. */
static struct mt_target *
lazy_target(struct lazy_kernel *lk, const char *prov, const char *mod,
	    const char *func, const char *name)
{
	struct cli *cl = lk->cl;
	struct mt_pdesc pd = { (char *)prov, (char *)mod, (char *)func,
			       (char *)name, 0 };

	if (!cli_desc_wants_kernel(cl, &pd))
		return NULL;
	if (lk->t == NULL && !lk->failed &&
	    (lk->t = new_mach_target(cl, 0)) == NULL)
		lk->failed = 1;
	return lk->t;
}

static const char *
live_argtype(void *arg, const char *prov, const char *mod, const char *func,
	     const char *name, int i)
{
	struct mt_target *t = lazy_target(arg, prov, mod, func, name);

	return t ? mt_live_argtype(t, prov, func, name, i) : NULL;
}

static const char *
live_argnative(void *arg, const char *prov, const char *mod, const char *func,
	       const char *name, int i)
{
	struct mt_target *t = lazy_target(arg, prov, mod, func, name);

	return t ? mt_live_argnative(t, prov, func, name, i) : NULL;
}

static char *
live_argmissing(void *arg, const char *prov, const char *mod, const char *func,
		const char *name, int i)
{
	struct mt_target *t = lazy_target(arg, prov, mod, func, name);

	return t ? mt_live_argmissing(t, prov, func, name, i) : NULL;
}

static int
live_nargs(void *arg, const char *prov, const char *mod, const char *func,
	   const char *name)
{
	struct mt_target *t = lazy_target(arg, prov, mod, func, name);

	return t ? mt_live_nargs(t, prov, func, name) : -1;
}

/* The target of a locals probe, its description in *pd; NULL with err. */
static struct mt_target *
locals_target(void *arg, const char *prov, const char *mod, const char *func,
	      const char *name, struct mt_pdesc *pd, char *err, size_t errlen)
{
	struct mt_target *t = lazy_target(arg, prov, mod, func, name);

	*pd = (struct mt_pdesc){ (char *)prov, (char *)mod, (char *)func, (char *)name, 0 };
	if (!t)
		snprintf(err, errlen, "locals is available in kernel probes only");
	return t;
}

static char *
live_local(void *arg, const char *prov, const char *mod, const char *func,
	   const char *name, const char *var, char **ctype, char *err,
	   size_t errlen)
{
	struct mt_pdesc pd;
	struct mt_target *t = locals_target(arg, prov, mod, func, name, &pd, err, errlen);

	return t ? mt_live_local(t, &pd, var, ctype, err, errlen) : NULL;
}

static char **
live_local_names(void *arg, const char *prov, const char *mod, const char *func,
		 const char *name, char *site, size_t sitelen, char *err, size_t errlen)
{
	struct mt_pdesc pd;
	struct mt_target *t = locals_target(arg, prov, mod, func, name, &pd, err, errlen);

	return t ? mt_live_local_names(t, &pd, site, sitelen, err, errlen) : NULL;
}

/* Kernel globals: only once a kernel clause created the target. */
static char *
live_symbol(void *arg, const char *mod, const char *name, uint64_t *addr)
{
	struct lazy_kernel *lk = arg;

	return lk->t ? mt_live_symbol(lk->t, mod, name, addr) : NULL;
}

static char *
live_decls(void *arg, const char *ctype)
{
	struct lazy_kernel *lk = arg;

	return lk->t ? mt_live_decls(lk->t, ctype) : NULL;
}

/* -d: a kinst description as the live target expands it (kinline.c). */
static char *
lazy_expand(void *unused, const char *pdesc)
{
	char *s = strdup(pdesc), *x = NULL;
	struct mt_pdesc pd;
	struct mt_target *t;

	if (s && mt_pdesc_split(s, &pd) <= 4 &&
	    (t = lazy_target(&lazy, pd.prov, pd.mod, pd.func, pd.name)) != NULL)
		x = mt_live_expand(t, &pd);
	free(s);
	return x;
}

/* The kernel's probe catalog: the lazy target, created quietly. */
static struct mt_target *
kernel_catalog(const struct cli *cl)
{
	if (lazy.t == NULL && !lazy.failed)
		lazy.t = new_mach_target(cl, 1);
	return lazy.t;
}

static struct mt_ctypes lazy_ctypes = {
	.arg = &lazy, .argtype = live_argtype, .decls = live_decls,
	.nargs = live_nargs, .symbol = live_symbol,
	.argnative = live_argnative, .local = live_local,
	.local_names = live_local_names, .argmissing = live_argmissing,
};

/* The live GNU Mach target, from the command line's kernel options;
   quiet: no message when the kernel cannot be read. */
static struct mt_target *
new_mach_target(const struct cli *cl, int quiet)
{
	struct mt_live_opts lo;
	struct mt_target *t;
	char err[512];

	memset(&lo, 0, sizeof(lo));
	lo.kernel = cl->mach.kernel;
	lo.kernel_args = cl->kernel_args;
	lo.disk = cl->disk;
	lo.disk_snapshot = cl->disk_snapshot;
	for (int i = 0; i < cl->mach.nmodules; i++)
		lo.modules[i] = cl->mach.modules[i];
	lo.nmodules = cl->mach.nmodules;
	lo.workload = cl->mach.workload;
	lo.has_target = cl->have_target;
	lo.target_pid = cl->target_pid;
	lo.timeout_ms = cl->mach.timeout_ms;
	lo.mem_mb = cl->mach.mem_mb;
	lo.cpus = cl->mach.cpus;
	lo.console_log = getenv("MACHTRACE_CONSOLE_LOG");
	lo.console = getenv("MACHTRACE_CONSOLE") ? stderr : NULL;
	lo.text_check = getenv("MACHTRACE_TEXTCHECK") != NULL;
	lo.verbose = cl->verbose;
	lo.vm = cl->vm;
	err[0] = '\0';
	if ((t = mt_mach_target_new(&lo, err, sizeof(err))) == NULL) {
		if (!quiet)
			fprintf(stderr, "dtrace: failed to initialize dtrace: "
				"%s\n", err);
	}
	return t;
}

/* The local target, or the live GNU Mach one for kernel probes. */
static struct mt_target *
make_target(const struct cli *cl, const struct mt_prog *prog)
{
	struct mt_target *t;

	if (!wants_kernel(cl, prog)) {
		local_kernel_values_notice(prog);
		if ((t = mt_local_target_new()) == NULL)
			fprintf(stderr, "dtrace: failed to initialize dtrace: "
				"cannot create the local target\n");
		return t;
	}
	if (lazy.failed)
		return NULL;
	if ((t = lazy.t) != NULL) {
		lazy.t = NULL;
		return t;
	}
	return new_mach_target(cl, 0);
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
		uint32_t n = cl->ncmds == 1 ? img->necbs : count_matches(cl, i, t);
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
	if ((why = refused_actions(img, t, err, sizeof(err))) != NULL) {
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
	if (t->ops->sym == NULL && wants_kernel(cl, prog))
		cli_kernel_symbols(cl, c);
	mt_consumer_attach(c, t->ops->cb(t));
	if (cl->hook && cl->hook->start(cl->hook->arg, prog, t, c) != 0) {
		t->ops->detach(t);
		mt_consumer_free(c);
		return E_ERROR;
	}
	if (cl->record && cli_record_start(cl, prog, img, t->ops->cb(t), c) != 0) {
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
	kernel = wants_kernel(cl, prog);
	if (getenv("MACHTRACE_PROBE_COST") && kernel)
		cli_print_probe_cost(t->ops->cb(t));
	if (cl->record && cli_record_finish(cl, kernel) != 0)
		failed = 1;
	status = mt_consumer_exited(c) ? mt_consumer_status(c) : 0;
	fflush(cl->out);
	if (!failed && cli_target_report(cl, t) != 0)
		failed = 1;
	t->ops->detach(t);
	/* a kernel that stopped in KDB after the loop (while draining) */
	if (!failed && mt_mach_target_kdb(t)) {
		fprintf(stderr, "dtrace: processing aborted: %s\n", mt_mach_target_kdb(t));
		failed = 1;
	}
	mt_consumer_free(c);
	return failed ? E_ERROR : status;
}

int
cli_run(struct cli *cl)
{
	struct mt_diag diag;
	struct mt_prog *prog;
	struct mt_target *t = NULL;
	struct mt_image *img = NULL;
	uint32_t nmatched = 0;
	char err[1024];
	int rc = E_ERROR;

	if (cl->ncmds == 0) {
		if (!cl->exec)
			return E_SUCCESS;
		fprintf(stderr, "dtrace: no probes specified\n");
		return E_ERROR;
	}
	lazy.cl = cl;
	cl->ctypes = &lazy_ctypes;
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
	if ((t = make_target(cl, prog)) == NULL)
		goto out;
	err[0] = '\0';
	img = mt_link(prog, &cl->opts, t, &nmatched, err, sizeof(err));
	if (img == NULL) {
		int i = failing_cmd(cl, t, err, sizeof(err));
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
	mt_target_free(lazy.t);
	lazy.t = NULL;
	mt_target_free(t);
	free(img);
	mt_prog_free(prog);
	return rc;
}
