/*
 * -l: list the probes matching the command's descriptions (or all), in
 * dtrace -l's format, from the catalog of the target that tracing would
 * use: the live GNU Mach kernel's when a description names a kernel
 * provider (or none is given and the kernel can be read), else the local
 * target's.  The ids are the ones tracing prints.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "machtrace/compiler.h"
#include "machtrace/session.h"
#include "machtrace/live.h"
#include "machtrace/mach.h"
#include "machtrace/program.h"

struct list_state {
	FILE *out;
	struct mt_target *t;
	int live, verbose;
};

/* -lv of a kernel probe: dtrace's attributes and args[] types (DWARF). */
static void
list_args(struct list_state *ls, const struct mt_probe_info *p)
{
	const struct mt_target_ops *ops = ls->t->ops;
	const char *type, *name = NULL;
	struct mt_ctypes ct;
	int i;

	memset(&ct, 0, sizeof(ct));
	if (ops->ctypes)
		ops->ctypes(ls->t, &ct);
	mt_mach_print_attrs(ls->out);
	for (i = 0; i < 10 && ct.argtype; i++) {
		type = ct.argtype(ct.arg, p->prov, p->mod, p->func, p->name, i);
		if (type == NULL)
			break;
		if (ops->argname)
			name = ops->argname(ls->t, p->prov, p->func, p->name, i);
		if (name)
			fprintf(ls->out, "\t\targs[%d]: %s\t/* %s */\n", i, type, name);
		else
			fprintf(ls->out, "\t\targs[%d]: %s\n", i, type);
	}
	if (i == 0)
		fprintf(ls->out, "\t\tNone\n");
	fprintf(ls->out, "\n");
	if (ops->sites)
		ops->sites(ls->t, p->id, ls->out);
}

static int
list_one(void *arg, const struct mt_probe_info *p)
{
	struct list_state *ls = arg;

	fprintf(ls->out, "%5u %10s %17s %33s %s\n", p->id, p->prov, p->mod,
		p->func, p->name);
	if (ls->verbose && ls->live && p->func[0] != '\0')
		list_args(ls, p);
	return 0;
}

/* Cut s at a clause body or predicate: a '{', or a '/' that is not in
   a line:FILE module (mt_pdesc_file_slash), of any description of s. */
static void
cut_body(char *s)
{
	char *d = s;

	for (char *p = s; *p; p++) {
		if (*p == ',' || *p == ' ' || *p == '\t' || *p == '\n')
			d = p + 1;
		if (*p == '{' || (*p == '/' && !mt_pdesc_file_slash(d, (size_t)(p - d), p))) {
			*p = '\0';
			return;
		}
	}
}

/*
 * Split "a:b:c:d" into provider, module, function and name
 * (mt_pdesc_split), after cutting a clause body or predicate and
 * surrounding blanks.  buf holds the strings.
 */
static void
cli_split_pdesc(const char *s, char *buf, size_t len, struct mt_pdesc *pd)
{
	char *p;

	snprintf(buf, len, "%s", s);
	cut_body(buf);
	for (p = buf; *p == ' ' || *p == '\t' || *p == '\n'; p++)
		;
	for (size_t l = strlen(p); l > 0 && strchr(" \t\n", p[l - 1]); l--)
		p[l - 1] = '\0';
	mt_pdesc_split(p, pd);
	pd->line = 0;
}

/* The descriptions to list: -n texts split at commas, -s clauses'. */
struct desc_list {
	struct mt_pdesc *v;
	char **bufs;
	int n, cap;
};

static int
add_desc(struct desc_list *dl, const struct mt_pdesc *pd, char *buf)
{
	if (dl->n == dl->cap) {
		int cap = dl->cap ? 2 * dl->cap : 16;
		struct mt_pdesc *v = realloc(dl->v, cap * sizeof(*v));
		char **b = v ? realloc(dl->bufs, cap * sizeof(*b)) : NULL;

		if (v)
			dl->v = v;
		if (b == NULL)
			return -1;
		dl->bufs = b;
		dl->cap = cap;
	}
	dl->v[dl->n] = *pd;
	dl->bufs[dl->n++] = buf;
	return 0;
}

static int
add_pspec(struct desc_list *dl, const char *text)
{
	char *copy = strdup(text), *save = NULL;

	if (copy == NULL)
		return -1;
	cut_body(copy);
	for (char *d = strtok_r(copy, ",", &save); d;
	     d = strtok_r(NULL, ",", &save)) {
		struct mt_pdesc pd;
		char *buf = malloc(1024);

		if (buf == NULL)
			return free(copy), -1;
		cli_split_pdesc(d, buf, 1024, &pd);
		if (add_desc(dl, &pd, buf) != 0)
			return free(buf), free(copy), -1;
	}
	free(copy);
	return 0;
}

/* -l -s: the descriptions of every clause of the script. */
static int
add_script(struct cli *cl, int i, struct desc_list *dl)
{
	struct mt_diag d;
	struct mt_prog *p;
	int zdefs = cl->opts.zdefs;

	cl->opts.zdefs = 1;
	p = cli_compile(cl, i, 1, &d);
	cl->opts.zdefs = zdefs;
	if (p == NULL) {
		cli_print_diag(cl, &d, i);
		return -1;
	}
	for (uint32_t k = 0; k < p->nclauses; k++) {
		const struct mt_clause_info *ci = &p->clause_info[k];

		for (uint32_t j = 0; j < ci->npdescs; j++) {
			const struct mt_pdesc *src = &ci->pdescs[j];
			char *buf = malloc(1024), text[1024];
			struct mt_pdesc pd;

			if (buf == NULL)
				return mt_prog_free(p), -1;
			snprintf(text, sizeof(text), "%s:%s:%s:%s", src->prov ? src->prov : "",
				 src->mod ? src->mod : "", src->func ? src->func : "",
				 src->name ? src->name : "");
			cli_split_pdesc(text, buf, 1024, &pd);
			if (add_desc(dl, &pd, buf) != 0)
				return mt_prog_free(p), -1;
		}
	}
	mt_prog_free(p);
	return 0;
}

static void
free_descs(struct desc_list *dl)
{
	for (int i = 0; i < dl->n; i++)
		free(dl->bufs[i]);
	free(dl->bufs);
	free(dl->v);
}

/*
 * The target to list from.  A kernel that cannot be read matters only
 * when a description names a kernel provider or --kernel is given; plain
 * `machtrace -l` then lists the local target's probes.
 */
static struct mt_target *
list_target(struct cli *cl, const struct desc_list *dl, int *live)
{
	int force = cl->m.mach.kernel || cl->m.mach.nmodules || cl->m.force;
	int wants = dl->n == 0 || force;
	struct mt_target *t = NULL;
	char err[512];

	if (cli_session_open(cl) != 0)
		return NULL;
	for (int i = 0; !wants && i < dl->n; i++)
		wants |= mt_session_desc_wants_kernel(cl->session, &dl->v[i]);
	if (wants)
		t = mt_session_catalog(cl->session, err, sizeof(err));
	mt_session_close(cl->session);
	cl->session = NULL;
	*live = t != NULL;
	if (t != NULL)
		return t;
	if (wants && (dl->n > 0 || force)) {
		fprintf(stderr, "machtrace: %s\n", err);
		return NULL;
	}
	if ((t = mt_local_target_new()) == NULL)
		fprintf(stderr, "dtrace: failed to initialize dtrace: "
			"cannot create the local target\n");
	return t;
}

int
cli_list(struct cli *cl)
{
	struct list_state ls = { stdout, NULL, 0, cl->verbose };
	struct desc_list dl = { NULL, NULL, 0, 0 };
	int rc = E_ERROR;

	for (int i = 0; i < cl->ncmds; i++)
		if ((cl->cmds[i].is_file ? add_script(cl, i, &dl) :
		     add_pspec(&dl, cl->cmds[i].text)) != 0)
			goto out;
	if ((ls.t = list_target(cl, &dl, &ls.live)) == NULL)
		goto out;
	if (cl->ofile && (ls.out = fopen(cl->ofile, "a")) == NULL) {
		fprintf(stderr, "dtrace: failed to open output file '%s'\n",
			cl->ofile);
		goto out;
	}
	fprintf(ls.out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
		"FUNCTION", "NAME");
	if (dl.n == 0) {
		struct mt_pdesc all = { "", "", "", "", 0 };
		ls.t->ops->probes(ls.t, &all, 0, list_one, &ls);
	}
	for (int i = 0; i < dl.n; i++) {
		const struct mt_pdesc *pd = &dl.v[i];

		if (ls.t->ops->probes(ls.t, pd, 1, list_one, &ls) < 0) {
			fflush(ls.out);
			fprintf(stderr, "dtrace: failed to match %s:%s:%s:%s: %s\n",
				pd->prov, pd->mod, pd->func, pd->name, ls.t->err);
			goto out;
		}
	}
	fflush(ls.out);
	rc = E_SUCCESS;
out:
	if (ls.t)
		mt_target_free(ls.t);
	free_descs(&dl);
	return rc;
}
