/*
 * mt_link, the link stage between the compiler and a target: match each
 * clause's probe descriptions against the target's probes (match.c), then
 * lay out the enabling image the target attaches (layout.c).
 */
#include "link/link_int.h"

struct mt_image *mt_link(const struct mt_prog *prog, const struct mt_opts *opts,
			 struct mt_target *t, uint32_t *nmatched,
			 char *err, size_t errlen)
{
	struct lmatch m;
	struct mt_image *img;

	if (nmatched)
		*nmatched = 0;
	if (link_match(prog, opts, t, &m, err, errlen) < 0)
		return NULL;
	if (nmatched)
		*nmatched = m.nprobes;
	img = link_layout(prog, opts, &m, err, errlen);
	link_match_free(&m);
	return img;
}
