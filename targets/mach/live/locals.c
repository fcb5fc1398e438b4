/*
 * locals->NAME (struct mt_ctypes local): a local variable or parameter of
 * the function at an fbt entry or kinst site, as a D expression over the
 * probe's saved registers (image/dwloc.c) that the compiler parses in its
 * place.  A variable with no location at the site is an error there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/live/live_int.h"

#define LOCALS_MAXPCS	32

/* The instructions a probe description names: fbt::F:entry, kinst::F:N,
   line:FILE:F:N (each place of the line); their count, or -1. */
static int site_pcs(struct live *l, const struct mt_pdesc *pd, const struct mt_kfunc **f,
		    uint64_t *pcs, char *err, size_t errlen)
{
	const char *prov = pd->prov, *func = pd->func, *name = pd->name;
	char *end = NULL;
	unsigned long off = 0;
	int n;

	if (prov && strcmp(prov, "line") == 0 &&
	    (n = line_sites(l, pd, f, pcs, LOCALS_MAXPCS)) != 0) {
		if (n < 0)
			snprintf(err, errlen, "out of memory");
		return n;
	}
	*f = func ? mt_kimg_lookup(l->k, func) : NULL;
	if (prov && name && strcmp(prov, "kinst") == 0)
		off = strtoul(name, &end, 10);
	if (!*f || (*f)->inline_only || !prov || !name ||
	    !(strcmp(prov, "fbt") == 0 ? strcmp(name, "entry") == 0 :
	      end && end != name && !*end && off < (*f)->size)) {
		snprintf(err, errlen, "locals is available at one fbt::FUNC:entry, "
			 "kinst::FUNC:OFFSET or line:FILE:FUNC:N probe, not %s:%s:%s:%s",
			 prov ? prov : "", pd->mod ? pd->mod : "", func ? func : "",
			 name ? name : "");
		return -1;
	}
	pcs[0] = (*f)->addr + off;
	return 1;
}

/* The D text for a location of type ctype. */
static char *d_expr(const struct dwloc_res *res, const char *ctype, char *err,
		    size_t errlen)
{
	size_t n = strlen(ctype) + strlen(res->text) + 16;
	char *s;
	int sou = (!strncmp(ctype, "struct ", 7) || !strncmp(ctype, "union ", 6)) &&
		!strchr(ctype, '*');

	if (strpbrk(ctype, "[(") || (sou && res->kind == DWLOC_VALUE)) {
		snprintf(err, errlen, "its type (%s) is not supported by locals", ctype);
		return NULL;
	}
	if (!(s = malloc(n))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (res->kind == DWLOC_ADDR)
		snprintf(s, n, "(*(%s *)%s)", ctype, res->text);
	else
		snprintf(s, n, "((%s)(%s))", ctype, res->text);
	return s;
}

/* var at pc of f: its D text (malloc'd) and C type; NULL with err. */
static char *local_at(struct live *l, const struct mt_kfunc *f, uint64_t pc, const char *var,
		      char *type, size_t typelen, char *err, size_t errlen)
{
	struct dwloc_res res;
	char why[700];
	char *s;

	if (mt_kimg_local(l->k, pc, var, type, typelen, &res, why, sizeof why) < 0) {
		snprintf(err, errlen, "locals->%s: %s at %s+0x%llx", var, why, f->name,
			 (unsigned long long)(pc - f->addr));
		return NULL;
	}
	if (!(s = d_expr(&res, type, why, sizeof why)))
		snprintf(err, errlen, "locals->%s: %s", var, why);
	return s;
}

/*
 * A line in several places: var must be read the same way at each (no
 * probe name tells the places apart), else the error names two of them.
 */
char *mt_live_local(struct mt_target *t, const struct mt_pdesc *pd, const char *var,
		    char **ctype, char *err, size_t errlen)
{
	struct live *l = t->priv;
	const struct mt_kfunc *f;
	uint64_t pcs[LOCALS_MAXPCS];
	char type[512], type1[512];
	char *s = NULL;
	int n;

	*ctype = NULL;
	if ((n = site_pcs(l, pd, &f, pcs, err, errlen)) < 0)
		return NULL;
	for (int i = 0; i < n; i++) {
		char *si = local_at(l, f, pcs[i], var, i ? type1 : type, sizeof type, err, errlen);
		int same = si && (!i || (!strcmp(s, si) && !strcmp(type, type1)));
		if (si && !same)
			snprintf(err, errlen, "locals->%s: its location differs between the "
				 "places of line %s (%s+0x%llx, +0x%llx): name each as "
				 "kinst::%s:OFFSET", var, pd->name, f->name,
				 (unsigned long long)(pcs[0] - f->addr),
				 (unsigned long long)(pcs[i] - f->addr), f->name);
		if (i)
			free(si);
		else
			s = si;
		if (!same) {
			free(s);
			return NULL;
		}
	}
	if (!(*ctype = strdup(type))) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return NULL;
	}
	return s;
}

/* Free a NULL-terminated array of strings. */
void mt_live_free_names(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

char **mt_live_local_names(struct mt_target *t, const struct mt_pdesc *pd, char *site,
			   size_t sitelen, char *err, size_t errlen)
{
	struct live *l = t->priv;
	const struct mt_kfunc *f;
	char **all = NULL, **v;
	uint64_t pcs[LOCALS_MAXPCS], pc;
	int n, k = 0;

	if (site_pcs(l, pd, &f, pcs, err, errlen) < 0)
		return NULL;
	pc = pcs[0];
	snprintf(site, sitelen, "%s+0x%llx", f->name, (unsigned long long)(pc - f->addr));
	if ((n = mt_kimg_local_names(l->k, pc, &all)) < 0 ||
	    !(v = calloc((size_t)n + 1, sizeof *v))) {
		snprintf(err, errlen, "out of memory");
		mt_live_free_names(all);
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		char *ctype = NULL, why[800];
		char *e = mt_live_local(t, pd, all[i], &ctype, why, sizeof why);
		if (e)
			v[k++] = all[i];
		else
			free(all[i]);
		free(e);
		free(ctype);
	}
	free(all);
	return v;
}
