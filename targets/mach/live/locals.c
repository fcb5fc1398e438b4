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

/* The instruction a probe description names: fbt::F:entry, kinst::F:N,
   line:FILE:F:N. */
static int site_pc(struct live *l, const struct mt_pdesc *pd, const struct mt_kfunc **f,
		   uint64_t *pc, char *err, size_t errlen)
{
	const char *prov = pd->prov, *func = pd->func, *name = pd->name;
	char *end = NULL;
	unsigned long off = 0;

	if (prov && strcmp(prov, "line") == 0 && line_site(l, pd, f, pc) == 0)
		return 0;
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
	*pc = (*f)->addr + off;
	return 0;
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

char *mt_live_local(struct mt_target *t, const struct mt_pdesc *pd, const char *var,
		    char **ctype, char *err, size_t errlen)
{
	struct live *l = t->priv;
	const struct mt_kfunc *f;
	struct dwloc_res res;
	char type[512], why[700];
	uint64_t pc;
	char *s;

	*ctype = NULL;
	if (site_pc(l, pd, &f, &pc, err, errlen) < 0)
		return NULL;
	if (mt_kimg_local(l->k, pc, var, type, sizeof type, &res, why, sizeof why) < 0) {
		snprintf(err, errlen, "locals->%s: %s at %s+0x%llx", var, why, f->name,
			 (unsigned long long)(pc - f->addr));
		return NULL;
	}
	if (!(s = d_expr(&res, type, why, sizeof why))) {
		snprintf(err, errlen, "locals->%s: %s", var, why);
		return NULL;
	}
	if (!(*ctype = strdup(type))) {
		free(s);
		snprintf(err, errlen, "out of memory");
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
	uint64_t pc;
	int n, k = 0;

	if (site_pc(l, pd, &f, &pc, err, errlen) < 0)
		return NULL;
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
