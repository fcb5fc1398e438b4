/*
 * A tool's session (top, health, baseline): their D programs on the
 * kernel, quiet, as the command runs a -s script, with dtrace's
 * diagnostics; and the diagnostics and pragmas the command shares.
 */
#include <stdlib.h>
#include <string.h>
#include "machtrace/session.h"

void
mt_session_print_diag(FILE *err, const struct mt_diag *d, const char *name,
		      int is_file, int errtags)
{
	const char *tag = errtags && d->tag ? d->tag : NULL;
	char line[32] = "";

	if (d->line > 0)
		snprintf(line, sizeof(line), "line %d: ", d->line);
	fflush(stdout);
	if (d->lib) {
		/* the kernel D library: not the user's program */
		fprintf(err, "dtrace: failed to initialize dtrace: D library "
			"%s: %s%s%s%s%s\n", d->lib, tag ? "[" : "", tag ? tag : "",
			tag ? "] " : "", line, d->msg);
		return;
	}
	fprintf(err, "dtrace: %s %s: %s%s%s%s%s\n", is_file ?
		"failed to compile script" : "invalid probe specifier",
		name, tag ? "[" : "", tag ? tag : "", tag ? "] " : "", line, d->msg);
}

int
mt_session_pragmas(const struct mt_prog *prog, struct mt_opts *opts,
		   struct mt_diag *d)
{
	for (uint32_t i = 0; i < prog->noptsets; i++) {
		const struct mt_optset *o = &prog->optsets[i];

		memset(d, 0, sizeof(*d));
		d->src = -1;
		if (mt_opts_set_pragma(opts, o->name, o->value, &d->tag,
				       d->msg, sizeof(d->msg)) == 0)
			continue;
		d->line = o->line;
		return -1;
	}
	return 0;
}

/* The tool's -x options: -1 after saying why. */
static int
tool_opts(const struct mt_session_tool *tl, struct mt_opts *opts)
{
	const char *const *x = tl->xopts;
	char err[1024];

	mt_opts_init(opts);
	opts->quiet = 1;
	for (; x && x[0]; x += 2)
		if (mt_opts_set(opts, x[0], x[1], NULL, err, sizeof(err)) != 0) {
			fprintf(stderr, "machtrace: %s: %s\n", tl->tool, err);
			return -1;
		}
	return 0;
}

/* The program of the tool's sources, NULL after saying why ($0: the
   first script's name). */
static struct mt_prog *
tool_compile(struct mt_session *s, const struct mt_session_tool *tl,
	     struct mt_opts *opts)
{
	const char *arg0 = "machtrace";
	struct mt_cc_input in;
	struct mt_diag d;
	struct mt_prog *prog;
	int i;

	for (i = tl->nsrcs - 1; i >= 0; i--)
		if (!tl->srcs[i].is_pspec)
			arg0 = tl->srcs[i].name;
	memset(&in, 0, sizeof(in));
	in.srcs = tl->srcs;
	in.nsrcs = tl->nsrcs;
	in.macro_args = &arg0;
	in.nmacro_args = 1;
	in.opts = opts;
	memset(&d, 0, sizeof(d));
	d.src = -1;
	if ((prog = mt_session_compile(s, &in, &d)) != NULL &&
	    mt_session_pragmas(prog, opts, &d) == 0)
		return prog;
	i = d.src >= 0 && d.src < tl->nsrcs ? d.src : 0;
	mt_session_print_diag(stderr, &d, tl->srcs[i].name, !tl->srcs[i].is_pspec,
			      opts->errtags);
	mt_prog_free(prog);
	return NULL;
}

int
mt_session_tool_run(const struct mt_session_tool *tl)
{
	struct mt_session_run r = { NULL, stdout, NULL, tl->intr, tl->client };
	struct mt_prog *prog = NULL;
	struct mt_target *t = NULL;
	struct mt_image *img = NULL;
	struct mt_live_opts lo;
	struct mt_session *s;
	struct mt_opts opts;
	struct mt_diag d;
	int bad = -1, rc = MT_EXIT_ERROR;

	if (tool_opts(tl, &opts) != 0)
		goto out;
	mt_session_machine_live(tl->m, &lo);
	if ((s = mt_session_open(&lo, 1, stderr)) == NULL) {
		fprintf(stderr, "dtrace: failed to initialize dtrace: out of memory\n");
		goto out;
	}
	if ((prog = tool_compile(s, tl, &opts)) == NULL ||
	    (t = mt_session_target(s, prog)) == NULL)
		goto close;
	memset(&d, 0, sizeof(d));
	if ((img = mt_link(prog, &opts, t, &bad, d.msg, sizeof(d.msg))) == NULL) {
		int i = bad >= 0 && prog->clause_info[bad].src >= 0 ?
			prog->clause_info[bad].src : 0;

		mt_session_print_diag(stderr, &d, tl->srcs[i].name,
				      !tl->srcs[i].is_pspec, 0);
		goto close;
	}
	r.opts = &opts;
	rc = mt_session_go(s, prog, t, img, &r);
	rc = rc < 0 ? MT_EXIT_ERROR : rc;
close:
	mt_session_close(s);
	mt_target_free(t);
	free(img);
	mt_prog_free(prog);
out:
	mt_opts_free(&opts);
	return rc;
}
