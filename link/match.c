/*
 * Matching: each clause's probe descriptions against a target's probes.
 * A probe matched by several descriptions gets one ECB per description, in
 * clause order, as dtrace's one enabling per statement.  A description
 * matching nothing is an error unless -Z (zdefs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "link/link_int.h"
#include "machtrace/errtags.h"

static int probe_cb(void *arg, const struct mt_probe_info *p)
{
	struct lmatch *c = arg;
	struct lprobe *lp = NULL;
	c->matched++;
	for (uint32_t i = 0; i < c->nprobes; i++)
		if (c->probes[i].pi.id == p->id)
			lp = &c->probes[i];
	if (!lp) {
		if (c->nprobes == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 16;
			c->probes = realloc(c->probes, c->cap * sizeof(*c->probes));
		}
		lp = &c->probes[c->nprobes++];
		memset(lp, 0, sizeof(*lp));
		lp->pi = *p;
		lp->prov = strdup(p->prov ? p->prov : "");
		lp->mod = strdup(p->mod ? p->mod : "");
		lp->func = strdup(p->func ? p->func : "");
		lp->name = strdup(p->name ? p->name : "");
	}
	/* one ECB per matching description, as dtrace's one statement each */
	lp->clauses = realloc(lp->clauses, (lp->nclauses + 1) * sizeof(uint32_t));
	lp->clauses[lp->nclauses++] = c->clause;
	return 0;
}

void link_match_free(struct lmatch *c)
{
	for (uint32_t i = 0; i < c->nprobes; i++) {
		free(c->probes[i].prov);
		free(c->probes[i].mod);
		free(c->probes[i].func);
		free(c->probes[i].name);
		free(c->probes[i].clauses);
	}
	free(c->probes);
}

static int cmp_probe(const void *a, const void *b)
{
	const struct lprobe *x = a, *y = b;
	return x->pi.id < y->pi.id ? -1 : x->pi.id > y->pi.id;
}

int link_match(const struct mt_prog *prog, const struct mt_opts *opts,
	       struct mt_target *t, struct lmatch *c, int *bad_clause,
	       char *err, size_t errlen)
{
	int errtags = opts && opts->errtags;
	memset(c, 0, sizeof(*c));
	if (bad_clause)
		*bad_clause = -1;
	for (uint32_t ci = 0; ci < prog->nclauses; ci++) {
		const struct mt_clause_info *inf = &prog->clause_info[ci];
		c->clause = ci;
		for (uint32_t k = 0; k < inf->npdescs; k++) {
			const struct mt_pdesc *pd = &inf->pdescs[k];
			c->matched = 0;
			if (t->ops->probes(t, pd, 1, probe_cb, c) < 0) {
				snprintf(err, errlen, "%s", t->err);
				if (bad_clause)
					*bad_clause = (int)ci;
				link_match_free(c);
				return -1;
			}
			if (c->matched == 0 && !(opts && opts->zdefs)) {
				snprintf(err, errlen,
					 "%s%s%sline %d: probe description %s:%s:%s:%s does not match any probes",
					 errtags ? "[" : "", errtags ? mt_dtag_name(D_PDESC_ZERO) : "",
					 errtags ? "] " : "",
					 pd->line, pd->prov, pd->mod, pd->func, pd->name);
				if (bad_clause)
					*bad_clause = (int)ci;
				link_match_free(c);
				return -1;
			}
		}
	}
	if (c->nprobes)		/* qsort(NULL, 0) is undefined */
		qsort(c->probes, c->nprobes, sizeof(*c->probes), cmp_probe);
	for (uint32_t i = 0; i < c->nprobes; i++)
		c->npairs += c->probes[i].nclauses;
	return 0;
}
