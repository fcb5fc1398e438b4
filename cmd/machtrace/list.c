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

int
cli_list(struct cli *cl)
{
	struct list_state ls = { stdout, 0, 0 };
	struct mt_target *t = mt_local_target_new();
	const char **descs = calloc(cl->ncmds + 1, sizeof(char *));
	int ndescs = 0, want_mach = cl->ncmds == 0;
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
			fprintf(stderr, "dtrace: -l with -s lists the "
				"probes of -n descriptions only\n");
			free(copy);
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
			}
		}
		free(copy);
	}
	if (want_mach) {
		int n = mt_mach_list(NULL, descs, ndescs, cl->verbose,
				     ls.maxid + 1, ls.out, err, sizeof(err));
		if (n > 0)
			ls.count += n;
	}
	fflush(ls.out);
	mt_target_free(t);
	return E_SUCCESS;
}
