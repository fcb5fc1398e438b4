/*
 * kinst::FUNC:OFFSET: any instruction of an fbt function, made on demand
 * (as FreeBSD's kinst); kinst::FUNC: is every instruction of FUNC.
 * kinst::FUNC:entry and :return of a function the compiler inlined are
 * its inlined copies' and its out-of-line copy's (kinline.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "targets/mach/live/live_int.h"

/* kinst::FUNC:entry or :return of inlined f: one probe, its sites as locs. */
static int kinline_create(struct mt_target *t, const struct mt_kfunc *f, const char *name,
			  mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	struct lprobe *p = live_probe_add(l, "kinst", f->name, name, MT_PK_OTHER, 0, f);

	if (!p || kinline_sites(l, p, f, strcmp(name, "return") == 0) < 0)
		return live_err(t, "out of memory");
	if (!p->nlocs)
		return live_err(t, "kinst::%s:%s: no inlined copy of %s can be traced "
				"(machtrace -lv -n 'kinst::%s:%s' says why)", f->name, name,
				f->name, f->name, name);
	return live_probe_report(p, cb, arg) < 0 ? -1 : 1;
}

/* kinst::FUNC:OFFSET (or kinst::FUNC: for every instruction). */
static int kinst_create(struct mt_target *t, const struct mt_pdesc *pd,
			mt_probe_cb cb, void *arg)
{
	struct live *l = t->priv;
	const struct mt_kfunc *f;
	uint32_t offs[SDT_MAXINSNS];
	char name[16], *end;
	unsigned long want = 0;
	int n, made = 0;

	if (!pd->prov || strcmp(pd->prov, "kinst") != 0 || !pd->func || live_has_glob(pd->func) ||
	    live_has_glob(pd->name) || !live_fmatch(pd->mod, "gnumach"))
		return 0;
	f = mt_kimg_lookup(l->k, pd->func);
	if (f && (f->inline_only || f->ninstances) && pd->name &&
	    (strcmp(pd->name, "entry") == 0 || strcmp(pd->name, "return") == 0))
		return kinline_create(t, f, pd->name, cb, arg);
	if (!f || f->patch == MT_PATCH_REFUSED || f->inline_only)
		return 0;
	if (pd->name && *pd->name) {
		want = strtoul(pd->name, &end, 10);
		if (*end)
			return 0;
	}
	n = sites_insn_offsets(l->k, f, offs, SDT_MAXINSNS);
	for (int i = 0; i < n; i++) {
		struct lprobe *p;
		if (pd->name && *pd->name && offs[i] != want)
			continue;
		snprintf(name, sizeof name, "%u", offs[i]);
		p = live_probe_add(l, "kinst", f->name, name, MT_PK_OTHER, offs[i], f);
		if (!p) {
			snprintf(t->err, sizeof t->err, "out of memory");
			return -1;
		}
		if (live_probe_report(p, cb, arg) < 0)
			return -1;
		made++;
	}
	return made;
}

const struct live_provider live_prov_kinst = {
	.name = "kinst",
	.create = kinst_create,
};
