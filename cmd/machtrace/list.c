/*
 * -l: list the probes matching the command's descriptions (or all), in
 * dtrace -l's format: the local target's first, then the GNU Mach
 * kernel's fbt probes when the description can name them.
 */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "machtrace/mach.h"
#include "machtrace/program.h"

struct list_state {
	FILE *out;
	uint32_t maxid;
	int count;
};

static int
list_one(void *arg, const struct mt_probe_info *p)
{
	struct list_state *ls = arg;

	fprintf(ls->out, "%5u %10s %17s %33s %s\n", p->id, p->prov, p->mod,
		p->func, p->name);
	if (p->id > ls->maxid)
		ls->maxid = p->id;
	ls->count++;
	return 0;
}

/*
 * Split "a:b:c:d" into provider, module, function and name, fields
 * aligned to the right as dtrace does ("BEGIN" is a name).  buf holds the
 * strings.
 */
void
cli_split_pdesc(const char *s, char *buf, size_t len, struct mt_pdesc *pd)
{
	char *f[4] = { NULL, NULL, NULL, NULL }, *p;
	int n = 0;

	snprintf(buf, len, "%s", s);
	buf[strcspn(buf, "{/")] = '\0';
	for (p = buf; *p == ' ' || *p == '\t' || *p == '\n'; p++)
		;
	for (size_t l = strlen(p); l > 0 && strchr(" \t\n", p[l - 1]); l--)
		p[l - 1] = '\0';
	f[n++] = p;
	while (n < 4 && (p = strchr(p, ':')) != NULL) {
		*p++ = '\0';
		f[n++] = p;
	}
	memset(pd, 0, sizeof(*pd));
	{
		char **dst[4] = { &pd->prov, &pd->mod, &pd->func, &pd->name };
		for (int i = 0; i < n; i++)
			*dst[4 - n + i] = f[i];
	}
	for (int i = 0; i < 4; i++) {
		char **x = i == 0 ? &pd->prov : i == 1 ? &pd->mod :
			   i == 2 ? &pd->func : &pd->name;
		if (*x == NULL)
			*x = "";
	}
}

static int
names_fbt(const struct mt_pdesc *pd)
{
	return pd->prov[0] == '\0' || strcmp(pd->prov, "fbt") == 0 ||
	       strpbrk(pd->prov, "*?[") != NULL;
}

/* -l -s: the probes each clause's descriptions match. */
static int
list_script(struct cli *cl, int i, struct mt_target *t,
	    struct list_state *ls, const char **descs, int *ndescs,
	    int *want_mach)
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
			struct mt_pdesc pd = ci->pdescs[j];
			char buf[1024];

			if (!pd.prov) pd.prov = "";
			if (!pd.mod) pd.mod = "";
			if (!pd.func) pd.func = "";
			if (!pd.name) pd.name = "";
			t->ops->probes(t, &pd, 1, list_one, ls);
			if (names_fbt(&pd) && *ndescs < 64) {
				snprintf(buf, sizeof(buf), "%s:%s:%s:%s",
					 pd.prov, pd.mod, pd.func, pd.name);
				descs[(*ndescs)++] = strdup(buf);
				*want_mach = 1;
			}
		}
	}
	mt_prog_free(p);
	return 0;
}

int
cli_list(struct cli *cl)
{
	struct list_state ls = { stdout, 0, 0 };
	struct mt_target *t = mt_local_target_new();
	const char **descs = calloc(cl->ncmds + 65, sizeof(char *));
	int ndescs = 0, want_mach = cl->ncmds == 0, explicit_fbt = 0;
	char err[512];

	if (t == NULL || descs == NULL)
		return E_ERROR;
	if (cl->ofile && (ls.out = fopen(cl->ofile, "a")) == NULL) {
		fprintf(stderr, "dtrace: failed to open output file '%s'\n",
			cl->ofile);
		return E_ERROR;
	}
	fprintf(ls.out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
		"FUNCTION", "NAME");
	if (cl->ncmds == 0) {
		struct mt_pdesc all = { "", "", "", "", 0 };
		t->ops->probes(t, &all, 0, list_one, &ls);
	}
	for (int i = 0; i < cl->ncmds; i++) {
		const char *text = cl->cmds[i].text;
		char buf[1024], *copy = strdup(text), *save = NULL;

		if (cl->cmds[i].is_file) {
			free(copy);
			if (list_script(cl, i, t, &ls, descs, &ndescs,
					&want_mach) != 0)
				return E_ERROR;
			continue;
		}
		copy[strcspn(copy, "{/")] = '\0';
		for (char *d = strtok_r(copy, ",", &save); d;
		     d = strtok_r(NULL, ",", &save)) {
			struct mt_pdesc pd;

			cli_split_pdesc(d, buf, sizeof(buf), &pd);
			t->ops->probes(t, &pd, 1, list_one, &ls);
			if (names_fbt(&pd)) {
				want_mach = 1;
				descs[ndescs++] = strdup(d);
				explicit_fbt |= strncmp(pd.prov, "fbt", 3) == 0;
			}
		}
		free(copy);
	}
	if (want_mach) {
		/* the live target numbers fbt from 4, after dtrace's 1-3:
		   keep that when no other local probe was listed */
		unsigned first = ls.maxid > 3 ? ls.maxid + 1 : 4;
		int n = mt_mach_list(cl->kernel, descs, ndescs, cl->verbose,
				     first, ls.out, err, sizeof(err));
		if (n > 0)
			ls.count += n;
		/* a kernel that cannot be read matters only when asked for */
		if (n < 0 && (explicit_fbt || cl->kernel)) {
			fflush(ls.out);
			fprintf(stderr, "machtrace: %s\n", err);
			mt_target_free(t);
			return E_ERROR;
		}
	}
	fflush(ls.out);
	mt_target_free(t);
	return E_SUCCESS;
}
