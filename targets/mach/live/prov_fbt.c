/*
 * fbt: entry and return of every kernel function the image reader accepts,
 * numbered in the image reader's order (as `machtrace -l` lists them).
 */
#include "targets/mach/live/live_int.h"

static int fbt_populate(struct live *l)
{
	for (size_t i = 0; i < mt_kimg_nfuncs(l->k); i++) {
		const struct mt_kfunc *f = mt_kimg_func(l->k, i);

		if (f->patch == MT_PATCH_REFUSED)
			continue;
		if (!live_probe_add(l, "fbt", f->name, "entry", MT_PK_FBT_ENTRY, 0, f))
			return -1;
		if (f->nrets &&
		    !live_probe_add(l, "fbt", f->name, "return", MT_PK_FBT_RETURN, 0, f))
			return -1;
	}
	return 0;
}

const struct live_provider live_prov_fbt = {
	.name = "fbt",
	.populate = fbt_populate,
};
