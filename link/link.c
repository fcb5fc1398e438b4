/*
 * mt_link, the link stage between the compiler and a target: match each
 * clause's probe descriptions against the target's probes (match.c), then
 * lay out the enabling image the target attaches (layout.c), with the
 * msgids table when the program names Mach messages (msgtab.c).
 */
#include "link/link_int.h"
#include "machtrace/msgids.h"

struct mt_image *mt_link(const struct mt_prog *prog, const struct mt_opts *opts,
			 struct mt_target *t, int *bad_clause,
			 char *err, size_t errlen)
{
	struct lmatch m;
	struct lmsgtab msgs = { 0 };
	int named = link_uses_msgids(prog);
	struct mt_image *img;

	if (link_match(prog, opts, t, &m, bad_clause, err, errlen) < 0)
		return NULL;
	if (named && link_msgtab(opts, MT_MSGIDS_SYSDIR, &msgs, err, errlen) < 0) {
		link_match_free(&m);
		return NULL;
	}
	img = link_layout(prog, opts, &m, named ? &msgs : NULL, err, errlen);
	if (img && t->ops->ncpus)
		img->opt.ncpus = t->ops->ncpus(t);
	link_msgtab_free(&msgs);
	link_match_free(&m);
	return img;
}
