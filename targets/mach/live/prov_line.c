/*
 * line:FILE:FUNC:N: the first instruction of source line N of FILE within
 * FUNC (an inlined copy's lines included) at each place the compiler put
 * the line (the statement start of each block of rows, kimg_lines.c: a
 * loop's test and increment, two inlined copies), made on demand from the
 * kernel's line tables as kinst probes are (an int3 at each).  A line in
 * one place is a kinst-like probe at its offset; one in several has them
 * as its locs (SDT_LINE).
 * FILE is the path in the source tree ("vm/vm_fault.c"); a description
 * names a function or a file (globs as everywhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/live/live_int.h"

struct lrow {
	const char *file;
	const struct mt_kfunc *f;
	int line;
	uint64_t addr;
};

struct lwalk {
	struct live *l;
	const struct mt_pdesc *pd;
	struct lrow *v;
	size_t n, cap;
};

static int take_row(void *arg, const char *file, int line, uint64_t addr)
{
	struct lwalk *w = arg;
	const struct mt_kfunc *f;
	char num[16];

	snprintf(num, sizeof num, "%d", line);
	if (!live_fmatch(w->pd->mod, file) || !live_fmatch(w->pd->name, num))
		return 0;
	f = mt_kimg_func_at(w->l->k, addr);
	if (!f || f->inline_only || f->patch == MT_PATCH_REFUSED ||
	    !live_fmatch(w->pd->func, f->name))
		return 0;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct lrow *v = realloc(w->v, cap * sizeof *v);
		if (!v)
			return -1;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = (struct lrow){ file, f, line, addr };
	return 0;
}

static int cmp_row(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;
	int c = strcmp(x->f->name, y->f->name);

	if (!c)
		c = strcmp(x->file, y->file);
	if (!c)
		c = x->line - y->line;
	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

static int same_line(const struct lrow *x, const struct lrow *y)
{
	return x->f == y->f && x->line == y->line && !strcmp(x->file, y->file);
}

/* A line placed more than once in its function: a site at each place. */
static int line_locs(struct lprobe *p, const struct lrow *r, size_t n)
{
	if (!(p->locs = calloc(n, sizeof *p->locs)))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!p->nlocs || p->locs[p->nlocs - 1].addr != r[i].addr)
			p->locs[p->nlocs++] = (struct sdt_loc){ .addr = r[i].addr, .f = r[i].f,
								.where = SDT_LINE };
	return 0;
}

static int make_probes(struct mt_target *t, struct lwalk *w, mt_probe_cb cb, void *arg)
{
	int made = 0;
	size_t n;

	qsort(w->v, w->n, sizeof *w->v, cmp_row);
	for (size_t i = 0; i < w->n; i += n) {
		const struct lrow *r = &w->v[i];
		struct lprobe *p;
		char num[16];

		for (n = 1; i + n < w->n && same_line(r, &r[n]); n++)
			;
		snprintf(num, sizeof num, "%d", r->line);
		p = live_probe_add(w->l, "line", r->f->name, num, MT_PK_OTHER,
				   r->addr - r->f->addr, r->f);
		if (!p || (r[n - 1].addr != r->addr && line_locs(p, r, n) < 0)) {
			snprintf(t->err, sizeof t->err, "out of memory");
			return -1;
		}
		p->mod = r->file;
		if (live_probe_report(p, cb, arg) < 0)
			return -1;
		made++;
	}
	return made;
}

static int line_create(struct mt_target *t, const struct mt_pdesc *pd,
		       mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	struct lwalk w = { l, pd, NULL, 0, 0 };
	const struct mt_kfunc *f = NULL;
	int rc;

	if (!pd->prov || strcmp(pd->prov, "line") != 0)
		return 0;
	if (pd->func && *pd->func && !live_has_glob(pd->func))
		f = mt_kimg_lookup(l->k, pd->func);
	if (!f && (!pd->mod || !*pd->mod || !strcmp(pd->mod, "*")))
		return 0;	/* neither a function nor a file: too many */
	rc = f ? mt_kimg_lines(l->k, f->addr, f->addr + f->size, take_row, &w) :
		mt_kimg_lines(l->k, 0, 0, take_row, &w);
	if (rc == 0)
		rc = make_probes(t, &w, cb, arg);
	else
		snprintf(t->err, sizeof t->err, "out of memory");
	free(w.v);
	return rc;
}

/* The instructions of line:FILE:FUNC:N (pd) when it names one line (at
   most max, lowest first); their count, 0 if none, -1 out of memory. */
int line_sites(struct live *l, const struct mt_pdesc *pd, const struct mt_kfunc **f,
	       uint64_t *addr, int max)
{
	struct lwalk w = { l, pd, NULL, 0, 0 };
	const struct mt_kfunc *fn = pd->func ? mt_kimg_lookup(l->k, pd->func) : NULL;
	int n = 0;

	if (!fn || live_has_glob(pd->name) || live_has_glob(pd->mod))
		return 0;
	if (mt_kimg_lines(l->k, fn->addr, fn->addr + fn->size, take_row, &w) != 0) {
		free(w.v);
		return -1;
	}
	qsort(w.v, w.n, sizeof *w.v, cmp_row);
	for (size_t i = 0; i < w.n && n < max && same_line(&w.v[0], &w.v[i]); i++)
		if (!n || addr[n - 1] != w.v[i].addr)
			addr[n++] = w.v[i].addr;
	*f = fn;
	free(w.v);
	return n;
}

/* -lv: the sites of a line placed more than once. */
void line_print_sites(const struct lprobe *p, FILE *out)
{
	fprintf(out, "\tProbe Sites (%u: line %s of %s is in %s %u times)\n", p->nlocs,
		p->name, p->mod, p->f->name, p->nlocs);
	for (uint32_t i = 0; i < p->nlocs; i++)
		fprintf(out, "\t\t%s+0x%llx\n", p->locs[i].f->name,
			(unsigned long long)(p->locs[i].addr - p->locs[i].f->addr));
	fprintf(out, "\n");
}

struct lexpand {
	struct live *l;
	FILE *f;
	int n;
};

static int expand_probe(void *arg, const struct mt_probe_info *info)
{
	struct lexpand *x = arg;
	const struct lprobe *p = live_probe_by_id(x->l, info->id);

	if (!p || !p->f)
		return 0;
	if (!p->locs)
		fprintf(x->f, "%skinst::%s:%llu", x->n++ ? ",\n" : "", p->f->name,
			(unsigned long long)p->arg);
	for (uint32_t i = 0; i < p->nlocs; i++)
		fprintf(x->f, "%skinst::%s:%llu", x->n++ ? ",\n" : "", p->locs[i].f->name,
			(unsigned long long)(p->locs[i].addr - p->locs[i].f->addr));
	return 0;
}

/* -d: the line probes pd names as the kinst::FUNC:OFFSET of each of
   their sites, comma-separated; malloc'd, NULL if none. */
char *line_expand(struct mt_target *t, const struct mt_pdesc *pd)
{
	struct lexpand x = { t->priv, NULL, 0 };
	char *s = NULL;
	size_t len = 0;
	int rc;

	if (!(x.f = open_memstream(&s, &len)))
		return NULL;
	rc = live_probes(t, pd, 1, expand_probe, &x);
	if (fclose(x.f) != 0 || rc < 0 || !x.n) {
		free(s);
		return NULL;
	}
	return s;
}

const struct live_provider live_prov_line = {
	.name = "line",
	.create = line_create,
};
