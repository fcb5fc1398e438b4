/*
 * line:FILE:FUNC:N: the first instruction of source line N of FILE within
 * FUNC (the lowest address of a statement row of that line in FUNC's
 * code, an inlined copy's lines included), made on demand from the
 * kernel's line tables as kinst probes are (an int3 at that instruction).
 * FILE is the path in the source tree ("vm/vm_fault.c"); a description
 * names a function or a file (globs as everywhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/mach/image/dwloc.h"
#include "targets/mach/live/live_int.h"
#include "machtrace/vec.h"

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
	if (MT_VEC_ROOM(w->v, w->n, w->cap, 256) != 0)
		return -1;
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

static int make_probes(struct mt_target *t, struct lwalk *w, mt_probe_cb cb, void *arg)
{
	int made = 0;

	qsort(w->v, w->n, sizeof *w->v, cmp_row);
	for (size_t i = 0; i < w->n; i++) {
		const struct lrow *r = &w->v[i];
		struct lprobe *p;
		char num[16];

		if (i && r->f == r[-1].f && r->line == r[-1].line &&
		    !strcmp(r->file, r[-1].file))
			continue;	/* the lowest address of the line only */
		snprintf(num, sizeof num, "%d", r->line);
		p = live_probe_add(w->l, "line", r->f->name, num, MT_PK_OTHER,
				   r->addr - r->f->addr, r->f);
		if (!p) {
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

/* The instruction of line:FILE:FUNC:N (pd) when it names one; 0, or -1. */
int line_site(struct live *l, const struct mt_pdesc *pd, const struct mt_kfunc **f,
	      uint64_t *addr)
{
	struct lwalk w = { l, pd, NULL, 0, 0 };
	const struct mt_kfunc *fn = pd->func ? mt_kimg_lookup(l->k, pd->func) : NULL;
	int rc = -1;

	if (fn && !live_has_glob(pd->name) && !live_has_glob(pd->mod) &&
	    mt_kimg_lines(l->k, fn->addr, fn->addr + fn->size, take_row, &w) == 0 &&
	    w.n > 0) {
		qsort(w.v, w.n, sizeof *w.v, cmp_row);
		*f = fn;
		*addr = w.v[0].addr;
		rc = 0;
	}
	free(w.v);
	return rc;
}

const struct live_provider live_prov_line = {
	.name = "line",
	.create = line_create,
};
